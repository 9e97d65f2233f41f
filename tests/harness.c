#define _GNU_SOURCE // pipe2, nftw, prctl
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vitrail/renderer.h>
#include <wayland-client.h>
#include "harness.h"
#include "vitrail-test-v1-client-protocol.h"

/* How much of a log a failure message quotes. */
/* A log's end in a failure message: Check refuses messages over 4 KiB
 * ("Message string too long"; the whole logs follow the test anyway). */
#define LOG_TAIL 3000
/* Attempts to get a screenshot and a reference of one tree generation. */
#define CHECK_ATTEMPTS 5

struct harness_conn {
	struct harness *harness;
	struct harness_vitrail *vitrail;
	struct wl_display *display;
	struct wl_registry *registry;
	struct vitrail_test_v1 *test;
	struct wl_array windows; // struct harness_window
	bool listing; // window events belong to a pending list_windows
};

struct callback_result {
	bool done;
	uint32_t data;
};

static struct harness *current;

int64_t harness_now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* $VITRAIL_TIMEOUT_MULTIPLIER (slow builds, such as sanitizer ones, set
 * it), at least 1. */
static double timeout_factor(void) {
	const char *env = getenv("VITRAIL_TIMEOUT_MULTIPLIER");
	double factor = env != NULL ? strtod(env, NULL) : 1.0;
	return factor >= 1.0 ? factor : 1.0;
}

int64_t harness_scaled_ms(int ms) {
	return (int64_t)(ms * timeout_factor());
}

void harness_sleep_ms(int ms) {
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000,
	};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
		// continue with the remaining time
	}
}

const char *harness_env_path(const char *name, const char *fallback) {
	const char *path = getenv(name);
	return path != NULL && path[0] != '\0' ? path : fallback;
}

const char *harness_demo_path(void) {
	return harness_env_path("VITRAIL_DEMO", "vitrail-demo");
}

/* These two abort on failure rather than fail a test: the runner also uses
 * them outside of any test. */
static char *xstrdup(const char *s) {
	char *copy = strdup(s);
	if (copy == NULL) {
		abort();
	}
	return copy;
}

static char *xasprintf(const char *fmt, ...) {
	va_list args;
	va_start(args, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, args);
	va_end(args);
	if (n < 0) {
		abort();
	}
	return s;
}

static char *read_file(const char *path, size_t *len) {
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf != NULL) {
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0) {
			break;
		}
		if (cap - n - 1 == 0) {
			char *bigger = realloc(buf, cap * 2);
			if (bigger == NULL) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf != NULL) {
		buf[n] = '\0';
	}
	if (len != NULL) {
		*len = n;
	}
	return buf;
}

static int remove_entry(const char *path, const struct stat *st, int type,
		struct FTW *ftw) {
	if (ftw->level == 0) {
		return 0; // the top directory itself is handled by the caller
	}
	if (remove(path) < 0) {
		fprintf(stderr, "harness: cannot remove %s: %s\n", path,
				strerror(errno));
	}
	return 0;
}

/* Remove everything inside dir; remove dir itself too when asked. */
static void remove_tree(const char *dir, bool remove_top) {
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (remove_top && rmdir(dir) < 0 && errno != ENOENT) {
		fprintf(stderr, "harness: cannot remove %s: %s\n", dir,
				strerror(errno));
	}
}

static void mkdir_p(const char *path) {
	char *copy = xstrdup(path);
	for (char *p = copy + 1; *p != '\0'; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(copy, 0755);
			*p = '/';
		}
	}
	int ret = mkdir(copy, 0755);
	ck_assert_msg(ret == 0 || errno == EEXIST, "cannot create %s: %s", copy,
			strerror(errno));
	free(copy);
}

/* meson sets VITRAIL_TEST_OUT; run by hand without it, the output goes to
 * /tmp, never into the working tree. */
#define DEFAULT_OUT "/tmp/vitrail-test-out"

static char *out_dir_for(const char *name) {
	const char *base = getenv("VITRAIL_TEST_OUT");
	if (base == NULL || base[0] == '\0') {
		base = DEFAULT_OUT;
		mkdir(base, 0755);
	}
	return xasprintf("%s/%s", base, name);
}

/* ---- processes ---------------------------------------------------------- */

static void describe_status(int status, char *buf, size_t size) {
	if (WIFEXITED(status)) {
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		snprintf(buf, size, "killed by signal %d (%s)", WTERMSIG(status),
				strsignal(WTERMSIG(status)));
	} else {
		snprintf(buf, size, "wait status 0x%x", status);
	}
}

/* The last LOG_TAIL bytes of a process's log (malloc'd). */
static char *proc_log_tail(struct harness_proc *proc) {
	size_t len = 0;
	char *log = read_file(proc->log_path, &len);
	if (log == NULL) {
		return xasprintf("(no log at %s)", proc->log_path);
	}
	if (len > LOG_TAIL) {
		char *tail = xasprintf("[...]\n%s", log + len - LOG_TAIL);
		free(log);
		return tail;
	}
	return log;
}

void harness_require_program(const char *program, const char *package) {
	const char *path = getenv("PATH");
	if (path == NULL) {
		path = "/usr/bin:/bin";
	}
	char *dirs = xstrdup(path);
	bool found = false;
	char *save = NULL;
	for (char *dir = strtok_r(dirs, ":", &save); dir != NULL && !found;
			dir = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", dir, program);
		found = access(full, X_OK) == 0;
		free(full);
	}
	free(dirs);
	ck_assert_msg(found,
			"%s is not installed (not found in PATH); the "
			"integration tests need it: install the Debian package '%s'",
			program, package);
}

struct harness_proc *harness_spawn(struct harness *harness, const char *name,
		const char *const argv[], const char *const env[], int keep_fd) {
	struct harness_proc *proc = calloc(1, sizeof(*proc));
	ck_assert_msg(proc != NULL, "out of memory");
	harness->nprocs++;
	proc->name = xstrdup(name);
	proc->log_path = xasprintf("%s/%02d-%s.log", harness->out_dir,
			harness->nprocs, name);

	int log_fd = open(proc->log_path,
			O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	ck_assert_msg(log_fd >= 0, "cannot create %s: %s", proc->log_path,
			strerror(errno));
	// The command line heads the log.
	dprintf(log_fd, "$");
	for (size_t i = 0; argv[i] != NULL; i++) {
		dprintf(log_fd, " %s", argv[i]);
	}
	dprintf(log_fd, "\n");

	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid();
	pid_t pid = fork();
	ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		// Die with the test process, even when it is SIGKILLed.
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent) {
			_exit(127);
		}
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		int null_fd = open("/dev/null", O_RDONLY);
		if (null_fd >= 0) {
			dup2(null_fd, STDIN_FILENO);
			if (null_fd != STDIN_FILENO) {
				close(null_fd);
			}
		}
		dup2(log_fd, STDOUT_FILENO);
		dup2(log_fd, STDERR_FILENO);
		if (keep_fd >= 0) {
			int flags = fcntl(keep_fd, F_GETFD);
			fcntl(keep_fd, F_SETFD, flags & ~FD_CLOEXEC);
		}
		for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
			const char *eq = strchr(env[i], '=');
			if (eq == NULL) {
				unsetenv(env[i]);
				continue;
			}
			char var[256];
			size_t len = (size_t)(eq - env[i]);
			if (len >= sizeof(var)) {
				continue;
			}
			memcpy(var, env[i], len);
			var[len] = '\0';
			setenv(var, eq + 1, 1);
		}
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "harness: cannot execute %s: %s\n", argv[0],
				strerror(errno));
		_exit(127);
	}
	close(log_fd);
	proc->pid = pid;
	wl_list_insert(&harness->procs, &proc->link); // newest first
	return proc;
}

bool harness_proc_alive(struct harness_proc *proc) {
	if (proc->pid == 0) {
		return false;
	}
	int status;
	pid_t ret = waitpid(proc->pid, &status, WNOHANG);
	if (ret == proc->pid) {
		proc->status = status;
		proc->pid = 0;
		return false;
	}
	return true;
}

void harness_proc_signal(struct harness_proc *proc, int sig) {
	if (harness_proc_alive(proc)) {
		kill(proc->pid, sig);
	}
}

bool harness_proc_wait(struct harness_proc *proc, int timeout_ms) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(timeout_ms);
	while (harness_proc_alive(proc)) {
		if (harness_now_ms() >= deadline) {
			return false;
		}
		harness_sleep_ms(10);
	}
	return true;
}

int harness_proc_stop(struct harness_proc *proc) {
	harness_proc_signal(proc, SIGTERM);
	if (!harness_proc_wait(proc, HARNESS_STOP_TIMEOUT_MS)) {
		fprintf(stderr,
				"harness: %s (pid %d) ignored SIGTERM for %d ms; "
				"sending SIGKILL\n",
				proc->name, (int)proc->pid, HARNESS_STOP_TIMEOUT_MS);
		harness_proc_signal(proc, SIGKILL);
		harness_proc_wait(proc, HARNESS_STOP_TIMEOUT_MS);
	}
	return proc->status;
}

char *harness_write_file(struct harness *harness, const char *name,
		const char *text) {
	char *path = NULL;
	ck_assert_int_gt(asprintf(&path, "%s/%s", harness->out_dir, name), 0);
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "cannot write %s", path);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

char *harness_proc_log(struct harness_proc *proc) {
	char *log = read_file(proc->log_path, NULL);
	ck_assert_msg(log != NULL, "cannot read %s", proc->log_path);
	return log;
}

size_t harness_log_length(struct harness_proc *proc) {
	char *log = harness_proc_log(proc);
	size_t len = strlen(log);
	free(log);
	return len;
}

void harness_wait_for_log(struct harness_proc *proc, size_t from,
		const char *text, int timeout_ms) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(timeout_ms);
	for (;;) {
		char *log = harness_proc_log(proc);
		size_t len = strlen(log);
		bool found = len > from && strstr(log + from, text) != NULL;
		if (found || harness_now_ms() >= deadline) {
			ck_assert_msg(found,
					"%s did not log '%s' within %d ms (%s); the end of "
					"its log:\n%s",
					proc->name, text, timeout_ms, proc->log_path,
					len > 2000 ? log + len - 2000 : log);
			free(log);
			return;
		}
		free(log);
		harness_assert_alive(proc);
		harness_sleep_ms(20);
	}
}

void harness_assert_alive(struct harness_proc *proc) {
	if (harness_proc_alive(proc)) {
		return;
	}
	char how[128];
	describe_status(proc->status, how, sizeof(how));
	char *tail = proc_log_tail(proc);
	ck_abort_msg("%s died (%s); its log %s ends:\n%s", proc->name, how,
			proc->log_path, tail);
	free(tail);
}

static struct harness_proc *spawn_client_env(struct harness *harness,
		struct harness_vitrail *vitrail, const char *const argv[]) {
	char *display = xasprintf("WAYLAND_DISPLAY=%s", vitrail->socket);
	const char *env[] = { display, "DISPLAY", "WAYLAND_SOCKET", NULL };
	const char *base = strrchr(argv[0], '/');
	base = base != NULL ? base + 1 : argv[0];
	struct harness_proc *proc = harness_spawn(harness, base, argv, env, -1);
	free(display);
	return proc;
}

struct harness_proc *harness_spawn_x11_client(struct harness *harness,
		struct harness_vitrail *vitrail, const char *const argv[]) {
	ck_assert_msg(vitrail->x_display != NULL,
			"%s offers no X display "
			"(no DISPLAY line on --ready-fd)",
			vitrail->proc->name);
	char *display = xasprintf("DISPLAY=%s", vitrail->x_display);
	const char *env[] = { display, "WAYLAND_DISPLAY", "WAYLAND_SOCKET", NULL };
	const char *base = strrchr(argv[0], '/');
	base = base != NULL ? base + 1 : argv[0];
	struct harness_proc *proc = harness_spawn(harness, base, argv, env, -1);
	free(display);
	return proc;
}

struct harness_proc *harness_spawn_client(struct harness *harness,
		struct harness_vitrail *vitrail, const char *const argv[]) {
	return spawn_client_env(harness, vitrail, argv);
}

int harness_run_client(struct harness *harness, struct harness_vitrail *vitrail,
		const char *const argv[], int timeout_ms,
		struct harness_proc **proc_out) {
	struct harness_proc *proc = spawn_client_env(harness, vitrail, argv);
	if (proc_out != NULL) {
		*proc_out = proc;
	}
	if (!harness_proc_wait(proc, timeout_ms)) {
		harness_proc_signal(proc, SIGKILL);
		harness_proc_wait(proc, HARNESS_STOP_TIMEOUT_MS);
		char *tail = proc_log_tail(proc);
		ck_abort_msg("%s did not finish within %d ms; its log %s:\n%s",
				proc->name, timeout_ms, proc->log_path, tail);
		free(tail);
	}
	if (WIFEXITED(proc->status)) {
		return WEXITSTATUS(proc->status);
	}
	return -1;
}

/* ---- harness ------------------------------------------------------------ */

struct harness *harness_create(const char *name) {
	ck_assert_msg(current == NULL, "one harness per test");
	struct harness *harness = calloc(1, sizeof(*harness));
	ck_assert_msg(harness != NULL, "out of memory");
	harness->name = xstrdup(name);
	wl_list_init(&harness->procs);
	wl_list_init(&harness->vitrails);
	wl_list_init(&harness->xvfbs);

	char *out_dir = out_dir_for(name);
	mkdir_p(out_dir);
	remove_tree(out_dir, false);
	char abs[PATH_MAX];
	ck_assert_msg(realpath(out_dir, abs) != NULL, "realpath %s: %s", out_dir,
			strerror(errno));
	harness->out_dir = xstrdup(abs);
	free(out_dir);

	char template[] = "/tmp/vitrail-test-XXXXXX";
	ck_assert_msg(mkdtemp(template) != NULL, "mkdtemp: %s", strerror(errno));
	ck_assert_msg(chmod(template, 0700) == 0, "chmod %s: %s", template,
			strerror(errno));
	harness->runtime_dir = xstrdup(template);
	// Recorded so that the runner removes it should this process die.
	char *record = xasprintf("%s/runtime-dir", harness->out_dir);
	FILE *f = fopen(record, "w");
	ck_assert_msg(f != NULL, "cannot write %s", record);
	fprintf(f, "%s\n", harness->runtime_dir);
	fclose(f);
	free(record);

	// No user configuration reaches vitrail or the clients.
	char *config_home = xasprintf("%s/config", harness->out_dir);
	mkdir_p(config_home);
	setenv("XDG_CONFIG_HOME", config_home, 1);
	free(config_home);
	setenv("XDG_RUNTIME_DIR", harness->runtime_dir, 1);
	unsetenv("WAYLAND_DISPLAY");
	unsetenv("WAYLAND_SOCKET");
	unsetenv("DISPLAY");
	current = harness;
	return harness;
}

struct harness *harness_current(void) {
	return current;
}

static void conn_destroy(struct harness_conn *conn);

void harness_destroy(struct harness *harness) {
	if (harness == NULL) {
		return;
	}
	struct harness_vitrail *vitrail, *vitrail_tmp;
	wl_list_for_each_safe(vitrail, vitrail_tmp, &harness->vitrails, link) {
		conn_destroy(vitrail->conn);
		wl_list_remove(&vitrail->link);
		free(vitrail->socket);
		free(vitrail->x_display);
		free(vitrail);
	}
	struct harness_xvfb *xvfb, *xvfb_tmp;
	wl_list_for_each_safe(xvfb, xvfb_tmp, &harness->xvfbs, link) {
		wl_list_remove(&xvfb->link);
		free(xvfb->display);
		free(xvfb);
	}
	// Newest first: clients, then nested compositors, then their parents.
	struct harness_proc *proc, *proc_tmp;
	wl_list_for_each_safe(proc, proc_tmp, &harness->procs, link) {
		harness_proc_stop(proc);
		wl_list_remove(&proc->link);
		free(proc->name);
		free(proc->log_path);
		free(proc);
	}
	remove_tree(harness->runtime_dir, true);
	char *record = xasprintf("%s/runtime-dir", harness->out_dir);
	unlink(record);
	free(record);
	free(harness->runtime_dir);
	free(harness->out_dir);
	free(harness->name);
	free(harness);
	if (current == harness) {
		current = NULL;
	}
}

static int compare_names(const struct dirent **a, const struct dirent **b) {
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_log(const struct dirent *entry) {
	size_t len = strlen(entry->d_name);
	return len > 4 && strcmp(entry->d_name + len - 4, ".log") == 0;
}

void harness_after_test(const char *name, bool failed) {
	char *out_dir = out_dir_for(name);
	if (failed) {
		struct dirent **entries = NULL;
		int n = scandir(out_dir, &entries, is_log, compare_names);
		for (int i = 0; i < n; i++) {
			char *path = xasprintf("%s/%s", out_dir, entries[i]->d_name);
			char *log = read_file(path, NULL);
			fprintf(stderr, "\n---- %s ----\n%s", path,
					log != NULL ? log : "(unreadable)\n");
			free(log);
			free(path);
			free(entries[i]);
		}
		free(entries);
		if (n > 0) {
			fprintf(stderr, "---- end of logs of %s ----\n", name);
		}
	}
	char *record = xasprintf("%s/runtime-dir", out_dir);
	char *runtime_dir = read_file(record, NULL);
	if (runtime_dir != NULL) {
		runtime_dir[strcspn(runtime_dir, "\n")] = '\0';
		if (strncmp(runtime_dir, "/tmp/vitrail-test-", 18) == 0) {
			remove_tree(runtime_dir, true);
		}
		free(runtime_dir);
		unlink(record);
	}
	free(record);
	free(out_dir);
}

/* ---- vitrail_test_v1 connection ----------------------------------------- */

static void callback_handle_done(void *data, struct wl_callback *callback,
		uint32_t callback_data) {
	struct callback_result *result = data;
	result->done = true;
	result->data = callback_data;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener callback_listener = {
	.done = callback_handle_done,
};

static void conn_fail(struct harness_conn *conn, const char *what,
		const char *why) {
	struct harness_proc *proc = conn->vitrail->proc;
	// A crash shows as a lost connection first: give it time to be reaped.
	harness_proc_wait(proc, 1000);
	if (!harness_proc_alive(proc)) {
		harness_assert_alive(proc); // fails with vitrail's log
	}
	// Every vitrail of the test (a nested one's parent too) logs its
	// outputs' frame state on SIGUSR1: what the wait was stuck on.
	if (current != NULL) {
		struct harness_vitrail *v;
		wl_list_for_each(v, &current->vitrails, link) {
			harness_proc_signal(v->proc, SIGUSR1);
		}
		harness_sleep_ms(300);
	}
	int err = wl_display_get_error(conn->display);
	const struct wl_interface *interface = NULL;
	uint32_t id = 0;
	uint32_t code = 0;
	if (err == EPROTO) {
		code = wl_display_get_protocol_error(conn->display, &interface, &id);
	}
	char *tail = proc_log_tail(proc);
	if (interface != NULL) {
		ck_abort_msg("%s while waiting for %s from vitrail on %s: protocol "
					 "error %u on %s@%u; vitrail's log %s ends:\n%s",
				why, what, conn->vitrail->socket, code, interface->name, id,
				proc->log_path, tail);
	}
	ck_abort_msg("%s while waiting for %s from vitrail on %s (%s); "
				 "vitrail's log %s ends:\n%s",
			why, what, conn->vitrail->socket,
			err != 0 ? strerror(err) : "no connection error", proc->log_path,
			tail);
	free(tail);
}

/* Dispatch until *done, failing the test after timeout_ms. */
static void conn_wait(struct harness_conn *conn, const bool *done,
		int timeout_ms, const char *what) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(timeout_ms);
	struct wl_display *display = conn->display;
	while (true) {
		if (wl_display_dispatch_pending(display) < 0) {
			conn_fail(conn, what, "lost the connection");
		}
		if (*done) {
			return;
		}
		if (!harness_proc_alive(conn->vitrail->proc)) {
			conn_fail(conn, what, "vitrail died");
		}
		int64_t remaining = deadline - harness_now_ms();
		if (remaining <= 0) {
			char why[64];
			snprintf(why, sizeof(why), "timed out after %lld ms",
					(long long)harness_scaled_ms(timeout_ms));
			conn_fail(conn, what, why);
		}
		while (wl_display_prepare_read(display) != 0) {
			if (wl_display_dispatch_pending(display) < 0) {
				conn_fail(conn, what, "lost the connection");
			}
		}
		struct pollfd pfd = {
			.fd = wl_display_get_fd(display),
			.events = POLLIN,
		};
		if (wl_display_flush(display) < 0) {
			if (errno != EAGAIN) {
				wl_display_cancel_read(display);
				conn_fail(conn, what, "lost the connection");
			}
			pfd.events |= POLLOUT;
		}
		int ret = poll(&pfd, 1, remaining < 200 ? (int)remaining : 200);
		if (ret > 0 && (pfd.revents & (POLLIN | POLLERR | POLLHUP))) {
			if (wl_display_read_events(display) < 0) {
				conn_fail(conn, what, "lost the connection");
			}
		} else {
			wl_display_cancel_read(display);
		}
	}
}

static void test_handle_window(void *data, struct vitrail_test_v1 *test,
		const char *app_id, const char *output, int32_t x, int32_t y,
		int32_t width, int32_t height) {
	struct harness_conn *conn = data;
	ck_assert_msg(conn->listing,
			"vitrail sent a window event outside of list_windows");
	struct harness_window *window =
			wl_array_add(&conn->windows, sizeof(*window));
	ck_assert_msg(window != NULL, "out of memory");
	*window = (struct harness_window){
		.app_id = xstrdup(app_id != NULL ? app_id : ""),
		.output = xstrdup(output != NULL ? output : ""),
		.x = x,
		.y = y,
		.width = width,
		.height = height,
	};
}

static const struct vitrail_test_v1_listener test_listener = {
	.window = test_handle_window,
};

static void registry_handle_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct harness_conn *conn = data;
	if (strcmp(interface, vitrail_test_v1_interface.name) == 0) {
		conn->test = wl_registry_bind(registry, name,
				&vitrail_test_v1_interface, version < 7 ? version : 7);
		vitrail_test_v1_add_listener(conn->test, &test_listener, conn);
	}
}

static void registry_handle_global_remove(void *data,
		struct wl_registry *registry, uint32_t name) {
	// vitrail_test_v1 lives as long as vitrail
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_handle_global,
	.global_remove = registry_handle_global_remove,
};

static void clear_windows(struct harness_conn *conn) {
	struct harness_window *window;
	wl_array_for_each(window, &conn->windows) {
		free(window->app_id);
		free(window->output);
	}
	conn->windows.size = 0;
}

static void conn_sync(struct harness_conn *conn, const char *what) {
	struct callback_result result = { 0 };
	struct wl_callback *callback = wl_display_sync(conn->display);
	wl_callback_add_listener(callback, &callback_listener, &result);
	conn_wait(conn, &result.done, HARNESS_WAIT_TIMEOUT_MS, what);
}

static struct harness_conn *conn_create(struct harness_vitrail *vitrail) {
	struct harness_conn *conn = calloc(1, sizeof(*conn));
	ck_assert_msg(conn != NULL, "out of memory");
	conn->vitrail = vitrail;
	wl_array_init(&conn->windows);
	conn->display = wl_display_connect(vitrail->socket);
	if (conn->display == NULL) {
		char *tail = proc_log_tail(vitrail->proc);
		ck_abort_msg("cannot connect to vitrail's socket %s in %s: %s; "
					 "vitrail's log %s ends:\n%s",
				vitrail->socket, getenv("XDG_RUNTIME_DIR"), strerror(errno),
				vitrail->proc->log_path, tail);
		free(tail);
	}
	conn->registry = wl_display_get_registry(conn->display);
	wl_registry_add_listener(conn->registry, &registry_listener, conn);
	conn_sync(conn, "the globals");
	ck_assert_msg(conn->test != NULL,
			"vitrail on %s does not advertise "
			"vitrail_test_v1 although it was started with --test",
			vitrail->socket);
	return conn;
}

static void conn_destroy(struct harness_conn *conn) {
	if (conn == NULL) {
		return;
	}
	clear_windows(conn);
	wl_array_release(&conn->windows);
	if (conn->test != NULL) {
		vitrail_test_v1_destroy(conn->test);
	}
	if (conn->registry != NULL) {
		wl_registry_destroy(conn->registry);
	}
	wl_display_flush(conn->display);
	wl_display_disconnect(conn->display);
	free(conn);
}

void harness_hold_frames(struct harness_conn *conn, bool hold) {
	vitrail_test_v1_hold_frames(conn->test, hold ? 1 : 0);
	conn_sync(conn, hold ? "hold_frames(1)" : "hold_frames(0)");
}

void harness_slow_frames(struct harness_conn *conn, const uint32_t *costs_us,
		size_t n) {
	struct wl_array costs;
	wl_array_init(&costs);
	uint32_t *c = wl_array_add(&costs, n * sizeof(*c));
	ck_assert_ptr_nonnull(c);
	memcpy(c, costs_us, n * sizeof(*c));
	vitrail_test_v1_slow_frames(conn->test, &costs);
	wl_array_release(&costs);
	conn_sync(conn, "slow_frames");
}

uint32_t harness_settle(struct harness_conn *conn) {
	struct callback_result result = { 0 };
	struct wl_callback *callback = vitrail_test_v1_settle(conn->test);
	wl_callback_add_listener(callback, &callback_listener, &result);
	conn_wait(conn, &result.done, HARNESS_WAIT_TIMEOUT_MS, "settle");
	ck_assert_msg(result.data != 0,
			"settle answered generation 0, which the protocol forbids");
	return result.data;
}

uint32_t harness_settle_held(struct harness_conn *conn) {
	harness_hold_frames(conn, true);
	uint32_t generation = harness_settle(conn);
	harness_hold_frames(conn, false);
	return generation;
}

size_t harness_list_windows(struct harness_conn *conn,
		const struct harness_window **windows) {
	clear_windows(conn);
	conn->listing = true;
	struct callback_result result = { 0 };
	struct wl_callback *callback = vitrail_test_v1_list_windows(conn->test);
	wl_callback_add_listener(callback, &callback_listener, &result);
	conn_wait(conn, &result.done, HARNESS_WAIT_TIMEOUT_MS, "list_windows");
	conn->listing = false;
	size_t n = conn->windows.size / sizeof(struct harness_window);
	ck_assert_msg(result.data == n,
			"list_windows sent %zu window events "
			"but its callback counts %u",
			n, result.data);
	if (windows != NULL) {
		*windows = conn->windows.data;
	}
	return n;
}

size_t harness_wait_for_windows(struct harness_conn *conn, size_t n,
		int timeout_ms) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(timeout_ms);
	size_t count;
	while ((count = harness_list_windows(conn, NULL)) < n) {
		if (harness_now_ms() >= deadline) {
			char *tail = proc_log_tail(conn->vitrail->proc);
			ck_abort_msg("vitrail on %s maps %zu windows after %d ms; "
						 "expected %zu. vitrail's log ends:\n%s",
					conn->vitrail->socket, count, timeout_ms, n, tail);
			free(tail);
		}
		harness_sleep_ms(100);
	}
	return count;
}

void harness_wait_for_window_count(struct harness_conn *conn, size_t n,
		int timeout_ms) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(timeout_ms);
	size_t count;
	while ((count = harness_list_windows(conn, NULL)) != n) {
		if (harness_now_ms() >= deadline) {
			char *windows = harness_describe_windows(conn);
			ck_abort_msg("vitrail on %s maps %zu windows after %d ms; "
						 "expected exactly %zu:\n%s",
					conn->vitrail->socket, count, timeout_ms, n, windows);
			free(windows);
		}
		harness_sleep_ms(100);
	}
}

char *harness_describe_windows(struct harness_conn *conn) {
	char *text = xstrdup("");
	struct harness_window *window;
	wl_array_for_each(window, &conn->windows) {
		char *line = xasprintf("%s  '%s' on '%s' at %d,%d size %dx%d\n", text,
				window->app_id, window->output, window->x, window->y,
				window->width, window->height);
		free(text);
		text = line;
	}
	if (text[0] == '\0') {
		free(text);
		text = xstrdup("  (no windows)\n");
	}
	return text;
}

const struct harness_window *harness_find_window(struct harness_conn *conn,
		const char *app_id) {
	struct harness_window *window;
	wl_array_for_each(window, &conn->windows) {
		if (strcmp(window->app_id, app_id) == 0) {
			return window;
		}
	}
	return NULL;
}

uint32_t harness_write_reference(struct harness_conn *conn, const char *output,
		const char *path) {
	struct callback_result result = { 0 };
	struct wl_callback *callback =
			vitrail_test_v1_write_reference(conn->test, output, path);
	wl_callback_add_listener(callback, &callback_listener, &result);
	conn_wait(conn, &result.done, HARNESS_WAIT_TIMEOUT_MS, "write_reference");
	return result.data;
}

void harness_unplug_output(struct harness_conn *conn, const char *output) {
	ck_assert_msg(vitrail_test_v1_get_version(conn->test) >= 3,
			"vitrail_test_v1 version 3 needed to unplug %s", output);
	struct callback_result result = { 0 };
	struct wl_callback *callback =
			vitrail_test_v1_unplug_output(conn->test, output);
	wl_callback_add_listener(callback, &callback_listener, &result);
	conn_wait(conn, &result.done, HARNESS_WAIT_TIMEOUT_MS, "unplug_output");
}

static void require_input(struct harness_conn *conn) {
	ck_assert_msg(vitrail_test_v1_get_version(conn->test) >= 5,
			"vitrail_test_v1 version 5 needed to emulate a pointer");
}

void harness_pointer_move(struct harness_conn *conn, double x, double y) {
	require_input(conn);
	vitrail_test_v1_pointer_move(conn->test, wl_fixed_from_double(x),
			wl_fixed_from_double(y));
	conn_sync(conn, "pointer_move");
}

void harness_pointer_button(struct harness_conn *conn, uint32_t button,
		bool pressed) {
	require_input(conn);
	vitrail_test_v1_pointer_button(conn->test, button, pressed ? 1 : 0);
	conn_sync(conn, "pointer_button");
}

static void require_version_6(struct harness_conn *conn, const char *what) {
	ck_assert_msg(vitrail_test_v1_get_version(conn->test) >= 6,
			"vitrail_test_v1 version 6 needed for %s", what);
}

void harness_pointer_axis(struct harness_conn *conn, uint32_t orientation,
		double value, uint32_t source, int32_t discrete) {
	require_version_6(conn, "pointer_axis");
	vitrail_test_v1_pointer_axis(conn->test, orientation,
			wl_fixed_from_double(value), source, discrete);
	conn_sync(conn, "pointer_axis");
}

void harness_touch(struct harness_conn *conn, enum harness_touch what,
		int32_t id, double x, double y) {
	require_version_6(conn, "touch");
	switch (what) {
	case HARNESS_TOUCH_DOWN:
		vitrail_test_v1_touch_down(conn->test, id, wl_fixed_from_double(x),
				wl_fixed_from_double(y));
		break;
	case HARNESS_TOUCH_MOVE:
		vitrail_test_v1_touch_move(conn->test, id, wl_fixed_from_double(x),
				wl_fixed_from_double(y));
		break;
	case HARNESS_TOUCH_UP: vitrail_test_v1_touch_up(conn->test, id); break;
	}
	conn_sync(conn, "touch");
}

void harness_touch_raw(struct harness_conn *conn, int32_t id, double x,
		double y, bool down) {
	ck_assert_msg(vitrail_test_v1_get_version(conn->test) >= 7,
			"vitrail_test_v1 version 7 needed for touch_raw");
	vitrail_test_v1_touch_raw(conn->test, id, wl_fixed_from_double(x),
			wl_fixed_from_double(y), down ? 1 : 0);
	conn_sync(conn, "touch_raw");
}

void harness_hash_frames(struct harness_conn *conn, const char *output,
		int32_t x, int32_t y, int32_t width, int32_t height, const char *path) {
	require_version_6(conn, "hash_frames");
	vitrail_test_v1_hash_frames(conn->test, output, x, y, width, height, path);
	conn_sync(conn, "hash_frames");
}

/* ---- frame log ------------------------------------------------------------
 */

size_t harness_read_frame_log(const char *path, struct harness_frame **frames) {
	struct csv csv;
	ck_assert_msg(csv_open(&csv, path), "no frame log %s, or it is empty",
			path);
	enum {
		OUTPUT,
		FRAME,
		VBLANK,
		PRESENTED,
		START,
		END,
		DROPPED,
		INPUT,
		NCOLS
	};
	static const char *const names[NCOLS] = { "output", "frame",
		"target_vblank_ns", "presented_ns", "render_start_ns", "render_end_ns",
		"dropped", "input_ns" };
	int cols[NCOLS];
	for (int i = 0; i < NCOLS; i++) {
		cols[i] = harness_csv_column(&csv, path, names[i]);
	}
	struct harness_frame *rows = NULL;
	size_t n = 0, cap = 0;
	while (csv_next(&csv)) {
		if (n == cap) {
			cap = cap > 0 ? cap * 2 : 256;
			rows = realloc(rows, cap * sizeof(*rows));
			ck_assert(rows != NULL);
		}
		const char *output = csv_field(&csv, cols[OUTPUT]);
		rows[n++] = (struct harness_frame){
			.seq = csv_u64(&csv, cols[FRAME]),
			.target_vblank_ns = csv_u64(&csv, cols[VBLANK]),
			.presented_ns = csv_u64(&csv, cols[PRESENTED]),
			.render_start_ns = csv_u64(&csv, cols[START]),
			.render_end_ns = csv_u64(&csv, cols[END]),
			.dropped = csv_u64(&csv, cols[DROPPED]) != 0,
			.input_ns = csv_u64(&csv, cols[INPUT]),
		};
		snprintf(rows[n - 1].output, sizeof(rows[n - 1].output), "%s",
				output != NULL ? output : "");
	}
	csv_close(&csv);
	*frames = rows;
	return n;
}

int harness_csv_column(const struct csv *csv, const char *path,
		const char *name) {
	int column = csv_column(csv, name);
	ck_assert_msg(column >= 0, "%s: no column %s", path, name);
	return column;
}

/* ---- starting things ---------------------------------------------------- */

/* Read one line from fd into buf, failing the test at the deadline. Returns
 * false on EOF before a newline. */
static bool read_line(int fd, char *buf, size_t size, int timeout_ms,
		struct harness_proc *proc, const char *what) {
	int64_t deadline = harness_now_ms() + harness_scaled_ms(timeout_ms);
	size_t n = 0;
	while (n + 1 < size) {
		int64_t remaining = deadline - harness_now_ms();
		if (remaining <= 0) {
			char *tail = proc_log_tail(proc);
			ck_abort_msg("%s did not report %s within %d ms; its log %s "
						 "ends:\n%s",
					proc->name, what, timeout_ms, proc->log_path, tail);
			free(tail);
		}
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int ret = poll(&pfd, 1, (int)remaining);
		if (ret < 0 && errno == EINTR) {
			continue;
		}
		if (ret <= 0) {
			continue;
		}
		ssize_t got = read(fd, buf + n, 1);
		if (got < 0 && errno == EINTR) {
			continue;
		}
		if (got <= 0) {
			break;
		}
		if (buf[n] == '\n') {
			buf[n] = '\0';
			return true;
		}
		n++;
	}
	buf[n] = '\0';
	return false;
}

static void fail_not_ready(struct harness_proc *proc, const char *what,
		const char *got) {
	harness_proc_wait(proc, 2000);
	char how[128] = "still running";
	if (proc->pid == 0) {
		describe_status(proc->status, how, sizeof(how));
	}
	char *tail = proc_log_tail(proc);
	ck_abort_msg("%s closed its ready fd without reporting %s (got '%s'; "
				 "%s); its log %s ends:\n%s",
			proc->name, what, got, how, proc->log_path, tail);
	free(tail);
}

struct harness_vitrail *harness_start_vitrail(struct harness *harness,
		const struct harness_vitrail_options *options) {
	const char *bin = getenv("VITRAIL_BIN");
	ck_assert_msg(bin != NULL && bin[0] != '\0',
			"VITRAIL_BIN is not set (meson sets it to the built compositor)");
	struct harness_vitrail *vitrail = calloc(1, sizeof(*vitrail));
	ck_assert_msg(vitrail != NULL, "out of memory");
	harness->nsockets++;
	vitrail->socket = xasprintf("vitrail-%d", harness->nsockets);
	wl_list_init(&vitrail->link);

	int fds[2];
	ck_assert_msg(pipe2(fds, O_CLOEXEC) == 0, "pipe2: %s", strerror(errno));
	char ready_fd[16], outputs[16];
	snprintf(ready_fd, sizeof(ready_fd), "%d", fds[1]);
	snprintf(outputs, sizeof(outputs), "%d", options->outputs);

	const char *argv[64];
	size_t argc = 0;
	argv[argc++] = bin;
	argv[argc++] = "--backend";
	argv[argc++] = options->backend != NULL ? options->backend : "headless";
	if (options->outputs > 0) {
		argv[argc++] = "--outputs";
		argv[argc++] = outputs;
	}
	if (options->output_size != NULL) {
		argv[argc++] = "--output-size";
		argv[argc++] = options->output_size;
	}
	argv[argc++] = "--socket";
	argv[argc++] = vitrail->socket;
	argv[argc++] = "--test";
	argv[argc++] = "--ready-fd";
	argv[argc++] = ready_fd;
	/* The Vulkan backend unless the test or VITRAIL_TEST_RENDER_BACKEND
	 * asks for another: on lavapipe vitrail's auto would measure and
	 * may pick the CPU backend, whose frames complete during the render
	 * call (the frame-pipeline tests are about Vulkan's frames in
	 * flight); suites run with the CPU backend set the variable. */
	bool backend_given = false;
	for (size_t i = 0; options->extra_args != NULL &&
			options->extra_args[i] != NULL && argc + 1 < 64;
			i++) {
		argv[argc++] = options->extra_args[i];
		backend_given = backend_given ||
				strcmp(options->extra_args[i], "--render-backend") == 0;
	}
	const char *render_backend = getenv("VITRAIL_TEST_RENDER_BACKEND");
	if (!backend_given && argc + 2 < 64) {
		argv[argc++] = "--render-backend";
		argv[argc++] = render_backend != NULL ? render_backend : "vulkan";
	}
	argv[argc] = NULL;

	char *parent_env = NULL, *lsan_env = NULL;
	const char *env[4 + 16] = { "WAYLAND_SOCKET", NULL, NULL, NULL };
	if (options->wayland_parent != NULL) {
		parent_env = xasprintf("WAYLAND_DISPLAY=%s",
				options->wayland_parent->socket);
		env[1] = parent_env;
		env[2] = "DISPLAY";
		/* wlroots 0.15's wayland backend leaks (tests/lsan-nested.supp) */
		const char *lsan = getenv("LSAN_OPTIONS");
		const char *supp = lsan != NULL ? strstr(lsan, "lsan.supp") : NULL;
		if (supp != NULL) {
			lsan_env = xasprintf("LSAN_OPTIONS=%.*slsan-nested.supp%s",
					(int)(supp - lsan), lsan, supp + strlen("lsan.supp"));
			env[3] = lsan_env;
		}
	} else if (options->x11_parent != NULL) {
		parent_env = xasprintf("DISPLAY=%s", options->x11_parent->display);
		env[1] = parent_env;
		env[2] = "WAYLAND_DISPLAY";
	} else {
		env[1] = "WAYLAND_DISPLAY";
		env[2] = "DISPLAY";
	}
	for (size_t i = 0, n = lsan_env != NULL ? 4 : 3;
			options->env != NULL && options->env[i] != NULL && n + 1 < 4 + 16;
			i++) {
		env[n++] = options->env[i];
	}
	char name[32];
	snprintf(name, sizeof(name), "vitrail-%d", harness->nsockets);
	vitrail->proc = harness_spawn(harness, name, argv, env, fds[1]);
	free(parent_env);
	free(lsan_env);
	close(fds[1]);

	char line[256];
	bool got_line = read_line(fds[0], line, sizeof(line),
			HARNESS_START_TIMEOUT_MS, vitrail->proc, "readiness on --ready-fd");
	if (!got_line) {
		close(fds[0]);
		fail_not_ready(vitrail->proc, "WAYLAND_DISPLAY=<name>", line);
	}
	char *expected = xasprintf("WAYLAND_DISPLAY=%s", vitrail->socket);
	ck_assert_msg(strcmp(line, expected) == 0,
			"vitrail reported '%s' on "
			"--ready-fd; expected '%s'",
			line, expected);
	free(expected);
	/* with Xwayland, a second line (written with the first); vitrail
	 * closes the fd after it */
	if (read_line(fds[0], line, sizeof(line), HARNESS_START_TIMEOUT_MS,
				vitrail->proc, "the end of --ready-fd") &&
			strncmp(line, "DISPLAY=", strlen("DISPLAY=")) == 0) {
		vitrail->x_display = xasprintf("%s", line + strlen("DISPLAY="));
	}
	close(fds[0]);

	wl_list_insert(&harness->vitrails, &vitrail->link);
	vitrail->conn = conn_create(vitrail);
	return vitrail;
}

void harness_stop_vitrail(struct harness *harness,
		struct harness_vitrail *vitrail) {
	conn_destroy(vitrail->conn);
	vitrail->conn = NULL;
	harness_assert_alive(vitrail->proc);
	harness_proc_signal(vitrail->proc, SIGTERM);
	bool exited = harness_proc_wait(vitrail->proc, HARNESS_STOP_TIMEOUT_MS);
	if (!exited) {
		harness_proc_stop(vitrail->proc);
	}
	char how[128];
	describe_status(vitrail->proc->status, how, sizeof(how));
	if (!exited || !WIFEXITED(vitrail->proc->status) ||
			WEXITSTATUS(vitrail->proc->status) != 0) {
		char *tail = proc_log_tail(vitrail->proc);
		ck_abort_msg("%s did not exit cleanly on SIGTERM within %d ms (%s); "
					 "its log %s ends:\n%s",
				vitrail->proc->name, HARNESS_STOP_TIMEOUT_MS,
				exited ? how : "hung", vitrail->proc->log_path, tail);
		free(tail);
	}
}

struct harness_xvfb *harness_start_xvfb(struct harness *harness,
		const char *screen) {
	harness_require_program("Xvfb", "xvfb");
	struct harness_xvfb *xvfb = calloc(1, sizeof(*xvfb));
	ck_assert_msg(xvfb != NULL, "out of memory");
	wl_list_init(&xvfb->link);

	int fds[2];
	ck_assert_msg(pipe2(fds, O_CLOEXEC) == 0, "pipe2: %s", strerror(errno));
	char display_fd[16];
	snprintf(display_fd, sizeof(display_fd), "%d", fds[1]);
	// -displayfd: Xvfb picks a free display number itself (no race with
	// tests running in parallel) and writes it once it accepts clients.
	const char *argv[] = { "Xvfb", "-displayfd", display_fd, "-screen", "0",
		screen, "-nolisten", "tcp", "-noreset", NULL };
	const char *env[] = { "DISPLAY", "WAYLAND_DISPLAY", NULL };
	xvfb->proc = harness_spawn(harness, "Xvfb", argv, env, fds[1]);
	close(fds[1]);

	char line[64];
	bool got_line = read_line(fds[0], line, sizeof(line),
			HARNESS_START_TIMEOUT_MS, xvfb->proc, "its display number");
	close(fds[0]);
	char *end = NULL;
	long number = got_line ? strtol(line, &end, 10) : -1;
	if (!got_line || end == line || number < 0) {
		fail_not_ready(xvfb->proc, "a display number", line);
	}
	xvfb->display = xasprintf(":%ld", number);
	char *socket = xasprintf("/tmp/.X11-unix/X%ld", number);
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_START_TIMEOUT_MS);
	while (access(socket, F_OK) != 0) {
		harness_assert_alive(xvfb->proc);
		ck_assert_msg(harness_now_ms() < deadline,
				"Xvfb reported display %s but "
				"%s did not appear",
				xvfb->display, socket);
		harness_sleep_ms(20);
	}
	free(socket);
	wl_list_insert(&harness->xvfbs, &xvfb->link);
	return xvfb;
}

/* ---- screenshots -------------------------------------------------------- */

/* Outputs are opaque: compare colour only (a screenshot's alpha is
 * whatever the capture format carries). */
static void make_opaque(uint8_t *pixels, int32_t width, int32_t height) {
	size_t n = (size_t)width * (size_t)height;
	for (size_t i = 0; i < n; i++) {
		pixels[4 * i + 3] = 0xff;
	}
}

/* grim, once more if it fails: rarely (2 runs in about 30 of the whole
 * suite, under load) its wl_display_dispatch returns -1 before the frame
 * is ready with no protocol error on either side; not understood yet. */
int harness_grim(struct harness *harness, struct harness_vitrail *vitrail,
		const char *output, const char *path) {
	const char *argv[] = { "grim", "-o", output, path, NULL };
	int status = harness_run_client(harness, vitrail, argv,
			HARNESS_WAIT_TIMEOUT_MS, NULL);
	if (status != 0) {
		fprintf(stderr, "grim -o %s failed with status %d: once more\n", output,
				status);
		status = harness_run_client(harness, vitrail, argv,
				HARNESS_WAIT_TIMEOUT_MS, NULL);
	}
	return status;
}

uint32_t *harness_screenshot(struct harness *harness,
		struct harness_vitrail *vitrail, const char *output,
		const char *geometry, const char *name, int32_t *w, int32_t *h) {
	char *path = NULL;
	ck_assert(asprintf(&path, "%s/%s.png", harness->out_dir, name) > 0);
	harness_settle(vitrail->conn);
	int status;
	if (geometry != NULL) {
		const char *argv[] = { "grim", "-g", geometry, path, NULL };
		status = harness_run_client(harness, vitrail, argv,
				HARNESS_WAIT_TIMEOUT_MS, NULL);
	} else {
		status = harness_grim(harness, vitrail, output, path);
	}
	ck_assert_msg(status == 0, "grim failed with status %d", status);
	uint32_t *pixels = vr_png_read(path, w, h);
	ck_assert_msg(pixels != NULL, "cannot read %s", path);
	free(path);
	return pixels;
}

/* Red where the pixels differ by more than tolerance, a dim grey copy of
 * the screenshot elsewhere. */
static bool write_diff(const char *path, const uint8_t *a, const uint8_t *b,
		int32_t width, int32_t height, int tolerance) {
	size_t n = (size_t)width * (size_t)height;
	uint8_t *diff = malloc(n * 4);
	if (diff == NULL) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		int max = 0;
		for (int c = 0; c < 4; c++) {
			int d = abs((int)a[4 * i + c] - (int)b[4 * i + c]);
			max = d > max ? d : max;
		}
		if (max > tolerance) {
			diff[4 * i + 0] = 0;
			diff[4 * i + 1] = 0;
			diff[4 * i + 2] = 0xff;
		} else {
			int grey = (a[4 * i + 0] + a[4 * i + 1] + a[4 * i + 2]) / 12;
			diff[4 * i + 0] = diff[4 * i + 1] = diff[4 * i + 2] = (uint8_t)grey;
		}
		diff[4 * i + 3] = 0xff;
	}
	bool ok = vr_png_write(path, diff, width, height, width * 4, true);
	free(diff);
	return ok;
}

/* The stored image's path: $VITRAIL_REFERENCES/<stored>.png. */
static char *stored_path(const char *stored) {
	const char *dir = getenv("VITRAIL_REFERENCES");
	ck_assert_msg(dir != NULL && dir[0] != '\0',
			"VITRAIL_REFERENCES is not "
			"set: the folder of the stored reference images");
	return xasprintf("%s/%s.png", dir, stored);
}

static bool copy_file(const char *from, const char *to) {
	FILE *in = fopen(from, "rb");
	FILE *out = in != NULL ? fopen(to, "wb") : NULL;
	bool ok = out != NULL;
	char buf[65536];
	size_t n;
	while (ok && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
		ok = fwrite(buf, 1, n, out) == n;
	}
	ok = ok && !ferror(in);
	if (out != NULL && fclose(out) != 0) {
		ok = false;
	}
	if (in != NULL) {
		fclose(in);
	}
	return ok;
}

/* The screenshot against the image stored in the source tree: written by
 * an earlier vitrail, looked at by a person, and changed only on purpose
 * (VITRAIL_UPDATE_REFERENCES=1), so a change to code that both the engine
 * and vitrail's own reference renderer share cannot move both sides. */
static void check_stored(struct harness *harness, const char *output,
		const char *shot, const uint8_t *shot_px, int32_t shot_w,
		int32_t shot_h, const char *stored, int tolerance) {
	char *path = stored_path(stored);
	const char *update = getenv("VITRAIL_UPDATE_REFERENCES");
	if (update != NULL && strcmp(update, "1") == 0) {
		ck_assert_msg(copy_file(shot, path), "cannot write %s: %s", path,
				strerror(errno));
		fprintf(stderr, "%s: stored %s as the reference %s\n", output, shot,
				path);
		free(path);
		return;
	}
	int32_t w = 0, h = 0;
	uint8_t *px = vr_png_read(path, &w, &h);
	ck_assert_msg(px != NULL,
			"cannot read the stored reference %s (write "
			"it with VITRAIL_UPDATE_REFERENCES=1, see tests/data/references/"
			"README)",
			path);
	ck_assert_msg(w == shot_w && h == shot_h,
			"%s: the screenshot %s is "
			"%dx%d but the stored reference %s is %dx%d",
			output, shot, shot_w, shot_h, path, w, h);
	make_opaque(px, w, h);
	int max_diff = 0;
	size_t bad = vr_pixels_compare(shot_px, shot_w * 4, px, w * 4, w, h,
			tolerance, &max_diff);
	if (bad > 0) {
		char *diff = xasprintf("%s/%02d-%s-stored-diff.png", harness->out_dir,
				harness->nchecks, output);
		bool wrote = write_diff(diff, shot_px, px, w, h, tolerance);
		ck_abort_msg("%s: %zu of %d pixels differ from the stored reference "
					 "by more than %d (largest difference %d); screenshot %s, "
					 "stored reference %s, diff %s%s",
				output, bad, w * h, tolerance, max_diff, shot, path, diff,
				wrote ? "" : " (could not write)");
	}
	free(px);
	free(path);
}

void harness_check_output(struct harness_conn *conn, const char *output,
		int tolerance) {
	harness_check_output_stored(conn, output, tolerance, NULL, 0);
}

void harness_check_output_stored(struct harness_conn *conn, const char *output,
		int tolerance, const char *stored, int stored_tolerance) {
	struct harness *harness = current;
	ck_assert_msg(harness != NULL, "harness_check_output without a harness");
	harness_require_program("grim", "grim");
	harness->nchecks++;
	char *shot = xasprintf("%s/%02d-%s-screenshot.png", harness->out_dir,
			harness->nchecks, output);
	char *ref = xasprintf("%s/%02d-%s-reference.png", harness->out_dir,
			harness->nchecks, output);
	char *diff = xasprintf("%s/%02d-%s-diff.png", harness->out_dir,
			harness->nchecks, output);

	harness_hold_frames(conn, true);
	uint32_t gen_before = 0, gen_ref = 0, gen_after = 0;
	int attempt;
	for (attempt = 1; attempt <= CHECK_ATTEMPTS; attempt++) {
		gen_before = harness_settle(conn);
		int status = harness_grim(harness, conn->vitrail, output, shot);
		ck_assert_msg(status == 0,
				"grim -o %s failed with status %d "
				"(see its log in %s)",
				output, status, harness->out_dir);
		gen_ref = harness_write_reference(conn, output, ref);
		ck_assert_msg(gen_ref != 0,
				"vitrail could not write the reference "
				"image of %s to %s",
				output, ref);
		gen_after = harness_settle(conn);
		if (gen_before == gen_ref && gen_ref == gen_after) {
			break;
		}
	}
	ck_assert_msg(attempt <= CHECK_ATTEMPTS,
			"the render tree kept changing "
			"while frames were held: %d attempts to screenshot %s, last "
			"generations %u (settle) / %u (reference) / %u (settle after)",
			CHECK_ATTEMPTS, output, gen_before, gen_ref, gen_after);

	int32_t shot_w = 0, shot_h = 0, ref_w = 0, ref_h = 0;
	uint8_t *shot_px = vr_png_read(shot, &shot_w, &shot_h);
	ck_assert_msg(shot_px != NULL, "cannot read the screenshot %s", shot);
	uint8_t *ref_px = vr_png_read(ref, &ref_w, &ref_h);
	ck_assert_msg(ref_px != NULL, "cannot read the reference %s", ref);
	ck_assert_msg(shot_w == ref_w && shot_h == ref_h,
			"%s: the screenshot "
			"%s is %dx%d but the reference %s is %dx%d",
			output, shot, shot_w, shot_h, ref, ref_w, ref_h);
	make_opaque(shot_px, shot_w, shot_h);
	make_opaque(ref_px, ref_w, ref_h);
	int max_diff = 0;
	size_t bad = vr_pixels_compare(shot_px, shot_w * 4, ref_px, ref_w * 4,
			shot_w, shot_h, tolerance, &max_diff);
	if (bad > 0) {
		bool wrote =
				write_diff(diff, shot_px, ref_px, shot_w, shot_h, tolerance);
		ck_abort_msg(
				"%s (generation %u): %zu of %d pixels differ by more "
				"than %d (largest difference %d); screenshot %s, reference %s, "
				"diff %s%s",
				output, gen_ref, bad, shot_w * shot_h, tolerance, max_diff,
				shot, ref, diff, wrote ? "" : " (could not write)");
	}
	if (stored != NULL) {
		check_stored(harness, output, shot, shot_px, shot_w, shot_h, stored,
				stored_tolerance);
	}
	free(shot_px);
	free(ref_px);
	harness_hold_frames(conn, false);
	free(shot);
	free(ref);
	free(diff);
}

/* ---- runner ------------------------------------------------------------- */

static void teardown(void) {
	// Reached only when the test process survives a failure (CK_FORK=no).
	harness_destroy(harness_current());
}

void harness_add_case(Suite *suite, const char *name, const TTest *test,
		double timeout) {
	TCase *tcase = tcase_create(name);
	tcase_add_checked_fixture(tcase, NULL, teardown);
	tcase_set_timeout(tcase, timeout * timeout_factor());
	tcase_add_test(tcase, test);
	suite_add_tcase(suite, tcase);
}

int harness_run_suite(Suite *suite, int argc, char *argv[]) {
	SRunner *runner = srunner_create(suite);
	if (argc > 2) {
		fprintf(stderr, "usage: %s [tcase]\n", argv[0]);
		srunner_free(runner);
		return EXIT_FAILURE;
	}
	// NULL: CK_RUN_CASE picks the case when set, else all run.
	srunner_run(runner, NULL, argc > 1 ? argv[1] : NULL, CK_NORMAL);
	int run = srunner_ntests_run(runner);
	TestResult **results = srunner_results(runner);
	for (int i = 0; i < run; i++) {
		harness_after_test(tr_tcname(results[i]),
				tr_rtype(results[i]) != CK_PASS);
	}
	free(results);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	if (run == 0) {
		fprintf(stderr, "no test case ran (unknown case name?)\n");
		return EXIT_FAILURE;
	}
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
