/*
 * The CPU execution backend (vr_cpu_render): the engine's prepared tasks
 * (prepare.c, the same as the Vulkan engine and the reference renderer
 * execute) rasterised into an a8r8g8b8 pixman image by a small pool of
 * worker threads.
 *
 * A frame has two parallel phases, both spread over the pool by an atomic
 * counter (the calling thread takes part):
 *
 *   1. per task, what every band of it would otherwise redo: the
 *      tessellation of strokes and paths, the glyph bitmaps of runs (the
 *      renderer's glyph cache), the blurred coverage of shadows (the
 *      renderer's shadow cache);
 *   2. per band of rows of the damaged area (at most CPU_BAND_BYTES, to
 *      stay in cache): the clear colour (clear_area: not under large
 *      opaque fills), then every task whose AABB meets the band, in chain
 *      order, clipped to the band.
 *
 * Every pixel's value is a function of the tasks and of its own position
 * only, never of the band it is drawn in: pixman composites with
 * translations and transforms fixed per pixel (no rasterisation relative
 * to an origin), the spans below evaluate coverage at pixel centres with
 * the same functions as the reference renderer, triangles are
 * rasterised with integer edge functions on the 1/256 pixel grid. So the
 * output is bit-identical for any number of workers and any band split.
 *
 * Per primitive (see reference.c for the rules they follow):
 * - quads: pixman_image_composite32 OVER, nearest or bilinear, opacity as
 *   a solid mask; a rounded clip or a rotated quad through an a8 mask
 *   whose rows are mostly constant (only edge pixels evaluate coverage);
 * - shapes: per row, edge pixels evaluate the SDF, the fully covered
 *   interior span of a fill is stored (opaque) or blended in 8.8 fixed
 *   point (SSE2), the hole of a stroke is skipped; axis-aligned rounded
 *   rectangles reuse a row's edge coverages between their corners
 *   (struct edge_profile) and take the rows above and below them by runs
 *   of one coverage (shape_fringe_row);
 * - triangles: a scanline rasteriser in fixed point (each row's span from
 *   the three edge functions), a row in chunks whose ends tell a covered
 *   span or nothing (tri_row), the fringe coverage interpolated per pixel;
 * - glyphs: A8 bitmaps from the cache blended 1:1, a row at a time
 *   through the colour's table of fixed-point blends (blend_lazy_for;
 *   under a rounded clip the same blends, in floats only where the clip
 *   covers a pixel in part; or sampled bilinearly through the triangle
 *   rasteriser when transformed); their quads are placed in phase 1;
 * - shadows: the shape's coverage, two separable Gaussian passes with the
 *   reference's weights (8 bits between them), cached across frames,
 *   composited 1:1 per pixel, or scaled with per-column texels and
 *   weights and a fixed-point blend per 8-bit coverage;
 * - layers (group opacity): the sub-tasks drawn into an 8-bit image of
 *   the layer's bounds in phase 1, composited times the opacity.
 * Where the reference blends in floats, so does this file, except the
 * fixed-point blends (within 1/128 of the float value before rounding).
 *
 * Shared state, per renderer: the glyph cache (keyed by face address:
 * faces live as long as the process), the shadow cache and the
 * tessellation cache (each under its own mutex while phase 1 fills it,
 * read-only in phase 2, trimmed only between calls, when no worker runs).
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <vitrail/canvas.h>
#include "engine_private.h"

#define CPU_MAX_WORKERS 64
/* Past this many rectangles a damage region is drawn as its extents. */
#define CPU_REGION_MAX_RECTS 16
/* Caches are emptied between frames past these sizes. */
#define CPU_GLYPH_CACHE_MAX 8192
#define CPU_SHADOW_CACHE_MAX_BYTES (64u << 20)
#define CPU_SHADOW_CACHE_AGE 16 /* frames an unused mask is kept */

/* ---- the pool ----------------------------------------------------------- */

typedef void (*cpu_item_fn)(void *data, uint32_t item);

struct cpu_pool {
	pthread_mutex_t lock;
	pthread_cond_t start, done;
	pthread_t threads[CPU_MAX_WORKERS];
	int nthreads; /* besides the caller */
	uint64_t generation; /* bumped per parallel loop */
	int running; /* threads still in the current loop */
	bool quit;
	/* the current loop */
	cpu_item_fn fn;
	void *data;
	uint32_t nitems;
	atomic_uint next;
};

struct cpu_glyph {
	struct vr_font_face *face;
	uint32_t glyph;
	float size_px;
	bool ok;
	struct vr_glyph_bitmap bitmap;
	struct cpu_glyph *next; /* hash chain */
};

#define CPU_GLYPH_BUCKETS 4096

struct cpu_shadow_key {
	struct vr_rectf rect;
	struct vr_radii radii;
	float sigma;
	float scale, sigma_px, origin[2];
	int32_t radius, width, height;
};

struct cpu_shadow_mask {
	struct cpu_shadow_key key;
	uint8_t *coverage; /* width x height, blurred */
	uint64_t used; /* frame */
	struct cpu_shadow_mask *next;
};

/* A tessellated geometry: what tri_pixel reads of its vertices. */
struct cpu_tri_vertex {
	float pos[2];
	float aa[3];
	float shape[2];
};

struct cpu_tess_entry {
	struct vr_geometry key; /* compared whole (memcmp) */
	uint32_t hash;
	struct cpu_tri_vertex *v;
	size_t count;
	uint64_t used; /* frame */
	struct cpu_tess_entry *next;
};

#define CPU_TESS_BUCKETS 1024
/* render calls an unused tessellation is kept (several outputs draw a
 * frame in as many calls) */
#define CPU_TESS_KEEP 4

struct vr_cpu_renderer {
	struct cpu_pool pool;
	int workers;
	uint64_t frame;
	/* shared: the glyph cache */
	pthread_mutex_t glyph_lock;
	struct cpu_glyph *glyphs[CPU_GLYPH_BUCKETS];
	size_t nglyphs;
	/* shared: the shadow cache */
	pthread_mutex_t shadow_lock;
	struct cpu_shadow_mask *shadows;
	size_t shadow_bytes;
	/* shared: the tessellation cache. Keys name paths by address: the
	 * display lists of the last CPU_TESS_KEEP calls stay referenced as
	 * long as an entry they used may be hit, so no path a key names is
	 * freed (and its address reused) meanwhile. */
	pthread_mutex_t tess_lock;
	struct cpu_tess_entry *tess[CPU_TESS_BUCKETS];
	size_t tess_bytes;
	struct {
		struct vr_display_list **lists;
		size_t nlists;
	} held[CPU_TESS_KEEP]; /* by frame, seq % CPU_TESS_KEEP; the
				* caller's thread (retirement) */

	/* Asynchronous frames (vr_cpu_render_submit). The caller's thread
	 * prepares and queues them; the frame thread ("vr-cpu-frame")
	 * executes them in order with the pool, and moves them to `done`;
	 * the caller's thread retires them (unpins images, releases lists)
	 * in vr_cpu_renderer_dispatch or a wait. Shared between the two,
	 * under queue_lock: queue, done, completed, quit. */
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t queue_lock;
	pthread_cond_t queue_cond; /* work for the frame thread */
	pthread_cond_t done_cond; /* a frame completed */
	struct cpu_job *queue, *queue_tail; /* submitted, not executed */
	struct cpu_job *done, *done_tail; /* executed, not retired */
	uint64_t completed; /* the last executed frame's id */
	bool quit;
	int fd; /* eventfd: written at every completion */
	/* the caller's thread */
	uint64_t submitted; /* the last submitted frame's id */
	uint64_t retired; /* the last retired frame's id */
	uint64_t seq; /* frames executed (the caches' clock): frame thread */
	struct {
		uint64_t id;
		bool ok;
		struct vr_frame_timing timing;
	} timings[VR_FRAMES_IN_FLIGHT]; /* by id % VR_FRAMES_IN_FLIGHT */
};

static void pool_work(struct cpu_pool *pool)
{
	uint32_t i;
	while ((i = atomic_fetch_add(&pool->next, 1)) < pool->nitems) {
		pool->fn(pool->data, i);
	}
}

static void *pool_main(void *data)
{
	struct cpu_pool *pool = data;
	uint64_t seen = 0;
	pthread_mutex_lock(&pool->lock);
	int index = 0;
	for (int i = 0; i < pool->nthreads; i++) {
		if (pthread_equal(pool->threads[i], pthread_self())) {
			index = i + 1;
		}
	}
	pthread_mutex_unlock(&pool->lock);
	char name[24]; /* pthread names: 15 characters */
	snprintf(name, sizeof(name), "vr-cpu-%d", index % CPU_MAX_WORKERS);
	pthread_setname_np(pthread_self(), name);
	vr_thread_yield_to_caller();
	pthread_mutex_lock(&pool->lock);
	while (true) {
		while (!pool->quit && pool->generation == seen) {
			pthread_cond_wait(&pool->start, &pool->lock);
		}
		if (pool->quit) {
			break;
		}
		seen = pool->generation;
		pthread_mutex_unlock(&pool->lock);
		pool_work(pool);
		pthread_mutex_lock(&pool->lock);
		if (--pool->running == 0) {
			pthread_cond_signal(&pool->done);
		}
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

/* fn(data, i) for i in [0, nitems), on the pool and the calling thread;
 * returns when all are done. */
static void pool_run(struct cpu_pool *pool, uint32_t nitems, cpu_item_fn fn,
		void *data)
{
	if (nitems == 0) {
		return;
	}
	pool->fn = fn;
	pool->data = data;
	pool->nitems = nitems;
	atomic_store(&pool->next, 0);
	if (pool->nthreads > 0 && nitems > 1) {
		pthread_mutex_lock(&pool->lock);
		pool->running = pool->nthreads;
		pool->generation++;
		pthread_cond_broadcast(&pool->start);
		pthread_mutex_unlock(&pool->lock);
		pool_work(pool);
		pthread_mutex_lock(&pool->lock);
		while (pool->running > 0) {
			pthread_cond_wait(&pool->done, &pool->lock);
		}
		pthread_mutex_unlock(&pool->lock);
	} else {
		pool_work(pool);
	}
}

static bool pool_init(struct cpu_pool *pool, int nthreads)
{
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->start, NULL);
	pthread_cond_init(&pool->done, NULL);
	/* threads read nthreads under the lock to find their index */
	pthread_mutex_lock(&pool->lock);
	for (int i = 0; i < nthreads; i++) {
		int err = pthread_create(&pool->threads[i], NULL, pool_main, pool);
		if (err != 0) {
			vr_log(VR_LOG_ERROR, "cpu: pthread_create failed: %d", err);
			break;
		}
		pool->nthreads++;
	}
	pthread_mutex_unlock(&pool->lock);
	return pool->nthreads == nthreads;
}

static void pool_finish(struct cpu_pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	pool->quit = true;
	pthread_cond_broadcast(&pool->start);
	pthread_mutex_unlock(&pool->lock);
	for (int i = 0; i < pool->nthreads; i++) {
		pthread_join(pool->threads[i], NULL);
	}
	pthread_cond_destroy(&pool->start);
	pthread_cond_destroy(&pool->done);
	pthread_mutex_destroy(&pool->lock);
}

/* ---- pixels ------------------------------------------------------------- */

/* Where a task draws: dst's pixels, and the box (band, damage rectangle,
 * task AABB) it may touch. */
/* An image whose newest pixels a frame reads from a store of their own
 * (vr_image_hold_next): written while older frames read it in place. */
struct cpu_hold {
	const struct vr_image *image;
	struct vr_pixels_hold *hold;
};

struct cpu_px {
	pixman_image_t *image;
	uint32_t *data;
	int32_t stride; /* pixels */
	struct vr_box box;
	/* the frame's held stores (read-only for its workers) */
	const struct cpu_hold *holds;
	size_t nholds;
};

/* The pixels the frame reads for a pinned image. */
static uint32_t *frame_pixels(const struct cpu_px *px,
		const struct vr_image *image)
{
	for (size_t i = 0; i < px->nholds; i++) {
		if (px->holds[i].image == image) {
			return px->holds[i].hold->px;
		}
	}
	return image->data;
}

/* lroundf(vr_clampf(v, 0, 1) * 255) (reference.c's rounding), without
 * the libm call: y - trunc(y) is exact for 0 <= y <= 255. */
static inline uint8_t unorm8(float v)
{
	float y = (v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v) * 255.0f;
	int32_t r = (int32_t)y;
	return (uint8_t)(y - (float)r >= 0.5f ? r + 1 : r);
}

/* x / 255.0f for every byte: the same floats as the division (shared,
 * written once before any worker starts). */
static float unit8[256];
static pthread_once_t unit8_once = PTHREAD_ONCE_INIT;

static void unit8_init(void)
{
	for (int i = 0; i < 256; i++) {
		unit8[i] = (float)i / 255.0f;
	}
}

static inline float minf(float a, float b)
{
	return a < b ? a : b;
}

static inline float maxf(float a, float b)
{
	return a > b ? a : b;
}

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* reference.c's blend: src (premultiplied) times coverage over the pixel,
 * in floats, rounded once. With SSE2 the four channels go in one vector
 * through the same IEEE operations in the same order (the destination's
 * x / 255.0f a division, as unit8's; unorm8's clamp, truncation and
 * half-up test), so the same bits as the scalar code. */
static inline void blend_px(uint32_t *p, const float src[4], float coverage)
{
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
	__m128 inv = _mm_sub_ps(one,
		_mm_shuffle_ps(sc, sc, _MM_SHUFFLE(3, 3, 3, 3)));
	__m128i zero = _mm_setzero_si128();
	__m128i di = _mm_unpacklo_epi16(_mm_unpacklo_epi8(
		_mm_cvtsi32_si128((int)*p), zero), zero);
	__m128 d = _mm_div_ps(_mm_cvtepi32_ps(di), _mm_set1_ps(255.0f));
	__m128 v = _mm_add_ps(sc, _mm_mul_ps(d, inv));
	v = _mm_min_ps(_mm_max_ps(v, _mm_setzero_ps()), one);
	__m128 y = _mm_mul_ps(v, _mm_set1_ps(255.0f));
	__m128i r = _mm_cvttps_epi32(y);
	__m128 frac = _mm_sub_ps(y, _mm_cvtepi32_ps(r));
	/* + 1 where frac >= 0.5: the mask is -1 */
	r = _mm_sub_epi32(r, _mm_castps_si128(_mm_cmpge_ps(frac,
		_mm_set1_ps(0.5f))));
	r = _mm_packs_epi32(r, r);
	*p = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(r, r));
#else
	float a = src[3] * coverage;
	float d[4] = {
		unit8[(*p >> 16) & 0xff],
		unit8[(*p >> 8) & 0xff],
		unit8[*p & 0xff],
		unit8[*p >> 24],
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

static inline void blend_memo_init(struct blend_memo *m)
{
	*m = (struct blend_memo){ .coverage = -1.0f };
}

static inline void blend_px_memo(struct blend_memo *m, uint32_t *p,
		const float src[4], float coverage)
{
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

static void blend_fx_init(struct blend_fx *fx, const float src[4],
		float coverage)
{
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

static inline uint32_t blend_fx_channel(uint32_t s, uint32_t d, uint32_t k)
{
	uint32_t v = s + (((d << 8) * k) >> 16);
	v = v > 65535u ? 65535u : v;
	v = v + 128u > 65535u ? 65535u : v + 128u;
	return v >> 8;
}

static inline uint32_t blend_fx_px(const struct blend_fx *fx, uint32_t p)
{
	return blend_fx_channel(fx->s[3], p >> 24, fx->k[0]) << 24 |
		blend_fx_channel(fx->s[2], (p >> 16) & 0xff, fx->k[0]) << 16 |
		blend_fx_channel(fx->s[1], (p >> 8) & 0xff, fx->k[0]) << 8 |
		blend_fx_channel(fx->s[0], p & 0xff, fx->k[0]);
}

#ifdef __SSE2__
/* Two pixels (the low 64 bits of p) with the blends in s and k. */
static inline __m128i blend_fx_sse2(__m128i p, __m128i s, __m128i k)
{
	const __m128i zero = _mm_setzero_si128();
	const __m128i half = _mm_set1_epi16(128);
	__m128i d = _mm_slli_epi16(_mm_unpacklo_epi8(p, zero), 8);
	__m128i v = _mm_adds_epu16(s, _mm_mulhi_epu16(d, k));
	return _mm_srli_epi16(_mm_adds_epu16(v, half), 8);
}
#endif

/* n pixels at q, each with the blend of its coverage m[i] (table: one
 * per 8-bit coverage; 0 leaves the pixel). */
static void blend_fx_cover_row(uint32_t *q, int32_t n, const uint8_t *m,
		const struct blend_fx *table)
{
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
static void blend_fx_row(uint32_t *q, int32_t n, const struct blend_fx *fx)
{
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

static inline uint32_t *px_at(const struct cpu_px *px, int32_t x, int32_t y)
{
	return &px->data[(size_t)y * (size_t)px->stride + (size_t)x];
}

/* A constant colour at full coverage over pixels [x0, x1) of row y: the
 * values blend_px gives with coverage 1 (fx: the colour's fixed-point
 * blend, for translucent colours, equal but for near-ties). */
static void blend_span(const struct cpu_px *px, int32_t x0, int32_t x1,
		int32_t y, const float src[4], const struct blend_fx *fx)
{
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
			(uint32_t)unorm8(src[0]) << 16 |
			(uint32_t)unorm8(src[1]) << 8 | unorm8(src[2]);
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

static void rclip_from_state(struct cpu_rclip *rc,
		const struct vr_prim_state *state)
{
	rc->n = state->nrclips;
	rc->on = rc->n > 0;
	memcpy(rc->rclips, state->rclips, rc->n * sizeof(rc->rclips[0]));
}

static void rclip_from_quad(struct cpu_rclip *rc,
		const struct vr_draw_task *task)
{
	rc->n = task->nrclips;
	rc->on = rc->n > 0;
	memcpy(rc->rclips, task->rclips, rc->n * sizeof(rc->rclips[0]));
}

/* Coverage of the pixel centred at (x, y) by the rounded clips, as
 * vr_clip_coverage computes it (vr_rclip_coverage, engine_common.c; the
 * box clip is applied by the callers' scissors). */
static float rclip_coverage(const struct cpu_rclip *rc, float x, float y)
{
	float coverage = 1.0f;
	for (uint32_t i = 0; i < rc->n; i++) {
		coverage *= vr_rclip_coverage(&rc->rclips[i], x, y);
	}
	return coverage;
}

/* The box of pixels whose centre the integer clip box holds. */
static struct vr_box scissor_clip(const struct cpu_px *px,
		const struct vr_box *clip)
{
	return vr_box_intersect(&px->box, clip);
}

/* ---- quads -------------------------------------------------------------- */

/* Row y of a coverage mask over [x0, x1): per pixel
 * lround(rclip coverage * alpha * 255); the pixels between the first and
 * the last fully covered ones are taken as covered (the clips are convex,
 * so is their intersection). */
static void rclip_row(const struct cpu_rclip *rc, int32_t x0, int32_t x1,
		int32_t y, float alpha, uint8_t *out)
{
	float fy = (float)y + 0.5f;
	uint8_t full = (uint8_t)lroundf(alpha * 255.0f);
	int32_t x = x0;
	for (; x < x1; x++) {
		float c = rclip_coverage(rc, (float)x + 0.5f, fy);
		out[x - x0] = (uint8_t)lroundf(c * alpha * 255.0f);
		if (c >= 1.0f) {
			break;
		}
	}
	if (x >= x1) {
		return;
	}
	int32_t r = x1 - 1;
	for (; r > x; r--) {
		float c = rclip_coverage(rc, (float)r + 0.5f, fy);
		out[r - x0] = (uint8_t)lroundf(c * alpha * 255.0f);
		if (c >= 1.0f) {
			break;
		}
	}
	memset(out + (x - x0), full, (size_t)(r - x + 1));
}

/* ---- fixed-point triangles ---------------------------------------------- */

static int64_t floor_div(int64_t a, int64_t b)
{
	/* b > 0 */
	int64_t q = a / b;
	return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int64_t snap256(float v)
{
	return (int64_t)llround((double)v * 256.0);
}

typedef void (*cpu_pixel_fn)(const struct cpu_px *px, int32_t x, int32_t y,
	const double w[3], void *data);
/* A row's pixels [lo, hi] (inclusive) at once: the weights of the pixel
 * centred at x + 0.5 are wy[i] + wb[i] (x + 0.5), as raster_triangle
 * gives fn. */
typedef void (*cpu_row_fn)(const struct cpu_px *px, int32_t lo, int32_t hi,
	int32_t y, const double wy[3], const double wb[3], void *data);

/*
 * Calls fn for each pixel of px->box whose centre the triangle covers
 * (vertices snapped to 1/256 pixel, top-left rule: reference.c's
 * raster_triangle, exactly, in integers), with the barycentric weights of
 * a, b, c interpolated from the unsnapped positions.
 */
static void raster_triangle(const struct cpu_px *px, const float *a,
		const float *b, const float *c, cpu_pixel_fn fn, cpu_row_fn row_fn,
		void *data)
{
	/* most triangles of a long path miss a band: reject them before
	 * any set-up (a pixel of margin: the exact rule follows) */
	const struct vr_box *s0 = &px->box;
	float lo_y = minf(a[1], minf(b[1], c[1]));
	float hi_y = maxf(a[1], maxf(b[1], c[1]));
	float lo_x = minf(a[0], minf(b[0], c[0]));
	float hi_x = maxf(a[0], maxf(b[0], c[0]));
	if (hi_y < (float)s0->y - 1.0f || lo_y > (float)(s0->y + s0->height) +
			1.0f || hi_x < (float)s0->x - 1.0f ||
			lo_x > (float)(s0->x + s0->width) + 1.0f) {
		return;
	}
	int64_t p[3][2] = {
		{ snap256(a[0]), snap256(a[1]) },
		{ snap256(b[0]), snap256(b[1]) },
		{ snap256(c[0]), snap256(c[1]) },
	};
	int64_t area = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) -
		(p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
	if (area == 0) {
		return;
	}
	int order[3] = { 0, 1, 2 };
	if (area < 0) {
		order[1] = 2;
		order[2] = 1;
	}
	const float *f[3] = { a, b, c };
	double fa = ((double)f[1][0] - f[0][0]) * ((double)f[2][1] - f[0][1]) -
		((double)f[1][1] - f[0][1]) * ((double)f[2][0] - f[0][0]);
	if (fa == 0.0) {
		return;
	}
	/* the barycentric weights as planes in the pixel centre:
	 * w_i = wa_i cy + wb_i cx + wc_i, evaluated per pixel (never
	 * stepped), so a pixel's weights do not depend on the band */
	double wa[3], wb[3], wc[3];
	for (int i = 0; i < 3; i++) {
		const float *u = f[(i + 1) % 3], *v = f[(i + 2) % 3];
		double dx = (double)v[0] - u[0], dy = (double)v[1] - u[1];
		wa[i] = dx / fa;
		wb[i] = -dy / fa;
		wc[i] = (dy * u[0] - dx * u[1]) / fa;
	}
	int64_t minx = p[0][0], maxx = p[0][0], miny = p[0][1], maxy = p[0][1];
	for (int i = 1; i < 3; i++) {
		minx = p[i][0] < minx ? p[i][0] : minx;
		maxx = p[i][0] > maxx ? p[i][0] : maxx;
		miny = p[i][1] < miny ? p[i][1] : miny;
		maxy = p[i][1] > maxy ? p[i][1] : maxy;
	}
	const struct vr_box *s = &px->box;
	int64_t iy0 = floor_div(miny, 256), iy1 = floor_div(maxy + 255, 256);
	int64_t ix0 = floor_div(minx, 256), ix1 = floor_div(maxx + 255, 256);
	iy0 = iy0 > s->y ? iy0 : s->y;
	iy1 = iy1 < s->y + s->height ? iy1 : s->y + s->height;
	ix0 = ix0 > s->x ? ix0 : s->x;
	ix1 = ix1 < s->x + s->width ? ix1 : s->x + s->width;
	if (iy0 >= iy1 || ix0 >= ix1) {
		return;
	}
	/*
	 * Per edge, ev(x) = dx * (cy - ay) - dy * (256 x + 128 - ax) >= bias
	 * is k - 256 dy x >= 0 with k = dx * (cy - ay) - dy * (128 - ax) -
	 * bias, which grows by 256 dx a row. With dy != 0 the bound is
	 * floor(k / D), D = 256 |dy| (dy > 0: x <= it; dy < 0: x >= minus
	 * it), kept per row as a quotient and a remainder in [0, D) stepped
	 * without a division: the same integers as dividing on every row.
	 */
	struct {
		int64_t dy, k, sk; /* k: the row's, stepped by sk, for dy == 0 */
		int64_t q, r, d, sq, sr; /* dy != 0: floor(k / d) = q */
	} edge[3];
	for (int e = 0; e < 3; e++) {
		const int64_t *ea = p[order[e]], *eb = p[order[(e + 1) % 3]];
		int64_t dx = eb[0] - ea[0], dy = eb[1] - ea[1];
		bool tl = dy < 0 || (dy == 0 && dx > 0);
		int64_t bias = tl ? 0 : 1;
		int64_t cy = iy0 * 256 + 128;
		int64_t k = dx * (cy - ea[1]) - dy * (128 - ea[0]) - bias;
		edge[e].dy = dy;
		edge[e].k = k;
		edge[e].sk = 256 * dx;
		if (dy != 0) {
			int64_t d = 256 * (dy > 0 ? dy : -dy);
			int64_t step = 256 * dx;
			edge[e].d = d;
			edge[e].q = floor_div(k, d);
			edge[e].r = k - edge[e].q * d;
			edge[e].sq = floor_div(step, d);
			edge[e].sr = step - edge[e].sq * d;
		}
	}
	for (int64_t y = iy0; y < iy1; y++) {
		int64_t lo = ix0, hi = ix1 - 1; /* inclusive */
		for (int e = 0; e < 3; e++) {
			if (y > iy0) {
				if (edge[e].dy == 0) {
					edge[e].k += edge[e].sk;
				} else {
					/* the carry without a branch: it is taken about
					 * as often as not on a slanted edge */
					int64_t r = edge[e].r + edge[e].sr;
					int64_t over = r >= edge[e].d;
					edge[e].q += edge[e].sq + over;
					edge[e].r = r - (-over & edge[e].d);
				}
			}
			if (edge[e].dy == 0) {
				if (edge[e].k < 0) {
					hi = lo - 1;
				}
			} else if (edge[e].dy > 0) {
				/* x <= floor(k / (256 dy)) */
				hi = edge[e].q < hi ? edge[e].q : hi;
			} else {
				/* x >= ceil(k / (256 dy)), dy < 0: -floor(k / d) */
				int64_t m = -edge[e].q;
				lo = m > lo ? m : lo;
			}
		}
		double cyp = (double)y + 0.5;
		double wy[3];
		for (int i = 0; i < 3; i++) {
			wy[i] = wa[i] * cyp + wc[i];
		}
		if (row_fn != NULL) {
			if (lo <= hi) {
				row_fn(px, (int32_t)lo, (int32_t)hi, (int32_t)y, wy, wb, data);
			}
			continue;
		}
		for (int64_t x = lo; x <= hi; x++) {
			double cxp = (double)x + 0.5;
			double w[3] = { wy[0] + wb[0] * cxp, wy[1] + wb[1] * cxp,
				wy[2] + wb[2] * cxp };
			fn(px, (int32_t)x, (int32_t)y, w, data);
		}
	}
}

/* ---- quads (continued) -------------------------------------------------- */

struct quad_mask_ctx {
	uint8_t *data;
	int stride;
	struct vr_box box;
	const struct cpu_rclip *rc;
	float alpha;
};

static void quad_mask_pixel(const struct cpu_px *px, int32_t x, int32_t y,
		const double w[3], void *data)
{
	(void)px;
	(void)w;
	struct quad_mask_ctx *q = data;
	float c = rclip_coverage(q->rc, (float)x + 0.5f, (float)y + 0.5f);
	q->data[(size_t)(y - q->box.y) * (size_t)q->stride +
		(size_t)(x - q->box.x)] = (uint8_t)lroundf(c * q->alpha * 255.0f);
}

static void draw_quad(const struct cpu_px *px, const struct vr_draw_task *task)
{
	struct vr_box box;
	if (task->axis_aligned) {
		struct vr_box cover = vr_quad_cover(task);
		box = vr_box_intersect(&cover, &px->box);
	} else {
		struct vr_box aabb = vr_box_intersect(&task->aabb, &task->clip);
		box = vr_box_intersect(&aabb, &px->box);
	}
	if (vr_box_empty(&box)) {
		return;
	}
	pixman_image_t *src = vr_quad_source_from(task, task->image != NULL ?
		frame_pixels(px, task->image) : NULL);
	if (src == NULL) {
		vr_log(VR_LOG_ERROR, "cpu: cannot build a source");
		return;
	}
	struct cpu_rclip rc;
	rclip_from_quad(&rc, task);
	float alpha = task->image != NULL ? (float)task->a / 255.0f : 1.0f;
	pixman_image_t *mask = NULL;
	if (task->axis_aligned && !rc.on) {
		if (task->image != NULL && task->a < 255) {
			pixman_color_t color = { .alpha = (uint16_t)(task->a * 257) };
			mask = pixman_image_create_solid_fill(&color);
		}
	} else {
		mask = pixman_image_create_bits(PIXMAN_a8, box.width, box.height,
			NULL, 0);
		if (mask == NULL) {
			pixman_image_unref(src);
			return;
		}
		uint8_t *data = (uint8_t *)pixman_image_get_data(mask);
		int stride = pixman_image_get_stride(mask);
		if (task->axis_aligned) {
			for (int32_t y = 0; y < box.height; y++) {
				rclip_row(&rc, box.x, box.x + box.width, box.y + y, alpha,
					data + (size_t)y * (size_t)stride);
			}
		} else {
			/* pixel centres inside the quad (GPU rule) */
			struct quad_mask_ctx q = { data, stride, box, &rc, alpha };
			struct cpu_px sub = *px;
			sub.box = box;
			float c[4][2];
			const float us[4] = { 0, 1, 0, 1 }, vs[4] = { 0, 0, 1, 1 };
			for (int i = 0; i < 4; i++) {
				vr_mat_apply(&task->mat, us[i], vs[i], &c[i][0], &c[i][1]);
			}
			raster_triangle(&sub, c[0], c[1], c[2], quad_mask_pixel, NULL, &q);
			raster_triangle(&sub, c[1], c[3], c[2], quad_mask_pixel, NULL, &q);
		}
	}
	int32_t mx = mask != NULL && (rc.on || !task->axis_aligned) ? 0 : box.x;
	int32_t my = mask != NULL && (rc.on || !task->axis_aligned) ? 0 : box.y;
	pixman_image_composite32(PIXMAN_OP_OVER, src, mask, px->image,
		box.x, box.y, mx, my, box.x, box.y, box.width, box.height);
	if (mask != NULL) {
		pixman_image_unref(mask);
	}
	pixman_image_unref(src);
}

/* ---- shapes ------------------------------------------------------------- */

/*
 * A row's straight section: in a rounded rectangle whose local y is the
 * same along a pixel row (the inverse matrix has b == 0), the pixels of
 * one half (px <= 0 or px > 0, one corner radius r) with
 * qx = |px| - hx + r <= 0 < qy = |py| - hy + r give vr_sdf_rrect the
 * same inputs but for mx = max(qx, 0), a zero whose square is +0: the
 * same distance, so the same coverage. The rows above and below a shape
 * (its antialiased fringe and the empty rows around it) are all straight
 * section but their corners: one evaluation per half instead of one per
 * pixel, bit for bit the same values.
 */
struct shape_row {
	bool on; /* a rounded rectangle with b == 0 in its inverse */
	float py;
	float r[2], qy[2]; /* per half: px <= 0, px > 0 */
	bool known[2];
	float coverage[2]; /* the shape's, without the rounded clips */
};

struct shape_eval {
	struct vr_mat inv;
	struct vr_shape_vertex v;
	float cx, cy;
	struct cpu_rclip rc;
	struct shape_row row;
};

/* A new row: its local y and, per half, whether it has a straight
 * section. */
static void shape_row_start(struct shape_eval *e, int32_t y)
{
	struct shape_row *row = &e->row;
	row->known[0] = row->known[1] = false;
	if (!row->on) {
		return;
	}
	float fy = (float)y + 0.5f;
	/* vr_mat_apply's ly with b == 0: b x is a zero for every x */
	float ly = e->inv.b * 0.5f + e->inv.d * fy + e->inv.ty;
	row->py = ly - e->cy;
	const float *radii = e->v.radii;
	bool below = row->py > 0.0f;
	/* stored as pairs: draw_shape reads r[0..1] back at once, and a
	 * store of r[1] with qy[0] would not forward to that load */
	float r0 = below ? radii[3] : radii[0];
	float r1 = below ? radii[2] : radii[1];
	float qy0 = fabsf(row->py) - e->v.half[1] + r0;
	float qy1 = fabsf(row->py) - e->v.half[1] + r1;
	row->r[0] = r0;
	row->r[1] = r1;
	row->qy[0] = qy0;
	row->qy[1] = qy1;
}

/* The edge pixels of the rows of a fill, reused down its sides. With
 * c == 0 in the inverse too, a column has the same px, so the same qx, on
 * every row. On a row with qy <= 0 and qy <= qx at each pixel of its
 * half the left and right scans evaluated, vr_sdf_rrect's max(qx, qy) is
 * qx and my is a zero there: the distance is a function of qx alone, so
 * another such row with the same corner radii gets the same coverages
 * and the same scans (where each stopped). Plain and rounded rectangles
 * spend most rows between their corners this way. */
#define CPU_EDGE_MAX 32 /* edge pixels kept per side */

struct edge_profile {
	bool valid;
	float r[2]; /* the corner radii of the row it was made on */
	float min_qx[2]; /* per half, over the pixels evaluated */
	int32_t nl, nr; /* pixels of the left scan (to its stop), right scan */
	float cl[CPU_EDGE_MAX], cr[CPU_EDGE_MAX];
};

static inline float shape_cov_qx(struct shape_eval *e, int32_t x, int32_t y,
		float *qx_out, int *half_out)
{
	float fx = (float)x + 0.5f, fy = (float)y + 0.5f;
	struct shape_row *row = &e->row;
	if (row->on) {
		/* vr_mat_apply's lx, the same operations */
		float px = e->inv.a * fx + e->inv.c * fy + e->inv.tx - e->cx;
		int half = px > 0.0f;
		float qx = fabsf(px) - e->v.half[0] + row->r[half];
		*qx_out = qx;
		*half_out = half;
		if (qx <= 0.0f && row->qy[half] > 0.0f) {
			if (!row->known[half]) {
				e->v.local[0] = px;
				e->v.local[1] = row->py;
				row->coverage[half] = vr_shape_coverage(&e->v);
				row->known[half] = true;
			}
			return row->coverage[half] * rclip_coverage(&e->rc, fx, fy);
		}
	}
	float lx, ly;
	vr_mat_apply(&e->inv, fx, fy, &lx, &ly);
	e->v.local[0] = lx - e->cx;
	e->v.local[1] = ly - e->cy;
	return vr_shape_coverage(&e->v) * rclip_coverage(&e->rc, fx, fy);
}

static inline float shape_cov(struct shape_eval *e, int32_t x, int32_t y)
{
	float qx = 0.0f;
	int half = 0;
	return shape_cov_qx(e, x, y, &qx, &half);
}

/* The profile's records of a pixel of the scans. */
static inline void edge_note(struct edge_profile *p, float qx, int half)
{
	p->min_qx[half] = minf(p->min_qx[half], qx);
}

/* Whether the current row may use the profile / make one. */
static bool edge_row_fits(const struct shape_row *row,
		const struct edge_profile *p)
{
	for (int i = 0; i < 2; i++) {
		if (!(row->qy[i] <= 0.0f && row->qy[i] <= p->min_qx[i])) {
			return false;
		}
	}
	return true;
}

/*
 * A row of a fill above or below its straight sides (qy > 0 in both
 * halves: the antialiased fringe, the empty rows around the shape, the
 * rows of its corners) where no pixel is fully covered: the convex scan of
 * draw_shape would evaluate and blend every pixel from the left. With
 * inv.a > 0, px (the same operations as shape_cov_qx) is monotone in x,
 * so each half's straight section (qx <= 0: one coverage, the row's) is a
 * run of columns found by bisection on those same values; the pixels
 * outside it (the corners, at most CPU_EDGE_MAX a side) are evaluated,
 * the straight runs blended with their one coverage (blend_px, memoised)
 * or skipped at 0. The same values as the scan. Returns false, having
 * drawn nothing, where the scan would meet full coverage (it then stops,
 * and draws its middle as a span) or the corners are wider.
 */
static inline float fringe_px(const struct shape_eval *e, int32_t x, float fy)
{
	float fx = (float)x + 0.5f;
	return e->inv.a * fx + e->inv.c * fy + e->inv.tx - e->cx;
}

static inline float fringe_qx(const struct shape_eval *e, float px, int half)
{
	return fabsf(px) - e->v.half[0] + e->row.r[half];
}

/* What a column of a fringe row is tested for; each holds from some
 * column of a range on (px grows with x). */
enum fringe_test {
	FRINGE_RIGHT, /* px > 0: the right half */
	FRINGE_LEFT_STRAIGHT, /* left half, qx <= 0 (|px| falls) */
	FRINGE_RIGHT_CORNER, /* right half, qx > 0 (|px| grows) */
};

static inline bool fringe_holds(const struct shape_eval *e, int32_t x,
		float fy, enum fringe_test test)
{
	float v = fringe_px(e, x, fy);
	switch (test) {
	case FRINGE_RIGHT:
		return v > 0.0f;
	case FRINGE_LEFT_STRAIGHT:
		return fringe_qx(e, v, 0) <= 0.0f;
	case FRINGE_RIGHT_CORNER:
		return fringe_qx(e, v, 1) > 0.0f;
	}
	return false;
}

/* The first column of [lo, hi) where test holds (hi: none), by
 * bisection. */
static int32_t fringe_first(const struct shape_eval *e, int32_t lo,
		int32_t hi, float fy, enum fringe_test test)
{
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (fringe_holds(e, mid, fy, test)) {
			hi = mid;
		} else {
			lo = mid + 1;
		}
	}
	return lo;
}

static bool shape_fringe_row(const struct cpu_px *px, struct shape_eval *e,
		int32_t x0, int32_t end, int32_t y, const float *color)
{
	float fy = (float)y + 0.5f;
	/* xm: where the right half begins; [s0, xm) and [xm, e1): the
	 * straight sections */
	int32_t xm = fringe_first(e, x0, end, fy, FRINGE_RIGHT);
	int32_t s0 = fringe_first(e, x0, xm, fy, FRINGE_LEFT_STRAIGHT);
	int32_t e1 = fringe_first(e, xm, end, fy, FRINGE_RIGHT_CORNER);
	int32_t nl = s0 - x0, nr = end - e1;
	if (nl > CPU_EDGE_MAX || nr > CPU_EDGE_MAX) {
		return false;
	}
	float straight[2] = { 0.0f, 0.0f };
	int32_t from[2] = { s0, xm }, to[2] = { xm, e1 };
	for (int h = 0; h < 2; h++) {
		if (from[h] < to[h]) {
			e->v.local[0] = fringe_px(e, from[h], fy);
			e->v.local[1] = e->row.py;
			straight[h] = vr_shape_coverage(&e->v);
			if (straight[h] >= 1.0f) {
				return false;
			}
		}
	}
	float cl[CPU_EDGE_MAX], cr[CPU_EDGE_MAX];
	for (int32_t i = 0; i < nl; i++) {
		cl[i] = shape_cov(e, x0 + i, y);
		if (cl[i] >= 1.0f) {
			return false;
		}
	}
	for (int32_t i = 0; i < nr; i++) {
		cr[i] = shape_cov(e, e1 + i, y);
		if (cr[i] >= 1.0f) {
			return false;
		}
	}
	for (int32_t i = 0; i < nl; i++) {
		blend_px(px_at(px, x0 + i, y), color, cl[i]);
	}
	for (int h = 0; h < 2; h++) {
		if (straight[h] <= 0.0f) {
			continue;
		}
		struct blend_memo memo;
		blend_memo_init(&memo);
		uint32_t *p = px_at(px, from[h], y);
		for (int32_t x = from[h]; x < to[h]; x++, p++) {
			blend_px_memo(&memo, p, color, straight[h]);
		}
	}
	for (int32_t i = 0; i < nr; i++) {
		blend_px(px_at(px, e1 + i, y), color, cr[i]);
	}
	return true;
}

static void draw_shape(const struct cpu_px *px, const struct vr_shape *shape)
{
	struct shape_eval e;
	if (!vr_mat_invert(&e.inv, &shape->state.mat)) {
		return;
	}
	vr_shape_vertex_init(shape, &e.v);
	e.cx = shape->rect.x + e.v.half[0];
	e.cy = shape->rect.y + e.v.half[1];
	rclip_from_state(&e.rc, &shape->state);
	struct vr_box box = scissor_clip(px, &shape->state.clip);
	/* the pixels the shape may cover (its batch's AABB is larger):
	 * coverage is 0 past half a pixel (1 / params[2] units) outside the
	 * shape, or the stroke's outer edge */
	float grow = shape->stroke_width * 0.5f +
		(e.v.params[2] > 0.0f ? 1.0f / e.v.params[2] : 1.0f);
	struct vr_box own = vr_mat_map_rect_bounds(&shape->state.mat,
		&(struct vr_rectf){ shape->rect.x - grow, shape->rect.y - grow,
			shape->rect.width + 2.0f * grow,
			shape->rect.height + 2.0f * grow });
	own.x -= 1;
	own.y -= 1;
	own.width += 2;
	own.height += 2;
	box = vr_box_intersect(&box, &own);
	const float *color = e.v.color;
	bool stroke = shape->stroke_width > 0.0f;
	struct blend_fx fx;
	blend_fx_init(&fx, color, 1.0f);
	e.row.on = e.v.params[0] <= 0.5f && e.inv.b == 0.0f;
	bool profiles = e.row.on && e.inv.c == 0.0f && !e.rc.on;
	struct edge_profile prof = { .valid = false };
	for (int32_t y = box.y; y < box.y + box.height; y++) {
		int32_t x = box.x, end = box.x + box.width;
		shape_row_start(&e, y);
		if (!stroke && profiles && prof.valid &&
				e.row.r[0] == prof.r[0] && e.row.r[1] == prof.r[1] &&
				edge_row_fits(&e.row, &prof)) {
			for (int32_t i = 0; i < prof.nl; i++) {
				blend_px(px_at(px, x + i, y), color, prof.cl[i]);
			}
			x += prof.nl;
			int32_t r = end - 1;
			for (int32_t i = 0; i < prof.nr; i++, r--) {
				blend_px(px_at(px, r, y), color, prof.cr[i]);
			}
			blend_span(px, x, r + 1, y, color, &fx);
			continue;
		}
		if (!stroke && profiles && e.inv.a > 0.0f &&
				e.row.qy[0] > 0.0f && e.row.qy[1] > 0.0f &&
				shape_fringe_row(px, &e, x, end, y, color)) {
			continue;
		}
		if (!stroke) {
			/* convex: edge pixels from both ends, the rest covered */
			struct edge_profile next = {
				.valid = profiles,
				.r = { e.row.r[0], e.row.r[1] },
				.min_qx = { INFINITY, INFINITY },
			};
			for (; x < end; x++) {
				float qx = 0.0f;
				int half = 0;
				float c = shape_cov_qx(&e, x, y, &qx, &half);
				if (next.valid) {
					edge_note(&next, qx, half);
					if (next.nl < CPU_EDGE_MAX) {
						next.cl[next.nl++] = c;
					} else {
						next.valid = false;
					}
				}
				if (c >= 1.0f) {
					break;
				}
				blend_px(px_at(px, x, y), color, c);
			}
			if (next.valid) {
				next.nl--; /* the stop pixel, or past the row's end */
				if (x == end) {
					next.valid = false;
				}
			}
			int32_t r = end - 1;
			for (; r > x; r--) {
				float qx = 0.0f;
				int half = 0;
				float c = shape_cov_qx(&e, r, y, &qx, &half);
				if (next.valid) {
					edge_note(&next, qx, half);
				}
				if (c >= 1.0f) {
					break;
				}
				if (next.valid) {
					if (next.nr < CPU_EDGE_MAX) {
						next.cr[next.nr++] = c;
					} else {
						next.valid = false;
					}
				}
				blend_px(px_at(px, r, y), color, c);
			}
			if (next.valid && r > x && edge_row_fits(&e.row, &next)) {
				prof = next;
			}
			blend_span(px, x, r + 1, y, color, &fx);
			continue;
		}
		/* a ring: outside, the left part, the hole, the right part */
		bool inside = false;
		for (; x < end; x++) {
			float c = shape_cov(&e, x, y);
			if (c > 0.0f) {
				inside = true;
				blend_px(px_at(px, x, y), color, c);
			} else if (inside) {
				break;
			}
		}
		if (x >= end) {
			continue;
		}
		inside = false;
		for (int32_t r = end - 1; r > x; r--) {
			float c = shape_cov(&e, r, y);
			if (c > 0.0f) {
				inside = true;
				blend_px(px_at(px, r, y), color, c);
			} else if (inside) {
				break;
			}
		}
	}
}

/* ---- per-task data of phase 1 ------------------------------------------- */

struct cpu_tess {
	const struct cpu_tri_vertex *v;
	size_t count;
};

/* Where a run's glyphs go, computed once in phase 1 rather than by every
 * band the task meets: each glyph's quad (vr_glyph_quad) and the rows
 * they all may touch, so a band skips the runs outside it at once. */
struct cpu_run_place {
	int32_t y0, y1; /* rows [y0, y1), conservative; y0 >= y1: none */
	float (*corners)[4][2]; /* per glyph with a bitmap */
};

struct cpu_task_data {
	union {
		struct cpu_tess *tess; /* TRIANGLES: per geometry */
		const struct cpu_glyph ***glyphs; /* GLYPHS: per run, per glyph */
		const struct cpu_shadow_mask *shadow; /* SHADOW */
		pixman_image_t *layer; /* LAYER: its sub-tasks, drawn */
	};
	struct cpu_run_place *places; /* GLYPHS: per run */
};

/* ---- triangles ---------------------------------------------------------- */

struct tri_ctx {
	const struct cpu_tri_vertex *v; /* 3 */
	const float *color;
	struct cpu_rclip rc;
	/* an opaque colour: blend_px at coverage 1 stores it (src + d 0) */
	bool opaque;
	uint32_t solid;
	struct blend_fx fx; /* the colour at coverage 1 (blend_span) */
};

/* vr_tri_coverage's three arguments before their clamps at the pixel
 * centred at x + 0.5 of a row (raster_triangle's weights), and the
 * interpolated aa[0] (the first is w + 0.5 - |aa[0]|). */
static inline void tri_args(const struct tri_ctx *t, const double wy[3],
		const double wb[3], int32_t x, float f[3], float *aa0)
{
	const struct cpu_tri_vertex *v = t->v;
	double cxp = (double)x + 0.5;
	double w[3] = { wy[0] + wb[0] * cxp, wy[1] + wb[1] * cxp,
		wy[2] + wb[2] * cxp };
	float aa[3];
	for (int i = 0; i < 3; i++) {
		aa[i] = (float)(w[0] * v[0].aa[i] + w[1] * v[1].aa[i] +
			w[2] * v[2].aa[i]);
	}
	float sw = v[0].shape[0], e = v[0].shape[1];
	f[0] = sw + 0.5f - fabsf(aa[0]);
	f[1] = e + 0.5f - aa[1];
	f[2] = e + 0.5f - aa[2];
	*aa0 = aa[0];
}

static inline void tri_pixel(const struct tri_ctx *t, const struct cpu_px *px,
		int32_t x, int32_t y, const float f[3])
{
	float c = vr_clampf(f[0], 0.0f, 1.0f) * vr_clampf(f[1], 0.0f, 1.0f) *
		vr_clampf(f[2], 0.0f, 1.0f);
	if (t->rc.on) {
		c *= rclip_coverage(&t->rc, (float)x + 0.5f, (float)y + 0.5f);
	}
	if (c >= 1.0f && t->opaque) {
		*px_at(px, x, y) = t->solid; /* the interior: no load */
		return;
	}
	blend_px(px_at(px, x, y), t->color, c);
}

/*
 * A row of a triangle in chunks of pixels aligned to CPU_TRI_CHUNK
 * columns. Along a row the three arguments of vr_tri_coverage are linear
 * in x (the weights are), but for the |aa[0]| of the first, which keeps
 * it concave: where every argument is at least 1 at both ends of a chunk
 * the coverage is 1 in between, a span (blend_span); where the second or
 * third is at most 0 at both ends, or the first with aa[0] of one sign,
 * it is 0: nothing to draw. Other chunks evaluate every pixel. In floats
 * the arguments are linear but for their roundings: a pixel between the
 * ends may come out a rounding below 1 (a blend of coverage 1 - 2^-24,
 * the same 8 bits but for ties) or above 0; within the tolerances against
 * the reference. Chunks fall on fixed columns, so a pixel's value does
 * not depend on the band.
 */
#define CPU_TRI_CHUNK 16

static void tri_row(const struct cpu_px *px, int32_t lo, int32_t hi,
		int32_t y, const double wy[3], const double wb[3], void *data)
{
	const struct tri_ctx *t = data;
	float f[3], aa0;
	int32_t x = lo;
	while (x <= hi) {
		int32_t end = (x & ~(CPU_TRI_CHUNK - 1)) + CPU_TRI_CHUNK - 1;
		end = end < hi ? end : hi;
		if (end > x + 1 && !t->rc.on) {
			float g[3], ga0;
			tri_args(t, wy, wb, x, f, &aa0);
			tri_args(t, wy, wb, end, g, &ga0);
			if (f[0] >= 1.0f && f[1] >= 1.0f && f[2] >= 1.0f &&
					g[0] >= 1.0f && g[1] >= 1.0f && g[2] >= 1.0f) {
				blend_span(px, x, end + 1, y, t->color, &t->fx);
				x = end + 1;
				continue;
			}
			if ((f[1] <= 0.0f && g[1] <= 0.0f) ||
					(f[2] <= 0.0f && g[2] <= 0.0f) ||
					(f[0] <= 0.0f && g[0] <= 0.0f &&
					((aa0 >= 0.0f && ga0 >= 0.0f) ||
					(aa0 <= 0.0f && ga0 <= 0.0f)))) {
				x = end + 1;
				continue;
			}
		}
		for (; x <= end; x++) {
			tri_args(t, wy, wb, x, f, &aa0);
			tri_pixel(t, px, x, y, f);
		}
	}
}

static void draw_geometry(const struct cpu_px *px,
		const struct vr_geometry *geometry, const struct cpu_tess *tess)
{
	struct cpu_px sub = *px;
	sub.box = scissor_clip(px, &geometry->state.clip);
	if (vr_box_empty(&sub.box)) {
		return;
	}
	const float *color = geometry->state.color;
	struct tri_ctx t = { .color = color };
	rclip_from_state(&t.rc, &geometry->state);
	t.opaque = color[3] == 1.0f;
	blend_fx_init(&t.fx, color, 1.0f);
	t.solid = (uint32_t)unorm8(color[3]) << 24 |
		(uint32_t)unorm8(color[0]) << 16 |
		(uint32_t)unorm8(color[1]) << 8 | unorm8(color[2]);
	for (size_t i = 0; i + 2 < tess->count; i += 3) {
		const struct cpu_tri_vertex *v = &tess->v[i];
		t.v = v;
		raster_triangle(&sub, v[0].pos, v[1].pos, v[2].pos, NULL, tri_row, &t);
	}
}

/* ---- textured quads (glyphs, shadows) ----------------------------------- */

struct texture {
	const uint8_t *data;
	int32_t width, height, stride;
	bool clamp;
};

static inline float texel(const struct texture *t, int32_t x, int32_t y)
{
	if (t->clamp) {
		x = x < 0 ? 0 : x >= t->width ? t->width - 1 : x;
		y = y < 0 ? 0 : y >= t->height ? t->height - 1 : y;
	} else if (x < 0 || y < 0 || x >= t->width || y >= t->height) {
		return 0.0f;
	}
	return unit8[t->data[(size_t)y * (size_t)t->stride + (size_t)x]];
}

static float sample_bilinear(const struct texture *t, float u, float v)
{
	float x = u * (float)t->width - 0.5f, y = v * (float)t->height - 0.5f;
	float fx = floorf(x), fy = floorf(y);
	float ax = x - fx, ay = y - fy;
	int32_t ix = (int32_t)fx, iy = (int32_t)fy;
	return (texel(t, ix, iy) * (1 - ax) + texel(t, ix + 1, iy) * ax) *
		(1 - ay) + (texel(t, ix, iy + 1) * (1 - ax) +
		texel(t, ix + 1, iy + 1) * ax) * ay;
}

struct tex_quad {
	const struct texture *texture;
	const struct vr_tex_vertex *v; /* 3 */
	const struct cpu_rclip *rc;
};

static void tex_pixel(const struct cpu_px *px, int32_t x, int32_t y,
		const double w[3], void *data)
{
	const struct tex_quad *q = data;
	const struct vr_tex_vertex *v = q->v;
	float uv[2];
	for (int i = 0; i < 2; i++) {
		uv[i] = (float)(w[0] * v[0].uv[i] + w[1] * v[1].uv[i] +
			w[2] * v[2].uv[i]);
	}
	float c = sample_bilinear(q->texture, uv[0], uv[1]) *
		rclip_coverage(q->rc, (float)x + 0.5f, (float)y + 0.5f);
	blend_px(px_at(px, x, y), v[0].color, c);
}

/* First pixel whose centre lies at or past edge e (snapped to 1/256
 * pixel, as raster_triangle snaps): the top-left rule of an axis-aligned
 * rectangle. */
static int32_t snapped_cover_start(float e)
{
	int64_t s = snap256(e);
	/* 256 x + 128 >= s */
	return (int32_t)-floor_div(-(s - 128), 256);
}

/*
 * draw_tex_quad for a quad that stays axis-aligned (scale and
 * translation: blurred shadows drawn larger than their scratch grid):
 * the texture coordinate of a pixel centre is linear in x and in y, so
 * the columns' texels and weights are found once per call. Clamped
 * textures only. The same coverage rule as the triangles; texture
 * coordinates computed directly instead of through barycentrics (a float
 * rounding apart, within the transformed tolerances).
 */
static void draw_tex_axis(const struct cpu_px *px, const struct texture *t,
		const float corners[4][2], const struct vr_box *scissor,
		const struct cpu_rclip *rc, const float *color)
{
	float x0 = corners[0][0], x1 = corners[1][0];
	float y0 = corners[0][1], y1 = corners[2][1];
	int32_t bx0 = snapped_cover_start(minf(x0, x1));
	int32_t bx1 = snapped_cover_start(maxf(x0, x1));
	int32_t by0 = snapped_cover_start(minf(y0, y1));
	int32_t by1 = snapped_cover_start(maxf(y0, y1));
	struct vr_box cover = { bx0, by0, bx1 - bx0, by1 - by0 };
	struct vr_box box = vr_box_intersect(&cover, scissor);
	if (vr_box_empty(&box)) {
		return;
	}
	int32_t *cols = malloc((size_t)box.width * 2 * sizeof(*cols));
	float *ax = malloc((size_t)box.width * sizeof(*ax));
	/* the colour's fixed-point blend per 8-bit coverage (the coverage
	 * rounded to 1/255: within 1 of the float blend) */
	struct blend_fx *blends = malloc(256 * sizeof(*blends));
	uint8_t *mrow = malloc((size_t)box.width);
	if (cols == NULL || ax == NULL || blends == NULL || mrow == NULL) {
		free(cols);
		free(ax);
		free(blends);
		free(mrow);
		return;
	}
	/* coverage 0 must leave the pixel as it is */
	memset(&blends[0], 0, sizeof(blends[0]));
	for (int i = 0; i < 4; i++) {
		blends[0].k[i] = 65535;
	}
	for (int m = 1; m < 256; m++) {
		blend_fx_init(&blends[m], color, unit8[m]);
	}
	for (int32_t i = 0; i < box.width; i++) {
		float u = ((float)(box.x + i) + 0.5f - x0) / (x1 - x0);
		float x = u * (float)t->width - 0.5f, fx = floorf(x);
		int32_t ix = (int32_t)fx;
		ax[i] = x - fx;
		cols[2 * i] = ix < 0 ? 0 : ix >= t->width ? t->width - 1 : ix;
		cols[2 * i + 1] = ix + 1 < 0 ? 0 : ix + 1 >= t->width ?
			t->width - 1 : ix + 1;
	}
	for (int32_t y = box.y; y < box.y + box.height; y++) {
		float v = ((float)y + 0.5f - y0) / (y1 - y0);
		float ty = v * (float)t->height - 0.5f, fy = floorf(ty);
		float ay = ty - fy;
		int32_t iy = (int32_t)fy;
		int32_t r0 = iy < 0 ? 0 : iy >= t->height ? t->height - 1 : iy;
		int32_t r1 = iy + 1 < 0 ? 0 : iy + 1 >= t->height ?
			t->height - 1 : iy + 1;
		const uint8_t *row0 = t->data + (size_t)r0 * (size_t)t->stride;
		const uint8_t *row1 = t->data + (size_t)r1 * (size_t)t->stride;
		float fyc = (float)y + 0.5f;
		for (int32_t i = 0; i < box.width; i++) {
			int32_t c0 = cols[2 * i], c1 = cols[2 * i + 1];
			uint32_t sum = (uint32_t)row0[c0] + row0[c1] + row1[c0] +
				row1[c1];
			mrow[i] = 0;
			if (sum == 0) {
				continue;
			}
			float a = ax[i];
			float c = ((float)row0[c0] * (1 - a) + (float)row0[c1] * a) *
				(1 - ay) + ((float)row1[c0] * (1 - a) +
				(float)row1[c1] * a) * ay;
			c = sum == 4 * 255 ? 1.0f : c / 255.0f;
			if (rc->on) {
				c *= rclip_coverage(rc, (float)(box.x + i) + 0.5f, fyc);
			}
			mrow[i] = unorm8(c);
		}
		blend_fx_cover_row(px_at(px, box.x, y), box.width, mrow, blends);
	}
	free(mrow);
	free(blends);
	free(cols);
	free(ax);
}

static void draw_tex_quad(const struct cpu_px *px,
		const struct texture *texture, const float corners[4][2],
		const struct vr_prim_state *state)
{
	struct cpu_px sub = *px;
	sub.box = scissor_clip(px, &state->clip);
	if (vr_box_empty(&sub.box)) {
		return;
	}
	struct cpu_rclip rc;
	rclip_from_state(&rc, state);
	if (texture->clamp && corners[0][1] == corners[1][1] &&
			corners[2][1] == corners[3][1] &&
			corners[0][0] == corners[2][0] &&
			corners[1][0] == corners[3][0] &&
			corners[0][0] != corners[1][0] &&
			corners[0][1] != corners[2][1]) {
		draw_tex_axis(px, texture, corners, &sub.box, &rc, state->color);
		return;
	}
	struct vr_tex_vertex v[4] = { 0 };
	for (int i = 0; i < 4; i++) {
		v[i].pos[0] = corners[i][0];
		v[i].pos[1] = corners[i][1];
		v[i].uv[0] = (i & 1) ? 1.0f : 0.0f;
		v[i].uv[1] = (i & 2) ? 1.0f : 0.0f;
		memcpy(v[i].color, state->color, sizeof(v[i].color));
	}
	struct vr_tex_vertex t0[3] = { v[0], v[1], v[2] };
	struct vr_tex_vertex t1[3] = { v[1], v[3], v[2] };
	struct tex_quad q0 = { texture, t0, &rc }, q1 = { texture, t1, &rc };
	raster_triangle(&sub, t0[0].pos, t0[1].pos, t0[2].pos, tex_pixel, NULL, &q0);
	raster_triangle(&sub, t1[0].pos, t1[1].pos, t1[2].pos, tex_pixel, NULL, &q1);
}

/* The fixed-point blends of one colour per 8-bit coverage, made on first
 * use (a glyph run needs few of the 256). */
struct blend_lazy {
	struct blend_fx fx[256];
	bool valid[256];
};

static inline const struct blend_fx *blend_lazy_get(struct blend_lazy *l,
		const float *color, uint8_t a)
{
	if (!l->valid[a]) {
		blend_fx_init(&l->fx[a], color, unit8[a]);
		l->valid[a] = true;
	}
	return &l->fx[a];
}

/* A lazy table, made empty. For an opaque colour, full coverage stores
 * the colour (unorm8 of each channel, as blend_px does): an entry with
 * K = 0 and S the channel times 256, which the blend rounds to itself. */
static void blend_lazy_init(struct blend_lazy *l, const float *color)
{
	memset(l->valid, 0, sizeof(l->valid));
	/* blend_fx_cover_row blends pixel pairs with one zero coverage: the
	 * zero's entry leaves the pixel as it is (K = 65535) */
	blend_fx_init(&l->fx[0], color, 0.0f);
	l->valid[0] = true;
	if (color[3] >= 1.0f) {
		static const int order[4] = { 2, 1, 0, 3 };
		for (int i = 0; i < 4; i++) {
			l->fx[255].s[i] = (uint16_t)(unorm8(color[order[i]]) << 8);
			l->fx[255].k[i] = 0;
		}
		l->valid[255] = true;
	}
}

/*
 * The lazy tables of the last colours a thread's runs used: a blend is a
 * function of the colour and the coverage alone, so a table stays valid
 * across runs, bands and frames. Text in a few colours (an editor's
 * syntax highlighting: many short runs) makes each blend once per thread
 * instead of once per run and band. Per thread: no lock.
 */
#define CPU_BLEND_COLOURS 16

static _Thread_local struct {
	float color[CPU_BLEND_COLOURS][4];
	bool used[CPU_BLEND_COLOURS];
	struct blend_lazy tables[CPU_BLEND_COLOURS];
	unsigned next; /* the slot replaced next, round robin */
} blend_colours;

static struct blend_lazy *blend_lazy_for(const float *color)
{
	for (int i = 0; i < CPU_BLEND_COLOURS; i++) {
		if (blend_colours.used[i] && memcmp(blend_colours.color[i], color,
				sizeof(blend_colours.color[i])) == 0) {
			return &blend_colours.tables[i];
		}
	}
	unsigned slot = blend_colours.next++ % CPU_BLEND_COLOURS;
	memcpy(blend_colours.color[slot], color, sizeof(blend_colours.color[slot]));
	blend_colours.used[slot] = true;
	struct blend_lazy *l = &blend_colours.tables[slot];
	blend_lazy_init(l, color);
	/* complete: made once per colour and thread, so the rows need not
	 * look for the coverages they lack */
	for (int a = 1; a < 256; a++) {
		blend_lazy_get(l, color, (uint8_t)a);
	}
	return l;
}

/* A coverage image 1:1 with its top-left pixel at (x0, y0); lazy: the
 * (complete) blends of state->color (fixed point, within 1/128 of the float
 * blend) or NULL (float blends). With lazy, a pixel the rounded clips cover
 * fully gets the table's blend, as it would without them: whether a clip's
 * edge meets the draw (vr_rclips_for attaches the clip by the draw's AABB)
 * must not change the pixels it leaves whole, or text scrolled under a
 * rounded clip changes by a near-tie near the edges. Only the pixels the
 * clips cover in part blend in floats. */
static void draw_tex_exact(const struct cpu_px *px, const struct texture *t,
		int32_t x0, int32_t y0, const struct vr_prim_state *state,
		struct blend_lazy *lazy)
{
	struct vr_box tbox = { x0, y0, t->width, t->height };
	struct vr_box s = scissor_clip(px, &state->clip);
	struct vr_box box = vr_box_intersect(&tbox, &s);
	if (vr_box_empty(&box)) {
		return;
	}
	struct cpu_rclip rc;
	rclip_from_state(&rc, state);
	const float *color = state->color;
	/* full coverage of an opaque colour: blend_px stores the colour */
	bool opaque = color[3] >= 1.0f;
	uint32_t solid = (uint32_t)unorm8(color[3]) << 24 |
		(uint32_t)unorm8(color[0]) << 16 | (uint32_t)unorm8(color[1]) << 8 |
		unorm8(color[2]);
	for (int32_t y = box.y; y < box.y + box.height; y++) {
		const uint8_t *row = t->data + (size_t)(y - y0) * (size_t)t->stride;
		uint32_t *p = px_at(px, box.x, y);
		float fy = (float)y + 0.5f;
		if (lazy != NULL && !rc.on) {
			/* the row blended by the table, complete (blend_lazy_for;
			 * two pixels at a time, each pixel's value its own
			 * blend_fx_px) */
			const uint8_t *m = row + (box.x - x0);
			blend_fx_cover_row(p, box.width, m, lazy->fx);
			continue;
		}
		struct blend_memo memo;
		blend_memo_init(&memo);
		for (int32_t x = box.x; x < box.x + box.width; x++, p++) {
			uint8_t a = row[x - x0];
			if (a == 0) {
				continue;
			}
			if (a == 255 && opaque && !rc.on) {
				*p = solid;
				continue;
			}
			float c = unit8[a];
			if (rc.on) {
				float clip = rclip_coverage(&rc, (float)x + 0.5f, fy);
				if (clip >= 1.0f && lazy != NULL) {
					*p = blend_fx_px(&lazy->fx[a], *p);
					continue;
				}
				c *= clip;
			}
			blend_px_memo(&memo, p, color, c);
		}
	}
}

/* ---- the tessellation cache --------------------------------------------- */

static uint32_t tess_hash(const struct vr_geometry *g)
{
	/* FNV-1a over the key's bytes */
	const uint8_t *b = (const uint8_t *)g;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < sizeof(*g); i++) {
		h = (h ^ b[i]) * 16777619u;
	}
	return h;
}

/* The geometry's triangles from the cache (tessellated on first use);
 * NULL when tessellation fails. Phase 1, any worker. */
static const struct cpu_tess_entry *tess_get(struct vr_cpu_renderer *r,
		const struct vr_geometry *geometry)
{
	struct vr_geometry key;
	memset(&key, 0, sizeof(key));
	key.state = geometry->state;
	key.path = geometry->path;
	key.paint = geometry->paint;
	uint32_t h = tess_hash(&key);
	size_t bucket = h % CPU_TESS_BUCKETS;
	pthread_mutex_lock(&r->tess_lock);
	for (struct cpu_tess_entry *e = r->tess[bucket]; e != NULL;
			e = e->next) {
		if (e->hash == h && memcmp(&e->key, &key, sizeof(key)) == 0) {
			e->used = r->frame;
			pthread_mutex_unlock(&r->tess_lock);
			return e;
		}
	}
	pthread_mutex_unlock(&r->tess_lock);
	struct vr_tri_vertex *v;
	size_t count;
	if (!vr_geometry_tessellate(geometry, &v, &count)) {
		vr_log(VR_LOG_ERROR, "cpu: tessellation failed");
		return NULL;
	}
	struct cpu_tess_entry *e = calloc(1, sizeof(*e));
	struct cpu_tri_vertex *cv = malloc((count > 0 ? count : 1) *
		sizeof(*cv));
	if (e == NULL || cv == NULL) {
		free(v);
		free(e);
		free(cv);
		return NULL;
	}
	for (size_t i = 0; i < count; i++) {
		memcpy(cv[i].pos, v[i].pos, sizeof(cv[i].pos));
		memcpy(cv[i].aa, v[i].aa, sizeof(cv[i].aa));
		memcpy(cv[i].shape, v[i].shape, sizeof(cv[i].shape));
	}
	free(v);
	e->key = key;
	e->hash = h;
	e->v = cv;
	e->count = count;
	pthread_mutex_lock(&r->tess_lock);
	e->used = r->frame;
	/* a duplicate from another worker is harmless: both stay until
	 * unused */
	e->next = r->tess[bucket];
	r->tess[bucket] = e;
	r->tess_bytes += count * sizeof(*cv);
	pthread_mutex_unlock(&r->tess_lock);
	return e;
}

/* After a call (no worker runs): entries the last CPU_TESS_KEEP calls did
 * not use. */
static void tess_cache_trim(struct vr_cpu_renderer *r, bool all)
{
	for (size_t i = 0; i < CPU_TESS_BUCKETS; i++) {
		struct cpu_tess_entry **link = &r->tess[i];
		while (*link != NULL) {
			struct cpu_tess_entry *e = *link;
			if (all || r->frame - e->used >= CPU_TESS_KEEP) {
				*link = e->next;
				r->tess_bytes -= e->count * sizeof(*e->v);
				free(e->v);
				free(e);
			} else {
				link = &e->next;
			}
		}
	}
}

/* ---- glyphs ------------------------------------------------------------- */

static uint32_t glyph_hash(const struct vr_font_face *face, uint32_t glyph,
		float size_px)
{
	uint32_t bits;
	memcpy(&bits, &size_px, sizeof(bits));
	uint64_t h = (uint64_t)(uintptr_t)face * 0x9e3779b97f4a7c15ull;
	h ^= glyph * 0x85ebca6bu;
	h ^= (uint64_t)bits * 0xc2b2ae35u;
	h ^= h >> 29;
	return (uint32_t)(h % CPU_GLYPH_BUCKETS);
}

/* The cached bitmap of a glyph (rasterised on first use); NULL when out of
 * memory. Phase 1, any worker. */
static const struct cpu_glyph *glyph_get(struct vr_cpu_renderer *r,
		struct vr_font_face *face, uint32_t glyph, float size_px)
{
	uint32_t h = glyph_hash(face, glyph, size_px);
	pthread_mutex_lock(&r->glyph_lock);
	for (struct cpu_glyph *g = r->glyphs[h]; g != NULL; g = g->next) {
		if (g->face == face && g->glyph == glyph && g->size_px == size_px) {
			pthread_mutex_unlock(&r->glyph_lock);
			return g;
		}
	}
	pthread_mutex_unlock(&r->glyph_lock);
	struct cpu_glyph *g = calloc(1, sizeof(*g));
	if (g == NULL) {
		return NULL;
	}
	g->face = face;
	g->glyph = glyph;
	g->size_px = size_px;
	g->ok = vr_font_face_rasterize(face, glyph, size_px, &g->bitmap);
	pthread_mutex_lock(&r->glyph_lock);
	for (struct cpu_glyph *o = r->glyphs[h]; o != NULL; o = o->next) {
		if (o->face == face && o->glyph == glyph && o->size_px == size_px) {
			/* another worker was first */
			pthread_mutex_unlock(&r->glyph_lock);
			free(g->bitmap.coverage);
			free(g);
			return o;
		}
	}
	g->next = r->glyphs[h];
	r->glyphs[h] = g;
	r->nglyphs++;
	pthread_mutex_unlock(&r->glyph_lock);
	return g;
}

static void glyph_cache_clear(struct vr_cpu_renderer *r)
{
	for (size_t i = 0; i < CPU_GLYPH_BUCKETS; i++) {
		struct cpu_glyph *g = r->glyphs[i];
		while (g != NULL) {
			struct cpu_glyph *next = g->next;
			free(g->bitmap.coverage);
			free(g);
			g = next;
		}
		r->glyphs[i] = NULL;
	}
	r->nglyphs = 0;
}

/* A run's place (phase 1): the quads of its glyphs with bitmaps and the
 * rows they span. False: out of memory. */
static bool run_place(struct cpu_run_place *place,
		const struct vr_glyph_run *run, const struct cpu_glyph **glyphs)
{
	place->y0 = INT32_MAX;
	place->y1 = INT32_MIN;
	place->corners = calloc(run->text->count ? run->text->count : 1,
		sizeof(*place->corners));
	if (place->corners == NULL) {
		return false;
	}
	for (uint32_t i = 0; i < run->text->count; i++) {
		const struct cpu_glyph *g = glyphs[i];
		if (g == NULL || !g->ok || g->bitmap.width == 0) {
			continue;
		}
		const struct vr_glyph_bitmap *bm = &g->bitmap;
		float (*c)[2] = place->corners[i];
		vr_glyph_quad(run, i, bm->left, bm->top, bm->width, bm->height, c);
		float lo = minf(minf(c[0][1], c[1][1]), minf(c[2][1], c[3][1]));
		float hi = maxf(maxf(c[0][1], c[1][1]), maxf(c[2][1], c[3][1]));
		/* a pixel row past these could not hold a covered centre, nor
		 * the truncated origin of a 1:1 bitmap */
		if (!(lo > -1e9f && hi < 1e9f)) {
			place->y0 = INT32_MIN;
			place->y1 = INT32_MAX;
			continue;
		}
		int32_t y0 = (int32_t)floorf(lo) - 1, y1 = (int32_t)ceilf(hi) + 1;
		place->y0 = y0 < place->y0 ? y0 : place->y0;
		place->y1 = y1 > place->y1 ? y1 : place->y1;
	}
	return true;
}

static void draw_run(const struct cpu_px *px, const struct vr_glyph_run *run,
		const struct cpu_glyph **glyphs, const struct cpu_run_place *place)
{
	if (place->y1 <= px->box.y || place->y0 >= px->box.y + px->box.height) {
		return; /* not in this band */
	}
	struct blend_lazy *lazy = NULL;
	if (run->nearest) {
		lazy = blend_lazy_for(run->state.color);
	}
	for (uint32_t i = 0; i < run->text->count; i++) {
		const struct cpu_glyph *g = glyphs[i];
		if (g == NULL || !g->ok || g->bitmap.width == 0) {
			continue;
		}
		const struct vr_glyph_bitmap *bm = &g->bitmap;
		struct texture t = {
			.data = bm->coverage,
			.width = bm->width,
			.height = bm->height,
			.stride = bm->width,
		};
		float (*corners)[2] = place->corners[i];
		if (run->nearest) {
			draw_tex_exact(px, &t, (int32_t)corners[0][0],
				(int32_t)corners[0][1], &run->state, lazy);
		} else {
			draw_tex_quad(px, &t, corners, &run->state);
		}
	}
}

/* ---- shadows ------------------------------------------------------------ */

/* reference.c's blur pass with the weights computed once: the same sums
 * in the same order. */
static void blur_pass(const uint8_t *src, uint8_t *dst, int32_t w, int32_t h,
		int dx, int dy, int32_t radius, const float *weights, float norm)
{
	for (int32_t y = 0; y < h; y++) {
		for (int32_t x = 0; x < w; x++) {
			float sum = 0.0f;
			for (int32_t i = -radius; i <= radius; i++) {
				int32_t qx = x + dx * i, qy = y + dy * i;
				if (qx >= 0 && qy >= 0 && qx < w && qy < h) {
					sum += weights[i + radius] * (float)src[(size_t)qy *
						(size_t)w + (size_t)qx] / 255.0f;
				}
			}
			dst[(size_t)y * (size_t)w + (size_t)x] = unorm8(sum / norm);
		}
	}
}

static uint8_t *shadow_compute(const struct vr_shadow *shadow,
		const struct vr_shadow_layout *layout)
{
	size_t n = (size_t)layout->width * (size_t)layout->height;
	uint8_t *a = malloc(n), *b = malloc(n);
	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return NULL;
	}
	for (int32_t y = 0; y < layout->height; y++) {
		for (int32_t x = 0; x < layout->width; x++) {
			a[(size_t)y * (size_t)layout->width + (size_t)x] =
				unorm8(vr_shadow_shape_coverage(shadow, layout,
					(float)x + 0.5f, (float)y + 0.5f));
		}
	}
	if (layout->radius > 0) {
		float weights[2 * VR_SHADOW_MAX_RADIUS + 1];
		float norm = 0.0f, sigma = layout->sigma_px;
		for (int32_t i = -layout->radius; i <= layout->radius; i++) {
			float wi = expf(-(float)(i * i) / (2.0f * sigma * sigma));
			weights[i + layout->radius] = wi;
			norm += wi;
		}
		blur_pass(a, b, layout->width, layout->height, 1, 0,
			layout->radius, weights, norm);
		blur_pass(b, a, layout->width, layout->height, 0, 1,
			layout->radius, weights, norm);
	}
	free(b);
	return a;
}

static void shadow_key(struct cpu_shadow_key *key,
		const struct vr_shadow *shadow, const struct vr_shadow_layout *l)
{
	memset(key, 0, sizeof(*key));
	key->rect = shadow->rect;
	key->radii = shadow->radii;
	key->sigma = shadow->sigma;
	key->scale = l->scale;
	key->sigma_px = l->sigma_px;
	key->origin[0] = l->origin[0];
	key->origin[1] = l->origin[1];
	key->radius = l->radius;
	key->width = l->width;
	key->height = l->height;
}

/* The blurred mask of a shadow from the cache (computed on first use).
 * Phase 1, any worker. */
static const struct cpu_shadow_mask *shadow_get(struct vr_cpu_renderer *r,
		const struct vr_shadow *shadow, const struct vr_shadow_layout *l)
{
	struct cpu_shadow_key key;
	shadow_key(&key, shadow, l);
	pthread_mutex_lock(&r->shadow_lock);
	for (struct cpu_shadow_mask *m = r->shadows; m != NULL; m = m->next) {
		if (memcmp(&m->key, &key, sizeof(key)) == 0) {
			m->used = r->frame;
			pthread_mutex_unlock(&r->shadow_lock);
			return m;
		}
	}
	pthread_mutex_unlock(&r->shadow_lock);
	struct cpu_shadow_mask *m = calloc(1, sizeof(*m));
	if (m == NULL) {
		return NULL;
	}
	m->key = key;
	m->coverage = shadow_compute(shadow, l);
	if (m->coverage == NULL) {
		free(m);
		return NULL;
	}
	pthread_mutex_lock(&r->shadow_lock);
	m->used = r->frame;
	m->next = r->shadows;
	r->shadows = m;
	r->shadow_bytes += (size_t)l->width * (size_t)l->height;
	pthread_mutex_unlock(&r->shadow_lock);
	return m;
}

/* Between frames: masks unused for a while, or all of them when the cache
 * grew too large. */
static void shadow_cache_trim(struct vr_cpu_renderer *r, bool all)
{
	bool over = r->shadow_bytes > CPU_SHADOW_CACHE_MAX_BYTES;
	struct cpu_shadow_mask **link = &r->shadows;
	while (*link != NULL) {
		struct cpu_shadow_mask *m = *link;
		if (all || over || r->frame - m->used > CPU_SHADOW_CACHE_AGE) {
			*link = m->next;
			r->shadow_bytes -= (size_t)m->key.width *
				(size_t)m->key.height;
			free(m->coverage);
			free(m);
		} else {
			link = &m->next;
		}
	}
}

static void draw_shadow(const struct cpu_px *px, const struct vr_shadow *shadow,
		const struct cpu_shadow_mask *mask)
{
	if (mask == NULL) {
		return;
	}
	struct vr_shadow_layout layout;
	if (!vr_shadow_layout(shadow, &layout)) {
		return;
	}
	struct texture t = {
		.data = mask->coverage,
		.width = layout.width,
		.height = layout.height,
		.stride = layout.width,
		.clamp = true,
	};
	if (layout.nearest) {
		draw_tex_exact(px, &t, (int32_t)lroundf(layout.to_target.tx),
			(int32_t)lroundf(layout.to_target.ty), &shadow->state, NULL);
	} else {
		float corners[4][2];
		for (int i = 0; i < 4; i++) {
			vr_mat_apply(&layout.to_target,
				(i & 1) ? (float)layout.width : 0.0f,
				(i & 2) ? (float)layout.height : 0.0f,
				&corners[i][0], &corners[i][1]);
		}
		draw_tex_quad(px, &t, corners, &shadow->state);
	}
}

/* ---- a frame ------------------------------------------------------------ */

struct cpu_frame {
	struct vr_cpu_renderer *renderer;
	pixman_image_t *dst;
	/* preparation's memory and tasks */
	void **allocations;
	size_t nallocations, allocations_cap;
	struct vr_task *tasks;
	size_t ntasks, tasks_cap;
	struct cpu_task_data *data; /* per task */
	uint32_t *prep; /* tasks phase 1 works on */
	uint32_t nprep;
	/* the damaged rectangles, and the bands */
	const pixman_box32_t *rects;
	int nrects;
	int32_t band_y, band_height;
	pixman_color_t clear;
	atomic_bool failed;
	/* display lists the tasks point into, referenced, and images they
	 * read, pinned: released when the frame retires */
	struct vr_display_list **lists;
	size_t nlists, lists_cap;
	struct vr_image **images;
	size_t nimages, images_cap;
	/* images it reads from a held store of their newest pixels */
	struct cpu_hold *holds;
	size_t nholds, holds_cap;
	uint64_t hold_epoch;
};

/* A submitted frame, from vr_cpu_render_submit until retired. */
struct cpu_job {
	uint64_t id;
	uint64_t seq; /* vr_cpu_renderer::seq when executed */
	struct cpu_frame f;
	pixman_region32_t region; /* what it draws (f.rects point here) */
	struct vr_move moves[VR_MOVES_MAX]; /* applied to dst first */
	size_t nmoves;
	bool ok;
	struct vr_frame_timing timing;
	struct cpu_job *next;
};

static void *frame_alloc(void *data, size_t size)
{
	struct cpu_frame *f = data;
	if (!vr_grow((void **)&f->allocations, &f->allocations_cap,
			f->nallocations + 1, sizeof(void *))) {
		return NULL;
	}
	void *p = calloc(1, size);
	if (p == NULL) {
		vr_log(VR_LOG_ERROR, "cpu: allocation failed");
		return NULL;
	}
	f->allocations[f->nallocations++] = p;
	return p;
}

static bool frame_push(void *data, const struct vr_task *task)
{
	struct cpu_frame *f = data;
	if (!vr_grow((void **)&f->tasks, &f->tasks_cap, f->ntasks + 1,
			sizeof(*f->tasks))) {
		return false;
	}
	f->tasks[f->ntasks++] = *task;
	return true;
}

static bool frame_hold_list(void *data, struct vr_display_list *list)
{
	struct cpu_frame *f = data;
	if (list->hold_epoch == f->hold_epoch) {
		return true;
	}
	if (!vr_grow((void **)&f->lists, &f->lists_cap, f->nlists + 1,
			sizeof(*f->lists))) {
		return false;
	}
	list->hold_epoch = f->hold_epoch;
	f->lists[f->nlists++] = vr_display_list_ref(list);
	return true;
}

/* The frame reads the image's pixels while it executes: pinned until it
 * retires (a write meanwhile goes to a copy). A write made while earlier
 * frames pinned it reaches data only when they retire: this frame, which
 * must show it, reads those newest pixels from a store it holds (no write
 * changes it meanwhile) instead of waiting for them. */
static bool frame_hold_image(void *data, struct vr_image *image)
{
	struct cpu_frame *f = data;
	if (image->hold_epoch == f->hold_epoch) {
		return true;
	}
	if (!vr_grow((void **)&f->images, &f->images_cap, f->nimages + 1,
			sizeof(*f->images))) {
		return false;
	}
	if (vr_image_write_pending(image)) {
		if (!vr_grow((void **)&f->holds, &f->holds_cap, f->nholds + 1,
				sizeof(*f->holds))) {
			return false;
		}
		struct vr_pixels_hold *hold = vr_image_hold_next(image);
		if (hold == NULL) {
			return false;
		}
		f->holds[f->nholds++] = (struct cpu_hold){ image, hold };
	}
	image->hold_epoch = f->hold_epoch;
	vr_image_pin(image);
	f->images[f->nimages++] = image;
	return true;
}

static pixman_image_t *layer_render(struct cpu_frame *f,
	const struct vr_layer *layer);

/* Phase 1: one task's reusable data. */
static void prep_task(void *data, uint32_t item)
{
	struct cpu_frame *f = data;
	uint32_t index = f->prep[item];
	const struct vr_task *task = &f->tasks[index];
	struct cpu_task_data *d = &f->data[index];
	const struct vr_task_payload *payload = task->payload;
	switch (task->kind) {
	case VR_TASK_TRIANGLES:
		d->tess = calloc(payload->count, sizeof(*d->tess));
		if (d->tess == NULL) {
			atomic_store(&f->failed, true);
			return;
		}
		for (uint32_t i = 0; i < payload->count; i++) {
			const struct cpu_tess_entry *e = tess_get(f->renderer,
				&payload->geometries[i]);
			if (e != NULL) {
				d->tess[i].v = e->v;
				d->tess[i].count = e->count;
			}
		}
		break;
	case VR_TASK_GLYPHS:
		d->glyphs = calloc(payload->count, sizeof(*d->glyphs));
		d->places = calloc(payload->count, sizeof(*d->places));
		if (d->glyphs == NULL || d->places == NULL) {
			atomic_store(&f->failed, true);
			return;
		}
		for (uint32_t i = 0; i < payload->count; i++) {
			const struct vr_glyph_run *run = &payload->runs[i];
			float size_px = roundf(vr_glyph_run_pixel_size(run) * 64.0f) /
				64.0f;
			d->glyphs[i] = calloc(run->text->count ? run->text->count : 1,
				sizeof(*d->glyphs[i]));
			if (d->glyphs[i] == NULL) {
				atomic_store(&f->failed, true);
				return;
			}
			for (uint32_t k = 0; k < run->text->count; k++) {
				d->glyphs[i][k] = glyph_get(f->renderer, run->text->face,
					run->text->glyphs[k], size_px);
			}
			if (!run_place(&d->places[i], run, d->glyphs[i])) {
				atomic_store(&f->failed, true);
				return;
			}
		}
		break;
	case VR_TASK_SHADOW: {
		struct vr_shadow_layout layout;
		if (vr_shadow_layout(&payload->shadows[0], &layout)) {
			d->shadow = shadow_get(f->renderer, &payload->shadows[0],
				&layout);
		}
		break;
	}
	case VR_TASK_LAYER:
		d->layer = layer_render(f, &payload->layers[0]);
		if (d->layer == NULL) {
			atomic_store(&f->failed, true);
		}
		break;
	default:
		break;
	}
}

/* Group opacity: the layer (drawn whole in phase 1, so its pixels do not
 * depend on the bands) over the band's pixels, texel for pixel, times
 * the opacity: reference.c's draw_layer. */
static void draw_layer(const struct cpu_px *px, const struct vr_layer *layer,
		pixman_image_t *image)
{
	const uint32_t *data = pixman_image_get_data(image);
	int32_t stride = pixman_image_get_stride(image) / 4;
	float alpha = (float)layer->alpha / 255.0f;
	const struct vr_box *b = &px->box;
	for (int32_t y = b->y; y < b->y + b->height; y++) {
		for (int32_t x = b->x; x < b->x + b->width; x++) {
			uint32_t p = data[(size_t)(y - layer->bounds.y) *
				(size_t)stride + (size_t)(x - layer->bounds.x)];
			if (p == 0) {
				continue;
			}
			const float src[4] = {
				(float)((p >> 16) & 0xff) / 255.0f * alpha,
				(float)((p >> 8) & 0xff) / 255.0f * alpha,
				(float)(p & 0xff) / 255.0f * alpha,
				(float)(p >> 24) / 255.0f * alpha,
			};
			blend_px(px_at(px, x, y), src, 1.0f);
		}
	}
}

static void task_draw(const struct cpu_frame *f, const struct cpu_px *px,
		uint32_t index)
{
	const struct vr_task *task = &f->tasks[index];
	const struct cpu_task_data *d = &f->data[index];
	const struct vr_task_payload *payload = task->payload;
	for (uint32_t i = 0; i < payload->count; i++) {
		switch (task->kind) {
		case VR_TASK_QUADS:
			draw_quad(px, &payload->quads[i]);
			break;
		case VR_TASK_SHAPES:
			draw_shape(px, &payload->shapes[i]);
			break;
		case VR_TASK_TRIANGLES:
			if (d->tess != NULL) {
				draw_geometry(px, &payload->geometries[i], &d->tess[i]);
			}
			break;
		case VR_TASK_GLYPHS:
			if (d->glyphs != NULL && d->glyphs[i] != NULL &&
					d->places != NULL && d->places[i].corners != NULL) {
				draw_run(px, &payload->runs[i], d->glyphs[i],
					&d->places[i]);
			}
			break;
		case VR_TASK_SHADOW:
			draw_shadow(px, &payload->shadows[i], d->shadow);
			break;
		case VR_TASK_LAYER:
			if (d->layer != NULL) {
				draw_layer(px, &payload->layers[i], d->layer);
			}
			break;
		case VR_TASK_KIND_COUNT:
			break;
		}
	}
}

/*
 * The pixels of area that an opaque axis-aligned fill covers fully: each
 * is stored (blend_span's opaque store: the convex scan and the edge
 * profiles draw every pixel of coverage 1 that way), whatever was there,
 * so the clear under them is wasted. A pixel centre inside the rectangle
 * by its largest radius and a pixel (1 / scale in its units) has qx, qy
 * <= -1 / scale, so a distance of at most -1 / scale and a coverage of 1
 * (0.5 - d scale >= 1.5); one pixel more on each side absorbs the
 * roundings of the mapping. Only large ones count (a band's clear is a
 * region with few rectangles). Returns whether *out is one.
 */
#define CPU_COVER_MIN_PIXELS 4096

static bool shape_cover(const struct vr_shape *shape, const struct vr_box *area,
		struct vr_box *out)
{
	const struct vr_mat *m = &shape->state.mat;
	const float *color = shape->state.color;
	if (shape->ellipse || shape->stroke_width > 0.0f ||
			shape->state.nrclips > 0 || color[3] < 1.0f || m->b != 0.0f ||
			m->c != 0.0f || !(m->a > 0.0f) || !(m->d > 0.0f)) {
		return false;
	}
	const struct vr_radii *r = &shape->radii;
	float rmax = maxf(maxf(r->tl, r->tr), maxf(r->br, r->bl));
	float scale = sqrtf(fabsf(m->a * m->d));
	float inset = rmax + 1.0f / scale;
	const struct vr_rectf *rect = &shape->rect;
	float x0 = m->a * (rect->x + inset) + m->tx;
	float x1 = m->a * (rect->x + rect->width - inset) + m->tx;
	float y0 = m->d * (rect->y + inset) + m->ty;
	float y1 = m->d * (rect->y + rect->height - inset) + m->ty;
	if (!(x1 - x0 > 4.0f && y1 - y0 > 4.0f) || x0 < -1e6f || y0 < -1e6f ||
			x1 > 1e6f || y1 > 1e6f) {
		return false;
	}
	/* columns whose centre lies in [x0 + 1, x1 - 1] */
	int32_t ix0 = (int32_t)ceilf(x0) + 1, ix1 = (int32_t)floorf(x1) - 1;
	int32_t iy0 = (int32_t)ceilf(y0) + 1, iy1 = (int32_t)floorf(y1) - 1;
	if (ix1 <= ix0 || iy1 <= iy0) {
		return false;
	}
	struct vr_box cover = { ix0, iy0, ix1 - ix0, iy1 - iy0 };
	cover = vr_box_intersect(&cover, &shape->state.clip);
	cover = vr_box_intersect(&cover, area);
	if (vr_box_empty(&cover) ||
			(int64_t)cover.width * cover.height < CPU_COVER_MIN_PIXELS) {
		return false;
	}
	*out = cover;
	return true;
}

/* Clears area but for the pixels fully covered by opaque fills. */
static void clear_area(const struct cpu_frame *f, const struct vr_box *area)
{
	pixman_region32_t region;
	pixman_region32_init_rect(&region, area->x, area->y,
		(unsigned)area->width, (unsigned)area->height);
	for (size_t i = 0; i < f->ntasks; i++) {
		const struct vr_task *task = &f->tasks[i];
		if (task->kind != VR_TASK_SHAPES) {
			continue;
		}
		struct vr_box in = vr_box_intersect(area, &task->aabb);
		if (vr_box_empty(&in) ||
				(int64_t)in.width * in.height < CPU_COVER_MIN_PIXELS) {
			continue;
		}
		for (uint32_t k = 0; k < task->payload->count; k++) {
			struct vr_box cover;
			if (shape_cover(&task->payload->shapes[k], &in, &cover)) {
				pixman_region32_t c;
				pixman_region32_init_rect(&c, cover.x, cover.y,
					(unsigned)cover.width, (unsigned)cover.height);
				pixman_region32_subtract(&region, &region, &c);
				pixman_region32_fini(&c);
			}
		}
	}
	int n = 0;
	const pixman_box32_t *boxes = pixman_region32_rectangles(&region, &n);
	if (n > 0) {
		pixman_image_fill_boxes(PIXMAN_OP_SRC, f->dst, &f->clear, n, boxes);
	}
	pixman_region32_fini(&region);
}

/* Phase 2: one band of rows, every damaged rectangle in it. */
static void draw_band(void *data, uint32_t band)
{
	struct cpu_frame *f = data;
	int32_t y0 = f->band_y + (int32_t)band * f->band_height;
	struct cpu_px px = {
		.image = f->dst,
		.data = pixman_image_get_data(f->dst),
		.stride = pixman_image_get_stride(f->dst) / 4,
		.holds = f->holds,
		.nholds = f->nholds,
	};
	for (int r = 0; r < f->nrects; r++) {
		const pixman_box32_t *rect = &f->rects[r];
		struct vr_box rbox = { rect->x1, rect->y1, rect->x2 - rect->x1,
			rect->y2 - rect->y1 };
		struct vr_box bbox = { rect->x1, y0, rect->x2 - rect->x1,
			f->band_height };
		struct vr_box area = vr_box_intersect(&rbox, &bbox);
		if (vr_box_empty(&area)) {
			continue;
		}
		clear_area(f, &area);
		for (size_t i = 0; i < f->ntasks; i++) {
			px.box = vr_box_intersect(&area, &f->tasks[i].aabb);
			if (!vr_box_empty(&px.box)) {
				task_draw(f, &px, (uint32_t)i);
			}
		}
	}
}

/* The tasks' phase 1 data. */
static void frame_free_data(struct cpu_frame *f)
{
	for (size_t i = 0; i < f->ntasks && f->data != NULL; i++) {
		const struct vr_task *task = &f->tasks[i];
		struct cpu_task_data *d = &f->data[i];
		if (task->kind == VR_TASK_TRIANGLES && d->tess != NULL) {
			free(d->tess);
		} else if (task->kind == VR_TASK_GLYPHS) {
			for (uint32_t k = 0; k < task->payload->count; k++) {
				if (d->glyphs != NULL) {
					free(d->glyphs[k]);
				}
				if (d->places != NULL) {
					free(d->places[k].corners);
				}
			}
			free(d->glyphs);
			free(d->places);
		} else if (task->kind == VR_TASK_LAYER && d->layer != NULL) {
			pixman_image_unref(d->layer);
		}
	}
	free(f->data);
	free(f->prep);
}

/*
 * A layer's sub-tasks into a transparent image of its bounds, on this
 * worker: their phase 1 (nested layers drawn the same way), then each
 * over the layer's box in order. NULL when out of memory.
 */
static pixman_image_t *layer_render(struct cpu_frame *f,
		const struct vr_layer *layer)
{
	pixman_image_t *image = pixman_image_create_bits(PIXMAN_a8r8g8b8,
		layer->bounds.width, layer->bounds.height, NULL, 0);
	struct cpu_frame sub = {
		.renderer = f->renderer,
		.holds = f->holds,
		.nholds = f->nholds,
		.tasks = layer->tasks,
		.ntasks = layer->ntasks,
		.data = calloc(layer->ntasks, sizeof(*sub.data)),
		.prep = calloc(layer->ntasks, sizeof(*sub.prep)),
	};
	if (image == NULL || sub.data == NULL || sub.prep == NULL) {
		goto error;
	}
	for (uint32_t i = 0; i < layer->ntasks; i++) {
		sub.prep[i] = i;
		prep_task(&sub, i);
	}
	if (atomic_load(&sub.failed)) {
		goto error;
	}
	struct cpu_px px = {
		.image = image,
		.data = pixman_image_get_data(image),
		.stride = pixman_image_get_stride(image) / 4,
		.holds = f->holds,
		.nholds = f->nholds,
	};
	const struct vr_box area = { layer->box.x - layer->bounds.x,
		layer->box.y - layer->bounds.y, layer->box.width,
		layer->box.height };
	for (uint32_t i = 0; i < layer->ntasks; i++) {
		px.box = vr_box_intersect(&area, &layer->tasks[i].aabb);
		if (!vr_box_empty(&px.box)) {
			task_draw(&sub, &px, i);
		}
	}
	frame_free_data(&sub);
	return image;

error:
	frame_free_data(&sub);
	if (image != NULL) {
		pixman_image_unref(image);
	}
	return NULL;
}

/* The frame thread, once the frame is drawn: what only execution used.
 * The tessellation cache drops what the last CPU_TESS_KEEP frames did not
 * use; the lists of the frame before them go when this one retires
 * (frame_retire), after this trim, so no key names a freed path. */
static void frame_finish(struct cpu_frame *f)
{
	frame_free_data(f);
	f->data = NULL;
	f->prep = NULL;
	tess_cache_trim(f->renderer, false);
	free(f->tasks);
	f->tasks = NULL;
	f->ntasks = 0;
	for (size_t i = 0; i < f->nallocations; i++) {
		free(f->allocations[i]);
	}
	free(f->allocations);
	f->allocations = NULL;
	f->nallocations = 0;
}

/* A band's pixels at most (bytes): the clear and every task of a band
 * then stay in a core's L2 cache until the band is done, instead of each
 * full-frame fill going to memory and back. */
#define CPU_BAND_BYTES (1024 << 10)

/* Rows per band: a function of the damaged size and the worker count
 * only (never of the content), so the bands are balanced by numbers
 * (several per worker, taken by whoever is free) and small enough for the
 * cache; the pixels do not depend on it. */
static int32_t band_height(int32_t width, int32_t height, int workers)
{
	int32_t h = height;
	if (workers > 1) {
		int32_t bands = workers * 4;
		h = (height + bands - 1) / bands;
	}
	int32_t fit = CPU_BAND_BYTES / (4 * (width > 1 ? width : 1));
	h = h < fit ? h : fit;
	return h < 8 ? 8 : h;
}

/* The frame thread: one frame's two phases over the pool. */
static void job_execute(struct vr_cpu_renderer *r, struct cpu_job *job)
{
	struct cpu_frame *f = &job->f;
	uint64_t start = vr_now_ns();
	job->seq = ++r->seq;
	r->frame = job->seq;
	/* between frames: no worker runs, the caches may shrink */
	if (r->nglyphs > CPU_GLYPH_CACHE_MAX) {
		glyph_cache_clear(r);
	}
	shadow_cache_trim(r, false);
	/* shift-and-expose: the pixels that only moved, before any band
	 * draws (one thread: rows overlap across bands) */
	for (size_t i = 0; i < job->nmoves; i++) {
		vr_move_pixels(f->dst, &job->moves[i]);
	}
	if (f->nrects == 0) {
		goto out;
	}
	f->data = calloc(f->ntasks ? f->ntasks : 1, sizeof(*f->data));
	f->prep = calloc(f->ntasks ? f->ntasks : 1, sizeof(*f->prep));
	if (f->data == NULL || f->prep == NULL) {
		job->ok = false;
		goto out;
	}
	for (size_t i = 0; i < f->ntasks; i++) {
		enum vr_task_kind kind = f->tasks[i].kind;
		if (kind == VR_TASK_TRIANGLES || kind == VR_TASK_GLYPHS ||
				kind == VR_TASK_SHADOW || kind == VR_TASK_LAYER) {
			f->prep[f->nprep++] = (uint32_t)i;
		}
	}
	pool_run(&r->pool, f->nprep, prep_task, f);
	if (atomic_load(&f->failed)) {
		vr_log(VR_LOG_ERROR, "cpu: out of memory");
		job->ok = false;
		goto out;
	}
	const pixman_box32_t *ext = pixman_region32_extents(&job->region);
	f->band_y = ext->y1;
	int32_t height = ext->y2 - ext->y1;
	f->band_height = band_height(ext->x2 - ext->x1, height, r->workers);
	uint32_t nbands = (uint32_t)((height + f->band_height - 1) /
		f->band_height);
	pool_run(&r->pool, nbands, draw_band, f);
out:
	frame_finish(f);
	job->timing.execute_ns = vr_now_ns() - start;
	job->timing.execute_critical_ns = job->timing.execute_ns;
	job->timing.end_ns = vr_now_ns();
}

static void *frame_thread_main(void *data)
{
	struct vr_cpu_renderer *r = data;
	pthread_setname_np(pthread_self(), "vr-cpu-frame");
	vr_thread_yield_to_caller();
	pthread_mutex_lock(&r->queue_lock);
	while (true) {
		while (!r->quit && r->queue == NULL) {
			pthread_cond_wait(&r->queue_cond, &r->queue_lock);
		}
		if (r->queue == NULL) {
			break; /* quit, and everything queued executed */
		}
		struct cpu_job *job = r->queue;
		pthread_mutex_unlock(&r->queue_lock);
		job_execute(r, job);
		pthread_mutex_lock(&r->queue_lock);
		r->queue = job->next;
		if (r->queue == NULL) {
			r->queue_tail = NULL;
		}
		job->next = NULL;
		if (r->done_tail != NULL) {
			r->done_tail->next = job;
		} else {
			r->done = job;
		}
		r->done_tail = job;
		r->completed = job->id;
		pthread_cond_broadcast(&r->done_cond);
		uint64_t one = 1;
		if (write(r->fd, &one, sizeof(one)) != sizeof(one)) {
			/* the counter is full: the caller is reading anyway */
		}
	}
	pthread_mutex_unlock(&r->queue_lock);
	return NULL;
}

/* The caller's thread: what the frame held, released in frame order. */
static void job_retire(struct vr_cpu_renderer *r, struct cpu_job *job)
{
	struct cpu_frame *f = &job->f;
	/* holds first: the last unpin publishes the newest pixels */
	for (size_t i = 0; i < f->nholds; i++) {
		vr_pixels_hold_release(f->holds[i].hold);
	}
	free(f->holds);
	for (size_t i = 0; i < f->nimages; i++) {
		vr_image_unpin(f->images[i]);
	}
	free(f->images);
	/* the lists of CPU_TESS_KEEP frames before go; this frame's stay
	 * as long as the tessellation cache may name their paths */
	size_t slot = (size_t)(job->seq % CPU_TESS_KEEP);
	for (size_t i = 0; i < r->held[slot].nlists; i++) {
		vr_display_list_unref(r->held[slot].lists[i]);
	}
	free(r->held[slot].lists);
	r->held[slot].lists = f->lists;
	r->held[slot].nlists = f->nlists;
	pixman_image_unref(f->dst);
	pixman_region32_fini(&job->region);
	size_t t = (size_t)(job->id % VR_FRAMES_IN_FLIGHT);
	r->timings[t].id = job->id;
	r->timings[t].ok = job->ok;
	r->timings[t].timing = job->timing;
	r->retired = job->id;
	free(job);
}

/* Retire every executed frame; with `until`, first wait until frame
 * `until` executed (at most timeout_ns). */
static void cpu_retire(struct vr_cpu_renderer *r, uint64_t until,
		uint64_t timeout_ns)
{
	pthread_mutex_lock(&r->queue_lock);
	if (until > 0 && r->completed < until) {
		struct timespec deadline;
		clock_gettime(CLOCK_REALTIME, &deadline);
		bool forever = timeout_ns == UINT64_MAX;
		if (!forever) {
			uint64_t ns = (uint64_t)deadline.tv_nsec + timeout_ns;
			deadline.tv_sec += (time_t)(ns / 1000000000u);
			deadline.tv_nsec = (long)(ns % 1000000000u);
		}
		while (r->completed < until) {
			if (forever) {
				pthread_cond_wait(&r->done_cond, &r->queue_lock);
			} else if (pthread_cond_timedwait(&r->done_cond,
					&r->queue_lock, &deadline) != 0) {
				break;
			}
		}
	}
	struct cpu_job *done = r->done;
	r->done = r->done_tail = NULL;
	pthread_mutex_unlock(&r->queue_lock);
	while (done != NULL) {
		struct cpu_job *next = done->next;
		job_retire(r, done);
		done = next;
	}
}

/* Every submitted frame executed and retired. */
static void cpu_drain(struct vr_cpu_renderer *r)
{
	if (r->retired < r->submitted) {
		cpu_retire(r, r->submitted, UINT64_MAX);
	}
}

uint64_t vr_cpu_render_submit(struct vr_cpu_renderer *r, struct vr_tree *tree,
		pixman_image_t *dst, const struct vr_mat *view, struct vr_color clear,
		const pixman_region32_t *damage)
{
	return vr_cpu_render_submit_moved(r, tree, dst, view, clear, damage,
		NULL, 0);
}

uint64_t vr_cpu_render_submit_moved(struct vr_cpu_renderer *r,
		struct vr_tree *tree, pixman_image_t *dst, const struct vr_mat *view,
		struct vr_color clear, const pixman_region32_t *damage,
		const struct vr_move *moves, size_t nmoves)
{
	uint64_t start = vr_now_ns();
	pixman_format_code_t format = pixman_image_get_format(dst);
	if (format != PIXMAN_a8r8g8b8 && format != PIXMAN_x8r8g8b8) {
		vr_log(VR_LOG_ERROR, "cpu: unsupported target format");
		return 0;
	}
	if (!r->thread_started) {
		vr_log(VR_LOG_ERROR, "cpu: no frame thread");
		return 0;
	}
	/* a free slot: the oldest frame retired */
	if (r->submitted - r->retired >= VR_FRAMES_IN_FLIGHT) {
		cpu_retire(r, r->retired + 1, UINT64_MAX);
	}
	struct cpu_job *job = calloc(1, sizeof(*job));
	if (job == NULL) {
		return 0;
	}
	job->ok = true;
	job->nmoves = nmoves < VR_MOVES_MAX ? nmoves : VR_MOVES_MAX;
	if (job->nmoves > 0) {
		memcpy(job->moves, moves, job->nmoves * sizeof(*moves));
	}
	struct cpu_frame *f = &job->f;
	f->renderer = r;
	f->dst = pixman_image_ref(dst);
	f->hold_epoch = vr_hold_epoch_next();
	struct vr_box target = { 0, 0, pixman_image_get_width(dst),
		pixman_image_get_height(dst) };
	pixman_region32_init_rect(&job->region, 0, 0, (unsigned)target.width,
		(unsigned)target.height);
	if (damage != NULL) {
		pixman_region32_intersect(&job->region, &job->region,
			(pixman_region32_t *)damage);
	}
	if (pixman_region32_n_rects(&job->region) > CPU_REGION_MAX_RECTS) {
		pixman_box32_t ext = *pixman_region32_extents(&job->region);
		pixman_region32_fini(&job->region);
		pixman_region32_init_rect(&job->region, ext.x1, ext.y1,
			(unsigned)(ext.x2 - ext.x1), (unsigned)(ext.y2 - ext.y1));
	}
	f->rects = pixman_region32_rectangles(&job->region, &f->nrects);
	uint8_t cr, cg, cb, ca;
	vr_color_premultiply8(&clear, 1.0f, &cr, &cg, &cb, &ca);
	f->clear = (pixman_color_t){ (uint16_t)(cr * 257), (uint16_t)(cg * 257),
		(uint16_t)(cb * 257), (uint16_t)(ca * 257) };

	if (f->nrects > 0) {
		/* preparation may reset the shared glyph atlas: no Vulkan
		 * renderer's tasks may run (this engine's do not read it) */
		vr_cpu_stages_wait_idle();
		const pixman_box32_t *ext = pixman_region32_extents(&job->region);
		const struct vr_task_sink sink = {
			.alloc = frame_alloc,
			.push = frame_push,
			.hold_image = frame_hold_image,
			.hold_list = frame_hold_list,
			.data = f,
		};
		const struct vr_prepare_job pjob = {
			.index = 0,
			.view = *view,
			.target = target,
			.extents = { ext->x1, ext->y1, ext->x2 - ext->x1,
				ext->y2 - ext->y1 },
		};
		if (!vr_prepare_tasks(&sink, tree, &pjob, NULL)) {
			vr_log(VR_LOG_ERROR, "cpu: preparation failed");
			/* queued all the same: it releases what it holds when it
			 * retires, drawing nothing */
			job->ok = false;
			f->nrects = 0;
		}
	}
	job->id = ++r->submitted;
	job->timing = (struct vr_frame_timing){
		.start_ns = start,
		.prepare_ns = vr_now_ns() - start,
		.tasks = (uint32_t)f->ntasks,
		.mode = r->workers > 1 ? VR_FRAME_PARALLEL : VR_FRAME_INLINE,
	};
	pthread_mutex_lock(&r->queue_lock);
	if (r->queue_tail != NULL) {
		r->queue_tail->next = job;
	} else {
		r->queue = job;
	}
	r->queue_tail = job;
	pthread_cond_signal(&r->queue_cond);
	pthread_mutex_unlock(&r->queue_lock);
	return job->id;
}

int vr_cpu_renderer_get_fd(struct vr_cpu_renderer *r)
{
	return r->fd;
}

uint64_t vr_cpu_renderer_dispatch(struct vr_cpu_renderer *r)
{
	uint64_t count;
	while (read(r->fd, &count, sizeof(count)) == sizeof(count)) {
	}
	cpu_retire(r, 0, 0);
	return r->retired;
}

bool vr_cpu_frame_poll(struct vr_cpu_renderer *r, uint64_t id)
{
	cpu_retire(r, 0, 0);
	return id > 0 && id <= r->retired;
}

bool vr_cpu_frame_wait(struct vr_cpu_renderer *r, uint64_t id,
		uint64_t timeout_ns)
{
	if (id == 0 || id > r->submitted) {
		return false;
	}
	cpu_retire(r, id, timeout_ns);
	return id <= r->retired;
}

bool vr_cpu_frame_get_timing(struct vr_cpu_renderer *r, uint64_t id,
		struct vr_frame_timing *out)
{
	size_t t = (size_t)(id % VR_FRAMES_IN_FLIGHT);
	if (id == 0 || id > r->retired || r->timings[t].id != id ||
			!r->timings[t].ok) {
		return false;
	}
	*out = r->timings[t].timing;
	return true;
}

bool vr_cpu_render(struct vr_cpu_renderer *renderer, struct vr_tree *tree,
		pixman_image_t *dst, const struct vr_mat *view, struct vr_color clear,
		const pixman_region32_t *damage)
{
	uint64_t id = vr_cpu_render_submit(renderer, tree, dst, view, clear,
		damage);
	if (id == 0 || !vr_cpu_frame_wait(renderer, id, UINT64_MAX)) {
		return false;
	}
	size_t t = (size_t)(id % VR_FRAMES_IN_FLIGHT);
	return renderer->timings[t].id == id && renderer->timings[t].ok;
}

struct vr_cpu_renderer *vr_cpu_renderer_create(int workers)
{
	if (workers <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		workers = n > 0 ? (int)n : 1;
	}
	if (workers > CPU_MAX_WORKERS) {
		workers = CPU_MAX_WORKERS;
	}
	pthread_once(&unit8_once, unit8_init);
	struct vr_cpu_renderer *r = calloc(1, sizeof(*r));
	if (r == NULL) {
		return NULL;
	}
	r->workers = workers;
	pthread_mutex_init(&r->glyph_lock, NULL);
	pthread_mutex_init(&r->shadow_lock, NULL);
	pthread_mutex_init(&r->tess_lock, NULL);
	pthread_mutex_init(&r->queue_lock, NULL);
	pthread_cond_init(&r->queue_cond, NULL);
	pthread_cond_init(&r->done_cond, NULL);
	r->fd = -1;
	if (!pool_init(&r->pool, workers - 1)) {
		vr_cpu_renderer_destroy(r);
		return NULL;
	}
	r->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->fd < 0) {
		vr_log(VR_LOG_ERROR, "cpu: eventfd failed");
		vr_cpu_renderer_destroy(r);
		return NULL;
	}
	int err = pthread_create(&r->thread, NULL, frame_thread_main, r);
	if (err != 0) {
		vr_log(VR_LOG_ERROR, "cpu: pthread_create failed: %d", err);
		vr_cpu_renderer_destroy(r);
		return NULL;
	}
	r->thread_started = true;
	return r;
}

void vr_cpu_renderer_destroy(struct vr_cpu_renderer *r)
{
	if (r == NULL) {
		return;
	}
	if (r->thread_started) {
		cpu_drain(r);
		pthread_mutex_lock(&r->queue_lock);
		r->quit = true;
		pthread_cond_signal(&r->queue_cond);
		pthread_mutex_unlock(&r->queue_lock);
		pthread_join(r->thread, NULL);
	}
	if (r->fd >= 0) {
		close(r->fd);
	}
	pthread_cond_destroy(&r->queue_cond);
	pthread_cond_destroy(&r->done_cond);
	pthread_mutex_destroy(&r->queue_lock);
	pool_finish(&r->pool);
	glyph_cache_clear(r);
	shadow_cache_trim(r, true);
	tess_cache_trim(r, true);
	for (size_t k = 0; k < CPU_TESS_KEEP; k++) {
		for (size_t i = 0; i < r->held[k].nlists; i++) {
			vr_display_list_unref(r->held[k].lists[i]);
		}
		free(r->held[k].lists);
	}
	pthread_mutex_destroy(&r->tess_lock);
	pthread_mutex_destroy(&r->glyph_lock);
	pthread_mutex_destroy(&r->shadow_lock);
	free(r);
}

int vr_cpu_renderer_workers(const struct vr_cpu_renderer *r)
{
	return r->workers;
}
