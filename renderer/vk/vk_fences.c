/*
 * The fences of frames in flight (vk_frames.c): the fence thread
 * ("vr-fence"), the only one to advance `completed`, and what the
 * recording of a frame and the resources ask of it (submitted, lost,
 * the latest pending frame). Nothing here retires a frame.
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

static void *fence_main(void *data) {
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
		if (write(fences->event_fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
			vr_log(VR_LOG_ERROR, "eventfd write failed: %s", strerror(errno));
		}
	}
	pthread_mutex_unlock(&fences->lock);
	return NULL;
}

void vr_frames_setup(struct vr_renderer *renderer) {
	for (int i = 0; i < VR_FRAMES_IN_FLIGHT; i++) {
		struct vr_frame_slot *slot = &renderer->slots[i];
		slot->retired = true;
		vr_list_init(&slot->overflow);
		vr_list_init(&slot->scratch);
		vr_list_init(&slot->dst_garbage);
	}
	renderer->fences.event_fd = -1;
}

bool vr_frames_init(struct vr_renderer *renderer) {
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

void vr_frames_set_lost(struct vr_renderer *renderer) {
	pthread_mutex_lock(&renderer->fences.lock);
	renderer->fences.lost = true;
	pthread_cond_broadcast(&renderer->fences.cond);
	pthread_mutex_unlock(&renderer->fences.lock);
}

bool vr_renderer_is_lost(struct vr_renderer *renderer) {
	if (!renderer->fences.running) {
		return false;
	}
	pthread_mutex_lock(&renderer->fences.lock);
	bool lost = renderer->fences.lost;
	pthread_mutex_unlock(&renderer->fences.lock);
	return lost;
}

void vr_frames_submitted(struct vr_renderer *renderer, uint64_t number) {
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
bool vr_frames_wait_completed(struct vr_renderer *renderer, uint64_t number,
		uint64_t deadline_ns) {
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
		if (pthread_cond_timedwait(&fences->cond, &fences->lock, &ts) ==
				ETIMEDOUT) {
			break;
		}
	}
	bool done = fences->completed >= number;
	pthread_mutex_unlock(&fences->lock);
	return done;
}

uint64_t vr_frames_latest_pending(struct vr_renderer *renderer) {
	uint64_t latest = renderer->frames;
	if (latest == 0) {
		return 0;
	}
	struct vr_frame_slot *slot = vr_frame_slot_of(renderer, latest);
	return slot->number == latest && !slot->retired ? latest : 0;
}

int vr_renderer_get_fd(struct vr_renderer *renderer) {
	return renderer->fences.event_fd;
}
