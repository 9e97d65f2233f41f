/*
 * bench-efficiency: what vitrail costs per client frame against weston, and
 * whether rendering ever holds its main thread.
 *
 *   meson test -C build --benchmark --suite efficiency --verbose
 *
 * 1. CPU per client frame. One client (vitrail-latency-probe: a frame at
 *    every frame callback, full damage, a new solid colour each time) with
 *    a window of 90% of the output, on a headless output of 1280x720,
 *    1920x1080 and 3840x2160 at 60 Hz, in vitrail (desktop, the engine of
 *    --engine) and in weston (its headless backend drawing with pixman,
 *    the desktop shell). The compositor's CPU time over the probe's run
 *    (every thread's schedstat: the CPU engine's and lavapipe's threads
 *    count) divided by the frames the probe saw presented. Runs
 *    interleaved: every repetition runs every size in vitrail then weston,
 *    the order reversed every other one; the figure is the median of the
 *    per-repetition ratios (vitrail / weston), each pair measured back to
 *    back.
 * 2. The main thread during a heavy animation: vitrail at 2560x1440 with
 *    the probe at 90% of it and vitrail-scene-chat animating, for 4 s:
 *    the longest main-thread time of one frame (the frame log's
 *    main_thread_us, the render call and the commit) and the 99th
 *    percentile of a client's wl_display.sync round trip (one every 4 ms,
 *    from this process): what a client waits while vitrail renders.
 *
 * 3. Client dmabufs sampled in place against copied: the probe with
 *    --dmabuf (LINEAR XRGB8888 memfds, vitrail announcing /dev/null) at
 *    1920x1080 and 3840x2160, vitrail's CPU per client frame as in 1,
 *    once as it runs (the Vulkan engine samples them in place where the
 *    driver imports dma-bufs) and once with VITRAIL_NO_DMABUF_IMPORT=1
 *    (copied at commit, then uploaded), interleaved the same way. The
 *    Vulkan driver for this part is Mesa 25's lavapipe (tests/mesa25.h),
 *    the one here that imports dma-bufs; n/a without it. On the CPU
 *    engine both runs copy (its ratio says what the variable costs:
 *    nothing). The vitrail's --stats tell whether anything was imported.
 *
 * 4. Direct scan-out against composition: the probe with --dmabuf in
 *    vitrail's kiosk mode, so its window is fullscreen, with a buffer of
 *    the output's size (1920x1080 and 3840x2160): vitrail's CPU per
 *    client frame as in 1, once as it runs (each frame shows the client's
 *    buffer as it is) and once with VITRAIL_NO_SCANOUT=1 (composed),
 *    interleaved the same way; the Vulkan engine on Mesa 25's lavapipe
 *    where it is here (else the system's). The scan-out runs' --stats
 *    count the frames scanned out. Either way the CPU engine copies each
 *    buffer at commit (it may have to compose the next frame).
 *
 * 5. Output buffers on the device against host memory: the probe with
 *    --dmabuf at 90% of the output as in 3, vitrail's CPU per client frame
 *    once with VITRAIL_OUTPUT_DMABUF=memfd (the Vulkan engine imports each
 *    output buffer as a dma-buf and copies the frame into it) and once
 *    with VITRAIL_OUTPUT_DMABUF=0 (host memory imported through
 *    VK_EXT_external_memory_host), interleaved the same way, on Mesa 25's
 *    lavapipe (n/a without it). On lavapipe both are host memory: the
 *    figure says what the path costs, not what a GPU saves (no bus to
 *    cross here). On the CPU engine both runs are host buffers (it imports
 *    no dma-bufs). The --stats count the frames presented from dma-bufs.
 *
 * Ends with
 *   summary: ratio_720=<vitrail/weston> ratio_1080=.. ratio_2160=..
 *            vitrail_ms_720=.. weston_ms_720=.. (and 1080, 2160)
 *            main_thread_max_ms=.. roundtrip_p99_ms=..
 *            dmabuf_ratio_1080=<in place/copied> dmabuf_ratio_2160=..
 *            dmabuf_ms_1080=.. dmabuf_copy_ms_1080=.. (and 2160)
 *            dmabuf_imported=<buffers imported in the in-place runs>
 *            scanout_ratio_1080=<scanned out/composed> scanout_ratio_2160=..
 *            scanout_ms_1080=.. composed_ms_1080=.. (and 2160)
 *            scanout_frames=<frames scanned out in the scan-out runs>
 *            outbuf_ratio_1080=<on the device/host memory> outbuf_ratio_2160=..
 *            outbuf_ms_1080=.. outbuf_host_ms_1080=.. (and 2160)
 *            outbuf_frames=<frames presented from output dma-bufs>
 * Like the other pacing benchmarks it runs for both engines
 * (bench_engines_main) and merges the two summaries. Without weston
 * (package weston) the ratios are n/a.
 *
 * Options: --vitrail PATH --probe PATH --chat PATH --out DIR (required),
 * --weston PATH (default: weston in PATH), --reps N (default 3), --frames N
 * (probe frames per run, default 240).
 */
#define _GNU_SOURCE // asprintf
#include <errno.h>
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
#include <wayland-client.h>
#include "bench_util.h"
#include "mesa25.h"

#define NSIZES 3

struct size_result {
	int width, height;
	struct bench_values vitrail_ms, weston_ms, ratio;
};

#define NDMABUF 2 /* the last two sizes */

struct dmabuf_result {
	struct bench_values in_place_ms, copy_ms, ratio;
};

struct bench {
	const char *vitrail, *probe, *chat, *weston, *out;
	char *icd; /* Mesa 25's lavapipe (part 3), NULL: none here */
	struct dmabuf_result dmabuf[NDMABUF];
	/* part 4: in_place_ms is scanned out, copy_ms composed */
	struct dmabuf_result scanout[NDMABUF];
	long scanned; /* frames scanned out, -1: unknown */
	/* part 5: in_place_ms on the device, copy_ms host memory */
	struct dmabuf_result outbuf[NDMABUF];
	long outbuf_frames; /* presented from output dma-bufs, -1: n/a */
	long imported; /* by the in-place runs, -1: unknown */
	int reps, frames;
	struct bench_env env;
	char *runs_dir;
	int nruns;
	struct size_result sizes[NSIZES];
};

static char *which(const char *program) {
	const char *path = getenv("PATH");
	char *copy = strdup(path != NULL ? path : "/usr/bin:/bin");
	char *found = NULL;
	for (char *dir = strtok(copy, ":"); dir != NULL && found == NULL;
			dir = strtok(NULL, ":")) {
		char *file = bench_asprintf("%s/%s", dir, program);
		if (access(file, X_OK) == 0) {
			found = file;
		} else {
			free(file);
		}
	}
	free(copy);
	return found;
}

/* The probe's presented frames, from its "latency: frames=N" line. */
static long probe_frames(const char *log_path) {
	char *text = csv_read_file(log_path);
	if (text == NULL) {
		return -1;
	}
	const char *p = strstr(text, "latency: frames=");
	long n = p != NULL ? strtol(p + strlen("latency: frames="), NULL, 10) : -1;
	free(text);
	return n;
}

/* Wait for the probe to exit by itself (at most timeout_ms): bench_stop
 * would TERM it at once. */
static bool wait_exit(pid_t pid, int timeout_ms) {
	int status;
	for (int waited = 0; waited < timeout_ms; waited += 20) {
		if (bench_reaped(pid, &status)) {
			return WIFEXITED(status);
		}
		bench_sleep_ms(20);
	}
	bench_stop(pid, 2000);
	return false;
}

/* Run the probe with a window of w x h against the compositor pid on
 * socket until it exits; the compositor's CPU ms per presented frame, NAN
 * on failure. */
static double run_probe_to_end(struct bench *bench, pid_t compositor,
		const char *socket, int w, int h, const char *base, bool dmabuf) {
	char size[32], frames[16];
	snprintf(size, sizeof(size), "%dx%d", w, h);
	snprintf(frames, sizeof(frames), "%d", bench->frames);
	char *log = bench_asprintf("%s-probe.log", base);
	const char *argv[] = { bench->probe, "--frames", frames, "--skip", "0",
		"--size", size, "--timeout", "60", "--app-id", "efficiency",
		dmabuf ? "--dmabuf" : NULL, NULL };
	uint64_t cpu0 = bench_process_cpu_ns(compositor);
	pid_t pid = bench_spawn(&bench->env, argv, socket, log, -1);
	bool exited = pid > 0 && wait_exit(pid, 90000);
	uint64_t cpu1 = bench_process_cpu_ns(compositor);
	long n = probe_frames(log);
	free(log);
	if (!exited || n <= 0 || cpu1 <= cpu0) {
		fprintf(stderr,
				"bench-efficiency: %s: the probe failed or "
				"presented no frame\n",
				base);
		return NAN;
	}
	return (double)(cpu1 - cpu0) / 1e6 / (double)n;
}

static double run_vitrail(struct bench *bench, struct size_result *s,
		const char *base) {
	char size[32];
	snprintf(size, sizeof(size), "%dx%d", s->width, s->height);
	char *log = bench_asprintf("%s-vitrail.log", base);
	struct bench_vitrail parent, vitrail;
	const char *extra[] = { NULL };
	if (!bench_vitrail_start_setup(&bench->env, false, 60, size, extra, log,
				NULL, 30000, &parent, &vitrail)) {
		free(log);
		return NAN;
	}
	free(log);
	double ms = run_probe_to_end(bench, vitrail.pid, vitrail.socket,
			s->width * 9 / 10, s->height * 9 / 10, base, false);
	bench_vitrail_stop(&vitrail);
	return ms;
}

/* The number after key in a vitrail --stats file (its first line with
 * key: after it, or anywhere), 0 without such a line, -1 without the
 * file. */
static long stats_value(const char *path, const char *line, const char *key) {
	char *text = csv_read_file(path);
	if (text == NULL) {
		return -1;
	}
	const char *p = line != NULL ? strstr(text, line) : text;
	p = p != NULL ? strstr(p, key) : NULL;
	long n = p != NULL ? strtol(p + strlen(key), NULL, 10) : 0;
	free(text);
	return n;
}

/* An A/B part: the dmabuf probe in vitrail, on (with on_env, or as
 * vitrail runs) or off (with off_env), the Vulkan engine on Mesa 25's
 * lavapipe where it is here. */
struct ab_part {
	const char *name; /* of the runs' files, and the printed lines */
	const char *on, *off; /* what each run does, in words */
	/* "NAME=value" for vitrail's environment; on_env may be NULL */
	const char *on_env, *off_env;
	bool kiosk; /* fullscreen at the output's size; else 90% of it */
	/* what the on runs' --stats count: the number after key on the
	 * first line with line (NULL: any) */
	const char *stats_line, *stats_key, *counted;
	struct dmabuf_result *results; /* NDMABUF of them */
	long *total; /* the on runs' counts */
};

static double run_ab(struct bench *bench, const struct ab_part *part,
		struct size_result *s, const char *base, bool on, long *count) {
	char size[32];
	snprintf(size, sizeof(size), "%dx%d", s->width, s->height);
	char *log = bench_asprintf("%s-vitrail.log", base);
	char *stats = bench_asprintf("%s-stats.txt", base);
	const char *extra[] = { "--stats", stats, part->kiosk ? "--mode" : NULL,
		"kiosk", NULL };
	/* the environment vitrail inherits (bench_spawn) */
	if (bench->icd != NULL) {
		setenv("VK_ICD_FILENAMES", bench->icd, 1);
	}
	setenv("VITRAIL_DMABUF_DEVICE", "/dev/null", 1);
	const char *assign = on ? part->on_env : part->off_env;
	char name[64] = "";
	if (assign != NULL) {
		size_t len = strcspn(assign, "=");
		snprintf(name, sizeof(name), "%.*s", (int)len, assign);
		setenv(name, assign + len + 1, 1);
	}
	struct bench_vitrail parent, vitrail;
	bool started = bench_vitrail_start_setup(&bench->env, false, 60, size,
			extra, log, NULL, 30000, &parent, &vitrail);
	unsetenv("VK_ICD_FILENAMES");
	unsetenv("VITRAIL_DMABUF_DEVICE");
	if (name[0] != '\0') {
		unsetenv(name);
	}
	double ms = NAN;
	if (started) {
		int w = part->kiosk ? s->width : s->width * 9 / 10;
		int h = part->kiosk ? s->height : s->height * 9 / 10;
		ms = run_probe_to_end(bench, vitrail.pid, vitrail.socket, w, h, base,
				true);
		bench_vitrail_stop(&vitrail);
		*count = stats_value(stats, part->stats_line, part->stats_key);
	}
	free(stats);
	free(log);
	return ms;
}

/* Every repetition runs each of the last NDMABUF sizes on then off, the
 * order reversed every other one. */
static void run_ab_part(struct bench *bench, const struct ab_part *part) {
	*part->total = 0;
	for (int rep = 0; rep < bench->reps; rep++) {
		for (int i = 0; i < NDMABUF; i++) {
			struct size_result *s = &bench->sizes[NSIZES - NDMABUF + i];
			struct dmabuf_result *d = &part->results[i];
			char *base = bench_asprintf("%s/%s-rep%d-%d", bench->runs_dir,
					part->name, rep, s->height);
			char *base_off = bench_asprintf("%s-off", base);
			long count = 0, count_off = 0;
			double on, off;
			if (rep % 2 == 0) {
				on = run_ab(bench, part, s, base, true, &count);
				off = run_ab(bench, part, s, base_off, false, &count_off);
			} else {
				off = run_ab(bench, part, s, base_off, false, &count_off);
				on = run_ab(bench, part, s, base, true, &count);
			}
			printf("%s rep %d %dx%d: %s %s ms (%ld %s), %s %s ms (%ld %s) "
				   "per client frame\n",
					part->name, rep, s->width, s->height, part->on,
					bench_fmt(on, 3), count, part->counted, part->off,
					bench_fmt(off, 3), count_off, part->counted);
			*part->total += count > 0 ? count : 0;
			if (!isnan(on)) {
				bench_values_add(&d->in_place_ms, on);
			}
			if (!isnan(off)) {
				bench_values_add(&d->copy_ms, off);
			}
			if (!isnan(on) && !isnan(off) && off > 0) {
				bench_values_add(&d->ratio, on / off);
			}
			free(base_off);
			free(base);
		}
	}
}

/* Part 3: client dmabufs sampled in place or copied, on Mesa 25's
 * lavapipe (n/a without it); part 4: a fullscreen one scanned out or
 * composed; part 5: output buffers on the device or in host memory (n/a
 * without Mesa 25). */
static void dmabuf_parts(struct bench *bench) {
	bench->imported = -1;
	bench->outbuf_frames = -1;
	char lavapipe[PATH_MAX];
	if (mesa25_lavapipe(lavapipe)) {
		bench->icd =
				bench_asprintf("%s/lvp25_icd.json", bench->env.runtime_dir);
		FILE *f = fopen(bench->icd, "w");
		if (f != NULL) {
			mesa25_write_icd(f, lavapipe);
			fclose(f);
		} else {
			perror("bench-efficiency: the ICD manifest");
			free(bench->icd);
			bench->icd = NULL;
		}
	}
	if (bench->icd != NULL) {
		run_ab_part(bench,
				&(struct ab_part){ .name = "dmabuf",
						.on = "in place",
						.off = "copied",
						.off_env = "VITRAIL_NO_DMABUF_IMPORT=1",
						.stats_line = "client_dmabufs ",
						.stats_key = "imported=",
						.counted = "imported",
						.results = bench->dmabuf,
						.total = &bench->imported });
		run_ab_part(bench,
				&(struct ab_part){ .name = "outbuf",
						.on = "on the device",
						.off = "host memory",
						.on_env = "VITRAIL_OUTPUT_DMABUF=memfd",
						.off_env = "VITRAIL_OUTPUT_DMABUF=0",
						.stats_key = " dmabuf=",
						.counted = "from dma-bufs",
						.results = bench->outbuf,
						.total = &bench->outbuf_frames });
	} else {
		printf("dmabufs, output buffers: no Mesa 25 lavapipe "
			   "(tests/mesa25.h): n/a\n");
	}
	run_ab_part(bench,
			&(struct ab_part){ .name = "scanout",
					.on = "scanned out",
					.off = "composed",
					.off_env = "VITRAIL_NO_SCANOUT=1",
					.kiosk = true,
					.stats_key = " scanout=",
					.counted = "scanned out",
					.results = bench->scanout,
					.total = &bench->scanned });
}

/* An A/B part's table: per size, the medians of on, off and on/off. */
static void print_ab(FILE *f, const struct bench *bench,
		struct dmabuf_result *results, const char *on, const char *off) {
	fprintf(f, "%-10s %10s %10s %10s\n", "output", on, off, "ratio");
	for (int i = 0; i < NDMABUF; i++) {
		const struct size_result *s = &bench->sizes[NSIZES - NDMABUF + i];
		fprintf(f, "%4dx%-5d %10s %10s %10s\n", s->width, s->height,
				bench_fmt(bench_values_median(&results[i].in_place_ms), 3),
				bench_fmt(bench_values_median(&results[i].copy_ms), 3),
				bench_fmt(bench_values_median(&results[i].ratio), 2));
	}
}

/* An A/B part's summary keys: <ratio>_<size>, <on>_<size> and
 * <off>_<size> per size, then <counted>=<count> (n/a below 0). */
static void print_ab_summary(struct dmabuf_result *results, const char *ratio,
		const char *on, const char *off, const char *counted, long count) {
	static const char *const names[NDMABUF] = { "1080", "2160" };
	for (int i = 0; i < NDMABUF; i++) {
		printf(" %s_%s=%s", ratio, names[i],
				bench_fmt(bench_values_median(&results[i].ratio), 2));
	}
	for (int i = 0; i < NDMABUF; i++) {
		printf(" %s_%s=%s %s_%s=%s", on, names[i],
				bench_fmt(bench_values_median(&results[i].in_place_ms), 3), off,
				names[i],
				bench_fmt(bench_values_median(&results[i].copy_ms), 3));
	}
	if (count >= 0) {
		printf(" %s=%ld", counted, count);
	} else {
		printf(" %s=n/a", counted);
	}
}

static double run_weston(struct bench *bench, struct size_result *s,
		const char *base) {
	if (bench->weston == NULL) {
		return NAN;
	}
	char width[32], height[32], socket[64];
	snprintf(width, sizeof(width), "--width=%d", s->width);
	snprintf(height, sizeof(height), "--height=%d", s->height);
	snprintf(socket, sizeof(socket), "weston-bench-%d-%d", (int)getpid(),
			++bench->nruns);
	char *socket_arg = bench_asprintf("--socket=%s", socket);
	char *log = bench_asprintf("%s-weston.log", base);
	const char *argv[] = { bench->weston, "--backend=headless-backend.so",
		"--use-pixman", width, height, socket_arg, "--idle-time=0", NULL };
	pid_t pid = bench_spawn(&bench->env, argv, NULL, log, -1);
	char *path = bench_asprintf("%s/%s", bench->env.runtime_dir, socket);
	bool ready = false;
	for (int i = 0; i < 500 && pid > 0 && !ready; i++) {
		struct stat st;
		ready = stat(path, &st) == 0;
		bench_sleep_ms(20);
	}
	double ms = NAN;
	if (ready) {
		/* the desktop shell's background and panel first */
		bench_sleep_ms(1000);
		ms = run_probe_to_end(bench, pid, socket, s->width * 9 / 10,
				s->height * 9 / 10, base, false);
	} else {
		fprintf(stderr, "bench-efficiency: weston did not start (see %s)\n",
				log);
	}
	if (pid > 0) {
		bench_stop(pid, 5000);
	}
	free(path);
	free(log);
	free(socket_arg);
	return ms;
}

/* ---- the main thread during a heavy animation ---------------------------- */

static void heavy_animation(struct bench *bench, double *main_max_ms,
		double *rtt_p99_ms) {
	*main_max_ms = NAN;
	*rtt_p99_ms = NAN;
	char *base = bench_asprintf("%s/heavy", bench->runs_dir);
	char *log = bench_asprintf("%s-vitrail.log", base);
	char *frame_log = bench_asprintf("%s-frames.csv", base);
	unlink(frame_log);
	struct bench_vitrail parent, vitrail;
	const char *extra[] = { "--frame-log", frame_log, NULL };
	if (!bench_vitrail_start_setup(&bench->env, false, 60, "2560x1440", extra,
				log, NULL, 30000, &parent, &vitrail)) {
		goto out;
	}
	char *chat_log = bench_asprintf("%s-chat.log", base);
	const char *chat_argv[] = { bench->chat, "--animate-after", "0", "--app-id",
		"chat", NULL };
	pid_t chat =
			bench_spawn(&bench->env, chat_argv, vitrail.socket, chat_log, -1);
	char *probe_log = bench_asprintf("%s-probe.log", base);
	const char *probe_argv[] = { bench->probe, "--frames", "100000", "--size",
		"2304x1296", "--timeout", "30", "--app-id", "heavy", NULL };
	pid_t probe =
			bench_spawn(&bench->env, probe_argv, vitrail.socket, probe_log, -1);
	bench_sleep_ms(1000);

	/* a client's round trips, one every 4 ms for 3 s */
	struct bench_values rtt = { 0 };
	setenv("XDG_RUNTIME_DIR", bench->env.runtime_dir, 1);
	struct wl_display *display = wl_display_connect(vitrail.socket);
	if (display != NULL) {
		int64_t end = bench_now_ms() + 3000;
		while (bench_now_ms() < end) {
			struct timespec a, b;
			clock_gettime(CLOCK_MONOTONIC, &a);
			if (wl_display_roundtrip(display) < 0) {
				break;
			}
			clock_gettime(CLOCK_MONOTONIC, &b);
			bench_values_add(&rtt,
					(double)(b.tv_sec - a.tv_sec) * 1e3 +
							(double)(b.tv_nsec - a.tv_nsec) / 1e6);
			bench_sleep_ms(4);
		}
		wl_display_disconnect(display);
	}
	bench_stop(probe, 2000);
	bench_stop(chat, 2000);
	bench_vitrail_stop(&vitrail);
	if (rtt.len > 0) {
		*rtt_p99_ms = bench_values_rank(&rtt, 99);
	}
	bench_values_finish(&rtt);

	struct csv csv;
	if (csv_open(&csv, frame_log)) {
		int col = csv_column(&csv, "main_thread_us");
		double most = 0;
		int rows = 0;
		while (csv_next(&csv)) {
			double us = csv_number(&csv, col);
			if (!isnan(us)) {
				most = us > most ? us : most;
				rows++;
			}
		}
		csv_close(&csv);
		/* the first frames (pipelines, first uploads) are left in: a
		 * stall is a stall */
		if (rows > 0) {
			*main_max_ms = most / 1e3;
		}
		printf("heavy animation: %d frames, longest main-thread frame "
			   "%.2f ms, round trip p99 %.2f ms\n",
				rows, *main_max_ms, *rtt_p99_ms);
	}
	free(chat_log);
	free(probe_log);
out:
	free(base);
	free(log);
	free(frame_log);
}

/* ---- main -----------------------------------------------------------------
 */

static void usage(FILE *f) {
	fprintf(f,
			"Usage: bench-efficiency --vitrail PATH --probe PATH --chat "
			"PATH --out DIR [--weston PATH] [--reps N] [--frames N]\n");
}

int main(int argc, char *argv[]) {
	int engines_rc = bench_engines_main(&argc, argv);
	if (engines_rc >= 0) {
		return engines_rc;
	}
	struct bench bench = { .reps = 3, .frames = 240 };
	static const struct option long_options[] = {
		{ "vitrail", required_argument, NULL, 'v' },
		{ "probe", required_argument, NULL, 'p' },
		{ "chat", required_argument, NULL, 'c' },
		{ "weston", required_argument, NULL, 'w' },
		{ "out", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'r' },
		{ "frames", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		switch (opt) {
		case 'v': bench.vitrail = optarg; break;
		case 'p': bench.probe = optarg; break;
		case 'c': bench.chat = optarg; break;
		case 'w': bench.weston = optarg; break;
		case 'o': bench.out = optarg; break;
		case 'r': bench.reps = atoi(optarg); break;
		case 'f': bench.frames = atoi(optarg); break;
		case 'h': usage(stdout); return EXIT_SUCCESS;
		default: usage(stderr); return 2;
		}
	}
	if (bench.vitrail == NULL || bench.probe == NULL || bench.chat == NULL ||
			bench.out == NULL || bench.reps < 1 || bench.frames < 30) {
		usage(stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	char *weston = bench.weston == NULL ? which("weston") : NULL;
	if (bench.weston == NULL) {
		bench.weston = weston;
	}
	mkdir(bench.out, 0755);
	bench.runs_dir = bench_asprintf("%s/efficiency", bench.out);
	mkdir(bench.runs_dir, 0755);
	char runtime_template[] = "/tmp/vitrail-efficiency-XXXXXX";
	if (mkdtemp(runtime_template) == NULL) {
		perror("bench-efficiency: mkdtemp");
		return EXIT_FAILURE;
	}
	char *config_dir = bench_asprintf("%s/config", runtime_template);
	mkdir(config_dir, 0700);
	bench.env = (struct bench_env){
		.runtime_dir = runtime_template,
		.config_dir = config_dir,
		.vitrail = bench.vitrail,
	};
	static const int sizes[NSIZES][2] = {
		{ 1280, 720 },
		{ 1920, 1080 },
		{ 3840, 2160 },
	};
	for (int i = 0; i < NSIZES; i++) {
		bench.sizes[i] = (struct size_result){ .width = sizes[i][0],
			.height = sizes[i][1] };
	}
	printf("bench-efficiency: %s (engine %s) against %s, %d repetitions of "
		   "%d frames\n",
			bench.vitrail, bench_engine != NULL ? bench_engine : "auto",
			bench.weston != NULL ? bench.weston : "no weston (n/a)", bench.reps,
			bench.frames);
	for (int rep = 0; rep < bench.reps; rep++) {
		for (int i = 0; i < NSIZES; i++) {
			struct size_result *s = &bench.sizes[i];
			char *base = bench_asprintf("%s/rep%d-%d", bench.runs_dir, rep,
					s->height);
			double v, w;
			if (rep % 2 == 0) {
				v = run_vitrail(&bench, s, base);
				w = run_weston(&bench, s, base);
			} else {
				w = run_weston(&bench, s, base);
				v = run_vitrail(&bench, s, base);
			}
			printf("rep %d %dx%d: vitrail %s ms, weston %s ms per client "
				   "frame\n",
					rep, s->width, s->height, bench_fmt(v, 3), bench_fmt(w, 3));
			if (!isnan(v)) {
				bench_values_add(&s->vitrail_ms, v);
			}
			if (!isnan(w)) {
				bench_values_add(&s->weston_ms, w);
			}
			if (!isnan(v) && !isnan(w) && w > 0) {
				bench_values_add(&s->ratio, v / w);
			}
			free(base);
		}
	}
	double main_max = NAN, rtt_p99 = NAN;
	heavy_animation(&bench, &main_max, &rtt_p99);
	dmabuf_parts(&bench);

	char *txt_path = bench_asprintf("%s/efficiency.txt", bench.out);
	FILE *txt = fopen(txt_path, "w");
	FILE *outs[] = { stdout, txt };
	for (int o = 0; o < 2; o++) {
		if (outs[o] == NULL) {
			continue;
		}
		fprintf(outs[o],
				"\ncompositor CPU per client frame (ms, median of "
				"%d), window 90%% of the output, full damage\n",
				bench.reps);
		fprintf(outs[o], "%-10s %10s %10s %10s\n", "output", "vitrail",
				"weston", "ratio");
		for (int i = 0; i < NSIZES; i++) {
			struct size_result *s = &bench.sizes[i];
			fprintf(outs[o], "%4dx%-5d %10s %10s %10s\n", s->width, s->height,
					bench_fmt(bench_values_median(&s->vitrail_ms), 3),
					bench_fmt(bench_values_median(&s->weston_ms), 3),
					bench_fmt(bench_values_median(&s->ratio), 2));
		}
	}
	static const char *const names[NSIZES] = { "720", "1080", "2160" };
	for (int o = 0; o < 2; o++) {
		if (outs[o] == NULL) {
			continue;
		}
		if (bench.icd != NULL) {
			fprintf(outs[o],
					"\nclient dmabufs, vitrail CPU per client frame (ms, "
					"median of %d; Mesa 25's lavapipe; %ld imported)\n",
					bench.reps, bench.imported);
			print_ab(outs[o], &bench, bench.dmabuf, "in place", "copied");
		}
		fprintf(outs[o],
				"\nfullscreen client dmabuf, vitrail CPU per client frame "
				"(ms, median of %d; %ld frames scanned out)\n",
				bench.reps, bench.scanned);
		print_ab(outs[o], &bench, bench.scanout, "scan-out", "composed");
		if (bench.icd != NULL) {
			fprintf(outs[o],
					"\noutput buffers, vitrail CPU per client frame (ms, "
					"median of %d; Mesa 25's lavapipe; %ld frames from "
					"dma-bufs)\n",
					bench.reps, bench.outbuf_frames);
			print_ab(outs[o], &bench, bench.outbuf, "on device", "host");
		}
	}
	if (txt != NULL) {
		fclose(txt);
	}
	printf("summary:");
	for (int i = 0; i < NSIZES; i++) {
		printf(" ratio_%s=%s", names[i],
				bench_fmt(bench_values_median(&bench.sizes[i].ratio), 2));
	}
	for (int i = 0; i < NSIZES; i++) {
		printf(" vitrail_ms_%s=%s weston_ms_%s=%s", names[i],
				bench_fmt(bench_values_median(&bench.sizes[i].vitrail_ms), 3),
				names[i],
				bench_fmt(bench_values_median(&bench.sizes[i].weston_ms), 3));
	}
	printf(" main_thread_max_ms=%s roundtrip_p99_ms=%s", bench_fmt(main_max, 2),
			bench_fmt(rtt_p99, 2));
	print_ab_summary(bench.dmabuf, "dmabuf_ratio", "dmabuf_ms",
			"dmabuf_copy_ms", "dmabuf_imported", bench.imported);
	print_ab_summary(bench.scanout, "scanout_ratio", "scanout_ms",
			"composed_ms", "scanout_frames", bench.scanned);
	print_ab_summary(bench.outbuf, "outbuf_ratio", "outbuf_ms",
			"outbuf_host_ms", "outbuf_frames", bench.outbuf_frames);
	printf("\n");
	for (int i = 0; i < NDMABUF; i++) {
		bench_values_finish(&bench.dmabuf[i].in_place_ms);
		bench_values_finish(&bench.dmabuf[i].copy_ms);
		bench_values_finish(&bench.dmabuf[i].ratio);
		bench_values_finish(&bench.scanout[i].in_place_ms);
		bench_values_finish(&bench.scanout[i].copy_ms);
		bench_values_finish(&bench.scanout[i].ratio);
		bench_values_finish(&bench.outbuf[i].in_place_ms);
		bench_values_finish(&bench.outbuf[i].copy_ms);
		bench_values_finish(&bench.outbuf[i].ratio);
	}
	free(bench.icd);
	for (int i = 0; i < NSIZES; i++) {
		bench_values_finish(&bench.sizes[i].vitrail_ms);
		bench_values_finish(&bench.sizes[i].weston_ms);
		bench_values_finish(&bench.sizes[i].ratio);
	}
	free(txt_path);
	free(weston);
	free(config_dir);
	free(bench.runs_dir);
	return EXIT_SUCCESS;
}
