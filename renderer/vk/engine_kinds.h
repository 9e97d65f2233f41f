/*
 * The stateless engine's entry points per task kind, dispatched by
 * vr_engine_execute() and vr_engine_record() (engine_layer.c), and the
 * preparation entry point the pipeline calls (vk_chain.c). Engine side:
 * each kind lives in its own engine_<kind>.c.
 */
#ifndef RENDERER_ENGINE_KINDS_H
#define RENDERER_ENGINE_KINDS_H

#include "engine_private.h"
#include "vk_engine.h"

/* Pipeline keys (vr_pipeline_desc::key), one per distinct description. */
enum vr_pipeline_key {
	VR_PIPELINE_QUAD = 1,
};

/*
 * Stage 1 for one job: the depth-first dry run over the (updated) tree,
 * appending the job's tasks with vr_chain_push() in drawing order. Runs on
 * the caller's thread; never calls Vulkan. False when the frame failed.
 * stats (optional) is added to.
 */
bool vr_engine_prepare(struct vr_chain *chain, struct vr_tree *tree,
		const struct vr_prepare_job *job, struct vr_prepare_stats *stats);

/* VR_TASK_QUADS (engine_quads.c) */
bool vr_quads_execute(struct vr_exec_ctx *ctx, struct vr_task *task);
void vr_quads_record(VkCommandBuffer cb, VkPipelineLayout layout,
		const struct vr_task *task, int32_t target_width,
		int32_t target_height);

/* VR_TASK_SHAPES (engine_shapes.c), VR_TASK_TRIANGLES (engine_triangles.c),
 * VR_TASK_GLYPHS (engine_glyphs.c), VR_TASK_SHADOW (engine_shadow.c); all
 * four record with vr_engine_record_draws (engine_common.c, declared in
 * engine_private.h with the rest of the engine's internals). */
bool vr_shapes_execute(struct vr_exec_ctx *ctx, struct vr_task *task);
bool vr_triangles_execute(struct vr_exec_ctx *ctx, struct vr_task *task);
bool vr_glyphs_execute(struct vr_exec_ctx *ctx, struct vr_task *task);
bool vr_shadow_execute(struct vr_exec_ctx *ctx, struct vr_task *task);
/* VR_TASK_LAYER (engine_layer.c): records its sub-tasks offscreen, then
 * draws like the four above */
bool vr_layer_execute(struct vr_exec_ctx *ctx, struct vr_task *task);

/*
 * Every pipeline the kinds above can ask vr_exec_pipeline() for, so that
 * vr_renderer_warm_pipelines() can create them all before the first frame.
 * A new pipeline description goes into this list (engine_dispatch.c),
 * or its first use pays the compile again.
 */
extern const struct vr_pipeline_desc vr_quad_pipeline; /* engine_quads.c */
/* The vertex pipelines without rounded clips, and with them (_rclip_,
 * engine_private.h's struct vr_vertex_clip). engine_shapes.c: */
extern const struct vr_pipeline_desc vr_shape_pipeline;
extern const struct vr_pipeline_desc vr_shape_rclip_pipeline;
/* engine_triangles.c */
extern const struct vr_pipeline_desc vr_tri_pipeline;
extern const struct vr_pipeline_desc vr_tri_rclip_pipeline;
/* engine_shadow.c; vr_textured_pipeline and vr_textured_rclip_pipeline:
 * engine_private.h */
extern const struct vr_pipeline_desc vr_shadow_shape_pipeline;
extern const struct vr_pipeline_desc vr_shadow_blur_pipeline;
extern const struct vr_pipeline_desc *const vr_engine_pipelines[];
extern const size_t vr_engine_pipeline_count;

/* ---- what the Vulkan engine's kinds share ------------------------------ */

/* Pipeline keys of the engine (vr_pipeline_desc::key): 'E' in the top
 * byte, the rest distinct per description. */
enum vr_engine_pipeline {
	VR_PIPELINE_SHAPES = 0x45000001,
	VR_PIPELINE_TRIANGLES = 0x45000002,
	VR_PIPELINE_TEXTURED = 0x45000003,
	VR_PIPELINE_SHADOW_SHAPE = 0x45000004, /* offscreen */
	VR_PIPELINE_SHADOW_BLUR = 0x45000005, /* offscreen */
	/* the variants with rounded clips of the first three */
	VR_PIPELINE_SHAPES_RCLIP = 0x45000006,
	VR_PIPELINE_TRIANGLES_RCLIP = 0x45000007,
	VR_PIPELINE_TEXTURED_RCLIP = 0x45000008,
};

/* The pixel -> NDC push constants of a target (or scratch image). */
void vr_engine_push_target(VkCommandBuffer cb, VkPipelineLayout layout,
		int32_t width, int32_t height);
/* Room for count vertices of stride bytes in the frame's vertex memory,
 * drawn by draw; NULL when out of memory. */
void *vr_engine_vertices(struct vr_exec_ctx *ctx, struct vr_task_draw *draw,
		size_t count, size_t stride);
/* vr_engine_record for the vertex-based kinds: the task's pipeline, then
 * its draws. */
void vr_engine_record_draws(VkCommandBuffer cb, VkPipelineLayout layout,
		const struct vr_task *task, int32_t target_width,
		int32_t target_height);

/* Textured quads with clips (tex.vert, tex.frag): glyphs and shadows;
 * the first without rounded clips, the second with them. */
extern const struct vr_pipeline_desc vr_textured_pipeline;
extern const struct vr_pipeline_desc vr_textured_rclip_pipeline;
/* The one of the two for primitives with nrclips rounded clips. */
const struct vr_pipeline_desc *vr_textured_pipeline_for(uint32_t nrclips);

#endif
