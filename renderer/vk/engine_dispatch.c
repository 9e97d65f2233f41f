/*
 * vr_engine_execute / vr_engine_record: one switch on the task kind; each
 * kind's functions live in its own engine_<kind>.c (engine_kinds.h).
 */
#include "engine_kinds.h"
#include "engine_private.h"

const struct vr_pipeline_desc *const vr_engine_pipelines[] = {
	&vr_quad_pipeline, /* VR_TASK_QUADS, solid and images */
	/* quads from atlas pages or under rounded clips, glyphs, shadows,
	 * layers; then VR_TASK_SHAPES, VR_TASK_TRIANGLES: each without
	 * rounded clips and with them */
	&vr_textured_pipeline,
	&vr_textured_rclip_pipeline,
	&vr_shape_pipeline,
	&vr_shape_rclip_pipeline,
	&vr_tri_pipeline,
	&vr_tri_rclip_pipeline,
	&vr_shadow_shape_pipeline, /* VR_TASK_SHADOW, offscreen */
	&vr_shadow_blur_pipeline, /* VR_TASK_SHADOW, offscreen */
};
const size_t vr_engine_pipeline_count =
	sizeof(vr_engine_pipelines) / sizeof(vr_engine_pipelines[0]);

/* Preparation (prepare.c) pushing into the pipeline's chain. */
static void *chain_alloc(void *data, size_t size)
{
	return vr_chain_alloc(data, size);
}

static bool chain_push(void *data, const struct vr_task *task)
{
	return vr_chain_push(data, task);
}

static bool chain_hold_image(void *data, struct vr_image *image)
{
	return vr_chain_hold_image(data, image);
}

static bool chain_hold_list(void *data, struct vr_display_list *list)
{
	return vr_chain_hold_list(data, list);
}

static bool chain_atlas_place(void *data, struct vr_image *image,
		bool nearest, struct vr_atlas_place *out)
{
	return vr_chain_atlas_place(data, image, nearest, out);
}

bool vr_engine_prepare(struct vr_chain *chain, struct vr_tree *tree,
		const struct vr_prepare_job *job, struct vr_prepare_stats *stats)
{
	const struct vr_task_sink sink = {
		.alloc = chain_alloc,
		.push = chain_push,
		.hold_image = chain_hold_image,
		.hold_list = chain_hold_list,
		.atlas_place = chain_atlas_place,
		.data = chain,
	};
	const struct vr_prepare_options options = {
		.lookback = VR_BATCH_LOOKBACK,
		.no_reuse = !vr_prepare_reuse_default(),
		.stats = stats,
	};
	return vr_prepare_tasks(&sink, tree, job, &options);
}

bool vr_engine_execute(struct vr_exec_ctx *ctx, struct vr_task *task)
{
	switch (task->kind) {
	case VR_TASK_QUADS:
		return vr_quads_execute(ctx, task);
	case VR_TASK_SHAPES:
		return vr_shapes_execute(ctx, task);
	case VR_TASK_TRIANGLES:
		return vr_triangles_execute(ctx, task);
	case VR_TASK_GLYPHS:
		return vr_glyphs_execute(ctx, task);
	case VR_TASK_SHADOW:
		return vr_shadow_execute(ctx, task);
	case VR_TASK_LAYER:
		return vr_layer_execute(ctx, task);
	case VR_TASK_KIND_COUNT:
		break;
	}
	vr_log(VR_LOG_ERROR, "task %u: kind %d has no engine", task->index,
		(int)task->kind);
	return false;
}

void vr_engine_record(VkCommandBuffer cb, VkPipelineLayout layout,
		const struct vr_task *task, int32_t target_width,
		int32_t target_height)
{
	switch (task->kind) {
	case VR_TASK_QUADS:
		vr_quads_record(cb, layout, task, target_width, target_height);
		return;
	case VR_TASK_SHAPES:
	case VR_TASK_TRIANGLES:
	case VR_TASK_GLYPHS:
	case VR_TASK_SHADOW:
	case VR_TASK_LAYER:
		vr_engine_record_draws(cb, layout, task, target_width,
			target_height);
		return;
	case VR_TASK_KIND_COUNT:
		break;
	}
	/* vr_engine_execute refused it: never recorded */
}
