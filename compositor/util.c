#define _DEFAULT_SOURCE /* madvise */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wlr/util/log.h>

#include "util.h"

uint64_t vt_now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return vt_timespec_to_ns(&ts);
}

void vt_prefault_read(const void *data, size_t len) {
#ifdef MADV_POPULATE_READ
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)data & ~(page - 1);
	madvise((void *)start, (uintptr_t)data + len - start, MADV_POPULATE_READ);
#endif
}

/* What vt_prefault_buffer faulted in of one buffer's mapping. */
struct prefaulted {
	struct wl_listener destroy;
	uintptr_t start, end;
};

static void prefaulted_handle_destroy(struct wl_listener *listener,
		void *data) {
	(void)data;
	struct prefaulted *p = wl_container_of(listener, p, destroy);
	wl_list_remove(&p->destroy.link);
	free(p);
}

void vt_prefault_buffer(struct wl_resource *buffer, const void *data,
		size_t len) {
	uintptr_t start = (uintptr_t)data, end = start + len;
	struct wl_listener *listener = buffer != NULL ?
			wl_resource_get_destroy_listener(buffer,
					prefaulted_handle_destroy) :
			NULL;
	struct prefaulted *p =
			listener != NULL ? wl_container_of(listener, p, destroy) : NULL;
	if (p != NULL && start >= p->start && end <= p->end) {
		return;
	}
	vt_prefault_read(data, len);
	if (buffer == NULL) {
		return;
	}
	if (p == NULL) {
		p = calloc(1, sizeof(*p));
		if (p == NULL) {
			return; /* a hint: next time again */
		}
		p->destroy.notify = prefaulted_handle_destroy;
		wl_resource_add_destroy_listener(buffer, &p->destroy);
	} else if (start <= p->end && end >= p->start) {
		/* the bands of one copy: one range */
		start = start < p->start ? start : p->start;
		end = end > p->end ? end : p->end;
	}
	p->start = start;
	p->end = end;
}

uint64_t vt_timespec_to_ns(const struct timespec *ts) {
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

void vt_ns_to_timespec(uint64_t ns, struct timespec *ts) {
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
}

/* Without XDG_RUNTIME_DIR (a root shell, CI) make a private one. */
bool vt_ensure_runtime_dir(void) {
	const char *dir = getenv("XDG_RUNTIME_DIR");
	if (dir != NULL && *dir != '\0') {
		return true;
	}
	char path[64];
	snprintf(path, sizeof(path), "/tmp/vitrail-runtime-%d", (int)getuid());
	if (mkdir(path, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "vitrail: cannot create %s: %s\n", path,
				strerror(errno));
		return false;
	}
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) ||
			st.st_uid != getuid() || (st.st_mode & 077) != 0) {
		fprintf(stderr, "vitrail: %s is not a private directory\n", path);
		return false;
	}
	setenv("XDG_RUNTIME_DIR", path, 1);
	wlr_log(WLR_INFO, "XDG_RUNTIME_DIR was unset; using %s", path);
	return true;
}

struct wl_resource *vt_resource_create(struct wl_client *client,
		const struct wl_interface *interface, uint32_t version, uint32_t id,
		const void *impl, void *data, wl_resource_destroy_func_t destroy) {
	struct wl_resource *resource =
			wl_resource_create(client, interface, (int)version, id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	wl_resource_set_implementation(resource, impl, data, destroy);
	return resource;
}

/* What libwayland keeps of an error message (its 128-byte buffer). */
#define ERROR_MESSAGE_MAX 100

void vt_post_error(struct wl_resource *resource, uint32_t code, const char *fmt,
		...) {
	char message[512];
	va_list args;
	va_start(args, fmt);
	int n = vsnprintf(message, sizeof(message), fmt, args);
	va_end(args);
	if (n > ERROR_MESSAGE_MAX) {
		wlr_log(WLR_ERROR,
				"%s error message of %d bytes, cut by libwayland: %s",
				wl_resource_get_class(resource), n, message);
	}
	wl_resource_post_error(resource, code, "%s", message);
}
