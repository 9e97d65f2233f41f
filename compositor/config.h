#ifndef VITRAIL_CONFIG_H
#define VITRAIL_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
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
/* Key bindings (vitrail(5)): "bind <modifiers+key> <action> [args]". */
#define VT_CONFIG_BINDINGS 64
#define VT_CONFIG_COMMAND 256
/* Modifier bits: the values of wlroots' enum wlr_keyboard_modifier. */
enum vt_config_mod {
	VT_MOD_SHIFT = 1 << 0,
	VT_MOD_CTRL = 1 << 2,
	VT_MOD_ALT = 1 << 3,
	VT_MOD_LOGO = 1 << 6,
};
#define VT_MOD_BINDABLE (VT_MOD_SHIFT | VT_MOD_CTRL | VT_MOD_ALT | VT_MOD_LOGO)

enum vt_config_action {
	VT_ACTION_EXEC, /* command: a shell command line */
	VT_ACTION_CLOSE, /* the focused window */
	VT_ACTION_FOCUS_NEXT,
	VT_ACTION_FOCUS_PREV,
	VT_ACTION_MAXIMIZE, /* toggles */
	VT_ACTION_FULLSCREEN, /* toggles */
	VT_ACTION_RELOAD, /* the config file */
	VT_ACTION_EXIT,
};

struct vt_config_binding {
	uint32_t mods; /* enum vt_config_mod */
	uint32_t keysym; /* xkb_keysym_t, lower case where it has one */
	enum vt_config_action action;
	char command[VT_CONFIG_COMMAND]; /* VT_ACTION_EXEC */
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
	struct vt_config_binding bindings[VT_CONFIG_BINDINGS];
	int bindings_len;
	/* held with the left button: move a window; with the right: resize
	 * it (0: none) */
	uint32_t drag_modifier;
};

/* The rule for app_id, NULL when none (the last matching line wins). */
const struct vt_config_path_rule *vt_config_path_rule(
	const struct vt_config *config, const char *app_id);

/* The binding of keysym with modifiers mods (only VT_MOD_BINDABLE count),
 * NULL when none. */
const struct vt_config_binding *vt_config_binding(
	const struct vt_config *config, uint32_t mods, uint32_t keysym);

void vt_config_defaults(struct vt_config *config);
/* Parse path into *config. On the first bad line, writes
 * "<path>:<line>: <reason>" to err and returns false, leaving *config
 * untouched (the previous config stays in force). */
bool vt_config_load(struct vt_config *config, const char *path, FILE *err);
/* The default config path: $XDG_CONFIG_HOME/vitrail/config or
 * ~/.config/vitrail/config; NULL when it does not exist. Static buffer. */
const char *vt_config_default_path(void);

#endif
