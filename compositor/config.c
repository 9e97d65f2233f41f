#include <ctype.h>
#include <errno.h>
#include <limits.h>
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
	};
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
static const char *parse_combo(char *combo, uint32_t *mods,
		uint32_t *keysym) {
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
		} else {
			return "expected focus next or focus prev";
		}
	} else {
		size_t i = 0;
		size_t n = sizeof(actions) / sizeof(actions[0]);
		while (i < n && strcmp(action, actions[i].name) != 0) {
			i++;
		}
		if (i == n) {
			return "unknown action: expected exec, close, focus, maximize, "
				"fullscreen, reload or exit";
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

/* One line of the grammar "key value" (see vitrail(5)). Returns NULL or
 * the reason the line is bad. */
static const char *parse_line(struct vt_config *c, char *key, char *value) {
	if (value == NULL || *value == '\0') {
		return "missing value";
	}
	if (strcmp(key, "background") == 0) {
		return parse_color(value, &c->background) ? NULL :
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
		return parse_int(value, 0, 1000, &c->repeat_rate) ? NULL :
			"expected an integer from 0 to 1000";
	} else if (strcmp(key, "repeat_delay") == 0) {
		return parse_int(value, 0, 10000, &c->repeat_delay) ? NULL :
			"expected an integer from 0 to 10000";
	} else if (strcmp(key, "bind") == 0) {
		return parse_binding(c, value);
	} else if (strcmp(key, "drag_modifier") == 0) {
		if (strcmp(value, "none") == 0) {
			c->drag_modifier = 0;
			return NULL;
		}
		return parse_modifier(value, &c->drag_modifier) ? NULL :
			"expected Shift, Ctrl, Alt, Logo or none";
	} else if (strcmp(key, "path") == 0) {
		return parse_path_rule(c, value);
	} else if (strcmp(key, "tearing_box") == 0) {
		return parse_int(value, 1, 4096, &c->tearing_box) ? NULL :
			"expected an integer from 1 to 4096";
	} else if (strcmp(key, "scroll_extend") == 0) {
		return parse_double(value, 1.0, 2.5, &c->scroll_extend) ? NULL :
			"expected a number over 1 and at most 2.5";
	} else if (strcmp(key, "scroll_fling") == 0) {
		return parse_int(value, 50, 5000, &c->scroll_fling_ms) ? NULL :
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
				NULL : "value too long";
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
		if (isspace((unsigned char)p[-1]) &&
				!isxdigit((unsigned char)p[1])) {
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
	next.drag_modifier = VT_MOD_LOGO;
	next.tearing_box = VT_TEARING_BOX_DEFAULT;
	next.scroll_extend = VT_SCROLL_EXTEND_DEFAULT;
	next.scroll_fling_ms = VT_SCROLL_FLING_MS_DEFAULT;
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
