/*
 * VR_TASK_TRIANGLES: strokes and filled paths, tessellated on the CPU in
 * target pixels (tessellate.c, whose top comment tells how), drawn with
 * the fringe's coverage computed by the fragment shader (struct
 * vr_tri_vertex, tri.frag).
 */
#include <stddef.h>
#include <stdlib.h>
#include "engine_kinds.h"
#include "engine_private.h"
#include "shader_interface.h"
#include "tri_frag.h" /* needs <stdint.h> */
#include "tri_frag_rclip.h"
#include "tri_vert.h"
#include "tri_vert_rclip.h"

#define ATTR(loc, format, field) \
	{ (loc), 0, (format), offsetof(struct vr_tri_vertex, field) }

static const VkVertexInputAttributeDescription tri_attributes[] = {
	ATTR(VR_TRI_LOC_POS, VK_FORMAT_R32G32_SFLOAT, pos),
	ATTR(VR_TRI_LOC_AA, VK_FORMAT_R32G32B32A32_SFLOAT, aa),
	ATTR(VR_TRI_LOC_SHAPE, VK_FORMAT_R32G32_SFLOAT, shape),
	ATTR(VR_TRI_LOC_COLOR, VK_FORMAT_R32G32B32A32_SFLOAT, color),
	ATTR(VR_TRI_LOC_CLIP + 0, VK_FORMAT_R32G32B32A32_SFLOAT, clip.clip),
	ATTR(VR_TRI_LOC_CLIP + 1, VK_FORMAT_R32G32B32A32_SFLOAT, clip.rclips[0].x),
	ATTR(VR_TRI_LOC_CLIP + 2, VK_FORMAT_R32G32B32A32_SFLOAT, clip.rclips[0].y),
	ATTR(VR_TRI_LOC_CLIP + 3, VK_FORMAT_R32G32B32A32_SFLOAT,
			clip.rclips[0].radii),
	ATTR(VR_TRI_LOC_CLIP + 4, VK_FORMAT_R32G32B32A32_SFLOAT, clip.rclips[1].x),
	ATTR(VR_TRI_LOC_CLIP + 5, VK_FORMAT_R32G32B32A32_SFLOAT, clip.rclips[1].y),
	ATTR(VR_TRI_LOC_CLIP + 6, VK_FORMAT_R32G32B32A32_SFLOAT,
			clip.rclips[1].radii),
};

/* Without rounded clips: the attributes and vertex bytes before them. */
const struct vr_pipeline_desc vr_tri_pipeline = {
	.key = VR_PIPELINE_TRIANGLES,
	.vert_spv = tri_vert_spv,
	.vert_size = sizeof(tri_vert_spv),
	.frag_spv = tri_frag_spv,
	.frag_size = sizeof(tri_frag_spv),
	.vertex_stride = offsetof(struct vr_tri_vertex, clip.rclips),
	.attributes = tri_attributes,
	.attribute_count = VR_TRI_LOC_CLIP + 1,
	.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
};

const struct vr_pipeline_desc vr_tri_rclip_pipeline = {
	.key = VR_PIPELINE_TRIANGLES_RCLIP,
	.vert_spv = tri_vert_rclip_spv,
	.vert_size = sizeof(tri_vert_rclip_spv),
	.frag_spv = tri_frag_rclip_spv,
	.frag_size = sizeof(tri_frag_rclip_spv),
	.vertex_stride = sizeof(struct vr_tri_vertex),
	.attributes = tri_attributes,
	.attribute_count = sizeof(tri_attributes) / sizeof(tri_attributes[0]),
	.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
};

bool vr_triangles_execute(struct vr_exec_ctx *ctx, struct vr_task *task) {
	const struct vr_task_payload *payload = task->payload;
	struct vr_task_out *out = task->out;
	/* the batch's geometries all have rounded clips or none (prepare.c) */
	const struct vr_pipeline_desc *desc =
			payload->geometries[0].state.nrclips > 0 ? &vr_tri_rclip_pipeline :
													   &vr_tri_pipeline;
	out->pipeline = vr_exec_pipeline(ctx, desc);
	if (out->pipeline == VK_NULL_HANDLE) {
		return false;
	}
	/* tessellate everything first: one allocation in the ring; in the
	 * pipeline's stride already, so that without rounded clips the
	 * temporary vertices are as small as the ring's (strokes make many) */
	void **parts = calloc(payload->count, sizeof(*parts));
	size_t *counts = calloc(payload->count, sizeof(*counts));
	bool ok = parts != NULL && counts != NULL;
	size_t total = 0;
	for (uint32_t i = 0; ok && i < payload->count; i++) {
		ok = vr_geometry_tessellate_prefix(&payload->geometries[i],
				desc->vertex_stride, &parts[i], &counts[i]);
		total += counts[i];
	}
	if (ok && total > 0) {
		void *v = vr_engine_vertices(ctx, &out->draws[0], total,
				desc->vertex_stride);
		ok = v != NULL;
		for (uint32_t i = 0; ok && i < payload->count; i++) {
			v = vr_engine_copy_vertices(v, desc->vertex_stride, parts[i],
					desc->vertex_stride, counts[i]);
		}
		out->ndraws = 1;
	}
	for (uint32_t i = 0; parts != NULL && i < payload->count; i++) {
		free(parts[i]);
	}
	free(parts);
	free(counts);
	return ok;
}
