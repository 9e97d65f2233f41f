/*
 * wlr-output-management (output_management.c): wlr-randr, kanshi and
 * their like read every output's state and test or apply new ones.
 */
#ifndef VITRAIL_OUTPUT_MANAGEMENT_H
#define VITRAIL_OUTPUT_MANAGEMENT_H

#include <stdbool.h>

struct vt_server;

bool vt_output_management_init(struct vt_server *server);
void vt_output_management_finish(struct vt_server *server);
/* Outputs changed (came, went, moved, changed mode, scale, transform or
 * were enabled or disabled): clients hear of the new state once the
 * event loop is idle. */
void vt_output_management_update(struct vt_server *server);

#endif
