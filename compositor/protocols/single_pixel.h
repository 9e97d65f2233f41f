/*
 * wp_single_pixel_buffer_manager_v1 (single_pixel.c).
 */
#ifndef VITRAIL_SINGLE_PIXEL_H
#define VITRAIL_SINGLE_PIXEL_H

#include <stdbool.h>

struct vt_server;

bool vt_single_pixel_init(struct vt_server *server);

#endif
