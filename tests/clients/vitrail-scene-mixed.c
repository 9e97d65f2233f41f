/*
 * vitrail-scene-mixed: scene content between two buffer subsurfaces.
 *
 * The toplevel's buffer is a translucent blue; a subsurface placed below
 * it (a green and white checkerboard) shows through it and sticks out to
 * the left and below; the toplevel's scene content (a white rounded card
 * with text and a ring) covers part of the checkerboard; a subsurface
 * placed above the toplevel (yellow and navy stripes) covers the card's
 * top-right corner. Back to front: checkerboard, blue buffer, card,
 * stripes.
 *
 * Tapping the card (pointer button or touch down) spins the ring, a
 * compositor-driven rotation.
 *
 * Options:
 *   --app-id ID           xdg_toplevel app_id (default "vitrail-scene-mixed")
 *   --animate-after MS    spin the ring MS ms after start, as a tap would
 *   --exit-when-done      exit once the spin is done
 *
 * The geometry is in vitrail-scene-mixed.h, which the tests use to probe
 * the screenshot's pixels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scene-client.h"
#include "vitrail-scene-mixed.h"

#define SPIN_MS 600

#define FONT "DejaVu Sans"

struct mixed {
	struct sc_app app;
	struct wl_surface *below, *above;
	struct wl_subsurface *below_sub, *above_sub;
	struct sc_buffer *below_buffer, *above_buffer;
	struct vitrail_scene_v1 *scene;
	struct vitrail_scene_node_v1 *card, *ring;
	double angle;
};

static void build(struct sc_app *app) {
	struct mixed *m = wl_container_of(app, m, app);
	// The toplevel's buffer: translucent blue.
	for (int i = 0; i < MIXED_WIDTH * MIXED_HEIGHT; i++) {
		app->buffer->pixels[i] = MIXED_MAIN_COLOR;
	}

	m->below = wl_compositor_create_surface(app->compositor);
	m->below_sub = wl_subcompositor_get_subsurface(app->subcompositor, m->below,
			app->surface);
	wl_subsurface_set_position(m->below_sub, MIXED_BELOW_X, MIXED_BELOW_Y);
	wl_subsurface_place_below(m->below_sub, app->surface);
	m->below_buffer = sc_buffer_create(app, MIXED_BELOW_W, MIXED_BELOW_H,
			WL_SHM_FORMAT_ARGB8888, 0);
	for (int y = 0; y < MIXED_BELOW_H; y++) {
		for (int x = 0; x < MIXED_BELOW_W; x++) {
			m->below_buffer->pixels[y * MIXED_BELOW_W + x] =
					((x / 10) + (y / 10)) % 2 ? MIXED_BELOW_DARK :
												MIXED_BELOW_LIGHT;
		}
	}
	wl_surface_attach(m->below, m->below_buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(m->below, 0, 0, MIXED_BELOW_W, MIXED_BELOW_H);
	wl_surface_commit(m->below); // synchronized: applied with the parent

	m->above = wl_compositor_create_surface(app->compositor);
	m->above_sub = wl_subcompositor_get_subsurface(app->subcompositor, m->above,
			app->surface);
	wl_subsurface_set_position(m->above_sub, MIXED_ABOVE_X, MIXED_ABOVE_Y);
	wl_subsurface_place_above(m->above_sub, app->surface);
	m->above_buffer = sc_buffer_create(app, MIXED_ABOVE_W, MIXED_ABOVE_H,
			WL_SHM_FORMAT_XRGB8888, 0);
	for (int y = 0; y < MIXED_ABOVE_H; y++) {
		for (int x = 0; x < MIXED_ABOVE_W; x++) {
			m->above_buffer->pixels[y * MIXED_ABOVE_W + x] =
					((x + y) / 12) % 2 ? MIXED_ABOVE_LIGHT : MIXED_ABOVE_DARK;
		}
	}
	wl_surface_attach(m->above, m->above_buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(m->above, 0, 0, MIXED_ABOVE_W, MIXED_ABOVE_H);
	wl_surface_commit(m->above);

	m->scene = vitrail_scene_manager_v1_get_scene(app->manager, app->surface);
	m->card = vitrail_scene_v1_create_node(m->scene);
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_shadow(&dl, 0, 4, MIXED_CARD_W, MIXED_CARD_H, 16, 12, 0x50000000);
	sc_dl_rrect(&dl, 0, 0, MIXED_CARD_W, MIXED_CARD_H, 16,
			SC_FILL(MIXED_CARD_COLOR));
	sc_dl_text(&dl, 20, 44, 0xff202124, 20, 700, FONT, "scene content");
	sc_dl_text(&dl, 20, 70, 0xff5f6368, 13, 400, FONT,
			"between two buffer subsurfaces");
	sc_dl_line(&dl, 20, 86, 170, 86, SC_STROKE(0xff1a73e8, 3));
	sc_node_set_list(app, m->card, &dl);
	sc_node_set_position(m->card, MIXED_CARD_X, MIXED_CARD_Y);

	m->ring = vitrail_scene_v1_create_node(m->scene);
	sc_dl_init(&dl);
	sc_dl_ellipse(&dl, 0, 0, MIXED_RING, MIXED_RING, SC_STROKE(0xffe8710a, 6));
	sc_dl_rect(&dl, MIXED_RING / 2.0f - 3, -2, 6, 12, SC_FILL(0xffe8710a));
	sc_node_set_list(app, m->ring, &dl);
	vitrail_scene_node_v1_set_anchor(m->ring, wl_fixed_from_int(MIXED_RING / 2),
			wl_fixed_from_int(MIXED_RING / 2));
	sc_node_set_position(m->ring, MIXED_CARD_W - MIXED_RING - 24,
			MIXED_CARD_H - MIXED_RING - 20);
	sc_node_set_children(m->card, &m->ring, 1);
	vitrail_scene_v1_set_root(m->scene, m->card);
	wl_surface_damage_buffer(app->surface, 0, 0, MIXED_WIDTH, MIXED_HEIGHT);
	wl_surface_commit(app->surface);
}

static void anim_done(void *data, struct vitrail_scene_animation_v1 *anim,
		uint32_t reason, uint32_t hi, uint32_t lo) {
	struct mixed *m = data;
	vitrail_scene_animation_v1_destroy(anim);
	sc_app_animation_done(&m->app, reason);
}

static const struct vitrail_scene_animation_v1_listener anim_listener = {
	.done = anim_done,
};

static void spin(struct mixed *m) {
	m->angle += 360.0;
	double ease[4] = { 0.4, 0.0, 0.2, 1.0 };
	struct vitrail_scene_animation_v1 *anim = sc_node_animate(m->ring,
			VITRAIL_SCENE_NODE_V1_PROPERTY_ROTATION, &m->angle, 1, SPIN_MS,
			VITRAIL_SCENE_NODE_V1_CURVE_CUBIC_BEZIER, ease, 4);
	vitrail_scene_animation_v1_add_listener(anim, &anim_listener, m);
	wl_surface_commit(m->app.surface);
}

static void handle_tap(struct sc_app *app, double x, double y) {
	struct mixed *m = wl_container_of(app, m, app);
	if (x >= MIXED_CARD_X && x < MIXED_CARD_X + MIXED_CARD_W &&
			y >= MIXED_CARD_Y && y < MIXED_CARD_Y + MIXED_CARD_H) {
		spin(m);
	}
}

static void handle_timer(struct sc_app *app) {
	struct mixed *m = wl_container_of(app, m, app);
	spin(m);
}

static void finish(struct sc_app *app) {
	struct mixed *m = wl_container_of(app, m, app);
	if (m->below_sub != NULL) {
		wl_subsurface_destroy(m->below_sub);
		wl_subsurface_destroy(m->above_sub);
		wl_surface_destroy(m->below);
		wl_surface_destroy(m->above);
		sc_buffer_destroy(m->below_buffer);
		sc_buffer_destroy(m->above_buffer);
	}
}

int main(int argc, char *argv[]) {
	struct mixed m = { 0 };
	static const struct sc_client client = {
		.name = "vitrail-scene-mixed",
		.title = "Mixed",
		.width = MIXED_WIDTH,
		.height = MIXED_HEIGHT,
		.build = build,
		.on_tap = handle_tap,
		.on_timer = handle_timer,
		.finish = finish,
	};
	return sc_client_main(&m.app, &client, argc, argv);
}
