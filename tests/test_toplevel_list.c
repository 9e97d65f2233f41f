/*
 * ext_foreign_toplevel_list_v1
 * (compositor/protocols/ext_foreign_toplevel_list.c) with real clients: a
 * lister binds the list, other clients map xdg toplevels. Oracles: the titles
 * and app_ids the windows' own clients set, the windows they map and close, the
 * protocol's rules on the order of events (every state ends with done; nothing
 * after closed; no toplevel after finished).
 *
 * toplevel_list: two windows of two clients appear, each once, with
 *   distinct 32-hex-digit identifiers and their titles and app_ids, then
 *   done; a title change, then an app_id change, each comes with done;
 *   closing a window sends closed on its handle only; a lister bound after
 *   the close never sees it and sees the other under the same identifier;
 *   a new window gets an identifier never seen before; stop answers
 *   finished, after which the list has no new toplevel while another
 *   lister does.
 *
 * xwayland: an X11 window (xlogo through vitrail's Xwayland) beside an xdg
 *   toplevel: listed once, with the title it set (-title) and its WM_CLASS
 *   class as app_id; killed, its handle is closed and the xdg one is not;
 *   a second X window gets an identifier never seen before.
 */
#define _GNU_SOURCE
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>

#include "ext-foreign-toplevel-list-v1-client-protocol.h"
#include "harness.h"
#include "scene-client.h"
#include "xdg-shell-client-protocol.h"

#define MAX_HANDLES 16

/* What one handle said: the state as of its last done, what came after
 * (pending), and misuses of the protocol seen. */
struct handle {
	struct ext_foreign_toplevel_handle_v1 *proxy;
	char *identifier;
	char *title, *app_id; // as of the last done
	char *pending_title, *pending_app_id;
	int identifiers; // identifier events
	int dones;
	bool closed;
	int after_closed; // events after closed
};

struct lister {
	struct wl_display *display;
	struct wl_registry *registry;
	struct ext_foreign_toplevel_list_v1 *list;
	struct handle handles[MAX_HANDLES];
	int n;
	bool finished;
	int after_finished; // toplevel events after finished
};

static void replace(char **dst, const char *src) {
	free(*dst);
	*dst = strdup(src);
	ck_assert_ptr_nonnull(*dst);
}

static void handle_closed(void *data,
		struct ext_foreign_toplevel_handle_v1 *proxy) {
	struct handle *h = data;
	h->after_closed += h->closed;
	h->closed = true;
}

static void handle_done(void *data,
		struct ext_foreign_toplevel_handle_v1 *proxy) {
	struct handle *h = data;
	h->after_closed += h->closed;
	h->dones++;
	if (h->pending_title != NULL) {
		replace(&h->title, h->pending_title);
		free(h->pending_title);
		h->pending_title = NULL;
	}
	if (h->pending_app_id != NULL) {
		replace(&h->app_id, h->pending_app_id);
		free(h->pending_app_id);
		h->pending_app_id = NULL;
	}
}

static void handle_title(void *data,
		struct ext_foreign_toplevel_handle_v1 *proxy, const char *title) {
	struct handle *h = data;
	h->after_closed += h->closed;
	replace(&h->pending_title, title);
}

static void handle_app_id(void *data,
		struct ext_foreign_toplevel_handle_v1 *proxy, const char *app_id) {
	struct handle *h = data;
	h->after_closed += h->closed;
	replace(&h->pending_app_id, app_id);
}

static void handle_identifier(void *data,
		struct ext_foreign_toplevel_handle_v1 *proxy, const char *identifier) {
	struct handle *h = data;
	h->after_closed += h->closed;
	h->identifiers++;
	replace(&h->identifier, identifier);
}

static const struct ext_foreign_toplevel_handle_v1_listener handle_listener = {
	.closed = handle_closed,
	.done = handle_done,
	.title = handle_title,
	.app_id = handle_app_id,
	.identifier = handle_identifier,
};

static void list_toplevel(void *data, struct ext_foreign_toplevel_list_v1 *list,
		struct ext_foreign_toplevel_handle_v1 *proxy) {
	struct lister *l = data;
	l->after_finished += l->finished;
	ck_assert_int_lt(l->n, MAX_HANDLES);
	struct handle *h = &l->handles[l->n++];
	*h = (struct handle){ .proxy = proxy };
	ext_foreign_toplevel_handle_v1_add_listener(proxy, &handle_listener, h);
}

static void list_finished(void *data,
		struct ext_foreign_toplevel_list_v1 *list) {
	struct lister *l = data;
	l->finished = true;
}

static const struct ext_foreign_toplevel_list_v1_listener list_listener = {
	.toplevel = list_toplevel,
	.finished = list_finished,
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct lister *l = data;
	if (strcmp(interface, ext_foreign_toplevel_list_v1_interface.name) == 0) {
		l->list = wl_registry_bind(registry, name,
				&ext_foreign_toplevel_list_v1_interface, 1);
		ext_foreign_toplevel_list_v1_add_listener(l->list, &list_listener, l);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* Connect and bind the list; its first toplevels arrive with the second
 * roundtrip. */
static void lister_init(struct lister *l, struct harness_vitrail *vitrail) {
	*l = (struct lister){ 0 };
	l->display = wl_display_connect(vitrail->socket);
	ck_assert_ptr_nonnull(l->display);
	l->registry = wl_display_get_registry(l->display);
	wl_registry_add_listener(l->registry, &registry_listener, l);
	ck_assert_int_ge(wl_display_roundtrip(l->display), 0);
	ck_assert_msg(l->list != NULL, "no ext_foreign_toplevel_list_v1");
	ck_assert_int_ge(wl_display_roundtrip(l->display), 0);
}

static void lister_sync(struct lister *l) {
	ck_assert_int_ge(wl_display_roundtrip(l->display), 0);
}

static void lister_finish(struct lister *l) {
	for (int i = 0; i < l->n; i++) {
		struct handle *h = &l->handles[i];
		ext_foreign_toplevel_handle_v1_destroy(h->proxy);
		free(h->identifier);
		free(h->title);
		free(h->app_id);
		free(h->pending_title);
		free(h->pending_app_id);
	}
	if (l->list != NULL) {
		ext_foreign_toplevel_list_v1_destroy(l->list);
	}
	wl_registry_destroy(l->registry);
	// a protocol error would show here
	ck_assert_int_ge(wl_display_roundtrip(l->display), 0);
	wl_display_disconnect(l->display);
}

/* The handle of app_id (not closed), or NULL; fails when two are. */
static struct handle *find(struct lister *l, const char *app_id) {
	struct handle *found = NULL;
	for (int i = 0; i < l->n; i++) {
		struct handle *h = &l->handles[i];
		if (!h->closed && h->app_id != NULL && strcmp(h->app_id, app_id) == 0) {
			ck_assert_msg(found == NULL, "two open handles of %s", app_id);
			found = h;
		}
	}
	return found;
}

/* Whether any handle the lister ever had carried identifier. */
static bool seen_identifier(const struct lister *l, const char *identifier) {
	for (int i = 0; i < l->n; i++) {
		if (l->handles[i].identifier != NULL &&
				strcmp(l->handles[i].identifier, identifier) == 0) {
			return true;
		}
	}
	return false;
}

/* What every handle must satisfy: one identifier of 32 hex digits, the
 * first state complete with done, nothing after closed. */
static void check_handles(const struct lister *l) {
	for (int i = 0; i < l->n; i++) {
		const struct handle *h = &l->handles[i];
		ck_assert_int_eq(h->identifiers, 1);
		ck_assert_uint_eq(strlen(h->identifier), 32);
		ck_assert_uint_eq(strspn(h->identifier, "0123456789abcdef"), 32);
		ck_assert_int_ge(h->dones, 1);
		ck_assert_ptr_nonnull(h->title);
		ck_assert_ptr_nonnull(h->app_id);
		ck_assert_int_eq(h->after_closed, 0);
	}
}

static void map_window(struct harness_vitrail *vitrail, struct sc_app *app,
		const char *app_id, const char *title, size_t windows) {
	ck_assert(sc_app_init(app, app_id));
	ck_assert(sc_app_create_window(app, app_id, title, 200, 150, 0xff336699u));
	wl_surface_commit(app->surface);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	harness_wait_for_window_count(vitrail->conn, windows,
			HARNESS_WINDOWS_TIMEOUT_MS);
}

START_TEST(test_toplevel_list) {
	struct harness *harness = harness_create("toplevel-list");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);

	struct lister first;
	lister_init(&first, vitrail);
	ck_assert_int_eq(first.n, 0);

	// two windows of two other clients
	struct sc_app alpha = { 0 }, beta = { 0 };
	map_window(vitrail, &alpha, "list-alpha", "Alpha window", 1);
	map_window(vitrail, &beta, "list-beta", "Beta window", 2);
	lister_sync(&first);
	ck_assert_int_eq(first.n, 2);
	check_handles(&first);
	struct handle *a = find(&first, "list-alpha");
	struct handle *b = find(&first, "list-beta");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(a->title, "Alpha window");
	ck_assert_str_eq(b->title, "Beta window");
	ck_assert_str_ne(a->identifier, b->identifier);

	// a new title, then done
	int a_dones = a->dones, b_dones = b->dones;
	xdg_toplevel_set_title(alpha.xdg_toplevel, "Alpha renamed");
	wl_surface_commit(alpha.surface);
	ck_assert_int_ge(wl_display_roundtrip(alpha.display), 0);
	lister_sync(&first);
	ck_assert_str_eq(a->title, "Alpha renamed");
	ck_assert_ptr_null(a->pending_title);
	ck_assert_int_eq(a->dones, a_dones + 1);
	ck_assert_str_eq(a->app_id, "list-alpha");
	ck_assert_int_eq(b->dones, b_dones);

	// a new app_id, then done; the title stays
	b_dones = b->dones;
	xdg_toplevel_set_app_id(beta.xdg_toplevel, "list-beta-renamed");
	wl_surface_commit(beta.surface);
	ck_assert_int_ge(wl_display_roundtrip(beta.display), 0);
	lister_sync(&first);
	ck_assert_str_eq(b->app_id, "list-beta-renamed");
	ck_assert_str_eq(b->title, "Beta window");
	ck_assert_int_eq(b->dones, b_dones + 1);

	// beta's client goes: its handle is closed, alpha's is not
	char *beta_id = strdup(b->identifier);
	char *alpha_id = strdup(a->identifier);
	sc_app_finish(&beta);
	harness_wait_for_window_count(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	lister_sync(&first);
	ck_assert(b->closed);
	ck_assert(!a->closed);
	ck_assert_int_eq(first.n, 2);

	// a lister bound now sees alpha only, under the same identifier
	struct lister second;
	lister_init(&second, vitrail);
	ck_assert_int_eq(second.n, 1);
	check_handles(&second);
	ck_assert_str_eq(second.handles[0].identifier, alpha_id);
	ck_assert_str_eq(second.handles[0].title, "Alpha renamed");
	ck_assert_str_eq(second.handles[0].app_id, "list-alpha");
	ck_assert(!seen_identifier(&second, beta_id));

	// a new window (beta's app_id again): an identifier never seen
	struct sc_app gamma = { 0 };
	map_window(vitrail, &gamma, "list-beta", "Beta again", 2);
	lister_sync(&first);
	lister_sync(&second);
	ck_assert_int_eq(first.n, 3);
	ck_assert_int_eq(second.n, 2);
	struct handle *c = find(&first, "list-beta");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->title, "Beta again");
	ck_assert_str_ne(c->identifier, beta_id);
	ck_assert_str_ne(c->identifier, alpha_id);
	ck_assert_str_eq(find(&second, "list-beta")->identifier, c->identifier);

	// stop: finished, and no new toplevel for the first lister
	ext_foreign_toplevel_list_v1_stop(first.list);
	lister_sync(&first);
	ck_assert(first.finished);
	struct sc_app delta = { 0 };
	map_window(vitrail, &delta, "list-delta", "Delta window", 3);
	lister_sync(&first);
	lister_sync(&second);
	ck_assert_int_eq(first.n, 3);
	ck_assert_int_eq(first.after_finished, 0);
	ck_assert_int_eq(second.n, 3);
	ck_assert_ptr_nonnull(find(&second, "list-delta"));
	// a stopped list's handles still follow their windows
	sc_app_finish(&alpha);
	harness_wait_for_window_count(vitrail->conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	lister_sync(&first);
	lister_sync(&second);
	ck_assert(a->closed);
	ck_assert(second.handles[0].closed);
	check_handles(&first);
	check_handles(&second);

	free(beta_id);
	free(alpha_id);
	lister_finish(&first);
	lister_finish(&second);
	sc_app_finish(&gamma);
	sc_app_finish(&delta);
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

START_TEST(test_toplevel_list_xwayland) {
	harness_require_program("xlogo", "x11-apps");
	harness_require_program("Xwayland", "xwayland");
	struct harness *harness = harness_create("toplevel-list-xwayland");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .output_size = "640x480" });
	ck_assert_msg(vitrail->x_display != NULL, "vitrail offers no X display");
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);

	struct lister l;
	lister_init(&l, vitrail);
	struct sc_app wl_app = { 0 };
	map_window(vitrail, &wl_app, "list-wayland", "Wayland window", 1);

	const char *const first_argv[] = { "xlogo", "-title", "X list window",
		"-geometry", "160x120", NULL };
	struct harness_proc *first =
			harness_spawn_x11_client(harness, vitrail, first_argv);
	harness_wait_for_window_count(vitrail->conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	lister_sync(&l);
	check_handles(&l);
	ck_assert_int_eq(l.n, 2);
	// xlogo's WM_CLASS is "xlogo", "XLogo"
	struct handle *x = find(&l, "XLogo");
	ck_assert_msg(x != NULL, "the X window is not listed with app_id XLogo");
	ck_assert_str_eq(x->title, "X list window");
	struct handle *w = find(&l, "list-wayland");
	ck_assert_ptr_nonnull(w);
	ck_assert_str_ne(x->identifier, w->identifier);
	char *x_id = strdup(x->identifier);

	// killed: its handle is closed, the xdg one is not
	harness_proc_signal(first, SIGKILL);
	ck_assert(harness_proc_wait(first, HARNESS_STOP_TIMEOUT_MS));
	harness_wait_for_window_count(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	lister_sync(&l);
	ck_assert(x->closed);
	ck_assert(!w->closed);

	// a second X window: an identifier never seen
	const char *const second_argv[] = { "xlogo", "-title", "X again",
		"-geometry", "100x80", NULL };
	struct harness_proc *second =
			harness_spawn_x11_client(harness, vitrail, second_argv);
	harness_wait_for_window_count(vitrail->conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	lister_sync(&l);
	ck_assert_int_eq(l.n, 3);
	struct handle *again = find(&l, "XLogo");
	ck_assert_ptr_nonnull(again);
	ck_assert_str_eq(again->title, "X again");
	ck_assert_str_ne(again->identifier, x_id);
	ck_assert_str_ne(again->identifier, w->identifier);
	check_handles(&l);

	free(x_id);
	harness_proc_stop(second);
	harness_wait_for_window_count(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	lister_sync(&l);
	ck_assert(again->closed);
	lister_finish(&l);
	sc_app_finish(&wl_app);
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- runner ------------------------------------------------------------- */

static Suite *toplevel_list_suite(void) {
	Suite *suite = suite_create("toplevel-list");
	harness_add_case(suite, "toplevel_list", test_toplevel_list, 60);
	harness_add_case(suite, "xwayland", test_toplevel_list_xwayland, 90);
	return suite;
}

int main(int argc, char *argv[]) {
	return harness_run_suite(toplevel_list_suite(), argc, argv);
}
