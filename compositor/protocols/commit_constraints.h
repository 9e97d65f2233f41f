/*
 * wp_fifo_v1 and wp_commit_timing_v1 (commit_constraints.c): the standard
 * protocols that hold a commit until a refresh or a time, front-ends of
 * the surface's commit queue (commit_queue.c).
 */
#ifndef VITRAIL_COMMIT_CONSTRAINTS_H
#define VITRAIL_COMMIT_CONSTRAINTS_H

#include <stdbool.h>

struct vt_server;

bool vt_commit_constraints_init(struct vt_server *server);

#endif
