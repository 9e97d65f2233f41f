/*
 * The pacer: see pacer.h. One pass of the state machine (pacer_run) runs
 * after every entry point:
 *   1. plan a frame when the output has damage and the policy agrees;
 *   2. render it when its render time has come;
 *   3. arm the timer for the next render time or (model clock) the next
 *      vblank that has something to do.
 * A model-clock vblank commits the newest ready frame meant for it (older
 * ready ones are replaced: the latest frame wins), then sends the frame
 * callbacks clients wait for.
 */
#include "pacing/pacer.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Composition-time history for the prediction. */
#define COMPOSITION_SAMPLES 16

enum frame_state {
	FRAME_RENDERING,
	FRAME_READY,
	FRAME_COMMITTED,
};

struct pacer_frame {
	void *handle;
	uint64_t display_ns; /* the D-Timestamp */
	uint64_t render_ns; /* rendering started */
	enum frame_state state;
	uint64_t ready_ns; /* rendering finished (READY and COMMITTED) */
	bool stale; /* input came while it rendered: discard when ready */
	int delay; /* pacer::delay_periods when it was planned */
	bool tear; /* vt_pacer_tear: commit as soon as ready */
};

struct vt_pacer {
	enum vt_pacer_clock_kind kind;
	struct vt_clock clock;
	const struct vt_pacing_policy *policy;
	const struct vt_pacer_impl *impl;
	void *data;

	/* tracked frames, in display-time order */
	struct pacer_frame frames[VT_PACER_FRAMES_MAX];
	int nframes;
	uint32_t wants; /* enum vt_pacer_want */
	bool planned;
	uint64_t plan_display_ns, plan_render_ns;
	uint64_t last_display_ns;
	uint64_t tick_ns; /* model clock: the vblank the timer waits for */
	uint64_t armed_ns; /* what impl->arm was last told */
	bool backend_busy; /* backend clock: a commit waits for its frame */
	bool running; /* inside pacer_run (no re-entry) */

	/* recent compositions (render start -> ready) and how late renders
	 * started after their planned time (a busy main thread) */
	uint64_t composition[COMPOSITION_SAMPLES];
	int ncomposition, next_composition;
	uint64_t lateness[COMPOSITION_SAMPLES];
	int nlateness, next_lateness;
	int max_in_flight;
	uint64_t replaced;
	/* D-VSync */
	int prerender_limit;
	bool predictable;
	uint64_t horizon_ns;
	uint64_t discarded_stale;
	/* a refresh-rate change waiting for the frames queued at the old
	 * rate to be shown (0: none) */
	uint64_t pending_period_ns;
	/* position-aware rendering: torn frames, and those that were ready
	 * too late to go into their refresh */
	uint64_t torn, torn_late;
	/* Refreshes that showed nothing new while a frame was wanted for
	 * them: from the earliest display time still waiting (0: none) to
	 * the presentation that ends the wait, late and discarded frames
	 * alike. Nothing counts before the first frame is shown. */
	uint64_t want_since_ns;
	uint64_t missed;
	bool shown_any;
	/* Backend clock: refreshes between the vblank after a commit and the
	 * one that shows it (a nested output's parent composites our buffer
	 * for its next refresh: one), learned from presentations: the least
	 * of the last DELAY_SAMPLES, each counted from the frame's display
	 * time less the delay it was planned with. Display times include
	 * it, so what frames sample is what shows when they do. */
	int delay_samples[8];
	int ndelay, next_delay;
	int delay_periods;
};

static void pacer_run(struct vt_pacer *pacer, uint64_t now, bool may_commit);

#define DELAY_SAMPLES 8
#define DELAY_MAX 3

static void learn_delay(struct vt_pacer *pacer, uint64_t display_ns,
		int planned_delay, uint64_t presented_ns) {
	uint64_t period = pacer->clock.period_ns;
	if (pacer->kind != VT_PACER_CLOCK_BACKEND || period == 0) {
		return;
	}
	uint64_t base = display_ns - (uint64_t)planned_delay * period;
	int k = presented_ns > base ?
			(int)((presented_ns - base + period / 2) / period) :
			0;
	k = k > DELAY_MAX ? DELAY_MAX : k;
	pacer->delay_samples[pacer->next_delay] = k;
	pacer->next_delay = (pacer->next_delay + 1) % DELAY_SAMPLES;
	if (pacer->ndelay < DELAY_SAMPLES) {
		pacer->ndelay++;
	}
	int least = DELAY_MAX;
	for (int i = 0; i < pacer->ndelay; i++) {
		least = pacer->delay_samples[i] < least ? pacer->delay_samples[i] :
												  least;
	}
	/* from three samples on: a single late frame teaches nothing */
	if (pacer->ndelay >= 3) {
		pacer->delay_periods = least;
	}
}

/* The first vblank at or after t whose refresh a commit made at t can
 * show in (the backend's delay included). */
static uint64_t shown_vblank(const struct vt_pacer *pacer, uint64_t t) {
	return vt_clock_next_vblank(&pacer->clock, t) +
			(uint64_t)pacer->delay_periods * pacer->clock.period_ns;
}

int vt_pacer_delay_periods(const struct vt_pacer *pacer) {
	return pacer->delay_periods;
}
static void apply_period(struct vt_pacer *pacer, uint64_t period_ns,
		uint64_t now);

struct vt_pacer *vt_pacer_create(enum vt_pacer_clock_kind kind,
		uint64_t period_ns, uint64_t now_ns,
		const struct vt_pacing_policy *policy, const struct vt_pacer_impl *impl,
		void *data) {
	struct vt_pacer *pacer = calloc(1, sizeof(*pacer));
	if (pacer == NULL) {
		return NULL;
	}
	pacer->kind = kind;
	vt_clock_init(&pacer->clock, period_ns, now_ns);
	/* the model clock is its own truth: its phase is where it starts */
	pacer->clock.calibrated = kind == VT_PACER_CLOCK_MODEL;
	pacer->clock.period_known = kind == VT_PACER_CLOCK_MODEL;
	pacer->policy = policy;
	pacer->impl = impl;
	pacer->data = data;
	pacer->horizon_ns = UINT64_MAX;
	return pacer;
}

void vt_pacer_destroy(struct vt_pacer *pacer) {
	if (pacer == NULL) {
		return;
	}
	for (int i = 0; i < pacer->nframes; i++) {
		pacer->impl->discard(pacer->data, pacer->frames[i].handle);
	}
	if (pacer->armed_ns != 0) {
		pacer->impl->arm(pacer->data, 0);
	}
	free(pacer);
}

/* ---- frames ------------------------------------------------------------- */

static int find_frame(const struct vt_pacer *pacer, void *handle) {
	for (int i = 0; i < pacer->nframes; i++) {
		if (pacer->frames[i].handle == handle) {
			return i;
		}
	}
	return -1;
}

static void remove_frame(struct vt_pacer *pacer, int index) {
	memmove(&pacer->frames[index], &pacer->frames[index + 1],
			(size_t)(pacer->nframes - index - 1) * sizeof(pacer->frames[0]));
	pacer->nframes--;
}

static int count_state(const struct vt_pacer *pacer, enum frame_state state) {
	int n = 0;
	for (int i = 0; i < pacer->nframes; i++) {
		n += pacer->frames[i].state == state;
	}
	return n;
}

static void add_sample(uint64_t *ring, int *n, int *next, uint64_t ns) {
	ring[*next] = ns;
	*next = (*next + 1) % COMPOSITION_SAMPLES;
	if (*n < COMPOSITION_SAMPLES) {
		(*n)++;
	}
}

static void add_composition(struct vt_pacer *pacer, uint64_t ns) {
	add_sample(pacer->composition, &pacer->ncomposition,
			&pacer->next_composition, ns);
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The 90th percentile of a ring of samples (0: none). */
static uint64_t p90(const uint64_t *ring, int n) {
	if (n == 0) {
		return 0;
	}
	uint64_t sorted[COMPOSITION_SAMPLES];
	memcpy(sorted, ring, (size_t)n * sizeof(sorted[0]));
	qsort(sorted, (size_t)n, sizeof(sorted[0]), cmp_u64);
	return sorted[(n * 9) / 10];
}

uint64_t vt_pacer_composition_ns(const struct vt_pacer *pacer) {
	uint64_t period = pacer->clock.period_ns;
	if (pacer->ncomposition == 0) {
		return period / 2; /* nothing measured yet: be careful */
	}
	/* the upper end (90th percentile) plus a quarter, how late renders
	 * start (90th percentile), and 1 ms for the commit */
	uint64_t composition = p90(pacer->composition, pacer->ncomposition);
	uint64_t estimate = composition + composition / 4 +
			p90(pacer->lateness, pacer->nlateness) + 1000000;
	uint64_t most = 3 * period;
	return estimate < most ? estimate : most;
}

/* ---- commits ------------------------------------------------------------ */

static void commit_frame(struct vt_pacer *pacer, int index, uint64_t vblank) {
	struct pacer_frame *frame = &pacer->frames[index];
	void *handle = frame->handle;
	frame->state = FRAME_COMMITTED;
	pacer->wants &= ~VT_PACER_COMMIT;
	if (pacer->kind == VT_PACER_CLOCK_BACKEND) {
		pacer->backend_busy = true;
	}
	/* The commit may report the presentation at once (the model clock
	 * does): look the frame up again afterwards. */
	if (!pacer->impl->commit(pacer->data, handle, vblank)) {
		int i = find_frame(pacer, handle);
		if (i >= 0) {
			remove_frame(pacer, i);
		}
		pacer->backend_busy = false;
		pacer->impl->discard(pacer->data, handle);
		pacer->wants |= VT_PACER_RENDER; /* draw it again */
		if (pacer->kind == VT_PACER_CLOCK_BACKEND) {
			/* no frame event follows a failed commit, and the run
			 * that committed may be past its planning: the
			 * backend's next frame event plans the new frame */
			pacer->impl->request_backend_frame(pacer->data);
		}
	}
}

/* The newest ready frame meant for vblank or earlier; older ready ones
 * are replaced. -1: none. */
static int pick_ready(struct vt_pacer *pacer, uint64_t vblank) {
	uint64_t slack = pacer->clock.period_ns / 2;
	int pick = -1;
	for (int i = 0; i < pacer->nframes; i++) {
		struct pacer_frame *frame = &pacer->frames[i];
		/* the model clock is the display: it scans out at vblank what
		 * was ready by then, never a frame that finished after it (the
		 * main thread may report a vblank late) */
		if (frame->state == FRAME_READY &&
				frame->display_ns <= vblank + slack &&
				(pacer->kind != VT_PACER_CLOCK_MODEL ||
						frame->ready_ns <= vblank)) {
			pick = i;
		}
	}
	for (int i = pick - 1; i >= 0; i--) {
		if (pacer->frames[i].state == FRAME_READY) {
			void *handle = pacer->frames[i].handle;
			remove_frame(pacer, i);
			pick--;
			pacer->replaced++;
			pacer->impl->discard(pacer->data, handle);
		}
	}
	return pick;
}

/* A vblank of the model clock. */
static void model_vblank(struct vt_pacer *pacer, uint64_t vblank,
		uint64_t now) {
	int pick = pick_ready(pacer, vblank);
	if (pick >= 0) {
		commit_frame(pacer, pick, vblank);
	} else if (pacer->wants & VT_PACER_COMMIT) {
		pacer->wants &= ~VT_PACER_COMMIT;
		pacer->impl->commit(pacer->data, NULL, vblank);
	}
	if (pacer->wants & VT_PACER_CALLBACKS) {
		pacer->wants &= ~VT_PACER_CALLBACKS;
		pacer->impl->frame_done(pacer->data, now);
	}
}

/* Backend clock: the latest display time a commit now may show. Without
 * pre-rendering anything ready goes at once (the backend holds it to its
 * vblank); frames rendered ahead wait for the vblank they were made for. */
static uint64_t backend_horizon(const struct vt_pacer *pacer, uint64_t now) {
	if (pacer->prerender_limit == 0) {
		return UINT64_MAX / 2;
	}
	return shown_vblank(pacer, now);
}

/* Backend clock: commit the newest ready frame if the backend is free. */
static void backend_commit(struct vt_pacer *pacer, uint64_t now) {
	if (pacer->backend_busy) {
		return;
	}
	int pick = pick_ready(pacer, backend_horizon(pacer, now));
	if (pick >= 0) {
		uint64_t vblank = vt_clock_next_vblank(&pacer->clock, now);
		commit_frame(pacer, pick, vblank);
	}
}

/* ---- the state machine -------------------------------------------------- */

static void render_planned(struct vt_pacer *pacer, uint64_t now) {
	pacer->planned = false;
	pacer->wants &= ~VT_PACER_RENDER;
	add_sample(pacer->lateness, &pacer->nlateness, &pacer->next_lateness,
			now - pacer->plan_render_ns);
	uint64_t display = pacer->plan_display_ns;
	bool ready = false;
	uint64_t ready_ns = 0;
	void *handle = pacer->impl->render(pacer->data, display, &ready, &ready_ns);
	if (handle == NULL) {
		/* Nothing to draw for that display time (an animation sampled
		 * there had not moved yet): it is done with, and a frame that
		 * is wanted again goes to a later one. Nothing new was wanted
		 * unless a frame is on its way. */
		pacer->last_display_ns = display;
		if (pacer->nframes == 0 && !(pacer->wants & VT_PACER_RENDER)) {
			pacer->want_since_ns = 0;
		}
		return;
	}
	assert(pacer->nframes < VT_PACER_FRAMES_MAX);
	pacer->frames[pacer->nframes++] = (struct pacer_frame){
		.handle = handle,
		.display_ns = display,
		.render_ns = now,
		.state = ready ? FRAME_READY : FRAME_RENDERING,
		.ready_ns = ready ? (ready_ns > now ? ready_ns : now) : 0,
		.delay = pacer->delay_periods,
	};
	if (pacer->want_since_ns == 0 || display < pacer->want_since_ns) {
		pacer->want_since_ns = display;
	}
	pacer->last_display_ns = display;
	if (pacer->nframes > pacer->max_in_flight) {
		pacer->max_in_flight = pacer->nframes;
	}
}

static void arm(struct vt_pacer *pacer, uint64_t at) {
	if (at != pacer->armed_ns) {
		pacer->armed_ns = at;
		pacer->impl->arm(pacer->data, at);
	}
}

/*
 * may_commit: the caller is the pacer's own timer, the renderer's
 * completion or the backend's frame event. A request comes from anywhere
 * (wlroots signals: a surface commit, needs_frame from inside a
 * screencopy request that has not locked direct scan-out yet), so it
 * never commits: a vblank it finds overdue is left to the timer, armed to
 * fire at once.
 */
static void pacer_run(struct vt_pacer *pacer, uint64_t now, bool may_commit) {
	if (pacer->running) {
		return; /* an impl call re-entered; the outer pass finishes */
	}
	pacer->running = true;
	/* 0. a vblank passed that the timer has not reported yet (the main
	 * thread was busy): it comes first */
	bool overdue = pacer->kind == VT_PACER_CLOCK_MODEL && pacer->tick_ns != 0 &&
			now >= pacer->tick_ns;
	if (overdue && may_commit) {
		overdue = false;
		/* the latest vblank at or before now */
		uint64_t vblank = vt_clock_next_vblank(&pacer->clock, now) -
				pacer->clock.period_ns;
		pacer->tick_ns = 0;
		model_vblank(pacer, vblank, now);
	}
	if (pacer->pending_period_ns != 0 && pacer->nframes == 0) {
		apply_period(pacer, pacer->pending_period_ns, now);
	}
	/* A render can want another frame (an animation, or damage that
	 * came in during it): plan once more after it. */
	for (int pass = 0; pass < 2; pass++) {
		/* 1. plan */
		if ((pacer->wants & VT_PACER_RENDER) && !pacer->planned &&
				pacer->pending_period_ns == 0 &&
				pacer->nframes < VT_PACER_FRAMES_MAX) {
			uint64_t display, render_at;
			if (pacer->policy->plan(pacer, now, &display, &render_at)) {
				pacer->planned = true;
				pacer->plan_display_ns = display;
				pacer->plan_render_ns = render_at > now ? render_at : now;
			}
		}
		/* 2. render */
		if (!pacer->planned || pacer->plan_render_ns > now) {
			break;
		}
		render_planned(pacer, now);
	}
	if (pacer->kind == VT_PACER_CLOCK_BACKEND) {
		if (may_commit) {
			backend_commit(pacer, now);
		}
		/* frames rendered ahead wait for the frame event of their
		 * vblank: nothing else would wake the pacer for them */
		if (!pacer->backend_busy &&
				((pacer->wants & (VT_PACER_CALLBACKS | VT_PACER_COMMIT)) ||
						count_state(pacer, FRAME_READY) > 0)) {
			pacer->impl->request_backend_frame(pacer->data);
		}
	}
	/* 3. arm */
	uint64_t wake = 0;
	if (pacer->planned) {
		wake = pacer->plan_render_ns;
	}
	if (overdue) {
		wake = pacer->tick_ns; /* in the past: fires at once */
	} else {
		pacer->tick_ns = 0;
		/* a render wanted and not planned, with none rendering (the
		 * renders of this pass drew nothing): try again at the vblank */
		bool retry = (pacer->wants & VT_PACER_RENDER) && !pacer->planned &&
				count_state(pacer, FRAME_RENDERING) == 0;
		if (pacer->kind == VT_PACER_CLOCK_MODEL &&
				(count_state(pacer, FRAME_READY) > 0 || retry ||
						(pacer->wants &
								(VT_PACER_CALLBACKS | VT_PACER_COMMIT)))) {
			pacer->tick_ns = vt_clock_next_vblank(&pacer->clock, now);
			if (wake == 0 || pacer->tick_ns < wake) {
				wake = pacer->tick_ns;
			}
		}
	}
	arm(pacer, wake);
	pacer->running = false;
}

/* The output wants a new frame from the first vblank after now (its
 * damage came), unless it already waits for an earlier one. */
static void want_from(struct vt_pacer *pacer, uint64_t now) {
	if (pacer->want_since_ns == 0) {
		pacer->want_since_ns = shown_vblank(pacer, now);
	}
}

void vt_pacer_request(struct vt_pacer *pacer, uint32_t wants, uint64_t now) {
	if (wants & VT_PACER_RENDER) {
		want_from(pacer, now);
	}
	pacer->wants |= wants;
	pacer_run(pacer, now, false);
}

void vt_pacer_want(struct vt_pacer *pacer, uint32_t wants) {
	pacer->wants |= wants;
}

void vt_pacer_wake(struct vt_pacer *pacer, uint64_t now) {
	pacer->armed_ns = 0; /* a timer fires once */
	pacer_run(pacer, now, true);
}

/* A torn frame ready in time goes at once, into the refresh being
 * scanned out; too late, it waits for the next vblank like any other. */
static void commit_torn(struct vt_pacer *pacer, int index, uint64_t now) {
	struct pacer_frame *frame = &pacer->frames[index];
	if (now <= frame->display_ns && !pacer->backend_busy) {
		commit_frame(pacer, index, frame->display_ns);
	} else {
		frame->tear = false;
		pacer->torn_late++;
	}
}

void vt_pacer_frame_ready(struct vt_pacer *pacer, void *handle, uint64_t now) {
	int i = find_frame(pacer, handle);
	if (i < 0 || pacer->frames[i].state != FRAME_RENDERING) {
		return;
	}
	add_composition(pacer, now - pacer->frames[i].render_ns);
	pacer->frames[i].ready_ns = now;
	if (pacer->frames[i].stale) {
		remove_frame(pacer, i);
		pacer->discarded_stale++;
		pacer->wants |= VT_PACER_RENDER;
		pacer->impl->discard(pacer->data, handle);
	} else {
		pacer->frames[i].state = FRAME_READY;
		if (pacer->frames[i].tear) {
			pacer->running = true;
			commit_torn(pacer, i, now);
			pacer->running = false;
		}
	}
	pacer_run(pacer, now, true);
}

bool vt_pacer_tear(struct vt_pacer *pacer, uint64_t display_ns, uint64_t now) {
	if (pacer->kind != VT_PACER_CLOCK_MODEL || pacer->nframes > 0 ||
			pacer->running || pacer->pending_period_ns != 0 ||
			display_ns < now) {
		return false;
	}
	pacer->running = true;
	bool ready = false;
	uint64_t ready_ns = 0;
	void *handle =
			pacer->impl->render(pacer->data, display_ns, &ready, &ready_ns);
	if (handle == NULL) {
		pacer->running = false;
		return false;
	}
	pacer->frames[pacer->nframes++] = (struct pacer_frame){
		.handle = handle,
		.display_ns = display_ns,
		.render_ns = now,
		.state = ready ? FRAME_READY : FRAME_RENDERING,
		.ready_ns = ready ? (ready_ns > now ? ready_ns : now) : 0,
		.tear = true,
	};
	if (display_ns > pacer->last_display_ns) {
		pacer->last_display_ns = display_ns;
	}
	if (pacer->nframes > pacer->max_in_flight) {
		pacer->max_in_flight = pacer->nframes;
	}
	pacer->torn++;
	if (ready) {
		commit_torn(pacer, pacer->nframes - 1, now);
	}
	pacer->running = false;
	pacer_run(pacer, now, true);
	return true;
}

uint64_t vt_pacer_torn(const struct vt_pacer *pacer, uint64_t *late) {
	*late = pacer->torn_late;
	return pacer->torn;
}

void vt_pacer_backend_frame(struct vt_pacer *pacer, uint64_t now) {
	if (pacer->kind != VT_PACER_CLOCK_BACKEND) {
		return;
	}
	pacer->backend_busy = false;
	pacer->running = true;
	int pick = pick_ready(pacer, backend_horizon(pacer, now));
	if (pick >= 0) {
		commit_frame(pacer, pick, vt_clock_next_vblank(&pacer->clock, now));
	} else if (pacer->wants & VT_PACER_COMMIT) {
		pacer->wants &= ~VT_PACER_COMMIT;
		pacer->backend_busy = true;
		if (!pacer->impl->commit(pacer->data, NULL,
					vt_clock_next_vblank(&pacer->clock, now))) {
			pacer->backend_busy = false;
		}
	}
	if (pacer->wants & VT_PACER_CALLBACKS) {
		pacer->wants &= ~VT_PACER_CALLBACKS;
		pacer->impl->frame_done(pacer->data, now);
	}
	pacer->running = false;
	pacer_run(pacer, now, true);
}

void vt_pacer_set_prerender(struct vt_pacer *pacer, int limit) {
	if (limit < 0) {
		limit = 0;
	}
	if (limit > VT_PACER_FRAMES_MAX - 1) {
		limit = VT_PACER_FRAMES_MAX - 1;
	}
	pacer->prerender_limit = limit;
}

void vt_pacer_set_predictable(struct vt_pacer *pacer, bool predictable) {
	pacer->predictable = predictable;
}

void vt_pacer_set_horizon(struct vt_pacer *pacer, uint64_t horizon_ns) {
	pacer->horizon_ns = horizon_ns;
}

uint64_t vt_pacer_horizon(const struct vt_pacer *pacer) {
	return pacer->horizon_ns;
}

void vt_pacer_discard_ahead(struct vt_pacer *pacer, uint64_t now) {
	bool any = false;
	/* A frame no new render could replace in time stays (its display
	 * time is sooner than the composition estimate): dropping it would
	 * only miss a refresh. */
	uint64_t due = now + vt_pacer_composition_ns(pacer);
	for (int i = pacer->nframes - 1; i >= 0; i--) {
		struct pacer_frame *frame = &pacer->frames[i];
		if (frame->display_ns < due) {
			continue;
		}
		if (frame->state == FRAME_RENDERING) {
			frame->stale = true;
			any = true;
		} else if (frame->state == FRAME_READY) {
			void *handle = frame->handle;
			remove_frame(pacer, i);
			pacer->discarded_stale++;
			any = true;
			pacer->impl->discard(pacer->data, handle);
		}
	}
	if (!any) {
		return;
	}
	/* display times go on from what is committed */
	pacer->last_display_ns = 0;
	for (int i = 0; i < pacer->nframes; i++) {
		if (pacer->frames[i].state == FRAME_COMMITTED &&
				pacer->frames[i].display_ns > pacer->last_display_ns) {
			pacer->last_display_ns = pacer->frames[i].display_ns;
		}
	}
	pacer->planned = false;
	pacer->wants |= VT_PACER_RENDER;
	pacer_run(pacer, now, false);
}

bool vt_pacer_presented(struct vt_pacer *pacer, void *handle, bool presented,
		uint64_t presented_ns, uint64_t refresh_ns) {
	if (presented && pacer->kind == VT_PACER_CLOCK_BACKEND) {
		vt_clock_present(&pacer->clock, presented_ns, refresh_ns);
	}
	int i = find_frame(pacer, handle);
	if (i < 0) {
		return false;
	}
	uint64_t display = pacer->frames[i].display_ns;
	int planned_delay = pacer->frames[i].delay;
	remove_frame(pacer, i);
	if (!presented) {
		return true;
	}
	learn_delay(pacer, display, planned_delay, presented_ns);
	uint64_t period = pacer->clock.period_ns;
	if (pacer->shown_any && pacer->want_since_ns != 0 && period > 0 &&
			presented_ns > pacer->want_since_ns + period / 2) {
		pacer->missed +=
				(presented_ns - pacer->want_since_ns + period / 2) / period;
	}
	pacer->shown_any = true;
	/* what is still wanted: frames for later refreshes, or damage not
	 * drawn yet, from the next refresh */
	pacer->want_since_ns = 0;
	for (int k = 0; k < pacer->nframes; k++) {
		uint64_t d = pacer->frames[k].display_ns;
		if (d > presented_ns + period / 2 &&
				(pacer->want_since_ns == 0 || d < pacer->want_since_ns)) {
			pacer->want_since_ns = d;
		}
	}
	if ((pacer->wants & VT_PACER_RENDER) || pacer->planned) {
		uint64_t next = presented_ns + period;
		if (pacer->want_since_ns == 0 || next < pacer->want_since_ns) {
			pacer->want_since_ns = next;
		}
	}
	return presented_ns > display + period / 2;
}

uint64_t vt_pacer_missed(const struct vt_pacer *pacer) {
	return pacer->missed;
}

static void apply_period(struct vt_pacer *pacer, uint64_t period_ns,
		uint64_t now) {
	pacer->pending_period_ns = 0;
	vt_clock_set_period(&pacer->clock, period_ns, now);
	pacer->last_display_ns = 0; /* the old grid's times mean nothing */
	pacer->tick_ns = 0;
}

void vt_pacer_set_period(struct vt_pacer *pacer, uint64_t period_ns,
		uint64_t now) {
	if (period_ns == 0 ||
			(period_ns == pacer->clock.period_ns &&
					pacer->pending_period_ns == 0)) {
		return;
	}
	if (pacer->kind == VT_PACER_CLOCK_MODEL && pacer->nframes > 0) {
		/* frames rendered for the old rate are shown at it: the new
		 * one applies once they are (pacer_run), no frame is planned
		 * meanwhile */
		pacer->pending_period_ns = period_ns;
		pacer_run(pacer, now, false);
		return;
	}
	apply_period(pacer, period_ns, now);
	pacer_run(pacer, now, false);
}

void vt_pacer_set_policy(struct vt_pacer *pacer,
		const struct vt_pacing_policy *policy) {
	pacer->policy = policy;
}

/* ---- reading ------------------------------------------------------------ */

const struct vt_clock *vt_pacer_clock(const struct vt_pacer *pacer) {
	return &pacer->clock;
}

uint64_t vt_pacer_last_display_ns(const struct vt_pacer *pacer) {
	return pacer->last_display_ns;
}

int vt_pacer_rendering(const struct vt_pacer *pacer) {
	return count_state(pacer, FRAME_RENDERING);
}

int vt_pacer_ready(const struct vt_pacer *pacer) {
	return count_state(pacer, FRAME_READY);
}

int vt_pacer_committed(const struct vt_pacer *pacer) {
	return count_state(pacer, FRAME_COMMITTED);
}

int vt_pacer_max_in_flight(const struct vt_pacer *pacer) {
	return pacer->max_in_flight;
}

uint64_t vt_pacer_frame_display_ns(const struct vt_pacer *pacer, void *handle) {
	int i = find_frame(pacer, handle);
	return i >= 0 ? pacer->frames[i].display_ns : 0;
}

uint64_t vt_pacer_replaced(const struct vt_pacer *pacer) {
	return pacer->replaced;
}

int vt_pacer_prerender_limit(const struct vt_pacer *pacer) {
	return pacer->prerender_limit;
}

bool vt_pacer_predictable(const struct vt_pacer *pacer) {
	return pacer->predictable;
}

int vt_pacer_queued(const struct vt_pacer *pacer) {
	return pacer->nframes;
}

uint64_t vt_pacer_discarded_stale(const struct vt_pacer *pacer) {
	return pacer->discarded_stale;
}

int vt_pacer_display_slots(const struct vt_pacer *pacer, uint64_t now,
		uint64_t after, uint64_t *display_ns, uint64_t *deadline_ns, int n) {
	uint64_t period = pacer->clock.period_ns;
	uint64_t composition = vt_pacer_composition_ns(pacer);
	uint64_t display = shown_vblank(pacer, now + composition - 1);
	if (after != 0 && display <= after) {
		display = vt_clock_next_vblank(&pacer->clock, after);
	}
	for (int i = 0; i < n; i++) {
		display_ns[i] = display;
		deadline_ns[i] = display - composition;
		display += period;
	}
	return n;
}

uint64_t vt_pacer_first_display(const struct vt_pacer *pacer,
		uint64_t earliest) {
	uint64_t display = shown_vblank(pacer, earliest - 1);
	if (pacer->last_display_ns != 0 && display <= pacer->last_display_ns) {
		display = vt_clock_next_vblank(&pacer->clock, pacer->last_display_ns);
	}
	return display;
}
