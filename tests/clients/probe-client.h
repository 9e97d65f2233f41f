/*
 * What the probe clients (vitrail-latency-probe, vitrail-draw-probe)
 * share: a small pool of wl_shm buffers, busy work standing for a
 * client's rendering, option parsing and one turn of the main loop.
 */
#ifndef VITRAIL_TESTS_PROBE_CLIENT_H
#define VITRAIL_TESTS_PROBE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wayland-client.h>

#define PC_POOL_MAX 4

/* An XRGB8888 wl_shm buffer (stride 4 * width) with its pixels mapped. */
struct pc_buffer {
	struct wl_buffer *wl_buffer;
	uint32_t *data;
	size_t size;
	int32_t width, height;
	bool busy; // attached and not released yet (its user sets it)
	int64_t content_seq; // the frame it holds, -1: none (its user's)
};

struct pc_pool {
	struct pc_buffer *buffers[PC_POOL_MAX];
};

/* A released buffer of width x height, the one holding the newest frame
 * (content_seq) first; a new one while the pool has room; NULL when all
 * are busy or on failure (printed). Released buffers of another size go. */
struct pc_buffer *pc_pool_next(struct pc_pool *pool, struct wl_shm *shm,
	int32_t width, int32_t height);
void pc_pool_finish(struct pc_pool *pool);

/* CLOCK_MONOTONIC in ns. */
uint64_t pc_now_ns(void);
/* Spin the CPU for ms milliseconds (a client's rendering work). */
void pc_busy_work(double ms);

/* Options: false when s is not a number in range, or not "WxH" (1 to
 * 8192 each). */
bool pc_parse_long(const char *s, long min, long max, long *out);
bool pc_parse_double(const char *s, double min, double *out);
bool pc_parse_size(const char *s, int32_t *width, int32_t *height);

/*
 * One turn of a client's loop: dispatch what is queued; unless *running
 * went false, flush, wait up to timeout_ms (-1: no limit) for the display
 * or signal_fd, read and dispatch. *signalled is set when signal_fd (a
 * signalfd, -1: none) delivered a signal. false on a display error or a
 * failed poll, printed with name ("NAME: protocol error CODE on
 * INTERFACE@ID" for a protocol error).
 */
bool pc_dispatch(struct wl_display *display, int signal_fd, int timeout_ms,
	const bool *running, bool *signalled, const char *name);

#endif
