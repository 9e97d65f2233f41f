/*
 * The scene protocol's display-list decoder: untrusted bytes (a
 * vitrail_scene_display_list_v1.append or append_shm stream, see
 * protocol/vitrail-scene-v1.xml) into commands. No Wayland: images are
 * looked up through a callback, errors come back as the protocol's error
 * code and message, so it is fuzzable alone (tests/fuzz/).
 */
#ifndef VITRAIL_SCENE_DECODER_H
#define VITRAIL_SCENE_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vitrail/canvas.h>

/* Limits of the stream's values (documented in the protocol). */
#define VT_DL_COORD_MAX 1000000.0f
#define VT_DL_STROKE_MAX 10000.0f
#define VT_DL_MITER_MAX 1000.0f
#define VT_DL_BLUR_MAX 1000.0f
#define VT_DL_FONT_SIZE_MAX 1000.0f
#define VT_DL_SAVE_DEPTH_MAX 64
#define VT_DL_PATH_ELEMS_MAX 65536
#define VT_DL_FAMILY_MAX 256
#define VT_DL_TEXT_MAX 4096

/* Ops of the command stream. */
enum vt_dl_op {
	VT_DL_RECT = 1,
	VT_DL_RRECT = 2,
	VT_DL_ELLIPSE = 3,
	VT_DL_LINE = 4,
	VT_DL_PATH = 5,
	VT_DL_IMAGE = 6,
	VT_DL_TEXT = 7,
	VT_DL_SAVE = 8,
	VT_DL_RESTORE = 9,
	VT_DL_TRANSLATE = 10,
	VT_DL_SCALE = 11,
	VT_DL_ROTATE = 12,
	VT_DL_CLIP_RECT = 13,
	VT_DL_CLIP_RRECT = 14,
	VT_DL_SHADOW = 15,
};

/* Errors: the values of vitrail_scene_display_list_v1.error, plus one for
 * running out of memory (the caller posts no_memory). */
enum vt_dl_error_code {
	VT_DL_ERROR_BAD_COMMAND = 0,
	VT_DL_ERROR_OUT_OF_RANGE = 1,
	VT_DL_ERROR_BAD_IMAGE = 2,
	VT_DL_ERROR_TRUNCATED = 3,
	VT_DL_ERROR_NO_MEMORY = 0x7fffffff,
};

struct vt_dl_error {
	enum vt_dl_error_code code;
	char message[320]; /* "record at byte N (op N): reason" */
};

/* One decoded record of the command stream. */
struct vt_dl_cmd {
	enum vt_dl_op op;
	float v[12]; /* op's numbers, in stream order */
	struct vr_paint paint;
	struct vr_color color; /* TEXT, SHADOW */
	void *image; /* IMAGE: the lookup's handle, not referenced here */
	struct vr_path *path; /* PATH, owned */
	char *family, *text; /* TEXT, owned */
	int weight; /* TEXT */
};

/* How the decoder finds the images that IMAGE records name. */
struct vt_dl_images {
	/* The live image with object id, with its size in pixels; NULL when
	 * id names no image. The handle is stored in vt_dl_cmd::image as is. */
	void *(*lookup)(void *data, uint32_t id, uint32_t *width, uint32_t *height);
	void *data;
};

/*
 * Decode size bytes into *cmds (*ncmds of them, malloc'ed; NULL when size
 * is 0). *depth is the number of saves open before the stream and, on
 * success only, after it. On failure returns false with *error filled and
 * nothing allocated.
 */
bool vt_dl_decode(const uint8_t *data, size_t size, int *depth,
		const struct vt_dl_images *images, struct vt_dl_cmd **cmds,
		size_t *ncmds, struct vt_dl_error *error);

/* Free what a command owns (its path and strings, not its image). */
void vt_dl_cmd_finish(struct vt_dl_cmd *cmd);

#endif
