/*
 * Hostile clients: malformed and extreme requests on the globals vitrail
 * offers, against a real vitrail started headless by the integration
 * harness (one output, 640x480 at 60 Hz).
 *
 * Every case runs its offender in a forked child (a client killed by a
 * protocol error leaves proxies nobody can free; the child ends with
 * _exit) while this process drives a bystander probe: an xdg_toplevel
 * that redraws at every frame callback. For each case:
 *
 * - the offender gets the expected protocol error, or is cut off, or (for
 *   requests that are legal, only many) finishes and disconnects itself;
 * - vitrail stays alive and answers the test protocol, and only the
 *   probe's window is left;
 * - the probe keeps receiving frame callbacks: no gap between two longer
 *   than GAP_MAX_MS (times $VITRAIL_TIMEOUT_MULTIPLIER), measured from
 *   the offender's start until 300 ms after it is gone (a case whose
 *   legal work is that heavy names its own bound, with why);
 * - vitrail's VmRSS (/proc/<pid>/status), once the offender is gone and
 *   the tree settled, is within RSS_SLACK of what it was before.
 *
 * One TCase per case (one meson test each, suite `hostile`); run one with
 * `test-hostile <tcase>`. shm_large_content is a test of its own in the
 * same suite: a large buffer's pixels on screen, while and after vitrail
 * copies it (see there). Environment as for test-integration, plus
 * VITRAIL_SCENE_CLIENTS for the soak's example clients.
 *
 * The soak (TCase `soak`, suite `soak`) is here too: clients connecting
 * and disconnecting for $VITRAIL_SOAK_SECONDS (default 60), see below.
 */
#define _GNU_SOURCE // memfd_create, asprintf
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vitrail/renderer.h>
#include <wayland-client.h>
#include "harness.h"
#include "scene-client.h"
#include "ext-session-lock-v1-client-protocol.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "vitrail-scroll-v1-client-protocol.h"
#include "wlr-screencopy-unstable-v1-client-protocol.h"
#include "xdg-activation-v1-client-protocol.h"
#ifdef VITRAIL_TEST_XCB
#include <xcb/xcb.h>
#endif

/* The longest the probe may wait for a frame callback (at 60 Hz one comes
 * every 16.7 ms: 100 ms is six periods missed in a row). */
#define GAP_MAX_MS 100
/* vitrail's RSS after an offender, relative to before it. */
#define RSS_SLACK 0.10
/* The probe's window. */
#define PROBE_SIZE 64

/* ---- helpers ------------------------------------------------------------ */

static char *client_path(const char *name) {
	const char *dir = getenv("VITRAIL_SCENE_CLIENTS");
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/%s", dir != NULL ? dir : ".", name) > 0);
	return path;
}

/* VmRSS of pid in KiB. */
static long rss_kib(pid_t pid) {
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	char line[256];
	long kib = -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) {
			break;
		}
	}
	fclose(f);
	ck_assert_msg(kib > 0, "no VmRSS in %s", path);
	return kib;
}

/* ---- the bystander probe ------------------------------------------------ */

struct probe {
	struct sc_app app;
	int64_t last_ms; // when the last frame callback came; 0: not yet
	int64_t max_gap_ms; // since probe_reset
	int64_t max_gap_at_ms; // when that gap ended
	uint32_t frames; // since probe_reset
	uint32_t color;
	struct wl_callback *callback; // the frame callback asked for
};

static void probe_draw(struct probe *probe);

static void probe_frame_done(void *data, struct wl_callback *callback,
		uint32_t time) {
	struct probe *probe = data;
	wl_callback_destroy(callback);
	probe->callback = NULL;
	int64_t now = harness_now_ms();
	if (probe->last_ms != 0 && now - probe->last_ms > probe->max_gap_ms) {
		probe->max_gap_ms = now - probe->last_ms;
		probe->max_gap_at_ms = now;
	}
	probe->last_ms = now;
	probe->frames++;
	probe_draw(probe);
}

static const struct wl_callback_listener probe_frame_listener = {
	.done = probe_frame_done,
};

/* A new colour every frame, so that every frame has damage to render. */
static void probe_draw(struct probe *probe) {
	struct sc_app *app = &probe->app;
	probe->color = probe->color * 1103515245u + 12345u;
	uint32_t argb = 0xff000000 | (probe->color >> 8);
	for (int32_t i = 0; i < app->buffer->width * app->buffer->height; i++) {
		app->buffer->pixels[i] = argb;
	}
	probe->callback = wl_surface_frame(app->surface);
	wl_callback_add_listener(probe->callback, &probe_frame_listener, probe);
	wl_surface_attach(app->surface, app->buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(app->surface, 0, 0, INT32_MAX, INT32_MAX);
	wl_surface_commit(app->surface);
}

static void probe_start(struct probe *probe, struct harness_vitrail *vitrail) {
	*probe = (struct probe){ .color = 1 };
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	ck_assert_msg(sc_app_init(&probe->app, "probe"),
			"cannot connect the probe to %s", vitrail->socket);
	ck_assert(sc_app_create_window(&probe->app, "probe", "probe", PROBE_SIZE,
			PROBE_SIZE, 0xff808080));
	probe_draw(probe);
	ck_assert_int_ge(wl_display_roundtrip(probe->app.display), 0);
}

static void probe_finish(struct probe *probe) {
	if (probe->callback != NULL) {
		wl_callback_destroy(probe->callback);
		probe->callback = NULL;
	}
	sc_app_finish(&probe->app);
}

/* Forget the gaps so far (the test process itself was busy elsewhere). */
static void probe_reset(struct probe *probe) {
	probe->last_ms = harness_now_ms();
	probe->max_gap_ms = 0;
	probe->max_gap_at_ms = 0;
	probe->frames = 0;
}

/* Dispatch the probe's events for ms (up to 10 ms more). */
static void probe_pump(struct probe *probe, int ms) {
	struct wl_display *display = probe->app.display;
	int64_t deadline = harness_now_ms() + ms;
	do {
		ck_assert_msg(wl_display_flush(display) >= 0 || errno == EAGAIN,
				"probe: flush: %s", strerror(errno));
		while (wl_display_prepare_read(display) != 0) {
			ck_assert_int_ge(wl_display_dispatch_pending(display), 0);
		}
		struct pollfd pfd = {
			.fd = wl_display_get_fd(display),
			.events = POLLIN,
		};
		if (poll(&pfd, 1, 5) > 0) {
			ck_assert_msg(wl_display_read_events(display) >= 0,
					"the probe lost its connection: %s",
					strerror(wl_display_get_error(display)));
		} else {
			wl_display_cancel_read(display);
		}
		ck_assert_int_ge(wl_display_dispatch_pending(display), 0);
	} while (harness_now_ms() < deadline);
}

/* Fail unless the probe saw frames at the refresh rate since probe_reset:
 * no gap over GAP_MAX_MS (scaled), the one still open included. */
static void probe_check_bound(struct probe *probe, const char *what,
		int64_t bound_ms) {
	int64_t open_gap = harness_now_ms() - probe->last_ms;
	int64_t gap = open_gap > probe->max_gap_ms ? open_gap : probe->max_gap_ms;
	int64_t max = harness_scaled_ms(bound_ms);
	printf("%s: probe frames %u, longest gap %" PRId64 " ms (bound %" PRId64
		   " ms)%s\n",
			what, probe->frames, gap, max,
			gap == open_gap ? " (still open)" : "");
	ck_assert_msg(gap <= max,
			"%s: the probe waited %" PRId64 " ms for a "
			"frame callback (%u frames; bound %" PRId64 " ms)",
			what, gap, probe->frames, max);
}

static void probe_check(struct probe *probe, const char *what) {
	probe_check_bound(probe, what, GAP_MAX_MS);
}

/* ---- offenders ---------------------------------------------------------- */

/* How an offender's connection ended. */
enum outcome {
	OUTCOME_CLEAN, // it finished and disconnected itself
	OUTCOME_PROTOCOL_ERROR, // vitrail sent a protocol error
	OUTCOME_CUT_OFF, // vitrail closed the connection without one
};

static const char *const outcome_names[] = {
	"disconnected itself",
	"protocol error",
	"cut off",
};

/* What the child reports through its pipe. */
struct report {
	enum outcome outcome;
	char interface[64];
	uint32_t code;
	char note[256];
};

static int report_fd = -1;

static void child_report(const struct report *report) {
	if (write(report_fd, report, sizeof(*report)) != sizeof(*report)) {
		_exit(3);
	}
	_exit(0);
}

static void child_fail(const char *fmt, ...)
		__attribute__((format(printf, 1, 2), noreturn));

static void child_fail(const char *fmt, ...) {
	struct report report = { .outcome = OUTCOME_CLEAN };
	va_list args;
	va_start(args, fmt);
	vsnprintf(report.note, sizeof(report.note), fmt, args);
	va_end(args);
	fprintf(stderr, "offender: %s\n", report.note);
	if (write(report_fd, &report, sizeof(report)) != sizeof(report)) {
		_exit(3);
	}
	_exit(2);
}

/* Flush everything, waiting while the socket is full; false once the
 * connection failed.
 *
 * Offenders flush at least every CHILD_FLUSH_BYTES of requests: libwayland
 * 1.21's client keeps requests in a 4 KiB buffer, and a request that does
 * not fit while the socket is full (vitrail still busy with the earlier
 * ones) is a fatal EAGAIN on the display, after which every flush fails
 * with EAGAIN too. That is a client-side failure, not vitrail's. */
#define CHILD_FLUSH_BYTES 2048

static bool child_flush(struct wl_display *display) {
	while (wl_display_flush(display) < 0) {
		if (errno != EAGAIN) {
			return false;
		}
		if (wl_display_get_error(display) != 0) {
			child_fail("the offender's own request buffer overflowed "
					   "(libwayland: fatal %s)",
					strerror(wl_display_get_error(display)));
		}
		struct pollfd pfd = {
			.fd = wl_display_get_fd(display),
			.events = POLLOUT,
		};
		poll(&pfd, 1, 100);
	}
	return true;
}

/* How a connection stands: a roundtrip tells. */
static struct report child_outcome(struct wl_display *display) {
	struct report report = { .outcome = OUTCOME_CLEAN };
	if (!child_flush(display) || wl_display_roundtrip(display) < 0) {
		int err = wl_display_get_error(display);
		if (err == EPROTO) {
			const struct wl_interface *interface = NULL;
			uint32_t id;
			report.outcome = OUTCOME_PROTOCOL_ERROR;
			report.code =
					wl_display_get_protocol_error(display, &interface, &id);
			snprintf(report.interface, sizeof(report.interface), "%s",
					interface != NULL ? interface->name : "?");
		} else {
			report.outcome = OUTCOME_CUT_OFF;
			snprintf(report.note, sizeof(report.note), "%s", strerror(err));
		}
	}
	return report;
}

/* End the child with how its connection stands. */
static void child_finish(struct sc_app *app) {
	struct report report = child_outcome(app->display);
	child_report(&report);
}

static void child_connect(struct sc_app *app, struct harness_vitrail *vitrail) {
	*app = (struct sc_app){ 0 };
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	if (!sc_app_init(app, "hostile")) {
		child_fail("cannot connect");
	}
}

/* A memfd of size bytes (sparse). */
static int child_memfd(size_t size) {
	int fd = memfd_create("hostile", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
		child_fail("cannot make a memfd of %zu bytes", size);
	}
	return fd;
}

/* What a case expects of the offender. */
struct expect {
	enum outcome outcome;
	const char *interface; // for OUTCOME_PROTOCOL_ERROR
	uint32_t code;
	bool or_cut_off; // being cut off is fine too
};

struct hostile_case {
	const char *name;
	void (*run)(struct harness_vitrail *vitrail); // in the child
	struct expect expect;
	int timeout_ms; // for the offender, scaled
	/* the probe's longest gap while the offender runs (0: GAP_MAX_MS),
	 * scaled; before and after it, GAP_MAX_MS */
	int gap_ms;
	/* Xwayland may die under this offender: wlroots 0.15's window
	 * manager loops over X events with blocking round trips, Xwayland's
	 * socket to vitrail fills and libwayland aborts it (README,
	 * Limitations; issue #24, blocked upstream). Whether it does depends
	 * on timing (it survives some runs, more often in the sanitizer
	 * builds), so the case asserts vitrail's part either way: vitrail and
	 * its other clients carry on, and its memory comes back. While it
	 * runs, the same loop holds vitrail's main thread (the stall of the
	 * issue: 170-600 ms gaps of the probe): bounded by X_STALL_MS, a
	 * freeze, not smoothness, until wlroots bounds its loop. */
	bool x_server_may_die;
};

#define X_STALL_MS 10000

/* Run the offender in a child while pumping the probe; returns the
 * child's report. */
static struct report run_offender(struct harness_vitrail *vitrail,
		struct probe *probe, const struct hostile_case *c) {
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		report_fd = fds[1];
		c->run(vitrail);
		child_fail("the offender returned");
	}
	close(fds[1]);
	int64_t deadline = harness_now_ms() + harness_scaled_ms(c->timeout_ms);
	int status = 0;
	for (;;) {
		probe_pump(probe, 10);
		pid_t ret = waitpid(pid, &status, WNOHANG);
		ck_assert_int_ge(ret, 0);
		if (ret == pid) {
			break;
		}
		if (harness_now_ms() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			ck_abort_msg("%s: the offender did not finish in %d ms", c->name,
					c->timeout_ms);
		}
		harness_assert_alive(vitrail->proc);
	}
	struct report report = { 0 };
	ssize_t n = read(fds[0], &report, sizeof(report));
	close(fds[0]);
	static const char x_died[] = "the X connection failed";
	if (c->x_server_may_die && n == sizeof(report) &&
			strncmp(report.note, x_died, sizeof(x_died) - 1) == 0) {
		printf("%s: KNOWN UPSTREAM FAILURE: %s: Xwayland died (wlroots "
			   "0.15's window manager, issue #24); vitrail must carry on\n",
				c->name, report.note);
		report.note[0] = '\0';
		return report;
	}
	ck_assert_msg(n == sizeof(report) && WIFEXITED(status) &&
					WEXITSTATUS(status) == 0,
			"%s: the offender failed: %s (status "
			"0x%x)",
			c->name, n == sizeof(report) ? report.note : "no report", status);
	return report;
}

static void check_outcome(const struct hostile_case *c,
		const struct report *report) {
	printf("%s: offender %s %s %u %s\n", c->name,
			outcome_names[report->outcome], report->interface, report->code,
			report->note);
	const struct expect *e = &c->expect;
	if (e->or_cut_off && report->outcome == OUTCOME_CUT_OFF) {
		return;
	}
	ck_assert_msg(report->outcome == e->outcome,
			"%s: the offender %s (%s "
			"%u %s), expected: %s",
			c->name, outcome_names[report->outcome], report->interface,
			report->code, report->note, outcome_names[e->outcome]);
	if (e->outcome == OUTCOME_PROTOCOL_ERROR) {
		ck_assert_msg(strcmp(report->interface, e->interface) == 0 &&
						report->code == e->code,
				"%s: error %u on %s, expected %u on "
				"%s",
				c->name, report->code, report->interface, e->code,
				e->interface);
	}
}

/* ---- the cases (each runs in the child) --------------------------------- */

/* A wl_shm buffer of width x height in a fresh pool of exactly its size
 * (kept, so that an error on it names wl_shm_pool); the pool's fd goes to
 * *fd_out when not NULL. */
static struct wl_buffer *child_buffer(struct sc_app *app, int32_t width,
		int32_t height, int32_t stride, uint32_t format, int *fd_out) {
	size_t size = (size_t)stride * (size_t)height;
	int fd = child_memfd(size);
	struct wl_shm_pool *pool = wl_shm_create_pool(app->shm, fd, (int32_t)size);
	struct wl_buffer *buffer =
			wl_shm_pool_create_buffer(pool, 0, width, height, stride, format);
	if (fd_out != NULL) {
		*fd_out = fd;
	} else {
		close(fd);
	}
	return buffer;
}

static void child_show(struct sc_app *app, struct wl_surface *surface,
		struct wl_buffer *buffer) {
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, INT32_MAX, INT32_MAX);
	wl_surface_commit(surface);
}

static void run_shm_stride(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	// libwayland checks only stride >= width: one byte per pixel passes
	// there; vitrail refuses it at create_buffer
	child_show(&app, wl_compositor_create_surface(app.compositor),
			child_buffer(&app, 1024, 64, 1024, WL_SHM_FORMAT_ARGB8888, NULL));
	child_finish(&app);
}

static void run_shm_truncated(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	if (!sc_app_create_window(&app, "truncated", "truncated", 256, 256, 0)) {
		child_fail("no window");
	}
	int fd;
	struct wl_buffer *buffer =
			child_buffer(&app, 256, 256, 1024, WL_SHM_FORMAT_ARGB8888, &fd);
	if (wl_display_roundtrip(app.display) < 0 || ftruncate(fd, 0) != 0) {
		child_fail("cannot create and truncate the pool");
	}
	// vitrail reads the pool at commit: past its end now (SIGBUS)
	child_show(&app, app.surface, buffer);
	child_finish(&app);
}

static void run_shm_format(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	child_show(&app, wl_compositor_create_surface(app.compositor),
			child_buffer(&app, 64, 64, 256, 0x20202020, NULL));
	child_finish(&app);
}

static void run_shm_huge(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	// A pool of INT32_MAX bytes (sparse) and a buffer whose rows run
	// past it: libwayland's checks on stride * height.
	int fd = child_memfd(INT32_MAX);
	struct wl_shm_pool *pool = wl_shm_create_pool(app.shm, fd, INT32_MAX);
	close(fd);
	wl_shm_pool_create_buffer(pool, 0, 1 << 20, 1 << 20, 1 << 22,
			WL_SHM_FORMAT_ARGB8888);
	child_finish(&app);
}

/* A virtual keyboard (any desktop client may make one) whose keymap is
 * `file` bytes of 'x' (no NUL) announced as `size` bytes: wlroots 0.15
 * maps `size` bytes and reads them as a string. */
static struct zwp_virtual_keyboard_manager_v1 *vk_manager;

static void vk_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	if (strcmp(interface, zwp_virtual_keyboard_manager_v1_interface.name) ==
			0) {
		vk_manager = wl_registry_bind(registry, name,
				&zwp_virtual_keyboard_manager_v1_interface, 1);
	}
}

static void vk_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener vk_registry_listener = {
	.global = vk_global,
	.global_remove = vk_global_remove,
};

static void run_keymap(struct harness_vitrail *vitrail, size_t file,
		uint32_t size) {
	struct sc_app app;
	child_connect(&app, vitrail);
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &vk_registry_listener, NULL);
	if (wl_display_roundtrip(app.display) < 0 || vk_manager == NULL ||
			app.seat == NULL) {
		child_fail("no zwp_virtual_keyboard_manager_v1 or wl_seat");
	}
	struct zwp_virtual_keyboard_v1 *keyboard =
			zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(vk_manager,
					app.seat);
	int fd = child_memfd(file);
	char *text = malloc(file);
	memset(text, 'x', file);
	if (pwrite(fd, text, file, 0) != (ssize_t)file) {
		child_fail("cannot write the keymap file");
	}
	free(text);
	zwp_virtual_keyboard_v1_keymap(keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1,
			fd, size);
	close(fd);
	child_finish(&app);
}

/* the size runs a page past the file's end: SIGBUS in wlroots */
static void run_keymap_past_end(struct harness_vitrail *vitrail) {
	run_keymap(vitrail, 4096, 8192);
}

/* exactly the file, a page with no NUL: read past the mapping */
static void run_keymap_no_nul(struct harness_vitrail *vitrail) {
	run_keymap(vitrail, 4096, 4096);
}

/* 100,000 wl_data_device.start_drag with no source and a serial of no
 * grab: each is refused; wlroots 0.15 kept every such drag (about 290
 * bytes) for the rest of the session. */
static struct wl_data_device_manager *dnd_manager;

static void dnd_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	if (strcmp(interface, wl_data_device_manager_interface.name) == 0) {
		dnd_manager = wl_registry_bind(registry, name,
				&wl_data_device_manager_interface, 3);
	}
}

static const struct wl_registry_listener dnd_registry_listener = {
	.global = dnd_global,
	.global_remove = vk_global_remove,
};

static void run_drag_no_source(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &dnd_registry_listener, NULL);
	if (wl_display_roundtrip(app.display) < 0 || dnd_manager == NULL ||
			app.seat == NULL) {
		child_fail("no wl_data_device_manager or wl_seat");
	}
	struct wl_data_device *device =
			wl_data_device_manager_get_data_device(dnd_manager, app.seat);
	struct wl_surface *origin = wl_compositor_create_surface(app.compositor);
	for (int i = 0; i < 100000; i++) {
		wl_data_device_start_drag(device, NULL, origin, NULL, 12345);
		if (i % 64 == 63 && !child_flush(app.display)) {
			break;
		}
	}
	child_finish(&app);
}

/* 200,000 wp_presentation.feedback requests for one surface before its
 * commit: wlroots 0.15 keeps every one for that commit (about 200 bytes
 * each, +404 MB for 2 million, not given back); past 1,024 the client is
 * cut off with an implementation error. */
static struct wp_presentation *feedback_presentation;
static struct xdg_activation_v1 *token_activation;

static void limits_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	if (strcmp(interface, wp_presentation_interface.name) == 0) {
		feedback_presentation =
				wl_registry_bind(registry, name, &wp_presentation_interface, 1);
	} else if (strcmp(interface, xdg_activation_v1_interface.name) == 0) {
		token_activation = wl_registry_bind(registry, name,
				&xdg_activation_v1_interface, 1);
	}
}

static const struct wl_registry_listener limits_registry_listener = {
	.global = limits_global,
	.global_remove = vk_global_remove,
};

static void run_feedback_flood(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &limits_registry_listener, NULL);
	if (wl_display_roundtrip(app.display) < 0 ||
			feedback_presentation == NULL) {
		child_fail("no wp_presentation");
	}
	struct wl_surface *surface = wl_compositor_create_surface(app.compositor);
	for (int i = 0; i < 200000; i++) {
		wp_presentation_feedback(feedback_presentation, surface);
		/* a round trip every 100 (1.6 KB, one write with its sync):
		 * an error is read before a write could meet the closed
		 * connection */
		if (i % 100 == 99 && wl_display_roundtrip(app.display) < 0) {
			break;
		}
	}
	wl_surface_commit(surface);
	child_finish(&app);
}

/* 100,000 xdg-activation tokens committed and never used: wlroots 0.15
 * keeps each (about 400 bytes) for 30 s after its client left; vitrail
 * keeps the newest 256. */
static void run_activation_tokens(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &limits_registry_listener, NULL);
	if (wl_display_roundtrip(app.display) < 0 || token_activation == NULL) {
		child_fail("no xdg_activation_v1");
	}
	for (int i = 0; i < 100000; i++) {
		struct xdg_activation_token_v1 *token =
				xdg_activation_v1_get_activation_token(token_activation);
		xdg_activation_token_v1_set_app_id(token,
				"a-rather-long-application-id-for-a-token-kept-in-vitrail");
		xdg_activation_token_v1_commit(token);
		xdg_activation_token_v1_destroy(token);
		/* 32 tokens' requests fill 3.2 KB; their done events are read */
		if (i % 32 == 31 && wl_display_roundtrip(app.display) < 0) {
			break;
		}
	}
	child_finish(&app);
}

/* 60 vitrail_scroll_region_v1.attach_buffer of one 4096 x 7000 frame
 * (112 MiB, sparse zeros) before one commit, version 2: vitrail copied
 * each at once on its main thread (a bystander waited 337 ms for one,
 * 1,206 ms for such a burst); it now copies the frame that stays in
 * bands and releases the buffer once done (each replaced one at once). */
static struct vitrail_scroll_manager_v1 *scroll_manager;

static void scroll_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	if (strcmp(interface, vitrail_scroll_manager_v1_interface.name) == 0 &&
			version >= 2) {
		scroll_manager = wl_registry_bind(registry, name,
				&vitrail_scroll_manager_v1_interface, 2);
	}
}

static const struct wl_registry_listener scroll_registry_listener = {
	.global = scroll_global,
	.global_remove = vk_global_remove,
};

static void scroll_frame_needed(void *data,
		struct vitrail_scroll_region_v1 *region, int32_t x, int32_t y,
		int32_t width, int32_t height) {
}

static void scroll_position(void *data, struct vitrail_scroll_region_v1 *region,
		int32_t x, int32_t y, uint32_t display_hi, uint32_t display_lo) {
}

static const struct vitrail_scroll_region_v1_listener scroll_region_listener = {
	.frame_needed = scroll_frame_needed,
	.position = scroll_position,
};

static void count_release(void *data, struct wl_buffer *buffer) {
	(*(int *)data)++;
}

static const struct wl_buffer_listener count_release_listener = {
	.release = count_release,
};

static void run_scroll_large_frame(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &scroll_registry_listener, NULL);
	if (wl_display_roundtrip(app.display) < 0 || scroll_manager == NULL) {
		child_fail("no vitrail_scroll_manager_v1 version 2");
	}
	if (!sc_app_create_window(&app, "scroll-large", "scroll-large", 64, 64,
				0xff808080)) {
		child_fail("no window");
	}
	struct vitrail_scroll_region_v1 *region =
			vitrail_scroll_manager_v1_get_scroll_region(scroll_manager,
					app.surface, VITRAIL_SCROLL_REGION_V1_AXIS_VERTICAL, 0, 0,
					4096, 2800);
	vitrail_scroll_region_v1_add_listener(region, &scroll_region_listener,
			NULL);
	struct wl_buffer *frame = child_buffer(&app, 4096, 7000, 4096 * 4,
			WL_SHM_FORMAT_XRGB8888, NULL);
	int releases = 0;
	wl_buffer_add_listener(frame, &count_release_listener, &releases);
	for (int i = 0; i < 60; i++) {
		vitrail_scroll_region_v1_attach_buffer(region, frame, 0, 0, 4096, 7000);
	}
	wl_surface_commit(app.surface);
	/* every attach but the last is released when the next replaces it,
	 * the last once copied */
	int64_t deadline = harness_now_ms() + 20000;
	while (releases < 60 && harness_now_ms() < deadline) {
		if (!child_flush(app.display)) {
			break;
		}
		struct pollfd pfd = { .fd = wl_display_get_fd(app.display),
			.events = POLLIN };
		if (poll(&pfd, 1, 100) > 0 && wl_display_dispatch(app.display) < 0) {
			break;
		}
	}
	if (releases != 60) {
		child_fail("%d of 60 attaches released", releases);
	}
	child_finish(&app);
}

static void run_shm_large(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	// The largest buffer that libwayland lets through in one pool and
	// vitrail renders: 8192 x 8192 (256 MiB, sparse zeros).
	if (!sc_app_create_window(&app, "large", "large", 64, 64, 0)) {
		child_fail("no window");
	}
	child_show(&app, app.surface,
			child_buffer(&app, 8192, 8192, 8192 * 4, WL_SHM_FORMAT_ARGB8888,
					NULL));
	if (wl_display_roundtrip(app.display) < 0) {
		child_finish(&app);
	}
	harness_sleep_ms(500);
	child_finish(&app);
}

/* A client dmabuf of 8192 x 8192 (256 MiB, sparse zeros; a memfd sealed
 * against shrinking, vitrail announcing /dev/null as the device, see
 * hostile_run): vitrail copied it at once at commit, holding the main
 * thread for the whole 256 MiB; it is copied in bands now, as a wl_shm
 * buffer of that size. */
static struct zwp_linux_dmabuf_v1 *hostile_dmabuf;

static void dmabuf_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 &&
			version >= 3) {
		hostile_dmabuf = wl_registry_bind(registry, name,
				&zwp_linux_dmabuf_v1_interface, 3);
	}
}

static const struct wl_registry_listener dmabuf_registry_listener = {
	.global = dmabuf_global,
	.global_remove = vk_global_remove,
};

static void run_dmabuf_large(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	if (!sc_app_create_window(&app, "large", "large", 64, 64, 0)) {
		child_fail("no window");
	}
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &dmabuf_registry_listener, NULL);
	if (wl_display_roundtrip(app.display) < 0 || hostile_dmabuf == NULL) {
		child_fail("no zwp_linux_dmabuf_v1");
	}
	const int32_t side = 8192;
	int fd = memfd_create("hostile-dmabuf", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)side * side * 4) != 0 ||
			fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
		child_fail("cannot make a sealed memfd");
	}
	struct zwp_linux_buffer_params_v1 *params =
			zwp_linux_dmabuf_v1_create_params(hostile_dmabuf);
	zwp_linux_buffer_params_v1_add(params, fd, 0, 0, side * 4, 0, 0);
	close(fd);
	const uint32_t xrgb8888 = 0x34325258; /* DRM_FORMAT_XRGB8888, 'XR24' */
	struct wl_buffer *buffer = zwp_linux_buffer_params_v1_create_immed(params,
			side, side, xrgb8888, 0);
	child_show(&app, app.surface, buffer);
	if (wl_display_roundtrip(app.display) < 0) {
		child_finish(&app);
	}
	harness_sleep_ms(500);
	child_finish(&app);
}

static void child_handle_release(void *data, struct wl_buffer *buffer) {
	*(bool *)data = true;
}

static const struct wl_buffer_listener child_release_listener = {
	.release = child_handle_release,
};

/* The offender's window shows an 8192 x 8192 buffer (sparse zeros) that
 * vitrail copies over many event-loop turns; returns the buffer, its
 * pool's fd in *fd, and whether it was released so far in *released.
 * Fails unless vitrail still holds it after a roundtrip: a copy of 256
 * MiB takes far longer. */
static struct wl_buffer *child_large_in_copy(struct sc_app *app,
		struct harness_vitrail *vitrail, int *fd, bool *released) {
	child_connect(app, vitrail);
	if (!sc_app_create_window(app, "large", "large", 64, 64, 0)) {
		child_fail("no window");
	}
	struct wl_buffer *buffer =
			child_buffer(app, 8192, 8192, 8192 * 4, WL_SHM_FORMAT_ARGB8888, fd);
	*released = false;
	wl_buffer_add_listener(buffer, &child_release_listener, released);
	child_show(app, app->surface, buffer);
	if (wl_display_roundtrip(app->display) < 0) {
		child_finish(app);
	}
	if (*released) {
		child_fail("vitrail released the 8192x8192 buffer within a "
				   "roundtrip of its commit: it cannot have copied it");
	}
	harness_sleep_ms(20); // a few bands
	return buffer;
}

static void run_shm_large_disconnect(struct harness_vitrail *vitrail) {
	struct sc_app app;
	int fd;
	bool released;
	child_large_in_copy(&app, vitrail, &fd, &released);
	struct report report = { .outcome = OUTCOME_CLEAN,
		.note = "disconnected while vitrail copied its buffer" };
	child_report(&report);
}

static void run_shm_large_truncated(struct harness_vitrail *vitrail) {
	struct sc_app app;
	int fd;
	bool released;
	child_large_in_copy(&app, vitrail, &fd, &released);
	// vitrail's next band reads the pool past its end now (SIGBUS): its
	// guard must catch it
	if (ftruncate(fd, 0) != 0) {
		child_fail("ftruncate: %s", strerror(errno));
	}
	harness_sleep_ms(100); // the error comes with the next band
	child_finish(&app);
}

static void run_shm_large_destroyed(struct harness_vitrail *vitrail) {
	struct sc_app app;
	int fd;
	bool released;
	struct wl_buffer *buffer =
			child_large_in_copy(&app, vitrail, &fd, &released);
	// Destroyed before vitrail finished with it: vitrail must stop
	// reading the pool (nothing would guard the reads now), so that
	// truncating it afterwards is harmless. The client stays.
	wl_buffer_destroy(buffer);
	if (wl_display_roundtrip(app.display) < 0) {
		child_finish(&app);
	}
	if (ftruncate(fd, 0) != 0) {
		child_fail("ftruncate: %s", strerror(errno));
	}
	harness_sleep_ms(300);
	child_finish(&app);
}

/* Subsurfaces with a small buffer each under parent, wide (all children
 * of parent) or deep (a chain). */
static void run_subsurfaces(struct harness_vitrail *vitrail, int count,
		bool deep) {
	struct sc_app app;
	child_connect(&app, vitrail);
	if (!sc_app_create_window(&app, deep ? "deep" : "wide", "tree", 100, 100,
				0xff204060)) {
		child_fail("no window");
	}
	struct sc_buffer *buffer =
			sc_buffer_create(&app, 8, 8, WL_SHM_FORMAT_ARGB8888, 0xffc04020);
	struct wl_surface *parent = app.surface;
	for (int i = 0; i < count; i++) {
		struct wl_surface *surface =
				wl_compositor_create_surface(app.compositor);
		struct wl_subsurface *sub = wl_subcompositor_get_subsurface(
				app.subcompositor, surface, parent);
		wl_subsurface_set_desync(sub);
		wl_subsurface_set_position(sub, deep ? 1 : (i % 50) * 2,
				deep ? 0 : (i / 50) * 9);
		child_show(&app, surface, buffer->wl_buffer);
		wl_surface_commit(parent);
		if (deep) {
			parent = surface;
		}
		// about 150 bytes of requests per subsurface
		if (i % 8 == 0 && !child_flush(app.display)) {
			child_finish(&app);
		}
	}
	wl_surface_commit(app.surface);
	if (wl_display_roundtrip(app.display) < 0) {
		child_finish(&app);
	}
	harness_sleep_ms(300); // shown for a few frames
	child_finish(&app);
}

static void run_subsurfaces_wide(struct harness_vitrail *vitrail) {
	run_subsurfaces(vitrail, 500, false);
}

static void run_subsurfaces_deep(struct harness_vitrail *vitrail) {
	run_subsurfaces(vitrail, 200, true);
}

#define FLOOD 20000

static void run_flood_damage(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	if (!sc_app_create_window(&app, "damage", "damage", 256, 256, 0)) {
		child_fail("no window");
	}
	// Scattered 1x1 rects: the worst case for a damage region.
	for (int i = 0; i < FLOOD; i++) {
		int x = (i * 7) % 256, y = (i * 13 / 256 * 2) % 256;
		wl_surface_damage_buffer(app.surface, x, y, 1, 1); // 24 bytes
		if (i % (CHILD_FLUSH_BYTES / 24) == 0 && !child_flush(app.display)) {
			child_finish(&app);
		}
	}
	wl_surface_attach(app.surface, app.buffer->wl_buffer, 0, 0);
	wl_surface_commit(app.surface);
	child_finish(&app);
}

static void run_flood_frame(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	if (!sc_app_create_window(&app, "frames", "frames", 64, 64, 0)) {
		child_fail("no window");
	}
	// Frame callbacks nobody listens to: every one gets its done event.
	for (int i = 0; i < FLOOD; i++) {
		wl_surface_frame(app.surface); // 12 bytes
		if (i % (CHILD_FLUSH_BYTES / 12) == 0 && !child_flush(app.display)) {
			child_finish(&app);
		}
	}
	child_show(&app, app.surface, app.buffer->wl_buffer);
	child_finish(&app);
}

static void run_disconnect_mid_commit(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	if (!sc_app_create_window(&app, "mid-commit", "mid", 64, 64, 0)) {
		child_fail("no window");
	}
	// A synchronized subsurface with cached state its parent never
	// applies, then half a request on the wire: the socket closes
	// inside a message.
	struct wl_surface *child = wl_compositor_create_surface(app.compositor);
	wl_subcompositor_get_subsurface(app.subcompositor, child, app.surface);
	child_show(&app, child,
			child_buffer(&app, 32, 32, 128, WL_SHM_FORMAT_ARGB8888, NULL));
	wl_surface_attach(app.surface, app.buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(app.surface, 0, 0, 64, 64);
	if (!child_flush(app.display)) {
		child_finish(&app);
	}
	// wl_surface.commit (opcode 6, 8 bytes): 6 of its bytes
	uint32_t header[2] = { wl_proxy_get_id((struct wl_proxy *)app.surface),
		(8u << 16) | 6 };
	if (send(wl_display_get_fd(app.display), header, 6, MSG_NOSIGNAL) < 0) {
		child_fail("send: %s", strerror(errno));
	}
	struct report report = { .outcome = OUTCOME_CLEAN,
		.note = "closed inside a request" };
	child_report(&report); // _exit closes the socket
}

static void run_disconnect_mid_animation(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	if (!sc_app_create_window(&app, "anim", "anim", 200, 200, 0)) {
		child_fail("no window");
	}
	struct vitrail_scene_v1 *scene =
			vitrail_scene_manager_v1_get_scene(app.manager, app.surface);
	struct vitrail_scene_node_v1 *root = vitrail_scene_v1_create_node(scene);
	struct vitrail_scene_node_v1 *nodes[32];
	for (int i = 0; i < 32; i++) {
		nodes[i] = vitrail_scene_v1_create_node(scene);
		struct sc_dl dl;
		sc_dl_init(&dl);
		sc_dl_rrect(&dl, 0, 0, 40, 20, 6, SC_FILL(0xff000000 | i * 0x070503));
		sc_dl_text(&dl, 4, 14, 0xffffffff, 10, 400, "DejaVu Sans", "anim");
		sc_node_set_list(&app, nodes[i], &dl);
		sc_node_set_position(nodes[i], (i % 4) * 45, (i / 4) * 24);
		double target[2] = { 150, 150 };
		sc_node_animate(nodes[i], VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION,
				target, 2, 5000, VITRAIL_SCENE_NODE_V1_CURVE_SPRING,
				(double[]){ 100, 10, 1 }, 3);
	}
	sc_node_set_children(root, nodes, 32);
	vitrail_scene_v1_set_root(scene, root);
	wl_surface_commit(app.surface);
	if (wl_display_roundtrip(app.display) < 0) {
		child_finish(&app);
	}
	harness_sleep_ms(400);
	struct report report = { .outcome = OUTCOME_CLEAN,
		.note = "died 400 ms into a 5 s animation" };
	child_report(&report);
}

/* The presentation-feedback-free variant of "frames in flight": commit a
 * new buffer at every frame callback, then die right after a commit. */
static void run_disconnect_in_flight(struct harness_vitrail *vitrail) {
	struct sc_app app;
	child_connect(&app, vitrail);
	if (!sc_app_create_window(&app, "in-flight", "in flight", 300, 300, 0)) {
		child_fail("no window");
	}
	struct sc_buffer *buffers[3];
	for (int i = 0; i < 3; i++) {
		buffers[i] = sc_buffer_create(&app, 300, 300, WL_SHM_FORMAT_ARGB8888,
				0xff000000 | (uint32_t)i * 0x404040);
	}
	for (int frame = 0; frame < 30; frame++) {
		struct wl_callback *callback = wl_surface_frame(app.surface);
		child_show(&app, app.surface, buffers[frame % 3]->wl_buffer);
		// wait for this frame's callback (roundtrips would not)
		bool done = false;
		(void)callback;
		int64_t deadline = harness_now_ms() + 1000;
		while (!done && harness_now_ms() < deadline) {
			if (!child_flush(app.display)) {
				child_finish(&app);
			}
			struct pollfd pfd = { wl_display_get_fd(app.display), POLLIN, 0 };
			if (poll(&pfd, 1, 5) > 0) {
				if (wl_display_dispatch(app.display) < 0) {
					child_finish(&app);
				}
				done = frame % 2 == 0; // every other: do not wait
			}
		}
	}
	// the last commit is in flight when the process dies
	child_show(&app, app.surface, buffers[0]->wl_buffer);
	child_flush(app.display);
	struct report report = { .outcome = OUTCOME_CLEAN,
		.note = "died with a commit in flight" };
	child_report(&report);
}

/* ---- the session lock --------------------------------------------------- */

/*
 * Any desktop client may lock the session (ext-session-lock-v1) and capture
 * the screen (wlr-screencopy). vitrail sent `locked` inside the lock
 * request, before any output had presented a frame of the lock: a capture
 * asked for the moment `locked` came showed the desktop in 9-11 of 40
 * tries. And once a locker died, any client could lock and unlock.
 * vitrail(1): `locked` comes once every output presented the lock; an
 * abandoned lock may be taken over only by the program that locked (the
 * same /proc/PID/exe), any other lock gets `finished`.
 */

/* vitrail(1): a locked screen where no lock surface is */
#define LOCK_RGB 0x101010u
/* vitrail-lock-client's lock surfaces (its default colour) */
#define LOCK_CLIENT_RGB 0x3366ccu
/* lock rounds of lock_capture, one process each */
#define LOCK_ROUNDS 40
/* locks asked for by another program while the lock is abandoned */
#define LOCK_FLOOD 2000

struct lock_client {
	struct sc_app app;
	struct wl_registry *registry;
	struct ext_session_lock_manager_v1 *manager;
	struct zwlr_screencopy_manager_v1 *screencopy;
	struct wl_output *output;
	struct ext_session_lock_v1 *lock;
	int locked, finished; // events received
	/* the capture asked for at `locked` */
	bool capture_at_locked;
	struct zwlr_screencopy_frame_v1 *frame;
	struct sc_buffer *shot;
	int shot_state; // 0 waiting, 1 ready, -1 failed
};

static void lock_client_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct lock_client *lc = data;
	if (strcmp(interface, ext_session_lock_manager_v1_interface.name) == 0) {
		lc->manager = wl_registry_bind(registry, name,
				&ext_session_lock_manager_v1_interface, 1);
	} else if (strcmp(interface, zwlr_screencopy_manager_v1_interface.name) ==
			0) {
		lc->screencopy = wl_registry_bind(registry, name,
				&zwlr_screencopy_manager_v1_interface, 1);
	} else if (strcmp(interface, wl_output_interface.name) == 0 &&
			lc->output == NULL) {
		lc->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
	}
}

static const struct wl_registry_listener lock_client_registry_listener = {
	.global = lock_client_global,
	.global_remove = vk_global_remove,
};

static void shot_buffer(void *data, struct zwlr_screencopy_frame_v1 *frame,
		uint32_t format, uint32_t width, uint32_t height, uint32_t stride) {
	struct lock_client *lc = data;
	if (lc->shot != NULL || stride != width * 4) {
		return;
	}
	lc->shot = sc_buffer_create(&lc->app, (int32_t)width, (int32_t)height,
			format, 0);
	zwlr_screencopy_frame_v1_copy(frame, lc->shot->wl_buffer);
}

static void shot_flags(void *data, struct zwlr_screencopy_frame_v1 *frame,
		uint32_t flags) {
}

static void shot_ready(void *data, struct zwlr_screencopy_frame_v1 *frame,
		uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec) {
	((struct lock_client *)data)->shot_state = 1;
}

static void shot_failed(void *data, struct zwlr_screencopy_frame_v1 *frame) {
	((struct lock_client *)data)->shot_state = -1;
}

static const struct zwlr_screencopy_frame_v1_listener shot_listener = {
	.buffer = shot_buffer,
	.flags = shot_flags,
	.ready = shot_ready,
	.failed = shot_failed,
};

/* Ask for a capture of the output (its next frame), cursor left out. */
static void lock_client_capture(struct lock_client *lc) {
	if (lc->frame != NULL) {
		zwlr_screencopy_frame_v1_destroy(lc->frame);
	}
	if (lc->shot != NULL) {
		sc_buffer_destroy(lc->shot);
		lc->shot = NULL;
	}
	lc->shot_state = 0;
	lc->frame = zwlr_screencopy_manager_v1_capture_output(lc->screencopy, 0,
			lc->output);
	zwlr_screencopy_frame_v1_add_listener(lc->frame, &shot_listener, lc);
}

static void lock_locked(void *data, struct ext_session_lock_v1 *lock) {
	struct lock_client *lc = data;
	lc->locked++;
	if (lc->capture_at_locked) {
		/* at once, in the same dispatch: what a client sees the
		 * moment it is told the screen is locked */
		lock_client_capture(lc);
		wl_display_flush(lc->app.display);
	}
}

static void lock_finished(void *data, struct ext_session_lock_v1 *lock) {
	((struct lock_client *)data)->finished++;
}

static const struct ext_session_lock_v1_listener lock_listener = {
	.locked = lock_locked,
	.finished = lock_finished,
};

static void lock_client_connect(struct lock_client *lc,
		struct harness_vitrail *vitrail) {
	*lc = (struct lock_client){ 0 };
	child_connect(&lc->app, vitrail);
	lc->registry = wl_display_get_registry(lc->app.display);
	wl_registry_add_listener(lc->registry, &lock_client_registry_listener, lc);
	if (wl_display_roundtrip(lc->app.display) < 0 || lc->manager == NULL ||
			lc->screencopy == NULL || lc->output == NULL) {
		child_fail("no ext_session_lock_manager_v1, "
				   "zwlr_screencopy_manager_v1 or wl_output");
	}
}

/* Dispatch until one of *a, *b is set: false once the connection failed
 * or after timeout_ms. */
static bool lock_client_wait2(struct lock_client *lc, const int *a,
		const int *b, int timeout_ms) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(timeout_ms);
	while (*a == 0 && *b == 0) {
		if (!child_flush(lc->app.display) || harness_now_ms() > deadline) {
			return false;
		}
		struct pollfd pfd = { .fd = wl_display_get_fd(lc->app.display),
			.events = POLLIN };
		if (poll(&pfd, 1, 10) > 0 && wl_display_dispatch(lc->app.display) < 0) {
			return false;
		}
	}
	return true;
}

static bool lock_client_wait(struct lock_client *lc, const int *flag,
		int timeout_ms) {
	return lock_client_wait2(lc, flag, flag, timeout_ms);
}

/* Pixels of the capture that are neither the lock's colour nor also_rgb:
 * the desktop. The first one's place and colour go to *at. */
static int lock_client_desktop_pixels(struct lock_client *lc, uint32_t also_rgb,
		char *at, size_t size) {
	int count = 0;
	struct sc_buffer *b = lc->shot;
	for (int32_t y = 0; y < b->height; y++) {
		for (int32_t x = 0; x < b->width; x++) {
			uint32_t rgb = b->pixels[y * b->width + x] & 0xffffff;
			if (rgb != LOCK_RGB && rgb != also_rgb && count++ == 0) {
				snprintf(at, size, "0x%06x at %d,%d", rgb, x, y);
			}
		}
	}
	return count;
}

/* One round of lock_capture, in its own process: lock, capture the screen
 * the moment `locked` comes, and unlock (or die locked when `die`). Exit:
 * 0 the capture showed the lock alone, 1 it showed the desktop, 2 the lock
 * was refused, 3 another failure (a line on stderr says which). */
static void lock_round(struct harness_vitrail *vitrail, int round, bool die) {
	struct lock_client lc;
	lock_client_connect(&lc, vitrail);
	lc.capture_at_locked = true;
	lc.lock = ext_session_lock_manager_v1_lock(lc.manager);
	ext_session_lock_v1_add_listener(lc.lock, &lock_listener, &lc);
	if (!lock_client_wait2(&lc, &lc.locked, &lc.finished, 5000)) {
		fprintf(stderr, "round %d: neither locked nor finished\n", round);
		_exit(3);
	}
	if (lc.finished != 0) {
		fprintf(stderr, "round %d: the lock was refused\n", round);
		_exit(2);
	}
	if (!lock_client_wait(&lc, &lc.shot_state, 5000) || lc.shot_state < 0 ||
			lc.shot == NULL) {
		fprintf(stderr, "round %d: no capture (%d)\n", round, lc.shot_state);
		_exit(3);
	}
	char at[64] = "";
	int desktop = lock_client_desktop_pixels(&lc, LOCK_RGB, at, sizeof(at));
	if (desktop != 0) {
		fprintf(stderr,
				"round %d: the capture at `locked` showed %d "
				"pixels of the desktop (%s)\n",
				round, desktop, at);
	}
	if (!die) {
		ext_session_lock_v1_unlock_and_destroy(lc.lock);
		if (wl_display_roundtrip(lc.app.display) < 0) {
			fprintf(stderr, "round %d: unlock failed\n", round);
			_exit(3);
		}
	}
	/* die: the connection closes with the lock held (abandoned) */
	_exit(desktop != 0 ? 1 : 0);
}

/* LOCK_ROUNDS processes of this program, one after another, each lock and
 * capture the screen at `locked` (every pixel must be the lock's); every
 * fourth dies locked and the next one takes the abandoned lock over (the
 * same program: allowed), the others unlock. Between rounds the desktop
 * (the probe's window, a new colour every frame) shows for 50 ms. */
static void run_lock_capture(struct harness_vitrail *vitrail) {
	int shown = 0, refused = 0, failed = 0;
	for (int round = 0; round < LOCK_ROUNDS; round++) {
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) {
			child_fail("fork: %s", strerror(errno));
		}
		if (pid == 0) {
			/* its failures are its exit status, not reports */
			report_fd = -1;
			lock_round(vitrail, round, round % 4 == 1);
		}
		int status = 0;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
			child_fail("round %d: status 0x%x", round, status);
		}
		switch (WEXITSTATUS(status)) {
		case 0: break;
		case 1: shown++; break;
		case 2: refused++; break;
		default: failed++; break;
		}
		harness_sleep_ms(50);
	}
	if (shown != 0 || refused != 0 || failed != 0) {
		child_fail("of %d locks, %d captures at `locked` showed the "
				   "desktop, %d locks were refused, %d rounds failed (see "
				   "stderr)",
				LOCK_ROUNDS, shown, refused, failed);
	}
	struct report report = { .outcome = OUTCOME_CLEAN };
	child_report(&report);
}

/* vitrail-lock-client, this test's other program, started from the child
 * with its stdout on *out (line-buffered). */
static pid_t lock_client_spawn(struct harness_vitrail *vitrail, FILE **out) {
	int fds[2];
	if (pipe(fds) != 0) {
		child_fail("pipe: %s", strerror(errno));
	}
	char *path = client_path("vitrail-lock-client");
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		child_fail("fork: %s", strerror(errno));
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
		execl(path, path, NULL);
		_exit(127);
	}
	free(path);
	close(fds[1]);
	*out = fdopen(fds[0], "r");
	return pid;
}

/* Read the lock client's lines until one starting with what (true), or
 * its end (false). */
static bool lock_client_expect(FILE *out, const char *what) {
	char line[256];
	while (fgets(line, sizeof(line), out) != NULL) {
		if (strncmp(line, what, strlen(what)) == 0) {
			return true;
		}
	}
	return false;
}

/* vitrail-lock-client locks and is killed: the lock is abandoned. Then
 * this program (not the locker's) asks for LOCK_FLOOD locks, a hundred
 * between round trips: every one must get `finished` and none `locked`,
 * and a capture shows the lock alone. Unlocking a refused lock is
 * invalid_unlock (the expected outcome). vitrail-lock-client started
 * again (the program that locked) takes over and unlocks, so that the
 * probe's window shows again. */
static void run_lock_abandoned(struct harness_vitrail *vitrail) {
	FILE *out;
	pid_t locker = lock_client_spawn(vitrail, &out);
	if (!lock_client_expect(out, "locked")) {
		child_fail("vitrail-lock-client did not lock");
	}
	kill(locker, SIGKILL);
	waitpid(locker, NULL, 0);
	fclose(out);

	struct lock_client lc;
	lock_client_connect(&lc, vitrail);
	struct ext_session_lock_v1 *locks[100];
	for (int i = 0; i < LOCK_FLOOD; i += 100) {
		int finished = lc.finished;
		for (int j = 0; j < 100; j++) {
			locks[j] = ext_session_lock_manager_v1_lock(lc.manager);
			ext_session_lock_v1_add_listener(locks[j], &lock_listener, &lc);
		}
		if (wl_display_roundtrip(lc.app.display) < 0) {
			child_fail("cut off after %d locks", i);
		}
		if (lc.locked != 0) {
			child_fail("a lock from another program than the one that "
					   "locked took the abandoned lock over (%d of %d)",
					lc.locked, i + 100);
		}
		if (lc.finished - finished != 100) {
			child_fail("%d of 100 locks got finished", lc.finished - finished);
		}
		for (int j = 0; j < 100; j++) {
			ext_session_lock_v1_destroy(locks[j]);
		}
	}
	lock_client_capture(&lc);
	if (!lock_client_wait(&lc, &lc.shot_state, 5000) || lc.shot_state < 0 ||
			lc.shot == NULL) {
		child_fail("no capture (%d)", lc.shot_state);
	}
	/* the dead locker's surfaces may still be in the frame captured
	 * (drawn before they went): they are the lock too */
	char at[64] = "";
	int desktop =
			lock_client_desktop_pixels(&lc, LOCK_CLIENT_RGB, at, sizeof(at));
	if (desktop != 0) {
		child_fail("the abandoned lock showed %d pixels of the desktop "
				   "(%s)",
				desktop, at);
	}
	/* a refused lock unlocked: the protocol's invalid_unlock */
	struct ext_session_lock_v1 *refused =
			ext_session_lock_manager_v1_lock(lc.manager);
	ext_session_lock_v1_add_listener(refused, &lock_listener, &lc);
	wl_display_roundtrip(lc.app.display);
	/* unlock_and_destroy, the proxy kept: libwayland names the
	 * interface of an error only on an object it still has */
	wl_proxy_marshal_flags((struct wl_proxy *)refused,
			EXT_SESSION_LOCK_V1_UNLOCK_AND_DESTROY, NULL,
			wl_proxy_get_version((struct wl_proxy *)refused), 0);
	struct report report = child_outcome(lc.app.display);

	/* the locker's program takes over, and unlocks */
	locker = lock_client_spawn(vitrail, &out);
	if (!lock_client_expect(out, "locked")) {
		child_fail("vitrail-lock-client could not take its lock over");
	}
	kill(locker, SIGUSR1);
	if (!lock_client_expect(out, "unlocked")) {
		child_fail("vitrail-lock-client did not unlock");
	}
	waitpid(locker, NULL, 0);
	fclose(out);
	child_report(&report);
}

/* ---- X11 clients (Xwayland) --------------------------------------------- */

#ifdef VITRAIL_TEST_XCB
/*
 * X clients reach vitrail through Xwayland and wlroots' window manager
 * connection (xwayland.c). wlroots 0.15 flushes that connection, blocking,
 * with every request vitrail makes of an X window: vitrail's main thread
 * must not wait there on an X client's behalf. Skipped (77, see main)
 * where Xwayland is not installed.
 */

/* X requests between two round trips to the X server */
#define X_SYNC_EVERY 100

static xcb_connection_t *x_child_connect(struct harness_vitrail *vitrail,
		xcb_screen_t **screen) {
	if (vitrail->x_display == NULL) {
		child_fail("vitrail offers no X display");
	}
	xcb_connection_t *conn = xcb_connect(vitrail->x_display, NULL);
	if (xcb_connection_has_error(conn)) {
		child_fail("cannot connect to DISPLAY=%s", vitrail->x_display);
	}
	*screen = xcb_setup_roots_iterator(xcb_get_setup(conn)).data;
	return conn;
}

/* A round trip to the X server: false once the connection is gone (the
 * X server died). */
static bool x_sync(xcb_connection_t *conn) {
	xcb_get_input_focus_reply_t *reply =
			xcb_get_input_focus_reply(conn, xcb_get_input_focus(conn), NULL);
	free(reply);
	return reply != NULL && !xcb_connection_has_error(conn);
}

/* An X window of w x h at x, y with a background, not mapped. */
static xcb_window_t x_child_window(xcb_connection_t *conn, xcb_screen_t *screen,
		int16_t x, int16_t y, uint16_t w, uint16_t h, bool override_redirect,
		uint32_t event_mask) {
	static const char class[] = "hostile\0Hostile";
	xcb_window_t window = xcb_generate_id(conn);
	uint32_t values[] = { 0x30c040, override_redirect ? 1 : 0, event_mask };
	xcb_create_window(conn, XCB_COPY_FROM_PARENT, window, screen->root, x, y, w,
			h, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
			XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK,
			values);
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, window, XCB_ATOM_WM_CLASS,
			XCB_ATOM_STRING, 8, sizeof(class), class);
	return window;
}

/* Wait until vitrail placed the mapped window, made at 0,0: the
 * ConfigureNotify that moves it (desktop mode centres a new window on its
 * output). MapNotify alone comes earlier, from the X server, before
 * vitrail maps its view (once the window's wl_surface is committed); a
 * request before that would be overridden by the placement. */
static void x_wait_placed(xcb_connection_t *conn, xcb_window_t window) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(10000);
	for (;;) {
		xcb_generic_event_t *event;
		while ((event = xcb_poll_for_event(conn)) != NULL) {
			xcb_configure_notify_event_t *configure =
					(xcb_configure_notify_event_t *)event;
			bool placed =
					(event->response_type & 0x7f) == XCB_CONFIGURE_NOTIFY &&
					configure->window == window &&
					(configure->x != 0 || configure->y != 0);
			free(event);
			if (placed) {
				return;
			}
		}
		if (xcb_connection_has_error(conn)) {
			child_fail("the X connection failed before the map");
		}
		if (harness_now_ms() > deadline) {
			child_fail("vitrail did not place the X window in 10 s");
		}
		struct pollfd pfd = { .fd = xcb_get_file_descriptor(conn),
			.events = POLLIN };
		poll(&pfd, 1, 10);
	}
}

/* 3,000 ConfigureWindow requests (place and size) on one mapped managed
 * window, a round trip every X_SYNC_EVERY: vitrail answered each with a
 * configure and wlroots' blocking flush, while Xwayland was blocked
 * writing to vitrail: every Wayland client froze for 8.3 s and more
 * (#24 finding 4). Configures are coalesced per window: the window must
 * end where its last request put it, as X says. */
static void run_x11_configure_flood(struct harness_vitrail *vitrail) {
	xcb_screen_t *screen;
	xcb_connection_t *conn = x_child_connect(vitrail, &screen);
	xcb_window_t window = x_child_window(conn, screen, 0, 0, 200, 100, false,
			XCB_EVENT_MASK_STRUCTURE_NOTIFY);
	xcb_map_window(conn, window);
	xcb_flush(conn);
	x_wait_placed(conn, window);
	uint32_t last[4] = { 0 };
	for (int i = 0; i < 3000; i++) {
		last[0] = (uint32_t)(10 + i % 97);
		last[1] = (uint32_t)(20 + i % 89);
		last[2] = (uint32_t)(150 + i % 50);
		last[3] = (uint32_t)(80 + i % 40);
		xcb_configure_window(conn, window,
				XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y |
						XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT,
				last);
		if (i % X_SYNC_EVERY == X_SYNC_EVERY - 1 && !x_sync(conn)) {
			child_fail("the X connection failed after %d configures", i + 1);
		}
	}
	int64_t deadline = harness_now_ms() + harness_scaled_ms(5000);
	for (;;) {
		xcb_get_geometry_reply_t *geo = xcb_get_geometry_reply(conn,
				xcb_get_geometry(conn, window), NULL);
		if (geo == NULL) {
			child_fail("the X connection failed after the configures");
		}
		bool there = geo->x == (int16_t)last[0] && geo->y == (int16_t)last[1] &&
				geo->width == last[2] && geo->height == last[3];
		char where[64];
		snprintf(where, sizeof(where), "%dx%d+%d+%d", geo->width, geo->height,
				geo->x, geo->y);
		free(geo);
		if (there) {
			break;
		}
		if (harness_now_ms() > deadline) {
			child_fail("the X window ended at %s, not where its last "
					   "request put it (%ux%u+%u+%u)",
					where, last[2], last[3], last[0], last[1]);
		}
		harness_sleep_ms(20);
	}
	xcb_disconnect(conn);
	struct report report = { .outcome = OUTCOME_CLEAN };
	child_report(&report);
}

/* X_WINDOWS windows of one X client mapped at once (a round trip every
 * X_SYNC_EVERY), then unmapped and destroyed: managed ones
 * (override_redirect false) are views of vitrail's policy (placed,
 * focused, stacked: X requests of vitrail's each), override-redirect ones
 * place themselves above them. The X server must stay (the issue saw
 * Xwayland die, every X client lost). */
#define X_WINDOWS 3000

static void run_x11_windows(struct harness_vitrail *vitrail,
		bool override_redirect) {
	xcb_screen_t *screen;
	xcb_connection_t *conn = x_child_connect(vitrail, &screen);
	xcb_window_t *windows = calloc(X_WINDOWS, sizeof(*windows));
	for (int i = 0; i < X_WINDOWS; i++) {
		windows[i] = x_child_window(conn, screen, (int16_t)(i % 500),
				(int16_t)(i % 400), 40, 30, override_redirect, 0);
		xcb_map_window(conn, windows[i]);
		if (i % X_SYNC_EVERY == X_SYNC_EVERY - 1 && !x_sync(conn)) {
			child_fail("the X connection failed after %d windows mapped",
					i + 1);
		}
	}
	if (!x_sync(conn)) {
		child_fail("the X connection failed with %d windows mapped", X_WINDOWS);
	}
	for (int i = 0; i < X_WINDOWS; i++) {
		xcb_unmap_window(conn, windows[i]);
		xcb_destroy_window(conn, windows[i]);
		if (i % X_SYNC_EVERY == X_SYNC_EVERY - 1 && !x_sync(conn)) {
			child_fail("the X connection failed after %d windows "
					   "unmapped",
					i + 1);
		}
	}
	if (!x_sync(conn)) {
		child_fail("the X connection failed after the windows went");
	}
	free(windows);
	xcb_disconnect(conn);
	struct report report = { .outcome = OUTCOME_CLEAN };
	child_report(&report);
}

static void run_x11_managed_windows(struct harness_vitrail *vitrail) {
	run_x11_windows(vitrail, false);
}

static void run_x11_override_redirect(struct harness_vitrail *vitrail) {
	run_x11_windows(vitrail, true);
}
#endif

static const struct hostile_case cases[] = {
	{ "shm_stride", run_shm_stride,
			{ OUTCOME_PROTOCOL_ERROR, "wl_shm_pool",
					WL_SHM_ERROR_INVALID_STRIDE, false },
			10000 },
	{ "shm_truncated", run_shm_truncated,
			{ OUTCOME_PROTOCOL_ERROR, "wl_buffer", WL_SHM_ERROR_INVALID_FD,
					false },
			10000 },
	{ "shm_format", run_shm_format,
			{ OUTCOME_PROTOCOL_ERROR, "wl_shm_pool",
					WL_SHM_ERROR_INVALID_FORMAT, false },
			10000 },
	{ "shm_huge", run_shm_huge,
			{ OUTCOME_PROTOCOL_ERROR, "wl_shm_pool",
					WL_SHM_ERROR_INVALID_STRIDE, false },
			10000 },
	{ "shm_large", run_shm_large, { OUTCOME_CLEAN, NULL, 0, false }, 30000 },
	{ "shm_large_disconnect", run_shm_large_disconnect,
			{ OUTCOME_CLEAN, NULL, 0, false }, 30000 },
	{ "shm_large_truncated", run_shm_large_truncated,
			{ OUTCOME_PROTOCOL_ERROR, "wl_buffer", WL_SHM_ERROR_INVALID_FD,
					false },
			30000 },
	{ "dmabuf_large", run_dmabuf_large, { OUTCOME_CLEAN, NULL, 0, false },
			30000 },
	{ "shm_large_destroyed", run_shm_large_destroyed,
			{ OUTCOME_CLEAN, NULL, 0, false }, 30000 },
	{ "subsurfaces_wide", run_subsurfaces_wide,
			{ OUTCOME_CLEAN, NULL, 0, false }, 30000 },
	{ "subsurfaces_deep", run_subsurfaces_deep,
			{ OUTCOME_CLEAN, NULL, 0, false }, 30000 },
	{ "flood_damage", run_flood_damage, { OUTCOME_CLEAN, NULL, 0, true },
			20000 },
	{ "flood_frame", run_flood_frame, { OUTCOME_CLEAN, NULL, 0, true }, 60000 },
	{ "disconnect_mid_commit", run_disconnect_mid_commit,
			{ OUTCOME_CLEAN, NULL, 0, false }, 10000 },
	{ "disconnect_mid_animation", run_disconnect_mid_animation,
			{ OUTCOME_CLEAN, NULL, 0, false }, 10000 },
	{ "disconnect_in_flight", run_disconnect_in_flight,
			{ OUTCOME_CLEAN, NULL, 0, false }, 20000 },
	{ "keymap_past_end", run_keymap_past_end,
			{ OUTCOME_PROTOCOL_ERROR, "zwp_virtual_keyboard_v1", 0, false },
			10000 },
	{ "keymap_no_nul", run_keymap_no_nul,
			{ OUTCOME_PROTOCOL_ERROR, "zwp_virtual_keyboard_v1", 0, false },
			10000 },
	{ "drag_no_source", run_drag_no_source, { OUTCOME_CLEAN, NULL, 0, false },
			60000 },
	{ "feedback_flood", run_feedback_flood,
			{ OUTCOME_PROTOCOL_ERROR, "wl_display",
					WL_DISPLAY_ERROR_IMPLEMENTATION, false },
			60000 },
	{ "activation_tokens", run_activation_tokens,
			{ OUTCOME_CLEAN, NULL, 0, false }, 60000 },
	/* 60 frames of 114 MB, the last copied from a sparse pool: the
	 * kernel allocates and zeroes 28,000 pages under the banded copy
	 * (about 0.8 s, the main thread two thirds busy). The probe's
	 * longest wait: 30-40 ms on an idle machine, 299 ms once beside
	 * other tests on a loaded 2-core one (Vulkan on lavapipe shares
	 * those cores); a copy in one go, what version 2 exists to avoid,
	 * held the main thread 1,206 ms. */
	{ "scroll_large_frame", run_scroll_large_frame,
			{ OUTCOME_CLEAN, NULL, 0, false }, 60000, 600 },
	{ "lock_capture", run_lock_capture, { OUTCOME_CLEAN, NULL, 0, false },
			60000 },
	{ "lock_abandoned", run_lock_abandoned,
			{ OUTCOME_PROTOCOL_ERROR, "ext_session_lock_v1",
					EXT_SESSION_LOCK_V1_ERROR_INVALID_UNLOCK, false },
			60000 },
#ifdef VITRAIL_TEST_XCB
	{ "x11_configure_flood", run_x11_configure_flood,
			{ OUTCOME_CLEAN, NULL, 0, false }, 60000 },
	{ "x11_managed_windows", run_x11_managed_windows,
			{ OUTCOME_CLEAN, NULL, 0, false }, 60000, X_STALL_MS, true },
	{ "x11_override_redirect", run_x11_override_redirect,
			{ OUTCOME_CLEAN, NULL, 0, false }, 60000, X_STALL_MS, true },
#endif
};

static const struct hostile_case *find_case(const char *name) {
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (strcmp(cases[i].name, name) == 0) {
			return &cases[i];
		}
	}
	ck_abort_msg("no hostile case %s", name);
	return NULL;
}

/* One case: probe, baseline, offender, checks. */
static void hostile_run(const char *name) {
	const struct hostile_case *c = find_case(name);
	struct harness *harness = harness_create(name);
	/* the dmabuf cases send sealed memfds: linux-dmabuf on /dev/null */
	const char *dmabuf_env[] = { "VITRAIL_DMABUF_DEVICE=/dev/null", NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "640x480",
					.env = strncmp(name, "dmabuf_", 7) == 0 ? dmabuf_env : NULL,
			});
	struct harness_conn *conn = vitrail->conn;
	struct probe probe;
	probe_start(&probe, vitrail);
	harness_wait_for_windows(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	// warm up: the probe's first frames, then the baseline
	probe_pump(&probe, 1000);
	harness_settle(conn);
	probe_reset(&probe);
	probe_pump(&probe, 500);
	probe_check(&probe, "before the offender");
	long rss_before = rss_kib(vitrail->proc->pid);

	probe_reset(&probe);
	struct report report = run_offender(vitrail, &probe, c);
	probe_pump(&probe, 300);
	probe_check_bound(&probe, c->name, c->gap_ms > 0 ? c->gap_ms : GAP_MAX_MS);
	check_outcome(c, &report);

	// The offender is gone: vitrail answers, only the probe is left.
	harness_assert_alive(vitrail->proc);
	harness_settle(conn);
	harness_wait_for_window_count(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	probe_reset(&probe);
	probe_pump(&probe, 1000);
	probe_check(&probe, "after the offender");
	long rss_after = rss_kib(vitrail->proc->pid);
	printf("%s: vitrail VmRSS %ld KiB before, %ld KiB after (%+.1f%%)\n", name,
			rss_before, rss_after,
			100.0 * (double)(rss_after - rss_before) / (double)rss_before);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	// The sanitizers keep freed memory (quarantine, their allocators):
	// the plain build checks the memory.
	printf("%s: VmRSS not checked under a sanitizer\n", name);
#else
	ck_assert_msg((double)rss_after <= (double)rss_before * (1.0 + RSS_SLACK),
			"%s: vitrail's VmRSS grew from %ld KiB to %ld KiB (more than "
			"%.0f%%) and stayed there after the offender was gone",
			name, rss_before, rss_after, RSS_SLACK * 100);
#endif

	probe_finish(&probe);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}

#define HOSTILE_TEST(tcase) \
	START_TEST(test_hostile_##tcase) { \
		hostile_run(#tcase); \
	} \
	END_TEST

HOSTILE_TEST(shm_stride)
HOSTILE_TEST(shm_truncated)
HOSTILE_TEST(shm_format)
HOSTILE_TEST(shm_huge)
HOSTILE_TEST(shm_large)
HOSTILE_TEST(shm_large_disconnect)
HOSTILE_TEST(shm_large_truncated)
HOSTILE_TEST(shm_large_destroyed)
HOSTILE_TEST(dmabuf_large)
HOSTILE_TEST(subsurfaces_wide)
HOSTILE_TEST(subsurfaces_deep)
HOSTILE_TEST(flood_damage)
HOSTILE_TEST(flood_frame)
HOSTILE_TEST(disconnect_mid_commit)
HOSTILE_TEST(disconnect_mid_animation)
HOSTILE_TEST(disconnect_in_flight)
HOSTILE_TEST(keymap_past_end)
HOSTILE_TEST(keymap_no_nul)
HOSTILE_TEST(drag_no_source)
HOSTILE_TEST(feedback_flood)
HOSTILE_TEST(activation_tokens)
HOSTILE_TEST(scroll_large_frame)
HOSTILE_TEST(lock_capture)
HOSTILE_TEST(lock_abandoned)
#ifdef VITRAIL_TEST_XCB
HOSTILE_TEST(x11_configure_flood)
HOSTILE_TEST(x11_managed_windows)
HOSTILE_TEST(x11_override_redirect)
#endif

/* ---- a large buffer's content ------------------------------------------- */

/*
 * What a large buffer shows, and when. A window (64 x 64, window geometry
 * (0, 0, 64, 64)) has a desynchronised subsurface of LC_SIZE^2 (the
 * largest square the client's image budget holds with the window's) at
 * (LC_OFFSET, LC_OFFSET), so that the output shows the subsurface's
 * bottom-right corner: the rows vitrail copies last (a partial image
 * would show old rows there). Only the corner from LC_FILL on is drawn
 * (the rest of each pool stays sparse zeros):
 *
 * 1. buffer A, one colour (LC_OLD): once vitrail released it (the copy is
 *    complete), the corner shows LC_OLD;
 * 2. buffer B, hashed pixels (salt 1), then, while vitrail still copies
 *    B (it has not released it), buffer C: B's pixels but for the damaged
 *    rectangle LC_DAMAGE, hashed with salt 2, with only that damage. C
 *    takes over B's copy: B is released at once, C once complete. A
 *    screenshot meanwhile shows either all of A's colour or all of C's
 *    pixels at every checked point, never a mix. The frame callback
 *    asked for with B comes after C's release, not before: the surface
 *    gets none for content not shown yet;
 * 3. once C is released: C's pixels, exactly;
 * 4. the subsurface moved by (200, 150): texels never shown before are
 *    uploaded (the renderer uploads only the visible part of large
 *    images): C's pixels at the new place;
 * 5. C, released, drawn anew (salt 3: D) and committed again with damage
 *    over all of it but no attach: vitrail holds it again for the copy,
 *    releases it when done, and D shows.
 *
 * The probe's frame callbacks never wait more than GAP_MAX_MS while
 * vitrail copies (the screenshots, taken by this process, are left out);
 * the window gone, vitrail's VmRSS is within RSS_SLACK of before (plain
 * build).
 */
#define LC_SIZE 8064
#define LC_OFFSET (-(LC_SIZE - 256))
#define LC_FILL 6912
#define LC_OLD 0xff2040c0u
#define LC_DAMAGE_X 7700
#define LC_DAMAGE_Y 7800
#define LC_DAMAGE_W 300
#define LC_DAMAGE_H 200
#define LC_MOVE_X 200
#define LC_MOVE_Y 150

static uint32_t lc_hashed(int32_t x, int32_t y, uint32_t salt) {
	uint32_t h = (uint32_t)x * 0x9e3779b1u ^ (uint32_t)y * 0x85ebca77u ^
			salt * 0xc2b2ae3du;
	h ^= h >> 15;
	return 0xff000000u | (h & 0x00ffffffu);
}

static bool lc_in_damage(int32_t x, int32_t y) {
	return x >= LC_DAMAGE_X && x < LC_DAMAGE_X + LC_DAMAGE_W &&
			y >= LC_DAMAGE_Y && y < LC_DAMAGE_Y + LC_DAMAGE_H;
}

/* The pixel of content `which` ('A', 'B', 'C', 'D') at (x, y) of the
 * corner. */
static uint32_t lc_pixel(char which, int32_t x, int32_t y) {
	switch (which) {
	case 'A': return LC_OLD;
	case 'B': return lc_hashed(x, y, 1);
	case 'C':
		return lc_in_damage(x, y) ? lc_hashed(x, y, 2) : lc_hashed(x, y, 1);
	default: return lc_hashed(x, y, 3);
	}
}

/* Events in the order they came (release and frame done). */
static uint32_t lc_events;

struct lc_buffer {
	struct wl_buffer *wl_buffer;
	uint8_t *map;
	size_t size;
	bool released;
	uint32_t released_at; // lc_events then
};

/* Draw `which` into the buffer's corner. */
static void lc_fill(struct lc_buffer *b, char which) {
	size_t stride = (size_t)LC_SIZE * 4;
	for (int32_t y = LC_FILL; y < LC_SIZE; y++) {
		uint32_t *row = (uint32_t *)(b->map + (size_t)y * stride);
		for (int32_t x = LC_FILL; x < LC_SIZE; x++) {
			row[x] = lc_pixel(which, x, y);
		}
	}
}

static void lc_handle_release(void *data, struct wl_buffer *buffer) {
	struct lc_buffer *b = data;
	b->released = true;
	b->released_at = ++lc_events;
}

struct lc_frame {
	bool done;
	uint32_t done_at; // lc_events then
};

static void lc_handle_frame_done(void *data, struct wl_callback *callback,
		uint32_t time) {
	struct lc_frame *frame = data;
	frame->done = true;
	frame->done_at = ++lc_events;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener lc_frame_listener = {
	.done = lc_handle_frame_done,
};

static const struct wl_buffer_listener lc_release_listener = {
	.release = lc_handle_release,
};

/* A buffer of LC_SIZE^2 whose corner from LC_FILL holds `which`. */
static void lc_buffer_init(struct lc_buffer *b, struct sc_app *app,
		char which) {
	size_t stride = (size_t)LC_SIZE * 4, size = stride * LC_SIZE;
	int fd = memfd_create("large", MFD_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	uint8_t *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert(map != MAP_FAILED);
	struct wl_shm_pool *pool = wl_shm_create_pool(app->shm, fd, (int32_t)size);
	close(fd);
	*b = (struct lc_buffer){
		.wl_buffer = wl_shm_pool_create_buffer(pool, 0, LC_SIZE, LC_SIZE,
				(int32_t)stride, WL_SHM_FORMAT_ARGB8888),
		.map = map,
		.size = size,
	};
	lc_fill(b, which);
	wl_shm_pool_destroy(pool);
	wl_buffer_add_listener(b->wl_buffer, &lc_release_listener, b);
}

/* Dispatch what came for the client, without waiting. */
static void lc_dispatch(struct sc_app *app) {
	struct wl_display *display = app->display;
	ck_assert_msg(wl_display_flush(display) >= 0 || errno == EAGAIN,
			"large client: flush: %s", strerror(errno));
	while (wl_display_prepare_read(display) != 0) {
		ck_assert_int_ge(wl_display_dispatch_pending(display), 0);
	}
	struct pollfd pfd = { .fd = wl_display_get_fd(display), .events = POLLIN };
	if (poll(&pfd, 1, 0) > 0) {
		ck_assert_msg(wl_display_read_events(display) >= 0,
				"large client: lost its connection");
	} else {
		wl_display_cancel_read(display);
	}
	ck_assert_int_ge(wl_display_dispatch_pending(display), 0);
}

/* Pump the probe and the client until *flag (at most 60 s, scaled). */
static void lc_wait(struct probe *probe, struct sc_app *app, bool *flag,
		const char *what) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(60000);
	while (!*flag) {
		ck_assert_msg(harness_now_ms() < deadline,
				"large client: %s did "
				"not happen in 60 s",
				what);
		probe_pump(probe, 5);
		lc_dispatch(app);
	}
}

/* Where the subsurface's corner pixels show: output pixel (px, py) shows
 * buffer pixel (px - ox, py - oy). */
struct lc_view {
	int32_t ox, oy;
	int32_t x1, y1; // the visible part of the subsurface: [0, x1) x [0, y1)
};

/* Screenshot and classify the checked points: `old` or `new` (contents
 * as lc_pixel's) when every one shows that one's pixel, 0 when they
 * disagree (the mismatch goes to *bad). */
static char lc_screenshot(struct harness *harness,
		struct harness_vitrail *vitrail, const struct lc_view *view, char old,
		char new, const char *name, char *bad, size_t bad_size) {
	const char which[2] = { old, new };
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/%s.png", harness->out_dir, name) > 0);
	int status = harness_grim(harness, vitrail, "HEADLESS-1", path);
	ck_assert_msg(status == 0, "grim failed with status %d", status);
	int32_t w = 0, h = 0;
	uint32_t *pixels = vr_png_read(path, &w, &h);
	ck_assert_msg(pixels != NULL, "cannot read %s", path);
	bool could_be[2] = { true, true }; // old, new
	int checked = 0;
	bad[0] = '\0';
	// a grid over the visible corner, and the damaged rectangle's
	// inside and edges
	for (int32_t py = 1; py < view->y1; py += 7) {
		for (int32_t px = 2; px < view->x1; px += 5) {
			ck_assert(px < w && py < h);
			int32_t bx = px - view->ox, by = py - view->oy;
			ck_assert(bx >= LC_FILL && by >= LC_FILL);
			uint32_t actual = pixels[py * w + px];
			for (int i = 0; i < 2; i++) {
				uint32_t expected = lc_pixel(which[i], bx, by);
				if (could_be[i] && actual != expected) {
					could_be[i] = false;
					if (bad[0] == '\0' || !could_be[1 - i]) {
						snprintf(bad, bad_size,
								"output (%d, %d), buffer "
								"(%d, %d): 0x%08x, not 0x%08x (%c); screenshot "
								"%s",
								px, py, bx, by, actual, expected, which[i],
								path);
					}
				}
			}
			checked++;
		}
	}
	char seen = could_be[0] ? old : could_be[1] ? new : 0;
	printf("%s: %d points, %s%c\n", name, checked,
			seen != 0 ? "all " : "neither", seen != 0 ? seen : ' ');
	free(pixels);
	free(path);
	return seen;
}

START_TEST(test_hostile_shm_large_content) {
	struct harness *harness = harness_create("shm_large_content");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "640x480",
			});
	struct harness_conn *conn = vitrail->conn;
	struct probe probe;
	probe_start(&probe, vitrail);
	harness_wait_for_windows(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	probe_pump(&probe, 1000);
	harness_settle(conn);
	long rss_before = rss_kib(vitrail->proc->pid);

	struct sc_app app = { 0 };
	ck_assert(sc_app_init(&app, "large-content"));
	ck_assert(sc_app_create_window(&app, "large-content", "large", 64, 64,
			0xff808080));
	xdg_surface_set_window_geometry(app.xdg_surface, 0, 0, 64, 64);
	struct wl_surface *child = wl_compositor_create_surface(app.compositor);
	struct wl_subsurface *sub = wl_subcompositor_get_subsurface(
			app.subcompositor, child, app.surface);
	wl_subsurface_set_desync(sub);
	wl_subsurface_set_position(sub, LC_OFFSET, LC_OFFSET);
	wl_surface_commit(app.surface);
	struct lc_buffer a, b, c;
	lc_buffer_init(&a, &app, 'A');
	lc_buffer_init(&b, &app, 'B');
	lc_buffer_init(&c, &app, 'C');
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_wait_for_windows(conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	const struct harness_window *window =
			harness_find_window(conn, "large-content");
	ck_assert_msg(window != NULL, "no window: %s",
			harness_describe_windows(conn));
	struct lc_view view = {
		.ox = window->x + LC_OFFSET,
		.oy = window->y + LC_OFFSET,
	};
	view.x1 = view.ox + LC_SIZE < 640 ? view.ox + LC_SIZE : 640;
	view.y1 = view.oy + LC_SIZE < 480 ? view.oy + LC_SIZE : 480;
	ck_assert_msg(view.x1 > 100 && view.y1 > 100 && -view.ox >= LC_FILL &&
					-view.oy >= LC_FILL - LC_MOVE_Y,
			"unexpected window placement: %s", harness_describe_windows(conn));
	char bad[512];

	// 1. A, copied whole into a new image
	probe_reset(&probe);
	child_show(&app, child, a.wl_buffer);
	lc_wait(&probe, &app, &a.released, "the release of buffer A");
	probe_pump(&probe, 100);
	probe_check(&probe, "copying buffer A");
	harness_settle(conn);
	ck_assert_msg(lc_screenshot(harness, vitrail, &view, 'A', 'B', "1-old", bad,
						  sizeof(bad)) == 'A',
			"buffer A is not shown whole: %s", bad);

	// 2. B, then C over B's copy in progress
	probe_reset(&probe);
	struct lc_frame frame = { 0 };
	wl_callback_add_listener(wl_surface_frame(child), &lc_frame_listener,
			&frame);
	child_show(&app, child, b.wl_buffer);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(!b.released,
			"vitrail released the large buffer B "
			"within a roundtrip of its commit: it cannot have copied it");
	wl_surface_attach(child, c.wl_buffer, 0, 0);
	wl_surface_damage_buffer(child, LC_DAMAGE_X, LC_DAMAGE_Y, LC_DAMAGE_W,
			LC_DAMAGE_H);
	wl_surface_commit(child);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	// (a screenshot takes long enough for the copy to end meanwhile:
	// both are fine, a mix is not)
	char seen = lc_screenshot(harness, vitrail, &view, 'A', 'C', "2-during",
			bad, sizeof(bad));
	ck_assert_msg(seen != 0, "a partly copied image was shown: %s", bad);
	probe_reset(&probe);
	lc_wait(&probe, &app, &b.released, "the release of the superseded B");
	lc_wait(&probe, &app, &c.released, "the release of buffer C");
	lc_wait(&probe, &app, &frame.done, "the frame callback asked with B");
	ck_assert_msg(frame.done_at > c.released_at,
			"the frame callback asked "
			"with B came before buffer C was copied and shown");
	probe_pump(&probe, 100);
	probe_check(&probe, "copying buffer C");

	// 3. C whole: B's pixels but for C's damage
	harness_settle(conn);
	ck_assert_msg(lc_screenshot(harness, vitrail, &view, 'A', 'C', "3-new", bad,
						  sizeof(bad)) == 'C',
			"buffer C is not shown whole: %s", bad);

	// 4. texels never shown before come into sight
	wl_subsurface_set_position(sub, LC_OFFSET + LC_MOVE_X,
			LC_OFFSET + LC_MOVE_Y);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	harness_settle(conn);
	view.ox += LC_MOVE_X;
	view.oy += LC_MOVE_Y;
	view.x1 = view.ox + LC_SIZE < 640 ? view.ox + LC_SIZE : 640;
	view.y1 = view.oy + LC_SIZE < 480 ? view.oy + LC_SIZE : 480;
	ck_assert_msg(lc_screenshot(harness, vitrail, &view, 'A', 'C', "4-moved",
						  bad, sizeof(bad)) == 'C',
			"buffer C is not shown whole once moved: %s", bad);

	// 5. C drawn anew and damaged whole, without an attach
	lc_fill(&c, 'D');
	c.released = false;
	probe_reset(&probe);
	wl_surface_damage_buffer(child, 0, 0, LC_SIZE, LC_SIZE);
	wl_surface_commit(child);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	ck_assert_msg(!c.released,
			"vitrail released buffer C within a "
			"roundtrip of its damage: it cannot have copied it");
	lc_wait(&probe, &app, &c.released, "the release of buffer C again");
	probe_pump(&probe, 100);
	probe_check(&probe, "copying buffer C again");
	harness_settle(conn);
	ck_assert_msg(lc_screenshot(harness, vitrail, &view, 'C', 'D', "5-redrawn",
						  bad, sizeof(bad)) == 'D',
			"buffer C redrawn is not "
			"shown whole: %s",
			bad);

	// the window gone: vitrail alive, its memory back
	wl_subsurface_destroy(sub);
	wl_surface_destroy(child);
	struct lc_buffer *buffers[] = { &a, &b, &c };
	for (size_t i = 0; i < 3; i++) {
		wl_buffer_destroy(buffers[i]->wl_buffer);
		munmap(buffers[i]->map, buffers[i]->size);
	}
	sc_app_finish(&app);
	harness_assert_alive(vitrail->proc);
	harness_wait_for_window_count(conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_settle(conn);
	probe_pump(&probe, 1000);
	long rss_after = rss_kib(vitrail->proc->pid);
	printf("shm_large_content: vitrail VmRSS %ld KiB before, %ld KiB after "
		   "(%+.1f%%)\n",
			rss_before, rss_after,
			100.0 * (double)(rss_after - rss_before) / (double)rss_before);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	ck_assert_msg((double)rss_after <= (double)rss_before * (1.0 + RSS_SLACK),
			"vitrail's VmRSS grew from %ld KiB to %ld KiB (more than %.0f%%) "
			"and stayed there after the window was gone",
			rss_before, rss_after, RSS_SLACK * 100);
#endif
	probe_finish(&probe);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- soak --------------------------------------------------------------- */

/*
 * Clients come and go for $VITRAIL_SOAK_SECONDS (default 60): every
 * other second one starts (vitrail-demo, weston-simple-shm, the three scene
 * examples with --animate-after) and, with three running, the oldest is
 * stopped (SIGTERM, every third one SIGKILL). The probe redraws at every
 * frame, so the output has damage at every vblank and every period should
 * present a frame.
 *
 * Memory: vitrail's VmRSS with only the probe left, after a warm-up of a
 * fifth of the run (every client kind started and stopped once), and at
 * the end: within RSS_SLACK (in the plain build; the sanitizers' own
 * allocators and quarantine make VmRSS grow by about as much again).
 *
 * Frame intervals, as vitrail sees them (--frame-log): every frame that
 * was shown (presented_ns set; a late frame is shown too, one vblank
 * later: the log's `dropped` column marks it, but it is a new image on
 * screen, so it ends an interval), no interval between two longer than
 * SOAK_GAP_MS (x $VITRAIL_TIMEOUT_MULTIPLIER), except in the second after
 * a client started: a new client's first commits make vitrail create its
 * images, shape its text and load its fonts on the main thread once, and
 * the client's own start-up (exec, fontconfig, its first buffers) takes
 * one of the two cores. Also exempt: the moments this process stops
 * clients or settles the tree, when the probe (in this process) stops
 * redrawing. The probe's own gaps between frame callbacks obey the same
 * bound outside start-ups.
 *
 * Why 100 ms, the bound, and not three periods: on this 2-core
 * machine without a GPU, the "GPU" is lavapipe, whose rasterizer threads
 * share the two cores with the clients (three animating, one of them
 * starting every other second), the probe, this process, vitrail's own
 * threads and, in the test command, one more test. Measured over 60 s
 * runs (frame log): vitrail's main thread spends a median of 0.1 ms per
 * frame and at most 7-15 ms (wall time) outside start-ups; but
 * lavapipe's execution
 * of a frame of 40-60 draws and three client uploads (gpu_us) takes a
 * median of 4 ms and 20-100 ms when the cores are busy, so such a frame
 * shows one to six vblanks late. That is CPU time lavapipe does not get,
 * not work vitrail could leave out; with a GPU, execution does not
 * compete with the clients. So what vitrail adds to an interval is
 * bounded by SOAK_GAP_MS: the interval less the GPU stage of the frame
 * that ends it. The whole interval, and the probe's gap (which adds the
 * probe's own scheduling in this process), get SOAK_GAP_TOTAL_MS, a
 * bound against real stalls rather than a frame-rate promise. What
 * vitrail's main thread adds is also checked on its own: no frame's
 * main-thread time (main_thread_us) over SOAK_MAIN_MS outside start-ups.
 */
#define SOAK_GAP_MS 100
#define SOAK_GAP_TOTAL_MS 250
/* A frame's main-thread time (wall time: it includes the main thread
 * being preempted by the clients on two cores, seen up to 14.5 ms when
 * the work itself is under 1 ms): three periods at 60 Hz. */
#define SOAK_MAIN_MS 50
#define SOAK_STARTUP_MS 1000
#define SOAK_LIVE 3

static int soak_seconds(void) {
	const char *s = getenv("VITRAIL_SOAK_SECONDS");
	int seconds = s != NULL ? atoi(s) : 0;
	return seconds > 0 ? seconds : 60;
}

static struct harness_proc *soak_spawn(struct harness *harness,
		struct harness_vitrail *vitrail, int n) {
	char *path = NULL;
	const char *demo = getenv("VITRAIL_DEMO");
	switch (n % 5) {
	case 0: {
		const char *argv[] = { demo != NULL ? demo : "vitrail-demo", NULL };
		return harness_spawn_client(harness, vitrail, argv);
	}
	case 1: {
		const char *argv[] = { "weston-simple-shm", NULL };
		return harness_spawn_client(harness, vitrail, argv);
	}
	default: {
		static const char *const names[] = { "vitrail-scene-chat",
			"vitrail-scene-settings", "vitrail-scene-mixed" };
		path = client_path(names[n % 5 - 2]);
		const char *argv[] = { path, "--animate-after", "500", NULL };
		struct harness_proc *proc =
				harness_spawn_client(harness, vitrail, argv);
		free(path);
		return proc;
	}
	}
}

/* Stop every client in live (n of them). */
static void soak_stop_all(struct harness_proc **live, int *n,
		struct probe *probe) {
	for (int i = 0; i < *n; i++) {
		harness_proc_signal(live[i], SIGTERM);
	}
	for (int i = 0; i < *n; i++) {
		harness_proc_stop(live[i]);
	}
	*n = 0;
	probe_pump(probe, 10);
}

static long soak_rss(struct harness_vitrail *vitrail, struct probe *probe) {
	harness_wait_for_window_count(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_settle(vitrail->conn);
	probe_pump(probe, 1000);
	return rss_kib(vitrail->proc->pid);
}

START_TEST(test_hostile_soak) {
	harness_require_program("weston-simple-shm", "weston");
	struct harness *harness = harness_create("soak");
	char *frame_log = NULL;
	ck_assert(asprintf(&frame_log, "%s/frames.csv", harness->out_dir) > 0);
	const char *extra[] = { "--frame-log", frame_log, NULL };
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){
					.outputs = 1,
					.output_size = "1024x768",
					.extra_args = extra,
			});
	struct probe probe;
	probe_start(&probe, vitrail);
	harness_wait_for_windows(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);

	int seconds = soak_seconds();
	int warmup = seconds / 5 > 5 ? seconds / 5 : 5;
	struct harness_proc *live[SOAK_LIVE];
	int nlive = 0, started = 0;
	// Exempt intervals (ms): the second after every client start, and
	// the times this process did not pump the probe (stopping clients,
	// settling), when the probe's own frames pause.
	int64_t exempt[4096][2];
	int nexempt = 0;
#define EXEMPT_BEGIN() int64_t exempt_from = harness_now_ms()
#define EXEMPT_END(extra) \
	do { \
		if (nexempt < 4096) { \
			exempt[nexempt][0] = exempt_from; \
			exempt[nexempt++][1] = harness_now_ms() + (extra); \
		} \
	} while (0)
	long rss_warm = 0;
	int64_t gap_max = harness_scaled_ms(SOAK_GAP_MS);
	int64_t gap_total_max = harness_scaled_ms(SOAK_GAP_TOTAL_MS);
	int64_t probe_gap = 0;
	int64_t start = harness_now_ms();
	for (int s = 0; s < seconds; s++) {
		if (s == warmup) {
			EXEMPT_BEGIN();
			soak_stop_all(live, &nlive, &probe);
			rss_warm = soak_rss(vitrail, &probe);
			EXEMPT_END(100);
			printf("soak: VmRSS %ld KiB after %d s of warm-up\n", rss_warm, s);
		}
		if (s % 2 == 1) { // a second with no start: all of it checked
			probe_reset(&probe);
			probe_pump(&probe,
					(int)(start + (int64_t)(s + 1) * 1000 - harness_now_ms()));
			if (probe.max_gap_ms > probe_gap) {
				probe_gap = probe.max_gap_ms;
			}
			harness_assert_alive(vitrail->proc);
			continue;
		}
		EXEMPT_BEGIN();
		if (nlive == SOAK_LIVE) {
			harness_proc_signal(live[0], started % 3 == 0 ? SIGKILL : SIGTERM);
			harness_proc_stop(live[0]);
			memmove(live, live + 1, (SOAK_LIVE - 1) * sizeof(live[0]));
			nlive--;
		}
		live[nlive++] = soak_spawn(harness, vitrail, started++);
		EXEMPT_END(SOAK_STARTUP_MS);
		probe_reset(&probe);
		probe_pump(&probe, SOAK_STARTUP_MS);
		// the second after a start is exempt; the rest of this one not
		probe_reset(&probe);
		int64_t second_end = start + (int64_t)(s + 1) * 1000;
		int rest = (int)(second_end - harness_now_ms());
		probe_pump(&probe, rest > 0 ? rest : 0);
		if (probe.max_gap_ms > probe_gap) {
			probe_gap = probe.max_gap_ms;
		}
		harness_assert_alive(vitrail->proc);
	}
	// From here on the probe pauses while clients stop and the tree
	// settles: the intervals end here.
	int64_t end = harness_now_ms();
	soak_stop_all(live, &nlive, &probe);
	long rss_end = soak_rss(vitrail, &probe);
	printf("soak: %d clients in %d s; VmRSS %ld KiB after warm-up, %ld KiB "
		   "at the end (%+.1f%%)\n",
			started, seconds, rss_warm, rss_end,
			100.0 * (double)(rss_end - rss_warm) / (double)rss_warm);
	fflush(stdout);
	probe_finish(&probe);
	harness_stop_vitrail(harness, vitrail);

	// Frame intervals from the frame log.
	struct csv csv;
	ck_assert_msg(csv_open(&csv, frame_log), "no frame log %s", frame_log);
	// The columns this check reads, by name.
	enum { C_PRESENTED, C_START, C_END, C_GPU, C_MAIN, C_LATE, C_COUNT };
	static const char *const names[C_COUNT] = { "presented_ns",
		"render_start_ns", "render_end_ns", "gpu_us", "main_thread_us",
		"dropped" };
	int cols[C_COUNT];
	for (int i = 0; i < C_COUNT; i++) {
		cols[i] = harness_csv_column(&csv, frame_log, names[i]);
	}
	// CLOCK_MONOTONIC in both: the frame log's ns and harness_now_ms
	uint64_t last = 0;
	int64_t worst = 0, worst_at = 0, own_worst = 0;
	double worst_wait = 0, worst_render = 0, worst_gpu = 0;
	int worst_late = 0;
	double main_worst = 0, main_worst_at = 0;
	size_t frames = 0, over = 0, over_total = 0, late_frames = 0;
	while (csv_next(&csv)) {
		double v[C_COUNT] = { 0 };
		uint64_t ns[C_COUNT] = { 0 };
		for (int i = 0; i < C_COUNT; i++) {
			ns[i] = csv_u64(&csv, cols[i]);
			double d = csv_number(&csv, cols[i]);
			v[i] = isnan(d) ? 0 : d; // an empty field reads 0
		}
		// a frame's main-thread time, outside start-ups
		int64_t start_ms = (int64_t)(ns[C_START] / 1000000);
		bool startup = start_ms < start + 1000 || start_ms > end;
		for (int i = 0; i < nexempt; i++) {
			if (start_ms >= exempt[i][0] && start_ms < exempt[i][1]) {
				startup = true;
			}
		}
		if (!startup && v[C_MAIN] > main_worst) {
			main_worst = v[C_MAIN];
			main_worst_at = (double)(start_ms - start) / 1000.0;
		}
		uint64_t presented = ns[C_PRESENTED];
		if (presented == 0) {
			continue; // replaced by a newer frame: never shown
		}
		int64_t at_ms = (int64_t)(presented / 1000000);
		if (last != 0 && at_ms >= start + 1000 && at_ms <= end) {
			int64_t gap = (int64_t)(presented - last) / 1000000;
			startup = false;
			for (int i = 0; i < nexempt; i++) {
				if (at_ms >= exempt[i][0] && at_ms - gap < exempt[i][1]) {
					startup = true;
				}
			}
			if (!startup) {
				frames++;
				late_frames += v[C_LATE] != 0;
				// vitrail's share: the interval less the GPU stage
				// (lavapipe) of the frame that ends it
				int64_t own = gap - (int64_t)(v[C_GPU] / 1e3);
				if (own > gap_max) {
					over++;
				}
				if (gap > gap_total_max) {
					over_total++;
				}
				if (own > own_worst) {
					own_worst = own;
				}
				if (gap > worst) {
					worst = gap;
					worst_at = at_ms - start;
					// where it went: waiting before the render began,
					// the render (lavapipe's share in gpu_us)
					worst_wait =
							(double)((int64_t)ns[C_START] - (int64_t)last) /
							1e6;
					worst_render = (double)(ns[C_END] - ns[C_START]) / 1e6;
					worst_gpu = v[C_GPU] / 1e3;
					worst_late = v[C_LATE] != 0;
				}
			}
		}
		last = presented;
	}
	csv_close(&csv);
	int64_t main_max = harness_scaled_ms(SOAK_MAIN_MS);
	printf("soak: %zu presented frames outside start-ups (%zu late), "
		   "longest interval %" PRId64 " ms at %.1f s (its frame: render "
		   "began %.1f ms after the previous one was shown, took %.1f ms, "
		   "GPU stage %.1f ms, %s), longest less its GPU stage %" PRId64 " ms; "
		   "%zu over %" PRId64 " ms less the GPU stage or %" PRId64
		   " ms; longest "
		   "main-thread time of a frame %.1f ms at %.1f s (bound %" PRId64
		   " ms); probe's longest gap %" PRId64 " ms\n",
			frames, late_frames, worst, (double)worst_at / 1000.0, worst_wait,
			worst_render, worst_gpu, worst_late ? "late" : "on time", own_worst,
			over, gap_max, gap_total_max, main_worst / 1e3, main_worst_at,
			main_max, probe_gap);
	fflush(stdout);
	// a quarter of the vblanks (divided by the multiplier)
	size_t frames_min = (size_t)((int64_t)seconds * 60 / 4 * 1000 /
			harness_scaled_ms(1000));
	ck_assert_msg(frames >= frames_min,
			"only %zu frames "
			"presented outside start-ups in %d s",
			frames, seconds);
	// One interval over gap_max in the minute is the machine's, not
	// vitrail's (seen once in CI: 133 ms while another test ran on the
	// second core, vitrail's main thread busy 0.9 ms at most; the
	// main-thread bound below catches vitrail's own stalls); two are not,
	// and none may pass gap_total_max.
	ck_assert_msg(over <= 1 && over_total == 0,
			"%zu presented-to-presented "
			"intervals over %" PRId64
			" ms less their GPU stage, %zu over %" PRId64
			" ms (longest %" PRId64 " ms, %.1f s in; less the GPU stage "
			"%" PRId64 " ms)",
			over, gap_max, over_total, gap_total_max, worst,
			(double)worst_at / 1000.0, own_worst);
	ck_assert_msg(main_worst <= (double)main_max * 1e3,
			"a frame took %.1f "
			"ms of vitrail's main thread %.1f s in (bound %" PRId64 " ms)",
			main_worst / 1e3, main_worst_at, main_max);
	ck_assert_msg(probe_gap <= gap_total_max,
			"the probe waited %" PRId64 " ms "
			"for a frame callback outside start-ups",
			probe_gap);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	// The sanitizers keep freed memory (quarantine, their allocators:
	// 9-10.4% growth over the minute with or without a leak): the plain
	// build checks the memory, as for the hostile cases.
	printf("soak: VmRSS not checked under a sanitizer\n");
#else
	ck_assert_msg((double)rss_end <= (double)rss_warm * (1.0 + RSS_SLACK),
			"vitrail's VmRSS grew from %ld KiB after warm-up to %ld KiB",
			rss_warm, rss_end);
#endif
	free(frame_log);
	harness_destroy(harness);
}
END_TEST

static Suite *hostile_suite(void) {
	Suite *suite = suite_create("hostile");
	const struct {
		const char *name;
		const TTest *test;
	} tests[] = {
		{ "shm_stride", test_hostile_shm_stride },
		{ "shm_truncated", test_hostile_shm_truncated },
		{ "shm_format", test_hostile_shm_format },
		{ "shm_huge", test_hostile_shm_huge },
		{ "shm_large", test_hostile_shm_large },
		{ "shm_large_disconnect", test_hostile_shm_large_disconnect },
		{ "shm_large_truncated", test_hostile_shm_large_truncated },
		{ "shm_large_destroyed", test_hostile_shm_large_destroyed },
		{ "dmabuf_large", test_hostile_dmabuf_large },
		{ "shm_large_content", test_hostile_shm_large_content },
		{ "subsurfaces_wide", test_hostile_subsurfaces_wide },
		{ "subsurfaces_deep", test_hostile_subsurfaces_deep },
		{ "flood_damage", test_hostile_flood_damage },
		{ "flood_frame", test_hostile_flood_frame },
		{ "disconnect_mid_commit", test_hostile_disconnect_mid_commit },
		{ "disconnect_mid_animation", test_hostile_disconnect_mid_animation },
		{ "disconnect_in_flight", test_hostile_disconnect_in_flight },
		{ "keymap_past_end", test_hostile_keymap_past_end },
		{ "keymap_no_nul", test_hostile_keymap_no_nul },
		{ "drag_no_source", test_hostile_drag_no_source },
		{ "feedback_flood", test_hostile_feedback_flood },
		{ "activation_tokens", test_hostile_activation_tokens },
		{ "scroll_large_frame", test_hostile_scroll_large_frame },
		{ "lock_capture", test_hostile_lock_capture },
		{ "lock_abandoned", test_hostile_lock_abandoned },
#ifdef VITRAIL_TEST_XCB
		{ "x11_configure_flood", test_hostile_x11_configure_flood },
		{ "x11_managed_windows", test_hostile_x11_managed_windows },
		{ "x11_override_redirect", test_hostile_x11_override_redirect },
#endif
	};
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		harness_add_case(suite, tests[i].name, tests[i].test, 120);
	}
	harness_add_case(suite, "soak", test_hostile_soak, soak_seconds() + 240);
	return suite;
}

int main(int argc, char *argv[]) {
	if (argc > 1 && strncmp(argv[1], "x11_", 4) == 0) {
#ifdef VITRAIL_TEST_XCB
		/* vitrail's Xwayland is wlroots': $WLR_XWAYLAND or
		 * /usr/bin/Xwayland (as test_xwayland.c) */
		const char *xwayland = getenv("WLR_XWAYLAND");
		if (xwayland == NULL || xwayland[0] == '\0') {
			xwayland = "/usr/bin/Xwayland";
		}
		if (access(xwayland, X_OK) != 0) {
			fprintf(stderr,
					"SKIP: no Xwayland at %s (Debian package "
					"xwayland)\n",
					xwayland);
			return 77;
		}
#else
		fprintf(stderr, "SKIP: vitrail is built without Xwayland\n");
		return 77;
#endif
	}
	return harness_run_suite(hostile_suite(), argc, argv);
}
