/*
 * ext-session-lock-v1 (session_lock.c): screen lockers.
 */
#ifndef VITRAIL_SESSION_LOCK_H
#define VITRAIL_SESSION_LOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "server.h"
struct wlr_surface;

/* session_lock.c: ext-session-lock-v1 */
bool vt_session_lock_init(struct vt_server *server);
void vt_session_lock_finish(struct vt_server *server);
/* Whether the session is locked (input goes to lock surfaces only): a
 * field session_lock.c keeps, read by the modules below it too. */
static inline bool vt_session_locked(struct vt_server *server) {
	return server->locked;
}
/* Locked: the lock surface at (lx, ly), surface-local *sx, *sy; NULL
 * where none is (or the session is not locked). */
struct wlr_surface *vt_session_lock_surface_at(struct vt_server *server,
		double lx, double ly, double *sx, double *sy);
/* Outputs came, went or moved: lock surfaces and colour follow. */
void vt_session_lock_outputs_changed(struct vt_server *server);
/* The lock's epoch (a new one each time the session locks), 0 when
 * unlocked: a frame records the one its tree showed (output.c). */
uint64_t vt_session_lock_epoch(struct vt_server *server);
/* An output presented a frame of a newer epoch: once every enabled output
 * has shown the lock, the locker gets `locked`. */
void vt_session_lock_shown(struct vt_server *server);

#endif
