/*
 * ext_foreign_toplevel_list_v1 (ext_foreign_toplevel_list.c): the mapped
 * toplevels of every client, each with an identifier never used again, its
 * title and app_id. A privileged global (class foreign-toplevel).
 */
#ifndef VITRAIL_EXT_FOREIGN_TOPLEVEL_LIST_H
#define VITRAIL_EXT_FOREIGN_TOPLEVEL_LIST_H

#include <stdbool.h>

struct vt_server;

/* Before the first view maps; the state goes with the display. */
bool vt_ext_foreign_toplevel_list_init(struct vt_server *server);

#endif
