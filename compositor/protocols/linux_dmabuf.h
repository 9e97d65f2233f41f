/*
 * zwp_linux_dmabuf_v1 (linux_dmabuf.c): wlroots' implementation, version
 * 4 with feedback, over the dmabufs that client_dmabuf.c reads.
 */
#ifndef VITRAIL_LINUX_DMABUF_H
#define VITRAIL_LINUX_DMABUF_H

#include <stdbool.h>

struct vt_server;
struct wlr_surface;

/* True also when there is no node to announce (no global then); false
 * when the global could not be made. */
bool vt_linux_dmabuf_init(struct vt_server *server);
/* Called on wl_surface.commit before wlroots handles it (protocols.c's
 * request logger): a new buffer that is a dma-buf still being written
 * holds the commit until it is readable. */
void vt_linux_dmabuf_before_commit(struct wlr_surface *surface);

#endif
