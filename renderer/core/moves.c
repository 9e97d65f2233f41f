/*
 * Shift-and-expose (see vr_tree_update_moves): the region arithmetic of
 * moves, the pending changes of a destination, and moving a host image's
 * pixels. The tree finds the moves; each engine applies them to its
 * destination before it redraws the damage.
 */
#include <stdlib.h>
#include <string.h>
#include "render_private.h"

void vr_move_exposed(const struct vr_move *move, pixman_region32_t *region) {
	const struct vr_box *b = &move->box;
	pixman_region32_t exposed;
	pixman_region32_init_rect(&exposed, b->x, b->y, (unsigned)b->width,
			(unsigned)b->height);
	pixman_region32_t kept;
	pixman_region32_init_rect(&kept, b->x + move->dx, b->y + move->dy,
			(unsigned)b->width, (unsigned)b->height);
	pixman_region32_subtract(&exposed, &exposed, &kept);
	pixman_region32_union(region, region, &exposed);
	pixman_region32_fini(&kept);
	pixman_region32_fini(&exposed);
}

void vr_move_region(const struct vr_move *move, pixman_region32_t *region) {
	const struct vr_box *b = &move->box;
	pixman_region32_t inside;
	pixman_region32_init_rect(&inside, b->x, b->y, (unsigned)b->width,
			(unsigned)b->height);
	pixman_region32_t moved;
	pixman_region32_init(&moved);
	pixman_region32_intersect(&moved, region, &inside);
	pixman_region32_subtract(region, region, &inside);
	pixman_region32_translate(&moved, move->dx, move->dy);
	pixman_region32_intersect(&moved, &moved, &inside);
	pixman_region32_union(region, region, &moved);
	vr_move_exposed(move, region);
	pixman_region32_fini(&moved);
	pixman_region32_fini(&inside);
}

static pixman_region32_t *region_of(const pixman_region32_t *region) {
	return (pixman_region32_t *)region; /* pixman's API lacks const */
}

void vr_move_pixels(pixman_image_t *image, const struct vr_move *move) {
	pixman_format_code_t format = pixman_image_get_format(image);
	if (format != PIXMAN_a8r8g8b8 && format != PIXMAN_x8r8g8b8) {
		return;
	}
	struct vr_box all = { 0, 0, pixman_image_get_width(image),
		pixman_image_get_height(image) };
	struct vr_box box = vr_box_intersect(&move->box, &all);
	/* the destination rows and columns whose source is in the box */
	int32_t x0 = box.x + (move->dx > 0 ? move->dx : 0);
	int32_t x1 = box.x + box.width + (move->dx < 0 ? move->dx : 0);
	int32_t y0 = box.y + (move->dy > 0 ? move->dy : 0);
	int32_t y1 = box.y + box.height + (move->dy < 0 ? move->dy : 0);
	if (x1 <= x0 || y1 <= y0) {
		return;
	}
	uint8_t *data = (uint8_t *)pixman_image_get_data(image);
	size_t stride = (size_t)pixman_image_get_stride(image);
	size_t bytes = (size_t)(x1 - x0) * 4;
	/* rows in the order that reads each source row before it is
	 * overwritten; memmove within a row */
	bool down = move->dy > 0;
	for (int32_t i = 0; i < y1 - y0; i++) {
		int32_t y = down ? y1 - 1 - i : y0 + i;
		uint8_t *dst = data + (size_t)y * stride + (size_t)x0 * 4;
		const uint8_t *src = data + (size_t)(y - move->dy) * stride +
				(size_t)(x0 - move->dx) * 4;
		memmove(dst, src, bytes);
	}
}

void vr_changes_init(struct vr_changes *changes) {
	changes->has_move = false;
	pixman_region32_init(&changes->damage);
}

void vr_changes_fini(struct vr_changes *changes) {
	pixman_region32_fini(&changes->damage);
}

void vr_changes_clear(struct vr_changes *changes) {
	changes->has_move = false;
	pixman_region32_clear(&changes->damage);
}

void vr_changes_damage_all(struct vr_changes *changes,
		const struct vr_box *box) {
	changes->has_move = false;
	pixman_region32_union_rect(&changes->damage, &changes->damage, box->x,
			box->y, (unsigned)box->width, (unsigned)box->height);
}

void vr_changes_add_damage(struct vr_changes *changes,
		const pixman_region32_t *damage) {
	pixman_region32_union(&changes->damage, &changes->damage,
			region_of(damage));
}

void vr_changes_flatten(struct vr_changes *changes) {
	if (changes->has_move) {
		const struct vr_box *b = &changes->move.box;
		pixman_region32_union_rect(&changes->damage, &changes->damage, b->x,
				b->y, (unsigned)b->width, (unsigned)b->height);
		changes->has_move = false;
	}
}

void vr_changes_compose(struct vr_changes *changes, const struct vr_move *move,
		const pixman_region32_t *damage) {
	if (move != NULL) {
		if (changes->has_move &&
				!vr_box_equal(&changes->move.box, &move->box)) {
			vr_changes_flatten(changes);
		}
		/* what was pending inside the box moves with its pixels */
		vr_move_region(move, &changes->damage);
		if (changes->has_move) {
			changes->move.dx += move->dx;
			changes->move.dy += move->dy;
		} else {
			changes->move = *move;
			changes->has_move = true;
		}
		const struct vr_move *m = &changes->move;
		if (m->dx == 0 && m->dy == 0) {
			changes->has_move = false; /* back where it was */
		} else if (abs(m->dx) >= m->box.width || abs(m->dy) >= m->box.height) {
			vr_changes_flatten(changes); /* nothing left to move */
		} else {
			vr_move_exposed(m, &changes->damage);
		}
	}
	if (damage != NULL) {
		vr_changes_add_damage(changes, damage);
	}
	if (changes->has_move) {
		const struct vr_box *b = &changes->move.box;
		pixman_box32_t box = { b->x, b->y, b->x + b->width, b->y + b->height };
		if (pixman_region32_contains_rectangle(&changes->damage, &box) ==
				PIXMAN_REGION_IN) {
			changes->has_move = false; /* all of it redrawn anyway */
		}
	}
}
