/*
 * ext-session-lock-v1 (wayland-protocols 1.31, staging): screen lockers
 * such as swaylock.
 *
 * One lock at a time. Locking blanks every output at once with an opaque
 * colour (VT_LOCK_COLOR, the lock layer of the tree: above every window,
 * below the cursor); the lock client's surfaces, one per output, are drawn
 * on that colour at their output's place. While locked, pointer, touch
 * and keyboard input go to lock surfaces only (input.c asks
 * vt_session_lock_surface_at; view.c gives no window the keyboard focus).
 * `locked` is sent once every enabled output has presented a frame whose
 * tree showed the lock (each lock has an epoch; output.c records the one
 * each presented frame showed), as the protocol asks: until then a screen
 * may still show the desktop. unlock_and_destroy unlocks: the windows show
 * and get input again.
 *
 * A lock client that dies (or destroys its lock without unlocking, a
 * protocol error) leaves the session locked, as the protocol demands: its
 * surfaces go, the colour stays. Only a client running the same program
 * as the one that locked (the same /proc/PID/exe: swaylock started again)
 * may then take over: its lock gets `locked` and may unlock; any other
 * gets `finished`. While a live client holds the lock, a second lock gets
 * `finished`.
 *
 * Errors are the protocol's: a surface with a role or a buffer already
 * (role, already_constructed), two lock surfaces for one output
 * (duplicate_output), destroy after `locked` (invalid_destroy), unlock
 * before it (invalid_unlock), a commit before the first ack_configure, a
 * null buffer, a size other than the one acknowledged, an unknown serial.
 */
#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>

#include "desktop/session_lock.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "ext-session-lock-v1-protocol.h"
#include "output/output.h"
#include "protocols/protocols.h"
#include "server.h"

#define LOCK_VERSION 1

/* The colour of a locked screen where no lock surface is (documented in
 * vitrail(1)). */
static const struct vr_color lock_color = {
	0x10 / 255.0f,
	0x10 / 255.0f,
	0x10 / 255.0f,
	1.0f,
};

struct vt_session_lock {
	struct vt_server *server;
	struct wl_global *global;
	bool locked;
	uint64_t epoch; /* of the lock in force; the last one once unlocked */
	struct lock *owner; /* the lock that locked, NULL once abandoned */
	/* the program of the client that locked (/proc/PID/exe), the only
	 * one that may take over an abandoned lock; NULL: unknown */
	char *locker_exe;
	struct wl_list locks; /* lock::link, every live ext_session_lock_v1 */
	struct vr_node *color; /* the blank, covering the layout */
	/* the outputs' frames (server->frame_events): begin takes the
	 * epoch, lock_shown sends locked */
	struct wl_listener frame_begin;
	struct wl_listener lock_shown;
};

struct lock {
	struct vt_session_lock *manager;
	struct wl_resource *resource;
	bool locked_sent;
	struct wl_list surfaces; /* lock_surface::link */
	struct wl_list link; /* vt_session_lock::locks */
};

struct lock_surface {
	struct lock *lock; /* NULL once its lock object is gone */
	struct wl_resource *resource;
	struct wlr_surface *surface;
	struct wlr_output *output; /* NULL once the output is gone */
	uint32_t serial; /* of the last configure */
	uint32_t width, height; /* of the last configure */
	bool acked; /* any configure acknowledged */
	uint32_t acked_width, acked_height;
	struct wl_list link; /* lock::surfaces */
	struct wl_listener surface_destroy;
	struct wl_listener output_destroy;
};

static const struct ext_session_lock_v1_interface lock_impl;
static const struct ext_session_lock_surface_v1_interface lock_surface_impl;
static const struct ext_session_lock_manager_v1_interface manager_impl;
static void send_locked_when_shown(struct vt_session_lock *m);

static struct lock *lock_from_resource(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &ext_session_lock_v1_interface,
			&lock_impl));
	return wl_resource_get_user_data(resource);
}

static struct lock_surface *lock_surface_from_resource(
		struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource,
			&ext_session_lock_surface_v1_interface, &lock_surface_impl));
	return wl_resource_get_user_data(resource);
}

/* ---- placement ---------------------------------------------------------- */

static void lock_surface_place(struct lock_surface *ls) {
	struct vt_session_lock *m = ls->lock != NULL ? ls->lock->manager : NULL;
	struct vt_surface *s = vt_surface_from_wlr(ls->surface);
	if (s == NULL) {
		return;
	}
	struct wlr_box *box = m != NULL && ls->output != NULL ?
			wlr_output_layout_get_box(m->server->layout, ls->output) :
			NULL;
	if (box == NULL || !m->locked || m->owner != ls->lock) {
		vr_node_set_parent(s->node, NULL);
		return;
	}
	vr_node_set_parent(s->node, m->server->lock_layer);
	vr_node_set_position(s->node, box->x, box->y);
}

static void place_all(struct vt_session_lock *m) {
	struct vt_server *server = m->server;
	struct wlr_box *box = wlr_output_layout_get_box(server->layout, NULL);
	if (box != NULL) {
		vr_node_set_position(m->color, box->x, box->y);
		vr_node_set_rect(m->color, box->width, box->height, lock_color);
	}
	struct lock *lock;
	wl_list_for_each(lock, &m->locks, link) {
		struct lock_surface *ls;
		wl_list_for_each(ls, &lock->surfaces, link) {
			lock_surface_place(ls);
		}
	}
	vr_node_set_enabled(server->lock_layer, m->locked);
	if (m->locked) {
		/* above every layer made since (layer shell's), below the
		 * cursor */
		vr_node_raise_to_top(server->lock_layer);
		vr_node_raise_to_top(server->cursor_layer);
		/* outputs powered off stay black above it all
		 * (output_power.c places its blanks again) */
		wl_signal_emit(&server->events.lock_raised, NULL);
	}
	vt_server_schedule_update(server);
}

void vt_session_lock_outputs_changed(struct vt_server *server) {
	if (server->session_lock != NULL) {
		place_all(server->session_lock);
		/* an output that went away or was disabled waits no more */
		send_locked_when_shown(server->session_lock);
	}
}

struct wlr_surface *vt_session_lock_surface_at(struct vt_server *server,
		double lx, double ly, double *sx, double *sy) {
	struct vt_session_lock *m = server->session_lock;
	if (m == NULL || !m->locked || m->owner == NULL) {
		return NULL;
	}
	struct lock_surface *ls;
	wl_list_for_each(ls, &m->owner->surfaces, link) {
		if (ls->output == NULL || !wlr_surface_has_buffer(ls->surface)) {
			continue;
		}
		struct wlr_box *box =
				wlr_output_layout_get_box(server->layout, ls->output);
		if (box == NULL) {
			continue;
		}
		double x = lx - box->x, y = ly - box->y;
		struct wlr_surface *found =
				wlr_surface_surface_at(ls->surface, x, y, sx, sy);
		if (found != NULL) {
			return found;
		}
	}
	return NULL;
}

/* Keyboard focus to a mapped lock surface of the owner (the one focused
 * stays), or to none. */
static void focus_lock_surface(struct vt_session_lock *m,
		struct lock_surface *except) {
	struct wlr_seat *seat = m->server->seat;
	struct wlr_surface *focused = seat->keyboard_state.focused_surface;
	struct lock_surface *target = NULL;
	if (m->owner != NULL) {
		struct lock_surface *ls;
		wl_list_for_each(ls, &m->owner->surfaces, link) {
			if (ls == except || !wlr_surface_has_buffer(ls->surface)) {
				continue;
			}
			if (ls->surface == focused) {
				return;
			}
			if (target == NULL) {
				target = ls;
			}
		}
	}
	if (target == NULL) {
		wlr_seat_keyboard_notify_clear_focus(seat);
		return;
	}
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(seat);
	if (keyboard != NULL) {
		wlr_seat_keyboard_notify_enter(seat, target->surface,
				keyboard->keycodes, keyboard->num_keycodes,
				&keyboard->modifiers);
	} else {
		wlr_seat_keyboard_notify_enter(seat, target->surface, NULL, 0, NULL);
	}
}

/* ---- locking and unlocking ---------------------------------------------- */

/* Whether every enabled output has presented a frame showing the lock. */
static bool lock_shown_everywhere(struct vt_session_lock *m) {
	for (struct vt_output *o = vt_output_next(m->server, NULL); o != NULL;
			o = vt_output_next(m->server, o)) {
		if (vt_output_lock_epoch_shown(o) < m->epoch) {
			return false;
		}
	}
	return true;
}

static void send_locked_when_shown(struct vt_session_lock *m) {
	struct lock *lock = m->owner;
	if (!m->locked || lock == NULL || lock->locked_sent ||
			!lock_shown_everywhere(m)) {
		return;
	}
	lock->locked_sent = true;
	ext_session_lock_v1_send_locked(lock->resource);
	wlr_log(WLR_INFO, "session locked: every output shows the lock");
}

uint64_t vt_session_lock_epoch(struct vt_server *server) {
	struct vt_session_lock *m = server->session_lock;
	return m != NULL && m->locked ? m->epoch : 0;
}

void vt_session_lock_shown(struct vt_server *server) {
	if (server->session_lock != NULL) {
		send_locked_when_shown(server->session_lock);
	}
}

/* The program a client runs (/proc/PID/exe), NULL when unknown. */
static char *client_exe(struct wl_client *client) {
	pid_t pid;
	wl_client_get_credentials(client, &pid, NULL, NULL);
	char path[64], exe[PATH_MAX];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t len = readlink(path, exe, sizeof(exe) - 1);
	if (len <= 0) {
		return NULL;
	}
	exe[len] = '\0';
	return strdup(exe);
}

static void session_lock(struct vt_session_lock *m, struct lock *lock,
		char *exe) {
	struct vt_server *server = m->server;
	if (!m->locked) {
		/* a new lock: every output must show it before `locked`; a
		 * takeover keeps the epoch the outputs show already */
		m->epoch++;
		free(m->locker_exe);
		m->locker_exe = exe;
	} else {
		free(exe);
	}
	m->locked = true;
	server->locked = true;
	m->owner = lock;
	wlr_log(WLR_INFO, "session locking (epoch %" PRIu64 ")", m->epoch);
	place_all(m);
	focus_lock_surface(m, NULL);
	wlr_seat_pointer_clear_focus(server->seat);
	wl_signal_emit(&server->events.pointer_focus, NULL);
	send_locked_when_shown(m);
}

static void session_unlock(struct vt_session_lock *m) {
	struct vt_server *server = m->server;
	m->locked = false;
	server->locked = false;
	m->owner = NULL;
	wlr_log(WLR_INFO, "session unlocked");
	place_all(m);
	wlr_seat_keyboard_notify_clear_focus(server->seat);
	struct vt_view *view = server->focused_view;
	if (view != NULL && view->mapped) {
		vt_view_focus(view, view->surface);
	}
	wl_signal_emit(&server->events.pointer_focus, NULL);
}

/* ---- lock surfaces ------------------------------------------------------ */

static void lock_surface_destroy(struct lock_surface *ls) {
	if (ls == NULL) {
		return;
	}
	struct vt_session_lock *m = ls->lock != NULL ? ls->lock->manager : NULL;
	struct vt_surface *s = vt_surface_from_wlr(ls->surface);
	if (s != NULL) {
		vr_node_set_parent(s->node, NULL);
	}
	wl_list_remove(&ls->surface_destroy.link);
	wl_list_remove(&ls->output_destroy.link);
	wl_list_remove(&ls->link);
	wl_resource_set_user_data(ls->resource, NULL);
	ls->surface->role_data = NULL;
	if (m != NULL && m->locked &&
			m->server->seat->keyboard_state.focused_surface == ls->surface) {
		focus_lock_surface(m, ls);
	}
	if (m != NULL) {
		vt_server_schedule_update(m->server);
	}
	free(ls);
}

static void lock_surface_handle_surface_destroy(struct wl_listener *listener,
		void *data) {
	struct lock_surface *ls = wl_container_of(listener, ls, surface_destroy);
	lock_surface_destroy(ls);
}

static void lock_surface_handle_output_destroy(struct wl_listener *listener,
		void *data) {
	struct lock_surface *ls = wl_container_of(listener, ls, output_destroy);
	wl_list_remove(&ls->output_destroy.link);
	wl_list_init(&ls->output_destroy.link);
	ls->output = NULL;
	lock_surface_place(ls);
}

static void lock_surface_handle_resource_destroy(struct wl_resource *resource) {
	lock_surface_destroy(lock_surface_from_resource(resource));
}

static void lock_surface_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void lock_surface_handle_ack_configure(struct wl_client *client,
		struct wl_resource *resource, uint32_t serial) {
	struct lock_surface *ls = lock_surface_from_resource(resource);
	if (ls == NULL) {
		return;
	}
	/* only the last configure's size is kept: earlier serials are
	 * acknowledged with it */
	if (serial == 0 || serial > ls->serial) {
		wl_resource_post_error(resource,
				EXT_SESSION_LOCK_SURFACE_V1_ERROR_INVALID_SERIAL,
				"ack_configure serial %u was never sent (last %u)", serial,
				ls->serial);
		return;
	}
	ls->acked = true;
	ls->acked_width = ls->width;
	ls->acked_height = ls->height;
}

static const struct ext_session_lock_surface_v1_interface lock_surface_impl = {
	.destroy = lock_surface_handle_destroy,
	.ack_configure = lock_surface_handle_ack_configure,
};

static void role_precommit(struct wlr_surface *surface) {
	struct lock_surface *ls = surface->role_data;
	if (ls == NULL) {
		return;
	}
	if (!ls->acked) {
		wl_resource_post_error(ls->resource,
				EXT_SESSION_LOCK_SURFACE_V1_ERROR_COMMIT_BEFORE_FIRST_ACK,
				"lock surface committed before its first ack_configure");
		return;
	}
	if ((surface->pending.committed & WLR_SURFACE_STATE_BUFFER) &&
			surface->pending.buffer == NULL) {
		wl_resource_post_error(ls->resource,
				EXT_SESSION_LOCK_SURFACE_V1_ERROR_NULL_BUFFER,
				"lock surface committed with a null buffer");
		return;
	}
	if (surface->pending.buffer != NULL &&
			((uint32_t)surface->pending.width != ls->acked_width ||
					(uint32_t)surface->pending.height != ls->acked_height)) {
		wl_resource_post_error(ls->resource,
				EXT_SESSION_LOCK_SURFACE_V1_ERROR_DIMENSIONS_MISMATCH,
				"lock surface of %dx%d, %ux%u acknowledged",
				surface->pending.width, surface->pending.height,
				ls->acked_width, ls->acked_height);
	}
}

static void role_commit(struct wlr_surface *surface) {
	struct lock_surface *ls = surface->role_data;
	if (ls == NULL || ls->lock == NULL) {
		return;
	}
	struct vt_session_lock *m = ls->lock->manager;
	lock_surface_place(ls);
	if (m->locked && m->owner == ls->lock) {
		focus_lock_surface(m, NULL);
		wl_signal_emit(&m->server->events.pointer_focus, NULL);
	}
}

static const struct wlr_surface_role lock_surface_role = {
	.name = "ext_session_lock_surface_v1",
	.precommit = role_precommit,
	.commit = role_commit,
};

static void lock_surface_configure(struct lock_surface *ls) {
	int width = 0, height = 0;
	if (ls->output != NULL) {
		wlr_output_effective_resolution(ls->output, &width, &height);
	}
	struct wl_display *display =
			wl_client_get_display(wl_resource_get_client(ls->resource));
	ls->serial = wl_display_next_serial(display);
	ls->width = (uint32_t)width;
	ls->height = (uint32_t)height;
	ext_session_lock_surface_v1_send_configure(ls->resource, ls->serial,
			ls->width, ls->height);
}

static void lock_handle_get_lock_surface(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *surface_resource,
		struct wl_resource *output_resource) {
	struct lock *lock = lock_from_resource(resource);
	struct wlr_surface *surface = wlr_surface_from_resource(surface_resource);
	struct wlr_output *output = wlr_output_from_resource(output_resource);
	struct wl_resource *ls_resource =
			wl_resource_create(client, &ext_session_lock_surface_v1_interface,
					wl_resource_get_version(resource), id);
	if (ls_resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(ls_resource, &lock_surface_impl, NULL,
			lock_surface_handle_resource_destroy);
	if (lock == NULL) {
		return; /* inert: the lock is gone */
	}
	if (wlr_surface_has_buffer(surface) ||
			(surface->pending.committed & WLR_SURFACE_STATE_BUFFER &&
					surface->pending.buffer != NULL)) {
		wl_resource_post_error(resource,
				EXT_SESSION_LOCK_V1_ERROR_ALREADY_CONSTRUCTED,
				"wl_surface@%u has a buffer attached or committed",
				wl_resource_get_id(surface_resource));
		return;
	}
	struct lock_surface *other;
	wl_list_for_each(other, &lock->surfaces, link) {
		if (output != NULL && other->output == output) {
			wl_resource_post_error(resource,
					EXT_SESSION_LOCK_V1_ERROR_DUPLICATE_OUTPUT,
					"output %s has a lock surface already", output->name);
			return;
		}
	}
	struct lock_surface *ls = calloc(1, sizeof(*ls));
	if (ls == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	if (!wlr_surface_set_role(surface, &lock_surface_role, ls, resource,
				EXT_SESSION_LOCK_V1_ERROR_ROLE)) {
		free(ls);
		return;
	}
	ls->lock = lock;
	ls->resource = ls_resource;
	ls->surface = surface;
	ls->output = output;
	wl_resource_set_user_data(ls_resource, ls);
	wl_list_insert(lock->surfaces.prev, &ls->link);
	ls->surface_destroy.notify = lock_surface_handle_surface_destroy;
	wl_signal_add(&surface->events.destroy, &ls->surface_destroy);
	if (output != NULL) {
		ls->output_destroy.notify = lock_surface_handle_output_destroy;
		wl_signal_add(&output->events.destroy, &ls->output_destroy);
	} else {
		/* an output gone already: configured 0x0, never shown */
		wl_list_init(&ls->output_destroy.link);
	}
	lock_surface_configure(ls);
}

/* ---- lock objects ------------------------------------------------------- */

static void lock_destroy(struct lock *lock) {
	if (lock == NULL) {
		return;
	}
	struct vt_session_lock *m = lock->manager;
	struct lock_surface *ls, *tmp;
	wl_list_for_each_safe(ls, tmp, &lock->surfaces, link) {
		/* the surfaces' nodes leave the lock layer; the objects stay
		 * (inert) until the client destroys them */
		struct vt_surface *s = vt_surface_from_wlr(ls->surface);
		if (s != NULL) {
			vr_node_set_parent(s->node, NULL);
		}
		wl_list_remove(&ls->link);
		wl_list_init(&ls->link);
		ls->lock = NULL;
	}
	if (m->owner == lock) {
		/* gone while locked: the session stays locked, in colour */
		m->owner = NULL;
		wlr_log(WLR_INFO,
				"the lock client went away: the session stays "
				"locked");
		wlr_seat_keyboard_notify_clear_focus(m->server->seat);
		wlr_seat_pointer_clear_focus(m->server->seat);
		vt_server_schedule_update(m->server);
	}
	wl_list_remove(&lock->link);
	wl_resource_set_user_data(lock->resource, NULL);
	free(lock);
}

static void lock_handle_resource_destroy(struct wl_resource *resource) {
	lock_destroy(lock_from_resource(resource));
}

static void lock_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	struct lock *lock = lock_from_resource(resource);
	if (lock != NULL && lock->locked_sent && lock->manager->owner == lock) {
		wl_resource_post_error(resource,
				EXT_SESSION_LOCK_V1_ERROR_INVALID_DESTROY,
				"destroy while locked: unlock_and_destroy unlocks");
		return;
	}
	wl_resource_destroy(resource);
}

static void lock_handle_unlock_and_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	struct lock *lock = lock_from_resource(resource);
	if (lock == NULL || !lock->locked_sent) {
		wl_resource_post_error(resource,
				EXT_SESSION_LOCK_V1_ERROR_INVALID_UNLOCK,
				"unlock_and_destroy before the locked event");
		return;
	}
	struct vt_session_lock *m = lock->manager;
	if (m->owner == lock) {
		m->owner = NULL;
		session_unlock(m);
	}
	wl_resource_destroy(resource);
}

static const struct ext_session_lock_v1_interface lock_impl = {
	.destroy = lock_handle_destroy,
	.get_lock_surface = lock_handle_get_lock_surface,
	.unlock_and_destroy = lock_handle_unlock_and_destroy,
};

static void manager_handle_lock(struct wl_client *client,
		struct wl_resource *resource, uint32_t id) {
	struct vt_session_lock *m = wl_resource_get_user_data(resource);
	struct wl_resource *lock_resource =
			wl_resource_create(client, &ext_session_lock_v1_interface,
					wl_resource_get_version(resource), id);
	struct lock *lock = calloc(1, sizeof(*lock));
	if (lock_resource == NULL || lock == NULL) {
		free(lock);
		if (lock_resource != NULL) {
			wl_resource_destroy(lock_resource);
		}
		wl_client_post_no_memory(client);
		return;
	}
	lock->manager = m;
	lock->resource = lock_resource;
	wl_list_init(&lock->surfaces);
	wl_list_insert(&m->locks, &lock->link);
	wl_resource_set_implementation(lock_resource, &lock_impl, lock,
			lock_handle_resource_destroy);
	if (m->owner != NULL) {
		/* a live client holds the lock */
		ext_session_lock_v1_send_finished(lock_resource);
		return;
	}
	char *exe = client_exe(client);
	if (m->locked &&
			(exe == NULL || m->locker_exe == NULL ||
					strcmp(exe, m->locker_exe) != 0)) {
		/* abandoned: only the program that locked may take over */
		wlr_log(WLR_INFO,
				"a lock from %s refused: the session was "
				"locked by %s",
				exe != NULL ? exe : "an unknown program",
				m->locker_exe != NULL ? m->locker_exe : "an unknown program");
		free(exe);
		ext_session_lock_v1_send_finished(lock_resource);
		return;
	}
	/* unlocked, or locked by the same program that died: this one
	 * locks, or takes over */
	session_lock(m, lock, exe);
}

static void manager_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct ext_session_lock_manager_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.lock = manager_handle_lock,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	struct wl_resource *resource = wl_resource_create(client,
			&ext_session_lock_manager_v1_interface, (int)version, id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, data, NULL);
}

static void handle_frame_begin(struct wl_listener *listener, void *data) {
	struct vt_session_lock *m = wl_container_of(listener, m, frame_begin);
	struct vt_frame_begin_event *event = data;
	event->lock_epoch = vt_session_lock_epoch(m->server);
}

static void handle_lock_shown(struct wl_listener *listener, void *data) {
	struct vt_session_lock *m = wl_container_of(listener, m, lock_shown);
	vt_session_lock_shown(m->server);
}

bool vt_session_lock_init(struct vt_server *server) {
	struct vt_session_lock *m = calloc(1, sizeof(*m));
	if (m == NULL) {
		return false;
	}
	m->server = server;
	wl_list_init(&m->locks);
	m->color = vr_node_create(server->tree);
	m->global = wl_global_create(server->display,
			&ext_session_lock_manager_v1_interface, LOCK_VERSION, m,
			manager_bind);
	if (m->color == NULL || m->global == NULL) {
		vr_node_destroy(m->color);
		if (m->global != NULL) {
			wl_global_destroy(m->global);
		}
		free(m);
		return false;
	}
	vr_node_set_parent(m->color, server->lock_layer);
	vr_node_set_enabled(server->lock_layer, false);
	server->session_lock = m;
	m->frame_begin.notify = handle_frame_begin;
	wl_signal_add(&server->frame_events.begin, &m->frame_begin);
	m->lock_shown.notify = handle_lock_shown;
	wl_signal_add(&server->frame_events.lock_shown, &m->lock_shown);
	place_all(m);
	return true;
}

/* After the clients are gone (their locks and surfaces with them). */
void vt_session_lock_finish(struct vt_server *server) {
	struct vt_session_lock *m = server->session_lock;
	if (m == NULL) {
		return;
	}
	struct lock *lock, *tmp;
	wl_list_for_each_safe(lock, tmp, &m->locks, link) {
		lock_destroy(lock);
	}
	wl_list_remove(&m->frame_begin.link);
	wl_list_remove(&m->lock_shown.link);
	wl_global_destroy(m->global);
	vr_node_destroy(m->color);
	server->session_lock = NULL;
	server->locked = false;
	free(m->locker_exe);
	free(m);
}
