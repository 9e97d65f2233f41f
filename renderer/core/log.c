#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "render_private.h"

static void log_stderr(enum vr_log_level level, const char *fmt, va_list args) {
	if (level > VR_LOG_INFO) {
		return;
	}
	static const char *const names[] = {
		[VR_LOG_ERROR] = "error",
		[VR_LOG_INFO] = "info",
		[VR_LOG_DEBUG] = "debug",
	};
	/* One locked stream per message: threads never interleave. */
	flockfile(stderr);
	fprintf(stderr, "[vitrail renderer] %s: ", names[level]);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	funlockfile(stderr);
}

static _Atomic(vr_log_func_t) log_func = log_stderr;

void vr_set_log_func(vr_log_func_t func) {
	atomic_store(&log_func, func != NULL ? func : log_stderr);
}

/* A repo-relative path: strip everything before "renderer/". */
static const char *relative_path(const char *file) {
	const char *p = strstr(file, "renderer/");
	return p != NULL ? p : file;
}

static void VR_ATTRIB_PRINTF(3, 4) call_log_func(vr_log_func_t func,
		enum vr_log_level level, const char *fmt, ...) {
	va_list args;
	va_start(args, fmt);
	func(level, fmt, args);
	va_end(args);
}

void vr_log_(enum vr_log_level level, const char *file, int line,
		const char *fmt, ...) {
	char msg[1024];
	va_list args;
	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	call_log_func(atomic_load(&log_func), level, "[%s:%d] %s",
			relative_path(file), line, msg);
}

uint64_t vr_now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
