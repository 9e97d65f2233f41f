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
 * VITRAIL_DMABUF_DEVICE names the node instead ("none": no linux-dmabuf);
 * any character device is taken, so that tests without a GPU can have the
 * global (with /dev/null) and send sealed memfds.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <wlr/types/wlr_linux_dmabuf_v1.h>
#include <wlr/util/log.h>

#include "output/client_buffer_renderer.h"
#include "protocols/linux_dmabuf.h"
#include "server.h"

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
	int64_t major, minor;
	if (server->renderer != NULL &&
			vr_renderer_render_node(server->renderer, &major, &minor)) {
		char node[32];
		snprintf(node, sizeof(node), "/dev/dri/renderD%" PRId64, minor);
		int fd = open(node, O_RDWR | O_CLOEXEC);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 &&
				st.st_rdev == makedev((unsigned)major, (unsigned)minor)) {
			return fd;
		}
		wlr_log(WLR_ERROR,
				"the Vulkan device's render node %" PRId64 ":%" PRId64
				" is not %s",
				major, minor, node);
		if (fd >= 0) {
			close(fd);
		}
	}
	for (int n = 128; n < 192; n++) {
		char node[32];
		snprintf(node, sizeof(node), "/dev/dri/renderD%d", n);
		int fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			return fd;
		}
	}
	return -1;
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
	return true;
}
