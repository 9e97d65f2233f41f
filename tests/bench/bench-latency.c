/*
 * bench-latency: input-to-display latency of vitrail's pacing paths for
 * the Presto paper's drawing app, side by side in one run.
 *
 *   meson test -C build --benchmark --suite latency --verbose
 *
 * Configurations (vitrail_frame_timing_v1 paths of the probe):
 *   vsync                  --path vsync
 *   low-latency            --path low-latency (Presto's just-in-time
 *                          trigger)
 *   low-latency+tearing    --path low-latency --tearing (and position-
 *                          aware rendering where the backend allows it)
 * each on vitrail headless at 60 Hz and at 120 Hz (--refresh) and nested
 * (--backend wayland) in a headless vitrail at 60 Hz, the probe spending
 * 2 ms of busy work per frame (its render cost); and a sweep at 60 Hz
 * headless of that cost, 0.4 and 0.8 of a refresh period, for vsync and
 * low-latency. Repetitions are interleaved (every repetition runs every
 * configuration once, the order reversed every other one) and pooled, as
 * this machine is noisy.
 *
 * One run: a fresh vitrail, one 640x480 output, --mode kiosk (the
 * probe's window fills the output, so that the probe's surface-local
 * positions are the output's pixels and every position on the output
 * lands on the probe) and --frame-log; vitrail-draw-probe with the
 * configuration's path and cost and --ready-fd; once the probe's first
 * frame is on screen, vitrail-pointer-driver moves a virtual pointer back
 * and forth along the output's middle row, --speed px/s (default 960) in
 * events of --rate Hz (default 250), for --seconds (default 2). Then the
 * probe drains its feedback and exits, and vitrail stops.
 *
 * The join of the driver's events and the probe's frames is exact: the
 * driver starts after the probe's window is on screen and covers the
 * output, and no two consecutive events share a position, so every event
 * reaches the probe as exactly one wl_pointer event (the first as enter,
 * the others as motion: wlroots drops only motion that does not move).
 * Wayland keeps their order, so the probe's pointer event number e (from
 * 1, in receive order) is the driver's event e - 1 - offset, where offset
 * is the number of pointer events the probe got before the driver
 * started: nested, the parent's seat gives vitrail a pointer device, and
 * the probe's window gets the pointer's focus (an enter event at the
 * cursor) as it maps; headless there is none. offset is the probe's count
 * of events less the driver's, which must not be negative, and every
 * frame the probe drew must show exactly the position of the driver's
 * event of its number, frames before the driver's first event aside
 * (mismatches are counted as join errors; a run with any is left out).
 * Any other event than the driver's would break that check.
 *
 * Figures per configuration, pooled over its runs:
 *   latency       per driver event: its send time (CLOCK_MONOTONIC right
 *                 before the driver's flush) to the presentation time of
 *                 the first probe frame that drew that event or a later
 *                 one and was shown: the first moment the screen showed
 *                 the square where that event or a newer one put it. A
 *                 frame's presentation time is its wp_presentation
 *                 feedback's or, where that said discarded but
 *                 vitrail_commit_feedback_v1 says presented (vitrail
 *                 replaced its own frame that first drew the commit by a
 *                 later one that shows it too), the latter's. Median and
 *                 p95, ms. Events of the first 250 ms of a run (warm-up)
 *                 are left out, and those no shown frame answered (the
 *                 last ones) are counted apart.
 *   vitrail       from the frame log: presented_ns - input_ns of the
 *                 presented frames that answer input (vitrail's receive
 *                 time of the oldest input a frame answers, to display),
 *                 median, ms.
 *   drops         probe frames drawn for input whose wp_presentation
 *                 feedback said discarded, and the longest run of
 *                 consecutive ones (the CSV has the same by
 *                 vitrail_commit_feedback_v1 too: ft_discarded).
 *   fps           probe frames drawn for input per second of the
 *                 driver's motion.
 *   reduction     of the median latency against vsync in the same setup
 *                 and cost, in percent.
 * A configuration that cannot run (the compositor does not offer the
 * path: the probe exits with a protocol error before its first frame) is
 * tried once and shows n/a.
 *
 * Output in <out>: latency.csv (one row per configuration), latency-runs.csv
 * (one per run), latency.txt (the table), latency.png (median and p95 per
 * configuration), every run's logs, CSVs and frame log in latency/.
 * stdout ends with
 *   summary: latency_reduction=<%> latency_reduction_120=<%>
 *            max_consecutive_drops=<n>
 * (one line): the median latency's reduction of low-latency against vsync
 * at 60 Hz and at 120 Hz headless with a 2 ms render cost, and the longest
 * run of discarded probe frames over every low-latency run (with and
 * without tearing, every setup and cost); n/a where a figure cannot be
 * had.
 *
 * Options: --vitrail PATH --probe PATH --driver PATH --out DIR (required),
 * --reps N (default 5), --seconds S (default 2), --rate HZ (default 250:
 * a USB mouse's polling rate, and one the refresh rates do not divide; at
 * 240 Hz every event kept one phase against the vblanks of 60 and 120 Hz,
 * so a run's latencies were two or four fixed values a quarter or half a
 * period apart and the median took one or the other by the run's chance
 * phase: the 120 Hz vsync median 9.4 or 13.4 ms in runs of one build),
 * --speed PX (default 960), --nested-reps N (default --reps; 0: no
 * nested runs), --no-sweep. Exit status 1 when a run failed other than by
 * an unsupported path, 0 otherwise.
 */
#define _GNU_SOURCE // asprintf, pipe2
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"
#include "plot.h"

#define MAX_CONFIGS 16
#define OUTPUT_W 640
#define OUTPUT_H 480
#define START_TIMEOUT_MS 60000
#define READY_TIMEOUT_MS 30000
#define WARMUP_NS 250000000u
/* after the driver's last event, before the probe is asked to stop */
#define DRAIN_MS 300

struct config {
	const char *label; // the path, as the table names it
	const char *path; // the probe's --path
	bool tearing;
	bool nested;
	double hz;
	double cost_periods; // render cost in periods; 0: cost_ms
	double cost_ms;
	/* pooled over runs */
	struct bench_values latency_ms;
	struct bench_values vitrail_ms;
	size_t events, unanswered, frames, discarded, ft_discarded;
	int max_drop_run, ft_max_drop_run;
	double motion_s;
	int runs, failed_runs, join_failed_runs;
	bool unsupported;
	char why[160];
};

struct bench {
	const char *vitrail, *probe, *driver, *out;
	int reps, nested_reps;
	bool sweep;
	double seconds, rate, speed;
	char *runs_dir, *runtime_dir, *config_dir;
	struct bench_env env;
	FILE *runs_csv;
	int nruns, failed;
	struct config configs[MAX_CONFIGS];
	int nconfigs;
};

static double config_cost_ms(const struct config *c) {
	return c->cost_periods > 0 ? c->cost_periods * 1000.0 / c->hz : c->cost_ms;
}

static const char *setup_name(const struct config *c) {
	return c->nested ? "nested" : "headless";
}

static const char *cost_name(const struct config *c) {
	static char bufs[4][32];
	static int next;
	char *buf = bufs[next++ % 4];
	if (c->cost_periods > 0) {
		snprintf(buf, 32, "%.1fp", c->cost_periods);
	} else {
		snprintf(buf, 32, "%gms", c->cost_ms);
	}
	return buf;
}

/* ---- one run --------------------------------------------------------------
 */

/* What one run measured. */
struct run {
	bool ok; // every process did its part
	bool unsupported; // the probe's path is not offered
	size_t events; // the driver's
	long probe_events; // the probe's count, -1: unknown
	size_t join_errors;
	struct bench_values latency_ms;
	struct bench_values vitrail_ms;
	size_t unanswered, frames, discarded, ft_discarded;
	int max_drop_run, ft_max_drop_run;
	double motion_s;
};

/* Wait up to timeout_ms for "ready\n" on fd; false when the writer
 * closed it first or the time ran out. */
static bool wait_ready(int fd, int timeout_ms) {
	char buf[16];
	size_t len = 0;
	int64_t deadline = bench_now_ms() + timeout_ms;
	while (bench_now_ms() < deadline && len < sizeof(buf) - 1) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		if (poll(&pfd, 1, 100) <= 0) {
			continue;
		}
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0) {
			return false;
		}
		len += (size_t)n;
		buf[len] = '\0';
		if (strchr(buf, '\n') != NULL) {
			return strcmp(buf, "ready\n") == 0;
		}
	}
	return false;
}

/* Wait up to timeout_ms for pid to exit; its wait status, -1 on timeout
 * (it is then stopped). */
static int wait_exit(pid_t pid, int timeout_ms) {
	int status = 0;
	int64_t deadline = bench_now_ms() + timeout_ms;
	while (bench_now_ms() < deadline) {
		if (bench_reaped(pid, &status)) {
			return status;
		}
		bench_sleep_ms(10);
	}
	bench_stop(pid, 2000);
	return -1;
}

static bool exited_ok(int status) {
	return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The probe's log says the compositor refused its path (a protocol
 * error) or does not offer tearing (version 1): the line. */
static bool probe_refused(const char *log_path, char *why, size_t size) {
	char *log = csv_read_file(log_path);
	const char *line = log != NULL ? strstr(log, "protocol error") : NULL;
	if (line == NULL && log != NULL) {
		line = strstr(log, "--tearing needs");
	}
	if (line != NULL) {
		const char *start = line;
		while (start > log && start[-1] != '\n') {
			start--;
		}
		size_t len = strcspn(start, "\n");
		snprintf(why, size, "%.*s", (int)(len < size ? len : size - 1), start);
	}
	free(log);
	return line != NULL;
}

/* The probe's "events=" of its summary line; -1 when absent. */
static long probe_event_count(const char *log_path) {
	char *log = csv_read_file(log_path);
	const char *line = log != NULL ? strstr(log, "draw-probe: ") : NULL;
	const char *events = line != NULL ? strstr(line, " events=") : NULL;
	long n =
			events != NULL ? strtol(events + strlen(" events="), NULL, 10) : -1;
	free(log);
	return n;
}

struct driver_event {
	double x, y, send_ns;
};

struct probe_frame {
	double x, y, event, commit_ns;
	double shown_ns; // 0: never shown (see the header)
	bool discarded; // wp_presentation
	bool ft_discarded; // vitrail_commit_feedback_v1
};

static size_t read_driver(const char *path, struct driver_event **out) {
	struct csv csv;
	*out = NULL;
	if (!csv_open(&csv, path)) {
		return 0;
	}
	int cx = csv_column(&csv, "x"), cy = csv_column(&csv, "y");
	int cs = csv_column(&csv, "send_ns");
	size_t n = 0, cap = 0;
	struct driver_event *events = NULL;
	while (csv_next(&csv)) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			events = realloc(events, cap * sizeof(*events));
			if (events == NULL) {
				abort();
			}
		}
		events[n++] = (struct driver_event){ csv_number(&csv, cx),
			csv_number(&csv, cy), csv_number(&csv, cs) };
	}
	csv_close(&csv);
	*out = events;
	return n;
}

/* The probe's frames in its order (seq). */
static size_t read_probe(const char *path, struct probe_frame **out) {
	struct csv csv;
	*out = NULL;
	if (!csv_open(&csv, path)) {
		return 0;
	}
	int cx = csv_column(&csv, "x"), cy = csv_column(&csv, "y");
	int ce = csv_column(&csv, "event");
	int cc = csv_column(&csv, "commit_ns");
	int cp = csv_column(&csv, "presented_ns");
	int cd = csv_column(&csv, "discarded");
	int cfp = csv_column(&csv, "ft_presented_ns");
	int cfd = csv_column(&csv, "ft_discarded");
	size_t n = 0, cap = 0;
	struct probe_frame *frames = NULL;
	while (csv_next(&csv)) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			frames = realloc(frames, cap * sizeof(*frames));
			if (frames == NULL) {
				abort();
			}
		}
		double presented = csv_number(&csv, cp);
		double ft_presented = csv_number(&csv, cfp);
		frames[n++] = (struct probe_frame){
			.x = csv_number(&csv, cx),
			.y = csv_number(&csv, cy),
			.event = csv_number(&csv, ce),
			.commit_ns = csv_number(&csv, cc),
			.shown_ns = presented > 0 ? presented :
					ft_presented > 0  ? ft_presented :
										0,
			.discarded = csv_number(&csv, cd) == 1,
			.ft_discarded = csv_number(&csv, cfd) > 0,
		};
	}
	csv_close(&csv);
	*out = frames;
	return n;
}

/* Join the driver's events and the probe's frames (see the header). */
static void analyse(struct run *run, const struct driver_event *events,
		size_t nevents, const struct probe_frame *frames, size_t nframes) {
	run->events = nevents;
	if (run->probe_events < (long)nevents) {
		run->join_errors++; // events lost: no join
		return;
	}
	double offset = (double)(run->probe_events - (long)nevents);
	double last = 0;
	int drop_run = 0, ft_drop_run = 0;
	for (size_t i = 0; i < nframes; i++) {
		const struct probe_frame *f = &frames[i];
		if (!(f->event > offset)) {
			continue; // before the driver's first event
		}
		size_t k = (size_t)(f->event - offset) - 1;
		if (f->event < last || k >= nevents || f->x != events[k].x ||
				f->y != events[k].y) {
			run->join_errors++;
		}
		last = f->event;
		run->frames++;
		if (f->discarded) {
			run->discarded++;
			drop_run++;
			if (drop_run > run->max_drop_run) {
				run->max_drop_run = drop_run;
			}
		} else {
			drop_run = 0;
		}
		if (f->ft_discarded) {
			run->ft_discarded++;
			ft_drop_run++;
			if (ft_drop_run > run->ft_max_drop_run) {
				run->ft_max_drop_run = ft_drop_run;
			}
		} else {
			ft_drop_run = 0;
		}
	}
	if (nevents < 2 || run->join_errors > 0) {
		return;
	}
	double t0 = events[0].send_ns, t1 = events[nevents - 1].send_ns;
	run->motion_s = (t1 - t0) / 1e9;
	// frames in event order: the first frame drawing event k + 1 or later,
	// then the first presented one from there
	size_t i = 0;
	for (size_t k = 0; k < nevents; k++) {
		while (i < nframes && !(frames[i].event >= offset + (double)(k + 1))) {
			i++;
		}
		size_t j = i;
		while (j < nframes && !(frames[j].shown_ns > 0)) {
			j++;
		}
		if (events[k].send_ns < t0 + WARMUP_NS) {
			continue;
		}
		if (j == nframes) {
			run->unanswered++;
			continue;
		}
		bench_values_add(&run->latency_ms,
				(frames[j].shown_ns - events[k].send_ns) / 1e6);
	}
}

/* presented_ns - input_ns of the frame log's presented answering frames. */
static void read_frame_log(const char *path, struct run *run) {
	struct csv csv;
	if (!csv_open(&csv, path)) {
		return;
	}
	int cp = csv_column(&csv, "presented_ns");
	int ci = csv_column(&csv, "input_ns");
	while (ci >= 0 && csv_next(&csv)) {
		double p = csv_number(&csv, cp);
		double in = csv_number(&csv, ci);
		if (p > 0 && in > 0) {
			bench_values_add(&run->vitrail_ms, (p - in) / 1e6);
		}
	}
	csv_close(&csv);
}

static void run_config(struct bench *bench, struct config *c, int rep) {
	int n = ++bench->nruns;
	char *base = bench_asprintf("%s/run%03d-%s-%.0fhz-%s-%s%s", bench->runs_dir,
			n, setup_name(c), c->hz, cost_name(c), c->path,
			c->tearing ? "-tearing" : "");
	char *log = bench_asprintf("%s.log", base);
	char *parent_log = bench_asprintf("%s-parent.log", base);
	char *probe_log = bench_asprintf("%s-probe.log", base);
	char *driver_log = bench_asprintf("%s-driver.log", base);
	char *frame_log = bench_asprintf("%s-frames.csv", base);
	char *probe_csv = bench_asprintf("%s-probe.csv", base);
	char *driver_csv = bench_asprintf("%s-driver.csv", base);
	unlink(frame_log);
	unlink(probe_csv);
	unlink(driver_csv);
	struct run run = { .probe_events = -1, .max_drop_run = 0 };
	char cost[32], seconds[32], rate[32], speed[32];
	snprintf(cost, sizeof(cost), "%.3f", config_cost_ms(c));
	snprintf(seconds, sizeof(seconds), "%g", bench->seconds);
	snprintf(rate, sizeof(rate), "%g", bench->rate);
	snprintf(speed, sizeof(speed), "%g", bench->speed);
	char size[32];
	snprintf(size, sizeof(size), "%dx%d", OUTPUT_W, OUTPUT_H);

	pid_t probe = -1, driver = -1;
	const char *extra[] = { "--mode", "kiosk", "--allow", "virtual-input",
		"--frame-log", frame_log, NULL };
	struct bench_vitrail parent, vitrail;
	bool ok = bench_vitrail_start_setup(&bench->env, c->nested, c->hz, size,
			extra, log, parent_log, START_TIMEOUT_MS, &parent, &vitrail);

	int fds[2] = { -1, -1 };
	if (ok && pipe2(fds, O_CLOEXEC) < 0) {
		perror("bench-latency: pipe");
		ok = false;
	}
	if (ok) {
		char fd_arg[16];
		snprintf(fd_arg, sizeof(fd_arg), "%d", fds[1]);
		const char *probe_argv[24];
		int pc = 0;
		probe_argv[pc++] = bench->probe;
		probe_argv[pc++] = "--path";
		probe_argv[pc++] = c->path;
		if (c->tearing) {
			probe_argv[pc++] = "--tearing";
		}
		probe_argv[pc++] = "--render-ms";
		probe_argv[pc++] = cost;
		probe_argv[pc++] = "--csv";
		probe_argv[pc++] = probe_csv;
		probe_argv[pc++] = "--app-id";
		probe_argv[pc++] = "draw-probe";
		probe_argv[pc++] = "--timeout";
		probe_argv[pc++] = "120";
		probe_argv[pc++] = "--ready-fd";
		probe_argv[pc++] = fd_arg;
		probe_argv[pc] = NULL;
		probe = bench_spawn(&bench->env, probe_argv, vitrail.socket, probe_log,
				fds[1]);
		close(fds[1]);
		ok = probe > 0 && wait_ready(fds[0], READY_TIMEOUT_MS);
		close(fds[0]);
		if (!ok && probe > 0) {
			int status = wait_exit(probe, 2000);
			probe = -1;
			run.unsupported = status >= 0 &&
					probe_refused(probe_log, c->why, sizeof(c->why));
		}
	}
	if (ok) {
		const char *driver_argv[] = { bench->driver, "--duration", seconds,
			"--rate", rate, "--speed", speed, "--csv", driver_csv, NULL };
		driver = bench_spawn(&bench->env, driver_argv, vitrail.socket,
				driver_log, -1);
		int status = driver > 0 ?
				wait_exit(driver, (int)(bench->seconds * 1000) + 30000) :
				-1;
		ok = exited_ok(status);
		bench_sleep_ms(DRAIN_MS);
	}
	if (probe > 0) {
		int status = bench_stop(probe, 5000);
		ok = ok && exited_ok(status);
	}
	bool stopped = bench_vitrail_stop(&vitrail);
	if (c->nested) {
		bench_vitrail_stop(&parent);
	}

	if (ok) {
		struct driver_event *events = NULL;
		struct probe_frame *frames = NULL;
		size_t nevents = read_driver(driver_csv, &events);
		size_t nframes = read_probe(probe_csv, &frames);
		run.probe_events = probe_event_count(probe_log);
		analyse(&run, events, nevents, frames, nframes);
		read_frame_log(frame_log, &run);
		free(events);
		free(frames);
	}
	run.ok = ok && stopped;
	c->runs++;
	if (run.unsupported) {
		c->unsupported = true;
		printf("  run %3d rep %d %-8s %3.0f Hz %-6s %-20s n/a: %s\n", n,
				rep + 1, setup_name(c), c->hz, cost_name(c), c->label, c->why);
	} else if (!run.ok) {
		c->failed_runs++;
		bench->failed++;
		fprintf(stderr,
				"bench-latency: run %d (%s %.0f Hz %s %s) failed; see "
				"%s*\n",
				n, setup_name(c), c->hz, cost_name(c), c->label, base);
	} else if (run.join_errors > 0) {
		c->join_failed_runs++;
		bench->failed++;
		fprintf(stderr,
				"bench-latency: run %d: %zu join errors (the probe "
				"counted %ld events, the driver sent %zu); left out, see %s*\n",
				n, run.join_errors, run.probe_events, run.events, base);
	} else {
		for (size_t i = 0; i < run.latency_ms.len; i++) {
			bench_values_add(&c->latency_ms, run.latency_ms.v[i]);
		}
		for (size_t i = 0; i < run.vitrail_ms.len; i++) {
			bench_values_add(&c->vitrail_ms, run.vitrail_ms.v[i]);
		}
		c->events += run.latency_ms.len;
		c->unanswered += run.unanswered;
		c->frames += run.frames;
		c->discarded += run.discarded;
		c->ft_discarded += run.ft_discarded;
		c->motion_s += run.motion_s;
		if (run.max_drop_run > c->max_drop_run) {
			c->max_drop_run = run.max_drop_run;
		}
		if (run.ft_max_drop_run > c->ft_max_drop_run) {
			c->ft_max_drop_run = run.ft_max_drop_run;
		}
	}
	if (!run.unsupported) {
		double fps = run.motion_s > 0 ? run.frames / run.motion_s : NAN;
		printf("  run %3d rep %d %-8s %3.0f Hz %-6s %-20s events %4zu "
			   "latency p50 %6s p95 %6s ms  vitrail p50 %6s ms  frames %4zu "
			   "discarded %3zu (run %d)  %5s fps%s\n",
				n, rep + 1, setup_name(c), c->hz, cost_name(c), c->label,
				run.latency_ms.len,
				bench_fmt(bench_values_median(&run.latency_ms), 2),
				bench_fmt(bench_values_rank(&run.latency_ms, 95), 2),
				bench_fmt(bench_values_median(&run.vitrail_ms), 2), run.frames,
				run.discarded, run.max_drop_run, bench_fmt(fps, 1),
				!run.ok                     ? "  FAILED" :
						run.join_errors > 0 ? "  JOIN ERRORS" :
											  "");
	}
	fprintf(bench->runs_csv,
			"%d,%d,%s,%g,%.3f,%s,%d,%d,%d,%zu,%zu,%zu,%s,%s,"
			"%s,%zu,%zu,%d,%zu,%d,%.3f\n",
			n, rep + 1, setup_name(c), c->hz, config_cost_ms(c), c->path,
			c->tearing ? 1 : 0, run.ok && run.join_errors == 0 ? 1 : 0,
			run.unsupported ? 1 : 0, run.events, run.join_errors,
			run.latency_ms.len,
			bench_fmt(bench_values_median(&run.latency_ms), 3),
			bench_fmt(bench_values_rank(&run.latency_ms, 95), 3),
			bench_fmt(bench_values_median(&run.vitrail_ms), 3), run.frames,
			run.discarded, run.max_drop_run, run.ft_discarded,
			run.ft_max_drop_run, run.motion_s);
	fflush(bench->runs_csv);
	bench_values_finish(&run.latency_ms);
	bench_values_finish(&run.vitrail_ms);
	free(base);
	free(log);
	free(parent_log);
	free(probe_log);
	free(driver_log);
	free(frame_log);
	free(probe_csv);
	free(driver_csv);
}

/* ---- report ---------------------------------------------------------------
 */

struct figures {
	double p50, p95, vitrail_p50, fps, max_run, reduction;
	bool ran;
};

/* vsync in the same setup, rate and cost as c (c itself when it is). */
static struct config *baseline(struct bench *bench, const struct config *c) {
	for (int i = 0; i < bench->nconfigs; i++) {
		struct config *b = &bench->configs[i];
		if (strcmp(b->path, "vsync") == 0 && b->nested == c->nested &&
				b->hz == c->hz && config_cost_ms(b) == config_cost_ms(c)) {
			return b;
		}
	}
	return NULL;
}

/* 100 * (1 - x / base). */
static double reduction(double base, double x) {
	return base > 0 && !isnan(x) ? 100.0 * (1.0 - x / base) : NAN;
}

static struct figures config_figures(struct bench *bench, struct config *c) {
	struct figures f = { NAN, NAN, NAN, NAN, NAN, NAN, false };
	if (c->unsupported || c->latency_ms.len == 0) {
		return f;
	}
	f.ran = true;
	f.p50 = bench_values_median(&c->latency_ms);
	f.p95 = bench_values_rank(&c->latency_ms, 95);
	f.vitrail_p50 = bench_values_median(&c->vitrail_ms);
	f.fps = c->motion_s > 0 ? c->frames / c->motion_s : NAN;
	f.max_run = c->max_drop_run;
	struct config *b = baseline(bench, c);
	if (b != NULL && b != c && !b->unsupported && b->latency_ms.len > 0) {
		f.reduction = reduction(bench_values_median(&b->latency_ms), f.p50);
	}
	return f;
}

static void write_plot(struct bench *bench) {
	struct plot_row rows[MAX_CONFIGS];
	for (int i = 0; i < bench->nconfigs; i++) {
		struct config *c = &bench->configs[i];
		struct figures f = config_figures(bench, c);
		snprintf(rows[i].label, sizeof(rows[i].label), "%s %.0fHz %s %s",
				setup_name(c), c->hz, cost_name(c), c->label);
		for (int s = 0; s < PLOT_MAX_SERIES; s++) {
			rows[i].values[s] = NAN;
		}
		rows[i].values[0] = f.p50;
		rows[i].values[1] = f.p95;
	}
	struct plot plot = {
		.title = "Input-to-display latency of the drawing probe: driver "
				 "send -> presentation",
		.series = { "median", "p95" },
		.nseries = 2,
		.rows = rows,
		.nrows = (size_t)bench->nconfigs,
		.note = "(no bar: the path is not offered)",
		.linear = true,
		.unit = "ms",
	};
	char *path = bench_asprintf("%s/latency.png", bench->out);
	if (plot_write(&plot, path)) {
		printf("wrote %s\n", path);
	} else {
		fprintf(stderr, "bench-latency: cannot write %s\n", path);
	}
	free(path);
}

static void write_reports(struct bench *bench) {
	char *csv_path = bench_asprintf("%s/latency.csv", bench->out);
	char *txt_path = bench_asprintf("%s/latency.txt", bench->out);
	FILE *csv = fopen(csv_path, "w");
	FILE *txt = fopen(txt_path, "w");
	if (csv != NULL) {
		fprintf(csv,
				"backend,refresh_hz,render_ms,render_cost,path,tearing,"
				"runs,failed_runs,supported,events,unanswered,latency_median_"
				"ms,"
				"latency_p95_ms,vitrail_median_ms,frames,discarded,"
				"max_consecutive_discarded,ft_discarded,"
				"ft_max_consecutive_discarded,client_fps,"
				"latency_reduction_pct\n");
	}
	FILE *outs[] = { stdout, txt };
	for (int o = 0; o < 2; o++) {
		if (outs[o] == NULL) {
			continue;
		}
		fprintf(outs[o],
				"\ninput-to-display latency, vitrail-draw-probe in "
				"kiosk mode on one %dx%d output, driver %g px/s at %g Hz for "
				"%g "
				"s, %d repetitions interleaved (nested: %d)\n",
				OUTPUT_W, OUTPUT_H, bench->speed, bench->rate, bench->seconds,
				bench->reps, bench->nested_reps);
		fprintf(outs[o],
				"%-8s %4s %-6s %-20s %4s %6s %8s %8s %8s %6s %6s "
				"%4s %6s %7s\n",
				"backend", "Hz", "render", "path", "runs", "events", "lat p50",
				"lat p95", "vitrail", "frames", "disc", "run", "fps", "reduct");
		fprintf(outs[o],
				"%-8s %4s %-6s %-20s %4s %6s %8s %8s %8s %6s %6s "
				"%4s %6s %7s\n",
				"", "", "", "", "", "", "(ms)", "(ms)", "p50 (ms)", "", "",
				"max", "", "(%)");
	}
	for (int i = 0; i < bench->nconfigs; i++) {
		struct config *c = &bench->configs[i];
		struct figures f = config_figures(bench, c);
		char runs[16], events[16], frames[16], disc[16], run[16];
		snprintf(runs, sizeof(runs), "%d", c->runs);
		snprintf(events, sizeof(events), "%zu", c->latency_ms.len);
		snprintf(frames, sizeof(frames), "%zu", c->frames);
		snprintf(disc, sizeof(disc), "%zu", c->discarded);
		snprintf(run, sizeof(run), "%d", c->max_drop_run);
		for (int o = 0; o < 2; o++) {
			if (outs[o] == NULL) {
				continue;
			}
			fprintf(outs[o],
					"%-8s %4.0f %-6s %-20s %4s %6s %8s %8s %8s %6s "
					"%6s %4s %6s %7s%s\n",
					setup_name(c), c->hz, cost_name(c), c->label, runs,
					f.ran ? events : "n/a", bench_fmt(f.p50, 2),
					bench_fmt(f.p95, 2), bench_fmt(f.vitrail_p50, 2),
					f.ran ? frames : "n/a", f.ran ? disc : "n/a",
					f.ran ? run : "n/a", bench_fmt(f.fps, 1),
					bench_fmt(f.reduction, 1),
					c->failed_runs + c->join_failed_runs > 0 ?
							"  (some runs failed)" :
							"");
		}
		if (csv != NULL) {
			char ft_run[16];
			snprintf(ft_run, sizeof(ft_run), "%d", c->ft_max_drop_run);
			fprintf(csv,
					"%s,%g,%.3f,%s,%s,%d,%d,%d,%d,%zu,%zu,%s,%s,%s,%zu,"
					"%zu,%s,%zu,%s,%s,%s\n",
					setup_name(c), c->hz, config_cost_ms(c), cost_name(c),
					c->path, c->tearing ? 1 : 0, c->runs,
					c->failed_runs + c->join_failed_runs,
					c->unsupported ? 0 : 1, c->latency_ms.len, c->unanswered,
					bench_fmt(f.p50, 3), bench_fmt(f.p95, 3),
					bench_fmt(f.vitrail_p50, 3), c->frames, c->discarded,
					f.ran ? run : "n/a", c->ft_discarded,
					f.ran ? ft_run : "n/a", bench_fmt(f.fps, 2),
					bench_fmt(f.reduction, 2));
		}
	}
	for (int o = 0; o < 2; o++) {
		if (outs[o] == NULL) {
			continue;
		}
		fprintf(outs[o],
				"lat: driver send -> presentation of the first probe "
				"frame drawing that event or a later one; vitrail: frame log "
				"presented_ns - input_ns; disc: probe frames discarded, run: "
				"the most in a row; render: the probe's busy work per frame "
				"(p: "
				"of a period); reduct: median latency vs vsync, same backend, "
				"rate and render cost\n");
		for (int i = 0; i < bench->nconfigs; i++) {
			struct config *c = &bench->configs[i];
			if (c->unsupported) {
				fprintf(outs[o], "n/a %s %.0f Hz %s %s: %s\n", setup_name(c),
						c->hz, cost_name(c), c->label, c->why);
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

/* The configuration of setup, rate, cost and path; NULL when absent. */
static struct config *find_config(struct bench *bench, bool nested, double hz,
		double cost_ms, const char *label) {
	for (int i = 0; i < bench->nconfigs; i++) {
		struct config *c = &bench->configs[i];
		if (c->nested == nested && c->hz == hz && c->cost_periods == 0 &&
				c->cost_ms == cost_ms && strcmp(c->label, label) == 0) {
			return c;
		}
	}
	return NULL;
}

static void print_summary(struct bench *bench) {
	double red[2] = { NAN, NAN };
	const double rates[2] = { 60, 120 };
	for (int r = 0; r < 2; r++) {
		struct config *ll =
				find_config(bench, false, rates[r], 2, "low-latency");
		if (ll != NULL) {
			red[r] = config_figures(bench, ll).reduction;
		}
	}
	int max_run = -1;
	for (int i = 0; i < bench->nconfigs; i++) {
		struct config *c = &bench->configs[i];
		if (strcmp(c->path, "low-latency") == 0 && !c->unsupported &&
				c->latency_ms.len > 0 && c->max_drop_run > max_run) {
			max_run = c->max_drop_run;
		}
	}
	printf("summary: latency_reduction=%s latency_reduction_120=%s "
		   "max_consecutive_drops=%s\n",
			bench_fmt(red[0], 1), bench_fmt(red[1], 1),
			bench_fmt(max_run >= 0 ? max_run : NAN, 0));
}

/* ---- main -----------------------------------------------------------------
 */

static void add_config(struct bench *bench, bool nested, double hz,
		double cost_ms, double cost_periods, const char *label) {
	if (bench->nconfigs == MAX_CONFIGS) {
		abort();
	}
	bench->configs[bench->nconfigs++] = (struct config){
		.label = label,
		.path = strncmp(label, "low-latency", 11) == 0 ? "low-latency" :
														 "vsync",
		.tearing = strstr(label, "tearing") != NULL,
		.nested = nested,
		.hz = hz,
		.cost_ms = cost_ms,
		.cost_periods = cost_periods,
	};
}

static void usage(FILE *f) {
	fprintf(f,
			"Usage: bench-latency --vitrail PATH --probe PATH --driver "
			"PATH --out DIR [--reps N] [--seconds S] [--rate HZ] [--speed PX] "
			"[--nested-reps N] [--no-sweep]\n");
}

static void remove_runtime_dir(struct bench *bench) {
	/* what vitrail left there: sockets and locks, and the config dir */
	char *cmd = bench_asprintf("rm -rf '%s'", bench->runtime_dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench-latency: could not remove %s\n",
				bench->runtime_dir);
	}
	free(cmd);
}

int main(int argc, char *argv[]) {
	int engines_rc = bench_engines_main(&argc, argv);
	if (engines_rc >= 0) {
		return engines_rc;
	}
	struct bench bench = { .reps = 5,
		.nested_reps = -1,
		.sweep = true,
		.seconds = 2,
		.rate = 250,
		.speed = 960 };
	static const struct option long_options[] = {
		{ "vitrail", required_argument, NULL, 'v' },
		{ "probe", required_argument, NULL, 'p' },
		{ "driver", required_argument, NULL, 'd' },
		{ "out", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "rate", required_argument, NULL, 'R' },
		{ "speed", required_argument, NULL, 'S' },
		{ "nested-reps", required_argument, NULL, 'n' },
		{ "no-sweep", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		switch (opt) {
		case 'v': bench.vitrail = optarg; break;
		case 'p': bench.probe = optarg; break;
		case 'd': bench.driver = optarg; break;
		case 'o': bench.out = optarg; break;
		case 'r': bench.reps = atoi(optarg); break;
		case 's': bench.seconds = strtod(optarg, NULL); break;
		case 'R': bench.rate = strtod(optarg, NULL); break;
		case 'S': bench.speed = strtod(optarg, NULL); break;
		case 'n': bench.nested_reps = atoi(optarg); break;
		case 'w': bench.sweep = false; break;
		case 'h': usage(stdout); return EXIT_SUCCESS;
		default: usage(stderr); return 2;
		}
	}
	if (bench.nested_reps < 0) {
		bench.nested_reps = bench.reps;
	}
	if (bench.vitrail == NULL || bench.probe == NULL || bench.driver == NULL ||
			bench.out == NULL || bench.reps < 1 || bench.reps > 50 ||
			bench.nested_reps > 50 || !(bench.seconds >= 0.5) ||
			bench.seconds > 60 || !(bench.rate >= 10) || bench.rate > 2000 ||
			!(bench.speed >= bench.rate) || bench.speed > 100000) {
		usage(stderr);
		fprintf(stderr,
				"(--reps 1 to 50, --seconds 0.5 to 60, --rate 10 to "
				"2000, --speed at least --rate: a pixel per event)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	const char *paths[] = { "vsync", "low-latency", "low-latency+tearing" };
	for (int p = 0; p < 3; p++) {
		add_config(&bench, false, 60, 2, 0, paths[p]);
	}
	for (int p = 0; p < 3; p++) {
		add_config(&bench, false, 120, 2, 0, paths[p]);
	}
	if (bench.nested_reps > 0) {
		for (int p = 0; p < 3; p++) {
			add_config(&bench, true, 60, 2, 0, paths[p]);
		}
	}
	if (bench.sweep) {
		const double costs[] = { 0.4, 0.8 };
		for (int k = 0; k < 2; k++) {
			for (int p = 0; p < 2; p++) {
				add_config(&bench, false, 60, 0, costs[k], paths[p]);
			}
		}
	}

	bench.runs_dir = bench_asprintf("%s/latency", bench.out);
	mkdir(bench.out, 0755);
	mkdir(bench.runs_dir, 0755);
	char runtime_template[] = "/tmp/vitrail-bench-XXXXXX";
	if (mkdtemp(runtime_template) == NULL) {
		perror("bench-latency: mkdtemp");
		return EXIT_FAILURE;
	}
	bench.runtime_dir = runtime_template;
	bench.config_dir = bench_asprintf("%s/config", bench.runtime_dir);
	mkdir(bench.config_dir, 0700);
	bench.env = (struct bench_env){ bench.runtime_dir, bench.config_dir,
		bench.vitrail };
	printf("bench-latency: %s, %d configurations, %d repetitions (nested "
		   "%d)\n",
			bench.vitrail, bench.nconfigs, bench.reps, bench.nested_reps);

	char *runs_path = bench_asprintf("%s/latency-runs.csv", bench.out);
	bench.runs_csv = fopen(runs_path, "w");
	if (bench.runs_csv == NULL) {
		fprintf(stderr, "bench-latency: cannot write %s\n", runs_path);
		return EXIT_FAILURE;
	}
	fprintf(bench.runs_csv,
			"run,rep,backend,refresh_hz,render_ms,path,"
			"tearing,ok,unsupported,events,join_errors,events_measured,"
			"latency_median_ms,latency_p95_ms,vitrail_median_ms,frames,"
			"discarded,max_consecutive_discarded,ft_discarded,"
			"ft_max_consecutive_discarded,motion_s\n");

	int64_t started = bench_now_ms();
	int most_reps =
			bench.reps > bench.nested_reps ? bench.reps : bench.nested_reps;
	for (int rep = 0; rep < most_reps; rep++) {
		for (int k = 0; k < bench.nconfigs; k++) {
			int i = rep % 2 == 0 ? k : bench.nconfigs - 1 - k;
			struct config *c = &bench.configs[i];
			int reps = c->nested ? bench.nested_reps : bench.reps;
			if (c->unsupported || rep >= reps) {
				continue;
			}
			run_config(&bench, c, rep);
		}
	}
	fclose(bench.runs_csv);
	printf("%d runs in %.0f s; wrote %s\n", bench.nruns,
			(double)(bench_now_ms() - started) / 1e3, runs_path);

	write_reports(&bench);
	write_plot(&bench);
	print_summary(&bench);

	remove_runtime_dir(&bench);
	for (int i = 0; i < bench.nconfigs; i++) {
		bench_values_finish(&bench.configs[i].latency_ms);
		bench_values_finish(&bench.configs[i].vitrail_ms);
	}
	free(runs_path);
	free(bench.config_dir);
	free(bench.runs_dir);
	return bench.failed > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
