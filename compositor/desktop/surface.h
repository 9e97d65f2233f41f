/*
 * Surfaces (surface.c): each wl_surface as a node of the render tree, its
 * buffer copied into vitrail's image at commit, subsurfaces, and the
 * per-client image budget.
 */
#ifndef VITRAIL_SURFACE_H
#define VITRAIL_SURFACE_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

struct vt_server;
struct vr_image;
struct vr_node;
struct wlr_subsurface;
struct wlr_surface;
struct vt_surface_timing;
struct vt_surface_presentation;
struct vt_commit_queue;

/* Bytes of surface images vitrail holds per client (vitrail(1)),
 * surfaces' spares (surface.c) included. While a large buffer is being
 * copied, the new image counts and the one it replaces does not: a client
 * may hold up to twice this for that long. */
#define VT_CLIENT_IMAGE_BYTES (256ull * 1024 * 1024)
/* A commit that copies at least this many bytes of a client buffer (a
 * 1920x1080 one copies less) copies them in bands (surface.c): the first
 * of up to VT_COPY_FIRST_BAND_NS of main-thread time at commit, as long
 * as a one-shot copy of nearly VT_COPY_BANDED_BYTES into fresh memory
 * takes on the CI machine, so that a copy into memory used before (a
 * 2560x1440 or 3840x2160 client redrawing every frame) is done at once as
 * before; the others of VT_COPY_BAND_NS each, one per event-loop turn. */
#define VT_COPY_BANDED_BYTES (8ull * 1024 * 1024)
#define VT_COPY_FIRST_BAND_NS 8000000
#define VT_COPY_BAND_NS 2000000
/* Rows copied between two looks at the clock in a band. */
#define VT_COPY_STEP_BYTES (256u << 10)
/* Subsurfaces per parent surface and per client (vitrail(1)): a parent's
 * commit walks all of its subsurfaces (wlroots and surface.c). */
#define VT_SUBSURFACES_PER_PARENT 1024
#define VT_SUBSURFACES_PER_CLIENT 4096

struct vt_client_budget;
/* A large buffer being copied in bands (surface.c). */
struct vt_surface_copy;

/* Per wl_surface: a container node placed in its parent's coordinates,
 * holding subsurfaces below, the content node, subsurfaces above. */
struct vt_surface {
	struct vt_server *server;
	struct wlr_surface *wlr_surface;
	struct vr_node *node; /* container */
	struct vr_node *content; /* the buffer's image */
	struct vr_image *image;
	/* The client buffer whose pixels image holds, all of them as they
	 * are now (direct scan-out shows it in place of the image); NULL:
	 * none, or not known. Compared, never dereferenced. */
	struct wlr_buffer *image_buffer;
	/* A copied dmabuf the size of an output, locked while it is the
	 * surface's buffer (direct scan-out may show it); NULL: none. */
	struct wlr_buffer *held;
	/* The copy of a large buffer in progress, or NULL: until it is
	 * complete the content node keeps the previous image, and has no
	 * user data (output.c then neither samples the surface nor sends
	 * its frame callbacks). */
	struct vt_surface_copy *copy;
	/* The image the last banded copy replaced, kept (in the budget) for
	 * the next one of its size: no new memory to fault in per commit. */
	struct vr_image *spare;
	bool committing; /* in its commit handler (surface.c) */
	struct vt_client_budget *budget; /* its client's, referenced */
	struct vr_node *scene; /* scene content (scene.c), above content */
	/* scroll regions' frames (scroll_region.c), above the scene; made by the
	 * first region */
	struct vr_node *scroll_layer;
	int subsurfaces; /* subsurfaces whose parent it is */

	struct wlr_subsurface *subsurface; /* when it is one */
	/* Its last commit changed its content and no frame has drawn it
	 * yet: its frame callbacks wait for that frame (output.c). */
	bool unsampled;
	/* vitrail_frame_timing_v1 (frame_timing.c): its timing object, the
	 * pre_render path, a queued commit being latched right now */
	struct vt_surface_timing *timing;
	bool prerender;
	bool latching;
	/* wp_presentation (protocols/presentation.c): its feedbacks, from
	 * the first request */
	struct vt_surface_presentation *presentation;
	/* its held commits (commit_queue.c), shared by frame_timing.c and
	 * commit_constraints.c (made on first use) */
	struct vt_commit_queue *commit_queue;
	/* wp_presentation.feedback requests since its last commit (the
	 * limit is protocols.c's) */
	uint32_t feedback_requests;
	/* its path and callback timing (presentation_paths.c's; NULL when
	 * that could not be allocated) */
	struct vt_surface_paths *paths;
	/* wp_content_type_v1 (content_type.c): the committed type and the
	 * pending one (wp_content_type_v1.type values; 0: none) */
	uint32_t content_type, content_type_pending;
	/* wp_alpha_modifier_surface_v1 (alpha_modifier.c): the committed
	 * multiplier, drawn as the content node's opacity, and the pending
	 * one (UINT32_MAX: opaque) */
	uint32_t alpha_multiplier, alpha_multiplier_pending;
	/* commits with new content so far, and when the last came: a
	 * feedback of an older one that a frame carries over is replaced */
	uint32_t content_commits;
	uint64_t content_ns;
	/* Input timestamps for the frame log (CLOCK_MONOTONIC ns, 0: none):
	 * the oldest input event delivered to it since its last commit with
	 * new content, and the oldest one such commits answered that no
	 * frame has drawn yet. */
	uint64_t input_pending_ns;
	uint64_t input_answered_ns;

	struct {
		/* its commit's state applies (data: the surface), before
		 * its content is copied */
		struct wl_signal commit;
		/* the commit's content is in the tree (at the commit, or
		 * when a banded copy is done): struct
		 * vt_surface_content_event */
		struct wl_signal content;
		struct wl_signal destroy; /* data: the surface */
	} events;
	struct wl_listener commit;
	struct wl_listener destroy;
	struct wl_listener new_subsurface;
	struct wl_listener subsurface_map;
	struct wl_listener subsurface_unmap;
	struct wl_listener subsurface_destroy;
};

struct vt_surface_content_event {
	struct vt_surface *surface;
	bool new_content; /* its buffer damage is not empty */
	bool replaced; /* it replaces content no frame has drawn */
};

struct vt_surface *vt_surface_from_wlr(struct wlr_surface *wlr_surface);
void vt_surface_create(struct vt_server *server,
		struct wlr_surface *wlr_surface);
/* Place node (NULL: none) above the surface's buffer, below the
 * subsurfaces placed above it: the surface's scene content. */
void vt_surface_set_scene_node(struct vt_surface *surface,
		struct vr_node *node);
/* The node holding the surface's scroll regions' frames, above its scene
 * content (made on first use; NULL when out of memory). */
struct vr_node *vt_surface_scroll_layer(struct vt_surface *surface);
/* A client's image budget (VT_CLIENT_IMAGE_BYTES), with a reference for
 * the caller (NULL when out of memory); scroll regions' frames count
 * against it too. */
struct vt_client_budget *vt_client_budget_get(struct wl_client *client);
void vt_client_budget_unref(struct vt_client_budget *budget);
/* Move image bytes in the budget: release, then add; false (nothing
 * changed) when that takes it over VT_CLIENT_IMAGE_BYTES. *total (may be
 * NULL): what it comes, or would come, to. */
bool vt_client_budget_charge(struct vt_client_budget *budget, uint64_t release,
		uint64_t add, uint64_t *total);
/* An input event vitrail received at received_ns (CLOCK_MONOTONIC) was
 * delivered to wlr_surface (NULL: to none): the surface's next commit
 * with new content answers it. */
void vt_surface_note_input(struct wlr_surface *wlr_surface,
		uint64_t received_ns);
/* A frame draws the surface: the oldest input its commits answered since
 * the last frame that drew it (0: none); the frame log records it. */
uint64_t vt_surface_take_input(struct vt_surface *surface);

#endif
