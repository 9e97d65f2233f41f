/*
 * vitrail_frame_timing_v1 (frame_timing.c): commits queued for a display
 * time, the pre_render path, and presentation feedback carried by frames.
 */
#ifndef VITRAIL_FRAME_TIMING_H
#define VITRAIL_FRAME_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "pacing/path.h"

struct vt_server;
struct vt_output;
struct vt_surface;
struct wl_list;

bool vt_frame_timing_init(struct vt_server *server);
void vt_frame_timing_finish(struct vt_server *server);
/*
 * It takes part in the outputs' frames through their signals
 * (server->frame_events, struct vt_frame_*_event in output/output.h):
 * busy: whether commits wait in some surface's queue, and the horizon:
 * the latest display time whose content every pre_render surface has
 * queued (UINT64_MAX: no such surface): D-VSync renders no further (one
 * walk). sample: before a frame of an output for display_ns samples the
 * tree, the queued commits of surfaces on that output due by then latch;
 * queued while commits stay queued anywhere (outputs keep rendering for
 * them). Feedbacks: surface_sampled: a frame drew the surface (they go
 * with the frame); presented: the frame was shown at presented_ns,
 * rendered for display_ns; dropped: they go to next (a frame whose
 * rendering started at next_render_ns, after it) and handled, unless
 * their surface committed new content before that (replaced), or,
 * without one, back to their surfaces and not handled: a new frame must
 * draw them. A surface's timing object follows its events.commit and
 * events.destroy.
 */
/* The path the surface's client chose (false: none chose); *tearing:
 * whether it allowed tearing. */
bool vt_frame_timing_path(struct vt_surface *surface, enum vt_path *path,
		bool *tearing);
/* Commits of the surface wait for their display time. */
bool vt_frame_timing_surface_queued(struct vt_surface *surface);

#endif
