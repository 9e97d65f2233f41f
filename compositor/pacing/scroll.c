/*
 * Scroll-aware rendering's policy: see scroll.h.
 */
#include "pacing/scroll.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int32_t min_i32(int32_t a, int32_t b) {
	return a < b ? a : b;
}

static int32_t max_i32(int32_t a, int32_t b) {
	return a > b ? a : b;
}

/* The window's extent: the region, or the content when shorter. */
static int32_t window_extent(const struct vt_scroll_span *span) {
	return max_i32(0, min_i32(span->region, span->content));
}

int32_t vt_scroll_max(const struct vt_scroll_span *span) {
	return max_i32(0, span->content - span->region);
}

double vt_scroll_clamp(const struct vt_scroll_span *span, double pos) {
	double max = vt_scroll_max(span);
	if (!(pos > 0.0)) { /* NaN too */
		return 0.0;
	}
	return pos < max ? pos : max;
}

enum vt_scroll_fit vt_scroll_fit(const struct vt_scroll_span *span, double pos,
		int32_t *shown, int32_t *overflow) {
	int32_t p = (int32_t)floor(vt_scroll_clamp(span, pos) + 0.5);
	int32_t w = window_extent(span);
	/* the positions whose window the frame holds: [first, last] */
	int32_t first = span->offset;
	int32_t last = span->offset + span->extent - w;
	enum vt_scroll_fit fit = VT_SCROLL_REUSE;
	int32_t at = p, missing = 0;
	if (last < first) {
		/* a frame shorter than the window: it shows its start */
		fit = p < first ? VT_SCROLL_OVERFLOW_BEFORE : VT_SCROLL_OVERFLOW_AFTER;
		at = first;
		missing = p < first ? first - p : p + w - (span->offset + span->extent);
	} else if (p < first) {
		fit = VT_SCROLL_OVERFLOW_BEFORE;
		at = first;
		missing = first - p;
	} else if (p > last) {
		fit = VT_SCROLL_OVERFLOW_AFTER;
		at = last;
		missing = p - last;
	}
	if (shown != NULL) {
		*shown = at;
	}
	if (overflow != NULL) {
		*overflow = missing;
	}
	return fit;
}

bool vt_scroll_decide(const struct vt_scroll_span span[2],
		const bool scrolls[2], const double pos[2], int32_t shown[2],
		uint32_t *overflow_mask) {
	uint32_t mask = 0;
	for (int i = 0; i < 2; i++) {
		if (!scrolls[i]) {
			shown[i] = span[i].offset;
			continue;
		}
		enum vt_scroll_fit fit =
				vt_scroll_fit(&span[i], pos[i], &shown[i], NULL);
		if (fit == VT_SCROLL_OVERFLOW_BEFORE) {
			mask |= 1u << (2 * i);
		} else if (fit == VT_SCROLL_OVERFLOW_AFTER) {
			mask |= 1u << (2 * i + 1);
		}
	}
	if (overflow_mask != NULL) {
		*overflow_mask = mask;
	}
	return mask == 0;
}

/* ---- velocity ----------------------------------------------------------- */

void vt_scroll_velocity_reset(struct vt_scroll_velocity *velocity) {
	memset(velocity, 0, sizeof(*velocity));
}

void vt_scroll_velocity_add(struct vt_scroll_velocity *velocity, uint64_t now,
		uint64_t event_ns, double pos) {
	if (velocity->n > 0) {
		int newest = (velocity->next + VT_SCROLL_VELOCITY_SAMPLES - 1) %
				VT_SCROLL_VELOCITY_SAMPLES;
		if (event_ns < velocity->t[newest]) {
			vt_scroll_velocity_reset(velocity);
		}
	}
	/* the least delay so far: an event handled sooner than the anchor
	 * says (its mapped time after now) moves it */
	if (!velocity->anchored || event_ns < velocity->event_anchor ||
			velocity->now_anchor + (event_ns - velocity->event_anchor) > now) {
		velocity->anchored = true;
		velocity->event_anchor = event_ns;
		velocity->now_anchor = now;
	}
	velocity->t[velocity->next] = event_ns;
	velocity->pos[velocity->next] = pos;
	velocity->next = (velocity->next + 1) % VT_SCROLL_VELOCITY_SAMPLES;
	if (velocity->n < VT_SCROLL_VELOCITY_SAMPLES) {
		velocity->n++;
	}
}

uint64_t vt_scroll_velocity_event_clock(
		const struct vt_scroll_velocity *velocity, uint64_t now) {
	if (!velocity->anchored || now < velocity->now_anchor) {
		return now;
	}
	return velocity->event_anchor + (now - velocity->now_anchor);
}

double vt_scroll_velocity_get(const struct vt_scroll_velocity *velocity,
		uint64_t event_now) {
	int newest = (velocity->next + VT_SCROLL_VELOCITY_SAMPLES - 1) %
			VT_SCROLL_VELOCITY_SAMPLES;
	/* times in seconds before the newest sample: well-conditioned sums */
	double t[VT_SCROLL_VELOCITY_SAMPLES], x[VT_SCROLL_VELOCITY_SAMPLES];
	int n = 0;
	for (int i = 0; i < velocity->n; i++) {
		int k = (newest + VT_SCROLL_VELOCITY_SAMPLES - i) %
				VT_SCROLL_VELOCITY_SAMPLES;
		if (velocity->t[k] + VT_SCROLL_VELOCITY_WINDOW_NS < event_now) {
			break;
		}
		t[n] = -(double)(velocity->t[newest] - velocity->t[k]) / 1e9;
		x[n] = velocity->pos[k];
		n++;
	}
	if (n < 2 ||
			(uint64_t)(-t[n - 1] * 1e9 + 0.5) <
					VT_SCROLL_VELOCITY_MIN_SPAN_NS) {
		return 0.0;
	}
	double tm = 0.0, xm = 0.0;
	for (int i = 0; i < n; i++) {
		tm += t[i];
		xm += x[i];
	}
	tm /= n;
	xm /= n;
	double stt = 0.0, stx = 0.0;
	for (int i = 0; i < n; i++) {
		stt += (t[i] - tm) * (t[i] - tm);
		stx += (t[i] - tm) * (x[i] - xm);
	}
	return stt > 1e-12 ? stx / stt : 0.0;
}

/* ---- the client's render time ------------------------------------------- */

void vt_scroll_render_time_add(struct vt_scroll_render_time *rt, uint64_t ns) {
	rt->samples[rt->next] = ns;
	rt->next = (rt->next + 1) % VT_SCROLL_RENDER_SAMPLES;
	if (rt->n < VT_SCROLL_RENDER_SAMPLES) {
		rt->n++;
	}
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

uint64_t vt_scroll_render_time_get(const struct vt_scroll_render_time *rt,
		uint64_t fallback_ns) {
	if (rt->n == 0) {
		return fallback_ns;
	}
	uint64_t sorted[VT_SCROLL_RENDER_SAMPLES];
	memcpy(sorted, rt->samples, (size_t)rt->n * sizeof(sorted[0]));
	qsort(sorted, (size_t)rt->n, sizeof(sorted[0]), cmp_u64);
	uint64_t upper = sorted[(rt->n * 9) / 10];
	return upper + upper / 8;
}

/* ---- frame requests ----------------------------------------------------- */

int32_t vt_scroll_frame_extent(int32_t region, int32_t content, double n,
		bool scrolls) {
	if (region <= 0) {
		return 0;
	}
	int32_t extent = region;
	if (scrolls) {
		if (!(n >= 1.0)) { /* NaN too */
			n = 1.0;
		} else if (n > VT_SCROLL_N_MAX) {
			n = VT_SCROLL_N_MAX;
		}
		extent = (int32_t)floor(n * region + 0.5);
	}
	return min_i32(extent, max_i32(content, 0));
}

bool vt_scroll_need_frame(const struct vt_scroll_span *span,
		double predicted_pos) {
	return vt_scroll_fit(span, predicted_pos, NULL, NULL) != VT_SCROLL_REUSE;
}

double vt_scroll_reverse_margin(double velocity, uint64_t lead_ns,
		int32_t region, int32_t extent) {
	double margin = fabs(velocity) * (double)lead_ns / 1e9 * 1.5 + 8.0;
	double room = extent > region ? (extent - region) / 2.0 : 0.0;
	return margin < room ? margin : room;
}

int32_t vt_scroll_place_frame(int32_t region, int32_t extent, int32_t content,
		double current, double from, double to, double margin) {
	double w = min_i32(region, content);
	double lo = from < to ? from : to, hi = from < to ? to : from;
	double start;
	if (hi - lo + w + 2.0 * margin <= extent) {
		/* the whole path with room on both sides: centred on it */
		start = (lo + hi + w) / 2.0 - extent / 2.0;
	} else if (to > from) {
		start = from - margin;
	} else {
		start = from + w + margin - extent;
	}
	int32_t offset = (int32_t)floor(start + 0.5);
	/* the window now: [p, p + w) inside [offset, offset + extent) */
	int32_t p = (int32_t)floor(current + 0.5);
	offset = min_i32(offset, p);
	offset = max_i32(offset, p + (int32_t)w - extent);
	return max_i32(0, min_i32(offset, content - extent));
}

/* ---- fling -------------------------------------------------------------- */

bool vt_fling_start(struct vt_fling *fling, uint64_t start_ns, double start_pos,
		double v0, double tau, double stop, double lo, double hi) {
	memset(fling, 0, sizeof(*fling));
	if (!(fabs(v0) > stop) || !(tau > 0.0) || (v0 > 0.0 && start_pos >= hi) ||
			(v0 < 0.0 && start_pos <= lo)) {
		return false;
	}
	fling->active = true;
	fling->start_ns = start_ns;
	fling->start_pos = start_pos;
	fling->velocity = v0;
	fling->tau = tau;
	fling->stop = stop;
	fling->lo = lo;
	fling->hi = hi;
	/* where |v| falls to the stop velocity */
	double t_end = tau * log(fabs(v0) / stop);
	double end = start_pos + tau * (v0 - (v0 > 0.0 ? stop : -stop));
	double edge = v0 > 0.0 ? hi : lo;
	if ((v0 > 0.0 && end > hi) || (v0 < 0.0 && end < lo)) {
		/* x(t) = edge: 1 - exp(-t / tau) = (edge - x0) / (v0 tau) */
		t_end = -tau * log(1.0 - (edge - start_pos) / (v0 * tau));
		end = edge;
	}
	fling->end_ns = start_ns + (uint64_t)(t_end * 1e9 + 0.5);
	fling->end_pos = end;
	return true;
}

double vt_fling_position(const struct vt_fling *fling, uint64_t t_ns) {
	if (t_ns <= fling->start_ns) {
		return fling->start_pos;
	}
	if (t_ns >= fling->end_ns) {
		return fling->end_pos;
	}
	double t = (double)(t_ns - fling->start_ns) / 1e9;
	double x = fling->start_pos +
			fling->velocity * fling->tau * (1.0 - exp(-t / fling->tau));
	return x < fling->lo ? fling->lo : x > fling->hi ? fling->hi : x;
}

double vt_fling_velocity(const struct vt_fling *fling, uint64_t t_ns) {
	if (t_ns >= fling->end_ns) {
		return 0.0;
	}
	double t = t_ns > fling->start_ns ? (double)(t_ns - fling->start_ns) / 1e9 :
										0.0;
	return fling->velocity * exp(-t / fling->tau);
}

bool vt_fling_done(const struct vt_fling *fling, uint64_t t_ns) {
	return !fling->active || t_ns >= fling->end_ns;
}
