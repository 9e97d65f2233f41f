/*
 * bench-pacing: frame pacing of vitrail's synchronous and asynchronous
 * frame pipelines, side by side in one run.
 *
 *   meson test -C build --benchmark --suite pacing --verbose
 *
 * Configurations: vitrail headless, one 1280x720 output at 60 Hz and at
 * 120 Hz, each with --frame-pipeline sync and --frame-pipeline async. The
 * runs are interleaved (every repetition runs every configuration once,
 * in alternating order), so that the noise of this shared machine hits
 * all of them alike. Every run starts a fresh vitrail with --exit-after,
 * --frame-log and --stats and two clients:
 *
 *   - vitrail-latency-probe (a frame committed at every frame callback,
 *     wp_presentation feedback): commit-to-present latency in refresh
 *     periods, pooled over the repetitions (median and p95);
 *   - vitrail-scene-chat --animate-after 1500, started cold: the lateness
 *     of its first animated frame.
 *
 * Figures per configuration:
 *   main_thread_ms   median over frames of the frame log's main_thread_us;
 *                    where that column is absent (today's vitrail),
 *                    render_end_ns - render_start_ns (the synchronous
 *                    render, all of it on the main thread)
 *   cpu_copies       median over frames of cpu_copies (n/a when absent)
 *   in_flight_max    largest in_flight (n/a when absent)
 *   latency          the probe's commit-to-present latency, median and
 *                    p95 of all counted frames of all repetitions
 *   first_frame_late_ms
 *                    the first animated frame of the chat client is the
 *                    first frame-log row whose scene_samples is not empty
 *                    (the animation starts at that frame's display time,
 *                    its elapsed time is 0); its lateness is presented_ns -
 *                    target_vblank_ns: how long after the vblank it was
 *                    made for it reached the screen (0 when it made its
 *                    vblank, a multiple of the period when it missed).
 *                    Median over the repetitions. Next to it, that frame's
 *                    render_end_ns - render_start_ns (the cold frame's
 *                    composition time), also a median over repetitions.
 *
 * The frame log is read by column name, so that this works before and
 * after the frame pipeline adds columns. When vitrail rejects
 * --frame-pipeline (before the new pipeline lands), the runs go without
 * it: the baseline line then describes vitrail's only pipeline, which is
 * the synchronous one, and every async figure is n/a.
 *
 * Output: <out>/pacing.csv (one row per configuration), <out>/pacing-runs.csv
 * (one row per run), <out>/pacing.txt (the table), and each run's logs,
 * frame log, statistics and probe CSV in <out>/pacing/. stdout ends with
 *   baseline: commit_to_present_periods=.. main_thread_ms=.. cpu_copies=..
 *             frames_in_flight=.. first_frame_late_ms=..   (sync)
 *   summary: (the same for async)
 * taken at 60 Hz, except frames_in_flight: the most over all runs of the
 * pipeline.
 *
 * Options: --vitrail PATH --probe PATH --chat PATH --out DIR (required),
 * --reps N (default 5), --seconds S (one run's --exit-after, default 3.2).
 * Exit status 1 when a run crashed or hung (it is killed after its
 * --exit-after plus 30 s), 0 otherwise.
 */
#define _GNU_SOURCE // asprintf, nftw
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <math.h>
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
#include "bench_util.h"

#define NCONFIGS 4
#define CHAT_ANIMATE_AFTER_MS 1500
/* A run that outlives its --exit-after by this much is killed. */
#define HANG_GRACE_S 30.0

struct config {
	double hz;
	const char *pipeline; // "sync" or "async"
	/* Pooled over repetitions. */
	struct bench_values latency_periods;
	struct bench_values main_thread_ms;
	struct bench_values cpu_copies;
	struct bench_values first_late_ms; // one per run
	struct bench_values first_render_ms; // one per run
	double in_flight_max; // NAN while no run had the column
	bool main_thread_fallback; // some run had no main_thread_us
	int runs, failed_runs;
	bool skipped; // --frame-pipeline rejected: async is n/a
};

struct bench {
	const char *vitrail, *probe, *chat, *out;
	int reps;
	double seconds;
	char *runs_dir; // <out>/pacing
	char *runtime_dir; // private XDG_RUNTIME_DIR
	char *config_dir; // empty XDG_CONFIG_HOME
	bool have_pipeline_option;
	FILE *runs_csv;
	int nruns;
	struct config configs[NCONFIGS];
};

static double now_s(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- running vitrail ------------------------------------------------------
 */

/* Run argv with stdout and stderr in log_path (NULL: /dev/null) and the
 * bench's private environment; kill it (its process group) after
 * timeout_s. Returns the wait status, or -1 when it had to be killed. */
static int run_process(struct bench *bench, const char *const argv[],
		const char *log_path, double timeout_s) {
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		perror("bench-pacing: fork");
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent) {
			_exit(127);
		}
		FILE *log =
				freopen(log_path != NULL ? log_path : "/dev/null", "w", stdout);
		if (log == NULL || dup2(fileno(stdout), STDERR_FILENO) < 0) {
			_exit(127);
		}
		setenv("XDG_RUNTIME_DIR", bench->runtime_dir, 1);
		setenv("XDG_CONFIG_HOME", bench->config_dir, 1);
		unsetenv("WAYLAND_DISPLAY");
		unsetenv("WAYLAND_SOCKET");
		unsetenv("DISPLAY");
		unsetenv("VITRAIL_FRAME_LOG");
		execv(argv[0], (char *const *)argv);
		fprintf(stderr, "bench-pacing: cannot run %s: %s\n", argv[0],
				strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); // also here: no race with the child's own call
	double deadline = now_s() + timeout_s;
	int status = 0;
	while (true) {
		pid_t got = waitpid(pid, &status, WNOHANG);
		if (got == pid) {
			return status;
		}
		if (got < 0 && errno != EINTR) {
			perror("bench-pacing: waitpid");
			return -1;
		}
		if (now_s() >= deadline) {
			fprintf(stderr,
					"bench-pacing: %s still runs after %.0f s: "
					"killing it\n",
					argv[0], timeout_s);
			kill(pid, SIGTERM);
			for (int i = 0; i < 150 && waitpid(pid, &status, WNOHANG) == 0;
					i++) {
				bench_sleep_ms(20);
			}
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		bench_sleep_ms(20);
	}
}

/* Does vitrail accept `--frame-pipeline value`? (--validate parses the
 * command line, checks the config and exits.) */
static bool vitrail_accepts_pipeline(struct bench *bench, const char *value) {
	const char *argv[] = { bench->vitrail, "--frame-pipeline", value,
		"--validate", NULL };
	char *log = bench_asprintf("%s/validate-%s.log", bench->runs_dir, value);
	int status = run_process(bench, argv, log, 30);
	free(log);
	return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Shell-quote s into a new string. */
static char *shell_quote(const char *s) {
	size_t len = 3;
	for (const char *p = s; *p; p++) {
		len += *p == '\'' ? 4 : 1;
	}
	char *q = malloc(len);
	if (q == NULL) {
		abort();
	}
	char *o = q;
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}

/* What one run measured. */
struct run {
	int status; // vitrail's wait status, -1 when killed
	bool probe_ok; // the probe's CSV was there
	double latency_median, latency_p95; // periods, this run alone
	double main_thread_median_ms;
	double cpu_copies_median;
	double in_flight_max;
	double first_late_ms;
	double first_render_ms;
	size_t frames; // frame-log rows
};

/* The probe's CSV: presented frames' latency in periods. */
static bool read_probe_csv(const char *path, struct bench_values *pooled,
		struct run *run) {
	struct csv csv;
	// The probe renames its CSV into place as it exits, which can be just
	// after vitrail has gone.
	for (int i = 0; i < 100 && access(path, F_OK) != 0; i++) {
		bench_sleep_ms(20);
	}
	if (!csv_open(&csv, path)) {
		return false;
	}
	int latency = csv_column(&csv, "latency_ns");
	int refresh = csv_column(&csv, "refresh_ns");
	int discarded = csv_column(&csv, "discarded");
	struct bench_values mine = { 0 };
	while (csv_next(&csv)) {
		double l = csv_number(&csv, latency);
		double r = csv_number(&csv, refresh);
		if (csv_number(&csv, discarded) == 1 || isnan(l) || !(r > 0)) {
			continue;
		}
		bench_values_add(pooled, l / r);
		bench_values_add(&mine, l / r);
	}
	csv_close(&csv);
	run->latency_median = bench_values_median(&mine);
	run->latency_p95 = bench_values_rank(&mine, 95);
	free(mine.v);
	return true;
}

static void read_frame_log(const char *path, struct config *config,
		struct run *run) {
	struct csv csv;
	if (!csv_open(&csv, path)) {
		fprintf(stderr, "bench-pacing: no frame log %s\n", path);
		return;
	}
	int main_us = csv_column(&csv, "main_thread_us");
	int start = csv_column(&csv, "render_start_ns");
	int end = csv_column(&csv, "render_end_ns");
	int copies = csv_column(&csv, "cpu_copies");
	int in_flight = csv_column(&csv, "in_flight");
	int target = csv_column(&csv, "target_vblank_ns");
	int presented = csv_column(&csv, "presented_ns");
	int samples = csv_column(&csv, "scene_samples");
	if (main_us < 0) {
		config->main_thread_fallback = true;
	}
	struct bench_values main_ms = { 0 }, copies_v = { 0 };
	bool found_animation = false;
	while (csv_next(&csv)) {
		run->frames++;
		double ms = NAN;
		if (main_us >= 0) {
			ms = csv_number(&csv, main_us) / 1e3;
		} else {
			double s = csv_number(&csv, start), e = csv_number(&csv, end);
			if (s > 0 && e >= s) {
				ms = (e - s) / 1e6;
			}
		}
		if (!isnan(ms)) {
			bench_values_add(&main_ms, ms);
			bench_values_add(&config->main_thread_ms, ms);
		}
		double c = csv_number(&csv, copies);
		if (!isnan(c)) {
			bench_values_add(&copies_v, c);
			bench_values_add(&config->cpu_copies, c);
		}
		double f = csv_number(&csv, in_flight);
		if (!isnan(f) &&
				(isnan(run->in_flight_max) || f > run->in_flight_max)) {
			run->in_flight_max = f;
		}
		const char *sample = csv_field(&csv, samples);
		if (!found_animation && sample != NULL && *sample != '\0') {
			found_animation = true;
			double t = csv_number(&csv, target);
			double p = csv_number(&csv, presented);
			if (t > 0 && p > 0) {
				run->first_late_ms = (p - t) / 1e6;
			}
			double s = csv_number(&csv, start), e = csv_number(&csv, end);
			if (s > 0 && e >= s) {
				run->first_render_ms = (e - s) / 1e6;
			}
		}
	}
	csv_close(&csv);
	run->main_thread_median_ms = bench_values_median(&main_ms);
	run->cpu_copies_median = bench_values_median(&copies_v);
	if (!isnan(run->in_flight_max) &&
			(isnan(config->in_flight_max) ||
					run->in_flight_max > config->in_flight_max)) {
		config->in_flight_max = run->in_flight_max;
	}
	if (!isnan(run->first_late_ms)) {
		bench_values_add(&config->first_late_ms, run->first_late_ms);
	}
	if (!isnan(run->first_render_ms)) {
		bench_values_add(&config->first_render_ms, run->first_render_ms);
	}
	free(main_ms.v);
	free(copies_v.v);
}

static bool run_config(struct bench *bench, struct config *config, int rep) {
	int n = ++bench->nruns;
	const char *label =
			bench->have_pipeline_option ? config->pipeline : "default";
	char *base = bench_asprintf("%s/run%02d-%.0fhz-%s", bench->runs_dir, n,
			config->hz, label);
	char *log = bench_asprintf("%s.log", base);
	char *frame_log = bench_asprintf("%s-frames.csv", base);
	char *stats = bench_asprintf("%s-stats.txt", base);
	char *probe_csv = bench_asprintf("%s-probe.csv", base);
	unlink(frame_log);
	unlink(probe_csv);

	// The probe: hz * 2 frames, the first third of a second warm-up; it
	// finishes well before --exit-after.
	int frames = (int)(config->hz * 2);
	int skip = (int)(config->hz / 3);
	char *probe_q = shell_quote(bench->probe);
	char *csv_q = shell_quote(probe_csv);
	char *probe_cmd = bench_asprintf("exec %s --frames %d --skip %d --csv %s "
									 "--timeout %.0f --app-id probe",
			probe_q, frames, skip, csv_q, bench->seconds + 5);
	char *chat_q = shell_quote(bench->chat);
	char *chat_cmd = bench_asprintf("exec %s --animate-after %d --app-id chat",
			chat_q, CHAT_ANIMATE_AFTER_MS);
	char refresh[32], exit_after[32], socket[64];
	snprintf(refresh, sizeof(refresh), "%g", config->hz);
	snprintf(exit_after, sizeof(exit_after), "%g", bench->seconds);
	snprintf(socket, sizeof(socket), "vitrail-bench-%d-%d", (int)getpid(), n);

	const char *argv[32];
	int argc = 0;
	argv[argc++] = bench->vitrail;
	argv[argc++] = "--backend";
	argv[argc++] = "headless";
	argv[argc++] = "--outputs";
	argv[argc++] = "1";
	argv[argc++] = "--output-size";
	argv[argc++] = "1280x720";
	argv[argc++] = "--refresh";
	argv[argc++] = refresh;
	if (bench->have_pipeline_option) {
		argv[argc++] = "--frame-pipeline";
		argv[argc++] = config->pipeline;
	}
	if (bench_engine != NULL) {
		argv[argc++] = "--render-backend";
		argv[argc++] = bench_engine;
	}
	argv[argc++] = "--socket";
	argv[argc++] = socket;
	argv[argc++] = "--exit-after";
	argv[argc++] = exit_after;
	argv[argc++] = "--frame-log";
	argv[argc++] = frame_log;
	argv[argc++] = "--stats";
	argv[argc++] = stats;
	argv[argc++] = "-s";
	argv[argc++] = probe_cmd;
	argv[argc++] = "-s";
	argv[argc++] = chat_cmd;
	argv[argc] = NULL;

	struct run run = {
		.latency_median = NAN,
		.latency_p95 = NAN,
		.main_thread_median_ms = NAN,
		.cpu_copies_median = NAN,
		.in_flight_max = NAN,
		.first_late_ms = NAN,
		.first_render_ms = NAN,
	};
	run.status = run_process(bench, argv, log, bench->seconds + HANG_GRACE_S);
	bool ok = run.status >= 0 && WIFEXITED(run.status) &&
			WEXITSTATUS(run.status) == 0;
	config->runs++;
	if (!ok) {
		config->failed_runs++;
		fprintf(stderr,
				"bench-pacing: run %d (%.0f Hz, %s) failed (%s); "
				"see %s\n",
				n, config->hz, label,
				run.status < 0 ? "hung, killed" :
								 "vitrail exited with an error",
				log);
	}
	run.probe_ok = read_probe_csv(probe_csv, &config->latency_periods, &run);
	if (!run.probe_ok) {
		fprintf(stderr,
				"bench-pacing: run %d: the probe wrote no %s "
				"(see %s)\n",
				n, probe_csv, log);
	}
	read_frame_log(frame_log, config, &run);

	printf("  run %2d  rep %d  %5.0f Hz  %-7s  log rows %4zu  latency %s / %s "
		   "periods  main %s ms  first anim late %s ms (render %s ms)%s\n",
			n, rep + 1, config->hz, label, run.frames,
			bench_fmt(run.latency_median, 3), bench_fmt(run.latency_p95, 3),
			bench_fmt(run.main_thread_median_ms, 3),
			bench_fmt(run.first_late_ms, 2), bench_fmt(run.first_render_ms, 2),
			ok ? "" : "  FAILED");
	fprintf(bench->runs_csv, "%d,%d,%g,%s,%d,%zu,%s,%s,%s,%s,%s,%s,%s\n", n,
			rep + 1, config->hz, label, ok ? 1 : 0, run.frames,
			bench_fmt(run.latency_median, 4), bench_fmt(run.latency_p95, 4),
			bench_fmt(run.main_thread_median_ms, 4),
			bench_fmt(run.cpu_copies_median, 2),
			bench_fmt(run.in_flight_max, 0), bench_fmt(run.first_late_ms, 3),
			bench_fmt(run.first_render_ms, 3));
	fflush(bench->runs_csv);

	free(base);
	free(log);
	free(frame_log);
	free(stats);
	free(probe_csv);
	free(probe_q);
	free(csv_q);
	free(probe_cmd);
	free(chat_q);
	free(chat_cmd);
	return ok;
}

/* ---- report ---------------------------------------------------------------
 */

struct figures {
	double latency_median, latency_p95, main_ms, copies, in_flight, first_late,
			first_render;
};

static struct figures config_figures(struct config *c) {
	if (c->skipped) {
		return (struct figures){ NAN, NAN, NAN, NAN, NAN, NAN, NAN };
	}
	return (struct figures){
		.latency_median = bench_values_median(&c->latency_periods),
		.latency_p95 = bench_values_rank(&c->latency_periods, 95),
		.main_ms = bench_values_median(&c->main_thread_ms),
		.copies = bench_values_median(&c->cpu_copies),
		.in_flight = c->in_flight_max,
		.first_late = bench_values_median(&c->first_late_ms),
		.first_render = bench_values_median(&c->first_render_ms),
	};
}

static void write_reports(struct bench *bench) {
	char *csv_path = bench_asprintf("%s/pacing.csv", bench->out);
	char *txt_path = bench_asprintf("%s/pacing.txt", bench->out);
	FILE *csv = fopen(csv_path, "w");
	FILE *txt = fopen(txt_path, "w");
	if (csv != NULL) {
		fprintf(csv,
				"refresh_hz,pipeline,runs,failed_runs,latency_frames,"
				"latency_median_periods,latency_p95_periods,main_thread_ms,"
				"main_thread_source,cpu_copies,in_flight_max,"
				"first_frame_late_ms,first_frame_render_ms\n");
	}
	FILE *outs[] = { stdout, txt };
	for (int o = 0; o < 2; o++) {
		if (outs[o] == NULL) {
			continue;
		}
		fprintf(outs[o],
				"\nframe pacing, vitrail headless 1280x720, %d "
				"repetitions interleaved, %.1f s per run\n",
				bench->reps, bench->seconds);
		fprintf(outs[o],
				"%-8s %-8s %5s %8s %10s %10s %10s %7s %9s %10s "
				"%10s\n",
				"refresh", "pipeline", "runs", "frames", "lat p50", "lat p95",
				"main ms", "copies", "in flight", "1st anim", "1st anim");
		fprintf(outs[o],
				"%-8s %-8s %5s %8s %10s %10s %10s %7s %9s %10s "
				"%10s\n",
				"", "", "", "(probe)", "(periods)", "(periods)", "per frame",
				"/frame", "max", "late ms", "render ms");
	}
	for (int i = 0; i < NCONFIGS; i++) {
		struct config *c = &bench->configs[i];
		struct figures f = config_figures(c);
		const char *label = c->skipped      ? "async" :
				bench->have_pipeline_option ? c->pipeline :
											  "default";
		const char *source = c->main_thread_fallback ?
				"render_end-render_start" :
				"main_thread_us";
		char hz[16], runs[16], frames[16];
		snprintf(hz, sizeof(hz), "%.0f Hz", c->hz);
		snprintf(runs, sizeof(runs), "%d", c->runs);
		snprintf(frames, sizeof(frames), "%zu", c->latency_periods.len);
		for (int o = 0; o < 2; o++) {
			if (outs[o] == NULL) {
				continue;
			}
			fprintf(outs[o],
					"%-8s %-8s %5s %8s %10s %10s %9s%s %7s %9s "
					"%10s %10s%s\n",
					hz, label, c->skipped ? "-" : runs,
					c->skipped ? "-" : frames, bench_fmt(f.latency_median, 3),
					bench_fmt(f.latency_p95, 3), bench_fmt(f.main_ms, 3),
					c->main_thread_fallback && !c->skipped ? "*" : " ",
					bench_fmt(f.copies, 1), bench_fmt(f.in_flight, 0),
					bench_fmt(f.first_late, 2), bench_fmt(f.first_render, 2),
					c->failed_runs > 0 ? "  (some runs failed)" : "");
		}
		if (csv != NULL) {
			fprintf(csv, "%g,%s,%d,%d,%zu,%s,%s,%s,%s,%s,%s,%s,%s\n", c->hz,
					label, c->skipped ? 0 : c->runs, c->failed_runs,
					c->skipped ? (size_t)0 : c->latency_periods.len,
					bench_fmt(f.latency_median, 4), bench_fmt(f.latency_p95, 4),
					bench_fmt(f.main_ms, 4), c->skipped ? "n/a" : source,
					bench_fmt(f.copies, 2), bench_fmt(f.in_flight, 0),
					bench_fmt(f.first_late, 3), bench_fmt(f.first_render, 3));
		}
	}
	for (int o = 0; o < 2; o++) {
		if (outs[o] == NULL) {
			continue;
		}
		if (bench->configs[0].main_thread_fallback) {
			fprintf(outs[o],
					"* the frame log has no main_thread_us: "
					"render_end_ns - render_start_ns instead\n");
		}
		if (!bench->have_pipeline_option) {
			fprintf(outs[o],
					"vitrail rejects --frame-pipeline: 'default' "
					"is its only (synchronous) pipeline; async is n/a\n");
		}
		fprintf(outs[o],
				"1st anim: the chat client's first animated frame "
				"(median of runs): late = presented_ns - target_vblank_ns, "
				"render = render_end_ns - render_start_ns\n");
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

/* baseline:/summary: figures of one pipeline: 60 Hz, frames in flight the
 * most over both rates. */
static void print_summary_line(struct bench *bench, const char *prefix,
		struct config *at60, struct config *at120) {
	struct figures f = config_figures(at60);
	double in_flight = f.in_flight;
	struct figures g = config_figures(at120);
	if (!isnan(g.in_flight) && (isnan(in_flight) || g.in_flight > in_flight)) {
		in_flight = g.in_flight;
	}
	printf("%s: commit_to_present_periods=%s main_thread_ms=%s cpu_copies=%s "
		   "frames_in_flight=%s first_frame_late_ms=%s\n",
			prefix, bench_fmt(f.latency_median, 3), bench_fmt(f.main_ms, 3),
			bench_fmt(f.copies, 1), bench_fmt(in_flight, 0),
			bench_fmt(f.first_late, 2));
}

/* ---- main -----------------------------------------------------------------
 */

static void usage(FILE *f) {
	fprintf(f,
			"Usage: bench-pacing --vitrail PATH --probe PATH --chat PATH "
			"--out DIR [--reps N] [--seconds S]\n");
}

static int remove_entry(const char *path, const struct stat *st, int type,
		struct FTW *ftw) {
	if (remove(path) < 0) {
		fprintf(stderr, "bench-pacing: cannot remove %s: %s\n", path,
				strerror(errno));
	}
	return 0;
}

/* The private runtime dir: what vitrail left there (sockets, locks) and
 * the empty config dir. */
static void remove_tree(const char *dir) {
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(int argc, char *argv[]) {
	int engines_rc = bench_engines_main(&argc, argv);
	if (engines_rc >= 0) {
		return engines_rc;
	}
	struct bench bench = { .reps = 5, .seconds = 3.2 };
	static const struct option long_options[] = {
		{ "vitrail", required_argument, NULL, 'v' },
		{ "probe", required_argument, NULL, 'p' },
		{ "chat", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		switch (opt) {
		case 'v': bench.vitrail = optarg; break;
		case 'p': bench.probe = optarg; break;
		case 'c': bench.chat = optarg; break;
		case 'o': bench.out = optarg; break;
		case 'r': bench.reps = atoi(optarg); break;
		case 's': bench.seconds = strtod(optarg, NULL); break;
		case 'h': usage(stdout); return EXIT_SUCCESS;
		default: usage(stderr); return 2;
		}
	}
	if (bench.vitrail == NULL || bench.probe == NULL || bench.chat == NULL ||
			bench.out == NULL || bench.reps < 1 || bench.reps > 50 ||
			!(bench.seconds >= 2.5) || bench.seconds > 60) {
		usage(stderr);
		fprintf(stderr,
				"(--reps 1 to 50, --seconds 2.5 to 60: the chat "
				"client animates after %d ms)\n",
				CHAT_ANIMATE_AFTER_MS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	bench.runs_dir = bench_asprintf("%s/pacing", bench.out);
	mkdir(bench.out, 0755);
	mkdir(bench.runs_dir, 0755);
	char runtime_template[] = "/tmp/vitrail-bench-XXXXXX";
	if (mkdtemp(runtime_template) == NULL) {
		perror("bench-pacing: mkdtemp");
		return EXIT_FAILURE;
	}
	bench.runtime_dir = runtime_template;
	bench.config_dir = bench_asprintf("%s/config", bench.runtime_dir);
	mkdir(bench.config_dir, 0700);

	bench.have_pipeline_option = vitrail_accepts_pipeline(&bench, "sync") &&
			vitrail_accepts_pipeline(&bench, "async");
	const double rates[] = { 60, 120 };
	for (int r = 0; r < 2; r++) {
		bench.configs[2 * r] = (struct config){ .hz = rates[r],
			.pipeline = "sync",
			.in_flight_max = NAN };
		bench.configs[2 * r + 1] = (struct config){ .hz = rates[r],
			.pipeline = "async",
			.in_flight_max = NAN,
			.skipped = !bench.have_pipeline_option };
	}
	printf("bench-pacing: %s; %s\n", bench.vitrail,
			bench.have_pipeline_option ? "--frame-pipeline sync|async" :
										 "--frame-pipeline rejected (n/a): "
										 "running its default pipeline");

	char *runs_path = bench_asprintf("%s/pacing-runs.csv", bench.out);
	bench.runs_csv = fopen(runs_path, "w");
	if (bench.runs_csv == NULL) {
		fprintf(stderr, "bench-pacing: cannot write %s\n", runs_path);
		return EXIT_FAILURE;
	}
	fprintf(bench.runs_csv,
			"run,rep,refresh_hz,pipeline,ok,frames,"
			"latency_median_periods,latency_p95_periods,main_thread_ms,"
			"cpu_copies,in_flight_max,first_frame_late_ms,"
			"first_frame_render_ms\n");

	// A B A B ...: every repetition runs every configuration, the order
	// reversed every other repetition.
	bool all_ok = true;
	double started = now_s();
	for (int rep = 0; rep < bench.reps; rep++) {
		for (int k = 0; k < NCONFIGS; k++) {
			int i = rep % 2 == 0 ? k : NCONFIGS - 1 - k;
			struct config *c = &bench.configs[i];
			if (c->skipped) {
				continue;
			}
			all_ok &= run_config(&bench, c, rep);
		}
	}
	fclose(bench.runs_csv);
	printf("%d runs in %.0f s; wrote %s\n", bench.nruns, now_s() - started,
			runs_path);

	write_reports(&bench);
	print_summary_line(&bench, "baseline", &bench.configs[0],
			&bench.configs[2]);
	print_summary_line(&bench, "summary", &bench.configs[1], &bench.configs[3]);

	remove_tree(bench.runtime_dir);
	for (int i = 0; i < NCONFIGS; i++) {
		struct config *c = &bench.configs[i];
		free(c->latency_periods.v);
		free(c->main_thread_ms.v);
		free(c->cpu_copies.v);
		free(c->first_late_ms.v);
		free(c->first_render_ms.v);
	}
	free(runs_path);
	free(bench.config_dir);
	free(bench.runs_dir);
	return all_ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
