/*
 * The property tests' random trees (see random_tree.h). Every range is
 * written for a 96x64 target and scaled by the options' scale, so that a
 * larger target sees the same mix of things inside, across and outside
 * it.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <vitrail/canvas.h>
#include "random_tree.h"

uint32_t rng_next(struct rng *rng) {
	rng->state = rng->state * 6364136223846793005u + 1442695040888963407u;
	return (uint32_t)(rng->state >> 33);
}

uint32_t rng_below(struct rng *rng, uint32_t n) {
	return rng_next(rng) % n;
}

float rng_float(struct rng *rng, float lo, float hi) {
	return lo + (hi - lo) * (float)rng_next(rng) / (float)UINT32_MAX;
}

bool rng_chance(struct rng *rng, float p) {
	return rng_float(rng, 0, 1) < p;
}

void write_random_pixels(struct rng *rng, struct vr_image *image,
		const pixman_region32_t *region) {
	int32_t w = vr_image_width(image), h = vr_image_height(image);
	uint32_t *data = malloc((size_t)w * (size_t)h * 4);
	ck_assert_ptr_nonnull(data);
	for (int32_t i = 0; i < w * h; i++) {
		/* premultiplied: colour channels never above alpha */
		uint32_t a = rng_chance(rng, 0.3f) ? rng_below(rng, 256) : 255;
		uint32_t r = a == 0 ? 0 : rng_below(rng, a + 1);
		uint32_t g = a == 0 ? 0 : rng_below(rng, a + 1);
		uint32_t b = a == 0 ? 0 : rng_below(rng, a + 1);
		data[i] = a << 24 | r << 16 | g << 8 | b;
	}
	ck_assert(vr_image_write(image, data, w * 4, region));
	free(data);
}

struct vr_image *random_image(struct rng *rng, int32_t max_side) {
	int32_t w = 1 + (int32_t)rng_below(rng, (uint32_t)max_side);
	int32_t h = 1 + (int32_t)rng_below(rng, (uint32_t)max_side);
	enum vr_format format =
			rng_chance(rng, 0.5f) ? VR_FORMAT_ARGB8888 : VR_FORMAT_XRGB8888;
	struct vr_image *image = vr_image_create(w, h, format);
	ck_assert_ptr_nonnull(image);
	write_random_pixels(rng, image, NULL);
	return image;
}

struct vr_color random_color(struct rng *rng) {
	return (struct vr_color){ rng_float(rng, 0, 1), rng_float(rng, 0, 1),
		rng_float(rng, 0, 1),
		rng_chance(rng, 0.5f) ? 1.0f : rng_float(rng, 0.1f, 1) };
}

void random_transform(struct random_tree *rt, struct rng *rng,
		struct vr_node *node) {
	float s = rt->options->scale;
	float x = rng_float(rng, -30, 100) * s, y = rng_float(rng, -20, 70) * s;
	if (rng_chance(rng, 0.5f)) {
		/* whole pixels: the nearest-sampling path */
		x = floorf(x);
		y = floorf(y);
	}
	switch (rng_below(rng, 5)) {
	case 0: {
		float angle = rng_float(rng, -0.8f, 0.8f);
		float k = rng_float(rng, 0.6f, 1.6f);
		struct vr_mat m = { k * cosf(angle), k * sinf(angle), -k * sinf(angle),
			k * cosf(angle), x, y };
		vr_node_set_transform(node, &m);
		break;
	}
	case 1: {
		struct vr_mat m = { rng_float(rng, 0.3f, 2.5f), 0, 0,
			rng_float(rng, 0.3f, 2.5f), x, y };
		vr_node_set_transform(node, &m);
		break;
	}
	default: vr_node_set_position(node, x, y); break;
	}
}

static struct vr_rectf random_rect(struct rng *rng, float s) {
	return (struct vr_rectf){ rng_float(rng, -10, 60) * s,
		rng_float(rng, -10, 40) * s, rng_float(rng, 1, 50) * s,
		rng_float(rng, 1, 40) * s };
}

static struct vr_paint random_paint(struct rng *rng, float s) {
	/* hairlines stay as thin whatever the scale */
	return (struct vr_paint){
		.color = random_color(rng),
		.stroke_width = rng_chance(rng, 0.4f) ? rng_float(rng, 0.5f, 6 * s) : 0,
		.join = (enum vr_line_join)rng_below(rng, 3),
		.cap = (enum vr_line_cap)rng_below(rng, 3),
		.fill_rule = (enum vr_fill_rule)rng_below(rng, 2),
	};
}

/* A display list of a few random canvas commands: every kind the canvas
 * records, saves and restores left unbalanced as a client may. */
static struct vr_display_list *random_list(struct random_tree *rt,
		struct rng *rng) {
	static const char *const words[] = { "vitrail", "Åb", "n1å", "glyph" };
	const struct random_tree_options *o = rt->options;
	float s = o->scale;
	struct vr_canvas *c = vr_canvas_begin();
	uint32_t n = 1 + rng_below(rng, o->max_commands);
	for (uint32_t i = 0; i < n; i++) {
		struct vr_paint paint = random_paint(rng, s);
		switch (rng_below(rng, 12)) {
		case 0:
			vr_canvas_save(c);
			vr_canvas_translate(c, rng_float(rng, -10, 20) * s,
					rng_float(rng, -10, 20) * s);
			vr_canvas_rotate(c, rng_float(rng, -0.5f, 0.5f));
			break;
		case 1: vr_canvas_restore(c); break;
		case 2:
			if (rng_chance(rng, 0.5f)) {
				/* a square corner or four round ones */
				float r = rng_float(rng, 0, 16) * s;
				vr_canvas_clip_rrect(c, random_rect(rng, s),
						(struct vr_radii){ r, r / 2, r,
								rng_chance(rng, 0.5f) ? 0 : r / 3 });
			} else {
				vr_canvas_clip_rect(c, random_rect(rng, s));
			}
			break;
		case 3: vr_canvas_draw_rect(c, random_rect(rng, s), &paint); break;
		case 4: {
			float r = rng_float(rng, 0, 12) * s;
			vr_canvas_draw_rrect(c, random_rect(rng, s),
					(struct vr_radii){ r, r / 2, r, 0 }, &paint);
			break;
		}
		case 5: vr_canvas_draw_ellipse(c, random_rect(rng, s), &paint); break;
		case 6:
			paint.stroke_width = rng_float(rng, 0.5f, 5 * s);
			vr_canvas_draw_line(c, rng_float(rng, 0, 60) * s,
					rng_float(rng, 0, 40) * s, rng_float(rng, 0, 60) * s,
					rng_float(rng, 0, 40) * s, &paint);
			break;
		case 7: {
			float points[8];
			for (int k = 0; k < 8; k++) {
				points[k] = rng_float(rng, 0, 50) * s;
			}
			paint.stroke_width = rng_float(rng, 0.5f, 4 * s);
			vr_canvas_draw_polyline(c, points, 4, rng_chance(rng, 0.5f),
					&paint);
			break;
		}
		case 8: {
			struct vr_path *path = vr_path_create();
			vr_path_move_to(path, rng_float(rng, 0, 40) * s,
					rng_float(rng, 0, 30) * s);
			vr_path_quad_to(path, rng_float(rng, 0, 60) * s,
					rng_float(rng, 0, 40) * s, rng_float(rng, 0, 60) * s,
					rng_float(rng, 0, 40) * s);
			if (o->cubic) {
				vr_path_cubic_to(path, rng_float(rng, 0, 60) * s,
						rng_float(rng, 0, 40) * s, rng_float(rng, 0, 60) * s,
						rng_float(rng, 0, 40) * s, rng_float(rng, 0, 60) * s,
						rng_float(rng, 0, 40) * s);
			}
			vr_path_close(path);
			vr_canvas_draw_path(c, path, &paint);
			vr_path_destroy(path);
			break;
		}
		case 9:
			vr_canvas_draw_image(c,
					rt->images[rng_below(rng, RANDOM_TREE_IMAGES)], NULL,
					random_rect(rng, s), rng_float(rng, 0.2f, 1));
			break;
		case 10: {
			/* 12 px (the glyph atlas's common size) half of the time */
			struct vr_font font = { "DejaVu Sans",
				rng_chance(rng, 0.5f) ? 12 : 8 + rng_float(rng, 0, 12) * s,
				o->bold && rng_chance(rng, 0.2f) ? 700 : 400 };
			vr_canvas_draw_text(c, rng_float(rng, 0, 40) * s,
					rng_float(rng, 10, 50) * s, words[rng_below(rng, 4)], &font,
					random_color(rng));
			break;
		}
		default: {
			float r = rng_float(rng, 0, 8) * s;
			vr_canvas_draw_shadow(c, random_rect(rng, s),
					(struct vr_radii){ r, r, r, r }, rng_float(rng, 0, 8) * s,
					random_color(rng));
			break;
		}
		}
	}
	struct vr_display_list *list = vr_canvas_finish(c);
	ck_assert_ptr_nonnull(list);
	return list;
}

void random_content(struct random_tree *rt, struct rng *rng,
		struct vr_node *node) {
	float s = rt->options->scale;
	if (rng_chance(rng, rt->options->lists)) {
		struct vr_display_list *list = random_list(rt, rng);
		vr_node_set_display_list(node, list);
		vr_display_list_unref(list);
		return;
	}
	/* else a rect in two, an image in five, a group in ten */
	uint32_t kind = rng_below(rng, 10);
	if (kind < 5) {
		/* opaque ones occlude; whole-pixel widths give them exact
		 * edges */
		struct vr_color color = { rng_float(rng, 0, 1), rng_float(rng, 0, 1),
			rng_float(rng, 0, 1),
			rng_chance(rng, 0.5f) ? 1.0f : rng_float(rng, 0, 1) };
		float w = rng_float(rng, 1, 70) * s;
		vr_node_set_rect(node, rng_chance(rng, 0.5f) ? floorf(w) : w,
				rng_float(rng, 1, 50) * s, color);
	} else if (kind < 9) {
		struct vr_image *image = rt->images[rng_below(rng, RANDOM_TREE_IMAGES)];
		int32_t iw = vr_image_width(image), ih = vr_image_height(image);
		/* upright more often than the other seven: the atlas's images */
		enum vr_transform transform = rng_chance(rng, 0.5f) ?
				VR_TRANSFORM_NORMAL :
				(enum vr_transform)rng_below(rng, 8);
		struct vr_rectf src = { 0, 0, (float)iw, (float)ih };
		if (rng_chance(rng, 0.3f)) {
			src.x = (float)rng_below(rng, (uint32_t)iw);
			src.y = (float)rng_below(rng, (uint32_t)ih);
			src.width = (float)iw - src.x;
			src.height = (float)ih - src.y;
		}
		/* 1:1 by default, else stretched */
		bool swap = transform & 1;
		float w = swap ? src.height : src.width;
		float h = swap ? src.width : src.height;
		if (rng_chance(rng, 0.4f)) {
			w = rng_float(rng, 1, 60) * s;
			h = rng_float(rng, 1, 60) * s;
		}
		vr_node_set_image(node, image, rng_chance(rng, 0.7f) ? &src : NULL, w,
				h, transform);
	} else {
		vr_node_clear_content(node); /* a group */
	}
}

void random_clip(struct random_tree *rt, struct rng *rng,
		struct vr_node *node) {
	float s = rt->options->scale;
	struct vr_rectf clip = { rng_float(rng, -10, 40) * s,
		rng_float(rng, -10, 30) * s, rng_float(rng, 0, 80) * s,
		rng_float(rng, 0, 60) * s };
	switch (rng_below(rng, 3)) {
	case 0:
		/* rounded: nested ones and turned ones too */
		vr_node_set_clip_rounded(node, &clip, rng_float(rng, 0, 24) * s);
		break;
	case 1: vr_node_set_clip(node, &clip); break;
	default: vr_node_set_clip(node, NULL); break;
	}
}

struct vr_node *random_tree_add_node(struct random_tree *rt, struct rng *rng) {
	ck_assert_uint_lt(rt->nnodes, RANDOM_TREE_MAX_NODES);
	struct vr_node *node = vr_node_create(rt->tree);
	struct vr_node *parent = rt->nnodes == 0 || rng_chance(rng, 0.4f) ?
			vr_tree_root(rt->tree) :
			rt->nodes[rng_below(rng, (uint32_t)rt->nnodes)];
	random_transform(rt, rng, node);
	random_content(rt, rng, node);
	/* a third of random_clip's are none: a clipped node in five */
	if (rng_chance(rng, 0.3f)) {
		random_clip(rt, rng, node);
	}
	if (rng_chance(rng, 0.3f)) {
		vr_node_set_opacity(node, rng_float(rng, 0, 1));
	}
	if (rng_chance(rng, 0.05f)) {
		vr_node_set_enabled(node, false);
	}
	vr_node_set_parent(node, parent);
	rt->nodes[rt->nnodes++] = node;
	return node;
}

void random_tree_build(struct random_tree *rt,
		const struct random_tree_options *options, struct rng *rng) {
	*rt = (struct random_tree){
		.options = options,
		.tree = vr_tree_create(),
	};
	ck_assert_ptr_nonnull(rt->tree);
	for (int i = 0; i < RANDOM_TREE_IMAGES; i++) {
		rt->images[i] = random_image(rng, (int32_t)(24 * options->scale));
	}
	size_t n = 4 + rng_below(rng, 40);
	for (size_t i = 0; i < n; i++) {
		random_tree_add_node(rt, rng);
	}
}

void random_tree_destroy(struct random_tree *rt) {
	vr_tree_destroy(rt->tree);
	for (int i = 0; i < RANDOM_TREE_IMAGES; i++) {
		vr_image_unref(rt->images[i]);
	}
}
