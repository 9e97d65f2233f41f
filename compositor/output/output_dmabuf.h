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

/* Where output dma-bufs come from (VITRAIL_OUTPUT_DMABUF). */
enum vt_output_dmabuf_mode {
	/* GBM on the DRM backend's device; a nested session's on the
	 * Vulkan device's render node; none on headless outputs */
	VT_OUTPUT_DMABUF_AUTO,
	VT_OUTPUT_DMABUF_OFF, /* "0" or "none": host memory */
	/* "gbm": GBM on the DRM backend's device or else the Vulkan
	 * device's render node, whatever the backend (device checks) */
	VT_OUTPUT_DMABUF_GBM,
	/* "memfd": sealed memfds standing for dma-bufs, for tests on
	 * machines without a DRM device (Mesa 25's lavapipe imports them,
	 * and a vitrail parent with VITRAIL_DMABUF_DEVICE takes them) */
	VT_OUTPUT_DMABUF_MEMFD,
};

/* The mode a VITRAIL_OUTPUT_DMABUF value names; false: not one. */
bool vt_output_dmabuf_parse(const char *value,
		enum vt_output_dmabuf_mode *mode);

struct vt_output_dmabufs;

/* The allocator for the server's backend and engine, or NULL where output
 * buffers are host memory: mode off, no engine importing dma-bufs, the
 * synchronous pipeline, or no device (all logged). The buffers it made
 * keep it alive past vt_output_dmabufs_destroy. */
struct vt_output_dmabufs *vt_output_dmabufs_create(struct vt_server *server,
		enum vt_output_dmabuf_mode mode);
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
