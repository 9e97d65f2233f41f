/*
 * ext_image_capture_source_v1 (image_capture_source.c): what an image copy
 * capture session captures: an output
 * (ext_output_image_capture_source_manager_v1) or a window
 * (ext_foreign_toplevel_image_capture_source_manager_v1, from an
 * ext_foreign_toplevel_list_v1 handle).
 */
#ifndef VITRAIL_IMAGE_CAPTURE_SOURCE_H
#define VITRAIL_IMAGE_CAPTURE_SOURCE_H

#include <stdbool.h>

struct vt_output;
struct vt_view;
struct vt_server;
struct wl_resource;

bool vt_image_capture_source_init(struct vt_server *server);
/* The output source captures: NULL once that output is gone (disabled or
 * destroyed). source is an ext_image_capture_source_v1 resource. */
struct vt_output *vt_image_capture_source_output(struct wl_resource *source);
/* The window source captures: NULL once it is unmapped, or for an output
 * source. */
struct vt_view *vt_image_capture_source_view(struct wl_resource *source);

#endif
