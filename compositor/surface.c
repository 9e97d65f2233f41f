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
 */
#include <assert.h>
#include <drm_fourcc.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>

#include "server.h"

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

bool vt_client_budget_charge(struct vt_client_budget *budget,
		uint64_t release, uint64_t add, uint64_t *total) {
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

static uint64_t image_bytes(const struct vr_image *image) {
	return image == NULL ? 0 :
		(uint64_t)vr_image_width(image) * vr_image_height(image) * 4;
}

static void surface_set_image(struct vt_surface *surface,
		struct vr_image *image) {
	surface->budget->image_bytes -= image_bytes(surface->image);
	vr_image_unref(surface->image);
	surface->image = image;
	surface->budget->image_bytes += image_bytes(image);
}

static void surface_clear_content(struct vt_surface *surface) {
	vr_node_clear_content(surface->content);
	surface_set_image(surface, NULL);
}

/* Copy the committed buffer's damaged pixels into the node's image. */
static void surface_update_content(struct vt_surface *surface) {
	struct wlr_surface *wlr_surface = surface->wlr_surface;
	struct wlr_client_buffer *client_buffer = wlr_surface->buffer;
	if (client_buffer == NULL) {
		surface_clear_content(surface);
		return;
	}
	struct wlr_buffer *source = client_buffer->source;
	int width = client_buffer->base.width, height = client_buffer->base.height;

	bool resized = surface->image == NULL ||
		vr_image_width(surface->image) != width ||
		vr_image_height(surface->image) != height;
	/* A commit without buffer damage keeps the pixels we have. */
	if (source != NULL && (resized ||
			pixman_region32_not_empty(&wlr_surface->buffer_damage))) {
		void *data;
		uint32_t format;
		size_t stride;
		if (!wlr_buffer_begin_data_ptr_access(source,
				WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format, &stride)) {
			wlr_log(WLR_ERROR, "surface buffer is not CPU-accessible "
				"(only wl_shm is supported by this build)");
			wlr_buffer_end_data_ptr_access(source);
			surface_clear_content(surface);
			return;
		}
		/* libwayland only checks stride >= width (it knows no pixel
		 * sizes): a smaller stride would make every row read past the
		 * client's pool. */
		pixman_format_code_t pf = pixman_format_from_drm(format);
		int64_t min_stride = pf != 0 ?
			(int64_t)width * (PIXMAN_FORMAT_BPP(pf) / 8) : 0;
		if ((int64_t)stride < min_stride) {
			wlr_buffer_end_data_ptr_access(source);
			surface_clear_content(surface);
			wl_resource_post_error(wlr_surface->resource,
				WL_SURFACE_ERROR_INVALID_SIZE,
				"wl_buffer stride %zu is less than %" PRId64 " bytes, a "
				"row of %d pixels of format 0x%08x", stride, min_stride,
				width, format);
			return;
		}
		enum vr_format vr_format = format == DRM_FORMAT_XRGB8888 ?
			VR_FORMAT_XRGB8888 : VR_FORMAT_ARGB8888;
		bool reuse = surface->image != NULL &&
			vr_image_width(surface->image) == width &&
			vr_image_height(surface->image) == height &&
			vr_image_format(surface->image) == vr_format;
		if (!reuse) {
			uint64_t bytes = (uint64_t)width * (uint64_t)height * 4;
			uint64_t total = surface->budget->image_bytes -
				image_bytes(surface->image) + bytes;
			if (total > VT_CLIENT_IMAGE_BYTES) {
				wlr_buffer_end_data_ptr_access(source);
				surface_clear_content(surface);
				wl_resource_post_error(wlr_surface->resource,
					WL_SURFACE_ERROR_INVALID_SIZE,
					"wl_buffer %dx%d: surface images of %" PRIu64 " bytes, "
					"over the client's budget %llu", width, height, total,
					VT_CLIENT_IMAGE_BYTES);
				return;
			}
			surface_set_image(surface, NULL);
			surface_set_image(surface,
				vr_image_create(width, height, vr_format));
		}
		const pixman_region32_t *region = reuse ?
			&wlr_surface->buffer_damage : NULL;
		if (surface->image == NULL) {
			/* out of memory: logged by the renderer */
		} else if (format == DRM_FORMAT_ARGB8888 ||
				format == DRM_FORMAT_XRGB8888) {
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
						(char *)data + (size_t)y * stride,
						(size_t)min_stride);
				}
			}
			pixman_image_t *src = pf == 0 || rows == NULL ? NULL :
				pixman_image_create_bits_no_clear(pf, width, height,
					rows, (int)rows_stride);
			pixman_image_t *dst = pixman_image_create_bits(PIXMAN_a8r8g8b8,
				width, height, NULL, 0);
			if (src != NULL && dst != NULL) {
				pixman_image_composite32(PIXMAN_OP_SRC, src, NULL, dst,
					0, 0, 0, 0, 0, 0, width, height);
				vr_image_write(surface->image, pixman_image_get_data(dst),
					pixman_image_get_stride(dst), region);
			} else {
				wlr_log(WLR_ERROR, "unsupported buffer format 0x%08x",
					format);
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
		wlr_buffer_end_data_ptr_access(source);
	}
	if (surface->image == NULL) {
		return;
	}

	struct wlr_fbox src;
	wlr_surface_get_buffer_source_box(wlr_surface, &src);
	struct vr_rectf vr_src = { src.x, src.y, src.width, src.height };
	vr_node_set_image(surface->content, surface->image, &vr_src,
		wlr_surface->current.width, wlr_surface->current.height,
		(enum vr_transform)wlr_surface->current.transform);

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
	struct vt_surface *surface = wlr_surface != NULL ?
		vt_surface_from_wlr(wlr_surface) : NULL;
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
	bool new_content =
		pixman_region32_not_empty(&surface->wlr_surface->buffer_damage);
	if (new_content) {
		surface->content_commits++;
		surface->content_ns = vt_now_ns();
	}
	vt_frame_timing_surface_commit(surface);
	/* its previous content was never drawn: this commit replaces it */
	bool replaced = new_content && surface->unsampled;
	if (new_content) {
		surface->unsampled = true;
		/* new content: it answers the input delivered before it */
		if (surface->input_pending_ns != 0 &&
				(surface->input_answered_ns == 0 ||
				surface->input_pending_ns < surface->input_answered_ns)) {
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
	surface_update_children(surface);
	if (surface->subsurface != NULL) {
		vr_node_set_enabled(surface->node, surface->subsurface->mapped);
	}
	vt_server_schedule_update(surface->server);
	/* frame callbacks: at the vblank, or just in time (paths.c) */
	vt_paths_surface_commit(surface, new_content, replaced);
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

static enum wl_iterator_result find_subcompositor(
		struct wl_resource *resource, void *data) {
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
		snprintf(message, sizeof(message), "%d subsurfaces of "
			"wl_surface@%" PRIu32 ", over the limit %d per parent",
			parent->subsurfaces + 1,
			wl_resource_get_id(parent->wlr_surface->resource),
			VT_SUBSURFACES_PER_PARENT);
	} else if (surface->budget->subsurfaces >= VT_SUBSURFACES_PER_CLIENT) {
		snprintf(message, sizeof(message), "%d subsurfaces, over the "
			"limit %d per client", surface->budget->subsurfaces + 1,
			VT_SUBSURFACES_PER_CLIENT);
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
		wl_resource_post_error(sub->resource,
			WL_SUBSURFACE_ERROR_BAD_SURFACE, "%s", message);
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
	vt_frame_timing_surface_destroyed(surface);
	vt_paths_surface_destroyed(surface);
	vt_outputs_surface_destroyed(server, surface);
	wl_list_remove(&surface->commit.link);
	wl_list_remove(&surface->destroy.link);
	wl_list_remove(&surface->new_subsurface.link);
	surface->wlr_surface->data = NULL;
	vr_node_destroy(surface->content);
	vr_node_destroy(surface->scroll_layer);
	vr_node_destroy(surface->node);
	surface_set_image(surface, NULL);
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
	vt_paths_surface_init(surface);

	surface->commit.notify = handle_commit;
	wl_signal_add(&wlr_surface->events.commit, &surface->commit);
	surface->destroy.notify = handle_destroy;
	wl_signal_add(&wlr_surface->events.destroy, &surface->destroy);
	surface->new_subsurface.notify = handle_new_subsurface;
	wl_signal_add(&wlr_surface->events.new_subsurface, &surface->new_subsurface);
}
