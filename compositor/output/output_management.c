/*
 * wlr-output-management: the outputs' state for clients, and changes to it.
 *
 * wlroots implements the protocol (its errors: a head configured twice or
 * not at all, a configuration used twice, an invalid mode, custom mode,
 * transform or scale); vitrail publishes the state (every output vitrail
 * drives, enabled or not: its modes, current mode, position in the layout,
 * scale, transform) whenever it changes, and tests and applies
 * configurations:
 * - test: every head's state is set pending on its wlr_output and tested
 *   by the backend, then rolled back;
 * - apply: the same test first, for all heads; then each output commits
 *   its state (mode or custom mode, scale, transform, enabled). A position
 *   that differs from where the output is now pins it there in the layout
 *   (otherwise outputs stay side by side, left to right). A commit that
 *   fails sends failed; the outputs keep what was applied.
 * Mode changes reach output.c through the output's mode event (the frame
 * pacing takes the new refresh period); enabling and disabling through
 * its commit event.
 */
#include <stdlib.h>
#include <wlr/backend/drm.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_output_management_v1.h>
#include <wlr/util/log.h>

#include "output/output.h"
#include "output/output_management.h"
#include "server.h"

/* What vitrail accepts of a custom mode: a side of at most 8192 pixels
 * (render targets and output buffers are allocated whole: 256 MiB each at
 * 8192x8192), and 0 (the backend picks) or, as --refresh, 1 to 1000 Hz
 * (the vblank model of a headless output ticks at that rate). */
#define CUSTOM_SIDE_MAX 8192
#define CUSTOM_REFRESH_MIN_MHZ 1000
#define CUSTOM_REFRESH_MAX_MHZ 1000000

struct vt_output_management {
	struct vt_server *server;
	struct wlr_output_manager_v1 *manager;
	struct wl_event_source *update_idle;
	struct wl_listener apply;
	struct wl_listener test;
	struct wl_listener destroy;
};

static struct vt_output_management *management_of(struct vt_server *server) {
	return server->output_management;
}

/* Publish every output's current state. */
static void send_state(struct vt_output_management *management) {
	struct vt_server *server = management->server;
	struct wlr_output_configuration_v1 *config =
			wlr_output_configuration_v1_create();
	if (config == NULL) {
		return;
	}
	for (struct vt_output *output = vt_output_next_any(server, NULL);
			output != NULL; output = vt_output_next_any(server, output)) {
		struct wlr_output *wlr_output = vt_output_wlr(output);
		struct wlr_output_configuration_head_v1 *head =
				wlr_output_configuration_head_v1_create(config, wlr_output);
		if (head == NULL) {
			wlr_output_configuration_v1_destroy(config);
			return;
		}
		head->state.enabled = vt_output_enabled(output);
		struct wlr_box box = vt_output_last_box(output);
		head->state.x = box.x;
		head->state.y = box.y;
	}
	/* takes the configuration */
	wlr_output_manager_v1_set_configuration(management->manager, config);
}

static void handle_update_idle(void *data) {
	struct vt_output_management *management = data;
	management->update_idle = NULL;
	send_state(management);
}

void vt_output_management_update(struct vt_server *server) {
	struct vt_output_management *management = management_of(server);
	if (management == NULL || management->update_idle != NULL ||
			server->loop == NULL) {
		return;
	}
	management->update_idle = wl_event_loop_add_idle(server->loop,
			handle_update_idle, management);
}

/* Only DRM outputs can be disabled in wlroots 0.15: vitrail disables the
 * others (headless, nested windows) itself (vt_output_set_soft_disabled). */
static bool soft_disable(struct wlr_output *wlr_output) {
	return !wlr_output_is_drm(wlr_output);
}

/* Set a head's state pending on its output. */
static void stage_head(struct wlr_output_configuration_head_v1 *head) {
	struct wlr_output *wlr_output = head->state.output;
	if (!head->state.enabled && soft_disable(wlr_output)) {
		return;
	}
	wlr_output_enable(wlr_output, head->state.enabled);
	if (!head->state.enabled) {
		return;
	}
	if (head->state.mode != NULL) {
		wlr_output_set_mode(wlr_output, head->state.mode);
	} else if (head->state.custom_mode.width > 0 &&
			head->state.custom_mode.height > 0) {
		wlr_output_set_custom_mode(wlr_output, head->state.custom_mode.width,
				head->state.custom_mode.height,
				head->state.custom_mode.refresh);
	}
	wlr_output_set_scale(wlr_output, head->state.scale);
	wlr_output_set_transform(wlr_output, head->state.transform);
}

/* Stage and test every head; everything is rolled back. */
static bool test_config(struct wlr_output_configuration_v1 *config) {
	bool ok = true;
	struct wlr_output_configuration_head_v1 *head;
	wl_list_for_each(head, &config->heads, link) {
		struct wlr_output *wlr_output = head->state.output;
		if (wlr_output->data == NULL) {
			wlr_log(WLR_INFO,
					"output configuration: %s is not one of "
					"vitrail's outputs",
					wlr_output->name);
			ok = false;
			continue;
		}
		if (head->state.enabled && head->state.mode == NULL &&
				(head->state.custom_mode.width > CUSTOM_SIDE_MAX ||
						head->state.custom_mode.height > CUSTOM_SIDE_MAX ||
						(head->state.custom_mode.refresh != 0 &&
								(head->state.custom_mode.refresh <
												CUSTOM_REFRESH_MIN_MHZ ||
										head->state.custom_mode.refresh >
												CUSTOM_REFRESH_MAX_MHZ)))) {
			wlr_log(WLR_INFO,
					"output configuration: %s: custom mode "
					"%dx%d@%d mHz out of vitrail's range (sides up to %d, "
					"1 to 1000 Hz)",
					wlr_output->name, head->state.custom_mode.width,
					head->state.custom_mode.height,
					head->state.custom_mode.refresh, CUSTOM_SIDE_MAX);
			ok = false;
			continue;
		}
		stage_head(head);
		if (!wlr_output_test(wlr_output)) {
			wlr_log(WLR_INFO,
					"output configuration: %s rejects the "
					"state asked",
					wlr_output->name);
			ok = false;
		}
		wlr_output_rollback(wlr_output);
	}
	return ok;
}

static bool apply_config(struct vt_output_management *management,
		struct wlr_output_configuration_v1 *config) {
	if (!test_config(config)) {
		return false;
	}
	struct vt_server *server = management->server;
	/* which heads ask for a new position, against where the outputs
	 * are before any commit moves them */
	int nheads = wl_list_length(&config->heads);
	bool *moved = calloc((size_t)nheads + 1, sizeof(*moved));
	if (moved == NULL) {
		return false;
	}
	int i = 0;
	struct wlr_output_configuration_head_v1 *head;
	wl_list_for_each(head, &config->heads, link) {
		struct vt_output *output = head->state.output->data;
		struct wlr_box box = output != NULL ? vt_output_last_box(output) :
											  (struct wlr_box){ 0 };
		/* wlroots sends no position for a disabled head, so clients
		 * (wlr-randr) ask for 0,0 when they enable one: that means
		 * where it was */
		bool enabling = output != NULL && !vt_output_enabled(output) &&
				head->state.enabled;
		moved[i++] = (box.x != head->state.x || box.y != head->state.y) &&
				!(enabling && head->state.x == 0 && head->state.y == 0);
	}
	bool ok = true;
	wl_list_for_each(head, &config->heads, link) {
		struct wlr_output *wlr_output = head->state.output;
		stage_head(head);
		if (!wlr_output_commit(wlr_output)) {
			wlr_log(WLR_ERROR,
					"output configuration: %s failed to "
					"commit",
					wlr_output->name);
			wlr_output_rollback(wlr_output);
			ok = false;
		}
	}
	/* enabled or disabled by vitrail alone; positions: a new one pins
	 * the output there (an output enabled again keeps its place) */
	i = 0;
	wl_list_for_each(head, &config->heads, link) {
		struct wlr_output *wlr_output = head->state.output;
		struct vt_output *output = wlr_output->data;
		bool new_position = moved[i++];
		if (output == NULL) {
			continue;
		}
		if (soft_disable(wlr_output) &&
				vt_output_enabled(output) != head->state.enabled) {
			vt_output_set_soft_disabled(output, !head->state.enabled);
		}
		if (!head->state.enabled) {
			continue;
		}
		if (new_position) {
			vt_output_set_position(output, true, head->state.x, head->state.y);
		}
	}
	free(moved);
	vt_outputs_arrange(server);
	return ok;
}

static void handle_apply(struct wl_listener *listener, void *data) {
	struct vt_output_management *management =
			wl_container_of(listener, management, apply);
	struct wlr_output_configuration_v1 *config = data;
	if (apply_config(management, config)) {
		wlr_output_configuration_v1_send_succeeded(config);
	} else {
		wlr_output_configuration_v1_send_failed(config);
	}
	wlr_output_configuration_v1_destroy(config);
	/* whatever happened, clients hear of the state now */
	vt_output_management_update(management->server);
}

static void handle_test(struct wl_listener *listener, void *data) {
	struct vt_output_management *management =
			wl_container_of(listener, management, test);
	struct wlr_output_configuration_v1 *config = data;
	if (test_config(config)) {
		wlr_output_configuration_v1_send_succeeded(config);
	} else {
		wlr_output_configuration_v1_send_failed(config);
	}
	wlr_output_configuration_v1_destroy(config);
}

static void handle_destroy(struct wl_listener *listener, void *data) {
	struct vt_output_management *management =
			wl_container_of(listener, management, destroy);
	wl_list_remove(&management->apply.link);
	wl_list_remove(&management->test.link);
	wl_list_remove(&management->destroy.link);
	wl_list_init(&management->apply.link);
	wl_list_init(&management->test.link);
	wl_list_init(&management->destroy.link);
	management->manager = NULL;
}

bool vt_output_management_init(struct vt_server *server) {
	struct vt_output_management *management = calloc(1, sizeof(*management));
	if (management == NULL) {
		return false;
	}
	management->server = server;
	management->manager = wlr_output_manager_v1_create(server->display);
	if (management->manager == NULL) {
		free(management);
		return false;
	}
	management->apply.notify = handle_apply;
	wl_signal_add(&management->manager->events.apply, &management->apply);
	management->test.notify = handle_test;
	wl_signal_add(&management->manager->events.test, &management->test);
	management->destroy.notify = handle_destroy;
	wl_signal_add(&management->manager->events.destroy, &management->destroy);
	server->output_management = management;
	return true;
}

void vt_output_management_finish(struct vt_server *server) {
	struct vt_output_management *management = management_of(server);
	if (management == NULL) {
		return;
	}
	if (management->update_idle != NULL) {
		wl_event_source_remove(management->update_idle);
	}
	/* the manager itself goes with the display */
	wl_list_remove(&management->apply.link);
	wl_list_remove(&management->test.link);
	wl_list_remove(&management->destroy.link);
	server->output_management = NULL;
	free(management);
}
