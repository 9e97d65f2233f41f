/*
 * The wlr_renderer handed to wlr_compositor for client buffers
 * (client_buffer_renderer.c): textures that hold no buffer (not the
 * renderer library of renderer/).
 */
#ifndef VITRAIL_CLIENT_BUFFER_RENDERER_H
#define VITRAIL_CLIENT_BUFFER_RENDERER_H

struct wlr_buffer;
struct wlr_renderer;
struct wlr_texture;

struct wlr_renderer *vt_surface_renderer_create(void);
/* The lock a texture of this renderer holds on a large client buffer
 * (VT_COPY_BANDED_BYTES or more), handed to the caller, who unlocks it;
 * NULL when it holds none (or was taken). */
struct wlr_buffer *vt_surface_texture_take_buffer(struct wlr_texture *texture);

#endif
