/*
 * Client dmabufs (linux-dmabuf, protocols/linux_dmabuf.c) read with the
 * CPU. On every engine a surface's damaged pixels are copied into its
 * image at commit (surface.c); a dmabuf joins that path when it is one
 * plane, LINEAR, of a format the copy converts, and its rows lie inside
 * the file. It is mapped once per wlr_buffer (an addon that goes with the
 * buffer), and each read is bracketed by DMA_BUF_IOCTL_SYNC, whose start
 * waits for the fences of the buffer's last writer (implicit sync) and
 * makes the CPU's view coherent.
 *
 * A descriptor that is not a dma-buf (the sync ioctl says ENOTTY) is taken
 * only as a memfd sealed against shrinking: a file a client could truncate
 * under the mapping would make the compositor's reads fault (SIGBUS).
 * Tests send such memfds where no device can make dma-bufs.
 *
 * Where the engine samples dma-bufs in place (vr_engine_imports_dmabuf:
 * the Vulkan renderer with VK_EXT_external_memory_dma_buf), an ARGB8888
 * or XRGB8888 buffer is not copied: vt_client_dmabuf_image makes an
 * external image over its mapping and fd, and keeps the wlr_buffer
 * locked (no wl_buffer.release) until the renderer calls the image's
 * release: every frame that sampled it has completed on the GPU. The
 * client cannot write into it meanwhile, so the pixels the image names
 * stay as committed. Implicit sync: the commit was held until the
 * dma-buf's writers were done (linux_dmabuf.c).
 */
#define _GNU_SOURCE /* F_GET_SEALS */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <vitrail/renderer.h>
#include <wayland-server-core.h>
#include <wlr/render/dmabuf.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/addon.h>
#include <wlr/util/log.h>

#include "output/client_dmabuf.h"

static const struct {
	uint32_t fourcc;
	uint32_t bytes;
} readable[] = {
	{ DRM_FORMAT_ARGB8888, 4 },
	{ DRM_FORMAT_XRGB8888, 4 },
	{ DRM_FORMAT_ABGR8888, 4 },
	{ DRM_FORMAT_XBGR8888, 4 },
	{ DRM_FORMAT_RGB565, 2 },
};

static uint32_t format_bytes(uint32_t fourcc) {
	for (size_t i = 0; i < sizeof(readable) / sizeof(readable[0]); i++) {
		if (readable[i].fourcc == fourcc) {
			return readable[i].bytes;
		}
	}
	return 0;
}

bool vt_client_dmabuf_formats(struct wlr_drm_format_set *set) {
	for (size_t i = 0; i < sizeof(readable) / sizeof(readable[0]); i++) {
		if (!wlr_drm_format_set_add(set, readable[i].fourcc,
					DRM_FORMAT_MOD_LINEAR)) {
			return false;
		}
	}
	return true;
}

/* 1: a dma-buf, 0: a memfd that cannot shrink, -1: neither. The sync
 * ioctl with flags it refuses answers EINVAL on a dma-buf without
 * waiting for anything, ENOTTY on any other file. */
static int fd_kind(int fd) {
	struct dma_buf_sync probe = { .flags = ~(__u64)0 };
	if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &probe) == 0 || errno != ENOTTY) {
		return 1;
	}
	int seals = fcntl(fd, F_GET_SEALS);
	return seals >= 0 && (seals & F_SEAL_SHRINK) != 0 ? 0 : -1;
}

/* fd_kind of a dmabuf vitrail can read, -1 (why in why) when it cannot. */
static int dmabuf_check(const struct wlr_dmabuf_attributes *attribs, char *why,
		size_t why_len) {
	uint32_t bytes = format_bytes(attribs->format);
	off_t size = -1;
	int kind = -1;
	if (attribs->width < 1 || attribs->height < 1) {
		snprintf(why, why_len, "size %dx%d", attribs->width, attribs->height);
	} else if (bytes == 0) {
		snprintf(why, why_len, "format 0x%08x is not one vitrail reads",
				attribs->format);
	} else if (attribs->n_planes != 1) {
		snprintf(why, why_len, "%d planes (vitrail reads one)",
				attribs->n_planes);
	} else if (attribs->modifier != DRM_FORMAT_MOD_LINEAR) {
		snprintf(why, why_len,
				"modifier 0x%016llx (vitrail reads LINEAR buffers only)",
				(unsigned long long)attribs->modifier);
	} else if ((uint64_t)attribs->stride[0] <
			(uint64_t)attribs->width * bytes) {
		snprintf(why, why_len, "stride %u under a row of %d pixels",
				attribs->stride[0], attribs->width);
	} else if ((size = lseek(attribs->fd[0], 0, SEEK_END)) < 0 ||
			(uint64_t)attribs->offset[0] +
							(uint64_t)attribs->stride[0] *
									(uint64_t)(attribs->height - 1) +
							(uint64_t)attribs->width * bytes >
					(uint64_t)size) {
		snprintf(why, why_len, "rows end past the buffer's %lld bytes",
				(long long)size);
	} else if ((kind = fd_kind(attribs->fd[0])) < 0) {
		snprintf(why, why_len,
				"not a dma-buf (nor a memfd sealed against shrinking)");
	}
	return kind;
}

struct dmabuf_map {
	struct wlr_addon addon;
	void *data;
	size_t len;
	int fd; /* the buffer's; lives as long as it */
	bool dmabuf; /* bracket reads with the sync ioctl */
	bool reading;
};

static void map_destroy(struct wlr_addon *addon) {
	struct dmabuf_map *map = wl_container_of(addon, map, addon);
	wlr_addon_finish(&map->addon);
	if (map->data != MAP_FAILED) {
		munmap(map->data, map->len);
	}
	free(map);
}

static const struct wlr_addon_interface map_impl = {
	.name = "vt_client_dmabuf_map",
	.destroy = map_destroy,
};

bool vt_dmabuf_sync(int fd, uint64_t flags) {
	struct dma_buf_sync sync = { .flags = flags };
	while (ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) != 0) {
		if (errno != EINTR && errno != EAGAIN) {
			wlr_log_errno(WLR_ERROR, "DMA_BUF_IOCTL_SYNC");
			return false;
		}
	}
	return true;
}

/* The buffer's mapping, made (checked and mapped) the first time; NULL
 * (why in why) for a dmabuf vitrail cannot read. */
static struct dmabuf_map *dmabuf_map(struct wlr_buffer *buffer,
		const struct wlr_dmabuf_attributes *attribs, char *why,
		size_t why_len) {
	struct wlr_addon *addon =
			wlr_addon_find(&buffer->addons, buffer, &map_impl);
	if (addon != NULL) {
		struct dmabuf_map *map = wl_container_of(addon, map, addon);
		return map;
	}
	int kind = dmabuf_check(attribs, why, why_len);
	if (kind < 0) {
		return NULL;
	}
	struct dmabuf_map *map = calloc(1, sizeof(*map));
	if (map == NULL) {
		snprintf(why, why_len, "out of memory");
		return NULL;
	}
	map->fd = attribs->fd[0];
	map->dmabuf = kind == 1;
	map->len = (size_t)attribs->offset[0] +
			(size_t)attribs->stride[0] * (size_t)attribs->height;
	off_t size = lseek(map->fd, 0, SEEK_END);
	if (size >= 0 && (uint64_t)map->len > (uint64_t)size) {
		map->len = (size_t)size; /* the last row's padding */
	}
	map->data = mmap(NULL, map->len, PROT_READ, MAP_SHARED, map->fd, 0);
	wlr_addon_init(&map->addon, &buffer->addons, buffer, &map_impl);
	if (map->data == MAP_FAILED) {
		wlr_log_errno(WLR_ERROR, "cannot map a client dmabuf");
	}
	return map;
}

bool vt_client_dmabuf_accept(struct wlr_buffer *buffer,
		const struct wlr_dmabuf_attributes *attribs, char *why,
		size_t why_len) {
	return dmabuf_map(buffer, attribs, why, why_len) != NULL;
}

bool vt_client_buffer_begin_read(struct wlr_buffer *buffer, void **data,
		uint32_t *format, size_t *stride) {
	if (buffer->impl->begin_data_ptr_access != NULL) {
		return wlr_buffer_begin_data_ptr_access(buffer,
				WLR_BUFFER_DATA_PTR_ACCESS_READ, data, format, stride);
	}
	struct wlr_dmabuf_attributes attribs;
	if (!wlr_buffer_get_dmabuf(buffer, &attribs)) {
		return false;
	}
	char why[128];
	struct dmabuf_map *map = dmabuf_map(buffer, &attribs, why, sizeof(why));
	if (map == NULL) {
		wlr_log(WLR_ERROR, "client dmabuf not readable: %s", why);
		return false;
	}
	if (map->data == MAP_FAILED || map->reading ||
			(map->dmabuf &&
					!vt_dmabuf_sync(map->fd,
							DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ))) {
		return false;
	}
	map->reading = true;
	*data = (char *)map->data + attribs.offset[0];
	*format = attribs.format;
	*stride = attribs.stride[0];
	return true;
}

void vt_client_buffer_end_read(struct wlr_buffer *buffer) {
	if (buffer->impl->begin_data_ptr_access != NULL) {
		wlr_buffer_end_data_ptr_access(buffer);
		return;
	}
	struct wlr_addon *addon =
			wlr_addon_find(&buffer->addons, buffer, &map_impl);
	if (addon == NULL) {
		return;
	}
	struct dmabuf_map *map = wl_container_of(addon, map, addon);
	if (map->reading && map->dmabuf) {
		vt_dmabuf_sync(map->fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
	}
	map->reading = false;
}

/* ---- buffers sampled in place ------------------------------------------- */

/* Buffers whose images the renderer gave back, from whichever thread it
 * did, for the loop's thread to unlock. Shared: lock. */
static struct {
	pthread_mutex_t lock;
	struct wl_array buffers; /* struct wlr_buffer *; under lock */
	int fd; /* eventfd: buffers are waiting; -1 before init, after finish */
	struct wl_event_source *source;
} releases = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

static unsigned images_made; /* the loop's thread */

unsigned vt_client_dmabuf_images(void) {
	return images_made;
}

static void unlock_released(void) {
	pthread_mutex_lock(&releases.lock);
	struct wl_array buffers = releases.buffers;
	wl_array_init(&releases.buffers);
	pthread_mutex_unlock(&releases.lock);
	struct wlr_buffer **buffer;
	wl_array_for_each(buffer, &buffers) {
		wlr_buffer_unlock(*buffer);
	}
	wl_array_release(&buffers);
}

static int handle_released(int fd, uint32_t mask, void *data) {
	uint64_t n;
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN) {
		wlr_log_errno(WLR_ERROR, "client dmabufs: release eventfd");
	}
	unlock_released();
	return 0;
}

/* The image's release (vr_image_source): any thread. */
static void image_released(void *data) {
	struct wlr_buffer *buffer = data;
	pthread_mutex_lock(&releases.lock);
	int fd = releases.fd;
	struct wlr_buffer **slot =
			fd >= 0 ? wl_array_add(&releases.buffers, sizeof(*slot)) : NULL;
	if (slot != NULL) {
		*slot = buffer;
	}
	pthread_mutex_unlock(&releases.lock);
	if (fd < 0) {
		/* after finish: the renderer is destroyed on the main thread */
		wlr_buffer_unlock(buffer);
		return;
	}
	if (slot == NULL) {
		/* out of memory: the buffer stays locked (a leak, not a
		 * client writing into pixels being sampled) */
		wlr_log(WLR_ERROR, "client dmabufs: out of memory");
		return;
	}
	uint64_t one = 1;
	if (write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
		wlr_log_errno(WLR_ERROR, "client dmabufs: release eventfd");
	}
}

bool vt_client_dmabuf_releases_init(struct wl_event_loop *loop) {
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fd < 0) {
		wlr_log_errno(WLR_ERROR, "client dmabufs: eventfd");
		return false;
	}
	releases.source = wl_event_loop_add_fd(loop, fd, WL_EVENT_READABLE,
			handle_released, NULL);
	if (releases.source == NULL) {
		close(fd);
		return false;
	}
	pthread_mutex_lock(&releases.lock);
	wl_array_init(&releases.buffers);
	releases.fd = fd;
	pthread_mutex_unlock(&releases.lock);
	return true;
}

void vt_client_dmabuf_releases_finish(void) {
	if (releases.source == NULL) {
		return;
	}
	wl_event_source_remove(releases.source);
	releases.source = NULL;
	pthread_mutex_lock(&releases.lock);
	int fd = releases.fd;
	releases.fd = -1;
	pthread_mutex_unlock(&releases.lock);
	close(fd);
	unlock_released();
}

struct vr_image *vt_client_dmabuf_image(struct wlr_buffer *buffer) {
	struct wlr_dmabuf_attributes attribs;
	if (releases.fd < 0 || !wlr_buffer_get_dmabuf(buffer, &attribs) ||
			(attribs.format != DRM_FORMAT_ARGB8888 &&
					attribs.format != DRM_FORMAT_XRGB8888) ||
			attribs.offset[0] % 4 != 0 || attribs.stride[0] % 4 != 0) {
		return NULL;
	}
	char why[128];
	struct dmabuf_map *map = dmabuf_map(buffer, &attribs, why, sizeof(why));
	if (map == NULL || map->data == MAP_FAILED) {
		return NULL;
	}
	struct vr_image_source source = {
		.pixels = (const char *)map->data + attribs.offset[0],
		.stride = (int32_t)attribs.stride[0],
		.fd = attribs.fd[0],
		.offset = attribs.offset[0],
		.release = image_released,
		.data = wlr_buffer_lock(buffer),
	};
	struct vr_image *image =
			vr_image_create_external(attribs.width, attribs.height,
					attribs.format == DRM_FORMAT_XRGB8888 ? VR_FORMAT_XRGB8888 :
															VR_FORMAT_ARGB8888,
					&source);
	if (image == NULL) {
		wlr_buffer_unlock(buffer);
	} else {
		images_made++;
	}
	return image;
}
