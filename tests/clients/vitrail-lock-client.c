/*
 * vitrail-lock-client: a minimal ext-session-lock-v1 client for the tests
 * (test_protocols.c, case session_lock): a screen locker whose lock
 * surfaces are a solid colour, that unlocks on SIGUSR1.
 *
 *   vitrail-lock-client [--color AARRGGBB] [--misbehave WHAT]
 *
 * It locks the session and gives every wl_output a lock surface of the
 * colour (premultiplied ARGB8888, default ff3366cc), drawn at the size of
 * each configure. It prints one line per event the tests wait for, on
 * stdout (line-buffered): "locked N ms after the request" (vitrail sends
 * it once every output shows the lock), "finished", "drawn OUTPUT W H",
 * "pointer enter", "pointer button", "keyboard enter", "key CODE pressed"
 * (or released; evdev codes), "unlocked", and
 * "protocol error INTERFACE CODE" when vitrail ends the connection with
 * one. SIGUSR1 unlocks (unlock_and_destroy, then a round trip), prints
 * "unlocked" and exits 0; SIGTERM exits 0 without unlocking.
 *
 * --misbehave makes a protocol error on purpose, after `locked` (but
 * unlock-refused):
 *   dup-output         a second lock surface for the first output
 *   destroy-locked     destroy (not unlock_and_destroy) while locked
 *   commit-before-ack  commit a lock surface before acknowledging
 *   null-buffer        commit a lock surface with a null buffer
 *   wrong-size         commit a buffer of another size than acknowledged
 *   unlock-refused     unlock_and_destroy a lock that got finished (run
 *                      it while another locker holds the lock)
 * It then waits for the error (exit 3) or exits 1 after 5 s without one.
 *
 * Exit: 0 unlocked or terminated, 1 failure, 2 finished (the lock was
 * refused), 3 protocol error.
 */
#define _GNU_SOURCE // memfd_create
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "ext-session-lock-v1-client-protocol.h"

#define MAX_OUTPUTS 8

struct output {
	struct client *client;
	struct wl_output *wl_output;
	char name[32];
	struct wl_surface *surface;
	struct ext_session_lock_surface_v1 *lock_surface;
	struct wl_buffer *buffer;
};

struct client {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct wl_seat *seat;
	struct ext_session_lock_manager_v1 *manager;
	struct ext_session_lock_v1 *lock;
	struct output outputs[MAX_OUTPUTS];
	int noutputs;
	uint32_t color;
	const char *misbehave;
	bool locked, finished;
	int64_t lock_ms; /* when the lock was asked for (CLOCK_MONOTONIC) */
};

static struct wl_buffer *solid_buffer(struct client *c, int32_t width,
		int32_t height) {
	size_t size = (size_t)width * (size_t)height * 4;
	int fd = memfd_create("vitrail-lock-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror("memfd");
		exit(1);
	}
	uint32_t *pixels =
			mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (size_t i = 0; i < size / 4; i++) {
		pixels[i] = c->color;
	}
	munmap(pixels, size);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height,
			width * 4, WL_SHM_FORMAT_ARGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

/* ---- lock surfaces ------------------------------------------------------ */

static void lock_surface_configure(void *data,
		struct ext_session_lock_surface_v1 *lock_surface, uint32_t serial,
		uint32_t width, uint32_t height) {
	struct output *o = data;
	struct client *c = o->client;
	if (c->misbehave != NULL &&
			strcmp(c->misbehave, "commit-before-ack") == 0) {
		o->buffer = solid_buffer(c, (int32_t)width, (int32_t)height);
		wl_surface_attach(o->surface, o->buffer, 0, 0);
		wl_surface_commit(o->surface);
		return;
	}
	ext_session_lock_surface_v1_ack_configure(lock_surface, serial);
	if (c->misbehave != NULL && strcmp(c->misbehave, "null-buffer") == 0) {
		wl_surface_attach(o->surface, NULL, 0, 0);
		wl_surface_commit(o->surface);
		return;
	}
	if (c->misbehave != NULL && strcmp(c->misbehave, "wrong-size") == 0) {
		width += 10;
	}
	if (o->buffer != NULL) {
		wl_buffer_destroy(o->buffer);
	}
	o->buffer = solid_buffer(c, (int32_t)width, (int32_t)height);
	wl_surface_attach(o->surface, o->buffer, 0, 0);
	wl_surface_damage_buffer(o->surface, 0, 0, (int32_t)width, (int32_t)height);
	wl_surface_commit(o->surface);
	printf("drawn %s %u %u\n", o->name, width, height);
}

static const struct ext_session_lock_surface_v1_listener
		lock_surface_listener = {
			.configure = lock_surface_configure,
		};

static void create_lock_surface(struct client *c, struct output *o) {
	o->surface = wl_compositor_create_surface(c->compositor);
	o->lock_surface = ext_session_lock_v1_get_lock_surface(c->lock, o->surface,
			o->wl_output);
	ext_session_lock_surface_v1_add_listener(o->lock_surface,
			&lock_surface_listener, o);
}

/* ---- the lock ----------------------------------------------------------- */

static int64_t now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void lock_locked(void *data, struct ext_session_lock_v1 *lock) {
	struct client *c = data;
	c->locked = true;
	printf("locked %lld ms after the request\n",
			(long long)(now_ms() - c->lock_ms));
}

static void lock_finished(void *data, struct ext_session_lock_v1 *lock) {
	struct client *c = data;
	c->finished = true;
	printf("finished\n");
}

static const struct ext_session_lock_v1_listener lock_listener = {
	.locked = lock_locked,
	.finished = lock_finished,
};

/* ---- seat --------------------------------------------------------------- */

static void pointer_enter(void *data, struct wl_pointer *pointer,
		uint32_t serial, struct wl_surface *surface, wl_fixed_t x,
		wl_fixed_t y) {
	printf("pointer enter\n");
}

static void pointer_leave(void *data, struct wl_pointer *pointer,
		uint32_t serial, struct wl_surface *surface) {
}

static void pointer_motion(void *data, struct wl_pointer *pointer,
		uint32_t time, wl_fixed_t x, wl_fixed_t y) {
}

static void pointer_button(void *data, struct wl_pointer *pointer,
		uint32_t serial, uint32_t time, uint32_t button, uint32_t state) {
	if (state == WL_POINTER_BUTTON_STATE_PRESSED) {
		printf("pointer button\n");
	}
}

static void pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time,
		uint32_t axis, wl_fixed_t value) {
}

static const struct wl_pointer_listener pointer_listener = {
	.enter = pointer_enter,
	.leave = pointer_leave,
	.motion = pointer_motion,
	.button = pointer_button,
	.axis = pointer_axis,
};

static void keyboard_keymap(void *data, struct wl_keyboard *keyboard,
		uint32_t format, int32_t fd, uint32_t size) {
	close(fd);
}

static void keyboard_enter(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, struct wl_surface *surface, struct wl_array *keys) {
	printf("keyboard enter\n");
}

static void keyboard_leave(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, struct wl_surface *surface) {
}

static void keyboard_key(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, uint32_t time, uint32_t key, uint32_t state) {
	printf("key %u %s\n", key,
			state == WL_KEYBOARD_KEY_STATE_PRESSED ? "pressed" : "released");
}

static void keyboard_modifiers(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, uint32_t depressed, uint32_t latched, uint32_t locked,
		uint32_t group) {
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = keyboard_keymap,
	.enter = keyboard_enter,
	.leave = keyboard_leave,
	.key = keyboard_key,
	.modifiers = keyboard_modifiers,
};

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t caps) {
	static bool have_pointer, have_keyboard;
	if ((caps & WL_SEAT_CAPABILITY_POINTER) && !have_pointer) {
		have_pointer = true;
		wl_pointer_add_listener(wl_seat_get_pointer(seat), &pointer_listener,
				data);
	}
	if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !have_keyboard) {
		have_keyboard = true;
		wl_keyboard_add_listener(wl_seat_get_keyboard(seat), &keyboard_listener,
				data);
	}
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = seat_capabilities,
};

/* ---- outputs and globals ------------------------------------------------ */

static void output_geometry(void *data, struct wl_output *wl_output, int32_t x,
		int32_t y, int32_t pw, int32_t ph, int32_t subpixel, const char *make,
		const char *model, int32_t transform) {
}

static void output_mode(void *data, struct wl_output *wl_output, uint32_t flags,
		int32_t width, int32_t height, int32_t refresh) {
}

static void output_done(void *data, struct wl_output *wl_output) {
}

static void output_scale(void *data, struct wl_output *wl_output,
		int32_t factor) {
}

static void output_name(void *data, struct wl_output *wl_output,
		const char *name) {
	struct output *o = data;
	snprintf(o->name, sizeof(o->name), "%s", name);
}

static void output_description(void *data, struct wl_output *wl_output,
		const char *description) {
}

static const struct wl_output_listener output_listener = {
	.geometry = output_geometry,
	.mode = output_mode,
	.done = output_done,
	.scale = output_scale,
	.name = output_name,
	.description = output_description,
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct client *c = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		c->compositor =
				wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, wl_seat_interface.name) == 0) {
		c->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
		wl_seat_add_listener(c->seat, &seat_listener, c);
	} else if (strcmp(interface, wl_output_interface.name) == 0 &&
			c->noutputs < MAX_OUTPUTS) {
		struct output *o = &c->outputs[c->noutputs++];
		o->client = c;
		snprintf(o->name, sizeof(o->name), "output-%u", name);
		o->wl_output = wl_registry_bind(registry, name, &wl_output_interface,
				version < 4 ? version : 4);
		wl_output_add_listener(o->wl_output, &output_listener, o);
	} else if (strcmp(interface, ext_session_lock_manager_v1_interface.name) ==
			0) {
		c->manager = wl_registry_bind(registry, name,
				&ext_session_lock_manager_v1_interface, 1);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* The connection failed: say why (a protocol error, by interface and
 * code) and exit. */
static void connection_lost(struct client *c) {
	const struct wl_interface *interface = NULL;
	uint32_t id = 0;
	int err = wl_display_get_error(c->display);
	if (err == EPROTO) {
		uint32_t code =
				wl_display_get_protocol_error(c->display, &interface, &id);
		printf("protocol error %s %u\n",
				interface != NULL ? interface->name : "?", code);
		exit(3);
	}
	printf("connection lost: %s\n", strerror(err));
	exit(1);
}

static void misbehave(struct client *c) {
	const char *what = c->misbehave;
	if (strcmp(what, "dup-output") == 0) {
		struct output extra = c->outputs[0];
		extra.surface = NULL;
		create_lock_surface(c, &extra);
	} else if (strcmp(what, "destroy-locked") == 0) {
		/* the destroy request, keeping the proxy: the error names
		 * its interface */
		wl_proxy_marshal_flags((struct wl_proxy *)c->lock,
				EXT_SESSION_LOCK_V1_DESTROY, NULL,
				wl_proxy_get_version((struct wl_proxy *)c->lock), 0);
	}
	/* the others misbehave in lock_surface_configure */
}

int main(int argc, char *argv[]) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct client c = { .color = 0xff3366cc };
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--color") == 0 && i + 1 < argc) {
			c.color = (uint32_t)strtoul(argv[++i], NULL, 16);
		} else if (strcmp(argv[i], "--misbehave") == 0 && i + 1 < argc) {
			c.misbehave = argv[++i];
		} else {
			fprintf(stderr,
					"usage: %s [--color AARRGGBB] "
					"[--misbehave WHAT]\n",
					argv[0]);
			return 1;
		}
	}
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC);

	c.display = wl_display_connect(NULL);
	if (c.display == NULL || sfd < 0) {
		fprintf(stderr, "cannot connect\n");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(c.display);
	wl_registry_add_listener(registry, &registry_listener, &c);
	if (wl_display_roundtrip(c.display) < 0 ||
			wl_display_roundtrip(c.display) < 0) {
		connection_lost(&c);
	}
	if (c.compositor == NULL || c.shm == NULL || c.manager == NULL ||
			c.noutputs == 0) {
		fprintf(stderr, "missing globals (ext_session_lock_manager_v1?)\n");
		return 1;
	}
	c.lock_ms = now_ms();
	c.lock = ext_session_lock_manager_v1_lock(c.manager);
	ext_session_lock_v1_add_listener(c.lock, &lock_listener, &c);
	for (int i = 0; i < c.noutputs; i++) {
		create_lock_surface(&c, &c.outputs[i]);
	}
	if (wl_display_roundtrip(c.display) < 0) {
		connection_lost(&c);
	}
	if (c.finished && c.misbehave != NULL &&
			strcmp(c.misbehave, "unlock-refused") == 0) {
		/* the request, keeping the proxy: the error names its
		 * interface */
		wl_proxy_marshal_flags((struct wl_proxy *)c.lock,
				EXT_SESSION_LOCK_V1_UNLOCK_AND_DESTROY, NULL,
				wl_proxy_get_version((struct wl_proxy *)c.lock), 0);
		if (wl_display_roundtrip(c.display) < 0) {
			connection_lost(&c);
		}
		printf("no protocol error\n");
		return 1;
	}
	if (c.finished) {
		ext_session_lock_v1_destroy(c.lock);
		wl_display_roundtrip(c.display);
		return 2;
	}
	if (c.misbehave != NULL) {
		/* dup-output and destroy-locked misbehave once locked */
		while (!c.locked &&
				(strcmp(c.misbehave, "dup-output") == 0 ||
						strcmp(c.misbehave, "destroy-locked") == 0)) {
			if (wl_display_dispatch(c.display) < 0) {
				connection_lost(&c);
			}
		}
		misbehave(&c);
	}
	int waited_ms = 0;
	while (true) {
		if (wl_display_flush(c.display) < 0 && errno != EAGAIN) {
			connection_lost(&c);
		}
		struct pollfd fds[2] = {
			{ .fd = wl_display_get_fd(c.display), .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		int n = poll(fds, 2, 100);
		if (n < 0 && errno != EINTR) {
			perror("poll");
			return 1;
		}
		if (c.misbehave != NULL && (waited_ms += 100) > 5000) {
			printf("no protocol error\n");
			return 1;
		}
		if (fds[1].revents & POLLIN) {
			struct signalfd_siginfo info;
			if (read(sfd, &info, sizeof(info)) != sizeof(info)) {
				continue;
			}
			if (info.ssi_signo == SIGTERM) {
				return 0;
			}
			ext_session_lock_v1_unlock_and_destroy(c.lock);
			if (wl_display_roundtrip(c.display) < 0) {
				connection_lost(&c);
			}
			printf("unlocked\n");
			return 0;
		}
		if ((fds[0].revents & POLLIN) && wl_display_dispatch(c.display) < 0) {
			connection_lost(&c);
		}
		if (fds[0].revents & (POLLERR | POLLHUP)) {
			connection_lost(&c);
		}
	}
}
