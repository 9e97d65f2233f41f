/*
 * vitrail_scroll_v1 (scroll_region.c): scroll regions of surfaces whose
 * extended frames vitrail scrolls itself (scroll-aware rendering; the policy is
 * pacing/scroll.c). Main thread only.
 */
#ifndef VITRAIL_COMPOSITOR_SCROLL_H
#define VITRAIL_COMPOSITOR_SCROLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct vt_output;
#include "output/frame_log.h" /* VT_SCROLL_SAMPLES_LEN */

struct vt_server;
struct wlr_event_pointer_axis;

/* Create the vitrail_scroll_manager_v1 global (server->scroll). */
bool vt_scroll_init(struct vt_server *server);
/* After every client is gone: destroy the global. */
void vt_scroll_finish(struct vt_server *server);

/*
 * Before output's frame for display_ns samples the tree: every region
 * shown on that output takes its position at display_ns (a fling is
 * evaluated there), moves its window over its frame (clamped at the
 * frame's edges), sends position when it changed, and asks its client for
 * a new frame when the window, predicted one lead ahead, would leave the
 * frame. period_ns: the output's refresh period. log gets the frame log's
 * entries: "id@x/y/wanted_x/wanted_y/frames;..." (the position shown, the
 * one wanted, the frames the region had so far; empty when none).
 */
void vt_scroll_sample(struct vt_server *server, struct vt_output *output,
		uint64_t display_ns, uint64_t period_ns, char *log, size_t log_size);
/* For --stats: regions made, extended frames applied, frames asked for,
 * output frames that clamped a window (nothing when no region was made). */
void vt_scroll_print_stats(struct vt_server *server, FILE *f,
		const char *indent);
/* A fling runs: outputs keep rendering, and it is what D-VSync may render
 * ahead (its positions are a function of the display time). */
bool vt_scroll_flinging(struct vt_server *server);

/* Input aimed at a region (input.c calls these first): true when a region
 * took it (the client does not get it). Touch positions are in layout
 * coordinates; time_msec is the event's timestamp (the speed of a fling
 * is measured on the events' clock). */
bool vt_scroll_pointer_axis(struct vt_server *server,
		const struct wlr_event_pointer_axis *event);
bool vt_scroll_touch_down(struct vt_server *server, uint32_t time_msec,
		int32_t id, double lx, double ly);
bool vt_scroll_touch_motion(struct vt_server *server, uint32_t time_msec,
		int32_t id, double lx, double ly);
bool vt_scroll_touch_up(struct vt_server *server, uint32_t time_msec,
		int32_t id);

#endif
