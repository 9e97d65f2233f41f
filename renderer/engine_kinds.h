/*
 * The stateless engine's entry points per task kind, dispatched by
 * vr_engine_execute() and vr_engine_record() (engine_dispatch.c), and the
 * preparation entry point the pipeline calls. Engine side: each kind
 * lives in its own engine_<kind>.c.
 */
#ifndef RENDERER_ENGINE_KINDS_H
#define RENDERER_ENGINE_KINDS_H

#include "engine.h"

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
	const struct vr_task *task, int32_t target_width, int32_t target_height);

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

#endif
