/*
 * Images for the benchmark: PNG (vr_png_read) and JPEG (libjpeg-turbo)
 * files decoded into BGRA8 premultiplied pixels, and procedural images.
 */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jpeglib.h>
#include "scene.h"

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- JPEG --------------------------------------------------------------- */

struct jpeg_error {
	struct jpeg_error_mgr mgr;
	jmp_buf jump;
};

static void jpeg_handle_error(j_common_ptr cinfo) {
	struct jpeg_error *err = (struct jpeg_error *)(void *)cinfo->err;
	longjmp(err->jump, 1);
}

static void jpeg_handle_message(j_common_ptr cinfo) {
	/* corrupt-data warnings: the image is still usable */
}

/* Adobe CMYK JPEGs store inverted values: r = c * k / 255. */
static void cmyk_to_bgra(uint8_t *pixels, size_t count) {
	for (size_t i = 0; i < count; i++) {
		uint8_t *p = pixels + 4 * i;
		unsigned c = p[0], m = p[1], y = p[2], k = p[3];
		p[0] = (uint8_t)(y * k / 255);
		p[1] = (uint8_t)(m * k / 255);
		p[2] = (uint8_t)(c * k / 255);
		p[3] = 255;
	}
}

static uint8_t *decode_jpeg(FILE *file, int32_t *width, int32_t *height) {
	struct jpeg_decompress_struct cinfo;
	struct jpeg_error err;
	uint8_t *volatile pixels = NULL;
	cinfo.err = jpeg_std_error(&err.mgr);
	err.mgr.error_exit = jpeg_handle_error;
	err.mgr.output_message = jpeg_handle_message;
	if (setjmp(err.jump) != 0) {
		jpeg_destroy_decompress(&cinfo);
		free(pixels);
		return NULL;
	}
	jpeg_create_decompress(&cinfo);
	jpeg_stdio_src(&cinfo, file);
	jpeg_read_header(&cinfo, TRUE);
	bool cmyk = cinfo.jpeg_color_space == JCS_CMYK ||
			cinfo.jpeg_color_space == JCS_YCCK;
	cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_BGRA;
	jpeg_start_decompress(&cinfo);
	size_t stride = (size_t)cinfo.output_width * 4;
	pixels = malloc(stride * cinfo.output_height);
	if (pixels == NULL) {
		jpeg_destroy_decompress(&cinfo);
		return NULL;
	}
	while (cinfo.output_scanline < cinfo.output_height) {
		JSAMPROW row = pixels + (size_t)cinfo.output_scanline * stride;
		jpeg_read_scanlines(&cinfo, &row, 1);
	}
	if (cmyk) {
		cmyk_to_bgra(pixels, (size_t)cinfo.output_width * cinfo.output_height);
	}
	*width = (int32_t)cinfo.output_width;
	*height = (int32_t)cinfo.output_height;
	jpeg_finish_decompress(&cinfo);
	jpeg_destroy_decompress(&cinfo);
	return pixels;
}

struct vr_image *bench_image_load(const char *path, uint64_t *decode_ns) {
	uint64_t start = now_ns();
	FILE *file = fopen(path, "rb");
	if (file == NULL) {
		return NULL;
	}
	uint8_t magic[8] = { 0 };
	size_t n = fread(magic, 1, sizeof(magic), file);
	void *pixels = NULL;
	int32_t width = 0, height = 0;
	enum vr_format format = VR_FORMAT_ARGB8888;
	if (n >= 3 && magic[0] == 0xff && magic[1] == 0xd8 && magic[2] == 0xff) {
		rewind(file);
		pixels = decode_jpeg(file, &width, &height);
		format = VR_FORMAT_XRGB8888;
		fclose(file);
	} else if (n == 8 && memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0) {
		fclose(file);
		pixels = vr_png_read(path, &width, &height);
	} else {
		fclose(file);
	}
	if (pixels == NULL || width <= 0 || height <= 0) {
		free(pixels);
		return NULL;
	}
	struct vr_image *image = vr_image_create(width, height, format);
	if (image != NULL) {
		vr_image_write(image, pixels, width * 4, NULL);
	}
	free(pixels);
	if (decode_ns != NULL) {
		*decode_ns = now_ns() - start;
	}
	return image;
}

/* ---- procedural images -------------------------------------------------- */

static uint32_t pack(float r, float g, float b, float a) {
	/* premultiplied BGRA8 in a little-endian uint32 */
	r = fminf(fmaxf(r, 0.0f), 1.0f) * a;
	g = fminf(fmaxf(g, 0.0f), 1.0f) * a;
	b = fminf(fmaxf(b, 0.0f), 1.0f) * a;
	a = fminf(fmaxf(a, 0.0f), 1.0f);
	return (uint32_t)lrintf(b * 255.0f) | (uint32_t)lrintf(g * 255.0f) << 8 |
			(uint32_t)lrintf(r * 255.0f) << 16 |
			(uint32_t)lrintf(a * 255.0f) << 24;
}

static uint32_t hash32(uint32_t x) {
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

struct blob {
	float x, y, r2;
	struct vr_color color;
};

static void fill_photo(uint32_t *px, int32_t w, int32_t h,
		struct bench_rng *rng) {
	struct blob blobs[6];
	for (size_t i = 0; i < 6; i++) {
		float r = bench_rng_float(rng, 0.2f, 0.6f) * (float)(w > h ? w : h);
		blobs[i] = (struct blob){
			.x = bench_rng_float(rng, 0.0f, (float)w),
			.y = bench_rng_float(rng, 0.0f, (float)h),
			.r2 = r * r,
			.color = {
				bench_rng_float(rng, 0.0f, 1.0f),
				bench_rng_float(rng, 0.0f, 1.0f),
				bench_rng_float(rng, 0.0f, 1.0f), 1.0f,
			},
		};
	}
	for (int32_t y = 0; y < h; y++) {
		for (int32_t x = 0; x < w; x++) {
			float r = 0.1f, g = 0.1f, b = 0.12f;
			for (size_t i = 0; i < 6; i++) {
				float dx = (float)x - blobs[i].x;
				float dy = (float)y - blobs[i].y;
				float k = 1.0f - (dx * dx + dy * dy) / blobs[i].r2;
				if (k > 0.0f) {
					r += k * blobs[i].color.r * 0.6f;
					g += k * blobs[i].color.g * 0.6f;
					b += k * blobs[i].color.b * 0.6f;
				}
			}
			float n = (float)(hash32((uint32_t)(y * w + x)) & 15) / 255.0f;
			px[(size_t)y * (size_t)w + (size_t)x] =
					pack(r + n, g + n, b + n, 1.0f);
		}
	}
}

/* A rounded square with a diagonal gradient and antialiased corners. */
static void fill_icon(uint32_t *px, int32_t w, int32_t h, struct vr_color c0,
		struct vr_color c1) {
	float radius = (float)(w < h ? w : h) * 0.22f;
	for (int32_t y = 0; y < h; y++) {
		for (int32_t x = 0; x < w; x++) {
			float fx = (float)x + 0.5f, fy = (float)y + 0.5f;
			float cx = fminf(fmaxf(fx, radius), (float)w - radius);
			float cy = fminf(fmaxf(fy, radius), (float)h - radius);
			float d = sqrtf((fx - cx) * (fx - cx) + (fy - cy) * (fy - cy));
			float cover = fminf(fmaxf(radius - d + 0.5f, 0.0f), 1.0f);
			float t = (fx + fy) / (float)(w + h);
			px[(size_t)y * (size_t)w + (size_t)x] =
					pack(c0.r + (c1.r - c0.r) * t, c0.g + (c1.g - c0.g) * t,
							c0.b + (c1.b - c0.b) * t, cover);
		}
	}
}

struct vr_image *bench_image_generate(const char *kind, int32_t width,
		int32_t height, uint64_t seed, const struct vr_color *color0,
		const struct vr_color *color1) {
	if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
		return NULL;
	}
	struct bench_rng rng;
	bench_rng_seed(&rng, seed);
	struct vr_color c0 = color0 != NULL ?
			*color0 :
			(struct vr_color){ bench_rng_float(&rng, 0.0f, 1.0f),
				bench_rng_float(&rng, 0.0f, 1.0f),
				bench_rng_float(&rng, 0.0f, 1.0f), 1.0f };
	struct vr_color c1 = color1 != NULL ?
			*color1 :
			(struct vr_color){ bench_rng_float(&rng, 0.0f, 1.0f),
				bench_rng_float(&rng, 0.0f, 1.0f),
				bench_rng_float(&rng, 0.0f, 1.0f), 1.0f };
	enum vr_format format = VR_FORMAT_XRGB8888;
	if (strcmp(kind, "icon") == 0) {
		format = VR_FORMAT_ARGB8888;
	} else if (strcmp(kind, "gradient") != 0 && strcmp(kind, "noise") != 0 &&
			strcmp(kind, "checker") != 0 && strcmp(kind, "photo") != 0 &&
			strcmp(kind, "video") != 0) {
		return NULL;
	}
	struct vr_image *image = vr_image_create(width, height, format);
	if (image == NULL) {
		return NULL;
	}
	if (strcmp(kind, "video") == 0) {
		bench_video_frame(image, (uint32_t)seed, 0);
		return image;
	}
	uint32_t *px = malloc((size_t)width * (size_t)height * 4);
	if (px == NULL) {
		vr_image_unref(image);
		return NULL;
	}
	if (strcmp(kind, "gradient") == 0) {
		for (int32_t y = 0; y < height; y++) {
			float t = (float)y / (float)height;
			uint32_t v = pack(c0.r + (c1.r - c0.r) * t,
					c0.g + (c1.g - c0.g) * t, c0.b + (c1.b - c0.b) * t, 1.0f);
			for (int32_t x = 0; x < width; x++) {
				px[(size_t)y * (size_t)width + (size_t)x] = v;
			}
		}
	} else if (strcmp(kind, "noise") == 0) {
		for (size_t i = 0; i < (size_t)width * (size_t)height; i++) {
			px[i] = hash32((uint32_t)i ^ (uint32_t)seed) | 0xff000000u;
		}
	} else if (strcmp(kind, "checker") == 0) {
		uint32_t a = pack(c0.r, c0.g, c0.b, 1.0f);
		uint32_t b = pack(c1.r, c1.g, c1.b, 1.0f);
		for (int32_t y = 0; y < height; y++) {
			for (int32_t x = 0; x < width; x++) {
				px[(size_t)y * (size_t)width + (size_t)x] =
						((x >> 4) ^ (y >> 4)) & 1 ? a : b;
			}
		}
	} else if (strcmp(kind, "photo") == 0) {
		fill_photo(px, width, height, &rng);
	} else {
		fill_icon(px, width, height, c0, c1);
	}
	vr_image_write(image, px, width * 4, NULL);
	free(px);
	return image;
}

void bench_video_frame(struct vr_image *image, uint32_t seed, uint32_t frame) {
	int32_t w = vr_image_width(image), h = vr_image_height(image);
	uint32_t *px = malloc((size_t)w * (size_t)h * 4);
	if (px == NULL) {
		return;
	}
	/* moving diagonal bands under a bouncing box: every pixel changes */
	uint32_t shift = frame * 7u + seed;
	int32_t bx = (int32_t)((frame * 13u) % (uint32_t)(w > 64 ? w - 64 : 1));
	int32_t by = (int32_t)((frame * 5u) % (uint32_t)(h > 64 ? h - 64 : 1));
	for (int32_t y = 0; y < h; y++) {
		uint32_t *row = px + (size_t)y * (size_t)w;
		for (int32_t x = 0; x < w; x++) {
			uint32_t t = (uint32_t)(x + y) + shift;
			uint32_t r = (t >> 2) & 0xff, g = (t >> 3) & 0xff;
			uint32_t b = ((uint32_t)y + shift) & 0xff;
			row[x] = 0xff000000u | r << 16 | g << 8 | b;
		}
		if (y >= by && y < by + 64) {
			for (int32_t x = bx; x < bx + 64 && x < w; x++) {
				row[x] = 0xffffffffu;
			}
		}
	}
	vr_image_write(image, px, w * 4, NULL);
	free(px);
}
