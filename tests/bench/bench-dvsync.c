/*
 * bench-dvsync: D-VSync's frame pre-executor against VSync, trace-driven,
 * side by side in one run.
 *
 *   meson test -C build --benchmark --suite dvsync --verbose
 *
 * Traces: render costs per frame (tests/traces/NAME.txt, written by
 * tests/traces/gen-traces.py, format in its header): power-law (the
 * paper's Figure 1 mix: 95% short frames, 5% long ones of 1.2-3.5
 * periods), scroll (a list flung twice a second, a heavy frame at each
 * fling) and launch (an app launch: a burst of heavy frames). Costs in
 * periods are scaled by the output's refresh period.
 *
 * Modes, each its own vitrail:
 *   vsync        --pacing vsync: VSync with triple buffering. In vitrail
 *                that is the just-in-time vsync policy: one frame
 *                rendering at a time, a finished frame waiting in the
 *                queue for its vblank, one on screen (front, queued,
 *                rendering: three buffers). Animations are sampled at
 *                the frame's vblank either way.
 *   dvsync-4buf  --pacing dvsync --prerender 3: three frames queued
 *                ahead of the one on screen (the paper's default).
 *   dvsync-5buf  --pacing dvsync --prerender 4.
 * Setups: vitrail headless with one output at 60, 90 and 120 Hz
 * (--refresh; vblanks from vitrail's own clock), and vitrail nested with
 * the wayland backend in a headless vitrail parent at 60 Hz (its vblanks
 * are the parent's presentation feedback).
 *
 * The real trace: the traces above are costs vitrail is told to wait out;
 * this one is content whose composition really costs that much, in the
 * paper's mix: mostly light frames and one in 20 heavy. vitrail headless
 * at 60 Hz with one 2560x1440 output, a 2400x1320 window whose
 * scene-protocol content is 28 overlapping translucent cards with blurred
 * shadows, antialiased shapes and text, a 96 px headline and large
 * translucent discs (build_real), zoomed by a compositor-side scale
 * animation about the window's centre: a 1 s warm-up zoom out to 0.6, then
 * the measured 4 s zoom back to 1, every frame fully damaged; no
 * slow_frames. Twelve sweeps, stacks of one to three copies of the card
 * grid, lie off the window but for one frame each: their translation
 * animations (started with the zoom) carry each across the window at a
 * moment a frame is made for, (k + 0.5) / 12 of the zoom, so 12 of its 240
 * frames compose that much more. On this 2-core machine's CPU engine the
 * light frames cost about 0.5-0.8 periods (render_end_ns -
 * render_start_ns, rising with the zoom) and the heavy ones 1.1-3.5 while
 * the machine is quiet; on lavapipe every frame costs several periods.
 * Its drops are counted by when frames finish, not by vitrail's
 * presentation times: a frame can be shown at the first vblank at or after
 * both its target (target_vblank_ns) and its render end (render_end_ns);
 * over the vblanks from the first at which a frame of the zoom could be
 * shown to the last, each at which none could is a drop (missed), and
 * "late" are the drops that a frame meant for that vblank or an earlier
 * one was still rendering at (at the others no frame was aimed).
 * presented_mismatch counts the frames vitrail showed at another vblank
 * than that (headless: about none). The real trace runs twice per mode
 * and repetition: alone on the machine, and beside a child process that
 * keeps one core busy from the warm-up to the end of the zoom
 * ("real-load": another job on the machine; the "never worse than
 * vsync under load").
 *
 * One run: a fresh vitrail with --test and --frame-log; this program is
 * its client: a window whose scene-protocol content is one rectangle, a
 * warm-up animation, then per trace: vitrail_test_v1.slow_frames with the
 * trace's costs (each of the next frames vitrail renders becomes ready no
 * earlier than its cost after its render start, without blocking vitrail's
 * main thread) and a linear scene animation long enough for VSync to get
 * through the whole trace; then settle. The animation runs in the
 * compositor, sampled at each frame's display time (its D-Timestamp): it
 * is the compositor-side equivalent of the pre-render client (the
 * frame-timing protocol that would let a client render ahead does not
 * exist yet). Repetitions are interleaved (every repetition runs every
 * mode of every setup, the mode order reversed every other one), as the
 * machine is noisy.
 *
 * From the frame log, per trace: the animation's rows (its serial in
 * scene_samples) in frame order, the first N of them (N: the trace's
 * length) being the frames that replayed the trace:
 *   fdps          frame drops per second: over the vblanks from the first
 *                 of those frames shown to the last, the vblanks that
 *                 showed none of them (no new frame), per second of that
 *                 span;
 *   lat_exec      render start -> present (render_start_ns to
 *                 presented_ns), frames shown;
 *   lat_dts       D-Timestamp -> present (target_vblank_ns to
 *                 presented_ns): how much later than the time its content
 *                 was computed for a frame was shown;
 *   lat_paper     the paper's rendering latency (section 6.3: "from the
 *                 execution of a frame (or the D-Timestamp in D-VSync) to
 *                 its final display"): lat_exec for vsync, lat_dts for
 *                 dvsync;
 *   main_us       median main_thread_us (vitrail's own accounting of the
 *                 main-thread time spent on a frame: the render call and
 *                 CPU copies; the pacer's planning is not in it);
 *   cpu_us        the main thread's CPU time (/proc/PID/task/PID/schedstat)
 *                 over the trace's animation divided by the frames it
 *                 rendered: everything the main thread did, the pacer's
 *                 planning (FPE), its vblank model (DTV), timers and the
 *                 render calls included.
 * The overhead of D-VSync per frame is cpu_us(dvsync) - cpu_us(vsync):
 * the extra main-thread time of the whole mode, not of the plan calls
 * alone (those are not timed separately in vitrail); main_us shows the
 * same difference for the render call only.
 *
 * For the real trace, per mode: fdps as above but by when frames
 * finished, its late share, the median and 90th percentile frame cost,
 * the CPU time of all of vitrail's threads over the zoom per frame
 * rendered, and the latencies; a table of its own below the main one.
 *
 * Output in <out>: dvsync.csv (one row per setup, mode and trace, the
 * real trace's last), dvsync-runs.csv (one per run and trace), dvsync.txt
 * (the tables), dvsync-fdps.png and dvsync-latency.png, every run's logs
 * and frame logs in dvsync/. stdout ends with
 *   summary: fdps_reduction_4buf=<%> fdps_reduction_5buf=<%>
 *            latency_reduction=<%> overhead_us=<n>
 *            fdps_reduction_real_4buf=<%> fdps_reduction_real_5buf=<%>
 *            fdps_real_vsync=<n> fdps_real_4buf=<n> fdps_real_5buf=<n>
 *            fdps_real_floor=<n> real_avoidable_avoided_4buf=<%>
 *            real_worse_than_vsync=<0|1> real_worse_reps=<k>/<n>
 *            real_cost_ms=<ms> fdps_real_load_vsync=<n>
 *            fdps_real_load_4buf=<n> fdps_real_load_5buf=<n>
 *            real_load_worse_than_vsync=<0|1> real_load_worse_reps=<k>/<n>
 * the first four for the 60 Hz headless power-law trace: FDPS reductions
 * against vsync, the reduction of lat_paper (mean) with 4 buffers, and
 * the overhead with 4 buffers (cpu_us difference, rounded); then the real
 * trace: the FDPS reductions and the FDPS of each mode (pooled over the
 * repetitions), the floor no pacing can go below on this machine (the
 * rate minus what all its cores can render per second at the CPU time
 * per frame dvsync-4buf measured) and the share of vsync's drops above
 * that floor that 4 buffers avoided, whether a dvsync mode dropped more
 * than vsync (pooled),
 * in how many of the repetitions one did, and vsync's median frame cost;
 * then the loaded real trace's FDPS per mode and whether (pooled, and in
 * how many repetitions) a dvsync mode dropped more than vsync there.
 * bench_engines_main runs all of it once per engine and merges the keys.
 *
 * Options: --vitrail PATH --traces DIR --out DIR (required), --reps N
 * (default 2), --rates LIST (default 60,90,120), --nested-reps N (default
 * --reps; 0: no nested runs), --nested-traces all|power-law (default
 * power-law), --real-reps N (default --reps; 0: no real trace),
 * --real-load-reps N (default --real-reps; 0: no loaded runs),
 * --real-only (only the real trace, alone and loaded). Exit status 1 when a run
 * failed, 0 otherwise.
 */
#define _GNU_SOURCE // asprintf, pipe2
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "bench_util.h"
#include "plot.h"
#include "scene-client.h"
#include "vitrail-test-v1-client-protocol.h"

#define MAX_TRACES 4
#define MAX_RATES 4
#define MAX_SETUPS (MAX_RATES + 1)
#define MAX_REPS 50
#define NMODES 3
#define OUTPUT_SIZE "640x480"
#define WINDOW_W 480
#define WINDOW_H 160
#define START_TIMEOUT_MS 60000
#define SETTLE_TIMEOUT_MS 20000
#define WARMUP_MS 400
#define SUMMARY_TRACE "power-law"
/* The real trace: its own vitrail, headless at 60 Hz on a large output,
 * a window of heavy scene content zoomed by one compositor-side
 * animation. */
#define REAL_NAME "real"
#define REAL_LOAD_NAME "real-load" // the same beside a busy process
#define REAL_HZ 60
#define REAL_OUTPUT_SIZE "2560x1440"
#define REAL_WINDOW_W 2400
#define REAL_WINDOW_H 1320
#define REAL_COLS 7
#define REAL_ROWS 4
#define REAL_WARMUP_MS 1000
#define REAL_MS 4000
#define REAL_ZOOM 0.6 // the warm-up zooms out to it, the measured zoom back in
/* The heavy frames: REAL_SWEEPS stacks of 2, 3 or 4 copies of the card
 * grid (sweep_layers), each crossing the window once per zoom, centred on
 * it at (k + 0.5) / REAL_SWEEPS of the zoom's time (a whole number of 60
 * Hz periods into the measured zoom, so a frame is made for that very
 * moment), at REAL_SWEEP_SPEED px/ms: over 4,000 px a period, so the
 * frames before and after show none of it, and a path of 2 x 250 x 3,833 <
 * 2,000,000 px, inside the protocol's range of translations. One frame in
 * 20 of the measured zoom is heavy, as in the paper's mix (5% long
 * frames). */
#define REAL_SWEEPS 12
#define REAL_SWEEP_SPEED 250.0

static const struct mode {
	const char *label;
	const char *pacing;
	const char *prerender; // NULL: none
	int buffers;
} modes[NMODES] = {
	{ "vsync", "vsync", NULL, 3 },
	{ "dvsync-4buf", "dvsync", "3", 4 },
	{ "dvsync-5buf", "dvsync", "4", 5 },
};

struct trace {
	char name[32];
	double *cost; // periods, or microseconds
	bool periods;
	size_t n;
};

/* One setup, mode and trace, pooled over repetitions. */
struct cell {
	int runs, unfinished; // runs where the animation ended before the trace
	double vblanks, missed, seconds;
	size_t frames, shown, late, replaced;
	struct bench_values lat_exec, lat_dts, main_us;
	double cpu_ns, cpu_frames;
	int in_flight_max;
};

struct setup {
	bool nested;
	double hz;
	int reps;
	bool all_traces;
	struct cell cells[NMODES][MAX_TRACES];
};

/* The real trace in one mode, pooled over repetitions. */
struct real_cell {
	int runs;
	double vblanks, missed, missed_late, seconds;
	size_t frames, shown, late, replaced, mismatch;
	struct bench_values cost_ms, lat_exec, lat_dts;
	double cpu_ns, cpu_frames; // all of vitrail's threads
};

struct bench {
	const char *vitrail, *traces_dir, *out;
	int reps, nested_reps, real_reps, real_load_reps;
	bool real_only; // no trace of costs, only the real trace
	bool nested_all_traces;
	double rates[MAX_RATES];
	int nrates;
	struct trace traces[MAX_TRACES];
	int ntraces;
	struct setup setups[MAX_SETUPS];
	int nsetups;
	/* the real trace, alone on the machine [0] and beside a process that
	 * keeps one core busy [1] */
	struct real_cell real[2][NMODES];
	/* each repetition's real-trace FDPS per mode (NAN: failed) */
	double real_rep_fdps[2][MAX_REPS][NMODES];
	char *runs_dir, *runtime_dir, *config_dir;
	struct bench_env env; // runtime_dir, config_dir
	FILE *runs_csv;
	int nruns, failed;
};

/* ---- traces ---------------------------------------------------------------
 */

/* Read DIR/name.txt (format: tests/traces/gen-traces.py). */
static bool trace_load(struct trace *trace, const char *dir, const char *name) {
	char *path = bench_asprintf("%s/%s.txt", dir, name);
	char *text = csv_read_file(path);
	bool ok = false;
	*trace = (struct trace){ 0 };
	snprintf(trace->name, sizeof(trace->name), "%s", name);
	if (text == NULL) {
		fprintf(stderr, "bench-dvsync: cannot read %s\n", path);
		goto out;
	}
	bool have_unit = false;
	size_t cap = 0;
	int line_no = 0;
	for (char *line = strtok(text, "\n"); line != NULL;
			line = strtok(NULL, "\n")) {
		line_no++;
		while (*line == ' ' || *line == '\t') {
			line++;
		}
		if (*line == '#' || *line == '\0') {
			continue;
		}
		if (!have_unit) {
			if (strcmp(line, "unit periods") == 0) {
				trace->periods = true;
			} else if (strcmp(line, "unit us") != 0) {
				fprintf(stderr,
						"bench-dvsync: %s: expected \"unit periods\" "
						"or \"unit us\", not \"%s\"\n",
						path, line);
				goto out;
			}
			have_unit = true;
			continue;
		}
		char *end;
		double v = strtod(line, &end);
		if (end == line || !(v >= 0) || v > (trace->periods ? 60 : 1e6)) {
			fprintf(stderr, "bench-dvsync: %s: bad cost \"%s\"\n", path, line);
			goto out;
		}
		if (trace->n == cap) {
			cap = cap ? cap * 2 : 256;
			double *bigger = realloc(trace->cost, cap * sizeof(double));
			if (bigger == NULL) {
				abort();
			}
			trace->cost = bigger;
		}
		trace->cost[trace->n++] = v;
	}
	ok = trace->n > 0 && trace->n <= 65536;
	if (!ok) {
		fprintf(stderr, "bench-dvsync: %s: no costs, or too many\n", path);
	}
out:
	free(text);
	free(path);
	return ok;
}

static double trace_cost_ns(const struct trace *trace, size_t i,
		double period_ns) {
	return trace->periods ? trace->cost[i] * period_ns : trace->cost[i] * 1e3;
}

/* How long the animation of a trace runs, in ms: long enough for vsync to
 * render every frame of the trace (a frame of more than half a period may
 * miss its vblank once the real render time adds to it; one of c > 1
 * periods holds the display for ceil(c) + 2 vblanks at most), and a few
 * more. */
static int trace_duration_ms(const struct trace *trace, double period_ns) {
	double vblanks = 10;
	for (size_t i = 0; i < trace->n; i++) {
		double c = trace_cost_ns(trace, i, period_ns) / period_ns;
		vblanks += c <= 0.5 ? 1 : c <= 1 ? 2 : ceil(c) + 2;
	}
	return (int)ceil(vblanks * period_ns / 1e6);
}

/* ---- vitrail's main thread ------------------------------------------------
 */

/* The main thread's CPU time in ns (schedstat's first field); 0 when
 * the kernel does not say. */
static uint64_t main_thread_cpu_ns(pid_t pid) {
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

/* ---- the client -----------------------------------------------------------
 */

struct client {
	struct sc_app app;
	struct wl_registry *registry;
	struct vitrail_test_v1 *test;
	struct vitrail_scene_v1 *scene;
	struct vitrail_scene_node_v1 *node;
	struct vitrail_scene_node_v1 *sweeps[REAL_SWEEPS]; // the real trace's
	bool real; // the real trace's content, zoomed; else the rectangle
	bool right; // where the rectangle goes next
	bool zoomed; // where the real content's zoom goes next
	bool failed;
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct client *client = data;
	if (strcmp(interface, vitrail_test_v1_interface.name) == 0 &&
			version >= 4) {
		client->test =
				wl_registry_bind(registry, name, &vitrail_test_v1_interface, 4);
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

/* Dispatch until *flag or ms passed; false on a connection error. */
static bool pump(struct client *client, int ms, const bool *flag) {
	struct wl_display *display = client->app.display;
	int64_t deadline = bench_now_ms() + ms;
	while ((flag == NULL || !*flag) && bench_now_ms() < deadline) {
		if (wl_display_flush(display) < 0) {
			return false;
		}
		if (wl_display_prepare_read(display) != 0) {
			if (wl_display_dispatch_pending(display) < 0) {
				return false;
			}
			continue;
		}
		struct pollfd pfd = { .fd = wl_display_get_fd(display),
			.events = POLLIN };
		if (poll(&pfd, 1, 10) > 0) {
			if (wl_display_read_events(display) < 0) {
				return false;
			}
		} else {
			wl_display_cancel_read(display);
		}
		if (wl_display_dispatch_pending(display) < 0) {
			return false;
		}
	}
	return true;
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

/* Until the screen shows the current tree. */
static bool settle(struct client *client) {
	bool done = false;
	struct wl_callback *callback = vitrail_test_v1_settle(client->test);
	wl_callback_add_listener(callback, &callback_listener, &done);
	return pump(client, SETTLE_TIMEOUT_MS, &done) && done;
}

static void anim_done(void *data, struct vitrail_scene_animation_v1 *anim,
		uint32_t reason, uint32_t hi, uint32_t lo) {
	bool *done = data;
	*done = true;
}

static const struct vitrail_scene_animation_v1_listener anim_listener = {
	.done = anim_done,
};

/* Move the rectangle across the window, linearly, in duration_ms; or zoom
 * the real trace's content out to REAL_ZOOM or back (about the window's
 * centre: every pixel of the window changes in every frame). */
/* The copies of the grid sweep k stacks: 1, 2, 3, 1, ... */
static int sweep_layers(int k) {
	return 1 + k % 3;
}

/* Where sweep k is at the start of an animation of duration_ms and at its
 * end: it crosses the window (x 0) at (k + 0.5) / REAL_SWEEPS of it. */
static void sweep_path(int k, int duration_ms, double *from, double *to) {
	double at = (k + 0.5) / REAL_SWEEPS * duration_ms;
	*from = -REAL_SWEEP_SPEED * at;
	*to = REAL_SWEEP_SPEED * (duration_ms - at);
}

/* The real trace's sweeps to their start, off the window's left. */
static bool sweeps_reset(struct client *client, int duration_ms) {
	for (int k = 0; k < REAL_SWEEPS; k++) {
		double from, to;
		sweep_path(k, duration_ms, &from, &to);
		sc_node_set_position(client->sweeps[k], from, 0);
	}
	wl_surface_commit(client->app.surface);
	return settle(client);
}

static bool animate(struct client *client, int duration_ms) {
	struct vitrail_scene_animation_v1 *anim;
	struct vitrail_scene_animation_v1 *sweeps[REAL_SWEEPS] = { 0 };
	if (client->real) {
		if (!sweeps_reset(client, duration_ms)) {
			return false;
		}
		/* before the zoom: the zoom's serial is the commit's highest,
		 * the one the analysis follows */
		for (int k = 0; k < REAL_SWEEPS; k++) {
			double from, target[2] = { 0, 0 };
			sweep_path(k, duration_ms, &from, &target[0]);
			sweeps[k] = sc_node_animate(client->sweeps[k],
					VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION, target, 2,
					(uint32_t)duration_ms, VITRAIL_SCENE_NODE_V1_CURVE_LINEAR,
					NULL, 0);
		}
		double zoom = client->zoomed ? 1.0 : REAL_ZOOM;
		double target[2] = { zoom, zoom };
		client->zoomed = !client->zoomed;
		anim = sc_node_animate(client->node,
				VITRAIL_SCENE_NODE_V1_PROPERTY_SCALE, target, 2,
				(uint32_t)duration_ms, VITRAIL_SCENE_NODE_V1_CURVE_LINEAR, NULL,
				0);
	} else {
		double target[2] = { client->right ? WINDOW_W - 120 : 0, 20 };
		client->right = !client->right;
		anim = sc_node_animate(client->node,
				VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION, target, 2,
				(uint32_t)duration_ms, VITRAIL_SCENE_NODE_V1_CURVE_LINEAR, NULL,
				0);
	}
	bool done = false;
	vitrail_scene_animation_v1_add_listener(anim, &anim_listener, &done);
	wl_surface_commit(client->app.surface);
	bool ok = pump(client, duration_ms * 3 + 10000, &done) && done;
	vitrail_scene_animation_v1_destroy(anim);
	for (int k = 0; k < REAL_SWEEPS; k++) {
		if (sweeps[k] != NULL) {
			vitrail_scene_animation_v1_destroy(sweeps[k]);
		}
	}
	return ok;
}

/* The real trace's card grid, moved by (dx, dy): REAL_COLS x REAL_ROWS
 * translucent cards that overlap their neighbours, each with a blurred
 * shadow, an antialiased avatar and ring, a title, two lines of text and
 * a rule. */
static void real_grid(struct sc_dl *dl, float dx, float dy) {
	static const uint32_t colors[] = { 0xe0f4f6fa, 0xe0e3f2fd, 0xe0fce4ec,
		0xe0e8f5e9, 0xe0fff8e1, 0xe0ede7f6 };
	static const uint32_t accents[] = { 0xff1a73e8, 0xffd93025, 0xff188038,
		0xfff9ab00, 0xff9334e6, 0xff12b5cb };
	const size_t ncolors = sizeof(colors) / sizeof(colors[0]);
	const float top = 170, gap = 20;
	const float cw = (REAL_WINDOW_W - gap) / (float)REAL_COLS;
	const float ch = (REAL_WINDOW_H - top - gap) / (float)REAL_ROWS;
	for (int r = 0; r < REAL_ROWS; r++) {
		for (int c = 0; c < REAL_COLS; c++) {
			size_t k = (size_t)(r * REAL_COLS + c);
			/* a fifth wider and taller than the cell: neighbours overlap */
			float x = dx + gap + c * cw, y = dy + top + r * ch;
			float w = cw * 1.2f - gap, h = ch * 1.2f - gap;
			char title[32], line[64];
			snprintf(title, sizeof(title), "Card %zu", k + 1);
			sc_dl_shadow(dl, x, y + 16, w, h, 28, 56, 0x90000000);
			sc_dl_rrect(dl, x, y, w, h, 28, SC_FILL(colors[k % ncolors]));
			sc_dl_rrect(dl, x + 3, y + 3, w - 6, h - 6, 25,
					SC_STROKE(accents[k % ncolors], 3));
			sc_dl_ellipse(dl, x + 28, y + 28, 88, 88,
					SC_FILL(accents[(k + 2) % ncolors]));
			sc_dl_ellipse(dl, x + 20, y + 20, 104, 104,
					SC_STROKE(accents[k % ncolors], 5));
			sc_dl_text(dl, x + 140, y + 76, 0xff202124, 40, 700, "DejaVu Sans",
					title);
			snprintf(line, sizeof(line), "%d of %d, drawn for real", (int)k + 1,
					REAL_COLS * REAL_ROWS);
			sc_dl_text(dl, x + 28, y + 170, 0xff3c4043, 26, 400, "DejaVu Sans",
					line);
			sc_dl_text(dl, x + 28, y + 210, 0xff5f6368, 26, 400, "DejaVu Sans",
					"shadows, edges, glyphs");
			sc_dl_line(dl, x + 28, y + 232, x + w - 28, y + 232,
					SC_STROKE(accents[(k + 1) % ncolors], 4));
		}
	}
}

/*
 * The real trace's content: in the root's display list, drawn over an
 * opaque window buffer, a headline, the card grid and four large
 * translucent discs over everything; and REAL_SWEEPS child nodes, each a
 * stack of copies of the grid (a few pixels apart) that lies off the
 * window but for the frame for which its translation animation carries
 * it across (animate). Under the zoom every pixel of
 * the window changes in every frame; a frame that shows some of a sweep
 * composes that much more; nothing is made slow artificially.
 */
static void build_real(struct client *client) {
	static const uint32_t accents[] = { 0xff1a73e8, 0xffd93025, 0xff188038,
		0xfff9ab00 };
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_text(&dl, 40, 120, 0xfff0f0f0, 96, 700, "DejaVu Sans",
			"Real frames: nothing here is slow on purpose");
	real_grid(&dl, 0, 0);
	for (int i = 0; i < 4; i++) {
		float d = 700;
		sc_dl_ellipse(&dl, 100 + i * 560, i % 2 ? 500 : 100, d, d,
				SC_FILL(accents[i] & 0x30ffffff));
	}
	sc_node_set_list(&client->app, client->node, &dl);
	for (int k = 0; k < REAL_SWEEPS; k++) {
		client->sweeps[k] = vitrail_scene_v1_create_node(client->scene);
		sc_dl_init(&dl);
		for (int layer = 0; layer < sweep_layers(k); layer++) {
			real_grid(&dl, (float)(layer * 7), (float)(layer * 5));
		}
		sc_node_set_list(&client->app, client->sweeps[k], &dl);
		sc_node_set_position(client->sweeps[k], -1e5, 0);
	}
	sc_node_set_children(client->node, client->sweeps, REAL_SWEEPS);
	vitrail_scene_node_v1_set_anchor(client->node,
			wl_fixed_from_int(REAL_WINDOW_W / 2),
			wl_fixed_from_int(REAL_WINDOW_H / 2));
}

/* Connect, and show the window: the rectangle, or the real content. */
static bool client_connect(struct client *client, const char *socket,
		bool real) {
	*client = (struct client){ .real = real };
	setenv("WAYLAND_DISPLAY", socket, 1);
	if (!sc_app_init(&client->app, "bench-dvsync")) {
		return false;
	}
	client->registry = wl_display_get_registry(client->app.display);
	wl_registry_add_listener(client->registry, &registry_listener, client);
	if (wl_display_roundtrip(client->app.display) < 0 || client->test == NULL) {
		fprintf(stderr, "bench-dvsync: no vitrail_test_v1 version 4\n");
		return false;
	}
	if (!sc_app_create_window(&client->app, "bench-dvsync", "bench-dvsync",
				real ? REAL_WINDOW_W : WINDOW_W,
				real ? REAL_WINDOW_H : WINDOW_H, real ? 0xff263040 : 0)) {
		return false;
	}
	client->scene = vitrail_scene_manager_v1_get_scene(client->app.manager,
			client->app.surface);
	client->node = vitrail_scene_v1_create_node(client->scene);
	if (real) {
		build_real(client);
	} else {
		struct sc_dl dl;
		sc_dl_init(&dl);
		sc_dl_rect(&dl, 0, 0, 120, 120, SC_FILL(0xff40a0e0));
		sc_dl_rrect(&dl, 20, 20, 80, 80, 16, SC_FILL(0xfff0f0f0));
		sc_node_set_list(&client->app, client->node, &dl);
	}
	vitrail_scene_v1_set_root(client->scene, client->node);
	wl_surface_commit(client->app.surface);
	return pump(client, 200, NULL) && settle(client);
}

static void client_finish(struct client *client) {
	if (client->app.display == NULL) {
		return;
	}
	for (int k = 0; k < REAL_SWEEPS; k++) {
		if (client->sweeps[k] != NULL) {
			vitrail_scene_node_v1_destroy(client->sweeps[k]);
		}
	}
	if (client->node != NULL) {
		vitrail_scene_node_v1_destroy(client->node);
	}
	if (client->scene != NULL) {
		vitrail_scene_v1_destroy(client->scene);
	}
	if (client->test != NULL) {
		vitrail_test_v1_destroy(client->test);
	}
	if (client->registry != NULL) {
		wl_registry_destroy(client->registry);
	}
	sc_app_finish(&client->app);
}

/* What the client measured while a trace played. */
struct played {
	bool ok;
	uint64_t cpu_ns; // vitrail's main thread, the animation and settle
};

/* Play the trace: its costs, then an animation that outlasts them. */
static struct played play_trace(struct client *client, pid_t pid,
		const struct trace *trace, double period_ns) {
	struct wl_array costs;
	wl_array_init(&costs);
	for (size_t i = 0; i < trace->n; i++) {
		uint32_t *cost = wl_array_add(&costs, sizeof(*cost));
		double us = trace_cost_ns(trace, i, period_ns) / 1e3;
		*cost = (uint32_t)fmin(round(us), 1e6);
	}
	uint64_t cpu0 = main_thread_cpu_ns(pid);
	vitrail_test_v1_slow_frames(client->test, &costs);
	wl_array_release(&costs);
	struct played played = { 0 };
	played.ok = animate(client, trace_duration_ms(trace, period_ns)) &&
			settle(client);
	played.cpu_ns = main_thread_cpu_ns(pid) - cpu0;
	return played;
}

/* ---- the frame log --------------------------------------------------------
 */

struct row {
	uint64_t seq, target, presented, start, end;
	double main_us;
	int in_flight;
	uint32_t serial; // the newest animation sampled; 0: none
};

static int cmp_u32(const void *a, const void *b) {
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_row(const void *a, const void *b) {
	const struct row *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The rows of the frame log, in frame order; -1 when unreadable. */
/* The highest serial of a frame log's scene_samples ("serial@elapsed=v;
 * ..."): the animation started last (a trace's own, or the real trace's
 * zoom, started after its sweeps); 0: none. */
static uint32_t samples_serial(const char *samples) {
	uint32_t serial = 0;
	for (const char *p = samples; p != NULL && *p != '\0';) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end != p && *end == '@' && v > serial && v <= UINT32_MAX) {
			serial = (uint32_t)v;
		}
		p = strchr(p, ';');
		p = p != NULL ? p + 1 : NULL;
	}
	return serial;
}

static ssize_t read_frame_log(const char *path, struct row **rows_out) {
	struct csv csv;
	*rows_out = NULL;
	if (!csv_open(&csv, path)) {
		return -1;
	}
	int c_seq = csv_column(&csv, "frame");
	int c_target = csv_column(&csv, "target_vblank_ns");
	int c_presented = csv_column(&csv, "presented_ns");
	int c_start = csv_column(&csv, "render_start_ns");
	int c_end = csv_column(&csv, "render_end_ns");
	int c_main = csv_column(&csv, "main_thread_us");
	int c_in_flight = csv_column(&csv, "in_flight");
	int c_samples = csv_column(&csv, "scene_samples");
	if (c_seq < 0 || c_target < 0 || c_presented < 0 || c_start < 0 ||
			c_end < 0 || c_samples < 0) {
		fprintf(stderr, "bench-dvsync: %s lacks a column\n", path);
		csv_close(&csv);
		return -1;
	}
	size_t n = 0, cap = 0;
	struct row *rows = NULL;
	while (csv_next(&csv)) {
		const char *samples = csv_field(&csv, c_samples);
		if (samples == NULL) {
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			struct row *bigger = realloc(rows, cap * sizeof(*rows));
			if (bigger == NULL) {
				abort();
			}
			rows = bigger;
		}
		double in_flight = csv_number(&csv, c_in_flight);
		rows[n++] = (struct row){
			.seq = strtoull(csv_field(&csv, c_seq), NULL, 10),
			.target = strtoull(csv_field(&csv, c_target), NULL, 10),
			.presented = strtoull(csv_field(&csv, c_presented), NULL, 10),
			.start = strtoull(csv_field(&csv, c_start), NULL, 10),
			.end = strtoull(csv_field(&csv, c_end), NULL, 10),
			.main_us = csv_number(&csv, c_main),
			.in_flight = isnan(in_flight) ? 0 : (int)in_flight,
			.serial = samples_serial(samples),
		};
	}
	csv_close(&csv);
	if (rows != NULL) {
		qsort(rows, n, sizeof(*rows), cmp_row);
	}
	*rows_out = rows;
	return (ssize_t)n;
}

/* What one trace of one run showed. */
struct trace_result {
	size_t frames; // rows of the animation
	bool unfinished; // fewer rows than the trace has costs
	double vblanks, missed, seconds;
	size_t shown, late, replaced;
	struct bench_values lat_exec, lat_dts, main_us;
	int in_flight_max;
};

/* The animation `serial`'s rows: the first trace->n replayed the trace. */
static void analyse(const struct row *rows, size_t n, uint32_t serial,
		const struct trace *trace, double period_ns, struct trace_result *r) {
	*r = (struct trace_result){ 0 };
	uint64_t first = 0, last = 0;
	size_t used = 0;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].serial != serial) {
			continue;
		}
		r->frames++;
		if (used == trace->n) {
			continue; // after the trace: not counted
		}
		used++;
		const struct row *row = &rows[i];
		if (!isnan(row->main_us)) {
			bench_values_add(&r->main_us, row->main_us);
		}
		if (row->in_flight > r->in_flight_max) {
			r->in_flight_max = row->in_flight;
		}
		if (row->presented == 0) {
			r->replaced++;
			continue;
		}
		r->shown++;
		r->late += row->presented > row->target + (uint64_t)(period_ns / 2);
		bench_values_add(&r->lat_exec,
				(double)(row->presented - row->start) / 1e6);
		bench_values_add(&r->lat_dts,
				((double)row->presented - (double)row->target) / 1e6);
		first = first == 0 || row->presented < first ? row->presented : first;
		last = row->presented > last ? row->presented : last;
	}
	r->unfinished = used < trace->n;
	if (first == 0) {
		return;
	}
	/* vblank slots from the first frame shown; the distinct ones that
	 * showed a frame of the trace */
	long nslots = lround((double)(last - first) / period_ns) + 1;
	bool *hit = calloc((size_t)nslots, sizeof(bool));
	if (hit == NULL) {
		abort();
	}
	size_t seen = 0;
	for (size_t i = 0; i < n && seen < used; i++) {
		if (rows[i].serial != serial) {
			continue;
		}
		seen++;
		if (rows[i].presented == 0) {
			continue;
		}
		long slot = lround((double)(rows[i].presented - first) / period_ns);
		if (slot >= 0 && slot < nslots) {
			hit[slot] = true;
		}
	}
	long shown_slots = 0;
	for (long s = 0; s < nslots; s++) {
		shown_slots += hit[s];
	}
	free(hit);
	r->vblanks = (double)nslots;
	r->missed = (double)(nslots - shown_slots);
	r->seconds = (double)nslots * period_ns / 1e9;
}

/* What the real trace of one run showed, counted by when its frames
 * finished (render_end_ns), not by when vitrail says they were shown. */
struct real_result {
	size_t frames, shown, late, replaced, mismatch;
	double vblanks, missed, missed_late, seconds;
	struct bench_values cost_ms, lat_exec, lat_dts;
};

/* The animation `serial`'s rows (the measured zoom): a frame can be shown
 * at the first vblank at or after both its target (target_vblank_ns) and
 * the end of its rendering (render_end_ns); over the vblanks from the
 * first at which a frame could be shown to the last, each at which none
 * could is a drop (missed), and of those, missed_late the ones that a
 * frame meant for that vblank or an earlier one was still rendering at.
 * late: frames that finished after their target; mismatch: frames shown
 * at another vblank than that (presented_ns; 0 on the headless vblank
 * model, which shows a frame at a vblank only once it is ready). */
static void analyse_real(const struct row *rows, size_t n, uint32_t serial,
		double period_ns, struct real_result *r) {
	*r = (struct real_result){ 0 };
	uint64_t origin = 0; // the earliest target: slot 0
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].serial != serial || rows[i].target == 0) {
			continue;
		}
		count++;
		if (origin == 0 || rows[i].target < origin) {
			origin = rows[i].target;
		}
	}
	if (count == 0) {
		return;
	}
	long *target_slot = calloc(count, sizeof(long));
	long *ready_slot = calloc(count, sizeof(long));
	if (target_slot == NULL || ready_slot == NULL) {
		abort();
	}
	long first = -1, last = -1;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const struct row *row = &rows[i];
		if (row->serial != serial || row->target == 0) {
			continue;
		}
		r->frames++;
		long ts = lround((double)(row->target - origin) / period_ns);
		long rs = -1; // never finished
		if (row->end > 0) {
			double end = ((double)row->end - (double)origin) / period_ns;
			rs = (long)ceil(end - 1e-3);
			rs = rs > ts ? rs : ts;
			r->late += row->end > row->target;
			if (row->start > 0 && row->end >= row->start) {
				bench_values_add(&r->cost_ms,
						(double)(row->end - row->start) / 1e6);
			}
			first = first < 0 || rs < first ? rs : first;
			last = rs > last ? rs : last;
		}
		target_slot[k] = ts;
		ready_slot[k++] = rs;
		if (row->presented == 0) {
			r->replaced++;
			continue;
		}
		r->shown++;
		bench_values_add(&r->lat_exec,
				(double)(row->presented - row->start) / 1e6);
		bench_values_add(&r->lat_dts,
				((double)row->presented - (double)row->target) / 1e6);
		r->mismatch += lround(((double)row->presented - (double)origin) /
							   period_ns) != rs;
	}
	if (first >= 0) {
		long nslots = last - first + 1;
		bool *hit = calloc((size_t)nslots, sizeof(bool));
		if (hit == NULL) {
			abort();
		}
		for (size_t j = 0; j < k; j++) {
			if (ready_slot[j] >= 0) {
				hit[ready_slot[j] - first] = true;
			}
		}
		for (long v = first; v <= last; v++) {
			if (hit[v - first]) {
				continue;
			}
			r->missed++;
			for (size_t j = 0; j < k; j++) {
				if (target_slot[j] <= v &&
						(ready_slot[j] < 0 || ready_slot[j] > v)) {
					r->missed_late++;
					break;
				}
			}
		}
		free(hit);
		r->vblanks = (double)nslots;
		r->seconds = (double)nslots * period_ns / 1e9;
	}
	free(target_slot);
	free(ready_slot);
}

/* ---- one run --------------------------------------------------------------
 */

static void cell_add(struct cell *cell, struct trace_result *r,
		uint64_t cpu_ns) {
	cell->runs++;
	cell->unfinished += r->unfinished;
	cell->vblanks += r->vblanks;
	cell->missed += r->missed;
	cell->seconds += r->seconds;
	cell->frames += r->frames;
	cell->shown += r->shown;
	cell->late += r->late;
	cell->replaced += r->replaced;
	for (size_t i = 0; i < r->lat_exec.len; i++) {
		bench_values_add(&cell->lat_exec, r->lat_exec.v[i]);
		bench_values_add(&cell->lat_dts, r->lat_dts.v[i]);
	}
	for (size_t i = 0; i < r->main_us.len; i++) {
		bench_values_add(&cell->main_us, r->main_us.v[i]);
	}
	if (cpu_ns > 0 && r->frames > 0) {
		cell->cpu_ns += (double)cpu_ns;
		cell->cpu_frames += (double)r->frames;
	}
	if (r->in_flight_max > cell->in_flight_max) {
		cell->in_flight_max = r->in_flight_max;
	}
}

static const char *setup_name(const struct setup *setup) {
	return setup->nested ? "nested" : "headless";
}

/* vitrail's arguments for a mode's run (NULL-terminated, at most 8). */
static void mode_args(const struct mode *mode, const char *frame_log,
		const char *extra[8]) {
	int n = 0;
	extra[n++] = "--test";
	extra[n++] = "--frame-log";
	extra[n++] = frame_log;
	extra[n++] = "--pacing";
	extra[n++] = mode->pacing;
	if (mode->prerender != NULL) {
		extra[n++] = "--prerender";
		extra[n++] = mode->prerender;
	}
	extra[n] = NULL;
}

static bool run_once(struct bench *bench, struct setup *setup, int m, int rep) {
	const struct mode *mode = &modes[m];
	int n = ++bench->nruns;
	char *base = bench_asprintf("%s/run%03d-%s-%.0fhz-%s", bench->runs_dir, n,
			setup_name(setup), setup->hz, mode->label);
	char *log = bench_asprintf("%s.log", base);
	char *parent_log = bench_asprintf("%s-parent.log", base);
	char *frame_log = bench_asprintf("%s-frames.csv", base);
	unlink(frame_log);
	double period_ns = 1e9 / setup->hz;
	const char *extra[8];
	mode_args(mode, frame_log, extra);
	struct bench_vitrail parent, vitrail;
	bool ok = bench_vitrail_start_setup(&bench->env, setup->nested, setup->hz,
			OUTPUT_SIZE, extra, log, parent_log, START_TIMEOUT_MS, &parent,
			&vitrail);

	struct client client = { 0 };
	struct played played[MAX_TRACES] = { 0 };
	int ntraces = setup->all_traces ? bench->ntraces : 1;
	ok = ok && client_connect(&client, vitrail.socket, false);
	/* warm-up: pipelines, glyphs, the pacer's composition estimate */
	ok = ok && animate(&client, WARMUP_MS) && settle(&client);
	for (int t = 0; t < ntraces && ok; t++) {
		played[t] =
				play_trace(&client, vitrail.pid, &bench->traces[t], period_ns);
		ok = played[t].ok;
	}
	client_finish(&client);
	bool stopped = bench_vitrail_stop(&vitrail);
	if (setup->nested) {
		bench_vitrail_stop(&parent);
	}
	if (!ok || !stopped) {
		fprintf(stderr,
				"bench-dvsync: run %d (%s %.0f Hz %s) failed%s; "
				"see %s\n",
				n, setup_name(setup), setup->hz, mode->label,
				ok ? " (vitrail's exit)" : "", log);
		bench->failed++;
	}

	struct row *rows = NULL;
	ssize_t nrows = ok ? read_frame_log(frame_log, &rows) : -1;
	/* animations in start order: the warm-up, then the traces */
	uint32_t serials[MAX_TRACES + 1];
	int nserials = 0;
	for (ssize_t i = 0; i < nrows; i++) {
		uint32_t s = rows[i].serial;
		bool known = s == 0;
		for (int k = 0; k < nserials && !known; k++) {
			known = serials[k] == s;
		}
		if (!known && nserials < MAX_TRACES + 1) {
			serials[nserials++] = s;
		}
	}
	qsort(serials, (size_t)nserials, sizeof(uint32_t), cmp_u32);
	for (int t = 0; ok && t < ntraces; t++) {
		struct trace *trace = &bench->traces[t];
		struct trace_result r = { 0 };
		if (t + 1 < nserials) {
			analyse(rows, (size_t)nrows, serials[t + 1], trace, period_ns, &r);
		} else {
			fprintf(stderr, "bench-dvsync: run %d: no frames of %s\n", n,
					trace->name);
		}
		struct cell *cell = &setup->cells[m][t];
		cell_add(cell, &r, played[t].cpu_ns);
		double fdps = r.seconds > 0 ? r.missed / r.seconds : NAN;
		double cpu_us = r.frames > 0 && played[t].cpu_ns > 0 ?
				(double)played[t].cpu_ns / 1e3 / (double)r.frames :
				NAN;
		struct bench_values *paper = m == 0 ? &r.lat_exec : &r.lat_dts;
		printf("  run %3d rep %d %-8s %3.0f Hz %-11s %-9s frames %3zu "
			   "vblanks %3.0f missed %3.0f fdps %6s  lat exec %6s dts %6s "
			   "paper %6s ms  cpu %6s us/frame%s\n",
				n, rep + 1, setup_name(setup), setup->hz, mode->label,
				trace->name, r.frames, r.vblanks, r.missed, bench_fmt(fdps, 2),
				bench_fmt(bench_values_mean(&r.lat_exec), 2),
				bench_fmt(bench_values_mean(&r.lat_dts), 2),
				bench_fmt(bench_values_mean(paper), 2), bench_fmt(cpu_us, 0),
				r.unfinished ? "  (animation ended before the trace)" : "");
		fprintf(bench->runs_csv,
				"%d,%d,%s,%g,%s,%s,%zu,%d,%.0f,%.0f,%s,"
				"%zu,%zu,%zu,%s,%s,%s,%s,%s,%d,,,,\n",
				n, rep + 1, setup_name(setup), setup->hz, mode->label,
				trace->name, r.frames, r.unfinished ? 0 : 1, r.vblanks,
				r.missed, bench_fmt(fdps, 3), r.shown, r.late, r.replaced,
				bench_fmt(bench_values_mean(&r.lat_exec), 3),
				bench_fmt(bench_values_mean(&r.lat_dts), 3),
				bench_fmt(bench_values_mean(paper), 3),
				bench_fmt(bench_values_rank(&r.main_us, 50), 1),
				bench_fmt(cpu_us, 1), r.in_flight_max);
		free(r.lat_exec.v);
		free(r.lat_dts.v);
		free(r.main_us.v);
	}
	fflush(bench->runs_csv);
	free(rows);
	free(base);
	free(log);
	free(parent_log);
	free(frame_log);
	return ok && stopped;
}

static void real_cell_add(struct real_cell *cell, struct real_result *r) {
	cell->runs++;
	cell->vblanks += r->vblanks;
	cell->missed += r->missed;
	cell->missed_late += r->missed_late;
	cell->seconds += r->seconds;
	cell->frames += r->frames;
	cell->shown += r->shown;
	cell->late += r->late;
	cell->replaced += r->replaced;
	cell->mismatch += r->mismatch;
	for (size_t i = 0; i < r->cost_ms.len; i++) {
		bench_values_add(&cell->cost_ms, r->cost_ms.v[i]);
	}
	for (size_t i = 0; i < r->lat_exec.len; i++) {
		bench_values_add(&cell->lat_exec, r->lat_exec.v[i]);
		bench_values_add(&cell->lat_dts, r->lat_dts.v[i]);
	}
}

/* The load of the real trace's loaded runs: a child that keeps one core
 * busy (another job on the machine), as nice as vitrail. -1: none. */
static pid_t hog_start(void) {
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		volatile uint64_t spin = 0;
		for (;;) {
			spin++;
		}
	}
	return pid;
}

static void hog_stop(pid_t pid) {
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* One run of the real trace: its own vitrail, headless at REAL_HZ with one
 * REAL_OUTPUT_SIZE output; the heavy window, a warm-up zoom, then the
 * measured zoom of REAL_MS. No slow_frames: the costs are the
 * composition's own. load: a busy process beside it from the warm-up to
 * the end of the zoom. */
static bool run_real(struct bench *bench, int m, int rep, bool load) {
	const struct mode *mode = &modes[m];
	const char *trace = load ? REAL_LOAD_NAME : REAL_NAME;
	struct real_cell *cell = &bench->real[load][m];
	int n = ++bench->nruns;
	char *base = bench_asprintf("%s/run%03d-%s-%dhz-%s", bench->runs_dir, n,
			trace, REAL_HZ, mode->label);
	char *log = bench_asprintf("%s.log", base);
	char *frame_log = bench_asprintf("%s-frames.csv", base);
	unlink(frame_log);
	double period_ns = 1e9 / REAL_HZ;
	const char *extra[8];
	mode_args(mode, frame_log, extra);
	struct bench_vitrail parent, vitrail;
	bool ok = bench_vitrail_start_setup(&bench->env, false, REAL_HZ,
			REAL_OUTPUT_SIZE, extra, log, NULL, START_TIMEOUT_MS, &parent,
			&vitrail);
	struct client client = { 0 };
	ok = ok && client_connect(&client, vitrail.socket, true);
	pid_t hog = ok && load ? hog_start() : -1;
	if (ok && load && hog < 0) {
		fprintf(stderr, "bench-dvsync: fork: %s\n", strerror(errno));
		ok = false;
	}
	/* warm-up: glyphs, pipelines, the pacer's composition estimate */
	ok = ok && animate(&client, REAL_WARMUP_MS) && settle(&client);
	uint64_t cpu0 = ok ? bench_process_cpu_ns(vitrail.pid) : 0;
	ok = ok && animate(&client, REAL_MS) && settle(&client);
	uint64_t cpu_ns = ok ? bench_process_cpu_ns(vitrail.pid) - cpu0 : 0;
	hog_stop(hog);
	client_finish(&client);
	bool stopped = bench_vitrail_stop(&vitrail);
	if (!ok || !stopped) {
		fprintf(stderr,
				"bench-dvsync: run %d (%s %d Hz %s) failed%s; "
				"see %s\n",
				n, trace, REAL_HZ, mode->label, ok ? " (vitrail's exit)" : "",
				log);
		bench->failed++;
	}

	struct row *rows = NULL;
	ssize_t nrows = ok ? read_frame_log(frame_log, &rows) : -1;
	/* the measured zoom started last: the highest serial */
	uint32_t serial = 0;
	for (ssize_t i = 0; i < nrows; i++) {
		serial = rows[i].serial > serial ? rows[i].serial : serial;
	}
	struct real_result r = { 0 };
	if (ok && serial != 0) {
		analyse_real(rows, (size_t)nrows, serial, period_ns, &r);
		real_cell_add(cell, &r);
		if (cpu0 > 0 && r.frames > 0) {
			cell->cpu_ns += (double)cpu_ns;
			cell->cpu_frames += (double)r.frames;
		}
	} else if (ok) {
		fprintf(stderr, "bench-dvsync: run %d: no frames of %s\n", n, trace);
	}
	double fdps = r.seconds > 0 ? r.missed / r.seconds : NAN;
	double cpu_ms = cpu0 > 0 && r.frames > 0 ?
			(double)cpu_ns / 1e6 / (double)r.frames :
			NAN;
	bench->real_rep_fdps[load][rep][m] = fdps;
	struct bench_values *paper = m == 0 ? &r.lat_exec : &r.lat_dts;
	printf("  run %3d rep %d %-8s %3d Hz %-11s %-9s frames %3zu "
		   "vblanks %3.0f missed %3.0f (late %3.0f) fdps %6s  cost median %6s "
		   "ms cpu %6s ms/frame  lat exec %6s dts %6s paper %6s ms\n",
			n, rep + 1, "headless", REAL_HZ, mode->label, trace, r.frames,
			r.vblanks, r.missed, r.missed_late, bench_fmt(fdps, 2),
			bench_fmt(bench_values_median(&r.cost_ms), 1), bench_fmt(cpu_ms, 1),
			bench_fmt(bench_values_mean(&r.lat_exec), 2),
			bench_fmt(bench_values_mean(&r.lat_dts), 2),
			bench_fmt(bench_values_mean(paper), 2));
	fprintf(bench->runs_csv,
			"%d,%d,%s,%d,%s,%s,%zu,%d,%.0f,%.0f,%s,"
			"%zu,%zu,%zu,%s,%s,%s,,,,%.0f,%s,%zu,%s\n",
			n, rep + 1, "headless", REAL_HZ, mode->label, trace, r.frames,
			r.frames > 0 ? 1 : 0, r.vblanks, r.missed, bench_fmt(fdps, 3),
			r.shown, r.late, r.replaced,
			bench_fmt(bench_values_mean(&r.lat_exec), 3),
			bench_fmt(bench_values_mean(&r.lat_dts), 3),
			bench_fmt(bench_values_mean(paper), 3), r.missed_late,
			bench_fmt(bench_values_median(&r.cost_ms), 3), r.mismatch,
			bench_fmt(cpu_ms, 3));
	fflush(bench->runs_csv);
	bench_values_finish(&r.cost_ms);
	bench_values_finish(&r.lat_exec);
	bench_values_finish(&r.lat_dts);
	free(rows);
	free(base);
	free(log);
	free(frame_log);
	return ok && stopped;
}

/* ---- report ---------------------------------------------------------------
 */

/* The figures of one cell. */
struct figures {
	double fdps, lat_exec, lat_exec_p95, lat_dts, lat_dts_p95, lat_paper,
			main_us, cpu_us;
};

static struct figures cell_figures(struct cell *c, int mode) {
	return (struct figures){
		.fdps = c->seconds > 0 ? c->missed / c->seconds : NAN,
		.lat_exec = bench_values_mean(&c->lat_exec),
		.lat_exec_p95 = bench_values_rank(&c->lat_exec, 95),
		.lat_dts = bench_values_mean(&c->lat_dts),
		.lat_dts_p95 = bench_values_rank(&c->lat_dts, 95),
		.lat_paper = mode == 0 ? bench_values_mean(&c->lat_exec) :
								 bench_values_mean(&c->lat_dts),
		.main_us = bench_values_rank(&c->main_us, 50),
		.cpu_us = c->cpu_frames > 0 ? c->cpu_ns / 1e3 / c->cpu_frames : NAN,
	};
}

/* 100 * (1 - x / base); 0 when both are 0. */
static double reduction(double base, double x) {
	if (base == 0 && x == 0) {
		return 0;
	}
	return base > 0 ? 100.0 * (1.0 - x / base) : NAN;
}

static double real_fdps(const struct real_cell *c) {
	return c->seconds > 0 ? c->missed / c->seconds : NAN;
}

/* The real trace's table (stdout and dvsync.txt) and its rows of
 * dvsync.csv; load: its runs beside a busy process. */
static void write_real_report(struct bench *bench, FILE *outs[2], FILE *csv,
		bool load) {
	int reps = load ? bench->real_load_reps : bench->real_reps;
	if (reps < 1) {
		return;
	}
	const char *trace = load ? REAL_LOAD_NAME : REAL_NAME;
	double period_ms = 1e3 / REAL_HZ;
	for (int o = 0; o < 2; o++) {
		if (outs[o] == NULL) {
			continue;
		}
		fprintf(outs[o],
				"\nReal trace (no slow_frames: the composition's "
				"own cost), vitrail headless %s output at %d Hz, window %dx%d "
				"of %d cards zoomed from %.2f to 1 in %d ms; drops counted by "
				"when "
				"frames finished (render_end_ns); %d repetitions "
				"interleaved%s\n",
				REAL_OUTPUT_SIZE, REAL_HZ, REAL_WINDOW_W, REAL_WINDOW_H,
				REAL_COLS * REAL_ROWS, REAL_ZOOM, REAL_MS, reps,
				load ? "; beside a process that keeps one core busy "
					   "(" REAL_LOAD_NAME ")" :
					   "");
		fprintf(outs[o],
				"%-8s %4s %-11s %-9s %5s %6s %6s %6s %6s %7s | "
				"%6s %6s %6s %6s | %6s %6s %7s %7s\n",
				"backend", "Hz", "mode", "trace", "frames", "vblank", "missed",
				"late", "fdps", "fdps", "cost", "cost", "cost", "cpu", "exec",
				"dts", "paper", "paper");
		fprintf(outs[o],
				"%-8s %4s %-11s %-9s %5s %6s %6s %6s %6s %7s | "
				"%6s %6s %6s %6s | %6s %6s %7s %7s\n",
				"", "", "", "", "", "", "", "", "", "-%", "med", "p90",
				"period", "ms/fr", "mean", "mean", "mean", "-%");
	}
	struct real_cell *base = &bench->real[load][0];
	for (int m = 0; m < NMODES; m++) {
		struct real_cell *c = &bench->real[load][m];
		double fdps = real_fdps(c);
		double fdps_red = m == 0 ? NAN : reduction(real_fdps(base), fdps);
		double cost = bench_values_rank(&c->cost_ms, 50);
		double cost_p90 = bench_values_rank(&c->cost_ms, 90);
		double cpu_ms =
				c->cpu_frames > 0 ? c->cpu_ns / 1e6 / c->cpu_frames : NAN;
		double exec = bench_values_mean(&c->lat_exec);
		double dts = bench_values_mean(&c->lat_dts);
		double paper = m == 0 ? exec : dts;
		double base_paper = bench_values_mean(&base->lat_exec);
		double lat_red = m == 0 ? NAN : reduction(base_paper, paper);
		for (int o = 0; o < 2; o++) {
			if (outs[o] == NULL) {
				continue;
			}
			fprintf(outs[o],
					"%-8s %4d %-11s %-9s %5zu %6.0f %6.0f %6.0f "
					"%6s %7s | %6s %6s %6s %6s | %6s %6s %7s %7s%s\n",
					"headless", REAL_HZ, modes[m].label, trace, c->frames,
					c->vblanks, c->missed, c->missed_late, bench_fmt(fdps, 2),
					bench_fmt(fdps_red, 1), bench_fmt(cost, 1),
					bench_fmt(cost_p90, 1), bench_fmt(cost / period_ms, 2),
					bench_fmt(cpu_ms, 1), bench_fmt(exec, 2), bench_fmt(dts, 2),
					bench_fmt(paper, 2), bench_fmt(lat_red, 1),
					c->runs < reps ? "  (runs failed)" : "");
		}
		if (csv != NULL) {
			fprintf(csv,
					"%s,%d,%s,%d,%s,%d,%d,%zu,%.0f,%.0f,%.3f,%s,%s,"
					"%zu,%zu,%zu,%s,%s,%s,%s,,%s,%s,,,,,%.0f,%s,%s,%zu,%s\n",
					"headless", REAL_HZ, modes[m].label, modes[m].buffers,
					trace, c->runs, 0, c->frames, c->vblanks, c->missed,
					c->seconds, bench_fmt(fdps, 3), bench_fmt(fdps_red, 1),
					c->shown, c->late, c->replaced, bench_fmt(exec, 3),
					bench_fmt(bench_values_rank(&c->lat_exec, 95), 3),
					bench_fmt(dts, 3),
					bench_fmt(bench_values_rank(&c->lat_dts, 95), 3),
					bench_fmt(paper, 3), bench_fmt(lat_red, 1), c->missed_late,
					bench_fmt(cost, 3), bench_fmt(cost_p90, 3), c->mismatch,
					bench_fmt(cpu_ms, 3));
		}
	}
	for (int o = 0; o < 2; o++) {
		if (outs[o] == NULL) {
			continue;
		}
		fprintf(outs[o],
				"real: a frame counts as shown at the first vblank "
				"at or after both its target and its render end; missed: "
				"vblanks at which none was, late: those a frame meant for them "
				"(or earlier) was still rendering at; cost: render_end_ns - "
				"render_start_ns (ms; period: in refresh periods); cpu: the "
				"CPU "
				"time of all of vitrail's threads over the zoom per frame "
				"rendered\n");
	}
}

static void write_reports(struct bench *bench) {
	char *csv_path = bench_asprintf("%s/dvsync.csv", bench->out);
	char *txt_path = bench_asprintf("%s/dvsync.txt", bench->out);
	FILE *csv = fopen(csv_path, "w");
	FILE *txt = fopen(txt_path, "w");
	if (csv != NULL) {
		fprintf(csv,
				"backend,refresh_hz,mode,buffers,trace,runs,"
				"unfinished_runs,frames,vblanks,missed,seconds,fdps,"
				"fdps_reduction_pct,shown,late,replaced,lat_exec_mean_ms,"
				"lat_exec_p95_ms,lat_dts_mean_ms,lat_dts_p95_ms,"
				"lat_dts_reduction_pct,lat_paper_mean_ms,"
				"lat_paper_reduction_pct,main_thread_us_median,main_cpu_us_per_"
				"frame,overhead_us,"
				"in_flight_max,missed_late,cost_median_ms,cost_p90_ms,"
				"presented_mismatch,vitrail_cpu_ms_per_frame\n");
	}
	FILE *outs[] = { stdout, txt };
	for (int o = 0; o < 2; o++) {
		if (outs[o] == NULL) {
			continue;
		}
		fprintf(outs[o],
				"\nD-VSync vs VSync, vitrail %s output, window "
				"%dx%d, traces from %s; %d repetitions interleaved (nested: "
				"%d)\n",
				OUTPUT_SIZE, WINDOW_W, WINDOW_H, bench->traces_dir, bench->reps,
				bench->nested_reps);
		fprintf(outs[o],
				"%-8s %4s %-11s %-9s %5s %6s %6s %6s %7s | %6s %6s "
				"%6s %6s %7s %7s | %6s %6s %6s\n",
				"backend", "Hz", "mode", "trace", "frames", "vblank", "missed",
				"fdps", "fdps", "exec", "exec", "dts", "dts", "paper", "paper",
				"main", "cpu", "over");
		fprintf(outs[o],
				"%-8s %4s %-11s %-9s %5s %6s %6s %6s %7s | %6s %6s "
				"%6s %6s %7s %7s | %6s %6s %6s\n",
				"", "", "", "", "", "", "", "", "-%", "mean", "p95", "mean",
				"p95", "mean", "-%", "us", "us/fr", "us/fr");
	}
	for (int s = 0; s < bench->nsetups; s++) {
		struct setup *setup = &bench->setups[s];
		int ntraces = setup->all_traces ? bench->ntraces : 1;
		for (int t = 0; t < ntraces; t++) {
			struct figures base = cell_figures(&setup->cells[0][t], 0);
			for (int m = 0; m < NMODES; m++) {
				struct cell *c = &setup->cells[m][t];
				struct figures f = cell_figures(c, m);
				double fdps_red = m == 0 ? NAN : reduction(base.fdps, f.fdps);
				double lat_red =
						m == 0 ? NAN : reduction(base.lat_paper, f.lat_paper);
				double dts_red =
						m == 0 ? NAN : reduction(base.lat_dts, f.lat_dts);
				double over = m == 0 ? NAN : f.cpu_us - base.cpu_us;
				for (int o = 0; o < 2; o++) {
					if (outs[o] == NULL) {
						continue;
					}
					fprintf(outs[o],
							"%-8s %4.0f %-11s %-9s %5zu %6.0f %6.0f "
							"%6s %7s | %6s %6s %6s %6s %7s %7s | %6s %6s "
							"%6s%s\n",
							setup_name(setup), setup->hz, modes[m].label,
							bench->traces[t].name, c->frames, c->vblanks,
							c->missed, bench_fmt(f.fdps, 2),
							bench_fmt(fdps_red, 1), bench_fmt(f.lat_exec, 2),
							bench_fmt(f.lat_exec_p95, 2),
							bench_fmt(f.lat_dts, 2),
							bench_fmt(f.lat_dts_p95, 2),
							bench_fmt(f.lat_paper, 2), bench_fmt(lat_red, 1),
							bench_fmt(f.main_us, 0), bench_fmt(f.cpu_us, 0),
							bench_fmt(over, 0),
							c->unfinished > 0 ? "  (trace not finished)" : "");
				}
				if (csv != NULL) {
					fprintf(csv,
							"%s,%g,%s,%d,%s,%d,%d,%zu,%.0f,%.0f,%.3f,%s,"
							"%s,%zu,%zu,%zu,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d",
							setup_name(setup), setup->hz, modes[m].label,
							modes[m].buffers, bench->traces[t].name, c->runs,
							c->unfinished, c->frames, c->vblanks, c->missed,
							c->seconds, bench_fmt(f.fdps, 3),
							bench_fmt(fdps_red, 1), c->shown, c->late,
							c->replaced, bench_fmt(f.lat_exec, 3),
							bench_fmt(f.lat_exec_p95, 3),
							bench_fmt(f.lat_dts, 3),
							bench_fmt(f.lat_dts_p95, 3), bench_fmt(dts_red, 1),
							bench_fmt(f.lat_paper, 3), bench_fmt(lat_red, 1),
							bench_fmt(f.main_us, 1), bench_fmt(f.cpu_us, 1),
							bench_fmt(over, 1), c->in_flight_max);
					fprintf(csv, ",,,,,\n");
				}
			}
		}
	}
	for (int o = 0; o < 2; o++) {
		if (outs[o] == NULL) {
			continue;
		}
		fprintf(outs[o],
				"fdps: vblanks that showed no new frame of the "
				"trace, per second; exec: render start -> present (ms); dts: "
				"D-Timestamp (target_vblank_ns) -> present (ms); paper: exec "
				"for vsync, dts for dvsync (the paper's rendering latency); "
				"main: median main_thread_us; cpu: vitrail's main-thread CPU "
				"per frame rendered; over: cpu minus vsync's\n");
	}
	write_real_report(bench, outs, csv, false);
	write_real_report(bench, outs, csv, true);
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

/* FDPS per setup and trace, the real trace (alone, then loaded) last;
 * and the latencies. */
static void write_plots(struct bench *bench) {
	struct plot_row rows[MAX_SETUPS * MAX_TRACES + 2];
	size_t nrows = 0;
	struct plot_row lat_rows[MAX_SETUPS * MAX_TRACES + 2];
	for (int s = 0; s < bench->nsetups; s++) {
		struct setup *setup = &bench->setups[s];
		int ntraces = setup->all_traces ? bench->ntraces : 1;
		for (int t = 0; t < ntraces; t++) {
			struct plot_row *row = &rows[nrows];
			struct plot_row *lat = &lat_rows[nrows++];
			*row = (struct plot_row){ 0 };
			*lat = (struct plot_row){ 0 };
			snprintf(row->label, sizeof(row->label), "%s%s %.0f Hz",
					bench->traces[t].name, setup->nested ? " nested" : "",
					setup->hz);
			memcpy(lat->label, row->label, sizeof(lat->label));
			for (int m = 0; m < NMODES; m++) {
				struct figures f = cell_figures(&setup->cells[m][t], m);
				row->values[m] = f.fdps;
				lat->values[2 * m] = f.lat_exec;
				lat->values[2 * m + 1] = f.lat_dts;
			}
		}
	}
	for (int load = 0; load < 2; load++) {
		if ((load ? bench->real_load_reps : bench->real_reps) < 1) {
			continue;
		}
		struct plot_row *row = &rows[nrows];
		struct plot_row *lat = &lat_rows[nrows++];
		*row = (struct plot_row){ 0 };
		*lat = (struct plot_row){ 0 };
		snprintf(row->label, sizeof(row->label), "%s %d Hz",
				load ? REAL_LOAD_NAME : REAL_NAME, REAL_HZ);
		memcpy(lat->label, row->label, sizeof(lat->label));
		for (int m = 0; m < NMODES; m++) {
			struct real_cell *c = &bench->real[load][m];
			row->values[m] = real_fdps(c);
			lat->values[2 * m] = bench_values_mean(&c->lat_exec);
			lat->values[2 * m + 1] = bench_values_mean(&c->lat_dts);
		}
	}
	struct plot fdps = {
		.title = "D-VSync vs VSync: frame drops per second (vblanks without "
				 "a new frame), lower is better",
		.series = { modes[0].label, modes[1].label, modes[2].label },
		.nseries = NMODES,
		.rows = rows,
		.nrows = nrows,
		.note = "(vsync: triple buffering; dvsync: --prerender 3 / 4)",
		.linear = true,
		.unit = "/s",
	};
	struct plot latency = {
		.title = "Rendering latency, mean: render start -> present (exec) "
				 "and D-Timestamp -> present (dts)",
		.series = { "vsync exec", "vsync dts", "dvsync-4buf exec",
				"dvsync-4buf dts", "dvsync-5buf exec", "dvsync-5buf dts" },
		.nseries = 6,
		.rows = lat_rows,
		.nrows = nrows,
		.note = "(the paper's latency: vsync exec vs dvsync dts)",
		.linear = true,
		.unit = "ms",
	};
	char *fdps_path = bench_asprintf("%s/dvsync-fdps.png", bench->out);
	char *lat_path = bench_asprintf("%s/dvsync-latency.png", bench->out);
	if (plot_write(&fdps, fdps_path)) {
		printf("plot: %s\n", fdps_path);
	}
	if (plot_write(&latency, lat_path)) {
		printf("plot: %s\n", lat_path);
	}
	free(fdps_path);
	free(lat_path);
}

/* The real trace's FDPS per mode, pooled over its repetitions (NAN: none);
 * true when every mode has one. */
static bool real_summary(struct bench *bench, bool load, double fdps[NMODES]) {
	int reps = load ? bench->real_load_reps : bench->real_reps;
	bool known = true;
	for (int m = 0; m < NMODES; m++) {
		const struct real_cell *c = &bench->real[load][m];
		fdps[m] = reps > 0 && c->runs > 0 ? real_fdps(c) : NAN;
		known = known && !isnan(fdps[m]);
	}
	return known;
}

/* "k/n": in how many of the n repetitions that ran every mode a dvsync
 * mode dropped more than vsync. */
static const char *real_worse_reps(struct bench *bench, bool load) {
	static char text[2][32];
	int reps = load ? bench->real_load_reps : bench->real_reps;
	int worse = 0, compared = 0;
	for (int rep = 0; rep < reps; rep++) {
		const double *f = bench->real_rep_fdps[load][rep];
		if (!isnan(f[0]) && !isnan(f[1]) && !isnan(f[2])) {
			compared++;
			worse += f[1] > f[0] || f[2] > f[0];
		}
	}
	snprintf(text[load], sizeof(text[load]), "%d/%d", worse, compared);
	return text[load];
}

/* The 60 Hz (or first) headless setup's power-law trace; then the real
 * trace, alone and loaded. */
static void print_summary(struct bench *bench) {
	struct setup *setup = NULL;
	for (int s = 0; s < bench->nsetups; s++) {
		if (!bench->setups[s].nested &&
				(setup == NULL || bench->setups[s].hz == 60)) {
			setup = &bench->setups[s];
		}
	}
	if (setup == NULL) {
		printf("summary: fdps_reduction_4buf=n/a fdps_reduction_5buf=n/a "
			   "latency_reduction=n/a overhead_us=n/a");
	} else {
		struct figures vsync = cell_figures(&setup->cells[0][0], 0);
		struct figures dv4 = cell_figures(&setup->cells[1][0], 1);
		struct figures dv5 = cell_figures(&setup->cells[2][0], 2);
		printf("summary: fdps_reduction_4buf=%s fdps_reduction_5buf=%s "
			   "latency_reduction=%s overhead_us=%s",
				bench_fmt(reduction(vsync.fdps, dv4.fdps), 1),
				bench_fmt(reduction(vsync.fdps, dv5.fdps), 1),
				bench_fmt(reduction(vsync.lat_paper, dv4.lat_paper), 1),
				bench_fmt(dv4.cpu_us - vsync.cpu_us, 0));
	}
	/* the real trace: FDPS per mode, their reductions, whether rendering
	 * ahead dropped more than vsync, vsync's median frame cost (ms) */
	double fdps[NMODES];
	bool known = real_summary(bench, false, fdps);
	/* The drops no pacing avoids: content that costs more CPU per frame
	 * than the machine's cores give per period cannot be drawn at the
	 * refresh rate however frames are scheduled (rendering ahead hides
	 * peaks, not a mean cost over a period). The floor: the rate minus
	 * the frames per second all cores could render at the CPU time per
	 * frame that dvsync-4buf measured; and the share of vsync's drops
	 * above that floor that dvsync-4buf avoided. */
	const struct real_cell *c4 = &bench->real[0][1];
	double cpu_ms = bench->real_reps > 0 && c4->cpu_frames > 0 ?
			c4->cpu_ns / 1e6 / c4->cpu_frames :
			NAN;
	double cores = (double)sysconf(_SC_NPROCESSORS_ONLN);
	double floor_fdps = NAN, avoided = NAN;
	if (!isnan(cpu_ms) && cpu_ms > 0 && cores >= 1) {
		double can = cores * 1000.0 / cpu_ms;
		floor_fdps = can >= REAL_HZ ? 0.0 : REAL_HZ - can;
		if (known && fdps[0] > floor_fdps) {
			avoided = 100.0 * (fdps[0] - fdps[1]) / (fdps[0] - floor_fdps);
		}
	}
	printf(" fdps_reduction_real_4buf=%s fdps_reduction_real_5buf=%s "
		   "fdps_real_vsync=%s fdps_real_4buf=%s fdps_real_5buf=%s "
		   "fdps_real_floor=%s real_avoidable_avoided_4buf=%s "
		   "real_worse_than_vsync=%s real_worse_reps=%s real_cost_ms=%s",
			bench_fmt(reduction(fdps[0], fdps[1]), 1),
			bench_fmt(reduction(fdps[0], fdps[2]), 1), bench_fmt(fdps[0], 2),
			bench_fmt(fdps[1], 2), bench_fmt(fdps[2], 2),
			bench_fmt(floor_fdps, 2), bench_fmt(avoided, 1),
			!known                                         ? "n/a" :
					fdps[1] > fdps[0] || fdps[2] > fdps[0] ? "1" :
															 "0",
			real_worse_reps(bench, false),
			bench_fmt(bench->real_reps > 0 ?
							bench_values_rank(&bench->real[0][0].cost_ms, 50) :
							NAN,
					1));
	/* the same beside a busy process: rendering ahead must not drop more
	 * than vsync there either */
	double load[NMODES];
	bool load_known = real_summary(bench, true, load);
	printf(" fdps_real_load_vsync=%s fdps_real_load_4buf=%s "
		   "fdps_real_load_5buf=%s real_load_worse_than_vsync=%s "
		   "real_load_worse_reps=%s\n",
			bench_fmt(load[0], 2), bench_fmt(load[1], 2), bench_fmt(load[2], 2),
			!load_known                                    ? "n/a" :
					load[1] > load[0] || load[2] > load[0] ? "1" :
															 "0",
			real_worse_reps(bench, true));
}

/* ---- main -----------------------------------------------------------------
 */

static void usage(FILE *f) {
	fprintf(f,
			"Usage: bench-dvsync --vitrail PATH --traces DIR --out DIR "
			"[--reps N] [--rates HZ,HZ,...] [--nested-reps N] "
			"[--nested-traces all|power-law] [--real-reps N] "
			"[--real-load-reps N] [--real-only]\n");
}

static int parse_rates(struct bench *bench, const char *list) {
	bench->nrates = 0;
	char *copy = strdup(list);
	for (char *tok = strtok(copy, ",");
			tok != NULL && bench->nrates < MAX_RATES; tok = strtok(NULL, ",")) {
		double hz = strtod(tok, NULL);
		if (!(hz >= 10 && hz <= 500)) {
			free(copy);
			return -1;
		}
		bench->rates[bench->nrates++] = hz;
	}
	free(copy);
	return bench->nrates;
}

static void remove_runtime_dir(struct bench *bench) {
	/* what vitrail left there: sockets and locks, and the config dir */
	char *cmd = bench_asprintf("rm -rf '%s'", bench->runtime_dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench-dvsync: could not remove %s\n",
				bench->runtime_dir);
	}
	free(cmd);
}

int main(int argc, char *argv[]) {
	int engines_rc = bench_engines_main(&argc, argv);
	if (engines_rc >= 0) {
		return engines_rc;
	}
	struct bench bench = {
		.reps = 2,
		.nested_reps = -1,
		.real_reps = -1,
		.real_load_reps = -1,
	};
	parse_rates(&bench, "60,90,120");
	static const struct option long_options[] = {
		{ "vitrail", required_argument, NULL, 'v' },
		{ "traces", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'r' },
		{ "rates", required_argument, NULL, 'R' },
		{ "nested-reps", required_argument, NULL, 'n' },
		{ "nested-traces", required_argument, NULL, 'N' },
		{ "real-reps", required_argument, NULL, 'e' },
		{ "real-load-reps", required_argument, NULL, 'l' },
		{ "real-only", no_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		switch (opt) {
		case 'v': bench.vitrail = optarg; break;
		case 't': bench.traces_dir = optarg; break;
		case 'o': bench.out = optarg; break;
		case 'r': bench.reps = atoi(optarg); break;
		case 'R':
			if (parse_rates(&bench, optarg) <= 0) {
				fprintf(stderr,
						"bench-dvsync: --rates: 10 to 500 Hz, "
						"comma-separated\n");
				return 2;
			}
			break;
		case 'n': bench.nested_reps = atoi(optarg); break;
		case 'N': bench.nested_all_traces = strcmp(optarg, "all") == 0; break;
		case 'e': bench.real_reps = atoi(optarg); break;
		case 'l': bench.real_load_reps = atoi(optarg); break;
		case 'E': bench.real_only = true; break;
		case 'h': usage(stdout); return EXIT_SUCCESS;
		default: usage(stderr); return 2;
		}
	}
	if (bench.nested_reps < 0) {
		bench.nested_reps = bench.reps;
	}
	if (bench.real_reps < 0) {
		bench.real_reps = bench.reps;
	}
	if (bench.real_load_reps < 0) {
		bench.real_load_reps = bench.real_reps;
	}
	for (int load = 0; load < 2; load++) {
		for (int rep = 0; rep < MAX_REPS; rep++) {
			for (int m = 0; m < NMODES; m++) {
				bench.real_rep_fdps[load][rep][m] = NAN;
			}
		}
	}
	if (bench.real_only) {
		bench.nested_reps = 0;
	}
	if (bench.vitrail == NULL || bench.traces_dir == NULL ||
			bench.out == NULL || bench.reps < 1 || bench.reps > 50 ||
			bench.nested_reps > 50 || bench.real_reps > MAX_REPS ||
			bench.real_load_reps > MAX_REPS ||
			(bench.real_only && bench.real_reps < 1 &&
					bench.real_load_reps < 1)) {
		usage(stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);

	/* power-law first: the summary's trace */
	const char *names[] = { SUMMARY_TRACE, "scroll", "launch" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!trace_load(&bench.traces[bench.ntraces], bench.traces_dir,
					names[i])) {
			return EXIT_FAILURE;
		}
		bench.ntraces++;
	}
	for (int r = 0; r < bench.nrates && !bench.real_only; r++) {
		bench.setups[bench.nsetups++] = (struct setup){ .hz = bench.rates[r],
			.reps = bench.reps,
			.all_traces = true };
	}
	if (bench.nested_reps > 0) {
		bench.setups[bench.nsetups++] = (struct setup){ .nested = true,
			.hz = 60,
			.reps = bench.nested_reps,
			.all_traces = bench.nested_all_traces };
	}

	bench.runs_dir = bench_asprintf("%s/dvsync", bench.out);
	mkdir(bench.out, 0755);
	mkdir(bench.runs_dir, 0755);
	char runtime_template[] = "/tmp/vitrail-bench-XXXXXX";
	if (mkdtemp(runtime_template) == NULL) {
		perror("bench-dvsync: mkdtemp");
		return EXIT_FAILURE;
	}
	bench.runtime_dir = runtime_template;
	bench.config_dir = bench_asprintf("%s/config", bench.runtime_dir);
	mkdir(bench.config_dir, 0700);
	bench.env = (struct bench_env){ bench.runtime_dir, bench.config_dir,
		bench.vitrail };
	/* this process is a client too */
	setenv("XDG_RUNTIME_DIR", bench.runtime_dir, 1);

	char *runs_path = bench_asprintf("%s/dvsync-runs.csv", bench.out);
	bench.runs_csv = fopen(runs_path, "w");
	if (bench.runs_csv == NULL) {
		fprintf(stderr, "bench-dvsync: cannot write %s\n", runs_path);
		return EXIT_FAILURE;
	}
	fprintf(bench.runs_csv,
			"run,rep,backend,refresh_hz,mode,trace,frames,"
			"trace_finished,vblanks,missed,fdps,shown,late,replaced,"
			"lat_exec_mean_ms,lat_dts_mean_ms,lat_paper_mean_ms,"
			"main_thread_us_median,main_cpu_us_per_frame,in_flight_max,"
			"missed_late,cost_median_ms,presented_mismatch,"
			"vitrail_cpu_ms_per_frame\n");
	printf("bench-dvsync: %s; traces:", bench.vitrail);
	for (int t = 0; t < bench.ntraces && !bench.real_only; t++) {
		printf(" %s (%zu frames)", bench.traces[t].name, bench.traces[t].n);
	}
	if (bench.real_reps > 0) {
		printf(" %s (%d ms at %d Hz, %s output)", REAL_NAME, REAL_MS, REAL_HZ,
				REAL_OUTPUT_SIZE);
	}
	if (bench.real_load_reps > 0) {
		printf(" %s (the same beside a busy process)", REAL_LOAD_NAME);
	}
	printf("\n");

	/* every repetition runs every mode of every setup; the mode order is
	 * reversed every other repetition */
	int64_t started = bench_now_ms();
	int most_reps =
			bench.reps > bench.nested_reps ? bench.reps : bench.nested_reps;
	most_reps = bench.real_reps > most_reps ? bench.real_reps : most_reps;
	most_reps =
			bench.real_load_reps > most_reps ? bench.real_load_reps : most_reps;
	for (int rep = 0; rep < most_reps; rep++) {
		for (int s = 0; s < bench.nsetups; s++) {
			struct setup *setup = &bench.setups[s];
			if (rep >= setup->reps) {
				continue;
			}
			for (int k = 0; k < NMODES; k++) {
				int m = rep % 2 == 0 ? k : NMODES - 1 - k;
				run_once(&bench, setup, m, rep);
			}
		}
		for (int k = 0; rep < bench.real_reps && k < NMODES; k++) {
			int m = rep % 2 == 0 ? k : NMODES - 1 - k;
			run_real(&bench, m, rep, false);
		}
		for (int k = 0; rep < bench.real_load_reps && k < NMODES; k++) {
			int m = rep % 2 == 0 ? NMODES - 1 - k : k;
			run_real(&bench, m, rep, true);
		}
	}
	fclose(bench.runs_csv);
	printf("%d runs in %.0f s; wrote %s\n", bench.nruns,
			(double)(bench_now_ms() - started) / 1e3, runs_path);

	write_reports(&bench);
	write_plots(&bench);
	if (bench.failed > 0) {
		printf("%d runs failed\n", bench.failed);
	}
	print_summary(&bench);
	remove_runtime_dir(&bench);
	for (int s = 0; s < bench.nsetups; s++) {
		for (int m = 0; m < NMODES; m++) {
			for (int t = 0; t < bench.ntraces; t++) {
				struct cell *c = &bench.setups[s].cells[m][t];
				free(c->lat_exec.v);
				free(c->lat_dts.v);
				free(c->main_us.v);
			}
		}
	}
	for (int load = 0; load < 2; load++) {
		for (int m = 0; m < NMODES; m++) {
			bench_values_finish(&bench.real[load][m].cost_ms);
			bench_values_finish(&bench.real[load][m].lat_exec);
			bench_values_finish(&bench.real[load][m].lat_dts);
		}
	}
	for (int t = 0; t < bench.ntraces; t++) {
		free(bench.traces[t].cost);
	}
	free(runs_path);
	free(bench.config_dir);
	free(bench.runs_dir);
	return bench.failed > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
