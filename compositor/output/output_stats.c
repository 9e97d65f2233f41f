/*
 * Outputs' statistics and screenshots.
 */
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
#include "output/output.h"
#include "pacing/pacer.h"
#include "server.h"

#include "output/output_internal.h"

/* ---- statistics and screenshots ----------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void output_print_stats(struct vt_output *output, FILE *f) {
	double mean = output->stats.frames ?
			output->stats.main_ns_total / 1e6 / output->stats.frames :
			0;
	double p50 = 0, p95 = 0;
	size_t n = output->stats.main_ns_len;
	if (n > 0) {
		qsort(output->stats.main_ns, n, sizeof(uint64_t), cmp_u64);
		p50 = output->stats.main_ns[n / 2] / 1e6;
		p95 = output->stats.main_ns[(n * 95) / 100] / 1e6;
	}
	fprintf(f,
			"%s: %dx%d@%.2fHz frames=%" PRIu64 " dropped=%" PRIu64
			" replaced=%" PRIu64 " in_flight_max=%d"
			" cpu_ms_per_frame mean=%.3f p50=%.3f p95=%.3f buffers=%d"
			" buffers_max=%d scanout=%" PRIu64 " dmabuf=%" PRIu64 "\n",
			output->wlr_output->name, output->wlr_output->width,
			output->wlr_output->height, 1e9 / output->period_ns,
			output->stats.frames, vt_pacer_missed(output->pacer),
			output->stats.replaced, vt_pacer_max_in_flight(output->pacer), mean,
			p50, p95, wl_list_length(&output->buffers), output->buffers_max,
			output->stats.scanout, output->stats.dmabuf);
}

void vt_outputs_print_stats(struct vt_server *server, FILE *f,
		const char *indent) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		fputs(indent, f);
		output_print_stats(output, f);
	}
}

void vt_outputs_write_screenshots(struct vt_server *server, const char *dir) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (output->dest == NULL) {
			continue;
		}
		int32_t w = vr_engine_output_width(output->dest);
		int32_t h = vr_engine_output_height(output->dest);
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s.png", dir,
				output->wlr_output->name);
		void *pixels = malloc((size_t)w * h * 4);
		bool ok = pixels != NULL;
		if (ok && !output_read(output, NULL, pixels, w * 4)) {
			free(pixels);
			continue; /* nothing drawn yet */
		}
		if (ok) {
			ok = vr_png_write(path, pixels, w, h, w * 4, true);
		}
		free(pixels);
		if (ok) {
			printf("wrote %s\n", path);
		} else {
			wlr_log(WLR_ERROR, "cannot write %s", path);
		}
	}
}

bool vt_outputs_settled(struct vt_server *server) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (!vt_output_enabled(output)) {
			continue;
		}
		/* An output that presented an older generation still shows
		 * the current tree when the changes since damaged nothing on
		 * it: no pending damage, no frame not yet presented. */
		if (pixman_region32_not_empty(&output->pending.damage) ||
				!wl_list_empty(&output->frames)) {
			return false;
		}
	}
	return true;
}

static void log_surface_iter(struct vr_node *node, void *data) {
	struct vt_output *output = data;
	struct vt_surface *surface = vr_node_user_data(node);
	if (surface == NULL) {
		return;
	}
	wlr_log(WLR_INFO,
			"%s   surface %p: unsampled %d, %u content "
			"commits, %d frame callbacks waiting, copying %d",
			output->wlr_output->name, (void *)surface, surface->unsampled,
			surface->content_commits,
			wl_list_length(&surface->wlr_surface->current.frame_callback_list),
			surface->copy != NULL);
}

void vt_outputs_log_state(struct vt_server *server) {
	wlr_log(WLR_INFO,
			"state: tree generation %" PRIu64 ", update %s, "
			"%d surface copies, frames %s",
			vr_tree_generation(server->tree),
			server->update_idle != NULL ? "pending" : "done",
			server->surface_copies, server->hold_frames ? "held" : "not held");
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		const pixman_box32_t *e =
				pixman_region32_extents(&output->pending.damage);
		wlr_log(WLR_INFO,
				"%s: %s, pending damage (%d,%d)-(%d,%d), "
				"%d frames, commit_seq %u, frame_pending %d, pacer "
				"rendering %d ready %d committed %d queued %d",
				output->wlr_output->name,
				vt_output_enabled(output) ? "enabled" : "disabled", e->x1,
				e->y1, e->x2, e->y2, wl_list_length(&output->frames),
				output->wlr_output->commit_seq,
				output->wlr_output->frame_pending,
				vt_pacer_rendering(output->pacer),
				vt_pacer_ready(output->pacer),
				vt_pacer_committed(output->pacer),
				vt_pacer_queued(output->pacer));
		struct output_frame *frame;
		wl_list_for_each(frame, &output->frames, link) {
			wlr_log(WLR_INFO,
					"%s   frame %" PRIu64 ": render_id %" PRIu64
					" ready %d finished %d committed %d (seq %u) failed %d, "
					"%d feedbacks",
					output->wlr_output->name, frame->record.seq,
					frame->render_id, frame->ready, frame->finished,
					frame->committed, frame->commit_seq, frame->failed,
					wl_list_length(&frame->presentation_feedbacks));
		}
		struct wlr_box box = output_box(output);
		struct vr_box area = { box.x, box.y, box.width, box.height };
		vr_tree_for_each_drawn(server->tree, &area, log_surface_iter, output);
	}
}
