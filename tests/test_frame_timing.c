/*
 * vitrail_frame_timing_v1 (protocol/vitrail-frame-timing-v1.xml) against a
 * real vitrail, headless, one 640x480 output at 60 Hz (the model clock:
 * frames are shown exactly at their vblank). Every request, event and
 * error, the pre-render demo client on both pacing policies, and a client
 * that leaves with commits queued.
 *
 * Expected times come from the timeline vitrail sends (display times one
 * period apart) and from the feedback, not from vitrail's code.
 *
 * One TCase per case (one meson test each, suite `frame-timing`); run one
 * with `test-frame-timing <tcase>`.
 */
#define _GNU_SOURCE // asprintf, setenv
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wayland-client.h>

#include "harness.h"
#include "presentation-time-client-protocol.h"
#include "scene-client.h"

#define NSEC 1000000000ull
#define PERIOD 16666666ull
/* A display time reported by feedback against the one expected: the
 * headless vblank model is exact, whole nanoseconds of period drift. */
#define SLACK_NS 2000

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static uint64_t join(uint32_t hi, uint32_t lo, uint32_t nsec) {
	return ((uint64_t)hi << 32 | lo) * NSEC + nsec;
}

static void split(uint64_t ns, uint32_t *hi, uint32_t *lo, uint32_t *nsec) {
	*hi = (uint32_t)((ns / NSEC) >> 32);
	*lo = (uint32_t)(ns / NSEC);
	*nsec = (uint32_t)(ns % NSEC);
}

static struct harness_vitrail *start(struct harness *harness,
		const char *const *extra) {
	return harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "640x480",
					.extra_args = extra,
			});
}

/* A client with a 64x64 window and a timing object for its surface. */
struct client {
	struct sc_app app;
	struct vitrail_surface_timing_v1 *timing;
	struct sc_buffer *buffers[8];
};

static void client_start(struct client *c, struct harness_vitrail *vitrail) {
	*c = (struct client){ 0 };
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	ck_assert(sc_app_init(&c->app, "test-frame-timing"));
	ck_assert_msg(c->app.timing_manager != NULL,
			"no vitrail_frame_timing_manager_v1");
	ck_assert(sc_app_create_window(&c->app, "timing", "timing", 64, 64,
			0xff404040));
	for (int i = 0; i < 8; i++) {
		c->buffers[i] = sc_buffer_create(&c->app, 64, 64,
				WL_SHM_FORMAT_XRGB8888, 0xff000000 | (uint32_t)(i * 0x203040));
	}
	c->timing = vitrail_frame_timing_manager_v1_get_surface_timing(
			c->app.timing_manager, c->app.surface);
	ck_assert_int_ge(wl_display_roundtrip(c->app.display), 0);
}

static void client_finish(struct client *c) {
	if (c->timing != NULL) {
		vitrail_surface_timing_v1_destroy(c->timing);
	}
	for (int i = 0; i < 8; i++) {
		sc_buffer_destroy(c->buffers[i]);
	}
	sc_app_finish(&c->app);
}

/* The connection died of a protocol error on interface with code. */
static void assert_error(struct client *c, const struct wl_interface *iface,
		uint32_t code, const char *what) {
	int ret = wl_display_roundtrip(c->app.display);
	ck_assert_msg(ret < 0, "%s: no protocol error", what);
	const struct wl_interface *got = NULL;
	uint32_t got_code =
			wl_display_get_protocol_error(c->app.display, &got, NULL);
	ck_assert_msg(got == iface && got_code == code,
			"%s: error %u on %s, "
			"expected %u on %s",
			what, got_code, got != NULL ? got->name : "?", code, iface->name);
}

/* Dispatch for ms, or until *flag. */
static void pump(struct client *c, int ms, const bool *flag) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(ms);
	while ((flag == NULL || !*flag) && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_flush(c->app.display), 0);
		struct pollfd pfd = { wl_display_get_fd(c->app.display), POLLIN, 0 };
		if (poll(&pfd, 1, 10) > 0) {
			ck_assert_int_ge(wl_display_dispatch(c->app.display), 0);
		} else {
			ck_assert_int_ge(wl_display_dispatch_pending(c->app.display), 0);
		}
	}
}

/* ---- timeline ---------------------------------------------------------- */

struct timeline {
	uint64_t display[8], deadline[8];
	uint32_t refresh;
	int n;
	/* predicted_input events: the slot each follows, its position */
	int npred;
	int pred_slot[8];
	uint64_t pred_display[8];
	double pred_x[8], pred_y[8];
	bool done;
};

static void tl_slot(void *data, struct vitrail_frame_timeline_v1 *tl,
		uint32_t dhi, uint32_t dlo, uint32_t dns, uint32_t ehi, uint32_t elo,
		uint32_t ens, uint32_t refresh) {
	struct timeline *t = data;
	ck_assert_int_lt(t->n, 8);
	t->display[t->n] = join(dhi, dlo, dns);
	t->deadline[t->n] = join(ehi, elo, ens);
	t->refresh = refresh;
	t->n++;
}

static void tl_predicted_input(void *data, struct vitrail_frame_timeline_v1 *tl,
		uint32_t hi, uint32_t lo, uint32_t ns, wl_fixed_t x, wl_fixed_t y) {
	struct timeline *t = data;
	ck_assert_int_lt(t->npred, 8);
	ck_assert_msg(t->n > 0, "predicted_input before any slot");
	t->pred_slot[t->npred] = t->n - 1;
	t->pred_display[t->npred] = join(hi, lo, ns);
	t->pred_x[t->npred] = wl_fixed_to_double(x);
	t->pred_y[t->npred] = wl_fixed_to_double(y);
	t->npred++;
}

static void tl_done(void *data, struct vitrail_frame_timeline_v1 *tl) {
	struct timeline *t = data;
	t->done = true;
}

static const struct vitrail_frame_timeline_v1_listener tl_listener = {
	.slot = tl_slot,
	.predicted_input = tl_predicted_input,
	.done = tl_done,
};

static struct timeline get_timeline(struct client *c) {
	struct timeline t = { 0 };
	struct vitrail_frame_timeline_v1 *tl =
			vitrail_surface_timing_v1_get_timeline(c->timing);
	vitrail_frame_timeline_v1_add_listener(tl, &tl_listener, &t);
	pump(c, 5000, &t.done);
	ck_assert_msg(t.done, "no timeline done event");
	vitrail_frame_timeline_v1_destroy(tl);
	return t;
}

/* ---- feedback ------------------------------------------------------------ */

struct feedback {
	bool done, presented;
	uint32_t reason;
	uint64_t shown_ns, target_ns;
	struct vitrail_commit_feedback_v1 *proxy;
};

static void fb_presented(void *data, struct vitrail_commit_feedback_v1 *fb,
		uint32_t hi, uint32_t lo, uint32_t ns, uint32_t thi, uint32_t tlo,
		uint32_t tns) {
	struct feedback *f = data;
	ck_assert_msg(!f->done, "a second event on one feedback");
	f->done = f->presented = true;
	f->shown_ns = join(hi, lo, ns);
	f->target_ns = join(thi, tlo, tns);
}

static void fb_discarded(void *data, struct vitrail_commit_feedback_v1 *fb,
		uint32_t reason) {
	struct feedback *f = data;
	ck_assert_msg(!f->done, "a second event on one feedback");
	f->done = true;
	f->reason = reason;
}

static const struct vitrail_commit_feedback_v1_listener fb_listener = {
	.presented = fb_presented,
	.discarded = fb_discarded,
};

static void ask_feedback(struct client *c, struct feedback *f) {
	*f = (struct feedback){ 0 };
	f->proxy = vitrail_surface_timing_v1_feedback(c->timing);
	vitrail_commit_feedback_v1_add_listener(f->proxy, &fb_listener, f);
}

static void target(struct client *c, uint64_t ns) {
	uint32_t hi, lo, nsec;
	split(ns, &hi, &lo, &nsec);
	vitrail_surface_timing_v1_set_target_time(c->timing, hi, lo, nsec);
}

static void show(struct client *c, int buffer) {
	wl_surface_attach(c->app.surface, c->buffers[buffer]->wl_buffer, 0, 0);
	wl_surface_damage_buffer(c->app.surface, 0, 0, 64, 64);
	wl_surface_commit(c->app.surface);
}

static void wait_feedback(struct client *c, struct feedback *f, int n) {
	for (int i = 0; i < n; i++) {
		pump(c, 5000, &f[i].done);
		ck_assert_msg(f[i].done, "no feedback for commit %d", i);
		vitrail_commit_feedback_v1_destroy(f[i].proxy);
		f[i].proxy = NULL;
	}
}

/* ---- cases --------------------------------------------------------------- */

/*
 * The timeline: as many slots as the pre-render limit, one refresh apart,
 * the first in the future, each deadline before its display time; a new
 * limit applies at commit; with commits queued, the slots come after the
 * last queued target.
 */
START_TEST(test_frame_timing_timeline) {
	struct harness *harness = harness_create("timeline");
	struct harness_vitrail *vitrail = start(harness, NULL);
	struct client c;
	client_start(&c, vitrail);

	uint64_t before = now_ns();
	struct timeline t = get_timeline(&c);
	ck_assert_int_eq(t.n, 3); // the default limit
	ck_assert_uint_eq(t.refresh, PERIOD);
	// the first slot the composition estimate can make: the estimate is
	// at most 3 periods (pacer.c), more than one only on a loaded machine
	// whose first frames were slow
	ck_assert_uint_gt(t.display[0], before);
	ck_assert_uint_lt(t.display[0], before + 4 * PERIOD);
	for (int i = 0; i < t.n; i++) {
		ck_assert_uint_lt(t.deadline[i], t.display[i]);
		ck_assert_uint_ge(t.deadline[i] + 3 * PERIOD, t.display[i]);
		if (i > 0) {
			ck_assert_uint_eq(t.display[i] - t.display[i - 1], PERIOD);
		}
	}

	vitrail_surface_timing_v1_set_prerender_limit(c.timing, 5);
	t = get_timeline(&c);
	ck_assert_int_eq(t.n, 3); // double-buffered: not before the commit
	wl_surface_commit(c.app.surface);
	t = get_timeline(&c);
	ck_assert_int_eq(t.n, 5);

	// two commits queued for slots 3 and 4: the next slots follow them
	struct feedback f[2];
	ask_feedback(&c, &f[0]);
	target(&c, t.display[3]);
	show(&c, 1);
	ask_feedback(&c, &f[1]);
	target(&c, t.display[4]);
	show(&c, 2);
	struct timeline after = get_timeline(&c);
	ck_assert_int_eq(after.n, 5);
	ck_assert_uint_eq(after.display[0], t.display[4] + PERIOD);
	wait_feedback(&c, f, 2);

	client_finish(&c);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/*
 * Three commits for three consecutive slots and one without a target
 * behind them. What always holds, however loaded the machine: none is
 * shown before its target, each shown one is shown at a vblank of the
 * grid, in order, and a commit is replaced only when the frame for its
 * slot came late (the next one was due by then too); the untargeted one
 * is shown a refresh or more after the last targeted one. On time (shown
 * exactly at its target) is printed; the demo case checks that most are.
 */
START_TEST(test_frame_timing_queued) {
	struct harness *harness = harness_create("queued");
	struct harness_vitrail *vitrail = start(harness, NULL);
	struct client c;
	client_start(&c, vitrail);

	struct timeline t = get_timeline(&c);
	struct feedback f[4];
	uint64_t want[3];
	for (int i = 0; i < 3; i++) {
		// three slots later: room to spare on a loaded machine
		want[i] = t.display[i] + 3 * PERIOD;
		ask_feedback(&c, &f[i]);
		target(&c, want[i]);
		show(&c, i + 1);
	}
	ask_feedback(&c, &f[3]);
	show(&c, 4); // no target: the refresh after the third
	wait_feedback(&c, f, 4);
	int on_time = 0;
	uint64_t last_shown = 0;
	for (int i = 0; i < 4; i++) {
		if (!f[i].presented) {
			ck_assert_msg(
					f[i].reason == VITRAIL_COMMIT_FEEDBACK_V1_REASON_REPLACED &&
							i < 3,
					"commit %d discarded (%u)", i, f[i].reason);
			// replaced: the frame that showed a later one came after
			// this one's slot
			int j = i + 1;
			while (j < 4 && !f[j].presented) {
				j++;
			}
			ck_assert_msg(j < 4 && f[j].shown_ns > want[i] + PERIOD / 2,
					"commit %d replaced though its slot was not missed", i);
			continue;
		}
		if (i < 3) {
			ck_assert_msg(f[i].shown_ns + SLACK_NS >= want[i],
					"commit %d "
					"shown %.3f ms before its target",
					i, ((double)want[i] - (double)f[i].shown_ns) / 1e6);
			uint64_t late = f[i].shown_ns + SLACK_NS - want[i];
			ck_assert_msg(late % PERIOD <= 2 * SLACK_NS,
					"commit %d shown "
					"off the vblank grid (%.3f ms late)",
					i, late / 1e6);
			on_time += late <= 2 * SLACK_NS;
		}
		ck_assert_msg(f[i].shown_ns > last_shown,
				"commit %d shown before "
				"the one ahead of it",
				i);
		ck_assert_uint_le(f[i].target_ns, f[i].shown_ns + SLACK_NS);
		last_shown = f[i].shown_ns;
	}
	ck_assert_msg(f[3].presented, "the untargeted commit was discarded");
	uint64_t last_targeted = f[2].presented ? f[2].shown_ns : 0;
	ck_assert_msg(f[3].shown_ns + SLACK_NS >= last_targeted + PERIOD,
			"the untargeted commit was shown %+.3f ms after the last targeted "
			"one",
			((double)f[3].shown_ns - (double)last_targeted) / 1e6);
	printf("queued: %d of 3 commits shown exactly at their target\n", on_time);

	client_finish(&c);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/*
 * replaced: two commits with no target back to back (no frame between
 * them): the first is replaced, the second shown. Two commits both due
 * already (targets in the past): the frame shows the second, the first is
 * replaced. A commit far ahead whose surface is destroyed:
 * surface_destroyed.
 */
START_TEST(test_frame_timing_discarded) {
	struct harness *harness = harness_create("discarded");
	struct harness_vitrail *vitrail = start(harness, NULL);
	struct client c;
	client_start(&c, vitrail);

	struct feedback f[2];
	ask_feedback(&c, &f[0]);
	show(&c, 1);
	ask_feedback(&c, &f[1]);
	show(&c, 2);
	wait_feedback(&c, f, 2);
	ck_assert_msg(!f[0].presented &&
					f[0].reason == VITRAIL_COMMIT_FEEDBACK_V1_REASON_REPLACED,
			"the overtaken commit: presented %d reason %u", f[0].presented,
			f[0].reason);
	ck_assert(f[1].presented);

	uint64_t past = now_ns() - 10 * PERIOD;
	ask_feedback(&c, &f[0]);
	target(&c, past);
	show(&c, 3);
	ask_feedback(&c, &f[1]);
	target(&c, past + PERIOD);
	show(&c, 4);
	wait_feedback(&c, f, 2);
	ck_assert_msg(!f[0].presented &&
					f[0].reason == VITRAIL_COMMIT_FEEDBACK_V1_REASON_REPLACED,
			"the earlier due commit: presented %d reason %u", f[0].presented,
			f[0].reason);
	ck_assert(f[1].presented);

	ask_feedback(&c, &f[0]);
	target(&c, now_ns() + 2 * NSEC);
	show(&c, 5);
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	// the window's surface goes: the timing object stays, inert
	xdg_toplevel_destroy(c.app.xdg_toplevel);
	c.app.xdg_toplevel = NULL;
	xdg_surface_destroy(c.app.xdg_surface);
	c.app.xdg_surface = NULL;
	wl_surface_destroy(c.app.surface);
	c.app.surface = NULL;
	wait_feedback(&c, f, 1);
	ck_assert_msg(!f[0].presented &&
					f[0].reason ==
							VITRAIL_COMMIT_FEEDBACK_V1_REASON_SURFACE_DESTROYED,
			"presented %d reason %u", f[0].presented, f[0].reason);
	// and its requests are the surface_gone error
	vitrail_surface_timing_v1_set_prerender_limit(c.timing, 2);
	assert_error(&c, &vitrail_surface_timing_v1_interface,
			VITRAIL_SURFACE_TIMING_V1_ERROR_SURFACE_GONE, "surface_gone");

	client_finish(&c);
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* Every error, each on a connection of its own; vitrail carries on. */
START_TEST(test_frame_timing_errors) {
	struct harness *harness = harness_create("errors");
	struct harness_vitrail *vitrail = start(harness, NULL);
	struct client c;

	client_start(&c, vitrail);
	struct vitrail_surface_timing_v1 *second =
			vitrail_frame_timing_manager_v1_get_surface_timing(
					c.app.timing_manager, c.app.surface);
	assert_error(&c, &vitrail_frame_timing_manager_v1_interface,
			VITRAIL_FRAME_TIMING_MANAGER_V1_ERROR_ALREADY_EXISTS,
			"already_exists");
	vitrail_surface_timing_v1_destroy(second);
	client_finish(&c);

	client_start(&c, vitrail);
	vitrail_surface_timing_v1_set_path(c.timing, 7);
	assert_error(&c, &vitrail_surface_timing_v1_interface,
			VITRAIL_SURFACE_TIMING_V1_ERROR_INVALID_PATH, "invalid_path");
	client_finish(&c);

	for (uint32_t limit = 0; limit <= 6; limit += 6) {
		client_start(&c, vitrail);
		vitrail_surface_timing_v1_set_prerender_limit(c.timing, limit);
		assert_error(&c, &vitrail_surface_timing_v1_interface,
				VITRAIL_SURFACE_TIMING_V1_ERROR_INVALID_LIMIT, "invalid_limit");
		client_finish(&c);
	}

	client_start(&c, vitrail);
	vitrail_surface_timing_v1_set_input_prediction(c.timing, 3);
	assert_error(&c, &vitrail_surface_timing_v1_interface,
			VITRAIL_SURFACE_TIMING_V1_ERROR_INVALID_MODEL, "invalid_model");
	client_finish(&c);

	client_start(&c, vitrail);
	vitrail_surface_timing_v1_set_target_time(c.timing, 0, 1, 1000000000);
	assert_error(&c, &vitrail_surface_timing_v1_interface,
			VITRAIL_SURFACE_TIMING_V1_ERROR_INVALID_TIME, "invalid_time");
	client_finish(&c);

	// 64 commits wait a minute ahead; a 65th target is one too many
	client_start(&c, vitrail);
	uint64_t far = now_ns() + 60 * NSEC;
	for (int i = 0; i < 64; i++) {
		target(&c, far + (uint64_t)i * PERIOD);
		show(&c, i % 8);
	}
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	target(&c, far + 64 * PERIOD);
	assert_error(&c, &vitrail_surface_timing_v1_interface,
			VITRAIL_SURFACE_TIMING_V1_ERROR_QUEUE_FULL, "queue_full");
	client_finish(&c);

	// vitrail and a well-behaved client are fine afterwards
	harness_assert_alive(vitrail->proc);
	client_start(&c, vitrail);
	struct timeline t = get_timeline(&c);
	ck_assert_int_eq(t.n, 3);
	client_finish(&c);
	harness_settle(vitrail->conn);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* A client that leaves (killed) with commits queued a second ahead:
 * vitrail releases them with the surface and goes on. */
START_TEST(test_frame_timing_disconnect_queued) {
	struct harness *harness = harness_create("disconnect_queued");
	struct harness_vitrail *vitrail = start(harness, NULL);
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		// gone without a word: the process ends with everything held
		struct client c;
		client_start(&c, vitrail);
		uint64_t ahead = now_ns() + NSEC;
		for (int i = 0; i < 10; i++) {
			target(&c, ahead + (uint64_t)i * PERIOD);
			show(&c, i % 8);
		}
		_exit(wl_display_roundtrip(c.app.display) >= 0 ? 0 : 1);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			"the client failed: 0x%x", status);
	harness_wait_for_window_count(vitrail->conn, 0, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_assert_alive(vitrail->proc);
	struct client d;
	client_start(&d, vitrail);
	struct timeline t = get_timeline(&d);
	ck_assert_int_eq(t.n, 3);
	client_finish(&d);
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
 * The timing object destroyed with a commit queued a minute ahead, a
 * frame callback on it, in one flush (the commit handlers run while the
 * held states are released): vitrail lives, the commit applies at once
 * (its frame callback comes), its feedback is not_shown, and a new
 * timing object on the surface works.
 */
START_TEST(test_frame_timing_destroy_queued) {
	struct harness *harness = harness_create("destroy_queued");
	struct harness_vitrail *vitrail = start(harness, NULL);
	struct client c;
	client_start(&c, vitrail);
	struct feedback f[2];
	ask_feedback(&c, &f[0]);
	target(&c, now_ns() + 60 * NSEC);
	bool done = false;
	wl_callback_add_listener(wl_surface_frame(c.app.surface),
			&callback_listener, &done);
	show(&c, 1);
	ask_feedback(&c, &f[1]);
	show(&c, 2); // behind it, no target
	vitrail_surface_timing_v1_destroy(c.timing);
	c.timing = NULL;
	pump(&c, 5000, &done);
	ck_assert_msg(done, "the held commit did not apply");
	wait_feedback(&c, f, 2);
	ck_assert_msg(!f[0].presented &&
					f[0].reason == VITRAIL_COMMIT_FEEDBACK_V1_REASON_NOT_SHOWN,
			"presented %d reason %u", f[0].presented, f[0].reason);
	harness_assert_alive(vitrail->proc);
	c.timing = vitrail_frame_timing_manager_v1_get_surface_timing(
			c.app.timing_manager, c.app.surface);
	struct timeline t = get_timeline(&c);
	ck_assert_int_eq(t.n, 3);
	client_finish(&c);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- the demo client ---------------------------------------------------- */

/* A sanitizer build (meson's b_sanitize, from the environment). */
static bool sanitized(void) {
	const char *s = getenv("VITRAIL_TEST_SANITIZER");
	return s != NULL && s[0] != '\0' && strcmp(s, "none") != 0;
}

struct demo_result {
	int shown, pre, vsync, discarded, on_time;
	double worst_ms;
};

static struct demo_result run_demo(struct harness *harness,
		struct harness_vitrail *vitrail) {
	const char *demo = getenv("VITRAIL_PRERENDER_DEMO");
	const char *argv[] = { demo != NULL ? demo : "vitrail-prerender-demo",
		"--frames", "180", "--switch-after", "90", NULL };
	struct harness_proc *proc;
	int status = harness_run_client(harness, vitrail, argv, 30000, &proc);
	char *log = harness_proc_log(proc);
	ck_assert_msg(status == 0, "the demo failed (%d):\n%s", status, log);
	struct demo_result r = { 0 };
	const char *line = strstr(log, "prerender-demo: shown");
	ck_assert_msg(line != NULL &&
					sscanf(line,
							"prerender-demo: shown %d "
							"(pre_render %d, vsync %d) discarded %d on_time %d "
							"worst_ms %lf",
							&r.shown, &r.pre, &r.vsync, &r.discarded,
							&r.on_time, &r.worst_ms) == 6,
			"no result line:\n%s", log);
	printf("%s", line);
	free(log);
	return r;
}

/* Fraction of frames vitrail rendered with more than one frame of the
 * output queued (rendered ahead of the display). */
static double frames_ahead(const char *frame_log) {
	struct csv csv;
	ck_assert(csv_open(&csv, frame_log));
	int col = harness_csv_column(&csv, frame_log, "in_flight");
	size_t ahead = 0, rows = 0;
	while (csv_next(&csv)) {
		rows++;
		ahead += csv_u64(&csv, col) > 1;
	}
	csv_close(&csv);
	return rows > 0 ? (double)ahead / (double)rows : 0;
}

/*
 * The demo, 90 frames on pre_render then 90 on vsync, under both pacing
 * policies: frames are shown (on time, mostly: the machine is shared), the
 * switch happens at run time, and under dvsync vitrail renders its own
 * frames ahead with the client's queued ones (frames queued > 1), which
 * under vsync it never does.
 */
START_TEST(test_frame_timing_demo) {
	const char *pacing[2] = { "vsync", "dvsync" };
	double ahead[2];
	for (int p = 0; p < 2; p++) {
		struct harness *harness = harness_create(pacing[p]);
		char *frame_log = NULL;
		ck_assert(asprintf(&frame_log, "%s/frames.csv", harness->out_dir) > 0);
		const char *extra[] = { "--pacing", pacing[p], "--frame-log", frame_log,
			NULL };
		struct harness_vitrail *vitrail = start(harness, extra);
		struct demo_result r = run_demo(harness, vitrail);
		ck_assert_int_ge(r.shown + r.discarded, 180);
		ck_assert_int_ge(r.pre, 60);
		ck_assert_int_ge(r.vsync, 60);
		if (!sanitized()) {
			ck_assert_msg(r.on_time * 10 >= r.shown * 7,
					"%s: %d of %d "
					"frames on time",
					pacing[p], r.on_time, r.shown);
		}
		harness_stop_vitrail(harness, vitrail);
		ahead[p] = frames_ahead(frame_log);
		printf("%s: %.0f%% of vitrail's frames rendered ahead\n", pacing[p],
				ahead[p] * 100);
		free(frame_log);
		harness_destroy(harness);
	}
	if (sanitized()) {
		// several times slower renders: timing is not what is tested
		printf("demo: timing not checked under %s\n",
				getenv("VITRAIL_TEST_SANITIZER"));
		return;
	}
	ck_assert_msg(ahead[0] < 0.05, "vsync rendered %.0f%% ahead",
			ahead[0] * 100);
	ck_assert_msg(ahead[1] > 0.2,
			"dvsync rendered only %.0f%% of its frames "
			"ahead with the pre_render client",
			ahead[1] * 100);
}
END_TEST

/* ---- input prediction ---------------------------------------------------- */

#define BTN_LEFT 0x110
#define SAMPLE_MS 8

/* A drag along x(t) = x0 + v t + acc t² / 2 (px, t in ms from the first
 * sample), one pointer_move every SAMPLE_MS. */
struct drag {
	double x0, y, v, acc;
	uint64_t t0;
	double last_x; // where the last sample put the pointer
};

static double drag_x(const struct drag *d, uint64_t ns) {
	double t = ((double)ns - (double)d->t0) / 1e6;
	return d->x0 + d->v * t + d->acc * t * t / 2;
}

static void sleep_until(uint64_t ns) {
	struct timespec ts = { (time_t)(ns / NSEC), (long)(ns % NSEC) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
	}
}

/* A sample sent later than this after its time, or handled later than
 * this after it was sent, makes the drag late (a loaded machine). */
#define SAMPLE_SLACK_NS 3000000u

/* Samples 1..n of the drag (sample 0, at d->t0, placed the pointer).
 * Each position is the curve's at the time the move is sent; vitrail
 * stamps it on arrival, a fraction of a millisecond later. False when a
 * sample was late: its time stamp is off the curve, and the pointer may
 * have left the 64x64 surface (vitrail has no implicit grab). */
static bool drag_samples(struct harness_conn *conn, struct drag *d, int n) {
	bool on_time = true;
	for (int i = 1; i <= n; i++) {
		uint64_t due = d->t0 + (uint64_t)i * SAMPLE_MS * 1000000u;
		sleep_until(due);
		uint64_t t = now_ns();
		d->last_x = drag_x(d, t);
		harness_pointer_move(conn, d->last_x, d->y);
		on_time &=
				t - due <= SAMPLE_SLACK_NS && now_ns() - t <= SAMPLE_SLACK_NS;
	}
	return on_time;
}

/* Place the pointer at the drag's start, press, then move; on a loaded
 * machine, until a drag was on time (at most 20 tries). */
static void drag_pressed(struct harness_conn *conn, struct drag *d, int n) {
	for (int try = 0; try < 20; try++) {
		if (try > 0) {
			harness_pointer_button(conn, BTN_LEFT, false);
			usleep(20000);
		}
		d->t0 = now_ns();
		harness_pointer_move(conn, d->x0, d->y);
		harness_pointer_button(conn, BTN_LEFT, true);
		if (now_ns() - d->t0 <= SAMPLE_SLACK_NS && drag_samples(conn, d, n)) {
			return;
		}
		printf("drag %d late, again\n", try);
	}
	ck_abort_msg("no drag on time in 20 tries: the machine is too busy");
}

/* Every slot has its predicted_input, at the drag's position at the
 * slot's display time (in surface coordinates: less the window's), to
 * within tolerance px plus rel times the distance from the last sample
 * (an extrapolation far ahead magnifies the samples' timing noise). */
static void assert_predicted(const struct timeline *t, const struct drag *d,
		double wx, double wy, double tolerance_px, double rel,
		const char *what) {
	ck_assert_msg(t->npred == t->n, "%s: %d predicted_input for %d slots", what,
			t->npred, t->n);
	for (int i = 0; i < t->npred; i++) {
		ck_assert_int_eq(t->pred_slot[i], i);
		ck_assert_uint_eq(t->pred_display[i], t->display[i]);
		double x = drag_x(d, t->display[i]) - wx;
		double y = d->y - wy;
		double tolerance =
				tolerance_px + rel * fabs(drag_x(d, t->display[i]) - d->last_x);
		printf("%s: slot %d, %.1f ms ahead: predicted %.2f, %.2f; "
			   "expected %.2f, %.2f\n",
				what, i, ((double)t->display[i] - (double)now_ns()) / 1e6,
				t->pred_x[i], t->pred_y[i], x, y);
		ck_assert_msg(fabs(t->pred_x[i] - x) <= tolerance &&
						fabs(t->pred_y[i] - y) <= tolerance,
				"%s: slot %d: predicted %.2f, %.2f, expected %.2f, %.2f "
				"(+-%.1f)",
				what, i, t->pred_x[i], t->pred_y[i], x, y, tolerance);
	}
}

/*
 * A pre_render surface with input prediction while the emulated pointer
 * drags over it: each slot of the timeline comes with the position at its
 * display time, extrapolated from the drag's samples: linear at constant
 * velocity, quadratic at constant acceleration. None once the button is
 * released, nor with the model none, nor on the vsync path.
 */
START_TEST(test_frame_timing_prediction) {
	struct harness *harness = harness_create("prediction");
	struct harness_vitrail *vitrail = start(harness, NULL);
	struct client c;
	client_start(&c, vitrail);
	wl_surface_commit(c.app.surface); // maps the window
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const struct harness_window *win =
			harness_find_window(vitrail->conn, "timing");
	ck_assert_msg(win != NULL, "no window timing");
	double wx = win->x, wy = win->y;

	vitrail_surface_timing_v1_set_path(c.timing,
			VITRAIL_SURFACE_TIMING_V1_PATH_PRE_RENDER);
	vitrail_surface_timing_v1_set_input_prediction(c.timing,
			VITRAIL_SURFACE_TIMING_V1_INPUT_MODEL_LINEAR);
	wl_surface_commit(c.app.surface);
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);

	// no button held: slots only
	harness_pointer_move(vitrail->conn, wx + 8, wy + 32);
	struct timeline t = get_timeline(&c);
	ck_assert_int_eq(t.n, 3);
	ck_assert_int_eq(t.npred, 0);

	// linear: 0.5 px/ms (4 px per 8 ms), 8 samples after the first
	struct drag lin = { .x0 = wx + 4, .y = wy + 32, .v = 0.5 };
	drag_pressed(vitrail->conn, &lin, 8);
	t = get_timeline(&c);
	ck_assert_int_eq(t.n, 3);
	assert_predicted(&t, &lin, wx, wy, 3, 0, "linear");

	// quadratic: accelerating at 0.015 px/ms²; the constant-velocity
	// extrapolation would fall behind by 0.0075 t² (19 px 50 ms ahead,
	// 75 px 100 ms ahead), far beyond 8 px plus 5% of the distance from
	// the last sample (a CI run on a loaded machine: 8.2 px off, 160 px
	// ahead)
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	vitrail_surface_timing_v1_set_input_prediction(c.timing,
			VITRAIL_SURFACE_TIMING_V1_INPUT_MODEL_QUADRATIC);
	wl_surface_commit(c.app.surface);
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	struct drag quad = { .x0 = wx + 4, .y = wy + 32, .v = 0.1, .acc = 0.015 };
	drag_pressed(vitrail->conn, &quad, 8);
	t = get_timeline(&c);
	assert_predicted(&t, &quad, wx, wy, 8, 0.05, "quadratic");

	// released: nothing held, nothing predicted
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);
	t = get_timeline(&c);
	ck_assert_int_eq(t.n, 3);
	ck_assert_int_eq(t.npred, 0);

	// held again, model none: nothing
	vitrail_surface_timing_v1_set_input_prediction(c.timing,
			VITRAIL_SURFACE_TIMING_V1_INPUT_MODEL_NONE);
	wl_surface_commit(c.app.surface);
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	drag_pressed(vitrail->conn, &lin, 4);
	t = get_timeline(&c);
	ck_assert_int_eq(t.n, 3);
	ck_assert_int_eq(t.npred, 0);

	// linear on the vsync path: nothing
	vitrail_surface_timing_v1_set_input_prediction(c.timing,
			VITRAIL_SURFACE_TIMING_V1_INPUT_MODEL_LINEAR);
	vitrail_surface_timing_v1_set_path(c.timing,
			VITRAIL_SURFACE_TIMING_V1_PATH_VSYNC);
	wl_surface_commit(c.app.surface);
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	t = get_timeline(&c);
	ck_assert_int_eq(t.n, 3);
	ck_assert_int_eq(t.npred, 0);

	// back on pre_render, the pointer still, button held: the position
	// it rests at (its samples aged past 100 ms)
	vitrail_surface_timing_v1_set_path(c.timing,
			VITRAIL_SURFACE_TIMING_V1_PATH_PRE_RENDER);
	wl_surface_commit(c.app.surface);
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	usleep(150000);
	double rest = lin.last_x - wx;
	t = get_timeline(&c);
	ck_assert_int_eq(t.npred, t.n);
	for (int i = 0; i < t.npred; i++) {
		ck_assert_msg(fabs(t.pred_x[i] - rest) <= 0.5,
				"still: predicted %.2f, resting at %.2f", t.pred_x[i], rest);
	}
	harness_pointer_button(vitrail->conn, BTN_LEFT, false);

	client_finish(&c);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- the low-latency path (version 2) ------------------------------------ */

/* Bind vitrail_frame_timing_manager_v1 at version 1 on the client's own
 * connection. */
static void registry_v1(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	if (strcmp(interface, vitrail_frame_timing_manager_v1_interface.name) ==
			0) {
		*(struct vitrail_frame_timing_manager_v1 **)data = wl_registry_bind(
				registry, name, &vitrail_frame_timing_manager_v1_interface, 1);
	}
}

static void registry_v1_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_v1_listener = {
	.global = registry_v1,
	.global_remove = registry_v1_remove,
};

/*
 * Errors of version 2 and of wp_tearing_control_v1: low_latency on a
 * version 1 object, set_tearing other than 0 or 1, a second tearing
 * control, a presentation hint that is not one; then vitrail and a
 * well-behaved client carry on.
 */
START_TEST(test_frame_timing_low_latency_errors) {
	struct harness *harness = harness_create("low_latency_errors");
	struct harness_vitrail *vitrail = start(harness, NULL);
	struct client c;

	client_start(&c, vitrail);
	ck_assert_uint_eq(
			vitrail_frame_timing_manager_v1_get_version(c.app.timing_manager),
			2);
	struct vitrail_frame_timing_manager_v1 *v1 = NULL;
	struct wl_registry *registry = wl_display_get_registry(c.app.display);
	wl_registry_add_listener(registry, &registry_v1_listener, &v1);
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	ck_assert_ptr_nonnull(v1);
	vitrail_surface_timing_v1_destroy(c.timing);
	c.timing = vitrail_frame_timing_manager_v1_get_surface_timing(v1,
			c.app.surface);
	vitrail_surface_timing_v1_set_path(c.timing,
			VITRAIL_SURFACE_TIMING_V1_PATH_LOW_LATENCY);
	assert_error(&c, &vitrail_surface_timing_v1_interface,
			VITRAIL_SURFACE_TIMING_V1_ERROR_UNSUPPORTED_PATH,
			"unsupported_path on version 1");
	vitrail_frame_timing_manager_v1_destroy(v1);
	wl_registry_destroy(registry);
	client_finish(&c);

	client_start(&c, vitrail);
	vitrail_surface_timing_v1_set_tearing(c.timing, 2);
	assert_error(&c, &vitrail_surface_timing_v1_interface,
			VITRAIL_SURFACE_TIMING_V1_ERROR_INVALID_TEARING, "invalid_tearing");
	client_finish(&c);

	client_start(&c, vitrail);
	ck_assert_ptr_nonnull(c.app.tearing_manager);
	struct wp_tearing_control_v1 *t1 =
			wp_tearing_control_manager_v1_get_tearing_control(
					c.app.tearing_manager, c.app.surface);
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	struct wp_tearing_control_v1 *t2 =
			wp_tearing_control_manager_v1_get_tearing_control(
					c.app.tearing_manager, c.app.surface);
	assert_error(&c, &wp_tearing_control_manager_v1_interface,
			WP_TEARING_CONTROL_MANAGER_V1_ERROR_TEARING_CONTROL_EXISTS,
			"tearing_control_exists");
	wp_tearing_control_v1_destroy(t2);
	wp_tearing_control_v1_destroy(t1);
	client_finish(&c);

	client_start(&c, vitrail);
	t1 = wp_tearing_control_manager_v1_get_tearing_control(
			c.app.tearing_manager, c.app.surface);
	wp_tearing_control_v1_set_presentation_hint(t1, 9);
	assert_error(&c, &wl_display_interface, WL_DISPLAY_ERROR_IMPLEMENTATION,
			"presentation hint 9");
	wp_tearing_control_v1_destroy(t1);
	client_finish(&c);

	// the valid requests are taken; a tearing control destroyed before
	// its surface, and one left on a destroyed surface, are fine
	client_start(&c, vitrail);
	vitrail_surface_timing_v1_set_path(c.timing,
			VITRAIL_SURFACE_TIMING_V1_PATH_LOW_LATENCY);
	vitrail_surface_timing_v1_set_tearing(c.timing, 1);
	vitrail_surface_timing_v1_set_tearing(c.timing, 0);
	t1 = wp_tearing_control_manager_v1_get_tearing_control(
			c.app.tearing_manager, c.app.surface);
	wp_tearing_control_v1_set_presentation_hint(t1,
			WP_TEARING_CONTROL_V1_PRESENTATION_HINT_ASYNC);
	show(&c, 1);
	ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
	/* the proxy only: vitrail's tearing control stays */
	wl_proxy_destroy((struct wl_proxy *)t1);
	client_finish(&c); // destroys the surface under t1
	harness_assert_alive(vitrail->proc);
	client_start(&c, vitrail);
	struct timeline t = get_timeline(&c);
	ck_assert_int_eq(t.n, 3);
	client_finish(&c);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* A client that draws at each frame callback and commits at once, with
 * feedback: when each callback came, when each commit was shown. */
#define STREAM_FRAMES 120

struct stream {
	struct client c;
	struct wl_callback *callback;
	bool waiting; /* for a callback */
	bool stopped; /* no more commits */
	int damage_y; /* damage rows damage_y..63 only */
	int frames, callbacks_after_stop;
	/* set_path with frame i's commit when switch_path[i] is 1 + a path
	 * (0: none) */
	uint32_t switch_path[STREAM_FRAMES];
	uint64_t callback_ns[STREAM_FRAMES];
	struct feedback fb[STREAM_FRAMES];
};

static void stream_commit(struct stream *st);

/* stream_start: leave the path to vitrail (the config's rules) */
#define PATH_UNSET UINT32_MAX

static void stream_callback(void *data, struct wl_callback *callback,
		uint32_t time) {
	struct stream *st = data;
	wl_callback_destroy(callback);
	st->callback = NULL;
	st->waiting = false;
	if (st->stopped) {
		st->callbacks_after_stop++;
		return;
	}
	if (st->frames < STREAM_FRAMES) {
		st->callback_ns[st->frames] = now_ns();
		stream_commit(st);
	}
}

static const struct wl_callback_listener stream_callback_listener = {
	.done = stream_callback,
};

static void stream_commit(struct stream *st) {
	if (st->switch_path[st->frames] != 0) {
		vitrail_surface_timing_v1_set_path(st->c.timing,
				st->switch_path[st->frames] - 1);
	}
	ask_feedback(&st->c, &st->fb[st->frames]);
	st->callback = wl_surface_frame(st->c.app.surface);
	wl_callback_add_listener(st->callback, &stream_callback_listener, st);
	st->waiting = true;
	wl_surface_attach(st->c.app.surface,
			st->c.buffers[st->frames % 8]->wl_buffer, 0, 0);
	wl_surface_damage_buffer(st->c.app.surface, 0, st->damage_y, 64,
			64 - st->damage_y);
	wl_surface_commit(st->c.app.surface);
	st->frames++;
}

static void stream_start(struct stream *st, struct harness_vitrail *vitrail,
		uint32_t path) {
	memset(st, 0, sizeof(*st));
	client_start(&st->c, vitrail);
	if (path != PATH_UNSET) {
		vitrail_surface_timing_v1_set_path(st->c.timing, path);
	}
	st->callback_ns[0] = now_ns();
	stream_commit(st);
	ck_assert_int_ge(wl_display_flush(st->c.app.display), 0);
}

/* Dispatch the streams until every one has done `frames` frames (or
 * stopped), or for ms when frames is 0. */
static void streams_run(struct stream **sts, int n, int frames, int ms) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(ms);
	for (;;) {
		bool all = frames > 0;
		for (int i = 0; i < n; i++) {
			all = all && (sts[i]->stopped || sts[i]->frames >= frames);
		}
		if (all || harness_now_ms() >= deadline) {
			break;
		}
		struct pollfd pfd[4];
		for (int i = 0; i < n; i++) {
			ck_assert_int_ge(wl_display_flush(sts[i]->c.app.display), 0);
			pfd[i] = (struct pollfd){ wl_display_get_fd(sts[i]->c.app.display),
				POLLIN, 0 };
		}
		poll(pfd, (nfds_t)n, 5);
		for (int i = 0; i < n; i++) {
			if (pfd[i].revents & POLLIN) {
				ck_assert_int_ge(wl_display_dispatch(sts[i]->c.app.display), 0);
			} else {
				ck_assert_int_ge(
						wl_display_dispatch_pending(sts[i]->c.app.display), 0);
			}
		}
	}
	if (frames > 0) {
		for (int i = 0; i < n; i++) {
			ck_assert_msg(sts[i]->stopped || sts[i]->frames >= frames,
					"stream %d: %d frames of %d", i, sts[i]->frames, frames);
		}
	}
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Median over frames [from, to) of shown - callback (presented ones),
 * and how many were discarded. */
static uint64_t stream_median_latency(struct stream *st, int from, int to,
		int *discarded) {
	uint64_t d[STREAM_FRAMES];
	int n = 0;
	*discarded = 0;
	for (int i = from; i < to; i++) {
		pump(&st->c, 2000, &st->fb[i].done);
		ck_assert_msg(st->fb[i].done, "no feedback for frame %d", i);
		if (st->fb[i].presented) {
			d[n++] = st->fb[i].shown_ns - st->callback_ns[i];
		} else {
			(*discarded)++;
		}
	}
	ck_assert_int_gt(n, 0);
	qsort(d, (size_t)n, sizeof(d[0]), cmp_u64);
	return d[n / 2];
}

static void stream_finish(struct stream *st) {
	for (int i = 0; i < st->frames; i++) {
		if (st->fb[i].proxy != NULL) {
			vitrail_commit_feedback_v1_destroy(st->fb[i].proxy);
		}
	}
	if (st->callback != NULL) {
		wl_callback_destroy(st->callback);
	}
	client_finish(&st->c);
}

/*
 * The most a low-latency client's median callback-to-screen time may be,
 * beside a vsync one's median: the lead is the client's time plus the
 * composition estimate, upper ends both (the 90th percentile and more),
 * so a loaded machine's outliers lengthen it (on an idle one it is 2.5 to
 * 3.5 ms; it was seen at 11.8 ms on a busy one), but it stays a clear
 * gain on vsync: an eighth of a period at least. Under a sanitizer the
 * composition estimate may reach a period and vitrail's own frames miss
 * vblanks (TSan, Vulkan on lavapipe: 18.7 ms beside vsync's 16.4 in one
 * CI run, 10 commits discarded): less than half a period worse than
 * vsync, which still catches a path that waits a whole refresh more.
 */
static uint64_t low_latency_most(uint64_t vsync_median) {
	if (sanitized()) {
		return vsync_median + PERIOD / 2;
	}
	return vsync_median - PERIOD / 8;
}

/*
 * Switching from vsync to low_latency and back, six times and five, a
 * client committing at each frame callback: the commit that switches to
 * low_latency answers a vsync callback at a vblank, in time for the next
 * refresh; it is shown, never replaced by the answer to its own
 * low-latency callback (which aims at the refresh after it).
 */
START_TEST(test_frame_timing_path_switch) {
	struct harness *harness = harness_create("path_switch");
	struct harness_vitrail *vitrail = start(harness, NULL);
	struct stream *st = calloc(1, sizeof(*st));
	ck_assert_ptr_nonnull(st);
	client_start(&st->c, vitrail);
	vitrail_surface_timing_v1_set_path(st->c.timing,
			VITRAIL_SURFACE_TIMING_V1_PATH_VSYNC);
	for (int k = 10; k + 5 < STREAM_FRAMES; k += 10) {
		st->switch_path[k] = 1 +
				((k / 10) % 2 == 1 ?
								VITRAIL_SURFACE_TIMING_V1_PATH_LOW_LATENCY :
								VITRAIL_SURFACE_TIMING_V1_PATH_VSYNC);
	}
	st->callback_ns[0] = now_ns();
	stream_commit(st);
	streams_run(&st, 1, STREAM_FRAMES, 20000);
	int replaced = 0, switches = 0;
	for (int i = 0; i < STREAM_FRAMES; i++) {
		pump(&st->c, 2000, &st->fb[i].done);
		ck_assert_msg(st->fb[i].done, "no feedback for frame %d", i);
		if (st->switch_path[i] !=
				1 + VITRAIL_SURFACE_TIMING_V1_PATH_LOW_LATENCY) {
			continue;
		}
		switches++;
		if (!st->fb[i].presented) {
			fprintf(stderr, "the switch at frame %d: discarded (%u)\n", i,
					st->fb[i].reason);
			replaced++;
		}
	}
	printf("path_switch: %d of %d switching commits discarded\n", replaced,
			switches);
	ck_assert_int_ge(switches, 5);
	ck_assert_msg(replaced == 0,
			"%d of %d commits switching to low_latency were discarded",
			replaced, switches);
	stream_finish(st);
	free(st);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/*
 * The low-latency path against vsync, one client after the other on the
 * same output, each committing the moment its frame callback comes: on
 * vsync the callback comes at a vblank and the commit is shown at the
 * next (one period from callback to screen); on low_latency the callback
 * comes just before the composition, and the commit is shown at the
 * vblank after it, well under a period. Drops are never two in a row.
 */
START_TEST(test_frame_timing_low_latency) {
	struct harness *harness = harness_create("low_latency");
	struct harness_vitrail *vitrail = start(harness, NULL);
	uint64_t median[2];
	int discarded[2];
	uint32_t paths[2] = { VITRAIL_SURFACE_TIMING_V1_PATH_VSYNC,
		VITRAIL_SURFACE_TIMING_V1_PATH_LOW_LATENCY };
	for (int p = 0; p < 2; p++) {
		struct stream *st = calloc(1, sizeof(*st));
		stream_start(st, vitrail, paths[p]);
		streams_run(&st, 1, STREAM_FRAMES, 20000);
		median[p] = stream_median_latency(st, 40, STREAM_FRAMES, &discarded[p]);
		/* the rule of the low-latency path (Presto's); held exactly on
		 * the fake clock (test_pacing); here only where timing is
		 * realistic: a sanitizer's slow vitrail misses refreshes of
		 * its own */
		/* one frame of vitrail's own that misses its vblank (lavapipe,
		 * a preempted main thread: about one run in ten on a quiet
		 * 2-core machine, at every commit of this test since the path
		 * exists) drops the two commits around it; the rule broken
		 * would drop pairs all along */
		int run = 0, pairs = 0;
		for (int i = 40; i < STREAM_FRAMES && p == 1 && !sanitized(); i++) {
			run = st->fb[i].presented ? 0 : run + 1;
			pairs += run == 2;
			ck_assert_msg(run < 3,
					"low_latency: three drops in a row at "
					"frame %d",
					i);
			ck_assert_msg(pairs < 2,
					"low_latency: two drops in a row "
					"twice, the second at frame %d",
					i);
		}
		stream_finish(st);
		free(st);
	}
	fprintf(stderr,
			"callback to screen, median: vsync %.2f ms (%d "
			"discarded), low_latency %.2f ms (%d discarded)\n",
			median[0] / 1e6, discarded[0], median[1] / 1e6, discarded[1]);
	ck_assert_uint_ge(median[0], PERIOD - PERIOD / 10);
	ck_assert_uint_le(median[1], low_latency_most(median[0]));
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* frames whose rendering started in (from, to] */
static int count_frames_between(const char *frame_log, uint64_t from,
		uint64_t to) {
	struct csv csv;
	ck_assert(csv_open(&csv, frame_log));
	int col = harness_csv_column(&csv, frame_log, "render_start_ns");
	int n = 0;
	while (csv_next(&csv)) {
		uint64_t start = csv_u64(&csv, col);
		n += start > from && start <= to;
	}
	csv_close(&csv);
	return n;
}

/*
 * Two clients side by side on one output, one per path: the vsync one is
 * shown at every refresh, one period after its callback, as alone; the
 * low-latency one stops committing and costs nothing: one callback
 * answers its last commit, then none, and once the vsync client stops
 * too, vitrail renders no frame.
 */
START_TEST(test_frame_timing_paths_side_by_side) {
	struct harness *harness = harness_create("paths_side_by_side");
	char *log = NULL;
	ck_assert_int_gt(asprintf(&log, "%s/frames.csv", harness->out_dir), 0);
	const char *extra[] = { "--frame-log", log, NULL };
	struct harness_vitrail *vitrail = start(harness, extra);
	struct stream *a = calloc(1, sizeof(*a));
	struct stream *b = calloc(1, sizeof(*b));
	stream_start(a, vitrail, VITRAIL_SURFACE_TIMING_V1_PATH_VSYNC);
	stream_start(b, vitrail, VITRAIL_SURFACE_TIMING_V1_PATH_LOW_LATENCY);
	struct stream *both[] = { a, b };
	streams_run(both, 2, 80, 20000);
	// b stops: it answers no more callbacks
	b->stopped = true;
	streams_run(both, 2, STREAM_FRAMES, 20000);
	int discarded;
	uint64_t median = stream_median_latency(a, 30, STREAM_FRAMES, &discarded);
	// a frame of vitrail's that misses its vblank on a loaded machine
	// (the commit it showed is then replaced by the next) is not the
	// low-latency client's doing: as many as the intervals allow
	ck_assert_int_le(discarded, (STREAM_FRAMES - 30) / (sanitized() ? 5 : 10));
	ck_assert_uint_ge(median, PERIOD - PERIOD / 10);
	ck_assert_uint_le(median, PERIOD + PERIOD / 10);
	int consecutive = 0, intervals = 0;
	for (int i = 31; i < STREAM_FRAMES; i++) {
		uint64_t gap = a->fb[i].shown_ns - a->fb[i - 1].shown_ns;
		intervals++;
		consecutive += gap + SLACK_NS >= PERIOD && gap <= PERIOD + SLACK_NS;
	}
	fprintf(stderr,
			"vsync beside low_latency: %d of %d frames one refresh "
			"after the one before\n",
			consecutive, intervals);
	// a frame of vitrail's own that misses its vblank makes one interval
	// of two refreshes: as many as the discarded bound above allows
	ck_assert_int_ge(consecutive, intervals * (sanitized() ? 8 : 9) / 10);
	// a stops too (its last callback goes unanswered): nothing more
	a->stopped = true;
	streams_run(both, 2, 0, 400);
	uint64_t quiet = now_ns();
	streams_run(both, 2, 0, 500);
	uint64_t quiet_end = now_ns();
	ck_assert_int_le(b->callbacks_after_stop, 1);
	ck_assert_int_eq(count_frames_between(log, quiet, quiet_end), 0);
	// the windows' removal is a frame of its own, after quiet_end
	stream_finish(a);
	stream_finish(b);
	free(a);
	free(b);
	harness_stop_vitrail(harness, vitrail);
	// a frame rendered in the quiet time is logged when shown: none
	ck_assert_int_eq(count_frames_between(log, quiet, quiet_end), 0);
	free(log);
	harness_destroy(harness);
}
END_TEST

/* The tearing tests' set-up: vitrail at 10 Hz with a 64 px tearing box
 * and a frame log (*log, *conf: its paths, the caller frees them), and a
 * low-latency client whose frames damage rows 32 to 64 of its window,
 * mapped; *win: that window. */
struct tearing_setup {
	struct harness *harness;
	struct harness_vitrail *vitrail;
	struct stream *st;
	const struct harness_window *win;
	char *log, *conf;
};

static void tearing_start(struct tearing_setup *t, const char *name) {
	t->harness = harness_create(name);
	ck_assert_int_gt(asprintf(&t->log, "%s/frames.csv", t->harness->out_dir),
			0);
	ck_assert_int_gt(asprintf(&t->conf, "%s/vitrail.conf", t->harness->out_dir),
			0);
	FILE *cf = fopen(t->conf, "w");
	ck_assert_ptr_nonnull(cf);
	fputs("tearing_box 64\n", cf);
	fclose(cf);
	const char *extra[] = { "--frame-log", t->log, "--refresh", "10",
		"--config", t->conf, NULL };
	t->vitrail = start(t->harness, extra);
	t->st = calloc(1, sizeof(*t->st));
	t->st->damage_y = 32;
	client_start(&t->st->c, t->vitrail);
	wl_surface_commit(t->st->c.app.surface);
	ck_assert_int_ge(wl_display_roundtrip(t->st->c.app.display), 0);
	harness_wait_for_windows(t->vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	t->win = harness_find_window(t->vitrail->conn, "timing");
	ck_assert_msg(t->win != NULL, "no window timing");
}

/* The client on the low-latency path with tearing allowed, through its
 * STREAM_FRAMES frames. */
static void tearing_run(struct tearing_setup *t) {
	struct stream *st = t->st;
	vitrail_surface_timing_v1_set_path(st->c.timing,
			VITRAIL_SURFACE_TIMING_V1_PATH_LOW_LATENCY);
	vitrail_surface_timing_v1_set_tearing(st->c.timing, 1);
	st->callback_ns[0] = now_ns();
	stream_commit(st);
	streams_run(&t->st, 1, STREAM_FRAMES, 20000);
}

/* Frames the frame log marks torn. */
static int tearing_logged(const struct tearing_setup *t) {
	struct csv csv;
	ck_assert(csv_open(&csv, t->log));
	int path_col = harness_csv_column(&csv, t->log, "path");
	int logged = 0;
	while (csv_next(&csv)) {
		const char *path = csv_field(&csv, path_col);
		logged += path != NULL && strcmp(path, "torn") == 0;
	}
	csv_close(&csv);
	return logged;
}

static void tearing_finish(struct tearing_setup *t) {
	stream_finish(t->st);
	free(t->st);
	harness_stop_vitrail(t->harness, t->vitrail);
	free(t->conf);
	free(t->log);
	harness_destroy(t->harness);
}

/*
 * Tearing (position-aware rendering) on the headless scanout model, at
 * 10 Hz (so that the scan reaches the window 30 ms after the vblank): a
 * 64x64 low-latency window that allows tearing damages its bottom half
 * each frame, the pointer on the centre of that half and the box
 * (tearing_box) just around it. The callbacks aim at the box's top, 27 ms
 * into the refresh: room for the composition estimate of a machine
 * loaded by other tests (a 64x64 frame's render has taken 8 ms there
 * when its threads waited for a core; with the default 200 px box the
 * aim, 10 ms in, fell inside such an estimate and the frames went to
 * the vblank):
 * the frames are shown mid-refresh, when the model's scan reaches the
 * damage's first row — vblank + 0.96 period x row / 480, computed here
 * from the window's position and the timeline's vblank grid — or, when
 * too late for that, at a vblank; never anywhere else. The frame log
 * marks torn frames.
 */
START_TEST(test_frame_timing_tearing) {
	struct tearing_setup t;
	tearing_start(&t, "tearing");
	struct stream *st = t.st;
	int wy = t.win->y;
	ck_assert_int_gt(wy, 0);
	/* the damage, rows 32 to 64, lies in the 64 px box around row 48 */
	harness_pointer_move(t.vitrail->conn, t.win->x + 32, wy + 48);
	struct timeline tl = get_timeline(&st->c);
	uint64_t grid = tl.display[0];
	uint64_t period = tl.refresh;
	ck_assert_uint_gt(period, 90000000);
	int damage_row = wy + st->damage_y;
	uint64_t row = period * 96 / 100 * (uint64_t)damage_row / 480;

	tearing_run(&t);
	int torn = 0, on_vblank = 0, presented = 0;
	for (int i = 40; i < STREAM_FRAMES; i++) {
		pump(&st->c, 2000, &st->fb[i].done);
		ck_assert(st->fb[i].done);
		if (!st->fb[i].presented) {
			continue;
		}
		presented++;
		uint64_t phase = (st->fb[i].shown_ns - grid) % period;
		uint64_t from_grid = phase < period - phase ? phase : period - phase;
		if (from_grid <= SLACK_NS) {
			on_vblank++;
		} else {
			int64_t off = (int64_t)phase - (int64_t)row;
			ck_assert_msg(off > -(int64_t)(period / 480) - SLACK_NS &&
							off < (int64_t)(period / 480) + SLACK_NS,
					"frame %d shown %" PRIu64 " ns into its refresh; the scan "
					"reaches row %d at %" PRIu64,
					i, phase, damage_row, row);
			torn++;
		}
	}
	fprintf(stderr,
			"tearing: %d of %d frames torn (at row %d, %.2f ms into "
			"the refresh), %d at a vblank\n",
			torn, presented, damage_row, row / 1e6, on_vblank);
	ck_assert_int_ge(tearing_logged(&t), torn);
	if (!sanitized()) {
		ck_assert_int_ge(torn, presented / 4);
	}
	tearing_finish(&t);
}
END_TEST

/*
 * A tearing surface whose changes lie away from the pointer cannot tear:
 * its frames aim at the vblank, as on the low-latency path without
 * tearing, not at the scan position of the box around the pointer, where
 * a frame that cannot tear waits most of a refresh for the next vblank.
 * As in the tearing test (10 Hz, tearing_box 64, the window damaging
 * rows 32 to 64), but the pointer on row 8: the box (rows -24 to 40) does
 * not hold the damage, and its top is reached about 20 ms into the
 * refresh. Callback to screen, median: under a quarter period (a few ms
 * of lead; aimed at the scan it was about 80 ms); no frame torn.
 */
START_TEST(test_frame_timing_tearing_away) {
	struct tearing_setup t;
	tearing_start(&t, "tearing_away");
	struct stream *st = t.st;
	/* the box's top, 24 rows above the window: reached late enough in
	 * the refresh that aiming at it would not be aiming at the vblank */
	ck_assert_int_gt(t.win->y, 80);
	harness_pointer_move(t.vitrail->conn, t.win->x + 32, t.win->y + 8);
	struct timeline tl = get_timeline(&st->c);
	uint64_t period = tl.refresh;
	ck_assert_uint_gt(period, 90000000);

	tearing_run(&t);
	int discarded;
	uint64_t median = stream_median_latency(st, 20, STREAM_FRAMES, &discarded);
	fprintf(stderr,
			"tearing_away: callback to screen, median %.2f ms (%d "
			"discarded)\n",
			median / 1e6, discarded);
	ck_assert_msg(median < period / 4,
			"callback to screen %.2f ms: the frames aimed at a scan "
			"position they could not tear at",
			median / 1e6);
	ck_assert_msg(tearing_logged(&t) == 0,
			"a frame tore with its damage outside the box");
	tearing_finish(&t);
}
END_TEST

/*
 * A config rule picks the path by app_id ("timing" here): a client that
 * chooses nothing is on low_latency (callback to screen well under a
 * period), one that asks for vsync is on vsync (its choice wins).
 */
START_TEST(test_frame_timing_config_rule) {
	struct harness *harness = harness_create("config_rule");
	char *conf = NULL;
	ck_assert_int_gt(asprintf(&conf, "%s/vitrail.conf", harness->out_dir), 0);
	FILE *f = fopen(conf, "w");
	ck_assert_ptr_nonnull(f);
	fputs("path timing low-latency\n", f);
	fclose(f);
	const char *extra[] = { "--config", conf, NULL };
	struct harness_vitrail *vitrail = start(harness, extra);
	uint32_t paths[2] = { PATH_UNSET, VITRAIL_SURFACE_TIMING_V1_PATH_VSYNC };
	uint64_t median[2];
	for (int p = 0; p < 2; p++) {
		struct stream *st = calloc(1, sizeof(*st));
		stream_start(st, vitrail, paths[p]);
		streams_run(&st, 1, STREAM_FRAMES, 20000);
		int discarded;
		median[p] = stream_median_latency(st, 40, STREAM_FRAMES, &discarded);
		stream_finish(st);
		free(st);
	}
	fprintf(stderr,
			"callback to screen, median: by rule %.2f ms, asking "
			"for vsync %.2f ms\n",
			median[0] / 1e6, median[1] / 1e6);
	ck_assert_uint_ge(median[1], PERIOD - PERIOD / 10);
	ck_assert_uint_le(median[0], low_latency_most(median[1]));
	harness_stop_vitrail(harness, vitrail);
	free(conf);
	harness_destroy(harness);
}
END_TEST

/* ---- wp_presentation beside vitrail's own feedback ---------------------- */

#define PRES_FRAMES 300

struct pres_client {
	struct wp_presentation *presentation;
	struct wl_output *output; // bound once the client asks (bind_output)
	bool bind_output;
	uint32_t bind_version; // 0: the global's, at most 2
	uint32_t version;
	uint32_t clock_id;
	bool clock_known;
};

static void pres_clock_id(void *data, struct wp_presentation *presentation,
		uint32_t clk_id) {
	struct pres_client *pc = data;
	pc->clock_id = clk_id;
	pc->clock_known = true;
}

static const struct wp_presentation_listener pres_listener = {
	.clock_id = pres_clock_id,
};

static void pres_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct pres_client *pc = data;
	if (strcmp(interface, wp_presentation_interface.name) == 0) {
		pc->version = version;
		uint32_t bind = pc->bind_version != 0 ? pc->bind_version :
				version < 2                   ? version :
												2;
		pc->presentation = wl_registry_bind(registry, name,
				&wp_presentation_interface, bind);
		wp_presentation_add_listener(pc->presentation, &pres_listener, pc);
	} else if (pc->bind_output && pc->output == NULL &&
			strcmp(interface, wl_output_interface.name) == 0) {
		pc->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
	}
}

static void pres_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener pres_registry_listener = {
	.global = pres_global,
	.global_remove = pres_global_remove,
};

/* What wp_presentation said about one commit. */
struct pres_feedback {
	bool done, presented;
	uint64_t shown_ns;
	uint32_t refresh, flags;
	int sync_outputs;
	struct wl_output *sync_output;
};

static void pfb_sync_output(void *data,
		struct wp_presentation_feedback *feedback, struct wl_output *output) {
	struct pres_feedback *f = data;
	ck_assert_msg(!f->done, "sync_output after the feedback's last event");
	f->sync_outputs++;
	f->sync_output = output;
}

static void pfb_presented(void *data, struct wp_presentation_feedback *feedback,
		uint32_t hi, uint32_t lo, uint32_t nsec, uint32_t refresh,
		uint32_t seq_hi, uint32_t seq_lo, uint32_t flags) {
	struct pres_feedback *f = data;
	ck_assert_msg(!f->done, "a second event on one wp_presentation_feedback");
	f->done = f->presented = true;
	f->shown_ns = join(hi, lo, nsec);
	f->refresh = refresh;
	f->flags = flags;
	wp_presentation_feedback_destroy(feedback);
}

static void pfb_discarded(void *data,
		struct wp_presentation_feedback *feedback) {
	struct pres_feedback *f = data;
	ck_assert_msg(!f->done, "a second event on one wp_presentation_feedback");
	f->done = true;
	wp_presentation_feedback_destroy(feedback);
}

static const struct wp_presentation_feedback_listener pfb_listener = {
	.sync_output = pfb_sync_output,
	.presented = pfb_presented,
	.discarded = pfb_discarded,
};

/*
 * A client pre-rendering with targeted commits (pre_render path, limit 3,
 * one commit per slot, each targeted at its slot, three queued at once)
 * asks for wp_presentation feedback and vitrail's own for every commit.
 * The oracle is vitrail's feedback (the frame that showed the commit, which
 * the queued case checks against the timeline): the standard one must
 * report the same, presented within 1 ms of it, or discarded when it says
 * the commit was never shown. Under both pacing policies. wp_presentation
 * is version 2 and says CLOCK_MONOTONIC, the clock of vitrail's times.
 */
START_TEST(test_frame_timing_wp_presentation) {
	const char *pacing[2] = { "vsync", "dvsync" };
	for (int p = 0; p < 2; p++) {
		struct harness *harness = harness_create(pacing[p]);
		const char *extra[] = { "--pacing", pacing[p], NULL };
		struct harness_vitrail *vitrail = start(harness, extra);
		struct client c;
		client_start(&c, vitrail);
		struct pres_client pc = { 0 };
		struct wl_registry *registry = wl_display_get_registry(c.app.display);
		wl_registry_add_listener(registry, &pres_registry_listener, &pc);
		ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
		ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
		ck_assert_msg(pc.presentation != NULL, "no wp_presentation");
		ck_assert(pc.clock_known);
		ck_assert_uint_eq(pc.clock_id, CLOCK_MONOTONIC);

		vitrail_surface_timing_v1_set_path(c.timing,
				VITRAIL_SURFACE_TIMING_V1_PATH_PRE_RENDER);
		vitrail_surface_timing_v1_set_prerender_limit(c.timing, 3);
		show(&c, 0);
		ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);

		struct feedback *own = calloc(PRES_FRAMES, sizeof(*own));
		struct pres_feedback *std = calloc(PRES_FRAMES, sizeof(*std));
		ck_assert(own != NULL && std != NULL);
		int sent = 0, answered = 0;
		while (answered < PRES_FRAMES) {
			if (sent < PRES_FRAMES && sent - answered < 3) {
				// the slots after the commits queued already
				struct timeline t = get_timeline(&c);
				ck_assert_int_gt(t.n, 0);
				for (int i = 0;
						i < t.n && sent < PRES_FRAMES && sent - answered < 3;
						i++) {
					ask_feedback(&c, &own[sent]);
					struct wp_presentation_feedback *pf =
							wp_presentation_feedback(pc.presentation,
									c.app.surface);
					wp_presentation_feedback_add_listener(pf, &pfb_listener,
							&std[sent]);
					target(&c, t.display[i]);
					show(&c, 1 + sent % 7);
					sent++;
				}
			}
			pump(&c, 5000, &own[answered].done);
			ck_assert_msg(own[answered].done, "%s: no feedback for commit %d",
					pacing[p], answered);
			vitrail_commit_feedback_v1_destroy(own[answered].proxy);
			own[answered].proxy = NULL;
			answered++;
		}
		int shown = 0, early = 0, wrongly_discarded = 0, wrongly_shown = 0;
		for (int i = 0; i < PRES_FRAMES; i++) {
			pump(&c, 5000, &std[i].done);
			ck_assert_msg(std[i].done,
					"%s: no wp_presentation feedback for "
					"commit %d",
					pacing[p], i);
			shown += own[i].presented;
			if (own[i].presented && !std[i].presented) {
				wrongly_discarded++;
			} else if (!own[i].presented && std[i].presented) {
				wrongly_shown++;
			} else if (own[i].presented &&
					llabs((long long)std[i].shown_ns -
							(long long)own[i].shown_ns) > 1000000) {
				if (early < 5) {
					fprintf(stderr,
							"%s: commit %d: wp_presentation %+.3f ms from "
							"vitrail's feedback\n",
							pacing[p], i,
							((double)std[i].shown_ns -
									(double)own[i].shown_ns) /
									1e6);
				}
				early++;
			}
		}
		printf("%s: %d of %d commits shown; wp_presentation: %d more than "
			   "1 ms off, %d discarded though shown, %d presented though "
			   "discarded\n",
				pacing[p], shown, PRES_FRAMES, early, wrongly_discarded,
				wrongly_shown);
		ck_assert_msg(early == 0 && wrongly_discarded == 0 &&
						wrongly_shown == 0,
				"%s: wp_presentation disagrees with vitrail's feedback: %d "
				"more than 1 ms off, %d discarded though shown, %d presented "
				"though discarded",
				pacing[p], early, wrongly_discarded, wrongly_shown);
		ck_assert_int_gt(shown, PRES_FRAMES / 2);
		ck_assert_uint_eq(pc.version, 2);
		free(own);
		free(std);
		wl_registry_destroy(registry);
		wp_presentation_destroy(pc.presentation);
		client_finish(&c);
		harness_stop_vitrail(harness, vitrail);
		harness_destroy(harness);
	}
}
END_TEST

/*
 * get_timeline's slots start after the commits already queued: a client
 * keeping three targeted commits queued (one per slot, pre_render) and
 * asking for a timeline whenever one was answered gets a first slot a
 * refresh after the last target it sent, every time, under both pacing
 * policies (under dvsync, a queued commit may already be latched into a
 * frame rendered ahead: still queued for the client).
 */
START_TEST(test_frame_timing_timeline_after_queued) {
	const char *pacing[2] = { "vsync", "dvsync" };
	for (int p = 0; p < 2; p++) {
		struct harness *harness = harness_create(pacing[p]);
		const char *extra[] = { "--pacing", pacing[p], NULL };
		struct harness_vitrail *vitrail = start(harness, extra);
		struct client c;
		client_start(&c, vitrail);
		vitrail_surface_timing_v1_set_path(c.timing,
				VITRAIL_SURFACE_TIMING_V1_PATH_PRE_RENDER);
		show(&c, 0);
		ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);

		enum { FRAMES = 150 };
		struct feedback *own = calloc(FRAMES, sizeof(*own));
		ck_assert_ptr_nonnull(own);
		int sent = 0, answered = 0, timelines = 0, before = 0;
		uint64_t last_target = 0;
		while (answered < FRAMES) {
			if (sent < FRAMES && sent - answered < 3) {
				struct timeline t = get_timeline(&c);
				ck_assert_int_eq(t.n, 3);
				timelines++;
				if (last_target != 0 &&
						t.display[0] + SLACK_NS < last_target + PERIOD) {
					if (before < 5) {
						fprintf(stderr,
								"%s: timeline %d starts %+.3f ms from the "
								"refresh after the last queued target\n",
								pacing[p], timelines,
								((double)t.display[0] -
										(double)(last_target + PERIOD)) /
										1e6);
					}
					before++;
				}
				for (int i = 0; i < t.n && sent < FRAMES && sent - answered < 3;
						i++) {
					ask_feedback(&c, &own[sent]);
					target(&c, t.display[i]);
					show(&c, 1 + sent % 7);
					last_target = t.display[i];
					sent++;
				}
			}
			pump(&c, 5000, &own[answered].done);
			ck_assert_msg(own[answered].done, "%s: no feedback for commit %d",
					pacing[p], answered);
			vitrail_commit_feedback_v1_destroy(own[answered].proxy);
			answered++;
		}
		printf("%s: %d of %d timelines started before the refresh after the "
			   "last queued target\n",
				pacing[p], before, timelines);
		ck_assert_msg(before == 0,
				"%s: %d of %d timelines started before the refresh after the "
				"last queued target",
				pacing[p], before, timelines);
		free(own);
		client_finish(&c);
		harness_stop_vitrail(harness, vitrail);
		harness_destroy(harness);
	}
}
END_TEST

static void pres_bind(struct client *c, struct pres_client *pc,
		uint32_t version, struct wl_registry **registry) {
	pc->bind_output = true;
	pc->bind_version = version;
	*registry = wl_display_get_registry(c->app.display);
	wl_registry_add_listener(*registry, &pres_registry_listener, pc);
	ck_assert_int_ge(wl_display_roundtrip(c->app.display), 0);
	ck_assert_int_ge(wl_display_roundtrip(c->app.display), 0);
	ck_assert_ptr_nonnull(pc->presentation);
	ck_assert_ptr_nonnull(pc->output);
	ck_assert(pc->clock_known);
	ck_assert_uint_eq(pc->clock_id, CLOCK_MONOTONIC);
}

static void pres_ask(struct pres_client *pc, struct client *c,
		struct pres_feedback *f) {
	*f = (struct pres_feedback){ 0 };
	struct wp_presentation_feedback *pf =
			wp_presentation_feedback(pc->presentation, c->app.surface);
	wp_presentation_feedback_add_listener(pf, &pfb_listener, f);
}

/*
 * wp_presentation's requests and events, vitrail's own implementation,
 * with the frame timing feedback as the oracle of when a commit was shown,
 * for a version 1 and a version 2 object:
 * - the global is version 2 and says CLOCK_MONOTONIC;
 * - two feedbacks for one commit: both presented, at the time vitrail's
 *   feedback gives, each after one sync_output for the client's wl_output,
 *   with the output's period as refresh (60 Hz headless, a constant rate:
 *   version 1 gets it too) and the vsync and hw_clock flags (the headless
 *   model clock);
 * - two commits with no frame between them: the first discarded (no
 *   sync_output), the second presented;
 * - a commit queued for a display time far ahead and a feedback asked for
 *   a commit that never comes, then the surface destroyed: both discarded.
 */
START_TEST(test_frame_timing_wp_presentation_events) {
	struct harness *harness = harness_create("wp_presentation_events");
	struct harness_vitrail *vitrail = start(harness, NULL);
	for (uint32_t version = 1; version <= 2; version++) {
		struct client c;
		client_start(&c, vitrail);
		struct pres_client pc = { 0 };
		struct wl_registry *registry;
		pres_bind(&c, &pc, version, &registry);
		ck_assert_uint_eq(pc.version, 2);

		struct pres_feedback pf[2];
		struct feedback own;
		pres_ask(&pc, &c, &pf[0]);
		pres_ask(&pc, &c, &pf[1]);
		ask_feedback(&c, &own);
		show(&c, 1);
		wait_feedback(&c, &own, 1);
		ck_assert(own.presented);
		for (int i = 0; i < 2; i++) {
			pump(&c, 5000, &pf[i].done);
			ck_assert_msg(pf[i].done && pf[i].presented,
					"v%u feedback %d: done %d presented %d", version, i,
					pf[i].done, pf[i].presented);
			ck_assert_uint_eq(pf[i].shown_ns, own.shown_ns);
			ck_assert_int_eq(pf[i].sync_outputs, 1);
			ck_assert_ptr_eq(pf[i].sync_output, pc.output);
			ck_assert_uint_eq(pf[i].refresh, PERIOD);
			uint32_t want = WP_PRESENTATION_FEEDBACK_KIND_VSYNC |
					WP_PRESENTATION_FEEDBACK_KIND_HW_CLOCK;
			ck_assert_uint_eq(pf[i].flags & want, want);
		}

		// back to back: the first is overtaken before any frame
		struct feedback owns[2];
		pres_ask(&pc, &c, &pf[0]);
		ask_feedback(&c, &owns[0]);
		show(&c, 2);
		pres_ask(&pc, &c, &pf[1]);
		ask_feedback(&c, &owns[1]);
		show(&c, 3);
		wait_feedback(&c, owns, 2);
		for (int i = 0; i < 2; i++) {
			pump(&c, 5000, &pf[i].done);
			ck_assert(pf[i].done);
			ck_assert_int_eq(pf[i].presented, owns[i].presented);
		}
		ck_assert(!pf[0].presented && pf[1].presented);
		ck_assert_int_eq(pf[0].sync_outputs, 0);

		// queued far ahead, and one asked for a commit that never
		// comes; then the surface goes
		pres_ask(&pc, &c, &pf[0]);
		target(&c, now_ns() + 2 * NSEC);
		show(&c, 4);
		pres_ask(&pc, &c, &pf[1]);
		ck_assert_int_ge(wl_display_roundtrip(c.app.display), 0);
		ck_assert(!pf[0].done && !pf[1].done);
		xdg_toplevel_destroy(c.app.xdg_toplevel);
		c.app.xdg_toplevel = NULL;
		xdg_surface_destroy(c.app.xdg_surface);
		c.app.xdg_surface = NULL;
		wl_surface_destroy(c.app.surface);
		c.app.surface = NULL;
		for (int i = 0; i < 2; i++) {
			pump(&c, 5000, &pf[i].done);
			ck_assert_msg(pf[i].done && !pf[i].presented,
					"feedback %d of a destroyed surface: done %d presented %d",
					i, pf[i].done, pf[i].presented);
		}
		wl_output_destroy(pc.output);
		wp_presentation_destroy(pc.presentation);
		wl_registry_destroy(registry);
		client_finish(&c);
	}
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

int main(int argc, char *argv[]) {
	Suite *suite = suite_create("frame-timing");
	harness_add_case(suite, "timeline", test_frame_timing_timeline, 60);
	harness_add_case(suite, "queued", test_frame_timing_queued, 60);
	harness_add_case(suite, "discarded", test_frame_timing_discarded, 60);
	harness_add_case(suite, "errors", test_frame_timing_errors, 90);
	harness_add_case(suite, "disconnect_queued",
			test_frame_timing_disconnect_queued, 60);
	harness_add_case(suite, "destroy_queued", test_frame_timing_destroy_queued,
			60);
	harness_add_case(suite, "demo", test_frame_timing_demo, 120);
	harness_add_case(suite, "prediction", test_frame_timing_prediction, 60);
	harness_add_case(suite, "low_latency_errors",
			test_frame_timing_low_latency_errors, 60);
	harness_add_case(suite, "low_latency", test_frame_timing_low_latency, 90);
	harness_add_case(suite, "paths_side_by_side",
			test_frame_timing_paths_side_by_side, 90);
	harness_add_case(suite, "tearing", test_frame_timing_tearing, 90);
	harness_add_case(suite, "tearing_away", test_frame_timing_tearing_away, 90);
	harness_add_case(suite, "config_rule", test_frame_timing_config_rule, 90);
	harness_add_case(suite, "wp_presentation_events",
			test_frame_timing_wp_presentation_events, 60);
	harness_add_case(suite, "path_switch", test_frame_timing_path_switch, 60);
	harness_add_case(suite, "timeline_after_queued",
			test_frame_timing_timeline_after_queued, 60);
	harness_add_case(suite, "wp_presentation",
			test_frame_timing_wp_presentation, 90);
	return harness_run_suite(suite, argc, argv);
}
