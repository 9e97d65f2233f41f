/*
 * Display lists: reference counting, and the geometry helpers shared by
 * recording (canvas.c) and preparation (prepare.c).
 */
#include <math.h>
#include <stdlib.h>
#include "display_list.h"

struct vr_display_list *vr_display_list_ref(struct vr_display_list *list) {
	list->refs++;
	return list;
}

static void command_finish(struct vr_dl_command *cmd) {
	switch (cmd->op) {
	case VR_DL_PATH: vr_path_destroy(cmd->path); break;
	case VR_DL_IMAGE: vr_image_unref(cmd->image.image); break;
	case VR_DL_TEXT: vr_text_destroy(cmd->text); break;
	case VR_DL_RECT:
	case VR_DL_RRECT:
	case VR_DL_ELLIPSE:
	case VR_DL_SHADOW: break;
	}
}

void vr_dl_commands_free(struct vr_dl_command *commands, size_t count) {
	for (size_t i = 0; i < count; i++) {
		command_finish(&commands[i]);
	}
	free(commands);
}

void vr_display_list_unref(struct vr_display_list *list) {
	if (list == NULL || --list->refs > 0) {
		return;
	}
	vr_dl_commands_free(list->commands, list->ncommands);
	free(list);
}

struct vr_rectf vr_display_list_bounds(const struct vr_display_list *list) {
	return list->bounds;
}

size_t vr_display_list_command_count(const struct vr_display_list *list) {
	return list->ncommands;
}

size_t vr_display_list_bytes(const struct vr_display_list *list) {
	size_t bytes = sizeof(*list) + list->ncommands * sizeof(*list->commands);
	for (size_t i = 0; i < list->ncommands; i++) {
		const struct vr_dl_command *cmd = &list->commands[i];
		if (cmd->op == VR_DL_PATH && cmd->path != NULL) {
			bytes += sizeof(*cmd->path) + cmd->path->verbs_cap +
					cmd->path->points_cap * 2 * sizeof(float);
		} else if (cmd->op == VR_DL_TEXT && cmd->text != NULL) {
			bytes += sizeof(*cmd->text) +
					cmd->text->count * (sizeof(uint32_t) + 2 * sizeof(float));
		}
	}
	return bytes;
}

struct vr_image *vr_image_load_png(const char *path) {
	int32_t width, height;
	void *pixels = vr_png_read(path, &width, &height);
	if (pixels == NULL) {
		return NULL;
	}
	struct vr_image *image = vr_image_create(width, height, VR_FORMAT_ARGB8888);
	if (image != NULL) {
		vr_image_write(image, pixels, width * 4, NULL);
	}
	free(pixels);
	return image;
}

/* ---- geometry ----------------------------------------------------------- */

bool vr_rectf_empty(const struct vr_rectf *r) {
	return !(r->width > 0.0f) || !(r->height > 0.0f);
}

struct vr_rectf vr_rectf_intersect(const struct vr_rectf *a,
		const struct vr_rectf *b) {
	float x0 = fmaxf(a->x, b->x), y0 = fmaxf(a->y, b->y);
	float x1 = fminf(a->x + a->width, b->x + b->width);
	float y1 = fminf(a->y + a->height, b->y + b->height);
	if (!(x1 > x0) || !(y1 > y0)) {
		return (struct vr_rectf){ 0 };
	}
	return (struct vr_rectf){ x0, y0, x1 - x0, y1 - y0 };
}

struct vr_rectf vr_rectf_map(const struct vr_mat *m, const struct vr_rectf *r) {
	const float xs[4] = { r->x, r->x + r->width, r->x, r->x + r->width };
	const float ys[4] = { r->y, r->y, r->y + r->height, r->y + r->height };
	float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
	for (int i = 0; i < 4; i++) {
		float x, y;
		vr_mat_apply(m, xs[i], ys[i], &x, &y);
		x0 = fminf(x0, x);
		y0 = fminf(y0, y);
		x1 = fmaxf(x1, x);
		y1 = fmaxf(y1, y);
	}
	return (struct vr_rectf){ x0, y0, x1 - x0, y1 - y0 };
}

struct vr_radii vr_radii_fit(struct vr_rectf rect, struct vr_radii r) {
	r.tl = fmaxf(r.tl, 0.0f);
	r.tr = fmaxf(r.tr, 0.0f);
	r.br = fmaxf(r.br, 0.0f);
	r.bl = fmaxf(r.bl, 0.0f);
	float w = fmaxf(rect.width, 0.0f), h = fmaxf(rect.height, 0.0f);
	float scale = 1.0f;
	const float sums[4] = { r.tl + r.tr, r.bl + r.br, r.tl + r.bl,
		r.tr + r.br };
	const float sides[4] = { w, w, h, h };
	for (int i = 0; i < 4; i++) {
		if (sums[i] > sides[i]) {
			scale = fminf(scale, sides[i] / sums[i]);
		}
	}
	if (scale < 1.0f) {
		r.tl *= scale;
		r.tr *= scale;
		r.br *= scale;
		r.bl *= scale;
	}
	return r;
}
