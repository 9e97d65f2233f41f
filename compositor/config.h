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
	VT_ACTION_WORKSPACE, /* arg: show workspace arg on the current output */
	VT_ACTION_MOVE_TO_WORKSPACE, /* arg: the focused window to it */
	VT_ACTION_FOCUS_OUTPUT, /* arg: enum vt_config_direction */
	VT_ACTION_MOVE_TO_OUTPUT, /* arg: enum vt_config_direction */
	VT_ACTION_MINIMIZE, /* the focused window */
	VT_ACTION_MOVE, /* arg: enum vt_config_way; amount: pixels */
	VT_ACTION_RESIZE, /* arg: 0 width, 1 height; amount: pixels, < 0
					   * shrinks */
};

/* Which way a window moves (bind ... move). */
enum vt_config_way {
	VT_WAY_LEFT,
	VT_WAY_RIGHT,
	VT_WAY_UP,
	VT_WAY_DOWN,
};
#define VT_MOVE_DEFAULT_PX 20

/* Workspaces per output, numbered 1 to this. */
#define VT_WORKSPACES 10

/* Which output, from the current one: next and prev in name order (they
 * wrap around), left and right in the layout (they do not). */
enum vt_config_direction {
	VT_DIR_NEXT,
	VT_DIR_PREV,
	VT_DIR_LEFT,
	VT_DIR_RIGHT,
};

struct vt_config_binding {
	uint32_t mods; /* enum vt_config_mod */
	uint32_t keysym; /* xkb_keysym_t, lower case where it has one */
	enum vt_config_action action;
	int arg; /* a workspace number or enum vt_config_direction */
	int amount; /* VT_ACTION_MOVE, VT_ACTION_RESIZE: pixels */
	char command[VT_CONFIG_COMMAND]; /* VT_ACTION_EXEC */
};

/* Output settings (vitrail(5)): "output <name|*> <setting>...". Each
 * line sets what it names; lines for the same name add up (the last
 * value of a setting wins). */
#define VT_CONFIG_OUTPUTS 32
#define VT_CONFIG_SCALE_MAX 10.0
#define VT_CONFIG_POSITION_MAX 65535

struct vt_config_output {
	char name[VT_CONFIG_STR]; /* "*": every output */
	bool has_mode;
	int width, height;
	int refresh_mhz; /* 0: the output's own, or any */
	bool has_scale;
	double scale;
	bool has_transform;
	int transform; /* enum wl_output_transform */
	bool has_position;
	int x, y;
	bool has_enabled;
	bool enabled;
};

/* What vitrail does when the application of its command line (after
 * "--") exits (vitrail(5), app_exit). */
enum vt_app_exit {
	VT_APP_EXIT_DEFAULT, /* kiosk: exit; desktop: stay */
	VT_APP_EXIT_EXIT, /* with the application's exit status */
	VT_APP_EXIT_RESTART, /* start it again, backing off when it crashes */
	VT_APP_EXIT_STAY,
};

/* Where kiosk windows go (vitrail(5), kiosk_output). */
enum vt_kiosk_output {
	VT_KIOSK_EACH, /* each window fills the output it is placed on */
	VT_KIOSK_EXTEND, /* every window covers all the outputs */
	VT_KIOSK_LAST, /* the output that came last */
	VT_KIOSK_NAMED, /* kiosk_output_name, or the last while it is absent */
};

/* Privileged protocols, by class (vitrail(5), allow): in kiosk mode a
 * class is offered to clients only when allowed. */
enum vt_privilege {
	VT_PRIV_SCREENCOPY = 1 << 0, /* screencopy, export-dmabuf */
	VT_PRIV_VIRTUAL_INPUT = 1 << 1, /* virtual pointer and keyboard */
	VT_PRIV_OUTPUT_MANAGEMENT = 1 << 2, /* wlr-output-management */
	VT_PRIV_OUTPUT_POWER = 1 << 3, /* wlr-output-power-management */
	VT_PRIV_GAMMA = 1 << 4, /* wlr-gamma-control */
	VT_PRIV_DATA_CONTROL = 1 << 5, /* wlr-data-control */
	VT_PRIV_FOREIGN_TOPLEVEL = 1 << 6, /* wlr-foreign-toplevel-management */
	VT_PRIV_INPUT_INHIBIT = 1 << 7, /* wlr-input-inhibitor */
	VT_PRIV_LOCK = 1 << 8, /* ext-session-lock */
	VT_PRIV_ALL = (1 << 9) - 1,
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
	/* who draws window decorations when a client lets vitrail choose:
	 * vitrail (server-side, the default) or the client */
	bool server_decorations;
	enum vt_app_exit app_exit;
	enum vt_kiosk_output kiosk_output;
	char kiosk_output_name[VT_CONFIG_STR];
	/* the cursor: -1 always shown, 0 always hidden, else hidden after
	 * this many ms without pointer input */
	int hide_cursor_ms;
	uint32_t allow; /* enum vt_privilege: allowed in kiosk mode */
	/* the output touch screens are mapped to ("": the one the device
	 * names, else the whole layout) */
	char touch_output[VT_CONFIG_STR];
	/* offer X11 clients an X display (Xwayland); read at start only */
	bool xwayland;
	/* Ctrl+Alt+F1..F12 switch virtual terminals: -1 by the mode (in
	 * desktop mode, not in kiosk mode), 0 never, 1 always */
	int vt_switch;
	struct vt_config_output outputs[VT_CONFIG_OUTPUTS];
	int outputs_len;
};

/* The settings of output name: the "*" lines, then the name's own on top
 * (false when neither exists). */
bool vt_config_output(const struct vt_config *config, const char *name,
		struct vt_config_output *out);

/* Whether Ctrl+Alt+Fn switch virtual terminals under this config. */
bool vt_config_vt_switch(const struct vt_config *config);

/* The class of the privileged protocol global `interface`, 0 when it is
 * none. */
uint32_t vt_privilege_of(const char *interface);
/* Parse "CLASS..." (space or comma separated, "all", "none") into *allow
 * (added to it; "none" clears it; value is modified); NULL or the reason
 * it is bad. */
const char *vt_privileges_parse(char *value, uint32_t *allow);

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
