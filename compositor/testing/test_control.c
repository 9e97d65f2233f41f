/*
 * vitrail_test_v1: the private protocol of vitrail's test suite (see
 * protocol/vitrail-test-v1.xml). Advertised only with --test.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>

#include "pacing/pacer.h"
#include "desktop/view.h"
#include "input/emulated_input.h"
#include "output/output.h"
#include "server.h"
#include "testing/test_control.h"
#include "vitrail-test-v1-protocol.h"

struct vt_test {
	struct vt_server *server;
	struct wl_global *global;
	struct wl_list settles; /* settle::link */
	/* server->events.check_settled, frame_events.begin, shown */
	struct wl_listener check_settled;
	struct wl_listener frame_begin;
	struct wl_listener frame_shown;
	/* a settle unanswered for long says why in the log */
	struct wl_event_source *settle_timer;
	int holds; /* objects holding frame callbacks */
	uint32_t stall_ms; /* stall_next_frame: sleep of the next frame */
	uint32_t *costs; /* slow_frames: render times (us) of the next frames */
	size_t ncosts, next_cost;
	/* pointer_move, pointer_button: made at the first; NULL once the
	 * backend destroyed it */
	struct wlr_input_device *pointer;
	struct wl_listener pointer_destroy;
	/* touch_down, touch_move, touch_up: the same for touch */
	struct wlr_input_device *touch;
	struct wl_listener touch_destroy;
	/* hash_frames: the output (compared, its name kept), the box, the
	 * file; NULL when off */
	FILE *hash_file;
	char hash_output[64];
	int32_t hash_box[4];
};

struct settle {
	struct wl_resource *callback;
	struct wl_list link; /* vt_test::settles */
};

struct test_object {
	struct vt_test *test;
	bool holding;
};

static const struct vitrail_test_v1_interface test_impl;

static struct test_object *test_object_from_resource(
		struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &vitrail_test_v1_interface,
			&test_impl));
	return wl_resource_get_user_data(resource);
}

static void update_hold(struct vt_test *test) {
	bool hold = test->holds > 0;
	if (test->server->hold_frames == hold) {
		return;
	}
	test->server->hold_frames = hold;
	if (!hold) {
		/* Let the held callbacks go at the next refresh. */
		vt_server_request_frame(test->server, VT_PACER_CALLBACKS);
	}
}

static void test_set_hold(struct test_object *obj, bool hold) {
	if (obj->holding == hold) {
		return;
	}
	obj->holding = hold;
	obj->test->holds += hold ? 1 : -1;
	update_hold(obj->test);
}

static void handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void handle_hold_frames(struct wl_client *client,
		struct wl_resource *resource, uint32_t hold) {
	test_set_hold(test_object_from_resource(resource), hold != 0);
}

static bool is_settled(struct vt_server *server) {
	vt_server_update(server);
	/* a large buffer being copied changes the screen when done */
	return server->surface_copies == 0 && vt_outputs_settled(server);
}

void vt_test_check_settled(struct vt_server *server) {
	struct vt_test *test = server->test;
	if (test == NULL || wl_list_empty(&test->settles) || !is_settled(server)) {
		return;
	}
	uint32_t generation = (uint32_t)vr_tree_generation(server->tree);
	if (generation == 0) {
		generation = 1;
	}
	struct settle *settle, *tmp;
	wl_list_for_each_safe(settle, tmp, &test->settles, link) {
		wl_callback_send_done(settle->callback, generation);
		/* Its destroy handler unlinks and frees the settle. */
		wl_resource_destroy(settle->callback);
	}
}

static void settle_handle_resource_destroy(struct wl_resource *resource) {
	struct settle *settle = wl_resource_get_user_data(resource);
	if (settle != NULL) {
		wl_list_remove(&settle->link);
		free(settle);
	}
}

/* A settle unanswered this long: what it waits for goes to the log. */
#define SETTLE_REPORT_MS 5000

static int handle_settle_timer(void *data) {
	struct vt_test *test = data;
	if (wl_list_empty(&test->settles)) {
		return 0;
	}
	wlr_log(WLR_INFO, "a settle is unanswered after %d ms", SETTLE_REPORT_MS);
	vt_outputs_log_state(test->server);
	wl_event_source_timer_update(test->settle_timer, SETTLE_REPORT_MS);
	return 0;
}

static void handle_settle(struct wl_client *client,
		struct wl_resource *resource, uint32_t id) {
	struct test_object *obj = test_object_from_resource(resource);
	struct wl_resource *callback =
			wl_resource_create(client, &wl_callback_interface, 1, id);
	struct settle *settle = calloc(1, sizeof(*settle));
	if (callback == NULL || settle == NULL) {
		free(settle);
		wl_client_post_no_memory(client);
		return;
	}
	settle->callback = callback;
	wl_resource_set_implementation(callback, NULL, settle,
			settle_handle_resource_destroy);
	if (wl_list_empty(&obj->test->settles)) {
		wl_event_source_timer_update(obj->test->settle_timer, SETTLE_REPORT_MS);
	}
	wl_list_insert(&obj->test->settles, &settle->link);
	/* Make sure something will present if anything is pending. */
	vt_server_update(obj->test->server);
	vt_test_check_settled(obj->test->server);
}

static void handle_list_windows(struct wl_client *client,
		struct wl_resource *resource, uint32_t id) {
	struct test_object *obj = test_object_from_resource(resource);
	struct vt_server *server = obj->test->server;
	struct wl_resource *callback =
			wl_resource_create(client, &wl_callback_interface, 1, id);
	if (callback == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	uint32_t count = 0;
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (!vt_view_visible(view)) {
			continue;
		}
		struct wlr_box geo;
		view->impl->get_geometry(view, &geo);
		struct vt_output *output = vt_view_output(view);
		const char *app_id = view->impl->get_app_id(view);
		vitrail_test_v1_send_window(resource, app_id ? app_id : "",
				output ? vt_output_wlr(output)->name : "", view->x, view->y,
				geo.width, geo.height);
		count++;
	}
	wl_callback_send_done(callback, count);
	wl_resource_destroy(callback);
}

/* A request about the output called name, answered through callback id:
 * the output and the callback, or NULL (the error posted). */
static struct vt_output *output_request(struct wl_client *client,
		struct wl_resource *resource, uint32_t id, const char *name,
		struct wl_resource **callback) {
	struct test_object *obj = test_object_from_resource(resource);
	struct vt_output *output = vt_output_by_name(obj->test->server, name);
	if (output == NULL) {
		wl_resource_post_error(resource, VITRAIL_TEST_V1_ERROR_UNKNOWN_OUTPUT,
				"'%.40s': no such output", name);
		return NULL;
	}
	*callback = wl_resource_create(client, &wl_callback_interface, 1, id);
	if (*callback == NULL) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	return output;
}

static void handle_write_reference(struct wl_client *client,
		struct wl_resource *resource, uint32_t id, const char *output_name,
		const char *path) {
	struct test_object *obj = test_object_from_resource(resource);
	struct vt_server *server = obj->test->server;
	if (path[0] != '/') {
		wl_resource_post_error(resource, VITRAIL_TEST_V1_ERROR_BAD_PATH,
				"path '%s' is not absolute", path);
		return;
	}
	struct wl_resource *callback;
	struct vt_output *output =
			output_request(client, resource, id, output_name, &callback);
	if (output == NULL) {
		return;
	}
	vt_server_update(server);
	int w, h;
	struct vr_mat view = vt_output_upright_view(output, &w, &h);
	uint32_t generation = 0;
	pixman_image_t *image =
			pixman_image_create_bits(PIXMAN_x8r8g8b8, w, h, NULL, 0);
	if (image != NULL) {
		vr_reference_render(server->tree, image, &view,
				(struct vr_color){ 0, 0, 0, 1 });
		if (vr_png_write(path, pixman_image_get_data(image), w, h,
					pixman_image_get_stride(image), true)) {
			generation = (uint32_t)vr_tree_generation(server->tree);
			if (generation == 0) {
				generation = 1;
			}
		}
		pixman_image_unref(image);
	}
	wl_callback_send_done(callback, generation);
	wl_resource_destroy(callback);
}

static void handle_stall_next_frame(struct wl_client *client,
		struct wl_resource *resource, uint32_t ms) {
	struct test_object *obj = test_object_from_resource(resource);
	obj->test->stall_ms = ms < 1000 ? ms : 1000;
}

uint32_t vt_test_take_stall_ms(struct vt_server *server) {
	struct vt_test *test = server->test;
	if (test == NULL) {
		return 0;
	}
	uint32_t ms = test->stall_ms;
	test->stall_ms = 0;
	return ms;
}

static void handle_unplug_output(struct wl_client *client,
		struct wl_resource *resource, uint32_t id, const char *name) {
	struct wl_resource *callback;
	struct vt_output *output =
			output_request(client, resource, id, name, &callback);
	if (output == NULL) {
		return;
	}
	wlr_log(WLR_INFO, "test: unplugging %s", name);
	wlr_output_destroy(vt_output_wlr(output));
	wl_callback_send_done(callback, 0);
	wl_resource_destroy(callback);
}

#define SLOW_FRAMES_MAX 65536
#define SLOW_FRAME_MAX_US 1000000

static void handle_slow_frames(struct wl_client *client,
		struct wl_resource *resource, struct wl_array *costs) {
	struct test_object *obj = test_object_from_resource(resource);
	struct vt_test *test = obj->test;
	size_t n = costs->size / sizeof(uint32_t);
	if (costs->size % sizeof(uint32_t) != 0 || n > SLOW_FRAMES_MAX) {
		wl_resource_post_error(resource, VITRAIL_TEST_V1_ERROR_BAD_COSTS,
				"%zu bytes of costs: not whole uint32s or over %d", costs->size,
				SLOW_FRAMES_MAX);
		return;
	}
	uint32_t *copy = NULL;
	if (n > 0) {
		copy = malloc(costs->size);
		if (copy == NULL) {
			wl_client_post_no_memory(client);
			return;
		}
		memcpy(copy, costs->data, costs->size);
		for (size_t i = 0; i < n; i++) {
			if (copy[i] > SLOW_FRAME_MAX_US) {
				copy[i] = SLOW_FRAME_MAX_US;
			}
		}
	}
	free(test->costs);
	test->costs = copy;
	test->ncosts = n;
	test->next_cost = 0;
}

uint32_t vt_test_take_frame_cost_us(struct vt_server *server) {
	struct vt_test *test = server->test;
	if (test == NULL || test->next_cost >= test->ncosts) {
		return 0;
	}
	return test->costs[test->next_cost++];
}

static void handle_pointer_destroy(struct wl_listener *listener, void *data) {
	struct vt_test *test = wl_container_of(listener, test, pointer_destroy);
	wl_list_remove(&test->pointer_destroy.link);
	test->pointer = NULL;
}

/* The emulated pointer, made on first use; NULL (and the error posted)
 * when the backend cannot emulate one. */
static struct wlr_input_device *test_pointer(struct vt_test *test,
		struct wl_resource *resource) {
	if (test->pointer == NULL) {
		test->pointer = vt_emulated_device_create(test->server,
				WLR_INPUT_DEVICE_POINTER);
		if (test->pointer == NULL) {
			wl_resource_post_error(resource,
					VITRAIL_TEST_V1_ERROR_NO_INPUT_DEVICE,
					"cannot emulate a pointer on this backend");
			return NULL;
		}
		test->pointer_destroy.notify = handle_pointer_destroy;
		wl_signal_add(&test->pointer->events.destroy, &test->pointer_destroy);
	}
	return test->pointer;
}

static void handle_pointer_move(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t x, wl_fixed_t y) {
	struct test_object *obj = test_object_from_resource(resource);
	struct wlr_input_device *pointer = test_pointer(obj->test, resource);
	if (pointer != NULL) {
		vt_emulated_pointer_move_to(obj->test->server, pointer,
				wl_fixed_to_double(x), wl_fixed_to_double(y));
	}
}

static void handle_pointer_button(struct wl_client *client,
		struct wl_resource *resource, uint32_t button, uint32_t pressed) {
	struct test_object *obj = test_object_from_resource(resource);
	struct wlr_input_device *pointer = test_pointer(obj->test, resource);
	if (pointer != NULL) {
		vt_emulated_pointer_button(pointer, button, pressed != 0);
	}
}

static void handle_pointer_axis(struct wl_client *client,
		struct wl_resource *resource, uint32_t orientation, wl_fixed_t value,
		uint32_t source, int32_t discrete) {
	struct test_object *obj = test_object_from_resource(resource);
	if (orientation > WL_POINTER_AXIS_HORIZONTAL_SCROLL ||
			source > WL_POINTER_AXIS_SOURCE_WHEEL_TILT) {
		wl_resource_post_error(resource, VITRAIL_TEST_V1_ERROR_BAD_AXIS,
				"orientation %u, source %u: not a wl_pointer axis and source",
				orientation, source);
		return;
	}
	struct wlr_input_device *pointer = test_pointer(obj->test, resource);
	if (pointer != NULL) {
		/* wlroots numbers both as wl_pointer does */
		vt_emulated_pointer_axis(pointer,
				(enum wlr_axis_orientation)orientation,
				wl_fixed_to_double(value), discrete,
				(enum wlr_axis_source)source);
	}
}

static void handle_touch_destroy(struct wl_listener *listener, void *data) {
	struct vt_test *test = wl_container_of(listener, test, touch_destroy);
	wl_list_remove(&test->touch_destroy.link);
	test->touch = NULL;
}

/* The emulated touch screen, made on first use (as test_pointer). */
static struct wlr_input_device *test_touch(struct vt_test *test,
		struct wl_resource *resource) {
	if (test->touch == NULL) {
		test->touch =
				vt_emulated_device_create(test->server, WLR_INPUT_DEVICE_TOUCH);
		if (test->touch == NULL) {
			wl_resource_post_error(resource,
					VITRAIL_TEST_V1_ERROR_NO_INPUT_DEVICE,
					"cannot emulate a touch screen on this backend");
			return NULL;
		}
		test->touch_destroy.notify = handle_touch_destroy;
		wl_signal_add(&test->touch->events.destroy, &test->touch_destroy);
	}
	return test->touch;
}

static void handle_touch_down(struct wl_client *client,
		struct wl_resource *resource, int32_t id, wl_fixed_t x, wl_fixed_t y) {
	struct test_object *obj = test_object_from_resource(resource);
	struct wlr_input_device *touch = test_touch(obj->test, resource);
	if (touch != NULL) {
		vt_emulated_touch_down(obj->test->server, touch, id,
				wl_fixed_to_double(x), wl_fixed_to_double(y));
	}
}

static void handle_touch_move(struct wl_client *client,
		struct wl_resource *resource, int32_t id, wl_fixed_t x, wl_fixed_t y) {
	struct test_object *obj = test_object_from_resource(resource);
	struct wlr_input_device *touch = test_touch(obj->test, resource);
	if (touch != NULL) {
		vt_emulated_touch_move(obj->test->server, touch, id,
				wl_fixed_to_double(x), wl_fixed_to_double(y));
	}
}

static void handle_touch_raw(struct wl_client *client,
		struct wl_resource *resource, int32_t id, wl_fixed_t x, wl_fixed_t y,
		uint32_t down) {
	struct test_object *obj = test_object_from_resource(resource);
	struct wlr_input_device *touch = test_touch(obj->test, resource);
	if (touch != NULL) {
		vt_emulated_touch_raw(touch, id, wl_fixed_to_double(x),
				wl_fixed_to_double(y), down != 0);
	}
}

static void handle_touch_up(struct wl_client *client,
		struct wl_resource *resource, int32_t id) {
	struct test_object *obj = test_object_from_resource(resource);
	struct wlr_input_device *touch = test_touch(obj->test, resource);
	if (touch != NULL) {
		vt_emulated_touch_up(touch, id);
	}
}

static void hash_frames_stop(struct vt_test *test) {
	if (test->hash_file != NULL) {
		fclose(test->hash_file);
		test->hash_file = NULL;
	}
}

static void handle_hash_frames(struct wl_client *client,
		struct wl_resource *resource, const char *output_name, int32_t x,
		int32_t y, int32_t width, int32_t height, const char *path) {
	struct test_object *obj = test_object_from_resource(resource);
	struct vt_test *test = obj->test;
	if (vt_output_by_name(test->server, output_name) == NULL) {
		wl_resource_post_error(resource, VITRAIL_TEST_V1_ERROR_UNKNOWN_OUTPUT,
				"'%.40s': no such output", output_name);
		return;
	}
	if (path[0] != '/') {
		wl_resource_post_error(resource, VITRAIL_TEST_V1_ERROR_BAD_PATH,
				"path '%.60s' is not absolute", path);
		return;
	}
	hash_frames_stop(test);
	if (width <= 0 || height <= 0) {
		return;
	}
	test->hash_file = fopen(path, "w");
	if (test->hash_file == NULL) {
		wlr_log(WLR_ERROR, "test: cannot write %s", path);
		return;
	}
	snprintf(test->hash_output, sizeof(test->hash_output), "%s", output_name);
	test->hash_box[0] = x;
	test->hash_box[1] = y;
	test->hash_box[2] = width;
	test->hash_box[3] = height;
}

void vt_test_frame_presented(struct vt_server *server, struct vt_output *output,
		uint64_t seq, const void *data, size_t stride, int32_t width,
		int32_t height) {
	struct vt_test *test = server->test;
	if (test == NULL || test->hash_file == NULL || data == NULL ||
			strcmp(vt_output_wlr(output)->name, test->hash_output) != 0) {
		return;
	}
	int32_t x0 = test->hash_box[0] > 0 ? test->hash_box[0] : 0;
	int32_t y0 = test->hash_box[1] > 0 ? test->hash_box[1] : 0;
	int32_t x1 = test->hash_box[0] + test->hash_box[2];
	int32_t y1 = test->hash_box[1] + test->hash_box[3];
	x1 = x1 < width ? x1 : width;
	y1 = y1 < height ? y1 : height;
	fprintf(test->hash_file, "%" PRIu64, seq);
	for (int32_t y = y0; y < y1; y++) {
		const uint32_t *row =
				(const uint32_t *)(const void *)((const char *)data +
						(size_t)y * stride);
		uint64_t hash = 0xcbf29ce484222325ull; /* FNV-1a 64 */
		for (int32_t x = x0; x < x1; x++) {
			uint32_t px = row[x] & 0x00ffffff;
			for (int b = 0; b < 4; b++) {
				hash ^= (px >> (8 * b)) & 0xff;
				hash *= 0x100000001b3ull;
			}
		}
		fprintf(test->hash_file, " %016" PRIx64, hash);
	}
	fputc('\n', test->hash_file);
	fflush(test->hash_file);
}

static const struct vitrail_test_v1_interface test_impl = {
	.destroy = handle_destroy,
	.hold_frames = handle_hold_frames,
	.settle = handle_settle,
	.list_windows = handle_list_windows,
	.write_reference = handle_write_reference,
	.stall_next_frame = handle_stall_next_frame,
	.unplug_output = handle_unplug_output,
	.slow_frames = handle_slow_frames,
	.pointer_move = handle_pointer_move,
	.pointer_button = handle_pointer_button,
	.pointer_axis = handle_pointer_axis,
	.touch_down = handle_touch_down,
	.touch_move = handle_touch_move,
	.touch_up = handle_touch_up,
	.touch_raw = handle_touch_raw,
	.hash_frames = handle_hash_frames,
};

static void test_handle_resource_destroy(struct wl_resource *resource) {
	struct test_object *obj = wl_resource_get_user_data(resource);
	test_set_hold(obj, false);
	free(obj);
}

static void test_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	struct vt_test *test = data;
	struct test_object *obj = calloc(1, sizeof(*obj));
	struct wl_resource *resource = wl_resource_create(client,
			&vitrail_test_v1_interface, (int)version, id);
	if (obj == NULL || resource == NULL) {
		free(obj);
		wl_client_post_no_memory(client);
		return;
	}
	obj->test = test;
	wl_resource_set_implementation(resource, &test_impl, obj,
			test_handle_resource_destroy);
}

static void handle_check_settled(struct wl_listener *listener, void *data) {
	struct vt_test *test = wl_container_of(listener, test, check_settled);
	vt_test_check_settled(test->server);
}

/* A frame starts: slow_frames' cost, then stall_next_frame's sleep. */
static void handle_frame_begin(struct wl_listener *listener, void *data) {
	struct vt_test *test = wl_container_of(listener, test, frame_begin);
	struct vt_frame_begin_event *event = data;
	event->slow_us = vt_test_take_frame_cost_us(test->server);
	event->stall_ms = vt_test_take_stall_ms(test->server);
}

static void handle_frame_shown(struct wl_listener *listener, void *data) {
	struct vt_test *test = wl_container_of(listener, test, frame_shown);
	struct vt_frame_shown_event *event = data;
	vt_test_frame_presented(test->server, event->output, event->seq,
			event->data, event->stride, event->width, event->height);
}

bool vt_test_init(struct vt_server *server) {
	struct vt_test *test = calloc(1, sizeof(*test));
	if (test == NULL) {
		return false;
	}
	test->server = server;
	wl_list_init(&test->settles);
	test->settle_timer =
			wl_event_loop_add_timer(server->loop, handle_settle_timer, test);
	test->global = wl_global_create(server->display, &vitrail_test_v1_interface,
			7, test, test_bind);
	if (test->global == NULL || test->settle_timer == NULL) {
		if (test->settle_timer != NULL) {
			wl_event_source_remove(test->settle_timer);
		}
		if (test->global != NULL) {
			wl_global_destroy(test->global);
		}
		free(test);
		return false;
	}
	server->test = test;
	test->check_settled.notify = handle_check_settled;
	wl_signal_add(&server->events.check_settled, &test->check_settled);
	test->frame_begin.notify = handle_frame_begin;
	wl_signal_add(&server->frame_events.begin, &test->frame_begin);
	test->frame_shown.notify = handle_frame_shown;
	wl_signal_add(&server->frame_events.shown, &test->frame_shown);
	wlr_log(WLR_INFO, "test protocol vitrail_test_v1 enabled");
	return true;
}

void vt_test_finish(struct vt_server *server) {
	struct vt_test *test = server->test;
	if (test == NULL) {
		return;
	}
	struct settle *settle, *tmp;
	wl_list_for_each_safe(settle, tmp, &test->settles, link) {
		wl_list_remove(&settle->link);
		wl_resource_set_user_data(settle->callback, NULL);
		free(settle);
	}
	if (test->pointer != NULL) {
		wl_list_remove(&test->pointer_destroy.link);
	}
	if (test->touch != NULL) {
		wl_list_remove(&test->touch_destroy.link);
	}
	hash_frames_stop(test);
	wl_list_remove(&test->check_settled.link);
	wl_list_remove(&test->frame_begin.link);
	wl_list_remove(&test->frame_shown.link);
	wl_event_source_remove(test->settle_timer);
	wl_global_destroy(test->global);
	free(test->costs);
	free(test);
	server->test = NULL;
}
