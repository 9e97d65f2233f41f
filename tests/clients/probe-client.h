/*
 * What the probe and example clients share: an xdg_toplevel with the
 * configure dance, a small pool of wl_shm buffers, busy work standing for
 * a client's rendering, option parsing and one turn of the main loop.
 */
#ifndef VITRAIL_TESTS_PROBE_CLIENT_H
#define VITRAIL_TESTS_PROBE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wayland-client.h>

#define PC_POOL_MAX 4

struct xdg_wm_base;

/*
 * One xdg_toplevel on its own wl_surface. Each xdg_surface.configure is
 * acknowledged, the size of the toplevel's last configure applied (0 keeps
 * the client's own), and then configure(data, first, resized) runs: first
 * on the first configure (the client may attach and commit), resized when
 * width or height changed. xdg_toplevel.close sets *running to false.
 */
struct pc_toplevel {
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *xdg_toplevel;
	int32_t width, height; // the client's size, changed by configures
	int32_t pending_width, pending_height; // the last toplevel configure's
	bool configured; // the first configure came
	bool *running;
	void (*configure)(void *data, bool first, bool resized);
	void *data;
};

/* Answers the compositor's pings; call once on a bound xdg_wm_base. */
void pc_wm_base_listen(struct xdg_wm_base *wm_base);
/* Creates the surface and the toplevel (width x height until a configure
 * says otherwise) with app_id and title (NULL: none); commits nothing.
 * configure may be NULL. false when out of memory. */
bool pc_toplevel_init(struct pc_toplevel *toplevel,
		struct wl_compositor *compositor, struct xdg_wm_base *wm_base,
		const char *app_id, const char *title, int32_t width, int32_t height,
		bool *running, void (*configure)(void *data, bool first, bool resized),
		void *data);
/* Destroys what init created (also after a failed init). */
void pc_toplevel_finish(struct pc_toplevel *toplevel);

/* An XRGB8888 wl_shm buffer (stride 4 * width) with its pixels mapped
 * (size bytes: a dmabuf's rows may be padded). */
struct pc_buffer {
	struct wl_buffer *wl_buffer;
	uint32_t *data;
	size_t size;
	int32_t width, height;
	bool busy; // attached and not released yet (its user sets it)
	int64_t content_seq; // the frame it holds, -1: none (its user's)
};

struct zwp_linux_dmabuf_v1;

struct pc_pool {
	struct pc_buffer *buffers[PC_POOL_MAX];
	/* set: buffers are zwp_linux_dmabuf_v1 ones instead, LINEAR XRGB8888
	 * memfds sealed against shrinking (what vitrail announcing a
	 * device, e.g. VITRAIL_DMABUF_DEVICE=/dev/null, takes), rows padded
	 * to 64 bytes as Mesa lays out LINEAR images */
	struct zwp_linux_dmabuf_v1 *dmabuf;
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
