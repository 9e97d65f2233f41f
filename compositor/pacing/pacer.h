/*
 * Frame pacing of one output: its frame clock, its queue of frames (being
 * rendered, ready, committed) and a policy that decides when to render and
 * which display time a frame targets.
 *
 * The pacer knows neither wlroots nor the render tree. The output glue
 * (output.c) hands it the current time at every entry point and does what
 * it asks through struct vt_pacer_impl: render a frame for a display
 * time, commit a frame, drop one, send frame callbacks, arm a timer. So
 * the whole module runs on a fake clock in tests/test_pacing.c.
 *
 * Two kinds of clock:
 * - VT_PACER_CLOCK_MODEL: the pacer is the output's vblank source (headless
 *   outputs). It arms its timer for the vblanks it needs and commits the
 *   frame meant for each vblank at that vblank.
 * - VT_PACER_CLOCK_BACKEND: the backend's frame events say when a commit
 *   can go (DRM page flips, a nested parent's frame callbacks); a ready
 *   frame is committed as soon as the backend is free, and present events
 *   calibrate the clock.
 *
 * A frame's display time (its D-Timestamp) is chosen when the frame is
 * planned, before it is rendered: everything the frame samples (animations)
 * is sampled at that time. Frames are planned strictly in display-time
 * order, one per vblank at most.
 */
#ifndef VITRAIL_PACING_PACER_H
#define VITRAIL_PACING_PACER_H

#include <stdbool.h>
#include <stdint.h>

#include "pacing/clock.h"

/* Frames a pacer tracks at once (rendering, ready or committed). */
#define VT_PACER_FRAMES_MAX 8

enum vt_pacer_clock_kind {
	VT_PACER_CLOCK_MODEL,
	VT_PACER_CLOCK_BACKEND,
};

/* What an output wants (vt_pacer_request flags). */
enum vt_pacer_want {
	VT_PACER_RENDER = 1 << 0, /* it has damage to draw */
	VT_PACER_CALLBACKS = 1 << 1, /* clients wait for frame callbacks */
	VT_PACER_COMMIT = 1 << 2, /* the backend wants a commit, new or not */
};

/* What the pacer asks of the output. Called only from inside the pacer's
 * entry points, on the caller's thread. */
struct vt_pacer_impl {
	/* Render a frame for display time display_ns. Returns its handle, or
	 * NULL when there was nothing to draw. *ready: the frame finished
	 * during the call, at *ready_ns (0: at the call's now); else
	 * vt_pacer_frame_ready reports it later. */
	void *(*render)(void *data, uint64_t display_ns, bool *ready,
			uint64_t *ready_ns);
	/* Commit a ready frame to the output at vblank_ns (the vblank it is
	 * expected to show at); handle NULL re-commits the current content.
	 * false: the commit failed; the pacer then drops the frame. */
	bool (*commit)(void *data, void *handle, uint64_t vblank_ns);
	/* The frame will never be shown (replaced, or the commit failed). */
	void (*discard)(void *data, void *handle);
	/* Clients may draw their next frame. */
	void (*frame_done)(void *data, uint64_t now_ns);
	/* Call vt_pacer_wake at at_ns; 0 disarms. */
	void (*arm)(void *data, uint64_t at_ns);
	/* Backend clock only: ask the backend for a frame event. */
	void (*request_backend_frame)(void *data);
};

struct vt_pacer;

/* A pacing policy decides when the next frame is rendered and for which
 * display time. The vsync policy is the first; D-VSync, the low-latency
 * path and scroll reuse are the next ones. */
struct vt_pacing_policy {
	const char *name;
	/* Plan the next frame at now: its display time (a vblank after every
	 * frame already planned) and when to start rendering it (>= now).
	 * false: not now (vt_pacer_frame_ready asks again). */
	bool (*plan)(const struct vt_pacer *pacer, uint64_t now,
			uint64_t *display_ns, uint64_t *render_at_ns);
};

/* Render as late as the predicted composition time allows before the
 * first vblank it can make, one frame at a time: a client that commits
 * right after its frame callback is shown at the next vblank. */
extern const struct vt_pacing_policy vt_policy_vsync;
/* The pacing before the frame pipeline (kept as the benchmarks'
 * baseline): render at the vblank after the damage, for the vblank after
 * that. */
extern const struct vt_pacing_policy vt_policy_legacy;
/*
 * D-VSync's frame pre-executor (dvsync.c): while the output's next frames
 * are predictable (vt_pacer_set_predictable), render ahead of the display,
 * each frame for the vblank after the one before (accumulation), until
 * vt_pacer_set_prerender's limit of frames are queued (rendering, ready
 * or committed, not yet shown); then one frame per vblank, in step with
 * the display (sync stage). Not predictable: the vsync policy, at once.
 */
extern const struct vt_pacing_policy vt_policy_dvsync;

struct vt_pacer *vt_pacer_create(enum vt_pacer_clock_kind kind,
		uint64_t period_ns, uint64_t now_ns,
		const struct vt_pacing_policy *policy, const struct vt_pacer_impl *impl,
		void *data);
/* Drops every frame not yet presented (impl->discard). Accepts NULL. */
void vt_pacer_destroy(struct vt_pacer *pacer);

/* The output wants something (enum vt_pacer_want flags). May render, but
 * never commits. */
void vt_pacer_request(struct vt_pacer *pacer, uint32_t wants, uint64_t now);
/* The same wants, without running the pacer: nothing renders until the
 * next vt_pacer_request (wants 0: just run) or timer. */
void vt_pacer_want(struct vt_pacer *pacer, uint32_t wants);
/* The timer armed through impl->arm fired. */
void vt_pacer_wake(struct vt_pacer *pacer, uint64_t now);
/* A frame returned by impl->render finished rendering. */
void vt_pacer_frame_ready(struct vt_pacer *pacer, void *handle, uint64_t now);
/* Backend clock: the backend can take a new commit (its frame event). */
void vt_pacer_backend_frame(struct vt_pacer *pacer, uint64_t now);
/* A committed frame was shown at presented_ns (refresh_ns: the backend's
 * period, 0 unknown), or never (presented false). Returns true when it
 * was shown later than its display time (a dropped refresh). The pacer
 * forgets the frame; the caller still owns what handle points to. */
bool vt_pacer_presented(struct vt_pacer *pacer, void *handle, bool presented,
		uint64_t presented_ns, uint64_t refresh_ns);
/* Refreshes that showed nothing new while a frame was wanted for them
 * (late frames, and those discarded in favour of a later one, alike),
 * since the first frame shown. */
uint64_t vt_pacer_missed(const struct vt_pacer *pacer);
/* Backend clock: refreshes a commit made right after a vblank waits
 * before it shows, beyond the next one (a nested output: the parent's
 * composition), learned from presentations; display times include it. */
int vt_pacer_delay_periods(const struct vt_pacer *pacer);
/* The refresh rate changed. Backend clock: re-phase the clock at now.
 * Model clock: frames queued (rendered for the old rate) are shown at the
 * old rate first; the new rate applies, re-phased, once they are, and no
 * frame is planned until then. */
void vt_pacer_set_period(struct vt_pacer *pacer, uint64_t period_ns,
		uint64_t now);
void vt_pacer_set_policy(struct vt_pacer *pacer,
		const struct vt_pacing_policy *policy);
/* Frames a pre-rendering policy may queue ahead of the display, at most
 * VT_PACER_FRAMES_MAX - 1 (0: none, the default). */
void vt_pacer_set_prerender(struct vt_pacer *pacer, int limit);
/* Whether the frames to come are deterministic (animations sampled at
 * their display time, nothing waiting on input); the glue says so before
 * each entry point. */
void vt_pacer_set_predictable(struct vt_pacer *pacer, bool predictable);
/* The latest display time whose content is known (clients' frames queued
 * for it); UINT64_MAX (the default): no limit. */
void vt_pacer_set_horizon(struct vt_pacer *pacer, uint64_t horizon_ns);
uint64_t vt_pacer_horizon(const struct vt_pacer *pacer);
/* Input made the frames rendered ahead stale: ready ones are discarded
 * (impl->discard), those still rendering will be once ready, and the next
 * frame is planned for the first vblank it can make. Committed frames
 * stay, and so does a frame whose display time is sooner than the
 * composition estimate (nothing rendered now could replace it in
 * time). */
void vt_pacer_discard_ahead(struct vt_pacer *pacer, uint64_t now);

/* Position-aware rendering (the low-latency path with tearing, model
 * clock only): render a frame now for display time display_ns, a time
 * inside the refresh being scanned out (when the scan reaches the
 * damage), and commit it as soon as it is ready if that is no later than
 * display_ns; ready later, it waits for the next vblank like any frame.
 * Only while no other frame is in flight (one rendered before it would
 * undo it at its vblank). false: not done (nothing drawn, or not now). */
bool vt_pacer_tear(struct vt_pacer *pacer, uint64_t display_ns, uint64_t now);
/* Frames rendered by vt_pacer_tear; *late: those that missed their
 * time. */
uint64_t vt_pacer_torn(const struct vt_pacer *pacer, uint64_t *late);

/* ---- what policies (and tests) read ----------------------------------- */

const struct vt_clock *vt_pacer_clock(const struct vt_pacer *pacer);
/* Predicted time from the start of a render to the frame being ready to
 * commit, from recent frames (an upper percentile plus a margin). */
uint64_t vt_pacer_composition_ns(const struct vt_pacer *pacer);
/* The display time of the latest frame planned (0: none yet). */
uint64_t vt_pacer_last_display_ns(const struct vt_pacer *pacer);
/* Frames being rendered / ready and not yet committed / committed and not
 * yet presented. */
int vt_pacer_rendering(const struct vt_pacer *pacer);
int vt_pacer_ready(const struct vt_pacer *pacer);
int vt_pacer_committed(const struct vt_pacer *pacer);
/* The most frames tracked at once so far. */
int vt_pacer_max_in_flight(const struct vt_pacer *pacer);
/* The display time a tracked frame was planned for (0: unknown handle). */
uint64_t vt_pacer_frame_display_ns(const struct vt_pacer *pacer, void *handle);
/* Frames replaced by a newer one before they were shown. */
uint64_t vt_pacer_replaced(const struct vt_pacer *pacer);
int vt_pacer_prerender_limit(const struct vt_pacer *pacer);
bool vt_pacer_predictable(const struct vt_pacer *pacer);
/* Frames not yet shown: rendering, ready or committed. */
int vt_pacer_queued(const struct vt_pacer *pacer);
/* Frames dropped by vt_pacer_discard_ahead. */
uint64_t vt_pacer_discarded_stale(const struct vt_pacer *pacer);
/* A frame timeline: the next n display slots from now, after display
 * time `after` (0: none), as display times and the deadlines to commit
 * for them (display time less the composition estimate); returns n. */
int vt_pacer_display_slots(const struct vt_pacer *pacer, uint64_t now,
		uint64_t after, uint64_t *display_ns, uint64_t *deadline_ns, int n);
/* The first vblank a frame ready at `earliest` can make, after every
 * frame already planned (for policies). */
uint64_t vt_pacer_first_display(const struct vt_pacer *pacer,
		uint64_t earliest);

#endif
