/*
 * One engine: the asynchronous interface of renderer.h ("one engine")
 * over the Vulkan renderer, the CPU engine and the reference renderer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "render_private.h"

enum seam_kind {
	SEAM_VULKAN,
	SEAM_CPU,
	SEAM_REFERENCE,
};

struct vr_engine {
	enum seam_kind kind;
	struct vr_renderer *vulkan;
	struct vr_cpu_renderer *cpu;
	/* the reference renderer: frames complete during the submit; the
	 * eventfd says so to the caller's event loop like the others' */
	int fd;
	uint64_t last_id, dispatched;
	struct vr_frame_timing timings[VR_FRAMES_IN_FLIGHT];
	bool timing_ok[VR_FRAMES_IN_FLIGHT];
};

static struct vr_engine *seam_create(enum seam_kind kind) {
	struct vr_engine *engine = calloc(1, sizeof(*engine));
	if (engine == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	engine->kind = kind;
	engine->fd = -1;
	return engine;
}

struct vr_engine *vr_engine_create_vulkan(struct vr_renderer *renderer) {
	struct vr_engine *engine =
			renderer != NULL ? seam_create(SEAM_VULKAN) : NULL;
	if (engine != NULL) {
		engine->vulkan = renderer;
	}
	return engine;
}

struct vr_engine *vr_engine_create_cpu(struct vr_cpu_renderer *renderer) {
	struct vr_engine *engine = renderer != NULL ? seam_create(SEAM_CPU) : NULL;
	if (engine != NULL) {
		engine->cpu = renderer;
	}
	return engine;
}

struct vr_engine *vr_engine_create_reference(void) {
	struct vr_engine *engine = seam_create(SEAM_REFERENCE);
	if (engine == NULL) {
		return NULL;
	}
	engine->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (engine->fd < 0) {
		vr_log(VR_LOG_ERROR, "reference engine: eventfd failed");
		free(engine);
		return NULL;
	}
	return engine;
}

void vr_engine_destroy(struct vr_engine *engine) {
	if (engine == NULL) {
		return;
	}
	if (engine->fd >= 0) {
		close(engine->fd);
	}
	free(engine);
}

const char *vr_engine_name(const struct vr_engine *engine) {
	static const char *const names[] = { "vulkan", "cpu", "reference" };
	return names[engine->kind];
}

bool vr_engine_host_images(const struct vr_engine *engine) {
	return engine->kind != SEAM_VULKAN;
}

static uint64_t reference_submit(struct vr_engine *engine, struct vr_tree *tree,
		const struct vr_engine_frame *frame) {
	uint64_t id = engine->last_id + 1;
	size_t slot = id % VR_FRAMES_IN_FLIGHT;
	struct vr_frame_timing *t = &engine->timings[slot];
	memset(t, 0, sizeof(*t));
	t->start_ns = vr_now_ns();
	for (size_t i = 0; i < frame->nmoves && i < VR_MOVES_MAX; i++) {
		vr_move_pixels(frame->image, &frame->moves[i]);
	}
	vr_reference_render_region(tree, frame->image, &frame->view, frame->clear,
			frame->region);
	t->end_ns = vr_now_ns();
	t->execute_ns = t->end_ns - t->start_ns;
	t->mode = VR_FRAME_SEQUENTIAL;
	engine->timing_ok[slot] = true;
	engine->last_id = id;
	uint64_t one = 1;
	if (write(engine->fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
		vr_log(VR_LOG_ERROR, "reference engine: eventfd write failed");
	}
	return id;
}

uint64_t vr_engine_submit(struct vr_engine *engine, struct vr_tree *tree,
		const struct vr_engine_frame *frame) {
	uint64_t id = 0;
	switch (engine->kind) {
	case SEAM_VULKAN: {
		struct vr_render_job job = {
			.target = frame->target,
			.view = frame->view,
			.moves = frame->moves,
			.nmoves = frame->nmoves,
			.damage = frame->damage,
			.clear = frame->clear,
			.dst = frame->dst,
			.dst_region = frame->region,
			.update_mirror = frame->update_mirror,
		};
		id = vr_render_submit(engine->vulkan, tree, &job, 1);
		break;
	}
	case SEAM_CPU:
		id = vr_cpu_render_submit_moved(engine->cpu, tree, frame->image,
				&frame->view, frame->clear, frame->region, frame->moves,
				frame->nmoves);
		break;
	case SEAM_REFERENCE:
		if (frame->image == NULL) {
			vr_log(VR_LOG_ERROR, "reference engine: no host image");
			return 0;
		}
		id = reference_submit(engine, tree, frame);
		break;
	}
	if (id != 0) {
		engine->last_id = id;
	}
	return id;
}

bool vr_engine_render(struct vr_engine *engine, struct vr_tree *tree,
		const struct vr_engine_frame *frame, struct vr_frame_timing *timing) {
	uint64_t id = vr_engine_submit(engine, tree, frame);
	if (id == 0 || !vr_engine_wait(engine, id, UINT64_MAX)) {
		return false;
	}
	struct vr_frame_timing unused;
	return vr_engine_get_timing(engine, id, timing != NULL ? timing : &unused);
}

int vr_engine_get_fd(struct vr_engine *engine) {
	switch (engine->kind) {
	case SEAM_VULKAN: return vr_renderer_get_fd(engine->vulkan);
	case SEAM_CPU: return vr_cpu_renderer_get_fd(engine->cpu);
	case SEAM_REFERENCE: break;
	}
	return engine->fd;
}

uint64_t vr_engine_dispatch(struct vr_engine *engine) {
	switch (engine->kind) {
	case SEAM_VULKAN: return vr_renderer_dispatch(engine->vulkan);
	case SEAM_CPU: return vr_cpu_renderer_dispatch(engine->cpu);
	case SEAM_REFERENCE: break;
	}
	uint64_t count;
	while (read(engine->fd, &count, sizeof(count)) == sizeof(count)) {
	}
	return engine->last_id;
}

bool vr_engine_wait(struct vr_engine *engine, uint64_t id,
		uint64_t timeout_ns) {
	switch (engine->kind) {
	case SEAM_VULKAN: return vr_frame_wait(engine->vulkan, id, timeout_ns);
	case SEAM_CPU: return vr_cpu_frame_wait(engine->cpu, id, timeout_ns);
	case SEAM_REFERENCE: break;
	}
	return id != 0 && id <= engine->last_id;
}

bool vr_engine_get_timing(struct vr_engine *engine, uint64_t id,
		struct vr_frame_timing *out) {
	switch (engine->kind) {
	case SEAM_VULKAN: return vr_frame_get_timing(engine->vulkan, id, 0, out);
	case SEAM_CPU: return vr_cpu_frame_get_timing(engine->cpu, id, out);
	case SEAM_REFERENCE: break;
	}
	size_t slot = id % VR_FRAMES_IN_FLIGHT;
	if (id == 0 || id > engine->last_id ||
			engine->last_id - id >= VR_FRAMES_IN_FLIGHT ||
			!engine->timing_ok[slot]) {
		return false;
	}
	*out = engine->timings[slot];
	return true;
}

bool vr_engine_is_lost(struct vr_engine *engine) {
	return engine->kind == SEAM_VULKAN && vr_renderer_is_lost(engine->vulkan);
}
