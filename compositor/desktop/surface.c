/*
 * wl_surface -> render tree.
 *
 * Every wl_surface gets a container node positioned in its parent's
 * coordinates; inside it, back to front: the subsurfaces below, the content
 * node holding the buffer's image, the scene content of the scene protocol
 * (scene.c) when the surface has one, the subsurfaces above. wlroots applies
 * the sync/desync subsurface semantics; we mirror the state it applied on
 * each commit event, copying the damaged part of the buffer into the
 * node's image so the client's buffer can go back as early as wlroots
 * releases it.
 *
 * Large buffers (a copy of VT_COPY_BANDED_BYTES or more) are copied in
 * bands instead, about VT_COPY_BAND_NS of the main thread per event-loop
 * turn (the first band at once: a copy that fits in it shows at this
 * commit), into an image that no node draws: a new one, or the spare (the
 * image the surface's previous banded copy replaced). The client's buffer
 * stays locked (not released) until the copy is complete. Meanwhile the
 * surface shows its previous image, and output.c neither samples it nor
 * sends its frame callbacks; once complete, the new image replaces the
 * old one in one tree change, so one frame shows the whole new buffer.
 * A later commit with new content takes over the copy in progress (its
 * buffer replaces the locked one, its damage adds rows to copy); one
 * without a buffer, or a small buffer copied at once, cancels it, and so
 * do the surface's destruction and the wl_buffer's (there is no
 * guarded access to the pool without it). A copy of 256 MiB of a sparse
 * memfd took 1.5 s of one event-loop turn before (page faults, mostly).
 * A client dmabuf is copied in bands the same way, read through its
 * mapping (client_dmabuf.c), which lives as long as the locked buffer: a
 * dma-buf (or sealed memfd) cannot shrink, so it needs no guard.
 */
#include <assert.h>
#include <drm_fourcc.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/render/dmabuf.h>
#include <wlr/render/wlr_texture.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>

#include "desktop/surface.h"
#include "loop.h"
#include "output/client_buffer_renderer.h"
#include "output/client_dmabuf.h"
#include "server.h"
#include "util.h"

struct vt_surface *vt_surface_from_wlr(struct wlr_surface *wlr_surface) {
	return wlr_surface->data;
}

/* Pixman formats for the wl_shm formats wlroots' pixman renderer accepts
 * that our renderer does not take directly (converted on upload). */
static pixman_format_code_t pixman_format_from_drm(uint32_t fmt) {
	switch (fmt) {
	case DRM_FORMAT_ARGB8888: return PIXMAN_a8r8g8b8;
	case DRM_FORMAT_XRGB8888: return PIXMAN_x8r8g8b8;
	case DRM_FORMAT_ABGR8888: return PIXMAN_a8b8g8r8;
	case DRM_FORMAT_XBGR8888: return PIXMAN_x8b8g8r8;
	case DRM_FORMAT_RGBA8888: return PIXMAN_r8g8b8a8;
	case DRM_FORMAT_RGBX8888: return PIXMAN_r8g8b8x8;
	case DRM_FORMAT_BGRA8888: return PIXMAN_b8g8r8a8;
	case DRM_FORMAT_BGRX8888: return PIXMAN_b8g8r8x8;
	case DRM_FORMAT_RGB565: return PIXMAN_r5g6b5;
	case DRM_FORMAT_ARGB2101010: return PIXMAN_a2r10g10b10;
	case DRM_FORMAT_XRGB2101010: return PIXMAN_x2r10g10b10;
	case DRM_FORMAT_ABGR2101010: return PIXMAN_a2b10g10r10;
	case DRM_FORMAT_XBGR2101010: return PIXMAN_x2b10g10r10;
	default: return 0;
	}
}

/*
 * The image bytes vitrail holds for one client's surfaces. Referenced by
 * the client until it is destroyed and by each of its surfaces, as
 * libwayland emits the client's destroy before destroying its resources.
 */
struct vt_client_budget {
	int refs;
	struct wl_listener client_destroy;
	uint64_t image_bytes;
	int subsurfaces; /* of its surfaces that vitrail placed */
};

static void budget_unref(struct vt_client_budget *budget) {
	if (budget != NULL && --budget->refs == 0) {
		free(budget);
	}
}

void vt_client_budget_unref(struct vt_client_budget *budget) {
	budget_unref(budget);
}

bool vt_client_budget_charge(struct vt_client_budget *budget, uint64_t release,
		uint64_t add, uint64_t *total) {
	uint64_t next = budget->image_bytes - release + add;
	if (total != NULL) {
		*total = next;
	}
	if (add > release && next > VT_CLIENT_IMAGE_BYTES) {
		return false;
	}
	budget->image_bytes = next;
	return true;
}

static void budget_handle_client_destroy(struct wl_listener *listener,
		void *data) {
	struct vt_client_budget *budget =
			wl_container_of(listener, budget, client_destroy);
	wl_list_remove(&budget->client_destroy.link);
	budget_unref(budget);
}

/* The client's budget with a reference for the caller; NULL when out of
 * memory. */
struct vt_client_budget *vt_client_budget_get(struct wl_client *client) {
	struct wl_listener *listener = wl_client_get_destroy_listener(client,
			budget_handle_client_destroy);
	struct vt_client_budget *budget;
	if (listener != NULL) {
		budget = wl_container_of(listener, budget, client_destroy);
		budget->refs++;
		return budget;
	}
	budget = calloc(1, sizeof(*budget));
	if (budget == NULL) {
		return NULL;
	}
	budget->refs = 2;
	budget->client_destroy.notify = budget_handle_client_destroy;
	wl_client_add_destroy_listener(client, &budget->client_destroy);
	return budget;
}

/* What an image costs vitrail: an external one's pixels are the
 * client's (vt_client_dmabuf_image). */
static uint64_t image_bytes(const struct vr_image *image) {
	return image == NULL || vr_image_external(image) ?
			0 :
			(uint64_t)vr_image_width(image) * vr_image_height(image) * 4;
}

static void surface_set_image(struct vt_surface *surface,
		struct vr_image *image) {
	surface->budget->image_bytes -= image_bytes(surface->image);
	vr_image_unref(surface->image);
	surface->image = image;
	surface->budget->image_bytes += image_bytes(image);
}

static void surface_drop_spare(struct vt_surface *surface) {
	surface->budget->image_bytes -= image_bytes(surface->spare);
	vr_image_unref(surface->spare);
	surface->spare = NULL;
}

/* The client buffer whose pixels surface->image now holds. A copied
 * dmabuf the size of an output is held until another buffer replaces it,
 * as GPU compositors hold every buffer they sample, so that direct
 * scan-out (output/scanout.c) may show it; other copied buffers go back
 * to the client at once. */
static void surface_set_image_buffer(struct vt_surface *surface,
		struct wlr_buffer *buffer) {
	surface->image_buffer = buffer;
	struct wlr_buffer *keep = NULL;
	struct wlr_dmabuf_attributes attribs;
	if (buffer != NULL && buffer != surface->held &&
			wlr_buffer_get_dmabuf(buffer, &attribs)) {
		struct wlr_output_layout_output *lo;
		wl_list_for_each(lo, &surface->server->layout->outputs, link) {
			if (lo->output->width == buffer->width &&
					lo->output->height == buffer->height) {
				keep = wlr_buffer_lock(buffer);
				break;
			}
		}
	} else if (buffer != NULL && buffer == surface->held) {
		return; /* the same buffer again: still held */
	}
	if (surface->held != NULL) {
		wlr_buffer_unlock(surface->held);
	}
	surface->held = keep;
}

static void surface_clear_content(struct vt_surface *surface) {
	vr_node_clear_content(surface->content);
	surface_set_image(surface, NULL);
	surface_set_image_buffer(surface, NULL);
	surface_drop_spare(surface);
}

/* ---- large buffers, copied in bands ------------------------------------- */

struct vt_surface_copy {
	struct vt_surface *surface;
	struct wlr_buffer *buffer; /* locked until the copy ends */
	/* A live wl_shm_buffer of the pool the pixels are in (the
	 * committed one, or one with the same memory): reads go through its
	 * SIGBUS guard; its destruction cancels the copy. NULL: a dmabuf,
	 * read through the buffer itself. */
	struct wl_resource *guard;
	struct wl_listener guard_destroy;
	struct vr_image *image; /* being filled; counted in the budget */
	uint32_t format; /* DRM format of the buffer */
	pixman_region32_t todo; /* full-width rows of image still to copy */
	struct wl_event_source *timer; /* the next band */
	uint32_t *rows; /* converted rows of a step (formats but 32-bit ones) */
	/* what the commits it waits for tell the path manager
	 * (presentation_paths.c) */
	bool new_content, replaced;
	/* for the log */
	uint64_t start_ns, busy_ns, longest_ns;
	uint32_t bands;
};

/* The content node shows surface->image with the surface's committed
 * geometry: redrawn whole, or (damage_only) where the commit damaged the
 * surface, for an image that replaces one of the same size whose pixels
 * are the same elsewhere (a client's next buffer). */
static void surface_show_image_damaged(struct vt_surface *surface,
		bool damage_only) {
	struct wlr_surface *wlr_surface = surface->wlr_surface;
	struct wlr_fbox src;
	wlr_surface_get_buffer_source_box(wlr_surface, &src);
	struct vr_rectf vr_src = { src.x, src.y, src.width, src.height };
	if (!damage_only) {
		vr_node_set_image(surface->content, surface->image, &vr_src,
				wlr_surface->current.width, wlr_surface->current.height,
				(enum vr_transform)wlr_surface->current.transform);
		return;
	}
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	wlr_surface_get_effective_damage(wlr_surface, &damage);
	vr_node_replace_image(surface->content, surface->image, &vr_src,
			wlr_surface->current.width, wlr_surface->current.height,
			(enum vr_transform)wlr_surface->current.transform, &damage);
	pixman_region32_fini(&damage);
}

static void surface_show_image(struct vt_surface *surface) {
	surface_show_image_damaged(surface, false);
}

/* End the copy: the buffer goes back to the client (released unless it
 * is locked elsewhere), and unless the surface is going away (resume
 * false), it is sampled again. Returns the image (the caller's
 * reference, still counted in the budget). */
static struct vr_image *copy_finish(struct vt_surface_copy *copy, bool resume) {
	struct vt_surface *surface = copy->surface;
	struct vr_image *image = copy->image;
	wl_list_remove(&copy->guard_destroy.link);
	wl_event_source_remove(copy->timer);
	wlr_buffer_unlock(copy->buffer);
	pixman_region32_fini(&copy->todo);
	free(copy->rows);
	free(copy);
	surface->copy = NULL;
	surface->server->surface_copies--;
	if (!resume) {
		return image;
	}
	vr_node_set_user_data(surface->content, surface);
	vt_server_schedule_update(surface->server);
	return image;
}

/* The commit's content is in the tree: events.content (the path manager
 * sends frame callbacks from it, presentation_paths.c). */
static void surface_content(struct vt_surface *surface, bool new_content,
		bool replaced) {
	struct vt_surface_content_event event = {
		.surface = surface,
		.new_content = new_content,
		.replaced = replaced,
	};
	wl_signal_emit(&surface->events.content, &event);
}

/* The commits that waited for the copy reach the path manager, which
 * sends their frame callbacks (presentation_paths.c), unless the surface's
 * commit handler runs: it tells it itself. */
static void copy_tell_paths(struct vt_surface *surface, bool new_content,
		bool replaced) {
	if (!surface->committing) {
		surface_content(surface, new_content, replaced);
	}
}

/* Give up the copy in progress, if any: the surface keeps its image.
 * resume: as copy_finish. */
static void surface_cancel_copy(struct vt_surface *surface, bool resume) {
	if (surface->copy == NULL) {
		return;
	}
	struct vr_image *image = copy_finish(surface->copy, resume);
	surface->budget->image_bytes -= image_bytes(image);
	vr_image_unref(image);
	if (resume) {
		copy_tell_paths(surface, false, false);
	}
}

static void copy_handle_guard_destroy(struct wl_listener *listener,
		void *data) {
	struct vt_surface_copy *copy =
			wl_container_of(listener, copy, guard_destroy);
	struct vt_server *server = copy->surface->server;
	wlr_log(WLR_DEBUG,
			"wl_buffer destroyed while vitrail copied it: the "
			"surface keeps its previous content");
	surface_cancel_copy(copy->surface, true);
	wl_signal_emit(&server->events.check_settled, server);
}

/* Copy rows [y, y + n) of the buffer (data, stride: the pool's mapping
 * now) into the copy's image. */
static bool copy_rows(struct vt_surface_copy *copy, const uint8_t *data,
		size_t stride, int32_t y, int32_t n) {
	struct vr_image *image = copy->image;
	int32_t width = vr_image_width(image);
	pixman_format_code_t pf = pixman_format_from_drm(copy->format);
	size_t row_bytes = (size_t)width * (PIXMAN_FORMAT_BPP(pf) / 8);
	const uint8_t *src = data + (size_t)y * stride;
	vt_prefault_buffer(copy->guard, src, (size_t)(n - 1) * stride + row_bytes);
	struct vr_box box = { 0, y, width, n };
	if (copy->format == DRM_FORMAT_ARGB8888 ||
			copy->format == DRM_FORMAT_XRGB8888) {
		return vr_image_write_box(image, src, (int32_t)stride, &box);
	}
	/* other formats: converted through pixman, which wants rows on
	 * 4-byte boundaries (wl_shm does not: RGB565 at an odd width) */
	size_t aligned = (row_bytes + 3) & ~(size_t)3;
	uint8_t *in = (uint8_t *)copy->rows + (size_t)n * (size_t)width * 4;
	const void *rows = src;
	size_t rows_stride = stride;
	if (stride % 4 != 0) {
		for (int32_t i = 0; i < n; i++) {
			memcpy(in + (size_t)i * aligned, src + (size_t)i * stride,
					row_bytes);
		}
		rows = in;
		rows_stride = aligned;
	}
	pixman_image_t *from = pixman_image_create_bits_no_clear(pf, width, n,
			(uint32_t *)rows, (int)rows_stride);
	pixman_image_t *to = pixman_image_create_bits_no_clear(PIXMAN_a8r8g8b8,
			width, n, copy->rows, width * 4);
	bool ok = from != NULL && to != NULL;
	if (ok) {
		pixman_image_composite32(PIXMAN_OP_SRC, from, NULL, to, 0, 0, 0, 0, 0,
				0, width, n);
		ok = vr_image_write_box(image, copy->rows, width * 4, &box);
	}
	if (from != NULL) {
		pixman_image_unref(from);
	}
	if (to != NULL) {
		pixman_image_unref(to);
	}
	return ok;
}

/* The copy is complete: the new image replaces the old one, which stays
 * as the spare for the next copy when it has the new one's size and the
 * client's budget holds both. */
static void copy_complete(struct vt_surface_copy *copy) {
	struct vt_surface *surface = copy->surface;
	wlr_log(WLR_DEBUG,
			"copied a %dx%d buffer in %u bands over %.1f ms "
			"(main thread %.1f ms, at most %.2f ms a band)",
			vr_image_width(copy->image), vr_image_height(copy->image),
			copy->bands, (double)(vt_now_ns() - copy->start_ns) / 1e6,
			(double)copy->busy_ns / 1e6, (double)copy->longest_ns / 1e6);
	bool new_content = copy->new_content, replaced = copy->replaced;
	/* the buffer the image now shows, taken (and held, where it may be
	 * scanned out) while the copy still locks it */
	surface_set_image_buffer(surface, copy->buffer);
	struct vr_image *image = copy_finish(copy, true);
	struct vr_image *old = surface->image;
	assert(surface->spare == NULL);
	/* both are in the budget already; the surface takes the reference */
	surface->image = image;
	if (old != NULL && !vr_image_external(old) &&
			vr_image_width(old) == vr_image_width(image) &&
			vr_image_height(old) == vr_image_height(image) &&
			vr_image_format(old) == vr_image_format(image) &&
			surface->budget->image_bytes <= VT_CLIENT_IMAGE_BYTES) {
		surface->spare = old;
	} else {
		surface->budget->image_bytes -= image_bytes(old);
		vr_image_unref(old);
	}
	surface_show_image(surface);
	vr_node_damage_content(surface->content, NULL);
	surface->unsampled = true;
	copy_tell_paths(surface, new_content, replaced);
}

/* One band: rows until `budget` ns have passed, then back to the event
 * loop (a timer of 1 ms lets everything else that is ready run). Ends the
 * copy when it is complete. */
static void copy_band(struct vt_surface_copy *copy, uint64_t budget) {
	if (vr_image_in_use(copy->image)) {
		/* the spare, still read by the frame that last drew it: a
		 * write now would copy it whole first */
		wl_event_source_timer_update(copy->timer, 1);
		return;
	}
	uint64_t start = vt_now_ns();
	struct wl_shm_buffer *shm =
			copy->guard != NULL ? wl_shm_buffer_get(copy->guard) : NULL;
	const uint8_t *pixels;
	size_t stride;
	if (shm != NULL) {
		wl_shm_buffer_begin_access(shm);
		/* a pool can be resized (remapped) between bands */
		pixels = wl_shm_buffer_get_data(shm);
		stride = (size_t)wl_shm_buffer_get_stride(shm);
	} else {
		void *data;
		uint32_t format;
		if (!vt_client_buffer_begin_read(copy->buffer, &data, &format,
					&stride)) {
			surface_cancel_copy(copy->surface, true);
			return;
		}
		pixels = data;
	}
	int32_t width = vr_image_width(copy->image);
	int32_t step = (int32_t)(VT_COPY_STEP_BYTES / ((size_t)width * 4));
	step = step > 0 ? step : 1;
	bool ok = true;
	while (ok && pixman_region32_not_empty(&copy->todo)) {
		const pixman_box32_t *first =
				pixman_region32_rectangles(&copy->todo, NULL);
		int32_t y = first->y1;
		int32_t n = first->y2 - y < step ? first->y2 - y : step;
		ok = copy_rows(copy, pixels, stride, y, n);
		pixman_region32_t done;
		pixman_region32_init_rect(&done, 0, y, (unsigned)width, (unsigned)n);
		pixman_region32_subtract(&copy->todo, &copy->todo, &done);
		pixman_region32_fini(&done);
		if (vt_now_ns() - start >= budget) {
			break;
		}
	}
	/* posts wl_shm.invalid_fd on the buffer if the pool was truncated:
	 * the client is cut off, and its surface's destruction ends the
	 * copy */
	if (shm != NULL) {
		wl_shm_buffer_end_access(shm);
	} else {
		vt_client_buffer_end_read(copy->buffer);
	}
	uint64_t spent = vt_now_ns() - start;
	copy->busy_ns += spent;
	copy->longest_ns = spent > copy->longest_ns ? spent : copy->longest_ns;
	copy->bands++;
	if (!ok) {
		wlr_log(WLR_ERROR, "copying a client buffer failed");
		surface_cancel_copy(copy->surface, true);
	} else if (!pixman_region32_not_empty(&copy->todo)) {
		copy_complete(copy);
	} else {
		wl_event_source_timer_update(copy->timer, 1);
	}
}

static int copy_handle_timer(void *data) {
	struct vt_surface_copy *copy = data;
	struct vt_server *server = copy->surface->server;
	copy_band(copy, VT_COPY_BAND_NS);
	wl_signal_emit(&server->events.check_settled, server);
	return 0;
}

/* The copy ends with its guard (none for a dmabuf). */
static void copy_watch_guard(struct vt_surface_copy *copy) {
	if (copy->guard != NULL) {
		wl_resource_add_destroy_listener(copy->guard, &copy->guard_destroy);
	} else {
		wl_list_init(&copy->guard_destroy.link);
	}
}

struct guard_search {
	const void *data;
	int32_t width, height, stride;
	struct wl_resource *found;
};

static enum wl_iterator_result find_guard(struct wl_resource *resource,
		void *data) {
	struct guard_search *search = data;
	struct wl_shm_buffer *shm = wl_shm_buffer_get(resource);
	if (shm != NULL && wl_shm_buffer_get_data(shm) == search->data &&
			wl_shm_buffer_get_width(shm) == search->width &&
			wl_shm_buffer_get_height(shm) == search->height &&
			wl_shm_buffer_get_stride(shm) == search->stride) {
		search->found = resource;
		return WL_ITERATOR_STOP;
	}
	return WL_ITERATOR_CONTINUE;
}

/* A wl_shm_buffer resource of the surface's client with exactly this
 * memory: the committed buffer's own (wlroots does not tell which it
 * is), or another over the same bytes of the same pool, whose guard
 * covers them as well. NULL when the client destroyed it already. */
static struct wl_resource *find_shm_resource(struct vt_surface *surface,
		const void *data, int32_t width, int32_t height, size_t stride) {
	struct guard_search search = {
		.data = data,
		.width = width,
		.height = height,
		.stride = (int32_t)stride,
	};
	wl_client_for_each_resource(
			wl_resource_get_client(surface->wlr_surface->resource), find_guard,
			&search);
	return search.found;
}

/* Add rows [y1, y2) to copy. */
static void copy_add_rows(struct vt_surface_copy *copy, int32_t y1,
		int32_t y2) {
	int32_t height = vr_image_height(copy->image);
	y1 = y1 < 0 ? 0 : y1;
	y2 = y2 > height ? height : y2;
	if (y2 > y1) {
		pixman_region32_union_rect(&copy->todo, &copy->todo, 0, y1,
				(unsigned)vr_image_width(copy->image), (unsigned)(y2 - y1));
	}
}

/*
 * Copy the committed large buffer (locked: the reference passes to the
 * copy) in bands, the first one now: a copy that takes less than a band
 * shows at this commit, as a small one does. A copy in progress into an
 * image of the same size and format goes on with this buffer: its rows
 * to copy get the commit's damaged rows. Otherwise into the spare (the
 * image the last copy replaced) or a new image, which the client's
 * budget must hold besides its other surfaces' images (not this
 * surface's current one, which it replaces). False after a protocol
 * error (the buffer is unlocked).
 */
static bool surface_start_copy(struct vt_surface *surface,
		struct wlr_buffer *buffer, struct wl_resource *guard, uint32_t format,
		enum vr_format vr_format) {
	struct wlr_surface *wlr_surface = surface->wlr_surface;
	int32_t width = buffer->width, height = buffer->height;
	struct vt_surface_copy *copy = surface->copy;
	if (copy != NULL && vr_image_width(copy->image) == width &&
			vr_image_height(copy->image) == height &&
			vr_image_format(copy->image) == vr_format &&
			copy->format == format) {
		wlr_buffer_unlock(copy->buffer);
		copy->buffer = buffer;
		wl_list_remove(&copy->guard_destroy.link);
		copy->guard = guard;
		copy_watch_guard(copy);
		int nrects;
		const pixman_box32_t *rects = pixman_region32_rectangles(
				&wlr_surface->buffer_damage, &nrects);
		for (int i = 0; i < nrects; i++) {
			copy_add_rows(copy, rects[i].y1, rects[i].y2);
		}
		return true;
	}
	surface_cancel_copy(surface, true);
	struct vr_image *image = NULL;
	uint64_t bytes = (uint64_t)width * (uint64_t)height * 4;
	if (surface->spare != NULL && vr_image_width(surface->spare) == width &&
			vr_image_height(surface->spare) == height &&
			vr_image_format(surface->spare) == vr_format) {
		image = surface->spare; /* counted in the budget */
		surface->spare = NULL;
	} else {
		surface_drop_spare(surface);
		uint64_t total = surface->budget->image_bytes -
				image_bytes(surface->image) + bytes;
		if (total > VT_CLIENT_IMAGE_BYTES) {
			wlr_buffer_unlock(buffer);
			surface_clear_content(surface);
			wl_resource_post_error(wlr_surface->resource,
					WL_SURFACE_ERROR_INVALID_SIZE,
					"wl_buffer %dx%d: surface images of %" PRIu64 " bytes, "
					"over the client's budget %llu",
					width, height, total, VT_CLIENT_IMAGE_BYTES);
			return false;
		}
		image = vr_image_create(width, height, vr_format);
		if (image != NULL) {
			surface->budget->image_bytes += bytes;
		}
	}
	copy = calloc(1, sizeof(*copy));
	bool convert =
			format != DRM_FORMAT_ARGB8888 && format != DRM_FORMAT_XRGB8888;
	/* a step's converted rows, then room for its rows realigned (at
	 * most 4 bytes a pixel, plus 3) */
	size_t step_rows = VT_COPY_STEP_BYTES / ((size_t)width * 4);
	step_rows = step_rows > 0 ? step_rows : 1;
	uint32_t *rows =
			convert ? malloc(step_rows * ((size_t)width * 8 + 4)) : NULL;
	struct wl_event_source *timer = wl_event_loop_add_timer(
			surface->server->loop, copy_handle_timer, copy);
	if (copy == NULL || image == NULL || (convert && rows == NULL) ||
			timer == NULL) {
		if (timer != NULL) {
			wl_event_source_remove(timer);
		}
		free(rows);
		if (image != NULL) {
			surface->budget->image_bytes -= bytes;
			vr_image_unref(image);
		}
		free(copy);
		wlr_buffer_unlock(buffer);
		wl_resource_post_no_memory(wlr_surface->resource);
		return false;
	}
	*copy = (struct vt_surface_copy){
		.surface = surface,
		.buffer = buffer,
		.guard = guard,
		.image = image,
		.format = format,
		.timer = timer,
		.rows = rows,
		.start_ns = vt_now_ns(),
	};
	pixman_region32_init_rect(&copy->todo, 0, 0, (unsigned)width,
			(unsigned)height);
	copy->guard_destroy.notify = copy_handle_guard_destroy;
	copy_watch_guard(copy);
	surface->copy = copy;
	surface->server->surface_copies++;
	/* not sampled, no frame callbacks, until it shows the new image */
	vr_node_set_user_data(surface->content, NULL);
	copy_band(copy, VT_COPY_FIRST_BAND_NS);
	return true;
}

/* Copy the committed buffer's damaged pixels into the node's image, at
 * once or (a large buffer) in bands. */
static void surface_update_content(struct vt_surface *surface) {
	struct wlr_surface *wlr_surface = surface->wlr_surface;
	struct wlr_client_buffer *client_buffer = wlr_surface->buffer;
	if (client_buffer == NULL) {
		surface_cancel_copy(surface, true);
		surface_clear_content(surface);
		return;
	}
	/* a large buffer attached by this commit, still locked: ours to
	 * release */
	struct wlr_buffer *locked =
			vt_surface_texture_take_buffer(client_buffer->texture);
	struct wlr_buffer *source = client_buffer->source;
	int width = client_buffer->base.width, height = client_buffer->base.height;

	/* the latest content committed: the copy's, while one goes on */
	struct vr_image *latest =
			surface->copy != NULL ? surface->copy->image : surface->image;
	bool resized = latest == NULL || vr_image_width(latest) != width ||
			vr_image_height(latest) != height;
	/* A commit without buffer damage keeps the pixels we have (and a
	 * copy in progress goes on: it shows this commit's geometry when
	 * done). */
	if (source == NULL ||
			(!resized &&
					!pixman_region32_not_empty(&wlr_surface->buffer_damage))) {
		if (locked != NULL) {
			wlr_buffer_unlock(locked);
		}
		if (surface->copy == NULL && surface->image != NULL) {
			surface_show_image(surface);
		}
		return;
	}
	/* a dmabuf the engine samples in place: no copy */
	struct vr_image *external = surface->server->engine != NULL &&
					vr_engine_imports_dmabuf(surface->server->engine) ?
			vt_client_dmabuf_image(source) :
			NULL;
	if (external != NULL) {
		if (locked != NULL) {
			wlr_buffer_unlock(locked);
		}
		/* the client's next buffer: only its damage is new, unless
		 * the node does not show the previous commit yet (a copy) */
		bool damage_only = !resized && surface->copy == NULL;
		surface_cancel_copy(surface, true);
		surface_drop_spare(surface);
		surface_set_image(surface, external);
		surface_set_image_buffer(surface, source);
		surface_show_image_damaged(surface, damage_only);
		return;
	}
	void *data;
	uint32_t format;
	size_t stride;
	if (!vt_client_buffer_begin_read(source, &data, &format, &stride)) {
		wlr_log(WLR_ERROR, "surface buffer is not readable");
		if (locked != NULL) {
			wlr_buffer_unlock(locked);
		}
		surface_cancel_copy(surface, true);
		surface_clear_content(surface);
		return;
	}
	/* libwayland only checks stride >= width (it knows no pixel
	 * sizes): a smaller stride would make every row read past the
	 * client's pool. */
	pixman_format_code_t pf = pixman_format_from_drm(format);
	int64_t min_stride =
			pf != 0 ? (int64_t)width * (PIXMAN_FORMAT_BPP(pf) / 8) : 0;
	if ((int64_t)stride < min_stride) {
		vt_client_buffer_end_read(source);
		if (locked != NULL) {
			wlr_buffer_unlock(locked);
		}
		surface_cancel_copy(surface, true);
		surface_clear_content(surface);
		wl_resource_post_error(wlr_surface->resource,
				WL_SURFACE_ERROR_INVALID_SIZE,
				"wl_buffer stride %zu is less than %" PRId64 " bytes, a "
				"row of %d pixels of format 0x%08x",
				stride, min_stride, width, format);
		return;
	}
	enum vr_format vr_format = format == DRM_FORMAT_XRGB8888 ?
			VR_FORMAT_XRGB8888 :
			VR_FORMAT_ARGB8888;
	bool reuse = surface->image != NULL && !vr_image_external(surface->image) &&
			vr_image_width(surface->image) == width &&
			vr_image_height(surface->image) == height &&
			vr_image_format(surface->image) == vr_format;
	const pixman_region32_t *region =
			reuse ? &wlr_surface->buffer_damage : NULL;

	/* Large: in bands, when it is a lot to copy or a copy is going on
	 * (this commit's pixels join it), and the pool can be read safely
	 * later. */
	uint64_t copy_bytes = (uint64_t)width * (uint64_t)height * 4;
	if (region != NULL) {
		const pixman_box32_t *ext = pixman_region32_extents(region);
		copy_bytes = (uint64_t)(ext->x2 - ext->x1) *
				(uint64_t)(ext->y2 - ext->y1) * 4;
	}
	if (pf != 0 &&
			(surface->copy != NULL || copy_bytes >= VT_COPY_BANDED_BYTES)) {
		if (locked == NULL) {
			/* new damage on the buffer attached before (no new
			 * attach): held for the copy, released again after it */
			locked = wlr_buffer_lock(source);
		}
		struct wlr_dmabuf_attributes attribs;
		bool dmabuf = wlr_buffer_get_dmabuf(source, &attribs);
		struct wl_resource *guard = dmabuf ?
				NULL :
				find_shm_resource(surface, data, width, height, stride);
		vt_client_buffer_end_read(source);
		if (guard != NULL || dmabuf) {
			surface_start_copy(surface, locked, guard, format, vr_format);
			return;
		}
		/* the wl_buffer is gone already: at once, as before */
		if (!vt_client_buffer_begin_read(source, &data, &format, &stride)) {
			wlr_buffer_unlock(locked);
			return;
		}
	}
	surface_cancel_copy(surface, true);
	if (!reuse) {
		surface_drop_spare(surface);
		uint64_t bytes = (uint64_t)width * (uint64_t)height * 4;
		uint64_t total = surface->budget->image_bytes -
				image_bytes(surface->image) + bytes;
		if (total > VT_CLIENT_IMAGE_BYTES) {
			vt_client_buffer_end_read(source);
			if (locked != NULL) {
				wlr_buffer_unlock(locked);
			}
			surface_clear_content(surface);
			wl_resource_post_error(wlr_surface->resource,
					WL_SURFACE_ERROR_INVALID_SIZE,
					"wl_buffer %dx%d: surface images of %" PRIu64 " bytes, "
					"over the client's budget %llu",
					width, height, total, VT_CLIENT_IMAGE_BYTES);
			return;
		}
		surface_set_image(surface, NULL);
		surface_set_image(surface, vr_image_create(width, height, vr_format));
	}
	if (surface->image == NULL) {
		/* out of memory: logged by the renderer */
	} else if (format == DRM_FORMAT_ARGB8888 || format == DRM_FORMAT_XRGB8888) {
		vr_image_write(surface->image, data, (int32_t)stride, region);
	} else {
		/* pixman wants rows on 4-byte boundaries; wl_shm does
		 * not (RGB565 at an odd width) */
		void *rows = data;
		size_t rows_stride = stride;
		if (pf != 0 && stride % 4 != 0) {
			rows_stride = ((size_t)min_stride + 3) & ~(size_t)3;
			rows = malloc(rows_stride * (size_t)height);
			for (int y = 0; rows != NULL && y < height; y++) {
				memcpy((char *)rows + (size_t)y * rows_stride,
						(char *)data + (size_t)y * stride, (size_t)min_stride);
			}
		}
		pixman_image_t *src = pf == 0 || rows == NULL ?
				NULL :
				pixman_image_create_bits_no_clear(pf, width, height, rows,
						(int)rows_stride);
		pixman_image_t *dst = pixman_image_create_bits(PIXMAN_a8r8g8b8, width,
				height, NULL, 0);
		if (src != NULL && dst != NULL) {
			pixman_image_composite32(PIXMAN_OP_SRC, src, NULL, dst, 0, 0, 0, 0,
					0, 0, width, height);
			vr_image_write(surface->image, pixman_image_get_data(dst),
					pixman_image_get_stride(dst), region);
		} else {
			wlr_log(WLR_ERROR, "unsupported buffer format 0x%08x", format);
		}
		if (src != NULL) {
			pixman_image_unref(src);
		}
		if (rows != data) {
			free(rows);
		}
		if (dst != NULL) {
			pixman_image_unref(dst);
		}
	}
	vt_client_buffer_end_read(source);
	if (surface->image != NULL) {
		/* before the commit's lock goes: a buffer held is never
		 * released in between */
		surface_set_image_buffer(surface, source);
	}
	if (locked != NULL) {
		wlr_buffer_unlock(locked);
	}
	if (surface->image == NULL) {
		return;
	}
	surface_show_image(surface);

	pixman_region32_t damage;
	pixman_region32_init(&damage);
	wlr_surface_get_effective_damage(wlr_surface, &damage);
	if (pixman_region32_not_empty(&damage)) {
		vr_node_damage_content(surface->content, &damage);
	}
	pixman_region32_fini(&damage);
}

static struct vr_node *subsurface_node(struct wlr_subsurface *sub) {
	struct vt_surface *s = vt_surface_from_wlr(sub->surface);
	return s != NULL ? s->node : NULL;
}

/* Stack node just above *below (the bottom when NULL: nothing to move)
 * among surface's children, and make it the next one's *below. A node
 * already in place is not touched: restacking damages. */
static void stack_child(struct vt_surface *surface, struct vr_node *node,
		struct vr_node **below) {
	if (node == NULL) {
		return;
	}
	if (vr_node_parent(node) != surface->node) {
		vr_node_set_parent(node, surface->node);
	}
	if (*below != NULL) {
		vr_node_place_above(node, *below);
	}
	*below = node;
}

/* Apply the committed subsurface stacking order and positions: one walk
 * over the subsurfaces, as wlroots' own commit makes; only the nodes out
 * of place move. */
static void surface_update_children(struct vt_surface *surface) {
	struct wlr_surface *wlr_surface = surface->wlr_surface;
	struct vr_node *below = NULL;
	struct wlr_subsurface *sub;
	wl_list_for_each(sub, &wlr_surface->current.subsurfaces_below,
			current.link) {
		struct vr_node *node = subsurface_node(sub);
		stack_child(surface, node, &below);
		if (node != NULL) {
			vr_node_set_position(node, sub->current.x, sub->current.y);
		}
	}
	stack_child(surface, surface->content, &below);
	stack_child(surface, surface->scene, &below);
	stack_child(surface, surface->scroll_layer, &below);
	wl_list_for_each(sub, &wlr_surface->current.subsurfaces_above,
			current.link) {
		struct vr_node *node = subsurface_node(sub);
		stack_child(surface, node, &below);
		if (node != NULL) {
			vr_node_set_position(node, sub->current.x, sub->current.y);
		}
	}
}

struct vr_node *vt_surface_scroll_layer(struct vt_surface *surface) {
	if (surface->scroll_layer == NULL) {
		surface->scroll_layer = vr_node_create(surface->server->tree);
		if (surface->scroll_layer == NULL) {
			return NULL;
		}
		surface_update_children(surface);
	}
	return surface->scroll_layer;
}

void vt_surface_set_scene_node(struct vt_surface *surface,
		struct vr_node *node) {
	if (surface->scene == node) {
		return;
	}
	if (surface->scene != NULL &&
			vr_node_parent(surface->scene) == surface->node) {
		vr_node_set_parent(surface->scene, NULL);
	}
	surface->scene = node;
	surface_update_children(surface);
	vt_server_schedule_update(surface->server);
}

void vt_surface_note_input(struct wlr_surface *wlr_surface,
		uint64_t received_ns) {
	struct vt_surface *surface =
			wlr_surface != NULL ? vt_surface_from_wlr(wlr_surface) : NULL;
	if (surface != NULL && surface->input_pending_ns == 0) {
		surface->input_pending_ns = received_ns;
	}
}

uint64_t vt_surface_take_input(struct vt_surface *surface) {
	uint64_t input_ns = surface->input_answered_ns;
	surface->input_answered_ns = 0;
	return input_ns;
}

static void handle_commit(struct wl_listener *listener, void *data) {
	struct vt_surface *surface = wl_container_of(listener, surface, commit);
	/* no frame starts before every commit listener ran */
	vt_outputs_defer_pacers(surface->server);
	surface->committing = true;
	surface->feedback_requests = 0;
	surface->content_type = surface->content_type_pending;
	if (surface->alpha_multiplier != surface->alpha_multiplier_pending) {
		surface->alpha_multiplier = surface->alpha_multiplier_pending;
		vr_node_set_opacity(surface->content,
				(float)((double)surface->alpha_multiplier / UINT32_MAX));
	}
	bool new_content =
			pixman_region32_not_empty(&surface->wlr_surface->buffer_damage);
	if (new_content) {
		surface->content_commits++;
		surface->content_ns = vt_now_ns();
	}
	/* the commit's own state applies first (frame_timing.c: the
	 * pre_render path read below) */
	wl_signal_emit(&surface->events.commit, surface);
	/* its previous content was never drawn: this commit replaces it */
	bool replaced = new_content && surface->unsampled;
	if (new_content) {
		surface->unsampled = true;
		/* new content: it answers the input delivered before it */
		if (surface->input_pending_ns != 0 &&
				(surface->input_answered_ns == 0 ||
						surface->input_pending_ns <
								surface->input_answered_ns)) {
			surface->input_answered_ns = surface->input_pending_ns;
		}
		surface->input_pending_ns = 0;
		/* A client drew a frame: not what D-VSync can render ahead,
		 * unless it is a pre_render frame queued for this time. */
		if (!(surface->prerender && surface->latching)) {
			surface->server->last_client_frame_ns = vt_now_ns();
		}
	}
	surface_update_content(surface);
	surface->committing = false;
	surface_update_children(surface);
	if (surface->subsurface != NULL) {
		vr_node_set_enabled(surface->node, surface->subsurface->mapped);
	}
	vt_server_schedule_update(surface->server);
	/* what is under the pointer may have changed: a surface grew,
	 * shrank, unmapped or mapped, or its subsurfaces restacked
	 * (wl_pointer follows without the pointer moving) */
	wl_signal_emit(&surface->server->events.pointer_focus, NULL);
	if (surface->copy != NULL) {
		/* its content arrives when the copy is complete: the path
		 * manager hears of the commit then (copy_complete) */
		surface->copy->new_content |= new_content;
		surface->copy->replaced |= replaced;
		return;
	}
	/* frame callbacks: at the vblank, or just in time (presentation_paths.c) */
	surface_content(surface, new_content, replaced);
}

static void subsurface_detach(struct vt_surface *surface) {
	if (surface->subsurface == NULL) {
		return;
	}
	struct wlr_surface *parent = surface->subsurface->parent;
	/* NULL once the parent's own destroy ran: its count went with it */
	struct vt_surface *p = parent != NULL ? vt_surface_from_wlr(parent) : NULL;
	if (p != NULL) {
		p->subsurfaces--;
	}
	surface->budget->subsurfaces--;
	wl_list_remove(&surface->subsurface_map.link);
	wl_list_remove(&surface->subsurface_unmap.link);
	wl_list_remove(&surface->subsurface_destroy.link);
	surface->subsurface = NULL;
	vr_node_set_parent(surface->node, NULL);
}

static void handle_subsurface_map(struct wl_listener *listener, void *data) {
	struct vt_surface *surface =
			wl_container_of(listener, surface, subsurface_map);
	vr_node_set_enabled(surface->node, true);
	vt_server_schedule_update(surface->server);
}

static void handle_subsurface_unmap(struct wl_listener *listener, void *data) {
	struct vt_surface *surface =
			wl_container_of(listener, surface, subsurface_unmap);
	vr_node_set_enabled(surface->node, false);
	vt_server_schedule_update(surface->server);
}

static void handle_subsurface_destroy(struct wl_listener *listener,
		void *data) {
	struct vt_surface *surface =
			wl_container_of(listener, surface, subsurface_destroy);
	subsurface_detach(surface);
	vt_server_schedule_update(surface->server);
}

static enum wl_iterator_result find_subcompositor(struct wl_resource *resource,
		void *data) {
	struct wl_resource **found = data;
	if (strcmp(wl_resource_get_class(resource),
				wl_subcompositor_interface.name) == 0) {
		*found = resource;
		return WL_ITERATOR_STOP;
	}
	return WL_ITERATOR_CONTINUE;
}

/* A get_subsurface over the limits (vitrail(1)): a bad_surface error on
 * the client's wl_subcompositor (wlroots hands us no request resource;
 * a client that bound several gets it on the first). */
static bool subsurface_over_limits(struct vt_surface *parent,
		struct vt_surface *surface, struct wlr_subsurface *sub) {
	char message[100];
	if (parent->subsurfaces >= VT_SUBSURFACES_PER_PARENT) {
		snprintf(message, sizeof(message),
				"%d subsurfaces of "
				"wl_surface@%" PRIu32 ", over the limit %d per parent",
				parent->subsurfaces + 1,
				wl_resource_get_id(parent->wlr_surface->resource),
				VT_SUBSURFACES_PER_PARENT);
	} else if (surface->budget->subsurfaces >= VT_SUBSURFACES_PER_CLIENT) {
		snprintf(message, sizeof(message),
				"%d subsurfaces, over the "
				"limit %d per client",
				surface->budget->subsurfaces + 1, VT_SUBSURFACES_PER_CLIENT);
	} else {
		return false;
	}
	struct wl_resource *subcompositor = NULL;
	wl_client_for_each_resource(wl_resource_get_client(sub->resource),
			find_subcompositor, &subcompositor);
	if (subcompositor != NULL) {
		wl_resource_post_error(subcompositor,
				WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE, "%s", message);
	} else {
		wl_resource_post_error(sub->resource, WL_SUBSURFACE_ERROR_BAD_SURFACE,
				"%s", message);
	}
	return true;
}

/* O(1): the new node goes on top of the parent's children, where wlroots
 * puts the subsurface in the pending order; the parent's commit applies
 * the committed order. */
static void handle_new_subsurface(struct wl_listener *listener, void *data) {
	struct vt_surface *parent =
			wl_container_of(listener, parent, new_subsurface);
	struct wlr_subsurface *sub = data;
	struct vt_surface *surface = vt_surface_from_wlr(sub->surface);
	if (surface == NULL || subsurface_over_limits(parent, surface, sub)) {
		return;
	}
	parent->subsurfaces++;
	surface->budget->subsurfaces++;
	surface->subsurface = sub;
	surface->subsurface_map.notify = handle_subsurface_map;
	wl_signal_add(&sub->events.map, &surface->subsurface_map);
	surface->subsurface_unmap.notify = handle_subsurface_unmap;
	wl_signal_add(&sub->events.unmap, &surface->subsurface_unmap);
	surface->subsurface_destroy.notify = handle_subsurface_destroy;
	wl_signal_add(&sub->events.destroy, &surface->subsurface_destroy);
	vr_node_set_enabled(surface->node, sub->mapped);
	vr_node_set_parent(surface->node, parent->node);
	vt_server_schedule_update(parent->server);
}

static void handle_destroy(struct wl_listener *listener, void *data) {
	struct vt_surface *surface = wl_container_of(listener, surface, destroy);
	struct vt_server *server = surface->server;
	subsurface_detach(surface);
	/* frame timing, the path manager, the outputs' frames let go of it
	 * (they touch nothing of each other's: their order is free) */
	wl_signal_emit(&surface->events.destroy, surface);
	wl_list_remove(&surface->commit.link);
	wl_list_remove(&surface->destroy.link);
	wl_list_remove(&surface->new_subsurface.link);
	surface->wlr_surface->data = NULL;
	surface_cancel_copy(surface, false);
	surface_drop_spare(surface);
	vr_node_destroy(surface->content);
	vr_node_destroy(surface->scroll_layer);
	vr_node_destroy(surface->node);
	surface_set_image(surface, NULL);
	surface_set_image_buffer(surface, NULL);
	budget_unref(surface->budget);
	free(surface);
	vt_server_schedule_update(server);
}

void vt_surface_create(struct vt_server *server,
		struct wlr_surface *wlr_surface) {
	struct vt_surface *surface = calloc(1, sizeof(*surface));
	if (surface == NULL) {
		wl_resource_post_no_memory(wlr_surface->resource);
		return;
	}
	surface->server = server;
	surface->wlr_surface = wlr_surface;
	surface->alpha_multiplier = UINT32_MAX;
	surface->alpha_multiplier_pending = UINT32_MAX;
	surface->budget =
			vt_client_budget_get(wl_resource_get_client(wlr_surface->resource));
	surface->node = vr_node_create(server->tree);
	surface->content = vr_node_create(server->tree);
	if (surface->node == NULL || surface->content == NULL ||
			surface->budget == NULL) {
		vr_node_destroy(surface->node);
		vr_node_destroy(surface->content);
		budget_unref(surface->budget);
		free(surface);
		wl_resource_post_no_memory(wlr_surface->resource);
		return;
	}
	vr_node_set_parent(surface->content, surface->node);
	vr_node_set_user_data(surface->content, surface);
	wlr_surface->data = surface;
	wl_signal_init(&surface->events.commit);
	wl_signal_init(&surface->events.content);
	wl_signal_init(&surface->events.destroy);
	/* the path manager and the outputs subscribe */
	wl_signal_emit(&server->events.new_surface, surface);

	surface->commit.notify = handle_commit;
	wl_signal_add(&wlr_surface->events.commit, &surface->commit);
	surface->destroy.notify = handle_destroy;
	wl_signal_add(&wlr_surface->events.destroy, &surface->destroy);
	surface->new_subsurface.notify = handle_new_subsurface;
	wl_signal_add(&wlr_surface->events.new_subsurface,
			&surface->new_subsurface);
}
