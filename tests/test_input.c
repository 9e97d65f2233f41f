/*
 * Virtual input end to end (input.c): clients drive vitrail's seat through
 * wlr-virtual-pointer and virtual-keyboard, other clients receive the
 * events, and the frame log stamps the frames that answer them.
 *
 * virtual_pointer: two outputs in kiosk mode, a static vitrail-demo on
 * HEADLESS-1 and vitrail-draw-probe on HEADLESS-2 (each fills its output,
 * so the probe's surface-local positions are HEADLESS-2's pixels);
 * vitrail-pointer-driver moves a virtual pointer created for that output
 * (create_virtual_pointer_with_output) along a line. The oracle is the
 * driver's own CSV of the positions it sent, not vitrail's code: every
 * event reaches the probe as exactly one wl_pointer event (the probe
 * counts as many as the driver sent), and every frame the probe drew
 * shows exactly the position of the driver event of its number. Mapped
 * to the layout instead of the output, the positions would land 640 px
 * to the left, on the demo. From the frame log: HEADLESS-2's frames
 * answer the input (input_ns nonzero, no earlier than the driver's first
 * send, no later than the frame's render start); HEADLESS-1's, where no
 * surface got input, answer none.
 *
 * virtual_keyboard: a client creates a virtual keyboard with a keymap of
 * its own (layout "de", which vitrail's default configuration does not
 * use); a window of another client, focused when it maps, receives its
 * key press and release (KEY_A) and that keymap (in it, KEY_Y types z).
 *
 * Environment as test_integration.c, plus VITRAIL_DRAW_PROBE,
 * VITRAIL_POINTER_DRIVER and VITRAIL_DEMO.
 */
#define _GNU_SOURCE // asprintf, memfd_create
#include <check.h>
#include <errno.h>
#include <linux/input-event-codes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon-keysyms.h>
#include <xkbcommon/xkbcommon.h>

#include "harness.h"
#include "keys.h"
#include "keyboard-shortcuts-inhibit-unstable-v1-client-protocol.h"
#include "scene-client.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

/* ---- a CSV of numbers, whole -----------------------------------------------
 */

/* rows x columns of numbers (csv.h's reader), columns by name */
struct table {
	struct csv csv; // its header: the column names
	const char *path;
	double *values; // row-major, csv.ncolumns per row
	size_t nrows;
};

static void table_read(const char *path, struct table *t) {
	*t = (struct table){ .path = path };
	ck_assert_msg(csv_open(&t->csv, path), "no %s, or it is empty", path);
	int ncolumns = t->csv.ncolumns;
	size_t cap = 0;
	while (csv_next(&t->csv)) {
		ck_assert_msg(t->csv.nfields == ncolumns,
				"%s: row %zu has %d "
				"fields, expected %d",
				path, t->nrows + 1, t->csv.nfields, ncolumns);
		if (t->nrows == cap) {
			cap = cap > 0 ? cap * 2 : 256;
			t->values =
					realloc(t->values, cap * (size_t)ncolumns * sizeof(double));
			ck_assert(t->values != NULL);
		}
		double *row = &t->values[t->nrows++ * (size_t)ncolumns];
		for (int col = 0; col < ncolumns; col++) {
			double v = csv_number(&t->csv, col);
			row[col] = isnan(v) ? 0 : v; // an empty field reads 0
		}
	}
}

static int table_column(const struct table *t, const char *name) {
	return harness_csv_column(&t->csv, t->path, name);
}

static double table_get(const struct table *t, size_t row, int column) {
	return t->values[row * (size_t)t->csv.ncolumns + (size_t)column];
}

static void table_free(struct table *t) {
	csv_close(&t->csv);
	free(t->values);
}

/* ---- virtual_pointer ------------------------------------------------------
 */

#define VP_OUTPUT_SIZE "640x480"
/* the line: y = 40 + 400 / 2 = 240, x from 20; 1500 px/s at 120 Hz is a
 * step of 13 px (rounded) */
#define VP_RECT "20,40,600,400"
#define VP_LINE_Y 240
#define VP_RATE "120"
#define VP_DURATION "1.5"
#define VP_EVENTS 180

/* The probe's stdout line "draw-probe: ... events=N". */
static long probe_events(struct harness_proc *probe) {
	char *log = harness_proc_log(probe);
	const char *line = strstr(log, "draw-probe: ");
	const char *events = line != NULL ? strstr(line, " events=") : NULL;
	ck_assert_msg(events != NULL, "the probe printed no summary:\n%s", log);
	long n = strtol(events + strlen(" events="), NULL, 10);
	free(log);
	return n;
}

START_TEST(test_input_virtual_pointer_reaches_probe) {
	struct harness *harness = harness_create("virtual_pointer");
	char *frame_log = NULL, *probe_csv = NULL, *driver_csv = NULL;
	ck_assert(asprintf(&frame_log, "%s/frames.csv", harness->out_dir) > 0);
	ck_assert(asprintf(&probe_csv, "%s/probe.csv", harness->out_dir) > 0);
	ck_assert(asprintf(&driver_csv, "%s/driver.csv", harness->out_dir) > 0);
	// the pointer driver is a virtual pointer: allowed in kiosk mode
	char *conf = harness_write_file(harness, "kiosk.conf",
			"mode kiosk\nallow virtual-input\n");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 2,
					.output_size = VP_OUTPUT_SIZE,
					.extra_args = (const char *const[]){ "--config", conf,
							"--frame-log", frame_log, NULL },
			});
	struct harness_conn *conn = vitrail->conn;

	// one window per output, in turn: the demo first, on HEADLESS-1
	const char *demo_argv[] = { harness_env_path("VITRAIL_DEMO",
										"vitrail-demo"),
		"--static", "--app-id", "demo", NULL };
	harness_spawn_client(harness, vitrail, demo_argv);
	harness_wait_for_windows(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	char timeout[32];
	snprintf(timeout, sizeof(timeout), "%lld",
			(long long)harness_scaled_ms(HARNESS_WINDOWS_TIMEOUT_MS) / 1000);
	const char *probe_argv[] = {
		harness_env_path("VITRAIL_DRAW_PROBE", "vitrail-draw-probe"),
		"--app-id", "draw-probe", "--csv", probe_csv, "--timeout", timeout, NULL
	};
	struct harness_proc *probe =
			harness_spawn_client(harness, vitrail, probe_argv);
	harness_wait_for_windows(conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_settle(conn); // the probe's first frame is on screen
	const struct harness_window *window =
			harness_find_window(conn, "draw-probe");
	ck_assert_msg(window != NULL && strcmp(window->output, "HEADLESS-2") == 0 &&
					window->x == 640 && window->y == 0 &&
					window->width == 640 && window->height == 480,
			"expected the probe filling HEADLESS-2 "
			"(640,0 640x480); the windows:\n%s",
			harness_describe_windows(conn));

	const char *driver_argv[] = {
		harness_env_path("VITRAIL_POINTER_DRIVER", "vitrail-pointer-driver"),
		"--output", "HEADLESS-2", "--rect", VP_RECT, "--speed", "1500",
		"--rate", VP_RATE, "--duration", VP_DURATION, "--csv", driver_csv, NULL
	};
	struct harness_proc *driver = NULL;
	int status = harness_run_client(harness, vitrail, driver_argv,
			harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS), &driver);
	ck_assert_msg(status == 0, "the driver failed (status %d), see %s", status,
			driver->log_path);
	// the driver's last round trip: vitrail sent every event; the probe
	// draws the last ones within a few frames
	harness_sleep_ms((int)harness_scaled_ms(500));
	harness_assert_alive(probe);
	harness_proc_signal(probe, SIGTERM);
	ck_assert(harness_proc_wait(probe, HARNESS_STOP_TIMEOUT_MS));
	ck_assert_msg(WIFEXITED(probe->status) && WEXITSTATUS(probe->status) == 0,
			"the probe failed (wait status 0x%x), see %s", probe->status,
			probe->log_path);
	harness_stop_vitrail(harness, vitrail);

	struct table sent, drawn;
	table_read(driver_csv, &sent);
	table_read(probe_csv, &drawn);
	int sx = table_column(&sent, "x"), sy = table_column(&sent, "y");
	int ssend = table_column(&sent, "send_ns");
	ck_assert_uint_eq(sent.nrows, VP_EVENTS);
	for (size_t k = 0; k < sent.nrows; k++) {
		ck_assert_int_eq((int)table_get(&sent, k, sy), VP_LINE_Y);
		if (k > 0) {
			ck_assert_msg(table_get(&sent, k, sx) !=
							table_get(&sent, k - 1, sx),
					"the driver sent one position twice in a row (event %zu)",
					k);
		}
	}
	// every event sent reached the probe as one pointer event
	ck_assert_int_eq(probe_events(probe), (long)sent.nrows);

	int dx = table_column(&drawn, "x"), dy = table_column(&drawn, "y");
	int devent = table_column(&drawn, "event");
	int drecv = table_column(&drawn, "newest_recv_ns");
	int dpresented = table_column(&drawn, "presented_ns");
	size_t with_input = 0, presented = 0;
	double last_event = 0;
	for (size_t i = 0; i < drawn.nrows; i++) {
		double event = table_get(&drawn, i, devent);
		ck_assert_msg(event >= last_event,
				"probe frame %zu draws event %.0f "
				"after event %.0f",
				i, event, last_event);
		last_event = event;
		if (event == 0) {
			continue;
		}
		ck_assert_msg(event <= (double)sent.nrows,
				"probe frame %zu draws "
				"event %.0f of %zu",
				i, event, sent.nrows);
		size_t k = (size_t)event - 1;
		ck_assert_msg(table_get(&drawn, i, dx) == table_get(&sent, k, sx) &&
						table_get(&drawn, i, dy) == table_get(&sent, k, sy),
				"probe frame %zu "
				"draws event %.0f at (%g, %g); the driver sent it at (%g, %g)",
				i, event, table_get(&drawn, i, dx), table_get(&drawn, i, dy),
				table_get(&sent, k, sx), table_get(&sent, k, sy));
		ck_assert(table_get(&drawn, i, drecv) >= table_get(&sent, k, ssend));
		with_input++;
		presented += table_get(&drawn, i, dpresented) > 0;
	}
	ck_assert_msg(last_event == (double)sent.nrows,
			"the probe's last frame "
			"draws event %.0f, not the last one sent (%zu)",
			last_event, sent.nrows);
	ck_assert_msg(with_input >= 10 && presented >= 10,
			"%zu probe frames "
			"drew pointer events, %zu of them presented: expected 10 or more "
			"in %s s",
			with_input, presented, VP_DURATION);

	// the frame log: the probe's output answers the input, the demo's none
	struct harness_frame *frames = NULL;
	size_t n = harness_read_frame_log(frame_log, &frames);
	double first_send = table_get(&sent, 0, ssend);
	size_t answering = 0;
	for (size_t i = 0; i < n; i++) {
		const struct harness_frame *f = &frames[i];
		if (strcmp(f->output, "HEADLESS-1") == 0) {
			ck_assert_msg(f->input_ns == 0,
					"HEADLESS-1 frame %llu answers "
					"input at %llu, but no surface there got any",
					(unsigned long long)f->seq,
					(unsigned long long)f->input_ns);
			continue;
		}
		if (f->input_ns == 0) {
			continue;
		}
		answering++;
		ck_assert_msg((double)f->input_ns >= first_send,
				"HEADLESS-2 frame "
				"%llu: input_ns %llu before the driver's first send %.0f",
				(unsigned long long)f->seq, (unsigned long long)f->input_ns,
				first_send);
		ck_assert_msg(f->input_ns <= f->render_start_ns,
				"HEADLESS-2 frame "
				"%llu: input_ns %llu after its render start %llu",
				(unsigned long long)f->seq, (unsigned long long)f->input_ns,
				(unsigned long long)f->render_start_ns);
	}
	ck_assert_msg(answering >= with_input / 2,
			"%zu HEADLESS-2 frames answer "
			"input, for %zu probe frames that drew some",
			answering, with_input);

	free(frames);
	table_free(&sent);
	table_free(&drawn);
	free(frame_log);
	free(probe_csv);
	free(driver_csv);
	free(conf);
	harness_destroy(harness);
}
END_TEST

/* ---- virtual_keyboard -----------------------------------------------------
 */

struct key_window {
	struct sc_app app;
	struct wl_keyboard *keyboard;
	bool entered;
	char *keymap; // the last keymap received
	uint32_t keys[64]; // key << 1 | pressed, in order
	int nkeys;
};

static void keyboard_keymap(void *data, struct wl_keyboard *keyboard,
		uint32_t format, int32_t fd, uint32_t size) {
	struct key_window *w = data;
	char *map = size > 0 ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) :
						   MAP_FAILED;
	if (map != MAP_FAILED) {
		free(w->keymap);
		w->keymap = strndup(map, size);
		munmap(map, size);
	}
	close(fd);
}

static void keyboard_enter(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, struct wl_surface *surface, struct wl_array *keys) {
	struct key_window *w = data;
	w->entered = surface == w->app.surface;
}

static void keyboard_leave(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, struct wl_surface *surface) {
	struct key_window *w = data;
	w->entered = false;
}

static void keyboard_key(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, uint32_t time, uint32_t key, uint32_t state) {
	struct key_window *w = data;
	if (w->nkeys < 64) {
		w->keys[w->nkeys++] =
				key << 1 | (state == WL_KEYBOARD_KEY_STATE_PRESSED);
	}
}

static void keyboard_modifiers(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, uint32_t depressed, uint32_t latched, uint32_t locked,
		uint32_t group) {
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = keyboard_keymap,
	.enter = keyboard_enter,
	.leave = keyboard_leave,
	.key = keyboard_key,
	.modifiers = keyboard_modifiers,
};

/* The first keysym of evdev key code key at level 1 of keymap (text). */
static xkb_keysym_t first_keysym(const char *keymap_text, uint32_t key) {
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	ck_assert(context != NULL);
	struct xkb_keymap *keymap = xkb_keymap_new_from_string(context, keymap_text,
			XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS);
	ck_assert_msg(keymap != NULL, "the keymap received does not compile");
	const xkb_keysym_t *syms = NULL;
	int n = xkb_keymap_key_get_syms_by_level(keymap, key + 8, 0, 0, &syms);
	xkb_keysym_t sym = n > 0 ? syms[0] : XKB_KEY_NoSymbol;
	xkb_keymap_unref(keymap);
	xkb_context_unref(context);
	return sym;
}

START_TEST(test_input_virtual_keyboard_reaches_window) {
	struct harness *harness = harness_create("virtual_keyboard");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);

	// the keyboard first: the seat offers a keyboard only once one exists
	struct test_keys d;
	test_keys_start(&d, vitrail->socket, "de");

	// a window, focused as it maps
	struct key_window w = { 0 };
	ck_assert(sc_app_init(&w.app, "virtual-keyboard"));
	ck_assert_int_ge(wl_display_roundtrip(w.app.display), 0);
	w.keyboard = wl_seat_get_keyboard(w.app.seat);
	wl_keyboard_add_listener(w.keyboard, &keyboard_listener, &w);
	ck_assert(sc_app_create_window(&w.app, "keys", "keys", 200, 100,
			0xff808080u));
	wl_surface_attach(w.app.surface, w.app.buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(w.app.surface, 0, 0, 200, 100);
	wl_surface_commit(w.app.surface);
	ck_assert_int_ge(wl_display_roundtrip(w.app.display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	ck_assert_int_ge(wl_display_roundtrip(w.app.display), 0);
	ck_assert_msg(w.entered, "the window did not get the keyboard focus");

	zwp_virtual_keyboard_v1_key(d.keyboard, 1, KEY_A,
			WL_KEYBOARD_KEY_STATE_PRESSED);
	zwp_virtual_keyboard_v1_key(d.keyboard, 2, KEY_A,
			WL_KEYBOARD_KEY_STATE_RELEASED);
	ck_assert_int_ge(wl_display_roundtrip(d.display), 0);
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	while (w.nkeys < 2 && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_roundtrip(w.app.display), 0);
	}
	ck_assert_msg(w.nkeys == 2 && w.keys[0] == (KEY_A << 1 | 1) &&
					w.keys[1] == (KEY_A << 1),
			"the window got %d key events (first "
			"0x%x), expected KEY_A pressed then released",
			w.nkeys, w.nkeys > 0 ? w.keys[0] : 0);
	// the virtual keyboard's own keymap came with its keys: in layout
	// de, the key labelled Y on a US keyboard types z
	ck_assert_msg(w.keymap != NULL, "the window got no keymap");
	ck_assert_msg(first_keysym(w.keymap, KEY_Y) == XKB_KEY_z,
			"the "
			"window's keymap is not the virtual keyboard's (layout de): KEY_Y "
			"gives keysym 0x%x, not z",
			first_keysym(w.keymap, KEY_Y));

	wl_keyboard_destroy(w.keyboard);
	free(w.keymap);
	sc_app_finish(&w.app);
	test_keys_finish(&d);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* A nested session, as a user tries a multi-monitor set-up: a vitrail
 * inside another (*parent), with three 640x480 outputs WL-1, WL-2, WL-3
 * side by side, started with args. */
static struct harness_vitrail *start_nested(struct harness *harness,
		const char *const *args, struct harness_vitrail **parent) {
	*parent = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "2400x1000" });
	return harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .backend = "wayland",
					.wayland_parent = *parent,
					.outputs = 3,
					.output_size = "640x480",
					.extra_args = args });
}

/* ---- bindings ----------------------------------------------------------- */

/*
 * Key bindings of the config (vitrail(5) bind), typed on a virtual
 * keyboard (layout us) into three windows of this process, in a nested
 * session with three outputs (start_nested): focus next
 * and prev cycle the focus (the windows' wl_keyboard enter events say
 * which), maximize and fullscreen ask the focused window (its configure
 * says so, at the output's size), exec runs a command, close asks the
 * window to close; a bound key never reaches a window, an unbound one
 * does. A reload (the reload binding) changes a binding while the
 * windows stay; a config with a bad line is refused and the old bindings
 * still work; exit ends vitrail.
 */
struct bind_test {
	struct test_keys d;
	struct key_window w[3];
};

static void bind_dispatch(struct bind_test *t) {
	ck_assert_int_ge(wl_display_roundtrip(t->d.display), 0);
	for (int i = 0; i < 3; i++) {
		if (t->w[i].app.display != NULL) {
			ck_assert_int_ge(wl_display_roundtrip(t->w[i].app.display), 0);
		}
	}
}

/* Modifier keys mods[0..n) held while key is pressed and released; sent
 * only (vitrail may be gone after). */
static void bind_send(struct bind_test *t, const uint32_t *mods, int n,
		uint32_t key) {
	test_keys_send(&t->d, mods, n, key);
}

/* The same, and every window has had vitrail's answer. */
static void bind_type(struct bind_test *t, const uint32_t *mods, int n,
		uint32_t key) {
	bind_send(t, mods, n, key);
	bind_dispatch(t);
}

/* The driver's proxies, then its connection (after vitrail exited, too). */
static void bind_driver_finish(struct bind_test *t) {
	test_keys_finish(&t->d);
}

static bool window_got_key(const struct key_window *w, uint32_t key) {
	for (int i = 0; i < w->nkeys; i++) {
		if (w->keys[i] >> 1 == key) {
			return true;
		}
	}
	return false;
}

/* Which window has the keyboard focus (-1: none), each checked. */
static int focused_window(struct bind_test *t) {
	int focused = -1;
	for (int i = 0; i < 3; i++) {
		if (t->w[i].entered) {
			ck_assert_msg(focused < 0,
					"windows %d and %d both have the "
					"keyboard focus",
					focused, i);
			focused = i;
		}
	}
	return focused;
}

static void write_config(const char *path, const char *text) {
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void wait_for_file(const char *path) {
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	while (access(path, F_OK) != 0 && harness_now_ms() < deadline) {
		usleep(10000);
	}
	ck_assert_msg(access(path, F_OK) == 0, "%s did not appear", path);
}

/* Connect the virtual keyboard (layout us) of t to vitrail. */
static void bind_driver_init(struct bind_test *t,
		struct harness_vitrail *vitrail) {
	test_keys_start(&t->d, vitrail->socket, "us");
}

/* Wait until vitrail lists a window of app_id (shown); returns it. */
static const struct harness_window *wait_for_app(struct harness_conn *conn,
		const char *app_id) {
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WINDOWS_TIMEOUT_MS);
	for (;;) {
		const struct harness_window *all;
		harness_list_windows(conn, &all);
		const struct harness_window *w = harness_find_window(conn, app_id);
		if (w != NULL) {
			return w;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"window %s did not "
				"show",
				app_id);
		usleep(10000);
	}
}

/* Window i of t: a w x h toplevel of app_id name filled with argb, with a
 * keyboard listener, mapped and shown. */
static void bind_window_init(struct bind_test *t, int i,
		struct harness_vitrail *vitrail, const char *name, uint32_t argb) {
	struct key_window *w = &t->w[i];
	ck_assert(sc_app_init(&w->app, name));
	ck_assert_int_ge(wl_display_roundtrip(w->app.display), 0);
	w->keyboard = wl_seat_get_keyboard(w->app.seat);
	wl_keyboard_add_listener(w->keyboard, &keyboard_listener, w);
	ck_assert(sc_app_create_window(&w->app, name, name, 200, 100, argb));
	wl_surface_attach(w->app.surface, w->app.buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(w->app.surface, 0, 0, 200, 100);
	wl_surface_commit(w->app.surface);
	ck_assert_int_ge(wl_display_roundtrip(w->app.display), 0);
	wait_for_app(vitrail->conn, name);
}

/* The windows of t (those made), then the driver. */
static void bind_test_finish(struct bind_test *t) {
	for (int i = 0; i < 3; i++) {
		if (t->w[i].app.display == NULL) {
			continue;
		}
		wl_keyboard_destroy(t->w[i].keyboard);
		free(t->w[i].keymap);
		sc_app_finish(&t->w[i].app);
	}
	bind_driver_finish(t);
}

START_TEST(test_input_bindings) {
	struct harness *harness = harness_create("bindings");
	char *config = NULL, *spawned = NULL, *text = NULL;
	ck_assert(asprintf(&config, "%s/bindings.conf", harness->out_dir) > 0);
	ck_assert(asprintf(&spawned, "%s/spawned", harness->out_dir) > 0);
	ck_assert(asprintf(&text,
					  "# vitrail(5) bind, as a user writes it\n"
					  "bind Alt+Return exec touch '%s'\n"
					  "bind Alt+q close\n"
					  "bind Alt+Tab focus next\n"
					  "bind Alt+Shift+Tab focus prev\n"
					  "bind Alt+m maximize\n"
					  "bind Alt+f fullscreen\n"
					  "bind Alt+r reload\n"
					  "bind Alt+Left move left 30\n"
					  "bind Alt+Down move down\n"
					  "bind Alt+equal resize grow width 40\n"
					  "bind Alt+minus resize shrink height 10\n"
					  "bind Alt+Escape exit\n",
					  spawned) > 0);
	write_config(config, text);
	const char *args[] = { "--config", config, NULL };
	struct harness_vitrail *parent;
	struct harness_vitrail *vitrail = start_nested(harness, args, &parent);
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);

	struct bind_test t = { 0 };
	bind_driver_init(&t, vitrail);
	const char *names[3] = { "one", "two", "three" };
	for (int i = 0; i < 3; i++) {
		bind_window_init(&t, i, vitrail, names[i], 0xff808080u);
		harness_wait_for_windows(vitrail->conn, (size_t)i + 1,
				HARNESS_WINDOWS_TIMEOUT_MS);
	}
	bind_dispatch(&t);
	/* the last one mapped has the focus; the stack, front first: three,
	 * two, one */
	ck_assert_int_eq(focused_window(&t), 2);

	const uint32_t alt[] = { KEY_LEFTALT };
	const uint32_t alt_shift[] = { KEY_LEFTALT, KEY_LEFTSHIFT };
	/* focus next: the window longest unfocused comes to the front */
	bind_type(&t, alt, 1, KEY_TAB);
	ck_assert_int_eq(focused_window(&t), 0);
	bind_type(&t, alt, 1, KEY_TAB);
	ck_assert_int_eq(focused_window(&t), 1);
	/* focus prev: the focused one goes to the back (two, one, three ->
	 * one, three, two) */
	bind_type(&t, alt_shift, 2, KEY_TAB);
	ck_assert_int_eq(focused_window(&t), 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_msg(!window_got_key(&t.w[i], KEY_TAB),
				"window %s got "
				"the bound Tab",
				names[i]);
	}
	/* an unbound key (and Alt itself) reaches the focused window */
	bind_type(&t, NULL, 0, KEY_A);
	ck_assert(window_got_key(&t.w[0], KEY_A));
	ck_assert(window_got_key(&t.w[0], KEY_LEFTALT));

	/* move by the pixels bound (20 when none), resize by the right and
	 * bottom edges: the focused window, one (200x100) */
	const struct harness_window *w = wait_for_app(vitrail->conn, "one");
	int32_t x0 = w->x, y0 = w->y;
	bind_type(&t, alt, 1, KEY_LEFT);
	bind_type(&t, alt, 1, KEY_DOWN);
	w = wait_for_app(vitrail->conn, "one");
	ck_assert_msg(w->x == x0 - 30 && w->y == y0 + 20,
			"move left 30, move "
			"down: the window is at %d,%d, not %d,%d",
			w->x, w->y, x0 - 30, y0 + 20);
	bind_type(&t, alt, 1, KEY_EQUAL);
	ck_assert_msg(t.w[0].app.configure_width == 240 &&
					t.w[0].app.configure_height == 100,
			"resize grow width 40 asked "
			"for %dx%d, not 240x100",
			t.w[0].app.configure_width, t.w[0].app.configure_height);
	bind_type(&t, alt, 1, KEY_MINUS);
	ck_assert_msg(t.w[0].app.configure_height == 90,
			"resize shrink "
			"height 10 asked for %dx%d, not 200x90 (the client kept 200x100)",
			t.w[0].app.configure_width, t.w[0].app.configure_height);

	/* maximize, then fullscreen: configures at the output's size */
	bind_type(&t, alt, 1, KEY_M);
	ck_assert_msg(t.w[0].app.configure_maximized &&
					t.w[0].app.configure_width == 640 &&
					t.w[0].app.configure_height == 480,
			"maximize: configure %dx%d "
			"maximized %d",
			t.w[0].app.configure_width, t.w[0].app.configure_height,
			t.w[0].app.configure_maximized);
	bind_type(&t, alt, 1, KEY_M);
	ck_assert(!t.w[0].app.configure_maximized);
	bind_type(&t, alt, 1, KEY_F);
	ck_assert_msg(t.w[0].app.configure_fullscreen &&
					t.w[0].app.configure_width == 640,
			"fullscreen: configure %dx%d", t.w[0].app.configure_width,
			t.w[0].app.configure_height);
	bind_type(&t, alt, 1, KEY_F);
	ck_assert(!t.w[0].app.configure_fullscreen);
	/* Alt+Shift+m is not Alt+m (Shift makes the letter M, but the
	 * binding has no Shift): the key reaches the window */
	bind_type(&t, alt_shift, 2, KEY_M);
	ck_assert_msg(!t.w[0].app.configure_maximized,
			"Alt+Shift+m ran "
			"Alt+m's maximize");
	ck_assert(window_got_key(&t.w[0], KEY_M));

	/* exec */
	bind_type(&t, alt, 1, KEY_ENTER);
	wait_for_file(spawned);

	/* close: the focused window is asked to, the others are not */
	bind_type(&t, alt, 1, KEY_Q);
	ck_assert(!t.w[0].app.running);
	ck_assert(t.w[1].app.running && t.w[2].app.running);
	ck_assert(!window_got_key(&t.w[0], KEY_Q));

	/* reload through the binding: close moves from q to w */
	char *text2 = NULL;
	ck_assert(asprintf(&text2,
					  "bind Alt+w close\nbind Alt+r reload\n"
					  "bind Alt+Escape exit\n") > 0);
	write_config(config, text2);
	bind_type(&t, alt, 1, KEY_R);
	t.w[0].app.running = true;
	bind_type(&t, alt, 1, KEY_Q);
	ck_assert_msg(t.w[0].app.running,
			"Alt+q still closes after the "
			"reload");
	ck_assert_msg(window_got_key(&t.w[0], KEY_Q),
			"Alt+q, unbound now, did "
			"not reach the window");
	bind_type(&t, alt, 1, KEY_W);
	ck_assert_msg(!t.w[0].app.running,
			"Alt+w does not close after the "
			"reload");
	/* a bad line: refused, the bindings stay */
	write_config(config, "bind Alt+w close\nbind Hyper+x exit\n");
	bind_type(&t, alt, 1, KEY_R);
	t.w[0].app.running = true;
	bind_type(&t, alt, 1, KEY_W);
	ck_assert_msg(!t.w[0].app.running,
			"the bad config replaced the "
			"bindings");
	char *log = harness_proc_log(vitrail->proc);
	ck_assert_msg(strstr(log, "bindings.conf:2: bind: unknown modifier") !=
					NULL,
			"no file:line error for the bad config in the log:\n%s", log);
	free(log);
	for (int i = 0; i < 3; i++) {
		harness_assert_alive(vitrail->proc);
		ck_assert_int_ge(wl_display_roundtrip(t.w[i].app.display), 0);
	}

	/* exit */
	bind_send(&t, alt, 1, KEY_ESC);
	ck_assert_msg(harness_proc_wait(vitrail->proc,
						  harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS)),
			"vitrail did not "
			"exit on its exit binding");

	bind_test_finish(&t);
	free(config);
	free(spawned);
	free(text);
	free(text2);
	harness_stop_vitrail(harness, parent);
	harness_destroy(harness);
}
END_TEST

/* ---- move and resize ---------------------------------------------------- */

/*
 * Interactive move and resize of a 200x100 window on a 640x480 output:
 * with the drag modifier (Logo, held on a virtual keyboard) the left
 * button drags the window by exactly the pointer's motion and the right
 * one, from the bottom-right quarter, asks the client for its size plus
 * that motion; neither press reaches the client. A press the client
 * answers with xdg_toplevel.move (its serial) moves it the same way, one
 * answered with resize (top-left edges) asks for the size less the
 * motion and moves the window's corner; a move with a stale serial moves
 * nothing.
 */
static const struct harness_window *window_now(struct harness_vitrail *v) {
	const struct harness_window *all;
	harness_list_windows(v->conn, &all);
	const struct harness_window *w = harness_find_window(v->conn, "drag");
	ck_assert_ptr_nonnull(w);
	return w;
}

START_TEST(test_input_move_resize) {
	struct harness *harness = harness_create("move_resize");
	struct harness_vitrail *parent;
	struct harness_vitrail *vitrail = start_nested(harness, NULL, &parent);
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct bind_test t = { 0 };
	bind_driver_init(&t, vitrail);

	struct sc_app *app = &t.w[0].app;
	ck_assert(sc_app_init(app, "drag"));
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	ck_assert(sc_app_create_window(app, "drag", "drag", 200, 100, 0xff808080u));
	wl_surface_attach(app->surface, app->buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(app->surface, 0, 0, 200, 100);
	wl_surface_commit(app->surface);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const struct harness_window *w = window_now(vitrail);
	int x0 = w->x, y0 = w->y;
	ck_assert_int_eq(w->width, 200);

	/* Logo held (Mod4: the us keymap's modifier 6) */
	test_keys_key(&t.d, KEY_LEFTMETA, true);
	zwp_virtual_keyboard_v1_modifiers(t.d.keyboard,
			test_keys_mod_mask(KEY_LEFTMETA), 0, 0, 0);
	bind_dispatch(&t);
	harness_pointer_move(vitrail->conn, x0 + 50, y0 + 30);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	harness_pointer_move(vitrail->conn, x0 + 50 + 37, y0 + 30 + 21);
	harness_pointer_move(vitrail->conn, x0 + 50 + 70, y0 + 30 + 45);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	bind_dispatch(&t);
	w = window_now(vitrail);
	ck_assert_msg(w->x == x0 + 70 && w->y == y0 + 45,
			"the drag modifier's "
			"move put the window at %d,%d, not %d,%d",
			w->x, w->y, x0 + 70, y0 + 45);
	x0 = w->x;
	y0 = w->y;
	/* resize from the bottom-right quarter */
	harness_pointer_move(vitrail->conn, x0 + 180, y0 + 90);
	harness_pointer_button(vitrail->conn, BTN_RIGHT, true);
	harness_pointer_move(vitrail->conn, x0 + 180 + 40, y0 + 90 + 25);
	harness_pointer_button(vitrail->conn, BTN_RIGHT, false);
	bind_dispatch(&t);
	ck_assert_msg(app->configure_width == 240 && app->configure_height == 125,
			"the resize asked for %dx%d, not "
			"240x125",
			app->configure_width, app->configure_height);
	ck_assert_msg(app->buttons_pressed == 0,
			"the drag modifier's buttons "
			"reached the client");
	zwp_virtual_keyboard_v1_modifiers(t.d.keyboard, 0, 0, 0, 0);
	test_keys_key(&t.d, KEY_LEFTMETA, false);
	bind_dispatch(&t);

	/* the client's own move, on its button press */
	w = window_now(vitrail);
	ck_assert_int_eq(w->x, x0);
	harness_pointer_move(vitrail->conn, x0 + 20, y0 + 20);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	bind_dispatch(&t);
	ck_assert_int_eq(app->buttons_pressed, 1);
	xdg_toplevel_move(app->xdg_toplevel, app->seat, app->button_serial);
	bind_dispatch(&t);
	harness_pointer_move(vitrail->conn, x0 + 20 - 15, y0 + 20 + 33);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	bind_dispatch(&t);
	w = window_now(vitrail);
	ck_assert_msg(w->x == x0 - 15 && w->y == y0 + 33,
			"xdg_toplevel.move "
			"put the window at %d,%d, not %d,%d",
			w->x, w->y, x0 - 15, y0 + 33);
	x0 = w->x;
	y0 = w->y;
	/* a stale serial (that press is over): nothing moves */
	xdg_toplevel_move(app->xdg_toplevel, app->seat, app->button_serial);
	bind_dispatch(&t);
	harness_pointer_move(vitrail->conn, x0 + 100, y0 + 80);
	bind_dispatch(&t);
	w = window_now(vitrail);
	ck_assert_msg(w->x == x0 && w->y == y0,
			"a stale move serial moved the "
			"window to %d,%d",
			w->x, w->y);

	/* the client's resize by its top-left corner */
	harness_pointer_move(vitrail->conn, x0 + 2, y0 + 2);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	bind_dispatch(&t);
	xdg_toplevel_resize(app->xdg_toplevel, app->seat, app->button_serial,
			XDG_TOPLEVEL_RESIZE_EDGE_TOP_LEFT);
	bind_dispatch(&t);
	harness_pointer_move(vitrail->conn, x0 + 2 + 30, y0 + 2 + 10);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	bind_dispatch(&t);
	ck_assert_msg(app->configure_width == 170 && app->configure_height == 90,
			"the client's resize asked for %dx%d, "
			"not 170x90 (its 200x100 less the motion)",
			app->configure_width, app->configure_height);
	w = window_now(vitrail);
	ck_assert_msg(w->x == x0 + 30 && w->y == y0 + 10,
			"the resized "
			"window's corner is at %d,%d, not %d,%d",
			w->x, w->y, x0 + 30, y0 + 10);

	/* by touch: xdg_toplevel.move on a touch down's serial, the finger
	 * drives it until it is up; the pointer's motion meanwhile does not */
	x0 = w->x;
	y0 = w->y;
	harness_touch(vitrail->conn, HARNESS_TOUCH_DOWN, 4, x0 + 60, y0 + 40);
	bind_dispatch(&t);
	ck_assert_msg(app->touch_serial != 0, "the window got no touch down");
	xdg_toplevel_move(app->xdg_toplevel, app->seat, app->touch_serial);
	bind_dispatch(&t);
	harness_touch(vitrail->conn, HARNESS_TOUCH_MOVE, 4, x0 + 60 + 12,
			y0 + 40 + 20);
	harness_pointer_move(vitrail->conn, 5, 5);
	harness_touch(vitrail->conn, HARNESS_TOUCH_MOVE, 4, x0 + 60 + 25,
			y0 + 40 + 35);
	harness_touch(vitrail->conn, HARNESS_TOUCH_UP, 4, 0, 0);
	bind_dispatch(&t);
	w = window_now(vitrail);
	ck_assert_msg(w->x == x0 + 25 && w->y == y0 + 35,
			"the touch move "
			"put the window at %d,%d, not %d,%d",
			w->x, w->y, x0 + 25, y0 + 35);
	/* that point is up: its serial starts nothing more */
	x0 = w->x;
	y0 = w->y;
	xdg_toplevel_move(app->xdg_toplevel, app->seat, app->touch_serial);
	bind_dispatch(&t);
	harness_pointer_move(vitrail->conn, x0 + 90, y0 + 70);
	bind_dispatch(&t);
	w = window_now(vitrail);
	ck_assert_msg(w->x == x0 && w->y == y0,
			"a stale touch serial moved "
			"the window to %d,%d",
			w->x, w->y);

	free(t.w[0].keymap);
	sc_app_finish(app);
	bind_driver_finish(&t);
	harness_stop_vitrail(harness, vitrail);
	harness_stop_vitrail(harness, parent);
	harness_destroy(harness);
}
END_TEST

/*
 * bindings_held_back: a binding (Alt+Return exec touch FILE) does not run
 * while the focused window inhibits shortcuts (keyboard-shortcuts-
 * inhibit): the window gets the Return that the binding would have kept
 * from it, and FILE is not made; with the inhibitor gone the binding runs
 * (FILE appears, the window gets no Return). While a screen locker
 * (vitrail-lock-client) holds the session, the keys go to its lock
 * surface, Return included: no binding runs behind a lock.
 */
static struct zwp_keyboard_shortcuts_inhibit_manager_v1 *inhibit_manager;

static void inhibit_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	if (strcmp(interface,
				zwp_keyboard_shortcuts_inhibit_manager_v1_interface.name) ==
			0) {
		inhibit_manager = wl_registry_bind(registry, name,
				&zwp_keyboard_shortcuts_inhibit_manager_v1_interface, 1);
	}
}

static void inhibit_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener inhibit_registry_listener = {
	.global = inhibit_global,
	.global_remove = inhibit_global_remove,
};

static bool inhibitor_active;

static void inhibitor_handle_active(void *data,
		struct zwp_keyboard_shortcuts_inhibitor_v1 *inhibitor) {
	inhibitor_active = true;
}

static void inhibitor_handle_inactive(void *data,
		struct zwp_keyboard_shortcuts_inhibitor_v1 *inhibitor) {
	inhibitor_active = false;
}

static const struct zwp_keyboard_shortcuts_inhibitor_v1_listener
		inhibitor_listener = {
			.active = inhibitor_handle_active,
			.inactive = inhibitor_handle_inactive,
		};

static int count_key(const struct key_window *w, uint32_t key) {
	int n = 0;
	for (int i = 0; i < w->nkeys; i++) {
		if (w->keys[i] == (key << 1 | 1)) {
			n++;
		}
	}
	return n;
}

START_TEST(test_input_bindings_held_back) {
	struct harness *harness = harness_create("bindings_held_back");
	char *config = NULL, *spawned = NULL, *text = NULL;
	ck_assert(asprintf(&config, "%s/held.conf", harness->out_dir) > 0);
	ck_assert(asprintf(&spawned, "%s/spawned", harness->out_dir) > 0);
	ck_assert(
			asprintf(&text, "bind Alt+Return exec touch '%s'\n", spawned) > 0);
	write_config(config, text);
	const char *args[] = { "--config", config, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480",
					.extra_args = args });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);

	struct bind_test t = { 0 };
	bind_driver_init(&t, vitrail);

	struct key_window *w = &t.w[0];
	ck_assert(sc_app_init(&w->app, "held"));
	struct wl_registry *registry = wl_display_get_registry(w->app.display);
	wl_registry_add_listener(registry, &inhibit_registry_listener, NULL);
	ck_assert_int_ge(wl_display_roundtrip(w->app.display), 0);
	ck_assert_msg(inhibit_manager != NULL,
			"no zwp_keyboard_shortcuts_inhibit_manager_v1");
	w->keyboard = wl_seat_get_keyboard(w->app.seat);
	wl_keyboard_add_listener(w->keyboard, &keyboard_listener, w);
	ck_assert(sc_app_create_window(&w->app, "held", "held", 200, 100,
			0xff808080u));
	wl_surface_commit(w->app.surface);
	ck_assert_int_ge(wl_display_roundtrip(w->app.display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	struct zwp_keyboard_shortcuts_inhibitor_v1 *inhibitor =
			zwp_keyboard_shortcuts_inhibit_manager_v1_inhibit_shortcuts(
					inhibit_manager, w->app.surface, w->app.seat);
	zwp_keyboard_shortcuts_inhibitor_v1_add_listener(inhibitor,
			&inhibitor_listener, NULL);
	bind_dispatch(&t);
	ck_assert(w->entered);
	ck_assert_msg(inhibitor_active,
			"the focused window's inhibitor is not "
			"active");

	const uint32_t alt[] = { KEY_LEFTALT };
	bind_type(&t, alt, 1, KEY_ENTER);
	ck_assert_msg(count_key(w, KEY_ENTER) == 1,
			"the inhibiting window got "
			"%d Return presses, not 1",
			count_key(w, KEY_ENTER));
	zwp_keyboard_shortcuts_inhibitor_v1_destroy(inhibitor);
	bind_dispatch(&t);
	bind_type(&t, alt, 1, KEY_ENTER);
	wait_for_file(spawned);
	ck_assert_msg(count_key(w, KEY_ENTER) == 1,
			"the bound Return reached "
			"the window");
	ck_assert_int_eq(unlink(spawned), 0);

	/* locked: the lock surface gets the keys, the binding stays idle */
	const char *lock_argv[] = { getenv("VITRAIL_LOCK_CLIENT") != NULL ?
				getenv("VITRAIL_LOCK_CLIENT") :
				"vitrail-lock-client",
		NULL };
	struct harness_proc *locker =
			harness_spawn_client(harness, vitrail, lock_argv);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(10000);
	while (true) {
		char *log = harness_proc_log(locker);
		bool ready = strstr(log, "keyboard enter") != NULL;
		free(log);
		if (ready) {
			break;
		}
		harness_assert_alive(locker);
		ck_assert_msg(harness_now_ms() < deadline,
				"the lock surface got "
				"no keyboard focus");
		usleep(20000);
	}
	bind_type(&t, alt, 1, KEY_ENTER);
	harness_settle(vitrail->conn);
	deadline = harness_now_ms() + harness_scaled_ms(10000);
	while (true) {
		char *log = harness_proc_log(locker);
		bool got = strstr(log, "key 28 pressed") != NULL;
		free(log);
		if (got) {
			break;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"the lock surface did "
				"not get Return: a binding ran behind the lock");
		usleep(20000);
	}
	ck_assert_msg(count_key(w, KEY_ENTER) == 1,
			"the window behind the "
			"lock got Return");
	harness_proc_signal(locker, SIGUSR1);
	ck_assert(harness_proc_wait(locker, 15000));

	zwp_keyboard_shortcuts_inhibit_manager_v1_destroy(inhibit_manager);
	inhibit_manager = NULL;
	wl_registry_destroy(registry);
	wl_keyboard_destroy(w->keyboard);
	free(w->keymap);
	sc_app_finish(&w->app);
	bind_driver_finish(&t);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
	free(config);
	free(spawned);
	free(text);
}
END_TEST

/* ---- workspaces and outputs ------------------------------------------------
 */

/*
 * Workspaces, outputs and minimize (vitrail(5) bind), typed on the
 * virtual keyboard into windows of this process in a nested session: a
 * vitrail inside another, with three 640x480 outputs side by side (WL-1,
 * -2, -3 at x 0, 640, 1280; windows of the parent), desktop mode. The
 * oracles: the test protocol's window list (shown windows only, with the
 * output under each and its position), grim screenshots (each window a
 * solid colour of its own, the background vitrail's default #29303a,
 * read at the centre of where a window is or was), and the windows' own
 * wl_keyboard enter and leave events and wl_pointer button presses.
 */
#define WS_BACKGROUND 0xff29303au
#define WS_OUTPUT_WIDTH 640

/* A window's place, kept from a list (the list's strings do not last). */
struct ws_place {
	int32_t x, y, width, height;
	char output[32];
};

static struct ws_place ws_place_of(const struct harness_window *w) {
	struct ws_place p = { w->x, w->y, w->width, w->height, { 0 } };
	snprintf(p.output, sizeof(p.output), "%s", w->output);
	return p;
}

/* The window of app_id as listed now, or NULL when it is not shown. */
static const struct harness_window *ws_listed(struct harness_vitrail *v,
		const char *app_id) {
	const struct harness_window *all;
	harness_list_windows(v->conn, &all);
	return harness_find_window(v->conn, app_id);
}

/* The colour of the pixel of the layout at the centre of place, from a
 * screenshot of the output at that place (WL-n at x (n-1) * 640). */
static uint32_t ws_pixel(struct harness *harness,
		struct harness_vitrail *vitrail, const struct ws_place *place) {
	static int shots;
	int32_t cx = place->x + place->width / 2;
	int32_t cy = place->y + place->height / 2;
	int index = cx / WS_OUTPUT_WIDTH;
	char output[32], name[64];
	snprintf(output, sizeof(output), "WL-%d", index + 1);
	snprintf(name, sizeof(name), "shot-%02d-%s", ++shots, output);
	int32_t w = 0, h = 0;
	uint32_t *pixels =
			harness_screenshot(harness, vitrail, output, NULL, name, &w, &h);
	int32_t x = cx - index * WS_OUTPUT_WIDTH;
	ck_assert(x >= 0 && x < w && cy >= 0 && cy < h);
	uint32_t p = pixels[cy * w + x];
	free(pixels);
	return p;
}

static void ws_assert_pixel(struct harness *harness,
		struct harness_vitrail *vitrail, const struct ws_place *place,
		uint32_t expect, const char *what) {
	uint32_t p = ws_pixel(harness, vitrail, place);
	ck_assert_msg(p == expect,
			"%s: pixel at the centre of (%d, %d) "
			"%dx%d is 0x%08x, expected 0x%08x",
			what, place->x, place->y, place->width, place->height, p, expect);
}

static void ws_assert_listed_on(struct harness_vitrail *v, const char *app_id,
		const char *output) {
	const struct harness_window *w = ws_listed(v, app_id);
	char *all = harness_describe_windows(v->conn);
	ck_assert_msg(w != NULL && strcmp(w->output, output) == 0,
			"window %s "
			"is not shown on %s; the windows:\n%s",
			app_id, output, all);
	free(all);
}

static void ws_assert_hidden(struct harness_vitrail *v, const char *app_id) {
	const struct harness_window *w = ws_listed(v, app_id);
	char *all = harness_describe_windows(v->conn);
	ck_assert_msg(w == NULL, "window %s is still shown; the windows:\n%s",
			app_id, all);
	free(all);
}

/* A left click of the emulated pointer at the centre of place. */
static void ws_click(struct harness_vitrail *v, const struct ws_place *place) {
	harness_pointer_move(v->conn, place->x + place->width / 2,
			place->y + place->height / 2);
	harness_pointer_button(v->conn, BTN_LEFT, true);
	harness_pointer_button(v->conn, BTN_LEFT, false);
}

START_TEST(test_input_workspaces) {
	struct harness *harness = harness_create("workspaces");
	harness_require_program("grim", "grim");
	char *config = NULL;
	ck_assert(asprintf(&config, "%s/workspaces.conf", harness->out_dir) > 0);
	write_config(config,
			"bind Alt+1 workspace 1\n"
			"bind Alt+2 workspace 2\n"
			"bind Alt+Shift+2 move-to-workspace 2\n"
			"bind Alt+Tab focus next\n"
			"bind Alt+h minimize\n"
			"bind Alt+Right focus output right\n"
			"bind Alt+Left focus output left\n"
			"bind Alt+o focus output next\n"
			"bind Alt+p focus output prev\n"
			"bind Alt+Shift+Right move-to-output right\n"
			"bind Alt+Shift+Left move-to-output left\n"
			"bind Alt+n move-to-output next\n");
	const char *args[] = { "--config", config, NULL };
	struct harness_vitrail *parent;
	struct harness_vitrail *vitrail = start_nested(harness, args, &parent);
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct bind_test t = { 0 };
	bind_driver_init(&t, vitrail);
	const uint32_t alt[] = { KEY_LEFTALT };
	const uint32_t alt_shift[] = { KEY_LEFTALT, KEY_LEFTSHIFT };
	const uint32_t red = 0xffc03030u, green = 0xff30c030u, blue = 0xff3030c0u;

	/* one: before any output is chosen, on the one with the fewest
	 * windows (the first), workspace 1 */
	bind_window_init(&t, 0, vitrail, "one", red);
	bind_dispatch(&t);
	ws_assert_listed_on(vitrail, "one", "WL-1");
	struct ws_place one = ws_place_of(ws_listed(vitrail, "one"));
	ws_assert_pixel(harness, vitrail, &one, red, "one shown");
	ck_assert_int_eq(focused_window(&t), 0);

	/* workspace 2 on the focused window's output: one vanishes, from
	 * the list, the screen and the keyboard */
	bind_type(&t, alt, 1, KEY_2);
	ws_assert_hidden(vitrail, "one");
	ws_assert_pixel(harness, vitrail, &one, WS_BACKGROUND,
			"one on workspace 1 while 2 shows");
	ck_assert_int_eq(focused_window(&t), -1);

	/* two opens on the workspace shown, on WL-1 (the current
	 * output now, though the other two have fewer windows) */
	bind_window_init(&t, 1, vitrail, "two", green);
	bind_dispatch(&t);
	ws_assert_listed_on(vitrail, "two", "WL-1");
	struct ws_place two = ws_place_of(ws_listed(vitrail, "two"));
	ws_assert_hidden(vitrail, "one");
	ck_assert_int_eq(focused_window(&t), 1);
	/* the two places do not cover each other's centres (cascaded) */
	ck_assert_msg(two.x + two.width / 2 >= one.x + one.width ||
					two.y + two.height / 2 >= one.y + one.height,
			"two at (%d, %d) "
			"covers one's centre",
			two.x, two.y);

	/* back to workspace 1: one shows and has the keyboard, two hides */
	bind_type(&t, alt, 1, KEY_1);
	ws_assert_listed_on(vitrail, "one", "WL-1");
	ws_assert_hidden(vitrail, "two");
	ws_assert_pixel(harness, vitrail, &one, red, "one back on workspace 1");
	ws_assert_pixel(harness, vitrail, &two, WS_BACKGROUND,
			"two on workspace 2 while 1 shows");
	ck_assert_int_eq(focused_window(&t), 0);
	/* the pointer: a click at one's centre reaches it, one at hidden
	 * two's centre does not reach two; then the pointer (drawn in
	 * screenshots) goes to WL-1's bottom-right corner, clear of
	 * every window's centre */
	ws_click(vitrail, &one);
	ws_click(vitrail, &two);
	harness_pointer_move(vitrail->conn, 639, 479);
	bind_dispatch(&t);
	ck_assert_int_eq(t.w[0].app.buttons_pressed, 1);
	ck_assert_msg(t.w[1].app.buttons_pressed == 0,
			"a click reached two "
			"on the hidden workspace");
	ck_assert_int_eq(focused_window(&t), 0);

	/* move-to-workspace 2: one goes, nothing is left focused */
	bind_type(&t, alt_shift, 2, KEY_2);
	ws_assert_hidden(vitrail, "one");
	ws_assert_pixel(harness, vitrail, &one, WS_BACKGROUND,
			"one moved to workspace 2");
	ck_assert_int_eq(focused_window(&t), -1);
	bind_type(&t, alt, 1, KEY_2);
	ws_assert_listed_on(vitrail, "one", "WL-1");
	ws_assert_listed_on(vitrail, "two", "WL-1");
	ws_assert_pixel(harness, vitrail, &one, red, "one on workspace 2");
	ws_assert_pixel(harness, vitrail, &two, green, "two on workspace 2");
	ck_assert(focused_window(&t) == 0 || focused_window(&t) == 1);

	/* focus output right twice: WL-3 is current, and three opens
	 * there (the fewest windows would say WL-2) */
	bind_type(&t, alt, 1, KEY_RIGHT);
	ck_assert_int_eq(focused_window(&t), -1);
	bind_type(&t, alt, 1, KEY_RIGHT);
	bind_window_init(&t, 2, vitrail, "three", blue);
	bind_dispatch(&t);
	ws_assert_listed_on(vitrail, "three", "WL-3");
	struct ws_place three = ws_place_of(ws_listed(vitrail, "three"));
	ws_assert_pixel(harness, vitrail, &three, blue, "three shown");
	ck_assert_int_eq(focused_window(&t), 2);
	/* right of the rightmost: nothing; left: WL-2, no window
	 * there, so no window has the keyboard */
	bind_type(&t, alt, 1, KEY_RIGHT);
	ck_assert_int_eq(focused_window(&t), 2);
	bind_type(&t, alt, 1, KEY_LEFT);
	ck_assert_int_eq(focused_window(&t), -1);
	/* prev: WL-1 (its front window gets the keyboard), prev
	 * again wraps around to WL-3, next wraps back to WL-1 */
	bind_type(&t, alt, 1, KEY_P);
	int front = focused_window(&t);
	ck_assert_msg(front == 0 || front == 1,
			"focus output prev from "
			"WL-2: window %d focused, not one of WL-1's",
			front);
	bind_type(&t, alt, 1, KEY_P);
	ck_assert_int_eq(focused_window(&t), 2);
	bind_type(&t, alt, 1, KEY_O);
	ck_assert_int_eq(focused_window(&t), front);

	/* move-to-output right: the focused window keeps its offset, on
	 * WL-2, and the keyboard */
	const char *app = front == 0 ? "one" : "two";
	uint32_t colour = front == 0 ? red : green;
	struct ws_place was = front == 0 ? one : two;
	bind_type(&t, alt_shift, 2, KEY_RIGHT);
	ws_assert_listed_on(vitrail, app, "WL-2");
	struct ws_place moved = ws_place_of(ws_listed(vitrail, app));
	ck_assert_msg(moved.x == was.x + 640 && moved.y == was.y,
			"%s moved "
			"from (%d, %d) to (%d, %d), expected (%d, %d)",
			app, was.x, was.y, moved.x, moved.y, was.x + 640, was.y);
	ck_assert(moved.x >= 640 && moved.x + moved.width <= 1280 && moved.y >= 0 &&
			moved.y + moved.height <= 480);
	ws_assert_pixel(harness, vitrail, &moved, colour, "moved to WL-2");
	ws_assert_pixel(harness, vitrail, &was, WS_BACKGROUND,
			"where the moved window was");
	ck_assert_int_eq(focused_window(&t), front);
	/* next: WL-3; right of it there is none: it stays; left:
	 * WL-2 again */
	bind_type(&t, alt, 1, KEY_N);
	ws_assert_listed_on(vitrail, app, "WL-3");
	moved = ws_place_of(ws_listed(vitrail, app));
	ck_assert_int_eq(moved.x, was.x + 1280);
	ck_assert_int_eq(moved.y, was.y);
	bind_type(&t, alt_shift, 2, KEY_RIGHT);
	ws_assert_listed_on(vitrail, app, "WL-3");
	ck_assert_int_eq(ws_listed(vitrail, app)->x, was.x + 1280);
	bind_type(&t, alt_shift, 2, KEY_LEFT);
	ws_assert_listed_on(vitrail, app, "WL-2");
	moved = ws_place_of(ws_listed(vitrail, app));
	ck_assert_int_eq(moved.x, was.x + 640);
	ws_assert_pixel(harness, vitrail, &moved, colour, "moved back left");

	/* minimize: gone from the list, the screen and the keyboard; focus
	 * next brings it back */
	bind_type(&t, alt, 1, KEY_H);
	ws_assert_hidden(vitrail, app);
	ws_assert_pixel(harness, vitrail, &moved, WS_BACKGROUND, "minimized");
	ck_assert_int_eq(focused_window(&t), -1);
	bind_type(&t, alt, 1, KEY_TAB);
	ws_assert_listed_on(vitrail, app, "WL-2");
	ws_assert_pixel(harness, vitrail, &moved, colour,
			"focus next after "
			"minimize");
	ck_assert_int_eq(focused_window(&t), front);
	/* the client asks (xdg_toplevel.set_minimized): the same */
	xdg_toplevel_set_minimized(t.w[front].app.xdg_toplevel);
	wl_surface_commit(t.w[front].app.surface);
	bind_dispatch(&t);
	ws_assert_hidden(vitrail, app);
	ck_assert_int_eq(focused_window(&t), -1);
	bind_type(&t, alt, 1, KEY_TAB);
	ws_assert_listed_on(vitrail, app, "WL-2");
	ck_assert_int_eq(focused_window(&t), front);

	/* WL-3 unplugged: three goes to an output left, shown */
	harness_unplug_output(vitrail->conn, "WL-3");
	bind_dispatch(&t);
	const struct harness_window *w3 = ws_listed(vitrail, "three");
	char *all = harness_describe_windows(vitrail->conn);
	ck_assert_msg(w3 != NULL &&
					(strcmp(w3->output, "WL-1") == 0 ||
							strcmp(w3->output, "WL-2") == 0),
			"three is not shown on "
			"an output left after WL-3 went; the windows:\n%s",
			all);
	free(all);
	for (int i = 0; i < 3; i++) {
		ck_assert(t.w[i].app.running);
	}

	bind_test_finish(&t);
	harness_stop_vitrail(harness, vitrail);
	harness_stop_vitrail(harness, parent);
	harness_destroy(harness);
	free(config);
}
END_TEST

/* ---- SIGHUP -----------------------------------------------------------------
 */

/* How often line occurs in the log of proc. */
static int log_count(struct harness_proc *proc, const char *line) {
	char *log = harness_proc_log(proc);
	int n = 0;
	for (const char *p = log; (p = strstr(p, line)) != NULL; p++) {
		n++;
	}
	free(log);
	return n;
}

/* SIGHUP vitrail and wait until its log says it read the config again
 * (line: what it logs then). */
static void sighup_reload(struct harness_vitrail *vitrail, const char *line) {
	int before = log_count(vitrail->proc, line);
	harness_proc_signal(vitrail->proc, SIGHUP);
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	while (log_count(vitrail->proc, line) == before) {
		harness_assert_alive(vitrail->proc);
		ck_assert_msg(harness_now_ms() < deadline,
				"no '%s' in vitrail's "
				"log after SIGHUP",
				line);
		usleep(10000);
	}
}

/*
 * SIGHUP reloads the config as the reload binding does (vitrail(1)):
 * a binding moves from Alt+q to Alt+w while the window stays connected
 * and shown; a config with a bad line is refused with file:line: reason
 * in the log, and Alt+w still closes.
 */
START_TEST(test_input_sighup_reload) {
	struct harness *harness = harness_create("sighup_reload");
	char *config = NULL;
	ck_assert(asprintf(&config, "%s/sighup.conf", harness->out_dir) > 0);
	write_config(config, "bind Alt+q close\n");
	const char *args[] = { "--config", config, NULL };
	struct harness_vitrail *parent;
	struct harness_vitrail *vitrail = start_nested(harness, args, &parent);
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct bind_test t = { 0 };
	bind_driver_init(&t, vitrail);
	bind_window_init(&t, 0, vitrail, "hup", 0xff808080u);
	bind_dispatch(&t);
	ck_assert_int_eq(focused_window(&t), 0);
	const uint32_t alt[] = { KEY_LEFTALT };

	/* the config before: Alt+q closes, Alt+w is the window's */
	bind_type(&t, alt, 1, KEY_W);
	ck_assert(window_got_key(&t.w[0], KEY_W));
	bind_type(&t, alt, 1, KEY_Q);
	ck_assert_msg(!t.w[0].app.running, "Alt+q does not close");
	ck_assert(!window_got_key(&t.w[0], KEY_Q));
	t.w[0].app.running = true;

	write_config(config, "# moved\nbind Alt+w close\n");
	sighup_reload(vitrail, "reloaded ");
	bind_type(&t, alt, 1, KEY_Q);
	ck_assert_msg(t.w[0].app.running, "Alt+q still closes after SIGHUP");
	ck_assert_msg(window_got_key(&t.w[0], KEY_Q),
			"Alt+q, unbound now, "
			"did not reach the window");
	int w_keys = count_key(&t.w[0], KEY_W);
	bind_type(&t, alt, 1, KEY_W);
	ck_assert_msg(!t.w[0].app.running, "Alt+w does not close after SIGHUP");
	ck_assert_msg(count_key(&t.w[0], KEY_W) == w_keys,
			"the bound Alt+w "
			"reached the window");
	t.w[0].app.running = true;
	ws_assert_listed_on(vitrail, "hup", "WL-1");

	/* a bad line: the old config stays */
	write_config(config, "bind Alt+q close\nbind Alt+w frobnicate\n");
	sighup_reload(vitrail, "keeping the previous configuration");
	char *log = harness_proc_log(vitrail->proc);
	ck_assert_msg(strstr(log, "sighup.conf:2: bind: unknown action") != NULL,
			"no file:line: reason for the bad config in the log:\n%s", log);
	free(log);
	bind_type(&t, alt, 1, KEY_W);
	ck_assert_msg(!t.w[0].app.running, "the bad config replaced Alt+w");
	t.w[0].app.running = true;
	bind_type(&t, alt, 1, KEY_Q);
	ck_assert_msg(t.w[0].app.running, "the bad config's Alt+q closes");
	harness_assert_alive(vitrail->proc);
	ws_assert_listed_on(vitrail, "hup", "WL-1");

	bind_test_finish(&t);
	harness_stop_vitrail(harness, vitrail);
	harness_stop_vitrail(harness, parent);
	harness_destroy(harness);
	free(config);
}
END_TEST

/* ---- runner ---------------------------------------------------------------
 */

static Suite *input_suite(void) {
	Suite *suite = suite_create("input");
	harness_add_case(suite, "virtual_pointer",
			test_input_virtual_pointer_reaches_probe, 180);
	harness_add_case(suite, "virtual_keyboard",
			test_input_virtual_keyboard_reaches_window, 120);
	harness_add_case(suite, "bindings", test_input_bindings, 120);
	harness_add_case(suite, "workspaces", test_input_workspaces, 180);
	harness_add_case(suite, "sighup_reload", test_input_sighup_reload, 120);
	harness_add_case(suite, "move_resize", test_input_move_resize, 120);
	harness_add_case(suite, "bindings_held_back", test_input_bindings_held_back,
			60);
	return suite;
}

int main(int argc, char *argv[]) {
	return harness_run_suite(input_suite(), argc, argv);
}
