/*
 * The low-latency path's policy (after Presto, WWW '17, section 4): the
 * just-in-time trigger (JITT) of one surface and the position-aware
 * rendering decision (PAR) against a model of the display's scan.
 *
 * JITT: a client on the low-latency path gets its frame callback T'
 * before the refresh its answer is meant for, T' = T'app + Tout: T'app
 * the predicted time from the callback to the client's commit, Tout the
 * compositor's own (its composition lead). The prediction looks at the
 * last VT_JITT_SAMPLES callback-to-commit times and favours
 * over-prediction: their 90th percentile plus an eighth. After a commit
 * that missed its refresh (under-prediction), that commit's time is a
 * floor for the next VT_JITT_SAMPLES predictions (recovery).
 *
 * The drop rule: the latest commit wins. A commit that missed its refresh
 * is replaced if the client's next one makes the following refresh; but
 * never two in a row: after a replaced commit, a late one is shown, and
 * the callback that would let the client replace it waits for the frame
 * that shows it.
 *
 * Pure arithmetic on CLOCK_MONOTONIC nanoseconds handed in by the caller
 * (tests/test_pacing.c runs it on a fake clock).
 */
#ifndef VITRAIL_PACING_JITT_H
#define VITRAIL_PACING_JITT_H

#include <stdbool.h>
#include <stdint.h>

#include "pacing/clock.h"

#define VT_JITT_SAMPLES 32
/* Added to every lead: wake-up and scheduling jitter between the trigger
 * and the client's commit that its own history cannot show. */
#define VT_JITT_MARGIN_NS 500000ull

struct vt_jitt {
	/* callback-to-commit times */
	uint64_t samples[VT_JITT_SAMPLES];
	int nsamples, next;
	/* recovery: a missed commit's time holds as a floor */
	uint64_t floor_ns;
	int floor_left;
	/* the callback in flight: sent at, for the refresh at */
	bool waiting;
	uint64_t sent_ns, target_ns;
	/* the commit answering it: its target refresh (0: none to judge) */
	uint64_t commit_target_ns;
	bool replaced_last; /* the last commit was replaced unseen */
	/* figures */
	uint64_t commits, misses, drops;
	uint32_t drop_run, longest_drop_run;
};

void vt_jitt_init(struct vt_jitt *jitt);
/* T'app: the predicted callback-to-commit time. Without history, a
 * quarter of the period. */
uint64_t vt_jitt_app_ns(const struct vt_jitt *jitt, uint64_t period_ns);
/*
 * When to send the next frame callback: for the first refresh v on the
 * clock's grid with v >= earliest_display and v - lead >= now, lead =
 * T'app + out_ns + VT_JITT_MARGIN_NS;
 * returns that send time (>= now) and v in *target_ns. out_ns: the
 * compositor's lead (how long before a refresh it starts composing).
 * earliest_display: the first refresh a new commit can still make (the
 * output has started composing the ones before).
 */
uint64_t vt_jitt_trigger(const struct vt_jitt *jitt,
		const struct vt_clock *clock, uint64_t now, uint64_t out_ns,
		uint64_t earliest_display, uint64_t *target_ns);
/* The callback went at now, for target_ns. */
void vt_jitt_sent(struct vt_jitt *jitt, uint64_t now, uint64_t target_ns);
/*
 * The client committed new content at now. replaced: the commit before
 * it was never shown (this one replaces it). shows_at: the refresh this
 * commit can make (the first whose composition has not started). Records
 * the callback-to-commit time when it answers a callback, and a miss when
 * it cannot make its target (the floor for recovery).
 */
void vt_jitt_commit(struct vt_jitt *jitt, uint64_t now, bool replaced,
		uint64_t shows_at);
/* A frame showing the surface's latest commit was rendered. */
void vt_jitt_shown(struct vt_jitt *jitt);
/* The drop rule: may the client get a callback (and so replace its
 * latest commit, which makes the refresh at shows_at) while that commit
 * is not shown yet? Only a late one: the answer to a low-latency callback
 * that missed the refresh it was sent for, and not right after a commit
 * was replaced. A commit in time for its refresh (one that answered a
 * vsync callback, as the one switching to low_latency does, or no
 * callback) is never replaced: the callback aims at the refresh after. */
bool vt_jitt_may_replace(const struct vt_jitt *jitt, uint64_t shows_at);

/*
 * The scanout model of an output whose hardware does not say (headless,
 * nested): the active rows are scanned top to bottom, starting at the
 * vblank (the presentation time), at a constant line rate that covers the
 * active rows in VT_SCANOUT_ACTIVE_PERMILLE of the period (the rest is
 * the vertical blank, as with CVT reduced-blanking timings).
 */
#define VT_SCANOUT_ACTIVE_PERMILLE 960

struct vt_scanout {
	uint64_t period_ns;
	int height; /* active rows */
};

/* When the scan reaches row y in the refresh starting at vblank_ns. */
uint64_t vt_scanout_row_ns(const struct vt_scanout *scanout, uint64_t vblank_ns,
		int y);

struct vt_par_box {
	int x1, y1, x2, y2; /* output pixels, x2 and y2 exclusive */
};

/* Whether damage lies within the box of box_size pixels centred on the
 * pointer (output pixels): changes near the pointer only. */
bool vt_par_fits(const struct vt_par_box *damage, int pointer_x, int pointer_y,
		int box_size);

/*
 * The position-aware rendering decision: may the damage be written at
 * once into the frame being scanned out? Yes when it lies within the
 * box of box_size pixels centred on the pointer (output pixels) and
 * writing it, write_ns from now, ends before the scan reaches its first
 * row in the refresh that began at vblank_ns (the last vblank at or
 * before now). *shown_ns: when the scan reaches that row.
 */
bool vt_par_decide(const struct vt_scanout *scanout, uint64_t vblank_ns,
		uint64_t now, uint64_t write_ns, const struct vt_par_box *damage,
		int pointer_x, int pointer_y, int box_size, uint64_t *shown_ns);

#endif
