/*
 * The protocols wlroots implements, configured with vitrail's policy
 * (protocols.c sets them up, one file each): decorations, activation,
 * idle, pointer constraints, gestures, foreign toplevels, text input,
 * tablets, output power, the input inhibitor, and the limits on clients.
 */
#ifndef VITRAIL_PROTOCOLS_H
#define VITRAIL_PROTOCOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <wlr/types/wlr_input_inhibitor.h>

#include "server.h"

struct vt_view;
struct wl_client;
struct wlr_input_device;

/* protocols.c: the protocols wlroots implements, and vitrail's policy */
bool vt_protocols_init(struct vt_server *server);
void vt_protocols_finish(struct vt_server *server);
/* The config changed: the KDE server-decoration default follows it. */
void vt_protocols_apply_config(struct vt_server *server);
/* Any input event: idle timers start again. */
void vt_protocols_input_activity(struct vt_server *server);
/* A pointer device moved by (*dx, *dy): relative motion goes to clients;
 * false when the cursor must not move (a locked pointer); a confined
 * pointer's move is shortened to stop at the edge of its region. */
bool vt_protocols_pointer_motion(struct vt_server *server, uint32_t time_msec,
		double *dx, double *dy, double dx_unaccel, double dy_unaccel);
/* Whether a client may have input focus (not while another client holds
 * the input inhibitor): read from the manager protocols.c leaves on the
 * server, so that the windows below ask without calling up. */
static inline bool vt_protocols_client_allowed(struct vt_server *server,
		struct wl_client *client) {
	struct wlr_input_inhibit_manager *inhibit = server->input_inhibit;
	return inhibit == NULL || inhibit->active_client == NULL ||
			inhibit->active_client == client;
}
/* Whether the surface with keyboard focus inhibits vitrail's key
 * bindings (keyboard-shortcuts-inhibit-v1, its inhibitor active). */
bool vt_protocols_shortcuts_inhibited(struct vt_server *server);
/* A tablet-tool device of the backend joins the seat. */
void vt_protocols_add_tablet(struct vt_server *server,
		struct wlr_input_device *device);

/* ... and so do the blanks of outputs powered off (protocols.c). */
void vt_protocols_outputs_changed(struct vt_server *server);

#endif
