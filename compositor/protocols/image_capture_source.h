/*
 * ext_image_capture_source_v1 (image_capture_source.c): what an image copy
 * capture session captures. vitrail makes sources of outputs
 * (ext_output_image_capture_source_manager_v1); it does not offer toplevel
 * sources (README, Limitations).
 */
#ifndef VITRAIL_IMAGE_CAPTURE_SOURCE_H
#define VITRAIL_IMAGE_CAPTURE_SOURCE_H

#include <stdbool.h>

struct vt_output;
struct vt_server;
struct wl_resource;

bool vt_image_capture_source_init(struct vt_server *server);
/* The output source captures: NULL once that output is gone (disabled or
 * destroyed). source is an ext_image_capture_source_v1 resource. */
struct vt_output *vt_image_capture_source_output(struct wl_resource *source);

#endif
