/*
 * wp_presentation version 2 (presentation.c), vitrail's own: the feedback
 * of a commit is answered by the frame that first shows that commit,
 * cached and latched later (vitrail_frame_timing_v1's targeted commits)
 * or not.
 */
#ifndef VITRAIL_PROTOCOLS_PRESENTATION_H
#define VITRAIL_PROTOCOLS_PRESENTATION_H

#include <stdbool.h>

struct vt_server;
struct vt_surface;

bool vt_presentation_init(struct vt_server *server);
void vt_presentation_finish(struct vt_server *server);

#endif
