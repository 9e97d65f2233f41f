/*
 * A virtual keyboard of its own connection, for tests that type into
 * vitrail as wtype does (zwp_virtual_keyboard_v1 with a keymap of the
 * test's choice; the client sends its modifiers' state itself).
 */
#ifndef VITRAIL_TESTS_KEYS_H
#define VITRAIL_TESTS_KEYS_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-client.h>

struct test_keys {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_seat *seat;
	struct zwp_virtual_keyboard_manager_v1 *manager;
	struct zwp_virtual_keyboard_v1 *keyboard;
	uint32_t time; // of the last key event
};

/* A keymap of xkb layout `layout` in a memfd; its size in *size. */
int test_keymap_fd(const char *layout, uint32_t *size);
/* Connect to socket and create a virtual keyboard with a keymap of
 * layout; returns once vitrail has it. */
void test_keys_start(struct test_keys *k, const char *socket,
		const char *layout);
void test_keys_key(struct test_keys *k, uint32_t key, bool pressed);
/* The modifier mask of a modifier key (evdev code): Shift is the keymap's
 * modifier 0, Ctrl 2, Alt (Mod1) 3, Logo (Mod4) 6, as in every keymap
 * test_keymap_fd makes (it checks); 0 for other keys. */
uint32_t test_keys_mod_mask(uint32_t key);
/* Modifier keys mods[0..n) held, their state sent, while key is pressed
 * and released; flushed, not waited for (vitrail may be gone after). */
void test_keys_send(struct test_keys *k, const uint32_t *mods, int n,
		uint32_t key);
/* The same, then a round trip: vitrail has handled them. */
void test_keys_type(struct test_keys *k, const uint32_t *mods, int n,
		uint32_t key);
/* Destroy the proxies, then the connection (also after vitrail exited). */
void test_keys_finish(struct test_keys *k);

#endif
