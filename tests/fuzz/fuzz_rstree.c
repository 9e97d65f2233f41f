/*
 * libFuzzer harness: the RenderService tree-dump importer
 * (tests/bench/rstree.c) on arbitrary dump text, read by rstree_load from
 * a memfd by its /proc path. The importer is linked with the benchmark's
 * scene model (tests/bench/scene.c) and path.c, nothing else of the
 * renderer: rstree_load only builds bench_nodes and display lists, so the
 * renderer entry points scene.c names for realising a scene (tree, nodes,
 * canvas; fuzz_rstree_stubs.c) and the image functions below are stubs
 * that abort, which would show up as a crash if the importer ever reached
 * them. Images are looked up in a folder that
 * does not exist, so every image becomes the placeholder. The importer
 * warns on stderr (unknown attributes, fonts, images): the runner passes
 * -close_fd_mask=2, libFuzzer and the sanitizers keep their own copy.
 */
#include "fuzz_file.h"
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "rstree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- stubs for what rstree_load never reaches --------------------------- */

#define UNREACHED(name) \
	do { \
		fprintf(stderr, "fuzz-rstree: %s reached\n", name); \
		abort(); \
	} while (0)

struct vr_image *bench_image_load(const char *path, uint64_t *decode_ns) {
	(void)path;
	*decode_ns = 0;
	return NULL; // the folder does not exist: missing, as rstree expects
}
void bench_video_frame(struct vr_image *image, uint32_t seed, uint32_t frame) {
	(void)image, (void)seed, (void)frame;
	UNREACHED("bench_video_frame");
}
struct vr_image *vr_image_ref(struct vr_image *image) {
	(void)image;
	UNREACHED("vr_image_ref");
}
void vr_image_unref(struct vr_image *image) {
	if (image != NULL) {
		UNREACHED("vr_image_unref");
	}
}
/* ---- the harness -------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	char path[64];
	int fd = fuzz_file(data, size, "fuzz-rstree", path, sizeof(path));
	if (fd < 0) {
		return 0;
	}
	struct rstree_info info;
	struct bench_scene *scene =
			rstree_load(path, "/nonexistent/fuzz-rstree-textures", &info);
	close(fd);
	assert(scene != NULL); // only unreadable files and no memory fail
	assert(info.comment_lines <= info.lines + info.comment_lines);
	bench_scene_destroy(scene);
	return 0;
}
