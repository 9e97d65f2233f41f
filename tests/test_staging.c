/*
 * The standard staging protocols vitrail implements itself where wlroots
 * 0.15 has none (compositor/protocols/alpha_modifier.c, cursor_shape.c,
 * security_context.c; the windows' ones are in
 * test_staging_windows.c),
 * each checked against an oracle that shares no code with vitrail: the
 * colours a client drew blended by hand, the theme's cursor files read
 * here, the protocol errors the XML names.
 *
 * alpha_modifier: an opaque red window at multiplier 1/2 over a known
 *   backdrop (the window's own first screenshot, fully red, and the
 *   background away from it): every sampled pixel is red * a + background *
 *   (1 - a), within 2, with a computed here; the multiplier takes effect
 *   only with the surface's commit (double-buffered), and destroying the
 *   object brings back full opacity at the next commit. Run again with the
 *   CPU engine (cpu-backend-staging-alpha_modifier).
 * alpha_modifier_errors: a second object for a surface is
 *   already_constructed; set_multiplier after the surface is gone is
 *   no_surface; both end only that client, vitrail goes on.
 * cursor_shape: vitrail started with XCURSOR_THEME=Adwaita and
 *   XCURSOR_SIZE=48; a client with the pointer over its window sets the
 *   shape "pointer", then "text", with the serial of its wl_pointer.enter:
 *   the screenshot shows that theme file's 48-pixel image (read here) at
 *   the pointer; a serial that is not the enter's, and a device of another
 *   client without the focus, change nothing.
 * cursor_shape_errors: shape 0, a shape past the last, and a version-2
 *   shape on a version-1 device are invalid_shape; get_tablet_tool_v2 is
 *   not reachable without a tablet tool (headless has none).
 * security_context (and security_context_kiosk, in kiosk mode with
 *   --allow all): a client connected through a security context's socket
 *   sees none of the privileged globals (the list below, which an ordinary
 *   client sees in full), cannot bind one by name, and still sees the
 *   ordinary ones; the socket accepts after its maker left and refuses
 *   once close_fd hung up.
 * security_context_errors: invalid_listen_fd (a pipe, a socket not
 *   listening), already_set (each metadata twice), already_used (after
 *   commit), invalid_metadata (empty, over 255 bytes). nested cannot be
 *   reached: a sandboxed client does not see the manager.
 */
#define _GNU_SOURCE // asprintf
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <wayland-client.h>
#include <vitrail/renderer.h>

#include "alpha-modifier-v1-client-protocol.h"
#include "cursor-shape-v1-client-protocol.h"
#include "harness.h"
#include "scene-client.h"
#include "security-context-v1-client-protocol.h"
#include "staging_common.h"

/* ---- alpha modifier ----------------------------------------------------- */

/* a * fg + (1 - a) * bg per channel, opaque, rounded */
static uint32_t blend(uint32_t fg, uint32_t bg, double a) {
	uint32_t out = 0xff000000u;
	for (int shift = 0; shift < 24; shift += 8) {
		double c =
				a * ((fg >> shift) & 0xff) + (1 - a) * ((bg >> shift) & 0xff);
		out |= (uint32_t)(c + 0.5) << shift;
	}
	return out;
}

/* Every pixel of the window's inner box is want (within tolerance). */
static void assert_box(const uint32_t *px, int32_t w,
		const struct harness_window *win, uint32_t want, int tolerance,
		const char *what) {
	int bad = 0;
	uint32_t first = 0;
	int fx = 0, fy = 0;
	for (int y = win->y + 2; y < win->y + win->height - 2; y++) {
		for (int x = win->x + 2; x < win->x + win->width - 2; x++) {
			uint32_t p = px[y * w + x];
			if (!staging_pixel_near(p, want, tolerance)) {
				if (bad++ == 0) {
					first = p;
					fx = x;
					fy = y;
				}
			}
		}
	}
	ck_assert_msg(bad == 0,
			"%s: %d pixels not 0x%08x, the first (%d, %d) 0x%08x", what, bad,
			want, fx, fy, first);
}

START_TEST(test_staging_alpha_modifier) {
	struct harness *harness = harness_create("staging-alpha-modifier");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "alpha"));
	struct staging_globals g = { 0 };
	struct wl_registry *registry = staging_bind(app.display, &g);
	ck_assert_msg(g.alpha != NULL, "no wp_alpha_modifier_v1");
	const uint32_t red = 0xffff0000u;
	ck_assert(sc_app_create_window(&app, "alpha", "alpha", 100, 80, red));
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_list_windows(vitrail->conn, NULL);
	const struct harness_window *found =
			harness_find_window(vitrail->conn, "alpha");
	ck_assert(found != NULL);
	struct harness_window win = *found;
	ck_assert_int_eq(win.width, 100);
	ck_assert_int_eq(win.height, 80);

	int32_t w, h;
	uint32_t *opaque = staging_shot(harness, vitrail, "opaque", &w, &h);
	assert_box(opaque, w, &win, red, 0, "opaque");
	// the backdrop: the background, one colour, at the bottom-right
	// corner of the output, away from the window
	ck_assert(win.x + win.width < w - 4 || win.y + win.height < h - 4);
	uint32_t bg = opaque[(h - 4) * w + w - 4];
	ck_assert_msg(!staging_pixel_near(bg, red, 40), "background 0x%08x", bg);
	free(opaque);

	struct wp_alpha_modifier_surface_v1 *mod =
			wp_alpha_modifier_v1_get_surface(g.alpha, app.surface);
	const uint32_t factor = 0x80000000u;
	wp_alpha_modifier_surface_v1_set_multiplier(mod, factor);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	// double-buffered: nothing yet
	uint32_t *pending = staging_shot(harness, vitrail, "pending", &w, &h);
	assert_box(pending, w, &win, red, 0, "before the commit");
	free(pending);

	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	double a = (double)factor / 4294967295.0;
	uint32_t want = blend(red, bg, a);
	uint32_t *half = staging_shot(harness, vitrail, "half", &w, &h);
	assert_box(half, w, &win, want, 2, "at 1/2");
	free(half);

	// a quarter, then destroyed: opaque again with the next commit
	wp_alpha_modifier_surface_v1_set_multiplier(mod, 0x40000000u);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	uint32_t *quarter = staging_shot(harness, vitrail, "quarter", &w, &h);
	assert_box(quarter, w, &win, blend(red, bg, 0x40000000u / 4294967295.0), 2,
			"at 1/4");
	free(quarter);
	wp_alpha_modifier_surface_v1_destroy(mod);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	uint32_t *still = staging_shot(harness, vitrail, "destroyed", &w, &h);
	assert_box(still, w, &win, blend(red, bg, 0x40000000u / 4294967295.0), 2,
			"destroyed, not committed");
	free(still);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	uint32_t *back = staging_shot(harness, vitrail, "back", &w, &h);
	assert_box(back, w, &win, red, 0, "destroyed and committed");
	free(back);

	// zero: the background shows through entirely
	mod = wp_alpha_modifier_v1_get_surface(g.alpha, app.surface);
	wp_alpha_modifier_surface_v1_set_multiplier(mod, 0);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	uint32_t *zero = staging_shot(harness, vitrail, "zero", &w, &h);
	assert_box(zero, w, &win, bg, 1, "at 0");
	free(zero);

	wp_alpha_modifier_surface_v1_destroy(mod);
	staging_release(&g, registry);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* A client of its own: a surface with an alpha modifier, then either a
 * second one (second) or the surface destroyed and set_multiplier. */
static int alpha_error_client(bool second,
		const struct wl_interface **interface) {
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "alpha-errors"));
	struct staging_globals g = { 0 };
	struct wl_registry *registry = staging_bind(app.display, &g);
	ck_assert(g.alpha != NULL);
	struct wl_surface *surface = wl_compositor_create_surface(app.compositor);
	struct wp_alpha_modifier_surface_v1 *mod =
			wp_alpha_modifier_v1_get_surface(g.alpha, surface);
	wp_alpha_modifier_surface_v1_set_multiplier(mod, 1234);
	wl_surface_commit(surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	struct wp_alpha_modifier_surface_v1 *mod2 = NULL;
	if (second) {
		mod2 = wp_alpha_modifier_v1_get_surface(g.alpha, surface);
	} else {
		wl_surface_destroy(surface);
		surface = NULL;
		ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
		wp_alpha_modifier_surface_v1_set_multiplier(mod, 5);
	}
	int code = staging_roundtrip_error(app.display, interface);
	if (mod2 != NULL) {
		wp_alpha_modifier_surface_v1_destroy(mod2);
	}
	wp_alpha_modifier_surface_v1_destroy(mod);
	if (surface != NULL) {
		wl_surface_destroy(surface);
	}
	staging_release(&g, registry);
	sc_app_finish(&app);
	return code;
}

START_TEST(test_staging_alpha_modifier_errors) {
	struct harness *harness = harness_create("staging-alpha-modifier-errors");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	const struct wl_interface *interface = NULL;
	ck_assert_int_eq(alpha_error_client(true, &interface),
			WP_ALPHA_MODIFIER_V1_ERROR_ALREADY_CONSTRUCTED);
	ck_assert_ptr_eq(interface, &wp_alpha_modifier_v1_interface);
	interface = NULL;
	ck_assert_int_eq(alpha_error_client(false, &interface),
			WP_ALPHA_MODIFIER_SURFACE_V1_ERROR_NO_SURFACE);
	ck_assert_ptr_eq(interface, &wp_alpha_modifier_surface_v1_interface);
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- cursor shape ------------------------------------------------------- */

/* The image of `size` in the Xcursor file (malloc'd premultiplied ARGB,
 * as Xcursor stores it), its size and hotspot. */
static uint32_t *read_xcursor(const char *path, uint32_t size, int *width,
		int *height, int *hot_x, int *hot_y) {
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	uint32_t header[4];
	ck_assert(fread(header, 4, 4, f) == 4);
	ck_assert_msg(memcmp(header, "Xcur", 4) == 0, "%s: no Xcursor", path);
	uint32_t *pixels = NULL;
	for (uint32_t i = 0; i < header[3] && pixels == NULL; i++) {
		uint32_t toc[3]; // type, subtype (nominal size), position
		ck_assert(fseek(f, (long)(16 + 12 * i), SEEK_SET) == 0);
		ck_assert(fread(toc, 4, 3, f) == 3);
		if (toc[0] != 0xfffd0002u || toc[1] != size) {
			continue;
		}
		// header size, type, size, version, width, height, xhot, yhot,
		// delay
		uint32_t chunk[9];
		ck_assert(fseek(f, (long)toc[2], SEEK_SET) == 0);
		ck_assert(fread(chunk, 4, 9, f) == 9);
		*width = (int)chunk[4];
		*height = (int)chunk[5];
		*hot_x = (int)chunk[6];
		*hot_y = (int)chunk[7];
		size_t n = (size_t)chunk[4] * chunk[5];
		pixels = malloc(n * 4);
		ck_assert(pixels != NULL);
		ck_assert(fread(pixels, 4, n, f) == n);
	}
	fclose(f);
	ck_assert_msg(pixels != NULL, "%s has no image of size %u", path, size);
	return pixels;
}

/* How many pixels of the Adwaita cursor `name`'s box, its hotspot at
 * (x, y), differ (by more than 2) from the cursor blended by hand
 * (premultiplied "over") over a window of one colour, `under`. */
static int cursor_mismatch(const uint32_t *shot_px, int32_t w, int32_t h,
		const char *name, int x, int y, uint32_t under) {
	char path[256];
	snprintf(path, sizeof(path), "/usr/share/icons/Adwaita/cursors/%s", name);
	int cw, ch, hx, hy;
	uint32_t *cursor = read_xcursor(path, 48, &cw, &ch, &hx, &hy);
	int bad = 0;
	for (int cy = 0; cy < ch; cy++) {
		for (int cx = 0; cx < cw; cx++) {
			int sx = x - hx + cx, sy = y - hy + cy;
			ck_assert(sx >= 0 && sx < w && sy >= 0 && sy < h);
			uint32_t src = cursor[cy * cw + cx];
			uint32_t a = src >> 24;
			uint32_t want = 0xff000000u;
			for (int shift = 0; shift < 24; shift += 8) {
				uint32_t c = ((src >> shift) & 0xff) +
						(((under >> shift) & 0xff) * (255 - a) + 127) / 255;
				want |= (c > 255 ? 255 : c) << shift;
			}
			bad += !staging_pixel_near(shot_px[sy * w + sx], want, 2);
		}
	}
	free(cursor);
	return bad;
}

/* A wl_pointer of the test's own that records the enter serial. */
static uint32_t enter_serial;
static bool entered;

static void cp_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
		struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y) {
	enter_serial = serial;
	entered = true;
}
static void cp_leave(void *data, struct wl_pointer *pointer, uint32_t serial,
		struct wl_surface *surface) {
	entered = false;
}

static const struct wl_pointer_listener cp_listener = {
	.enter = cp_enter,
	.leave = cp_leave,
	.motion = staging_pointer_motion,
	.button = staging_pointer_button,
	.axis = staging_pointer_axis,
};

#define CURSOR_WINDOW 0xff00ff00u

START_TEST(test_staging_cursor_shape) {
	struct harness *harness = harness_create("staging-cursor-shape");
	const char *const env[] = { "XCURSOR_THEME=Adwaita", "XCURSOR_SIZE=48",
		NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480",
					.env = env });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "shape"));
	struct staging_globals g = { 0 };
	struct wl_registry *registry = staging_bind(app.display, &g);
	ck_assert_msg(g.cursor_shape != NULL, "no wp_cursor_shape_manager_v1");
	ck_assert_uint_eq(wl_proxy_get_version((struct wl_proxy *)g.cursor_shape),
			2);
	ck_assert(sc_app_create_window(&app, "shape", "shape", 300, 240,
			CURSOR_WINDOW));
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_list_windows(vitrail->conn, NULL);
	const struct harness_window *win =
			harness_find_window(vitrail->conn, "shape");
	ck_assert(win != NULL);
	int px = win->x + 150, py = win->y + 120;

	struct wl_pointer *pointer = wl_seat_get_pointer(app.seat);
	wl_pointer_add_listener(pointer, &cp_listener, NULL);
	struct wp_cursor_shape_device_v1 *device =
			wp_cursor_shape_manager_v1_get_pointer(g.cursor_shape, pointer);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_pointer_move(vitrail->conn, px, py);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(5000);
	while (!entered && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
		harness_sleep_ms(10);
	}
	ck_assert_msg(entered, "no wl_pointer.enter");

	int32_t w, h;
	wp_cursor_shape_device_v1_set_shape(device, enter_serial,
			WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_POINTER);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	uint32_t *s = staging_shot(harness, vitrail, "pointer", &w, &h);
	int bad = cursor_mismatch(s, w, h, "pointer", px, py, CURSOR_WINDOW);
	ck_assert_msg(bad == 0, "shape pointer: %d pixels differ from the theme's",
			bad);
	// the oracle can tell: the arrow is not the hand
	ck_assert_int_gt(cursor_mismatch(s, w, h, "default", px, py, CURSOR_WINDOW),
			20);
	free(s);

	wp_cursor_shape_device_v1_set_shape(device, enter_serial,
			WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_TEXT);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	s = staging_shot(harness, vitrail, "text", &w, &h);
	bad = cursor_mismatch(s, w, h, "text", px, py, CURSOR_WINDOW);
	ck_assert_msg(bad == 0, "shape text: %d pixels differ", bad);
	free(s);

	// a serial that is not the enter's: ignored, still text
	wp_cursor_shape_device_v1_set_shape(device, enter_serial + 1000,
			WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_CROSSHAIR);
	// another client, without the focus, with a serial of the right value
	struct sc_app other_app = { 0 };
	ck_assert(sc_app_init(&other_app, "shape-other"));
	struct wl_pointer *other_pointer = wl_seat_get_pointer(other_app.seat);
	struct staging_globals og2 = { 0 };
	struct wl_registry *oreg2 = staging_bind(other_app.display, &og2);
	struct wp_cursor_shape_device_v1 *other_device =
			wp_cursor_shape_manager_v1_get_pointer(og2.cursor_shape,
					other_pointer);
	wp_cursor_shape_device_v1_set_shape(other_device, enter_serial,
			WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_WAIT);
	ck_assert_int_ge(wl_display_roundtrip(other_app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	s = staging_shot(harness, vitrail, "ignored", &w, &h);
	bad = cursor_mismatch(s, w, h, "text", px, py, CURSOR_WINDOW);
	ck_assert_msg(bad == 0, "after ignored requests: %d pixels differ", bad);
	free(s);

	// a new enter: its serial is the one that counts
	harness_pointer_move(vitrail->conn, 5, 5);
	deadline = harness_now_ms() + harness_scaled_ms(5000);
	while (entered && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
		harness_sleep_ms(10);
	}
	ck_assert_msg(!entered, "no wl_pointer.leave");
	uint32_t old_serial = enter_serial;
	harness_pointer_move(vitrail->conn, px, py);
	deadline = harness_now_ms() + harness_scaled_ms(5000);
	while (!entered && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
		harness_sleep_ms(10);
	}
	ck_assert(entered && enter_serial != old_serial);
	wp_cursor_shape_device_v1_set_shape(device, old_serial,
			WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_CROSSHAIR);
	wp_cursor_shape_device_v1_set_shape(device, enter_serial,
			WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_POINTER);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	s = staging_shot(harness, vitrail, "reentered", &w, &h);
	bad = cursor_mismatch(s, w, h, "pointer", px, py, CURSOR_WINDOW);
	ck_assert_msg(bad == 0, "after a new enter: %d pixels differ", bad);
	free(s);

	wp_cursor_shape_device_v1_destroy(other_device);
	staging_release(&og2, oreg2);
	wl_pointer_destroy(other_pointer);
	sc_app_finish(&other_app);
	wp_cursor_shape_device_v1_destroy(device);
	wl_pointer_destroy(pointer);
	staging_release(&g, registry);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* A client of its own sets shape on a device of a manager bound at
 * version; the protocol error code (-1: none). */
static int shape_error_client(uint32_t version, uint32_t shape,
		const struct wl_interface **interface) {
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "shape-errors"));
	struct staging_globals g = { .cursor_shape_version = version };
	struct wl_registry *registry = staging_bind(app.display, &g);
	ck_assert(g.cursor_shape != NULL);
	struct wl_pointer *pointer = wl_seat_get_pointer(app.seat);
	struct wp_cursor_shape_device_v1 *device =
			wp_cursor_shape_manager_v1_get_pointer(g.cursor_shape, pointer);
	wp_cursor_shape_device_v1_set_shape(device, 0, shape);
	int code = staging_roundtrip_error(app.display, interface);
	wp_cursor_shape_device_v1_destroy(device);
	wl_pointer_destroy(pointer);
	staging_release(&g, registry);
	sc_app_finish(&app);
	return code;
}

START_TEST(test_staging_cursor_shape_errors) {
	struct harness *harness = harness_create("staging-cursor-shape-errors");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	static const struct {
		uint32_t version, shape;
		int code;
	} cases[] = {
		{ 2, 0, WP_CURSOR_SHAPE_DEVICE_V1_ERROR_INVALID_SHAPE },
		{ 2, WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_ALL_RESIZE + 1,
				WP_CURSOR_SHAPE_DEVICE_V1_ERROR_INVALID_SHAPE },
		{ 2, 0xffffffffu, WP_CURSOR_SHAPE_DEVICE_V1_ERROR_INVALID_SHAPE },
		{ 1, WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_DND_ASK,
				WP_CURSOR_SHAPE_DEVICE_V1_ERROR_INVALID_SHAPE },
		// valid ones (without the focus: ignored, no error)
		{ 1, WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_ZOOM_OUT, -1 },
		{ 2, WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_ALL_RESIZE, -1 },
		{ 2, WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_DEFAULT, -1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct wl_interface *interface = NULL;
		int code = shape_error_client(cases[i].version, cases[i].shape,
				&interface);
		ck_assert_msg(code == cases[i].code,
				"version %u shape %u: error %d, not %d", cases[i].version,
				cases[i].shape, code, cases[i].code);
		if (code >= 0) {
			ck_assert_ptr_eq(interface, &wp_cursor_shape_device_v1_interface);
		}
	}
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- security context --------------------------------------------------- */

/* What a sandboxed client must not see, whatever the mode and the
 * configuration allow (vitrail(1), SECURITY CONTEXT), and an ordinary
 * client does see in desktop mode (vitrail started with --test). */
static const char *const privileged[] = {
	"zwlr_screencopy_manager_v1",
	"zwlr_virtual_pointer_manager_v1",
	"zwp_virtual_keyboard_manager_v1",
	"zwlr_output_manager_v1",
	"zwlr_output_power_manager_v1",
	"zwlr_gamma_control_manager_v1",
	"zwlr_data_control_manager_v1",
	"zwlr_foreign_toplevel_manager_v1",
	"ext_foreign_toplevel_list_v1",
	"ext_image_copy_capture_manager_v1",
	"ext_output_image_capture_source_manager_v1",
	"ext_foreign_toplevel_image_capture_source_manager_v1",
	"zwlr_input_inhibit_manager_v1",
	"ext_session_lock_manager_v1",
	"wp_security_context_manager_v1",
	"zwlr_layer_shell_v1",
	"zwp_input_method_manager_v2",
	"vitrail_test_v1",
};
/* ... and what it still sees. */
static const char *const ordinary[] = {
	"wl_compositor",
	"wl_seat",
	"xdg_wm_base",
	"wp_alpha_modifier_v1",
	"wp_cursor_shape_manager_v1",
	"wp_presentation",
};

/* A unix socket listening at path (its fd). */
static int listen_at(const char *path, bool do_listen) {
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	ck_assert(strlen(path) < sizeof(addr.sun_path));
	strcpy(addr.sun_path, path);
	unlink(path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	if (do_listen) {
		ck_assert_int_eq(listen(fd, 8), 0);
	}
	return fd;
}

/* A connection to path, -1 when refused. */
static int connect_to(const char *path) {
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	strcpy(addr.sun_path, path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Connect through the security context's socket and list the globals;
 * the display stays connected (disconnect it). */
static struct wl_display *sandboxed_client(const char *path,
		struct staging_globals *g, struct wl_registry **registry) {
	int fd = connect_to(path);
	ck_assert_msg(fd >= 0, "cannot connect to %s: %s", path, strerror(errno));
	struct wl_display *display = wl_display_connect_to_fd(fd);
	ck_assert(display != NULL);
	*registry = staging_bind(display, g);
	return display;
}

static void assert_sandboxed_view(const struct staging_globals *g,
		const char *who) {
	for (size_t i = 0; i < sizeof(privileged) / sizeof(privileged[0]); i++) {
		ck_assert_msg(!staging_seen(g, privileged[i]), "%s sees %s", who,
				privileged[i]);
	}
	for (size_t i = 0; i < sizeof(ordinary) / sizeof(ordinary[0]); i++) {
		ck_assert_msg(staging_seen(g, ordinary[i]), "%s does not see %s", who,
				ordinary[i]);
	}
}

/* The case in a vitrail started with extra_args. */
static void security_context_run(const char *name,
		const char *const *extra_args) {
	struct harness *harness = harness_create(name);
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240",
					.extra_args = extra_args });
	// an ordinary client sees every one of them
	struct wl_display *a = wl_display_connect(vitrail->socket);
	ck_assert(a != NULL);
	struct staging_globals ga = { 0 };
	struct wl_registry *ra = staging_bind(a, &ga);
	for (size_t i = 0; i < sizeof(privileged) / sizeof(privileged[0]); i++) {
		ck_assert_msg(staging_seen(&ga, privileged[i]),
				"an ordinary client misses %s", privileged[i]);
	}
	ck_assert(ga.security != NULL);

	char *path = NULL;
	ck_assert(asprintf(&path, "%s/sandbox-0", harness->runtime_dir) > 0);
	int listen_fd = listen_at(path, true);
	int close_pipe[2];
	ck_assert_int_eq(pipe2(close_pipe, O_CLOEXEC), 0);
	struct wp_security_context_v1 *ctx =
			wp_security_context_manager_v1_create_listener(ga.security,
					listen_fd, close_pipe[0]);
	wp_security_context_v1_set_sandbox_engine(ctx, "org.example.test");
	wp_security_context_v1_set_app_id(ctx, "org.example.App");
	wp_security_context_v1_set_instance_id(ctx, "42");
	wp_security_context_v1_commit(ctx);
	wp_security_context_v1_destroy(ctx);
	ck_assert_int_ge(wl_display_roundtrip(a), 0);
	// vitrail holds its own copies now
	close(listen_fd);
	close(close_pipe[0]);

	struct staging_globals gb = { 0 };
	struct wl_registry *rb = NULL;
	struct wl_display *b = sandboxed_client(path, &gb, &rb);
	assert_sandboxed_view(&gb, "a sandboxed client");
	// it is a client like others: its requests are answered
	ck_assert_int_ge(wl_display_roundtrip(b), 0);
	// binding a hidden global by the name an ordinary client saw fails
	struct wl_registry *rb3 = wl_display_get_registry(b);
	struct wp_security_context_manager_v1 *stolen = wl_registry_bind(rb3,
			ga.security_name, &wp_security_context_manager_v1_interface, 1);
	const struct wl_interface *interface = NULL;
	ck_assert_int_ge(staging_roundtrip_error(b, &interface), 0);
	ck_assert_ptr_eq(interface, &wl_registry_interface);
	wp_security_context_manager_v1_destroy(stolen);
	wl_registry_destroy(rb3);
	staging_release(&gb, rb);
	wl_display_disconnect(b);

	// the listener outlives the client that made it
	staging_release(&ga, ra);
	wl_display_disconnect(a);
	struct staging_globals gc = { 0 };
	struct wl_registry *rc = NULL;
	struct wl_display *c = sandboxed_client(path, &gc, &rc);
	assert_sandboxed_view(&gc, "a client after its maker left");
	staging_release(&gc, rc);
	wl_display_disconnect(c);

	// close_fd hangs up: no more connections (vitrail closes the socket)
	close(close_pipe[1]);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(5000);
	int fd;
	while ((fd = connect_to(path)) >= 0 && harness_now_ms() < deadline) {
		close(fd);
		harness_sleep_ms(20);
	}
	ck_assert_msg(fd < 0, "%s still accepts after close_fd hung up", path);
	harness_assert_alive(vitrail->proc);
	free(path);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}

START_TEST(test_staging_security_context) {
	security_context_run("staging-security-context", NULL);
}
END_TEST

/* Kiosk mode allowing every privileged class to ordinary clients: still
 * none for a sandboxed one. */
START_TEST(test_staging_security_context_kiosk) {
	const char *const args[] = { "--mode", "kiosk", "--allow", "all", NULL };
	security_context_run("staging-security-context-kiosk", args);
}
END_TEST

enum sc_misuse {
	MISUSE_PIPE_FD, // listen_fd not a socket
	MISUSE_NOT_LISTENING, // a socket bound, not listening
	MISUSE_ENGINE_TWICE,
	MISUSE_APP_ID_TWICE,
	MISUSE_INSTANCE_TWICE,
	MISUSE_AFTER_COMMIT,
	MISUSE_COMMIT_TWICE,
	MISUSE_EMPTY_APP_ID,
	MISUSE_LONG_ENGINE,
};

/* A client of its own misuses the protocol; its protocol error. */
static int security_misuse(const char *socket, const char *dir,
		enum sc_misuse misuse, const struct wl_interface **interface) {
	struct wl_display *display = wl_display_connect(socket);
	ck_assert(display != NULL);
	struct staging_globals g = { 0 };
	struct wl_registry *registry = staging_bind(display, &g);
	ck_assert(g.security != NULL);
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/misuse-%d", dir, (int)misuse) > 0);
	int listen_fd;
	if (misuse == MISUSE_PIPE_FD) {
		int p[2];
		ck_assert_int_eq(pipe(p), 0);
		close(p[1]);
		listen_fd = p[0];
	} else {
		listen_fd = listen_at(path, misuse != MISUSE_NOT_LISTENING);
	}
	int close_pipe[2];
	ck_assert_int_eq(pipe(close_pipe), 0);
	struct wp_security_context_v1 *ctx =
			wp_security_context_manager_v1_create_listener(g.security,
					listen_fd, close_pipe[0]);
	char longer[300];
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	switch (misuse) {
	case MISUSE_PIPE_FD:
	case MISUSE_NOT_LISTENING: break;
	case MISUSE_ENGINE_TWICE:
		wp_security_context_v1_set_sandbox_engine(ctx, "org.example");
		wp_security_context_v1_set_sandbox_engine(ctx, "org.example");
		break;
	case MISUSE_APP_ID_TWICE:
		wp_security_context_v1_set_app_id(ctx, "a");
		wp_security_context_v1_set_app_id(ctx, "b");
		break;
	case MISUSE_INSTANCE_TWICE:
		wp_security_context_v1_set_instance_id(ctx, "1");
		wp_security_context_v1_set_instance_id(ctx, "2");
		break;
	case MISUSE_AFTER_COMMIT:
		wp_security_context_v1_commit(ctx);
		wp_security_context_v1_set_app_id(ctx, "late");
		break;
	case MISUSE_COMMIT_TWICE:
		wp_security_context_v1_commit(ctx);
		wp_security_context_v1_commit(ctx);
		break;
	case MISUSE_EMPTY_APP_ID: wp_security_context_v1_set_app_id(ctx, ""); break;
	case MISUSE_LONG_ENGINE:
		wp_security_context_v1_set_sandbox_engine(ctx, longer);
		break;
	}
	int code = staging_roundtrip_error(display, interface);
	close(listen_fd);
	close(close_pipe[0]);
	close(close_pipe[1]);
	unlink(path);
	free(path);
	wp_security_context_v1_destroy(ctx);
	staging_release(&g, registry);
	wl_display_disconnect(display);
	return code;
}

START_TEST(test_staging_security_context_errors) {
	struct harness *harness = harness_create("staging-security-context-errors");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	static const struct {
		enum sc_misuse misuse;
		const struct wl_interface *interface;
		int code;
	} cases[] = {
		{ MISUSE_PIPE_FD, &wp_security_context_manager_v1_interface,
				WP_SECURITY_CONTEXT_MANAGER_V1_ERROR_INVALID_LISTEN_FD },
		{ MISUSE_NOT_LISTENING, &wp_security_context_manager_v1_interface,
				WP_SECURITY_CONTEXT_MANAGER_V1_ERROR_INVALID_LISTEN_FD },
		{ MISUSE_ENGINE_TWICE, &wp_security_context_v1_interface,
				WP_SECURITY_CONTEXT_V1_ERROR_ALREADY_SET },
		{ MISUSE_APP_ID_TWICE, &wp_security_context_v1_interface,
				WP_SECURITY_CONTEXT_V1_ERROR_ALREADY_SET },
		{ MISUSE_INSTANCE_TWICE, &wp_security_context_v1_interface,
				WP_SECURITY_CONTEXT_V1_ERROR_ALREADY_SET },
		{ MISUSE_AFTER_COMMIT, &wp_security_context_v1_interface,
				WP_SECURITY_CONTEXT_V1_ERROR_ALREADY_USED },
		{ MISUSE_COMMIT_TWICE, &wp_security_context_v1_interface,
				WP_SECURITY_CONTEXT_V1_ERROR_ALREADY_USED },
		{ MISUSE_EMPTY_APP_ID, &wp_security_context_v1_interface,
				WP_SECURITY_CONTEXT_V1_ERROR_INVALID_METADATA },
		{ MISUSE_LONG_ENGINE, &wp_security_context_v1_interface,
				WP_SECURITY_CONTEXT_V1_ERROR_INVALID_METADATA },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct wl_interface *interface = NULL;
		int code = security_misuse(vitrail->socket, harness->runtime_dir,
				cases[i].misuse, &interface);
		ck_assert_msg(code == cases[i].code && interface == cases[i].interface,
				"misuse %d: error %d of %s, not %d of %s", (int)cases[i].misuse,
				code, interface != NULL ? interface->name : "-", cases[i].code,
				cases[i].interface->name);
	}
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- runner ------------------------------------------------------------- */

static Suite *staging_suite(void) {
	Suite *suite = suite_create("staging");
	harness_add_case(suite, "alpha_modifier", test_staging_alpha_modifier, 60);
	harness_add_case(suite, "alpha_modifier_errors",
			test_staging_alpha_modifier_errors, 60);
	harness_add_case(suite, "cursor_shape", test_staging_cursor_shape, 60);
	harness_add_case(suite, "cursor_shape_errors",
			test_staging_cursor_shape_errors, 60);
	harness_add_case(suite, "security_context", test_staging_security_context,
			60);
	harness_add_case(suite, "security_context_kiosk",
			test_staging_security_context_kiosk, 60);
	harness_add_case(suite, "security_context_errors",
			test_staging_security_context_errors, 60);
	return suite;
}

int main(int argc, char *argv[]) {
	return harness_run_suite(staging_suite(), argc, argv);
}
