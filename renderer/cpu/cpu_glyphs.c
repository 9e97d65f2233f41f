/*
 * The CPU backend's textured quads (glyphs, shadows), the tessellation
 * cache, the glyph cache and the shadow cache (phase 1 of a frame).
 */
#include "cpu_private.h"
#include "cpu_pixels.h"

/* ---- textured quads (glyphs, shadows) ----------------------------------- */

struct texture {
	const uint8_t *data;
	int32_t width, height, stride;
	bool clamp;
};

static inline float texel(const struct texture *t, int32_t x, int32_t y) {
	if (t->clamp) {
		x = x < 0 ? 0 : x >= t->width ? t->width - 1 : x;
		y = y < 0 ? 0 : y >= t->height ? t->height - 1 : y;
	} else if (x < 0 || y < 0 || x >= t->width || y >= t->height) {
		return 0.0f;
	}
	return cpu_unit8[t->data[(size_t)y * (size_t)t->stride + (size_t)x]];
}

static float sample_bilinear(const struct texture *t, float u, float v) {
	float x = u * (float)t->width - 0.5f, y = v * (float)t->height - 0.5f;
	float fx = floorf(x), fy = floorf(y);
	float ax = x - fx, ay = y - fy;
	int32_t ix = (int32_t)fx, iy = (int32_t)fy;
	return (texel(t, ix, iy) * (1 - ax) + texel(t, ix + 1, iy) * ax) *
			(1 - ay) +
			(texel(t, ix, iy + 1) * (1 - ax) + texel(t, ix + 1, iy + 1) * ax) *
			ay;
}

struct tex_quad {
	const struct texture *texture;
	const struct vr_tex_vertex *v; /* 3 */
	const struct cpu_rclip *rc;
};

static void tex_pixel(const struct cpu_px *px, int32_t x, int32_t y,
		const double w[3], void *data) {
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
 * pixel, as cpu_raster_triangle snaps): the top-left rule of an axis-aligned
 * rectangle. */
static int32_t snapped_cover_start(float e) {
	int64_t s = snap256(e);
	/* 256 x + 128 >= s */
	return (int32_t)-floor_div(-(s - 128), 256);
}

/*
 * draw_tex_quad for a quad that stays axis-aligned (scale and
 * translation: blurred shadows drawn larger or smaller than their scratch
 * grid, as a zoom animation does every frame): the texture coordinate of
 * a pixel centre is linear in x and in y, so the columns' texels and
 * weights are found once per call. Clamped textures only. The same
 * coverage rule as the triangles; texture coordinates computed directly
 * instead of through barycentrics (a float rounding apart, within the
 * transformed tolerances).
 *
 * The bilinear weights are fixed point, 1/4096 (TEX_WEIGHT_BITS): a
 * pixel's coverage is the rounded sum of 8-bit texels times 24-bit weight
 * products, which fits in 32 bits (255 x 4096 x 4096 < 2^32), with no
 * branch per pixel. Full texels give 255 and empty ones 0 exactly, as the
 * float blend does; between them the weights' rounding moves the value
 * by under 0.07 of a unit before it is rounded (the float path: within
 * one). Under a rounded clip the float path stays (its coverage is a
 * float product).
 */
#define TEX_WEIGHT_BITS 12
#define TEX_WEIGHT_ONE (1u << TEX_WEIGHT_BITS)
static void draw_tex_axis(const struct cpu_px *px, const struct texture *t,
		const float corners[4][2], const struct vr_box *scissor,
		const struct cpu_rclip *rc, const float *color) {
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
	uint32_t *wx = malloc((size_t)box.width * sizeof(*wx));
	/* the colour's fixed-point blend per 8-bit coverage (the coverage
	 * rounded to 1/255: within 1 of the float blend) */
	struct blend_fx *blends = malloc(256 * sizeof(*blends));
	uint8_t *mrow = malloc((size_t)box.width);
	if (cols == NULL || ax == NULL || wx == NULL || blends == NULL ||
			mrow == NULL) {
		free(cols);
		free(ax);
		free(wx);
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
		blend_fx_init(&blends[m], color, cpu_unit8[m]);
	}
	for (int32_t i = 0; i < box.width; i++) {
		float u = ((float)(box.x + i) + 0.5f - x0) / (x1 - x0);
		float x = u * (float)t->width - 0.5f, fx = floorf(x);
		int32_t ix = (int32_t)fx;
		ax[i] = x - fx;
		wx[i] = (uint32_t)lroundf(ax[i] * (float)TEX_WEIGHT_ONE);
		cols[2 * i] = ix < 0 ? 0 : ix >= t->width ? t->width - 1 : ix;
		cols[2 * i + 1] = ix + 1 < 0 ? 0 :
				ix + 1 >= t->width   ? t->width - 1 :
									   ix + 1;
	}
	for (int32_t y = box.y; y < box.y + box.height; y++) {
		float v = ((float)y + 0.5f - y0) / (y1 - y0);
		float ty = v * (float)t->height - 0.5f, fy = floorf(ty);
		float ay = ty - fy;
		int32_t iy = (int32_t)fy;
		int32_t r0 = iy < 0 ? 0 : iy >= t->height ? t->height - 1 : iy;
		int32_t r1 = iy + 1 < 0     ? 0 :
				iy + 1 >= t->height ? t->height - 1 :
									  iy + 1;
		const uint8_t *row0 = t->data + (size_t)r0 * (size_t)t->stride;
		const uint8_t *row1 = t->data + (size_t)r1 * (size_t)t->stride;
		float fyc = (float)y + 0.5f;
		if (!rc->on) {
			uint32_t wy = (uint32_t)lroundf(ay * (float)TEX_WEIGHT_ONE);
			for (int32_t i = 0; i < box.width; i++) {
				int32_t c0 = cols[2 * i], c1 = cols[2 * i + 1];
				uint32_t w = wx[i];
				uint32_t h0 = row0[c0] * (TEX_WEIGHT_ONE - w) + row0[c1] * w;
				uint32_t h1 = row1[c0] * (TEX_WEIGHT_ONE - w) + row1[c1] * w;
				uint32_t c = h0 * (TEX_WEIGHT_ONE - wy) + h1 * wy;
				mrow[i] = (uint8_t)((c + (1u << (2 * TEX_WEIGHT_BITS - 1))) >>
						(2 * TEX_WEIGHT_BITS));
			}
			blend_fx_cover_row(px_at(px, box.x, y), box.width, mrow, blends);
			continue;
		}
		for (int32_t i = 0; i < box.width; i++) {
			int32_t c0 = cols[2 * i], c1 = cols[2 * i + 1];
			uint32_t sum = (uint32_t)row0[c0] + row0[c1] + row1[c0] + row1[c1];
			mrow[i] = 0;
			if (sum == 0) {
				continue;
			}
			float a = ax[i];
			float c = ((float)row0[c0] * (1 - a) + (float)row0[c1] * a) *
							(1 - ay) +
					((float)row1[c0] * (1 - a) + (float)row1[c1] * a) * ay;
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
	free(wx);
}

static void draw_tex_quad(const struct cpu_px *px,
		const struct texture *texture, const float corners[4][2],
		const struct vr_prim_state *state) {
	struct cpu_px sub = *px;
	sub.box = scissor_clip(px, &state->clip);
	if (vr_box_empty(&sub.box)) {
		return;
	}
	struct cpu_rclip rc;
	rclip_from_state(&rc, state);
	if (texture->clamp && corners[0][1] == corners[1][1] &&
			corners[2][1] == corners[3][1] && corners[0][0] == corners[2][0] &&
			corners[1][0] == corners[3][0] && corners[0][0] != corners[1][0] &&
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
	cpu_raster_triangle(&sub, t0[0].pos, t0[1].pos, t0[2].pos, tex_pixel, NULL,
			&q0);
	cpu_raster_triangle(&sub, t1[0].pos, t1[1].pos, t1[2].pos, tex_pixel, NULL,
			&q1);
}

/* The fixed-point blends of one colour per 8-bit coverage, made on first
 * use (a glyph run needs few of the 256). */
struct blend_lazy {
	struct blend_fx fx[256];
	bool valid[256];
};

static inline const struct blend_fx *blend_lazy_get(struct blend_lazy *l,
		const float *color, uint8_t a) {
	if (!l->valid[a]) {
		blend_fx_init(&l->fx[a], color, cpu_unit8[a]);
		l->valid[a] = true;
	}
	return &l->fx[a];
}

/* A lazy table, made empty. For an opaque colour, full coverage stores
 * the colour (unorm8 of each channel, as blend_px does): an entry with
 * K = 0 and S the channel times 256, which the blend rounds to itself. */
static void blend_lazy_init(struct blend_lazy *l, const float *color) {
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

static struct blend_lazy *blend_lazy_for(const float *color) {
	for (int i = 0; i < CPU_BLEND_COLOURS; i++) {
		if (blend_colours.used[i] &&
				memcmp(blend_colours.color[i], color,
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
		struct blend_lazy *lazy) {
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
			float c = cpu_unit8[a];
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

static uint32_t tess_hash(const struct vr_geometry *g) {
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
const struct cpu_tess_entry *cpu_tess_get(struct vr_cpu_renderer *r,
		const struct vr_geometry *geometry) {
	struct vr_geometry key;
	memset(&key, 0, sizeof(key));
	key.state = geometry->state;
	key.path = geometry->path;
	key.paint = geometry->paint;
	uint32_t h = tess_hash(&key);
	size_t bucket = h % CPU_TESS_BUCKETS;
	pthread_mutex_lock(&r->tess_lock);
	for (struct cpu_tess_entry *e = r->tess[bucket]; e != NULL; e = e->next) {
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
	struct cpu_tri_vertex *cv = malloc((count > 0 ? count : 1) * sizeof(*cv));
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
void cpu_tess_cache_trim(struct vr_cpu_renderer *r, bool all) {
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
		float size_px) {
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
const struct cpu_glyph *cpu_glyph_get(struct vr_cpu_renderer *r,
		struct vr_font_face *face, uint32_t glyph, float size_px) {
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

void cpu_glyph_cache_clear(struct vr_cpu_renderer *r) {
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
bool cpu_glyph_run_place(struct cpu_run_place *place,
		const struct vr_glyph_run *run, const struct cpu_glyph **glyphs) {
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
		float(*c)[2] = place->corners[i];
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

void cpu_draw_run(const struct cpu_px *px, const struct vr_glyph_run *run,
		const struct cpu_glyph **glyphs, const struct cpu_run_place *place) {
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
		float(*corners)[2] = place->corners[i];
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
		int dx, int dy, int32_t radius, const float *weights, float norm) {
	for (int32_t y = 0; y < h; y++) {
		for (int32_t x = 0; x < w; x++) {
			float sum = 0.0f;
			for (int32_t i = -radius; i <= radius; i++) {
				int32_t qx = x + dx * i, qy = y + dy * i;
				if (qx >= 0 && qy >= 0 && qx < w && qy < h) {
					sum += weights[i + radius] *
							(float)src[(size_t)qy * (size_t)w + (size_t)qx] /
							255.0f;
				}
			}
			dst[(size_t)y * (size_t)w + (size_t)x] = unorm8(sum / norm);
		}
	}
}

static uint8_t *shadow_compute(const struct vr_shadow *shadow,
		const struct vr_shadow_layout *layout) {
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
		blur_pass(a, b, layout->width, layout->height, 1, 0, layout->radius,
				weights, norm);
		blur_pass(b, a, layout->width, layout->height, 0, 1, layout->radius,
				weights, norm);
	}
	free(b);
	return a;
}

static void shadow_key(struct cpu_shadow_key *key,
		const struct vr_shadow *shadow, const struct vr_shadow_layout *l) {
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
const struct cpu_shadow_mask *cpu_shadow_get(struct vr_cpu_renderer *r,
		const struct vr_shadow *shadow, const struct vr_shadow_layout *l) {
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
void cpu_shadow_cache_trim(struct vr_cpu_renderer *r, bool all) {
	bool over = r->shadow_bytes > CPU_SHADOW_CACHE_MAX_BYTES;
	struct cpu_shadow_mask **link = &r->shadows;
	while (*link != NULL) {
		struct cpu_shadow_mask *m = *link;
		if (all || over || r->frame - m->used > CPU_SHADOW_CACHE_AGE) {
			*link = m->next;
			r->shadow_bytes -= (size_t)m->key.width * (size_t)m->key.height;
			free(m->coverage);
			free(m);
		} else {
			link = &m->next;
		}
	}
}

void cpu_draw_shadow(const struct cpu_px *px, const struct vr_shadow *shadow,
		const struct cpu_shadow_mask *mask) {
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
					(i & 2) ? (float)layout.height : 0.0f, &corners[i][0],
					&corners[i][1]);
		}
		draw_tex_quad(px, &t, corners, &shadow->state);
	}
}
