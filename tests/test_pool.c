/*
 * Unit tests of the parallel pipeline's containers and managers: the task
 * pool (SPMC) and the result pool (MPSC) under stress, the in-order commit
 * rule (table-driven), and the resource managers' preparing state (many
 * threads asking for one new pipeline / image at once: created once).
 */
#include <check.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pool.h"
#include "test_quad_frag.h" /* needs <stdint.h> */
#include "test_quad_vert.h"
#include "vk_private.h"

/* ---- task pool (SPMC) ------------------------------------------------------
 */

#define SPMC_TASKS 100000
#define SPMC_CONSUMERS 4

struct spmc {
	struct vr_task_pool pool;
	struct vr_task *tasks;
	atomic_uint popped[SPMC_TASKS]; /* times each task came out */
	atomic_uint total;
	atomic_bool out_of_order;
};

static void *spmc_consumer(void *data) {
	struct spmc *t = data;
	long last = -1;
	struct vr_task *task;
	while ((task = vr_task_pool_pop(&t->pool)) != NULL) {
		/* FIFO: one consumer sees the chain order, with gaps */
		if ((long)task->index <= last) {
			atomic_store(&t->out_of_order, true);
		}
		last = (long)task->index;
		atomic_fetch_add(&t->popped[task->index], 1);
		atomic_fetch_add(&t->total, 1);
	}
	return NULL;
}

START_TEST(test_pool_spmc_stress) {
	struct spmc *t = calloc(1, sizeof(*t));
	ck_assert_ptr_nonnull(t);
	/* a tiny pool: the producer and the consumers block often */
	ck_assert(vr_task_pool_init(&t->pool, 8));
	t->tasks = calloc(SPMC_TASKS, sizeof(*t->tasks));
	pthread_t threads[SPMC_CONSUMERS];
	for (int i = 0; i < SPMC_CONSUMERS; i++) {
		ck_assert_int_eq(pthread_create(&threads[i], NULL, spmc_consumer, t),
				0);
	}
	for (uint32_t i = 0; i < SPMC_TASKS; i++) {
		t->tasks[i].index = i;
		vr_task_pool_push(&t->pool, &t->tasks[i]);
	}
	/* wait until everything is taken, then release the consumers */
	while (atomic_load(&t->total) < SPMC_TASKS) {
		sched_yield();
	}
	vr_task_pool_shutdown(&t->pool);
	for (int i = 0; i < SPMC_CONSUMERS; i++) {
		pthread_join(threads[i], NULL);
	}
	ck_assert_uint_eq(atomic_load(&t->total), SPMC_TASKS);
	for (uint32_t i = 0; i < SPMC_TASKS; i++) {
		ck_assert_msg(atomic_load(&t->popped[i]) == 1,
				"task %u popped %u times", i, atomic_load(&t->popped[i]));
	}
	ck_assert(!atomic_load(&t->out_of_order));

	/* after a restart the pool works again, FIFO */
	vr_task_pool_restart(&t->pool);
	vr_task_pool_push(&t->pool, &t->tasks[7]);
	vr_task_pool_push(&t->pool, &t->tasks[3]);
	ck_assert_ptr_eq(vr_task_pool_pop(&t->pool), &t->tasks[7]);
	ck_assert_ptr_eq(vr_task_pool_pop(&t->pool), &t->tasks[3]);
	/* shut down: pop answers NULL at once, even with tasks left */
	vr_task_pool_push(&t->pool, &t->tasks[1]);
	vr_task_pool_shutdown(&t->pool);
	ck_assert_ptr_null(vr_task_pool_pop(&t->pool));
	vr_task_pool_finish(&t->pool);
	free(t->tasks);
	free(t);
}
END_TEST

/* ---- result pool (MPSC)
 * ------------------------------------------------------ */

#define MPSC_PRODUCERS 4
#define MPSC_PER_PRODUCER 30000

struct mpsc_producer {
	struct vr_result_pool *pool;
	uint32_t id;
};

static void *mpsc_producer(void *data) {
	struct mpsc_producer *p = data;
	for (uint32_t i = 0; i < MPSC_PER_PRODUCER; i++) {
		struct vr_result result = {
			.type = VR_RESULT_TASK,
			.index = i,
			.job = p->id,
		};
		vr_result_pool_push(p->pool, &result);
	}
	return NULL;
}

START_TEST(test_pool_mpsc_stress) {
	struct vr_result_pool pool;
	ck_assert(vr_result_pool_init(&pool, 4));
	struct vr_result result;
	ck_assert(!vr_result_pool_try_pop(&pool, &result));
	pthread_t threads[MPSC_PRODUCERS];
	struct mpsc_producer producers[MPSC_PRODUCERS];
	for (uint32_t i = 0; i < MPSC_PRODUCERS; i++) {
		producers[i] = (struct mpsc_producer){ &pool, i };
		ck_assert_int_eq(
				pthread_create(&threads[i], NULL, mpsc_producer, &producers[i]),
				0);
	}
	uint32_t next[MPSC_PRODUCERS] = { 0 };
	for (uint32_t n = 0; n < MPSC_PRODUCERS * MPSC_PER_PRODUCER; n++) {
		if (n % 2 == 0 || !vr_result_pool_try_pop(&pool, &result)) {
			vr_result_pool_pop(&pool, &result);
		}
		ck_assert_uint_lt(result.job, MPSC_PRODUCERS);
		/* each producer's results come out in its order, none lost */
		ck_assert_uint_eq(result.index, next[result.job]);
		next[result.job]++;
	}
	for (int i = 0; i < MPSC_PRODUCERS; i++) {
		pthread_join(threads[i], NULL);
		ck_assert_uint_eq(next[i], MPSC_PER_PRODUCER);
	}
	ck_assert(!vr_result_pool_try_pop(&pool, &result));
	vr_result_pool_finish(&pool);
}
END_TEST

/* ---- arena and chain
 * ----------------------------------------------------------- */

START_TEST(test_pool_arena_and_chain) {
	struct vr_arena arena;
	vr_arena_init(&arena);
	unsigned char *small = vr_arena_alloc(&arena, 3);
	unsigned char *big = vr_arena_alloc(&arena, 300000); /* own block */
	unsigned char *after = vr_arena_alloc(&arena, 40);
	ck_assert_ptr_nonnull(small);
	ck_assert_ptr_nonnull(big);
	ck_assert_ptr_nonnull(after);
	ck_assert_uint_eq((uintptr_t)small % 16, 0);
	ck_assert_uint_eq((uintptr_t)after % 16, 0);
	ck_assert_uint_eq(big[299999], 0); /* zeroed */
	memset(big, 0xff, 300000);
	vr_arena_reset(&arena);
	unsigned char *again = vr_arena_alloc(&arena, 300000);
	ck_assert_uint_eq(again[0], 0);
	ck_assert_uint_eq(again[299999], 0);
	vr_arena_finish(&arena);

	/* tasks keep their address while the chain grows past a block */
	struct vr_task_list *list = calloc(1, sizeof(*list));
	struct vr_task *first =
			vr_task_list_append(list, &(struct vr_task){ .job = 3 });
	for (uint32_t i = 1; i < 3 * VR_TASK_BLOCK_SIZE; i++) {
		struct vr_task *task =
				vr_task_list_append(list, &(struct vr_task){ .job = i });
		ck_assert_ptr_nonnull(task);
		ck_assert_uint_eq(task->index, i);
	}
	ck_assert_ptr_eq(vr_task_list_at(list, 0), first);
	ck_assert_uint_eq(first->job, 3);
	ck_assert_uint_eq(vr_task_list_at(list, 2500)->job, 2500);
	vr_task_list_finish(list);
	free(list);
}
END_TEST

/* ---- the commit rule
 * ----------------------------------------------------------- */

#define MAX_CASE_TASKS 16
#define MAX_CASE_EVENTS 24
#define END(job, index) (-1000 - (job)*100 - (index)) /* a job-end event */

struct commit_case {
	const char *name;
	int ntasks;
	struct {
		uint32_t job;
		struct vr_box aabb;
	} tasks[MAX_CASE_TASKS];
	/* task indices in the order they finish, and END(job, index) events
	 * where preparation tells a job's end */
	int events[MAX_CASE_EVENTS];
	int nevents;
	int expected[MAX_CASE_TASKS]; /* commit order */
	uint32_t ooo, stalls;
};

#define BOX(x, y, w, h) \
	{ (x), (y), (w), (h) }
#define SPREAD(i) BOX(20 * (i), 0, 10, 10) /* disjoint from each other */

static const struct commit_case commit_cases[] = {
	{
			.name = "in order",
			.ntasks = 4,
			.tasks = { { 0, SPREAD(0) }, { 0, SPREAD(1) }, { 0, SPREAD(2) },
					{ 0, SPREAD(3) } },
			.events = { END(0, 4), 0, 1, 2, 3 },
			.nevents = 5,
			.expected = { 0, 1, 2, 3 },
	},
	{
			.name = "reverse, disjoint: everything overtakes",
			.ntasks = 4,
			.tasks = { { 0, SPREAD(0) }, { 0, SPREAD(1) }, { 0, SPREAD(2) },
					{ 0, SPREAD(3) } },
			.events = { END(0, 4), 3, 2, 1, 0 },
			.nevents = 5,
			.expected = { 3, 2, 1, 0 },
			.ooo = 3,
	},
	{
			.name = "reverse, overlapping: strict order, stalls",
			.ntasks = 4,
			.tasks = { { 0, BOX(0, 0, 10, 10) }, { 0, BOX(5, 5, 10, 10) },
					{ 0, BOX(8, 8, 10, 10) }, { 0, BOX(0, 9, 10, 10) } },
			.events = { END(0, 4), 3, 2, 1, 0 },
			.nevents = 5,
			.expected = { 0, 1, 2, 3 },
			.stalls = 3,
	},
	{
			.name = "touching edges do not overlap",
			.ntasks = 2,
			.tasks = { { 0, BOX(0, 0, 10, 10) }, { 0, BOX(10, 0, 10, 10) } },
			.events = { END(0, 2), 1, 0 },
			.nevents = 3,
			.expected = { 1, 0 },
			.ooo = 1,
	},
	{
			.name = "look-back bound",
			.ntasks = 7,
			.tasks = { { 0, SPREAD(0) }, { 0, SPREAD(1) }, { 0, SPREAD(2) },
					{ 0, SPREAD(3) }, { 0, SPREAD(4) }, { 0, SPREAD(5) },
					{ 0, SPREAD(6) } },
			.events = { END(0, 7), 6, 5, 4, 3, 2, 1, 0 },
			.nevents = 8,
			/* 6 and 5 are further than VR_COMMIT_LOOKBACK from the head */
			.expected = { 4, 3, 2, 1, 0, 5, 6 },
			.ooo = 4,
			.stalls = 6,
	},
	{
			.name = "only the overlapping one waits",
			.ntasks = 4,
			.tasks = { { 0, BOX(0, 0, 10, 10) }, { 0, BOX(20, 0, 10, 10) },
					{ 0, BOX(0, 0, 5, 5) }, { 0, BOX(40, 0, 10, 10) } },
			.events = { END(0, 4), 3, 2, 1, 0 },
			.nevents = 5,
			.expected = { 3, 1, 0, 2 },
			.ooo = 2,
			.stalls = 2,
	},
	{
			.name = "an unfinished overlapping task in the middle blocks",
			.ntasks = 3,
			.tasks = { { 0, BOX(0, 0, 10, 10) }, { 0, BOX(50, 0, 10, 10) },
					{ 0, BOX(55, 0, 10, 10) } },
			.events = { END(0, 3), 2, 0, 1 },
			.nevents = 4,
			.expected = { 0, 1, 2 },
			.stalls = 2,
	},
	{
			.name = "never across jobs (render passes)",
			.ntasks = 4,
			.tasks = { { 0, SPREAD(0) }, { 0, SPREAD(1) }, { 1, SPREAD(2) },
					{ 1, SPREAD(3) } },
			.events = { END(0, 2), END(1, 4), 3, 2, 1, 0 },
			.nevents = 6,
			.expected = { 1, 0, 2, 3 },
			.ooo = 1,
			.stalls = 3,
	},
	{
			.name = "a job's end known late",
			.ntasks = 3,
			.tasks = { { 0, SPREAD(0) }, { 0, SPREAD(1) }, { 1, SPREAD(2) } },
			.events = { 0, 1, 2, END(0, 2), END(1, 3) },
			.nevents = 5,
			/* 2 belongs to the next pass: it waits for job 0's end */
			.expected = { 0, 1, 2 },
			.stalls = 1,
	},
	{
			.name = "an empty job between two",
			.ntasks = 2,
			.tasks = { { 0, SPREAD(0) }, { 2, SPREAD(1) } },
			.events = { 1, 0, END(0, 1), END(1, 1), END(2, 2) },
			.nevents = 5,
			.expected = { 0, 1 },
			/* 1 waits through job 0 and the empty job 1 */
			.stalls = 3,
	},
};

/* Drive the rule the way the commit thread does (workers.c). */
static void run_commit_case(const struct commit_case *c) {
	struct vr_task_list *list = calloc(1, sizeof(*list));
	for (int i = 0; i < c->ntasks; i++) {
		ck_assert_ptr_nonnull(vr_task_list_append(list,
				&(struct vr_task){ .job = c->tasks[i].job,
						.aabb = c->tasks[i].aabb }));
	}
	struct vr_commit commit;
	vr_commit_init(&commit, list);
	uint32_t ends[8];
	memset(ends, 0xff, sizeof(ends));
	uint32_t njobs = c->tasks[c->ntasks - 1].job + 1;
	int order[MAX_CASE_TASKS], ncommitted = 0, next_event = 0;
	uint32_t stalls = 0, job = 0;
	bool begun = false;
	while (job < njobs) {
		if (!begun) {
			begun = true;
			if (ends[job] != UINT32_MAX) {
				vr_commit_set_end(&commit, ends[job]);
			}
		}
		uint32_t index;
		while (vr_commit_pick(&commit, &index)) {
			ck_assert_int_lt(ncommitted, c->ntasks);
			ck_assert_uint_eq(vr_task_list_at(list, index)->job, job);
			order[ncommitted++] = (int)index;
		}
		if (vr_commit_job_done(&commit)) {
			vr_commit_next_job(&commit);
			job++;
			begun = false;
			continue;
		}
		if (commit.waiting > 0) {
			stalls++;
		}
		ck_assert_msg(next_event < c->nevents, "%s: stuck after %d commits",
				c->name, ncommitted);
		int event = c->events[next_event++];
		if (event >= 0) {
			vr_commit_task_finished(&commit, (uint32_t)event);
		} else {
			int e = -1000 - event;
			ends[e / 100] = (uint32_t)(e % 100);
			if ((uint32_t)(e / 100) == job) {
				vr_commit_set_end(&commit, ends[job]);
			}
		}
	}
	ck_assert_msg(ncommitted == c->ntasks, "%s: %d of %d committed", c->name,
			ncommitted, c->ntasks);
	for (int i = 0; i < c->ntasks; i++) {
		ck_assert_msg(order[i] == c->expected[i],
				"%s: commit %d is task %d, expected %d", c->name, i, order[i],
				c->expected[i]);
	}
	ck_assert_msg(commit.ooo == c->ooo,
			"%s: %u out-of-order commits, "
			"expected %u",
			c->name, commit.ooo, c->ooo);
	ck_assert_msg(stalls == c->stalls, "%s: %u stalls, expected %u", c->name,
			stalls, c->stalls);
	ck_assert_uint_eq(commit.waiting, 0);
	vr_task_list_finish(list);
	free(list);
}

START_TEST(test_pool_commit_rule) {
	run_commit_case(&commit_cases[_i]);
}
END_TEST

/* Random chains and finish orders: every task committed once, and never
 * before an earlier task of its job that overlaps it. */
START_TEST(test_pool_commit_rule_random) {
	uint64_t seed = 0x1234567u;
	for (int round = 0; round < 300; round++) {
		struct vr_task_list *list = calloc(1, sizeof(*list));
		uint32_t n = 1 +
				(uint32_t)((seed = seed * 6364136223846793005u +
										   1442695040888963407u) >>
						58);
		uint32_t njobs = 1 + (uint32_t)((seed >> 40) % 3);
		for (uint32_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			struct vr_task task = {
				.job = (uint32_t)((uint64_t)i * njobs / n),
				.aabb = { (int32_t)(seed >> 60) * 8,
						(int32_t)((seed >> 56) & 15) * 8,
						8 + (int32_t)((seed >> 50) & 15),
						8 + (int32_t)((seed >> 44) & 15) },
			};
			vr_task_list_append(list, &task);
		}
		uint32_t finish[64];
		for (uint32_t i = 0; i < n; i++) {
			finish[i] = i;
		}
		for (uint32_t i = n - 1; i > 0; i--) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			uint32_t j = (uint32_t)((seed >> 33) % (i + 1));
			uint32_t tmp = finish[i];
			finish[i] = finish[j];
			finish[j] = tmp;
		}
		struct vr_commit commit;
		vr_commit_init(&commit, list);
		bool committed[64] = { false };
		uint32_t next = 0, job = 0, done = 0;
		uint32_t job_end = 0;
		while (job < njobs) {
			job_end = 0;
			for (uint32_t i = 0; i < n; i++) {
				if (vr_task_list_at(list, i)->job <= job) {
					job_end = i + 1;
				}
			}
			vr_commit_set_end(&commit, job_end);
			uint32_t index;
			while (vr_commit_pick(&commit, &index)) {
				const struct vr_task *t = vr_task_list_at(list, index);
				ck_assert_uint_eq(t->job, job);
				ck_assert(!committed[index]);
				for (uint32_t j = 0; j < index; j++) {
					const struct vr_task *e = vr_task_list_at(list, j);
					struct vr_box i = vr_box_intersect(&e->aabb, &t->aabb);
					ck_assert_msg(committed[j] || e->job != job ||
									vr_box_empty(&i),
							"round %d: %u before %u", round, index, j);
				}
				committed[index] = true;
				done++;
			}
			if (vr_commit_job_done(&commit)) {
				vr_commit_next_job(&commit);
				job++;
				continue;
			}
			ck_assert_uint_lt(next, n);
			vr_commit_task_finished(&commit, finish[next++]);
		}
		ck_assert_uint_eq(done, n);
		vr_task_list_finish(list);
		free(list);
	}
}
END_TEST

/* ---- the preparing state
 * --------------------------------------------------------- */

#define PREPARING_THREADS 8

static struct vr_renderer *renderer;
static int log_errors;

static void test_log(enum vr_log_level level, const char *fmt, va_list args) {
	if (level == VR_LOG_ERROR) {
		log_errors++;
		fprintf(stderr, "[renderer] ");
		vfprintf(stderr, fmt, args);
		fputc('\n', stderr);
	}
}

static void gpu_setup(void) {
	vr_set_log_func(test_log);
	log_errors = 0;
	renderer = vr_renderer_create(
			&(struct vr_renderer_options){ .workers = PREPARING_THREADS });
	ck_assert_ptr_nonnull(renderer);
	ck_assert_int_eq(vr_renderer_workers(renderer), PREPARING_THREADS);
}

static void gpu_teardown(void) {
	vr_renderer_destroy(renderer);
	renderer = NULL;
	vr_set_log_func(NULL);
}

struct pipeline_round {
	struct vr_pipeline_desc desc;
	VkPipeline got[PREPARING_THREADS];
};

static void ask_pipeline(struct vr_exec_ctx *ctx, int i, void *data) {
	struct pipeline_round *round = data;
	round->got[i] = vr_exec_pipeline(ctx, &round->desc);
}

START_TEST(test_pool_preparing_pipeline) {
	const int rounds = 12;
	struct vr_resource_stats before, after;
	vr_renderer_resource_stats(renderer, &before);
	VkPipeline seen[12];
	/* every creator waits until the seven others wait for it */
	vr_renderer_set_test_hold_creation(renderer, PREPARING_THREADS - 1);
	for (int r = 0; r < rounds; r++) {
		struct pipeline_round round = {
			.desc = {
				.key = 0x7e570000u + (uint32_t)r, /* new each round */
				.vert_spv = test_quad_vert_spv,
				.vert_size = sizeof(test_quad_vert_spv),
				.frag_spv = test_quad_frag_spv,
				.frag_size = sizeof(test_quad_frag_spv),
				.uses_texture = true,
				.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP,
			},
		};
		ck_assert(vr_renderer_test_exec(renderer, PREPARING_THREADS,
				ask_pipeline, &round));
		for (int i = 0; i < PREPARING_THREADS; i++) {
			ck_assert_ptr_nonnull(round.got[i]);
			ck_assert_ptr_eq(round.got[i], round.got[0]);
		}
		for (int j = 0; j < r; j++) {
			ck_assert_ptr_ne(seen[j], round.got[0]);
		}
		seen[r] = round.got[0];
	}
	vr_renderer_resource_stats(renderer, &after);
	/* created exactly once per key, whoever asked first */
	ck_assert_uint_eq(after.pipelines_created - before.pipelines_created,
			(unsigned)rounds);
	vr_renderer_set_test_hold_creation(renderer, 0);
	/* the others waited for the one creating it, none created it again */
	ck_assert_uint_eq(after.waits - before.waits,
			(unsigned)(rounds * (PREPARING_THREADS - 1)));
	fprintf(stderr,
			"preparing pipelines: %u waits in %d rounds of %d "
			"threads\n",
			after.waits - before.waits, rounds, PREPARING_THREADS);

	/* a known key is a plain read afterwards: nothing created */
	struct pipeline_round again = { .desc = { .key = 0x7e570000u } };
	ck_assert(vr_renderer_test_exec(renderer, PREPARING_THREADS, ask_pipeline,
			&again));
	ck_assert_ptr_eq(again.got[0], seen[0]);
	vr_renderer_resource_stats(renderer, &before);
	ck_assert_uint_eq(before.pipelines_created, after.pipelines_created);
	ck_assert_int_eq(log_errors, 0);
}
END_TEST

struct image_round {
	struct vr_image *image;
	VkDescriptorSet nearest[PREPARING_THREADS], linear[PREPARING_THREADS];
};

static void ask_image(struct vr_exec_ctx *ctx, int i, void *data) {
	struct image_round *round = data;
	/* half the threads ask linear first */
	if (i % 2 == 0) {
		round->nearest[i] = vr_exec_image(ctx, round->image, false, NULL);
		round->linear[i] = vr_exec_image(ctx, round->image, true, NULL);
	} else {
		round->linear[i] = vr_exec_image(ctx, round->image, true, NULL);
		round->nearest[i] = vr_exec_image(ctx, round->image, false, NULL);
	}
}

START_TEST(test_pool_preparing_image) {
	const int32_t W = 40, H = 30;
	struct vr_image *image = vr_image_create(W, H, VR_FORMAT_ARGB8888);
	uint32_t *pixels = malloc((size_t)W * H * 4);
	for (int i = 0; i < W * H; i++) {
		pixels[i] = 0xff000000u | (uint32_t)(i * 2654435761u >> 8);
	}
	vr_image_write(image, pixels, W * 4, NULL);

	struct vr_resource_stats before, after;
	vr_renderer_resource_stats(renderer, &before);
	struct image_round round = { .image = image };
	ck_assert(vr_renderer_test_exec(renderer, PREPARING_THREADS, ask_image,
			&round));
	vr_renderer_resource_stats(renderer, &after);
	ck_assert_uint_eq(after.textures_created - before.textures_created, 1);
	for (int i = 0; i < PREPARING_THREADS; i++) {
		ck_assert_ptr_nonnull(round.nearest[i]);
		ck_assert_ptr_eq(round.nearest[i], round.nearest[0]);
		ck_assert_ptr_eq(round.linear[i], round.linear[0]);
	}
	ck_assert_ptr_ne(round.nearest[0], round.linear[0]);

	/* the one upload of those threads put the right pixels there: a
	 * render draws them without uploading again */
	struct vr_tree *tree = vr_tree_create();
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_image(node, image, NULL, (float)W, (float)H,
			VR_TRANSFORM_NORMAL);
	vr_node_set_parent(node, vr_tree_root(tree));
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, W, H);
	struct vr_render_job job = { .target = target };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));
	ck_assert_uint_eq(job.timing.uploads, 0);
	uint32_t *out = malloc((size_t)W * H * 4);
	vr_target_read(target, NULL, out, W * 4);
	ck_assert_int_eq(memcmp(out, pixels, (size_t)W * H * 4), 0);
	vr_renderer_resource_stats(renderer, &before);
	ck_assert_uint_eq(before.textures_created, after.textures_created);

	free(out);
	free(pixels);
	vr_target_destroy(target);
	vr_tree_destroy(tree);
	vr_image_unref(image);
	ck_assert_int_eq(log_errors, 0);
}
END_TEST

#define VERTEX_CALLS 300

struct vertex_round {
	struct {
		VkBuffer buffer;
		VkDeviceSize offset, size;
		uint8_t *ptr;
	} got[PREPARING_THREADS][VERTEX_CALLS + 1];
	struct vr_scratch scratch[PREPARING_THREADS];
	bool scratch_ok[PREPARING_THREADS];
	atomic_int written; /* threads done writing */
	bool intact[PREPARING_THREADS];
};

static void ask_vertices(struct vr_exec_ctx *ctx, int i, void *data) {
	struct vertex_round *round = data;
	for (int c = 0; c <= VERTEX_CALLS; c++) {
		/* the last one is larger than the ring region: overflow */
		size_t size = c == VERTEX_CALLS ?
				(3u << 20) :
				(size_t)(1 + (c * 7919 + i * 104729) % 4000);
		VkDeviceSize offset;
		uint8_t *ptr = vr_exec_vertices(ctx, size, &offset);
		round->got[i][c].ptr = ptr;
		round->got[i][c].buffer = vr_exec_vertex_buffer(ctx);
		round->got[i][c].offset = offset;
		round->got[i][c].size = size;
		if (ptr != NULL) {
			memset(ptr, i + 1, size);
		}
	}
	/* once everybody wrote, every slice still holds its writer's bytes
	 * (the memory goes when the frame retires) */
	atomic_fetch_add(&round->written, 1);
	while (atomic_load(&round->written) < PREPARING_THREADS) {
		sched_yield();
	}
	round->intact[i] = true;
	for (int c = 0; c <= VERTEX_CALLS; c++) {
		const uint8_t *ptr = round->got[i][c].ptr;
		for (size_t b = 0; ptr != NULL && b < round->got[i][c].size; b += 61) {
			round->intact[i] &= ptr[b] == i + 1;
		}
	}
	round->scratch_ok[i] = vr_exec_scratch(ctx, 32, 16, &round->scratch[i]);
}

START_TEST(test_pool_vertices_and_scratch) {
	struct vertex_round *round = calloc(1, sizeof(*round));
	struct vr_resource_stats before, after;
	vr_renderer_resource_stats(renderer, &before);
	ck_assert(vr_renderer_test_exec(renderer, PREPARING_THREADS, ask_vertices,
			round));
	/* every slice is intact (no other thread wrote into it), aligned,
	 * and no two slices of one buffer overlap */
	for (int i = 0; i < PREPARING_THREADS; i++) {
		ck_assert_msg(round->intact[i], "thread %d's slices overwritten", i);
		for (int c = 0; c <= VERTEX_CALLS; c++) {
			ck_assert_ptr_nonnull(round->got[i][c].ptr);
			ck_assert_uint_eq(round->got[i][c].offset % 16, 0);
		}
	}
	for (int i = 0; i < PREPARING_THREADS; i++) {
		for (int c = 0; c <= VERTEX_CALLS; c += 7) {
			for (int j = 0; j < PREPARING_THREADS; j++) {
				for (int d = 0; d <= VERTEX_CALLS; d++) {
					if ((i == j && c == d) ||
							round->got[i][c].buffer !=
									round->got[j][d].buffer) {
						continue;
					}
					VkDeviceSize a0 = round->got[i][c].offset;
					VkDeviceSize a1 = a0 + round->got[i][c].size;
					VkDeviceSize b0 = round->got[j][d].offset;
					VkDeviceSize b1 = b0 + round->got[j][d].size;
					ck_assert_msg(a1 <= b0 || b1 <= a0,
							"slices (%d,%d) and (%d,%d) overlap", i, c, j, d);
				}
			}
		}
		/* the oversized one has a buffer of its own */
		ck_assert_ptr_ne(round->got[i][VERTEX_CALLS].buffer,
				round->got[i][0].buffer);
	}
	/* scratch images: one each, all distinct within the frame */
	vr_renderer_resource_stats(renderer, &after);
	ck_assert_uint_eq(after.scratch_created - before.scratch_created,
			PREPARING_THREADS);
	for (int i = 0; i < PREPARING_THREADS; i++) {
		ck_assert(round->scratch_ok[i]);
		ck_assert_int_eq(round->scratch[i].width, 32);
		ck_assert_ptr_nonnull(round->scratch[i].framebuffer);
		for (int j = 0; j < i; j++) {
			ck_assert_ptr_ne(round->scratch[i].image, round->scratch[j].image);
		}
	}
	/* the next frame recycles them instead of creating more */
	memset(round, 0, sizeof(*round));
	ck_assert(vr_renderer_test_exec(renderer, PREPARING_THREADS, ask_vertices,
			round));
	vr_renderer_resource_stats(renderer, &before);
	ck_assert_uint_eq(before.scratch_created, after.scratch_created);
	free(round);
	ck_assert_int_eq(log_errors, 0);
}
END_TEST

/* Workers can be changed between frames; the counts are honoured. */
START_TEST(test_pool_worker_changes) {
	ck_assert(!vr_renderer_is_sequential(renderer));
	vr_renderer_set_workers(renderer, 2);
	ck_assert_int_eq(vr_renderer_workers(renderer), 2);
	vr_renderer_set_sequential(renderer, true);
	ck_assert(vr_renderer_is_sequential(renderer));
	vr_renderer_set_workers(renderer, 3); /* remembered */
	vr_renderer_set_sequential(renderer, false);
	ck_assert_int_eq(vr_renderer_workers(renderer), 3);
	/* fewer idle workers than asked: refused, logged */
	ck_assert(!vr_renderer_test_exec(renderer, 4, ask_pipeline, NULL));
	ck_assert_int_eq(log_errors, 1);
	log_errors = 0;
	vr_renderer_set_workers(renderer, 0);
	ck_assert_int_ge(vr_renderer_workers(renderer), 1);
}
END_TEST

static Suite *pool_suite(void) {
	Suite *s = suite_create("pool");
	TCase *tc = tcase_create("pools");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_pool_spmc_stress);
	tcase_add_test(tc, test_pool_mpsc_stress);
	tcase_add_test(tc, test_pool_arena_and_chain);
	suite_add_tcase(s, tc);

	tc = tcase_create("commit");
	tcase_add_loop_test(tc, test_pool_commit_rule, 0,
			(int)(sizeof(commit_cases) / sizeof(commit_cases[0])));
	tcase_add_test(tc, test_pool_commit_rule_random);
	suite_add_tcase(s, tc);

	tc = tcase_create("preparing");
	tcase_add_checked_fixture(tc, gpu_setup, gpu_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_pool_preparing_pipeline);
	tcase_add_test(tc, test_pool_preparing_image);
	tcase_add_test(tc, test_pool_vertices_and_scratch);
	tcase_add_test(tc, test_pool_worker_changes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void) {
	/* see test_render.c: keeps lavapipe's state reachable for LSan */
	(void)dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
	SRunner *sr = srunner_create(pool_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
