/*
 * wp_fractional_scale_v1 (fractional_scale.c).
 */
#ifndef VITRAIL_FRACTIONAL_SCALE_H
#define VITRAIL_FRACTIONAL_SCALE_H

#include <stdbool.h>

struct vt_server;
struct wlr_output;
struct wlr_surface;

bool vt_fractional_scale_init(struct vt_server *server);
/* The surface entered output: its preferred fractional scale is that
 * output's. */
void vt_fractional_scale_entered(struct wlr_surface *surface,
		struct wlr_output *output);

#endif
