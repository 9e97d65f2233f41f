/*
 * The scene protocol's display lists: the command stream, display list
 * objects, and their recording into render tree nodes.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>
#include <vitrail/canvas.h>

#include "pacing/pacer.h"
#include "scene/decoder.h"
#include "server.h"
#include "util.h"
#include "vitrail-scene-v1-protocol.h"

#include "scene/scene_internal.h"

/* ---- command stream ----------------------------------------------------- */

static void cmd_finish(struct vt_dl_cmd *cmd) {
	scene_image_data_unref(cmd->image);
	vt_dl_cmd_finish(cmd);
}

static void chunk_unref(struct chunk *chunk) {
	if (chunk == NULL || --chunk->refs > 0) {
		return;
	}
	for (size_t i = 0; i < chunk->ncmds; i++) {
		cmd_finish(&chunk->cmds[i]);
	}
	free(chunk->cmds);
	chunk->quota->list_bytes -= chunk->bytes;
	scene_quota_unref(chunk->quota);
	free(chunk);
}

void scene_snapshot_unref(struct snapshot *snapshot) {
	if (snapshot == NULL || --snapshot->refs > 0) {
		return;
	}
	for (size_t i = 0; i < snapshot->nchunks; i++) {
		chunk_unref(snapshot->chunks[i]);
	}
	free(snapshot->chunks);
	vr_display_list_unref(snapshot->recorded);
	snapshot->quota->recorded_bytes -= snapshot->recorded_bytes;
	scene_quota_unref(snapshot->quota);
	free(snapshot);
}

/* The image behind object id for the decoder: a live
 * vitrail_scene_image_v1 of the list's client. */
static void *decoder_lookup_image(void *data, uint32_t id, uint32_t *width,
		uint32_t *height) {
	struct wl_resource *resource = wl_client_get_object(data, id);
	if (resource == NULL ||
			!wl_resource_instance_of(resource,
					&vitrail_scene_image_v1_interface, &scene_image_impl) ||
			scene_image_from_resource(resource) == NULL) {
		return NULL;
	}
	struct image_data *image = scene_image_from_resource(resource)->data;
	*width = (uint32_t)vr_image_width(image->image);
	*height = (uint32_t)vr_image_height(image->image);
	return image;
}

/* Decode a whole stream (scene/decoder.c) into a new chunk charged to the
 * list's client; NULL (error posted) when anything is wrong. */
static struct chunk *decode_stream(struct wl_resource *resource,
		struct scene_list *list, const uint8_t *data, size_t size) {
	struct wl_client *client = wl_resource_get_client(resource);
	struct chunk *chunk = calloc(1, sizeof(*chunk));
	if (chunk == NULL) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	struct vt_dl_images images = {
		.lookup = decoder_lookup_image,
		.data = client,
	};
	struct vt_dl_error error;
	int depth = list->depth;
	if (!vt_dl_decode(data, size, &depth, &images, &chunk->cmds, &chunk->ncmds,
				&error)) {
		if (error.code == VT_DL_ERROR_NO_MEMORY) {
			wl_client_post_no_memory(client);
		} else {
			vt_post_error(resource, error.code, "%s", error.message);
		}
		free(chunk);
		return NULL;
	}
	for (size_t i = 0; i < chunk->ncmds; i++) {
		if (chunk->cmds[i].image != NULL) {
			scene_image_data_ref(chunk->cmds[i].image);
		}
	}
	chunk->refs = 1;
	chunk->bytes = size;
	chunk->quota = scene_quota_ref(list->quota);
	chunk->quota->list_bytes += size;
	list->depth = depth;
	return chunk;
}

/* ---- display lists ------------------------------------------------------ */

/* The list changes: nodes keep the snapshot they took. */
static void list_forget_snapshot(struct scene_list *list) {
	scene_snapshot_unref(list->snapshot);
	list->snapshot = NULL;
}

static void list_clear(struct scene_list *list) {
	list_forget_snapshot(list);
	for (size_t i = 0; i < list->nchunks; i++) {
		chunk_unref(list->chunks[i]);
	}
	list->nchunks = 0;
	list->bytes = 0;
	list->depth = 0;
}

static void list_handle_reset(struct wl_client *client,
		struct wl_resource *resource) {
	list_clear(scene_list_from_resource(resource));
}

/* Check the limits for size more bytes; false (error posted) when one
 * would be exceeded. */
static bool list_check_size(struct wl_resource *resource,
		struct scene_list *list, uint64_t size) {
	uint64_t max = VITRAIL_SCENE_MANAGER_V1_QUOTA_DISPLAY_LIST_SIZE;
	if (list->bytes + size > max) {
		vt_post_error(resource, VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TOO_LARGE,
				"%" PRIu64 " more bytes make the list %" PRIu64 " bytes, over "
				"display_list_size %" PRIu64,
				size, list->bytes + size, max);
		return false;
	}
	uint64_t quota = VITRAIL_SCENE_MANAGER_V1_QUOTA_DISPLAY_LIST_BYTES;
	if (list->quota->list_bytes + size > quota) {
		vt_post_error(resource,
				VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_QUOTA_EXCEEDED,
				"%" PRIu64 " more bytes make the client's lists %" PRIu64
				" bytes, over its quota %" PRIu64,
				size, list->quota->list_bytes + size, quota);
		return false;
	}
	return true;
}

static void list_append(struct wl_resource *resource, const uint8_t *data,
		size_t size) {
	struct scene_list *list = scene_list_from_resource(resource);
	if (size == 0 || !list_check_size(resource, list, size)) {
		return;
	}
	struct chunk *chunk = decode_stream(resource, list, data, size);
	if (chunk == NULL) {
		return;
	}
	if (list->nchunks == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 8;
		struct chunk **chunks = realloc(list->chunks, cap * sizeof(*chunks));
		if (chunks == NULL) {
			chunk_unref(chunk);
			wl_resource_post_no_memory(resource);
			return;
		}
		list->chunks = chunks;
		list->cap = cap;
	}
	list_forget_snapshot(list);
	list->chunks[list->nchunks++] = chunk;
	list->bytes += size;
}

static void list_handle_append(struct wl_client *client,
		struct wl_resource *resource, struct wl_array *commands) {
	list_append(resource, commands->data, commands->size);
}

static void list_handle_append_shm(struct wl_client *client,
		struct wl_resource *resource, int32_t fd, uint32_t offset,
		uint32_t size) {
	struct scene_list *list = scene_list_from_resource(resource);
	uint8_t *data = NULL;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		vt_post_error(resource, VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TRUNCATED,
				"cannot stat fd %d: %s", fd, strerror(errno));
		goto out;
	}
	if ((uint64_t)offset + size > (uint64_t)st.st_size) {
		vt_post_error(resource, VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TRUNCATED,
				"offset %u + size %u is beyond the end of the file (%jd bytes)",
				offset, size, (intmax_t)st.st_size);
		goto out;
	}
	if (size == 0 || !list_check_size(resource, list, size)) {
		goto out;
	}
	data = malloc(size);
	if (data == NULL) {
		wl_resource_post_no_memory(resource);
		goto out;
	}
	/* pread, not mmap: a client shrinking the file cannot fault us. */
	size_t got = 0;
	while (got < size) {
		ssize_t n = pread(fd, data + got, size - got, (off_t)offset + got);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			vt_post_error(resource,
					VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TRUNCATED,
					"read %zu of %u bytes at offset %u: %s", got, size, offset,
					n < 0 ? strerror(errno) : "end of file");
			goto out;
		}
		got += (size_t)n;
	}
	list_append(resource, data, size);
out:
	free(data);
	close(fd);
}

const struct vitrail_scene_display_list_v1_interface scene_list_impl = {
	.destroy = scene_handle_destroy,
	.reset = list_handle_reset,
	.append = list_handle_append,
	.append_shm = list_handle_append_shm,
};

struct scene_list *scene_list_from_resource(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource,
			&vitrail_scene_display_list_v1_interface, &scene_list_impl));
	return wl_resource_get_user_data(resource);
}

void scene_list_handle_resource_destroy(struct wl_resource *resource) {
	struct scene_list *list = wl_resource_get_user_data(resource);
	if (list == NULL) {
		return;
	}
	list_clear(list);
	free(list->chunks);
	scene_quota_unref(list->quota);
	free(list);
}

/* The list's chunks as they are now, shared with every other node that
 * took them since the list last changed; NULL when out of memory. */
struct snapshot *scene_list_snapshot(struct scene_list *list) {
	if (list->snapshot != NULL) {
		list->snapshot->refs++;
		return list->snapshot;
	}
	struct snapshot *snapshot = calloc(1, sizeof(*snapshot));
	if (snapshot == NULL) {
		return NULL;
	}
	snapshot->refs = 2; // the caller's and the list's
	snapshot->quota = scene_quota_ref(list->quota);
	list->snapshot = snapshot;
	if (list->nchunks > 0) {
		snapshot->chunks = calloc(list->nchunks, sizeof(*snapshot->chunks));
		if (snapshot->chunks == NULL) {
			free(snapshot);
			return NULL;
		}
	}
	for (size_t i = 0; i < list->nchunks; i++) {
		list->chunks[i]->refs++;
		snapshot->chunks[i] = list->chunks[i];
	}
	snapshot->nchunks = list->nchunks;
	return snapshot;
}

/* ---- recording ---------------------------------------------------------- */

static struct vr_rectf rectf(const float *v) {
	return (struct vr_rectf){ v[0], v[1], v[2], v[3] };
}

static struct vr_radii radii(const float *v) {
	return (struct vr_radii){ v[0], v[1], v[2], v[3] };
}

static void replay(struct vr_canvas *canvas, const struct vt_dl_cmd *cmd) {
	switch (cmd->op) {
	case VT_DL_RECT:
		vr_canvas_draw_rect(canvas, rectf(cmd->v), &cmd->paint);
		break;
	case VT_DL_RRECT:
		vr_canvas_draw_rrect(canvas, rectf(cmd->v), radii(&cmd->v[4]),
				&cmd->paint);
		break;
	case VT_DL_ELLIPSE:
		vr_canvas_draw_ellipse(canvas, rectf(cmd->v), &cmd->paint);
		break;
	case VT_DL_LINE:
		vr_canvas_draw_line(canvas, cmd->v[0], cmd->v[1], cmd->v[2], cmd->v[3],
				&cmd->paint);
		break;
	case VT_DL_PATH: vr_canvas_draw_path(canvas, cmd->path, &cmd->paint); break;
	case VT_DL_IMAGE: {
		struct vr_rectf src = rectf(&cmd->v[1]);
		bool whole = src.width == 0.0f || src.height == 0.0f;
		const struct image_data *image = cmd->image;
		vr_canvas_draw_image(canvas, image->image, whole ? NULL : &src,
				rectf(&cmd->v[5]), cmd->v[0]);
		break;
	}
	case VT_DL_TEXT: {
		struct vr_font font = {
			.family = cmd->family,
			.size = cmd->v[2],
			.weight = cmd->weight,
		};
		vr_canvas_draw_text(canvas, cmd->v[0], cmd->v[1], cmd->text, &font,
				cmd->color);
		break;
	}
	case VT_DL_SAVE: vr_canvas_save(canvas); break;
	case VT_DL_RESTORE: vr_canvas_restore(canvas); break;
	case VT_DL_TRANSLATE:
		vr_canvas_translate(canvas, cmd->v[0], cmd->v[1]);
		break;
	case VT_DL_SCALE: vr_canvas_scale(canvas, cmd->v[0], cmd->v[1]); break;
	case VT_DL_ROTATE: vr_canvas_rotate(canvas, cmd->v[0]); break;
	case VT_DL_CLIP_RECT: vr_canvas_clip_rect(canvas, rectf(cmd->v)); break;
	case VT_DL_CLIP_RRECT:
		vr_canvas_clip_rrect(canvas, rectf(cmd->v), radii(&cmd->v[4]));
		break;
	case VT_DL_SHADOW:
		vr_canvas_draw_shadow(canvas, rectf(cmd->v), radii(&cmd->v[4]),
				cmd->v[8], cmd->color);
		break;
	}
}

/* The node draws count commands from now on; false (error posted on
 * the scene) when the client's nodes would draw more than the quota. */
bool scene_charge_drawn(struct vt_scene_node *node, uint64_t count) {
	struct client_quota *quota = node->scene->quota;
	uint64_t max = VITRAIL_SCENE_MANAGER_V1_QUOTA_DRAWN_COMMANDS;
	uint64_t total = quota->drawn_commands - node->drawn + count;
	if (count > node->drawn && total > max) {
		vt_post_error(node->scene->resource,
				VITRAIL_SCENE_V1_ERROR_QUOTA_EXCEEDED,
				"node@%u: %" PRIu64 " commands make %" PRIu64 " drawn, over "
				"drawn_commands %" PRIu64,
				wl_resource_get_id(node->resource), count, total, max);
		return false;
	}
	quota->drawn_commands = total;
	node->drawn = count;
	return true;
}

/* Charge a new recording of bytes to the client; false (error posted on
 * the scene, the recording to be dropped) beyond its quota. */
static bool charge_recording(struct vt_scene_node *node, uint64_t bytes) {
	struct client_quota *quota = node->scene->quota;
	uint64_t max = VITRAIL_SCENE_MANAGER_V1_QUOTA_RECORDED_BYTES;
	if (quota->recorded_bytes + bytes > max) {
		vt_post_error(node->scene->resource,
				VITRAIL_SCENE_V1_ERROR_QUOTA_EXCEEDED,
				"node@%u: recording %" PRIu64 " bytes exceeds recorded_bytes "
				"%" PRIu64 " (%" PRIu64 " held)",
				wl_resource_get_id(node->resource), bytes, max,
				quota->recorded_bytes);
		return false;
	}
	quota->recorded_bytes += bytes;
	return true;
}

static size_t snapshot_commands(const struct snapshot *snapshot) {
	size_t count = 0;
	for (size_t i = 0; snapshot != NULL && i < snapshot->nchunks; i++) {
		count += snapshot->chunks[i]->ncmds;
	}
	return count;
}

/* Charge the commands the node's new display list draws; false (error
 * posted) over the client's quota. */
bool scene_node_charge(struct vt_scene_node *node) {
	return scene_charge_drawn(node, snapshot_commands(node->list));
}

/* The node draws nothing (its new list was refused). */
void scene_node_drop_list(struct vt_scene_node *node) {
	node->record = false;
	scene_charge_drawn(node, 0);
	vr_node_clear_content(node->vr);
}

/* The node's display list (charged by scene_node_charge): its snapshot's
 * recording, made by the first node that draws it and shared by every
 * other one. */
void scene_node_record(struct vt_scene_node *node) {
	node->record = false;
	struct snapshot *snapshot = node->list;
	if (snapshot_commands(snapshot) == 0) {
		vr_node_clear_content(node->vr);
		return;
	}
	if (snapshot->recorded != NULL) {
		vr_node_set_display_list(node->vr, snapshot->recorded);
		return;
	}
	struct vr_canvas *canvas = vr_canvas_begin();
	if (canvas == NULL) {
		wlr_log(WLR_ERROR, "cannot record a display list: out of memory");
		return;
	}
	for (size_t i = 0; i < snapshot->nchunks; i++) {
		const struct chunk *chunk = snapshot->chunks[i];
		for (size_t k = 0; k < chunk->ncmds; k++) {
			replay(canvas, &chunk->cmds[k]);
		}
	}
	struct vr_display_list *list = vr_canvas_finish(canvas);
	if (list == NULL) {
		wlr_log(WLR_ERROR, "cannot record a display list: out of memory");
		return;
	}
	node->scene->manager->server->lists_recorded++;
	uint64_t bytes = vr_display_list_bytes(list);
	if (!charge_recording(node, bytes)) {
		vr_display_list_unref(list);
		vr_node_clear_content(node->vr);
		return;
	}
	snapshot->recorded = list;
	snapshot->recorded_bytes = bytes;
	/* glyphs and shadow scratch now, not in the first frame drawing it:
	 * at the scale it is drawn with in the scene */
	struct vr_mat to_scene;
	vr_mat_identity(&to_scene);
	for (const struct vt_scene_node *a = node; a != NULL; a = a->parent) {
		vr_mat_multiply(&to_scene, &a->transform, &to_scene);
	}
	struct vr_renderer *renderer = node->scene->manager->server->renderer;
	if (renderer != NULL) {
		vr_renderer_warm_display_list(renderer, list, &to_scene);
	}
	vr_node_set_display_list(node->vr, list);
}
