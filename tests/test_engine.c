/*
 * The one engine (renderer.h, "one engine"): the Vulkan renderer, the CPU
 * engine and the reference renderer behind one asynchronous interface.
 * For each engine (Vulkan only where a device exists), the same frames:
 * - every frame completes through the engine's fd: it becomes readable,
 *   and vr_engine_dispatch then returns the frame's id (or a later one);
 *   ids go up by one; a completed frame has its timing;
 * - pixels against known values (solid rectangles, not another renderer),
 *   in a buffer of page-aligned host memory written through the same
 *   calls for every engine: a whole frame, then a frame that writes only
 *   the damage of a moved rectangle (pixels outside it stay as they were);
 * - three frames in flight at once, completed in order.
 * The same frames into a buffer over a dma-buf (vr_engine_buffer_create_
 * dmabuf; a sealed memfd, rows at an offset and a padded stride): the
 * host engines draw through its mapping, Debian's lavapipe (no dma-buf
 * import) has each frame copied out, and Mesa 25's lavapipe copies into
 * the memory on the device (vr_engine_buffer_on_device); the pixels are
 * read from the mapping either way.
 * External images (vr_image_create_external), on each engine: a memfd's
 * rows at an offset and a padded stride show their known colours; a
 * write into one is refused; the source is released exactly once, after
 * the image is gone and, on Vulkan, not before a later frame completed
 * (its GPU copy may be sampled until then). vulkan_import does it again
 * on Mesa 25's lavapipe (VITRAIL_MESA25), which imports dma-bufs: a
 * stride its LINEAR images have is sampled in place (counted), another
 * is uploaded, and a second image over the first one's memory takes its
 * kept import; skipped without Mesa 25.
 */
#define _GNU_SOURCE /* memfd_create */
#include <check.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <vitrail/renderer.h>
#include "mesa25.h"
#include "vulkan_test.h"

#define W 64
#define H 48

enum kind { KIND_VULKAN, KIND_CPU, KIND_REFERENCE };

static const char *const kind_names[] = { "vulkan", "cpu", "reference" };

struct fixture {
	struct vr_renderer *vulkan;
	struct vr_cpu_renderer *cpu;
	struct vr_engine *engine;
	struct vr_engine_output *output;
	struct vr_engine_buffer *buffer;
	uint32_t *pixels; /* the buffer's memory, W x H, stride bytes a row */
	int32_t stride;
	int memfd; /* over a dma-buf: a memfd mapped at map; else -1 */
	void *map;
	size_t map_len;
	struct vr_changes changes; /* what the buffer lacks */
	pixman_region32_t copy; /* to copy out (a buffer that is not direct) */
	struct vr_tree *tree;
	struct vr_node *square;
	uint64_t last_id;
};

static const struct vr_color RED = { 1, 0, 0, 1 };
static const struct vr_color GREEN = { 0, 1, 0, 1 };
static const struct vr_color BLUE = { 0, 0, 1, 1 };

#define DMABUF_OFFSET 4096
#define DMABUF_STRIDE (W * 4 + 64)

/* The buffer over a sealed memfd standing for a dma-buf. */
static void fixture_dmabuf(struct fixture *f) {
	f->stride = DMABUF_STRIDE;
	f->map_len = DMABUF_OFFSET + (size_t)DMABUF_STRIDE * H;
	f->memfd = memfd_create("test-engine-dst", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ck_assert_int_ge(f->memfd, 0);
	ck_assert_int_eq(ftruncate(f->memfd, (off_t)f->map_len), 0);
	ck_assert_int_eq(fcntl(f->memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	f->map = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			f->memfd, 0);
	ck_assert(f->map != MAP_FAILED);
	f->pixels = (uint32_t *)((uint8_t *)f->map + DMABUF_OFFSET);
	f->buffer = vr_engine_buffer_create_dmabuf(f->engine, f->memfd,
			DMABUF_OFFSET, f->pixels, W, H, DMABUF_STRIDE);
}

/* false: no such engine here (Vulkan without a device) */
static bool fixture_init(struct fixture *f, enum kind kind, bool dmabuf) {
	memset(f, 0, sizeof(*f));
	f->memfd = -1;
	switch (kind) {
	case KIND_VULKAN:
		f->vulkan = vr_renderer_create(&(struct vr_renderer_options){ 0 });
		if (f->vulkan == NULL) {
			return false;
		}
		f->engine = vr_engine_create_vulkan(f->vulkan);
		break;
	case KIND_CPU:
		f->cpu = vr_cpu_renderer_create(2);
		ck_assert_ptr_nonnull(f->cpu);
		f->engine = vr_engine_create_cpu(f->cpu);
		break;
	case KIND_REFERENCE: f->engine = vr_engine_create_reference(); break;
	}
	ck_assert_ptr_nonnull(f->engine);
	ck_assert_str_eq(vr_engine_name(f->engine), kind_names[kind]);
	ck_assert(vr_engine_host_images(f->engine) == (kind != KIND_VULKAN));
	/* from here on, the same calls for every engine */
	f->output = vr_engine_output_create(f->engine, W, H);
	ck_assert_ptr_nonnull(f->output);
	ck_assert_int_eq(vr_engine_output_width(f->output), W);
	ck_assert_int_eq(vr_engine_output_height(f->output), H);
	if (dmabuf) {
		fixture_dmabuf(f);
	} else {
		f->stride = W * 4;
		f->pixels = aligned_alloc(4096, (W * H * 4 + 4095) / 4096 * 4096);
		ck_assert_ptr_nonnull(f->pixels);
		f->buffer = vr_engine_buffer_create(f->engine, f->pixels, W, H, W * 4,
				true);
	}
	ck_assert_ptr_nonnull(f->buffer);
	vr_changes_init(&f->changes);
	vr_changes_damage_all(&f->changes, &(struct vr_box){ 0, 0, W, H });
	pixman_region32_init(&f->copy);
	f->tree = vr_tree_create();
	struct vr_node *root = vr_tree_root(f->tree);
	struct vr_node *background = vr_node_create(f->tree);
	vr_node_set_rect(background, W, H, RED);
	vr_node_set_parent(background, root);
	struct vr_node *blue = vr_node_create(f->tree);
	vr_node_set_rect(blue, 10, 10, BLUE);
	vr_node_set_position(blue, 44, 4);
	vr_node_set_parent(blue, root);
	f->square = vr_node_create(f->tree);
	vr_node_set_rect(f->square, 16, 16, GREEN);
	vr_node_set_position(f->square, 8, 8);
	vr_node_set_parent(f->square, root);
	return true;
}

static void fixture_finish(struct fixture *f) {
	if (f->last_id != 0) {
		vr_engine_wait(f->engine, f->last_id, UINT64_MAX);
	}
	vr_engine_buffer_destroy(f->buffer);
	vr_engine_output_destroy(f->output);
	vr_engine_destroy(f->engine);
	vr_tree_destroy(f->tree);
	if (f->memfd >= 0) {
		munmap(f->map, f->map_len);
		close(f->memfd);
	} else {
		free(f->pixels);
	}
	vr_changes_fini(&f->changes);
	pixman_region32_fini(&f->copy);
	vr_renderer_destroy(f->vulkan);
	vr_cpu_renderer_destroy(f->cpu);
	ck_assert_int_eq(log_errors, 0);
}

static uint64_t submit(struct fixture *f, const pixman_region32_t *damage) {
	struct vr_mat view;
	vr_mat_identity(&view);
	pixman_region32_t whole;
	pixman_region32_init_rect(&whole, 0, 0, W, H);
	vr_changes_add_damage(&f->changes, damage != NULL ? damage : &whole);
	struct vr_engine_frame frame = {
		.output = f->output,
		.buffer = f->buffer,
		.view = view,
		.clear = { 0, 0, 0, 1 },
		.damage = damage != NULL ? damage : &whole,
		.buffer_changes = &f->changes,
	};
	uint64_t id = vr_engine_submit(f->engine, f->tree, &frame);
	ck_assert_uint_eq(id, f->last_id + 1);
	f->last_id = id;
	/* what the frame writes: this frame's damage, the buffer being
	 * written at every frame */
	ck_assert(pixman_region32_equal(&f->changes.damage,
			damage != NULL ? (pixman_region32_t *)damage : &whole));
	if (!vr_engine_buffer_direct(f->buffer)) {
		pixman_region32_union(&f->copy, &f->copy, &f->changes.damage);
	}
	vr_changes_clear(&f->changes);
	pixman_region32_fini(&whole);
	return id;
}

/* Through the fd, as a compositor's event loop sees completions. */
static void complete_through_fd(struct fixture *f, uint64_t id) {
	int fd = vr_engine_get_fd(f->engine);
	ck_assert_int_ge(fd, 0);
	uint64_t done = 0;
	for (int tries = 0; done < id && tries < 1000; tries++) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
		done = vr_engine_dispatch(f->engine);
	}
	ck_assert_uint_ge(done, id);
	struct vr_frame_timing timing;
	ck_assert(vr_engine_get_timing(f->engine, id, &timing));
	ck_assert_uint_ge(timing.end_ns, timing.start_ns);
	if (pixman_region32_not_empty(&f->copy)) {
		ck_assert(vr_engine_output_read(f->output, f->buffer, &f->copy,
				f->pixels, f->stride));
		pixman_region32_clear(&f->copy);
	}
}

static uint32_t px(const struct fixture *f, int x, int y) {
	return f->pixels[y * (f->stride / 4) + x] & 0xffffff;
}

/* fixture_init and the tree's first update; false (said) without the
 * engine here. */
static bool fixture_ready(struct fixture *f, enum kind kind, bool dmabuf) {
	if (!fixture_init(f, kind, dmabuf)) {
		printf("%s: no device, skipped\n", kind_names[kind]);
		return false;
	}
	vr_tree_update(f->tree, NULL);
	return true;
}

/* dmabuf: into a buffer over a dma-buf, which the engine writes on the
 * device where it imports dma-bufs. */
static void check_engine(enum kind kind, bool dmabuf) {
	struct fixture f;
	if (!fixture_ready(&f, kind, dmabuf)) {
		return;
	}
	bool on_device =
			dmabuf && kind == KIND_VULKAN && vr_engine_imports_dmabuf(f.engine);
	ck_assert(vr_engine_buffer_on_device(f.buffer) == on_device);
	if (dmabuf) {
		/* the host engines draw into it; Vulkan copies into what it
		 * imported, else the caller copies each frame out */
		ck_assert(vr_engine_buffer_direct(f.buffer) ==
				(kind != KIND_VULKAN || on_device));
	}
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	for (int y = 0; y < H; y++) {
		memset((uint8_t *)f.pixels + (size_t)y * f.stride, 0x55, W * 4);
	}

	/* a whole frame */
	complete_through_fd(&f, submit(&f, NULL));
	ck_assert_uint_eq(px(&f, 0, 0), 0xff0000);
	ck_assert_uint_eq(px(&f, 10, 10), 0x00ff00);
	ck_assert_uint_eq(px(&f, 23, 23), 0x00ff00);
	ck_assert_uint_eq(px(&f, 24, 24), 0xff0000);
	ck_assert_uint_eq(px(&f, 48, 8), 0x0000ff);

	/* the square moves: only its old and new places are drawn (a pixel
	 * outside, written by hand, stays) */
	f.pixels[40 * (f.stride / 4) + 2] = 0x123456;
	vr_node_set_position(f.square, 30, 26);
	pixman_region32_clear(&damage);
	vr_tree_update(f.tree, &damage);
	ck_assert(pixman_region32_contains_point(&damage, 10, 10, NULL));
	ck_assert(!pixman_region32_contains_point(&damage, 2, 40, NULL));
	complete_through_fd(&f, submit(&f, &damage));
	ck_assert_uint_eq(px(&f, 10, 10), 0xff0000);
	ck_assert_uint_eq(px(&f, 35, 30), 0x00ff00);
	ck_assert_uint_eq(px(&f, 48, 8), 0x0000ff);
	ck_assert_uint_eq(px(&f, 2, 40), 0x123456);

	/* three frames in flight, completed in order */
	uint64_t ids[3];
	for (int i = 0; i < 3; i++) {
		vr_node_set_position(f.square, 30 - 10 * i, 26);
		pixman_region32_clear(&damage);
		vr_tree_update(f.tree, &damage);
		ids[i] = submit(&f, &damage);
	}
	ck_assert_uint_eq(ids[2], ids[0] + 2);
	complete_through_fd(&f, ids[2]);
	for (int i = 0; i < 3; i++) {
		ck_assert(vr_engine_wait(f.engine, ids[i], 0));
	}
	ck_assert_uint_eq(px(&f, 15, 30), 0x00ff00);
	ck_assert_uint_eq(px(&f, 40, 30), 0xff0000);
	pixman_region32_fini(&damage);
	fixture_finish(&f);
}

/* ---- external images ----------------------------------------------------- */

#define EXT_W 16
#define EXT_H 12
#define EXT_TOP 0x00cc2211u
#define EXT_BOTTOM 0x002244ccu

static int released;

static void count_release(void *data) {
	__atomic_add_fetch((int *)data, 1, __ATOMIC_SEQ_CST);
}

/* A sealed memfd holding an EXT_W x EXT_H XRGB image at offset, rows
 * stride bytes apart, its halves EXT_TOP and EXT_BOTTOM; *map: it mapped. */
static int external_memfd(uint32_t offset, uint32_t stride, void **map,
		size_t *len) {
	int fd = memfd_create("test-engine", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ck_assert_int_ge(fd, 0);
	*len = offset + (size_t)stride * EXT_H;
	ck_assert_int_eq(ftruncate(fd, (off_t)*len), 0);
	ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	*map = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert(*map != MAP_FAILED);
	memset(*map, 0x77, *len); /* padding: never shown */
	for (int y = 0; y < EXT_H; y++) {
		uint32_t *row =
				(uint32_t *)((char *)*map + offset + (size_t)y * stride);
		for (int x = 0; x < EXT_W; x++) {
			row[x] = y < EXT_H / 2 ? EXT_TOP : EXT_BOTTOM;
		}
	}
	return fd;
}

/* The image at (24, 30) over the fixture's tree; its pixels, then its
 * release. Returns how many dma-bufs the engine imported meanwhile. */
static unsigned check_external_on(struct fixture *f, enum kind kind, int fd,
		void *map, uint32_t offset, uint32_t stride) {
	released = 0;
	unsigned imports = vr_engine_dmabuf_imports(f->engine, NULL);
	struct vr_image *image =
			vr_image_create_external(EXT_W, EXT_H, VR_FORMAT_XRGB8888,
					&(struct vr_image_source){
							.pixels = (char *)map + offset,
							.stride = (int32_t)stride,
							.fd = fd,
							.offset = offset,
							.release = count_release,
							.data = &released,
					});
	ck_assert_ptr_nonnull(image);
	ck_assert(vr_image_external(image)); /* it holds a duplicate of fd */
	/* its pixels are the source's */
	uint32_t pixel = 0;
	int errors = log_errors;
	ck_assert(!vr_image_write(image, &pixel, 4, NULL));
	ck_assert_int_eq(log_errors, errors + 1);
	log_errors = errors;

	struct vr_node *node = vr_node_create(f->tree);
	vr_node_set_image(node, image, NULL, EXT_W, EXT_H, VR_TRANSFORM_NORMAL);
	vr_node_set_position(node, 24, 30);
	vr_node_set_parent(node, vr_tree_root(f->tree));
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	vr_tree_update(f->tree, &damage);
	complete_through_fd(f, submit(f, NULL)); /* the fixture's first */
	for (int y = 0; y < EXT_H; y++) {
		for (int x = 0; x < EXT_W; x++) {
			uint32_t want = y < EXT_H / 2 ? EXT_TOP : EXT_BOTTOM;
			ck_assert_msg(px(f, 24 + x, 30 + y) == want,
					"%s: external pixel (%d, %d) is 0x%06x, not 0x%06x",
					kind_names[kind], x, y, px(f, 24 + x, 30 + y), want);
		}
	}
	unsigned imported = vr_engine_dmabuf_imports(f->engine, NULL) - imports;

	/* gone from the tree and from our hands */
	vr_image_unref(image);
	ck_assert_int_eq(released, 0); /* the node holds it */
	vr_node_destroy(node);
	pixman_region32_clear(&damage);
	vr_tree_update(f->tree, &damage);
	if (kind == KIND_VULKAN) {
		/* its texture waits for the frames that may sample it */
		ck_assert_int_eq(released, 0);
	}
	for (int i = 0; i < 2; i++) {
		complete_through_fd(f, submit(f, &damage));
		pixman_region32_clear(&damage);
		pixman_region32_union_rect(&damage, &damage, 0, 0, 1, 1);
	}
	ck_assert_int_eq(released, 1);
	ck_assert_uint_eq(px(f, 30, 32), 0xff0000); /* the background again */
	pixman_region32_fini(&damage);
	return imported;
}

/* check_external_on a memfd of its own. */
static unsigned check_external(struct fixture *f, enum kind kind,
		uint32_t offset, uint32_t stride) {
	void *map;
	size_t len;
	int fd = external_memfd(offset, stride, &map, &len);
	unsigned imported = check_external_on(f, kind, fd, map, offset, stride);
	close(fd);
	munmap(map, len);
	return imported;
}

static void check_engine_external(enum kind kind) {
	struct fixture f;
	if (!fixture_ready(&f, kind, false)) {
		return;
	}
	unsigned imported = check_external(&f, kind, 256, EXT_W * 4 + 36);
	if (!vr_engine_imports_dmabuf(f.engine)) {
		ck_assert_uint_eq(imported, 0);
	}
	fixture_finish(&f);
}

START_TEST(test_engine_external_vulkan) {
	check_engine_external(KIND_VULKAN);
}
END_TEST

START_TEST(test_engine_external_cpu) {
	check_engine_external(KIND_CPU);
}
END_TEST

START_TEST(test_engine_external_reference) {
	check_engine_external(KIND_REFERENCE);
}
END_TEST

static char icd[] = "/tmp/vitrail-test-engine-icd-XXXXXX.json";

/* Mesa 25's lavapipe as the only Vulkan driver, through the file icd
 * (removed once the renderer exists); false without it. */
static bool use_mesa25(void) {
	char lavapipe[PATH_MAX];
	if (!mesa25_lavapipe(lavapipe)) {
		return false;
	}
	int fd = mkstemps(icd, 5);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	mesa25_write_icd(f, lavapipe);
	fclose(f);
	setenv("VK_ICD_FILENAMES", icd, 1); /* read by vkCreateInstance */
	return true;
}

START_TEST(test_engine_vulkan_import) {
	if (!use_mesa25()) {
		printf("no Mesa 25 lavapipe (tests/mesa25.h): skipped\n");
		return;
	}
	struct fixture f;
	bool made = fixture_init(&f, KIND_VULKAN, false);
	unlink(icd);
	ck_assert(made);
	ck_assert(vr_engine_imports_dmabuf(f.engine));
	vr_tree_update(f.tree, NULL);
	/* 64-byte rows, as lavapipe lays out LINEAR images: in place */
	ck_assert_uint_eq(check_external(&f, KIND_VULKAN, 256, EXT_W * 4), 1);
	/* rows of 100 bytes: uploaded from the mapping */
	ck_assert_uint_eq(check_external(&f, KIND_VULKAN, 256, EXT_W * 4 + 36), 0);
	/* one memfd twice, as a client's buffer committed again: the second
	 * image takes the first one's import, kept when its texture went */
	void *map;
	size_t len;
	int fd = external_memfd(256, EXT_W * 4, &map, &len);
	unsigned reused0 = 0, reused1 = 0;
	vr_engine_dmabuf_imports(f.engine, &reused0);
	ck_assert_uint_eq(
			check_external_on(&f, KIND_VULKAN, fd, map, 256, EXT_W * 4), 1);
	ck_assert_uint_eq(
			check_external_on(&f, KIND_VULKAN, fd, map, 256, EXT_W * 4), 1);
	vr_engine_dmabuf_imports(f.engine, &reused1);
	ck_assert_uint_eq(reused1 - reused0, 1);
	close(fd);
	munmap(map, len);
	fixture_finish(&f);
}
END_TEST

START_TEST(test_engine_vulkan) {
	check_engine(KIND_VULKAN, false);
	check_engine(KIND_VULKAN, true);
}
END_TEST

START_TEST(test_engine_cpu) {
	check_engine(KIND_CPU, false);
	check_engine(KIND_CPU, true);
}
END_TEST

START_TEST(test_engine_reference) {
	check_engine(KIND_REFERENCE, false);
	check_engine(KIND_REFERENCE, true);
}
END_TEST

/* Frames copied into a dma-buf on the device: Mesa 25's lavapipe
 * imports the memfd (the copy lands at the plane's offset, rows at its
 * stride). */
START_TEST(test_engine_vulkan_dmabuf_dst) {
	if (!use_mesa25()) {
		printf("no Mesa 25 lavapipe (tests/mesa25.h): skipped\n");
		return;
	}
	struct fixture probe;
	bool made = fixture_init(&probe, KIND_VULKAN, true);
	ck_assert(made);
	ck_assert(vr_engine_buffer_on_device(probe.buffer));
	fixture_finish(&probe);
	check_engine(KIND_VULKAN, true);
	unlink(icd);
}
END_TEST

int main(void) {
	pin_vulkan_driver(); /* LeakSanitizer names its module */
	vr_set_log_func(test_log);
	Suite *suite = suite_create("engine");
	TCase *tc = tcase_create("engine");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_engine_vulkan);
	tcase_add_test(tc, test_engine_cpu);
	tcase_add_test(tc, test_engine_reference);
	tcase_add_test(tc, test_engine_external_vulkan);
	tcase_add_test(tc, test_engine_external_cpu);
	tcase_add_test(tc, test_engine_external_reference);
	tcase_add_test(tc, test_engine_vulkan_import);
	tcase_add_test(tc, test_engine_vulkan_dmabuf_dst);
	suite_add_tcase(suite, tc);
	SRunner *runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? 0 : 1;
}
