/*
 * What a frame's slot takes from the resources and gives back (resources.c,
 * "Frames in flight"): each context's command buffers collected at
 * submission, the slot's overflow buffers and scratch images when it
 * retires, released textures once the frames that may use them completed;
 * and the managers' end. Above the pipelines' and textures' managers,
 * whose objects it frees, and below the frames that retire (vk_frames.c).
 */
#include "resources_private.h"

bool vr_exec_ctx_collect(struct vr_exec_ctx *ctx, struct vr_array *uploads,
		struct vr_array *prologues) {
	bool ok = vr_res_staged_record(ctx);
	uint32_t slot = ctx->renderer->frame.slot;
	struct {
		bool begun;
		VkCommandBuffer cb;
		struct vr_array *out;
	} lists[2] = {
		{ ctx->upload_begun, ctx->upload_cbs[slot], uploads },
		{ ctx->prologue_begun, ctx->prologue_cbs[slot], prologues },
	};
	for (int i = 0; i < 2; i++) {
		if (!lists[i].begun) {
			continue;
		}
		VkResult res = vkEndCommandBuffer(lists[i].cb);
		if (res != VK_SUCCESS) {
			vr_log(VR_LOG_ERROR, "vkEndCommandBuffer failed: %s",
					vr_vk_result_str(res));
			ok = false;
			continue;
		}
		if (!vr_array_reserve(lists[i].out, 1, sizeof(VkCommandBuffer))) {
			ok = false;
			continue;
		}
		((VkCommandBuffer *)lists[i].out->data)[lists[i].out->len++] =
				lists[i].cb;
	}
	ctx->upload_begun = ctx->prologue_begun = false;
	return ok;
}

void vr_resources_slot_retire(struct vr_renderer *renderer,
		struct vr_frame_slot *slot) {
	struct vr_resources *res = &renderer->res;
	vr_list_for_each_safe(buffer, &slot->overflow, struct vr_host_buffer,
			link) {
		vr_list_remove(&buffer->link);
		vr_vk_destroy_host_buffer(renderer, buffer);
		free(buffer);
	}
	/* scratch images: the frame's go back to the free list; long idle
	 * ones are destroyed */
	struct vr_list idle;
	vr_list_init(&idle);
	uint64_t frame = slot->number;
	pthread_mutex_lock(&res->scratch_lock);
	vr_list_for_each_safe(scratch, &slot->scratch, struct vr_scratch_image,
			link) {
		scratch->last_frame = frame;
		vr_list_remove(&scratch->link);
		vr_list_insert(&res->scratch_free, &scratch->link);
	}
	vr_list_for_each_safe(scratch, &res->scratch_free, struct vr_scratch_image,
			link) {
		if (frame > scratch->last_frame &&
				frame - scratch->last_frame > SCRATCH_MAX_IDLE_FRAMES) {
			vr_list_remove(&scratch->link);
			vr_list_insert(&idle, &scratch->link);
		}
	}
	pthread_mutex_unlock(&res->scratch_lock);
	vr_list_for_each_safe(scratch, &idle, struct vr_scratch_image, link) {
		vr_res_scratch_free(renderer, scratch);
	}
}

void vr_resources_collect_garbage(struct vr_renderer *renderer,
		uint64_t completed) {
	struct vr_resources *res = &renderer->res;
	struct vr_list done;
	vr_list_init(&done);
	struct vr_atlas_page *empty[VR_ATLAS_MAX_PAGES];
	size_t nempty = 0;
	pthread_rwlock_wrlock(&res->images_lock);
	vr_list_for_each_safe(texture, &res->garbage, struct vr_texture, link) {
		if (texture->garbage_frame <= completed) {
			vr_list_remove(&texture->link);
			vr_list_insert(&done, &texture->link);
			struct vr_atlas_page *page = texture->page != NULL ?
					vr_res_atlas_cell_free(res, texture) :
					NULL;
			if (page != NULL) {
				empty[nempty++] = page;
			}
		}
	}
	pthread_rwlock_unlock(&res->images_lock);
	vr_list_for_each_safe(texture, &done, struct vr_texture, link) {
		vr_res_texture_free(texture);
	}
	vr_res_imports_expire(renderer, false);
	for (size_t i = 0; i < nempty; i++) {
		vr_res_atlas_page_free(renderer, empty[i]);
	}
}

void vr_resources_finish(struct vr_renderer *renderer) {
	struct vr_resources *res = &renderer->res;
	VkDevice dev = renderer->device;
	vr_list_for_each_safe(texture, &res->garbage, struct vr_texture, link) {
		vr_res_texture_free(texture);
	}
	vr_list_for_each_safe(texture, &res->textures, struct vr_texture, link) {
		/* the image outlives us: forget its copy */
		vr_list_remove(&texture->copy.link);
		pixman_region32_fini(&texture->copy.pending);
		vr_res_texture_free(texture);
	}
	/* kept imports too (their sets before the descriptor pools) */
	vr_res_imports_expire(renderer, true);
	for (size_t i = 0; i < VR_ATLAS_MAX_PAGES; i++) {
		if (res->atlas_pages[i] != NULL) {
			vr_res_atlas_page_free(renderer, res->atlas_pages[i]);
			res->atlas_pages[i] = NULL;
		}
	}
	for (size_t i = 0; i < res->npipelines; i++) {
		if (res->pipelines[i]->pipeline != VK_NULL_HANDLE) {
			vkDestroyPipeline(dev, res->pipelines[i]->pipeline, NULL);
		}
		free(res->pipelines[i]);
	}
	free(res->pipelines);
	res->pipelines = NULL;
	res->npipelines = res->pipelines_cap = 0;
	struct vr_list *lists[2] = { &res->scratch_free, &res->scratch_used };
	for (int i = 0; i < 2; i++) {
		vr_list_for_each_safe(scratch, lists[i], struct vr_scratch_image,
				link) {
			vr_list_remove(&scratch->link);
			vr_res_scratch_free(renderer, scratch);
		}
	}
	vr_list_for_each_safe(pool, &res->descriptor_pools, struct descriptor_pool,
			link) {
		vkDestroyDescriptorPool(dev, pool->pool, NULL);
		vr_list_remove(&pool->link);
		free(pool);
	}
	vr_vk_destroy_host_buffer(renderer, &res->ring);
	pthread_mutex_destroy(&res->imports_lock);
	pthread_mutex_destroy(&res->scratch_lock);
	pthread_mutex_destroy(&res->descriptors_lock);
	for (int i = 0; i < VR_READY_SHARDS; i++) {
		pthread_cond_destroy(&res->ready[i].cond);
		pthread_mutex_destroy(&res->ready[i].lock);
	}
	pthread_rwlock_destroy(&res->pipelines_lock);
	pthread_rwlock_destroy(&res->images_lock);
}
