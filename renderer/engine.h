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
 */
#ifndef RENDERER_ENGINE_H
#define RENDERER_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

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

/* Layers in a task: 1 per VR_TASK_LAYER, nested ones included. */
uint32_t vr_task_layer_count(const struct vr_task *task);

/* One draw of a task's vertices (vr_exec_vertices, vr_exec_vertex_buffer). */
struct vr_task_draw {
	VkDescriptorSet set; /* set 0; VK_NULL_HANDLE: none */
	VkBuffer vertex_buffer;
	VkDeviceSize vertex_offset;
	uint32_t vertex_count;
};

#define VR_TASK_MAX_DRAWS 4

/* Written by the worker that executes the task, read by the commit
 * thread; allocated (zeroed) by preparation. */
struct vr_task_out {
	VkPipeline pipeline;
	VkDescriptorSet set; /* quads: set 0 */
	/* shapes, triangles, glyphs (one per atlas image), shadows */
	uint32_t ndraws;
	struct vr_task_draw draws[VR_TASK_MAX_DRAWS];
};

/* ---- execution context (pipeline side) ---------------------------------- */

struct vr_exec_ctx; /* one per worker (or the sequential thread) */

/* Space for `size` bytes of vertex data in this frame's ring buffer
 * (persistently mapped, host-visible); returns the CPU pointer and the
 * byte offset to bind. Lock-free per worker (its own slice). */
void *vr_exec_vertices(struct vr_exec_ctx *ctx, size_t size,
	VkDeviceSize *offset);

/* The descriptor set sampling image's GPU copy, uploading what was written
 * since the last upload through this worker's command buffer (recorded
 * before the frame's draws). A copy being created by another worker is
 * waited for, never created twice. `texels` (image pixels; NULL: all) is
 * what the caller's draws may sample: of a large image (more than
 * 2048x2048 texels, resources.c) only what was written there is uploaded,
 * the rest when a later draw samples it. */
VkDescriptorSet vr_exec_image(struct vr_exec_ctx *ctx, struct vr_image *image,
	bool linear, const struct vr_box *texels);
/* The same for an image preparation placed in the atlas this frame
 * (vr_chain_atlas_place): the set sampling its page, nearest. */
VkDescriptorSet vr_exec_atlas_image(struct vr_exec_ctx *ctx,
	struct vr_image *image);

/* A pipeline for a key the engine defines (vertex layout, shaders,
 * blend): created once on first use — concurrent first uses wait for the
 * one creating it; never compiled under a lock readers need. */
struct vr_pipeline_desc {
	uint32_t key; /* unique per distinct description */
	const uint32_t *vert_spv, *frag_spv;
	size_t vert_size, frag_size; /* bytes */
	uint32_t vertex_stride;
	const VkVertexInputAttributeDescription *attributes;
	uint32_t attribute_count;
	bool uses_texture; /* set 0 binding 0: combined image sampler */
	VkPrimitiveTopology topology;
	bool offscreen; /* for vr_exec_offscreen_pass(), else the frame's */
};
VkPipeline vr_exec_pipeline(struct vr_exec_ctx *ctx,
	const struct vr_pipeline_desc *desc);
VkPipelineLayout vr_exec_pipeline_layout(struct vr_exec_ctx *ctx);

/* Effects that need render passes of their own (the blurred shadow) do
 * them here, not in the frame's pass: this worker's prologue command
 * buffer, outside any render pass, submitted before the frame's draws in
 * the same queue submission. */
VkCommandBuffer vr_exec_prologue(struct vr_exec_ctx *ctx);
/* A colour image (B8G8R8A8 or R8 with format) usable as a render target
 * and sampled texture for this frame only; recycled after its fence. */
struct vr_scratch {
	VkImage image;
	VkImageView view;
	VkFramebuffer framebuffer; /* for vr_exec_offscreen_pass() */
	VkDescriptorSet set; /* sampling it, linear */
	int32_t width, height;
};
bool vr_exec_scratch(struct vr_exec_ctx *ctx, int32_t width, int32_t height,
	struct vr_scratch *out);
/* The render pass scratch framebuffers are compatible with (clear on load,
 * SHADER_READ_ONLY layout at the end). */
VkRenderPass vr_exec_offscreen_pass(struct vr_exec_ctx *ctx);

/* The buffer the offset of this context's latest vr_exec_vertices() call
 * refers to (the frame's ring, or an overflow buffer when the ring is
 * full): store both in the task's out and bind them in vr_engine_record
 * with vkCmdBindVertexBuffers. Offsets are 16-byte aligned. */
VkBuffer vr_exec_vertex_buffer(struct vr_exec_ctx *ctx);
/* The descriptor set of a 1x1 opaque white texture (nearest): solid
 * colours through a textured pipeline. */
VkDescriptorSet vr_exec_white(struct vr_exec_ctx *ctx);

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

/* Where preparation puts its tasks, in drawing order (pipeline-owned). */
struct vr_chain;

/* Frame memory for payloads and outs: zeroed, 16-byte aligned, valid until
 * the frame's tasks are committed, freed all at once. Preparation's thread
 * only. NULL (logged) when out of memory. */
void *vr_chain_alloc(struct vr_chain *chain, size_t size);
/* Waits until no renderer's CPU stage (a parallel frame from
 * vr_workers_frame_start to the commit thread's end of it) runs,
 * process-wide: preparation's first job may reset the shared glyph atlas
 * (vr_glyph_atlas_begin_frame), which needs no task running anywhere.
 * Any thread; workers.c. */
void vr_cpu_stages_wait_idle(void);
/* Hold what the frame's tasks point into until its CPU stage ended (see
 * above); preparation's thread only; once per frame is enough, repeats
 * are cheap. False (logged): out of memory, the frame failed. */
bool vr_chain_hold_image(struct vr_chain *chain, struct vr_image *image);
bool vr_chain_hold_list(struct vr_chain *chain, struct vr_display_list *list);
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
bool vr_chain_atlas_place(struct vr_chain *chain, struct vr_image *image,
	bool nearest, struct vr_atlas_place *out);
/* Append a task (copied; the chain sets `index`; `job` must be the
 * vr_prepare_job's index, jobs in order). Parallel mode: workers may start
 * on it at once. Sequential mode: it is executed and recorded before this
 * returns. False: the frame failed (logged); stop preparing. */
bool vr_chain_push(struct vr_chain *chain, const struct vr_task *task);

/*
 * How the pipeline calls the engine's entry points:
 * - vr_engine_execute: any worker, exactly once per task, with that
 *   worker's context; everything it writes goes into task->out.
 * - vr_engine_record: the commit thread, inside the job's render pass with
 *   the viewport set to the whole target, once per damaged rectangle of
 *   the job that the task's AABB meets, with the scissor already set to
 *   that rectangle intersected with the AABB. The engine binds its
 *   pipeline, descriptor sets, vertex buffers and push constants in every
 *   call (no state is carried between calls) and leaves viewport and
 *   scissor alone. Skipped when vr_engine_execute returned false.
 */

/* ---- engine entry points (engine side) ---------------------------------- */

/* Stage 2: any worker, any order. False: the task draws nothing. */
bool vr_engine_execute(struct vr_exec_ctx *ctx, struct vr_task *task);
/* Stage 3: the commit thread, in drawing order, inside the target's render
 * pass; `target_size` for push constants (pixels -> NDC). */
void vr_engine_record(VkCommandBuffer cb, VkPipelineLayout layout,
	const struct vr_task *task, int32_t target_width, int32_t target_height);

#endif
