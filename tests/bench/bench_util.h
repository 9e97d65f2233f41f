/*
 * What the pacing, D-VSync and latency benchmarks share: a growable array
 * of samples with its statistics, formatting, files (CSV files through
 * tests/csv.h), starting and stopping vitrail and other processes, and
 * small helpers.
 */
#ifndef VITRAIL_TESTS_BENCH_UTIL_H
#define VITRAIL_TESTS_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "csv.h" // CSV files by column name (tests/csv.h)

/* A growable array of doubles. */
struct bench_values {
	double *v;
	size_t len, cap;
};

void bench_values_add(struct bench_values *values, double v);
void bench_values_finish(struct bench_values *values);
/* NAN when empty. */
double bench_values_mean(const struct bench_values *values);
double bench_values_median(struct bench_values *values);
/* Nearest rank (sorts the values). */
double bench_values_rank(struct bench_values *values, int percent);

/* A figure, or "n/a" (NAN, infinities); in one of 32 rotating buffers. */
const char *bench_fmt(double v, int decimals);
/* asprintf that aborts on failure. */
char *bench_asprintf(const char *fmt, ...)
		__attribute__((format(printf, 1, 2)));
/* Sleep ms, across signals. */
void bench_sleep_ms(int ms);
/* CLOCK_MONOTONIC in milliseconds. */
int64_t bench_now_ms(void);

/* The private environment every process a benchmark starts gets:
 * XDG_RUNTIME_DIR, an empty XDG_CONFIG_HOME, VITRAIL_PIPELINE_CACHE=0, no
 * WAYLAND_SOCKET, DISPLAY or VITRAIL_FRAME_LOG. */
struct bench_env {
	const char *runtime_dir, *config_dir;
	const char *vitrail; // the compositor (bench_vitrail_start_setup)
};

/* Spawn argv (argv[0] a path) in a process group of its own that dies
 * with the benchmark, with stdout and stderr in log_path, the private
 * environment and WAYLAND_DISPLAY=display (NULL: unset); keep_fd is
 * inherited (-1: none). Returns the pid, -1 on failure. */
pid_t bench_spawn(const struct bench_env *env, const char *const argv[],
		const char *display, const char *log_path, int keep_fd);
/* Reap without blocking: true once pid exited (*status set). */
bool bench_reaped(pid_t pid, int *status);
/* SIGTERM, wait up to timeout_ms, then SIGKILL its group; returns the
 * wait status, -1 when it had to be killed. */
int bench_stop(pid_t pid, int timeout_ms);

/* A vitrail started with --ready-fd: its pid and socket. */
struct bench_vitrail {
	pid_t pid;
	char socket[128];
};

/* Start vitrail (argv[0..argc-1], with room for three more: --ready-fd
 * is appended) and wait up to timeout_ms for its WAYLAND_DISPLAY line. */
bool bench_vitrail_start(const struct bench_env *env,
		struct bench_vitrail *vitrail, const char **argv, int argc,
		const char *display, const char *log_path, int timeout_ms);
/* SIGTERM, wait, SIGKILL; true when it exited with status 0. */
bool bench_vitrail_stop(struct bench_vitrail *vitrail);

/* The benchmarks' vitrail: one output of size ("WxH"), headless at hz,
 * or nested (--backend wayland) in a parent vitrail, headless at hz with
 * one 800x600 output (parent_log), plus extra arguments (at most 16,
 * NULL-terminated); each waited for up to timeout_ms. parent's pid is -1
 * unless nested. */
bool bench_vitrail_start_setup(const struct bench_env *env, bool nested,
		double hz, const char *size, const char *const *extra,
		const char *log_path, const char *parent_log_path, int timeout_ms,
		struct bench_vitrail *parent, struct bench_vitrail *vitrail);

/*
 * Every pacing benchmark runs on both engines: bench_engines_main, first
 * in main, runs the benchmark again for --engine cpu, then --engine vulkan
 * (its reports in <out>/cpu and <out>/vulkan), echoes their output with
 * the engine as a prefix, and ends with their baseline: and summary:
 * lines merged: the keys of the engine vitrail picks here under auto
 * (bench_default_engine: Vulkan on a hardware device, else the faster on
 * vr_backends_measure's UI frame, the compositor's own rule), then every
 * key again with _cpu and with _vulkan. Returns the exit status to end
 * with, or -1 when argv named --engine (removed from argv; bench_engine
 * is set and every vitrail the benchmark starts gets --render-backend).
 */
/* CPU time of every thread of pid, ns (each thread's schedstat). */
uint64_t bench_process_cpu_ns(pid_t pid);

extern const char *bench_engine;
int bench_engines_main(int *argc, char *argv[]);
const char *bench_default_engine(void);

#endif
