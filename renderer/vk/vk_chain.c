/*
 * The chain (vk_render.c, stage 1): preparation's output, and what the
 * caller's thread does with each task as preparation pushes it: in
 * parallel mode, once the frame is worth it, chunks of tasks to the
 * workers and each job's end to the commit thread (workers.c); in
 * sequential mode, the task executed and recorded right away. Above the
 * workers and the recording, below the frame's set-up (vk_render.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "display_list.h"
#include "engine_kinds.h"
#include "vk_private.h"

/* ---- preparation's output --------------------------------------------------
 */

static bool hold(struct vr_chain *chain, struct vr_array *array, void *ptr) {
	if (!vr_array_reserve(array, 1, sizeof(void *))) {
		chain->failed = true;
		return false;
	}
	((void **)array->data)[array->len++] = ptr;
	return true;
}

bool vr_chain_hold_image(struct vr_chain *chain, struct vr_image *image) {
	/* sequential frames are done before submit returns */
	if (chain->renderer->sequential || image->hold_epoch == chain->hold_epoch) {
		return true;
	}
	if (!hold(chain, &chain->held_images, image)) {
		return false;
	}
	image->hold_epoch = chain->hold_epoch;
	vr_image_pin(image);
	return true;
}

bool vr_chain_hold_list(struct vr_chain *chain, struct vr_display_list *list) {
	if (chain->renderer->sequential || list->hold_epoch == chain->hold_epoch) {
		return true;
	}
	if (!hold(chain, &chain->held_lists, list)) {
		return false;
	}
	list->hold_epoch = chain->hold_epoch;
	vr_display_list_ref(list);
	return true;
}

bool vr_chain_atlas_place(struct vr_chain *chain, struct vr_image *image,
		bool nearest, struct vr_atlas_place *out) {
	return vr_resources_atlas_place(chain->renderer, image, nearest, out);
}

void *vr_chain_alloc(struct vr_chain *chain, size_t size) {
	return vr_arena_alloc(&chain->arena, size);
}

/* ---- granularity (parallel mode; the caller's thread) ----------------------
 */

/* The pending chunk to the workers: one handoff for its tasks. */
void vr_chain_push_chunk(struct vr_renderer *renderer) {
	struct vr_frame *frame = &renderer->frame;
	if (frame->chunk_len == 0) {
		return;
	}
	struct vr_task *first =
			vr_task_list_at(&frame->chain.tasks, frame->chunk_first);
	vr_task_slot(first)->chunk = frame->chunk_len;
	vr_workers_push(renderer, first);
	frame->chunks++;
	frame->chunk_len = 0;
	frame->chunk_cost = 0;
}

/* Chain tasks below `end` into chunks of about chunk_cost, one job's
 * each; a chunk goes as soon as it is full. */
static void hand_over(struct vr_renderer *renderer, uint32_t end) {
	struct vr_frame *frame = &renderer->frame;
	while (frame->handed < end) {
		const struct vr_task *task =
				vr_task_list_at(&frame->chain.tasks, frame->handed);
		if (frame->chunk_len > 0 &&
				vr_task_list_at(&frame->chain.tasks, frame->chunk_first)->job !=
						task->job) {
			vr_chain_push_chunk(renderer);
		}
		if (frame->chunk_len == 0) {
			frame->chunk_first = frame->handed;
		}
		frame->chunk_len++;
		frame->chunk_cost += task->cost;
		frame->handed++;
		if (frame->chunk_cost >= renderer->granularity.chunk_cost) {
			vr_chain_push_chunk(renderer);
		}
	}
}

/* Jobs below `job` are prepared: the commit thread learns their ends. */
void vr_chain_end_jobs(struct vr_renderer *renderer, size_t job) {
	struct vr_frame *frame = &renderer->frame;
	for (; frame->jobs_ended < job; frame->jobs_ended++) {
		/* the commit thread closes the job's render pass at its end */
		vr_workers_job_end(renderer, (uint32_t)frame->jobs_ended,
				frame->jobs[frame->jobs_ended].end);
	}
}

/* The frame is worth the handoffs: the commit thread starts on it. */
void vr_chain_start_handing(struct vr_renderer *renderer) {
	struct vr_frame *frame = &renderer->frame;
	frame->handing = true;
	frame->mode = VR_FRAME_PARALLEL;
	vr_workers_frame_start(renderer);
}

bool vr_chain_push(struct vr_chain *chain, const struct vr_task *task) {
	if (chain->failed) {
		return false;
	}
	struct vr_task *slot = vr_task_list_append(&chain->tasks, task);
	if (slot == NULL) {
		chain->failed = true;
		return false;
	}
	struct vr_renderer *renderer = chain->renderer;
	struct vr_frame *frame = &renderer->frame;
	frame->cost += slot->cost;
	frame->layers += vr_task_layer_count(slot);
	if (!renderer->sequential) {
		if (!frame->handing &&
				frame->cost >= renderer->granularity.parallel_cost) {
			vr_chain_start_handing(renderer);
		}
		if (frame->handing) {
			hand_over(renderer, chain->tasks.len);
			vr_chain_end_jobs(renderer, slot->job);
		}
		return true;
	}
	/* the classic way: execute and record it right now */
	uint64_t t0 = vr_now_ns();
	bool drawn = vr_exec_task(renderer->seq_ctx, slot);
	uint64_t t1 = vr_now_ns();
	if (drawn) {
		vr_frame_record_task(renderer, slot);
	}
	frame->seq_execute_ns += t1 - t0;
	frame->seq_record_ns += vr_now_ns() - t1;
	return true;
}

/* ---- preparation ------------------------------------------------------------
 */

/* Preparation (prepare.c) pushing into the pipeline's chain. */
static void *chain_alloc(void *data, size_t size) {
	return vr_chain_alloc(data, size);
}

static bool chain_push(void *data, const struct vr_task *task) {
	return vr_chain_push(data, task);
}

static bool chain_hold_image(void *data, struct vr_image *image) {
	return vr_chain_hold_image(data, image);
}

static bool chain_hold_list(void *data, struct vr_display_list *list) {
	return vr_chain_hold_list(data, list);
}

static bool chain_atlas_place(void *data, struct vr_image *image, bool nearest,
		struct vr_atlas_place *out) {
	return vr_chain_atlas_place(data, image, nearest, out);
}

bool vr_engine_prepare(struct vr_chain *chain, struct vr_tree *tree,
		const struct vr_prepare_job *job, struct vr_prepare_stats *stats) {
	const struct vr_task_sink sink = {
		.alloc = chain_alloc,
		.push = chain_push,
		.hold_image = chain_hold_image,
		.hold_list = chain_hold_list,
		.atlas_place = chain_atlas_place,
		.data = chain,
	};
	const struct vr_prepare_options options = {
		.lookback = VR_BATCH_LOOKBACK,
		.no_reuse = !vr_prepare_reuse_default(),
		.stats = stats,
	};
	return vr_prepare_tasks(&sink, tree, job, &options);
}
