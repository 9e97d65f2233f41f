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

unsigned vr_engine_dmabuf_imports(const struct vr_engine *engine,
		unsigned *reused) {
	if (engine->kind == SEAM_VULKAN) {
		return vr_renderer_dmabuf_imports(engine->vulkan, reused);
	}
	if (reused != NULL) {
		*reused = 0;
	}
	return 0;
}

bool vr_engine_imports_dmabuf(const struct vr_engine *engine) {
	return engine->kind == SEAM_VULKAN &&
			vr_renderer_imports_dmabuf(engine->vulkan);
}

/* ---- outputs and buffers ------------------------------------------------ */

struct vr_engine_output {
	struct vr_engine *engine;
	int32_t width, height;
	struct vr_target *target; /* Vulkan: holds the newest frame */
};

struct vr_engine_buffer {
	struct vr_engine *engine;
	/* the memory as an image: what the host engines draw into, and what
	 * vr_engine_output_read reads for them */
	pixman_image_t *image;
	struct vr_dst_buffer *dst; /* Vulkan: the memory imported */
	bool direct;
	bool dmabuf; /* dst is the dma-buf, not the mapping */
};

struct vr_engine_output *vr_engine_output_create(struct vr_engine *engine,
		int32_t width, int32_t height) {
	if (width <= 0 || height <= 0) {
		vr_log(VR_LOG_ERROR, "engine output: bad size %dx%d", width, height);
		return NULL;
	}
	struct vr_engine_output *output = calloc(1, sizeof(*output));
	if (output == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	output->engine = engine;
	output->width = width;
	output->height = height;
	if (engine->kind == SEAM_VULKAN) {
		output->target = vr_target_create(engine->vulkan, width, height);
		if (output->target == NULL) {
			vr_log(VR_LOG_ERROR, "cannot create a %dx%d render target", width,
					height);
			free(output);
			return NULL;
		}
	}
	return output;
}

void vr_engine_output_destroy(struct vr_engine_output *output) {
	if (output == NULL) {
		return;
	}
	vr_target_destroy(output->target);
	free(output);
}

int32_t vr_engine_output_width(const struct vr_engine_output *output) {
	return output->width;
}

int32_t vr_engine_output_height(const struct vr_engine_output *output) {
	return output->height;
}

struct vr_engine_buffer *vr_engine_buffer_create(struct vr_engine *engine,
		void *data, int32_t width, int32_t height, int32_t stride,
		bool direct) {
	if (data == NULL || width <= 0 || height <= 0 || stride < width * 4 ||
			stride % 4 != 0) {
		vr_log(VR_LOG_ERROR, "engine buffer: bad memory (%dx%d, stride %d)",
				width, height, stride);
		return NULL;
	}
	struct vr_engine_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	buffer->engine = engine;
	buffer->image = pixman_image_create_bits_no_clear(PIXMAN_x8r8g8b8, width,
			height, data, stride);
	if (buffer->image == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		free(buffer);
		return NULL;
	}
	if (engine->kind != SEAM_VULKAN) {
		buffer->direct = true; /* the only way these engines draw */
	} else if (direct) {
		/* NULL where the memory cannot be imported: copied out */
		buffer->dst = vr_dst_buffer_import(engine->vulkan, data,
				(size_t)stride * (size_t)height, width, height, stride);
		buffer->direct = buffer->dst != NULL;
	}
	return buffer;
}

struct vr_engine_buffer *vr_engine_buffer_create_dmabuf(
		struct vr_engine *engine, int fd, uint32_t offset, void *data,
		int32_t width, int32_t height, int32_t stride) {
	struct vr_engine_buffer *buffer =
			vr_engine_buffer_create(engine, data, width, height, stride, false);
	if (buffer == NULL || engine->kind != SEAM_VULKAN) {
		return buffer; /* the host engines draw through the mapping */
	}
	buffer->dst = vr_dst_buffer_import_dmabuf(engine->vulkan, fd, offset, width,
			height, stride);
	buffer->direct = buffer->dst != NULL;
	buffer->dmabuf = buffer->direct;
	return buffer;
}

void vr_engine_buffer_destroy(struct vr_engine_buffer *buffer) {
	if (buffer == NULL) {
		return;
	}
	/* the renderer keeps its Vulkan objects until the frames that write
	 * the memory complete */
	vr_dst_buffer_destroy(buffer->dst);
	pixman_image_unref(buffer->image);
	free(buffer);
}

bool vr_engine_buffer_direct(const struct vr_engine_buffer *buffer) {
	return buffer->direct;
}

bool vr_engine_buffer_on_device(const struct vr_engine_buffer *buffer) {
	return buffer->dmabuf;
}

bool vr_engine_output_read(struct vr_engine_output *output,
		struct vr_engine_buffer *newest, const pixman_region32_t *region,
		void *data, int32_t stride) {
	if (output->target != NULL) {
		vr_target_read(output->target, region, data, stride);
		return true;
	}
	if (newest == NULL) {
		return false;
	}
	int32_t w = pixman_image_get_width(newest->image);
	int32_t h = pixman_image_get_height(newest->image);
	if (w > output->width) {
		w = output->width;
	}
	if (h > output->height) {
		h = output->height;
	}
	pixman_image_t *dst = pixman_image_create_bits_no_clear(PIXMAN_a8r8g8b8,
			output->width, output->height, data, stride);
	if (dst == NULL) {
		return false;
	}
	if (region != NULL) {
		pixman_image_set_clip_region32(dst, (pixman_region32_t *)region);
	}
	/* x8r8g8b8 read as opaque */
	pixman_image_composite32(PIXMAN_OP_SRC, newest->image, NULL, dst, 0, 0, 0,
			0, 0, 0, w, h);
	pixman_image_unref(dst);
	return true;
}

static uint64_t region_area(const pixman_region32_t *region) {
	int n;
	const pixman_box32_t *boxes =
			pixman_region32_rectangles((pixman_region32_t *)region, &n);
	uint64_t area = 0;
	for (int i = 0; i < n; i++) {
		area += (uint64_t)(boxes[i].x2 - boxes[i].x1) *
				(uint64_t)(boxes[i].y2 - boxes[i].y1);
	}
	return area;
}

static uint64_t move_area(const struct vr_move *move) {
	return move != NULL ?
			(uint64_t)move->box.width * (uint64_t)move->box.height :
			0;
}

/* ---- frames ------------------------------------------------------------- */

static uint64_t reference_submit(struct vr_engine *engine, struct vr_tree *tree,
		pixman_image_t *image, const struct vr_engine_frame *frame,
		const struct vr_move *move, const pixman_region32_t *region) {
	uint64_t id = engine->last_id + 1;
	size_t slot = id % VR_FRAMES_IN_FLIGHT;
	struct vr_frame_timing *t = &engine->timings[slot];
	memset(t, 0, sizeof(*t));
	t->start_ns = vr_now_ns();
	if (move != NULL) {
		vr_move_pixels(image, move);
	}
	vr_reference_render_region(tree, image, &frame->view, frame->clear, region);
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
		struct vr_engine_frame *frame) {
	struct vr_changes *changes = frame->buffer_changes;
	if (frame->output == NULL || frame->buffer == NULL || changes == NULL ||
			frame->damage == NULL || frame->buffer->engine != engine ||
			frame->output->engine != engine) {
		vr_log(VR_LOG_ERROR, "engine: a frame without its destination");
		return 0;
	}
	uint64_t id = 0;
	if (engine->kind == SEAM_VULKAN) {
		/* the target moves and gets the damage; the buffer a copy of
		 * what it lacks */
		vr_changes_flatten(changes);
		struct vr_render_job job = {
			.target = frame->output->target,
			.view = frame->view,
			.moves = frame->move,
			.nmoves = frame->move != NULL ? 1 : 0,
			.damage = frame->damage,
			.clear = frame->clear,
			.dst = frame->buffer->dst,
			.dst_region = &changes->damage,
		};
		frame->moved_px = move_area(frame->move);
		frame->drawn_px = region_area(frame->damage);
		id = vr_render_submit(engine->vulkan, tree, &job, 1);
	} else {
		/* the buffer's own pixels move, then what it lacks is drawn */
		const struct vr_move *move = changes->has_move ? &changes->move : NULL;
		frame->moved_px = move_area(move);
		frame->drawn_px = region_area(&changes->damage);
		if (engine->kind == SEAM_CPU) {
			id = vr_cpu_render_submit_moved(engine->cpu, tree,
					frame->buffer->image, &frame->view, frame->clear,
					&changes->damage, move, move != NULL ? 1 : 0);
		} else {
			id = reference_submit(engine, tree, frame->buffer->image, frame,
					move, &changes->damage);
		}
		/* what the frame writes: the moved pixels too */
		if (move != NULL) {
			vr_changes_flatten(changes);
		}
	}
	if (id != 0) {
		engine->last_id = id;
	}
	return id;
}

bool vr_engine_render(struct vr_engine *engine, struct vr_tree *tree,
		struct vr_engine_frame *frame, struct vr_frame_timing *timing) {
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
