/*
 * Direct scan-out: a frame whose only visible content is one client
 * dmabuf, shown pixel for pixel over the whole output, commits that
 * buffer instead of a composed one. Nothing is composed or copied; on DRM
 * the primary plane reads the client's memory.
 *
 * A frame is planned as usual (output_frame.c): its commits latched, its
 * animations sampled, the tree updated. Then, before a buffer is taken,
 * output_scanout_buffer asks whether the topmost node drawn on the output
 * is a surface's image (vr_node_draws_image_exactly) that covers all of it
 * and shows all of its buffer's current pixels, and whether the output
 * takes that buffer (its format, the primary plane's formats,
 * wlr_output_test). Anything else draws a composed frame, so a buffer that
 * is refused falls back and loses nothing.
 *
 * The engine's target and the output buffers miss the frames shown this
 * way: the first composed frame after them draws the whole output.
 */
#include <drm_fourcc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/render/dmabuf.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>

#include "desktop/surface.h"
#include "output/client_dmabuf.h"
#include "output/output.h"
#include "output/scanout.h"
#include "server.h"

#include "output/output_internal.h"

bool vt_scanout_format_ok(const struct wlr_drm_format_set *plane,
		uint32_t format, uint64_t modifier, bool opaque_region_covers,
		char *why, size_t why_len) {
	/* what screenshots and captures read as the output's pixels
	 * (x8r8g8b8) without a conversion */
	if (format != DRM_FORMAT_XRGB8888 && format != DRM_FORMAT_ARGB8888) {
		snprintf(why, why_len, "format 0x%08x is not XRGB8888 or ARGB8888",
				format);
		return false;
	}
	/* the composed frame shows it over black; a plane would not */
	if (format == DRM_FORMAT_ARGB8888 && !opaque_region_covers) {
		snprintf(why, why_len,
				"ARGB8888 without an opaque region over all of it");
		return false;
	}
	if (plane != NULL && !wlr_drm_format_set_has(plane, format, modifier)) {
		snprintf(why, why_len,
				"the primary plane does not take format 0x%08x with "
				"modifier 0x%016llx",
				format, (unsigned long long)modifier);
		return false;
	}
	return true;
}

/* The client dmabuf the output could show as it is, or NULL (why says
 * why not). */
static struct wlr_buffer *scanout_candidate(struct vt_output *output, char *why,
		size_t why_len) {
	struct vt_server *server = output->server;
	struct wlr_output *wlr_output = output->wlr_output;
	static int disabled = -1;
	if (disabled < 0) {
		disabled = getenv("VITRAIL_NO_SCANOUT") != NULL;
	}
	if (disabled) {
		snprintf(why, why_len, "VITRAIL_NO_SCANOUT is set");
		return NULL;
	}
	if (server->opts.pipeline != VT_PIPELINE_ASYNC) {
		snprintf(why, why_len, "the synchronous pipeline composes all");
		return NULL;
	}
	if (wlr_output->attach_render_locks > 0) {
		snprintf(why, why_len, "a screencopy client locks it");
		return NULL;
	}
	struct vr_mat view = vt_output_view(output);
	if (!vr_mat_is_integer_translation(&view)) {
		snprintf(why, why_len, "the output is scaled or turned");
		return NULL;
	}
	struct wlr_box area = output_box(output);
	struct vr_node *top = vr_tree_top_drawn(server->tree,
			&(struct vr_box){ area.x, area.y, area.width, area.height });
	struct vt_surface *surface = top != NULL ? vr_node_user_data(top) : NULL;
	if (surface == NULL || top != surface->content) {
		snprintf(why, why_len, "the top content is not a surface's");
		return NULL;
	}
	struct vr_box box;
	if (!vr_node_draws_image_exactly(top, &box)) {
		snprintf(why, why_len, "the surface is not drawn pixel for pixel");
		return NULL;
	}
	int32_t x = box.x + (int32_t)lroundf(view.tx);
	int32_t y = box.y + (int32_t)lroundf(view.ty);
	if (x != 0 || y != 0 || box.width != wlr_output->width ||
			box.height != wlr_output->height) {
		snprintf(why, why_len, "the surface does not cover the output");
		return NULL;
	}
	struct wlr_surface *wlr_surface = surface->wlr_surface;
	struct wlr_buffer *source =
			wlr_surface->buffer != NULL ? wlr_surface->buffer->source : NULL;
	if (source == NULL || surface->copy != NULL ||
			surface->image_buffer != source) {
		snprintf(why, why_len, "the surface shows no buffer as it is now");
		return NULL;
	}
	struct wlr_dmabuf_attributes attribs;
	if (!wlr_buffer_get_dmabuf(source, &attribs)) {
		snprintf(why, why_len, "the surface's buffer is not a dmabuf");
		return NULL;
	}
	if (source == output->scanout_refused &&
			output->frame_seq - output->scanout_refused_seq <
					SCANOUT_RETRY_FRAMES) {
		snprintf(why, why_len, "the backend refused this buffer");
		return NULL;
	}
	bool covers =
			pixman_region32_contains_rectangle(&wlr_surface->opaque_region,
					&(pixman_box32_t){ 0, 0, wlr_surface->current.width,
							wlr_surface->current.height }) == PIXMAN_REGION_IN;
	const struct wlr_drm_format_set *plane =
			wlr_output_get_primary_formats(wlr_output, WLR_BUFFER_CAP_DMABUF);
	if (!vt_scanout_format_ok(plane, attribs.format, attribs.modifier, covers,
				why, why_len)) {
		return NULL;
	}
	/* The backend's word (a DRM atomic test, the parent's formats), where
	 * it can be asked now: not while the previous frame is still pending
	 * (a test of a buffer then always fails). A commit that fails later
	 * marks the buffer refused, and a composed frame follows. */
	if (!wlr_output->frame_pending) {
		wlr_output_attach_buffer(wlr_output, source);
		bool ok = wlr_output_test(wlr_output);
		wlr_output_rollback(wlr_output);
		if (!ok) {
			snprintf(why, why_len, "the output's test refused it");
			return NULL;
		}
	}
	return source;
}

struct wlr_buffer *output_scanout_buffer(struct vt_output *output) {
	char why[160] = ""; /* stays empty when the buffer can be shown */
	struct wlr_buffer *buffer = scanout_candidate(output, why, sizeof(why));
	/* say so when it changes, not every frame */
	if (strcmp(why, output->scanout_why) != 0) {
		if (buffer != NULL) {
			wlr_log(WLR_DEBUG, "%s: direct scan-out of a client buffer",
					output->wlr_output->name);
		} else {
			wlr_log(WLR_DEBUG, "%s: composing: %s", output->wlr_output->name,
					why);
		}
		snprintf(output->scanout_why, sizeof(output->scanout_why), "%s", why);
	}
	return buffer != NULL ? wlr_buffer_lock(buffer) : NULL;
}

bool output_scanout_read(struct wlr_buffer *buffer,
		const pixman_region32_t *region, void *data, int32_t stride) {
	void *src;
	uint32_t format;
	size_t src_stride;
	if (!vt_client_buffer_begin_read(buffer, &src, &format, &src_stride)) {
		return false;
	}
	/* as the engines' reads: x8r8g8b8 read as opaque a8r8g8b8 (an
	 * XRGB8888 client's X bytes are anything) */
	pixman_image_t *from = pixman_image_create_bits_no_clear(PIXMAN_x8r8g8b8,
			buffer->width, buffer->height, src, (int)src_stride);
	pixman_image_t *to = pixman_image_create_bits_no_clear(PIXMAN_a8r8g8b8,
			buffer->width, buffer->height, data, stride);
	bool ok = from != NULL && to != NULL;
	if (ok) {
		if (region != NULL) {
			pixman_image_set_clip_region32(to, (pixman_region32_t *)region);
		}
		pixman_image_composite32(PIXMAN_OP_SRC, from, NULL, to, 0, 0, 0, 0, 0,
				0, buffer->width, buffer->height);
	}
	if (from != NULL) {
		pixman_image_unref(from);
	}
	if (to != NULL) {
		pixman_image_unref(to);
	}
	vt_client_buffer_end_read(buffer);
	return ok;
}
