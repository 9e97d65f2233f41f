/*
 * The renderer's threads yield to the caller's. A compositor calls the
 * renderer from its event loop, which must answer clients and read input
 * while frames render; on a machine with few cores the rendering threads
 * (the CPU engine's, the Vulkan workers, and the threads a software
 * Vulkan driver such as lavapipe starts) would otherwise take the cores
 * in turn with it, and a client's round trip waits for the scheduler.
 * They run VR_THREAD_NICE nicer (a lower priority, which any process may
 * take); VITRAIL_RENDER_NICE=0 leaves them as they are.
 */
#define _GNU_SOURCE /* syscall */
#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "engine.h"
#include "render_private.h"

#define VR_THREAD_NICE 5

/* Read once, before main: the threads that ask run beside a main thread
 * that may setenv (WAYLAND_DISPLAY, DISPLAY), and glibc's getenv races
 * with setenv (a renderer thread's getenv read a freed environment: a
 * SEGV under AddressSanitizer). */
static bool nice_off;

__attribute__((constructor)) static void read_nice_env(void) {
	const char *env = getenv("VITRAIL_RENDER_NICE");
	nice_off = env != NULL && strcmp(env, "0") == 0;
}

static bool nice_wanted(void) {
	return !nice_off;
}

static void nice_task(pid_t tid) {
	/* per thread on Linux; relative to the process's own nice */
	int base = getpriority(PRIO_PROCESS, (id_t)getpid());
	if (setpriority(PRIO_PROCESS, (id_t)tid, base + VR_THREAD_NICE) != 0) {
		vr_log(VR_LOG_DEBUG, "setpriority of thread %d failed", (int)tid);
	}
}

void vr_thread_yield_to_caller(void) {
	if (nice_wanted()) {
		nice_task((pid_t)syscall(SYS_gettid));
	}
}

bool vr_tasks_snapshot(struct vr_tasks *tasks) {
	tasks->n = 0;
	DIR *dir = opendir("/proc/self/task");
	if (dir == NULL) {
		return false;
	}
	struct dirent *entry;
	while ((entry = readdir(dir)) != NULL && tasks->n < VR_TASKS_MAX) {
		pid_t tid = (pid_t)atoi(entry->d_name);
		if (tid > 0) {
			tasks->ids[tasks->n++] = tid;
		}
	}
	closedir(dir);
	return true;
}

void vr_tasks_yield_new(const struct vr_tasks *before) {
	struct vr_tasks now;
	if (!nice_wanted() || !vr_tasks_snapshot(&now)) {
		return;
	}
	for (size_t i = 0; i < now.n; i++) {
		bool old = false;
		for (size_t j = 0; j < before->n && !old; j++) {
			old = before->ids[j] == now.ids[i];
		}
		if (!old) {
			nice_task(now.ids[i]);
		}
	}
}

/* CPU stages of every renderer in the process (vr_cpu_stages_wait_idle) */
static pthread_mutex_t stages_lock = PTHREAD_MUTEX_INITIALIZER; /* a leaf */
static pthread_cond_t stages_cond = PTHREAD_COND_INITIALIZER;
static unsigned stages_running; /* protected by stages_lock */

void vr_cpu_stages_wait_idle(void) {
	pthread_mutex_lock(&stages_lock);
	while (stages_running > 0) {
		pthread_cond_wait(&stages_cond, &stages_lock);
	}
	pthread_mutex_unlock(&stages_lock);
}

static void stages_add(int delta) {
	pthread_mutex_lock(&stages_lock);
	stages_running = (unsigned)((int)stages_running + delta);
	pthread_cond_broadcast(&stages_cond);
	pthread_mutex_unlock(&stages_lock);
}

void vr_cpu_stage_begin(void) {
	stages_add(1);
}

void vr_cpu_stage_end(void) {
	stages_add(-1);
}
