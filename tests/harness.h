/*
 * Helpers for vitrail's integration tests: start vitrail (plain or nested),
 * spawn real clients, talk to vitrail's vitrail_test_v1 global, and compare
 * a grim screenshot of an output with vitrail's pixman reference image.
 *
 * Every helper that can fail fails the current Check test with a message
 * that says what was awaited; every wait has a deadline. Child processes
 * share the test process's process group and get SIGKILL when it dies, so
 * nothing outlives a failed or timed-out test; harness_destroy stops them
 * politely (SIGTERM, then SIGKILL after a timeout) on the normal path.
 *
 * Files: each test writes into $VITRAIL_TEST_OUT/<test name>/ (one log per
 * child with its stdout and stderr, screenshots, references, diffs).
 * harness_after_test() prints those logs; the test runner calls it for
 * every failed test, so the logs show even when the test process died.
 */
#ifndef VITRAIL_TESTS_HARNESS_H
#define VITRAIL_TESTS_HARNESS_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <wayland-util.h>

#include "csv.h"

/* Deadlines, in milliseconds; every wait stretches them by
 * $VITRAIL_TIMEOUT_MULTIPLIER when set (>= 1), as setup.sh does for the
 * sanitizer run. */
#define HARNESS_START_TIMEOUT_MS 60000 // vitrail, Xvfb: until ready
#define HARNESS_WAIT_TIMEOUT_MS 30000 // one protocol round trip
#define HARNESS_WINDOWS_TIMEOUT_MS 60000 // clients mapping their windows
#define HARNESS_STOP_TIMEOUT_MS 5000 // SIGTERM -> SIGKILL

struct harness_conn;

/* CLOCK_MONOTONIC, in milliseconds. */
int64_t harness_now_ms(void);
/* A deadline of ms, stretched by $VITRAIL_TIMEOUT_MULTIPLIER. */
int64_t harness_scaled_ms(int ms);
/* Sleep ms milliseconds (on through signals). */
void harness_sleep_ms(int ms);
/* $name when set and not empty (a built program's path, from meson),
 * else fallback (looked up in PATH). */
const char *harness_env_path(const char *name, const char *fallback);
/* The demo client: $VITRAIL_DEMO, else vitrail-demo. */
const char *harness_demo_path(void);

/* A child process. */
struct harness_proc {
	char *name; // for messages and the log file name
	pid_t pid; // 0 once reaped
	int status; // wait status once reaped
	char *log_path; // its stdout and stderr
	struct wl_list link; // harness::procs
};

/* A running vitrail with a connection to its vitrail_test_v1 global. */
struct harness_vitrail {
	struct harness_proc *proc;
	char *socket; // its WAYLAND_DISPLAY
	char *x_display; // the DISPLAY it offers X11 clients, or NULL
	struct harness_conn *conn;
	struct wl_list link; // harness::vitrails
};

/* An X server for the x11 backend. */
struct harness_xvfb {
	struct harness_proc *proc;
	char *display; // its DISPLAY, ":N"
	struct wl_list link; // harness::xvfbs
};

struct harness {
	char *name; // the test's name
	char *out_dir; // $VITRAIL_TEST_OUT/<name>
	char *runtime_dir; // private XDG_RUNTIME_DIR, mode 0700
	struct wl_list procs; // harness_proc::link
	struct wl_list vitrails; // harness_vitrail::link
	struct wl_list xvfbs; // harness_xvfb::link
	int nprocs; // children spawned so far (numbers the logs)
	int nsockets; // sockets named so far
	int nchecks; // harness_check_output calls so far
};

struct harness_vitrail_options {
	const char *backend; // "headless" when NULL
	int outputs; // 0: vitrail's default
	const char *output_size; // "WxH" or NULL
	/* Nested: the parent compositor. wayland_parent sets WAYLAND_DISPLAY,
	 * x11_parent sets DISPLAY for the new vitrail. */
	struct harness_vitrail *wayland_parent;
	struct harness_xvfb *x11_parent;
	const char *const *extra_args; // NULL-terminated, or NULL
	// environment for vitrail, as harness_spawn's env (at most 16)
	const char *const *env;
};

/* One vitrail_test_v1.window event. */
struct harness_window {
	char *app_id;
	char *output;
	int32_t x, y, width, height;
};

/* Create the test's output dir (emptied) and private runtime dir, and set
 * XDG_RUNTIME_DIR and XDG_CONFIG_HOME (an empty dir in the output dir) for
 * this process and so its children; unsets WAYLAND_DISPLAY, WAYLAND_SOCKET
 * and DISPLAY so nothing reaches a compositor outside the test. */
struct harness *harness_create(const char *name);
/* Stop every child (SIGTERM, then SIGKILL), disconnect, remove the runtime
 * dir. Accepts NULL. */
void harness_destroy(struct harness *harness);
/* The harness of the running test, or NULL. */
struct harness *harness_current(void);

/* For the test runner, after test `name` ran (in a child process that may
 * have died): print every child's log when it failed, and remove a runtime
 * dir it left behind. */
void harness_after_test(const char *name, bool failed);
/* Add a test case of one test, with the timeout (seconds, stretched by
 * $VITRAIL_TIMEOUT_MULTIPLIER) and a teardown that destroys the current
 * harness. */
void harness_add_case(Suite *suite, const char *name, const TTest *test,
		double timeout);
/* The test programs' main: run the suite, or only the case argv[1], and
 * call harness_after_test for each; returns the exit status. */
int harness_run_suite(Suite *suite, int argc, char *argv[]);
/* Fail the test unless `program` is found in PATH. */
void harness_require_program(const char *program, const char *package);

/*
 * Spawn argv[0] (searched in PATH) with stdout and stderr in a log file.
 * env: NULL-terminated list of "NAME=value" to set or "NAME" to unset in
 * the child, or NULL. keep_fd: a descriptor the child inherits (-1: none).
 */
struct harness_proc *harness_spawn(struct harness *harness, const char *name,
		const char *const argv[], const char *const env[], int keep_fd);
/* Spawn a Wayland client of vitrail (WAYLAND_DISPLAY set, DISPLAY unset). */
struct harness_proc *harness_spawn_client(struct harness *harness,
		struct harness_vitrail *vitrail, const char *const argv[]);
/* Spawn an X11 client of vitrail's Xwayland (DISPLAY set to its
 * x_display, WAYLAND_DISPLAY unset); fails the test when vitrail offers
 * no X display. */
struct harness_proc *harness_spawn_x11_client(struct harness *harness,
		struct harness_vitrail *vitrail, const char *const argv[]);
/* Run a client to completion (at most timeout_ms, then it is killed and the
 * test fails); returns its exit status (-1 when killed by a signal). The
 * process (for its log) goes to *proc unless proc is NULL. */
int harness_run_client(struct harness *harness, struct harness_vitrail *vitrail,
		const char *const argv[], int timeout_ms, struct harness_proc **proc);
/* Reap without blocking; true while the process runs. */
bool harness_proc_alive(struct harness_proc *proc);
/* Send a signal (ignored once reaped). */
void harness_proc_signal(struct harness_proc *proc, int sig);
/* Wait until it exits; false on timeout. */
bool harness_proc_wait(struct harness_proc *proc, int timeout_ms);
/* Write text to <out_dir>/<name>; returns the path (malloc'd). */
char *harness_write_file(struct harness *harness, const char *name,
		const char *text);
/* SIGTERM, wait, SIGKILL, reap; returns the wait status. */
int harness_proc_stop(struct harness_proc *proc);
/* The log's contents (malloc'd, NUL-terminated). */
char *harness_proc_log(struct harness_proc *proc);
/* Fail the test, with the process's log, unless it is alive. */
void harness_assert_alive(struct harness_proc *proc);
/* The length of the process's log now. */
size_t harness_log_length(struct harness_proc *proc);
/* Wait until the process's log has text after its first `from` bytes
 * (0: anywhere); fail the test, with the end of the log, after
 * timeout_ms (scaled) or when the process died. */
void harness_wait_for_log(struct harness_proc *proc, size_t from,
		const char *text, int timeout_ms);

/* Start vitrail with --test, --socket and --ready-fd and wait until ready
 * (and for the DISPLAY line it writes there when it offers Xwayland), then
 * connect to its vitrail_test_v1 global. */
struct harness_vitrail *harness_start_vitrail(struct harness *harness,
		const struct harness_vitrail_options *options);
/* Disconnect, SIGTERM vitrail and fail the test unless it exits with
 * status 0 in time (a crash or sanitizer report at shutdown fails). */
void harness_stop_vitrail(struct harness *harness,
		struct harness_vitrail *vitrail);
/* Start Xvfb on a free display with one screen of `screen` ("WxHxD"). */
struct harness_xvfb *harness_start_xvfb(struct harness *harness,
		const char *screen);

/* vitrail_test_v1 requests; each waits for its answer. */
void harness_hold_frames(struct harness_conn *conn, bool hold);
uint32_t harness_settle(struct harness_conn *conn);
/* vitrail_test_v1.slow_frames: the next n frames any output renders are
 * ready no earlier than costs_us[i] after their rendering started. */
void harness_slow_frames(struct harness_conn *conn, const uint32_t *costs_us,
		size_t n);
/* Settle with frames held, so that animated clients stop committing and
 * the screen can catch up; frames are released afterwards. */
uint32_t harness_settle_held(struct harness_conn *conn);
/* The windows, front to back; the array stays valid until the next call. */
size_t harness_list_windows(struct harness_conn *conn,
		const struct harness_window **windows);
/* Wait until at least n windows are mapped; returns the count. */
size_t harness_wait_for_windows(struct harness_conn *conn, size_t n,
		int timeout_ms);
/* Wait until exactly n windows are mapped. */
void harness_wait_for_window_count(struct harness_conn *conn, size_t n,
		int timeout_ms);
/* The last list, one window per line (malloc'd), for failure messages. */
char *harness_describe_windows(struct harness_conn *conn);
/* The window with this app_id, or NULL (from the last list). */
const struct harness_window *harness_find_window(struct harness_conn *conn,
		const char *app_id);
/* Destroy an output as if unplugged; returns once it is gone. */
void harness_unplug_output(struct harness_conn *conn, const char *output);
/* Emulated pointer (vitrail_test_v1 version 5): move to x, y (layout
 * coordinates), press or release a button; each returns once vitrail
 * handled it. */
void harness_pointer_move(struct harness_conn *conn, double x, double y);
void harness_pointer_button(struct harness_conn *conn, uint32_t button,
		bool pressed);
/* vitrail_test_v1 version 6: an axis event of the emulated pointer
 * (orientation and source numbered as wl_pointer's; value 0 from the
 * finger source is the axis stop); the emulated touch screen (layout
 * coordinates); hash_frames (see the protocol: NULL-free path, width 0
 * stops). Each returns once vitrail handled it. */
void harness_pointer_axis(struct harness_conn *conn, uint32_t orientation,
		double value, uint32_t source, int32_t discrete);
enum harness_touch {
	HARNESS_TOUCH_DOWN,
	HARNESS_TOUCH_MOVE,
	HARNESS_TOUCH_UP,
};
void harness_touch(struct harness_conn *conn, enum harness_touch what,
		int32_t id, double x, double y);
/* vitrail_test_v1 version 7: a touch down (or motion) at x, y in the
 * emulated touch screen's own 0..1 range, which vitrail maps as any touch
 * screen's (touch_output, the output's transform). */
void harness_touch_raw(struct harness_conn *conn, int32_t id, double x,
		double y, bool down);
void harness_hash_frames(struct harness_conn *conn, const char *output,
		int32_t x, int32_t y, int32_t width, int32_t height, const char *path);
/* Returns the generation rendered, 0 when writing failed. */
uint32_t harness_write_reference(struct harness_conn *conn, const char *output,
		const char *path);

/* One row of vitrail's --frame-log (CLOCK_MONOTONIC ns). */
struct harness_frame {
	char output[32];
	uint64_t seq; // the output's frame number
	uint64_t target_vblank_ns; // its display time
	uint64_t presented_ns; // 0: not presented
	uint64_t render_start_ns;
	uint64_t render_end_ns; // ready to be shown
	bool dropped; // rendered, never shown
	uint64_t input_ns; // the oldest input it answers, 0: none
};
/* Read a frame log (after vitrail closed it); fails the test when it is
 * missing or lacks a column. Returns the rows (malloc'd) in file order.
 * Other columns: csv.h, with harness_csv_column. */
size_t harness_read_frame_log(const char *path, struct harness_frame **frames);
/* csv_column, failing the test when the file (path) has no such column. */
int harness_csv_column(const struct csv *csv, const char *path,
		const char *name);

/*
 * Hold frames, screenshot `output` with grim and write vitrail's reference
 * image of the same tree generation (retrying while the tree changes),
 * then compare: fail, with a diff image, when a pixel differs by more than
 * tolerance in any colour channel. Frames are released afterwards.
 */
/* grim -o output path (retried once); its exit status. */
int harness_grim(struct harness *harness, struct harness_vitrail *vitrail,
		const char *output, const char *path);
void harness_check_output(struct harness_conn *conn, const char *output,
		int tolerance);
/* The same, and then the screenshot against the image stored as
 * $VITRAIL_REFERENCES/<stored>.png (tests/data/references/), within
 * stored_tolerance: an oracle that no code under test renders. With
 * VITRAIL_UPDATE_REFERENCES=1 the screenshot replaces the stored image
 * instead (tests/data/references/README says when). */
void harness_check_output_stored(struct harness_conn *conn, const char *output,
		int tolerance, const char *stored, int stored_tolerance);
/* Settle, then grim's screenshot of output (or of a layout region
 * "X,Y WxH" when geometry is set) into <out_dir>/<name>.png; its pixels
 * (malloc'd, 0xAARRGGBB as vr_png_read gives them), size in *w, *h. */
uint32_t *harness_screenshot(struct harness *harness,
		struct harness_vitrail *vitrail, const char *output,
		const char *geometry, const char *name, int32_t *w, int32_t *h);

#endif
