/*
 * xdg-shell (xdg_shell.c): xdg toplevels, windows of view.c's policy, and
 * xdg popups.
 */
#ifndef VITRAIL_XDG_SHELL_H
#define VITRAIL_XDG_SHELL_H

struct wl_listener;

/* The xdg shell's new_surface (payload: the wlr_xdg_surface): a toplevel
 * becomes a view, a popup goes inside its toplevel or layer surface. */
void vt_view_handle_new_xdg_surface(struct wl_listener *listener, void *data);
/* The seat's keyboard_grab_end (payload: the wlr_seat_keyboard_grab that
 * ended): an xdg popup grab's end gives the keyboard back. */
void vt_view_handle_keyboard_grab_end(struct wl_listener *listener, void *data);

#endif
