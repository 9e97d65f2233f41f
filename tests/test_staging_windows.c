/*
 * The staging protocols about windows that vitrail implements itself
 * (compositor/protocols/xdg_dialog.c, toplevel_icon.c); the others are in
 * test_staging.c. Oracles: the client's own input focus, vitrail's log,
 * the protocol errors the XML names.
 *
 * xdg_dialog: a window and its modal dialog: a click on the parent gives
 *   it neither pointer nor keyboard (the client's own wl_keyboard and
 *   wl_pointer say); after unset_modal, or destroying the dialog object,
 *   it does; a dialog of a destroyed toplevel is inert.
 * xdg_dialog_errors: a second dialog for a toplevel is already_used.
 * toplevel_icon: done alone at bind; an icon (name, buffers) applies with
 *   the window's commit only, as vitrail's log says (its name, how many
 *   buffers); empty and null icons reset it; no error when the buffers go
 *   after the icon.
 * toplevel_icon_errors: immutable, invalid_buffer (not square, not shm,
 *   scale 0), no_buffer.
 */
#define _GNU_SOURCE // asprintf
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

#include "harness.h"
#include "scene-client.h"
#include "single-pixel-buffer-v1-client-protocol.h"
#include "staging_common.h"
#include "xdg-dialog-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"
#include "xdg-toplevel-icon-v1-client-protocol.h"

/* ---- xdg dialog --------------------------------------------------------- */

/* A second toplevel of the app's client (sc_app makes one). */
struct second_window {
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct sc_buffer *buffer;
	uint32_t configure_serial;
	bool configured;
};

static void second_configure(void *data, struct xdg_surface *xdg_surface,
		uint32_t serial) {
	struct second_window *sw = data;
	sw->configure_serial = serial;
	sw->configured = true;
}

static const struct xdg_surface_listener second_surface_listener = {
	.configure = second_configure,
};

static void second_toplevel_configure(void *data, struct xdg_toplevel *toplevel,
		int32_t w, int32_t h, struct wl_array *states) {
}
static void second_toplevel_close(void *data, struct xdg_toplevel *toplevel) {
}

static const struct xdg_toplevel_listener second_toplevel_listener = {
	.configure = second_toplevel_configure,
	.close = second_toplevel_close,
};

/* Its toplevel, nothing committed. */
static void second_create(struct sc_app *app, struct second_window *sw,
		const char *app_id) {
	*sw = (struct second_window){ 0 };
	sw->surface = wl_compositor_create_surface(app->compositor);
	sw->xdg_surface = xdg_wm_base_get_xdg_surface(app->wm_base, sw->surface);
	xdg_surface_add_listener(sw->xdg_surface, &second_surface_listener, sw);
	sw->toplevel = xdg_surface_get_toplevel(sw->xdg_surface);
	xdg_toplevel_add_listener(sw->toplevel, &second_toplevel_listener, sw);
	xdg_toplevel_set_app_id(sw->toplevel, app_id);
}

/* The first commit, its configure, a buffer: mapped. */
static void second_map(struct sc_app *app, struct second_window *sw, int32_t w,
		int32_t h, uint32_t argb) {
	wl_surface_commit(sw->surface);
	while (!sw->configured) {
		ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	}
	xdg_surface_ack_configure(sw->xdg_surface, sw->configure_serial);
	sw->buffer = sc_buffer_create(app, w, h, WL_SHM_FORMAT_ARGB8888, argb);
	ck_assert(sw->buffer != NULL);
	wl_surface_attach(sw->surface, sw->buffer->wl_buffer, 0, 0);
	wl_surface_damage(sw->surface, 0, 0, w, h);
	wl_surface_commit(sw->surface);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
}

static void second_destroy(struct second_window *sw) {
	if (sw->toplevel != NULL) {
		xdg_toplevel_destroy(sw->toplevel);
	}
	xdg_surface_destroy(sw->xdg_surface);
	wl_surface_destroy(sw->surface);
	if (sw->buffer != NULL) {
		sc_buffer_destroy(sw->buffer);
	}
}

/* The client's keyboard and pointer focus, from its own wl_keyboard and
 * wl_pointer. */
static struct wl_surface *keyboard_focus, *pointer_focus;

static void kb_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format,
		int32_t fd, uint32_t size) {
	close(fd);
}
static void kb_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
		struct wl_surface *surface, struct wl_array *keys) {
	keyboard_focus = surface;
}
static void kb_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial,
		struct wl_surface *surface) {
	if (keyboard_focus == surface) {
		keyboard_focus = NULL;
	}
}
static void kb_key(void *data, struct wl_keyboard *keyboard, uint32_t serial,
		uint32_t time, uint32_t key, uint32_t state) {
}
static void kb_modifiers(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, uint32_t depressed, uint32_t latched, uint32_t locked,
		uint32_t group) {
}

static const struct wl_keyboard_listener kb_listener = {
	.keymap = kb_keymap,
	.enter = kb_enter,
	.leave = kb_leave,
	.key = kb_key,
	.modifiers = kb_modifiers,
};

static void fp_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
		struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y) {
	pointer_focus = surface;
}
static void fp_leave(void *data, struct wl_pointer *pointer, uint32_t serial,
		struct wl_surface *surface) {
	if (pointer_focus == surface) {
		pointer_focus = NULL;
	}
}

static const struct wl_pointer_listener fp_listener = {
	.enter = fp_enter,
	.leave = fp_leave,
	.motion = staging_pointer_motion,
	.button = staging_pointer_button,
	.axis = staging_pointer_axis,
};

/* Click at (x, y) (layout), then let the client hear of it. */
static void click_at(struct harness_vitrail *vitrail, struct sc_app *app,
		double x, double y) {
	harness_pointer_move(vitrail->conn, x, y);
	harness_pointer_button(vitrail->conn, 0x110, true); // BTN_LEFT
	harness_pointer_button(vitrail->conn, 0x110, false);
	harness_settle(vitrail->conn);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
}

START_TEST(test_staging_xdg_dialog) {
	struct harness *harness = harness_create("staging-xdg-dialog");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "dialog-parent"));
	struct staging_globals g = { 0 };
	struct wl_registry *registry = staging_bind(app.display, &g);
	ck_assert_msg(g.dialog != NULL, "no xdg_wm_dialog_v1");
	struct wl_keyboard *keyboard = wl_seat_get_keyboard(app.seat);
	wl_keyboard_add_listener(keyboard, &kb_listener, NULL);
	struct wl_pointer *pointer = wl_seat_get_pointer(app.seat);
	wl_pointer_add_listener(pointer, &fp_listener, NULL);
	ck_assert(sc_app_create_window(&app, "dialog-parent", "parent", 400, 300,
			0xff00ff00u));
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);

	struct second_window dlg;
	second_create(&app, &dlg, "dialog-child");
	xdg_toplevel_set_parent(dlg.toplevel, app.xdg_toplevel);
	struct xdg_dialog_v1 *dialog =
			xdg_wm_dialog_v1_get_xdg_dialog(g.dialog, dlg.toplevel);
	xdg_dialog_v1_set_modal(dialog);
	second_map(&app, &dlg, 100, 80, 0xff0000ffu);
	harness_wait_for_windows(vitrail->conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_settle(vitrail->conn);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(keyboard_focus == dlg.surface,
			"the new dialog does not have the keyboard");

	// a point of the parent away from the dialog
	harness_list_windows(vitrail->conn, NULL);
	const struct harness_window *pw =
			harness_find_window(vitrail->conn, "dialog-parent");
	const struct harness_window *dw =
			harness_find_window(vitrail->conn, "dialog-child");
	ck_assert(pw != NULL && dw != NULL);
	int px = -1, py = -1;
	for (int y = pw->y + 5; y < pw->y + pw->height - 5 && px < 0; y += 10) {
		for (int x = pw->x + 5; x < pw->x + pw->width - 5; x += 10) {
			if (x < dw->x - 5 || x > dw->x + dw->width + 5 || y < dw->y - 5 ||
					y > dw->y + dw->height + 5) {
				px = x;
				py = y;
				break;
			}
		}
	}
	ck_assert(px >= 0);

	// modal: a click on the parent gives it neither pointer nor keyboard
	click_at(vitrail, &app, px, py);
	ck_assert_msg(pointer_focus != app.surface,
			"the parent of a modal dialog has the pointer");
	ck_assert_msg(keyboard_focus == dlg.surface,
			"the parent of a modal dialog took the keyboard");
	// not modal: it does
	xdg_dialog_v1_unset_modal(dialog);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	click_at(vitrail, &app, px + 1, py);
	ck_assert_msg(pointer_focus == app.surface,
			"the parent of a dialog no longer modal has no pointer");
	ck_assert_msg(keyboard_focus == app.surface,
			"the parent of a dialog no longer modal has no keyboard");
	// modal again: focusing the parent focuses the dialog
	xdg_dialog_v1_set_modal(dialog);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	click_at(vitrail, &app, px, py);
	ck_assert_msg(keyboard_focus == dlg.surface,
			"a click on the parent of a modal dialog does not focus it");
	// the dialog object destroyed: its effect goes
	xdg_dialog_v1_destroy(dialog);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	click_at(vitrail, &app, px + 1, py);
	ck_assert_msg(keyboard_focus == app.surface && pointer_focus == app.surface,
			"the dialog object destroyed, the parent still takes no input");

	// a dialog whose toplevel is gone is inert: no error
	dialog = xdg_wm_dialog_v1_get_xdg_dialog(g.dialog, dlg.toplevel);
	xdg_dialog_v1_set_modal(dialog);
	xdg_toplevel_destroy(dlg.toplevel);
	dlg.toplevel = NULL;
	xdg_dialog_v1_unset_modal(dialog);
	xdg_dialog_v1_set_modal(dialog);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	click_at(vitrail, &app, px, py);
	ck_assert_msg(keyboard_focus == app.surface,
			"an inert modal dialog holds its parent's input");
	xdg_dialog_v1_destroy(dialog);

	second_destroy(&dlg);
	wl_keyboard_destroy(keyboard);
	wl_pointer_destroy(pointer);
	staging_release(&g, registry);
	sc_app_finish(&app);
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

START_TEST(test_staging_xdg_dialog_errors) {
	struct harness *harness = harness_create("staging-xdg-dialog-errors");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "dialog-errors"));
	struct staging_globals g = { 0 };
	struct wl_registry *registry = staging_bind(app.display, &g);
	ck_assert(g.dialog != NULL);
	struct second_window sw;
	second_create(&app, &sw, "dialog-errors");
	struct xdg_dialog_v1 *d1 =
			xdg_wm_dialog_v1_get_xdg_dialog(g.dialog, sw.toplevel);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	struct xdg_dialog_v1 *d2 =
			xdg_wm_dialog_v1_get_xdg_dialog(g.dialog, sw.toplevel);
	const struct wl_interface *interface = NULL;
	ck_assert_int_eq(staging_roundtrip_error(app.display, &interface),
			XDG_WM_DIALOG_V1_ERROR_ALREADY_USED);
	ck_assert_ptr_eq(interface, &xdg_wm_dialog_v1_interface);
	xdg_dialog_v1_destroy(d2);
	xdg_dialog_v1_destroy(d1);
	second_destroy(&sw);
	staging_release(&g, registry);
	sc_app_finish(&app);
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- toplevel icon ------------------------------------------------------ */

static int icon_sizes, icon_dones;

/* How many times vitrail's log says text (waiting up to 2 s for want). */
static int log_count(struct harness_vitrail *vitrail, const char *text,
		int want) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(2000);
	int n;
	do {
		char *log = harness_proc_log(vitrail->proc);
		n = 0;
		for (const char *p = strstr(log, text); p != NULL;
				p = strstr(p + 1, text)) {
			n++;
		}
		free(log);
		if (n >= want) {
			break;
		}
		harness_sleep_ms(20);
	} while (harness_now_ms() < deadline);
	return n;
}

static void icon_size(void *data, struct xdg_toplevel_icon_manager_v1 *m,
		int32_t size) {
	icon_sizes++;
}
static void icon_done(void *data, struct xdg_toplevel_icon_manager_v1 *m) {
	icon_dones++;
}

static const struct xdg_toplevel_icon_manager_v1_listener icon_listener = {
	.icon_size = icon_size,
	.done = icon_done,
};

START_TEST(test_staging_toplevel_icon) {
	struct harness *harness = harness_create("staging-toplevel-icon");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "icon"));
	struct staging_globals g = { 0 };
	icon_sizes = icon_dones = 0;
	struct wl_registry *registry = staging_bind(app.display, &g);
	ck_assert_msg(g.icon != NULL, "no xdg_toplevel_icon_manager_v1");
	xdg_toplevel_icon_manager_v1_add_listener(g.icon, &icon_listener, NULL);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	// no preferred size: done alone
	ck_assert_int_eq(icon_dones, 1);
	ck_assert_int_eq(icon_sizes, 0);
	ck_assert(sc_app_create_window(&app, "icon", "icon", 100, 80, 0xff808080u));
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);

	// a name and buffers (one replaced: same size and scale), set, the
	// icon destroyed, applied by the commit
	struct sc_buffer *b32 =
			sc_buffer_create(&app, 32, 32, WL_SHM_FORMAT_ARGB8888, 0xffff0000u);
	struct sc_buffer *b32b =
			sc_buffer_create(&app, 32, 32, WL_SHM_FORMAT_ARGB8888, 0xff00ff00u);
	struct sc_buffer *b64 =
			sc_buffer_create(&app, 64, 64, WL_SHM_FORMAT_ARGB8888, 0xff0000ffu);
	struct xdg_toplevel_icon_v1 *icon =
			xdg_toplevel_icon_manager_v1_create_icon(g.icon);
	xdg_toplevel_icon_v1_set_name(icon, "utilities-terminal");
	xdg_toplevel_icon_v1_set_name(icon, "org.example.App");
	xdg_toplevel_icon_v1_add_buffer(icon, b32->wl_buffer, 1);
	xdg_toplevel_icon_v1_add_buffer(icon, b32b->wl_buffer, 1);
	xdg_toplevel_icon_v1_add_buffer(icon, b64->wl_buffer, 2);
	xdg_toplevel_icon_manager_v1_set_icon(g.icon, app.xdg_toplevel, icon);
	xdg_toplevel_icon_v1_destroy(icon);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	// double-buffered: nothing before the commit
	harness_settle(vitrail->conn);
	ck_assert_int_eq(log_count(vitrail, ": icon ", 0), 0);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	// the last name; 32 at 1 replaced, 64 at 2: two buffers
	ck_assert_int_eq(log_count(vitrail, ": icon org.example.App, 2 buffers", 1),
			1);
	// the buffers may go once the icon is gone
	sc_buffer_destroy(b32);
	sc_buffer_destroy(b32b);
	sc_buffer_destroy(b64);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	// an empty icon, then none: the default icon
	icon = xdg_toplevel_icon_manager_v1_create_icon(g.icon);
	xdg_toplevel_icon_manager_v1_set_icon(g.icon, app.xdg_toplevel, icon);
	wl_surface_commit(app.surface);
	xdg_toplevel_icon_manager_v1_set_icon(g.icon, app.xdg_toplevel, NULL);
	wl_surface_commit(app.surface);
	xdg_toplevel_icon_v1_destroy(icon);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_eq(log_count(vitrail, ": icon -, 0 buffers", 2), 2);
	// one icon on two toplevels, the first closed while the second keeps it
	struct second_window sw;
	second_create(&app, &sw, "icon-second");
	icon = xdg_toplevel_icon_manager_v1_create_icon(g.icon);
	xdg_toplevel_icon_v1_set_name(icon, "folder");
	xdg_toplevel_icon_manager_v1_set_icon(g.icon, sw.toplevel, icon);
	xdg_toplevel_icon_manager_v1_set_icon(g.icon, app.xdg_toplevel, icon);
	second_map(&app, &sw, 50, 50, 0xff000000u);
	second_destroy(&sw);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	xdg_toplevel_icon_v1_destroy(icon);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	// applied by each toplevel's own commit
	ck_assert_int_eq(log_count(vitrail, ": icon folder, 0 buffers", 2), 2);

	staging_release(&g, registry);
	sc_app_finish(&app);
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

enum icon_misuse {
	ICON_NAME_AFTER_SET, // immutable
	ICON_BUFFER_AFTER_SET, // immutable
	ICON_NOT_SQUARE, // invalid_buffer
	ICON_NOT_SHM, // invalid_buffer
	ICON_SCALE_ZERO, // invalid_buffer
	ICON_BUFFER_GONE, // no_buffer
};

static int icon_misuse(enum icon_misuse misuse,
		const struct wl_interface **interface) {
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "icon-errors"));
	struct staging_globals g = { 0 };
	struct wl_registry *registry = staging_bind(app.display, &g);
	ck_assert(g.icon != NULL && g.single_pixel != NULL);
	struct second_window sw;
	second_create(&app, &sw, "icon-errors");
	struct sc_buffer *square =
			sc_buffer_create(&app, 16, 16, WL_SHM_FORMAT_ARGB8888, 0xffffffffu);
	struct sc_buffer *wide =
			sc_buffer_create(&app, 16, 8, WL_SHM_FORMAT_ARGB8888, 0xffffffffu);
	struct wl_buffer *pixel =
			wp_single_pixel_buffer_manager_v1_create_u32_rgba_buffer(
					g.single_pixel, 0, 0, 0, 0xffffffffu);
	struct xdg_toplevel_icon_v1 *icon =
			xdg_toplevel_icon_manager_v1_create_icon(g.icon);
	switch (misuse) {
	case ICON_NAME_AFTER_SET:
		xdg_toplevel_icon_v1_set_name(icon, "a");
		xdg_toplevel_icon_manager_v1_set_icon(g.icon, sw.toplevel, icon);
		xdg_toplevel_icon_v1_set_name(icon, "b");
		break;
	case ICON_BUFFER_AFTER_SET:
		xdg_toplevel_icon_manager_v1_set_icon(g.icon, sw.toplevel, icon);
		xdg_toplevel_icon_v1_add_buffer(icon, square->wl_buffer, 1);
		break;
	case ICON_NOT_SQUARE:
		xdg_toplevel_icon_v1_add_buffer(icon, wide->wl_buffer, 1);
		break;
	case ICON_NOT_SHM: xdg_toplevel_icon_v1_add_buffer(icon, pixel, 1); break;
	case ICON_SCALE_ZERO:
		xdg_toplevel_icon_v1_add_buffer(icon, square->wl_buffer, 0);
		break;
	case ICON_BUFFER_GONE:
		xdg_toplevel_icon_v1_add_buffer(icon, square->wl_buffer, 1);
		ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
		wl_buffer_destroy(square->wl_buffer);
		square->wl_buffer = NULL;
		break;
	}
	int code = staging_roundtrip_error(app.display, interface);
	xdg_toplevel_icon_v1_destroy(icon);
	wl_buffer_destroy(pixel);
	if (square->wl_buffer != NULL) {
		sc_buffer_destroy(square);
	} else { // its wl_buffer is gone already: the rest of it
		munmap(square->pixels, square->size);
		free(square);
	}
	sc_buffer_destroy(wide);
	second_destroy(&sw);
	staging_release(&g, registry);
	sc_app_finish(&app);
	return code;
}

START_TEST(test_staging_toplevel_icon_errors) {
	struct harness *harness = harness_create("staging-toplevel-icon-errors");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	static const struct {
		enum icon_misuse misuse;
		int code;
	} cases[] = {
		{ ICON_NAME_AFTER_SET, XDG_TOPLEVEL_ICON_V1_ERROR_IMMUTABLE },
		{ ICON_BUFFER_AFTER_SET, XDG_TOPLEVEL_ICON_V1_ERROR_IMMUTABLE },
		{ ICON_NOT_SQUARE, XDG_TOPLEVEL_ICON_V1_ERROR_INVALID_BUFFER },
		{ ICON_NOT_SHM, XDG_TOPLEVEL_ICON_V1_ERROR_INVALID_BUFFER },
		{ ICON_SCALE_ZERO, XDG_TOPLEVEL_ICON_V1_ERROR_INVALID_BUFFER },
		{ ICON_BUFFER_GONE, XDG_TOPLEVEL_ICON_V1_ERROR_NO_BUFFER },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct wl_interface *interface = NULL;
		int code = icon_misuse(cases[i].misuse, &interface);
		ck_assert_msg(code == cases[i].code &&
						interface == &xdg_toplevel_icon_v1_interface,
				"misuse %d: error %d of %s, not %d", (int)cases[i].misuse, code,
				interface != NULL ? interface->name : "-", cases[i].code);
	}
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- runner ------------------------------------------------------------- */

static Suite *staging_windows_suite(void) {
	Suite *suite = suite_create("staging-windows");
	harness_add_case(suite, "xdg_dialog", test_staging_xdg_dialog, 60);
	harness_add_case(suite, "xdg_dialog_errors", test_staging_xdg_dialog_errors,
			60);
	harness_add_case(suite, "toplevel_icon", test_staging_toplevel_icon, 60);
	harness_add_case(suite, "toplevel_icon_errors",
			test_staging_toplevel_icon_errors, 60);
	return suite;
}

int main(int argc, char *argv[]) {
	return harness_run_suite(staging_windows_suite(), argc, argv);
}
