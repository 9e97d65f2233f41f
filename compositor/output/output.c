/*
 * Outputs: wlroots glue for the pacing module (pacing/pacer.h).
 *
 * Each output has a persistent render target (the renderer redraws only
 * damaged pixels of it), a small swapchain of output buffers from the
 * wlr_allocator, and a pacer that decides when to render a frame and for
 * which display time, and when to commit it. This file does what the
 * pacer asks:
 * - render: sample animations at the frame's display time, update the
 *   tree, submit the damage to the renderer, which copies the redrawn
 *   pixels (plus whatever the buffer missed since it was last written)
 *   into the output buffer on the GPU: the buffer's memory is imported
 *   into Vulkan, so the pixels are written once (no CPU copy);
 * - the renderer's completion fd tells when a frame is ready;
 * - commit: attach that very buffer to the wlr_output;
 * - present events (page flips, the parent compositor's presentation
 *   feedback, or on headless outputs vitrail's own vblank model) close a
 *   frame: wp_presentation feedback for the surfaces it showed, statistics,
 *   the frame log.
 * Frame callbacks go out at vblanks (the pacer says when).
 *
 * The clock of a headless output is vitrail's vblank model, ticked by a
 * timerfd with nanosecond deadlines (wlroots' headless timer has
 * millisecond resolution and drifts); other backends' frame and present
 * events drive and calibrate theirs.
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

#include "output/engine.h"
#include "output/output.h"
#include "pacing/pacer.h"
#include "server.h"
#include "util.h"

#include "output/output_internal.h"

static void arrange_outputs(struct vt_server *server);

struct vt_output *vt_output_next(struct vt_server *server,
		struct vt_output *output) {
	struct wl_list *next =
			output != NULL ? output->link.next : server->outputs.next;
	for (; next != &server->outputs; next = next->next) {
		struct vt_output *o = wl_container_of(next, o, link);
		if (vt_output_enabled(o)) {
			return o;
		}
	}
	return NULL;
}

struct vt_output *vt_output_next_any(struct vt_server *server,
		struct vt_output *output) {
	struct wl_list *next =
			output != NULL ? output->link.next : server->outputs.next;
	if (next == &server->outputs) {
		return NULL;
	}
	return wl_container_of(next, output, link);
}

struct wlr_box vt_output_last_box(struct vt_output *output) {
	return output->layout_box;
}

void vt_output_set_position(struct vt_output *output, bool manual, int x,
		int y) {
	output->manual_position = manual;
	output->manual_x = x;
	output->manual_y = y;
}

int vt_output_created(struct vt_output *output) {
	return output->created;
}

struct wlr_output *vt_output_wlr(struct vt_output *output) {
	return output->wlr_output;
}

struct wlr_box vt_output_usable_box(struct vt_output *output) {
	return output->usable_set ? output->usable : output_box(output);
}

int vt_output_workspace(struct vt_output *output) {
	return output->workspace;
}

void vt_output_set_workspace(struct vt_output *output, int workspace) {
	output->workspace = workspace;
}

void vt_output_set_usable_box(struct vt_output *output,
		const struct wlr_box *box) {
	output->usable = *box;
	output->usable_set = true;
}

struct vt_output *vt_output_by_name(struct vt_server *server,
		const char *name) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (strcmp(output->wlr_output->name, name) == 0) {
			return output;
		}
	}
	return NULL;
}

/* ---- lifetime ----------------------------------------------------------- */

static void output_set_period(struct vt_output *output) {
	int mhz = output->wlr_output->refresh;
	if (mhz <= 0) {
		mhz = output->server->opts.refresh_mhz[0];
	}
	output->period_ns = (uint64_t)(1e12 / mhz);
	if (output->pacer != NULL) {
		vt_pacer_set_period(output->pacer, output->period_ns, vt_now_ns());
	}
}

/* Outputs side by side, left to right in name order (the order of
 * server->outputs), whatever order the backend announced them in. */

void vt_outputs_arrange(struct vt_server *server) {
	arrange_outputs(server);
}

static void arrange_outputs(struct vt_server *server) {
	int x = 0;
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		struct wlr_box from = output->layout_box;
		if (!vt_output_enabled(output)) {
			/* out of the layout; its windows went (output_disable) */
			/* layout_box stays where it was: output management
			 * shows it there */
			wlr_output_layout_remove(server->layout, output->wlr_output);
			continue;
		}
		if (output->manual_position) {
			wlr_output_layout_add(server->layout, output->wlr_output,
					output->manual_x, output->manual_y);
			output->layout_box = output_box(output);
		} else {
			wlr_output_layout_add(server->layout, output->wlr_output, x, 0);
			output->layout_box = output_box(output);
			x += output->layout_box.width;
		}
		/* its windows go where it goes */
		if (!wlr_box_empty(&from) &&
				(from.x != output->layout_box.x ||
						from.y != output->layout_box.y ||
						from.width != output->layout_box.width ||
						from.height != output->layout_box.height)) {
			struct vt_output_change_event moved = {
				.output = output,
				.wlr_output = output->wlr_output,
				.box = from,
			};
			wl_signal_emit(&server->events.output_moved, &moved);
		}
	}
	if (!wl_list_empty(&server->outputs)) {
		/* windows left without an output get one */
		struct vt_output_change_event moved = { 0 };
		wl_signal_emit(&server->events.output_moved, &moved);
	}
	/* Everything may be somewhere else now. */
	wl_list_for_each(output, &server->outputs, link) {
		output_damage_whole(output);
	}
}

/* A new mode: a new refresh period for the pacer and its clock (the
 * frame timeline and its vblank model follow at once), a render target and
 * buffers of the new size (output_acquire_buffer), the layout. */
static void handle_mode(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, mode);
	output_set_period(output);
	output_update_target(output);
	arrange_outputs(output->server);
	wlr_log(WLR_INFO, "%s: mode %dx%d, refresh period %.3f ms",
			output->wlr_output->name, output->wlr_output->width,
			output->wlr_output->height, output->period_ns / 1e6);
}

/* Enabled or disabled (output management): a disabled output leaves the
 * layout, its windows go to the others, its layer surfaces are closed, it
 * draws nothing; enabled again, it comes back into the layout and draws
 * all of itself. */
static void output_enabled_changed(struct vt_output *output) {
	struct vt_server *server = output->server;
	bool enabled = vt_output_enabled(output);
	if (!enabled && output->enabled) {
		output->enabled = false;
		struct wlr_box box = output->layout_box;
		struct vt_output_change_event change = {
			.output = output,
			.wlr_output = output->wlr_output,
			.box = box,
		};
		/* its layer surfaces are closed (layer_shell.c) */
		wl_signal_emit(&server->events.output_disabled, &change);
		arrange_outputs(server); /* out of the layout */
		/* and out of clients' sight; its return to the layout makes
		 * the global again (wlr_output_layout_add) */
		wlr_output_destroy_global(output->wlr_output);
		/* its windows go to the others (view.c) */
		wl_signal_emit(&server->events.output_gone, &change);
		vr_changes_clear(&output->pending);
		/* a client buffer it scanned out goes back; the frame that
		 * enables it again is composed whole */
		if (output->scanout_front != NULL) {
			wlr_buffer_unlock(output->scanout_front);
			output->scanout_front = NULL;
			output->composed_stale = true;
		}
		wlr_log(WLR_INFO, "%s: disabled", output->wlr_output->name);
	} else if (enabled && !output->enabled) {
		output->enabled = true;
		output_set_period(output);
		output_update_target(output);
		arrange_outputs(server);
		output_damage_whole(output);
		wlr_log(WLR_INFO, "%s: enabled", output->wlr_output->name);
	}
	vt_server_schedule_update(server);
}

void vt_outputs_init(struct vt_server *server) {
	server->outputs_update.notify = output_handle_update;
	wl_signal_add(&server->events.update, &server->outputs_update);
	server->outputs_run_pacers.notify = output_handle_run_pacers;
	wl_signal_add(&server->events.run_pacers, &server->outputs_run_pacers);
	server->outputs_engine_completed.notify = output_handle_engine_completed;
	wl_signal_add(&server->events.engine_completed,
			&server->outputs_engine_completed);
}

void vt_outputs_finish(struct vt_server *server) {
	if (server->outputs_update.link.next != NULL) {
		wl_list_remove(&server->outputs_update.link);
		wl_list_remove(&server->outputs_run_pacers.link);
		wl_list_remove(&server->outputs_engine_completed.link);
	}
}

uint64_t vt_output_lock_epoch_shown(struct vt_output *output) {
	return output->lock_epoch_shown;
}

void vt_output_set_soft_disabled(struct vt_output *output, bool disabled) {
	output->soft_disabled = disabled;
	output_enabled_changed(output);
}

/* A new scale or transform changes the output's size in the layout;
 * enabling or disabling it, whether it is in the layout at all. */
static void handle_commit(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, commit);
	struct wlr_output_event_commit *event = data;
	if (event->committed & WLR_OUTPUT_STATE_ENABLED) {
		output_enabled_changed(output);
	}
	if (event->committed &
			(WLR_OUTPUT_STATE_SCALE | WLR_OUTPUT_STATE_TRANSFORM)) {
		arrange_outputs(output->server);
		vt_server_schedule_update(output->server);
	}
}

static void handle_destroy(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, destroy);
	output->destroying = true;
	wl_list_remove(&output->frame.link);
	wl_list_remove(&output->present.link);
	wl_list_remove(&output->destroy.link);
	wl_list_remove(&output->mode.link);
	wl_list_remove(&output->commit.link);
	wl_list_remove(&output->needs_frame.link);
	wl_list_remove(&output->link);
	/* the GPU may still write into its buffers */
	output_wait_renderer(output);
	vt_pacer_destroy(output->pacer); /* discards its frames */
	struct output_frame *frame, *tmp;
	wl_list_for_each_safe(frame, tmp, &output->frames, link) {
		output_frame_destroy(frame);
	}
	for (int i = 0; i < DAMAGE_HISTORY; i++) {
		pixman_region32_fini(&output->damage_history[i]);
	}
	output_drop_buffers(output, true);
	if (output->scanout_front != NULL) {
		wlr_buffer_unlock(output->scanout_front);
	}
	if (output->timer_source != NULL) {
		wl_event_source_remove(output->timer_source);
	}
	if (output->slow_timer != NULL) {
		wl_event_source_remove(output->slow_timer);
	}
	if (output->redraw_idle != NULL) {
		wl_event_source_remove(output->redraw_idle);
	}
	if (output->trim_timer != NULL) {
		wl_event_source_remove(output->trim_timer);
	}
	if (output->timer_fd >= 0) {
		close(output->timer_fd);
	}
	vr_engine_output_destroy(output->dest);
	vr_changes_fini(&output->pending);
	pixman_region32_fini(&output->tear_region);
	free(output->stats.main_ns);
	output->wlr_output->data = NULL;
	struct vt_server *server = output->server;
	/* its windows go to the outputs left (it is out of the list) */
	struct vt_output_change_event gone = {
		.output = output,
		.wlr_output = output->wlr_output,
		.box = output->layout_box,
	};
	wl_signal_emit(&server->events.output_gone, &gone);
	free(output);
	/* wlroots takes it out of the layout; close the gap. */
	arrange_outputs(server);
	vt_server_schedule_update(server);
}

/* ---- the config's output settings ------------------------------------- */

/* Set the mode, scale and transform of the config (or the defaults: the
 * mode as it is, scale 1, no transform) pending on the output, and
 * enable it unless the config disables it and the backend can. */
static void output_stage_config(struct wlr_output *wlr_output,
		const struct vt_config_output *oc) {
	if (oc->has_mode) {
		struct wlr_output_mode *best = NULL, *mode;
		wl_list_for_each(mode, &wlr_output->modes, link) {
			if (mode->width != oc->width || mode->height != oc->height) {
				continue;
			}
			if (oc->refresh_mhz > 0 &&
					abs(mode->refresh - oc->refresh_mhz) > 500) {
				continue;
			}
			if (best == NULL || mode->refresh > best->refresh) {
				best = mode;
			}
		}
		if (best != NULL) {
			wlr_output_set_mode(wlr_output, best);
		} else {
			/* headless and nested outputs: a custom mode; their
			 * refresh stays unless one is given */
			int refresh = oc->refresh_mhz > 0 ?
					oc->refresh_mhz :
					wlr_output->pending.committed & WLR_OUTPUT_STATE_MODE ?
					wlr_output->pending.custom_mode.refresh :
					wlr_output->refresh;
			wlr_output_set_custom_mode(wlr_output, oc->width, oc->height,
					refresh);
		}
	}
	wlr_output_set_scale(wlr_output, oc->has_scale ? (float)oc->scale : 1.0f);
	wlr_output_set_transform(wlr_output,
			oc->has_transform ? (enum wl_output_transform)oc->transform :
								WL_OUTPUT_TRANSFORM_NORMAL);
	bool enabled = !oc->has_enabled || oc->enabled;
	/* only DRM outputs can be disabled in wlroots 0.15: vitrail keeps
	 * the others out of the layout itself */
	wlr_output_enable(wlr_output, enabled || !wlr_output_is_drm(wlr_output));
}

/* What the config leaves to vitrail alone: a disabled output that the
 * backend keeps enabled, and a fixed position. */
static bool output_config_soft_disabled(struct wlr_output *wlr_output,
		const struct vt_config_output *oc) {
	return oc->has_enabled && !oc->enabled && !wlr_output_is_drm(wlr_output);
}

void vt_outputs_apply_config(struct vt_server *server,
		const struct vt_config *previous) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		struct wlr_output *wlr_output = output->wlr_output;
		struct vt_config_output oc, old;
		bool named = vt_config_output(&server->config, wlr_output->name, &oc);
		bool was_named = previous != NULL &&
				vt_config_output(previous, wlr_output->name, &old);
		if (!named && !was_named) {
			continue; /* left as it is (wlr-randr may have changed it) */
		}
		output_stage_config(wlr_output, &oc);
		if (!wlr_output_commit(wlr_output)) {
			wlr_log(WLR_ERROR,
					"%s: the backend refuses the config's "
					"settings",
					wlr_output->name);
			wlr_output_rollback(wlr_output);
		}
		vt_output_set_position(output, oc.has_position, oc.x, oc.y);
		bool soft = output_config_soft_disabled(wlr_output, &oc);
		if (soft != output->soft_disabled) {
			vt_output_set_soft_disabled(output, soft);
		}
	}
	arrange_outputs(server);
	/* the caller tells output management (vt_output_management_update) */
}

/* The mode an output starts with: --size for headless and nested
 * outputs (headless ones at their --refresh), else the preferred one. */
static void output_stage_default_mode(struct vt_server *server,
		struct wlr_output *wlr_output, int refresh_mhz) {
	struct vt_options *opts = &server->opts;
	bool is_virtual = wl_list_empty(&wlr_output->modes);
	if (wlr_output_is_headless(wlr_output)) {
		wlr_output_set_custom_mode(wlr_output, opts->output_width,
				opts->output_height, refresh_mhz);
	} else if (is_virtual) {
		/* Nested window: the size we were asked for. */
		wlr_output_set_custom_mode(wlr_output, opts->output_width,
				opts->output_height, 0);
	} else {
		struct wlr_output_mode *mode = wlr_output_preferred_mode(wlr_output);
		if (mode != NULL) {
			wlr_output_set_mode(wlr_output, mode);
		}
	}
}

void vt_output_create(struct vt_server *server, struct wlr_output *wlr_output) {
	struct vt_options *opts = &server->opts;
	/* --refresh rates go by output order: HEADLESS-1 takes the first,
	 * whatever order the backend announces them in */
	int created = server->outputs_created++;
	int index = created;
	const char *number = strrchr(wlr_output->name, '-');
	if (wlr_output_is_headless(wlr_output) && number != NULL &&
			atoi(number + 1) > 0) {
		index = atoi(number + 1) - 1;
	}
	int refresh_mhz = opts->refresh_mhz[index < opts->refresh_count ?
					index :
					opts->refresh_count - 1];
	if (!wlr_output_init_render(wlr_output, server->allocator,
				server->wlr_renderer)) {
		wlr_log(WLR_ERROR, "%s: cannot init rendering", wlr_output->name);
		return;
	}
	struct vt_output *output = calloc(1, sizeof(*output));
	if (output == NULL) {
		return;
	}
	output->server = server;
	snprintf(output->scanout_why, sizeof(output->scanout_why),
			"no frame planned yet");
	/* outputs there from the start come in the backend's order: they
	 * are all first */
	output->created = server->running ? created : 0;
	output->workspace = 1;
	output->wlr_output = wlr_output;
	output->timer_fd = -1;
	wlr_output->data = output;
	wl_list_init(&output->buffers);
	wl_list_init(&output->frames);
	vr_changes_init(&output->pending);
	pixman_region32_init(&output->tear_region);
	for (int i = 0; i < DAMAGE_HISTORY; i++) {
		pixman_region32_init(&output->damage_history[i]);
	}

	output_stage_default_mode(server, wlr_output, refresh_mhz);
	/* the config's settings for it, if any */
	struct vt_config_output oc;
	vt_config_output(&server->config, wlr_output->name, &oc);
	output_stage_config(wlr_output, &oc);
	if (!wlr_output_commit(wlr_output)) {
		wlr_log(WLR_ERROR,
				"%s: cannot enable the output with the "
				"config's settings; trying without them",
				wlr_output->name);
		wlr_output_rollback(wlr_output);
		oc = (struct vt_config_output){ 0 };
		output_stage_default_mode(server, wlr_output, refresh_mhz);
		wlr_output_enable(wlr_output, true);
		if (!wlr_output_commit(wlr_output)) {
			wlr_log(WLR_ERROR, "%s: cannot enable the output",
					wlr_output->name);
		}
	}
	output->soft_disabled = output_config_soft_disabled(wlr_output, &oc);
	vt_output_set_position(output, oc.has_position, oc.x, oc.y);

	/* Keep outputs in name order: placement ties and reports follow it. */
	struct wl_list *before = &server->outputs;
	struct vt_output *o;
	wl_list_for_each(o, &server->outputs, link) {
		if (strcmp(o->wlr_output->name, wlr_output->name) > 0) {
			before = &o->link;
			break;
		}
	}
	wl_list_insert(before->prev, &output->link);

	output->timer_fd =
			timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (output->timer_fd < 0) {
		wlr_log_errno(WLR_ERROR, "timerfd_create");
	} else {
		output->timer_source =
				wl_event_loop_add_fd(server->loop, output->timer_fd,
						WL_EVENT_READABLE, output_handle_timer, output);
	}
	output->slow_timer = wl_event_loop_add_timer(server->loop,
			output_handle_slow_timer, output);
	output->trim_timer = wl_event_loop_add_timer(server->loop,
			output_handle_trim_timer, output);
	output->model_clock =
			wlr_output_is_headless(wlr_output) && output->timer_source != NULL;
	output_set_period(output);
	if (opts->pipeline == VT_PIPELINE_SYNC) {
		output->policy = &vt_policy_legacy;
	} else if (opts->pacing == VT_PACING_DVSYNC) {
		output->policy = &vt_policy_dvsync;
	} else {
		output->policy = &vt_policy_vsync;
	}
	output->pacer = vt_pacer_create(
			output->model_clock ? VT_PACER_CLOCK_MODEL : VT_PACER_CLOCK_BACKEND,
			output->period_ns, vt_now_ns(), output->policy, &output_pacer_impl,
			output);
	if (output->pacer == NULL) {
		wlr_log(WLR_ERROR, "%s: out of memory", wlr_output->name);
	} else if (output->policy == &vt_policy_dvsync) {
		vt_pacer_set_prerender(output->pacer,
				opts->prerender_count == 0 ?
						VT_PRERENDER_DEFAULT :
						opts->prerender[index < opts->prerender_count ?
										index :
										opts->prerender_count - 1]);
	}

	output->frame.notify = output_handle_frame;
	wl_signal_add(&wlr_output->events.frame, &output->frame);
	output->present.notify = output_handle_present;
	wl_signal_add(&wlr_output->events.present, &output->present);
	output->destroy.notify = handle_destroy;
	wl_signal_add(&wlr_output->events.destroy, &output->destroy);
	output->needs_frame.notify = output_handle_needs_frame;
	wl_signal_add(&wlr_output->events.needs_frame, &output->needs_frame);
	output->mode.notify = handle_mode;
	wl_signal_add(&wlr_output->events.mode, &output->mode);
	output->commit.notify = handle_commit;
	wl_signal_add(&wlr_output->events.commit, &output->commit);
	output->enabled = vt_output_enabled(output);

	output_update_target(output);
	arrange_outputs(server);
	wlr_log(WLR_INFO,
			"%s: %dx%d, refresh period %.3f ms, clock: %s, "
			"pacing: %s",
			wlr_output->name, wlr_output->width, wlr_output->height,
			output->period_ns / 1e6,
			output->model_clock ? "vitrail vblank model" : "backend",
			output->policy->name);
}

bool vt_output_set_power(struct vt_server *server,
		struct wlr_output *wlr_output, bool on) {
	struct vt_output *output = wlr_output->data;
	if (output == NULL || output->server != server) {
		return false;
	}
	if (wlr_output->enabled == on) {
		return true;
	}
	/* nothing of a frame goes with it */
	wlr_output_rollback(wlr_output);
	wlr_output_enable(wlr_output, on);
	if (!wlr_output_commit(wlr_output)) {
		/* wlroots 0.15's headless, wayland and x11 backends cannot */
		wlr_log(WLR_INFO, "%s: the backend cannot turn the output %s",
				wlr_output->name, on ? "on" : "off");
		return false;
	}
	wlr_log(WLR_INFO, "%s: powered %s", wlr_output->name, on ? "on" : "off");
	if (on) {
		output_damage_whole(output);
		output_request(output, VT_PACER_RENDER | VT_PACER_CALLBACKS);
	}
	return true;
}
