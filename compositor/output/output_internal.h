/*
 * Outputs' internals, shared by the files of output.c's split (output.c,
 * output_buffers.c, output_frame.c, output_stats.c): struct vt_output,
 * its buffers and frames, and the helpers one file calls in another.
 */
#ifndef VITRAIL_OUTPUT_OUTPUT_INTERNAL_H
#define VITRAIL_OUTPUT_OUTPUT_INTERNAL_H

#include <assert.h>
#include <drm_fourcc.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <wlr/backend/drm.h>
#include <wlr/backend/headless.h>
#include <wlr/backend/x11.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/render/allocator.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>

#include "desktop/surface.h"
#include "output/frame_log.h"
#include "pacing/pacer.h"
#include "server.h"

/* Output buffers per output: enough for the frames a pacer may hold
 * (rendering, ready, committed) plus the one on screen. */
#define OUTPUT_BUFFERS_MAX 6
/* Kept however idle: what the vsync path cycles through. Buffers beyond
 * (D-VSync's queue) go once unused for OUTPUT_BUFFER_IDLE_FRAMES frames,
 * or once the output rendered nothing for OUTPUT_BUFFER_IDLE_MS. */
#define OUTPUT_BUFFERS_KEEP 3
#define OUTPUT_BUFFER_IDLE_FRAMES 120
#define OUTPUT_BUFFER_IDLE_MS 2000
/* Damage of the last commits, for the buffer age of wlroots' swapchain
 * (the fallback commit path). */
#define DAMAGE_HISTORY 4
/* A client buffer whose scan-out commit failed is composed for this many
 * frames before it is tried again (a failure may have been passing). */
#define SCANOUT_RETRY_FRAMES 120

struct output_buffer {
	struct vt_output *output;
	struct wlr_buffer *wlr_buffer;
	/* its memory as the engine's destination (NULL: not mapped, or no
	 * engine) */
	struct vr_engine_buffer *pixels;
	void *data;
	size_t stride;
	bool dmabuf; /* on the device (output_dmabuf.c), else host memory */
	struct wl_list link; /* vt_output::buffers */
	/* What this buffer lacks of the latest frame: pixels moved and
	 * changed since it was last written (shift-and-expose) */
	struct vr_changes changes;
	bool busy; /* locked by a frame, or held by the backend */
	uint64_t last_used; /* vt_output::frame_seq when last written */
	struct wl_listener release;
};

/* One frame, from the render call until it was shown or dropped. */
struct output_frame {
	struct vt_output *output;
	struct wl_list link; /* vt_output::frames */
	struct output_buffer *buffer; /* locked until the frame ends */
	/* direct scan-out (scanout.c): the client buffer the frame shows in
	 * place of a composed one (buffer is NULL), locked until the frame
	 * ends */
	struct wlr_buffer *scanout;
	/* committed as it is, a dma-buf the engine wrote on the device
	 * (output_dmabuf.c) */
	bool on_device;
	uint64_t render_id; /* the renderer's frame; 0: none pending */
	bool ready;
	bool failed; /* its pixels were lost with the device: never shown */
	/* Test protocol slow_frames: ready no earlier than this, as if
	 * rendering took that long (the main thread is not blocked). */
	uint64_t ready_not_before_ns;
	bool finished; /* rendered, waiting for ready_not_before_ns */
	bool committed;
	uint32_t commit_seq; /* wlr_output commit_seq once committed */
	pixman_region32_t damage; /* output pixels changed by this frame */
	pixman_region32_t cpu_copy; /* to copy from the mirror when ready */
	/* the session lock's epoch its tree showed (0: unlocked) */
	uint64_t lock_epoch;
	struct wl_list presentation_feedbacks; /* wp_presentation_feedbacks */
	struct wl_list timing_feedbacks; /* vitrail_commit_feedback_v1s */
	struct vt_frame_record record;
	char scene_samples[VT_SCENE_SAMPLES_LEN];
	char scroll_samples[VT_SCROLL_SAMPLES_LEN];
};

struct vt_output {
	struct vt_server *server;
	struct wlr_output *wlr_output;
	struct wl_list link; /* vt_server::outputs */

	/* The engine's side of the output (its size; NULL: no engine, or it
	 * failed), and the buffer of the newest frame drawn. */
	struct vr_engine_output *dest;
	struct output_buffer *latest;
	struct wlr_box layout_box; /* where arrange_outputs put it */
	/* what layer surfaces' exclusive zones leave of it, in layout
	 * coordinates (layer_shell.c); until set: all of it */
	struct wlr_box usable;
	bool usable_set;
	int workspace; /* the one shown (view.c), 1..VT_WORKSPACES */
	/* a position in the layout set through output management (else
	 * arrange_outputs puts it right of the others) */
	bool manual_position;
	int manual_x, manual_y;
	bool enabled; /* as handle_commit last saw it */
	/* the newest session lock epoch a presented frame of it showed */
	uint64_t lock_epoch_shown;
	/* the order outputs came in: 0 for those there at the start */
	int created;
	/* disabled by vitrail alone: the backend cannot disable it (wlroots
	 * 0.15's headless outputs), so it stays enabled there but is out of
	 * the layout and draws nothing */
	bool soft_disabled;
	/* what the target lacks of the tree: target pixels moved and not
	 * drawn yet */
	struct vr_changes pending;
	struct wl_list buffers; /* output_buffer::link */
	int buffer_width, buffer_height;
	/* Output buffers on the device (output_dmabuf.c) refused: one was
	 * not imported by the engine or not taken by the backend, so the
	 * output's buffers are host memory from now on */
	bool dmabufs_refused;
	struct output_buffer *front; /* last committed */
	/* Direct scan-out (scanout.c): the client buffer on screen, locked
	 * until another commit replaces it (NULL: ours is); one the backend
	 * refused at commit (compared, never used), not tried again for
	 * SCANOUT_RETRY_FRAMES frames after frame_seq scanout_refused_seq; why
	 * the last frame planned was composed ("": it was scanned out; for the
	 * log); and whether frames shown that way left the target behind (the
	 * next composed frame draws all of it). */
	struct wlr_buffer *scanout_front;
	struct wlr_buffer *scanout_refused;
	uint64_t scanout_refused_seq;
	char scanout_why[160];
	bool composed_stale;
	struct wl_list frames; /* output_frame::link, oldest first */
	uint64_t frame_seq;

	struct vt_pacer *pacer;
	const struct vt_pacing_policy *policy;
	/* position-aware rendering: the frame being rendered by
	 * vt_output_tear draws only this (output pixels) */
	bool tearing;
	pixman_region32_t tear_region;
	struct vt_surface *tear_surface;
	bool model_clock;
	uint64_t period_ns;
	int timer_fd;
	struct wl_event_source *timer_source;
	struct wl_event_source *slow_timer; /* frames slowed by the test
		protocol: when the next one is due */
	bool sending_present; /* our own present event is being emitted */
	bool destroying; /* in handle_destroy */
	bool pacer_run_pending; /* asked for something: run at the idle */
	struct wl_event_source *redraw_idle; /* a whole redraw, once idle */
	struct wl_event_source *trim_timer; /* free extra buffers when idle */
	int buffers_max; /* the most output buffers at once */
	/* wlroots' swapchain (the fallback commit path): buffer age */
	pixman_region32_t damage_history[DAMAGE_HISTORY];
	int damage_idx;
	/* every commit since the damage history began went through the
	 * swapchain (otherwise buffer ages say nothing about our frames) */
	bool swapchain_history;

	struct {
		uint64_t frames, replaced; /* dropped: vt_pacer_missed */
		uint64_t scanout; /* frames presented by direct scan-out */
		/* frames presented from output dma-bufs (output_dmabuf.c) */
		uint64_t dmabuf;
		uint64_t main_ns_total;
		uint64_t *main_ns; /* per frame, for percentiles */
		size_t main_ns_len, main_ns_cap;
	} stats;

	struct wl_listener frame;
	struct wl_listener present;
	struct wl_listener destroy;
	struct wl_listener mode;
	struct wl_listener commit;
	struct wl_listener needs_frame;
};

struct wlr_box output_box(struct vt_output *output);
void output_map_region(struct vt_output *output,
		const pixman_region32_t *layout, pixman_region32_t *out);
/* The engine's output of the output's size for the engine in use,
 * damaging all of it when that changes (output_buffers.c). */
void output_update_target(struct vt_output *output);
/* The buffer's memory as the engine's destination, made again for the
 * engine in use (output_buffers.c). */
void output_buffer_attach_engine(struct output_buffer *buffer);
/* The output's buffers are host memory from now on (why: for the log);
 * those on the device go once free. */
void output_refuse_dmabufs(struct vt_output *output, const char *why);
void output_update_predictable(struct vt_output *output, uint64_t now);
void output_request(struct vt_output *output, uint32_t wants);
void output_wait_frame(struct vt_output *output, struct output_frame *frame);
void output_wait_renderer(struct vt_output *output);
void output_drop_buffers(struct vt_output *output, bool all);
int output_handle_trim_timer(void *data);
struct output_buffer *output_acquire_buffer(struct vt_output *output);
void output_damage_whole(struct vt_output *output);
void output_frame_destroy(struct output_frame *frame);
/* The outputs' listeners of the server's signals (vt_outputs_init):
 * events.update (output_buffers.c), run_pacers (output_buffers.c),
 * new_surface (output_frame.c: frames forget a destroyed surface),
 * engine_completed (output_frame.c) */
void output_handle_update(struct wl_listener *listener, void *data);
void output_handle_run_pacers(struct wl_listener *listener, void *data);
void output_handle_engine_completed(struct wl_listener *listener, void *data);
bool output_read(struct vt_output *output, const pixman_region32_t *region,
		void *data, int32_t stride);
int output_handle_slow_timer(void *data);
/* Direct scan-out (scanout.c): the client buffer this frame may show as
 * it is, locked for the caller, or NULL (compose); and a copy of region
 * (NULL: all) of such a buffer's pixels into data (stride bytes a row). */
struct wlr_buffer *output_scanout_buffer(struct vt_output *output);
bool output_scanout_read(struct wlr_buffer *buffer,
		const pixman_region32_t *region, void *data, int32_t stride);
extern const struct vt_pacer_impl output_pacer_impl;
void output_handle_needs_frame(struct wl_listener *listener, void *data);
int output_handle_timer(int fd, uint32_t mask, void *data);
void output_handle_frame(struct wl_listener *listener, void *data);
void output_handle_present(struct wl_listener *listener, void *data);

#endif
