/*
 * First use without a stall: what the first frame that draws something new
 * would otherwise pay for, done ahead of it.
 *
 * vr_renderer_warm_pipelines (start-up): every pipeline of the engine's
 * list (engine_kinds.h) is created through the renderer's pipeline cache
 * (pipeline_cache.c), then a small frame draws every primitive kind once
 * into a private target. That frame matters on drivers that compile the
 * final shader variant at the first draw with a given state, not at
 * pipeline creation (llvmpipe, under lavapipe, compiles its fragment
 * variant per blend and texture state when a draw is executed): the
 * frame makes the driver do it now. A second frame draws the same glyphs
 * from the atlas page they moved into, so that the page's texture exists
 * too. Then the cache is written back.
 *
 * vr_renderer_warm_display_list (when a list is committed): the glyphs its
 * text needs are rasterised into the shared atlas (vr_glyph_atlas_warm:
 * the atlas's own claim/publish protocol, so it is safe against workers of
 * a running frame), and the scratch images its shadows need are created
 * (vr_resources_warm_scratch, under the scratch lock). Both run on the
 * caller's thread; text was already shaped (HarfBuzz) when it was
 * recorded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <vitrail/canvas.h>
#include "engine_kinds.h"
#include "engine_private.h"
#include "vk_private.h"

#define WARM_SIZE 64

/* A display list with one command of every kind, and of every state a
 * pipeline's driver variant may depend on (nearest and bilinear
 * sampling, ARGB and XRGB images, rounded clips, blurred shadows). */
struct vr_display_list *vr_warm_list(struct vr_image *argb) {
	struct vr_canvas *c = vr_canvas_begin();
	if (c == NULL) {
		return NULL;
	}
	struct vr_paint fill = { .color = { 0.2f, 0.4f, 0.6f, 0.8f } };
	struct vr_paint stroke = fill;
	stroke.stroke_width = 1.5f;
	stroke.cap = VR_CAP_ROUND;
	stroke.join = VR_JOIN_ROUND;
	struct vr_radii radii = { 3, 3, 3, 3 };
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 4, 4, 20, 12 }, radii, 6.0f,
			(struct vr_color){ 0, 0, 0, 0.5f });
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 30, 4, 10, 10 }, radii, 0.0f,
			(struct vr_color){ 0, 0, 0, 0.5f });
	vr_canvas_draw_rect(c, (struct vr_rectf){ 2, 2, 8, 8 }, &fill);
	vr_canvas_draw_rrect(c, (struct vr_rectf){ 12, 2, 12, 8 }, radii, &stroke);
	vr_canvas_draw_ellipse(c, (struct vr_rectf){ 26, 2, 8, 6 }, &fill);
	vr_canvas_draw_line(c, 2, 20, 30, 24, &stroke);
	struct vr_path *path = vr_path_create();
	if (path != NULL) {
		vr_path_move_to(path, 36, 20);
		vr_path_quad_to(path, 50, 18, 44, 30);
		vr_path_close(path);
		vr_canvas_draw_path(c, path, &fill);
		vr_path_destroy(path);
	}
	struct vr_font font = { .family = "sans-serif", .size = 10, .weight = 400 };
	vr_canvas_draw_text(c, 2, 40, "a", &font, (struct vr_color){ 1, 1, 1, 1 });
	vr_canvas_save(c);
	vr_canvas_translate(c, 20, 40);
	vr_canvas_rotate(c, 0.3f);
	vr_canvas_draw_text(c, 0, 0, "a", &font, (struct vr_color){ 1, 1, 1, 1 });
	vr_canvas_restore(c);
	vr_canvas_draw_image(c, argb, NULL, (struct vr_rectf){ 2, 46, 4, 4 }, 1.0f);
	vr_canvas_draw_image(c, argb, NULL, (struct vr_rectf){ 8, 46, 7, 5 }, 0.5f);
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 20, 46, 16, 16 }, radii);
	vr_canvas_draw_image(c, argb, NULL, (struct vr_rectf){ 20, 46, 16, 16 },
			1.0f);
	return vr_canvas_finish(c);
}

/* One frame drawing warm_list and the tree's own content kinds (solid
 * rects, images nearest and scaled, ARGB and XRGB) into a private
 * target. */
static bool warm_frame(struct vr_renderer *renderer) {
	bool ok = false;
	struct vr_tree *tree = vr_tree_create();
	struct vr_target *target = vr_target_create(renderer, WARM_SIZE, WARM_SIZE);
	struct vr_image *argb = vr_image_create(4, 4, VR_FORMAT_ARGB8888);
	struct vr_image *xrgb = vr_image_create(4, 4, VR_FORMAT_XRGB8888);
	struct vr_display_list *list = NULL;
	if (tree == NULL || target == NULL || argb == NULL || xrgb == NULL) {
		goto out;
	}
	uint32_t pixels[16];
	for (int i = 0; i < 16; i++) {
		pixels[i] = (i & 1) ? 0xff808080u : 0x80400000u;
	}
	vr_image_write(argb, pixels, 16, NULL);
	vr_image_write(xrgb, pixels, 16, NULL);
	list = vr_warm_list(argb);
	struct vr_node *nodes[5] = { NULL };
	for (int i = 0; i < 5; i++) {
		nodes[i] = vr_node_create(tree);
		if (nodes[i] == NULL) {
			goto out;
		}
		vr_node_set_parent(nodes[i], vr_tree_root(tree));
	}
	vr_node_set_rect(nodes[0], 10, 10, (struct vr_color){ 1, 0, 0, 0.5f });
	vr_node_set_image(nodes[1], argb, NULL, 4, 4, VR_TRANSFORM_NORMAL);
	vr_node_set_position(nodes[1], 40, 40);
	vr_node_set_image(nodes[2], xrgb, NULL, 4, 4, VR_TRANSFORM_NORMAL);
	vr_node_set_position(nodes[2], 46, 40);
	vr_node_set_image(nodes[3], argb, NULL, 9, 7, VR_TRANSFORM_NORMAL);
	vr_node_set_position(nodes[3], 40, 48);
	vr_node_set_opacity(nodes[3], 0.5f);
	if (list != NULL) {
		vr_node_set_display_list(nodes[4], list);
	}
	vr_tree_update(tree, NULL);
	struct vr_render_job job = {
		.target = target,
		.clear = { 0, 0, 0, 0 },
	};
	vr_mat_identity(&job.view);
	/* twice: the second frame draws the glyphs from the atlas page the
	 * first frame's moved into, so the page's GPU copy (a 1024 x 1024
	 * texture and its first upload, ~20 ms on lavapipe) is made now too */
	ok = vr_render(renderer, tree, &job, 1);
	vr_node_damage_content(nodes[4], NULL);
	vr_tree_update(tree, NULL);
	ok = vr_render(renderer, tree, &job, 1) && ok;
out:
	vr_display_list_unref(list);
	vr_tree_destroy(tree);
	vr_image_unref(argb);
	vr_image_unref(xrgb);
	vr_target_destroy(target);
	return ok;
}

bool vr_renderer_warm_pipelines(struct vr_renderer *renderer) {
	uint64_t t0 = vr_now_ns();
	bool ok = true;
	for (size_t i = 0; i < vr_engine_pipeline_count; i++) {
		ok = vr_resources_warm_pipeline(renderer, vr_engine_pipelines[i]) && ok;
	}
	uint64_t t1 = vr_now_ns();
	ok = warm_frame(renderer) && ok;
	uint64_t t2 = vr_now_ns();
	vr_pipeline_cache_save(renderer);
	/* what the parallel mode's granularity rests on (granularity.c):
	 * measured once per device, worker count and build, then kept with
	 * the pipeline cache */
	const char *calibrate = getenv("VITRAIL_CALIBRATE");
	if (!renderer->sequential &&
			(calibrate == NULL || strcmp(calibrate, "0") != 0) &&
			!vr_granularity_load(renderer) && vr_renderer_calibrate(renderer)) {
		vr_granularity_save(renderer);
	}
	vr_log(VR_LOG_INFO,
			"warmed %zu pipelines in %.1f ms (cache file: "
			"%s), first draws in %.1f ms",
			vr_engine_pipeline_count, (double)(t1 - t0) / 1e6,
			renderer->pipeline_cache_file != NULL ? "yes" : "none",
			(double)(t2 - t1) / 1e6);
	return ok;
}

/* Scratch sizes the shadows of one list need (a handful at most). */
struct scratch_need {
	int32_t width, height;
	unsigned count;
};

static void need_scratch(struct scratch_need **needs, size_t *n, size_t *cap,
		int32_t width, int32_t height, unsigned count) {
	for (size_t i = 0; i < *n; i++) {
		if ((*needs)[i].width == width && (*needs)[i].height == height) {
			(*needs)[i].count += count;
			return;
		}
	}
	if (vr_grow((void **)needs, cap, *n + 1, sizeof(**needs))) {
		(*needs)[(*n)++] = (struct scratch_need){ width, height, count };
	}
}

void vr_renderer_warm_display_list(struct vr_renderer *renderer,
		const struct vr_display_list *list, const struct vr_mat *to_pixels) {
	if (list == NULL) {
		return;
	}
	struct vr_mat identity;
	vr_mat_identity(&identity);
	if (to_pixels == NULL) {
		to_pixels = &identity;
	}
	struct scratch_need *needs = NULL;
	size_t nneeds = 0, needs_cap = 0;
	for (size_t i = 0; i < list->ncommands; i++) {
		const struct vr_dl_command *cmd = &list->commands[i];
		struct vr_mat m;
		vr_mat_multiply(&m, to_pixels, &cmd->mat);
		if (cmd->op == VR_DL_TEXT) {
			/* as vr_glyph_run_pixel_size() will find it */
			float scale = sqrtf(fabsf(m.a * m.d - m.b * m.c));
			vr_glyph_atlas_warm(cmd->text, cmd->text->size * scale);
		} else if (cmd->op == VR_DL_SHADOW && renderer != NULL) {
			struct vr_shadow shadow = {
				.state.mat = m,
				.rect = cmd->shape.rect,
				.radii = cmd->shape.radii,
				.sigma = cmd->blur / 2.0f,
			};
			struct vr_shadow_layout layout;
			if (vr_shadow_layout(&shadow, &layout)) {
				need_scratch(&needs, &nneeds, &needs_cap, layout.width,
						layout.height, layout.radius > 0 ? 3 : 1);
			}
		}
	}
	for (size_t i = 0; i < nneeds; i++) {
		vr_resources_warm_scratch(renderer, needs[i].width, needs[i].height,
				needs[i].count);
	}
	free(needs);
}
