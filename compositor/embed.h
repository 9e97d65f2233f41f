/*
 * vitrail embedded in a host process (embed.c): the server on a compositor
 * thread of its own; the host reaches it only through vt_embedded_call().
 */
#ifndef VITRAIL_EMBED_H
#define VITRAIL_EMBED_H

#include "server.h"

struct vt_embedded;

/* Runs on the compositor thread, the only one that may touch the server. */
typedef void (*vt_embedded_fn)(struct vt_server *server, void *data);

/* Start the server with these options and config on a new thread and wait
 * until it runs (NULL: it could not start). The thread handles no
 * asynchronous signals. */
struct vt_embedded *vt_embedded_start(const struct vt_options *opts,
		const struct vt_config *config);
/* Run fn(server, data) on the compositor thread and wait for it. */
void vt_embedded_call(struct vt_embedded *embedded, vt_embedded_fn fn,
		void *data);
/* Stop the event loop, tear the server down, join the thread and free
 * everything. NULL is allowed. */
void vt_embedded_stop(struct vt_embedded *embedded);

#endif
