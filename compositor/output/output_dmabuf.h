/*
 * Output buffers that stay on the device (output_dmabuf.c): LINEAR
 * XRGB8888 dma-bufs the Vulkan engine copies each composed frame into on
 * the GPU and the display (or the parent compositor) takes as they are.
 */
#ifndef VITRAIL_OUTPUT_DMABUF_H
#define VITRAIL_OUTPUT_DMABUF_H

#include <stdbool.h>
#include <stdint.h>

struct vt_server;
struct wlr_buffer;

struct vt_output_dmabufs;

/* The allocator for the server's backend and engine, as
 * VITRAIL_OUTPUT_DMABUF asks (vitrail(1); a bad value is logged and auto
 * holds), or NULL where output buffers are host memory: asked so, no
 * engine importing dma-bufs, the synchronous pipeline, or no device (all
 * logged). The buffers it made keep it alive past
 * vt_output_dmabufs_destroy. */
struct vt_output_dmabufs *vt_output_dmabufs_create(struct vt_server *server);
void vt_output_dmabufs_destroy(struct vt_output_dmabufs *dmabufs);
/* A width x height LINEAR XRGB8888 dma-buf, mapped for the CPU as long as
 * it lives (wlr_buffer data-pointer access: screencopy, screenshots);
 * NULL on failure (logged). */
struct wlr_buffer *vt_output_dmabufs_allocate(struct vt_output_dmabufs *dmabufs,
		int width, int height);
/* "GBM on /dev/dri/card0", "memfd" */
const char *vt_output_dmabufs_source(const struct vt_output_dmabufs *dmabufs);
/* Whether buffer came from vt_output_dmabufs_allocate; *fd, *offset: its
 * plane's (the buffer's). */
bool vt_output_dmabuf_plane(struct wlr_buffer *buffer, int *fd,
		uint32_t *offset);

#endif
