/*
 * vitrail_scroll_v1's regions, shared by the protocol (scroll_region.c)
 * and the input that moves them (scroll_region_input.c, above the
 * desktop, whose hit test it needs).
 */
#ifndef VITRAIL_PROTOCOLS_SCROLL_REGION_INTERNAL_H
#define VITRAIL_PROTOCOLS_SCROLL_REGION_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "pacing/scroll.h"

struct vr_image;
struct vr_node;
struct vt_client_budget;
struct vt_scene_node;
struct vt_server;
struct wlr_surface;

#define AXIS_X 0
#define AXIS_Y 1

struct vt_scroll_manager {
	struct vt_server *server;
	struct wl_global *global;
	struct wl_list regions; // scroll_region::link, oldest first
	uint32_t next_id; // numbers regions for the frame log
	/* over every region so far, for --stats */
	uint64_t frames, requests, overflow_frames;
	/* the outputs' frame clock (server->frame_events) */
	struct wl_listener busy;
	struct wl_listener sample;
};

enum frame_kind {
	FRAME_NONE,
	FRAME_BUFFER,
	FRAME_NODE,
};

/* A frame's pixels being copied in bands (version 2). */
struct frame_copy {
	struct scroll_region *region; // its frame is region->pending
	struct wl_resource *buffer; // the client's, released once copied
	struct wl_listener buffer_destroy;
	struct wl_event_source *timer; // the next band
	int32_t next_row, rows;
	uint64_t start_ns, busy_ns;
	uint32_t bands;
};

struct frame {
	enum frame_kind kind;
	struct vr_image *image; // FRAME_BUFFER, referenced
	struct frame_copy *copy; // FRAME_BUFFER: rows still to copy, or NULL
	uint64_t bytes; // FRAME_BUFFER: charged to the region's budget
	struct vt_scene_node *node; // FRAME_NODE
	int32_t size[2]; // the frame's extent
	int32_t offset[2]; // where it starts in the content
	int32_t content[2]; // the content's extent
};

struct scroll_region {
	struct wl_resource *resource;
	struct vt_scroll_manager *manager;
	struct wlr_surface *surface; // NULL once inert
	struct vt_client_budget *budget; // referenced
	struct wl_list link; // vt_scroll_manager::regions
	uint32_t id;
	bool scrolls[2];
	int32_t rect[4], pending_rect[4]; // x, y, width, height
	bool rect_pending;
	struct frame frame, pending;
	bool frame_pending;
	/* a commit waits for the pending frame's last band */
	bool commit_waiting;
	int32_t pending_pos[2];
	bool pos_pending;
	struct wl_listener node_destroy; // frame.node's, when listening
	struct wl_listener pending_node_destroy; // pending.node's
	/* FRAME_BUFFER: the image's node, at the region's place */
	struct vr_node *crop;
	/* the image of the last frame replaced, reused by the next frame of
	 * its size once nothing else holds it (a fresh image's page faults
	 * cost the main thread more than the copy itself), and what it is
	 * charged to the budget */
	struct vr_image *spare;
	uint64_t spare_bytes;

	double pos[2]; // the position wanted (content pixels)
	int32_t shown[2]; // the position the frame shows
	int32_t sent[2]; // the last position event
	bool sent_known;
	struct vt_scroll_velocity velocity[2];
	struct vt_fling fling[2];
	/* a touch point dragging the content */
	bool dragging;
	int32_t touch_id;
	double drag_from[2]; // layout coordinates at the touch down
	double drag_pos[2]; // the position then

	/* the frame asked for and not attached yet */
	bool requested;
	uint64_t requested_at;
	int32_t requested_offset[2], requested_size[2];
	struct vt_scroll_render_time render_time;

	uint64_t frames; // frames applied

	struct wl_listener surface_commit;
	struct wl_listener surface_destroy;
};

/* One axis of the region and its current frame, for the policy. */
struct vt_scroll_span scroll_region_span(const struct scroll_region *region,
		int axis);
/* Move the window to the wanted position, clamped at the frame's edges:
 * the crop's source rectangle, or the node's scroll. Returns the
 * overflow mask (0: the frame holds the window). */
uint32_t scroll_region_show(struct scroll_region *region);

#endif
