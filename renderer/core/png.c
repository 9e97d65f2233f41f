#include <png.h>
#include <stdlib.h>
#include <string.h>
#include "render_private.h"

bool vr_png_write(const char *path, const void *data, int32_t width,
		int32_t height, int32_t stride, bool opaque) {
	int channels = opaque ? 3 : 4;
	uint8_t *rows = malloc((size_t)width * (size_t)height * (size_t)channels);
	if (rows == NULL) {
		vr_log(VR_LOG_ERROR, "png: allocation failed");
		return false;
	}
	for (int32_t y = 0; y < height; y++) {
		const uint8_t *src = (const uint8_t *)data + (size_t)y * (size_t)stride;
		uint8_t *dst = rows + (size_t)y * (size_t)width * (size_t)channels;
		for (int32_t x = 0; x < width; x++, src += 4, dst += channels) {
			uint8_t b = src[0], g = src[1], r = src[2], a = src[3];
			if (opaque) {
				a = 255;
			} else if (a != 0 && a != 255) {
				/* un-premultiply, rounding to nearest */
				r = (uint8_t)((r * 255 + a / 2) / a > 255 ?
								255 :
								(r * 255 + a / 2) / a);
				g = (uint8_t)((g * 255 + a / 2) / a > 255 ?
								255 :
								(g * 255 + a / 2) / a);
				b = (uint8_t)((b * 255 + a / 2) / a > 255 ?
								255 :
								(b * 255 + a / 2) / a);
			} else if (a == 0) {
				r = g = b = 0;
			}
			dst[0] = r;
			dst[1] = g;
			dst[2] = b;
			if (!opaque) {
				dst[3] = a;
			}
		}
	}
	png_image image = {
		.version = PNG_IMAGE_VERSION,
		.width = (png_uint_32)width,
		.height = (png_uint_32)height,
		.format = opaque ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA,
	};
	bool ok = png_image_write_to_file(&image, path, 0, rows, width * channels,
					  NULL) != 0;
	if (!ok) {
		vr_log(VR_LOG_ERROR, "png: cannot write %s: %s", path, image.message);
	}
	free(rows);
	return ok;
}

void *vr_png_read(const char *path, int32_t *width, int32_t *height) {
	png_image image = { .version = PNG_IMAGE_VERSION };
	if (!png_image_begin_read_from_file(&image, path)) {
		vr_log(VR_LOG_ERROR, "png: cannot read %s: %s", path, image.message);
		return NULL;
	}
	image.format = PNG_FORMAT_BGRA;
	size_t size = PNG_IMAGE_SIZE(image);
	uint8_t *data = malloc(size);
	if (data == NULL) {
		vr_log(VR_LOG_ERROR, "png: allocation failed");
		png_image_free(&image);
		return NULL;
	}
	if (!png_image_finish_read(&image, NULL, data, 0, NULL)) {
		vr_log(VR_LOG_ERROR, "png: cannot decode %s: %s", path, image.message);
		free(data);
		return NULL;
	}
	for (size_t i = 0; i < size; i += 4) {
		unsigned a = data[i + 3];
		for (int c = 0; c < 3; c++) {
			data[i + c] = (uint8_t)((data[i + c] * a + 127) / 255);
		}
	}
	*width = (int32_t)image.width;
	*height = (int32_t)image.height;
	return data;
}

size_t vr_pixels_compare(const void *a, int32_t a_stride, const void *b,
		int32_t b_stride, int32_t width, int32_t height, int tolerance,
		int *max_diff) {
	size_t count = 0;
	int max = 0;
	for (int32_t y = 0; y < height; y++) {
		const uint8_t *pa = (const uint8_t *)a + (size_t)y * (size_t)a_stride;
		const uint8_t *pb = (const uint8_t *)b + (size_t)y * (size_t)b_stride;
		for (int32_t x = 0; x < width * 4; x += 4) {
			int worst = 0;
			for (int c = 0; c < 4; c++) {
				int d = abs((int)pa[x + c] - (int)pb[x + c]);
				worst = d > worst ? d : worst;
			}
			max = worst > max ? worst : max;
			if (worst > tolerance) {
				count++;
			}
		}
	}
	if (max_diff != NULL) {
		*max_diff = max;
	}
	return count;
}
