/*
 * Small helpers (util.c): clocks, prefaulting, the runtime directory, and
 * the resource a global's bind makes.
 */
#ifndef VITRAIL_UTIL_H
#define VITRAIL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <wayland-server-core.h>

uint64_t vt_now_ns(void);
/* Fault the pages of [data, data + len) of a mapping in (readable) with
 * one call (MADV_POPULATE_READ) rather than one fault per page: a hint,
 * failure is fine (a truncated shm pool fails with EFAULT, no SIGBUS).
 * Copying out of a sparse memfd on the CI machine: 2.75 ms per MiB
 * without, 0.7 with (huge-page destinations). */
void vt_prefault_read(const void *data, size_t len);
/* The same for [data, data + len) of a wl_buffer's mapping, once: what
 * was faulted in for the wl_buffer (NULL: none to remember it by) while
 * it lives is not again. A client redrawing into the same buffers keeps
 * their pages mapped in vitrail, and MADV_POPULATE_READ walks every page
 * of the range all the same (a 3456x1944 buffer: a fifth of vitrail's CPU
 * per frame). A new mapping of the pool (a resize moved it) is a range
 * not seen yet; pages the kernel took back meanwhile fault one by one. */
void vt_prefault_buffer(struct wl_resource *buffer, const void *data,
		size_t len);
uint64_t vt_timespec_to_ns(const struct timespec *ts);
void vt_ns_to_timespec(uint64_t ns, struct timespec *ts);
/* Without XDG_RUNTIME_DIR (a root shell, CI) make a private one. */
bool vt_ensure_runtime_dir(void);
/* What every global's bind (and a request's new_id) does: the resource
 * with impl, data and destroy (NULL: none); NULL after telling the client
 * it is out of memory. */
/* A protocol error on resource, formatted. libwayland formats the message
 * into a 128-byte buffer and cuts what does not fit: messages put the
 * offending value first and stay under 100 bytes; a longer one is also
 * logged whole. */
void vt_post_error(struct wl_resource *resource, uint32_t code, const char *fmt,
		...) __attribute__((format(printf, 3, 4)));

struct wl_resource *vt_resource_create(struct wl_client *client,
		const struct wl_interface *interface, uint32_t version, uint32_t id,
		const void *impl, void *data, wl_resource_destroy_func_t destroy);

#endif
