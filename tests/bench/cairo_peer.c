/*
 * Cairo replay of the benchmark's scenes (see cairo_peer.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cairo_peer.h"

#ifndef BENCH_HAVE_CAIRO

bool cairo_peer_available(void) {
	return false;
}

struct cairo_peer *cairo_peer_create(struct bench_scene *scene) {
	return NULL;
}

void cairo_peer_destroy(struct cairo_peer *peer) {
}

void cairo_peer_cold(struct bench_scene *scene) {
}

bool cairo_peer_render(struct cairo_peer *peer) {
	return false;
}

const void *cairo_peer_pixels(struct cairo_peer *peer, size_t output,
		int32_t *stride) {
	return NULL;
}

#else

#include <cairo.h>

#define TAU 6.28318530717958647692

struct font_face {
	const char *family; /* interned */
	bool bold;
	cairo_font_face_t *face;
};

/* Text shaped once per op, as an application keeps its layouts. */
struct glyph_run {
	const struct bench_op *op; /* NULL: a free slot */
	cairo_glyph_t *glyphs;
	int count;
};

struct cairo_peer {
	struct bench_scene *scene;
	struct glyph_run *runs; /* open addressing on op */
	size_t runs_cap, runs_len;
	cairo_surface_t *surfaces[BENCH_MAX_OUTPUTS];
	struct font_face fonts[16];
	size_t nfonts;
	/* shadow scratch */
	uint8_t *blur_tmp;
	size_t blur_tmp_size;
};

bool cairo_peer_available(void) {
	return true;
}

static void surface_destroy(void *peer) {
	cairo_surface_destroy(peer);
}

static void surface_dirty(void *peer) {
	cairo_surface_mark_dirty(peer);
}

/* The image's pixels wrapped without a copy (same layout: premultiplied
 * BGRA in native-endian 32-bit words). */
static cairo_surface_t *image_surface(struct bench_image *image) {
	if (image->peer != NULL) {
		return image->peer;
	}
	int32_t stride;
	const void *data = vr_image_data(image->image, &stride);
	cairo_format_t format =
			vr_image_format(image->image) == VR_FORMAT_XRGB8888 ?
			CAIRO_FORMAT_RGB24 :
			CAIRO_FORMAT_ARGB32;
	cairo_surface_t *surface = cairo_image_surface_create_for_data(
			(unsigned char *)(uintptr_t)data, format,
			vr_image_width(image->image), vr_image_height(image->image),
			stride);
	image->peer = surface;
	image->peer_destroy = surface_destroy;
	image->peer_dirty = surface_dirty;
	return surface;
}

struct cairo_peer *cairo_peer_create(struct bench_scene *scene) {
	struct cairo_peer *peer = calloc(1, sizeof(*peer));
	if (peer == NULL) {
		return NULL;
	}
	peer->scene = scene;
	for (size_t i = 0; i < scene->noutputs; i++) {
		peer->surfaces[i] = cairo_image_surface_create(CAIRO_FORMAT_ARGB32,
				scene->outputs[i].width, scene->outputs[i].height);
		if (cairo_surface_status(peer->surfaces[i]) != CAIRO_STATUS_SUCCESS) {
			cairo_peer_destroy(peer);
			return NULL;
		}
	}
	return peer;
}

void cairo_peer_destroy(struct cairo_peer *peer) {
	if (peer == NULL) {
		return;
	}
	for (size_t i = 0; i < BENCH_MAX_OUTPUTS; i++) {
		if (peer->surfaces[i] != NULL) {
			cairo_surface_destroy(peer->surfaces[i]);
		}
	}
	for (size_t i = 0; i < peer->nfonts; i++) {
		cairo_font_face_destroy(peer->fonts[i].face);
	}
	for (size_t i = 0; i < peer->runs_cap; i++) {
		if (peer->runs[i].op != NULL) {
			cairo_glyph_free(peer->runs[i].glyphs);
		}
	}
	free(peer->runs);
	free(peer->blur_tmp);
	free(peer);
}

const void *cairo_peer_pixels(struct cairo_peer *peer, size_t output,
		int32_t *stride) {
	cairo_surface_t *surface = peer->surfaces[output];
	cairo_surface_flush(surface);
	*stride = cairo_image_surface_get_stride(surface);
	return cairo_image_surface_get_data(surface);
}

static cairo_font_face_t *font_face(struct cairo_peer *peer,
		const struct vr_font *font) {
	bool bold = font->weight >= 600;
	for (size_t i = 0; i < peer->nfonts; i++) {
		if (peer->fonts[i].family == font->family &&
				peer->fonts[i].bold == bold) {
			return peer->fonts[i].face;
		}
	}
	cairo_font_face_t *face =
			cairo_toy_font_face_create(font->family, CAIRO_FONT_SLANT_NORMAL,
					bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	if (peer->nfonts < sizeof(peer->fonts) / sizeof(peer->fonts[0])) {
		peer->fonts[peer->nfonts++] =
				(struct font_face){ font->family, bold, face };
	}
	return face;
}

static size_t run_slot(const struct glyph_run *runs, size_t cap,
		const struct bench_op *op) {
	size_t i =
			(size_t)(((uintptr_t)op >> 3) * 0x9e3779b97f4a7c15ull) & (cap - 1);
	while (runs[i].op != NULL && runs[i].op != op) {
		i = (i + 1) & (cap - 1);
	}
	return i;
}

/* The op's glyph run (shaped on first use), NULL when out of memory. */
static struct glyph_run *glyph_run(struct cairo_peer *peer, cairo_t *cr,
		const struct bench_op *op) {
	if (2 * (peer->runs_len + 1) > peer->runs_cap) {
		size_t cap = peer->runs_cap == 0 ? 256 : 2 * peer->runs_cap;
		struct glyph_run *runs = calloc(cap, sizeof(*runs));
		if (runs == NULL) {
			return NULL;
		}
		for (size_t i = 0; i < peer->runs_cap; i++) {
			if (peer->runs[i].op != NULL) {
				runs[run_slot(runs, cap, peer->runs[i].op)] = peer->runs[i];
			}
		}
		free(peer->runs);
		peer->runs = runs;
		peer->runs_cap = cap;
	}
	struct glyph_run *run =
			&peer->runs[run_slot(peer->runs, peer->runs_cap, op)];
	if (run->op == NULL) {
		cairo_glyph_t *glyphs = NULL;
		int count = 0;
		if (cairo_scaled_font_text_to_glyphs(cairo_get_scaled_font(cr),
					op->v[0], op->v[1], op->text, -1, &glyphs, &count, NULL,
					NULL, NULL) != CAIRO_STATUS_SUCCESS) {
			return NULL;
		}
		*run = (struct glyph_run){ op, glyphs, count };
		peer->runs_len++;
	}
	return run;
}

static void rrect_path(cairo_t *cr, struct vr_rectf r, struct vr_radii radii) {
	float limit = fminf(r.width, r.height) / 2.0f;
	double tl = fminf(radii.tl, limit), tr = fminf(radii.tr, limit);
	double br = fminf(radii.br, limit), bl = fminf(radii.bl, limit);
	double x0 = r.x, y0 = r.y, x1 = r.x + r.width, y1 = r.y + r.height;
	cairo_new_sub_path(cr);
	cairo_arc(cr, x1 - tr, y0 + tr, tr, -TAU / 4, 0);
	cairo_arc(cr, x1 - br, y1 - br, br, 0, TAU / 4);
	cairo_arc(cr, x0 + bl, y1 - bl, bl, TAU / 4, TAU / 2);
	cairo_arc(cr, x0 + tl, y0 + tl, tl, TAU / 2, TAU * 3 / 4);
	cairo_close_path(cr);
}

static void set_color(cairo_t *cr, struct vr_color c, float opacity) {
	cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * opacity);
}

/* Fill or stroke the current path with paint. */
static void paint_path(cairo_t *cr, const struct vr_paint *paint,
		float opacity) {
	set_color(cr, paint->color, opacity);
	if (paint->stroke_width <= 0.0f) {
		cairo_set_fill_rule(cr,
				paint->fill_rule == VR_FILL_EVEN_ODD ?
						CAIRO_FILL_RULE_EVEN_ODD :
						CAIRO_FILL_RULE_WINDING);
		cairo_fill(cr);
		return;
	}
	static const cairo_line_join_t joins[] = {
		[VR_JOIN_MITER] = CAIRO_LINE_JOIN_MITER,
		[VR_JOIN_ROUND] = CAIRO_LINE_JOIN_ROUND,
		[VR_JOIN_BEVEL] = CAIRO_LINE_JOIN_BEVEL,
	};
	static const cairo_line_cap_t caps[] = {
		[VR_CAP_BUTT] = CAIRO_LINE_CAP_BUTT,
		[VR_CAP_ROUND] = CAIRO_LINE_CAP_ROUND,
		[VR_CAP_SQUARE] = CAIRO_LINE_CAP_SQUARE,
	};
	cairo_set_line_width(cr, paint->stroke_width);
	cairo_set_line_join(cr, joins[paint->join]);
	cairo_set_line_cap(cr, caps[paint->cap]);
	cairo_set_miter_limit(cr,
			paint->miter_limit > 0.0f ? paint->miter_limit : 4.0);
	cairo_stroke(cr);
}

static void path_of(cairo_t *cr, const struct bench_op *op) {
	cairo_new_path(cr);
	for (size_t i = 0; i < op->path_len; i++) {
		const float *p = op->path[i].p;
		switch (op->path[i].verb) {
		case BENCH_PATH_MOVE: cairo_move_to(cr, p[0], p[1]); break;
		case BENCH_PATH_LINE: cairo_line_to(cr, p[0], p[1]); break;
		case BENCH_PATH_QUAD: {
			double x0, y0;
			if (!cairo_has_current_point(cr)) {
				cairo_move_to(cr, p[0], p[1]);
			}
			cairo_get_current_point(cr, &x0, &y0);
			cairo_curve_to(cr, x0 + 2.0 / 3.0 * (p[0] - x0),
					y0 + 2.0 / 3.0 * (p[1] - y0),
					p[2] + 2.0 / 3.0 * (p[0] - p[2]),
					p[3] + 2.0 / 3.0 * (p[1] - p[3]), p[2], p[3]);
			break;
		}
		case BENCH_PATH_CUBIC:
			if (!cairo_has_current_point(cr)) {
				cairo_move_to(cr, p[0], p[1]);
			}
			cairo_curve_to(cr, p[0], p[1], p[2], p[3], p[4], p[5]);
			break;
		case BENCH_PATH_CLOSE: cairo_close_path(cr); break;
		}
	}
}

/* Three box blurs approximate a Gaussian (the SVG filter recipe). */
static void box_blur_pass(const uint8_t *src, uint8_t *dst, int32_t count,
		int32_t step, int32_t line_step, int32_t lines, int32_t radius) {
	int32_t size = 2 * radius + 1;
	for (int32_t l = 0; l < lines; l++) {
		const uint8_t *s = src + (size_t)l * (size_t)line_step;
		uint8_t *d = dst + (size_t)l * (size_t)line_step;
		int32_t sum = 0;
		for (int32_t i = -radius; i <= radius; i++) {
			sum += i >= 0 && i < count ? s[(size_t)i * (size_t)step] : 0;
		}
		for (int32_t i = 0; i < count; i++) {
			d[(size_t)i * (size_t)step] = (uint8_t)(sum / size);
			int32_t out = i - radius, in = i + radius + 1;
			sum -= out >= 0 ? s[(size_t)out * (size_t)step] : 0;
			sum += in < count ? s[(size_t)in * (size_t)step] : 0;
		}
	}
}

static void draw_shadow(struct cairo_peer *peer, cairo_t *cr,
		const struct bench_op *op, float opacity) {
	double sigma = op->v[0] / 2.0;
	int32_t pad = (int32_t)ceil(3.0 * sigma);
	int32_t w = (int32_t)ceil(op->rect.width) + 2 * pad;
	int32_t h = (int32_t)ceil(op->rect.height) + 2 * pad;
	if (w <= 0 || h <= 0) {
		return;
	}
	/* a blur nobody sees is not computed */
	double cx0, cy0, cx1, cy1;
	cairo_clip_extents(cr, &cx0, &cy0, &cx1, &cy1);
	if (op->rect.x - pad >= cx1 || op->rect.y - pad >= cy1 ||
			op->rect.x - pad + w <= cx0 || op->rect.y - pad + h <= cy0) {
		return;
	}
	cairo_surface_t *mask = cairo_image_surface_create(CAIRO_FORMAT_A8, w, h);
	cairo_t *mcr = cairo_create(mask);
	rrect_path(mcr,
			(struct vr_rectf){ (float)pad, (float)pad, op->rect.width,
					op->rect.height },
			op->radii);
	cairo_set_source_rgba(mcr, 0, 0, 0, 1);
	cairo_fill(mcr);
	cairo_destroy(mcr);
	cairo_surface_flush(mask);
	int32_t radius = (int32_t)floor(sigma * 3.0 * sqrt(TAU) / 8.0 + 0.5);
	if (radius > 0) {
		int32_t stride = cairo_image_surface_get_stride(mask);
		uint8_t *data = cairo_image_surface_get_data(mask);
		size_t size = (size_t)stride * (size_t)h;
		if (peer->blur_tmp_size < size) {
			free(peer->blur_tmp);
			peer->blur_tmp = malloc(size);
			peer->blur_tmp_size = peer->blur_tmp != NULL ? size : 0;
		}
		if (peer->blur_tmp != NULL) {
			for (int pass = 0; pass < 3; pass++) {
				box_blur_pass(data, peer->blur_tmp, w, 1, stride, h, radius);
				box_blur_pass(peer->blur_tmp, data, h, stride, 1, w, radius);
			}
		}
		cairo_surface_mark_dirty(mask);
	}
	set_color(cr, op->color, opacity);
	cairo_mask_surface(cr, mask, op->rect.x - (float)pad,
			op->rect.y - (float)pad);
	cairo_surface_destroy(mask);
}

static void draw_image(cairo_t *cr, const struct bench_op *op, float opacity) {
	cairo_surface_t *surface = image_surface(op->image);
	struct vr_rectf src = op->has_src ?
			op->src :
			(struct vr_rectf){ 0, 0, (float)vr_image_width(op->image->image),
				(float)vr_image_height(op->image->image) };
	if (src.width <= 0.0f || src.height <= 0.0f) {
		return;
	}
	cairo_save(cr);
	cairo_rectangle(cr, op->rect.x, op->rect.y, op->rect.width,
			op->rect.height);
	cairo_clip(cr);
	cairo_translate(cr, op->rect.x, op->rect.y);
	cairo_scale(cr, op->rect.width / src.width, op->rect.height / src.height);
	cairo_set_source_surface(cr, surface, -src.x, -src.y);
	cairo_pattern_t *pattern = cairo_get_source(cr);
	bool exact = op->rect.width == src.width && op->rect.height == src.height;
	cairo_pattern_set_filter(pattern,
			exact ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_BILINEAR);
	cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD);
	cairo_paint_with_alpha(cr, op->v[0] * opacity);
	cairo_restore(cr);
}

static void play(struct cairo_peer *peer, cairo_t *cr,
		const struct bench_dl *dl, float opacity) {
	int depth = 0;
	for (size_t i = 0; i < dl->len; i++) {
		const struct bench_op *op = &dl->ops[i];
		switch (op->type) {
		case BENCH_OP_SAVE:
			cairo_save(cr);
			depth++;
			break;
		case BENCH_OP_RESTORE:
			if (depth > 0) {
				cairo_restore(cr);
				depth--;
			}
			break;
		case BENCH_OP_TRANSLATE: cairo_translate(cr, op->v[0], op->v[1]); break;
		case BENCH_OP_SCALE: cairo_scale(cr, op->v[0], op->v[1]); break;
		case BENCH_OP_ROTATE: cairo_rotate(cr, op->v[0]); break;
		case BENCH_OP_CLIP_RECT:
			cairo_rectangle(cr, op->rect.x, op->rect.y, op->rect.width,
					op->rect.height);
			cairo_clip(cr);
			break;
		case BENCH_OP_CLIP_RRECT:
			rrect_path(cr, op->rect, op->radii);
			cairo_clip(cr);
			break;
		case BENCH_OP_RECT:
		case BENCH_OP_PLACEHOLDER:
			cairo_rectangle(cr, op->rect.x, op->rect.y, op->rect.width,
					op->rect.height);
			paint_path(cr, &op->paint, opacity);
			break;
		case BENCH_OP_RRECT:
			rrect_path(cr, op->rect, op->radii);
			paint_path(cr, &op->paint, opacity);
			break;
		case BENCH_OP_ELLIPSE:
			if (op->rect.width <= 0.0f || op->rect.height <= 0.0f) {
				break;
			}
			cairo_save(cr);
			cairo_translate(cr, op->rect.x + op->rect.width / 2.0f,
					op->rect.y + op->rect.height / 2.0f);
			cairo_scale(cr, op->rect.width / 2.0f, op->rect.height / 2.0f);
			cairo_new_path(cr);
			cairo_arc(cr, 0, 0, 1, 0, TAU);
			cairo_restore(cr);
			paint_path(cr, &op->paint, opacity);
			break;
		case BENCH_OP_LINE:
			cairo_move_to(cr, op->v[0], op->v[1]);
			cairo_line_to(cr, op->v[2], op->v[3]);
			paint_path(cr, &op->paint, opacity);
			break;
		case BENCH_OP_POLYLINE:
			cairo_new_path(cr);
			for (size_t p = 0; p < op->count; p++) {
				cairo_line_to(cr, op->points[2 * p], op->points[2 * p + 1]);
			}
			if (op->closed) {
				cairo_close_path(cr);
			}
			paint_path(cr, &op->paint, opacity);
			break;
		case BENCH_OP_PATH:
			path_of(cr, op);
			paint_path(cr, &op->paint, opacity);
			break;
		case BENCH_OP_IMAGE: draw_image(cr, op, opacity); break;
		case BENCH_OP_TEXT: {
			cairo_set_font_face(cr, font_face(peer, &op->font));
			cairo_set_font_size(cr, op->font.size);
			set_color(cr, op->color, opacity);
			struct glyph_run *run = glyph_run(peer, cr, op);
			if (run != NULL) {
				cairo_show_glyphs(cr, run->glyphs, run->count);
			}
			break;
		}
		case BENCH_OP_SHADOW: draw_shadow(peer, cr, op, opacity); break;
		}
	}
	while (depth-- > 0) {
		cairo_restore(cr);
	}
}

void cairo_peer_cold(struct bench_scene *scene) {
	for (size_t i = 0; i < scene->nimages; i++) {
		struct bench_image *image = scene->images[i];
		if (image->peer_destroy != NULL) {
			image->peer_destroy(image->peer);
		}
		image->peer = NULL;
		image->peer_destroy = NULL;
		image->peer_dirty = NULL;
	}
	cairo_debug_reset_static_data();
}

static void draw_node(struct cairo_peer *peer, cairo_t *cr,
		const struct bench_node *node, float opacity) {
	opacity *= node->opacity;
	if (opacity <= 0.0f) {
		return;
	}
	cairo_save(cr);
	struct vr_mat m;
	bench_node_transform(node, &m);
	cairo_matrix_t matrix = { m.a, m.b, m.c, m.d, m.tx, m.ty };
	cairo_transform(cr, &matrix);
	if (node->has_clip) {
		cairo_rectangle(cr, node->clip.x, node->clip.y, node->clip.width,
				node->clip.height);
		cairo_clip(cr);
	}
	play(peer, cr, &node->dl, opacity);
	for (size_t i = 0; i < node->nchildren; i++) {
		draw_node(peer, cr, node->children[i], opacity);
	}
	cairo_restore(cr);
}

bool cairo_peer_render(struct cairo_peer *peer) {
	struct bench_scene *scene = peer->scene;
	for (size_t i = 0; i < scene->noutputs; i++) {
		cairo_t *cr = cairo_create(peer->surfaces[i]);
		cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
		set_color(cr, scene->clear, 1.0f);
		cairo_paint(cr);
		cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
		cairo_translate(cr, -scene->outputs[i].x, -scene->outputs[i].y);
		draw_node(peer, cr, scene->root, 1.0f);
		cairo_status_t status = cairo_status(cr);
		cairo_destroy(cr);
		cairo_surface_flush(peer->surfaces[i]);
		if (status != CAIRO_STATUS_SUCCESS) {
			return false;
		}
	}
	return true;
}

#endif
