/*
 * X11 clients through Xwayland (xwayland.c), end to end with real X
 * clients; skipped (77) only where Xwayland is not installed.
 *
 * x11_window: vitrail headless (one 640x480 output) says on --ready-fd
 * which DISPLAY it offers; xlogo (x11-apps) runs there at 200x150 (no
 * border: an X border is drawn inside the window's surface). Its
 * window appears in the test protocol's window list at that size, with
 * its WM_CLASS class "XLogo" as app_id, and grim's screenshot shows
 * xlogo's own drawing inside the window's box: both of its colours,
 * black and white, in quantity; vitrail's frame around it (vitrail(5):
 * a border of 4 pixels in the focused colour #2f5d8a, above the 24 of
 * the title bar), and vitrail's background all around the frame.
 * Killed, xlogo's window leaves the list and the screen, vitrail keeps
 * running, and a second X client (after the first one's Xwayland
 * connection is gone) still gets a window; vitrail exits cleanly. With
 * --no-xwayland, or the configuration's xwayland off, vitrail reports no
 * DISPLAY.
 *
 * focus: an xdg window (a scene-client window of one colour) and an X11
 * window of this test's own (xcb, a background pixel of another colour)
 * side by side: the X window moves itself (ConfigureWindow, honoured for
 * a floating window) beside the xdg one, and the screenshot shows both
 * colours where the list says the windows are. The X window mapped last,
 * so it has the focus, as the X server itself says (GetInputFocus).
 * Clicking the xdg window with the emulated pointer takes the X focus
 * away and puts the xdg window in front; clicking the X window gives it
 * back, and the X client receives FocusIn for it.
 *
 * override_fullscreen, close_binding, move_resize, frame, input_model and
 * two_outputs: see their tests.
 *
 * Environment as test_integration.c.
 */
#define _GNU_SOURCE // asprintf, memfd_create
#include <check.h>
#include <linux/input-event-codes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <vitrail/renderer.h>
#include <wayland-client.h>
#include <xcb/xcb.h>
#include <xkbcommon/xkbcommon.h>

#include "harness.h"
#include "keys.h"
#include "scene-client.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"

#define OUTPUT "HEADLESS-1"

/* Wait until the window list has one with app_id, or none when gone. */
static const struct harness_window *wait_window(struct harness_vitrail *v,
		const char *app_id, bool gone) {
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WINDOWS_TIMEOUT_MS);
	for (;;) {
		const struct harness_window *all;
		harness_list_windows(v->conn, &all);
		const struct harness_window *w = harness_find_window(v->conn, app_id);
		if ((w == NULL) == gone) {
			return w;
		}
		if (harness_now_ms() > deadline) {
			char *list = harness_describe_windows(v->conn);
			ck_abort_msg("the window '%s' did not %s within %d ms; "
						 "windows:\n%s",
					app_id, gone ? "go" : "appear", HARNESS_WINDOWS_TIMEOUT_MS,
					list);
			free(list);
		}
		harness_assert_alive(v->proc);
		harness_sleep_ms(50);
	}
}

/* vitrail's frame around a managed X window (vitrail(5), decorations):
 * a title bar of 24 pixels above it, a border of 4 around both, in
 * #2f5d8a while the window has the focus, #4a4f57 while not. */
#define FRAME_BORDER 4
#define FRAME_TITLE 24
#define FRAME_TOP (FRAME_TITLE + FRAME_BORDER)
#define FRAME_FOCUSED 0x2f5d8au
#define FRAME_UNFOCUSED 0x4a4f57u

/* The colours of the tests' own xdg and X windows. */
#define XDG_RGB 0x2060e0u
#define X_RGB 0x30c040u

/* A connection to vitrail's X display; its screen in *screen. */
static xcb_connection_t *x_connect(struct harness_vitrail *v,
		xcb_screen_t **screen) {
	xcb_connection_t *conn = xcb_connect(v->x_display, NULL);
	ck_assert_msg(!xcb_connection_has_error(conn),
			"cannot connect to "
			"DISPLAY=%s",
			v->x_display);
	*screen = xcb_setup_roots_iterator(xcb_get_setup(conn)).data;
	return conn;
}

/* A window of solid rgb at x, y (override-redirect: a menu's, not
 * managed), selecting event_mask, not mapped. */
static xcb_window_t x_window(xcb_connection_t *conn, xcb_screen_t *screen,
		int16_t x, int16_t y, uint16_t w, uint16_t h, uint32_t rgb,
		bool override_redirect, uint32_t event_mask) {
	xcb_window_t window = xcb_generate_id(conn);
	uint32_t values[] = { rgb, override_redirect ? 1 : 0, event_mask };
	xcb_create_window(conn, XCB_COPY_FROM_PARENT, window, screen->root, x, y, w,
			h, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
			XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK,
			values);
	return window;
}

/* A managed 200x100 window of X_RGB with WM_CLASS class ("instance\0Class",
 * size bytes), mapped; returns it once vitrail lists it (app_id Class). */
static xcb_window_t x_managed_window(struct harness_vitrail *v,
		xcb_connection_t *conn, xcb_screen_t *screen, const char *class,
		size_t size, uint32_t event_mask,
		const struct harness_window **listed) {
	xcb_window_t window =
			x_window(conn, screen, 0, 0, 200, 100, X_RGB, false, event_mask);
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, window, XCB_ATOM_WM_CLASS,
			XCB_ATOM_STRING, 8, (uint32_t)size, class);
	xcb_map_window(conn, window);
	xcb_flush(conn);
	*listed = wait_window(v, class + strlen(class) + 1, false);
	return window;
}

/* grim's screenshot of the output (premultiplied ARGB, w x h). */
static uint32_t *screenshot_of(struct harness *harness,
		struct harness_vitrail *vitrail, const char *output, const char *name,
		int32_t *w, int32_t *h, char **path_out) {
	harness_settle(vitrail->conn);
	char *path;
	ck_assert(asprintf(&path, "%s/%s.png", harness->out_dir, name) > 0);
	int status = harness_grim(harness, vitrail, output, path);
	ck_assert_msg(status == 0, "grim failed with status %d", status);
	uint32_t *pixels = vr_png_read(path, w, h);
	ck_assert_msg(pixels != NULL, "cannot read %s", path);
	*path_out = path;
	return pixels;
}

static uint32_t *screenshot(struct harness *harness,
		struct harness_vitrail *vitrail, const char *name, int32_t *w,
		int32_t *h, char **path_out) {
	return screenshot_of(harness, vitrail, OUTPUT, name, w, h, path_out);
}

static bool is_rgb(uint32_t pixel, uint32_t rgb) {
	return (pixel & 0xffffff) == rgb;
}

/* Pixels of the box of colour rgb. */
static long count_rgb(const uint32_t *pixels, int32_t w, int32_t h, int32_t x,
		int32_t y, int32_t bw, int32_t bh, uint32_t rgb) {
	long n = 0;
	for (int32_t py = y; py < y + bh; py++) {
		for (int32_t px = x; px < x + bw; px++) {
			if (px >= 0 && py >= 0 && px < w && py < h &&
					is_rgb(pixels[py * w + px], rgb)) {
				n++;
			}
		}
	}
	return n;
}

/* ---- x11_window --------------------------------------------------------- */

START_TEST(test_xwayland_x11_window) {
	harness_require_program("xlogo", "x11-apps");
	struct harness *harness = harness_create("x11_window");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480" });
	ck_assert_msg(vitrail->x_display != NULL, "vitrail offers no X display");
	ck_assert_msg(vitrail->x_display[0] == ':', "DISPLAY '%s'",
			vitrail->x_display);

	const char *const xlogo_argv[] = { "xlogo", "-bw", "0", "-geometry",
		"200x150", NULL };
	struct harness_proc *xlogo =
			harness_spawn_x11_client(harness, vitrail, xlogo_argv);
	const struct harness_window *w = wait_window(vitrail, "XLogo", false);
	ck_assert_msg(w->width == 200 && w->height == 150,
			"xlogo's window is "
			"%dx%d, not the 200x150 it asked for",
			w->width, w->height);
	ck_assert_str_eq(w->output, OUTPUT);
	int32_t x = w->x, y = w->y;
	ck_assert_msg(x >= 0 && y >= 0 && x + 200 <= 640 && y + 150 <= 480,
			"xlogo's window at %d,%d is not inside the output", x, y);

	/* xlogo draws black on white: a frame may show it before the
	 * client drew, so look until both colours are there */
	int32_t sw, sh;
	char *path;
	long black = 0, white = 0;
	uint32_t *pixels = NULL;
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	for (int shot = 0;; shot++) {
		char name[32];
		snprintf(name, sizeof(name), "xlogo-%d", shot);
		pixels = screenshot(harness, vitrail, name, &sw, &sh, &path);
		black = count_rgb(pixels, sw, sh, x, y, 200, 150, 0x000000);
		white = count_rgb(pixels, sw, sh, x, y, 200, 150, 0xffffff);
		if ((black > 200 * 150 / 20 && white > 200 * 150 / 4) ||
				harness_now_ms() > deadline) {
			break;
		}
		free(pixels);
		free(path);
		harness_sleep_ms(200);
	}
	ck_assert_msg(black > 200 * 150 / 20 && white > 200 * 150 / 4,
			"xlogo's box %d,%d 200x150 in %s has %ld black and %ld white "
			"pixels: not xlogo's drawing",
			x, y, path, black, white);
	/* black or white, only inside the box; vitrail's frame around it
	 * (the border below, beside and above the title bar); the background
	 * all around that */
	uint32_t background = pixels[0];
	ck_assert_msg(!is_rgb(background, 0) && !is_rgb(background, 0xffffff) &&
					!is_rgb(background, FRAME_FOCUSED),
			"the background of %s is black, white or the frame's", path);
	for (int32_t i = 0; i < 200; i += 10) {
		ck_assert_msg(is_rgb(pixels[(y + 151) * sw + x + i], FRAME_FOCUSED) &&
						is_rgb(pixels[(y - FRAME_TITLE - 2) * sw + x + i],
								FRAME_FOCUSED),
				"%s: no frame below or above xlogo's box at x=%d", path, x + i);
		ck_assert_msg(pixels[(y - FRAME_TOP - 2) * sw + x + i] == background &&
						pixels[(y + 150 + FRAME_BORDER + 2) * sw + x + i] ==
								background,
				"%s: pixels above or below xlogo's frame at x=%d", path, x + i);
	}
	for (int32_t i = 0; i < 150; i += 10) {
		ck_assert_msg(is_rgb(pixels[(y + i) * sw + x - 2], FRAME_FOCUSED) &&
						is_rgb(pixels[(y + i) * sw + x + 201], FRAME_FOCUSED),
				"%s: no frame left or right of xlogo's box at y=%d", path,
				y + i);
		ck_assert_msg(pixels[(y + i) * sw + x - FRAME_BORDER - 2] ==
								background &&
						pixels[(y + i) * sw + x + 200 + FRAME_BORDER + 2] ==
								background,
				"%s: pixels left or right of xlogo's frame at y=%d", path,
				y + i);
	}
	/* the title bar holds its title: white text on the frame's colour */
	ck_assert_msg(count_rgb(pixels, sw, sh, x, y - FRAME_TITLE, 100,
						  FRAME_TITLE, 0xffffff) > 20,
			"%s: no title in xlogo's title bar", path);
	free(pixels);
	free(path);

	/* killed: its window goes, from the list and the screen */
	harness_proc_signal(xlogo, SIGKILL);
	ck_assert(harness_proc_wait(xlogo, HARNESS_STOP_TIMEOUT_MS));
	wait_window(vitrail, "XLogo", true);
	harness_assert_alive(vitrail->proc);
	pixels = screenshot(harness, vitrail, "gone", &sw, &sh, &path);
	white = count_rgb(pixels, sw, sh, x, y, 200, 150, 0xffffff);
	long bg = count_rgb(pixels, sw, sh, x, y, 200, 150, background & 0xffffff);
	ck_assert_msg(white == 0 && bg == 200 * 150,
			"%s: xlogo's box still "
			"shows %ld white pixels, %ld of background",
			path, white, bg);
	free(pixels);
	free(path);

	/* the X display still takes clients */
	const char *const again_argv[] = { "xlogo", "-bw", "0", "-geometry",
		"120x90", NULL };
	struct harness_proc *again =
			harness_spawn_x11_client(harness, vitrail, again_argv);
	w = wait_window(vitrail, "XLogo", false);
	ck_assert_int_eq(w->width, 120);
	harness_proc_stop(again);
	wait_window(vitrail, "XLogo", true);
	harness_stop_vitrail(harness, vitrail);

	/* --no-xwayland: no X display */
	const char *const no_args[] = { "--no-xwayland", NULL };
	struct harness_vitrail *none = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.extra_args = no_args });
	ck_assert_msg(none->x_display == NULL,
			"with --no-xwayland, vitrail "
			"offers DISPLAY=%s",
			none->x_display);
	harness_stop_vitrail(harness, none);
	/* nor with the configuration's xwayland off */
	char *config = harness_write_file(harness, "off.conf", "xwayland off\n");
	const char *const off_args[] = { "--config", config, NULL };
	none = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.extra_args = off_args });
	ck_assert_msg(none->x_display == NULL,
			"with xwayland off, vitrail "
			"offers DISPLAY=%s",
			none->x_display);
	harness_stop_vitrail(harness, none);
	free(config);
	harness_destroy(harness);
}
END_TEST

/* ---- focus -------------------------------------------------------------- */

struct x_probe {
	xcb_connection_t *conn;
	xcb_window_t window;
	int focus_in; // FocusIn events for window
};

static void x_probe_events(struct x_probe *p) {
	xcb_generic_event_t *event;
	while ((event = xcb_poll_for_event(p->conn)) != NULL) {
		if ((event->response_type & 0x7f) == XCB_FOCUS_IN &&
				((xcb_focus_in_event_t *)event)->event == p->window) {
			p->focus_in++;
		}
		free(event);
	}
	ck_assert_msg(!xcb_connection_has_error(p->conn),
			"the X connection "
			"broke");
}

static xcb_window_t x_focus(struct x_probe *p) {
	xcb_get_input_focus_reply_t *reply = xcb_get_input_focus_reply(p->conn,
			xcb_get_input_focus(p->conn), NULL);
	ck_assert_msg(reply != NULL, "GetInputFocus failed");
	xcb_window_t focus = reply->focus;
	free(reply);
	x_probe_events(p);
	return focus;
}

/* Wait until the X focus is (has) or is not (!has) the probe's window. */
static void wait_x_focus(struct x_probe *p, struct sc_app *app, bool has,
		const char *when) {
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	xcb_window_t focus;
	while (((focus = x_focus(p)) == p->window) != has) {
		ck_assert_msg(harness_now_ms() < deadline,
				"%s, the X focus is "
				"0x%x, the X window is 0x%x",
				when, focus, p->window);
		wl_display_roundtrip(app->display);
		harness_sleep_ms(50);
	}
}

static const struct harness_window *front_window(struct harness_vitrail *v) {
	const struct harness_window *all;
	size_t n = harness_list_windows(v->conn, &all);
	ck_assert_int_eq(n, 2);
	return &all[0];
}

static void click(struct harness_vitrail *v, struct sc_app *app, double x,
		double y) {
	harness_pointer_move(v->conn, x, y);
	harness_pointer_button(v->conn, BTN_LEFT, true);
	harness_pointer_button(v->conn, BTN_LEFT, false);
	wl_display_roundtrip(app->display);
}

/* A 200x100 xdg window of XDG_RGB, mapped; returns it as listed. */
static const struct harness_window *xdg_window_start(
		struct harness_vitrail *vitrail, struct sc_app *app,
		const char *app_id) {
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	ck_assert(sc_app_init(app, "xdg"));
	ck_assert(sc_app_create_window(app, app_id, app_id, 200, 100,
			0xff000000u | XDG_RGB));
	wl_surface_attach(app->surface, app->buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(app->surface, 0, 0, 200, 100);
	wl_surface_commit(app->surface);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	return wait_window(vitrail, app_id, false);
}

START_TEST(test_xwayland_focus) {
	struct harness *harness = harness_create("focus");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480" });
	ck_assert_msg(vitrail->x_display != NULL, "vitrail offers no X display");

	/* the xdg window */
	struct sc_app app = { 0 };
	const struct harness_window *w =
			xdg_window_start(vitrail, &app, "xdg-side");
	int32_t xdg_x = w->x, xdg_y = w->y;

	/* the X window, this test's own client */
	struct x_probe p = { 0 };
	xcb_screen_t *screen;
	p.conn = x_connect(vitrail, &screen);
	static const char class[] = "xcb-side\0XcbSide";
	p.window = x_managed_window(vitrail, p.conn, screen, class, sizeof(class),
			XCB_EVENT_MASK_FOCUS_CHANGE, &w);
	ck_assert_msg(w->width == 200 && w->height == 100,
			"the X window is "
			"%dx%d, not 200x100",
			w->width, w->height);

	/* beside the xdg window, where the X client puts itself */
	int32_t x_x = xdg_x + 250 + 200 <= 640 ? xdg_x + 250 : 640 - 200;
	int32_t x_y = 480 - 100 - 20;
	uint32_t where[] = { (uint32_t)x_x, (uint32_t)x_y };
	xcb_configure_window(p.conn, p.window,
			XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y, where);
	xcb_flush(p.conn);
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	for (;;) {
		w = wait_window(vitrail, "XcbSide", false);
		if (w->x == x_x && w->y == x_y) {
			break;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"the X window stays "
				"at %d,%d, not the %d,%d it asked for",
				w->x, w->y, x_x, x_y);
		harness_sleep_ms(50);
	}
	ck_assert_msg(x_x >= xdg_x + 200 || x_y >= xdg_y + 100,
			"the windows overlap");

	/* both on screen where the list says: the colours of each */
	int32_t sw, sh;
	char *path;
	uint32_t *pixels = NULL;
	long xdg_n = 0, x_n = 0;
	deadline = harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	for (int shot = 0;; shot++) {
		char name[32];
		snprintf(name, sizeof(name), "side-by-side-%d", shot);
		pixels = screenshot(harness, vitrail, name, &sw, &sh, &path);
		xdg_n = count_rgb(pixels, sw, sh, xdg_x, xdg_y, 200, 100, XDG_RGB);
		x_n = count_rgb(pixels, sw, sh, x_x, x_y, 200, 100, X_RGB);
		if ((xdg_n == 200 * 100 && x_n == 200 * 100) ||
				harness_now_ms() > deadline) {
			break;
		}
		free(pixels);
		free(path);
		harness_sleep_ms(200);
	}
	ck_assert_msg(xdg_n == 200 * 100 && x_n == 200 * 100,
			"%s: %ld of the "
			"xdg window's pixels at %d,%d and %ld of the X window's at %d,%d "
			"have their colours (of 20000 each)",
			path, xdg_n, xdg_x, xdg_y, x_n, x_x, x_y);
	free(pixels);
	free(path);

	/* mapped last, the X window has the focus */
	wait_x_focus(&p, &app, true, "after its map");
	ck_assert_str_eq(front_window(vitrail)->app_id, "XcbSide");

	/* a click on the xdg window takes it */
	click(vitrail, &app, xdg_x + 100, xdg_y + 50);
	wait_x_focus(&p, &app, false, "after a click on the xdg window");
	ck_assert_str_eq(front_window(vitrail)->app_id, "xdg-side");
	int focus_in = p.focus_in;

	/* a click on the X window gives it back */
	click(vitrail, &app, x_x + 100, x_y + 50);
	wait_x_focus(&p, &app, true, "after a click on the X window");
	ck_assert_str_eq(front_window(vitrail)->app_id, "XcbSide");
	deadline = harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	while (p.focus_in == focus_in) {
		ck_assert_msg(harness_now_ms() < deadline,
				"the X client got no "
				"FocusIn for its window after the click");
		x_probe_events(&p);
		harness_sleep_ms(50);
	}

	xcb_disconnect(p.conn);
	wait_window(vitrail, "XcbSide", true);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- override_fullscreen ------------------------------------------------ */

#define OR_RGB 0xc03090u

static xcb_atom_t atom(xcb_connection_t *conn, const char *name) {
	xcb_intern_atom_reply_t *reply = xcb_intern_atom_reply(conn,
			xcb_intern_atom(conn, 0, (uint16_t)strlen(name), name), NULL);
	ck_assert_msg(reply != NULL, "InternAtom %s failed", name);
	xcb_atom_t a = reply->atom;
	free(reply);
	return a;
}

/* The window's geometry as the X server has it. */
static xcb_get_geometry_reply_t x_geometry(xcb_connection_t *conn,
		xcb_window_t window) {
	xcb_get_geometry_reply_t *reply =
			xcb_get_geometry_reply(conn, xcb_get_geometry(conn, window), NULL);
	ck_assert_msg(reply != NULL, "GetGeometry failed");
	xcb_get_geometry_reply_t geometry = *reply;
	free(reply);
	return geometry;
}

static void net_wm_fullscreen(xcb_connection_t *conn, xcb_screen_t *screen,
		xcb_window_t window, bool on) {
	xcb_client_message_event_t event = {
		.response_type = XCB_CLIENT_MESSAGE,
		.format = 32,
		.window = window,
		.type = atom(conn, "_NET_WM_STATE"),
	};
	event.data.data32[0] = on ? 1 : 0; // _NET_WM_STATE_ADD, _REMOVE
	event.data.data32[1] = atom(conn, "_NET_WM_STATE_FULLSCREEN");
	event.data.data32[3] = 1; // from an application
	xcb_send_event(conn, 0, screen->root,
			XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY |
					XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT,
			(const char *)&event);
	xcb_flush(conn);
}

/* Wait until every pixel of the box has colour rgb in a screenshot; fail
 * with how many had it in the last one at the deadline. */
static void wait_box_of(struct harness *harness, struct harness_vitrail *v,
		const char *output, const char *name, int32_t x, int32_t y, int32_t bw,
		int32_t bh, uint32_t rgb, const char *what) {
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	for (int shot = 0;; shot++) {
		char shot_name[64];
		snprintf(shot_name, sizeof(shot_name), "%s-%d", name, shot);
		int32_t sw, sh;
		char *path;
		uint32_t *pixels =
				screenshot_of(harness, v, output, shot_name, &sw, &sh, &path);
		long n = count_rgb(pixels, sw, sh, x, y, bw, bh, rgb);
		free(pixels);
		if (n == (long)bw * bh) {
			free(path);
			return;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"%s: %ld of the %dx%d "
				"pixels at %d,%d are #%06x (%s)",
				path, n, bw, bh, x, y, rgb, what);
		free(path);
		harness_sleep_ms(200);
	}
}

static void wait_box(struct harness *harness, struct harness_vitrail *v,
		const char *name, int32_t x, int32_t y, int32_t bw, int32_t bh,
		uint32_t rgb, const char *what) {
	wait_box_of(harness, v, OUTPUT, name, x, y, bw, bh, rgb, what);
}

/*
 * override_fullscreen: an override-redirect window (a menu's kind) of
 * 100x80 that places itself over the right part of a managed 200x100 X
 * window shows whole in its colour at its X coordinates, above that
 * window, and is no window of the list; unmapped, the window under it
 * shows again. The managed window asks for fullscreen (_NET_WM_STATE):
 * it fills the 640x480 output in the list, in the X server's own
 * geometry and on screen; asking to leave it gives back its 200x100.
 */
START_TEST(test_xwayland_override_fullscreen) {
	struct harness *harness = harness_create("override_fullscreen");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480" });
	ck_assert_msg(vitrail->x_display != NULL, "vitrail offers no X display");
	xcb_screen_t *screen;
	xcb_connection_t *conn = x_connect(vitrail, &screen);

	static const char class[] = "xcb-full\0XcbFull";
	const struct harness_window *w;
	xcb_window_t managed = x_managed_window(vitrail, conn, screen, class,
			sizeof(class), 0, &w);
	int32_t wx = w->x, wy = w->y;
	wait_box(harness, vitrail, "managed", wx, wy, 200, 100, X_RGB,
			"the managed window");

	/* the override-redirect window, half over the managed one */
	int16_t ox = (int16_t)(wx + 150), oy = (int16_t)(wy + 50);
	xcb_window_t menu =
			x_window(conn, screen, ox, oy, 100, 80, OR_RGB, true, 0);
	xcb_map_window(conn, menu);
	xcb_flush(conn);
	wait_box(harness, vitrail, "override", ox, oy, 100, 80, OR_RGB,
			"the override-redirect window, above the managed one");
	const struct harness_window *all;
	ck_assert_msg(harness_list_windows(vitrail->conn, &all) == 1,
			"the override-redirect window is listed as a window:\n%s",
			harness_describe_windows(vitrail->conn));
	xcb_unmap_window(conn, menu);
	xcb_flush(conn);
	wait_box(harness, vitrail, "unmapped", wx, wy, 200, 100, X_RGB,
			"the managed window, the override-redirect one unmapped");

	/* fullscreen, and back */
	net_wm_fullscreen(conn, screen, managed, true);
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	for (;;) {
		w = wait_window(vitrail, "XcbFull", false);
		if (w->x == 0 && w->y == 0 && w->width == 640 && w->height == 480) {
			break;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"fullscreen, the X "
				"window is %dx%d at %d,%d",
				w->width, w->height, w->x, w->y);
		harness_sleep_ms(50);
	}
	xcb_get_geometry_reply_t geo = x_geometry(conn, managed);
	ck_assert_msg(geo.x == 0 && geo.y == 0 && geo.width == 640 &&
					geo.height == 480,
			"fullscreen, the X server has the window at "
			"%dx%d+%d+%d",
			geo.width, geo.height, geo.x, geo.y);
	wait_box(harness, vitrail, "fullscreen", 0, 0, 640, 480, X_RGB,
			"the fullscreen window");
	net_wm_fullscreen(conn, screen, managed, false);
	deadline = harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	for (;;) {
		w = wait_window(vitrail, "XcbFull", false);
		if (w->width == 200 && w->height == 100) {
			break;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"out of fullscreen, "
				"the X window is %dx%d",
				w->width, w->height);
		harness_sleep_ms(50);
	}
	geo = x_geometry(conn, managed);
	ck_assert_msg(geo.width == 200 && geo.height == 100,
			"out of "
			"fullscreen, the X server has the window at %dx%d",
			geo.width, geo.height);

	xcb_disconnect(conn);
	wait_window(vitrail, "XcbFull", true);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- close_binding ------------------------------------------------------ */

/* Alt held while key is typed. */
static void keys_alt_type(struct test_keys *k, uint32_t key) {
	const uint32_t alt[] = { KEY_LEFTALT };
	test_keys_type(k, alt, 1, key);
}

/* Pixels of xlogo's white in its 160x120 box at w (from the list). */
static long xlogo_white(struct harness *harness,
		struct harness_vitrail *vitrail, const struct harness_window *w,
		const char *name) {
	int32_t sw, sh;
	char *path;
	uint32_t *pixels = screenshot(harness, vitrail, name, &sw, &sh, &path);
	long white = count_rgb(pixels, sw, sh, w->x, w->y, 160, 120, 0xffffff);
	free(pixels);
	free(path);
	return white;
}

/*
 * close_binding: a key binding's exec (vitrail(5)) starts xlogo, which
 * finds vitrail's X display in the DISPLAY vitrail exported (the test
 * sets none for it); its window, focused on map, is closed by the close
 * binding (WM_DELETE_WINDOW) and leaves the list; vitrail goes on, and
 * the exec binding starts another. Between the two, the workspace and
 * minimize bindings hide the X window and bring it back: the list, and
 * xlogo's white in its box of the screenshot (none while hidden).
 */
START_TEST(test_xwayland_close_binding) {
	harness_require_program("xlogo", "x11-apps");
	struct harness *harness = harness_create("close_binding");
	char *config;
	ck_assert(asprintf(&config, "%s/close.conf", harness->out_dir) > 0);
	FILE *f = fopen(config, "w");
	ck_assert_ptr_nonnull(f);
	fputs("bind Alt+Return exec xlogo -bw 0 -geometry 160x120\n"
		  "bind Alt+q close\n"
		  "bind Alt+1 workspace 1\nbind Alt+2 workspace 2\n"
		  "bind Alt+h minimize\nbind Alt+Tab focus next\n",
			f);
	ck_assert_int_eq(fclose(f), 0);
	const char *const args[] = { "--config", config, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480",
					.extra_args = args });
	struct test_keys d;
	test_keys_start(&d, vitrail->socket, "us");

	keys_alt_type(&d, KEY_ENTER);
	const struct harness_window *w = wait_window(vitrail, "XLogo", false);
	ck_assert_msg(w->width == 160 && w->height == 120,
			"xlogo's window is "
			"%dx%d, not 160x120",
			w->width, w->height);
	struct harness_window place = *w;
	/* xlogo may not have drawn yet: wait for its white */
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	while (xlogo_white(harness, vitrail, &place, "shown") < 160 * 120 / 4) {
		ck_assert_msg(harness_now_ms() < deadline, "xlogo drew no white");
		harness_sleep_ms(100);
	}
	keys_alt_type(&d, KEY_2);
	wait_window(vitrail, "XLogo", true);
	ck_assert_int_eq(xlogo_white(harness, vitrail, &place, "workspace-2"), 0);
	keys_alt_type(&d, KEY_1);
	wait_window(vitrail, "XLogo", false);
	ck_assert(xlogo_white(harness, vitrail, &place, "workspace-1") >=
			160 * 120 / 4);
	keys_alt_type(&d, KEY_H);
	wait_window(vitrail, "XLogo", true);
	ck_assert_int_eq(xlogo_white(harness, vitrail, &place, "minimized"), 0);
	keys_alt_type(&d, KEY_TAB);
	wait_window(vitrail, "XLogo", false);
	ck_assert(xlogo_white(harness, vitrail, &place, "focus-next") >=
			160 * 120 / 4);
	keys_alt_type(&d, KEY_Q);
	wait_window(vitrail, "XLogo", true);
	harness_assert_alive(vitrail->proc);

	keys_alt_type(&d, KEY_ENTER);
	wait_window(vitrail, "XLogo", false);
	keys_alt_type(&d, KEY_Q);
	wait_window(vitrail, "XLogo", true);

	test_keys_finish(&d);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
	free(config);
}
END_TEST

/* ---- move_resize -------------------------------------------------------- */

/* Wait until the X server has the window at x, y, w x h. */
static void wait_x_geometry(xcb_connection_t *conn, xcb_window_t window,
		int32_t x, int32_t y, int32_t w, int32_t h, const char *when) {
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	for (;;) {
		xcb_get_geometry_reply_t geo = x_geometry(conn, window);
		if (geo.x == x && geo.y == y && geo.width == w && geo.height == h) {
			return;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"%s, the X server has "
				"the window at %dx%d+%d+%d, not %dx%d+%d+%d",
				when, geo.width, geo.height, geo.x, geo.y, w, h, x, y);
		harness_sleep_ms(50);
	}
}

/* Wait until the list has the window at x, y, w x h. */
static void wait_listed(struct harness_vitrail *v, const char *app_id,
		int32_t x, int32_t y, int32_t w, int32_t h, const char *when) {
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	for (;;) {
		const struct harness_window *win = wait_window(v, app_id, false);
		if (win->x == x && win->y == y && win->width == w && win->height == h) {
			return;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"%s, the window is "
				"listed at %dx%d+%d+%d, not %dx%d+%d+%d",
				when, win->width, win->height, win->x, win->y, w, h, x, y);
		harness_sleep_ms(50);
	}
}

/*
 * move_resize: X's idea of a managed window's place follows vitrail's
 * window policy. At map, the X server (GetGeometry) has the window
 * where the list says vitrail placed it; dragged with the drag modifier
 * (Logo, on a virtual keyboard) and the left button by (70, 45), it is
 * there in the list and for the X server; dragged from its bottom-right
 * quarter with the right button by (40, 25), the X server has it at
 * 240x125 and the screenshot shows its colour on all of that box; a
 * move the client asks for (_NET_WM_MOVERESIZE) while the left button is
 * held on it follows the pointer by (-30, 20); a
 * _NET_WM_STATE maximize request fills the 640x480 output for both, less
 * vitrail's frame, and leaving maximized gives back the 240x125 of the
 * resize.
 */
START_TEST(test_xwayland_move_resize) {
	struct harness *harness = harness_create("move_resize");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480" });
	ck_assert_msg(vitrail->x_display != NULL, "vitrail offers no X display");
	struct test_keys d;
	test_keys_start(&d, vitrail->socket, "us");
	xcb_screen_t *screen;
	xcb_connection_t *conn = x_connect(vitrail, &screen);
	static const char class[] = "xcb-move\0XcbMove";
	const struct harness_window *w;
	xcb_window_t window = x_managed_window(vitrail, conn, screen, class,
			sizeof(class), 0, &w);
	int32_t x0 = w->x, y0 = w->y;
	ck_assert_msg(x0 != 0 || y0 != 0, "the window stayed at 0,0");
	wait_x_geometry(conn, window, x0, y0, 200, 100, "mapped");

	/* Logo held */
	test_keys_key(&d, KEY_LEFTMETA, true);
	zwp_virtual_keyboard_v1_modifiers(d.keyboard, 1u << 6, 0, 0, 0);
	ck_assert_int_ge(wl_display_roundtrip(d.display), 0);
	harness_pointer_move(vitrail->conn, x0 + 50, y0 + 30);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	harness_pointer_move(vitrail->conn, x0 + 50 + 37, y0 + 30 + 21);
	harness_pointer_move(vitrail->conn, x0 + 50 + 70, y0 + 30 + 45);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	int32_t x1 = x0 + 70, y1 = y0 + 45;
	wait_listed(vitrail, "XcbMove", x1, y1, 200, 100, "moved");
	wait_x_geometry(conn, window, x1, y1, 200, 100, "moved");

	harness_pointer_move(vitrail->conn, x1 + 180, y1 + 90);
	harness_pointer_button(vitrail->conn, BTN_RIGHT, true);
	harness_pointer_move(vitrail->conn, x1 + 180 + 40, y1 + 90 + 25);
	harness_pointer_button(vitrail->conn, BTN_RIGHT, false);
	test_keys_key(&d, KEY_LEFTMETA, false);
	zwp_virtual_keyboard_v1_modifiers(d.keyboard, 0, 0, 0, 0);
	ck_assert_int_ge(wl_display_roundtrip(d.display), 0);
	wait_x_geometry(conn, window, x1, y1, 240, 125, "resized");
	wait_listed(vitrail, "XcbMove", x1, y1, 240, 125, "resized");
	harness_pointer_move(vitrail->conn, 2, 2); // the cursor out of the way
	wait_box(harness, vitrail, "resized", x1, y1, 240, 125, X_RGB,
			"the resized window");

	/* the client's own move (_NET_WM_MOVERESIZE) while the left button
	 * is held on it */
	harness_pointer_move(vitrail->conn, x1 + 100, y1 + 60);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	xcb_client_message_event_t moveresize = {
		.response_type = XCB_CLIENT_MESSAGE,
		.format = 32,
		.window = window,
		.type = atom(conn, "_NET_WM_MOVERESIZE"),
	};
	moveresize.data.data32[0] = (uint32_t)(x1 + 100); // root x, y
	moveresize.data.data32[1] = (uint32_t)(y1 + 60);
	moveresize.data.data32[2] = 8; // _NET_WM_MOVERESIZE_MOVE
	moveresize.data.data32[3] = 1; // button 1
	moveresize.data.data32[4] = 1; // from an application
	xcb_send_event(conn, 0, screen->root,
			XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY |
					XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT,
			(const char *)&moveresize);
	/* the X server passed it on to vitrail's window manager connection
	 * before it answers this; two round trips later vitrail read it */
	x_geometry(conn, window);
	harness_settle(vitrail->conn);
	harness_settle(vitrail->conn);
	harness_pointer_move(vitrail->conn, x1 + 100 - 30, y1 + 60 + 20);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	x1 -= 30;
	y1 += 20;
	wait_x_geometry(conn, window, x1, y1, 240, 125, "moved by the client");
	wait_listed(vitrail, "XcbMove", x1, y1, 240, 125, "moved by the client");

	/* maximize: both directions in one request */
	xcb_client_message_event_t event = {
		.response_type = XCB_CLIENT_MESSAGE,
		.format = 32,
		.window = window,
		.type = atom(conn, "_NET_WM_STATE"),
	};
	event.data.data32[0] = 1; // _NET_WM_STATE_ADD
	event.data.data32[1] = atom(conn, "_NET_WM_STATE_MAXIMIZED_VERT");
	event.data.data32[2] = atom(conn, "_NET_WM_STATE_MAXIMIZED_HORZ");
	event.data.data32[3] = 1;
	xcb_send_event(conn, 0, screen->root,
			XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY |
					XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT,
			(const char *)&event);
	xcb_flush(conn);
	/* the output less vitrail's frame (vitrail(5): 8 pixels of width,
	 * 32 of height) */
	wait_x_geometry(conn, window, FRAME_BORDER, FRAME_TOP,
			640 - 2 * FRAME_BORDER, 480 - FRAME_TOP - FRAME_BORDER,
			"maximized");
	wait_listed(vitrail, "XcbMove", FRAME_BORDER, FRAME_TOP,
			640 - 2 * FRAME_BORDER, 480 - FRAME_TOP - FRAME_BORDER,
			"maximized");
	/* and back to the size the resize gave it, where it was before */
	event.data.data32[0] = 0; // _NET_WM_STATE_REMOVE
	xcb_send_event(conn, 0, screen->root,
			XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY |
					XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT,
			(const char *)&event);
	xcb_flush(conn);
	wait_x_geometry(conn, window, x1, y1, 240, 125, "unmaximized");
	wait_listed(vitrail, "XcbMove", x1, y1, 240, 125, "unmaximized");

	xcb_disconnect(conn);
	wait_window(vitrail, "XcbMove", true);
	test_keys_finish(&d);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- frame -------------------------------------------------------------- */

/* _MOTIF_WM_HINTS with the decorations field (flags MWM_HINTS_DECORATIONS):
 * 1 (MWM_DECOR_ALL) or 0 (none). */
static void motif_decorations(xcb_connection_t *conn, xcb_window_t window,
		uint32_t decorations) {
	const uint32_t hints[5] = { 2, 0, decorations, 0, 0 };
	xcb_atom_t motif = atom(conn, "_MOTIF_WM_HINTS");
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, window, motif, motif, 32,
			5, hints);
	xcb_flush(conn);
}

/*
 * frame: vitrail frames managed X windows as an X window manager would
 * (vitrail(5), decorations). A 200x100 window of the test's own has the
 * focused frame colour in the middle of its title bar; a drag of the title
 * bar with the left button (no modifier) by (60, 40) moves it, for the
 * list and the X server. Its _MOTIF_WM_HINTS set to no decorations, the
 * frame goes (the title bar shows the background) and the window stays
 * where it is; set back to all, it comes back. A second window with the
 * hint set before it maps gets no frame. xlogo's close button (a click at
 * the title bar's right end) asks it to close (WM_DELETE_WINDOW): it
 * exits, and its window leaves the list.
 */
START_TEST(test_xwayland_frame) {
	harness_require_program("xlogo", "x11-apps");
	struct harness *harness = harness_create("frame");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480" });
	xcb_screen_t *screen;
	xcb_connection_t *conn = x_connect(vitrail, &screen);
	static const char class[] = "xcb-frame\0XcbFrame";
	const struct harness_window *w;
	xcb_window_t window = x_managed_window(vitrail, conn, screen, class,
			sizeof(class), 0, &w);
	int32_t x = w->x, y = w->y;
	ck_assert_msg(y >= FRAME_TOP && x >= FRAME_BORDER,
			"the window at %d,%d leaves its frame no room in the output", x, y);
	harness_pointer_move(vitrail->conn, 630, 470); // the cursor out of the way
	wait_box(harness, vitrail, "framed", x + 60, y - FRAME_TITLE / 2, 1, 1,
			FRAME_FOCUSED, "the title bar of the focused window");
	int32_t sw, sh;
	char *path;
	uint32_t *pixels =
			screenshot(harness, vitrail, "background", &sw, &sh, &path);
	uint32_t background = pixels[0] & 0xffffff; // the output's corner
	free(pixels);
	free(path);

	/* the title bar drags it */
	harness_pointer_move(vitrail->conn, x + 60, y - FRAME_TITLE / 2);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	harness_pointer_move(vitrail->conn, x + 60 + 31, y - FRAME_TITLE / 2 + 17);
	harness_pointer_move(vitrail->conn, x + 60 + 60, y - FRAME_TITLE / 2 + 40);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	x += 60;
	y += 40;
	wait_listed(vitrail, "XcbFrame", x, y, 200, 100, "dragged by its title");
	wait_x_geometry(conn, window, x, y, 200, 100, "dragged by its title");
	harness_pointer_move(vitrail->conn, 630, 470);

	/* no decorations asked: no frame, the window where it was */
	motif_decorations(conn, window, 0);
	wait_box(harness, vitrail, "unframed", x, y - FRAME_TOP, 200, FRAME_TOP,
			background, "where the frame was");
	wait_listed(vitrail, "XcbFrame", x, y, 200, 100, "unframed");
	wait_box(harness, vitrail, "unframed-window", x, y, 200, 100, X_RGB,
			"the window without its frame");
	/* all of them again: framed again */
	motif_decorations(conn, window, 1);
	wait_box(harness, vitrail, "framed-again", x + 60, y - FRAME_TITLE / 2, 1,
			1, FRAME_FOCUSED, "the title bar once more");

	/* asked before it maps: never framed */
	xcb_window_t bare =
			x_window(conn, screen, 0, 0, 120, 80, 0xc03030, false, 0);
	static const char bare_class[] = "xcb-bare\0XcbBare";
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, bare, XCB_ATOM_WM_CLASS,
			XCB_ATOM_STRING, 8, sizeof(bare_class), bare_class);
	motif_decorations(conn, bare, 0);
	xcb_map_window(conn, bare);
	xcb_flush(conn);
	const struct harness_window *b = wait_window(vitrail, "XcbBare", false);
	int32_t bx = b->x, by = b->y;
	wait_box(harness, vitrail, "bare", bx, by, 120, 80, 0xc03030,
			"the window mapped without decorations");
	pixels = screenshot(harness, vitrail, "bare-frame", &sw, &sh, &path);
	for (int32_t i = 0; i < 120; i += 8) {
		ck_assert_msg(!is_rgb(pixels[(by - 2) * sw + bx + i], FRAME_FOCUSED) &&
						!is_rgb(pixels[(by - 2) * sw + bx + i],
								FRAME_UNFOCUSED),
				"%s: a frame above the window at x=%d", path, bx + i);
	}
	free(pixels);
	free(path);
	xcb_disconnect(conn);
	wait_window(vitrail, "XcbFrame", true);

	/* the close button closes xlogo */
	const char *const xlogo_argv[] = { "xlogo", "-bw", "0", "-geometry",
		"200x150", NULL };
	struct harness_proc *xlogo =
			harness_spawn_x11_client(harness, vitrail, xlogo_argv);
	w = wait_window(vitrail, "XLogo", false);
	int32_t lx = w->x, ly = w->y;
	wait_box(harness, vitrail, "xlogo", lx + 20, ly - FRAME_TITLE / 2, 1, 1,
			FRAME_FOCUSED, "xlogo's title bar");
	harness_pointer_move(vitrail->conn, lx + 200 - FRAME_TITLE / 2,
			ly - FRAME_TITLE / 2);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	ck_assert_msg(harness_proc_wait(xlogo, 10000),
			"xlogo did not exit after a click on its close button");
	wait_window(vitrail, "XLogo", true);
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- input_model -------------------------------------------------------- */

/*
 * input_model: an X window of ICCCM's "No Input" model (WM_HINTS with the
 * input hint False, no WM_TAKE_FOCUS: a clock, an on-screen keyboard)
 * never takes the keyboard. Mapped after an ordinary X window, which has
 * the focus, it shows vitrail's unfocused frame colour while the other
 * keeps the focused one, and the X server's input focus stays on the
 * other; clicked, it comes to the front of the list (and the screen)
 * with the focus still where it was. The ordinary window clicked takes
 * the front back.
 */
START_TEST(test_xwayland_input_model) {
	struct harness *harness = harness_create("input_model");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480" });
	struct sc_app app = { 0 };
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	ck_assert(sc_app_init(&app, "input-model"));
	struct x_probe p = { 0 };
	xcb_screen_t *screen;
	p.conn = x_connect(vitrail, &screen);
	static const char class[] = "xcb-typing\0XcbTyping";
	const struct harness_window *w;
	p.window = x_managed_window(vitrail, p.conn, screen, class, sizeof(class),
			XCB_EVENT_MASK_FOCUS_CHANGE, &w);
	int32_t tx = w->x, ty = w->y;
	wait_x_focus(&p, &app, true, "mapped");

	/* the window that takes no input, beside it */
	xcb_window_t clock =
			x_window(p.conn, screen, 0, 0, 160, 80, 0xc03030, false, 0);
	static const char clock_class[] = "xcb-clock\0XcbClock";
	xcb_change_property(p.conn, XCB_PROP_MODE_REPLACE, clock, XCB_ATOM_WM_CLASS,
			XCB_ATOM_STRING, 8, sizeof(clock_class), clock_class);
	const uint32_t hints[9] = { 1 /* InputHint */, 0 /* input False */ };
	xcb_change_property(p.conn, XCB_PROP_MODE_REPLACE, clock, XCB_ATOM_WM_HINTS,
			XCB_ATOM_WM_HINTS, 32, 9, hints);
	xcb_map_window(p.conn, clock);
	xcb_flush(p.conn);
	w = wait_window(vitrail, "XcbClock", false);
	/* in the bottom-right corner, clear of the other and its frame */
	int32_t cx = 640 - 160 - 10, cy = 480 - 80 - 10;
	ck_assert_msg(cy - FRAME_TOP > ty + 100 + FRAME_BORDER ||
					cx - FRAME_BORDER > tx + 200 + FRAME_BORDER,
			"the first window at %d,%d leaves no room in the corner", tx, ty);
	const uint32_t corner[] = { (uint32_t)cx, (uint32_t)cy };
	xcb_configure_window(p.conn, clock,
			XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y, corner);
	xcb_flush(p.conn);
	wait_listed(vitrail, "XcbClock", cx, cy, 160, 80, "moved to the corner");
	harness_pointer_move(vitrail->conn, 630, 470);
	wait_box(harness, vitrail, "clock-mapped", cx + 20, cy - FRAME_TITLE / 2, 1,
			1, FRAME_UNFOCUSED, "the No Input window's title bar");
	wait_box(harness, vitrail, "typing-kept", tx + 20, ty - FRAME_TITLE / 2, 1,
			1, FRAME_FOCUSED, "the focused window's title bar");
	ck_assert_msg(x_focus(&p) == p.window,
			"the X focus left the window that had it when the No Input "
			"window mapped");

	/* clicked: in front, the focus where it was */
	click(vitrail, &app, cx + 80, cy + 40);
	const struct harness_window *front = front_window(vitrail);
	ck_assert_str_eq(front->app_id, "XcbClock");
	harness_pointer_move(vitrail->conn, 630, 470);
	wait_box(harness, vitrail, "clock-clicked", cx + 20, cy - FRAME_TITLE / 2,
			1, 1, FRAME_UNFOCUSED, "the clicked No Input window's title bar");
	ck_assert_msg(x_focus(&p) == p.window,
			"the X focus left the window that had it when the No Input "
			"window was clicked");
	/* the other clicked: in front again */
	click(vitrail, &app, tx + 100, ty + 50);
	front = front_window(vitrail);
	ck_assert_str_eq(front->app_id, "XcbTyping");

	xcb_disconnect(p.conn);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- two_outputs -------------------------------------------------------- */

/*
 * two_outputs: X root coordinates are layout coordinates. Two 640x480
 * outputs side by side; an xdg window takes HEADLESS-1, so an X window
 * goes to HEADLESS-2 (the output with fewest windows): listed there at
 * x >= 640, where the X server's GetGeometry has it too, drawn in its
 * colour in HEADLESS-2's screenshot at that place less 640, and a click
 * there gives it the X focus the xdg window had.
 */
/* ---- configure_flood ---------------------------------------------------- */

/*
 * 3,000 ConfigureWindow requests on one mapped X window, a round trip to
 * the X server every 100: vitrail answered each with a configure, and
 * wlroots 0.15 flushes the X connection with every one, blocking while
 * Xwayland was itself blocked writing to vitrail: every Wayland client
 * froze for seconds (8.3 s, measured on another machine; here the round
 * trips stayed short, but the X window ended at a size it never asked
 * for last: 152x112 where the last request said 199x119). Configures are
 * now coalesced: an xdg window's wl_display round trips, one after each
 * hundred, never take over 500 ms, and the X window ends where its last
 * request put it, as X itself says.
 */
START_TEST(test_xwayland_configure_flood) {
	struct harness *harness = harness_create("configure_flood");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480" });
	ck_assert_msg(vitrail->x_display != NULL, "vitrail offers no X display");
	struct sc_app app = { 0 };
	xdg_window_start(vitrail, &app, "xdg-bystander");
	xcb_screen_t *screen;
	xcb_connection_t *conn = x_connect(vitrail, &screen);
	static const char class[] = "xcb-flood\0XcbFlood";
	const struct harness_window *w;
	xcb_window_t window = x_managed_window(vitrail, conn, screen, class,
			sizeof(class), 0, &w);
	int64_t longest = 0;
	uint32_t last[4] = { 0 };
	for (int i = 0; i < 3000; i++) {
		last[0] = (uint32_t)(10 + i % 97);
		last[1] = (uint32_t)(20 + i % 89);
		last[2] = (uint32_t)(150 + i % 50);
		last[3] = (uint32_t)(80 + i % 40);
		xcb_configure_window(conn, window,
				XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y |
						XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT,
				last);
		if (i % 100 == 99) {
			free(xcb_get_input_focus_reply(conn, xcb_get_input_focus(conn),
					NULL));
			int64_t t0 = harness_now_ms();
			ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
			int64_t took = harness_now_ms() - t0;
			longest = took > longest ? took : longest;
		}
	}
	xcb_flush(conn);
	fprintf(stderr,
			"longest wl_display round trip of the bystander: "
			"%lld ms\n",
			(long long)longest);
	ck_assert_msg(longest <= harness_scaled_ms(500),
			"a bystander's round "
			"trip took %lld ms during the X client's configures",
			(long long)longest);
	wait_x_geometry(conn, window, (int32_t)last[0], (int32_t)last[1],
			(int32_t)last[2], (int32_t)last[3], "after the flood");
	xcb_disconnect(conn);
	wait_window(vitrail, "XcbFlood", true);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

START_TEST(test_xwayland_two_outputs) {
	struct harness *harness = harness_create("two_outputs");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 2,
					.output_size = "640x480" });
	ck_assert_msg(vitrail->x_display != NULL, "vitrail offers no X display");
	struct sc_app app = { 0 };
	const struct harness_window *w =
			xdg_window_start(vitrail, &app, "xdg-left");
	ck_assert_str_eq(w->output, "HEADLESS-1");

	struct x_probe p = { 0 };
	xcb_screen_t *screen;
	p.conn = x_connect(vitrail, &screen);
	static const char class[] = "xcb-right\0XcbRight";
	p.window = x_managed_window(vitrail, p.conn, screen, class, sizeof(class),
			0, &w);
	ck_assert_msg(strcmp(w->output, "HEADLESS-2") == 0 && w->x >= 640,
			"the X window is on %s at %d,%d, not on HEADLESS-2", w->output,
			w->x, w->y);
	int32_t x = w->x, y = w->y;
	wait_x_geometry(p.conn, p.window, x, y, 200, 100, "on HEADLESS-2");
	wait_box_of(harness, vitrail, "HEADLESS-2", "right", x - 640, y, 200, 100,
			X_RGB, "the X window on HEADLESS-2");

	/* the xdg window takes the focus, a click on the X one gets it */
	w = wait_window(vitrail, "xdg-left", false);
	click(vitrail, &app, w->x + 100, w->y + 50);
	wait_x_focus(&p, &app, false, "after a click on the xdg window");
	click(vitrail, &app, x + 100, y + 50);
	wait_x_focus(&p, &app, true, "after a click on the X window");

	xcb_disconnect(p.conn);
	wait_window(vitrail, "XcbRight", true);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- runner ---------------------------------------------------------------
 */

static Suite *xwayland_suite(void) {
	Suite *suite = suite_create("xwayland");
	harness_add_case(suite, "x11_window", test_xwayland_x11_window, 120);
	harness_add_case(suite, "focus", test_xwayland_focus, 120);
	harness_add_case(suite, "override_fullscreen",
			test_xwayland_override_fullscreen, 120);
	harness_add_case(suite, "close_binding", test_xwayland_close_binding, 120);
	harness_add_case(suite, "move_resize", test_xwayland_move_resize, 120);
	harness_add_case(suite, "frame", test_xwayland_frame, 120);
	harness_add_case(suite, "input_model", test_xwayland_input_model, 120);
	harness_add_case(suite, "two_outputs", test_xwayland_two_outputs, 120);
	harness_add_case(suite, "configure_flood", test_xwayland_configure_flood,
			120);
	return suite;
}

int main(int argc, char *argv[]) {
	/* vitrail's Xwayland is wlroots': $WLR_XWAYLAND or /usr/bin/Xwayland */
	const char *xwayland = getenv("WLR_XWAYLAND");
	if (xwayland == NULL || xwayland[0] == '\0') {
		xwayland = "/usr/bin/Xwayland";
	}
	if (access(xwayland, X_OK) != 0) {
		fprintf(stderr,
				"SKIP: no Xwayland at %s (Debian package "
				"xwayland)\n",
				xwayland);
		return 77;
	}
	return harness_run_suite(xwayland_suite(), argc, argv);
}
