/*
 * Thread-safe resource managers and execution contexts: the vr_exec_*
 * functions of vk_engine.h, called by any worker at any time during
 * execution.
 *
 * Lock order: no two of the locks below are ever held at once.
 *   vr_resources::images_lock      (rwlock) vr_image::copies lists, textures
 *   vr_resources::pipelines_lock   (rwlock) the pipeline table
 *   vr_resources::ready[i].lock    (mutex)  preparing -> ready transitions
 *                                           of the resources of shard i
 *   vr_resources::descriptors_lock (mutex)  descriptor pools
 *   vr_resources::scratch_lock     (mutex)  scratch image lists
 *   vr_resources::imports_lock     (mutex)  imported dma-bufs kept
 * Creation (of a texture, an atlas page, a pipeline, a scratch image)
 * happens with none of them held: the first thread to need a resource
 * inserts it in state PREPARING under the write lock, drops the lock,
 * creates it, and publishes READY (or FAILED) under the lock of its
 * state's shard (ready_shard: VR_READY_SHARDS mutex + condition pairs,
 * by the state's address); others find it PREPARING and wait on that
 * shard's condition, so threads waiting for different resources rarely
 * share a lock or a wake-up. Readers of created resources take only a
 * read lock to look them up, then read them without locks (a settled
 * state is read with acquire, no lock).
 *
 * Frames in flight (vk_frames.c): what the GPU may still use is freed
 * only once the frames that may use it completed: released textures wait
 * in `garbage` for the frame after their release, overflow buffers and
 * scratch images go to the frame's slot at its submission and come back
 * (freed, or to scratch_free) when the slot retires, a grown vertex ring
 * leaves its old buffer to the latest pending frame.
 *
 * The small-image atlas (engine.h): preparation places an image in a
 * cell of a page (under images_lock: its vr_texture then names the page
 * instead of GPU objects of its own); the first worker sampling a page
 * creates its image (preparing state); a worker uploading an image into
 * its cell copies the pixels into the frame's ring and notes the copy in
 * its context; vr_exec_ctx_collect (the commit thread, contexts in
 * submission order) records each context's copies with one barrier pair
 * per page, so the page's first transition is the first in the queue.
 * A cell is free again when its texture's garbage is collected; an empty
 * page but the first is destroyed then. Large textures (LARGE_TEXELS)
 * upload only what draws sample, staged by workers and recorded by the
 * commit thread the same way.
 *
 * Everything else a worker touches is its own: the execution context with
 * its command pool (uploads and prologues are recorded there, never into
 * the frame's command buffer and never submitted by a worker) and its
 * slice of the vertex ring, claimed by an atomic add.
 */
#include "resources_private.h"

/* ---- preparing state ----------------------------------------------------- */

/* The shard of a resource's state. */
static struct vr_ready_shard *ready_shard(struct vr_resources *res,
		_Atomic int *state) {
	uint64_t h = (uint64_t)(uintptr_t)state * 0x9e3779b97f4a7c15ull;
	return &res->ready[(h >> 32) % VR_READY_SHARDS];
}

int vr_res_wait_ready(struct vr_resources *res, _Atomic int *state) {
	int s = atomic_load_explicit(state, memory_order_acquire);
	if (s != VR_RESOURCE_PREPARING) {
		return s;
	}
	atomic_fetch_add_explicit(&res->waits, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&res->waiting, 1, memory_order_relaxed);
	struct vr_ready_shard *shard = ready_shard(res, state);
	pthread_mutex_lock(&shard->lock);
	while ((s = atomic_load_explicit(state, memory_order_acquire)) ==
			VR_RESOURCE_PREPARING) {
		pthread_cond_wait(&shard->cond, &shard->lock);
	}
	pthread_mutex_unlock(&shard->lock);
	atomic_fetch_sub_explicit(&res->waiting, 1, memory_order_relaxed);
	return s;
}

void vr_res_publish(struct vr_resources *res, _Atomic int *state, int value) {
	struct vr_ready_shard *shard = ready_shard(res, state);
	pthread_mutex_lock(&shard->lock);
	atomic_store_explicit(state, value, memory_order_release);
	pthread_cond_broadcast(&shard->cond);
	pthread_mutex_unlock(&shard->lock);
}

/* ---- descriptor sets ----------------------------------------------------- */

bool vr_res_allocate_sets(struct vr_renderer *renderer, uint32_t count,
		VkDescriptorSet *sets, VkDescriptorPool *out_pool) {
	struct vr_resources *res = &renderer->res;
	VkDescriptorSetLayout layouts[2] = { renderer->set_layout,
		renderer->set_layout };
	VkDescriptorSetAllocateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorSetCount = count,
		.pSetLayouts = layouts,
	};
	bool ok = false;
	pthread_mutex_lock(&res->descriptors_lock);
	vr_list_for_each(pool, &res->descriptor_pools, struct descriptor_pool,
			link) {
		info.descriptorPool = pool->pool;
		if (vkAllocateDescriptorSets(renderer->device, &info, sets) ==
				VK_SUCCESS) {
			*out_pool = pool->pool;
			ok = true;
			goto out;
		}
	}
	struct descriptor_pool *pool = calloc(1, sizeof(*pool));
	if (pool == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		goto out;
	}
	VkDescriptorPoolSize size = {
		.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
		.descriptorCount = DESCRIPTOR_POOL_SETS,
	};
	VkDescriptorPoolCreateInfo pinfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
		.maxSets = DESCRIPTOR_POOL_SETS,
		.poolSizeCount = 1,
		.pPoolSizes = &size,
	};
	VkResult vr =
			vkCreateDescriptorPool(renderer->device, &pinfo, NULL, &pool->pool);
	if (vr != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateDescriptorPool failed: %s",
				vr_vk_result_str(vr));
		free(pool);
		goto out;
	}
	vr_list_insert(&res->descriptor_pools, &pool->link);
	info.descriptorPool = pool->pool;
	vr = vkAllocateDescriptorSets(renderer->device, &info, sets);
	if (vr != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkAllocateDescriptorSets failed: %s",
				vr_vk_result_str(vr));
		goto out;
	}
	*out_pool = pool->pool;
	ok = true;
out:
	pthread_mutex_unlock(&res->descriptors_lock);
	return ok;
}

void vr_res_free_sets(struct vr_renderer *renderer, VkDescriptorPool pool,
		uint32_t count, const VkDescriptorSet *sets) {
	if (pool == VK_NULL_HANDLE) {
		return;
	}
	pthread_mutex_lock(&renderer->res.descriptors_lock);
	vkFreeDescriptorSets(renderer->device, pool, count, sets);
	pthread_mutex_unlock(&renderer->res.descriptors_lock);
}

void vr_res_write_image_set(struct vr_renderer *renderer, VkDescriptorSet set,
		VkImageView view, enum vr_sampler sampler) {
	VkDescriptorImageInfo info = {
		.sampler = renderer->samplers[sampler],
		.imageView = view,
		.imageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
	};
	VkWriteDescriptorSet write = {
		.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		.dstSet = set,
		.dstBinding = VR_TEXTURE_BINDING,
		.descriptorCount = 1,
		.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
		.pImageInfo = &info,
	};
	vkUpdateDescriptorSets(renderer->device, 1, &write, 0, NULL);
}

/* ---- vertex ring ----------------------------------------------------------
 */

/* A new chunk of at least `want` bytes for this context: from the frame's
 * ring region (an atomic add, no lock), else an overflow buffer of its
 * own, freed when the frame retires. */
static bool grab_chunk(struct vr_exec_ctx *ctx, VkDeviceSize want) {
	struct vr_renderer *renderer = ctx->renderer;
	struct vr_resources *res = &renderer->res;
	uint64_t off = atomic_fetch_add_explicit(&res->ring_head, want,
			memory_order_relaxed);
	if (off + want <= res->region_size) {
		VkDeviceSize base =
				(VkDeviceSize)renderer->frame.slot * res->region_size + off;
		ctx->chunk_buffer = res->ring.buffer;
		ctx->chunk_map = (uint8_t *)res->ring.map + base;
		ctx->chunk_offset = base;
		ctx->chunk_size = want;
		ctx->chunk_used = 0;
		return true;
	}
	struct vr_host_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return false;
	}
	if (!vr_vk_create_host_buffer(renderer, want, RING_USAGE,
				VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, buffer)) {
		free(buffer);
		return false;
	}
	vr_list_insert(&ctx->overflow, &buffer->link);
	ctx->chunk_buffer = buffer->buffer;
	ctx->chunk_map = buffer->map;
	ctx->chunk_offset = 0;
	ctx->chunk_size = want;
	ctx->chunk_used = 0;
	return true;
}

void *vr_res_ring_alloc(struct vr_exec_ctx *ctx, size_t size, VkBuffer *buffer,
		VkDeviceSize *offset) {
	VkDeviceSize need = ((VkDeviceSize)size + RING_ALIGN - 1) &
			~(VkDeviceSize)(RING_ALIGN - 1);
	if (ctx->chunk_buffer == VK_NULL_HANDLE ||
			ctx->chunk_size - ctx->chunk_used < need) {
		if (!grab_chunk(ctx, need > RING_CHUNK ? need : RING_CHUNK)) {
			ctx->failed = true;
			return NULL;
		}
	}
	void *ptr = ctx->chunk_map + ctx->chunk_used;
	*buffer = ctx->chunk_buffer;
	*offset = ctx->chunk_offset + ctx->chunk_used;
	ctx->chunk_used += need;
	return ptr;
}

void *vr_exec_vertices(struct vr_exec_ctx *ctx, size_t size,
		VkDeviceSize *offset) {
	return vr_res_ring_alloc(ctx, size, &ctx->last_buffer, offset);
}

VkBuffer vr_exec_vertex_buffer(struct vr_exec_ctx *ctx) {
	return ctx->last_buffer;
}

/* ---- command buffers ----------------------------------------------------- */

static VkCommandBuffer begin_cb(struct vr_exec_ctx *ctx, VkCommandBuffer cb,
		bool *begun) {
	if (*begun) {
		return cb;
	}
	VkCommandBufferBeginInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	VkResult res = vkBeginCommandBuffer(cb, &info);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkBeginCommandBuffer failed: %s",
				vr_vk_result_str(res));
		ctx->failed = true;
		return VK_NULL_HANDLE;
	}
	*begun = true;
	return cb;
}

VkCommandBuffer vr_exec_prologue(struct vr_exec_ctx *ctx) {
	uint32_t slot = ctx->renderer->frame.slot;
	return begin_cb(ctx, ctx->prologue_cbs[slot], &ctx->prologue_begun);
}

VkCommandBuffer vr_res_upload_cb(struct vr_exec_ctx *ctx) {
	uint32_t slot = ctx->renderer->frame.slot;
	return begin_cb(ctx, ctx->upload_cbs[slot], &ctx->upload_begun);
}

/* ---- execution contexts -----------------------------------------------------
 */

struct vr_exec_ctx *vr_exec_ctx_create(struct vr_renderer *renderer,
		int index) {
	struct vr_exec_ctx *ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	ctx->renderer = renderer;
	ctx->index = index;
	vr_list_init(&ctx->overflow);
	for (int i = 0; i < VR_FRAMES_IN_FLIGHT; i++) {
		VkCommandPoolCreateInfo pinfo = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
			.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
			.queueFamilyIndex = renderer->queue_family,
		};
		VkResult res = vkCreateCommandPool(renderer->device, &pinfo, NULL,
				&ctx->pools[i]);
		if (res != VK_SUCCESS) {
			vr_log(VR_LOG_ERROR, "vkCreateCommandPool failed: %s",
					vr_vk_result_str(res));
			goto error;
		}
		VkCommandBuffer cbs[2];
		VkCommandBufferAllocateInfo cinfo = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.commandPool = ctx->pools[i],
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = 2,
		};
		res = vkAllocateCommandBuffers(renderer->device, &cinfo, cbs);
		if (res != VK_SUCCESS) {
			vr_log(VR_LOG_ERROR, "vkAllocateCommandBuffers failed: %s",
					vr_vk_result_str(res));
			goto error;
		}
		ctx->upload_cbs[i] = cbs[0];
		ctx->prologue_cbs[i] = cbs[1];
	}
	return ctx;

error:
	vr_exec_ctx_destroy(ctx);
	return NULL;
}

static void free_overflow(struct vr_exec_ctx *ctx) {
	vr_list_for_each_safe(buffer, &ctx->overflow, struct vr_host_buffer, link) {
		vr_list_remove(&buffer->link);
		vr_vk_destroy_host_buffer(ctx->renderer, buffer);
		free(buffer);
	}
}

void vr_exec_ctx_destroy(struct vr_exec_ctx *ctx) {
	if (ctx == NULL) {
		return;
	}
	free_overflow(ctx);
	free(ctx->staged_copies.data);
	for (int i = 0; i < VR_FRAMES_IN_FLIGHT; i++) {
		if (ctx->pools[i] != VK_NULL_HANDLE) {
			vkDestroyCommandPool(ctx->renderer->device, ctx->pools[i], NULL);
		}
	}
	free(ctx);
}

/* ---- frames
 * ------------------------------------------------------------------ */

static void flush_buffer(struct vr_renderer *renderer,
		const struct vr_host_buffer *buffer) {
	if (buffer->coherent) {
		return;
	}
	VkMappedMemoryRange range = {
		.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
		.memory = buffer->memory,
		.size = VK_WHOLE_SIZE,
	};
	vkFlushMappedMemoryRanges(renderer->device, 1, &range);
}

void vr_resources_frame_flush(struct vr_renderer *renderer) {
	flush_buffer(renderer, &renderer->res.ring);
	for (size_t i = 0; i < vr_exec_ctx_count(renderer); i++) {
		struct vr_exec_ctx *ctx = vr_exec_ctx_at(renderer, i);
		vr_list_for_each(buffer, &ctx->overflow, struct vr_host_buffer, link) {
			flush_buffer(renderer, buffer);
		}
	}
}

void vr_resources_frame_end(struct vr_renderer *renderer,
		struct vr_frame_slot *slot) {
	struct vr_resources *res = &renderer->res;
	for (size_t i = 0; i < vr_exec_ctx_count(renderer); i++) {
		struct vr_exec_ctx *ctx = vr_exec_ctx_at(renderer, i);
		vr_list_for_each_safe(buffer, &ctx->overflow, struct vr_host_buffer,
				link) {
			vr_list_remove(&buffer->link);
			vr_list_insert(&slot->overflow, &buffer->link);
		}
	}
	pthread_mutex_lock(&res->scratch_lock);
	vr_list_for_each_safe(scratch, &res->scratch_used, struct vr_scratch_image,
			link) {
		vr_list_remove(&scratch->link);
		vr_list_insert(&slot->scratch, &scratch->link);
	}
	pthread_mutex_unlock(&res->scratch_lock);
}

/* ---- managers -------------------------------------------------------------
 */

bool vr_resources_init(struct vr_renderer *renderer) {
	struct vr_resources *res = &renderer->res;
	pthread_rwlock_init(&res->images_lock, NULL);
	pthread_rwlock_init(&res->pipelines_lock, NULL);
	for (int i = 0; i < VR_READY_SHARDS; i++) {
		pthread_mutex_init(&res->ready[i].lock, NULL);
		pthread_cond_init(&res->ready[i].cond, NULL);
	}
	pthread_mutex_init(&res->descriptors_lock, NULL);
	pthread_mutex_init(&res->scratch_lock, NULL);
	vr_list_init(&res->textures);
	vr_list_init(&res->garbage);
	vr_list_init(&res->descriptor_pools);
	vr_list_init(&res->scratch_free);
	vr_list_init(&res->scratch_used);
	vr_list_init(&res->ring.link);
	atomic_init(&res->ring_head, 0);
	atomic_init(&res->textures_created, 0);
	atomic_init(&res->dmabuf_imports, 0);
	atomic_init(&res->dmabuf_reuses, 0);
	pthread_mutex_init(&res->imports_lock, NULL);
	vr_list_init(&res->imports);
	atomic_init(&res->pipelines_created, 0);
	atomic_init(&res->scratch_created, 0);
	atomic_init(&res->scratch_warmed, 0);
	atomic_init(&res->atlas_placed, 0);
	atomic_init(&res->waits, 0);
	atomic_init(&res->waiting, 0);
	atomic_init(&res->test_hold_creation, 0);
	/* the ring is created by the first frame (it needs the device) */
	return true;
}
