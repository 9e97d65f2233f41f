/*
 * vitrail-prerender-demo: a client on vitrail_frame_timing_v1's pre_render
 * path. A list of rows springs up and down (a critically damped spring
 * towards a target that flips every --flip-ms); every frame is drawn for
 * one display slot of the surface's frame timeline, sampled at that
 * slot's display time (its D-Timestamp), and queued with set_target_time,
 * up to the pre-render limit ahead. Each frame asks for feedback.
 *
 * With --switch-after N the client switches to the vsync path after N
 * frames were shown: from then on it draws one frame per frame callback,
 * sampled at the display time the timeline gives for the next slot.
 *
 * On exit it prints one line:
 *   prerender-demo: shown S (pre_render P, vsync V) discarded D
 *   on_time T worst_ms W
 * on_time: frames shown at the display time they were drawn for (within
 * half a refresh); worst_ms: the largest |shown - target| in ms.
 * discarded: frames never shown (a late frame is replaced by the next one
 * due at the same refresh). Exit status 0 when the connection held and
 * frames were shown.
 *
 * Options: --frames N (stop after N frames shown; default 0: run until
 * SIGTERM), --limit N (pre-render limit, 1-5, default 3), --switch-after N,
 * --flip-ms MS (default 1500), --app-id ID.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "scene-client.h"

#define WIDTH 240
#define HEIGHT 360
#define ROWS 24
#define ROW_H 40
#define BUFFERS 8
#define SLOTS_MAX 5
#define NSEC 1000000000ull

struct frame_buffer {
	struct sc_buffer *buffer;
	bool busy;
};

#define PENDING_MAX 16

/* A frame committed and not answered yet. */
struct pending_frame {
	uint64_t target_ns;
	bool pre_render;
	struct demo *demo;
	struct vitrail_commit_feedback_v1 *feedback; // NULL: slot free
};

struct demo {
	struct sc_app app;
	struct vitrail_surface_timing_v1 *timing;
	struct frame_buffer buffers[BUFFERS];
	uint32_t limit;
	bool pre_render;
	int switch_after; // 0: never
	int frames_wanted;
	uint64_t flip_ns;
	uint64_t start_ns;
	/* slots from the last timeline */
	uint64_t slots[SLOTS_MAX];
	uint32_t refresh_ns;
	int nslots;
	bool timeline_done;
	uint64_t last_target; // display time of the last frame queued
	int in_flight; // frames committed, no feedback yet
	struct pending_frame pending[PENDING_MAX];
	/* results */
	int shown, shown_pre, shown_vsync, discarded, on_time;
	double worst_ms;
	bool waiting_callback;
};

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static void split(uint64_t ns, uint32_t *hi, uint32_t *lo, uint32_t *nsec) {
	uint64_t sec = ns / NSEC;
	*hi = (uint32_t)(sec >> 32);
	*lo = (uint32_t)sec;
	*nsec = (uint32_t)(ns % NSEC);
}

static uint64_t join(uint32_t hi, uint32_t lo, uint32_t nsec) {
	return ((uint64_t)hi << 32 | lo) * NSEC + nsec;
}

/* The list's offset at display time t: a critically damped spring towards
 * 0 or the far end, the target flipping every flip_ns. */
static double list_offset(const struct demo *demo, uint64_t t) {
	const double far = -(double)(ROWS * ROW_H - HEIGHT);
	const double omega = 9.0; // rad/s
	uint64_t since = t > demo->start_ns ? t - demo->start_ns : 0;
	uint64_t phase = since / demo->flip_ns;
	double from = phase % 2 == 0 ? 0 : far, to = phase % 2 == 0 ? far : 0;
	double s = (double)(since % demo->flip_ns) / 1e9;
	return to + (from - to) * (1 + omega * s) * exp(-omega * s);
}

static void draw(struct demo *demo, struct sc_buffer *buffer, uint64_t t) {
	double offset = list_offset(demo, t);
	for (int32_t y = 0; y < HEIGHT; y++) {
		int row = (int)floor((y - offset) / ROW_H);
		uint32_t color = row % 2 == 0 ? 0xff2d5b8c : 0xff3f7cbf;
		if ((int)(y - offset) % ROW_H < 2) {
			color = 0xff10202f; // separator
		}
		uint32_t *line = buffer->pixels + (size_t)y * WIDTH;
		for (int32_t x = 0; x < WIDTH; x++) {
			// a marker whose width shows the row number
			line[x] = x < 8 + (row % 12) * 12 && x >= 8 &&
							(int)(y - offset) % ROW_H > 12 &&
							(int)(y - offset) % ROW_H < 28 ?
					0xffe8e8e8 :
					color;
		}
	}
}

static void buffer_release(void *data, struct wl_buffer *wl_buffer) {
	struct frame_buffer *fb = data;
	fb->busy = false;
}

static const struct wl_buffer_listener buffer_listener = {
	.release = buffer_release,
};

static struct frame_buffer *free_buffer(struct demo *demo) {
	for (int i = 0; i < BUFFERS; i++) {
		if (!demo->buffers[i].busy) {
			return &demo->buffers[i];
		}
	}
	return NULL;
}

static void feedback_presented(void *data,
		struct vitrail_commit_feedback_v1 *feedback, uint32_t hi, uint32_t lo,
		uint32_t nsec, uint32_t thi, uint32_t tlo, uint32_t tnsec) {
	struct pending_frame *frame = data;
	struct demo *demo = frame->demo;
	uint64_t shown = join(hi, lo, nsec);
	double off_ms = ((double)shown - (double)frame->target_ns) / 1e6;
	if (fabs(off_ms) > fabs(demo->worst_ms)) {
		demo->worst_ms = off_ms;
	}
	if (fabs(off_ms) * 1e6 < demo->refresh_ns / 2.0) {
		demo->on_time++;
	}
	demo->shown++;
	if (frame->pre_render) {
		demo->shown_pre++;
	} else {
		demo->shown_vsync++;
	}
	demo->in_flight--;
	vitrail_commit_feedback_v1_destroy(feedback);
	frame->feedback = NULL;
}

static void feedback_discarded(void *data,
		struct vitrail_commit_feedback_v1 *feedback, uint32_t reason) {
	struct pending_frame *frame = data;
	frame->demo->discarded++;
	frame->demo->in_flight--;
	vitrail_commit_feedback_v1_destroy(feedback);
	frame->feedback = NULL;
}

static const struct vitrail_commit_feedback_v1_listener feedback_listener = {
	.presented = feedback_presented,
	.discarded = feedback_discarded,
};

static void timeline_slot(void *data, struct vitrail_frame_timeline_v1 *tl,
		uint32_t dhi, uint32_t dlo, uint32_t dnsec, uint32_t ehi, uint32_t elo,
		uint32_t ensec, uint32_t refresh) {
	struct demo *demo = data;
	if (demo->nslots < SLOTS_MAX) {
		demo->slots[demo->nslots++] = join(dhi, dlo, dnsec);
	}
	demo->refresh_ns = refresh;
}

static void timeline_done(void *data, struct vitrail_frame_timeline_v1 *tl) {
	struct demo *demo = data;
	demo->timeline_done = true;
}

static const struct vitrail_frame_timeline_v1_listener timeline_listener = {
	.slot = timeline_slot,
	.done = timeline_done,
};

/* The next slots of the timeline (a round trip). */
static bool get_slots(struct demo *demo) {
	demo->nslots = 0;
	demo->timeline_done = false;
	struct vitrail_frame_timeline_v1 *tl =
			vitrail_surface_timing_v1_get_timeline(demo->timing);
	vitrail_frame_timeline_v1_add_listener(tl, &timeline_listener, demo);
	while (!demo->timeline_done) {
		if (wl_display_dispatch(demo->app.display) < 0) {
			return false;
		}
	}
	vitrail_frame_timeline_v1_destroy(tl);
	return true;
}

/* Commit one frame drawn for display time t (0: no target, vsync). */
static void commit_frame(struct demo *demo, struct frame_buffer *fb, uint64_t t,
		bool targeted) {
	struct pending_frame *frame = NULL;
	for (int i = 0; i < PENDING_MAX && frame == NULL; i++) {
		if (demo->pending[i].feedback == NULL) {
			frame = &demo->pending[i];
		}
	}
	if (frame == NULL) {
		return; /* the limit keeps it from happening */
	}
	draw(demo, fb->buffer, t);
	fb->busy = true;
	*frame = (struct pending_frame){
		.target_ns = t,
		.pre_render = targeted,
		.demo = demo,
		.feedback = vitrail_surface_timing_v1_feedback(demo->timing),
	};
	vitrail_commit_feedback_v1_add_listener(frame->feedback, &feedback_listener,
			frame);
	if (targeted) {
		uint32_t hi, lo, nsec;
		split(t, &hi, &lo, &nsec);
		vitrail_surface_timing_v1_set_target_time(demo->timing, hi, lo, nsec);
	}
	struct wl_surface *surface = demo->app.surface;
	wl_surface_attach(surface, fb->buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, WIDTH, HEIGHT);
	wl_surface_commit(surface);
	demo->in_flight++;
	demo->last_target = t;
}

static void frame_callback_done(void *data, struct wl_callback *callback,
		uint32_t time);

static const struct wl_callback_listener frame_callback_listener = {
	.done = frame_callback_done,
};

/* vsync path: draw at each frame callback, for the next slot. */
static void vsync_frame(struct demo *demo) {
	struct frame_buffer *fb = free_buffer(demo);
	if (fb == NULL || !get_slots(demo) || demo->nslots == 0) {
		return;
	}
	struct wl_callback *callback = wl_surface_frame(demo->app.surface);
	wl_callback_add_listener(callback, &frame_callback_listener, demo);
	demo->waiting_callback = true;
	commit_frame(demo, fb, demo->slots[0], false);
}

static void frame_callback_done(void *data, struct wl_callback *callback,
		uint32_t time) {
	struct demo *demo = data;
	wl_callback_destroy(callback);
	demo->waiting_callback = false;
}

/* pre_render path: fill the queue up to the limit, one frame per slot. */
static void prerender_fill(struct demo *demo) {
	if ((uint32_t)demo->in_flight >= demo->limit || !get_slots(demo)) {
		return;
	}
	for (int i = 0; i < demo->nslots && (uint32_t)demo->in_flight < demo->limit;
			i++) {
		if (demo->slots[i] <= demo->last_target) {
			continue;
		}
		struct frame_buffer *fb = free_buffer(demo);
		if (fb == NULL) {
			return;
		}
		commit_frame(demo, fb, demo->slots[i], true);
	}
}

static int usage(void) {
	fprintf(stderr,
			"usage: vitrail-prerender-demo [--frames N] [--limit N] "
			"[--switch-after N] [--flip-ms MS] [--app-id ID]\n");
	return EXIT_FAILURE;
}

int main(int argc, char *argv[]) {
	struct demo demo = { .limit = 3, .flip_ns = 1500 * 1000000ull };
	const char *app_id = "vitrail-prerender-demo";
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc) {
			return usage();
		}
		const char *opt = argv[i], *val = argv[++i];
		char *end;
		long n = strtol(val, &end, 10);
		if (strcmp(opt, "--app-id") == 0) {
			app_id = val;
		} else if (*end != '\0' || n < 0) {
			return usage();
		} else if (strcmp(opt, "--frames") == 0) {
			demo.frames_wanted = (int)n;
		} else if (strcmp(opt, "--limit") == 0 && n >= 1 && n <= 5) {
			demo.limit = (uint32_t)n;
		} else if (strcmp(opt, "--switch-after") == 0) {
			demo.switch_after = (int)n;
		} else if (strcmp(opt, "--flip-ms") == 0 && n > 0) {
			demo.flip_ns = (uint64_t)n * 1000000ull;
		} else {
			return usage();
		}
	}
	struct sc_app *app = &demo.app;
	if (!sc_app_init(app, "vitrail-prerender-demo")) {
		return EXIT_FAILURE;
	}
	if (app->timing_manager == NULL) {
		fprintf(stderr,
				"prerender-demo: the compositor has no "
				"vitrail_frame_timing_manager_v1\n");
		return EXIT_FAILURE;
	}
	if (!sc_app_create_window(app, app_id, "pre-render demo", WIDTH, HEIGHT,
				0xff202020)) {
		return EXIT_FAILURE;
	}
	for (int i = 0; i < BUFFERS; i++) {
		demo.buffers[i].buffer = sc_buffer_create(app, WIDTH, HEIGHT,
				WL_SHM_FORMAT_XRGB8888, 0xff000000);
		wl_buffer_add_listener(demo.buffers[i].buffer->wl_buffer,
				&buffer_listener, &demo.buffers[i]);
	}
	demo.timing = vitrail_frame_timing_manager_v1_get_surface_timing(
			app->timing_manager, app->surface);
	vitrail_surface_timing_v1_set_path(demo.timing,
			VITRAIL_SURFACE_TIMING_V1_PATH_PRE_RENDER);
	vitrail_surface_timing_v1_set_prerender_limit(demo.timing, demo.limit);
	wl_surface_commit(app->surface);
	demo.pre_render = true;
	demo.start_ns = now_ns();

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);
	int status = EXIT_SUCCESS;
	while (demo.frames_wanted == 0 ||
			demo.shown + demo.discarded < demo.frames_wanted) {
		if (demo.pre_render && demo.switch_after > 0 &&
				demo.shown >= demo.switch_after) {
			/* run-time switch: queued frames still go at their times */
			vitrail_surface_timing_v1_set_path(demo.timing,
					VITRAIL_SURFACE_TIMING_V1_PATH_VSYNC);
			demo.pre_render = false;
		}
		if (demo.pre_render) {
			prerender_fill(&demo);
		} else if (!demo.waiting_callback && demo.in_flight == 0) {
			vsync_frame(&demo);
		}
		if (wl_display_flush(app->display) < 0 && errno != EAGAIN) {
			status = EXIT_FAILURE;
			break;
		}
		struct pollfd fds[2] = {
			{ .fd = wl_display_get_fd(app->display), .events = POLLIN },
			{ .fd = signal_fd, .events = POLLIN },
		};
		if (poll(fds, 2, 100) < 0 && errno != EINTR) {
			break;
		}
		if (fds[1].revents & POLLIN) {
			break;
		}
		if ((fds[0].revents & POLLIN) &&
				wl_display_dispatch(app->display) < 0) {
			fprintf(stderr, "prerender-demo: lost the connection\n");
			status = EXIT_FAILURE;
			break;
		}
		if (wl_display_dispatch_pending(app->display) < 0) {
			status = EXIT_FAILURE;
			break;
		}
	}
	/* the last frames' answers, for a second at most */
	uint64_t deadline = now_ns() + NSEC;
	while (status == EXIT_SUCCESS && demo.in_flight > 0 &&
			now_ns() < deadline) {
		struct pollfd pfd = { wl_display_get_fd(app->display), POLLIN, 0 };
		wl_display_flush(app->display);
		if (poll(&pfd, 1, 50) > 0 && wl_display_dispatch(app->display) < 0) {
			status = EXIT_FAILURE;
		}
	}
	for (int i = 0; i < PENDING_MAX; i++) {
		if (demo.pending[i].feedback != NULL) {
			vitrail_commit_feedback_v1_destroy(demo.pending[i].feedback);
		}
	}
	printf("prerender-demo: shown %d (pre_render %d, vsync %d) discarded %d "
		   "on_time %d worst_ms %.3f\n",
			demo.shown, demo.shown_pre, demo.shown_vsync, demo.discarded,
			demo.on_time, demo.worst_ms);
	fflush(stdout);
	if (status == EXIT_SUCCESS && demo.shown == 0) {
		status = EXIT_FAILURE;
	}
	vitrail_surface_timing_v1_destroy(demo.timing);
	for (int i = 0; i < BUFFERS; i++) {
		sc_buffer_destroy(demo.buffers[i].buffer);
	}
	sc_app_finish(app);
	return status;
}
