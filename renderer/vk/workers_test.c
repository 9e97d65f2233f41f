/*
 * The workers' test hooks (renderer.h): a random delay before each chunk
 * a worker executes, and running a test's function on idle workers'
 * contexts inside an empty frame. Above the frames (vk_frames.c): both
 * reap or open a frame; the threads themselves are workers.c's.
 */
#include <pthread.h>
#include <stdlib.h>
#include "vk_private.h"

/* ---- test hook -------------------------------------------------------------
 */

void vr_renderer_set_test_delay(struct vr_renderer *renderer, unsigned max_us,
		uint32_t seed) {
	struct vr_workers *workers = &renderer->workers;
	vr_frame_reap(renderer, true); /* workers read these during a frame */
	workers->delay_max_us = max_us;
	workers->delay_seed = seed;
	for (int i = 0; i < workers->count; i++) {
		vr_worker_seed(&workers->workers[i]);
	}
}

/* Threads of vr_renderer_test_exec wait at this gate and start together. */
struct test_gate {
	pthread_mutex_t lock;
	pthread_cond_t open_cond;
	bool open; /* protected by lock */
	bool cancelled; /* protected by lock */
};

struct test_thread {
	pthread_t thread;
	struct test_gate *gate;
	struct vr_exec_ctx *ctx;
	int index;
	void (*fn)(struct vr_exec_ctx *ctx, int i, void *data);
	void *data;
};

static void *test_thread_main(void *data) {
	struct test_thread *t = data;
	pthread_mutex_lock(&t->gate->lock);
	while (!t->gate->open) {
		pthread_cond_wait(&t->gate->open_cond, &t->gate->lock);
	}
	bool cancelled = t->gate->cancelled;
	pthread_mutex_unlock(&t->gate->lock);
	if (!cancelled) {
		t->fn(t->ctx, t->index, t->data);
	}
	return NULL;
}

bool vr_renderer_test_exec(struct vr_renderer *renderer, int n,
		void (*fn)(struct vr_exec_ctx *ctx, int i, void *data), void *data) {
	struct vr_workers *workers = &renderer->workers;
	if (!workers->running || n < 1 || n > workers->count) {
		vr_log(VR_LOG_ERROR, "test_exec: %d threads, %d idle workers", n,
				workers->count);
		return false;
	}
	/* an empty frame; the idle workers' contexts lend themselves */
	struct vr_frame *frame = &renderer->frame;
	if (!vr_frame_open(renderer)) {
		return false;
	}
	frame->njobs = 0;
	frame->commit_ns = frame->submit_ns = 0;
	struct test_thread *threads = vr_resources_frame_begin(renderer) ?
			calloc((size_t)n, sizeof(*threads)) :
			NULL;
	if (threads == NULL) {
		vr_log(VR_LOG_ERROR, "test_exec: frame set-up failed");
		vr_frame_submit(renderer, false);
		vr_frame_close(renderer, false);
		return false;
	}
	struct test_gate gate = { .open = false };
	pthread_mutex_init(&gate.lock, NULL);
	pthread_cond_init(&gate.open_cond, NULL);
	int started = 0;
	for (; started < n; started++) {
		threads[started] = (struct test_thread){
			.gate = &gate,
			.ctx = workers->workers[started].ctx,
			.index = started,
			.fn = fn,
			.data = data,
		};
		if (pthread_create(&threads[started].thread, NULL, test_thread_main,
					&threads[started]) != 0) {
			vr_log(VR_LOG_ERROR, "test_exec: pthread_create failed");
			break;
		}
	}
	pthread_mutex_lock(&gate.lock);
	gate.open = true;
	gate.cancelled = started < n;
	pthread_cond_broadcast(&gate.open_cond);
	pthread_mutex_unlock(&gate.lock);
	for (int i = 0; i < started; i++) {
		pthread_join(threads[i].thread, NULL);
	}
	pthread_cond_destroy(&gate.open_cond);
	pthread_mutex_destroy(&gate.lock);
	free(threads);
	bool ok = started == n && vr_frame_begin_commands(renderer);
	ok = vr_frame_submit(renderer, ok) && ok;
	vr_frame_close(renderer, ok);
	ok = vr_frame_wait(renderer, frame->number, UINT64_MAX) && ok;
	for (int i = 0; i < n; i++) {
		ok = ok && !workers->workers[i].ctx->failed;
	}
	return ok;
}
