/*
 * Where an output is and how layout coordinates map to its buffer's
 * pixels: the lowest part of output/, read by its buffers, frames and
 * everything above.
 */
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>

#include "output/output.h"
#include "server.h"

#include "output/output_internal.h"

bool vt_output_enabled(struct vt_output *output) {
	return output->wlr_output->enabled && !output->soft_disabled;
}

struct wlr_box output_box(struct vt_output *output) {
	struct wlr_box *box = wlr_output_layout_get_box(output->server->layout,
			output->wlr_output);
	return box != NULL ? *box : (struct wlr_box){ 0 };
}

/*
 * Layout coordinates to output buffer pixels: the output's box in the
 * layout, scaled (its logical size times scale is the buffer's size,
 * turned for 90 and 270), then turned into the buffer as wl_output's
 * transform says (wlroots' convention: transform 90 draws the content
 * turned 90 degrees counter-clockwise, so the layout's top-left corner
 * lands at the buffer's bottom-left). In the turned space, of tw x th
 * pixels, a point (x, y) goes to (u, v) = (a x + c y + tx, b x + d y + ty).
 */
struct vr_mat vt_output_view(struct vt_output *output) {
	struct wlr_output *wlr_output = output->wlr_output;
	struct wlr_box box = output_box(output);
	float scale = wlr_output->scale;
	bool turned = wlr_output->transform % 2 == 1;
	float tw = turned ? wlr_output->height : wlr_output->width;
	float th = turned ? wlr_output->width : wlr_output->height;
	struct vr_mat to_scaled = {
		.a = scale,
		.d = scale,
		.tx = -box.x * scale,
		.ty = -box.y * scale,
	};
	struct vr_mat turn;
	switch (wlr_output->transform) {
	case WL_OUTPUT_TRANSFORM_NORMAL:
	default: turn = (struct vr_mat){ .a = 1, .d = 1 }; break;
	case WL_OUTPUT_TRANSFORM_90:
		turn = (struct vr_mat){ .c = 1, .b = -1, .ty = tw };
		break;
	case WL_OUTPUT_TRANSFORM_180:
		turn = (struct vr_mat){ .a = -1, .tx = tw, .d = -1, .ty = th };
		break;
	case WL_OUTPUT_TRANSFORM_270:
		turn = (struct vr_mat){ .c = -1, .tx = th, .b = 1 };
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED:
		turn = (struct vr_mat){ .a = -1, .tx = tw, .d = 1 };
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_90:
		turn = (struct vr_mat){ .c = 1, .b = 1 };
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_180:
		turn = (struct vr_mat){ .a = 1, .d = -1, .ty = th };
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_270:
		turn = (struct vr_mat){ .c = -1, .tx = th, .b = -1, .ty = tw };
		break;
	}
	struct vr_mat view;
	vr_mat_multiply(&view, &turn, &to_scaled);
	return view;
}

struct vr_mat vt_output_upright_view(struct vt_output *output, int *width,
		int *height) {
	struct wlr_output *wlr_output = output->wlr_output;
	struct wlr_box box = output_box(output);
	float scale = wlr_output->scale;
	bool turned = wlr_output->transform % 2 == 1;
	*width = turned ? wlr_output->height : wlr_output->width;
	*height = turned ? wlr_output->width : wlr_output->height;
	return (struct vr_mat){
		.a = scale,
		.d = scale,
		.tx = -box.x * scale,
		.ty = -box.y * scale,
	};
}

/* A region in layout coordinates to the output buffer pixels it covers
 * (every pixel it touches, clipped to the buffer), added to out. */
void output_map_region(struct vt_output *output,
		const pixman_region32_t *layout, pixman_region32_t *out) {
	struct vr_mat view = vt_output_view(output);
	int w = output->wlr_output->width, h = output->wlr_output->height;
	int nrects;
	const pixman_box32_t *rects =
			pixman_region32_rectangles((pixman_region32_t *)layout, &nrects);
	for (int i = 0; i < nrects; i++) {
		struct vr_rectf r = { rects[i].x1, rects[i].y1,
			rects[i].x2 - rects[i].x1, rects[i].y2 - rects[i].y1 };
		struct vr_box b = vr_mat_map_rect_bounds(&view, &r);
		int x1 = b.x < 0 ? 0 : b.x, y1 = b.y < 0 ? 0 : b.y;
		int x2 = b.x + b.width > w ? w : b.x + b.width;
		int y2 = b.y + b.height > h ? h : b.y + b.height;
		if (x1 < x2 && y1 < y2) {
			pixman_region32_union_rect(out, out, x1, y1, x2 - x1, y2 - y1);
		}
	}
}

struct vt_output *vt_output_at(struct vt_server *server, double lx, double ly) {
	struct wlr_output *wlr_output =
			wlr_output_layout_output_at(server->layout, lx, ly);
	return wlr_output != NULL ? wlr_output->data : NULL;
}
