/*
 * Output buffers that stay on the device. Where the Vulkan engine imports
 * dma-bufs and the backend takes them, an output's buffers are LINEAR
 * XRGB8888 dma-bufs allocated with GBM (with scan-out usage) on the DRM
 * backend's device: the engine copies each composed frame from its
 * render target into the buffer on the GPU (vr_engine_buffer_create_dmabuf)
 * and the display scans that buffer out, so no frame's pixels cross the
 * bus. A nested session's buffers come from the Vulkan device's render
 * node and go to the parent compositor through its linux-dmabuf.
 *
 * Each buffer is also mapped for the CPU as long as it lives: wlroots'
 * screencopy and vitrail's screenshots read it, and the CPU engine draws
 * into it after a device loss. A buffer the engine does not import, or a
 * backend that refuses one (output_buffers.c, output_frame.c), sends the
 * output back to host memory (wlroots' allocator), as before.
 */
#define _GNU_SOURCE /* memfd_create */
#include <drm_fourcc.h>
#include <fcntl.h>
#include <gbm.h>
#include <linux/dma-buf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wlr/backend.h>
#include <xf86drm.h>
#include <wlr/backend/multi.h>
#include <wlr/backend/wayland.h>
#include <wlr/config.h>
#include <wlr/render/dmabuf.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>
#if WLR_HAS_X11_BACKEND
#include <wlr/backend/x11.h>
#endif

#include "output/client_dmabuf.h"
#include "output/engine.h"
#include "output/output_dmabuf.h"
#include "server.h"

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

struct vt_output_dmabufs {
	enum vt_output_dmabuf_mode mode; /* GBM or MEMFD */
	struct gbm_device *gbm;
	int fd; /* the GBM device's: a render node opened here */
	char source[96]; /* "GBM on <path>" */
	/* the server's reference and one per live buffer */
	int refs;
};

struct output_dmabuf {
	struct wlr_buffer base;
	struct vt_output_dmabufs *dmabufs;
	struct wlr_dmabuf_attributes attribs; /* one plane, LINEAR */
	struct gbm_bo *bo; /* NULL for a memfd */
	void *map;
	size_t map_size;
};

/* VITRAIL_OUTPUT_DMABUF's mode; a bad value is logged, and auto holds. */
static enum vt_output_dmabuf_mode mode_from_env(void) {
	const char *value = getenv("VITRAIL_OUTPUT_DMABUF");
	if (value == NULL || value[0] == '\0' || strcmp(value, "auto") == 0) {
		return VT_OUTPUT_DMABUF_AUTO;
	} else if (strcmp(value, "0") == 0 || strcmp(value, "none") == 0) {
		return VT_OUTPUT_DMABUF_OFF;
	} else if (strcmp(value, "gbm") == 0) {
		return VT_OUTPUT_DMABUF_GBM;
	} else if (strcmp(value, "memfd") == 0) {
		return VT_OUTPUT_DMABUF_MEMFD;
	}
	wlr_log(WLR_ERROR,
			"VITRAIL_OUTPUT_DMABUF=%s: expected auto, 0, none, gbm or memfd; "
			"auto it is",
			value);
	return VT_OUTPUT_DMABUF_AUTO;
}

static void dmabufs_unref(struct vt_output_dmabufs *dmabufs) {
	if (--dmabufs->refs > 0) {
		return;
	}
	if (dmabufs->gbm != NULL) {
		gbm_device_destroy(dmabufs->gbm);
	}
	if (dmabufs->fd >= 0) {
		close(dmabufs->fd);
	}
	free(dmabufs);
}

/* ---- the buffers -------------------------------------------------------- */

static const struct wlr_buffer_impl output_dmabuf_impl;

static struct output_dmabuf *output_dmabuf_from(struct wlr_buffer *buffer) {
	if (buffer->impl != &output_dmabuf_impl) {
		return NULL;
	}
	struct output_dmabuf *dmabuf = wl_container_of(buffer, dmabuf, base);
	return dmabuf;
}

/* Around a CPU access of a GBM buffer (a memfd's mapping is the memory
 * itself: no ioctl). */
static void output_dmabuf_sync(struct output_dmabuf *dmabuf, uint64_t flags) {
	if (dmabuf->bo != NULL) {
		vt_dmabuf_sync(dmabuf->attribs.fd[0], flags);
	}
}

static void output_dmabuf_destroy(struct wlr_buffer *buffer) {
	struct output_dmabuf *dmabuf = output_dmabuf_from(buffer);
	if (dmabuf->map != NULL) {
		munmap(dmabuf->map, dmabuf->map_size);
	}
	wlr_dmabuf_attributes_finish(&dmabuf->attribs);
	if (dmabuf->bo != NULL) {
		gbm_bo_destroy(dmabuf->bo);
	}
	dmabufs_unref(dmabuf->dmabufs);
	free(dmabuf);
}

static bool output_dmabuf_get_dmabuf(struct wlr_buffer *buffer,
		struct wlr_dmabuf_attributes *attribs) {
	*attribs = output_dmabuf_from(buffer)->attribs;
	return true;
}

static bool output_dmabuf_begin_access(struct wlr_buffer *buffer,
		uint32_t flags, void **data, uint32_t *format, size_t *stride) {
	struct output_dmabuf *dmabuf = output_dmabuf_from(buffer);
	uint64_t sync = DMA_BUF_SYNC_START;
	sync |= (flags & WLR_BUFFER_DATA_PTR_ACCESS_READ) ? DMA_BUF_SYNC_READ : 0;
	sync |= (flags & WLR_BUFFER_DATA_PTR_ACCESS_WRITE) ? DMA_BUF_SYNC_WRITE : 0;
	output_dmabuf_sync(dmabuf, sync);
	*data = (uint8_t *)dmabuf->map + dmabuf->attribs.offset[0];
	*format = dmabuf->attribs.format;
	*stride = dmabuf->attribs.stride[0];
	return true;
}

static void output_dmabuf_end_access(struct wlr_buffer *buffer) {
	struct output_dmabuf *dmabuf = output_dmabuf_from(buffer);
	output_dmabuf_sync(dmabuf,
			DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ | DMA_BUF_SYNC_WRITE);
}

static const struct wlr_buffer_impl output_dmabuf_impl = {
	.destroy = output_dmabuf_destroy,
	.get_dmabuf = output_dmabuf_get_dmabuf,
	.begin_data_ptr_access = output_dmabuf_begin_access,
	.end_data_ptr_access = output_dmabuf_end_access,
};

/* A sealed memfd of stride x height bytes: what a vitrail parent with
 * VITRAIL_DMABUF_DEVICE maps as a LINEAR dma-buf, and what Mesa 25's
 * lavapipe imports as one. */
static bool memfd_plane(struct output_dmabuf *dmabuf, int width, int height) {
	uint32_t stride = ((uint32_t)width * 4 + 63) & ~63u;
	int fd = memfd_create("vitrail-output", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		return false;
	}
	if (ftruncate(fd, (off_t)stride * height) != 0 ||
			fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
		close(fd);
		return false;
	}
	dmabuf->attribs.fd[0] = fd;
	dmabuf->attribs.stride[0] = stride;
	dmabuf->attribs.modifier = DRM_FORMAT_MOD_LINEAR;
	return true;
}

static bool gbm_plane(struct output_dmabuf *dmabuf, int width, int height) {
	struct gbm_bo *bo = gbm_bo_create(dmabuf->dmabufs->gbm, (uint32_t)width,
			(uint32_t)height, GBM_FORMAT_XRGB8888,
			GBM_BO_USE_SCANOUT | GBM_BO_USE_RENDERING | GBM_BO_USE_LINEAR);
	if (bo == NULL) {
		return false;
	}
	int fd = gbm_bo_get_plane_count(bo) == 1 ? gbm_bo_get_fd(bo) : -1;
	if (fd < 0) {
		gbm_bo_destroy(bo);
		return false;
	}
	dmabuf->bo = bo;
	dmabuf->attribs.fd[0] = fd;
	dmabuf->attribs.stride[0] = gbm_bo_get_stride_for_plane(bo, 0);
	dmabuf->attribs.offset[0] = gbm_bo_get_offset(bo, 0);
	/* asked for LINEAR; a driver without modifiers says INVALID (the
	 * implicit layout, which LINEAR usage made linear) */
	dmabuf->attribs.modifier = gbm_bo_get_modifier(bo);
	return true;
}

struct wlr_buffer *vt_output_dmabufs_allocate(struct vt_output_dmabufs *dmabufs,
		int width, int height) {
	struct output_dmabuf *dmabuf = calloc(1, sizeof(*dmabuf));
	if (dmabuf == NULL) {
		return NULL;
	}
	dmabuf->dmabufs = dmabufs;
	dmabuf->attribs = (struct wlr_dmabuf_attributes){
		.width = width,
		.height = height,
		.format = DRM_FORMAT_XRGB8888,
		.n_planes = 1,
		.fd = { -1, -1, -1, -1 },
	};
	bool ok = dmabufs->mode == VT_OUTPUT_DMABUF_MEMFD ?
			memfd_plane(dmabuf, width, height) :
			gbm_plane(dmabuf, width, height);
	const char *why = "allocation failed";
	if (ok) {
		off_t size = lseek(dmabuf->attribs.fd[0], 0, SEEK_END);
		why = "not mappable";
		ok = size > 0 &&
				(uint64_t)dmabuf->attribs.offset[0] +
								(uint64_t)dmabuf->attribs.stride[0] *
										(uint64_t)height <=
						(uint64_t)size;
		if (ok) {
			dmabuf->map_size = (size_t)size;
			dmabuf->map = mmap(NULL, dmabuf->map_size, PROT_READ | PROT_WRITE,
					MAP_SHARED, dmabuf->attribs.fd[0], 0);
			ok = dmabuf->map != MAP_FAILED;
			if (!ok) {
				dmabuf->map = NULL;
			}
		}
	}
	if (!ok) {
		wlr_log(WLR_ERROR, "%dx%d output dma-buf (%s): %s", width, height,
				dmabufs->source, why);
		wlr_dmabuf_attributes_finish(&dmabuf->attribs);
		if (dmabuf->bo != NULL) {
			gbm_bo_destroy(dmabuf->bo);
		}
		free(dmabuf);
		return NULL;
	}
	dmabufs->refs++;
	wlr_buffer_init(&dmabuf->base, &output_dmabuf_impl, width, height);
	return &dmabuf->base;
}

bool vt_output_dmabuf_plane(struct wlr_buffer *buffer, int *fd,
		uint32_t *offset) {
	struct output_dmabuf *dmabuf = output_dmabuf_from(buffer);
	if (dmabuf == NULL) {
		return false;
	}
	*fd = dmabuf->attribs.fd[0];
	*offset = dmabuf->attribs.offset[0];
	return true;
}

/* ---- the allocator ------------------------------------------------------ */

static void find_nested(struct wlr_backend *backend, void *data) {
	bool *nested = data;
	if (wlr_backend_is_wl(backend)) {
		*nested = true;
	}
#if WLR_HAS_X11_BACKEND
	if (wlr_backend_is_x11(backend)) {
		*nested = true;
	}
#endif
}

static bool backend_nested(struct wlr_backend *backend) {
	bool nested = false;
	if (wlr_backend_is_multi(backend)) {
		wlr_multi_for_each_backend(backend, find_nested, &nested);
	} else {
		find_nested(backend, &nested);
	}
	return nested;
}

struct vt_output_dmabufs *vt_output_dmabufs_create(struct vt_server *server) {
	enum vt_output_dmabuf_mode mode = mode_from_env();
	if (mode == VT_OUTPUT_DMABUF_OFF) {
		wlr_log(WLR_INFO,
				"output buffers: host memory "
				"(VITRAIL_OUTPUT_DMABUF)");
		return NULL;
	}
	if (server->engine == NULL || !vr_engine_imports_dmabuf(server->engine)) {
		wlr_log(WLR_INFO,
				"output buffers: host memory (the %s engine "
				"imports no dma-bufs)",
				server->engine != NULL ? vr_engine_name(server->engine) :
										 "missing");
		return NULL;
	}
	if (server->opts.pipeline != VT_PIPELINE_ASYNC) {
		/* its baseline copies every frame out of the engine */
		wlr_log(WLR_INFO,
				"output buffers: host memory (the synchronous pipeline)");
		return NULL;
	}
	struct vt_output_dmabufs *dmabufs = calloc(1, sizeof(*dmabufs));
	if (dmabufs == NULL) {
		return NULL;
	}
	dmabufs->refs = 1;
	dmabufs->fd = -1;
	dmabufs->mode = mode == VT_OUTPUT_DMABUF_MEMFD ? VT_OUTPUT_DMABUF_MEMFD :
													 VT_OUTPUT_DMABUF_GBM;
	if (dmabufs->mode == VT_OUTPUT_DMABUF_MEMFD) {
		snprintf(dmabufs->source, sizeof(dmabufs->source), "memfd");
		wlr_log(WLR_INFO, "output buffers: memfds (VITRAIL_OUTPUT_DMABUF)");
		return dmabufs;
	}
	/* The display's device, else (nested, or asked for) the render
	 * node of the device that draws. The display's is opened again, as
	 * its render node: GEM handles belong to an open file, and the DRM
	 * backend closes those of the buffers it imports. */
	char path[64] = "";
	int drm_fd = wlr_backend_get_drm_fd(server->backend);
	if (drm_fd >= 0) {
		char *node = drmGetRenderDeviceNameFromFd(drm_fd);
		if (node != NULL) {
			snprintf(path, sizeof(path), "%s", node);
			dmabufs->fd = open(node, O_RDWR | O_CLOEXEC);
			free(node);
		}
	} else if (mode == VT_OUTPUT_DMABUF_GBM ||
			backend_nested(server->backend)) {
		dmabufs->fd = vt_server_render_node_open(server, path, sizeof(path));
	}
	if (dmabufs->fd >= 0) {
		dmabufs->gbm = gbm_create_device(dmabufs->fd);
	}
	if (dmabufs->gbm == NULL) {
		wlr_log(WLR_INFO, "output buffers: host memory (%s)",
				dmabufs->fd < 0 ? "no DRM device" : "GBM failed");
		dmabufs_unref(dmabufs);
		return NULL;
	}
	snprintf(dmabufs->source, sizeof(dmabufs->source), "GBM on %s", path);
	wlr_log(WLR_INFO, "output buffers: dma-bufs from %s (%s)", dmabufs->source,
			gbm_device_get_backend_name(dmabufs->gbm));
	return dmabufs;
}

void vt_output_dmabufs_destroy(struct vt_output_dmabufs *dmabufs) {
	if (dmabufs != NULL) {
		dmabufs_unref(dmabufs);
	}
}

const char *vt_output_dmabufs_source(const struct vt_output_dmabufs *dmabufs) {
	return dmabufs->source;
}
