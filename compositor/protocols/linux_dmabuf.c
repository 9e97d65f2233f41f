/*
 * linux-dmabuf: clients that render on a GPU (Mesa's EGL and Vulkan WSI,
 * GTK, Firefox, Xwayland's glamor) send their frames as dmabufs and find
 * the device to render on through the feedback's main_device.
 *
 * The global exists only where a client can make dmabufs and vitrail can
 * read them: there must be a DRM render node, whose device number is
 * the main device: the Vulkan engine's device's where the driver names it
 * (VK_EXT_physical_device_drm: the GPU clients should render on), else
 * the first that opens. Its formats are the (format, LINEAR) pairs that
 * client_dmabuf.c reads with the CPU, on both engines; wlroots'
 * implementation (version 4) checks the requests and posts the
 * protocol's errors, and asks the surface renderer
 * (client_buffer_renderer.c) whether it takes each buffer.
 *
 * Implicit sync without stalling: a wl_surface.commit whose new buffer is
 * a dma-buf that the GPU is still writing (poll says not readable) is
 * held, as wlroots caches a commit while the pending state is locked,
 * until the dma-buf becomes readable, so that the copy at commit
 * (client_dmabuf.c's DMA_BUF_IOCTL_SYNC) never waits for a client's GPU
 * work on the main thread. Commits behind it wait too, in order. The
 * commit is seen before wlroots handles it through protocols.c's request
 * logger (vt_linux_dmabuf_before_commit).
 *
 * Xwayland is started without glamor (XWAYLAND_NO_GLAMOR=1, unless the
 * user set it): wlroots 0.15 lists the implicit modifier with every
 * format, and a glamor buffer with it would be refused by create_immed's
 * invalid_wl_buffer error, which disconnects Xwayland and every X client
 * with it; without glamor X windows come as wl_shm, as they did before.
 *
 * VITRAIL_DMABUF_DEVICE names the node instead ("none": no linux-dmabuf);
 * any character device is taken, so that tests without a GPU can have the
 * global (with /dev/null) and send sealed memfds.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/render/dmabuf.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_linux_dmabuf_v1.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>

#include "output/client_buffer_renderer.h"
#include "output/engine.h"
#include "protocols/linux_dmabuf.h"
#include "server.h"

/* A commit held until its dma-buf is readable. */
struct fence_wait {
	struct wlr_surface *surface;
	uint32_t seq; /* the locked state */
	int fd; /* a duplicate of the dma-buf's */
	struct wl_event_source *source;
	struct wl_listener surface_destroy;
};

static void fence_wait_destroy(struct fence_wait *wait) {
	wl_event_source_remove(wait->source);
	close(wait->fd);
	wl_list_remove(&wait->surface_destroy.link);
	free(wait);
}

static int handle_fence_readable(int fd, uint32_t mask, void *data) {
	struct fence_wait *wait = data;
	struct wlr_surface *surface = wait->surface;
	uint32_t seq = wait->seq;
	fence_wait_destroy(wait);
	wlr_surface_unlock_cached(surface, seq); /* may apply it now */
	return 0;
}

static void handle_wait_surface_destroy(struct wl_listener *listener,
		void *data) {
	struct fence_wait *wait = wl_container_of(listener, wait, surface_destroy);
	fence_wait_destroy(wait);
}

void vt_linux_dmabuf_before_commit(struct wlr_surface *surface) {
	struct wlr_dmabuf_attributes attribs;
	if (!(surface->pending.committed & WLR_SURFACE_STATE_BUFFER) ||
			surface->pending.buffer == NULL ||
			!wlr_buffer_get_dmabuf(surface->pending.buffer, &attribs)) {
		return;
	}
	/* readable: its writers are done (a memfd always is) */
	struct pollfd pfd = { .fd = attribs.fd[0], .events = POLLIN };
	if (poll(&pfd, 1, 0) != 0) {
		return;
	}
	struct fence_wait *wait = calloc(1, sizeof(*wait));
	int fd = fcntl(attribs.fd[0], F_DUPFD_CLOEXEC, 0);
	struct wl_event_source *source = fd < 0 || wait == NULL ?
			NULL :
			wl_event_loop_add_fd(
					wl_display_get_event_loop(wl_client_get_display(
							wl_resource_get_client(surface->resource))),
					fd, WL_EVENT_READABLE, handle_fence_readable, wait);
	if (source == NULL) {
		/* the copy at commit waits for the fences instead */
		if (fd >= 0) {
			close(fd);
		}
		free(wait);
		return;
	}
	wait->surface = surface;
	wait->fd = fd;
	wait->source = source;
	wait->seq = wlr_surface_lock_pending(surface);
	wait->surface_destroy.notify = handle_wait_surface_destroy;
	wl_signal_add(&surface->events.destroy, &wait->surface_destroy);
}

/* The node to announce: VITRAIL_DMABUF_DEVICE's, the Vulkan device's, or
 * the first render node that opens; -1 for none. */
static int open_node(struct vt_server *server) {
	const char *path = getenv("VITRAIL_DMABUF_DEVICE");
	if (path != NULL && path[0] != '\0') {
		if (strcmp(path, "none") == 0) {
			return -1;
		}
		int fd = open(path, O_RDWR | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
			wlr_log(WLR_ERROR, "VITRAIL_DMABUF_DEVICE=%s: %s; no linux-dmabuf",
					path, fd < 0 ? strerror(errno) : "not a character device");
			if (fd >= 0) {
				close(fd);
			}
			return -1;
		}
		return fd;
	}
	int fd = vt_server_render_node_open(server, NULL, 0);
	for (int n = 128; fd < 0 && n < 192; n++) {
		char node[32];
		snprintf(node, sizeof(node), "/dev/dri/renderD%d", n);
		fd = open(node, O_RDWR | O_CLOEXEC);
	}
	return fd;
}

bool vt_linux_dmabuf_init(struct vt_server *server) {
	int fd = open_node(server);
	if (fd < 0) {
		wlr_log(WLR_INFO, "no DRM render node: no linux-dmabuf");
		return true;
	}
	if (!vt_surface_renderer_set_drm_fd(server->surface_renderer, fd)) {
		close(fd);
		return false;
	}
	if (wlr_linux_dmabuf_v1_create(server->display, server->surface_renderer) ==
			NULL) {
		vt_surface_renderer_set_drm_fd(server->surface_renderer, -1);
		return false;
	}
	return setenv("XWAYLAND_NO_GLAMOR", "1", 0) == 0;
}
