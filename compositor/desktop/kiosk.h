/*
 * Kiosk mode (kiosk.c): one application filling the outputs.
 */
#ifndef VITRAIL_KIOSK_H
#define VITRAIL_KIOSK_H

#include <stdbool.h>
#include <sys/types.h>

struct vt_server;
struct vt_output;
struct wlr_box;

bool vt_kiosk_init(struct vt_server *server);
void vt_kiosk_finish(struct vt_server *server);
void vt_kiosk_apply_config(struct vt_server *server);
/* Start the command line's application (a shell command line). */
void vt_kiosk_start_app(struct vt_server *server, const char *command);
/* A child exited: true when it was the application (app_exit applied). */
bool vt_kiosk_child_exited(struct vt_server *server, pid_t pid, int status);
/* Pointer input came (hide_cursor's idle time starts again), or touch. */
void vt_kiosk_pointer_activity(struct vt_server *server);
void vt_kiosk_touch_activity(struct vt_server *server);
/* The output kiosk windows go to (kiosk_output last or a name), NULL when
 * windows are spread over the outputs. */
struct vt_output *vt_kiosk_output(struct vt_server *server);
/* The box a kiosk window fills when it covers every output (kiosk_output
 * extend): true and *box set, else false. */
bool vt_kiosk_fill_box(struct vt_server *server, struct wlr_box *box);

#endif
