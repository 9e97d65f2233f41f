/* See bench_util.h. */
#define _GNU_SOURCE // vasprintf
#include "bench_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

char *bench_read_file(const char *path) {
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		return NULL;
	}
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf != NULL && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (len + 1 == cap) {
			cap *= 2;
			char *bigger = realloc(buf, cap);
			if (bigger == NULL) {
				free(buf);
			}
			buf = bigger;
		}
	}
	fclose(f);
	if (buf != NULL) {
		buf[len] = '\0';
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
