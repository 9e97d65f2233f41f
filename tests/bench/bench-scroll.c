/*
 * The scroll benchmark: vitrail-scroll-list scrolled by vitrail from its
 * extended frames (vitrail_scroll_v1, scroll-aware rendering) with N = 1.5,
 * 2 and 2.5, side by side with the same client re-rendering every frame
 * (--rerender), repetitions interleaved.
 *
 * vitrail runs headless at 60 Hz with one portrait output of 720x1600 (a
 * phone's shape, half a 1440x3200 screen); the list fills it (a 48-pixel
 * header, a scroll region of 720x1552). The benchmark drives the scroll
 * through vitrail_test_v1 (the emulated pointer over the list), after a
 * warm-up (600 px down and back at 2,000 px/s):
 *
 * - down1000, up1000: continuous axis events every 8 ms at 1,000 px/s,
 *   4,000 px down from 0, then back up;
 * - fling: three flicks (12 finger events of 25 px 8 ms apart, about
 *   3,000 px/s, then the axis stop), down, up, down, 1.5 s apart;
 * - down100, up100 (the paper's reading speed): 100 px/s, 1,500 px each
 *   way, the three N in three vitrails at once (a client frame rate this
 *   low needs the time; CPU time per frame does not depend on the
 *   others); the baseline 500 px each way.
 *
 * Per run and motion, over the motion's time: the client's frames per
 * second (its "frame" lines), vitrail's CPU time per output frame, of the
 * whole process (every thread's /proc/PID/task/N/schedstat: lavapipe's
 * rendering is CPU time here) and of its main thread, the median of the
 * frame log's main_thread_us, vitrail's VmRSS at the end, and the frames
 * that showed missing content (the window clamped at the frame's edge:
 * the frame log's scroll_samples, shown position != wanted) or stale
 * content (rows that differ from the re-rendering client's pixels for that
 * position). The latter come from vitrail_test_v1.hash_frames (a hash of
 * every row of the list, x 16 to 272, of every frame presented) against a
 * reference strip of content rows made from the re-rendering client's
 * frames settled at positions 0, 1552, 3104, ... (at the end of the
 * baseline's run).
 *
 * Repetitions: even ones (the first) are timed: every mode, the 100 px/s
 * runs, the scene variant's baseline and N = 2; odd ones verify pixels
 * (hashing costs vitrail time, so their CPU figures are left out): N =
 * 1.5, 2, 2.5 with wl_buffer frames (--shm), N = 2 with scene frames.
 *
 * It writes scroll-runs.csv (every run and motion), scroll.csv and
 * scroll.txt (per variant, mode and motion), scroll-fps.png and
 * scroll-cpu.png into --out, with every run's logs in --out/scroll/, and
 * ends with
 *   summary: client_fps_1000=<worst of down1000, up1000 at N = 2>
 *   client_fps_100=<worst of down100, up100 at N = 2>
 *   cpu_reuse_ratio=<vitrail main-thread CPU per output frame at N = 2 /
 *   re-rendering, 1,000 px/s> stale_frames=<stale and missing frames,
 *   every N and run>
 * (the shm variant's; the table has the whole process's ratio too).
 * Options: --reps N (default 2), --variants shm,scene (default both),
 * --no-slow (skip the 100 px/s runs).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "bench_util.h"
#include "plot.h"
#include "vitrail-test-v1-client-protocol.h"

#define OUTPUT_W 720
#define OUTPUT_H 1600
#define OUTPUT_SIZE "720x1600"
#define HEADER_H 48
#define REGION_H (OUTPUT_H - HEADER_H)
/* the hashed columns: past the list's rounded corners (scene), over the
 * accent bar, the avatar and the start of the text */
#define HASH_X 16
#define HASH_W 256
#define START_TIMEOUT_MS 60000
#define TICK_NS 8000000ull
/* the motions: 1,000 px/s for 4 s each way, 100 px/s for 15 s each way,
 * flicks 1.5 s apart */
#define FAST_DISTANCE 4000
#define SLOW_DISTANCE 1500
#define FLING_GAP_MS 1500

enum motion {
	DOWN_1000,
	UP_1000,
	FLING,
	DOWN_100,
	UP_100,
	NMOTIONS,
};

static const char *const motion_names[NMOTIONS] = {
	"down1000",
	"up1000",
	"fling",
	"down100",
	"up100",
};

/* Modes: the baseline and the three N. */
#define NMODES 4
static const struct {
	const char *label;
	double n; // 0: --rerender
} modes[NMODES] = {
	{ "rerender", 0 },
	{ "N=1.5", 1.5 },
	{ "N=2", 2.0 },
	{ "N=2.5", 2.5 },
};
#define MODE_SUMMARY 2 // N = 2, the default of scroll_extend

enum variant {
	SHM,
	SCENE,
	NVARIANTS,
};
static const char *const variant_names[NVARIANTS] = { "shm", "scene" };

/* One motion of one run. */
struct measure {
	bool done;
	uint64_t t0, t1; // CLOCK_MONOTONIC ns
	uint64_t cpu0, cpu1; // every thread of vitrail
	uint64_t main0, main1; // its main thread
	long rss_kib;
	/* from the logs */
	int client_frames, output_frames;
	double main_us; // median
	int checked, stale, missing, unchecked;
};

/* Figures summed over the repetitions, per variant, mode and motion. */
struct cell {
	double seconds;
	int client_frames;
	int output_frames; // of the timed runs
	double cpu_ns; // of the timed runs
	double main_cpu_ns; // of the timed runs
	struct bench_values main_us;
	struct bench_values rss;
	int checked, stale, missing, unchecked;
	int runs;
};

struct bench {
	const char *vitrail, *list, *out;
	char *runs_dir;
	struct bench_env env;
	char *runtime_dir, *config_dir;
	int reps;
	bool variants[NVARIANTS];
	bool slow;
	struct cell cells[NVARIANTS][NMODES][NMOTIONS];
	/* the reference strip of each variant: row hashes from content row 0 */
	uint64_t *ref[NVARIANTS];
	size_t nref[NVARIANTS];
	FILE *runs_csv;
	int nruns, failed;
};

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- vitrail's process ----------------------------------------------------
 */

/* The main thread's CPU time, ns. */
static uint64_t main_cpu_ns(pid_t pid) {
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid,
			(int)pid);
	FILE *f = fopen(path, "r");
	unsigned long long ns = 0;
	if (f != NULL) {
		if (fscanf(f, "%llu", &ns) != 1) {
			ns = 0;
		}
		fclose(f);
	}
	return ns;
}

static long vm_rss_kib(pid_t pid) {
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	char *status = csv_read_file(path);
	long kib = -1;
	char *p = status != NULL ? strstr(status, "VmRSS:") : NULL;
	if (p != NULL) {
		kib = strtol(p + 6, NULL, 10);
	}
	free(status);
	return kib;
}

/* ---- the test protocol ----------------------------------------------------
 */

struct conn {
	struct wl_display *display;
	struct wl_registry *registry;
	struct vitrail_test_v1 *test;
	/* list_windows */
	int32_t wx, wy;
	bool found;
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct conn *conn = data;
	if (strcmp(interface, vitrail_test_v1_interface.name) == 0 &&
			version >= 6) {
		conn->test =
				wl_registry_bind(registry, name, &vitrail_test_v1_interface, 6);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
	// vitrail_test_v1 lives as long as vitrail
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void test_window(void *data, struct vitrail_test_v1 *test,
		const char *app_id, const char *output, int32_t x, int32_t y,
		int32_t width, int32_t height) {
	struct conn *conn = data;
	if (strcmp(app_id, "vitrail-scroll-list") == 0) {
		conn->wx = x;
		conn->wy = y;
		conn->found = true;
	}
}

static const struct vitrail_test_v1_listener test_listener = {
	.window = test_window,
};

static bool conn_open(struct conn *conn, const char *socket) {
	*conn = (struct conn){ 0 };
	conn->display = wl_display_connect(socket);
	if (conn->display == NULL) {
		return false;
	}
	conn->registry = wl_display_get_registry(conn->display);
	wl_registry_add_listener(conn->registry, &registry_listener, conn);
	if (wl_display_roundtrip(conn->display) < 0 || conn->test == NULL) {
		fprintf(stderr, "bench-scroll: no vitrail_test_v1 version 6\n");
		return false;
	}
	vitrail_test_v1_add_listener(conn->test, &test_listener, conn);
	return true;
}

static void conn_close(struct conn *conn) {
	if (conn->display == NULL) {
		return;
	}
	if (conn->test != NULL) {
		vitrail_test_v1_destroy(conn->test);
	}
	wl_registry_destroy(conn->registry);
	wl_display_disconnect(conn->display);
	conn->display = NULL;
}

static void callback_done(void *data, struct wl_callback *callback,
		uint32_t value) {
	bool *done = data;
	*done = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener callback_listener = {
	.done = callback_done,
};

/* Dispatch until *done or timeout; false on an error or timeout. */
static bool conn_wait(struct conn *conn, bool *done, int timeout_ms) {
	int64_t deadline = bench_now_ms() + timeout_ms;
	while (!*done) {
		if (bench_now_ms() > deadline || wl_display_flush(conn->display) < 0) {
			return false;
		}
		struct pollfd pfd = { .fd = wl_display_get_fd(conn->display),
			.events = POLLIN };
		if (wl_display_prepare_read(conn->display) != 0) {
			if (wl_display_dispatch_pending(conn->display) < 0) {
				return false;
			}
			continue;
		}
		if (poll(&pfd, 1, 20) > 0) {
			if (wl_display_read_events(conn->display) < 0) {
				return false;
			}
		} else {
			wl_display_cancel_read(conn->display);
		}
		if (wl_display_dispatch_pending(conn->display) < 0) {
			return false;
		}
	}
	return true;
}

static bool conn_settle(struct conn *conn) {
	bool done = false;
	struct wl_callback *callback = vitrail_test_v1_settle(conn->test);
	wl_callback_add_listener(callback, &callback_listener, &done);
	return conn_wait(conn, &done, 30000);
}

static bool conn_find_window(struct conn *conn) {
	int64_t deadline = bench_now_ms() + 30000;
	while (bench_now_ms() < deadline) {
		bool done = false;
		conn->found = false;
		struct wl_callback *callback = vitrail_test_v1_list_windows(conn->test);
		wl_callback_add_listener(callback, &callback_listener, &done);
		if (!conn_wait(conn, &done, 30000)) {
			return false;
		}
		if (conn->found) {
			return true;
		}
		bench_sleep_ms(50);
	}
	return false;
}

/* An axis event, sent at once (no round trip). */
static void axis(struct conn *conn, double value, uint32_t source) {
	vitrail_test_v1_pointer_axis(conn->test, 0, wl_fixed_from_double(value),
			source, 0);
	wl_display_flush(conn->display);
}

/* ---- driving ----------------------------------------------------------------
 */

/* Scroll distance px at speed px/s (negative: up) with continuous axis
 * events every TICK_NS, the position exact on the clock. */
static bool drive_steady(struct conn *conn, double speed, double distance) {
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	struct itimerspec its = {
		.it_interval = { 0, (long)TICK_NS },
		.it_value = { 0, (long)TICK_NS },
	};
	timerfd_settime(fd, 0, &its, NULL);
	uint64_t t0 = now_ns();
	double sent = 0.0, total = fabs(distance);
	bool ok = true;
	while (sent < total && ok) {
		uint64_t expirations;
		if (read(fd, &expirations, sizeof(expirations)) < 0 && errno != EINTR) {
			ok = false;
			break;
		}
		double target = fabs(speed) * (double)(now_ns() - t0) / 1e9;
		target = target < total ? target : total;
		/* whole 1/256 pixels, as wl_fixed carries them */
		double delta = floor((target - sent) * 256.0) / 256.0;
		if (delta > 0.0) {
			axis(conn, speed > 0 ? delta : -delta,
					WL_POINTER_AXIS_SOURCE_CONTINUOUS);
			sent += delta;
			ok = wl_display_flush(conn->display) >= 0 &&
					wl_display_dispatch_pending(conn->display) >= 0;
		}
	}
	close(fd);
	return ok;
}

/* Three flicks, down, up, down, 2 s apart. */
static bool drive_flings(struct conn *conn) {
	for (int k = 0; k < 3; k++) {
		double step = k % 2 == 0 ? 25.0 : -25.0;
		for (int i = 0; i < 12; i++) {
			axis(conn, step, WL_POINTER_AXIS_SOURCE_FINGER);
			if (wl_display_flush(conn->display) < 0) {
				return false;
			}
			bench_sleep_ms(8);
		}
		axis(conn, 0, WL_POINTER_AXIS_SOURCE_FINGER);
		if (wl_display_flush(conn->display) < 0) {
			return false;
		}
		bench_sleep_ms(FLING_GAP_MS);
	}
	return true;
}

/* ---- the client's log -------------------------------------------------------
 */

/* Has the client's log a line starting with prefix after byte from? */
static bool log_has(const char *path, size_t from, const char *prefix) {
	char *log = csv_read_file(path);
	bool found = false;
	if (log != NULL && strlen(log) > from) {
		for (char *p = log + from; p != NULL && *p != '\0';) {
			if (strncmp(p, prefix, strlen(prefix)) == 0) {
				found = true;
				break;
			}
			p = strchr(p, '\n');
			p = p != NULL ? p + 1 : NULL;
		}
	}
	free(log);
	return found;
}

static size_t log_size(const char *path) {
	struct stat st;
	return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

static bool wait_log(const char *path, size_t from, const char *prefix,
		int timeout_ms) {
	int64_t deadline = bench_now_ms() + timeout_ms;
	while (bench_now_ms() < deadline) {
		if (log_has(path, from, prefix)) {
			return true;
		}
		bench_sleep_ms(20);
	}
	fprintf(stderr, "bench-scroll: no '%s' in %s\n", prefix, path);
	return false;
}

/* The client's frames within [t0, t1]. */
static int client_frames(const char *path, uint64_t t0, uint64_t t1) {
	char *log = csv_read_file(path);
	int n = 0;
	for (char *p = log; p != NULL && *p != '\0';) {
		unsigned long long t;
		if (sscanf(p, "frame %llu", &t) == 1 && t >= t0 && t <= t1) {
			n++;
		}
		p = strchr(p, '\n');
		p = p != NULL ? p + 1 : NULL;
	}
	free(log);
	return n;
}

/* ---- hashes -----------------------------------------------------------------
 */

/* The row hashes of frame seq in a hash_frames file (malloc'd, *n rows);
 * NULL when the frame is not there. last: the file's last line instead. */
static uint64_t *frame_hashes(const char *text, uint64_t seq, bool last,
		size_t *n) {
	const char *line = NULL;
	for (const char *p = text; p != NULL && *p != '\0';) {
		unsigned long long s = strtoull(p, NULL, 10);
		if (last || s == seq) {
			line = p;
			if (!last) {
				break;
			}
		}
		p = strchr(p, '\n');
		p = p != NULL ? p + 1 : NULL;
	}
	if (line == NULL) {
		return NULL;
	}
	size_t cap = REGION_H, count = 0;
	uint64_t *rows = malloc(cap * sizeof(*rows));
	const char *p = strchr(line, ' ');
	while (p != NULL && *p == ' ' && count < cap) {
		char *end;
		rows[count++] = strtoull(p + 1, &end, 16);
		p = end;
	}
	*n = count;
	return rows;
}

/* ---- one run ----------------------------------------------------------------
 */

struct run {
	enum variant variant;
	int mode;
	bool verify;
	bool slow; // the 100 px/s motions; else the 1,000 px/s and fling
	bool reference; // make the reference strip at the end
	/* running */
	char *base, *log, *client_log, *frame_log, *hash_log, *config;
	struct bench_vitrail vitrail;
	pid_t client;
	struct conn conn;
	struct measure m[NMOTIONS];
	bool ok;
};

static bool run_start(struct bench *bench, struct run *run) {
	int n = ++bench->nruns;
	run->base = bench_asprintf("%s/run%03d-%s-%s%s%s", bench->runs_dir, n,
			variant_names[run->variant], modes[run->mode].label,
			run->slow ? "-slow" : "", run->verify ? "-verify" : "");
	run->log = bench_asprintf("%s.log", run->base);
	run->client_log = bench_asprintf("%s-client.log", run->base);
	run->frame_log = bench_asprintf("%s-frames.csv", run->base);
	run->hash_log = bench_asprintf("%s-hashes.txt", run->base);
	run->config = bench_asprintf("%s.conf", run->base);
	unlink(run->frame_log);
	FILE *f = fopen(run->config, "w");
	if (f == NULL) {
		return false;
	}
	fprintf(f, "scroll_extend %g\n",
			modes[run->mode].n > 0 ? modes[run->mode].n : 2.0);
	fclose(f);
	const char *extra[] = { "--test", "--frame-log", run->frame_log, "--config",
		run->config, NULL };
	struct bench_vitrail parent;
	if (!bench_vitrail_start_setup(&bench->env, false, 60, OUTPUT_SIZE, extra,
				run->log, NULL, START_TIMEOUT_MS, &parent, &run->vitrail)) {
		return false;
	}
	const char *argv[8];
	int argc = 0;
	argv[argc++] = bench->list;
	argv[argc++] = "--size";
	argv[argc++] = OUTPUT_SIZE;
	if (run->variant == SHM) {
		argv[argc++] = "--shm";
	}
	if (modes[run->mode].n == 0) {
		argv[argc++] = "--rerender";
	}
	argv[argc] = NULL;
	run->client = bench_spawn(&bench->env, argv, run->vitrail.socket,
			run->client_log, -1);
	if (run->client < 0 || !conn_open(&run->conn, run->vitrail.socket) ||
			!wait_log(run->client_log, 0, "frame ", 30000) ||
			!conn_find_window(&run->conn)) {
		return false;
	}
	/* the pointer over the list, its cursor right of the hashed rows */
	struct conn *conn = &run->conn;
	vitrail_test_v1_pointer_move(conn->test,
			wl_fixed_from_int(conn->wx + OUTPUT_W - 20),
			wl_fixed_from_int(conn->wy + HEADER_H + REGION_H / 2));
	if (run->verify) {
		vitrail_test_v1_hash_frames(conn->test, "HEADLESS-1", conn->wx + HASH_X,
				conn->wy + HEADER_H, HASH_W, REGION_H, run->hash_log);
	}
	/* warm-up: pipelines, glyphs, a first few frames asked for and drawn;
	 * back at 0 */
	size_t from = log_size(run->client_log);
	bool ok = conn_settle(conn) && drive_steady(conn, 2000, 600) &&
			wait_log(run->client_log, from, "position 600 ", 10000);
	from = log_size(run->client_log);
	ok = ok && drive_steady(conn, -2000, 600) &&
			wait_log(run->client_log, from, "position 0 ", 10000) &&
			conn_settle(conn);
	bench_sleep_ms(300);
	return ok;
}

/* Measure one motion. */
static bool run_motion(struct run *run, enum motion motion) {
	struct conn *conn = &run->conn;
	struct measure *m = &run->m[motion];
	pid_t pid = run->vitrail.pid;
	m->t0 = now_ns();
	m->cpu0 = bench_process_cpu_ns(pid);
	m->main0 = main_cpu_ns(pid);
	bool ok;
	switch (motion) {
	case DOWN_1000: ok = drive_steady(conn, 1000, FAST_DISTANCE); break;
	case UP_1000: ok = drive_steady(conn, -1000, FAST_DISTANCE); break;
	case FLING: ok = drive_flings(conn); break;
	case DOWN_100: ok = drive_steady(conn, 100, SLOW_DISTANCE); break;
	case UP_100: ok = drive_steady(conn, -100, SLOW_DISTANCE); break;
	default: ok = false;
	}
	/* the last frames of the motion */
	bench_sleep_ms(100);
	m->t1 = now_ns();
	m->cpu1 = bench_process_cpu_ns(pid);
	m->main1 = main_cpu_ns(pid);
	m->rss_kib = vm_rss_kib(pid);
	m->done = ok;
	ok = ok && conn_settle(conn);
	bench_sleep_ms(200);
	return ok;
}

/* The reference strip: the re-rendering client settled at 0, 1552, ...
 * (the hash file's last frame each time). */
static bool run_reference(struct bench *bench, struct run *run) {
	struct conn *conn = &run->conn;
	int32_t at = 0;
	if (!run->verify) {
		vitrail_test_v1_hash_frames(conn->test, "HEADLESS-1", conn->wx + HASH_X,
				conn->wy + HEADER_H, HASH_W, REGION_H, run->hash_log);
	}
	/* back to 0 from wherever the flings left it */
	size_t from = log_size(run->client_log);
	axis(conn, -100000, WL_POINTER_AXIS_SOURCE_CONTINUOUS);
	if (!wait_log(run->client_log, from, "position 0 ", 10000)) {
		return false;
	}
	size_t tiles = (FAST_DISTANCE + 2 * REGION_H) / REGION_H + 1, len = 0;
	uint64_t *strip = calloc(tiles * REGION_H, sizeof(*strip));
	bool ok = strip != NULL;
	for (size_t k = 0; k < tiles && ok; k++) {
		int32_t target = (int32_t)k * REGION_H;
		if (target != at) {
			from = log_size(run->client_log);
			axis(conn, target - at, WL_POINTER_AXIS_SOURCE_CONTINUOUS);
			char line[64];
			snprintf(line, sizeof(line), "position %d ", target);
			ok = wait_log(run->client_log, from, line, 10000);
			at = target;
		}
		ok = ok && conn_settle(conn);
		char *text = ok ? csv_read_file(run->hash_log) : NULL;
		size_t n = 0;
		uint64_t *rows = text != NULL ? frame_hashes(text, 0, true, &n) : NULL;
		ok = rows != NULL && n == REGION_H;
		if (ok) {
			memcpy(strip + len, rows, REGION_H * sizeof(*rows));
			len += REGION_H;
		}
		free(rows);
		free(text);
	}
	if (ok) {
		free(bench->ref[run->variant]);
		bench->ref[run->variant] = strip;
		bench->nref[run->variant] = len;
	} else {
		free(strip);
	}
	return ok;
}

/* The frame log and hashes of the motions. */
static void run_analyse(struct bench *bench, struct run *run) {
	struct csv csv;
	if (!csv_open(&csv, run->frame_log)) {
		fprintf(stderr, "bench-scroll: no frame log %s\n", run->frame_log);
		return;
	}
	int c_seq = csv_column(&csv, "frame");
	int c_target = csv_column(&csv, "target_vblank_ns");
	int c_presented = csv_column(&csv, "presented_ns");
	int c_main = csv_column(&csv, "main_thread_us");
	int c_scroll = csv_column(&csv, "scroll_samples");
	char *hashes = run->verify ? csv_read_file(run->hash_log) : NULL;
	const uint64_t *ref = bench->ref[run->variant];
	size_t nref = bench->nref[run->variant];
	struct bench_values main_us[NMOTIONS] = { 0 };
	while (csv_next(&csv)) {
		double target = csv_number(&csv, c_target);
		double presented = csv_number(&csv, c_presented);
		for (int k = 0; k < NMOTIONS; k++) {
			struct measure *m = &run->m[k];
			if (!m->done || !(target >= m->t0 && target <= m->t1) ||
					!(presented > 0)) {
				continue;
			}
			m->output_frames++;
			bench_values_add(&main_us[k], csv_number(&csv, c_main));
			const char *s = csv_field(&csv, c_scroll);
			long id, x, y, wx, wy, frames;
			if (modes[run->mode].n == 0 || s == NULL ||
					sscanf(s, "%ld@%ld/%ld/%ld/%ld/%ld", &id, &x, &y, &wx, &wy,
							&frames) != 6) {
				continue;
			}
			if (y != wy) {
				m->missing++;
			}
			if (hashes == NULL) {
				continue;
			}
			size_t n = 0;
			uint64_t *rows = frame_hashes(hashes,
					(uint64_t)csv_number(&csv, c_seq), false, &n);
			if (rows == NULL || n != REGION_H || ref == NULL ||
					(size_t)y + REGION_H > nref) {
				m->unchecked++;
			} else {
				m->checked++;
				if (memcmp(rows, ref + y, REGION_H * sizeof(*rows)) != 0) {
					m->stale++;
				}
			}
			free(rows);
		}
	}
	for (int k = 0; k < NMOTIONS; k++) {
		struct measure *m = &run->m[k];
		if (!m->done) {
			continue;
		}
		m->main_us = bench_values_median(&main_us[k]);
		m->client_frames = client_frames(run->client_log, m->t0, m->t1);
		bench_values_finish(&main_us[k]);
	}
	free(hashes);
	csv_close(&csv);
}

static void run_record(struct bench *bench, struct run *run, int rep) {
	for (int k = 0; k < NMOTIONS; k++) {
		struct measure *m = &run->m[k];
		if (!m->done) {
			continue;
		}
		double seconds = (double)(m->t1 - m->t0) / 1e9;
		double cpu_us = m->output_frames > 0 ?
				(double)(m->cpu1 - m->cpu0) / 1e3 / m->output_frames :
				NAN;
		double fps = m->client_frames / seconds;
		double main_cpu_us = m->output_frames > 0 ?
				(double)(m->main1 - m->main0) / 1e3 / m->output_frames :
				NAN;
		struct cell *cell = &bench->cells[run->variant][run->mode][k];
		cell->seconds += seconds;
		cell->client_frames += m->client_frames;
		cell->runs++;
		if (!run->verify) {
			cell->output_frames += m->output_frames;
			cell->cpu_ns += (double)(m->cpu1 - m->cpu0);
			cell->main_cpu_ns += (double)(m->main1 - m->main0);
			bench_values_add(&cell->main_us, m->main_us);
			bench_values_add(&cell->rss, (double)m->rss_kib);
		}
		cell->checked += m->checked;
		cell->stale += m->stale;
		cell->missing += m->missing;
		cell->unchecked += m->unchecked;
		printf("  run %3d rep %d %-5s %-8s %-8s %s %5.1f s  client %6.2f "
			   "fps  output %4d frames  vitrail CPU %6s us/frame, main thread "
			   "%5s (main_thread_us %5s)  rss %6ld KiB\n",
				bench->nruns, rep + 1, variant_names[run->variant],
				modes[run->mode].label, motion_names[k],
				run->verify ? "verify" : "timed ", seconds, fps,
				m->output_frames, bench_fmt(cpu_us, 0),
				bench_fmt(main_cpu_us, 0), bench_fmt(m->main_us, 0),
				m->rss_kib);
		if (run->verify && modes[run->mode].n > 0) {
			printf("      checked %d frames: %d stale, %d missing (clamped), "
				   "%d not checked\n",
					m->checked, m->stale, m->missing, m->unchecked);
		}
		fprintf(bench->runs_csv,
				"%d,%d,%s,%s,%s,%d,%.3f,%d,%.4f,%d,%.1f,"
				"%.1f,%.1f,%ld,%d,%d,%d,%d\n",
				bench->nruns, rep + 1, variant_names[run->variant],
				modes[run->mode].label, motion_names[k], run->verify, seconds,
				m->client_frames, fps, m->output_frames, cpu_us, main_cpu_us,
				m->main_us, m->rss_kib, m->checked, m->stale, m->missing,
				m->unchecked);
	}
	fflush(bench->runs_csv);
}

static void run_stop(struct run *run) {
	conn_close(&run->conn);
	if (run->client > 0) {
		bench_stop(run->client, 3000);
	}
	if (run->vitrail.pid > 0 && !bench_vitrail_stop(&run->vitrail)) {
		fprintf(stderr,
				"bench-scroll: vitrail did not exit cleanly, see "
				"%s\n",
				run->log);
	}
}

static void run_free(struct run *run) {
	free(run->base);
	free(run->log);
	free(run->client_log);
	free(run->frame_log);
	free(run->hash_log);
	free(run->config);
}

/* One run of the fast motions (1,000 px/s and fling) of a mode. */
static void run_fast(struct bench *bench, enum variant variant, int mode,
		bool verify, int rep) {
	struct run run = { .variant = variant,
		.mode = mode,
		.verify = verify,
		.reference = modes[mode].n == 0 };
	bool ok = run_start(bench, &run);
	for (int k = DOWN_1000; k <= FLING && ok; k++) {
		ok = run_motion(&run, (enum motion)k);
	}
	if (ok && run.reference) {
		ok = run_reference(bench, &run);
	}
	run_stop(&run);
	if (!ok) {
		fprintf(stderr, "bench-scroll: run %d failed, see %s\n", bench->nruns,
				run.log);
		bench->failed++;
	}
	run_analyse(bench, &run);
	run_record(bench, &run, rep);
	run_free(&run);
}

/* The 100 px/s motions of every N at once (three vitrails), then of the
 * baseline (5 s each way suffice at 60 frames/s). */
static void run_slow(struct bench *bench, enum variant variant, bool verify,
		int rep) {
	struct run runs[NMODES];
	bool ok[NMODES];
	for (int mode = 0; mode < NMODES; mode++) {
		runs[mode] = (struct run){ .variant = variant,
			.mode = mode,
			.verify = verify,
			.slow = true };
	}
	for (int mode = 1; mode < NMODES; mode++) {
		ok[mode] = run_start(bench, &runs[mode]);
	}
	/* the three drive in step from this thread: one event stream each */
	for (int k = DOWN_100; k <= UP_100; k++) {
		uint64_t t0 = now_ns();
		uint64_t cpu0[NMODES], main0[NMODES];
		for (int mode = 1; mode < NMODES; mode++) {
			runs[mode].m[k].t0 = t0;
			cpu0[mode] =
					ok[mode] ? bench_process_cpu_ns(runs[mode].vitrail.pid) : 0;
			main0[mode] = ok[mode] ? main_cpu_ns(runs[mode].vitrail.pid) : 0;
		}
		double speed = k == DOWN_100 ? 100 : -100, sent = 0;
		int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		struct itimerspec its = {
			.it_interval = { 0, (long)TICK_NS },
			.it_value = { 0, (long)TICK_NS },
		};
		timerfd_settime(fd, 0, &its, NULL);
		while (sent < SLOW_DISTANCE) {
			uint64_t expirations;
			if (read(fd, &expirations, sizeof(expirations)) < 0 &&
					errno != EINTR) {
				break;
			}
			double target = 100.0 * (double)(now_ns() - t0) / 1e9;
			target = target < SLOW_DISTANCE ? target : SLOW_DISTANCE;
			double delta = floor((target - sent) * 256.0) / 256.0;
			if (delta <= 0) {
				continue;
			}
			sent += delta;
			for (int mode = 1; mode < NMODES; mode++) {
				if (ok[mode]) {
					axis(&runs[mode].conn, speed > 0 ? delta : -delta,
							WL_POINTER_AXIS_SOURCE_CONTINUOUS);
					ok[mode] = wl_display_flush(runs[mode].conn.display) >= 0 &&
							wl_display_dispatch_pending(
									runs[mode].conn.display) >= 0;
				}
			}
		}
		close(fd);
		bench_sleep_ms(100);
		uint64_t t1 = now_ns();
		for (int mode = 1; mode < NMODES; mode++) {
			struct measure *m = &runs[mode].m[k];
			m->t1 = t1;
			m->cpu0 = cpu0[mode];
			m->cpu1 =
					ok[mode] ? bench_process_cpu_ns(runs[mode].vitrail.pid) : 0;
			m->main0 = main0[mode];
			m->main1 = ok[mode] ? main_cpu_ns(runs[mode].vitrail.pid) : 0;
			m->rss_kib = ok[mode] ? vm_rss_kib(runs[mode].vitrail.pid) : -1;
			m->done = ok[mode];
			ok[mode] = ok[mode] && conn_settle(&runs[mode].conn);
		}
		bench_sleep_ms(200);
	}
	for (int mode = 1; mode < NMODES; mode++) {
		run_stop(&runs[mode]);
		if (!ok[mode]) {
			fprintf(stderr, "bench-scroll: slow run (%s) failed, see %s\n",
					modes[mode].label, runs[mode].log);
			bench->failed++;
		}
		run_analyse(bench, &runs[mode]);
		run_record(bench, &runs[mode], rep);
		run_free(&runs[mode]);
	}
	/* the baseline: 5 s each way (its frame rate is the output's) */
	struct run *base = &runs[0];
	ok[0] = run_start(bench, base);
	for (int k = DOWN_100; k <= UP_100 && ok[0]; k++) {
		struct measure *m = &base->m[k];
		m->t0 = now_ns();
		m->cpu0 = bench_process_cpu_ns(base->vitrail.pid);
		m->main0 = main_cpu_ns(base->vitrail.pid);
		ok[0] = drive_steady(&base->conn, k == DOWN_100 ? 100 : -100, 500);
		bench_sleep_ms(100);
		m->t1 = now_ns();
		m->cpu1 = bench_process_cpu_ns(base->vitrail.pid);
		m->main1 = main_cpu_ns(base->vitrail.pid);
		m->rss_kib = vm_rss_kib(base->vitrail.pid);
		m->done = ok[0];
		ok[0] = ok[0] && conn_settle(&base->conn);
	}
	run_stop(base);
	if (!ok[0]) {
		bench->failed++;
	}
	run_analyse(bench, base);
	run_record(bench, base, rep);
	run_free(base);
}

/* ---- report -----------------------------------------------------------------
 */

static double cell_fps(const struct cell *c) {
	return c->seconds > 0 ? c->client_frames / c->seconds : NAN;
}

static double cell_cpu_us(const struct cell *c) {
	return c->output_frames > 0 ? c->cpu_ns / 1e3 / c->output_frames : NAN;
}

static double cell_main_cpu_us(const struct cell *c) {
	return c->output_frames > 0 ? c->main_cpu_ns / 1e3 / c->output_frames : NAN;
}

/* CPU per output frame over the 1,000 px/s motions: the whole process,
 * or its main thread. */
static double fast_cpu_us(const struct bench *bench, int variant, int mode,
		bool main_thread) {
	double ns = 0;
	int frames = 0;
	for (int k = DOWN_1000; k <= UP_1000; k++) {
		const struct cell *c = &bench->cells[variant][mode][k];
		ns += main_thread ? c->main_cpu_ns : c->cpu_ns;
		frames += c->output_frames;
	}
	return frames > 0 ? ns / 1e3 / frames : NAN;
}

static void write_reports(struct bench *bench) {
	char *csv_path = bench_asprintf("%s/scroll.csv", bench->out);
	char *txt_path = bench_asprintf("%s/scroll.txt", bench->out);
	FILE *csv = fopen(csv_path, "w");
	FILE *txt = fopen(txt_path, "w");
	if (csv != NULL) {
		fprintf(csv,
				"variant,mode,motion,seconds,client_frames,client_fps,"
				"output_frames,cpu_us_per_frame,main_cpu_us_per_frame,"
				"main_thread_us,rss_kib,checked,stale,missing,unchecked\n");
	}
	FILE *outs[2] = { stdout, txt };
	for (int o = 0; o < 2; o++) {
		if (outs[o] == NULL) {
			continue;
		}
		fprintf(outs[o],
				"\n%-5s %-8s %-8s %7s %7s %10s %10s %9s %7s %6s "
				"%7s %7s\n",
				"", "mode", "motion", "client", "client", "CPU/frame",
				"CPU/frame", "main_thr", "VmRSS", "stale", "missing",
				"checked");
		fprintf(outs[o],
				"%-5s %-8s %-8s %7s %7s %10s %10s %9s %7s %6s "
				"%7s %7s\n",
				"", "", "", "frames", "fps", "all us", "main us", "_us", "MiB",
				"frames", "frames", "frames");
	}
	for (int v = 0; v < NVARIANTS; v++) {
		for (int mode = 0; mode < NMODES; mode++) {
			for (int k = 0; k < NMOTIONS; k++) {
				struct cell *c = &bench->cells[v][mode][k];
				if (c->runs == 0) {
					continue;
				}
				double rss = bench_values_median(&c->rss) / 1024.0;
				double main_us = bench_values_median(&c->main_us);
				bool scar = modes[mode].n > 0;
				for (int o = 0; o < 2; o++) {
					if (outs[o] == NULL) {
						continue;
					}
					fprintf(outs[o],
							"%-5s %-8s %-8s %7d %7s %10s %10s %9s "
							"%7s %6s %7s %7s\n",
							variant_names[v], modes[mode].label,
							motion_names[k], c->client_frames,
							bench_fmt(cell_fps(c), 2),
							bench_fmt(cell_cpu_us(c), 0),
							bench_fmt(cell_main_cpu_us(c), 0),
							bench_fmt(main_us, 0), bench_fmt(rss, 1),
							scar ? bench_fmt(c->stale, 0) : "-",
							scar ? bench_fmt(c->missing, 0) : "-",
							scar ? bench_fmt(c->checked, 0) : "-");
				}
				if (csv != NULL) {
					fprintf(csv,
							"%s,%s,%s,%.3f,%d,%s,%d,%s,%s,%s,%s,%d,%d,%d,"
							"%d\n",
							variant_names[v], modes[mode].label,
							motion_names[k], c->seconds, c->client_frames,
							bench_fmt(cell_fps(c), 4), c->output_frames,
							bench_fmt(cell_cpu_us(c), 1),
							bench_fmt(cell_main_cpu_us(c), 1),
							bench_fmt(main_us, 1), bench_fmt(rss * 1024.0, 0),
							c->checked, c->stale, c->missing, c->unchecked);
				}
			}
		}
	}
	for (int v = 0; v < NVARIANTS; v++) {
		double base = fast_cpu_us(bench, v, 0, true);
		double base_all = fast_cpu_us(bench, v, 0, false);
		for (int mode = 1; mode < NMODES && bench->variants[v]; mode++) {
			double scar = fast_cpu_us(bench, v, mode, true);
			double scar_all = fast_cpu_us(bench, v, mode, false);
			if (isnan(scar)) {
				continue;
			}
			for (int o = 0; o < 2; o++) {
				if (outs[o] != NULL) {
					fprintf(outs[o],
							"%s %s vs rerender at 1,000 px/s, CPU per "
							"output frame: main thread %s / %s us = %s; whole "
							"process (lavapipe's rendering too) %s / %s us = "
							"%s\n",
							variant_names[v], modes[mode].label,
							bench_fmt(scar, 0), bench_fmt(base, 0),
							bench_fmt(scar / base, 3), bench_fmt(scar_all, 0),
							bench_fmt(base_all, 0),
							bench_fmt(scar_all / base_all, 3));
				}
			}
		}
	}
	if (csv != NULL) {
		fclose(csv);
		printf("wrote %s\n", csv_path);
	}
	if (txt != NULL) {
		fclose(txt);
		printf("wrote %s\n", txt_path);
	}
	free(csv_path);
	free(txt_path);
}

static void write_plots(struct bench *bench) {
	struct plot_row fps_rows[NVARIANTS * NMOTIONS];
	struct plot_row cpu_rows[NVARIANTS * NMOTIONS];
	size_t n = 0;
	for (int v = 0; v < NVARIANTS; v++) {
		for (int k = 0; k < NMOTIONS; k++) {
			bool any = false;
			for (int mode = 0; mode < NMODES; mode++) {
				any |= bench->cells[v][mode][k].runs > 0;
			}
			if (!any) {
				continue;
			}
			struct plot_row *f = &fps_rows[n], *c = &cpu_rows[n++];
			*f = (struct plot_row){ 0 };
			*c = (struct plot_row){ 0 };
			snprintf(f->label, sizeof(f->label), "%s %s", variant_names[v],
					motion_names[k]);
			memcpy(c->label, f->label, sizeof(c->label));
			for (int mode = 0; mode < NMODES; mode++) {
				struct cell *cell = &bench->cells[v][mode][k];
				f->values[mode] = cell->runs > 0 ? cell_fps(cell) : NAN;
				c->values[mode] =
						cell->runs > 0 ? cell_cpu_us(cell) / 1e3 : NAN;
			}
		}
	}
	struct plot fps = {
		.title = "Client frames per second while vitrail scrolls "
				 "(re-rendering vs extended frames), lower is better",
		.series = { modes[0].label, modes[1].label, modes[2].label,
				modes[3].label },
		.nseries = NMODES,
		.rows = fps_rows,
		.nrows = n,
		.note = "(720x1600 at 60 Hz, a 720x1552 list; bars of a few "
				"tenths are hairlines next to 60)",
		.linear = true,
		.unit = "fps",
	};
	struct plot cpu = {
		.title = "vitrail CPU time per output frame (every thread), lower "
				 "is better",
		.series = { modes[0].label, modes[1].label, modes[2].label,
				modes[3].label },
		.nseries = NMODES,
		.rows = cpu_rows,
		.nrows = n,
		.note = "(lavapipe renders on the CPU: its time is in it)",
	};
	char *fps_path = bench_asprintf("%s/scroll-fps.png", bench->out);
	char *cpu_path = bench_asprintf("%s/scroll-cpu.png", bench->out);
	if (plot_write(&fps, fps_path)) {
		printf("plot: %s\n", fps_path);
	}
	if (plot_write(&cpu, cpu_path)) {
		printf("plot: %s\n", cpu_path);
	}
	free(fps_path);
	free(cpu_path);
}

static void print_summary(struct bench *bench) {
	int v = bench->variants[SHM] ? SHM : SCENE;
	double fps1000 = NAN, fps100 = NAN;
	for (int k = DOWN_1000; k <= UP_1000; k++) {
		double f = cell_fps(&bench->cells[v][MODE_SUMMARY][k]);
		fps1000 = isnan(fps1000) || f > fps1000 ? f : fps1000;
	}
	for (int k = DOWN_100; k <= UP_100; k++) {
		if (bench->cells[v][MODE_SUMMARY][k].runs == 0) {
			continue;
		}
		double f = cell_fps(&bench->cells[v][MODE_SUMMARY][k]);
		fps100 = isnan(fps100) || f > fps100 ? f : fps100;
	}
	double ratio = fast_cpu_us(bench, v, MODE_SUMMARY, true) /
			fast_cpu_us(bench, v, 0, true);
	int stale = 0, checked = 0;
	for (int w = 0; w < NVARIANTS; w++) {
		for (int mode = 1; mode < NMODES; mode++) {
			for (int k = 0; k < NMOTIONS; k++) {
				stale += bench->cells[w][mode][k].stale +
						bench->cells[w][mode][k].missing;
				checked += bench->cells[w][mode][k].checked;
			}
		}
	}
	if (checked == 0) {
		printf("bench-scroll: no frame was checked against the reference\n");
	}
	printf("summary: client_fps_1000=%s client_fps_100=%s cpu_reuse_ratio=%s "
		   "stale_frames=%s\n",
			bench_fmt(fps1000, 3), bench_fmt(fps100, 3), bench_fmt(ratio, 3),
			checked > 0 ? bench_fmt(stale, 0) : "n/a");
}

/* ---- main
 * --------------------------------------------------------------------- */

static void usage(FILE *f) {
	fprintf(f,
			"Usage: bench-scroll --vitrail PATH --list PATH --out DIR "
			"[--reps N] [--variants shm,scene] [--no-slow]\n");
}

int main(int argc, char *argv[]) {
	int engines_rc = bench_engines_main(&argc, argv);
	if (engines_rc >= 0) {
		return engines_rc;
	}
	struct bench bench = { .reps = 2,
		.slow = true,
		.variants = { true, true } };
	static const struct option long_options[] = {
		{ "vitrail", required_argument, NULL, 'v' },
		{ "list", required_argument, NULL, 'l' },
		{ "out", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'r' },
		{ "variants", required_argument, NULL, 'V' },
		{ "no-slow", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		switch (opt) {
		case 'v': bench.vitrail = optarg; break;
		case 'l': bench.list = optarg; break;
		case 'o': bench.out = optarg; break;
		case 'r': bench.reps = atoi(optarg); break;
		case 'V':
			bench.variants[SHM] = strstr(optarg, "shm") != NULL;
			bench.variants[SCENE] = strstr(optarg, "scene") != NULL;
			break;
		case 's': bench.slow = false; break;
		case 'h': usage(stdout); return EXIT_SUCCESS;
		default: usage(stderr); return 2;
		}
	}
	if (bench.vitrail == NULL || bench.list == NULL || bench.out == NULL ||
			bench.reps < 1 || bench.reps > 20 ||
			(!bench.variants[SHM] && !bench.variants[SCENE])) {
		usage(stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	bench.runs_dir = bench_asprintf("%s/scroll", bench.out);
	mkdir(bench.out, 0755);
	mkdir(bench.runs_dir, 0755);
	char runtime_template[] = "/tmp/vitrail-bench-XXXXXX";
	if (mkdtemp(runtime_template) == NULL) {
		perror("bench-scroll: mkdtemp");
		return EXIT_FAILURE;
	}
	bench.runtime_dir = runtime_template;
	bench.config_dir = bench_asprintf("%s/config", bench.runtime_dir);
	mkdir(bench.config_dir, 0700);
	bench.env = (struct bench_env){ bench.runtime_dir, bench.config_dir,
		bench.vitrail };
	setenv("XDG_RUNTIME_DIR", bench.runtime_dir, 1);
	char *runs_path = bench_asprintf("%s/scroll-runs.csv", bench.out);
	bench.runs_csv = fopen(runs_path, "w");
	if (bench.runs_csv == NULL) {
		perror(runs_path);
		return EXIT_FAILURE;
	}
	fprintf(bench.runs_csv,
			"run,rep,variant,mode,motion,verify,seconds,"
			"client_frames,client_fps,output_frames,cpu_us_per_frame,"
			"main_cpu_us_per_frame,main_thread_us,rss_kib,checked,stale,"
			"missing,"
			"unchecked\n");
	printf("bench-scroll: %d repetitions (odd ones timed, even ones "
		   "verified against the re-rendering client's pixels), %s at 60 Hz\n",
			bench.reps, OUTPUT_SIZE);
	int64_t start = bench_now_ms();
	/* Even repetitions are timed: every mode (the baseline first, which
	 * makes the reference strip at its end), the 100 px/s runs, the
	 * scene variant's baseline and N = 2. Odd ones verify the extended
	 * frames' pixels (hashing costs vitrail time): N = 1.5, 2, 2.5 with
	 * wl_buffer frames, N = 2 with scene frames. */
	for (int rep = 0; rep < bench.reps; rep++) {
		bool verify = rep % 2 == 1;
		for (int v = 0; v < NVARIANTS; v++) {
			if (!bench.variants[v]) {
				continue;
			}
			for (int mode = 0; mode < NMODES; mode++) {
				if ((v == SCENE && mode != 0 && mode != MODE_SUMMARY) ||
						(verify && mode == 0)) {
					continue;
				}
				run_fast(&bench, (enum variant)v, mode, verify, rep);
			}
			if (bench.slow && v == SHM && !verify) {
				run_slow(&bench, (enum variant)v, false, rep);
			}
		}
	}
	fclose(bench.runs_csv);
	printf("wrote %s (%.0f s)\n", runs_path, (bench_now_ms() - start) / 1000.0);
	write_reports(&bench);
	write_plots(&bench);
	char *cmd = bench_asprintf("rm -rf '%s'", bench.runtime_dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench-scroll: could not remove %s\n",
				bench.runtime_dir);
	}
	free(cmd);
	print_summary(&bench);
	return bench.failed > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
