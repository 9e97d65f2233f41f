/*
 * The Vulkan side of the contract between the stages of a frame
 * (engine.h): what a task's execution writes (struct vr_task_out), the
 * execution context's resource functions (vr_exec_*, the pipeline's:
 * vk_render.c and its helpers), the pipeline's chain that preparation
 * pushes into, and the engine's entry points the pipeline calls.
 */
#ifndef RENDERER_VK_ENGINE_H
#define RENDERER_VK_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "engine.h"

/* Layers in a task: 1 per VR_TASK_LAYER, nested ones included. */
uint32_t vr_task_layer_count(const struct vr_task *task);

/* One draw of a task's vertices (vr_exec_vertices, vr_exec_vertex_buffer). */
struct vr_task_draw {
	VkDescriptorSet set; /* set 0; VK_NULL_HANDLE: none */
	VkBuffer vertex_buffer;
	VkDeviceSize vertex_offset;
	uint32_t vertex_count;
};

/* Written by the worker that executes the task, read by the commit
 * thread; allocated (zeroed) by preparation. */
struct vr_task_out {
	VkPipeline pipeline;
	VkDescriptorSet set; /* quads: set 0 */
	/* shapes, triangles, glyphs (one per atlas image), shadows */
	uint32_t ndraws;
	struct vr_task_draw draws[VR_TASK_MAX_DRAWS];
};

_Static_assert(sizeof(struct vr_task_out) <= VR_TASK_OUT_SIZE,
		"VR_TASK_OUT_SIZE too small for struct vr_task_out");

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

/* ---- the pipeline's chain (pipeline side) ------------------------------- */

/* Where preparation puts its tasks, in drawing order (pipeline-owned). */
struct vr_chain;

/* Frame memory for payloads and outs: zeroed, 16-byte aligned, valid until
 * the frame's tasks are committed, freed all at once. Preparation's thread
 * only. NULL (logged) when out of memory. */
void *vr_chain_alloc(struct vr_chain *chain, size_t size);
/* Hold what the frame's tasks point into until its CPU stage ended (see
 * above); preparation's thread only; once per frame is enough, repeats
 * are cheap. False (logged): out of memory, the frame failed. */
bool vr_chain_hold_image(struct vr_chain *chain, struct vr_image *image);
bool vr_chain_hold_list(struct vr_chain *chain, struct vr_display_list *list);
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
		const struct vr_task *task, int32_t target_width,
		int32_t target_height);

#endif
