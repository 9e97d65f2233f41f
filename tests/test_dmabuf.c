/*
 * zwp_linux_dmabuf_v1 (compositor/protocols/linux_dmabuf.c, wlroots'
 * implementation over compositor/output/client_dmabuf.c), with a client
 * written from the XML. No device here makes dma-bufs, so vitrail is
 * started with VITRAIL_DMABUF_DEVICE=/dev/null (any character device is
 * announced) and the client sends memfds sealed against shrinking, which
 * vitrail maps as it maps LINEAR dma-bufs (only the sync ioctl differs).
 * Oracles: the device number stat() gives, the formats README documents,
 * the colours the test writes, the protocol's error codes.
 *
 * presence: wayland-info lists the global with /dev/null's device as
 *   main device and the LINEAR formats; Xwayland gets XWAYLAND_NO_GLAMOR=1
 *   with the global and nothing without it; no global with
 *   VITRAIL_DMABUF_DEVICE=none; with no setting, a global (bound here and
 *   listed by wayland-info) exactly where a render node exists.
 * feedback: version 4's default and surface feedback name /dev/null's
 *   device as main and tranche device, and their format table holds
 *   exactly the documented formats with LINEAR and with the implicit
 *   modifier (wlroots 0.15 lists it for every format); version 3's
 *   modifier events list the LINEAR pairs.
 * pixels: a window whose buffer is a memfd "dmabuf" with an offset and a
 *   padded stride shows its two colours where its halves are; the client
 *   rewrites it and commits damage: the new colour shows; ABGR8888 comes
 *   out with its channels in place; the buffer is released.
 * errors: already_used, plane_idx, plane_set, incomplete, invalid_format
 *   (unknown flags, a plane's modifier unlike another's),
 *   invalid_dimensions, out_of_bounds (offset, stride x height),
 *   invalid_wl_buffer (create_immed of a tiled modifier, of a format
 *   vitrail does not read, of an unsealed memfd), each on its own
 *   connection while a bystander is served; create (not immed) of a
 *   tiled or the implicit modifier is answered with failed and the
 *   connection lives.
 * gpu: vitrail-dmabuf-export's buffer, Vulkan-exported memory the GPU
 *   filled, shows its two colours; skipped (77) where no Vulkan device
 *   exports dma-buf memory (lavapipe without udmabuf), never a pass.
 */
#define _GNU_SOURCE
#include <check.h>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wayland-client.h>

#include "harness.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "mesa25.h"
#include "scene-client.h"
#include "vitrail/renderer.h"

#define OUTPUT_W 320
#define OUTPUT_H 240
#define WIN_W 100
#define WIN_H 80

struct pair {
	uint32_t format;
	uint64_t modifier;
};

/* The formats README documents, LINEAR only. */
static const uint32_t documented[] = {
	DRM_FORMAT_ARGB8888,
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ABGR8888,
	DRM_FORMAT_XBGR8888,
	DRM_FORMAT_RGB565,
};
#define NDOCUMENTED (sizeof(documented) / sizeof(documented[0]))

struct dm {
	struct wl_display *display;
	struct wl_registry *registry;
	uint32_t version; /* to bind */
	struct zwp_linux_dmabuf_v1 *dmabuf;
	uint32_t bound_version;
	struct wp_presentation *presentation;
	bool present;
	/* version 3's modifier events */
	struct pair modifiers[64];
	int nmodifiers;
	/* a feedback's events */
	dev_t main_device, tranche_device;
	int table_fd;
	uint32_t table_size;
	uint16_t indices[64];
	int nindices;
	int tranches, dones;
	/* create's answer */
	struct wl_buffer *created;
	bool failed;
	bool released;
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct dm *d = data;
	if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0) {
		d->present = true;
		d->bound_version = version < d->version ? version : d->version;
		d->dmabuf = wl_registry_bind(registry, name,
				&zwp_linux_dmabuf_v1_interface, d->bound_version);
	} else if (strcmp(interface, wp_presentation_interface.name) == 0) {
		d->presentation =
				wl_registry_bind(registry, name, &wp_presentation_interface, 1);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void dmabuf_format(void *data, struct zwp_linux_dmabuf_v1 *dmabuf,
		uint32_t format) {
}

static void dmabuf_modifier(void *data, struct zwp_linux_dmabuf_v1 *dmabuf,
		uint32_t format, uint32_t hi, uint32_t lo) {
	struct dm *d = data;
	ck_assert_int_lt(d->nmodifiers, 64);
	d->modifiers[d->nmodifiers++] = (struct pair){
		.format = format,
		.modifier = ((uint64_t)hi << 32) | lo,
	};
}

static const struct zwp_linux_dmabuf_v1_listener dmabuf_listener = {
	.format = dmabuf_format,
	.modifier = dmabuf_modifier,
};

/* Connect (to vitrail's socket, or to display when given) and bind the
 * global at version at most `version`. */
static void dm_init(struct dm *d, struct wl_display *display,
		struct harness_vitrail *vitrail, uint32_t version) {
	*d = (struct dm){ .version = version, .table_fd = -1 };
	d->display =
			display != NULL ? display : wl_display_connect(vitrail->socket);
	ck_assert_ptr_nonnull(d->display);
	d->registry = wl_display_get_registry(d->display);
	wl_registry_add_listener(d->registry, &registry_listener, d);
	ck_assert_int_ge(wl_display_roundtrip(d->display), 0);
	if (d->dmabuf != NULL) {
		zwp_linux_dmabuf_v1_add_listener(d->dmabuf, &dmabuf_listener, d);
		ck_assert_int_ge(wl_display_roundtrip(d->display), 0);
	}
}

static void dm_finish(struct dm *d, bool disconnect) {
	if (d->table_fd >= 0) {
		close(d->table_fd);
	}
	if (d->dmabuf != NULL) {
		zwp_linux_dmabuf_v1_destroy(d->dmabuf);
	}
	if (d->presentation != NULL) {
		wp_presentation_destroy(d->presentation);
	}
	wl_registry_destroy(d->registry);
	if (disconnect) {
		wl_display_disconnect(d->display);
	}
}

/* ---- feedback ----------------------------------------------------------- */

static dev_t dev_of(struct wl_array *array) {
	dev_t dev;
	ck_assert_uint_eq(array->size, sizeof(dev));
	memcpy(&dev, array->data, sizeof(dev));
	return dev;
}

static void fb_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *fb) {
	((struct dm *)data)->dones++;
}

static void fb_format_table(void *data, struct zwp_linux_dmabuf_feedback_v1 *fb,
		int32_t fd, uint32_t size) {
	struct dm *d = data;
	if (d->table_fd >= 0) {
		close(d->table_fd);
	}
	d->table_fd = fd;
	d->table_size = size;
}

static void fb_main_device(void *data, struct zwp_linux_dmabuf_feedback_v1 *fb,
		struct wl_array *device) {
	((struct dm *)data)->main_device = dev_of(device);
}

static void fb_tranche_done(void *data,
		struct zwp_linux_dmabuf_feedback_v1 *fb) {
	((struct dm *)data)->tranches++;
}

static void fb_tranche_target_device(void *data,
		struct zwp_linux_dmabuf_feedback_v1 *fb, struct wl_array *device) {
	((struct dm *)data)->tranche_device = dev_of(device);
}

static void fb_tranche_formats(void *data,
		struct zwp_linux_dmabuf_feedback_v1 *fb, struct wl_array *indices) {
	struct dm *d = data;
	uint16_t *index;
	wl_array_for_each(index, indices) {
		ck_assert_int_lt(d->nindices, 64);
		d->indices[d->nindices++] = *index;
	}
}

static void fb_tranche_flags(void *data,
		struct zwp_linux_dmabuf_feedback_v1 *fb, uint32_t flags) {
}

static const struct zwp_linux_dmabuf_feedback_v1_listener feedback_listener = {
	.done = fb_done,
	.format_table = fb_format_table,
	.main_device = fb_main_device,
	.tranche_done = fb_tranche_done,
	.tranche_target_device = fb_tranche_target_device,
	.tranche_formats = fb_tranche_formats,
	.tranche_flags = fb_tranche_flags,
};

static int pair_cmp(const void *a, const void *b) {
	const struct pair *x = a, *y = b;
	if (x->format != y->format) {
		return x->format < y->format ? -1 : 1;
	}
	return x->modifier < y->modifier ? -1 : x->modifier > y->modifier;
}

/* pairs (n of them) are exactly the documented formats with LINEAR, and
 * with DRM_FORMAT_MOD_INVALID too when `implicit` (wlroots 0.15's
 * feedback lists every format with it; README: vitrail refuses it). */
static void assert_documented(struct pair *pairs, int n, bool implicit,
		const char *what) {
	struct pair want[2 * NDOCUMENTED];
	size_t nwant = 0;
	for (size_t i = 0; i < NDOCUMENTED; i++) {
		want[nwant++] = (struct pair){ documented[i], DRM_FORMAT_MOD_LINEAR };
		if (implicit) {
			want[nwant++] =
					(struct pair){ documented[i], DRM_FORMAT_MOD_INVALID };
		}
	}
	qsort(want, nwant, sizeof(want[0]), pair_cmp);
	qsort(pairs, (size_t)n, sizeof(pairs[0]), pair_cmp);
	ck_assert_msg(n == (int)nwant, "%s: %d pairs, want %zu", what, n, nwant);
	for (int i = 0; i < n; i++) {
		ck_assert_msg(pairs[i].format == want[i].format &&
						pairs[i].modifier == want[i].modifier,
				"%s: pair %d is 0x%08x/0x%016llx, want 0x%08x/0x%016llx", what,
				i, pairs[i].format, (unsigned long long)pairs[i].modifier,
				want[i].format, (unsigned long long)want[i].modifier);
	}
}

/* The feedback's tranche formats, read through its table. */
static void check_feedback(struct dm *d, dev_t device, const char *what) {
	ck_assert_int_eq(d->dones, 1);
	ck_assert_int_eq(d->tranches, 1);
	ck_assert_msg(d->main_device == device, "%s: main_device %u:%u, want %u:%u",
			what, major(d->main_device), minor(d->main_device), major(device),
			minor(device));
	ck_assert(d->tranche_device == device);
	ck_assert_int_ge(d->table_fd, 0);
	ck_assert_uint_eq(d->table_size % 16, 0);
	const uint8_t *table =
			mmap(NULL, d->table_size, PROT_READ, MAP_PRIVATE, d->table_fd, 0);
	ck_assert(table != MAP_FAILED);
	struct pair pairs[64];
	for (int i = 0; i < d->nindices; i++) {
		ck_assert_uint_lt((uint32_t)d->indices[i] * 16u, d->table_size);
		memcpy(&pairs[i].format, table + d->indices[i] * 16, 4);
		memcpy(&pairs[i].modifier, table + d->indices[i] * 16 + 8, 8);
	}
	munmap((void *)table, d->table_size);
	assert_documented(pairs, d->nindices, true, what);
}

/* vitrail with VITRAIL_DMABUF_DEVICE=device (NULL: unset, and
 * XWAYLAND_NO_GLAMOR unset too); extra_args as the harness's. */
static struct harness_vitrail *start_with(struct harness *harness,
		const char *device, const char *const *extra_args) {
	char setting[96];
	snprintf(setting, sizeof(setting), "VITRAIL_DMABUF_DEVICE=%s",
			device != NULL ? device : "");
	const char *env[] = { device != NULL ? setting : "VITRAIL_DMABUF_DEVICE",
		"XWAYLAND_NO_GLAMOR", NULL };
	return harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "320x240",
					.extra_args = extra_args,
					.env = env });
}

static struct harness_vitrail *start(struct harness *harness,
		const char *device) {
	return start_with(harness, device, NULL);
}

/* The value of XWAYLAND_NO_GLAMOR that vitrail (with
 * VITRAIL_DMABUF_DEVICE=device) gives the programs it starts, as Xwayland
 * gets it; "" when unset. */
static char *glamor_setting(struct harness *harness, const char *device) {
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/glamor-%s.txt", harness->out_dir,
					  device[0] == '/' ? "node" : device) > 0);
	char *cmd = NULL;
	ck_assert(asprintf(&cmd,
					  "printf %%s \"$XWAYLAND_NO_GLAMOR\" > %s.tmp && "
					  "mv %s.tmp %s",
					  path, path, path) > 0);
	const char *args[] = { "-s", cmd, NULL };
	struct harness_vitrail *vitrail = start_with(harness, device, args);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(10000);
	while (access(path, R_OK) != 0 && harness_now_ms() < deadline) {
		harness_sleep_ms(20);
	}
	char value[16] = "";
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "the startup command wrote no %s", path);
	if (fgets(value, sizeof(value), f) == NULL) {
		value[0] = '\0';
	}
	fclose(f);
	harness_stop_vitrail(harness, vitrail);
	free(cmd);
	free(path);
	return strdup(value);
}

/* wayland-info's log inside vitrail (malloc'd). */
static char *wayland_info(struct harness *harness,
		struct harness_vitrail *vitrail) {
	const char *argv[] = { "wayland-info", NULL };
	struct harness_proc *info = NULL;
	int status = harness_run_client(harness, vitrail, argv,
			HARNESS_WAIT_TIMEOUT_MS, &info);
	ck_assert_int_eq(status, 0);
	return harness_proc_log(info);
}

START_TEST(test_dmabuf_presence) {
	struct harness *harness = harness_create("dmabuf-presence");
	harness_require_program("wayland-info", "wayland-utils");
	/* a real client (wayland-info) reads the global and its feedback */
	struct harness_vitrail *vitrail = start(harness, "/dev/null");
	struct stat null_st;
	ck_assert_int_eq(stat("/dev/null", &null_st), 0);
	char *log = wayland_info(harness, vitrail);
	char main_device[64];
	snprintf(main_device, sizeof(main_device), "main device: 0x%jx",
			(uintmax_t)null_st.st_rdev);
	const char *wanted[] = { "interface: 'zwp_linux_dmabuf_v1'", main_device,
		"'XR24'; 0x0000000000000000 = LINEAR",
		"'AR24'; 0x0000000000000000 = LINEAR" };
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		ck_assert_msg(strstr(log, wanted[i]) != NULL,
				"wayland-info does not print \"%s\"", wanted[i]);
	}
	free(log);
	harness_stop_vitrail(harness, vitrail);

	/* with linux-dmabuf, Xwayland runs without glamor (README) */
	char *glamor = glamor_setting(harness, "/dev/null");
	ck_assert_msg(strcmp(glamor, "1") == 0,
			"with linux-dmabuf, XWAYLAND_NO_GLAMOR is \"%s\", want 1", glamor);
	free(glamor);
	glamor = glamor_setting(harness, "none");
	ck_assert_msg(strcmp(glamor, "") == 0,
			"without linux-dmabuf, XWAYLAND_NO_GLAMOR is \"%s\"", glamor);
	free(glamor);

	vitrail = start(harness, "none");
	struct dm d;
	dm_init(&d, NULL, vitrail, 4);
	ck_assert_msg(!d.present, "VITRAIL_DMABUF_DEVICE=none: a global");
	dm_finish(&d, true);
	harness_stop_vitrail(harness, vitrail);

	vitrail = start(harness, NULL);
	dm_init(&d, NULL, vitrail, 4);
	struct stat st;
	bool node = false;
	for (int minor = 128; minor < 192 && !node; minor++) {
		char path[32];
		snprintf(path, sizeof(path), "/dev/dri/renderD%d", minor);
		int fd = open(path, O_RDWR | O_CLOEXEC);
		node = fd >= 0 && fstat(fd, &st) == 0;
		if (fd >= 0) {
			close(fd);
		}
	}
	ck_assert_msg(d.present == node,
			"zwp_linux_dmabuf_v1 %s, but this machine has %s render node",
			d.present ? "offered" : "not offered", node ? "a" : "no");
	log = wayland_info(harness, vitrail);
	ck_assert_msg((strstr(log, "interface: 'zwp_linux_dmabuf_v1'") != NULL) ==
					node,
			"wayland-info %s zwp_linux_dmabuf_v1; render node: %s",
			node ? "does not list" : "lists", node ? "yes" : "none");
	free(log);
	if (node) {
		struct zwp_linux_dmabuf_feedback_v1 *fb =
				zwp_linux_dmabuf_v1_get_default_feedback(d.dmabuf);
		zwp_linux_dmabuf_feedback_v1_add_listener(fb, &feedback_listener, &d);
		ck_assert_int_ge(wl_display_roundtrip(d.display), 0);
		check_feedback(&d, st.st_rdev, "default feedback (render node)");
		zwp_linux_dmabuf_feedback_v1_destroy(fb);
	}
	dm_finish(&d, true);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

START_TEST(test_dmabuf_feedback) {
	struct harness *harness = harness_create("dmabuf-feedback");
	struct harness_vitrail *vitrail = start(harness, "/dev/null");
	struct stat st;
	ck_assert_int_eq(stat("/dev/null", &st), 0);

	struct dm d;
	dm_init(&d, NULL, vitrail, 4);
	ck_assert(d.present);
	ck_assert_uint_eq(d.bound_version, 4);
	ck_assert_int_eq(d.nmodifiers, 0); /* version 4: feedback only */
	struct zwp_linux_dmabuf_feedback_v1 *fb =
			zwp_linux_dmabuf_v1_get_default_feedback(d.dmabuf);
	zwp_linux_dmabuf_feedback_v1_add_listener(fb, &feedback_listener, &d);
	ck_assert_int_ge(wl_display_roundtrip(d.display), 0);
	check_feedback(&d, st.st_rdev, "default feedback");
	zwp_linux_dmabuf_feedback_v1_destroy(fb);

	dm_finish(&d, true);

	/* a surface's feedback: the same */
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "dmabuf-feedback"));
	struct dm s;
	dm_init(&s, app.display, NULL, 4);
	struct wl_surface *surface = wl_compositor_create_surface(app.compositor);
	fb = zwp_linux_dmabuf_v1_get_surface_feedback(s.dmabuf, surface);
	zwp_linux_dmabuf_feedback_v1_add_listener(fb, &feedback_listener, &s);
	ck_assert_int_ge(wl_display_roundtrip(s.display), 0);
	check_feedback(&s, st.st_rdev, "surface feedback");
	zwp_linux_dmabuf_feedback_v1_destroy(fb);
	wl_surface_destroy(surface);
	dm_finish(&s, false);
	sc_app_finish(&app);

	/* version 3: modifier events */
	struct dm v3;
	dm_init(&v3, NULL, vitrail, 3);
	ck_assert_uint_eq(v3.bound_version, 3);
	assert_documented(v3.modifiers, v3.nmodifiers, false,
			"version 3 modifiers");
	dm_finish(&v3, true);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- buffers ------------------------------------------------------------ */

/* A memfd of size bytes, sealed against shrinking when seal is set. */
static int make_memfd(size_t size, bool seal) {
	int fd = memfd_create("vitrail-test-dmabuf",
			MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	if (seal) {
		ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	}
	return fd;
}

/* Fill rows [y0, y1) of a 4-byte-per-pixel image in fd with pixel. */
static void fill_rows(int fd, uint32_t offset, uint32_t stride, int width,
		int y0, int y1, uint32_t pixel) {
	size_t len = (size_t)offset + (size_t)stride * (size_t)y1;
	uint8_t *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert(map != MAP_FAILED);
	for (int y = y0; y < y1; y++) {
		uint32_t *row = (uint32_t *)(map + offset + (size_t)y * stride);
		for (int x = 0; x < width; x++) {
			row[x] = pixel;
		}
	}
	munmap(map, len);
}

static void buffer_release(void *data, struct wl_buffer *buffer) {
	((struct dm *)data)->released = true;
}

static const struct wl_buffer_listener buffer_listener = {
	.release = buffer_release,
};

static void params_created(void *data,
		struct zwp_linux_buffer_params_v1 *params, struct wl_buffer *buffer) {
	((struct dm *)data)->created = buffer;
}

static void params_failed(void *data,
		struct zwp_linux_buffer_params_v1 *params) {
	((struct dm *)data)->failed = true;
}

static const struct zwp_linux_buffer_params_v1_listener params_listener = {
	.created = params_created,
	.failed = params_failed,
};

/* A params object with fd as plane 0 (the fd is closed here: the
 * request carries its own copy). */
static struct zwp_linux_buffer_params_v1 *params_with(struct dm *d, int fd,
		uint32_t offset, uint32_t stride, uint64_t modifier) {
	struct zwp_linux_buffer_params_v1 *params =
			zwp_linux_dmabuf_v1_create_params(d->dmabuf);
	zwp_linux_buffer_params_v1_add_listener(params, &params_listener, d);
	zwp_linux_buffer_params_v1_add(params, fd, 0, offset, stride,
			(uint32_t)(modifier >> 32), (uint32_t)modifier);
	close(fd);
	return params;
}

/* Count pixels of the window's box (inset by 2) equal to rgb in rows
 * [y0, y1) of the window. */
static long count_in(const uint32_t *pixels, int32_t w, int32_t h,
		const struct harness_window *win, int y0, int y1, uint32_t rgb) {
	long n = 0;
	for (int y = win->y + y0 + 2; y < win->y + y1 - 2; y++) {
		for (int x = win->x + 2; x < win->x + win->width - 2; x++) {
			if (x >= 0 && y >= 0 && x < w && y < h &&
					(pixels[y * w + x] & 0xffffff) == (rgb & 0xffffff)) {
				n++;
			}
		}
	}
	return n;
}

static void expect_halves(struct harness *harness,
		struct harness_vitrail *vitrail, const char *name,
		const struct harness_window *win, uint32_t top, uint32_t bottom) {
	int32_t w, h;
	uint32_t *pixels = harness_screenshot(harness, vitrail, "HEADLESS-1", NULL,
			name, &w, &h);
	ck_assert_ptr_nonnull(pixels);
	long half = (long)(WIN_W - 4) * (WIN_H / 2 - 4);
	long got_top = count_in(pixels, w, h, win, 0, WIN_H / 2, top);
	long got_bottom = count_in(pixels, w, h, win, WIN_H / 2, WIN_H, bottom);
	free(pixels);
	ck_assert_msg(got_top == half && got_bottom == half,
			"%s: %ld of %ld top pixels are 0x%06x, %ld of %ld bottom pixels "
			"0x%06x",
			name, got_top, half, top & 0xffffff, got_bottom, half,
			bottom & 0xffffff);
}

/* The test's window (grey until a buffer comes) and linux-dmabuf
 * (version 4) on its connection to vitrail. */
static void open_window(struct harness_vitrail *vitrail, struct sc_app *app,
		struct dm *d) {
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	ck_assert(sc_app_init(app, "dmabuf-window"));
	ck_assert(sc_app_create_window(app, "dmabuf-window", "dmabuf", WIN_W, WIN_H,
			0xff808080u));
	dm_init(d, app->display, NULL, 4);
	ck_assert(d->present);
}

START_TEST(test_dmabuf_pixels) {
	struct harness *harness = harness_create("dmabuf-pixels");
	struct harness_vitrail *vitrail = start(harness, "/dev/null");
	struct sc_app app = { 0 };
	struct dm d;
	open_window(vitrail, &app, &d);

	/* XRGB8888 at offset 4096 with 64 bytes of padding a row */
	const uint32_t offset = 4096, stride = WIN_W * 4 + 64;
	int fd = make_memfd(offset + (size_t)stride * WIN_H, true);
	fill_rows(fd, offset, stride, WIN_W, 0, WIN_H / 2, 0x00cc2211u);
	fill_rows(fd, offset, stride, WIN_W, WIN_H / 2, WIN_H, 0x002244ccu);
	struct zwp_linux_buffer_params_v1 *params =
			params_with(&d, dup(fd), offset, stride, DRM_FORMAT_MOD_LINEAR);
	struct wl_buffer *buffer = zwp_linux_buffer_params_v1_create_immed(params,
			WIN_W, WIN_H, DRM_FORMAT_XRGB8888, 0);
	zwp_linux_buffer_params_v1_destroy(params);
	wl_buffer_add_listener(buffer, &buffer_listener, &d);
	wl_surface_attach(app.surface, buffer, 0, 0);
	wl_surface_damage_buffer(app.surface, 0, 0, WIN_W, WIN_H);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_window_count(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	struct harness_window win =
			*harness_find_window(vitrail->conn, "dmabuf-window");
	ck_assert_int_eq(win.width, WIN_W);
	ck_assert_int_eq(win.height, WIN_H);
	expect_halves(harness, vitrail, "xrgb", &win, 0xcc2211u, 0x2244ccu);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(d.released, "the dmabuf was not released after its copy");

	/* the client draws again into the same buffer: the new colour */
	fill_rows(fd, offset, stride, WIN_W, 0, WIN_H / 2, 0x0022aa44u);
	d.released = false;
	wl_surface_attach(app.surface, buffer, 0, 0);
	wl_surface_damage_buffer(app.surface, 0, 0, WIN_W, WIN_H / 2);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	expect_halves(harness, vitrail, "xrgb-again", &win, 0x22aa44u, 0x2244ccu);
	close(fd);

	/* ABGR8888 through create (not immed): red is the low byte */
	fd = make_memfd((size_t)WIN_W * 4 * WIN_H, true);
	fill_rows(fd, 0, WIN_W * 4, WIN_W, 0, WIN_H / 2, 0xff1122ccu);
	fill_rows(fd, 0, WIN_W * 4, WIN_W, WIN_H / 2, WIN_H, 0xffcc4422u);
	params = params_with(&d, fd, 0, WIN_W * 4, DRM_FORMAT_MOD_LINEAR);
	zwp_linux_buffer_params_v1_create(params, WIN_W, WIN_H, DRM_FORMAT_ABGR8888,
			0);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert(!d.failed);
	ck_assert_ptr_nonnull(d.created);
	zwp_linux_buffer_params_v1_destroy(params);
	wl_surface_attach(app.surface, d.created, 0, 0);
	wl_surface_damage_buffer(app.surface, 0, 0, WIN_W, WIN_H);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	expect_halves(harness, vitrail, "abgr", &win, 0xcc2211u, 0x2244ccu);

	wl_buffer_destroy(d.created);
	wl_buffer_destroy(buffer);
	dm_finish(&d, false);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- errors ------------------------------------------------------------- */

enum misuse {
	ALREADY_USED,
	PLANE_IDX,
	PLANE_SET,
	INCOMPLETE,
	UNKNOWN_FLAGS,
	MIXED_MODIFIERS,
	ZERO_WIDTH,
	OFFSET_PAST_END,
	ROWS_PAST_END,
	TILED_IMMED,
	UNREAD_FORMAT_IMMED,
	UNSEALED_IMMED,
};

static void misuse(struct harness_vitrail *vitrail, struct sc_app *bystander,
		enum misuse what, uint32_t code) {
	struct dm d;
	dm_init(&d, NULL, vitrail, 4);
	ck_assert(d.present);
	const uint32_t stride = 16 * 4;
	const size_t size = (size_t)stride * 16;
	int fd = make_memfd(size, what != UNSEALED_IMMED);
	uint64_t modifier = what == TILED_IMMED ? I915_FORMAT_MOD_X_TILED :
											  DRM_FORMAT_MOD_LINEAR;
	uint32_t offset = what == OFFSET_PAST_END ? (uint32_t)size + 4096 : 0;
	struct zwp_linux_buffer_params_v1 *params = what == INCOMPLETE ?
			zwp_linux_dmabuf_v1_create_params(d.dmabuf) :
			params_with(&d, dup(fd), offset, stride, modifier);
	int32_t width = what == ZERO_WIDTH ? 0 : 16;
	int32_t height = what == ROWS_PAST_END ? 17 : 16;
	uint32_t format =
			what == UNREAD_FORMAT_IMMED ? DRM_FORMAT_NV12 : DRM_FORMAT_XRGB8888;
	uint32_t flags = what == UNKNOWN_FLAGS ? 0x80 : 0;
	switch (what) {
	case PLANE_IDX:
		zwp_linux_buffer_params_v1_add(params, dup(fd), 4, 0, stride, 0, 0);
		break;
	case PLANE_SET:
		zwp_linux_buffer_params_v1_add(params, dup(fd), 0, 0, stride, 0, 0);
		break;
	case MIXED_MODIFIERS:
		zwp_linux_buffer_params_v1_add(params, dup(fd), 1, 0, stride,
				(uint32_t)(I915_FORMAT_MOD_X_TILED >> 32),
				(uint32_t)I915_FORMAT_MOD_X_TILED);
		break;
	case ALREADY_USED:
		wl_buffer_destroy(zwp_linux_buffer_params_v1_create_immed(params, width,
				height, format, flags));
		break;
	default: break;
	}
	struct wl_buffer *buffer = zwp_linux_buffer_params_v1_create_immed(params,
			width, height, format, flags);
	close(fd);
	ck_assert_msg(wl_display_roundtrip(d.display) < 0,
			"misuse %d: the connection lives", what);
	const struct wl_interface *got = NULL;
	uint32_t got_code = wl_display_get_protocol_error(d.display, &got, NULL);
	ck_assert_msg(got == &zwp_linux_buffer_params_v1_interface,
			"misuse %d: an error of %s", what,
			got != NULL ? got->name : "none");
	ck_assert_msg(got_code == code, "misuse %d: code %u, want %u", what,
			got_code, code);
	wl_buffer_destroy(buffer);
	zwp_linux_buffer_params_v1_destroy(params);
	dm_finish(&d, true);
	ck_assert_int_ge(wl_display_roundtrip(bystander->display), 0);
	harness_assert_alive(vitrail->proc);
}

START_TEST(test_dmabuf_errors) {
	struct harness *harness = harness_create("dmabuf-errors");
	struct harness_vitrail *vitrail = start(harness, "/dev/null");
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	struct sc_app bystander = { 0 };
	ck_assert(sc_app_init(&bystander, "bystander"));
	ck_assert(sc_app_create_window(&bystander, "bystander", "bystander", 40, 40,
			0xff808080u));
	wl_surface_commit(bystander.surface);

	static const struct {
		enum misuse what;
		uint32_t code;
	} cases[] = {
		{ ALREADY_USED, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_ALREADY_USED },
		{ PLANE_IDX, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_IDX },
		{ PLANE_SET, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_SET },
		{ INCOMPLETE, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INCOMPLETE },
		{ UNKNOWN_FLAGS, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT },
		{ MIXED_MODIFIERS, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT },
		{ ZERO_WIDTH, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_DIMENSIONS },
		{ OFFSET_PAST_END, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS },
		{ ROWS_PAST_END, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS },
		{ TILED_IMMED, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_WL_BUFFER },
		{ UNREAD_FORMAT_IMMED,
				ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_WL_BUFFER },
		{ UNSEALED_IMMED, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_WL_BUFFER },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		misuse(vitrail, &bystander, cases[i].what, cases[i].code);
	}

	/* create (not immed) of what vitrail does not read: failed, and the
	 * connection lives */
	struct dm d;
	dm_init(&d, NULL, vitrail, 4);
	int fd = make_memfd(64 * 16, true);
	struct zwp_linux_buffer_params_v1 *params =
			params_with(&d, fd, 0, 64, I915_FORMAT_MOD_X_TILED);
	zwp_linux_buffer_params_v1_create(params, 16, 16, DRM_FORMAT_XRGB8888, 0);
	ck_assert_int_ge(wl_display_roundtrip(d.display), 0);
	ck_assert(d.failed);
	ck_assert_ptr_null(d.created);
	zwp_linux_buffer_params_v1_destroy(params);
	/* the implicit modifier, which the feedback lists: failed too */
	d.failed = false;
	params = params_with(&d, make_memfd(64 * 16, true), 0, 64,
			DRM_FORMAT_MOD_INVALID);
	zwp_linux_buffer_params_v1_create(params, 16, 16, DRM_FORMAT_XRGB8888, 0);
	ck_assert_int_ge(wl_display_roundtrip(d.display), 0);
	ck_assert(d.failed);
	ck_assert_ptr_null(d.created);
	zwp_linux_buffer_params_v1_destroy(params);
	ck_assert_int_ge(wl_display_roundtrip(d.display), 0);
	dm_finish(&d, true);

	sc_app_finish(&bystander);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- sampled in place ---------------------------------------------------- */

struct held {
	bool released;
};

static void held_release(void *data, struct wl_buffer *buffer) {
	((struct held *)data)->released = true;
}

static const struct wl_buffer_listener held_listener = {
	.release = held_release,
};

/* A window-sized dmabuf of fourcc at offset with stride, its halves top
 * and bottom. */
static struct wl_buffer *halves_buffer(struct dm *d, uint32_t fourcc,
		uint32_t offset, uint32_t stride, uint32_t top, uint32_t bottom,
		struct held *held) {
	int fd = make_memfd(offset + (size_t)stride * WIN_H, true);
	fill_rows(fd, offset, stride, WIN_W, 0, WIN_H / 2, top);
	fill_rows(fd, offset, stride, WIN_W, WIN_H / 2, WIN_H, bottom);
	struct zwp_linux_buffer_params_v1 *params =
			params_with(d, fd, offset, stride, DRM_FORMAT_MOD_LINEAR);
	struct wl_buffer *buffer = zwp_linux_buffer_params_v1_create_immed(params,
			WIN_W, WIN_H, fourcc, 0);
	zwp_linux_buffer_params_v1_destroy(params);
	wl_buffer_add_listener(buffer, &held_listener, held);
	return buffer;
}

static void show(struct sc_app *app, struct wl_buffer *buffer) {
	wl_surface_attach(app->surface, buffer, 0, 0);
	wl_surface_damage_buffer(app->surface, 0, 0, WIN_W, WIN_H);
	wl_surface_commit(app->surface);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
}

/* The value of key in the stats file's line that starts with line. */
static long stats_value(const char *path, const char *line, const char *key) {
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "no stats file %s", path);
	char buf[1024];
	long value = -1;
	while (fgets(buf, sizeof(buf), f) != NULL) {
		if (strncmp(buf, line, strlen(line)) != 0) {
			continue;
		}
		char *at = strstr(buf, key);
		ck_assert_msg(at != NULL, "no %s in: %s", key, buf);
		value = strtol(at + strlen(key), NULL, 10);
	}
	fclose(f);
	return value;
}

/* "VK_ICD_FILENAMES=<a manifest of Mesa 25's lavapipe>" in the harness's
 * directory, for vitrail's environment (the callers' main() skipped the
 * case without it). */
static void lavapipe25_icd_env(struct harness *harness, char *env, size_t len) {
	char lavapipe[PATH_MAX];
	ck_assert(mesa25_lavapipe(lavapipe));
	char *icd = NULL;
	size_t icd_len = 0;
	FILE *icd_file = open_memstream(&icd, &icd_len);
	ck_assert_ptr_nonnull(icd_file);
	mesa25_write_icd(icd_file, lavapipe);
	fclose(icd_file);
	char *icd_path = harness_write_file(harness, "lvp25_icd.json", icd);
	snprintf(env, len, "VK_ICD_FILENAMES=%s", icd_path);
	free(icd_path);
	free(icd);
}

START_TEST(test_dmabuf_in_place) {
	struct harness *harness = harness_create("dmabuf-in-place");
	char *stats_path = NULL;
	ck_assert(asprintf(&stats_path, "%s/stats.txt", harness->out_dir) > 0);
	char icd_env[PATH_MAX + 32];
	lavapipe25_icd_env(harness, icd_env, sizeof(icd_env));
	const char *env[] = { "VITRAIL_DMABUF_DEVICE=/dev/null", icd_env,
		"XWAYLAND_NO_GLAMOR", NULL };
	const char *args[] = { "--render-backend", "vulkan", "--stats", stats_path,
		NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "320x240",
					.extra_args = args,
					.env = env });
	struct sc_app app = { 0 };
	struct dm d;
	open_window(vitrail, &app, &d);

	/* rows 448 bytes apart, the pitch lavapipe gives a LINEAR image of
	 * 100 texels (64-byte rows), from a page in: imported */
	struct held a = { 0 };
	struct wl_buffer *buffer_a = halves_buffer(&d, DRM_FORMAT_XRGB8888, 4096,
			448, 0x00cc2211u, 0x002244ccu, &a);
	show(&app, buffer_a);
	harness_wait_for_window_count(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	struct harness_window win =
			*harness_find_window(vitrail->conn, "dmabuf-window");
	expect_halves(harness, vitrail, "in-place", &win, 0xcc2211u, 0x2244ccu);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	/* sampled where the client drew it: not given back while shown */
	ck_assert_msg(!a.released, "a dmabuf shown without a copy was released");

	/* ARGB8888 at an offset, a pitch lavapipe would not choose
	 * (uploaded from the mapping, still without a copy at commit) */
	struct held b = { 0 };
	struct wl_buffer *buffer_b = halves_buffer(&d, DRM_FORMAT_ARGB8888, 4096,
			WIN_W * 4 + 64, 0xff22aa44u, 0xffaa2288u, &b);
	show(&app, buffer_b);
	expect_halves(harness, vitrail, "uploaded", &win, 0x22aa44u, 0xaa2288u);
	/* a replaced: given back once the frames that sampled it are done */
	int64_t deadline = harness_now_ms() + harness_scaled_ms(5000);
	while (!a.released && harness_now_ms() < deadline) {
		harness_settle(vitrail->conn);
		ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	}
	ck_assert_msg(a.released, "the replaced dmabuf was never released");
	ck_assert_msg(!b.released, "the dmabuf on screen was released");

	/* the next buffer damaged in its top half only (its bottom is the
	 * same): the top from it, imported (ARGB8888 again, 448-byte rows) */
	struct held c = { 0 };
	struct wl_buffer *buffer_c = halves_buffer(&d, DRM_FORMAT_ARGB8888, 0, 448,
			0xff3366aau, 0xffaa2288u, &c);
	wl_surface_attach(app.surface, buffer_c, 0, 0);
	wl_surface_damage_buffer(app.surface, 0, 0, WIN_W, WIN_H / 2);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	expect_halves(harness, vitrail, "damaged-top", &win, 0x3366aau, 0xaa2288u);

	/* back to a: its pixels as the client left them */
	a.released = false;
	show(&app, buffer_a);
	expect_halves(harness, vitrail, "in-place-again", &win, 0xcc2211u,
			0x2244ccu);

	wl_buffer_destroy(buffer_a);
	wl_buffer_destroy(buffer_b);
	wl_buffer_destroy(buffer_c);
	dm_finish(&d, false);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	/* four images without a copy, the 448-byte ones sampled in place,
	 * the first buffer's second time on its import kept */
	ck_assert_int_eq(stats_value(stats_path, "client_dmabufs", "uncopied="), 4);
	ck_assert_int_eq(stats_value(stats_path, "client_dmabufs", "imported="), 3);
	ck_assert_int_eq(stats_value(stats_path, "client_dmabufs", "reused="), 1);
	free(stats_path);
	harness_destroy(harness);
}
END_TEST

/* ---- direct scan-out ----------------------------------------------------- */

/* The output is 320x240: a fullscreen window's buffer covers it. */
#define OUT_W 320
#define OUT_H 240

struct shown {
	bool done, presented;
	uint32_t flags;
};

static void fb_sync_output(void *data, struct wp_presentation_feedback *fb,
		struct wl_output *output) {
}

static void fb_presented(void *data, struct wp_presentation_feedback *fb,
		uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec,
		uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo, uint32_t flags) {
	struct shown *shown = data;
	shown->done = shown->presented = true;
	shown->flags = flags;
	wp_presentation_feedback_destroy(fb);
}

static void fb_discarded(void *data, struct wp_presentation_feedback *fb) {
	((struct shown *)data)->done = true;
	wp_presentation_feedback_destroy(fb);
}

static const struct wp_presentation_feedback_listener shown_listener = {
	.sync_output = fb_sync_output,
	.presented = fb_presented,
	.discarded = fb_discarded,
};

/* A w x h dmabuf of fourcc, its halves top and bottom. */
static struct wl_buffer *sized_buffer(struct dm *d, uint32_t fourcc, int w,
		int h, uint32_t top, uint32_t bottom, struct held *held) {
	uint32_t stride = (uint32_t)w * 4;
	int fd = make_memfd((size_t)stride * (size_t)h, true);
	fill_rows(fd, 0, stride, w, 0, h / 2, top);
	fill_rows(fd, 0, stride, w, h / 2, h, bottom);
	struct zwp_linux_buffer_params_v1 *params =
			params_with(d, fd, 0, stride, DRM_FORMAT_MOD_LINEAR);
	struct wl_buffer *buffer =
			zwp_linux_buffer_params_v1_create_immed(params, w, h, fourcc, 0);
	zwp_linux_buffer_params_v1_destroy(params);
	wl_buffer_add_listener(buffer, &held_listener, held);
	return buffer;
}

/* Commit buffer (all of it damaged; NULL: no new buffer, no damage) and
 * wait for its presentation feedback: the flags it was presented with. */
static uint32_t show_presented(struct harness_vitrail *vitrail,
		struct sc_app *app, struct dm *d, struct wl_buffer *buffer, int w,
		int h) {
	struct shown shown = { 0 };
	wp_presentation_feedback_add_listener(
			wp_presentation_feedback(d->presentation, app->surface),
			&shown_listener, &shown);
	if (buffer != NULL) {
		wl_surface_attach(app->surface, buffer, 0, 0);
		wl_surface_damage_buffer(app->surface, 0, 0, w, h);
	}
	wl_surface_commit(app->surface);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(5000);
	while (!shown.done && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
		harness_settle(vitrail->conn);
	}
	ck_assert_msg(shown.presented, "the commit was never presented");
	return shown.flags;
}

/* Of the screenshot's rows [y0, y1) within columns [x0, x1), those not
 * rgb. */
static long count_not(const uint32_t *pixels, int32_t w, int x0, int x1, int y0,
		int y1, uint32_t rgb) {
	long n = 0;
	for (int y = y0; y < y1; y++) {
		for (int x = x0; x < x1; x++) {
			n += (pixels[y * w + x] & 0xffffff) != (rgb & 0xffffff);
		}
	}
	return n;
}

/* The whole output shows top over bottom. */
static void expect_screen(struct harness *harness,
		struct harness_vitrail *vitrail, const char *name, uint32_t top,
		uint32_t bottom) {
	int32_t w, h;
	uint32_t *pixels = harness_screenshot(harness, vitrail, "HEADLESS-1", NULL,
			name, &w, &h);
	ck_assert_ptr_nonnull(pixels);
	ck_assert_int_eq(w, OUT_W);
	ck_assert_int_eq(h, OUT_H);
	long bad_top = count_not(pixels, w, 0, w, 0, h / 2, top);
	long bad_bottom = count_not(pixels, w, 0, w, h / 2, h, bottom);
	free(pixels);
	ck_assert_msg(bad_top == 0 && bad_bottom == 0,
			"%s: %ld top pixels are not 0x%06x, %ld bottom ones not 0x%06x",
			name, bad_top, top & 0xffffff, bad_bottom, bottom & 0xffffff);
}

/*
 * A fullscreen window whose XRGB8888 dmabuf covers the output is shown as
 * it is (presentation feedback says zero-copy, the buffer is held while on
 * screen), and every case that must be composed is, with the right
 * pixels: ARGB8888 without an opaque region, a buffer that does not cover
 * the output (the frame after scan-out draws all of it: nothing of the
 * scanned-out buffer is left around it), a subsurface above; and
 * VITRAIL_NO_SCANOUT composes all.
 */
/* vitrail with one 320x240 output, its statistics and its screenshots
 * at exit in the harness's directory, and a fullscreen window with
 * linux-dmabuf and wp_presentation on its connection. */
struct scanout_run {
	struct harness *harness;
	struct harness_vitrail *vitrail;
	struct sc_app app;
	struct dm d;
	char *stats_path, *shots;
};

static void scanout_start(struct scanout_run *r, const char *name,
		bool vulkan) {
	*r = (struct scanout_run){ .harness = harness_create(name) };
	ck_assert(
			asprintf(&r->stats_path, "%s/stats.txt", r->harness->out_dir) > 0);
	ck_assert(asprintf(&r->shots, "%s/exit", r->harness->out_dir) > 0);
	/* vulkan: the engine on Mesa 25's lavapipe, which samples the
	 * buffers in place (external images) */
	char icd_env[PATH_MAX + 32] = "VK_ICD_FILENAMES";
	if (vulkan) {
		lavapipe25_icd_env(r->harness, icd_env, sizeof(icd_env));
	}
	const char *args[] = { "--stats", r->stats_path, "--screenshot-dir",
		r->shots, "--render-backend", vulkan ? "vulkan" : "cpu", NULL };
	const char *env[] = { "VITRAIL_DMABUF_DEVICE=/dev/null", icd_env,
		"XWAYLAND_NO_GLAMOR", NULL };
	char size[32];
	snprintf(size, sizeof(size), "%dx%d", OUT_W, OUT_H);
	r->vitrail = harness_start_vitrail(r->harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = size,
					.extra_args = args,
					.env = env });
	open_window(r->vitrail, &r->app, &r->d);
	ck_assert_ptr_nonnull(r->d.presentation);
	r->app.configure_fullscreen = false;
	xdg_toplevel_set_fullscreen(r->app.xdg_toplevel, NULL);
	wl_surface_commit(r->app.surface);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(5000);
	while (!r->app.configure_fullscreen && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_roundtrip(r->app.display), 0);
	}
	ck_assert(r->app.configure_fullscreen);
	ck_assert_int_eq(r->app.configure_width, OUT_W);
	ck_assert_int_eq(r->app.configure_height, OUT_H);
}

/* Stop it: its frames scanned out (--stats) and its screenshot at exit
 * (vitrail's own, of what the screen shows: no composition for it). */
static uint32_t *scanout_stop(struct scanout_run *r, long *scanned) {
	dm_finish(&r->d, false);
	sc_app_finish(&r->app);
	harness_stop_vitrail(r->harness, r->vitrail);
	*scanned = stats_value(r->stats_path, "HEADLESS-1", "scanout=");
	char *shot = NULL;
	ck_assert(asprintf(&shot, "%s/HEADLESS-1.png", r->shots) > 0);
	int32_t w, h;
	uint32_t *pixels = vr_png_read(shot, &w, &h);
	ck_assert_msg(pixels != NULL, "no screenshot %s", shot);
	ck_assert_int_eq(w, OUT_W);
	ck_assert_int_eq(h, OUT_H);
	free(shot);
	free(r->shots);
	free(r->stats_path);
	harness_destroy(r->harness);
	return pixels;
}

static void scanout_sequence(const char *name, bool vulkan) {
	struct scanout_run r;
	scanout_start(&r, name, vulkan);
	struct harness *harness = r.harness;
	struct harness_vitrail *vitrail = r.vitrail;
	struct sc_app *app = &r.app;
	struct dm *d = &r.d;

	/* XRGB8888 over all of the output: scanned out, held while shown */
	struct held a = { 0 };
	struct wl_buffer *buffer_a = sized_buffer(d, DRM_FORMAT_XRGB8888, OUT_W,
			OUT_H, 0x00cc2211u, 0x002244ccu, &a);
	uint32_t flags = show_presented(vitrail, app, d, buffer_a, OUT_W, OUT_H);
	harness_wait_for_window_count(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	ck_assert_msg(flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY,
			"a fullscreen XRGB8888 dmabuf was composed (flags 0x%x)", flags);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	ck_assert_msg(!a.released, "the scanned-out buffer was released");
	/* grim's screencopy composes while it copies (wlroots 0.15 locks
	 * direct scan-out for it): the first composed frame after scan-out
	 * draws all of the output */
	expect_screen(harness, vitrail, "scanout", 0xcc2211u, 0x2244ccu);

	/* ARGB8888 with no opaque region: composed (over black) */
	struct held b = { 0 };
	struct wl_buffer *buffer_b = sized_buffer(d, DRM_FORMAT_ARGB8888, OUT_W,
			OUT_H, 0xff22aa44u, 0xffaa2288u, &b);
	flags = show_presented(vitrail, app, d, buffer_b, OUT_W, OUT_H);
	ck_assert_msg(!(flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY),
			"ARGB8888 without an opaque region was scanned out");
	expect_screen(harness, vitrail, "argb-composed", 0x22aa44u, 0xaa2288u);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(5000);
	while (!a.released && harness_now_ms() < deadline) {
		harness_settle(vitrail->conn);
		ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	}
	ck_assert_msg(a.released, "the buffer no longer on screen was held");

	/* the same, said to be opaque: scanned out */
	struct wl_region *opaque = wl_compositor_create_region(app->compositor);
	wl_region_add(opaque, 0, 0, OUT_W, OUT_H);
	wl_surface_set_opaque_region(app->surface, opaque);
	wl_region_destroy(opaque);
	flags = show_presented(vitrail, app, d, buffer_b, OUT_W, OUT_H);
	ck_assert_msg(flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY,
			"an opaque ARGB8888 dmabuf was composed");
	expect_screen(harness, vitrail, "argb-opaque", 0x22aa44u, 0xaa2288u);

	/* smaller than the output: composed, and nothing of the buffer
	 * scanned out before is left around it */
	struct held c = { 0 };
	struct wl_buffer *buffer_c = sized_buffer(d, DRM_FORMAT_XRGB8888, 200, 150,
			0x003366aau, 0x003366aau, &c);
	flags = show_presented(vitrail, app, d, buffer_c, 200, 150);
	ck_assert(!(flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY));
	int32_t w, h;
	uint32_t *pixels = harness_screenshot(harness, vitrail, "HEADLESS-1", NULL,
			"smaller", &w, &h);
	ck_assert_ptr_nonnull(pixels);
	long window = 0, stale = 0;
	for (int i = 0; i < w * h; i++) {
		uint32_t rgb = pixels[i] & 0xffffff;
		window += rgb == 0x3366aau;
		stale += rgb == 0x22aa44u || rgb == 0xaa2288u;
	}
	free(pixels);
	ck_assert_int_eq(window, 200 * 150);
	ck_assert_msg(stale == 0, "%ld pixels of the scanned-out buffer remain",
			stale);

	/* back to the whole output; then a subsurface above it: composed */
	a.released = false;
	flags = show_presented(vitrail, app, d, buffer_a, OUT_W, OUT_H);
	ck_assert(flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY);
	expect_screen(harness, vitrail, "scanout-again", 0xcc2211u, 0x2244ccu);
	struct wl_surface *child = wl_compositor_create_surface(app->compositor);
	struct wl_subsurface *sub = wl_subcompositor_get_subsurface(
			app->subcompositor, child, app->surface);
	wl_subsurface_set_position(sub, 10, 10);
	struct held e = { 0 };
	struct wl_buffer *buffer_e = sized_buffer(d, DRM_FORMAT_XRGB8888, 40, 20,
			0x0011ee11u, 0x0011ee11u, &e);
	wl_surface_attach(child, buffer_e, 0, 0);
	wl_surface_damage_buffer(child, 0, 0, 40, 20);
	wl_surface_commit(child);
	/* the parent's commit applies it and damages nothing else: the
	 * composed frame still draws all (the target missed the frames
	 * scanned out) */
	flags = show_presented(vitrail, app, d, NULL, 0, 0);
	ck_assert_msg(!(flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY),
			"scanned out with a subsurface above");
	pixels = harness_screenshot(harness, vitrail, "HEADLESS-1", NULL,
			"subsurface", &w, &h);
	ck_assert_ptr_nonnull(pixels);
	ck_assert_int_eq(count_not(pixels, w, 10, 50, 10, 30, 0x11ee11u), 0);
	ck_assert_int_eq(count_not(pixels, w, 60, w, 0, h / 2, 0xcc2211u), 0);
	ck_assert_int_eq(count_not(pixels, w, 0, w, h / 2, h, 0x2244ccu), 0);
	free(pixels);
	wl_subsurface_destroy(sub);
	wl_surface_destroy(child);
	/* the subsurface gone: scanned out again, and vitrail's own
	 * screenshot at exit reads the screen's buffer, not the target's
	 * last composed frame (which has the subsurface) */
	flags = show_presented(vitrail, app, d, buffer_a, OUT_W, OUT_H);
	ck_assert(flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY);

	wl_buffer_destroy(buffer_a);
	wl_buffer_destroy(buffer_b);
	wl_buffer_destroy(buffer_c);
	wl_buffer_destroy(buffer_e);
	long scanned;
	pixels = scanout_stop(&r, &scanned);
	/* the four commits scanned out, and any frame that repeated one */
	ck_assert_int_ge(scanned, 4);
	ck_assert_int_eq(
			count_not(pixels, OUT_W, 0, OUT_W, 0, OUT_H / 2, 0xcc2211u), 0);
	ck_assert_int_eq(
			count_not(pixels, OUT_W, 0, OUT_W, OUT_H / 2, OUT_H, 0x2244ccu), 0);
	free(pixels);
}

START_TEST(test_dmabuf_scanout) {
	scanout_sequence("dmabuf-scanout", false);
}
END_TEST

/* The same on the Vulkan engine over Mesa 25's lavapipe, where the
 * buffers are sampled in place when composed (external images). */
START_TEST(test_dmabuf_scanout_vulkan) {
	scanout_sequence("dmabuf-scanout-vulkan", true);
}
END_TEST

/*
 * The frame composed right after frames scanned out draws all of the
 * output, whatever its own damage: here a subsurface appears over the
 * fullscreen buffer, damaging only its own pixels, and what vitrail
 * composed before the scan-out (a smaller buffer over black) must be gone
 * from it. Its pixels are read at exit, without a composition asked for
 * them (grim's would draw all of the output anyway).
 */
START_TEST(test_dmabuf_scanout_then_composed) {
	struct scanout_run r;
	scanout_start(&r, "dmabuf-scanout-then-composed", false);
	struct held c = { 0 };
	struct wl_buffer *buffer_c = sized_buffer(&r.d, DRM_FORMAT_XRGB8888, 200,
			150, 0x003366aau, 0x003366aau, &c);
	uint32_t flags =
			show_presented(r.vitrail, &r.app, &r.d, buffer_c, 200, 150);
	ck_assert(!(flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY));
	struct held a = { 0 };
	struct wl_buffer *buffer_a = sized_buffer(&r.d, DRM_FORMAT_XRGB8888, OUT_W,
			OUT_H, 0x00cc2211u, 0x002244ccu, &a);
	flags = show_presented(r.vitrail, &r.app, &r.d, buffer_a, OUT_W, OUT_H);
	ck_assert(flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY);

	struct wl_surface *child = wl_compositor_create_surface(r.app.compositor);
	struct wl_subsurface *sub = wl_subcompositor_get_subsurface(
			r.app.subcompositor, child, r.app.surface);
	wl_subsurface_set_position(sub, 10, 10);
	struct held e = { 0 };
	struct wl_buffer *buffer_e = sized_buffer(&r.d, DRM_FORMAT_XRGB8888, 40, 20,
			0x0011ee11u, 0x0011ee11u, &e);
	wl_surface_attach(child, buffer_e, 0, 0);
	wl_surface_damage_buffer(child, 0, 0, 40, 20);
	wl_surface_commit(child);
	flags = show_presented(r.vitrail, &r.app, &r.d, NULL, 0, 0);
	ck_assert(!(flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY));
	wl_buffer_destroy(buffer_a);
	wl_buffer_destroy(buffer_c);
	wl_buffer_destroy(buffer_e);
	wl_subsurface_destroy(sub);
	wl_surface_destroy(child);

	long scanned;
	uint32_t *pixels = scanout_stop(&r, &scanned);
	ck_assert_int_ge(scanned, 1);
	ck_assert_int_eq(count_not(pixels, OUT_W, 10, 50, 10, 30, 0x11ee11u), 0);
	ck_assert_int_eq(
			count_not(pixels, OUT_W, 60, OUT_W, 0, OUT_H / 2, 0xcc2211u), 0);
	ck_assert_int_eq(
			count_not(pixels, OUT_W, 0, OUT_W, OUT_H / 2, OUT_H, 0x2244ccu), 0);
	free(pixels);
}
END_TEST

/*
 * Nested in another vitrail (the wayland backend), the parent compositor
 * is the plane: the inner vitrail scans a fullscreen client dmabuf out
 * (hands it to the parent as it is) where the parent takes such dmabufs
 * (its linux-dmabuf formats, wlroots' wlr_output_test), and composes it
 * where the parent offers no linux-dmabuf. Either way the parent shows
 * the client's pixels in the nested output's window, pixel for pixel.
 */
/* A vitrail (CPU engine, 640x480) with a vitrail nested in it (a kiosk
 * of one OUT_W x OUT_H output that hides its cursor: the nested session
 * draws its own cursor into its frames, no cursor plane), its statistics
 * in stats_path; the test's fullscreen window on the inner one. parent:
 * the parent's VITRAIL_DMABUF_DEVICE; inner_env, inner_args: more of the
 * inner one's (NULL-terminated, at most 4 each). */
struct nested_pair {
	struct harness *harness;
	struct harness_vitrail *outer, *inner;
	struct sc_app app;
	struct dm d;
	char *stats_path, *config;
};

static void nested_start(struct nested_pair *n, struct harness *harness,
		const char *parent, const char *const *inner_env,
		const char *const *inner_args) {
	*n = (struct nested_pair){ .harness = harness };
	ck_assert(asprintf(&n->stats_path, "%s/inner-stats.txt", harness->out_dir) >
			0);
	char outer_device[64];
	snprintf(outer_device, sizeof(outer_device), "VITRAIL_DMABUF_DEVICE=%s",
			parent);
	const char *outer_env[] = { outer_device, "XWAYLAND_NO_GLAMOR", NULL };
	n->outer = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "640x480",
					.extra_args = (const char *const[]){ "--render-backend",
							"cpu", NULL },
					.env = outer_env });
	const char *env[8] = { "VITRAIL_DMABUF_DEVICE=/dev/null",
		"XWAYLAND_NO_GLAMOR" };
	for (int i = 0; inner_env[i] != NULL; i++) {
		ck_assert_int_lt(i, 4);
		env[2 + i] = inner_env[i];
	}
	n->config = harness_write_file(harness, "inner.conf",
			"mode kiosk\nhide_cursor always\n");
	const char *args[12] = { "--stats", n->stats_path, "--config", n->config,
		"--debug" };
	for (int i = 0; inner_args[i] != NULL; i++) {
		ck_assert_int_lt(i, 4);
		args[5 + i] = inner_args[i];
	}
	char size[32];
	snprintf(size, sizeof(size), "%dx%d", OUT_W, OUT_H);
	n->inner = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .backend = "wayland",
					.outputs = 1,
					.output_size = size,
					.wayland_parent = n->outer,
					.extra_args = args,
					.env = env });
	harness_wait_for_windows(n->outer->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	/* the parent's pointer (and its cursor) off the nested output */
	harness_pointer_move(n->outer->conn, 639, 479);

	open_window(n->inner, &n->app, &n->d);
	ck_assert_ptr_nonnull(n->d.presentation);
	xdg_toplevel_set_fullscreen(n->app.xdg_toplevel, NULL);
	wl_surface_commit(n->app.surface);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(5000);
	while (!n->app.configure_fullscreen && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_roundtrip(n->app.display), 0);
	}
	ck_assert(n->app.configure_fullscreen);
}

/* The parent shows the client's two halves, each pixel once: half of
 * `pixels` pixels are top, half bottom. */
static void nested_expect_halves(struct nested_pair *n, const char *name,
		uint32_t top, uint32_t bottom, long pixels) {
	int32_t w, h;
	uint32_t *shot = harness_screenshot(n->harness, n->outer, "HEADLESS-1",
			NULL, name, &w, &h);
	ck_assert_ptr_nonnull(shot);
	long got_top = 0, got_bottom = 0;
	for (int i = 0; i < w * h; i++) {
		got_top += (shot[i] & 0xffffff) == (top & 0xffffff);
		got_bottom += (shot[i] & 0xffffff) == (bottom & 0xffffff);
	}
	free(shot);
	ck_assert_msg(got_top == pixels / 2 && got_bottom == pixels / 2,
			"the parent shows %ld top and %ld bottom pixels of %ld", got_top,
			got_bottom, pixels / 2);
}

/* Stop both; the inner one's statistic key of its WL-1 output. */
static long nested_stop(struct nested_pair *n, const char *key) {
	dm_finish(&n->d, false);
	sc_app_finish(&n->app);
	harness_stop_vitrail(n->harness, n->inner);
	long value = stats_value(n->stats_path, "WL-1", key);
	harness_stop_vitrail(n->harness, n->outer);
	free(n->config);
	free(n->stats_path);
	harness_destroy(n->harness);
	return value;
}

static void scanout_nested(const char *name, bool parent_dmabuf) {
	struct nested_pair n;
	nested_start(&n, harness_create(name), parent_dmabuf ? "/dev/null" : "none",
			(const char *const[]){ NULL },
			(const char *const[]){ "--render-backend", "cpu", NULL });
	struct harness_vitrail *inner = n.inner;
	struct held a = { 0 };
	struct wl_buffer *buffer_a = sized_buffer(&n.d, DRM_FORMAT_XRGB8888, OUT_W,
			OUT_H, 0x00cc2211u, 0x002244ccu, &a);
	uint32_t flags =
			show_presented(inner, &n.app, &n.d, buffer_a, OUT_W, OUT_H);
	if (parent_dmabuf) {
		ck_assert_msg(flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY,
				"the parent takes the dmabuf, yet it was composed");
	} else {
		ck_assert_msg(!(flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY),
				"scanned out to a parent without linux-dmabuf");
	}

	nested_expect_halves(&n, "outer", 0xcc2211u, 0x2244ccu,
			(long)OUT_W * OUT_H);

	wl_buffer_destroy(buffer_a);
	long scanned = nested_stop(&n, "scanout=");
	if (parent_dmabuf) {
		ck_assert_int_ge(scanned, 1);
	} else {
		ck_assert_int_eq(scanned, 0);
	}
}

START_TEST(test_dmabuf_scanout_nested) {
	scanout_nested("dmabuf-scanout-nested", true);
}
END_TEST

START_TEST(test_dmabuf_scanout_nested_refused) {
	scanout_nested("dmabuf-scanout-nested-refused", false);
}
END_TEST

/*
 * Output buffers on the device (compositor/output/output_dmabuf.c): with
 * VITRAIL_OUTPUT_DMABUF=memfd (memfds standing for dma-bufs), the Vulkan
 * engine on Mesa 25's lavapipe imports each output buffer and copies the
 * composed frame into it on the device, and the buffer is committed as
 * it is. Headless: grim's screencopy reads the buffer through its
 * mapping, and --stats counts the frames presented from dma-bufs; the
 * CPU engine, which imports none, keeps host buffers.
 */
/* vitrail with one 320x240 output whose buffers are memfds standing for
 * dma-bufs, its --stats in <out_dir>/stats.txt (*stats_path), on the
 * Vulkan engine over Mesa 25's lavapipe or on the CPU engine; fault: one
 * more variable (NULL: none). */
static struct harness_vitrail *start_output_buffers(struct harness *harness,
		bool vulkan, const char *fault, char **stats_path) {
	ck_assert(asprintf(stats_path, "%s/stats.txt", harness->out_dir) > 0);
	char icd_env[PATH_MAX + 32] = "VK_ICD_FILENAMES";
	if (vulkan) {
		lavapipe25_icd_env(harness, icd_env, sizeof(icd_env));
	}
	const char *env[] = { "VITRAIL_DMABUF_DEVICE=/dev/null",
		"VITRAIL_OUTPUT_DMABUF=memfd", "XWAYLAND_NO_GLAMOR", icd_env, fault,
		NULL };
	return harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "320x240",
					.extra_args = (const char *const[]){ "--stats", *stats_path,
							"--render-backend", vulkan ? "vulkan" : "cpu",
							NULL },
					.env = env });
}

START_TEST(test_dmabuf_output_buffers) {
	for (int vulkan = 1; vulkan >= 0; vulkan--) {
		struct harness *harness = harness_create(
				vulkan ? "dmabuf-output-buffers" : "dmabuf-output-buffers-cpu");
		char *stats_path = NULL;
		struct harness_vitrail *vitrail =
				start_output_buffers(harness, vulkan, NULL, &stats_path);
		struct sc_app app = { 0 };
		struct dm d;
		open_window(vitrail, &app, &d);
		struct held held = { 0 };
		struct wl_buffer *buffer = halves_buffer(&d, DRM_FORMAT_XRGB8888, 0,
				WIN_W * 4, 0x00dd3322u, 0x003322ddu, &held);
		show(&app, buffer);
		harness_wait_for_window_count(vitrail->conn, 1,
				HARNESS_WINDOWS_TIMEOUT_MS);
		struct harness_window win =
				*harness_find_window(vitrail->conn, "dmabuf-window");
		harness_settle(vitrail->conn);
		expect_halves(harness, vitrail, "shown", &win, 0xdd3322u, 0x3322ddu);
		/* a change drawn into a buffer the screen showed before */
		struct held held2 = { 0 };
		struct wl_buffer *buffer2 = halves_buffer(&d, DRM_FORMAT_XRGB8888, 0,
				WIN_W * 4, 0x0011aa55u, 0x00dd3322u, &held2);
		show(&app, buffer2);
		harness_settle(vitrail->conn);
		expect_halves(harness, vitrail, "changed", &win, 0x11aa55u, 0xdd3322u);
		wl_buffer_destroy(buffer);
		wl_buffer_destroy(buffer2);
		dm_finish(&d, false);
		sc_app_finish(&app);
		harness_stop_vitrail(harness, vitrail);
		long frames = stats_value(stats_path, "HEADLESS-1", "frames=");
		long dmabuf = stats_value(stats_path, "HEADLESS-1", "dmabuf=");
		if (vulkan) {
			/* every frame but those screencopy took through wlroots'
			 * swapchain */
			ck_assert_msg(dmabuf >= 1 && dmabuf <= frames,
					"%ld of %ld frames from output dma-bufs", dmabuf, frames);
		} else {
			ck_assert_int_eq(dmabuf, 0);
		}
		free(stats_path);
		harness_destroy(harness);
	}
}
END_TEST

/*
 * The Vulkan device lost (VITRAIL_FAULT_DEVICE_LOST) while its output
 * buffers are dma-bufs: the CPU engine draws from then on, into host
 * buffers (vitrail says so), and the window's new pixels show.
 */
START_TEST(test_dmabuf_output_buffers_lost) {
	struct harness *harness = harness_create("dmabuf-output-buffers-lost");
	char *stats_path = NULL;
	struct harness_vitrail *vitrail = start_output_buffers(harness, true,
			"VITRAIL_FAULT_DEVICE_LOST=12", &stats_path);
	struct sc_app app = { 0 };
	struct dm d;
	open_window(vitrail, &app, &d);
	struct held held[2] = { 0 };
	struct wl_buffer *buffers[2] = {
		halves_buffer(&d, DRM_FORMAT_XRGB8888, 0, WIN_W * 4, 0x00dd3322u,
				0x003322ddu, &held[0]),
		halves_buffer(&d, DRM_FORMAT_XRGB8888, 0, WIN_W * 4, 0x003322ddu,
				0x00dd3322u, &held[1]),
	};
	/* a frame per commit until the device is lost */
	for (int i = 0;; i++) {
		show(&app, buffers[i % 2]);
		harness_settle(vitrail->conn);
		char *log = harness_proc_log(vitrail->proc);
		bool lost = strstr(log, "the Vulkan device is lost") != NULL;
		free(log);
		if (lost) {
			break;
		}
		ck_assert_msg(i < 200, "the device was not lost at frame 12");
	}
	harness_wait_for_log(vitrail->proc, 0,
			"output buffers: host memory from now on (the Vulkan device was "
			"lost)",
			5000);
	struct held held2 = { 0 };
	struct wl_buffer *buffer2 = halves_buffer(&d, DRM_FORMAT_XRGB8888, 0,
			WIN_W * 4, 0x0011aa55u, 0x00aa5511u, &held2);
	show(&app, buffer2);
	harness_wait_for_window_count(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	struct harness_window win =
			*harness_find_window(vitrail->conn, "dmabuf-window");
	harness_settle(vitrail->conn);
	expect_halves(harness, vitrail, "after-loss", &win, 0x11aa55u, 0xaa5511u);
	wl_buffer_destroy(buffers[0]);
	wl_buffer_destroy(buffers[1]);
	wl_buffer_destroy(buffer2);
	dm_finish(&d, false);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	/* the frames before the loss came from dma-bufs */
	ck_assert_int_ge(stats_value(stats_path, "HEADLESS-1", "dmabuf="), 1);
	free(stats_path);
	harness_destroy(harness);
}
END_TEST

/*
 * Nested in a vitrail that takes dma-bufs, the inner vitrail's output
 * buffers go to the parent as they are: the parent shows what the
 * inner engine's copy wrote into the memory, its pixels the oracle. Where
 * the parent offers no linux-dmabuf, the first commit of one fails and
 * the output goes back to host buffers: the parent shows the same pixels
 * and no frame was presented from a dma-buf.
 */
static void output_buffers_nested(const char *name, bool parent_dmabuf) {
	struct nested_pair n;
	struct harness *harness = harness_create(name);
	char icd_env[PATH_MAX + 32];
	lavapipe25_icd_env(harness, icd_env, sizeof(icd_env));
	nested_start(&n, harness, parent_dmabuf ? "/dev/null" : "none",
			(const char *const[]){ "VITRAIL_OUTPUT_DMABUF=memfd", icd_env,
					NULL },
			(const char *const[]){ "--render-backend", "vulkan", NULL });
	struct held held = { 0 };
	/* smaller than the output: composed (over black), never scanned
	 * out */
	struct wl_buffer *buffer = halves_buffer(&n.d, DRM_FORMAT_XRGB8888, 0,
			WIN_W * 4, 0x00cc2211u, 0x002244ccu, &held);
	show(&n.app, buffer);
	harness_settle(n.inner->conn);
	nested_expect_halves(&n, "outer", 0xcc2211u, 0x2244ccu,
			(long)WIN_W * WIN_H);
	wl_buffer_destroy(buffer);
	long dmabuf = nested_stop(&n, "dmabuf=");
	if (parent_dmabuf) {
		ck_assert_int_ge(dmabuf, 1);
	} else {
		ck_assert_int_eq(dmabuf, 0);
	}
}

START_TEST(test_dmabuf_output_buffers_nested) {
	output_buffers_nested("dmabuf-output-buffers-nested", true);
}
END_TEST

START_TEST(test_dmabuf_output_buffers_nested_refused) {
	output_buffers_nested("dmabuf-output-buffers-nested-refused", false);
}
END_TEST

/* ---- a GPU client --------------------------------------------------------
 */

static const char *export_client(void) {
	return harness_env_path("VITRAIL_DMABUF_EXPORT",
			"build/tests/clients/vitrail-dmabuf-export");
}

START_TEST(test_dmabuf_gpu) {
	struct harness *harness = harness_create("dmabuf-gpu");
	/* the render node where there is one (a real main device) */
	bool node = access("/dev/dri/renderD128", R_OK | W_OK) == 0;
	struct harness_vitrail *vitrail = start(harness, node ? NULL : "/dev/null");
	char width[16], height[16];
	snprintf(width, sizeof(width), "%d", WIN_W);
	snprintf(height, sizeof(height), "%d", WIN_H);
	const char *argv[] = { export_client(), width, height, NULL };
	struct harness_proc *client = harness_spawn_client(harness, vitrail, argv);
	harness_wait_for_window_count(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	struct harness_window win =
			*harness_find_window(vitrail->conn, "vitrail-dmabuf-export");
	ck_assert_int_eq(win.width, WIN_W);
	ck_assert_int_eq(win.height, WIN_H);
	expect_halves(harness, vitrail, "gpu", &win, 0xcc2211u, 0x2244ccu);
	harness_assert_alive(client);
	harness_proc_stop(client);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

static Suite *dmabuf_suite(void) {
	Suite *suite = suite_create("dmabuf");
	harness_add_case(suite, "presence", test_dmabuf_presence, 90);
	harness_add_case(suite, "feedback", test_dmabuf_feedback, 90);
	harness_add_case(suite, "pixels", test_dmabuf_pixels, 90);
	harness_add_case(suite, "errors", test_dmabuf_errors, 90);
	harness_add_case(suite, "gpu", test_dmabuf_gpu, 90);
	harness_add_case(suite, "in_place", test_dmabuf_in_place, 90);
	harness_add_case(suite, "scanout", test_dmabuf_scanout, 90);
	harness_add_case(suite, "scanout_then_composed",
			test_dmabuf_scanout_then_composed, 90);
	harness_add_case(suite, "scanout_vulkan", test_dmabuf_scanout_vulkan, 90);
	harness_add_case(suite, "scanout_nested", test_dmabuf_scanout_nested, 90);
	harness_add_case(suite, "scanout_nested_refused",
			test_dmabuf_scanout_nested_refused, 90);
	harness_add_case(suite, "output_buffers", test_dmabuf_output_buffers, 90);
	harness_add_case(suite, "output_buffers_lost",
			test_dmabuf_output_buffers_lost, 90);
	harness_add_case(suite, "output_buffers_nested",
			test_dmabuf_output_buffers_nested, 90);
	harness_add_case(suite, "output_buffers_nested_refused",
			test_dmabuf_output_buffers_nested_refused, 90);
	return suite;
}

int main(int argc, char *argv[]) {
	char lavapipe[PATH_MAX];
	if (argc > 1 &&
			(strcmp(argv[1], "in_place") == 0 ||
					strcmp(argv[1], "scanout_vulkan") == 0 ||
					strncmp(argv[1], "output_buffers", 14) == 0) &&
			!mesa25_lavapipe(lavapipe)) {
		fprintf(stderr,
				"SKIP: no Mesa 25 lavapipe (build/mesa25, unpacked "
				"by setup.sh from bookworm-backports): no Vulkan "
				"driver here imports dma-bufs\n");
		return 77;
	}
	if (argc > 1 && strcmp(argv[1], "gpu") == 0) {
		/* a device that exports dma-buf memory, or skip with the reason
		 * (never a pass) */
		char *cmd = NULL;
		if (asprintf(&cmd, "'%s' --probe", export_client()) < 0) {
			return 1;
		}
		int status = system(cmd);
		free(cmd);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr,
					"no Vulkan device here exports dma-buf memory "
					"(see the SKIP line above): skipped\n");
			return 77;
		}
	}
	return harness_run_suite(dmabuf_suite(), argc, argv);
}
