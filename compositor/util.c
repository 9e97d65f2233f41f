#include <time.h>

#include "server.h"

uint64_t vt_now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return vt_timespec_to_ns(&ts);
}

uint64_t vt_timespec_to_ns(const struct timespec *ts) {
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

void vt_ns_to_timespec(uint64_t ns, struct timespec *ts) {
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
}
