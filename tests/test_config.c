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

START_TEST(test_config_rejects_bad_values) {
	static const char *bad[] = {
		"background 102030\n", "background #1020\n", "background #10203g\n",
		"mode tiling\n", "repeat_delay -1\n", "repeat_rate 99999\n",
		"xkb_layout\n",
		"xkb_layout aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
		"path foot\n", "path foot fast\n", "path foot vsync tearing\n",
		"path foot low-latency tear\n", "path foot low-latency tearing x\n",
		"tearing_box 0\n", "tearing_box 200px\n",
		"scroll_extend 1\n", "scroll_extend 2.6\n", "scroll_extend 2x\n",
		"scroll_extend nan\n", "scroll_fling 10\n", "scroll_fling 0.3\n",
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
		path, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
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
			(unsigned char)*p >= 0x80, "raw byte 0x%02x in '%s'",
			(unsigned char)*p, err);
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
	ck_assert_ptr_eq(vt_config_binding(&config, VT_MOD_SHIFT | VT_MOD_ALT,
		0x51), b);
	/* locked modifiers (Caps Lock 1 << 1, Num Lock 1 << 4) do not count */
	ck_assert_ptr_eq(vt_config_binding(&config,
		VT_MOD_SHIFT | VT_MOD_ALT | 1u << 1 | 1u << 4, 0x71), b);
	ck_assert_ptr_null(vt_config_binding(&config, VT_MOD_ALT, 0x71));
	b = vt_config_binding(&config, VT_MOD_LOGO, 0xff09);
	ck_assert(b != NULL && b->action == VT_ACTION_FOCUS_NEXT);
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
		{ "bind Alt+x focus left", "expected focus next or focus prev" },
		{ "bind Alt+x close now", "this action takes no arguments" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text), "bind Alt+y exit\n%s\n", bad[i].line);
		write_config(text);
		ck_assert(!load(&config, err, sizeof(err)));
		ck_assert_msg(strstr(err, ":2: bind: ") != NULL &&
			strstr(err, bad[i].reason) != NULL, "'%s': %s", bad[i].line,
			err);
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
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
