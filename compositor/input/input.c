/*
 * Seat, keyboards, pointer, touch, and the cursor as a node of the render
 * tree (vitrail draws its cursor itself, so screenshots and the pixman
 * reference include it, on every backend alike).
 *
 * Devices come from the backend and from clients: virtual pointers
 * (wlr-virtual-pointer-unstable-v1) and virtual keyboards
 * (virtual-keyboard-unstable-v1) join the seat like physical devices.
 * Every input event delivered to a surface is stamped with the time
 * vitrail received it (vt_surface_note_input): the frame that first draws
 * the surface's answering commit logs the oldest (input_ns).
 */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <linux/input-event-codes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wlr/backend.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_primary_selection.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/types/wlr_touch.h>
#include <wlr/types/wlr_virtual_keyboard_v1.h>
#include <wlr/types/wlr_virtual_pointer_v1.h>
#include <wlr/backend/session.h>
#include <wlr/interfaces/wlr_input_device.h>
#include <wlr/interfaces/wlr_keyboard.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/edges.h>
#include <wlr/util/log.h>
#include <wlr/xcursor.h>
#include <xkbcommon/xkbcommon.h>

#include "desktop/decoration.h"
#include "desktop/kiosk.h"
#include "desktop/layer_shell.h"
#include "desktop/session_lock.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "input/input.h"
#include "output/output.h"
#include "protocols/protocols.h"
#include "protocols/scroll_region.h"
#include "server.h"
#include "util.h"

static const char *empty_to_null(const char *s) {
	return s[0] != '\0' ? s : NULL;
}

/* ---- keyboards ---------------------------------------------------------- */

static void keyboard_apply_config(struct vt_keyboard *keyboard) {
	struct vt_config *config = &keyboard->server->config;
	wlr_keyboard_set_repeat_info(keyboard->device->keyboard,
		config->repeat_rate, config->repeat_delay);
	if (wlr_input_device_get_virtual_keyboard(keyboard->device) != NULL) {
		return; /* its client sets its keymap */
	}
	struct xkb_rule_names rules = {
		.rules = empty_to_null(config->xkb_rules),
		.model = empty_to_null(config->xkb_model),
		.layout = empty_to_null(config->xkb_layout),
		.variant = empty_to_null(config->xkb_variant),
		.options = empty_to_null(config->xkb_options),
	};
	/* NULL fields fall back to XKB_DEFAULT_* from the environment. */
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	struct xkb_keymap *keymap = context == NULL ? NULL :
		xkb_keymap_new_from_names(context, &rules,
			XKB_KEYMAP_COMPILE_NO_FLAGS);
	if (keymap == NULL) {
		wlr_log(WLR_ERROR, "cannot compile the keymap (layout '%s')",
			config->xkb_layout);
	} else {
		wlr_keyboard_set_keymap(keyboard->device->keyboard, keymap);
		xkb_keymap_unref(keymap);
	}
	xkb_context_unref(context);
}

void vt_input_apply_config(struct vt_server *server) {
	struct vt_keyboard *keyboard;
	wl_list_for_each(keyboard, &server->keyboards, link) {
		keyboard_apply_config(keyboard);
	}
}

static void keyboard_handle_modifiers(struct wl_listener *listener,
		void *data) {
	struct vt_keyboard *keyboard =
		wl_container_of(listener, keyboard, modifiers);
	wlr_seat_set_keyboard(keyboard->server->seat, keyboard->device);
	wlr_seat_keyboard_notify_modifiers(keyboard->server->seat,
		&keyboard->device->keyboard->modifiers);
}

/* An action on the focused window (a toplevel); false when the action is
 * not a window's. */
static bool run_window_binding(struct vt_view *focused,
		const struct vt_config_binding *binding) {
	static const int dx[] = { -1, 1, 0, 0 }, dy[] = { 0, 0, -1, 1 };
	switch (binding->action) {
	case VT_ACTION_CLOSE:
		vt_view_close(focused);
		return true;
	case VT_ACTION_MAXIMIZE:
	case VT_ACTION_FULLSCREEN:
		vt_view_toggle_fill(focused, binding->action == VT_ACTION_FULLSCREEN);
		return true;
	case VT_ACTION_MINIMIZE:
		vt_view_minimize(focused);
		return true;
	case VT_ACTION_MOVE_TO_WORKSPACE:
		vt_view_move_to_workspace(focused, binding->arg);
		return true;
	case VT_ACTION_MOVE_TO_OUTPUT:
		vt_view_move_to_output(focused, binding->arg);
		return true;
	case VT_ACTION_MOVE:
		vt_view_nudge(focused, dx[binding->arg] * binding->amount,
			dy[binding->arg] * binding->amount, 0, 0);
		return true;
	case VT_ACTION_RESIZE:
		vt_view_nudge(focused, 0, 0, binding->arg == 0 ? binding->amount : 0,
			binding->arg == 1 ? binding->amount : 0);
		return true;
	default:
		return false;
	}
}

static void run_binding(struct vt_server *server,
		const struct vt_config_binding *binding) {
	struct vt_view *focused = server->focused_view;
	if (focused != NULL && focused->kind == VT_VIEW_TOPLEVEL &&
			run_window_binding(focused, binding)) {
		return;
	}
	/* the others; a window's action without a focused window: nothing */
	switch (binding->action) {
	case VT_ACTION_EXEC:
		vt_server_spawn(server, binding->command);
		break;
	case VT_ACTION_FOCUS_NEXT:
	case VT_ACTION_FOCUS_PREV:
		vt_views_cycle_focus(server, binding->action == VT_ACTION_FOCUS_NEXT);
		if (server->focused_view != NULL &&
				server->focused_view->placed_on != NULL) {
			server->current_output = server->focused_view->placed_on;
		}
		vt_input_update_pointer_focus(server);
		break;
	case VT_ACTION_WORKSPACE:
		vt_views_show_workspace(server, binding->arg);
		break;
	case VT_ACTION_FOCUS_OUTPUT:
		vt_views_focus_output(server, binding->arg);
		break;
	case VT_ACTION_RELOAD:
		vt_server_reload(server); /* binding is gone after this */
		break;
	case VT_ACTION_EXIT:
		wl_display_terminate(server->display);
		break;
	default:
		break;
	}
}

_Static_assert((int)VT_MOD_SHIFT == (int)WLR_MODIFIER_SHIFT &&
	(int)VT_MOD_CTRL == (int)WLR_MODIFIER_CTRL &&
	(int)VT_MOD_ALT == (int)WLR_MODIFIER_ALT &&
	(int)VT_MOD_LOGO == (int)WLR_MODIFIER_LOGO,
	"config.h's modifiers are wlroots'");

/* wlroots' modifier bits of an xkb modifier mask (the keymap's own mod
 * indices). */
static uint32_t wlr_mods_of(struct wlr_keyboard *kbd, xkb_mod_mask_t mask) {
	uint32_t mods = 0;
	for (int i = 0; i < WLR_MODIFIER_COUNT; i++) {
		if (kbd->mod_indexes[i] != XKB_MOD_INVALID &&
				(mask & (1u << kbd->mod_indexes[i]))) {
			mods |= 1u << i;
		}
	}
	return mods;
}

/* The config's binding for this press (vitrail(5) bind): the key's
 * keysyms with the modifiers that did not make them (Shift+1 as exclam),
 * then its unshifted keysyms with every modifier (Shift+1 as Shift+1). */
static const struct vt_config_binding *find_binding(struct vt_server *server,
		struct wlr_keyboard *kbd, uint32_t keycode) {
	if (server->config.bindings_len == 0 || kbd->xkb_state == NULL) {
		return NULL;
	}
	xkb_keycode_t xkb_code = keycode + 8;
	uint32_t mods = wlr_keyboard_get_modifiers(kbd);
	const xkb_keysym_t *syms;
	int n = xkb_state_key_get_syms(kbd->xkb_state, xkb_code, &syms);
	uint32_t consumed = wlr_mods_of(kbd, xkb_state_key_get_consumed_mods2(
		kbd->xkb_state, xkb_code, XKB_CONSUMED_MODE_XKB));
	for (int i = 0; i < n; i++) {
		/* Shift that made a capital still counts: bindings name letters
		 * in lower case, so Alt+Shift+p is not Alt+p */
		uint32_t want = mods & ~consumed;
		if (xkb_keysym_to_lower(syms[i]) != syms[i]) {
			want |= mods & VT_MOD_SHIFT;
		}
		const struct vt_config_binding *b =
			vt_config_binding(&server->config, want, syms[i]);
		if (b != NULL) {
			return b;
		}
	}
	xkb_layout_index_t layout = xkb_state_key_get_layout(kbd->xkb_state,
		xkb_code);
	n = xkb_keymap_key_get_syms_by_level(kbd->keymap, xkb_code, layout, 0,
		&syms);
	for (int i = 0; i < n; i++) {
		const struct vt_config_binding *b =
			vt_config_binding(&server->config, mods, syms[i]);
		if (b != NULL) {
			return b;
		}
	}
	return NULL;
}

/* Ctrl+Alt+F1..F12 on a TTY: the keymap gives XF86Switch_VT_1..12; true
 * when the key switched virtual terminals (or would, where allowed). */
static bool keyboard_vt_switch(struct vt_server *server,
		struct wlr_keyboard *kbd, uint32_t keycode) {
	struct wlr_session *session = wlr_backend_get_session(server->backend);
	if (session == NULL || kbd->xkb_state == NULL ||
			!vt_config_vt_switch(&server->config)) {
		return false;
	}
	const xkb_keysym_t *syms;
	int n = xkb_state_key_get_syms(kbd->xkb_state, keycode + 8, &syms);
	for (int i = 0; i < n; i++) {
		if (syms[i] >= XKB_KEY_XF86Switch_VT_1 &&
				syms[i] <= XKB_KEY_XF86Switch_VT_12) {
			wlr_session_change_vt(session,
				syms[i] - XKB_KEY_XF86Switch_VT_1 + 1);
			return true;
		}
	}
	return false;
}

/* A bound key's press runs its action; neither it nor its release reach
 * the client. True when the key is vitrail's. */
static bool keyboard_binding(struct vt_keyboard *keyboard,
		const struct wlr_event_keyboard_key *event) {
	if (event->state == WL_KEYBOARD_KEY_STATE_RELEASED) {
		for (int i = 0; i < keyboard->bound_len; i++) {
			if (keyboard->bound_keys[i] == event->keycode) {
				keyboard->bound_keys[i] =
					keyboard->bound_keys[--keyboard->bound_len];
				return true;
			}
		}
		return false;
	}
	struct vt_server *server = keyboard->server;
	/* switching terminals works while locked too (the lock stays) */
	if (keyboard_vt_switch(server, keyboard->device->keyboard,
			event->keycode)) {
		size_t max = sizeof(keyboard->bound_keys) /
			sizeof(keyboard->bound_keys[0]);
		if ((size_t)keyboard->bound_len < max) {
			keyboard->bound_keys[keyboard->bound_len++] = event->keycode;
		}
		return true;
	}
	/* a locked session's keys are the lock surface's; a surface that
	 * inhibits shortcuts (keyboard-shortcuts-inhibit) gets them too */
	if (vt_session_locked(server) ||
			vt_protocols_shortcuts_inhibited(server)) {
		return false;
	}
	const struct vt_config_binding *binding = find_binding(server,
		keyboard->device->keyboard, event->keycode);
	if (binding == NULL) {
		return false;
	}
	size_t max = sizeof(keyboard->bound_keys) / sizeof(keyboard->bound_keys[0]);
	if ((size_t)keyboard->bound_len < max) {
		keyboard->bound_keys[keyboard->bound_len++] = event->keycode;
	}
	run_binding(server, binding);
	return true;
}

static void keyboard_handle_key(struct wl_listener *listener, void *data) {
	struct vt_keyboard *keyboard = wl_container_of(listener, keyboard, key);
	uint64_t received_ns = vt_now_ns();
	vt_outputs_input(keyboard->server);
	vt_protocols_input_activity(keyboard->server);
	struct wlr_event_keyboard_key *event = data;
	if (keyboard_binding(keyboard, event)) {
		return;
	}
	struct wlr_seat *seat = keyboard->server->seat;
	wlr_seat_set_keyboard(seat, keyboard->device);
	wlr_seat_keyboard_notify_key(seat, event->time_msec, event->keycode,
		event->state);
	vt_surface_note_input(seat->keyboard_state.focused_surface, received_ns);
}

/* The keyboard the seat falls back to when the one it had goes: the
 * newest other keyboard with a keymap, else vitrail's own (which always
 * has one). */
static void seat_keyboard_fallback(struct vt_server *server,
		struct wlr_input_device *going) {
	struct wlr_keyboard *current = server->seat->keyboard_state.keyboard;
	if (current != NULL && current != going->keyboard) {
		return;
	}
	struct vt_keyboard *other;
	wl_list_for_each(other, &server->keyboards, link) {
		if (other->device != going && other->device != server->own_keyboard &&
				other->device->keyboard->keymap != NULL) {
			wlr_seat_set_keyboard(server->seat, other->device);
			return;
		}
	}
	wlr_seat_set_keyboard(server->seat, server->own_keyboard != going ?
		server->own_keyboard : NULL);
}

static void keyboard_handle_destroy(struct wl_listener *listener, void *data) {
	struct vt_keyboard *keyboard = wl_container_of(listener, keyboard, destroy);
	seat_keyboard_fallback(keyboard->server, keyboard->device);
	wl_list_remove(&keyboard->modifiers.link);
	wl_list_remove(&keyboard->key.link);
	wl_list_remove(&keyboard->destroy.link);
	wl_list_remove(&keyboard->link);
	free(keyboard);
}

static void keyboard_create(struct vt_server *server,
		struct wlr_input_device *device) {
	struct vt_keyboard *keyboard = calloc(1, sizeof(*keyboard));
	if (keyboard == NULL) {
		return;
	}
	keyboard->server = server;
	keyboard->device = device;
	keyboard_apply_config(keyboard);
	keyboard->modifiers.notify = keyboard_handle_modifiers;
	wl_signal_add(&device->keyboard->events.modifiers, &keyboard->modifiers);
	keyboard->key.notify = keyboard_handle_key;
	wl_signal_add(&device->keyboard->events.key, &keyboard->key);
	keyboard->destroy.notify = keyboard_handle_destroy;
	wl_signal_add(&device->events.destroy, &keyboard->destroy);
	/* a virtual keyboard has no keymap until its client sends one: it
	 * becomes the seat's at its first key or modifiers */
	if (device->keyboard->keymap != NULL) {
		wlr_seat_set_keyboard(server->seat, device);
	}
	wl_list_insert(&server->keyboards, &keyboard->link);
}

/* The seat always has a keyboard, even with no keyboard device yet (a
 * headless session, a kiosk with a touch screen): a client binds its
 * wl_keyboard when its window maps, not after the capability comes with
 * the first device, which would lose that device's first keys (wtype's
 * first character, sent before the client's get_keyboard could arrive).
 * Since the capability is announced, a keymap must come with every
 * wl_keyboard (clients such as chromium and fuzzel crash on keyboard
 * events without one): until a device with a keymap exists, the seat's
 * keyboard is vitrail's own, which has the configured keymap and never
 * sends a key. */
static void own_keyboard_destroy(struct wlr_keyboard *keyboard) {
	free(keyboard);
}

static const struct wlr_keyboard_impl own_keyboard_impl = {
	.destroy = own_keyboard_destroy,
};

static void own_device_destroy(struct wlr_input_device *device) {
	free(device);
}

static const struct wlr_input_device_impl own_device_impl = {
	.destroy = own_device_destroy,
};

static bool own_keyboard_create(struct vt_server *server) {
	struct wlr_input_device *device = calloc(1, sizeof(*device));
	struct wlr_keyboard *keyboard = calloc(1, sizeof(*keyboard));
	if (device == NULL || keyboard == NULL) {
		free(device);
		free(keyboard);
		return false;
	}
	wlr_input_device_init(device, WLR_INPUT_DEVICE_KEYBOARD,
		&own_device_impl, "vitrail-keyboard", 0, 0);
	wlr_keyboard_init(keyboard, &own_keyboard_impl);
	device->keyboard = keyboard;
	server->own_keyboard = device;
	keyboard_create(server, device);
	if (keyboard->keymap == NULL) {
		/* the configured layout did not compile: the default's */
		struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
		struct xkb_keymap *keymap = context == NULL ? NULL :
			xkb_keymap_new_from_names(context, NULL,
				XKB_KEYMAP_COMPILE_NO_FLAGS);
		if (keymap != NULL) {
			wlr_keyboard_set_keymap(keyboard, keymap);
		}
		xkb_keymap_unref(keymap);
		xkb_context_unref(context);
	}
	if (keyboard->keymap == NULL) {
		wlr_log(WLR_ERROR, "no keymap compiles: clients' keyboards "
			"get none");
		return true;
	}
	if (server->seat->keyboard_state.keyboard == NULL) {
		wlr_seat_set_keyboard(server->seat, device);
	}
	return true;
}

static void update_capabilities(struct vt_server *server) {
	wlr_seat_set_capabilities(server->seat, WL_SEAT_CAPABILITY_POINTER |
		WL_SEAT_CAPABILITY_KEYBOARD | WL_SEAT_CAPABILITY_TOUCH);
}

/* A device of the backend or a virtual one joins the seat. */
static void add_device(struct vt_server *server,
		struct wlr_input_device *device) {
	switch (device->type) {
	case WLR_INPUT_DEVICE_KEYBOARD:
		keyboard_create(server, device);
		break;
	case WLR_INPUT_DEVICE_POINTER:
		wlr_cursor_attach_input_device(server->cursor, device);
		server->has_pointer = true;
		vr_node_set_enabled(server->cursor_layer, true);
		vt_server_schedule_update(server);
		break;
	case WLR_INPUT_DEVICE_TOUCH:
		wlr_cursor_attach_input_device(server->cursor, device);
		break;
	case WLR_INPUT_DEVICE_TABLET_TOOL:
		vt_protocols_add_tablet(server, device);
		break;
	default:
		break;
	}
	update_capabilities(server);
}

static void handle_new_input(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, new_input);
	add_device(server, data);
}

/*
 * zwp_virtual_keyboard_v1.keymap, checked before wlroots 0.15 reads it:
 * its handler maps `size` bytes of the fd and hands them to xkbcommon as
 * a string, so a size past the file's end (SIGBUS) or a keymap without a
 * NUL in it (read past the mapping) kills vitrail. A protocol logger sees
 * every request before it is dispatched: a bad keymap gets a protocol
 * error naming what is wrong, and the fd number wlroots is about to map
 * is made to refer to a harmless empty file of that size (its handler
 * then fails cleanly; the client is gone with our error already).
 */
static bool keymap_problem(int fd, uint32_t size, char *why, size_t len) {
	struct stat st;
	if (fstat(fd, &st) != 0) {
		snprintf(why, len, "the keymap fd cannot be read");
		return true;
	}
	if (!S_ISREG(st.st_mode)) {
		return false; /* mmap fails on it: wlroots refuses it */
	}
	if (size == 0 || (uint64_t)size > (uint64_t)st.st_size) {
		snprintf(why, len, "keymap size %u is not within the file's %lld "
			"bytes", size, (long long)st.st_size);
		return true;
	}
	void *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED) {
		return false;
	}
	bool nul = memchr(data, '\0', size) != NULL;
	munmap(data, size);
	if (!nul) {
		snprintf(why, len, "the keymap's %u bytes hold no NUL: it is not "
			"a string", size);
		return true;
	}
	return false;
}

static void keymap_guard(void *data, enum wl_protocol_logger_type type,
		const struct wl_protocol_logger_message *message) {
	if (type != WL_PROTOCOL_LOGGER_REQUEST ||
			strcmp(message->message->name, "keymap") != 0 ||
			strcmp(wl_resource_get_class(message->resource),
				"zwp_virtual_keyboard_v1") != 0 ||
			message->arguments_count != 3) {
		return;
	}
	int fd = message->arguments[1].h;
	uint32_t size = message->arguments[2].u;
	char why[160];
	if (!keymap_problem(fd, size, why, sizeof(why))) {
		return;
	}
	wl_resource_post_error(message->resource,
		0 /* zwp_virtual_keyboard_v1.error.no_keymap */, "%s", why);
	int safe = memfd_create("vitrail-no-keymap", MFD_CLOEXEC);
	if (safe >= 0 && ftruncate(safe, (off_t)(size > 0 ? size : 1)) == 0) {
		dup2(safe, fd);
	}
	if (safe >= 0) {
		close(safe);
	}
}

static void handle_new_virtual_keyboard(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
		wl_container_of(listener, server, new_virtual_keyboard);
	struct wlr_virtual_keyboard_v1 *keyboard = data;
	add_device(server, &keyboard->input_device);
}

/* ---- input history and prediction --------------------------------------- */

/* Samples older than this (at prediction time) are left out of the fit. */
#define HISTORY_MAX_AGE_NS 100000000ull

static void history_reset(struct vt_input_history *history) {
	history->surface = NULL;
	history->n = 0;
	history->next = 0;
}

/* A position over surface, now; a new surface starts a new history. */
static void history_add(struct vt_input_history *history,
		struct wlr_surface *surface, double x, double y) {
	if (history->surface != surface) {
		history_reset(history);
		history->surface = surface;
	}
	history->samples[history->next] = (struct vt_input_sample){
		.t_ns = vt_now_ns(),
		.x = x,
		.y = y,
	};
	history->next = (history->next + 1) % VT_INPUT_HISTORY;
	if (history->n < VT_INPUT_HISTORY) {
		history->n++;
	}
}

/* Solve the 3x3 system m v = r by Cramer's rule; false when singular. */
static bool solve3(const double m[3][3], const double r[3], double v[3]) {
	double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
		m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
		m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
	double scale = fabs(m[0][0] * m[1][1] * m[2][2]);
	if (scale == 0 || fabs(det) < 1e-9 * scale) {
		return false;
	}
	for (int k = 0; k < 3; k++) {
		double a[3][3];
		for (int i = 0; i < 3; i++) {
			for (int j = 0; j < 3; j++) {
				a[i][j] = j == k ? r[i] : m[i][j];
			}
		}
		v[k] = (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
			a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
			a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])) / det;
	}
	return true;
}

/*
 * Least squares over the samples no older than HISTORY_MAX_AGE_NS at
 * `now`, evaluated at t_ns. Time runs in milliseconds from the newest
 * sample (well-conditioned sums). The degree drops to what the samples
 * support: with one sample, or none recent (not moving), the newest
 * position.
 */
static void history_predict(const struct vt_input_history *history,
		uint64_t now, uint64_t t_ns, int degree, double *x, double *y) {
	int newest = (history->next + VT_INPUT_HISTORY - 1) % VT_INPUT_HISTORY;
	const struct vt_input_sample *last = &history->samples[newest];
	*x = last->x;
	*y = last->y;
	double t[VT_INPUT_HISTORY], px[VT_INPUT_HISTORY], py[VT_INPUT_HISTORY];
	int n = 0;
	for (int i = 0; i < history->n; i++) {
		const struct vt_input_sample *s = &history->samples[
			(newest + VT_INPUT_HISTORY - i) % VT_INPUT_HISTORY];
		if (s->t_ns + HISTORY_MAX_AGE_NS < now) {
			break;
		}
		t[n] = -(double)(last->t_ns - s->t_ns) / 1e6;
		px[n] = s->x;
		py[n] = s->y;
		n++;
	}
	if (degree > n - 1) {
		degree = n - 1;
	}
	double at = ((double)t_ns - (double)last->t_ns) / 1e6;
	if (degree >= 2) {
		double m[3][3] = { { 0 } }, rx[3] = { 0 }, ry[3] = { 0 };
		for (int i = 0; i < n; i++) {
			double pow[5] = { 1, t[i], t[i] * t[i], t[i] * t[i] * t[i],
				t[i] * t[i] * t[i] * t[i] };
			for (int r = 0; r < 3; r++) {
				for (int c = 0; c < 3; c++) {
					m[r][c] += pow[r + c];
				}
				rx[r] += pow[r] * px[i];
				ry[r] += pow[r] * py[i];
			}
		}
		double cx[3], cy[3];
		if (solve3(m, rx, cx) && solve3(m, ry, cy)) {
			*x = cx[0] + cx[1] * at + cx[2] * at * at;
			*y = cy[0] + cy[1] * at + cy[2] * at * at;
			return;
		}
		degree = 1; /* the times are (nearly) on two points */
	}
	if (degree == 1) {
		double tm = 0, xm = 0, ym = 0;
		for (int i = 0; i < n; i++) {
			tm += t[i];
			xm += px[i];
			ym += py[i];
		}
		tm /= n;
		xm /= n;
		ym /= n;
		double stt = 0, stx = 0, sty = 0;
		for (int i = 0; i < n; i++) {
			stt += (t[i] - tm) * (t[i] - tm);
			stx += (t[i] - tm) * (px[i] - xm);
			sty += (t[i] - tm) * (py[i] - ym);
		}
		if (stt > 1e-6) {
			*x = xm + stx / stt * (at - tm);
			*y = ym + sty / stt * (at - tm);
		}
	}
}

bool vt_input_predict(struct vt_server *server, struct wlr_surface *surface,
		uint64_t t_ns, int degree, double *x, double *y) {
	struct wlr_seat *seat = server->seat;
	const struct vt_input_history *history = NULL;
	if (seat->pointer_state.focused_surface == surface &&
			seat->pointer_state.button_count > 0) {
		history = &server->pointer_history;
		*x = seat->pointer_state.sx;
		*y = seat->pointer_state.sy;
	} else {
		struct wlr_touch_point *point =
			wlr_seat_touch_get_point(seat, server->touch_history_id);
		if (point != NULL && point->surface == surface) {
			history = &server->touch_history;
		} else {
			wl_list_for_each(point, &seat->touch_state.touch_points, link) {
				if (point->surface == surface) {
					break;
				}
			}
			if (&point->link == &seat->touch_state.touch_points) {
				return false;
			}
		}
		*x = point->sx;
		*y = point->sy;
	}
	if (history != NULL && history->surface == surface && history->n > 0) {
		history_predict(history, vt_now_ns(), t_ns, degree, x, y);
	}
	return true;
}

/* ---- cursor ------------------------------------------------------------- */

static void cursor_move_node(struct vt_server *server) {
	vr_node_set_position(server->cursor_node, (float)server->cursor->x,
		(float)server->cursor->y);
	vt_server_schedule_update(server);
}

/* The theme's image of that name, loaded on first use; NULL when the
 * theme lacks it. */
static struct vt_cursor_image *cursor_theme_image(struct vt_server *server,
		const char *name) {
	for (int i = 0; i < server->cursor_images_len; i++) {
		if (strcmp(server->cursor_images[i].name, name) == 0) {
			return &server->cursor_images[i];
		}
	}
	if (server->cursor_images_len == VT_CURSOR_IMAGES) {
		return NULL;
	}
	struct wlr_xcursor *xcursor = wlr_xcursor_manager_get_xcursor(
		server->xcursor_manager, name, 1);
	if (xcursor == NULL || xcursor->image_count == 0) {
		return NULL;
	}
	struct wlr_xcursor_image *xi = xcursor->images[0];
	struct vr_image *image = vr_image_create(xi->width, xi->height,
		VR_FORMAT_ARGB8888);
	if (image == NULL) {
		return NULL;
	}
	vr_image_write(image, xi->buffer, xi->width * 4, NULL);
	struct vt_cursor_image *ci =
		&server->cursor_images[server->cursor_images_len++];
	*ci = (struct vt_cursor_image){
		.name = name,
		.image = image,
		.width = xi->width,
		.height = xi->height,
		.hotspot_x = xi->hotspot_x,
		.hotspot_y = xi->hotspot_y,
	};
	return ci;
}

/* Show the theme's image `name` (the arrow when the theme lacks it)
 * instead of a client's cursor. */
static void cursor_set_theme_image(struct vt_server *server,
		const char *name) {
	if (server->cursor_surface != NULL) {
		vr_node_set_parent(server->cursor_surface->node, NULL);
		wl_list_remove(&server->cursor_surface_destroy.link);
		server->cursor_surface = NULL;
	}
	struct vt_cursor_image *ci = cursor_theme_image(server, name);
	if (ci == NULL) {
		ci = cursor_theme_image(server, "left_ptr");
	}
	if (ci != NULL && ci->name != server->cursor_name) {
		vr_node_set_image(server->cursor_image_node, ci->image, NULL,
			ci->width, ci->height, VR_TRANSFORM_NORMAL);
		vr_node_set_position(server->cursor_image_node,
			-(float)ci->hotspot_x, -(float)ci->hotspot_y);
		server->cursor_name = ci->name;
	}
	vr_node_set_enabled(server->cursor_image_node, true);
	vt_server_schedule_update(server);
}

/* The surface that takes pointer and touch input at (lx, ly): while the
 * session is locked, a lock surface's; otherwise a window's or a layer
 * surface's, unless another client holds the input inhibitor. The view
 * (NULL for a lock or layer surface) goes to *view when view is not
 * NULL. */
static struct wlr_surface *input_surface_at(struct vt_server *server,
		double lx, double ly, double *sx, double *sy,
		struct vt_view **view) {
	if (view != NULL) {
		*view = NULL;
	}
	if (vt_session_locked(server)) {
		return vt_session_lock_surface_at(server, lx, ly, sx, sy);
	}
	/* a window's surface, or a layer surface (view NULL) */
	struct wlr_surface *surface = NULL;
	struct vt_view *v = vt_view_at(server, lx, ly, &surface, sx, sy);
	struct wlr_surface *owner = surface != NULL ? surface :
		v != NULL ? v->surface : NULL;
	if (owner == NULL || !vt_protocols_client_allowed(server,
			wl_resource_get_client(owner->resource))) {
		return NULL;
	}
	/* on a window's decorations: its view, no surface */
	if (view != NULL) {
		*view = v;
	}
	return surface;
}

struct surface_find {
	struct wlr_surface *surface;
	bool found;
	int sx, sy;
};

static void surface_find_iterator(struct wlr_surface *surface, int sx,
		int sy, void *data) {
	struct surface_find *find = data;
	if (surface == find->surface && !find->found) {
		find->found = true;
		find->sx = sx;
		find->sy = sy;
	}
}

/* The layout position of the top-left corner of a shown window's
 * surface (its main surface, a subsurface or a popup); false when it is
 * none (a layer or lock surface, or a hidden window's). */
static bool window_surface_origin(struct vt_server *server,
		struct wlr_surface *surface, double *lx, double *ly) {
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (!vt_view_visible(view)) {
			continue;
		}
		struct surface_find find = { .surface = surface };
		view->impl->for_each_surface(view, surface_find_iterator, &find);
		if (find.found) {
			int ox, oy;
			vt_view_surface_origin(view, &ox, &oy);
			*lx = ox + find.sx;
			*ly = oy + find.sy;
			return true;
		}
	}
	return false;
}

/*
 * The pointer's implicit grab (wl_pointer): while a button the client was
 * sent is held, the surface it went down on keeps the pointer, wherever
 * the pointer goes, and gets its motion relative to itself. True when the
 * motion went there. A drag and drop (a grab of wlroots') moves the focus
 * itself.
 */
static bool pointer_grab_motion(struct vt_server *server, uint32_t time,
		struct wlr_surface *surface, uint64_t received_ns) {
	struct wlr_seat *seat = server->seat;
	struct wlr_surface *focused = seat->pointer_state.focused_surface;
	double ox, oy;
	if (focused == NULL || focused == surface ||
			seat->pointer_state.button_count == 0 ||
			wlr_seat_pointer_has_grab(seat) ||
			!window_surface_origin(server, focused, &ox, &oy)) {
		return false;
	}
	double sx = server->cursor->x - ox, sy = server->cursor->y - oy;
	if (received_ns == 0 && sx == seat->pointer_state.sx &&
			sy == seat->pointer_state.sy) {
		return true; /* nothing moved */
	}
	wlr_seat_pointer_notify_motion(seat, time, sx, sy);
	server->pointer_frame_owed = true;
	history_add(&server->pointer_history, focused, sx, sy);
	if (received_ns != 0) {
		vt_surface_note_input(focused, received_ns);
	}
	return true;
}

/* received_ns: when the event that moved the cursor came (0: no event,
 * the focus follows windows that moved). */
static void process_motion(struct vt_server *server, uint32_t time,
		uint64_t received_ns) {
	cursor_move_node(server);
	double sx, sy;
	struct vt_view *view;
	struct wlr_surface *surface = input_surface_at(server, server->cursor->x,
		server->cursor->y, &sx, &sy, &view);
	struct wlr_surface *focused = server->seat->pointer_state.focused_surface;
	if (received_ns == 0 && surface != NULL && surface == focused &&
			sx == server->seat->pointer_state.sx &&
			sy == server->seat->pointer_state.sy) {
		return; /* nothing moved under the pointer */
	}
	if (pointer_grab_motion(server, time, surface, received_ns)) {
		return;
	}
	if (surface == NULL) {
		/* the arrow, or on a decoration's edge its resize cursor */
		const char *name = "left_ptr";
		uint32_t edges;
		if (view != NULL && vt_view_decoration_at(view, server->cursor->x,
				server->cursor->y, &edges) == VT_PART_EDGE) {
			name = wlr_xcursor_get_resize_name(edges);
		}
		if (focused != NULL || server->cursor_surface != NULL ||
				server->cursor_name == NULL ||
				strcmp(server->cursor_name, name) != 0) {
			cursor_set_theme_image(server, name);
		}
		wlr_seat_pointer_clear_focus(server->seat);
		server->pointer_frame_owed = true;
		return;
	}
	if (surface != focused && server->cursor_surface == NULL &&
			server->cursor_name != NULL &&
			strcmp(server->cursor_name, "left_ptr") != 0) {
		/* from a decoration's edge: the arrow until the client says */
		cursor_set_theme_image(server, "left_ptr");
	}
	wlr_seat_pointer_notify_enter(server->seat, surface, sx, sy);
	wlr_seat_pointer_notify_motion(server->seat, time, sx, sy);
	server->pointer_frame_owed = true;
	history_add(&server->pointer_history, surface, sx, sy);
	if (received_ns != 0) {
		vt_surface_note_input(server->seat->pointer_state.focused_surface,
			received_ns);
	}
}

void vt_input_update_pointer_focus(struct vt_server *server) {
	/* a move or resize the pointer drives keeps it (grab_motion) */
	if (!server->has_pointer || (server->grab.mode != VT_GRAB_NONE &&
			!server->grab.touch)) {
		return;
	}
	struct wlr_seat_pointer_state *state = &server->seat->pointer_state;
	struct wlr_surface *was = state->focused_surface;
	double was_x = state->sx, was_y = state->sy;
	process_motion(server, (uint32_t)(vt_now_ns() / 1000000u), 0);
	/* no device frame follows: close what was sent (enter, leave,
	 * motion) with one of vitrail's */
	if (state->focused_surface != was || state->sx != was_x ||
			state->sy != was_y) {
		wlr_seat_pointer_notify_frame(server->seat);
		server->pointer_frame_owed = false;
	}
}

/* A move or resize under way takes the pointer's motion. */
static bool grab_motion(struct vt_server *server) {
	if (server->grab.mode == VT_GRAB_NONE || server->grab.touch) {
		return false;
	}
	cursor_move_node(server);
	vt_grab_motion(server);
	return true;
}

static void pointer_motion(struct vt_server *server,
		struct wlr_event_pointer_motion *event, uint64_t received_ns) {
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	vt_kiosk_pointer_activity(server);
	double dx = event->delta_x, dy = event->delta_y;
	/* relative motion goes out; a locked pointer stays (and sends no
	 * wl_pointer.motion), a confined one stops at its region's edge */
	if (!vt_protocols_pointer_motion(server, event->time_msec, &dx, &dy,
			event->unaccel_dx, event->unaccel_dy)) {
		return;
	}
	wlr_cursor_move(server->cursor, event->device, dx, dy);
	if (grab_motion(server)) {
		return;
	}
	process_motion(server, event->time_msec, received_ns);
}

static void pointer_motion_absolute(struct vt_server *server,
		struct wlr_event_pointer_motion_absolute *event,
		uint64_t received_ns) {
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	vt_kiosk_pointer_activity(server);
	wlr_cursor_warp_absolute(server->cursor, event->device, event->x, event->y);
	if (grab_motion(server)) {
		return;
	}
	process_motion(server, event->time_msec, received_ns);
}

/* The drag modifier held and a button pressed over a window: the left
 * one moves it, the right one resizes it by the edges nearest the
 * cursor. True when it started a grab. */
static bool drag_modifier_grab(struct vt_server *server, uint32_t button) {
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(server->seat);
	uint32_t want = server->config.drag_modifier;
	if (want == 0 || keyboard == NULL || vt_session_locked(server) ||
			(wlr_keyboard_get_modifiers(keyboard) & VT_MOD_BINDABLE) != want ||
			(button != BTN_LEFT && button != BTN_RIGHT)) {
		return false;
	}
	double sx, sy;
	struct wlr_surface *surface = NULL;
	struct vt_view *view = vt_view_at(server, server->cursor->x,
		server->cursor->y, &surface, &sx, &sy);
	if (view == NULL || view->kind != VT_VIEW_TOPLEVEL) {
		return false;
	}
	vt_view_focus(view, view->surface);
	uint32_t edges = 0;
	if (button == BTN_RIGHT) {
		struct wlr_box geo;
		view->impl->get_geometry(view, &geo);
		edges = (server->cursor->x < view->x + geo.width / 2.0 ?
			WLR_EDGE_LEFT : WLR_EDGE_RIGHT) |
			(server->cursor->y < view->y + geo.height / 2.0 ?
			WLR_EDGE_TOP : WLR_EDGE_BOTTOM);
	}
	vt_view_begin_grab(view, button == BTN_LEFT ? VT_GRAB_MOVE :
		VT_GRAB_RESIZE, edges, true);
	return server->grab.mode != VT_GRAB_NONE;
}

/* The left button or a finger on a part of a window's decorations: the
 * title bar moves the window, an edge resizes it (the pointer drives the
 * grab, or the touch point *touch_id, now at lx, ly), the close button
 * asks it to close. */
static void decoration_act(struct vt_view *view, enum vt_decoration_part part,
		uint32_t edges, const int32_t *touch_id, double lx, double ly) {
	if (part == VT_PART_CLOSE) {
		vt_view_close(view);
		return;
	}
	if (part != VT_PART_TITLE && part != VT_PART_EDGE) {
		return;
	}
	enum vt_grab_mode mode = part == VT_PART_TITLE ?
		VT_GRAB_MOVE : VT_GRAB_RESIZE;
	uint32_t grab_edges = part == VT_PART_EDGE ? edges : 0;
	if (touch_id != NULL) {
		vt_view_begin_touch_grab(view, mode, grab_edges, *touch_id, lx, ly);
	} else {
		vt_view_begin_grab(view, mode, grab_edges, true);
	}
}

/* A button pressed on a window's decorations (vitrail(5), decorations):
 * the window takes the focus; with the left button the title bar moves
 * it, the close button asks it to close, an edge resizes it. The button
 * is vitrail's (the client never sees it). True when it was on one. */
static bool decoration_press(struct vt_server *server, uint32_t button) {
	double sx, sy;
	struct vt_view *view;
	struct wlr_surface *surface = input_surface_at(server, server->cursor->x,
		server->cursor->y, &sx, &sy, &view);
	uint32_t edges;
	enum vt_decoration_part part = surface == NULL && view != NULL ?
		vt_view_decoration_at(view, server->cursor->x, server->cursor->y,
			&edges) : VT_PART_NONE;
	if (part == VT_PART_NONE) {
		return false;
	}
	vt_view_focus(view, view->surface);
	if (button == BTN_LEFT) {
		decoration_act(view, part, edges, NULL, 0, 0);
	}
	/* a grab ends at the release; otherwise the release is kept */
	if (server->grab.mode == VT_GRAB_NONE) {
		server->decoration_button = button;
	}
	return true;
}

/* A touch down on a window's decorations: the window takes the focus; on
 * the title bar the finger moves it, on an edge it resizes it, on the
 * close button the window is asked to close. */
static void decoration_touch(struct vt_server *server, struct vt_view *view,
		int32_t touch_id, double lx, double ly) {
	uint32_t edges;
	enum vt_decoration_part part = vt_view_decoration_at(view, lx, ly,
		&edges);
	if (part == VT_PART_NONE) {
		return;
	}
	vt_view_focus(view, view->surface);
	decoration_act(view, part, edges, &touch_id, lx, ly);
}

static void pointer_button(struct vt_server *server,
		struct wlr_event_pointer_button *event, uint64_t received_ns) {
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	vt_kiosk_pointer_activity(server);
	/* a drag of the drag modifier's: its buttons are vitrail's */
	if (server->grab.swallow) {
		if (event->state == WLR_BUTTON_RELEASED) {
			vt_grab_end(server);
			vt_input_update_pointer_focus(server);
		}
		return;
	}
	if (event->state == WLR_BUTTON_PRESSED &&
			server->grab.mode == VT_GRAB_NONE &&
			(drag_modifier_grab(server, event->button) ||
			decoration_press(server, event->button))) {
		return;
	}
	if (event->state == WLR_BUTTON_RELEASED &&
			server->decoration_button == event->button) {
		server->decoration_button = 0;
		return;
	}
	wlr_seat_pointer_notify_button(server->seat, event->time_msec,
		event->button, event->state);
	server->pointer_frame_owed = true;
	if (server->grab.mode != VT_GRAB_NONE && !server->grab.touch &&
			server->seat->pointer_state.button_count == 0) {
		vt_grab_end(server);
		vt_input_update_pointer_focus(server);
	} else if (event->state == WLR_BUTTON_RELEASED &&
			server->seat->pointer_state.button_count == 0) {
		/* the implicit grab's end: the pointer goes to what it is
		 * over, if it left the surface */
		double sx, sy;
		struct wlr_surface *under = input_surface_at(server,
			server->cursor->x, server->cursor->y, &sx, &sy, NULL);
		if (under != server->seat->pointer_state.focused_surface) {
			process_motion(server, event->time_msec, 0);
		}
	}
	vt_surface_note_input(server->seat->pointer_state.focused_surface,
		received_ns);
	if (event->state == WLR_BUTTON_PRESSED) {
		/* a click makes its output the current one */
		struct vt_output *output = vt_output_at(server,
			server->cursor->x, server->cursor->y);
		if (output != NULL) {
			server->current_output = output;
		}
		double sx, sy;
		struct vt_view *view;
		struct wlr_surface *surface = input_surface_at(server,
			server->cursor->x, server->cursor->y, &sx, &sy, &view);
		if (view != NULL) {
			vt_view_focus(view, view->surface);
		} else {
			/* an on_demand layer surface takes the keyboard */
			vt_layers_focus_surface(server, surface);
		}
	}
}

static void pointer_axis(struct vt_server *server,
		struct wlr_event_pointer_axis *event, uint64_t received_ns) {
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	vt_kiosk_pointer_activity(server);
	/* over a scroll region: vitrail scrolls it (scroll_region.c) */
	if (!vt_session_locked(server) &&
			vt_scroll_pointer_axis(server, event)) {
		return;
	}
	wlr_seat_pointer_notify_axis(server->seat, event->time_msec,
		event->orientation, event->delta, event->delta_discrete,
		event->source);
	server->pointer_frame_owed = true;
	vt_surface_note_input(server->seat->pointer_state.focused_surface,
		received_ns);
}

/* A device's frame: wl_pointer.frame closes what went out since the last
 * one, if anything did. */
static void pointer_frame(struct vt_server *server) {
	if (server->pointer_frame_owed) {
		wlr_seat_pointer_notify_frame(server->seat);
		server->pointer_frame_owed = false;
	}
}

/*
 * A client's virtual pointer (wlr-virtual-pointer-unstable-v1) groups its
 * events with zwlr_virtual_pointer_v1.frame, as a physical device does
 * with its frame: they take effect together, at the frame. wlroots 0.15
 * holds its axis events until then but passes motion and buttons on at
 * once; vitrail holds those too, in order, so that clients see none of a
 * group before its frame, then all of it closed by wl_pointer.frame. A
 * group past VIRTUAL_POINTER_HELD_MAX events (a client that never sends
 * a frame) goes out as if its frame had come, rather than grow without
 * bound.
 */
#define VIRTUAL_POINTER_HELD_MAX 256

enum held_kind {
	HELD_MOTION,
	HELD_MOTION_ABSOLUTE,
	HELD_BUTTON,
	HELD_AXIS,
};

/* A virtual pointer's event, held until its frame. */
struct held_event {
	enum held_kind kind;
	uint64_t received_ns; /* when vitrail received it */
	union {
		struct wlr_event_pointer_motion motion;
		struct wlr_event_pointer_motion_absolute motion_absolute;
		struct wlr_event_pointer_button button;
		struct wlr_event_pointer_axis axis;
	};
};

struct vt_virtual_pointer {
	struct vt_server *server;
	struct wlr_input_device *device;
	struct wl_array held; /* struct held_event, oldest first */
	struct wl_list link; /* vt_server::virtual_pointers */
	struct wl_listener frame;
	struct wl_listener destroy;
};

static struct vt_virtual_pointer *virtual_pointer_of(struct vt_server *server,
		struct wlr_input_device *device) {
	struct vt_virtual_pointer *vp;
	wl_list_for_each(vp, &server->virtual_pointers, link) {
		if (vp->device == device) {
			return vp;
		}
	}
	return NULL;
}

/* The events held so far go out, in order, then wl_pointer.frame if any
 * reached a client. */
static void virtual_pointer_release(struct vt_virtual_pointer *vp) {
	struct vt_server *server = vp->server;
	/* taken out first: what the events set off cannot add to it while
	 * it is read */
	struct wl_array held = vp->held;
	wl_array_init(&vp->held);
	struct held_event *e;
	wl_array_for_each(e, &held) {
		switch (e->kind) {
		case HELD_MOTION:
			pointer_motion(server, &e->motion, e->received_ns);
			break;
		case HELD_MOTION_ABSOLUTE:
			pointer_motion_absolute(server, &e->motion_absolute,
				e->received_ns);
			break;
		case HELD_BUTTON:
			pointer_button(server, &e->button, e->received_ns);
			break;
		case HELD_AXIS:
			pointer_axis(server, &e->axis, e->received_ns);
			break;
		}
	}
	wl_array_release(&held);
	pointer_frame(server);
}

/* True when event (of device) is a virtual pointer's and is held until
 * its frame; event->received_ns is set here. */
static bool virtual_pointer_hold(struct vt_server *server,
		struct wlr_input_device *device, struct held_event *event) {
	struct vt_virtual_pointer *vp = virtual_pointer_of(server, device);
	if (vp == NULL) {
		return false;
	}
	event->received_ns = vt_now_ns();
	struct held_event *slot = wl_array_add(&vp->held, sizeof(*slot));
	if (slot == NULL) {
		wlr_log(WLR_ERROR, "out of memory: a virtual pointer's event "
			"goes out before its frame");
		return false;
	}
	*slot = *event;
	if (vp->held.size / sizeof(*slot) >= VIRTUAL_POINTER_HELD_MAX) {
		virtual_pointer_release(vp);
	}
	return true;
}

static void virtual_pointer_handle_frame(struct wl_listener *listener,
		void *data) {
	struct vt_virtual_pointer *vp = wl_container_of(listener, vp, frame);
	virtual_pointer_release(vp);
}

static void virtual_pointer_destroy(struct vt_virtual_pointer *vp) {
	wl_list_remove(&vp->frame.link);
	wl_list_remove(&vp->destroy.link);
	wl_list_remove(&vp->link);
	/* a group its frame never closed never happened */
	wl_array_release(&vp->held);
	free(vp);
}

static void virtual_pointer_handle_destroy(struct wl_listener *listener,
		void *data) {
	struct vt_virtual_pointer *vp = wl_container_of(listener, vp, destroy);
	virtual_pointer_destroy(vp);
}

static void handle_new_virtual_pointer(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
		wl_container_of(listener, server, new_virtual_pointer);
	struct wlr_virtual_pointer_v1_new_pointer_event *event = data;
	struct wlr_input_device *device = &event->new_pointer->input_device;
	struct vt_virtual_pointer *vp = calloc(1, sizeof(*vp));
	if (vp == NULL) {
		wlr_log(WLR_ERROR, "out of memory: a virtual pointer's events "
			"go out before its frames");
	} else {
		vp->server = server;
		vp->device = device;
		wl_array_init(&vp->held);
		wl_list_insert(&server->virtual_pointers, &vp->link);
		/* ahead of wlr_cursor's frame listener (add_device) */
		vp->frame.notify = virtual_pointer_handle_frame;
		wl_signal_add(&device->pointer->events.frame, &vp->frame);
		vp->destroy.notify = virtual_pointer_handle_destroy;
		wl_signal_add(&device->events.destroy, &vp->destroy);
	}
	/* one seat: the suggested one is ours */
	add_device(server, device);
	if (event->suggested_output != NULL) {
		/* absolute motion spans that output instead of the layout */
		wlr_cursor_map_input_to_output(server->cursor, device,
			event->suggested_output);
	}
}

static void handle_cursor_motion(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, cursor_motion);
	struct wlr_event_pointer_motion *event = data;
	struct held_event held = { .kind = HELD_MOTION, .motion = *event };
	if (!virtual_pointer_hold(server, event->device, &held)) {
		pointer_motion(server, event, vt_now_ns());
	}
}

static void handle_cursor_motion_absolute(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
		wl_container_of(listener, server, cursor_motion_absolute);
	struct wlr_event_pointer_motion_absolute *event = data;
	struct held_event held = {
		.kind = HELD_MOTION_ABSOLUTE,
		.motion_absolute = *event,
	};
	if (!virtual_pointer_hold(server, event->device, &held)) {
		pointer_motion_absolute(server, event, vt_now_ns());
	}
}

static void handle_cursor_button(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, cursor_button);
	struct wlr_event_pointer_button *event = data;
	struct held_event held = { .kind = HELD_BUTTON, .button = *event };
	if (!virtual_pointer_hold(server, event->device, &held)) {
		pointer_button(server, event, vt_now_ns());
	}
}

static void handle_cursor_axis(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, cursor_axis);
	struct wlr_event_pointer_axis *event = data;
	struct held_event held = { .kind = HELD_AXIS, .axis = *event };
	if (!virtual_pointer_hold(server, event->device, &held)) {
		pointer_axis(server, event, vt_now_ns());
	}
}

/* wlr_cursor's frame, of any of its devices (it does not say which): a
 * virtual pointer's own frame listener released its events just before
 * (it listens ahead of the cursor). */
static void handle_cursor_frame(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, cursor_frame);
	pointer_frame(server);
}

static void handle_cursor_surface_destroy(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
		wl_container_of(listener, server, cursor_surface_destroy);
	wl_list_remove(&server->cursor_surface_destroy.link);
	server->cursor_surface = NULL;
	vr_node_set_enabled(server->cursor_image_node, true);
	vt_server_schedule_update(server);
}

static void handle_request_cursor(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, request_cursor);
	struct wlr_seat_pointer_request_set_cursor_event *event = data;
	if (server->seat->pointer_state.focused_client != event->seat_client) {
		return;
	}
	if (server->cursor_surface != NULL) {
		vr_node_set_parent(server->cursor_surface->node, NULL);
		wl_list_remove(&server->cursor_surface_destroy.link);
		server->cursor_surface = NULL;
	}
	vr_node_set_enabled(server->cursor_image_node, false);
	struct vt_surface *surface = event->surface != NULL ?
		vt_surface_from_wlr(event->surface) : NULL;
	if (surface != NULL) {
		server->cursor_surface = surface;
		server->cursor_surface_destroy.notify = handle_cursor_surface_destroy;
		wl_signal_add(&event->surface->events.destroy,
			&server->cursor_surface_destroy);
		vr_node_set_parent(surface->node, server->cursor_node);
		vr_node_set_position(surface->node, -event->hotspot_x,
			-event->hotspot_y);
	}
	vt_server_schedule_update(server);
}

/* ---- touch -------------------------------------------------------------- */

/* A touch screen's point (x, y in 0..1 across and down its panel) in
 * layout coordinates. The panel is the output the config's touch_output
 * names, else the one the device names (libinput's WL_OUTPUT), else the
 * whole layout. The panel turns with its output: the point is the layout
 * point the output shows at that spot of its buffer. */
static void touch_to_layout(struct vt_server *server,
		struct wlr_input_device *device, double x, double y, double *lx,
		double *ly) {
	const char *name = server->config.touch_output[0] != '\0' ?
		server->config.touch_output : device->output_name;
	struct vt_output *output = name != NULL ?
		vt_output_by_name(server, name) : NULL;
	if (output == NULL || !vt_output_enabled(output)) {
		wlr_cursor_absolute_to_layout_coords(server->cursor, device, x, y,
			lx, ly);
		return;
	}
	/* the buffer's pixel there, back through the view that draws the
	 * layout into the buffer (vt_output_view: scale and transform) */
	struct wlr_output *wlr_output = vt_output_wlr(output);
	struct vr_mat view = vt_output_view(output), to_layout;
	if (!vr_mat_invert(&to_layout, &view)) {
		wlr_cursor_absolute_to_layout_coords(server->cursor, device, x, y,
			lx, ly);
		return;
	}
	float fx, fy;
	vr_mat_apply(&to_layout, (float)(x * wlr_output->width),
		(float)(y * wlr_output->height), &fx, &fy);
	*lx = fx;
	*ly = fy;
}

/*
 * A touch point's implicit grab (wl_touch): the surface a finger came
 * down on gets all of its motion until it lifts, wherever it goes, at
 * positions relative to that surface; and when the surface goes away
 * before the finger lifts, its client gets the point's wl_touch.up then.
 * One for each point of the seat's, found through its listener on the
 * point's destroy signal and freed with the point.
 */
struct touch_grab {
	struct wlr_seat *seat;
	int32_t touch_id;
	/* the point's surface's top-left, layout coordinates, as of the last
	 * event over it */
	double origin_x, origin_y;
	struct wl_listener point_destroy;
	struct wl_listener surface_destroy;
};

static void touch_grab_handle_point_destroy(struct wl_listener *listener,
		void *data) {
	struct touch_grab *grab = wl_container_of(listener, grab, point_destroy);
	wl_list_remove(&grab->point_destroy.link);
	wl_list_remove(&grab->surface_destroy.link);
	free(grab);
}

static void touch_grab_handle_surface_destroy(struct wl_listener *listener,
		void *data) {
	struct touch_grab *grab = wl_container_of(listener, grab, surface_destroy);
	wl_list_remove(&grab->surface_destroy.link);
	wl_list_init(&grab->surface_destroy.link);
	/* the point's up (and its end: this frees grab) and a frame */
	struct wlr_seat *seat = grab->seat;
	wlr_seat_touch_notify_up(seat, (uint32_t)(vt_now_ns() / 1000000u),
		grab->touch_id);
	wlr_seat_touch_notify_frame(seat);
}

static struct touch_grab *touch_grab_of(struct wlr_touch_point *point) {
	struct wl_listener *listener = wl_signal_get(&point->events.destroy,
		touch_grab_handle_point_destroy);
	if (listener == NULL) {
		return NULL;
	}
	struct touch_grab *grab = wl_container_of(listener, grab, point_destroy);
	return grab;
}

/* The grab of the point just down at (lx, ly), (sx, sy) on its surface. */
static void touch_grab_start(struct wlr_seat *seat, int32_t touch_id,
		double lx, double ly, double sx, double sy) {
	struct wlr_touch_point *point = wlr_seat_touch_get_point(seat, touch_id);
	if (point == NULL || point->surface == NULL) {
		return;
	}
	struct touch_grab *grab = calloc(1, sizeof(*grab));
	if (grab == NULL) {
		wlr_log(WLR_ERROR, "out of memory: touch point %d not grabbed",
			touch_id);
		return;
	}
	grab->seat = seat;
	grab->touch_id = touch_id;
	grab->origin_x = lx - sx;
	grab->origin_y = ly - sy;
	grab->point_destroy.notify = touch_grab_handle_point_destroy;
	wl_signal_add(&point->events.destroy, &grab->point_destroy);
	grab->surface_destroy.notify = touch_grab_handle_surface_destroy;
	wl_signal_add(&point->surface->events.destroy, &grab->surface_destroy);
}

static void handle_touch_down(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, touch_down);
	uint64_t received_ns = vt_now_ns();
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	vt_kiosk_touch_activity(server);
	struct wlr_event_touch_down *event = data;
	double lx, ly;
	touch_to_layout(server, event->device, event->x, event->y, &lx, &ly);
	server->last_touch_id = event->touch_id;
	server->last_touch_x = lx;
	server->last_touch_y = ly;
	double sx, sy;
	struct vt_view *view;
	struct wlr_surface *surface = input_surface_at(server, lx, ly, &sx, &sy,
		&view);
	if (surface == NULL) {
		if (view != NULL && server->grab.mode == VT_GRAB_NONE) {
			decoration_touch(server, view, event->touch_id, lx, ly);
		}
		return;
	}
	if (view != NULL) {
		vt_view_focus(view, view->surface);
	} else {
		/* a layer surface: on_demand ones take the keyboard */
		vt_layers_focus_surface(server, surface);
	}
	/* down in a scroll region: the finger drags it (scroll_region.c) */
	if (view != NULL && vt_scroll_touch_down(server, event->time_msec,
			event->touch_id, lx, ly)) {
		return;
	}
	if (wlr_seat_touch_notify_down(server->seat, surface, event->time_msec,
			event->touch_id, sx, sy) != 0) {
		touch_grab_start(server->seat, event->touch_id, lx, ly, sx, sy);
	}
	vt_surface_note_input(surface, received_ns);
	/* the history follows one touch point, the first down of those held */
	if (wlr_seat_touch_get_point(server->seat, server->touch_history_id) ==
			NULL || event->touch_id == server->touch_history_id) {
		server->touch_history_id = event->touch_id;
		history_reset(&server->touch_history);
		history_add(&server->touch_history, surface, sx, sy);
	}
}

static void handle_touch_up(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, touch_up);
	uint64_t received_ns = vt_now_ns();
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	struct wlr_event_touch_up *event = data;
	if (server->grab.touch && server->grab.touch_id == event->touch_id) {
		vt_grab_end(server);
	}
	if (vt_scroll_touch_up(server, event->time_msec, event->touch_id)) {
		return;
	}
	struct wlr_touch_point *point =
		wlr_seat_touch_get_point(server->seat, event->touch_id);
	if (point != NULL) {
		vt_surface_note_input(point->surface, received_ns);
		wlr_seat_touch_notify_up(server->seat, event->time_msec,
			event->touch_id);
	}
}

static void handle_touch_motion(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, touch_motion);
	uint64_t received_ns = vt_now_ns();
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	struct wlr_event_touch_motion *event = data;
	double lx, ly;
	touch_to_layout(server, event->device, event->x, event->y, &lx, &ly);
	server->last_touch_id = event->touch_id;
	server->last_touch_x = lx;
	server->last_touch_y = ly;
	if (server->grab.touch && server->grab.touch_id == event->touch_id) {
		vt_grab_motion_to(server, lx, ly);
		return;
	}
	if (vt_scroll_touch_motion(server, event->time_msec,
			event->touch_id, lx, ly)) {
		return;
	}
	struct wlr_touch_point *point =
		wlr_seat_touch_get_point(server->seat, event->touch_id);
	if (point == NULL || point->surface == NULL) {
		return;
	}
	/* the implicit grab: the point's surface gets the motion, over it
	 * or not, relative to where it was last seen under the finger */
	struct touch_grab *grab = touch_grab_of(point);
	double sx, sy;
	struct wlr_surface *surface = input_surface_at(server, lx, ly, &sx, &sy,
		NULL);
	if (surface == point->surface) {
		if (grab != NULL) {
			grab->origin_x = lx - sx;
			grab->origin_y = ly - sy;
		}
	} else if (grab != NULL) {
		sx = lx - grab->origin_x;
		sy = ly - grab->origin_y;
	} else {
		return;
	}
	wlr_seat_touch_notify_motion(server->seat, event->time_msec,
		event->touch_id, sx, sy);
	vt_surface_note_input(point->surface, received_ns);
	if (event->touch_id == server->touch_history_id) {
		history_add(&server->touch_history, point->surface, sx, sy);
	}
}

static void handle_touch_frame(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, touch_frame);
	wlr_seat_touch_notify_frame(server->seat);
}

/* ---- selections --------------------------------------------------------- */

static void handle_request_set_selection(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
		wl_container_of(listener, server, request_set_selection);
	struct wlr_seat_request_set_selection_event *event = data;
	wlr_seat_set_selection(server->seat, event->source, event->serial);
}

/* wl_data_device.start_drag: a drag whose serial is that of the button
 * press or touch down still held on its origin starts (wlroots' grab
 * carries the drag and drop); any other is refused and freed. wlroots
 * 0.15 frees a drag that never started only through its data source: one
 * without a source is started as a keyboard-only drag and at once
 * cancelled, which frees it (left alone, every refused request kept its
 * drag for the rest of the session). */
static void handle_request_start_drag(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
		wl_container_of(listener, server, request_start_drag);
	struct wlr_seat_request_start_drag_event *event = data;
	struct wlr_seat *seat = server->seat;
	if (event->origin != NULL && wlr_seat_validate_pointer_grab_serial(seat,
			event->origin, event->serial)) {
		wlr_seat_start_pointer_drag(seat, event->drag, event->serial);
		return;
	}
	struct wlr_touch_point *point;
	if (event->origin != NULL && wlr_seat_validate_touch_grab_serial(seat,
			event->origin, event->serial, &point)) {
		wlr_seat_start_touch_drag(seat, event->drag, event->serial, point);
		return;
	}
	if (event->drag->source != NULL) {
		wlr_data_source_destroy(event->drag->source); /* and its drag */
		return;
	}
	wlr_seat_start_drag(seat, event->drag, event->serial);
	wlr_seat_keyboard_end_grab(seat);
}

static void handle_request_set_primary_selection(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
		wl_container_of(listener, server, request_set_primary_selection);
	struct wlr_seat_request_set_primary_selection_event *event = data;
	wlr_seat_set_primary_selection(server->seat, event->source, event->serial);
}

/* ---- setup -------------------------------------------------------------- */

/* The cursor theme and size of XCURSOR_THEME and XCURSOR_SIZE (unset:
 * the default theme at 24 pixels), exported to the clients vitrail
 * starts so that their cursors match. */
static bool cursor_init_image(struct vt_server *server) {
	const char *theme = getenv("XCURSOR_THEME");
	theme = theme != NULL && theme[0] != '\0' ? theme : NULL;
	unsigned size = 24;
	const char *size_env = getenv("XCURSOR_SIZE");
	if (size_env != NULL && size_env[0] != '\0') {
		char *end;
		errno = 0;
		unsigned long v = strtoul(size_env, &end, 10);
		if (errno != 0 || *end != '\0' || v < 1 || v > 512) {
			wlr_log(WLR_ERROR, "XCURSOR_SIZE '%s' is not a size from 1 "
				"to 512: using 24", size_env);
		} else {
			size = (unsigned)v;
		}
	}
	char size_str[16];
	snprintf(size_str, sizeof(size_str), "%u", size);
	setenv("XCURSOR_SIZE", size_str, 1);
	server->xcursor_manager = wlr_xcursor_manager_create(theme, size);
	if (server->xcursor_manager == NULL ||
			!wlr_xcursor_manager_load(server->xcursor_manager, 1)) {
		wlr_log(WLR_ERROR, "cannot load the cursor theme %s at size %u",
			theme != NULL ? theme : "(default)", size);
		return false;
	}
	cursor_set_theme_image(server, "left_ptr");
	if (server->cursor_name == NULL) {
		wlr_log(WLR_ERROR, "the cursor theme %s has no left_ptr",
			theme != NULL ? theme : "(default)");
		return false;
	}
	wlr_log(WLR_INFO, "cursor theme %s, size %u",
		theme != NULL ? theme : "(default)", size);
	return true;
}

bool vt_input_init(struct vt_server *server) {
	wl_list_init(&server->keyboards);
	wl_list_init(&server->virtual_pointers);
	server->seat = wlr_seat_create(server->display, "seat0");
	server->cursor = wlr_cursor_create();
	/* both go with the display */
	server->virtual_pointer =
		wlr_virtual_pointer_manager_v1_create(server->display);
	server->virtual_keyboard =
		wlr_virtual_keyboard_manager_v1_create(server->display);
	if (server->seat == NULL || server->cursor == NULL ||
			server->virtual_pointer == NULL ||
			server->virtual_keyboard == NULL) {
		return false;
	}
	wlr_cursor_attach_output_layout(server->cursor, server->layout);

	server->cursor_node = vr_node_create(server->tree);
	server->cursor_image_node = vr_node_create(server->tree);
	vr_node_set_parent(server->cursor_node, server->cursor_layer);
	vr_node_set_parent(server->cursor_image_node, server->cursor_node);
	/* Shown once a pointer device exists. */
	vr_node_set_enabled(server->cursor_layer, false);
	if (!cursor_init_image(server)) {
		return false;
	}

	server->cursor_motion.notify = handle_cursor_motion;
	wl_signal_add(&server->cursor->events.motion, &server->cursor_motion);
	server->cursor_motion_absolute.notify = handle_cursor_motion_absolute;
	wl_signal_add(&server->cursor->events.motion_absolute,
		&server->cursor_motion_absolute);
	server->cursor_button.notify = handle_cursor_button;
	wl_signal_add(&server->cursor->events.button, &server->cursor_button);
	server->cursor_axis.notify = handle_cursor_axis;
	wl_signal_add(&server->cursor->events.axis, &server->cursor_axis);
	server->cursor_frame.notify = handle_cursor_frame;
	wl_signal_add(&server->cursor->events.frame, &server->cursor_frame);
	server->touch_down.notify = handle_touch_down;
	wl_signal_add(&server->cursor->events.touch_down, &server->touch_down);
	server->touch_up.notify = handle_touch_up;
	wl_signal_add(&server->cursor->events.touch_up, &server->touch_up);
	server->touch_motion.notify = handle_touch_motion;
	wl_signal_add(&server->cursor->events.touch_motion, &server->touch_motion);
	server->touch_frame.notify = handle_touch_frame;
	wl_signal_add(&server->cursor->events.touch_frame, &server->touch_frame);

	server->new_input.notify = handle_new_input;
	wl_signal_add(&server->backend->events.new_input, &server->new_input);
	server->new_virtual_pointer.notify = handle_new_virtual_pointer;
	wl_signal_add(&server->virtual_pointer->events.new_virtual_pointer,
		&server->new_virtual_pointer);
	server->keymap_guard = wl_display_add_protocol_logger(server->display,
		keymap_guard, server);
	server->new_virtual_keyboard.notify = handle_new_virtual_keyboard;
	wl_signal_add(&server->virtual_keyboard->events.new_virtual_keyboard,
		&server->new_virtual_keyboard);
	server->request_cursor.notify = handle_request_cursor;
	wl_signal_add(&server->seat->events.request_set_cursor,
		&server->request_cursor);
	server->request_start_drag.notify = handle_request_start_drag;
	wl_signal_add(&server->seat->events.request_start_drag,
		&server->request_start_drag);
	server->request_set_selection.notify = handle_request_set_selection;
	wl_signal_add(&server->seat->events.request_set_selection,
		&server->request_set_selection);
	server->request_set_primary_selection.notify =
		handle_request_set_primary_selection;
	wl_signal_add(&server->seat->events.request_set_primary_selection,
		&server->request_set_primary_selection);
	if (!own_keyboard_create(server)) {
		return false;
	}
	update_capabilities(server);
	return true;
}

void vt_input_finish(struct vt_server *server) {
	wl_list_remove(&server->cursor_motion.link);
	wl_list_remove(&server->cursor_motion_absolute.link);
	wl_list_remove(&server->cursor_button.link);
	wl_list_remove(&server->cursor_axis.link);
	wl_list_remove(&server->cursor_frame.link);
	wl_list_remove(&server->touch_down.link);
	wl_list_remove(&server->touch_up.link);
	wl_list_remove(&server->touch_motion.link);
	wl_list_remove(&server->touch_frame.link);
	wl_list_remove(&server->new_input.link);
	wl_list_remove(&server->new_virtual_pointer.link);
	wl_list_remove(&server->new_virtual_keyboard.link);
	struct vt_virtual_pointer *vp, *vp_tmp;
	wl_list_for_each_safe(vp, vp_tmp, &server->virtual_pointers, link) {
		virtual_pointer_destroy(vp);
	}
	if (server->keymap_guard != NULL) {
		wl_protocol_logger_destroy(server->keymap_guard);
		server->keymap_guard = NULL;
	}
	wl_list_remove(&server->request_cursor.link);
	wl_list_remove(&server->request_set_selection.link);
	wl_list_remove(&server->request_set_primary_selection.link);
	wl_list_remove(&server->request_start_drag.link);
	if (server->own_keyboard != NULL) {
		wlr_input_device_destroy(server->own_keyboard);
		server->own_keyboard = NULL;
	}
	if (server->cursor_surface != NULL) {
		wl_list_remove(&server->cursor_surface_destroy.link);
		server->cursor_surface = NULL;
	}
	wlr_xcursor_manager_destroy(server->xcursor_manager);
	wlr_cursor_destroy(server->cursor);
	for (int i = 0; i < server->cursor_images_len; i++) {
		vr_image_unref(server->cursor_images[i].image);
	}
	server->cursor_images_len = 0;
}
