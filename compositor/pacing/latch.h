/*
 * The order in which commits queued for a display time are latched
 * (vitrail_frame_timing_v1): no wlroots, so it runs on a fake clock in
 * tests/test_pacing.c. frame_timing.c holds the surface states; this
 * decides which of them a frame applies.
 *
 * Every commit due by a frame's display time (its target at most half a
 * period after it) is latched, in order: the last of them is what the
 * frame shows, the others are replaced, so one late frame does not delay
 * every later one. A commit without a target (fifo) waits for the refresh
 * after the one that latched the commit before it.
 *
 * The fifo barrier (wp_fifo_v1): a commit applied with set_barrier sets
 * it; it holds through the frame that first draws that commit and is
 * cleared when a later frame latches (vt_latch_frame). A surface that
 * no frame draws (not shown) has it cleared at the second frame after:
 * a barrier never stalls a client. A commit queued with wait_barrier is
 * not due while it is set; one with a target too is due when both
 * hold.
 */
#ifndef VITRAIL_PACING_LATCH_H
#define VITRAIL_PACING_LATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_LATCH_QUEUE_MAX 64

struct vt_latch_entry {
	uint32_t seq; /* the caller's name for the commit */
	uint64_t target_ns; /* 0 with fifo */
	bool fifo;
	bool wait_barrier;
};

struct vt_latch_queue {
	struct vt_latch_entry entries[VT_LATCH_QUEUE_MAX]; /* oldest first */
	size_t len;
	uint64_t last_latch_ns; /* display time of the last latch */
	/* the target of the last targeted commit latched: under D-VSync it
	 * may be latched into a frame rendered ahead, and not shown yet */
	uint64_t latched_target_ns;
	bool barrier;
	/* the display time of the frame first showing the commit that set
	 * the barrier; 0: set between frames (the next frame shows it) */
	uint64_t barrier_ns;
	bool barrier_drawn; /* a frame drew the commit that set it */
	int barrier_undrawn; /* frames since, that did not draw it */
};

/* Append a commit; false when VT_LATCH_QUEUE_MAX wait already. */
bool vt_latch_push(struct vt_latch_queue *queue, uint32_t seq,
		uint64_t target_ns, bool fifo);
/* Append a commit with wait_barrier (and a target, 0: none). */
bool vt_latch_push_barrier(struct vt_latch_queue *queue, uint32_t seq,
		uint64_t target_ns);
/* A commit with set_barrier applied, during the latch of the frame for
 * display_ns (0: between frames). */
void vt_latch_set_barrier(struct vt_latch_queue *queue, uint64_t display_ns);
/* A frame drew the surface (after its latch). */
void vt_latch_drawn(struct vt_latch_queue *queue);
/* A frame for display_ns latches (call before vt_latch_next_due, with or
 * without commits queued): a barrier set for an earlier frame clears. */
void vt_latch_frame(struct vt_latch_queue *queue, uint64_t display_ns);
/* The oldest commit due for a frame shown at display_ns, removed from the
 * queue (its seq in *seq); false when none is (call again until false: a
 * commit may join the queue in between). */
bool vt_latch_next_due(struct vt_latch_queue *queue, uint64_t display_ns,
		uint64_t period_ns, uint32_t *seq);
/* The target of the newest commit waiting (0: none, or fifo). */
uint64_t vt_latch_last_target(const struct vt_latch_queue *queue);
/* The latest target the surface's commits hold, waiting or latched (its
 * frame may be rendered ahead and not shown yet): a new commit's slot
 * comes after it (0: none). */
uint64_t vt_latch_queued_until(const struct vt_latch_queue *queue);

#endif
