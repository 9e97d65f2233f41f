/*
 * Scroll-aware rendering's policy (compositor/pacing/scroll.c) on a fake
 * clock: the reuse/overflow decision (the paper's Algorithm 1 in both
 * directions and on both axes), the velocity and render-time estimates,
 * frame requests and their placement, and the fling. Expected values are
 * computed here by hand (the comments show the arithmetic), never by
 * calling the code under test.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "pacing/scroll.h"

#define MS 1000000ull
/* 60 Hz */
#define P 16666667ull
#define T0 (1000 * MS)

static struct vt_scroll_span span(int32_t region, int32_t offset,
		int32_t extent, int32_t content) {
	return (struct vt_scroll_span){
		.region = region,
		.offset = offset,
		.extent = extent,
		.content = content,
	};
}

/* ---- Algorithm 1 ----------------------------------------------------------
 */

/* The paper's figure 5a-c: a screen of H = 400, N = 2 (an 800-pixel
 * frame from 0); up-scrolls of 100, 150 reuse (250 + 400 <= 800), 200
 * more overflows: 450 + 400 = 850 > 800, shown clamped at 400, 50 pixels
 * missing. */
START_TEST(test_scroll_fit_paper_up) {
	struct vt_scroll_span s = span(400, 0, 800, 100000);
	int32_t shown, overflow;
	ck_assert_int_eq(vt_scroll_fit(&s, 100, &shown, &overflow),
			VT_SCROLL_REUSE);
	ck_assert_int_eq(shown, 100);
	ck_assert_int_eq(overflow, 0);
	ck_assert_int_eq(vt_scroll_fit(&s, 250, &shown, &overflow),
			VT_SCROLL_REUSE);
	ck_assert_int_eq(shown, 250);
	/* the window's end at the frame's end still fits: 400 + 400 = 800 */
	ck_assert_int_eq(vt_scroll_fit(&s, 400, &shown, NULL), VT_SCROLL_REUSE);
	ck_assert_int_eq(vt_scroll_fit(&s, 450, &shown, &overflow),
			VT_SCROLL_OVERFLOW_AFTER);
	ck_assert_int_eq(shown, 400);
	ck_assert_int_eq(overflow, 50);
}
END_TEST

/* Both directions (figure 5d, which the paper answers by rendering without
 * pre-rendered content): a frame [1000, 1800) holds windows from 1000 to
 * 1400; 950 is 50 before it, 1401 one after. */
START_TEST(test_scroll_fit_both_directions) {
	struct vt_scroll_span s = span(400, 1000, 800, 100000);
	int32_t shown, overflow;
	ck_assert_int_eq(vt_scroll_fit(&s, 950, &shown, &overflow),
			VT_SCROLL_OVERFLOW_BEFORE);
	ck_assert_int_eq(shown, 1000);
	ck_assert_int_eq(overflow, 50);
	ck_assert_int_eq(vt_scroll_fit(&s, 1000, &shown, &overflow),
			VT_SCROLL_REUSE);
	ck_assert_int_eq(overflow, 0);
	ck_assert_int_eq(vt_scroll_fit(&s, 1400, &shown, NULL), VT_SCROLL_REUSE);
	ck_assert_int_eq(shown, 1400);
	ck_assert_int_eq(vt_scroll_fit(&s, 1401, &shown, &overflow),
			VT_SCROLL_OVERFLOW_AFTER);
	ck_assert_int_eq(shown, 1400);
	ck_assert_int_eq(overflow, 1);
	/* whole pixels: 999.5 rounds to 1000, 999.49 to 999 */
	ck_assert_int_eq(vt_scroll_fit(&s, 999.5, &shown, NULL), VT_SCROLL_REUSE);
	ck_assert_int_eq(vt_scroll_fit(&s, 999.49, &shown, &overflow),
			VT_SCROLL_OVERFLOW_BEFORE);
	ck_assert_int_eq(overflow, 1);
	/* a frame far away: clamped to its nearest window */
	ck_assert_int_eq(vt_scroll_fit(&s, 5000, &shown, &overflow),
			VT_SCROLL_OVERFLOW_AFTER);
	ck_assert_int_eq(shown, 1400);
	ck_assert_int_eq(overflow, 3600);
}
END_TEST

/* The scroll range: content 1000, region 400: positions 0 to 600. A
 * content shorter than the region (300) scrolls nowhere; a frame shorter
 * than the window shows its start. */
START_TEST(test_scroll_fit_content_edges) {
	struct vt_scroll_span s = span(400, 200, 800, 1000);
	int32_t shown, overflow;
	ck_assert_int_eq(vt_scroll_max(&s), 600);
	ck_assert(vt_scroll_clamp(&s, 5000) == 600.0);
	ck_assert(vt_scroll_clamp(&s, -3) == 0.0);
	ck_assert(vt_scroll_clamp(&s, NAN) == 0.0);
	/* 5000 is 600: the window [600, 1000) is the frame's last */
	ck_assert_int_eq(vt_scroll_fit(&s, 5000, &shown, NULL), VT_SCROLL_REUSE);
	ck_assert_int_eq(shown, 600);
	/* -50 is 0, 200 before the frame */
	ck_assert_int_eq(vt_scroll_fit(&s, -50, &shown, &overflow),
			VT_SCROLL_OVERFLOW_BEFORE);
	ck_assert_int_eq(shown, 200);
	ck_assert_int_eq(overflow, 200);

	struct vt_scroll_span shorter = span(400, 0, 300, 300);
	ck_assert_int_eq(vt_scroll_max(&shorter), 0);
	ck_assert_int_eq(vt_scroll_fit(&shorter, 80, &shown, NULL),
			VT_SCROLL_REUSE);
	ck_assert_int_eq(shown, 0);

	/* window 400 over a frame [100, 400): it shows 100, and the window
	 * [100, 500) lacks 100 pixels */
	struct vt_scroll_span small = span(400, 100, 300, 100000);
	ck_assert_int_eq(vt_scroll_fit(&small, 100, &shown, &overflow),
			VT_SCROLL_OVERFLOW_AFTER);
	ck_assert_int_eq(shown, 100);
	ck_assert_int_eq(overflow, 100);
}
END_TEST

/* Both axes: x [0, 500) region 200 frame [100, 400); y region 300 frame
 * [1000, 1600). */
START_TEST(test_scroll_decide_two_axes) {
	struct vt_scroll_span s[2] = {
		span(200, 100, 300, 5000),
		span(300, 1000, 600, 100000),
	};
	bool both[2] = { true, true };
	int32_t shown[2];
	uint32_t mask;
	double inside[2] = { 150, 1200 };
	ck_assert(vt_scroll_decide(s, both, inside, shown, &mask));
	ck_assert_int_eq(mask, 0);
	ck_assert_int_eq(shown[0], 150);
	ck_assert_int_eq(shown[1], 1200);
	/* x 50 before (frame starts at 100), y 1400 after (last window at
	 * 1000 + 600 - 300 = 1300): bits 0 and 3 */
	double outside[2] = { 50, 1400 };
	ck_assert(!vt_scroll_decide(s, both, outside, shown, &mask));
	ck_assert_int_eq(mask, (1u << 0) | (1u << 3));
	ck_assert_int_eq(shown[0], 100);
	ck_assert_int_eq(shown[1], 1300);
	/* x after (frame's last window 100 + 300 - 200 = 200): bit 1 */
	double right[2] = { 260, 1200 };
	ck_assert(!vt_scroll_decide(s, both, right, shown, &mask));
	ck_assert_int_eq(mask, 1u << 1);
	ck_assert_int_eq(shown[0], 200);
	/* only y scrolls: x is not judged, it shows the frame's start */
	bool y_only[2] = { false, true };
	ck_assert(vt_scroll_decide(s, y_only, right, shown, &mask));
	ck_assert_int_eq(shown[0], 100);
	ck_assert_int_eq(shown[1], 1200);
	/* y before: bit 2 */
	double above[2] = { 150, 900 };
	ck_assert(!vt_scroll_decide(s, y_only, above, shown, &mask));
	ck_assert_int_eq(mask, 1u << 2);
}
END_TEST

/* ---- estimates ------------------------------------------------------------
 */

/* Samples every 8 ms at 1000 px/s: 1000; two samples 10 ms and 5 px
 * apart: 500; nothing in the last 100 ms: 0; backwards: negative. */
START_TEST(test_scroll_velocity) {
	struct vt_scroll_velocity v;
	vt_scroll_velocity_reset(&v);
	ck_assert(vt_scroll_velocity_get(&v, T0) == 0.0);
	for (int k = 0; k <= 30; k++) {
		uint64_t t = T0 + (uint64_t)k * 8 * MS;
		vt_scroll_velocity_add(&v, t, t, 8.0 * k);
	}
	double got = vt_scroll_velocity_get(&v, T0 + 240 * MS);
	ck_assert_msg(fabs(got - 1000.0) < 1e-6, "velocity %f", got);
	ck_assert(vt_scroll_velocity_get(&v, T0 + 441 * MS) == 0.0);

	vt_scroll_velocity_reset(&v);
	vt_scroll_velocity_add(&v, T0, T0, 100.0);
	ck_assert(vt_scroll_velocity_get(&v, T0) == 0.0);
	vt_scroll_velocity_add(&v, T0 + 10 * MS, T0 + 10 * MS, 105.0);
	got = vt_scroll_velocity_get(&v, T0 + 10 * MS);
	ck_assert_msg(fabs(got - 500.0) < 1e-6, "velocity %f", got);

	/* a burst: three wheel clicks handled within a millisecond are no
	 * speed */
	vt_scroll_velocity_reset(&v);
	for (int k = 0; k < 3; k++) {
		uint64_t t = T0 + (uint64_t)k * 300000;
		vt_scroll_velocity_add(&v, t, t, 15.0 * k);
	}
	ck_assert(vt_scroll_velocity_get(&v, T0 + MS) == 0.0);

	vt_scroll_velocity_reset(&v);
	for (int k = 0; k < 5; k++) {
		uint64_t t = T0 + (uint64_t)k * 20 * MS;
		vt_scroll_velocity_add(&v, t, t, -2.0 * k);
	}
	got = vt_scroll_velocity_get(&v, T0 + 80 * MS);
	ck_assert_msg(fabs(got + 100.0) < 1e-6, "velocity %f", got);

	/* the events' clock: a finger at 2000 px/s, events stamped 10 ms
	 * apart on a clock of their own (base 8 ms), handled by a busy
	 * vitrail 40-400 ms late and in bursts: the speed is the finger's */
	vt_scroll_velocity_reset(&v);
	const uint64_t handled[10] = { 40, 40, 40, 130, 130, 260, 260, 260, 400,
		400 };
	for (int k = 0; k < 10; k++) {
		vt_scroll_velocity_add(&v, T0 + handled[k] * MS,
				8 * MS + (uint64_t)k * 10 * MS, 20.0 * (k + 1));
	}
	/* at the lift's own timestamp, 10 ms after the last event */
	got = vt_scroll_velocity_get(&v, 8 * MS + 100 * MS);
	ck_assert_msg(fabs(got - 2000.0) < 1e-6, "velocity %f", got);
	/* vitrail's clock mapped by the event handled soonest after it
	 * happened (the third: 12 ms, where the others took 22-330): 400 ms
	 * on vitrail's clock is 388 on the events' */
	ck_assert_uint_eq(vt_scroll_velocity_event_clock(&v, T0 + 400 * MS),
			8 * MS + 380 * MS);
	/* 100 ms after the last event on the events' clock: still; stands */
	ck_assert(
			vt_scroll_velocity_get(&v,
					vt_scroll_velocity_event_clock(&v, T0 + 400 * MS)) == 0.0);
	/* an event handled sooner than any before moves the anchor */
	vt_scroll_velocity_add(&v, T0 + 405 * MS, 8 * MS + 400 * MS, 220.0);
	ck_assert_uint_eq(vt_scroll_velocity_event_clock(&v, T0 + 410 * MS),
			8 * MS + 405 * MS);
	/* a clock that went back starts over */
	vt_scroll_velocity_add(&v, T0 + 420 * MS, 5 * MS, 230.0);
	ck_assert_int_eq(v.n, 1);
}
END_TEST

/* Ten answers of 10 .. 19 ms: the 90th percentile is the 10th of them
 * sorted (index 10 * 9 / 10 = 9): 19 ms, plus an eighth: 21.375 ms. */
START_TEST(test_scroll_render_time) {
	struct vt_scroll_render_time rt = { 0 };
	ck_assert_uint_eq(vt_scroll_render_time_get(&rt, 50 * MS), 50 * MS);
	for (int i = 9; i >= 0; i--) {
		vt_scroll_render_time_add(&rt, (10 + (uint64_t)i) * MS);
	}
	ck_assert_uint_eq(vt_scroll_render_time_get(&rt, 50 * MS),
			19 * MS + 19 * MS / 8);
	/* the ring keeps the last 16: twenty more of 2 ms push them out */
	for (int i = 0; i < 20; i++) {
		vt_scroll_render_time_add(&rt, 2 * MS);
	}
	ck_assert_uint_eq(vt_scroll_render_time_get(&rt, 50 * MS),
			2 * MS + 2 * MS / 8);
}
END_TEST

/* ---- requests and placement ---------------------------------------------- */

START_TEST(test_scroll_frame_extent) {
	ck_assert_int_eq(vt_scroll_frame_extent(400, 100000, 2.0, true), 800);
	ck_assert_int_eq(vt_scroll_frame_extent(400, 100000, 1.5, true), 600);
	ck_assert_int_eq(vt_scroll_frame_extent(400, 100000, 2.5, true), 1000);
	/* N is at most 2.5 */
	ck_assert_int_eq(vt_scroll_frame_extent(400, 100000, 3.0, true), 1000);
	/* 1.25 * 333 = 416.25 */
	ck_assert_int_eq(vt_scroll_frame_extent(333, 100000, 1.25, true), 416);
	/* never more than the content */
	ck_assert_int_eq(vt_scroll_frame_extent(400, 700, 2.0, true), 700);
	/* an axis that does not scroll: the region */
	ck_assert_int_eq(vt_scroll_frame_extent(400, 100000, 2.0, false), 400);
}
END_TEST

/* The margin behind the window: 1000 px/s over a 50 ms lead is 1.5 * 50 +
 * 8 = 83 pixels; at 5000 px/s 383, more than the room (800 - 400) / 2. */
START_TEST(test_scroll_reverse_margin) {
	double m = vt_scroll_reverse_margin(1000.0, 50 * MS, 400, 800);
	ck_assert_msg(fabs(m - 83.0) < 1e-9, "margin %f", m);
	m = vt_scroll_reverse_margin(-1000.0, 50 * MS, 400, 800);
	ck_assert_msg(fabs(m - 83.0) < 1e-9, "margin %f", m);
	ck_assert(vt_scroll_reverse_margin(5000.0, 50 * MS, 400, 800) == 200.0);
	ck_assert(vt_scroll_reverse_margin(0.0, 50 * MS, 400, 800) == 8.0);
}
END_TEST

/* Region 400, frame 800, content 10000. */
START_TEST(test_scroll_place_frame) {
	/* still at 1000 with the whole room (200) as margin: centred,
	 * (1000 + 1000 + 400) / 2 - 400 = 800 */
	ck_assert_int_eq(
			vt_scroll_place_frame(400, 800, 10000, 1000, 1000, 1000, 200), 800);
	/* moving on (down) from 1000, 83 behind: 917 */
	ck_assert_int_eq(
			vt_scroll_place_frame(400, 800, 10000, 1000, 1000, 1e9, 83), 917);
	/* moving back (up): the frame ends 83 after the window's end,
	 * 1000 + 400 + 83 - 800 = 683 */
	ck_assert_int_eq(
			vt_scroll_place_frame(400, 800, 10000, 1000, 1000, -1e9, 83), 683);
	/* a fling from 1000 to 1200 with 50 of margin: 200 + 400 + 100 =
	 * 700 fits in 800, centred on it: (1000 + 1200 + 400) / 2 - 400 =
	 * 900 */
	ck_assert_int_eq(
			vt_scroll_place_frame(400, 800, 10000, 1000, 1000, 1200, 50), 900);
	/* the same path backwards: the same frame */
	ck_assert_int_eq(
			vt_scroll_place_frame(400, 800, 10000, 1200, 1200, 1000, 50), 900);
	/* clamped to the content: centred at 100 would start at -100; at
	 * 9500, (19000 + 400) / 2 - 400 = 9300 > 10000 - 800 = 9200 */
	ck_assert_int_eq(vt_scroll_place_frame(400, 800, 10000, 100, 100, 100, 200),
			0);
	ck_assert_int_eq(
			vt_scroll_place_frame(400, 800, 10000, 9500, 9500, 9500, 200),
			9200);
	/* a prediction far from the window now (3000 when it is at 1000):
	 * the frame still holds the window now, [1000, 1400), from its
	 * start; backwards from 3000 to 1000 predicted: the frame ends with
	 * the window, 3000 + 400 - 800 = 2600 */
	ck_assert_int_eq(
			vt_scroll_place_frame(400, 800, 10000, 1000, 3000, 1e9, 83), 1000);
	ck_assert_int_eq(
			vt_scroll_place_frame(400, 800, 10000, 3000, 1000, -1e9, 83), 2600);
}
END_TEST

/* A window predicted 61 ms ahead at 1000 px/s: 61 px further. Frame
 * [917, 1717): windows up to 1317 fit. */
START_TEST(test_scroll_need_frame) {
	struct vt_scroll_span s = span(400, 917, 800, 10000);
	ck_assert(!vt_scroll_need_frame(&s, 1200 + 61));
	ck_assert(!vt_scroll_need_frame(&s, 1317));
	ck_assert(vt_scroll_need_frame(&s, 1318));
	ck_assert(vt_scroll_need_frame(&s, 916));
	/* the end of the content: no frame beyond it is needed */
	struct vt_scroll_span end = span(400, 9200, 800, 10000);
	ck_assert(!vt_scroll_need_frame(&end, 20000));
}
END_TEST

/*
 * The policy over ten seconds of a steady scroll at 1000 px/s, sampled at
 * 60 Hz display times, with a client that answers frame requests in 40 ms:
 * no frame ever shows a clamped window. Region 400, frame 800. After the
 * first answers the lead is 40 * 9 / 8 = 45 ms plus a period (16.7 ms)
 * plus 2 ms: 63.7 ms, the margin 1000 * 0.0637 * 1.5 + 8 = 103.6 px, so a
 * frame serves 800 - 400 - 103.6 = 296 px: 10000 px / 296 px = 33.7
 * requests, give or take one for the first (centred) frame and the frame
 * grid.
 */
struct sim {
	struct vt_scroll_span s;
	struct vt_scroll_render_time rt;
	bool outstanding;
	uint64_t answer_at;
	int32_t pending_offset;
	uint64_t requested_at;
	int requests, overflows;
};

static uint64_t sim_lead(const struct sim *sim) {
	return vt_scroll_render_time_get(&sim->rt, 50 * MS) + P + 2 * MS;
}

/* One frame at display time t: the answer lands, the window is judged,
 * and maybe a new frame is asked for. pos_at gives the position at a
 * time, to the end of the motion. */
static void sim_frame(struct sim *sim, uint64_t t, double pos, double predicted,
		double to, double velocity) {
	if (sim->outstanding && t >= sim->answer_at) {
		sim->outstanding = false;
		sim->s.offset = sim->pending_offset;
		vt_scroll_render_time_add(&sim->rt, sim->answer_at - sim->requested_at);
	}
	if (vt_scroll_fit(&sim->s, pos, NULL, NULL) != VT_SCROLL_REUSE) {
		sim->overflows++;
	}
	if (!sim->outstanding && vt_scroll_need_frame(&sim->s, predicted)) {
		double margin = vt_scroll_reverse_margin(velocity, sim_lead(sim),
				sim->s.region, sim->s.extent);
		sim->pending_offset = vt_scroll_place_frame(sim->s.region,
				sim->s.extent, sim->s.content, pos, predicted, to, margin);
		sim->outstanding = true;
		sim->requested_at = t;
		sim->answer_at = t + 40 * MS;
		sim->requests++;
	}
}

START_TEST(test_scroll_steady_scroll) {
	struct sim sim = { .s = span(400, 0, 800, 100000) };
	const double v = 1000.0;
	for (uint64_t k = 0; k <= 600; k++) {
		uint64_t t = T0 + k * P;
		double pos = v * (double)(k * P) / 1e9;
		/* the lead comes from where the display time is now */
		double predicted = pos + v * (double)sim_lead(&sim) / 1e9;
		sim_frame(&sim, t, pos, predicted, predicted + 1e6, v);
	}
	ck_assert_int_eq(sim.overflows, 0);
	ck_assert_msg(sim.requests >= 32 && sim.requests <= 36, "%d requests",
			sim.requests);

	/* down for 2 s, then back up at the same speed: the margin behind
	 * the window covers the turn */
	struct sim back = { .s = span(400, 0, 800, 100000) };
	for (uint64_t k = 0; k <= 240; k++) {
		uint64_t t = T0 + k * P;
		double s = (double)(k * P) / 1e9;
		bool down = s < 2.0;
		double pos = down ? 3000.0 + v * s : 3000.0 + v * (4.0 - s);
		double vel = down ? v : -v;
		double lead = (double)sim_lead(&back) / 1e9;
		double predicted = pos + vel * lead;
		if (k == 0) {
			back.s.offset = 2800; /* a frame around the start */
		}
		sim_frame(&back, t, pos, predicted, predicted + vel * 1e3, vel);
	}
	ck_assert_int_eq(back.overflows, 0);
}
END_TEST

/* ---- fling ----------------------------------------------------------------
 */

/* v0 = 1000 px/s, tau = 0.5 s, stop 20 px/s from 100:
 *   x(t) = 100 + 500 (1 - e^(-2t)), v(t) = 1000 e^(-2t)
 *   x(0.5) = 100 + 500 (1 - e^-1) = 416.0603
 *   x(1.0) = 100 + 500 (1 - e^-2) = 532.3324
 *   v(0.5) = 367.8794
 *   ends when v = 20: t = 0.5 ln 50 = 1.9560115 s, at 100 + 0.5 (1000 -
 *   20) = 590. */
START_TEST(test_scroll_fling) {
	struct vt_fling f;
	ck_assert(vt_fling_start(&f, T0, 100.0, 1000.0, 0.5, 20.0, 0.0, 1e6));
	ck_assert(fabs(vt_fling_position(&f, T0) - 100.0) < 1e-9);
	ck_assert(fabs(vt_fling_position(&f, T0 - MS) - 100.0) < 1e-9);
	double x = vt_fling_position(&f, T0 + 500 * MS);
	ck_assert_msg(fabs(x - 416.0603) < 1e-3, "x(0.5) = %f", x);
	x = vt_fling_position(&f, T0 + 1000 * MS);
	ck_assert_msg(fabs(x - 532.3324) < 1e-3, "x(1.0) = %f", x);
	double v = vt_fling_velocity(&f, T0 + 500 * MS);
	ck_assert_msg(fabs(v - 367.8794) < 1e-3, "v(0.5) = %f", v);
	ck_assert_msg(llabs((long long)f.end_ns - (long long)(T0 + 1956011500ull)) <
					1000,
			"end at %llu", (unsigned long long)(f.end_ns - T0));
	ck_assert(fabs(f.end_pos - 590.0) < 1e-9);
	ck_assert(!vt_fling_done(&f, f.end_ns - 1));
	ck_assert(vt_fling_done(&f, f.end_ns));
	ck_assert(fabs(vt_fling_position(&f, f.end_ns + 5000 * MS) - 590.0) < 1e-9);
	ck_assert(vt_fling_velocity(&f, f.end_ns) == 0.0);
	/* sampled at display times: the 60 Hz grid's 30th vblank after the
	 * lift (0.5 s): the same x(0.5) */
	x = vt_fling_position(&f, T0 + 30 * P);
	ck_assert_msg(
			fabs(x - (100.0 + 500.0 * (1.0 - exp(-2.0 * (30.0 * P / 1e9))))) <
					1e-6,
			"x(30 P) = %f", x);
}
END_TEST

/* Upwards (-1000 px/s from 1000): ends at 1000 - 490 = 510. Against the
 * range's end 400 (from 100): stops at 400 when 500 (1 - e^(-2t)) = 300,
 * t = -0.5 ln 0.4 = 0.4581454 s. Too slow, or at the edge: no fling. */
START_TEST(test_scroll_fling_edges) {
	struct vt_fling f;
	ck_assert(vt_fling_start(&f, T0, 1000.0, -1000.0, 0.5, 20.0, 0.0, 1e6));
	ck_assert(fabs(f.end_pos - 510.0) < 1e-9);
	double x = vt_fling_position(&f, T0 + 500 * MS);
	ck_assert_msg(fabs(x - (1000.0 - 316.0603)) < 1e-3, "x(0.5) = %f", x);

	ck_assert(vt_fling_start(&f, T0, 100.0, 1000.0, 0.5, 20.0, 0.0, 400.0));
	ck_assert(fabs(f.end_pos - 400.0) < 1e-9);
	ck_assert_msg(llabs((long long)f.end_ns - (long long)(T0 + 458145400ull)) <
					1000,
			"end at %llu", (unsigned long long)(f.end_ns - T0));
	ck_assert(fabs(vt_fling_position(&f, T0 + 458 * MS) - 400.0) < 0.1);
	ck_assert(vt_fling_position(&f, T0 + 459 * MS) == 400.0);

	ck_assert(!vt_fling_start(&f, T0, 100.0, 20.0, 0.5, 20.0, 0.0, 1e6));
	ck_assert(!f.active);
	ck_assert(vt_fling_done(&f, T0));
	ck_assert(!vt_fling_start(&f, T0, 400.0, 500.0, 0.5, 20.0, 0.0, 400.0));
	ck_assert(!vt_fling_start(&f, T0, 0.0, -500.0, 0.5, 20.0, 0.0, 400.0));
}
END_TEST

/* A fling of 3000 px/s (tau 0.35: 0.35 * 2980 = 1043 px over 0.35 ln 150 =
 * 1.75 s) planned with the fling's own prediction: frames requested one
 * lead ahead around the rest of its path never show a clamped window. */
START_TEST(test_scroll_fling_planned) {
	struct vt_fling f;
	ck_assert(vt_fling_start(&f, T0, 2000.0, 3000.0, VT_FLING_TAU_DEFAULT,
			VT_FLING_STOP_VELOCITY, 0.0, 99600.0));
	ck_assert(fabs(f.end_pos - (2000.0 + 0.35 * 2980.0)) < 1e-6);
	struct sim sim = { .s = span(400, 1800, 800, 100000) };
	for (uint64_t k = 0; k <= 150; k++) {
		uint64_t t = T0 + k * P;
		double pos = vt_fling_position(&f, t);
		uint64_t lead = sim_lead(&sim);
		sim_frame(&sim, t, pos, vt_fling_position(&f, t + lead), f.end_pos,
				vt_fling_velocity(&f, t + lead));
	}
	ck_assert_int_eq(sim.overflows, 0);
	/* 1043 px with 300-400 px per frame: a handful */
	ck_assert_msg(sim.requests >= 2 && sim.requests <= 5, "%d requests",
			sim.requests);
}
END_TEST

static Suite *scroll_suite(void) {
	Suite *s = suite_create("scroll");
	TCase *tc = tcase_create("algorithm1");
	tcase_add_test(tc, test_scroll_fit_paper_up);
	tcase_add_test(tc, test_scroll_fit_both_directions);
	tcase_add_test(tc, test_scroll_fit_content_edges);
	tcase_add_test(tc, test_scroll_decide_two_axes);
	suite_add_tcase(s, tc);
	tc = tcase_create("estimates");
	tcase_add_test(tc, test_scroll_velocity);
	tcase_add_test(tc, test_scroll_render_time);
	suite_add_tcase(s, tc);
	tc = tcase_create("requests");
	tcase_add_test(tc, test_scroll_frame_extent);
	tcase_add_test(tc, test_scroll_reverse_margin);
	tcase_add_test(tc, test_scroll_place_frame);
	tcase_add_test(tc, test_scroll_need_frame);
	tcase_add_test(tc, test_scroll_steady_scroll);
	suite_add_tcase(s, tc);
	tc = tcase_create("fling");
	tcase_add_test(tc, test_scroll_fling);
	tcase_add_test(tc, test_scroll_fling_edges);
	tcase_add_test(tc, test_scroll_fling_planned);
	suite_add_tcase(s, tc);
	return s;
}

int main(void) {
	SRunner *sr = srunner_create(scroll_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
