#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

static char path[64];

static void write_config(const char *text) {
	strcpy(path, "/tmp/vitrail-test-config-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static bool load(struct vt_config *config, char *err, size_t len) {
	FILE *f = fmemopen(err, len, "w");
	ck_assert_ptr_nonnull(f);
	bool ok = vt_config_load(config, path, f);
	fclose(f);
	unlink(path);
	return ok;
}

START_TEST(test_config_parses_every_key) {
	write_config("# comment\n\nbackground #102030 # trailing comment\n"
				 "mode kiosk\nxkb_layout de\nxkb_variant nodeadkeys\n"
				 "xkb_options caps:escape\nrepeat_rate 40\nrepeat_delay 300\n");
	struct vt_config config;
	vt_config_defaults(&config);
	char err[256] = "";
	ck_assert(load(&config, err, sizeof(err)));
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(config.mode, VT_MODE_KIOSK);
	ck_assert_str_eq(config.xkb_layout, "de");
	ck_assert_str_eq(config.xkb_variant, "nodeadkeys");
	ck_assert_str_eq(config.xkb_options, "caps:escape");
	ck_assert_int_eq(config.repeat_rate, 40);
	ck_assert_int_eq(config.repeat_delay, 300);
	ck_assert_float_eq_tol(config.background.r, 0x10 / 255.0f, 1e-6);
	ck_assert_float_eq_tol(config.background.g, 0x20 / 255.0f, 1e-6);
	ck_assert_float_eq_tol(config.background.b, 0x30 / 255.0f, 1e-6);
	ck_assert_float_eq_tol(config.background.a, 1.0f, 1e-6);
	ck_assert(config.xwayland);
	/* on by default, and after a file without the key */
	write_config("xwayland off\n");
	ck_assert(load(&config, err, sizeof(err)));
	ck_assert(!config.xwayland);
	write_config("xwayland on\n");
	ck_assert(load(&config, err, sizeof(err)));
	ck_assert(config.xwayland);
	write_config("xwayland off\n");
	ck_assert(load(&config, err, sizeof(err)));
	write_config("mode desktop\n");
	ck_assert(load(&config, err, sizeof(err)));
	ck_assert(config.xwayland);
}
END_TEST

START_TEST(test_config_bad_line_names_file_line_reason) {
	write_config("mode kiosk\nrepeat_rate fast\n");
	struct vt_config config;
	vt_config_defaults(&config);
	char err[256] = "";
	ck_assert(!load(&config, err, sizeof(err)));
	char expected[128];
	snprintf(expected, sizeof(expected), "%s:2: repeat_rate:", path);
	ck_assert_msg(strncmp(err, expected, strlen(expected)) == 0,
			"error '%s' does not start with '%s'", err, expected);
}
END_TEST

START_TEST(test_config_bad_file_keeps_previous) {
	struct vt_config config;
	vt_config_defaults(&config);
	strcpy(config.xkb_layout, "fr");
	config.mode = VT_MODE_KIOSK;
	/* The good first line must not leak into the config either. */
	write_config("mode desktop\nxkb_layout us\nno_such_key 1\n");
	char err[256] = "";
	ck_assert(!load(&config, err, sizeof(err)));
	ck_assert(strstr(err, ":3: no_such_key: unknown key") != NULL);
	ck_assert_str_eq(config.xkb_layout, "fr");
	ck_assert_int_eq(config.mode, VT_MODE_KIOSK);
}
END_TEST

/* Output settings: lines add up per name, "*" lies under every name, the
 * last value of a setting wins; a reload forgets the last file's. */
START_TEST(test_config_outputs) {
	write_config(
			"output * scale 1.25\n"
			"output HDMI-A-1 mode 1920x1080@59.94Hz scale 1.5 transform 90\n"
			"output HDMI-A-1 position -1080,200 transform flipped-270\n"
			"output DP-2 mode 800x600 disable\n"
			"output DP-2 enable\n");
	struct vt_config config;
	vt_config_defaults(&config);
	char err[256] = "";
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(config.outputs_len, 3);
	struct vt_config_output o;
	ck_assert(vt_config_output(&config, "HDMI-A-1", &o));
	ck_assert_str_eq(o.name, "HDMI-A-1");
	ck_assert(o.has_mode && o.width == 1920 && o.height == 1080);
	ck_assert_int_eq(o.refresh_mhz, 59940);
	ck_assert(o.has_scale);
	ck_assert_double_eq_tol(o.scale, 1.5, 1e-9);
	ck_assert(o.has_transform);
	ck_assert_int_eq(o.transform, 7); /* WL_OUTPUT_TRANSFORM_FLIPPED_270 */
	ck_assert(o.has_position && o.x == -1080 && o.y == 200);
	ck_assert(!o.has_enabled);
	ck_assert(vt_config_output(&config, "DP-2", &o));
	ck_assert(o.has_mode && o.width == 800 && o.height == 600);
	ck_assert_int_eq(o.refresh_mhz, 0);
	ck_assert(o.has_enabled && o.enabled);
	ck_assert_double_eq_tol(o.scale, 1.25, 1e-9); /* from "*" */
	ck_assert(!o.has_transform && !o.has_position);
	/* an output the file does not name gets "*" alone */
	ck_assert(vt_config_output(&config, "DP-3", &o));
	ck_assert(o.has_scale && !o.has_mode && !o.has_enabled);

	write_config("output DP-2 disable\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(config.outputs_len, 1);
	ck_assert(!vt_config_output(&config, "HDMI-A-1", &o));
	ck_assert(!o.has_scale);
	ck_assert(vt_config_output(&config, "DP-2", &o));
	ck_assert(o.has_enabled && !o.enabled && !o.has_mode);

	static const char *bad[] = {
		"output HDMI-A-1\n",
		"output HDMI-A-1 scale 0\n",
		"output HDMI-A-1 scale -2\n",
		"output HDMI-A-1 scale 11\n",
		"output HDMI-A-1 scale\n",
		"output HDMI-A-1 transform 45\n",
		"output HDMI-A-1 transform flipped90\n",
		"output HDMI-A-1 mode 1920\n",
		"output HDMI-A-1 mode 0x1080\n",
		"output HDMI-A-1 mode 1920x1080@\n",
		"output HDMI-A-1 mode 1920x1080@60Hzz\n",
		"output HDMI-A-1 position 10\n",
		"output HDMI-A-1 position 1,y\n",
		"output HDMI-A-1 rotate 90\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_config(bad[i]);
		char line_err[256] = "";
		ck_assert_msg(!load(&config, line_err, sizeof(line_err)),
				"accepted: %s", bad[i]);
		char expected[128];
		snprintf(expected, sizeof(expected), "%s:1: output: ", path);
		ck_assert_msg(strncmp(line_err, expected, strlen(expected)) == 0,
				"'%s' for %s", line_err, bad[i]);
		/* the good config stays */
		ck_assert_int_eq(config.outputs_len, 1);
	}
}
END_TEST

START_TEST(test_config_rejects_bad_values) {
	static const char *bad[] = {
		"background 102030\n",
		"background #1020\n",
		"background #10203g\n",
		"mode tiling\n",
		"repeat_delay -1\n",
		"repeat_rate 99999\n",
		"xkb_layout\n",
		"xkb_layout "
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"\n",
		"path foot\n",
		"path foot fast\n",
		"path foot vsync tearing\n",
		"path foot low-latency tear\n",
		"path foot low-latency tearing x\n",
		"tearing_box 0\n",
		"tearing_box 200px\n",
		"scroll_extend 1\n",
		"scroll_extend 2.6\n",
		"scroll_extend 2x\n",
		"scroll_extend nan\n",
		"scroll_fling 10\n",
		"scroll_fling 0.3\n",
		"xwayland yes\n",
		"xwayland\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_config(bad[i]);
		struct vt_config config;
		vt_config_defaults(&config);
		char err[256] = "";
		ck_assert_msg(!load(&config, err, sizeof(err)), "accepted: %s", bad[i]);
		ck_assert_msg(strstr(err, ":1: ") != NULL, "no line in '%s'", err);
	}
}
END_TEST

START_TEST(test_config_missing_file_is_an_error) {
	struct vt_config config;
	vt_config_defaults(&config);
	char err[256] = "";
	FILE *f = fmemopen(err, sizeof(err), "w");
	ck_assert(!vt_config_load(&config, "/nonexistent/vitrail.conf", f));
	fclose(f);
	ck_assert(strstr(err, "/nonexistent/vitrail.conf: cannot open") != NULL);
}
END_TEST

/* A huge line and raw control bytes: the error quotes at most 80 bytes
 * of the line, escapes what is not printable, and ends the cut with "…". */
START_TEST(test_config_error_quotes_a_short_escaped_line) {
	size_t huge = 10 * 1024 * 1024;
	char *text = malloc(huge + 2);
	ck_assert_ptr_nonnull(text);
	memset(text, 'a', huge);
	text[huge] = '\n';
	text[huge + 1] = '\0';
	write_config(text);
	free(text);
	struct vt_config config;
	vt_config_defaults(&config);
	char err[512] = "";
	ck_assert(!load(&config, err, sizeof(err)));
	char expected[256];
	snprintf(expected, sizeof(expected), "%s:1: %.80s\u2026: missing value\n",
			path,
			"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	ck_assert_str_eq(err, expected);

	write_config("\x01\x1b[31mred\x7f\xc2\x9b value\n");
	err[0] = '\0';
	ck_assert(!load(&config, err, sizeof(err)));
	snprintf(expected, sizeof(expected),
			"%s:1: \\x01\\x1b[31mred\\x7f\\xc2\\x9b: unknown key\n", path);
	ck_assert_str_eq(err, expected);
	for (const char *p = err; *p != '\0'; p++) {
		ck_assert_msg(*p == '\n' || (*p >= 0x20 && *p < 0x7f) ||
						(unsigned char)*p >= 0x80,
				"raw byte 0x%02x in '%s'", (unsigned char)*p, err);
	}
}
END_TEST

START_TEST(test_config_path_rules) {
	write_config("path foot low-latency tearing\npath mpv pre-render\n"
				 "path foot low-latency\ntearing_box 120\n");
	struct vt_config config;
	vt_config_defaults(&config);
	ck_assert_int_eq(config.tearing_box, 200);
	char err[256] = "";
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(config.path_rules_len, 3);
	ck_assert_int_eq(config.tearing_box, 120);
	/* the last matching line wins */
	const struct vt_config_path_rule *rule =
			vt_config_path_rule(&config, "foot");
	ck_assert_ptr_nonnull(rule);
	ck_assert_int_eq(rule->path, VT_CONFIG_PATH_LOW_LATENCY);
	ck_assert(!rule->tearing);
	rule = vt_config_path_rule(&config, "mpv");
	ck_assert_ptr_nonnull(rule);
	ck_assert_int_eq(rule->path, VT_CONFIG_PATH_PRE_RENDER);
	ck_assert_ptr_null(vt_config_path_rule(&config, "Foot"));
	ck_assert_ptr_null(vt_config_path_rule(&config, NULL));
	/* a reload replaces the rules, it does not add to them */
	write_config("path mpv vsync\n");
	ck_assert(load(&config, err, sizeof(err)));
	ck_assert_int_eq(config.path_rules_len, 1);
	ck_assert_ptr_null(vt_config_path_rule(&config, "foot"));
	ck_assert_int_eq(config.tearing_box, 200);
	/* a bad rule keeps the rules in force */
	write_config("path foot low-latency\npath mpv vsync tearing\n");
	ck_assert(!load(&config, err, sizeof(err)));
	ck_assert(strstr(err, ":2: path: tearing goes only with low-latency") !=
			NULL);
	ck_assert_int_eq(config.path_rules_len, 1);
	ck_assert_ptr_null(vt_config_path_rule(&config, "foot"));
}
END_TEST

/* scroll_extend (N, over 1 and at most 2.5) and scroll_fling (ms); a file
 * without them goes back to the defaults. */
START_TEST(test_config_scroll) {
	struct vt_config config;
	vt_config_defaults(&config);
	ck_assert(config.scroll_extend == 2.0);
	ck_assert_int_eq(config.scroll_fling_ms, 350);
	write_config("scroll_extend 1.5\nscroll_fling 500\n");
	char err[256] = "";
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert(config.scroll_extend == 1.5);
	ck_assert_int_eq(config.scroll_fling_ms, 500);
	write_config("scroll_extend 2.5\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert(config.scroll_extend == 2.5);
	ck_assert_int_eq(config.scroll_fling_ms, 350);
	write_config("mode desktop\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert(config.scroll_extend == 2.0);
}
END_TEST

/* bind: modifiers by name in any case and order, keysym names (case
 * folded where xkb knows no exact one), the actions and their arguments;
 * the same keys bound again, the later line wins; each bad form named;
 * a reload replaces the bindings. The keysym values are xkbcommon's
 * (X11's keysymdef.h): q 0x71, Return 0xff0d, F4 0xffc1, Tab 0xff09. */
START_TEST(test_config_bindings) {
	write_config("bind Logo+Return exec foot -e sh -c 'echo hi'\n"
				 "bind alt+SHIFT+Q close\n"
				 "bind Mod4+Tab focus next\n"
				 "bind Super+Shift+Tab focus prev\n"
				 "bind Ctrl+Alt+F4 exit\n"
				 "bind Logo+m maximize\nbind Logo+f fullscreen\n"
				 "bind Control+r reload\n"
				 "bind Logo+m fullscreen\n");
	struct vt_config config;
	vt_config_defaults(&config);
	char err[256] = "";
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(config.bindings_len, 8);
	const struct vt_config_binding *b =
			vt_config_binding(&config, VT_MOD_LOGO, 0xff0d);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(b->action, VT_ACTION_EXEC);
	ck_assert_str_eq(b->command, "foot -e sh -c 'echo hi'");
	/* Q is folded to q; the modifiers as a set */
	b = vt_config_binding(&config, VT_MOD_SHIFT | VT_MOD_ALT, 0x71);
	ck_assert(b != NULL && b->action == VT_ACTION_CLOSE);
	/* a keysym of a shifted key matches its lower case (Shift+q gives Q) */
	ck_assert_ptr_eq(
			vt_config_binding(&config, VT_MOD_SHIFT | VT_MOD_ALT, 0x51), b);
	/* locked modifiers (Caps Lock 1 << 1, Num Lock 1 << 4) do not count */
	ck_assert_ptr_eq(vt_config_binding(&config,
							 VT_MOD_SHIFT | VT_MOD_ALT | 1u << 1 | 1u << 4,
							 0x71),
			b);
	ck_assert_ptr_null(vt_config_binding(&config, VT_MOD_ALT, 0x71));
	b = vt_config_binding(&config, VT_MOD_LOGO, 0xff09);
	ck_assert(b != NULL && b->action == VT_ACTION_FOCUS_NEXT);
	/* move and resize: a way or an edge, and pixels (20 when none) */
	write_config("bind Alt+h move left 15\nbind Alt+j move down\n"
				 "bind Alt+k resize shrink height\nbind Alt+l resize grow "
				 "width 7\n");
	struct vt_config moves;
	vt_config_defaults(&moves);
	ck_assert_msg(load(&moves, err, sizeof(err)), "%s", err);
	b = vt_config_binding(&moves, VT_MOD_ALT, 0x68);
	ck_assert(b != NULL && b->action == VT_ACTION_MOVE &&
			b->arg == VT_WAY_LEFT && b->amount == 15);
	b = vt_config_binding(&moves, VT_MOD_ALT, 0x6a);
	ck_assert(b != NULL && b->action == VT_ACTION_MOVE &&
			b->arg == VT_WAY_DOWN && b->amount == 20);
	b = vt_config_binding(&moves, VT_MOD_ALT, 0x6b);
	ck_assert(b != NULL && b->action == VT_ACTION_RESIZE && b->arg == 1 &&
			b->amount == -20);
	b = vt_config_binding(&moves, VT_MOD_ALT, 0x6c);
	ck_assert(b != NULL && b->action == VT_ACTION_RESIZE && b->arg == 0 &&
			b->amount == 7);
	b = vt_config_binding(&config, VT_MOD_LOGO | VT_MOD_SHIFT, 0xff09);
	ck_assert(b != NULL && b->action == VT_ACTION_FOCUS_PREV);
	b = vt_config_binding(&config, VT_MOD_CTRL | VT_MOD_ALT, 0xffc1);
	ck_assert(b != NULL && b->action == VT_ACTION_EXIT);
	b = vt_config_binding(&config, VT_MOD_LOGO, 0x6d);
	ck_assert(b != NULL && b->action == VT_ACTION_FULLSCREEN);
	b = vt_config_binding(&config, VT_MOD_CTRL, 0x72);
	ck_assert(b != NULL && b->action == VT_ACTION_RELOAD);

	static const struct {
		const char *line, *reason;
	} bad[] = {
		{ "bind Hyper+x exit", "unknown modifier" },
		{ "bind Alt+Alt+x exit", "a modifier named twice" },
		{ "bind Alt+NoSuchKey exit", "unknown key" },
		{ "bind Alt+ exit", "unknown key" },
		{ "bind Alt+x", "expected <modifiers+key> <action>" },
		{ "bind Alt+x exec", "exec needs a command" },
		{ "bind Alt+x launch foot", "unknown action" },
		{ "bind Alt+x move sideways", "expected move left, right" },
		{ "bind Alt+x move left 0", "expected pixels from 1 to 10000" },
		{ "bind Alt+x resize grow depth", "expected resize grow or shrink" },
		{ "bind Alt+x resize grow width 10 px", "expected resize grow" },
		{ "bind Alt+x focus left",
				"expected focus next, focus prev or "
				"focus output" },
		{ "bind Alt+x close now", "this action takes no arguments" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text), "bind Alt+y exit\n%s\n", bad[i].line);
		write_config(text);
		ck_assert(!load(&config, err, sizeof(err)));
		ck_assert_msg(strstr(err, ":2: bind: ") != NULL &&
						strstr(err, bad[i].reason) != NULL,
				"'%s': %s", bad[i].line, err);
		/* the bindings in force stay */
		ck_assert_int_eq(config.bindings_len, 8);
	}
	char text[400];
	snprintf(text, sizeof(text), "bind Alt+x exec %0300d\n", 0);
	write_config(text);
	ck_assert(!load(&config, err, sizeof(err)));
	ck_assert(strstr(err, "command too long") != NULL);
	/* drag_modifier: a modifier or none; a file without it: Logo */
	ck_assert_int_eq(config.drag_modifier, VT_MOD_LOGO);
	write_config("drag_modifier alt\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(config.drag_modifier, VT_MOD_ALT);
	write_config("drag_modifier none\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(config.drag_modifier, 0);
	write_config("drag_modifier Hyper\n");
	ck_assert(!load(&config, err, sizeof(err)));
	ck_assert(strstr(err, ":1: drag_modifier: expected Shift") != NULL);
	/* a reload replaces them */
	write_config("bind Alt+x exit\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(config.bindings_len, 1);
	ck_assert_ptr_null(vt_config_binding(&config, VT_MOD_LOGO, 0xff0d));
}
END_TEST

START_TEST(test_config_decorations) {
	struct vt_config config;
	vt_config_defaults(&config);
	char err[512];
	/* server-side by default, and in a file without the key */
	ck_assert(config.server_decorations);
	write_config("decorations client\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert(!config.server_decorations);
	write_config("decorations none\n");
	ck_assert(!load(&config, err, sizeof(err)));
	ck_assert_msg(strstr(err, ":1: decorations: expected server or client") !=
					NULL,
			"%s", err);
	ck_assert(!config.server_decorations);
	write_config("repeat_rate 30\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert(config.server_decorations);
	write_config("decorations client\ndecorations server\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert(config.server_decorations);
}
END_TEST

START_TEST(test_config_kiosk) {
	struct vt_config config;
	vt_config_defaults(&config);
	char err[256];
	ck_assert_int_eq(config.app_exit, VT_APP_EXIT_DEFAULT);
	ck_assert_int_eq(config.hide_cursor_ms, -1);
	ck_assert_int_eq(config.allow, 0);
	write_config("app_exit restart\nkiosk_output HDMI-A-1\nhide_cursor 2.5\n"
				 "allow screencopy,gamma\nallow data-control\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(config.app_exit, VT_APP_EXIT_RESTART);
	ck_assert_int_eq(config.kiosk_output, VT_KIOSK_NAMED);
	ck_assert_str_eq(config.kiosk_output_name, "HDMI-A-1");
	ck_assert_int_eq(config.hide_cursor_ms, 2500);
	ck_assert_int_eq(config.allow,
			VT_PRIV_SCREENCOPY | VT_PRIV_GAMMA | VT_PRIV_DATA_CONTROL);
	/* the interfaces of a class */
	ck_assert_int_eq(vt_privilege_of("zwp_virtual_keyboard_manager_v1"),
			VT_PRIV_VIRTUAL_INPUT);
	ck_assert_int_eq(vt_privilege_of("zwlr_export_dmabuf_manager_v1"),
			VT_PRIV_SCREENCOPY);
	/* the ext image capture globals belong to the screencopy class */
	ck_assert_int_eq(vt_privilege_of("ext_image_copy_capture_manager_v1"),
			VT_PRIV_SCREENCOPY);
	ck_assert_int_eq(
			vt_privilege_of("ext_output_image_capture_source_manager_v1"),
			VT_PRIV_SCREENCOPY);
	ck_assert_int_eq(
			vt_privilege_of(
					"ext_foreign_toplevel_image_capture_source_manager_v1"),
			VT_PRIV_SCREENCOPY);
	ck_assert_int_eq(vt_privilege_of("ext_image_capture_source_v1"), 0);
	ck_assert_int_eq(vt_privilege_of("xdg_wm_base"), 0);
	/* a reload starts from the defaults of these keys */
	write_config("kiosk_output extend\nhide_cursor always\nallow all\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(config.app_exit, VT_APP_EXIT_DEFAULT);
	ck_assert_int_eq(config.kiosk_output, VT_KIOSK_EXTEND);
	ck_assert_int_eq(config.hide_cursor_ms, 0);
	ck_assert_int_eq(config.allow, VT_PRIV_ALL);
	/* VT switching: by the mode, unless set */
	config.mode = VT_MODE_KIOSK;
	ck_assert(!vt_config_vt_switch(&config)); /* kiosk: no way out */
	config.mode = VT_MODE_DESKTOP;
	ck_assert(vt_config_vt_switch(&config));
	write_config("mode kiosk\nvt_switch on\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert(vt_config_vt_switch(&config));
	write_config("mode desktop\nvt_switch off\nallow all\n"
				 "kiosk_output extend\n");
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert(!vt_config_vt_switch(&config));
	/* bad values name the line and keep the previous config */
	const char *bad[][2] = {
		{ "vt_switch maybe\n", ":1: vt_switch: expected on or off" },
		{ "app_exit sometimes\n", ":1: app_exit: expected exit, restart" },
		{ "\nhide_cursor 0\n", ":2: hide_cursor: expected never" },
		{ "hide_cursor soon\n", ":1: hide_cursor: expected never" },
		{ "allow screencopy telepathy\n", ":1: allow: expected all" },
		{ "kiosk_output two words\n", ":1: kiosk_output: expected each" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_config(bad[i][0]);
		ck_assert(!load(&config, err, sizeof(err)));
		ck_assert_msg(strstr(err, bad[i][1]) != NULL, "%s: %s", bad[i][0], err);
		ck_assert_int_eq(config.kiosk_output, VT_KIOSK_EXTEND);
		ck_assert_int_eq(config.allow, VT_PRIV_ALL);
	}
}
END_TEST

/* The workspace and output actions: workspace and move-to-workspace take
 * a number from 1 to 10, focus output and move-to-output a direction
 * (next, prev, left, right), minimize nothing; each bad form named. */
START_TEST(test_config_workspace_bindings) {
	write_config("bind Logo+1 workspace 1\n"
				 "bind Logo+0 workspace 10\n"
				 "bind Logo+Shift+3 move-to-workspace 3\n"
				 "bind Logo+Left focus output left\n"
				 "bind Logo+Right focus output  right\n"
				 "bind Logo+o focus output next\n"
				 "bind Logo+p focus output prev\n"
				 "bind Logo+Shift+Left move-to-output left\n"
				 "bind Logo+Shift+o move-to-output next\n"
				 "bind Logo+h minimize\n");
	struct vt_config config;
	vt_config_defaults(&config);
	char err[256] = "";
	ck_assert_msg(load(&config, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(config.bindings_len, 10);
	static const struct {
		uint32_t mods, keysym; /* xkbcommon's values */
		enum vt_config_action action;
		int arg;
	} want[] = {
		{ VT_MOD_LOGO, 0x31, VT_ACTION_WORKSPACE, 1 },
		{ VT_MOD_LOGO, 0x30, VT_ACTION_WORKSPACE, 10 },
		{ VT_MOD_LOGO | VT_MOD_SHIFT, 0x33, VT_ACTION_MOVE_TO_WORKSPACE, 3 },
		{ VT_MOD_LOGO, 0xff51, VT_ACTION_FOCUS_OUTPUT, VT_DIR_LEFT },
		{ VT_MOD_LOGO, 0xff53, VT_ACTION_FOCUS_OUTPUT, VT_DIR_RIGHT },
		{ VT_MOD_LOGO, 0x6f, VT_ACTION_FOCUS_OUTPUT, VT_DIR_NEXT },
		{ VT_MOD_LOGO, 0x70, VT_ACTION_FOCUS_OUTPUT, VT_DIR_PREV },
		{ VT_MOD_LOGO | VT_MOD_SHIFT, 0xff51, VT_ACTION_MOVE_TO_OUTPUT,
				VT_DIR_LEFT },
		{ VT_MOD_LOGO | VT_MOD_SHIFT, 0x6f, VT_ACTION_MOVE_TO_OUTPUT,
				VT_DIR_NEXT },
		{ VT_MOD_LOGO, 0x68, VT_ACTION_MINIMIZE, 0 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct vt_config_binding *b =
				vt_config_binding(&config, want[i].mods, want[i].keysym);
		ck_assert_msg(b != NULL && b->action == want[i].action &&
						b->arg == want[i].arg,
				"binding %zu: action %d arg %d", i,
				b != NULL ? (int)b->action : -1, b != NULL ? b->arg : -1);
	}

	static const struct {
		const char *line, *reason;
	} bad[] = {
		{ "bind Alt+x workspace", "expected a workspace number from 1 to 10" },
		{ "bind Alt+x workspace 0", "expected a workspace number" },
		{ "bind Alt+x workspace 11", "expected a workspace number" },
		{ "bind Alt+x workspace two", "expected a workspace number" },
		{ "bind Alt+x move-to-workspace 3 4", "expected a workspace number" },
		{ "bind Alt+x focus output", "expected focus next, focus prev" },
		{ "bind Alt+x focus output up",
				"expected focus output next, prev, "
				"left or right" },
		{ "bind Alt+x focus outputs next", "expected focus next" },
		{ "bind Alt+x move-to-output", "expected move-to-output next" },
		{ "bind Alt+x move-to-output down", "expected move-to-output next" },
		{ "bind Alt+x minimize now", "this action takes no arguments" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text), "bind Alt+y exit\n%s\n", bad[i].line);
		write_config(text);
		ck_assert(!load(&config, err, sizeof(err)));
		ck_assert_msg(strstr(err, ":2: bind: ") != NULL &&
						strstr(err, bad[i].reason) != NULL,
				"'%s': %s", bad[i].line, err);
		ck_assert_int_eq(config.bindings_len, 10);
	}
}
END_TEST

int main(void) {
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, test_config_parses_every_key);
	tcase_add_test(tc, test_config_bad_line_names_file_line_reason);
	tcase_add_test(tc, test_config_bad_file_keeps_previous);
	tcase_add_test(tc, test_config_rejects_bad_values);
	tcase_add_test(tc, test_config_missing_file_is_an_error);
	tcase_add_test(tc, test_config_error_quotes_a_short_escaped_line);
	tcase_add_test(tc, test_config_path_rules);
	tcase_add_test(tc, test_config_scroll);
	tcase_add_test(tc, test_config_bindings);
	tcase_add_test(tc, test_config_outputs);
	tcase_add_test(tc, test_config_decorations);
	tcase_add_test(tc, test_config_kiosk);
	tcase_add_test(tc, test_config_workspace_bindings);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
