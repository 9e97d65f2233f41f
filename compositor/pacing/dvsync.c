/*
 * D-VSync's frame pre-executor (after the ASPLOS '25 paper, section 4):
 * frames whose content is known ahead of time are rendered ahead of the
 * display into the output's enlarged queue, each stamped with the
 * display time it will be shown at (its D-Timestamp, from the display
 * time virtualizer: the pacer's vblank model), so that a long frame is
 * absorbed by the frames queued before it instead of missing its vblank.
 *
 * Stages, as the paper names them:
 * - accumulation: fewer than the pre-render limit of frames are queued
 *   (rendering, ready or committed, not yet shown): the next one starts
 *   now, as soon as the one rendering is done, for the vblank after the
 *   last planned one;
 * - sync: the queue is full: one frame starts each time a queued one is
 *   shown, one vblank of the display per frame.
 * Not predictable (input, clients drawing frames of their own): the vsync
 * policy takes over at once; vt_pacer_discard_ahead drops what input made
 * stale. Frames of pre_render clients (vitrail_frame_timing_v1) count as
 * predictable as far as they queued them (the pacer's horizon): no frame
 * is rendered ahead for a display time a client has not drawn for yet.
 */
#include "pacing/pacer.h"

static bool dvsync_plan(const struct vt_pacer *pacer, uint64_t now,
		uint64_t *display_ns, uint64_t *render_at_ns) {
	int limit = vt_pacer_prerender_limit(pacer);
	if (!vt_pacer_predictable(pacer) || limit == 0) {
		return vt_policy_vsync.plan(pacer, now, display_ns, render_at_ns);
	}
	if (vt_pacer_rendering(pacer) > 0 || vt_pacer_queued(pacer) >= limit) {
		return false; /* one at a time; sync stage when full */
	}
	/* The first frame of a run aims at the first vblank the predicted
	 * composition can make; the next ones follow one vblank apart, the
	 * frames queued before them absorbing a long one (the composition
	 * estimate, which long frames inflate, must not space them out). */
	const struct vt_clock *clock = vt_pacer_clock(pacer);
	uint64_t last = vt_pacer_last_display_ns(pacer);
	if (vt_pacer_queued(pacer) > 0 && last != 0 &&
			last >= vt_clock_next_vblank(clock, now)) {
		*display_ns = vt_clock_next_vblank(clock, last);
	} else {
		uint64_t composition = vt_pacer_composition_ns(pacer);
		*display_ns = vt_pacer_first_display(pacer, now + composition);
	}
	/* Ahead no further than the clients' queued frames reach: beyond,
	 * just in time, as vsync. */
	uint64_t horizon = vt_pacer_horizon(pacer);
	if (horizon != UINT64_MAX &&
			*display_ns > horizon + vt_clock_period(clock) / 2) {
		return vt_policy_vsync.plan(pacer, now, display_ns, render_at_ns);
	}
	*render_at_ns = now;
	return true;
}

const struct vt_pacing_policy vt_policy_dvsync = {
	.name = "dvsync",
	.plan = dvsync_plan,
};
