/*
 * The wlr_renderer that wlr_compositor makes client-buffer textures with.
 *
 * vitrail copies a surface's damaged pixels into its own image in the
 * commit handler (surface.c), so wlroots needs no texture of a client
 * buffer. wlroots' pixman renderer would keep every committed wl_buffer
 * locked until the next commit (its textures point into the buffer); this
 * one hands out textures that only know the size and hold nothing, so
 * wlroots releases a wl_buffer as soon as the commit is applied, as a GPU
 * renderer that uploads does. Everything else is delegated to a pixman
 * renderer.
 *
 * Except a large buffer (at least VT_COPY_BANDED_BYTES) and a dmabuf:
 * its texture keeps it locked, so that wlroots does not release it when
 * it applies the commit, and surface.c takes that lock over in its commit
 * handler (vt_surface_texture_take_buffer) for a copy spread over several
 * event-loop turns, releasing it when the copy is complete, or for an
 * engine that samples the dmabuf in place, which holds it while frames
 * may sample it (client_dmabuf.c). A lock nobody took goes with the
 * texture.
 *
 * Client dmabufs: once linux_dmabuf.c gives it a DRM node, it offers the
 * (format, LINEAR) pairs that client_dmabuf.c reads, and makes textures
 * only of dmabufs that it takes, so wlroots' linux-dmabuf answers a
 * create request with "failed" (or create_immed with invalid_wl_buffer)
 * for any other.
 */
#include <stdlib.h>
#include <unistd.h>
#include <wlr/render/dmabuf.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/interface.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_texture.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>

#include "desktop/surface.h"
#include "output/client_buffer_renderer.h"
#include "output/client_dmabuf.h"

struct surface_renderer {
	struct wlr_renderer base;
	struct wlr_renderer *inner; /* pixman */
	int drm_fd; /* -1: no dmabufs */
	struct wlr_drm_format_set dmabuf_formats;
};

static const struct wlr_texture_impl size_texture_impl;

struct size_texture {
	struct wlr_texture base;
	struct wlr_buffer *locked; /* a large buffer, locked for surface.c */
};

static struct wlr_renderer *inner(struct wlr_renderer *renderer) {
	return ((struct surface_renderer *)renderer)->inner;
}

static void size_texture_destroy(struct wlr_texture *wlr_texture) {
	struct size_texture *texture = (struct size_texture *)wlr_texture;
	if (texture->locked != NULL) {
		wlr_buffer_unlock(texture->locked);
	}
	free(texture);
}

static const struct wlr_texture_impl size_texture_impl = {
	.destroy = size_texture_destroy,
};

static struct wlr_texture *texture_from_buffer(struct wlr_renderer *renderer,
		struct wlr_buffer *buffer) {
	struct wlr_dmabuf_attributes attribs;
	if (wlr_buffer_get_dmabuf(buffer, &attribs)) {
		char why[128] = "no DRM node";
		if (((struct surface_renderer *)renderer)->drm_fd < 0 ||
				!vt_client_dmabuf_accept(buffer, &attribs, why, sizeof(why))) {
			wlr_log(WLR_DEBUG, "client dmabuf refused: %s", why);
			return NULL;
		}
	}
	struct size_texture *texture = calloc(1, sizeof(*texture));
	if (texture == NULL) {
		return NULL;
	}
	wlr_texture_init(&texture->base, &size_texture_impl, buffer->width,
			buffer->height);
	if (buffer->impl->begin_data_ptr_access == NULL ||
			(uint64_t)buffer->width * (uint64_t)buffer->height * 4 >=
					VT_COPY_BANDED_BYTES) {
		texture->locked = wlr_buffer_lock(buffer);
	}
	return &texture->base;
}

struct wlr_buffer *vt_surface_texture_take_buffer(
		struct wlr_texture *wlr_texture) {
	if (wlr_texture == NULL || wlr_texture->impl != &size_texture_impl) {
		return NULL;
	}
	struct size_texture *texture = (struct size_texture *)wlr_texture;
	struct wlr_buffer *buffer = texture->locked;
	texture->locked = NULL;
	return buffer;
}

static bool bind_buffer(struct wlr_renderer *renderer,
		struct wlr_buffer *buffer) {
	return inner(renderer)->impl->bind_buffer(inner(renderer), buffer);
}

static void begin(struct wlr_renderer *renderer, uint32_t width,
		uint32_t height) {
	inner(renderer)->impl->begin(inner(renderer), width, height);
}

static void end(struct wlr_renderer *renderer) {
	if (inner(renderer)->impl->end != NULL) {
		inner(renderer)->impl->end(inner(renderer));
	}
}

static void clear(struct wlr_renderer *renderer, const float color[static 4]) {
	inner(renderer)->impl->clear(inner(renderer), color);
}

static void scissor(struct wlr_renderer *renderer, struct wlr_box *box) {
	inner(renderer)->impl->scissor(inner(renderer), box);
}

static bool render_subtexture_with_matrix(struct wlr_renderer *renderer,
		struct wlr_texture *texture, const struct wlr_fbox *box,
		const float matrix[static 9], float alpha) {
	/* Only vitrail's renderer draws; its textures are not these. */
	wlr_log(WLR_ERROR, "surface textures are not drawable by wlroots");
	return false;
}

static void render_quad_with_matrix(struct wlr_renderer *renderer,
		const float color[static 4], const float matrix[static 9]) {
	inner(renderer)->impl->render_quad_with_matrix(inner(renderer), color,
			matrix);
}

static const uint32_t *get_shm_texture_formats(struct wlr_renderer *renderer,
		size_t *len) {
	return inner(renderer)->impl->get_shm_texture_formats(inner(renderer), len);
}

static const struct wlr_drm_format_set *get_render_formats(
		struct wlr_renderer *renderer) {
	return inner(renderer)->impl->get_render_formats(inner(renderer));
}

static uint32_t get_render_buffer_caps(struct wlr_renderer *renderer) {
	return inner(renderer)->impl->get_render_buffer_caps(inner(renderer));
}

static const struct wlr_drm_format_set *get_dmabuf_texture_formats(
		struct wlr_renderer *wlr_renderer) {
	struct surface_renderer *renderer = (struct surface_renderer *)wlr_renderer;
	return renderer->drm_fd >= 0 ? &renderer->dmabuf_formats : NULL;
}

static int get_drm_fd(struct wlr_renderer *renderer) {
	return ((struct surface_renderer *)renderer)->drm_fd;
}

bool vt_surface_renderer_set_drm_fd(struct wlr_renderer *wlr_renderer, int fd) {
	struct surface_renderer *renderer = (struct surface_renderer *)wlr_renderer;
	wlr_drm_format_set_finish(&renderer->dmabuf_formats);
	if (fd >= 0 && !vt_client_dmabuf_formats(&renderer->dmabuf_formats)) {
		wlr_drm_format_set_finish(&renderer->dmabuf_formats);
		return false;
	}
	if (renderer->drm_fd >= 0) {
		close(renderer->drm_fd);
	}
	renderer->drm_fd = fd;
	return true;
}

static void destroy(struct wlr_renderer *wlr_renderer) {
	struct surface_renderer *renderer = (struct surface_renderer *)wlr_renderer;
	vt_surface_renderer_set_drm_fd(wlr_renderer, -1);
	wlr_renderer_destroy(renderer->inner);
	free(renderer);
}

static const struct wlr_renderer_impl surface_renderer_impl = {
	.bind_buffer = bind_buffer,
	.begin = begin,
	.end = end,
	.clear = clear,
	.scissor = scissor,
	.render_subtexture_with_matrix = render_subtexture_with_matrix,
	.render_quad_with_matrix = render_quad_with_matrix,
	.get_shm_texture_formats = get_shm_texture_formats,
	.get_render_formats = get_render_formats,
	.get_render_buffer_caps = get_render_buffer_caps,
	.texture_from_buffer = texture_from_buffer,
	.get_dmabuf_texture_formats = get_dmabuf_texture_formats,
	.get_drm_fd = get_drm_fd,
	.destroy = destroy,
};

struct wlr_renderer *vt_surface_renderer_create(void) {
	struct surface_renderer *renderer = calloc(1, sizeof(*renderer));
	if (renderer == NULL) {
		return NULL;
	}
	renderer->inner = wlr_pixman_renderer_create();
	if (renderer->inner == NULL) {
		free(renderer);
		return NULL;
	}
	renderer->drm_fd = -1;
	wlr_renderer_init(&renderer->base, &surface_renderer_impl);
	return &renderer->base;
}
