/* See bench_util.h. */
#define _GNU_SOURCE // vasprintf, pipe2, program_invocation_short_name
#include "bench_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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

void bench_values_add(struct bench_values *values, double v) {
	if (values->len == values->cap) {
		size_t cap = values->cap ? values->cap * 2 : 256;
		double *bigger = realloc(values->v, cap * sizeof(double));
		if (bigger == NULL) {
			abort();
		}
		values->v = bigger;
		values->cap = cap;
	}
	values->v[values->len++] = v;
}

void bench_values_finish(struct bench_values *values) {
	free(values->v);
	*values = (struct bench_values){ 0 };
}

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double bench_values_mean(const struct bench_values *values) {
	if (values->len == 0) {
		return NAN;
	}
	double sum = 0;
	for (size_t i = 0; i < values->len; i++) {
		sum += values->v[i];
	}
	return sum / (double)values->len;
}

double bench_values_median(struct bench_values *values) {
	if (values->len == 0) {
		return NAN;
	}
	qsort(values->v, values->len, sizeof(double), cmp_double);
	size_t n = values->len;
	return n % 2 ? values->v[n / 2] :
				   (values->v[n / 2 - 1] + values->v[n / 2]) / 2;
}

double bench_values_rank(struct bench_values *values, int percent) {
	if (values->len == 0) {
		return NAN;
	}
	qsort(values->v, values->len, sizeof(double), cmp_double);
	size_t rank = ((size_t)percent * values->len + 99) / 100;
	return values->v[rank > 0 ? rank - 1 : 0];
}

const char *bench_fmt(double v, int decimals) {
	static char bufs[32][32];
	static int next;
	char *buf = bufs[next++ % 32];
	if (isnan(v) || isinf(v)) {
		snprintf(buf, 32, "n/a");
	} else {
		snprintf(buf, 32, "%.*f", decimals, v);
	}
	return buf;
}

char *bench_asprintf(const char *fmt, ...) {
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

void bench_sleep_ms(int ms) {
	struct timespec ts = { .tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
		// the rest of the time
	}
}

int64_t bench_now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- processes ------------------------------------------------------------
 */

pid_t bench_spawn(const struct bench_env *env, const char *const argv[],
		const char *display, const char *log_path, int keep_fd) {
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", program_invocation_short_name,
				strerror(errno));
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent) {
			_exit(127);
		}
		FILE *log = freopen(log_path, "w", stdout);
		if (log == NULL || dup2(fileno(stdout), STDERR_FILENO) < 0) {
			_exit(127);
		}
		if (keep_fd >= 0) {
			fcntl(keep_fd, F_SETFD, 0);
		}
		setenv("XDG_RUNTIME_DIR", env->runtime_dir, 1);
		setenv("XDG_CONFIG_HOME", env->config_dir, 1);
		setenv("VITRAIL_PIPELINE_CACHE", "0", 1);
		unsetenv("WAYLAND_SOCKET");
		unsetenv("DISPLAY");
		unsetenv("VITRAIL_FRAME_LOG");
		if (display != NULL) {
			setenv("WAYLAND_DISPLAY", display, 1);
		} else {
			unsetenv("WAYLAND_DISPLAY");
		}
		execv(argv[0], (char *const *)argv);
		fprintf(stderr, "%s: cannot run %s: %s\n",
				program_invocation_short_name, argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); // also here: no race with the child's own call
	return pid;
}

bool bench_reaped(pid_t pid, int *status) {
	return pid > 0 && waitpid(pid, status, WNOHANG) == pid;
}

int bench_stop(pid_t pid, int timeout_ms) {
	if (pid <= 0) {
		return -1;
	}
	kill(pid, SIGTERM);
	int status = 0;
	pid_t got = 0;
	for (int waited = 0;
			(got = waitpid(pid, &status, WNOHANG)) == 0 && waited < timeout_ms;
			waited += 20) {
		bench_sleep_ms(20);
	}
	if (got == 0) {
		fprintf(stderr, "%s: process %d ignored SIGTERM: killed\n",
				program_invocation_short_name, (int)pid);
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	return status;
}

bool bench_vitrail_start(const struct bench_env *env,
		struct bench_vitrail *vitrail, const char **argv, int argc,
		const char *display, const char *log_path, int timeout_ms) {
	*vitrail = (struct bench_vitrail){ .pid = -1 };
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0) {
		fprintf(stderr, "%s: pipe: %s\n", program_invocation_short_name,
				strerror(errno));
		return false;
	}
	char fd_arg[16];
	snprintf(fd_arg, sizeof(fd_arg), "%d", fds[1]);
	argv[argc++] = "--ready-fd";
	argv[argc++] = fd_arg;
	if (bench_engine != NULL) {
		argv[argc++] = "--render-backend";
		argv[argc++] = bench_engine;
	}
	argv[argc] = NULL;
	vitrail->pid = bench_spawn(env, argv, display, log_path, fds[1]);
	close(fds[1]);
	char line[128] = "";
	size_t len = 0;
	int64_t deadline = bench_now_ms() + timeout_ms;
	while (vitrail->pid > 0 && len < sizeof(line) - 1 &&
			bench_now_ms() < deadline) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		if (poll(&pfd, 1, 100) <= 0) {
			continue;
		}
		ssize_t n = read(fds[0], line + len, sizeof(line) - 1 - len);
		if (n <= 0) {
			break;
		}
		len += (size_t)n;
		line[len] = '\0';
		if (strchr(line, '\n') != NULL) {
			break;
		}
	}
	close(fds[0]);
	const char *prefix = "WAYLAND_DISPLAY=";
	char *nl = strchr(line, '\n');
	if (nl == NULL || strncmp(line, prefix, strlen(prefix)) != 0) {
		fprintf(stderr, "%s: vitrail did not get ready (see %s)\n",
				program_invocation_short_name, log_path);
		return false;
	}
	*nl = '\0';
	snprintf(vitrail->socket, sizeof(vitrail->socket), "%s",
			line + strlen(prefix));
	return true;
}

bool bench_vitrail_stop(struct bench_vitrail *vitrail) {
	if (vitrail->pid <= 0) {
		return false;
	}
	int status = bench_stop(vitrail->pid, 10000);
	vitrail->pid = -1;
	return status == 0;
}

bool bench_vitrail_start_setup(const struct bench_env *env, bool nested,
		double hz, const char *size, const char *const *extra,
		const char *log_path, const char *parent_log_path, int timeout_ms,
		struct bench_vitrail *parent, struct bench_vitrail *vitrail) {
	*parent = (struct bench_vitrail){ .pid = -1 };
	*vitrail = (struct bench_vitrail){ .pid = -1 };
	char refresh[32];
	snprintf(refresh, sizeof(refresh), "%g", hz);
	const char *argv[32];
	int argc = 0;
	argv[argc++] = env->vitrail;
	argv[argc++] = "--backend";
	argv[argc++] = "headless";
	argv[argc++] = "--outputs";
	argv[argc++] = "1";
	argv[argc++] = "--output-size";
	argv[argc++] = "800x600";
	argv[argc++] = "--refresh";
	argv[argc++] = refresh;
	if (nested &&
			!bench_vitrail_start(env, parent, argv, argc, NULL, parent_log_path,
					timeout_ms)) {
		return false;
	}
	argc = 0;
	argv[argc++] = env->vitrail;
	argv[argc++] = "--backend";
	argv[argc++] = nested ? "wayland" : "headless";
	argv[argc++] = "--outputs";
	argv[argc++] = "1";
	argv[argc++] = "--output-size";
	argv[argc++] = size;
	if (!nested) {
		argv[argc++] = "--refresh";
		argv[argc++] = refresh;
	}
	for (int i = 0; extra != NULL && extra[i] != NULL && i < 16; i++) {
		argv[argc++] = extra[i];
	}
	return bench_vitrail_start(env, vitrail, argv, argc,
			nested ? parent->socket : NULL, log_path, timeout_ms);
}

/* CPU time of every thread of pid, ns (schedstat's first fields). */
uint64_t bench_process_cpu_ns(pid_t pid) {
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *dir = opendir(path);
	if (dir == NULL) {
		return 0;
	}
	uint64_t total = 0;
	struct dirent *e;
	while ((e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.') {
			continue;
		}
		char stat[320];
		snprintf(stat, sizeof(stat), "/proc/%d/task/%s/schedstat", (int)pid,
				e->d_name);
		FILE *f = fopen(stat, "r");
		unsigned long long ns;
		if (f != NULL) {
			if (fscanf(f, "%llu", &ns) == 1) {
				total += ns;
			}
			fclose(f);
		}
	}
	closedir(dir);
	return total;
}

/* ---- both engines ---------------------------------------------------------
 */

const char *bench_engine;

const char *bench_default_engine(void) {
	struct vr_renderer_options opts = { 0 };
	struct vr_renderer *vulkan = vr_renderer_create(&opts);
	const char *engine = vulkan != NULL ? "vulkan" : "cpu";
	if (vulkan != NULL && vr_renderer_is_software(vulkan)) {
		struct vr_cpu_renderer *cpu = vr_cpu_renderer_create(0);
		double vk_ns = 0.0, cpu_ns = 0.0;
		if (cpu != NULL &&
				vr_backends_measure(vulkan, cpu, 1280, 720, 5, &vk_ns,
						&cpu_ns) &&
				cpu_ns < vk_ns) {
			engine = "cpu";
		}
		vr_cpu_renderer_destroy(cpu);
	}
	vr_renderer_destroy(vulkan);
	return engine;
}

/* Run argv (this program again) with its stdout through a pipe: each line
 * echoed with a prefix, and its "baseline:" and "summary:" lines kept. */
static int run_engine_child(char *const argv[], const char *engine,
		char **baseline, char **summary) {
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0) {
		return -1;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		return -1;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(fds[1]);
	FILE *in = fdopen(fds[0], "r");
	char *line = NULL;
	size_t cap = 0;
	while (in != NULL && getline(&line, &cap, in) > 0) {
		printf("[%s] %s", engine, line);
		if (strncmp(line, "baseline: ", 10) == 0) {
			free(*baseline);
			*baseline = strdup(line + 10);
		} else if (strncmp(line, "summary: ", 9) == 0) {
			free(*summary);
			*summary = strdup(line + 9);
		}
	}
	free(line);
	if (in != NULL) {
		fclose(in);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* "k=v k=v\n" with each key suffixed (suffix NULL: as it is). */
static void print_keys(const char *kvs, const char *suffix) {
	if (kvs == NULL) {
		return;
	}
	char *copy = strdup(kvs);
	char *save = NULL;
	for (char *tok = strtok_r(copy, " \n", &save); tok != NULL;
			tok = strtok_r(NULL, " \n", &save)) {
		char *eq = strchr(tok, '=');
		if (eq == NULL) {
			continue;
		}
		*eq = '\0';
		printf(" %s%s=%s", tok, suffix != NULL ? suffix : "", eq + 1);
	}
	free(copy);
}

int bench_engines_main(int *argc, char *argv[]) {
	for (int i = 1; i + 1 < *argc; i++) {
		if (strcmp(argv[i], "--engine") == 0) {
			bench_engine = argv[i + 1];
			if (strcmp(bench_engine, "cpu") != 0 &&
					strcmp(bench_engine, "vulkan") != 0) {
				fprintf(stderr, "%s: --engine cpu or vulkan\n",
						program_invocation_short_name);
				return 2;
			}
			memmove(&argv[i], &argv[i + 2],
					(size_t)(*argc - i - 1) * sizeof(argv[0]));
			*argc -= 2;
			return -1; /* one engine: the benchmark itself */
		}
	}
	const char *engine = bench_default_engine();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("%s: both engines, one after the other (vitrail's default "
		   "here: %s; its figures are the unsuffixed keys)\n",
			program_invocation_short_name, engine);
	static const char *const engines[] = { "cpu", "vulkan" };
	char *baselines[2] = { NULL, NULL }, *summaries[2] = { NULL, NULL };
	int rc = 0;
	for (int e = 0; e < 2; e++) {
		char **child = calloc((size_t)*argc + 3, sizeof(*child));
		char *out = NULL;
		int n = 0;
		for (int i = 0; i < *argc; i++) {
			child[n++] = argv[i];
			if (strcmp(argv[i], "--out") == 0 && i + 1 < *argc) {
				/* each engine's reports in a folder of their own */
				out = bench_asprintf("%s/%s", argv[i + 1], engines[e]);
				mkdir(argv[i + 1], 0755);
				mkdir(out, 0755);
				child[n++] = out;
				i++;
			}
		}
		child[n++] = "--engine";
		child[n++] = (char *)engines[e];
		child[n] = NULL;
		int status = run_engine_child(child, engines[e], &baselines[e],
				&summaries[e]);
		rc = rc != 0 ? rc : status;
		free(out);
		free(child);
	}
	int def = strcmp(engine, "cpu") == 0 ? 0 : 1;
	const char *prefixes[] = { "baseline:", "summary:" };
	char **lines[] = { baselines, summaries };
	for (int p = 0; p < 2; p++) {
		if (lines[p][0] == NULL && lines[p][1] == NULL) {
			continue;
		}
		printf("%s", prefixes[p]);
		print_keys(lines[p][def], NULL);
		print_keys(lines[p][0], "_cpu");
		print_keys(lines[p][1], "_vulkan");
		printf(" default_engine=%s\n", engine);
		free(lines[p][0]);
		free(lines[p][1]);
	}
	return rc;
}
