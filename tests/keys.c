/* A virtual keyboard for tests: see keys.h. */
#define _GNU_SOURCE // memfd_create
#include "keys.h"

#include <check.h>
#include <linux/input-event-codes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xkbcommon/xkbcommon-names.h>
#include <xkbcommon/xkbcommon.h>

#include "virtual-keyboard-unstable-v1-client-protocol.h"

static void keys_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct test_keys *k = data;
	if (strcmp(interface, wl_seat_interface.name) == 0 && k->seat == NULL) {
		k->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	} else if (strcmp(interface,
					   zwp_virtual_keyboard_manager_v1_interface.name) == 0) {
		k->manager = wl_registry_bind(registry, name,
				&zwp_virtual_keyboard_manager_v1_interface, 1);
	}
}

static void keys_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener keys_registry_listener = {
	.global = keys_global,
	.global_remove = keys_global_remove,
};

int test_keymap_fd(const char *layout, uint32_t *size) {
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	ck_assert(context != NULL);
	struct xkb_rule_names names = { .layout = layout };
	struct xkb_keymap *keymap = xkb_keymap_new_from_names(context, &names,
			XKB_KEYMAP_COMPILE_NO_FLAGS);
	ck_assert_msg(keymap != NULL, "cannot compile a keymap of layout %s",
			layout);
	/* the masks of test_keys_mod_mask are the keymap's own indices */
	ck_assert_int_eq(xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_SHIFT), 0);
	ck_assert_int_eq(xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_CTRL), 2);
	ck_assert_int_eq(xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_ALT), 3);
	ck_assert_int_eq(xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_LOGO), 6);
	char *text = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1);
	ck_assert(text != NULL);
	*size = (uint32_t)strlen(text) + 1;
	int fd = memfd_create("keymap", MFD_CLOEXEC);
	ck_assert(fd >= 0);
	ck_assert(write(fd, text, *size) == (ssize_t)*size);
	free(text);
	xkb_keymap_unref(keymap);
	xkb_context_unref(context);
	return fd;
}

void test_keys_start(struct test_keys *k, const char *socket,
		const char *layout) {
	memset(k, 0, sizeof(*k));
	k->display = wl_display_connect(socket);
	ck_assert_msg(k->display != NULL, "cannot connect to %s", socket);
	k->registry = wl_display_get_registry(k->display);
	wl_registry_add_listener(k->registry, &keys_registry_listener, k);
	ck_assert_int_ge(wl_display_roundtrip(k->display), 0);
	ck_assert_msg(k->seat != NULL && k->manager != NULL,
			"no wl_seat or "
			"zwp_virtual_keyboard_manager_v1");
	k->keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(
			k->manager, k->seat);
	uint32_t size = 0;
	int fd = test_keymap_fd(layout, &size);
	zwp_virtual_keyboard_v1_keymap(k->keyboard,
			WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, size);
	close(fd);
	ck_assert_int_ge(wl_display_roundtrip(k->display), 0);
}

void test_keys_key(struct test_keys *k, uint32_t key, bool pressed) {
	zwp_virtual_keyboard_v1_key(k->keyboard, ++k->time, key,
			pressed ? WL_KEYBOARD_KEY_STATE_PRESSED :
					  WL_KEYBOARD_KEY_STATE_RELEASED);
}

uint32_t test_keys_mod_mask(uint32_t key) {
	switch (key) {
	case KEY_LEFTSHIFT:
	case KEY_RIGHTSHIFT: return 1u << 0;
	case KEY_LEFTCTRL:
	case KEY_RIGHTCTRL: return 1u << 2;
	case KEY_LEFTALT: return 1u << 3;
	case KEY_LEFTMETA:
	case KEY_RIGHTMETA: return 1u << 6;
	default: return 0;
	}
}

void test_keys_send(struct test_keys *k, const uint32_t *mods, int n,
		uint32_t key) {
	uint32_t mask = 0;
	for (int i = 0; i < n; i++) {
		test_keys_key(k, mods[i], true);
		mask |= test_keys_mod_mask(mods[i]);
		zwp_virtual_keyboard_v1_modifiers(k->keyboard, mask, 0, 0, 0);
	}
	test_keys_key(k, key, true);
	test_keys_key(k, key, false);
	for (int i = n - 1; i >= 0; i--) {
		test_keys_key(k, mods[i], false);
		mask &= ~test_keys_mod_mask(mods[i]);
		zwp_virtual_keyboard_v1_modifiers(k->keyboard, mask, 0, 0, 0);
	}
	wl_display_flush(k->display);
}

void test_keys_type(struct test_keys *k, const uint32_t *mods, int n,
		uint32_t key) {
	test_keys_send(k, mods, n, key);
	ck_assert_int_ge(wl_display_roundtrip(k->display), 0);
}

void test_keys_finish(struct test_keys *k) {
	zwp_virtual_keyboard_v1_destroy(k->keyboard);
	zwp_virtual_keyboard_manager_v1_destroy(k->manager);
	wl_seat_destroy(k->seat);
	wl_registry_destroy(k->registry);
	wl_display_roundtrip(k->display);
	wl_display_disconnect(k->display);
}
