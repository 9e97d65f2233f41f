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
/* path rules (vitrail(5)) */
#define VT_CONFIG_PATH_RULES 32
#define VT_TEARING_BOX_DEFAULT 200
/* scroll regions (vitrail(5)): the extended frame's factor N, and the
 * fling's time constant */
#define VT_SCROLL_EXTEND_DEFAULT 2.0
#define VT_SCROLL_FLING_MS_DEFAULT 350

enum vt_config_path {
	VT_CONFIG_PATH_VSYNC,
	VT_CONFIG_PATH_PRE_RENDER,
	VT_CONFIG_PATH_LOW_LATENCY,
};

/* "path <app_id> <path> [tearing]": the path of a client's surfaces
 * (unless it chooses one through vitrail_frame_timing_v1). */
struct vt_config_path_rule {
	char app_id[VT_CONFIG_STR];
	enum vt_config_path path;
	bool tearing;
};
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
	struct vt_config_path_rule path_rules[VT_CONFIG_PATH_RULES];
	int path_rules_len;
	int tearing_box; /* PAR's box around the pointer, pixels */
	double scroll_extend; /* N of extended frames, (1, 2.5] */
	int scroll_fling_ms; /* the fling's velocity decays as exp(-t/this) */
};

/* The rule for app_id, NULL when none (the last matching line wins). */
const struct vt_config_path_rule *vt_config_path_rule(
	const struct vt_config *config, const char *app_id);

void vt_config_defaults(struct vt_config *config);
/* Parse path into *config. On the first bad line, writes
 * "<path>:<line>: <reason>" to err and returns false, leaving *config
 * untouched (the previous config stays in force). */
bool vt_config_load(struct vt_config *config, const char *path, FILE *err);
/* The default config path: $XDG_CONFIG_HOME/vitrail/config or
 * ~/.config/vitrail/config; NULL when it does not exist. Static buffer. */
const char *vt_config_default_path(void);

#endif
