/*
 * The wlr_renderer handed to wlr_compositor for client buffers
 * (client_buffer_renderer.c): textures that hold no buffer (not the
 * renderer library of renderer/).
 */
#ifndef VITRAIL_CLIENT_BUFFER_RENDERER_H
#define VITRAIL_CLIENT_BUFFER_RENDERER_H

#include <stdbool.h>

struct wlr_buffer;
struct wlr_renderer;
struct wlr_texture;

struct wlr_renderer *vt_surface_renderer_create(void);
/* Takes a DRM node's fd (closed with the renderer; -1: none): from then
 * on the renderer offers the dmabufs client_dmabuf.c reads, with that
 * node as linux-dmabuf's main device. */
bool vt_surface_renderer_set_drm_fd(struct wlr_renderer *renderer, int fd);
/* The lock a texture of this renderer holds on a large client buffer
 * (VT_COPY_BANDED_BYTES or more), handed to the caller, who unlocks it;
 * NULL when it holds none (or was taken). */
struct wlr_buffer *vt_surface_texture_take_buffer(struct wlr_texture *texture);

#endif
