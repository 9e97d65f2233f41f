/*
 * What the resource managers' files share (resources.c's top comment tells
 * how they work): their limits, the texture, atlas page, pipeline and
 * scratch image records, and the functions one file calls in another.
 */
#ifndef RENDERER_VK_RESOURCES_PRIVATE_H
#define RENDERER_VK_RESOURCES_PRIVATE_H

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
#define RING_USAGE \
	(VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT | \
			VK_BUFFER_USAGE_TRANSFER_SRC_BIT)

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
	/* an external image's memory sampled in place (texture_import): no
	 * uploads, only the first transition; written before READY, with
	 * what names the import (kept by vr_res_texture_free) */
	bool imported;
	struct vr_import_key {
		dev_t dev;
		ino_t ino;
		uint32_t offset;
		int32_t stride, width, height;
		enum vr_format format;
	} import_key;
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

/* ---- the functions the files call in each other ---- */
/* resources_textures.c */
void vr_res_atlas_page_free(struct vr_renderer *renderer,
		struct vr_atlas_page *page);
struct vr_atlas_page *vr_res_atlas_cell_free(struct vr_resources *res,
		struct vr_texture *texture);
void vr_res_texture_free(struct vr_texture *texture);
/* Free the imported dma-bufs kept unused for VR_IMPORT_IDLE_FRAMES frames
 * (all: every one); the caller's thread. */
void vr_res_imports_expire(struct vr_renderer *renderer, bool all);
bool vr_res_staged_record(struct vr_exec_ctx *ctx);
/* resources_pipelines.c */
void vr_res_test_hold_creation(struct vr_resources *res);
void vr_res_scratch_free(struct vr_renderer *renderer,
		struct vr_scratch_image *scratch);
/* resources.c */
int vr_res_wait_ready(struct vr_resources *res, _Atomic int *state);
void vr_res_publish(struct vr_resources *res, _Atomic int *state, int value);
bool vr_res_allocate_sets(struct vr_renderer *renderer, uint32_t count,
		VkDescriptorSet *sets, VkDescriptorPool *out_pool);
void vr_res_free_sets(struct vr_renderer *renderer, VkDescriptorPool pool,
		uint32_t count, const VkDescriptorSet *sets);
void vr_res_write_image_set(struct vr_renderer *renderer, VkDescriptorSet set,
		VkImageView view, enum vr_sampler sampler);
void *vr_res_ring_alloc(struct vr_exec_ctx *ctx, size_t size, VkBuffer *buffer,
		VkDeviceSize *offset);
VkCommandBuffer vr_res_upload_cb(struct vr_exec_ctx *ctx);

#endif
