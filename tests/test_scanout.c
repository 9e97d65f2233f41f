/*
 * Direct scan-out's format rule (compositor/output/scanout.c), without a
 * GPU: which client dmabufs may be shown in place of a composed frame,
 * against primary-plane format sets written out here by hand. The whole
 * path runs in test_dmabuf.c (cases scanout, scanout_then_composed).
 */
#include <check.h>
#include <drm_fourcc.h>
#include <stdio.h>
#include <string.h>
#include <wlr/render/drm_format_set.h>

#include "output/scanout.h"

static bool ok(const struct wlr_drm_format_set *plane, uint32_t format,
		uint64_t modifier, bool opaque) {
	char why[160] = "";
	bool yes = vt_scanout_format_ok(plane, format, modifier, opaque, why,
			sizeof(why));
	/* a refusal always says why; a pass says nothing */
	ck_assert_msg(yes == (why[0] == '\0'), "why: '%s'", why);
	return yes;
}

/* Without a plane's list (headless): the format and the opaque region
 * decide. */
START_TEST(test_scanout_formats_without_plane) {
	ck_assert(ok(NULL, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR, false));
	ck_assert(ok(NULL, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR, true));
	/* alpha: only with an opaque region over all of it */
	ck_assert(!ok(NULL, DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_LINEAR, false));
	ck_assert(ok(NULL, DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_LINEAR, true));
	/* what screenshots could not read as the output's pixels */
	ck_assert(!ok(NULL, DRM_FORMAT_ABGR8888, DRM_FORMAT_MOD_LINEAR, true));
	ck_assert(!ok(NULL, DRM_FORMAT_XBGR8888, DRM_FORMAT_MOD_LINEAR, true));
	ck_assert(!ok(NULL, DRM_FORMAT_NV12, DRM_FORMAT_MOD_LINEAR, true));
	ck_assert(!ok(NULL, DRM_FORMAT_RGB565, DRM_FORMAT_MOD_LINEAR, true));
}
END_TEST

/* A plane's list: only its (format, modifier) pairs. */
START_TEST(test_scanout_formats_of_plane) {
	struct wlr_drm_format_set plane = { 0 };
	/* XRGB8888 linear and tiled; ARGB8888 tiled only */
	ck_assert(wlr_drm_format_set_add(&plane, DRM_FORMAT_XRGB8888,
			DRM_FORMAT_MOD_LINEAR));
	ck_assert(wlr_drm_format_set_add(&plane, DRM_FORMAT_XRGB8888,
			I915_FORMAT_MOD_X_TILED));
	ck_assert(wlr_drm_format_set_add(&plane, DRM_FORMAT_ARGB8888,
			I915_FORMAT_MOD_X_TILED));
	ck_assert(ok(&plane, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR, false));
	ck_assert(ok(&plane, DRM_FORMAT_XRGB8888, I915_FORMAT_MOD_X_TILED, false));
	ck_assert(!ok(&plane, DRM_FORMAT_XRGB8888, I915_FORMAT_MOD_Y_TILED, false));
	/* opaque, but the plane has no linear ARGB8888 */
	ck_assert(!ok(&plane, DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_LINEAR, true));
	ck_assert(ok(&plane, DRM_FORMAT_ARGB8888, I915_FORMAT_MOD_X_TILED, true));
	/* and still not without an opaque region */
	ck_assert(!ok(&plane, DRM_FORMAT_ARGB8888, I915_FORMAT_MOD_X_TILED, false));
	/* an empty list takes nothing */
	struct wlr_drm_format_set none = { 0 };
	ck_assert(!ok(&none, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR, false));
	wlr_drm_format_set_finish(&plane);
}
END_TEST

/* The reason names the refused format and modifier. */
START_TEST(test_scanout_refusal_says_why) {
	struct wlr_drm_format_set plane = { 0 };
	ck_assert(wlr_drm_format_set_add(&plane, DRM_FORMAT_XRGB8888,
			I915_FORMAT_MOD_X_TILED));
	char why[160] = "";
	ck_assert(!vt_scanout_format_ok(&plane, DRM_FORMAT_XRGB8888,
			DRM_FORMAT_MOD_LINEAR, false, why, sizeof(why)));
	ck_assert_msg(strstr(why, "0x34325258") != NULL, "why: %s", why);
	ck_assert_msg(strstr(why, "0x0000000000000000") != NULL, "why: %s", why);
	wlr_drm_format_set_finish(&plane);
}
END_TEST

int main(void) {
	Suite *s = suite_create("scanout");
	TCase *tc = tcase_create("formats");
	tcase_add_test(tc, test_scanout_formats_without_plane);
	tcase_add_test(tc, test_scanout_formats_of_plane);
	tcase_add_test(tc, test_scanout_refusal_says_why);
	suite_add_tcase(s, tc);
	SRunner *runner = srunner_create(s);
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? 0 : 1;
}
