/*
 * The event loop's deferred work: idle sources that emit the server's
 * signals. The tree update and the pacer runs are the output's (output/
 * subscribes), but everything from surfaces up asks for them: asking goes
 * through here, the lowest layer, so that nothing needs the output code
 * to ask.
 */
#include <stddef.h>
#include <wayland-server-core.h>

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
		server->pacer_idle = wl_event_loop_add_idle(server->loop,
			handle_pacer_idle, server);
	}
}
