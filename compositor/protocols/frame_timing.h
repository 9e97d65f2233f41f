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
/* Before a frame of output for display_ns samples the tree: latch the
 * queued commits of surfaces on that output due by then; true while
 * commits stay queued anywhere (outputs keep rendering for them). */
bool vt_frame_timing_latch(struct vt_server *server, struct vt_output *output,
	uint64_t display_ns, uint64_t period_ns);
/* Whether commits wait in some surface's queue; *horizon: the latest
 * display time whose content every pre_render surface has queued
 * (UINT64_MAX: no such surface): D-VSync renders no further. One walk. */
bool vt_frame_timing_queue_state(struct vt_server *server,
	uint64_t *horizon);
/* The path the surface's client chose (false: none chose); *tearing:
 * whether it allowed tearing. */
bool vt_frame_timing_path(struct vt_surface *surface, enum vt_path *path,
	bool *tearing);
/* Commits of the surface wait for their display time. */
bool vt_frame_timing_surface_queued(struct vt_surface *surface);

void vt_frame_timing_surface_commit(struct vt_surface *surface);
void vt_frame_timing_surface_destroyed(struct vt_surface *surface);
/* Feedbacks: a frame drew the surface (they go with the frame); the frame
 * was shown at presented_ns, rendered for display_ns; it was dropped:
 * they go to next_frame (a frame whose rendering started at
 * next_render_ns, after it) and true, unless their surface committed new
 * content before that (replaced), or, without one, back to their
 * surfaces and false: a new frame must draw them. */
void vt_frame_timing_sampled(struct vt_surface *surface,
	struct wl_list *frame_feedbacks);
void vt_frame_timing_presented(struct wl_list *frame_feedbacks,
	uint64_t presented_ns, uint64_t display_ns);
bool vt_frame_timing_frame_dropped(struct wl_list *frame_feedbacks,
	struct wl_list *next_frame, uint64_t next_render_ns);

#endif
