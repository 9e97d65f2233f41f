/*
 * wp_content_type_v1 (content_type.c): surfaces' content type hints.
 */
#ifndef VITRAIL_CONTENT_TYPE_H
#define VITRAIL_CONTENT_TYPE_H

#include <stdbool.h>

struct vt_server;

bool vt_content_type_init(struct vt_server *server);

#endif
