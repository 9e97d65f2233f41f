/*
 * wp_cursor_shape_manager_v1 (cursor_shape.c): clients name their cursor;
 * vitrail shows the theme's image of that name.
 */
#ifndef VITRAIL_CURSOR_SHAPE_H
#define VITRAIL_CURSOR_SHAPE_H

#include <stdbool.h>

struct vt_server;

/* After the seat exists (vt_input_init). */
bool vt_cursor_shape_init(struct vt_server *server);

#endif
