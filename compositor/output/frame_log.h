/*
 * The frame log (frame_log.c, --frame-log): one CSV line per frame of
 * every output, once it was shown (or not).
 */
#ifndef VITRAIL_FRAME_LOG_H
#define VITRAIL_FRAME_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <vitrail/renderer.h>

struct vt_frame_log;

/* Room for the animation values sampled for one frame (frame log): about
 * 25 animations of two values (an entry is about 40 bytes); the entries
 * past it are left out. */
#define VT_SCENE_SAMPLES_LEN 1024
/* Room for one frame's scroll samples in the frame log. */
#define VT_SCROLL_SAMPLES_LEN 256

/* What the frame log records of a frame once it was shown (or not). */
struct vt_frame_record {
	const char *output;
	const char *path; /* the pacing policy */
	uint64_t seq; /* per-output frame number */
	uint64_t generation; /* render tree generation drawn */
	uint64_t display_ns; /* the vblank it was made for (D-Timestamp) */
	uint64_t presented_ns; /* 0: never shown */
	uint64_t render_start_ns; /* rendering started */
	uint64_t render_end_ns; /* the frame was ready to commit */
	uint64_t copy_ns; /* CPU copies of its pixels */
	uint64_t main_thread_ns; /* main-thread time spent on it */
	uint32_t cpu_copies; /* CPU copies of its pixels */
	uint32_t in_flight; /* frames tracked when it was planned, itself too */
	bool dropped; /* shown after its display time, or never */
	/* the oldest input event its surfaces' commits answer, first drawn
	 * by this frame: when vitrail received it (0: none) */
	uint64_t input_ns;
	struct vr_frame_timing timing;
	/* Scene protocol (scene.c): since the previous frame's tree update */
	uint32_t nodes_updated; /* absolute states recomputed */
	uint32_t lists_recorded; /* display lists recorded */
	const char *scene_samples; /* animations sampled */
	const char
			*scroll_samples; /* scroll regions' positions (scroll_region.c) */
	/* shift-and-expose: pixels of the buffer moved instead of redrawn,
	 * and pixels drawn (what the buffer lacked) */
	uint64_t moved_px, drawn_px;
};

struct vt_frame_log *vt_frame_log_open(const char *path);
void vt_frame_log_close(struct vt_frame_log *log);
void vt_frame_log_write(struct vt_frame_log *log,
		const struct vt_frame_record *frame);

#endif
