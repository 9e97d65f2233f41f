/*
 * Tests of the scene protocol (protocol/vitrail-scene-v1.xml) against a
 * real vitrail started headless by the integration harness, with real
 * client connections (libwayland-client, in this process or as example
 * clients):
 *
 * - examples: the example clients' screenshots equal the pixman reference
 *   of the same tree, before and after their tap-to-animate transitions,
 *   and the mixed client's pixels show the z-order (checkerboard below,
 *   buffer, scene card, stripes above).
 * - atomic: scene changes show at wl_surface.commit, not before; a node's
 *   display list is a copy.
 * - errors: every request's error path yields the documented error, with
 *   a message naming the object or value; only the offender is
 *   disconnected (a bystander client keeps drawing, vitrail keeps
 *   answering, a fresh client still works).
 * - animation: with one frame made 120 ms long through the test protocol,
 *   every frame's sampled value is the curve at that frame's display time
 *   (frame log columns target_vblank_ns and scene_samples).
 * - dirty: an animated subtree re-prepares only its own nodes and records
 *   no display list; a display-list update records exactly one.
 *
 * One TCase per scenario (one meson test each); run one with
 * `test-scene <tcase>`. Environment as for test-integration, plus
 * VITRAIL_SCENE_CLIENTS (the folder of the example clients).
 */
#define _GNU_SOURCE // memfd_create, asprintf
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vitrail/renderer.h>
#include <wayland-client.h>
#include "harness.h"
#include "presentation-time-client-protocol.h"
#include "scene-client.h"
#include "vitrail-scene-mixed.h"
#include "vitrail-test-v1-client-protocol.h"

#define TOLERANCE 2
/* Protocol error messages stay this short (libwayland cuts at 127). */
#define ERROR_MESSAGE_MAX 100
/* Colour probes: screenshots are exact, blends round. */
#define PROBE_TOLERANCE 3

/* ---- helpers ------------------------------------------------------------ */

static char *client_path(const char *name) {
	const char *dir = getenv("VITRAIL_SCENE_CLIENTS");
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/%s", dir != NULL ? dir : ".", name) > 0);
	return path;
}

/* Connect an in-process scene client to vitrail. */
static void app_connect(struct sc_app *app, struct harness_vitrail *vitrail) {
	*app = (struct sc_app){ 0 };
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	ck_assert_msg(sc_app_init(app, "test-scene"),
			"cannot connect a scene client to %s", vitrail->socket);
}

/* Dispatch the app's events for ms, or until *flag (when not NULL). */
static void pump(struct sc_app *app, int64_t ms, const bool *flag) {
	int64_t deadline = harness_now_ms() + ms;
	while ((flag == NULL || !*flag) && harness_now_ms() < deadline) {
		ck_assert_int_ge(wl_display_flush(app->display), 0);
		struct pollfd pfd = {
			.fd = wl_display_get_fd(app->display),
			.events = POLLIN,
		};
		if (wl_display_prepare_read(app->display) != 0) {
			ck_assert_int_ge(wl_display_dispatch_pending(app->display), 0);
			continue;
		}
		if (poll(&pfd, 1, 10) > 0) {
			ck_assert_int_ge(wl_display_read_events(app->display), 0);
		} else {
			wl_display_cancel_read(app->display);
		}
		ck_assert_int_ge(wl_display_dispatch_pending(app->display), 0);
	}
}

/* A node drawing one filled rectangle. */
static struct vitrail_scene_node_v1 *rect_node(struct sc_app *app,
		struct vitrail_scene_v1 *scene, float w, float h, uint32_t argb) {
	struct vitrail_scene_node_v1 *node = vitrail_scene_v1_create_node(scene);
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, w, h, SC_FILL(argb));
	sc_node_set_list(app, node, &dl);
	return node;
}

struct shot {
	uint8_t *px; // BGRA premultiplied
	int32_t width, height;
};

/* A grim screenshot of output once the screen shows the current tree. */
static struct shot screenshot(struct harness *harness,
		struct harness_vitrail *vitrail, const char *output) {
	harness_settle_held(vitrail->conn);
	static int n;
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/probe-%02d-%s.png", harness->out_dir, ++n,
					  output) > 0);
	ck_assert_int_eq(harness_grim(harness, vitrail, output, path), 0);
	struct shot shot = { 0 };
	shot.px = vr_png_read(path, &shot.width, &shot.height);
	ck_assert_msg(shot.px != NULL, "cannot read %s", path);
	free(path);
	return shot;
}

/* 0xRRGGBB at (x, y). */
static uint32_t pixel(const struct shot *shot, int x, int y) {
	ck_assert_msg(x >= 0 && y >= 0 && x < shot->width && y < shot->height,
			"probe %d,%d outside the %dx%d screenshot", x, y, shot->width,
			shot->height);
	const uint8_t *p = shot->px + ((size_t)y * shot->width + x) * 4;
	return (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static void assert_pixel(const struct shot *shot, int x, int y,
		uint32_t expected, const char *what) {
	uint32_t got = pixel(shot, x, y);
	for (int shift = 0; shift < 24; shift += 8) {
		int a = (got >> shift) & 0xff, b = (expected >> shift) & 0xff;
		ck_assert_msg(abs(a - b) <= PROBE_TOLERANCE,
				"%s: pixel %d,%d is "
				"#%06x, expected #%06x",
				what, x, y, got, expected & 0xffffff);
	}
}

static const struct harness_window *find_window(struct harness_conn *conn,
		const char *app_id) {
	harness_list_windows(conn, NULL);
	const struct harness_window *window = harness_find_window(conn, app_id);
	ck_assert_msg(window != NULL, "no window '%s'", app_id);
	return window;
}

/* ---- examples ----------------------------------------------------------- */

static struct harness_proc *spawn_example(struct harness *harness,
		struct harness_vitrail *vitrail, const char *name,
		const char *animate_after) {
	char *path = client_path(name);
	const char *argv[] = { path, "--animate-after", animate_after, NULL };
	struct harness_proc *proc = harness_spawn_client(harness, vitrail,
			animate_after != NULL ? argv : (const char *[]){ path, NULL });
	free(path);
	return proc;
}

START_TEST(test_scene_examples_match_reference) {
	struct harness *harness = harness_create("examples");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 3,
					.output_size = "800x600",
			});
	struct harness_conn *conn = vitrail->conn;

	// One window per output; each animates 4 s after it starts, long
	// after the first check.
	static const char *const names[] = {
		"vitrail-scene-settings",
		"vitrail-scene-chat",
		"vitrail-scene-mixed",
	};
	struct harness_proc *procs[3];
	for (int i = 0; i < 3; i++) {
		procs[i] = spawn_example(harness, vitrail, names[i], "4000");
		harness_wait_for_windows(conn, (size_t)i + 1,
				HARNESS_WINDOWS_TIMEOUT_MS);
	}
	for (int i = 1; i <= 3; i++) {
		char output[32];
		snprintf(output, sizeof(output), "HEADLESS-%d", i);
		harness_check_output(conn, output, TOLERANCE);
	}

	// The mixed client's z-order, probed: back to front the checkerboard
	// subsurface, the translucent blue buffer, the scene card, the
	// stripes subsurface.
	const struct harness_window *w = find_window(conn, "vitrail-scene-mixed");
	ck_assert_str_eq(w->output, "HEADLESS-3");
	int ox = w->x - 1600, oy = w->y;
	struct shot shot = screenshot(harness, vitrail, "HEADLESS-3");
	// card under the stripes: (250, 60) is stripe ((30 + 40) / 12) % 2 = 1
	assert_pixel(&shot, ox + 250, oy + 60, MIXED_ABOVE_LIGHT,
			"stripes subsurface above the scene card");
	// card over the checkerboard and the buffer
	assert_pixel(&shot, ox + 100, oy + 150, MIXED_CARD_COLOR,
			"scene card above the buffer and the checkerboard");
	// checkerboard (light square at its 140, 105) under the translucent
	// buffer: blue (premultiplied, alpha 0.6) over it
	uint32_t light = MIXED_BELOW_LIGHT, main = MIXED_MAIN_COLOR;
	uint32_t blended = 0;
	for (int shift = 0; shift < 24; shift += 8) {
		double c = ((main >> shift) & 0xff) +
				((light >> shift) & 0xff) * (1.0 - 0x99 / 255.0);
		blended |= (uint32_t)lround(c) << shift;
	}
	assert_pixel(&shot, ox + 100, oy + 225, blended,
			"checkerboard under the translucent buffer");
	// checkerboard outside the toplevel: its 20, 80 is light
	assert_pixel(&shot, ox - 20, oy + 200, MIXED_BELOW_LIGHT,
			"checkerboard subsurface beyond the toplevel");
	free(shot.px);

	// The tap-to-animate transitions (a toggle, a message, a spin) run
	// in the compositor; once done, the new trees match again.
	for (int i = 0; i < 3; i++) {
		harness_wait_for_log(procs[i], 0, "animation done", 30000);
	}
	for (int i = 1; i <= 3; i++) {
		char output[32];
		snprintf(output, sizeof(output), "HEADLESS-%d", i);
		harness_check_output(conn, output, TOLERANCE);
	}
	for (int i = 0; i < 3; i++) {
		harness_assert_alive(procs[i]);
	}
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- atomic ------------------------------------------------------------- */

START_TEST(test_scene_atomic_commit) {
	struct harness *harness = harness_create("atomic");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "640x480",
			});
	struct sc_app app;
	app_connect(&app, vitrail);
	ck_assert(
			sc_app_create_window(&app, "scene-atomic", "atomic", 200, 200, 0));
	struct vitrail_scene_v1 *scene =
			vitrail_scene_manager_v1_get_scene(app.manager, app.surface);
	struct vitrail_scene_node_v1 *root = vitrail_scene_v1_create_node(scene);
	struct vitrail_scene_node_v1 *node = vitrail_scene_v1_create_node(scene);
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, 80, 80, SC_FILL(0xffff0000));
	struct vitrail_scene_display_list_v1 *red = sc_list_create(&app, &dl);
	sc_dl_finish(&dl);
	vitrail_scene_node_v1_set_display_list(node, red);
	sc_node_set_children(root, &node, 1);
	vitrail_scene_v1_set_root(scene, root);
	wl_surface_commit(app.surface);
	pump(&app, 100, NULL);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const struct harness_window *w = find_window(vitrail->conn, "scene-atomic");
	int x = w->x, y = w->y;

	struct shot before = screenshot(harness, vitrail, "HEADLESS-1");
	assert_pixel(&before, x + 40, y + 40, 0xff0000, "committed red node");
	uint32_t background = pixel(&before, x + 140, y + 40);
	ck_assert_uint_ne(background, 0xff0000);

	// Pending: a blue list, a new position; the red list object is
	// rewritten green, which must not reach the node (it took a copy).
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, 80, 80, SC_FILL(0xff0000ff));
	struct vitrail_scene_display_list_v1 *blue = sc_list_create(&app, &dl);
	sc_dl_finish(&dl);
	vitrail_scene_node_v1_set_display_list(node, blue);
	sc_node_set_position(node, 100, 0);
	vitrail_scene_display_list_v1_reset(red);
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, 80, 80, SC_FILL(0xff00ff00));
	struct wl_array array = { .size = dl.size,
		.alloc = dl.size,
		.data = dl.data };
	vitrail_scene_display_list_v1_append(red, &array);
	sc_dl_finish(&dl);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	struct shot pending = screenshot(harness, vitrail, "HEADLESS-1");
	assert_pixel(&pending, x + 40, y + 40, 0xff0000,
			"uncommitted changes must not show");
	assert_pixel(&pending, x + 140, y + 40, background,
			"uncommitted position must not show");

	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	struct shot after = screenshot(harness, vitrail, "HEADLESS-1");
	assert_pixel(&after, x + 140, y + 40, 0x0000ff, "committed blue node");
	assert_pixel(&after, x + 40, y + 40, background, "old place cleared");

	// Destroying the scene removes its content at once.
	vitrail_scene_v1_destroy(scene);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	struct shot gone = screenshot(harness, vitrail, "HEADLESS-1");
	assert_pixel(&gone, x + 140, y + 40, background, "scene destroyed");
	harness_check_output(vitrail->conn, "HEADLESS-1", TOLERANCE);

	free(before.px);
	free(pending.px);
	free(after.px);
	free(gone.px);
	vitrail_scene_display_list_v1_destroy(red);
	vitrail_scene_display_list_v1_destroy(blue);
	vitrail_scene_node_v1_destroy(node);
	vitrail_scene_node_v1_destroy(root);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- errors ------------------------------------------------------------- */

static char error_log[4096];

static void log_handler(const char *fmt, va_list args) {
	size_t used = strlen(error_log);
	vsnprintf(error_log + used, sizeof(error_log) - used, fmt, args);
}

/*
 * Each error case runs in a child process of its own (a client whose
 * connection dies with a protocol error leaves proxies nobody can free;
 * the child ends with _exit). It reports a failure through result_fd.
 */
static int result_fd = -1;

static void case_fail(const char *fmt, ...)
		__attribute__((format(printf, 1, 2), noreturn));

static void case_fail(const char *fmt, ...) {
	char msg[2048];
	va_list args;
	va_start(args, fmt);
	int n = vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	if (n > 0 && write(result_fd, msg, strnlen(msg, sizeof(msg))) < 0) {
		_exit(3);
	}
	_exit(1);
}

#define CASE_REQUIRE(cond, ...) \
	do { \
		if (!(cond)) { \
			case_fail(__VA_ARGS__); \
		} \
	} while (0)

static void case_roundtrip(struct wl_display *display, const char *when) {
	CASE_REQUIRE(wl_display_roundtrip(display) >= 0, "unexpected error %s (%s)",
			when, error_log);
}

/* What one error case needs: a window-less surface with a scene. */
struct error_env {
	struct sc_app *app;
	struct wl_surface *surface;
	struct vitrail_scene_v1 *scene;
	uint32_t odd_format; // a wl_shm format neither ARGB8888 nor XRGB8888
};

struct error_case {
	const char *name;
	void (*run)(struct error_env *env);
	const struct wl_interface *interface;
	uint32_t code;
	const char *message; // a substring of the error message
};

static struct vitrail_scene_node_v1 *new_node(struct error_env *env) {
	return vitrail_scene_v1_create_node(env->scene);
}

static struct vitrail_scene_display_list_v1 *new_list(struct error_env *env) {
	return vitrail_scene_manager_v1_create_display_list(env->app->manager);
}

static void append(struct vitrail_scene_display_list_v1 *list,
		const struct sc_dl *dl) {
	struct wl_array array = { .size = dl->size,
		.alloc = dl->size,
		.data = dl->data };
	vitrail_scene_display_list_v1_append(list, &array);
}

static void set_ids(struct vitrail_scene_node_v1 *node, const uint32_t *ids,
		size_t bytes) {
	struct wl_array array = { .size = bytes,
		.alloc = bytes,
		.data = (void *)ids };
	vitrail_scene_node_v1_set_children(node, &array);
}

static uint32_t id_of(void *proxy) {
	return wl_proxy_get_id(proxy);
}

static void run_already_bound(struct error_env *env) {
	vitrail_scene_manager_v1_get_scene(env->app->manager, env->surface);
}

static void run_invalid_buffer(struct error_env *env) {
	struct sc_buffer *b = sc_buffer_create(env->app, 4, 4, env->odd_format, 0);
	vitrail_scene_manager_v1_create_image(env->app->manager, b->wl_buffer);
}

static void run_image_too_large(struct error_env *env) {
	struct sc_buffer *b =
			sc_buffer_create(env->app, 4097, 1, WL_SHM_FORMAT_ARGB8888, 0);
	vitrail_scene_manager_v1_create_image(env->app->manager, b->wl_buffer);
}

static void run_image_quota(struct error_env *env) {
	struct sc_buffer *b = sc_buffer_create(env->app, 1, 1,
			WL_SHM_FORMAT_ARGB8888, 0xff00ff00);
	for (int i = 0; i <= VITRAIL_SCENE_MANAGER_V1_QUOTA_IMAGES; i++) {
		vitrail_scene_manager_v1_create_image(env->app->manager, b->wl_buffer);
		if (i % 128 == 127) {
			case_roundtrip(env->app->display, "before the quota");
		}
	}
}

/* A wl_shm buffer whose stride is one byte per pixel: libwayland accepts
 * it (stride >= width), but rows of width * 4 bytes would run past the
 * pool, which is exactly stride * height bytes, into unmapped memory. */
static struct wl_buffer *narrow_stride_buffer(struct error_env *env) {
	const int32_t width = 4096, height = 4, stride = width;
	size_t size = (size_t)stride * height;
	int fd = memfd_create("narrow-stride", MFD_CLOEXEC);
	CASE_REQUIRE(fd >= 0 && ftruncate(fd, (off_t)size) == 0,
			"cannot make a memfd");
	struct wl_shm_pool *pool =
			wl_shm_create_pool(env->app->shm, fd, (int32_t)size);
	/* the pool stays: vitrail names it in its error */
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height,
			stride, WL_SHM_FORMAT_ARGB8888);
	close(fd);
	return buffer;
}

static void run_image_narrow_stride(struct error_env *env) {
	vitrail_scene_manager_v1_create_image(env->app->manager,
			narrow_stride_buffer(env));
}

static void run_surface_narrow_stride(struct error_env *env) {
	struct wl_surface *surface =
			wl_compositor_create_surface(env->app->compositor);
	wl_surface_attach(surface, narrow_stride_buffer(env), 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, INT32_MAX, INT32_MAX);
	wl_surface_commit(surface);
}

/* One buffer of 16384x4097: 268 MB of image, over the 256 MiB a client's
 * surfaces may hold (it took 1.2 GB and stayed before the budget). */
static void run_surface_over_budget(struct error_env *env) {
	struct sc_buffer *b =
			sc_buffer_create(env->app, 16384, 4097, WL_SHM_FORMAT_ARGB8888, 0);
	CASE_REQUIRE(b != NULL, "cannot make a 268 MB buffer");
	wl_surface_attach(env->surface, b->wl_buffer, 0, 0);
	wl_surface_damage_buffer(env->surface, 0, 0, 16384, 4097);
	wl_surface_commit(env->surface);
}

static void run_root_foreign(struct error_env *env) {
	struct wl_surface *other =
			wl_compositor_create_surface(env->app->compositor);
	struct vitrail_scene_v1 *scene2 =
			vitrail_scene_manager_v1_get_scene(env->app->manager, other);
	struct vitrail_scene_node_v1 *node = vitrail_scene_v1_create_node(scene2);
	vitrail_scene_v1_set_root(env->scene, node);
}

static void run_root_has_parent(struct error_env *env) {
	struct vitrail_scene_node_v1 *a = new_node(env), *b = new_node(env);
	sc_node_set_children(a, &b, 1);
	vitrail_scene_v1_set_root(env->scene, b);
}

static void run_node_quota(struct error_env *env) {
	for (int i = 0; i <= VITRAIL_SCENE_MANAGER_V1_QUOTA_NODES; i++) {
		new_node(env);
		if (i % 1000 == 999) {
			case_roundtrip(env->app->display, "before the quota");
		}
	}
}

static void run_opacity_range(struct error_env *env) {
	vitrail_scene_node_v1_set_opacity(new_node(env), wl_fixed_from_double(1.5));
}

static void run_scale_range(struct error_env *env) {
	vitrail_scene_node_v1_set_scale(new_node(env), wl_fixed_from_int(2000),
			wl_fixed_from_int(1));
}

static void run_clip_range(struct error_env *env) {
	vitrail_scene_node_v1_set_clip(new_node(env), 0, 0, wl_fixed_from_int(-10),
			wl_fixed_from_int(10), 0);
}

static void run_children_unknown_id(struct error_env *env) {
	uint32_t ids[] = { 9999 };
	set_ids(new_node(env), ids, sizeof(ids));
}

static void run_children_wrong_interface(struct error_env *env) {
	uint32_t ids[] = { id_of(env->surface) };
	set_ids(new_node(env), ids, sizeof(ids));
}

static void run_children_bad_size(struct error_env *env) {
	struct vitrail_scene_node_v1 *a = new_node(env), *b = new_node(env);
	uint32_t ids[2] = { id_of(b), 0 };
	set_ids(a, ids, 6);
}

static void run_children_foreign(struct error_env *env) {
	struct wl_surface *other =
			wl_compositor_create_surface(env->app->compositor);
	struct vitrail_scene_v1 *scene2 =
			vitrail_scene_manager_v1_get_scene(env->app->manager, other);
	struct vitrail_scene_node_v1 *foreign =
			vitrail_scene_v1_create_node(scene2);
	sc_node_set_children(new_node(env), &foreign, 1);
}

static void run_cycle(struct error_env *env) {
	struct vitrail_scene_node_v1 *a = new_node(env), *b = new_node(env),
								 *c = new_node(env);
	sc_node_set_children(a, &b, 1);
	sc_node_set_children(b, &c, 1);
	sc_node_set_children(c, &a, 1);
}

static void run_cycle_self(struct error_env *env) {
	struct vitrail_scene_node_v1 *a = new_node(env);
	sc_node_set_children(a, &a, 1);
}

static void run_duplicate(struct error_env *env) {
	struct vitrail_scene_node_v1 *a = new_node(env), *b = new_node(env);
	struct vitrail_scene_node_v1 *children[] = { b, b };
	sc_node_set_children(a, children, 2);
}

static void run_is_root(struct error_env *env) {
	struct vitrail_scene_node_v1 *a = new_node(env), *r = new_node(env);
	vitrail_scene_v1_set_root(env->scene, r);
	sc_node_set_children(a, &r, 1);
}

static void run_too_deep(struct error_env *env) {
	struct vitrail_scene_node_v1 *parent = new_node(env);
	for (int i = 0; i < 128; i++) {
		struct vitrail_scene_node_v1 *child = new_node(env);
		sc_node_set_children(parent, &child, 1);
		parent = child;
	}
}

static void animate(struct vitrail_scene_node_v1 *node, uint32_t property,
		const double *target, size_t n, uint32_t duration, uint32_t curve,
		const double *params, size_t np) {
	sc_node_animate(node, property, target, n, duration, curve, params, np);
}

static void run_anim_property(struct error_env *env) {
	double v[2] = { 1, 1 };
	animate(new_node(env), 7, v, 2, 100, VITRAIL_SCENE_NODE_V1_CURVE_LINEAR,
			NULL, 0);
}

static void run_anim_count(struct error_env *env) {
	double v[3] = { 1, 1, 1 };
	animate(new_node(env), VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION, v, 3,
			100, VITRAIL_SCENE_NODE_V1_CURVE_LINEAR, NULL, 0);
}

static void run_anim_clip_without_clip(struct error_env *env) {
	double v[5] = { 0, 0, 10, 10, 0 };
	animate(new_node(env), VITRAIL_SCENE_NODE_V1_PROPERTY_CLIP, v, 5, 100,
			VITRAIL_SCENE_NODE_V1_CURVE_LINEAR, NULL, 0);
}

static void run_anim_duration(struct error_env *env) {
	double v = 0.5;
	animate(new_node(env), VITRAIL_SCENE_NODE_V1_PROPERTY_OPACITY, &v, 1, 0,
			VITRAIL_SCENE_NODE_V1_CURVE_LINEAR, NULL, 0);
}

static void run_anim_bezier(struct error_env *env) {
	double v = 0.5, p[4] = { 1.5, 0, 0.5, 1 };
	animate(new_node(env), VITRAIL_SCENE_NODE_V1_PROPERTY_OPACITY, &v, 1, 100,
			VITRAIL_SCENE_NODE_V1_CURVE_CUBIC_BEZIER, p, 4);
}

static void run_anim_quota(struct error_env *env) {
	struct vitrail_scene_node_v1 *node = new_node(env);
	double v = 0.5;
	for (int i = 0; i <= VITRAIL_SCENE_MANAGER_V1_QUOTA_ANIMATIONS; i++) {
		animate(node, VITRAIL_SCENE_NODE_V1_PROPERTY_OPACITY, &v, 1, 1000,
				VITRAIL_SCENE_NODE_V1_CURVE_LINEAR, NULL, 0);
	}
}

static void run_dl_unknown_op(struct error_env *env) {
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, 1, 1, SC_FILL(0xff000000));
	sc_dl_record(&dl, 99, NULL, 0);
	append(new_list(env), &dl);
	sc_dl_finish(&dl);
}

static void run_dl_flags(struct error_env *env) {
	uint32_t record[2] = { SC_OP_SAVE | 1u << 16, 8 };
	struct sc_dl dl = { .data = (uint8_t *)record, .size = sizeof(record) };
	append(new_list(env), &dl);
}

static void run_dl_truncated_inline(struct error_env *env) {
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, 1, 1, SC_FILL(0xff000000));
	dl.size -= 8; // the last 8 bytes of the rect are missing
	append(new_list(env), &dl);
	sc_dl_finish(&dl);
}

static void run_dl_shm_beyond(struct error_env *env) {
	int fd = memfd_create("test-scene", MFD_CLOEXEC);
	CASE_REQUIRE(ftruncate(fd, 100) == 0, "ftruncate");
	vitrail_scene_display_list_v1_append_shm(new_list(env), fd, 64, 40);
	close(fd);
}

static void run_dl_shm_cut(struct error_env *env) {
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, 1, 1, SC_FILL(0xff000000));
	sc_dl_rect(&dl, 2, 2, 1, 1, SC_FILL(0xff000000));
	int fd = memfd_create("test-scene", MFD_CLOEXEC);
	CASE_REQUIRE(pwrite(fd, dl.data, dl.size, 0) == (ssize_t)dl.size, "pwrite");
	// A size that ends inside the second record.
	vitrail_scene_display_list_v1_append_shm(new_list(env), fd, 0, 60);
	close(fd);
	sc_dl_finish(&dl);
}

static void run_dl_too_large(struct error_env *env) {
	uint32_t size = VITRAIL_SCENE_MANAGER_V1_QUOTA_DISPLAY_LIST_SIZE + 8;
	int fd = memfd_create("test-scene", MFD_CLOEXEC);
	CASE_REQUIRE(ftruncate(fd, size) == 0, "ftruncate");
	vitrail_scene_display_list_v1_append_shm(new_list(env), fd, 0, size);
	close(fd);
}

/* A display list of about size bytes of valid text records, in shm. */
static void append_big(struct vitrail_scene_display_list_v1 *list,
		size_t size) {
	char text[4097];
	memset(text, 'a', 4096);
	text[4096] = '\0';
	struct sc_dl dl;
	sc_dl_init(&dl);
	while (dl.size + 4200 < size) {
		sc_dl_text(&dl, 0, 10, 0xff000000, 12, 400, "DejaVu Sans", text);
	}
	sc_list_append_shm(list, &dl);
	sc_dl_finish(&dl);
}

static void run_dl_quota(struct error_env *env) {
	size_t quota = VITRAIL_SCENE_MANAGER_V1_QUOTA_DISPLAY_LIST_BYTES;
	size_t each = VITRAIL_SCENE_MANAGER_V1_QUOTA_DISPLAY_LIST_SIZE;
	for (size_t total = 0; total <= quota; total += each - 4200) {
		append_big(new_list(env), each);
		if (total + each <= quota) {
			case_roundtrip(env->app->display, "before the quota");
		}
	}
}

static void run_dl_bad_image(struct error_env *env) {
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_image(&dl, id_of(env->scene), 1, 0, 0, 0, 0, 0, 0, 10, 10);
	append(new_list(env), &dl);
	sc_dl_finish(&dl);
}

static void run_dl_image_src(struct error_env *env) {
	uint32_t px[4] = { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff };
	struct vitrail_scene_image_v1 *image = sc_image_create(env->app, 2, 2, px);
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_image(&dl, id_of(image), 1, 1, 1, 2, 2, 0, 0, 10, 10);
	append(new_list(env), &dl);
	sc_dl_finish(&dl);
}

static void run_dl_bad_utf8(struct error_env *env) {
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_text(&dl, 0, 10, 0xff000000, 12, 400, "DejaVu Sans", "ok \xc3\x28");
	append(new_list(env), &dl);
	sc_dl_finish(&dl);
}

static void run_dl_text_weight(struct error_env *env) {
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_text(&dl, 0, 10, 0xff000000, 12, 1000, "DejaVu Sans", "ok");
	append(new_list(env), &dl);
	sc_dl_finish(&dl);
}

/* The last of the text's limits: its reason used to come after 127
 * bytes, where libwayland cuts error messages. */
static void run_dl_text_family(struct error_env *env) {
	char family[301];
	memset(family, 'f', 300);
	family[300] = '\0';
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_text(&dl, 0, 10, 0xff000000, 12, 400, family, "ok");
	append(new_list(env), &dl);
	sc_dl_finish(&dl);
}

static void run_dl_restore(struct error_env *env) {
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_save(&dl);
	sc_dl_restore(&dl);
	sc_dl_restore(&dl);
	append(new_list(env), &dl);
	sc_dl_finish(&dl);
}

static void run_dl_path_verb(struct error_env *env) {
	static const uint8_t verbs[] = { SC_LINE, SC_LINE };
	static const float points[] = { 0, 0, 10, 10 };
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_path(&dl, verbs, 2, points, 2, SC_FILL(0xff000000));
	append(new_list(env), &dl);
	sc_dl_finish(&dl);
}

static void run_dl_nan(struct error_env *env) {
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, NAN, 1, 1, SC_FILL(0xff000000));
	append(new_list(env), &dl);
	sc_dl_finish(&dl);
}

#define MANAGER &vitrail_scene_manager_v1_interface
#define SCENE &vitrail_scene_v1_interface
#define NODE &vitrail_scene_node_v1_interface
#define LIST &vitrail_scene_display_list_v1_interface

static const struct error_case error_cases[] = {
	{ "get_scene twice", run_already_bound, MANAGER,
			VITRAIL_SCENE_MANAGER_V1_ERROR_ALREADY_BOUND,
			"already has a vitrail_scene_v1" },
	{ "image of another format", run_invalid_buffer, MANAGER,
			VITRAIL_SCENE_MANAGER_V1_ERROR_INVALID_BUFFER,
			"not ARGB8888 or XRGB8888" },
	{ "image too large", run_image_too_large, MANAGER,
			VITRAIL_SCENE_MANAGER_V1_ERROR_OUT_OF_RANGE,
			"is 4097x1, larger than 4096x4096" },
	/* (refused as the buffer is made, before any use of it) */
	{ "image with a stride under width x 4", run_image_narrow_stride,
			&wl_shm_pool_interface, WL_SHM_ERROR_INVALID_STRIDE,
			"stride 4096 under 4096 pixels of 4 bytes" },
	{ "surface buffer with a stride under width x 4", run_surface_narrow_stride,
			&wl_shm_pool_interface, WL_SHM_ERROR_INVALID_STRIDE,
			"stride 4096 under 4096 pixels of 4 bytes" },
	{ "surface images over the client's budget", run_surface_over_budget,
			&wl_surface_interface, WL_SURFACE_ERROR_INVALID_SIZE,
			"wl_buffer 16384x4097: surface images of 268500992 bytes, over "
			"the client's budget 268435456" },
	{ "image quota", run_image_quota, MANAGER,
			VITRAIL_SCENE_MANAGER_V1_ERROR_QUOTA_EXCEEDED, "holds 512 images" },
	{ "set_root of another scene's node", run_root_foreign, SCENE,
			VITRAIL_SCENE_V1_ERROR_FOREIGN_NODE, "belongs to another scene" },
	{ "set_root of a child", run_root_has_parent, SCENE,
			VITRAIL_SCENE_V1_ERROR_HAS_PARENT, "is a child of" },
	{ "node quota", run_node_quota, SCENE,
			VITRAIL_SCENE_V1_ERROR_QUOTA_EXCEEDED, "already has 10000 nodes" },
	{ "opacity 1.5", run_opacity_range, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_OUT_OF_RANGE,
			"set_opacity opacity = 1.5 is not in [0, 1]" },
	{ "scale 2000", run_scale_range, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_OUT_OF_RANGE,
			"set_scale sx = 2000 is not in" },
	{ "negative clip width", run_clip_range, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_OUT_OF_RANGE,
			"set_clip width = -10 is not in" },
	{ "child id unknown", run_children_unknown_id, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_BAD_ID,
			"children[0] = 9999 is not a vitrail_scene_node_v1" },
	{ "child id of a wl_surface", run_children_wrong_interface, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_BAD_ID,
			"is not a vitrail_scene_node_v1" },
	{ "children array of 6 bytes", run_children_bad_size, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_BAD_ID, "children is 6 bytes" },
	{ "child of another scene", run_children_foreign, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_FOREIGN_NODE,
			"belongs to another scene" },
	{ "cycle of three", run_cycle, NODE, VITRAIL_SCENE_NODE_V1_ERROR_CYCLE,
			"is this node or one of its ancestors" },
	{ "node its own child", run_cycle_self, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_CYCLE,
			"is this node or one of its ancestors" },
	{ "child named twice", run_duplicate, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_DUPLICATE, "children[1]" },
	{ "root as a child", run_is_root, NODE, VITRAIL_SCENE_NODE_V1_ERROR_IS_ROOT,
			"is the scene's root" },
	{ "chain of 129 nodes", run_too_deep, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_TOO_DEEP, "more than 128 nodes" },
	{ "unknown property", run_anim_property, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION,
			"unknown property 7" },
	{ "three translation values", run_anim_count, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION,
			"a translation target is 2 values, got 12 bytes" },
	{ "clip animation without clip", run_anim_clip_without_clip, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION, "without a clip" },
	{ "duration 0", run_anim_duration, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_OUT_OF_RANGE,
			"duration_ms = 0 is not in [1, 60000]" },
	{ "bezier x1 1.5", run_anim_bezier, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_OUT_OF_RANGE, "cubic_bezier x1 = 1.5" },
	{ "animation quota", run_anim_quota, NODE,
			VITRAIL_SCENE_NODE_V1_ERROR_QUOTA_EXCEEDED, "256 animations" },
	{ "unknown op", run_dl_unknown_op, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_BAD_COMMAND,
			"record at byte 40 (op 99): unknown op" },
	{ "record flags", run_dl_flags, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_BAD_COMMAND, "flags 1" },
	{ "inline list cut short", run_dl_truncated_inline, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TRUNCATED,
			"the record is 40 bytes but the stream has 32 left" },
	{ "shm range beyond the file", run_dl_shm_beyond, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TRUNCATED,
			"offset 64 + size 40 is beyond the end of the file (100 bytes)" },
	{ "shm list cut inside a record", run_dl_shm_cut, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TRUNCATED,
			"record at byte 40 (op 1): the record is 40 bytes" },
	{ "shm list over display_list_size", run_dl_too_large, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TOO_LARGE,
			"over display_list_size 1048576" },
	{ "display-list byte quota", run_dl_quota, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_QUOTA_EXCEEDED,
			"over its quota 16777216" },
	{ "image op naming a scene", run_dl_bad_image, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_BAD_IMAGE,
			"is not a vitrail_scene_image_v1" },
	{ "image src outside the image", run_dl_image_src, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_OUT_OF_RANGE,
			"src 1,1 2x2 is not inside image" },
	{ "text not UTF-8", run_dl_bad_utf8, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_BAD_COMMAND, "is not UTF-8" },
	{ "text weight 1000", run_dl_text_weight, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_OUT_OF_RANGE,
			"(op 7): weight = 1000 is not in [100, 900]" },
	{ "text family of 300 bytes", run_dl_text_family, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_OUT_OF_RANGE,
			"(op 7): family_length = 300 is not in [1, 256]" },
	{ "unbalanced restore", run_dl_restore, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_BAD_COMMAND,
			"(op 9): restore without a matching save" },
	{ "path starting with line_to", run_dl_path_verb, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_BAD_COMMAND,
			"the first must be 0, move_to" },
	{ "NaN coordinate", run_dl_nan, LIST,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_OUT_OF_RANGE,
			"y = nan is not in" },
};

static void shm_format(void *data, struct wl_shm *shm, uint32_t format) {
	uint32_t *odd = data;
	if (format != WL_SHM_FORMAT_ARGB8888 && format != WL_SHM_FORMAT_XRGB8888 &&
			*odd == 0) {
		*odd = format;
	}
}

static const struct wl_shm_listener shm_listener = {
	.format = shm_format,
};

static void shm_registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	if (strcmp(interface, wl_shm_interface.name) == 0) {
		struct wl_shm *shm =
				wl_registry_bind(registry, name, &wl_shm_interface, 1);
		wl_shm_add_listener(shm, &shm_listener, data);
	}
}

static void shm_registry_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
	// wl_shm lives as long as vitrail
}

static const struct wl_registry_listener shm_registry_listener = {
	.global = shm_registry_global,
	.global_remove = shm_registry_global_remove,
};

/* In the child: run one case on a fresh connection; fail unless it is
 * disconnected with the expected error. */
static void run_error_case(struct harness_vitrail *vitrail,
		const struct error_case *c) {
	struct sc_app app = { 0 };
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	CASE_REQUIRE(sc_app_init(&app, "test-scene"), "cannot connect");
	uint32_t odd_format = 0;
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &shm_registry_listener, &odd_format);
	case_roundtrip(app.display, "binding wl_shm");
	case_roundtrip(app.display, "listing the wl_shm formats");
	struct error_env env = {
		.app = &app,
		.surface = wl_compositor_create_surface(app.compositor),
		.odd_format = odd_format,
	};
	CASE_REQUIRE(odd_format != 0,
			"vitrail advertises no wl_shm format "
			"besides ARGB8888 and XRGB8888");
	env.scene = vitrail_scene_manager_v1_get_scene(app.manager, env.surface);
	case_roundtrip(app.display, "getting a scene");

	error_log[0] = '\0';
	c->run(&env);
	int ret = wl_display_roundtrip(app.display);
	CASE_REQUIRE(ret < 0, "no protocol error");
	CASE_REQUIRE(wl_display_get_error(app.display) == EPROTO,
			"the connection failed with %s, not a protocol error",
			strerror(wl_display_get_error(app.display)));
	const struct wl_interface *interface = NULL;
	uint32_t id = 0;
	uint32_t code = wl_display_get_protocol_error(app.display, &interface, &id);
	CASE_REQUIRE(interface != NULL &&
					strcmp(interface->name, c->interface->name) == 0 &&
					code == c->code,
			"error %u on %s@%u, expected error %u on %s (%s)", code,
			interface != NULL ? interface->name : "?", id, c->code,
			c->interface->name, error_log);
	CASE_REQUIRE(strstr(error_log, c->message) != NULL,
			"the error message '%s' lacks '%s'", error_log, c->message);
	/* libwayland-client logs "interface@id: error code: message\n";
	 * libwayland-server cuts a message at 127 bytes: stay well under. */
	const char *message = strstr(error_log, ": error ");
	message = message != NULL ? strstr(message + 8, ": ") : NULL;
	CASE_REQUIRE(message != NULL, "no message in '%s'", error_log);
	size_t len = strcspn(message + 2, "\n");
	CASE_REQUIRE(len <= ERROR_MESSAGE_MAX,
			"the error message '%s' is %zu "
			"bytes, more than %d (libwayland cuts at 127)",
			message + 2, len, ERROR_MESSAGE_MAX);
}

static void check_error_case(struct harness_vitrail *vitrail,
		const struct error_case *c) {
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		result_fd = fds[1];
		run_error_case(vitrail, c);
		_exit(0);
	}
	close(fds[1]);
	char msg[2048];
	size_t len = 0;
	ssize_t n;
	while (len + 1 < sizeof(msg) &&
			(n = read(fds[0], msg + len, sizeof(msg) - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR) {
			continue;
		}
		ck_assert_int_gt(n, 0);
		len += (size_t)n;
	}
	msg[len] = '\0';
	close(fds[0]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			"error case '%s': %s (child status 0x%x)", c->name,
			len > 0 ? msg : "the child died", status);
}

/* A client that dies (its process ends, nothing destroyed) in the middle
 * of an animation. */
static void die_mid_animation(struct harness_vitrail *vitrail) {
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct sc_app app = { 0 };
		setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
		if (!sc_app_init(&app, "test-scene") ||
				!sc_app_create_window(&app, "scene-dies", "dies", 100, 100,
						0)) {
			_exit(1);
		}
		struct vitrail_scene_v1 *scene =
				vitrail_scene_manager_v1_get_scene(app.manager, app.surface);
		struct vitrail_scene_node_v1 *node =
				rect_node(&app, scene, 50, 50, 0xff00ff00);
		vitrail_scene_v1_set_root(scene, node);
		double target[2] = { 300, 300 };
		sc_node_animate(node, VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION,
				target, 2, 5000, VITRAIL_SCENE_NODE_V1_CURVE_LINEAR, NULL, 0);
		wl_surface_commit(app.surface);
		if (wl_display_roundtrip(app.display) < 0) {
			_exit(1);
		}
		struct timespec ts = { 0, 300 * 1000000 };
		nanosleep(&ts, NULL);
		_exit(0);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			"the dying client failed before dying (status 0x%x)", status);
}

START_TEST(test_scene_errors_disconnect_only_the_offender) {
	struct harness *harness = harness_create("errors");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "800x600",
			});
	struct harness_conn *conn = vitrail->conn;
	// A bystander: an example client that keeps its window.
	struct harness_proc *bystander =
			spawn_example(harness, vitrail, "vitrail-scene-chat", NULL);
	harness_wait_for_windows(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_check_output(conn, "HEADLESS-1", TOLERANCE);

	wl_log_set_handler_client(log_handler);
	uint32_t generation = harness_settle(conn);
	for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
		check_error_case(vitrail, &error_cases[i]);
		harness_assert_alive(vitrail->proc);
		harness_assert_alive(bystander);
		// vitrail still answers; the offender's objects went cleanly.
		ck_assert_uint_ge(harness_settle(conn), generation);
		ck_assert_uint_eq(harness_list_windows(conn, NULL), 1);
	}

	// A client that dies in the middle of an animation: settle answers
	// only once no animation runs, so its animation went with it.
	die_mid_animation(vitrail);
	harness_settle(conn);
	harness_assert_alive(vitrail->proc);

	// The compositor and the bystander carry on; a fresh client works.
	harness_check_output(conn, "HEADLESS-1", TOLERANCE);
	struct sc_app app;
	app_connect(&app, vitrail);
	ck_assert(sc_app_create_window(&app, "scene-fresh", "fresh", 100, 100, 0));
	struct vitrail_scene_v1 *scene =
			vitrail_scene_manager_v1_get_scene(app.manager, app.surface);
	struct vitrail_scene_node_v1 *node =
			rect_node(&app, scene, 60, 40, 0xff3060c0);
	vitrail_scene_v1_set_root(scene, node);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_check_output(conn, "HEADLESS-1", TOLERANCE);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	vitrail_scene_node_v1_destroy(node);
	vitrail_scene_v1_destroy(scene);
	sc_app_finish(&app);
	harness_assert_alive(bystander);

	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- frame log ---------------------------------------------------------- */

struct frame_row {
	uint64_t target_ns, presented_ns;
	uint64_t render_start_ns, render_end_ns;
	int dropped;
	uint32_t nodes_updated, lists_recorded;
	char samples[512];
};

static int column(char *header, const char *name) {
	int index = 0;
	for (char *save = NULL, *tok = strtok_r(header, ",\n", &save); tok != NULL;
			tok = strtok_r(NULL, ",\n", &save), index++) {
		if (strcmp(tok, name) == 0) {
			return index;
		}
	}
	ck_abort_msg("the frame log has no column %s", name);
	return -1;
}

/* Every row of the frame log. */
static size_t read_frame_log(const char *path, struct frame_row **rows) {
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open the frame log %s", path);
	char line[2048], header[2048];
	ck_assert(fgets(header, sizeof(header), f) != NULL);
	static const char *const names[] = {
		"target_vblank_ns",
		"presented_ns",
		"dropped",
		"nodes_updated",
		"lists_recorded",
		"scene_samples",
		"render_start_ns",
		"render_end_ns",
	};
	int cols[8];
	for (int i = 0; i < 8; i++) {
		char copy[2048];
		strcpy(copy, header);
		cols[i] = column(copy, names[i]);
	}
	size_t n = 0, cap = 0;
	*rows = NULL;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			*rows = realloc(*rows, cap * sizeof(**rows));
			ck_assert(*rows != NULL);
		}
		struct frame_row *row = &(*rows)[n++];
		memset(row, 0, sizeof(*row));
		int index = 0;
		char *p = line;
		while (p != NULL) {
			char *comma = strchr(p, ',');
			char *nl = strchr(p, '\n');
			if (comma != NULL) {
				*comma = '\0';
			} else if (nl != NULL) {
				*nl = '\0';
			}
			if (index == cols[0]) {
				row->target_ns = strtoull(p, NULL, 10);
			} else if (index == cols[1]) {
				row->presented_ns = strtoull(p, NULL, 10);
			} else if (index == cols[2]) {
				row->dropped = atoi(p);
			} else if (index == cols[3]) {
				row->nodes_updated = (uint32_t)strtoul(p, NULL, 10);
			} else if (index == cols[4]) {
				row->lists_recorded = (uint32_t)strtoul(p, NULL, 10);
			} else if (index == cols[5]) {
				size_t len = strnlen(p, sizeof(row->samples) - 1);
				memcpy(row->samples, p, len);
				row->samples[len] = '\0';
			} else if (index == cols[6]) {
				row->render_start_ns = strtoull(p, NULL, 10);
			} else if (index == cols[7]) {
				row->render_end_ns = strtoull(p, NULL, 10);
			}
			p = comma != NULL ? comma + 1 : NULL;
			index++;
		}
	}
	fclose(f);
	return n;
}

/* The sample of animation serial in a row: elapsed time and first value;
 * false when the row has none. */
static bool row_sample(const struct frame_row *row, uint32_t serial,
		uint64_t *elapsed_ns, double *value) {
	char key[32];
	snprintf(key, sizeof(key), "%u@", serial);
	const char *p = row->samples;
	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, strlen(key)) == 0) {
			char *end;
			*elapsed_ns = strtoull(p + strlen(key), &end, 10);
			ck_assert(*end == '=');
			*value = strtod(end + 1, NULL);
			return true;
		}
		p = strchr(p, ';');
		p = p != NULL ? p + 1 : NULL;
	}
	return false;
}

/* Start vitrail with one 800x600 output logging its frames into
 * *log_path (in the test's output folder, malloc'd), and connect app. */
static struct harness_vitrail *start_frame_logged(struct harness *harness,
		char **log_path, struct sc_app *app) {
	*log_path = NULL;
	ck_assert(asprintf(log_path, "%s/frames.csv", harness->out_dir) > 0);
	const char *args[] = { "--frame-log", *log_path, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "800x600",
					.extra_args = args,
			});
	app_connect(app, vitrail);
	return vitrail;
}

/* Commit the scene's first state and wait until it is on screen. */
static void show_scene(struct sc_app *app, struct harness_vitrail *vitrail) {
	wl_surface_commit(app->surface);
	pump(app, 200, NULL);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_settle(vitrail->conn);
}

/* Undo start_frame_logged and end the test's harness. */
static void stop_frame_logged(struct harness *harness,
		struct harness_vitrail *vitrail, char *log_path, struct sc_app *app) {
	sc_app_finish(app);
	harness_stop_vitrail(harness, vitrail);
	free(log_path);
	harness_destroy(harness);
}

/* ---- animation ---------------------------------------------------------- */

/* The reference curve, computed independently of scene.c: CSS
 * cubic-bezier by Newton iterations on x(s). */
static double bezier(double x1, double y1, double x2, double y2, double p) {
	double s = p;
	for (int i = 0; i < 30; i++) {
		double u = 1 - s;
		double x = 3 * u * u * s * x1 + 3 * u * s * s * x2 + s * s * s - p;
		double dx =
				3 * u * u * x1 + 6 * u * s * (x2 - x1) + 3 * s * s * (1 - x2);
		if (fabs(x) < 1e-12 || dx == 0) {
			break;
		}
		s -= x / dx;
		s = s < 0 ? 0 : s > 1 ? 1 : s;
	}
	double u = 1 - s;
	return 3 * u * u * s * y1 + 3 * u * s * s * y2 + s * s * s;
}

struct done_event {
	bool done;
	uint32_t reason;
	uint64_t display_ns;
};

static void anim_done(void *data, struct vitrail_scene_animation_v1 *anim,
		uint32_t reason, uint32_t hi, uint32_t lo) {
	struct done_event *event = data;
	event->done = true;
	event->reason = reason;
	event->display_ns = (uint64_t)hi << 32 | lo;
}

static const struct vitrail_scene_animation_v1_listener anim_listener = {
	.done = anim_done,
};

static struct vitrail_test_v1 *bound_test;
static struct wp_presentation *bound_presentation;
static uint32_t presentation_clock = UINT32_MAX;

static void presentation_clock_id(void *data,
		struct wp_presentation *presentation, uint32_t clock_id) {
	presentation_clock = clock_id;
}

static const struct wp_presentation_listener presentation_listener = {
	.clock_id = presentation_clock_id,
};

static void test_registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	if (strcmp(interface, vitrail_test_v1_interface.name) == 0 &&
			version >= 2) {
		bound_test = wl_registry_bind(registry, name,
				&vitrail_test_v1_interface, version < 5 ? version : 5);
	} else if (strcmp(interface, wp_presentation_interface.name) == 0) {
		bound_presentation =
				wl_registry_bind(registry, name, &wp_presentation_interface, 1);
		wp_presentation_add_listener(bound_presentation, &presentation_listener,
				NULL);
	}
}

/* What wp_presentation told the client about one commit. */
struct presented {
	bool done, discarded;
	uint64_t ns; // when it was first shown
	uint32_t refresh_ns; // the output's refresh period then
};

static void feedback_sync_output(void *data,
		struct wp_presentation_feedback *feedback, struct wl_output *output) {
	// one output
}

static void feedback_presented(void *data,
		struct wp_presentation_feedback *feedback, uint32_t tv_sec_hi,
		uint32_t tv_sec_lo, uint32_t tv_nsec, uint32_t refresh, uint32_t seq_hi,
		uint32_t seq_lo, uint32_t flags) {
	struct presented *p = data;
	p->done = true;
	p->ns = ((uint64_t)tv_sec_hi << 32 | tv_sec_lo) * 1000000000ull + tv_nsec;
	p->refresh_ns = refresh;
	wp_presentation_feedback_destroy(feedback);
}

static void feedback_discarded(void *data,
		struct wp_presentation_feedback *feedback) {
	struct presented *p = data;
	p->done = true;
	p->discarded = true;
	wp_presentation_feedback_destroy(feedback);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_sync_output,
	.presented = feedback_presented,
	.discarded = feedback_discarded,
};

static void test_registry_global_remove(void *data,
		struct wl_registry *registry, uint32_t name) {
	// vitrail_test_v1 lives as long as vitrail
}

static const struct wl_registry_listener test_registry_listener = {
	.global = test_registry_global,
	.global_remove = test_registry_global_remove,
};

#define ANIM_MS 1000
#define ANIM_DISTANCE 400.0
#define STALL_MS 120
/* How far a display time may lie off the vblank grid the client saw: the
 * period is whole nanoseconds (16666666 for 60 Hz), a second of frames
 * drifts by under 100 ns from the grid it spans. */
#define GRID_SLACK_NS 2000

START_TEST(test_scene_animation_follows_display_time) {
	struct harness *harness = harness_create("animation");
	char *log_path;
	struct sc_app app;
	struct harness_vitrail *vitrail =
			start_frame_logged(harness, &log_path, &app);
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &test_registry_listener, NULL);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(bound_test != NULL, "no vitrail_test_v1 version 2");
	ck_assert_msg(bound_presentation != NULL, "no wp_presentation");
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0); // clock_id
	ck_assert_msg(presentation_clock == CLOCK_MONOTONIC,
			"the presentation "
			"clock is %u, not CLOCK_MONOTONIC",
			presentation_clock);

	ck_assert(sc_app_create_window(&app, "scene-anim", "anim", 600, 200, 0));
	struct vitrail_scene_v1 *scene =
			vitrail_scene_manager_v1_get_scene(app.manager, app.surface);
	struct vitrail_scene_node_v1 *node =
			rect_node(&app, scene, 100, 100, 0xffe04040);
	vitrail_scene_v1_set_root(scene, node);
	show_scene(&app, vitrail);

	uint64_t commit_ns = (uint64_t)harness_now_ms() * 1000000;
	double target[2] = { ANIM_DISTANCE, 0 };
	// wl_fixed_t values: the curve the compositor gets.
	double ease[4] = { 0.4, 0.0, 0.2, 1.0 };
	for (int i = 0; i < 4; i++) {
		ease[i] = wl_fixed_to_double(wl_fixed_from_double(ease[i]));
	}
	struct vitrail_scene_animation_v1 *anim = sc_node_animate(node,
			VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION, target, 2, ANIM_MS,
			VITRAIL_SCENE_NODE_V1_CURVE_CUBIC_BEZIER, ease, 4);
	struct done_event done = { 0 };
	vitrail_scene_animation_v1_add_listener(anim, &anim_listener, &done);
	// When the commit that starts the animation is shown, as the client
	// sees it.
	struct presented presented = { 0 };
	wp_presentation_feedback_add_listener(
			wp_presentation_feedback(bound_presentation, app.surface),
			&feedback_listener, &presented);
	wl_surface_commit(app.surface);
	pump(&app, 350, &done.done);
	// One frame in the middle of the animation renders 120 ms late.
	vitrail_test_v1_stall_next_frame(bound_test, STALL_MS);
	pump(&app, harness_scaled_ms(10000), &done.done);
	ck_assert_msg(done.done, "no done event");
	ck_assert_uint_eq(done.reason, VITRAIL_SCENE_ANIMATION_V1_REASON_FINISHED);
	harness_settle(vitrail->conn);

	ck_assert_msg(presented.done && !presented.discarded,
			"no presentation "
			"feedback for the commit that started the animation");
	ck_assert_msg(presented.refresh_ns > 0, "the feedback has no refresh");
	const int64_t period = presented.refresh_ns;

	struct frame_row *rows;
	size_t n = read_frame_log(log_path, &rows);
	// The first frame that sampled the animation is the one that first
	// showed its commit: the client saw it presented at presented.ns.
	// The animation's start as the client sees it is that time minus
	// the frame's elapsed time; every later sample claims to be shown
	// at that start plus its elapsed time.
	size_t first = n;
	uint64_t first_elapsed = 0;
	for (size_t i = 0; i < n && first == n; i++) {
		double value;
		if (row_sample(&rows[i], 1, &first_elapsed, &value)) {
			first = i;
		}
	}
	ck_assert_msg(first < n, "no animated frame logged");
	ck_assert_msg(rows[first].presented_ns == presented.ns,
			"the first "
			"animated frame was presented at %llu, but the client saw the "
			"commit that started the animation presented at %llu",
			(unsigned long long)rows[first].presented_ns,
			(unsigned long long)presented.ns);
	const uint64_t client_start = presented.ns - first_elapsed;
	uint64_t start_ns = 0, prev_target = 0, last_target = 0;
	double prev_value = -1, last_value = -1;
	size_t samples = 0;
	uint64_t longest_gap = 0, stall_lateness = 0;
	size_t replaced = 0; // animated frames never shown
	for (size_t i = 0; i < n; i++) {
		uint64_t elapsed;
		double value;
		if (!row_sample(&rows[i], 1, &elapsed, &value)) {
			continue;
		}
		samples++;
		// The start the frame log implies (its display time minus
		// elapsed), for the bounds on when the animation began and
		// ended below.
		uint64_t start = rows[i].target_ns - elapsed;
		if (start_ns == 0) {
			start_ns = start;
			ck_assert_msg(start_ns + 5000000 >= commit_ns,
					"the animation "
					"started at %llu, before it was committed (%llu)",
					(unsigned long long)start_ns,
					(unsigned long long)commit_ns);
		}
		// Every sample is taken for a display time: a vblank. Where it
		// claims to be shown, client_start + elapsed, lies on the grid
		// of the vblanks the client was told about (anchored at
		// presented.ns, spaced by its refresh).
		int64_t from_anchor = (int64_t)(elapsed - first_elapsed);
		int64_t periods = llround((double)from_anchor / (double)period);
		ck_assert_msg(llabs(from_anchor - periods * period) <= GRID_SLACK_NS,
				"frame %zu sampled the animation at elapsed "
				"%llu: %.3f ms off the vblank grid the client saw (period "
				"%lld ns, start %llu)",
				i, (unsigned long long)elapsed,
				(double)(from_anchor - periods * period) / 1e6,
				(long long)period, (unsigned long long)client_start);
		// A frame that was shown (not replaced by a later one) was
		// shown there or whole periods later (late), never earlier
		// (unless the first frame itself was late, moving client_start
		// later).
		if (rows[i].presented_ns != 0) {
			int64_t late =
					(int64_t)(rows[i].presented_ns - (client_start + elapsed));
			int64_t late_periods = llround((double)late / (double)period);
			ck_assert_msg(llabs(late - late_periods * period) <=
									GRID_SLACK_NS &&
							(late_periods >= 0 || rows[first].dropped),
					"frame %zu, sampled for %llu, was "
					"presented at %llu: %.3f ms later",
					i, (unsigned long long)(client_start + elapsed),
					(unsigned long long)rows[i].presented_ns, late / 1e6);
		}
		double p = elapsed / (ANIM_MS * 1e6);
		double expected = p >= 1 ?
				ANIM_DISTANCE :
				ANIM_DISTANCE * bezier(ease[0], ease[1], ease[2], ease[3], p);
		ck_assert_msg(fabs(value - expected) < 0.02,
				"frame %zu at %.1f ms: "
				"x = %.4f, the curve gives %.4f",
				i, elapsed / 1e6, value, expected);
		ck_assert_msg(value >= prev_value,
				"the motion went back at frame "
				"%zu: %.4f after %.4f",
				i, value, prev_value);
		if (prev_target != 0 && rows[i].target_ns - prev_target > longest_gap) {
			longest_gap = rows[i].target_ns - prev_target;
		}
		if (rows[i].presented_ns > rows[i].target_ns &&
				rows[i].presented_ns - rows[i].target_ns > stall_lateness) {
			stall_lateness = rows[i].presented_ns - rows[i].target_ns;
		}
		replaced += rows[i].presented_ns == 0;
		prev_target = rows[i].target_ns;
		prev_value = value;
		last_target = rows[i].target_ns;
		last_value = value;
	}
	ck_assert_msg(samples >= 20, "only %zu animated frames logged", samples);
	// The stalled frame was shown late (or, when the next frame was
	// ready by the same vblank, replaced by it: latest frame wins), and
	// the frames after it skipped the vblanks it missed instead of
	// slowing the animation down.
	ck_assert_msg(stall_lateness >= (STALL_MS - 34) * 1000000ull ||
					replaced > 0,
			"no frame was presented late (at most %.1f ms) or "
			"replaced: the stall did not happen during the animation",
			stall_lateness / 1e6);
	ck_assert_msg(longest_gap >= (STALL_MS - 34) * 1000000ull,
			"display times advance by at most %.1f ms per frame around the "
			"stall",
			longest_gap / 1e6);
	// The last frame drawn shows the target (the frame that finishes may
	// draw nothing new); done comes with the first display time at or
	// after the end.
	ck_assert_msg(fabs(last_value - ANIM_DISTANCE) < 0.01,
			"it ended at "
			"%.4f",
			last_value);
	ck_assert_uint_ge(done.display_ns, last_target);
	int64_t done_off = (int64_t)(done.display_ns - client_start);
	ck_assert_msg(llabs(done_off -
						  llround((double)done_off / (double)period) *
								  period) <= GRID_SLACK_NS,
			"done's display time %llu is off the "
			"vblank grid",
			(unsigned long long)done.display_ns);
	ck_assert_uint_ge(done.display_ns - start_ns, ANIM_MS * 1000000ull);
	ck_assert_uint_lt(done.display_ns - start_ns, (ANIM_MS + 17) * 1000000ull);
	free(rows);

	vitrail_scene_animation_v1_destroy(anim);
	vitrail_scene_node_v1_destroy(node);
	vitrail_scene_v1_destroy(scene);
	vitrail_test_v1_destroy(bound_test);
	bound_test = NULL;
	wp_presentation_destroy(bound_presentation);
	bound_presentation = NULL;
	wl_registry_destroy(registry);
	stop_frame_logged(harness, vitrail, log_path, &app);
}
END_TEST

/* ---- D-VSync ---------------------------------------------------------------
 */

#define DV_ANIM_MS 1000
#define DV_FRAMES 120
#define DV_LONG_US 40000 // 2.4 periods at 60 Hz
#define DV_SHORT_US 2000

/* What one run of the costed animation showed. */
struct dv_run {
	size_t vblanks; // from the animation's first frame shown to its last
	size_t missed; // of those, vblanks that showed no new frame
	size_t unexplained; // of those, misses no overrun of the trace explains
	size_t shown, off_time; // frames shown; shown away from their time
	double worst_value_error; // shown position vs the curve at its time
};

#define DV_PERIOD_NS 16666666
#define DV_OVERRUN_NS 4000000

/*
 * Whether the machine, not the pacer, explains a vblank that showed no new
 * frame: a frame whose render ended in the three periods before it (the
 * queue's depth) took over DV_OVERRUN_NS longer than any cost of the trace
 * allows (a short frame between the two costs, a long one past its cost).
 * The trace leaves a long frame about 9 ms of its three periods, so a
 * shared machine that stalls the renderer can use it up; a pacer that
 * renders too few frames ahead, starts them late or discards ready ones
 * misses vblanks without any such overrun.
 */
static bool overrun_explains(const struct frame_row *rows, size_t n,
		uint64_t vblank_ns) {
	for (size_t i = 0; i < n; i++) {
		const struct frame_row *r = &rows[i];
		if (r->render_start_ns == 0 || r->render_end_ns < r->render_start_ns ||
				r->render_end_ns + 3 * DV_PERIOD_NS + DV_PERIOD_NS / 2 <
						vblank_ns ||
				r->render_end_ns > vblank_ns + DV_PERIOD_NS / 2) {
			continue;
		}
		uint64_t took = r->render_end_ns - r->render_start_ns;
		uint64_t shortest = DV_SHORT_US * 1000ull,
				 longest = DV_LONG_US * 1000ull;
		if ((took > shortest + DV_OVERRUN_NS && took < longest) ||
				took > longest + DV_OVERRUN_NS) {
			return true;
		}
	}
	return false;
}

/* The rows around a vblank that showed no new frame, to tell why. */
static void print_rows_near(const char *pacing, const struct frame_row *rows,
		size_t n, uint64_t vblank_ns) {
	printf("%s: no new frame at vblank %" PRIu64 "; rows rendered near it "
		   "(ms from the vblank: target, render start, end, presented):\n",
			pacing, vblank_ns);
	for (size_t i = 0; i < n; i++) {
		const struct frame_row *r = &rows[i];
		if (r->target_ns + 4 * DV_PERIOD_NS < vblank_ns ||
				r->target_ns > vblank_ns + 2 * DV_PERIOD_NS) {
			continue;
		}
		double ms = 1e-6;
		printf("  %+.1f %+.1f %+.1f %+.1f dropped=%d\n",
				((double)r->target_ns - (double)vblank_ns) * ms,
				((double)r->render_start_ns - (double)vblank_ns) * ms,
				((double)r->render_end_ns - (double)vblank_ns) * ms,
				r->presented_ns == 0 ?
						0.0 :
						((double)r->presented_ns - (double)vblank_ns) * ms,
				r->dropped);
	}
}

/*
 * A linear animation of DV_ANIM_MS whose frames replay a render-cost
 * trace through vitrail_test_v1.slow_frames: 2 ms each, and every 8th
 * 40 ms (2.4 periods), without blocking the main thread. From the frame
 * log: the vblanks the animation spans that showed no new frame, and
 * whether each frame shown was shown at its display time with the
 * curve's value at that time.
 */
static struct dv_run dvsync_run(const char *pacing) {
	struct harness *harness = harness_create(pacing);
	char *log_path = NULL;
	ck_assert(asprintf(&log_path, "%s/frames.csv", harness->out_dir) > 0);
	const char *args[] = { "--frame-log", log_path, "--pacing", pacing, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "800x600",
					.extra_args = args,
			});
	struct sc_app app;
	app_connect(&app, vitrail);
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &test_registry_listener, NULL);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(bound_test != NULL &&
					vitrail_test_v1_get_version(bound_test) >= 4,
			"no vitrail_test_v1 version 4");
	ck_assert(
			sc_app_create_window(&app, "scene-dvsync", "dvsync", 600, 200, 0));
	struct vitrail_scene_v1 *scene =
			vitrail_scene_manager_v1_get_scene(app.manager, app.surface);
	struct vitrail_scene_node_v1 *node =
			rect_node(&app, scene, 100, 100, 0xff40a0e0);
	vitrail_scene_v1_set_root(scene, node);
	show_scene(&app, vitrail);

	struct wl_array costs;
	wl_array_init(&costs);
	for (int i = 0; i < DV_FRAMES; i++) {
		uint32_t *cost = wl_array_add(&costs, sizeof(*cost));
		*cost = i % 8 == 4 ? DV_LONG_US : DV_SHORT_US;
	}
	vitrail_test_v1_slow_frames(bound_test, &costs);
	wl_array_release(&costs);
	double target[2] = { ANIM_DISTANCE, 0 };
	struct vitrail_scene_animation_v1 *anim = sc_node_animate(node,
			VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION, target, 2, DV_ANIM_MS,
			VITRAIL_SCENE_NODE_V1_CURVE_LINEAR, NULL, 0);
	struct done_event done = { 0 };
	vitrail_scene_animation_v1_add_listener(anim, &anim_listener, &done);
	wl_surface_commit(app.surface);
	pump(&app, harness_scaled_ms(10000), &done.done);
	ck_assert_msg(done.done, "no done event");
	harness_settle(vitrail->conn);

	vitrail_scene_animation_v1_destroy(anim);
	vitrail_scene_node_v1_destroy(node);
	vitrail_scene_v1_destroy(scene);
	vitrail_test_v1_destroy(bound_test);
	bound_test = NULL;
	if (bound_presentation != NULL) {
		wp_presentation_destroy(bound_presentation);
		bound_presentation = NULL;
	}
	wl_registry_destroy(registry);
	sc_app_finish(&app);
	harness_stop_vitrail(harness, vitrail);

	struct frame_row *rows;
	size_t n = read_frame_log(log_path, &rows);
	const uint64_t period = DV_PERIOD_NS;
	const uint64_t slack = period / 2;
	struct dv_run run = { 0 };
	uint64_t first = 0, last = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t elapsed;
		double value;
		if (!row_sample(&rows[i], 1, &elapsed, &value) ||
				rows[i].presented_ns == 0) {
			continue;
		}
		run.shown++;
		uint64_t shown_at = rows[i].presented_ns;
		first = first == 0 ? shown_at : first;
		last = shown_at;
		uint64_t off = shown_at > rows[i].target_ns ?
				shown_at - rows[i].target_ns :
				rows[i].target_ns - shown_at;
		run.off_time += off > slack;
		// linear: the value is the curve at the frame's display time
		double p = (double)elapsed / (DV_ANIM_MS * 1e6);
		double expected = ANIM_DISTANCE * (p < 1 ? p : 1);
		double error = fabs(value - expected);
		run.worst_value_error =
				error > run.worst_value_error ? error : run.worst_value_error;
	}
	ck_assert_msg(run.shown > 0, "%s: no animated frame shown", pacing);
	for (uint64_t v = first; v <= last + slack; v += period) {
		bool shown = false;
		for (size_t i = 0; i < n && !shown; i++) {
			uint64_t at = rows[i].presented_ns;
			shown = at != 0 && at + slack > v && at < v + slack &&
					row_sample(&rows[i], 1, &(uint64_t){ 0 }, &(double){ 0 });
		}
		run.vblanks++;
		run.missed += !shown;
		if (!shown && !overrun_explains(rows, n, v)) {
			run.unexplained++;
			if (strcmp(pacing, "dvsync") == 0) {
				print_rows_near(pacing, rows, n, v);
			}
		}
	}
	printf("%s: %zu vblanks, %zu without a new frame (%zu not explained by "
		   "the machine running a frame slower than the trace); %zu frames "
		   "shown, %zu away from their display time; worst value error "
		   "%.4f\n",
			pacing, run.vblanks, run.missed, run.unexplained, run.shown,
			run.off_time, run.worst_value_error);
	fflush(stdout);
	free(rows);
	free(log_path);
	harness_destroy(harness);
	return run;
}

/*
 * D-VSync end to end (acceptance 2 of the D-VSync issue): with frames
 * rendered three ahead, the long frames of the trace are absorbed: every
 * vblank of the animation shows a new frame, each at its own display
 * time, with the curve's value at that time (positions uniform in display
 * time). The same trace under vsync misses vblanks, which is what makes
 * this test able to fail. A vblank missed because the shared machine ran
 * a frame slower than the trace (overrun_explains) is allowed, up to a
 * quarter of vsync's misses; the rows around any other are printed. In
 * sanitizer builds (renders several times slower) only the positions are
 * checked.
 */
START_TEST(test_scene_dvsync_absorbs_long_frames) {
	struct dv_run dvsync = dvsync_run("dvsync");
	struct dv_run vsync = dvsync_run("vsync");
	ck_assert_msg(dvsync.worst_value_error < 0.02 &&
					vsync.worst_value_error < 0.02,
			"a frame showed the animation "
			"away from its curve at its display time");
	const char *sanitizer = getenv("VITRAIL_TEST_SANITIZER");
	if (sanitizer != NULL && strcmp(sanitizer, "none") != 0 &&
			sanitizer[0] != '\0') {
		printf("dvsync: frame drops not checked under %s\n", sanitizer);
		return;
	}
	ck_assert_msg(vsync.missed >= 3,
			"vsync missed only %zu vblanks: the "
			"trace's long frames did not bite",
			vsync.missed);
	ck_assert_msg(dvsync.unexplained == 0,
			"dvsync: %zu of %zu vblanks showed no new frame, %zu of them "
			"with no overrun of the trace to explain it",
			dvsync.missed, dvsync.vblanks, dvsync.unexplained);
	ck_assert_msg(dvsync.missed * 4 <= vsync.missed,
			"dvsync missed %zu vblanks, vsync %zu: not a quarter",
			dvsync.missed, vsync.missed);
	ck_assert_msg(dvsync.off_time == 0,
			"dvsync: %zu frames shown away from "
			"their display time",
			dvsync.off_time);
}
END_TEST

/*
 * --prerender per output: two outputs with limits 2 and 4, the chat
 * example animating on each. Neither output ever has more frames queued
 * than its own limit; outside sanitizer builds each reaches it (its
 * accumulation fills the queue). Then both idle for over two seconds:
 * the buffers the queue grew are freed, three per output stay (--stats).
 */
START_TEST(test_scene_dvsync_per_output_limit) {
	struct harness *harness = harness_create("dvsync_per_output");
	char *log_path = NULL;
	ck_assert(asprintf(&log_path, "%s/frames.csv", harness->out_dir) > 0);
	char *stats_path = NULL;
	ck_assert(asprintf(&stats_path, "%s/stats.txt", harness->out_dir) > 0);
	const char *args[] = { "--frame-log", log_path, "--pacing", "dvsync",
		"--prerender", "2,4", "--stats", stats_path, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 2,
					.output_size = "640x480",
					.extra_args = args,
			});
	// one window per output (the one with the fewest windows)
	spawn_example(harness, vitrail, "vitrail-scene-chat", "500");
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	spawn_example(harness, vitrail, "vitrail-scene-chat", "300");
	harness_wait_for_windows(vitrail->conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	// the animations (about a second) then 3 s of nothing to draw
	struct timespec wait = { 5, 0 };
	nanosleep(&wait, NULL);
	harness_settle(vitrail->conn);
	harness_stop_vitrail(harness, vitrail);
	FILE *sf = fopen(stats_path, "r");
	ck_assert_msg(sf != NULL, "no %s", stats_path);
	char sline[512];
	int buffers[2] = { -1, -1 }, buffers_max[2] = { -1, -1 };
	while (fgets(sline, sizeof(sline), sf) != NULL) {
		int o = strncmp(sline, "HEADLESS-1:", 11) == 0 ? 0 :
				strncmp(sline, "HEADLESS-2:", 11) == 0 ? 1 :
														 -1;
		const char *b = strstr(sline, " buffers=");
		const char *m = strstr(sline, " buffers_max=");
		if (o >= 0 && b != NULL && m != NULL) {
			buffers[o] = atoi(b + strlen(" buffers="));
			buffers_max[o] = atoi(m + strlen(" buffers_max="));
		}
	}
	fclose(sf);
	printf("dvsync_per_output: output buffers at the end %d and %d, at most "
		   "%d and %d\n",
			buffers[0], buffers[1], buffers_max[0], buffers_max[1]);
	for (int o = 0; o < 2; o++) {
		ck_assert_msg(buffers[o] >= 1 && buffers[o] <= 3,
				"HEADLESS-%d kept "
				"%d output buffers after idling",
				o + 1, buffers[o]);
	}
	free(stats_path);

	struct frame_row *rows;
	size_t n = read_frame_log(log_path, &rows);
	free(rows);
	// in_flight per output, straight from the CSV
	FILE *f = fopen(log_path, "r");
	ck_assert(f != NULL);
	char line[4096];
	ck_assert(fgets(line, sizeof(line), f) != NULL);
	int col_output = -1, col_in_flight = -1, i = 0;
	for (char *save = NULL, *tok = strtok_r(line, ",\n", &save); tok != NULL;
			tok = strtok_r(NULL, ",\n", &save), i++) {
		col_output = strcmp(tok, "output") == 0 ? i : col_output;
		col_in_flight = strcmp(tok, "in_flight") == 0 ? i : col_in_flight;
	}
	ck_assert(col_output >= 0 && col_in_flight >= 0);
	int most[2] = { 0, 0 };
	while (fgets(line, sizeof(line), f) != NULL) {
		int output = -1, in_flight = 0;
		i = 0;
		for (char *save = NULL, *tok = strtok_r(line, ",", &save); tok != NULL;
				tok = strtok_r(NULL, ",", &save), i++) {
			if (i == col_output) {
				output = strcmp(tok, "HEADLESS-1") == 0 ? 0 :
						strcmp(tok, "HEADLESS-2") == 0  ? 1 :
														  -1;
			} else if (i == col_in_flight) {
				in_flight = atoi(tok);
			}
		}
		if (output >= 0 && in_flight > most[output]) {
			most[output] = in_flight;
		}
	}
	fclose(f);
	printf("dvsync_per_output: %zu frames; most queued: HEADLESS-1 %d "
		   "(limit 2), HEADLESS-2 %d (limit 4)\n",
			n, most[0], most[1]);
	ck_assert_int_le(most[0], 2);
	ck_assert_int_le(most[1], 4);
	const char *sanitizer = getenv("VITRAIL_TEST_SANITIZER");
	if (sanitizer == NULL || sanitizer[0] == '\0' ||
			strcmp(sanitizer, "none") == 0) {
		ck_assert_int_eq(most[0], 2);
		ck_assert_int_eq(most[1], 4);
		// four queued and one on screen: the queue grew the buffers
		ck_assert_int_gt(buffers_max[1], 3);
	}
	free(log_path);
	harness_destroy(harness);
}
END_TEST

/* ---- dirty -------------------------------------------------------------- */

START_TEST(test_scene_dirty_only_what_changed) {
	struct harness *harness = harness_create("dirty");
	char *log_path;
	struct sc_app app;
	struct harness_vitrail *vitrail =
			start_frame_logged(harness, &log_path, &app);
	ck_assert(sc_app_create_window(&app, "scene-dirty", "dirty", 500, 300, 0));
	struct vitrail_scene_v1 *scene =
			vitrail_scene_manager_v1_get_scene(app.manager, app.surface);
	// root (no clip) -> A (4 nodes: A and 3 leaves), B (6 nodes)
	struct vitrail_scene_node_v1 *root = vitrail_scene_v1_create_node(scene);
	struct vitrail_scene_node_v1 *a =
			rect_node(&app, scene, 150, 150, 0xff404080);
	struct vitrail_scene_node_v1 *b =
			rect_node(&app, scene, 150, 150, 0xff408040);
	struct vitrail_scene_node_v1 *a_kids[3], *b_kids[5];
	for (int i = 0; i < 3; i++) {
		a_kids[i] = rect_node(&app, scene, 20, 20, 0xffffffff);
		sc_node_set_position(a_kids[i], 10 + 30 * i, 10);
	}
	for (int i = 0; i < 5; i++) {
		b_kids[i] = rect_node(&app, scene, 20, 20, 0xff000000);
		sc_node_set_position(b_kids[i], 10 + 25 * i, 10);
	}
	sc_node_set_children(a, a_kids, 3);
	sc_node_set_children(b, b_kids, 5);
	sc_node_set_position(b, 300, 0);
	struct vitrail_scene_node_v1 *top[] = { a, b };
	sc_node_set_children(root, top, 2);
	vitrail_scene_v1_set_root(scene, root);
	show_scene(&app, vitrail);

	// Animate A's transform: each frame re-prepares A's subtree only.
	double target[2] = { 0, 120 };
	struct vitrail_scene_animation_v1 *anim = sc_node_animate(a,
			VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION, target, 2, 400,
			VITRAIL_SCENE_NODE_V1_CURVE_LINEAR, NULL, 0);
	struct done_event done = { 0 };
	vitrail_scene_animation_v1_add_listener(anim, &anim_listener, &done);
	wl_surface_commit(app.surface);
	pump(&app, harness_scaled_ms(10000), &done.done);
	ck_assert(done.done);
	harness_settle(vitrail->conn);

	// Then one leaf's display list changes: one list recorded, one node.
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_rect(&dl, 0, 0, 20, 20, SC_FILL(0xffff8000));
	sc_node_set_list(&app, b_kids[2], &dl);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_settle(vitrail->conn);

	struct frame_row *rows;
	size_t n = read_frame_log(log_path, &rows);
	size_t animated = 0, last = n;
	for (size_t i = 0; i < n; i++) {
		uint64_t elapsed;
		double value;
		if (!row_sample(&rows[i], 1, &elapsed, &value)) {
			continue;
		}
		animated++;
		last = i;
		ck_assert_msg(rows[i].nodes_updated == 4,
				"animated frame %zu "
				"re-prepared %u nodes; A's subtree is 4",
				i, rows[i].nodes_updated);
		ck_assert_msg(rows[i].lists_recorded == 0,
				"animated frame %zu "
				"recorded %u display lists",
				i, rows[i].lists_recorded);
	}
	ck_assert_msg(animated >= 5, "only %zu animated frames", animated);
	ck_assert_msg(last + 1 < n, "no frame after the animation");
	const struct frame_row *update = &rows[n - 1];
	ck_assert_msg(update->lists_recorded == 1,
			"the list update recorded %u "
			"display lists",
			update->lists_recorded);
	ck_assert_msg(update->nodes_updated == 1,
			"the list update re-prepared "
			"%u nodes",
			update->nodes_updated);
	free(rows);
	harness_check_output(vitrail->conn, "HEADLESS-1", TOLERANCE);

	vitrail_scene_animation_v1_destroy(anim);
	for (int i = 0; i < 3; i++) {
		vitrail_scene_node_v1_destroy(a_kids[i]);
	}
	for (int i = 0; i < 5; i++) {
		vitrail_scene_node_v1_destroy(b_kids[i]);
	}
	vitrail_scene_node_v1_destroy(a);
	vitrail_scene_node_v1_destroy(b);
	vitrail_scene_node_v1_destroy(root);
	vitrail_scene_v1_destroy(scene);
	stop_frame_logged(harness, vitrail, log_path, &app);
}
END_TEST

/* A card of three nodes (a rounded rect with two children) under a
 * rounded-clip ancestor, its translation animated: the renderer clips at
 * render time, so no frame records a display list (the compositor used to
 * record the three lists again at every frame, each clipped to the
 * ancestor at its new place). */
START_TEST(test_scene_rounded_clip_animation) {
	struct harness *harness = harness_create("rounded_animation");
	char *log_path;
	struct sc_app app;
	struct harness_vitrail *vitrail =
			start_frame_logged(harness, &log_path, &app);
	ck_assert(sc_app_create_window(&app, "scene-rounded", "rounded", 400, 300,
			0));
	struct vitrail_scene_v1 *scene =
			vitrail_scene_manager_v1_get_scene(app.manager, app.surface);
	struct vitrail_scene_node_v1 *root = vitrail_scene_v1_create_node(scene);
	vitrail_scene_node_v1_set_clip(root, wl_fixed_from_int(20),
			wl_fixed_from_int(20), wl_fixed_from_int(300),
			wl_fixed_from_int(200), wl_fixed_from_int(24));
	struct vitrail_scene_node_v1 *card = vitrail_scene_v1_create_node(scene);
	struct sc_dl dl;
	sc_dl_init(&dl);
	sc_dl_rrect(&dl, 0, 0, 260, 160, 12, SC_FILL(0xff3060a0));
	sc_node_set_list(&app, card, &dl);
	struct vitrail_scene_node_v1 *kids[2];
	for (int i = 0; i < 2; i++) {
		kids[i] = rect_node(&app, scene, 100, 40, i ? 0xffe0e0e0 : 0xfff0a020);
		sc_node_set_position(kids[i], 20, 20 + 60 * i);
	}
	sc_node_set_children(card, kids, 2);
	sc_node_set_position(card, 0, 0);
	sc_node_set_children(root, &card, 1);
	vitrail_scene_v1_set_root(scene, root);
	show_scene(&app, vitrail);

	/* the card slides across the clip's rounded corner */
	double target[2] = { 120, 100 };
	struct vitrail_scene_animation_v1 *anim = sc_node_animate(card,
			VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION, target, 2, 400,
			VITRAIL_SCENE_NODE_V1_CURVE_LINEAR, NULL, 0);
	struct done_event done = { 0 };
	vitrail_scene_animation_v1_add_listener(anim, &anim_listener, &done);
	wl_surface_commit(app.surface);
	pump(&app, harness_scaled_ms(10000), &done.done);
	ck_assert(done.done);
	harness_settle(vitrail->conn);

	struct frame_row *rows;
	size_t n = read_frame_log(log_path, &rows);
	size_t animated = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t elapsed;
		double value;
		if (!row_sample(&rows[i], 1, &elapsed, &value)) {
			continue;
		}
		animated++;
		ck_assert_msg(rows[i].lists_recorded == 0,
				"animated frame %zu "
				"recorded %u display lists",
				i, rows[i].lists_recorded);
		ck_assert_msg(rows[i].nodes_updated == 3,
				"animated frame %zu "
				"re-prepared %u nodes; the card's subtree is 3",
				i, rows[i].nodes_updated);
	}
	ck_assert_msg(animated >= 5, "only %zu animated frames", animated);
	free(rows);
	/* the pixels: the card cut by the clip's rounded corner */
	harness_check_output(vitrail->conn, "HEADLESS-1", TOLERANCE);

	vitrail_scene_animation_v1_destroy(anim);
	for (int i = 0; i < 2; i++) {
		vitrail_scene_node_v1_destroy(kids[i]);
	}
	vitrail_scene_node_v1_destroy(card);
	vitrail_scene_node_v1_destroy(root);
	vitrail_scene_v1_destroy(scene);
	stop_frame_logged(harness, vitrail, log_path, &app);
}
END_TEST

/* ---- limits ------------------------------------------------------------- */

/*
 * A bystander: a window of its own connection, driven by a thread of the
 * test process, that draws a new frame at every frame callback. It notes
 * the longest gap between two callbacks while measuring: a client that
 * makes vitrail's main thread busy shows as a gap.
 */
struct bystander {
	struct sc_app app;
	pthread_t thread;
	atomic_bool stop;
	pthread_mutex_t lock;
	int64_t last_ms; // protected by lock; 0: not measuring
	int64_t max_gap_ms; // protected by lock
	int frames; // protected by lock
	struct wl_callback *cb; // the frame callback awaited (its thread's)
};

static const struct wl_callback_listener bystander_frame_listener;

static void bystander_draw(struct bystander *b) {
	struct wl_callback *cb = wl_surface_frame(b->app.surface);
	wl_callback_add_listener(cb, &bystander_frame_listener, b);
	b->cb = cb;
	wl_surface_attach(b->app.surface, b->app.buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(b->app.surface, 0, 0, 8, 8);
	wl_surface_commit(b->app.surface);
}

static void bystander_frame_done(void *data, struct wl_callback *cb,
		uint32_t time) {
	struct bystander *b = data;
	wl_callback_destroy(cb);
	b->cb = NULL;
	int64_t now = harness_now_ms();
	pthread_mutex_lock(&b->lock);
	if (b->last_ms != 0 && now - b->last_ms > b->max_gap_ms) {
		b->max_gap_ms = now - b->last_ms;
	}
	if (b->last_ms != 0) {
		b->last_ms = now;
	}
	b->frames++;
	pthread_mutex_unlock(&b->lock);
	bystander_draw(b);
}

static const struct wl_callback_listener bystander_frame_listener = {
	.done = bystander_frame_done,
};

static void *bystander_run(void *data) {
	struct bystander *b = data;
	bystander_draw(b);
	while (!atomic_load(&b->stop)) {
		if (wl_display_flush(b->app.display) < 0) {
			break;
		}
		struct pollfd pfd = {
			.fd = wl_display_get_fd(b->app.display),
			.events = POLLIN,
		};
		if (wl_display_prepare_read(b->app.display) != 0) {
			if (wl_display_dispatch_pending(b->app.display) < 0) {
				break;
			}
			continue;
		}
		if (poll(&pfd, 1, 10) > 0) {
			if (wl_display_read_events(b->app.display) < 0) {
				break;
			}
		} else {
			wl_display_cancel_read(b->app.display);
		}
		if (wl_display_dispatch_pending(b->app.display) < 0) {
			break;
		}
	}
	return NULL;
}

static void bystander_start(struct bystander *b,
		struct harness_vitrail *vitrail) {
	app_connect(&b->app, vitrail);
	ck_assert(sc_app_create_window(&b->app, "bystander", "bystander", 64, 64,
			0xff2080c0));
	atomic_init(&b->stop, false);
	pthread_mutex_init(&b->lock, NULL);
	ck_assert_int_eq(pthread_create(&b->thread, NULL, bystander_run, b), 0);
}

/* Start measuring the gaps between frame callbacks from now. */
static void bystander_measure(struct bystander *b) {
	pthread_mutex_lock(&b->lock);
	b->last_ms = harness_now_ms();
	b->max_gap_ms = 0;
	b->frames = 0;
	pthread_mutex_unlock(&b->lock);
}

/* The longest gap so far, counting the one still open. */
static int64_t bystander_max_gap(struct bystander *b, int *frames) {
	pthread_mutex_lock(&b->lock);
	int64_t gap = b->max_gap_ms;
	if (harness_now_ms() - b->last_ms > gap) {
		gap = harness_now_ms() - b->last_ms;
	}
	*frames = b->frames;
	pthread_mutex_unlock(&b->lock);
	return gap;
}

static void bystander_stop(struct bystander *b) {
	atomic_store(&b->stop, true);
	pthread_join(b->thread, NULL);
	if (b->cb != NULL) {
		wl_callback_destroy(b->cb);
		b->cb = NULL;
	}
	ck_assert_msg(wl_display_get_error(b->app.display) == 0,
			"the bystander's connection failed");
	sc_app_finish(&b->app);
}

/* vitrail's resident memory in KiB (VmRSS of /proc/<pid>/status). */
static long vm_rss_kib(struct harness_proc *proc) {
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)proc->pid);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	long kib = -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) {
			break;
		}
	}
	fclose(f);
	ck_assert_int_gt(kib, 0);
	return kib;
}

/* Pump a connection while the bystander draws: until frames >= n. */
static void wait_bystander_frames(struct bystander *b, int n) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(5000);
	int frames = 0;
	while (harness_now_ms() < deadline) {
		bystander_max_gap(b, &frames);
		if (frames >= n) {
			return;
		}
		struct timespec ts = { 0, 10 * 1000000 };
		nanosleep(&ts, NULL);
	}
	ck_abort_msg("the bystander drew only %d frames", frames);
}

#define AMP_NODES 30
/* The hostile suite's bound. Decoding and recording one list of
 * display_list_size (the quota stops the third node before it draws)
 * costs 60-70 ms of main thread on this 2-core machine; before the
 * shared recording the gap was 2.5 s. */
#define AMP_GAP_MS 100
#define AMP_GAP_TSAN_MS 250

/* In a child: one list of display_list_size bytes of rectangles on AMP_NODES
 * nodes, one commit; the nodes would draw more than drawn_commands, so the
 * scene gets quota_exceeded. Exits 0 when it did. */
static void amplify(struct harness_vitrail *vitrail) {
	struct sc_app app = { 0 };
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	if (!sc_app_init(&app, "amplifier") ||
			!sc_app_create_window(&app, "amplifier", "amplifier", 400, 300,
					0)) {
		_exit(2);
	}
	struct vitrail_scene_v1 *scene =
			vitrail_scene_manager_v1_get_scene(app.manager, app.surface);
	struct sc_dl dl;
	sc_dl_init(&dl);
	size_t rects = VITRAIL_SCENE_MANAGER_V1_QUOTA_DISPLAY_LIST_SIZE / 40;
	for (size_t i = 0; i < rects; i++) {
		sc_dl_rect(&dl, (float)(i % 400), (float)(i / 400 % 300), 1, 1,
				SC_FILL(0xff000000 | (uint32_t)i));
	}
	struct vitrail_scene_display_list_v1 *list = sc_list_create(&app, &dl);
	sc_dl_finish(&dl);
	struct vitrail_scene_node_v1 *root = vitrail_scene_v1_create_node(scene);
	struct vitrail_scene_node_v1 *nodes[64];
	for (int i = 0; i < AMP_NODES; i++) {
		nodes[i] = vitrail_scene_v1_create_node(scene);
		vitrail_scene_node_v1_set_display_list(nodes[i], list);
	}
	sc_node_set_children(root, nodes, (size_t)AMP_NODES);
	vitrail_scene_v1_set_root(scene, root);
	wl_surface_commit(app.surface);
	error_log[0] = '\0';
	wl_log_set_handler_client(log_handler);
	if (wl_display_roundtrip(app.display) >= 0) {
		fprintf(stderr, "amplifier: no protocol error\n");
		_exit(1);
	}
	const struct wl_interface *interface = NULL;
	uint32_t code =
			wl_display_get_protocol_error(app.display, &interface, NULL);
	fprintf(stderr, "amplifier: %s", error_log);
	_exit(interface == &vitrail_scene_v1_interface &&
							code == VITRAIL_SCENE_V1_ERROR_QUOTA_EXCEEDED &&
							strstr(error_log, "over drawn_commands 65536") !=
									NULL ?
					0 :
					1);
}

/*
 * One display list of display_list_size (1 MiB, 26,214 rectangles; it
 * was 4 MiB, 104,857, whose decoding and recording took 280 ms of the
 * main thread) set on 30 nodes: recorded once and shared, the nodes
 * together are over drawn_commands, so the client gets quota_exceeded
 * at its commit; vitrail's memory grows by about one recording, the
 * bystander's frames keep coming, and the memory goes back once the
 * client is gone. Before, every node recorded its own copy and drew it:
 * 3 GB and a 20 s stall.
 */
START_TEST(test_scene_shared_list_amplification) {
	struct harness *harness = harness_create("amplification");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "800x600",
			});
	struct bystander bystander = { 0 };
	bystander_start(&bystander, vitrail);
	wait_bystander_frames(&bystander, 30);
	harness_settle(vitrail->conn);
	long before = vm_rss_kib(vitrail->proc);

	bystander_measure(&bystander);
	int64_t start = harness_now_ms();
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		amplify(vitrail);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	int64_t client_ms = harness_now_ms() - start;
	long during = vm_rss_kib(vitrail->proc);
	harness_settle(vitrail->conn);
	int frames;
	int64_t gap = bystander_max_gap(&bystander, &frames);
	fprintf(stderr,
			"amplification: %d nodes: client done in %" PRId64
			" ms, bystander: %d frames, longest gap %" PRId64 " ms; VmRSS "
			"before %ld KiB, at the client's end %ld KiB (+%ld)\n",
			AMP_NODES, client_ms, frames, gap, before, during, during - before);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			"the amplifying client: exit status 0x%x (see the log)", status);
	ck_assert_msg(during - before < 128 * 1024,
			"vitrail grew by %ld KiB "
			"for one 1 MiB list on %d nodes",
			during - before, AMP_NODES);
	// ThreadSanitizer makes this main-thread work 5-7 times slower (450 ms
	// measured), more than its timeout multiplier covers.
	const char *sanitizer = getenv("VITRAIL_TEST_SANITIZER");
	int bound = sanitizer != NULL && strcmp(sanitizer, "thread") == 0 ?
			AMP_GAP_TSAN_MS :
			AMP_GAP_MS;
	ck_assert_msg(gap <= harness_scaled_ms(bound),
			"the bystander "
			"waited %" PRId64 " ms for a frame callback (bound %" PRId64 " ms)",
			gap, harness_scaled_ms(bound));

	wait_bystander_frames(&bystander, frames + 30);
	harness_settle(vitrail->conn);
	long after = vm_rss_kib(vitrail->proc);
	fprintf(stderr,
			"amplification: VmRSS after the client left %ld KiB "
			"(%+.1f%% of before)\n",
			after, 100.0 * (after - before) / before);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	// The sanitizers keep freed memory (quarantine, their allocators).
	fprintf(stderr,
			"amplification: VmRSS not checked under "
			"a sanitizer\n");
#else
	ck_assert_msg(after <= before + before / 10,
			"vitrail kept %ld KiB "
			"after the client left (%ld before)",
			after, before);
#endif

	bystander_stop(&bystander);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- subsurfaces -------------------------------------------------------- */

/* vitrail(1), LIMITS: subsurfaces per parent surface and per client. */
#define SUB_PER_PARENT 1024
#define SUB_PER_CLIENT 4096
/* Under the limits: SUB_PARENTS parents (subsurfaces of the window) with
 * SUB_CHILDREN children each. Before the fix every new subsurface
 * restacked all its siblings: the bystander waited seconds. */
#define SUB_PARENTS 4
#define SUB_CHILDREN 1000
#define SUB_GAP_MS 250
/* Requests between two round trips of the flooding client. */
#define SUB_BATCH 64

/* A client making many desynchronised subsurfaces of 1x1, every surface
 * showing the same buffer. */
struct flood {
	struct sc_app app;
	struct sc_buffer *pixel;
	struct wl_surface **surfaces; // every surface made, in order
	struct wl_subsurface **subsurfaces; // the same index as surfaces
	size_t len, cap;
	bool failed; // a round trip failed (a protocol error)
};

static void flood_init(struct flood *f, struct harness_vitrail *vitrail,
		const char *app_id) {
	*f = (struct flood){ 0 };
	app_connect(&f->app, vitrail);
	ck_assert(
			sc_app_create_window(&f->app, app_id, app_id, 32, 32, 0xff808080));
	wl_surface_commit(f->app.surface);
	f->pixel =
			sc_buffer_create(&f->app, 1, 1, WL_SHM_FORMAT_ARGB8888, 0xffc04020);
	ck_assert_ptr_nonnull(f->pixel);
	ck_assert_int_ge(wl_display_roundtrip(f->app.display), 0);
}

static void flood_sync(struct flood *f) {
	if (!f->failed && wl_display_roundtrip(f->app.display) < 0) {
		f->failed = true;
	}
}

/* A desynchronised subsurface of parent at (x, y) showing the pixel,
 * committed; its parent's commit places it. */
static struct wl_surface *flood_add(struct flood *f, struct wl_surface *parent,
		int32_t x, int32_t y) {
	if (f->len == f->cap) {
		f->cap = f->cap == 0 ? 256 : f->cap * 2;
		f->surfaces = realloc(f->surfaces, f->cap * sizeof(*f->surfaces));
		f->subsurfaces =
				realloc(f->subsurfaces, f->cap * sizeof(*f->subsurfaces));
		ck_assert(f->surfaces != NULL && f->subsurfaces != NULL);
	}
	struct wl_surface *surface =
			wl_compositor_create_surface(f->app.compositor);
	struct wl_subsurface *sub = wl_subcompositor_get_subsurface(
			f->app.subcompositor, surface, parent);
	wl_subsurface_set_position(sub, x, y);
	wl_subsurface_set_desync(sub);
	wl_surface_attach(surface, f->pixel->wl_buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, 1, 1);
	wl_surface_commit(surface);
	f->surfaces[f->len] = surface;
	f->subsurfaces[f->len] = sub;
	f->len++;
	if (f->len % SUB_BATCH == 0) {
		wl_surface_commit(parent);
		flood_sync(f);
	}
	return surface;
}

/* parents subsurfaces of the window, each with children of its own, and
 * every surface committed but the window (so nothing shows yet); false
 * when vitrail sent a protocol error. */
static bool flood_run(struct flood *f, int parents, int children) {
	for (int p = 0; p < parents && !f->failed; p++) {
		struct wl_surface *parent = flood_add(f, f->app.surface, p * 8, 0);
		for (int c = 0; c < children && !f->failed; c++) {
			flood_add(f, parent, c % 32, 8 + c / 32 % 24);
		}
		wl_surface_commit(parent);
	}
	flood_sync(f);
	return !f->failed;
}

static void flood_finish(struct flood *f) {
	for (size_t i = f->len; i-- > 0;) {
		wl_subsurface_destroy(f->subsurfaces[i]);
		wl_surface_destroy(f->surfaces[i]);
	}
	if (wl_display_get_error(f->app.display) == 0) {
		ck_assert_int_ge(wl_display_roundtrip(f->app.display), 0);
	}
	free(f->surfaces);
	free(f->subsurfaces);
	sc_buffer_destroy(f->pixel);
	sc_app_finish(&f->app);
}

/* CPU time of vitrail's main thread (its first thread), in ms. */
static int64_t main_thread_cpu_ms(struct harness_proc *proc) {
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)proc->pid,
			(int)proc->pid);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	// After "(comm)": state is field 3; utime and stime are 14 and 15.
	char *p = strrchr(buf, ')');
	ck_assert_ptr_nonnull(p);
	unsigned long long utime = 0, stime = 0;
	ck_assert_int_eq(sscanf(p + 2,
							 "%*c %*d %*d %*d %*d %*d %*u %*u %*u "
							 "%*u %*u %llu %llu",
							 &utime, &stime),
			2);
	return (int64_t)((utime + stime) * 1000 /
			(unsigned long long)sysconf(_SC_CLK_TCK));
}

static struct harness_vitrail *start_with_bystander(struct harness *harness,
		struct bystander *bystander) {
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "800x600",
			});
	bystander_start(bystander, vitrail);
	wait_bystander_frames(bystander, 30);
	harness_settle(vitrail->conn);
	return vitrail;
}

/*
 * SUB_PARENTS x SUB_CHILDREN desynchronised subsurfaces, each committing
 * a 1x1 buffer, while a bystander keeps drawing: while they are made and
 * committed its frame callbacks never wait longer than SUB_GAP_MS. Then
 * the window's commit shows them all in one frame; that frame's gap is
 * reported, not checked: the renderer uploads and draws 4,000 new images
 * in it (about 0.2 ms each on lavapipe, outside the main thread but
 * holding the next frame). With VITRAIL_SUBSURFACE_MEASURE=N (one parent
 * of N children, over the limits unless vitrail is built with others)
 * it only reports.
 */
START_TEST(test_scene_subsurfaces_linear) {
	struct harness *harness = harness_create("subsurfaces");
	struct bystander bystander = { 0 };
	struct harness_vitrail *vitrail = start_with_bystander(harness, &bystander);
	const char *measure = getenv("VITRAIL_SUBSURFACE_MEASURE");
	int parents = SUB_PARENTS, children = SUB_CHILDREN;
	if (measure != NULL) {
		parents = 1;
		children = atoi(measure);
	}

	struct flood flood;
	flood_init(&flood, vitrail, "subsurfaces");
	bystander_measure(&bystander);
	int64_t cpu = main_thread_cpu_ms(vitrail->proc);
	int64_t start = harness_now_ms();
	bool ok = flood_run(&flood, parents, children);
	int64_t client_ms = harness_now_ms() - start;
	cpu = main_thread_cpu_ms(vitrail->proc) - cpu;
	int frames;
	int64_t gap = bystander_max_gap(&bystander, &frames);
	fprintf(stderr,
			"subsurfaces: %d x %d made and committed: vitrail's "
			"main thread %" PRId64 " ms, client done in %" PRId64 " ms, "
			"bystander: %d frames, longest gap %" PRId64 " ms\n",
			parents, children, cpu, client_ms, frames, gap);
	ck_assert_msg(ok, "the flooding client got a protocol error");
	if (measure == NULL) {
		ck_assert_msg(gap <= harness_scaled_ms(SUB_GAP_MS),
				"the "
				"bystander waited %" PRId64 " ms for a frame callback",
				gap);
	}

	bystander_measure(&bystander);
	cpu = main_thread_cpu_ms(vitrail->proc);
	wl_surface_commit(flood.app.surface);
	flood_sync(&flood);
	harness_settle(vitrail->conn);
	cpu = main_thread_cpu_ms(vitrail->proc) - cpu;
	gap = bystander_max_gap(&bystander, &frames);
	fprintf(stderr,
			"subsurfaces: shown: main thread %" PRId64 " ms, "
			"longest gap %" PRId64 " ms (not checked)\n",
			cpu, gap);

	bystander_measure(&bystander);
	cpu = main_thread_cpu_ms(vitrail->proc);
	flood_finish(&flood);
	harness_settle(vitrail->conn);
	cpu = main_thread_cpu_ms(vitrail->proc) - cpu;
	gap = bystander_max_gap(&bystander, &frames);
	fprintf(stderr,
			"subsurfaces: destroyed: main thread %" PRId64 " ms, "
			"longest gap %" PRId64 " ms (the redraw of what they covered: "
			"not checked)\n",
			cpu, gap);
	if (measure == NULL) {
		/* the main thread's share is what must stay linear; the gap
		 * also waits for the renderer (over a second under TSan) */
		ck_assert_msg(cpu <= harness_scaled_ms(SUB_GAP_MS),
				"destroying "
				"the subsurfaces took %" PRId64 " ms of vitrail's main thread",
				cpu);
	}

	bystander_stop(&bystander);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* One client over a limit: parents subsurfaces of the window with
 * children each, one more than allowed; the protocol error it got goes
 * to *code and message (the interface must be wl_subcompositor). */
static void flood_over(struct harness_vitrail *vitrail, int parents,
		int children, uint32_t *code, char *message, size_t size) {
	struct flood flood;
	flood_init(&flood, vitrail, "over-limit");
	error_log[0] = '\0';
	wl_log_set_handler_client(log_handler);
	ck_assert_msg(!flood_run(&flood, parents, children),
			"%d x %d subsurfaces: no protocol error", parents, children);
	const struct wl_interface *interface = NULL;
	*code = wl_display_get_protocol_error(flood.app.display, &interface, NULL);
	ck_assert_ptr_eq(interface, &wl_subcompositor_interface);
	// libwayland logs "<object>: error <code>: <message>\n"
	const char *text = strstr(error_log, "error ");
	text = text != NULL ? strstr(text, ": ") : NULL;
	snprintf(message, size, "%s", text != NULL ? text + 2 : error_log);
	message[strcspn(message, "\n")] = '\0';
	flood_finish(&flood);
}

/*
 * One subsurface over a limit is a wl_subcompositor.bad_surface error
 * whose message starts with the count; only that client goes, the
 * bystander keeps drawing, and vitrail's memory goes back to within 10%
 * once the client is gone.
 */
START_TEST(test_scene_subsurfaces_limit) {
	struct harness *harness = harness_create("subsurfaces-limit");
	struct bystander bystander = { 0 };
	struct harness_vitrail *vitrail = start_with_bystander(harness, &bystander);
	long before = vm_rss_kib(vitrail->proc);

	uint32_t code;
	char message[256];
	// The window's one parent, then SUB_PER_PARENT + 1 children of it.
	flood_over(vitrail, 1, SUB_PER_PARENT + 1, &code, message, sizeof(message));
	fprintf(stderr, "subsurfaces-limit: per parent: %u \"%s\"\n", code,
			message);
	ck_assert_uint_eq(code, WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE);
	ck_assert_msg(strncmp(message, "1025 subsurfaces of wl_surface@", 31) ==
							0 &&
					strstr(message, "over the limit 1024 per parent") != NULL,
			"message: %s", message);
	ck_assert_uint_lt(strlen(message), ERROR_MESSAGE_MAX);

	// 4 parents of 1023 children: 4,096; the next parent's first child
	// is one too many for the client.
	flood_over(vitrail, 5, SUB_PER_CLIENT / 4 - 1, &code, message,
			sizeof(message));
	fprintf(stderr, "subsurfaces-limit: per client: %u \"%s\"\n", code,
			message);
	ck_assert_uint_eq(code, WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE);
	ck_assert_msg(strcmp(message,
						  "4097 subsurfaces, over the limit 4096 "
						  "per client") == 0,
			"message: %s", message);

	harness_assert_alive(vitrail->proc);
	harness_settle(vitrail->conn);
	int frames;
	bystander_max_gap(&bystander, &frames);
	wait_bystander_frames(&bystander, frames + 30);
	harness_settle(vitrail->conn);
	long after = vm_rss_kib(vitrail->proc);
	fprintf(stderr,
			"subsurfaces-limit: VmRSS before %ld KiB, after the "
			"clients left %ld KiB (%+.1f%%)\n",
			before, after, 100.0 * (after - before) / before);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	// The sanitizers keep freed memory (quarantine, their allocators).
	fprintf(stderr,
			"subsurfaces-limit: VmRSS not checked under "
			"a sanitizer\n");
#else
	ck_assert_msg(after <= before + before / 10,
			"vitrail kept %ld KiB "
			"after the clients left (%ld before)",
			after, before);
#endif

	bystander_stop(&bystander);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- runner ------------------------------------------------------------- */

int main(int argc, char *argv[]) {
	Suite *suite = suite_create("scene");
	harness_add_case(suite, "examples", test_scene_examples_match_reference,
			240);
	harness_add_case(suite, "atomic", test_scene_atomic_commit, 120);
	harness_add_case(suite, "errors",
			test_scene_errors_disconnect_only_the_offender, 300);
	harness_add_case(suite, "animation",
			test_scene_animation_follows_display_time, 120);
	harness_add_case(suite, "dirty", test_scene_dirty_only_what_changed, 120);
	harness_add_case(suite, "rounded_animation",
			test_scene_rounded_clip_animation, 120);
	harness_add_case(suite, "dvsync", test_scene_dvsync_absorbs_long_frames,
			120);
	harness_add_case(suite, "dvsync_per_output",
			test_scene_dvsync_per_output_limit, 120);
	harness_add_case(suite, "amplification",
			test_scene_shared_list_amplification, 120);
	harness_add_case(suite, "subsurfaces", test_scene_subsurfaces_linear, 240);
	harness_add_case(suite, "subsurfaces_limit", test_scene_subsurfaces_limit,
			240);
	return harness_run_suite(suite, argc, argv);
}
