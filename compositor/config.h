#ifndef VITRAIL_CONFIG_H
#define VITRAIL_CONFIG_H

#include <stdbool.h>
#include <stdio.h>
#include <vitrail/renderer.h>

enum vt_mode {
	VT_MODE_DESKTOP, /* windows at their own size, spread over outputs */
	VT_MODE_KIOSK, /* each window fills its output */
};

#define VT_CONFIG_STR 64
/* Config errors quote at most this many bytes of a line (vitrail(5)). */
#define VT_CONFIG_QUOTE_MAX 80

struct vt_config {
	struct vr_color background;
	enum vt_mode mode;
	char xkb_rules[VT_CONFIG_STR];
	char xkb_model[VT_CONFIG_STR];
	char xkb_layout[VT_CONFIG_STR];
	char xkb_variant[VT_CONFIG_STR];
	char xkb_options[VT_CONFIG_STR];
	int repeat_rate; /* keys per second */
	int repeat_delay; /* ms */
};

void vt_config_defaults(struct vt_config *config);
/* Parse path into *config. On the first bad line, writes
 * "<path>:<line>: <reason>" to err and returns false, leaving *config
 * untouched (the previous config stays in force). */
bool vt_config_load(struct vt_config *config, const char *path, FILE *err);
/* The default config path: $XDG_CONFIG_HOME/vitrail/config or
 * ~/.config/vitrail/config; NULL when it does not exist. Static buffer. */
const char *vt_config_default_path(void);

#endif
