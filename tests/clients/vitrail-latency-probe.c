/*
 * vitrail-latency-probe: measures commit-to-present latency.
 *
 * One xdg_toplevel with wl_shm buffers. On every wl_surface.frame callback
 * the probe at once draws the next frame (a solid colour that changes with
 * every frame, after optional busy work of --render-ms), attaches it,
 * damages it, asks for the next frame callback and a wp_presentation
 * feedback, and commits, noting the time of the commit on the
 * presentation clock.
 * When the feedback says `presented`, the frame's latency is the
 * presentation time minus the commit time, in milliseconds and in refresh
 * periods (the feedback's own refresh). Commit times are read from the
 * compositor's presentation clock (wp_presentation.clock_id: vitrail's is
 * CLOCK_MONOTONIC, weston's CLOCK_MONOTONIC_RAW), so both times are on one
 * clock.
 *
 * Frames are numbered from 0 (the first commit after the first configure).
 * The first --skip frames are warm-up: they count towards --frames but are
 * left out of the statistics and the CSV.
 *
 * Options:
 *   --frames N      exit after N frames were presented or discarded
 *                   (default 300), warm-up included
 *   --skip N        warm-up frames left out of the statistics (default 0)
 *   --render-ms X   busy work (spinning the CPU) of X ms before each commit
 *   --csv FILE      one row per counted frame:
 *                   seq,commit_ns,presented_ns,refresh_ns,latency_ns,discarded
 *                   (presented_ns, refresh_ns and latency_ns are 0 for a
 *                   discarded frame); written when the probe exits
 *   --app-id ID     xdg_toplevel app_id (default "vitrail-latency-probe")
 *   --size WxH      window size when the compositor leaves it to us
 *                   (default 256x256)
 *   --timeout SEC   give up after SEC seconds (default 120; 0: never)
 *   --dmabuf        send zwp_linux_dmabuf_v1 buffers (LINEAR XRGB8888
 *                   memfds sealed against shrinking, rows padded to 64
 *                   bytes) instead of wl_shm ones; fails without the
 *                   global
 *
 * On exit it prints one line to stdout:
 *   latency: frames=<n> discarded=<n> median_periods=<x> p95_periods=<x>
 *            median_ms=<x> p95_ms=<x> refresh_ms=<x>
 * (one line; frames counts the presented frames in the statistics, p95 is
 * the nearest-rank 95th percentile, refresh_ms the median of the refresh
 * periods the feedback reported; "n/a" where nothing was presented). Exit
 * status 0, or 1 on a protocol or connection error, a missing global, a
 * presentation clock this process cannot read, or the timeout (the line
 * and the CSV are still written with what was measured).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "probe-client.h"
#include "xdg-shell-client-protocol.h"

/* One committed frame awaiting, or having got, its feedback. */
struct frame_record {
	uint64_t seq;
	uint64_t commit_ns;
	uint64_t presented_ns; // 0 until presented
	uint64_t refresh_ns;
	bool discarded;
	bool done; // presented or discarded
};

struct pending_feedback {
	struct probe *probe;
	struct wp_presentation_feedback *feedback;
	size_t record; // index into probe::records
	struct wl_list link; // probe::feedbacks
};

struct probe {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wp_presentation *presentation;
	struct zwp_linux_dmabuf_v1 *dmabuf; /* bound with --dmabuf */
	bool use_dmabuf;
	uint32_t clock_id;
	bool clock_known;

	struct pc_toplevel window;
	struct wl_callback *frame_callback;
	struct pc_pool pool;
	int32_t width, height; // --size: the window's until a configure

	const char *app_id;
	const char *csv_path;
	long max_frames;
	long skip;
	double render_ms;
	double timeout_s;

	struct frame_record *records; // every committed frame, by seq
	size_t records_len, records_cap;
	struct wl_list feedbacks; // pending_feedback::link, awaiting an answer
	uint64_t next_seq;
	long finished; // feedbacks resolved (presented or discarded)
	long no_buffer; // frame callbacks with every buffer busy

	bool running;
	int exit_status;
};

static void fail(struct probe *probe, const char *message) {
	fprintf(stderr, "vitrail-latency-probe: %s\n", message);
	probe->exit_status = EXIT_FAILURE;
	probe->running = false;
}

/* ---- drawing and committing --------------------------------------------- */

/* A solid colour per frame: consecutive frames always differ. */
static void draw_solid(struct pc_buffer *buffer, uint64_t seq) {
	static const uint32_t colours[] = {
		0x00d04040,
		0x0040d040,
		0x004040d0,
		0x00d0d040,
		0x0040d0d0,
		0x00d040d0,
		0x00808080,
	};
	uint32_t colour = colours[seq % (sizeof(colours) / sizeof(colours[0]))];
	uint32_t *px = buffer->data;
	size_t n = buffer->size / 4; /* padding too: rows may be */
	for (size_t i = 0; i < n; i++) {
		px[i] = colour;
	}
}

static bool record_add(struct probe *probe, uint64_t seq, size_t *index) {
	if (probe->records_len == probe->records_cap) {
		size_t cap = probe->records_cap ? probe->records_cap * 2 : 512;
		struct frame_record *records =
				realloc(probe->records, cap * sizeof(*records));
		if (records == NULL) {
			return false;
		}
		probe->records = records;
		probe->records_cap = cap;
	}
	*index = probe->records_len++;
	probe->records[*index] = (struct frame_record){ .seq = seq };
	return true;
}

static void feedback_finish(struct pending_feedback *pending) {
	struct probe *probe = pending->probe;
	wp_presentation_feedback_destroy(pending->feedback);
	wl_list_remove(&pending->link);
	free(pending);
	probe->finished++;
	if (probe->max_frames > 0 && probe->finished >= probe->max_frames) {
		probe->running = false;
	}
}

static void feedback_handle_sync_output(void *data,
		struct wp_presentation_feedback *feedback, struct wl_output *output) {
	// Which output showed the frame does not change its latency.
}

static void feedback_handle_presented(void *data,
		struct wp_presentation_feedback *feedback, uint32_t tv_sec_hi,
		uint32_t tv_sec_lo, uint32_t tv_nsec, uint32_t refresh, uint32_t seq_hi,
		uint32_t seq_lo, uint32_t flags) {
	struct pending_feedback *pending = data;
	struct frame_record *record = &pending->probe->records[pending->record];
	uint64_t sec = (uint64_t)tv_sec_hi << 32 | tv_sec_lo;
	record->presented_ns = sec * 1000000000u + tv_nsec;
	record->refresh_ns = refresh;
	record->done = true;
	feedback_finish(pending);
}

static void feedback_handle_discarded(void *data,
		struct wp_presentation_feedback *feedback) {
	struct pending_feedback *pending = data;
	struct frame_record *record = &pending->probe->records[pending->record];
	record->discarded = true;
	record->done = true;
	feedback_finish(pending);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_handle_sync_output,
	.presented = feedback_handle_presented,
	.discarded = feedback_handle_discarded,
};

static const struct wl_callback_listener frame_listener;

static void request_frame(struct probe *probe) {
	if (probe->frame_callback != NULL) {
		wl_callback_destroy(probe->frame_callback);
	}
	probe->frame_callback = wl_surface_frame(probe->window.surface);
	wl_callback_add_listener(probe->frame_callback, &frame_listener, probe);
}

/* Draw, attach and commit the next frame with its feedback. */
static void commit_frame(struct probe *probe) {
	struct pc_buffer *buffer = pc_pool_next(&probe->pool, probe->shm,
			probe->window.width, probe->window.height);
	if (buffer == NULL) {
		// Every buffer is still held: try again at the next frame.
		probe->no_buffer++;
		request_frame(probe);
		wl_surface_commit(probe->window.surface);
		wl_display_flush(probe->display);
		return;
	}
	size_t index;
	struct pending_feedback *pending = calloc(1, sizeof(*pending));
	if (pending == NULL || !record_add(probe, probe->next_seq, &index)) {
		free(pending);
		fail(probe, "out of memory");
		return;
	}
	uint64_t seq = probe->next_seq++;
	draw_solid(buffer, seq);
	pc_busy_work(probe->render_ms);

	wl_surface_attach(probe->window.surface, buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(probe->window.surface, 0, 0, buffer->width,
			buffer->height);
	request_frame(probe);
	pending->probe = probe;
	pending->record = index;
	wl_list_insert(&probe->feedbacks, &pending->link);
	pending->feedback = wp_presentation_feedback(probe->presentation,
			probe->window.surface);
	wp_presentation_feedback_add_listener(pending->feedback, &feedback_listener,
			pending);
	struct timespec ts;
	clock_gettime((clockid_t)probe->clock_id, &ts);
	probe->records[index].commit_ns =
			(uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	wl_surface_commit(probe->window.surface);
	// Send it now, not when the main loop comes round.
	wl_display_flush(probe->display);
	buffer->busy = true;
}

static void frame_handle_done(void *data, struct wl_callback *callback,
		uint32_t time) {
	struct probe *probe = data;
	wl_callback_destroy(callback);
	probe->frame_callback = NULL;
	if (!probe->running) {
		return;
	}
	commit_frame(probe);
}

static const struct wl_callback_listener frame_listener = {
	.done = frame_handle_done,
};

/* ---- xdg-shell ---------------------------------------------------------- */

static void window_configured(void *data, bool first, bool resized) {
	struct probe *probe = data;
	if (first) {
		// The first frame; every later one starts at a frame callback.
		commit_frame(probe);
	}
}

/* ---- globals ------------------------------------------------------------ */

static void presentation_handle_clock_id(void *data,
		struct wp_presentation *presentation, uint32_t clk_id) {
	struct probe *probe = data;
	probe->clock_id = clk_id;
	probe->clock_known = true;
}

static const struct wp_presentation_listener presentation_listener = {
	.clock_id = presentation_handle_clock_id,
};

static void registry_handle_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct probe *probe = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		probe->compositor = wl_registry_bind(registry, name,
				&wl_compositor_interface, version < 4 ? version : 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		probe->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		probe->wm_base =
				wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		pc_wm_base_listen(probe->wm_base);
	} else if (strcmp(interface, wp_presentation_interface.name) == 0) {
		probe->presentation =
				wl_registry_bind(registry, name, &wp_presentation_interface, 1);
		wp_presentation_add_listener(probe->presentation,
				&presentation_listener, probe);
	} else if (probe->use_dmabuf &&
			strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 &&
			version >= 3) {
		probe->dmabuf = wl_registry_bind(registry, name,
				&zwp_linux_dmabuf_v1_interface, 3);
	}
}

static void registry_handle_global_remove(void *data,
		struct wl_registry *registry, uint32_t name) {
	// Nothing we bind goes away while we run.
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_handle_global,
	.global_remove = registry_handle_global_remove,
};

/* ---- setup, main loop, teardown ----------------------------------------- */

static bool probe_init(struct probe *probe) {
	probe->display = wl_display_connect(NULL);
	if (probe->display == NULL) {
		fprintf(stderr,
				"vitrail-latency-probe: cannot connect to the "
				"Wayland display\n");
		return false;
	}
	probe->registry = wl_display_get_registry(probe->display);
	wl_registry_add_listener(probe->registry, &registry_listener, probe);
	// Two round trips: the globals, then wp_presentation.clock_id.
	if (wl_display_roundtrip(probe->display) < 0 ||
			wl_display_roundtrip(probe->display) < 0) {
		fprintf(stderr, "vitrail-latency-probe: roundtrip failed\n");
		return false;
	}
	if (probe->compositor == NULL || probe->shm == NULL ||
			probe->wm_base == NULL || probe->presentation == NULL) {
		fprintf(stderr,
				"vitrail-latency-probe: the compositor lacks "
				"wl_compositor, wl_shm, xdg_wm_base or wp_presentation\n");
		return false;
	}
	if (probe->use_dmabuf && probe->dmabuf == NULL) {
		fprintf(stderr,
				"vitrail-latency-probe: --dmabuf: the compositor "
				"offers no zwp_linux_dmabuf_v1 (version 3 or more)\n");
		return false;
	}
	probe->pool.dmabuf = probe->dmabuf;
	struct timespec ts;
	if (!probe->clock_known ||
			clock_gettime((clockid_t)probe->clock_id, &ts) != 0) {
		fprintf(stderr,
				"vitrail-latency-probe: the presentation clock is "
				"%s%u, which this process cannot read: commit and "
				"presentation times would not be comparable\n",
				probe->clock_known ? "" : "unknown, ", probe->clock_id);
		return false;
	}

	if (!pc_toplevel_init(&probe->window, probe->compositor, probe->wm_base,
				probe->app_id, "vitrail latency probe", probe->width,
				probe->height, &probe->running, window_configured, probe)) {
		fprintf(stderr, "vitrail-latency-probe: out of memory\n");
		return false;
	}
	wl_surface_commit(probe->window.surface);
	return true;
}

static void probe_finish(struct probe *probe) {
	struct pending_feedback *pending, *tmp;
	wl_list_for_each_safe(pending, tmp, &probe->feedbacks, link) {
		wp_presentation_feedback_destroy(pending->feedback);
		wl_list_remove(&pending->link);
		free(pending);
	}
	if (probe->frame_callback != NULL) {
		wl_callback_destroy(probe->frame_callback);
	}
	pc_pool_finish(&probe->pool);
	pc_toplevel_finish(&probe->window);
	if (probe->presentation != NULL) {
		wp_presentation_destroy(probe->presentation);
	}
	if (probe->dmabuf != NULL) {
		zwp_linux_dmabuf_v1_destroy(probe->dmabuf);
	}
	if (probe->wm_base != NULL) {
		xdg_wm_base_destroy(probe->wm_base);
	}
	if (probe->shm != NULL) {
		wl_shm_destroy(probe->shm);
	}
	if (probe->compositor != NULL) {
		wl_compositor_destroy(probe->compositor);
	}
	if (probe->registry != NULL) {
		wl_registry_destroy(probe->registry);
	}
	if (probe->display != NULL) {
		wl_display_flush(probe->display);
		wl_display_disconnect(probe->display);
	}
	free(probe->records);
}

static void probe_run(struct probe *probe, int signal_fd) {
	uint64_t deadline = probe->timeout_s > 0 ?
			pc_now_ns() + (uint64_t)(probe->timeout_s * 1e9) :
			0;
	while (probe->running) {
		int timeout_ms = -1;
		if (deadline != 0) {
			uint64_t now = pc_now_ns();
			if (now >= deadline) {
				fail(probe,
						"timed out (--timeout) before enough frames "
						"were presented");
				return;
			}
			timeout_ms = (int)((deadline - now) / 1000000u) + 1;
		}
		bool signalled = false;
		if (!pc_dispatch(probe->display, signal_fd, timeout_ms, &probe->running,
					&signalled, "vitrail-latency-probe")) {
			probe->exit_status = EXIT_FAILURE;
			return;
		}
		if (signalled) {
			probe->running = false;
		}
	}
}

/* ---- statistics --------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(const double *sorted, size_t n) {
	return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* Nearest rank: the smallest value with at least 95% at or below it. */
static double p95(const double *sorted, size_t n) {
	size_t rank = (95 * n + 99) / 100;
	return sorted[rank > 0 ? rank - 1 : 0];
}

static void format_value(char *buf, size_t size, bool valid, double v,
		int decimals) {
	if (valid) {
		snprintf(buf, size, "%.*f", decimals, v);
	} else {
		snprintf(buf, size, "n/a");
	}
}

/* A counted frame: past the warm-up, and resolved. */
static bool counted(const struct probe *probe, const struct frame_record *r) {
	return r->done && r->seq >= (uint64_t)probe->skip;
}

/* Written to FILE.tmp, then renamed: a reader never sees half a file. */
static bool write_csv(struct probe *probe) {
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", probe->csv_path) >=
			(int)sizeof(tmp)) {
		fprintf(stderr, "vitrail-latency-probe: --csv path too long\n");
		return false;
	}
	FILE *f = fopen(tmp, "w");
	if (f == NULL) {
		fprintf(stderr, "vitrail-latency-probe: cannot write %s: %s\n", tmp,
				strerror(errno));
		return false;
	}
	fprintf(f,
			"seq,commit_ns,presented_ns,refresh_ns,latency_ns,"
			"discarded\n");
	for (size_t i = 0; i < probe->records_len; i++) {
		const struct frame_record *r = &probe->records[i];
		if (!counted(probe, r)) {
			continue;
		}
		int64_t latency =
				r->discarded ? 0 : (int64_t)(r->presented_ns - r->commit_ns);
		fprintf(f, "%llu,%llu,%llu,%llu,%lld,%d\n", (unsigned long long)r->seq,
				(unsigned long long)r->commit_ns,
				(unsigned long long)r->presented_ns,
				(unsigned long long)r->refresh_ns, (long long)latency,
				r->discarded ? 1 : 0);
	}
	bool ok = fclose(f) == 0 && rename(tmp, probe->csv_path) == 0;
	if (!ok) {
		fprintf(stderr, "vitrail-latency-probe: cannot write %s\n",
				probe->csv_path);
	}
	return ok;
}

static void print_summary(struct probe *probe) {
	size_t n = probe->records_len;
	double *ms = calloc(n + 1, sizeof(double));
	double *periods = calloc(n + 1, sizeof(double));
	double *refresh = calloc(n + 1, sizeof(double));
	if (ms == NULL || periods == NULL || refresh == NULL) {
		fail(probe, "out of memory");
		free(ms);
		free(periods);
		free(refresh);
		return;
	}
	size_t presented = 0, with_refresh = 0, discarded = 0;
	for (size_t i = 0; i < n; i++) {
		const struct frame_record *r = &probe->records[i];
		if (!counted(probe, r)) {
			continue;
		}
		if (r->discarded) {
			discarded++;
			continue;
		}
		double latency_ns = (double)(int64_t)(r->presented_ns - r->commit_ns);
		ms[presented++] = latency_ns / 1e6;
		if (r->refresh_ns > 0) {
			periods[with_refresh] = latency_ns / (double)r->refresh_ns;
			refresh[with_refresh++] = r->refresh_ns / 1e6;
		}
	}
	qsort(ms, presented, sizeof(double), cmp_double);
	qsort(periods, with_refresh, sizeof(double), cmp_double);
	qsort(refresh, with_refresh, sizeof(double), cmp_double);

	char med_p[32], p95_p[32], med_ms[32], p95_ms[32], refresh_ms[32];
	bool have = presented > 0, have_p = with_refresh > 0;
	format_value(med_p, sizeof(med_p), have_p,
			have_p ? median(periods, with_refresh) : 0, 3);
	format_value(p95_p, sizeof(p95_p), have_p,
			have_p ? p95(periods, with_refresh) : 0, 3);
	format_value(med_ms, sizeof(med_ms), have, have ? median(ms, presented) : 0,
			3);
	format_value(p95_ms, sizeof(p95_ms), have, have ? p95(ms, presented) : 0,
			3);
	format_value(refresh_ms, sizeof(refresh_ms), have_p,
			have_p ? median(refresh, with_refresh) : 0, 3);
	printf("latency: frames=%zu discarded=%zu median_periods=%s "
		   "p95_periods=%s median_ms=%s p95_ms=%s refresh_ms=%s\n",
			presented, discarded, med_p, p95_p, med_ms, p95_ms, refresh_ms);
	fflush(stdout);
	if (probe->no_buffer > 0) {
		fprintf(stderr,
				"vitrail-latency-probe: %ld frame callbacks found "
				"every buffer busy (no frame committed)\n",
				probe->no_buffer);
	}
	free(ms);
	free(periods);
	free(refresh);
}

/* ---- options ------------------------------------------------------------ */

static void usage(FILE *f) {
	fprintf(f,
			"Usage: vitrail-latency-probe [--frames N] [--skip N] "
			"[--render-ms X] [--csv FILE] [--app-id ID] [--size WxH] "
			"[--timeout SEC] [--dmabuf]\n");
}

int main(int argc, char *argv[]) {
	struct probe probe = {
		.app_id = "vitrail-latency-probe",
		.width = 256,
		.height = 256,
		.max_frames = 300,
		.timeout_s = 120,
		.running = true,
		.exit_status = EXIT_SUCCESS,
	};
	static const struct option long_options[] = {
		{ "frames", required_argument, NULL, 'n' },
		{ "skip", required_argument, NULL, 'k' },
		{ "render-ms", required_argument, NULL, 'r' },
		{ "csv", required_argument, NULL, 'c' },
		{ "app-id", required_argument, NULL, 'a' },
		{ "size", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "dmabuf", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		bool ok = true;
		switch (opt) {
		case 'n':
			ok = pc_parse_long(optarg, 1, LONG_MAX, &probe.max_frames);
			break;
		case 'k': ok = pc_parse_long(optarg, 0, LONG_MAX, &probe.skip); break;
		case 'r': ok = pc_parse_double(optarg, 0, &probe.render_ms); break;
		case 'c': probe.csv_path = optarg; break;
		case 'a': probe.app_id = optarg; break;
		case 's':
			ok = pc_parse_size(optarg, &probe.width, &probe.height);
			break;
		case 't': ok = pc_parse_double(optarg, 0, &probe.timeout_s); break;
		case 'd': probe.use_dmabuf = true; break;
		case 'h': usage(stdout); return EXIT_SUCCESS;
		default: usage(stderr); return EXIT_FAILURE;
		}
		if (!ok) {
			fprintf(stderr,
					"vitrail-latency-probe: bad value '%s' for "
					"%s\n",
					optarg, argv[optind - 1]);
			usage(stderr);
			return EXIT_FAILURE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EXIT_FAILURE;
	}
	wl_list_init(&probe.feedbacks);
	if (probe.skip >= probe.max_frames) {
		fprintf(stderr,
				"vitrail-latency-probe: --skip %ld leaves nothing of "
				"--frames %ld\n",
				probe.skip, probe.max_frames);
		return EXIT_FAILURE;
	}

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
		perror("sigprocmask");
		return EXIT_FAILURE;
	}
	int signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (signal_fd < 0) {
		perror("signalfd");
		return EXIT_FAILURE;
	}

	if (probe_init(&probe)) {
		probe_run(&probe, signal_fd);
	} else {
		probe.exit_status = EXIT_FAILURE;
	}
	print_summary(&probe);
	if (probe.csv_path != NULL && !write_csv(&probe)) {
		probe.exit_status = EXIT_FAILURE;
	}
	probe_finish(&probe);
	close(signal_fd);
	return probe.exit_status;
}
