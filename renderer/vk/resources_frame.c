/*
 * A frame's resources when it begins (resources.c, "Frames in flight"):
 * the vertex ring for the frame's slot, grown when the last frames
 * needed more (the old ring left to the latest pending frame), and each
 * context's command pools of the slot reset; and the managers' figures.
 * Above the frames in flight (vk_frames.c): without memory for the old
 * ring's note, it waits for every frame; the figures are a finished
 * frame's.
 */
#include "resources_private.h"

static bool ring_create(struct vr_renderer *renderer, VkDeviceSize region) {
	struct vr_resources *res = &renderer->res;
	vr_vk_destroy_host_buffer(renderer, &res->ring);
	res->region_size = 0;
	if (!vr_vk_create_host_buffer(renderer, region * VR_FRAMES_IN_FLIGHT,
				RING_USAGE, VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &res->ring)) {
		return false;
	}
	res->region_size = region;
	return true;
}

static bool exec_ctx_frame_begin(struct vr_exec_ctx *ctx, uint32_t slot) {
	VkResult res =
			vkResetCommandPool(ctx->renderer->device, ctx->pools[slot], 0);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkResetCommandPool failed: %s",
				vr_vk_result_str(res));
		return false;
	}
	ctx->upload_begun = false;
	ctx->prologue_begun = false;
	ctx->chunk_buffer = VK_NULL_HANDLE;
	ctx->chunk_map = NULL;
	ctx->chunk_offset = ctx->chunk_size = ctx->chunk_used = 0;
	ctx->last_buffer = VK_NULL_HANDLE;
	ctx->staged_copies.len = 0;
	ctx->busy_ns = 0;
	ctx->tasks = 0;
	ctx->job = 0;
	ctx->failed = false;
	return true;
}

bool vr_resources_frame_begin(struct vr_renderer *renderer) {
	struct vr_resources *res = &renderer->res;
	/* The slot's region is free (its frame retired); the others may be
	 * in use: a grown ring is a new buffer, the old one is freed with
	 * the latest pending frame. */
	uint64_t demand =
			atomic_load_explicit(&res->ring_head, memory_order_relaxed);
	VkDeviceSize region = RING_MIN_REGION;
	while (region < demand && region < RING_MAX_REGION) {
		region *= 2;
	}
	if (region > res->region_size || res->ring.buffer == VK_NULL_HANDLE) {
		if (res->ring.buffer != VK_NULL_HANDLE) {
			vr_resources_defer_buffer(renderer, &res->ring);
			res->ring = (struct vr_host_buffer){ 0 };
			vr_list_init(&res->ring.link);
		}
		if (!ring_create(renderer, region)) {
			return false;
		}
	}
	atomic_store_explicit(&res->ring_head, 0, memory_order_relaxed);
	for (size_t i = 0; i < vr_exec_ctx_count(renderer); i++) {
		if (!exec_ctx_frame_begin(vr_exec_ctx_at(renderer, i),
					renderer->frame.slot)) {
			return false;
		}
	}
	return true;
}

void vr_resources_defer_buffer(struct vr_renderer *renderer,
		struct vr_host_buffer *buffer) {
	uint64_t pending = vr_frames_latest_pending(renderer);
	struct vr_host_buffer *copy = pending != 0 ? malloc(sizeof(*copy)) : NULL;
	if (copy == NULL) {
		/* nothing in flight (or no memory: wait for the GPU) */
		if (pending != 0) {
			vr_frames_wait_idle(renderer);
		}
		vr_vk_destroy_host_buffer(renderer, buffer);
		return;
	}
	*copy = *buffer;
	vr_list_insert(&vr_frame_slot_of(renderer, pending)->overflow, &copy->link);
}

void vr_renderer_resource_stats(struct vr_renderer *renderer,
		struct vr_resource_stats *stats) {
	vr_frame_reap(renderer, true); /* the figures of a finished frame */
	struct vr_resources *res = &renderer->res;
	*stats = (struct vr_resource_stats){
		.textures_created = atomic_load(&res->textures_created),
		.pipelines_created = atomic_load(&res->pipelines_created),
		.scratch_created = atomic_load(&res->scratch_created),
		.scratch_warmed = atomic_load(&res->scratch_warmed),
		.atlas_placed = atomic_load(&res->atlas_placed),
		.dmabuf_imports = atomic_load(&res->dmabuf_imports),
		.dmabuf_reuses = atomic_load(&res->dmabuf_reuses),
		.waits = atomic_load(&res->waits),
	};
	pthread_rwlock_rdlock(&res->images_lock);
	vr_list_for_each(texture, &res->textures, struct vr_texture, link) {
		stats->textures++;
	}
	vr_list_for_each(texture, &res->garbage, struct vr_texture, link) {
		stats->garbage++;
	}
	for (size_t i = 0; i < VR_ATLAS_MAX_PAGES; i++) {
		if (res->atlas_pages[i] != NULL) {
			stats->atlas_pages++;
			stats->atlas_images += res->atlas_pages[i]->images;
		}
	}
	pthread_rwlock_unlock(&res->images_lock);
	pthread_mutex_lock(&res->scratch_lock);
	struct vr_list *lists[2] = { &res->scratch_free, &res->scratch_used };
	for (int i = 0; i < 2; i++) {
		vr_list_for_each(scratch, lists[i], struct vr_scratch_image, link) {
			stats->scratch++;
		}
	}
	pthread_mutex_unlock(&res->scratch_lock);
	for (int i = 0; i < VR_FRAMES_IN_FLIGHT; i++) {
		const struct vr_frame_slot *slot = &renderer->slots[i];
		vr_list_for_each(scratch, &slot->scratch, struct vr_scratch_image,
				link) {
			stats->scratch++;
		}
		vr_list_for_each(buffer, &slot->overflow, struct vr_host_buffer, link) {
			stats->held_buffers++;
		}
		stats->pending_slots += !slot->retired;
	}
}
