/*
 * Layer shell and output management, with real clients: swaybg paints
 * every output through wlr-layer-shell, a panel's exclusive zone keeps
 * windows below it and its exclusive keyboard interactivity keeps the
 * keys, wlr-randr lists and changes the outputs through
 * wlr-output-management.
 *
 * The oracles are the tests' own: the colours and the tiled image passed to
 * swaybg, the panel's height, the sizes and rates vitrail was started with
 * and those passed to wlr-randr, read back through grim's screenshots
 * (screencopy), wlr-randr's own listing and vitrail's frame log.
 *
 * One TCase per scenario: `test-outputs <tcase>`. Environment: as
 * test_integration.c, plus VITRAIL_LAYER_PANEL (vitrail-layer-panel).
 */
#define _GNU_SOURCE // memfd_create, asprintf
#include <check.h>
#include <linux/input-event-codes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

#include <vitrail/renderer.h>

#include "harness.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

static const char *panel_path(void) {
	const char *path = getenv("VITRAIL_LAYER_PANEL");
	return path != NULL && path[0] != '\0' ? path : "vitrail-layer-panel";
}

static const char *demo_path(void) {
	const char *path = getenv("VITRAIL_DEMO");
	return path != NULL && path[0] != '\0' ? path : "vitrail-demo";
}

static void sleep_ms(int ms) {
	struct timespec ts = { .tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* grim's screenshot of output (or of a layout region "X,Y WxH" when
 * geometry is set) into DIR/name.png; its pixels (malloc'd). */
static uint32_t *screenshot(struct harness *harness,
		struct harness_vitrail *vitrail, const char *output,
		const char *geometry, const char *name, int32_t *w, int32_t *h) {
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/%s.png", harness->out_dir, name) > 0);
	harness_settle(vitrail->conn);
	int status;
	if (geometry != NULL) {
		const char *argv[] = { "grim", "-g", geometry, path, NULL };
		status = harness_run_client(harness, vitrail, argv,
			HARNESS_WAIT_TIMEOUT_MS, NULL);
	} else {
		status = harness_grim(harness, vitrail, output, path);
	}
	ck_assert_msg(status == 0, "grim failed with status %d", status);
	uint32_t *pixels = vr_png_read(path, w, h);
	ck_assert_msg(pixels != NULL, "cannot read %s", path);
	free(path);
	return pixels;
}

/* The first pixel of the screenshot that differs from expect(x, y), or -1
 * (as y * w + x). */
typedef uint32_t (*pixel_fn)(int32_t x, int32_t y, const void *data);

static long first_mismatch(const uint32_t *pixels, int32_t w, int32_t h,
		pixel_fn expect, const void *data) {
	for (int32_t y = 0; y < h; y++) {
		for (int32_t x = 0; x < w; x++) {
			if (pixels[y * w + x] != expect(x, y, data)) {
				return (long)y * w + x;
			}
		}
	}
	return -1;
}

static uint32_t solid(int32_t x, int32_t y, const void *data) {
	return *(const uint32_t *)data;
}

/* Screenshot output until every pixel is expect's (clients draw when they
 * like), at most timeout_ms; fails with the last mismatch. */
static void wait_for_pixels(struct harness *harness,
		struct harness_vitrail *vitrail, const char *output,
		const char *geometry, const char *name, int32_t want_w,
		int32_t want_h, pixel_fn expect, const void *data, int timeout_ms) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(timeout_ms);
	for (;;) {
		int32_t w = 0, h = 0;
		uint32_t *pixels = screenshot(harness, vitrail, output, geometry,
			name, &w, &h);
		long bad = w == want_w && h == want_h ?
			first_mismatch(pixels, w, h, expect, data) : 0;
		if (bad < 0) {
			free(pixels);
			return;
		}
		if (harness_now_ms() >= deadline) {
			if (w != want_w || h != want_h) {
				ck_abort_msg("%s: screenshot of %s is %dx%d, expected "
					"%dx%d", name, geometry != NULL ? geometry : output,
					w, h, want_w, want_h);
			}
			int32_t x = (int32_t)(bad % w), y = (int32_t)(bad / w);
			ck_abort_msg("%s: pixel (%d, %d) of %s is 0x%08x, expected "
				"0x%08x (screenshot %s/%s.png)", name, x, y,
				geometry != NULL ? geometry : output, pixels[bad],
				expect(x, y, data), harness->out_dir, name);
		}
		free(pixels);
		sleep_ms(200);
	}
}

/* Wait until the process's log has line (a whole line). */
static void wait_for_line(struct harness_proc *proc, const char *line,
		int timeout_ms) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(timeout_ms);
	char *needle = NULL;
	ck_assert(asprintf(&needle, "%s\n", line) > 0);
	for (;;) {
		char *log = harness_proc_log(proc);
		bool found = strncmp(log, needle, strlen(needle)) == 0 ||
			(strstr(log, needle) != NULL && strstr(log, needle)[-1] == '\n');
		if (found) {
			free(log);
			free(needle);
			return;
		}
		if (harness_now_ms() >= deadline || !harness_proc_alive(proc)) {
			ck_abort_msg("%s never printed '%s'; its log:\n%s", proc->name,
				line, log);
		}
		free(log);
		sleep_ms(50);
	}
}

/* ---- layer_swaybg --------------------------------------------------------- */

#define CHECKER 8 // the tile: CHECKER x CHECKER, left half A, right half B
#define TILE_A 0xff884422u
#define TILE_B 0xff2288aau

static uint32_t tiled(int32_t x, int32_t y, const void *data) {
	return x % CHECKER < CHECKER / 2 ? TILE_A : TILE_B;
}

START_TEST(test_outputs_swaybg_paints_every_output)
{
	harness_require_program("swaybg", "swaybg");
	struct harness *harness = harness_create("layer_swaybg");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){ .outputs = 2,
			.output_size = "320x240" });

	// a colour: every pixel of both outputs is it
	const char *argv[] = { "swaybg", "-c", "#336699", NULL };
	struct harness_proc *bg = harness_spawn_client(harness, vitrail, argv);
	const uint32_t colour = 0xff336699u;
	wait_for_pixels(harness, vitrail, "HEADLESS-1", NULL, "colour-1", 320,
		240, solid, &colour, 10000);
	wait_for_pixels(harness, vitrail, "HEADLESS-2", NULL, "colour-2", 320,
		240, solid, &colour, 10000);
	harness_proc_stop(bg);

	// an image, tiled from each output's top-left corner
	uint32_t tile[CHECKER * CHECKER];
	for (int i = 0; i < CHECKER * CHECKER; i++) {
		tile[i] = tiled(i % CHECKER, i / CHECKER, NULL);
	}
	char *png = NULL;
	ck_assert(asprintf(&png, "%s/tile.png", harness->out_dir) > 0);
	ck_assert(vr_png_write(png, tile, CHECKER, CHECKER, CHECKER * 4, true));
	const char *argv_image[] = { "swaybg", "-i", png, "-m", "tile", NULL };
	bg = harness_spawn_client(harness, vitrail, argv_image);
	wait_for_pixels(harness, vitrail, "HEADLESS-1", NULL, "image-1", 320,
		240, tiled, NULL, 10000);
	wait_for_pixels(harness, vitrail, "HEADLESS-2", NULL, "image-2", 320,
		240, tiled, NULL, 10000);
	harness_assert_alive(bg);
	free(png);

	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- layer_panel ---------------------------------------------------------- */

#define PANEL_HEIGHT 200
#define PANEL_COLOUR 0xff884422u

struct key_driver {
	struct wl_display *display;
	struct wl_seat *seat;
	struct zwp_virtual_keyboard_manager_v1 *manager;
	struct zwp_virtual_keyboard_v1 *keyboard;
};

static void driver_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct key_driver *d = data;
	if (strcmp(interface, wl_seat_interface.name) == 0 && d->seat == NULL) {
		d->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	} else if (strcmp(interface,
			zwp_virtual_keyboard_manager_v1_interface.name) == 0) {
		d->manager = wl_registry_bind(registry, name,
			&zwp_virtual_keyboard_manager_v1_interface, 1);
	}
}

static void driver_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener driver_registry_listener = {
	.global = driver_global,
	.global_remove = driver_global_remove,
};

/* A virtual keyboard with a US keymap: the seat offers a keyboard once
 * one exists. */
static void driver_start(struct key_driver *d, const char *socket) {
	d->display = wl_display_connect(socket);
	ck_assert(d->display != NULL);
	struct wl_registry *registry = wl_display_get_registry(d->display);
	wl_registry_add_listener(registry, &driver_registry_listener, d);
	ck_assert_int_ge(wl_display_roundtrip(d->display), 0);
	ck_assert_msg(d->seat != NULL && d->manager != NULL, "no wl_seat or "
		"zwp_virtual_keyboard_manager_v1");
	d->keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(
		d->manager, d->seat);
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	struct xkb_rule_names names = { .layout = "us" };
	struct xkb_keymap *keymap = xkb_keymap_new_from_names(context, &names,
		XKB_KEYMAP_COMPILE_NO_FLAGS);
	ck_assert(keymap != NULL);
	char *text = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1);
	uint32_t size = (uint32_t)strlen(text) + 1;
	int fd = memfd_create("keymap", MFD_CLOEXEC);
	ck_assert(fd >= 0 && write(fd, text, size) == (ssize_t)size);
	zwp_virtual_keyboard_v1_keymap(d->keyboard,
		WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, size);
	close(fd);
	free(text);
	xkb_keymap_unref(keymap);
	xkb_context_unref(context);
	wl_registry_destroy(registry);
	ck_assert_int_ge(wl_display_roundtrip(d->display), 0);
}

static void driver_finish(struct key_driver *d) {
	zwp_virtual_keyboard_v1_destroy(d->keyboard);
	zwp_virtual_keyboard_manager_v1_destroy(d->manager);
	wl_seat_destroy(d->seat);
	wl_display_roundtrip(d->display);
	wl_display_disconnect(d->display);
}

static uint32_t panel_or_other(int32_t x, int32_t y, const void *data) {
	return PANEL_COLOUR;
}

START_TEST(test_outputs_panel_exclusive_zone_and_keyboard)
{
	struct harness *harness = harness_create("layer_panel");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){ .outputs = 1,
			.output_size = "640x480" });
	struct key_driver d = { 0 };
	driver_start(&d, vitrail->socket);

	// a panel along the top, PANEL_HEIGHT tall, as exclusive zone too,
	// holding the keyboard exclusively
	char height[16];
	snprintf(height, sizeof(height), "%d", PANEL_HEIGHT);
	const char *argv[] = { panel_path(), "--height", height, "--keyboard",
		"exclusive", "--color", "884422", NULL };
	struct harness_proc *panel = harness_spawn_client(harness, vitrail, argv);
	// stretched between the left and right anchors: the output's width
	wait_for_line(panel, "configure 640 200", 10000);
	wait_for_line(panel, "mapped", 10000);
	wait_for_line(panel, "keyboard-enter", 10000);

	// a window (400x300, which centred on the whole output would start
	// at y = 90 - 90 = 0) is placed below the panel, never under it
	const char *demo[] = { demo_path(), "--static", "--app-id", "below",
		NULL };
	harness_spawn_client(harness, vitrail, demo);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_list_windows(vitrail->conn, NULL);
	const struct harness_window *window =
		harness_find_window(vitrail->conn, "below");
	ck_assert_msg(window != NULL, "no window 'below'");
	ck_assert_msg(window->y >= PANEL_HEIGHT, "the window's top is at y = "
		"%d, under the panel (0 to %d)", window->y, PANEL_HEIGHT);
	// the panel's pixels are on screen above it, all of its rows
	char geometry[64];
	snprintf(geometry, sizeof(geometry), "0,0 640x%d", PANEL_HEIGHT);
	wait_for_pixels(harness, vitrail, NULL, geometry, "panel", 640,
		PANEL_HEIGHT, panel_or_other, NULL, 10000);

	// the keys go to the panel (exclusive), not to the new window
	zwp_virtual_keyboard_v1_key(d.keyboard, 1, KEY_A,
		WL_KEYBOARD_KEY_STATE_PRESSED);
	zwp_virtual_keyboard_v1_key(d.keyboard, 2, KEY_A,
		WL_KEYBOARD_KEY_STATE_RELEASED);
	ck_assert_int_ge(wl_display_roundtrip(d.display), 0);
	char key_line[32];
	snprintf(key_line, sizeof(key_line), "key %d 1", KEY_A);
	wait_for_line(panel, key_line, 10000);
	char *log = harness_proc_log(panel);
	ck_assert_msg(strstr(log, "keyboard-leave") == NULL, "the panel lost "
		"the keyboard to the window; its log:\n%s", log);
	free(log);

	// its output goes away: the panel is closed (and exits 0)
	harness_unplug_output(vitrail->conn, "HEADLESS-1");
	wait_for_line(panel, "closed", 10000);
	ck_assert_msg(harness_proc_wait(panel, HARNESS_WAIT_TIMEOUT_MS),
		"the panel did not exit after closed");
	ck_assert_msg(WIFEXITED(panel->status) && WEXITSTATUS(panel->status) == 0,
		"the panel failed after its output went away (status 0x%x)",
		panel->status);

	driver_finish(&d);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- layer_popup ------------------------------------------------------------ */

/* vitrail-layer-panel --popup's popup: at (10, 20) of the panel, 100x60 */
#define POPUP_GEOMETRY "10,20 100x60"
#define POPUP_COLOUR 0xff22aa44u

START_TEST(test_outputs_layer_popup_and_on_demand_keyboard)
{
	struct harness *harness = harness_create("layer_popup");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){ .outputs = 1,
			.output_size = "640x480" });
	struct key_driver d = { 0 };
	driver_start(&d, vitrail->socket);

	// a 40 px panel whose popup reaches below it, over the window
	const char *argv[] = { panel_path(), "--height", "40", "--keyboard",
		"on_demand", "--popup", NULL };
	struct harness_proc *panel = harness_spawn_client(harness, vitrail, argv);
	wait_for_line(panel, "popup-mapped", 10000);
	const char *demo[] = { demo_path(), "--static", "--app-id", "window",
		NULL };
	harness_spawn_client(harness, vitrail, demo);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const uint32_t popup = POPUP_COLOUR;
	wait_for_pixels(harness, vitrail, NULL, POPUP_GEOMETRY, "popup", 100, 60,
		solid, &popup, 10000);

	// on_demand: the keyboard on a click on the panel, and back to the
	// window on a click on it
	harness_list_windows(vitrail->conn, NULL);
	const struct harness_window *window =
		harness_find_window(vitrail->conn, "window");
	ck_assert(window != NULL);
	double wx = window->x + window->width / 2.0;
	double wy = window->y + window->height / 2.0;
	harness_pointer_move(vitrail->conn, 400, 20);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	wait_for_line(panel, "keyboard-enter", 10000);
	zwp_virtual_keyboard_v1_key(d.keyboard, 1, KEY_B,
		WL_KEYBOARD_KEY_STATE_PRESSED);
	zwp_virtual_keyboard_v1_key(d.keyboard, 2, KEY_B,
		WL_KEYBOARD_KEY_STATE_RELEASED);
	ck_assert_int_ge(wl_display_roundtrip(d.display), 0);
	char key_line[32];
	snprintf(key_line, sizeof(key_line), "key %d 1", KEY_B);
	wait_for_line(panel, key_line, 10000);
	harness_pointer_move(vitrail->conn, wx, wy);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	wait_for_line(panel, "keyboard-leave", 10000);
	harness_assert_alive(panel);

	driver_finish(&d);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- layer_fullscreen ---------------------------------------------------------- */

/* The colour of a pixel of output (a whole screenshot). */
static uint32_t pixel_at(struct harness *harness,
		struct harness_vitrail *vitrail, const char *name, int32_t x,
		int32_t y) {
	int32_t w = 0, h = 0;
	uint32_t *pixels = screenshot(harness, vitrail, "HEADLESS-1", NULL, name,
		&w, &h);
	ck_assert(x < w && y < h);
	uint32_t p = pixels[y * w + x];
	free(pixels);
	return p;
}

/* Over a fullscreen window (kiosk mode), an overlay-layer panel shows and
 * a top-layer one does not. */
START_TEST(test_outputs_layers_over_fullscreen)
{
	struct harness *harness = harness_create("layer_fullscreen");
	const char *kiosk[] = { "--mode", "kiosk", NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){ .outputs = 1,
			.output_size = "640x480", .extra_args = kiosk });
	const char *demo[] = { demo_path(), "--static", "--app-id", "full",
		NULL };
	harness_spawn_client(harness, vitrail, demo);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);

	const char *top[] = { panel_path(), "--height", "40", "--zone", "0",
		"--layer", "top", "--color", "123456", NULL };
	struct harness_proc *panel = harness_spawn_client(harness, vitrail, top);
	wait_for_line(panel, "mapped", 10000);
	uint32_t p = pixel_at(harness, vitrail, "top", 320, 20);
	ck_assert_msg(p != 0xff123456u, "a top-layer panel shows over a "
		"fullscreen window (pixel (320, 20) is its colour)");
	harness_proc_stop(panel);

	const char *overlay[] = { panel_path(), "--height", "40", "--zone", "0",
		"--layer", "overlay", "--color", "123456", NULL };
	panel = harness_spawn_client(harness, vitrail, overlay);
	wait_for_line(panel, "mapped", 10000);
	const uint32_t colour = 0xff123456u;
	wait_for_pixels(harness, vitrail, NULL, "0,0 640x40", "overlay", 640, 40,
		solid, &colour, 10000);

	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- layer_errors ------------------------------------------------------------ */

struct bad_client {
	struct wl_display *display;
	struct wl_registry *registry;
	/* what each case made, freed after its error */
	void *made[8];
	int nmade;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct zwlr_layer_shell_v1 *layer_shell;
};

static void bad_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct bad_client *c = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		c->compositor = wl_registry_bind(registry, name,
			&wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		c->wm_base = wl_registry_bind(registry, name,
			&xdg_wm_base_interface, 1);
	} else if (strcmp(interface, zwlr_layer_shell_v1_interface.name) == 0) {
		c->layer_shell = wl_registry_bind(registry, name,
			&zwlr_layer_shell_v1_interface, 4);
	}
}

static void bad_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener bad_registry_listener = {
	.global = bad_global,
	.global_remove = bad_global_remove,
};

static void bad_connect(struct bad_client *c, const char *socket) {
	*c = (struct bad_client){ 0 };
	c->display = wl_display_connect(socket);
	ck_assert_msg(c->display != NULL, "cannot connect to vitrail (gone?)");
	c->registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(c->registry, &bad_registry_listener, c);
	ck_assert_int_ge(wl_display_roundtrip(c->display), 0);
	ck_assert(c->compositor != NULL && c->shm != NULL &&
		c->wm_base != NULL && c->layer_shell != NULL);
}

/* The connection must end with error `code` on an object of `interface`. */
static void bad_expect(struct bad_client *c, const struct wl_interface *iface,
		uint32_t code, const char *what) {
	ck_assert_msg(wl_display_roundtrip(c->display) < 0, "%s: no protocol "
		"error", what);
	const struct wl_interface *got = NULL;
	uint32_t id = 0;
	uint32_t err = wl_display_get_protocol_error(c->display, &got, &id);
	ck_assert_msg(got != NULL && strcmp(got->name, iface->name) == 0 &&
		err == code, "%s: error %u on %s, expected %u on %s", what, err,
		got != NULL ? got->name : "(none)", code, iface->name);
	/* the proxies are freed on the client side only: the connection
	 * is dead */
	for (int i = 0; i < c->nmade; i++) {
		wl_proxy_destroy(c->made[i]);
	}
	wl_proxy_destroy((struct wl_proxy *)c->layer_shell);
	wl_proxy_destroy((struct wl_proxy *)c->wm_base);
	wl_proxy_destroy((struct wl_proxy *)c->shm);
	wl_proxy_destroy((struct wl_proxy *)c->compositor);
	wl_proxy_destroy((struct wl_proxy *)c->registry);
	wl_display_disconnect(c->display);
}

/* Keep a proxy for freeing after the error; returns it. */
static void *made(struct bad_client *c, void *proxy) {
	ck_assert(c->nmade < 8);
	c->made[c->nmade++] = proxy;
	return proxy;
}

static struct wl_buffer *bad_buffer(struct bad_client *c) {
	int fd = memfd_create("bad", MFD_CLOEXEC);
	ck_assert(fd >= 0 && ftruncate(fd, 16 * 16 * 4) == 0);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, 16 * 16 * 4);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, 16, 16,
		64, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

/* Bad layer-shell requests are protocol errors for their client alone,
 * with the protocol's codes; vitrail goes on (and exits cleanly). */
START_TEST(test_outputs_layer_protocol_errors)
{
	struct harness *harness = harness_create("layer_errors");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){ .outputs = 1,
			.output_size = "320x240" });
	struct bad_client c;

	// a layer that does not exist
	bad_connect(&c, vitrail->socket);
	struct wl_surface *surface =
		made(&c, wl_compositor_create_surface(c.compositor));
	made(&c, zwlr_layer_shell_v1_get_layer_surface(c.layer_shell, surface,
		NULL, 9, "bad"));
	bad_expect(&c, &zwlr_layer_shell_v1_interface,
		ZWLR_LAYER_SHELL_V1_ERROR_INVALID_LAYER, "layer 9");

	// a surface that already has a role (xdg_toplevel)
	bad_connect(&c, vitrail->socket);
	surface = made(&c, wl_compositor_create_surface(c.compositor));
	struct xdg_surface *xdg = made(&c, xdg_wm_base_get_xdg_surface(c.wm_base,
		surface));
	made(&c, xdg_surface_get_toplevel(xdg));
	made(&c, zwlr_layer_shell_v1_get_layer_surface(c.layer_shell, surface,
		NULL, ZWLR_LAYER_SHELL_V1_LAYER_TOP, "bad"));
	bad_expect(&c, &zwlr_layer_shell_v1_interface,
		ZWLR_LAYER_SHELL_V1_ERROR_ROLE, "an xdg_toplevel's surface");

	// width 0 without both side anchors
	bad_connect(&c, vitrail->socket);
	surface = made(&c, wl_compositor_create_surface(c.compositor));
	struct zwlr_layer_surface_v1 *ls = made(&c,
		zwlr_layer_shell_v1_get_layer_surface(c.layer_shell, surface, NULL,
		ZWLR_LAYER_SHELL_V1_LAYER_TOP, "bad"));
	zwlr_layer_surface_v1_set_size(ls, 0, 30);
	zwlr_layer_surface_v1_set_anchor(ls, ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP);
	wl_surface_commit(surface);
	bad_expect(&c, &zwlr_layer_surface_v1_interface,
		ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SIZE, "width 0, one anchor");

	// an anchor bit that does not exist
	bad_connect(&c, vitrail->socket);
	surface = made(&c, wl_compositor_create_surface(c.compositor));
	ls = made(&c, zwlr_layer_shell_v1_get_layer_surface(c.layer_shell,
		surface, NULL, ZWLR_LAYER_SHELL_V1_LAYER_TOP, "bad"));
	zwlr_layer_surface_v1_set_anchor(ls, 16);
	bad_expect(&c, &zwlr_layer_surface_v1_interface,
		ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_ANCHOR, "anchor 16");

	// a buffer before the first configure (wlroots 0.15 posts the
	// layer shell's already_constructed code on the layer surface)
	bad_connect(&c, vitrail->socket);
	surface = made(&c, wl_compositor_create_surface(c.compositor));
	ls = made(&c, zwlr_layer_shell_v1_get_layer_surface(c.layer_shell,
		surface, NULL, ZWLR_LAYER_SHELL_V1_LAYER_TOP, "bad"));
	zwlr_layer_surface_v1_set_size(ls, 16, 16);
	wl_surface_attach(surface, made(&c, bad_buffer(&c)), 0, 0);
	wl_surface_commit(surface);
	bad_expect(&c, &zwlr_layer_surface_v1_interface,
		ZWLR_LAYER_SHELL_V1_ERROR_ALREADY_CONSTRUCTED,
		"a buffer before the first configure");

	// an acknowledged serial that was never sent
	bad_connect(&c, vitrail->socket);
	surface = made(&c, wl_compositor_create_surface(c.compositor));
	ls = made(&c, zwlr_layer_shell_v1_get_layer_surface(c.layer_shell,
		surface, NULL, ZWLR_LAYER_SHELL_V1_LAYER_TOP, "bad"));
	zwlr_layer_surface_v1_set_size(ls, 16, 16);
	wl_surface_commit(surface);
	zwlr_layer_surface_v1_ack_configure(ls, 0xdeadbeef);
	bad_expect(&c, &zwlr_layer_surface_v1_interface,
		ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SURFACE_STATE,
		"ack_configure of a serial never sent");

	// still serving: a panel maps
	const char *argv[] = { panel_path(), "--height", "20", NULL };
	struct harness_proc *panel = harness_spawn_client(harness, vitrail, argv);
	wait_for_line(panel, "mapped", 10000);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- randr ---------------------------------------------------------------- */

/* wlr-randr's listing (malloc'd); fails unless it exits 0. */
static char *randr(struct harness *harness, struct harness_vitrail *vitrail,
		const char *const argv[]) {
	harness_require_program("wlr-randr", "wlr-randr");
	struct harness_proc *proc = NULL;
	int status = harness_run_client(harness, vitrail, argv,
		HARNESS_WAIT_TIMEOUT_MS, &proc);
	char *log = harness_proc_log(proc);
	ck_assert_msg(status == 0, "%s %s failed (status %d):\n%s", argv[0],
		argv[1] != NULL ? argv[1] : "", status, log);
	return log;
}

/* The block of wlr-randr's listing about output (up to the next output's
 * name line), malloc'd; fails when it is missing. */
static char *randr_block(const char *listing, const char *output) {
	char *start_key = NULL;
	ck_assert(asprintf(&start_key, "%s \"", output) > 0);
	const char *start = strstr(listing, start_key);
	ck_assert_msg(start != NULL, "wlr-randr does not list %s:\n%s", output,
		listing);
	free(start_key);
	const char *end = start + 1;
	while ((end = strchr(end, '\n')) != NULL && end[1] == ' ') {
		end++;
	}
	size_t len = end != NULL ? (size_t)(end - start) : strlen(start);
	return strndup(start, len);
}

static void assert_block_has(const char *listing, const char *output,
		const char *text) {
	char *block = randr_block(listing, output);
	ck_assert_msg(strstr(block, text) != NULL, "wlr-randr: %s lacks '%s':\n%s",
		output, text, listing);
	free(block);
}

static void assert_block_lacks(const char *listing, const char *output,
		const char *text) {
	char *block = randr_block(listing, output);
	ck_assert_msg(strstr(block, text) == NULL, "wlr-randr: %s has '%s':\n%s",
		output, text, listing);
	free(block);
}

START_TEST(test_outputs_randr_lists_and_changes_outputs)
{
	struct harness *harness = harness_create("randr");
	char *frame_log = NULL;
	ck_assert(asprintf(&frame_log, "%s/frames.csv", harness->out_dir) > 0);
	const char *extra[] = { "--frame-log", frame_log, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){ .outputs = 2,
			.output_size = "640x480", .extra_args = extra });
	harness_require_program("swaybg", "swaybg");
	// each output its colour, so that where it shows can be seen
	const char *bg[] = { "swaybg", "-o", "HEADLESS-1", "-c", "#336699",
		"-o", "HEADLESS-2", "-c", "#aa5500", NULL };
	harness_spawn_client(harness, vitrail, bg);
	// a client animating every frame, on HEADLESS-1 (the first output)
	harness_require_program("weston-simple-shm", "weston");
	const char *shm[] = { "weston-simple-shm", NULL };
	harness_spawn_client(harness, vitrail, shm);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);

	// the listing: both outputs, their size and refresh as started
	const char *list[] = { "wlr-randr", NULL };
	char *out = randr(harness, vitrail, list);
	for (int i = 1; i <= 2; i++) {
		char name[16];
		snprintf(name, sizeof(name), "HEADLESS-%d", i);
		assert_block_has(out, name, "640x480 px, 60.000000 Hz (current)");
		assert_block_has(out, name, "Enabled: yes");
	}
	assert_block_has(out, "HEADLESS-1", "Position: 0,0");
	assert_block_has(out, "HEADLESS-2", "Position: 640,0");
	free(out);

	// a mode vitrail refuses (a side over 8192): failed, nothing changed
	const char *huge[] = { "wlr-randr", "--output", "HEADLESS-1",
		"--custom-mode", "20000x20000", NULL };
	struct harness_proc *refused = NULL;
	int status = harness_run_client(harness, vitrail, huge,
		HARNESS_WAIT_TIMEOUT_MS, &refused);
	ck_assert_msg(status != 0, "wlr-randr --custom-mode 20000x20000 "
		"succeeded");
	out = randr(harness, vitrail, list);
	assert_block_has(out, "HEADLESS-1", "640x480 px, 60.000000 Hz (current)");
	free(out);

	// a custom mode: the screenshot's size, the listing, and frames at
	// the new rate
	const char *mode[] = { "wlr-randr", "--output", "HEADLESS-1",
		"--custom-mode", "800x600@30Hz", NULL };
	free(randr(harness, vitrail, mode));
	uint64_t changed_ns = (uint64_t)harness_now_ms() * 1000000u;
	const uint32_t blue = 0xff336699u, orange = 0xffaa5500u;
	(void)blue;
	out = randr(harness, vitrail, list);
	assert_block_has(out, "HEADLESS-1", "800x600 px, 30.000000 Hz (current)");
	// the outputs stay side by side: HEADLESS-2 follows the new width
	assert_block_has(out, "HEADLESS-2", "Position: 800,0");
	free(out);
	int32_t w = 0, h = 0;
	free(screenshot(harness, vitrail, "HEADLESS-1", NULL, "mode", &w, &h));
	ck_assert_msg(w == 800 && h == 600, "HEADLESS-1's screenshot is %dx%d "
		"after --custom-mode 800x600@30Hz", w, h);
	sleep_ms(1500); // frames at 30 Hz, read from the frame log at the end

	// --off: out of the listing's enabled outputs, its window (none) and
	// its background gone; --on: back
	const char *off[] = { "wlr-randr", "--output", "HEADLESS-2", "--off",
		NULL };
	free(randr(harness, vitrail, off));
	out = randr(harness, vitrail, list);
	assert_block_has(out, "HEADLESS-2", "Enabled: no");
	free(out);
	const char *on[] = { "wlr-randr", "--output", "HEADLESS-2", "--on",
		NULL };
	free(randr(harness, vitrail, on));
	out = randr(harness, vitrail, list);
	assert_block_has(out, "HEADLESS-2", "Enabled: yes");
	assert_block_lacks(out, "HEADLESS-2", "Enabled: no");
	// back where it was, right of HEADLESS-1, not over it
	assert_block_has(out, "HEADLESS-2", "Position: 800,0");
	free(out);

	// --pos: HEADLESS-2 below HEADLESS-1; that part of the layout shows
	// its colour (swaybg paints it again after its surface was closed)
	const char *pos[] = { "wlr-randr", "--output", "HEADLESS-2", "--pos",
		"0,600", NULL };
	free(randr(harness, vitrail, pos));
	out = randr(harness, vitrail, list);
	assert_block_has(out, "HEADLESS-2", "Position: 0,600");
	free(out);
	wait_for_pixels(harness, vitrail, NULL, "0,600 640x480", "moved", 640,
		480, solid, &orange, 10000);

	// scale and transform are kept and shown (transforms are not drawn
	// yet: vitrail(1))
	const char *turn[] = { "wlr-randr", "--output", "HEADLESS-2",
		"--scale", "2", "--transform", "90", NULL };
	free(randr(harness, vitrail, turn));
	out = randr(harness, vitrail, list);
	assert_block_has(out, "HEADLESS-2", "Scale: 2.000000");
	assert_block_has(out, "HEADLESS-2", "Transform: 90");
	assert_block_has(out, "HEADLESS-2", "Position: 0,600");
	assert_block_has(out, "HEADLESS-1", "Scale: 1.000000");
	free(out);

	harness_stop_vitrail(harness, vitrail);

	// frames of HEADLESS-1 kept coming after the change, each shown at a
	// vblank of the 30 Hz timeline
	struct harness_frame *frames = NULL;
	size_t n = harness_read_frame_log(frame_log, &frames);
	const double period = 1e9 / 30.0;
	uint64_t prev = 0;
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		struct harness_frame *f = &frames[i];
		if (strcmp(f->output, "HEADLESS-1") != 0 || f->presented_ns == 0 ||
				f->presented_ns < changed_ns + 200000000u) {
			continue;
		}
		if (prev != 0) {
			double d = (double)(f->presented_ns - prev);
			double k = round(d / period);
			ck_assert_msg(k >= 1 && fabs(d - k * period) < 1e6, "frames of "
				"HEADLESS-1 %.3f ms apart, not a multiple of 33.333 ms",
				d / 1e6);
		}
		prev = f->presented_ns;
		shown++;
	}
	/* frames are drawn on damage only (the wlr-randr calls above): how
	 * many depends on the machine's load, three make a grid */
	ck_assert_msg(shown >= 3, "only %zu frames of HEADLESS-1 shown after "
		"the mode change", shown);
	free(frames);
	free(frame_log);
	harness_destroy(harness);
}
END_TEST

/* ---- randr_kiosk ---------------------------------------------------------- */

/* Kiosk mode survives a mode change: the window is configured to the new
 * size and fills the output again. */
START_TEST(test_outputs_randr_kiosk_follows_mode)
{
	struct harness *harness = harness_create("randr_kiosk");
	const char *kiosk[] = { "--mode", "kiosk", NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){ .outputs = 1,
			.output_size = "640x480", .extra_args = kiosk });
	const char *demo[] = { demo_path(), "--static", "--app-id", "kiosk",
		NULL };
	harness_spawn_client(harness, vitrail, demo);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const char *mode[] = { "wlr-randr", "--output", "HEADLESS-1",
		"--custom-mode", "800x600", NULL };
	free(randr(harness, vitrail, mode));
	int64_t deadline = harness_now_ms() + harness_scaled_ms(10000);
	const struct harness_window *window = NULL;
	for (;;) {
		harness_settle(vitrail->conn);
		harness_list_windows(vitrail->conn, NULL);
		window = harness_find_window(vitrail->conn, "kiosk");
		ck_assert(window != NULL);
		if ((window->width == 800 && window->height == 600) ||
				harness_now_ms() >= deadline) {
			break;
		}
		sleep_ms(100);
	}
	ck_assert_msg(window->x == 0 && window->y == 0 && window->width == 800 &&
		window->height == 600, "the kiosk window is %dx%d at (%d, %d) "
		"after the output became 800x600", window->width, window->height,
		window->x, window->y);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- session --------------------------------------------------------------- */

/* Clients vitrail starts get WAYLAND_DISPLAY (its socket) and
 * XDG_CURRENT_DESKTOP=vitrail:wlroots; -C validates a config as
 * --validate does. */
START_TEST(test_outputs_session_conventions)
{
	struct harness *harness = harness_create("session");
	char *env_out = NULL, *command = NULL;
	ck_assert(asprintf(&env_out, "%s/env.txt", harness->out_dir) > 0);
	ck_assert(asprintf(&command, "printf '%%s %%s\\n' "
		"\"$WAYLAND_DISPLAY\" \"$XDG_CURRENT_DESKTOP\" > %s.tmp && "
		"mv %s.tmp %s", env_out, env_out, env_out) > 0);
	const char *extra[] = { "-s", command, NULL };
	// whatever the test's own environment says
	const char *env[] = { "XDG_CURRENT_DESKTOP=elsewhere", NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){ .outputs = 1,
			.output_size = "320x240", .extra_args = extra, .env = env });
	int64_t deadline = harness_now_ms() + harness_scaled_ms(10000);
	while (access(env_out, R_OK) != 0 && harness_now_ms() < deadline) {
		sleep_ms(50);
	}
	FILE *f = fopen(env_out, "r");
	ck_assert_msg(f != NULL, "the startup command wrote no %s", env_out);
	char line[256] = "";
	ck_assert(fgets(line, sizeof(line), f) != NULL);
	fclose(f);
	char expected[256];
	snprintf(expected, sizeof(expected), "%s vitrail:wlroots\n",
		vitrail->socket);
	ck_assert_msg(strcmp(line, expected) == 0, "a client vitrail started "
		"sees '%s', expected '%s'", line, expected);
	harness_stop_vitrail(harness, vitrail);

	// -C: a good config passes, a bad one fails with its file:line
	const char *bin = getenv("VITRAIL_BIN");
	ck_assert_msg(bin != NULL, "VITRAIL_BIN is not set");
	const char *lines[] = { "mode desktop\n", "mode sideways\n" };
	for (int bad = 0; bad <= 1; bad++) {
		char *path = NULL;
		ck_assert(asprintf(&path, "%s/%s.conf", harness->out_dir,
			bad ? "bad" : "good") > 0);
		f = fopen(path, "w");
		ck_assert(f != NULL);
		fputs(lines[bad], f);
		fclose(f);
		const char *argv[] = { bin, "-C", "-c", path, NULL };
		struct harness_proc *proc = harness_spawn(harness, "vitrail-C",
			argv, NULL, -1);
		ck_assert(harness_proc_wait(proc, HARNESS_WAIT_TIMEOUT_MS));
		char *log = harness_proc_log(proc);
		bool ok = WIFEXITED(proc->status) && WEXITSTATUS(proc->status) == 0;
		ck_assert_msg(ok == !bad, "vitrail -C -c %s exited with 0x%x:\n%s",
			path, proc->status, log);
		if (bad) {
			char *where = NULL;
			ck_assert(asprintf(&where, "%s:1", path) > 0);
			ck_assert_msg(strstr(log, where) != NULL, "vitrail -C does not "
				"name %s:\n%s", where, log);
			free(where);
		}
		free(log);
		free(path);
	}
	free(command);
	free(env_out);
	harness_destroy(harness);
}
END_TEST

/* ---- runner --------------------------------------------------------------- */

static Suite *outputs_suite(void) {
	Suite *suite = suite_create("outputs");
	harness_add_case(suite, "layer_swaybg",
		test_outputs_swaybg_paints_every_output, 60);
	harness_add_case(suite, "layer_panel",
		test_outputs_panel_exclusive_zone_and_keyboard, 60);
	harness_add_case(suite, "layer_popup",
		test_outputs_layer_popup_and_on_demand_keyboard, 60);
	harness_add_case(suite, "layer_fullscreen",
		test_outputs_layers_over_fullscreen, 60);
	harness_add_case(suite, "layer_errors",
		test_outputs_layer_protocol_errors, 60);
	harness_add_case(suite, "randr",
		test_outputs_randr_lists_and_changes_outputs, 60);
	harness_add_case(suite, "randr_kiosk",
		test_outputs_randr_kiosk_follows_mode, 60);
	harness_add_case(suite, "session", test_outputs_session_conventions, 60);
	return suite;
}

int main(int argc, char *argv[]) {
	return harness_run_suite(outputs_suite(), argc, argv);
}
