/*
 * Kiosk policy (vitrail(5)): the application of the command line and what
 * happens when it exits (app_exit), which output kiosk windows fill
 * (kiosk_output), the cursor's visibility (hide_cursor), and which
 * privileged protocols clients see in kiosk mode (allow); sandboxed
 * clients (security_context.c) see none of them in any mode.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/util/log.h>

#include "desktop/kiosk.h"
#include "loop.h"
#include "output/output.h"
#include "protocols/security_context.h"
#include "server.h"
#include "util.h"

/* A restart after the application ran less than this is a crash loop:
 * the next waits twice as long as the last, up to RESTART_MAX_MS. */
#define RESTART_QUICK_NS 3000000000ull
#define RESTART_FIRST_MS 250
#define RESTART_MAX_MS 8000

struct vt_kiosk {
	struct vt_server *server;
	char *app_command; /* the command line's application, or NULL */
	pid_t app_pid; /* running, or -1 */
	uint64_t app_started_ns;
	int restart_delay_ms; /* the next quick restart's wait */
	struct wl_event_source *restart_timer;
	struct wl_event_source *cursor_timer;
	bool cursor_timer_armed;
	uint64_t pointer_activity_ns; /* the last pointer input */
	bool cursor_hidden;
};

/* ---- privileged protocols ----------------------------------------------- */

static bool filter_global(const struct wl_client *client,
		const struct wl_global *global, void *data) {
	struct vt_server *server = data;
	const char *name = wl_global_get_interface(global)->name;
	if (vt_security_context_sandboxed(client)) {
		/* whatever the mode and allow say */
		return vt_privilege_of(name) == 0 && !vt_security_context_hidden(name);
	}
	if (server->config.mode != VT_MODE_KIOSK) {
		return true;
	}
	uint32_t class = vt_privilege_of(name);
	return class == 0 ||
			((server->config.allow | server->opts.allow) & class) != 0;
}

/* ---- the application ---------------------------------------------------- */

static enum vt_app_exit app_exit_policy(struct vt_server *server) {
	if (server->config.app_exit != VT_APP_EXIT_DEFAULT) {
		return server->config.app_exit;
	}
	return server->config.mode == VT_MODE_KIOSK ? VT_APP_EXIT_EXIT :
												  VT_APP_EXIT_STAY;
}

static void app_start(struct vt_kiosk *kiosk) {
	kiosk->app_pid = vt_server_spawn(kiosk->server, kiosk->app_command);
	kiosk->app_started_ns = vt_now_ns();
}

static int handle_restart(void *data) {
	struct vt_kiosk *kiosk = data;
	if (kiosk->app_pid < 0) {
		app_start(kiosk);
	}
	return 0;
}

void vt_kiosk_start_app(struct vt_server *server, const char *command) {
	struct vt_kiosk *kiosk = server->kiosk;
	free(kiosk->app_command);
	kiosk->app_command = strdup(command);
	if (kiosk->app_command == NULL) {
		wlr_log(WLR_ERROR, "out of memory");
		return;
	}
	app_start(kiosk);
}

bool vt_kiosk_child_exited(struct vt_server *server, pid_t pid, int status) {
	struct vt_kiosk *kiosk = server->kiosk;
	if (kiosk == NULL || pid != kiosk->app_pid || pid < 0) {
		return false;
	}
	kiosk->app_pid = -1;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	switch (app_exit_policy(server)) {
	case VT_APP_EXIT_EXIT:
		wlr_log(WLR_INFO,
				"the application exited with status %d: "
				"exiting (app_exit exit)",
				code);
		server->exit_status = code;
		wl_display_terminate(server->display);
		break;
	case VT_APP_EXIT_RESTART: {
		uint64_t ran = vt_now_ns() - kiosk->app_started_ns;
		int delay = 0;
		if (ran < RESTART_QUICK_NS) {
			delay = kiosk->restart_delay_ms;
			kiosk->restart_delay_ms =
					delay * 2 < RESTART_MAX_MS ? delay * 2 : RESTART_MAX_MS;
		} else {
			kiosk->restart_delay_ms = RESTART_FIRST_MS;
		}
		wlr_log(WLR_INFO,
				"the application exited with status %d after "
				"%.1f s: restarting it in %d ms (app_exit restart)",
				code, ran / 1e9, delay);
		/* 0 would disarm the timer: 1 ms is at once */
		wl_event_source_timer_update(kiosk->restart_timer,
				delay > 0 ? delay : 1);
		break;
	}
	case VT_APP_EXIT_STAY:
	case VT_APP_EXIT_DEFAULT:
		wlr_log(WLR_INFO, "the application exited with status %d", code);
		break;
	}
	return true;
}

/* ---- the cursor --------------------------------------------------------- */

static void cursor_set_hidden(struct vt_kiosk *kiosk, bool hidden) {
	if (kiosk->cursor_hidden == hidden) {
		return;
	}
	kiosk->cursor_hidden = hidden;
	vr_node_set_enabled(kiosk->server->cursor_node, !hidden);
	vt_server_schedule_update(kiosk->server);
}

static void cursor_timer_set(struct vt_kiosk *kiosk, int ms) {
	/* 0 disarms; a positive time under a millisecond would too */
	wl_event_source_timer_update(kiosk->cursor_timer, ms);
	kiosk->cursor_timer_armed = ms > 0;
}

/* The idle time may have been restarted since the timer was set: it is
 * set again for the rest rather than at every pointer event. */
static int handle_cursor_idle(void *data) {
	struct vt_kiosk *kiosk = data;
	kiosk->cursor_timer_armed = false;
	int ms = kiosk->server->config.hide_cursor_ms;
	if (ms <= 0) {
		return 0;
	}
	uint64_t idle_ms = (vt_now_ns() - kiosk->pointer_activity_ns) / 1000000;
	if (idle_ms >= (uint64_t)ms) {
		cursor_set_hidden(kiosk, true);
	} else {
		cursor_timer_set(kiosk, ms - (int)idle_ms);
	}
	return 0;
}

void vt_kiosk_pointer_activity(struct vt_server *server) {
	struct vt_kiosk *kiosk = server->kiosk;
	if (kiosk == NULL) {
		return;
	}
	int ms = server->config.hide_cursor_ms;
	cursor_set_hidden(kiosk, ms == 0);
	kiosk->pointer_activity_ns = vt_now_ns();
	if (ms > 0 && !kiosk->cursor_timer_armed) {
		cursor_timer_set(kiosk, ms);
	} else if (ms <= 0 && kiosk->cursor_timer_armed) {
		cursor_timer_set(kiosk, 0);
	}
}

void vt_kiosk_touch_activity(struct vt_server *server) {
	struct vt_kiosk *kiosk = server->kiosk;
	if (kiosk != NULL && server->config.hide_cursor_ms >= 0) {
		/* a touch screen's user has no use for the pointer's cursor */
		if (kiosk->cursor_timer_armed) {
			cursor_timer_set(kiosk, 0);
		}
		cursor_set_hidden(kiosk, true);
	}
}

/* ---- outputs ------------------------------------------------------------ */

struct vt_output *vt_kiosk_output(struct vt_server *server) {
	struct vt_config *config = &server->config;
	if (config->mode != VT_MODE_KIOSK ||
			config->kiosk_output == VT_KIOSK_EACH ||
			config->kiosk_output == VT_KIOSK_EXTEND) {
		return NULL;
	}
	if (config->kiosk_output == VT_KIOSK_NAMED) {
		struct vt_output *named =
				vt_output_by_name(server, config->kiosk_output_name);
		if (named != NULL && vt_output_enabled(named)) {
			return named;
		}
	}
	struct vt_output *last = NULL;
	for (struct vt_output *output = vt_output_next(server, NULL);
			output != NULL; output = vt_output_next(server, output)) {
		/* of those there from the start, the last by name */
		if (last == NULL ||
				vt_output_created(output) >= vt_output_created(last)) {
			last = output;
		}
	}
	return last;
}

bool vt_kiosk_fill_box(struct vt_server *server, struct wlr_box *box) {
	if (server->config.mode != VT_MODE_KIOSK ||
			server->config.kiosk_output != VT_KIOSK_EXTEND) {
		return false;
	}
	struct wlr_box *all = wlr_output_layout_get_box(server->layout, NULL);
	if (all == NULL || wlr_box_empty(all)) {
		return false;
	}
	*box = *all;
	return true;
}

/* ---- set-up ------------------------------------------------------------- */

void vt_kiosk_apply_config(struct vt_server *server) {
	struct vt_kiosk *kiosk = server->kiosk;
	if (kiosk == NULL) {
		return;
	}
	vt_kiosk_pointer_activity(server);
	if (app_exit_policy(server) != VT_APP_EXIT_RESTART) {
		wl_event_source_timer_update(kiosk->restart_timer, 0);
	}
}

bool vt_kiosk_init(struct vt_server *server) {
	struct vt_kiosk *kiosk = calloc(1, sizeof(*kiosk));
	if (kiosk == NULL) {
		return false;
	}
	kiosk->server = server;
	kiosk->app_pid = -1;
	kiosk->restart_delay_ms = RESTART_FIRST_MS;
	kiosk->restart_timer =
			wl_event_loop_add_timer(server->loop, handle_restart, kiosk);
	kiosk->cursor_timer =
			wl_event_loop_add_timer(server->loop, handle_cursor_idle, kiosk);
	if (kiosk->restart_timer == NULL || kiosk->cursor_timer == NULL) {
		if (kiosk->restart_timer != NULL) {
			wl_event_source_remove(kiosk->restart_timer);
		}
		free(kiosk);
		return false;
	}
	server->kiosk = kiosk;
	wl_display_set_global_filter(server->display, filter_global, server);
	vt_kiosk_apply_config(server);
	return true;
}

void vt_kiosk_finish(struct vt_server *server) {
	struct vt_kiosk *kiosk = server->kiosk;
	if (kiosk == NULL) {
		return;
	}
	wl_event_source_remove(kiosk->restart_timer);
	wl_event_source_remove(kiosk->cursor_timer);
	free(kiosk->app_command);
	free(kiosk);
	server->kiosk = NULL;
}
