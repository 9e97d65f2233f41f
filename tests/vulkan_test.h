/*
 * What every Vulkan test program shares: the renderer's log counted,
 * failure images, and a main that skips (77) without a Vulkan device.
 */
#ifndef TESTS_VULKAN_TEST_H
#define TESTS_VULKAN_TEST_H

#include <check.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <vitrail/renderer.h>

extern int log_errors; /* errors the renderer logged */

/* Counts errors; prints errors and info. */
void test_log(enum vr_log_level level, const char *fmt, va_list args);
/* $VITRAIL_TEST_OUT/<name>-<suffix>.png (or ./ without it). */
void out_path(char *buf, size_t size, const char *name, const char *suffix);
/* Write <name>-{actual,expected,diff}.png into $VITRAIL_TEST_OUT. */
void write_failure_images(const char *name, const uint32_t *actual,
		const uint32_t *expected, int32_t w, int32_t h);
/* Keep lavapipe loaded so LeakSanitizer can name its module. */
void pin_vulkan_driver(void);
/* A test program's main: exit 77 (skip) without a Vulkan device, else run
 * the suite and return the exit status. */
int run_vulkan_suite(Suite *suite);

#endif
