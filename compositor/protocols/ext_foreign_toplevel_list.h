/*
 * ext_foreign_toplevel_list_v1 (ext_foreign_toplevel_list.c): the mapped
 * toplevels of every client, each with an identifier never used again, its
 * title and app_id. A privileged global (class foreign-toplevel).
 */
#ifndef VITRAIL_EXT_FOREIGN_TOPLEVEL_LIST_H
#define VITRAIL_EXT_FOREIGN_TOPLEVEL_LIST_H

#include <stdbool.h>

struct vt_server;
struct vt_view;
struct wl_resource;

/* Before the first view maps; the state goes with the display. */
bool vt_ext_foreign_toplevel_list_init(struct vt_server *server);
/* The window of an ext_foreign_toplevel_handle_v1 resource: NULL once it
 * is closed (the handle is inert), or when resource is not a handle. */
struct vt_view *vt_ext_foreign_toplevel_handle_view(
		struct wl_resource *resource);

#endif
