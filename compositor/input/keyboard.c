/*
 * Keyboards: devices and virtual keyboards, keymaps, key bindings, and
 * vitrail's own keyboard.
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

#include "desktop/session_lock.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "input/input.h"
#include "loop.h"
#include "output/output.h"
#include "protocols/protocols.h"
#include "server.h"
#include "util.h"

#include "input/input_internal.h"

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
	struct xkb_keymap *keymap = context == NULL ?
			NULL :
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
	case VT_ACTION_CLOSE: vt_view_close(focused); return true;
	case VT_ACTION_MAXIMIZE:
	case VT_ACTION_FULLSCREEN:
		vt_view_toggle_fill(focused, binding->action == VT_ACTION_FULLSCREEN);
		return true;
	case VT_ACTION_MINIMIZE: vt_view_minimize(focused); return true;
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
	default: return false;
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
	case VT_ACTION_EXEC: vt_server_spawn(server, binding->command); break;
	case VT_ACTION_FOCUS_NEXT:
	case VT_ACTION_FOCUS_PREV:
		vt_views_cycle_focus(server, binding->action == VT_ACTION_FOCUS_NEXT);
		if (server->focused_view != NULL &&
				server->focused_view->placed_on != NULL) {
			server->current_output = server->focused_view->placed_on;
		}
		wl_signal_emit(&server->events.pointer_focus, NULL);
		break;
	case VT_ACTION_WORKSPACE:
		vt_views_show_workspace(server, binding->arg);
		break;
	case VT_ACTION_FOCUS_OUTPUT:
		vt_views_focus_output(server, binding->arg);
		break;
	case VT_ACTION_RELOAD:
		/* server.c loads the config again: binding is gone after
		 * this */
		wl_signal_emit(&server->events.reload, NULL);
		break;
	case VT_ACTION_EXIT: wl_display_terminate(server->display); break;
	default: break;
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
	uint32_t consumed = wlr_mods_of(kbd,
			xkb_state_key_get_consumed_mods2(kbd->xkb_state, xkb_code,
					XKB_CONSUMED_MODE_XKB));
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
	xkb_layout_index_t layout =
			xkb_state_key_get_layout(kbd->xkb_state, xkb_code);
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
		size_t max =
				sizeof(keyboard->bound_keys) / sizeof(keyboard->bound_keys[0]);
		if ((size_t)keyboard->bound_len < max) {
			keyboard->bound_keys[keyboard->bound_len++] = event->keycode;
		}
		return true;
	}
	/* a locked session's keys are the lock surface's; a surface that
	 * inhibits shortcuts (keyboard-shortcuts-inhibit) gets them too */
	if (vt_session_locked(server) || vt_protocols_shortcuts_inhibited(server)) {
		return false;
	}
	const struct vt_config_binding *binding =
			find_binding(server, keyboard->device->keyboard, event->keycode);
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
	wlr_seat_set_keyboard(server->seat,
			server->own_keyboard != going ? server->own_keyboard : NULL);
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

bool input_own_keyboard_create(struct vt_server *server) {
	struct wlr_input_device *device = calloc(1, sizeof(*device));
	struct wlr_keyboard *keyboard = calloc(1, sizeof(*keyboard));
	if (device == NULL || keyboard == NULL) {
		free(device);
		free(keyboard);
		return false;
	}
	wlr_input_device_init(device, WLR_INPUT_DEVICE_KEYBOARD, &own_device_impl,
			"vitrail-keyboard", 0, 0);
	wlr_keyboard_init(keyboard, &own_keyboard_impl);
	device->keyboard = keyboard;
	server->own_keyboard = device;
	keyboard_create(server, device);
	if (keyboard->keymap == NULL) {
		/* the configured layout did not compile: the default's */
		struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
		struct xkb_keymap *keymap = context == NULL ?
				NULL :
				xkb_keymap_new_from_names(context, NULL,
						XKB_KEYMAP_COMPILE_NO_FLAGS);
		if (keymap != NULL) {
			wlr_keyboard_set_keymap(keyboard, keymap);
		}
		xkb_keymap_unref(keymap);
		xkb_context_unref(context);
	}
	if (keyboard->keymap == NULL) {
		wlr_log(WLR_ERROR,
				"no keymap compiles: clients' keyboards "
				"get none");
		return true;
	}
	if (server->seat->keyboard_state.keyboard == NULL) {
		wlr_seat_set_keyboard(server->seat, device);
	}
	return true;
}

void input_update_capabilities(struct vt_server *server) {
	wlr_seat_set_capabilities(server->seat,
			WL_SEAT_CAPABILITY_POINTER | WL_SEAT_CAPABILITY_KEYBOARD |
					WL_SEAT_CAPABILITY_TOUCH);
}

/* A device of the backend or a virtual one joins the seat. */
void input_add_device(struct vt_server *server,
		struct wlr_input_device *device) {
	switch (device->type) {
	case WLR_INPUT_DEVICE_KEYBOARD: keyboard_create(server, device); break;
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
	default: break;
	}
	input_update_capabilities(server);
}

void input_handle_new_input(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, new_input);
	input_add_device(server, data);
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
		snprintf(why, len,
				"keymap size %u is not within the file's %lld "
				"bytes",
				size, (long long)st.st_size);
		return true;
	}
	void *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED) {
		return false;
	}
	bool nul = memchr(data, '\0', size) != NULL;
	munmap(data, size);
	if (!nul) {
		snprintf(why, len,
				"the keymap's %u bytes hold no NUL: it is not "
				"a string",
				size);
		return true;
	}
	return false;
}

void input_keymap_guard(void *data, enum wl_protocol_logger_type type,
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

void input_handle_new_virtual_keyboard(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, new_virtual_keyboard);
	struct wlr_virtual_keyboard_v1 *keyboard = data;
	input_add_device(server, &keyboard->input_device);
}
