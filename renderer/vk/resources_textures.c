/*
 * The resource managers' textures: images' GPU copies and their uploads,
 * the small-image atlas and large textures (resources.c's top comment).
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "resources_private.h"

/* Imported dma-bufs kept after their textures went, at most this many,
 * and for at most this many frames unused: a client cycles through a few
 * buffers, each committed again once it was released. What is kept holds
 * the client's memory (the import's own reference), never its buffer. */
#define VR_IMPORTS_MAX 8
#define VR_IMPORT_IDLE_FRAMES 120

/* An import, kept (vr_resources::imports). */
struct vr_import {
	struct vr_list link;
	struct vr_import_key key;
	VkImage vk_image;
	VkDeviceMemory memory;
	VkImageView view;
	VkDescriptorPool pool;
	VkDescriptorSet sets[2];
	uint64_t last_frame; /* kept after this frame */
};

/* ---- textures ------------------------------------------------------------ */

/* A sampled image's GPU objects: its two sets, view, image and memory
 * (an atlas page's, a texture's, a kept import's). */
static void sampled_destroy(struct vr_renderer *renderer, VkDescriptorPool pool,
		VkDescriptorSet sets[2], VkImageView view, VkImage image,
		VkDeviceMemory memory) {
	VkDevice dev = renderer->device;
	vr_res_free_sets(renderer, pool, 2, sets);
	vkDestroyImageView(dev, view, NULL);
	vkDestroyImage(dev, image, NULL);
	vkFreeMemory(dev, memory, NULL);
}

void vr_res_atlas_page_free(struct vr_renderer *renderer,
		struct vr_atlas_page *page) {
	sampled_destroy(renderer, page->pool, page->sets, page->view,
			page->vk_image, page->memory);
	free(page);
}

/* Free an atlas texture's cell; images_lock held (write). The page, when
 * it is empty now and not the first, is returned to be freed. */
struct vr_atlas_page *vr_res_atlas_cell_free(struct vr_resources *res,
		struct vr_texture *texture) {
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

static bool import_key_equal(const struct vr_import_key *a,
		const struct vr_import_key *b) {
	return a->dev == b->dev && a->ino == b->ino && a->offset == b->offset &&
			a->stride == b->stride && a->width == b->width &&
			a->height == b->height && a->format == b->format;
}

static void import_destroy(struct vr_renderer *renderer,
		struct vr_import *import) {
	sampled_destroy(renderer, import->pool, import->sets, import->view,
			import->vk_image, import->memory);
	free(import);
}

/* Keep an imported texture's GPU objects for the next image over the same
 * memory (the frames that sampled them completed); false: not kept. */
static bool import_keep(struct vr_texture *texture) {
	struct vr_renderer *renderer = texture->renderer;
	struct vr_resources *res = &renderer->res;
	struct vr_import *import = calloc(1, sizeof(*import));
	if (import == NULL) {
		return false;
	}
	*import = (struct vr_import){
		.key = texture->import_key,
		.vk_image = texture->vk_image,
		.memory = texture->memory,
		.view = texture->view,
		.pool = texture->pool,
		.sets = { texture->sets[0], texture->sets[1] },
		.last_frame = renderer->frames,
	};
	struct vr_import *evicted = NULL;
	pthread_mutex_lock(&res->imports_lock);
	vr_list_insert(&res->imports, &import->link);
	if (++res->nimports > VR_IMPORTS_MAX) {
		evicted = vr_container_of(res->imports.prev, struct vr_import, link);
		vr_list_remove(&evicted->link);
		res->nimports--;
	}
	pthread_mutex_unlock(&res->imports_lock);
	if (evicted != NULL) {
		import_destroy(renderer, evicted);
	}
	return true;
}

void vr_res_imports_expire(struct vr_renderer *renderer, bool all) {
	struct vr_resources *res = &renderer->res;
	struct vr_list expired;
	vr_list_init(&expired);
	pthread_mutex_lock(&res->imports_lock);
	vr_list_for_each_safe(import, &res->imports, struct vr_import, link) {
		if (all ||
				renderer->frames - import->last_frame > VR_IMPORT_IDLE_FRAMES) {
			vr_list_remove(&import->link);
			vr_list_insert(&expired, &import->link);
			res->nimports--;
		}
	}
	pthread_mutex_unlock(&res->imports_lock);
	vr_list_for_each_safe(import, &expired, struct vr_import, link) {
		import_destroy(renderer, import);
	}
}

void vr_res_texture_free(struct vr_texture *texture) {
	/* an atlas cell was freed by the caller (vr_res_atlas_cell_free); a
	 * kept import's objects wait for the next image over its memory */
	if (texture->page == NULL && !(texture->imported && import_keep(texture))) {
		sampled_destroy(texture->renderer, texture->pool, texture->sets,
				texture->view, texture->vk_image, texture->memory);
	}
	vr_list_remove(&texture->link);
	/* the GPU is done with an external image's memory: its owner may
	 * have it back once nothing else holds it */
	vr_image_memory_unref(texture->copy.memory);
	free(texture);
}

/* Caller's thread, between frames (vr_image_unref). */
static void texture_handle_image_destroyed(struct vr_image_copy *copy) {
	struct vr_texture *texture = vr_container_of(copy, struct vr_texture, copy);
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

/* The memory type of an imported dma-buf that image can be bound to; -1
 * when none. */
static int import_memory_type(struct vr_renderer *renderer, int fd,
		VkImage image) {
	VkMemoryFdPropertiesKHR fd_props = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR,
	};
	VkResult res = renderer->get_memory_fd_props(renderer->device,
			VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, fd, &fd_props);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_DEBUG, "vkGetMemoryFdPropertiesKHR: %s",
				vr_vk_result_str(res));
		return -1;
	}
	VkMemoryRequirements reqs;
	vkGetImageMemoryRequirements(renderer->device, image, &reqs);
	return vr_vk_find_memory_type(renderer,
			reqs.memoryTypeBits & fd_props.memoryTypeBits, 0, 0);
}

/*
 * Sample an external image's dma-buf in place: a VkImage over the
 * imported memory, LINEAR as client_dmabuf.c takes it. With
 * VK_EXT_image_drm_format_modifier the image gets the buffer's own row
 * pitch and offset; without it, a LINEAR image whose pitch the driver
 * chose equal to the buffer's, bound at the row-0 offset. False (nothing
 * made) where the device cannot: the texture is then uploaded from the
 * image's pixels as any other.
 */
static bool texture_import(struct vr_renderer *renderer,
		struct vr_texture *texture, const struct vr_image *image,
		VkComponentMapping components) {
	VkDevice dev = renderer->device;
	const struct vr_image_memory *mem = image->external;
	struct stat st;
	off_t fd_size = lseek(mem->fd, 0, SEEK_END);
	if (fd_size <= 0 || fstat(mem->fd, &st) != 0) {
		return false;
	}
	/* the same memory imported before, the same way: its objects again
	 * (an open file's inode is its own while the import holds it) */
	texture->import_key = (struct vr_import_key){
		.dev = st.st_dev,
		.ino = st.st_ino,
		.offset = mem->offset,
		.stride = image->stride,
		.width = image->width,
		.height = image->height,
		.format = image->format,
	};
	struct vr_import *kept = NULL;
	pthread_mutex_lock(&renderer->res.imports_lock);
	vr_list_for_each(import, &renderer->res.imports, struct vr_import, link) {
		if (import_key_equal(&import->key, &texture->import_key)) {
			kept = import;
			vr_list_remove(&import->link);
			renderer->res.nimports--;
			break;
		}
	}
	pthread_mutex_unlock(&renderer->res.imports_lock);
	if (kept != NULL) {
		texture->vk_image = kept->vk_image;
		texture->memory = kept->memory;
		texture->view = kept->view;
		texture->pool = kept->pool;
		texture->sets[0] = kept->sets[0];
		texture->sets[1] = kept->sets[1];
		texture->imported = true;
		free(kept);
		atomic_fetch_add_explicit(&renderer->res.dmabuf_imports, 1,
				memory_order_relaxed);
		atomic_fetch_add_explicit(&renderer->res.dmabuf_reuses, 1,
				memory_order_relaxed);
		return true;
	}
	VkExternalMemoryImageCreateInfo external = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	VkSubresourceLayout plane = {
		.offset = mem->offset,
		.rowPitch = (VkDeviceSize)image->stride,
	};
	VkImageDrmFormatModifierExplicitCreateInfoEXT explicit_layout = {
		.sType =
				VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_EXPLICIT_CREATE_INFO_EXT,
		.drmFormatModifier = 0, /* DRM_FORMAT_MOD_LINEAR */
		.drmFormatModifierPlaneCount = 1,
		.pPlaneLayouts = &plane,
	};
	if (renderer->has_drm_modifiers) {
		external.pNext = &explicit_layout;
	}
	VkImageCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.pNext = &external,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_B8G8R8A8_UNORM,
		.extent = { (uint32_t)image->width, (uint32_t)image->height, 1 },
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = renderer->has_drm_modifiers ?
				VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT :
				VK_IMAGE_TILING_LINEAR,
		.usage = VK_IMAGE_USAGE_SAMPLED_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	VkImage vk_image = VK_NULL_HANDLE;
	VkDeviceMemory memory = VK_NULL_HANDLE;
	VkImageView view = VK_NULL_HANDLE;
	int fd = -1;
	const char *why = "vkCreateImage";
	if (vkCreateImage(dev, &info, NULL, &vk_image) != VK_SUCCESS) {
		goto error;
	}
	VkDeviceSize bind_offset = 0;
	VkMemoryRequirements reqs;
	vkGetImageMemoryRequirements(dev, vk_image, &reqs);
	if (!renderer->has_drm_modifiers) {
		VkImageSubresource sub = { .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT };
		VkSubresourceLayout layout;
		vkGetImageSubresourceLayout(dev, vk_image, &sub, &layout);
		why = "the driver's LINEAR layout differs from the buffer's";
		if (layout.rowPitch != (VkDeviceSize)image->stride ||
				layout.offset != 0 || reqs.alignment == 0 ||
				mem->offset % reqs.alignment != 0) {
			goto error;
		}
		bind_offset = mem->offset;
	}
	why = "the buffer is smaller than the image";
	if ((VkDeviceSize)fd_size < bind_offset + reqs.size) {
		goto error;
	}
	why = "no memory type";
	int type = import_memory_type(renderer, mem->fd, vk_image);
	if (type < 0) {
		goto error;
	}
	why = "dup";
	fd = fcntl(mem->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		goto error;
	}
	VkMemoryDedicatedAllocateInfo dedicated = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
		.image = vk_image,
	};
	VkImportMemoryFdInfoKHR import = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
		/* dedicated only where the image starts at the memory's start */
		.pNext = bind_offset == 0 ? &dedicated : NULL,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
		.fd = fd,
	};
	VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &import,
		.allocationSize = (VkDeviceSize)fd_size,
		.memoryTypeIndex = (uint32_t)type,
	};
	why = "vkAllocateMemory (import)";
	if (vkAllocateMemory(dev, &alloc, NULL, &memory) != VK_SUCCESS) {
		goto error;
	}
	fd = -1; /* the memory's now */
	why = "vkBindImageMemory";
	if (vkBindImageMemory(dev, vk_image, memory, bind_offset) != VK_SUCCESS) {
		goto error;
	}
	why = "vkCreateImageView";
	if (!vr_vk_create_view(renderer, vk_image, components, &view)) {
		goto error;
	}
	texture->vk_image = vk_image;
	texture->memory = memory;
	texture->view = view;
	texture->imported = true;
	atomic_fetch_add_explicit(&renderer->res.dmabuf_imports, 1,
			memory_order_relaxed);
	return true;

error:
	vr_log(VR_LOG_DEBUG,
			"dma-buf %dx%d stride %d offset %u not imported (%s): "
			"uploaded instead",
			image->width, image->height, image->stride, mem->offset, why);
	if (fd >= 0) {
		close(fd);
	}
	vkFreeMemory(dev, memory, NULL);
	vkDestroyImage(dev, vk_image, NULL);
	return false;
}

/* Create the GPU objects of a PREPARING texture (no lock held). */
static bool texture_init_gpu(struct vr_renderer *renderer,
		struct vr_texture *texture, const struct vr_image *image) {
	enum vr_format format = image->format;
	VkComponentMapping components = {
		.r = VK_COMPONENT_SWIZZLE_IDENTITY,
		.g = VK_COMPONENT_SWIZZLE_IDENTITY,
		.b = VK_COMPONENT_SWIZZLE_IDENTITY,
		.a = format == VR_FORMAT_XRGB8888 ? VK_COMPONENT_SWIZZLE_ONE :
											VK_COMPONENT_SWIZZLE_IDENTITY,
	};
	bool imported = image->external != NULL && image->external->fd >= 0 &&
			renderer->has_dmabuf_import &&
			texture_import(renderer, texture, image, components);
	if (imported && texture->pool != VK_NULL_HANDLE) {
		return true; /* a kept import: its sets too */
	}
	if (!imported &&
			!vr_vk_create_image(renderer, texture->width, texture->height,
					VK_IMAGE_USAGE_SAMPLED_BIT |
							VK_IMAGE_USAGE_TRANSFER_DST_BIT,
					components, &texture->vk_image, &texture->memory,
					&texture->view)) {
		return false;
	}
	if (!vr_res_allocate_sets(renderer, 2, texture->sets, &texture->pool)) {
		return false; /* vr_res_texture_free releases the image */
	}
	for (int i = 0; i < 2; i++) {
		vr_res_write_image_set(renderer, texture->sets[i], texture->view,
				(enum vr_sampler)i);
	}
	return true;
}

/* A texture of image's own in state (TEXTURE_NEW or PREPARING), linked
 * to the image; images_lock held (write). NULL: out of memory. */
static struct vr_texture *texture_insert(struct vr_renderer *renderer,
		struct vr_image *image, int state) {
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
		struct vr_image *image) {
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
			texture = texture_insert(renderer, image, VR_RESOURCE_PREPARING);
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
		creator = atomic_compare_exchange_strong_explicit(&texture->state,
				&expected, VR_RESOURCE_PREPARING, memory_order_acq_rel,
				memory_order_acquire);
	}
	if (creator) {
		bool ok = texture_init_gpu(renderer, texture, image);
		atomic_fetch_add_explicit(&res->textures_created, 1,
				memory_order_relaxed);
		vr_res_publish(res, &texture->state,
				ok ? VR_RESOURCE_READY : VR_RESOURCE_FAILED);
	}
	if (vr_res_wait_ready(res, &texture->state) != VR_RESOURCE_READY) {
		return NULL;
	}
	return texture;
}

/* Record the upload of what was written since the last one into this
 * context's upload command buffer. */
static bool texture_upload(struct vr_exec_ctx *ctx,
		struct vr_texture *texture) {
	pixman_region32_t *pending = &texture->copy.pending;
	int nrects;
	const pixman_box32_t *boxes = pixman_region32_rectangles(pending, &nrects);
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
	uint8_t *dst = vr_res_ring_alloc(ctx, (size_t)total, &buffer, &offset);
	VkCommandBuffer cb = vr_res_upload_cb(ctx);
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
					(size_t)(boxes[i].y1 + (int32_t)y) * (size_t)image->stride +
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

static uint32_t atlas_cell_size(const struct vr_image *image) {
	int32_t side = image->width > image->height ? image->width : image->height;
	uint32_t cell = ATLAS_MIN_CELL;
	while (cell < (uint32_t)side + 2 * ATLAS_BORDER) {
		cell *= 2;
	}
	return cell;
}

/* A free cell of `size` in page: block and cell; images_lock held. */
static bool atlas_page_take(struct vr_atlas_page *page, uint32_t size,
		uint32_t *block, uint32_t *cell) {
	uint32_t per_block = (ATLAS_BLOCK / size) * (ATLAS_BLOCK / size);
	uint64_t full =
			per_block == 64 ? UINT64_MAX : (UINT64_C(1) << per_block) - 1;
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
static const void *atlas_owner(struct vr_renderer *renderer) {
	return &renderer->res.atlas_pages;
}

bool vr_resources_atlas_place(struct vr_renderer *renderer,
		struct vr_image *image, bool nearest, struct vr_atlas_place *out) {
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
	if (image->width > VR_ATLAS_MAX_SIDE || image->height > VR_ATLAS_MAX_SIDE ||
			image == renderer->white ||
			(image->external != NULL && image->external->fd >= 0 &&
					renderer->has_dmabuf_import)) {
		return false;
	}
	struct vr_resources *res = &renderer->res;
	struct vr_texture *texture = NULL;
	pthread_rwlock_wrlock(&res->images_lock);
	struct vr_image_copy *copy =
			vr_image_find_copy(image, atlas_owner(renderer));
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
							   (cell % per_row) * size) +
			ATLAS_BORDER;
	texture->atlas_y = (int32_t)((block / ATLAS_SIDE_BLOCKS) * ATLAS_BLOCK +
							   (cell / per_row) * size) +
			ATLAS_BORDER;
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
		struct vr_atlas_page *page) {
	struct vr_resources *res = &renderer->res;
	int expected = ATLAS_PAGE_NEW;
	if (atomic_compare_exchange_strong_explicit(&page->state, &expected,
				VR_RESOURCE_PREPARING, memory_order_acq_rel,
				memory_order_acquire)) {
		VkComponentMapping identity = { 0 };
		bool ok = vr_vk_create_image(renderer, VR_ATLAS_PAGE_SIZE,
						  VR_ATLAS_PAGE_SIZE,
						  VK_IMAGE_USAGE_SAMPLED_BIT |
								  VK_IMAGE_USAGE_TRANSFER_DST_BIT,
						  identity, &page->vk_image, &page->memory,
						  &page->view) &&
				vr_res_allocate_sets(renderer, 2, page->sets, &page->pool);
		for (int i = 0; ok && i < 2; i++) {
			vr_res_write_image_set(renderer, page->sets[i], page->view,
					(enum vr_sampler)i);
		}
		atomic_fetch_add_explicit(&res->textures_created, 1,
				memory_order_relaxed);
		vr_res_publish(res, &page->state,
				ok ? VR_RESOURCE_READY : VR_RESOURCE_FAILED);
	}
	return vr_res_wait_ready(res, &page->state) == VR_RESOURCE_READY;
}

/* Copy an atlas image with its border into the frame's ring and note the
 * copy for vr_exec_ctx_collect. Small (at most 64 x 64 texels): always
 * the whole cell. */
static bool atlas_upload(struct vr_exec_ctx *ctx, struct vr_texture *texture) {
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
	uint32_t *dst =
			vr_res_ring_alloc(ctx, (size_t)cw * ch * 4, &buffer, &offset);
	if (dst == NULL) {
		return false;
	}
	/* XRGB: the alpha byte is undefined; the page has no swizzle */
	uint32_t alpha = image->format == VR_FORMAT_XRGB8888 ? 0xff000000u : 0;
	for (uint32_t y = 0; y < ch; y++) {
		int32_t sy = (int32_t)y - ATLAS_BORDER;
		sy = sy < 0 ? 0 : sy >= h ? h - 1 : sy;
		const uint32_t *src =
				image->data + (size_t)sy * (size_t)(image->stride / 4);
		uint32_t *row = dst + (size_t)y * cw;
		row[0] = src[0] | alpha;
		for (int32_t x = 0; x < w; x++) {
			row[ATLAS_BORDER + x] = src[x] | alpha;
		}
		row[cw - 1] = src[w - 1] | alpha;
	}
	struct vr_staged_copy *copy =
			(struct vr_staged_copy *)ctx->staged_copies.data +
			ctx->staged_copies.len++;
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
bool vr_res_staged_record(struct vr_exec_ctx *ctx) {
	struct vr_array *copies = &ctx->staged_copies;
	if (copies->len == 0) {
		return true;
	}
	VkCommandBuffer cb = vr_res_upload_cb(ctx);
	if (cb == VK_NULL_HANDLE) {
		copies->len = 0;
		return false;
	}
	VkBufferImageCopy regions[64];
	for (size_t i = 0; i < copies->len; i++) {
		struct vr_staged_copy *head = (struct vr_staged_copy *)copies->data + i;
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
			struct vr_staged_copy *c =
					(struct vr_staged_copy *)copies->data + j;
			if (c->layout != layout) {
				continue;
			}
			if (n > 0 &&
					(c->buffer != buffer ||
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
		vr_vk_image_barrier(cb, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
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

static bool texture_is_large(const struct vr_texture *texture) {
	return texture->page == NULL &&
			(int64_t)texture->width * texture->height > LARGE_TEXELS;
}

/* Stage the pending texels inside `texels` (image pixels; NULL: all) and
 * note their copies for the commit thread. */
static bool large_upload(struct vr_exec_ctx *ctx, struct vr_texture *texture,
		const struct vr_box *texels) {
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
		const pixman_box32_t *e =
				pixman_region32_extents(&texture->copy.pending);
		pixman_region32_reset(&take,
				&(pixman_box32_t){ e->x1, e->y1, e->x1 + 1, e->y1 + 1 });
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
		uint8_t *dst = vr_res_ring_alloc(ctx, len * h, &buffer, &offset);
		if (dst == NULL) {
			ok = false;
			break;
		}
		for (uint32_t y = 0; y < h; y++) {
			const uint8_t *src = (const uint8_t *)image->data +
					(size_t)(boxes[i].y1 + (int32_t)y) * (size_t)image->stride +
					(size_t)boxes[i].x1 * 4;
			memcpy(dst + (size_t)y * len, src, len);
		}
		struct vr_staged_copy *copy =
				(struct vr_staged_copy *)ctx->staged_copies.data +
				ctx->staged_copies.len++;
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
		pixman_region32_union(&texture->copy.pending, &texture->copy.pending,
				&take);
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

/* An imported texture's first use: its transition, recorded by the
 * frame's uploader into its upload command buffer (submitted before any
 * draw of the frame). The memory is the client's: nothing to copy, and
 * an external image's pixels never change (a new commit is a new image). */
static bool imported_acquire(struct vr_exec_ctx *ctx,
		struct vr_texture *texture) {
	uint64_t frame = ctx->renderer->frame.number;
	uint64_t seen =
			atomic_load_explicit(&texture->upload_frame, memory_order_acquire);
	if (seen == frame ||
			!atomic_compare_exchange_strong_explicit(&texture->upload_frame,
					&seen, frame, memory_order_acq_rel, memory_order_acquire) ||
			!pixman_region32_not_empty(&texture->copy.pending)) {
		return true;
	}
	VkCommandBuffer cb = vr_res_upload_cb(ctx);
	if (cb == VK_NULL_HANDLE) {
		ctx->failed = true;
		return false;
	}
	/* LINEAR: the transition keeps the texels (no compression to undo) */
	vr_vk_image_barrier(cb, texture->vk_image, VK_IMAGE_LAYOUT_UNDEFINED,
			VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
			VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
			VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
	texture->layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
	pixman_region32_clear(&texture->copy.pending);
	return true;
}

VkDescriptorSet vr_exec_image(struct vr_exec_ctx *ctx, struct vr_image *image,
		bool linear, const struct vr_box *texels) {
	struct vr_texture *texture = texture_acquire(ctx->renderer, image);
	if (texture == NULL) {
		ctx->failed = true;
		return VK_NULL_HANDLE;
	}
	if (texture->imported) {
		return imported_acquire(ctx, texture) ?
				texture->sets[linear ? VR_SAMPLER_LINEAR : VR_SAMPLER_NEAREST] :
				VK_NULL_HANDLE;
	}
	if (texture_is_large(texture)) {
		if (!large_upload(ctx, texture, texels)) {
			ctx->failed = true;
			return VK_NULL_HANDLE;
		}
		return texture->sets[linear ? VR_SAMPLER_LINEAR : VR_SAMPLER_NEAREST];
	}
	/* One thread per frame claims the upload of what was written since
	 * the last; its upload command buffer is submitted before any draw
	 * of the frame, so the others need not wait for it. */
	uint64_t frame = ctx->renderer->frame.number;
	uint64_t seen =
			atomic_load_explicit(&texture->upload_frame, memory_order_acquire);
	if (seen != frame &&
			atomic_compare_exchange_strong_explicit(&texture->upload_frame,
					&seen, frame, memory_order_acq_rel, memory_order_acquire)) {
		if (pixman_region32_not_empty(&texture->copy.pending) &&
				!texture_upload(ctx, texture)) {
			ctx->failed = true;
			return VK_NULL_HANDLE;
		}
	}
	return texture->sets[linear ? VR_SAMPLER_LINEAR : VR_SAMPLER_NEAREST];
}

VkDescriptorSet vr_exec_atlas_image(struct vr_exec_ctx *ctx,
		struct vr_image *image) {
	struct vr_renderer *renderer = ctx->renderer;
	struct vr_resources *res = &renderer->res;
	/* placed by preparation (vr_resources_atlas_place); the image is
	 * pinned, so its copies change only under images_lock */
	pthread_rwlock_rdlock(&res->images_lock);
	struct vr_image_copy *copy =
			vr_image_find_copy(image, atlas_owner(renderer));
	pthread_rwlock_unlock(&res->images_lock);
	if (copy == NULL) {
		vr_log(VR_LOG_ERROR, "image not in the atlas");
		ctx->failed = true;
		return VK_NULL_HANDLE;
	}
	struct vr_texture *texture = vr_container_of(copy, struct vr_texture, copy);
	{
		if (!atlas_page_acquire(ctx->renderer, texture->page)) {
			ctx->failed = true;
			return VK_NULL_HANDLE;
		}
		uint64_t frame = ctx->renderer->frame.number;
		uint64_t seen = atomic_load_explicit(&texture->upload_frame,
				memory_order_acquire);
		if (seen != frame &&
				atomic_compare_exchange_strong_explicit(&texture->upload_frame,
						&seen, frame, memory_order_acq_rel,
						memory_order_acquire) &&
				pixman_region32_not_empty(&texture->copy.pending) &&
				!atlas_upload(ctx, texture)) {
			ctx->failed = true;
			return VK_NULL_HANDLE;
		}
		return texture->page->sets[VR_SAMPLER_NEAREST];
	}
}

VkDescriptorSet vr_exec_white(struct vr_exec_ctx *ctx) {
	return vr_exec_image(ctx, ctx->renderer->white, false, NULL);
}
