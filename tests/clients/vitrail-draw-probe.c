/*
 * vitrail-draw-probe: the drawing app of the Presto paper (WWW'17, section
 * 6.1), for measuring input-to-display latency.
 *
 * One xdg_toplevel with wl_shm buffers: on a white background, a 115x115
 * square centred at the latest pointer position and a trail of dots at
 * the positions of the last --trail frames. Nothing else ever changes, so
 * a frame's damage is the square's old and new box plus the dot added and
 * the dot that fell off the trail; only those boxes are repainted (in the
 * buffer being reused, also those of the frames it missed) and only they
 * are sent as wl_surface.damage_buffer.
 *
 * The probe draws only at wl_surface.frame callbacks, with the latest
 * pointer position: at a callback, when a pointer event (wl_pointer.enter
 * or motion) came since the last frame drawn, it draws, spins --render-ms
 * of busy work (its render cost), and commits the frame with its damage, a
 * new frame callback and a wp_presentation feedback. When no input came it
 * draws nothing and asks for no callback; the next pointer event asks for
 * one (a commit with only a frame request). The first frame, at the first
 * configure, is the background alone.
 *
 * Pointer events are numbered from 1 in the order received (enter and
 * motion events, the ones that carry a position), each stamped with
 * CLOCK_MONOTONIC when the probe dispatched it. The compositor's
 * presentation clock must be CLOCK_MONOTONIC (checked), so the driver's
 * send times, these receive times and the presentation times share one
 * clock.
 *
 * Options:
 *   --path P        vitrail_frame_timing_v1 set_path: vsync, low-latency or
 *                   pre-render, with the surface's first commit. The
 *                   manager is bound at version min(2, advertised); a
 *                   compositor that does not offer the path answers with a
 *                   protocol error (vitrail's version 1: unsupported_path
 *                   for low-latency) and the probe exits 1. Without
 *                   --path (and --tearing) the probe uses no frame timing.
 *   --tearing       allow tearing: vitrail_surface_timing_v1.set_tearing(1)
 *                   (needs version 2: exits 1 otherwise) and, when the
 *                   compositor offers wp_tearing_control_v1, the hint
 *                   async
 *   --render-ms X   busy work (spinning the CPU) of X ms before each commit
 *   --trail N       dots in the trail (default 32)
 *   --csv FILE      one row per frame, written when the probe exits:
 *                   seq,callback_ns,commit_ns,x,y,newest_recv_ns,
 *                   oldest_recv_ns,presented_ns,discarded,refresh_ns,event,
 *                   ft_presented_ns,ft_discarded
 *                   callback_ns: when the frame callback came (0 for the
 *                   first frame); x,y: the pointer position drawn
 *                   (surface-local, -1,-1 before any); newest_recv_ns and
 *                   oldest_recv_ns: when the newest and the oldest pointer
 *                   event drawn for the first time were received (0: none);
 *                   presented_ns: 0 unless presented; discarded: 1 when the
 *                   feedback said discarded (presented_ns and discarded
 *                   both 0: no feedback before the probe exited);
 *                   refresh_ns: the feedback's refresh; event: the number
 *                   of the newest pointer event drawn (0: none);
 *                   ft_presented_ns and ft_discarded: what
 *                   vitrail_commit_feedback_v1 (asked for every frame when
 *                   the probe has a vitrail_surface_timing_v1: --path or
 *                   --tearing) said: presented at, or discarded with reason
 *                   r (ft_discarded r + 1: 1 replaced, 2 surface_destroyed,
 *                   3 not_shown); both 0 without an answer. Unlike
 *                   wp_presentation in vitrail, it follows a commit into a
 *                   later frame when the compositor replaced the frame that
 *                   first drew it.
 *   --frames N      exit after N frames were presented or discarded
 *                   (default 0: until SIGTERM, SIGINT or the timeout)
 *   --timeout SEC   give up after SEC seconds (default 120; 0: never):
 *                   exit status 1
 *   --app-id ID     xdg_toplevel app_id (default "vitrail-draw-probe")
 *   --size WxH      window size when the compositor leaves it to us
 *                   (default 640x480)
 *   --ready-fd FD   write "ready\n" to FD once the first frame was
 *                   presented (the window is on screen), then close it
 *
 * On SIGTERM or SIGINT it stops drawing, waits up to 500 ms for the
 * feedback of the frames in flight, writes the CSV and exits 0. On exit it
 * prints one line to stdout:
 *   draw-probe: frames=<n> presented=<n> discarded=<n> events=<n>
 * (frames: drawn and committed, the first included; events: pointer events
 * received). Exit status 1 on a protocol or connection error, a missing
 * global, a presentation clock other than CLOCK_MONOTONIC or the timeout
 * (the CSV is still written).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "presentation-time-client-protocol.h"
#include "probe-client.h"
#include "tearing-control-v1-client-protocol.h"
#include "vitrail-frame-timing-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define SQUARE 115
#define DOT 5
#define TRAIL_MAX 1024
/* Frames of damage kept for repainting a reused buffer; an older buffer
 * is repainted whole. */
#define HISTORY 16
/* Boxes of one frame's damage: old square, new square, new dot, old dot. */
#define FRAME_BOXES 4
#define DRAIN_MS 500

#define COLOUR_BACKGROUND 0xffffffffu
#define COLOUR_SQUARE 0xff2060c0u
#define COLOUR_DOT 0xff303030u

struct box {
	int32_t x, y, w, h; // w or h 0: empty
};

struct point {
	int32_t x, y;
};

/* One committed frame. */
struct frame_record {
	uint64_t seq;
	uint64_t callback_ns, commit_ns;
	double x, y; // -1: no pointer position yet
	uint64_t newest_recv_ns, oldest_recv_ns;
	uint64_t event; // newest pointer event drawn, 0: none
	uint64_t presented_ns, refresh_ns;
	bool discarded;
	bool done;
	uint64_t ft_presented_ns; // vitrail_commit_feedback_v1
	int ft_discarded; // reason + 1, 0: not discarded
};

struct pending_feedback {
	struct probe *probe;
	struct wp_presentation_feedback *feedback;
	size_t record; // index into probe::records
	struct wl_list link; // probe::feedbacks
};

/* A vitrail_commit_feedback_v1 awaiting its answer. */
struct pending_commit_feedback {
	struct probe *probe;
	struct vitrail_commit_feedback_v1 *feedback;
	size_t record;
	struct wl_list link; // probe::commit_feedbacks
};

enum path_choice {
	PATH_NONE = -1,
	PATH_VSYNC = VITRAIL_SURFACE_TIMING_V1_PATH_VSYNC,
	PATH_PRE_RENDER = VITRAIL_SURFACE_TIMING_V1_PATH_PRE_RENDER,
	PATH_LOW_LATENCY = VITRAIL_SURFACE_TIMING_V1_PATH_LOW_LATENCY,
};

struct probe {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct wl_seat *seat;
	struct wl_pointer *pointer;
	struct xdg_wm_base *wm_base;
	struct wp_presentation *presentation;
	struct vitrail_frame_timing_manager_v1 *timing_manager;
	struct vitrail_surface_timing_v1 *timing;
	struct wp_tearing_control_manager_v1 *tearing_manager;
	struct wp_tearing_control_v1 *tearing;
	uint32_t clock_id;
	bool clock_known;

	struct pc_toplevel window;
	struct wl_callback *frame_callback;
	struct pc_pool pool;
	int32_t width, height; // --size: the window's until a configure
	bool full_redraw; // the size changed: repaint and damage everything

	/* what is drawn: the trail (a ring of trail_len of the last
	 * trail_max frames' positions) and the square */
	struct point trail[TRAIL_MAX];
	int trail_len, trail_next;
	bool have_square;
	struct point square;
	/* damage of the last HISTORY frames, by seq % HISTORY */
	struct box history[HISTORY][FRAME_BOXES];
	bool history_full[HISTORY];

	/* pointer events */
	uint64_t events; // received, numbered from 1
	double pointer_x, pointer_y; // the latest position
	uint64_t pointer_recv_ns; // when the latest came
	uint64_t first_new_recv_ns; // the oldest not drawn yet, 0: none
	uint64_t drawn_event; // the newest drawn

	enum path_choice path;
	bool tear;
	int trail_max;
	const char *app_id;
	const char *csv_path;
	long max_frames;
	double render_ms;
	double timeout_s;
	int ready_fd;

	struct frame_record *records;
	size_t records_len, records_cap;
	struct wl_list feedbacks; // pending_feedback::link
	struct wl_list commit_feedbacks; // pending_commit_feedback::link
	uint64_t next_seq;
	long finished; // feedbacks resolved
	long presented, discarded;
	long no_buffer; // frame callbacks with every buffer busy

	bool running;
	bool stopping; // a signal came: draining feedbacks
	int exit_status;
};

static void fail(struct probe *probe, const char *message) {
	fprintf(stderr, "vitrail-draw-probe: %s\n", message);
	probe->exit_status = EXIT_FAILURE;
	probe->running = false;
}

/* ---- drawing ------------------------------------------------------------ */

static struct box square_box(struct point p) {
	return (struct box){ p.x - SQUARE / 2, p.y - SQUARE / 2, SQUARE, SQUARE };
}

static struct box dot_box(struct point p) {
	return (struct box){ p.x - DOT / 2, p.y - DOT / 2, DOT, DOT };
}

/* a ∩ b; empty (w = 0) when they do not meet. */
static struct box box_intersect(struct box a, struct box b) {
	int32_t x0 = a.x > b.x ? a.x : b.x;
	int32_t y0 = a.y > b.y ? a.y : b.y;
	int32_t x1 = a.x + a.w < b.x + b.w ? a.x + a.w : b.x + b.w;
	int32_t y1 = a.y + a.h < b.y + b.h ? a.y + a.h : b.y + b.h;
	if (x1 <= x0 || y1 <= y0) {
		return (struct box){ 0 };
	}
	return (struct box){ x0, y0, x1 - x0, y1 - y0 };
}

static void fill(struct pc_buffer *buffer, struct box box, uint32_t colour) {
	for (int32_t y = box.y; y < box.y + box.h; y++) {
		uint32_t *row = buffer->data + (size_t)y * (size_t)buffer->width;
		for (int32_t x = box.x; x < box.x + box.w; x++) {
			row[x] = colour;
		}
	}
}

/* Repaint box (clipped to the buffer) from the probe's state: background,
 * trail, square. */
static void repaint(struct probe *probe, struct pc_buffer *buffer,
		struct box box) {
	struct box all = { 0, 0, buffer->width, buffer->height };
	box = box_intersect(box, all);
	if (box.w == 0) {
		return;
	}
	fill(buffer, box, COLOUR_BACKGROUND);
	for (int i = 0; i < probe->trail_len; i++) {
		int k = (probe->trail_next - 1 - i + probe->trail_max) %
				probe->trail_max;
		struct box dot = box_intersect(dot_box(probe->trail[k]), box);
		if (dot.w > 0) {
			fill(buffer, dot, COLOUR_DOT);
		}
	}
	if (probe->have_square) {
		struct box square = box_intersect(square_box(probe->square), box);
		if (square.w > 0) {
			fill(buffer, square, COLOUR_SQUARE);
		}
	}
}

/* Move the square and the trail to p; boxes gets the damage. */
static void move_to(struct probe *probe, struct point p,
		struct box boxes[FRAME_BOXES]) {
	for (int i = 0; i < FRAME_BOXES; i++) {
		boxes[i] = (struct box){ 0 };
	}
	if (probe->have_square) {
		boxes[0] = square_box(probe->square);
	}
	probe->square = p;
	probe->have_square = true;
	boxes[1] = square_box(p);
	if (probe->trail_len == probe->trail_max) {
		// the oldest dot falls off: its slot is the next one
		boxes[3] = dot_box(probe->trail[probe->trail_next]);
	} else {
		probe->trail_len++;
	}
	probe->trail[probe->trail_next] = p;
	probe->trail_next = (probe->trail_next + 1) % probe->trail_max;
	boxes[2] = dot_box(p);
}

/* Bring buffer up to frame seq, whose own damage is boxes (NULL: the
 * whole frame): repaint what changed since the frame it holds. */
static void bring_up_to_date(struct probe *probe, struct pc_buffer *buffer,
		uint64_t seq, const struct box *boxes) {
	struct box all = { 0, 0, buffer->width, buffer->height };
	int64_t held = buffer->content_seq;
	if (boxes == NULL || held < 0 || (int64_t)seq - held > HISTORY) {
		repaint(probe, buffer, all);
		return;
	}
	for (int64_t s = held + 1; s <= (int64_t)seq; s++) {
		int h = (int)(s % HISTORY);
		if (probe->history_full[h]) {
			repaint(probe, buffer, all);
			return;
		}
		for (int i = 0; i < FRAME_BOXES; i++) {
			if (probe->history[h][i].w > 0) {
				repaint(probe, buffer, probe->history[h][i]);
			}
		}
	}
}

/* ---- committing --------------------------------------------------------- */

static bool record_add(struct probe *probe, size_t *index) {
	if (probe->records_len == probe->records_cap) {
		size_t cap = probe->records_cap ? probe->records_cap * 2 : 512;
		struct frame_record *records =
				realloc(probe->records, cap * sizeof(*records));
		if (records == NULL) {
			return false;
		}
		probe->records = records;
		probe->records_cap = cap;
	}
	*index = probe->records_len++;
	probe->records[*index] = (struct frame_record){ 0 };
	return true;
}

static void signal_ready(struct probe *probe) {
	if (probe->ready_fd < 0) {
		return;
	}
	static const char line[] = "ready\n";
	if (write(probe->ready_fd, line, sizeof(line) - 1) < 0) {
		perror("vitrail-draw-probe: --ready-fd");
	}
	close(probe->ready_fd);
	probe->ready_fd = -1;
}

static void feedback_finish(struct pending_feedback *pending) {
	struct probe *probe = pending->probe;
	wp_presentation_feedback_destroy(pending->feedback);
	wl_list_remove(&pending->link);
	free(pending);
	probe->finished++;
	if (probe->max_frames > 0 && probe->finished >= probe->max_frames) {
		probe->running = false;
	}
	if (probe->stopping && wl_list_empty(&probe->feedbacks)) {
		probe->running = false;
	}
}

static void feedback_handle_sync_output(void *data,
		struct wp_presentation_feedback *feedback, struct wl_output *output) {
	// Which output showed the frame does not matter here.
}

static void feedback_handle_presented(void *data,
		struct wp_presentation_feedback *feedback, uint32_t tv_sec_hi,
		uint32_t tv_sec_lo, uint32_t tv_nsec, uint32_t refresh, uint32_t seq_hi,
		uint32_t seq_lo, uint32_t flags) {
	struct pending_feedback *pending = data;
	struct probe *probe = pending->probe;
	struct frame_record *record = &probe->records[pending->record];
	uint64_t sec = (uint64_t)tv_sec_hi << 32 | tv_sec_lo;
	record->presented_ns = sec * 1000000000u + tv_nsec;
	record->refresh_ns = refresh;
	record->done = true;
	probe->presented++;
	signal_ready(probe);
	feedback_finish(pending);
}

static void feedback_handle_discarded(void *data,
		struct wp_presentation_feedback *feedback) {
	struct pending_feedback *pending = data;
	struct frame_record *record = &pending->probe->records[pending->record];
	record->discarded = true;
	record->done = true;
	pending->probe->discarded++;
	feedback_finish(pending);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_handle_sync_output,
	.presented = feedback_handle_presented,
	.discarded = feedback_handle_discarded,
};

static void commit_feedback_finish(struct pending_commit_feedback *pending) {
	vitrail_commit_feedback_v1_destroy(pending->feedback);
	wl_list_remove(&pending->link);
	free(pending);
}

static void commit_feedback_handle_presented(void *data,
		struct vitrail_commit_feedback_v1 *feedback, uint32_t tv_sec_hi,
		uint32_t tv_sec_lo, uint32_t tv_nsec, uint32_t target_sec_hi,
		uint32_t target_sec_lo, uint32_t target_nsec) {
	struct pending_commit_feedback *pending = data;
	struct frame_record *record = &pending->probe->records[pending->record];
	uint64_t sec = (uint64_t)tv_sec_hi << 32 | tv_sec_lo;
	record->ft_presented_ns = sec * 1000000000u + tv_nsec;
	commit_feedback_finish(pending);
}

static void commit_feedback_handle_discarded(void *data,
		struct vitrail_commit_feedback_v1 *feedback, uint32_t reason) {
	struct pending_commit_feedback *pending = data;
	struct frame_record *record = &pending->probe->records[pending->record];
	record->ft_discarded = (int)reason + 1;
	commit_feedback_finish(pending);
}

static const struct vitrail_commit_feedback_v1_listener
		commit_feedback_listener = {
			.presented = commit_feedback_handle_presented,
			.discarded = commit_feedback_handle_discarded,
		};

static const struct wl_callback_listener frame_listener;

static void request_frame(struct probe *probe) {
	if (probe->frame_callback != NULL) {
		wl_callback_destroy(probe->frame_callback);
	}
	probe->frame_callback = wl_surface_frame(probe->window.surface);
	wl_callback_add_listener(probe->frame_callback, &frame_listener, probe);
}

/* A frame callback when none is pending: a commit that only asks for
 * one. */
static void arm_frame(struct probe *probe) {
	if (probe->frame_callback != NULL || !probe->window.configured ||
			probe->stopping) {
		return;
	}
	request_frame(probe);
	wl_surface_commit(probe->window.surface);
	wl_display_flush(probe->display);
}

/* Draw the frame for the latest pointer position (or the background
 * alone before any) and commit it. */
static void draw_frame(struct probe *probe, uint64_t callback_ns) {
	struct pc_buffer *buffer = pc_pool_next(&probe->pool, probe->shm,
			probe->window.width, probe->window.height);
	if (buffer == NULL) {
		// every buffer is still held: try again at the next frame
		probe->no_buffer++;
		arm_frame(probe);
		return;
	}
	size_t index;
	struct pending_feedback *pending = calloc(1, sizeof(*pending));
	if (pending == NULL || !record_add(probe, &index)) {
		free(pending);
		fail(probe, "out of memory");
		return;
	}
	uint64_t seq = probe->next_seq++;
	struct frame_record *record = &probe->records[index];
	record->seq = seq;
	record->callback_ns = callback_ns;
	record->x = record->y = -1;

	struct box boxes[FRAME_BOXES] = { 0 };
	bool full = probe->full_redraw || seq == 0;
	if (probe->drawn_event < probe->events) {
		struct point p = { (int32_t)floor(probe->pointer_x),
			(int32_t)floor(probe->pointer_y) };
		move_to(probe, p, boxes);
		record->x = probe->pointer_x;
		record->y = probe->pointer_y;
		record->event = probe->events;
		record->newest_recv_ns = probe->pointer_recv_ns;
		record->oldest_recv_ns = probe->first_new_recv_ns;
		probe->drawn_event = probe->events;
		probe->first_new_recv_ns = 0;
	} else if (probe->have_square) {
		record->x = probe->square.x;
		record->y = probe->square.y;
		record->event = probe->drawn_event;
	}
	int h = (int)(seq % HISTORY);
	probe->history_full[h] = full;
	memcpy(probe->history[h], boxes, sizeof(boxes));
	bring_up_to_date(probe, buffer, seq, full ? NULL : boxes);
	buffer->content_seq = (int64_t)seq;
	probe->full_redraw = false;
	pc_busy_work(probe->render_ms);

	wl_surface_attach(probe->window.surface, buffer->wl_buffer, 0, 0);
	if (full) {
		wl_surface_damage_buffer(probe->window.surface, 0, 0, buffer->width,
				buffer->height);
	} else {
		struct box all = { 0, 0, buffer->width, buffer->height };
		for (int i = 0; i < FRAME_BOXES; i++) {
			struct box b = box_intersect(boxes[i], all);
			if (b.w > 0) {
				wl_surface_damage_buffer(probe->window.surface, b.x, b.y, b.w,
						b.h);
			}
		}
	}
	request_frame(probe);
	pending->probe = probe;
	pending->record = index;
	wl_list_insert(&probe->feedbacks, &pending->link);
	pending->feedback = wp_presentation_feedback(probe->presentation,
			probe->window.surface);
	wp_presentation_feedback_add_listener(pending->feedback, &feedback_listener,
			pending);
	struct pending_commit_feedback *commit_pending =
			probe->timing == NULL ? NULL : calloc(1, sizeof(*commit_pending));
	if (commit_pending != NULL) {
		commit_pending->probe = probe;
		commit_pending->record = index;
		commit_pending->feedback =
				vitrail_surface_timing_v1_feedback(probe->timing);
		vitrail_commit_feedback_v1_add_listener(commit_pending->feedback,
				&commit_feedback_listener, commit_pending);
		wl_list_insert(&probe->commit_feedbacks, &commit_pending->link);
	}
	record->commit_ns = pc_now_ns();
	wl_surface_commit(probe->window.surface);
	wl_display_flush(probe->display);
	buffer->busy = true;
}

static void frame_handle_done(void *data, struct wl_callback *callback,
		uint32_t time) {
	struct probe *probe = data;
	uint64_t callback_ns = pc_now_ns();
	wl_callback_destroy(callback);
	probe->frame_callback = NULL;
	if (!probe->running || probe->stopping) {
		return;
	}
	if (probe->drawn_event < probe->events || probe->full_redraw) {
		draw_frame(probe, callback_ns);
	}
	// otherwise idle: the next pointer event asks for a callback
}

static const struct wl_callback_listener frame_listener = {
	.done = frame_handle_done,
};

/* ---- pointer ------------------------------------------------------------ */

static void pointer_event(struct probe *probe, wl_fixed_t sx, wl_fixed_t sy) {
	uint64_t now = pc_now_ns();
	probe->events++;
	probe->pointer_x = wl_fixed_to_double(sx);
	probe->pointer_y = wl_fixed_to_double(sy);
	probe->pointer_recv_ns = now;
	if (probe->first_new_recv_ns == 0) {
		probe->first_new_recv_ns = now;
	}
	arm_frame(probe);
}

static void pointer_handle_enter(void *data, struct wl_pointer *pointer,
		uint32_t serial, struct wl_surface *surface, wl_fixed_t sx,
		wl_fixed_t sy) {
	struct probe *probe = data;
	if (surface == probe->window.surface) {
		pointer_event(probe, sx, sy);
	}
}

static void pointer_handle_leave(void *data, struct wl_pointer *pointer,
		uint32_t serial, struct wl_surface *surface) {
}

static void pointer_handle_motion(void *data, struct wl_pointer *pointer,
		uint32_t time, wl_fixed_t sx, wl_fixed_t sy) {
	pointer_event(data, sx, sy);
}

static void pointer_handle_button(void *data, struct wl_pointer *pointer,
		uint32_t serial, uint32_t time, uint32_t button, uint32_t state) {
}

static void pointer_handle_axis(void *data, struct wl_pointer *pointer,
		uint32_t time, uint32_t axis, wl_fixed_t value) {
}

static void pointer_handle_frame(void *data, struct wl_pointer *pointer) {
}

static void pointer_handle_axis_source(void *data, struct wl_pointer *pointer,
		uint32_t source) {
}

static void pointer_handle_axis_stop(void *data, struct wl_pointer *pointer,
		uint32_t time, uint32_t axis) {
}

static void pointer_handle_axis_discrete(void *data, struct wl_pointer *pointer,
		uint32_t axis, int32_t discrete) {
}

static const struct wl_pointer_listener pointer_listener = {
	.enter = pointer_handle_enter,
	.leave = pointer_handle_leave,
	.motion = pointer_handle_motion,
	.button = pointer_handle_button,
	.axis = pointer_handle_axis,
	.frame = pointer_handle_frame,
	.axis_source = pointer_handle_axis_source,
	.axis_stop = pointer_handle_axis_stop,
	.axis_discrete = pointer_handle_axis_discrete,
};

static void seat_handle_capabilities(void *data, struct wl_seat *seat,
		uint32_t caps) {
	struct probe *probe = data;
	if ((caps & WL_SEAT_CAPABILITY_POINTER) && probe->pointer == NULL) {
		probe->pointer = wl_seat_get_pointer(seat);
		wl_pointer_add_listener(probe->pointer, &pointer_listener, probe);
	} else if (!(caps & WL_SEAT_CAPABILITY_POINTER) && probe->pointer != NULL) {
		wl_pointer_release(probe->pointer);
		probe->pointer = NULL;
	}
}

static void seat_handle_name(void *data, struct wl_seat *seat,
		const char *name) {
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = seat_handle_capabilities,
	.name = seat_handle_name,
};

/* ---- xdg-shell ---------------------------------------------------------- */

static void window_configured(void *data, bool first, bool resized) {
	struct probe *probe = data;
	if (resized) {
		probe->full_redraw = true;
	}
	if (first) {
		// The first frame; every later one starts at a frame callback.
		draw_frame(probe, 0);
	} else if (probe->full_redraw) {
		arm_frame(probe);
	}
}

/* ---- globals ------------------------------------------------------------ */

static void presentation_handle_clock_id(void *data,
		struct wp_presentation *presentation, uint32_t clk_id) {
	struct probe *probe = data;
	probe->clock_id = clk_id;
	probe->clock_known = true;
}

static const struct wp_presentation_listener presentation_listener = {
	.clock_id = presentation_handle_clock_id,
};

static uint32_t min_u32(uint32_t a, uint32_t b) {
	return a < b ? a : b;
}

static void registry_handle_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct probe *probe = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		probe->compositor = wl_registry_bind(registry, name,
				&wl_compositor_interface, min_u32(version, 4));
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		probe->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, wl_seat_interface.name) == 0 &&
			probe->seat == NULL) {
		probe->seat = wl_registry_bind(registry, name, &wl_seat_interface,
				min_u32(version, 5));
		wl_seat_add_listener(probe->seat, &seat_listener, probe);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		probe->wm_base =
				wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		pc_wm_base_listen(probe->wm_base);
	} else if (strcmp(interface, wp_presentation_interface.name) == 0) {
		probe->presentation =
				wl_registry_bind(registry, name, &wp_presentation_interface, 1);
		wp_presentation_add_listener(probe->presentation,
				&presentation_listener, probe);
	} else if (strcmp(interface,
					   vitrail_frame_timing_manager_v1_interface.name) == 0) {
		probe->timing_manager = wl_registry_bind(registry, name,
				&vitrail_frame_timing_manager_v1_interface,
				min_u32(version, 2));
	} else if (strcmp(interface,
					   wp_tearing_control_manager_v1_interface.name) == 0) {
		probe->tearing_manager = wl_registry_bind(registry, name,
				&wp_tearing_control_manager_v1_interface, 1);
	}
}

static void registry_handle_global_remove(void *data,
		struct wl_registry *registry, uint32_t name) {
	// Nothing we bind goes away while we run.
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_handle_global,
	.global_remove = registry_handle_global_remove,
};

/* ---- setup, main loop, teardown ----------------------------------------- */

/* The path and tearing requests, before the surface's first commit. */
static bool setup_timing(struct probe *probe) {
	if (probe->path == PATH_NONE && !probe->tear) {
		return true;
	}
	if (probe->timing_manager == NULL) {
		fprintf(stderr,
				"vitrail-draw-probe: the compositor lacks "
				"vitrail_frame_timing_manager_v1 (--path, --tearing)\n");
		return false;
	}
	probe->timing = vitrail_frame_timing_manager_v1_get_surface_timing(
			probe->timing_manager, probe->window.surface);
	if (probe->path != PATH_NONE) {
		vitrail_surface_timing_v1_set_path(probe->timing,
				(uint32_t)probe->path);
	}
	if (probe->tear) {
		if (vitrail_surface_timing_v1_get_version(probe->timing) <
				VITRAIL_SURFACE_TIMING_V1_SET_TEARING_SINCE_VERSION) {
			fprintf(stderr,
					"vitrail-draw-probe: --tearing needs "
					"vitrail_frame_timing_manager_v1 version 2; the compositor "
					"offers %u\n",
					vitrail_surface_timing_v1_get_version(probe->timing));
			return false;
		}
		vitrail_surface_timing_v1_set_tearing(probe->timing, 1);
		if (probe->tearing_manager != NULL) {
			probe->tearing = wp_tearing_control_manager_v1_get_tearing_control(
					probe->tearing_manager, probe->window.surface);
			wp_tearing_control_v1_set_presentation_hint(probe->tearing,
					WP_TEARING_CONTROL_V1_PRESENTATION_HINT_ASYNC);
		}
	}
	return true;
}

static bool probe_init(struct probe *probe) {
	probe->display = wl_display_connect(NULL);
	if (probe->display == NULL) {
		fprintf(stderr,
				"vitrail-draw-probe: cannot connect to the "
				"Wayland display\n");
		return false;
	}
	probe->registry = wl_display_get_registry(probe->display);
	wl_registry_add_listener(probe->registry, &registry_listener, probe);
	// Two round trips: the globals, then clock_id and the seat's caps.
	if (wl_display_roundtrip(probe->display) < 0 ||
			wl_display_roundtrip(probe->display) < 0) {
		fprintf(stderr, "vitrail-draw-probe: roundtrip failed\n");
		return false;
	}
	if (probe->compositor == NULL || probe->shm == NULL ||
			probe->seat == NULL || probe->wm_base == NULL ||
			probe->presentation == NULL) {
		fprintf(stderr,
				"vitrail-draw-probe: the compositor lacks "
				"wl_compositor, wl_shm, wl_seat, xdg_wm_base or "
				"wp_presentation\n");
		return false;
	}
	if (!probe->clock_known || probe->clock_id != CLOCK_MONOTONIC) {
		fprintf(stderr,
				"vitrail-draw-probe: the presentation clock is "
				"%s%u, not CLOCK_MONOTONIC (%d)\n",
				probe->clock_known ? "" : "unknown, ", probe->clock_id,
				CLOCK_MONOTONIC);
		return false;
	}

	if (!pc_toplevel_init(&probe->window, probe->compositor, probe->wm_base,
				probe->app_id, "vitrail draw probe", probe->width,
				probe->height, &probe->running, window_configured, probe)) {
		fprintf(stderr, "vitrail-draw-probe: out of memory\n");
		return false;
	}
	if (!setup_timing(probe)) {
		return false;
	}
	wl_surface_commit(probe->window.surface);
	return true;
}

static void probe_finish(struct probe *probe) {
	struct pending_feedback *pending, *tmp;
	wl_list_for_each_safe(pending, tmp, &probe->feedbacks, link) {
		wp_presentation_feedback_destroy(pending->feedback);
		wl_list_remove(&pending->link);
		free(pending);
	}
	struct pending_commit_feedback *commit_pending, *commit_tmp;
	wl_list_for_each_safe(commit_pending, commit_tmp, &probe->commit_feedbacks,
			link) {
		commit_feedback_finish(commit_pending);
	}
	if (probe->frame_callback != NULL) {
		wl_callback_destroy(probe->frame_callback);
	}
	pc_pool_finish(&probe->pool);
	if (probe->tearing != NULL) {
		wp_tearing_control_v1_destroy(probe->tearing);
	}
	if (probe->timing != NULL) {
		vitrail_surface_timing_v1_destroy(probe->timing);
	}
	pc_toplevel_finish(&probe->window);
	if (probe->pointer != NULL) {
		wl_pointer_release(probe->pointer);
	}
	if (probe->seat != NULL) {
		wl_seat_release(probe->seat);
	}
	if (probe->tearing_manager != NULL) {
		wp_tearing_control_manager_v1_destroy(probe->tearing_manager);
	}
	if (probe->timing_manager != NULL) {
		vitrail_frame_timing_manager_v1_destroy(probe->timing_manager);
	}
	if (probe->presentation != NULL) {
		wp_presentation_destroy(probe->presentation);
	}
	if (probe->wm_base != NULL) {
		xdg_wm_base_destroy(probe->wm_base);
	}
	if (probe->shm != NULL) {
		wl_shm_destroy(probe->shm);
	}
	if (probe->compositor != NULL) {
		wl_compositor_destroy(probe->compositor);
	}
	if (probe->registry != NULL) {
		wl_registry_destroy(probe->registry);
	}
	if (probe->display != NULL) {
		wl_display_flush(probe->display);
		wl_display_disconnect(probe->display);
	}
	free(probe->records);
}

/* A signal: stop drawing, wait a little for the frames in flight. */
static void probe_stop(struct probe *probe, uint64_t *deadline) {
	if (probe->stopping) {
		return;
	}
	probe->stopping = true;
	if (wl_list_empty(&probe->feedbacks)) {
		probe->running = false;
		return;
	}
	uint64_t drain = pc_now_ns() + (uint64_t)DRAIN_MS * 1000000u;
	if (*deadline == 0 || drain < *deadline) {
		*deadline = drain;
	}
}

static void probe_run(struct probe *probe, int signal_fd) {
	uint64_t deadline = probe->timeout_s > 0 ?
			pc_now_ns() + (uint64_t)(probe->timeout_s * 1e9) :
			0;
	while (probe->running) {
		int timeout_ms = -1;
		if (deadline != 0) {
			uint64_t now = pc_now_ns();
			if (now >= deadline) {
				if (!probe->stopping) {
					fail(probe, "timed out (--timeout)");
				}
				return;
			}
			timeout_ms = (int)((deadline - now) / 1000000u) + 1;
		}
		bool signalled = false;
		if (!pc_dispatch(probe->display, signal_fd, timeout_ms, &probe->running,
					&signalled, "vitrail-draw-probe")) {
			probe->exit_status = EXIT_FAILURE;
			return;
		}
		if (signalled) {
			probe_stop(probe, &deadline);
		}
	}
}

/* Written to FILE.tmp, then renamed: a reader never sees half a file. */
static bool write_csv(struct probe *probe) {
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", probe->csv_path) >=
			(int)sizeof(tmp)) {
		fprintf(stderr, "vitrail-draw-probe: --csv path too long\n");
		return false;
	}
	FILE *f = fopen(tmp, "w");
	if (f == NULL) {
		fprintf(stderr, "vitrail-draw-probe: cannot write %s: %s\n", tmp,
				strerror(errno));
		return false;
	}
	fprintf(f,
			"seq,callback_ns,commit_ns,x,y,newest_recv_ns,"
			"oldest_recv_ns,presented_ns,discarded,refresh_ns,event,"
			"ft_presented_ns,ft_discarded\n");
	for (size_t i = 0; i < probe->records_len; i++) {
		const struct frame_record *r = &probe->records[i];
		fprintf(f,
				"%llu,%llu,%llu,%.10g,%.10g,%llu,%llu,%llu,%d,%llu,%llu,"
				"%llu,%d\n",
				(unsigned long long)r->seq, (unsigned long long)r->callback_ns,
				(unsigned long long)r->commit_ns, r->x, r->y,
				(unsigned long long)r->newest_recv_ns,
				(unsigned long long)r->oldest_recv_ns,
				(unsigned long long)r->presented_ns, r->discarded ? 1 : 0,
				(unsigned long long)r->refresh_ns, (unsigned long long)r->event,
				(unsigned long long)r->ft_presented_ns, r->ft_discarded);
	}
	bool ok = fclose(f) == 0 && rename(tmp, probe->csv_path) == 0;
	if (!ok) {
		fprintf(stderr, "vitrail-draw-probe: cannot write %s\n",
				probe->csv_path);
	}
	return ok;
}

/* ---- options ------------------------------------------------------------ */

static bool parse_path(const char *s, enum path_choice *path) {
	if (strcmp(s, "vsync") == 0) {
		*path = PATH_VSYNC;
	} else if (strcmp(s, "low-latency") == 0) {
		*path = PATH_LOW_LATENCY;
	} else if (strcmp(s, "pre-render") == 0) {
		*path = PATH_PRE_RENDER;
	} else {
		return false;
	}
	return true;
}

static void usage(FILE *f) {
	fprintf(f,
			"Usage: vitrail-draw-probe [--path vsync|low-latency|"
			"pre-render] [--tearing] [--render-ms X] [--trail N] [--csv FILE] "
			"[--frames N] [--timeout SEC] [--app-id ID] [--size WxH] "
			"[--ready-fd FD]\n");
}

int main(int argc, char *argv[]) {
	struct probe probe = {
		.app_id = "vitrail-draw-probe",
		.width = 640,
		.height = 480,
		.path = PATH_NONE,
		.trail_max = 32,
		.timeout_s = 120,
		.ready_fd = -1,
		.running = true,
		.exit_status = EXIT_SUCCESS,
	};
	static const struct option long_options[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "tearing", no_argument, NULL, 'T' },
		{ "render-ms", required_argument, NULL, 'r' },
		{ "trail", required_argument, NULL, 'l' },
		{ "csv", required_argument, NULL, 'c' },
		{ "frames", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "app-id", required_argument, NULL, 'a' },
		{ "size", required_argument, NULL, 's' },
		{ "ready-fd", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	long value;
	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		bool ok = true;
		switch (opt) {
		case 'p': ok = parse_path(optarg, &probe.path); break;
		case 'T': probe.tear = true; break;
		case 'r': ok = pc_parse_double(optarg, 0, &probe.render_ms); break;
		case 'l':
			ok = pc_parse_long(optarg, 1, TRAIL_MAX, &value);
			probe.trail_max = (int)value;
			break;
		case 'c': probe.csv_path = optarg; break;
		case 'n':
			ok = pc_parse_long(optarg, 0, 100000000, &probe.max_frames);
			break;
		case 't': ok = pc_parse_double(optarg, 0, &probe.timeout_s); break;
		case 'a': probe.app_id = optarg; break;
		case 's':
			ok = pc_parse_size(optarg, &probe.width, &probe.height);
			break;
		case 'R':
			ok = pc_parse_long(optarg, 0, 65535, &value);
			probe.ready_fd = (int)value;
			break;
		case 'h': usage(stdout); return EXIT_SUCCESS;
		default: usage(stderr); return EXIT_FAILURE;
		}
		if (!ok) {
			fprintf(stderr, "vitrail-draw-probe: bad value '%s' for %s\n",
					optarg, argv[optind - 1]);
			usage(stderr);
			return EXIT_FAILURE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EXIT_FAILURE;
	}
	wl_list_init(&probe.feedbacks);
	wl_list_init(&probe.commit_feedbacks);

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
		perror("sigprocmask");
		return EXIT_FAILURE;
	}
	int signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (signal_fd < 0) {
		perror("signalfd");
		return EXIT_FAILURE;
	}

	if (probe_init(&probe)) {
		probe_run(&probe, signal_fd);
	} else {
		probe.exit_status = EXIT_FAILURE;
	}
	printf("draw-probe: frames=%zu presented=%ld discarded=%ld events=%llu\n",
			probe.records_len, probe.presented, probe.discarded,
			(unsigned long long)probe.events);
	fflush(stdout);
	if (probe.no_buffer > 0) {
		fprintf(stderr,
				"vitrail-draw-probe: %ld frame callbacks found every "
				"buffer busy\n",
				probe.no_buffer);
	}
	if (probe.csv_path != NULL && !write_csv(&probe)) {
		probe.exit_status = EXIT_FAILURE;
	}
	if (probe.ready_fd >= 0) {
		close(probe.ready_fd);
	}
	probe_finish(&probe);
	close(signal_fd);
	return probe.exit_status;
}
