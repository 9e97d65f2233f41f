/*
 * wp_fifo_v1 and wp_commit_timing_v1 (wayland-protocols staging) against a
 * real vitrail, headless, one 640x480 output at 60 Hz, with clients
 * written to the standard XML. The oracles: buffer releases (a held
 * commit's buffer comes back only once the commit is applied), and when
 * each commit was shown, from vitrail_frame_timing_v1's per-commit
 * feedback (frame_timing.c's feedback, not the latching under test).
 * wp_presentation feedback cannot serve: wlroots 0.15 gathers the
 * feedback requests of every commit made before the next one applies
 * into one (all held commits would report the refresh of the first).
 *
 * One TCase per case (one meson test each, suite `fifo`); run one with
 * `test-fifo <tcase>`.
 */
#define _GNU_SOURCE // asprintf, setenv
#include <check.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>

#include "commit-timing-v1-client-protocol.h"
#include "fifo-v1-client-protocol.h"
#include "harness.h"
#include "scene-client.h"

#define NSEC 1000000000ull
#define PERIOD 16666666ull
#define NBUF 8

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static char *frame_log; /* the last start's */

static struct harness_vitrail *start(struct harness *harness) {
	free(frame_log);
	ck_assert(asprintf(&frame_log, "%s/frames.csv", harness->out_dir) > 0);
	const char *extra[] = { "--frame-log", frame_log, NULL };
	return harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "640x480",
					.extra_args = extra,
			});
}

struct client {
	struct sc_app app;
	struct wl_registry *registry;
	struct wp_fifo_manager_v1 *fifo_manager;
	struct wp_commit_timing_manager_v1 *timing_manager;
	struct vitrail_surface_timing_v1 *timing; // feedback only
	struct wp_fifo_v1 *fifo;
	struct wp_commit_timer_v1 *timer;
	struct sc_buffer *buffers[NBUF];
	bool busy[NBUF]; // attached, not released yet
	int released;
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct client *c = data;
	if (strcmp(interface, wp_fifo_manager_v1_interface.name) == 0) {
		c->fifo_manager = wl_registry_bind(registry, name,
				&wp_fifo_manager_v1_interface, 1);
	} else if (strcmp(interface, wp_commit_timing_manager_v1_interface.name) ==
			0) {
		c->timing_manager = wl_registry_bind(registry, name,
				&wp_commit_timing_manager_v1_interface, 1);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void buffer_release(void *data, struct wl_buffer *buffer) {
	bool *busy = data;
	*busy = false;
}

static const struct wl_buffer_listener buffer_listener = {
	.release = buffer_release,
};

/* A client with a 64x64 window (window: else a bare wl_surface, no role,
 * never shown), its fifo and commit timer. */
static void client_start(struct client *c, struct harness_vitrail *vitrail,
		bool window) {
	*c = (struct client){ 0 };
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	ck_assert(sc_app_init(&c->app, "test-fifo"));
	c->registry = wl_display_get_registry(c->app.display);
	wl_registry_add_listener(c->registry, &registry_listener, c);
	ck_assert_int_ge(wl_display_roundtrip(c->app.display), 0);
	ck_assert_msg(c->fifo_manager != NULL, "no wp_fifo_manager_v1");
	ck_assert_msg(c->timing_manager != NULL, "no wp_commit_timing_manager_v1");
	ck_assert_msg(c->app.timing_manager != NULL,
			"no vitrail_frame_timing_manager_v1");
	if (window) {
		ck_assert(sc_app_create_window(&c->app, "fifo", "fifo", 64, 64,
				0xff404040));
	} else {
		c->app.surface = wl_compositor_create_surface(c->app.compositor);
	}
	for (int i = 0; i < NBUF; i++) {
		c->buffers[i] = sc_buffer_create(&c->app, 64, 64,
				WL_SHM_FORMAT_XRGB8888, 0xff000000 | (uint32_t)(i * 0x203040));
		wl_buffer_add_listener(c->buffers[i]->wl_buffer, &buffer_listener,
				&c->busy[i]);
	}
	c->timing = vitrail_frame_timing_manager_v1_get_surface_timing(
			c->app.timing_manager, c->app.surface);
	c->fifo = wp_fifo_manager_v1_get_fifo(c->fifo_manager, c->app.surface);
	c->timer = wp_commit_timing_manager_v1_get_timer(c->timing_manager,
			c->app.surface);
	ck_assert_int_ge(wl_display_roundtrip(c->app.display), 0);
}

static void client_finish(struct client *c) {
	if (c->fifo != NULL) {
		wp_fifo_v1_destroy(c->fifo);
	}
	if (c->timer != NULL) {
		wp_commit_timer_v1_destroy(c->timer);
	}
	if (c->timing != NULL) {
		vitrail_surface_timing_v1_destroy(c->timing);
	}
	wp_fifo_manager_v1_destroy(c->fifo_manager);
	wp_commit_timing_manager_v1_destroy(c->timing_manager);
	wl_registry_destroy(c->registry);
	for (int i = 0; i < NBUF; i++) {
		sc_buffer_destroy(c->buffers[i]);
	}
	sc_app_finish(&c->app);
}

/* Dispatch for ms, or until *flag. */
static void pump(struct client *c, int ms, const bool *flag) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(ms);
	while ((flag == NULL || !*flag) && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_flush(c->app.display), 0);
		struct pollfd pfd = { wl_display_get_fd(c->app.display), POLLIN, 0 };
		if (poll(&pfd, 1, 5) > 0) {
			ck_assert_int_ge(wl_display_dispatch(c->app.display), 0);
		} else {
			ck_assert_int_ge(wl_display_dispatch_pending(c->app.display), 0);
		}
	}
}

/* The connection died of a protocol error on iface with code. */
static void assert_error(struct client *c, const struct wl_interface *iface,
		uint32_t code, const char *what) {
	int ret = wl_display_roundtrip(c->app.display);
	ck_assert_msg(ret < 0, "%s: no protocol error", what);
	const struct wl_interface *got = NULL;
	uint32_t got_code =
			wl_display_get_protocol_error(c->app.display, &got, NULL);
	ck_assert_msg(got == iface && got_code == code,
			"%s: error %u on %s, expected %u on %s", what, got_code,
			got != NULL ? got->name : "?", code, iface->name);
}

static void set_timestamp(struct client *c, uint64_t ns) {
	uint64_t sec = ns / NSEC;
	wp_commit_timer_v1_set_timestamp(c->timer, (uint32_t)(sec >> 32),
			(uint32_t)sec, (uint32_t)(ns % NSEC));
}

/* ---- when a commit was shown ------------------------------------------ */

struct shown {
	struct vitrail_commit_feedback_v1 *proxy;
	bool done, presented;
	uint64_t at_ns; // presented at
	uint64_t display_ns; // the display time its frame was made for
	uint32_t refresh_ns; // 0: unknown
	uint32_t reason; // discarded: why
};

static void fb_presented(void *data, struct vitrail_commit_feedback_v1 *fb,
		uint32_t hi, uint32_t lo, uint32_t nsec, uint32_t thi, uint32_t tlo,
		uint32_t tnsec) {
	struct shown *s = data;
	s->done = s->presented = true;
	s->at_ns = ((uint64_t)hi << 32 | lo) * NSEC + nsec;
	s->display_ns = ((uint64_t)thi << 32 | tlo) * NSEC + tnsec;
	vitrail_commit_feedback_v1_destroy(fb);
}

static void fb_discarded(void *data, struct vitrail_commit_feedback_v1 *fb,
		uint32_t reason) {
	struct shown *s = data;
	s->done = true;
	s->reason = reason;
	vitrail_commit_feedback_v1_destroy(fb);
}

static const struct vitrail_commit_feedback_v1_listener fb_listener = {
	.presented = fb_presented,
	.discarded = fb_discarded,
};

/* Attach buffer i, damage, ask for feedback (s, or NULL), commit. */
static void commit(struct client *c, int i, struct shown *s) {
	wl_surface_attach(c->app.surface, c->buffers[i]->wl_buffer, 0, 0);
	c->busy[i] = true;
	wl_surface_damage_buffer(c->app.surface, 0, 0, 64, 64);
	if (s != NULL) {
		*s = (struct shown){ 0 };
		s->proxy = vitrail_surface_timing_v1_feedback(c->timing);
		vitrail_commit_feedback_v1_add_listener(s->proxy, &fb_listener, s);
	}
	wl_surface_commit(c->app.surface);
}

static void wait_shown(struct client *c, struct shown *s, int n) {
	for (int i = 0; i < n; i++) {
		pump(c, 10000, &s[i].done);
		ck_assert_msg(s[i].done, "no feedback for commit %d of %d", i, n);
	}
}

/* Frames for display times in [from, to] that the frame log (of the
 * last vitrail, stopped) says were dropped; fails when it has none of
 * them. */
static int dropped_frames(uint64_t from, uint64_t to) {
	struct harness_frame *frames = NULL;
	size_t n = harness_read_frame_log(frame_log, &frames);
	int dropped = 0, in_run = 0;
	for (size_t i = 0; i < n; i++) {
		if (frames[i].target_vblank_ns >= from &&
				frames[i].target_vblank_ns <= to) {
			in_run++;
			dropped += frames[i].dropped;
		}
	}
	free(frames);
	ck_assert_msg(in_run > 0, "no frame between %llu and %llu",
			(unsigned long long)from, (unsigned long long)to);
	return dropped;
}

/* ---- cases --------------------------------------------------------------- */

#define FRAMES 60

/*
 * A client that sets and waits for a barrier on each of 60 commits made
 * at once (Mesa's FIFO present mode): every one is presented (none is
 * replaced before a refresh showed it), each at its own refresh, one
 * after the other: no two at one vblank, no gap of more than two
 * periods.
 */
START_TEST(test_fifo_pacing) {
	struct harness *harness = harness_create("pacing");
	struct harness_vitrail *vitrail = start(harness);
	struct client c;
	client_start(&c, vitrail, true);
	static struct shown s[FRAMES];
	for (int i = 0; i < FRAMES; i++) {
		wp_fifo_v1_set_barrier(c.fifo);
		wp_fifo_v1_wait_barrier(c.fifo);
		commit(&c, i % NBUF, &s[i]);
	}
	ck_assert_int_ge(wl_display_flush(c.app.display), 0);
	wait_shown(&c, s, FRAMES);
	/* A frame this machine drops (rendered late, never shown) shows
	 * nothing: the commit it drew goes with the next frame, beside the
	 * one after it. So: at most as many commits not shown, shown at one
	 * vblank, or more than two periods after the one before, as frames
	 * the frame log says were dropped. */
	int faults = 0;
	char why[512] = "";
	for (int i = 0; i < FRAMES; i++) {
		if (!s[i].presented) {
			faults++;
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
					" %d not shown (reason %u);", i, s[i].reason);
			continue;
		}
		int j = i - 1;
		while (j >= 0 && !s[j].presented) {
			j--;
		}
		if (j < 0) {
			continue;
		}
		uint64_t gap = s[i].at_ns - s[j].at_ns;
		if (gap < PERIOD / 2 || gap > 2 * PERIOD + PERIOD / 2) {
			faults++;
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
					" %d after %d: %llu ns;", i, j, (unsigned long long)gap);
		}
	}
	uint64_t from = s[0].at_ns - PERIOD, to = s[FRAMES - 1].at_ns + PERIOD;
	/* the same client without barriers: several commits in one refresh,
	 * the older ones discarded (the oracle sees the difference) */
	static struct shown t[FRAMES];
	for (int i = 0; i < FRAMES; i++) {
		commit(&c, i % NBUF, &t[i]);
	}
	wait_shown(&c, t, FRAMES);
	int shown = 0;
	for (int i = 0; i < FRAMES; i++) {
		shown += t[i].presented;
	}
	ck_assert_msg(shown < FRAMES, "without barriers all %d shown", shown);
	client_finish(&c);
	harness_stop_vitrail(harness, vitrail);
	int dropped = dropped_frames(from, to);
	ck_assert_msg(faults <= dropped,
			"%d commits off one-per-refresh, %d frames dropped:%s", faults,
			dropped, why);
	harness_destroy(harness);
}
END_TEST

/* Wait until buffer b is released (false after ms). */
static bool wait_released(struct client *c, int b, int ms) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(ms);
	while (c->busy[b] && harness_now_ms() < deadline) {
		pump(c, 5, NULL);
	}
	return !c->busy[b];
}

/* 60 commits with barriers, each with the next buffer of 3, a buffer
 * reused only once released (a swapchain): returns the ns they took. */
static uint64_t swapchain(struct client *c) {
	uint64_t t0 = now_ns();
	for (int i = 0; i < FRAMES; i++) {
		int b = i % 3;
		ck_assert_msg(wait_released(c, b, 5000),
				"commit %d: buffer %d never released (the barrier stalls the "
				"client)",
				i, b);
		wp_fifo_v1_set_barrier(c->fifo);
		wp_fifo_v1_wait_barrier(c->fifo);
		commit(c, b, NULL);
		ck_assert_int_ge(wl_display_flush(c->app.display), 0);
	}
	return now_ns() - t0;
}

/*
 * A surface that is not shown never stalls on its barrier: a bare
 * wl_surface (no role, on no output), then a window whose only output was
 * unplugged, each a swapchain of 3 buffers committing with barriers: its
 * 60 commits complete (buffers come back) at about the refresh rate or
 * faster.
 */
START_TEST(test_fifo_not_shown) {
	struct harness *harness = harness_create("not_shown");
	struct harness_vitrail *vitrail = start(harness);
	struct client c;
	client_start(&c, vitrail, false);
	uint64_t took = swapchain(&c);
	ck_assert_msg(took < (uint64_t)harness_scaled_ms(4 * FRAMES * 17) * 1000000,
			"60 commits of a surface with no role took %llu ms",
			(unsigned long long)(took / 1000000));
	struct client w;
	client_start(&w, vitrail, true);
	harness_unplug_output(vitrail->conn, "HEADLESS-1");
	took = swapchain(&w);
	ck_assert_msg(took < (uint64_t)harness_scaled_ms(4 * FRAMES * 17) * 1000000,
			"60 commits of a window without an output took %llu ms",
			(unsigned long long)(took / 1000000));
	harness_assert_alive(vitrail->proc);
	client_finish(&w);
	client_finish(&c);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/*
 * Commit timing: commits for the next vblanks (k periods after one
 * presented, each target a vblank itself) are each presented at their
 * target (within half a period, never before); a target a second in the
 * past, or at the epoch, is presented at the next refresh or so.
 */
START_TEST(test_fifo_commit_timing) {
	struct harness *harness = harness_create("commit_timing");
	struct harness_vitrail *vitrail = start(harness);
	struct client c;
	client_start(&c, vitrail, true);
	struct shown first;
	commit(&c, 0, &first);
	wait_shown(&c, &first, 1);
	ck_assert(first.presented);
	uint64_t period = first.refresh_ns != 0 ? first.refresh_ns : PERIOD;
	/* targets 3..12 vblanks after the one shown, skipping some */
	static const int ks[] = { 3, 4, 5, 7, 8, 11, 12, 15, 16, 20 };
	enum { N = sizeof(ks) / sizeof(ks[0]) };
	struct shown s[N];
	uint64_t targets[N];
	for (int i = 0; i < N; i++) {
		targets[i] = first.at_ns + (uint64_t)ks[i] * period;
		set_timestamp(&c, targets[i]);
		commit(&c, (i + 1) % NBUF, &s[i]);
	}
	wait_shown(&c, s, N);
	/* never before its target; late (or not shown) only where this
	 * machine dropped a frame (the frame log says so, below) */
	int late = 0;
	char why[512] = "";
	for (int i = 0; i < N; i++) {
		int64_t off = (int64_t)(s[i].at_ns - targets[i]);
		if (!s[i].presented || off > (int64_t)period / 2) {
			late++;
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
					" %d: %lld ns off (shown %d);", i, (long long)off,
					s[i].presented);
			continue;
		}
		ck_assert_msg(off >= -2000,
				"target %d (+%d periods) shown %lld ns early", i, ks[i],
				(long long)-off);
	}
	uint64_t from = targets[0] - period, to = targets[N - 1] + period;
	/* in the past: at the next refresh or so */
	uint64_t pasts[] = { now_ns() - NSEC, 0 };
	for (int i = 0; i < 2; i++) {
		struct shown p;
		uint64_t t0 = now_ns();
		set_timestamp(&c, pasts[i]);
		commit(&c, i, &p);
		wait_shown(&c, &p, 1);
		ck_assert(p.presented);
		ck_assert_msg(p.at_ns - t0 <= 3 * period,
				"a past target shown %llu ns after its commit",
				(unsigned long long)(p.at_ns - t0));
	}
	/* one queue for the three protocols: a commit held by
	 * vitrail_frame_timing_v1 for 10 periods ahead, then one with a
	 * timestamp in the past, then one with a barrier: the later ones
	 * wait behind the first (in order), so none is shown before it */
	struct shown q[3];
	uint64_t ahead = now_ns() + 10 * period;
	uint64_t sec = ahead / NSEC;
	vitrail_surface_timing_v1_set_target_time(c.timing, (uint32_t)(sec >> 32),
			(uint32_t)sec, (uint32_t)(ahead % NSEC));
	commit(&c, 2, &q[0]);
	set_timestamp(&c, now_ns() - NSEC);
	commit(&c, 3, &q[1]);
	wp_fifo_v1_wait_barrier(c.fifo);
	commit(&c, 4, &q[2]);
	wait_shown(&c, q, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_msg(!q[i].presented || q[i].at_ns + period / 2 >= ahead,
				"commit %d shown %lld ns before the first one's target", i,
				(long long)(ahead - q[i].at_ns));
	}
	ck_assert_msg(q[2].presented, "the last one never shown");
	client_finish(&c);
	harness_stop_vitrail(harness, vitrail);
	int dropped = dropped_frames(from, to);
	ck_assert_msg(late <= dropped, "%d targets late, %d frames dropped:%s",
			late, dropped, why);
	harness_destroy(harness);
}
END_TEST

/* The client still served after another one's error. */
static void assert_serves(struct client *ok) {
	struct shown s;
	wp_fifo_v1_set_barrier(ok->fifo);
	wp_fifo_v1_wait_barrier(ok->fifo);
	commit(ok, 1, &s);
	wait_shown(ok, &s, 1);
	ck_assert(s.presented);
}

enum error_case {
	FIFO_TWICE,
	TIMER_TWICE,
	BAD_NSEC,
	TWO_TIMESTAMPS,
	BARRIER_GONE,
	WAIT_GONE,
	TIMESTAMP_GONE,
	ERROR_CASES,
};

/*
 * Every protocol error, each from a client of its own, with its code on
 * its interface; another client stays served after each.
 */
START_TEST(test_fifo_errors) {
	struct harness *harness = harness_create("errors");
	struct harness_vitrail *vitrail = start(harness);
	struct client ok;
	client_start(&ok, vitrail, true);
	for (int e = 0; e < ERROR_CASES; e++) {
		struct client c;
		client_start(&c, vitrail, false);
		switch (e) {
		case FIFO_TWICE:
			wp_fifo_v1_destroy(
					wp_fifo_manager_v1_get_fifo(c.fifo_manager, c.app.surface));
			assert_error(&c, &wp_fifo_manager_v1_interface,
					WP_FIFO_MANAGER_V1_ERROR_ALREADY_EXISTS, "second fifo");
			break;
		case TIMER_TWICE:
			wp_commit_timer_v1_destroy(wp_commit_timing_manager_v1_get_timer(
					c.timing_manager, c.app.surface));
			assert_error(&c, &wp_commit_timing_manager_v1_interface,
					WP_COMMIT_TIMING_MANAGER_V1_ERROR_COMMIT_TIMER_EXISTS,
					"second timer");
			break;
		case BAD_NSEC:
			wp_commit_timer_v1_set_timestamp(c.timer, 0, 1, 1000000000);
			assert_error(&c, &wp_commit_timer_v1_interface,
					WP_COMMIT_TIMER_V1_ERROR_INVALID_TIMESTAMP, "tv_nsec 1e9");
			break;
		case TWO_TIMESTAMPS:
			set_timestamp(&c, now_ns());
			set_timestamp(&c, now_ns());
			assert_error(&c, &wp_commit_timer_v1_interface,
					WP_COMMIT_TIMER_V1_ERROR_TIMESTAMP_EXISTS,
					"two timestamps in one commit");
			break;
		case BARRIER_GONE:
		case WAIT_GONE:
		case TIMESTAMP_GONE:
			wl_surface_destroy(c.app.surface);
			c.app.surface = NULL;
			if (e == BARRIER_GONE) {
				wp_fifo_v1_set_barrier(c.fifo);
				assert_error(&c, &wp_fifo_v1_interface,
						WP_FIFO_V1_ERROR_SURFACE_DESTROYED, "set_barrier");
			} else if (e == WAIT_GONE) {
				wp_fifo_v1_wait_barrier(c.fifo);
				assert_error(&c, &wp_fifo_v1_interface,
						WP_FIFO_V1_ERROR_SURFACE_DESTROYED, "wait_barrier");
			} else {
				set_timestamp(&c, now_ns());
				assert_error(&c, &wp_commit_timer_v1_interface,
						WP_COMMIT_TIMER_V1_ERROR_SURFACE_DESTROYED,
						"set_timestamp");
			}
			break;
		}
		client_finish(&c);
		harness_assert_alive(vitrail->proc);
		assert_serves(&ok);
	}
	/* not errors: a timestamp per commit, two commits; fifo and timer
	 * destroyed and made again */
	struct client c;
	client_start(&c, vitrail, true);
	struct shown s[2];
	for (int i = 0; i < 2; i++) {
		set_timestamp(&c, now_ns());
		commit(&c, i, &s[i]);
	}
	wait_shown(&c, s, 2);
	wp_fifo_v1_destroy(c.fifo);
	wp_commit_timer_v1_destroy(c.timer);
	c.fifo = wp_fifo_manager_v1_get_fifo(c.fifo_manager, c.app.surface);
	c.timer = wp_commit_timing_manager_v1_get_timer(c.timing_manager,
			c.app.surface);
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	client_finish(&c);
	client_finish(&ok);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

static void callback_done(void *data, struct wl_callback *callback,
		uint32_t time) {
	*(bool *)data = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener callback_listener = {
	.done = callback_done,
};

/*
 * Hostile: commits held an hour ahead behind barriers, then the surface
 * destroyed mid-queue (and the client gone); the highest timestamp there
 * is; a flood of 1000 commits with barriers: vitrail lives, the flood
 * drains (a frame callback on the last comes), and others are served.
 */
START_TEST(test_fifo_hostile) {
	struct harness *harness = harness_create("hostile");
	struct harness_vitrail *vitrail = start(harness);
	struct client ok;
	client_start(&ok, vitrail, true);
	struct client c;
	client_start(&c, vitrail, false);
	uint64_t hour = now_ns() + 3600 * NSEC;
	for (int i = 0; i < 20; i++) {
		wp_fifo_v1_set_barrier(c.fifo);
		wp_fifo_v1_wait_barrier(c.fifo);
		set_timestamp(&c, hour + (uint64_t)i * PERIOD);
		commit(&c, i % NBUF, NULL);
	}
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	wl_surface_destroy(c.app.surface);
	c.app.surface = NULL;
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	client_finish(&c);
	harness_assert_alive(vitrail->proc);
	assert_serves(&ok);

	/* the latest time the request can name, then the client leaves */
	client_start(&c, vitrail, false);
	wp_commit_timer_v1_set_timestamp(c.timer, UINT32_MAX, UINT32_MAX,
			999999999);
	commit(&c, 0, NULL);
	set_timestamp(&c, 0);
	commit(&c, 1, NULL);
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	client_finish(&c);
	harness_assert_alive(vitrail->proc);
	assert_serves(&ok);

	/* the flood */
	client_start(&c, vitrail, true);
	for (int i = 0; i < 1000; i++) {
		wp_fifo_v1_set_barrier(c.fifo);
		wp_fifo_v1_wait_barrier(c.fifo);
		commit(&c, i % NBUF, NULL);
		if (i % 50 == 0) {
			ck_assert_int_ge(wl_display_flush(c.app.display), 0);
		}
	}
	bool done = false;
	wl_callback_add_listener(wl_surface_frame(c.app.surface),
			&callback_listener, &done);
	wp_fifo_v1_wait_barrier(c.fifo);
	commit(&c, 0, NULL);
	pump(&c, 30000, &done);
	ck_assert_msg(done, "the flood never drained");
	harness_assert_alive(vitrail->proc);
	assert_serves(&ok);
	client_finish(&c);
	client_finish(&ok);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

int main(int argc, char *argv[]) {
	Suite *suite = suite_create("fifo");
	harness_add_case(suite, "pacing", test_fifo_pacing, 60);
	harness_add_case(suite, "not_shown", test_fifo_not_shown, 60);
	harness_add_case(suite, "commit_timing", test_fifo_commit_timing, 60);
	harness_add_case(suite, "errors", test_fifo_errors, 90);
	harness_add_case(suite, "hostile", test_fifo_hostile, 90);
	return harness_run_suite(suite, argc, argv);
}
