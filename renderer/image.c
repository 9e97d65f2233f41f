#include <stdlib.h>
#include <string.h>
#include "render_private.h"

struct vr_image *vr_image_create(int32_t width, int32_t height,
		enum vr_format format)
{
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
	image->data = calloc((size_t)height, (size_t)image->stride);
	if (image->data == NULL) {
		vr_log(VR_LOG_ERROR, "allocation of %dx%d pixels failed",
			width, height);
		free(image);
		return NULL;
	}
	vr_list_init(&image->copies);
	return image;
}

struct vr_image *vr_image_ref(struct vr_image *image)
{
	image->refs++;
	return image;
}

void vr_image_unref(struct vr_image *image)
{
	if (image == NULL || --image->refs > 0) {
		return;
	}
	vr_list_for_each_safe(copy, &image->copies, struct vr_image_copy,
			link) {
		vr_list_remove(&copy->link);
		copy->image_destroyed(copy);
	}
	free(image->data);
	free(image);
}

bool vr_image_write(struct vr_image *image, const void *data, int32_t stride,
		const pixman_region32_t *region)
{
	if (stride < image->width * 4) {
		/* rows would overlap, or reach past the caller's memory */
		vr_log(VR_LOG_ERROR, "image write: stride %d is less than %d x 4 "
			"bytes", stride, image->width);
		return false;
	}
	pixman_region32_t clipped;
	pixman_region32_init_rect(&clipped, 0, 0, (unsigned)image->width,
		(unsigned)image->height);
	if (region != NULL) {
		pixman_region32_intersect(&clipped, &clipped,
			(pixman_region32_t *)region);
	}
	int nrects;
	const pixman_box32_t *rects = pixman_region32_rectangles(&clipped,
		&nrects);
	for (int i = 0; i < nrects; i++) {
		size_t len = (size_t)(rects[i].x2 - rects[i].x1) * 4;
		for (int32_t y = rects[i].y1; y < rects[i].y2; y++) {
			const uint8_t *src = (const uint8_t *)data +
				(size_t)y * (size_t)stride + (size_t)rects[i].x1 * 4;
			uint8_t *dst = (uint8_t *)image->data +
				(size_t)y * (size_t)image->stride +
				(size_t)rects[i].x1 * 4;
			memcpy(dst, src, len);
		}
	}
	vr_list_for_each(copy, &image->copies, struct vr_image_copy, link) {
		pixman_region32_union(&copy->pending, &copy->pending, &clipped);
	}
	pixman_region32_fini(&clipped);
	return true;
}

int32_t vr_image_width(const struct vr_image *image)
{
	return image->width;
}

int32_t vr_image_height(const struct vr_image *image)
{
	return image->height;
}

enum vr_format vr_image_format(const struct vr_image *image)
{
	return image->format;
}

const void *vr_image_data(const struct vr_image *image, int32_t *stride)
{
	if (stride != NULL) {
		*stride = image->stride;
	}
	return image->data;
}

void vr_image_add_copy(struct vr_image *image, struct vr_image_copy *copy)
{
	pixman_region32_init_rect(&copy->pending, 0, 0,
		(unsigned)image->width, (unsigned)image->height);
	vr_list_insert(&image->copies, &copy->link);
}

struct vr_image_copy *vr_image_find_copy(struct vr_image *image,
		const void *owner)
{
	vr_list_for_each(copy, &image->copies, struct vr_image_copy, link) {
		if (copy->owner == owner) {
			return copy;
		}
	}
	return NULL;
}
