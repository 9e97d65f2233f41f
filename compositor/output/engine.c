/*
 * The rendering engine every output frame goes through, and the renderer
 * behind it (moved here from server.c: the outputs replace it when the
 * Vulkan device is lost, and they sit below the server). Completed frames
 * come back through the engine's fd to the outputs (output_frame.c).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <wlr/util/log.h>

#include "output/engine.h"
#include "server.h"

static int handle_renderer_fd(int fd, uint32_t mask, void *data) {
	struct vt_server *server = data;
	wl_signal_emit(&server->events.engine_completed, server);
	return 0;
}

static void drop_engine(struct vt_server *server) {
	if (server->engine_source != NULL) {
		wl_event_source_remove(server->engine_source);
		server->engine_source = NULL;
	}
	vr_engine_destroy(server->engine);
	server->engine = NULL;
}

bool vt_server_set_engine(struct vt_server *server) {
	drop_engine(server);
	if (server->renderer != NULL) {
		server->engine = vr_engine_create_vulkan(server->renderer);
	} else if (server->cpu != NULL) {
		server->engine = vr_engine_create_cpu(server->cpu);
	} else {
		server->engine = vr_engine_create_reference();
	}
	if (server->engine == NULL) {
		wlr_log(WLR_ERROR, "cannot create the rendering engine");
		return false;
	}
	/* frames the engine completes reach the outputs through its fd,
	 * whichever engine it is */
	server->engine_source =
			wl_event_loop_add_fd(server->loop, vr_engine_get_fd(server->engine),
					WL_EVENT_READABLE, handle_renderer_fd, server);
	if (server->engine_source == NULL) {
		wlr_log(WLR_ERROR, "cannot watch the engine's completions");
		vr_engine_destroy(server->engine);
		server->engine = NULL;
		return false;
	}
	return true;
}

void vt_server_drop_renderer(struct vt_server *server) {
	if (server->engine != NULL && !vr_engine_host_images(server->engine)) {
		drop_engine(server); /* it wraps the renderer */
	}
	vr_renderer_destroy(server->renderer);
	server->renderer = NULL;
}

const char *vt_server_renderer_name(struct vt_server *server) {
	if (server->renderer != NULL) {
		return vr_renderer_device_name(server->renderer);
	}
	return server->cpu != NULL ? "the CPU backend" :
								 "the pixman reference renderer";
}

bool vt_server_use_cpu_backend(struct vt_server *server) {
	if (server->cpu == NULL) {
		/* all cores draw bands unless --renderer-threads says how many
		 * besides the main thread */
		int threads = server->opts.sequential ?
				1 :
				server->opts.renderer_threads > 0 ?
				server->opts.renderer_threads + 1 :
				0;
		server->cpu = vr_cpu_renderer_create(threads);
	}
	if (server->cpu == NULL) {
		wlr_log(WLR_ERROR,
				"cannot start the CPU backend's threads: the "
				"reference renderer draws on the main thread, slowly");
		return false;
	}
	return true;
}

static void drop_cpu_backend(struct vt_server *server) {
	vr_cpu_renderer_destroy(server->cpu);
	server->cpu = NULL;
}

void vt_server_choose_backend(struct vt_server *server) {
	if (!vt_server_use_cpu_backend(server)) {
		return;
	}
	double vulkan_ns = 0, cpu_ns = 0;
	if (!vr_backends_measure(server->renderer, server->cpu, 1280, 720, 5,
				&vulkan_ns, &cpu_ns)) {
		wlr_log(WLR_ERROR, "measuring the backends failed: Vulkan draws");
	} else {
		wlr_log(WLR_INFO,
				"a 1280x720 frame takes %.2f ms with Vulkan on "
				"%s, %.2f ms with the CPU backend (%d threads): %s draws",
				vulkan_ns / 1e6, vr_renderer_device_name(server->renderer),
				cpu_ns / 1e6, vr_cpu_renderer_workers(server->cpu),
				cpu_ns < vulkan_ns ? "the CPU backend" : "Vulkan");
	}
	if (cpu_ns > 0 && cpu_ns < vulkan_ns) {
		vt_server_drop_renderer(server);
	} else {
		drop_cpu_backend(server);
	}
}

int vt_server_render_node_open(struct vt_server *server, char *path,
		size_t path_len) {
	int64_t major, minor;
	if (server->renderer == NULL ||
			!vr_renderer_render_node(server->renderer, &major, &minor)) {
		return -1;
	}
	char node[32];
	snprintf(node, sizeof(node), "/dev/dri/renderD%" PRId64, minor);
	int fd = open(node, O_RDWR | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 &&
			st.st_rdev == makedev((unsigned)major, (unsigned)minor)) {
		if (path != NULL) {
			snprintf(path, path_len, "%s", node);
		}
		return fd;
	}
	wlr_log(WLR_ERROR,
			"the Vulkan device's render node %" PRId64 ":%" PRId64 " is not %s",
			major, minor, node);
	if (fd >= 0) {
		close(fd);
	}
	return -1;
}
