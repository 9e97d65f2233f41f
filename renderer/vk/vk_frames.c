/*
 * Frames in flight: the VR_FRAMES_IN_FLIGHT slots, the fence thread and
 * the retirement of what a frame kept alive.
 *
 * Frame n uses slot n % VR_FRAMES_IN_FLIGHT: its frame command buffer,
 * every execution context's upload and prologue command buffers of that
 * slot (resources.c), the slot's region of the vertex ring and its fence.
 * A slot is reused only after its previous frame retired, which
 * vr_frames_acquire_slot waits for when needed.
 *
 * A parallel frame's slot is taken when vr_render_submit opens it, but
 * its CPU stage may still run after submit returned; it is reaped
 * (vr_frame_reap, vk_render.c) before anything here retires it.
 *
 * Completion: one thread ("vr-fence") waits for the fences of submitted
 * frames in submission order (one queue completes in order) and is the
 * only one to advance `completed`; each time it does, it writes to an
 * eventfd the caller's event loop watches. The caller's thread retires
 * completed frames (vr_frame_poll, vr_frame_wait, vr_renderer_dispatch,
 * vr_render_submit): overflow buffers and old vertex rings freed, scratch
 * images recycled, released textures and destroyed dst buffers freed.
 * Nothing on that path blocks on the GPU.
 *
 * Lock order: vr_fences::lock is a leaf. A fence is reset by the caller
 * only when its slot's previous frame completed, i.e. after the fence
 * thread finished waiting for it (`completed` is advanced under the lock
 * after the wait returns), so the two never use one fence at once.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include "vk_private.h"

/* The fence thread checks for quit at least this often. */
#define FENCE_WAIT_NS (100u * 1000u * 1000u)

static void *fence_main(void *data)
{
	struct vr_renderer *renderer = data;
	struct vr_fences *fences = &renderer->fences;
	pthread_setname_np(pthread_self(), "vr-fence");
	pthread_mutex_lock(&fences->lock);
	while (!fences->quit) {
		if (fences->completed >= fences->submitted) {
			pthread_cond_wait(&fences->cond, &fences->lock);
			continue;
		}
		uint64_t next = fences->completed + 1;
		/* slots' fences are immutable handles after vr_frames_init */
		VkFence fence = vr_frame_slot_of(renderer, next)->fence;
		pthread_mutex_unlock(&fences->lock);
		VkResult res = vkWaitForFences(renderer->device, 1, &fence, VK_TRUE,
			FENCE_WAIT_NS);
		uint64_t now = vr_now_ns();
		pthread_mutex_lock(&fences->lock);
		if (res == VK_TIMEOUT) {
			continue;
		}
		if (res == VK_SUCCESS && renderer->fault_lost_frame != 0 &&
				next >= renderer->fault_lost_frame) {
			res = VK_ERROR_DEVICE_LOST; /* fault injection */
		}
		if (res == VK_SUCCESS) {
			fences->done_ns[next % VR_FRAMES_IN_FLIGHT] = now;
			fences->completed = next;
		} else {
			/* nothing more will complete: let nobody wait forever */
			vr_log(VR_LOG_ERROR, "vkWaitForFences failed: %s",
				vr_vk_result_str(res));
			fences->lost = true;
			for (uint64_t n = next; n <= fences->submitted; n++) {
				fences->done_ns[n % VR_FRAMES_IN_FLIGHT] = now;
			}
			fences->completed = fences->submitted;
		}
		pthread_cond_broadcast(&fences->cond);
		uint64_t one = 1;
		if (write(fences->event_fd, &one, sizeof(one)) < 0 &&
				errno != EAGAIN) {
			vr_log(VR_LOG_ERROR, "eventfd write failed: %s",
				strerror(errno));
		}
	}
	pthread_mutex_unlock(&fences->lock);
	return NULL;
}

void vr_frames_setup(struct vr_renderer *renderer)
{
	for (int i = 0; i < VR_FRAMES_IN_FLIGHT; i++) {
		struct vr_frame_slot *slot = &renderer->slots[i];
		slot->retired = true;
		vr_list_init(&slot->overflow);
		vr_list_init(&slot->scratch);
		vr_list_init(&slot->dst_garbage);
	}
	renderer->fences.event_fd = -1;
}

bool vr_frames_init(struct vr_renderer *renderer)
{
	struct vr_fences *fences = &renderer->fences;
	VkCommandBuffer cbs[VR_FRAMES_IN_FLIGHT];
	VkCommandBufferAllocateInfo cinfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = renderer->command_pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = VR_FRAMES_IN_FLIGHT,
	};
	VkResult res = vkAllocateCommandBuffers(renderer->device, &cinfo, cbs);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkAllocateCommandBuffers failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	for (int i = 0; i < VR_FRAMES_IN_FLIGHT; i++) {
		renderer->slots[i].cb = cbs[i];
		VkFenceCreateInfo finfo = {
			.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
		};
		res = vkCreateFence(renderer->device, &finfo, NULL,
			&renderer->slots[i].fence);
		if (res != VK_SUCCESS) {
			vr_log(VR_LOG_ERROR, "vkCreateFence failed: %s",
				vr_vk_result_str(res));
			return false;
		}
	}
	fences->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fences->event_fd < 0) {
		vr_log(VR_LOG_ERROR, "eventfd failed: %s", strerror(errno));
		return false;
	}
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&fences->cond, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&fences->lock, NULL);
	int err = pthread_create(&fences->thread, NULL, fence_main, renderer);
	if (err != 0) {
		vr_log(VR_LOG_ERROR, "pthread_create failed: %d", err);
		pthread_cond_destroy(&fences->cond);
		pthread_mutex_destroy(&fences->lock);
		return false;
	}
	fences->running = true;
	return true;
}

static void slot_retire(struct vr_renderer *renderer,
		struct vr_frame_slot *slot, uint64_t done_ns)
{
	for (size_t i = 0; i < slot->njobs; i++) {
		struct vr_frame_timing *timing = &slot->timings[i];
		timing->end_ns = done_ns;
		timing->gpu_ns = done_ns > slot->submit_ns ?
			done_ns - slot->submit_ns : 0;
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

uint64_t vr_frames_retire(struct vr_renderer *renderer)
{
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
		completed - VR_FRAMES_IN_FLIGHT + 1 : 1;
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

void vr_frames_set_lost(struct vr_renderer *renderer)
{
	pthread_mutex_lock(&renderer->fences.lock);
	renderer->fences.lost = true;
	pthread_cond_broadcast(&renderer->fences.cond);
	pthread_mutex_unlock(&renderer->fences.lock);
}

bool vr_renderer_is_lost(struct vr_renderer *renderer)
{
	if (!renderer->fences.running) {
		return false;
	}
	pthread_mutex_lock(&renderer->fences.lock);
	bool lost = renderer->fences.lost;
	pthread_mutex_unlock(&renderer->fences.lock);
	return lost;
}

void vr_frames_submitted(struct vr_renderer *renderer, uint64_t number)
{
	struct vr_fences *fences = &renderer->fences;
	pthread_mutex_lock(&fences->lock);
	if (number > fences->submitted) {
		fences->submitted = number;
	}
	pthread_cond_broadcast(&fences->cond);
	pthread_mutex_unlock(&fences->lock);
}

/* Wait (on the fence thread's word) until frame `number` completed or
 * the deadline (CLOCK_MONOTONIC ns; UINT64_MAX: none) passed. */
static bool wait_completed(struct vr_renderer *renderer, uint64_t number,
		uint64_t deadline_ns)
{
	struct vr_fences *fences = &renderer->fences;
	pthread_mutex_lock(&fences->lock);
	while (fences->completed < number) {
		if (deadline_ns == UINT64_MAX) {
			pthread_cond_wait(&fences->cond, &fences->lock);
			continue;
		}
		struct timespec ts = {
			.tv_sec = (time_t)(deadline_ns / 1000000000u),
			.tv_nsec = (long)(deadline_ns % 1000000000u),
		};
		if (pthread_cond_timedwait(&fences->cond, &fences->lock,
				&ts) == ETIMEDOUT) {
			break;
		}
	}
	bool done = fences->completed >= number;
	pthread_mutex_unlock(&fences->lock);
	return done;
}

bool vr_frames_acquire_slot(struct vr_renderer *renderer, uint64_t number)
{
	struct vr_frame_slot *slot = vr_frame_slot_of(renderer, number);
	if (!slot->retired) {
		/* every slot is busy: wait for the oldest frame */
		wait_completed(renderer, slot->number, UINT64_MAX);
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

void vr_frames_wait_idle(struct vr_renderer *renderer)
{
	if (!renderer->fences.running) {
		return;
	}
	vr_frame_reap(renderer, true); /* the last frame is submitted */
	pthread_mutex_lock(&renderer->fences.lock);
	uint64_t submitted = renderer->fences.submitted;
	pthread_mutex_unlock(&renderer->fences.lock);
	wait_completed(renderer, submitted, UINT64_MAX);
	vr_frames_retire(renderer);
}

uint64_t vr_frames_latest_pending(struct vr_renderer *renderer)
{
	uint64_t latest = renderer->frames;
	if (latest == 0) {
		return 0;
	}
	struct vr_frame_slot *slot = vr_frame_slot_of(renderer, latest);
	return slot->number == latest && !slot->retired ? latest : 0;
}

void vr_frames_finish(struct vr_renderer *renderer)
{
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

/* ---- public --------------------------------------------------------------- */

bool vr_frame_poll(struct vr_renderer *renderer, uint64_t id)
{
	if (id == 0) {
		return false;
	}
	return vr_frames_retire(renderer) >= id;
}

bool vr_frame_wait(struct vr_renderer *renderer, uint64_t id,
		uint64_t timeout_ns)
{
	if (id == 0 || id > renderer->frames) {
		return false;
	}
	uint64_t deadline = UINT64_MAX;
	if (timeout_ns != UINT64_MAX) {
		uint64_t now = vr_now_ns();
		deadline = timeout_ns < UINT64_MAX - now ? now + timeout_ns :
			UINT64_MAX - 1;
	}
	wait_completed(renderer, id, deadline);
	return vr_frames_retire(renderer) >= id;
}

int vr_renderer_get_fd(struct vr_renderer *renderer)
{
	return renderer->fences.event_fd;
}

uint64_t vr_renderer_dispatch(struct vr_renderer *renderer)
{
	/* one read takes the eventfd's whole counter; EAGAIN: nothing new */
	uint64_t count;
	if (read(renderer->fences.event_fd, &count, sizeof(count)) < 0 &&
			errno != EAGAIN) {
		vr_log(VR_LOG_ERROR, "eventfd read failed: %s", strerror(errno));
	}
	return vr_frames_retire(renderer);
}

bool vr_frame_get_timing(struct vr_renderer *renderer, uint64_t id,
		size_t job, struct vr_frame_timing *out)
{
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
