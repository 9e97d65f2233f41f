/*
 * vitrail-scroll-list: a list of 1,000 rows of text and images that vitrail
 * scrolls (vitrail_scroll_v1), rendering a new extended frame only when
 * vitrail asks for one (frame_needed).
 *
 * The window: a header, then the list's scroll region below it. Each row
 * (64 pixels) has a coloured bar, an avatar image (one of eight), a title
 * and a subtitle. Two ways to draw it:
 * - scene (default): the rows are vitrail_scene_v1 nodes (display lists of
 *   a rect, an image and two texts, shaped and rasterised by vitrail), in a
 *   viewport node with a rounded clip; the frame is the node holding the
 *   rows of the extended frame (attach_node);
 * - --shm: the rows are drawn with this file's own code (fills, an 5x7
 *   bitmap font, aliased avatars) into a wl_shm buffer (attach_buffer).
 *
 * --rerender is the baseline: the same client without vitrail_scroll_v1,
 * scrolling itself (wl_pointer axis events, with a fling after an axis stop,
 * touch drags with a fling at the lift, the same fling model as vitrail's,
 * pacing/scroll.h) and re-rendering the visible rows at every frame while
 * it moves: in scene mode new display lists for every visible row, in shm
 * mode the rows drawn again into the window's buffer.
 *
 * Every pixel of a row depends only on its content coordinates, so a
 * window of the list at position p is the same pixels whichever frame it
 * comes from: what the tests and the benchmark compare.
 *
 * It prints, for the tests and the benchmark: "frame <CLOCK_MONOTONIC ns>
 * <y> <height>" for every frame it renders (y: the content row it starts
 * at), "position <y>" for every position event (or, with --rerender, every
 * position it renders), "frames <n>" when it ends (SIGTERM).
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pacing/scroll.h"
#include "scene-client.h"
#include "vitrail-scroll-v1-client-protocol.h"

#define ROW_H 64
#define HEADER_H 48
#define AVATARS 8
#define AVATAR 48
#define PERIOD_NS 16666667ull

static const uint32_t background = 0xffe8e8ee;
static const uint32_t header_bg = 0xff283040;
static const uint32_t title_color = 0xffffffff;
static const uint32_t text_color = 0xff202028;
static const uint32_t subtitle_color = 0xff606070;

struct list {
	struct sc_app app;
	bool shm, rerender;
	int32_t width, height, rows;
	int32_t region_h, content_h;
	double fling_tau;

	struct vitrail_scroll_manager_v1 *scroll_manager;
	struct vitrail_scroll_region_v1 *region;

	/* scene */
	struct vitrail_scene_v1 *scene;
	struct vitrail_scene_node_v1 *root, *header, *viewport, *content;
	struct vitrail_scene_image_v1 *avatars[AVATARS];
	struct vitrail_scene_node_v1 **row_nodes; // by row, NULL when none
	int32_t first_row, last_row; // rows with nodes: [first, last)

	/* shm */
	struct sc_buffer *frame_buffer; // the extended frame's pixels
	struct sc_buffer *window[2]; // --rerender: the window's buffers
	bool window_busy[2];

	uint64_t frames; // rendered

	/* --rerender: scrolling itself */
	double pos;
	bool dirty;
	struct wl_callback *frame_callback;
	struct vt_scroll_velocity velocity;
	struct vt_fling fling;
	bool dragging;
	int32_t touch_id;
	double drag_from, drag_pos;
};

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the content: pure functions of content coordinates ----------------- */

/* The accent bar's colour of row r. */
static uint32_t row_accent(int32_t r) {
	static const uint32_t accents[] = {
		0xffd04040,
		0xffe08020,
		0xffc0b020,
		0xff40a040,
		0xff20a0a0,
		0xff3060d0,
		0xff7040c0,
		0xffc04090,
	};
	return accents[(r * 5 + r / 8) % 8];
}

static uint32_t row_background(int32_t r) {
	return r % 2 == 0 ? 0xfffafafc : 0xffeef0f4;
}

/* Avatar k's pixel at x, y (premultiplied, opaque or transparent): a
 * striped disc, aliased. */
static uint32_t avatar_pixel(int k, int x, int y) {
	int dx = 2 * x + 1 - AVATAR, dy = 2 * y + 1 - AVATAR;
	if (dx * dx + dy * dy > (AVATAR - 4) * (AVATAR - 4)) {
		return 0;
	}
	static const uint32_t colors[AVATARS] = {
		0xff3a6ea5,
		0xffc0504d,
		0xff9bbb59,
		0xff8064a2,
		0xff4bacc6,
		0xfff79646,
		0xff2c4d75,
		0xff772c2a,
	};
	bool stripe = ((x + y + 2 * k) / 6) % 2 == 0;
	if (stripe) {
		return colors[k];
	}
	/* a third of the way to white */
	uint32_t light = 0xff000000;
	for (int shift = 0; shift < 24; shift += 8) {
		uint32_t c = (colors[k] >> shift) & 0xff;
		light |= (c + (255 - c) / 3) << shift;
	}
	return light;
}

/* A 5x7 font of the characters the list shows, drawn here. */
struct glyph {
	char c;
	const char *rows[7];
};

static const struct glyph font[] = {
	{ '0', { ".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###." } },
	{ '1', { "..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###." } },
	{ '2', { ".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####" } },
	{ '3', { "####.", "....#", "....#", ".###.", "....#", "....#", "####." } },
	{ '4', { "...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#." } },
	{ '5', { "#####", "#....", "####.", "....#", "....#", "#...#", ".###." } },
	{ '6', { "..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###." } },
	{ '7', { "#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..." } },
	{ '8', { ".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###." } },
	{ '9', { ".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.." } },
	{ 'C', { ".###.", "#...#", "#....", "#....", "#....", "#...#", ".###." } },
	{ 'E', { "#####", "#....", "#....", "####.", "#....", "#....", "#####" } },
	{ 'F', { "#####", "#....", "#....", "####.", "#....", "#....", "#...." } },
	{ 'I', { ".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###." } },
	{ 'L', { "#....", "#....", "#....", "#....", "#....", "#....", "#####" } },
	{ 'M', { "#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#" } },
	{ 'O', { ".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###." } },
	{ 'R', { "####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#" } },
	{ 'S', { ".####", "#....", "#....", ".###.", "....#", "....#", "####." } },
	{ 'T', { "#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.." } },
	{ 'W', { "#...#", "#...#", "#...#", "#.#.#", "#.#.#", "##.##", "#...#" } },
};

static const struct glyph *glyph_of(char c) {
	for (size_t i = 0; i < sizeof(font) / sizeof(font[0]); i++) {
		if (font[i].c == c) {
			return &font[i];
		}
	}
	return NULL; // a space
}

/* Pixels of a buffer: rows [y0, y1) of it hold content rows from
 * content_y (buffer row y shows content row content_y + y - y0). */
struct canvas {
	uint32_t *px;
	int32_t width, stride; // stride in pixels
	int32_t y0, y1;
	int32_t content_y;
};

/* Fill the content rectangle x, y, w, h (content coordinates) clipped to
 * the canvas. */
static void fill(const struct canvas *cv, int32_t x, int32_t y, int32_t w,
		int32_t h, uint32_t color) {
	int32_t top = y - cv->content_y + cv->y0;
	int32_t from = top > cv->y0 ? top : cv->y0;
	int32_t to = top + h < cv->y1 ? top + h : cv->y1;
	int32_t left = x > 0 ? x : 0;
	int32_t right = x + w < cv->width ? x + w : cv->width;
	for (int32_t row = from; row < to; row++) {
		uint32_t *p = cv->px + (size_t)row * (size_t)cv->stride;
		for (int32_t col = left; col < right; col++) {
			p[col] = color;
		}
	}
}

static void text(const struct canvas *cv, int32_t x, int32_t y, const char *s,
		int scale, uint32_t color) {
	for (; *s != '\0'; s++, x += 6 * scale) {
		const struct glyph *g = glyph_of(*s);
		for (int row = 0; g != NULL && row < 7; row++) {
			for (int col = 0; col < 5; col++) {
				if (g->rows[row][col] == '#') {
					fill(cv, x + col * scale, y + row * scale, scale, scale,
							color);
				}
			}
		}
	}
}

static void avatar(const struct canvas *cv, int32_t x, int32_t y, int k) {
	for (int v = 0; v < AVATAR; v++) {
		for (int u = 0; u < AVATAR; u++) {
			uint32_t p = avatar_pixel(k, u, v);
			if (p != 0) {
				fill(cv, x + u, y + v, 1, 1, p);
			}
		}
	}
}

/* Content rows [content_y, content_y + y1 - y0) into the canvas. */
static void draw_rows(const struct list *list, const struct canvas *cv) {
	int32_t span = cv->y1 - cv->y0;
	fill(cv, 0, cv->content_y, cv->width, span, background);
	int32_t first = cv->content_y / ROW_H;
	int32_t last = (cv->content_y + span + ROW_H - 1) / ROW_H;
	for (int32_t r = first; r < last && r < list->rows; r++) {
		int32_t top = r * ROW_H;
		char title[32], subtitle[48];
		snprintf(title, sizeof(title), "ROW %d", r);
		snprintf(subtitle, sizeof(subtitle), "ITEM %d OF %d", r + 1,
				list->rows);
		fill(cv, 0, top, cv->width, ROW_H - 1, row_background(r));
		fill(cv, 0, top + ROW_H - 1, cv->width, 1, 0xffc8c8d0);
		fill(cv, 0, top, 6, ROW_H - 1, row_accent(r));
		avatar(cv, 14, top + 8, r % AVATARS);
		text(cv, 76, top + 10, title, 3, text_color);
		text(cv, 76, top + 40, subtitle, 2, subtitle_color);
	}
}

static void draw_header(const struct list *list, uint32_t *px, int32_t stride) {
	struct canvas cv = {
		.px = px,
		.width = list->width,
		.stride = stride,
		.y0 = 0,
		.y1 = HEADER_H,
		.content_y = 0,
	};
	fill(&cv, 0, 0, list->width, HEADER_H, header_bg);
	text(&cv, 16, 14, "SCROLL LIST", 3, title_color);
}

/* ---- scene rows ------------------------------------------------------------
 */

static void row_list(struct list *list, struct vitrail_scene_node_v1 *node,
		int32_t r) {
	struct sc_dl dl;
	sc_dl_init(&dl);
	char title[32], subtitle[48];
	snprintf(title, sizeof(title), "Row %d", r);
	snprintf(subtitle, sizeof(subtitle), "Item %d of %d", r + 1, list->rows);
	sc_dl_rect(&dl, 0, 0, (float)list->width, ROW_H - 1,
			SC_FILL(row_background(r)));
	sc_dl_rect(&dl, 0, ROW_H - 1, (float)list->width, 1, SC_FILL(0xffc8c8d0));
	sc_dl_rect(&dl, 0, 0, 6, ROW_H - 1, SC_FILL(row_accent(r)));
	sc_dl_image(&dl,
			wl_proxy_get_id((struct wl_proxy *)list->avatars[r % AVATARS]),
			1.0f, 0, 0, 0, 0, 14, 8, AVATAR, AVATAR);
	sc_dl_text(&dl, 76, 30, text_color, 22, 700, "DejaVu Sans", title);
	sc_dl_text(&dl, 76, 52, subtitle_color, 14, 400, "DejaVu Sans", subtitle);
	sc_node_set_list(&list->app, node, &dl);
}

/* The content node holds rows [first, last) placed for content_y at its
 * origin; fresh: every row gets a new display list (--rerender), else
 * only rows that had no node. */
static void scene_rows(struct list *list, int32_t content_y, int32_t height,
		bool fresh) {
	int32_t first = content_y / ROW_H;
	int32_t last = (content_y + height + ROW_H - 1) / ROW_H;
	if (last > list->rows) {
		last = list->rows;
	}
	for (int32_t r = list->first_row; r < list->last_row; r++) {
		if ((r < first || r >= last) && list->row_nodes[r] != NULL) {
			vitrail_scene_node_v1_destroy(list->row_nodes[r]);
			list->row_nodes[r] = NULL;
		}
	}
	struct vitrail_scene_node_v1 **children =
			calloc((size_t)(last - first + 1), sizeof(*children));
	if (children == NULL) {
		abort();
	}
	for (int32_t r = first; r < last; r++) {
		struct vitrail_scene_node_v1 *node = list->row_nodes[r];
		if (node == NULL) {
			node = vitrail_scene_v1_create_node(list->scene);
			list->row_nodes[r] = node;
			row_list(list, node, r);
		} else if (fresh) {
			row_list(list, node, r);
		}
		sc_node_set_position(node, 0, r * ROW_H - content_y);
		children[r - first] = node;
	}
	sc_node_set_children(list->content, children, (size_t)(last - first));
	free(children);
	list->first_row = first;
	list->last_row = last;
}

static void build_scene(struct list *list) {
	struct sc_app *app = &list->app;
	list->scene =
			vitrail_scene_manager_v1_get_scene(app->manager, app->surface);
	uint32_t *pixels = calloc(AVATAR * AVATAR, sizeof(*pixels));
	if (pixels == NULL) {
		abort();
	}
	for (int k = 0; k < AVATARS; k++) {
		for (int y = 0; y < AVATAR; y++) {
			for (int x = 0; x < AVATAR; x++) {
				pixels[y * AVATAR + x] = avatar_pixel(k, x, y);
			}
		}
		list->avatars[k] = sc_image_create(app, AVATAR, AVATAR, pixels);
	}
	free(pixels);
	list->root = vitrail_scene_v1_create_node(list->scene);
	list->header = vitrail_scene_v1_create_node(list->scene);
	list->viewport = vitrail_scene_v1_create_node(list->scene);
	list->content = vitrail_scene_v1_create_node(list->scene);
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, (float)list->width, HEADER_H, SC_FILL(header_bg));
	sc_dl_text(&dl, 16, 32, title_color, 20, 700, "DejaVu Sans", "Scroll list");
	sc_node_set_list(app, list->header, &dl);
	/* the viewport clips the region, rounded at the corners */
	sc_node_set_position(list->viewport, 0, HEADER_H);
	vitrail_scene_node_v1_set_clip(list->viewport, 0, 0,
			wl_fixed_from_int(list->width), wl_fixed_from_int(list->region_h),
			wl_fixed_from_int(12));
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, (float)list->width, (float)list->region_h,
			SC_FILL(background));
	sc_node_set_list(app, list->viewport, &dl);
	sc_node_set_children(list->viewport, &list->content, 1);
	struct vitrail_scene_node_v1 *top[] = { list->header, list->viewport };
	sc_node_set_children(list->root, top, 2);
	vitrail_scene_v1_set_root(list->scene, list->root);
}

/* ---- frames ------------------------------------------------------------- */

static void print_frame(struct list *list, int32_t y, int32_t height) {
	list->frames++;
	printf("frame %llu %d %d\n", (unsigned long long)now_ns(), y, height);
	fflush(stdout);
}

/* The extended frame vitrail asked for: content rows from y, height. */
static void render_frame(struct list *list, int32_t y, int32_t height) {
	struct sc_app *app = &list->app;
	if (y < 0) {
		y = 0;
	}
	if (y + height > list->content_h) {
		height = list->content_h - y;
	}
	if (height < list->region_h && list->content_h >= list->region_h) {
		/* never shorter than the window */
		height = list->region_h;
		y = list->content_h - height < y ? list->content_h - height : y;
	}
	if (list->shm) {
		struct sc_buffer *b = list->frame_buffer;
		if (b == NULL || b->height != height) {
			sc_buffer_destroy(b);
			b = list->frame_buffer = sc_buffer_create(app, list->width, height,
					WL_SHM_FORMAT_XRGB8888, background);
		}
		struct canvas cv = {
			.px = b->pixels,
			.width = list->width,
			.stride = list->width,
			.y0 = 0,
			.y1 = height,
			.content_y = y,
		};
		draw_rows(list, &cv);
		/* vitrail copies the pixels during the request */
		vitrail_scroll_region_v1_attach_buffer(list->region, b->wl_buffer, 0, y,
				list->width, list->content_h);
	} else {
		scene_rows(list, y, height, false);
		vitrail_scroll_region_v1_attach_node(list->region, list->content,
				list->width, height, 0, y, list->width, list->content_h);
	}
	wl_surface_commit(app->surface);
	print_frame(list, y, height);
}

static void region_frame_needed(void *data,
		struct vitrail_scroll_region_v1 *region, int32_t x, int32_t y,
		int32_t width, int32_t height) {
	render_frame(data, y, height);
}

static void region_position(void *data, struct vitrail_scroll_region_v1 *region,
		int32_t x, int32_t y, uint32_t display_ns_hi, uint32_t display_ns_lo) {
	uint64_t display = (uint64_t)display_ns_hi << 32 | display_ns_lo;
	printf("position %d %llu\n", y, (unsigned long long)display);
	fflush(stdout);
}

static const struct vitrail_scroll_region_v1_listener region_listener = {
	.frame_needed = region_frame_needed,
	.position = region_position,
};

/* ---- --rerender: scrolling itself ---------------------------------------- */

static void window_release(void *data, struct wl_buffer *buffer) {
	bool *busy = data;
	*busy = false;
}

static const struct wl_buffer_listener window_buffer_listener = {
	.release = window_release,
};

static int32_t max_position(const struct list *list) {
	int32_t max = list->content_h - list->region_h;
	return max > 0 ? max : 0;
}

static double clamp_position(const struct list *list, double pos) {
	if (!(pos > 0.0)) {
		return 0.0;
	}
	return pos < max_position(list) ? pos : max_position(list);
}

static void schedule(struct list *list);

/* Draw the visible rows at the position now: what a client that scrolls
 * itself does at every frame. */
static void rerender(struct list *list) {
	struct sc_app *app = &list->app;
	int32_t y = (int32_t)floor(list->pos + 0.5);
	list->dirty = false;
	if (list->shm) {
		int k = list->window_busy[0] ? 1 : 0;
		if (list->window_busy[k]) {
			/* both with vitrail: again at the next frame */
			list->dirty = true;
			schedule(list);
			wl_surface_commit(app->surface);
			return;
		}
		struct sc_buffer *b = list->window[k];
		struct canvas cv = {
			.px = b->pixels + (size_t)HEADER_H * (size_t)list->width,
			.width = list->width,
			.stride = list->width,
			.y0 = 0,
			.y1 = list->region_h,
			.content_y = y,
		};
		draw_rows(list, &cv);
		list->window_busy[k] = true;
		wl_surface_attach(app->surface, b->wl_buffer, 0, 0);
		wl_surface_damage_buffer(app->surface, 0, HEADER_H, list->width,
				list->region_h);
	} else {
		scene_rows(list, y, list->region_h, true);
	}
	schedule(list);
	wl_surface_commit(app->surface);
	print_frame(list, y, list->region_h);
	printf("position %d %llu\n", y, (unsigned long long)now_ns());
	fflush(stdout);
}

static void frame_done(void *data, struct wl_callback *callback,
		uint32_t time) {
	struct list *list = data;
	wl_callback_destroy(callback);
	list->frame_callback = NULL;
	if (list->fling.active) {
		/* shown about a refresh from now */
		uint64_t t = now_ns() + PERIOD_NS;
		list->pos = vt_fling_position(&list->fling, t);
		if (vt_fling_done(&list->fling, t)) {
			list->fling.active = false;
		}
		list->dirty = true;
	}
	if (list->dirty) {
		rerender(list);
	}
}

static const struct wl_callback_listener frame_listener = {
	.done = frame_done,
};

static void schedule(struct list *list) {
	if (list->frame_callback == NULL) {
		list->frame_callback = wl_surface_frame(list->app.surface);
		wl_callback_add_listener(list->frame_callback, &frame_listener, list);
	}
}

/* The position moved: draw now unless a frame is on its way. */
static void moved(struct list *list) {
	uint64_t t = now_ns();
	vt_scroll_velocity_add(&list->velocity, t, t, list->pos);
	list->dirty = true;
	if (list->frame_callback == NULL) {
		rerender(list);
	}
}

static void start_fling(struct list *list) {
	uint64_t now = now_ns();
	double v = vt_scroll_velocity_get(&list->velocity, now);
	if (fabs(v) >= VT_FLING_MIN_VELOCITY &&
			vt_fling_start(&list->fling, now, list->pos, v, list->fling_tau,
					VT_FLING_STOP_VELOCITY, 0.0, max_position(list))) {
		list->dirty = true;
		if (list->frame_callback == NULL) {
			schedule(list);
			wl_surface_commit(list->app.surface);
		}
	}
	vt_scroll_velocity_reset(&list->velocity);
}

static bool in_region(const struct list *list, double y) {
	return y >= HEADER_H && y < list->height;
}

static void on_axis(struct sc_app *app, uint32_t axis, double value) {
	struct list *list = (struct list *)app;
	if (axis != WL_POINTER_AXIS_VERTICAL_SCROLL ||
			!in_region(list, app->pointer_y)) {
		return;
	}
	list->fling.active = false;
	list->pos = clamp_position(list, list->pos + value);
	moved(list);
}

static void on_axis_stop(struct sc_app *app, uint32_t axis) {
	struct list *list = (struct list *)app;
	if (axis == WL_POINTER_AXIS_VERTICAL_SCROLL &&
			in_region(list, app->pointer_y)) {
		start_fling(list);
	}
}

static void on_touch(struct sc_app *app, enum sc_touch what, int32_t id,
		double x, double y) {
	struct list *list = (struct list *)app;
	switch (what) {
	case SC_TOUCH_DOWN:
		if (!list->dragging && in_region(list, y)) {
			list->dragging = true;
			list->touch_id = id;
			list->drag_from = y;
			list->drag_pos = list->pos;
			list->fling.active = false;
			vt_scroll_velocity_reset(&list->velocity);
			uint64_t t = now_ns();
			vt_scroll_velocity_add(&list->velocity, t, t, list->pos);
		}
		break;
	case SC_TOUCH_MOTION:
		if (list->dragging && id == list->touch_id) {
			list->pos = clamp_position(list,
					list->drag_pos - (y - list->drag_from));
			moved(list);
		}
		break;
	case SC_TOUCH_UP:
		if (list->dragging && id == list->touch_id) {
			list->dragging = false;
			start_fling(list);
		}
		break;
	}
}

/* ---- setup -------------------------------------------------------------- */

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct list *list = data;
	if (strcmp(interface, vitrail_scroll_manager_v1_interface.name) == 0) {
		list->scroll_manager = wl_registry_bind(registry, name,
				&vitrail_scroll_manager_v1_interface, 1);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
	// The manager lives as long as vitrail.
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static bool parse_size(const char *s, int32_t *w, int32_t *h) {
	return sscanf(s, "%dx%d", w, h) == 2 && *w >= 64 && *w <= 4096 &&
			*h > HEADER_H + ROW_H && *h <= 6000;
}

int main(int argc, char *argv[]) {
	struct list list = {
		.width = 480,
		.height = 720,
		.rows = 1000,
		.fling_tau = VT_FLING_TAU_DEFAULT,
	};
	const char *app_id = "vitrail-scroll-list";
	static const struct option options[] = {
		{ "shm", no_argument, NULL, 's' },
		{ "rerender", no_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 'z' },
		{ "rows", required_argument, NULL, 'n' },
		{ "fling-ms", required_argument, NULL, 'f' },
		{ "app-id", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		int ms;
		switch (opt) {
		case 's': list.shm = true; break;
		case 'r': list.rerender = true; break;
		case 'z':
			if (!parse_size(optarg, &list.width, &list.height)) {
				fprintf(stderr, "bad --size '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'n':
			list.rows = atoi(optarg);
			if (list.rows < 1 || list.rows > 100000) {
				fprintf(stderr, "bad --rows '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'f':
			if (!sc_parse_ms(optarg, &ms) || ms < 50 || ms > 5000) {
				fprintf(stderr, "bad --fling-ms '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			list.fling_tau = ms / 1000.0;
			break;
		case 'a': app_id = optarg; break;
		default:
			fprintf(opt == 'h' ? stdout : stderr,
					"usage: %s [--shm] "
					"[--rerender] [--size WxH] [--rows N] [--fling-ms MS] "
					"[--app-id ID]\n",
					argv[0]);
			return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
		}
	}
	list.region_h = list.height - HEADER_H;
	list.content_h = list.rows * ROW_H;
	list.row_nodes = calloc((size_t)list.rows, sizeof(*list.row_nodes));
	struct sc_app *app = &list.app;
	app->seat_version = 5; /* axis sources and stops (--rerender) */
	if (list.row_nodes == NULL || !sc_app_init(app, "vitrail-scroll-list")) {
		return EXIT_FAILURE;
	}
	struct wl_registry *registry = wl_display_get_registry(app->display);
	wl_registry_add_listener(registry, &registry_listener, &list);
	wl_display_roundtrip(app->display);
	if (!list.rerender && list.scroll_manager == NULL) {
		fprintf(stderr,
				"vitrail-scroll-list: no vitrail_scroll_manager_v1 "
				"(run with --rerender)\n");
		return EXIT_FAILURE;
	}
	if (!sc_app_create_window(app, app_id, "Scroll list", list.width,
				list.height, list.shm ? background : 0)) {
		return EXIT_FAILURE;
	}
	if (list.shm) {
		/* the header in the window's own buffer */
		draw_header(&list, app->buffer->pixels, list.width);
		for (int k = 0; k < 2 && list.rerender; k++) {
			list.window[k] = sc_buffer_create(app, list.width, list.height,
					WL_SHM_FORMAT_XRGB8888, background);
			draw_header(&list, list.window[k]->pixels, list.width);
			wl_buffer_add_listener(list.window[k]->wl_buffer,
					&window_buffer_listener, &list.window_busy[k]);
		}
	} else {
		build_scene(&list);
	}
	if (list.rerender) {
		app->on_axis = on_axis;
		app->on_axis_stop = on_axis_stop;
		app->on_touch = on_touch;
		rerender(&list);
	} else {
		list.region =
				vitrail_scroll_manager_v1_get_scroll_region(list.scroll_manager,
						app->surface, VITRAIL_SCROLL_REGION_V1_AXIS_VERTICAL, 0,
						HEADER_H, list.width, list.region_h);
		vitrail_scroll_region_v1_add_listener(list.region, &region_listener,
				&list);
		wl_surface_commit(app->surface);
	}
	int status = sc_app_run(app);
	printf("frames %llu\n", (unsigned long long)list.frames);
	fflush(stdout);

	if (list.frame_callback != NULL) {
		wl_callback_destroy(list.frame_callback);
	}
	if (list.region != NULL) {
		vitrail_scroll_region_v1_destroy(list.region);
	}
	if (list.scroll_manager != NULL) {
		vitrail_scroll_manager_v1_destroy(list.scroll_manager);
	}
	for (int32_t r = 0; r < list.rows; r++) {
		if (list.row_nodes[r] != NULL) {
			vitrail_scene_node_v1_destroy(list.row_nodes[r]);
		}
	}
	free(list.row_nodes);
	if (list.scene != NULL) {
		vitrail_scene_node_v1_destroy(list.content);
		vitrail_scene_node_v1_destroy(list.viewport);
		vitrail_scene_node_v1_destroy(list.header);
		vitrail_scene_node_v1_destroy(list.root);
		for (int k = 0; k < AVATARS; k++) {
			vitrail_scene_image_v1_destroy(list.avatars[k]);
		}
		vitrail_scene_v1_destroy(list.scene);
	}
	sc_buffer_destroy(list.frame_buffer);
	sc_buffer_destroy(list.window[0]);
	sc_buffer_destroy(list.window[1]);
	wl_registry_destroy(registry);
	sc_app_finish(app);
	return status;
}
