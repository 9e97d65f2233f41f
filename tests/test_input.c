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
#include "keyboard-shortcuts-inhibit-unstable-v1-client-protocol.h"
#include "scene-client.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"

static const char *env_path(const char *name, const char *fallback) {
	const char *path = getenv(name);
	return path != NULL && path[0] != '\0' ? path : fallback;
}

static void sleep_ms(int ms) {
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* ---- CSV by column name --------------------------------------------------- */

#define CSV_COLUMNS 16

/* A whole CSV of numbers: rows x columns, looked up by name. */
struct csv {
	char *names[CSV_COLUMNS];
	int ncolumns;
	double *values; // row-major
	size_t nrows;
};

static void csv_read(const char *path, struct csv *csv) {
	*csv = (struct csv){ 0 };
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "no %s: %s", path, strerror(errno));
	char line[1024];
	ck_assert_msg(fgets(line, sizeof(line), f) != NULL, "%s is empty", path);
	char *rest = line;
	for (char *tok = strsep(&rest, ",\n"); tok != NULL && *tok != '\0' &&
			csv->ncolumns < CSV_COLUMNS; tok = strsep(&rest, ",\n")) {
		csv->names[csv->ncolumns++] = strdup(tok);
	}
	size_t cap = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (csv->nrows == cap) {
			cap = cap > 0 ? cap * 2 : 256;
			csv->values = realloc(csv->values,
				cap * CSV_COLUMNS * sizeof(double));
			ck_assert(csv->values != NULL);
		}
		double *row = &csv->values[csv->nrows++ * CSV_COLUMNS];
		int col = 0;
		rest = line;
		for (char *tok = strsep(&rest, ",\n"); tok != NULL &&
				col < csv->ncolumns; tok = strsep(&rest, ",\n"), col++) {
			row[col] = strtod(tok, NULL);
		}
		ck_assert_msg(col == csv->ncolumns, "%s: row %zu has %d fields, "
			"expected %d", path, csv->nrows, col, csv->ncolumns);
	}
	fclose(f);
}

static int csv_column(const struct csv *csv, const char *name) {
	for (int i = 0; i < csv->ncolumns; i++) {
		if (strcmp(csv->names[i], name) == 0) {
			return i;
		}
	}
	ck_abort_msg("no column %s", name);
	return -1;
}

static double csv_get(const struct csv *csv, size_t row, int column) {
	return csv->values[row * CSV_COLUMNS + (size_t)column];
}

static void csv_free(struct csv *csv) {
	for (int i = 0; i < csv->ncolumns; i++) {
		free(csv->names[i]);
	}
	free(csv->values);
}

/* ---- virtual_pointer ------------------------------------------------------ */

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

START_TEST(test_input_virtual_pointer_reaches_probe)
{
	struct harness *harness = harness_create("virtual_pointer");
	char *frame_log = NULL, *probe_csv = NULL, *driver_csv = NULL;
	ck_assert(asprintf(&frame_log, "%s/frames.csv", harness->out_dir) > 0);
	ck_assert(asprintf(&probe_csv, "%s/probe.csv", harness->out_dir) > 0);
	ck_assert(asprintf(&driver_csv, "%s/driver.csv", harness->out_dir) > 0);
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){
			.outputs = 2,
			.output_size = VP_OUTPUT_SIZE,
			.extra_args = (const char *const[]){ "--mode", "kiosk",
				"--frame-log", frame_log, NULL },
		});
	struct harness_conn *conn = vitrail->conn;

	// one window per output, in turn: the demo first, on HEADLESS-1
	const char *demo_argv[] = { env_path("VITRAIL_DEMO", "vitrail-demo"),
		"--static", "--app-id", "demo", NULL };
	harness_spawn_client(harness, vitrail, demo_argv);
	harness_wait_for_windows(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	char timeout[32];
	snprintf(timeout, sizeof(timeout), "%lld",
		(long long)harness_scaled_ms(HARNESS_WINDOWS_TIMEOUT_MS) / 1000);
	const char *probe_argv[] = {
		env_path("VITRAIL_DRAW_PROBE", "vitrail-draw-probe"),
		"--app-id", "draw-probe", "--csv", probe_csv, "--timeout", timeout,
		NULL };
	struct harness_proc *probe = harness_spawn_client(harness, vitrail,
		probe_argv);
	harness_wait_for_windows(conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_settle(conn); // the probe's first frame is on screen
	const struct harness_window *window =
		harness_find_window(conn, "draw-probe");
	ck_assert_msg(window != NULL && strcmp(window->output, "HEADLESS-2") == 0
		&& window->x == 640 && window->y == 0 && window->width == 640 &&
		window->height == 480, "expected the probe filling HEADLESS-2 "
		"(640,0 640x480); the windows:\n%s", harness_describe_windows(conn));

	const char *driver_argv[] = {
		env_path("VITRAIL_POINTER_DRIVER", "vitrail-pointer-driver"),
		"--output", "HEADLESS-2", "--rect", VP_RECT, "--speed", "1500",
		"--rate", VP_RATE, "--duration", VP_DURATION, "--csv", driver_csv,
		NULL };
	struct harness_proc *driver = NULL;
	int status = harness_run_client(harness, vitrail, driver_argv,
		harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS), &driver);
	ck_assert_msg(status == 0, "the driver failed (status %d), see %s",
		status, driver->log_path);
	// the driver's last round trip: vitrail sent every event; the probe
	// draws the last ones within a few frames
	sleep_ms((int)harness_scaled_ms(500));
	harness_assert_alive(probe);
	harness_proc_signal(probe, SIGTERM);
	ck_assert(harness_proc_wait(probe, HARNESS_STOP_TIMEOUT_MS));
	ck_assert_msg(WIFEXITED(probe->status) && WEXITSTATUS(probe->status) == 0,
		"the probe failed (wait status 0x%x), see %s", probe->status,
		probe->log_path);
	harness_stop_vitrail(harness, vitrail);

	struct csv sent, drawn;
	csv_read(driver_csv, &sent);
	csv_read(probe_csv, &drawn);
	int sx = csv_column(&sent, "x"), sy = csv_column(&sent, "y");
	int ssend = csv_column(&sent, "send_ns");
	ck_assert_uint_eq(sent.nrows, VP_EVENTS);
	for (size_t k = 0; k < sent.nrows; k++) {
		ck_assert_int_eq((int)csv_get(&sent, k, sy), VP_LINE_Y);
		if (k > 0) {
			ck_assert_msg(csv_get(&sent, k, sx) != csv_get(&sent, k - 1, sx),
				"the driver sent one position twice in a row (event %zu)", k);
		}
	}
	// every event sent reached the probe as one pointer event
	ck_assert_int_eq(probe_events(probe), (long)sent.nrows);

	int dx = csv_column(&drawn, "x"), dy = csv_column(&drawn, "y");
	int devent = csv_column(&drawn, "event");
	int drecv = csv_column(&drawn, "newest_recv_ns");
	int dpresented = csv_column(&drawn, "presented_ns");
	size_t with_input = 0, presented = 0;
	double last_event = 0;
	for (size_t i = 0; i < drawn.nrows; i++) {
		double event = csv_get(&drawn, i, devent);
		ck_assert_msg(event >= last_event, "probe frame %zu draws event %.0f "
			"after event %.0f", i, event, last_event);
		last_event = event;
		if (event == 0) {
			continue;
		}
		ck_assert_msg(event <= (double)sent.nrows, "probe frame %zu draws "
			"event %.0f of %zu", i, event, sent.nrows);
		size_t k = (size_t)event - 1;
		ck_assert_msg(csv_get(&drawn, i, dx) == csv_get(&sent, k, sx) &&
			csv_get(&drawn, i, dy) == csv_get(&sent, k, sy), "probe frame %zu "
			"draws event %.0f at (%g, %g); the driver sent it at (%g, %g)", i,
			event, csv_get(&drawn, i, dx), csv_get(&drawn, i, dy),
			csv_get(&sent, k, sx), csv_get(&sent, k, sy));
		ck_assert(csv_get(&drawn, i, drecv) >= csv_get(&sent, k, ssend));
		with_input++;
		presented += csv_get(&drawn, i, dpresented) > 0;
	}
	ck_assert_msg(last_event == (double)sent.nrows, "the probe's last frame "
		"draws event %.0f, not the last one sent (%zu)", last_event,
		sent.nrows);
	ck_assert_msg(with_input >= 10 && presented >= 10, "%zu probe frames "
		"drew pointer events, %zu of them presented: expected 10 or more "
		"in %s s", with_input, presented, VP_DURATION);

	// the frame log: the probe's output answers the input, the demo's none
	struct harness_frame *frames = NULL;
	size_t n = harness_read_frame_log(frame_log, &frames);
	double first_send = csv_get(&sent, 0, ssend);
	size_t answering = 0;
	for (size_t i = 0; i < n; i++) {
		const struct harness_frame *f = &frames[i];
		if (strcmp(f->output, "HEADLESS-1") == 0) {
			ck_assert_msg(f->input_ns == 0, "HEADLESS-1 frame %llu answers "
				"input at %llu, but no surface there got any",
				(unsigned long long)f->seq, (unsigned long long)f->input_ns);
			continue;
		}
		if (f->input_ns == 0) {
			continue;
		}
		answering++;
		ck_assert_msg((double)f->input_ns >= first_send, "HEADLESS-2 frame "
			"%llu: input_ns %llu before the driver's first send %.0f",
			(unsigned long long)f->seq, (unsigned long long)f->input_ns,
			first_send);
		ck_assert_msg(f->input_ns <= f->render_start_ns, "HEADLESS-2 frame "
			"%llu: input_ns %llu after its render start %llu",
			(unsigned long long)f->seq, (unsigned long long)f->input_ns,
			(unsigned long long)f->render_start_ns);
	}
	ck_assert_msg(answering >= with_input / 2, "%zu HEADLESS-2 frames answer "
		"input, for %zu probe frames that drew some", answering, with_input);

	free(frames);
	csv_free(&sent);
	csv_free(&drawn);
	free(frame_log);
	free(probe_csv);
	free(driver_csv);
	harness_destroy(harness);
}
END_TEST

/* ---- virtual_keyboard ----------------------------------------------------- */

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
		w->keys[w->nkeys++] = key << 1 | (state ==
			WL_KEYBOARD_KEY_STATE_PRESSED);
	}
}

static void keyboard_modifiers(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, uint32_t depressed, uint32_t latched,
		uint32_t locked, uint32_t group) {
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = keyboard_keymap,
	.enter = keyboard_enter,
	.leave = keyboard_leave,
	.key = keyboard_key,
	.modifiers = keyboard_modifiers,
};

/* The virtual keyboard's client. */
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

/* A keymap of layout in a file, for zwp_virtual_keyboard_v1.keymap. */
static int keymap_fd(const char *layout, uint32_t *size) {
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	ck_assert(context != NULL);
	struct xkb_rule_names names = { .layout = layout };
	struct xkb_keymap *keymap = xkb_keymap_new_from_names(context, &names,
		XKB_KEYMAP_COMPILE_NO_FLAGS);
	ck_assert_msg(keymap != NULL, "cannot compile a keymap of layout %s",
		layout);
	char *text = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1);
	ck_assert(text != NULL);
	*size = (uint32_t)strlen(text) + 1;
	int fd = memfd_create("keymap", MFD_CLOEXEC);
	ck_assert(fd >= 0);
	ck_assert(write(fd, text, *size) == (ssize_t)*size);
	free(text);
	xkb_keymap_unref(keymap);
	xkb_context_unref(context);
	return fd;
}

/* The first keysym of evdev key code key at level 1 of keymap (text). */
static xkb_keysym_t first_keysym(const char *keymap_text, uint32_t key) {
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	ck_assert(context != NULL);
	struct xkb_keymap *keymap = xkb_keymap_new_from_string(context,
		keymap_text, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS);
	ck_assert_msg(keymap != NULL, "the keymap received does not compile");
	const xkb_keysym_t *syms = NULL;
	int n = xkb_keymap_key_get_syms_by_level(keymap, key + 8, 0, 0, &syms);
	xkb_keysym_t sym = n > 0 ? syms[0] : XKB_KEY_NoSymbol;
	xkb_keymap_unref(keymap);
	xkb_context_unref(context);
	return sym;
}

START_TEST(test_input_virtual_keyboard_reaches_window)
{
	struct harness *harness = harness_create("virtual_keyboard");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){ .outputs = 1,
			.output_size = "640x480" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);

	// the keyboard first: the seat offers a keyboard only once one exists
	struct key_driver d = { 0 };
	d.display = wl_display_connect(vitrail->socket);
	ck_assert(d.display != NULL);
	struct wl_registry *registry = wl_display_get_registry(d.display);
	wl_registry_add_listener(registry, &driver_registry_listener, &d);
	ck_assert_int_ge(wl_display_roundtrip(d.display), 0);
	ck_assert_msg(d.seat != NULL && d.manager != NULL, "no wl_seat or "
		"zwp_virtual_keyboard_manager_v1");
	d.keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(
		d.manager, d.seat);
	uint32_t size = 0;
	int fd = keymap_fd("de", &size);
	zwp_virtual_keyboard_v1_keymap(d.keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1,
		fd, size);
	close(fd);
	ck_assert_int_ge(wl_display_roundtrip(d.display), 0);

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
	int64_t deadline = harness_now_ms() +
		harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	while (w.nkeys < 2 && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_roundtrip(w.app.display), 0);
	}
	ck_assert_msg(w.nkeys == 2 && w.keys[0] == (KEY_A << 1 | 1) &&
		w.keys[1] == (KEY_A << 1), "the window got %d key events (first "
		"0x%x), expected KEY_A pressed then released", w.nkeys,
		w.nkeys > 0 ? w.keys[0] : 0);
	// the virtual keyboard's own keymap came with its keys: in layout
	// de, the key labelled Y on a US keyboard types z
	ck_assert_msg(w.keymap != NULL, "the window got no keymap");
	ck_assert_msg(first_keysym(w.keymap, KEY_Y) == XKB_KEY_z, "the "
		"window's keymap is not the virtual keyboard's (layout de): KEY_Y "
		"gives keysym 0x%x, not z", first_keysym(w.keymap, KEY_Y));

	wl_keyboard_destroy(w.keyboard);
	free(w.keymap);
	sc_app_finish(&w.app);
	zwp_virtual_keyboard_v1_destroy(d.keyboard);
	zwp_virtual_keyboard_manager_v1_destroy(d.manager);
	wl_seat_destroy(d.seat);
	wl_registry_destroy(registry);
	wl_display_roundtrip(d.display);
	wl_display_disconnect(d.display);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- bindings ----------------------------------------------------------- */

/*
 * Key bindings of the config (vitrail(5) bind), typed on a virtual
 * keyboard (layout us) into three windows of this process: focus next
 * and prev cycle the focus (the windows' wl_keyboard enter events say
 * which), maximize and fullscreen ask the focused window (its configure
 * says so, at the output's size), exec runs a command, close asks the
 * window to close; a bound key never reaches a window, an unbound one
 * does. A reload (the reload binding) changes a binding while the
 * windows stay; a config with a bad line is refused and the old bindings
 * still work; exit ends vitrail.
 */
struct bind_test {
	struct key_driver d;
	struct wl_registry *registry;
	struct key_window w[3];
	uint32_t time;
};

static void bind_dispatch(struct bind_test *t) {
	ck_assert_int_ge(wl_display_roundtrip(t->d.display), 0);
	for (int i = 0; i < 3; i++) {
		if (t->w[i].app.display != NULL) {
			ck_assert_int_ge(wl_display_roundtrip(t->w[i].app.display), 0);
		}
	}
}

static void bind_key(struct bind_test *t, uint32_t key, bool pressed) {
	zwp_virtual_keyboard_v1_key(t->d.keyboard, ++t->time, key,
		pressed ? WL_KEYBOARD_KEY_STATE_PRESSED :
		WL_KEYBOARD_KEY_STATE_RELEASED);
}

/* The modifier mask of modifier key key in layout us (a virtual keyboard
 * sends its modifiers' state itself, as wtype does): Shift is the
 * keymap's modifier 0, Mod1 (Alt) its modifier 3. */
static uint32_t mod_mask(uint32_t key) {
	return key == KEY_LEFTSHIFT ? 1u << 0 : key == KEY_LEFTALT ? 1u << 3 : 0;
}

/* Modifier keys mods[0..n) held while key is pressed and released; sent
 * only (vitrail may be gone after). */
static void bind_send(struct bind_test *t, const uint32_t *mods, int n,
		uint32_t key) {
	uint32_t mask = 0;
	for (int i = 0; i < n; i++) {
		bind_key(t, mods[i], true);
		mask |= mod_mask(mods[i]);
		zwp_virtual_keyboard_v1_modifiers(t->d.keyboard, mask, 0, 0, 0);
	}
	bind_key(t, key, true);
	bind_key(t, key, false);
	for (int i = n - 1; i >= 0; i--) {
		bind_key(t, mods[i], false);
		mask &= ~mod_mask(mods[i]);
		zwp_virtual_keyboard_v1_modifiers(t->d.keyboard, mask, 0, 0, 0);
	}
	wl_display_flush(t->d.display);
}

/* The same, and every window has had vitrail's answer. */
static void bind_type(struct bind_test *t, const uint32_t *mods, int n,
		uint32_t key) {
	bind_send(t, mods, n, key);
	bind_dispatch(t);
}

/* The driver's proxies, then its connection (after vitrail exited, too). */
static void bind_driver_finish(struct bind_test *t) {
	zwp_virtual_keyboard_v1_destroy(t->d.keyboard);
	zwp_virtual_keyboard_manager_v1_destroy(t->d.manager);
	wl_seat_destroy(t->d.seat);
	wl_registry_destroy(t->registry);
	wl_display_roundtrip(t->d.display);
	wl_display_disconnect(t->d.display);
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
			ck_assert_msg(focused < 0, "windows %d and %d both have the "
				"keyboard focus", focused, i);
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
	int64_t deadline = harness_now_ms() +
		harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	while (access(path, F_OK) != 0 && harness_now_ms() < deadline) {
		usleep(10000);
	}
	ck_assert_msg(access(path, F_OK) == 0, "%s did not appear", path);
}

START_TEST(test_input_bindings)
{
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
		"bind Alt+Escape exit\n", spawned) > 0);
	write_config(config, text);
	const char *args[] = { "--config", config, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){ .outputs = 1,
			.output_size = "640x480", .extra_args = args });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);

	struct bind_test t = { 0 };
	t.d.display = wl_display_connect(vitrail->socket);
	ck_assert(t.d.display != NULL);
	t.registry = wl_display_get_registry(t.d.display);
	wl_registry_add_listener(t.registry, &driver_registry_listener, &t.d);
	ck_assert_int_ge(wl_display_roundtrip(t.d.display), 0);
	ck_assert(t.d.seat != NULL && t.d.manager != NULL);
	t.d.keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(
		t.d.manager, t.d.seat);
	uint32_t size = 0;
	int fd = keymap_fd("us", &size);
	zwp_virtual_keyboard_v1_keymap(t.d.keyboard,
		WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, size);
	close(fd);
	/* the masks of mod_mask: the keymap's own indices */
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	struct xkb_keymap *keymap = xkb_keymap_new_from_names(context,
		&(struct xkb_rule_names){ .layout = "us" },
		XKB_KEYMAP_COMPILE_NO_FLAGS);
	ck_assert(keymap != NULL);
	ck_assert_int_eq(xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_SHIFT), 0);
	ck_assert_int_eq(xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_ALT), 3);
	xkb_keymap_unref(keymap);
	xkb_context_unref(context);
	ck_assert_int_ge(wl_display_roundtrip(t.d.display), 0);

	const char *names[3] = { "one", "two", "three" };
	for (int i = 0; i < 3; i++) {
		struct key_window *w = &t.w[i];
		ck_assert(sc_app_init(&w->app, names[i]));
		ck_assert_int_ge(wl_display_roundtrip(w->app.display), 0);
		w->keyboard = wl_seat_get_keyboard(w->app.seat);
		wl_keyboard_add_listener(w->keyboard, &keyboard_listener, w);
		ck_assert(sc_app_create_window(&w->app, names[i], names[i], 200,
			100, 0xff808080u));
		wl_surface_attach(w->app.surface, w->app.buffer->wl_buffer, 0, 0);
		wl_surface_damage_buffer(w->app.surface, 0, 0, 200, 100);
		wl_surface_commit(w->app.surface);
		ck_assert_int_ge(wl_display_roundtrip(w->app.display), 0);
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
		ck_assert_msg(!window_got_key(&t.w[i], KEY_TAB), "window %s got "
			"the bound Tab", names[i]);
	}
	/* an unbound key (and Alt itself) reaches the focused window */
	bind_type(&t, NULL, 0, KEY_A);
	ck_assert(window_got_key(&t.w[0], KEY_A));
	ck_assert(window_got_key(&t.w[0], KEY_LEFTALT));

	/* maximize, then fullscreen: configures at the output's size */
	bind_type(&t, alt, 1, KEY_M);
	ck_assert_msg(t.w[0].app.configure_maximized &&
		t.w[0].app.configure_width == 640 &&
		t.w[0].app.configure_height == 480, "maximize: configure %dx%d "
		"maximized %d", t.w[0].app.configure_width,
		t.w[0].app.configure_height, t.w[0].app.configure_maximized);
	bind_type(&t, alt, 1, KEY_M);
	ck_assert(!t.w[0].app.configure_maximized);
	bind_type(&t, alt, 1, KEY_F);
	ck_assert_msg(t.w[0].app.configure_fullscreen &&
		t.w[0].app.configure_width == 640, "fullscreen: configure %dx%d",
		t.w[0].app.configure_width, t.w[0].app.configure_height);
	bind_type(&t, alt, 1, KEY_F);
	ck_assert(!t.w[0].app.configure_fullscreen);

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
	ck_assert(asprintf(&text2, "bind Alt+w close\nbind Alt+r reload\n"
		"bind Alt+Escape exit\n") > 0);
	write_config(config, text2);
	bind_type(&t, alt, 1, KEY_R);
	t.w[0].app.running = true;
	bind_type(&t, alt, 1, KEY_Q);
	ck_assert_msg(t.w[0].app.running, "Alt+q still closes after the "
		"reload");
	ck_assert_msg(window_got_key(&t.w[0], KEY_Q), "Alt+q, unbound now, did "
		"not reach the window");
	bind_type(&t, alt, 1, KEY_W);
	ck_assert_msg(!t.w[0].app.running, "Alt+w does not close after the "
		"reload");
	/* a bad line: refused, the bindings stay */
	write_config(config, "bind Alt+w close\nbind Hyper+x exit\n");
	bind_type(&t, alt, 1, KEY_R);
	t.w[0].app.running = true;
	bind_type(&t, alt, 1, KEY_W);
	ck_assert_msg(!t.w[0].app.running, "the bad config replaced the "
		"bindings");
	char *log = harness_proc_log(vitrail->proc);
	ck_assert_msg(strstr(log, "bindings.conf:2: bind: unknown modifier") !=
		NULL, "no file:line error for the bad config in the log:\n%s",
		log);
	free(log);
	for (int i = 0; i < 3; i++) {
		harness_assert_alive(vitrail->proc);
		ck_assert_int_ge(wl_display_roundtrip(t.w[i].app.display), 0);
	}

	/* exit */
	bind_send(&t, alt, 1, KEY_ESC);
	ck_assert_msg(harness_proc_wait(vitrail->proc,
		harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS)), "vitrail did not "
		"exit on its exit binding");

	for (int i = 0; i < 3; i++) {
		wl_keyboard_destroy(t.w[i].keyboard);
		free(t.w[i].keymap);
		sc_app_finish(&t.w[i].app);
	}
	bind_driver_finish(&t);
	free(config);
	free(spawned);
	free(text);
	free(text2);
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

START_TEST(test_input_move_resize)
{
	struct harness *harness = harness_create("move_resize");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){ .outputs = 1,
			.output_size = "640x480" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct bind_test t = { 0 };
	t.d.display = wl_display_connect(vitrail->socket);
	ck_assert(t.d.display != NULL);
	t.registry = wl_display_get_registry(t.d.display);
	wl_registry_add_listener(t.registry, &driver_registry_listener, &t.d);
	ck_assert_int_ge(wl_display_roundtrip(t.d.display), 0);
	t.d.keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(
		t.d.manager, t.d.seat);
	uint32_t size = 0;
	int fd = keymap_fd("us", &size);
	zwp_virtual_keyboard_v1_keymap(t.d.keyboard,
		WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, size);
	close(fd);
	ck_assert_int_ge(wl_display_roundtrip(t.d.display), 0);

	struct sc_app *app = &t.w[0].app;
	ck_assert(sc_app_init(app, "drag"));
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	ck_assert(sc_app_create_window(app, "drag", "drag", 200, 100,
		0xff808080u));
	wl_surface_attach(app->surface, app->buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(app->surface, 0, 0, 200, 100);
	wl_surface_commit(app->surface);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const struct harness_window *w = window_now(vitrail);
	int x0 = w->x, y0 = w->y;
	ck_assert_int_eq(w->width, 200);

	/* Logo held (Mod4: the us keymap's modifier 6) */
	zwp_virtual_keyboard_v1_key(t.d.keyboard, ++t.time, KEY_LEFTMETA,
		WL_KEYBOARD_KEY_STATE_PRESSED);
	zwp_virtual_keyboard_v1_modifiers(t.d.keyboard, 1u << 6, 0, 0, 0);
	bind_dispatch(&t);
	harness_pointer_move(vitrail->conn, x0 + 50, y0 + 30);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	harness_pointer_move(vitrail->conn, x0 + 50 + 37, y0 + 30 + 21);
	harness_pointer_move(vitrail->conn, x0 + 50 + 70, y0 + 30 + 45);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	bind_dispatch(&t);
	w = window_now(vitrail);
	ck_assert_msg(w->x == x0 + 70 && w->y == y0 + 45, "the drag modifier's "
		"move put the window at %d,%d, not %d,%d", w->x, w->y, x0 + 70,
		y0 + 45);
	x0 = w->x;
	y0 = w->y;
	/* resize from the bottom-right quarter */
	harness_pointer_move(vitrail->conn, x0 + 180, y0 + 90);
	harness_pointer_button(vitrail->conn, BTN_RIGHT, true);
	harness_pointer_move(vitrail->conn, x0 + 180 + 40, y0 + 90 + 25);
	harness_pointer_button(vitrail->conn, BTN_RIGHT, false);
	bind_dispatch(&t);
	ck_assert_msg(app->configure_width == 240 &&
		app->configure_height == 125, "the resize asked for %dx%d, not "
		"240x125", app->configure_width, app->configure_height);
	ck_assert_msg(app->buttons_pressed == 0, "the drag modifier's buttons "
		"reached the client");
	zwp_virtual_keyboard_v1_modifiers(t.d.keyboard, 0, 0, 0, 0);
	zwp_virtual_keyboard_v1_key(t.d.keyboard, ++t.time, KEY_LEFTMETA,
		WL_KEYBOARD_KEY_STATE_RELEASED);
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
	ck_assert_msg(w->x == x0 - 15 && w->y == y0 + 33, "xdg_toplevel.move "
		"put the window at %d,%d, not %d,%d", w->x, w->y, x0 - 15,
		y0 + 33);
	x0 = w->x;
	y0 = w->y;
	/* a stale serial (that press is over): nothing moves */
	xdg_toplevel_move(app->xdg_toplevel, app->seat, app->button_serial);
	bind_dispatch(&t);
	harness_pointer_move(vitrail->conn, x0 + 100, y0 + 80);
	bind_dispatch(&t);
	w = window_now(vitrail);
	ck_assert_msg(w->x == x0 && w->y == y0, "a stale move serial moved the "
		"window to %d,%d", w->x, w->y);

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
	ck_assert_msg(app->configure_width == 170 &&
		app->configure_height == 90, "the client's resize asked for %dx%d, "
		"not 170x90 (its 200x100 less the motion)", app->configure_width,
		app->configure_height);
	w = window_now(vitrail);
	ck_assert_msg(w->x == x0 + 30 && w->y == y0 + 10, "the resized "
		"window's corner is at %d,%d, not %d,%d", w->x, w->y, x0 + 30,
		y0 + 10);

	free(t.w[0].keymap);
	sc_app_finish(app);
	bind_driver_finish(&t);
	harness_stop_vitrail(harness, vitrail);
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
			zwp_keyboard_shortcuts_inhibit_manager_v1_interface.name) == 0) {
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

START_TEST(test_input_bindings_held_back)
{
	struct harness *harness = harness_create("bindings_held_back");
	char *config = NULL, *spawned = NULL, *text = NULL;
	ck_assert(asprintf(&config, "%s/held.conf", harness->out_dir) > 0);
	ck_assert(asprintf(&spawned, "%s/spawned", harness->out_dir) > 0);
	ck_assert(asprintf(&text, "bind Alt+Return exec touch '%s'\n",
		spawned) > 0);
	write_config(config, text);
	const char *args[] = { "--config", config, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
		&(struct harness_vitrail_options){ .outputs = 1,
			.output_size = "640x480", .extra_args = args });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);

	struct bind_test t = { 0 };
	t.d.display = wl_display_connect(vitrail->socket);
	ck_assert(t.d.display != NULL);
	t.registry = wl_display_get_registry(t.d.display);
	wl_registry_add_listener(t.registry, &driver_registry_listener, &t.d);
	ck_assert_int_ge(wl_display_roundtrip(t.d.display), 0);
	ck_assert(t.d.seat != NULL && t.d.manager != NULL);
	t.d.keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(
		t.d.manager, t.d.seat);
	uint32_t size = 0;
	int fd = keymap_fd("us", &size);
	zwp_virtual_keyboard_v1_keymap(t.d.keyboard,
		WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, size);
	close(fd);
	ck_assert_int_ge(wl_display_roundtrip(t.d.display), 0);

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
	ck_assert_msg(inhibitor_active, "the focused window's inhibitor is not "
		"active");

	const uint32_t alt[] = { KEY_LEFTALT };
	bind_type(&t, alt, 1, KEY_ENTER);
	ck_assert_msg(count_key(w, KEY_ENTER) == 1, "the inhibiting window got "
		"%d Return presses, not 1", count_key(w, KEY_ENTER));
	zwp_keyboard_shortcuts_inhibitor_v1_destroy(inhibitor);
	bind_dispatch(&t);
	bind_type(&t, alt, 1, KEY_ENTER);
	wait_for_file(spawned);
	ck_assert_msg(count_key(w, KEY_ENTER) == 1, "the bound Return reached "
		"the window");
	ck_assert_int_eq(unlink(spawned), 0);

	/* locked: the lock surface gets the keys, the binding stays idle */
	const char *lock_argv[] = { getenv("VITRAIL_LOCK_CLIENT") != NULL ?
		getenv("VITRAIL_LOCK_CLIENT") : "vitrail-lock-client", NULL };
	struct harness_proc *locker = harness_spawn_client(harness, vitrail,
		lock_argv);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(10000);
	while (true) {
		char *log = harness_proc_log(locker);
		bool ready = strstr(log, "keyboard enter") != NULL;
		free(log);
		if (ready) {
			break;
		}
		harness_assert_alive(locker);
		ck_assert_msg(harness_now_ms() < deadline, "the lock surface got "
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
		ck_assert_msg(harness_now_ms() < deadline, "the lock surface did "
			"not get Return: a binding ran behind the lock");
		usleep(20000);
	}
	ck_assert_msg(count_key(w, KEY_ENTER) == 1, "the window behind the "
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

/* ---- runner --------------------------------------------------------------- */

static Suite *input_suite(void) {
	Suite *suite = suite_create("input");
	harness_add_case(suite, "virtual_pointer",
		test_input_virtual_pointer_reaches_probe, 180);
	harness_add_case(suite, "virtual_keyboard",
		test_input_virtual_keyboard_reaches_window, 120);
	harness_add_case(suite, "bindings", test_input_bindings, 120);
	harness_add_case(suite, "move_resize", test_input_move_resize, 120);
	harness_add_case(suite, "bindings_held_back",
		test_input_bindings_held_back, 60);
	return suite;
}

int main(int argc, char *argv[]) {
	return harness_run_suite(input_suite(), argc, argv);
}
