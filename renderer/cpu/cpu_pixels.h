/*
 * The CPU backend's pixels: blends, spans and the rounded clip, inline
 * where the per-pixel code calls them (every file of the backend).
 */
#ifndef RENDERER_CPU_PIXELS_H
#define RENDERER_CPU_PIXELS_H

#include "cpu_private.h"

/* ---- pixels ------------------------------------------------------------- */

/* The pixels the frame reads for a pinned image. */
static inline uint32_t *frame_pixels(const struct cpu_px *px,
		const struct vr_image *image) {
	for (size_t i = 0; i < px->nholds; i++) {
		if (px->holds[i].image == image) {
			return px->holds[i].hold->px;
		}
	}
	return image->data;
}

/* lroundf(vr_clampf(v, 0, 1) * 255) (reference.c's rounding), without
 * the libm call: y - trunc(y) is exact for 0 <= y <= 255. */
static inline uint8_t unorm8(float v) {
	float y = (v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v) * 255.0f;
	int32_t r = (int32_t)y;
	return (uint8_t)(y - (float)r >= 0.5f ? r + 1 : r);
}

/* x / 255.0f for every byte: the same floats as the division (shared,
 * written once before any worker starts). */
extern float cpu_unit8[256]; /* cpu_pixels.c */
/* Fills cpu_unit8 (once per process; before any worker starts). */
void cpu_unit8_init(void);

static inline float minf(float a, float b) {
	return a < b ? a : b;
}

static inline float maxf(float a, float b) {
	return a > b ? a : b;
}

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* reference.c's blend: src (premultiplied) times coverage over the pixel,
 * in floats, rounded once. With SSE2 the four channels go in one vector
 * through the same IEEE operations in the same order (the destination's
 * x / 255.0f a division, as cpu_unit8's; unorm8's clamp, truncation and
 * half-up test), so the same bits as the scalar code. */
static inline void blend_px(uint32_t *p, const float src[4], float coverage) {
	if (coverage <= 0.0f) {
		return;
	}
#ifdef __SSE2__
	/* lanes in the pixel's byte order: b, g, r, a */
	__m128 s = _mm_loadu_ps(src);
	s = _mm_shuffle_ps(s, s, _MM_SHUFFLE(3, 0, 1, 2));
	__m128 cov = _mm_set1_ps(coverage);
	__m128 sc = _mm_mul_ps(s, cov); /* lane 3: a = src[3] * coverage */
	__m128 one = _mm_set1_ps(1.0f);
	__m128 inv =
			_mm_sub_ps(one, _mm_shuffle_ps(sc, sc, _MM_SHUFFLE(3, 3, 3, 3)));
	__m128i zero = _mm_setzero_si128();
	__m128i di = _mm_unpacklo_epi16(
			_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)*p), zero), zero);
	__m128 d = _mm_div_ps(_mm_cvtepi32_ps(di), _mm_set1_ps(255.0f));
	__m128 v = _mm_add_ps(sc, _mm_mul_ps(d, inv));
	v = _mm_min_ps(_mm_max_ps(v, _mm_setzero_ps()), one);
	__m128 y = _mm_mul_ps(v, _mm_set1_ps(255.0f));
	__m128i r = _mm_cvttps_epi32(y);
	__m128 frac = _mm_sub_ps(y, _mm_cvtepi32_ps(r));
	/* + 1 where frac >= 0.5: the mask is -1 */
	r = _mm_sub_epi32(r,
			_mm_castps_si128(_mm_cmpge_ps(frac, _mm_set1_ps(0.5f))));
	r = _mm_packs_epi32(r, r);
	*p = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(r, r));
#else
	float a = src[3] * coverage;
	float d[4] = {
		cpu_unit8[(*p >> 16) & 0xff],
		cpu_unit8[(*p >> 8) & 0xff],
		cpu_unit8[*p & 0xff],
		cpu_unit8[*p >> 24],
	};
	uint8_t r = unorm8(src[0] * coverage + d[0] * (1.0f - a));
	uint8_t g = unorm8(src[1] * coverage + d[1] * (1.0f - a));
	uint8_t b = unorm8(src[2] * coverage + d[2] * (1.0f - a));
	uint8_t al = unorm8(a + d[3] * (1.0f - a));
	*p = (uint32_t)al << 24 | (uint32_t)r << 16 | (uint32_t)g << 8 | b;
#endif
}

/* blend_px remembering its last destination and coverage: along a row
 * of a constant colour both repeat (the background, a shadow's inside). */
struct blend_memo {
	uint32_t in, out;
	float coverage;
};

static inline void blend_memo_init(struct blend_memo *m) {
	*m = (struct blend_memo){ .coverage = -1.0f };
}

static inline void blend_px_memo(struct blend_memo *m, uint32_t *p,
		const float src[4], float coverage) {
	if (coverage <= 0.0f) {
		return;
	}
	if (*p != m->in || coverage != m->coverage) {
		m->in = *p;
		m->coverage = coverage;
		blend_px(p, src, coverage);
		m->out = *p;
		return;
	}
	*p = m->out;
}

/*
 * Fixed-point "over" of a constant colour at a given coverage, in 8.8
 * fixed point per channel: channel = (S + ((d << 8) K >> 16) + 128) >> 8
 * with S = 255 src 256 and K = (1 - alpha) 65536 (at most 65535), both
 * rounded: within 1/128 of the float blend before its rounding, so equal
 * to blend_px but for near-ties. SSE2 does four pixels at a time with the
 * same arithmetic (pmulhuw, saturating adds), the scalar code the rest:
 * a pixel's value never depends on its neighbours.
 */
struct blend_fx {
	uint16_t s[4]; /* b, g, r, a: the order of a pixel's bytes */
	uint16_t k[4]; /* the same K in every lane */
};
_Static_assert(sizeof(struct blend_fx) == 16, "s then k, one SSE2 load");

static inline void blend_fx_init(struct blend_fx *fx, const float src[4],
		float coverage) {
	static const int order[4] = { 2, 1, 0, 3 };
	for (int i = 0; i < 4; i++) {
		float v = src[order[i]] * coverage;
		v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
		fx->s[i] = (uint16_t)(v * 255.0f * 256.0f + 0.5f);
	}
	float k = 1.0f - src[3] * coverage;
	k = k < 0.0f ? 0.0f : k > 1.0f ? 1.0f : k;
	long kk = (long)(k * 65536.0f + 0.5f);
	for (int i = 0; i < 4; i++) {
		fx->k[i] = (uint16_t)(kk > 65535 ? 65535 : kk);
	}
}

static inline uint32_t blend_fx_channel(uint32_t s, uint32_t d, uint32_t k) {
	uint32_t v = s + (((d << 8) * k) >> 16);
	v = v > 65535u ? 65535u : v;
	v = v + 128u > 65535u ? 65535u : v + 128u;
	return v >> 8;
}

static inline uint32_t blend_fx_px(const struct blend_fx *fx, uint32_t p) {
	return blend_fx_channel(fx->s[3], p >> 24, fx->k[0]) << 24 |
			blend_fx_channel(fx->s[2], (p >> 16) & 0xff, fx->k[0]) << 16 |
			blend_fx_channel(fx->s[1], (p >> 8) & 0xff, fx->k[0]) << 8 |
			blend_fx_channel(fx->s[0], p & 0xff, fx->k[0]);
}

#ifdef __SSE2__
/* Two pixels (the low 64 bits of p) with the blends in s and k. */
static inline __m128i blend_fx_sse2(__m128i p, __m128i s, __m128i k) {
	const __m128i zero = _mm_setzero_si128();
	const __m128i half = _mm_set1_epi16(128);
	__m128i d = _mm_slli_epi16(_mm_unpacklo_epi8(p, zero), 8);
	__m128i v = _mm_adds_epu16(s, _mm_mulhi_epu16(d, k));
	return _mm_srli_epi16(_mm_adds_epu16(v, half), 8);
}
#endif

/* n pixels at q, each with the blend of its coverage m[i] (table: one
 * per 8-bit coverage; 0 leaves the pixel). */
static inline void blend_fx_cover_row(uint32_t *q, int32_t n, const uint8_t *m,
		const struct blend_fx *table) {
	int32_t i = 0;
#ifdef __SSE2__
	for (; i + 2 <= n; i += 2) {
		if (i + 4 <= n) {
			uint32_t m4;
			memcpy(&m4, m + i, sizeof(m4));
			if (m4 == 0) {
				i += 2; /* four pixels of coverage 0 */
				continue;
			}
		}
		if ((m[i] | m[i + 1]) == 0) {
			continue;
		}
		/* an entry is 16 bytes, s then k: one load each */
		__m128i a = _mm_loadu_si128((const __m128i *)&table[m[i]]);
		__m128i b = _mm_loadu_si128((const __m128i *)&table[m[i + 1]]);
		__m128i s = _mm_unpacklo_epi64(a, b);
		__m128i k = _mm_unpackhi_epi64(a, b);
		__m128i p = _mm_loadl_epi64((const __m128i *)(q + i));
		__m128i v = blend_fx_sse2(p, s, k);
		_mm_storel_epi64((__m128i *)(q + i), _mm_packus_epi16(v, v));
	}
#endif
	for (; i < n; i++) {
		if (m[i] != 0) {
			q[i] = blend_fx_px(&table[m[i]], q[i]);
		}
	}
}

/* n pixels at q over one constant blend. */
static inline void blend_fx_row(uint32_t *q, int32_t n,
		const struct blend_fx *fx) {
	int32_t i = 0;
#ifdef __SSE2__
	__m128i s = _mm_loadl_epi64((const __m128i *)fx->s);
	s = _mm_unpacklo_epi64(s, s);
	__m128i k = _mm_loadl_epi64((const __m128i *)fx->k);
	k = _mm_unpacklo_epi64(k, k);
	for (; i + 4 <= n; i += 4) {
		__m128i p = _mm_loadu_si128((const __m128i *)(q + i));
		__m128i lo = blend_fx_sse2(p, s, k);
		__m128i hi = blend_fx_sse2(_mm_srli_si128(p, 8), s, k);
		_mm_storeu_si128((__m128i *)(q + i), _mm_packus_epi16(lo, hi));
	}
#endif
	for (; i < n; i++) {
		q[i] = blend_fx_px(fx, q[i]);
	}
}

static inline uint32_t *px_at(const struct cpu_px *px, int32_t x, int32_t y) {
	return &px->data[(size_t)y * (size_t)px->stride + (size_t)x];
}

/* A constant colour at full coverage over pixels [x0, x1) of row y: the
 * values blend_px gives with coverage 1 (fx: the colour's fixed-point
 * blend, for translucent colours, equal but for near-ties). */
static inline void blend_span(const struct cpu_px *px, int32_t x0, int32_t x1,
		int32_t y, const float src[4], const struct blend_fx *fx) {
	if (x0 >= x1) {
		return;
	}
	if (src[3] < 1.0f) {
		blend_fx_row(px_at(px, x0, y), x1 - x0, fx);
		return;
	}
	uint32_t *p = px_at(px, x0, y);
	if (src[3] >= 1.0f) {
		uint32_t v = (uint32_t)unorm8(src[3]) << 24 |
				(uint32_t)unorm8(src[0]) << 16 | (uint32_t)unorm8(src[1]) << 8 |
				unorm8(src[2]);
		int32_t n = x1 - x0, i = 0;
#ifdef __SSE2__
		/* four pixels a store: large opaque fills (backgrounds, cards)
		 * are most of a frame's stores */
		__m128i v4 = _mm_set1_epi32((int)v);
		for (; i + 4 <= n; i += 4) {
			_mm_storeu_si128((__m128i *)(p + i), v4);
		}
#endif
		for (; i < n; i++) {
			p[i] = v;
		}
		return;
	}
	/* per destination value: a small memo, runs of one value are common */
	uint32_t last_in = *p, last_out = last_in;
	blend_px(&last_out, src, 1.0f);
	for (int32_t x = x0; x < x1; x++, p++) {
		if (*p != last_in) {
			last_in = *p;
			last_out = last_in;
			blend_px(&last_out, src, 1.0f);
		}
		*p = last_out;
	}
}

/* ---- the rounded clip: the one place its coverage is evaluated ---------- */

struct cpu_rclip {
	bool on;
	uint32_t n;
	struct vr_rclip rclips[VR_RCLIP_MAX]; /* target pixels */
};

static inline void rclip_from_state(struct cpu_rclip *rc,
		const struct vr_prim_state *state) {
	rc->n = state->nrclips;
	rc->on = rc->n > 0;
	memcpy(rc->rclips, state->rclips, rc->n * sizeof(rc->rclips[0]));
}

static inline void rclip_from_quad(struct cpu_rclip *rc,
		const struct vr_draw_task *task) {
	rc->n = task->nrclips;
	rc->on = rc->n > 0;
	memcpy(rc->rclips, task->rclips, rc->n * sizeof(rc->rclips[0]));
}

/* Coverage of the pixel centred at (x, y) by the rounded clips, as
 * vr_clip_coverage computes it (vr_rclip_coverage, engine_common.c; the
 * box clip is applied by the callers' scissors). */
static inline float rclip_coverage(const struct cpu_rclip *rc, float x,
		float y) {
	float coverage = 1.0f;
	for (uint32_t i = 0; i < rc->n; i++) {
		coverage *= vr_rclip_coverage(&rc->rclips[i], x, y);
	}
	return coverage;
}

/* The box of pixels whose centre the integer clip box holds. */
static inline struct vr_box scissor_clip(const struct cpu_px *px,
		const struct vr_box *clip) {
	return vr_box_intersect(&px->box, clip);
}

#endif
