/*
 * Faults vitrail must survive, against a real vitrail started headless by
 * the integration harness, with real clients:
 *
 * - no_vulkan: no Vulkan driver at all (VK_ICD_FILENAMES names a file that
 *   does not exist): vitrail starts anyway, says so, and the CPU backend
 *   draws; screenshots equal the reference and frames keep coming.
 * - device_lost: the device is lost in the middle of a run (fault
 *   injection, $VITRAIL_FAULT_DEVICE_LOST=N: frame N's fence reports
 *   VK_ERROR_DEVICE_LOST): vitrail goes on with the CPU backend, frames keep
 * being presented at the refresh rate, the screen equals the reference, and
 *   vitrail exits cleanly (no leak under ASan).
 * - unplug: one of two outputs is unplugged while both have frames being
 *   rendered and queued: its windows move to the other, and on the other
 *   nothing is shown twice or lost (every frame it rendered is presented,
 *   once, in display-time order, with no missed vblank beyond the bound).
 *
 * - no_parent: a nested session (--backend wayland or x11) whose parent
 *   display cannot be reached (a socket or X display that does not exist)
 *   ends at once with exit status 1 and says which display it tried, not
 *   with wlroots' assertion (an abort).
 *
 * One TCase per case (one meson test each, suite `faults`); run one with
 * `test-faults <tcase>`. Environment as for test-integration.
 */
#define _GNU_SOURCE // asprintf, strstr
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* Largest per-channel difference between screenshot and reference. */
#define TOLERANCE 2
/* Refresh period of the test outputs (60 Hz), in ns. */
#define PERIOD_NS 16666667ull
/* The longest interval between two presented frames of an output whose
 * clients draw at every frame: the hostile suite's bound for a bystander
 * (six vblanks missed in a row at 60 Hz). */
#define GAP_MAX_MS 100

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct harness_proc *spawn_simple_shm(struct harness *harness,
		struct harness_vitrail *vitrail) {
	harness_require_program("weston-simple-shm", "weston");
	const char *argv[] = { "weston-simple-shm", NULL };
	return harness_spawn_client(harness, vitrail, argv);
}

static struct harness_proc *spawn_demo(struct harness *harness,
		struct harness_vitrail *vitrail, const char *app_id) {
	const char *argv[] = { harness_demo_path(), "--app-id", app_id, NULL };
	return harness_spawn_client(harness, vitrail, argv);
}

static char *out_file(struct harness *harness, const char *name) {
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/%s", harness->out_dir, name) > 0);
	return path;
}

/* Wait until vitrail's log contains text; fail after timeout_ms. */
/*
 * Check the frames of `output` rendered in [from_ns, to_ns):
 * - none lost: a frame that was ready by its vblank was presented, maybe
 *   late (a frame that missed its vblank may be replaced by the next one,
 *   which carries its damage too: latest frame wins);
 * - none shown twice: each presented at a later vblank than the one before;
 * - no interval between two presented frames over GAP_MAX_MS (scaled),
 *   and at least one frame per GAP_MAX_MS (the clients draw at every
 *   frame).
 * Returns how many were presented.
 */
static size_t check_presented(const struct harness_frame *frames, size_t n,
		const char *output, uint64_t from_ns, uint64_t to_ns) {
	uint64_t last = 0;
	uint64_t gap_max = (uint64_t)harness_scaled_ms(GAP_MAX_MS) * 1000000ull;
	uint64_t worst = 0;
	size_t presented = 0, replaced = 0;
	for (size_t i = 0; i < n; i++) {
		const struct harness_frame *f = &frames[i];
		if (strcmp(f->output, output) != 0 || f->render_start_ns < from_ns ||
				f->render_start_ns >= to_ns) {
			continue;
		}
		if (f->presented_ns == 0) {
			ck_assert_msg(f->render_end_ns > f->target_vblank_ns,
					"%s: frame %" PRIu64 " was ready %.1f ms before its vblank "
					"and never shown",
					output, f->seq,
					(double)(f->target_vblank_ns - f->render_end_ns) / 1e6);
			replaced++;
			continue;
		}
		presented++;
		if (last != 0) {
			ck_assert_msg(f->presented_ns > last,
					"%s: frame %" PRIu64 " presented at %" PRIu64
					", not after the one before "
					"(%" PRIu64 ")",
					output, f->seq, f->presented_ns, last);
			uint64_t gap = f->presented_ns - last;
			if (gap > worst) {
				worst = gap;
			}
		}
		last = f->presented_ns;
	}
	uint64_t vblanks = (to_ns - from_ns) / PERIOD_NS;
	printf("%s: %zu frames presented, %zu late and replaced, in %" PRIu64
		   " vblanks; longest interval %.1f ms (bound %.1f ms)\n",
			output, presented, replaced, vblanks, (double)worst / 1e6,
			(double)gap_max / 1e6);
	ck_assert_msg(worst <= gap_max,
			"%s: %.1f ms between two presented "
			"frames (bound %.1f ms)",
			output, (double)worst / 1e6, (double)gap_max / 1e6);
	// and frames at all: at least one per bound
	ck_assert_msg(presented >= (to_ns - from_ns) / gap_max,
			"%s: %zu frames presented in %" PRIu64 " vblanks", output,
			presented, vblanks);
	return presented;
}

/* ---- no_vulkan ------------------------------------------------------------
 */

START_TEST(test_faults_no_vulkan) {
	struct harness *harness = harness_create("no_vulkan");
	char *frame_log = out_file(harness, "frames.csv");
	const char *extra[] = { "--frame-log", frame_log, NULL };
	// The loader finds no driver: vkCreateInstance has nothing to offer.
	const char *env[] = { "VK_ICD_FILENAMES=/nonexistent/vitrail-no-icd.json",
		NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "640x480",
					.extra_args = extra,
					.env = env,
			});
	harness_wait_for_log(vitrail->proc, 0, "the CPU backend draws instead",
			1000);
	spawn_simple_shm(harness, vitrail);
	spawn_demo(harness, vitrail, "demo");
	harness_wait_for_windows(vitrail->conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_sleep_ms(500);
	uint64_t from = now_ns();
	harness_sleep_ms(1000);
	uint64_t to = now_ns();
	harness_check_output(vitrail->conn, "HEADLESS-1", TOLERANCE);
	harness_stop_vitrail(harness, vitrail);

	struct harness_frame *frames;
	size_t n = harness_read_frame_log(frame_log, &frames);
	check_presented(frames, n, "HEADLESS-1", from, to);
	free(frames);
	free(frame_log);
	harness_destroy(harness);
}
END_TEST

/* ---- device_lost ----------------------------------------------------------
 */

START_TEST(test_faults_device_lost) {
	struct harness *harness = harness_create("device_lost");
	char *frame_log = out_file(harness, "frames.csv");
	const char *extra[] = { "--frame-log", frame_log, NULL };
	// About two seconds in: the clients are up and drawing by then.
	const char *env[] = { "VITRAIL_FAULT_DEVICE_LOST=120", NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "640x480",
					.extra_args = extra,
					.env = env,
			});
	spawn_simple_shm(harness, vitrail);
	spawn_demo(harness, vitrail, "demo");
	harness_wait_for_windows(vitrail->conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_wait_for_log(vitrail->proc, 0, "the Vulkan device is lost", 30000);
	uint64_t lost = now_ns();
	harness_sleep_ms(1200);
	uint64_t to = now_ns();
	// what is on screen now is the tree, drawn by pixman
	harness_check_output(vitrail->conn, "HEADLESS-1", TOLERANCE);
	harness_stop_vitrail(harness, vitrail);

	struct harness_frame *frames;
	size_t n = harness_read_frame_log(frame_log, &frames);
	// Frames the device never finished were dropped at the loss; from
	// 200 ms after it, the pixman path keeps the pace.
	size_t presented =
			check_presented(frames, n, "HEADLESS-1", lost + 200000000ull, to);
	ck_assert_uint_gt(presented, 0);
	free(frames);
	free(frame_log);
	harness_destroy(harness);
}
END_TEST

/* ---- unplug ----------------------------------------------------------------
 */

START_TEST(test_faults_unplug) {
	struct harness *harness = harness_create("unplug");
	char *frame_log = out_file(harness, "frames.csv");
	const char *extra[] = { "--frame-log", frame_log, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 2,
					.output_size = "640x480",
					.extra_args = extra,
			});
	struct harness_conn *conn = vitrail->conn;
	// New windows go to the output with the fewest: two per output, each
	// drawing at every frame, so both outputs always have frames being
	// rendered and queued.
	spawn_simple_shm(harness, vitrail);
	harness_wait_for_windows(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	spawn_simple_shm(harness, vitrail);
	harness_wait_for_windows(conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	spawn_demo(harness, vitrail, "demo-1");
	harness_wait_for_windows(conn, 3, HARNESS_WINDOWS_TIMEOUT_MS);
	spawn_demo(harness, vitrail, "demo-2");
	harness_wait_for_windows(conn, 4, HARNESS_WINDOWS_TIMEOUT_MS);
	const struct harness_window *windows;
	size_t count = harness_list_windows(conn, &windows);
	size_t on_first = 0;
	for (size_t i = 0; i < count; i++) {
		on_first += strcmp(windows[i].output, "HEADLESS-1") == 0;
	}
	ck_assert_msg(on_first == 2, "expected two windows on HEADLESS-1:\n%s",
			harness_describe_windows(conn));
	harness_sleep_ms(1000);

	uint64_t before = now_ns();
	harness_sleep_ms(500);
	harness_unplug_output(conn, "HEADLESS-1");
	uint64_t unplugged = now_ns();
	harness_sleep_ms(1500);
	uint64_t to = now_ns();

	// Every window lives on the output that is left.
	count = harness_list_windows(conn, &windows);
	ck_assert_uint_eq(count, 4);
	for (size_t i = 0; i < count; i++) {
		ck_assert_msg(strcmp(windows[i].output, "HEADLESS-2") == 0,
				"a window stayed on the unplugged output:\n%s",
				harness_describe_windows(conn));
	}
	harness_check_output(conn, "HEADLESS-2", TOLERANCE);
	harness_stop_vitrail(harness, vitrail);

	struct harness_frame *frames;
	size_t n = harness_read_frame_log(frame_log, &frames);
	// The output left, across the unplug: every frame it rendered was
	// shown, once, in order, at the refresh rate. Two windows more on it
	// make one heavier frame; the bound holds that too.
	check_presented(frames, n, "HEADLESS-2", before, to);
	// The unplugged one: nothing presented once it was gone.
	for (size_t i = 0; i < n; i++) {
		if (strcmp(frames[i].output, "HEADLESS-1") == 0) {
			ck_assert_msg(frames[i].render_start_ns < unplugged,
					"HEADLESS-1 rendered frame %" PRIu64 " after it was "
					"unplugged",
					frames[i].seq);
			ck_assert_msg(frames[i].presented_ns < unplugged,
					"HEADLESS-1 presented frame %" PRIu64 " after it was "
					"unplugged",
					frames[i].seq);
		}
	}
	free(frames);
	free(frame_log);
	harness_destroy(harness);
}
END_TEST

/* ---- no_parent ------------------------------------------------------------
 */

static void check_no_parent(struct harness *harness, const char *backend,
		const char *const env[], const char *expect) {
	const char *bin = getenv("VITRAIL_BIN");
	ck_assert_msg(bin != NULL, "VITRAIL_BIN is not set");
	const char *argv[] = { bin, "--backend", backend, "--outputs", "2", NULL };
	struct harness_proc *proc = harness_spawn(harness, backend, argv, env, -1);
	ck_assert_msg(harness_proc_wait(proc, 10000),
			"vitrail --backend %s "
			"without a parent did not exit (see %s)",
			backend, proc->log_path);
	char *log = harness_proc_log(proc);
	ck_assert_msg(WIFEXITED(proc->status) && WEXITSTATUS(proc->status) == 1,
			"vitrail --backend %s without a parent: wait status 0x%x, not "
			"exit status 1; its log:\n%s",
			backend, proc->status, log);
	ck_assert_msg(strstr(log, expect) != NULL,
			"vitrail --backend %s "
			"without a parent did not log '%s'; its log:\n%s",
			backend, expect, log);
	free(log);
}

START_TEST(test_faults_no_parent) {
	struct harness *harness = harness_create("no_parent");
	const char *wayland_env[] = { "WAYLAND_DISPLAY=vitrail-no-such-socket",
		"WAYLAND_SOCKET", "DISPLAY", NULL };
	check_no_parent(harness, "wayland", wayland_env,
			"cannot connect to the parent Wayland compositor "
			"(WAYLAND_DISPLAY=vitrail-no-such-socket)");
	const char *x11_env[] = { "DISPLAY=:4242", "WAYLAND_DISPLAY", NULL };
	check_no_parent(harness, "x11", x11_env,
			"cannot connect to the X server (DISPLAY=:4242)");
	harness_destroy(harness);
}
END_TEST

int main(int argc, char *argv[]) {
	Suite *suite = suite_create("faults");
	harness_add_case(suite, "no_vulkan", test_faults_no_vulkan, 120);
	harness_add_case(suite, "device_lost", test_faults_device_lost, 120);
	harness_add_case(suite, "unplug", test_faults_unplug, 120);
	harness_add_case(suite, "no_parent", test_faults_no_parent, 60);
	return harness_run_suite(suite, argc, argv);
}
