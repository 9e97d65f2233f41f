/*
 * vitrail-callback-probe: does every new surface get its first frame
 * callback?
 *
 * Over and over, as WLCS's tests do with each new window: an xdg_toplevel
 * is created, its first configure acknowledged, then one commit attaches a
 * buffer and asks for a wl_surface.frame callback; the probe waits for that
 * callback (at most --timeout-ms), then destroys the window. A callback that
 * never comes is counted as lost (the window is destroyed all the same and
 * the next one begins).
 *
 * --pause-pid makes the race that lost such callbacks certain instead of
 * rare: the compositor's vblank timer expires while the commit waits in its
 * socket, so that one event-loop turn reads both, the commit first. A
 * second window (the helper) asks for a frame callback with a commit of
 * no new content, so that the output's next vblank has callbacks to send;
 * once the compositor has read that, it is stopped (SIGSTOP), the new
 * window commits its buffer and asks for its callback, and the compositor
 * continues (SIGCONT) after that vblank has passed.
 *
 * --feedback (with --pause-pid) checks the same race for wp_presentation:
 * each window's commit also asks for presentation feedback, which must be
 * answered (presented or discarded). Before vitrail stops, the helper
 * commits new content, so that vitrail has a frame planned when it
 * resumes; the window's commit, read first, must not start that frame
 * before wlroots made the commit's feedback current (a frame started
 * inside the commit drew the window and never answered its feedback).
 *
 * Options:
 *   --iterations N   windows (default 100)
 *   --timeout-ms MS  how long a callback may take (default 1000)
 *   --reconnect      a new connection for every window (default: one)
 *   --size WxH       the buffer's size (default 64x48)
 *   --pause-pid PID  the compositor to stop around each window's commit
 *                    (not with --reconnect)
 *   --feedback       presentation feedback too (with --pause-pid)
 *
 * Prints "callbacks=N lost=N max_ms=F" (with --feedback also
 * "feedbacks=N feedbacks_lost=N") on its last line and exits 0 when none
 * was lost, 1 otherwise (2: a connection or protocol error).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>
#include "presentation-time-client-protocol.h"
#include "probe-client.h"
#include "xdg-shell-client-protocol.h"

#define NAME "callback-probe"

struct probe {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wp_presentation *presentation;
};

struct window {
	struct pc_toplevel toplevel;
	bool done; /* its frame callback came */
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct probe *p = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		p->compositor =
				wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		p->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, wp_presentation_interface.name) == 0) {
		p->presentation =
				wl_registry_bind(registry, name, &wp_presentation_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		p->wm_base =
				wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		pc_wm_base_listen(p->wm_base);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static bool probe_connect(struct probe *p) {
	*p = (struct probe){ 0 };
	p->display = wl_display_connect(NULL);
	if (p->display == NULL) {
		fprintf(stderr, NAME ": cannot connect\n");
		return false;
	}
	p->registry = wl_display_get_registry(p->display);
	wl_registry_add_listener(p->registry, &registry_listener, p);
	if (wl_display_roundtrip(p->display) < 0 || p->compositor == NULL ||
			p->shm == NULL || p->wm_base == NULL) {
		fprintf(stderr,
				NAME ": wl_compositor, wl_shm or "
					 "xdg_wm_base missing\n");
		return false;
	}
	return true;
}

static void probe_disconnect(struct probe *p) {
	if (p->presentation != NULL) {
		wp_presentation_destroy(p->presentation);
	}
	if (p->wm_base != NULL) {
		xdg_wm_base_destroy(p->wm_base);
	}
	if (p->shm != NULL) {
		wl_shm_destroy(p->shm);
	}
	if (p->compositor != NULL) {
		wl_compositor_destroy(p->compositor);
	}
	if (p->registry != NULL) {
		wl_registry_destroy(p->registry);
	}
	if (p->display != NULL) {
		wl_display_disconnect(p->display);
	}
	*p = (struct probe){ 0 };
}

static void frame_done(void *data, struct wl_callback *callback,
		uint32_t time) {
	struct window *w = data;
	w->done = true;
}

static const struct wl_callback_listener frame_listener = {
	.done = frame_done,
};

/* A presentation feedback's answer: presented or discarded. */
static void feedback_sync_output(void *data,
		struct wp_presentation_feedback *feedback, struct wl_output *output) {
}

static void feedback_presented(void *data,
		struct wp_presentation_feedback *feedback, uint32_t tv_sec_hi,
		uint32_t tv_sec_lo, uint32_t tv_nsec, uint32_t refresh, uint32_t seq_hi,
		uint32_t seq_lo, uint32_t flags) {
	bool *answered = data;
	*answered = true;
}

static void feedback_discarded(void *data,
		struct wp_presentation_feedback *feedback) {
	bool *answered = data;
	*answered = true;
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_sync_output,
	.presented = feedback_presented,
	.discarded = feedback_discarded,
};

/* Wait until the process is stopped (its /proc stat says T); false when
 * it is gone or does not stop within a second. */
static bool wait_stopped(pid_t pid) {
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	uint64_t deadline = pc_now_ns() + 1000000000u;
	while (pc_now_ns() < deadline) {
		FILE *f = fopen(path, "r");
		if (f == NULL) {
			return false;
		}
		char line[512];
		char *ok = fgets(line, sizeof(line), f);
		fclose(f);
		/* "pid (comm) S ...": the state follows the last ')' */
		char *paren = ok != NULL ? strrchr(line, ')') : NULL;
		if (paren != NULL && paren[1] == ' ' && paren[2] == 'T') {
			return true;
		}
		struct timespec ts = { .tv_nsec = 100000 };
		nanosleep(&ts, NULL);
	}
	return false;
}

static void sleep_ms(int ms) {
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000,
	};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

/* Dispatch until *flag or the deadline; false on timeout or error. */
static bool dispatch_until(struct wl_display *display, bool *flag,
		uint64_t deadline) {
	static const bool running = true;
	while (!*flag) {
		uint64_t now = pc_now_ns();
		if (now >= deadline) {
			return false;
		}
		int ms = (int)((deadline - now + 999999) / 1000000);
		if (!pc_dispatch(display, -1, ms, &running, NULL, NAME)) {
			return false;
		}
	}
	return true;
}

/* A released buffer of the pool filled with colour; waits (up to the
 * deadline) for the compositor to release one; NULL on timeout or
 * error. */
static struct pc_buffer *fill_buffer(struct probe *p, struct pc_pool *pool,
		int32_t width, int32_t height, uint32_t colour, uint64_t deadline) {
	static const bool running = true;
	struct pc_buffer *buffer;
	while ((buffer = pc_pool_next(pool, p->shm, width, height)) == NULL) {
		uint64_t now = pc_now_ns();
		if (now >= deadline ||
				!pc_dispatch(p->display, -1,
						(int)((deadline - now + 999999) / 1000000), &running,
						NULL, NAME)) {
			return NULL;
		}
	}
	for (int32_t i = 0; i < width * height; i++) {
		buffer->data[i] = colour;
	}
	buffer->busy = true;
	return buffer;
}

/* A new xdg_toplevel, its first configure acknowledged; false on error. */
static bool window_create(struct probe *p, struct window *w,
		uint64_t timeout_ns) {
	*w = (struct window){ 0 };
	if (!pc_toplevel_init(&w->toplevel, p->compositor, p->wm_base,
				"callback-probe", NULL, 0, 0, NULL, NULL, NULL)) {
		fprintf(stderr, NAME ": out of memory\n");
		return false;
	}
	wl_surface_commit(w->toplevel.surface);
	return dispatch_until(p->display, &w->toplevel.configured,
			pc_now_ns() + timeout_ns);
}

static void window_destroy(struct window *w) {
	pc_toplevel_finish(&w->toplevel);
}

/* Ask for the window's next frame callback (w->done once it came). */
static struct wl_callback *window_frame(struct window *w) {
	w->done = false;
	struct wl_callback *callback = wl_surface_frame(w->toplevel.surface);
	wl_callback_add_listener(callback, &frame_listener, w);
	return callback;
}

static void usage(const char *argv0) {
	fprintf(stderr,
			"usage: %s [--iterations N] [--timeout-ms MS] "
			"[--reconnect] [--size WxH] [--pause-pid PID [--feedback]]\n",
			argv0);
}

int main(int argc, char *argv[]) {
	long iterations = 100, timeout_ms = 1000, pause_pid = 0;
	int32_t width = 64, height = 48;
	bool reconnect = false, feedback = false;
	static const struct option options[] = {
		{ "iterations", required_argument, NULL, 'n' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "reconnect", no_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 's' },
		{ "pause-pid", required_argument, NULL, 'p' },
		{ "feedback", no_argument, NULL, 'f' },
		{ 0 },
	};
	int opt, index = 0;
	while ((opt = getopt_long(argc, argv, "", options, &index)) != -1) {
		bool ok = true;
		switch (opt) {
		case 'n': ok = pc_parse_long(optarg, 1, 1000000, &iterations); break;
		case 't': ok = pc_parse_long(optarg, 1, 600000, &timeout_ms); break;
		case 'r': reconnect = true; break;
		case 'f': feedback = true; break;
		case 's': ok = pc_parse_size(optarg, &width, &height); break;
		case 'p': ok = pc_parse_long(optarg, 1, INT32_MAX, &pause_pid); break;
		default: usage(argv[0]); return 2;
		}
		if (!ok) {
			fprintf(stderr, NAME ": bad --%s %s\n", options[index].name,
					optarg);
			usage(argv[0]);
			return 2;
		}
	}
	if (optind < argc) {
		usage(argv[0]);
		return 2;
	}
	uint64_t timeout_ns = (uint64_t)timeout_ms * 1000000;

	if (pause_pid > 0 && reconnect) {
		fprintf(stderr, NAME ": --pause-pid needs one connection\n");
		return 2;
	}
	if (feedback && pause_pid == 0) {
		fprintf(stderr, NAME ": --feedback needs --pause-pid\n");
		return 2;
	}
	struct probe p = { 0 };
	/* the buffers of the connection: a window's is released once the
	 * compositor no longer reads it, the helper's stays attached */
	struct pc_pool pool = { 0 };
	if (!reconnect && !probe_connect(&p)) {
		return 2;
	}
	if (feedback && p.presentation == NULL) {
		fprintf(stderr, NAME ": no wp_presentation\n");
		return 2;
	}
	/* --pause-pid: the helper window, mapped, its first callback come */
	struct window helper = { 0 };
	if (pause_pid > 0) {
		struct pc_buffer *helper_buffer = fill_buffer(&p, &pool, width, height,
				0xff808080u, pc_now_ns() + timeout_ns);
		if (helper_buffer == NULL || !window_create(&p, &helper, timeout_ns)) {
			fprintf(stderr, NAME ": no helper window\n");
			return 2;
		}
		wl_surface_attach(helper.toplevel.surface, helper_buffer->wl_buffer, 0,
				0);
		wl_surface_damage_buffer(helper.toplevel.surface, 0, 0, width, height);
		struct wl_callback *callback = window_frame(&helper);
		wl_surface_commit(helper.toplevel.surface);
		bool ok = dispatch_until(p.display, &helper.done,
				pc_now_ns() + timeout_ns);
		wl_callback_destroy(callback);
		if (!ok) {
			fprintf(stderr,
					NAME ": the helper window got no frame "
						 "callback\n");
			return 2;
		}
	}
	int callbacks = 0, lost = 0, feedbacks = 0, feedbacks_lost = 0;
	double max_ms = 0;
	for (long i = 0; i < iterations; i++) {
		if (reconnect && !probe_connect(&p)) {
			return 2;
		}
		struct window w;
		if (!window_create(&p, &w, timeout_ns)) {
			fprintf(stderr, NAME ": window %ld: no configure\n", i);
			return 2;
		}
		struct pc_buffer *buffer = fill_buffer(&p, &pool, width, height,
				0xff000000u | (uint32_t)((uint32_t)i * 2654435761u >> 8),
				pc_now_ns() + timeout_ns);
		if (buffer == NULL) {
			fprintf(stderr, NAME ": no buffer released in %ld ms\n",
					timeout_ms);
			return 2;
		}
		struct wl_callback *helper_callback = NULL;
		if (pause_pid > 0) {
			/* a vblank with nothing else to do: whatever the last
			 * window's destruction drew is shown, and the next vblank
			 * is most of a period away */
			helper_callback = window_frame(&helper);
			wl_surface_commit(helper.toplevel.surface);
			bool settled = dispatch_until(p.display, &helper.done,
					pc_now_ns() + timeout_ns);
			wl_callback_destroy(helper_callback);
			if (!settled) {
				fprintf(stderr,
						NAME ": the helper window got "
							 "no frame callback\n");
				return 2;
			}
			/* the next vblank has a callback to send; read by the
			 * compositor before it stops */
			helper_callback = window_frame(&helper);
			if (feedback) {
				/* and a frame to draw, planned (the tree's update
				 * waits for vitrail's idle, which runs before the
				 * second round trip is read) */
				struct pc_buffer *next = fill_buffer(&p, &pool, width, height,
						0xff000000u | (uint32_t)(i * 40503u),
						pc_now_ns() + timeout_ns);
				if (next == NULL) {
					fprintf(stderr, NAME ": no buffer for the helper\n");
					return 2;
				}
				wl_surface_attach(helper.toplevel.surface, next->wl_buffer, 0,
						0);
				wl_surface_damage_buffer(helper.toplevel.surface, 0, 0, width,
						height);
			}
			wl_surface_commit(helper.toplevel.surface);
			if (wl_display_roundtrip(p.display) < 0 ||
					(feedback && wl_display_roundtrip(p.display) < 0)) {
				return 2;
			}
			if (kill((pid_t)pause_pid, SIGSTOP) != 0 ||
					!wait_stopped((pid_t)pause_pid)) {
				fprintf(stderr, NAME ": cannot stop %ld\n", pause_pid);
				kill((pid_t)pause_pid, SIGCONT);
				return 2;
			}
		}
		wl_surface_attach(w.toplevel.surface, buffer->wl_buffer, 0, 0);
		wl_surface_damage_buffer(w.toplevel.surface, 0, 0, width, height);
		struct wl_callback *callback = window_frame(&w);
		bool answered = false;
		struct wp_presentation_feedback *fb = NULL;
		if (feedback) {
			fb = wp_presentation_feedback(p.presentation, w.toplevel.surface);
			wp_presentation_feedback_add_listener(fb, &feedback_listener,
					&answered);
		}
		uint64_t start = pc_now_ns();
		wl_surface_commit(w.toplevel.surface);
		if (pause_pid > 0) {
			wl_display_flush(p.display);
			/* past the vblank the helper's callback waits for (two
			 * periods at 60 Hz, and some) */
			sleep_ms(40);
			kill((pid_t)pause_pid, SIGCONT);
		}
		bool ok = dispatch_until(p.display, &w.done, start + timeout_ns);
		double ms = (double)(pc_now_ns() - start) / 1e6;
		if (ok) {
			callbacks++;
			max_ms = ms > max_ms ? ms : max_ms;
		} else {
			lost++;
			fprintf(stderr,
					NAME ": window %ld: no frame callback "
						 "in %ld ms\n",
					i, timeout_ms);
		}
		if (fb != NULL) {
			if (dispatch_until(p.display, &answered, start + timeout_ns)) {
				feedbacks++;
			} else {
				feedbacks_lost++;
				fprintf(stderr,
						NAME ": window %ld: presentation feedback "
							 "neither presented nor discarded in %ld ms\n",
						i, timeout_ms);
			}
			wp_presentation_feedback_destroy(fb);
		}
		if (helper_callback != NULL) {
			dispatch_until(p.display, &helper.done, pc_now_ns() + timeout_ns);
			wl_callback_destroy(helper_callback);
		}
		if (wl_display_get_error(p.display) != 0) {
			fprintf(stderr, NAME ": protocol error %d\n",
					wl_display_get_error(p.display));
			return 2;
		}
		wl_callback_destroy(callback);
		window_destroy(&w);
		if (reconnect) {
			pc_pool_finish(&pool);
			probe_disconnect(&p);
		} else if (wl_display_roundtrip(p.display) < 0) {
			return 2;
		}
	}
	if (pause_pid > 0) {
		window_destroy(&helper);
	}
	if (!reconnect) {
		pc_pool_finish(&pool);
		probe_disconnect(&p);
	}
	printf("callbacks=%d lost=%d max_ms=%.1f", callbacks, lost, max_ms);
	if (feedback) {
		printf(" feedbacks=%d feedbacks_lost=%d", feedbacks, feedbacks_lost);
	}
	printf("\n");
	return lost == 0 && feedbacks_lost == 0 ? 0 : 1;
}
