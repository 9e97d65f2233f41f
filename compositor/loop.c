/*
 * The server's loop: the programs vitrail starts (key bindings, kiosk
 * mode's application, the command line's startup commands), kept on
 * server->children for main.c to reap and server.c to stop.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <wlr/util/log.h>

#include "loop.h"
#include "server.h"

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
