/*
 * Private interfaces shared by the renderer's source files. Nothing here is
 * visible to the compositor, which only sees <vitrail/renderer.h>.
 */
#ifndef RENDERER_RENDER_PRIVATE_H
#define RENDERER_RENDER_PRIVATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <vitrail/canvas.h>
#include <vitrail/renderer.h>

/* ---- logging ------------------------------------------------------------ */

#ifdef __GNUC__
#define VR_ATTRIB_PRINTF(start, end) __attribute__((format(printf, start, end)))
#else
#define VR_ATTRIB_PRINTF(start, end)
#endif

/* CLOCK_MONOTONIC nanoseconds (log.c): the clock of every figure. */
uint64_t vr_now_ns(void);

/* threads.c: the renderer's threads yield to the caller's (its event
 * loop): the calling thread runs nicer. */
void vr_thread_yield_to_caller(void);
/* The threads of the process, to make those a driver starts (between
 * two snapshots) yield as well. */
#define VR_TASKS_MAX 512
struct vr_tasks {
	pid_t ids[VR_TASKS_MAX];
	size_t n;
};
bool vr_tasks_snapshot(struct vr_tasks *tasks);
void vr_tasks_yield_new(const struct vr_tasks *before);
void vr_log_(enum vr_log_level level, const char *file, int line,
		const char *fmt, ...) VR_ATTRIB_PRINTF(4, 5);

#define vr_log(level, fmt, ...) \
	vr_log_(level, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

/* ---- intrusive doubly linked list (the one container idiom) ------------- */

struct vr_list {
	struct vr_list *prev, *next;
};

static inline void vr_list_init(struct vr_list *list) {
	list->prev = list;
	list->next = list;
}

/* Insert elm right after list. */
static inline void vr_list_insert(struct vr_list *list, struct vr_list *elm) {
	elm->prev = list;
	elm->next = list->next;
	list->next = elm;
	elm->next->prev = elm;
}

static inline void vr_list_remove(struct vr_list *elm) {
	elm->prev->next = elm->next;
	elm->next->prev = elm->prev;
	elm->next = elm;
	elm->prev = elm;
}

static inline bool vr_list_empty(const struct vr_list *list) {
	return list->next == list;
}

#define vr_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

#define vr_list_for_each(pos, head, type, member) \
	for (type *pos = vr_container_of((head)->next, type, member); \
			&pos->member != (head); \
			pos = vr_container_of(pos->member.next, type, member))

#define vr_list_for_each_reverse(pos, head, type, member) \
	for (type *pos = vr_container_of((head)->prev, type, member); \
			&pos->member != (head); \
			pos = vr_container_of(pos->member.prev, type, member))

#define vr_list_for_each_safe(pos, head, type, member) \
	for (type *pos = vr_container_of((head)->next, type, member), \
			  *pos##_next = vr_container_of(pos->member.next, type, member); \
			&pos->member != (head); pos = pos##_next, \
			  pos##_next = vr_container_of(pos->member.next, type, member))

/* ---- boxes -------------------------------------------------------------- */

static inline bool vr_box_empty(const struct vr_box *box) {
	return box->width <= 0 || box->height <= 0;
}

/* Intersection; an empty result has width = height = 0. */
struct vr_box vr_box_intersect(const struct vr_box *a, const struct vr_box *b);
/* Union of the two boxes' extents (empty boxes are ignored). */
struct vr_box vr_box_union(const struct vr_box *a, const struct vr_box *b);
bool vr_box_equal(const struct vr_box *a, const struct vr_box *b);
bool vr_mat_equal(const struct vr_mat *a, const struct vr_mat *b);

/* ---- images ------------------------------------------------------------- */

/*
 * A GPU copy of an image, owned by one renderer. The image tracks the
 * region written since each copy's last upload.
 */
struct vr_image_copy {
	struct vr_list link; /* vr_image::copies */
	const void *owner; /* the renderer */
	pixman_region32_t pending; /* image pixels written since the upload */
	/* The image is being freed: unlink and release the copy (the owner
	 * frees GPU memory once the GPU is done with it). */
	void (*image_destroyed)(struct vr_image_copy *copy);
	/* an external image's memory, set when the image goes: the owner
	 * drops it (vr_image_memory_unref) when it frees the copy */
	struct vr_image_memory *memory;
};

/* An external image's memory (vr_image_create_external): released to its
 * owner when the image and every GPU copy that outlived it are gone. */
struct vr_image_memory {
	_Atomic int refs; /* atomic: copies are freed on renderer threads */
	int fd; /* a duplicate of the source's, -1: none */
	uint32_t offset;
	void (*release)(void *data);
	void *data;
};

struct vr_image_memory *vr_image_memory_ref(struct vr_image_memory *memory);
/* The Vulkan renderer samples external images' dma-bufs (vk_device.c). */
bool vr_renderer_imports_dmabuf(const struct vr_renderer *renderer);
unsigned vr_renderer_dmabuf_imports(struct vr_renderer *renderer,
		unsigned *reused);
/* Any thread; accepts NULL. */
void vr_image_memory_unref(struct vr_image_memory *memory);

/*
 * Images and frames whose CPU stage outlives vr_render_submit (parallel
 * mode): preparation pins every image a task names (vr_image_pin) until
 * that frame's workers and commit thread are done with it. While an image
 * is pinned, `data` and the copies' pending regions do not change: a
 * vr_image_write goes to `next` (a copy of the pixels, made once) and
 * `deferred`, which the last unpin publishes. All of it is the caller's
 * thread's; workers only read `data` and their copy's `pending` of pinned
 * images.
 */
struct vr_image {
	int refs; /* caller's thread */
	int32_t width, height, stride;
	enum vr_format format;
	/* what uploads read: changed by the caller's thread only while
	 * pins == 0 */
	uint32_t *data;
	int pins; /* caller's thread: frames whose CPU stage may read data */
	uint32_t *next; /* caller's thread: newer pixels written while
		pinned (copy-on-write), NULL otherwise */
	uint32_t *spare; /* caller's thread: the store next was last
		published over, reused by the next copy-on-write (or NULL) */
	/* caller's thread: CPU-engine frames reading next (vr_image_hold_next);
		while there are, a write goes to a newer store */
	struct vr_pixels_hold *next_hold;
	pixman_region32_t deferred; /* caller's thread: written while pinned */
	uint64_t hold_epoch; /* caller's thread: the last frame that pinned it */
	/* an external image's: data is the source's pixels, never written
	 * or freed here; NULL for the image's own pixels. Immutable. */
	struct vr_image_memory *external;
	struct vr_list copies; /* vr_image_copy::link; changed by the caller's
		thread only while pins == 0, by workers (under their renderer's
		images_lock) only while pinned */
};

/* Caller's thread: a reference and a pin (see above); unpin drops both and
 * publishes what was written while pinned. */
void vr_image_pin(struct vr_image *image);
void vr_image_unpin(struct vr_image *image);
/* Caller's thread: a write made while pinned waits for the last unpin to
 * reach data (a frame prepared now would read the older pixels). */
bool vr_image_write_pending(const struct vr_image *image);
/* The pixels of `next` held for frames that must show them while older
 * frames still read `data` (the CPU engine reads images in place): no
 * write changes them while held (it goes to a newer store), and they live
 * until the last release. Caller's thread; px is read by workers. */
struct vr_pixels_hold {
	int refs;
	uint32_t *px;
	size_t size; /* of px, in bytes */
	struct vr_image *image; /* NULL once detached: px is the hold's */
};
/* Caller's thread, the image pinned with a write pending: a reference to
 * the hold of its newest pixels (NULL when out of memory). */
struct vr_pixels_hold *vr_image_hold_next(struct vr_image *image);
void vr_pixels_hold_release(struct vr_pixels_hold *hold);
/* A new epoch for vr_image::hold_epoch and vr_display_list::hold_epoch:
 * one per frame of any renderer, any engine (atomic). */
uint64_t vr_hold_epoch_next(void);

/* Link a new copy, its pending region covering the whole image. */
void vr_image_add_copy(struct vr_image *image, struct vr_image_copy *copy);
struct vr_image_copy *vr_image_find_copy(struct vr_image *image,
		const void *owner);

/* ---- render tree -------------------------------------------------------- */

enum vr_content_type {
	VR_CONTENT_NONE,
	VR_CONTENT_RECT,
	VR_CONTENT_IMAGE,
	VR_CONTENT_DISPLAY_LIST, /* canvas.h; bounds: the list's bounds */
};

enum vr_node_dirty {
	VR_DIRTY_SELF = 1 << 0, /* recompute this node's absolute state */
	VR_DIRTY_SUBTREE = 1 << 1, /* ... and all its descendants' */
	VR_DIRTY_CHILD = 1 << 2, /* some descendant is dirty */
	VR_DIRTY_CONTENT = 1 << 3, /* pixels changed: damage the bounds */
};

/* A rounded rectangle in some coordinates; radii already fitted to it. */
struct vr_rrectf {
	struct vr_rectf rect;
	struct vr_radii radii;
};

/*
 * Rounded clips. A rounded clip is a rounded rectangle in coordinates of
 * its own (the clipping node's, or the canvas state's when it was set)
 * and the affine map from them to its holder's coordinates, so it follows
 * any transform (rotations and skews included), and clips nest: every
 * node keeps the rounded clips of its ancestors (outermost first), up to
 * VR_RCLIP_NEST_MAX; past that the outermost ones clip by their bounding
 * boxes only (a one-time warning).
 */
#define VR_RCLIP_NEST_MAX 4

struct vr_rclip_src {
	struct vr_mat mat; /* rrect's coordinates -> the holder's */
	struct vr_rrectf rrect; /* radii fitted */
};

/*
 * A rounded clip as primitives carry it (target pixels): the rows of the
 * affine map from target pixels to coordinates centred on the rounded
 * rectangle, its half size and its radii (tl, tr, br, bl). The coverage
 * of target pixel centre p is clamp(0.5 - d(Mp) / |A^T n|) where d is the
 * rounded rectangle's signed distance, A the linear part of M and n the
 * distance's gradient (vr_rclip_coverage): distances in pixels, exact
 * under similarities. Laid out as the shaders read it (three vec4).
 * half_w < 0 marks an unused slot (coverage 1).
 */
struct vr_rclip {
	float x[4]; /* a, c, tx, half_w: local x = a px + c py + tx */
	float y[4]; /* b, d, ty, half_h: local y = b px + d py + ty */
	float radii[4];
};

/* Most rounded clips one primitive evaluates per pixel. Preparation
 * drops those that clip nothing of the primitive (its AABB lies where
 * their coverage is 1) and those containing another one of the stack;
 * past VR_RCLIP_MAX the outermost clip by their bounding boxes only (a
 * one-time warning). */
#define VR_RCLIP_MAX 2

/* The rounded clip of rrect mapped into target pixels by to_pixels;
 * false when the map is degenerate. */
bool vr_rclip_init(struct vr_rclip *out, const struct vr_mat *to_pixels,
		const struct vr_rrectf *rrect);
/* The coverage of target pixel centre (x, y) by one rounded clip:
 * keep in step with shaders/coverage.glsl's rclip_coverage. */
float vr_rclip_coverage(const struct vr_rclip *rclip, float x, float y);
/* The rounded clips (target pixels) a primitive covering aabb evaluates,
 * from the stack (outermost first, each src->mat mapping to target
 * pixels): how many it wrote into out (see VR_RCLIP_MAX). */
uint32_t vr_rclips_for(struct vr_rclip out[VR_RCLIP_MAX],
		const struct vr_rclip_src *stack, uint32_t n,
		const struct vr_box *aabb);

struct vr_node_abs {
	bool visible; /* attached to the root through enabled nodes */
	struct vr_mat transform; /* local -> root */
	bool has_clip;
	struct vr_box clip; /* root coordinates */
	/* the rounded clips of the node and its ancestors, outermost first,
	 * each mapping to root coordinates (their bounding boxes are in clip
	 * too) */
	uint32_t nrclips;
	struct vr_rclip_src rclips[VR_RCLIP_NEST_MAX];
	float opacity;
	bool drawn;
	struct vr_box bounds; /* root coordinates, valid when drawn */
	struct vr_box subtree_bounds; /* drawn bounds of the subtree */
};

struct vr_prep_cache; /* prepare.c */

struct vr_node {
	struct vr_tree *tree;
	struct vr_node *parent;
	struct vr_list link; /* vr_node::children */
	struct vr_list children; /* vr_node::link, back to front */
	struct vr_list tree_link; /* vr_tree::nodes */
	void *user_data;

	/* relative state */
	bool enabled;
	struct vr_mat transform;
	bool has_clip;
	struct vr_rectf clip;
	float clip_radius; /* > 0: the clip's corners are rounded */
	float opacity;
	struct {
		enum vr_content_type type;
		float width, height;
		struct vr_color color; /* VR_CONTENT_RECT */
		struct vr_image *image; /* VR_CONTENT_IMAGE, referenced */
		struct vr_rectf src; /* image pixels */
		enum vr_transform transform;
		struct vr_display_list *list; /* VR_CONTENT_DISPLAY_LIST, referenced */
	} content;

	uint32_t dirty; /* enum vr_node_dirty */
	/* Since the last update, every change was a move (see
	 * vr_tree_update_moves): src_moved, the image's source rectangle only
	 * (from src_from); translated, the transform's translation only. */
	bool src_moved, translated;
	float src_from[2];
	bool has_content_damage;
	pixman_region32_t content_damage; /* local coordinates */

	struct vr_node_abs abs; /* cached by vr_tree_update */

	/* Preparation's reuse of the node's primitives (prepare.c): stamp
	 * changes with anything they depend on in the node (its relative
	 * state, content or absolute state); the cache is preparation's
	 * thread's only (the tree's owner), freed with the node or once the
	 * node has not been prepared for a while (vr_tree_prep_begin). */
	uint64_t prep_stamp;
	struct vr_prep_cache *prep_cache;
	uint64_t prep_used; /* the tree's preparation count when last used */
	struct vr_list prep_link; /* the tree's cached nodes, oldest use first */
};

/* Frees a node's preparation cache (prep_cache.c); accepts NULL. */
void vr_prep_cache_destroy(struct vr_prep_cache *cache);
/* The node's cache (set) was used by the current preparation. */
void vr_tree_prep_touch(struct vr_node *node);
/* A preparation of the tree begins: the caches of the nodes no
 * preparation used in the last `keep` ones are freed (a node on no output,
 * hidden, or never damaged again keeps none). */
void vr_tree_prep_begin(struct vr_tree *tree, uint64_t keep);

/* ---- draw tasks (shared by the Vulkan and the reference renderer) -------- */

/*
 * A self-contained description of one draw in target pixels: everything
 * needed to draw it without looking at the tree again.
 */
struct vr_draw_task {
	/* unit square (u, v) in [0, 1]^2 -> target pixels */
	struct vr_mat mat;
	/* unit square -> image pixels (image content only) */
	struct vr_mat uv;
	struct vr_box clip; /* target pixels, inside the target */
	struct vr_box aabb; /* covered target pixels, inside clip */
	/* premultiplied colour, 8 bits per channel; for images every channel
	 * is the opacity (the texel is multiplied by it) */
	uint8_t r, g, b, a;
	struct vr_image *image; /* NULL: solid colour */
	bool nearest; /* the image maps pixel-exactly */
	bool axis_aligned; /* mat keeps the unit square axis-aligned */
	/* rounded clips, target pixels (vr_draw_task_init_image leaves them
	 * off) */
	uint32_t nrclips;
	struct vr_rclip rclips[VR_RCLIP_MAX];
	/* the image's place in the renderer's small-image atlas (preparation,
	 * engine.h): page 0 when it has a texture of its own */
	uint32_t atlas_page;
	int32_t atlas_x, atlas_y;
};

/* False when the node draws nothing inside target (after the view).
 * opacity: the node's absolute one, or the one relative to the group
 * (layer) it is drawn into. */
bool vr_draw_task_init(struct vr_draw_task *task, const struct vr_node *node,
		const struct vr_mat *view, const struct vr_box *target, float opacity);

/* The draw task of an image drawn into the unit square mapped by mat
 * (unit square -> target pixels), src in image pixels, with opacity and
 * the buffer transform; clip in target pixels. False: nothing visible. */
bool vr_draw_task_init_image(struct vr_draw_task *task,
		const struct vr_mat *mat, struct vr_image *image,
		const struct vr_rectf *src, enum vr_transform transform, float opacity,
		const struct vr_box *clip);

/* Premultiplied 8-bit colour of a straight-alpha colour times opacity. */
void vr_color_premultiply8(const struct vr_color *color, float opacity,
		uint8_t *r, uint8_t *g, uint8_t *b, uint8_t *a);

#endif
