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
/* Every surface (server->events.new_surface) takes its path and callback
 * timing from it, at its commits (events.content) and the outputs' frames
 * (server->frame_events.surface_sampled, vblank_callback). */

#endif
