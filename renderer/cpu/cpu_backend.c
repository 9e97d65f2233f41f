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
#include "cpu_private.h"
#include "cpu_pixels.h"

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

static void *frame_alloc(void *data, size_t size) {
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

static bool frame_push(void *data, const struct vr_task *task) {
	struct cpu_frame *f = data;
	if (!vr_grow((void **)&f->tasks, &f->tasks_cap, f->ntasks + 1,
				sizeof(*f->tasks))) {
		return false;
	}
	f->tasks[f->ntasks++] = *task;
	return true;
}

static bool frame_hold_list(void *data, struct vr_display_list *list) {
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
static bool frame_hold_image(void *data, struct vr_image *image) {
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
static void prep_task(void *data, uint32_t item) {
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
			const struct cpu_tess_entry *e =
					cpu_tess_get(f->renderer, &payload->geometries[i]);
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
			float size_px =
					roundf(vr_glyph_run_pixel_size(run) * 64.0f) / 64.0f;
			d->glyphs[i] = calloc(run->text->count ? run->text->count : 1,
					sizeof(*d->glyphs[i]));
			if (d->glyphs[i] == NULL) {
				atomic_store(&f->failed, true);
				return;
			}
			for (uint32_t k = 0; k < run->text->count; k++) {
				d->glyphs[i][k] = cpu_glyph_get(f->renderer, run->text->face,
						run->text->glyphs[k], size_px);
			}
			if (!cpu_glyph_run_place(&d->places[i], run, d->glyphs[i])) {
				atomic_store(&f->failed, true);
				return;
			}
		}
		break;
	case VR_TASK_SHADOW: {
		struct vr_shadow_layout layout;
		if (vr_shadow_layout(&payload->shadows[0], &layout)) {
			d->shadow =
					cpu_shadow_get(f->renderer, &payload->shadows[0], &layout);
		}
		break;
	}
	case VR_TASK_LAYER:
		d->layer = layer_render(f, &payload->layers[0]);
		if (d->layer == NULL) {
			atomic_store(&f->failed, true);
		}
		break;
	default: break;
	}
}

/* Group opacity: the layer (drawn whole in phase 1, so its pixels do not
 * depend on the bands) over the band's pixels, texel for pixel, times
 * the opacity: reference.c's draw_layer. */
static void draw_layer(const struct cpu_px *px, const struct vr_layer *layer,
		pixman_image_t *image) {
	const uint32_t *data = pixman_image_get_data(image);
	int32_t stride = pixman_image_get_stride(image) / 4;
	float alpha = (float)layer->alpha / 255.0f;
	const struct vr_box *b = &px->box;
	for (int32_t y = b->y; y < b->y + b->height; y++) {
		for (int32_t x = b->x; x < b->x + b->width; x++) {
			uint32_t p = data[(size_t)(y - layer->bounds.y) * (size_t)stride +
					(size_t)(x - layer->bounds.x)];
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
		uint32_t index) {
	const struct vr_task *task = &f->tasks[index];
	const struct cpu_task_data *d = &f->data[index];
	const struct vr_task_payload *payload = task->payload;
	for (uint32_t i = 0; i < payload->count; i++) {
		switch (task->kind) {
		case VR_TASK_QUADS: cpu_draw_quad(px, &payload->quads[i]); break;
		case VR_TASK_SHAPES: cpu_draw_shape(px, &payload->shapes[i]); break;
		case VR_TASK_TRIANGLES:
			if (d->tess != NULL) {
				cpu_draw_geometry(px, &payload->geometries[i], &d->tess[i]);
			}
			break;
		case VR_TASK_GLYPHS:
			if (d->glyphs != NULL && d->glyphs[i] != NULL &&
					d->places != NULL && d->places[i].corners != NULL) {
				cpu_draw_run(px, &payload->runs[i], d->glyphs[i],
						&d->places[i]);
			}
			break;
		case VR_TASK_SHADOW:
			cpu_draw_shadow(px, &payload->shadows[i], d->shadow);
			break;
		case VR_TASK_LAYER:
			if (d->layer != NULL) {
				draw_layer(px, &payload->layers[i], d->layer);
			}
			break;
		case VR_TASK_KIND_COUNT: break;
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
		struct vr_box *out) {
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

/*
 * The pixels of area that an opaque quad covers fully: an axis-aligned
 * one without rounded clips draws every pixel of its cover (vr_quad_cover)
 * OVER, with an opaque colour or an XRGB image's texels at full opacity
 * (pixman reads XRGB as opaque, filtered or not), so whatever was there
 * is replaced. Returns whether *out is one (large ones only, as above).
 */
static bool quad_cover(const struct vr_draw_task *quad,
		const struct vr_box *area, struct vr_box *out) {
	struct vr_box in = vr_box_intersect(&quad->aabb, area);
	if (!quad->axis_aligned || quad->nrclips > 0 || quad->a != 255 ||
			(quad->image != NULL &&
					quad->image->format != VR_FORMAT_XRGB8888) ||
			(int64_t)in.width * in.height < CPU_COVER_MIN_PIXELS) {
		return false; /* (its cover lies inside its aabb) */
	}
	struct vr_box cover = vr_quad_cover(quad);
	cover = vr_box_intersect(&cover, area);
	if (vr_box_empty(&cover) ||
			(int64_t)cover.width * cover.height < CPU_COVER_MIN_PIXELS) {
		return false;
	}
	*out = cover;
	return true;
}

/* Clears area but for the pixels fully covered by opaque fills and
 * quads. */
static void clear_area(const struct cpu_frame *f, const struct vr_box *area) {
	pixman_region32_t region;
	pixman_region32_init_rect(&region, area->x, area->y, (unsigned)area->width,
			(unsigned)area->height);
	for (size_t i = 0; i < f->ntasks; i++) {
		const struct vr_task *task = &f->tasks[i];
		if (task->kind != VR_TASK_SHAPES && task->kind != VR_TASK_QUADS) {
			continue;
		}
		struct vr_box in = vr_box_intersect(area, &task->aabb);
		if (vr_box_empty(&in) ||
				(int64_t)in.width * in.height < CPU_COVER_MIN_PIXELS) {
			continue;
		}
		for (uint32_t k = 0; k < task->payload->count; k++) {
			struct vr_box cover;
			if (task->kind == VR_TASK_SHAPES ?
							shape_cover(&task->payload->shapes[k], &in,
									&cover) :
							quad_cover(&task->payload->quads[k], &in, &cover)) {
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
static void draw_band(void *data, uint32_t band) {
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
static void frame_free_data(struct cpu_frame *f) {
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
		const struct vr_layer *layer) {
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
		layer->box.y - layer->bounds.y, layer->box.width, layer->box.height };
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
static void frame_finish(struct cpu_frame *f) {
	frame_free_data(f);
	f->data = NULL;
	f->prep = NULL;
	cpu_tess_cache_trim(f->renderer, false);
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
static int32_t band_height(int32_t width, int32_t height, int workers) {
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
static void job_execute(struct vr_cpu_renderer *r, struct cpu_job *job) {
	struct cpu_frame *f = &job->f;
	uint64_t start = vr_now_ns();
	job->seq = ++r->seq;
	r->frame = job->seq;
	/* between frames: no worker runs, the caches may shrink */
	if (r->nglyphs > CPU_GLYPH_CACHE_MAX) {
		cpu_glyph_cache_clear(r);
	}
	cpu_shadow_cache_trim(r, false);
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
	cpu_pool_run(&r->pool, f->nprep, prep_task, f);
	if (atomic_load(&f->failed)) {
		vr_log(VR_LOG_ERROR, "cpu: out of memory");
		job->ok = false;
		goto out;
	}
	const pixman_box32_t *ext = pixman_region32_extents(&job->region);
	f->band_y = ext->y1;
	int32_t height = ext->y2 - ext->y1;
	f->band_height = band_height(ext->x2 - ext->x1, height, r->workers);
	uint32_t nbands =
			(uint32_t)((height + f->band_height - 1) / f->band_height);
	cpu_pool_run(&r->pool, nbands, draw_band, f);
out:
	frame_finish(f);
	job->timing.execute_ns = vr_now_ns() - start;
	job->timing.execute_critical_ns = job->timing.execute_ns;
	job->timing.end_ns = vr_now_ns();
}

static void *frame_thread_main(void *data) {
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
static void job_retire(struct vr_cpu_renderer *r, struct cpu_job *job) {
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
		uint64_t timeout_ns) {
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
			} else if (pthread_cond_timedwait(&r->done_cond, &r->queue_lock,
							   &deadline) != 0) {
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
static void cpu_drain(struct vr_cpu_renderer *r) {
	if (r->retired < r->submitted) {
		cpu_retire(r, r->submitted, UINT64_MAX);
	}
}

uint64_t vr_cpu_render_submit(struct vr_cpu_renderer *r, struct vr_tree *tree,
		pixman_image_t *dst, const struct vr_mat *view, struct vr_color clear,
		const pixman_region32_t *damage) {
	return vr_cpu_render_submit_moved(r, tree, dst, view, clear, damage, NULL,
			0);
}

uint64_t vr_cpu_render_submit_moved(struct vr_cpu_renderer *r,
		struct vr_tree *tree, pixman_image_t *dst, const struct vr_mat *view,
		struct vr_color clear, const pixman_region32_t *damage,
		const struct vr_move *moves, size_t nmoves) {
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

int vr_cpu_renderer_get_fd(struct vr_cpu_renderer *r) {
	return r->fd;
}

uint64_t vr_cpu_renderer_dispatch(struct vr_cpu_renderer *r) {
	uint64_t count;
	while (read(r->fd, &count, sizeof(count)) == sizeof(count)) {
	}
	cpu_retire(r, 0, 0);
	return r->retired;
}

bool vr_cpu_frame_poll(struct vr_cpu_renderer *r, uint64_t id) {
	cpu_retire(r, 0, 0);
	return id > 0 && id <= r->retired;
}

bool vr_cpu_frame_wait(struct vr_cpu_renderer *r, uint64_t id,
		uint64_t timeout_ns) {
	if (id == 0 || id > r->submitted) {
		return false;
	}
	cpu_retire(r, id, timeout_ns);
	return id <= r->retired;
}

bool vr_cpu_frame_get_timing(struct vr_cpu_renderer *r, uint64_t id,
		struct vr_frame_timing *out) {
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
		const pixman_region32_t *damage) {
	uint64_t id =
			vr_cpu_render_submit(renderer, tree, dst, view, clear, damage);
	if (id == 0 || !vr_cpu_frame_wait(renderer, id, UINT64_MAX)) {
		return false;
	}
	size_t t = (size_t)(id % VR_FRAMES_IN_FLIGHT);
	return renderer->timings[t].id == id && renderer->timings[t].ok;
}

struct vr_cpu_renderer *vr_cpu_renderer_create(int workers) {
	if (workers <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		workers = n > 0 ? (int)n : 1;
	}
	if (workers > CPU_MAX_WORKERS) {
		workers = CPU_MAX_WORKERS;
	}
	cpu_unit8_init();
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
	if (!cpu_pool_init(&r->pool, workers - 1)) {
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

void vr_cpu_renderer_destroy(struct vr_cpu_renderer *r) {
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
	cpu_pool_finish(&r->pool);
	cpu_glyph_cache_clear(r);
	cpu_shadow_cache_trim(r, true);
	cpu_tess_cache_trim(r, true);
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

int vr_cpu_renderer_workers(const struct vr_cpu_renderer *r) {
	return r->workers;
}
