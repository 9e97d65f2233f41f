/*
 * What the test-staging programs share (staging_common.h).
 */
#define _GNU_SOURCE // asprintf
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>
#include <vitrail/renderer.h>

#include "alpha-modifier-v1-client-protocol.h"
#include "cursor-shape-v1-client-protocol.h"
#include "harness.h"
#include "security-context-v1-client-protocol.h"
#include "single-pixel-buffer-v1-client-protocol.h"
#include "staging_common.h"
#include "xdg-dialog-v1-client-protocol.h"
#include "xdg-toplevel-icon-v1-client-protocol.h"

static void staging_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct staging_globals *g = data;
	if (strcmp(interface, wp_alpha_modifier_v1_interface.name) == 0) {
		g->alpha = wl_registry_bind(registry, name,
				&wp_alpha_modifier_v1_interface, 1);
	} else if (strcmp(interface, wp_cursor_shape_manager_v1_interface.name) ==
			0) {
		uint32_t v = g->cursor_shape_version != 0 ? g->cursor_shape_version :
													version;
		g->cursor_shape = wl_registry_bind(registry, name,
				&wp_cursor_shape_manager_v1_interface, v);
	} else if (strcmp(interface,
					   wp_security_context_manager_v1_interface.name) == 0) {
		g->security_name = name;
		g->security = wl_registry_bind(registry, name,
				&wp_security_context_manager_v1_interface, 1);
	}
	if (strcmp(interface, xdg_toplevel_icon_manager_v1_interface.name) == 0) {
		g->icon = wl_registry_bind(registry, name,
				&xdg_toplevel_icon_manager_v1_interface, 1);
	} else if (strcmp(interface,
					   wp_single_pixel_buffer_manager_v1_interface.name) == 0) {
		g->single_pixel = wl_registry_bind(registry, name,
				&wp_single_pixel_buffer_manager_v1_interface, 1);
	}
	if (strcmp(interface, xdg_wm_dialog_v1_interface.name) == 0) {
		g->dialog = wl_registry_bind(registry, name,
				&xdg_wm_dialog_v1_interface, 1);
	}
	if (g->seen[0] == '\0') {
		strcpy(g->seen, " ");
	}
	strncat(g->seen, interface, sizeof(g->seen) - strlen(g->seen) - 2);
	strcat(g->seen, " ");
}

bool staging_seen(const struct staging_globals *g, const char *interface) {
	char quoted[128];
	snprintf(quoted, sizeof(quoted), " %s ", interface);
	return strstr(g->seen, quoted) != NULL;
}

static void staging_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener staging_registry_listener = {
	.global = staging_global,
	.global_remove = staging_global_remove,
};

struct wl_registry *staging_bind(struct wl_display *display,
		struct staging_globals *g) {
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &staging_registry_listener, g);
	ck_assert_int_ge(wl_display_roundtrip(display), 0);
	return registry;
}

/* A screenshot of HEADLESS-1 once everything settled (malloc'd ARGB). */
uint32_t *staging_shot(struct harness *harness, struct harness_vitrail *vitrail,
		const char *name, int32_t *w, int32_t *h) {
	harness_settle(vitrail->conn);
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/%s.png", harness->out_dir, name) > 0);
	ck_assert_int_eq(harness_grim(harness, vitrail, "HEADLESS-1", path), 0);
	uint32_t *pixels = vr_png_read(path, w, h);
	ck_assert_msg(pixels != NULL, "cannot read %s", path);
	free(path);
	return pixels;
}

bool staging_pixel_near(uint32_t actual, uint32_t want, int tolerance) {
	for (int shift = 0; shift < 32; shift += 8) {
		if (abs((int)((actual >> shift) & 0xff) -
					(int)((want >> shift) & 0xff)) > tolerance) {
			return false;
		}
	}
	return true;
}

/* The protocol error of the connection after a roundtrip (-1: none);
 * *interface its interface. */
int staging_roundtrip_error(struct wl_display *display,
		const struct wl_interface **interface) {
	if (wl_display_roundtrip(display) >= 0) {
		return -1;
	}
	uint32_t id;
	return (int)wl_display_get_protocol_error(display, interface, &id);
}

void staging_pointer_motion(void *data, struct wl_pointer *pointer,
		uint32_t time, wl_fixed_t x, wl_fixed_t y) {
}
void staging_pointer_button(void *data, struct wl_pointer *pointer,
		uint32_t serial, uint32_t time, uint32_t button, uint32_t state) {
}
void staging_pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time,
		uint32_t axis, wl_fixed_t value) {
}

void staging_release(struct staging_globals *g, struct wl_registry *registry) {
	if (g->alpha != NULL) {
		wp_alpha_modifier_v1_destroy(g->alpha);
	}
	if (g->cursor_shape != NULL) {
		wp_cursor_shape_manager_v1_destroy(g->cursor_shape);
	}
	if (g->security != NULL) {
		wp_security_context_manager_v1_destroy(g->security);
	}
	if (g->dialog != NULL) {
		xdg_wm_dialog_v1_destroy(g->dialog);
	}
	if (g->icon != NULL) {
		xdg_toplevel_icon_manager_v1_destroy(g->icon);
	}
	if (g->single_pixel != NULL) {
		wp_single_pixel_buffer_manager_v1_destroy(g->single_pixel);
	}
	*g = (struct staging_globals){ 0 };
	if (registry != NULL) {
		wl_registry_destroy(registry);
	}
}
