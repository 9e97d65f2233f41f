/*
 * vitrail_scene_v1 (scene.c): clients' render-node subtrees in the unified
 * render tree, and the compositor-driven animations of their properties.
 */
#ifndef VITRAIL_COMPOSITOR_SCENE_H
#define VITRAIL_COMPOSITOR_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vt_server;
struct vt_scene_node;
struct wl_listener;
struct wl_resource;
struct wlr_surface;

/* Create the vitrail_scene_manager_v1 global (server->scene). */
bool vt_scene_init(struct vt_server *server);
/* After every client is gone: destroy the global. */
void vt_scene_finish(struct vt_server *server);

/*
 * Sample every running animation at display_ns, the display time (target
 * vblank) of the frame about to be prepared, and apply the values to the
 * render tree; animations that reach their end send done. log gets the
 * sampled values for the frame log: "serial@elapsed_ns=v0/v1;..." (serial
 * numbers animations in start order; elapsed_ns is display_ns minus the
 * animation's start; empty when none; as many entries as fit).
 */
void vt_scene_sample(struct vt_server *server, uint64_t display_ns, char *log,
		size_t log_size);
/* True while an animation is pending its first frame or running: outputs
 * keep rendering. */
bool vt_scene_animating(struct vt_server *server);

/*
 * Scroll regions (scroll_region.c) move scene nodes (vitrail_scroll_v1
 * attach_node): the node behind a vitrail_scene_node_v1 resource (NULL
 * when the resource is another interface's or inert), the surface of its
 * scene, the scroll subtracted after its own transform, and a listener
 * for its destruction (data: the node).
 */
struct vt_scene_node *vt_scene_node_from_resource(struct wl_resource *resource);
struct wlr_surface *vt_scene_node_surface(struct vt_scene_node *node);
void vt_scene_node_set_scroll(struct vt_scene_node *node, float x, float y);
void vt_scene_node_add_destroy_listener(struct vt_scene_node *node,
		struct wl_listener *listener);

#endif
