#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "render_fixture.h"

struct vr_renderer *renderer;
struct vr_tree *tree;
struct vr_node *root;
int log_errors;

void test_log(enum vr_log_level level, const char *fmt, va_list args) {
	if (level == VR_LOG_ERROR) {
		log_errors++;
	}
	if (level <= VR_LOG_INFO) {
		fprintf(stderr, "[renderer] ");
		vfprintf(stderr, fmt, args);
		fputc('\n', stderr);
	}
}

void setup(void) {
	vr_set_log_func(test_log);
	log_errors = 0;
	/* validation is on whenever the layer is installed */
	struct vr_renderer_options opts = {
		.validation = getenv("VITRAIL_TEST_NO_VALIDATION") == NULL,
	};
	renderer = vr_renderer_create(&opts);
	ck_assert_ptr_nonnull(renderer);
	tree = vr_tree_create();
	root = vr_tree_root(tree);
}

void teardown(void) {
	vr_tree_destroy(tree);
	vr_renderer_destroy(renderer);
	vr_set_log_func(NULL);
}

void assert_no_errors(void) {
	ck_assert_msg(log_errors == 0, "%d renderer/validation errors logged",
			log_errors);
}

void out_path(char *buf, size_t size, const char *name, const char *suffix) {
	/* meson sets VITRAIL_TEST_OUT; by hand without it, /tmp (never the
	 * working tree) */
	const char *dir = getenv("VITRAIL_TEST_OUT");
	if (dir == NULL || dir[0] == '\0') {
		dir = "/tmp";
	}
	snprintf(buf, size, "%s/%s-%s.png", dir, name, suffix);
}

void write_failure_images(const char *name, const uint32_t *actual,
		const uint32_t *expected, int32_t w, int32_t h) {
	char path[512];
	uint32_t *diff = malloc((size_t)w * (size_t)h * 4);
	for (int32_t i = 0; i < w * h; i++) {
		int worst = 0;
		for (int c = 0; c < 32; c += 8) {
			int d = abs((int)((actual[i] >> c) & 0xff) -
					(int)((expected[i] >> c) & 0xff));
			worst = d > worst ? d : worst;
		}
		uint32_t v = worst == 0 ?
				0 :
				(uint32_t)(worst * 4 + 64 > 255 ? 255 : worst * 4 + 64);
		diff[i] = 0xff000000u | v << 16;
	}
	out_path(path, sizeof(path), name, "actual");
	vr_png_write(path, actual, w, h, w * 4, false);
	out_path(path, sizeof(path), name, "expected");
	vr_png_write(path, expected, w, h, w * 4, false);
	out_path(path, sizeof(path), name, "diff");
	vr_png_write(path, diff, w, h, w * 4, true);
	fprintf(stderr, "%s: wrote %s-{actual,expected,diff}.png\n", name, name);
	free(diff);
}

void pin_vulkan_driver(void) {
	(void)dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
}

int run_vulkan_suite(Suite *suite) {
	pin_vulkan_driver();
	vr_set_log_func(test_log);
	struct vr_renderer *probe = vr_renderer_create(NULL);
	vr_set_log_func(NULL);
	if (probe == NULL) {
		fprintf(stderr, "no Vulkan device: skipping\n");
		return 77;
	}
	fprintf(stderr, "device: %s\n", vr_renderer_device_name(probe));
	vr_renderer_destroy(probe);

	SRunner *sr = srunner_create(suite);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
