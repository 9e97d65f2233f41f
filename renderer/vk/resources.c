/*
 * Thread-safe resource managers and execution contexts: the vr_exec_*
 * functions of engine.h, called by any worker at any time during
 * execution.
 *
 * Lock order: no two of the locks below are ever held at once.
 *   vr_resources::images_lock      (rwlock) vr_image::copies lists, textures
 *   vr_resources::pipelines_lock   (rwlock) the pipeline table
 *   vr_resources::ready[i].lock    (mutex)  preparing -> ready transitions
 *                                           of the resources of shard i
 *   vr_resources::descriptors_lock (mutex)  descriptor pools
 *   vr_resources::scratch_lock     (mutex)  scratch image lists
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
#include <stdlib.h>
#include <string.h>
#include "shader_interface.h"
#include "vk_private.h"

/* Past this many rectangles an upload copies their extents. */
#define MAX_UPLOAD_RECTS 16
#define DESCRIPTOR_POOL_SETS 256
#define RING_CHUNK (64u * 1024u)
#define RING_MIN_REGION (1u << 20)
/* The ring grows to a frame's demand up to this; beyond it (a frame of
 * huge uploads) the rest goes to overflow buffers freed with the frame. */
#define RING_MAX_REGION (64u << 20)
#define RING_ALIGN 16u
/* Scratch images unused for this many frames are destroyed. */
#define SCRATCH_MAX_IDLE_FRAMES 60
#define RING_USAGE (VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | \
	VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT)

struct descriptor_pool {
	VkDescriptorPool pool;
	struct vr_list link; /* vr_resources::descriptor_pools */
};

/* Atlas pages are cut into blocks of ATLAS_BLOCK^2 texels; a block holds
 * cells of one size (a power of two from ATLAS_MIN_CELL to ATLAS_BLOCK), an
 * image of w x h the smallest cell of at least (w + 2) x (h + 2): its
 * pixels and a border repeating its edges. */
#define ATLAS_BLOCK 64
#define ATLAS_MIN_CELL 8
#define ATLAS_SIDE_BLOCKS (VR_ATLAS_PAGE_SIZE / ATLAS_BLOCK)
#define ATLAS_BLOCKS (ATLAS_SIDE_BLOCKS * ATLAS_SIDE_BLOCKS)
#define ATLAS_BORDER 1
_Static_assert(VR_ATLAS_MAX_SIDE + 2 * ATLAS_BORDER <= ATLAS_BLOCK,
	"an atlas image fits a block");

/* The state of a page, or of a texture of an image's own that
 * preparation decided on, before its GPU objects are created (the first
 * worker needing them moves it to VR_RESOURCE_PREPARING). */
#define ATLAS_PAGE_NEW (-1)
#define TEXTURE_NEW (-1)

struct vr_atlas_page {
	uint32_t number; /* 1 + index in vr_resources::atlas_pages */
	_Atomic int state; /* ATLAS_PAGE_NEW, then enum vr_resource_state */
	/* written by the creator before READY, then read-only */
	VkImage vk_image;
	VkDeviceMemory memory;
	VkImageView view;
	VkDescriptorPool pool;
	VkDescriptorSet sets[2]; /* indexed by enum vr_sampler */
	/* the commit thread's (vr_exec_ctx_collect) */
	VkImageLayout layout;
	/* cells; protected by images_lock */
	uint8_t cell[ATLAS_BLOCKS]; /* cell size of the block, 0: free */
	uint64_t used[ATLAS_BLOCKS]; /* a bit per cell, row-major */
	uint32_t images; /* cells in use */
};

/*
 * A worker's upload that the commit thread records (vr_exec_ctx::
 * staged_copies): into an atlas page, or into a large texture (below).
 * `layout` is the destination's, which only the commit thread changes;
 * copies into one destination share a barrier pair.
 */
struct vr_staged_copy {
	VkImage image;
	VkImageLayout *layout; /* NULL once recorded */
	VkBuffer buffer;
	VkBufferImageCopy region;
};

/*
 * Large textures: an image of its own texture with more than LARGE_TEXELS
 * texels gets only what the frame's draws sample uploaded (the texels
 * under their covered pixels, two texels wider for bilinear filtering
 * and float noise); the rest stays pending until a draw samples it. An
 * 8192x8192 surface on a 640x480 output uploads at most its visible
 * 640x480 texels, not 256 MiB in one frame (measured on lavapipe: about
 * 1 s of staging copies plus 1 s of the queue's copy into the image).
 * Several workers may upload different parts of one in a frame: each
 * takes its part out of the pending region under images_lock, stages it
 * into the ring and notes the copy; the commit thread records the copies
 * (vr_exec_ctx_collect) and owns the texture's layout. All uploads of a
 * frame are submitted before its draws.
 */
#define LARGE_TEXELS ((int64_t)2048 * 2048)

struct vr_texture {
	struct vr_image_copy copy; /* in vr_image::copies, under images_lock */
	struct vr_renderer *renderer;
	struct vr_image *image; /* not referenced; NULL once it is gone */
	struct vr_list link; /* vr_resources::textures or ::garbage */
	_Atomic int state; /* enum vr_resource_state; atomic */
	/* the last frame whose upload was claimed; atomic */
	_Atomic uint64_t upload_frame;
	/* written by the creator before READY, then read-only */
	int32_t width, height;
	VkImage vk_image;
	VkDeviceMemory memory;
	VkImageView view;
	VkDescriptorPool pool;
	VkDescriptorSet sets[2]; /* indexed by enum vr_sampler */
	/* the uploader of the frame's (one thread per frame); a large
	 * texture's: the commit thread's */
	VkImageLayout layout;
	/* in garbage: the last frame that may sample it; protected by
	 * images_lock */
	uint64_t garbage_frame;
	/* a large texture: some upload was staged (its layout leaves
	 * UNDEFINED in the queue before any draw binds it); protected by
	 * images_lock */
	bool staged;
	/* a small image in the atlas: its page (NULL: the GPU objects above
	 * are its own), block, cell and texel (0, 0); set by preparation
	 * before anyone sees the texture, then read-only */
	struct vr_atlas_page *page;
	uint32_t block, cell;
	int32_t atlas_x, atlas_y;
};

struct vr_pipeline_entry {
	uint32_t key; /* immutable */
	_Atomic int state; /* enum vr_resource_state; atomic */
	VkPipeline pipeline; /* written by the creator before READY */
};

struct vr_scratch_image {
	struct vr_list link; /* vr_resources::scratch_free or ::scratch_used */
	struct vr_scratch scratch;
	VkDeviceMemory memory;
	VkDescriptorPool pool;
	uint64_t last_frame; /* used in; caller's thread (in a slot) */
};

/* ---- preparing state ----------------------------------------------------- */

/* The shard of a resource's state. */
static struct vr_ready_shard *ready_shard(struct vr_resources *res,
		_Atomic int *state)
{
	uint64_t h = (uint64_t)(uintptr_t)state * 0x9e3779b97f4a7c15ull;
	return &res->ready[(h >> 32) % VR_READY_SHARDS];
}

static int wait_ready(struct vr_resources *res, _Atomic int *state)
{
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

static void publish(struct vr_resources *res, _Atomic int *state, int value)
{
	struct vr_ready_shard *shard = ready_shard(res, state);
	pthread_mutex_lock(&shard->lock);
	atomic_store_explicit(state, value, memory_order_release);
	pthread_cond_broadcast(&shard->cond);
	pthread_mutex_unlock(&shard->lock);
}

/* ---- descriptor sets ----------------------------------------------------- */

static bool allocate_sets(struct vr_renderer *renderer, uint32_t count,
		VkDescriptorSet *sets, VkDescriptorPool *out_pool)
{
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
	VkResult vr = vkCreateDescriptorPool(renderer->device, &pinfo, NULL,
		&pool->pool);
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

static void free_sets(struct vr_renderer *renderer, VkDescriptorPool pool,
		uint32_t count, const VkDescriptorSet *sets)
{
	if (pool == VK_NULL_HANDLE) {
		return;
	}
	pthread_mutex_lock(&renderer->res.descriptors_lock);
	vkFreeDescriptorSets(renderer->device, pool, count, sets);
	pthread_mutex_unlock(&renderer->res.descriptors_lock);
}

static void write_image_set(struct vr_renderer *renderer, VkDescriptorSet set,
		VkImageView view, enum vr_sampler sampler)
{
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

/* ---- vertex ring ---------------------------------------------------------- */

static bool ring_create(struct vr_renderer *renderer, VkDeviceSize region)
{
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

/* A new chunk of at least `want` bytes for this context: from the frame's
 * ring region (an atomic add, no lock), else an overflow buffer of its
 * own, freed when the frame retires. */
static bool grab_chunk(struct vr_exec_ctx *ctx, VkDeviceSize want)
{
	struct vr_renderer *renderer = ctx->renderer;
	struct vr_resources *res = &renderer->res;
	uint64_t off = atomic_fetch_add_explicit(&res->ring_head, want,
		memory_order_relaxed);
	if (off + want <= res->region_size) {
		VkDeviceSize base = (VkDeviceSize)renderer->frame.slot *
			res->region_size + off;
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

static void *ring_alloc(struct vr_exec_ctx *ctx, size_t size,
		VkBuffer *buffer, VkDeviceSize *offset)
{
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
		VkDeviceSize *offset)
{
	return ring_alloc(ctx, size, &ctx->last_buffer, offset);
}

VkBuffer vr_exec_vertex_buffer(struct vr_exec_ctx *ctx)
{
	return ctx->last_buffer;
}

/* ---- command buffers ----------------------------------------------------- */

static VkCommandBuffer begin_cb(struct vr_exec_ctx *ctx, VkCommandBuffer cb,
		bool *begun)
{
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

VkCommandBuffer vr_exec_prologue(struct vr_exec_ctx *ctx)
{
	uint32_t slot = ctx->renderer->frame.slot;
	return begin_cb(ctx, ctx->prologue_cbs[slot], &ctx->prologue_begun);
}

static VkCommandBuffer upload_cb(struct vr_exec_ctx *ctx)
{
	uint32_t slot = ctx->renderer->frame.slot;
	return begin_cb(ctx, ctx->upload_cbs[slot], &ctx->upload_begun);
}

/* ---- textures ------------------------------------------------------------ */

static void atlas_page_free(struct vr_renderer *renderer,
		struct vr_atlas_page *page)
{
	VkDevice dev = renderer->device;
	free_sets(renderer, page->pool, 2, page->sets);
	vkDestroyImageView(dev, page->view, NULL);
	vkDestroyImage(dev, page->vk_image, NULL);
	vkFreeMemory(dev, page->memory, NULL);
	free(page);
}

/* Free an atlas texture's cell; images_lock held (write). The page, when
 * it is empty now and not the first, is returned to be freed. */
static struct vr_atlas_page *atlas_cell_free(struct vr_resources *res,
		struct vr_texture *texture)
{
	struct vr_atlas_page *page = texture->page;
	page->used[texture->block] &= ~(UINT64_C(1) << texture->cell);
	if (page->used[texture->block] == 0) {
		page->cell[texture->block] = 0;
	}
	if (--page->images > 0 || page->number == 1) {
		return NULL;
	}
	res->atlas_pages[page->number - 1] = NULL;
	return page;
}

static void texture_free(struct vr_texture *texture)
{
	struct vr_renderer *renderer = texture->renderer;
	VkDevice dev = renderer->device;
	if (texture->page != NULL) {
		/* the cell was freed by the caller (atlas_cell_free) */
		vr_list_remove(&texture->link);
		free(texture);
		return;
	}
	free_sets(renderer, texture->pool, 2, texture->sets);
	vkDestroyImageView(dev, texture->view, NULL);
	vkDestroyImage(dev, texture->vk_image, NULL);
	vkFreeMemory(dev, texture->memory, NULL);
	vr_list_remove(&texture->link);
	free(texture);
}

/* Caller's thread, between frames (vr_image_unref). */
static void texture_handle_image_destroyed(struct vr_image_copy *copy)
{
	struct vr_texture *texture = vr_container_of(copy, struct vr_texture,
		copy);
	struct vr_resources *res = &texture->renderer->res;
	pixman_region32_fini(&copy->pending);
	/* Submitted frames may still sample it, and so may the frame being
	 * prepared: free it once the GPU passed the next frame. */
	pthread_rwlock_wrlock(&res->images_lock);
	texture->garbage_frame = texture->renderer->frames + 1;
	texture->image = NULL;
	vr_list_remove(&texture->link);
	vr_list_insert(&res->garbage, &texture->link);
	pthread_rwlock_unlock(&res->images_lock);
}

/* Create the GPU objects of a PREPARING texture (no lock held). */
static bool texture_init_gpu(struct vr_renderer *renderer,
		struct vr_texture *texture, enum vr_format format)
{
	VkComponentMapping components = {
		.r = VK_COMPONENT_SWIZZLE_IDENTITY,
		.g = VK_COMPONENT_SWIZZLE_IDENTITY,
		.b = VK_COMPONENT_SWIZZLE_IDENTITY,
		.a = format == VR_FORMAT_XRGB8888 ?
			VK_COMPONENT_SWIZZLE_ONE : VK_COMPONENT_SWIZZLE_IDENTITY,
	};
	if (!vr_vk_create_image(renderer, texture->width, texture->height,
			VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
			components, &texture->vk_image, &texture->memory,
			&texture->view)) {
		return false;
	}
	if (!allocate_sets(renderer, 2, texture->sets, &texture->pool)) {
		return false; /* texture_free releases the image */
	}
	for (int i = 0; i < 2; i++) {
		write_image_set(renderer, texture->sets[i], texture->view,
			(enum vr_sampler)i);
	}
	return true;
}

/* A texture of image's own in state (TEXTURE_NEW or PREPARING), linked
 * to the image; images_lock held (write). NULL: out of memory. */
static struct vr_texture *texture_insert(struct vr_renderer *renderer,
		struct vr_image *image, int state)
{
	struct vr_texture *texture = calloc(1, sizeof(*texture));
	if (texture == NULL) {
		return NULL;
	}
	texture->renderer = renderer;
	texture->image = image;
	texture->width = image->width;
	texture->height = image->height;
	texture->layout = VK_IMAGE_LAYOUT_UNDEFINED;
	atomic_init(&texture->state, state);
	atomic_init(&texture->upload_frame, 0);
	texture->copy.owner = renderer;
	texture->copy.image_destroyed = texture_handle_image_destroyed;
	vr_image_add_copy(image, &texture->copy);
	vr_list_insert(&renderer->res.textures, &texture->link);
	return texture;
}

/* The texture of image, created by the first thread that asks; NULL on
 * failure (logged). */
static struct vr_texture *texture_acquire(struct vr_renderer *renderer,
		struct vr_image *image)
{
	struct vr_resources *res = &renderer->res;
	pthread_rwlock_rdlock(&res->images_lock);
	struct vr_image_copy *copy = vr_image_find_copy(image, renderer);
	pthread_rwlock_unlock(&res->images_lock);

	struct vr_texture *texture = NULL;
	bool creator = false;
	if (copy == NULL) {
		pthread_rwlock_wrlock(&res->images_lock);
		copy = vr_image_find_copy(image, renderer);
		if (copy == NULL) {
			texture = texture_insert(renderer, image,
				VR_RESOURCE_PREPARING);
			creator = texture != NULL;
		}
		pthread_rwlock_unlock(&res->images_lock);
		if (texture == NULL && copy == NULL) {
			vr_log(VR_LOG_ERROR, "allocation failed");
			return NULL;
		}
	}
	if (!creator) {
		texture = vr_container_of(copy, struct vr_texture, copy);
		/* decided by preparation (vr_resources_atlas_place), not
		 * created yet: the first to get here creates it */
		int expected = TEXTURE_NEW;
		creator = atomic_compare_exchange_strong_explicit(
			&texture->state, &expected, VR_RESOURCE_PREPARING,
			memory_order_acq_rel, memory_order_acquire);
	}
	if (creator) {
		bool ok = texture_init_gpu(renderer, texture, image->format);
		atomic_fetch_add_explicit(&res->textures_created, 1,
			memory_order_relaxed);
		publish(res, &texture->state,
			ok ? VR_RESOURCE_READY : VR_RESOURCE_FAILED);
	}
	if (wait_ready(res, &texture->state) != VR_RESOURCE_READY) {
		return NULL;
	}
	return texture;
}

/* Record the upload of what was written since the last one into this
 * context's upload command buffer. */
static bool texture_upload(struct vr_exec_ctx *ctx, struct vr_texture *texture)
{
	pixman_region32_t *pending = &texture->copy.pending;
	int nrects;
	const pixman_box32_t *boxes = pixman_region32_rectangles(pending,
		&nrects);
	if (nrects > MAX_UPLOAD_RECTS) {
		boxes = pixman_region32_extents(pending);
		nrects = 1;
	}
	VkDeviceSize total = 0;
	for (int i = 0; i < nrects; i++) {
		total += (VkDeviceSize)(boxes[i].x2 - boxes[i].x1) *
			(VkDeviceSize)(boxes[i].y2 - boxes[i].y1) * 4;
	}
	VkBuffer buffer = VK_NULL_HANDLE;
	VkDeviceSize offset = 0;
	uint8_t *dst = ring_alloc(ctx, (size_t)total, &buffer, &offset);
	VkCommandBuffer cb = upload_cb(ctx);
	if (dst == NULL || cb == VK_NULL_HANDLE) {
		return false;
	}
	/* pinned by the frame (vr_chain_hold_image): data and pending stay
	 * as they were at preparation until the frame's CPU stage ended */
	const struct vr_image *image = texture->image;
	VkBufferImageCopy copies[MAX_UPLOAD_RECTS];
	for (int i = 0; i < nrects; i++) {
		uint32_t w = (uint32_t)(boxes[i].x2 - boxes[i].x1);
		uint32_t h = (uint32_t)(boxes[i].y2 - boxes[i].y1);
		copies[i] = (VkBufferImageCopy){
			.bufferOffset = offset,
			.imageSubresource = {
				.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
				.layerCount = 1,
			},
			.imageOffset = { boxes[i].x1, boxes[i].y1, 0 },
			.imageExtent = { w, h, 1 },
		};
		size_t len = (size_t)w * 4;
		for (uint32_t y = 0; y < h; y++) {
			const uint8_t *src = (const uint8_t *)image->data +
				(size_t)(boxes[i].y1 + (int32_t)y) *
					(size_t)image->stride +
				(size_t)boxes[i].x1 * 4;
			memcpy(dst + (size_t)y * len, src, len);
		}
		dst += (size_t)w * h * 4;
		offset += (VkDeviceSize)w * h * 4;
	}
	bool first = texture->layout == VK_IMAGE_LAYOUT_UNDEFINED;
	vr_vk_image_barrier(cb, texture->vk_image, texture->layout,
		VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		first ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT :
			VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
		0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
	vkCmdCopyBufferToImage(cb, buffer, texture->vk_image,
		VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, (uint32_t)nrects, copies);
	vr_vk_image_barrier(cb, texture->vk_image,
		VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
		VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
		VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
	texture->layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
	pixman_region32_clear(pending);

	struct vr_frame *frame = &ctx->renderer->frame;
	if (ctx->job < frame->njobs) {
		atomic_fetch_add_explicit(&frame->jobs[ctx->job].uploads, 1,
			memory_order_relaxed);
	}
	return true;
}

/* ---- the small-image atlas ---------------------------------------------- */

static uint32_t atlas_cell_size(const struct vr_image *image)
{
	int32_t side = image->width > image->height ? image->width :
		image->height;
	uint32_t cell = ATLAS_MIN_CELL;
	while (cell < (uint32_t)side + 2 * ATLAS_BORDER) {
		cell *= 2;
	}
	return cell;
}

/* A free cell of `size` in page: block and cell; images_lock held. */
static bool atlas_page_take(struct vr_atlas_page *page, uint32_t size,
		uint32_t *block, uint32_t *cell)
{
	uint32_t per_block = (ATLAS_BLOCK / size) * (ATLAS_BLOCK / size);
	uint64_t full = per_block == 64 ? UINT64_MAX :
		(UINT64_C(1) << per_block) - 1;
	uint32_t free_block = ATLAS_BLOCKS;
	for (uint32_t b = 0; b < ATLAS_BLOCKS; b++) {
		if (page->cell[b] == size && page->used[b] != full) {
			*block = b;
			*cell = (uint32_t)__builtin_ctzll(~page->used[b]);
			return true;
		}
		if (page->cell[b] == 0 && free_block == ATLAS_BLOCKS) {
			free_block = b;
		}
	}
	if (free_block == ATLAS_BLOCKS) {
		return false;
	}
	page->cell[free_block] = (uint8_t)size;
	*block = free_block;
	*cell = 0;
	return true;
}

/* The owner of an image's atlas copy (vr_image_copy::owner) in renderer,
 * beside the copy of its own texture (owner: the renderer). */
static const void *atlas_owner(struct vr_renderer *renderer)
{
	return &renderer->res.atlas_pages;
}

bool vr_resources_atlas_place(struct vr_renderer *renderer,
		struct vr_image *image, bool nearest, struct vr_atlas_place *out)
{
	if (!nearest) {
		/* a texture of its own (which a later nearest draw then uses
		 * too), decided here in preparation's order, whatever the
		 * workers executing earlier tasks meanwhile did */
		struct vr_resources *res = &renderer->res;
		pthread_rwlock_wrlock(&res->images_lock);
		if (vr_image_find_copy(image, renderer) == NULL &&
				texture_insert(renderer, image, TEXTURE_NEW) == NULL) {
			vr_log(VR_LOG_ERROR, "allocation failed");
		}
		pthread_rwlock_unlock(&res->images_lock);
		return false;
	}
	if (image->width > VR_ATLAS_MAX_SIDE ||
			image->height > VR_ATLAS_MAX_SIDE ||
			image == renderer->white) {
		return false;
	}
	struct vr_resources *res = &renderer->res;
	struct vr_texture *texture = NULL;
	pthread_rwlock_wrlock(&res->images_lock);
	struct vr_image_copy *copy = vr_image_find_copy(image,
		atlas_owner(renderer));
	if (copy != NULL) {
		texture = vr_container_of(copy, struct vr_texture, copy);
		goto done;
	}
	if (vr_image_find_copy(image, renderer) != NULL) {
		/* it has a texture of its own already: no second copy (nearest
		 * sampling reads the same texels from either) */
		goto done;
	}
	uint32_t size = atlas_cell_size(image);
	struct vr_atlas_page *page = NULL;
	uint32_t block = 0, cell = 0;
	for (uint32_t i = 0; i < VR_ATLAS_MAX_PAGES && page == NULL; i++) {
		if (res->atlas_pages[i] == NULL) {
			struct vr_atlas_page *fresh = calloc(1, sizeof(*fresh));
			if (fresh == NULL) {
				break;
			}
			fresh->number = i + 1;
			fresh->layout = VK_IMAGE_LAYOUT_UNDEFINED;
			atomic_init(&fresh->state, ATLAS_PAGE_NEW);
			res->atlas_pages[i] = fresh;
		}
		if (atlas_page_take(res->atlas_pages[i], size, &block, &cell)) {
			page = res->atlas_pages[i];
		}
	}
	if (page == NULL || (texture = calloc(1, sizeof(*texture))) == NULL) {
		goto done; /* full: a texture of its own */
	}
	page->used[block] |= UINT64_C(1) << cell;
	page->images++;
	atomic_fetch_add_explicit(&res->atlas_placed, 1, memory_order_relaxed);
	uint32_t per_row = ATLAS_BLOCK / size;
	texture->renderer = renderer;
	texture->image = image;
	texture->width = image->width;
	texture->height = image->height;
	texture->page = page;
	texture->block = block;
	texture->cell = cell;
	texture->atlas_x = (int32_t)((block % ATLAS_SIDE_BLOCKS) * ATLAS_BLOCK +
		(cell % per_row) * size) + ATLAS_BORDER;
	texture->atlas_y = (int32_t)((block / ATLAS_SIDE_BLOCKS) * ATLAS_BLOCK +
		(cell / per_row) * size) + ATLAS_BORDER;
	atomic_init(&texture->state, VR_RESOURCE_READY);
	atomic_init(&texture->upload_frame, 0);
	texture->copy.owner = atlas_owner(renderer);
	texture->copy.image_destroyed = texture_handle_image_destroyed;
	vr_image_add_copy(image, &texture->copy);
	vr_list_insert(&res->textures, &texture->link);
done:
	pthread_rwlock_unlock(&res->images_lock);
	if (texture == NULL) {
		return false;
	}
	*out = (struct vr_atlas_place){
		.page = texture->page->number,
		.x = texture->atlas_x,
		.y = texture->atlas_y,
	};
	return true;
}

/* The page's GPU objects, created by the first worker that asks. */
static bool atlas_page_acquire(struct vr_renderer *renderer,
		struct vr_atlas_page *page)
{
	struct vr_resources *res = &renderer->res;
	int expected = ATLAS_PAGE_NEW;
	if (atomic_compare_exchange_strong_explicit(&page->state, &expected,
			VR_RESOURCE_PREPARING, memory_order_acq_rel,
			memory_order_acquire)) {
		VkComponentMapping identity = { 0 };
		bool ok = vr_vk_create_image(renderer, VR_ATLAS_PAGE_SIZE,
				VR_ATLAS_PAGE_SIZE, VK_IMAGE_USAGE_SAMPLED_BIT |
				VK_IMAGE_USAGE_TRANSFER_DST_BIT, identity,
				&page->vk_image, &page->memory, &page->view) &&
			allocate_sets(renderer, 2, page->sets, &page->pool);
		for (int i = 0; ok && i < 2; i++) {
			write_image_set(renderer, page->sets[i], page->view,
				(enum vr_sampler)i);
		}
		atomic_fetch_add_explicit(&res->textures_created, 1,
			memory_order_relaxed);
		publish(res, &page->state,
			ok ? VR_RESOURCE_READY : VR_RESOURCE_FAILED);
	}
	return wait_ready(res, &page->state) == VR_RESOURCE_READY;
}

/* Copy an atlas image with its border into the frame's ring and note the
 * copy for vr_exec_ctx_collect. Small (at most 64 x 64 texels): always
 * the whole cell. */
static bool atlas_upload(struct vr_exec_ctx *ctx, struct vr_texture *texture)
{
	/* pinned by the frame (vr_chain_hold_image) */
	const struct vr_image *image = texture->image;
	int32_t w = image->width, h = image->height;
	uint32_t cw = (uint32_t)(w + 2 * ATLAS_BORDER);
	uint32_t ch = (uint32_t)(h + 2 * ATLAS_BORDER);
	if (!vr_array_reserve(&ctx->staged_copies, 1,
			sizeof(struct vr_staged_copy))) {
		return false;
	}
	VkBuffer buffer = VK_NULL_HANDLE;
	VkDeviceSize offset = 0;
	uint32_t *dst = ring_alloc(ctx, (size_t)cw * ch * 4, &buffer, &offset);
	if (dst == NULL) {
		return false;
	}
	/* XRGB: the alpha byte is undefined; the page has no swizzle */
	uint32_t alpha = image->format == VR_FORMAT_XRGB8888 ? 0xff000000u : 0;
	for (uint32_t y = 0; y < ch; y++) {
		int32_t sy = (int32_t)y - ATLAS_BORDER;
		sy = sy < 0 ? 0 : sy >= h ? h - 1 : sy;
		const uint32_t *src = image->data +
			(size_t)sy * (size_t)(image->stride / 4);
		uint32_t *row = dst + (size_t)y * cw;
		row[0] = src[0] | alpha;
		for (int32_t x = 0; x < w; x++) {
			row[ATLAS_BORDER + x] = src[x] | alpha;
		}
		row[cw - 1] = src[w - 1] | alpha;
	}
	struct vr_staged_copy *copy = (struct vr_staged_copy *)
		ctx->staged_copies.data + ctx->staged_copies.len++;
	*copy = (struct vr_staged_copy){
		.image = texture->page->vk_image,
		.layout = &texture->page->layout,
		.buffer = buffer,
		.region = {
			.bufferOffset = offset,
			.imageSubresource = {
				.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
				.layerCount = 1,
			},
			.imageOffset = { texture->atlas_x - ATLAS_BORDER,
				texture->atlas_y - ATLAS_BORDER, 0 },
			.imageExtent = { cw, ch, 1 },
		},
	};
	pixman_region32_clear(&texture->copy.pending);
	struct vr_frame *frame = &ctx->renderer->frame;
	if (ctx->job < frame->njobs) {
		atomic_fetch_add_explicit(&frame->jobs[ctx->job].uploads, 1,
			memory_order_relaxed);
	}
	return true;
}

/* Record this context's staged copies, one barrier pair per destination:
 * the commit thread, contexts in submission order (vr_exec_ctx_collect),
 * so a destination's first transition is the first in the queue. */
static bool staged_record(struct vr_exec_ctx *ctx)
{
	struct vr_array *copies = &ctx->staged_copies;
	if (copies->len == 0) {
		return true;
	}
	VkCommandBuffer cb = upload_cb(ctx);
	if (cb == VK_NULL_HANDLE) {
		copies->len = 0;
		return false;
	}
	VkBufferImageCopy regions[64];
	for (size_t i = 0; i < copies->len; i++) {
		struct vr_staged_copy *head = (struct vr_staged_copy *)
			copies->data + i;
		VkImageLayout *layout = head->layout;
		VkImage image = head->image;
		if (layout == NULL) {
			continue; /* recorded with an earlier one of its image */
		}
		bool first = *layout == VK_IMAGE_LAYOUT_UNDEFINED;
		vr_vk_image_barrier(cb, image, *layout,
			VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			first ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT :
				VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
			0, VK_PIPELINE_STAGE_TRANSFER_BIT,
			VK_ACCESS_TRANSFER_WRITE_BIT);
		/* this image's copies, a run of one buffer per call */
		VkBuffer buffer = VK_NULL_HANDLE;
		uint32_t n = 0;
		for (size_t j = i; j < copies->len; j++) {
			struct vr_staged_copy *c = (struct vr_staged_copy *)
				copies->data + j;
			if (c->layout != layout) {
				continue;
			}
			if (n > 0 && (c->buffer != buffer ||
					n == sizeof(regions) / sizeof(regions[0]))) {
				vkCmdCopyBufferToImage(cb, buffer, image,
					VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, n, regions);
				n = 0;
			}
			buffer = c->buffer;
			regions[n++] = c->region;
			c->layout = NULL;
		}
		vkCmdCopyBufferToImage(cb, buffer, image,
			VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, n, regions);
		vr_vk_image_barrier(cb, image,
			VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
			VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
			VK_ACCESS_SHADER_READ_BIT);
		*layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
	}
	copies->len = 0;
	return true;
}

/* ---- large textures (LARGE_TEXELS) -------------------------------------- */

static bool texture_is_large(const struct vr_texture *texture)
{
	return texture->page == NULL &&
		(int64_t)texture->width * texture->height > LARGE_TEXELS;
}

/* Stage the pending texels inside `texels` (image pixels; NULL: all) and
 * note their copies for the commit thread. */
static bool large_upload(struct vr_exec_ctx *ctx, struct vr_texture *texture,
		const struct vr_box *texels)
{
	struct vr_resources *res = &ctx->renderer->res;
	struct vr_box box = { 0, 0, texture->width, texture->height };
	if (texels != NULL) {
		box = vr_box_intersect(&box, texels);
	}
	pixman_region32_t take;
	pixman_region32_init_rect(&take, box.x, box.y,
		(unsigned)(box.width > 0 ? box.width : 0),
		(unsigned)(box.height > 0 ? box.height : 0));
	/* pinned by the frame: only workers change pending, under the lock */
	pthread_rwlock_wrlock(&res->images_lock);
	pixman_region32_intersect(&take, &take, &texture->copy.pending);
	if (!texture->staged && !pixman_region32_not_empty(&take) &&
			pixman_region32_not_empty(&texture->copy.pending)) {
		/* a draw that samples nothing still binds the texture: its
		 * first transition must come before */
		const pixman_box32_t *e = pixman_region32_extents(
			&texture->copy.pending);
		pixman_region32_reset(&take, &(pixman_box32_t){ e->x1, e->y1,
			e->x1 + 1, e->y1 + 1 });
	}
	texture->staged |= pixman_region32_not_empty(&take);
	pixman_region32_subtract(&texture->copy.pending, &texture->copy.pending,
		&take);
	pthread_rwlock_unlock(&res->images_lock);
	int nrects;
	const pixman_box32_t *boxes = pixman_region32_rectangles(&take, &nrects);
	if (nrects == 0) {
		pixman_region32_fini(&take);
		return true;
	}
	/* more rectangles: their extents (texels not pending are up to date:
	 * copying them again changes nothing) */
	if (nrects > MAX_UPLOAD_RECTS) {
		boxes = pixman_region32_extents(&take);
		nrects = 1;
	}
	bool ok = vr_array_reserve(&ctx->staged_copies, (size_t)nrects,
		sizeof(struct vr_staged_copy));
	const struct vr_image *image = texture->image;
	for (int i = 0; ok && i < nrects; i++) {
		uint32_t w = (uint32_t)(boxes[i].x2 - boxes[i].x1);
		uint32_t h = (uint32_t)(boxes[i].y2 - boxes[i].y1);
		size_t len = (size_t)w * 4;
		VkBuffer buffer = VK_NULL_HANDLE;
		VkDeviceSize offset = 0;
		uint8_t *dst = ring_alloc(ctx, len * h, &buffer, &offset);
		if (dst == NULL) {
			ok = false;
			break;
		}
		for (uint32_t y = 0; y < h; y++) {
			const uint8_t *src = (const uint8_t *)image->data +
				(size_t)(boxes[i].y1 + (int32_t)y) *
					(size_t)image->stride +
				(size_t)boxes[i].x1 * 4;
			memcpy(dst + (size_t)y * len, src, len);
		}
		struct vr_staged_copy *copy = (struct vr_staged_copy *)
			ctx->staged_copies.data + ctx->staged_copies.len++;
		*copy = (struct vr_staged_copy){
			.image = texture->vk_image,
			.layout = &texture->layout,
			.buffer = buffer,
			.region = {
				.bufferOffset = offset,
				.imageSubresource = {
					.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
					.layerCount = 1,
				},
				.imageOffset = { boxes[i].x1, boxes[i].y1, 0 },
				.imageExtent = { w, h, 1 },
			},
		};
	}
	if (!ok) {
		/* not uploaded after all: pending again */
		pthread_rwlock_wrlock(&res->images_lock);
		pixman_region32_union(&texture->copy.pending,
			&texture->copy.pending, &take);
		pthread_rwlock_unlock(&res->images_lock);
	} else {
		struct vr_frame *frame = &ctx->renderer->frame;
		if (ctx->job < frame->njobs) {
			atomic_fetch_add_explicit(&frame->jobs[ctx->job].uploads, 1,
				memory_order_relaxed);
		}
	}
	pixman_region32_fini(&take);
	return ok;
}

VkDescriptorSet vr_exec_image(struct vr_exec_ctx *ctx, struct vr_image *image,
		bool linear, const struct vr_box *texels)
{
	struct vr_texture *texture = texture_acquire(ctx->renderer, image);
	if (texture == NULL) {
		ctx->failed = true;
		return VK_NULL_HANDLE;
	}
	if (texture_is_large(texture)) {
		if (!large_upload(ctx, texture, texels)) {
			ctx->failed = true;
			return VK_NULL_HANDLE;
		}
		return texture->sets[linear ? VR_SAMPLER_LINEAR :
			VR_SAMPLER_NEAREST];
	}
	/* One thread per frame claims the upload of what was written since
	 * the last; its upload command buffer is submitted before any draw
	 * of the frame, so the others need not wait for it. */
	uint64_t frame = ctx->renderer->frame.number;
	uint64_t seen = atomic_load_explicit(&texture->upload_frame,
		memory_order_acquire);
	if (seen != frame && atomic_compare_exchange_strong_explicit(
			&texture->upload_frame, &seen, frame,
			memory_order_acq_rel, memory_order_acquire)) {
		if (pixman_region32_not_empty(&texture->copy.pending) &&
				!texture_upload(ctx, texture)) {
			ctx->failed = true;
			return VK_NULL_HANDLE;
		}
	}
	return texture->sets[linear ? VR_SAMPLER_LINEAR : VR_SAMPLER_NEAREST];
}

VkDescriptorSet vr_exec_atlas_image(struct vr_exec_ctx *ctx,
		struct vr_image *image)
{
	struct vr_renderer *renderer = ctx->renderer;
	struct vr_resources *res = &renderer->res;
	/* placed by preparation (vr_resources_atlas_place); the image is
	 * pinned, so its copies change only under images_lock */
	pthread_rwlock_rdlock(&res->images_lock);
	struct vr_image_copy *copy = vr_image_find_copy(image,
		atlas_owner(renderer));
	pthread_rwlock_unlock(&res->images_lock);
	if (copy == NULL) {
		vr_log(VR_LOG_ERROR, "image not in the atlas");
		ctx->failed = true;
		return VK_NULL_HANDLE;
	}
	struct vr_texture *texture = vr_container_of(copy, struct vr_texture,
		copy);
	{
		if (!atlas_page_acquire(ctx->renderer, texture->page)) {
			ctx->failed = true;
			return VK_NULL_HANDLE;
		}
		uint64_t frame = ctx->renderer->frame.number;
		uint64_t seen = atomic_load_explicit(&texture->upload_frame,
			memory_order_acquire);
		if (seen != frame && atomic_compare_exchange_strong_explicit(
				&texture->upload_frame, &seen, frame,
				memory_order_acq_rel, memory_order_acquire) &&
				pixman_region32_not_empty(&texture->copy.pending) &&
				!atlas_upload(ctx, texture)) {
			ctx->failed = true;
			return VK_NULL_HANDLE;
		}
		return texture->page->sets[VR_SAMPLER_NEAREST];
	}
}

VkDescriptorSet vr_exec_white(struct vr_exec_ctx *ctx)
{
	return vr_exec_image(ctx, ctx->renderer->white, false, NULL);
}

/* ---- pipelines ------------------------------------------------------------ */

static VkShaderModule create_shader(struct vr_renderer *renderer,
		const uint32_t *code, size_t size)
{
	VkShaderModuleCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = size,
		.pCode = code,
	};
	VkShaderModule module;
	VkResult res = vkCreateShaderModule(renderer->device, &info, NULL,
		&module);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateShaderModule failed: %s",
			vr_vk_result_str(res));
		return VK_NULL_HANDLE;
	}
	return module;
}

static VkPipeline compile_pipeline(struct vr_renderer *renderer,
		const struct vr_pipeline_desc *desc)
{
	VkDevice dev = renderer->device;
	VkPipeline pipeline = VK_NULL_HANDLE;
	VkShaderModule vert = create_shader(renderer, desc->vert_spv,
		desc->vert_size);
	VkShaderModule frag = create_shader(renderer, desc->frag_spv,
		desc->frag_size);
	if (vert == VK_NULL_HANDLE || frag == VK_NULL_HANDLE) {
		goto out;
	}
	VkPipelineShaderStageCreateInfo stages[2] = {
		{
			.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_VERTEX_BIT,
			.module = vert,
			.pName = "main",
		},
		{
			.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_FRAGMENT_BIT,
			.module = frag,
			.pName = "main",
		},
	};
	VkVertexInputBindingDescription binding = {
		.binding = 0,
		.stride = desc->vertex_stride,
		.inputRate = VK_VERTEX_INPUT_RATE_VERTEX,
	};
	VkPipelineVertexInputStateCreateInfo vertex_input = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
		.vertexBindingDescriptionCount = desc->attribute_count > 0 ? 1 : 0,
		.pVertexBindingDescriptions = &binding,
		.vertexAttributeDescriptionCount = desc->attribute_count,
		.pVertexAttributeDescriptions = desc->attributes,
	};
	VkPipelineInputAssemblyStateCreateInfo assembly = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		.topology = desc->topology,
	};
	VkPipelineViewportStateCreateInfo viewport = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
		.viewportCount = 1,
		.scissorCount = 1,
	};
	VkPipelineRasterizationStateCreateInfo raster = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
		.polygonMode = VK_POLYGON_MODE_FILL,
		.cullMode = VK_CULL_MODE_NONE,
		.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
		.lineWidth = 1.0f,
	};
	VkPipelineMultisampleStateCreateInfo multisample = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
		.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
	};
	/* premultiplied over */
	VkPipelineColorBlendAttachmentState blend_attachment = {
		.blendEnable = VK_TRUE,
		.srcColorBlendFactor = VK_BLEND_FACTOR_ONE,
		.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
		.colorBlendOp = VK_BLEND_OP_ADD,
		.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
		.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
		.alphaBlendOp = VK_BLEND_OP_ADD,
		.colorWriteMask = VK_COLOR_COMPONENT_R_BIT |
			VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
			VK_COLOR_COMPONENT_A_BIT,
	};
	VkPipelineColorBlendStateCreateInfo blend = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &blend_attachment,
	};
	VkDynamicState dynamic_states[2] = {
		VK_DYNAMIC_STATE_VIEWPORT,
		VK_DYNAMIC_STATE_SCISSOR,
	};
	VkPipelineDynamicStateCreateInfo dynamic = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
		.dynamicStateCount = 2,
		.pDynamicStates = dynamic_states,
	};
	VkGraphicsPipelineCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
		.stageCount = 2,
		.pStages = stages,
		.pVertexInputState = &vertex_input,
		.pInputAssemblyState = &assembly,
		.pViewportState = &viewport,
		.pRasterizationState = &raster,
		.pMultisampleState = &multisample,
		.pColorBlendState = &blend,
		.pDynamicState = &dynamic,
		.layout = renderer->pipeline_layout,
		.renderPass = desc->offscreen ? renderer->offscreen_pass :
			renderer->render_pass,
		.subpass = 0,
	};
	/* through the renderer's cache (pipeline_cache.c; may be none) */
	VkResult res = vkCreateGraphicsPipelines(dev, renderer->pipeline_cache,
		1, &info, NULL, &pipeline);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateGraphicsPipelines failed: %s",
			vr_vk_result_str(res));
		pipeline = VK_NULL_HANDLE;
	}
out:
	if (vert != VK_NULL_HANDLE) {
		vkDestroyShaderModule(dev, vert, NULL);
	}
	if (frag != VK_NULL_HANDLE) {
		vkDestroyShaderModule(dev, frag, NULL);
	}
	return pipeline;
}

/* Under pipelines_lock (either side). */
static struct vr_pipeline_entry *find_pipeline(struct vr_resources *res,
		uint32_t key)
{
	for (size_t i = 0; i < res->npipelines; i++) {
		if (res->pipelines[i]->key == key) {
			return res->pipelines[i];
		}
	}
	return NULL;
}

/* Under the write side of pipelines_lock. */
static struct vr_pipeline_entry *insert_pipeline(struct vr_resources *res,
		uint32_t key)
{
	if (res->npipelines == res->pipelines_cap) {
		size_t cap = res->pipelines_cap != 0 ? res->pipelines_cap * 2 : 16;
		struct vr_pipeline_entry **entries = realloc(res->pipelines,
			cap * sizeof(*entries));
		if (entries == NULL) {
			return NULL;
		}
		res->pipelines = entries;
		res->pipelines_cap = cap;
	}
	struct vr_pipeline_entry *entry = calloc(1, sizeof(*entry));
	if (entry == NULL) {
		return NULL;
	}
	entry->key = key;
	atomic_init(&entry->state, VR_RESOURCE_PREPARING);
	res->pipelines[res->npipelines++] = entry;
	return entry;
}

/* See vr_renderer_set_test_hold_creation(). */
static void test_hold_creation(struct vr_resources *res)
{
	unsigned want = atomic_load_explicit(&res->test_hold_creation,
		memory_order_relaxed);
	for (int i = 0; want > 0 && i < 50000 &&
			atomic_load_explicit(&res->waiting, memory_order_relaxed) < want;
			i++) {
		nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
	}
}

void vr_renderer_set_test_hold_creation(struct vr_renderer *renderer,
		unsigned waiters)
{
	atomic_store(&renderer->res.test_hold_creation, waiters);
}

/* The pipeline of desc, created by the first thread that asks;
 * VK_NULL_HANDLE when its creation failed (logged). */
static VkPipeline pipeline_acquire(struct vr_renderer *renderer,
		const struct vr_pipeline_desc *desc)
{
	struct vr_resources *res = &renderer->res;
	pthread_rwlock_rdlock(&res->pipelines_lock);
	struct vr_pipeline_entry *entry = find_pipeline(res, desc->key);
	pthread_rwlock_unlock(&res->pipelines_lock);

	bool creator = false;
	if (entry == NULL) {
		pthread_rwlock_wrlock(&res->pipelines_lock);
		entry = find_pipeline(res, desc->key);
		if (entry == NULL) {
			entry = insert_pipeline(res, desc->key);
			creator = entry != NULL;
		}
		pthread_rwlock_unlock(&res->pipelines_lock);
		if (entry == NULL) {
			vr_log(VR_LOG_ERROR, "allocation failed");
			return VK_NULL_HANDLE;
		}
	}
	if (creator) {
		test_hold_creation(res);
		/* compiled with no lock held: readers of other pipelines and
		 * the waiters of this one are not held up by it */
		entry->pipeline = compile_pipeline(renderer, desc);
		atomic_fetch_add_explicit(&res->pipelines_created, 1,
			memory_order_relaxed);
		publish(res, &entry->state, entry->pipeline != VK_NULL_HANDLE ?
			VR_RESOURCE_READY : VR_RESOURCE_FAILED);
	}
	if (wait_ready(res, &entry->state) != VR_RESOURCE_READY) {
		return VK_NULL_HANDLE;
	}
	return entry->pipeline;
}

VkPipeline vr_exec_pipeline(struct vr_exec_ctx *ctx,
		const struct vr_pipeline_desc *desc)
{
	VkPipeline pipeline = pipeline_acquire(ctx->renderer, desc);
	if (pipeline == VK_NULL_HANDLE) {
		ctx->failed = true;
	}
	return pipeline;
}

bool vr_resources_warm_pipeline(struct vr_renderer *renderer,
		const struct vr_pipeline_desc *desc)
{
	return pipeline_acquire(renderer, desc) != VK_NULL_HANDLE;
}

VkPipelineLayout vr_exec_pipeline_layout(struct vr_exec_ctx *ctx)
{
	return ctx->renderer->pipeline_layout;
}

/* ---- scratch images -------------------------------------------------------- */

static void scratch_free(struct vr_renderer *renderer,
		struct vr_scratch_image *scratch)
{
	VkDevice dev = renderer->device;
	free_sets(renderer, scratch->pool, 1, &scratch->scratch.set);
	vkDestroyFramebuffer(dev, scratch->scratch.framebuffer, NULL);
	vkDestroyImageView(dev, scratch->scratch.view, NULL);
	vkDestroyImage(dev, scratch->scratch.image, NULL);
	vkFreeMemory(dev, scratch->memory, NULL);
	free(scratch);
}

static struct vr_scratch_image *scratch_create(struct vr_renderer *renderer,
		int32_t width, int32_t height)
{
	struct vr_scratch_image *scratch = calloc(1, sizeof(*scratch));
	if (scratch == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	vr_list_init(&scratch->link);
	scratch->scratch.width = width;
	scratch->scratch.height = height;
	VkComponentMapping identity = { 0 };
	if (!vr_vk_create_image(renderer, width, height,
			VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
			VK_IMAGE_USAGE_SAMPLED_BIT,
			identity, &scratch->scratch.image, &scratch->memory,
			&scratch->scratch.view)) {
		free(scratch);
		return NULL;
	}
	VkFramebufferCreateInfo finfo = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
		.renderPass = renderer->offscreen_pass,
		.attachmentCount = 1,
		.pAttachments = &scratch->scratch.view,
		.width = (uint32_t)width,
		.height = (uint32_t)height,
		.layers = 1,
	};
	VkResult res = vkCreateFramebuffer(renderer->device, &finfo, NULL,
		&scratch->scratch.framebuffer);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateFramebuffer failed: %s",
			vr_vk_result_str(res));
		goto error;
	}
	if (!allocate_sets(renderer, 1, &scratch->scratch.set,
			&scratch->pool)) {
		goto error;
	}
	write_image_set(renderer, scratch->scratch.set, scratch->scratch.view,
		VR_SAMPLER_LINEAR);
	return scratch;

error:
	scratch_free(renderer, scratch);
	return NULL;
}

bool vr_exec_scratch(struct vr_exec_ctx *ctx, int32_t width, int32_t height,
		struct vr_scratch *out)
{
	struct vr_renderer *renderer = ctx->renderer;
	struct vr_resources *res = &renderer->res;
	if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
		vr_log(VR_LOG_ERROR, "invalid scratch size %dx%d", width, height);
		ctx->failed = true;
		return false;
	}
	struct vr_scratch_image *found = NULL;
	pthread_mutex_lock(&res->scratch_lock);
	vr_list_for_each(scratch, &res->scratch_free, struct vr_scratch_image,
			link) {
		if (scratch->scratch.width == width &&
				scratch->scratch.height == height) {
			found = scratch;
			vr_list_remove(&found->link);
			vr_list_insert(&res->scratch_used, &found->link);
			break;
		}
	}
	pthread_mutex_unlock(&res->scratch_lock);
	if (found == NULL) {
		found = scratch_create(renderer, width, height);
		if (found == NULL) {
			ctx->failed = true;
			return false;
		}
		atomic_fetch_add_explicit(&res->scratch_created, 1,
			memory_order_relaxed);
		pthread_mutex_lock(&res->scratch_lock);
		vr_list_insert(&res->scratch_used, &found->link);
		pthread_mutex_unlock(&res->scratch_lock);
	}
	*out = found->scratch;
	return true;
}

bool vr_resources_warm_scratch(struct vr_renderer *renderer, int32_t width,
		int32_t height, unsigned count)
{
	struct vr_resources *res = &renderer->res;
	if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
		return false;
	}
	unsigned have = 0;
	pthread_mutex_lock(&res->scratch_lock);
	vr_list_for_each(scratch, &res->scratch_free, struct vr_scratch_image,
			link) {
		have += scratch->scratch.width == width &&
			scratch->scratch.height == height;
	}
	pthread_mutex_unlock(&res->scratch_lock);
	for (; have < count; have++) {
		struct vr_scratch_image *scratch = scratch_create(renderer, width,
			height);
		if (scratch == NULL) {
			return false;
		}
		atomic_fetch_add_explicit(&res->scratch_warmed, 1,
			memory_order_relaxed);
		pthread_mutex_lock(&res->scratch_lock);
		/* idle from now on: destroyed like any unused scratch image */
		scratch->last_frame = renderer->frames;
		vr_list_insert(&res->scratch_free, &scratch->link);
		pthread_mutex_unlock(&res->scratch_lock);
	}
	return true;
}

VkRenderPass vr_exec_offscreen_pass(struct vr_exec_ctx *ctx)
{
	return ctx->renderer->offscreen_pass;
}

/* ---- execution contexts ----------------------------------------------------- */

struct vr_exec_ctx *vr_exec_ctx_create(struct vr_renderer *renderer,
		int index)
{
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

static void free_overflow(struct vr_exec_ctx *ctx)
{
	vr_list_for_each_safe(buffer, &ctx->overflow, struct vr_host_buffer,
			link) {
		vr_list_remove(&buffer->link);
		vr_vk_destroy_host_buffer(ctx->renderer, buffer);
		free(buffer);
	}
}

void vr_exec_ctx_destroy(struct vr_exec_ctx *ctx)
{
	if (ctx == NULL) {
		return;
	}
	free_overflow(ctx);
	free(ctx->staged_copies.data);
	for (int i = 0; i < VR_FRAMES_IN_FLIGHT; i++) {
		if (ctx->pools[i] != VK_NULL_HANDLE) {
			vkDestroyCommandPool(ctx->renderer->device, ctx->pools[i],
				NULL);
		}
	}
	free(ctx);
}

static bool exec_ctx_frame_begin(struct vr_exec_ctx *ctx, uint32_t slot)
{
	VkResult res = vkResetCommandPool(ctx->renderer->device,
		ctx->pools[slot], 0);
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

bool vr_exec_ctx_collect(struct vr_exec_ctx *ctx, struct vr_array *uploads,
		struct vr_array *prologues)
{
	bool ok = staged_record(ctx);
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

/* ---- frames ------------------------------------------------------------------ */

bool vr_resources_frame_begin(struct vr_renderer *renderer)
{
	struct vr_resources *res = &renderer->res;
	/* The slot's region is free (its frame retired); the others may be
	 * in use: a grown ring is a new buffer, the old one is freed with
	 * the latest pending frame. */
	uint64_t demand = atomic_load_explicit(&res->ring_head,
		memory_order_relaxed);
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

static void flush_buffer(struct vr_renderer *renderer,
		const struct vr_host_buffer *buffer)
{
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

void vr_resources_frame_flush(struct vr_renderer *renderer)
{
	flush_buffer(renderer, &renderer->res.ring);
	for (size_t i = 0; i < vr_exec_ctx_count(renderer); i++) {
		struct vr_exec_ctx *ctx = vr_exec_ctx_at(renderer, i);
		vr_list_for_each(buffer, &ctx->overflow, struct vr_host_buffer,
				link) {
			flush_buffer(renderer, buffer);
		}
	}
}

void vr_resources_defer_buffer(struct vr_renderer *renderer,
		struct vr_host_buffer *buffer)
{
	uint64_t pending = vr_frames_latest_pending(renderer);
	struct vr_host_buffer *copy = pending != 0 ?
		malloc(sizeof(*copy)) : NULL;
	if (copy == NULL) {
		/* nothing in flight (or no memory: wait for the GPU) */
		if (pending != 0) {
			vr_frames_wait_idle(renderer);
		}
		vr_vk_destroy_host_buffer(renderer, buffer);
		return;
	}
	*copy = *buffer;
	vr_list_insert(&vr_frame_slot_of(renderer, pending)->overflow,
		&copy->link);
}

void vr_resources_frame_end(struct vr_renderer *renderer,
		struct vr_frame_slot *slot)
{
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
	vr_list_for_each_safe(scratch, &res->scratch_used,
			struct vr_scratch_image, link) {
		vr_list_remove(&scratch->link);
		vr_list_insert(&slot->scratch, &scratch->link);
	}
	pthread_mutex_unlock(&res->scratch_lock);
}

void vr_resources_slot_retire(struct vr_renderer *renderer,
		struct vr_frame_slot *slot)
{
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
	vr_list_for_each_safe(scratch, &res->scratch_free,
			struct vr_scratch_image, link) {
		if (frame > scratch->last_frame &&
				frame - scratch->last_frame > SCRATCH_MAX_IDLE_FRAMES) {
			vr_list_remove(&scratch->link);
			vr_list_insert(&idle, &scratch->link);
		}
	}
	pthread_mutex_unlock(&res->scratch_lock);
	vr_list_for_each_safe(scratch, &idle, struct vr_scratch_image, link) {
		scratch_free(renderer, scratch);
	}
}

void vr_resources_collect_garbage(struct vr_renderer *renderer,
		uint64_t completed)
{
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
				atlas_cell_free(res, texture) : NULL;
			if (page != NULL) {
				empty[nempty++] = page;
			}
		}
	}
	pthread_rwlock_unlock(&res->images_lock);
	vr_list_for_each_safe(texture, &done, struct vr_texture, link) {
		texture_free(texture);
	}
	for (size_t i = 0; i < nempty; i++) {
		atlas_page_free(renderer, empty[i]);
	}
}

/* ---- managers ------------------------------------------------------------- */

bool vr_resources_init(struct vr_renderer *renderer)
{
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

void vr_resources_finish(struct vr_renderer *renderer)
{
	struct vr_resources *res = &renderer->res;
	VkDevice dev = renderer->device;
	vr_list_for_each_safe(texture, &res->garbage, struct vr_texture, link) {
		texture_free(texture);
	}
	vr_list_for_each_safe(texture, &res->textures, struct vr_texture,
			link) {
		/* the image outlives us: forget its copy */
		vr_list_remove(&texture->copy.link);
		pixman_region32_fini(&texture->copy.pending);
		texture_free(texture);
	}
	for (size_t i = 0; i < VR_ATLAS_MAX_PAGES; i++) {
		if (res->atlas_pages[i] != NULL) {
			atlas_page_free(renderer, res->atlas_pages[i]);
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
			scratch_free(renderer, scratch);
		}
	}
	vr_list_for_each_safe(pool, &res->descriptor_pools,
			struct descriptor_pool, link) {
		vkDestroyDescriptorPool(dev, pool->pool, NULL);
		vr_list_remove(&pool->link);
		free(pool);
	}
	vr_vk_destroy_host_buffer(renderer, &res->ring);
	pthread_mutex_destroy(&res->scratch_lock);
	pthread_mutex_destroy(&res->descriptors_lock);
	for (int i = 0; i < VR_READY_SHARDS; i++) {
		pthread_cond_destroy(&res->ready[i].cond);
		pthread_mutex_destroy(&res->ready[i].lock);
	}
	pthread_rwlock_destroy(&res->pipelines_lock);
	pthread_rwlock_destroy(&res->images_lock);
}

void vr_renderer_resource_stats(struct vr_renderer *renderer,
		struct vr_resource_stats *stats)
{
	vr_frame_reap(renderer, true); /* the figures of a finished frame */
	struct vr_resources *res = &renderer->res;
	*stats = (struct vr_resource_stats){
		.textures_created = atomic_load(&res->textures_created),
		.pipelines_created = atomic_load(&res->pipelines_created),
		.scratch_created = atomic_load(&res->scratch_created),
		.scratch_warmed = atomic_load(&res->scratch_warmed),
		.atlas_placed = atomic_load(&res->atlas_placed),
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
		vr_list_for_each(buffer, &slot->overflow, struct vr_host_buffer,
				link) {
			stats->held_buffers++;
		}
		stats->pending_slots += !slot->retired;
	}
}
