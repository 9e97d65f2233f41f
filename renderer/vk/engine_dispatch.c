/*
 * Every pipeline of the engine's kinds (engine_kinds.h), warmed ahead of
 * the first frame (warm.c). The switch on the task kind, vr_engine_execute
 * and vr_engine_record, is engine_layer.c's: the layer is the kind that
 * executes and records tasks of every kind, its own included.
 */
#include "engine_kinds.h"
#include "engine_private.h"

const struct vr_pipeline_desc *const vr_engine_pipelines[] = {
	&vr_quad_pipeline, /* VR_TASK_QUADS, solid and images */
	/* quads from atlas pages or under rounded clips, glyphs, shadows,
	 * layers; then VR_TASK_SHAPES, VR_TASK_TRIANGLES: each without
	 * rounded clips and with them */
	&vr_textured_pipeline, &vr_textured_rclip_pipeline, &vr_shape_pipeline,
	&vr_shape_rclip_pipeline, &vr_tri_pipeline, &vr_tri_rclip_pipeline,
	&vr_shadow_shape_pipeline, /* VR_TASK_SHADOW, offscreen */
	&vr_shadow_blur_pipeline, /* VR_TASK_SHADOW, offscreen */
};
const size_t vr_engine_pipeline_count =
		sizeof(vr_engine_pipelines) / sizeof(vr_engine_pipelines[0]);
