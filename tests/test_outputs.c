/*
 * Layer shell and output management, with real clients: swaybg paints
 * every output through wlr-layer-shell, a panel's exclusive zone keeps
 * windows below it and its exclusive keyboard interactivity keeps the
 * keys, wlr-randr lists and changes the outputs through
 * wlr-output-management; output transforms and scales, set through
 * wlr-randr and the config file, are drawn (vitrail-quadrants, grim's
 * shots and vitrail's own buffer at hand-computed places).
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
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

#include <vitrail/renderer.h>

#include "harness.h"
#include "keys.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

static const char *panel_path(void) {
	const char *path = getenv("VITRAIL_LAYER_PANEL");
	return path != NULL && path[0] != '\0' ? path : "vitrail-layer-panel";
}

static const char *quadrants_path(void) {
	return harness_env_path("VITRAIL_QUADRANTS", "vitrail-quadrants");
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
		const char *geometry, const char *name, int32_t want_w, int32_t want_h,
		pixel_fn expect, const void *data, int timeout_ms) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(timeout_ms);
	for (;;) {
		int32_t w = 0, h = 0;
		uint32_t *pixels = harness_screenshot(harness, vitrail, output,
				geometry, name, &w, &h);
		long bad = w == want_w && h == want_h ?
				first_mismatch(pixels, w, h, expect, data) :
				0;
		if (bad < 0) {
			free(pixels);
			return;
		}
		if (harness_now_ms() >= deadline) {
			if (w != want_w || h != want_h) {
				ck_abort_msg("%s: screenshot of %s is %dx%d, expected "
							 "%dx%d",
						name, geometry != NULL ? geometry : output, w, h,
						want_w, want_h);
			}
			int32_t x = (int32_t)(bad % w), y = (int32_t)(bad / w);
			ck_abort_msg("%s: pixel (%d, %d) of %s is 0x%08x, expected "
						 "0x%08x (screenshot %s/%s.png)",
					name, x, y, geometry != NULL ? geometry : output,
					pixels[bad], expect(x, y, data), harness->out_dir, name);
		}
		free(pixels);
		harness_sleep_ms(200);
	}
}

/* How many times log has line (a whole line, needle with its newline). */
static int count_lines(const char *log, const char *needle) {
	int count = 0;
	size_t len = strlen(needle);
	for (const char *at = log; (at = strstr(at, needle)) != NULL; at += len) {
		if (at == log || at[-1] == '\n') {
			count++;
		}
	}
	return count;
}

/* Wait until the process's log has line (a whole line) `times` times. */
static void wait_for_line_times(struct harness_proc *proc, const char *line,
		int times, int timeout_ms) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(timeout_ms);
	char *needle = NULL;
	ck_assert(asprintf(&needle, "%s\n", line) > 0);
	for (;;) {
		char *log = harness_proc_log(proc);
		if (count_lines(log, needle) >= times) {
			free(log);
			free(needle);
			return;
		}
		if (harness_now_ms() >= deadline || !harness_proc_alive(proc)) {
			ck_abort_msg("%s never printed '%s' %d times; its log:\n%s",
					proc->name, line, times, log);
		}
		free(log);
		harness_sleep_ms(50);
	}
}

/* Wait until the process's log has line (a whole line). */
static void wait_for_line(struct harness_proc *proc, const char *line,
		int timeout_ms) {
	wait_for_line_times(proc, line, 1, timeout_ms);
}

/* ---- layer_swaybg ---------------------------------------------------------
 */

#define CHECKER 8 // the tile: CHECKER x CHECKER, left half A, right half B
#define TILE_A 0xff884422u
#define TILE_B 0xff2288aau

static uint32_t tiled(int32_t x, int32_t y, const void *data) {
	return x % CHECKER < CHECKER / 2 ? TILE_A : TILE_B;
}

START_TEST(test_outputs_swaybg_paints_every_output) {
	harness_require_program("swaybg", "swaybg");
	struct harness *harness = harness_create("layer_swaybg");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 2,
					.output_size = "320x240" });

	// a colour: every pixel of both outputs is it
	const char *argv[] = { "swaybg", "-c", "#336699", NULL };
	struct harness_proc *bg = harness_spawn_client(harness, vitrail, argv);
	const uint32_t colour = 0xff336699u;
	wait_for_pixels(harness, vitrail, "HEADLESS-1", NULL, "colour-1", 320, 240,
			solid, &colour, 10000);
	wait_for_pixels(harness, vitrail, "HEADLESS-2", NULL, "colour-2", 320, 240,
			solid, &colour, 10000);
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
	wait_for_pixels(harness, vitrail, "HEADLESS-1", NULL, "image-1", 320, 240,
			tiled, NULL, 10000);
	wait_for_pixels(harness, vitrail, "HEADLESS-2", NULL, "image-2", 320, 240,
			tiled, NULL, 10000);
	harness_assert_alive(bg);
	free(png);

	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- layer_panel ----------------------------------------------------------
 */

#define PANEL_HEIGHT 200
#define PANEL_COLOUR 0xff884422u

static uint32_t panel_or_other(int32_t x, int32_t y, const void *data) {
	return PANEL_COLOUR;
}

START_TEST(test_outputs_panel_exclusive_zone_and_keyboard) {
	struct harness *harness = harness_create("layer_panel");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480" });
	struct test_keys d;
	test_keys_start(&d, vitrail->socket, "us");

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
	const char *demo[] = { harness_demo_path(), "--static", "--app-id", "below",
		NULL };
	harness_spawn_client(harness, vitrail, demo);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_list_windows(vitrail->conn, NULL);
	const struct harness_window *window =
			harness_find_window(vitrail->conn, "below");
	ck_assert_msg(window != NULL, "no window 'below'");
	ck_assert_msg(window->y >= PANEL_HEIGHT,
			"the window's top is at y = "
			"%d, under the panel (0 to %d)",
			window->y, PANEL_HEIGHT);
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
	ck_assert_msg(strstr(log, "keyboard-leave") == NULL,
			"the panel lost "
			"the keyboard to the window; its log:\n%s",
			log);
	free(log);

	// its output goes away: the panel is closed (and exits 0)
	harness_unplug_output(vitrail->conn, "HEADLESS-1");
	wait_for_line(panel, "closed", 10000);
	ck_assert_msg(harness_proc_wait(panel, HARNESS_WAIT_TIMEOUT_MS),
			"the panel did not exit after closed");
	ck_assert_msg(WIFEXITED(panel->status) && WEXITSTATUS(panel->status) == 0,
			"the panel failed after its output went away (status 0x%x)",
			panel->status);

	test_keys_finish(&d);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/*
 * panel_huge_zone: a panel whose exclusive zone (INT32_MAX, then 1000)
 * is larger than the 640x480 output takes at most half of it (vitrail(1),
 * LAYER SHELL): a window mapped meanwhile is on the output, below the
 * zone; when the panel goes, the window is still on the output, inside
 * it. Before, the window went to y >= 480, on no output, and stayed
 * there after the panel was gone.
 */
START_TEST(test_outputs_panel_huge_zone) {
	struct harness *harness = harness_create("panel_huge_zone");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480" });
	const char *zones[] = { "2147483647", "1000" };
	for (size_t i = 0; i < 2; i++) {
		const char *argv[] = { panel_path(), "--height", "20", "--zone",
			zones[i], NULL };
		struct harness_proc *panel =
				harness_spawn_client(harness, vitrail, argv);
		wait_for_line(panel, "mapped", 10000);
		char app_id[32];
		snprintf(app_id, sizeof(app_id), "under-%zu", i);
		const char *demo[] = { harness_demo_path(), "--static", "--app-id",
			app_id, NULL };
		harness_spawn_client(harness, vitrail, demo);
		harness_wait_for_windows(vitrail->conn, i + 1,
				HARNESS_WINDOWS_TIMEOUT_MS);
		harness_settle(vitrail->conn);
		harness_list_windows(vitrail->conn, NULL);
		const struct harness_window *w =
				harness_find_window(vitrail->conn, app_id);
		ck_assert_msg(w != NULL, "no window %s", app_id);
		ck_assert_msg(w->y >= 240 && w->y < 480 && w->output != NULL &&
						strcmp(w->output, "HEADLESS-1") == 0,
				"zone %s: the window is "
				"at %d,%d on %s, not on HEADLESS-1 below half of it",
				zones[i], w->x, w->y,
				w->output != NULL ? w->output : "no output");
		harness_proc_signal(panel, SIGTERM);
		ck_assert(harness_proc_wait(panel, HARNESS_WAIT_TIMEOUT_MS));
		harness_settle(vitrail->conn);
		harness_list_windows(vitrail->conn, NULL);
		w = harness_find_window(vitrail->conn, app_id);
		ck_assert_msg(w != NULL && w->y >= 0 && w->y < 480 &&
						w->output != NULL &&
						strcmp(w->output, "HEADLESS-1") == 0,
				"zone %s, panel gone: the window is at %d on %s", zones[i],
				w != NULL ? w->y : -1,
				w != NULL && w->output != NULL ? w->output : "no output");
	}
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- layer_popup ------------------------------------------------------------
 */

/* vitrail-layer-panel --popup's popup: at (10, 20) of the panel, 100x60 */
#define POPUP_GEOMETRY "10,20 100x60"
#define POPUP_COLOUR 0xff22aa44u

START_TEST(test_outputs_layer_popup_and_on_demand_keyboard) {
	struct harness *harness = harness_create("layer_popup");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480" });
	struct test_keys d;
	test_keys_start(&d, vitrail->socket, "us");

	// a 40 px panel whose popup reaches below it, over the window
	const char *argv[] = { panel_path(), "--height", "40", "--keyboard",
		"on_demand", "--popup", NULL };
	struct harness_proc *panel = harness_spawn_client(harness, vitrail, argv);
	wait_for_line(panel, "popup-mapped", 10000);
	const char *demo[] = { harness_demo_path(), "--static", "--app-id",
		"window", NULL };
	harness_spawn_client(harness, vitrail, demo);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const uint32_t popup = POPUP_COLOUR;
	wait_for_pixels(harness, vitrail, NULL, POPUP_GEOMETRY, "popup", 100, 60,
			solid, &popup, 10000);

	// on_demand in the top layer: the keyboard as the panel maps, then
	// to the window as it maps
	wait_for_line(panel, "keyboard-enter", 10000);
	wait_for_line(panel, "keyboard-leave", 10000);

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
	wait_for_line_times(panel, "keyboard-enter", 2, 10000);
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
	wait_for_line_times(panel, "keyboard-leave", 2, 10000);
	harness_assert_alive(panel);

	test_keys_finish(&d);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- layer_fullscreen
 * ---------------------------------------------------------- */

/* The colour of a pixel of output (a whole screenshot). */
static uint32_t pixel_at(struct harness *harness,
		struct harness_vitrail *vitrail, const char *name, int32_t x,
		int32_t y) {
	int32_t w = 0, h = 0;
	uint32_t *pixels = harness_screenshot(harness, vitrail, "HEADLESS-1", NULL,
			name, &w, &h);
	ck_assert(x < w && y < h);
	uint32_t p = pixels[y * w + x];
	free(pixels);
	return p;
}

/* Over a fullscreen window (kiosk mode), an overlay-layer panel shows and
 * a top-layer one does not. */
START_TEST(test_outputs_layers_over_fullscreen) {
	struct harness *harness = harness_create("layer_fullscreen");
	const char *kiosk[] = { "--mode", "kiosk", "--allow", "screencopy", NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480",
					.extra_args = kiosk });
	const char *demo[] = { harness_demo_path(), "--static", "--app-id", "full",
		NULL };
	harness_spawn_client(harness, vitrail, demo);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);

	const char *top[] = { panel_path(), "--height", "40", "--zone", "0",
		"--layer", "top", "--color", "123456", NULL };
	struct harness_proc *panel = harness_spawn_client(harness, vitrail, top);
	wait_for_line(panel, "mapped", 10000);
	uint32_t p = pixel_at(harness, vitrail, "top", 320, 20);
	ck_assert_msg(p != 0xff123456u,
			"a top-layer panel shows over a "
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

/* ---- layer_errors
 * ------------------------------------------------------------ */

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

static void bad_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct bad_client *c = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		c->compositor =
				wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		c->wm_base =
				wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
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
	ck_assert(c->compositor != NULL && c->shm != NULL && c->wm_base != NULL &&
			c->layer_shell != NULL);
}

/* The connection must end with error `code` on an object of `interface`. */
static void bad_expect(struct bad_client *c, const struct wl_interface *iface,
		uint32_t code, const char *what) {
	ck_assert_msg(wl_display_roundtrip(c->display) < 0,
			"%s: no protocol "
			"error",
			what);
	const struct wl_interface *got = NULL;
	uint32_t id = 0;
	uint32_t err = wl_display_get_protocol_error(c->display, &got, &id);
	ck_assert_msg(got != NULL && strcmp(got->name, iface->name) == 0 &&
					err == code,
			"%s: error %u on %s, expected %u on %s", what, err,
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
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, 16, 16, 64,
			WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

/* Bad layer-shell requests are protocol errors for their client alone,
 * with the protocol's codes; vitrail goes on (and exits cleanly). */
START_TEST(test_outputs_layer_protocol_errors) {
	struct harness *harness = harness_create("layer_errors");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "320x240" });
	struct bad_client c;

	// a layer that does not exist
	bad_connect(&c, vitrail->socket);
	struct wl_surface *surface =
			made(&c, wl_compositor_create_surface(c.compositor));
	made(&c,
			zwlr_layer_shell_v1_get_layer_surface(c.layer_shell, surface, NULL,
					9, "bad"));
	bad_expect(&c, &zwlr_layer_shell_v1_interface,
			ZWLR_LAYER_SHELL_V1_ERROR_INVALID_LAYER, "layer 9");

	// a surface that already has a role (xdg_toplevel)
	bad_connect(&c, vitrail->socket);
	surface = made(&c, wl_compositor_create_surface(c.compositor));
	struct xdg_surface *xdg =
			made(&c, xdg_wm_base_get_xdg_surface(c.wm_base, surface));
	made(&c, xdg_surface_get_toplevel(xdg));
	made(&c,
			zwlr_layer_shell_v1_get_layer_surface(c.layer_shell, surface, NULL,
					ZWLR_LAYER_SHELL_V1_LAYER_TOP, "bad"));
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
	ls = made(&c,
			zwlr_layer_shell_v1_get_layer_surface(c.layer_shell, surface, NULL,
					ZWLR_LAYER_SHELL_V1_LAYER_TOP, "bad"));
	zwlr_layer_surface_v1_set_anchor(ls, 16);
	bad_expect(&c, &zwlr_layer_surface_v1_interface,
			ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_ANCHOR, "anchor 16");

	// a buffer before the first configure (wlroots 0.15 posts the
	// layer shell's already_constructed code on the layer surface)
	bad_connect(&c, vitrail->socket);
	surface = made(&c, wl_compositor_create_surface(c.compositor));
	ls = made(&c,
			zwlr_layer_shell_v1_get_layer_surface(c.layer_shell, surface, NULL,
					ZWLR_LAYER_SHELL_V1_LAYER_TOP, "bad"));
	zwlr_layer_surface_v1_set_size(ls, 16, 16);
	wl_surface_attach(surface, made(&c, bad_buffer(&c)), 0, 0);
	wl_surface_commit(surface);
	bad_expect(&c, &zwlr_layer_surface_v1_interface,
			ZWLR_LAYER_SHELL_V1_ERROR_ALREADY_CONSTRUCTED,
			"a buffer before the first configure");

	// an acknowledged serial that was never sent
	bad_connect(&c, vitrail->socket);
	surface = made(&c, wl_compositor_create_surface(c.compositor));
	ls = made(&c,
			zwlr_layer_shell_v1_get_layer_surface(c.layer_shell, surface, NULL,
					ZWLR_LAYER_SHELL_V1_LAYER_TOP, "bad"));
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

/* ---- randr ----------------------------------------------------------------
 */

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

/* The wl_output globals wayland-info lists. */
static int count_wl_outputs(struct harness *harness,
		struct harness_vitrail *vitrail) {
	harness_require_program("wayland-info", "wayland-utils");
	const char *argv[] = { "wayland-info", NULL };
	struct harness_proc *proc = NULL;
	ck_assert_int_eq(harness_run_client(harness, vitrail, argv,
							 HARNESS_WAIT_TIMEOUT_MS, &proc),
			0);
	char *log = harness_proc_log(proc);
	int n = 0;
	for (const char *p = log; (p = strstr(p, "'wl_output'")) != NULL; p++) {
		n++;
	}
	free(log);
	return n;
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

START_TEST(test_outputs_randr_lists_and_changes_outputs) {
	struct harness *harness = harness_create("randr");
	char *frame_log = NULL;
	ck_assert(asprintf(&frame_log, "%s/frames.csv", harness->out_dir) > 0);
	const char *extra[] = { "--frame-log", frame_log, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 2,
					.output_size = "640x480",
					.extra_args = extra });
	harness_require_program("swaybg", "swaybg");
	// each output its colour, so that where it shows can be seen
	const char *bg[] = { "swaybg", "-o", "HEADLESS-1", "-c", "#336699", "-o",
		"HEADLESS-2", "-c", "#aa5500", NULL };
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
	ck_assert_msg(status != 0,
			"wlr-randr --custom-mode 20000x20000 "
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
	free(harness_screenshot(harness, vitrail, "HEADLESS-1", NULL, "mode", &w,
			&h));
	ck_assert_msg(w == 800 && h == 600,
			"HEADLESS-1's screenshot is %dx%d "
			"after --custom-mode 800x600@30Hz",
			w, h);
	harness_sleep_ms(
			1500); // frames at 30 Hz, read from the frame log at the end

	// --off: out of the listing's enabled outputs, its window (none) and
	// its background gone; --on: back
	const char *off[] = { "wlr-randr", "--output", "HEADLESS-2", "--off",
		NULL };
	free(randr(harness, vitrail, off));
	out = randr(harness, vitrail, list);
	assert_block_has(out, "HEADLESS-2", "Enabled: no");
	free(out);
	// clients see one wl_output (wayland-info), not the disabled one's
	ck_assert_int_eq(count_wl_outputs(harness, vitrail), 1);
	const char *on[] = { "wlr-randr", "--output", "HEADLESS-2", "--on", NULL };
	free(randr(harness, vitrail, on));
	out = randr(harness, vitrail, list);
	assert_block_has(out, "HEADLESS-2", "Enabled: yes");
	assert_block_lacks(out, "HEADLESS-2", "Enabled: no");
	free(out);
	ck_assert_int_eq(count_wl_outputs(harness, vitrail), 2);
	out = randr(harness, vitrail, list);
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
	wait_for_pixels(harness, vitrail, NULL, "0,600 640x480", "moved", 640, 480,
			solid, &orange, 10000);

	// scale and transform are kept and shown (drawn: outputs-transform,
	// outputs-scale)
	const char *turn[] = { "wlr-randr", "--output", "HEADLESS-2", "--scale",
		"2", "--transform", "90", NULL };
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
			ck_assert_msg(k >= 1 && fabs(d - k * period) < 1e6,
					"frames of "
					"HEADLESS-1 %.3f ms apart, not a multiple of 33.333 ms",
					d / 1e6);
		}
		prev = f->presented_ns;
		shown++;
	}
	/* frames are drawn on damage only (the wlr-randr calls above): how
	 * many depends on the machine's load, three make a grid */
	ck_assert_msg(shown >= 3,
			"only %zu frames of HEADLESS-1 shown after "
			"the mode change",
			shown);
	free(frames);
	free(frame_log);
	harness_destroy(harness);
}
END_TEST

/* ---- transform, scale, config ---------------------------------------------
 */

/* vitrail-quadrants' colours: top-left, top-right, bottom-left,
 * bottom-right of its window */
static const uint32_t quad_colors[4] = {
	0xffff0000u,
	0xff00ff00u,
	0xff0000ffu,
	0xffffff00u,
};

static bool near_color(uint32_t a, uint32_t b, int tolerance) {
	for (int shift = 0; shift < 32; shift += 8) {
		int ca = (int)((a >> shift) & 0xff), cb = (int)((b >> shift) & 0xff);
		if (abs(ca - cb) > tolerance) {
			return false;
		}
	}
	return true;
}

/* The centre of quadrant q of the window, in layout coordinates. */
static void quad_center(const struct harness_window *window, int q, double *x,
		double *y) {
	*x = window->x + (q % 2 == 0 ? 0.25 : 0.75) * window->width;
	*y = window->y + (q / 2 == 0 ? 0.25 : 0.75) * window->height;
}

/* The "quads" window, once inside HEADLESS-1's logical box (0,0 lw x lh:
 * its pixel size over its scale, turned by 90 and 270), and grim's
 * screenshot of HEADLESS-1 shows its four quadrants upright where the
 * window is: grim turns and scales the output's buffer back into the
 * layout by the transform and scale wl_output announces, so this holds
 * only when vitrail drew the buffer turned and scaled as announced.
 * Retried until the screen caught up (20 s). Returns the window (for its
 * geometry: its strings belong to the window list, valid until the next
 * list). */
static struct harness_window check_quadrants(struct harness *harness,
		struct harness_vitrail *vitrail, const char *name, int lw, int lh) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(20000);
	for (;;) {
		harness_settle(vitrail->conn);
		const struct harness_window *windows;
		harness_list_windows(vitrail->conn, &windows);
		const struct harness_window *found =
				harness_find_window(vitrail->conn, "quads");
		ck_assert_msg(found != NULL, "%s: no quads window", name);
		struct harness_window window = *found;
		bool inside = window.x >= 0 && window.y >= 0 &&
				window.x + window.width <= lw && window.y + window.height <= lh;
		int32_t gw = 0, gh = 0;
		uint32_t *pixels = harness_screenshot(harness, vitrail, "HEADLESS-1",
				NULL, name, &gw, &gh);
		/* grim: the logical box times the output's scale (its pixel
		 * size over the logical size: a fractional scale's logical box
		 * is rounded to whole pixels, so within a pixel) */
		double rx = (double)gw / lw, ry = (double)gh / lh;
		bool size_ok = gw >= lw && fabs(rx - ry) * lw < 2.0 &&
				fabs(rx - ry) * lh < 2.0;
		char why[256] = "";
		if (!inside) {
			snprintf(why, sizeof(why),
					"window %d,%d %dx%d outside the "
					"output's logical box %dx%d",
					window.x, window.y, window.width, window.height, lw, lh);
		} else if (!size_ok) {
			snprintf(why, sizeof(why),
					"screenshot %dx%d is not the "
					"logical box %dx%d scaled",
					gw, gh, lw, lh);
		} else {
			for (int q = 0; q < 4 && why[0] == '\0'; q++) {
				double x, y;
				quad_center(&window, q, &x, &y);
				int px = (int)(x * rx), py = (int)(y * ry);
				uint32_t got = pixels[py * gw + px];
				if (!near_color(got, quad_colors[q], 2)) {
					snprintf(why, sizeof(why),
							"quadrant %d's centre "
							"(layout %.1f,%.1f, screenshot %d,%d) is 0x%08x, "
							"expected 0x%08x",
							q, x, y, px, py, got, quad_colors[q]);
				}
			}
		}
		free(pixels);
		if (why[0] == '\0') {
			return window;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"%s: %s (screenshot "
				"%s/%s.png)",
				name, why, harness->out_dir, name);
		harness_sleep_ms(200);
	}
}

static void randr_set(struct harness *harness, struct harness_vitrail *vitrail,
		const char *key, const char *value) {
	const char *argv[] = { "wlr-randr", "--output", "HEADLESS-1", key, value,
		NULL };
	free(randr(harness, vitrail, argv));
}

/* vitrail's own frame of HEADLESS-1 as it exits (--screenshot-dir): the
 * output's buffer, untransformed. */
static uint32_t *exit_screenshot(struct harness *harness, int32_t *w,
		int32_t *h) {
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/exit/HEADLESS-1.png", harness->out_dir) > 0);
	uint32_t *pixels = vr_png_read(path, w, h);
	ck_assert_msg(pixels != NULL, "cannot read %s", path);
	free(path);
	return pixels;
}

static char *exit_dir(struct harness *harness) {
	char *dir = NULL;
	ck_assert(asprintf(&dir, "%s/exit", harness->out_dir) > 0);
	ck_assert(mkdir(dir, 0755) == 0);
	return dir;
}

/* The buffer pixel (u, v) holds quadrant q's colour. */
static void assert_raw(const uint32_t *pixels, int32_t w, int32_t h, int u,
		int v, int q, const char *what) {
	ck_assert_msg(u >= 0 && v >= 0 && u < w && v < h,
			"%s: buffer pixel "
			"%d,%d outside %dx%d",
			what, u, v, w, h);
	uint32_t got = pixels[v * w + u];
	ck_assert_msg(near_color(got, quad_colors[q], 2),
			"%s: buffer pixel "
			"%d,%d is 0x%08x, expected quadrant %d's 0x%08x",
			what, u, v, got, q, quad_colors[q]);
}

/* ---- touch_transform ------------------------------------------------------
 */

/*
 * A touch screen on a turned output: its points (0..1 across and down the
 * panel, which turns with the display) land where the output shows that
 * spot of its buffer. Two 640x480 outputs; HEADLESS-2, turned 90, is a
 * 480x640 box at x 640 of the layout, touch_output maps the touch screen
 * to it, and a 200x160 kiosk window sits at its origin. Worked out from
 * the buffer, not from vitrail's code: under 90 the buffer's (bx, by)
 * shows the box's (480 - by, bx) (see transform); under 270, (by,
 * 640 - bx). Raw points in 1/16ths, which wl_fixed carries exactly:
 * (0.125, 0.75) is buffer (80, 360), so window (120, 80) under 90;
 * (0.0625, 0.875) is (40, 420), window (60, 40); under 270 (0.875, 0.25)
 * is (560, 120), window (120, 80), and (0.9375, 0.125) is (600, 60),
 * window (60, 40). Mapped over the whole layout, or over the output
 * unturned, each would miss the window.
 */
static void check_touches(struct harness *harness, const char *transform,
		const double points[2][2]) {
	char *text = NULL;
	ck_assert(
			asprintf(&text,
					"mode kiosk\nkiosk_output HEADLESS-2\n"
					"output HEADLESS-2 transform %s\ntouch_output HEADLESS-2\n",
					transform) > 0);
	char *conf = harness_write_file(harness, "touch.conf", text);
	const char *extra[] = { "--config", conf, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 2,
					.output_size = "640x480",
					.extra_args = extra });
	const char *quads[] = { quadrants_path(), "--app-id", "quads", "--size",
		"200x160", NULL };
	struct harness_proc *client = harness_spawn_client(harness, vitrail, quads);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	wait_for_line(client, "mapped", 30000);
	const struct harness_window *window =
			harness_find_window(vitrail->conn, "quads");
	ck_assert_msg(window != NULL && window->x == 640 && window->y == 0,
			"the window is not at HEADLESS-2's origin");
	harness_touch_raw(vitrail->conn, 0, points[0][0], points[0][1], true);
	harness_touch(vitrail->conn, HARNESS_TOUCH_UP, 0, 0, 0);
	wait_for_line(client, "touch down 0 120.0 80.0", 30000);
	harness_touch_raw(vitrail->conn, 1, points[1][0], points[1][1], true);
	harness_touch(vitrail->conn, HARNESS_TOUCH_UP, 1, 0, 0);
	wait_for_line(client, "touch down 1 60.0 40.0", 30000);
	harness_stop_vitrail(harness, vitrail);
	free(conf);
	free(text);
}

START_TEST(test_outputs_touch_follows_transform) {
	struct harness *harness = harness_create("touch_transform");
	const double turned_90[2][2] = { { 0.125, 0.75 }, { 0.0625, 0.875 } };
	check_touches(harness, "90", turned_90);
	const double turned_270[2][2] = { { 0.875, 0.25 }, { 0.9375, 0.125 } };
	check_touches(harness, "270", turned_270);
	harness_destroy(harness);
}
END_TEST

/* wlr-randr turns and flips HEADLESS-1 through all eight transforms; each
 * time the window stays inside the turned box and grim shows it upright.
 * The last one (90) is checked in the buffer itself against where the
 * Wayland protocol says content goes: transform 90 turns it 90 degrees
 * counter-clockwise, so the layout point (x, y) of a 480x640 box lands at
 * (y, 480 - x) of the 640x480 buffer. */
START_TEST(test_outputs_transform_draws_turned) {
	struct harness *harness = harness_create("transform");
	char *dir = exit_dir(harness);
	const char *extra[] = { "--screenshot-dir", dir, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480",
					.extra_args = extra });
	harness_require_program("grim", "grim");
	/* wider than the turned box is: 90 must move it inside */
	const char *quads[] = { quadrants_path(), "--app-id", "quads", "--size",
		"400x200", NULL };
	harness_spawn_client(harness, vitrail, quads);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	check_quadrants(harness, vitrail, "normal", 640, 480);

	static const char *transforms[] = { "90", "180", "270", "flipped",
		"flipped-90", "flipped-180", "flipped-270", "normal", "90" };
	const char *list[] = { "wlr-randr", NULL };
	struct harness_window window = { 0 };
	for (size_t i = 0; i < sizeof(transforms) / sizeof(transforms[0]); i++) {
		const char *t = transforms[i];
		randr_set(harness, vitrail, "--transform", t);
		char *out = randr(harness, vitrail, list);
		char *line = NULL;
		ck_assert(asprintf(&line, "Transform: %s\n", t) > 0);
		assert_block_has(out, "HEADLESS-1", line);
		free(line);
		free(out);
		/* 90, 270 and their flips turn the box */
		bool turned = strstr(t, "90") != NULL || strstr(t, "270") != NULL;
		char *name = NULL;
		ck_assert(asprintf(&name, "transform-%zu-%s", i, t) > 0);
		window = check_quadrants(harness, vitrail, name, turned ? 480 : 640,
				turned ? 640 : 480);
		free(name);
	}
	/* the whole output, turned 90: grim's shot against vitrail's
	 * pixman reference image of the tree drawn upright */
	harness_check_output(vitrail->conn, "HEADLESS-1", 2);

	/* the pointer under 90: it reaches the bottom of the turned box
	 * (layout y 600, past the unturned box's 480), and its cursor is
	 * drawn there, nowhere else: grim's shot changes only near where
	 * the cursor left and where it went */
	const double from_x = 5, from_y = 5, to_x = 240, to_y = 600;
	harness_pointer_move(vitrail->conn, from_x, from_y);
	int32_t aw = 0, ah = 0, bw = 0, bh = 0;
	uint32_t *before = harness_screenshot(harness, vitrail, "HEADLESS-1", NULL,
			"pointer-before", &aw, &ah);
	harness_pointer_move(vitrail->conn, to_x, to_y);
	uint32_t *after = harness_screenshot(harness, vitrail, "HEADLESS-1", NULL,
			"pointer-after", &bw, &bh);
	ck_assert_msg(aw == bw && ah == bh && aw == 480 && ah == 640,
			"pointer shots %dx%d and %dx%d, not 480x640", aw, ah, bw, bh);
	int near_to = 0;
	for (int32_t y = 0; y < ah; y++) {
		for (int32_t x = 0; x < aw; x++) {
			if (before[y * aw + x] == after[y * aw + x]) {
				continue;
			}
			/* a cursor image is at most 32 pixels from its hotspot */
			bool by_to = fabs(x - to_x) <= 32 && fabs(y - to_y) <= 32;
			bool by_from = fabs(x - from_x) <= 32 && fabs(y - from_y) <= 32;
			ck_assert_msg(by_to || by_from,
					"pixel %d,%d changed when the "
					"pointer moved from %.0f,%.0f to %.0f,%.0f (shots in %s)",
					x, y, from_x, from_y, to_x, to_y, harness->out_dir);
			near_to += by_to;
		}
	}
	ck_assert_msg(near_to > 0,
			"no cursor drawn near %.0f,%.0f (shots in "
			"%s)",
			to_x, to_y, harness->out_dir);
	free(before);
	free(after);
	harness_stop_vitrail(harness, vitrail);

	int32_t w = 0, h = 0;
	uint32_t *raw = exit_screenshot(harness, &w, &h);
	ck_assert_msg(w == 640 && h == 480, "buffer %dx%d", w, h);
	for (int q = 0; q < 4; q++) {
		double x, y;
		quad_center(&window, q, &x, &y);
		assert_raw(raw, w, h, (int)y, (int)(480 - x), q, "transform 90");
	}
	free(raw);
	free(dir);
	harness_destroy(harness);
}
END_TEST

/* Scale 2 with a buffer_scale 2 client: its buffer lands 1:1 (each
 * quadrant exactly its 100 buffer pixels wide in grim's scale-2 shot);
 * fractional 1.5, alone and turned by 90. The last (1.5, 90) is checked in
 * the buffer: layout (x, y) of the 320x426 box lands at (1.5 y,
 * 480 - 1.5 x) of the 640x480 buffer. */
START_TEST(test_outputs_scale_draws_scaled) {
	struct harness *harness = harness_create("scale");
	char *dir = exit_dir(harness);
	const char *extra[] = { "--screenshot-dir", dir, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480",
					.extra_args = extra });
	harness_require_program("grim", "grim");
	const char *quads[] = { quadrants_path(), "--app-id", "quads", "--size",
		"100x80", "--scale", "2", NULL };
	harness_spawn_client(harness, vitrail, quads);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	check_quadrants(harness, vitrail, "scale-1", 640, 480);

	const char *list[] = { "wlr-randr", NULL };
	randr_set(harness, vitrail, "--scale", "2");
	char *out = randr(harness, vitrail, list);
	assert_block_has(out, "HEADLESS-1", "Scale: 2.000000");
	free(out);
	struct harness_window window =
			check_quadrants(harness, vitrail, "scale-2", 320, 240);
	ck_assert_int_eq(window.width, 100);
	ck_assert_int_eq(window.height, 80);
	harness_check_output(vitrail->conn, "HEADLESS-1", 2);
	/* 1:1: along the row through the top quadrants' centres, exactly
	 * 100 red then 100 green pixels, the edges sharp */
	int32_t gw = 0, gh = 0;
	uint32_t *pixels = harness_screenshot(harness, vitrail, "HEADLESS-1", NULL,
			"scale-2-row", &gw, &gh);
	ck_assert_int_eq(gw, 640);
	ck_assert_int_eq(gh, 480);
	int row = (window.y + 20) * 2;
	int left = window.x * 2;
	for (int i = -1; i <= 200; i++) {
		uint32_t got = pixels[row * gw + left + i];
		if (i >= 0 && i < 100) {
			ck_assert_msg(got == quad_colors[0],
					"pixel %d of the row is "
					"0x%08x, not red",
					i, got);
		} else if (i >= 100 && i < 200) {
			ck_assert_msg(got == quad_colors[1],
					"pixel %d of the row is "
					"0x%08x, not green",
					i, got);
		} else {
			ck_assert_msg(got != quad_colors[0] && got != quad_colors[1],
					"pixel %d of the row is 0x%08x, past the window", i, got);
		}
	}
	free(pixels);

	randr_set(harness, vitrail, "--scale", "1.5");
	out = randr(harness, vitrail, list);
	assert_block_has(out, "HEADLESS-1", "Scale: 1.500000");
	free(out);
	/* 640 / 1.5 and 480 / 1.5, whole pixels (wlroots truncates) */
	check_quadrants(harness, vitrail, "scale-1.5", 426, 320);
	randr_set(harness, vitrail, "--transform", "90");
	window = check_quadrants(harness, vitrail, "scale-1.5-90", 320, 426);
	harness_stop_vitrail(harness, vitrail);

	int32_t w = 0, h = 0;
	uint32_t *raw = exit_screenshot(harness, &w, &h);
	ck_assert_msg(w == 640 && h == 480, "buffer %dx%d", w, h);
	for (int q = 0; q < 4; q++) {
		double x, y;
		quad_center(&window, q, &x, &y);
		assert_raw(raw, w, h, (int)(1.5 * y), (int)(480 - 1.5 * x), q,
				"scale 1.5, transform 90");
	}
	free(raw);
	free(dir);
	harness_destroy(harness);
}
END_TEST

/* Wait until wlr-randr's block of output has text. */
static void wait_for_randr(struct harness *harness,
		struct harness_vitrail *vitrail, const char *output,
		const char *const texts[]) {
	const char *list[] = { "wlr-randr", NULL };
	int64_t deadline = harness_now_ms() + harness_scaled_ms(10000);
	for (;;) {
		char *out = randr(harness, vitrail, list);
		char *block = randr_block(out, output);
		bool all = true;
		for (size_t i = 0; texts[i] != NULL; i++) {
			all = all && strstr(block, texts[i]) != NULL;
		}
		free(block);
		if (all || harness_now_ms() >= deadline) {
			for (size_t i = 0; texts[i] != NULL; i++) {
				assert_block_has(out, output, texts[i]);
			}
			free(out);
			return;
		}
		free(out);
		harness_sleep_ms(100);
	}
}

/* The config's output lines at start, and again on reload (SIGHUP): a
 * bad file changes nothing and says which line is wrong. */
START_TEST(test_outputs_config_sets_outputs) {
	struct harness *harness = harness_create("config");
	char *conf = harness_write_file(harness, "vitrail.conf",
			"output HEADLESS-1 scale 2 transform 90\n"
			"output HEADLESS-2 position 0,600 transform 180\n");
	const char *extra[] = { "--config", conf, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 2,
					.output_size = "640x480",
					.extra_args = extra });
	harness_require_program("grim", "grim");
	const char *start1[] = { "Scale: 2.000000", "Transform: 90\n",
		"Position: 0,0", NULL };
	wait_for_randr(harness, vitrail, "HEADLESS-1", start1);
	const char *start2[] = { "Scale: 1.000000", "Transform: 180\n",
		"Position: 0,600", NULL };
	wait_for_randr(harness, vitrail, "HEADLESS-2", start2);
	const char *quads[] = { quadrants_path(), "--app-id", "quads", "--size",
		"200x160", NULL };
	harness_spawn_client(harness, vitrail, quads);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	check_quadrants(harness, vitrail, "config-start", 240, 320);

	free(harness_write_file(harness, "vitrail.conf",
			"output HEADLESS-1 transform flipped\n"
			"output HEADLESS-2 disable\n"));
	harness_proc_signal(vitrail->proc, SIGHUP);
	const char *reload1[] = { "Scale: 1.000000", "Transform: flipped\n", NULL };
	wait_for_randr(harness, vitrail, "HEADLESS-1", reload1);
	const char *reload2[] = { "Enabled: no", NULL };
	wait_for_randr(harness, vitrail, "HEADLESS-2", reload2);
	check_quadrants(harness, vitrail, "config-reload", 640, 480);

	free(harness_write_file(harness, "vitrail.conf",
			"output HEADLESS-1 transform 45\n"));
	harness_proc_signal(vitrail->proc, SIGHUP);
	char *expected = NULL;
	ck_assert(
			asprintf(&expected, "%s:1: output: expected transform", conf) > 0);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(10000);
	for (;;) {
		char *log = harness_proc_log(vitrail->proc);
		bool found = strstr(log, expected) != NULL;
		free(log);
		if (found) {
			break;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"vitrail never said "
				"'%s'",
				expected);
		harness_sleep_ms(100);
	}
	free(expected);
	check_quadrants(harness, vitrail, "config-bad", 640, 480);
	const char *kept[] = { "Transform: flipped\n", NULL };
	wait_for_randr(harness, vitrail, "HEADLESS-1", kept);
	harness_stop_vitrail(harness, vitrail);
	free(conf);
	harness_destroy(harness);
}
END_TEST

/* ---- randr_kiosk ----------------------------------------------------------
 */

/* Kiosk mode survives a mode change: the window is configured to the new
 * size and fills the output again. */
START_TEST(test_outputs_randr_kiosk_follows_mode) {
	struct harness *harness = harness_create("randr_kiosk");
	// wlr-randr is an output manager: allowed in kiosk mode
	char *conf = harness_write_file(harness, "kiosk.conf",
			"mode kiosk\nallow output-management\n");
	const char *kiosk[] = { "--config", conf, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480",
					.extra_args = kiosk });
	const char *demo[] = { harness_demo_path(), "--static", "--app-id", "kiosk",
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
		harness_sleep_ms(100);
	}
	ck_assert_msg(window->x == 0 && window->y == 0 && window->width == 800 &&
					window->height == 600,
			"the kiosk window is %dx%d at (%d, %d) "
			"after the output became 800x600",
			window->width, window->height, window->x, window->y);
	harness_stop_vitrail(harness, vitrail);
	free(conf);
	harness_destroy(harness);
}
END_TEST

/* ---- session ---------------------------------------------------------------
 */

/* Clients vitrail starts get WAYLAND_DISPLAY (its socket) and
 * XDG_CURRENT_DESKTOP=vitrail:wlroots; -C validates a config as
 * --validate does. */
START_TEST(test_outputs_session_conventions) {
	struct harness *harness = harness_create("session");
	char *env_out = NULL, *command = NULL;
	ck_assert(asprintf(&env_out, "%s/env.txt", harness->out_dir) > 0);
	ck_assert(
			asprintf(&command,
					"printf '%%s %%s\\n' "
					"\"$WAYLAND_DISPLAY\" \"$XDG_CURRENT_DESKTOP\" > %s.tmp && "
					"mv %s.tmp %s",
					env_out, env_out, env_out) > 0);
	const char *extra[] = { "-s", command, NULL };
	// whatever the test's own environment says
	const char *env[] = { "XDG_CURRENT_DESKTOP=elsewhere", NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "320x240",
					.extra_args = extra,
					.env = env });
	int64_t deadline = harness_now_ms() + harness_scaled_ms(10000);
	while (access(env_out, R_OK) != 0 && harness_now_ms() < deadline) {
		harness_sleep_ms(50);
	}
	FILE *f = fopen(env_out, "r");
	ck_assert_msg(f != NULL, "the startup command wrote no %s", env_out);
	char line[256] = "";
	ck_assert(fgets(line, sizeof(line), f) != NULL);
	fclose(f);
	char expected[256];
	snprintf(expected, sizeof(expected), "%s vitrail:wlroots\n",
			vitrail->socket);
	ck_assert_msg(strcmp(line, expected) == 0,
			"a client vitrail started "
			"sees '%s', expected '%s'",
			line, expected);
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
		struct harness_proc *proc =
				harness_spawn(harness, "vitrail-C", argv, NULL, -1);
		ck_assert(harness_proc_wait(proc, HARNESS_WAIT_TIMEOUT_MS));
		char *log = harness_proc_log(proc);
		bool ok = WIFEXITED(proc->status) && WEXITSTATUS(proc->status) == 0;
		ck_assert_msg(ok == !bad, "vitrail -C -c %s exited with 0x%x:\n%s",
				path, proc->status, log);
		if (bad) {
			char *where = NULL;
			ck_assert(asprintf(&where, "%s:1", path) > 0);
			ck_assert_msg(strstr(log, where) != NULL,
					"vitrail -C does not "
					"name %s:\n%s",
					where, log);
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

/* ---- runner ---------------------------------------------------------------
 */

static Suite *outputs_suite(void) {
	Suite *suite = suite_create("outputs");
	harness_add_case(suite, "layer_swaybg",
			test_outputs_swaybg_paints_every_output, 60);
	harness_add_case(suite, "layer_panel",
			test_outputs_panel_exclusive_zone_and_keyboard, 60);
	harness_add_case(suite, "panel_huge_zone", test_outputs_panel_huge_zone,
			60);
	harness_add_case(suite, "layer_popup",
			test_outputs_layer_popup_and_on_demand_keyboard, 60);
	harness_add_case(suite, "layer_fullscreen",
			test_outputs_layers_over_fullscreen, 60);
	harness_add_case(suite, "layer_errors", test_outputs_layer_protocol_errors,
			60);
	harness_add_case(suite, "randr",
			test_outputs_randr_lists_and_changes_outputs, 60);
	harness_add_case(suite, "randr_kiosk",
			test_outputs_randr_kiosk_follows_mode, 60);
	harness_add_case(suite, "session", test_outputs_session_conventions, 60);
	harness_add_case(suite, "transform", test_outputs_transform_draws_turned,
			100);
	harness_add_case(suite, "scale", test_outputs_scale_draws_scaled, 100);
	harness_add_case(suite, "config", test_outputs_config_sets_outputs, 100);
	harness_add_case(suite, "touch_transform",
			test_outputs_touch_follows_transform, 100);
	return suite;
}

int main(int argc, char *argv[]) {
	return harness_run_suite(outputs_suite(), argc, argv);
}
