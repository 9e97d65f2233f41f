#define _GNU_SOURCE /* MAP_ANONYMOUS, madvise, F_DUPFD_CLOEXEC */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "render_private.h"

/*
 * Pixel stores of at least PIXELS_MAP_BYTES are mappings of their own, so
 * that freeing one gives the memory back at once (malloc's heap might
 * keep it). Those of at least PIXELS_HUGE_BYTES ask for transparent huge
 * pages (madvise): filling a fresh store costs its page faults, and on
 * the 2-core VM that runs CI a 4 KiB fault costs about 12 us; copying 64
 * MiB into fresh memory measured 240 ms with 4 KiB pages, 49 ms with huge
 * pages. Smaller ones do without: with huge pages, a 2560x1440 client
 * redrawing every frame was shown a refresh later on that machine (its
 * uploads' staging copies got slower), without them as before.
 */
#define PIXELS_MAP_BYTES ((size_t)2 << 20)
#define PIXELS_HUGE_BYTES ((size_t)64 << 20)

/* A pixel store of size bytes, zeroed when zero is set; NULL when out
 * of memory. */
static uint32_t *pixels_alloc(size_t size, bool zero) {
	if (size < PIXELS_MAP_BYTES) {
		return zero ? calloc(1, size) : malloc(size);
	}
	void *map = mmap(NULL, size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		return NULL;
	}
#ifdef MADV_HUGEPAGE
	if (size >= PIXELS_HUGE_BYTES) {
		madvise(map, size, MADV_HUGEPAGE); /* a hint: failure is fine */
	}
#endif
	return map;
}

static void pixels_free(uint32_t *pixels, size_t size) {
	if (pixels == NULL) {
		return;
	}
	if (size < PIXELS_MAP_BYTES) {
		free(pixels);
	} else {
		munmap(pixels, size);
	}
}

static size_t image_size(const struct vr_image *image) {
	return (size_t)image->height * (size_t)image->stride;
}

struct vr_image *vr_image_create(int32_t width, int32_t height,
		enum vr_format format) {
	if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
		vr_log(VR_LOG_ERROR, "invalid image size %dx%d", width, height);
		return NULL;
	}
	if (format != VR_FORMAT_ARGB8888 && format != VR_FORMAT_XRGB8888) {
		vr_log(VR_LOG_ERROR, "invalid image format %d", (int)format);
		return NULL;
	}
	struct vr_image *image = calloc(1, sizeof(*image));
	if (image == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	image->refs = 1;
	image->width = width;
	image->height = height;
	image->stride = width * 4;
	image->format = format;
	image->data = pixels_alloc(image_size(image), true);
	if (image->data == NULL) {
		vr_log(VR_LOG_ERROR, "allocation of %dx%d pixels failed", width,
				height);
		free(image);
		return NULL;
	}
	pixman_region32_init(&image->deferred);
	vr_list_init(&image->copies);
	return image;
}

struct vr_image *vr_image_create_external(int32_t width, int32_t height,
		enum vr_format format, const struct vr_image_source *source) {
	if (width <= 0 || height <= 0 || width > 16384 || height > 16384 ||
			(format != VR_FORMAT_ARGB8888 && format != VR_FORMAT_XRGB8888)) {
		vr_log(VR_LOG_ERROR, "invalid external image %dx%d format %d", width,
				height, (int)format);
		return NULL;
	}
	if (source->pixels == NULL || (uintptr_t)source->pixels % 4 != 0 ||
			source->stride % 4 != 0 || source->stride < width * 4) {
		vr_log(VR_LOG_ERROR,
				"external image: pixels not 4-byte aligned or stride %d "
				"not a multiple of 4 of at least %d x 4",
				source->stride, width);
		return NULL;
	}
	struct vr_image *image = calloc(1, sizeof(*image));
	struct vr_image_memory *memory = calloc(1, sizeof(*memory));
	int fd = source->fd >= 0 ? fcntl(source->fd, F_DUPFD_CLOEXEC, 0) : -1;
	if (image == NULL || memory == NULL || (source->fd >= 0 && fd < 0)) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		if (fd >= 0) {
			close(fd);
		}
		free(memory);
		free(image);
		return NULL;
	}
	atomic_init(&memory->refs, 1);
	memory->fd = fd;
	memory->offset = source->offset;
	memory->release = source->release;
	memory->data = source->data;
	image->refs = 1;
	image->width = width;
	image->height = height;
	image->stride = source->stride;
	image->format = format;
	image->data = (uint32_t *)source->pixels;
	image->external = memory;
	pixman_region32_init(&image->deferred);
	vr_list_init(&image->copies);
	return image;
}

bool vr_image_external(const struct vr_image *image) {
	return image->external != NULL;
}

struct vr_image_memory *vr_image_memory_ref(struct vr_image_memory *memory) {
	atomic_fetch_add_explicit(&memory->refs, 1, memory_order_relaxed);
	return memory;
}

void vr_image_memory_unref(struct vr_image_memory *memory) {
	if (memory == NULL ||
			atomic_fetch_sub_explicit(&memory->refs, 1, memory_order_acq_rel) >
					1) {
		return;
	}
	if (memory->fd >= 0) {
		close(memory->fd);
	}
	if (memory->release != NULL) {
		memory->release(memory->data);
	}
	free(memory);
}

struct vr_image *vr_image_ref(struct vr_image *image) {
	image->refs++;
	return image;
}

void vr_image_unref(struct vr_image *image) {
	if (image == NULL || --image->refs > 0) {
		return;
	}
	vr_list_for_each_safe(copy, &image->copies, struct vr_image_copy, link) {
		vr_list_remove(&copy->link);
		if (image->external != NULL) {
			copy->memory = vr_image_memory_ref(image->external);
		}
		copy->image_destroyed(copy);
	}
	pixman_region32_fini(&image->deferred);
	if (image->external != NULL) {
		vr_image_memory_unref(image->external);
		free(image);
		return;
	}
	/* next is NULL: pins hold references */
	pixels_free(image->next, image_size(image));
	pixels_free(image->spare, image_size(image));
	pixels_free(image->data, image_size(image));
	free(image);
}

void vr_image_pin(struct vr_image *image) {
	image->refs++;
	image->pins++;
}

void vr_image_unpin(struct vr_image *image) {
	if (--image->pins == 0 && image->next != NULL) {
		/* no CPU stage reads the old pixels any more: kept for the
		 * next copy-on-write (a client redrawing at every frame while
		 * frames are in flight writes into pages already there, not
		 * into a fresh mapping's page faults) */
		if (image->spare == NULL) {
			image->spare = image->data;
		} else {
			pixels_free(image->data, image_size(image));
		}
		image->data = image->next;
		image->next = NULL;
		vr_list_for_each(copy, &image->copies, struct vr_image_copy, link) {
			pixman_region32_union(&copy->pending, &copy->pending,
					&image->deferred);
		}
		pixman_region32_clear(&image->deferred);
	}
	vr_image_unref(image);
}

/* Copy `clipped` (image pixels, inside the image; finished here) in:
 * pixel (x, y) is at data + (y - oy) * stride + (x - ox) * 4. */
static bool image_write(struct vr_image *image, const void *data,
		int32_t stride, int32_t ox, int32_t oy, pixman_region32_t *clipped) {
	/* Pinned: a frame's workers may still upload from data; write into
	 * a copy, published when the last pin goes. */
	uint32_t *pixels = image->data;
	if (image->pins > 0) {
		if (image->next == NULL || image->next_hold != NULL) {
			/* a new store: data, or next that frames hold, stays as
			 * their frames read it */
			size_t size = image_size(image);
			const uint32_t *newest =
					image->next != NULL ? image->next : image->data;
			uint32_t *store = image->spare != NULL ? image->spare :
													 pixels_alloc(size, false);
			image->spare = NULL;
			if (store == NULL) {
				vr_log(VR_LOG_ERROR, "allocation of %dx%d pixels failed",
						image->width, image->height);
				pixman_region32_fini(clipped);
				return false;
			}
			const pixman_box32_t *ext = pixman_region32_extents(clipped);
			bool whole = pixman_region32_n_rects(clipped) == 1 &&
					ext->x1 == 0 && ext->y1 == 0 && ext->x2 == image->width &&
					ext->y2 == image->height;
			if (!whole) {
				memcpy(store, newest, size);
			}
			if (image->next_hold != NULL) {
				/* the held store is the hold's now */
				image->next_hold->image = NULL;
				image->next_hold = NULL;
			}
			image->next = store;
		}
		pixels = image->next;
	}
	int nrects;
	const pixman_box32_t *rects = pixman_region32_rectangles(clipped, &nrects);
	for (int i = 0; i < nrects; i++) {
		size_t len = (size_t)(rects[i].x2 - rects[i].x1) * 4;
		for (int32_t y = rects[i].y1; y < rects[i].y2; y++) {
			const uint8_t *src = (const uint8_t *)data +
					(size_t)(y - oy) * (size_t)stride +
					(size_t)(rects[i].x1 - ox) * 4;
			uint8_t *dst = (uint8_t *)pixels +
					(size_t)y * (size_t)image->stride + (size_t)rects[i].x1 * 4;
			memcpy(dst, src, len);
		}
	}
	if (image->pins > 0) {
		pixman_region32_union(&image->deferred, &image->deferred, clipped);
	} else {
		vr_list_for_each(copy, &image->copies, struct vr_image_copy, link) {
			pixman_region32_union(&copy->pending, &copy->pending, clipped);
		}
	}
	pixman_region32_fini(clipped);
	return true;
}

/* An external image's pixels are its source's to change. */
static bool image_writable(const struct vr_image *image) {
	if (image->external != NULL) {
		vr_log(VR_LOG_ERROR, "image write: the image's pixels are external");
		return false;
	}
	return true;
}

bool vr_image_write(struct vr_image *image, const void *data, int32_t stride,
		const pixman_region32_t *region) {
	if (!image_writable(image)) {
		return false;
	}
	if (stride < image->width * 4) {
		/* rows would overlap, or reach past the caller's memory */
		vr_log(VR_LOG_ERROR,
				"image write: stride %d is less than %d x 4 "
				"bytes",
				stride, image->width);
		return false;
	}
	pixman_region32_t clipped;
	pixman_region32_init_rect(&clipped, 0, 0, (unsigned)image->width,
			(unsigned)image->height);
	if (region != NULL) {
		pixman_region32_intersect(&clipped, &clipped,
				(pixman_region32_t *)region);
	}
	return image_write(image, data, stride, 0, 0, &clipped);
}

bool vr_image_write_box(struct vr_image *image, const void *data,
		int32_t stride, const struct vr_box *box) {
	if (box->width <= 0 || box->height <= 0) {
		return true;
	}
	if (!image_writable(image)) {
		return false;
	}
	if (stride < box->width * 4) {
		vr_log(VR_LOG_ERROR,
				"image write: stride %d is less than %d x 4 "
				"bytes",
				stride, box->width);
		return false;
	}
	pixman_region32_t clipped;
	pixman_region32_init_rect(&clipped, 0, 0, (unsigned)image->width,
			(unsigned)image->height);
	pixman_region32_intersect_rect(&clipped, &clipped, box->x, box->y,
			(unsigned)box->width, (unsigned)box->height);
	return image_write(image, data, stride, box->x, box->y, &clipped);
}

bool vr_image_in_use(const struct vr_image *image) {
	return image->pins > 0;
}

bool vr_image_shared(const struct vr_image *image) {
	return image->refs > 1;
}

int32_t vr_image_width(const struct vr_image *image) {
	return image->width;
}

int32_t vr_image_height(const struct vr_image *image) {
	return image->height;
}

enum vr_format vr_image_format(const struct vr_image *image) {
	return image->format;
}

const void *vr_image_data(const struct vr_image *image, int32_t *stride) {
	if (stride != NULL) {
		*stride = image->stride;
	}
	return image->next != NULL ? image->next : image->data;
}

void vr_image_add_copy(struct vr_image *image, struct vr_image_copy *copy) {
	pixman_region32_init_rect(&copy->pending, 0, 0, (unsigned)image->width,
			(unsigned)image->height);
	vr_list_insert(&image->copies, &copy->link);
}

struct vr_image_copy *vr_image_find_copy(struct vr_image *image,
		const void *owner) {
	vr_list_for_each(copy, &image->copies, struct vr_image_copy, link) {
		if (copy->owner == owner) {
			return copy;
		}
	}
	return NULL;
}

/* Tells frames apart in vr_image::hold_epoch and vr_display_list::hold_epoch
 * (every renderer's, of either engine) */
static _Atomic uint64_t hold_epochs;

uint64_t vr_hold_epoch_next(void) {
	return atomic_fetch_add(&hold_epochs, 1) + 1;
}

bool vr_image_write_pending(const struct vr_image *image) {
	return image->next != NULL;
}

struct vr_pixels_hold *vr_image_hold_next(struct vr_image *image) {
	if (image->next_hold == NULL) {
		struct vr_pixels_hold *hold = calloc(1, sizeof(*hold));
		if (hold == NULL) {
			return NULL;
		}
		hold->px = image->next;
		hold->size = image_size(image);
		hold->image = image;
		image->next_hold = hold;
	}
	image->next_hold->refs++;
	return image->next_hold;
}

void vr_pixels_hold_release(struct vr_pixels_hold *hold) {
	if (--hold->refs > 0) {
		return;
	}
	if (hold->image != NULL) {
		/* still the image's next: it stays there */
		hold->image->next_hold = NULL;
	} else {
		pixels_free(hold->px, hold->size);
	}
	free(hold);
}
