/*
 * libFuzzer harness: the scene protocol's display-list decoder
 * (compositor/scene/decoder.c) on arbitrary bytes, as a client's
 * vitrail_scene_display_list_v1.append would deliver them.
 *
 * Object ids 1-4 are images (of different sizes, so src checks pass and
 * fail), every other id is not. The first byte picks how many saves are
 * open before the stream (the state a previous append left), the rest is
 * the stream. A successful decode is checked for what the replay relies
 * on: paths and text present where their ops say, depth in range.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include "scene/decoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t images[4][2] = {
	{ 1, 1 },
	{ 64, 64 },
	{ 4096, 1 },
	{ 300, 200 },
};

static void *lookup(void *user, uint32_t id, uint32_t *width,
		uint32_t *height) {
	(void)user;
	if (id < 1 || id > 4) {
		return NULL;
	}
	*width = images[id - 1][0];
	*height = images[id - 1][1];
	return images[id - 1];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size < 1) {
		return 0;
	}
	int depth = data[0] % (VT_DL_SAVE_DEPTH_MAX + 1);
	const int depth_before = depth;
	struct vt_dl_images lookup_images = { .lookup = lookup };
	struct vt_dl_cmd *cmds = NULL;
	size_t ncmds = 0;
	struct vt_dl_error error;
	if (!vt_dl_decode(data + 1, size - 1, &depth, &lookup_images, &cmds, &ncmds,
				&error)) {
		assert(depth == depth_before);
		assert(error.message[0] != '\0');
		return 0;
	}
	assert(depth >= 0 && depth <= VT_DL_SAVE_DEPTH_MAX);
	assert(ncmds <= (size - 1) / 8);
	for (size_t i = 0; i < ncmds; i++) {
		struct vt_dl_cmd *cmd = &cmds[i];
		assert(cmd->op >= VT_DL_RECT && cmd->op <= VT_DL_SHADOW);
		assert((cmd->op == VT_DL_PATH) == (cmd->path != NULL));
		assert((cmd->op == VT_DL_IMAGE) == (cmd->image != NULL));
		assert((cmd->op == VT_DL_TEXT) ==
				(cmd->text != NULL && cmd->family != NULL));
		vt_dl_cmd_finish(cmd);
	}
	free(cmds);
	return 0;
}
