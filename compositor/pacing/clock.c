/*
 * The frame clock: see clock.h.
 *
 * Calibration rules, in the order they are tried on each present event:
 * 1. a reported refresh that differs from the model's by more than 0.5%
 *    is a rate change: adopt it and re-phase at the event;
 * 2. a residual (event minus the nearest predicted vblank) beyond a
 *    quarter period is a phase jump (a mode set, a nested parent that
 *    re-phased): re-phase at the event;
 * 3. otherwise the residual is jitter: move the grid a quarter of it
 *    towards the event, so one noisy timestamp moves predictions little
 *    and a steady offset is absorbed within a few frames;
 * 4. without a reported refresh, the period is the least-squares slope of
 *    the last VT_CLOCK_SAMPLES presents against their vblank numbers (a
 *    missed vblank is a gap of two, not a slower clock).
 */
#include "pacing/clock.h"

#include <string.h>

static int64_t floor_div(int64_t a, int64_t b) {
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0))) {
		q--;
	}
	return q;
}

void vt_clock_init(struct vt_clock *clock, uint64_t period_ns,
		uint64_t phase_ns) {
	memset(clock, 0, sizeof(*clock));
	clock->period_ns = period_ns > 0 ? period_ns : 16666667;
	clock->phase_ns = phase_ns;
}

uint64_t vt_clock_period(const struct vt_clock *clock) {
	return clock->period_ns;
}

uint64_t vt_clock_next_vblank(const struct vt_clock *clock, uint64_t t) {
	int64_t period = (int64_t)clock->period_ns;
	int64_t k = floor_div((int64_t)(t - clock->phase_ns), period) + 1;
	return clock->phase_ns + (uint64_t)(k * period);
}

uint64_t vt_clock_nearest_vblank(const struct vt_clock *clock, uint64_t t) {
	int64_t period = (int64_t)clock->period_ns;
	int64_t k = floor_div((int64_t)(t - clock->phase_ns) + period / 2, period);
	return clock->phase_ns + (uint64_t)(k * period);
}

uint64_t vt_clock_periods(const struct vt_clock *clock, uint64_t a,
		uint64_t b) {
	if (b <= a) {
		return 0;
	}
	return (b - a + clock->period_ns / 2) / clock->period_ns;
}

static void reset_samples(struct vt_clock *clock) {
	clock->nsamples = 0;
	clock->next_sample = 0;
}

static void add_sample(struct vt_clock *clock, uint64_t t) {
	clock->samples[clock->next_sample] = t;
	clock->next_sample = (clock->next_sample + 1) % VT_CLOCK_SAMPLES;
	if (clock->nsamples < VT_CLOCK_SAMPLES) {
		clock->nsamples++;
	}
}

/* Rule 4: the slope of present times against vblank numbers. */
static void fit_period(struct vt_clock *clock) {
	int n = clock->nsamples;
	if (n < 4) {
		return;
	}
	int first = (clock->next_sample - n + VT_CLOCK_SAMPLES) % VT_CLOCK_SAMPLES;
	uint64_t t0 = clock->samples[first];
	double period = (double)clock->period_ns;
	double k[VT_CLOCK_SAMPLES], t[VT_CLOCK_SAMPLES];
	double kbar = 0, tbar = 0;
	for (int i = 0; i < n; i++) {
		uint64_t ti = clock->samples[(first + i) % VT_CLOCK_SAMPLES];
		t[i] = (double)(int64_t)(ti - t0);
		k[i] = (double)(int64_t)((t[i] + period / 2) / period);
		kbar += k[i];
		tbar += t[i];
	}
	kbar /= n;
	tbar /= n;
	double num = 0, den = 0;
	for (int i = 0; i < n; i++) {
		num += (k[i] - kbar) * (t[i] - tbar);
		den += (k[i] - kbar) * (k[i] - kbar);
	}
	if (den <= 0) {
		return;
	}
	double slope = num / den;
	if (slope > period * 0.95 && slope < period * 1.05) {
		clock->period_ns = (uint64_t)(slope + 0.5);
	}
}

void vt_clock_set_period(struct vt_clock *clock, uint64_t period_ns,
		uint64_t phase_ns) {
	if (period_ns == 0) {
		return;
	}
	clock->period_ns = period_ns;
	clock->phase_ns = phase_ns;
	reset_samples(clock);
}

void vt_clock_present(struct vt_clock *clock, uint64_t presented_ns,
		uint64_t refresh_ns) {
	uint64_t period = clock->period_ns;
	if (refresh_ns > 0) {
		uint64_t diff =
				refresh_ns > period ? refresh_ns - period : period - refresh_ns;
		if (!clock->period_known || diff * 200 > period) {
			/* rule 1 */
			clock->period_known = true;
			clock->calibrated = true;
			vt_clock_set_period(clock, refresh_ns, presented_ns);
			add_sample(clock, presented_ns);
			return;
		}
	}
	if (!clock->calibrated) {
		clock->calibrated = true;
		clock->phase_ns = presented_ns;
		add_sample(clock, presented_ns);
		return;
	}
	uint64_t nearest = vt_clock_nearest_vblank(clock, presented_ns);
	int64_t residual = (int64_t)(presented_ns - nearest);
	int64_t limit = (int64_t)period / 4;
	if (residual > limit || residual < -limit) {
		/* rule 2 */
		clock->phase_ns = presented_ns;
		clock->rephases++;
		reset_samples(clock);
		add_sample(clock, presented_ns);
		return;
	}
	/* rule 3 */
	clock->phase_ns = nearest + (uint64_t)(residual / 4);
	add_sample(clock, presented_ns);
	if (!clock->period_known) {
		fit_period(clock); /* rule 4 */
	}
}
