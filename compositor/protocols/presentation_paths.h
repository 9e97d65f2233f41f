/*
 * The presentation path of each surface (presentation_paths.c): the path
 * manager's glue (pacing/path.c decides) and wp_tearing_control_v1.
 */
#ifndef VITRAIL_PRESENTATION_PATHS_H
#define VITRAIL_PRESENTATION_PATHS_H

#include <stdbool.h>

struct vt_server;
struct vt_surface;

/* presentation_paths.c: the path manager's glue */
bool vt_paths_init(struct vt_server *server);
void vt_paths_finish(struct vt_server *server);
void vt_paths_surface_init(struct vt_surface *surface);
/* After a commit applied: new_content (it changed the surface's
 * pixels), replaced (the commit before was never drawn). */
void vt_paths_surface_commit(struct vt_surface *surface, bool new_content,
	bool replaced);
/* A frame drew the surface's latest commit. */
void vt_paths_surface_drawn(struct vt_surface *surface);
/* At an output's vblank: whether the surface's callback goes now (false:
 * the low-latency trigger sends it). */
bool vt_paths_vblank_callback(struct vt_surface *surface);
void vt_paths_surface_destroyed(struct vt_surface *surface);

#endif
