/*
 * Outputs: the frame pipeline of each output: its place in the layout and
 * workspaces (output.c), its buffers and damage (output_buffers.c), its
 * frames: pacing, render, commit, present, tearing (output_frame.c),
 * statistics and screenshots (output_stats.c).
 */
#ifndef VITRAIL_OUTPUT_H
#define VITRAIL_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pixman.h>
#include <wayland-server-core.h>
#include <wlr/util/box.h>
#include <vitrail/renderer.h>

struct vt_server;
struct vt_surface;
struct vt_clock;
struct vt_config;
struct wlr_output;
struct wlr_output_event_present;

/* An output: its render target, buffers and pacing (output.c; opaque). */
struct vt_output;

/*
 * The outputs' signals (server->events.output_*, server->frame_events in
 * server.h): the data they carry. Fields marked "answer" are filled in by
 * listeners; the emitter sets them to the answer of no listener first.
 */

/* output_disabled (output: the wlr_output's), output_gone (box: where
 * it was), output_moved (from: where it was; output NULL: windows left
 * without an output get one) */
struct vt_output_change_event {
	struct vt_output *output;
	struct wlr_output *wlr_output;
	struct wlr_box box;
};

/* frame_events.busy: do frames have to go on? */
struct vt_frame_busy_event {
	struct vt_server *server;
	/* queued is known (a frame's latch said it): nobody asks again */
	bool queued_known;
	bool queued; /* answer: commits queued for a display time */
	uint64_t horizon; /* answer: the pre_render queues' last target */
	/* answer: an animation or fling runs; once it is true, later
	 * listeners need not look (they did not either before) */
	bool animating;
};

/* frame_events.sample: a frame (not a torn one) starts for display_ns */
struct vt_frame_sample_event {
	struct vt_output *output;
	uint64_t display_ns, period_ns;
	bool queued; /* answer: commits stay queued (frame_timing.c) */
	char *scene_samples; /* answer: for the frame log */
	size_t scene_samples_len;
	char *scroll_samples;
	size_t scroll_samples_len;
};

/* frame_events.begin: a frame was made (test hooks, the lock epoch) */
struct vt_frame_begin_event {
	struct vt_output *output;
	uint64_t lock_epoch; /* answer: the lock in force, 0: none */
	uint32_t slow_us; /* answer: the frame is ready no sooner */
	uint32_t stall_ms; /* answer: the frame renders this late */
};

/* frame_events.surface_sampled, vblank_callback */
struct vt_frame_surface_event {
	struct vt_surface *surface;
	/* the frame's commit feedbacks (frame_timing.c's) and
	 * wp_presentation feedbacks (presentation.c's), sampled */
	struct wl_list *timing_feedbacks;
	struct wl_list *presentation_feedbacks;
	bool unsampled; /* its latest commit was in no frame before */
	bool send; /* answer, vblank_callback: its frame callbacks go now */
};

/* frame_events.presented */
struct vt_frame_presented_event {
	struct vt_output *output;
	struct wl_list *timing_feedbacks;
	struct wl_list *presentation_feedbacks;
	/* the backend's event (presented_ns is its time) */
	const struct wlr_output_event_present *present;
	uint64_t presented_ns, display_ns;
};

/* frame_events.shown: a presented frame's pixels (test protocol, image
 * copy capture), valid during the emission only */
struct vt_frame_shown_event {
	struct vt_output *output;
	uint64_t seq;
	const void *data;
	size_t stride;
	int32_t width, height;
	/* the output pixels this frame changed (NULL: all of them) */
	const pixman_region32_t *damage;
	uint64_t presented_ns; /* CLOCK_MONOTONIC */
};

/* frame_events.dropped: a frame never shown; its feedbacks go to next
 * (NULL: no later frame) */
struct vt_frame_dropped_event {
	struct wl_list *timing_feedbacks, *next;
	struct wl_list *presentation_feedbacks, *next_presentation;
	uint64_t next_render_ns;
	bool handled; /* answer: a later frame shows them */
};

void vt_output_create(struct vt_server *server, struct wlr_output *wlr_output);
/* Iterate the enabled outputs in name order: vt_output_next(server, NULL)
 * is the first, NULL ends. */
struct vt_output *vt_output_next(struct vt_server *server,
		struct vt_output *output);
struct wlr_output *vt_output_wlr(struct vt_output *output);
/* The order the outputs came in: 0 for those there at the start, higher
 * for later ones. */
int vt_output_created(struct vt_output *output);
/* Enabled, for vitrail: in the layout and drawn. */
bool vt_output_enabled(struct vt_output *output);
/* The newest session lock epoch a presented frame of the output showed. */
uint64_t vt_output_lock_epoch_shown(struct vt_output *output);
/* Disable (or enable again) an output the backend cannot disable: vitrail
 * takes it out of the layout and stops drawing it. */
void vt_output_set_soft_disabled(struct vt_output *output, bool disabled);
/* Every output vitrail drives, disabled ones too, in name order. */
struct vt_output *vt_output_next_any(struct vt_server *server,
		struct vt_output *output);
/* Place the enabled outputs in the layout again: those with a manual
 * position there, the others left to right. */
void vt_outputs_arrange(struct vt_server *server);
/* The config's output settings (vitrail(5)) once reloaded: every output
 * the file names, or named before (previous), takes them again. */
void vt_outputs_apply_config(struct vt_server *server,
		const struct vt_config *previous);
/* Its box in the layout, or where it was last when it is disabled. */
struct wlr_box vt_output_last_box(struct vt_output *output);
/* Where output management put it in the layout (manual), or back to
 * automatic placement (left to right in name order). */
void vt_output_set_position(struct vt_output *output, bool manual, int x,
		int y);
/* The part of the output's layout box that windows are placed in and
 * maximized to: all of it but layer surfaces' exclusive zones. */
struct wlr_box vt_output_usable_box(struct vt_output *output);
void vt_output_set_usable_box(struct vt_output *output,
		const struct wlr_box *box);
/* The workspace the output shows (view.c decides; 1 when it came). */
int vt_output_workspace(struct vt_output *output);
void vt_output_set_workspace(struct vt_output *output, int workspace);
struct vt_output *vt_output_by_name(struct vt_server *server, const char *name);
struct vt_output *vt_output_at(struct vt_server *server, double lx, double ly);
struct vr_mat vt_output_view(struct vt_output *output);
/* The same without the turn: the output as screenshot tools show it,
 * upright, *width x *height pixels (its buffer's size, turned for 90 and
 * 270). */
struct vr_mat vt_output_upright_view(struct vt_output *output, int *width,
		int *height);
/* The outputs take the loop's signals (server->events.update,
 * run_pacers): called first in vt_server_init; finish undoes it. */
void vt_outputs_init(struct vt_server *server);
void vt_outputs_finish(struct vt_server *server);
/* Run the pending tree update now (damage to outputs); the idle one
 * (vt_server_schedule_update) is cancelled. */
void vt_server_update(struct vt_server *server);
/* A tree update's changes (vr_tree_update_moves), on every output they
 * touch: layout damage and moves of layout pixels. */
void vt_outputs_add_changes(struct vt_server *server,
		const pixman_region32_t *layout_damage, const struct vr_move *moves,
		size_t nmoves);
/* Ask every output for a frame: VT_PACER_RENDER (something may have
 * changed: animations) and/or VT_PACER_CALLBACKS (clients wait for frame
 * callbacks). The outputs' pacing decides when. */
void vt_server_request_frame(struct vt_server *server, uint32_t wants);
/* A new frame of the whole output, drawn anew (a capture that may not
 * wait for new content). */
void vt_output_request_full_frame(struct vt_output *output);
/* The renderer completed frames (its fd is readable). */
void vt_outputs_frames_completed(struct vt_server *server);
/* One display slot of an output's frame timeline. */
struct vt_display_slot {
	uint64_t display_ns; /* when a frame for it is shown */
	uint64_t deadline_ns; /* commit by then to be in it */
	uint64_t refresh_ns;
};
/* Up to n slots of output's timeline from now, after display time `after`
 * (0: none); returns how many. */
int vt_output_display_slots(struct vt_output *output, uint64_t now,
		uint64_t after, struct vt_display_slot *slots, int n);
/* The output a surface shows on (the centre of its node), or NULL. */
struct vt_output *vt_surface_output(struct vt_surface *surface);

/* The output's frame clock and composition lead, and the first refresh
 * whose composition has not started. false: no pacer. */
bool vt_output_pacing(struct vt_output *output, uint64_t now,
		const struct vt_clock **clock, uint64_t *out_ns, uint64_t *earliest);
/* Position-aware rendering of the surface's damage (presentation_paths.c
 * decides the surface may tear): written at once into the refresh being scanned
 * out when the scanout model allows. *fits: whether the damage lay in the
 * tearing box around the pointer (whatever the timing; false where the
 * output has no scanout model). */
bool vt_output_tear(struct vt_output *output, struct vt_surface *surface,
		uint64_t now, uint64_t *shown_ns, bool *fits);
/* How long after a vblank the scan reaches the top of the tearing box
 * around the pointer (0: no scanout model, or no pointer): low-latency
 * surfaces that tear aim their frames at that time. */
uint64_t vt_output_tear_offset(struct vt_output *output);

/* An input event: frames rendered ahead are stale (D-VSync). */
void vt_outputs_input(struct vt_server *server);
/* The Vulkan device is lost: frames it did not finish are dropped, and
 * the CPU backend draws every output from now on. */
void vt_outputs_lose_renderer(struct vt_server *server);
/* No output has damage to draw or frames not yet presented. */
bool vt_outputs_settled(struct vt_server *server);
/* Log (WLR_INFO) each output's frame state: its pending damage, its
 * frames' states, its pacer's, and the surfaces it draws (whether their
 * newest content was drawn, their frame callbacks waiting). SIGUSR1 and
 * a settle of the test protocol unanswered for long log it. */
void vt_outputs_log_state(struct vt_server *server);
void vt_outputs_print_stats(struct vt_server *server, FILE *f,
		const char *indent);
/* One PNG per output, DIR/NAME.png. */
void vt_outputs_write_screenshots(struct vt_server *server, const char *dir);

/* output.c: output power (wlr-output-power-management): off disables the
 * output (no frames), on enables it and draws it whole; false when the
 * backend cannot (wlroots 0.15 disables DRM outputs only). */
bool vt_output_set_power(struct vt_server *server,
		struct wlr_output *wlr_output, bool on);

#endif
