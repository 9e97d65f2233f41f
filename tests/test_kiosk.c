/*
 * Kiosk policy (vitrail(5): allow, app_exit, kiosk_output, hide_cursor),
 * each against what real clients and the screen show:
 *
 * privileged: wayland-info, a real client, lists none of the privileged
 *   protocol globals in kiosk mode, those of the classes allowed by the
 *   config or --allow, and all of them in desktop mode; wlr-randr refuses
 *   to run in kiosk mode until output management is allowed.
 * app_exit: in kiosk mode vitrail exits with the application's status when
 *   it exits; in desktop mode it stays; with `app_exit restart` the
 *   application is started again, backing off while it keeps crashing.
 * kiosk_output: in a nested session with three outputs, a kiosk window
 *   covers all of them (extend), the last one only (last) or the named
 *   one.
 * hide_cursor: `always` leaves no cursor pixel on screen, an idle time
 *   hides the cursor after that long without pointer input, and pointer
 *   motion shows it again.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define OUTPUT_W 640
#define OUTPUT_H 480
/* vitrail's default background, #29303a, as vr_png_read gives it */
#define BACKGROUND 0xff29303au

static struct harness_vitrail *start(struct harness *harness, int outputs,
		const char *const *args) {
	return harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = outputs,
					.output_size = "640x480",
					.extra_args = args });
}

/* ---- privileged ---------------------------------------------------------- */

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
};
#define NPRIVILEGED (sizeof(privileged) / sizeof(privileged[0]))

/* wayland-info's report (malloc'd). */
static char *wayland_info(struct harness *harness,
		struct harness_vitrail *vitrail) {
	const char *argv[] = { "wayland-info", NULL };
	struct harness_proc *proc = NULL;
	int status = harness_run_client(harness, vitrail, argv,
			HARNESS_WAIT_TIMEOUT_MS, &proc);
	ck_assert_msg(status == 0, "wayland-info exited with %d", status);
	return harness_proc_log(proc);
}

static bool lists(const char *info, const char *interface) {
	char *quoted = NULL;
	ck_assert_int_gt(asprintf(&quoted, "'%s'", interface), 0);
	bool found = strstr(info, quoted) != NULL;
	free(quoted);
	return found;
}

/* Exactly the privileged interfaces in `allowed` (NULL-terminated) are
 * listed, and the everyday ones are. */
static void check_globals(struct harness *harness,
		struct harness_vitrail *vitrail, const char *what,
		const char *const *allowed) {
	char *info = wayland_info(harness, vitrail);
	ck_assert_msg(lists(info, "xdg_wm_base") && lists(info, "wl_seat") &&
					lists(info, "zwlr_layer_shell_v1"),
			"%s: everyday globals missing", what);
	for (size_t i = 0; i < NPRIVILEGED; i++) {
		bool want = false;
		for (size_t j = 0; allowed != NULL && allowed[j] != NULL; j++) {
			want = want || strcmp(allowed[j], privileged[i]) == 0;
		}
		ck_assert_msg(lists(info, privileged[i]) == want, "%s: %s is %s", what,
				privileged[i], want ? "missing" : "offered");
	}
	free(info);
}

START_TEST(test_kiosk_privileged) {
	harness_require_program("wayland-info", "wayland-utils");
	harness_require_program("wlr-randr", "wlr-randr");
	struct harness *harness = harness_create("kiosk_privileged");
	const char *randr[] = { "wlr-randr", NULL };

	const char *kiosk[] = { "--mode", "kiosk", NULL };
	struct harness_vitrail *vitrail = start(harness, 1, kiosk);
	check_globals(harness, vitrail, "kiosk", NULL);
	struct harness_proc *proc = NULL;
	ck_assert_int_ne(harness_run_client(harness, vitrail, randr,
							 HARNESS_WAIT_TIMEOUT_MS, &proc),
			0);
	char *log = harness_proc_log(proc);
	ck_assert_msg(strstr(log, "wlr-output-management") != NULL,
			"wlr-randr said: %s", log);
	free(log);
	harness_stop_vitrail(harness, vitrail);

	char *conf = harness_write_file(harness, "allow.conf",
			"mode kiosk\nallow screencopy, virtual-input\n");
	const char *configured[] = { "--config", conf, "--allow",
		"output-management", NULL };
	vitrail = start(harness, 1, configured);
	const char *some[] = { "zwlr_screencopy_manager_v1",
		"ext_image_copy_capture_manager_v1",
		"ext_output_image_capture_source_manager_v1",
		"ext_foreign_toplevel_image_capture_source_manager_v1",
		"zwlr_virtual_pointer_manager_v1", "zwp_virtual_keyboard_manager_v1",
		"zwlr_output_manager_v1", NULL };
	check_globals(harness, vitrail, "kiosk, allowed", some);
	ck_assert_int_eq(harness_run_client(harness, vitrail, randr,
							 HARNESS_WAIT_TIMEOUT_MS, NULL),
			0);
	harness_stop_vitrail(harness, vitrail);

	vitrail = start(harness, 1, NULL);
	const char *all[NPRIVILEGED + 1] = { 0 };
	for (size_t i = 0; i < NPRIVILEGED; i++) {
		all[i] = privileged[i];
	}
	check_globals(harness, vitrail, "desktop", all);
	harness_stop_vitrail(harness, vitrail);
	free(conf);
	harness_destroy(harness);
}
END_TEST

/* ---- app_exit ------------------------------------------------------------ */

static int count_lines(const char *path) {
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		return 0;
	}
	int n = 0;
	for (int c; (c = fgetc(f)) != EOF;) {
		n += c == '\n';
	}
	fclose(f);
	return n;
}

START_TEST(test_kiosk_app_exit) {
	struct harness *harness = harness_create("kiosk_app_exit");
	char *marks = NULL;
	ck_assert_int_gt(asprintf(&marks, "%s/starts", harness->out_dir), 0);
	char *app = NULL;
	ck_assert_int_gt(
			asprintf(&app, "echo started >> '%s'; sleep 1; exit 3", marks), 0);

	// kiosk: vitrail goes with the application, with its status
	const char *kiosk[] = { "--mode", "kiosk", "--", "sh", "-c", app, NULL };
	struct harness_vitrail *vitrail = start(harness, 1, kiosk);
	ck_assert_msg(harness_proc_wait(vitrail->proc, 30000),
			"vitrail still runs after its kiosk application exited");
	ck_assert_msg(WIFEXITED(vitrail->proc->status) &&
					WEXITSTATUS(vitrail->proc->status) == 3,
			"vitrail's wait status is 0x%x, expected exit status 3",
			vitrail->proc->status);
	ck_assert_int_eq(count_lines(marks), 1);
	unlink(marks);

	// desktop: it stays
	const char *desktop[] = { "--", "sh", "-c", app, NULL };
	vitrail = start(harness, 1, desktop);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(30000);
	while (count_lines(marks) < 1 && harness_now_ms() < deadline) {
		harness_sleep_ms(100);
	}
	ck_assert_int_eq(count_lines(marks), 1);
	harness_sleep_ms(1500); // the application has exited
	harness_settle(vitrail->conn);
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	unlink(marks);

	// restart: started again and again, ever more slowly (250 ms, then
	// twice as long each time it ran under 3 s); vitrail stays
	free(app);
	ck_assert_int_gt(asprintf(&app, "echo started >> '%s'; exit 1", marks), 0);
	char *conf = harness_write_file(harness, "restart.conf",
			"mode kiosk\napp_exit restart\n");
	const char *restart[] = { "--config", conf, "--", "sh", "-c", app, NULL };
	vitrail = start(harness, 1, restart);
	int64_t started = harness_now_ms();
	deadline = started + harness_scaled_ms(30000);
	while (count_lines(marks) < 4 && harness_now_ms() < deadline) {
		harness_sleep_ms(50);
	}
	int64_t took = harness_now_ms() - started;
	ck_assert_int_ge(count_lines(marks), 4);
	// 0, 250, 750 and 1750 ms: without the back-off there would be
	// hundreds of starts by now
	ck_assert_msg(took >= 1500, "4 starts within %lld ms", (long long)took);
	ck_assert_int_le(count_lines(marks), 6);
	harness_settle(vitrail->conn);
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	free(conf);
	free(app);
	free(marks);
	harness_destroy(harness);
}
END_TEST

/* ---- kiosk_output -------------------------------------------------------- */

/* A nested session: three 640x480 outputs WL-1, WL-2 and WL-3 (windows of
 * the parent vitrail), left to right. */
static void check_kiosk_window(struct harness_vitrail *parent,
		const char *setting, const char *output, int x, int width) {
	struct harness *harness = harness_current();
	char *text = NULL;
	ck_assert_int_gt(asprintf(&text, "mode kiosk\nkiosk_output %s\n", setting),
			0);
	char *conf = harness_write_file(harness, "kiosk.conf", text);
	const char *args[] = { "--config", conf, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .backend = "wayland",
					.wayland_parent = parent,
					.outputs = 3,
					.output_size = "640x480",
					.extra_args = args });
	const char *demo[] = { harness_demo_path(), "--static", "--app-id", "app",
		NULL };
	harness_spawn_client(harness, vitrail, demo);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(30000);
	const struct harness_window *window = NULL;
	for (;;) {
		harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
		window = harness_find_window(vitrail->conn, "app");
		// the client answers the configure with its size
		if ((window != NULL && window->width == width &&
					window->height == OUTPUT_H) ||
				harness_now_ms() >= deadline) {
			break;
		}
		harness_sleep_ms(100);
	}
	ck_assert_msg(window != NULL, "kiosk_output %s: no window", setting);
	char *windows = harness_describe_windows(vitrail->conn);
	ck_assert_msg(window->x == x && window->y == 0 && window->width == width &&
					window->height == OUTPUT_H &&
					strcmp(window->output, output) == 0,
			"kiosk_output %s: expected %dx%d at (%d, 0) on %s; windows:\n%s",
			setting, width, OUTPUT_H, x, output, windows);
	free(windows);
	harness_stop_vitrail(harness, vitrail);
	free(conf);
	free(text);
}

START_TEST(test_kiosk_output) {
	struct harness *harness = harness_create("kiosk_output");
	struct harness_vitrail *parent = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "2400x1000" });
	// three 640x480 outputs left to right: WL-1 at 0, WL-2 at 640, WL-3
	// at 1280
	check_kiosk_window(parent, "extend", "WL-1", 0, 3 * OUTPUT_W);
	check_kiosk_window(parent, "last", "WL-3", 2 * OUTPUT_W, OUTPUT_W);
	check_kiosk_window(parent, "WL-2", "WL-2", OUTPUT_W, OUTPUT_W);
	// a name no output has: the last one
	check_kiosk_window(parent, "DP-9", "WL-3", 2 * OUTPUT_W, OUTPUT_W);
	harness_stop_vitrail(harness, parent);
	harness_destroy(harness);
}
END_TEST

/* ---- hide_cursor --------------------------------------------------------- */

/* Pixels of the 48x48 box whose top left is the pointer (where the arrow
 * is drawn) that are not the background. */
static int cursor_pixels(struct harness *harness,
		struct harness_vitrail *vitrail, const char *name, int px, int py) {
	int32_t w = 0, h = 0;
	uint32_t *pixels = harness_screenshot(harness, vitrail, "HEADLESS-1", NULL,
			name, &w, &h);
	ck_assert_int_eq(w, OUTPUT_W);
	ck_assert_int_eq(h, OUTPUT_H);
	int n = 0;
	for (int y = py - 4; y < py + 44; y++) {
		for (int x = px - 4; x < px + 44; x++) {
			n += pixels[y * w + x] != BACKGROUND;
		}
	}
	free(pixels);
	return n;
}

START_TEST(test_kiosk_hide_cursor) {
	struct harness *harness = harness_create("kiosk_hide_cursor");
	// shown by default: the theme's arrow at the pointer
	struct harness_vitrail *vitrail = start(harness, 1, NULL);
	harness_pointer_move(vitrail->conn, 300, 200);
	int shown = cursor_pixels(harness, vitrail, "shown", 300, 200);
	ck_assert_msg(shown > 20, "%d cursor pixels at the pointer", shown);
	harness_stop_vitrail(harness, vitrail);

	char *conf =
			harness_write_file(harness, "always.conf", "hide_cursor always\n");
	const char *always[] = { "--config", conf, NULL };
	vitrail = start(harness, 1, always);
	harness_pointer_move(vitrail->conn, 300, 200);
	ck_assert_int_eq(cursor_pixels(harness, vitrail, "always", 300, 200), 0);
	harness_stop_vitrail(harness, vitrail);
	free(conf);

	// hidden after 3 s without pointer input, shown again by motion
	conf = harness_write_file(harness, "idle.conf", "hide_cursor 3\n");
	const char *idle[] = { "--config", conf, NULL };
	vitrail = start(harness, 1, idle);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(30000);
	harness_pointer_move(vitrail->conn, 300, 200);
	int64_t moved = harness_now_ms();
	int n = cursor_pixels(harness, vitrail, "idle-moved", 300, 200);
	if (harness_now_ms() - moved < 2500) {
		ck_assert_msg(n > 20, "hidden %lld ms after the motion",
				(long long)(harness_now_ms() - moved));
	}
	while ((n = cursor_pixels(harness, vitrail, "idle-waited", 300, 200)) > 0 &&
			harness_now_ms() < deadline) {
		harness_sleep_ms(250);
	}
	ck_assert_msg(n == 0, "the cursor still shows after %lld ms idle",
			(long long)(harness_now_ms() - moved));
	ck_assert_msg(harness_now_ms() - moved >= 2900,
			"hidden %lld ms after the motion",
			(long long)(harness_now_ms() - moved));
	harness_pointer_move(vitrail->conn, 200, 100);
	moved = harness_now_ms();
	n = cursor_pixels(harness, vitrail, "idle-again", 200, 100);
	if (harness_now_ms() - moved < 2500) {
		ck_assert_msg(n > 20, "motion does not show the cursor again");
	}
	harness_stop_vitrail(harness, vitrail);
	free(conf);
	harness_destroy(harness);
}
END_TEST

int main(int argc, char *argv[]) {
	Suite *suite = suite_create("kiosk");
	harness_add_case(suite, "privileged", test_kiosk_privileged, 90);
	harness_add_case(suite, "app_exit", test_kiosk_app_exit, 90);
	harness_add_case(suite, "output", test_kiosk_output, 120);
	harness_add_case(suite, "hide_cursor", test_kiosk_hide_cursor, 90);
	return harness_run_suite(suite, argc, argv);
}
