/*
 * The path manager of one surface: see path.h.
 */
#include "pacing/path.h"

const char *vt_path_name(enum vt_path path) {
	switch (path) {
	case VT_PATH_VSYNC: return "vsync";
	case VT_PATH_PRE_RENDER: return "pre-render";
	case VT_PATH_LOW_LATENCY: return "low-latency";
	}
	return "?";
}

void vt_path_init(struct vt_path_state *state, enum vt_path path) {
	*state = (struct vt_path_state){ .path = path };
	vt_jitt_init(&state->jitt);
}

void vt_path_commit(struct vt_path_state *state, enum vt_path path,
		bool wants_callback, bool new_content, bool replaced, uint64_t shows_at,
		uint64_t now) {
	if (new_content || state->jitt.waiting) {
		/* the answer to a low_latency callback (whatever path it
		 * switches to) teaches the predictor; one without any callback
		 * out only counts */
		vt_jitt_commit(&state->jitt, now, replaced, shows_at);
	}
	state->path = path;
	if (wants_callback && !state->callback_wanted) {
		state->callback_wanted = true;
		state->callback_path = path;
		state->trigger_ns = 0;
	}
	/* a callback wanted already keeps the path it was asked under */
}

enum vt_path_send vt_path_schedule(struct vt_path_state *state,
		const struct vt_clock *clock, uint64_t now, uint64_t out_ns,
		uint64_t earliest, bool queued, bool unshown, uint64_t shows_at,
		uint64_t *at_ns) {
	if (!state->callback_wanted) {
		return VT_PATH_SEND_NONE;
	}
	if (state->callback_path != VT_PATH_LOW_LATENCY || queued) {
		return VT_PATH_SEND_VBLANK;
	}
	if (state->trigger_ns == 0) {
		if (unshown && !vt_jitt_may_replace(&state->jitt, shows_at)) {
			/* only a late commit may be replaced, and never two in a
			 * row: the commit is shown first, the answer aims at
			 * the refresh after it */
			uint64_t after = shows_at + vt_clock_period(clock);
			earliest = earliest > after ? earliest : after;
		}
		state->trigger_ns = vt_jitt_trigger(&state->jitt, clock, now, out_ns,
				earliest, &state->target_ns);
	}
	*at_ns = state->trigger_ns;
	return VT_PATH_SEND_AT;
}

void vt_path_sent(struct vt_path_state *state, uint64_t now) {
	if (state->callback_wanted && state->callback_path == VT_PATH_LOW_LATENCY) {
		vt_jitt_sent(&state->jitt, now, state->target_ns);
	}
	state->callback_wanted = false;
	state->trigger_ns = 0;
}

void vt_path_shown(struct vt_path_state *state) {
	vt_jitt_shown(&state->jitt);
}
