/*
 * The server's loop (loop.c): what runs beside the Wayland clients, below
 * every module that asks for it: the programs vitrail starts.
 */
#ifndef VITRAIL_LOOP_H
#define VITRAIL_LOOP_H

#include <sys/types.h>

struct vt_server;

/* Run command through /bin/sh -c in a session of its own; its pid goes on
 * server->children (reaped by main.c, stopped at the end). -1: no fork. */
pid_t vt_server_spawn(struct vt_server *server, const char *command);

#endif
