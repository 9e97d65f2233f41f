/*
 * The pipeline's containers (pool.c): frame memory, the task chain, the
 * single-producer multi-consumer task pool, the multi-producer
 * single-consumer result pool, and the in-order commit rule.
 *
 * None of them knows Vulkan; the commit rule is a pure state machine so
 * the tests can drive it with made-up chains and finish orders.
 */
#ifndef RENDERER_POOL_H
#define RENDERER_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "engine.h"

/* ---- frame arena -------------------------------------------------------- */

/*
 * Bump allocator for one frame's task payloads and outputs: 16-byte
 * aligned, zeroed, stable addresses, freed all at once by reset. Used by
 * one thread at a time (preparation).
 */
struct vr_arena {
	struct vr_arena_block *blocks; /* newest first */
	size_t used; /* bytes used in the newest block */
};

void vr_arena_init(struct vr_arena *arena);
void vr_arena_finish(struct vr_arena *arena);
/* NULL (logged) when out of memory. */
void *vr_arena_alloc(struct vr_arena *arena, size_t size);
/* Forget every allocation; keeps the largest block for the next frame. */
void vr_arena_reset(struct vr_arena *arena);

/* ---- task chain ---------------------------------------------------------- */

#define VR_TASK_BLOCK_SIZE 1024
#define VR_TASK_BLOCKS 1024 /* at most 1M tasks per frame */

/*
 * The frame's tasks in chain (drawing) order, at stable addresses: appended
 * by the producer only; any thread may read a task it learned about through
 * a pool (the pool's lock orders the append before the read). `len` is the
 * producer's alone.
 */
/* A task and what the pipeline keeps next to it. */
struct vr_task_slot {
	struct vr_task task;
	/* vr_engine_execute's answer, written by the executing thread */
	bool drawn;
	/* the commit rule's (enum in pool.c), the commit thread's once the
	 * task is in the pool */
	uint8_t commit;
	/* tasks of the chunk this one starts (it and the next chunk - 1 in
	 * the chain, one job's) when it went into the task pool, 0 for the
	 * chunk's other tasks; written by the producer before the push */
	uint32_t chunk;
};

struct vr_task_list {
	struct vr_task_slot *blocks[VR_TASK_BLOCKS]; /* allocated on demand */
	uint32_t len;
};

void vr_task_list_finish(struct vr_task_list *list);
/* Copy task in at index len (its index field is set); NULL when full or
 * out of memory (logged). */
struct vr_task *vr_task_list_append(struct vr_task_list *list,
		const struct vr_task *task);
static inline struct vr_task *vr_task_list_at(const struct vr_task_list *list,
		uint32_t index) {
	return &list->blocks[index / VR_TASK_BLOCK_SIZE][index % VR_TASK_BLOCK_SIZE]
					.task;
}
static inline struct vr_task_slot *vr_task_slot(struct vr_task *task) {
	return vr_container_of(task, struct vr_task_slot, task);
}

/* ---- bounded queue ----------------------------------------------------- */

/*
 * Bounded FIFO of fixed-size elements behind a mutex and two condition
 * variables, blocking at both ends; the task and result pools below are
 * its two typed uses.
 */
struct vr_queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty; /* consumers wait on it */
	pthread_cond_t not_full; /* producers wait on it */
	unsigned char *ring; /* protected by lock */
	size_t elem_size, cap; /* immutable */
	size_t head, count; /* protected by lock */
	bool shutdown; /* protected by lock */
};

/* ---- task pool (SPMC) ---------------------------------------------------- */

/*
 * Tasks: one producer (preparation) pushes in chain order, any number of
 * consumers (workers) pop in that same order. What goes through it is the
 * first task of a chunk (vr_task_slot::chunk): the popping worker executes
 * the chunk's tasks in chain order, one handoff for all of them.
 */
struct vr_task_pool {
	struct vr_queue queue; /* of struct vr_task * */
};

bool vr_task_pool_init(struct vr_task_pool *pool, size_t cap);
void vr_task_pool_finish(struct vr_task_pool *pool);
/* Waits while the pool is full. */
void vr_task_pool_push(struct vr_task_pool *pool, struct vr_task *task);
/* Waits while the pool is empty; NULL once shut down (what is left in the
 * pool is dropped). */
struct vr_task *vr_task_pool_pop(struct vr_task_pool *pool);
/* Wake every consumer with NULL until vr_task_pool_restart(). */
void vr_task_pool_shutdown(struct vr_task_pool *pool);
void vr_task_pool_restart(struct vr_task_pool *pool);

/* ---- result pool (MPSC) -------------------------------------------------- */

enum vr_result_type {
	VR_RESULT_TASK, /* a worker executed tasks index .. index + count - 1 */
	VR_RESULT_JOB_END, /* preparation: job `job`'s tasks end at `index` */
};

struct vr_result {
	enum vr_result_type type;
	uint32_t index;
	uint32_t count; /* VR_RESULT_TASK: tasks of the chunk */
	uint32_t job;
};

/* Results: workers and preparation push, the commit thread pops. */
struct vr_result_pool {
	struct vr_queue queue; /* of struct vr_result */
};

bool vr_result_pool_init(struct vr_result_pool *pool, size_t cap);
void vr_result_pool_finish(struct vr_result_pool *pool);
/* Waits while the pool is full. */
void vr_result_pool_push(struct vr_result_pool *pool,
		const struct vr_result *result);
/* Waits while the pool is empty. */
void vr_result_pool_pop(struct vr_result_pool *pool, struct vr_result *out);
/* False when empty. */
bool vr_result_pool_try_pop(struct vr_result_pool *pool, struct vr_result *out);

/* ---- in-order commit ----------------------------------------------------- */

/*
 * The commit rule over the chain, one job (render pass) at a time: the
 * chain head is committed as soon as it is finished; a finished later task
 * k of the same job may overtake the uncommitted tasks in [head, k) when
 * k - head <= VR_COMMIT_LOOKBACK and its AABB overlaps none of theirs.
 * Used by the commit thread only.
 */
struct vr_commit {
	const struct vr_task_list *tasks;
	/* tasks below it are in the chain and may be read: every task up to
	 * the latest finished one, and up to the latest job end */
	uint32_t known;
	uint32_t job; /* the job being committed */
	uint32_t head; /* lowest uncommitted index */
	uint32_t end; /* end of the job's tasks; UINT32_MAX while unknown */
	uint32_t waiting; /* finished, not committed */
	uint32_t ooo; /* committed ahead of an earlier task */
};

void vr_commit_init(struct vr_commit *commit, const struct vr_task_list *tasks);
/* A new frame: job 0, starting at index 0, its end unknown. */
void vr_commit_reset(struct vr_commit *commit);
/* Task `index` (in the chain) is executed. */
void vr_commit_task_finished(struct vr_commit *commit, uint32_t index);
/* The current job's tasks end at `end` (all of them in the chain). */
void vr_commit_set_end(struct vr_commit *commit, uint32_t end);
/* Every task of the current job is committed. */
bool vr_commit_job_done(const struct vr_commit *commit);
/* Move on to the next job (its tasks start where this one's ended). */
void vr_commit_next_job(struct vr_commit *commit);
/* The next task to record now, if any (marked committed). */
bool vr_commit_pick(struct vr_commit *commit, uint32_t *index);

#endif
