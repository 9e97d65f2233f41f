/*
 * bench-render: vitrail's renderer benchmark (not a timed test).
 *
 * Scenes: the RenderService tree dumps of the Spars artifact (--scenes,
 * rstree.c) and our own JSON scenes (--our-scenes, scene_json.c). For each
 * scene and each mode — sequential, parallel with W = 1 .. cores workers,
 * and Cairo's image backend as the classic sequential peer — it measures
 * cold frames (a fresh renderer and fresh tree: empty caches, every image
 * uploaded, every glyph rasterised) and warm frames (steady state after
 * --warmup frames). All modes run side by side in one process, their
 * frames interleaved one by one with the order rotated every frame, so a
 * noisy shared machine disturbs them alike.
 *
 * From vr_frame_timing: CPU frame time = render call entered -> submitted
 * (end - start - gpu - readback), split into preparation, execution (sum
 * over workers and critical path), commit, out-of-order commits and commit
 * stalls; GPU completion time apart; full frame = the whole vr_render call.
 * Serial fraction: the share of the parallel CPU frame no worker covers,
 * max(preparation, CPU frame - busiest worker's execution) / CPU frame.
 * Speedup of an engine: its sequential mode over its parallel one — for
 * the Vulkan engine seq / par2 CPU frame (par2, or the most workers
 * measured when fewer), for the CPU backend cpu1 / cpuN (its whole frame
 * is CPU work) — per scene the median over rounds of the ratio of the two
 * frames of one round (paired: they ran back to back); min/median/max over
 * the measured frames are in the CSV and the table. Both engines' figures
 * are printed; the summary's speedup_heavy, speedup_all, min_ratio,
 * serial_fraction and prim_budget_ratio are those of the engine vitrail's
 * compositor draws with on this machine (--engine auto, chosen before any
 * timed frame: see choose_engine), the other engine's under suffixed keys.
 * Heavy scenes: a fixed property of the scene, never a timing: at least
 * --heavy-commands display-list commands (default 300), so the heavy set is the
 * same in every run; the all-scene median is printed beside it, and the worst
 * scene (min_ratio). Before any scene, each parallel worker count is calibrated
 * once (vr_renderer_calibrate: the granularity of chunks and the inline
 * threshold, measured on this machine, outside the timed runs); every
 * renderer of the run uses those figures, and each frame's mode (inline or
 * handed over) and chunk count are recorded.
 * Then the primitive budget (random primitives drawn within 8.33 ms of CPU
 * frame time, each mode's crossing interpolated on a ramp of x1.3 steps;
 * the ratio is best parallel / sequential), and the extra memory of the
 * parallel machinery (RSS and mallinfo2 growth when one renderer switches
 * from sequential to all-cores parallel on the heaviest scene).
 * A scene whose frames are slow (lavapipe: big blurred shadows, several
 * 2560x1440 outputs) gets fewer frames past --scene-budget seconds.
 *
 * Output: <out>/bench-render.csv, <out>/bench-render.png (drawn by vitrail
 * itself), a one-screen summary on stdout ending with one `summary:` line.
 * Exit 77 when there is no Vulkan device.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <vitrail/canvas.h>
#include <vitrail/renderer.h>
#include "cairo_peer.h"
#include "plot.h"
#include "rstree.h"
#include "scene.h"
#include "scene_json.h"

#define MAX_MODES 18
#define MAX_SCENES 128
#define EXIT_SKIP 77

/* ---- options ------------------------------------------------------------ */

#define MAX_SCENE_DIRS 16

struct options {
	/* tree dumps; textures in <dir>/textures */
	const char *scenes_dirs[MAX_SCENE_DIRS];
	size_t nscenes_dirs;
	const char *our_dir; /* our JSON scenes */
	const char *textures_dir; /* images named by scenes */
	const char *out_dir;
	const char *only; /* substring filter on scene names */
	int frames; /* warm frames measured per mode */
	int warmup;
	int cold; /* cold frames per mode */
	int max_workers; /* 0: cores */
	int heavy_commands;
	double budget_ms;
	int ramp_frames;
	double scene_budget_s; /* soft limit on one scene's measurement */
	bool ramp;
	bool cairo;
	bool memory;
	bool verbose;
	bool images; /* write each scene's last warm frame per mode */
	bool calibrate; /* false: every task its own handoff, never inline */
	int engine; /* enum engine_choice */
};

/* Which engine's sequential/parallel figures the summary's speedups are:
 * the one vitrail's compositor draws with on this machine (--render-backend
 * auto: Vulkan on a GPU; on a software Vulkan device the faster of the two
 * on a fixed UI frame, vr_backends_measure, measured outside the timed
 * runs), or the one forced. */
enum engine_choice {
	ENGINE_AUTO,
	ENGINE_VULKAN,
	ENGINE_CPU,
};

static void usage(FILE *f) {
	fprintf(f,
			"usage: bench-render [options]\n"
			"  --scenes DIR[:DIR...]  tree dumps *.txt (textures in "
			"DIR/textures);\n"
			"                    may be given several times\n"
			"  --our-scenes DIR  our JSON scenes *.json\n"
			"  --textures DIR    images the scenes name (default: DIR/textures "
			"of\n"
			"                    each --scenes directory)\n"
			"  --out DIR         where bench-render.csv/.png go (default .)\n"
			"  --only TEXT       only scene files whose name contains TEXT\n"
			"  --frames N        warm frames measured per mode (default 15)\n"
			"  --warmup N        warm-up frames per mode (default 3)\n"
			"  --cold N          cold frames per mode (default 2)\n"
			"  --workers N       parallel modes W = 1 .. N (default: cores)\n"
			"  --heavy-commands N  heavy: at least N commands (default 300)\n"
			"  --budget-ms X     primitive budget (default 8.33)\n"
			"  --ramp-frames N   frames per ramp point and mode (default 5)\n"
			"  --scene-budget S  seconds per scene: past a third of it no "
			"more\n"
			"                    cold frames beyond the first, past a quarter "
			"no\n"
			"                    more warm-up, past all of it no more warm "
			"frames\n"
			"                    beyond 5 (default 15)\n"
			"  --images          write "
			"<out>/frames/<scene>-<mode>-<output>.png\n"
			"  --no-calibrate    no granularity: a handoff per task, never\n"
			"                    inline (the parallel mode before it)\n"
			"  --engine E        auto|vulkan|cpu: whose seq/parallel figures "
			"are\n"
			"                    the summary's speedups (default auto: the "
			"engine\n"
			"                    vitrail's compositor chooses on this "
			"machine)\n"
			"  --no-ramp, --no-cairo, --no-memory, --verbose\n");
}

/* ---- time and memory ---------------------------------------------------- */

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double ms(uint64_t ns) {
	return (double)ns / 1e6;
}

static double rss_mb(void) {
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, resident = 0;
	if (f != NULL) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2) {
			resident = 0;
		}
		fclose(f);
	}
	return (double)resident * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}

static double heap_mb(void) {
	struct mallinfo2 mi = mallinfo2();
	return (double)(mi.uordblks + mi.hblkhd) / 1048576.0;
}

/* ---- modes and samples -------------------------------------------------- */

struct mode {
	char label[16];
	bool cairo;
	bool cpu; /* the CPU backend (vr_cpu_render) with `workers` threads */
	bool sequential;
	int workers;
};

enum field {
	F_CPU, /* render entered -> submitted */
	F_PREPARE,
	F_EXEC_SUM,
	F_EXEC_CRIT,
	F_COMMIT,
	F_OOO,
	F_STALLS,
	F_GPU,
	F_FULL, /* the whole vr_render call (Cairo: the whole frame) */
	F_SERIAL, /* percent of F_CPU */
	F_TASKS,
	F_DRAWS,
	F_CHUNKS, /* handoffs to the workers */
	F_COST, /* preparation's estimate */
	F_INLINE, /* 100: the frame ran inline (mean = percent of frames) */
	F_COUNT,
};

static const char *const field_names[F_COUNT] = {
	"cpu_ms",
	"prepare_ms",
	"execute_sum_ms",
	"execute_crit_ms",
	"commit_ms",
	"ooo_commits",
	"commit_stalls",
	"gpu_ms",
	"full_ms",
	"serial_pct",
	"tasks",
	"draws",
	"chunks",
	"cost",
	"inline_pct",
};

struct sample {
	double f[F_COUNT];
};

struct series {
	struct sample *samples;
	size_t len, cap;
};

static void series_add(struct series *s, const struct sample *sample) {
	if (s->len == s->cap) {
		size_t cap = s->cap == 0 ? 32 : s->cap * 2;
		struct sample *samples = realloc(s->samples, cap * sizeof(*samples));
		if (samples == NULL) {
			return;
		}
		s->samples = samples;
		s->cap = cap;
	}
	s->samples[s->len++] = *sample;
}

static int compare_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* q = 0.5: the median (mean of the middle two); otherwise nearest rank. */
static double quantile(const double *values, size_t n, double q) {
	if (n == 0) {
		return NAN;
	}
	double *v = malloc(n * sizeof(*v));
	if (v == NULL) {
		return NAN;
	}
	memcpy(v, values, n * sizeof(*v));
	qsort(v, n, sizeof(*v), compare_double);
	double r;
	if (q == 0.5) {
		r = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
	} else {
		size_t rank = (size_t)ceil(q * (double)n);
		r = v[rank == 0 ? 0 : rank - 1];
	}
	free(v);
	return r;
}

static double series_quantile(const struct series *s, enum field field,
		double q) {
	double *v = malloc((s->len > 0 ? s->len : 1) * sizeof(*v));
	if (v == NULL) {
		return NAN;
	}
	for (size_t i = 0; i < s->len; i++) {
		v[i] = s->samples[i].f[field];
	}
	double r = quantile(v, s->len, q);
	free(v);
	return r;
}

static double series_mean(const struct series *s, enum field field) {
	double sum = 0.0;
	for (size_t i = 0; i < s->len; i++) {
		sum += s->samples[i].f[field];
	}
	return s->len > 0 ? sum / (double)s->len : NAN;
}

/* ---- one renderer per mode ---------------------------------------------- */

struct instance {
	const struct mode *mode;
	struct vr_renderer *renderer;
	struct vr_target *targets[BENCH_MAX_OUTPUTS];
	struct cairo_peer *peer;
	/* CPU backend modes */
	struct vr_cpu_renderer *cpu;
	pixman_image_t *images[BENCH_MAX_OUTPUTS];
};

static struct vr_renderer *renderer_for(const struct mode *mode) {
	struct vr_renderer_options opts = {
		.workers = mode->workers,
		.sequential = mode->sequential,
	};
	struct vr_renderer *renderer = vr_renderer_create(&opts);
	if (renderer == NULL) {
		return NULL;
	}
	/* the mode is set explicitly too: these are the switches under test */
	vr_renderer_set_sequential(renderer, mode->sequential);
	if (!mode->sequential) {
		vr_renderer_set_workers(renderer, mode->workers);
	}
	return renderer;
}

static void instance_finish(struct instance *inst) {
	for (size_t i = 0; i < BENCH_MAX_OUTPUTS; i++) {
		vr_target_destroy(inst->targets[i]);
		inst->targets[i] = NULL;
	}
	vr_renderer_destroy(inst->renderer);
	inst->renderer = NULL;
	for (size_t i = 0; i < BENCH_MAX_OUTPUTS; i++) {
		if (inst->images[i] != NULL) {
			pixman_image_unref(inst->images[i]);
			inst->images[i] = NULL;
		}
	}
	vr_cpu_renderer_destroy(inst->cpu);
	inst->cpu = NULL;
	cairo_peer_destroy(inst->peer);
	inst->peer = NULL;
}

static bool instance_init(struct instance *inst, const struct mode *mode,
		struct bench_scene *scene) {
	*inst = (struct instance){ .mode = mode };
	if (mode->cairo) {
		inst->peer = cairo_peer_create(scene);
		return inst->peer != NULL;
	}
	if (mode->cpu) {
		inst->cpu = vr_cpu_renderer_create(mode->workers);
		if (inst->cpu == NULL) {
			return false;
		}
		for (size_t i = 0; i < scene->noutputs; i++) {
			inst->images[i] = pixman_image_create_bits(PIXMAN_a8r8g8b8,
					scene->outputs[i].width, scene->outputs[i].height, NULL, 0);
			if (inst->images[i] == NULL) {
				instance_finish(inst);
				return false;
			}
		}
		return true;
	}
	inst->renderer = renderer_for(mode);
	if (inst->renderer == NULL) {
		return false;
	}
	for (size_t i = 0; i < scene->noutputs; i++) {
		inst->targets[i] = vr_target_create(inst->renderer,
				scene->outputs[i].width, scene->outputs[i].height);
		if (inst->targets[i] == NULL) {
			instance_finish(inst);
			return false;
		}
	}
	return true;
}

/*
 * The serial part of a frame: what no worker can take over. Sequential:
 * everything. Parallel: preparation plus whatever of the CPU frame is not
 * covered by the busiest worker's execution (recording the tail and
 * submitting after the last task, waiting). Percent of the CPU frame.
 */
static double serial_percent(const struct sample *s, bool sequential) {
	if (sequential || s->f[F_INLINE] > 0.0 || s->f[F_CPU] <= 0.0) {
		return 100.0; /* an inline frame: all on the caller's thread */
	}
	double serial = s->f[F_CPU] - s->f[F_EXEC_CRIT];
	if (serial < s->f[F_PREPARE]) {
		serial = s->f[F_PREPARE];
	}
	return fmin(100.0, 100.0 * serial / s->f[F_CPU]);
}

static bool render_frame(struct instance *inst, struct bench_scene *scene,
		struct vr_tree *tree, struct sample *out) {
	*out = (struct sample){ 0 };
	if (inst->mode->cairo) {
		uint64_t t0 = now_ns();
		bool ok = cairo_peer_render(inst->peer);
		double t = ms(now_ns() - t0);
		out->f[F_CPU] = out->f[F_FULL] = t;
		out->f[F_SERIAL] = 100.0;
		return ok;
	}
	if (inst->mode->cpu) {
		/* the full frame: the whole vr_cpu_render call per output
		 * (preparation, both phases, every band) */
		uint64_t t0 = now_ns();
		bool ok = true;
		for (size_t i = 0; i < scene->noutputs && ok; i++) {
			struct vr_mat view;
			vr_mat_identity(&view);
			vr_mat_translate(&view, (float)-scene->outputs[i].x,
					(float)-scene->outputs[i].y);
			ok = vr_cpu_render(inst->cpu, tree, inst->images[i], &view,
					scene->clear, NULL);
		}
		double t = ms(now_ns() - t0);
		out->f[F_CPU] = out->f[F_FULL] = t;
		out->f[F_SERIAL] = 100.0;
		return ok;
	}
	struct vr_render_job jobs[BENCH_MAX_OUTPUTS];
	for (size_t i = 0; i < scene->noutputs; i++) {
		jobs[i] = (struct vr_render_job){
			.target = inst->targets[i],
			.clear = scene->clear,
		};
		vr_mat_identity(&jobs[i].view);
		vr_mat_translate(&jobs[i].view, (float)-scene->outputs[i].x,
				(float)-scene->outputs[i].y);
	}
	uint64_t t0 = now_ns();
	bool ok = vr_render(inst->renderer, tree, jobs, scene->noutputs);
	uint64_t t1 = now_ns();
	if (!ok) {
		return false;
	}
	/* Every job carries the frame-wide figures; only draws and uploads
	 * are per job. */
	const struct vr_frame_timing *t = &jobs[0].timing;
	uint64_t wall = t->end_ns - t->start_ns;
	uint64_t after_submit = t->gpu_ns + t->readback_ns;
	out->f[F_CPU] = ms(wall > after_submit ? wall - after_submit : 0);
	out->f[F_EXEC_SUM] = ms(t->execute_ns);
	out->f[F_EXEC_CRIT] =
			ms(inst->mode->sequential || t->execute_critical_ns == 0 ?
							t->execute_ns :
							t->execute_critical_ns);
	out->f[F_COMMIT] = ms(t->commit_ns);
	out->f[F_GPU] = ms(t->gpu_ns);
	out->f[F_FULL] = ms(t1 - t0);
	out->f[F_PREPARE] = ms(t->prepare_ns);
	out->f[F_OOO] = t->ooo_commits;
	out->f[F_STALLS] = t->commit_stalls;
	out->f[F_TASKS] = t->tasks;
	out->f[F_CHUNKS] = t->chunks;
	out->f[F_COST] = t->cost;
	out->f[F_INLINE] = t->mode == VR_FRAME_INLINE ? 100.0 : 0.0;
	for (size_t i = 0; i < scene->noutputs; i++) {
		out->f[F_DRAWS] += jobs[i].timing.draws;
	}
	out->f[F_SERIAL] = serial_percent(out, inst->mode->sequential);
	return true;
}

/* ---- results ------------------------------------------------------------ */

enum phase {
	PHASE_WARM,
	PHASE_COLD,
	PHASE_COUNT,
};

static const char *const phase_names[PHASE_COUNT] = { "warm", "cold" };

struct scene_result {
	char name[64];
	const char *source;
	struct bench_stats stats;
	size_t noutputs;
	int32_t width, height; /* of one output */
	double build_ms, decode_ms;
	struct series series[MAX_MODES][PHASE_COUNT];
	bool failed;
};

struct bench {
	struct options opts;
	int cores;
	struct mode modes[MAX_MODES];
	size_t nmodes;
	size_t seq_mode, all_mode, cairo_mode; /* indices; cairo: nmodes if none */
	size_t par_mode; /* par2 (or all_mode with fewer workers): the ratios */
	/* the CPU backend: one worker, and one per core (at least 2);
	 * nmodes when not measured */
	size_t cpu1_mode, cpun_mode;
	struct vr_granularity grains[MAX_MODES]; /* calibrated, per mode */
	struct scene_result *results[MAX_SCENES];
	size_t nresults;
	/* ramp */
	bool ramp_done;
	double ramp_prims[MAX_MODES];
	/* memory */
	bool memory_done;
	char memory_scene[64];
	double extra_rss_mb, extra_heap_mb;
	/* the engine of the summary's speedups (ENGINE_VULKAN or ENGINE_CPU)
	 * and, under auto on a software device, the measured frames */
	int engine;
	double engine_vk_ms, engine_cpu_ms;
};

static double result_med(const struct scene_result *r, size_t mode,
		enum phase phase, enum field field) {
	return series_quantile(&r->series[mode][phase], field, 0.5);
}

/* ---- scene measurement -------------------------------------------------- */

static void progress(const struct bench *b, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));

static void progress(const struct bench *b, const char *fmt, ...) {
	if (!b->opts.verbose) {
		return;
	}
	va_list args;
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
}

#define MIN_WARM_FRAMES 5

/* Seconds since t0. */
static double since(uint64_t t0) {
	return (double)(now_ns() - t0) / 1e9;
}

static bool measure_cold(struct bench *b, struct bench_scene *scene,
		struct scene_result *res, uint64_t t0) {
	int cold = scene->cold_samples > 0 ? scene->cold_samples : b->opts.cold;
	for (int c = 0; c < cold; c++) {
		if (c > 0 && since(t0) > b->opts.scene_budget_s / 3.0) {
			break;
		}
		for (size_t k = 0; k < b->nmodes; k++) {
			size_t m = (k + (size_t)c) % b->nmodes;
			const struct mode *mode = &b->modes[m];
			bench_scene_animate(scene, 0);
			struct vr_tree *tree = NULL;
			if (mode->cairo) {
				cairo_peer_cold(scene);
			} else {
				tree = bench_scene_realise(scene);
				if (tree == NULL) {
					return false;
				}
				vr_tree_update(tree, NULL);
			}
			struct instance inst;
			if (!instance_init(&inst, mode, scene)) {
				bench_scene_release(scene, tree);
				return false;
			}
			struct sample sample;
			bool ok = render_frame(&inst, scene, tree, &sample);
			instance_finish(&inst);
			bench_scene_release(scene, tree);
			if (!ok) {
				return false;
			}
			series_add(&res->series[m][PHASE_COLD], &sample);
		}
	}
	return true;
}

/* The instance's last frame as PNGs (for looking at, not compared). */
static void write_frames(const struct bench *b, struct instance *inst,
		struct bench_scene *scene) {
	char dir[1100];
	snprintf(dir, sizeof(dir), "%s/frames", b->opts.out_dir);
	mkdir(b->opts.out_dir, 0755);
	mkdir(dir, 0755);
	for (size_t i = 0; i < scene->noutputs; i++) {
		int32_t w = scene->outputs[i].width, h = scene->outputs[i].height;
		char path[1300];
		snprintf(path, sizeof(path), "%s/%s-%s-%zu.png", dir, scene->name,
				inst->mode->label, i);
		if (inst->mode->cairo) {
			int32_t stride;
			const void *data = cairo_peer_pixels(inst->peer, i, &stride);
			vr_png_write(path, data, w, h, stride, true);
			continue;
		}
		if (inst->mode->cpu) {
			vr_png_write(path, pixman_image_get_data(inst->images[i]), w, h,
					pixman_image_get_stride(inst->images[i]), true);
			continue;
		}
		void *pixels = malloc((size_t)w * 4 * (size_t)h);
		if (pixels != NULL) {
			vr_target_read(inst->targets[i], NULL, pixels, w * 4);
			vr_png_write(path, pixels, w, h, w * 4, true);
			free(pixels);
		}
	}
}

static bool measure_warm(struct bench *b, struct bench_scene *scene,
		struct scene_result *res, uint64_t t0) {
	struct instance insts[MAX_MODES];
	size_t ninsts = 0;
	bool ok = true;
	struct vr_tree *tree = bench_scene_realise(scene);
	if (tree == NULL) {
		return false;
	}
	for (size_t m = 0; m < b->nmodes && ok; m++) {
		ok = instance_init(&insts[m], &b->modes[m], scene);
		ninsts += ok;
	}
	/* one round: a frame in every mode, starting with a different one */
	int warmed = 0, measured = 0;
	int min_frames =
			b->opts.frames < MIN_WARM_FRAMES ? b->opts.frames : MIN_WARM_FRAMES;
	double budget = b->opts.scene_budget_s;
	for (uint32_t f = 0; ok && measured < b->opts.frames; f++) {
		bool warming = warmed < b->opts.warmup &&
				!(warmed > 0 && since(t0) > budget / 4.0);
		if (!warming && measured >= min_frames && since(t0) > budget) {
			break;
		}
		bench_scene_animate(scene, f);
		vr_tree_update(tree, NULL);
		for (size_t k = 0; k < b->nmodes && ok; k++) {
			size_t m = (k + (size_t)f) % b->nmodes;
			struct sample sample;
			ok = render_frame(&insts[m], scene, tree, &sample);
			if (ok && !warming) {
				series_add(&res->series[m][PHASE_WARM], &sample);
			}
		}
		if (warming) {
			warmed++;
		} else {
			measured++;
		}
	}
	for (size_t m = 0; m < ninsts; m++) {
		if (ok && b->opts.images) {
			write_frames(b, &insts[m], scene);
		}
		instance_finish(&insts[m]);
	}
	bench_scene_release(scene, tree);
	return ok;
}

static void measure_scene(struct bench *b, struct bench_scene *scene) {
	if (b->nresults == MAX_SCENES) {
		return;
	}
	struct scene_result *res = calloc(1, sizeof(*res));
	if (res == NULL) {
		return;
	}
	snprintf(res->name, sizeof(res->name), "%s", scene->name);
	res->source = scene->source;
	res->stats = scene->stats;
	res->noutputs = scene->noutputs;
	res->width = scene->outputs[0].width;
	res->height = scene->outputs[0].height;
	res->build_ms = scene->build_ms;
	res->decode_ms = scene->decode_ms;
	uint64_t t0 = now_ns();
	bool ok =
			measure_cold(b, scene, res, t0) && measure_warm(b, scene, res, t0);
	if (!ok) {
		fprintf(stderr, "error: scene %s: rendering failed\n", scene->name);
		res->failed = true;
	}
	progress(b,
			"  %-24s %zu nodes %zu cmds %zu images %zu texts: "
			"seq %.2f ms, %s %.2f ms, %s full %.2f ms (%.1f s)\n",
			scene->name, scene->stats.nodes, scene->stats.commands,
			scene->stats.images, scene->stats.texts,
			result_med(res, b->seq_mode, PHASE_WARM, F_CPU),
			b->modes[b->par_mode].label,
			result_med(res, b->par_mode, PHASE_WARM, F_CPU),
			b->modes[b->cpun_mode].label,
			result_med(res, b->cpun_mode, PHASE_WARM, F_FULL),
			ms(now_ns() - t0) / 1000.0);
	b->results[b->nresults++] = res;
}

/* ---- the primitive budget ----------------------------------------------- */

#define RAMP_PRIMS_PER_NODE 16
#define RAMP_MAX_PRIMS 400000

static struct bench_scene *ramp_scene(size_t n) {
	struct bench_scene *scene = bench_scene_create("ramp", "ours");
	if (scene == NULL) {
		return NULL;
	}
	scene->noutputs = 1;
	scene->outputs[0] = (struct vr_box){ 0, 0, 2560, 1440 };
	scene->clear = (struct vr_color){ 1.0f, 1.0f, 1.0f, 1.0f };
	struct bench_rng rng;
	bench_rng_seed(&rng, 8330);
	for (size_t done = 0; done < n; done += RAMP_PRIMS_PER_NODE) {
		struct bench_node *node = bench_node_create(scene->root);
		if (node == NULL) {
			bench_scene_destroy(scene);
			return NULL;
		}
		size_t count =
				n - done < RAMP_PRIMS_PER_NODE ? n - done : RAMP_PRIMS_PER_NODE;
		bench_random_prims(&node->dl, &rng, count,
				(struct vr_rectf){ 0.0f, 0.0f, 2560.0f, 1440.0f });
	}
	bench_scene_count(scene);
	return scene;
}

/* Interpolate where the median CPU time crosses the budget (log-log
 * between the last point under it and the first above). */
static double crossing(const size_t *ns, const double *t, size_t count,
		double budget) {
	for (size_t i = 0; i < count; i++) {
		if (t[i] > budget) {
			if (i == 0) {
				return (double)ns[0] * budget / t[0];
			}
			double x0 = log((double)ns[i - 1]), x1 = log((double)ns[i]);
			double y0 = log(t[i - 1]), y1 = log(t[i]);
			double y = log(budget);
			double x = y1 == y0 ? x0 : x0 + (x1 - x0) * (y - y0) / (y1 - y0);
			return exp(x);
		}
	}
	return count > 0 ? (double)ns[count - 1] : 0.0;
}

static void measure_ramp(struct bench *b) {
	size_t nv = 0; /* vitrail's Vulkan modes */
	size_t vmodes[MAX_MODES];
	for (size_t m = 0; m < b->nmodes; m++) {
		if (!b->modes[m].cairo) {
			vmodes[nv++] = m;
		}
	}
	struct instance insts[MAX_MODES];
	struct bench_scene size_scene = {
		.noutputs = 1,
		.outputs = { { 0, 0, 2560, 1440 } },
	};
	size_t ninsts = 0;
	for (size_t i = 0; i < nv; i++) {
		if (!instance_init(&insts[i], &b->modes[vmodes[i]], &size_scene)) {
			break;
		}
		ninsts++;
	}
	if (ninsts < nv) {
		for (size_t i = 0; i < ninsts; i++) {
			instance_finish(&insts[i]);
		}
		fprintf(stderr, "error: ramp: no renderer\n");
		return;
	}
	enum { MAX_POINTS = 64 };
	size_t ns[MAX_POINTS];
	double times[MAX_MODES][MAX_POINTS];
	size_t npoints = 0;
	for (size_t n = 64; n <= RAMP_MAX_PRIMS && npoints < MAX_POINTS;
			n = (size_t)ceil((double)n * 1.3)) {
		struct bench_scene *scene = ramp_scene(n);
		struct vr_tree *tree =
				scene != NULL ? bench_scene_realise(scene) : NULL;
		if (tree == NULL) {
			bench_scene_destroy(scene);
			break;
		}
		vr_tree_update(tree, NULL);
		struct series series[MAX_MODES] = { 0 };
		bool ok = true;
		int total = 2 + b->opts.ramp_frames;
		for (int f = 0; f < total && ok; f++) {
			for (size_t k = 0; k < nv && ok; k++) {
				size_t i = (k + (size_t)f) % nv;
				struct sample sample;
				ok = render_frame(&insts[i], scene, tree, &sample);
				if (ok && f >= 2) {
					series_add(&series[i], &sample);
				}
			}
		}
		bool all_over = ok;
		for (size_t i = 0; i < nv; i++) {
			times[i][npoints] = series_quantile(&series[i], F_CPU, 0.5);
			all_over = all_over && times[i][npoints] > b->opts.budget_ms;
			free(series[i].samples);
		}
		ns[npoints++] = n;
		bench_scene_release(scene, tree);
		bench_scene_destroy(scene);
		progress(b, "  ramp %zu prims: seq %.2f ms\n", n,
				times[0][npoints - 1]);
		if (!ok || all_over) {
			break;
		}
	}
	for (size_t i = 0; i < nv; i++) {
		b->ramp_prims[vmodes[i]] =
				crossing(ns, times[i], npoints, b->opts.budget_ms);
		instance_finish(&insts[i]);
	}
	b->ramp_done = npoints > 0;
}

/* ---- memory of the parallel machinery ----------------------------------- */

static void measure_memory(struct bench *b, struct bench_scene *scene) {
	struct vr_tree *tree = bench_scene_realise(scene);
	struct mode seq = { .sequential = true };
	struct instance inst;
	if (tree == NULL || !instance_init(&inst, &seq, scene)) {
		bench_scene_release(scene, tree);
		return;
	}
	vr_tree_update(tree, NULL);
	struct sample sample;
	bool ok = true;
	for (int f = 0; f < 5 && ok; f++) {
		ok = render_frame(&inst, scene, tree, &sample);
	}
	malloc_trim(0);
	double rss0 = rss_mb(), heap0 = heap_mb();
	struct mode par = { .workers = b->cores };
	vr_renderer_set_sequential(inst.renderer, false);
	vr_renderer_set_workers(inst.renderer, b->cores);
	inst.mode = &par;
	for (int f = 0; f < 5 && ok; f++) {
		ok = render_frame(&inst, scene, tree, &sample);
	}
	double rss1 = rss_mb(), heap1 = heap_mb();
	inst.mode = &seq;
	instance_finish(&inst);
	bench_scene_release(scene, tree);
	if (ok) {
		b->extra_rss_mb = rss1 - rss0;
		b->extra_heap_mb = heap1 - heap0;
		b->memory_done = true;
		snprintf(b->memory_scene, sizeof(b->memory_scene), "%s", scene->name);
	}
}

/* ---- scene files -------------------------------------------------------- */

struct scene_file {
	char path[1024];
	char textures[1024]; /* rstree: where its images are */
	bool json;
};

static int compare_files(const void *a, const void *b) {
	return strcmp(((const struct scene_file *)a)->path,
			((const struct scene_file *)b)->path);
}

static size_t list_scenes(const char *dir, const char *suffix, bool json,
		struct scene_file *files, size_t max) {
	DIR *d = opendir(dir);
	if (d == NULL) {
		fprintf(stderr, "warning: %s: %s (no scenes from there)\n", dir,
				strerror(errno));
		return 0;
	}
	size_t n = 0;
	struct dirent *e;
	size_t slen = strlen(suffix);
	while ((e = readdir(d)) != NULL && n < max) {
		size_t len = strlen(e->d_name);
		if (len > slen && strcmp(e->d_name + len - slen, suffix) == 0) {
			snprintf(files[n].path, sizeof(files[n].path), "%s/%s", dir,
					e->d_name);
			files[n].json = json;
			n++;
		}
	}
	closedir(d);
	qsort(files, n, sizeof(*files), compare_files);
	return n;
}

static struct bench_scene *load_scene(const struct scene_file *file) {
	if (file->json) {
		return scene_json_load(file->path, file->textures);
	}
	struct rstree_info info;
	return rstree_load(file->path, file->textures, &info);
}

/* Each directory of a --scenes argument (DIR[:DIR...]), up to the max. */
static void add_scene_dirs(struct options *opts, char *arg) {
	char *save = NULL;
	for (char *dir = strtok_r(arg, ":", &save); dir != NULL;
			dir = strtok_r(NULL, ":", &save)) {
		if (opts->nscenes_dirs == MAX_SCENE_DIRS) {
			fprintf(stderr, "bench-render: more than %d scene directories\n",
					MAX_SCENE_DIRS);
			exit(2);
		}
		opts->scenes_dirs[opts->nscenes_dirs++] = dir;
	}
}

/* Calibrate each parallel worker count once, outside the timed runs: the
 * figures stay in the process for every renderer made afterwards. */
static void calibrate(struct bench *b) {
	for (size_t m = 0; m < b->nmodes; m++) {
		const struct mode *mode = &b->modes[m];
		if (mode->cairo || mode->cpu || mode->sequential) {
			continue;
		}
		struct vr_renderer *renderer = renderer_for(mode);
		if (renderer == NULL) {
			continue;
		}
		if (!vr_renderer_calibrate(renderer)) {
			fprintf(stderr, "warning: %s: calibration failed\n", mode->label);
		}
		vr_renderer_get_granularity(renderer, &b->grains[m]);
		vr_renderer_destroy(renderer);
	}
}

/* The summary's engine, decided before any timed frame and never by them:
 * under auto, what vitrail's compositor does with --render-backend auto
 * (server.c): Vulkan on a hardware device; on a software one the faster of
 * the two on vr_backends_measure's fixed 1280x720 UI frame (cached with
 * the calibration, as the compositor's). */
static void choose_engine(struct bench *b) {
	b->engine = b->opts.engine == ENGINE_CPU ? ENGINE_CPU : ENGINE_VULKAN;
	if (b->opts.engine != ENGINE_AUTO) {
		return;
	}
	struct vr_renderer_options opts = { .workers = b->cores };
	struct vr_renderer *vulkan = vr_renderer_create(&opts);
	struct vr_cpu_renderer *cpu = NULL;
	if (vulkan != NULL && vr_renderer_is_software(vulkan)) {
		cpu = vr_cpu_renderer_create(0);
		double vk_ns = 0.0, cpu_ns = 0.0;
		if (cpu != NULL &&
				vr_backends_measure(vulkan, cpu, 1280, 720, 5, &vk_ns,
						&cpu_ns)) {
			b->engine_vk_ms = vk_ns / 1e6;
			b->engine_cpu_ms = cpu_ns / 1e6;
			if (cpu_ns < vk_ns) {
				b->engine = ENGINE_CPU;
			}
		}
	}
	vr_cpu_renderer_destroy(cpu);
	vr_renderer_destroy(vulkan);
}

/* ---- outputs ------------------------------------------------------------ */

/* Heavy: a fixed property of the scene (its command count), never a
 * timing, so the set is the same in every run. */
static bool is_heavy(const struct bench *b, const struct scene_result *r) {
	return r->stats.commands >= (size_t)b->opts.heavy_commands;
}

static bool write_csv(const struct bench *b, const char *path) {
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		fprintf(stderr, "error: %s: %s\n", path, strerror(errno));
		return false;
	}
	fprintf(f,
			"scene,source,phase,mode,workers,samples,outputs,width,height,"
			"nodes,commands,heavy,images,texts,build_ms,decode_ms,cpu_min_ms,"
			"cpu_p95_ms,cpu_max_ms,full_min_ms,full_p95_ms,full_max_ms");
	for (int i = 0; i < F_COUNT; i++) {
		fprintf(f, ",%s", field_names[i]);
	}
	fprintf(f, ",speedup_vs_seq,cairo_over_this_full,prims_in_budget\n");
	for (size_t s = 0; s < b->nresults; s++) {
		const struct scene_result *r = b->results[s];
		for (int p = 0; p < PHASE_COUNT; p++) {
			for (size_t m = 0; m < b->nmodes; m++) {
				const struct mode *mode = &b->modes[m];
				const struct series *ser = &r->series[m][p];
				if (ser->len == 0) {
					continue;
				}
				fprintf(f,
						"%s,%s,%s,%s,%d,%zu,%zu,%d,%d,%zu,%zu,%d,%zu,%zu,"
						"%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f",
						r->name, r->source, phase_names[p], mode->label,
						mode->cairo              ? 1 :
								mode->sequential ? 0 :
												   mode->workers,
						ser->len, r->noutputs, r->width, r->height,
						r->stats.nodes, r->stats.commands,
						is_heavy(b, r) ? 1 : 0, r->stats.images, r->stats.texts,
						r->build_ms, r->decode_ms,
						series_quantile(ser, F_CPU, 0.0),
						series_quantile(ser, F_CPU, 0.95),
						series_quantile(ser, F_CPU, 1.0),
						series_quantile(ser, F_FULL, 0.0),
						series_quantile(ser, F_FULL, 0.95),
						series_quantile(ser, F_FULL, 1.0));
				for (int i = 0; i < F_COUNT; i++) {
					if ((mode->cairo || mode->cpu) && i != F_CPU &&
							i != F_FULL && i != F_SERIAL) {
						fprintf(f, ",");
					} else if (i == F_INLINE) {
						fprintf(f, ",%.1f", series_mean(ser, F_INLINE));
					} else {
						fprintf(f, ",%.4f",
								series_quantile(ser, (enum field)i, 0.5));
					}
				}
				/* the engine's own sequential mode: seq, or cpu1 */
				double seq =
						result_med(r, mode->cpu ? b->cpu1_mode : b->seq_mode,
								(enum phase)p, F_CPU);
				double mine = series_quantile(ser, F_CPU, 0.5);
				if (mode->cairo) {
					fprintf(f, ",");
				} else {
					fprintf(f, ",%.4f", seq / mine);
				}
				size_t c = b->cairo_mode;
				if (c < b->nmodes && !mode->cairo) {
					fprintf(f, ",%.4f",
							result_med(r, c, (enum phase)p, F_FULL) /
									series_quantile(ser, F_FULL, 0.5));
				} else {
					fprintf(f, ",");
				}
				if (b->ramp_done && !mode->cairo) {
					fprintf(f, ",%.0f\n", b->ramp_prims[m]);
				} else {
					fprintf(f, ",\n");
				}
			}
		}
	}
	bool ok = fclose(f) == 0;
	return ok;
}

static double median_of(double *v, size_t n) {
	return quantile(v, n, 0.5);
}

struct summary {
	/* the summary's engine (bench.engine): median seq/par2 CPU frame of
	 * the Vulkan engine, or cpu1/cpuN of the CPU backend; per scene the
	 * median of the paired per-round ratios */
	double speedup_heavy; /* heavy scenes */
	double speedup_all; /* every scene */
	double min_ratio; /* the worst scene */
	char min_scene[64];
	/* both engines, whichever the summary's is */
	struct engine_figures {
		double heavy, all, min;
		char min_scene[64];
		double serial; /* percent: measured (Vulkan), Karp-Flatt (CPU) */
	} vk, cpu;
	double serial_fraction;
	double prim_ratio; /* the summary's engine */
	double prim_vk, prim_cpu; /* best par / seq; cpuN / cpu1 */
	/* median Cairo / best backend's full frame: per scene the better
	 * median of par2 (Vulkan) and cpuN (the CPU backend) */
	double vs_cairo;
	double vs_cairo_min;
	char vs_cairo_min_scene[64];
	double vs_cairo_vulkan, vs_cairo_vulkan_min; /* par2 alone */
	double vs_cairo_cpu, vs_cairo_cpu_min; /* cpuN alone */
	size_t cpu_best; /* scenes where cpuN is the better backend */
	double extra_mem;
	size_t scenes, heavy;
	bool heavy_fallback; /* no heavy scene: all scenes used */
};

/* The median over rounds of num's frame / den's frame in the same round
 * (a paired comparison: the two frames ran back to back, so load that
 * shifts between rounds cancels out instead of landing in one median). */
static double paired_ratio(const struct scene_result *r, size_t num, size_t den,
		enum field field) {
	const struct series *a = &r->series[num][PHASE_WARM];
	const struct series *d = &r->series[den][PHASE_WARM];
	size_t n = a->len < d->len ? a->len : d->len;
	double *v = malloc((n > 0 ? n : 1) * sizeof(*v));
	if (v == NULL || n == 0) {
		free(v);
		return NAN;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		double x = a->samples[i].f[field], y = d->samples[i].f[field];
		if (x > 0.0 && y > 0.0) {
			v[k++] = x / y;
		}
	}
	double q = quantile(v, k, 0.5);
	free(v);
	return q;
}

/* seq / par2 CPU frame of the Vulkan engine */
static double speedup_vulkan(const struct bench *b,
		const struct scene_result *r) {
	return paired_ratio(r, b->seq_mode, b->par_mode, F_CPU);
}

/* cpu1 / cpuN of the CPU backend (its whole frame is CPU work) */
static double speedup_cpu(const struct bench *b, const struct scene_result *r) {
	if (b->cpun_mode >= b->nmodes) {
		return NAN;
	}
	return paired_ratio(r, b->cpu1_mode, b->cpun_mode, F_CPU);
}

/* Karp-Flatt: the serial fraction that explains a speedup s on p workers
 * under Amdahl's law, (1/s - 1/p) / (1 - 1/p), in percent. */
static double karp_flatt(double s, int p) {
	if (!(s > 0.0) || p < 2) {
		return NAN;
	}
	double e = (1.0 / s - 1.0 / p) / (1.0 - 1.0 / p);
	return 100.0 * (e < 0.0 ? 0.0 : e);
}

/* Cairo / one mode's full frame (warm medians). */
static double cairo_over(const struct bench *b, const struct scene_result *r,
		size_t mode) {
	return result_med(r, b->cairo_mode, PHASE_WARM, F_FULL) /
			result_med(r, mode, PHASE_WARM, F_FULL);
}

/* The scene's best backend: of the two fixed ones, Vulkan par2 and the
 * CPU backend on every core (cpuN), the one whose median full frame is
 * shorter (medians, not per-frame minima, so one lucky frame does not
 * choose it). */
static size_t best_mode(const struct bench *b, const struct scene_result *r) {
	if (b->cpun_mode >= b->nmodes) {
		return b->par_mode;
	}
	double vk = result_med(r, b->par_mode, PHASE_WARM, F_FULL);
	double cpu = result_med(r, b->cpun_mode, PHASE_WARM, F_FULL);
	return !(vk <= cpu) ? b->cpun_mode : b->par_mode;
}

static double cairo_ratio(const struct bench *b, const struct scene_result *r) {
	return cairo_over(b, r, best_mode(b, r));
}

/* One engine's speedups over the scenes; serial: per heavy scene (every
 * scene with fallback, when none is heavy). */
static struct engine_figures figures_of(const struct bench *b, bool cpu,
		bool fallback) {
	struct engine_figures e = { .min = INFINITY };
	double heavy[MAX_SCENES], all[MAX_SCENES], serial[MAX_SCENES];
	size_t nheavy = 0, nall = 0, nserial = 0;
	for (size_t i = 0; i < b->nresults; i++) {
		const struct scene_result *r = b->results[i];
		if (r->failed) {
			continue;
		}
		double ratio = cpu ? speedup_cpu(b, r) : speedup_vulkan(b, r);
		if (isnan(ratio)) {
			continue;
		}
		all[nall++] = ratio;
		if (ratio < e.min) {
			e.min = ratio;
			snprintf(e.min_scene, sizeof(e.min_scene), "%s", r->name);
		}
		if (fallback || is_heavy(b, r)) {
			heavy[nheavy++] = ratio;
			serial[nserial++] = cpu ?
					karp_flatt(ratio, b->modes[b->cpun_mode].workers) :
					result_med(r, b->par_mode, PHASE_WARM, F_SERIAL);
		}
	}
	e.heavy = nheavy > 0 ? median_of(heavy, nheavy) : 0.0;
	e.all = nall > 0 ? median_of(all, nall) : 0.0;
	e.serial = nserial > 0 ? median_of(serial, nserial) : 0.0;
	if (nall == 0) {
		e.min = 0.0;
	}
	return e;
}

static struct summary summarise(const struct bench *b) {
	struct summary s = { .min_ratio = INFINITY, .vs_cairo_min = INFINITY };
	double cairo[MAX_SCENES];
	double cairo_vk[MAX_SCENES], cairo_cpu[MAX_SCENES];
	s.vs_cairo_vulkan_min = s.vs_cairo_cpu_min = INFINITY;
	size_t nca = 0;
	for (size_t i = 0; i < b->nresults; i++) {
		const struct scene_result *r = b->results[i];
		if (r->failed) {
			continue;
		}
		s.scenes++;
		s.heavy += is_heavy(b, r);
	}
	s.heavy_fallback = s.heavy == 0;
	s.vk = figures_of(b, false, s.heavy_fallback);
	s.cpu = b->cpun_mode < b->nmodes ? figures_of(b, true, s.heavy_fallback) :
									   (struct engine_figures){ 0 };
	const struct engine_figures *e = b->engine == ENGINE_CPU ? &s.cpu : &s.vk;
	s.speedup_heavy = e->heavy;
	s.speedup_all = e->all;
	s.min_ratio = e->min;
	s.serial_fraction = e->serial;
	snprintf(s.min_scene, sizeof(s.min_scene), "%s", e->min_scene);
	for (size_t i = 0; i < b->nresults; i++) {
		const struct scene_result *r = b->results[i];
		if (r->failed) {
			continue;
		}
		if (b->cairo_mode < b->nmodes) {
			double c = cairo_ratio(b, r);
			cairo_vk[nca] = cairo_over(b, r, b->par_mode);
			s.vs_cairo_vulkan_min = fmin(s.vs_cairo_vulkan_min, cairo_vk[nca]);
			if (b->cpun_mode < b->nmodes) {
				cairo_cpu[nca] = cairo_over(b, r, b->cpun_mode);
				s.vs_cairo_cpu_min = fmin(s.vs_cairo_cpu_min, cairo_cpu[nca]);
				s.cpu_best += best_mode(b, r) == b->cpun_mode;
			}
			cairo[nca++] = c;
			if (c < s.vs_cairo_min) {
				s.vs_cairo_min = c;
				snprintf(s.vs_cairo_min_scene, sizeof(s.vs_cairo_min_scene),
						"%s", r->name);
			}
		}
	}
	s.vs_cairo = nca > 0 ? median_of(cairo, nca) : 0.0;
	s.vs_cairo_vulkan = nca > 0 ? median_of(cairo_vk, nca) : 0.0;
	bool cpu = b->cpun_mode < b->nmodes;
	s.vs_cairo_cpu = nca > 0 && cpu ? median_of(cairo_cpu, nca) : 0.0;
	if (nca == 0) {
		s.vs_cairo_vulkan_min = 0.0;
	}
	if (nca == 0 || !cpu) {
		s.vs_cairo_cpu_min = 0.0;
	}
	if (nca == 0) {
		s.vs_cairo_min = 0.0;
	}
	double best = 0.0;
	for (size_t m = 0; m < b->nmodes; m++) {
		if (!b->modes[m].cairo && !b->modes[m].cpu && !b->modes[m].sequential &&
				b->ramp_prims[m] > best) {
			best = b->ramp_prims[m];
		}
	}
	s.prim_vk = b->ramp_done && b->ramp_prims[b->seq_mode] > 0.0 ?
			best / b->ramp_prims[b->seq_mode] :
			0.0;
	s.prim_cpu = b->ramp_done && b->cpun_mode < b->nmodes &&
					b->ramp_prims[b->cpu1_mode] > 0.0 ?
			b->ramp_prims[b->cpun_mode] / b->ramp_prims[b->cpu1_mode] :
			0.0;
	s.prim_ratio = b->engine == ENGINE_CPU ? s.prim_cpu : s.prim_vk;
	s.extra_mem = b->memory_done ? b->extra_rss_mb : 0.0;
	return s;
}

static unsigned long renderer_errors(bool print);

static void print_summary(const struct bench *b, const struct summary *s,
		const char *device, const char *csv, const char *png) {
	const char *par = b->modes[b->par_mode].label;
	printf("\nvitrail renderer benchmark on %s, %d cores; per mode %d warm "
		   "frames after %d, %d cold (fewer, at least %d warm and 1 cold, past "
		   "%.0f s per scene); modes alternated frame by frame, the order "
		   "rotated every round\n",
			device, b->cores, b->opts.frames, b->opts.warmup, b->opts.cold,
			MIN_WARM_FRAMES, b->opts.scene_budget_s);
	for (size_t m = 0; m < b->nmodes; m++) {
		const struct vr_granularity *g = &b->grains[m];
		if (b->modes[m].cairo || b->modes[m].cpu || b->modes[m].sequential) {
			continue;
		}
		if (!g->calibrated) {
			printf("%s: not calibrated (a task a handoff, never inline)\n",
					b->modes[m].label);
			continue;
		}
		printf("%s calibration: handoff %.1f us, unit %.0f ns, parallel "
			   "frame overhead %.0f us, gain %.0f ns/unit -> chunks of %u "
			   "units, ",
				b->modes[m].label, g->handoff_ns / 1e3, g->unit_ns,
				g->frame_overhead_ns / 1e3, g->gain_ns_per_unit, g->chunk_cost);
		if (g->parallel_cost == UINT32_MAX) {
			printf("every frame inline\n");
		} else {
			printf("parallel from %u units\n", g->parallel_cost);
		}
	}
	printf("warm medians in ms: cpu = render entered -> submitted, full = "
		   "the whole vr_render call (Cairo: its frame); vkS = seq / %s "
		   "cpu, cpuS = cpu1 / cpuN (speedups: the median over rounds of the "
		   "two frames' ratio in the same round); cpuW = the CPU backend's "
		   "full frame with W workers; cairo = "
		   "Cairo full / the best backend's full (the better median of %s "
		   "and the CPU backend on every core, marked V or C); cpuC = Cairo "
		   "full / cpuN full; inl = %% of %s frames run inline; heavy: >= %d "
		   "commands\n",
			par, par, par, b->opts.heavy_commands);
	printf("%-20s %5s", "scene", "cmds");
	for (size_t m = 0; m < b->nmodes; m++) {
		if (b->modes[m].cairo || b->modes[m].cpu) {
			printf(" %6s", b->modes[m].label);
			continue;
		}
		char cpu[24], full[24];
		snprintf(cpu, sizeof(cpu), "%s", b->modes[m].label);
		snprintf(full, sizeof(full), "%.5sF", b->modes[m].label);
		printf(" %6s %6s", cpu, full);
	}
	printf(" %7s %6s %6s %5s %4s %s\n", "vkS", "cpuS", "cairo", "cpuC", "inl",
			"seq cpu min/med/max, par cpu min/med/max");
	for (size_t i = 0; i < b->nresults; i++) {
		const struct scene_result *r = b->results[i];
		if (r->failed) {
			printf("%-20.20s failed\n", r->name);
			continue;
		}
		printf("%-20.20s %5zu", r->name, r->stats.commands);
		for (size_t m = 0; m < b->nmodes; m++) {
			if (b->modes[m].cairo || b->modes[m].cpu) {
				printf(" %6.2f", result_med(r, m, PHASE_WARM, F_FULL));
				continue;
			}
			printf(" %6.2f %6.2f", result_med(r, m, PHASE_WARM, F_CPU),
					result_med(r, m, PHASE_WARM, F_FULL));
		}
		const struct series *seq = &r->series[b->seq_mode][PHASE_WARM];
		const struct series *pser = &r->series[b->par_mode][PHASE_WARM];
		bool cairo = b->cairo_mode < b->nmodes;
		bool cpu = b->cpun_mode < b->nmodes;
		printf(" %6.2fx %5.2fx %5.2f%c %5.2f %4.0f %.2f/%.2f/%.2f "
			   "%.2f/%.2f/%.2f%s\n",
				speedup_vulkan(b, r), speedup_cpu(b, r),
				cairo ? cairo_ratio(b, r) : NAN,
				best_mode(b, r) == b->par_mode ? 'V' : 'C',
				cairo && cpu ? cairo_over(b, r, b->cpun_mode) : NAN,
				series_mean(pser, F_INLINE), series_quantile(seq, F_CPU, 0.0),
				series_quantile(seq, F_CPU, 0.5),
				series_quantile(seq, F_CPU, 1.0),
				series_quantile(pser, F_CPU, 0.0),
				series_quantile(pser, F_CPU, 0.5),
				series_quantile(pser, F_CPU, 1.0),
				is_heavy(b, r) ? " heavy" : "");
	}
	if (b->engine_vk_ms > 0.0) {
		printf("engine: %s (as vitrail's compositor chooses on this "
			   "software device: a 1280x720 UI frame takes %.2f ms on Vulkan, "
			   "%.2f ms on the CPU backend)\n",
				b->engine == ENGINE_CPU ? "the CPU backend" : "Vulkan",
				b->engine_vk_ms, b->engine_cpu_ms);
	} else {
		printf("engine: %s (%s)\n",
				b->engine == ENGINE_CPU ? "the CPU backend" : "Vulkan",
				b->opts.engine != ENGINE_AUTO ? "--engine" :
												"a hardware Vulkan device");
	}
	printf("heavy scenes (>= %d commands, fixed by the scenes): %zu of %zu%s\n",
			b->opts.heavy_commands, s->heavy, s->scenes,
			s->heavy_fallback ? " (none: all scenes used instead)" : "");
	printf("Vulkan engine seq / %s: median %.2fx on the heavy scenes, %.2fx on "
		   "all; worst scene %.2fx (%s); serial fraction %.1f%%\n",
			par, s->vk.heavy, s->vk.all, s->vk.min, s->vk.min_scene,
			s->vk.serial);
	if (b->cpun_mode < b->nmodes) {
		printf("CPU backend cpu1 / %s: median %.2fx on the heavy scenes, "
			   "%.2fx on all; worst scene %.2fx (%s); serial fraction "
			   "(Karp-Flatt) %.1f%%\n",
				b->modes[b->cpun_mode].label, s->cpu.heavy, s->cpu.all,
				s->cpu.min, s->cpu.min_scene, s->cpu.serial);
	}
	if (b->cairo_mode < b->nmodes) {
		printf("full frame against Cairo (Cairo / the best backend per "
			   "scene, the CPU backend in %zu of %zu): median %.2f, worst %.2f "
			   "(%s); Cairo / %s alone: median %.2f, worst %.2f; Cairo / "
			   "cpuN alone: median %.2f, worst %.2f\n",
				s->cpu_best, s->scenes, s->vs_cairo, s->vs_cairo_min,
				s->vs_cairo_min_scene, par, s->vs_cairo_vulkan,
				s->vs_cairo_vulkan_min, s->vs_cairo_cpu, s->vs_cairo_cpu_min);
	}
	if (b->ramp_done) {
		printf("random primitives within %.2f ms of CPU frame time:",
				b->opts.budget_ms);
		for (size_t m = 0; m < b->nmodes; m++) {
			if (!b->modes[m].cairo) {
				printf(" %s %.0f", b->modes[m].label, b->ramp_prims[m]);
			}
		}
		printf("\n");
	}
	if (b->memory_done) {
		printf("extra memory of the parallel machinery (%s, %d workers): "
			   "RSS %+.1f MB, heap (mallinfo2) %+.1f MB\n",
				b->memory_scene, b->cores, b->extra_rss_mb, b->extra_heap_mb);
	}
	if (b->cairo_mode >= b->nmodes) {
		printf("Cairo peer: not measured (%s)\n",
				cairo_peer_available() ? "--no-cairo" : "built without Cairo");
	}
	renderer_errors(true);
	printf("csv: %s\nplot: %s\n", csv, png != NULL ? png : "(failed)");
	printf("summary: speedup_heavy=%.2f speedup_all=%.2f min_ratio=%.2f "
		   "serial_fraction=%.1f prim_budget_ratio=%.2f vs_cairo=%.2f "
		   "vs_cairo_min=%.2f extra_mem_mb=%.1f scenes=%zu "
		   "vs_cairo_vulkan=%.2f "
		   "vs_cairo_vulkan_min=%.2f vs_cairo_cpu=%.2f vs_cairo_cpu_min=%.2f "
		   "cpu_best_scenes=%zu cpu_engine=%d speedup_heavy_vulkan=%.2f "
		   "speedup_all_vulkan=%.2f min_ratio_vulkan=%.2f "
		   "serial_fraction_vulkan=%.1f prim_budget_ratio_vulkan=%.2f "
		   "speedup_heavy_cpu=%.2f speedup_all_cpu=%.2f min_ratio_cpu=%.2f "
		   "serial_fraction_cpu=%.1f prim_budget_ratio_cpu=%.2f\n",
			s->speedup_heavy, s->speedup_all, s->min_ratio, s->serial_fraction,
			s->prim_ratio, s->vs_cairo, s->vs_cairo_min, s->extra_mem,
			s->scenes, s->vs_cairo_vulkan, s->vs_cairo_vulkan_min,
			s->vs_cairo_cpu, s->vs_cairo_cpu_min, s->cpu_best,
			b->engine == ENGINE_CPU, s->vk.heavy, s->vk.all, s->vk.min,
			s->vk.serial, s->prim_vk, s->cpu.heavy, s->cpu.all, s->cpu.min,
			s->cpu.serial, s->prim_cpu);
}

static bool draw_plot(const struct bench *b, const char *path) {
	struct plot_row rows[MAX_SCENES];
	struct plot plot = {
		.title = "vitrail renderer: warm median frame time (ms)",
		.nseries = 0,
		.rows = rows,
	};
	/* vitrail's modes (CPU frame), its all-cores full frame, Cairo */
	size_t order[MAX_MODES + 1];
	enum field fields[MAX_MODES + 1];
	char full_label[32];
	snprintf(full_label, sizeof(full_label), "%s full",
			b->modes[b->all_mode].label);
	for (size_t m = 0; m < b->nmodes && plot.nseries < PLOT_MAX_SERIES; m++) {
		if (b->modes[m].cairo || b->modes[m].cpu) {
			continue;
		}
		order[plot.nseries] = m;
		fields[plot.nseries] = F_CPU;
		plot.series[plot.nseries++] = b->modes[m].label;
	}
	if (plot.nseries < PLOT_MAX_SERIES) {
		order[plot.nseries] = b->all_mode;
		fields[plot.nseries] = F_FULL;
		plot.series[plot.nseries++] = full_label;
	}
	if (b->cpun_mode < b->nmodes && plot.nseries < PLOT_MAX_SERIES) {
		order[plot.nseries] = b->cpun_mode;
		fields[plot.nseries] = F_FULL;
		plot.series[plot.nseries++] = b->modes[b->cpun_mode].label;
	}
	if (b->cairo_mode < b->nmodes && plot.nseries < PLOT_MAX_SERIES) {
		order[plot.nseries] = b->cairo_mode;
		fields[plot.nseries] = F_FULL;
		plot.series[plot.nseries++] = "cairo";
	}
	for (size_t i = 0; i < b->nresults && plot.nrows < MAX_SCENES; i++) {
		const struct scene_result *r = b->results[i];
		if (r->failed) {
			continue;
		}
		struct plot_row *row = &rows[plot.nrows++];
		snprintf(row->label, sizeof(row->label), "%s", r->name);
		for (size_t k = 0; k < plot.nseries; k++) {
			row->values[k] = result_med(r, order[k], PHASE_WARM, fields[k]);
		}
	}
	return plot_write(&plot, path);
}

/* ---- main --------------------------------------------------------------- */

static int parse_int(const char *s, int lo, const char *what) {
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < lo || v > 100000) {
		fprintf(stderr, "bench-render: bad %s: %s\n", what, s);
		exit(2);
	}
	return (int)v;
}

static double parse_double(const char *s, const char *what) {
	char *end;
	double v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || !(v > 0.0)) {
		fprintf(stderr, "bench-render: bad %s: %s\n", what, s);
		exit(2);
	}
	return v;
}

/* Renderer errors: each distinct message printed once, counted, and
 * listed again at the end (a benchmark must not drown in a flood). The
 * renderer logs from its threads too. */
#define MAX_LOGGED 32

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char msg[160];
	unsigned long count;
} logged[MAX_LOGGED]; // protected by log_lock
static size_t nlogged; // protected by log_lock

static void quiet_log(enum vr_log_level level, const char *fmt, va_list args) {
	if (level != VR_LOG_ERROR) {
		return;
	}
	char msg[160];
	vsnprintf(msg, sizeof(msg), fmt, args);
	pthread_mutex_lock(&log_lock);
	size_t i = 0;
	while (i < nlogged && strcmp(logged[i].msg, msg) != 0) {
		i++;
	}
	if (i == nlogged && nlogged < MAX_LOGGED) {
		snprintf(logged[nlogged].msg, sizeof(logged[0].msg), "%s", msg);
		nlogged++;
		fprintf(stderr, "[renderer] %s (repeats counted, not shown)\n", msg);
	}
	if (i < nlogged) {
		logged[i].count++;
	}
	pthread_mutex_unlock(&log_lock);
}

static unsigned long renderer_errors(bool print) {
	unsigned long total = 0;
	pthread_mutex_lock(&log_lock);
	for (size_t i = 0; i < nlogged; i++) {
		total += logged[i].count;
		if (print) {
			printf("renderer error x%lu: %s\n", logged[i].count, logged[i].msg);
		}
	}
	pthread_mutex_unlock(&log_lock);
	return total;
}

int main(int argc, char *argv[]) {
	struct bench *b = calloc(1, sizeof(*b));
	if (b == NULL) {
		return 1;
	}
	b->opts = (struct options){
		.our_dir = NULL,
		.out_dir = ".",
		.frames = 15,
		.warmup = 3,
		.cold = 2,
		.heavy_commands = 300,
		.budget_ms = 8.33,
		.ramp_frames = 5,
		.scene_budget_s = 15.0,
		.ramp = true,
		.cairo = true,
		.memory = true,
		.calibrate = true,
	};
	enum {
		OPT_SCENES = 256,
		OPT_OURS,
		OPT_TEXTURES,
		OPT_OUT,
		OPT_ONLY,
		OPT_FRAMES,
		OPT_WARMUP,
		OPT_COLD,
		OPT_WORKERS,
		OPT_HEAVY,
		OPT_BUDGET,
		OPT_RAMP_FRAMES,
		OPT_SCENE_BUDGET,
		OPT_NO_RAMP,
		OPT_NO_CAIRO,
		OPT_NO_MEMORY,
		OPT_VERBOSE,
		OPT_IMAGES,
		OPT_NO_CALIBRATE,
		OPT_ENGINE,
		OPT_HELP,
	};
	static const struct option long_options[] = {
		{ "scenes", required_argument, NULL, OPT_SCENES },
		{ "our-scenes", required_argument, NULL, OPT_OURS },
		{ "textures", required_argument, NULL, OPT_TEXTURES },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "only", required_argument, NULL, OPT_ONLY },
		{ "frames", required_argument, NULL, OPT_FRAMES },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "cold", required_argument, NULL, OPT_COLD },
		{ "workers", required_argument, NULL, OPT_WORKERS },
		{ "heavy-commands", required_argument, NULL, OPT_HEAVY },
		{ "budget-ms", required_argument, NULL, OPT_BUDGET },
		{ "ramp-frames", required_argument, NULL, OPT_RAMP_FRAMES },
		{ "scene-budget", required_argument, NULL, OPT_SCENE_BUDGET },
		{ "no-ramp", no_argument, NULL, OPT_NO_RAMP },
		{ "no-cairo", no_argument, NULL, OPT_NO_CAIRO },
		{ "no-memory", no_argument, NULL, OPT_NO_MEMORY },
		{ "verbose", no_argument, NULL, OPT_VERBOSE },
		{ "images", no_argument, NULL, OPT_IMAGES },
		{ "no-calibrate", no_argument, NULL, OPT_NO_CALIBRATE },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		{ "help", no_argument, NULL, OPT_HELP },
		{ 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_SCENES: add_scene_dirs(&b->opts, optarg); break;
		case OPT_OURS: b->opts.our_dir = optarg; break;
		case OPT_TEXTURES: b->opts.textures_dir = optarg; break;
		case OPT_OUT: b->opts.out_dir = optarg; break;
		case OPT_ONLY: b->opts.only = optarg; break;
		case OPT_FRAMES:
			b->opts.frames = parse_int(optarg, 1, "--frames");
			break;
		case OPT_WARMUP:
			b->opts.warmup = parse_int(optarg, 0, "--warmup");
			break;
		case OPT_COLD: b->opts.cold = parse_int(optarg, 0, "--cold"); break;
		case OPT_WORKERS:
			b->opts.max_workers = parse_int(optarg, 1, "--workers");
			break;
		case OPT_HEAVY:
			b->opts.heavy_commands = parse_int(optarg, 0, "--heavy-commands");
			break;
		case OPT_BUDGET:
			b->opts.budget_ms = parse_double(optarg, "--budget-ms");
			break;
		case OPT_RAMP_FRAMES:
			b->opts.ramp_frames = parse_int(optarg, 1, "--ramp-frames");
			break;
		case OPT_SCENE_BUDGET:
			b->opts.scene_budget_s = parse_double(optarg, "--scene-budget");
			break;
		case OPT_NO_RAMP: b->opts.ramp = false; break;
		case OPT_NO_CAIRO: b->opts.cairo = false; break;
		case OPT_NO_MEMORY: b->opts.memory = false; break;
		case OPT_VERBOSE: b->opts.verbose = true; break;
		case OPT_IMAGES: b->opts.images = true; break;
		case OPT_NO_CALIBRATE: b->opts.calibrate = false; break;
		case OPT_ENGINE:
			if (strcmp(optarg, "auto") == 0) {
				b->opts.engine = ENGINE_AUTO;
			} else if (strcmp(optarg, "vulkan") == 0) {
				b->opts.engine = ENGINE_VULKAN;
			} else if (strcmp(optarg, "cpu") == 0) {
				b->opts.engine = ENGINE_CPU;
			} else {
				fprintf(stderr,
						"bench-render: --engine %s: expected auto, "
						"vulkan or cpu\n",
						optarg);
				return 2;
			}
			break;
		case OPT_HELP: usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	vr_set_log_func(quiet_log);

	/* Vulkan or skip */
	struct vr_renderer_options probe_opts = { .sequential = true };
	struct vr_renderer *probe = vr_renderer_create(&probe_opts);
	if (probe == NULL) {
		printf("bench-render: no usable Vulkan device (install a Vulkan "
			   "driver, e.g. mesa-vulkan-drivers for lavapipe): skipped\n");
		return EXIT_SKIP;
	}
	char device[128];
	snprintf(device, sizeof(device), "%s", vr_renderer_device_name(probe));
	vr_renderer_destroy(probe);

	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	b->cores = cores > 0 ? (int)cores : 1;
	int max_workers = b->opts.max_workers > 0 ? b->opts.max_workers : b->cores;
	if (max_workers > MAX_MODES - 4) {
		max_workers = MAX_MODES - 4;
	}
	b->modes[b->nmodes++] = (struct mode){ .label = "seq", .sequential = true };
	b->seq_mode = 0;
	for (int w = 1; w <= max_workers; w++) {
		struct mode *mode = &b->modes[b->nmodes++];
		*mode = (struct mode){ .workers = w };
		snprintf(mode->label, sizeof(mode->label), "par%d", w);
	}
	b->all_mode = b->nmodes - 1;
	b->par_mode = max_workers >= 2 ? 2 : b->all_mode; /* par2 */
	/* the CPU backend: one worker and one per core, at least two */
	b->cpu1_mode = b->nmodes;
	b->modes[b->nmodes++] =
			(struct mode){ .label = "cpu1", .cpu = true, .workers = 1 };
	b->cpun_mode = b->nmodes;
	int cpu_workers = b->cores > 2 ? b->cores : 2;
	struct mode *cpun = &b->modes[b->nmodes++];
	*cpun = (struct mode){ .cpu = true, .workers = cpu_workers };
	snprintf(cpun->label, sizeof(cpun->label), "cpu%d", cpu_workers);
	b->cairo_mode = MAX_MODES;
	if (b->opts.cairo && cairo_peer_available()) {
		b->cairo_mode = b->nmodes;
		b->modes[b->nmodes++] =
				(struct mode){ .label = "cairo", .cairo = true };
	} else if (b->opts.cairo) {
		printf("bench-render: Cairo not found at build time: the Cairo peer "
			   "is skipped\n");
	}

	/* scenes */
	static struct scene_file files[2 * MAX_SCENES];
	size_t nfiles = 0;
	for (size_t d = 0; d < b->opts.nscenes_dirs; d++) {
		const char *dir = b->opts.scenes_dirs[d];
		size_t n = list_scenes(dir, ".txt", false, files + nfiles,
				2 * MAX_SCENES - nfiles);
		for (size_t i = nfiles; i < nfiles + n; i++) {
			if (b->opts.textures_dir != NULL) {
				snprintf(files[i].textures, sizeof(files[i].textures), "%s",
						b->opts.textures_dir);
			} else {
				snprintf(files[i].textures, sizeof(files[i].textures),
						"%s/textures", dir);
			}
		}
		nfiles += n;
	}
	if (b->opts.our_dir != NULL) {
		size_t n = list_scenes(b->opts.our_dir, ".json", true, files + nfiles,
				2 * MAX_SCENES - nfiles);
		for (size_t i = nfiles; i < nfiles + n; i++) {
			snprintf(files[i].textures, sizeof(files[i].textures), "%s",
					b->opts.textures_dir != NULL     ? b->opts.textures_dir :
							b->opts.nscenes_dirs > 0 ? files[0].textures :
													   ".");
		}
		nfiles += n;
	}
	if (nfiles == 0) {
		fprintf(stderr,
				"bench-render: no scenes (give --scenes and/or "
				"--our-scenes)\n");
		return 1;
	}
	fprintf(stderr, "bench-render: %zu scene files, device %s, modes:", nfiles,
			device);
	for (size_t m = 0; m < b->nmodes; m++) {
		fprintf(stderr, " %s", b->modes[m].label);
	}
	fprintf(stderr, "\n");

	uint64_t t_start = now_ns();
	if (b->opts.calibrate) {
		calibrate(b);
	}
	choose_engine(b);
	progress(b, "calibrated in %.1f s\n", ms(now_ns() - t_start) / 1000.0);
	struct scene_file heaviest = { .path = "" };
	double heaviest_ms = -1.0;
	for (size_t i = 0; i < nfiles; i++) {
		const char *base = strrchr(files[i].path, '/');
		base = base != NULL ? base + 1 : files[i].path;
		if (b->opts.only != NULL && strstr(base, b->opts.only) == NULL) {
			continue;
		}
		struct bench_scene *scene = load_scene(&files[i]);
		if (scene == NULL) {
			continue;
		}
		measure_scene(b, scene);
		const struct scene_result *r = b->results[b->nresults - 1];
		double seq = result_med(r, b->seq_mode, PHASE_WARM, F_CPU);
		if (!r->failed && seq > heaviest_ms) {
			heaviest_ms = seq;
			heaviest = files[i];
		}
		bench_scene_destroy(scene);
	}
	if (b->opts.ramp) {
		measure_ramp(b);
	}
	if (b->opts.memory && heaviest.path[0] != '\0') {
		struct bench_scene *scene = load_scene(&heaviest);
		if (scene != NULL) {
			measure_memory(b, scene);
			bench_scene_destroy(scene);
		}
	}
	progress(b, "measured in %.1f s\n", ms(now_ns() - t_start) / 1000.0);

	mkdir(b->opts.out_dir, 0755);
	char csv[1200], png[1200];
	snprintf(csv, sizeof(csv), "%s/bench-render.csv", b->opts.out_dir);
	snprintf(png, sizeof(png), "%s/bench-render.png", b->opts.out_dir);
	bool ok = write_csv(b, csv);
	bool plotted = draw_plot(b, png);
	struct summary s = summarise(b);
	print_summary(b, &s, device, csv, plotted ? png : NULL);

	bool failed = false;
	for (size_t i = 0; i < b->nresults; i++) {
		failed = failed || b->results[i]->failed;
		for (size_t m = 0; m < MAX_MODES; m++) {
			for (int p = 0; p < PHASE_COUNT; p++) {
				free(b->results[i]->series[m][p].samples);
			}
		}
		free(b->results[i]);
	}
	free(b);
	return ok && plotted && !failed ? 0 : 1;
}
