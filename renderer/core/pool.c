/*
 * The pipeline's containers: frame arena, task chain, task pool (SPMC),
 * result pool (MPSC) and the commit rule.
 *
 * Locks defined here (each a leaf: nothing else is locked while one is
 * held, and no two are ever held together):
 *   vr_queue::lock (one in each task pool and result pool)
 */
#include <stdlib.h>
#include <string.h>
#include "pool.h"

/* ---- frame arena -------------------------------------------------------- */

#define ARENA_BLOCK_SIZE (64u * 1024u)
#define ARENA_ALIGN 16u

struct vr_arena_block {
	struct vr_arena_block *next;
	size_t size; /* of data */
	_Alignas(16) unsigned char data[];
};

void vr_arena_init(struct vr_arena *arena) {
	*arena = (struct vr_arena){ 0 };
}

void vr_arena_finish(struct vr_arena *arena) {
	struct vr_arena_block *block = arena->blocks;
	while (block != NULL) {
		struct vr_arena_block *next = block->next;
		free(block);
		block = next;
	}
	arena->blocks = NULL;
	arena->used = 0;
}

void *vr_arena_alloc(struct vr_arena *arena, size_t size) {
	size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	struct vr_arena_block *block = arena->blocks;
	if (block == NULL || block->size - arena->used < size) {
		size_t block_size = size > ARENA_BLOCK_SIZE ? size : ARENA_BLOCK_SIZE;
		block = malloc(sizeof(*block) + block_size);
		if (block == NULL) {
			vr_log(VR_LOG_ERROR, "allocation failed");
			return NULL;
		}
		block->size = block_size;
		block->next = arena->blocks;
		arena->blocks = block;
		arena->used = 0;
	}
	void *ptr = block->data + arena->used;
	arena->used += size;
	memset(ptr, 0, size);
	return ptr;
}

void vr_arena_reset(struct vr_arena *arena) {
	struct vr_arena_block *largest = NULL;
	struct vr_arena_block *block = arena->blocks;
	while (block != NULL) {
		struct vr_arena_block *next = block->next;
		if (largest == NULL || block->size > largest->size) {
			free(largest);
			largest = block;
		} else {
			free(block);
		}
		block = next;
	}
	if (largest != NULL) {
		largest->next = NULL;
	}
	arena->blocks = largest;
	arena->used = 0;
}

/* ---- task chain ---------------------------------------------------------- */

void vr_task_list_finish(struct vr_task_list *list) {
	for (size_t i = 0; i < VR_TASK_BLOCKS; i++) {
		free(list->blocks[i]);
		list->blocks[i] = NULL;
	}
	list->len = 0;
}

struct vr_task *vr_task_list_append(struct vr_task_list *list,
		const struct vr_task *task) {
	uint32_t block = list->len / VR_TASK_BLOCK_SIZE;
	if (block >= VR_TASK_BLOCKS) {
		vr_log(VR_LOG_ERROR, "more than %u tasks in one frame",
				VR_TASK_BLOCKS * VR_TASK_BLOCK_SIZE);
		return NULL;
	}
	if (list->blocks[block] == NULL) {
		list->blocks[block] =
				calloc(VR_TASK_BLOCK_SIZE, sizeof(struct vr_task_slot));
		if (list->blocks[block] == NULL) {
			vr_log(VR_LOG_ERROR, "allocation failed");
			return NULL;
		}
	}
	struct vr_task *slot = vr_task_list_at(list, list->len);
	*slot = *task;
	slot->index = list->len++;
	vr_task_slot(slot)->drawn = false;
	vr_task_slot(slot)->commit = 0; /* pending */
	vr_task_slot(slot)->chunk = 0;
	return slot;
}

/* ---- bounded queue ----------------------------------------------------- */

static bool queue_init(struct vr_queue *queue, size_t elem_size, size_t cap) {
	*queue = (struct vr_queue){ .elem_size = elem_size, .cap = cap };
	queue->ring = calloc(cap, elem_size);
	if (queue->ring == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return false;
	}
	pthread_mutex_init(&queue->lock, NULL);
	pthread_cond_init(&queue->not_empty, NULL);
	pthread_cond_init(&queue->not_full, NULL);
	return true;
}

static void queue_finish(struct vr_queue *queue) {
	if (queue->ring == NULL) {
		return;
	}
	pthread_cond_destroy(&queue->not_full);
	pthread_cond_destroy(&queue->not_empty);
	pthread_mutex_destroy(&queue->lock);
	free(queue->ring);
	queue->ring = NULL;
}

static void queue_push(struct vr_queue *queue, const void *elem) {
	pthread_mutex_lock(&queue->lock);
	while (queue->count == queue->cap) {
		pthread_cond_wait(&queue->not_full, &queue->lock);
	}
	size_t slot = (queue->head + queue->count) % queue->cap;
	memcpy(queue->ring + slot * queue->elem_size, elem, queue->elem_size);
	queue->count++;
	pthread_cond_signal(&queue->not_empty);
	pthread_mutex_unlock(&queue->lock);
}

/* With the lock held and count > 0. */
static void queue_take(struct vr_queue *queue, void *out) {
	memcpy(out, queue->ring + queue->head * queue->elem_size, queue->elem_size);
	queue->head = (queue->head + 1) % queue->cap;
	queue->count--;
	/* any one waiting producer can use the free slot */
	pthread_cond_signal(&queue->not_full);
}

/* Waits while empty; false once shut down. */
static bool queue_pop(struct vr_queue *queue, void *out) {
	pthread_mutex_lock(&queue->lock);
	while (queue->count == 0 && !queue->shutdown) {
		pthread_cond_wait(&queue->not_empty, &queue->lock);
	}
	bool ok = !queue->shutdown;
	if (ok) {
		queue_take(queue, out);
	}
	pthread_mutex_unlock(&queue->lock);
	return ok;
}

static bool queue_try_pop(struct vr_queue *queue, void *out) {
	pthread_mutex_lock(&queue->lock);
	bool found = queue->count > 0;
	if (found) {
		queue_take(queue, out);
	}
	pthread_mutex_unlock(&queue->lock);
	return found;
}

/* ---- task pool (SPMC) ---------------------------------------------------- */

bool vr_task_pool_init(struct vr_task_pool *pool, size_t cap) {
	return queue_init(&pool->queue, sizeof(struct vr_task *), cap);
}

void vr_task_pool_finish(struct vr_task_pool *pool) {
	queue_finish(&pool->queue);
}

void vr_task_pool_push(struct vr_task_pool *pool, struct vr_task *task) {
	queue_push(&pool->queue, &task);
}

struct vr_task *vr_task_pool_pop(struct vr_task_pool *pool) {
	struct vr_task *task = NULL;
	return queue_pop(&pool->queue, &task) ? task : NULL;
}

void vr_task_pool_shutdown(struct vr_task_pool *pool) {
	struct vr_queue *queue = &pool->queue;
	pthread_mutex_lock(&queue->lock);
	queue->shutdown = true;
	queue->head = 0;
	queue->count = 0;
	pthread_cond_broadcast(&queue->not_empty);
	pthread_cond_broadcast(&queue->not_full);
	pthread_mutex_unlock(&queue->lock);
}

void vr_task_pool_restart(struct vr_task_pool *pool) {
	pthread_mutex_lock(&pool->queue.lock);
	pool->queue.shutdown = false;
	pthread_mutex_unlock(&pool->queue.lock);
}

/* ---- result pool (MPSC) -------------------------------------------------- */

bool vr_result_pool_init(struct vr_result_pool *pool, size_t cap) {
	return queue_init(&pool->queue, sizeof(struct vr_result), cap);
}

void vr_result_pool_finish(struct vr_result_pool *pool) {
	queue_finish(&pool->queue);
}

void vr_result_pool_push(struct vr_result_pool *pool,
		const struct vr_result *result) {
	queue_push(&pool->queue, result);
}

void vr_result_pool_pop(struct vr_result_pool *pool, struct vr_result *out) {
	/* never shut down: waits until a result comes */
	queue_pop(&pool->queue, out);
}

bool vr_result_pool_try_pop(struct vr_result_pool *pool,
		struct vr_result *out) {
	return queue_try_pop(&pool->queue, out);
}

/* ---- in-order commit ----------------------------------------------------- */

enum commit_state {
	COMMIT_PENDING, /* not executed yet */
	COMMIT_FINISHED, /* executed, waiting for its turn */
	COMMIT_DONE, /* recorded */
};

void vr_commit_init(struct vr_commit *commit,
		const struct vr_task_list *tasks) {
	*commit = (struct vr_commit){ .tasks = tasks };
	vr_commit_reset(commit);
}

void vr_commit_reset(struct vr_commit *commit) {
	commit->known = 0;
	commit->job = 0;
	commit->head = 0;
	commit->end = UINT32_MAX;
	commit->waiting = 0;
	commit->ooo = 0;
}

static struct vr_task_slot *slot_at(const struct vr_commit *commit,
		uint32_t index) {
	return vr_task_slot(vr_task_list_at(commit->tasks, index));
}

/* Tasks the commit thread has not heard of may not even be in the chain:
 * they count as pending without being read. */
static uint8_t state_at(const struct vr_commit *commit, uint32_t index) {
	return index < commit->known ? slot_at(commit, index)->commit :
								   COMMIT_PENDING;
}

void vr_commit_task_finished(struct vr_commit *commit, uint32_t index) {
	/* the producer set it PENDING before the pool handed the task over */
	slot_at(commit, index)->commit = COMMIT_FINISHED;
	commit->waiting++;
	if (index >= commit->known) {
		commit->known = index + 1;
	}
}

void vr_commit_set_end(struct vr_commit *commit, uint32_t end) {
	commit->end = end;
	if (end > commit->known) {
		commit->known = end;
	}
}

bool vr_commit_job_done(const struct vr_commit *commit) {
	return commit->end != UINT32_MAX && commit->head >= commit->end;
}

void vr_commit_next_job(struct vr_commit *commit) {
	commit->job++;
	commit->head = commit->end;
	commit->end = UINT32_MAX;
}

static void mark_committed(struct vr_commit *commit, uint32_t index) {
	slot_at(commit, index)->commit = COMMIT_DONE;
	commit->waiting--;
}

static bool boxes_overlap(const struct vr_box *a, const struct vr_box *b) {
	struct vr_box i = vr_box_intersect(a, b);
	return !vr_box_empty(&i);
}

bool vr_commit_pick(struct vr_commit *commit, uint32_t *index) {
	while (commit->head < commit->end &&
			state_at(commit, commit->head) == COMMIT_DONE) {
		commit->head++;
	}
	uint32_t head = commit->head;
	if (head >= commit->end) {
		return false;
	}
	if (state_at(commit, head) == COMMIT_FINISHED) {
		if (vr_task_list_at(commit->tasks, head)->job != commit->job) {
			return false; /* this job ended; its end is on its way */
		}
		mark_committed(commit, head);
		commit->head++;
		*index = head;
		return true;
	}
	/* The head is not done yet. A finished task k was pushed after every
	 * task before it, so tasks [head, k] are all in the chain. */
	for (uint32_t k = head + 1;
			k <= head + VR_COMMIT_LOOKBACK && k < commit->end; k++) {
		if (state_at(commit, k) != COMMIT_FINISHED) {
			continue;
		}
		const struct vr_task *task = vr_task_list_at(commit->tasks, k);
		if (task->job != commit->job) {
			break; /* the next job's: never overtakes this pass */
		}
		bool blocked = false;
		for (uint32_t j = head; j < k && !blocked; j++) {
			if (state_at(commit, j) == COMMIT_DONE) {
				continue;
			}
			blocked = boxes_overlap(&task->aabb,
					&vr_task_list_at(commit->tasks, j)->aabb);
		}
		if (!blocked) {
			mark_committed(commit, k);
			commit->ooo++;
			*index = k;
			return true;
		}
	}
	return false;
}
