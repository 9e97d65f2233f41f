/*
 * Vulkan internals of the renderer, shared by vk_device.c (instance,
 * device, queue, memory types), vk_render.c (renderer, targets, frames),
 * vk_chain.c (preparation's output, handoffs), vk_record.c (recording),
 * vk_fences.c and vk_frames.c (frames in flight), resources*.c
 * (thread-safe resource managers, execution contexts), workers.c (worker
 * and commit threads) and the rest of this folder; README "Layout" has
 * their order, bottom to top.
 *
 * Threads (see DESIGN.md): the caller's thread prepares; W workers execute
 * tasks (resources.c's vr_exec_* functions are their only way to the GPU
 * objects); one commit thread records the frame's command buffer and owns
 * the queue. In sequential mode the caller's thread does all three.
 */
#ifndef RENDERER_VK_PRIVATE_H
#define RENDERER_VK_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <vulkan/vulkan.h>
#include "engine.h"
#include "vk_engine.h"
#include "pool.h"
#include "render_private.h"
#include "display_list.h" /* vr_grow */

/* VR_FRAMES_IN_FLIGHT (renderer.h) frame slots: each has its frame
 * command buffer, every context's upload and prologue command buffers,
 * a region of the vertex ring and a fence; a slot is reused only after
 * its previous frame retired. */
_Static_assert(VR_FRAMES_IN_FLIGHT >= 6, "frames in flight");

/* A growable array of fixed-size elements: vr_grow's (the renderer's one
 * way to grow an array) with its length beside it. */
struct vr_array {
	void *data;
	size_t len, cap; /* in elements */
};

/* Room for n more elements; false (logged) on allocation failure. */
static inline bool vr_array_reserve(struct vr_array *array, size_t n,
		size_t elem_size) {
	return vr_grow(&array->data, &array->cap, array->len + n, elem_size);
}

enum vr_sampler {
	VR_SAMPLER_NEAREST,
	VR_SAMPLER_LINEAR,
};

/* A persistently mapped host-visible buffer. */
struct vr_host_buffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	void *map;
	VkDeviceSize size;
	bool coherent;
	struct vr_list link; /* vr_exec_ctx::overflow */
};

/*
 * One thread's way to GPU objects during execution (a worker's, or the
 * caller's in sequential mode). Everything here belongs to the thread
 * executing with it; the commit thread reads it (ends its command buffers,
 * sums its figures) only after every task of the frame is finished, and
 * the caller's thread resets it between frames.
 */
struct vr_exec_ctx {
	struct vr_renderer *renderer;
	int index; /* worker number; -1: the caller's thread */
	VkCommandPool pools[VR_FRAMES_IN_FLIGHT];
	/* image uploads, then effect passes: all uploads of a frame are
	 * submitted before all prologues, which come before the frame */
	VkCommandBuffer upload_cbs[VR_FRAMES_IN_FLIGHT];
	VkCommandBuffer prologue_cbs[VR_FRAMES_IN_FLIGHT];
	bool upload_begun, prologue_begun; /* this frame */
	/* this thread's slice of the vertex ring (or an overflow buffer) */
	VkBuffer chunk_buffer;
	uint8_t *chunk_map; /* CPU address of the chunk's start */
	VkDeviceSize chunk_offset, chunk_size, chunk_used;
	VkBuffer last_buffer; /* of the latest vr_exec_vertices() */
	struct vr_list overflow; /* vr_host_buffer::link; this frame's, handed
		to its slot when the frame is submitted */
	/* this frame's uploads into atlas pages and large textures (struct
	 * vr_staged_copy), recorded into the upload command buffer by
	 * vr_exec_ctx_collect */
	struct vr_array staged_copies;
	/* this frame's figures */
	uint64_t busy_ns; /* executing tasks */
	uint32_t tasks; /* executed */
	uint32_t job; /* of the task being executed (upload accounting) */
	bool failed; /* a Vulkan or allocation error */
	uint64_t rng; /* test delays */
};

/* The GPU copy of a vr_image in one renderer (resources.c). */
struct vr_texture;

enum vr_resource_state {
	VR_RESOURCE_PREPARING, /* one thread is creating it; others wait */
	VR_RESOURCE_READY,
	VR_RESOURCE_FAILED,
};

struct vr_pipeline_entry;

/* An atlas page (resources.c); at most this many, 4 MiB each. */
struct vr_atlas_page;
#define VR_ATLAS_MAX_PAGES 16
/* Locks of the preparing -> ready transitions (a power of two). */
#define VR_READY_SHARDS 16

/*
 * Thread-safe resource managers (resources.c; lock order at the top of
 * that file).
 */
struct vr_resources {
	/* images: the vr_image::copies lists of every image and `textures` */
	pthread_rwlock_t images_lock;
	struct vr_list textures; /* vr_texture::link; protected by images_lock */
	struct vr_list garbage; /* vr_texture::link; protected by images_lock,
		freed by the caller's thread once the frames that may use
		them completed */
	/* the small-image atlas (engine.h): pages, NULL where none; a page's
	 * cells are protected by images_lock, its GPU objects are created by
	 * the first worker that samples it (preparing state) */
	struct vr_atlas_page *atlas_pages[VR_ATLAS_MAX_PAGES];
	/* preparing -> ready/failed transitions of textures, atlas pages and
	 * pipelines: a resource's state (its address) hashes to a shard, so
	 * threads waiting for different resources rarely share a lock */
	struct vr_ready_shard {
		pthread_mutex_t lock;
		pthread_cond_t cond; /* broadcast under lock */
	} ready[VR_READY_SHARDS];
	/* pipelines, by key */
	pthread_rwlock_t pipelines_lock;
	struct vr_pipeline_entry **pipelines; /* protected by pipelines_lock */
	size_t npipelines, pipelines_cap; /* protected by pipelines_lock */
	/* descriptor pools (vkAllocate/FreeDescriptorSets need them locked) */
	pthread_mutex_t descriptors_lock;
	struct vr_list descriptor_pools; /* descriptor_pool::link; protected by
		descriptors_lock */
	/* scratch images */
	pthread_mutex_t scratch_lock;
	struct vr_list scratch_free; /* vr_scratch_image::link; protected by
		scratch_lock */
	struct vr_list scratch_used; /* this frame's; protected by scratch_lock;
		handed to the frame's slot when it is submitted */
	/* the vertex ring: VR_FRAMES_IN_FLIGHT regions of region_size bytes */
	struct vr_host_buffer ring; /* caller's thread, between frames */
	VkDeviceSize region_size; /* caller's thread, between frames */
	_Atomic uint64_t ring_head; /* bytes handed out of this frame's region */
	/* how often things were created (tests of the preparing rule) */
	atomic_uint textures_created, pipelines_created, scratch_created;
	atomic_uint scratch_warmed; /* by vr_resources_warm_scratch */
	atomic_uint atlas_placed; /* images placed in the atlas, ever */
	atomic_uint dmabuf_imports; /* external images sampled in place, ever */
	atomic_uint dmabuf_reuses; /* of those, on an earlier one's import */
	/* imported dma-bufs kept after their textures went (vr_import,
	 * resources_textures.c), newest first: a client's buffers come back */
	pthread_mutex_t imports_lock;
	struct vr_list imports; /* protected by imports_lock */
	size_t nimports; /* protected by imports_lock */
	atomic_uint waits; /* a thread waited for another's creation */
	atomic_uint waiting; /* threads waiting for a creation right now */
	/* test hook: a pipeline's creator holds off compiling until this many
	 * threads wait for it (bounded by a timeout) */
	atomic_uint test_hold_creation;
};

/* A frame's job (target), as the pipeline sees it: copied out of the
 * caller's vr_render_job, which the caller may reuse once submit
 * returned. */
struct vr_frame_job {
	struct vr_target *target;
	struct vr_color clear;
	bool mirror; /* the host mirror gets the redrawn pixels */
	struct vr_prepare_job prep;
	size_t first_rect, nrects; /* in vr_frame::rects */
	uint32_t end; /* end of its tasks in the chain (after preparation) */
	uint32_t draws; /* record calls (commit side) */
	atomic_uint uploads; /* by the workers executing its tasks */
	/* the output path, decided by the caller's thread at set-up */
	struct vr_dst_buffer *dst;
	size_t first_dst_rect, ndst_rects; /* in vr_frame::rects */
	size_t first_mirror_rect, nmirror_rects; /* in vr_frame::rects */
	/* shift-and-expose: moved inside the target first (through its
	 * scratch image), clipped to it */
	struct vr_move moves[VR_MOVES_MAX];
	size_t nmoves;
};

struct vr_chain {
	struct vr_renderer *renderer;
	struct vr_arena arena; /* caller's thread */
	struct vr_task_list tasks; /* appended by the caller's thread */
	bool failed; /* caller's thread */
	/* caller's thread: what the tasks point into, released when the
	 * frame's CPU stage ended (vr_frame_reap) */
	uint64_t hold_epoch;
	struct vr_array held_images; /* struct vr_image *, pinned */
	struct vr_array held_lists; /* struct vr_display_list *, referenced */
};

/*
 * The CPU side of one vr_render_submit call: one at a time. Written by
 * the caller's thread before the commit thread starts it (vr_workers::lock
 * orders it), then by the commit thread (fields marked commit) and the
 * workers (task outs, upload counts), read and reset by the caller's
 * thread only once the commit thread is done with it (vr_frame_reap,
 * which the next submit and every wait or retirement call first). In
 * parallel mode submit returns before that: `cpu_pending` is set until
 * the caller reaped it.
 */
struct vr_frame {
	bool cpu_pending; /* caller's thread */
	uint64_t start_ns, prepare_ns; /* caller's thread */
	uint64_t number; /* 1, 2, ... */
	uint32_t slot; /* number % VR_FRAMES_IN_FLIGHT */
	struct vr_frame_job *jobs;
	size_t njobs, jobs_cap;
	struct vr_array rects; /* VkRect2D, damage rects of every job */
	struct vr_chain chain;
	/* commit */
	struct vr_commit commit;
	uint32_t *job_ends; /* per job, UINT32_MAX until known */
	uint32_t stalls;
	uint64_t commit_ns, submit_ns;
	bool commit_failed;
	struct vr_array upload_cbs, prologue_cbs; /* VkCommandBuffer, submit */
	/* sequential mode: time spent executing and recording */
	uint64_t seq_execute_ns, seq_record_ns;
	/* Granularity (caller's thread): the parallel mode hands tasks over
	 * only once the frame's estimated cost reached
	 * vr_granularity::parallel_cost (until then they wait in the chain
	 * from `handed`); below it at the end of preparation the frame runs
	 * inline. Tasks go to the pool in chunks [chunk_first, +chunk_len)
	 * of one job. */
	enum vr_frame_mode mode;
	bool handing; /* parallel: the workers and commit thread have it */
	uint32_t cost; /* estimated so far */
	uint32_t layers; /* group-opacity layers pushed (nested included) */
	/* preparation's reuse (prepare.c): nodes and their primitives kept
	 * from an earlier frame */
	uint32_t reused_nodes, reused_prims;
	uint32_t chunks; /* pushed */
	uint32_t handed; /* tasks below it are in chunks */
	uint32_t chunk_first, chunk_len, chunk_cost;
	size_t jobs_ended; /* job ends pushed to the result pool */
};

/*
 * A frame slot (vk_frames.c): what a submitted frame keeps until the GPU
 * passed it. The caller's thread owns everything here except `cb`, which
 * the frame's recorder (commit thread, or the caller when sequential)
 * uses between the frame's start and its submission, and the fence,
 * which only the fence thread waits for after submission.
 */
struct vr_frame_slot {
	uint64_t number; /* frame in the slot; 0: never used */
	bool retired; /* its resources were released (or never used) */
	bool failed; /* recording or submission failed */
	VkCommandBuffer cb; /* the frame's */
	VkFence fence; /* signalled when the frame completes */
	uint64_t submit_ns;
	struct vr_list overflow; /* vr_host_buffer::link: overflow buffers,
		old vertex rings */
	struct vr_list scratch; /* vr_scratch_image::link */
	struct vr_list dst_garbage; /* vr_dst_buffer::link, destroyed
		while the frame still wrote into them */
	struct vr_frame_timing *timings; /* per job */
	size_t njobs, timings_cap;
};

/* The fence thread ("vr-fence", vk_frames.c): sole observer of frame
 * completion. */
struct vr_fences {
	pthread_t thread;
	bool running; /* caller's thread */
	pthread_mutex_t lock; /* a leaf */
	pthread_cond_t cond; /* broadcast on every change below */
	uint64_t submitted; /* latest frame handed to the queue; protected
		by lock */
	uint64_t completed; /* every frame up to it completed; protected by
		lock */
	uint64_t done_ns[VR_FRAMES_IN_FLIGHT]; /* completion time per slot;
		protected by lock */
	bool lost; /* a fence wait or a submission failed (the device is
		lost): frames count as done, none renders again; protected by
		lock */
	bool quit; /* protected by lock */
	/* immutable while the thread runs; written by the fence thread,
	 * drained by the caller (the kernel orders the two) */
	int event_fd;
};

struct vr_worker {
	struct vr_renderer *renderer;
	struct vr_exec_ctx *ctx;
	pthread_t thread;
	int index;
};

/* The threads of the parallel mode (workers.c; lock order there). */
struct vr_workers {
	struct vr_task_pool tasks;
	struct vr_result_pool results;
	struct vr_worker *workers; /* caller's thread */
	int count; /* threads running; caller's thread */
	bool running; /* caller's thread */
	pthread_t commit_thread;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* broadcast on every change below */
	uint64_t requested, done; /* frames; protected by lock */
	bool quit; /* protected by lock */
	/* test hook: sleep 0..delay_max_us before each task; set between
	 * frames */
	unsigned delay_max_us;
	uint32_t delay_seed;
};

struct vr_renderer {
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
	VkPhysicalDevice phdev;
	VkPhysicalDeviceMemoryProperties memory_props;
	VkDeviceSize non_coherent_atom_size;
	char device_name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
	bool software; /* VK_PHYSICAL_DEVICE_TYPE_CPU (lavapipe) */
	/* its DRM render node (VK_EXT_physical_device_drm), when known */
	bool has_render_node;
	int64_t render_major, render_minor;
	VkDevice device;
	uint32_t queue_family;
	bool has_host_import; /* VK_EXT_external_memory_host enabled */
	VkDeviceSize host_import_alignment;
	PFN_vkGetMemoryHostPointerPropertiesEXT get_host_pointer_props;
	/* VK_KHR_external_memory_fd and VK_EXT_external_memory_dma_buf
	 * enabled: external images are sampled in place (resources_textures.c) */
	bool has_dmabuf_import;
	/* VK_EXT_image_drm_format_modifier enabled too: imported images get
	 * the client's row pitch and offset (otherwise a LINEAR image whose
	 * own pitch matches) */
	bool has_drm_modifiers;
	PFN_vkGetMemoryFdPropertiesKHR get_memory_fd_props;
	/* the commit thread's (the caller's when sequential, and for
	 * vr_target_read's readbacks) */
	pthread_mutex_t queue_lock; /* a leaf; held around vkQueueSubmit */
	VkQueue queue; /* protected by queue_lock */

	VkCommandPool command_pool; /* the slots' frame command buffers */
	struct vr_frame_slot slots[VR_FRAMES_IN_FLIGHT];
	struct vr_fences fences;
	/* vr_target_read's synchronous readback (caller's thread) */
	VkCommandPool readback_pool;
	VkCommandBuffer readback_cb;
	VkFence readback_fence;
	VkRenderPass render_pass; /* targets */
	VkRenderPass offscreen_pass; /* scratch images */
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout pipeline_layout;
	/* every pipeline is created through it; VK_NULL_HANDLE: none */
	VkPipelineCache pipeline_cache;
	struct vr_pipeline_cache_file *pipeline_cache_file; /* NULL: no disk */
	VkSampler samplers[2]; /* indexed by enum vr_sampler */

	struct vr_list targets; /* vr_target::link */
	struct vr_list dst_buffers; /* vr_dst_buffer::link, live ones */
	struct vr_image *white; /* 1x1 opaque white: solid colour draws */

	struct vr_resources res;
	struct vr_exec_ctx *seq_ctx; /* the caller's thread's */
	struct vr_workers workers;
	struct vr_granularity granularity; /* caller's thread */
	bool sequential;
	int workers_wanted; /* 0: the default */
	struct vr_frame frame;
	/* frame numbers used (submitted, or failed); caller's thread */
	uint64_t frames;
	/* Fault injection ($VITRAIL_FAULT_DEVICE_LOST=N): the fence of frame
	 * N and later reports VK_ERROR_DEVICE_LOST. 0: none. Set at creation,
	 * read-only after (the fence thread reads it). */
	uint64_t fault_lost_frame;
};

static inline struct vr_frame_slot *vr_frame_slot_of(
		struct vr_renderer *renderer, uint64_t number) {
	return &renderer->slots[number % VR_FRAMES_IN_FLIGHT];
}

/* An imported output buffer (vk_dst.c); caller's thread only (the commit
 * thread reads buffer, stride of the frame's dst buffers while it records,
 * ordered by vr_workers::lock like the rest of vr_frame). */
struct vr_dst_buffer {
	struct vr_renderer *renderer; /* NULL once the renderer is gone */
	struct vr_list link; /* vr_renderer::dst_buffers or a slot's
		dst_garbage */
	int32_t width, height, stride;
	VkDeviceSize offset; /* of row 0 in the buffer (a dma-buf plane's) */
	VkBuffer buffer;
	VkDeviceMemory memory;
	uint64_t last_frame; /* latest frame copying into it */
};

struct vr_target {
	struct vr_renderer *renderer; /* NULL once the renderer is gone */
	struct vr_list link; /* vr_renderer::targets */
	int32_t width, height;
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;
	VkFramebuffer framebuffer;
	bool initialized; /* cleared to transparent black on the GPU */
	VkBuffer mirror;
	VkDeviceMemory mirror_memory;
	bool mirror_coherent;
	void *mirror_map; /* width * height * 4 bytes, stride width * 4 */
	/* what moved pixels pass through (moves of one image may overlap),
	 * made at the first move */
	VkImage scratch;
	VkDeviceMemory scratch_memory;
	VkImageView scratch_view;
	/* caller's thread: */
	pixman_region32_t mirror_stale; /* redrawn pixels not in the mirror */
	uint64_t last_frame; /* latest frame drawing into it */
};

/* vk_fences.c: the device is lost (any thread; takes vr_fences::lock) */
void vr_frames_set_lost(struct vr_renderer *renderer);

/* vk_device.c */
bool vr_vk_init_device(struct vr_renderer *renderer, bool validation);
void vr_vk_finish_device(struct vr_renderer *renderer);
/* A memory type index with all of required (and preferred if possible),
 * or -1. */
int vr_vk_find_memory_type(struct vr_renderer *renderer, uint32_t type_bits,
		VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred);
const char *vr_vk_result_str(VkResult result);
bool vr_vk_allocate_memory(struct vr_renderer *renderer,
		const VkMemoryRequirements *reqs, VkMemoryPropertyFlags required,
		VkMemoryPropertyFlags preferred, VkDeviceMemory *memory,
		VkMemoryPropertyFlags *flags);
bool vr_vk_create_host_buffer(struct vr_renderer *renderer, VkDeviceSize size,
		VkBufferUsageFlags usage, VkMemoryPropertyFlags preferred,
		struct vr_host_buffer *out);
void vr_vk_destroy_host_buffer(struct vr_renderer *renderer,
		struct vr_host_buffer *buffer); /* accepts an empty one */
/* A 2D view of a B8G8R8A8 image; false (logged) on failure. */
bool vr_vk_create_view(struct vr_renderer *renderer, VkImage image,
		VkComponentMapping components, VkImageView *view);
/* A B8G8R8A8 image with memory and a view. */
bool vr_vk_create_image(struct vr_renderer *renderer, int32_t width,
		int32_t height, VkImageUsageFlags usage, VkComponentMapping components,
		VkImage *image, VkDeviceMemory *memory, VkImageView *view);
void vr_vk_image_barrier(VkCommandBuffer cb, VkImage image,
		VkImageLayout old_layout, VkImageLayout new_layout,
		VkPipelineStageFlags src_stage, VkAccessFlags src_access,
		VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

/* resources.c; resources_slots.c (finish, slot_retire, collect_garbage,
 * vr_exec_ctx_collect); resources_frame.c (frame_begin, defer_buffer) */
bool vr_resources_init(struct vr_renderer *renderer);
/* After vkDeviceWaitIdle. */
void vr_resources_finish(struct vr_renderer *renderer);
struct vr_exec_ctx *vr_exec_ctx_create(struct vr_renderer *renderer, int index);
void vr_exec_ctx_destroy(struct vr_exec_ctx *ctx); /* accepts NULL */
/* Caller's thread, before any task of the frame: new ring region, command
 * pools of the frame's slot reset, figures zeroed. */
bool vr_resources_frame_begin(struct vr_renderer *renderer);
/* Commit thread, every task finished: flushes non-coherent CPU writes of
 * every context. */
void vr_resources_frame_flush(struct vr_renderer *renderer);
/* vr_chain_atlas_place (engine.h) for the chain's renderer. */
bool vr_resources_atlas_place(struct vr_renderer *renderer,
		struct vr_image *image, bool nearest, struct vr_atlas_place *out);
/* Caller's thread, after the commit thread submitted the frame: its
 * overflow buffers and scratch images go to its slot. */
void vr_resources_frame_end(struct vr_renderer *renderer,
		struct vr_frame_slot *slot);
/* Caller's thread, once the GPU completed the slot's frame: frees or
 * recycles what waited for it. */
void vr_resources_slot_retire(struct vr_renderer *renderer,
		struct vr_frame_slot *slot);
/* Caller's thread: frees the released textures whose last possible user
 * is a frame up to `completed`. */
void vr_resources_collect_garbage(struct vr_renderer *renderer,
		uint64_t completed);
/* Free a host buffer now, or with the latest pending frame. */
void vr_resources_defer_buffer(struct vr_renderer *renderer,
		struct vr_host_buffer *buffer);
/* Every execution context: 0 is the caller's thread's, 1..W the
 * workers'. */
static inline size_t vr_exec_ctx_count(const struct vr_renderer *renderer) {
	return 1 + (size_t)renderer->workers.count;
}
static inline struct vr_exec_ctx *vr_exec_ctx_at(
		const struct vr_renderer *renderer, size_t i) {
	return i == 0 ? renderer->seq_ctx : renderer->workers.workers[i - 1].ctx;
}
/* Ends the context's begun command buffers and appends them to uploads /
 * prologues (VkCommandBuffer arrays). */
bool vr_exec_ctx_collect(struct vr_exec_ctx *ctx, struct vr_array *uploads,
		struct vr_array *prologues);

/* vk_chain.c: the parallel mode's handoffs (caller's thread): the frame
 * is handed over from now on (the commit thread starts on it); the
 * pending chunk goes to the workers; jobs below `job` are prepared (the
 * commit thread learns their ends). */
void vr_chain_start_handing(struct vr_renderer *renderer);
void vr_chain_push_chunk(struct vr_renderer *renderer);
void vr_chain_end_jobs(struct vr_renderer *renderer, size_t job);

/* vk_record.c: recording, used by the commit thread (or the caller's
 * thread in sequential mode); vk_frames.c: open, reap, close */
bool vr_frame_begin_commands(struct vr_renderer *renderer);
void vr_frame_begin_job(struct vr_renderer *renderer, size_t job);
void vr_frame_record_task(struct vr_renderer *renderer,
		const struct vr_task *task);
void vr_frame_end_job(struct vr_renderer *renderer, size_t job);
/* Caller's thread: number the next frame and take its slot (waiting for
 * the previous frame's CPU stage, and for the slot's previous frame when
 * needed) and the slot's resources. True: the frame must be submitted
 * (vr_frame_submit, also when it failed) and closed. */
bool vr_frame_open(struct vr_renderer *renderer);
/* Caller's thread: end the CPU stage of a frame submit returned early
 * from (parallel mode): once the commit thread is done (waiting for it
 * when `block`), close the frame, keep its figures in its slot and
 * release what its tasks held. True when no CPU stage is pending any
 * more. */
bool vr_frame_reap(struct vr_renderer *renderer, bool block);
/* Caller's thread, after the submission: the frame's resources go to its
 * slot. */
void vr_frame_close(struct vr_renderer *renderer, bool ok);
/* Caller's thread: the frame's CPU stage ended (ok: nothing failed): it is
 * closed, its figures go to its slot, what its tasks held is released. */
void vr_frame_finish_cpu(struct vr_renderer *renderer, bool ok);
/* End the frame's command buffer, submit it with every upload and
 * prologue and the slot's fence (an empty submission that only signals
 * the fence when anything failed, so frame numbers stay consecutive).
 * Does not wait. False: the frame failed. */
bool vr_frame_submit(struct vr_renderer *renderer, bool ok);

/* vk_fences.c: slots and completion, below the recording of a frame
 * (caller's thread unless said otherwise) */
/* Before anything can fail in vr_renderer_create: empty slots. */
void vr_frames_setup(struct vr_renderer *renderer);
/* With the device: command buffers, fences, the eventfd, the thread. */
bool vr_frames_init(struct vr_renderer *renderer);
/* Any thread that submitted frame `number` (fence thread wakes up). */
void vr_frames_submitted(struct vr_renderer *renderer, uint64_t number);
/* Wait (on the fence thread's word) until frame `number` completed or
 * the deadline (CLOCK_MONOTONIC ns; UINT64_MAX: none) passed. */
bool vr_frames_wait_completed(struct vr_renderer *renderer, uint64_t number,
		uint64_t deadline_ns);
/* The newest frame submitted and not yet retired, or 0. */
uint64_t vr_frames_latest_pending(struct vr_renderer *renderer);

/* vk_frames.c: retirement, above the frame's CPU stage (caller's thread) */
/* After every frame completed (vr_frames_wait_idle). */
void vr_frames_finish(struct vr_renderer *renderer);
/* The slot of the frame about to be numbered `number`: waits for its
 * previous frame when it is still pending, retires it, resets the fence.
 * False on failure. */
bool vr_frames_acquire_slot(struct vr_renderer *renderer, uint64_t number);
/* Retire the completed frames; returns the latest completed number. */
uint64_t vr_frames_retire(struct vr_renderer *renderer);
/* Wait for every submitted frame (destroy, mode changes). */
void vr_frames_wait_idle(struct vr_renderer *renderer);

/* workers.c */
bool vr_workers_init(struct vr_renderer *renderer);
void vr_workers_finish(struct vr_renderer *renderer);
/* Start W worker threads and the commit thread (caller's thread, between
 * frames); W <= 0: the default. */
bool vr_workers_start(struct vr_renderer *renderer, int count);
void vr_workers_stop(struct vr_renderer *renderer);
int vr_workers_default_count(void);
/* The worker's random test delays start over from the renderer's seed
 * (vr_renderer_set_test_delay, workers_test.c). */
void vr_worker_seed(struct vr_worker *worker);
/* warm.c: a display list with one command of every kind (argb: a 4x4
 * image it draws). */
struct vr_display_list *vr_warm_list(struct vr_image *argb);
/* granularity.c: the figures calibrated for the renderer's worker count
 * in this process, or the uncalibrated defaults; caller's thread. */
void vr_granularity_refresh(struct vr_renderer *renderer);
/* The figures kept in the pipeline cache's directory (granularity.txt, a
 * line per device, driver, worker count, cores and build): load them
 * (false: none for this key) or save the renderer's calibrated ones. */
bool vr_granularity_load(struct vr_renderer *renderer);
void vr_granularity_save(struct vr_renderer *renderer);
/* Before any calibration: one chunk per task, every frame handed over. */
extern const struct vr_granularity vr_granularity_uncalibrated;
/* Derive g's rule, keep it for the process's renderers of this worker
 * count and use it; returns the worker count (calibrate.c's figures). */
int vr_granularity_adopt(struct vr_renderer *renderer,
		struct vr_granularity *g);
/* The figures file's lines (granularity.txt), also the backends'
 * measurements' (calibrate.c): the key of this renderer's figures, and a
 * key's values read (false: none, or not n of them) or written. */
void vr_granularity_cache_key(struct vr_renderer *renderer, char *key,
		size_t size);
bool vr_granularity_cache_get(struct vr_renderer *renderer, const char *key,
		double *values, int n);
void vr_granularity_cache_put(struct vr_renderer *renderer, const char *key,
		const double *values, int n);
/* Parallel frame: let the commit thread start the prepared frame state,
 * then feed it (tasks through vr_chain_push, job ends), then wait. */
void vr_workers_frame_start(struct vr_renderer *renderer);
void vr_workers_job_end(struct vr_renderer *renderer, uint32_t job,
		uint32_t end);
/* Whether the commit thread is done with the frame (it submitted it);
 * waits for it when block. */
bool vr_workers_frame_done(struct vr_renderer *renderer, bool block);

void vr_workers_push(struct vr_renderer *renderer, struct vr_task *task);
/* Sequential mode (and tests): execute one task on the caller's thread. */
bool vr_exec_task(struct vr_exec_ctx *ctx, struct vr_task *task);

/* resources.c: ahead of the frames (caller's thread, any time) */
/* Create desc's pipeline now unless it exists (or is being created). */
bool vr_resources_warm_pipeline(struct vr_renderer *renderer,
		const struct vr_pipeline_desc *desc);
/* Make sure at least count free scratch images of this size exist. */
bool vr_resources_warm_scratch(struct vr_renderer *renderer, int32_t width,
		int32_t height, unsigned count);

/* pipeline_cache.c: the VkPipelineCache and its file (see renderer.h,
 * vr_renderer_warm_pipelines). init after the device and layouts exist,
 * never fails the renderer (no cache at worst); save writes the file when
 * the cache grew since it was read or last written; finish saves, then
 * destroys the cache (before the device). */
void vr_pipeline_cache_init(struct vr_renderer *renderer);
void vr_pipeline_cache_save(struct vr_renderer *renderer);
void vr_pipeline_cache_finish(struct vr_renderer *renderer);
/* Whether data (size bytes; `what` names it in the debug messages) has a
 * complete VkPipelineCacheHeaderVersionOne header for phdev. */
bool vr_pipeline_cache_data_valid(VkPhysicalDevice phdev, const void *data,
		size_t size, const char *what);

/* Other files in the pipeline cache's directory (none when it has no file:
 * no directory, VITRAIL_PIPELINE_CACHE=0): its path (malloc'd), its
 * contents (malloc'd; NULL when absent), an atomic replacement. */
char *vr_cache_path(struct vr_renderer *renderer, const char *name);
void *vr_cache_read(struct vr_renderer *renderer, const char *name,
		size_t *size);
bool vr_cache_write(struct vr_renderer *renderer, const char *name,
		const void *data, size_t size);

/* ---- test hooks ---------------------------------------------------------- */

/* Workers sleep a pseudo-random 0..max_us microseconds (from seed) before
 * executing each task; 0 turns it off. Between frames. */
void vr_renderer_set_test_delay(struct vr_renderer *renderer, unsigned max_us,
		uint32_t seed);

/* A thread that creates a pipeline waits (at most 5 s) until `waiters`
 * other threads wait for it before compiling, so tests of the preparing
 * state do not depend on scheduling; 0 turns it off. Between frames. */
void vr_renderer_set_test_hold_creation(struct vr_renderer *renderer,
		unsigned waiters);

struct vr_resource_stats {
	unsigned textures_created, pipelines_created, scratch_created, waits;
	/* alive right now: textures (of live images), released textures
	 * waiting for their frames, scratch images, overflow buffers and
	 * old rings held by frame slots, slots not yet retired */
	unsigned textures, garbage, scratch, held_buffers, pending_slots;
	unsigned scratch_warmed; /* created ahead by vr_renderer_warm_* */
	unsigned dmabuf_imports; /* external images sampled in place, ever */
	unsigned dmabuf_reuses; /* of those, on an earlier one's import */
	/* small images placed in the atlas, ever (engine.h; a page's GPU
	 * objects count as one texture created), and the atlas cells and
	 * pages in use now */
	unsigned atlas_placed, atlas_images, atlas_pages;
};
void vr_renderer_resource_stats(struct vr_renderer *renderer,
		struct vr_resource_stats *stats);
/* Run fn(ctx, i, data) on n threads at once (each with its own execution
 * context, released together), inside a frame whose uploads and prologues
 * are submitted and waited for afterwards. Between frames. */
bool vr_renderer_test_exec(struct vr_renderer *renderer, int n,
		void (*fn)(struct vr_exec_ctx *ctx, int i, void *data), void *data);

#endif
