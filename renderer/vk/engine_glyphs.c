/*
 * VR_TASK_GLYPHS: shaped runs drawn as textured quads from the glyph
 * atlas, tinted by their colour (tex.vert, tex.frag). The atlas itself
 * (pages, deltas, rasterisation by the workers that need a glyph, the
 * lock-free lookups) is backend-neutral: glyph_atlas.c, whose top comment
 * tells how it works; each renderer keeps its own GPU copy of a page,
 * uploaded by vr_exec_image.
 */
#include <stdlib.h>
#include "engine_kinds.h"
#include "engine_private.h"
#include "shader_interface.h"
#include "tex_frag.h" /* needs <stdint.h> */
#include "tex_frag_rclip.h"
#include "tex_vert.h"
#include "tex_vert_rclip.h"

#define ATTR(loc, format, field) \
	{ (loc), 0, (format), offsetof(struct vr_tex_vertex, field) }

static const VkVertexInputAttributeDescription tex_attributes[] = {
	ATTR(VR_TEX_LOC_POS, VK_FORMAT_R32G32_SFLOAT, pos),
	ATTR(VR_TEX_LOC_UV, VK_FORMAT_R32G32_SFLOAT, uv),
	ATTR(VR_TEX_LOC_COLOR, VK_FORMAT_R32G32B32A32_SFLOAT, color),
	ATTR(VR_TEX_LOC_CLIP + 0, VK_FORMAT_R32G32B32A32_SFLOAT, clip.clip),
	ATTR(VR_TEX_LOC_CLIP + 1, VK_FORMAT_R32G32B32A32_SFLOAT, clip.rclips[0].x),
	ATTR(VR_TEX_LOC_CLIP + 2, VK_FORMAT_R32G32B32A32_SFLOAT, clip.rclips[0].y),
	ATTR(VR_TEX_LOC_CLIP + 3, VK_FORMAT_R32G32B32A32_SFLOAT,
			clip.rclips[0].radii),
	ATTR(VR_TEX_LOC_CLIP + 4, VK_FORMAT_R32G32B32A32_SFLOAT, clip.rclips[1].x),
	ATTR(VR_TEX_LOC_CLIP + 5, VK_FORMAT_R32G32B32A32_SFLOAT, clip.rclips[1].y),
	ATTR(VR_TEX_LOC_CLIP + 6, VK_FORMAT_R32G32B32A32_SFLOAT,
			clip.rclips[1].radii),
};

/* Without rounded clips: the attributes and vertex bytes before them. */
const struct vr_pipeline_desc vr_textured_pipeline = {
	.key = VR_PIPELINE_TEXTURED,
	.vert_spv = tex_vert_spv,
	.vert_size = sizeof(tex_vert_spv),
	.frag_spv = tex_frag_spv,
	.frag_size = sizeof(tex_frag_spv),
	.vertex_stride = offsetof(struct vr_tex_vertex, clip.rclips),
	.attributes = tex_attributes,
	.attribute_count = VR_TEX_LOC_CLIP + 1,
	.uses_texture = true,
	.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
};

const struct vr_pipeline_desc vr_textured_rclip_pipeline = {
	.key = VR_PIPELINE_TEXTURED_RCLIP,
	.vert_spv = tex_vert_rclip_spv,
	.vert_size = sizeof(tex_vert_rclip_spv),
	.frag_spv = tex_frag_rclip_spv,
	.frag_size = sizeof(tex_frag_rclip_spv),
	.vertex_stride = sizeof(struct vr_tex_vertex),
	.attributes = tex_attributes,
	.attribute_count = sizeof(tex_attributes) / sizeof(tex_attributes[0]),
	.uses_texture = true,
	.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
};

const struct vr_pipeline_desc *vr_textured_pipeline_for(uint32_t nrclips) {
	return nrclips > 0 ? &vr_textured_rclip_pipeline : &vr_textured_pipeline;
}

bool vr_glyphs_execute(struct vr_exec_ctx *ctx, struct vr_task *task) {
	const struct vr_task_payload *payload = task->payload;
	struct vr_task_out *out = task->out;
	/* the batch's runs all have rounded clips or none (prepare.c) */
	const struct vr_pipeline_desc *desc =
			vr_textured_pipeline_for(payload->runs[0].state.nrclips);
	out->pipeline = vr_exec_pipeline(ctx, desc);
	if (out->pipeline == VK_NULL_HANDLE) {
		return false;
	}
	size_t total = 0;
	for (uint32_t i = 0; i < payload->count; i++) {
		total += payload->runs[i].text->count;
	}
	struct vr_placed_glyph *placed = malloc((total + 1) * sizeof(*placed));
	size_t n = 0;
	if (placed == NULL || !vr_glyphs_resolve(payload, placed, &n)) {
		free(placed);
		return false;
	}
	/* one draw per image (page or delta); images are read-only now */
	if (!vr_glyphs_gather(placed, n)) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		free(placed);
		return false;
	}
	bool nearest = payload->runs[0].nearest; /* the batch shares it */
	bool ok = true;
	size_t start = 0;
	out->ndraws = 0;
	while (ok && start < n) {
		struct vr_image *image = placed[start].image;
		size_t end = start;
		while (end < n && placed[end].image == image) {
			end++;
		}
		struct vr_task_draw *draw = &out->draws[out->ndraws++];
		void *v = vr_engine_vertices(ctx, draw, (end - start) * 6,
				desc->vertex_stride);
		draw->set = vr_exec_image(ctx, image, !nearest, NULL);
		ok = v != NULL && draw->set != VK_NULL_HANDLE;
		for (size_t i = start; ok && i < end; i++) {
			struct vr_tex_vertex quad[6];
			vr_glyph_vertices(&placed[i], quad);
			v = vr_engine_copy_vertices(v, desc->vertex_stride, quad,
					sizeof(quad[0]), 6);
		}
		start = end;
	}
	free(placed);
	return ok;
}
