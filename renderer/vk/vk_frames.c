/*
 * Frames in flight: the VR_FRAMES_IN_FLIGHT slots, the retirement of what
 * a frame kept alive, and the frame's CPU stage (opened, reaped, closed)
 * that comes before a slot retires. Above the workers and the resources'
 * retirement (resources_slots.c); below a frame's begin
 * (resources_frame.c) and the renderer (vk_render.c).
 *
 * Frame n uses slot n % VR_FRAMES_IN_FLIGHT: its frame command buffer,
 * every execution context's upload and prologue command buffers of that
 * slot (resources.c), the slot's region of the vertex ring and its fence.
 * A slot is reused only after its previous frame retired, which
 * vr_frames_acquire_slot waits for when needed.
 *
 * A parallel frame's slot is taken when vr_render_submit opens it, but
 * its CPU stage may still run after submit returned; it is reaped
 * (vr_frame_reap, below) before anything here retires it.
 *
 * Completion (vk_fences.c): one thread ("vr-fence") waits for the fences
 * of submitted frames in submission order (one queue completes in order)
 * and is the only one to advance `completed`; each time it does, it
 * writes to an eventfd the caller's event loop watches. The caller's thread
 * retires completed frames (vr_frame_poll, vr_frame_wait, vr_renderer_dispatch,
 * vr_render_submit): overflow buffers and old vertex rings freed, scratch
 * images recycled, released textures and destroyed dst buffers freed.
 * Nothing on that path blocks on the GPU.
 *
 * Lock order: vr_fences::lock is a leaf. A fence is reset by the caller
 * only when its slot's previous frame completed, i.e. after the fence
 * thread finished waiting for it (`completed` is advanced under the lock
 * after the wait returns), so the two never use one fence at once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "display_list.h"
#include "vk_private.h"

static void slot_retire(struct vr_renderer *renderer,
		struct vr_frame_slot *slot, uint64_t done_ns) {
	for (size_t i = 0; i < slot->njobs; i++) {
		struct vr_frame_timing *timing = &slot->timings[i];
		timing->end_ns = done_ns;
		timing->gpu_ns =
				done_ns > slot->submit_ns ? done_ns - slot->submit_ns : 0;
	}
	vr_resources_slot_retire(renderer, slot);
	VkDevice dev = renderer->device;
	vr_list_for_each_safe(buffer, &slot->dst_garbage, struct vr_dst_buffer,
			link) {
		vr_list_remove(&buffer->link);
		vkDestroyBuffer(dev, buffer->buffer, NULL);
		vkFreeMemory(dev, buffer->memory, NULL);
		free(buffer);
	}
	slot->retired = true;
}

uint64_t vr_frames_retire(struct vr_renderer *renderer) {
	struct vr_fences *fences = &renderer->fences;
	uint64_t done_ns[VR_FRAMES_IN_FLIGHT];
	pthread_mutex_lock(&fences->lock);
	uint64_t completed = fences->completed;
	memcpy(done_ns, fences->done_ns, sizeof(done_ns));
	pthread_mutex_unlock(&fences->lock);
	/* A frame submit returned early from: its CPU stage ends before its
	 * slot can retire. Once its fence signalled, the commit thread has
	 * all but returned: wait for it then. */
	struct vr_frame *frame = &renderer->frame;
	if (frame->cpu_pending) {
		vr_frame_reap(renderer, completed >= frame->number);
	}
	/* oldest first: scratch images keep their last use in order */
	uint64_t first = completed >= VR_FRAMES_IN_FLIGHT ?
			completed - VR_FRAMES_IN_FLIGHT + 1 :
			1;
	for (uint64_t n = first; n <= completed; n++) {
		struct vr_frame_slot *slot = vr_frame_slot_of(renderer, n);
		if (frame->cpu_pending && n == frame->number) {
			break; /* not reaped (cannot happen: see above) */
		}
		if (slot->number == n && !slot->retired) {
			slot_retire(renderer, slot, done_ns[n % VR_FRAMES_IN_FLIGHT]);
		}
	}
	vr_resources_collect_garbage(renderer, completed);
	return completed;
}

bool vr_frames_acquire_slot(struct vr_renderer *renderer, uint64_t number) {
	struct vr_frame_slot *slot = vr_frame_slot_of(renderer, number);
	if (!slot->retired) {
		/* every slot is busy: wait for the oldest frame */
		vr_frames_wait_completed(renderer, slot->number, UINT64_MAX);
		vr_frames_retire(renderer);
	}
	if (slot->number != 0) {
		VkResult res = vkResetFences(renderer->device, 1, &slot->fence);
		if (res != VK_SUCCESS) {
			vr_log(VR_LOG_ERROR, "vkResetFences failed: %s",
					vr_vk_result_str(res));
			return false;
		}
	}
	return true;
}

void vr_frames_wait_idle(struct vr_renderer *renderer) {
	if (!renderer->fences.running) {
		return;
	}
	vr_frame_reap(renderer, true); /* the last frame is submitted */
	pthread_mutex_lock(&renderer->fences.lock);
	uint64_t submitted = renderer->fences.submitted;
	pthread_mutex_unlock(&renderer->fences.lock);
	vr_frames_wait_completed(renderer, submitted, UINT64_MAX);
	vr_frames_retire(renderer);
}

void vr_frames_finish(struct vr_renderer *renderer) {
	struct vr_fences *fences = &renderer->fences;
	if (fences->running) {
		vr_frames_wait_idle(renderer);
		pthread_mutex_lock(&fences->lock);
		fences->quit = true;
		pthread_cond_broadcast(&fences->cond);
		pthread_mutex_unlock(&fences->lock);
		pthread_join(fences->thread, NULL);
		pthread_cond_destroy(&fences->cond);
		pthread_mutex_destroy(&fences->lock);
		fences->running = false;
	}
	for (int i = 0; i < VR_FRAMES_IN_FLIGHT; i++) {
		struct vr_frame_slot *slot = &renderer->slots[i];
		if (!slot->retired) {
			slot_retire(renderer, slot, 0);
		}
		if (slot->fence != VK_NULL_HANDLE) {
			vkDestroyFence(renderer->device, slot->fence, NULL);
			slot->fence = VK_NULL_HANDLE;
		}
		free(slot->timings);
		slot->timings = NULL;
		slot->njobs = slot->timings_cap = 0;
	}
	if (fences->event_fd >= 0) {
		close(fences->event_fd);
		fences->event_fd = -1;
	}
}

/* ---- public ---------------------------------------------------------------
 */

bool vr_frame_poll(struct vr_renderer *renderer, uint64_t id) {
	if (id == 0) {
		return false;
	}
	return vr_frames_retire(renderer) >= id;
}

bool vr_frame_wait(struct vr_renderer *renderer, uint64_t id,
		uint64_t timeout_ns) {
	if (id == 0 || id > renderer->frames) {
		return false;
	}
	uint64_t deadline = UINT64_MAX;
	if (timeout_ns != UINT64_MAX) {
		uint64_t now = vr_now_ns();
		deadline = timeout_ns < UINT64_MAX - now ? now + timeout_ns :
												   UINT64_MAX - 1;
	}
	vr_frames_wait_completed(renderer, id, deadline);
	return vr_frames_retire(renderer) >= id;
}

uint64_t vr_renderer_dispatch(struct vr_renderer *renderer) {
	/* one read takes the eventfd's whole counter; EAGAIN: nothing new */
	uint64_t count;
	if (read(renderer->fences.event_fd, &count, sizeof(count)) < 0 &&
			errno != EAGAIN) {
		vr_log(VR_LOG_ERROR, "eventfd read failed: %s", strerror(errno));
	}
	return vr_frames_retire(renderer);
}

bool vr_frame_get_timing(struct vr_renderer *renderer, uint64_t id, size_t job,
		struct vr_frame_timing *out) {
	if (id == 0) {
		return false;
	}
	vr_frames_retire(renderer);
	struct vr_frame_slot *slot = vr_frame_slot_of(renderer, id);
	if (slot->number != id || !slot->retired || slot->failed ||
			job >= slot->njobs) {
		return false;
	}
	*out = slot->timings[job];
	return true;
}

/* ---- a frame's CPU stage (caller's thread) --------------------------------
 */

/* What the frame's tasks pointed into, once they are done. */
static void release_holds(struct vr_chain *chain) {
	struct vr_image **images = chain->held_images.data;
	for (size_t i = 0; i < chain->held_images.len; i++) {
		vr_image_unpin(images[i]);
	}
	chain->held_images.len = 0;
	struct vr_display_list **lists = chain->held_lists.data;
	for (size_t i = 0; i < chain->held_lists.len; i++) {
		vr_display_list_unref(lists[i]);
	}
	chain->held_lists.len = 0;
}

bool vr_frame_open(struct vr_renderer *renderer) {
	struct vr_frame *frame = &renderer->frame;
	/* the previous frame's CPU stage first: vr_frame is one */
	vr_frame_reap(renderer, true);
	uint64_t number = renderer->frames + 1;
	if (!vr_frames_acquire_slot(renderer, number)) {
		return false;
	}
	frame->number = number;
	frame->slot = (uint32_t)(number % VR_FRAMES_IN_FLIGHT);
	struct vr_frame_slot *slot = vr_frame_slot_of(renderer, number);
	slot->number = number;
	slot->retired = false;
	slot->failed = false;
	slot->njobs = 0;
	return true;
}

void vr_frame_close(struct vr_renderer *renderer, bool ok) {
	struct vr_frame *frame = &renderer->frame;
	struct vr_frame_slot *slot = vr_frame_slot_of(renderer, frame->number);
	slot->submit_ns = frame->submit_ns;
	slot->failed = !ok;
	renderer->frames = frame->number;
	vr_resources_frame_end(renderer, slot);
}

/* The frame's figures per job, kept in its slot until it retires (which
 * adds the GPU's); caller's thread, once the frame's CPU stage ended. */
static void store_timings(struct vr_renderer *renderer) {
	struct vr_frame *frame = &renderer->frame;
	struct vr_frame_slot *slot = vr_frame_slot_of(renderer, frame->number);
	size_t njobs = frame->njobs;
	if (njobs > slot->timings_cap) {
		struct vr_frame_timing *timings =
				realloc(slot->timings, njobs * sizeof(*timings));
		if (timings == NULL) {
			vr_log(VR_LOG_ERROR, "allocation failed");
			slot->njobs = 0;
			return;
		}
		slot->timings = timings;
		slot->timings_cap = njobs;
	}
	/* execution figures: the sum over workers and the busiest one */
	uint64_t execute_ns = 0, critical_ns = 0;
	bool parallel = frame->mode == VR_FRAME_PARALLEL;
	if (!parallel) {
		execute_ns = frame->seq_execute_ns;
	} else {
		for (size_t i = 1; i < vr_exec_ctx_count(renderer); i++) {
			uint64_t busy = vr_exec_ctx_at(renderer, i)->busy_ns;
			execute_ns += busy;
			critical_ns = busy > critical_ns ? busy : critical_ns;
		}
	}
	for (size_t i = 0; i < njobs; i++) {
		const struct vr_frame_job *state = &frame->jobs[i];
		struct vr_frame_timing *timing = &slot->timings[i];
		*timing = (struct vr_frame_timing){
			.start_ns = frame->start_ns,
			.prepare_ns = frame->prepare_ns,
			.execute_ns = execute_ns,
			.commit_ns = frame->commit_ns,
			.draws = state->draws,
			.uploads = atomic_load(&state->uploads),
			.dst_rects = (uint32_t)state->ndst_rects,
			.mirror_updated = state->mirror,
			.cpu_copies = state->dst != NULL ? 0 : 1,
			.mode = frame->mode,
			.chunks = frame->chunks,
			.cost = frame->cost,
			.layers = frame->layers,
			.reused_nodes = frame->reused_nodes,
			.reused_prims = frame->reused_prims,
		};
		if (parallel) {
			timing->execute_critical_ns = critical_ns;
			timing->tasks = frame->chain.tasks.len;
			timing->ooo_commits = frame->commit.ooo;
			timing->commit_stalls = frame->stalls;
		}
	}
	slot->njobs = njobs;
}

/* The frame's CPU stage ended (ok: nothing failed): its resources and
 * figures go to its slot, what its tasks held is released. */
void vr_frame_finish_cpu(struct vr_renderer *renderer, bool ok) {
	struct vr_frame *frame = &renderer->frame;
	vr_frame_close(renderer, ok);
	if (ok) {
		store_timings(renderer);
	}
	release_holds(&frame->chain);
}

bool vr_frame_reap(struct vr_renderer *renderer, bool block) {
	struct vr_frame *frame = &renderer->frame;
	if (!frame->cpu_pending) {
		return true;
	}
	if (!vr_workers_frame_done(renderer, block)) {
		return false;
	}
	frame->cpu_pending = false;
	bool ok = !frame->chain.failed && !frame->commit_failed;
	for (size_t i = 1; i < vr_exec_ctx_count(renderer); i++) {
		ok = ok && !vr_exec_ctx_at(renderer, i)->failed;
	}
	if (!ok) {
		vr_log(VR_LOG_ERROR, "frame %llu failed",
				(unsigned long long)frame->number);
	}
	vr_frame_finish_cpu(renderer, ok);
	return true;
}
