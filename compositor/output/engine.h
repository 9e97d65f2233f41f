/*
 * The rendering engine the outputs draw with (engine.c): the Vulkan
 * renderer's, the CPU backend's or the reference renderer's, chosen at
 * start and replaced when the Vulkan device is lost.
 */
#ifndef VITRAIL_OUTPUT_ENGINE_H
#define VITRAIL_OUTPUT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

struct vt_server;

/* Stop watching and destroy the Vulkan renderer (after the outputs let go
 * of its targets and buffers); server->renderer is NULL afterwards. */
void vt_server_drop_renderer(struct vt_server *server);
/* The engine that draws outputs from now on: the Vulkan renderer's, else
 * the CPU engine's, else the reference renderer's. */
bool vt_server_set_engine(struct vt_server *server);
/* The renderer's name for messages and statistics. */
const char *vt_server_renderer_name(struct vt_server *server);
/* Start the CPU backend (server->cpu) unless it runs; false when its
 * threads cannot start (the reference renderer draws then). */
bool vt_server_use_cpu_backend(struct vt_server *server);

/* --render-backend auto on a software Vulkan device: the backend that
 * draws a UI-like frame of the default output size faster (the other one
 * is dropped). */
void vt_server_choose_backend(struct vt_server *server);

/* The Vulkan device's render node opened read-write (its path in path,
 * path_len bytes, when not NULL); -1 where there is none (a software
 * device, the CPU engine) or it does not open (logged). */
int vt_server_render_node_open(struct vt_server *server, char *path,
		size_t path_len);

#endif
