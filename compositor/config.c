#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <xkbcommon/xkbcommon.h>

#include "config.h"

void vt_config_defaults(struct vt_config *config) {
	*config = (struct vt_config){
		.background = { 0x29 / 255.0f, 0x30 / 255.0f, 0x3a / 255.0f, 1.0f },
		.mode = VT_MODE_DESKTOP,
		.repeat_rate = 25,
		.repeat_delay = 600,
		.tearing_box = VT_TEARING_BOX_DEFAULT,
		.scroll_extend = VT_SCROLL_EXTEND_DEFAULT,
		.scroll_fling_ms = VT_SCROLL_FLING_MS_DEFAULT,
		.drag_modifier = VT_MOD_LOGO,
		.server_decorations = true,
		.hide_cursor_ms = -1,
		.xwayland = true,
		.vt_switch = -1,
	};
}

bool vt_config_vt_switch(const struct vt_config *config) {
	if (config->vt_switch >= 0) {
		return config->vt_switch == 1;
	}
	return config->mode == VT_MODE_DESKTOP;
}

static const struct {
	const char *name;
	uint32_t bit;
	const char *interfaces[5];
} privileges[] = {
	{ "screencopy", VT_PRIV_SCREENCOPY,
			{ "zwlr_screencopy_manager_v1", "zwlr_export_dmabuf_manager_v1",
					"ext_image_copy_capture_manager_v1",
					"ext_output_image_capture_source_manager_v1",
					"ext_foreign_toplevel_image_capture_source_manager_v1" } },
	{ "virtual-input", VT_PRIV_VIRTUAL_INPUT,
			{ "zwlr_virtual_pointer_manager_v1",
					"zwp_virtual_keyboard_manager_v1" } },
	{ "output-management", VT_PRIV_OUTPUT_MANAGEMENT,
			{ "zwlr_output_manager_v1" } },
	{ "output-power", VT_PRIV_OUTPUT_POWER,
			{ "zwlr_output_power_manager_v1" } },
	{ "gamma", VT_PRIV_GAMMA, { "zwlr_gamma_control_manager_v1" } },
	{ "data-control", VT_PRIV_DATA_CONTROL,
			{ "zwlr_data_control_manager_v1" } },
	{ "foreign-toplevel", VT_PRIV_FOREIGN_TOPLEVEL,
			{ "zwlr_foreign_toplevel_manager_v1",
					"ext_foreign_toplevel_list_v1" } },
	{ "input-inhibit", VT_PRIV_INPUT_INHIBIT,
			{ "zwlr_input_inhibit_manager_v1" } },
	{ "lock", VT_PRIV_LOCK, { "ext_session_lock_manager_v1" } },
};

uint32_t vt_privilege_of(const char *interface) {
	for (size_t i = 0; i < sizeof(privileges) / sizeof(privileges[0]); i++) {
		for (int j = 0; j < 5 && privileges[i].interfaces[j] != NULL; j++) {
			if (strcmp(interface, privileges[i].interfaces[j]) == 0) {
				return privileges[i].bit;
			}
		}
	}
	return 0;
}

const char *vt_privileges_parse(char *value, uint32_t *allow) {
	char *save = NULL;
	for (char *tok = strtok_r(value, " \t,", &save); tok != NULL;
			tok = strtok_r(NULL, " \t,", &save)) {
		if (strcmp(tok, "all") == 0) {
			*allow = VT_PRIV_ALL;
			continue;
		} else if (strcmp(tok, "none") == 0) {
			*allow = 0;
			continue;
		}
		size_t i = 0;
		while (i < sizeof(privileges) / sizeof(privileges[0]) &&
				strcmp(tok, privileges[i].name) != 0) {
			i++;
		}
		if (i == sizeof(privileges) / sizeof(privileges[0])) {
			return "expected all, none or protocol classes: screencopy, "
				   "virtual-input, output-management, output-power, gamma, "
				   "data-control, foreign-toplevel, input-inhibit, lock";
		}
		*allow |= privileges[i].bit;
	}
	return NULL;
}

static bool copy_str_n(char *dst, const char *src, size_t size) {
	if (strlen(src) >= size) {
		return false;
	}
	strcpy(dst, src);
	return true;
}

static bool copy_str(char dst[VT_CONFIG_STR], const char *src) {
	return copy_str_n(dst, src, VT_CONFIG_STR);
}

const struct vt_config_path_rule *vt_config_path_rule(
		const struct vt_config *config, const char *app_id) {
	if (app_id == NULL) {
		return NULL;
	}
	for (int i = config->path_rules_len - 1; i >= 0; i--) {
		if (strcmp(config->path_rules[i].app_id, app_id) == 0) {
			return &config->path_rules[i];
		}
	}
	return NULL;
}

/* "path <app_id> <vsync|pre-render|low-latency> [tearing]" */
static const char *parse_path_rule(struct vt_config *c, char *value) {
	char *save = NULL;
	char *app_id = strtok_r(value, " \t", &save);
	char *path = strtok_r(NULL, " \t", &save);
	char *flag = strtok_r(NULL, " \t", &save);
	if (app_id == NULL || path == NULL) {
		return "expected <app_id> <vsync|pre-render|low-latency> [tearing]";
	}
	if (strtok_r(NULL, " \t", &save) != NULL) {
		return "too many words: expected <app_id> <path> [tearing]";
	}
	struct vt_config_path_rule rule = { 0 };
	if (!copy_str(rule.app_id, app_id)) {
		return "app_id too long";
	}
	if (strcmp(path, "vsync") == 0) {
		rule.path = VT_CONFIG_PATH_VSYNC;
	} else if (strcmp(path, "pre-render") == 0) {
		rule.path = VT_CONFIG_PATH_PRE_RENDER;
	} else if (strcmp(path, "low-latency") == 0) {
		rule.path = VT_CONFIG_PATH_LOW_LATENCY;
	} else {
		return "expected a path: vsync, pre-render or low-latency";
	}
	if (flag != NULL) {
		if (strcmp(flag, "tearing") != 0) {
			return "expected tearing or nothing after the path";
		}
		if (rule.path != VT_CONFIG_PATH_LOW_LATENCY) {
			return "tearing goes only with low-latency";
		}
		rule.tearing = true;
	}
	if (c->path_rules_len == VT_CONFIG_PATH_RULES) {
		return "too many path rules (at most 32)";
	}
	c->path_rules[c->path_rules_len++] = rule;
	return NULL;
}

const struct vt_config_binding *vt_config_binding(
		const struct vt_config *config, uint32_t mods, uint32_t keysym) {
	mods &= VT_MOD_BINDABLE;
	keysym = xkb_keysym_to_lower(keysym);
	for (int i = 0; i < config->bindings_len; i++) {
		const struct vt_config_binding *b = &config->bindings[i];
		if (b->mods == mods && b->keysym == keysym) {
			return b;
		}
	}
	return NULL;
}

static bool parse_modifier(const char *name, uint32_t *mod) {
	static const struct {
		const char *name;
		uint32_t mod;
	} names[] = {
		{ "Shift", VT_MOD_SHIFT },
		{ "Ctrl", VT_MOD_CTRL },
		{ "Control", VT_MOD_CTRL },
		{ "Alt", VT_MOD_ALT },
		{ "Mod1", VT_MOD_ALT },
		{ "Logo", VT_MOD_LOGO },
		{ "Super", VT_MOD_LOGO },
		{ "Mod4", VT_MOD_LOGO },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcasecmp(name, names[i].name) == 0) {
			*mod = names[i].mod;
			return true;
		}
	}
	return false;
}

/* "Mod+Mod+Key": modifiers by name, then an xkb keysym name. */
static const char *parse_combo(char *combo, uint32_t *mods, uint32_t *keysym) {
	*mods = 0;
	char *save = NULL;
	char *part = strtok_r(combo, "+", &save);
	if (part == NULL) {
		return "expected <modifiers+key>, e.g. Logo+Return";
	}
	for (;;) {
		char *next = strtok_r(NULL, "+", &save);
		if (next == NULL) {
			break;
		}
		uint32_t mod;
		if (!parse_modifier(part, &mod)) {
			return "unknown modifier: expected Shift, Ctrl, Alt or Logo "
				   "(also Control, Mod1, Super, Mod4)";
		}
		if (*mods & mod) {
			return "a modifier named twice";
		}
		*mods |= mod;
		part = next;
	}
	xkb_keysym_t sym = xkb_keysym_from_name(part, XKB_KEYSYM_NO_FLAGS);
	if (sym == XKB_KEY_NoSymbol) {
		sym = xkb_keysym_from_name(part, XKB_KEYSYM_CASE_INSENSITIVE);
	}
	if (sym == XKB_KEY_NoSymbol) {
		return "unknown key: expected an xkb keysym name (xev or "
			   "wev show them), e.g. Return, q, F4, XF86AudioMute";
	}
	*keysym = xkb_keysym_to_lower(sym);
	return NULL;
}

static bool parse_int(const char *s, int min, int max, int *out) {
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s || v < min || v > max) {
		return false;
	}
	*out = (int)v;
	return true;
}

static bool parse_direction(const char *s, int *dir) {
	static const char *const names[] = {
		[VT_DIR_NEXT] = "next",
		[VT_DIR_PREV] = "prev",
		[VT_DIR_LEFT] = "left",
		[VT_DIR_RIGHT] = "right",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i]) == 0) {
			*dir = (int)i;
			return true;
		}
	}
	return false;
}

/* "move left|right|up|down [PIXELS]" and "resize grow|shrink width|height
 * [PIXELS]" (20 by default, 1 to 10000) into b. */
static const char *parse_move_resize(struct vt_config_binding *b,
		const char *action, char *rest) {
	char *save = NULL;
	char *w1 = strtok_r(rest, " \t", &save);
	char *w2 = strtok_r(NULL, " \t", &save);
	char *w3 = strtok_r(NULL, " \t", &save);
	char *pixels;
	if (strcmp(action, "move") == 0) {
		static const char *const ways[] = { "left", "right", "up", "down" };
		b->arg = -1;
		for (int i = 0; w1 != NULL && i < 4; i++) {
			if (strcmp(w1, ways[i]) == 0) {
				b->arg = i;
			}
		}
		if (b->arg < 0 || w3 != NULL) {
			return "expected move left, right, up or down [pixels]";
		}
		pixels = w2;
		b->action = VT_ACTION_MOVE;
	} else {
		bool grow = w1 != NULL && strcmp(w1, "grow") == 0;
		if ((!grow && (w1 == NULL || strcmp(w1, "shrink") != 0)) ||
				w2 == NULL ||
				(strcmp(w2, "width") != 0 && strcmp(w2, "height") != 0) ||
				strtok_r(NULL, " \t", &save) != NULL) {
			return "expected resize grow or shrink, width or height "
				   "[pixels]";
		}
		b->arg = strcmp(w2, "height") == 0;
		pixels = w3;
		b->action = VT_ACTION_RESIZE;
	}
	int px = VT_MOVE_DEFAULT_PX;
	if (pixels != NULL && !parse_int(pixels, 1, 10000, &px)) {
		return "expected pixels from 1 to 10000";
	}
	bool shrink = b->action == VT_ACTION_RESIZE && strcmp(w1, "shrink") == 0;
	b->amount = shrink ? -px : px;
	return NULL;
}

/* "bind <modifiers+key> <action> [args]" */
static const char *parse_binding(struct vt_config *c, char *value) {
	char *save = NULL;
	char *combo = strtok_r(value, " \t", &save);
	char *action = strtok_r(NULL, " \t", &save);
	if (combo == NULL || action == NULL) {
		return "expected <modifiers+key> <action> [arguments]";
	}
	char *rest = save != NULL ? save : "";
	while (*rest == ' ' || *rest == '\t') {
		rest++;
	}
	struct vt_config_binding b = { 0 };
	const char *reason = parse_combo(combo, &b.mods, &b.keysym);
	if (reason != NULL) {
		return reason;
	}
	static const struct {
		const char *name;
		enum vt_config_action action;
	} actions[] = {
		{ "close", VT_ACTION_CLOSE },
		{ "maximize", VT_ACTION_MAXIMIZE },
		{ "fullscreen", VT_ACTION_FULLSCREEN },
		{ "reload", VT_ACTION_RELOAD },
		{ "exit", VT_ACTION_EXIT },
		{ "minimize", VT_ACTION_MINIMIZE },
	};
	if (strcmp(action, "exec") == 0) {
		if (*rest == '\0') {
			return "exec needs a command";
		}
		if (!copy_str_n(b.command, rest, sizeof(b.command))) {
			return "command too long (at most 255 bytes)";
		}
		b.action = VT_ACTION_EXEC;
	} else if (strcmp(action, "focus") == 0) {
		if (strcmp(rest, "next") == 0) {
			b.action = VT_ACTION_FOCUS_NEXT;
		} else if (strcmp(rest, "prev") == 0) {
			b.action = VT_ACTION_FOCUS_PREV;
		} else if (strncmp(rest, "output", 6) == 0 &&
				(rest[6] == ' ' || rest[6] == '\t')) {
			char *dir = rest + 7;
			while (*dir == ' ' || *dir == '\t') {
				dir++;
			}
			if (!parse_direction(dir, &b.arg)) {
				return "expected focus output next, prev, left or right";
			}
			b.action = VT_ACTION_FOCUS_OUTPUT;
		} else {
			return "expected focus next, focus prev or focus output "
				   "<next|prev|left|right>";
		}
	} else if (strcmp(action, "move") == 0 || strcmp(action, "resize") == 0) {
		reason = parse_move_resize(&b, action, rest);
		if (reason != NULL) {
			return reason;
		}
	} else if (strcmp(action, "move-to-output") == 0) {
		if (!parse_direction(rest, &b.arg)) {
			return "expected move-to-output next, prev, left or right";
		}
		b.action = VT_ACTION_MOVE_TO_OUTPUT;
	} else if (strcmp(action, "workspace") == 0 ||
			strcmp(action, "move-to-workspace") == 0) {
		if (!parse_int(rest, 1, VT_WORKSPACES, &b.arg)) {
			return "expected a workspace number from 1 to 10";
		}
		b.action = strcmp(action, "workspace") == 0 ?
				VT_ACTION_WORKSPACE :
				VT_ACTION_MOVE_TO_WORKSPACE;
	} else {
		size_t i = 0;
		size_t n = sizeof(actions) / sizeof(actions[0]);
		while (i < n && strcmp(action, actions[i].name) != 0) {
			i++;
		}
		if (i == n) {
			return "unknown action: expected exec, close, focus, maximize, "
				   "fullscreen, minimize, move, resize, workspace, "
				   "move-to-workspace, move-to-output, reload or exit";
		}
		if (*rest != '\0') {
			return "this action takes no arguments";
		}
		b.action = actions[i].action;
	}
	/* the same keys bound again: the later line wins */
	for (int i = 0; i < c->bindings_len; i++) {
		if (c->bindings[i].mods == b.mods &&
				c->bindings[i].keysym == b.keysym) {
			c->bindings[i] = b;
			return NULL;
		}
	}
	if (c->bindings_len == VT_CONFIG_BINDINGS) {
		return "too many bindings (at most 64)";
	}
	c->bindings[c->bindings_len++] = b;
	return NULL;
}

static bool parse_color(const char *s, struct vr_color *color) {
	if (s[0] != '#') {
		return false;
	}
	size_t len = strlen(s + 1);
	if (len != 6 && len != 8) {
		return false;
	}
	for (size_t i = 1; i <= len; i++) {
		if (!isxdigit((unsigned char)s[i])) {
			return false;
		}
	}
	unsigned long v = strtoul(s + 1, NULL, 16);
	if (len == 6) {
		v = (v << 8) | 0xff;
	}
	color->r = ((v >> 24) & 0xff) / 255.0f;
	color->g = ((v >> 16) & 0xff) / 255.0f;
	color->b = ((v >> 8) & 0xff) / 255.0f;
	color->a = (v & 0xff) / 255.0f;
	return true;
}

/* A decimal number in (min, max]. */
static bool parse_double(const char *s, double min, double max, double *out) {
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || end == s || !(v > min) || !(v <= max)) {
		return false;
	}
	*out = v;
	return true;
}

/* "WxH" or "WxH@RATE[Hz]" */
static bool parse_mode(const char *s, struct vt_config_output *o) {
	char *end;
	errno = 0;
	long w = strtol(s, &end, 10);
	if (end == s || *end != 'x' || w < 1 || w > 16384) {
		return false;
	}
	const char *hs = end + 1;
	long h = strtol(hs, &end, 10);
	if (end == hs || h < 1 || h > 16384 || errno != 0) {
		return false;
	}
	double hz = 0;
	if (*end == '@') {
		const char *rs = end + 1;
		hz = strtod(rs, &end);
		if (end == rs || !(hz > 0) || hz > 1000) {
			return false;
		}
		if (strcmp(end, "Hz") == 0) {
			end += 2;
		}
	}
	if (*end != '\0') {
		return false;
	}
	o->width = (int)w;
	o->height = (int)h;
	o->refresh_mhz = (int)lround(hz * 1000);
	return true;
}

/* "X,Y" */
static bool parse_position(const char *s, int *x, int *y) {
	const char *comma = strchr(s, ',');
	if (comma == NULL) {
		return false;
	}
	char xs[16];
	size_t len = (size_t)(comma - s);
	if (len == 0 || len >= sizeof(xs)) {
		return false;
	}
	memcpy(xs, s, len);
	xs[len] = '\0';
	return parse_int(xs, -VT_CONFIG_POSITION_MAX, VT_CONFIG_POSITION_MAX, x) &&
			parse_int(comma + 1, -VT_CONFIG_POSITION_MAX,
					VT_CONFIG_POSITION_MAX, y);
}

static const char *const transform_names[] = {
	"normal",
	"90",
	"180",
	"270",
	"flipped",
	"flipped-90",
	"flipped-180",
	"flipped-270",
};

/* "output <name|*> <setting>..." with the settings mode WxH[@Hz],
 * scale S, transform T, position X,Y, disable, enable. */
static const char *parse_output(struct vt_config *c, char *value) {
	char *save = NULL;
	char *name = strtok_r(value, " \t", &save);
	char *word = strtok_r(NULL, " \t", &save);
	if (name == NULL || word == NULL) {
		return "expected <name> then mode, scale, transform, position, "
			   "disable or enable";
	}
	struct vt_config_output *o = NULL;
	for (int i = 0; i < c->outputs_len; i++) {
		if (strcmp(c->outputs[i].name, name) == 0) {
			o = &c->outputs[i];
		}
	}
	struct vt_config_output next = { 0 };
	if (o != NULL) {
		next = *o;
	} else if (!copy_str(next.name, name)) {
		return "output name too long";
	}
	for (; word != NULL; word = strtok_r(NULL, " \t", &save)) {
		if (strcmp(word, "disable") == 0 || strcmp(word, "enable") == 0) {
			next.has_enabled = true;
			next.enabled = word[0] == 'e';
			continue;
		}
		char *arg = strtok_r(NULL, " \t", &save);
		if (strcmp(word, "mode") == 0) {
			if (arg == NULL || !parse_mode(arg, &next)) {
				return "expected mode WxH or WxH@RATEHz";
			}
			next.has_mode = true;
		} else if (strcmp(word, "scale") == 0) {
			if (arg == NULL ||
					!parse_double(arg, 0.0, VT_CONFIG_SCALE_MAX, &next.scale)) {
				return "expected scale: a number over 0 and at most 10";
			}
			next.has_scale = true;
		} else if (strcmp(word, "transform") == 0) {
			int t = -1;
			for (int i = 0; arg != NULL && i < 8; i++) {
				if (strcmp(arg, transform_names[i]) == 0) {
					t = i;
				}
			}
			if (t < 0) {
				return "expected transform normal, 90, 180, 270, flipped, "
					   "flipped-90, flipped-180 or flipped-270";
			}
			next.transform = t;
			next.has_transform = true;
		} else if (strcmp(word, "position") == 0) {
			if (arg == NULL || !parse_position(arg, &next.x, &next.y)) {
				return "expected position X,Y (integers)";
			}
			next.has_position = true;
		} else {
			return "expected mode, scale, transform, position, disable or "
				   "enable";
		}
	}
	if (o == NULL) {
		if (c->outputs_len == VT_CONFIG_OUTPUTS) {
			return "too many outputs (at most 32)";
		}
		o = &c->outputs[c->outputs_len++];
	}
	*o = next;
	return NULL;
}

bool vt_config_output(const struct vt_config *config, const char *name,
		struct vt_config_output *out) {
	*out = (struct vt_config_output){ 0 };
	bool found = false;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < config->outputs_len; i++) {
			const struct vt_config_output *o = &config->outputs[i];
			if (strcmp(o->name, pass == 0 ? "*" : name) != 0) {
				continue;
			}
			found = true;
			if (o->has_mode) {
				out->has_mode = true;
				out->width = o->width;
				out->height = o->height;
				out->refresh_mhz = o->refresh_mhz;
			}
			if (o->has_scale) {
				out->has_scale = true;
				out->scale = o->scale;
			}
			if (o->has_transform) {
				out->has_transform = true;
				out->transform = o->transform;
			}
			if (o->has_position) {
				out->has_position = true;
				out->x = o->x;
				out->y = o->y;
			}
			if (o->has_enabled) {
				out->has_enabled = true;
				out->enabled = o->enabled;
			}
		}
	}
	snprintf(out->name, sizeof(out->name), "%s", name);
	return found;
}

/* One line of the grammar "key value" (see vitrail(5)). Returns NULL or
 * the reason the line is bad. */
static const char *parse_line(struct vt_config *c, char *key, char *value) {
	if (value == NULL || *value == '\0') {
		return "missing value";
	}
	if (strcmp(key, "background") == 0) {
		return parse_color(value, &c->background) ?
				NULL :
				"expected a colour #RRGGBB or #RRGGBBAA";
	} else if (strcmp(key, "mode") == 0) {
		if (strcmp(value, "desktop") == 0) {
			c->mode = VT_MODE_DESKTOP;
		} else if (strcmp(value, "kiosk") == 0) {
			c->mode = VT_MODE_KIOSK;
		} else {
			return "expected desktop or kiosk";
		}
		return NULL;
	} else if (strcmp(key, "repeat_rate") == 0) {
		return parse_int(value, 0, 1000, &c->repeat_rate) ?
				NULL :
				"expected an integer from 0 to 1000";
	} else if (strcmp(key, "repeat_delay") == 0) {
		return parse_int(value, 0, 10000, &c->repeat_delay) ?
				NULL :
				"expected an integer from 0 to 10000";
	} else if (strcmp(key, "bind") == 0) {
		return parse_binding(c, value);
	} else if (strcmp(key, "drag_modifier") == 0) {
		if (strcmp(value, "none") == 0) {
			c->drag_modifier = 0;
			return NULL;
		}
		return parse_modifier(value, &c->drag_modifier) ?
				NULL :
				"expected Shift, Ctrl, Alt, Logo or none";
	} else if (strcmp(key, "output") == 0) {
		return parse_output(c, value);
	} else if (strcmp(key, "decorations") == 0) {
		if (strcmp(value, "server") == 0) {
			c->server_decorations = true;
		} else if (strcmp(value, "client") == 0) {
			c->server_decorations = false;
		} else {
			return "expected server or client";
		}
		return NULL;
	} else if (strcmp(key, "app_exit") == 0) {
		if (strcmp(value, "exit") == 0) {
			c->app_exit = VT_APP_EXIT_EXIT;
		} else if (strcmp(value, "restart") == 0) {
			c->app_exit = VT_APP_EXIT_RESTART;
		} else if (strcmp(value, "stay") == 0) {
			c->app_exit = VT_APP_EXIT_STAY;
		} else {
			return "expected exit, restart or stay";
		}
		return NULL;
	} else if (strcmp(key, "kiosk_output") == 0) {
		if (strcmp(value, "each") == 0) {
			c->kiosk_output = VT_KIOSK_EACH;
		} else if (strcmp(value, "extend") == 0) {
			c->kiosk_output = VT_KIOSK_EXTEND;
		} else if (strcmp(value, "last") == 0) {
			c->kiosk_output = VT_KIOSK_LAST;
		} else if (strpbrk(value, " \t") != NULL) {
			return "expected each, extend, last or an output name";
		} else if (!copy_str(c->kiosk_output_name, value)) {
			return "output name too long";
		} else {
			c->kiosk_output = VT_KIOSK_NAMED;
		}
		return NULL;
	} else if (strcmp(key, "hide_cursor") == 0) {
		double seconds;
		if (strcmp(value, "never") == 0) {
			c->hide_cursor_ms = -1;
		} else if (strcmp(value, "always") == 0) {
			c->hide_cursor_ms = 0;
		} else if (parse_double(value, 0.1, 3600, &seconds)) {
			c->hide_cursor_ms = (int)(seconds * 1000 + 0.5);
		} else {
			return "expected never, always or seconds from 0.1 to 3600";
		}
		return NULL;
	} else if (strcmp(key, "touch_output") == 0) {
		if (strpbrk(value, " \t") != NULL) {
			return "expected an output name";
		}
		return copy_str(c->touch_output, value) ? NULL : "output name too long";
	} else if (strcmp(key, "vt_switch") == 0) {
		if (strcmp(value, "on") == 0) {
			c->vt_switch = 1;
		} else if (strcmp(value, "off") == 0) {
			c->vt_switch = 0;
		} else {
			return "expected on or off";
		}
		return NULL;
	} else if (strcmp(key, "allow") == 0) {
		return vt_privileges_parse(value, &c->allow);
	} else if (strcmp(key, "xwayland") == 0) {
		if (strcmp(value, "on") == 0) {
			c->xwayland = true;
		} else if (strcmp(value, "off") == 0) {
			c->xwayland = false;
		} else {
			return "expected on or off";
		}
		return NULL;
	} else if (strcmp(key, "path") == 0) {
		return parse_path_rule(c, value);
	} else if (strcmp(key, "tearing_box") == 0) {
		return parse_int(value, 1, 4096, &c->tearing_box) ?
				NULL :
				"expected an integer from 1 to 4096";
	} else if (strcmp(key, "scroll_extend") == 0) {
		return parse_double(value, 1.0, 2.5, &c->scroll_extend) ?
				NULL :
				"expected a number over 1 and at most 2.5";
	} else if (strcmp(key, "scroll_fling") == 0) {
		return parse_int(value, 50, 5000, &c->scroll_fling_ms) ?
				NULL :
				"expected milliseconds from 50 to 5000";
	}

	static const struct {
		const char *key;
		size_t offset;
	} strings[] = {
		{ "xkb_layout", offsetof(struct vt_config, xkb_layout) },
		{ "xkb_model", offsetof(struct vt_config, xkb_model) },
		{ "xkb_options", offsetof(struct vt_config, xkb_options) },
		{ "xkb_rules", offsetof(struct vt_config, xkb_rules) },
		{ "xkb_variant", offsetof(struct vt_config, xkb_variant) },
	};
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		if (strcmp(key, strings[i].key) == 0) {
			return copy_str((char *)c + strings[i].offset, value) ?
					NULL :
					"value too long";
		}
	}
	return "unknown key";
}

static char *trim(char *s) {
	while (isspace((unsigned char)*s)) {
		s++;
	}
	char *end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1])) {
		*--end = '\0';
	}
	return s;
}

/* '#' starts a comment at the start of a line, or after white space
 * unless it begins a colour ("background #203040 # dark blue"). */
static void strip_comment(char *line) {
	char *start = line;
	while (isspace((unsigned char)*start)) {
		start++;
	}
	for (char *p = start; (p = strchr(p, '#')) != NULL; p++) {
		if (p == start) {
			*p = '\0';
			return;
		}
		if (isspace((unsigned char)p[-1]) && !isxdigit((unsigned char)p[1])) {
			*p = '\0';
			return;
		}
	}
}

/* Print at most the first VT_CONFIG_QUOTE_MAX bytes of s, bytes outside
 * printable ASCII escaped as \xNN, then "…" when s is longer: a config
 * error never floods the terminal nor sends it control sequences. */
static void print_quoted(FILE *out, const char *s) {
	size_t i = 0;
	for (; s[i] != '\0' && i < VT_CONFIG_QUOTE_MAX; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f) {
			fputc(c, out);
		} else {
			fprintf(out, "\\x%02x", c);
		}
	}
	if (s[i] != '\0') {
		fputs("\u2026", out);
	}
}

bool vt_config_load(struct vt_config *config, const char *path, FILE *err) {
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		fprintf(err, "%s: cannot open: %s\n", path, strerror(errno));
		return false;
	}
	struct vt_config next = *config;
	/* the rules are the file's, not added to the last file's */
	next.path_rules_len = 0;
	next.bindings_len = 0;
	next.outputs_len = 0;
	next.drag_modifier = VT_MOD_LOGO;
	next.server_decorations = true;
	next.tearing_box = VT_TEARING_BOX_DEFAULT;
	next.scroll_extend = VT_SCROLL_EXTEND_DEFAULT;
	next.scroll_fling_ms = VT_SCROLL_FLING_MS_DEFAULT;
	next.app_exit = VT_APP_EXIT_DEFAULT;
	next.kiosk_output = VT_KIOSK_EACH;
	next.kiosk_output_name[0] = '\0';
	next.hide_cursor_ms = -1;
	next.allow = 0;
	next.xwayland = true;
	next.vt_switch = -1;
	next.touch_output[0] = '\0';
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;
	bool ok = true;
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		strip_comment(line);
		char *s = trim(line);
		if (*s == '\0') {
			continue;
		}
		char *key = s;
		char *value = s;
		while (*value != '\0' && !isspace((unsigned char)*value)) {
			value++;
		}
		if (*value != '\0') {
			*value++ = '\0';
			value = trim(value);
		}
		const char *reason = parse_line(&next, key, value);
		if (reason != NULL) {
			fprintf(err, "%s:%d: ", path, lineno);
			print_quoted(err, key);
			fprintf(err, ": %s\n", reason);
			ok = false;
			break;
		}
	}
	free(line);
	fclose(f);
	if (ok) {
		*config = next;
	}
	return ok;
}

const char *vt_config_default_path(void) {
	static char path[PATH_MAX];
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	if (xdg != NULL && *xdg != '\0') {
		snprintf(path, sizeof(path), "%s/vitrail/config", xdg);
	} else if (home != NULL) {
		snprintf(path, sizeof(path), "%s/.config/vitrail/config", home);
	} else {
		return NULL;
	}
	return access(path, R_OK) == 0 ? path : NULL;
}
