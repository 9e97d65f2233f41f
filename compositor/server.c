/*
 * The server: backends, wlroots globals and the render tree they feed.
 *
 * wlroots' own renderer role is served by its pixman renderer, and only for
 * bookkeeping: wl_shm, the output allocator (shm or DRM dumb buffers, all
 * CPU-mapped), and reading the front buffer for screencopy (wlroots 0.15
 * creates its own pixman renderer per backend for that, following
 * WLR_RENDERER). Every frame is composed by
 * vitrail's renderer from the unified tree and copied into the output
 * buffer (see output.c).
 */
#define _DEFAULT_SOURCE /* usleep */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wlr/backend.h>
#include <wlr/backend/headless.h>
#include <wlr/backend/multi.h>
#include <wlr/backend/wayland.h>
#include <wlr/config.h>
#if WLR_HAS_X11_BACKEND
#include <wlr/backend/x11.h>
#endif
#include <wlr/render/allocator.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_primary_selection_v1.h>
#include <wlr/types/wlr_screencopy_v1.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_viewporter.h>
#include <wlr/types/wlr_xdg_output_v1.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>

#include "desktop/kiosk.h"
#include "desktop/layer_shell.h"
#include "desktop/session_lock.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "desktop/xdg_shell.h"
#include "desktop/xwayland.h"
#include "input/input.h"
#include "loop.h"
#include "output/client_buffer_renderer.h"
#include "output/client_dmabuf.h"
#include "output/engine.h"
#include "output/frame_log.h"
#include "output/output.h"
#include "output/output_dmabuf.h"
#include "output/output_management.h"
#include "protocols/alpha_modifier.h"
#include "protocols/content_type.h"
#include "protocols/cursor_shape.h"
#include "protocols/ext_foreign_toplevel_list.h"
#include "protocols/security_context.h"
#include "protocols/toplevel_icon.h"
#include "protocols/image_capture_source.h"
#include "protocols/image_copy_capture.h"
#include "protocols/xdg_dialog.h"
#include "protocols/fractional_scale.h"
#include "protocols/commit_constraints.h"
#include "protocols/commit_queue.h"
#include "protocols/frame_timing.h"
#include "protocols/presentation.h"
#include "protocols/presentation_paths.h"
#include "protocols/protocols.h"
#include "protocols/scroll_region.h"
#include "protocols/linux_dmabuf.h"
#include "protocols/single_pixel.h"
#include "scene/scene.h"
#include "server.h"
#include "testing/test_control.h"
#include "util.h"

void vt_options_defaults(struct vt_options *opts) {
	*opts = (struct vt_options){
		.backend = VT_BACKEND_AUTO,
		.outputs = 1,
		.output_width = 1280,
		.output_height = 720,
		.refresh_mhz = { 60000 },
		.refresh_count = 1,
		.ready_fd = -1,
	};
}

/* The background covers the whole layout. */
static void update_background(struct vt_server *server) {
	struct wlr_box *box = wlr_output_layout_get_box(server->layout, NULL);
	if (box == NULL) {
		return;
	}
	vr_node_set_position(server->background, box->x, box->y);
	vr_node_set_rect(server->background, box->width, box->height,
			server->config.background);
	vt_session_lock_outputs_changed(server);
	vt_protocols_outputs_changed(server);
	vt_server_schedule_update(server);
}

void vt_server_apply_config(struct vt_server *server) {
	update_background(server);
	vt_input_apply_config(server);
	vt_protocols_apply_config(server);
	vt_kiosk_apply_config(server);
}

static void handle_new_output(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, new_output);
	vt_output_create(server, data);
	update_background(server);
}

static void handle_layout_change(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, layout_change);
	update_background(server);
	vt_layers_arrange(server);
	vt_output_management_update(server);
}

static void handle_new_surface(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, new_surface);
	vt_surface_create(server, data);
}

/* A nested session: a window of the parent Wayland compositor (or X
 * server) per output, in a multi-backend (emulated input adds a headless
 * one to it). wlroots 0.15's wlr_backend_autocreate aborts on an
 * assertion when the requested nested backend cannot connect; this says
 * why and returns NULL instead. */
static struct wlr_backend *create_nested(struct vt_server *server,
		bool wayland) {
	struct wlr_backend *nested = NULL;
	if (wayland) {
		nested = wlr_wl_backend_create(server->display, NULL);
	} else {
#if WLR_HAS_X11_BACKEND
		nested = wlr_x11_backend_create(server->display, NULL);
#else
		wlr_log(WLR_ERROR, "this wlroots has no X11 backend");
		return NULL;
#endif
	}
	if (nested == NULL) {
		const char *name = wayland ? "WAYLAND_DISPLAY" : "DISPLAY";
		const char *value = getenv(name);
		wlr_log(WLR_ERROR,
				"--backend %s: cannot connect to the %s "
				"(%s=%s)",
				wayland ? "wayland" : "x11",
				wayland ? "parent Wayland compositor" : "X server", name,
				value != NULL ? value : "unset");
		return NULL;
	}
	struct wlr_backend *multi = wlr_multi_backend_create(server->display);
	if (multi == NULL || !wlr_multi_backend_add(multi, nested)) {
		wlr_backend_destroy(nested);
		if (multi != NULL) {
			wlr_backend_destroy(multi);
		}
		return NULL;
	}
	/* Before the backend starts these only count the outputs (and
	 * return NULL): it creates them when it starts. */
	for (int i = 0; i < server->opts.outputs; i++) {
		if (wayland) {
			wlr_wl_output_create(nested);
		}
#if WLR_HAS_X11_BACKEND
		else {
			wlr_x11_output_create(nested);
		}
#endif
	}
	return multi;
}

static struct wlr_backend *create_backend(struct vt_server *server) {
	struct vt_options *opts = &server->opts;
	char outputs[16];
	snprintf(outputs, sizeof(outputs), "%d", opts->outputs);
	switch (opts->backend) {
	case VT_BACKEND_HEADLESS: return NULL;
	case VT_BACKEND_WAYLAND: return create_nested(server, true);
	case VT_BACKEND_X11: return create_nested(server, false);
	case VT_BACKEND_DRM: setenv("WLR_BACKENDS", "drm,libinput", 1); break;
	case VT_BACKEND_AUTO:
		setenv("WLR_WL_OUTPUTS", outputs, 0);
		setenv("WLR_X11_OUTPUTS", outputs, 0);
		break;
	}
	return wlr_backend_autocreate(server->display);
}

static void handle_reload(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, reload);
	vt_server_reload(server);
}

bool vt_server_init(struct vt_server *server) {
	struct vt_options *opts = &server->opts;
	wl_list_init(&server->outputs);
	wl_list_init(&server->views);
	wl_signal_init(&server->events.pointer_focus);
	wl_signal_init(&server->events.reload);
	wl_signal_init(&server->events.view_map);
	wl_signal_init(&server->events.view_unmap);
	wl_signal_init(&server->events.view_names);
	wl_signal_init(&server->events.view_output);
	wl_signal_init(&server->events.view_fill);
	wl_signal_init(&server->events.view_minimized);
	wl_signal_init(&server->events.view_activated);
	wl_signal_init(&server->events.new_xdg_toplevel);
	wl_signal_init(&server->events.fullscreen_changed);
	wl_signal_init(&server->events.lock_raised);
	wl_signal_init(&server->events.update);
	wl_signal_init(&server->events.run_pacers);
	wl_signal_init(&server->events.engine_completed);
	wl_signal_init(&server->events.check_settled);
	wl_signal_init(&server->events.new_surface);
	wl_signal_init(&server->events.output_disabled);
	wl_signal_init(&server->events.output_gone);
	wl_signal_init(&server->events.output_moved);
	wl_signal_init(&server->frame_events.busy);
	wl_signal_init(&server->frame_events.sample);
	wl_signal_init(&server->frame_events.begin);
	wl_signal_init(&server->frame_events.surface_sampled);
	wl_signal_init(&server->frame_events.vblank_callback);
	wl_signal_init(&server->frame_events.presented);
	wl_signal_init(&server->frame_events.dropped);
	wl_signal_init(&server->frame_events.lock_shown);
	wl_signal_init(&server->frame_events.shown);
	server->reload.notify = handle_reload;
	wl_signal_add(&server->events.reload, &server->reload);
	vt_outputs_init(server);
	server->start_ns = vt_now_ns();

	server->display = wl_display_create();
	if (server->display == NULL) {
		return false;
	}
	server->loop = wl_display_get_event_loop(server->display);

	/* Output buffers must be CPU-mapped (see the top of this file). */
	const char *wlr_renderer = getenv("WLR_RENDERER");
	if (wlr_renderer != NULL && strcmp(wlr_renderer, "pixman") != 0) {
		wlr_log(WLR_INFO,
				"ignoring WLR_RENDERER=%s: vitrail composes "
				"with its own renderer",
				wlr_renderer);
	}
	setenv("WLR_RENDERER", "pixman", 1);

	server->backend = create_backend(server);
	if (server->backend == NULL) {
		if (opts->backend != VT_BACKEND_AUTO &&
				opts->backend != VT_BACKEND_HEADLESS) {
			wlr_log(WLR_ERROR, "cannot create the requested backend");
			return false;
		}
		if (opts->backend == VT_BACKEND_AUTO) {
			wlr_log(WLR_INFO,
					"no display or seat available: "
					"falling back to the headless backend");
		}
		server->backend = wlr_headless_backend_create(server->display);
		if (server->backend == NULL) {
			wlr_log(WLR_ERROR, "cannot create the headless backend");
			return false;
		}
		for (int i = 0; i < opts->outputs; i++) {
			wlr_headless_add_output(server->backend, opts->output_width,
					opts->output_height);
		}
	}

	server->wlr_renderer = wlr_renderer_autocreate(server->backend);
	if (server->wlr_renderer == NULL) {
		wlr_log(WLR_ERROR, "cannot create wlroots' pixman renderer");
		return false;
	}
	/* Surfaces get textures that hold no buffer (client_buffer_renderer.c):
	 * client buffers go back as soon as their pixels are copied. */
	server->surface_renderer = vt_surface_renderer_create();
	if (server->surface_renderer == NULL) {
		wlr_log(WLR_ERROR, "cannot create the surface renderer");
		return false;
	}
	wlr_renderer_init_wl_display(server->surface_renderer, server->display);
	server->allocator =
			wlr_allocator_autocreate(server->backend, server->wlr_renderer);
	if (server->allocator == NULL) {
		wlr_log(WLR_ERROR, "cannot create an output buffer allocator");
		return false;
	}

	struct vr_renderer_options ropts = {
		.validation = getenv("VITRAIL_VK_VALIDATION") != NULL,
		.workers = opts->renderer_threads,
		.sequential = opts->sequential,
	};
	if (opts->render_backend != VT_RENDER_CPU) {
		server->renderer = vr_renderer_create(&ropts);
		if (server->renderer == NULL) {
			wlr_log(WLR_ERROR,
					"no usable Vulkan device (install a "
					"Vulkan driver, e.g. mesa-vulkan-drivers for lavapipe): "
					"the CPU backend draws instead");
		}
	}
	if (server->renderer == NULL) {
		if (vt_server_use_cpu_backend(server)) {
			wlr_log(WLR_INFO,
					"rendering with the CPU backend, %d "
					"threads",
					vr_cpu_renderer_workers(server->cpu));
		}
	} else if (vr_renderer_is_sequential(server->renderer)) {
		wlr_log(WLR_INFO, "rendering with Vulkan on %s, sequential mode",
				vr_renderer_device_name(server->renderer));
	} else {
		wlr_log(WLR_INFO, "rendering with Vulkan on %s, %d worker threads",
				vr_renderer_device_name(server->renderer),
				vr_renderer_workers(server->renderer));
	}

	if (server->renderer != NULL) {
		/* every pipeline now, not in the first frame that needs it */
		if (!vr_renderer_warm_pipelines(server->renderer)) {
			wlr_log(WLR_ERROR,
					"cannot create every pipeline ahead; the "
					"first frames create the rest");
		}
		if (opts->render_backend == VT_RENDER_AUTO &&
				vr_renderer_is_software(server->renderer)) {
			vt_server_choose_backend(server);
		}
	}

	if (!vt_server_set_engine(server)) {
		return false;
	}
	server->output_dmabufs = vt_output_dmabufs_create(server);

	server->tree = vr_tree_create();
	server->background = vr_node_create(server->tree);
	server->views_layer = vr_node_create(server->tree);
	server->lock_layer = vr_node_create(server->tree);
	server->cursor_layer = vr_node_create(server->tree);
	if (server->tree == NULL || server->background == NULL ||
			server->views_layer == NULL || server->lock_layer == NULL ||
			server->cursor_layer == NULL) {
		return false;
	}
	struct vr_node *root = vr_tree_root(server->tree);
	vr_node_set_parent(server->background, root);
	vr_node_set_parent(server->views_layer, root);
	vr_node_set_parent(server->lock_layer, root);
	vr_node_set_parent(server->cursor_layer, root);

	server->compositor =
			wlr_compositor_create(server->display, server->surface_renderer);
	server->layout = wlr_output_layout_create();
	server->xdg_shell = wlr_xdg_shell_create(server->display);
	if (server->compositor == NULL || server->layout == NULL ||
			server->xdg_shell == NULL) {
		return false;
	}
	wlr_data_device_manager_create(server->display);
	wlr_primary_selection_v1_device_manager_create(server->display);
	wlr_xdg_output_manager_v1_create(server->display, server->layout);
	wlr_viewporter_create(server->display);
	wlr_screencopy_manager_v1_create(server->display);

	if (!vt_input_init(server)) {
		return false;
	}
	if (!vt_kiosk_init(server)) {
		wlr_log(WLR_ERROR, "cannot set up the kiosk policy");
		return false;
	}
	if (!vt_layers_init(server)) {
		wlr_log(WLR_ERROR, "cannot create the layer shell");
		return false;
	}
	if (!vt_output_management_init(server)) {
		wlr_log(WLR_ERROR, "cannot create the output manager");
		return false;
	}
	if (!vt_protocols_init(server) || !vt_session_lock_init(server) ||
			!vt_single_pixel_init(server) || !vt_content_type_init(server) ||
			!vt_fractional_scale_init(server) ||
			!vt_alpha_modifier_init(server) || !vt_cursor_shape_init(server) ||
			!vt_security_context_init(server) || !vt_xdg_dialog_init(server) ||
			!vt_toplevel_icon_init(server) ||
			!vt_ext_foreign_toplevel_list_init(server) ||
			!vt_image_capture_source_init(server) ||
			!vt_image_copy_capture_init(server) ||
			!vt_linux_dmabuf_init(server) ||
			!vt_client_dmabuf_releases_init(server->loop)) {
		wlr_log(WLR_ERROR, "cannot create the protocol globals");
		return false;
	}

	server->new_output.notify = handle_new_output;
	wl_signal_add(&server->backend->events.new_output, &server->new_output);
	server->layout_change.notify = handle_layout_change;
	wl_signal_add(&server->layout->events.change, &server->layout_change);
	server->new_surface.notify = handle_new_surface;
	wl_signal_add(&server->compositor->events.new_surface,
			&server->new_surface);
	server->new_xdg_surface.notify = vt_view_handle_new_xdg_surface;
	wl_signal_add(&server->xdg_shell->events.new_surface,
			&server->new_xdg_surface);
	server->views_output_gone.notify = vt_views_handle_output_gone;
	wl_signal_add(&server->events.output_gone, &server->views_output_gone);
	server->views_output_moved.notify = vt_views_handle_output_moved;
	wl_signal_add(&server->events.output_moved, &server->views_output_moved);
	server->keyboard_grab_end.notify = vt_view_handle_keyboard_grab_end;
	wl_signal_add(&server->seat->events.keyboard_grab_end,
			&server->keyboard_grab_end);

	if (opts->test && !vt_test_init(server)) {
		return false;
	}
	if (!vt_paths_init(server)) {
		wlr_log(WLR_ERROR, "cannot create the path manager");
		return false;
	}
	if (!vt_commit_queues_init(server) || !vt_commit_constraints_init(server)) {
		wlr_log(WLR_ERROR,
				"cannot create the fifo and commit timing "
				"globals");
		return false;
	}
	if (!vt_frame_timing_init(server)) {
		wlr_log(WLR_ERROR, "cannot create the frame timing global");
		return false;
	}
	if (!vt_presentation_init(server)) {
		wlr_log(WLR_ERROR, "cannot create the presentation global");
		return false;
	}
	if (!vt_scene_init(server)) {
		return false;
	}
	if (!vt_scroll_init(server)) {
		return false;
	}
	if (!opts->no_xwayland && server->config.xwayland &&
			!vt_xwayland_init(server)) {
		wlr_log(WLR_ERROR, "cannot set up Xwayland");
		return false;
	}

	if (opts->socket != NULL) {
		if (wl_display_add_socket(server->display, opts->socket) != 0) {
			wlr_log(WLR_ERROR, "cannot open the socket %s", opts->socket);
			return false;
		}
		server->socket = opts->socket;
	} else {
		server->socket = wl_display_add_socket_auto(server->display);
		if (server->socket == NULL) {
			wlr_log(WLR_ERROR, "cannot open a Wayland socket");
			return false;
		}
	}

	if (!wlr_backend_start(server->backend)) {
		wlr_log(WLR_ERROR, "cannot start the backend");
		return false;
	}
	/* for the clients vitrail starts (vt_server_spawn): where to
	 * connect, and which desktop this is (xdg-desktop-portal picks its
	 * backend by it) */
	setenv("WAYLAND_DISPLAY", server->socket, 1);
	setenv("XDG_CURRENT_DESKTOP", "vitrail:wlroots", 1);
	update_background(server);
	return true;
}

void vt_server_reload(struct vt_server *server) {
	if (server->opts.config_path == NULL) {
		return;
	}
	struct vt_config *previous = malloc(sizeof(*previous));
	if (previous == NULL) {
		wlr_log(WLR_ERROR, "out of memory: keeping the configuration");
		return;
	}
	*previous = server->config;
	if (vt_config_load(&server->config, server->opts.config_path, stderr)) {
		if (server->opts.mode_set) {
			server->config.mode = server->opts.mode;
		}
		wlr_log(WLR_INFO, "reloaded %s", server->opts.config_path);
		if (server->config.xwayland != previous->xwayland) {
			wlr_log(WLR_INFO, "xwayland %s: from the next start on",
					server->config.xwayland ? "on" : "off");
		}
		vt_server_apply_config(server);
		vt_outputs_apply_config(server, previous);
		vt_output_management_update(server);
	} else {
		wlr_log(WLR_ERROR, "keeping the previous configuration");
	}
	free(previous);
}

static void stop_children(struct vt_server *server) {
	for (int i = 0; i < server->children_len; i++) {
		if (server->children[i] > 0) {
			kill(-server->children[i], SIGTERM);
		}
	}
	for (int tries = 0; tries < 50; tries++) {
		bool alive = false;
		for (int i = 0; i < server->children_len; i++) {
			if (server->children[i] > 0 &&
					waitpid(server->children[i], NULL, WNOHANG) == 0) {
				alive = true;
			} else {
				server->children[i] = -1;
			}
		}
		if (!alive) {
			break;
		}
		usleep(20000);
	}
	for (int i = 0; i < server->children_len; i++) {
		if (server->children[i] > 0) {
			kill(-server->children[i], SIGKILL);
			waitpid(server->children[i], NULL, 0);
		}
	}
	free(server->children);
	server->children = NULL;
	server->children_len = 0;
}

void vt_server_finish(struct vt_server *server) {
	if (server->display == NULL) {
		return;
	}
	stop_children(server);
	wl_list_remove(&server->reload.link);
	vt_xwayland_finish(server);
	wl_display_destroy_clients(server->display);
	/* images the renderer gives back from here on unlock their
	 * buffers at once (the loop goes with the display) */
	vt_client_dmabuf_releases_finish();
	vt_test_finish(server);
	vt_session_lock_finish(server);
	vt_protocols_finish(server);
	vt_output_management_finish(server);
	vt_scroll_finish(server);
	vt_scene_finish(server);
	vt_presentation_finish(server);
	vt_frame_timing_finish(server);
	vt_commit_queues_finish(server);
	vt_paths_finish(server);
	if (server->exit_timer != NULL) {
		wl_event_source_remove(server->exit_timer);
	}
	if (server->update_idle != NULL) {
		wl_event_source_remove(server->update_idle);
		server->update_idle = NULL;
	}
	vt_outputs_finish(server);
	vt_kiosk_finish(server);
	if (server->seat != NULL) {
		vt_input_finish(server);
	}
	if (server->new_output.link.next != NULL) {
		wl_list_remove(&server->new_output.link);
		wl_list_remove(&server->layout_change.link);
		wl_list_remove(&server->new_surface.link);
		wl_list_remove(&server->new_xdg_surface.link);
		wl_list_remove(&server->keyboard_grab_end.link);
	}
	if (server->engine_source != NULL) {
		wl_event_source_remove(server->engine_source);
		server->engine_source = NULL;
	}
	/* Destroys the outputs (their handlers free vt_output); no more
	 * idle updates or pacer runs from here on. */
	server->loop = NULL;
	if (server->pacer_idle != NULL) {
		wl_event_source_remove(server->pacer_idle);
		server->pacer_idle = NULL;
	}
	wlr_backend_destroy(server->backend);
	if (server->views_output_gone.link.next != NULL) {
		/* the backend's outputs went through them */
		wl_list_remove(&server->views_output_gone.link);
		wl_list_remove(&server->views_output_moved.link);
	}
	wl_display_destroy(server->display);
	vt_layers_finish(server);
	wlr_output_layout_destroy(server->layout);
	wlr_allocator_destroy(server->allocator);
	/* its buffers still alive keep what they need */
	vt_output_dmabufs_destroy(server->output_dmabufs);
	if (server->wlr_renderer != NULL) {
		wlr_renderer_destroy(server->wlr_renderer);
	}
	if (server->surface_renderer != NULL) {
		wlr_renderer_destroy(server->surface_renderer);
	}
	vr_tree_destroy(server->tree);
	vr_engine_destroy(server->engine);
	vr_renderer_destroy(server->renderer);
	vr_cpu_renderer_destroy(server->cpu);
	vt_frame_log_close(server->frame_log);
	server->display = NULL;
}
