/*
 * See commit_queue.h.
 *
 * Held commits are wlroots' cached surface states: a request that holds
 * the next commit locks the surface's pending state
 * (wlr_surface_lock_pending), so the commit that follows is cached, not
 * applied; while commits are held, a plain commit made behind them is
 * locked too (wlroots would cache it anyway, but apply it together with
 * the one before) and waits for the refresh after the one before it.
 * wlroots says nothing when a commit is cached: a lock is seen committed
 * when the pending sequence number moved past it (queue_note_cached).
 *
 * Each output frame, before it samples the tree, runs the latch of the
 * queues of the surfaces it shows: the wp_fifo_v1 barrier set for an
 * earlier frame clears, then the commits due by the frame's display time
 * are unlocked in order. A surface on no output (unmapped, no role) is
 * latched by the frames of the first output, which go on while commits
 * are held, its barrier cleared at each; one on an output but not drawn
 * (hidden) has its barrier cleared every second frame (pacing/latch.c).
 * While there is no output at all, or from STALLED_PERIODS after its
 * output made its last frame (off) until it makes one, a timer latches
 * it at each tick: a barrier never holds a client whose surface is not
 * shown.
 */
#include "protocols/commit_queue.h"

#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_surface.h>

#include "desktop/surface.h"
#include "output/output.h"
#include "pacing/latch.h"
#include "pacing/pacer.h"
#include "server.h"
#include "util.h"

/* The timer's period while no output frame latches a queue. */
#define FALLBACK_PERIOD_NS 16666667ull
#define FALLBACK_PERIOD_MS 16
/* Periods without a latch after which a surface on an output is latched
 * by the timer (its output's frames stopped). */
#define STALLED_PERIODS 8

struct vt_commit_queue {
	struct vt_server *server;
	struct vt_surface *surface;
	struct wl_list link; /* vt_commit_queues::queues */
	struct wl_listener surface_commit;
	struct wl_listener surface_destroy;
	/* for the next commit, while the pending state is locked */
	bool locked;
	uint32_t locked_seq;
	bool has_target;
	uint64_t target_ns;
	bool wait_barrier;
	/* cached states waiting, by their seq, and the barrier */
	struct vt_latch_queue queue;
	uint32_t seen_seq; /* the newest cached state it knows of */
	/* commits (by seq) that set the barrier when they apply, oldest
	 * first */
	uint32_t barrier_seqs[VT_LATCH_QUEUE_MAX + 1];
	size_t barrier_len;
	uint64_t latch_display_ns; /* the latch running now's display time */
	uint64_t latched_at_ns; /* when a latch last ran (CLOCK_MONOTONIC) */
	bool by_timer; /* the timer ran it: its output makes no frames */
};

struct vt_commit_queues {
	struct vt_server *server;
	struct wl_list queues; /* vt_commit_queue::link */
	struct wl_event_source *timer;
	bool timer_armed;
};

static void queues_arm(struct vt_commit_queues *queues) {
	if (queues != NULL && !queues->timer_armed) {
		queues->timer_armed = true;
		wl_event_source_timer_update(queues->timer, FALLBACK_PERIOD_MS);
	}
}

static bool queue_waiting(struct vt_commit_queue *queue) {
	return queue->queue.len > 0 || queue->locked || queue->queue.barrier;
}

/* Cached states committed since it last looked join the queue. */
static void queue_note_cached(struct vt_commit_queue *queue) {
	if (queue->surface == NULL || (queue->queue.len == 0 && !queue->locked)) {
		return;
	}
	struct wlr_surface *wlr_surface = queue->surface->wlr_surface;
	struct wlr_surface_state *state;
	wl_list_for_each(state, &wlr_surface->cached, cached_state_link) {
		if ((int32_t)(state->seq - queue->seen_seq) <= 0) {
			continue; /* queued already (or not ours: before the queue) */
		}
		bool targeted = queue->locked && state->seq == queue->locked_seq;
		if (!targeted && queue->queue.len == 0 && !queue->locked) {
			continue;
		}
		bool pushed;
		if (!targeted) {
			pushed = vt_latch_push(&queue->queue, state->seq, 0, true);
		} else if (queue->wait_barrier) {
			pushed = vt_latch_push_barrier(&queue->queue, state->seq,
					queue->has_target ? queue->target_ns : 0);
		} else {
			pushed = vt_latch_push(&queue->queue, state->seq, queue->target_ns,
					false);
		}
		queue->seen_seq = state->seq;
		if (!pushed) {
			/* full (only those the lock did not take get here): it
			 * applies with the one before it */
			if (targeted) {
				/* (not reached: a lock is taken with room left) */
				queue->locked = false;
				queue->has_target = false;
				queue->wait_barrier = false;
				wlr_surface_unlock_cached(wlr_surface, state->seq);
				return;
			}
			continue;
		}
		if (!targeted) {
			/* A commit made behind held ones: wlroots caches it but
			 * would apply it together with the one before. Hold it, as
			 * wlr_surface_lock_pending would have, for the refresh
			 * after. */
			state->cached_state_locks++;
		} else {
			queue->locked = false;
			queue->has_target = false;
			queue->wait_barrier = false;
		}
	}
}

/* Hold the next commit (the pending state). */
static void queue_lock(struct vt_commit_queue *queue) {
	if (queue->locked) {
		return;
	}
	struct wlr_surface *wlr_surface = queue->surface->wlr_surface;
	if (queue->queue.len == 0) {
		/* states cached before, a synchronized subsurface's, are not
		 * ours */
		queue->seen_seq = wlr_surface->pending.seq - 1;
	}
	queue->locked_seq = wlr_surface_lock_pending(wlr_surface);
	queue->locked = true;
	/* frames are rendered for it even if nothing else changes: each one
	 * latches what is due (the commit itself is cached silently) */
	vt_server_request_frame(queue->server, VT_PACER_RENDER);
	queues_arm(queue->server->commit_queues);
}

size_t vt_commit_queue_len(struct vt_commit_queue *queue) {
	queue_note_cached(queue);
	return queue->queue.len;
}

bool vt_commit_queue_busy(struct vt_commit_queue *queue) {
	if (queue == NULL) {
		return false;
	}
	queue_note_cached(queue);
	return queue->queue.len > 0 || queue->locked;
}

bool vt_commit_queue_set_target(struct vt_commit_queue *queue,
		uint64_t target_ns) {
	queue_note_cached(queue);
	if (queue->surface == NULL) {
		return false;
	}
	if (!queue->locked && queue->queue.len >= VT_LATCH_QUEUE_MAX) {
		return false;
	}
	if (!queue->has_target || target_ns > queue->target_ns) {
		queue->target_ns = target_ns;
	}
	queue->has_target = true;
	queue_lock(queue);
	return true;
}

void vt_commit_queue_set_barrier(struct vt_commit_queue *queue) {
	if (queue->surface == NULL) {
		return;
	}
	uint32_t seq = queue->surface->wlr_surface->pending.seq;
	if (queue->barrier_len > 0 &&
			queue->barrier_seqs[queue->barrier_len - 1] == seq) {
		return;
	}
	if (queue->barrier_len == VT_LATCH_QUEUE_MAX + 1) {
		/* more than can be held: the newest one stands for the last */
		queue->barrier_len--;
	}
	queue->barrier_seqs[queue->barrier_len++] = seq;
}

void vt_commit_queue_wait_barrier(struct vt_commit_queue *queue) {
	queue_note_cached(queue);
	if (queue->surface == NULL) {
		return;
	}
	/* With nothing held and no barrier, nothing can set one before this
	 * commit: it applies at once. */
	if (!queue->locked && queue->queue.len == 0 && !queue->queue.barrier) {
		return;
	}
	if (!queue->locked && queue->queue.len >= VT_LATCH_QUEUE_MAX) {
		return; /* full: it goes behind, with the one before it */
	}
	queue->wait_barrier = true;
	queue_lock(queue);
}

uint64_t vt_commit_queue_last_target(struct vt_commit_queue *queue) {
	if (queue == NULL) {
		return 0;
	}
	queue_note_cached(queue);
	/* latched ones too: under D-VSync a commit latched into a frame
	 * rendered ahead is not shown yet */
	uint64_t last = vt_latch_queued_until(&queue->queue);
	if (queue->has_target && queue->target_ns > last) {
		last = queue->target_ns;
	}
	return last;
}

void vt_commit_queue_release(struct vt_commit_queue *queue) {
	queue_note_cached(queue);
	if (queue->surface == NULL) {
		return;
	}
	/* Detach first: applying the held states runs commit handlers that
	 * could look at the queue again. */
	struct vt_latch_queue held = queue->queue;
	bool locked = queue->locked;
	queue->locked = false;
	queue->has_target = false;
	queue->wait_barrier = false;
	queue->queue.len = 0;
	struct wlr_surface *wlr_surface = queue->surface->wlr_surface;
	if (locked) {
		wlr_surface_unlock_cached(wlr_surface, queue->locked_seq);
	}
	for (size_t i = 0; i < held.len; i++) {
		wlr_surface_unlock_cached(wlr_surface, held.entries[i].seq);
	}
}

/* A frame for display_ns latches the queue. */
static void queue_latch(struct vt_commit_queue *queue, uint64_t display_ns,
		uint64_t period_ns) {
	queue_note_cached(queue);
	queue->latched_at_ns = vt_now_ns();
	vt_latch_frame(&queue->queue, display_ns);
	queue->latch_display_ns = display_ns;
	/* Every commit due by this display time applies, in order: the
	 * latest due one is what the frame shows, so a frame latched late
	 * does not delay the ones after it. */
	uint32_t seq;
	while (queue->surface != NULL &&
			vt_latch_next_due(&queue->queue, display_ns, period_ns, &seq)) {
		queue->surface->latching = true;
		wlr_surface_unlock_cached(queue->surface->wlr_surface, seq);
		queue->surface->latching = false;
		queue_note_cached(queue);
	}
	queue->latch_display_ns = 0;
}

bool vt_commit_queues_latch(struct vt_server *server, struct vt_output *output,
		uint64_t display_ns, uint64_t period_ns) {
	struct vt_commit_queues *queues = server->commit_queues;
	if (queues == NULL) {
		return false;
	}
	bool queued = false;
	struct vt_commit_queue *queue, *tmp;
	wl_list_for_each_safe(queue, tmp, &queues->queues, link) {
		struct vt_output *shown = vt_surface_output(queue->surface);
		if (shown == NULL) {
			/* on no output, never drawn: its barrier clears at the
			 * next frame of the first output */
			shown = vt_output_next(server, NULL);
			vt_latch_drawn(&queue->queue);
		}
		if (shown == output) {
			/* others: their own output's frames latch them, on that
			 * clock */
			queue_latch(queue, display_ns, period_ns);
			queue->by_timer = false;
		}
		/* a held commit on its way counts: the frames must go on to
		 * latch it once it comes */
		queued |= vt_commit_queue_busy(queue);
	}
	return queued;
}

void vt_commit_queue_drawn(struct vt_surface *surface) {
	if (surface->commit_queue != NULL) {
		vt_latch_drawn(&surface->commit_queue->queue);
	}
}

bool vt_commit_queues_busy(struct vt_server *server) {
	struct vt_commit_queues *queues = server->commit_queues;
	if (queues == NULL) {
		return false;
	}
	struct vt_commit_queue *queue;
	wl_list_for_each(queue, &queues->queues, link) {
		if (vt_commit_queue_busy(queue)) {
			return true;
		}
	}
	return false;
}

/* No output frame latched these queues for two periods: the timer does,
 * for the time it is now. */
static int handle_timer(void *data) {
	struct vt_commit_queues *queues = data;
	queues->timer_armed = false;
	uint64_t now = vt_now_ns();
	bool waiting = false;
	struct vt_commit_queue *queue, *tmp;
	wl_list_for_each_safe(queue, tmp, &queues->queues, link) {
		queue_note_cached(queue);
		if (!queue_waiting(queue)) {
			continue;
		}
		/* with no output: at each tick; on one whose frames stopped
		 * (off, or held): after a longer wait, not to race its
		 * frames */
		struct vt_output *output = vt_surface_output(queue->surface);
		if (output == NULL) {
			output = vt_output_next(queues->server, NULL);
		}
		if (output == NULL || queue->by_timer ||
				now - queue->latched_at_ns >=
						STALLED_PERIODS * FALLBACK_PERIOD_NS) {
			/* no frame draws it: its barrier clears at the next tick
			 * (and each tick latches it until a frame does) */
			vt_latch_drawn(&queue->queue);
			queue_latch(queue, now, FALLBACK_PERIOD_NS);
			queue->by_timer = true;
		}
		waiting |= queue_waiting(queue);
	}
	if (waiting) {
		queues_arm(queues);
	}
	return 0;
}

static void handle_surface_commit(struct wl_listener *listener, void *data) {
	struct vt_commit_queue *queue =
			wl_container_of(listener, queue, surface_commit);
	queue_note_cached(queue);
	/* the commits up to the one applied that set the barrier */
	uint32_t seq = queue->surface->wlr_surface->current.seq;
	size_t n = 0;
	while (n < queue->barrier_len &&
			(int32_t)(queue->barrier_seqs[n] - seq) <= 0) {
		n++;
	}
	if (n == 0) {
		return;
	}
	memmove(&queue->barrier_seqs[0], &queue->barrier_seqs[n],
			(queue->barrier_len - n) * sizeof(queue->barrier_seqs[0]));
	queue->barrier_len -= n;
	vt_latch_set_barrier(&queue->queue,
			queue->surface->latching ? queue->latch_display_ns : 0);
	queues_arm(queue->server->commit_queues);
}

static void handle_surface_destroy(struct wl_listener *listener, void *data) {
	struct vt_commit_queue *queue =
			wl_container_of(listener, queue, surface_destroy);
	/* wlroots frees the cached states with the surface */
	wl_list_remove(&queue->surface_commit.link);
	wl_list_remove(&queue->surface_destroy.link);
	wl_list_remove(&queue->link);
	queue->surface->commit_queue = NULL;
	free(queue);
}

struct vt_commit_queue *vt_commit_queue_of(struct vt_surface *surface) {
	if (surface->commit_queue != NULL) {
		return surface->commit_queue;
	}
	struct vt_commit_queues *queues = surface->server->commit_queues;
	struct vt_commit_queue *queue = calloc(1, sizeof(*queue));
	if (queue == NULL || queues == NULL) {
		free(queue);
		return NULL;
	}
	queue->server = surface->server;
	queue->surface = surface;
	queue->latched_at_ns = vt_now_ns();
	wl_list_insert(&queues->queues, &queue->link);
	queue->surface_commit.notify = handle_surface_commit;
	wl_signal_add(&surface->events.commit, &queue->surface_commit);
	queue->surface_destroy.notify = handle_surface_destroy;
	wl_signal_add(&surface->events.destroy, &queue->surface_destroy);
	surface->commit_queue = queue;
	return queue;
}

bool vt_commit_queues_init(struct vt_server *server) {
	struct vt_commit_queues *queues = calloc(1, sizeof(*queues));
	if (queues == NULL) {
		return false;
	}
	queues->server = server;
	wl_list_init(&queues->queues);
	queues->timer = wl_event_loop_add_timer(
			wl_display_get_event_loop(server->display), handle_timer, queues);
	if (queues->timer == NULL) {
		free(queues);
		return false;
	}
	server->commit_queues = queues;
	return true;
}

void vt_commit_queues_finish(struct vt_server *server) {
	struct vt_commit_queues *queues = server->commit_queues;
	if (queues == NULL) {
		return;
	}
	/* the queues die with their surfaces (before this, at display
	 * destruction they are gone already) */
	wl_event_source_remove(queues->timer);
	free(queues);
	server->commit_queues = NULL;
}
