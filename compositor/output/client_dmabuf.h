/*
 * Client dmabufs read with the CPU (client_dmabuf.c): which ones vitrail
 * takes, and a read bracket that serves wl_shm and dmabuf buffers alike.
 */
#ifndef VITRAIL_CLIENT_DMABUF_H
#define VITRAIL_CLIENT_DMABUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wlr_buffer;
struct wlr_dmabuf_attributes;
struct wlr_drm_format_set;

/* Adds the (format, LINEAR) pairs vitrail reads to set. */
bool vt_client_dmabuf_formats(struct wlr_drm_format_set *set);
/* Whether vitrail can read the buffer's dmabuf; why not in why. The
 * first time it does, the buffer is checked and mapped (the mapping goes
 * with the buffer); later calls find the mapping and check nothing. */
bool vt_client_dmabuf_accept(struct wlr_buffer *buffer,
		const struct wlr_dmabuf_attributes *attribs, char *why, size_t why_len);
/* The buffer's pixels for reading (a wl_shm or other CPU buffer, or a
 * dmabuf that vt_client_dmabuf_accept takes, mapped once and synced).
 * False: not readable, and no vt_client_buffer_end_read is due. */
bool vt_client_buffer_begin_read(struct wlr_buffer *buffer, void **data,
		uint32_t *format, size_t *stride);
void vt_client_buffer_end_read(struct wlr_buffer *buffer);

struct vr_image;
struct wl_event_loop;

/* An image over the pixels of a dmabuf that vt_client_dmabuf_accept took,
 * without a copy, for an engine that samples it in place
 * (vr_engine_imports_dmabuf): ARGB8888 or XRGB8888 rows on 4-byte
 * boundaries. The buffer stays locked (the client gets no release)
 * until the renderer is done with the image. NULL: not such a buffer, or
 * out of memory; the caller copies it. */
struct vr_image *vt_client_dmabuf_image(struct wlr_buffer *buffer);
/* How many vt_client_dmabuf_image made, ever. */
unsigned vt_client_dmabuf_images(void);
/* The renderer gives images back on any thread: the buffers are unlocked
 * on the loop's (the main) thread, or at once once finish ran. */
bool vt_client_dmabuf_releases_init(struct wl_event_loop *loop);
void vt_client_dmabuf_releases_finish(void);

/* DMA_BUF_IOCTL_SYNC with flags (DMA_BUF_SYNC_START or _END, and _READ
 * and/or _WRITE) on a dma-buf the CPU reads or writes through a mapping,
 * retried on EINTR and EAGAIN; false (logged) on another error. */
bool vt_dmabuf_sync(int fd, uint64_t flags);

#endif
