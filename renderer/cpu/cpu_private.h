/*
 * The CPU backend's private types and the functions its files share
 * (cpu_backend.c's top comment tells how it works).
 */
#ifndef RENDERER_CPU_PRIVATE_H
#define RENDERER_CPU_PRIVATE_H

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

typedef void (*cpu_pixel_fn)(const struct cpu_px *px, int32_t x, int32_t y,
		const double w[3], void *data);
/* A row's pixels [lo, hi] (inclusive) at once: the weights of the pixel
 * centred at x + 0.5 are wy[i] + wb[i] (x + 0.5), as cpu_raster_triangle
 * gives fn. */
typedef void (*cpu_row_fn)(const struct cpu_px *px, int32_t lo, int32_t hi,
		int32_t y, const double wy[3], const double wb[3], void *data);

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

static inline int64_t floor_div(int64_t a, int64_t b) {
	/* b > 0 */
	int64_t q = a / b;
	return (a % b != 0 && a < 0) ? q - 1 : q;
}

static inline int64_t snap256(float v) {
	return (int64_t)llround((double)v * 256.0);
}

/* the pool (cpu_pool.c) */
void cpu_pool_run(struct cpu_pool *pool, uint32_t nitems, cpu_item_fn fn,
		void *data);
bool cpu_pool_init(struct cpu_pool *pool, int nthreads);
void cpu_pool_finish(struct cpu_pool *pool);

/* quads, triangles, shapes (cpu_shapes.c) */
void cpu_raster_triangle(const struct cpu_px *px, const float *a,
		const float *b, const float *c, cpu_pixel_fn fn, cpu_row_fn row_fn,
		void *data);
void cpu_draw_quad(const struct cpu_px *px, const struct vr_draw_task *task);
void cpu_draw_shape(const struct cpu_px *px, const struct vr_shape *shape);
void cpu_draw_geometry(const struct cpu_px *px,
		const struct vr_geometry *geometry, const struct cpu_tess *tess);

/* textured quads, caches, glyphs, shadows (cpu_glyphs.c) */
const struct cpu_tess_entry *cpu_tess_get(struct vr_cpu_renderer *r,
		const struct vr_geometry *geometry);
void cpu_tess_cache_trim(struct vr_cpu_renderer *r, bool all);
const struct cpu_glyph *cpu_glyph_get(struct vr_cpu_renderer *r,
		struct vr_font_face *face, uint32_t glyph, float size_px);
void cpu_glyph_cache_clear(struct vr_cpu_renderer *r);
bool cpu_glyph_run_place(struct cpu_run_place *place,
		const struct vr_glyph_run *run, const struct cpu_glyph **glyphs);
void cpu_draw_run(const struct cpu_px *px, const struct vr_glyph_run *run,
		const struct cpu_glyph **glyphs, const struct cpu_run_place *place);
const struct cpu_shadow_mask *cpu_shadow_get(struct vr_cpu_renderer *r,
		const struct vr_shadow *shadow, const struct vr_shadow_layout *l);
void cpu_shadow_cache_trim(struct vr_cpu_renderer *r, bool all);
void cpu_draw_shadow(const struct cpu_px *px, const struct vr_shadow *shadow,
		const struct cpu_shadow_mask *mask);

#endif
