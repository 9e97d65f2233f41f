/*
 * vitrail-scene-chat: a "chat" window built only from scene nodes
 * (vitrail_scene_v1): a header with a round avatar (an image under a
 * rounded clip), message bubbles (rounded rectangles with text) in a
 * clipped, scrollable list, and an input bar with a send button drawn as
 * an ellipse and a path. The whole window is under the root's rounded
 * clip. The window's buffer is fully transparent.
 *
 * Tapping the input bar (pointer button or touch down) sends a message: a
 * new bubble node fades in and springs up from below while the list
 * scrolls, all animated by the compositor from one commit.
 *
 * Options:
 *   --app-id ID           xdg_toplevel app_id (default "vitrail-scene-chat")
 *   --animate-after MS    send a message MS ms after start, as a tap would
 *   --exit-when-done      exit once that message's animations are done
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scene-client.h"

#define WIDTH 360
#define HEIGHT 480
#define HEADER_H 64
#define BAR_H 64
#define LIST_H (HEIGHT - HEADER_H - BAR_H)
#define AVATAR 40
#define BUBBLE_H 36
#define BUBBLE_GAP 10
#define MAX_MESSAGES 16
#define SEND_MS 350

#define FONT "DejaVu Sans"

struct message {
	const char *text;
	bool outgoing;
};

static const struct message history[] = {
	{ "Are you at the lab?", false },
	{ "Yes, benchmarking the renderer", true },
	{ "How fast is it?", false },
	{ "One frame in 2 ms on lavapipe", true },
	{ "Nice! Lunch at noon?", false },
};

#define HISTORY (sizeof(history) / sizeof(history[0]))

struct chat {
	struct sc_app app;
	struct vitrail_scene_v1 *scene;
	struct vitrail_scene_node_v1 *root, *header, *avatar, *viewport, *list,
			*bar;
	struct vitrail_scene_node_v1 *bubbles[MAX_MESSAGES];
	size_t nbubbles;
	struct vitrail_scene_image_v1 *avatar_image;
	int pending_anims;
	double scroll;
};

static double bubble_y(size_t i) {
	return 12 + (double)i * (BUBBLE_H + BUBBLE_GAP);
}

/* A bubble node at its place in the list (the text width is estimated:
 * the client does not shape text). */
static struct vitrail_scene_node_v1 *make_bubble(struct chat *c,
		const struct message *m, size_t index) {
	struct vitrail_scene_node_v1 *node = vitrail_scene_v1_create_node(c->scene);
	float w = fminf(24.0f + 8.2f * (float)strlen(m->text), WIDTH - 72);
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_rrect(&dl, 0, 0, w, BUBBLE_H, 12,
			SC_FILL(m->outgoing ? 0xffdcf8c6 : 0xffffffff));
	sc_dl_text(&dl, 12, 23, 0xff111b21, 14, 400, FONT, m->text);
	sc_node_set_list(&c->app, node, &dl);
	sc_node_set_position(node, m->outgoing ? WIDTH - 12 - w : 12,
			bubble_y(index));
	return node;
}

static void make_avatar(uint32_t *px) {
	for (int y = 0; y < AVATAR; y++) {
		for (int x = 0; x < AVATAR; x++) {
			double dx = x - 20.0, dy = y - 15.0;
			bool head = dx * dx + dy * dy < 64;
			bool body = y > 26 &&
					dx * dx / 196.0 + (y - 40.0) * (y - 40.0) / 169.0 < 1.0;
			uint32_t g = (uint32_t)(120 + y * 2);
			px[y * AVATAR + x] = head || body ?
					0xfffdf6e3 :
					0xff000000 | (40u << 16) | (g << 8) | 200u;
		}
	}
}

static void build(struct sc_app *app) {
	struct chat *c = wl_container_of(app, c, app);
	c->scene = vitrail_scene_manager_v1_get_scene(app->manager, app->surface);
	struct sc_dl dl;

	c->root = vitrail_scene_v1_create_node(c->scene);
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, WIDTH, HEIGHT, SC_FILL(0xffefeae2));
	sc_node_set_list(app, c->root, &dl);
	vitrail_scene_node_v1_set_clip(c->root, 0, 0, wl_fixed_from_int(WIDTH),
			wl_fixed_from_int(HEIGHT), wl_fixed_from_int(16));

	c->header = vitrail_scene_v1_create_node(c->scene);
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, WIDTH, HEADER_H, SC_FILL(0xff075e54));
	sc_dl_text(&dl, 68, 30, 0xffffffff, 17, 700, FONT, "Ada Lovelace");
	sc_dl_text(&dl, 68, 49, 0xffc8e6e0, 12, 400, FONT, "online");
	sc_node_set_list(app, c->header, &dl);

	uint32_t px[AVATAR * AVATAR];
	make_avatar(px);
	c->avatar_image = sc_image_create(app, AVATAR, AVATAR, px);
	c->avatar = vitrail_scene_v1_create_node(c->scene);
	sc_dl_init(&dl);
	sc_dl_image(&dl, wl_proxy_get_id((struct wl_proxy *)c->avatar_image), 1.0f,
			0, 0, 0, 0, 0, 0, AVATAR, AVATAR);
	sc_node_set_list(app, c->avatar, &dl);
	vitrail_scene_node_v1_set_clip(c->avatar, 0, 0, wl_fixed_from_int(AVATAR),
			wl_fixed_from_int(AVATAR), wl_fixed_from_int(AVATAR / 2));
	sc_node_set_position(c->avatar, 14, 12);
	sc_node_set_children(c->header, &c->avatar, 1);

	c->viewport = vitrail_scene_v1_create_node(c->scene);
	sc_node_set_position(c->viewport, 0, HEADER_H);
	vitrail_scene_node_v1_set_clip(c->viewport, 0, 0, wl_fixed_from_int(WIDTH),
			wl_fixed_from_int(LIST_H), 0);
	c->list = vitrail_scene_v1_create_node(c->scene);
	for (size_t i = 0; i < HISTORY; i++) {
		c->bubbles[c->nbubbles++] = make_bubble(c, &history[i], i);
	}
	sc_node_set_children(c->list, c->bubbles, c->nbubbles);
	sc_node_set_children(c->viewport, &c->list, 1);

	c->bar = vitrail_scene_v1_create_node(c->scene);
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, WIDTH, BAR_H, SC_FILL(0xfff0f2f5));
	sc_dl_rrect(&dl, 12, 12, WIDTH - 80, 40, 20, SC_FILL(0xffffffff));
	sc_dl_rrect(&dl, 12, 12, WIDTH - 80, 40, 20, SC_STROKE(0xffd1d7db, 1));
	sc_dl_text(&dl, 30, 37, 0xff8696a0, 14, 400, FONT, "Message");
	sc_dl_ellipse(&dl, WIDTH - 56, 12, 40, 40, SC_FILL(0xff00a884));
	static const uint8_t verbs[] = {
		SC_MOVE,
		SC_LINE,
		SC_LINE,
		SC_LINE,
		SC_CLOSE,
	};
	const float x = WIDTH - 56, y = 12;
	const float arrow[] = {
		x + 13,
		y + 11,
		x + 30,
		y + 20,
		x + 13,
		y + 29,
		x + 16,
		y + 20,
	};
	sc_dl_path(&dl, verbs, 5, arrow, 4, SC_FILL(0xffffffff));
	sc_node_set_list(app, c->bar, &dl);
	sc_node_set_position(c->bar, 0, HEIGHT - BAR_H);

	struct vitrail_scene_node_v1 *top[] = { c->viewport, c->header, c->bar };
	sc_node_set_children(c->root, top, 3);
	vitrail_scene_v1_set_root(c->scene, c->root);
	wl_surface_commit(app->surface);
}

static void anim_done(void *data, struct vitrail_scene_animation_v1 *anim,
		uint32_t reason, uint32_t hi, uint32_t lo) {
	struct chat *c = data;
	vitrail_scene_animation_v1_destroy(anim);
	if (--c->pending_anims > 0) {
		return;
	}
	sc_app_animation_done(&c->app, reason);
}

static const struct vitrail_scene_animation_v1_listener anim_listener = {
	.done = anim_done,
};

static void watch(struct chat *c, struct vitrail_scene_animation_v1 *anim) {
	vitrail_scene_animation_v1_add_listener(anim, &anim_listener, c);
	c->pending_anims++;
}

static void send_message(struct chat *c) {
	if (c->nbubbles == MAX_MESSAGES) {
		return;
	}
	static const struct message out = { "On my way!", true };
	size_t index = c->nbubbles;
	struct vitrail_scene_node_v1 *node = make_bubble(c, &out, index);
	c->bubbles[c->nbubbles++] = node;
	sc_node_set_children(c->list, c->bubbles, c->nbubbles);

	// It starts transparent, 24 px low, then fades and springs up.
	double y = bubble_y(index);
	double x = WIDTH - 12 - fmin(24.0 + 8.2 * strlen(out.text), WIDTH - 72);
	sc_node_set_position(node, x, y + 24);
	vitrail_scene_node_v1_set_opacity(node, 0);
	double opaque = 1.0, linear[1] = { 0 };
	watch(c,
			sc_node_animate(node, VITRAIL_SCENE_NODE_V1_PROPERTY_OPACITY,
					&opaque, 1, SEND_MS, VITRAIL_SCENE_NODE_V1_CURVE_LINEAR,
					linear, 0));
	double place[2] = { x, y };
	double spring[3] = { 300, 22, 1 };
	watch(c,
			sc_node_animate(node, VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION,
					place, 2, SEND_MS * 2, VITRAIL_SCENE_NODE_V1_CURVE_SPRING,
					spring, 3));

	// Scroll so that the new bubble shows.
	double bottom = bubble_y(index) + BUBBLE_H + 12;
	if (bottom - c->scroll > LIST_H) {
		c->scroll = bottom - LIST_H;
		double target[2] = { 0, -c->scroll };
		double ease[4] = { 0.4, 0.0, 0.2, 1.0 };
		watch(c,
				sc_node_animate(c->list,
						VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION, target, 2,
						SEND_MS, VITRAIL_SCENE_NODE_V1_CURVE_CUBIC_BEZIER, ease,
						4));
	}
	wl_surface_commit(c->app.surface);
}

static void handle_tap(struct sc_app *app, double x, double y) {
	struct chat *c = wl_container_of(app, c, app);
	if (y >= HEIGHT - BAR_H) {
		send_message(c);
	}
}

static void handle_timer(struct sc_app *app) {
	struct chat *c = wl_container_of(app, c, app);
	send_message(c);
}

int main(int argc, char *argv[]) {
	struct chat c = { 0 };
	static const struct sc_client client = {
		.name = "vitrail-scene-chat",
		.title = "Chat",
		.width = WIDTH,
		.height = HEIGHT,
		.build = build,
		.on_tap = handle_tap,
		.on_timer = handle_timer,
	};
	return sc_client_main(&c.app, &client, argc, argv);
}
