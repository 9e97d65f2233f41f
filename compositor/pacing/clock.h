/*
 * The frame clock of one output: a model of its vblanks (the display time
 * virtualizer's grid). Every vblank is phase + k * period for an integer
 * k; present events calibrate the phase (a low-pass filter takes out
 * jitter, a jump re-phases), the period (the backend's refresh, or a fit
 * over recent presents when it gives none) and notice rate changes.
 *
 * Pure arithmetic on CLOCK_MONOTONIC nanoseconds handed in by the caller:
 * no wlroots, no system clock, so it is tested on a fake clock.
 */
#ifndef VITRAIL_PACING_CLOCK_H
#define VITRAIL_PACING_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define VT_CLOCK_SAMPLES 16

struct vt_clock {
	uint64_t period_ns;
	uint64_t phase_ns; /* one vblank; all others are on its grid */
	bool calibrated; /* the phase comes from a real present event */
	bool period_known; /* the backend reported its refresh */
	/* recent presents, for the period fit when the refresh is unknown */
	uint64_t samples[VT_CLOCK_SAMPLES];
	int nsamples, next_sample;
	uint32_t rephases; /* jumps of the phase (figures, tests) */
};

/* A clock ticking every period_ns with a vblank at phase_ns. */
void vt_clock_init(struct vt_clock *clock, uint64_t period_ns,
		uint64_t phase_ns);
uint64_t vt_clock_period(const struct vt_clock *clock);
/* The first predicted vblank strictly after t. */
uint64_t vt_clock_next_vblank(const struct vt_clock *clock, uint64_t t);
/* The predicted vblank nearest to t. */
uint64_t vt_clock_nearest_vblank(const struct vt_clock *clock, uint64_t t);
/* Whole refresh periods from a to b (b >= a), rounded to the nearest. */
uint64_t vt_clock_periods(const struct vt_clock *clock, uint64_t a, uint64_t b);
/* The refresh rate changes: frames from now on are on the new grid,
 * re-phased at phase_ns. */
void vt_clock_set_period(struct vt_clock *clock, uint64_t period_ns,
		uint64_t phase_ns);
/* A frame was shown at presented_ns; refresh_ns is the backend's refresh
 * period (0: unknown). */
void vt_clock_present(struct vt_clock *clock, uint64_t presented_ns,
		uint64_t refresh_ns);

#endif
