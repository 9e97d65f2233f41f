/*
 * ext_image_copy_capture_manager_v1 (image_copy_capture.c): outputs copied
 * into clients' wl_shm buffers, frame by frame, with the damage since the
 * client's last frame and the time the copied frame was shown.
 */
#ifndef VITRAIL_IMAGE_COPY_CAPTURE_H
#define VITRAIL_IMAGE_COPY_CAPTURE_H

#include <stdbool.h>

struct vt_server;

bool vt_image_copy_capture_init(struct vt_server *server);

#endif
