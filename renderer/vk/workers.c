/*
 * The threads of the parallel mode: W workers ("vr-worker-N") that pop
 * tasks from the task pool and execute them, and one commit thread
 * ("vr-commit") that takes their results in any order, records them in
 * chain order (or ahead, as vr_commit_pick allows) and owns the queue.
 *
 * Lock order: vr_workers::lock is a leaf (nothing else is locked while it
 * is held); so is the process-wide `stages_lock` (threads.c); the pools' locks
 * (pool.c) and the resource managers' locks (resources.c) are leaves too.
 *
 * A frame: the caller's thread fills vr_frame, bumps `requested` (the
 * commit thread starts recording), pushes tasks into the task pool while
 * it prepares, pushes each job's end into the result pool and returns to
 * its own work (vr_render_submit returns). The commit thread records,
 * submits and bumps `done`; the caller's thread reaps the frame
 * (vr_frame_reap: waits for `done`, at the latest when it opens the next
 * frame). Everything the commit thread and the workers wrote during the
 * frame is ordered before the reap by these locks, and nothing of theirs
 * reads the frame's tasks or what they hold after it. They never read the
 * tree; the images and display lists tasks point into are held by the
 * frame until the reap (vr_chain_hold_*).
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "vk_private.h"

#define TASK_POOL_SIZE 1024
#define RESULT_POOL_SIZE 1024

int vr_workers_default_count(void) {
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	return cores > 1 ? (int)(cores - 1) : 1;
}

bool vr_exec_task(struct vr_exec_ctx *ctx, struct vr_task *task) {
	ctx->job = task->job;
	bool drawn = vr_engine_execute(ctx, task);
	vr_task_slot(task)->drawn = drawn;
	return drawn;
}

/* ---- workers ---------------------------------------------------------------
 */

static uint64_t next_random(uint64_t *state) {
	/* xorshift64 */
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

static void test_delay(struct vr_worker *worker) {
	unsigned max_us = worker->renderer->workers.delay_max_us;
	if (max_us == 0) {
		return;
	}
	uint64_t us = next_random(&worker->ctx->rng) % ((uint64_t)max_us + 1);
	struct timespec ts = {
		.tv_sec = (time_t)(us / 1000000u),
		.tv_nsec = (long)(us % 1000000u) * 1000,
	};
	nanosleep(&ts, NULL);
}

static void *worker_main(void *data) {
	struct vr_worker *worker = data;
	struct vr_workers *workers = &worker->renderer->workers;
	char name[16];
	snprintf(name, sizeof(name), "vr-worker-%d", worker->index);
	pthread_setname_np(pthread_self(), name);
	vr_thread_yield_to_caller();
	/* the chain's tasks, at stable addresses; the pool's lock orders
	 * their appending before our reads */
	const struct vr_task_list *list = &worker->renderer->frame.chain.tasks;
	struct vr_task *task;
	while ((task = vr_task_pool_pop(&workers->tasks)) != NULL) {
		uint32_t count = vr_task_slot(task)->chunk;
		count = count > 0 ? count : 1;
		test_delay(worker);
		uint64_t t0 = vr_now_ns();
		for (uint32_t i = 0; i < count; i++) {
			vr_exec_task(worker->ctx, vr_task_list_at(list, task->index + i));
		}
		worker->ctx->busy_ns += vr_now_ns() - t0;
		worker->ctx->tasks += count;
		struct vr_result result = {
			.type = VR_RESULT_TASK,
			.index = task->index,
			.count = count,
			.job = task->job,
		};
		vr_result_pool_push(&workers->results, &result);
	}
	return NULL;
}

/* ---- commit thread ---------------------------------------------------------
 */

static void commit_frame(struct vr_renderer *renderer) {
	struct vr_frame *frame = &renderer->frame;
	struct vr_commit *commit = &frame->commit;
	struct vr_workers *workers = &renderer->workers;
	uint64_t start = vr_now_ns(), blocked_ns = 0;
	vr_commit_reset(commit);
	/* without a command buffer the results are still drained */
	bool recording = vr_frame_begin_commands(renderer);
	size_t job = 0;
	bool begun = false;
	while (job < frame->njobs) {
		if (!begun) {
			if (recording) {
				vr_frame_begin_job(renderer, job);
			}
			begun = true;
			if (frame->job_ends[job] != UINT32_MAX) {
				vr_commit_set_end(commit, frame->job_ends[job]);
			}
		}
		uint32_t index;
		while (vr_commit_pick(commit, &index)) {
			struct vr_task *task = vr_task_list_at(commit->tasks, index);
			if (recording && vr_task_slot(task)->drawn) {
				vr_frame_record_task(renderer, task);
			}
		}
		if (vr_commit_job_done(commit)) {
			if (recording) {
				vr_frame_end_job(renderer, job);
			}
			vr_commit_next_job(commit);
			job++;
			begun = false;
			continue;
		}
		/* finished work that may not be recorded yet: a stall */
		if (commit->waiting > 0) {
			frame->stalls++;
		}
		struct vr_result result;
		uint64_t t = vr_now_ns();
		vr_result_pool_pop(&workers->results, &result);
		blocked_ns += vr_now_ns() - t;
		switch (result.type) {
		case VR_RESULT_TASK:
			for (uint32_t i = 0; i < result.count; i++) {
				vr_commit_task_finished(commit, result.index + i);
			}
			break;
		case VR_RESULT_JOB_END:
			frame->job_ends[result.job] = result.index;
			if (result.job == job) {
				vr_commit_set_end(commit, result.index);
			}
			break;
		}
	}
	frame->commit_ns = vr_now_ns() - start - blocked_ns;
	/* submitted also when recording failed (an empty submission that
	 * signals the slot's fence), so frame numbers stay consecutive */
	if (!vr_frame_submit(renderer, recording)) {
		frame->commit_failed = true;
	}
}

static void *commit_main(void *data) {
	struct vr_renderer *renderer = data;
	struct vr_workers *workers = &renderer->workers;
	pthread_setname_np(pthread_self(), "vr-commit");
	vr_thread_yield_to_caller();
	uint64_t handled = 0;
	pthread_mutex_lock(&workers->lock);
	while (true) {
		while (!workers->quit && workers->requested == handled) {
			pthread_cond_wait(&workers->cond, &workers->lock);
		}
		if (workers->quit) {
			break;
		}
		pthread_mutex_unlock(&workers->lock);
		commit_frame(renderer);
		pthread_mutex_lock(&workers->lock);
		workers->done = ++handled;
		pthread_cond_broadcast(&workers->cond);
		pthread_mutex_unlock(&workers->lock);
		vr_cpu_stage_end(); /* nothing of this frame is read any more */
		pthread_mutex_lock(&workers->lock);
	}
	pthread_mutex_unlock(&workers->lock);
	return NULL;
}

/* ---- the caller's side ------------------------------------------------------
 */

void vr_workers_frame_start(struct vr_renderer *renderer) {
	struct vr_workers *workers = &renderer->workers;
	vr_cpu_stage_begin();
	pthread_mutex_lock(&workers->lock);
	workers->requested++;
	pthread_cond_broadcast(&workers->cond);
	pthread_mutex_unlock(&workers->lock);
}

void vr_workers_push(struct vr_renderer *renderer, struct vr_task *task) {
	vr_task_pool_push(&renderer->workers.tasks, task);
}

void vr_workers_job_end(struct vr_renderer *renderer, uint32_t job,
		uint32_t end) {
	struct vr_result result = {
		.type = VR_RESULT_JOB_END,
		.index = end,
		.job = job,
	};
	vr_result_pool_push(&renderer->workers.results, &result);
}

bool vr_workers_frame_done(struct vr_renderer *renderer, bool block) {
	struct vr_workers *workers = &renderer->workers;
	pthread_mutex_lock(&workers->lock);
	while (block && workers->done < workers->requested) {
		pthread_cond_wait(&workers->cond, &workers->lock);
	}
	bool done = workers->done >= workers->requested;
	pthread_mutex_unlock(&workers->lock);
	return done;
}

bool vr_workers_init(struct vr_renderer *renderer) {
	struct vr_workers *workers = &renderer->workers;
	if (!vr_task_pool_init(&workers->tasks, TASK_POOL_SIZE)) {
		return false;
	}
	if (!vr_result_pool_init(&workers->results, RESULT_POOL_SIZE)) {
		vr_task_pool_finish(&workers->tasks);
		return false;
	}
	pthread_mutex_init(&workers->lock, NULL);
	pthread_cond_init(&workers->cond, NULL);
	return true;
}

void vr_workers_finish(struct vr_renderer *renderer) {
	struct vr_workers *workers = &renderer->workers;
	if (workers->tasks.queue.ring == NULL) {
		return; /* never initialised */
	}
	vr_workers_stop(renderer);
	pthread_cond_destroy(&workers->cond);
	pthread_mutex_destroy(&workers->lock);
	vr_result_pool_finish(&workers->results);
	vr_task_pool_finish(&workers->tasks);
}

void vr_worker_seed(struct vr_worker *worker) {
	/* never 0: xorshift would stay there */
	worker->ctx->rng = ((uint64_t)worker->renderer->workers.delay_seed << 16) +
			(uint64_t)worker->index * 0x9e3779b97f4a7c15u + 1;
}

bool vr_workers_start(struct vr_renderer *renderer, int count) {
	struct vr_workers *workers = &renderer->workers;
	if (workers->running) {
		return true;
	}
	if (count <= 0) {
		count = vr_workers_default_count();
	}
	workers->workers = calloc((size_t)count, sizeof(*workers->workers));
	if (workers->workers == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return false;
	}
	for (int i = 0; i < count; i++) {
		struct vr_worker *worker = &workers->workers[i];
		worker->renderer = renderer;
		worker->index = i;
		worker->ctx = vr_exec_ctx_create(renderer, i);
		if (worker->ctx == NULL) {
			goto error_ctxs;
		}
		vr_worker_seed(worker);
	}
	/* read by the threads from now on: set before they start */
	workers->count = count;
	workers->requested = workers->done = 0;
	workers->quit = false;
	workers->running = true;
	int started = 0;
	for (; started < count; started++) {
		struct vr_worker *worker = &workers->workers[started];
		int err = pthread_create(&worker->thread, NULL, worker_main, worker);
		if (err != 0) {
			vr_log(VR_LOG_ERROR, "pthread_create failed: %d", err);
			goto error_threads;
		}
	}
	int err = pthread_create(&workers->commit_thread, NULL, commit_main,
			renderer);
	if (err != 0) {
		vr_log(VR_LOG_ERROR, "pthread_create failed: %d", err);
		goto error_threads;
	}
	return true;

error_threads:
	vr_task_pool_shutdown(&workers->tasks);
	for (int i = 0; i < started; i++) {
		pthread_join(workers->workers[i].thread, NULL);
	}
	vr_task_pool_restart(&workers->tasks);
	workers->running = false;
	workers->count = 0;
error_ctxs:
	for (int i = 0; i < count; i++) {
		vr_exec_ctx_destroy(workers->workers[i].ctx);
	}
	free(workers->workers);
	workers->workers = NULL;
	return false;
}

void vr_workers_stop(struct vr_renderer *renderer) {
	struct vr_workers *workers = &renderer->workers;
	if (!workers->running) {
		return;
	}
	vr_task_pool_shutdown(&workers->tasks);
	for (int i = 0; i < workers->count; i++) {
		pthread_join(workers->workers[i].thread, NULL);
	}
	vr_task_pool_restart(&workers->tasks);
	pthread_mutex_lock(&workers->lock);
	workers->quit = true;
	pthread_cond_broadcast(&workers->cond);
	pthread_mutex_unlock(&workers->lock);
	pthread_join(workers->commit_thread, NULL);
	/* the caller waited for every frame (vr_frames_wait_idle): no
	 * command buffer of theirs is pending */
	for (int i = 0; i < workers->count; i++) {
		vr_exec_ctx_destroy(workers->workers[i].ctx);
	}
	free(workers->workers);
	workers->workers = NULL;
	workers->count = 0;
	workers->running = false;
}

int vr_renderer_workers(const struct vr_renderer *renderer) {
	if (renderer->workers.running) {
		return renderer->workers.count;
	}
	return renderer->workers_wanted > 0 ? renderer->workers_wanted :
										  vr_workers_default_count();
}
