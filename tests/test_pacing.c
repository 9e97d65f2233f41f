/*
 * The pacing module (compositor/pacing/) on a fake clock: the frame
 * clock's calibration, the pacer's queue and the vsync policies. No real
 * time passes: every entry point gets the fake time, and the fake output
 * below records what the pacer asked of it.
 *
 * Expected times are computed here from the refresh grid (phase + k *
 * period), not by calling the clock under test.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pacing/clock.h"
#include "pacing/jitt.h"
#include "pacing/latch.h"
#include "pacing/pacer.h"
#include "pacing/path.h"

#define MS 1000000ull
#define US 1000ull
/* 60 Hz */
#define P 16666667ull
/* the first vblank of the model clocks below */
#define T0 (1000 * MS)

/* ---- frame clock -------------------------------------------------------- */

START_TEST(test_pacing_clock_grid) {
	struct vt_clock clock;
	vt_clock_init(&clock, P, T0);
	ck_assert_uint_eq(vt_clock_next_vblank(&clock, T0), T0 + P);
	ck_assert_uint_eq(vt_clock_next_vblank(&clock, T0 - 1), T0);
	ck_assert_uint_eq(vt_clock_next_vblank(&clock, T0 + 5 * P + 1), T0 + 6 * P);
	/* before the phase too */
	ck_assert_uint_eq(vt_clock_next_vblank(&clock, T0 - 3 * P - 1), T0 - 3 * P);
	ck_assert_uint_eq(vt_clock_nearest_vblank(&clock, T0 + 2 * P + P / 3),
			T0 + 2 * P);
	ck_assert_uint_eq(vt_clock_nearest_vblank(&clock, T0 + 2 * P - P / 3),
			T0 + 2 * P);
	ck_assert_uint_eq(vt_clock_periods(&clock, T0, T0 + 3 * P + 100), 3);
}
END_TEST

/* Present times with +-1.5 ms of jitter around a true grid that is
 * 2 ms off the initial guess: predictions converge to the true grid
 * within 0.5 ms and never re-phase on jitter. */
START_TEST(test_pacing_clock_jitter) {
	const uint64_t truth = T0 + 2 * MS;
	struct vt_clock clock;
	vt_clock_init(&clock, P, T0);
	clock.calibrated = true;
	clock.period_known = true;
	uint32_t rng = 12345;
	for (int k = 1; k <= 200; k++) {
		rng = rng * 1103515245u + 12345u;
		int64_t jitter = (int64_t)((rng >> 8) % 3000) - 1500; /* us */
		uint64_t t = truth + (uint64_t)k * P + (uint64_t)(jitter * 1000);
		vt_clock_present(&clock, t, P);
	}
	ck_assert_uint_eq(clock.rephases, 0);
	uint64_t predicted = vt_clock_nearest_vblank(&clock, truth + 300 * P);
	uint64_t expected = truth + 300 * P;
	uint64_t error =
			predicted > expected ? predicted - expected : expected - predicted;
	ck_assert_msg(error < 500 * US, "prediction off by %llu ns",
			(unsigned long long)error);
}
END_TEST

/* Missed vblanks (a present three periods after the last) stay on the
 * grid; a real jump re-phases; a new refresh rate is adopted at once. */
START_TEST(test_pacing_clock_missed_jump_rate) {
	struct vt_clock clock;
	vt_clock_init(&clock, P, T0);
	vt_clock_present(&clock, T0 + P, P);
	vt_clock_present(&clock, T0 + 4 * P, P); /* two vblanks missed */
	ck_assert_uint_eq(clock.rephases, 0);
	ck_assert_uint_eq(vt_clock_period(&clock), P);
	ck_assert_uint_eq(vt_clock_next_vblank(&clock, T0 + 4 * P), T0 + 5 * P);

	/* half a period off: a new phase */
	uint64_t jump = T0 + 6 * P + P / 2;
	vt_clock_present(&clock, jump, P);
	ck_assert_uint_eq(clock.rephases, 1);
	ck_assert_uint_eq(vt_clock_next_vblank(&clock, jump), jump + P);

	/* 144 Hz from now on */
	const uint64_t p144 = 6944444;
	vt_clock_present(&clock, jump + P, p144);
	ck_assert_uint_eq(vt_clock_period(&clock), p144);
	ck_assert_uint_eq(vt_clock_next_vblank(&clock, jump + P), jump + P + p144);
}
END_TEST

/* Without a reported refresh the period is fitted from presents, also
 * across missed vblanks. */
START_TEST(test_pacing_clock_fits_period) {
	const uint64_t truth = 16000000; /* 62.5 Hz, vs a 60 Hz guess */
	struct vt_clock clock;
	vt_clock_init(&clock, P, T0);
	uint64_t t = T0;
	for (int k = 0; k < 40; k++) {
		t += (k % 7 == 6) ? 2 * truth : truth;
		vt_clock_present(&clock, t, 0);
	}
	uint64_t period = vt_clock_period(&clock);
	ck_assert_msg(period > truth - 20 * US && period < truth + 20 * US,
			"fitted period %llu", (unsigned long long)period);
}
END_TEST

/* ---- a fake output ------------------------------------------------------ */

struct fake_frame {
	int id;
	uint64_t display_ns;
	bool committed, discarded;
	uint64_t commit_vblank;
};

struct fake {
	struct vt_pacer *pacer;
	uint64_t now;
	uint64_t armed; /* 0: no timer */
	int arms;
	bool render_nothing; /* impl.render returns NULL */
	bool render_sync; /* frames are ready inside render */
	bool present_on_commit; /* the model clock's glue reports at once */
	struct fake_frame frames[256];
	int nframes;
	int frame_dones;
	uint64_t last_frame_done;
	int null_commits;
	int fail_commits; /* the next ones fail (the backend refuses) */
	int backend_requests;
	int late;
	/* simulated rendering (simulate()): every frame becomes ready
	 * cost(id) after it started; an animation asks for the next one */
	bool animating;
	uint64_t (*cost)(int id);
	uint64_t ready_at[256]; /* 0: ready already, or not simulated */
};

static void *fake_render(void *data, uint64_t display_ns, bool *ready,
		uint64_t *ready_ns) {
	struct fake *fake = data;
	if (fake->render_nothing) {
		if (fake->animating) {
			vt_pacer_request(fake->pacer, VT_PACER_RENDER, fake->now);
		}
		return NULL;
	}
	ck_assert_int_lt(fake->nframes, 256);
	struct fake_frame *frame = &fake->frames[fake->nframes];
	*frame = (struct fake_frame){
		.id = fake->nframes,
		.display_ns = display_ns,
	};
	fake->nframes++;
	*ready = fake->render_sync;
	if (fake->cost != NULL) {
		fake->ready_at[frame->id] = fake->now + fake->cost(frame->id);
	}
	if (fake->animating) {
		/* re-entering: the pacer only notes it and plans again */
		vt_pacer_request(fake->pacer, VT_PACER_RENDER, fake->now);
	}
	return frame;
}

static bool fake_commit(void *data, void *handle, uint64_t vblank_ns) {
	struct fake *fake = data;
	if (handle == NULL) {
		fake->null_commits++;
		return true;
	}
	struct fake_frame *frame = handle;
	ck_assert(!frame->committed && !frame->discarded);
	if (fake->fail_commits > 0) {
		fake->fail_commits--;
		return false;
	}
	frame->committed = true;
	frame->commit_vblank = vblank_ns;
	if (fake->present_on_commit) {
		fake->late +=
				vt_pacer_presented(fake->pacer, frame, true, vblank_ns, P);
	}
	return true;
}

static void fake_discard(void *data, void *handle) {
	struct fake_frame *frame = handle;
	ck_assert(!frame->discarded);
	frame->discarded = true;
}

static void fake_frame_done(void *data, uint64_t now_ns) {
	struct fake *fake = data;
	fake->frame_dones++;
	fake->last_frame_done = now_ns;
}

static void fake_arm(void *data, uint64_t at_ns) {
	struct fake *fake = data;

	fake->armed = at_ns;
	fake->arms++;
}

static void fake_request_backend_frame(void *data) {
	struct fake *fake = data;
	fake->backend_requests++;
}

static const struct vt_pacer_impl fake_impl = {
	.render = fake_render,
	.commit = fake_commit,
	.discard = fake_discard,
	.frame_done = fake_frame_done,
	.arm = fake_arm,
	.request_backend_frame = fake_request_backend_frame,
};

static void fake_init(struct fake *fake, enum vt_pacer_clock_kind kind,
		const struct vt_pacing_policy *policy) {
	memset(fake, 0, sizeof(*fake));
	fake->now = T0;
	fake->present_on_commit = kind == VT_PACER_CLOCK_MODEL;
	fake->pacer = vt_pacer_create(kind, P, T0, policy, &fake_impl, fake);
	ck_assert_ptr_nonnull(fake->pacer);
}

/* Advance the fake time to t, firing the armed timer on the way (as often
 * as it is re-armed before t). */
static void run_until(struct fake *fake, uint64_t t) {
	while (fake->armed != 0 && fake->armed <= t) {
		/* a timer armed in the past fires at once */
		fake->now = fake->armed > fake->now ? fake->armed : fake->now;
		fake->armed = 0; /* a timer fires once */
		vt_pacer_wake(fake->pacer, fake->now);
	}
	fake->now = t;
}

/* Advance to t with simulated rendering: timers fire and frames become
 * ready at their ready_at, in time order. */
static void simulate(struct fake *fake, uint64_t t) {
	for (;;) {
		int next = -1;
		for (int i = 0; i < fake->nframes; i++) {
			if (fake->ready_at[i] != 0 &&
					(next < 0 || fake->ready_at[i] < fake->ready_at[next])) {
				next = i;
			}
		}
		uint64_t at_ready = next >= 0 ? fake->ready_at[next] : UINT64_MAX;
		uint64_t at_timer = fake->armed != 0 ? fake->armed : UINT64_MAX;
		uint64_t at = at_ready < at_timer ? at_ready : at_timer;
		if (at > t) {
			break;
		}
		fake->now = at > fake->now ? at : fake->now;
		if (at_ready <= at_timer) {
			fake->ready_at[next] = 0;
			vt_pacer_frame_ready(fake->pacer, &fake->frames[next], fake->now);
		} else {
			fake->armed = 0;
			vt_pacer_wake(fake->pacer, fake->now);
		}
	}
	fake->now = t;
}

static struct fake_frame *last_frame(struct fake *fake) {
	ck_assert_int_gt(fake->nframes, 0);
	return &fake->frames[fake->nframes - 1];
}

/* ---- pacer: vsync policy, model clock ----------------------------------- */

/* Damage after a vblank is rendered just in time for the next one: the
 * frame is planned for that vblank, rendering starts the predicted
 * composition time before it, and the commit happens at it. */
START_TEST(test_pacing_vsync_just_in_time) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_MODEL, &vt_policy_vsync);
	fake.now = T0 + 1 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	ck_assert_int_eq(fake.nframes, 0); /* not yet: just in time */
	uint64_t composition = vt_pacer_composition_ns(fake.pacer);
	ck_assert_uint_eq(fake.armed, T0 + P - composition);
	run_until(&fake, T0 + P - composition);
	ck_assert_int_eq(fake.nframes, 1);
	ck_assert_uint_eq(last_frame(&fake)->display_ns, T0 + P);
	/* done 2 ms later: the timer waits for its vblank */
	fake.now += 2 * MS;
	vt_pacer_frame_ready(fake.pacer, last_frame(&fake), fake.now);
	ck_assert(!last_frame(&fake)->committed);
	ck_assert_uint_eq(fake.armed, T0 + P);
	run_until(&fake, T0 + P + 1);
	ck_assert(last_frame(&fake)->committed);
	ck_assert_uint_eq(last_frame(&fake)->commit_vblank, T0 + P);
	ck_assert_int_eq(fake.late, 0);
	/* nothing left to do: no timer */
	ck_assert_uint_eq(fake.armed, 0);
	ck_assert_int_eq(vt_pacer_committed(fake.pacer), 0);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* A client that commits 0.5 ms after each frame callback (sent at each
 * vblank) is shown at the next vblank, every time, once the composition
 * time is learned: one period from commit to screen. */
START_TEST(test_pacing_vsync_commit_to_present_one_period) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_MODEL, &vt_policy_vsync);
	const uint64_t render_cost = 3 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_CALLBACKS, fake.now);
	int shown = 0;
	for (int k = 1; k <= 120; k++) {
		uint64_t vblank = T0 + (uint64_t)k * P;
		run_until(&fake, vblank);
		/* the frame callback went out at the vblank */
		ck_assert_uint_eq(fake.last_frame_done, vblank);
		/* the client commits: new content, and it wants a callback */
		fake.now = vblank + 500 * US;
		int before = fake.nframes;
		vt_pacer_request(fake.pacer, VT_PACER_RENDER | VT_PACER_CALLBACKS,
				fake.now);
		/* rendering starts at the planned time; it takes render_cost */
		ck_assert_uint_gt(fake.armed, fake.now);
		run_until(&fake, fake.armed);
		ck_assert_int_eq(fake.nframes, before + 1);
		struct fake_frame *frame = last_frame(&fake);
		ck_assert_uint_eq(frame->display_ns, vblank + P);
		fake.now += render_cost;
		ck_assert_uint_lt(fake.now, vblank + P);
		vt_pacer_frame_ready(fake.pacer, frame, fake.now);
		run_until(&fake, vblank + P - 1);
		ck_assert(!frame->committed);
		shown++;
	}
	run_until(&fake, T0 + 121 * P);
	for (int i = 0; i < fake.nframes; i++) {
		ck_assert(fake.frames[i].committed);
		ck_assert_uint_eq(fake.frames[i].commit_vblank,
				fake.frames[i].display_ns);
	}
	ck_assert_int_eq(fake.late, 0);
	ck_assert_int_eq(shown, 120);
	/* learned: 3 ms at the 90th percentile of the last 16 frames, plus a
	 * quarter and 1 ms */
	ck_assert_uint_eq(vt_pacer_composition_ns(fake.pacer),
			render_cost + render_cost / 4 + 1 * MS);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* The main thread was busy past a vblank: a request that comes before the
 * late timer does not skip that vblank (nor commit: requests come from
 * inside wlroots signals); the timer, armed to fire at once, commits the
 * frame meant for it at it, not replaced by the next one. */
START_TEST(test_pacing_vsync_busy_past_vblank) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_MODEL, &vt_policy_vsync);
	fake.now = T0 + 1 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	run_until(&fake, fake.armed);
	struct fake_frame *first = last_frame(&fake);
	fake.now += 1 * MS;
	vt_pacer_frame_ready(fake.pacer, first, fake.now);
	ck_assert_uint_eq(fake.armed, T0 + P);
	/* damage arrives 3 ms after the vblank, before the timer ran */
	fake.now = T0 + P + 3 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	ck_assert(!first->committed);
	ck_assert_uint_eq(fake.armed, T0 + P);
	run_until(&fake, fake.now);
	ck_assert(first->committed);
	ck_assert_uint_eq(first->commit_vblank, T0 + P);
	ck_assert_int_eq(fake.late, 0);
	ck_assert_uint_eq(vt_pacer_replaced(fake.pacer), 0);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* Renders that start late (the timer fires 2 ms after the planned time:
 * a busy main thread) make the pacer plan that much earlier. */
START_TEST(test_pacing_vsync_learns_lateness) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_MODEL, &vt_policy_vsync);
	for (int k = 1; k <= 20; k++) {
		fake.now = T0 + (uint64_t)k * P + 500 * US;
		vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
		ck_assert_uint_gt(fake.armed, fake.now);
		fake.now = fake.armed + 2 * MS; /* late */
		fake.armed = 0;
		vt_pacer_wake(fake.pacer, fake.now);
		fake.now += 3 * MS;
		vt_pacer_frame_ready(fake.pacer, last_frame(&fake), fake.now);
		run_until(&fake, T0 + (uint64_t)(k + 1) * P);
	}
	/* 3 ms + a quarter, 2 ms late, 1 ms */
	ck_assert_uint_eq(vt_pacer_composition_ns(fake.pacer),
			3 * MS + 750 * US + 2 * MS + 1 * MS);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* A frame that finishes after its vblank is shown at the next one and
 * reported late; nothing else is planned while it renders. */
START_TEST(test_pacing_vsync_late_frame) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_MODEL, &vt_policy_vsync);
	fake.now = T0 + 1 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	run_until(&fake, fake.armed);
	struct fake_frame *frame = last_frame(&fake);
	ck_assert_uint_eq(frame->display_ns, T0 + P);
	/* more damage while it renders: no second frame yet */
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now + 1 * MS);
	ck_assert_int_eq(fake.nframes, 1);
	/* its vblank passes: no timer needed for it */
	run_until(&fake, T0 + P + 5 * MS);
	ck_assert(!frame->committed);
	vt_pacer_frame_ready(fake.pacer, frame, fake.now);
	/* the pending damage is planned now, after it, with the composition
	 * time just learned (13.3 ms -> 17.7 ms predicted): for T0 + 3P */
	run_until(&fake, T0 + 2 * P);
	ck_assert(frame->committed);
	ck_assert_uint_eq(frame->commit_vblank, T0 + 2 * P);
	ck_assert_int_eq(fake.late, 1);
	ck_assert_int_eq(fake.nframes, 2);
	ck_assert_uint_eq(last_frame(&fake)->display_ns, T0 + 3 * P);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* Frame callbacks alone render nothing and go out at the next vblank;
 * a commit wanted by the backend re-commits at a vblank; an output with
 * nothing to do arms no timer and renders nothing. */
START_TEST(test_pacing_callbacks_and_idle) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_MODEL, &vt_policy_vsync);
	fake.now = T0 + 3 * MS;
	vt_pacer_request(fake.pacer, 0, fake.now);
	ck_assert_uint_eq(fake.armed, 0);
	vt_pacer_request(fake.pacer, VT_PACER_CALLBACKS | VT_PACER_COMMIT,
			fake.now);
	ck_assert_uint_eq(fake.armed, T0 + P);
	run_until(&fake, T0 + 10 * P);
	ck_assert_int_eq(fake.frame_dones, 1);
	ck_assert_uint_eq(fake.last_frame_done, T0 + P);
	ck_assert_int_eq(fake.null_commits, 1);
	ck_assert_int_eq(fake.nframes, 0);
	ck_assert_uint_eq(fake.armed, 0);

	/* damage that turns out to draw nothing */
	fake.render_nothing = true;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	run_until(&fake, fake.now + 5 * P);
	ck_assert_int_eq(fake.nframes, 0);
	ck_assert_uint_eq(fake.armed, 0);
	ck_assert_int_eq(vt_pacer_max_in_flight(fake.pacer), 0);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* The legacy policy renders at the vblank after the damage for the one
 * after that (two periods), synchronously. */
START_TEST(test_pacing_legacy_two_periods) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_MODEL, &vt_policy_legacy);
	fake.render_sync = true;
	fake.now = T0 + 1 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	ck_assert_uint_eq(fake.armed, T0 + P);
	run_until(&fake, T0 + P);
	ck_assert_int_eq(fake.nframes, 1);
	ck_assert_uint_eq(last_frame(&fake)->display_ns, T0 + 2 * P);
	ck_assert(!last_frame(&fake)->committed);
	run_until(&fake, T0 + 2 * P);
	ck_assert(last_frame(&fake)->committed);
	ck_assert_int_eq(fake.late, 0);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* A refresh-rate change re-phases: the next frame is on the new grid. */
START_TEST(test_pacing_rate_change) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_MODEL, &vt_policy_legacy);
	fake.render_sync = true;
	const uint64_t p144 = 6944444;
	fake.now = T0 + 5 * MS;
	vt_pacer_set_period(fake.pacer, p144, fake.now);
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	run_until(&fake, fake.now + 10 * p144);
	ck_assert_int_eq(fake.nframes, 1);
	ck_assert_uint_eq(last_frame(&fake)->display_ns, T0 + 5 * MS + 2 * p144);
	ck_assert_uint_eq(last_frame(&fake)->commit_vblank, T0 + 5 * MS + 2 * p144);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* ---- pacer: backend clock ------------------------------------------------ */

/* A ready frame is committed at once when the backend is free; while a
 * commit waits for its frame event, newer ready frames queue and only the
 * newest is committed (the older one is replaced, never shown). Present
 * events calibrate the clock. */
START_TEST(test_pacing_backend_latest_wins) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_BACKEND, &vt_policy_vsync);
	fake.render_sync = true;
	/* the parent's vblanks are 4 ms off our initial guess */
	const uint64_t phase = T0 + 4 * MS;
	vt_pacer_presented(fake.pacer, NULL, true, phase, P);
	fake.now = phase + 1 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	run_until(&fake, phase + P);
	ck_assert_int_eq(fake.nframes, 1);
	struct fake_frame *first = &fake.frames[0];
	ck_assert_uint_eq(first->display_ns, phase + P);
	ck_assert(first->committed);

	/* two more frames while the backend is busy */
	for (int i = 0; i < 2; i++) {
		vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
		run_until(&fake, fake.armed);
	}
	ck_assert_int_eq(fake.nframes, 3);
	ck_assert(!fake.frames[1].committed && !fake.frames[2].committed);
	ck_assert_int_eq(vt_pacer_ready(fake.pacer), 2);
	ck_assert(!vt_pacer_presented(fake.pacer, first, true, phase + P, P));
	fake.now += 100 * US;
	vt_pacer_backend_frame(fake.pacer, fake.now);
	ck_assert(fake.frames[1].discarded);
	ck_assert(fake.frames[2].committed);
	ck_assert_uint_eq(vt_pacer_replaced(fake.pacer), 1);
	/* shown a period after its display time: late */
	ck_assert(vt_pacer_presented(fake.pacer, &fake.frames[2], true,
			fake.frames[2].display_ns + P, P));
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* A commit the backend refuses (a nested parent that does not take the
 * buffer): the frame is discarded and, as no frame event will come for
 * it, the pacer asks the backend for one, whose event draws the frame
 * again and commits it. */
START_TEST(test_pacing_backend_commit_fails) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_BACKEND, &vt_policy_vsync);
	fake.render_sync = true;
	fake.fail_commits = 1;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	run_until(&fake, fake.now + P);
	ck_assert_int_eq(fake.nframes, 1);
	ck_assert(fake.frames[0].discarded && !fake.frames[0].committed);
	ck_assert_int_ge(fake.backend_requests, 1);
	ck_assert_uint_eq(fake.armed, 0); /* nothing else would wake it */
	vt_pacer_backend_frame(fake.pacer, fake.now);
	run_until(&fake, fake.now + P);
	ck_assert_int_eq(fake.nframes, 2);
	ck_assert(fake.frames[1].committed);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* Callbacks with the backend clock wait for the backend's frame event. */
START_TEST(test_pacing_backend_callbacks) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_BACKEND, &vt_policy_vsync);
	vt_pacer_request(fake.pacer, VT_PACER_CALLBACKS, fake.now);
	ck_assert_int_eq(fake.backend_requests, 1);
	ck_assert_int_eq(fake.frame_dones, 0);
	vt_pacer_backend_frame(fake.pacer, fake.now + 1 * MS);
	ck_assert_int_eq(fake.frame_dones, 1);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* D-VSync on the backend clock (nested): frames rendered ahead wait for
 * their vblanks, and while they wait the pacer asks the backend for frame
 * events (a request never commits; without a frame event nothing would
 * wake the pacer for them). Each frame event commits the frame due. */
START_TEST(test_pacing_backend_dvsync_waits_for_its_vblank) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_BACKEND, &vt_policy_dvsync);
	vt_pacer_set_prerender(fake.pacer, 3);
	vt_pacer_set_predictable(fake.pacer, true);
	fake.render_sync = true;
	vt_pacer_presented(fake.pacer, NULL, true, T0, P);
	/* three frames, one vblank apart, ready and waiting */
	fake.now = T0 + 1 * MS;
	for (int i = 0; i < 3; i++) {
		vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	}
	ck_assert_int_eq(fake.nframes, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(fake.frames[i].display_ns,
				T0 + (uint64_t)(i + 1) * P);
		ck_assert(!fake.frames[i].committed);
	}
	ck_assert_int_gt(fake.backend_requests, 0);
	/* the frame event commits the first, the others wait */
	vt_pacer_backend_frame(fake.pacer, fake.now + 100 * US);
	ck_assert(fake.frames[0].committed && !fake.frames[1].committed);
	ck_assert_uint_eq(fake.frames[0].commit_vblank, T0 + P);
	/* presented; the next frame event commits the second for its vblank */
	ck_assert(
			!vt_pacer_presented(fake.pacer, &fake.frames[0], true, T0 + P, P));
	vt_pacer_backend_frame(fake.pacer, T0 + P + 100 * US);
	ck_assert(fake.frames[1].committed && !fake.frames[2].committed);
	ck_assert_uint_eq(fake.frames[1].commit_vblank, T0 + 2 * P);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* Destroying a pacer drops the frames it still tracks. */
START_TEST(test_pacing_destroy_discards) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_MODEL, &vt_policy_vsync);
	fake.now = T0 + 1 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	run_until(&fake, fake.armed);
	ck_assert_int_eq(fake.nframes, 1);
	vt_pacer_destroy(fake.pacer);
	ck_assert(fake.frames[0].discarded);
	ck_assert_uint_eq(fake.armed, 0);
}
END_TEST

/* ---- pacer: D-VSync's frame pre-executor --------------------------------- */

static uint64_t cost_2ms(int id) {
	return 2 * MS;
}

/* Frame 12 of an animation takes 2.5 refresh periods; the others 2 ms. */
static uint64_t cost_one_long(int id) {
	return id == 12 ? 5 * P / 2 : 2 * MS;
}

/* An animation on a model clock with D-VSync, pre-render limit 3. */
static void dvsync_init(struct fake *fake, uint64_t (*cost)(int id)) {
	fake_init(fake, VT_PACER_CLOCK_MODEL, &vt_policy_dvsync);
	vt_pacer_set_prerender(fake->pacer, 3);
	vt_pacer_set_predictable(fake->pacer, true);
	fake->animating = true;
	fake->cost = cost;
}

/* Accumulation: frames render back to back, each for the vblank after the
 * one before, until three are queued; then the sync stage: one new frame
 * per vblank, the queue full, every frame shown at its display time. */
START_TEST(test_pacing_dvsync_stages) {
	struct fake fake;
	dvsync_init(&fake, cost_2ms);
	fake.now = T0 + 1 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	/* the first starts at once, for the first vblank its predicted
	 * composition (half a period before anything is measured) makes */
	ck_assert_int_eq(fake.nframes, 1);
	ck_assert_uint_eq(fake.frames[0].display_ns, T0 + P);
	simulate(&fake, T0 + 7 * MS + 1);
	/* three rendered back to back by T0 + 7 ms, one vblank apart */
	ck_assert_int_eq(fake.nframes, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(fake.frames[i].display_ns,
				T0 + (uint64_t)(i + 1) * P);
	}
	ck_assert_int_eq(vt_pacer_queued(fake.pacer), 3);
	/* sync stage: the queue stays full, one frame per vblank */
	for (int k = 1; k <= 30; k++) {
		simulate(&fake, T0 + (uint64_t)k * P + 3 * MS);
		ck_assert_int_eq(fake.nframes, 3 + k);
		ck_assert_int_eq(vt_pacer_queued(fake.pacer), 3);
		ck_assert_uint_eq(last_frame(&fake)->display_ns,
				T0 + (uint64_t)(k + 3) * P);
	}
	for (int i = 0; i < 30; i++) {
		ck_assert(fake.frames[i].committed);
		ck_assert_uint_eq(fake.frames[i].commit_vblank,
				fake.frames[i].display_ns);
	}
	ck_assert_int_eq(fake.late, 0);
	ck_assert_uint_eq(vt_pacer_replaced(fake.pacer), 0);
	ck_assert_int_eq(vt_pacer_max_in_flight(fake.pacer), 3);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* Count the vblanks in [from, to] that committed no frame. */
static int vblanks_missed(const struct fake *fake, uint64_t from, uint64_t to) {
	int missed = 0;
	for (uint64_t v = from; v <= to; v += P) {
		bool shown = false;
		for (int i = 0; i < fake->nframes; i++) {
			shown |= fake->frames[i].committed &&
					fake->frames[i].commit_vblank == v;
		}
		missed += !shown;
	}
	return missed;
}

/* One frame of 2.5 periods: under VSync the animation misses vblanks;
 * with three frames queued ahead, D-VSync shows a frame at every vblank,
 * each at its own display time. */
START_TEST(test_pacing_dvsync_absorbs_long_frame) {
	struct fake vsync, dvsync;
	fake_init(&vsync, VT_PACER_CLOCK_MODEL, &vt_policy_vsync);
	vsync.animating = true;
	vsync.cost = cost_one_long;
	dvsync_init(&dvsync, cost_one_long);
	struct fake *fakes[2] = { &vsync, &dvsync };
	for (int f = 0; f < 2; f++) {
		fakes[f]->now = T0 + 1 * MS;
		vt_pacer_request(fakes[f]->pacer, VT_PACER_RENDER, fakes[f]->now);
		simulate(fakes[f], T0 + 40 * P + 1);
	}
	int missed_vsync = vblanks_missed(&vsync, T0 + 2 * P, T0 + 40 * P);
	int missed_dvsync = vblanks_missed(&dvsync, T0 + 2 * P, T0 + 40 * P);
	ck_assert_msg(missed_vsync >= 2, "vsync missed %d vblanks", missed_vsync);
	ck_assert_msg(missed_dvsync == 0, "dvsync missed %d vblanks",
			missed_dvsync);
	ck_assert_int_eq(dvsync.late, 0);
	/* every frame was shown at the display time it was rendered for */
	for (int i = 0; i < dvsync.nframes; i++) {
		if (dvsync.frames[i].committed) {
			ck_assert_uint_eq(dvsync.frames[i].commit_vblank,
					dvsync.frames[i].display_ns);
		}
	}
	vt_pacer_destroy(vsync.pacer);
	vt_pacer_destroy(dvsync.pacer);
}
END_TEST

/* Input: ready frames rendered ahead are discarded, the one rendering is
 * discarded once ready, committed ones stay, and the next frame goes to
 * the first vblank it can make. */
START_TEST(test_pacing_dvsync_discard_on_input) {
	struct fake fake;
	dvsync_init(&fake, cost_2ms);
	fake.now = T0 + 1 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	simulate(&fake, T0 + 5 * P + 1 * MS);
	/* frames for T0 + 5P (committed), 6P, 7P (ready), 8P (rendering) */
	int before = fake.nframes;
	ck_assert_int_eq(vt_pacer_queued(fake.pacer), 3);
	struct fake_frame *committed = NULL;
	for (int i = 0; i < fake.nframes; i++) {
		if (fake.frames[i].display_ns == T0 + 5 * P) {
			committed = &fake.frames[i];
		}
	}
	ck_assert_ptr_nonnull(committed);
	ck_assert(committed->committed);
	/* a key press: what comes next is not predictable */
	fake.animating = false;
	vt_pacer_set_predictable(fake.pacer, false);
	vt_pacer_discard_ahead(fake.pacer, fake.now);
	int discarded = 0;
	for (int i = 0; i < before; i++) {
		discarded += fake.frames[i].discarded;
		ck_assert(!(fake.frames[i].discarded && fake.frames[i].committed));
	}
	ck_assert_int_ge(discarded, 1);
	ck_assert(!committed->discarded);
	simulate(&fake, T0 + 9 * P);
	/* nothing rendered for T0 + 6P .. 8P was shown */
	for (int i = 0; i < before; i++) {
		if (fake.frames[i].display_ns > T0 + 5 * P) {
			ck_assert(fake.frames[i].discarded);
		}
	}
	/* the input's frame: vsync, the first vblank after T0 + 5P + 1 ms +
	 * the composition estimate (2 ms measured + 0.5 + 1 ms) */
	ck_assert_int_eq(fake.nframes, before + 1);
	ck_assert_uint_eq(last_frame(&fake)->display_ns, T0 + 6 * P);
	ck_assert(last_frame(&fake)->committed);
	ck_assert_uint_eq(vt_pacer_discarded_stale(fake.pacer),
			(uint64_t)discarded + 1);
	/* input at T0 + 9P - 1 ms, with a frame for T0 + 9P ready (it
	 * could not be rendered again in time) and one rendering for
	 * T0 + 10P: only the latter goes */
	fake.animating = true;
	vt_pacer_set_predictable(fake.pacer, true);
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	simulate(&fake, T0 + 12 * P - 1 * MS);
	struct fake_frame *soon = NULL, *later = NULL;
	for (int i = 0; i < fake.nframes; i++) {
		if (fake.frames[i].discarded || fake.frames[i].committed) {
			continue;
		}
		if (fake.frames[i].display_ns == T0 + 12 * P) {
			soon = &fake.frames[i];
		} else if (later == NULL) {
			later = &fake.frames[i];
		}
	}
	ck_assert_ptr_nonnull(soon);
	ck_assert_ptr_nonnull(later);
	vt_pacer_set_predictable(fake.pacer, false);
	vt_pacer_discard_ahead(fake.pacer, fake.now);
	ck_assert(!soon->discarded);
	simulate(&fake, T0 + 12 * P + 1 * MS);
	ck_assert(soon->committed);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* An animation whose first display time shows no change (the render
 * draws nothing) still gets its frames: the next one goes to a later
 * display time, at once or at the next vblank, never stalls. */
START_TEST(test_pacing_dvsync_nothing_to_draw) {
	struct fake fake;
	dvsync_init(&fake, cost_2ms);
	fake.render_nothing = true;
	fake.now = T0 + 1 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	ck_assert_int_eq(fake.nframes, 0);
	/* the animation asked again: the pacer comes back to it */
	ck_assert_uint_ne(fake.armed, 0);
	fake.render_nothing = false;
	simulate(&fake, T0 + 3 * P);
	ck_assert_int_gt(fake.nframes, 0);
	ck_assert_uint_gt(fake.frames[0].display_ns, T0 + P);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* A refresh-rate change with frames rendered ahead: the frames queued
 * for 60 Hz are shown at their 60 Hz display times, then the clock
 * re-phases at 120 Hz and frames follow on the new grid. */
START_TEST(test_pacing_dvsync_rate_change) {
	struct fake fake;
	dvsync_init(&fake, cost_2ms);
	fake.now = T0 + 1 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	simulate(&fake, T0 + 10 * MS);
	ck_assert_int_eq(fake.nframes, 3); /* T0 + P, 2P, 3P queued */
	const uint64_t p120 = 8333333;
	vt_pacer_set_period(fake.pacer, p120, fake.now);
	simulate(&fake, T0 + 3 * P + 1 * MS);
	/* the three old-rate frames: each at its own display time */
	for (int i = 0; i < 3; i++) {
		ck_assert(fake.frames[i].committed);
		ck_assert_uint_eq(fake.frames[i].commit_vblank,
				T0 + (uint64_t)(i + 1) * P);
	}
	simulate(&fake, T0 + 3 * P + 40 * p120);
	ck_assert_int_gt(fake.nframes, 10);
	/* after the drain: one frame per 120 Hz period, in order */
	int after = 0;
	for (int i = 4; i < fake.nframes; i++) {
		if (fake.frames[i].committed && fake.frames[i - 1].committed &&
				fake.frames[i - 1].display_ns > T0 + 3 * P) {
			ck_assert_uint_eq(fake.frames[i].display_ns -
							fake.frames[i - 1].display_ns,
					p120);
			after++;
		}
	}
	ck_assert_int_gt(after, 20);
	ck_assert_int_eq(fake.late, 0);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* Not predictable: D-VSync is the vsync policy (just in time, one frame);
 * the limit is capped to what the pacer tracks. */
START_TEST(test_pacing_dvsync_unpredictable_is_vsync) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_MODEL, &vt_policy_dvsync);
	vt_pacer_set_prerender(fake.pacer, 99);
	ck_assert_int_eq(vt_pacer_prerender_limit(fake.pacer),
			VT_PACER_FRAMES_MAX - 1);
	vt_pacer_set_predictable(fake.pacer, false);
	fake.now = T0 + 1 * MS;
	vt_pacer_request(fake.pacer, VT_PACER_RENDER, fake.now);
	ck_assert_int_eq(fake.nframes, 0);
	uint64_t composition = vt_pacer_composition_ns(fake.pacer);
	ck_assert_uint_eq(fake.armed, T0 + P - composition);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* ---- latching of commits queued for a display time ------------------- */

/* Latch what is due for a frame at display d; returns how many, their
 * seqs in out. */
static int latch_frame(struct vt_latch_queue *q, uint64_t d, uint32_t *out) {
	int n = 0;
	uint32_t seq;
	while (vt_latch_next_due(q, d, P, &seq)) {
		out[n++] = seq;
	}
	return n;
}

/* Commits for consecutive vblanks are latched one per frame, each by the
 * frame for its display time (half a period of slack either way), in
 * order; a fifo commit behind them goes one refresh after the last. */
START_TEST(test_pacing_latch_in_order) {
	struct vt_latch_queue q = { 0 };
	for (uint32_t i = 0; i < 3; i++) {
		ck_assert(vt_latch_push(&q, 10 + i, T0 + (uint64_t)(i + 2) * P, false));
	}
	ck_assert(vt_latch_push(&q, 20, 0, true));
	ck_assert_uint_eq(vt_latch_last_target(&q), T0 + 4 * P);
	uint32_t out[8];
	ck_assert_int_eq(latch_frame(&q, T0 + P, out), 0); /* too early */
	/* a target just under half a period after the frame is due */
	for (uint32_t i = 0; i < 3; i++) {
		ck_assert_int_eq(latch_frame(&q, T0 + (uint64_t)(i + 2) * P, out), 1);
		ck_assert_uint_eq(out[0], 10 + i);
	}
	/* the fifo one: not in the frame that latched the last targeted */
	ck_assert_int_eq(latch_frame(&q, T0 + 4 * P, out), 0);
	ck_assert_int_eq(latch_frame(&q, T0 + 5 * P, out), 1);
	ck_assert_uint_eq(out[0], 20);
	ck_assert_uint_eq(q.len, 0);
	ck_assert_uint_eq(vt_latch_last_target(&q), 0);
	/* what it holds, latched too: the last targeted one's time */
	ck_assert_uint_eq(vt_latch_queued_until(&q), T0 + 4 * P);
}
END_TEST

/* The fifo barrier: set between frames, it holds through the next frame
 * (which draws that commit) and clears at the one after; set by a commit
 * the frame for d latched, the frame for d draws it, so the wait_barrier
 * commit behind it goes at the next. A wait_barrier commit with a target
 * waits for both. A commit no frame draws holds it for two frames. */
START_TEST(test_pacing_latch_barrier) {
	struct vt_latch_queue q = { 0 };
	uint32_t out[8];
	vt_latch_set_barrier(&q, 0); /* a commit applied between frames */
	ck_assert(vt_latch_push_barrier(&q, 1, 0));
	vt_latch_frame(&q, T0 + P);
	ck_assert_int_eq(latch_frame(&q, T0 + P, out), 0);
	ck_assert(q.barrier);
	/* the same display time latched again: still held */
	vt_latch_frame(&q, T0 + P);
	ck_assert_int_eq(latch_frame(&q, T0 + P, out), 0);
	vt_latch_drawn(&q);
	vt_latch_frame(&q, T0 + 2 * P);
	ck_assert(!q.barrier);
	ck_assert_int_eq(latch_frame(&q, T0 + 2 * P, out), 1);
	ck_assert_uint_eq(out[0], 1);
	/* commit 1 set a barrier as it applied in the frame for 2P */
	vt_latch_set_barrier(&q, T0 + 2 * P);
	ck_assert(vt_latch_push_barrier(&q, 2, 0));
	ck_assert(vt_latch_push_barrier(&q, 3, T0 + 5 * P));
	vt_latch_frame(&q, T0 + 2 * P);
	ck_assert_int_eq(latch_frame(&q, T0 + 2 * P, out), 0);
	vt_latch_drawn(&q);
	vt_latch_frame(&q, T0 + 3 * P);
	ck_assert_int_eq(latch_frame(&q, T0 + 3 * P, out), 1);
	ck_assert_uint_eq(out[0], 2);
	vt_latch_set_barrier(&q, T0 + 3 * P);
	vt_latch_drawn(&q);
	/* 3: barrier clear at 4P but its target is 5P */
	vt_latch_frame(&q, T0 + 4 * P);
	ck_assert_int_eq(latch_frame(&q, T0 + 4 * P, out), 0);
	vt_latch_frame(&q, T0 + 5 * P);
	ck_assert_int_eq(latch_frame(&q, T0 + 5 * P, out), 1);
	ck_assert_uint_eq(out[0], 3);
	/* without a barrier set, wait_barrier does not wait */
	ck_assert(vt_latch_push_barrier(&q, 4, 0));
	ck_assert(vt_latch_push_barrier(&q, 5, 0));
	vt_latch_frame(&q, T0 + 6 * P);
	ck_assert_int_eq(latch_frame(&q, T0 + 6 * P, out), 2);
	/* 5 set one, no frame draws it (the frame for 6P did not, nor the
	 * one for 7P): it holds 6 at 7P, not at 8P */
	vt_latch_set_barrier(&q, T0 + 6 * P);
	ck_assert(vt_latch_push_barrier(&q, 6, 0));
	vt_latch_frame(&q, T0 + 7 * P);
	ck_assert_int_eq(latch_frame(&q, T0 + 7 * P, out), 0);
	vt_latch_frame(&q, T0 + 8 * P);
	ck_assert_int_eq(latch_frame(&q, T0 + 8 * P, out), 1);
}
END_TEST

/* A frame that comes late (the main thread was busy for three periods)
 * latches every commit due by its display time, in order: the last is
 * what it shows; the next one still goes at its own time. */
START_TEST(test_pacing_latch_late_frame) {
	struct vt_latch_queue q = { 0 };
	for (uint32_t i = 0; i < 5; i++) {
		ck_assert(vt_latch_push(&q, i, T0 + (uint64_t)(i + 1) * P, false));
	}
	uint32_t out[8];
	ck_assert_int_eq(latch_frame(&q, T0 + P, out), 1);
	/* frames for 2P and 3P never came: the one for 4P latches 1, 2, 3 */
	ck_assert_int_eq(latch_frame(&q, T0 + 4 * P, out), 3);
	ck_assert_uint_eq(out[0], 1);
	ck_assert_uint_eq(out[1], 2);
	ck_assert_uint_eq(out[2], 3);
	ck_assert_int_eq(latch_frame(&q, T0 + 5 * P, out), 1);
	ck_assert_uint_eq(out[0], 4);
	/* half a period off the grid either way still counts as its slot */
	ck_assert(vt_latch_push(&q, 9, T0 + 6 * P + P / 3, false));
	ck_assert_int_eq(latch_frame(&q, T0 + 6 * P, out), 1);
	ck_assert(vt_latch_push(&q, 10, T0 + 7 * P + 2 * P / 3, false));
	ck_assert_int_eq(latch_frame(&q, T0 + 7 * P, out), 0);
	ck_assert_int_eq(latch_frame(&q, T0 + 8 * P, out), 1);
}
END_TEST

/* The queue holds VT_LATCH_QUEUE_MAX commits, no more. */
START_TEST(test_pacing_latch_full) {
	struct vt_latch_queue q = { 0 };
	for (uint32_t i = 0; i < VT_LATCH_QUEUE_MAX; i++) {
		ck_assert(vt_latch_push(&q, i, T0 + (uint64_t)i * P, false));
	}
	ck_assert(!vt_latch_push(&q, 99, T0, false));
	ck_assert_uint_eq(q.len, VT_LATCH_QUEUE_MAX);
}
END_TEST

/* Timeline slots: on the vblank grid, the first the composition estimate
 * can make, one period apart, deadlines the estimate before; after queued
 * frames, they start after the last one. */
START_TEST(test_pacing_timeline_slots) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_MODEL, &vt_policy_vsync);
	uint64_t display[4], deadline[4];
	uint64_t composition = vt_pacer_composition_ns(fake.pacer);
	ck_assert_int_eq(vt_pacer_display_slots(fake.pacer, T0 + 1 * MS, 0, display,
							 deadline, 4),
			4);
	/* nothing measured: the estimate is half a period */
	ck_assert_uint_eq(composition, P / 2);
	ck_assert_uint_eq(display[0], T0 + P);
	for (int i = 0; i < 4; i++) {
		ck_assert_uint_eq(display[i], T0 + (uint64_t)(i + 1) * P);
		ck_assert_uint_eq(deadline[i], display[i] - composition);
	}
	/* too late for T0 + P: the first slot is the next one */
	vt_pacer_display_slots(fake.pacer, T0 + P - P / 4, 0, display, deadline, 1);
	ck_assert_uint_eq(display[0], T0 + 2 * P);
	/* after frames queued up to T0 + 6P */
	vt_pacer_display_slots(fake.pacer, T0 + 1 * MS, T0 + 6 * P, display,
			deadline, 2);
	ck_assert_uint_eq(display[0], T0 + 7 * P);
	ck_assert_uint_eq(display[1], T0 + 8 * P);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

/* ---- the low-latency path (jitt.c, path.c) ------------------------------ */

/* The predictor favours over-prediction: the 90th percentile of the last
 * 32 callback-to-commit times plus an eighth (hand-computed: samples 1 to
 * 40 ms, the last 32 are 9..40, the 90th percentile of 32 is the 29th
 * smallest, 9 + 28 = 37 ms; 37 + 37/8 = 41.625 ms). */
START_TEST(test_pacing_jitt_upper_end) {
	struct vt_jitt jitt;
	vt_jitt_init(&jitt);
	ck_assert_uint_eq(vt_jitt_app_ns(&jitt, P), P / 4);
	for (uint64_t i = 1; i <= 40; i++) {
		vt_jitt_sent(&jitt, T0, T0 + 100 * MS);
		vt_jitt_commit(&jitt, T0 + i * MS, false, T0 + 100 * MS);
	}
	ck_assert_uint_eq(vt_jitt_app_ns(&jitt, P), 41625 * US);
	ck_assert_uint_eq(jitt.misses, 0);
}
END_TEST

/* A commit that misses its refresh raises the prediction to its own time
 * (plus an eighth) for the next 32 commits, then the history decides. */
START_TEST(test_pacing_jitt_recovers_after_miss) {
	struct vt_jitt jitt;
	vt_jitt_init(&jitt);
	for (int i = 0; i < 40; i++) {
		vt_jitt_sent(&jitt, T0, T0 + P);
		vt_jitt_commit(&jitt, T0 + 2 * MS, false, T0 + P);
	}
	ck_assert_uint_eq(vt_jitt_app_ns(&jitt, P), 2250 * US);
	/* 8 ms: too late for its refresh, shown one later */
	vt_jitt_sent(&jitt, T0, T0 + P);
	vt_jitt_commit(&jitt, T0 + 8 * MS, false, T0 + 2 * P);
	ck_assert_uint_eq(jitt.misses, 1);
	ck_assert_uint_eq(vt_jitt_app_ns(&jitt, P), 9 * MS);
	for (int i = 0; i < 31; i++) {
		vt_jitt_sent(&jitt, T0, T0 + P);
		vt_jitt_commit(&jitt, T0 + 2 * MS, false, T0 + P);
		ck_assert_uint_eq(vt_jitt_app_ns(&jitt, P), 9 * MS);
	}
	/* the floor has run out; the 8 ms sample is one of 32, under the
	 * 90th percentile */
	vt_jitt_sent(&jitt, T0, T0 + P);
	vt_jitt_commit(&jitt, T0 + 2 * MS, false, T0 + P);
	ck_assert_uint_eq(vt_jitt_app_ns(&jitt, P), 2250 * US);
}
END_TEST

/* The trigger: T'app + Tout before the first refresh that leaves that
 * much time, and not before the first refresh whose composition has not
 * started. */
START_TEST(test_pacing_jitt_trigger) {
	struct vt_clock clock;
	vt_clock_init(&clock, P, T0);
	struct vt_jitt jitt;
	vt_jitt_init(&jitt);
	for (int i = 0; i < 32; i++) {
		vt_jitt_sent(&jitt, T0, T0 + P);
		vt_jitt_commit(&jitt, T0 + 4 * MS, false, T0 + P);
	}
	/* T' = 4.5 + 3 + 0.5 ms */
	uint64_t target;
	uint64_t at =
			vt_jitt_trigger(&jitt, &clock, T0 + 1 * MS, 3 * MS, 0, &target);
	ck_assert_uint_eq(target, T0 + P);
	ck_assert_uint_eq(at, T0 + P - 8 * MS);
	/* too late for T0 + P: the next refresh */
	at = vt_jitt_trigger(&jitt, &clock, T0 + P - 7500 * US, 3 * MS, 0, &target);
	ck_assert_uint_eq(target, T0 + 2 * P);
	ck_assert_uint_eq(at, T0 + 2 * P - 8 * MS);
	/* the composition for T0 + P started already */
	at = vt_jitt_trigger(&jitt, &clock, T0 + 1 * MS, 3 * MS, T0 + 2 * P,
			&target);
	ck_assert_uint_eq(target, T0 + 2 * P);
}
END_TEST

/* A model of an output and a low-latency client, independent of the
 * glue: the output composes for refresh v at v - out (what was committed
 * by then is in it); the client answers each callback after its render
 * time. */
struct jitt_sim {
	struct vt_clock clock;
	struct vt_path_state state;
	uint64_t out, now;
	uint64_t last_shows; /* the refresh the latest commit makes */
	bool last_shown;
	int frames, drops, run, longest, misses;
	uint64_t latency_sum; /* callback sent -> shown */
	uint64_t sent, sent_target;
};

static uint64_t sim_makes(struct jitt_sim *sim, uint64_t t) {
	return vt_clock_next_vblank(&sim->clock, t + sim->out - 1);
}

static void sim_compose_until(struct jitt_sim *sim, uint64_t t) {
	if (!sim->last_shown && sim->last_shows - sim->out <= t) {
		sim->last_shown = true;
		vt_path_shown(&sim->state);
	}
}

static void sim_init(struct jitt_sim *sim, uint64_t out) {
	*sim = (struct jitt_sim){ .out = out,
		.now = T0 + 1 * MS,
		.last_shown = true };
	vt_clock_init(&sim->clock, P, T0);
	vt_path_init(&sim->state, VT_PATH_LOW_LATENCY);
	vt_path_commit(&sim->state, VT_PATH_LOW_LATENCY, true, false, false,
			sim_makes(sim, sim->now), sim->now);
}

/* One frame: wait for the callback, render for render_ns, commit. */
static void sim_frame(struct jitt_sim *sim, uint64_t render_ns) {
	uint64_t at;
	enum vt_path_send send = vt_path_schedule(&sim->state, &sim->clock,
			sim->now, sim->out, sim_makes(sim, sim->now), false,
			!sim->last_shown, sim->last_shows, &at);
	ck_assert_int_eq(send, VT_PATH_SEND_AT);
	ck_assert_uint_ge(at, sim->now);
	sim->now = at;
	sim_compose_until(sim, sim->now);
	vt_path_sent(&sim->state, sim->now);
	sim->sent = sim->now;
	sim->sent_target = sim->state.jitt.target_ns;
	uint64_t commit = sim->now + render_ns;
	sim_compose_until(sim, commit);
	bool replaced = !sim->last_shown;
	uint64_t shows = sim_makes(sim, commit);
	sim->frames++;
	if (replaced) {
		sim->drops++;
		sim->run++;
		sim->longest = sim->run > sim->longest ? sim->run : sim->longest;
	} else {
		sim->run = 0;
	}
	if (shows > sim->sent_target) {
		sim->misses++;
	}
	sim->latency_sum += shows - sim->sent;
	vt_path_commit(&sim->state, VT_PATH_LOW_LATENCY, true, true, replaced,
			shows, commit);
	sim->last_shows = shows;
	sim->last_shown = false;
	sim->now = commit;
}

/* Steady 2 ms frames: every answer makes the refresh it was triggered
 * for, and the callback goes well after the previous refresh (not at the
 * vblank, as vsync would): callback to screen is T' = 2.25 + 4 + 0.5 ms,
 * not a period. */
START_TEST(test_pacing_jitt_steady) {
	struct jitt_sim sim;
	sim_init(&sim, 4 * MS);
	for (int i = 0; i < 40; i++) {
		sim_frame(&sim, 2 * MS);
	}
	sim.latency_sum = 0;
	sim.misses = 0;
	for (int i = 0; i < 60; i++) {
		sim_frame(&sim, 2 * MS);
		ck_assert_uint_eq(sim.last_shows, sim.sent_target);
		ck_assert_uint_eq(sim.sent_target - sim.sent, 6750 * US);
	}
	ck_assert_int_eq(sim.misses, 0);
	ck_assert_int_eq(sim.drops, 0);
}
END_TEST

/* Render times that jump (a run of long frames, then long and short
 * frames alternating): late commits are replaced by the next one, but
 * never two in a row; the prediction recovers (misses stop once the
 * floor covers the long frames). */
START_TEST(test_pacing_jitt_drop_rule) {
	struct jitt_sim sim;
	sim_init(&sim, 4 * MS);
	for (int i = 0; i < 40; i++) {
		sim_frame(&sim, 2 * MS);
	}
	ck_assert_int_eq(sim.drops, 0);
	/* a jump to 7 ms: the first one misses its refresh */
	sim_frame(&sim, 7 * MS);
	ck_assert_int_eq(sim.misses, 1);
	ck_assert_uint_gt(sim.last_shows, sim.sent_target);
	/* the next (fast) answer can still make the refresh the late one
	 * makes, and replaces it: one drop */
	sim_frame(&sim, 2 * MS);
	ck_assert_int_eq(sim.drops, 1);
	/* while the floor holds, 7 ms frames make their refresh */
	int misses = sim.misses;
	for (int i = 0; i < 20; i++) {
		sim_frame(&sim, 7 * MS);
	}
	ck_assert_int_eq(sim.misses, misses);
	/* abrupt changes, over and over (each once the floor of the last
	 * has run out), and random render times from 1 to 15 ms: drops,
	 * never two in a row */
	for (int k = 0; k < 8; k++) {
		for (int i = 0; i < 40; i++) {
			sim_frame(&sim, 2 * MS);
		}
		sim_frame(&sim, (uint64_t)(6 + k % 3) * MS);
		sim_frame(&sim, 1 * MS);
	}
	ck_assert_int_ge(sim.drops, 8);
	uint32_t seed = 7;
	for (int i = 0; i < 2000; i++) {
		seed = seed * 1103515245u + 12345u;
		sim_frame(&sim, 1 * MS + (uint64_t)((seed >> 16) % 14000) * US);
	}
	ck_assert_int_gt(sim.drops, 1);
	ck_assert_int_le(sim.longest, 1);
	ck_assert_uint_le(sim.state.jitt.longest_drop_run, 1);
	ck_assert_uint_eq(sim.state.jitt.drops, (uint64_t)sim.drops);
}
END_TEST

/* After a drop, a late commit is kept: the callback that answers it aims
 * at the refresh after the one it shows at. */
START_TEST(test_pacing_jitt_no_second_drop) {
	struct vt_clock clock;
	vt_clock_init(&clock, P, T0);
	struct vt_path_state st;
	vt_path_init(&st, VT_PATH_LOW_LATENCY);
	/* a replaced commit, then a late one (makes T0 + 3P) */
	vt_path_commit(&st, VT_PATH_LOW_LATENCY, true, true, true, T0 + 3 * P,
			T0 + 2 * P - 2 * MS);
	uint64_t at;
	ck_assert_int_eq(vt_path_schedule(&st, &clock, T0 + 2 * P - 2 * MS, 4 * MS,
							 T0 + 3 * P, false, true, T0 + 3 * P, &at),
			VT_PATH_SEND_AT);
	ck_assert_uint_eq(st.target_ns, T0 + 4 * P);
	ck_assert_uint_gt(at, T0 + 3 * P - 4 * MS); /* after it is composed */
	/* without the drop before, a late answer (its callback aimed at
	 * T0 + 2P) may be replaced: the next refresh is fair game */
	vt_path_init(&st, VT_PATH_LOW_LATENCY);
	vt_path_commit(&st, VT_PATH_LOW_LATENCY, true, false, false, T0 + 2 * P,
			T0 + P + 1 * MS);
	vt_path_schedule(&st, &clock, T0 + P + 1 * MS, 4 * MS, T0 + 2 * P, false,
			false, 0, &at);
	ck_assert_uint_eq(st.target_ns, T0 + 2 * P);
	vt_path_sent(&st, at);
	vt_path_commit(&st, VT_PATH_LOW_LATENCY, true, true, false, T0 + 3 * P,
			T0 + 2 * P - 2 * MS);
	vt_path_schedule(&st, &clock, T0 + 2 * P - 2 * MS, 4 * MS, T0 + 3 * P,
			false, true, T0 + 3 * P, &at);
	ck_assert_uint_eq(st.target_ns, T0 + 3 * P);
}
END_TEST

/*
 * Switching from vsync to low_latency: the switching commit answers a
 * vsync callback (at the vblank T0 + P) and makes the next refresh
 * (T0 + 2P); it is in time, so the low-latency callback it asks for aims
 * at the refresh after it (T0 + 3P), not at T0 + 2P, where the answer
 * would replace a commit that was in time. Likewise a low-latency answer
 * that made its refresh is never replaced by the next one, even from a
 * client fast enough to commit twice before that refresh's composition.
 */
START_TEST(test_pacing_path_switch_keeps_in_time_commit) {
	struct vt_clock clock;
	vt_clock_init(&clock, P, T0);
	struct vt_path_state st;
	vt_path_init(&st, VT_PATH_VSYNC);
	uint64_t at, now = T0 + P + 1 * MS;
	vt_path_commit(&st, VT_PATH_LOW_LATENCY, true, true, false, T0 + 2 * P,
			now);
	ck_assert_int_eq(vt_path_schedule(&st, &clock, now, 4 * MS, T0 + 2 * P,
							 false, true, T0 + 2 * P, &at),
			VT_PATH_SEND_AT);
	ck_assert_uint_eq(st.target_ns, T0 + 3 * P);
	/* sent once T0 + 2P is composed (what it shows is in that frame) */
	ck_assert_uint_ge(at, T0 + 2 * P - 4 * MS);
	vt_path_shown(&st);
	vt_path_sent(&st, at);
	/* a fast answer (0.2 ms) in time for T0 + 3P, asking again: its
	 * own refresh is not offered to the next answer */
	now = at + 200 * US;
	vt_path_commit(&st, VT_PATH_LOW_LATENCY, true, true, false, T0 + 3 * P,
			now);
	ck_assert_int_eq(vt_path_schedule(&st, &clock, now, 4 * MS, T0 + 3 * P,
							 false, true, T0 + 3 * P, &at),
			VT_PATH_SEND_AT);
	ck_assert_uint_eq(st.target_ns, T0 + 4 * P);
}
END_TEST

/* Path integrity: a callback goes by the path of the commit that asked
 * for it, even when the next commit changes the path first; commits
 * queued under pre_render are latched before a low_latency callback
 * goes. */
START_TEST(test_pacing_path_integrity) {
	struct vt_clock clock;
	vt_clock_init(&clock, P, T0);
	struct vt_path_state st;
	vt_path_init(&st, VT_PATH_VSYNC);
	uint64_t at, now = T0 + 1 * MS;
	ck_assert_int_eq(vt_path_schedule(&st, &clock, now, 4 * MS, T0 + P, false,
							 false, 0, &at),
			VT_PATH_SEND_NONE);
	/* a vsync commit asks for a callback, then one switching to
	 * low_latency comes before it went: the callback stays vsync's */
	vt_path_commit(&st, VT_PATH_VSYNC, true, true, false, T0 + P, now);
	vt_path_commit(&st, VT_PATH_LOW_LATENCY, true, true, true, T0 + P,
			now + 1 * MS);
	ck_assert_int_eq(st.path, VT_PATH_LOW_LATENCY);
	ck_assert_int_eq(vt_path_schedule(&st, &clock, now, 4 * MS, T0 + P, false,
							 true, T0 + P, &at),
			VT_PATH_SEND_VBLANK);
	vt_path_sent(&st, T0 + P);
	/* the next one is low_latency's, just in time */
	vt_path_commit(&st, VT_PATH_LOW_LATENCY, true, true, false, T0 + 2 * P,
			T0 + P + 1 * MS);
	ck_assert_int_eq(vt_path_schedule(&st, &clock, T0 + P + 1 * MS, 4 * MS,
							 T0 + 2 * P, false, false, 0, &at),
			VT_PATH_SEND_AT);
	uint64_t scheduled = at;
	ck_assert_uint_gt(at, T0 + P + 1 * MS);
	/* switching back to vsync before it went: it still goes then */
	vt_path_commit(&st, VT_PATH_VSYNC, true, false, false, T0 + 2 * P,
			T0 + P + 2 * MS);
	ck_assert_int_eq(vt_path_schedule(&st, &clock, T0 + P + 2 * MS, 4 * MS,
							 T0 + 2 * P, false, false, 0, &at),
			VT_PATH_SEND_AT);
	ck_assert_uint_eq(at, scheduled);
	vt_path_sent(&st, at);
	vt_path_commit(&st, VT_PATH_VSYNC, true, true, false, T0 + 3 * P,
			at + 2 * MS);
	ck_assert_int_eq(vt_path_schedule(&st, &clock, at + 2 * MS, 4 * MS,
							 T0 + 3 * P, false, false, 0, &at),
			VT_PATH_SEND_VBLANK);
	vt_path_sent(&st, T0 + 3 * P);
	/* from pre_render with commits still queued: vblank until they are
	 * latched, then just in time */
	vt_path_commit(&st, VT_PATH_LOW_LATENCY, true, true, false, T0 + 4 * P,
			T0 + 3 * P + 1 * MS);
	ck_assert_int_eq(vt_path_schedule(&st, &clock, T0 + 3 * P + 1 * MS, 4 * MS,
							 T0 + 4 * P, true, false, 0, &at),
			VT_PATH_SEND_VBLANK);
	ck_assert_int_eq(vt_path_schedule(&st, &clock, T0 + 3 * P + 1 * MS, 4 * MS,
							 T0 + 4 * P, false, false, 0, &at),
			VT_PATH_SEND_AT);
}
END_TEST

/* PAR against the scanout model, hand-computed: 16 ms period, 1000 rows
 * scanned in 96% of it (15.36 us a row): row 500 at vblank + 7.68 ms. */
START_TEST(test_pacing_par_decision) {
	struct vt_scanout scanout = { .period_ns = 16 * MS, .height = 1000 };
	uint64_t v = T0;
	ck_assert_uint_eq(vt_scanout_row_ns(&scanout, v, 0), v);
	ck_assert_uint_eq(vt_scanout_row_ns(&scanout, v, 500), v + 7680 * US);
	ck_assert_uint_eq(vt_scanout_row_ns(&scanout, v, 1000), v + 15360 * US);
	struct vt_par_box damage = { 450, 500, 550, 600 };
	uint64_t shown = 0;
	/* within the 200 box at (500, 550), written by v + 7 ms: tear */
	ck_assert(vt_par_decide(&scanout, v, v + 5 * MS, 2 * MS, &damage, 500, 550,
			200, &shown));
	ck_assert_uint_eq(shown, v + 7680 * US);
	/* the write would end after the scan reached row 500 */
	ck_assert(!vt_par_decide(&scanout, v, v + 6 * MS, 2 * MS, &damage, 500, 550,
			200, &shown));
	/* the damage reaches out of the box (pointer moved away) */
	ck_assert(!vt_par_decide(&scanout, v, v + 1 * MS, 2 * MS, &damage, 500, 700,
			200, &shown));
	struct vt_par_box wide = { 0, 500, 1000, 510 };
	ck_assert(!vt_par_decide(&scanout, v, v + 1 * MS, 2 * MS, &wide, 500, 505,
			200, &shown));
	/* a smaller box, configurable */
	ck_assert(!vt_par_decide(&scanout, v, v + 1 * MS, 2 * MS, &damage, 500, 550,
			50, &shown));
	struct vt_par_box empty = { 10, 10, 10, 20 };
	ck_assert(!vt_par_decide(&scanout, v, v + 1 * MS, 2 * MS, &empty, 10, 10,
			200, &shown));
}
END_TEST

/* vt_pacer_tear: a frame rendered mid-refresh for the time the scan
 * reaches its damage goes at once when ready in time, waits for the next
 * vblank when not, and is refused while another frame is in flight. */
START_TEST(test_pacing_tear) {
	struct fake fake;
	fake_init(&fake, VT_PACER_CLOCK_MODEL, &vt_policy_vsync);
	fake.render_sync = true;
	uint64_t now = T0 + 3 * MS;
	run_until(&fake, now);
	ck_assert(vt_pacer_tear(fake.pacer, T0 + 8 * MS, now));
	ck_assert(last_frame(&fake)->committed);
	ck_assert_uint_eq(last_frame(&fake)->commit_vblank, T0 + 8 * MS);
	ck_assert_int_eq(vt_pacer_queued(fake.pacer), 0);
	/* ready after its time: shown at the next vblank instead */
	fake.render_sync = false;
	now = T0 + P + 3 * MS;
	run_until(&fake, now);
	ck_assert(vt_pacer_tear(fake.pacer, T0 + P + 5 * MS, now));
	struct fake_frame *late = last_frame(&fake);
	/* a second one while it renders: refused */
	ck_assert(!vt_pacer_tear(fake.pacer, T0 + P + 9 * MS, now));
	run_until(&fake, T0 + P + 6 * MS);
	vt_pacer_frame_ready(fake.pacer, late, fake.now);
	ck_assert(!late->committed);
	uint64_t torn_late;
	ck_assert_uint_eq(vt_pacer_torn(fake.pacer, &torn_late), 2);
	ck_assert_uint_eq(torn_late, 1);
	run_until(&fake, T0 + 2 * P + 1 * MS);
	ck_assert(late->committed);
	ck_assert_uint_eq(late->commit_vblank, T0 + 2 * P);
	/* a frame planned after it goes to a later vblank */
	ck_assert_uint_ge(vt_pacer_first_display(fake.pacer, fake.now), T0 + 3 * P);
	vt_pacer_destroy(fake.pacer);
}
END_TEST

static Suite *pacing_suite(void) {
	Suite *s = suite_create("pacing");
	struct {
		const char *name;
		const TTest *tests[12];
	} cases[] = {
		{ "clock",
				{ test_pacing_clock_grid, test_pacing_clock_jitter,
						test_pacing_clock_missed_jump_rate,
						test_pacing_clock_fits_period } },
		{ "vsync",
				{ test_pacing_vsync_just_in_time,
						test_pacing_vsync_commit_to_present_one_period,
						test_pacing_vsync_late_frame,
						test_pacing_vsync_busy_past_vblank,
						test_pacing_vsync_learns_lateness,
						test_pacing_callbacks_and_idle,
						test_pacing_legacy_two_periods, test_pacing_rate_change,
						test_pacing_destroy_discards } },
		{ "backend",
				{ test_pacing_backend_latest_wins,
						test_pacing_backend_commit_fails,
						test_pacing_backend_callbacks,
						test_pacing_backend_dvsync_waits_for_its_vblank } },
		{ "latch",
				{ test_pacing_latch_in_order, test_pacing_latch_late_frame,
						test_pacing_latch_full, test_pacing_timeline_slots,
						test_pacing_latch_barrier } },
		{ "dvsync",
				{ test_pacing_dvsync_stages,
						test_pacing_dvsync_absorbs_long_frame,
						test_pacing_dvsync_discard_on_input,
						test_pacing_dvsync_nothing_to_draw,
						test_pacing_dvsync_rate_change,
						test_pacing_dvsync_unpredictable_is_vsync } },
		{ "low_latency",
				{ test_pacing_jitt_upper_end,
						test_pacing_jitt_recovers_after_miss,
						test_pacing_jitt_trigger, test_pacing_jitt_steady,
						test_pacing_jitt_drop_rule,
						test_pacing_jitt_no_second_drop,
						test_pacing_path_switch_keeps_in_time_commit,
						test_pacing_path_integrity, test_pacing_par_decision,
						test_pacing_tear } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);
		for (int j = 0; j < 12 && cases[i].tests[j] != NULL; j++) {
			tcase_add_test(tc, cases[i].tests[j]);
		}
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void) {
	SRunner *sr = srunner_create(pacing_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
