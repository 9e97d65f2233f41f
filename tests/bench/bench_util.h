/*
 * What the pacing and D-VSync benchmarks share: a growable array of
 * samples with its statistics, formatting, files and small helpers.
 */
#ifndef VITRAIL_TESTS_BENCH_UTIL_H
#define VITRAIL_TESTS_BENCH_UTIL_H

#include <stddef.h>

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
/* The whole file, NUL-terminated (malloc'd), or NULL. */
char *bench_read_file(const char *path);
/* asprintf that aborts on failure. */
char *bench_asprintf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* Sleep ms, across signals. */
void bench_sleep_ms(int ms);

#endif
