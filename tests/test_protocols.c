/*
 * The standard protocols vitrail offers (compositor/protocols/protocols.c,
 * session_lock.c, single_pixel.c), each checked against an oracle that
 * shares no code with vitrail: sway's own list of globals, the bytes a
 * client copied, the colours a client drew.
 *
 * globals: wayland-info inside vitrail lists every interface that sway 1.7
 *   offers on this machine (tests/data/sway-1.7-globals.txt, captured from
 *   sway itself) and vitrail's own (tests/data/vitrail-globals.txt), but
 *   those NOT_OFFERED names with the reason.
 * clipboard: wl-copy and wl-paste (wl-clipboard, through
 *   wlr-data-control) round-trip a text through the selection and the
 *   primary selection; exit 77 (skip) only when wl-copy is missing.
 * session_lock: vitrail-lock-client locks two outputs: every pixel of both
 *   shows its colour but the cursor's; a click on the window underneath
 *   reaches the lock surface, not the window; a second locker is refused
 *   (finished), and unlocking that refused lock is invalid_unlock;
 *   unlocking brings back the very pixels of before. A locker
 *   killed while locked leaves both outputs in one solid colour (the lock
 *   colour of vitrail(1), not the window's, not the background's);
 *   misbehaving lockers get their protocol errors (by interface and code)
 *   and the session stays locked; a new locker takes over and unlocks.
 *   An output unplugged while locked leaves the other locked and the
 *   locker able to unlock.
 * swaylock: the real locker (swaylock -c 3366cc) locks both outputs in
 *   its colour; killed, it leaves them #101010 (unlocking needs its PAM
 *   password, which a test cannot type). Exit 77 (skip) only without
 *   swaylock.
 * single_pixel: a window whose buffer is a wp_single_pixel_buffer_v1 scaled
 *   by a viewport: each of its pixels is the colour sent (opaque, then a
 *   translucent one over the background, blended by hand).
 * foreign_toplevel: a wlr-foreign-toplevel client lists two windows with
 *   their titles and app_ids, the focused one activated; activating the
 *   other one raises it (vitrail's window list, front first); minimizing
 *   it hides it (the list) and says minimized, unminimizing shows and
 *   activates it; close asks its client to close.
 * activation: of two windows, the one behind activates itself with a
 *   made-up token, then with a token it made itself without an input
 *   serial: neither changes the front window (no focus stealing); the
 *   front one, clicked, makes a token with that click's serial and its
 *   surface, and the one behind activates itself with it: it comes to
 *   the front (vitrail's window list, front first).
 * scale_and_type: fractional-scale-v1 says 120 (scale 1, the output's,
 *   in 120ths), and says it again when a window maps, with the
 *   wl_surface.enter of its output; content-type-v1 takes a type; a
 *   second object of
 *   either for the same surface is the protocol's error (by interface and
 *   code), and only that client goes.
 * text_input: an input method (input-method-v2) and a focused window
 *   with a text input (text-input-v3), two connections: enabling the text
 *   input activates the input method with the content type the window
 *   set; the input method's committed string reaches the window as its
 *   commit_string, byte for byte; disabling deactivates the method.
 * decoration: a window that asks nothing through xdg-decoration is
 *   configured server-side and placed with its decorations inside the
 *   output; the screenshot shows the title bar and border (vitrail(5)'s
 *   sizes and colours) at hand-computed pixels and the background right
 *   outside, white text where the title is and none once it is empty; a
 *   window that asks for client-side gets no decorations, and the first
 *   one's turn the unfocused colour.
 *   A click on its title bar focuses it again and brings it to the front.
 * decoration_input, decoration_cursor, decoration_fill, decoration_kde:
 *   see their tests below.
 * idle: a 200 ms KDE idle timer reports idle without input, and resumed
 *   at a virtual pointer's motion; while a mapped window holds an idle
 *   inhibitor, a 100 ms timer stays quiet for a second, and reports idle
 *   once the inhibitor is gone.
 * input_inhibitor: while another client holds wlr-input-inhibitor, a
 *   click on a window does not reach it; once released, one does.
 * pointer_lock: a window locks the pointer (pointer-constraints) and
 *   listens to relative motion; a virtual pointer moves by (7, 3) while
 *   it is locked: the window gets exactly that relative motion and no
 *   wl_pointer.motion (the cursor stayed); unlocked, a move by (5, 0)
 *   moves its pointer by 5 and comes as relative motion too. Confined to
 *   a rectangle, moves past its edges stop at them.
 * output_power: wlr-output-power-management turns HEADLESS-1 off (mode
 *   event off; the headless backend cannot disable outputs, so vitrail
 *   blanks it: every pixel black) and on again (mode on; the background
 *   shows again).
 *
 * Environment as test_integration.c, plus VITRAIL_LOCK_CLIENT and
 * VITRAIL_TEST_DATA (tests/data).
 */
#define _GNU_SOURCE // asprintf
#include <check.h>
#include <linux/input-event-codes.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <vitrail/renderer.h>
#include <xkbcommon/xkbcommon.h>

#include "content-type-v1-client-protocol.h"
#include "ext-session-lock-v1-client-protocol.h"
#include "fractional-scale-v1-client-protocol.h"
#include "harness.h"
#include "idle-inhibit-unstable-v1-client-protocol.h"
#include "input-method-unstable-v2-client-protocol.h"
#include "kde-idle-client-protocol.h"
#include "kde-server-decoration-client-protocol.h"
#include "pointer-constraints-unstable-v1-client-protocol.h"
#include "relative-pointer-unstable-v1-client-protocol.h"
#include "scene-client.h"
#include "single-pixel-buffer-v1-client-protocol.h"
#include "text-input-unstable-v3-client-protocol.h"
#include "viewporter-client-protocol.h"
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include "wlr-input-inhibitor-unstable-v1-client-protocol.h"
#include "wlr-output-power-management-unstable-v1-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"
#include "xdg-activation-v1-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"

/* Wait until the process's log contains text; false on timeout. */
static bool wait_log(struct harness_proc *proc, const char *text,
		int timeout_ms) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(timeout_ms);
	while (harness_now_ms() < deadline) {
		char *log = harness_proc_log(proc);
		bool found = strstr(log, text) != NULL;
		free(log);
		if (found) {
			return true;
		}
		harness_sleep_ms(20);
	}
	return false;
}

/* How many times text occurs in the process's log. */
static int count_log(struct harness_proc *proc, const char *text) {
	char *log = harness_proc_log(proc);
	int n = 0;
	for (const char *p = strstr(log, text); p != NULL;
			p = strstr(p + 1, text)) {
		n++;
	}
	free(log);
	return n;
}

/* ---- globals --------------------------------------------------------------
 */

/* Interfaces of sway's list that vitrail does not offer, and why. */
static const struct {
	const char *interface;
	const char *reason;
} not_offered[] = {
	{ "zwlr_export_dmabuf_manager_v1",
			"offered only where the output "
			"buffers are dmabufs (DRM); headless ones are shm" },
};

static bool is_not_offered(const char *interface) {
	for (size_t i = 0; i < sizeof(not_offered) / sizeof(not_offered[0]); i++) {
		if (strcmp(not_offered[i].interface, interface) == 0) {
			return true;
		}
	}
	return false;
}

/* Every interface of the data file is in wayland-info's log; returns how
 * many were checked, *missing lists the missing ones. */
static int check_listed(const char *data_file, const char *log, char *missing,
		size_t missing_len) {
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/%s",
					  harness_env_path("VITRAIL_TEST_DATA", "tests/data"),
					  data_file) > 0);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	char line[256];
	int checked = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, " \t\r\n#")] = '\0';
		if (line[0] == '\0' || is_not_offered(line)) {
			continue;
		}
		char quoted[300];
		snprintf(quoted, sizeof(quoted), "interface: '%s'", line);
		if (strstr(log, quoted) == NULL) {
			strncat(missing, " ", missing_len - strlen(missing) - 1);
			strncat(missing, line, missing_len - strlen(missing) - 1);
		}
		checked++;
	}
	fclose(f);
	free(path);
	return checked;
}

START_TEST(test_protocols_globals_of_sway) {
	struct harness *harness = harness_create("protocols-globals");
	harness_require_program("wayland-info", "wayland-utils");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	const char *argv[] = { "wayland-info", NULL };
	struct harness_proc *info = NULL;
	int status = harness_run_client(harness, vitrail, argv,
			HARNESS_WAIT_TIMEOUT_MS, &info);
	ck_assert_int_eq(status, 0);
	char *log = harness_proc_log(info);
	char missing[4096] = "";
	int sway =
			check_listed("sway-1.7-globals.txt", log, missing, sizeof(missing));
	ck_assert_msg(sway >= 30, "only %d interfaces in the sway list", sway);
	ck_assert_msg(missing[0] == '\0',
			"sway 1.7 offers, vitrail does "
			"not:%s",
			missing);
	int own =
			check_listed("vitrail-globals.txt", log, missing, sizeof(missing));
	ck_assert_msg(own >= 8, "only %d interfaces in vitrail's list", own);
	ck_assert_msg(missing[0] == '\0', "vitrail's own, missing:%s", missing);
	free(log);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- clipboard ------------------------------------------------------------
 */

/* wl-paste (with extra, e.g. "--primary") until it prints want; its last
 * output goes to the failure message. */
static void paste_until(struct harness *harness,
		struct harness_vitrail *vitrail, const char *extra, const char *want) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(10000);
	char *log = NULL;
	while (true) {
		const char *argv[] = { "wl-paste", "--no-newline", extra, NULL };
		struct harness_proc *proc = NULL;
		int status = harness_run_client(harness, vitrail, argv,
				HARNESS_WAIT_TIMEOUT_MS, &proc);
		free(log);
		log = harness_proc_log(proc);
		if (status == 0 && strstr(log, want) != NULL) {
			break;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"wl-paste %s printed "
				"'%s' (status %d), not '%s'",
				extra != NULL ? extra : "", log, status, want);
		harness_sleep_ms(50);
	}
	free(log);
}

START_TEST(test_protocols_clipboard_round_trip) {
	struct harness *harness = harness_create("protocols-clipboard");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	char text[64], primary[64];
	snprintf(text, sizeof(text), "vitrail-clipboard-%d-%lld", (int)getpid(),
			(long long)harness_now_ms());
	snprintf(primary, sizeof(primary), "vitrail-primary-%d-%lld", (int)getpid(),
			(long long)harness_now_ms());
	const char *copy_argv[] = { "wl-copy", "--foreground", text, NULL };
	struct harness_proc *copy =
			harness_spawn_client(harness, vitrail, copy_argv);
	paste_until(harness, vitrail, NULL, text);
	const char *primary_argv[] = { "wl-copy", "--foreground", "--primary",
		primary, NULL };
	struct harness_proc *copy_primary =
			harness_spawn_client(harness, vitrail, primary_argv);
	paste_until(harness, vitrail, "--primary", primary);
	// the selection is still the first text: the two are apart
	paste_until(harness, vitrail, NULL, text);
	harness_proc_stop(copy);
	harness_proc_stop(copy_primary);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- session lock ---------------------------------------------------------
 */

#define LOCK_W 320
#define LOCK_H 240
#define WINDOW_ARGB 0xff20c040u // the window under the lock
#define LOCK_A 0xff3366ccu
#define LOCK_B 0xffcc6633u
// vitrail(1): a locked session whose locker died shows #101010
#define LOCK_DEAD 0xff101010u
// where the pointer waits for screenshots (layout), on HEADLESS-2
#define PARK_X 600
#define PARK_Y 200

/* Whether output pixel (x, y) of output index `output` may show the
 * cursor (parked at PARK_X, PARK_Y). */
static bool near_cursor(int output, int32_t x, int32_t y) {
	int32_t lx = x + output * LOCK_W;
	return lx >= PARK_X - 32 && lx < PARK_X + 64 && y >= PARK_Y - 32 &&
			y < PARK_Y + 64;
}

static uint32_t *screenshot(struct harness *harness,
		struct harness_vitrail *vitrail, int output, const char *name) {
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/%s-%d.png", harness->out_dir, name,
					  output + 1) > 0);
	char out_name[32];
	snprintf(out_name, sizeof(out_name), "HEADLESS-%d", output + 1);
	int status = harness_grim(harness, vitrail, out_name, path);
	ck_assert_msg(status == 0, "grim failed with status %d", status);
	int32_t w = 0, h = 0;
	uint32_t *pixels = vr_png_read(path, &w, &h);
	ck_assert_msg(pixels != NULL && w == LOCK_W && h == LOCK_H,
			"cannot read %s (%dx%d)", path, w, h);
	free(path);
	return pixels;
}

/* Every pixel of both outputs but the cursor's is argb. */
static void check_solid(struct harness *harness,
		struct harness_vitrail *vitrail, uint32_t argb, const char *name) {
	harness_settle(vitrail->conn);
	for (int o = 0; o < 2; o++) {
		uint32_t *pixels = screenshot(harness, vitrail, o, name);
		for (int32_t y = 0; y < LOCK_H; y++) {
			for (int32_t x = 0; x < LOCK_W; x++) {
				if (near_cursor(o, x, y)) {
					continue;
				}
				ck_assert_msg(pixels[y * LOCK_W + x] == argb,
						"%s: "
						"HEADLESS-%d pixel (%d, %d) is 0x%08x, not 0x%08x",
						name, o + 1, x, y, pixels[y * LOCK_W + x], argb);
			}
		}
		free(pixels);
	}
}

/* Both outputs are pixel for pixel as in before[] (cursor included: it
 * is parked at the same place). */
static void check_same(struct harness *harness, struct harness_vitrail *vitrail,
		uint32_t *before[2], const char *name) {
	harness_settle(vitrail->conn);
	for (int o = 0; o < 2; o++) {
		uint32_t *pixels = screenshot(harness, vitrail, o, name);
		for (int32_t i = 0; i < LOCK_W * LOCK_H; i++) {
			ck_assert_msg(pixels[i] == before[o][i],
					"%s: HEADLESS-%d "
					"pixel (%d, %d) is 0x%08x, 0x%08x before the lock",
					name, o + 1, i % LOCK_W, i / LOCK_W, pixels[i],
					before[o][i]);
		}
		free(pixels);
	}
}

static int taps;

static void count_tap(struct sc_app *app, double x, double y) {
	taps++;
}

static struct harness_proc *start_locker(struct harness *harness,
		struct harness_vitrail *vitrail, uint32_t argb, const char *misbehave) {
	char color[16];
	snprintf(color, sizeof(color), "%08x", argb);
	const char *argv[] = { harness_env_path("VITRAIL_LOCK_CLIENT",
								   "vitrail-lock-client"),
		"--color", color, misbehave != NULL ? "--misbehave" : NULL, misbehave,
		NULL };
	return harness_spawn_client(harness, vitrail, argv);
}

/* A locker that locks (it takes over an abandoned lock) and draws on both
 * outputs. */
static struct harness_proc *lock_with(struct harness *harness,
		struct harness_vitrail *vitrail, uint32_t argb) {
	struct harness_proc *locker = start_locker(harness, vitrail, argb, NULL);
	ck_assert_msg(wait_log(locker, "locked", 10000), "no locked event");
	int64_t deadline = harness_now_ms() + harness_scaled_ms(10000);
	while (count_log(locker, "drawn ") < 2) {
		harness_assert_alive(locker);
		ck_assert_msg(harness_now_ms() < deadline,
				"the locker did not "
				"draw on both outputs");
		harness_sleep_ms(20);
	}
	return locker;
}

/* A misbehaving locker ends with that protocol error. */
static void check_misbehaves(struct harness *harness,
		struct harness_vitrail *vitrail, const char *misbehave,
		const char *error) {
	struct harness_proc *locker =
			start_locker(harness, vitrail, LOCK_B, misbehave);
	ck_assert_msg(harness_proc_wait(locker, 15000), "%s: still running",
			misbehave);
	char *log = harness_proc_log(locker);
	ck_assert_msg(strstr(log, error) != NULL,
			"%s: expected '%s', the "
			"locker printed:\n%s",
			misbehave, error, log);
	free(log);
}

START_TEST(test_protocols_session_lock) {
	struct harness *harness = harness_create("protocols-session-lock");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 2,
					.output_size = "320x240" });
	struct harness_conn *conn = vitrail->conn;
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "lock-window"));
	app.on_tap = count_tap;
	ck_assert(sc_app_create_window(&app, "lock-window", "under the lock", 120,
			80, WINDOW_ARGB));
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const struct harness_window *w = harness_find_window(conn, "lock-window");
	ck_assert(w != NULL);
	int32_t wx = w->x + 60, wy = w->y + 40;

	harness_pointer_move(conn, PARK_X, PARK_Y);
	harness_settle(conn);
	uint32_t *before[2];
	for (int o = 0; o < 2; o++) {
		before[o] = screenshot(harness, vitrail, o, "before");
	}

	// locked: the locker's colour everywhere, input to it alone
	struct harness_proc *locker = lock_with(harness, vitrail, LOCK_A);
	check_solid(harness, vitrail, LOCK_A, "locked");
	harness_pointer_move(conn, wx, wy);
	harness_pointer_button(conn, 0x110, true); // BTN_LEFT
	harness_pointer_button(conn, 0x110, false);
	ck_assert_msg(wait_log(locker, "pointer button", 10000),
			"the click "
			"did not reach the lock surface");
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(taps == 0, "the window under the lock got %d clicks", taps);
	// a second locker is refused while this one holds the lock
	struct harness_proc *second = start_locker(harness, vitrail, LOCK_B, NULL);
	ck_assert(harness_proc_wait(second, 15000));
	ck_assert_msg(wait_log(second, "finished", 1000),
			"a second lock was "
			"not refused");
	// and unlocking a refused lock is an error
	check_misbehaves(harness, vitrail, "unlock-refused",
			"protocol error ext_session_lock_v1 1");

	// unlocked: as before
	harness_pointer_move(conn, PARK_X, PARK_Y);
	harness_proc_signal(locker, SIGUSR1);
	ck_assert(harness_proc_wait(locker, 15000));
	ck_assert_msg(wait_log(locker, "unlocked", 1000), "no unlock");
	check_same(harness, vitrail, before, "unlocked");
	// the window takes clicks again (the check above can fail)
	harness_pointer_move(conn, wx, wy);
	harness_pointer_button(conn, 0x110, true);
	harness_pointer_button(conn, 0x110, false);
	harness_settle(conn);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(taps == 1, "the unlocked window got %d clicks", taps);
	harness_pointer_move(conn, PARK_X, PARK_Y);

	// the locker dies while locked: locked still, in vitrail's colour
	locker = lock_with(harness, vitrail, LOCK_B);
	check_solid(harness, vitrail, LOCK_B, "locked-again");
	harness_proc_signal(locker, SIGKILL);
	ck_assert(harness_proc_wait(locker, 15000));
	check_solid(harness, vitrail, LOCK_DEAD, "locker-died");
	harness_pointer_move(conn, wx, wy);
	harness_pointer_button(conn, 0x110, true);
	harness_pointer_button(conn, 0x110, false);
	harness_settle(conn);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(taps == 1,
			"the window got a click while the session "
			"was locked without a locker");
	harness_pointer_move(conn, PARK_X, PARK_Y);

	// lockers that break the protocol get its errors; still locked
	check_misbehaves(harness, vitrail, "dup-output",
			"protocol error ext_session_lock_v1 3");
	check_misbehaves(harness, vitrail, "destroy-locked",
			"protocol error ext_session_lock_v1 0");
	check_misbehaves(harness, vitrail, "commit-before-ack",
			"protocol error ext_session_lock_surface_v1 0");
	check_misbehaves(harness, vitrail, "null-buffer",
			"protocol error ext_session_lock_surface_v1 1");
	check_misbehaves(harness, vitrail, "wrong-size",
			"protocol error ext_session_lock_surface_v1 2");
	check_solid(harness, vitrail, LOCK_DEAD, "after-errors");

	// a new locker takes over, and unlocks
	locker = lock_with(harness, vitrail, LOCK_A);
	check_solid(harness, vitrail, LOCK_A, "taken-over");
	harness_proc_signal(locker, SIGUSR1);
	ck_assert(harness_proc_wait(locker, 15000));
	ck_assert_msg(wait_log(locker, "unlocked", 1000), "no unlock");
	check_same(harness, vitrail, before, "unlocked-again");

	// an output unplugged while locked: the other stays locked, the
	// locker lives on and unlocks; then the window shows again
	harness_pointer_move(conn, 300, 220);
	locker = lock_with(harness, vitrail, LOCK_A);
	harness_unplug_output(conn, "HEADLESS-2");
	harness_settle(conn);
	harness_assert_alive(locker);
	uint32_t *pixels = screenshot(harness, vitrail, 0, "unplugged");
	for (int32_t y = 0; y < 200; y++) {
		for (int32_t x = 0; x < 280; x++) {
			ck_assert_msg(pixels[y * LOCK_W + x] == LOCK_A,
					"unplugged: "
					"pixel (%d, %d) is 0x%08x",
					x, y, pixels[y * LOCK_W + x]);
		}
	}
	free(pixels);
	harness_proc_signal(locker, SIGUSR1);
	ck_assert(harness_proc_wait(locker, 15000));
	ck_assert_msg(wait_log(locker, "unlocked", 1000), "no unlock");
	harness_settle(conn);
	pixels = screenshot(harness, vitrail, 0, "unplugged-unlocked");
	ck_assert_uint_eq(pixels[wy * LOCK_W + wx], WINDOW_ARGB);
	free(pixels);

	free(before[0]);
	free(before[1]);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- a lock from another program -------------------------------------- */

static void other_locked(void *data, struct ext_session_lock_v1 *lock) {
	*(int *)data = 1;
}

static void other_finished(void *data, struct ext_session_lock_v1 *lock) {
	*(int *)data = 2;
}

static const struct ext_session_lock_v1_listener other_lock_listener = {
	.locked = other_locked,
	.finished = other_finished,
};

static void other_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	if (strcmp(interface, ext_session_lock_manager_v1_interface.name) == 0) {
		*(struct ext_session_lock_manager_v1 **)data = wl_registry_bind(
				registry, name, &ext_session_lock_manager_v1_interface, 1);
	}
}

static void other_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener other_registry_listener = {
	.global = other_global,
	.global_remove = other_global_remove,
};

/* This program (not the locker's) asks for a lock: 1 locked, 2 finished,
 * 0 neither after two round trips. */
static int lock_from_this_program(struct harness_vitrail *vitrail) {
	struct wl_display *display = wl_display_connect(vitrail->socket);
	ck_assert_ptr_nonnull(display);
	struct ext_session_lock_manager_v1 *manager = NULL;
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &other_registry_listener, &manager);
	ck_assert_int_ge(wl_display_roundtrip(display), 0);
	ck_assert_ptr_nonnull(manager);
	int state = 0;
	struct ext_session_lock_v1 *lock =
			ext_session_lock_manager_v1_lock(manager);
	ext_session_lock_v1_add_listener(lock, &other_lock_listener, &state);
	ck_assert_int_ge(wl_display_roundtrip(display), 0);
	ck_assert_int_ge(wl_display_roundtrip(display), 0);
	if (state == 1) {
		ext_session_lock_v1_unlock_and_destroy(lock);
	} else {
		ext_session_lock_v1_destroy(lock);
	}
	ext_session_lock_manager_v1_destroy(manager);
	wl_registry_destroy(registry);
	wl_display_roundtrip(display);
	wl_display_disconnect(display);
	return state;
}

/* The milliseconds a locker waited for `locked` (its "locked N ms after
 * the request" line). */
static long locked_after_ms(struct harness_proc *locker) {
	char *log = harness_proc_log(locker);
	const char *line = strstr(log, "locked ");
	long ms = -1;
	ck_assert_msg(line != NULL && sscanf(line, "locked %ld ms", &ms) == 1,
			"no locked line in:\n%s", log);
	free(log);
	return ms;
}

/*
 * `locked` comes only once every output has presented a frame that shows
 * the lock (the protocol's rule; before, it came inside the lock request
 * and a client capturing the screen at that moment saw the desktop): the
 * frames after the lock take 800 ms to render (vitrail_test_v1.slow_frames,
 * the main thread free), so `locked` waits at least that long. And once
 * the locker died, only the same program may take over: a lock from this
 * test program gets `finished`, vitrail-lock-client's gets `locked`.
 */
START_TEST(test_protocols_lock_presented) {
	struct harness *harness = harness_create("protocols-lock-presented");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 2,
					.output_size = "320x240" });
	struct harness_conn *conn = vitrail->conn;
	harness_pointer_move(conn, PARK_X, PARK_Y);
	harness_settle(conn);
	uint32_t costs[8];
	for (size_t i = 0; i < 8; i++) {
		costs[i] = 800000;
	}
	harness_slow_frames(conn, costs, 8);
	struct harness_proc *locker = start_locker(harness, vitrail, LOCK_A, NULL);
	ck_assert_msg(wait_log(locker, "locked ", 15000), "no locked event");
	long ms = locked_after_ms(locker);
	fprintf(stderr, "locked %ld ms after the request (frames of 800 ms)\n", ms);
	ck_assert_msg(ms >= 750,
			"locked %ld ms after the request, before a "
			"frame showing the lock (800 ms to render) was presented",
			ms);
	harness_slow_frames(conn, (uint32_t[]){ 0 }, 1);
	check_solid(harness, vitrail, LOCK_A, "locked");

	// the locker dies: another program may not take over, it may
	harness_proc_signal(locker, SIGKILL);
	ck_assert(harness_proc_wait(locker, 15000));
	check_solid(harness, vitrail, LOCK_DEAD, "locker-died");
	ck_assert_msg(lock_from_this_program(vitrail) == 2,
			"another program "
			"was not refused the abandoned lock");
	check_solid(harness, vitrail, LOCK_DEAD, "other-refused");
	locker = lock_with(harness, vitrail, LOCK_B);
	check_solid(harness, vitrail, LOCK_B, "taken-over");
	harness_proc_signal(locker, SIGUSR1);
	ck_assert(harness_proc_wait(locker, 15000));
	ck_assert_msg(wait_log(locker, "unlocked", 1000), "no unlock");
	// unlocked, any program may lock
	ck_assert_msg(lock_from_this_program(vitrail) != 2,
			"a lock of an "
			"unlocked session was refused");
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

START_TEST(test_protocols_swaylock) {
	struct harness *harness = harness_create("protocols-swaylock");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 2,
					.output_size = "320x240" });
	harness_pointer_move(vitrail->conn, PARK_X, PARK_Y);
	const char *argv[] = { "swaylock", "-c", "3366cc", NULL };
	struct harness_proc *swaylock =
			harness_spawn_client(harness, vitrail, argv);
	// locked once both outputs show its colour
	int64_t deadline = harness_now_ms() + harness_scaled_ms(15000);
	while (true) {
		harness_assert_alive(swaylock);
		harness_settle(vitrail->conn);
		uint32_t *pixels = screenshot(harness, vitrail, 1, "waiting");
		bool done = pixels[10 * LOCK_W + 10] == LOCK_A;
		free(pixels);
		if (done) {
			break;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"swaylock did not "
				"lock");
		harness_sleep_ms(100);
	}
	check_solid(harness, vitrail, LOCK_A, "swaylock");
	harness_proc_signal(swaylock, SIGKILL);
	ck_assert(harness_proc_wait(swaylock, 15000));
	check_solid(harness, vitrail, LOCK_DEAD, "swaylock-killed");
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- single-pixel buffers -------------------------------------------------
 */

struct extra_globals {
	struct wp_single_pixel_buffer_manager_v1 *single_pixel;
	struct wp_viewporter *viewporter;
	struct zwlr_foreign_toplevel_manager_v1 *foreign;
	struct zwlr_output_power_manager_v1 *power;
	struct wl_output *output; // the first
	bool want_foreign; // bind the foreign-toplevel manager (it sends
					   // handles at once)
};

static void extra_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct extra_globals *g = data;
	if (strcmp(interface, wp_single_pixel_buffer_manager_v1_interface.name) ==
			0) {
		g->single_pixel = wl_registry_bind(registry, name,
				&wp_single_pixel_buffer_manager_v1_interface, 1);
	} else if (strcmp(interface, wp_viewporter_interface.name) == 0) {
		g->viewporter =
				wl_registry_bind(registry, name, &wp_viewporter_interface, 1);
	} else if (g->want_foreign &&
			strcmp(interface,
					zwlr_foreign_toplevel_manager_v1_interface.name) == 0) {
		g->foreign = wl_registry_bind(registry, name,
				&zwlr_foreign_toplevel_manager_v1_interface, 3);
	} else if (strcmp(interface, zwlr_output_power_manager_v1_interface.name) ==
			0) {
		g->power = wl_registry_bind(registry, name,
				&zwlr_output_power_manager_v1_interface, 1);
	} else if (strcmp(interface, wl_output_interface.name) == 0 &&
			g->output == NULL) {
		g->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
	}
}

static void extra_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener extra_registry_listener = {
	.global = extra_global,
	.global_remove = extra_global_remove,
};

/* Destroy what bind_extra bound (and the registry) after a round trip. */
static void extra_finish(struct sc_app *app, struct extra_globals *g,
		struct wl_registry *registry) {
	if (g->single_pixel != NULL) {
		wp_single_pixel_buffer_manager_v1_destroy(g->single_pixel);
	}
	if (g->viewporter != NULL) {
		wp_viewporter_destroy(g->viewporter);
	}
	if (g->foreign != NULL) {
		zwlr_foreign_toplevel_manager_v1_stop(g->foreign);
		wl_display_roundtrip(app->display);
		zwlr_foreign_toplevel_manager_v1_destroy(g->foreign);
	}
	if (g->power != NULL) {
		zwlr_output_power_manager_v1_destroy(g->power);
	}
	if (g->output != NULL) {
		wl_output_destroy(g->output);
	}
	wl_registry_destroy(registry);
	wl_display_roundtrip(app->display);
}

static struct wl_registry *bind_extra(struct sc_app *app,
		struct extra_globals *g, bool want_foreign) {
	*g = (struct extra_globals){ .want_foreign = want_foreign };
	struct wl_registry *registry = wl_display_get_registry(app->display);
	wl_registry_add_listener(registry, &extra_registry_listener, g);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	return registry;
}

#define SP_W 150
#define SP_H 90

/* Every pixel of the window's place on HEADLESS-1 is argb (within
 * tolerance), and the one left of it is not. */
static void check_window_pixels(struct harness *harness,
		struct harness_vitrail *vitrail, const char *app_id, uint32_t argb,
		int tolerance, const char *name) {
	struct harness_conn *conn = vitrail->conn;
	harness_settle(conn);
	harness_list_windows(conn, NULL);
	const struct harness_window *w = harness_find_window(conn, app_id);
	ck_assert(w != NULL);
	ck_assert_msg(w->width == SP_W && w->height == SP_H,
			"window %dx%d, "
			"not the viewport's %dx%d",
			w->width, w->height, SP_W, SP_H);
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/%s.png", harness->out_dir, name) > 0);
	ck_assert_int_eq(harness_grim(harness, vitrail, "HEADLESS-1", path), 0);
	int32_t iw = 0, ih = 0;
	uint32_t *pixels = vr_png_read(path, &iw, &ih);
	ck_assert(pixels != NULL);
	for (int32_t y = w->y; y < w->y + SP_H; y++) {
		for (int32_t x = w->x; x < w->x + SP_W; x++) {
			ck_assert(x >= 0 && x < iw && y >= 0 && y < ih);
			uint32_t actual = pixels[y * iw + x];
			for (int shift = 0; shift < 32; shift += 8) {
				int d = abs((int)((actual >> shift) & 0xff) -
						(int)((argb >> shift) & 0xff));
				ck_assert_msg(d <= tolerance,
						"%s: pixel (%d, %d) is "
						"0x%08x, not 0x%08x; %s",
						name, x, y, actual, argb, path);
			}
		}
	}
	free(pixels);
	free(path);
}

START_TEST(test_protocols_single_pixel_buffer) {
	struct harness *harness = harness_create("protocols-single-pixel");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "single-pixel"));
	struct extra_globals g;
	struct wl_registry *registry = bind_extra(&app, &g, false);
	ck_assert_msg(g.single_pixel != NULL && g.viewporter != NULL,
			"no wp_single_pixel_buffer_manager_v1 or wp_viewporter");
	ck_assert(sc_app_create_window(&app, "single-pixel", "single pixel", SP_W,
			SP_H, 0xffffffff));
	struct wp_viewport *viewport =
			wp_viewporter_get_viewport(g.viewporter, app.surface);
	wp_viewport_set_destination(viewport, SP_W, SP_H);
	// opaque: r 0x20, g 0xc0, b 0x60 (each channel c * 0x01010101)
	struct wl_buffer *opaque =
			wp_single_pixel_buffer_manager_v1_create_u32_rgba_buffer(
					g.single_pixel, 0x20202020u, 0xc0c0c0c0u, 0x60606060u,
					0xffffffffu);
	wl_surface_attach(app.surface, opaque, 0, 0);
	wl_surface_damage_buffer(app.surface, 0, 0, 1, 1);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	check_window_pixels(harness, vitrail, "single-pixel", 0xff20c060u, 0,
			"opaque");

	// premultiplied red 0x40 at alpha 0x80 over the default background
	// (0x29, 0x30, 0x3a): s + b * (1 - 128 / 255) = 84, 24, 29
	struct wl_buffer *translucent =
			wp_single_pixel_buffer_manager_v1_create_u32_rgba_buffer(
					g.single_pixel, 0x40404040u, 0, 0, 0x80808080u);
	wl_surface_attach(app.surface, translucent, 0, 0);
	wl_surface_damage_buffer(app.surface, 0, 0, 1, 1);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	check_window_pixels(harness, vitrail, "single-pixel",
			0xff000000u | 84u << 16 | 24u << 8 | 29u, 1, "translucent");

	wl_buffer_destroy(opaque);
	wl_buffer_destroy(translucent);
	wp_viewport_destroy(viewport);
	extra_finish(&app, &g, registry);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- foreign toplevels ----------------------------------------------------
 */

#define MAX_HANDLES 8

struct handle {
	struct zwlr_foreign_toplevel_handle_v1 *handle;
	char title[64], app_id[64];
	bool activated, minimized, closed, done;
};

static struct handle handles[MAX_HANDLES];
static int nhandles;

static void handle_title(void *data, struct zwlr_foreign_toplevel_handle_v1 *h,
		const char *title) {
	struct handle *handle = data;
	snprintf(handle->title, sizeof(handle->title), "%s", title);
}

static void handle_app_id(void *data, struct zwlr_foreign_toplevel_handle_v1 *h,
		const char *app_id) {
	struct handle *handle = data;
	snprintf(handle->app_id, sizeof(handle->app_id), "%s", app_id);
}

static void handle_output_enter(void *data,
		struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_output *o) {
}

static void handle_output_leave(void *data,
		struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_output *o) {
}

static void handle_state(void *data, struct zwlr_foreign_toplevel_handle_v1 *h,
		struct wl_array *state) {
	struct handle *handle = data;
	handle->activated = false;
	handle->minimized = false;
	uint32_t *s;
	wl_array_for_each(s, state) {
		if (*s == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED) {
			handle->activated = true;
		} else if (*s == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_MINIMIZED) {
			handle->minimized = true;
		}
	}
}

static void handle_done(void *data, struct zwlr_foreign_toplevel_handle_v1 *h) {
	struct handle *handle = data;
	handle->done = true;
}

static void handle_closed(void *data,
		struct zwlr_foreign_toplevel_handle_v1 *h) {
	struct handle *handle = data;
	handle->closed = true;
}

static void handle_parent(void *data, struct zwlr_foreign_toplevel_handle_v1 *h,
		struct zwlr_foreign_toplevel_handle_v1 *parent) {
}

static const struct zwlr_foreign_toplevel_handle_v1_listener handle_listener = {
	.title = handle_title,
	.app_id = handle_app_id,
	.output_enter = handle_output_enter,
	.output_leave = handle_output_leave,
	.state = handle_state,
	.done = handle_done,
	.closed = handle_closed,
	.parent = handle_parent,
};

static void manager_toplevel(void *data,
		struct zwlr_foreign_toplevel_manager_v1 *manager,
		struct zwlr_foreign_toplevel_handle_v1 *h) {
	ck_assert(nhandles < MAX_HANDLES);
	struct handle *handle = &handles[nhandles++];
	handle->handle = h;
	zwlr_foreign_toplevel_handle_v1_add_listener(h, &handle_listener, handle);
}

static void manager_finished(void *data,
		struct zwlr_foreign_toplevel_manager_v1 *manager) {
}

static const struct zwlr_foreign_toplevel_manager_v1_listener
		manager_listener = {
			.toplevel = manager_toplevel,
			.finished = manager_finished,
		};

static struct handle *find_handle(const char *app_id) {
	for (int i = 0; i < nhandles; i++) {
		if (!handles[i].closed && strcmp(handles[i].app_id, app_id) == 0) {
			return &handles[i];
		}
	}
	return NULL;
}

START_TEST(test_protocols_foreign_toplevel) {
	struct harness *harness = harness_create("protocols-foreign-toplevel");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480" });
	struct harness_conn *conn = vitrail->conn;
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app first = { 0 }, second = { 0 }, lister = { 0 };
	ck_assert(sc_app_init(&first, "first"));
	ck_assert(sc_app_create_window(&first, "vitrail-first", "First window", 100,
			80, 0xffff0000));
	wl_surface_commit(first.surface);
	ck_assert_int_ge(wl_display_roundtrip(first.display), 0);
	ck_assert(sc_app_init(&second, "second"));
	ck_assert(sc_app_create_window(&second, "vitrail-second", "Second window",
			100, 80, 0xff0000ff));
	wl_surface_commit(second.surface);
	ck_assert_int_ge(wl_display_roundtrip(second.display), 0);
	harness_wait_for_window_count(conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);

	ck_assert(sc_app_init(&lister, "lister"));
	struct extra_globals g;
	struct wl_registry *registry = bind_extra(&lister, &g, true);
	ck_assert_msg(g.foreign != NULL, "no zwlr_foreign_toplevel_manager_v1");
	zwlr_foreign_toplevel_manager_v1_add_listener(g.foreign, &manager_listener,
			NULL);
	ck_assert_int_ge(wl_display_roundtrip(lister.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(lister.display), 0);
	ck_assert_int_eq(nhandles, 2);
	struct handle *h1 = find_handle("vitrail-first");
	struct handle *h2 = find_handle("vitrail-second");
	ck_assert_msg(h1 != NULL && h2 != NULL, "handles: '%s' '%s'",
			handles[0].app_id, handles[1].app_id);
	ck_assert_str_eq(h1->title, "First window");
	ck_assert_str_eq(h2->title, "Second window");
	ck_assert(h1->done && h2->done);
	// the last mapped has the focus
	ck_assert_msg(!h1->activated && h2->activated,
			"activated: first %d, "
			"second %d",
			h1->activated, h2->activated);

	// activate the first: it comes to the front
	zwlr_foreign_toplevel_handle_v1_activate(h1->handle, lister.seat);
	ck_assert_int_ge(wl_display_roundtrip(lister.display), 0);
	harness_settle(conn);
	ck_assert_int_ge(wl_display_roundtrip(lister.display), 0);
	ck_assert_msg(h1->activated && !h2->activated,
			"after activate: "
			"first %d, second %d",
			h1->activated, h2->activated);
	const struct harness_window *windows = NULL;
	ck_assert_int_eq(harness_list_windows(conn, &windows), 2);
	ck_assert_msg(strcmp(windows[0].app_id, "vitrail-first") == 0,
			"front window: %s", windows[0].app_id);

	// minimize the first: it is no longer shown, its state says so and
	// the second is activated; unminimized, it is shown, activated, in
	// front
	zwlr_foreign_toplevel_handle_v1_set_minimized(h1->handle);
	ck_assert_int_ge(wl_display_roundtrip(lister.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(lister.display), 0);
	ck_assert_msg(h1->minimized && !h1->activated && h2->activated,
			"after set_minimized: first minimized %d activated %d, second "
			"activated %d",
			h1->minimized, h1->activated, h2->activated);
	ck_assert_int_eq(harness_list_windows(conn, &windows), 1);
	ck_assert_str_eq(windows[0].app_id, "vitrail-second");
	zwlr_foreign_toplevel_handle_v1_unset_minimized(h1->handle);
	ck_assert_int_ge(wl_display_roundtrip(lister.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(lister.display), 0);
	ck_assert_msg(!h1->minimized && h1->activated && !h2->activated,
			"after unset_minimized: first minimized %d activated %d, second "
			"activated %d",
			h1->minimized, h1->activated, h2->activated);
	ck_assert_int_eq(harness_list_windows(conn, &windows), 2);
	ck_assert_str_eq(windows[0].app_id, "vitrail-first");

	// close the second: its client hears close
	zwlr_foreign_toplevel_handle_v1_close(h2->handle);
	ck_assert_int_ge(wl_display_roundtrip(lister.display), 0);
	second.running = true;
	ck_assert_int_ge(wl_display_roundtrip(second.display), 0);
	ck_assert_msg(!second.running, "the second window got no close");
	sc_app_finish(&second);
	harness_wait_for_window_count(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	ck_assert_int_ge(wl_display_roundtrip(lister.display), 0);
	ck_assert_msg(h2->closed, "no closed event for the second window");

	for (int i = 0; i < nhandles; i++) {
		zwlr_foreign_toplevel_handle_v1_destroy(handles[i].handle);
	}
	extra_finish(&lister, &g, registry);
	sc_app_finish(&lister);
	sc_app_finish(&first);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- xdg-activation -------------------------------------------------------
 */

static struct xdg_activation_v1 *activation;
static char *activation_token;

static void activation_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	if (strcmp(interface, xdg_activation_v1_interface.name) == 0) {
		activation = wl_registry_bind(registry, name,
				&xdg_activation_v1_interface, 1);
	}
}

static const struct wl_registry_listener activation_registry_listener = {
	.global = activation_global,
	.global_remove = extra_global_remove,
};

static void token_handle_done(void *data, struct xdg_activation_token_v1 *token,
		const char *value) {
	free(activation_token);
	activation_token = strdup(value);
}

static const struct xdg_activation_token_v1_listener token_listener = {
	.done = token_handle_done,
};

static const char *front_window(struct harness_conn *conn) {
	const struct harness_window *windows = NULL;
	ck_assert_int_eq(harness_list_windows(conn, &windows), 2);
	return windows[0].app_id;
}

START_TEST(test_protocols_activation) {
	struct harness *harness = harness_create("protocols-activation");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480" });
	struct harness_conn *conn = vitrail->conn;
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app first = { 0 }, second = { 0 };
	ck_assert(sc_app_init(&first, "first"));
	ck_assert(sc_app_create_window(&first, "vitrail-first", "first", 100, 80,
			0xffff0000));
	wl_surface_commit(first.surface);
	ck_assert_int_ge(wl_display_roundtrip(first.display), 0);
	ck_assert(sc_app_init(&second, "second"));
	ck_assert(sc_app_create_window(&second, "vitrail-second", "second", 100, 80,
			0xff0000ff));
	wl_surface_commit(second.surface);
	ck_assert_int_ge(wl_display_roundtrip(second.display), 0);
	harness_wait_for_window_count(conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	ck_assert_str_eq(front_window(conn), "vitrail-second");

	struct wl_registry *registry = wl_display_get_registry(first.display);
	wl_registry_add_listener(registry, &activation_registry_listener, NULL);
	ck_assert_int_ge(wl_display_roundtrip(first.display), 0);
	ck_assert_msg(activation != NULL, "no xdg_activation_v1");

	// a token nobody handed out: nothing happens
	xdg_activation_v1_activate(activation, "vitrail-made-up-token",
			first.surface);
	ck_assert_int_ge(wl_display_roundtrip(first.display), 0);
	harness_settle(conn);
	ck_assert_str_eq(front_window(conn), "vitrail-second");

	// a real token, but made by the client behind with no input serial
	// (focus stealing): nothing happens
	struct xdg_activation_token_v1 *token =
			xdg_activation_v1_get_activation_token(activation);
	xdg_activation_token_v1_add_listener(token, &token_listener, NULL);
	xdg_activation_token_v1_set_app_id(token, "vitrail-first");
	xdg_activation_token_v1_commit(token);
	ck_assert_int_ge(wl_display_roundtrip(first.display), 0);
	ck_assert_msg(activation_token != NULL, "no token");
	xdg_activation_v1_activate(activation, activation_token, first.surface);
	ck_assert_int_ge(wl_display_roundtrip(first.display), 0);
	harness_settle(conn);
	ck_assert_msg(strcmp(front_window(conn), "vitrail-second") == 0,
			"a "
			"token without the focused client's serial raised %s",
			front_window(conn));
	xdg_activation_token_v1_destroy(token);
	free(activation_token);
	activation_token = NULL;

	// the focused client (second) clicked, makes a token with that
	// click's serial and its surface, and hands it to first (a launcher
	// starting an application): first comes to the front
	harness_list_windows(conn, NULL);
	const struct harness_window *w =
			harness_find_window(conn, "vitrail-second");
	ck_assert_ptr_nonnull(w);
	harness_pointer_move(conn, w->x + 10, w->y + 10);
	harness_pointer_button(conn, BTN_LEFT, true);
	harness_pointer_button(conn, BTN_LEFT, false);
	ck_assert_int_ge(wl_display_roundtrip(second.display), 0);
	ck_assert_msg(second.buttons_pressed > 0, "second saw no click");
	struct wl_registry *registry2 = wl_display_get_registry(second.display);
	wl_registry_add_listener(registry2, &activation_registry_listener, NULL);
	struct xdg_activation_v1 *first_activation = activation;
	activation = NULL;
	ck_assert_int_ge(wl_display_roundtrip(second.display), 0);
	ck_assert_msg(activation != NULL, "no xdg_activation_v1 for second");
	token = xdg_activation_v1_get_activation_token(activation);
	xdg_activation_token_v1_add_listener(token, &token_listener, NULL);
	xdg_activation_token_v1_set_serial(token, second.button_serial,
			second.seat);
	xdg_activation_token_v1_set_surface(token, second.surface);
	xdg_activation_token_v1_commit(token);
	ck_assert_int_ge(wl_display_roundtrip(second.display), 0);
	ck_assert_msg(activation_token != NULL, "no token for second");
	xdg_activation_token_v1_destroy(token);
	xdg_activation_v1_destroy(activation);
	activation = first_activation;
	xdg_activation_v1_activate(activation, activation_token, first.surface);
	ck_assert_int_ge(wl_display_roundtrip(first.display), 0);
	harness_settle(conn);
	ck_assert_str_eq(front_window(conn), "vitrail-first");

	xdg_activation_v1_destroy(activation);
	activation = NULL;
	free(activation_token);
	activation_token = NULL;
	wl_registry_destroy(registry2);
	wl_registry_destroy(registry);
	ck_assert_int_ge(wl_display_roundtrip(first.display), 0);
	sc_app_finish(&second);
	sc_app_finish(&first);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- fractional scale and content type ------------------------------------
 */

struct small_globals {
	struct wp_fractional_scale_manager_v1 *scale;
	struct wp_content_type_manager_v1 *content_type;
	struct wl_compositor *compositor;
	struct wl_output *output; // the first
};

static void small_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct small_globals *g = data;
	if (strcmp(interface, wp_fractional_scale_manager_v1_interface.name) == 0) {
		g->scale = wl_registry_bind(registry, name,
				&wp_fractional_scale_manager_v1_interface, 1);
	} else if (strcmp(interface, wp_content_type_manager_v1_interface.name) ==
			0) {
		g->content_type = wl_registry_bind(registry, name,
				&wp_content_type_manager_v1_interface, 1);
	} else if (strcmp(interface, wl_compositor_interface.name) == 0) {
		g->compositor =
				wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_output_interface.name) == 0 &&
			g->output == NULL) {
		g->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
	}
}

static const struct wl_registry_listener small_registry_listener = {
	.global = small_global,
	.global_remove = extra_global_remove,
};

static uint32_t preferred_scale;

static void scale_handle_preferred(void *data,
		struct wp_fractional_scale_v1 *scale, uint32_t value) {
	preferred_scale = value;
}

static const struct wp_fractional_scale_v1_listener scale_listener = {
	.preferred_scale = scale_handle_preferred,
};

/* A connection of its own with a surface; second: make a second object
 * of that kind for it ("scale" or "type"). Returns the protocol error
 * code of the connection (-1: none), *interface its interface. */
static int small_client(const char *socket, const char *second,
		const struct wl_interface **interface) {
	struct wl_display *display = wl_display_connect(socket);
	ck_assert(display != NULL);
	struct small_globals g = { 0 };
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &small_registry_listener, &g);
	ck_assert_int_ge(wl_display_roundtrip(display), 0);
	ck_assert_msg(g.scale != NULL && g.content_type != NULL,
			"no wp_fractional_scale_manager_v1 or wp_content_type_manager_v1");
	struct wl_surface *surface = wl_compositor_create_surface(g.compositor);
	struct wp_fractional_scale_v1 *scale =
			wp_fractional_scale_manager_v1_get_fractional_scale(g.scale,
					surface);
	wp_fractional_scale_v1_add_listener(scale, &scale_listener, NULL);
	struct wp_content_type_v1 *type =
			wp_content_type_manager_v1_get_surface_content_type(g.content_type,
					surface);
	wp_content_type_v1_set_content_type(type, WP_CONTENT_TYPE_V1_TYPE_VIDEO);
	wl_surface_commit(surface);
	preferred_scale = 0;
	ck_assert_int_ge(wl_display_roundtrip(display), 0);
	ck_assert_uint_eq(preferred_scale, 120);
	struct wp_fractional_scale_v1 *scale2 = NULL;
	struct wp_content_type_v1 *type2 = NULL;
	if (second != NULL && strcmp(second, "scale") == 0) {
		scale2 = wp_fractional_scale_manager_v1_get_fractional_scale(g.scale,
				surface);
	} else if (second != NULL) {
		type2 = wp_content_type_manager_v1_get_surface_content_type(
				g.content_type, surface);
	}
	int code = -1;
	if (wl_display_roundtrip(display) < 0) {
		uint32_t id;
		code = (int)wl_display_get_protocol_error(display, interface, &id);
	}
	// (after an error these only free the proxies)
	if (scale2 != NULL) {
		wp_fractional_scale_v1_destroy(scale2);
	}
	if (type2 != NULL) {
		wp_content_type_v1_destroy(type2);
	}
	wp_fractional_scale_v1_destroy(scale);
	wp_content_type_v1_destroy(type);
	wl_surface_destroy(surface);
	wp_fractional_scale_manager_v1_destroy(g.scale);
	wp_content_type_manager_v1_destroy(g.content_type);
	wl_compositor_destroy(g.compositor);
	wl_output_destroy(g.output);
	wl_registry_destroy(registry);
	wl_display_roundtrip(display);
	wl_display_disconnect(display);
	return code;
}

static struct wl_output *entered_output;

static void surface_enter(void *data, struct wl_surface *surface,
		struct wl_output *output) {
	entered_output = output;
}

static void surface_leave(void *data, struct wl_surface *surface,
		struct wl_output *output) {
	if (entered_output == output) {
		entered_output = NULL;
	}
}

static const struct wl_surface_listener surface_listener = {
	.enter = surface_enter,
	.leave = surface_leave,
};

/* A window gets wl_surface.enter when it maps, and its preferred scale
 * again with it. */
static void check_window_enter(const char *socket) {
	struct sc_app app = { 0 };
	setenv("WAYLAND_DISPLAY", socket, 1);
	ck_assert(sc_app_init(&app, "scale-window"));
	struct small_globals g = { 0 };
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &small_registry_listener, &g);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert(sc_app_create_window(&app, "scale-window", "scale window", 64, 48,
			0xff00ff00));
	wl_surface_add_listener(app.surface, &surface_listener, NULL);
	struct wp_fractional_scale_v1 *scale =
			wp_fractional_scale_manager_v1_get_fractional_scale(g.scale,
					app.surface);
	wp_fractional_scale_v1_add_listener(scale, &scale_listener, NULL);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_uint_eq(preferred_scale, 120);
	preferred_scale = 0;
	entered_output = NULL;
	wl_surface_commit(app.surface); // maps
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(entered_output == g.output,
			"the mapped window entered "
			"%p, not the output %p",
			(void *)entered_output, (void *)g.output);
	ck_assert_msg(preferred_scale == 120,
			"no preferred scale (%u) with "
			"the enter",
			preferred_scale);
	wp_fractional_scale_v1_destroy(scale);
	wp_fractional_scale_manager_v1_destroy(g.scale);
	wp_content_type_manager_v1_destroy(g.content_type);
	wl_compositor_destroy(g.compositor);
	wl_output_destroy(g.output);
	wl_registry_destroy(registry);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	sc_app_finish(&app);
}

START_TEST(test_protocols_scale_and_type) {
	struct harness *harness = harness_create("protocols-scale-and-type");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	const struct wl_interface *interface = NULL;
	ck_assert_int_eq(small_client(vitrail->socket, NULL, &interface), -1);
	ck_assert_int_eq(small_client(vitrail->socket, "scale", &interface),
			WP_FRACTIONAL_SCALE_MANAGER_V1_ERROR_FRACTIONAL_SCALE_EXISTS);
	ck_assert_str_eq(interface->name,
			wp_fractional_scale_manager_v1_interface.name);
	ck_assert_int_eq(small_client(vitrail->socket, "type", &interface),
			WP_CONTENT_TYPE_MANAGER_V1_ERROR_ALREADY_CONSTRUCTED);
	ck_assert_str_eq(interface->name,
			wp_content_type_manager_v1_interface.name);
	// vitrail goes on: a well-behaved client still works
	ck_assert_int_eq(small_client(vitrail->socket, NULL, &interface), -1);
	check_window_enter(vitrail->socket);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- text input and input method ----------------------------------------- */

struct ti_globals {
	struct zwp_text_input_manager_v3 *text_input;
	struct zwp_input_method_manager_v2 *input_method;
	struct wl_seat *seat;
};

static void ti_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct ti_globals *g = data;
	if (strcmp(interface, zwp_text_input_manager_v3_interface.name) == 0) {
		g->text_input = wl_registry_bind(registry, name,
				&zwp_text_input_manager_v3_interface, 1);
	} else if (strcmp(interface, zwp_input_method_manager_v2_interface.name) ==
			0) {
		g->input_method = wl_registry_bind(registry, name,
				&zwp_input_method_manager_v2_interface, 1);
	} else if (strcmp(interface, wl_seat_interface.name) == 0 &&
			g->seat == NULL) {
		g->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	}
}

static const struct wl_registry_listener ti_registry_listener = {
	.global = ti_global,
	.global_remove = extra_global_remove,
};

struct im_state {
	bool active;
	uint32_t purpose;
	uint32_t dones;
};

static void im_activate(void *data, struct zwp_input_method_v2 *im) {
	struct im_state *st = data;
	st->active = true;
}

static void im_deactivate(void *data, struct zwp_input_method_v2 *im) {
	struct im_state *st = data;
	st->active = false;
}

static void im_surrounding_text(void *data, struct zwp_input_method_v2 *im,
		const char *text, uint32_t cursor, uint32_t anchor) {
}

static void im_text_change_cause(void *data, struct zwp_input_method_v2 *im,
		uint32_t cause) {
}

static void im_content_type(void *data, struct zwp_input_method_v2 *im,
		uint32_t hint, uint32_t purpose) {
	struct im_state *st = data;
	st->purpose = purpose;
}

static void im_done(void *data, struct zwp_input_method_v2 *im) {
	struct im_state *st = data;
	st->dones++;
}

static void im_unavailable(void *data, struct zwp_input_method_v2 *im) {
	ck_abort_msg("the input method is unavailable");
}

static const struct zwp_input_method_v2_listener im_listener = {
	.activate = im_activate,
	.deactivate = im_deactivate,
	.surrounding_text = im_surrounding_text,
	.text_change_cause = im_text_change_cause,
	.content_type = im_content_type,
	.done = im_done,
	.unavailable = im_unavailable,
};

struct ti_state {
	bool entered;
	char committed[64];
	uint32_t dones;
};

static void ti_enter(void *data, struct zwp_text_input_v3 *ti,
		struct wl_surface *surface) {
	struct ti_state *st = data;
	st->entered = true;
}

static void ti_leave(void *data, struct zwp_text_input_v3 *ti,
		struct wl_surface *surface) {
	struct ti_state *st = data;
	st->entered = false;
}

static void ti_preedit(void *data, struct zwp_text_input_v3 *ti,
		const char *text, int32_t begin, int32_t end) {
}

static void ti_commit_string(void *data, struct zwp_text_input_v3 *ti,
		const char *text) {
	struct ti_state *st = data;
	snprintf(st->committed, sizeof(st->committed), "%s",
			text != NULL ? text : "");
}

static void ti_delete(void *data, struct zwp_text_input_v3 *ti, uint32_t before,
		uint32_t after) {
}

static void ti_done(void *data, struct zwp_text_input_v3 *ti, uint32_t serial) {
	struct ti_state *st = data;
	st->dones++;
}

static const struct zwp_text_input_v3_listener ti_listener = {
	.enter = ti_enter,
	.leave = ti_leave,
	.preedit_string = ti_preedit,
	.commit_string = ti_commit_string,
	.delete_surrounding_text = ti_delete,
	.done = ti_done,
};

static struct wl_registry *bind_ti(struct wl_display *display,
		struct ti_globals *g) {
	*g = (struct ti_globals){ 0 };
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &ti_registry_listener, g);
	ck_assert_int_ge(wl_display_roundtrip(display), 0);
	ck_assert_msg(g->text_input != NULL && g->input_method != NULL &&
					g->seat != NULL,
			"no text-input-v3 or input-method-v2");
	return registry;
}

START_TEST(test_protocols_text_input) {
	struct harness *harness = harness_create("protocols-text-input");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	// the input method, a connection of its own
	struct wl_display *im_display = wl_display_connect(vitrail->socket);
	ck_assert(im_display != NULL);
	struct ti_globals img;
	struct wl_registry *im_registry = bind_ti(im_display, &img);
	struct im_state ims = { 0 };
	struct zwp_input_method_v2 *im =
			zwp_input_method_manager_v2_get_input_method(img.input_method,
					img.seat);
	zwp_input_method_v2_add_listener(im, &im_listener, &ims);
	ck_assert_int_ge(wl_display_roundtrip(im_display), 0);
	ck_assert(!ims.active);

	// the window, focused when it maps
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "text-input"));
	struct ti_globals g;
	struct wl_registry *registry = bind_ti(app.display, &g);
	struct ti_state tis = { 0 };
	struct zwp_text_input_v3 *ti =
			zwp_text_input_manager_v3_get_text_input(g.text_input, g.seat);
	zwp_text_input_v3_add_listener(ti, &ti_listener, &tis);
	ck_assert(sc_app_create_window(&app, "text-input", "text input", 100, 80,
			0xff808080));
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(tis.entered,
			"the focused window's text input got no "
			"enter");

	zwp_text_input_v3_enable(ti);
	zwp_text_input_v3_set_content_type(ti, ZWP_TEXT_INPUT_V3_CONTENT_HINT_NONE,
			ZWP_TEXT_INPUT_V3_CONTENT_PURPOSE_DIGITS);
	zwp_text_input_v3_commit(ti);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(im_display), 0);
	ck_assert_msg(ims.active,
			"enabling the text input did not activate "
			"the input method");
	ck_assert_uint_eq(ims.purpose, ZWP_TEXT_INPUT_V3_CONTENT_PURPOSE_DIGITS);

	const char *text = "gr\xc3\xbc\xc3\x9f 42";
	zwp_input_method_v2_commit_string(im, text);
	zwp_input_method_v2_commit(im, ims.dones);
	ck_assert_int_ge(wl_display_roundtrip(im_display), 0);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(strcmp(tis.committed, text) == 0,
			"the window got '%s', "
			"the input method sent '%s'",
			tis.committed, text);
	ck_assert_uint_ge(tis.dones, 1);

	zwp_text_input_v3_disable(ti);
	zwp_text_input_v3_commit(ti);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(im_display), 0);
	ck_assert_msg(!ims.active, "disabling did not deactivate the method");

	zwp_text_input_v3_destroy(ti);
	zwp_text_input_manager_v3_destroy(g.text_input);
	zwp_input_method_manager_v2_destroy(g.input_method);
	wl_seat_destroy(g.seat);
	wl_registry_destroy(registry);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	sc_app_finish(&app);
	zwp_input_method_v2_destroy(im);
	zwp_input_method_manager_v2_destroy(img.input_method);
	zwp_text_input_manager_v3_destroy(img.text_input);
	wl_seat_destroy(img.seat);
	wl_registry_destroy(im_registry);
	wl_display_roundtrip(im_display);
	wl_display_disconnect(im_display);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- xdg-decoration -------------------------------------------------------
 */

static struct zxdg_decoration_manager_v1 *decoration_manager;

static void decoration_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	if (strcmp(interface, zxdg_decoration_manager_v1_interface.name) == 0) {
		decoration_manager = wl_registry_bind(registry, name,
				&zxdg_decoration_manager_v1_interface, 1);
	}
}

static const struct wl_registry_listener decoration_registry_listener = {
	.global = decoration_global,
	.global_remove = extra_global_remove,
};

/* vitrail(5) decorations: the sizes and colours vitrail draws, written
 * out here (not taken from vitrail's headers). */
#define DECO_BORDER 4
#define DECO_TITLE 24
#define DECO_FOCUSED 0xff2f5d8au
#define DECO_UNFOCUSED 0xff4a4f57u
#define BACKGROUND 0xff29303au

/* A screenshot of HEADLESS-1 once everything settled (malloc'd ARGB). */
static uint32_t *deco_shot(struct harness *harness,
		struct harness_vitrail *vitrail, const char *name, int32_t *w,
		int32_t *h) {
	harness_settle(vitrail->conn);
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/%s.png", harness->out_dir, name) > 0);
	ck_assert_int_eq(harness_grim(harness, vitrail, "HEADLESS-1", path), 0);
	uint32_t *pixels = vr_png_read(path, w, h);
	ck_assert_msg(pixels != NULL, "cannot read %s", path);
	free(path);
	return pixels;
}

static bool pixel_near(uint32_t actual, uint32_t want, int tolerance) {
	for (int shift = 0; shift < 32; shift += 8) {
		if (abs((int)((actual >> shift) & 0xff) -
					(int)((want >> shift) & 0xff)) > tolerance) {
			return false;
		}
	}
	return true;
}

static void assert_pixel(const uint32_t *pixels, int32_t w, int32_t h, int x,
		int y, uint32_t want, const char *what) {
	ck_assert(x >= 0 && x < w && y >= 0 && y < h);
	uint32_t actual = pixels[y * w + x];
	ck_assert_msg(pixel_near(actual, want, 1),
			"%s: pixel (%d, %d) is "
			"0x%08x, not 0x%08x",
			what, x, y, actual, want);
}

/* Pixels of the box as bright as the title's text (every channel at
 * least 0xc0: the title bars are dark). */
static int bright_pixels(const uint32_t *pixels, int32_t w, int x0, int y0,
		int x1, int y1) {
	int n = 0;
	for (int y = y0; y < y1; y++) {
		for (int x = x0; x < x1; x++) {
			uint32_t p = pixels[y * w + x];
			if (((p >> 16) & 0xff) >= 0xc0 && ((p >> 8) & 0xff) >= 0xc0 &&
					(p & 0xff) >= 0xc0) {
				n++;
			}
		}
	}
	return n;
}

/* Pixels of the box that are not `want`. */
static int other_pixels(const uint32_t *pixels, int32_t w, int x0, int y0,
		int x1, int y1, uint32_t want) {
	int n = 0;
	for (int y = y0; y < y1; y++) {
		for (int x = x0; x < x1; x++) {
			n += !pixel_near(pixels[y * w + x], want, 1);
		}
	}
	return n;
}

struct deco_window {
	struct sc_app app;
	struct zxdg_toplevel_decoration_v1 *decoration;
	int mode; // the last configure, -1: none
};

static void deco_window_configure(void *data,
		struct zxdg_toplevel_decoration_v1 *decoration, uint32_t mode) {
	struct deco_window *dw = data;
	dw->mode = (int)mode;
}

static const struct zxdg_toplevel_decoration_v1_listener
		deco_window_listener = {
			.configure = deco_window_configure,
		};

/* A window of w x h in argb with an xdg-decoration object, asking for
 * `ask` (0: nothing), mapped; with `maximized`, it asks to be maximized
 * before it makes the decoration object. */
static void deco_window_open_as(struct deco_window *dw, const char *app_id,
		const char *title, int w, int h, uint32_t argb, uint32_t ask,
		bool maximized) {
	*dw = (struct deco_window){ .mode = -1 };
	ck_assert(sc_app_init(&dw->app, app_id));
	struct wl_registry *registry = wl_display_get_registry(dw->app.display);
	wl_registry_add_listener(registry, &decoration_registry_listener, NULL);
	ck_assert_int_ge(wl_display_roundtrip(dw->app.display), 0);
	ck_assert_msg(decoration_manager != NULL, "no zxdg_decoration_manager_v1");
	ck_assert(sc_app_create_window(&dw->app, app_id, title, w, h, argb));
	if (maximized) {
		xdg_toplevel_set_maximized(dw->app.xdg_toplevel);
		ck_assert_int_ge(wl_display_roundtrip(dw->app.display), 0);
	}
	dw->decoration = zxdg_decoration_manager_v1_get_toplevel_decoration(
			decoration_manager, dw->app.xdg_toplevel);
	zxdg_toplevel_decoration_v1_add_listener(dw->decoration,
			&deco_window_listener, dw);
	if (ask != 0) {
		zxdg_toplevel_decoration_v1_set_mode(dw->decoration, ask);
	}
	wl_surface_commit(dw->app.surface);
	ck_assert_int_ge(wl_display_roundtrip(dw->app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(dw->app.display), 0);
	zxdg_decoration_manager_v1_destroy(decoration_manager);
	decoration_manager = NULL;
	wl_registry_destroy(registry);
}

static void deco_window_open(struct deco_window *dw, const char *app_id,
		const char *title, int w, int h, uint32_t argb, uint32_t ask) {
	deco_window_open_as(dw, app_id, title, w, h, argb, ask, false);
}

static void deco_window_close(struct deco_window *dw) {
	zxdg_toplevel_decoration_v1_destroy(dw->decoration);
	ck_assert_int_ge(wl_display_roundtrip(dw->app.display), 0);
	sc_app_finish(&dw->app);
}

/* The window's current place (fails when it is not mapped). */
static struct harness_window deco_place(struct harness_vitrail *vitrail,
		const char *app_id) {
	harness_list_windows(vitrail->conn, NULL);
	const struct harness_window *w = harness_find_window(vitrail->conn, app_id);
	ck_assert_msg(w != NULL, "no window %s: %s", app_id,
			harness_describe_windows(vitrail->conn));
	return *w;
}

START_TEST(test_protocols_decoration) {
	struct harness *harness = harness_create("protocols-decoration");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);

	// a window that asks nothing: server-side, vitrail's preference
	struct deco_window a;
	deco_window_open(&a, "deco-a", "HHHH HHHH", 120, 60, 0xff00ff00u, 0);
	ck_assert_int_eq(a.mode, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	// placed with its decorations: the frame of 128x92 centred, then 150
	// left and 90 up (view.c's cascade), kept inside: (106, 104), the
	// window 4 right of and 28 below the frame's corner
	struct harness_window pa = deco_place(vitrail, "deco-a");
	ck_assert_msg(pa.x == 110 && pa.y == 132 && pa.width == 120 &&
					pa.height == 60,
			"deco-a at %d,%d %dx%d, not 110,132 120x60", pa.x, pa.y, pa.width,
			pa.height);
	int32_t w, h;
	uint32_t *px = deco_shot(harness, vitrail, "server-side", &w, &h);
	// the title bar above it, left of the title; the border on each side
	assert_pixel(px, w, h, 112, 132 - 12, DECO_FOCUSED, "title bar");
	assert_pixel(px, w, h, 110 + 119 - 24 - 1, 132 - 1, DECO_FOCUSED,
			"title bar, its bottom-right pixel left of the close button");
	assert_pixel(px, w, h, 106, 104, DECO_FOCUSED, "top-left corner");
	assert_pixel(px, w, h, 170, 105, DECO_FOCUSED, "top border");
	assert_pixel(px, w, h, 107, 160, DECO_FOCUSED, "left border");
	assert_pixel(px, w, h, 233, 160, DECO_FOCUSED, "right border");
	assert_pixel(px, w, h, 170, 195, DECO_FOCUSED, "bottom border");
	assert_pixel(px, w, h, 233, 195, DECO_FOCUSED, "bottom-right corner");
	// nothing more: the background right outside, the window inside
	assert_pixel(px, w, h, 105, 160, BACKGROUND, "left of the frame");
	assert_pixel(px, w, h, 234, 160, BACKGROUND, "right of the frame");
	assert_pixel(px, w, h, 170, 103, BACKGROUND, "above the frame");
	assert_pixel(px, w, h, 170, 196, BACKGROUND, "below the frame");
	assert_pixel(px, w, h, 110, 132, 0xff00ff00u, "the window's corner");
	assert_pixel(px, w, h, 229, 191, 0xff00ff00u, "the window's last pixel");
	// the title is drawn: white pixels where it is (from x + 8, left of
	// the close button), and the close button's cross at the right end
	int text = bright_pixels(px, w, 110, 132 - 24, 110 + 120 - 24, 132);
	ck_assert_msg(text >= 20, "the title drew %d white pixels", text);
	int cross = bright_pixels(px, w, 110 + 120 - 24, 132 - 24, 230, 132);
	ck_assert_msg(cross >= 10, "the close button drew %d white pixels", cross);
	free(px);

	// the title follows set_title: empty, the bar is plain
	xdg_toplevel_set_title(a.app.xdg_toplevel, "");
	wl_surface_commit(a.app.surface);
	ck_assert_int_ge(wl_display_roundtrip(a.app.display), 0);
	px = deco_shot(harness, vitrail, "empty-title", &w, &h);
	int left = other_pixels(px, w, 110, 132 - 24, 110 + 120 - 24, 132,
			DECO_FOCUSED);
	ck_assert_msg(left == 0,
			"an empty title left %d pixels of other "
			"colours in the title bar",
			left);
	free(px);
	xdg_toplevel_set_title(a.app.xdg_toplevel, "HHHH");
	wl_surface_commit(a.app.surface);
	ck_assert_int_ge(wl_display_roundtrip(a.app.display), 0);

	// a window that insists on client-side decorations gets none; it
	// takes the focus, and the first one's title bar turns unfocused
	struct deco_window b;
	deco_window_open(&b, "deco-b", "client side", 40, 30, 0xff0000ffu,
			ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE);
	ck_assert_int_eq(b.mode, ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE);
	harness_wait_for_windows(vitrail->conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	// second on the output: centred, 150 left and 90 up, one cascade
	// step of 120 right and 60 down
	struct harness_window pb = deco_place(vitrail, "deco-b");
	ck_assert_msg(pb.x == 270 && pb.y == 195,
			"deco-b at %d,%d, not "
			"270,195",
			pb.x, pb.y);
	px = deco_shot(harness, vitrail, "client-side", &w, &h);
	assert_pixel(px, w, h, 272, 195 - 12, BACKGROUND, "above deco-b");
	assert_pixel(px, w, h, 269, 200, BACKGROUND, "left of deco-b");
	assert_pixel(px, w, h, 310, 200, BACKGROUND, "right of deco-b");
	assert_pixel(px, w, h, 280, 225, BACKGROUND, "below deco-b");
	assert_pixel(px, w, h, 270, 195, 0xff0000ffu, "deco-b's corner");
	assert_pixel(px, w, h, 112, 132 - 12, DECO_UNFOCUSED,
			"deco-a's title bar, unfocused");
	assert_pixel(px, w, h, 107, 160, DECO_UNFOCUSED,
			"deco-a's left border, unfocused");
	free(px);
	// a click on its title bar focuses it again (the pointer then goes
	// out of the way)
	harness_pointer_move(vitrail->conn, 130, 120);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	harness_pointer_move(vitrail->conn, 600, 440);
	px = deco_shot(harness, vitrail, "refocused", &w, &h);
	assert_pixel(px, w, h, 112, 132 - 12, DECO_FOCUSED,
			"deco-a's title bar, clicked");
	free(px);
	const struct harness_window *front = NULL;
	ck_assert(harness_list_windows(vitrail->conn, &front) == 2);
	ck_assert_msg(strcmp(front[0].app_id, "deco-a") == 0,
			"the clicked "
			"window is not in front: %s",
			harness_describe_windows(vitrail->conn));

	// asking for client-side later takes them away; asking for
	// server-side again brings them back
	zxdg_toplevel_decoration_v1_set_mode(a.decoration,
			ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE);
	ck_assert_int_ge(wl_display_roundtrip(a.app.display), 0);
	ck_assert_int_eq(a.mode, ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE);
	wl_surface_commit(a.app.surface);
	ck_assert_int_ge(wl_display_roundtrip(a.app.display), 0);
	px = deco_shot(harness, vitrail, "a-client-side", &w, &h);
	assert_pixel(px, w, h, 112, 132 - 12, BACKGROUND,
			"above deco-a, client-side");
	assert_pixel(px, w, h, 107, 160, BACKGROUND, "left of deco-a, client-side");
	free(px);
	zxdg_toplevel_decoration_v1_set_mode(a.decoration,
			ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	ck_assert_int_ge(wl_display_roundtrip(a.app.display), 0);
	ck_assert_int_eq(a.mode, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);

	deco_window_close(&b);
	deco_window_close(&a);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- idle and idle inhibitors ---------------------------------------------
 */

struct idle_globals {
	struct org_kde_kwin_idle *idle;
	struct zwp_idle_inhibit_manager_v1 *inhibit;
	struct zwlr_virtual_pointer_manager_v1 *virtual_pointer;
};

static void idle_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct idle_globals *g = data;
	if (strcmp(interface, org_kde_kwin_idle_interface.name) == 0) {
		g->idle = wl_registry_bind(registry, name, &org_kde_kwin_idle_interface,
				1);
	} else if (strcmp(interface, zwp_idle_inhibit_manager_v1_interface.name) ==
			0) {
		g->inhibit = wl_registry_bind(registry, name,
				&zwp_idle_inhibit_manager_v1_interface, 1);
	} else if (strcmp(interface,
					   zwlr_virtual_pointer_manager_v1_interface.name) == 0) {
		g->virtual_pointer = wl_registry_bind(registry, name,
				&zwlr_virtual_pointer_manager_v1_interface, 1);
	}
}

static const struct wl_registry_listener idle_registry_listener = {
	.global = idle_global,
	.global_remove = extra_global_remove,
};

static int idle_events, resumed_events;

static void timeout_handle_idle(void *data,
		struct org_kde_kwin_idle_timeout *timeout) {
	idle_events++;
}

static void timeout_handle_resumed(void *data,
		struct org_kde_kwin_idle_timeout *timeout) {
	resumed_events++;
}

static const struct org_kde_kwin_idle_timeout_listener timeout_listener = {
	.idle = timeout_handle_idle,
	.resumed = timeout_handle_resumed,
};

/* Dispatch display for ms, or until *counter reaches want. */
static void dispatch_until(struct wl_display *display, int *counter, int want,
		int ms) {
	int64_t deadline = harness_now_ms() + ms;
	while (*counter < want && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_roundtrip(display), 0);
		harness_sleep_ms(10);
	}
}

START_TEST(test_protocols_idle) {
	struct harness *harness = harness_create("protocols-idle");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "idle"));
	struct idle_globals g = { 0 };
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &idle_registry_listener, &g);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(g.idle != NULL && g.inhibit != NULL &&
					g.virtual_pointer != NULL,
			"no org_kde_kwin_idle, "
			"zwp_idle_inhibit_manager_v1 or virtual pointer");

	struct org_kde_kwin_idle_timeout *timeout =
			org_kde_kwin_idle_get_idle_timeout(g.idle, app.seat, 200);
	org_kde_kwin_idle_timeout_add_listener(timeout, &timeout_listener, NULL);
	dispatch_until(app.display, &idle_events, 1, harness_scaled_ms(10000));
	ck_assert_msg(idle_events == 1, "no idle after 200 ms without input");
	struct zwlr_virtual_pointer_v1 *vp =
			zwlr_virtual_pointer_manager_v1_create_virtual_pointer(
					g.virtual_pointer, NULL);
	zwlr_virtual_pointer_v1_motion(vp, 1, wl_fixed_from_int(3), 0);
	zwlr_virtual_pointer_v1_frame(vp);
	dispatch_until(app.display, &resumed_events, 1, harness_scaled_ms(10000));
	ck_assert_msg(resumed_events == 1, "no resumed at a pointer motion");
	org_kde_kwin_idle_timeout_release(timeout);

	// a mapped window inhibits idle
	ck_assert(sc_app_create_window(&app, "idle", "idle", 64, 48, 0xff00ff00));
	struct zwp_idle_inhibitor_v1 *inhibitor =
			zwp_idle_inhibit_manager_v1_create_inhibitor(g.inhibit,
					app.surface);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	idle_events = 0;
	timeout = org_kde_kwin_idle_get_idle_timeout(g.idle, app.seat, 100);
	org_kde_kwin_idle_timeout_add_listener(timeout, &timeout_listener, NULL);
	dispatch_until(app.display, &idle_events, 1, 1000);
	ck_assert_msg(idle_events == 0, "idle while a window inhibits it");
	zwp_idle_inhibitor_v1_destroy(inhibitor);
	dispatch_until(app.display, &idle_events, 1, harness_scaled_ms(10000));
	ck_assert_msg(idle_events == 1, "no idle once the inhibitor went");
	org_kde_kwin_idle_timeout_release(timeout);

	zwlr_virtual_pointer_v1_destroy(vp);
	zwlr_virtual_pointer_manager_v1_destroy(g.virtual_pointer);
	zwp_idle_inhibit_manager_v1_destroy(g.inhibit);
	org_kde_kwin_idle_destroy(g.idle);
	wl_registry_destroy(registry);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- input inhibitor ------------------------------------------------------
 */

static struct zwlr_input_inhibit_manager_v1 *input_inhibit_manager;

static void input_inhibit_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	if (strcmp(interface, zwlr_input_inhibit_manager_v1_interface.name) == 0) {
		input_inhibit_manager = wl_registry_bind(registry, name,
				&zwlr_input_inhibit_manager_v1_interface, 1);
	}
}

static const struct wl_registry_listener input_inhibit_registry_listener = {
	.global = input_inhibit_global,
	.global_remove = extra_global_remove,
};

static void click(struct harness_conn *conn, double x, double y) {
	harness_pointer_move(conn, x, y);
	harness_pointer_button(conn, 0x110, true); // BTN_LEFT
	harness_pointer_button(conn, 0x110, false);
}

START_TEST(test_protocols_input_inhibitor) {
	struct harness *harness = harness_create("protocols-input-inhibitor");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	struct harness_conn *conn = vitrail->conn;
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "inhibited"));
	app.on_tap = count_tap;
	ck_assert(sc_app_create_window(&app, "inhibited", "inhibited", 120, 80,
			WINDOW_ARGB));
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const struct harness_window *w = harness_find_window(conn, "inhibited");
	ck_assert(w != NULL);
	double x = w->x + 60, y = w->y + 40;

	struct wl_display *other = wl_display_connect(vitrail->socket);
	ck_assert(other != NULL);
	struct wl_registry *registry = wl_display_get_registry(other);
	wl_registry_add_listener(registry, &input_inhibit_registry_listener, NULL);
	ck_assert_int_ge(wl_display_roundtrip(other), 0);
	ck_assert_msg(input_inhibit_manager != NULL,
			"no zwlr_input_inhibit_manager_v1");
	struct zwlr_input_inhibitor_v1 *inhibitor =
			zwlr_input_inhibit_manager_v1_get_inhibitor(input_inhibit_manager);
	ck_assert_int_ge(wl_display_roundtrip(other), 0);

	taps = 0;
	click(conn, x, y);
	harness_settle(conn);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(taps == 0,
			"the window got %d clicks while another "
			"client held the input inhibitor",
			taps);
	zwlr_input_inhibitor_v1_destroy(inhibitor);
	ck_assert_int_ge(wl_display_roundtrip(other), 0);
	click(conn, x + 1, y);
	harness_settle(conn);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(taps == 1,
			"the window got %d clicks after the inhibitor "
			"went",
			taps);

	zwlr_input_inhibit_manager_v1_destroy(input_inhibit_manager);
	input_inhibit_manager = NULL;
	wl_registry_destroy(registry);
	wl_display_roundtrip(other);
	wl_display_disconnect(other);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- pointer constraints and relative motion ------------------------------
 */

struct pointer_globals {
	struct zwp_pointer_constraints_v1 *constraints;
	struct zwp_relative_pointer_manager_v1 *relative;
	struct zwlr_virtual_pointer_manager_v1 *virtual_pointer;
};

static void pointer_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct pointer_globals *g = data;
	if (strcmp(interface, zwp_pointer_constraints_v1_interface.name) == 0) {
		g->constraints = wl_registry_bind(registry, name,
				&zwp_pointer_constraints_v1_interface, 1);
	} else if (strcmp(interface,
					   zwp_relative_pointer_manager_v1_interface.name) == 0) {
		g->relative = wl_registry_bind(registry, name,
				&zwp_relative_pointer_manager_v1_interface, 1);
	} else if (strcmp(interface,
					   zwlr_virtual_pointer_manager_v1_interface.name) == 0) {
		g->virtual_pointer = wl_registry_bind(registry, name,
				&zwlr_virtual_pointer_manager_v1_interface, 1);
	}
}

static const struct wl_registry_listener pointer_registry_listener = {
	.global = pointer_global,
	.global_remove = extra_global_remove,
};

static bool pointer_locked;
static double relative_dx, relative_dy;

static void locked_handle_locked(void *data,
		struct zwp_locked_pointer_v1 *locked) {
	pointer_locked = true;
}

static void locked_handle_unlocked(void *data,
		struct zwp_locked_pointer_v1 *locked) {
	pointer_locked = false;
}

static const struct zwp_locked_pointer_v1_listener locked_listener = {
	.locked = locked_handle_locked,
	.unlocked = locked_handle_unlocked,
};

static bool pointer_confined;

static void confined_handle_confined(void *data,
		struct zwp_confined_pointer_v1 *confined) {
	pointer_confined = true;
}

static void confined_handle_unconfined(void *data,
		struct zwp_confined_pointer_v1 *confined) {
	pointer_confined = false;
}

static const struct zwp_confined_pointer_v1_listener confined_listener = {
	.confined = confined_handle_confined,
	.unconfined = confined_handle_unconfined,
};

static void relative_handle_motion(void *data,
		struct zwp_relative_pointer_v1 *relative, uint32_t utime_hi,
		uint32_t utime_lo, wl_fixed_t dx, wl_fixed_t dy, wl_fixed_t dx_unaccel,
		wl_fixed_t dy_unaccel) {
	relative_dx += wl_fixed_to_double(dx);
	relative_dy += wl_fixed_to_double(dy);
}

static const struct zwp_relative_pointer_v1_listener relative_listener = {
	.relative_motion = relative_handle_motion,
};

START_TEST(test_protocols_pointer_lock) {
	struct harness *harness = harness_create("protocols-pointer-lock");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "pointer-lock"));
	struct pointer_globals g = { 0 };
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &pointer_registry_listener, &g);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(g.constraints != NULL && g.relative != NULL &&
					g.virtual_pointer != NULL,
			"missing pointer globals");
	ck_assert(sc_app_create_window(&app, "pointer-lock", "pointer lock", 200,
			150, 0xff808080));
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const struct harness_window *w =
			harness_find_window(vitrail->conn, "pointer-lock");
	ck_assert(w != NULL);
	ck_assert_msg(app.pointer != NULL, "the window has no wl_pointer");
	struct zwp_relative_pointer_v1 *relative =
			zwp_relative_pointer_manager_v1_get_relative_pointer(g.relative,
					app.pointer);
	zwp_relative_pointer_v1_add_listener(relative, &relative_listener, NULL);
	struct zwp_locked_pointer_v1 *locked =
			zwp_pointer_constraints_v1_lock_pointer(g.constraints, app.surface,
					app.pointer, NULL,
					ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_PERSISTENT);
	zwp_locked_pointer_v1_add_listener(locked, &locked_listener, NULL);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);

	// a virtual pointer of another connection: onto the window
	struct zwlr_virtual_pointer_v1 *vp =
			zwlr_virtual_pointer_manager_v1_create_virtual_pointer(
					g.virtual_pointer, NULL);
	zwlr_virtual_pointer_v1_motion_absolute(vp, 0, (uint32_t)(w->x + 100),
			(uint32_t)(w->y + 75), 320, 240);
	zwlr_virtual_pointer_v1_frame(vp);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(pointer_locked,
			"the pointer over the window is not "
			"locked");
	double x = app.pointer_x, y = app.pointer_y;
	double rdx = relative_dx, rdy = relative_dy;

	// locked: relative motion only, the pointer stays
	zwlr_virtual_pointer_v1_motion(vp, 1, wl_fixed_from_int(7),
			wl_fixed_from_int(3));
	zwlr_virtual_pointer_v1_frame(vp);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(relative_dx - rdx == 7 && relative_dy - rdy == 3,
			"relative motion (%g, %g), sent (7, 3)", relative_dx - rdx,
			relative_dy - rdy);
	ck_assert_msg(app.pointer_x == x && app.pointer_y == y,
			"the locked "
			"pointer moved from (%g, %g) to (%g, %g)",
			x, y, app.pointer_x, app.pointer_y);

	// unlocked: it moves again
	zwp_locked_pointer_v1_destroy(locked);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	zwlr_virtual_pointer_v1_motion(vp, 2, wl_fixed_from_int(5), 0);
	zwlr_virtual_pointer_v1_frame(vp);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(app.pointer_x == x + 5 && app.pointer_y == y,
			"the "
			"unlocked pointer is at (%g, %g), expected (%g, %g)",
			app.pointer_x, app.pointer_y, x + 5, y);
	ck_assert_msg(relative_dx - rdx == 12,
			"relative motion %g in x, "
			"sent 12",
			relative_dx - rdx);

	// confined to 80..139 x 60..99 (the pointer inside): a move right by
	// 100 stops at x 139, one left by 200 at x 80; the relative motion
	// is what was sent
	struct wl_region *region = wl_compositor_create_region(app.compositor);
	wl_region_add(region, 80, 60, 60, 40);
	struct zwp_confined_pointer_v1 *confined =
			zwp_pointer_constraints_v1_confine_pointer(g.constraints,
					app.surface, app.pointer, region,
					ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_PERSISTENT);
	wl_region_destroy(region);
	zwp_confined_pointer_v1_add_listener(confined, &confined_listener, NULL);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	// it activates as the pointer moves inside
	zwlr_virtual_pointer_v1_motion(vp, 3, wl_fixed_from_int(1), 0);
	zwlr_virtual_pointer_v1_frame(vp);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(pointer_confined,
			"the pointer in the region is not "
			"confined (at %g, %g)",
			app.pointer_x, app.pointer_y);
	zwlr_virtual_pointer_v1_motion(vp, 4, wl_fixed_from_int(100), 0);
	zwlr_virtual_pointer_v1_frame(vp);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(app.pointer_x == 139 && app.pointer_y == y,
			"confined, "
			"the pointer went to (%g, %g), not (139, %g)",
			app.pointer_x, app.pointer_y, y);
	zwlr_virtual_pointer_v1_motion(vp, 5, wl_fixed_from_int(-200), 0);
	zwlr_virtual_pointer_v1_frame(vp);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(app.pointer_x == 80,
			"confined, the pointer went to "
			"x %g, not 80",
			app.pointer_x);
	ck_assert_msg(relative_dx - rdx == 12 + 1 + 100 - 200,
			"relative "
			"motion %g in x, sent %d",
			relative_dx - rdx, 12 + 1 + 100 - 200);
	zwp_confined_pointer_v1_destroy(confined);

	zwlr_virtual_pointer_v1_destroy(vp);
	zwp_relative_pointer_v1_destroy(relative);
	zwp_relative_pointer_manager_v1_destroy(g.relative);
	zwp_pointer_constraints_v1_destroy(g.constraints);
	zwlr_virtual_pointer_manager_v1_destroy(g.virtual_pointer);
	wl_registry_destroy(registry);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- output power ---------------------------------------------------------
 */

static int power_mode = -1;
static bool power_failed;

static void power_handle_mode(void *data, struct zwlr_output_power_v1 *power,
		uint32_t mode) {
	power_mode = (int)mode;
}

static void power_handle_failed(void *data,
		struct zwlr_output_power_v1 *power) {
	power_failed = true;
}

static const struct zwlr_output_power_v1_listener power_listener = {
	.mode = power_handle_mode,
	.failed = power_handle_failed,
};

START_TEST(test_protocols_output_power) {
	struct harness *harness = harness_create("protocols-output-power");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "320x240" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "power"));
	struct extra_globals g;
	struct wl_registry *registry = bind_extra(&app, &g, false);
	ck_assert_msg(g.power != NULL && g.output != NULL,
			"no zwlr_output_power_manager_v1");
	struct zwlr_output_power_v1 *power =
			zwlr_output_power_manager_v1_get_output_power(g.power, g.output);
	zwlr_output_power_v1_add_listener(power, &power_listener, NULL);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_eq(power_mode, ZWLR_OUTPUT_POWER_V1_MODE_ON);

	zwlr_output_power_v1_set_mode(power, ZWLR_OUTPUT_POWER_V1_MODE_OFF);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert(!power_failed);
	ck_assert_int_eq(power_mode, ZWLR_OUTPUT_POWER_V1_MODE_OFF);
	// off: the headless backend of wlroots 0.15 cannot disable an
	// output, so vitrail blanks it: black, every pixel
	harness_settle(vitrail->conn);
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/off.png", harness->out_dir) > 0);
	ck_assert_int_eq(harness_grim(harness, vitrail, "HEADLESS-1", path), 0);
	int32_t w = 0, h = 0;
	uint32_t *pixels = vr_png_read(path, &w, &h);
	ck_assert(pixels != NULL && w == 320 && h == 240);
	for (int32_t i = 0; i < w * h; i++) {
		ck_assert_msg(pixels[i] == 0xff000000u,
				"off: pixel (%d, %d) is "
				"0x%08x, not black",
				i % w, i / w, pixels[i]);
	}
	free(pixels);
	free(path);

	zwlr_output_power_v1_set_mode(power, ZWLR_OUTPUT_POWER_V1_MODE_ON);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_int_eq(power_mode, ZWLR_OUTPUT_POWER_V1_MODE_ON);
	harness_settle(vitrail->conn);
	ck_assert(asprintf(&path, "%s/on.png", harness->out_dir) > 0);
	ck_assert_int_eq(harness_grim(harness, vitrail, "HEADLESS-1", path), 0);
	pixels = vr_png_read(path, &w, &h);
	ck_assert(pixels != NULL && w == 320 && h == 240);
	// the default background, drawn again
	ck_assert_uint_eq(pixels[120 * w + 160], 0xff29303au);
	free(pixels);
	free(path);

	zwlr_output_power_v1_destroy(power);
	extra_finish(&app, &g, registry);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* Dispatch the client's events (a round trip). */
static void deco_dispatch(struct deco_window *dw) {
	ck_assert_int_ge(wl_display_roundtrip(dw->app.display), 0);
}

/*
 * decoration_input: on a server-side decorated window, a drag of the
 * title bar moves the window by the drag's distance, a drag of the right
 * border asks the client for that much more width, the close button
 * sends xdg_toplevel.close; none of those buttons reach the client.
 */
START_TEST(test_protocols_decoration_input) {
	struct harness *harness = harness_create("protocols-decoration-input");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct deco_window a;
	deco_window_open(&a, "deco-a", "drag me", 120, 60, 0xff00ff00u, 0);
	ck_assert_int_eq(a.mode, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	struct harness_window p = deco_place(vitrail, "deco-a");
	ck_assert_int_eq(p.x, 110);
	ck_assert_int_eq(p.y, 132);

	// the title bar, 12 above the window: dragged by (70, 45)
	harness_pointer_move(vitrail->conn, 130, 120);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	harness_pointer_move(vitrail->conn, 130 + 37, 120 + 21);
	harness_pointer_move(vitrail->conn, 130 + 70, 120 + 45);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	deco_dispatch(&a);
	p = deco_place(vitrail, "deco-a");
	ck_assert_msg(p.x == 180 && p.y == 177,
			"the title bar's drag put the "
			"window at %d,%d, not 180,177",
			p.x, p.y);
	// its decorations came along: the title bar above its new place
	int32_t w, h;
	uint32_t *px = deco_shot(harness, vitrail, "moved", &w, &h);
	assert_pixel(px, w, h, 182, 177 - 12, DECO_FOCUSED, "moved title bar");
	assert_pixel(px, w, h, 112, 132 - 12, BACKGROUND, "the old title bar");
	free(px);

	// the right border, half-way down: dragged 30 to the right
	harness_pointer_move(vitrail->conn, 180 + 120 + 2, 177 + 30);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	harness_pointer_move(vitrail->conn, 180 + 120 + 2 + 30, 177 + 30);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	deco_dispatch(&a);
	deco_dispatch(&a);
	ck_assert_msg(a.app.configure_width == 150 && a.app.configure_height == 60,
			"the border's drag asked for %dx%d, "
			"not 150x60",
			a.app.configure_width, a.app.configure_height);
	p = deco_place(vitrail, "deco-a");
	ck_assert_msg(p.x == 180 && p.y == 177,
			"the right border's drag "
			"moved the window to %d,%d",
			p.x, p.y);

	// a finger on the title bar: dragged by (-40, 25); a touch on the
	// decorations never reaches the client
	harness_touch(vitrail->conn, HARNESS_TOUCH_DOWN, 3, 200, 177 - 12);
	harness_touch(vitrail->conn, HARNESS_TOUCH_MOVE, 3, 180, 177);
	harness_touch(vitrail->conn, HARNESS_TOUCH_MOVE, 3, 160, 177 - 12 + 25);
	harness_touch(vitrail->conn, HARNESS_TOUCH_UP, 3, 0, 0);
	deco_dispatch(&a);
	p = deco_place(vitrail, "deco-a");
	ck_assert_msg(p.x == 140 && p.y == 202,
			"the title bar's touch drag "
			"put the window at %d,%d, not 140,202",
			p.x, p.y);

	// the close button: the 24x24 square at the title bar's right end
	ck_assert(a.app.running);
	harness_pointer_move(vitrail->conn, p.x + 120 - 12, p.y - 12);
	harness_pointer_button(vitrail->conn, BTN_LEFT, true);
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	while (a.app.running && harness_now_ms() < deadline) {
		deco_dispatch(&a);
	}
	ck_assert_msg(!a.app.running,
			"the close button sent no "
			"xdg_toplevel.close");
	ck_assert_msg(a.app.buttons_pressed == 0,
			"%d buttons on the "
			"decorations reached the client",
			a.app.buttons_pressed);

	deco_window_close(&a);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* Commit and dispatch until the last configure is acknowledged and
 * applied. */
static void deco_commit(struct deco_window *dw) {
	deco_dispatch(dw);
	wl_surface_commit(dw->app.surface);
	deco_dispatch(dw);
}

/*
 * decoration_fill: a decorated window maximized is asked for the output
 * less its decorations (640x480 less 8 by 32: 632x448) and put 4 right
 * of and 28 below the output's corner; fullscreen, it is asked for the
 * whole output at its corner and shows no decorations; back from
 * fullscreen, its title bar is inside the output again.
 */
START_TEST(test_protocols_decoration_fill) {
	struct harness *harness = harness_create("protocols-decoration-fill");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct deco_window a;
	deco_window_open(&a, "deco-a", "", 120, 60, 0xff00ff00u,
			ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	ck_assert_int_eq(a.mode, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	struct harness_window before = deco_place(vitrail, "deco-a");
	ck_assert_msg(before.x == 110 && before.y == 132,
			"placed at %d,%d, "
			"not 110,132",
			before.x, before.y);

	xdg_toplevel_set_maximized(a.app.xdg_toplevel);
	deco_commit(&a);
	ck_assert_msg(a.app.configure_maximized && a.app.configure_width == 632 &&
					a.app.configure_height == 448,
			"maximized: asked for %dx%d (maximized %d), not 632x448",
			a.app.configure_width, a.app.configure_height,
			a.app.configure_maximized);
	struct harness_window p = deco_place(vitrail, "deco-a");
	ck_assert_msg(p.x == 4 && p.y == 28, "maximized at %d,%d, not 4,28", p.x,
			p.y);
	xdg_toplevel_unset_maximized(a.app.xdg_toplevel);
	deco_commit(&a);
	ck_assert(!a.app.configure_maximized);
	// restored: back where it was before, not at the output's corner
	p = deco_place(vitrail, "deco-a");
	ck_assert_msg(p.x == before.x && p.y == before.y,
			"restored at %d,%d, "
			"not where it was (%d,%d)",
			p.x, p.y, before.x, before.y);

	xdg_toplevel_set_fullscreen(a.app.xdg_toplevel, NULL);
	deco_commit(&a);
	ck_assert_msg(a.app.configure_fullscreen && a.app.configure_width == 640 &&
					a.app.configure_height == 480,
			"fullscreen: asked for %dx%d (fullscreen %d), not 640x480",
			a.app.configure_width, a.app.configure_height,
			a.app.configure_fullscreen);
	p = deco_place(vitrail, "deco-a");
	ck_assert_msg(p.x == 0 && p.y == 0, "fullscreen at %d,%d, not 0,0", p.x,
			p.y);
	// the client keeps its 120x60: no border right of or below it
	int32_t w, h;
	uint32_t *px = deco_shot(harness, vitrail, "fullscreen", &w, &h);
	assert_pixel(px, w, h, 0, 0, 0xff00ff00u, "fullscreen window's corner");
	assert_pixel(px, w, h, 121, 30, BACKGROUND,
			"right of the fullscreen "
			"window");
	assert_pixel(px, w, h, 60, 61, BACKGROUND,
			"below the fullscreen "
			"window");
	free(px);

	xdg_toplevel_unset_fullscreen(a.app.xdg_toplevel);
	deco_commit(&a);
	p = deco_place(vitrail, "deco-a");
	ck_assert_msg(p.x == before.x && p.y == before.y,
			"back from fullscreen "
			"at %d,%d, not where it was (%d,%d)",
			p.x, p.y, before.x, before.y);
	px = deco_shot(harness, vitrail, "unfullscreen", &w, &h);
	assert_pixel(px, w, h, 112, 132 - 12, DECO_FOCUSED, "title bar back");
	assert_pixel(px, w, h, 107, 160, DECO_FOCUSED, "left border back");
	assert_pixel(px, w, h, 110, 132, 0xff00ff00u, "window's corner");
	free(px);
	deco_window_close(&a);
	harness_wait_for_window_count(vitrail->conn, 0, HARNESS_WINDOWS_TIMEOUT_MS);

	// maximized before its decorations were negotiated: asked again for
	// the output less the decorations
	deco_window_open_as(&a, "deco-m", "", 120, 60, 0xff00ff00u, 0, true);
	ck_assert_int_eq(a.mode, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	deco_commit(&a);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	ck_assert_msg(a.app.configure_maximized && a.app.configure_width == 632 &&
					a.app.configure_height == 448,
			"maximized first: asked for %dx%d (maximized %d), not 632x448",
			a.app.configure_width, a.app.configure_height,
			a.app.configure_maximized);
	p = deco_place(vitrail, "deco-m");
	ck_assert_msg(p.x == 4 && p.y == 28,
			"maximized first at %d,%d, not "
			"4,28",
			p.x, p.y);
	deco_window_close(&a);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/*
 * decoration_gone: a maximized window with server-side decorations whose
 * client destroys its xdg_toplevel before the decoration object (mpv at
 * its end), and one whose client dies (kill -9: its objects go in the
 * order they were made, the toplevel first): vitrail carries on, answers,
 * and shows neither window.
 */
/* As mpv and foot do: the decoration object and the maximize request
 * before the first commit, mapped at the size the configure asks. */
static void deco_maximized_open(struct deco_window *dw, const char *app_id) {
	*dw = (struct deco_window){ .mode = -1 };
	ck_assert(sc_app_init(&dw->app, app_id));
	struct wl_registry *registry = wl_display_get_registry(dw->app.display);
	wl_registry_add_listener(registry, &decoration_registry_listener, NULL);
	ck_assert_int_ge(wl_display_roundtrip(dw->app.display), 0);
	ck_assert_msg(decoration_manager != NULL, "no zxdg_decoration_manager_v1");
	sc_app_create_toplevel(&dw->app, app_id, "max");
	dw->decoration = zxdg_decoration_manager_v1_get_toplevel_decoration(
			decoration_manager, dw->app.xdg_toplevel);
	zxdg_toplevel_decoration_v1_add_listener(dw->decoration,
			&deco_window_listener, dw);
	zxdg_toplevel_decoration_v1_set_mode(dw->decoration,
			ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	xdg_toplevel_set_maximized(dw->app.xdg_toplevel);
	ck_assert(sc_app_configure_window(&dw->app, 120, 60, 0xff00ff00u));
	ck_assert_int_ge(wl_display_roundtrip(dw->app.display), 0);
	ck_assert_msg(dw->app.configure_maximized && dw->app.configure_width > 0,
			"%s not maximized (configured "
			"%dx%d, maximized %d)",
			app_id, dw->app.configure_width, dw->app.configure_height,
			dw->app.configure_maximized);
	sc_buffer_destroy(dw->app.buffer);
	dw->app.buffer = sc_buffer_create(&dw->app, dw->app.configure_width,
			dw->app.configure_height, WL_SHM_FORMAT_ARGB8888, 0xff00ff00u);
	xdg_surface_set_window_geometry(dw->app.xdg_surface, 0, 0,
			dw->app.configure_width, dw->app.configure_height);
	wl_surface_attach(dw->app.surface, dw->app.buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(dw->app.surface, 0, 0, INT32_MAX, INT32_MAX);
	wl_surface_commit(dw->app.surface);
	ck_assert_int_ge(wl_display_roundtrip(dw->app.display), 0);
	ck_assert_int_eq(dw->mode, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	zxdg_decoration_manager_v1_destroy(decoration_manager);
	decoration_manager = NULL;
	wl_registry_destroy(registry);
}

START_TEST(test_protocols_decoration_gone) {
	struct harness *harness = harness_create("protocols-decoration-gone");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);

	// the toplevel first, then (after a round trip) its decoration
	struct deco_window a;
	deco_maximized_open(&a, "deco-max");
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	xdg_toplevel_destroy(a.app.xdg_toplevel);
	a.app.xdg_toplevel = NULL;
	wl_display_roundtrip(a.app.display);
	harness_assert_alive(vitrail->proc);
	harness_settle(vitrail->conn);
	zxdg_toplevel_decoration_v1_destroy(a.decoration);
	wl_display_roundtrip(a.app.display);
	harness_settle(vitrail->conn);
	harness_assert_alive(vitrail->proc);
	harness_wait_for_window_count(vitrail->conn, 0, HARNESS_WINDOWS_TIMEOUT_MS);
	sc_app_finish(&a.app);

	// a client that dies with its maximized decorated window
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct deco_window b;
		deco_maximized_open(&b, "deco-killed");
		ck_assert_int_ge(wl_display_roundtrip(b.app.display), 0);
		raise(SIGKILL);
	}
	int status = 0;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			"the client did not get as far as its maximized window (status "
			"0x%x)",
			status);
	harness_settle(vitrail->conn);
	harness_assert_alive(vitrail->proc);
	harness_wait_for_window_count(vitrail->conn, 0, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/*
 * keyboard_keymap: a headless vitrail has no keyboard device, yet its
 * seat announces the keyboard capability (a client binds its wl_keyboard
 * before the first device comes). Every wl_keyboard then gets a keymap
 * (xkb v1, a text xkbcommon compiles) before anything else, and before
 * the enter of a window that takes the focus.
 */
struct keymap_probe {
	struct wl_keyboard *keyboard;
	int keymaps; // keymap events
	bool keymap_compiles;
	int events_before_keymap; // enter, modifiers, key before any keymap
	bool entered;
};

static void kp_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format,
		int32_t fd, uint32_t size) {
	struct keymap_probe *kp = data;
	kp->keymaps++;
	if (format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1 && size > 0) {
		char *text = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (text != MAP_FAILED) {
			struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
			struct xkb_keymap *keymap = xkb_keymap_new_from_buffer(context,
					text, strnlen(text, size), XKB_KEYMAP_FORMAT_TEXT_V1,
					XKB_KEYMAP_COMPILE_NO_FLAGS);
			kp->keymap_compiles = keymap != NULL;
			xkb_keymap_unref(keymap);
			xkb_context_unref(context);
			munmap(text, size);
		}
	}
	close(fd);
}

static void kp_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
		struct wl_surface *surface, struct wl_array *keys) {
	struct keymap_probe *kp = data;
	kp->entered = true;
	kp->events_before_keymap += kp->keymaps == 0;
}

static void kp_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial,
		struct wl_surface *surface) {
}

static void kp_key(void *data, struct wl_keyboard *keyboard, uint32_t serial,
		uint32_t time, uint32_t key, uint32_t state) {
	struct keymap_probe *kp = data;
	kp->events_before_keymap += kp->keymaps == 0;
}

static void kp_modifiers(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, uint32_t depressed, uint32_t latched, uint32_t locked,
		uint32_t group) {
	struct keymap_probe *kp = data;
	kp->events_before_keymap += kp->keymaps == 0;
}

static const struct wl_keyboard_listener kp_listener = {
	.keymap = kp_keymap,
	.enter = kp_enter,
	.leave = kp_leave,
	.key = kp_key,
	.modifiers = kp_modifiers,
};

START_TEST(test_protocols_keyboard_keymap) {
	struct harness *harness = harness_create("protocols-keyboard-keymap");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app;
	memset(&app, 0, sizeof(app));
	ck_assert(sc_app_init(&app, "keymap"));
	ck_assert_msg(app.seat != NULL, "no wl_seat");
	struct keymap_probe kp = { 0 };
	kp.keyboard = wl_seat_get_keyboard(app.seat);
	wl_keyboard_add_listener(kp.keyboard, &kp_listener, &kp);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(kp.keymaps == 1, "%d keymaps after get_keyboard, not 1",
			kp.keymaps);
	ck_assert_msg(kp.keymap_compiles, "the keymap sent does not compile");
	ck_assert(sc_app_create_window(&app, "keymap", "keymap", 64, 64,
			0xff808080u));
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	while (!kp.entered && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	}
	ck_assert_msg(kp.entered, "the focused window got no keyboard enter");
	ck_assert_msg(kp.events_before_keymap == 0,
			"%d keyboard events came "
			"before any keymap",
			kp.events_before_keymap);
	wl_keyboard_release(kp.keyboard);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- KDE server-decoration -------------------------------------------------
 */

struct kde_window {
	struct sc_app app;
	struct wl_registry *registry;
	struct org_kde_kwin_server_decoration_manager *manager;
	struct org_kde_kwin_server_decoration *decoration;
	int default_mode, mode; // -1: none came
};

static void kde_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct kde_window *kw = data;
	if (strcmp(interface,
				org_kde_kwin_server_decoration_manager_interface.name) == 0) {
		kw->manager = wl_registry_bind(registry, name,
				&org_kde_kwin_server_decoration_manager_interface, 1);
	}
}

static const struct wl_registry_listener kde_registry_listener = {
	.global = kde_global,
	.global_remove = extra_global_remove,
};

static void kde_default_mode(void *data,
		struct org_kde_kwin_server_decoration_manager *manager, uint32_t mode) {
	struct kde_window *kw = data;
	kw->default_mode = (int)mode;
}

static const struct org_kde_kwin_server_decoration_manager_listener
		kde_manager_listener = {
			.default_mode = kde_default_mode,
		};

static void kde_mode(void *data,
		struct org_kde_kwin_server_decoration *decoration, uint32_t mode) {
	struct kde_window *kw = data;
	kw->mode = (int)mode;
}

static const struct org_kde_kwin_server_decoration_listener
		kde_decoration_listener = {
			.mode = kde_mode,
		};

/* A window of w x h in argb whose surface has a KDE decoration object
 * that requests `ask`, mapped; as GTK 3 does, the object comes after the
 * toplevel role. */
static void kde_window_open(struct kde_window *kw, const char *app_id,
		const char *title, int w, int h, uint32_t argb, uint32_t ask) {
	*kw = (struct kde_window){ .default_mode = -1, .mode = -1 };
	ck_assert(sc_app_init(&kw->app, app_id));
	kw->registry = wl_display_get_registry(kw->app.display);
	wl_registry_add_listener(kw->registry, &kde_registry_listener, kw);
	ck_assert_int_ge(wl_display_roundtrip(kw->app.display), 0);
	ck_assert_msg(kw->manager != NULL,
			"no org_kde_kwin_server_decoration_manager");
	org_kde_kwin_server_decoration_manager_add_listener(kw->manager,
			&kde_manager_listener, kw);
	ck_assert_int_ge(wl_display_roundtrip(kw->app.display), 0);
	ck_assert(sc_app_create_window(&kw->app, app_id, title, w, h, argb));
	kw->decoration = org_kde_kwin_server_decoration_manager_create(kw->manager,
			kw->app.surface);
	org_kde_kwin_server_decoration_add_listener(kw->decoration,
			&kde_decoration_listener, kw);
	org_kde_kwin_server_decoration_request_mode(kw->decoration, ask);
	wl_surface_commit(kw->app.surface);
	ck_assert_int_ge(wl_display_roundtrip(kw->app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(kw->app.display), 0);
}

static void kde_window_close(struct kde_window *kw) {
	org_kde_kwin_server_decoration_release(kw->decoration);
	org_kde_kwin_server_decoration_manager_destroy(kw->manager);
	wl_registry_destroy(kw->registry);
	ck_assert_int_ge(wl_display_roundtrip(kw->app.display), 0);
	sc_app_finish(&kw->app);
}

/*
 * decoration_kde: KDE server-decoration (GTK 3's way) announces server
 * as its default mode; a window that requests server gets it and
 * vitrail's title bar and border (the same pixels as decoration's), one
 * that requests client gets client and none; a window that switches to
 * client loses them.
 */
START_TEST(test_protocols_decoration_kde) {
	struct harness *harness = harness_create("protocols-decoration-kde");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct kde_window a;
	kde_window_open(&a, "kde-a", "HHHH", 120, 60, 0xff00ff00u,
			ORG_KDE_KWIN_SERVER_DECORATION_MODE_SERVER);
	ck_assert_int_eq(a.default_mode,
			ORG_KDE_KWIN_SERVER_DECORATION_MANAGER_MODE_SERVER);
	ck_assert_int_eq(a.mode, ORG_KDE_KWIN_SERVER_DECORATION_MODE_SERVER);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	struct harness_window p = deco_place(vitrail, "kde-a");
	ck_assert_msg(p.x == 110 && p.y == 132, "kde-a at %d,%d, not 110,132", p.x,
			p.y);
	int32_t w, h;
	uint32_t *px = deco_shot(harness, vitrail, "kde-server", &w, &h);
	assert_pixel(px, w, h, 112, 132 - 12, DECO_FOCUSED, "kde-a's title bar");
	assert_pixel(px, w, h, 107, 160, DECO_FOCUSED, "kde-a's left border");
	assert_pixel(px, w, h, 105, 160, BACKGROUND, "left of kde-a's frame");
	free(px);

	struct kde_window b;
	kde_window_open(&b, "kde-b", "client", 40, 30, 0xff0000ffu,
			ORG_KDE_KWIN_SERVER_DECORATION_MODE_CLIENT);
	ck_assert_int_eq(b.mode, ORG_KDE_KWIN_SERVER_DECORATION_MODE_CLIENT);
	harness_wait_for_windows(vitrail->conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	p = deco_place(vitrail, "kde-b");
	ck_assert_msg(p.x == 270 && p.y == 195, "kde-b at %d,%d, not 270,195", p.x,
			p.y);
	px = deco_shot(harness, vitrail, "kde-client", &w, &h);
	assert_pixel(px, w, h, 272, 195 - 12, BACKGROUND, "above kde-b");
	assert_pixel(px, w, h, 269, 200, BACKGROUND, "left of kde-b");
	assert_pixel(px, w, h, 112, 132 - 12, DECO_UNFOCUSED,
			"kde-a's title bar, unfocused");
	free(px);

	org_kde_kwin_server_decoration_request_mode(a.decoration,
			ORG_KDE_KWIN_SERVER_DECORATION_MODE_CLIENT);
	ck_assert_int_ge(wl_display_roundtrip(a.app.display), 0);
	ck_assert_int_eq(a.mode, ORG_KDE_KWIN_SERVER_DECORATION_MODE_CLIENT);
	px = deco_shot(harness, vitrail, "kde-a-client", &w, &h);
	assert_pixel(px, w, h, 112, 132 - 12, BACKGROUND,
			"above kde-a, client-side");
	free(px);

	kde_window_close(&b);
	kde_window_close(&a);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* The image of nominal size `size` in an Xcursor file (read here, not by
 * wlroots' code): ARGB premultiplied, malloc'd. */
static uint32_t *read_xcursor(const char *path, uint32_t size, int *width,
		int *height, int *hot_x, int *hot_y) {
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	uint32_t header[4];
	ck_assert(fread(header, 4, 4, f) == 4);
	ck_assert_msg(memcmp(header, "Xcur", 4) == 0, "%s: no Xcursor", path);
	uint32_t ntoc = header[3];
	uint32_t *pixels = NULL;
	for (uint32_t i = 0; i < ntoc && pixels == NULL; i++) {
		uint32_t toc[3];
		ck_assert(fseek(f, (long)(16 + 12 * i), SEEK_SET) == 0);
		ck_assert(fread(toc, 4, 3, f) == 3);
		if (toc[0] != 0xfffd0002u || toc[1] != size) {
			continue;
		}
		uint32_t chunk[9]; // header size, type, size, version, width,
						   // height, xhot, yhot, delay
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

/* The screenshot shows the theme's cursor `name` of `size` pixels with its
 * hotspot at (x, y) (screenshot pixels) over `under` (the same screen
 * with the pointer elsewhere): every pixel of its box is the cursor's
 * pixel over under's, blended by hand (premultiplied "over"), within 2. */
static void assert_cursor(const uint32_t *shot, const uint32_t *under,
		int32_t w, int32_t h, const char *name, uint32_t size, int x, int y) {
	char path[256];
	snprintf(path, sizeof(path), "/usr/share/icons/Adwaita/cursors/%s", name);
	int cw, ch, hx, hy;
	uint32_t *cursor = read_xcursor(path, size, &cw, &ch, &hx, &hy);
	int opaque = 0;
	for (int cy = 0; cy < ch; cy++) {
		for (int cx = 0; cx < cw; cx++) {
			int sx = x - hx + cx, sy = y - hy + cy;
			if (sx < 0 || sx >= w || sy < 0 || sy >= h) {
				continue;
			}
			uint32_t src = cursor[cy * cw + cx];
			uint32_t dst = under[sy * w + sx];
			uint32_t a = src >> 24;
			opaque += a == 255;
			uint32_t want = 0xff000000u;
			for (int shift = 0; shift < 24; shift += 8) {
				uint32_t c = ((src >> shift) & 0xff) +
						(((dst >> shift) & 0xff) * (255 - a) + 127) / 255;
				want |= (c > 255 ? 255 : c) << shift;
			}
			ck_assert_msg(pixel_near(shot[sy * w + sx], want, 2),
					"cursor %s at %d,%d: pixel (%d, %d) is 0x%08x, not "
					"0x%08x",
					name, x, y, sx, sy, shot[sy * w + sx], want);
		}
	}
	ck_assert_msg(opaque > 20, "cursor %s: only %d opaque pixels", name,
			opaque);
	free(cursor);
}

/*
 * decoration_cursor: vitrail started with XCURSOR_THEME=Adwaita and
 * XCURSOR_SIZE=48 draws that theme's 48-pixel images (read from the
 * theme's files here): the arrow over the title bar, right_side over the
 * right border, bottom_right_corner at the bottom-right corner.
 */
START_TEST(test_protocols_decoration_cursor) {
	struct harness *harness = harness_create("protocols-decoration-cursor");
	const char *const env[] = { "XCURSOR_THEME=Adwaita", "XCURSOR_SIZE=48",
		NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480",
					.env = env });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct deco_window a;
	deco_window_open(&a, "deco-a", "", 120, 60, 0xff00ff00u, 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	struct harness_window p = deco_place(vitrail, "deco-a");
	ck_assert_int_eq(p.x, 110);
	ck_assert_int_eq(p.y, 132);
	// the pointer far from the window: what is under the cursors below
	harness_pointer_move(vitrail->conn, 600, 440);
	int32_t w, h;
	uint32_t *under = deco_shot(harness, vitrail, "under", &w, &h);
	static const struct {
		const char *name;
		int x, y;
	} spots[] = {
		{ "left_ptr", 140, 132 - 12 }, // the title bar
		{ "right_side", 110 + 120 + 2, 132 + 30 }, // the right border
		{ "bottom_right_corner", 110 + 120 + 2, 132 + 60 + 2 },
	};
	for (size_t i = 0; i < sizeof(spots) / sizeof(spots[0]); i++) {
		harness_pointer_move(vitrail->conn, spots[i].x, spots[i].y);
		uint32_t *shot = deco_shot(harness, vitrail, spots[i].name, &w, &h);
		assert_cursor(shot, under, w, h, spots[i].name, 48, spots[i].x,
				spots[i].y);
		free(shot);
	}
	free(under);
	deco_window_close(&a);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/*
 * cursor_scale: vitrail started with XCURSOR_THEME=Adwaita and
 * XCURSOR_SIZE=24, its output at scale 2 (the configuration), draws the
 * theme's own 48-pixel arrow (read from the theme's files here), not the
 * 24-pixel one scaled up, its hotspot at twice the pointer's layout
 * position; wlr-randr sets scale 1 and the 24-pixel arrow is drawn.
 */
START_TEST(test_protocols_cursor_scale) {
	harness_require_program("wlr-randr", "wlr-randr");
	struct harness *harness = harness_create("protocols-cursor-scale");
	char *config = harness_write_file(harness, "scale.conf",
			"output HEADLESS-1 scale 2\n");
	const char *const args[] = { "--config", config, NULL };
	const char *const env[] = { "XCURSOR_THEME=Adwaita", "XCURSOR_SIZE=24",
		NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480",
					.env = env,
					.extra_args = args });
	/* layout 320x240 at scale 2 */
	harness_pointer_move(vitrail->conn, 300, 225);
	int32_t w, h;
	uint32_t *under = deco_shot(harness, vitrail, "under-2", &w, &h);
	ck_assert_int_eq(w, 640);
	harness_pointer_move(vitrail->conn, 100, 80);
	uint32_t *shot = deco_shot(harness, vitrail, "scale-2", &w, &h);
	assert_cursor(shot, under, w, h, "left_ptr", 48, 200, 160);
	free(shot);
	free(under);

	const char *const randr[] = { "wlr-randr", "--output", "HEADLESS-1",
		"--scale", "1", NULL };
	ck_assert_int_eq(harness_run_client(harness, vitrail, randr, 10000, NULL),
			0);
	harness_pointer_move(vitrail->conn, 600, 440);
	under = deco_shot(harness, vitrail, "under-1", &w, &h);
	harness_pointer_move(vitrail->conn, 100, 80);
	shot = deco_shot(harness, vitrail, "scale-1", &w, &h);
	assert_cursor(shot, under, w, h, "left_ptr", 24, 100, 80);
	free(shot);
	free(under);
	free(config);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- runner ---------------------------------------------------------------
 */

static Suite *protocols_suite(void) {
	Suite *suite = suite_create("protocols");
	harness_add_case(suite, "globals", test_protocols_globals_of_sway, 60);
	harness_add_case(suite, "clipboard", test_protocols_clipboard_round_trip,
			60);
	harness_add_case(suite, "session_lock", test_protocols_session_lock, 120);
	harness_add_case(suite, "swaylock", test_protocols_swaylock, 60);
	harness_add_case(suite, "lock_presented", test_protocols_lock_presented,
			90);
	harness_add_case(suite, "single_pixel", test_protocols_single_pixel_buffer,
			60);
	harness_add_case(suite, "foreign_toplevel", test_protocols_foreign_toplevel,
			60);
	harness_add_case(suite, "activation", test_protocols_activation, 60);
	harness_add_case(suite, "scale_and_type", test_protocols_scale_and_type,
			60);
	harness_add_case(suite, "text_input", test_protocols_text_input, 60);
	harness_add_case(suite, "decoration", test_protocols_decoration, 60);
	harness_add_case(suite, "decoration_input", test_protocols_decoration_input,
			60);
	harness_add_case(suite, "decoration_cursor",
			test_protocols_decoration_cursor, 60);
	harness_add_case(suite, "cursor_scale", test_protocols_cursor_scale, 60);
	harness_add_case(suite, "decoration_fill", test_protocols_decoration_fill,
			60);
	harness_add_case(suite, "decoration_kde", test_protocols_decoration_kde,
			60);
	harness_add_case(suite, "decoration_gone", test_protocols_decoration_gone,
			60);
	harness_add_case(suite, "keyboard_keymap", test_protocols_keyboard_keymap,
			60);
	harness_add_case(suite, "idle", test_protocols_idle, 60);
	harness_add_case(suite, "input_inhibitor", test_protocols_input_inhibitor,
			60);
	harness_add_case(suite, "pointer_lock", test_protocols_pointer_lock, 60);
	harness_add_case(suite, "output_power", test_protocols_output_power, 60);
	return suite;
}

/* Whether program is in PATH. */
static bool in_path(const char *program) {
	const char *path = getenv("PATH");
	char *copy = strdup(path != NULL ? path : "/usr/bin:/bin");
	bool found = false;
	for (char *dir = strtok(copy, ":"); dir != NULL && !found;
			dir = strtok(NULL, ":")) {
		char *file = NULL;
		if (asprintf(&file, "%s/%s", dir, program) > 0) {
			found = access(file, X_OK) == 0;
			free(file);
		}
	}
	free(copy);
	return found;
}

int main(int argc, char *argv[]) {
	if (argc > 1 && strcmp(argv[1], "clipboard") == 0 &&
			(!in_path("wl-copy") || !in_path("wl-paste"))) {
		fprintf(stderr,
				"wl-copy or wl-paste not found (package "
				"wl-clipboard): skipped\n");
		return 77;
	}
	if (argc > 1 && strcmp(argv[1], "swaylock") == 0 && !in_path("swaylock")) {
		fprintf(stderr,
				"swaylock not found (package swaylock): "
				"skipped\n");
		return 77;
	}
	return harness_run_suite(protocols_suite(), argc, argv);
}
