/*
 * The server's loop: the event loop's deferred work, idle sources that
 * emit the server's signals (the tree update and the pacer runs are the
 * output's: output/ subscribes, but everything from surfaces up asks for
 * them, through here, so that nothing needs the output code to ask), and
 * the programs vitrail starts (key bindings, kiosk mode's application, the
 * command line's startup commands), kept on server->children for main.c
 * to reap and server.c to stop.
 */
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>

#include "loop.h"
#include "server.h"

static void handle_update_idle(void *data) {
	struct vt_server *server = data;
	server->update_idle = NULL;
	wl_signal_emit(&server->events.update, server);
}

void vt_server_schedule_update(struct vt_server *server) {
	if (server->update_idle == NULL && server->loop != NULL) {
		server->update_idle = wl_event_loop_add_idle(server->loop,
				handle_update_idle, server);
	}
}

static void handle_pacer_idle(void *data) {
	struct vt_server *server = data;
	server->pacer_idle = NULL;
	server->pacers_deferred = false;
	wl_signal_emit(&server->events.run_pacers, server);
}

void vt_outputs_defer_pacers(struct vt_server *server) {
	if (server->loop == NULL) {
		return;
	}
	server->pacers_deferred = true;
	if (server->pacer_idle == NULL) {
		server->pacer_idle =
				wl_event_loop_add_idle(server->loop, handle_pacer_idle, server);
	}
}

pid_t vt_server_spawn(struct vt_server *server, const char *command) {
	pid_t pid = fork();
	if (pid < 0) {
		wlr_log_errno(WLR_ERROR, "fork");
		return -1;
	}
	if (pid == 0) {
		sigset_t set;
		sigemptyset(&set);
		sigprocmask(SIG_SETMASK, &set, NULL);
		setsid();
		execl("/bin/sh", "/bin/sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	/* a reaped child's slot first (a kiosk application restarted for
	 * hours must not grow the list) */
	for (int i = 0; i < server->children_len; i++) {
		if (server->children[i] <= 0) {
			server->children[i] = pid;
			wlr_log(WLR_INFO, "started '%s' (pid %d)", command, (int)pid);
			return pid;
		}
	}
	pid_t *children = realloc(server->children,
			(size_t)(server->children_len + 1) * sizeof(*children));
	if (children != NULL) {
		server->children = children;
		server->children[server->children_len++] = pid;
	}
	wlr_log(WLR_INFO, "started '%s' (pid %d)", command, (int)pid);
	return pid;
}
