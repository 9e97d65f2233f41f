/*
 * wp_alpha_modifier_v1 (alpha_modifier.c): a surface's alpha multiplier,
 * drawn as its content node's opacity.
 */
#ifndef VITRAIL_ALPHA_MODIFIER_H
#define VITRAIL_ALPHA_MODIFIER_H

#include <stdbool.h>

struct vt_server;

bool vt_alpha_modifier_init(struct vt_server *server);

#endif
