/*
 * The contract between the three stages of a frame (after Spars, OSDI'25):
 *
 *   1. in-order preparation (caller's thread): one depth-first dry run over
 *      the tree that replays nodes' content with their absolute state,
 *      batches compatible commands, and chains self-contained tasks with
 *      their axis-aligned bounding boxes (prepare.c). Never calls Vulkan.
 *   2. out-of-order execution (worker threads): the stateless engine turns
 *      one task into GPU objects — vertices in the frame's ring, textures,
 *      glyphs, pipelines, descriptor sets — through thread-safe resource
 *      managers (engine_*.c, using the vr_exec_* functions below).
 *   3. in-order commit (the commit thread, sole owner of the frame's
 *      command buffer and of the queue): records finished tasks in chain
 *      order; a finished task may overtake unfinished earlier ones when its
 *      AABB overlaps none of them (look-back VR_COMMIT_LOOKBACK).
 *
 * The sequential mode runs the same three functions on one thread, task
 * by task, without pools.
 *
 * Ownership: the task and primitive types and the vr_engine_* functions
 * belong to the engine (prepare.c, engine_*.c); vr_exec_ctx and the
 * vr_exec_* resource functions belong to the pipeline (vk_render.c and its
 * helpers). Neither side looks into the other's structures.
 *
 * This header is the backend-neutral half (no Vulkan): tasks, payloads
 * and what preparation needs. What execution writes, the vr_exec_*
 * functions, the pipeline's chain and the engine's entry points are the
 * Vulkan half, vk_engine.h.
 */
#ifndef RENDERER_ENGINE_H
#define RENDERER_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "render_private.h"

#define VR_COMMIT_LOOKBACK 4

/* ---- tasks (engine side) ------------------------------------------------ */

enum vr_task_kind {
	VR_TASK_QUADS, /* solid and textured quads: rects, images */
	VR_TASK_SHAPES, /* analytic rounded rects and ellipses (fill/stroke) */
	VR_TASK_TRIANGLES, /* tessellated strokes and paths, AA fringe */
	VR_TASK_GLYPHS, /* glyph runs from the atlas */
	VR_TASK_SHADOW, /* blurred shadow: needs passes of its own */
	VR_TASK_LAYER, /* group opacity: sub-tasks drawn offscreen, composited */
	VR_TASK_KIND_COUNT,
};

struct vr_task_payload; /* engine-private, allocated in the frame arena */
/* What the Vulkan engine's execution writes per task (vk/vk_engine.h);
 * preparation allocates VR_TASK_OUT_SIZE bytes (zeroed) for it, whatever
 * the backend, so that every task has one. */
struct vr_task_out;
#define VR_TASK_OUT_SIZE 152
/* Draws one task's execution makes at most (struct vr_task_out); the
 * glyph atlas gathers a glyph task's glyphs into as many images. */
#define VR_TASK_MAX_DRAWS 4

/*
 * A self-contained task: everything needed to produce its GPU objects,
 * with absolute state, without looking at the tree. Immutable once in the
 * pool; `out` is written only by the worker that executes it.
 */
struct vr_task {
	enum vr_task_kind kind;
	uint32_t index; /* position in the chain (drawing order) */
	uint32_t job; /* which target of the render call */
	struct vr_box aabb; /* target pixels: everything it may touch */
	/* estimated execution cost in units of VR_COST_* (prepare.c): what
	 * the pipeline sizes chunks and chooses the frame's mode by */
	uint32_t cost;
	struct vr_task_payload *payload;
	struct vr_task_out *out; /* filled by vr_engine_execute */
};

/*
 * What preparation builds (engine side). Both live in the frame's memory
 * (vr_chain_alloc), and stay valid until the frame's tasks are committed.
 * Tasks never point into the tree: vr_render_submit returns as soon as
 * preparation pushed the last task (parallel mode), and the caller may
 * then change or destroy nodes, write and release images and display
 * lists at once. What tasks do point into is held until the frame's CPU
 * stage (execution and commit) ended: every image a task names is pinned
 * (vr_chain_hold_image: referenced, and its pixels and pending regions
 * frozen; writes meanwhile go to a copy), every display list whose paths
 * or shaped text a task points to is referenced (vr_chain_hold_list).
 *
 * A payload is a batch of `count` primitives of the task's kind, each with
 * its complete absolute state (target pixels); the primitive types are in
 * engine_private.h except the quads', which are draw tasks. Preparation
 * batches a command into one of the last VR_BATCH_LOOKBACK open tasks of
 * its kind when compatible, never across an overlapping incompatible one,
 * and pushes a task when it leaves that window (or at the job's end).
 */
#define VR_BATCH_LOOKBACK 8

/*
 * Cost estimates (prepare.c, vr_prim_cost): what executing a primitive
 * costs a worker, in abstract units (one unit is about the vertex work of
 * one solid quad), from what it does: per primitive, per image quad, per
 * glyph, per path point (doubled for strokes), per blurred shadow's
 * scratch pixels. The pipeline measures what a unit takes on this machine
 * (vr_renderer_calibrate) and sizes chunks and picks the frame's mode
 * from it; the estimates never change pixels.
 *
 * A batch stops growing at VR_TASK_MAX_COST (a fixed number, not a
 * measured one: batching is the same in every mode and on every machine,
 * so parallel and sequential frames stay bit-identical): heavy batches
 * split into tasks that workers can run side by side. A single primitive
 * heavier than that (a long path, a large blur) stays one task.
 */
#define VR_COST_PRIM 2
#define VR_COST_IMAGE 1 /* more per textured quad */
#define VR_COST_SHAPE 3
#define VR_COST_GLYPH 1 /* per glyph of a run */
#define VR_COST_PATH_POINT 1 /* per 4 path points (x2 stroked) */
#define VR_COST_SHADOW 24 /* + a unit per 4096 scratch pixels */
#define VR_COST_LAYER 24 /* + its sub-tasks' + a unit per 4096 pixels */
#define VR_TASK_MAX_COST 512

struct vr_task_payload {
	uint32_t count; /* primitives */
	uint32_t capacity; /* preparation's bookkeeping */
	union {
		/* VR_TASK_QUADS: one image (or none: solid), one sampler
		 * (nearest), one clip box (task->aabb lies inside it) */
		struct vr_draw_task *quads;
		struct vr_shape *shapes; /* VR_TASK_SHAPES */
		struct vr_geometry *geometries; /* VR_TASK_TRIANGLES */
		struct vr_glyph_run *runs; /* VR_TASK_GLYPHS */
		struct vr_shadow *shadows; /* VR_TASK_SHADOW: count is 1 */
		struct vr_layer *layers; /* VR_TASK_LAYER: count is 1 */
	};
};

/*
 * Group opacity (VR_TASK_LAYER): a node with opacity below 1 whose
 * subtree's draws overlap one another (two of them with intersecting
 * target-pixel bounds, decided by preparation over the whole target, not
 * only the damaged pixels, so one node's decision does not change with
 * damage) is prepared into a sub-chain: the subtree's tasks with the
 * node's opacity taken out (1 inside, descendants' own opacities
 * relative to it) and the view translated so that the layer's bounds
 * (the subtree's bounds inside the target, whole pixels, whatever the
 * damage: a layer's pixels never depend on damage) start at (0, 0). The
 * layer task carries them, the bounds, the box (the damaged part of the
 * bounds: what the sub-tasks' AABBs lie in and what is drawn) and the
 * opacity: a backend draws the sub-tasks into a transparent 8-bit
 * premultiplied image of the bounds' size (at least the box's part; in
 * order; nested layers first), then composites the box's part of that
 * image over the target at the box, pixel for pixel, multiplied by the
 * opacity (8 bits, as an image's). A subtree that does
 * not overlap itself is flattened instead: the opacity multiplies every
 * draw, exactly as before layers existed (the same pixels).
 */
struct vr_layer {
	/* target pixels; bounds' top-left is the sub-tasks' (0, 0) */
	struct vr_box bounds;
	struct vr_box box; /* target pixels inside bounds: drawn (the AABB) */
	uint8_t alpha; /* the group's opacity, 0..255 */
	uint32_t ntasks;
	struct vr_task *tasks; /* drawing order, job-relative to the box */
	/* written by the worker that executes the layer task: which
	 * sub-tasks vr_engine_execute drew (the rest is not recorded) */
	bool *drawn;
};

/* ---- preparation's output (pipeline side) ------------------------------- */

/* One job (target) of the render call, as preparation sees it. */
struct vr_prepare_job {
	uint32_t index; /* goes into vr_task::job */
	struct vr_mat view; /* root coordinates -> target pixels */
	struct vr_box target; /* (0, 0, width, height) */
	struct vr_box extents; /* of the damaged pixels: cull outside it */
};

/* What preparation replayed from the nodes' caches (prepare.c's top). */
struct vr_prepare_stats {
	uint32_t reused_nodes; /* nodes whose cached primitives were kept */
	uint32_t reused_prims; /* the primitives they held */
};

/* Waits until no renderer's CPU stage (a parallel frame from
 * vr_workers_frame_start to the commit thread's end of it) runs,
 * process-wide: preparation's first job may reset the shared glyph atlas
 * (vr_glyph_atlas_begin_frame), which needs no task running anywhere.
 * Any thread; workers.c. */
void vr_cpu_stages_wait_idle(void);
/* A CPU stage that runs on the caller's thread (an inline frame): counts
 * for vr_cpu_stages_wait_idle like a parallel frame's (threads.c). */
void vr_cpu_stage_begin(void);
void vr_cpu_stage_end(void);
/*
 * The small-image atlas (resources.c): images at most VR_ATLAS_MAX_SIDE
 * pixels a side share pages of VR_ATLAS_PAGE_SIZE^2 texels, each image in
 * a cell with a one-texel border repeating its edges (what the sampler's
 * clamp-to-edge would read), so quads of different images batch into one
 * task and one draw per page. Preparation places an image (its renderer's
 * copy of it lives in the cell from then until the image is destroyed and
 * the GPU passed the frames that may sample it); workers upload it and
 * sample the page through vr_exec_image() as usual, at the texel
 * coordinates of the placement. Preparation's thread only. False: the
 * image is not small, or the atlas is full (the draw uses a texture of the
 * image's own).
 *
 * Only pixel-exact draws (nearest sampling) use the atlas: bilinear
 * sampling at an atlas offset can round one step differently from
 * sampling at another, and where an image lands depends on which cells
 * earlier frames freed (parallel and sequential rendering stay
 * bit-identical). Every draw of an image asks (`nearest`: how it
 * samples): a bilinear one decides that the image has a texture of its
 * own, and an image with one is not placed (nearest sampling reads the
 * same texels from either), so where an image is sampled depends only on
 * preparation's order, not on what workers executed meanwhile. One placed
 * and later drawn bilinear has both.
 */
#define VR_ATLAS_PAGE_SIZE 1024
#define VR_ATLAS_MAX_SIDE 62
struct vr_atlas_place {
	uint32_t page; /* 1 + the page's index: batches compare it */
	int32_t x, y; /* the image's texel (0, 0) in the page */
};
#endif
