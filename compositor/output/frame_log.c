/*
 * The per-frame timing log: one CSV row per output frame, written when the
 * frame's presentation is known. Every benchmark reads its figures from the
 * same columns (see vitrail(1), FRAME LOG).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "output/frame_log.h"

struct vt_frame_log {
	FILE *f;
};

struct vt_frame_log *vt_frame_log_open(const char *path) {
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		return NULL;
	}
	struct vt_frame_log *log = calloc(1, sizeof(*log));
	if (log == NULL) {
		fclose(f);
		return NULL;
	}
	log->f = f;
	fprintf(f,
			"output,frame,path,generation,target_vblank_ns,presented_ns,"
			"render_start_ns,render_end_ns,prepare_us,execute_us,commit_us,"
			"gpu_us,readback_us,copy_us,draws,uploads,dropped,nodes_updated,"
			"lists_recorded,main_thread_us,cpu_copies,in_flight,"
			"scene_samples,input_ns,scroll_samples,mode,chunks,cost,"
			"reused_nodes,reused_prims,moved_px,drawn_px\n");
	return log;
}

void vt_frame_log_close(struct vt_frame_log *log) {
	if (log == NULL) {
		return;
	}
	fclose(log->f);
	free(log);
}

void vt_frame_log_write(struct vt_frame_log *log,
		const struct vt_frame_record *frame) {
	if (log == NULL) {
		return;
	}
	const struct vr_frame_timing *t = &frame->timing;
	fprintf(log->f,
			"%s,%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%u,%u,%d,"
			"%u,%u,%.1f,%u,%u,%s,%" PRIu64 ",%s,%s,%u,%u,%u,%u,%" PRIu64
			",%" PRIu64 "\n",
			frame->output, frame->seq, frame->path, frame->generation,
			frame->display_ns, frame->presented_ns, frame->render_start_ns,
			frame->render_end_ns, t->prepare_ns / 1e3, t->execute_ns / 1e3,
			t->commit_ns / 1e3, t->gpu_ns / 1e3, t->readback_ns / 1e3,
			frame->copy_ns / 1e3, t->draws, t->uploads, frame->dropped ? 1 : 0,
			frame->nodes_updated, frame->lists_recorded,
			frame->main_thread_ns / 1e3, frame->cpu_copies, frame->in_flight,
			frame->scene_samples != NULL ? frame->scene_samples : "",
			frame->input_ns,
			frame->scroll_samples != NULL ? frame->scroll_samples : "",
			vr_frame_mode_name(t->mode), t->chunks, t->cost, t->reused_nodes,
			t->reused_prims, frame->moved_px, frame->drawn_px);
	fflush(log->f);
}
