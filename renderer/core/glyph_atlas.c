/*
 * The glyph atlas, backend-neutral: what VR_TASK_GLYPHS draws from
 * (engine_glyphs.c draws the runs as textured quads).
 *
 * The atlas: pages of ATLAS_SIZE^2 premultiplied white (coverage in every
 * channel) vr_images, shelf-packed, shared by every renderer (each keeps
 * its own GPU copy of a page, uploaded by vr_exec_image). Glyphs are
 * keyed by face, pixel size (1/64) and glyph id.
 *
 * Workers rasterise the glyphs their tasks need. A worker first claims
 * every glyph of its task nobody has: it finds them missing without a
 * lock, allocates them, then takes atlas.lock only to insert them
 * PREPARING (a glyph another worker inserted meanwhile is left to it).
 * With the lock dropped it rasterises them (font.c: several threads
 * rasterise one font at once) and packs them into a small image of its
 * own (a "delta"); it takes the lock again only to note the delta and
 * publish them all READY at once; only then does it wait (on
 * atlas.ready) for the glyphs other workers claimed. So atlas.lock is
 * held for list walks only, a glyph is rasterised once however many
 * workers need it, no worker waits while holding claims (no deadlock),
 * and an image is complete before anyone can ask vr_exec_image for it
 * (which uploads an image at most once per frame).
 *
 * Lookups of glyphs that are already there take no lock: a bucket's head
 * is an atomic pointer (a glyph's key and `next` are written before it is
 * published there, release), and a glyph's `settled` flag is set
 * (release) once its state is READY or FAILED and its pixels' place is
 * final for the frame; a task whose glyphs are all settled reads them
 * without atlas.lock (glyphs_settled) — the common case of every warm
 * frame. Only a task that meets an unknown or PREPARING glyph takes the
 * lock.
 *
 * The pages themselves change only between frames: the preparation of a
 * frame's first job moves the previous frames' deltas into the pages
 * (vr_glyph_atlas_begin_frame, the caller's thread, no task running), so
 * the pages are read-only while tasks run. A full atlas is emptied there.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "engine_private.h"

#define ATLAS_SIZE 1024
/* More pages than this are all dropped at the next frame's start. */
#define ATLAS_MAX_PAGES 4
#define ATLAS_PADDING 1
#define GLYPH_BUCKETS 1024

enum glyph_state {
	GLYPH_PREPARING,
	GLYPH_READY,
	GLYPH_FAILED,
};

struct vr_atlas_glyph {
	struct vr_atlas_glyph *next; /* in its bucket */
	const struct vr_font_face *face;
	int32_t size64; /* pixel size in 1/64 */
	uint32_t id;
	/* protected by atlas.lock; set once (from PREPARING, by the claimer,
	 * under the lock), so a thread that saw it settled, or set under the
	 * lock, reads it without the lock */
	enum glyph_state state;
	/* state is READY or FAILED and the fields below final: set with
	 * release after them, read lock-free with acquire (shared by every
	 * thread executing glyph tasks) */
	atomic_bool settled;
	/* set by the claimer before READY, then changed only between
	 * frames */
	struct vr_image *image; /* a page or a delta; NULL: no pixels */
	int32_t x, y, width, height, left, top;
	struct vr_atlas_glyph *delta_next; /* in atlas.deltas while in a delta */
};

struct page {
	struct vr_image *image;
	int32_t shelf_y, shelf_height, shelf_x; /* the open shelf */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t ready; /* glyphs left PREPARING */
	/* written under lock (and between frames), read lock-free */
	_Atomic(struct vr_atlas_glyph *) buckets[GLYPH_BUCKETS];
	struct page pages[ATLAS_MAX_PAGES]; /* changed between frames only */
	int npages;
	/* glyphs living in deltas; protected by lock */
	struct vr_atlas_glyph *deltas;
	struct vr_image **delta_images; /* referenced; protected by lock */
	size_t ndelta_images, delta_images_cap;
} atlas = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.ready = PTHREAD_COND_INITIALIZER,
};

static atomic_size_t rasterized; /* glyphs, ever, by tasks */
static atomic_size_t warmed; /* glyphs, ever, by vr_glyph_atlas_warm */

size_t vr_glyph_atlas_rasterized(void) {
	return atomic_load_explicit(&rasterized, memory_order_relaxed);
}

size_t vr_glyph_atlas_warmed(void) {
	return atomic_load_explicit(&warmed, memory_order_relaxed);
}
static void drop_deltas(void) {
	for (size_t i = 0; i < atlas.ndelta_images; i++) {
		vr_image_unref(atlas.delta_images[i]);
	}
	atlas.ndelta_images = 0;
	atlas.deltas = NULL;
}

static void atlas_clear(void) {
	for (int i = 0; i < GLYPH_BUCKETS; i++) {
		struct vr_atlas_glyph *g =
				atomic_load_explicit(&atlas.buckets[i], memory_order_relaxed);
		while (g != NULL) {
			struct vr_atlas_glyph *next = g->next;
			free(g);
			g = next;
		}
		atomic_store_explicit(&atlas.buckets[i], NULL, memory_order_relaxed);
	}
	drop_deltas();
	for (int i = 0; i < atlas.npages; i++) {
		vr_image_unref(atlas.pages[i].image);
	}
	atlas.npages = 0;
}

__attribute__((destructor)) static void atlas_finish(void) {
	pthread_mutex_lock(&atlas.lock);
	atlas_clear();
	free(atlas.delta_images);
	atlas.delta_images = NULL;
	atlas.delta_images_cap = 0;
	pthread_mutex_unlock(&atlas.lock);
}

/* Shelf packing: room for a w x h box on a shelf of a region `size`
 * wide; false when the region is full. */
struct shelves {
	int32_t width, height; /* the region */
	int32_t y, shelf_height, x; /* the open shelf */
};

static bool shelf_place(struct shelves *s, int32_t w, int32_t h, int32_t *x,
		int32_t *y) {
	int32_t pw = w + 2 * ATLAS_PADDING, ph = h + 2 * ATLAS_PADDING;
	if (pw > s->width) {
		return false;
	}
	if (s->x + pw > s->width || ph > s->shelf_height) {
		if (s->x == 0 && s->y + ph <= s->height) {
			s->shelf_height = ph; /* an empty shelf just grows */
		} else if (s->y + s->shelf_height + ph <= s->height) {
			s->y += s->shelf_height;
			s->shelf_height = ph;
			s->x = 0;
		} else {
			return false;
		}
	}
	*x = s->x + ATLAS_PADDING;
	*y = s->y + ATLAS_PADDING;
	s->x += pw;
	return true;
}

/* Mark a box of image written for every GPU copy, as vr_image_write
 * does. */
static void image_written(struct vr_image *image, int32_t x, int32_t y,
		int32_t w, int32_t h) {
	vr_list_for_each(copy, &image->copies, struct vr_image_copy, link) {
		pixman_region32_union_rect(&copy->pending, &copy->pending, x, y,
				(unsigned)w, (unsigned)h);
	}
}

static void copy_box(struct vr_image *dst, int32_t dx, int32_t dy,
		const struct vr_image *src, int32_t sx, int32_t sy, int32_t w,
		int32_t h) {
	for (int32_t y = 0; y < h; y++) {
		memcpy(dst->data + (size_t)(dy + y) * (size_t)(dst->stride / 4) +
						(size_t)dx,
				src->data + (size_t)(sy + y) * (size_t)(src->stride / 4) +
						(size_t)sx,
				(size_t)w * 4);
	}
}

/* Move a delta's glyph into the pages; false when they are full. */
static bool page_glyph(struct vr_atlas_glyph *g) {
	struct shelves s;
	for (int i = 0; i <= atlas.npages; i++) {
		if (i == ATLAS_MAX_PAGES) {
			return false;
		}
		if (i == atlas.npages) {
			struct vr_image *image =
					vr_image_create(ATLAS_SIZE, ATLAS_SIZE, VR_FORMAT_ARGB8888);
			if (image == NULL) {
				return false;
			}
			atlas.pages[atlas.npages++] = (struct page){ .image = image };
		}
		struct page *page = &atlas.pages[i];
		s = (struct shelves){ ATLAS_SIZE, ATLAS_SIZE, page->shelf_y,
			page->shelf_height, page->shelf_x };
		int32_t x, y;
		if (shelf_place(&s, g->width, g->height, &x, &y)) {
			page->shelf_y = s.y;
			page->shelf_height = s.shelf_height;
			page->shelf_x = s.x;
			copy_box(page->image, x, y, g->image, g->x, g->y, g->width,
					g->height);
			image_written(page->image, x, y, g->width, g->height);
			g->image = page->image;
			g->x = x;
			g->y = y;
			return true;
		}
	}
	return false;
}

void vr_glyph_atlas_begin_frame(void) {
	pthread_mutex_lock(&atlas.lock);
	bool full = false;
	for (struct vr_atlas_glyph *g = atlas.deltas; g != NULL && !full;
			g = g->delta_next) {
		full = !page_glyph(g);
	}
	if (full) {
		atlas_clear(); /* the frame rasterises what it needs again */
	} else {
		drop_deltas();
	}
	pthread_mutex_unlock(&atlas.lock);
}

static unsigned bucket_of(const struct vr_font_face *face, int32_t size64,
		uint32_t id) {
	uintptr_t h = (uintptr_t)face / 16u;
	h = h * 31u + (uintptr_t)(uint32_t)size64;
	h = h * 31u + id;
	return (unsigned)(h % GLYPH_BUCKETS);
}

static int32_t glyph_size64(float size_px) {
	return (int32_t)lroundf(size_px * 64.0f);
}

/* The glyph, NULL when unknown; with or without atlas.lock (a glyph's key
 * and next never change while it is in a bucket). */
static struct vr_atlas_glyph *glyph_find(const struct vr_font_face *face,
		int32_t size64, uint32_t id) {
	struct vr_atlas_glyph *g = atomic_load_explicit(
			&atlas.buckets[bucket_of(face, size64, id)], memory_order_acquire);
	while (g != NULL &&
			(g->face != face || g->size64 != size64 || g->id != id)) {
		g = g->next;
	}
	return g;
}

/* A glyph a thread claimed and what it made of it (its own until
 * published). */
struct claim {
	struct vr_atlas_glyph *glyph;
	struct vr_glyph_bitmap bitmap;
	bool failed;
};

/* Pack the visible claimed glyphs into a new delta image (returned; NULL
 * when none has pixels), setting their places; those that do not fit or
 * find no memory fail. No lock held: the glyphs are ours. */
static struct vr_image *pack(struct claim *claims, size_t n) {
	/* a strip as wide as a page */
	struct shelves s = { ATLAS_SIZE, INT32_MAX / 2, 0, 0, 0 };
	int32_t height = 0;
	for (size_t i = 0; i < n; i++) {
		struct vr_atlas_glyph *g = claims[i].glyph;
		g->width = claims[i].bitmap.width;
		g->height = claims[i].bitmap.height;
		g->left = claims[i].bitmap.left;
		g->top = claims[i].bitmap.top;
		g->image = NULL;
		if (claims[i].failed || g->width == 0) {
			continue;
		}
		if (!shelf_place(&s, g->width, g->height, &g->x, &g->y)) {
			vr_log(VR_LOG_ERROR, "glyph %u too large for the atlas", g->id);
			claims[i].failed = true;
			continue;
		}
		height = s.y + s.shelf_height;
	}
	struct vr_image *delta = height > 0 ?
			vr_image_create(ATLAS_SIZE, height, VR_FORMAT_ARGB8888) :
			NULL;
	for (size_t i = 0; i < n; i++) {
		struct vr_atlas_glyph *g = claims[i].glyph;
		if (claims[i].failed || g->width == 0) {
			continue;
		}
		if (delta == NULL) {
			claims[i].failed = true;
			continue;
		}
		/* a fresh image: no GPU copy yet, nothing to mark */
		for (int32_t y = 0; y < g->height; y++) {
			const uint8_t *src =
					claims[i].bitmap.coverage + (size_t)y * (size_t)g->width;
			uint32_t *dst = delta->data +
					(size_t)(g->y + y) * (size_t)(delta->stride / 4) +
					(size_t)g->x;
			for (int32_t x = 0; x < g->width; x++) {
				dst[x] = src[x] * 0x01010101u;
			}
		}
		g->image = delta;
	}
	return delta;
}

/* Publish claimed glyphs: READY with their pixels (in delta, which the
 * atlas takes) or FAILED; atlas.lock held. */
static void publish(struct claim *claims, size_t n, struct vr_image *delta) {
	if (delta != NULL &&
			!vr_grow((void **)&atlas.delta_images, &atlas.delta_images_cap,
					atlas.ndelta_images + 1, sizeof(struct vr_image *))) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		vr_image_unref(delta);
		delta = NULL;
	}
	if (delta != NULL) {
		atlas.delta_images[atlas.ndelta_images++] = delta;
	}
	for (size_t i = 0; i < n; i++) {
		struct vr_atlas_glyph *g = claims[i].glyph;
		if (claims[i].failed || (g->image != NULL && delta == NULL)) {
			g->image = NULL;
			g->state = GLYPH_FAILED;
			continue;
		}
		g->state = GLYPH_READY;
		if (g->image != NULL) {
			g->delta_next = atlas.deltas;
			atlas.deltas = g;
		}
	}
	for (size_t i = 0; i < n; i++) {
		atomic_store_explicit(&claims[i].glyph->settled, true,
				memory_order_release);
	}
	pthread_cond_broadcast(&atlas.ready);
}

/* ---- tasks -------------------------------------------------------------- */

static int compare_image(const void *a, const void *b) {
	uintptr_t ia = (uintptr_t)((const struct vr_placed_glyph *)a)->image;
	uintptr_t ib = (uintptr_t)((const struct vr_placed_glyph *)b)->image;
	return (ia > ib) - (ia < ib);
}

/*
 * Sorted by image, the glyphs of a task use at most VR_TASK_MAX_DRAWS
 * images: in the first frames after many new glyphs they may lie in more
 * (deltas of several workers); the glyphs of the images past the last
 * draw but one are then copied into one image of the task's own.
 */
bool vr_glyphs_gather(struct vr_placed_glyph *placed, size_t n) {
	qsort(placed, n, sizeof(*placed), compare_image);
	size_t groups = 0, first_extra = n;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || placed[i].image != placed[i - 1].image) {
			if (++groups == VR_TASK_MAX_DRAWS) {
				first_extra = i;
			}
		}
	}
	if (groups <= VR_TASK_MAX_DRAWS) {
		return true;
	}
	struct shelves s = { ATLAS_SIZE, INT32_MAX / 2, 0, 0, 0 };
	int32_t height = 0;
	for (size_t i = first_extra; i < n; i++) {
		const struct vr_atlas_glyph *g = placed[i].glyph;
		int32_t x = 0, y = 0;
		if (!shelf_place(&s, g->width, g->height, &x, &y)) {
			return false;
		}
		height = s.y + s.shelf_height;
	}
	struct vr_image *copy =
			vr_image_create(ATLAS_SIZE, height, VR_FORMAT_ARGB8888);
	if (copy == NULL) {
		return false;
	}
	s = (struct shelves){ ATLAS_SIZE, INT32_MAX / 2, 0, 0, 0 };
	for (size_t i = first_extra; i < n; i++) {
		const struct vr_atlas_glyph *g = placed[i].glyph;
		int32_t x = 0, y = 0;
		/* fits: the same shelves were measured above */
		shelf_place(&s, g->width, g->height, &x, &y);
		copy_box(copy, x, y, placed[i].image, placed[i].x, placed[i].y,
				g->width, g->height);
		placed[i].image = copy;
		placed[i].x = x;
		placed[i].y = y;
	}
	/* freed with the frame's deltas */
	pthread_mutex_lock(&atlas.lock);
	bool ok = vr_grow((void **)&atlas.delta_images, &atlas.delta_images_cap,
			atlas.ndelta_images + 1, sizeof(struct vr_image *));
	if (ok) {
		atlas.delta_images[atlas.ndelta_images++] = copy;
	}
	pthread_mutex_unlock(&atlas.lock);
	if (!ok) {
		vr_image_unref(copy);
		return false;
	}
	qsort(placed, n, sizeof(*placed), compare_image);
	return true;
}

void vr_glyph_quad(const struct vr_glyph_run *run, uint32_t index, int32_t left,
		int32_t top, int32_t width, int32_t height, float corners[4][2]) {
	float ox, oy;
	vr_glyph_run_origin(run, index, &ox, &oy);
	if (run->nearest) {
		/* whole pixels, the bitmap 1:1 */
		float x0 = ox + (float)left, y0 = oy - (float)top;
		const float xs[4] = { x0, x0 + (float)width, x0, x0 + (float)width };
		const float ys[4] = { y0, y0, y0 + (float)height, y0 + (float)height };
		for (int i = 0; i < 4; i++) {
			corners[i][0] = xs[i];
			corners[i][1] = ys[i];
		}
		return;
	}
	/* the bitmap's box in run coordinates, mapped */
	const struct vr_mat *m = &run->state.mat;
	float s = sqrtf(fabsf(m->a * m->d - m->b * m->c));
	float px = run->text->positions[2 * index];
	float py = run->text->positions[2 * index + 1];
	float x0 = px + (float)left / s, y0 = py - (float)top / s;
	float x1 = x0 + (float)width / s, y1 = y0 + (float)height / s;
	const float xs[4] = { x0, x1, x0, x1 };
	const float ys[4] = { y0, y0, y1, y1 };
	for (int i = 0; i < 4; i++) {
		vr_mat_apply(m, xs[i], ys[i], &corners[i][0], &corners[i][1]);
	}
}

void vr_glyph_vertices(const struct vr_placed_glyph *p,
		struct vr_tex_vertex *v) {
	const struct vr_atlas_glyph *g = p->glyph;
	const struct vr_glyph_run *run = p->run;
	float corners[4][2];
	vr_glyph_quad(run, p->index, g->left, g->top, g->width, g->height, corners);
	float iw = (float)p->image->width, ih = (float)p->image->height;
	float u0 = (float)p->x / iw, v0 = (float)p->y / ih;
	float u1 = (float)(p->x + g->width) / iw;
	float v1 = (float)(p->y + g->height) / ih;
	const float us[4] = { u0, u1, u0, u1 }, vs[4] = { v0, v0, v1, v1 };
	struct vr_tex_vertex base = { 0 };
	for (int i = 0; i < 4; i++) {
		base.color[i] = run->state.color[i];
	}
	vr_vertex_clip_init(&base.clip, &run->state);
	static const int order[6] = { 0, 1, 2, 1, 3, 2 };
	for (int i = 0; i < 6; i++) {
		int c = order[i];
		v[i] = base;
		v[i].pos[0] = corners[c][0];
		v[i].pos[1] = corners[c][1];
		v[i].uv[0] = us[c];
		v[i].uv[1] = vs[c];
	}
}

/* Text at a pixel size (1/64). */
struct text_at {
	const struct vr_text *text;
	int32_t size64;
};

/*
 * Claim (insert PREPARING) the glyphs of texts nobody has, into claims
 * (room for every glyph of texts): allocated without a lock, inserted
 * under atlas.lock unless another thread inserted them meanwhile. Returns
 * how many were claimed; false in *ok when out of memory (what was claimed
 * is still returned, to be published).
 */
static size_t claim(const struct text_at *texts, size_t ntexts,
		struct claim *claims, bool *ok) {
	size_t n = 0;
	*ok = true;
	for (size_t t = 0; *ok && t < ntexts; t++) {
		const struct vr_text *text = texts[t].text;
		for (uint32_t k = 0; k < text->count; k++) {
			uint32_t id = text->glyphs[k];
			if (glyph_find(text->face, texts[t].size64, id) != NULL) {
				continue;
			}
			struct vr_atlas_glyph *g = calloc(1, sizeof(*g));
			if (g == NULL) {
				vr_log(VR_LOG_ERROR, "allocation failed");
				*ok = false;
				break;
			}
			*g = (struct vr_atlas_glyph){
				.face = text->face,
				.size64 = texts[t].size64,
				.id = id,
				.state = GLYPH_PREPARING,
			};
			claims[n++] = (struct claim){ .glyph = g };
		}
	}
	if (n == 0) {
		return 0;
	}
	pthread_mutex_lock(&atlas.lock);
	for (size_t i = 0; i < n; i++) {
		struct vr_atlas_glyph *g = claims[i].glyph;
		if (glyph_find(g->face, g->size64, g->id) != NULL) {
			/* someone else's (or ours twice): not inserted */
			claims[i].failed = true;
			continue;
		}
		unsigned b = bucket_of(g->face, g->size64, g->id);
		g->next = atomic_load_explicit(&atlas.buckets[b], memory_order_relaxed);
		atomic_store_explicit(&atlas.buckets[b], g, memory_order_release);
	}
	pthread_mutex_unlock(&atlas.lock);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (claims[i].failed) {
			free(claims[i].glyph);
		} else {
			claims[m++] = claims[i];
		}
	}
	return m;
}

/* Rasterise claimed glyphs (no lock held: they are ours until
 * published). */
static void rasterize(struct claim *claims, size_t n) {
	for (size_t i = 0; i < n; i++) {
		struct vr_atlas_glyph *g = claims[i].glyph;
		claims[i].failed =
				!vr_font_face_rasterize((struct vr_font_face *)g->face, g->id,
						(float)g->size64 / 64.0f, &claims[i].bitmap);
	}
}

/*
 * Claim, rasterise and publish the glyphs of texts that nobody has;
 * *nprepared is how many, also added to the counter `prepared`. False
 * when out of memory. Glyphs other threads claimed are not waited for.
 */
static bool prepare(const struct text_at *texts, size_t ntexts,
		atomic_size_t *prepared, size_t *nprepared) {
	size_t total = 0;
	for (size_t t = 0; t < ntexts; t++) {
		total += texts[t].text->count;
	}
	*nprepared = 0;
	struct claim *claims = malloc((total + 1) * sizeof(*claims));
	if (claims == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return false;
	}
	bool ok;
	size_t n = claim(texts, ntexts, claims, &ok);
	if (n > 0) {
		atomic_fetch_add_explicit(prepared, n, memory_order_relaxed);
		rasterize(claims, n);
		struct vr_image *delta = pack(claims, n);
		pthread_mutex_lock(&atlas.lock);
		publish(claims, n, delta);
		pthread_mutex_unlock(&atlas.lock);
	}
	for (size_t i = 0; i < n; i++) {
		free(claims[i].bitmap.coverage);
	}
	free(claims);
	*nprepared = n;
	return ok;
}

size_t vr_glyph_atlas_warm(const struct vr_text *text, float size_px) {
	if (text->count == 0 || !(size_px > 0.0f)) {
		return 0;
	}
	struct text_at at = { text, glyph_size64(size_px) };
	size_t n;
	prepare(&at, 1, &warmed, &n);
	return n;
}

bool vr_glyph_atlas_lookup(const struct vr_font_face *face, float size_px,
		uint32_t id, struct vr_glyph_bitmap *out) {
	*out = (struct vr_glyph_bitmap){ 0 };
	const struct vr_atlas_glyph *g =
			glyph_find(face, glyph_size64(size_px), id);
	if (g == NULL || !atomic_load_explicit(&g->settled, memory_order_acquire) ||
			g->state != GLYPH_READY) {
		return false;
	}
	out->left = g->left;
	out->top = g->top;
	if (g->image == NULL) {
		return true;
	}
	out->coverage = malloc((size_t)g->width * (size_t)g->height + 1);
	if (out->coverage == NULL) {
		return false;
	}
	out->width = g->width;
	out->height = g->height;
	for (int32_t y = 0; y < g->height; y++) {
		const uint32_t *src = g->image->data +
				(size_t)(g->y + y) * (size_t)(g->image->stride / 4) +
				(size_t)g->x;
		for (int32_t x = 0; x < g->width; x++) {
			out->coverage[(size_t)y * (size_t)g->width + (size_t)x] =
					(uint8_t)(src[x] >> 24);
		}
	}
	return true;
}

/* Every glyph of the task already settled: fill placed without a lock
 * and return true; false as soon as one is unknown or still PREPARING
 * (glyphs_resolve then takes the lock). */
static bool glyphs_settled(const struct vr_task_payload *payload,
		struct vr_placed_glyph *placed, size_t *nplaced) {
	size_t n = 0;
	for (uint32_t i = 0; i < payload->count; i++) {
		const struct vr_glyph_run *run = &payload->runs[i];
		int32_t size64 = glyph_size64(vr_glyph_run_pixel_size(run));
		for (uint32_t k = 0; k < run->text->count; k++) {
			struct vr_atlas_glyph *g =
					glyph_find(run->text->face, size64, run->text->glyphs[k]);
			if (g == NULL ||
					!atomic_load_explicit(&g->settled, memory_order_acquire)) {
				return false;
			}
			if (g->state == GLYPH_READY && g->image != NULL) {
				placed[n++] = (struct vr_placed_glyph){ g, run, k, g->image,
					g->x, g->y };
			}
		}
	}
	*nplaced = n;
	return true;
}

/*
 * Every glyph of the task, READY or FAILED: claims and rasterises those
 * nobody has, publishes them, then waits for those others claimed.
 * Fills placed (READY glyphs with pixels); false when out of memory.
 */
bool vr_glyphs_resolve(const struct vr_task_payload *payload,
		struct vr_placed_glyph *placed, size_t *nplaced) {
	if (glyphs_settled(payload, placed, nplaced)) {
		return true;
	}
	struct text_at *texts = malloc(payload->count * sizeof(*texts));
	if (texts == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return false;
	}
	for (uint32_t i = 0; i < payload->count; i++) {
		const struct vr_glyph_run *run = &payload->runs[i];
		texts[i] = (struct text_at){ run->text,
			glyph_size64(vr_glyph_run_pixel_size(run)) };
	}
	size_t nprepared;
	bool ok = prepare(texts, payload->count, &rasterized, &nprepared);
	free(texts);

	size_t n = 0;
	for (uint32_t i = 0; ok && i < payload->count; i++) {
		const struct vr_glyph_run *run = &payload->runs[i];
		int32_t size64 = glyph_size64(vr_glyph_run_pixel_size(run));
		for (uint32_t k = 0; k < run->text->count; k++) {
			struct vr_atlas_glyph *g =
					glyph_find(run->text->face, size64, run->text->glyphs[k]);
			if (g != NULL &&
					!atomic_load_explicit(&g->settled, memory_order_acquire)) {
				/* another thread's: wait for it to publish */
				pthread_mutex_lock(&atlas.lock);
				while (g->state == GLYPH_PREPARING) {
					pthread_cond_wait(&atlas.ready, &atlas.lock);
				}
				pthread_mutex_unlock(&atlas.lock);
			}
			if (g != NULL && g->state == GLYPH_READY && g->image != NULL) {
				placed[n++] = (struct vr_placed_glyph){ g, run, k, g->image,
					g->x, g->y };
			}
		}
	}
	*nplaced = n;
	return ok;
}
