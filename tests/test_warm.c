/*
 * First use without a stall (renderer/warm.c, renderer/pipeline_cache.c):
 *   - a display list warmed before its first frame (its glyphs rasterised,
 *     its shadows' scratch images made) is rendered without rasterising a
 *     glyph or creating a scratch image, and its pixels are those of the
 *     same list rendered cold (bit for bit; the cold render runs in a
 *     child process, whose glyph atlas starts as empty as the parent's)
 *     and of the pixman reference (the tolerances of test_primitives.c);
 *   - vr_renderer_warm_pipelines creates every pipeline of the engine, and
 *     with the cache file it wrote, a new renderer's first frame drawing
 *     every primitive kind creates none;
 *   - a truncated or foreign cache file is ignored and replaced;
 *     VITRAIL_PIPELINE_CACHE=0 writes none;
 *   - the parallel mode's granularity is measured once and kept beside the
 *     pipeline cache (granularity.txt): a later process takes its key's
 *     line as it is; a garbled file is measured again and replaced.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _XOPEN_SOURCE 700 /* nftw */
#include <check.h>
#include <math.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vitrail/canvas.h>
#include <vitrail/renderer.h>

#include "vulkan_test.h"
#include "engine_kinds.h"
#include "engine_private.h"
#include "vk_private.h"

#define W 200
#define H 120
#define TEXT 1 /* 1:1 glyphs against the reference */
#define SHADOW 2

static struct vr_renderer *rend;
static struct vr_tree *tr;
static struct vr_node *troot;

/* A renderer as the other render tests make it, and an empty tree. */
static void setup(void) {
	vr_set_log_func(test_log);
	log_errors = 0;
	struct vr_renderer_options opts = {
		.validation = getenv("VITRAIL_TEST_NO_VALIDATION") == NULL,
	};
	rend = vr_renderer_create(&opts);
	ck_assert_ptr_nonnull(rend);
	tr = vr_tree_create();
	troot = vr_tree_root(tr);
}

static void teardown(void) {
	vr_tree_destroy(tr);
	vr_renderer_destroy(rend);
	vr_set_log_func(NULL);
}

static void assert_no_errors(void) {
	ck_assert_msg(log_errors == 0, "%d renderer/validation errors logged",
			log_errors);
}

static uint32_t *reference(int32_t w, int32_t h) {
	uint32_t *pixels = calloc((size_t)w * (size_t)h, 4);
	pixman_image_t *dst =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, w, h, pixels, w * 4);
	struct vr_mat view = { .a = 1, .d = 1 };
	vr_reference_render(tr, dst, &view, (struct vr_color){ 0 });
	pixman_image_unref(dst);
	return pixels;
}

static void render_into(struct vr_target *target, uint32_t *pixels) {
	struct vr_render_job job = { .target = target, .view = { .a = 1, .d = 1 } };
	ck_assert(vr_render(rend, tr, &job, 1));
	vr_target_read(target, NULL, pixels, W * 4);
}

static void compare(const char *name, const uint32_t *actual,
		const uint32_t *expected, int tolerance) {
	int max_diff;
	size_t bad = vr_pixels_compare(actual, W * 4, expected, W * 4, W, H,
			tolerance, &max_diff);
	fprintf(stderr, "%s: max difference %d, %zu pixels over %d\n", name,
			max_diff, bad, tolerance);
	if (bad > 0) {
		write_failure_images(name, actual, expected, W, H);
	}
	ck_assert_msg(bad == 0, "%s: %zu pixels differ by more than %d (max %d)",
			name, bad, tolerance, max_diff);
}

/* Text no other test draws at this size (so its glyphs are new to the
 * atlas), over a card with a blurred shadow, at a whole-pixel position. */
static struct vr_display_list *text_list(void) {
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 10, 10, 150, 60 },
			(struct vr_radii){ 8, 8, 8, 8 }, 12.0f,
			(struct vr_color){ 0, 0, 0, 0.4f });
	struct vr_paint card = { .color = { 1, 1, 1, 1 } };
	vr_canvas_draw_rrect(c, (struct vr_rectf){ 10, 10, 150, 60 },
			(struct vr_radii){ 8, 8, 8, 8 }, &card);
	struct vr_font font = { "DejaVu Sans", 13.25f, 400 };
	vr_canvas_draw_text(c, 20, 35, "Warm glyphs: Qzx 0123 fi", &font,
			(struct vr_color){ 0.1f, 0.1f, 0.2f, 1 });
	struct vr_font bold = { "DejaVu Sans", 15.75f, 700 };
	vr_canvas_draw_text(c, 20, 60, "Ahead of time", &bold,
			(struct vr_color){ 0.7f, 0.1f, 0.1f, 0.8f });
	return vr_canvas_finish(c);
}

static struct vr_node *list_node(struct vr_display_list *list, float x,
		float y) {
	struct vr_node *node = vr_node_create(tr);
	vr_node_set_position(node, x, y);
	vr_node_set_display_list(node, list);
	vr_node_set_parent(node, troot);
	return node;
}

/* The list rendered cold (no warming), as a fresh process would: in a
 * child with a renderer of its own. */
static void render_cold_in_child(uint32_t *shared) {
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setup();
		struct vr_display_list *list = text_list();
		list_node(list, 4, 6);
		vr_tree_update(tr, NULL);
		struct vr_target *target = vr_target_create(rend, W, H);
		size_t before = vr_glyph_atlas_rasterized();
		render_into(target, shared);
		/* cold: the frame rasterised them */
		int status =
				vr_glyph_atlas_rasterized() > before && log_errors == 0 ? 0 : 1;
		vr_target_destroy(target);
		vr_display_list_unref(list);
		teardown();
		_exit(status);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			"the cold render failed");
}

START_TEST(test_warm_display_list) {
	size_t bytes = (size_t)W * H * 4;
	uint32_t *cold = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(cold, MAP_FAILED);
	render_cold_in_child(cold);

	setup();
	struct vr_display_list *list = text_list();
	size_t warmed = vr_glyph_atlas_warmed();
	struct vr_resource_stats stats;
	vr_renderer_resource_stats(rend, &stats);
	unsigned scratch_warmed = stats.scratch_warmed;
	/* committed at (4, 6) of a target drawn 1:1 */
	struct vr_mat to_pixels = { .a = 1, .d = 1, .tx = 4, .ty = 6 };
	vr_renderer_warm_display_list(rend, list, &to_pixels);
	ck_assert_uint_gt(vr_glyph_atlas_warmed(), warmed);
	vr_renderer_resource_stats(rend, &stats);
	ck_assert_uint_eq(stats.scratch_warmed - scratch_warmed, 3);

	list_node(list, 4, 6);
	vr_tree_update(tr, NULL);
	struct vr_target *target = vr_target_create(rend, W, H);
	uint32_t *warm = calloc((size_t)W * H, 4);
	size_t rasterized = vr_glyph_atlas_rasterized();
	vr_renderer_resource_stats(rend, &stats);
	unsigned scratch_created = stats.scratch_created;
	render_into(target, warm);
	/* the frame found every glyph and every scratch image ready */
	ck_assert_uint_eq(vr_glyph_atlas_rasterized(), rasterized);
	vr_renderer_resource_stats(rend, &stats);
	ck_assert_uint_eq(stats.scratch_created, scratch_created);

	compare("warm-vs-cold", warm, cold, 0);
	uint32_t *expected = reference(W, H);
	/* the shadow is the widest tolerance in the list */
	compare("warm-vs-reference", warm, expected, SHADOW);
	free(expected);
	free(warm);
	vr_target_destroy(target);
	vr_display_list_unref(list);
	assert_no_errors();
	teardown();
	munmap(cold, bytes);
}
END_TEST

/* ---- pipelines ------------------------------------------------------------
 */

static char cache_home[256];

static void cache_setup(void) {
	snprintf(cache_home, sizeof(cache_home), "/tmp/vitrail-test-warm-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(cache_home));
	setenv("XDG_CACHE_HOME", cache_home, 1);
	unsetenv("VITRAIL_PIPELINE_CACHE");
}

static void cache_path(char *buf, size_t size) {
	snprintf(buf, size, "%s/vitrail/pipeline-cache.bin", cache_home);
}

static int remove_entry(const char *path, const struct stat *st, int type,
		struct FTW *ftw) {
	return remove(path);
}

/* The directory and everything in it (Mesa keeps its shader cache in
 * XDG_CACHE_HOME too). */
static void cache_teardown(void) {
	nftw(cache_home, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void *read_all(const char *path, size_t *size) {
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	void *data = malloc(n > 0 ? (size_t)n : 1);
	*size = fread(data, 1, n > 0 ? (size_t)n : 0, f);
	fclose(f);
	return data;
}

static void write_all(const char *path, const void *data, size_t size) {
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, size, f), size);
	fclose(f);
}

/* A tr drawing every primitive kind: solid and image quads (ARGB,
 * XRGB, scaled), shapes, strokes and paths, text (1:1 and rotated),
 * shadows, images under a rounded clip. */
static void every_kind(struct vr_image *image) {
	struct vr_node *rect = vr_node_create(tr);
	vr_node_set_rect(rect, 20, 20, (struct vr_color){ 0, 0.5f, 0, 1 });
	vr_node_set_parent(rect, troot);
	struct vr_node *img = vr_node_create(tr);
	vr_node_set_image(img, image, NULL, 13, 9, VR_TRANSFORM_90);
	vr_node_set_position(img, 170, 90);
	vr_node_set_parent(img, troot);

	struct vr_canvas *c = vr_canvas_begin();
	struct vr_paint fill = { .color = { 0.2f, 0.3f, 0.9f, 0.9f } };
	struct vr_paint stroke = fill;
	stroke.stroke_width = 3;
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 30, 10, 50, 30 },
			(struct vr_radii){ 4, 4, 4, 4 }, 8,
			(struct vr_color){ 0, 0, 0, 1 });
	vr_canvas_draw_rrect(c, (struct vr_rectf){ 30, 10, 50, 30 },
			(struct vr_radii){ 4, 4, 4, 4 }, &fill);
	vr_canvas_draw_ellipse(c, (struct vr_rectf){ 90, 10, 30, 20 }, &stroke);
	vr_canvas_draw_line(c, 10, 60, 80, 70, &stroke);
	const float tri[6] = { 100, 50, 140, 60, 110, 90 };
	vr_canvas_draw_polyline(c, tri, 3, true, &fill);
	struct vr_font font = { "DejaVu Sans", 12, 400 };
	vr_canvas_draw_text(c, 10, 100, "Every kind", &font,
			(struct vr_color){ 0, 0, 0, 1 });
	vr_canvas_save(c);
	vr_canvas_translate(c, 120, 100);
	vr_canvas_rotate(c, 0.4f);
	vr_canvas_draw_text(c, 0, 0, "turned", &font,
			(struct vr_color){ 0, 0, 0, 1 });
	vr_canvas_restore(c);
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 150, 10, 40, 40 },
			(struct vr_radii){ 10, 10, 10, 10 });
	vr_canvas_draw_image(c, image, NULL, (struct vr_rectf){ 150, 10, 40, 40 },
			0.8f);
	struct vr_display_list *list = vr_canvas_finish(c);
	list_node(list, 0, 0);
	vr_display_list_unref(list);
	vr_tree_update(tr, NULL);
}

START_TEST(test_warm_pipelines_cached) {
	cache_setup();
	/* cold: no file yet */
	setup();
	uint64_t t0 = vr_now_ns();
	ck_assert(vr_renderer_warm_pipelines(rend));
	uint64_t cold_ns = vr_now_ns() - t0;
	struct vr_resource_stats stats;
	vr_renderer_resource_stats(rend, &stats);
	ck_assert_uint_eq(stats.pipelines_created, vr_engine_pipeline_count);
	assert_no_errors();
	teardown();
	char path[320];
	cache_path(path, sizeof(path));
	size_t size = 0;
	void *data = read_all(path, &size);
	ck_assert_msg(data != NULL, "no cache file %s", path);
	free(data);

	/* with the file: every pipeline before the first frame, none in it */
	setup();
	t0 = vr_now_ns();
	ck_assert(vr_renderer_warm_pipelines(rend));
	uint64_t warm_ns = vr_now_ns() - t0;
	fprintf(stderr,
			"warm_pipelines: %.1f ms cold, %.1f ms with the cache "
			"file (%zu bytes)\n",
			(double)cold_ns / 1e6, (double)warm_ns / 1e6, size);
	struct vr_image *image = vr_image_create(8, 8, VR_FORMAT_XRGB8888);
	uint32_t pixels[64];
	for (int i = 0; i < 64; i++) {
		pixels[i] = 0xff000000u | (uint32_t)i * 0x030507u;
	}
	vr_image_write(image, pixels, 32, NULL);
	every_kind(image);
	vr_renderer_resource_stats(rend, &stats);
	unsigned before = stats.pipelines_created;
	ck_assert_uint_eq(before, vr_engine_pipeline_count);
	struct vr_target *target = vr_target_create(rend, W, H);
	uint32_t *actual = calloc((size_t)W * H, 4);
	render_into(target, actual);
	vr_renderer_resource_stats(rend, &stats);
	ck_assert_uint_eq(stats.pipelines_created, before);
	free(actual);
	vr_target_destroy(target);
	vr_image_unref(image);
	assert_no_errors();
	teardown();
	cache_teardown();
}
END_TEST

START_TEST(test_warm_cache_rejects_bad_files) {
	cache_setup();
	char path[320], dir[300];
	snprintf(dir, sizeof(dir), "%s/vitrail", cache_home);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	cache_path(path, sizeof(path));

	/* truncated: shorter than a header; replaced by a valid file */
	write_all(path, "\x20\0\0\0\1\0", 6);
	setup();
	ck_assert(vr_renderer_warm_pipelines(rend));
	assert_no_errors();
	teardown();

	/* headers are checked against a live device */
	setup();
	VkPhysicalDevice phdev = rend->phdev;
	size_t size = 0;
	uint8_t *data = read_all(path, &size);
	ck_assert_ptr_nonnull(data);
	ck_assert(vr_pipeline_cache_data_valid(phdev, data, size, "written"));
	/* a header claiming more than the file holds */
	uint8_t bad[32];
	ck_assert_uint_ge(size, sizeof(bad));
	memcpy(bad, data, sizeof(bad));
	bad[0] = 0xff;
	ck_assert(!vr_pipeline_cache_data_valid(phdev, bad, sizeof(bad),
			"header size"));
	/* another device's: the vendor changed */
	data[8] ^= 0xff;
	ck_assert(!vr_pipeline_cache_data_valid(phdev, data, size, "foreign"));
	teardown(); /* nothing new: writes nothing */
	write_all(path, data, size);
	free(data);

	/* the foreign file is ignored, then replaced */
	setup();
	ck_assert(vr_renderer_warm_pipelines(rend));
	assert_no_errors();
	teardown();
	setup();
	data = read_all(path, &size);
	ck_assert_ptr_nonnull(data);
	ck_assert(
			vr_pipeline_cache_data_valid(rend->phdev, data, size, "rewritten"));
	free(data);
	teardown();

	/* disabled: no file written */
	unlink(path);
	setenv("VITRAIL_PIPELINE_CACHE", "0", 1);
	setup();
	ck_assert(vr_renderer_warm_pipelines(rend));
	teardown();
	unsetenv("VITRAIL_PIPELINE_CACHE");
	ck_assert_int_ne(access(path, F_OK), 0);
	cache_teardown();
}
END_TEST

/* The granularity's figures are measured once and kept beside the
 * pipeline cache: a later process takes the line of its key as it is
 * (figures no measurement would give prove it read them), a garbled file
 * is ignored and replaced by a measured line. */
static void child_granularity(struct vr_granularity *out) {
	struct vr_granularity *shared = mmap(NULL, sizeof(*shared),
			PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(shared, MAP_FAILED);
	memset(shared, 0, sizeof(*shared));
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setup();
		bool ok = vr_renderer_warm_pipelines(rend);
		vr_renderer_get_granularity(rend, shared);
		teardown();
		_exit(ok ? 0 : 1);
	}
	int status = 0;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	*out = *shared;
	munmap(shared, sizeof(*shared));
}

START_TEST(test_warm_granularity_cached) {
	cache_setup();
	char path[320];
	snprintf(path, sizeof(path), "%s/vitrail/granularity.txt", cache_home);
	struct vr_granularity measured;
	child_granularity(&measured);
	ck_assert(measured.calibrated);
	size_t size = 0;
	char *text = read_all(path, &size);
	ck_assert_ptr_nonnull(text);
	char key[200];
	double f[4];
	ck_assert_int_eq(sscanf(text, "%199s %lf %lf %lf %lf", key, &f[0], &f[1],
							 &f[2], &f[3]),
			5);
	free(text);
	ck_assert(fabs(f[0] - measured.handoff_ns) < 0.1);
	ck_assert(fabs(f[1] - measured.unit_ns) < 0.01);

	/* a line of our own for this key, among another key's */
	char line[400];
	int n = snprintf(line, sizeof(line),
			"other:key 1.0 1.0 1.0 1.0\n"
			"%s 2000.0 100.00 50000.0 25.0000\n",
			key);
	write_all(path, line, (size_t)n);
	struct vr_granularity taken;
	child_granularity(&taken);
	ck_assert(taken.calibrated);
	ck_assert(taken.handoff_ns == 2000.0 && taken.unit_ns == 100.0 &&
			taken.frame_overhead_ns == 50000.0 &&
			taken.gain_ns_per_unit == 25.0);
	/* the rule: chunks of 8 * 2000 / 100 units, parallel from
	 * 50000 / 25 units */
	ck_assert_uint_eq(taken.chunk_cost, 160);
	ck_assert_uint_eq(taken.parallel_cost, 2000);

	/* garbage: measured again, and the file holds a sane line again */
	write_all(path, "\x01garbage\n", 9);
	struct vr_granularity again;
	child_granularity(&again);
	ck_assert(again.calibrated && again.unit_ns > 0.0);
	text = read_all(path, &size);
	ck_assert_ptr_nonnull(text);
	char key2[200];
	ck_assert_int_eq(sscanf(text, "%199s %lf %lf %lf %lf", key2, &f[0], &f[1],
							 &f[2], &f[3]),
			5);
	ck_assert_str_eq(key2, key);
	free(text);
	cache_teardown();
}
END_TEST

static Suite *warm_suite(void) {
	Suite *s = suite_create("warm");
	TCase *tc = tcase_create("display_list");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_warm_display_list);
	suite_add_tcase(s, tc);
	tc = tcase_create("pipelines");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_warm_pipelines_cached);
	tcase_add_test(tc, test_warm_cache_rejects_bad_files);
	tcase_add_test(tc, test_warm_granularity_cached);
	suite_add_tcase(s, tc);
	return s;
}

int main(void) {
	return run_vulkan_suite(warm_suite());
}
