/*
 * The path manager's glue (POLYPATH; the policy is pacing/path.c and
 * pacing/jitt.c): each surface's input-to-display path, from
 * vitrail_frame_timing_v1's set_path or else the config's rule for its
 * app_id, and what the low-latency path does on top of the output's
 * frames:
 * - frame callbacks of low-latency surfaces go at the time the
 *   just-in-time trigger computes, from one timerfd (nanosecond
 *   deadlines), instead of at the vblank;
 * - position-aware rendering: a low-latency surface that allows tearing
 *   (vitrail_surface_timing_v1.set_tearing, wp_tearing_control_v1 async,
 *   or a config rule) and commits damage inside the box around the
 *   pointer has it written at once into the refresh being scanned out,
 *   when the output's scanout model says the write ends before the scan
 *   reaches it (output.c, vt_output_tear).
 *
 * wp_tearing_control_v1 (wayland-protocols staging) lives here too.
 */
#include <assert.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>

#include "pacing/pacer.h"
#include "desktop/surface.h"
#include "output/output.h"
#include "pacing/path.h"
#include "protocols/frame_timing.h"
#include "protocols/presentation_paths.h"
#include "server.h"
#include "tearing-control-v1-protocol.h"
#include "util.h"

/* A surface's path (vt_surface::paths), from its creation to its
 * destruction. */
struct vt_surface_paths {
	struct vt_surface *surface;
	struct vt_path_state path; /* and its callback timing */
	uint64_t shows_at; /* the refresh its latest commit makes */
	bool scheduled; /* in vt_paths::scheduled, at `at` */
	uint64_t at;
	struct wl_list link;
	/* on the low-latency path with tearing allowed; the
	 * wp_tearing_control_v1 hint (pending, applied at commit) */
	bool tearing;
	/* the damage of its latest commit lay in the tearing box around the
	 * pointer: its next frame may tear, so it aims at the scan */
	bool tear_fits;
	bool tearing_hint, tearing_hint_pending;
	struct wl_resource *tearing_control;
	struct wl_listener content; /* surface->events */
	struct wl_listener destroy;
};

struct vt_paths {
	struct vt_server *server;
	int timer_fd;
	struct wl_event_source *timer_source;
	uint64_t armed_ns;
	struct wl_list scheduled; /* vt_surface_paths::link */
	struct wl_global *tearing_global;
	struct wl_listener new_surface; /* server->events.new_surface */
	/* the outputs' frame clock (server->frame_events) */
	struct wl_listener surface_sampled;
	struct wl_listener vblank_callback;
};

/* ---- which path ------------------------------------------------------- */

static const char *surface_app_id(struct vt_surface *surface) {
	/* NULL: a subsurface whose parent is gone (its client is being
	 * destroyed, say) */
	struct wlr_surface *root =
			wlr_surface_get_root_surface(surface->wlr_surface);
	if (root == NULL || !wlr_surface_is_xdg_surface(root)) {
		return NULL;
	}
	struct wlr_xdg_surface *xdg = wlr_xdg_surface_from_wlr_surface(root);
	while (xdg != NULL && xdg->role == WLR_XDG_SURFACE_ROLE_POPUP &&
			xdg->popup->parent != NULL &&
			wlr_surface_is_xdg_surface(xdg->popup->parent)) {
		xdg = wlr_xdg_surface_from_wlr_surface(xdg->popup->parent);
	}
	if (xdg == NULL || xdg->role != WLR_XDG_SURFACE_ROLE_TOPLEVEL) {
		return NULL;
	}
	return xdg->toplevel->app_id;
}

/* The client's own choice first, then the config's rule, then vsync.
 * Tearing: allowed by any of the three. */
static enum vt_path surface_path(struct vt_surface_paths *sp, bool *tearing) {
	struct vt_surface *surface = sp->surface;
	enum vt_path path = VT_PATH_VSYNC;
	bool timing_tearing = false;
	bool chosen = vt_frame_timing_path(surface, &path, &timing_tearing);
	*tearing = timing_tearing || sp->tearing_hint;
	const struct vt_config_path_rule *rule = vt_config_path_rule(
			&surface->server->config, surface_app_id(surface));
	if (rule != NULL) {
		*tearing = *tearing || rule->tearing;
		if (!chosen) {
			path = rule->path == VT_CONFIG_PATH_LOW_LATENCY ?
					VT_PATH_LOW_LATENCY :
					rule->path == VT_CONFIG_PATH_PRE_RENDER ?
					VT_PATH_PRE_RENDER :
					VT_PATH_VSYNC;
		}
	}
	return path;
}

/* ---- the trigger timer ------------------------------------------------- */

static void paths_arm(struct vt_paths *paths) {
	uint64_t next = 0;
	struct vt_surface_paths *sp;
	wl_list_for_each(sp, &paths->scheduled, link) {
		if (next == 0 || sp->at < next) {
			next = sp->at;
		}
	}
	if (next == paths->armed_ns) {
		return;
	}
	paths->armed_ns = next;
	struct itimerspec its = { 0 };
	if (next != 0) {
		vt_ns_to_timespec(next, &its.it_value);
	}
	if (timerfd_settime(paths->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) != 0) {
		wlr_log_errno(WLR_ERROR, "timerfd_settime");
	}
}

static void unschedule(struct vt_surface_paths *sp) {
	if (sp->scheduled) {
		wl_list_remove(&sp->link);
		sp->scheduled = false;
	}
}

/* Decide when the surface's next callback goes; low-latency ones join
 * the timer, vsync ones wait for the output's vblank. */
static void schedule(struct vt_surface_paths *sp, uint64_t now) {
	struct vt_surface *surface = sp->surface;
	struct vt_server *server = surface->server;
	struct vt_paths *paths = server->paths;
	struct vt_output *output = vt_surface_output(surface);
	if (output == NULL) {
		output = vt_output_next(server, NULL);
	}
	const struct vt_clock *clock;
	uint64_t out_ns, earliest;
	uint64_t at = 0;
	enum vt_path_send send = VT_PATH_SEND_VBLANK;
	if (output != NULL &&
			vt_output_pacing(output, now, &clock, &out_ns, &earliest)) {
		/* A surface that tears aims at the time the scan reaches the
		 * box around the pointer, in whichever refresh: its frames go
		 * into the refresh being scanned out (vt_output_tear). */
		struct vt_clock scan = *clock;
		uint64_t offset = sp->tearing && sp->tear_fits ?
				vt_output_tear_offset(output) :
				0;
		/* the commit must land after the vblank, in the refresh it
		 * tears into: a box the scan reaches sooner than the lead
		 * cannot tear, and the frames aim at the vblank */
		uint64_t lead = vt_jitt_app_ns(&sp->path.jitt, vt_clock_period(clock)) +
				out_ns + VT_JITT_MARGIN_NS;
		if (offset < lead) {
			offset = 0;
		}
		if (offset != 0) {
			scan.phase_ns += offset;
			earliest = surface->unsampled ? earliest : now;
		}
		send = vt_path_schedule(&sp->path, &scan, now, out_ns, earliest,
				vt_frame_timing_surface_queued(surface), surface->unsampled,
				sp->shows_at, &at);
	}
	unschedule(sp);
	if (send == VT_PATH_SEND_AT) {
		sp->at = at;
		wl_list_insert(&paths->scheduled, &sp->link);
		sp->scheduled = true;
	} else if (send == VT_PATH_SEND_VBLANK) {
		vt_server_request_frame(server, VT_PACER_CALLBACKS);
	}
	paths_arm(paths);
}

static int handle_timer(int fd, uint32_t mask, void *data) {
	struct vt_paths *paths = data;
	uint64_t expirations;
	if (read(fd, &expirations, sizeof(expirations)) < 0) {
		/* spurious: re-armed below */
	}
	paths->armed_ns = 0;
	uint64_t now = vt_now_ns();
	struct timespec when;
	vt_ns_to_timespec(now, &when);
	struct vt_surface_paths *sp, *tmp;
	wl_list_for_each_safe(sp, tmp, &paths->scheduled, link) {
		if (sp->at > now) {
			continue;
		}
		unschedule(sp);
		vt_path_sent(&sp->path, now);
		wlr_surface_send_frame_done(sp->surface->wlr_surface, &when);
	}
	paths_arm(paths);
	return 0;
}

/* ---- what surfaces and outputs call ------------------------------------- */

static void paths_surface_commit(struct vt_surface_paths *sp, bool new_content,
		bool replaced) {
	struct vt_surface *surface = sp->surface;
	struct vt_server *server = surface->server;
	uint64_t now = vt_now_ns();
	sp->tearing_hint = sp->tearing_hint_pending;
	bool tearing = false;
	enum vt_path path = surface_path(sp, &tearing);
	sp->tearing = tearing && path == VT_PATH_LOW_LATENCY;
	surface->prerender = path == VT_PATH_PRE_RENDER;
	struct vt_output *output = vt_surface_output(surface);
	if (output == NULL) {
		output = vt_output_next(server, NULL);
	}
	const struct vt_clock *clock;
	uint64_t out_ns, earliest = 0;
	if (output != NULL) {
		vt_output_pacing(output, now, &clock, &out_ns, &earliest);
	}
	uint64_t torn_at = 0;
	if (new_content && sp->tearing && output != NULL) {
		/* a frame whose changes lay away from the pointer cannot tear:
		 * the next one aims at the vblank, as without tearing, instead
		 * of at a scan position it would then wait a refresh after */
		if (vt_output_tear(output, surface, now, &torn_at, &sp->tear_fits)) {
			earliest = torn_at; /* in the refresh being scanned out */
		}
	} else if (new_content) {
		sp->tear_fits = false;
	}
	if (new_content) {
		sp->shows_at = earliest;
	}
	bool wants =
			!wl_list_empty(&surface->wlr_surface->current.frame_callback_list);
	vt_path_commit(&sp->path, path, wants, new_content, replaced, earliest,
			now);
	if (wants || sp->scheduled) {
		schedule(sp, now);
	}
}

static void handle_surface_content(struct wl_listener *listener, void *data) {
	struct vt_surface_paths *sp = wl_container_of(listener, sp, content);
	struct vt_surface_content_event *event = data;
	paths_surface_commit(sp, event->new_content, event->replaced);
}

/* A frame draws the surface: its latest commit, if no frame drew it
 * before, is shown. */
static void handle_surface_sampled(struct wl_listener *listener, void *data) {
	struct vt_frame_surface_event *event = data;
	if (event->unsampled && event->surface->paths != NULL) {
		vt_path_shown(&event->surface->paths->path);
	}
}

/* At an output's vblank: the surface's callback goes now unless the
 * low-latency trigger sends it. */
static void handle_vblank_callback(struct wl_listener *listener, void *data) {
	struct vt_frame_surface_event *event = data;
	struct vt_surface_paths *sp = event->surface->paths;
	if (sp == NULL) {
		event->send = true;
		return;
	}
	if (sp->scheduled) {
		event->send = false; /* the trigger sends it */
		return;
	}
	vt_path_sent(&sp->path, vt_now_ns());
	event->send = true;
}

static void handle_surface_destroy(struct wl_listener *listener, void *data) {
	struct vt_surface_paths *sp = wl_container_of(listener, sp, destroy);
	struct vt_surface *surface = sp->surface;
	wl_list_remove(&sp->content.link);
	wl_list_remove(&sp->destroy.link);
	unschedule(sp);
	if (sp->tearing_control != NULL) {
		wl_resource_set_user_data(sp->tearing_control, NULL);
	}
	surface->paths = NULL;
	free(sp);
	if (surface->server->paths != NULL) {
		paths_arm(surface->server->paths);
	}
}

static void handle_new_surface(struct wl_listener *listener, void *data) {
	struct vt_surface *surface = data;
	struct vt_surface_paths *sp = calloc(1, sizeof(*sp));
	if (sp == NULL) {
		/* its callbacks go at the vblank, as on the vsync path */
		wlr_log(WLR_ERROR, "out of memory for a surface's path");
		return;
	}
	sp->surface = surface;
	surface->paths = sp;
	vt_path_init(&sp->path, VT_PATH_VSYNC);
	wl_list_init(&sp->link);
	sp->content.notify = handle_surface_content;
	wl_signal_add(&surface->events.content, &sp->content);
	sp->destroy.notify = handle_surface_destroy;
	wl_signal_add(&surface->events.destroy, &sp->destroy);
}

/* ---- wp_tearing_control_v1 ---------------------------------------------- */

static void tearing_handle_set_presentation_hint(struct wl_client *client,
		struct wl_resource *resource, uint32_t hint) {
	struct vt_surface_paths *sp = wl_resource_get_user_data(resource);
	if (hint > WP_TEARING_CONTROL_V1_PRESENTATION_HINT_ASYNC) {
		/* the interface has no error of its own */
		wl_client_post_implementation_error(client,
				"wp_tearing_control_v1.set_presentation_hint: %u is not a "
				"presentation_hint (0 vsync, 1 async)",
				hint);
		return;
	}
	if (sp != NULL) {
		sp->tearing_hint_pending =
				hint == WP_TEARING_CONTROL_V1_PRESENTATION_HINT_ASYNC;
	}
}

static void tearing_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct wp_tearing_control_v1_interface tearing_impl = {
	.set_presentation_hint = tearing_handle_set_presentation_hint,
	.destroy = tearing_handle_destroy,
};

static void tearing_resource_destroy(struct wl_resource *resource) {
	struct vt_surface_paths *sp = wl_resource_get_user_data(resource);
	if (sp != NULL) {
		/* back to vsync with the next commit */
		sp->tearing_hint_pending = false;
		sp->tearing_control = NULL;
	}
}

static void tearing_manager_get(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *surface_resource) {
	struct vt_surface *surface =
			vt_surface_from_wlr(wlr_surface_from_resource(surface_resource));
	struct vt_surface_paths *sp = surface != NULL ? surface->paths : NULL;
	if (sp != NULL && sp->tearing_control != NULL) {
		wl_resource_post_error(resource,
				WP_TEARING_CONTROL_MANAGER_V1_ERROR_TEARING_CONTROL_EXISTS,
				"wl_surface@%u has one", wl_resource_get_id(surface_resource));
		return;
	}
	struct wl_resource *control =
			wl_resource_create(client, &wp_tearing_control_v1_interface,
					wl_resource_get_version(resource), id);
	if (control == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(control, &tearing_impl, sp,
			tearing_resource_destroy);
	if (sp != NULL) {
		sp->tearing_control = control;
	}
}

static void tearing_manager_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct wp_tearing_control_manager_v1_interface
		tearing_manager_impl = {
			.destroy = tearing_manager_destroy,
			.get_tearing_control = tearing_manager_get,
		};

static void tearing_manager_bind(struct wl_client *client, void *data,
		uint32_t version, uint32_t id) {
	vt_resource_create(client, &wp_tearing_control_manager_v1_interface,
			version, id, &tearing_manager_impl, data, NULL);
}

/* ---- set-up ------------------------------------------------------------- */

bool vt_paths_init(struct vt_server *server) {
	struct vt_paths *paths = calloc(1, sizeof(*paths));
	if (paths == NULL) {
		return false;
	}
	paths->server = server;
	wl_list_init(&paths->scheduled);
	paths->timer_fd =
			timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (paths->timer_fd < 0) {
		wlr_log_errno(WLR_ERROR, "timerfd_create");
		free(paths);
		return false;
	}
	paths->timer_source = wl_event_loop_add_fd(server->loop, paths->timer_fd,
			WL_EVENT_READABLE, handle_timer, paths);
	paths->tearing_global = wl_global_create(server->display,
			&wp_tearing_control_manager_v1_interface, 1, server,
			tearing_manager_bind);
	if (paths->timer_source == NULL || paths->tearing_global == NULL) {
		if (paths->timer_source != NULL) {
			wl_event_source_remove(paths->timer_source);
		}
		close(paths->timer_fd);
		free(paths);
		return false;
	}
	server->paths = paths;
	paths->new_surface.notify = handle_new_surface;
	wl_signal_add(&server->events.new_surface, &paths->new_surface);
	/* before frame_timing.c's (vt_paths_init runs first): a drawn
	 * surface's commit is shown, then its timing feedback sampled */
	paths->surface_sampled.notify = handle_surface_sampled;
	wl_signal_add(&server->frame_events.surface_sampled,
			&paths->surface_sampled);
	paths->vblank_callback.notify = handle_vblank_callback;
	wl_signal_add(&server->frame_events.vblank_callback,
			&paths->vblank_callback);
	return true;
}

void vt_paths_finish(struct vt_server *server) {
	struct vt_paths *paths = server->paths;
	if (paths == NULL) {
		return;
	}
	struct vt_surface_paths *sp, *tmp;
	wl_list_for_each_safe(sp, tmp, &paths->scheduled, link) {
		unschedule(sp);
	}
	wl_list_remove(&paths->new_surface.link);
	wl_list_remove(&paths->surface_sampled.link);
	wl_list_remove(&paths->vblank_callback.link);
	wl_global_destroy(paths->tearing_global);
	wl_event_source_remove(paths->timer_source);
	close(paths->timer_fd);
	free(paths);
	server->paths = NULL;
}
