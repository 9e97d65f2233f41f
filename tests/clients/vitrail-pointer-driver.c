/*
 * vitrail-pointer-driver: moves the pointer through a virtual pointer
 * (zwlr_virtual_pointer_v1) at a steady speed, for measuring
 * input-to-display latency.
 *
 * Back and forth along a line inside a rectangle: the horizontal line
 * through the rectangle's middle row (--axis x), or the vertical one
 * through its middle column (--axis y), from its first pixel to its last
 * and back, for --duration seconds. Event k is sent at t0 + k / rate (an
 * absolute CLOCK_MONOTONIC schedule, no drift) as motion_absolute with
 * the extent of the area the pointer is mapped to, then frame, then
 * flushed. Positions are whole pixels: the step is speed / rate rounded
 * to a whole number of pixels (at least 1), and the line is shortened to
 * a multiple of the step, so that the turns fall on a step and no two
 * consecutive events share a position (a compositor drops a motion that
 * does not move; wlroots does).
 *
 * The area: without --output, the whole output layout, whose size is
 * --extent or, when the compositor has exactly one wl_output, that
 * output's current mode (the layout of one output at scale 1); with
 * --output NAME, the wl_output of that name (wl_output version 4)
 * (create_virtual_pointer_with_output: the pointer is mapped to that
 * output), whose current mode is the extent unless --extent says.
 * Positions (--rect and the CSV) are in that area's pixels.
 *
 * Options:
 *   --rect X,Y,W,H  the rectangle (default: the whole area)
 *   --axis x|y      the line's direction (default x)
 *   --speed PX      pixels per second (default 1000)
 *   --rate HZ       events per second (default 240)
 *   --duration S    seconds of motion (default 2)
 *   --extent WxH    the area's size (default: the output's mode, above)
 *   --output NAME   map the pointer to the wl_output NAME
 *   --csv FILE      one row per event: seq,x,y,send_ns (seq from 0;
 *                   send_ns: CLOCK_MONOTONIC right before the
 *                   wl_display_flush that sent it), written at exit
 *
 * After the last event it makes a round trip (every event was handled)
 * and destroys the pointer. On exit it prints one line to stdout:
 *   pointer-driver: events=<n> step_px=<n> rate_hz=<x> late_max_ms=<x>
 * (late_max_ms: the most an event was sent after its scheduled time).
 * Exit status 0, or 1 on a protocol or connection error, a missing
 * global or output, or an extent it cannot find.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

#define MAX_OUTPUTS 16

struct output {
	struct wl_output *wl_output;
	int32_t width, height; // current mode, 0 until known
	char name[64]; // version 4, empty until known
};

struct event {
	int32_t x, y;
	uint64_t send_ns;
};

struct driver {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_seat *seat;
	struct zwlr_virtual_pointer_manager_v1 *manager;
	struct zwlr_virtual_pointer_v1 *pointer;
	struct output outputs[MAX_OUTPUTS];
	int noutputs;

	int32_t rect_x, rect_y, rect_w, rect_h; // rect_w 0: the whole area
	bool vertical;
	double speed, rate, duration;
	int32_t extent_w, extent_h; // 0: from the output
	const char *output; // NULL: the layout
	const char *csv_path;

	struct event *events;
	size_t nevents;
	double late_max_ms;
};

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t_ns) {
	struct timespec ts = {
		.tv_sec = (time_t)(t_ns / 1000000000u),
		.tv_nsec = (long)(t_ns % 1000000000u),
	};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
			EINTR) {
	}
}

/* ---- globals ------------------------------------------------------------ */

static void output_handle_geometry(void *data, struct wl_output *wl_output,
		int32_t x, int32_t y, int32_t physical_width, int32_t physical_height,
		int32_t subpixel, const char *make, const char *model,
		int32_t transform) {
}

static void output_handle_mode(void *data, struct wl_output *wl_output,
		uint32_t flags, int32_t width, int32_t height, int32_t refresh) {
	struct output *output = data;
	if (flags & WL_OUTPUT_MODE_CURRENT) {
		output->width = width;
		output->height = height;
	}
}

static void output_handle_done(void *data, struct wl_output *wl_output) {
}

static void output_handle_scale(void *data, struct wl_output *wl_output,
		int32_t factor) {
}

static void output_handle_name(void *data, struct wl_output *wl_output,
		const char *name) {
	struct output *output = data;
	snprintf(output->name, sizeof(output->name), "%s", name);
}

static void output_handle_description(void *data, struct wl_output *wl_output,
		const char *description) {
}

static const struct wl_output_listener output_listener = {
	.geometry = output_handle_geometry,
	.mode = output_handle_mode,
	.done = output_handle_done,
	.scale = output_handle_scale,
	.name = output_handle_name,
	.description = output_handle_description,
};

static void registry_handle_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct driver *driver = data;
	if (strcmp(interface, wl_seat_interface.name) == 0 &&
			driver->seat == NULL) {
		driver->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	} else if (strcmp(interface, wl_output_interface.name) == 0 &&
			driver->noutputs < MAX_OUTPUTS) {
		struct output *output = &driver->outputs[driver->noutputs++];
		output->wl_output = wl_registry_bind(registry, name,
				&wl_output_interface, version < 4 ? version : 4);
		wl_output_add_listener(output->wl_output, &output_listener, output);
	} else if (strcmp(interface,
					   zwlr_virtual_pointer_manager_v1_interface.name) == 0) {
		driver->manager = wl_registry_bind(registry, name,
				&zwlr_virtual_pointer_manager_v1_interface,
				version < 2 ? version : 2);
	}
}

static void registry_handle_global_remove(void *data,
		struct wl_registry *registry, uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_handle_global,
	.global_remove = registry_handle_global_remove,
};

static bool report_display_error(struct driver *driver) {
	int err = wl_display_get_error(driver->display);
	if (err == 0) {
		return false;
	}
	const struct wl_interface *interface = NULL;
	uint32_t id = 0;
	if (err == EPROTO) {
		uint32_t code =
				wl_display_get_protocol_error(driver->display, &interface, &id);
		fprintf(stderr,
				"vitrail-pointer-driver: protocol error %u on "
				"%s@%u\n",
				code, interface != NULL ? interface->name : "?", id);
	} else {
		fprintf(stderr,
				"vitrail-pointer-driver: lost the Wayland "
				"connection: %s\n",
				strerror(err));
	}
	return true;
}

/* Connect, bind, create the pointer, find the extent. */
static bool driver_init(struct driver *driver) {
	driver->display = wl_display_connect(NULL);
	if (driver->display == NULL) {
		fprintf(stderr,
				"vitrail-pointer-driver: cannot connect to the "
				"Wayland display\n");
		return false;
	}
	driver->registry = wl_display_get_registry(driver->display);
	wl_registry_add_listener(driver->registry, &registry_listener, driver);
	// the globals, then the outputs' modes
	if (wl_display_roundtrip(driver->display) < 0 ||
			wl_display_roundtrip(driver->display) < 0) {
		report_display_error(driver);
		return false;
	}
	if (driver->manager == NULL) {
		fprintf(stderr,
				"vitrail-pointer-driver: the compositor lacks "
				"zwlr_virtual_pointer_manager_v1\n");
		return false;
	}
	struct output *mapped = NULL;
	if (driver->output != NULL) {
		for (int i = 0; i < driver->noutputs; i++) {
			if (strcmp(driver->outputs[i].name, driver->output) == 0) {
				mapped = &driver->outputs[i];
			}
		}
		if (mapped == NULL) {
			fprintf(stderr,
					"vitrail-pointer-driver: no wl_output named %s "
					"(of %d; names need wl_output version 4)\n",
					driver->output, driver->noutputs);
			return false;
		}
		if (zwlr_virtual_pointer_manager_v1_get_version(driver->manager) < 2) {
			fprintf(stderr,
					"vitrail-pointer-driver: --output needs "
					"zwlr_virtual_pointer_manager_v1 version 2\n");
			return false;
		}
		driver->pointer =
				zwlr_virtual_pointer_manager_v1_create_virtual_pointer_with_output(
						driver->manager, driver->seat, mapped->wl_output);
	} else {
		driver->pointer =
				zwlr_virtual_pointer_manager_v1_create_virtual_pointer(
						driver->manager, driver->seat);
		if (driver->noutputs == 1) {
			mapped = &driver->outputs[0];
		}
	}
	if (driver->extent_w == 0 && mapped != NULL) {
		driver->extent_w = mapped->width;
		driver->extent_h = mapped->height;
	}
	if (driver->extent_w <= 0 || driver->extent_h <= 0) {
		fprintf(stderr,
				"vitrail-pointer-driver: the area's size is unknown "
				"(%d outputs): give --extent WxH\n",
				driver->noutputs);
		return false;
	}
	if (driver->rect_w == 0) {
		driver->rect_x = driver->rect_y = 0;
		driver->rect_w = driver->extent_w;
		driver->rect_h = driver->extent_h;
	}
	if (driver->rect_x < 0 || driver->rect_y < 0 ||
			driver->rect_x + driver->rect_w > driver->extent_w ||
			driver->rect_y + driver->rect_h > driver->extent_h) {
		fprintf(stderr,
				"vitrail-pointer-driver: --rect %d,%d,%d,%d is not "
				"inside the area %dx%d\n",
				driver->rect_x, driver->rect_y, driver->rect_w, driver->rect_h,
				driver->extent_w, driver->extent_h);
		return false;
	}
	return true;
}

/* ---- motion ------------------------------------------------------------- */

static bool driver_run(struct driver *driver) {
	int32_t length = (driver->vertical ? driver->rect_h : driver->rect_w) - 1;
	int32_t step = (int32_t)lround(driver->speed / driver->rate);
	if (step < 1) {
		step = 1;
	}
	if (length < step) {
		fprintf(stderr,
				"vitrail-pointer-driver: the line (%d px) is shorter "
				"than a step (%d px)\n",
				length + 1, step);
		return false;
	}
	length -= length % step; // the turns fall on a step
	int32_t fixed = driver->vertical ? driver->rect_x + driver->rect_w / 2 :
									   driver->rect_y + driver->rect_h / 2;
	int32_t start = driver->vertical ? driver->rect_y : driver->rect_x;
	size_t n = (size_t)floor(driver->duration * driver->rate);
	driver->events = calloc(n + 1, sizeof(*driver->events));
	if (driver->events == NULL) {
		fprintf(stderr, "vitrail-pointer-driver: out of memory\n");
		return false;
	}
	double period_ns = 1e9 / driver->rate;
	uint64_t t0 = now_ns() + 1000000u;
	for (size_t k = 0; k < n; k++) {
		uint64_t due = t0 + (uint64_t)llround((double)k * period_ns);
		sleep_until(due);
		int64_t d = ((int64_t)k * step) % (2 * (int64_t)length);
		int32_t along = start + (int32_t)(d <= length ? d : 2 * length - d);
		struct event *event = &driver->events[k];
		event->x = driver->vertical ? fixed : along;
		event->y = driver->vertical ? along : fixed;
		uint64_t now = now_ns();
		zwlr_virtual_pointer_v1_motion_absolute(driver->pointer,
				(uint32_t)(now / 1000000u), (uint32_t)event->x,
				(uint32_t)event->y, (uint32_t)driver->extent_w,
				(uint32_t)driver->extent_h);
		zwlr_virtual_pointer_v1_frame(driver->pointer);
		event->send_ns = now_ns();
		if (wl_display_flush(driver->display) < 0 && errno != EAGAIN) {
			report_display_error(driver);
			return false;
		}
		driver->nevents = k + 1;
		double late_ms = (double)(event->send_ns - due) / 1e6;
		if (late_ms > driver->late_max_ms) {
			driver->late_max_ms = late_ms;
		}
		// errors the compositor sent meanwhile
		if (wl_display_dispatch_pending(driver->display) < 0) {
			report_display_error(driver);
			return false;
		}
	}
	if (wl_display_roundtrip(driver->display) < 0) {
		report_display_error(driver);
		return false;
	}
	return true;
}

static bool write_csv(struct driver *driver) {
	FILE *f = fopen(driver->csv_path, "w");
	if (f == NULL) {
		fprintf(stderr, "vitrail-pointer-driver: cannot write %s: %s\n",
				driver->csv_path, strerror(errno));
		return false;
	}
	fprintf(f, "seq,x,y,send_ns\n");
	for (size_t k = 0; k < driver->nevents; k++) {
		const struct event *e = &driver->events[k];
		fprintf(f, "%zu,%d,%d,%llu\n", k, e->x, e->y,
				(unsigned long long)e->send_ns);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "vitrail-pointer-driver: cannot write %s\n",
				driver->csv_path);
		return false;
	}
	return true;
}

static void driver_finish(struct driver *driver) {
	if (driver->pointer != NULL) {
		zwlr_virtual_pointer_v1_destroy(driver->pointer);
	}
	if (driver->manager != NULL) {
		zwlr_virtual_pointer_manager_v1_destroy(driver->manager);
	}
	for (int i = 0; i < driver->noutputs; i++) {
		wl_output_destroy(driver->outputs[i].wl_output);
	}
	if (driver->seat != NULL) {
		wl_seat_destroy(driver->seat);
	}
	if (driver->registry != NULL) {
		wl_registry_destroy(driver->registry);
	}
	if (driver->display != NULL) {
		wl_display_roundtrip(driver->display);
		wl_display_disconnect(driver->display);
	}
	free(driver->events);
}

/* ---- options ------------------------------------------------------------ */

static bool parse_double(const char *s, double min, double max, double *out) {
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !(v >= min) || v > max) {
		return false;
	}
	*out = v;
	return true;
}

static bool parse_rect(const char *s, struct driver *driver) {
	int x, y, w, h, n = 0;
	if (sscanf(s, "%d,%d,%d,%d%n", &x, &y, &w, &h, &n) != 4 || s[n] != '\0' ||
			x < 0 || y < 0 || w < 1 || h < 1) {
		return false;
	}
	driver->rect_x = x;
	driver->rect_y = y;
	driver->rect_w = w;
	driver->rect_h = h;
	return true;
}

static bool parse_extent(const char *s, struct driver *driver) {
	int w, h, n = 0;
	if (sscanf(s, "%dx%d%n", &w, &h, &n) != 2 || s[n] != '\0' || w < 1 ||
			h < 1) {
		return false;
	}
	driver->extent_w = w;
	driver->extent_h = h;
	return true;
}

static void usage(FILE *f) {
	fprintf(f,
			"Usage: vitrail-pointer-driver [--rect X,Y,W,H] [--axis x|y] "
			"[--speed PX] [--rate HZ] [--duration S] [--extent WxH] "
			"[--output NAME] [--csv FILE]\n");
}

int main(int argc, char *argv[]) {
	struct driver driver = {
		.speed = 1000,
		.rate = 240,
		.duration = 2,
	};
	static const struct option long_options[] = {
		{ "rect", required_argument, NULL, 'r' },
		{ "axis", required_argument, NULL, 'a' },
		{ "speed", required_argument, NULL, 's' },
		{ "rate", required_argument, NULL, 'R' },
		{ "duration", required_argument, NULL, 'd' },
		{ "extent", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "csv", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		bool ok = true;
		switch (opt) {
		case 'r': ok = parse_rect(optarg, &driver); break;
		case 'a':
			ok = strcmp(optarg, "x") == 0 || strcmp(optarg, "y") == 0;
			driver.vertical = strcmp(optarg, "y") == 0;
			break;
		case 's': ok = parse_double(optarg, 1, 1e6, &driver.speed); break;
		case 'R': ok = parse_double(optarg, 1, 10000, &driver.rate); break;
		case 'd': ok = parse_double(optarg, 0, 3600, &driver.duration); break;
		case 'e': ok = parse_extent(optarg, &driver); break;
		case 'o': driver.output = optarg; break;
		case 'c': driver.csv_path = optarg; break;
		case 'h': usage(stdout); return EXIT_SUCCESS;
		default: usage(stderr); return EXIT_FAILURE;
		}
		if (!ok) {
			fprintf(stderr,
					"vitrail-pointer-driver: bad value '%s' for "
					"%s\n",
					optarg, argv[optind - 1]);
			usage(stderr);
			return EXIT_FAILURE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EXIT_FAILURE;
	}

	bool ok = driver_init(&driver) && driver_run(&driver);
	int32_t step = (int32_t)lround(driver.speed / driver.rate);
	printf("pointer-driver: events=%zu step_px=%d rate_hz=%g "
		   "late_max_ms=%.3f\n",
			driver.nevents, step < 1 ? 1 : step, driver.rate,
			driver.late_max_ms);
	fflush(stdout);
	if (driver.csv_path != NULL && !write_csv(&driver)) {
		ok = false;
	}
	driver_finish(&driver);
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
