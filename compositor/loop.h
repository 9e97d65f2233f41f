/*
 * The server's loop (loop.c), the lowest layer: the deferred work anything
 * may ask for — the tree update once the loop is idle, the pacers'
 * deferred runs — and the programs vitrail starts. Whoever does the
 * deferred work subscribes to the server's signals
 * (server->events.update, server->events.run_pacers), so no caller needs
 * the output code.
 */
#ifndef VITRAIL_LOOP_H
#define VITRAIL_LOOP_H

#include <sys/types.h>

struct vt_server;

/* Something in the tree changed: update damage once the loop is idle
 * (server->events.update is emitted then). */
void vt_server_schedule_update(struct vt_server *server);
/*
 * Until the event loop is idle, no output starts a frame: requests are
 * kept and the pacers run then (server->pacers_deferred; loop.c emits
 * server->events.run_pacers once the loop is idle). Called at a
 * surface's commit: a frame started inside a commit signal would sample
 * the surface before every commit listener ran (the feedbacks of
 * wp_presentation and vitrail_frame_timing_v1 are applied by listeners
 * of the surface's events.commit); the frame would draw the new content
 * without its feedback, never answered, and a client waiting for it (a
 * nested vitrail's output) would wait for ever.
 */
void vt_outputs_defer_pacers(struct vt_server *server);
/* Run command through /bin/sh -c in a session of its own; its pid goes on
 * server->children (reaped by main.c, stopped at the end). -1: no fork. */
pid_t vt_server_spawn(struct vt_server *server, const char *command);

#endif
