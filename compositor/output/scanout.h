/*
 * Direct scan-out (scanout.c): whether a frame can show a client's
 * dmabuf as it is, instead of a composed frame.
 */
#ifndef VITRAIL_OUTPUT_SCANOUT_H
#define VITRAIL_OUTPUT_SCANOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wlr_drm_format_set;

/* Whether a buffer of format and modifier may be scanned out in place of
 * a composed frame: XRGB8888, or ARGB8888 whose surface says it is
 * opaque all over (opaque_region_covers), and a pair the output's
 * primary plane takes (plane; NULL: the backend does not say, as on
 * headless outputs). False: why says why, in words. */
bool vt_scanout_format_ok(const struct wlr_drm_format_set *plane,
		uint32_t format, uint64_t modifier, bool opaque_region_covers,
		char *why, size_t why_len);

#endif
