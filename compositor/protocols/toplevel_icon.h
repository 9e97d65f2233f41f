/*
 * xdg_toplevel_icon_manager_v1 (toplevel_icon.c): toplevels' icons, kept
 * (vitrail draws none).
 */
#ifndef VITRAIL_TOPLEVEL_ICON_H
#define VITRAIL_TOPLEVEL_ICON_H

#include <stdbool.h>

struct vt_server;

bool vt_toplevel_icon_init(struct vt_server *server);

#endif
