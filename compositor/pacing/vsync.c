/*
 * The vsync policies: frames in step with the display, one at a time.
 */
#include "pacing/pacer.h"

/*
 * Just in time for the first vblank the composition can make: a frame
 * starts rendering the predicted composition time before that vblank, so
 * whatever clients commit until then is in it. With the frame callbacks
 * sent at each vblank, a client that commits right after its callback is
 * shown one period later.
 */
static bool vsync_plan(const struct vt_pacer *pacer, uint64_t now,
		uint64_t *display_ns, uint64_t *render_at_ns) {
	if (vt_pacer_rendering(pacer) > 0) {
		return false; /* one frame at a time */
	}
	/* never more than a period ahead: slower compositions fall back to
	 * rendering at the vblank before the frame's own (rendering further
	 * ahead is D-VSync's business) */
	uint64_t composition = vt_pacer_composition_ns(pacer);
	uint64_t period = vt_clock_period(vt_pacer_clock(pacer));
	composition = composition < period ? composition : period;
	*display_ns = vt_pacer_first_display(pacer, now + composition);
	/* ready by the vblank whose refresh it shows in (a nested output's
	 * display time is one later: vt_pacer_delay_periods) */
	*render_at_ns = *display_ns -
			(uint64_t)vt_pacer_delay_periods(pacer) * period - composition;
	if (*render_at_ns < now) {
		*render_at_ns = now;
	}
	return true;
}

const struct vt_pacing_policy vt_policy_vsync = {
	.name = "vsync",
	.plan = vsync_plan,
};

/* Render at the first vblank after the damage, for the vblank after it
 * (how vitrail paced before the frame pipeline: two periods from a
 * client's commit to the screen). */
static bool legacy_plan(const struct vt_pacer *pacer, uint64_t now,
		uint64_t *display_ns, uint64_t *render_at_ns) {
	if (vt_pacer_rendering(pacer) > 0) {
		return false;
	}
	const struct vt_clock *clock = vt_pacer_clock(pacer);
	uint64_t tick = vt_clock_next_vblank(clock, now);
	*display_ns = vt_pacer_first_display(pacer, tick + vt_clock_period(clock));
	*render_at_ns = *display_ns -
			vt_clock_period(clock) *
					(uint64_t)(1 + vt_pacer_delay_periods(pacer));
	if (*render_at_ns < now) {
		*render_at_ns = now;
	}
	return true;
}

const struct vt_pacing_policy vt_policy_legacy = {
	.name = "legacy",
	.plan = legacy_plan,
};
