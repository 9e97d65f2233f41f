/*
 * Integration tests: vitrail runs headless (or nested in another vitrail or
 * in Xvfb) with real clients, and every output's screenshot is compared
 * with vitrail's own pixman reference image of the same render tree.
 * That comparison cannot see a surface whose pixels or position entered the
 * tree wrongly (both sides render the same tree): known_pixels checks a
 * client's known colours at the places the window policy gives them.
 *
 * One TCase per scenario; each has one test and writes its logs and images
 * to $VITRAIL_TEST_OUT/<tcase>/. Run one scenario with
 * `test-integration <tcase>` or CK_RUN_CASE=<tcase>.
 *
 * Environment: VITRAIL_BIN (the compositor), VITRAIL_DEMO (vitrail-demo),
 * VITRAIL_LATENCY_PROBE (vitrail-latency-probe), VITRAIL_CALLBACK_PROBE
 * (vitrail-callback-probe), VITRAIL_TEST_OUT,
 * VITRAIL_SOAK_SECONDS (simple_shm_minute, default 60),
 * VITRAIL_TIMEOUT_MULTIPLIER (stretches every deadline; setup.sh sets it
 * for the sanitizer run), VITRAIL_TEST_SANITIZER (meson sets it to the
 * sanitizers of the build; the pacing tests name it when they fail).
 */
#define _GNU_SOURCE // strcasestr
#include <check.h>
#include <inttypes.h>
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

#include <vitrail/renderer.h>

#include "harness.h"
#include "scene-client.h"

/* Largest per-channel difference between screenshot and reference. */
#define TOLERANCE 2
/* Against an image stored in tests/data/references/: either engine, on
 * any run, within this of the image one of them drew when it was stored
 * (each is within TOLERANCE of vitrail's reference renderer). */
#define STORED_TOLERANCE 4

static int soak_seconds(void) {
	const char *s = getenv("VITRAIL_SOAK_SECONDS");
	int seconds = s != NULL ? atoi(s) : 0;
	return seconds > 0 ? seconds : 60;
}

/* The build's sanitizers, or "none" (for failure messages). */
static const char *sanitizer(void) {
	const char *s = getenv("VITRAIL_TEST_SANITIZER");
	return s != NULL && s[0] != '\0' ? s : "none";
}

/* Built with a sanitizer (vitrail and the clients run several times
 * slower: timing bounds widen). */
static bool sanitized(void) {
	return strcmp(sanitizer(), "none") != 0;
}

static bool stats_for(const char *stats, const char *output, long *frames,
		long *dropped);

/* The statistics vitrail wrote to path on exit, into text (len bytes). */
static void read_stats_file(const char *path, char *text, size_t len) {
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "vitrail wrote no statistics to %s", path);
	size_t n = fread(text, 1, len - 1, f);
	text[n] = '\0';
	fclose(f);
}

static void sleep_s(double seconds) {
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9),
	};
	nanosleep(&ts, NULL);
}

/* foot with no user configuration and a font that is installed, running
 * the shell command `command`. */
static struct harness_proc *spawn_foot_running(struct harness *harness,
		struct harness_vitrail *vitrail, const char *command) {
	harness_require_program("foot", "foot");
	char *config = NULL;
	ck_assert(asprintf(&config, "%s/foot.ini", harness->out_dir) > 0);
	FILE *f = fopen(config, "w");
	ck_assert_msg(f != NULL, "cannot write %s", config);
	fclose(f);
	const char *argv[] = { "foot", "--config", config, "--override",
		"font=DejaVu Sans Mono:size=10", "--app-id", "foot", "sh", "-c",
		command, NULL };
	struct harness_proc *proc = harness_spawn_client(harness, vitrail, argv);
	free(config);
	return proc;
}

static struct harness_proc *spawn_foot(struct harness *harness,
		struct harness_vitrail *vitrail) {
	return spawn_foot_running(harness, vitrail,
			"printf 'vitrail integration test\\n'; exec sleep 3600");
}

static struct harness_proc *spawn_simple_shm(struct harness *harness,
		struct harness_vitrail *vitrail) {
	harness_require_program("weston-simple-shm", "weston");
	const char *argv[] = { "weston-simple-shm", NULL };
	return harness_spawn_client(harness, vitrail, argv);
}

static struct harness_proc *spawn_demo(struct harness *harness,
		struct harness_vitrail *vitrail, const char *app_id) {
	const char *argv[] = { harness_demo_path(), "--static", "--app-id", app_id,
		NULL };
	return harness_spawn_client(harness, vitrail, argv);
}

/* Fail unless exactly n mapped windows have their top-left on output. */
static void assert_windows_on(struct harness_conn *conn, const char *output,
		size_t n) {
	const struct harness_window *windows;
	size_t total = harness_list_windows(conn, &windows);
	size_t count = 0;
	for (size_t i = 0; i < total; i++) {
		if (strcmp(windows[i].output, output) == 0) {
			count++;
		}
	}
	if (count != n) {
		char *list = harness_describe_windows(conn);
		ck_abort_msg("%zu windows on %s, expected %zu; the windows:\n%s", count,
				output, n, list);
		free(list);
	}
}

/* Fail unless the window with app_id is mapped on output. */
static const struct harness_window *assert_window_on(struct harness_conn *conn,
		const char *app_id, const char *output) {
	harness_list_windows(conn, NULL);
	const struct harness_window *window = harness_find_window(conn, app_id);
	if (window == NULL || strcmp(window->output, output) != 0) {
		char *list = harness_describe_windows(conn);
		ck_abort_msg("expected the window '%s' on %s; the windows:\n%s", app_id,
				output, list);
		free(list);
	}
	return window;
}

/* ---- two_outputs -------------------------------------------------------- */

START_TEST(test_integration_two_outputs_match_reference) {
	struct harness *harness = harness_create("two_outputs");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 2,
					.output_size = "800x600",
			});
	struct harness_conn *conn = vitrail->conn;

	// One after another: each new toplevel goes to the output with the
	// fewest toplevels, the first on ties.
	spawn_simple_shm(harness, vitrail);
	harness_wait_for_windows(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	assert_windows_on(conn, "HEADLESS-1", 1);

	struct harness_proc *foot = spawn_foot(harness, vitrail);
	harness_wait_for_windows(conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_assert_alive(foot);
	assert_windows_on(conn, "HEADLESS-1", 1);
	assert_windows_on(conn, "HEADLESS-2", 1);
	assert_window_on(conn, "foot", "HEADLESS-2");

	spawn_demo(harness, vitrail, "vitrail-demo");
	harness_wait_for_windows(conn, 3, HARNESS_WINDOWS_TIMEOUT_MS);
	assert_windows_on(conn, "HEADLESS-1", 2);
	assert_windows_on(conn, "HEADLESS-2", 1);
	const struct harness_window *demo =
			assert_window_on(conn, "vitrail-demo", "HEADLESS-1");
	ck_assert_int_eq(demo->width, 400);
	ck_assert_int_eq(demo->height, 300);

	harness_check_output(conn, "HEADLESS-1", TOLERANCE);
	harness_check_output(conn, "HEADLESS-2", TOLERANCE);

	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- nested ------------------------------------------------------------- */

/* One static demo per inner output, each on its own output. */
static void check_nested(struct harness *harness, struct harness_vitrail *inner,
		const char *prefix) {
	struct harness_conn *conn = inner->conn;
	for (int i = 1; i <= 3; i++) {
		char app_id[32], output[32];
		snprintf(app_id, sizeof(app_id), "demo-%d", i);
		snprintf(output, sizeof(output), "%s-%d", prefix, i);
		spawn_demo(harness, inner, app_id);
		harness_wait_for_windows(conn, (size_t)i, HARNESS_WINDOWS_TIMEOUT_MS);
		assert_window_on(conn, app_id, output);
	}
	for (int i = 1; i <= 3; i++) {
		char output[32], stored[32];
		snprintf(output, sizeof(output), "%s-%d", prefix, i);
		snprintf(stored, sizeof(stored), "nested_%s-%d",
				strcmp(prefix, "WL") == 0 ? "wayland" : "x11", i);
		harness_check_output_stored(conn, output, TOLERANCE, stored,
				STORED_TOLERANCE);
	}
}

struct log_row {
	uint64_t presented_ns, render_end_ns;
	bool dropped;
};

static int cmp_u64_asc(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The rows of output's frames in a frame log, by column name (and
 * their target_vblank_ns into targets unless NULL). */
static size_t read_frame_log_targets(const char *path, const char *output,
		struct log_row *rows, uint64_t *targets, size_t max) {
	struct csv csv;
	ck_assert_msg(csv_open(&csv, path), "no frame log %s", path);
	int col_output = harness_csv_column(&csv, path, "output");
	int col_presented = harness_csv_column(&csv, path, "presented_ns");
	int col_end = harness_csv_column(&csv, path, "render_end_ns");
	int col_dropped = harness_csv_column(&csv, path, "dropped");
	int col_target = harness_csv_column(&csv, path, "target_vblank_ns");
	size_t n = 0;
	while (n < max && csv_next(&csv)) {
		const char *name = csv_field(&csv, col_output);
		if (name == NULL || strcmp(name, output) != 0) {
			continue;
		}
		if (targets != NULL) {
			targets[n] = csv_u64(&csv, col_target);
		}
		rows[n++] = (struct log_row){
			.presented_ns = csv_u64(&csv, col_presented),
			.render_end_ns = csv_u64(&csv, col_end),
			.dropped = csv_u64(&csv, col_dropped) != 0,
		};
	}
	csv_close(&csv);
	return n;
}

START_TEST(test_integration_nested_wayland_match_reference) {
	struct harness *harness = harness_create("nested_wayland");
	struct harness_vitrail *outer = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "2400x1000",
			});
	struct harness_vitrail *inner = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.backend = "wayland",
					.outputs = 3,
					.output_size = "640x480",
					.wayland_parent = outer,
			});
	// The inner outputs are toplevels of the outer vitrail.
	harness_wait_for_windows(outer->conn, 3, HARNESS_WINDOWS_TIMEOUT_MS);
	assert_windows_on(outer->conn, "HEADLESS-1", 3);

	check_nested(harness, inner, "WL");
	harness_check_output_stored(outer->conn, "HEADLESS-1", TOLERANCE,
			"nested_wayland-outer", STORED_TOLERANCE);

	harness_stop_vitrail(harness, inner);
	harness_assert_alive(outer->proc);
	harness_wait_for_window_count(outer->conn, 0, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_stop_vitrail(harness, outer);
	harness_destroy(harness);
}
END_TEST

/*
 * nested_steady: a nested vitrail (--backend wayland, one 640x480 output
 * inside a headless vitrail) with a steady client (the demo, a frame at
 * every callback) for 3 s. The parent composites the nested output's
 * buffer for its next refresh, so a commit shows one refresh after the
 * frame event that allowed it: the nested output's display times say so
 * (learned from the parent's presentation feedback). So, from the nested
 * frame log: at least 2 in 3 presented frames (1 in 4 in sanitizer builds)
 * are shown at their display time (within half a period; the first ones
 * teach the delay), and the
 * statistics count at most 10 + frames / 5 refreshes without a new frame
 * (not checked in sanitizer builds)
 * (two compositors and a client on two cores, beside other tests, miss
 * some; alone, 13 of 171, all in the first 0.3 s). Before the
 * delay was learned every frame was one refresh late, and counted so.
 */
START_TEST(test_integration_nested_steady) {
	struct harness *harness = harness_create("nested_steady");
	char *stats_path = NULL, *log_path = NULL;
	ck_assert(asprintf(&stats_path, "%s/stats.txt", harness->out_dir) > 0);
	ck_assert(asprintf(&log_path, "%s/frames.csv", harness->out_dir) > 0);
	// the parent draws with the CPU engine whatever the inner one uses:
	// Vulkan on lavapipe cannot keep its 60 Hz on two cores beside the
	// inner vitrail, and the inner one's pacing is what is measured
	struct harness_vitrail *outer = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "800x600",
					.extra_args = (const char *const[]){ "--render-backend",
							"cpu", NULL },
			});
	struct harness_vitrail *inner = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.backend = "wayland",
					.outputs = 1,
					.output_size = "640x480",
					.wayland_parent = outer,
					.extra_args = (const char *const[]){ "--stats", stats_path,
							"--frame-log", log_path, NULL },
			});
	harness_wait_for_windows(outer->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const char *argv[] = { harness_demo_path(), "--app-id", "steady", NULL };
	struct harness_proc *demo = harness_spawn_client(harness, inner, argv);
	harness_wait_for_windows(inner->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	sleep_s(3.0);
	harness_assert_alive(demo);
	harness_stop_vitrail(harness, inner);
	harness_assert_alive(outer->proc);

	char stats[4096];
	read_stats_file(stats_path, stats, sizeof(stats));
	long frames = 0, dropped = 0;
	ck_assert_msg(stats_for(stats, "WL-1", &frames, &dropped),
			"no WL-1 line:\n%s", stats);

	static struct log_row rows[4096];
	static uint64_t targets[4096];
	size_t n = read_frame_log_targets(log_path, "WL-1", rows, targets, 4096);
	size_t shown = 0, on_time = 0;
	const double period = 1e9 / 60.0;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].presented_ns == 0) {
			continue;
		}
		shown++;
		double off = (double)rows[i].presented_ns - (double)targets[i];
		on_time += fabs(off) < period / 2;
	}
	printf("nested_steady: %ld frames, %ld dropped; %zu of %zu shown at "
		   "their display time\n",
			frames, dropped, on_time, shown);
	ck_assert_msg(frames >= 60, "only %ld nested frames in 3 s:\n%s", frames,
			stats);
	// in sanitizer builds the two compositors miss many of their
	// refreshes (57, 45 of 95 and 27 of 110 on time in TSan runs): an
	// eighth (before the delay was learned: none)
	ck_assert_msg(on_time * (sanitized() ? 8 : 3) >=
					shown * (sanitized() ? 1 : 2),
			"only %zu of %zu nested frames were shown "
			"at their display time",
			on_time, shown);
	// sanitizer builds: the on-time share above says it (Vulkan on
	// lavapipe under TSan drops about half of its refreshes: 46-54 of
	// 100 in three runs, so no bound on drops there)
	ck_assert_msg(sanitized() || dropped <= 10 + frames / 5,
			"the nested output dropped "
			"%ld of %ld frames with a steady client:\n%s",
			dropped, frames, stats);
	harness_stop_vitrail(harness, outer);
	free(stats_path);
	free(log_path);
	harness_destroy(harness);
}
END_TEST

START_TEST(test_integration_nested_x11_match_reference) {
	struct harness *harness = harness_create("nested_x11");
	struct harness_xvfb *xvfb = harness_start_xvfb(harness, "2400x1000x24");
	struct harness_vitrail *inner = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.backend = "x11",
					.outputs = 3,
					.output_size = "640x480",
					.x11_parent = xvfb,
			});
	check_nested(harness, inner, "X11");
	harness_stop_vitrail(harness, inner);
	harness_assert_alive(xvfb->proc);
	harness_destroy(harness);
}
END_TEST

/* ---- simple_shm_minute -------------------------------------------------- */

START_TEST(test_integration_simple_shm_minute_keeps_buffers_free) {
	struct harness *harness = harness_create("simple_shm_minute");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1 });
	struct harness_proc *shm = spawn_simple_shm(harness, vitrail);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);

	uint32_t first = harness_settle_held(vitrail->conn);
	uint32_t last = first;
	int seconds = soak_seconds();
	for (int i = 0; i < seconds; i++) {
		sleep_s(1.0);
		harness_assert_alive(shm);
		harness_assert_alive(vitrail->proc);
		if ((i + 1) % 10 == 0 || i + 1 == seconds) {
			// simple-shm redraws every frame: the tree must keep moving.
			uint32_t generation = harness_settle_held(vitrail->conn);
			ck_assert_msg(generation > last,
					"no new frame in 10 s: "
					"generation %u after %d s, %u before",
					generation, i + 1, last);
			last = generation;
		}
	}
	ck_assert_msg(last - first >= (uint32_t)seconds,
			"only %u generations "
			"in %d s",
			last - first, seconds);

	char *log = harness_proc_log(shm);
	ck_assert_msg(strcasestr(log, "busy") == NULL,
			"weston-simple-shm complained about busy buffers:\n%s", log);
	free(log);
	ck_assert_uint_eq(harness_list_windows(vitrail->conn, NULL), 1);

	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- protocols ---------------------------------------------------------- */

START_TEST(test_integration_protocols_advertised) {
	static const char *const globals[] = {
		"wl_compositor",
		"wl_subcompositor",
		"wl_shm",
		"wl_seat",
		"wl_output",
		"wl_data_device_manager",
		"xdg_wm_base",
		"wp_presentation",
		"wp_viewporter",
		"zxdg_output_manager_v1",
		"zwlr_screencopy_manager_v1",
		"ext_image_copy_capture_manager_v1",
		"ext_output_image_capture_source_manager_v1",
		"ext_foreign_toplevel_image_capture_source_manager_v1",
		"zwlr_virtual_pointer_manager_v1",
		"zwp_virtual_keyboard_manager_v1",
		"vitrail_scene_manager_v1",
	};
	harness_require_program("wayland-info", "wayland-utils");
	struct harness *harness = harness_create("protocols");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1 });

	const char *argv[] = { "wayland-info", NULL };
	struct harness_proc *info = NULL;
	int status = harness_run_client(harness, vitrail, argv,
			HARNESS_WAIT_TIMEOUT_MS, &info);
	ck_assert_int_eq(status, 0);
	char *log = harness_proc_log(info);
	for (size_t i = 0; i < sizeof(globals) / sizeof(globals[0]); i++) {
		char quoted[64];
		snprintf(quoted, sizeof(quoted), "'%s'", globals[i]);
		ck_assert_msg(strstr(log, quoted) != NULL,
				"wayland-info does not list %s:\n%s", globals[i], log);
	}
	free(log);

	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- buffer_release ------------------------------------------------------ */

struct release_client {
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	bool released;
};

static void release_registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct release_client *c = data;
	if (strcmp(interface, "wl_compositor") == 0) {
		c->compositor =
				wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, "wl_shm") == 0) {
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	}
}

static void release_registry_global_remove(void *data,
		struct wl_registry *registry, uint32_t name) {
}

static const struct wl_registry_listener release_registry_listener = {
	.global = release_registry_global,
	.global_remove = release_registry_global_remove,
};

static void release_buffer_release(void *data, struct wl_buffer *buffer) {
	struct release_client *c = data;
	c->released = true;
}

static const struct wl_buffer_listener release_buffer_listener = {
	.release = release_buffer_release,
};

/* vitrail copies a committed buffer's pixels at once, so the buffer goes
 * back to the client right after the commit, before any other commit (a
 * compositor that keeps it until the next one makes clients with two
 * buffers stall, and foot warns about it). */
START_TEST(test_integration_buffer_release_after_commit) {
	struct harness *harness = harness_create("buffer_release");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1 });
	struct wl_display *display = wl_display_connect(vitrail->socket);
	ck_assert_ptr_nonnull(display);
	struct release_client c = { 0 };
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &release_registry_listener, &c);
	ck_assert_int_ge(wl_display_roundtrip(display), 0);
	ck_assert_ptr_nonnull(c.compositor);
	ck_assert_ptr_nonnull(c.shm);

	const int w = 64, h = 48, stride = w * 4, size = stride * h;
	int fd = memfd_create("vitrail-test-release", MFD_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	struct wl_shm_pool *pool = wl_shm_create_pool(c.shm, fd, size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, w, h, stride,
			WL_SHM_FORMAT_XRGB8888);
	wl_buffer_add_listener(buffer, &release_buffer_listener, &c);
	struct wl_surface *surface = wl_compositor_create_surface(c.compositor);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, w, h);
	wl_surface_commit(surface);
	/* one round trip: the commit is applied, nothing else happens */
	ck_assert_int_ge(wl_display_roundtrip(display), 0);
	ck_assert_msg(c.released,
			"the buffer was not released after its "
			"commit was applied");

	wl_surface_destroy(surface);
	wl_buffer_destroy(buffer);
	wl_shm_pool_destroy(pool);
	close(fd);
	wl_shm_destroy(c.shm);
	wl_compositor_destroy(c.compositor);
	wl_registry_destroy(registry);
	wl_display_disconnect(display);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- the callback probe ------------------------------------------------- */

/* Run vitrail-callback-probe with args against vitrail; with pause, it
 * stops vitrail (--pause-pid) around each window's commit. Fails the
 * test with the probe's log, saying what was lost, unless it exits 0. */
static void run_callback_probe(struct harness *harness,
		struct harness_vitrail *vitrail, bool pause, const char *const *args,
		const char *what) {
	const char *argv[16];
	size_t n = 0;
	argv[n++] = harness_env_path("VITRAIL_CALLBACK_PROBE",
			"vitrail-callback-probe");
	char pid[32];
	if (pause) {
		snprintf(pid, sizeof(pid), "%d", (int)vitrail->proc->pid);
		argv[n++] = "--pause-pid";
		argv[n++] = pid;
	}
	for (size_t i = 0; args[i] != NULL && n + 1 < 16; i++) {
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	struct harness_proc *proc = NULL;
	int status = harness_run_client(harness, vitrail, argv,
			harness_scaled_ms(60000), &proc);
	if (status != 0) {
		char *log = harness_proc_log(proc);
		ck_abort_msg("%s (exit status %d):\n%s", what, status, log);
		free(log);
	}
}

static struct harness_vitrail *start_one_output(struct harness *harness) {
	return harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "640x480",
			});
}

/* ---- first_frame_callback ------------------------------------------------ */

/* Every new window gets the frame callback of its first buffer
 * (vitrail-callback-probe). A vblank timer read in the same event-loop
 * turn as the commit that maps a window, after it, once sent the
 * callbacks from the tree before that commit: the window was in no stale
 * tree, its callback never came and no later vblank sent it (WLCS lost
 * about one window in a hundred to it with the CPU backend). The probe
 * makes that turn certain by stopping vitrail around the commit
 * (--pause-pid), then maps windows as fast as it can without it. */
START_TEST(test_integration_first_frame_callback_never_lost) {
	struct harness *harness = harness_create("first_frame_callback");
	struct harness_vitrail *vitrail = start_one_output(harness);
	/* 40 ms stopped and up to two periods a window: about 3 s; 25 s
	 * when every callback is lost */
	const char *paused[] = { "--iterations", "50", "--timeout-ms", "500",
		NULL };
	run_callback_probe(harness, vitrail, true, paused,
			"windows mapped "
			"while vitrail was stopped lost their first frame callback");
	harness_assert_alive(vitrail->proc);
	const char *plain[] = { "--iterations", "300", "--timeout-ms", "500",
		NULL };
	run_callback_probe(harness, vitrail, false, plain,
			"windows lost their first frame callback");
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- presentation_feedback ---------------------------------------------- */

/*
 * The same pause (vitrail-callback-probe --pause-pid --feedback), with a
 * frame planned when vitrail resumes (the helper window drew new content
 * just before it stopped) and the new window's commit asking for
 * wp_presentation feedback as well: the commit, read before the pacer's
 * timer, must not start that frame before wlroots made the commit's
 * feedback current. Every feedback is answered (presented or discarded)
 * and every first frame callback comes. Before the fix a frame started
 * inside the commit drew the window and its feedback was never answered:
 * 12 of 30 windows (Vulkan), 30 of 30 (the CPU backend).
 */
START_TEST(test_integration_presentation_feedback_answered) {
	struct harness *harness = harness_create("presentation_feedback");
	struct harness_vitrail *vitrail = start_one_output(harness);
	const char *args[] = { "--iterations", "50", "--timeout-ms", "500",
		"--feedback", NULL };
	run_callback_probe(harness, vitrail, true, args,
			"windows committed "
			"while vitrail was stopped, with a frame due, lost their "
			"presentation feedback or first frame callback");
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- client_death ------------------------------------------------------- */

START_TEST(test_integration_client_death_survived) {
	struct harness *harness = harness_create("client_death");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 2,
					.output_size = "800x600",
			});
	struct harness_conn *conn = vitrail->conn;

	struct harness_proc *shm = spawn_simple_shm(harness, vitrail);
	harness_wait_for_windows(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	struct harness_proc *demo = spawn_demo(harness, vitrail, "survivor");
	harness_wait_for_windows(conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	assert_window_on(conn, "survivor", "HEADLESS-2");

	// simple-shm draws on every frame callback: let it run, then kill it
	// without warning while it commits.
	uint32_t before = harness_settle_held(conn);
	sleep_s(0.5);
	harness_assert_alive(shm);
	harness_proc_signal(shm, SIGKILL);
	ck_assert(harness_proc_wait(shm, HARNESS_STOP_TIMEOUT_MS));
	harness_wait_for_window_count(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_assert_alive(vitrail->proc);
	ck_assert_uint_gt(harness_settle(conn), before);

	harness_check_output(conn, "HEADLESS-2", TOLERANCE);
	harness_check_output(conn, "HEADLESS-1", TOLERANCE);

	// The last client leaves cleanly (SIGTERM: vitrail-demo disconnects).
	harness_proc_signal(demo, SIGTERM);
	ck_assert(harness_proc_wait(demo, HARNESS_STOP_TIMEOUT_MS));
	ck_assert_msg(WIFEXITED(demo->status) && WEXITSTATUS(demo->status) == 0,
			"vitrail-demo did not exit cleanly on SIGTERM (status 0x%x)",
			demo->status);
	harness_wait_for_window_count(conn, 0, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_assert_alive(vitrail->proc);
	harness_settle(conn);
	harness_check_output(conn, "HEADLESS-2", TOLERANCE);

	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- pacing ------------------------------------------------------------- */

/* The latency bounds of pacing_latency, in refresh periods of the output
 * the probe is on. A frame committed right after its frame callback must
 * show at the next vblank the composition can make: at most one period
 * plus the composition time. A commit that arrives just after a frame
 * started waits at most a period for the next one to start, which then
 * takes its composition time to reach the screen: the composition time is
 * measured, from vitrail's frame log, as presented_ns - render_start_ns.
 * The 95th percentile is held to 1.5 periods or, where composition takes
 * longer (144 Hz on a loaded 2-core machine, sanitizer builds), to one
 * period plus the 95th percentile of the composition time. The median is
 * held to 1.25 periods in plain builds whatever the composition time (the
 * pacing of before, two periods, fails it); sanitizer builds, several
 * times slower, allow one period plus the median composition time. A
 * frame that missed its vblank is replaced by the next one when that one
 * is on time (the latest frame wins): the probe sees it discarded; at
 * most 10% may be (the test runs beside another on two cores). */
#define PACING_MEDIAN_PERIODS 1.25
#define PACING_P95_PERIODS 1.5
#define PACING_DISCARDED_PERCENT 10
#define PACING_PROBE_FRAMES "150"
#define PACING_PROBE_SKIP "20"
#define PACING_COUNTED_FRAMES (150 - 20)
/* How close the reported refresh must be to the configured rate. */
#define PACING_REFRESH_TOLERANCE_MS 0.05

static const char *probe_path(void) {
	const char *path = getenv("VITRAIL_LATENCY_PROBE");
	return path != NULL && path[0] != '\0' ? path : "vitrail-latency-probe";
}

/* Fail with `why` unless vitrail accepts these options (checked with
 * --validate, which parses the command line and exits). */
static void require_vitrail_options(struct harness *harness,
		const char *const options[], const char *why) {
	const char *argv[16];
	size_t argc = 0;
	argv[argc++] = getenv("VITRAIL_BIN");
	ck_assert_msg(argv[0] != NULL, "VITRAIL_BIN is not set");
	for (size_t i = 0; options[i] != NULL && argc < 14; i++) {
		argv[argc++] = options[i];
	}
	argv[argc++] = "--validate";
	argv[argc] = NULL;
	struct harness_proc *proc =
			harness_spawn(harness, "vitrail-validate", argv, NULL, -1);
	ck_assert(harness_proc_wait(proc, HARNESS_WAIT_TIMEOUT_MS));
	if (!WIFEXITED(proc->status) || WEXITSTATUS(proc->status) != 0) {
		char *log = harness_proc_log(proc);
		ck_abort_msg("%s; vitrail rejects the options:\n%s", why, log);
		free(log);
	}
}

/* The probe's summary line, "latency: key=value ...". */
struct probe_result {
	long frames;
	long discarded;
	double median_periods, p95_periods;
	double median_ms, p95_ms;
	double refresh_ms;
};

/* A value of the summary line; NaN when absent or "n/a". */
static double probe_value(const char *line, const char *key) {
	char pattern[64];
	snprintf(pattern, sizeof(pattern), " %s=", key);
	const char *at = strstr(line, pattern);
	if (at == NULL) {
		return NAN;
	}
	at += strlen(pattern);
	char *end;
	double v = strtod(at, &end);
	return end == at ? NAN : v;
}

static struct probe_result parse_probe(struct harness_proc *probe) {
	char *log = harness_proc_log(probe);
	const char *line = strstr(log, "\nlatency: ");
	ck_assert_msg(line != NULL, "%s printed no 'latency:' line; its log:\n%s",
			probe->name, log);
	line++;
	char *copy = strndup(line, strcspn(line, "\n"));
	ck_assert(copy != NULL);
	struct probe_result r = {
		.frames = (long)probe_value(copy, "frames"),
		.discarded = (long)probe_value(copy, "discarded"),
		.median_periods = probe_value(copy, "median_periods"),
		.p95_periods = probe_value(copy, "p95_periods"),
		.median_ms = probe_value(copy, "median_ms"),
		.p95_ms = probe_value(copy, "p95_ms"),
		.refresh_ms = probe_value(copy, "refresh_ms"),
	};
	free(copy);
	free(log);
	return r;
}

static struct harness_proc *spawn_probe(struct harness *harness,
		struct harness_vitrail *vitrail, const char *app_id) {
	char *csv = NULL;
	ck_assert(asprintf(&csv, "%s/%s.csv", harness->out_dir, app_id) > 0);
	char timeout[32];
	snprintf(timeout, sizeof(timeout), "%lld",
			(long long)harness_scaled_ms(HARNESS_WINDOWS_TIMEOUT_MS) / 1000);
	const char *argv[] = { probe_path(), "--app-id", app_id, "--frames",
		PACING_PROBE_FRAMES, "--skip", PACING_PROBE_SKIP, "--csv", csv,
		"--timeout", timeout, NULL };
	struct harness_proc *proc = harness_spawn_client(harness, vitrail, argv);
	free(csv);
	return proc;
}

/* Wait for a probe to finish and check its figures against the bounds
 * and the refresh of its output. */
static void check_probe(struct harness_proc *probe, const char *output,
		double expect_refresh_ms, double lead_median_ms, double lead_p95_ms) {
	ck_assert_msg(harness_proc_wait(probe, HARNESS_WINDOWS_TIMEOUT_MS),
			"%s did not finish its %s frames", probe->name,
			PACING_PROBE_FRAMES);
	char *log = harness_proc_log(probe);
	ck_assert_msg(WIFEXITED(probe->status) && WEXITSTATUS(probe->status) == 0,
			"%s failed (wait status 0x%x); its log:\n%s", probe->name,
			probe->status, log);
	struct probe_result r = parse_probe(probe);
	/* sanitizer builds run several times slower: twice the share */
	long discarded_percent = strcmp(sanitizer(), "none") == 0 ?
			PACING_DISCARDED_PERCENT :
			2 * PACING_DISCARDED_PERCENT;
	ck_assert_msg(r.discarded * 100 <=
					PACING_COUNTED_FRAMES * discarded_percent,
			"%s on %s: %ld frames discarded, more than "
			"%ld%% (sanitizer: %s); its log:\n%s",
			probe->name, output, r.discarded, discarded_percent, sanitizer(),
			log);
	/* feedback of frames still in flight may arrive with the last one */
	ck_assert_msg(r.frames + r.discarded >= PACING_COUNTED_FRAMES,
			"%s on "
			"%s: %ld frames presented and %ld discarded, expected %d in all; "
			"its log:\n%s",
			probe->name, output, r.frames, r.discarded, PACING_COUNTED_FRAMES,
			log);
	ck_assert_msg(fabs(r.refresh_ms - expect_refresh_ms) <=
					PACING_REFRESH_TOLERANCE_MS,
			"%s on %s: the presentation feedback "
			"reports a refresh of %.3f ms, expected %.3f ms (--refresh 60,144)",
			probe->name, output, r.refresh_ms, expect_refresh_ms);
	double median_bound = PACING_MEDIAN_PERIODS;
	if (strcmp(sanitizer(), "none") != 0 &&
			1.0 + lead_median_ms / expect_refresh_ms > median_bound) {
		median_bound = 1.0 + lead_median_ms / expect_refresh_ms;
	}
	ck_assert_msg(r.median_periods <= median_bound,
			"%s on %s: median commit-to-present latency %.3f periods (%.2f "
			"ms), "
			"more than %.2f: a frame committed at its frame callback misses "
			"the "
			"next vblank it could make (composition: median %.2f "
			"ms; sanitizer: %s)",
			probe->name, output, r.median_periods, r.median_ms, median_bound,
			lead_median_ms, sanitizer());
	double p95_bound = 1.0 + lead_p95_ms / expect_refresh_ms;
	/* sanitizer builds: the composition (presented - render start) is
	 * measured, but the wait from a commit to the render start is not:
	 * several times slower, the main thread misses that start by up to a
	 * period of its own (CI TSan runs: 3.79 periods against 1 + 2.60 at
	 * 144 Hz, 3.21 against 1 + 1.99 at 60 Hz), so one more period there */
	if (strcmp(sanitizer(), "none") != 0) {
		p95_bound = 2.0 + lead_p95_ms / expect_refresh_ms;
	}
	p95_bound = p95_bound > PACING_P95_PERIODS ? p95_bound : PACING_P95_PERIODS;
	ck_assert_msg(r.p95_periods <= p95_bound,
			"%s on %s: p95 commit-to-present latency %.3f periods (%.2f ms), "
			"more than %.2f (composition: p95 %.2f ms; sanitizer: "
			"%s)",
			probe->name, output, r.p95_periods, r.p95_ms, p95_bound,
			lead_p95_ms, sanitizer());
	free(log);
}

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* A percentile of presented_ns - render_start_ns (ms), the composition
 * time from the start of rendering to the light, over the frame log's
 * rows of one output that were presented. */
static double lead_ms(const char *log_path, const char *output,
		int percentile) {
	struct csv csv;
	ck_assert_msg(csv_open(&csv, log_path), "no frame log %s", log_path);
	int col_output = harness_csv_column(&csv, log_path, "output");
	int start_col = harness_csv_column(&csv, log_path, "render_start_ns");
	int end_col = harness_csv_column(&csv, log_path, "presented_ns");
	double values[8192];
	size_t n = 0;
	while (n < 8192 && csv_next(&csv)) {
		const char *name = csv_field(&csv, col_output);
		if (name == NULL || strcmp(name, output) != 0) {
			continue;
		}
		double start = (double)csv_u64(&csv, start_col);
		double end = (double)csv_u64(&csv, end_col);
		if (end > start) {
			values[n++] = (end - start) / 1e6;
		}
	}
	csv_close(&csv);
	ck_assert_msg(n > 0, "no frame of %s in %s", output, log_path);
	qsort(values, n, sizeof(values[0]), cmp_double);
	return values[(n * (size_t)percentile) / 100];
}

/* Two outputs at different rates, a latency probe on each: a frame
 * committed right after its frame callback shows at the next vblank its
 * output can make. */
START_TEST(test_integration_pacing_latency_next_vblank) {
	struct harness *harness = harness_create("pacing_latency");
	static const char *const rates[] = { "--outputs", "2", "--refresh",
		"60,144", NULL };
	require_vitrail_options(harness, rates,
			"pacing_latency needs per-output "
			"refresh rates (--refresh 60,144), which come with the new frame "
			"pipeline");
	char *log_path = NULL;
	ck_assert(asprintf(&log_path, "%s/frames.csv", harness->out_dir) > 0);
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 2,
					.output_size = "640x480",
					.extra_args = (const char *const[]){ "--refresh", "60,144",
							"--frame-log", log_path, NULL },
			});
	struct harness_conn *conn = vitrail->conn;

	// One after another, so that each goes to the output with the fewest
	// windows: the first to HEADLESS-1 (60 Hz), the second to HEADLESS-2.
	struct harness_proc *probe60 = spawn_probe(harness, vitrail, "probe-60");
	harness_wait_for_windows(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	assert_window_on(conn, "probe-60", "HEADLESS-1");
	struct harness_proc *probe144 = spawn_probe(harness, vitrail, "probe-144");
	harness_wait_for_windows(conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	assert_window_on(conn, "probe-144", "HEADLESS-2");
	assert_window_on(conn, "probe-60", "HEADLESS-1");

	ck_assert(harness_proc_wait(probe60, HARNESS_WINDOWS_TIMEOUT_MS));
	ck_assert(harness_proc_wait(probe144, HARNESS_WINDOWS_TIMEOUT_MS));
	check_probe(probe60, "HEADLESS-1", 1000.0 / 60.0,
			lead_ms(log_path, "HEADLESS-1", 50),
			lead_ms(log_path, "HEADLESS-1", 95));
	check_probe(probe144, "HEADLESS-2", 1000.0 / 144.0,
			lead_ms(log_path, "HEADLESS-2", 50),
			lead_ms(log_path, "HEADLESS-2", 95));

	harness_stop_vitrail(harness, vitrail);
	free(log_path);
	harness_destroy(harness);
}
END_TEST

/* One output's line of the statistics vitrail writes on exit:
 * "<name>: WxH@RHz frames=N dropped=N cpu_ms_per_frame ...". */
static bool stats_for(const char *stats, const char *output, long *frames,
		long *dropped) {
	size_t len = strlen(output);
	for (const char *line = stats; line != NULL && *line != '\0';) {
		if (strncmp(line, output, len) == 0 && line[len] == ':') {
			const char *f = strstr(line, " frames=");
			const char *d = strstr(line, " dropped=");
			const char *eol = strchr(line, '\n');
			if (f == NULL || d == NULL ||
					(eol != NULL && (f > eol || d > eol))) {
				return false;
			}
			*frames = strtol(f + strlen(" frames="), NULL, 10);
			*dropped = strtol(d + strlen(" dropped="), NULL, 10);
			return true;
		}
		line = strchr(line, '\n');
		if (line != NULL) {
			line++;
		}
	}
	return false;
}

/* An output that shows nothing new drops nothing: with one animated client
 * on HEADLESS-1, HEADLESS-2 stays idle and its statistics must count no
 * dropped frame. */
START_TEST(test_integration_pacing_idle_output_drops_nothing) {
	struct harness *harness = harness_create("pacing_idle_output");
	char *stats_path = NULL;
	ck_assert(asprintf(&stats_path, "%s/stats.txt", harness->out_dir) > 0);
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 2,
					.output_size = "640x480",
					.extra_args = (const char *const[]){ "--stats", stats_path,
							NULL },
			});
	const char *argv[] = { harness_demo_path(), "--app-id", "busy", NULL };
	struct harness_proc *demo = harness_spawn_client(harness, vitrail, argv);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	assert_window_on(vitrail->conn, "busy", "HEADLESS-1");
	sleep_s(2.0);
	harness_assert_alive(demo);
	harness_stop_vitrail(harness, vitrail); // writes the statistics

	char stats[4096];
	read_stats_file(stats_path, stats, sizeof(stats));
	long busy_frames = 0, busy_dropped = 0, idle_frames = 0, idle_dropped = 0;
	ck_assert_msg(stats_for(stats, "HEADLESS-1", &busy_frames, &busy_dropped),
			"no HEADLESS-1 line in %s:\n%s", stats_path, stats);
	ck_assert_msg(stats_for(stats, "HEADLESS-2", &idle_frames, &idle_dropped),
			"no HEADLESS-2 line in %s:\n%s", stats_path, stats);
	ck_assert_msg(busy_frames > 10,
			"the busy output HEADLESS-1 presented "
			"only %ld frames in 2 s:\n%s",
			busy_frames, stats);
	// under a sanitizer the first frame (pipelines warming) may miss its
	// vblank on a loaded machine and be drawn again: that one only
	ck_assert_msg(idle_dropped == 0 ||
					(sanitized() && idle_dropped == 1 && idle_frames <= 2),
			"the idle output HEADLESS-2 reports %ld dropped "
			"of %ld frames, expected none:\n%s",
			idle_dropped, idle_frames, stats);
	free(stats_path);
	harness_destroy(harness);
}
END_TEST

/*
 * frame_log_honest: what the frame log and the statistics say of late
 * frames, checked against the log's own timeline. An animated client on
 * one 640x480 output at 60 Hz; the next 90 frames take 25 ms each
 * (vitrail_test_v1.slow_frames: 1.5 refresh periods, the main thread
 * free meanwhile). Then:
 * - no frame is logged presented before it was ready (presented_ns >=
 *   render_end_ns on every presented row);
 * - the statistics' dropped count is the refreshes that showed nothing
 *   new: from the log's presentations, a gap of k periods between two
 *   shown frames is k - 1 refreshes without a new frame (the client
 *   animates without pause, so every refresh wanted one); the two agree
 *   within 3 + an eighth (before the fix: 73 against 93 on Vulkan), and
 *   the slow frames made at least 20.
 */
START_TEST(test_integration_frame_log_honest) {
	struct harness *harness = harness_create("frame_log_honest");
	char *stats_path = NULL, *log_path = NULL;
	ck_assert(asprintf(&stats_path, "%s/stats.txt", harness->out_dir) > 0);
	ck_assert(asprintf(&log_path, "%s/frames.csv", harness->out_dir) > 0);
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "640x480",
					.extra_args = (const char *const[]){ "--stats", stats_path,
							"--frame-log", log_path, NULL },
			});
	const char *argv[] = { harness_demo_path(), "--app-id", "busy", NULL };
	struct harness_proc *demo = harness_spawn_client(harness, vitrail, argv);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	sleep_s(0.5);
	uint32_t costs[90];
	for (size_t i = 0; i < 90; i++) {
		costs[i] = 25000;
	}
	harness_slow_frames(vitrail->conn, costs, 90);
	sleep_s(2.5);
	harness_assert_alive(demo);
	harness_stop_vitrail(harness, vitrail);

	char stats[4096];
	read_stats_file(stats_path, stats, sizeof(stats));
	long frames = 0, dropped = 0;
	ck_assert_msg(stats_for(stats, "HEADLESS-1", &frames, &dropped),
			"no HEADLESS-1 line:\n%s", stats);

	static struct log_row rows[4096];
	size_t n = read_frame_log_targets(log_path, "HEADLESS-1", rows, NULL, 4096);
	static uint64_t shown[4096];
	size_t nshown = 0;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].presented_ns == 0) {
			continue;
		}
		ck_assert_msg(rows[i].presented_ns >= rows[i].render_end_ns,
				"frame log row %zu: presented at %" PRIu64 ", %.2f ms before "
				"it was ready",
				i, rows[i].presented_ns,
				(double)(rows[i].render_end_ns - rows[i].presented_ns) / 1e6);
		shown[nshown++] = rows[i].presented_ns;
	}
	qsort(shown, nshown, sizeof(shown[0]), cmp_u64_asc);
	const double period = 1e9 / 60.0;
	long missed = 0;
	for (size_t i = 1; i < nshown; i++) {
		long gap = lround((double)(shown[i] - shown[i - 1]) / period);
		missed += gap > 1 ? gap - 1 : 0;
	}
	printf("frame_log_honest: %zu frames logged, %zu shown; refreshes "
		   "without a new frame: %ld from the log, %ld in the statistics\n",
			n, nshown, missed, dropped);
	ck_assert_msg(missed >= 20,
			"the slow frames left only %ld refreshes "
			"without a new frame: the test shows nothing",
			missed);
	// the client is slower than vitrail in sanitizer builds: a few gaps
	// then wanted nothing new, which the statistics rightly leave out
	ck_assert_msg(labs(dropped - missed) <= 3 + missed / (sanitized() ? 4 : 8),
			"the statistics "
			"say %ld "
			"dropped, the log's presentations %ld refreshes without a new "
			"frame:\n%s",
			dropped, missed, stats);
	free(stats_path);
	free(log_path);
	harness_destroy(harness);
}
END_TEST

/* ---- known_pixels ------------------------------------------------------- */

/*
 * A client whose pixels are known, on screen where the window policy says,
 * read back from grim's screenshot and compared with the client's own
 * colours: not with vitrail's reference image, which renders the same tree
 * and so would agree with a surface whose pixels or position entered the
 * tree wrongly.
 *
 * The window's buffer (KP_W x KP_H, ARGB8888): four opaque quadrants
 * (red top-left, green top-right, blue bottom-left, yellow bottom-right,
 * split at x = 100 and y = 60), a one-pixel magenta column at x = 37 and
 * a cyan row at y = 91 over them, and a 10 x 10 translucent block at
 * (150, 10) of premultiplied 0x80400000. Its window geometry is
 * (12, 0, 188, 120), so the surface's origin lies 12 px left of the
 * window's. A subsurface 20 x 16 of opaque orange sits at (-10, 30) of the
 * surface, half outside it, above it.
 */
#define KP_W 200
#define KP_H 120
#define KP_GEO_X 12
#define KP_BACKGROUND 0xff29303au // config.c's default background
#define KP_RED 0xffff0000u
#define KP_GREEN 0xff00ff00u
#define KP_BLUE 0xff0000ffu
#define KP_YELLOW 0xffffff00u
#define KP_MAGENTA 0xffff00ffu
#define KP_CYAN 0xff00ffffu
#define KP_ORANGE 0xffff8000u
#define KP_SUB_X (-10)
#define KP_SUB_Y 30
#define KP_SUB_W 20
#define KP_SUB_H 16

static uint32_t known_pixel(int32_t x, int32_t y) {
	if (x == 37) {
		return KP_MAGENTA;
	}
	if (y == 91) {
		return KP_CYAN;
	}
	if (x >= 150 && x < 160 && y >= 10 && y < 20) {
		return 0x80400000u;
	}
	if (y < 60) {
		return x < 100 ? KP_RED : KP_GREEN;
	}
	return x < 100 ? KP_BLUE : KP_YELLOW;
}

struct known_client {
	struct sc_app app;
	struct wl_surface *child;
	struct wl_subsurface *subsurface;
	struct sc_buffer *child_buffer;
};

static void known_client_start(struct known_client *c,
		struct harness_vitrail *vitrail) {
	*c = (struct known_client){ 0 };
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	ck_assert_msg(sc_app_init(&c->app, "known-pixels"), "cannot connect to %s",
			vitrail->socket);
	struct sc_app *app = &c->app;
	ck_assert(sc_app_create_window(app, "known-pixels", "known pixels", KP_W,
			KP_H, 0));
	for (int32_t y = 0; y < KP_H; y++) {
		for (int32_t x = 0; x < KP_W; x++) {
			app->buffer->pixels[y * KP_W + x] = known_pixel(x, y);
		}
	}
	xdg_surface_set_window_geometry(app->xdg_surface, KP_GEO_X, 0,
			KP_W - KP_GEO_X, KP_H);
	c->child = wl_compositor_create_surface(app->compositor);
	c->subsurface = wl_subcompositor_get_subsurface(app->subcompositor,
			c->child, app->surface);
	wl_subsurface_set_position(c->subsurface, KP_SUB_X, KP_SUB_Y);
	c->child_buffer = sc_buffer_create(app, KP_SUB_W, KP_SUB_H,
			WL_SHM_FORMAT_ARGB8888, KP_ORANGE);
	wl_surface_attach(c->child, c->child_buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(c->child, 0, 0, KP_SUB_W, KP_SUB_H);
	// synchronised: the child's state comes with the parent's commit
	wl_surface_commit(c->child);
	wl_surface_attach(app->surface, app->buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(app->surface, 0, 0, KP_W, KP_H);
	wl_surface_commit(app->surface);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
}

static void known_client_finish(struct known_client *c) {
	wl_subsurface_destroy(c->subsurface);
	wl_surface_destroy(c->child);
	sc_buffer_destroy(c->child_buffer);
	sc_app_finish(&c->app);
}

struct known_check {
	int32_t x, y; // output pixel
	uint32_t pixel; // premultiplied ARGB
	int tolerance;
	const char *what;
};

/* Screenshot output with grim and check every pixel of checks. */
static void check_known_pixels(struct harness *harness,
		struct harness_vitrail *vitrail, const char *name,
		const struct known_check *checks, size_t n) {
	harness_settle(vitrail->conn);
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/%s.png", harness->out_dir, name) > 0);
	int status = harness_grim(harness, vitrail, "HEADLESS-1", path);
	ck_assert_msg(status == 0, "grim failed with status %d", status);
	int32_t w = 0, h = 0;
	uint32_t *pixels = vr_png_read(path, &w, &h);
	ck_assert_msg(pixels != NULL, "cannot read %s", path);
	for (size_t i = 0; i < n; i++) {
		const struct known_check *k = &checks[i];
		ck_assert(k->x >= 0 && k->x < w && k->y >= 0 && k->y < h);
		uint32_t actual = pixels[k->y * w + k->x];
		int worst = 0;
		for (int shift = 0; shift < 32; shift += 8) {
			int d = abs((int)((actual >> shift) & 0xff) -
					(int)((k->pixel >> shift) & 0xff));
			worst = d > worst ? d : worst;
		}
		ck_assert_msg(worst <= k->tolerance,
				"%s: pixel (%d, %d) is "
				"0x%08x, expected 0x%08x (%s); screenshot %s",
				name, k->x, k->y, actual, k->pixel, k->what, path);
	}
	free(pixels);
	free(path);
}

/* The checks for a surface whose origin is at (ox, oy) on the output:
 * surface pixel (sx, sy) shows at (ox + sx, oy + sy). */
static size_t known_checks(struct known_check *out, int32_t ox, int32_t oy,
		bool subsurface_visible) {
	// The translucent block over the background: each channel
	// s + b * (1 - 128 / 255), with b = 0x29, 0x30, 0x3a:
	// 64 + 20.4 = 84, 0 + 23.9 = 24, 0 + 28.9 = 29.
	const uint32_t blended = 0xff000000u | 84u << 16 | 24u << 8 | 29u;
	const struct known_check checks[] = {
		{ 12, 0, KP_RED, 0, "red quadrant, window's top-left" },
		{ 99, 59, KP_RED, 0, "red quadrant's last pixel" },
		{ 100, 0, KP_GREEN, 0, "green quadrant's first pixel" },
		{ 199, 59, KP_GREEN, 0, "green quadrant's last pixel" },
		{ 12, 60, KP_BLUE, 0, "blue quadrant's first pixel" },
		{ 99, 119, KP_BLUE, 0, "blue quadrant's last pixel" },
		{ 100, 60, KP_YELLOW, 0, "yellow quadrant's first pixel" },
		{ 199, 119, KP_YELLOW, 0, "yellow quadrant's last pixel" },
		{ 37, 5, KP_MAGENTA, 0, "marker column x = 37" },
		{ 36, 5, KP_RED, 0, "left of the marker column" },
		{ 38, 5, KP_RED, 0, "right of the marker column" },
		{ 37, 100, KP_MAGENTA, 0, "marker column, lower half" },
		{ 150, 91, KP_CYAN, 0, "marker row y = 91" },
		{ 150, 90, KP_YELLOW, 0, "above the marker row" },
		{ 150, 92, KP_YELLOW, 0, "below the marker row" },
		{ 150, 10, blended, 1, "translucent block over the background" },
		{ 159, 19, blended, 1, "translucent block's last pixel" },
		{ 160, 19, KP_GREEN, 0, "right of the translucent block" },
		{ 199, -1, KP_BACKGROUND, 0, "above the window" },
		{ 200, 0, KP_BACKGROUND, 0, "right of the window" },
		{ 100, 120, KP_BACKGROUND, 0, "below the window" },
		{ 10, 30, KP_RED, 0, "right of the subsurface" },
		{ 12, 46, KP_RED, 0, "below the subsurface" },
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		out[n] = checks[i];
		out[n].x += ox;
		out[n].y += oy;
		if (out[n].x >= 0 && out[n].y >= 0) {
			n++;
		}
	}
	if (subsurface_visible) {
		const struct known_check sub[] = {
			{ KP_SUB_X, KP_SUB_Y, KP_ORANGE, 0,
					"subsurface's top-left, outside the parent" },
			{ KP_SUB_X + KP_SUB_W - 1, KP_SUB_Y + KP_SUB_H - 1, KP_ORANGE, 0,
					"subsurface's bottom-right, over the parent" },
			{ 0, KP_SUB_Y, KP_ORANGE, 0, "subsurface over the parent" },
			{ KP_SUB_X - 1, KP_SUB_Y, KP_BACKGROUND, 0,
					"left of the subsurface" },
			{ KP_SUB_X, KP_SUB_Y - 1, KP_BACKGROUND, 0,
					"above the subsurface" },
			{ -1, 0, KP_BACKGROUND, 0, "left of the surface" },
		};
		for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
			out[n] = sub[i];
			out[n].x += ox;
			out[n].y += oy;
			n++;
		}
	}
	return n;
}

START_TEST(test_integration_known_pixels_on_screen) {
	struct harness *harness = harness_create("known_pixels");
	struct known_check checks[64];

	// Desktop: the first window on a 640x480 output is centred, then
	// moved 150 px left and 90 px up: its geometry (188 x 120) goes to
	// x = (640 - 188) / 2 - 150 = 76, y = (480 - 120) / 2 - 90 = 90, and
	// the surface's origin to (76 - 12, 90) = (64, 90).
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "640x480",
			});
	struct known_client client;
	known_client_start(&client, vitrail);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const struct harness_window *window =
			assert_window_on(vitrail->conn, "known-pixels", "HEADLESS-1");
	ck_assert_int_eq(window->x, 76);
	ck_assert_int_eq(window->y, 90);
	ck_assert_int_eq(window->width, KP_W - KP_GEO_X);
	ck_assert_int_eq(window->height, KP_H);
	size_t n = known_checks(checks, 64, 90, true);
	check_known_pixels(harness, vitrail, "desktop", checks, n);
	known_client_finish(&client);
	harness_stop_vitrail(harness, vitrail);

	// Kiosk: the window's geometry goes to the output's origin (the
	// client keeps its size), the surface's origin to (-12, 0); the
	// subsurface (at x -22..-3) is off screen.
	// (grim takes screenshots through screencopy: allowed)
	char *conf = harness_write_file(harness, "kiosk.conf",
			"mode kiosk\nallow screencopy\n");
	const char *kiosk[] = { "--config", conf, NULL };
	vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "640x480",
					.extra_args = kiosk,
			});
	known_client_start(&client, vitrail);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	window = assert_window_on(vitrail->conn, "known-pixels", "HEADLESS-1");
	ck_assert_int_eq(window->x, 0);
	ck_assert_int_eq(window->y, 0);
	n = known_checks(checks, -KP_GEO_X, 0, false);
	check_known_pixels(harness, vitrail, "kiosk", checks, n);
	known_client_finish(&client);
	harness_stop_vitrail(harness, vitrail);
	free(conf);
	harness_destroy(harness);
}
END_TEST

/* ---- foot's decorations ------------------------------------------------- */

#define DECO_FOCUSED 0xff2f5d8au // vitrail(5), decorations

static bool rgb_is(uint32_t pixel, uint32_t want) {
	return (pixel & 0xffffffu) == (want & 0xffffffu);
}

/* Run foot titled "HHHH HHHH" in a vitrail with config `config` (a line
 * of vitrail(5)); screenshot HEADLESS-1 once its window is up. The
 * window goes to *w; returns the pixels (malloc'd). */
static uint32_t *foot_shot(const char *config, const char *name,
		struct harness_window *w, int32_t *iw, int32_t *ih) {
	struct harness *harness = harness_current();
	char *conf = NULL, *foot_ini = NULL, *path = NULL;
	ck_assert(asprintf(&conf, "%s/%s.conf", harness->out_dir, name) > 0);
	ck_assert(asprintf(&foot_ini, "%s/foot.ini", harness->out_dir) > 0);
	ck_assert(asprintf(&path, "%s/%s.png", harness->out_dir, name) > 0);
	FILE *f = fopen(conf, "w");
	ck_assert(f != NULL);
	fprintf(f, "%s\n", config);
	fclose(f);
	f = fopen(foot_ini, "w");
	ck_assert(f != NULL);
	fclose(f);
	const char *const args[] = { "--config", conf, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "1024x768",
					.extra_args = args });
	const char *argv[] = { "foot", "--config", foot_ini, "--override",
		"font=DejaVu Sans Mono:size=10", "--app-id", "foot", "--title",
		"HHHH HHHH", "sh", "-c", "exec sleep 3600", NULL };
	struct harness_proc *foot = harness_spawn_client(harness, vitrail, argv);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_assert_alive(foot);
	// foot sets its title with its window (--title)
	uint32_t *pixels = NULL;
	harness_settle(vitrail->conn);
	harness_list_windows(vitrail->conn, NULL);
	const struct harness_window *fw =
			harness_find_window(vitrail->conn, "foot");
	ck_assert_msg(fw != NULL, "no foot window: %s",
			harness_describe_windows(vitrail->conn));
	*w = *fw;
	w->app_id = NULL;
	w->output = NULL;
	ck_assert_int_eq(harness_grim(harness, vitrail, "HEADLESS-1", path), 0);
	pixels = vr_png_read(path, iw, ih);
	ck_assert(pixels != NULL);
	harness_stop_vitrail(harness, vitrail);
	free(conf);
	free(foot_ini);
	free(path);
	return pixels;
}

/*
 * foot_decorations: foot asks for server-side decorations through
 * xdg-decoration and gets vitrail's: its title bar right above its window
 * in the focused colour, with white text where its title is, and the
 * border left of it. With "decorations client" foot draws its own and
 * vitrail none: not one pixel of the screen is vitrail's title colour.
 */
START_TEST(test_integration_foot_decorations) {
	harness_require_program("foot", "foot");
	struct harness *harness = harness_create("foot_decorations");
	struct harness_window w;
	int32_t iw, ih;
	uint32_t *px = foot_shot("decorations server", "server", &w, &iw, &ih);
	ck_assert_msg(w.x >= 4 && w.y >= 28 && w.x + w.width + 4 <= iw &&
					w.y + w.height + 4 <= ih,
			"foot at %d,%d %dx%d: its decorations "
			"are not inside the output",
			w.x, w.y, w.width, w.height);
	uint32_t p = px[(w.y - 12) * iw + w.x + 2];
	ck_assert_msg(rgb_is(p, DECO_FOCUSED),
			"foot's title bar at (%d, %d) "
			"is 0x%08x",
			w.x + 2, w.y - 12, p);
	p = px[(w.y + 20) * iw + w.x - 2];
	ck_assert_msg(rgb_is(p, DECO_FOCUSED),
			"foot's left border at (%d, %d) "
			"is 0x%08x",
			w.x - 2, w.y + 20, p);
	int white = 0;
	for (int y = w.y - 24; y < w.y; y++) {
		for (int x = w.x; x < w.x + 150; x++) {
			white += (px[y * iw + x] & 0xffffffu) == 0xffffffu;
		}
	}
	ck_assert_msg(white >= 20, "foot's title drew %d white pixels", white);
	free(px);

	px = foot_shot("decorations client", "client", &w, &iw, &ih);
	int ours = 0;
	for (int32_t i = 0; i < iw * ih; i++) {
		ours += rgb_is(px[i], DECO_FOCUSED);
	}
	ck_assert_msg(ours == 0,
			"with decorations client, %d pixels are "
			"vitrail's title colour",
			ours);
	free(px);
	harness_destroy(harness);
}
END_TEST

/* ---- runner ------------------------------------------------------------- */

/*
 * wtype (a real virtual-keyboard client, with a keymap of its own for the
 * characters it types) types a line into foot, focused when it maps: the
 * shell in foot reads the line and writes it to a file, the oracle.
 */
START_TEST(test_integration_wtype_foot) {
	harness_require_program("wtype", "wtype");
	struct harness *harness = harness_create("wtype_foot");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480" });
	char *out = NULL, *command = NULL;
	ck_assert(asprintf(&out, "%s/typed.txt", harness->out_dir) > 0);
	ck_assert(asprintf(&command,
					  "IFS= read -r line; printf '%%s' \"$line\" "
					  "> '%s.part' && mv '%s.part' '%s'; exec sleep 3600",
					  out, out, out) > 0);
	struct harness_proc *foot = spawn_foot_running(harness, vitrail, command);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	assert_window_on(vitrail->conn, "foot", "HEADLESS-1");
	harness_settle(vitrail->conn);
	const char *text = "Hello, vitrail: 1+2=3 & {~ok}";
	const char *wtype[] = { "wtype", text, "-k", "Return", NULL };
	ck_assert_int_eq(harness_run_client(harness, vitrail, wtype,
							 HARNESS_WAIT_TIMEOUT_MS, NULL),
			0);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(30000);
	char typed[256] = { 0 };
	for (;;) {
		FILE *f = fopen(out, "r");
		if (f != NULL) {
			size_t n = fread(typed, 1, sizeof(typed) - 1, f);
			typed[n] = '\0';
			fclose(f);
			break;
		}
		ck_assert_msg(harness_now_ms() < deadline,
				"foot's shell read no line within 30 s");
		sleep_s(0.1);
	}
	ck_assert_str_eq(typed, text);
	harness_assert_alive(foot);
	harness_stop_vitrail(harness, vitrail);
	free(command);
	free(out);
	harness_destroy(harness);
}
END_TEST

static Suite *integration_suite(void) {
	Suite *suite = suite_create("integration");
	harness_add_case(suite, "two_outputs",
			test_integration_two_outputs_match_reference, 240);
	harness_add_case(suite, "nested_wayland",
			test_integration_nested_wayland_match_reference, 300);
	harness_add_case(suite, "nested_steady", test_integration_nested_steady,
			120);
	harness_add_case(suite, "nested_x11",
			test_integration_nested_x11_match_reference, 300);
	harness_add_case(suite, "simple_shm_minute",
			test_integration_simple_shm_minute_keeps_buffers_free,
			soak_seconds() + 180);
	harness_add_case(suite, "buffer_release",
			test_integration_buffer_release_after_commit, 120);
	harness_add_case(suite, "protocols", test_integration_protocols_advertised,
			120);
	harness_add_case(suite, "client_death",
			test_integration_client_death_survived, 240);
	harness_add_case(suite, "first_frame_callback",
			test_integration_first_frame_callback_never_lost, 90);
	harness_add_case(suite, "presentation_feedback",
			test_integration_presentation_feedback_answered, 90);
	harness_add_case(suite, "pacing_latency",
			test_integration_pacing_latency_next_vblank, 150);
	harness_add_case(suite, "wtype_foot", test_integration_wtype_foot, 90);
	harness_add_case(suite, "known_pixels",
			test_integration_known_pixels_on_screen, 180);
	harness_add_case(suite, "foot_decorations",
			test_integration_foot_decorations, 120);
	harness_add_case(suite, "pacing_idle_output",
			test_integration_pacing_idle_output_drops_nothing, 120);
	harness_add_case(suite, "frame_log_honest",
			test_integration_frame_log_honest, 120);
	return suite;
}

int main(int argc, char *argv[]) {
	return harness_run_suite(integration_suite(), argc, argv);
}
