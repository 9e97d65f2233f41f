/*
 * The per-surface queue of held commits (commit_queue.c), shared by the
 * three protocols that hold a commit back: vitrail_frame_timing_v1
 * (set_target_time), wp_commit_timing_v1 (set_timestamp) and wp_fifo_v1
 * (set_barrier, wait_barrier). One queue per surface: commits held by
 * any of them are cached states of the surface, applied in commit order
 * by the output frames (pacing/latch.c decides which are due).
 */
#ifndef VITRAIL_COMMIT_QUEUE_H
#define VITRAIL_COMMIT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vt_server;
struct vt_output;
struct vt_surface;
struct vt_commit_queue;

bool vt_commit_queues_init(struct vt_server *server);
void vt_commit_queues_finish(struct vt_server *server);

/* The surface's queue, made on first use (NULL: out of memory); it lives
 * as long as the surface. */
struct vt_commit_queue *vt_commit_queue_of(struct vt_surface *surface);
/* Commits held (the pending state's, when locked, not counted). */
size_t vt_commit_queue_len(struct vt_commit_queue *queue);
/* Commits are held, or the next one will be. */
bool vt_commit_queue_busy(struct vt_commit_queue *queue);
/* The next commit applies no earlier than the frame whose display time
 * is within half a period after target_ns (with two targets, the later);
 * false when the queue is full (the commit is not held for it). */
bool vt_commit_queue_set_target(struct vt_commit_queue *queue,
		uint64_t target_ns);
/* wp_fifo_v1: the next commit sets the barrier when it applies; the next
 * commit waits until the barrier is clear. */
void vt_commit_queue_set_barrier(struct vt_commit_queue *queue);
void vt_commit_queue_wait_barrier(struct vt_commit_queue *queue);
/* The latest target held (0: none), the next commit's included. */
uint64_t vt_commit_queue_last_target(struct vt_commit_queue *queue);
/* Apply every commit held now, in order (vitrail_surface_timing_v1
 * destroyed: back to vsync). */
void vt_commit_queue_release(struct vt_commit_queue *queue);

/* An output frame for display_ns latches the queues of the surfaces it
 * shows (a surface on no output: the first output's); true while commits
 * stay held anywhere (frames must go on to latch them). */
bool vt_commit_queues_latch(struct vt_server *server, struct vt_output *output,
		uint64_t display_ns, uint64_t period_ns);
/* A frame drew the surface (it shows its latest commit). */
void vt_commit_queue_drawn(struct vt_surface *surface);
/* Commits are held on some surface. */
bool vt_commit_queues_busy(struct vt_server *server);

#endif
