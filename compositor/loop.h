/*
 * The event loop's deferred work (loop.c): the tree update once the loop is
 * idle, and the pacers' deferred runs. The lowest layer: anything may
 * schedule; whoever does the work subscribes to the server's signals
 * (server->events.update, server->events.run_pacers), so no caller needs
 * the output code.
 */
#ifndef VITRAIL_LOOP_H
#define VITRAIL_LOOP_H

struct vt_server;

/* Something in the tree changed: update damage once the loop is idle
 * (server->events.update is emitted then). */
void vt_server_schedule_update(struct vt_server *server);
/*
 * Until the event loop is idle, no output starts a frame: requests are
 * kept and the pacers run then (server->pacers_deferred; loop.c emits
 * server->events.run_pacers once the loop is idle). Called at a
 * surface's commit: a frame started inside a commit signal would sample the commit's
 * wp_presentation feedback before wlroots' own commit listener (added
 * after vitrail's, at the client's first feedback request) made it
 * current. The frame draws the new content, the feedback is never
 * sampled and never answered, and a client waiting for it (a nested
 * vitrail's output) waits for ever.
 */
void vt_outputs_defer_pacers(struct vt_server *server);

#endif
