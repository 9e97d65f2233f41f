/*
 * The low-latency path's just-in-time trigger and position-aware
 * rendering decision: see jitt.h.
 */
#include "pacing/jitt.h"

#include <stdlib.h>
#include <string.h>

void vt_jitt_init(struct vt_jitt *jitt) {
	memset(jitt, 0, sizeof(*jitt));
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

uint64_t vt_jitt_app_ns(const struct vt_jitt *jitt, uint64_t period_ns) {
	if (jitt->nsamples == 0) {
		return period_ns / 4;
	}
	/* the upper end: the 90th percentile, plus an eighth */
	uint64_t sorted[VT_JITT_SAMPLES];
	memcpy(sorted, jitt->samples, (size_t)jitt->nsamples * sizeof(sorted[0]));
	qsort(sorted, (size_t)jitt->nsamples, sizeof(sorted[0]), cmp_u64);
	uint64_t upper = sorted[(jitt->nsamples * 9) / 10];
	uint64_t app = upper + upper / 8;
	if (jitt->floor_left > 0 && jitt->floor_ns > app) {
		app = jitt->floor_ns;
	}
	return app;
}

uint64_t vt_jitt_trigger(const struct vt_jitt *jitt,
		const struct vt_clock *clock, uint64_t now, uint64_t out_ns,
		uint64_t earliest_display, uint64_t *target_ns) {
	uint64_t lead = vt_jitt_app_ns(jitt, vt_clock_period(clock)) + out_ns +
			VT_JITT_MARGIN_NS;
	uint64_t from = now + lead;
	if (earliest_display > from) {
		from = earliest_display;
	}
	/* the first refresh at or after `from` */
	uint64_t target = vt_clock_next_vblank(clock, from - 1);
	*target_ns = target;
	return target - lead > now ? target - lead : now;
}

void vt_jitt_sent(struct vt_jitt *jitt, uint64_t now, uint64_t target_ns) {
	jitt->waiting = true;
	jitt->sent_ns = now;
	jitt->target_ns = target_ns;
}

void vt_jitt_commit(struct vt_jitt *jitt, uint64_t now, bool replaced,
		uint64_t shows_at) {
	jitt->commits++;
	if (replaced) {
		jitt->drops++;
		jitt->drop_run++;
		if (jitt->drop_run > jitt->longest_drop_run) {
			jitt->longest_drop_run = jitt->drop_run;
		}
		jitt->replaced_last = true;
	}
	if (!jitt->waiting) {
		jitt->commit_target_ns = 0;
		return; /* not an answer to a callback: nothing to learn */
	}
	jitt->waiting = false;
	uint64_t sample = now - jitt->sent_ns;
	jitt->samples[jitt->next] = sample;
	jitt->next = (jitt->next + 1) % VT_JITT_SAMPLES;
	if (jitt->nsamples < VT_JITT_SAMPLES) {
		jitt->nsamples++;
	}
	if (jitt->floor_left > 0) {
		jitt->floor_left--;
	}
	jitt->commit_target_ns = jitt->target_ns;
	if (shows_at > jitt->target_ns) {
		/* under-predicted: it missed its refresh. Recover: predict at
		 * least this much (and an eighth) for a while. */
		jitt->misses++;
		jitt->floor_ns = sample + sample / 8;
		jitt->floor_left = VT_JITT_SAMPLES;
	}
}

void vt_jitt_shown(struct vt_jitt *jitt) {
	jitt->replaced_last = false;
	jitt->drop_run = 0;
}

bool vt_jitt_may_replace(const struct vt_jitt *jitt, uint64_t shows_at) {
	bool late =
			jitt->commit_target_ns != 0 && shows_at > jitt->commit_target_ns;
	return late && !jitt->replaced_last;
}

uint64_t vt_scanout_row_ns(const struct vt_scanout *scanout, uint64_t vblank_ns,
		int y) {
	if (scanout->height <= 0 || y <= 0) {
		return vblank_ns;
	}
	if (y > scanout->height) {
		y = scanout->height;
	}
	uint64_t active = scanout->period_ns * VT_SCANOUT_ACTIVE_PERMILLE / 1000;
	return vblank_ns + active * (uint64_t)y / (uint64_t)scanout->height;
}

bool vt_par_fits(const struct vt_par_box *damage, int pointer_x, int pointer_y,
		int box_size) {
	if (damage->x2 <= damage->x1 || damage->y2 <= damage->y1 || box_size <= 0) {
		return false;
	}
	int x1 = pointer_x - box_size / 2, y1 = pointer_y - box_size / 2;
	int x2 = x1 + box_size, y2 = y1 + box_size;
	return damage->x1 >= x1 && damage->y1 >= y1 && damage->x2 <= x2 &&
			damage->y2 <= y2;
}

bool vt_par_decide(const struct vt_scanout *scanout, uint64_t vblank_ns,
		uint64_t now, uint64_t write_ns, const struct vt_par_box *damage,
		int pointer_x, int pointer_y, int box_size, uint64_t *shown_ns) {
	if (!vt_par_fits(damage, pointer_x, pointer_y, box_size)) {
		return false; /* changes away from the pointer: no tearing */
	}
	uint64_t shown = vt_scanout_row_ns(scanout, vblank_ns, damage->y1);
	if (now + write_ns > shown) {
		return false; /* the scan would get there first */
	}
	*shown_ns = shown;
	return true;
}
