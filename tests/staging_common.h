/*
 * What test_staging.c and test_staging_windows.c share (staging_common.c):
 * the globals of the staging protocols, screenshots, protocol errors.
 */
#ifndef VITRAIL_TEST_STAGING_COMMON_H
#define VITRAIL_TEST_STAGING_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-client.h>

#include "harness.h"

struct staging_globals {
	struct wp_alpha_modifier_v1 *alpha;
	struct wp_cursor_shape_manager_v1 *cursor_shape;
	uint32_t cursor_shape_version; /* to bind; 0: the highest offered */
	struct wp_security_context_manager_v1 *security;
	/* every interface offered, space-separated with spaces around */
	char seen[4096];
	uint32_t security_name; /* the security manager's global name */
	struct xdg_wm_dialog_v1 *dialog;
	struct xdg_toplevel_icon_manager_v1 *icon;
	struct wp_single_pixel_buffer_manager_v1 *single_pixel;
};

/* Bind the staging globals offered (and note every interface). */
struct wl_registry *staging_bind(struct wl_display *display,
		struct staging_globals *g);
/* Destroy the globals bound and the registry (NULL: none). */
void staging_release(struct staging_globals *g, struct wl_registry *registry);
/* Whether interface was offered. */
bool staging_seen(const struct staging_globals *g, const char *interface);
/* A screenshot of HEADLESS-1 once everything settled (malloc'd ARGB). */
uint32_t *staging_shot(struct harness *harness, struct harness_vitrail *vitrail,
		const char *name, int32_t *w, int32_t *h);
/* Each channel within tolerance. */
bool staging_pixel_near(uint32_t actual, uint32_t want, int tolerance);
/* The protocol error after a roundtrip (-1: none); *interface its
 * interface. */
int staging_roundtrip_error(struct wl_display *display,
		const struct wl_interface **interface);
/* wl_pointer events a test ignores. */
void staging_pointer_motion(void *data, struct wl_pointer *pointer,
		uint32_t time, wl_fixed_t x, wl_fixed_t y);
void staging_pointer_button(void *data, struct wl_pointer *pointer,
		uint32_t serial, uint32_t time, uint32_t button, uint32_t state);
void staging_pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time,
		uint32_t axis, wl_fixed_t value);

#endif
