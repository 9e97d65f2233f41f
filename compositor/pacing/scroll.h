/*
 * Scroll-aware rendering (SCAR: Ahn et al., "Scrolling-Aware Rendering to
 * Reduce Frame Rates on Smartphones", Electronics 2021, sections 4-5) as a
 * compositor policy: a client hands vitrail an *extended frame*, N times
 * the scroll region's extent along the axes that scroll, holding content
 * before and after the visible part; vitrail moves a window (a crop) over
 * it as the user scrolls, and asks the client for a new extended frame
 * only when the window is about to leave the one it has.
 *
 * This file is the policy, pure arithmetic on content pixels and
 * CLOCK_MONOTONIC nanoseconds handed in by the caller (no wlroots, no
 * system clock; tests/test_scroll_policy.c runs it on a fake clock):
 *
 * - the reuse/overflow decision (the paper's Algorithm 1, extended to
 *   both directions and both axes): does the window at a position lie
 *   inside the extended frame, and where is it clamped when it does not;
 * - the velocity of the scroll (a least-squares fit over recent input);
 * - the client's render time (its answers to frame requests);
 * - when to ask for a new frame (the window predicted one lead ahead,
 *   lead = the client's render time + the compositor's own lead, would
 *   leave the frame) and where to place it (around the window's path, a
 *   margin kept behind it for a reversal);
 * - the fling: kinetic scrolling after a finger lifts, an exponential
 *   decay of the velocity, a function of the time since the lift, sampled
 *   at each frame's display time (as animations are).
 *
 * Positions are content coordinates of the region's top-left corner
 * (0: the start of the content), in pixels; a window is [p, p + r) on
 * each axis.
 */
#ifndef VITRAIL_PACING_SCROLL_H
#define VITRAIL_PACING_SCROLL_H

#include <stdbool.h>
#include <stdint.h>

/* The extending factor N: 1 < N <= 2.5 (the paper's range); the default
 * is what `scroll_extend` in vitrail(5) starts with. */
#define VT_SCROLL_N_MAX 2.5
#define VT_SCROLL_N_DEFAULT 2.0

/* One axis of a region and its extended frame, in content pixels. */
struct vt_scroll_span {
	int32_t region; /* r: the visible extent (> 0) */
	int32_t offset; /* c: where the extended frame starts in the content */
	int32_t extent; /* f: the extended frame's length (>= 0) */
	int32_t content; /* C: the content's total length (>= 0) */
};

enum vt_scroll_fit {
	VT_SCROLL_REUSE, /* the window lies inside the frame */
	VT_SCROLL_OVERFLOW_BEFORE, /* it starts before the frame's start */
	VT_SCROLL_OVERFLOW_AFTER, /* it ends after the frame's end */
};

/* The end of the scroll range: max(0, C - r). */
int32_t vt_scroll_max(const struct vt_scroll_span *span);
/* pos within the scroll range [0, vt_scroll_max]. */
double vt_scroll_clamp(const struct vt_scroll_span *span, double pos);

/*
 * Algorithm 1 in both directions: the window for pos (clamped to the
 * scroll range, rounded to a whole pixel: p) is [p, p + w), w = min(r, C).
 * It is reused when c <= p and p + w <= c + f. Otherwise it overflows
 * before (p < c) or after the frame; *shown is then the position nearest
 * to p whose window the frame holds (the window clamped at the frame's
 * edge: the frame never shows anything it does not hold) and *overflow
 * the pixels between them. A frame shorter than the window shows its
 * start. shown and overflow may be NULL.
 */
enum vt_scroll_fit vt_scroll_fit(const struct vt_scroll_span *span, double pos,
		int32_t *shown, int32_t *overflow);

/* Both axes: axis i takes part when scrolls[i]; the decision is REUSE
 * when every axis that scrolls reuses. overflow_mask gets bit 2 * i for
 * an overflow before the frame on axis i, bit 2 * i + 1 for one after
 * (may be NULL). */
bool vt_scroll_decide(const struct vt_scroll_span span[2],
		const bool scrolls[2], const double pos[2], int32_t shown[2],
		uint32_t *overflow_mask);

/* ---- velocity ----------------------------------------------------------- */

#define VT_SCROLL_VELOCITY_SAMPLES 16
/* Samples older than this (at the time asked) are left out; with none
 * left, the scroll stands still. */
#define VT_SCROLL_VELOCITY_WINDOW_NS 100000000ull
/* Samples spanning less time than this are a burst (wheel clicks handled
 * at once), not a speed: 0. */
#define VT_SCROLL_VELOCITY_MIN_SPAN_NS 4000000ull

/* Recent positions of one axis (a ring), at their input events'
 * timestamps: the device's (libinput) or the client's (virtual pointer)
 * clock, whose base is unknown. The speed is the finger's, however late
 * vitrail handles the events (a busy main thread handles a gesture's
 * events in a burst). The anchor maps vitrail's clock onto the events':
 * the event handled with the least delay so far, an event at
 * event_anchor was handled at now_anchor. */
struct vt_scroll_velocity {
	uint64_t t[VT_SCROLL_VELOCITY_SAMPLES]; /* events' clock */
	double pos[VT_SCROLL_VELOCITY_SAMPLES];
	int n, next;
	bool anchored;
	uint64_t event_anchor, now_anchor;
};

void vt_scroll_velocity_reset(struct vt_scroll_velocity *velocity);
/* The position pos after the input event stamped event_ns, handled at
 * now (vitrail's clock). An event earlier than the newest sample (a
 * clock that went back or wrapped) starts over. */
void vt_scroll_velocity_add(struct vt_scroll_velocity *velocity, uint64_t now,
		uint64_t event_ns, double pos);
/* now (vitrail's clock) on the events' clock; now itself before any
 * event. */
uint64_t vt_scroll_velocity_event_clock(
		const struct vt_scroll_velocity *velocity, uint64_t now);
/* Pixels per second at event_now (the events' clock: an event's own
 * timestamp, or vt_scroll_velocity_event_clock): the least-squares slope
 * of the samples no older than VT_SCROLL_VELOCITY_WINDOW_NS; 0 with fewer
 * than two, or when they span less than VT_SCROLL_VELOCITY_MIN_SPAN_NS. */
double vt_scroll_velocity_get(const struct vt_scroll_velocity *velocity,
		uint64_t event_now);

/* ---- the client's render time ------------------------------------------- */

#define VT_SCROLL_RENDER_SAMPLES 16

/* Times from a frame request to the commit that answered it. */
struct vt_scroll_render_time {
	uint64_t samples[VT_SCROLL_RENDER_SAMPLES];
	int n, next;
};

void vt_scroll_render_time_add(struct vt_scroll_render_time *rt, uint64_t ns);
/* The prediction: the 90th percentile of the samples plus an eighth
 * (over-prediction hides the render, under-prediction shows an
 * overflow); fallback_ns without samples. */
uint64_t vt_scroll_render_time_get(const struct vt_scroll_render_time *rt,
		uint64_t fallback_ns);

/* ---- frame requests ----------------------------------------------------- */

/*
 * The extended frame's length along an axis: round(n * r) for an axis
 * that scrolls (n clamped to (1, VT_SCROLL_N_MAX]), r for one that does
 * not; never more than the content (C), nor less than the window.
 */
int32_t vt_scroll_frame_extent(int32_t region, int32_t content, double n,
		bool scrolls);

/* Ask now? Yes when the window predicted at the moment a frame asked for
 * now can be there (now + the lead: the client's render time plus the
 * compositor's own) no longer fits the frame: predicted_pos is that
 * position. */
bool vt_scroll_need_frame(const struct vt_scroll_span *span,
		double predicted_pos);

/* The margin kept behind the window in a new frame: room for a reversal
 * at the same speed until the next frame can come (1.5 leads, plus 8
 * pixels), at most half the frame's room ((f - r) / 2). */
double vt_scroll_reverse_margin(double velocity, uint64_t lead_ns,
		int32_t region, int32_t extent);

/*
 * Where a new frame of `extent` starts (content pixels): around the
 * window's path from `from` (where it is when the frame arrives) to `to`
 * (where the motion takes it: a fling's end; for a steady scroll, far
 * ahead; `from` when it stands still), centred on that path when the path
 * and `margin` on both sides fit, else starting `margin` behind the
 * window in the direction it moves. The frame always holds the window at
 * `current` (the position now: a frame that comes sooner than predicted,
 * or a prediction gone wrong, never replaces a frame holding the window
 * with one that lacks it). Clamped to [0, C - extent].
 */
int32_t vt_scroll_place_frame(int32_t region, int32_t extent, int32_t content,
		double current, double from, double to, double margin);

/* ---- fling -------------------------------------------------------------- */

/* Defaults (vitrail(5): scroll_fling): the velocity decays as
 * exp(-t / tau); the fling ends below the stop velocity. */
#define VT_FLING_TAU_DEFAULT 0.35
#define VT_FLING_STOP_VELOCITY 20.0
/* A finger lifted slower than this does not fling. */
#define VT_FLING_MIN_VELOCITY 50.0

/*
 * One axis of a fling started at start_ns from start_pos with velocity v0
 * (pixels per second): x(t) = x0 + v0 * tau * (1 - exp(-t / tau)), until
 * |v(t)| = stop (t_end = tau * ln(|v0| / stop)) or the position reaches
 * lo or hi (the scroll range), where it stops.
 */
struct vt_fling {
	bool active;
	uint64_t start_ns;
	double start_pos, velocity, tau, stop;
	double lo, hi;
	uint64_t end_ns; /* when it stops */
	double end_pos; /* where */
};

/* Start a fling; false (and nothing to do) when |v0| <= stop or it
 * cannot move (already at the edge it moves towards). */
bool vt_fling_start(struct vt_fling *fling, uint64_t start_ns, double start_pos,
		double v0, double tau, double stop, double lo, double hi);
/* The position at t_ns (start_pos before the start, end_pos from the
 * end on). */
double vt_fling_position(const struct vt_fling *fling, uint64_t t_ns);
/* Pixels per second at t_ns (0 from the end on). */
double vt_fling_velocity(const struct vt_fling *fling, uint64_t t_ns);
bool vt_fling_done(const struct vt_fling *fling, uint64_t t_ns);

#endif
