/*
 * The CPU backend's thread pool: workers that run a frame's items
 * (phase 1's tasks, phase 2's bands) with the calling thread.
 */
#include "cpu_private.h"

static void pool_work(struct cpu_pool *pool) {
	uint32_t i;
	while ((i = atomic_fetch_add(&pool->next, 1)) < pool->nitems) {
		pool->fn(pool->data, i);
	}
}

static void *pool_main(void *data) {
	struct cpu_pool *pool = data;
	uint64_t seen = 0;
	pthread_mutex_lock(&pool->lock);
	int index = 0;
	for (int i = 0; i < pool->nthreads; i++) {
		if (pthread_equal(pool->threads[i], pthread_self())) {
			index = i + 1;
		}
	}
	pthread_mutex_unlock(&pool->lock);
	char name[24]; /* pthread names: 15 characters */
	snprintf(name, sizeof(name), "vr-cpu-%d", index % CPU_MAX_WORKERS);
	pthread_setname_np(pthread_self(), name);
	vr_thread_yield_to_caller();
	pthread_mutex_lock(&pool->lock);
	while (true) {
		while (!pool->quit && pool->generation == seen) {
			pthread_cond_wait(&pool->start, &pool->lock);
		}
		if (pool->quit) {
			break;
		}
		seen = pool->generation;
		pthread_mutex_unlock(&pool->lock);
		pool_work(pool);
		pthread_mutex_lock(&pool->lock);
		if (--pool->running == 0) {
			pthread_cond_signal(&pool->done);
		}
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

/* fn(data, i) for i in [0, nitems), on the pool and the calling thread;
 * returns when all are done. */
void cpu_pool_run(struct cpu_pool *pool, uint32_t nitems, cpu_item_fn fn,
		void *data) {
	if (nitems == 0) {
		return;
	}
	pool->fn = fn;
	pool->data = data;
	pool->nitems = nitems;
	atomic_store(&pool->next, 0);
	if (pool->nthreads > 0 && nitems > 1) {
		pthread_mutex_lock(&pool->lock);
		pool->running = pool->nthreads;
		pool->generation++;
		pthread_cond_broadcast(&pool->start);
		pthread_mutex_unlock(&pool->lock);
		pool_work(pool);
		pthread_mutex_lock(&pool->lock);
		while (pool->running > 0) {
			pthread_cond_wait(&pool->done, &pool->lock);
		}
		pthread_mutex_unlock(&pool->lock);
	} else {
		pool_work(pool);
	}
}

bool cpu_pool_init(struct cpu_pool *pool, int nthreads) {
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->start, NULL);
	pthread_cond_init(&pool->done, NULL);
	/* threads read nthreads under the lock to find their index */
	pthread_mutex_lock(&pool->lock);
	for (int i = 0; i < nthreads; i++) {
		int err = pthread_create(&pool->threads[i], NULL, pool_main, pool);
		if (err != 0) {
			vr_log(VR_LOG_ERROR, "cpu: pthread_create failed: %d", err);
			break;
		}
		pool->nthreads++;
	}
	pthread_mutex_unlock(&pool->lock);
	return pool->nthreads == nthreads;
}

void cpu_pool_finish(struct cpu_pool *pool) {
	pthread_mutex_lock(&pool->lock);
	pool->quit = true;
	pthread_cond_broadcast(&pool->start);
	pthread_mutex_unlock(&pool->lock);
	for (int i = 0; i < pool->nthreads; i++) {
		pthread_join(pool->threads[i], NULL);
	}
	pthread_cond_destroy(&pool->start);
	pthread_cond_destroy(&pool->done);
	pthread_mutex_destroy(&pool->lock);
}
