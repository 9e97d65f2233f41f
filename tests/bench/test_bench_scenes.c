/*
 * The benchmark's scene importers, without Vulkan: the tree-dump importer
 * on our quirks dump (tests/scenes/rstree-quirks.txt) and on the authors'
 * dumps when they are present, and every JSON scene of tests/scenes.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jpeglib.h>
#include "rstree.h"
#include "scene.h"
#include "scene_json.h"

static char texture_dir[1024];

/* An 8x8 PNG and JPEG for the quirks dump to find. */
static void write_textures(void) {
	const char *out = getenv("VITRAIL_TEST_OUT");
	snprintf(texture_dir, sizeof(texture_dir), "%s/bench-textures",
			out != NULL && out[0] != '\0' ? out : "/tmp");
	mkdir(texture_dir, 0755);
	uint32_t pixels[64];
	for (size_t i = 0; i < 64; i++) {
		pixels[i] = 0xff000000u | (uint32_t)(i * 4) << 16;
	}
	char path[1100];
	snprintf(path, sizeof(path), "%s/present.png", texture_dir);
	ck_assert(vr_png_write(path, pixels, 8, 8, 32, false));

	snprintf(path, sizeof(path), "%s/present.jpg", texture_dir);
	FILE *file = fopen(path, "wb");
	ck_assert_ptr_nonnull(file);
	struct jpeg_compress_struct cinfo;
	struct jpeg_error_mgr err;
	cinfo.err = jpeg_std_error(&err);
	jpeg_create_compress(&cinfo);
	jpeg_stdio_dest(&cinfo, file);
	cinfo.image_width = 8;
	cinfo.image_height = 8;
	cinfo.input_components = 3;
	cinfo.in_color_space = JCS_RGB;
	jpeg_set_defaults(&cinfo);
	jpeg_start_compress(&cinfo, TRUE);
	uint8_t row[24];
	memset(row, 0x80, sizeof(row));
	while (cinfo.next_scanline < 8) {
		JSAMPROW rows[1] = { row };
		jpeg_write_scanlines(&cinfo, rows, 1);
	}
	jpeg_finish_compress(&cinfo);
	jpeg_destroy_compress(&cinfo);
	fclose(file);
}

static const struct bench_op *find_text(const struct bench_node *node,
		const char *text) {
	for (size_t i = 0; i < node->dl.len; i++) {
		const struct bench_op *op = &node->dl.ops[i];
		if (op->type == BENCH_OP_TEXT && strcmp(op->text, text) == 0) {
			return op;
		}
	}
	for (size_t i = 0; i < node->nchildren; i++) {
		const struct bench_op *op = find_text(node->children[i], text);
		if (op != NULL) {
			return op;
		}
	}
	return NULL;
}

START_TEST(test_bench_scenes_rstree_quirks) {
	write_textures();
	struct rstree_info info;
	struct bench_scene *scene = rstree_load(
			BENCH_SCENES_DIR "/rstree-quirks.txt", texture_dir, &info);
	ck_assert_ptr_nonnull(scene);
	ck_assert_uint_eq(info.lines, 14);
	ck_assert_uint_eq(info.comment_lines, 1);
	ck_assert_uint_eq(info.duplicate_ids, 3);
	ck_assert_uint_eq(info.fullwidth_commas, 1); /* the quoted one stays */
	ck_assert_uint_eq(info.missing_images, 2);
	/* a fifth Bounds value, two CornerRadius values */
	ck_assert_uint_eq(info.malformed, 2);

	const struct bench_stats *stats = &scene->stats;
	ck_assert_uint_eq(stats->nodes, 15); /* the scene's root + 14 */
	ck_assert_uint_eq(stats->commands, 12);
	ck_assert_uint_eq(stats->images, 3);
	ck_assert_uint_eq(stats->texts, 2);
	ck_assert_uint_eq(stats->placeholders, 2);
	ck_assert_uint_eq(stats->unique_images, 2);
	/* photo41.jpg once, the 7-digit colour, the unknown font, the two
	 * malformed values */
	ck_assert_uint_eq(stats->warnings, 5);
	/* no background painted by the root: OpenHarmony's white */
	ck_assert_float_eq(scene->clear.r, 1.0f);
	ck_assert_float_eq(scene->clear.g, 1.0f);
	ck_assert_float_eq(scene->clear.b, 1.0f);
	ck_assert_float_eq(scene->clear.a, 1.0f);

	ck_assert_uint_eq(scene->noutputs, 1);
	ck_assert_int_eq(scene->outputs[0].width, 400);
	ck_assert_int_eq(scene->outputs[0].height, 300);

	const struct bench_op *hello =
			find_text(scene->root, "Hello, world，again");
	ck_assert_ptr_nonnull(hello);
	ck_assert_str_eq(hello->font.family, "DejaVu Sans");
	ck_assert_float_eq(hello->font.size, 24.0f);

	/* RS_NODE (-inf bounds) at the origin; DISPLAY and SURFACE clip */
	const struct bench_node *rs = scene->root->children[0];
	ck_assert_float_eq(rs->x, 0.0f);
	ck_assert(!rs->has_clip);
	const struct bench_node *display = rs->children[0];
	ck_assert(display->has_clip);
	const struct bench_node *surface = display->children[0];
	ck_assert(surface->has_clip);
	ck_assert_str_eq(surface->name, "Quirks");
	ck_assert_uint_eq(surface->nchildren, 10);
	/* the fifth Bounds value dropped, the rest kept */
	const struct bench_node *ten = surface->children[8];
	ck_assert_float_eq(ten->x, 300.0f);
	ck_assert_float_eq(ten->dl.ops[0].rect.width, 50.0f);
	/* CornerRadius[8 4]: the last value repeated */
	const struct bench_op *rrect = &surface->children[9]->dl.ops[0];
	ck_assert_int_eq(rrect->type, BENCH_OP_RRECT);
	ck_assert_float_eq(rrect->radii.tl, 8.0f);
	ck_assert_float_eq(rrect->radii.tr, 4.0f);
	ck_assert_float_eq(rrect->radii.br, 4.0f);
	ck_assert_float_eq(rrect->radii.bl, 4.0f);
	/* CANVAS_NODE[6] under [5], its 0xfffffff read as opaque white */
	const struct bench_node *five = surface->children[5];
	ck_assert_uint_eq(five->nchildren, 1);
	const struct bench_op *circle = &five->children[0]->dl.ops[0];
	ck_assert_int_eq(circle->type, BENCH_OP_ELLIPSE);
	ck_assert_float_eq(circle->paint.color.a, 1.0f);
	ck_assert_float_eq(circle->paint.color.r, 1.0f);
	/* the rounded image: save, clip, image, restore */
	const struct bench_node *seven = surface->children[6];
	ck_assert_uint_eq(seven->dl.len, 4);
	ck_assert_int_eq(seven->dl.ops[1].type, BENCH_OP_CLIP_RRECT);
	ck_assert_int_eq(seven->dl.ops[2].type, BENCH_OP_IMAGE);

	/* it becomes a render tree */
	struct vr_tree *tree = bench_scene_realise(scene);
	ck_assert_ptr_nonnull(tree);
	vr_tree_update(tree, NULL);
	bench_scene_release(scene, tree);
	bench_scene_destroy(scene);
}
END_TEST

static size_t list(const char *dir, const char *suffix, char names[][512],
		size_t max) {
	DIR *d = opendir(dir);
	if (d == NULL) {
		return 0;
	}
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && n < max) {
		size_t len = strlen(e->d_name), slen = strlen(suffix);
		if (len > slen && strcmp(e->d_name + len - slen, suffix) == 0) {
			snprintf(names[n++], 512, "%.200s/%.255s", dir, e->d_name);
		}
	}
	closedir(d);
	return n;
}

START_TEST(test_bench_scenes_rstree_authors) {
	static char names[64][512];
	size_t n = list(BENCH_RSTREE_DIR, "-M70.txt", names, 64);
	if (n == 0) {
		fprintf(stderr, "%s: no tree dumps, nothing to check\n",
				BENCH_RSTREE_DIR);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct rstree_info info;
		struct bench_scene *scene =
				rstree_load(names[i], BENCH_RSTREE_DIR "/textures", &info);
		ck_assert_msg(scene != NULL, "%s not loaded", names[i]);
		ck_assert_uint_eq(scene->stats.nodes, info.lines + 1);
		ck_assert_uint_gt(scene->stats.commands, 10);
		/* the phone's 1216 x 2688 (social-M70 says 2628) */
		ck_assert_int_eq(scene->outputs[0].width, 1216);
		ck_assert_int_ge(scene->outputs[0].height, 2600);
		fprintf(stderr,
				"%s: %zu nodes, %zu draws (%zu images, %zu texts, "
				"%zu placeholders), %zu repeated ids\n",
				scene->name, scene->stats.nodes, scene->stats.commands,
				scene->stats.images, scene->stats.texts,
				scene->stats.placeholders, info.duplicate_ids);
		bench_scene_destroy(scene);
	}
}
END_TEST

START_TEST(test_bench_scenes_json) {
	static char names[128][512];
	size_t n = list(BENCH_SCENES_DIR, ".json", names, 128);
	ck_assert_uint_ge(n, 15);
	for (size_t i = 0; i < n; i++) {
		struct bench_scene *a =
				scene_json_load(names[i], BENCH_RSTREE_DIR "/textures");
		ck_assert_msg(a != NULL, "%s not loaded", names[i]);
		ck_assert_uint_gt(a->stats.commands, 0);
		/* seeded: the same scene every time */
		struct bench_scene *b =
				scene_json_load(names[i], BENCH_RSTREE_DIR "/textures");
		ck_assert_ptr_nonnull(b);
		ck_assert_uint_eq(a->stats.nodes, b->stats.nodes);
		ck_assert_uint_eq(a->stats.commands, b->stats.commands);
		ck_assert_uint_eq(a->stats.texts, b->stats.texts);
		bench_scene_destroy(a);
		bench_scene_destroy(b);
	}
}
END_TEST

int main(void) {
	Suite *suite = suite_create("bench-scenes");
	TCase *tc = tcase_create("importers");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_bench_scenes_rstree_quirks);
	tcase_add_test(tc, test_bench_scenes_rstree_authors);
	tcase_add_test(tc, test_bench_scenes_json);
	suite_add_tcase(suite, tc);
	SRunner *runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
