/*
 * The path manager (POLYPATH, WWW '17, section 3) of one surface: which
 * input-to-display path its frames take, and when its next frame
 * callback goes.
 *
 * - vsync: at the refresh after the frame that showed its last commit
 *   (the output's vblank sends it);
 * - pre_render: the same for callbacks; its targeted commits are latched
 *   at their display times (frame_timing.c, latch.c);
 * - low_latency: just in time (jitt.h) for the refresh its answer is
 *   meant for.
 *
 * A path change comes with a commit and is asynchronous, keeping path
 * integrity: the callback a commit asked for goes by the path of that
 * commit, even when a later commit changes the path before it went (the
 * client drew that frame, and read the input in it, under that path);
 * commits queued for a display time under pre_render are latched at that
 * time whatever the path became, and a low_latency callback waits until
 * they are (its answer would otherwise queue behind them).
 *
 * No wlroots: tests/test_pacing.c drives it on a fake clock.
 */
#ifndef VITRAIL_PACING_PATH_H
#define VITRAIL_PACING_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "pacing/clock.h"
#include "pacing/jitt.h"

enum vt_path {
	VT_PATH_VSYNC,
	VT_PATH_PRE_RENDER,
	VT_PATH_LOW_LATENCY,
};

const char *vt_path_name(enum vt_path path);

struct vt_path_state {
	enum vt_path path; /* of the latest commit */
	/* the frame callback the client waits for, and its path */
	bool callback_wanted;
	enum vt_path callback_path;
	/* low_latency: when it goes, for which refresh (0: not computed) */
	uint64_t trigger_ns, target_ns;
	struct vt_jitt jitt;
};

void vt_path_init(struct vt_path_state *state, enum vt_path path);

/*
 * A commit applied at now under `path`. wants_callback: it asked for a
 * frame callback. new_content: it changed what the surface shows.
 * replaced: the commit before it was never shown. shows_at: the first
 * refresh it can make.
 */
void vt_path_commit(struct vt_path_state *state, enum vt_path path,
		bool wants_callback, bool new_content, bool replaced, uint64_t shows_at,
		uint64_t now);

enum vt_path_send {
	VT_PATH_SEND_NONE, /* no callback wanted */
	VT_PATH_SEND_VBLANK, /* at the output's vblank (vsync rules) */
	VT_PATH_SEND_AT, /* at *at_ns (low_latency) */
};

/*
 * When the next callback goes. out_ns: the output's composition lead;
 * earliest: the first refresh whose composition has not started.
 * queued: commits wait for their display time. unshown: the latest
 * commit is not in any frame yet, and shows_at: the refresh it makes.
 * A low_latency time, once computed, stays until the callback goes.
 */
enum vt_path_send vt_path_schedule(struct vt_path_state *state,
		const struct vt_clock *clock, uint64_t now, uint64_t out_ns,
		uint64_t earliest, bool queued, bool unshown, uint64_t shows_at,
		uint64_t *at_ns);

/* The callback went at now. */
void vt_path_sent(struct vt_path_state *state, uint64_t now);

/* A frame showing the surface's latest commit was rendered. */
void vt_path_shown(struct vt_path_state *state);

#endif
