/*
 * What the Vulkan-vs-reference tests share: a renderer and a tree per test
 * (Check fixture), renderer errors counted, and failure images.
 */
#ifndef TESTS_RENDER_FIXTURE_H
#define TESTS_RENDER_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <vitrail/renderer.h>

extern struct vr_renderer *renderer;
extern struct vr_tree *tree;
extern struct vr_node *root;
extern int log_errors; /* errors the renderer logged since setup */

/* Counts errors; prints errors and info. */
void test_log(enum vr_log_level level, const char *fmt, va_list args);
/* Check fixture: a renderer (with the validation layer whenever it is
 * installed, unless VITRAIL_TEST_NO_VALIDATION is set) and an empty tree. */
void setup(void);
void teardown(void);
void assert_no_errors(void);
/* $VITRAIL_TEST_OUT/<name>-<suffix>.png (or ./ without it). */
void out_path(char *buf, size_t size, const char *name, const char *suffix);
/* Write <name>-{actual,expected,diff}.png into $VITRAIL_TEST_OUT. */
void write_failure_images(const char *name, const uint32_t *actual,
	const uint32_t *expected, int32_t w, int32_t h);
/* Keep lavapipe loaded so LeakSanitizer can name its module. */
void pin_vulkan_driver(void);

#endif
