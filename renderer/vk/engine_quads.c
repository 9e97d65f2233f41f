/*
 * VR_TASK_QUADS: solid rectangles and images (tree content and display
 * lists' images). A task is a batch of quads sharing one texture (an
 * image's own, an atlas page that small images share, or the 1x1 white
 * texture for solid colours), one sampler and one clip box.
 *
 * A batch of one quad is a 4-vertex strip whose corners come from push
 * constants (quad.vert). Batches of several quads, atlas quads and
 * display-list images under a rounded clip go through the textured
 * pipeline instead: six vertices per quad in the frame's vertex memory,
 * one draw for the whole batch (tex.frag evaluates the clip per pixel;
 * without a rounded clip its coverage is 1 inside the box, as the
 * scissor). lavapipe spends about 0.1 ms per draw that binds a texture
 * of its own and much more past a few hundred of them in one frame, so a
 * frame of 500 small surfaces costs one or two draws, not 500.
 */
#include "engine_kinds.h"
#include "engine_private.h"
#include "quad_frag.h" /* needs <stdint.h> */
#include "quad_vert.h"
#include "shader_interface.h"

struct push_constants {
	float pos_x[4];
	float pos_y[4];
	float uv_x[4];
	float uv_y[4];
	float color[4];
};

_Static_assert(offsetof(struct push_constants, pos_x) == VR_PC_POS_X_OFFSET,
		"push constant layout");
_Static_assert(offsetof(struct push_constants, pos_y) == VR_PC_POS_Y_OFFSET,
		"push constant layout");
_Static_assert(offsetof(struct push_constants, uv_x) == VR_PC_UV_X_OFFSET,
		"push constant layout");
_Static_assert(offsetof(struct push_constants, uv_y) == VR_PC_UV_Y_OFFSET,
		"push constant layout");
_Static_assert(offsetof(struct push_constants, color) == VR_PC_COLOR_OFFSET,
		"push constant layout");
_Static_assert(sizeof(struct push_constants) == VR_PC_SIZE,
		"push constant layout");

const struct vr_pipeline_desc vr_quad_pipeline = {
	.key = VR_PIPELINE_QUAD,
	.vert_spv = quad_vert_spv,
	.vert_size = sizeof(quad_vert_spv),
	.frag_spv = quad_frag_spv,
	.frag_size = sizeof(quad_frag_spv),
	.uses_texture = true,
	.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP,
};

/* ---- execution and recording ----------------------------------------------
 */

/* The image pixels a quad may sample: those under its covered pixels
 * (its AABB, mapped back through the quad into the image), two texels
 * wider for bilinear filtering and float noise. A large image uploads
 * only these (vr_exec_image). */
static struct vr_box sampled_texels(const struct vr_draw_task *t) {
	struct vr_box all = { 0, 0, t->image->width, t->image->height };
	struct vr_mat inverse, to_texels;
	if (!vr_mat_invert(&inverse, &t->mat)) {
		return all;
	}
	vr_mat_multiply(&to_texels, &t->uv, &inverse);
	struct vr_rectf covered = { (float)t->aabb.x, (float)t->aabb.y,
		(float)t->aabb.width, (float)t->aabb.height };
	struct vr_box box = vr_mat_map_rect_bounds(&to_texels, &covered);
	if (vr_box_empty(&box)) {
		return all; /* float trouble: take everything */
	}
	box.x -= 2;
	box.y -= 2;
	box.width += 4;
	box.height += 4;
	return vr_box_intersect(&box, &all);
}

/* Six textured vertices (tex.vert) of a quad. */
static void tex_quad(const struct vr_draw_task *t, struct vr_tex_vertex *v) {
	struct vr_tex_vertex base = {
		.color = { t->r / 255.0f, t->g / 255.0f, t->b / 255.0f, t->a / 255.0f },
	};
	vr_vertex_clip_set(&base.clip, &t->clip, t->rclips, t->nrclips);
	/* texel -> normalised coordinates of the texture sampled: the image's
	 * own, or the atlas page at the image's place */
	float iw = 1.0f, ih = 1.0f, ox = 0.0f, oy = 0.0f;
	if (t->atlas_page != 0) {
		iw = ih = (float)VR_ATLAS_PAGE_SIZE;
		ox = (float)t->atlas_x;
		oy = (float)t->atlas_y;
	} else if (t->image != NULL) {
		iw = (float)t->image->width;
		ih = (float)t->image->height;
	}
	static const int order[6] = { 0, 1, 2, 1, 3, 2 };
	for (int i = 0; i < 6; i++) {
		float u = (order[i] & 1) ? 1.0f : 0.0f;
		float w = (order[i] & 2) ? 1.0f : 0.0f;
		v[i] = base;
		vr_mat_apply(&t->mat, u, w, &v[i].pos[0], &v[i].pos[1]);
		float sx, sy;
		vr_mat_apply(&t->uv, u, w, &sx, &sy);
		v[i].uv[0] = (ox + sx) / iw;
		v[i].uv[1] = (oy + sy) / ih;
	}
}

/* The batch through the textured pipeline, one draw. */
static bool execute_vertices(struct vr_exec_ctx *ctx, struct vr_task *task) {
	const struct vr_task_payload *payload = task->payload;
	const struct vr_draw_task *first = &payload->quads[0];
	struct vr_task_out *out = task->out;
	/* the batch's quads all have rounded clips or none (prepare.c) */
	const struct vr_pipeline_desc *desc =
			vr_textured_pipeline_for(first->nrclips);
	out->pipeline = vr_exec_pipeline(ctx, desc);
	void *v = vr_engine_vertices(ctx, &out->draws[0],
			(size_t)payload->count * 6, desc->vertex_stride);
	if (out->pipeline == VK_NULL_HANDLE || v == NULL) {
		return false;
	}
	VkDescriptorSet set = VK_NULL_HANDLE;
	if (first->image == NULL) {
		set = vr_exec_white(ctx);
	} else if (first->atlas_page == 0) {
		/* one image: what the batch's quads sample of it */
		struct vr_box texels = sampled_texels(first);
		for (uint32_t i = 1; i < payload->count; i++) {
			struct vr_box b = sampled_texels(&payload->quads[i]);
			texels = vr_box_union(&texels, &b);
		}
		set = vr_exec_image(ctx, first->image, !first->nearest, &texels);
	} else {
		/* every image of the page: its upload, if it changed */
		for (uint32_t i = 0; i < payload->count; i++) {
			VkDescriptorSet s =
					vr_exec_atlas_image(ctx, payload->quads[i].image);
			if (s == VK_NULL_HANDLE || (set != VK_NULL_HANDLE && s != set)) {
				return false;
			}
			set = s;
		}
	}
	if (set == VK_NULL_HANDLE) {
		return false;
	}
	out->draws[0].set = set;
	for (uint32_t i = 0; i < payload->count; i++) {
		struct vr_tex_vertex quad[6];
		tex_quad(&payload->quads[i], quad);
		v = vr_engine_copy_vertices(v, desc->vertex_stride, quad,
				sizeof(quad[0]), 6);
	}
	out->ndraws = 1;
	return true;
}

bool vr_quads_execute(struct vr_exec_ctx *ctx, struct vr_task *task) {
	/* a batch shares its texture (image or atlas page), sampler and
	 * rounded clip or not (prepare.c) */
	const struct vr_draw_task *first = &task->payload->quads[0];
	struct vr_task_out *out = task->out;
	if (first->nrclips > 0 || first->atlas_page != 0 ||
			task->payload->count > 1) {
		return execute_vertices(ctx, task);
	}
	out->pipeline = vr_exec_pipeline(ctx, &vr_quad_pipeline);
	if (first->image != NULL) {
		struct vr_box texels = sampled_texels(first);
		out->set = vr_exec_image(ctx, first->image, !first->nearest, &texels);
	} else {
		out->set = vr_exec_white(ctx);
	}
	return out->pipeline != VK_NULL_HANDLE && out->set != VK_NULL_HANDLE;
}

static void push_quad(VkCommandBuffer cb, VkPipelineLayout layout,
		const struct vr_draw_task *t, float sx, float sy) {
	struct push_constants pc = {
		.pos_x = { t->mat.a * sx, t->mat.c * sx, t->mat.tx * sx - 1.0f, 0 },
		.pos_y = { t->mat.b * sy, t->mat.d * sy, t->mat.ty * sy - 1.0f, 0 },
		.color = { t->r / 255.0f, t->g / 255.0f, t->b / 255.0f, t->a / 255.0f },
	};
	if (t->image != NULL) {
		float iw = 1.0f / (float)t->image->width;
		float ih = 1.0f / (float)t->image->height;
		pc.uv_x[0] = t->uv.a * iw;
		pc.uv_x[1] = t->uv.c * iw;
		pc.uv_x[2] = t->uv.tx * iw;
		pc.uv_y[0] = t->uv.b * ih;
		pc.uv_y[1] = t->uv.d * ih;
		pc.uv_y[2] = t->uv.ty * ih;
	}
	vkCmdPushConstants(cb, layout,
			VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
			sizeof(pc), &pc);
	vkCmdDraw(cb, VR_QUAD_VERTEX_COUNT, 1, 0, 0);
}

void vr_quads_record(VkCommandBuffer cb, VkPipelineLayout layout,
		const struct vr_task *task, int32_t target_width,
		int32_t target_height) {
	const struct vr_task_out *out = task->out;
	if (out->ndraws > 0) {
		vr_engine_record_draws(cb, layout, task, target_width, target_height);
		return;
	}
	float sx = 2.0f / (float)target_width, sy = 2.0f / (float)target_height;
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, out->pipeline);
	vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout,
			VR_TEXTURE_SET, 1, &out->set, 0, NULL);
	/* the batch shares its clip box, which the scissor (inside the
	 * task's AABB) enforces */
	const struct vr_task_payload *payload = task->payload;
	for (uint32_t i = 0; i < payload->count; i++) {
		push_quad(cb, layout, &payload->quads[i], sx, sy);
	}
}
