/*
 * vitrail embedded in a host process: the server runs its event loop on a
 * thread of its own (the compositor thread), started and stopped by the
 * host (the WLCS integration module, tests/wlcs/).
 *
 * wlroots and libwayland-server are called from the compositor thread
 * only: a host thread that needs the server calls vt_embedded_call(),
 * which hands the function to the event loop through an eventfd and waits
 * until it ran there. Calls are serialised; a call made from the
 * compositor thread itself (from inside another call) runs at once.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <wlr/util/log.h>

#include "embed.h"
#include "server.h"
#include "util.h"

struct vt_embedded {
	struct vt_server server;
	pthread_t thread;
	int call_fd; /* eventfd: a call is pending */
	struct wl_event_source *call_source;

	pthread_mutex_t call_lock; /* one host call at a time; taken before lock */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* protected by lock: */
	enum { STARTING, RUNNING, FAILED } state;
	vt_embedded_fn call_fn; /* NULL: none pending */
	void *call_data;
};

static int handle_call(int fd, uint32_t mask, void *data) {
	struct vt_embedded *embedded = data;
	uint64_t count;
	if (read(fd, &count, sizeof(count)) < 0 && errno != EAGAIN) {
		wlr_log_errno(WLR_ERROR, "embed: cannot read the call eventfd");
	}
	pthread_mutex_lock(&embedded->lock);
	vt_embedded_fn fn = embedded->call_fn;
	void *call_data = embedded->call_data;
	pthread_mutex_unlock(&embedded->lock);
	if (fn == NULL) {
		return 0;
	}
	fn(&embedded->server, call_data);
	pthread_mutex_lock(&embedded->lock);
	embedded->call_fn = NULL;
	pthread_cond_broadcast(&embedded->cond);
	pthread_mutex_unlock(&embedded->lock);
	return 0;
}

static void set_state(struct vt_embedded *embedded, int state) {
	pthread_mutex_lock(&embedded->lock);
	embedded->state = state;
	pthread_cond_broadcast(&embedded->cond);
	pthread_mutex_unlock(&embedded->lock);
}

static void *compositor_thread(void *data) {
	struct vt_embedded *embedded = data;
	struct vt_server *server = &embedded->server;
	pthread_setname_np(pthread_self(), "vitrail-main");
	if (!vt_server_init(server)) {
		vt_server_finish(server);
		set_state(embedded, FAILED);
		return NULL;
	}
	embedded->call_source = wl_event_loop_add_fd(server->loop,
			embedded->call_fd, WL_EVENT_READABLE, handle_call, embedded);
	if (embedded->call_source == NULL) {
		vt_server_finish(server);
		set_state(embedded, FAILED);
		return NULL;
	}
	set_state(embedded, RUNNING);
	wl_display_run(server->display);
	wl_event_source_remove(embedded->call_source);
	embedded->call_source = NULL;
	vt_server_finish(server);
	return NULL;
}

struct vt_embedded *vt_embedded_start(const struct vt_options *opts,
		const struct vt_config *config) {
	if (!vt_ensure_runtime_dir()) {
		return NULL;
	}
	struct vt_embedded *embedded = calloc(1, sizeof(*embedded));
	if (embedded == NULL) {
		return NULL;
	}
	embedded->server.opts = *opts;
	embedded->server.config = *config;
	embedded->call_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (embedded->call_fd < 0) {
		free(embedded);
		return NULL;
	}
	pthread_mutex_init(&embedded->call_lock, NULL);
	pthread_mutex_init(&embedded->lock, NULL);
	pthread_cond_init(&embedded->cond, NULL);
	embedded->state = STARTING;

	/* Asynchronous signals stay the host's threads'. Synchronous ones
	 * cannot be blocked: libwayland's SIGBUS handler (a client that
	 * truncates its wl_shm pool) must run on this thread. */
	sigset_t all, old;
	sigfillset(&all);
	int synchronous[] = { SIGBUS, SIGSEGV, SIGFPE, SIGILL, SIGTRAP, SIGABRT,
		SIGSYS };
	for (size_t i = 0; i < sizeof(synchronous) / sizeof(synchronous[0]); i++) {
		sigdelset(&all, synchronous[i]);
	}
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int err = pthread_create(&embedded->thread, NULL, compositor_thread,
			embedded);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0) {
		wlr_log(WLR_ERROR, "embed: cannot start the compositor thread");
		embedded->state = FAILED;
	} else {
		pthread_mutex_lock(&embedded->lock);
		while (embedded->state == STARTING) {
			pthread_cond_wait(&embedded->cond, &embedded->lock);
		}
		pthread_mutex_unlock(&embedded->lock);
	}
	if (embedded->state == FAILED) {
		if (err == 0) {
			pthread_join(embedded->thread, NULL);
		}
		close(embedded->call_fd);
		pthread_cond_destroy(&embedded->cond);
		pthread_mutex_destroy(&embedded->lock);
		pthread_mutex_destroy(&embedded->call_lock);
		free(embedded);
		return NULL;
	}
	return embedded;
}

void vt_embedded_call(struct vt_embedded *embedded, vt_embedded_fn fn,
		void *data) {
	if (pthread_equal(pthread_self(), embedded->thread)) {
		fn(&embedded->server, data);
		return;
	}
	pthread_mutex_lock(&embedded->call_lock);
	pthread_mutex_lock(&embedded->lock);
	embedded->call_fn = fn;
	embedded->call_data = data;
	pthread_mutex_unlock(&embedded->lock);
	uint64_t one = 1;
	if (write(embedded->call_fd, &one, sizeof(one)) < 0) {
		wlr_log_errno(WLR_ERROR, "embed: cannot write the call eventfd");
	}
	pthread_mutex_lock(&embedded->lock);
	while (embedded->call_fn != NULL) {
		pthread_cond_wait(&embedded->cond, &embedded->lock);
	}
	pthread_mutex_unlock(&embedded->lock);
	pthread_mutex_unlock(&embedded->call_lock);
}

static void terminate(struct vt_server *server, void *data) {
	wl_display_terminate(server->display);
}

void vt_embedded_stop(struct vt_embedded *embedded) {
	if (embedded == NULL) {
		return;
	}
	vt_embedded_call(embedded, terminate, NULL);
	pthread_join(embedded->thread, NULL);
	close(embedded->call_fd);
	pthread_cond_destroy(&embedded->cond);
	pthread_mutex_destroy(&embedded->lock);
	pthread_mutex_destroy(&embedded->call_lock);
	free(embedded);
}
