/*
 * vitrail-scene-settings: a "settings page" built only from scene nodes
 * (vitrail_scene_v1): a title, rounded cards with shadows, generated icons
 * (images from wl_shm buffers), titles and subtitles (text shaped by the
 * compositor), and switches. The window's buffer is fully transparent:
 * everything visible is scene content.
 *
 * Tapping a switch (pointer button or touch down) toggles it: the knob
 * slides with a compositor-driven cubic-bezier animation and the track is
 * re-recorded in its new colour (one node's display list). The client
 * commits once per toggle and draws nothing per frame.
 *
 * Options:
 *   --app-id ID           xdg_toplevel app_id (default
 *                         "vitrail-scene-settings")
 *   --animate-after MS    toggle the first switch MS ms after start, as a
 *                         tap would (tests have no input injection)
 *   --exit-when-done      exit once that toggle's animation is done
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scene-client.h"

#define WIDTH 360
#define HEIGHT 420
#define ROWS 4
#define CARD_X 16
#define CARD_Y0 64
#define CARD_W 328
#define CARD_H 68
#define CARD_GAP 12
#define ICON 32
#define TRACK_W 44
#define TRACK_H 24
#define KNOB 20
#define KNOB_TRAVEL (TRACK_W - KNOB - 4)
#define TOGGLE_MS 250

#define FONT "DejaVu Sans"

struct row {
	const char *title, *subtitle;
	uint32_t icon_color;
	bool on;
	struct vitrail_scene_node_v1 *card, *track, *knob;
	struct vitrail_scene_display_list_v1 *track_list;
	struct vitrail_scene_animation_v1 *anim;
};

struct settings {
	struct sc_app app;
	struct vitrail_scene_v1 *scene;
	struct vitrail_scene_node_v1 *root, *title;
	struct vitrail_scene_image_v1 *icons[ROWS];
	struct row rows[ROWS];
};

static struct row rows_init[ROWS] = {
	{ "Wi-Fi", "vitrail-lab · connected", 0xff2f80ed, false },
	{ "Bluetooth", "2 devices", 0xff3a5bd9, true },
	{ "Do not disturb", "Until 07:00", 0xff8e44ad, false },
	{ "Battery saver", "Turns on at 15 %", 0xff27ae60, true },
};

/* A round icon with a white glyph-like mark: premultiplied ARGB. */
static void make_icon(uint32_t *px, uint32_t color, int kind) {
	for (int y = 0; y < ICON; y++) {
		for (int x = 0; x < ICON; x++) {
			double dx = x + 0.5 - ICON / 2.0, dy = y + 0.5 - ICON / 2.0;
			bool inside = dx * dx + dy * dy <= (ICON / 2.0) * (ICON / 2.0);
			bool mark;
			switch (kind) {
			case 0: // waves
				mark = dy < 4 &&
						((int)(dx * dx + (dy - 6) * (dy - 6)) / 24) % 2 == 1 &&
						dx * dx + (dy - 6) * (dy - 6) < 130;
				break;
			case 1: // a B-like bar
				mark = (x >= 14 && x <= 16 && y >= 7 && y <= 24) ||
						(y >= 10 && y <= 12 && x >= 10 && x <= 21);
				break;
			case 2: // moon
				mark = dx * dx + dy * dy < 64 &&
						(dx - 4) * (dx - 4) + (dy - 3) * (dy - 3) > 36;
				break;
			default: // battery
				mark = x >= 9 && x <= 22 && y >= 11 && y <= 20 &&
						!(x >= 11 && x <= 20 && y >= 13 && y <= 18 && x > 15);
				break;
			}
			px[y * ICON + x] = !inside ? 0 : mark ? 0xffffffff : color;
		}
	}
}

static struct vitrail_scene_display_list_v1 *track_list(struct settings *s,
		bool on) {
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_rrect(&dl, 0, 0, TRACK_W, TRACK_H, TRACK_H / 2.0f,
			SC_FILL(on ? 0xff34c759 : 0xffc7c7cc));
	struct vitrail_scene_display_list_v1 *list = sc_list_create(&s->app, &dl);
	sc_dl_finish(&dl);
	return list;
}

static void build(struct sc_app *app) {
	struct settings *s = wl_container_of(app, s, app);
	s->scene = vitrail_scene_manager_v1_get_scene(app->manager, app->surface);
	s->root = vitrail_scene_v1_create_node(s->scene);
	s->title = vitrail_scene_v1_create_node(s->scene);

	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_rrect(&dl, 0, 0, WIDTH, HEIGHT, 14, SC_FILL(0xfff2f2f7));
	sc_node_set_list(app, s->root, &dl);

	sc_dl_init(&dl);
	sc_dl_text(&dl, 0, 0, 0xff1c1c1e, 26, 700, FONT, "Settings");
	sc_node_set_list(app, s->title, &dl);
	sc_node_set_position(s->title, 20, 44);

	struct vitrail_scene_node_v1 *children[ROWS + 1] = { s->title };
	for (int i = 0; i < ROWS; i++) {
		struct row *row = &s->rows[i];
		uint32_t px[ICON * ICON];
		make_icon(px, row->icon_color, i);
		s->icons[i] = sc_image_create(app, ICON, ICON, px);
		uint32_t icon_id = wl_proxy_get_id((struct wl_proxy *)s->icons[i]);

		row->card = vitrail_scene_v1_create_node(s->scene);
		sc_dl_init(&dl);
		sc_dl_shadow(&dl, 0, 2, CARD_W, CARD_H, 12, 8, 0x30000000);
		sc_dl_rrect(&dl, 0, 0, CARD_W, CARD_H, 12, SC_FILL(0xffffffff));
		sc_dl_image(&dl, icon_id, 1.0f, 0, 0, 0, 0, 14, (CARD_H - ICON) / 2.0f,
				ICON, ICON);
		sc_dl_text(&dl, 60, 30, 0xff1c1c1e, 16, 600, FONT, row->title);
		sc_dl_text(&dl, 60, 50, 0xff8e8e93, 13, 400, FONT, row->subtitle);
		sc_node_set_list(app, row->card, &dl);
		sc_node_set_position(row->card, CARD_X,
				CARD_Y0 + i * (CARD_H + CARD_GAP));

		row->track = vitrail_scene_v1_create_node(s->scene);
		row->track_list = track_list(s, row->on);
		vitrail_scene_node_v1_set_display_list(row->track, row->track_list);
		sc_node_set_position(row->track, CARD_W - TRACK_W - 16,
				(CARD_H - TRACK_H) / 2.0f);

		row->knob = vitrail_scene_v1_create_node(s->scene);
		sc_dl_init(&dl);
		sc_dl_shadow(&dl, 0, 1, KNOB, KNOB, KNOB / 2.0f, 3, 0x40000000);
		sc_dl_ellipse(&dl, 0, 0, KNOB, KNOB, SC_FILL(0xffffffff));
		sc_node_set_list(app, row->knob, &dl);
		sc_node_set_position(row->knob, 2 + (row->on ? KNOB_TRAVEL : 0), 2);

		sc_node_set_children(row->track, &row->knob, 1);
		sc_node_set_children(row->card, &row->track, 1);
		children[i + 1] = row->card;
	}
	sc_node_set_children(s->root, children, ROWS + 1);
	vitrail_scene_v1_set_root(s->scene, s->root);
	wl_surface_commit(app->surface);
}

static void anim_done(void *data, struct vitrail_scene_animation_v1 *anim,
		uint32_t reason, uint32_t hi, uint32_t lo) {
	struct settings *s = data;
	for (int i = 0; i < ROWS; i++) {
		if (s->rows[i].anim == anim) {
			s->rows[i].anim = NULL;
		}
	}
	vitrail_scene_animation_v1_destroy(anim);
	sc_app_animation_done(&s->app, reason);
}

static const struct vitrail_scene_animation_v1_listener anim_listener = {
	.done = anim_done,
};

static void toggle(struct settings *s, int i) {
	struct row *row = &s->rows[i];
	row->on = !row->on;
	vitrail_scene_display_list_v1_destroy(row->track_list);
	row->track_list = track_list(s, row->on);
	vitrail_scene_node_v1_set_display_list(row->track, row->track_list);
	double target[2] = { 2 + (row->on ? KNOB_TRAVEL : 0), 2 };
	double ease[4] = { 0.25, 0.1, 0.25, 1.0 };
	if (row->anim != NULL) {
		vitrail_scene_animation_v1_destroy(row->anim);
	}
	row->anim = sc_node_animate(row->knob,
			VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION, target, 2, TOGGLE_MS,
			VITRAIL_SCENE_NODE_V1_CURVE_CUBIC_BEZIER, ease, 4);
	vitrail_scene_animation_v1_add_listener(row->anim, &anim_listener, s);
	wl_surface_commit(s->app.surface);
}

static void handle_tap(struct sc_app *app, double x, double y) {
	struct settings *s = wl_container_of(app, s, app);
	for (int i = 0; i < ROWS; i++) {
		double cy = CARD_Y0 + i * (CARD_H + CARD_GAP);
		if (x >= CARD_X && x < CARD_X + CARD_W && y >= cy && y < cy + CARD_H) {
			toggle(s, i);
		}
	}
}

static void handle_timer(struct sc_app *app) {
	struct settings *s = wl_container_of(app, s, app);
	toggle(s, 0);
}

static void finish(struct sc_app *app) {
	struct settings *s = wl_container_of(app, s, app);
	for (int i = 0; i < ROWS; i++) {
		if (s->rows[i].anim != NULL) {
			vitrail_scene_animation_v1_destroy(s->rows[i].anim);
		}
		if (s->rows[i].track_list != NULL) {
			vitrail_scene_display_list_v1_destroy(s->rows[i].track_list);
		}
	}
}

int main(int argc, char *argv[]) {
	struct settings s = { 0 };
	memcpy(s.rows, rows_init, sizeof(s.rows));
	static const struct sc_client client = {
		.name = "vitrail-scene-settings",
		.title = "Settings",
		.width = WIDTH,
		.height = HEIGHT,
		.build = build,
		.on_tap = handle_tap,
		.on_timer = handle_timer,
		.finish = finish,
	};
	return sc_client_main(&s.app, &client, argc, argv);
}
