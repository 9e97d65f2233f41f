/*
 * Small helpers (util.c): clocks, prefaulting, the runtime directory.
 */
#ifndef VITRAIL_UTIL_H
#define VITRAIL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

uint64_t vt_now_ns(void);
/* Fault the pages of [data, data + len) of a mapping in (readable) with
 * one call (MADV_POPULATE_READ) rather than one fault per page: a hint,
 * failure is fine (a truncated shm pool fails with EFAULT, no SIGBUS).
 * Copying out of a sparse memfd on the CI machine: 2.75 ms per MiB
 * without, 0.7 with (huge-page destinations). */
void vt_prefault_read(const void *data, size_t len);
uint64_t vt_timespec_to_ns(const struct timespec *ts);
void vt_ns_to_timespec(uint64_t ns, struct timespec *ts);
/* Without XDG_RUNTIME_DIR (a root shell, CI) make a private one. */
bool vt_ensure_runtime_dir(void);

#endif
