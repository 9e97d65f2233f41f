/*
 * wlr-layer-shell: layer surfaces in the render tree.
 *
 * wlroots implements the protocol (its errors: a surface with another
 * role, an invalid layer, anchor or keyboard interactivity, a buffer
 * before the first configure, a wrong ack serial; vitrail's: a size of 0
 * without both opposite anchors); vitrail places the surfaces. Each layer
 * surface gets a container node in one of four layer nodes (background, bottom:
 * under the views; top, overlay: above them, overlay above fullscreen windows
 * too) at its box in layout coordinates; its wl_surface's node and its popups'
 * nodes hang inside.
 *
 * Placement, per output, in the order of the layers from overlay down:
 * first the surfaces with an exclusive zone, each against the area left
 * by those before it, each shrinking that area by its zone (plus its
 * margin) on the edge it is anchored to; then the others, against that
 * area (zone 0) or the whole output (zone -1). What is left is the
 * output's usable box: where windows are placed and what maximized
 * windows fill (view.c). A surface is configured with its size whenever
 * it changes; one that gets no room (width or height 0) is closed, as is
 * one whose output goes away or is disabled.
 *
 * Keyboard: exclusive interactivity (top and overlay layers) takes the
 * keyboard focus while mapped and keeps it from windows; on_demand takes
 * it when it maps in the top or overlay layer (unless an exclusive
 * surface holds it) and on a click or touch, and loses it to a window
 * focused after; none never has it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_layer_shell_v1.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>

#include "desktop/layer_shell.h"
#include "desktop/session_lock.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "output/output.h"
#include "server.h"

#define LAYERS 4

struct vt_layer_shell {
	struct vt_server *server;
	struct wlr_layer_shell_v1 *shell;
	struct vr_node *layers[LAYERS]; /* by zwlr_layer_shell_v1_layer */
	struct wl_list surfaces; /* vt_layer_surface::link, newest first */
	/* the layer surface with the keyboard focus, or NULL */
	struct vt_layer_surface *focused;
	/* in vt_layers_arrange: a surface closed on the way asks for
	 * another pass instead of arranging inside this one */
	bool arranging, rearrange;
	struct wl_listener new_surface;
	struct wl_listener destroy;
	/* server->events.output_disabled */
	struct wl_listener output_disabled;
	struct wl_listener fullscreen_changed; /* server->events' (view.c) */
};

struct vt_layer_surface {
	struct vt_layer_shell *layers;
	struct wlr_layer_surface_v1 *layer_surface;
	struct vr_node *node; /* container, at box's top-left */
	struct wl_list link; /* vt_layer_shell::surfaces */
	struct wlr_box box; /* layout coordinates */
	uint32_t configured_width, configured_height;
	bool configured; /* a configure went out since it was (un)mapped */
	/* unmapped: wlroots drops the configures it has not acked, so the
	 * next one goes out at its next commit */
	bool awaiting_commit;
	enum zwlr_layer_shell_v1_layer layer; /* the node it is in */
	bool hidden; /* a top-layer surface under a fullscreen window */

	struct wl_listener map;
	struct wl_listener unmap;
	struct wl_listener destroy;
	struct wl_listener commit;
	struct wl_listener output_destroy;
};

static struct vt_layer_shell *layers_of(struct vt_server *server) {
	return server->layers;
}

static struct wlr_box output_full_box(struct vt_server *server,
		struct wlr_output *wlr_output) {
	struct wlr_box *box = wlr_output_layout_get_box(server->layout, wlr_output);
	return box != NULL ? *box : (struct wlr_box){ 0 };
}

/* ---- keyboard ----------------------------------------------------------- */

static void keyboard_enter(struct vt_server *server,
		struct wlr_surface *surface) {
	struct wlr_seat *seat = server->seat;
	/* a locked session's keyboard stays with its lock surfaces */
	if (seat->keyboard_state.focused_surface == surface ||
			vt_session_locked(server)) {
		return;
	}
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(seat);
	if (keyboard != NULL) {
		wlr_seat_keyboard_notify_enter(seat, surface, keyboard->keycodes,
				keyboard->num_keycodes, &keyboard->modifiers);
	} else {
		wlr_seat_keyboard_notify_enter(seat, surface, NULL, 0, NULL);
	}
}

static void layer_focus(struct vt_layer_surface *ls) {
	ls->layers->focused = ls;
	ls->layers->server->focused_layer = ls->layer_surface;
	keyboard_enter(ls->layers->server, ls->layer_surface->surface);
}

/* ls lost the focus (unmapped, destroyed, or none any more): another
 * exclusive layer surface, else the focused window, gets it. */
static void layer_unfocus(struct vt_layer_surface *ls) {
	struct vt_layer_shell *layers = ls->layers;
	if (layers->focused != ls) {
		return;
	}
	layers->focused = NULL;
	struct vt_server *server = layers->server;
	server->focused_layer = NULL;
	struct vt_layer_surface *other;
	wl_list_for_each(other, &layers->surfaces, link) {
		if (other != ls && other->layer_surface->mapped &&
				other->layer_surface->current.keyboard_interactive ==
						ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE &&
				other->layer >= ZWLR_LAYER_SHELL_V1_LAYER_TOP) {
			layer_focus(other);
			return;
		}
	}
	if (server->seat->keyboard_state.focused_surface ==
			ls->layer_surface->surface) {
		wlr_seat_keyboard_notify_clear_focus(server->seat);
	}
	if (server->focused_view != NULL && server->focused_view->mapped) {
		vt_view_focus(server->focused_view, server->focused_view->surface);
	}
}

/* After a commit or map: take or give up the focus as its keyboard
 * interactivity says. */
static void layer_update_focus(struct vt_layer_surface *ls) {
	struct wlr_layer_surface_v1 *layer_surface = ls->layer_surface;
	if (!layer_surface->mapped) {
		layer_unfocus(ls);
		return;
	}
	switch (layer_surface->current.keyboard_interactive) {
	case ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE:
		if (ls->layer >= ZWLR_LAYER_SHELL_V1_LAYER_TOP) {
			layer_focus(ls);
		}
		break;
	case ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_ON_DEMAND:
		/* at its map (top and overlay layers) and on a click
		 * (vt_layers_focus_surface), not at every commit */
		break;
	default: layer_unfocus(ls); break;
	}
}

bool vt_layers_focus_surface(struct vt_server *server,
		struct wlr_surface *surface) {
	struct vt_layer_shell *layers = layers_of(server);
	if (layers == NULL || surface == NULL) {
		return false;
	}
	struct wlr_surface *root = wlr_surface_get_root_surface(surface);
	if (!wlr_surface_is_layer_surface(root)) {
		return false;
	}
	struct wlr_layer_surface_v1 *layer_surface =
			wlr_layer_surface_v1_from_wlr_surface(root);
	struct vt_layer_surface *ls = layer_surface->data;
	if (ls == NULL || !layer_surface->mapped ||
			layer_surface->current.keyboard_interactive ==
					ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE) {
		return false;
	}
	layer_focus(ls);
	return true;
}

/* ---- placement ---------------------------------------------------------- */

#define ANCHOR_TOP ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP
#define ANCHOR_BOTTOM ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM
#define ANCHOR_LEFT ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT
#define ANCHOR_RIGHT ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT

/* Along one axis: the position and size in bounds [start, start + len)
 * of a surface of `want` (0: stretched between both anchors). */
static void place_axis(int start, int len, uint32_t want, bool low, bool high,
		int32_t margin_low, int32_t margin_high, int *pos, int *size) {
	if (low && high && want == 0) {
		*pos = start + margin_low;
		*size = len - margin_low - margin_high;
	} else if (low && high) {
		/* centred between the margins */
		*size = (int)want;
		*pos = start + margin_low +
				(len - margin_low - margin_high - *size) / 2;
	} else if (low) {
		*size = (int)want;
		*pos = start + margin_low;
	} else if (high) {
		*size = (int)want;
		*pos = start + len - *size - margin_high;
	} else {
		*size = (int)want;
		*pos = start + (len - *size) / 2;
	}
}

/* The zone a surface takes from an edge: its exclusive zone and margin,
 * but never so much that less than half of the output's size (full_len)
 * is left for windows (vitrail(1), LAYER SHELL): a panel with a zone of
 * INT32_MAX, larger than the output, or the thousandth panel, cannot
 * push the windows off the output. */
static int zone_taken(int32_t exclusive, uint32_t margin, int usable_len,
		int full_len) {
	/* margins come as the protocol's int32, stored unsigned */
	int64_t m = (int32_t)margin;
	int64_t zone = (int64_t)exclusive + (m > 0 ? m : 0);
	int64_t room = (int64_t)usable_len - (full_len + 1) / 2;
	if (room < 0) {
		room = 0;
	}
	return (int)(zone < room ? zone : room);
}

/* Shrink *usable by the exclusive zone of a surface, on the edge it is
 * anchored to (one edge, or one edge and both perpendicular ones). */
static void apply_exclusive(struct wlr_box *usable, const struct wlr_box *full,
		const struct wlr_layer_surface_v1_state *state) {
	if (state->exclusive_zone <= 0) {
		return;
	}
	uint32_t a = state->anchor;
	const uint32_t horiz = ANCHOR_LEFT | ANCHOR_RIGHT;
	const uint32_t vert = ANCHOR_TOP | ANCHOR_BOTTOM;
	int zone;
	if (a == ANCHOR_TOP || a == (ANCHOR_TOP | horiz)) {
		zone = zone_taken(state->exclusive_zone, state->margin.top,
				usable->height, full->height);
		usable->y += zone;
		usable->height -= zone;
	} else if (a == ANCHOR_BOTTOM || a == (ANCHOR_BOTTOM | horiz)) {
		zone = zone_taken(state->exclusive_zone, state->margin.bottom,
				usable->height, full->height);
		usable->height -= zone;
	} else if (a == ANCHOR_LEFT || a == (ANCHOR_LEFT | vert)) {
		zone = zone_taken(state->exclusive_zone, state->margin.left,
				usable->width, full->width);
		usable->x += zone;
		usable->width -= zone;
	} else if (a == ANCHOR_RIGHT || a == (ANCHOR_RIGHT | vert)) {
		zone = zone_taken(state->exclusive_zone, state->margin.right,
				usable->width, full->width);
		usable->width -= zone;
	}
}

/* Place ls in bounds; false: no room, it was closed. */
static bool place_surface(struct vt_layer_surface *ls,
		const struct wlr_box *bounds) {
	struct wlr_layer_surface_v1 *layer_surface = ls->layer_surface;
	const struct wlr_layer_surface_v1_state *state = &layer_surface->current;
	uint32_t a = state->anchor;
	struct wlr_box box;
	place_axis(bounds->x, bounds->width, state->desired_width,
			(a & ANCHOR_LEFT) != 0, (a & ANCHOR_RIGHT) != 0,
			(int32_t)state->margin.left, (int32_t)state->margin.right, &box.x,
			&box.width);
	place_axis(bounds->y, bounds->height, state->desired_height,
			(a & ANCHOR_TOP) != 0, (a & ANCHOR_BOTTOM) != 0,
			(int32_t)state->margin.top, (int32_t)state->margin.bottom, &box.y,
			&box.height);
	if (box.width <= 0 || box.height <= 0) {
		wlr_log(WLR_INFO,
				"layer surface '%s': no room on %s (%dx%d), "
				"closing it",
				layer_surface->namespace, layer_surface->output->name,
				box.width, box.height);
		wlr_layer_surface_v1_destroy(layer_surface);
		return false;
	}
	ls->box = box;
	vr_node_set_position(ls->node, (float)box.x, (float)box.y);
	if (ls->awaiting_commit) {
		return true;
	}
	if (!ls->configured || ls->configured_width != (uint32_t)box.width ||
			ls->configured_height != (uint32_t)box.height) {
		ls->configured = true;
		ls->configured_width = (uint32_t)box.width;
		ls->configured_height = (uint32_t)box.height;
		wlr_layer_surface_v1_configure(layer_surface, (uint32_t)box.width,
				(uint32_t)box.height);
	}
	return true;
}

static bool output_has_fullscreen(struct vt_server *server,
		struct wlr_output *wlr_output) {
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (vt_view_visible(view) && view->placed_on != NULL &&
				vt_output_wlr(view->placed_on) == wlr_output &&
				(view->impl->get_fill(view, false) & VT_FILL_FULLSCREEN)) {
			return true;
		}
	}
	return false;
}

static void update_enabled(struct vt_layer_surface *ls) {
	vr_node_set_enabled(ls->node, ls->layer_surface->mapped && !ls->hidden);
}

/* Fullscreen windows may have come or gone: top-layer surfaces hide on
 * outputs with one (overlay stays above). */
static void fullscreen_changed(struct vt_server *server) {
	struct vt_layer_shell *layers = layers_of(server);
	if (layers == NULL) {
		return;
	}
	bool changed = false;
	struct vt_layer_surface *ls;
	wl_list_for_each(ls, &layers->surfaces, link) {
		bool hidden = ls->layer == ZWLR_LAYER_SHELL_V1_LAYER_TOP &&
				output_has_fullscreen(server, ls->layer_surface->output);
		if (hidden != ls->hidden) {
			ls->hidden = hidden;
			update_enabled(ls);
			changed = true;
		}
	}
	if (changed) {
		wl_signal_emit(&server->events.pointer_focus, NULL);
		vt_server_schedule_update(server);
	}
}

static void handle_fullscreen_changed(struct wl_listener *listener,
		void *data) {
	struct vt_layer_shell *layers =
			wl_container_of(listener, layers, fullscreen_changed);
	fullscreen_changed(layers->server);
}

/* Place the layer surfaces of one output; returns its usable box. */
static struct wlr_box arrange_output(struct vt_layer_shell *layers,
		struct wlr_output *wlr_output) {
	struct vt_server *server = layers->server;
	struct wlr_box full = output_full_box(server, wlr_output);
	struct wlr_box usable = full;
	for (int exclusive = 1; exclusive >= 0; exclusive--) {
		for (int layer = LAYERS - 1; layer >= 0; layer--) {
			struct vt_layer_surface *ls, *tmp;
			/* oldest first: the first panel keeps the edge */
			wl_list_for_each_reverse_safe(ls, tmp, &layers->surfaces, link) {
				struct wlr_layer_surface_v1 *layer_surface = ls->layer_surface;
				const struct wlr_layer_surface_v1_state *state =
						&layer_surface->current;
				if (layer_surface->output != wlr_output ||
						!layer_surface->added || (int)ls->layer != layer ||
						(state->exclusive_zone > 0) != exclusive) {
					continue;
				}
				struct wlr_box bounds =
						state->exclusive_zone < 0 ? full : usable;
				if (place_surface(ls, &bounds) && exclusive &&
						layer_surface->mapped) {
					apply_exclusive(&usable, &full, state);
				}
			}
		}
	}
	return usable;
}

void vt_layers_arrange(struct vt_server *server) {
	struct vt_layer_shell *layers = layers_of(server);
	if (layers == NULL) {
		return;
	}
	if (layers->arranging) {
		layers->rearrange = true;
		return;
	}
	layers->arranging = true;
	do {
		layers->rearrange = false;
		for (struct vt_output *output = vt_output_next(server, NULL);
				output != NULL; output = vt_output_next(server, output)) {
			struct wlr_box usable =
					arrange_output(layers, vt_output_wlr(output));
			struct wlr_box before = vt_output_usable_box(output);
			vt_output_set_usable_box(output, &usable);
			if (before.x != usable.x || before.y != usable.y ||
					before.width != usable.width ||
					before.height != usable.height) {
				vt_views_usable_changed(server, output);
			}
		}
	} while (layers->rearrange);
	layers->arranging = false;
	fullscreen_changed(server);
	wl_signal_emit(&server->events.pointer_focus, NULL);
	vt_server_schedule_update(server);
}

/* ---- hit testing -------------------------------------------------------- */

struct wlr_surface *vt_layers_surface_at(struct vt_server *server, double lx,
		double ly, bool above, double *sx, double *sy) {
	struct vt_layer_shell *layers = layers_of(server);
	if (layers == NULL) {
		return NULL;
	}
	int top = above ? ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY :
					  ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM;
	int bottom = above ? ZWLR_LAYER_SHELL_V1_LAYER_TOP :
						 ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND;
	for (int layer = top; layer >= bottom; layer--) {
		struct vt_layer_surface *ls;
		wl_list_for_each(ls, &layers->surfaces, link) {
			if ((int)ls->layer != layer || !ls->layer_surface->mapped ||
					ls->hidden) {
				continue;
			}
			double x = lx - ls->box.x, y = ly - ls->box.y;
			/* popups first: they are above their parent */
			struct wlr_surface *surface = wlr_layer_surface_v1_popup_surface_at(
					ls->layer_surface, x, y, sx, sy);
			if (surface == NULL) {
				surface = wlr_layer_surface_v1_surface_at(ls->layer_surface, x,
						y, sx, sy);
			}
			if (surface != NULL) {
				return surface;
			}
		}
	}
	return NULL;
}

bool vt_layers_popup_parent(struct wlr_surface *root, struct vr_node **node,
		struct wlr_box *constraint) {
	if (root == NULL || !wlr_surface_is_layer_surface(root)) {
		return false;
	}
	struct wlr_layer_surface_v1 *layer_surface =
			wlr_layer_surface_v1_from_wlr_surface(root);
	struct vt_layer_surface *ls = layer_surface->data;
	if (ls == NULL || layer_surface->output == NULL) {
		return false;
	}
	*node = ls->node;
	/* the output, in the layer surface's coordinates */
	struct wlr_box full =
			output_full_box(ls->layers->server, layer_surface->output);
	*constraint = (struct wlr_box){
		.x = full.x - ls->box.x,
		.y = full.y - ls->box.y,
		.width = full.width,
		.height = full.height,
	};
	return true;
}

/* ---- lifetime ----------------------------------------------------------- */

/* A size of 0 stretches the surface between two opposite anchors: without
 * both, it is the protocol's invalid_size error (wlroots 0.15.1 as Debian
 * ships it does not check). false: the error was posted. */
static bool check_size(struct wlr_layer_surface_v1 *layer_surface) {
	const struct wlr_layer_surface_v1_state *state = &layer_surface->current;
	const uint32_t horiz = ANCHOR_LEFT | ANCHOR_RIGHT;
	const uint32_t vert = ANCHOR_TOP | ANCHOR_BOTTOM;
	if (state->desired_width == 0 && (state->anchor & horiz) != horiz) {
		wl_resource_post_error(layer_surface->resource,
				ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SIZE,
				"width 0 needs both the left and the right anchor "
				"(anchor %" PRIu32 ")",
				state->anchor);
		return false;
	}
	if (state->desired_height == 0 && (state->anchor & vert) != vert) {
		wl_resource_post_error(layer_surface->resource,
				ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SIZE,
				"height 0 needs both the top and the bottom anchor "
				"(anchor %" PRIu32 ")",
				state->anchor);
		return false;
	}
	return true;
}

static void layer_surface_handle_map(struct wl_listener *listener, void *data) {
	struct vt_layer_surface *ls = wl_container_of(listener, ls, map);
	update_enabled(ls);
	/* an exclusive zone counts from now on */
	vt_layers_arrange(ls->layers->server);
	layer_update_focus(ls);
	/* on_demand above the windows gets the keyboard as it maps, as a
	 * new window does (a launcher or a panel's menu opens to be typed
	 * into); a click on a window, or a new window, takes it back.
	 * Under the windows (a desktop) it waits for a click, and it never
	 * takes the keyboard from an exclusive surface. */
	struct wlr_layer_surface_v1 *layer_surface = ls->layer_surface;
	if (layer_surface->current.keyboard_interactive ==
					ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_ON_DEMAND &&
			layer_surface->current.layer >= ZWLR_LAYER_SHELL_V1_LAYER_TOP &&
			!ls->hidden && !vt_layers_keyboard_grabbed(ls->layers->server)) {
		layer_focus(ls);
	}
}

static void layer_surface_handle_unmap(struct wl_listener *listener,
		void *data) {
	struct vt_layer_surface *ls = wl_container_of(listener, ls, unmap);
	ls->awaiting_commit = true;
	update_enabled(ls);
	layer_unfocus(ls);
	vt_layers_arrange(ls->layers->server);
}

static void layer_surface_handle_commit(struct wl_listener *listener,
		void *data) {
	struct vt_layer_surface *ls = wl_container_of(listener, ls, commit);
	struct wlr_layer_surface_v1 *layer_surface = ls->layer_surface;
	uint32_t committed = layer_surface->current.committed;
	if (!check_size(layer_surface)) {
		return;
	}
	if (ls->awaiting_commit && !layer_surface->mapped) {
		/* its first commit after an unmap: configure it again */
		ls->awaiting_commit = false;
		ls->configured = false;
		committed |= WLR_LAYER_SURFACE_V1_STATE_DESIRED_SIZE;
	}
	if (layer_surface->current.layer != ls->layer) {
		ls->layer = layer_surface->current.layer;
		vr_node_set_parent(ls->node, ls->layers->layers[ls->layer]);
		committed |= WLR_LAYER_SURFACE_V1_STATE_LAYER;
	}
	/* set_size, anchor, zone, margin or layer: place the surfaces again
	 * (wlroots keeps current.committed until the next commit of
	 * such state, so compare what matters) */
	if (committed != 0) {
		vt_layers_arrange(ls->layers->server);
	}
	if (layer_surface->mapped) {
		layer_update_focus(ls);
	}
}

static void layer_surface_handle_destroy(struct wl_listener *listener,
		void *data) {
	struct vt_layer_surface *ls = wl_container_of(listener, ls, destroy);
	struct vt_server *server = ls->layers->server;
	layer_unfocus(ls);
	wl_list_remove(&ls->map.link);
	wl_list_remove(&ls->unmap.link);
	wl_list_remove(&ls->destroy.link);
	wl_list_remove(&ls->commit.link);
	wl_list_remove(&ls->output_destroy.link);
	wl_list_remove(&ls->link);
	ls->layer_surface->data = NULL;
	/* the wl_surface's node is the surface's own (surface.c) */
	struct vt_surface *surface =
			vt_surface_from_wlr(ls->layer_surface->surface);
	if (surface != NULL && vr_node_parent(surface->node) == ls->node) {
		vr_node_set_parent(surface->node, NULL);
	}
	vr_node_destroy(ls->node);
	free(ls);
	vt_layers_arrange(server);
}

static void layer_surface_handle_output_destroy(struct wl_listener *listener,
		void *data) {
	struct vt_layer_surface *ls = wl_container_of(listener, ls, output_destroy);
	/* closed: the client may ask again for another output */
	wl_list_remove(&ls->output_destroy.link);
	wl_list_init(&ls->output_destroy.link);
	ls->layer_surface->output = NULL;
	wlr_layer_surface_v1_destroy(ls->layer_surface);
}

void vt_layers_output_disabled(struct vt_server *server,
		struct wlr_output *wlr_output) {
	struct vt_layer_shell *layers = layers_of(server);
	if (layers == NULL) {
		return;
	}
	/* no arranging between the closes: it could close the next one */
	bool arranging = layers->arranging;
	layers->arranging = true;
	struct vt_layer_surface *ls, *tmp;
	wl_list_for_each_safe(ls, tmp, &layers->surfaces, link) {
		if (ls->layer_surface->output == wlr_output) {
			wlr_layer_surface_v1_destroy(ls->layer_surface);
		}
	}
	layers->arranging = arranging;
	if (!arranging && layers->rearrange) {
		vt_layers_arrange(server);
	}
}

/* The output the cursor is on, else the focused window's, else the
 * first; NULL: none. */
static struct wlr_output *default_output(struct vt_server *server) {
	struct vt_output *output = NULL;
	if (server->cursor != NULL) {
		output = vt_output_at(server, server->cursor->x, server->cursor->y);
	}
	if (output == NULL && server->focused_view != NULL) {
		output = server->focused_view->placed_on;
	}
	if (output == NULL) {
		output = vt_output_next(server, NULL);
	}
	return output != NULL ? vt_output_wlr(output) : NULL;
}

static void handle_new_surface(struct wl_listener *listener, void *data) {
	struct vt_layer_shell *layers =
			wl_container_of(listener, layers, new_surface);
	struct vt_server *server = layers->server;
	struct wlr_layer_surface_v1 *layer_surface = data;
	if (!check_size(layer_surface)) {
		return;
	}
	if (layer_surface->output == NULL) {
		layer_surface->output = default_output(server);
	}
	struct vt_surface *surface = vt_surface_from_wlr(layer_surface->surface);
	if (layer_surface->output == NULL || layer_surface->output->data == NULL ||
			!vt_output_enabled(layer_surface->output->data) ||
			surface == NULL) {
		/* no output to show it on (or an output vitrail does not
		 * drive): closed */
		wlr_log(WLR_INFO, "layer surface '%s': no output, closing it",
				layer_surface->namespace);
		wlr_layer_surface_v1_destroy(layer_surface);
		return;
	}
	struct vt_layer_surface *ls = calloc(1, sizeof(*ls));
	if (ls == NULL || (ls->node = vr_node_create(server->tree)) == NULL) {
		free(ls);
		wl_resource_post_no_memory(layer_surface->resource);
		return;
	}
	ls->layers = layers;
	ls->layer_surface = layer_surface;
	ls->layer = layer_surface->current.layer;
	layer_surface->data = ls;
	vr_node_set_enabled(ls->node, false);
	vr_node_set_parent(ls->node, layers->layers[ls->layer]);
	vr_node_set_parent(surface->node, ls->node);
	vr_node_set_position(surface->node, 0, 0);
	wl_list_insert(&layers->surfaces, &ls->link);

	ls->map.notify = layer_surface_handle_map;
	wl_signal_add(&layer_surface->events.map, &ls->map);
	ls->unmap.notify = layer_surface_handle_unmap;
	wl_signal_add(&layer_surface->events.unmap, &ls->unmap);
	ls->destroy.notify = layer_surface_handle_destroy;
	wl_signal_add(&layer_surface->events.destroy, &ls->destroy);
	ls->commit.notify = layer_surface_handle_commit;
	wl_signal_add(&layer_surface->surface->events.commit, &ls->commit);
	ls->output_destroy.notify = layer_surface_handle_output_destroy;
	wl_signal_add(&layer_surface->output->events.destroy, &ls->output_destroy);

	/* the first configure: its size on its output */
	vt_layers_arrange(server);
}

static void handle_shell_destroy(struct wl_listener *listener, void *data) {
	struct vt_layer_shell *layers = wl_container_of(listener, layers, destroy);
	wl_list_remove(&layers->new_surface.link);
	wl_list_remove(&layers->destroy.link);
	wl_list_init(&layers->new_surface.link);
	wl_list_init(&layers->destroy.link);
	layers->shell = NULL;
}

static void handle_output_disabled(struct wl_listener *listener, void *data) {
	struct vt_layer_shell *layers =
			wl_container_of(listener, layers, output_disabled);
	struct vt_output_change_event *event = data;
	vt_layers_output_disabled(layers->server, event->wlr_output);
}

bool vt_layers_init(struct vt_server *server) {
	struct vt_layer_shell *layers = calloc(1, sizeof(*layers));
	if (layers == NULL) {
		return false;
	}
	layers->server = server;
	wl_list_init(&layers->surfaces);
	for (int i = 0; i < LAYERS; i++) {
		layers->layers[i] = vr_node_create(server->tree);
		if (layers->layers[i] == NULL) {
			goto error;
		}
	}
	/* background, bottom, [views], top, overlay, [cursor] */
	struct vr_node *root = vr_tree_root(server->tree);
	for (int i = 0; i < LAYERS; i++) {
		vr_node_set_parent(layers->layers[i], root);
	}
	vr_node_place_above(layers->layers[ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND],
			server->background);
	vr_node_place_above(layers->layers[ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM],
			layers->layers[ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND]);
	vr_node_place_above(server->views_layer,
			layers->layers[ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM]);
	vr_node_place_above(layers->layers[ZWLR_LAYER_SHELL_V1_LAYER_TOP],
			server->views_layer);
	vr_node_place_above(layers->layers[ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY],
			layers->layers[ZWLR_LAYER_SHELL_V1_LAYER_TOP]);
	vr_node_raise_to_top(server->cursor_layer);

	layers->shell = wlr_layer_shell_v1_create(server->display);
	if (layers->shell == NULL) {
		goto error;
	}
	layers->new_surface.notify = handle_new_surface;
	wl_signal_add(&layers->shell->events.new_surface, &layers->new_surface);
	layers->destroy.notify = handle_shell_destroy;
	wl_signal_add(&layers->shell->events.destroy, &layers->destroy);
	layers->output_disabled.notify = handle_output_disabled;
	wl_signal_add(&server->events.output_disabled, &layers->output_disabled);
	layers->fullscreen_changed.notify = handle_fullscreen_changed;
	wl_signal_add(&server->events.fullscreen_changed,
			&layers->fullscreen_changed);
	server->layers = layers;
	return true;

error:
	for (int i = 0; i < LAYERS; i++) {
		vr_node_destroy(layers->layers[i]);
	}
	free(layers);
	return false;
}

void vt_layers_finish(struct vt_server *server) {
	struct vt_layer_shell *layers = layers_of(server);
	if (layers == NULL) {
		return;
	}
	/* the display's destruction destroyed the surfaces and the global */
	wl_list_remove(&layers->new_surface.link);
	wl_list_remove(&layers->destroy.link);
	wl_list_remove(&layers->output_disabled.link);
	wl_list_remove(&layers->fullscreen_changed.link);
	server->layers = NULL;
	server->focused_layer = NULL;
	free(layers); /* its nodes go with the tree */
}
