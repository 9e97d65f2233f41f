/*
 * vitrail renderer: a library with no Wayland or wlroots dependency.
 *
 * It owns the unified render tree (nodes with relative state, dirty flags,
 * cached absolute state, damage), a Vulkan renderer that draws the tree into
 * offscreen targets, and a pixman reference renderer of the same tree used
 * by the tests as an oracle.
 *
 * Threading: every function here is called from one thread (the
 * compositor's main thread). The renderer may use threads of its own
 * internally; none of them calls back into the caller. Completion of
 * asynchronous frames reaches the caller through a file descriptor
 * (vr_renderer_get_fd), never through a callback.
 *
 * Pixel format everywhere: 32-bit pixels as DRM_FORMAT_ARGB8888 /
 * XRGB8888 on a little-endian machine (bytes B, G, R, A in memory),
 * premultiplied alpha.
 */
#ifndef VITRAIL_RENDERER_H
#define VITRAIL_RENDERER_H

#include <pixman.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- logging ------------------------------------------------------------ */

enum vr_log_level {
	VR_LOG_ERROR = 1,
	VR_LOG_INFO = 2,
	VR_LOG_DEBUG = 3,
};

typedef void (
		*vr_log_func_t)(enum vr_log_level level, const char *fmt, va_list args);

/* Route the renderer's messages; NULL restores the default (stderr, errors
 * and info only). The callback must be thread-safe. */
void vr_set_log_func(vr_log_func_t func);

/* ---- geometry ----------------------------------------------------------- */

/* 2D affine transform: x' = a*x + c*y + tx, y' = b*x + d*y + ty. */
struct vr_mat {
	float a, b, c, d, tx, ty;
};

struct vr_rectf {
	float x, y, width, height;
};

/* Integer box in some pixel space; width/height <= 0 means empty. */
struct vr_box {
	int32_t x, y, width, height;
};

/* Non-premultiplied colour, components in [0, 1]. */
struct vr_color {
	float r, g, b, a;
};

void vr_mat_identity(struct vr_mat *m);
void vr_mat_translate(struct vr_mat *m, float x, float y);
/* out = a * b (apply b first, then a). out may alias a or b. */
void vr_mat_multiply(struct vr_mat *out, const struct vr_mat *a,
		const struct vr_mat *b);
void vr_mat_apply(const struct vr_mat *m, float x, float y, float *ox,
		float *oy);
/* out = m's inverse; false when m is not invertible. */
bool vr_mat_invert(struct vr_mat *out, const struct vr_mat *m);
/* Smallest integer box containing the transformed rectangle. */
struct vr_box vr_mat_map_rect_bounds(const struct vr_mat *m,
		const struct vr_rectf *r);
/* True when m only translates by whole pixels (no scale/rotation). */
bool vr_mat_is_integer_translation(const struct vr_mat *m);

/* ---- images ------------------------------------------------------------- */

enum vr_format {
	VR_FORMAT_ARGB8888, /* premultiplied alpha */
	VR_FORMAT_XRGB8888, /* alpha ignored, treated as opaque */
};

/* The eight wl_output_transform values, same numbering. */
enum vr_transform {
	VR_TRANSFORM_NORMAL = 0,
	VR_TRANSFORM_90 = 1,
	VR_TRANSFORM_180 = 2,
	VR_TRANSFORM_270 = 3,
	VR_TRANSFORM_FLIPPED = 4,
	VR_TRANSFORM_FLIPPED_90 = 5,
	VR_TRANSFORM_FLIPPED_180 = 6,
	VR_TRANSFORM_FLIPPED_270 = 7,
};

/*
 * An image: CPU pixel store plus (lazily) a GPU copy per renderer. Written
 * from client buffers on commit; the GPU copy of the written region is
 * uploaded by the next render that draws it. Reference counted: a node
 * holding an image keeps a reference.
 */
struct vr_image;

struct vr_image *vr_image_create(int32_t width, int32_t height,
		enum vr_format format);
struct vr_image *vr_image_ref(struct vr_image *image);
void vr_image_unref(struct vr_image *image); /* accepts NULL */
/*
 * Pixels that stay another's: a client's dma-buf that the caller mapped
 * and keeps unchanged (the client does not write a buffer vitrail holds).
 * An image over them is made without a copy; a Vulkan renderer that can
 * import dma-bufs (vr_engine_imports_dmabuf) samples the memory itself
 * through fd, any other engine reads pixels.
 */
struct vr_image_source {
	const void *pixels; /* row 0: 4-byte aligned */
	int32_t stride; /* bytes from row to row: a multiple of 4 */
	int fd; /* the memory (borrowed: duplicated), -1: none */
	uint32_t offset; /* of row 0 in fd */
	/* Called once, on any thread, when nothing reads the pixels any
	 * more: the image is gone and every frame and GPU copy that could
	 * sample them has completed. Not called when the create fails. */
	void (*release)(void *data);
	void *data;
};
/* NULL (logged) on a bad size, format or layout. vr_image_write on it
 * fails. */
struct vr_image *vr_image_create_external(int32_t width, int32_t height,
		enum vr_format format, const struct vr_image_source *source);
/* True for an image made by vr_image_create_external. */
bool vr_image_external(const struct vr_image *image);
/* Copy pixels in (region in image pixels; NULL = whole image). Rows are
 * stride bytes apart; a stride under width * 4 is refused (false, logged,
 * nothing written). */
bool vr_image_write(struct vr_image *image, const void *data, int32_t stride,
		const pixman_region32_t *region);
/* The same for the pixels of box (image pixels, clipped to the image)
 * from data that holds only those: box's top-left pixel first, rows stride
 * bytes apart (at least box->width * 4). A caller filling an image in
 * bands (a band of rows converted on the side) writes each with this. */
bool vr_image_write_box(struct vr_image *image, const void *data,
		int32_t stride, const struct vr_box *box);
/* True while a submitted frame's CPU stage may still read the pixels
 * (vr_render_submit): a vr_image_write now first copies the whole image
 * (copy-on-write). A caller with time to spare writes later instead. */
bool vr_image_in_use(const struct vr_image *image);
/* True while anyone but the caller holds a reference (a node, a frame in
 * flight). An image held by its caller alone can be written whole and
 * reused in place of a new one of its size: no fresh pages to fault in. */
bool vr_image_shared(const struct vr_image *image);
int32_t vr_image_width(const struct vr_image *image);
int32_t vr_image_height(const struct vr_image *image);
enum vr_format vr_image_format(const struct vr_image *image);
/* The CPU pixel store (read-only for callers). */
const void *vr_image_data(const struct vr_image *image, int32_t *stride);

/* ---- render tree -------------------------------------------------------- */

struct vr_tree;
struct vr_node;

struct vr_tree *vr_tree_create(void);
/* Destroys every node still in the tree (attached or not). */
void vr_tree_destroy(struct vr_tree *tree);
/* The root: identity transform, no content; everything drawn hangs below. */
struct vr_node *vr_tree_root(struct vr_tree *tree);
/* Increments on every change that can alter pixels. */
uint64_t vr_tree_generation(const struct vr_tree *tree);

/* A new node, not attached to any parent (not drawn until attached). */
struct vr_node *vr_node_create(struct vr_tree *tree);
/* Detaches the node; its children become detached (not destroyed). The
 * area it covered is damaged. Accepts NULL. */
void vr_node_destroy(struct vr_node *node);

/* Attach as the topmost child of parent (NULL detaches). Children are
 * drawn back to front in list order. */
void vr_node_set_parent(struct vr_node *node, struct vr_node *parent);
/* Restack among siblings; sibling must have the same parent. */
void vr_node_place_above(struct vr_node *node, struct vr_node *sibling);
void vr_node_place_below(struct vr_node *node, struct vr_node *sibling);
void vr_node_raise_to_top(struct vr_node *node);
struct vr_node *vr_node_parent(const struct vr_node *node);

void vr_node_set_enabled(struct vr_node *node, bool enabled);
bool vr_node_enabled(const struct vr_node *node);
/* Relative transform (to the parent). */
void vr_node_set_transform(struct vr_node *node, const struct vr_mat *m);
/* Shorthand: transform = translation (x, y). */
void vr_node_set_position(struct vr_node *node, float x, float y);
/* Clip in the node's local coordinates, applied to its content and all
 * descendants; NULL removes it. Clips are axis-aligned in output space:
 * under rotation the clip is the bounding box of the transformed rect. */
void vr_node_set_clip(struct vr_node *node, const struct vr_rectf *clip);
/* The same clip with rounded corners (radius in local units, scaled down
 * to fit the rectangle; 0: square corners, as vr_node_set_clip). The
 * corners round every draw of the node and its descendants, at render
 * time: moving the node or a descendant needs no new display list. Exact
 * under any transform (rotations and skews included), anti-aliased over
 * about a pixel. Rounded clips nest (ancestors', descendants' and display
 * lists' own clip_rrect): a draw keeps every one's corners. Limits: up to
 * VR_RCLIP_NEST_MAX (4) along a path from the root and VR_RCLIP_MAX (2)
 * per draw, not counting those that cut nothing of the draw or contain
 * another one; past them the outermost clip by their bounding boxes (one
 * log line). */
void vr_node_set_clip_rounded(struct vr_node *node, const struct vr_rectf *clip,
		float radius);
/*
 * Opacity in [0, 1] of the node and its subtree as a group: the subtree is
 * drawn as if into a transparent layer at full opacity, which is then
 * composited with this opacity (overlapping descendants do not show
 * through each other: a card's shadow is not seen through the card).
 * Nested groups multiply. A layer (an offscreen image of the subtree's
 * pixels) is used only when two draws of the subtree may touch the same
 * pixels (decided from their bounds, conservatively); otherwise the
 * opacity multiplies every draw, which gives the same picture
 * (vr_frame_timing::layers counts the layers).
 */
void vr_node_set_opacity(struct vr_node *node, float opacity);

/* Content: at most one per node, covering local (0, 0, width, height). */
void vr_node_set_rect(struct vr_node *node, float width, float height,
		struct vr_color color);
/* Image content: src in image pixels (NULL: the whole image), scaled to
 * width x height; transform is the buffer transform of wl_surface. Takes a
 * reference on the image. */
void vr_node_set_image(struct vr_node *node, struct vr_image *image,
		const struct vr_rectf *src, float width, float height,
		enum vr_transform transform);
/* vr_node_set_image with another image whose pixels are the shown
 * image's outside damage (node-local coordinates), as a client's next
 * buffer is by wl_surface.damage's rule: only damage is redrawn where the
 * node shows an image of the same size and format the same way; anything
 * else is vr_node_set_image's (the bounds redrawn). */
void vr_node_replace_image(struct vr_node *node, struct vr_image *image,
		const struct vr_rectf *src, float width, float height,
		enum vr_transform transform, const pixman_region32_t *damage);
void vr_node_clear_content(struct vr_node *node);
/* The image content changed inside region (node-local coordinates; NULL:
 * everything). */
void vr_node_damage_content(struct vr_node *node,
		const pixman_region32_t *region);

void vr_node_set_user_data(struct vr_node *node, void *data);
void *vr_node_user_data(const struct vr_node *node);

/*
 * Recompute absolute state (transform, clip, opacity, bounds) of dirty
 * subtrees only, and add the damage since the last update to `damage`
 * (root coordinates; may be NULL to discard). Cheap when nothing changed.
 */
void vr_tree_update(struct vr_tree *tree, pixman_region32_t *damage);

/*
 * Shift-and-expose. A move says that the pixels inside box (root or
 * target coordinates, whole pixels) are those of the previous frame moved
 * by (dx, dy): for p and p - (dx, dy) both in box, new(p) = old(p - d).
 * Whoever draws a frame applies its moves to the previous frame's pixels
 * first, then redraws the damage, which holds the rest: the strip the
 * move exposed, what lies above the moved content, and what changed.
 */
struct vr_move {
	struct vr_box box;
	int32_t dx, dy;
};
#define VR_MOVES_MAX 4

/*
 * vr_tree_update, with up to max (<= VR_MOVES_MAX) moves in moves: a
 * change that only moved pixels comes back as a move instead of damage.
 * Two changes qualify, each with nothing else in its subtree changed:
 * - an image node whose source rectangle moved by whole pixels, drawn
 *   1:1 at a whole-pixel position (a scroll region's crop window); the
 *   box is its bounds;
 * - a node translated by whole pixels inside its parent's rectangular
 *   clip (a scrolled subtree); the box is that clip.
 * The pixels under the moved content inside the box must be uniform: an
 * opaque image (XRGB, opacity 1), or a solid opaque rectangle covering
 * the box with nothing else between. What lies above the moved content
 * inside the box is damaged where it was (moved along) and where it is.
 * Moves whose boxes overlap, and moves past max, come back as damage of
 * their box. Returns the number of moves (the rest is in damage).
 */
size_t vr_tree_update_moves(struct vr_tree *tree, pixman_region32_t *damage,
		struct vr_move *moves, size_t max);

/* The strip of move->box that a move exposes (box minus box + d), added
 * to region. */
void vr_move_exposed(const struct vr_move *move, pixman_region32_t *region);
/* Damage that was pending before a move, made to hold after it: inside
 * the box it moves with the pixels (clipped to the box), and the strip
 * the move exposes is added. Outside the box it stays. */
void vr_move_region(const struct vr_move *move, pixman_region32_t *region);
/* Move the pixels of a host image (a8r8g8b8 or x8r8g8b8) inside
 * move->box, clipped to the image. Pixels of the exposed strip keep their
 * old values (they are to be redrawn). */
void vr_move_pixels(pixman_image_t *image, const struct vr_move *move);

/*
 * Pending changes of one destination (a target or a buffer, whose pixels
 * hold some earlier frame): at most one move, then damage. Compose adds
 * a later frame's changes; a move of another box than the pending one
 * turns the pending one into damage of its box.
 */
struct vr_changes {
	bool has_move;
	struct vr_move move;
	pixman_region32_t damage;
};
void vr_changes_init(struct vr_changes *changes);
void vr_changes_fini(struct vr_changes *changes);
/* Nothing pending (the destination holds the latest frame). */
void vr_changes_clear(struct vr_changes *changes);
/* Everything pending (the destination holds nothing usable). */
void vr_changes_damage_all(struct vr_changes *changes,
		const struct vr_box *box);
void vr_changes_add_damage(struct vr_changes *changes,
		const pixman_region32_t *damage);
/* Add one frame's move (NULL: none) and damage (NULL: none). */
void vr_changes_compose(struct vr_changes *changes, const struct vr_move *move,
		const pixman_region32_t *damage);
/* Drop the move, damaging its box instead. */
void vr_changes_flatten(struct vr_changes *changes);

/* After vr_tree_update: the node's drawn bounds in root coordinates
 * (content clipped by its ancestors' clips); false when it draws nothing
 * (no content, disabled or detached ancestor, fully clipped, opacity 0). */
bool vr_node_get_bounds(const struct vr_node *node, struct vr_box *box);

/* After vr_tree_update: whether the node draws its image pixel for pixel:
 * the whole image, not flipped or turned, at its size, moved by whole
 * pixels only, fully opaque (the node's and its ancestors' opacity), and
 * neither clipped nor rounded; *box is where (root coordinates). What
 * direct scan-out asks before showing the image's source instead of a
 * composed frame. */
bool vr_node_draws_image_exactly(const struct vr_node *node,
		struct vr_box *box);

/* After vr_tree_update: calls fn for every drawn node with content whose
 * bounds intersect area (root coordinates), back to front. */
void vr_tree_for_each_drawn(struct vr_tree *tree, const struct vr_box *area,
		void (*fn)(struct vr_node *node, void *data), void *data);

/* After vr_tree_update: the topmost drawn node with content whose bounds
 * intersect area (the last vr_tree_for_each_drawn would call), or NULL;
 * found front to back, so it visits the nodes above it and their
 * ancestors only. */
struct vr_node *vr_tree_top_drawn(struct vr_tree *tree,
		const struct vr_box *area);

/* Number of nodes whose absolute state was recomputed by the last
 * vr_tree_update (for tests of the caching rule). */
size_t vr_tree_last_update_count(const struct vr_tree *tree);

/* ---- Vulkan renderer ---------------------------------------------------- */

struct vr_renderer;
struct vr_target;

struct vr_renderer_options {
	bool validation; /* enable VK_LAYER_KHRONOS_validation when present */
	/* Worker threads of the parallel mode; 0: the default, cores - 1 and
	 * at least 1. */
	int workers;
	/* The sequential mode: the same engine driven the classic way (one
	 * stateful depth-first traversal on the calling thread, no pools),
	 * the baseline of every benchmark. */
	bool sequential;
};

/* NULL (with a logged reason) when no usable Vulkan device exists. Prefers
 * a discrete, then integrated GPU, then a CPU device (lavapipe). */
struct vr_renderer *vr_renderer_create(const struct vr_renderer_options *opts);
void vr_renderer_destroy(struct vr_renderer *renderer); /* accepts NULL */
const char *vr_renderer_device_name(const struct vr_renderer *renderer);
/* Whether the device is a CPU device (a software rasteriser: lavapipe). */
bool vr_renderer_is_software(const struct vr_renderer *renderer);
/* The device's DRM render node's major and minor numbers; false where the
 * driver does not tell (no VK_EXT_physical_device_drm, or no render
 * node). */
bool vr_renderer_render_node(const struct vr_renderer *renderer, int64_t *major,
		int64_t *minor);
/* Change the mode between frames (0 workers: the default count). */
void vr_renderer_set_workers(struct vr_renderer *renderer, int workers);
void vr_renderer_set_sequential(struct vr_renderer *renderer, bool sequential);
int vr_renderer_workers(const struct vr_renderer *renderer);
bool vr_renderer_is_sequential(const struct vr_renderer *renderer);

/*
 * Pipelines before the first frame. Pipelines are otherwise created
 * lazily, by the first task that needs one (its frame pays the compile).
 * This creates every pipeline the engine can need, through a
 * VkPipelineCache kept in $XDG_CACHE_HOME/vitrail/pipeline-cache.bin
 * ($HOME/.cache/vitrail/ without XDG_CACHE_HOME; none when neither is set
 * or writable, or with VITRAIL_PIPELINE_CACHE=0), then draws one small
 * frame of every primitive kind into a private target, so that drivers
 * that compile at the first draw (llvmpipe) do it now, and writes the
 * cache back (atomically; also at vr_renderer_destroy). A cache file
 * from another device or driver, or truncated, is ignored. Call it once
 * at start-up, before the first vr_render; false when a pipeline or the
 * frame failed (logged; rendering still works, lazily).
 */
bool vr_renderer_warm_pipelines(struct vr_renderer *renderer);

/*
 * Granularity of the parallel mode. Preparation estimates each task's
 * execution cost (abstract units: primitives, glyphs, path points, blur
 * area); the pipeline hands tasks to the workers in chunks of about
 * `chunk_cost` units (one handoff per chunk), and runs a frame whose
 * total estimate stays below `parallel_cost` on the calling thread,
 * without any handoff (the frame's mode is VR_FRAME_INLINE). Pixels never
 * depend on either.
 *
 * vr_renderer_calibrate() measures them on this machine for the
 * renderer's worker count: the time of one handoff through the pools
 * (`handoff_ns`), then frames of a fixed calibration scene at two sizes,
 * inline and parallel, alternated, from which the time of a unit
 * (`unit_ns`), the fixed cost of a parallel frame over an inline one
 * (`frame_overhead_ns`) and what parallel saves per unit
 * (`gain_ns_per_unit`) follow:
 *   chunk_cost    = 8 * handoff_ns / unit_ns (a handoff is at most an
 *                   eighth of its chunk's work), at least 1;
 *   parallel_cost = frame_overhead_ns / gain_ns_per_unit; never (UINT32_MAX)
 *                   when parallel saved nothing; but at most
 *                   VR_INLINE_BUDGET_NS / unit_ns: a frame that would
 *                   hold the caller's thread longer goes to the workers
 *                   even where they save nothing (a compositor's main
 *                   loop must not stall: a client buffer's upload counts
 *                   in a frame's cost).
 * The figures are kept per process and worker count (a later renderer
 * with the same count takes them without measuring). warm_pipelines
 * takes them from granularity.txt beside the pipeline cache file (a line
 * per device, driver, worker count, cores online and build), and only
 * when that has no line for its key calibrates and writes one; delete
 * the file to measure again. VITRAIL_CALIBRATE=0 skips both (the test
 * suite's compositors: uncalibrated). Takes 0.1-0.5 s; renders into a private
 * target. Until calibrated a renderer hands every task over on its own and
 * never runs a parallel frame inline (chunk_cost 1, parallel_cost 0).
 */
#define VR_INLINE_BUDGET_NS 1000000.0
struct vr_granularity {
	bool calibrated;
	double handoff_ns;
	double unit_ns;
	double frame_overhead_ns;
	double gain_ns_per_unit;
	uint32_t chunk_cost; /* target units per chunk */
	uint32_t parallel_cost; /* frames below it run inline */
};
bool vr_renderer_calibrate(struct vr_renderer *renderer);
void vr_renderer_get_granularity(const struct vr_renderer *renderer,
		struct vr_granularity *out);
/* Use these figures (tests inject them; `calibrated` is ignored). */
void vr_renderer_set_granularity(struct vr_renderer *renderer,
		const struct vr_granularity *granularity);
/* The decision rule above, from measured figures (tests check it). */
void vr_granularity_derive(struct vr_granularity *g);
/* vr_renderer_warm_display_list() (glyphs and shadows of a display list
 * ahead of its first frame) is in <vitrail/canvas.h>. */

/* An offscreen render target (B8G8R8A8), content persistent across frames
 * (starts transparent black), with a host-visible mirror for readback. */
struct vr_target *vr_target_create(struct vr_renderer *renderer, int32_t width,
		int32_t height);
/* Accepts NULL; first waits for submitted frames that draw into it. */
void vr_target_destroy(struct vr_target *target);
int32_t vr_target_width(const struct vr_target *target);
int32_t vr_target_height(const struct vr_target *target);

/* Frames that may be submitted and not yet retired at once (see
 * vr_render_submit). */
#define VR_FRAMES_IN_FLIGHT 8

enum vr_frame_mode {
	VR_FRAME_SEQUENTIAL, /* the renderer is in sequential mode */
	VR_FRAME_INLINE, /* parallel mode, too small: the caller's thread */
	VR_FRAME_PARALLEL, /* handed to the workers in chunks */
};
/* "seq", "inline", "par" */
const char *vr_frame_mode_name(enum vr_frame_mode mode);

struct vr_frame_timing {
	/* CLOCK_MONOTONIC nanoseconds */
	uint64_t start_ns; /* render call entered */
	uint64_t end_ns; /* pixels readable: the GPU finished the frame (as
		seen by the renderer's completion thread) */
	/* durations in nanoseconds */
	uint64_t prepare_ns; /* traversal, culling, task building */
	uint64_t execute_ns; /* tasks -> GPU objects (uploads, vertices) */
	uint64_t commit_ns; /* command recording and submit */
	uint64_t gpu_ns; /* submit -> frame completed on the GPU */
	uint64_t readback_ns; /* vr_render: making the host mirror readable */
	uint32_t draws; /* draws recorded */
	uint32_t uploads; /* image uploads recorded */
	/* Parallel mode (0 in sequential mode): */
	uint64_t execute_critical_ns; /* busiest worker's execution time */
	uint32_t tasks; /* self-contained tasks built by preparation */
	uint32_t ooo_commits; /* tasks committed ahead of earlier ones */
	uint32_t commit_stalls; /* times the commit thread had to wait */
	/* How the frame ran (every mode): */
	enum vr_frame_mode mode;
	uint32_t chunks; /* handoffs to the workers (0 unless PARALLEL) */
	uint32_t cost; /* preparation's estimate, VR_COST units */
	/* group opacity (vr_node_set_opacity): subtrees drawn into a layer of
	 * their own, nested ones included; 0 when every translucent subtree
	 * was flattened */
	uint32_t layers;
	/* preparation's reuse (every mode; every job of the frame together):
	 * drawn nodes whose primitives were kept from an earlier frame
	 * rather than built again from their content, and those
	 * primitives (VITRAIL_PREPARE_REUSE=0: none) */
	uint32_t reused_nodes;
	uint32_t reused_prims;
	/* The output path: */
	uint32_t dst_rects; /* rectangles copied into job.dst on the GPU */
	bool mirror_updated; /* the host mirror got the redrawn pixels */
	/* CPU copies of the frame's pixels still needed to reach the
	 * caller's buffer: 0 when the GPU wrote them into job.dst, 1 when
	 * the caller copies them out of the host mirror (vr_target_read). */
	uint32_t cpu_copies;
};

/*
 * Host memory the renderer copies a frame's pixels into on the GPU (an
 * output buffer: an mmap'ed shm buffer or dumb buffer), imported through
 * VK_EXT_external_memory_host. The pixels land there once; the caller
 * commits that very memory.
 */
struct vr_dst_buffer;

/* One target to render: its view maps root coordinates to target pixels;
 * only pixels inside damage (target pixels; NULL: all) are redrawn. */
struct vr_render_job {
	struct vr_target *target;
	struct vr_mat view;
	/* applied to the target's pixels first (target pixels), in order;
	 * the damage must hold what they expose (vr_tree_update_moves) */
	const struct vr_move *moves;
	size_t nmoves; /* <= VR_MOVES_MAX */
	const pixman_region32_t *damage;
	struct vr_color clear; /* drawn under everything in damaged pixels */
	/* After the job's pass, the frame copies dst_region (target pixels,
	 * clipped to the target and to dst's size; NULL: the whole target)
	 * of the target's image into dst on the GPU. NULL: no copy. */
	struct vr_dst_buffer *dst;
	const pixman_region32_t *dst_region;
	/* Keep the host mirror up to date as well. The mirror is written
	 * when dst is NULL or update_mirror is set; otherwise it goes stale
	 * in the redrawn pixels and vr_target_read reads those back itself. */
	bool update_mirror;
	struct vr_frame_timing timing; /* filled in */
};

/* Render the tree (after vr_tree_update) into every job's target and wait
 * for the frame: vr_render_submit then vr_frame_wait. On return the
 * targets' host mirrors (and the jobs' dst buffers) hold the new pixels
 * and every job's timing is complete. */
bool vr_render(struct vr_renderer *renderer, struct vr_tree *tree,
		struct vr_render_job *jobs, size_t njobs);

/*
 * Submit a frame without waiting for it. Returns its id (> 0, one more
 * than the previous frame's) or 0 on failure (logged).
 *
 * Preparation runs on the calling thread; the workers execute the tasks
 * and the commit thread records and submits the frame's command buffers.
 * Parallel mode: the call returns as soon as preparation has handed the
 * frame's last task to the workers; execution, recording and submission
 * (the frame's CPU stage) go on in the renderer's threads. Sequential
 * mode: it returns once the frame is submitted. Either way the frame
 * shows the tree as it was during the call, and on return the caller may
 * at once: change the tree, destroy nodes and the tree, write images
 * (vr_image_write; an image the running CPU stage uses is then copied
 * once, the write reaching the next frame), release images and display
 * lists, and reuse or free `jobs`, the damage and dst_region regions.
 * The frame holds what its CPU stage still reads until that stage ends.
 * The next vr_render_submit (and vr_frame_wait, vr_frame_poll,
 * vr_renderer_dispatch, vr_target_read, vr_target_destroy, mode changes)
 * first waits for the previous frame's CPU stage: one runs at a time.
 *
 * What the GPU still reads or writes until the frame completes: the
 * targets' images and mirrors, the jobs' dst buffers (keep their memory
 * mapped and do not read them before completion), GPU copies of images
 * (released images are freed only after the frames that may sample them).
 *
 * Up to VR_FRAMES_IN_FLIGHT frames may be submitted and not yet
 * retired; when all are busy, this call first waits for the oldest one.
 * Frames complete in submission order. jobs[i].timing gets the figures
 * known on return (sequential: every CPU figure; parallel: start_ns and
 * prepare_ns); the complete figures come from vr_frame_get_timing. A
 * failure found after the call returned (a worker's or the commit
 * thread's) is logged, and the frame completes without figures
 * (vr_frame_get_timing false; vr_render returns false).
 */
uint64_t vr_render_submit(struct vr_renderer *renderer, struct vr_tree *tree,
		struct vr_render_job *jobs, size_t njobs);

/* Non-blocking: true when frame `id` has completed on the GPU (its dst
 * buffers and mirrors are readable); retires the resources of every
 * completed frame. An id never submitted is not complete. */
bool vr_frame_poll(struct vr_renderer *renderer, uint64_t id);
/* Wait at most timeout_ns (UINT64_MAX: no limit) for frame `id`; true
 * when it completed. Retires completed frames like vr_frame_poll. */
bool vr_frame_wait(struct vr_renderer *renderer, uint64_t id,
		uint64_t timeout_ns);

/*
 * An eventfd that becomes readable whenever submitted frames complete: a
 * renderer thread ("vr-fence") waits for the frames' fences and writes to
 * it. Add it to the event loop (readable); when it is, call
 * vr_renderer_dispatch, which drains it. The fd belongs to the renderer
 * (closed by vr_renderer_destroy).
 */
int vr_renderer_get_fd(struct vr_renderer *renderer);
/* Drain the fd and retire every completed frame; returns the id of the
 * latest completed frame (every frame up to it is complete), 0 when none
 * has completed yet. Never blocks. */
uint64_t vr_renderer_dispatch(struct vr_renderer *renderer);

/* The timing of job `job` of frame `id` once it completed; false when the
 * frame has not completed (or failed), job is out of range, or the figures
 * are gone: they are kept until VR_FRAMES_IN_FLIGHT later frames have been
 * submitted. */
bool vr_frame_get_timing(struct vr_renderer *renderer, uint64_t id, size_t job,
		struct vr_frame_timing *out);

/* Copy region (target pixels; NULL: all) of the target into dst, which
 * has the target's size and the given stride. Reads the host mirror: it
 * first waits for the last submitted frame that drew into the target,
 * and where the mirror is stale (frames that copied only into a dst
 * buffer), it reads those pixels back from the image synchronously (one
 * small submission and a wait). For screenshots and the fallback path,
 * not for every frame. */
void vr_target_read(struct vr_target *target, const pixman_region32_t *region,
		void *dst, int32_t dst_stride);

/*
 * The device is lost (VK_ERROR_DEVICE_LOST from a fence or a submission):
 * frames in flight completed without their pixels (vr_frame_get_timing
 * false), vr_render_submit fails from now on, and only
 * vr_renderer_destroy is left to do. For fault tests,
 * $VITRAIL_FAULT_DEVICE_LOST=N makes frame N and later report a lost
 * device.
 */
bool vr_renderer_is_lost(struct vr_renderer *renderer);

/* Whether vr_dst_buffer_import can work (VK_EXT_external_memory_host). */
bool vr_renderer_can_import_host(const struct vr_renderer *renderer);
/*
 * Import host memory (B8G8R8A8 pixels, width x height, stride bytes per
 * row, a multiple of 4) as a copy destination. data must be aligned to
 * the device's minImportedHostPointerAlignment (a page on lavapipe; an
 * mmap'ed buffer is); the import covers size rounded up to that
 * alignment, which must be mapped (a mapping covers whole pages). NULL
 * (logged at debug level) when the extension is missing or the pointer
 * or size is unsuitable: the caller falls back to the host mirror.
 */
struct vr_dst_buffer *vr_dst_buffer_import(struct vr_renderer *renderer,
		void *data, size_t size, int32_t width, int32_t height, int32_t stride);
/*
 * Import a LINEAR dma-buf plane (B8G8R8A8 pixels from offset, width x
 * height, stride bytes per row) as a copy destination: on a GPU, memory
 * the frame's copy never takes across the bus (an output buffer the
 * display scans out). fd is the caller's (the import takes a duplicate).
 * NULL (logged at debug level) where the device cannot import it
 * (no dma-buf import on the device, no memory type, a buffer smaller
 * than the plane).
 */
struct vr_dst_buffer *vr_dst_buffer_import_dmabuf(struct vr_renderer *renderer,
		int fd, uint32_t offset, int32_t width, int32_t height, int32_t stride);
/* Accepts NULL. When a submitted frame still writes into the buffer, the
 * Vulkan objects are released after that frame completes; the memory
 * itself must stay mapped (or the dma-buf alive) until then. */
void vr_dst_buffer_destroy(struct vr_dst_buffer *buffer);

/* ---- pixman reference renderer ------------------------------------------ */

/* Render the tree (after vr_tree_update) into dst (a8r8g8b8 or x8r8g8b8)
 * with the same view and clear colour semantics as vr_render, all pixels.
 * Same sampling rule as the Vulkan renderer: nearest when the image maps
 * pixel-exactly, bilinear otherwise. */
void vr_reference_render(struct vr_tree *tree, pixman_image_t *dst,
		const struct vr_mat *view, struct vr_color clear);
/* The same, only the pixels inside region (dst pixels; NULL: all): the
 * others are left as they are. The renderer of last resort (no usable
 * Vulkan device), drawing on the calling thread. */
void vr_reference_render_region(struct vr_tree *tree, pixman_image_t *dst,
		const struct vr_mat *view, struct vr_color clear,
		const pixman_region32_t *region);

/* ---- CPU execution backend (cpu_backend.c) ------------------------------ */

/*
 * The engine's prepared tasks rasterised on the CPU with pixman and span
 * code of its own: the renderer for machines where Vulkan is absent or
 * slow (a software rasteriser such as lavapipe). Same trees, views, clear
 * colours and damage semantics as vr_render and vr_reference_render; the
 * pixels stay within the render tests' tolerances of the reference
 * renderer (tests/test_cpu.c).
 *
 * Threads: a renderer owns a frame thread ("vr-cpu-frame") and a pool of
 * workers - 1 threads ("vr-cpu-N"); preparation runs on the calling
 * thread, then the frame thread and the pool draw horizontal bands of the
 * damaged area in parallel (vr_cpu_render_submit returns before that,
 * vr_cpu_render after). One caller thread per renderer; the tree must not
 * change during a call.
 *
 * Bit-identity: every pixel depends only on the tasks and its position,
 * never on the band or the worker drawing it: the output is the same for
 * any worker count.
 *
 * Shared state (per renderer, only between its own workers): a cache of
 * glyph bitmaps and a cache of blurred shadow masks, kept across frames
 * and trimmed between them.
 */
struct vr_cpu_renderer;

/* workers: threads drawing a frame, the caller included (<= 0: one per
 * online CPU). NULL when threads cannot be started (logged). */
struct vr_cpu_renderer *vr_cpu_renderer_create(int workers);
/* Accepts NULL; joins the pool. */
void vr_cpu_renderer_destroy(struct vr_cpu_renderer *renderer);
int vr_cpu_renderer_workers(const struct vr_cpu_renderer *renderer);
/* Render the tree (after vr_tree_update) into dst (a8r8g8b8 or x8r8g8b8)
 * inside damage (dst pixels; NULL: all of it; past 16 rectangles, their
 * extents): cleared to clear, then drawn. Pixels outside are left as they
 * are. False: out of memory or an unsupported target (logged). The same
 * as vr_cpu_render_submit then vr_cpu_frame_wait. */
bool vr_cpu_render(struct vr_cpu_renderer *renderer, struct vr_tree *tree,
		pixman_image_t *dst, const struct vr_mat *view, struct vr_color clear,
		const pixman_region32_t *damage);

/*
 * The same frame without waiting for it: the CPU engine's side of the
 * asynchronous interface vr_render_submit describes, with the same rules.
 * Preparation runs on the calling thread (the tree as it is during the
 * call); the frame thread ("vr-cpu-frame") and the pool then draw it into
 * dst while the caller goes on: it may change the tree, write images (an
 * image the frame reads is pinned: the write goes to a copy, published
 * when the frame retires; a frame prepared while such a write waits
 * first lets the earlier frames finish), release images and lists.
 * dst is referenced until the frame retires; its pixels must not be read
 * or written meanwhile. Frames execute and complete in submission order;
 * up to VR_FRAMES_IN_FLIGHT are in flight (the call then first waits for
 * the oldest). Returns the frame's id (> 0, one more than the previous)
 * or 0 on failure (logged). Every call of this group is the caller's
 * thread's (the one that owns the tree).
 */
uint64_t vr_cpu_render_submit(struct vr_cpu_renderer *renderer,
		struct vr_tree *tree, pixman_image_t *dst, const struct vr_mat *view,
		struct vr_color clear, const pixman_region32_t *damage);
/* The same, dst's pixels first moved (nmoves <= VR_MOVES_MAX, dst
 * pixels) on the frame thread, before the damage is drawn. */
uint64_t vr_cpu_render_submit_moved(struct vr_cpu_renderer *renderer,
		struct vr_tree *tree, pixman_image_t *dst, const struct vr_mat *view,
		struct vr_color clear, const pixman_region32_t *damage,
		const struct vr_move *moves, size_t nmoves);
/* Readable when frames complete; vr_cpu_renderer_dispatch drains it and
 * retires them, returning the latest completed id (0: none yet). */
int vr_cpu_renderer_get_fd(struct vr_cpu_renderer *renderer);
uint64_t vr_cpu_renderer_dispatch(struct vr_cpu_renderer *renderer);
/* As vr_frame_poll, vr_frame_wait and vr_frame_get_timing (start_ns,
 * prepare_ns on the caller's thread; execute_ns and end_ns on the frame
 * thread; cpu_copies 0: the pixels are written into dst itself). */
bool vr_cpu_frame_poll(struct vr_cpu_renderer *renderer, uint64_t id);
bool vr_cpu_frame_wait(struct vr_cpu_renderer *renderer, uint64_t id,
		uint64_t timeout_ns);
bool vr_cpu_frame_get_timing(struct vr_cpu_renderer *renderer, uint64_t id,
		struct vr_frame_timing *out);

/* ---- one engine (seam.c) ------------------------------------------------ */

/*
 * The one asynchronous interface every output frame goes through, whatever
 * draws it: the Vulkan renderer, the CPU engine, or the reference renderer
 * (the last resort when the CPU engine's threads cannot start: it draws
 * during the submit). Submit returns a frame id; completion comes through
 * the engine's fd, readable when frames complete, and
 * vr_engine_dispatch, which returns the latest completed id (frames
 * complete in submission order); wait and timing as vr_frame_wait and
 * vr_frame_get_timing. The rules on what the caller may do while a frame
 * is in flight are vr_render_submit's. One caller thread (the tree's).
 *
 * An engine wraps a renderer it does not own (destroy the engine first).
 */
struct vr_engine;

struct vr_engine *vr_engine_create_vulkan(struct vr_renderer *renderer);
struct vr_engine *vr_engine_create_cpu(struct vr_cpu_renderer *renderer);
struct vr_engine *vr_engine_create_reference(void);
/* Accepts NULL. The wrapped renderer keeps its frames (destroying it
 * waits for them). */
void vr_engine_destroy(struct vr_engine *engine);
/* "vulkan", "cpu" or "reference" */
const char *vr_engine_name(const struct vr_engine *engine);
/* True: the engine draws into host memory itself (the CPU engine, the
 * reference renderer); false: it wraps the Vulkan renderer. What it means
 * for frames is the engine's business (below): this says only whether the
 * engine holds a Vulkan renderer. */
bool vr_engine_host_images(const struct vr_engine *engine);
/* True: the engine samples a vr_image_create_external image's fd in place
 * (the Vulkan renderer on a device with VK_EXT_external_memory_dma_buf);
 * false: it reads or uploads the image's pixels. */
bool vr_engine_imports_dmabuf(const struct vr_engine *engine);
/* External images whose dma-buf the engine has sampled in place, ever
 * (the others it read or uploaded from their pixels); *reused (NULL: not
 * wanted): how many of those took an earlier image's import again. */
unsigned vr_engine_dmabuf_imports(const struct vr_engine *engine,
		unsigned *reused);

/*
 * Where frames go, the same for every engine.
 *
 * An output (vr_engine_output) is the engine's side of one screen-sized
 * destination: for Vulkan a render target that keeps the newest frame (a
 * frame's move shifts its pixels, and each frame is copied from it into a
 * buffer); a size and nothing more for the engines that draw into host
 * memory.
 *
 * A buffer (vr_engine_buffer) is the caller's host memory, x8r8g8b8
 * (B8G8R8A8 in memory), mapped as long as the buffer lives, that frames
 * are written into: by the engine itself (the CPU engine and the
 * reference renderer draw into it; Vulkan copies into it on the GPU where
 * it could import the memory), or, where vr_engine_buffer_direct says
 * false, by the caller once the frame has completed
 * (vr_engine_output_read of what the frame wrote). The caller keeps what
 * each buffer lacks of the newest frame (vr_changes: the moves and damage
 * of the frames since it was last written, buffer age) and hands it to
 * the frame that writes it next: the engine takes what it needs.
 */
struct vr_engine_output;
struct vr_engine_buffer;

/* NULL on failure (logged). */
struct vr_engine_output *vr_engine_output_create(struct vr_engine *engine,
		int32_t width, int32_t height);
/* Accepts NULL; first waits for submitted frames that draw into it. */
void vr_engine_output_destroy(struct vr_engine_output *output);
int32_t vr_engine_output_width(const struct vr_engine_output *output);
int32_t vr_engine_output_height(const struct vr_engine_output *output);
/*
 * data: width x height pixels, stride bytes per row (a multiple of 4),
 * mapped until the buffer is destroyed and the frames that write it have
 * completed. direct: whether the engine may write the frames into it
 * itself; false asks for the other way (every frame copied out by the
 * caller: the synchronous pipeline's baseline), which the engines that
 * draw into host memory do not have. NULL on failure (logged).
 */
struct vr_engine_buffer *vr_engine_buffer_create(struct vr_engine *engine,
		void *data, int32_t width, int32_t height, int32_t stride, bool direct);
/*
 * The same over a LINEAR dma-buf plane (fd, offset: the plane's; data:
 * its mapping, which the host engines draw into and reads use). Vulkan
 * copies each frame into the dma-buf itself on the GPU where the device
 * imports it (vr_engine_buffer_on_device), else the caller copies each
 * frame out as for a buffer that is not direct. fd is the caller's and
 * must outlive the buffer and its frames. NULL on failure (logged).
 */
struct vr_engine_buffer *vr_engine_buffer_create_dmabuf(
		struct vr_engine *engine, int fd, uint32_t offset, void *data,
		int32_t width, int32_t height, int32_t stride);
/* Accepts NULL. A frame in flight that writes the buffer keeps the
 * engine's objects until it completes (the memory must stay mapped). */
void vr_engine_buffer_destroy(struct vr_engine_buffer *buffer);
/* True: frames are written into the buffer by the engine; false: the
 * caller copies what each frame wrote (the changes' damage left by
 * vr_engine_submit) out of the output once the frame completed. */
bool vr_engine_buffer_direct(const struct vr_engine_buffer *buffer);
/* True: the engine writes the frames into the buffer's dma-buf on the
 * device (vr_engine_buffer_create_dmabuf, imported), not through host
 * memory. */
bool vr_engine_buffer_on_device(const struct vr_engine_buffer *buffer);
/* Copy region (output pixels; NULL: all) of the output's newest frame
 * into data (the output's size, stride bytes per row, a8r8g8b8, opaque).
 * newest: the buffer that frame was written into (the engines that draw
 * into host memory read it; the caller has waited for that frame); NULL:
 * not known. False when there is nothing to read (data untouched). For
 * screenshots and the copy-out path. */
bool vr_engine_output_read(struct vr_engine_output *output,
		struct vr_engine_buffer *newest, const pixman_region32_t *region,
		void *data, int32_t stride);

struct vr_engine_frame {
	struct vr_engine_output *output;
	struct vr_engine_buffer *buffer;
	struct vr_mat view;
	struct vr_color clear;
	/* The output's pixels that only moved since its previous frame
	 * (shift-and-expose, vr_tree_update_moves; NULL: none), and the
	 * output pixels that changed since then, what the move exposed
	 * included (never NULL). */
	const struct vr_move *move;
	const pixman_region32_t *damage;
	/* What the buffer lacks of this frame: the moves and damage of every
	 * frame since it was last written, this one's included. The engine
	 * moves the buffer's pixels and draws its damage (host memory), or
	 * moves its target and copies the damage from there (the moves
	 * flattened into damage). After the submit, its damage is what the
	 * frame writes into the buffer (or what the caller copies out of the
	 * output, where the buffer is not direct); the caller clears it. */
	struct vr_changes *buffer_changes;
	/* Set by the submit, for the frame log: pixels moved and pixels
	 * drawn, in the destination the engine draws into (the buffer, or
	 * the target). */
	uint64_t moved_px, drawn_px;
};

/* 0 on failure (logged). */
uint64_t vr_engine_submit(struct vr_engine *engine, struct vr_tree *tree,
		struct vr_engine_frame *frame);
/* Submit and wait: the frame's timing in *timing (NULL: not wanted). */
bool vr_engine_render(struct vr_engine *engine, struct vr_tree *tree,
		struct vr_engine_frame *frame, struct vr_frame_timing *timing);
int vr_engine_get_fd(struct vr_engine *engine);
uint64_t vr_engine_dispatch(struct vr_engine *engine);
bool vr_engine_wait(struct vr_engine *engine, uint64_t id, uint64_t timeout_ns);
bool vr_engine_get_timing(struct vr_engine *engine, uint64_t id,
		struct vr_frame_timing *out);
/* Vulkan's device was lost (vr_renderer_is_lost); never for the others. */
bool vr_engine_is_lost(struct vr_engine *engine);

/*
 * Which backend draws a UI-like frame faster on this machine: a fixed
 * scene (the granularity calibration's cards, scaled to width x height)
 * rendered whole, the two backends alternated, `rounds` measured frames
 * each after two unmeasured. Vulkan: vr_render into a target of that size,
 * pixels read back (what an output's frame costs: GPU execution and the
 * copy into host memory). CPU: vr_cpu_render into an image, then one copy
 * into another (the output buffer). Medians in nanoseconds; false when a
 * frame failed (logged). The caller's thread; takes rounds * (both frames).
 */
bool vr_backends_measure(struct vr_renderer *vulkan,
		struct vr_cpu_renderer *cpu, int32_t width, int32_t height, int rounds,
		double *vulkan_ns, double *cpu_ns);

/* ---- PNG ---------------------------------------------------------------- */

/* Write BGRA8 premultiplied pixels as an RGBA PNG (un-premultiplied). */
bool vr_png_write(const char *path, const void *data, int32_t width,
		int32_t height, int32_t stride, bool opaque);
/* Read a PNG into malloc'd BGRA8 premultiplied pixels (stride = 4 * w). */
void *vr_png_read(const char *path, int32_t *width, int32_t *height);

/* Compare two BGRA8 images of one size: returns the number of pixels
 * whose largest per-channel difference exceeds tolerance; max_diff gets
 * the largest difference seen. */
size_t vr_pixels_compare(const void *a, int32_t a_stride, const void *b,
		int32_t b_stride, int32_t width, int32_t height, int tolerance,
		int *max_diff);

#endif
