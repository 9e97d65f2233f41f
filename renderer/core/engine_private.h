/*
 * The stateless engine's private types: the primitives preparation puts
 * into task payloads (engine.h), the vertex formats of the engine's
 * pipelines, and the CPU halves of the primitives (coverage functions,
 * tessellation, glyph rasterisation, blur) that the pixman reference
 * renderer shares with the engine, so both draw the same geometry.
 *
 * Every primitive carries its complete absolute state in target pixels;
 * nothing here looks at the tree.
 */
#ifndef RENDERER_ENGINE_PRIVATE_H
#define RENDERER_ENGINE_PRIVATE_H

#include <math.h>
#include <pthread.h>
#include "display_list.h"
#include "engine.h"

/* ---- primitives --------------------------------------------------------- */

/* Most primitives one task batches: tasks stay small enough to spread
 * over workers. */
#define VR_BATCH_MAX 256

struct vr_prim_state {
	struct vr_mat mat; /* primitive coordinates -> target pixels */
	struct vr_box clip; /* target pixels */
	/* rounded clips (vr_rclips_for), innermost last; their bounding
	 * boxes are in clip */
	uint32_t nrclips;
	struct vr_rclip rclips[VR_RCLIP_MAX];
	float color[4]; /* premultiplied, opacity applied */
};

/* VR_TASK_SHAPES: analytic rounded rectangles and ellipses. */
struct vr_shape {
	struct vr_prim_state state;
	struct vr_rectf rect; /* primitive coordinates */
	struct vr_radii radii; /* fitted; zero for ellipses */
	bool ellipse;
	float stroke_width; /* primitive coordinates; 0: fill */
};

/* VR_TASK_TRIANGLES: a path stroked or filled. */
struct vr_geometry {
	struct vr_prim_state state;
	const struct vr_path *path; /* the display list's */
	struct vr_paint paint; /* stroke_width in primitive coordinates */
};

/* VR_TASK_GLYPHS: one shaped run. */
struct vr_glyph_run {
	struct vr_prim_state state;
	const struct vr_text *text; /* the display list's */
	/* state.mat is a translation and a positive uniform scale: glyphs
	 * are rasterised at their drawn size, on whole pixels, sampled
	 * nearest; otherwise at size * sqrt(|det|), transformed, bilinear */
	bool nearest;
};

/* VR_TASK_SHADOW: a blurred rounded rectangle. */
struct vr_shadow {
	struct vr_prim_state state;
	struct vr_rectf rect; /* primitive coordinates */
	struct vr_radii radii;
	float sigma; /* primitive coordinates */
};

/* ---- preparation (prepare.c) --------------------------------------------- */

/* Where preparation puts tasks: frame memory (zeroed, 16-byte aligned,
 * NULL when out of memory) and the chain (false: stop). */
struct vr_task_sink {
	void *(*alloc)(void *data, size_t size);
	bool (*push)(void *data, const struct vr_task *task);
	/* Optional (NULL: nothing to hold): keep what tasks point into alive
	 * and unchanged until the tasks are done with it; false: out of
	 * memory, the preparation fails. */
	bool (*hold_image)(void *data, struct vr_image *image);
	bool (*hold_list)(void *data, struct vr_display_list *list);
	/* Optional (NULL: no atlas): vr_chain_atlas_place */
	bool (*atlas_place)(void *data, struct vr_image *image, bool nearest,
			struct vr_atlas_place *out);
	void *data;
};

#define VR_PREPARE_MAX_LOOKBACK 32

struct vr_prepare_options {
	uint32_t lookback; /* 0: VR_BATCH_LOOKBACK; <= VR_PREPARE_MAX_LOOKBACK */
	bool no_batching; /* one task per primitive */
	/* every node's content replayed afresh, its cache left alone (also
	 * the default when VITRAIL_PREPARE_REUSE=0) */
	bool no_reuse;
	struct vr_prepare_stats *stats; /* optional, added to */
};

/* A node's preparation cache is freed once this many preparations (a
 * frame of an output each, about 5 s of two outputs at 60 Hz) passed
 * without using it: the node is hidden, or off every output, or damaged so
 * seldom that capturing it again costs little (prepare.c). */
#define VR_PREPARE_KEEP 600

/* Reuse unless the environment has VITRAIL_PREPARE_REUSE=0 (read at each
 * call). */
bool vr_prepare_reuse_default(void);

/* vr_engine_prepare with a sink of one's own and options (NULL: the
 * defaults). */
bool vr_prepare_tasks(const struct vr_task_sink *sink, struct vr_tree *tree,
		const struct vr_prepare_job *job,
		const struct vr_prepare_options *options);

/* ---- vertex formats (all floats) ---------------------------------------- */

/*
 * The clip part every engine vertex ends with, its rounded clips last:
 * each vertex pipeline has a variant without them (shader_interface.h)
 * whose vertices are the struct's first offsetof(..., clip.rclips) bytes
 * (its vr_pipeline_desc::vertex_stride), drawing the primitives that
 * have no rounded clip (nrclips == 0, most of them) with 96 bytes less
 * per vertex; preparation keeps the two apart (a task's primitives all
 * have rounded clips or none), so a task draws with one pipeline.
 */
struct vr_vertex_clip {
	float clip[4]; /* x0, y0, x1, y1: target pixels */
	struct vr_rclip rclips[VR_RCLIP_MAX]; /* unused slots: half_w < 0 */
};

struct vr_shape_vertex {
	float pos[2]; /* target pixels */
	float local[2]; /* relative to the shape's centre */
	float half[2]; /* half size */
	float params[4]; /* ellipse (0/1), stroke width, pixels per unit, 0 */
	float radii[4];
	float color[4];
	struct vr_vertex_clip clip;
};

struct vr_tri_vertex {
	float pos[2]; /* target pixels */
	/* u: across the stroke (0 on the centre line); v0, v1: past the
	 * start and the end of an open stroke; w: half width; e: cap extent:
	 * coverage = clamp(w + 0.5 - |u|) * clamp(e + 0.5 - v0) *
	 * clamp(e + 0.5 - v1) (see vr_tri_coverage) */
	float aa[4]; /* u, v0, v1, unused */
	float shape[2]; /* w, e */
	float color[4];
	struct vr_vertex_clip clip;
};

struct vr_tex_vertex {
	float pos[2]; /* target pixels */
	float uv[2]; /* normalised */
	float color[4]; /* the texel is multiplied by it */
	struct vr_vertex_clip clip;
};

/* The offscreen passes of the shadow: position in scratch pixels and the
 * texture coordinate. */
struct vr_blit_vertex {
	float pos[2];
	float uv[2];
};

void vr_vertex_clip_init(struct vr_vertex_clip *clip,
		const struct vr_prim_state *state);
void vr_vertex_clip_set(struct vr_vertex_clip *clip, const struct vr_box *box,
		const struct vr_rclip *rclips, uint32_t nrclips);
/* Every field of a shape's vertices but pos and local. */
void vr_shape_vertex_init(const struct vr_shape *shape,
		struct vr_shape_vertex *v);
/* Copies count vertices of size bytes from src to dst, stride bytes
 * apart (stride <= size: the pipeline's prefix of each); returns the
 * end of what it wrote. */
void *vr_engine_copy_vertices(void *dst, size_t stride, const void *src,
		size_t size, size_t count);
/* ---- coverage (the shaders' functions, for the reference) ---------------- */

/* Inline: the CPU backend calls these per pixel. */
static inline float vr_clampf(float v, float lo, float hi) {
	return v < lo ? lo : v > hi ? hi : v;
}

/* Signed distance to a rounded box of half size (hx, hy) centred at the
 * origin, radii tl, tr, br, bl (y down). */
float vr_sdf_rrect(float px, float py, float hx, float hy,
		const float radii[4]);
/* Approximate signed distance to the ellipse of half axes (hx, hy). */
float vr_sdf_ellipse(float px, float py, float hx, float hy);
/* Coverage of the target pixel centred at (x, y) by a vertex's clip: the
 * box times every rounded clip's vr_rclip_coverage. The one function the
 * reference renderer and the CPU backend evaluate clips with. */
float vr_clip_coverage(const struct vr_vertex_clip *clip, float x, float y);
/* The shapes' fragment coverage at an interpolated vertex. */
float vr_shape_coverage(const struct vr_shape_vertex *v);
/* The triangles' fragment coverage at an interpolated vertex. */
static inline float vr_tri_coverage(const struct vr_tri_vertex *v) {
	float w = v->shape[0], e = v->shape[1];
	return vr_clampf(w + 0.5f - fabsf(v->aa[0]), 0.0f, 1.0f) *
			vr_clampf(e + 0.5f - v->aa[1], 0.0f, 1.0f) *
			vr_clampf(e + 0.5f - v->aa[2], 0.0f, 1.0f);
}

/* Quads drawn on the CPU, the reference renderer's rules that the CPU
 * backend follows (engine_common.c). An affine transform in doubles: the
 * inverse mapping from pixels to texels wants the precision. */
struct vr_dmat {
	double a, b, c, d, tx, ty;
};
struct vr_dmat vr_dmat_from(const struct vr_mat *m);
struct vr_dmat vr_dmat_multiply(const struct vr_dmat *a,
		const struct vr_dmat *b);
/* False when m is singular. */
bool vr_dmat_invert(struct vr_dmat *out, const struct vr_dmat *m);
pixman_fixed_t vr_to_fixed(double v);
/* The first pixel covered by an edge at coordinate e (the GPU's rule: a
 * pixel is covered when its centre is inside). */
int32_t vr_cover_start(float e);
/* The target pixels an axis-aligned quad task covers, inside its clip. */
struct vr_box vr_quad_cover(const struct vr_draw_task *task);
/* The pixman source of a quad task: its solid colour, or its image
 * mapped from target pixels (uv o mat^-1), nearest or bilinear, clamped
 * to the edge as the GPU sampler is; NULL on failure. */
/* pinned: the task runs in a frame that pinned the image (the pixels it
 * had when the frame was prepared, not a newer write's) */
pixman_image_t *vr_quad_source(const struct vr_draw_task *task, bool pinned);
/* The same with the image's pixels read from `pixels` (a store the
 * caller picked: the frame's; NULL for a colour). */
pixman_image_t *vr_quad_source_from(const struct vr_draw_task *task,
		uint32_t *pixels);
/* The same for a composite whose source coordinates are *sx, *sy (the
 * destination's): an image that maps to target pixels 1:1 at a
 * whole-pixel offset comes without a transform, *sx and *sy moved by that
 * offset, so that pixman blits its rows; the texels are those the
 * transform samples, bit for bit. Else vr_quad_source_from's. */
pixman_image_t *vr_quad_source_at(const struct vr_draw_task *task,
		uint32_t *pixels, int32_t *sx, int32_t *sy);

/* ---- tessellation (tessellate.c) ---------------------------------------- */

/* Triangles (3 vertices each) of a stroked or filled geometry in target
 * pixels; *count vertices in a malloc'd array (NULL with 0: nothing). */
bool vr_geometry_tessellate(const struct vr_geometry *geometry,
		struct vr_tri_vertex **vertices, size_t *count);
/* The same, each vertex the first stride bytes of its struct (the
 * pipeline's vertex_stride: the engine's variant without rounded clips
 * stops before them). */
bool vr_geometry_tessellate_prefix(const struct vr_geometry *geometry,
		size_t stride, void **vertices, size_t *count);
/* Flattening tolerance, target pixels. */
#define VR_FLATTEN_TOLERANCE 0.2f

/* ---- glyphs (font.c, glyph_atlas.c) -------------------------------------- */

/* A rasterised glyph: coverage, w x h bytes, its top-left at
 * (origin.x + left, origin.y - top) in pixels. */
struct vr_glyph_bitmap {
	int32_t width, height, left, top;
	uint8_t *coverage;
};

/* Rasterise glyph of face at size_px (thread-safe: threads rasterise with
 * FreeType faces of their own, font.c). False when FreeType fails; an
 * empty glyph succeeds with 0 x 0. */
bool vr_font_face_rasterize(struct vr_font_face *face, uint32_t glyph,
		float size_px, struct vr_glyph_bitmap *out);
/* The pixel size glyphs of a run are rasterised at. */
float vr_glyph_run_pixel_size(const struct vr_glyph_run *run);
/* The pen origin of glyph i of a run in target pixels (snapped to whole
 * pixels when the run is nearest). */
void vr_glyph_run_origin(const struct vr_glyph_run *run, uint32_t i, float *x,
		float *y);

/* The frame's first preparation: pages of the glyph atlas may take new
 * glyphs again (and a full atlas is emptied). */
void vr_glyph_atlas_begin_frame(void);
/* Glyphs the atlas rasterised since the process started while executing
 * tasks (tests). */
size_t vr_glyph_atlas_rasterized(void);
/* Ahead of the frames (any thread, any time): rasterise the glyphs of text
 * at size_px (pixels per em) that the atlas lacks, as a task would; they
 * join the pages at the next frame's start. Returns how many it
 * rasterised; glyphs another thread is rasterising are left to it. */
size_t vr_glyph_atlas_warm(const struct vr_text *text, float size_px);
/* Glyphs vr_glyph_atlas_warm rasterised since the process started. */
size_t vr_glyph_atlas_warmed(void);
/* The coverage of a READY glyph as the atlas holds it (tests; out's
 * coverage is the caller's to free); false when the glyph is unknown,
 * still being rasterised or failed. */
bool vr_glyph_atlas_lookup(const struct vr_font_face *face, float size_px,
		uint32_t id, struct vr_glyph_bitmap *out);
/* The corners (top-left, top-right, bottom-left, bottom-right, target
 * pixels) of glyph `index` of a run, its bitmap placed as given. */
void vr_glyph_quad(const struct vr_glyph_run *run, uint32_t index, int32_t left,
		int32_t top, int32_t width, int32_t height, float corners[4][2]);
/* A glyph of a glyph task, resolved in the atlas: where its pixels are
 * (glyph_atlas.c; the Vulkan engine's glyph tasks draw them). */
struct vr_atlas_glyph; /* glyph_atlas.c's */
struct vr_placed_glyph {
	const struct vr_atlas_glyph *glyph;
	const struct vr_glyph_run *run;
	uint32_t index; /* in the run */
	/* where its pixels are: the glyph's, or a copy (see vr_glyphs_gather) */
	struct vr_image *image;
	int32_t x, y;
};
/* Every glyph of a glyph task's runs, READY or FAILED: claims and
 * rasterises those nobody has, waits for those others claimed; fills
 * placed (room for every glyph of the runs) with the READY ones that have
 * pixels. False when out of memory. */
bool vr_glyphs_resolve(const struct vr_task_payload *payload,
		struct vr_placed_glyph *placed, size_t *nplaced);
/* Sorts placed by image, copying glyphs into an image of the task's own
 * so that they lie in at most VR_TASK_MAX_DRAWS images. False when out of
 * memory. */
bool vr_glyphs_gather(struct vr_placed_glyph *placed, size_t n);
/* The six textured vertices (two triangles) of a placed glyph. */
void vr_glyph_vertices(const struct vr_placed_glyph *p,
		struct vr_tex_vertex *v);

/* ---- shadows (shadow.c) ------------------------------------------------- */

/*
 * The pixel grid of a shadow: its shape is rendered into a
 * width x height coverage image whose pixel (0, 0) maps to `origin` of
 * the shadow's frame, a scaled copy of primitive coordinates
 * (frame = scale * primitive - origin); the blurred image is drawn with
 * state.mat * frame^-1.
 */
struct vr_shadow_layout {
	float scale; /* frame pixels per primitive unit */
	float sigma_px;
	int32_t radius; /* kernel taps each side */
	float origin[2];
	int32_t width, height;
	struct vr_mat to_target; /* frame pixels -> target pixels */
	bool nearest; /* frame pixels are target pixels */
};

bool vr_shadow_layout(const struct vr_shadow *shadow,
		struct vr_shadow_layout *layout);
/* The shape's coverage at frame pixel centre (x, y). */
float vr_shadow_shape_coverage(const struct vr_shadow *shadow,
		const struct vr_shadow_layout *layout, float x, float y);
/* The rounded rectangle in the layout's pixels: centre, half size, radii. */
void vr_shadow_shape_in_scratch(const struct vr_shadow *shadow,
		const struct vr_shadow_layout *layout, float c[2], float h[2],
		float radii[4]);
#define VR_SHADOW_MAX_RADIUS 64

#endif
