/*
 * VR_TASK_TRIANGLES: strokes and filled paths, tessellated on the CPU in
 * target pixels (paths are flattened there, so the tolerance is in
 * pixels), anti-aliased by a fringe: every vertex carries distances the
 * fragment shader turns into coverage (struct vr_tri_vertex, tri.frag).
 *
 * Strokes: one trapezoid per segment, u the signed distance across it
 * (exact: its corners lie on the offset lines at half width + 1 pixel);
 * consecutive segments share the intersection of their inner offset
 * lines, so the inside of a join is drawn once; the outside gets the
 * join's wedge (miter within the limit, else bevel; or a round fan).
 * Butt and square caps cut with v0 / v1, distances past the ends; round
 * caps are half fans. Coverage = clamp(w + 0.5 - |u|) (a pixel-wide ramp
 * centred on each edge, as exact as the shapes' SDF on straight parts).
 *
 * Fills: the flattened contours are split into trapezoids by a sweep
 * over the y of every vertex and edge intersection, keeping the spans the
 * fill rule (nonzero or even-odd) calls inside: robust for holes and
 * self-intersections. Their pixels (centres inside) are opaque; a
 * one-pixel fringe outside every boundary edge (an edge with inside on
 * one side only) adds coverage 0.5 - distance.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine_private.h"

/* "No limit" for the distances the shader clamps. */
#define FAR 1e5f
#define PI 3.14159265358979f
/* Round joins and caps: segments per full turn for a radius r (pixels). */
#define ROUND_MIN_SEGMENTS 8
#define ROUND_MAX_SEGMENTS 128
/* Fills with more edges skip the self-intersection search (O(n^2)). */
#define MAX_INTERSECTION_EDGES 4096

struct vec2 {
	float x, y;
};

static struct vec2 v2(float x, float y) {
	return (struct vec2){ x, y };
}

static struct vec2 add(struct vec2 a, struct vec2 b) {
	return v2(a.x + b.x, a.y + b.y);
}

static struct vec2 sub(struct vec2 a, struct vec2 b) {
	return v2(a.x - b.x, a.y - b.y);
}

static struct vec2 scale(struct vec2 a, float s) {
	return v2(a.x * s, a.y * s);
}

static float dot(struct vec2 a, struct vec2 b) {
	return a.x * b.x + a.y * b.y;
}

static float cross(struct vec2 a, struct vec2 b) {
	return a.x * b.y - a.y * b.x;
}

static float length(struct vec2 a) {
	return sqrtf(dot(a, a));
}

/* Left normal of a unit direction. */
static struct vec2 normal(struct vec2 d) {
	return v2(-d.y, d.x);
}

/* ---- output ------------------------------------------------------------- */

struct tess {
	struct vr_tri_vertex base; /* colour and clip of every vertex */
	char *v; /* count vertices, stride bytes each (a prefix) */
	size_t stride;
	size_t count, cap;
	bool failed;
};

/* A vertex: position, u, v0, v1; w and e are per triangle (flat). */
struct pt {
	struct vec2 p;
	float u, v0, v1;
};

static struct pt pt(struct vec2 p, float u, float v0, float v1) {
	return (struct pt){ p, u, v0, v1 };
}

static void tri(struct tess *t, struct pt a, struct pt b, struct pt c, float w,
		float e) {
	if (t->failed ||
			!vr_grow((void **)&t->v, &t->cap, t->count + 3, t->stride)) {
		t->failed = true;
		return;
	}
	const struct pt *pts[3] = { &a, &b, &c };
	for (int i = 0; i < 3; i++) {
		struct vr_tri_vertex v = t->base;
		v.pos[0] = pts[i]->p.x;
		v.pos[1] = pts[i]->p.y;
		v.aa[0] = pts[i]->u;
		v.aa[1] = pts[i]->v0;
		v.aa[2] = pts[i]->v1;
		v.shape[0] = w;
		v.shape[1] = e;
		memcpy(t->v + t->count++ * t->stride, &v, t->stride);
	}
}

static int round_segments(float radius, float angle) {
	float full = ceilf(2.0f * PI /
			acosf(fmaxf(1.0f - 0.25f / fmaxf(radius, 0.5f), -1.0f)));
	if (!(full >= ROUND_MIN_SEGMENTS)) {
		full = ROUND_MIN_SEGMENTS;
	}
	if (full > ROUND_MAX_SEGMENTS) {
		full = ROUND_MAX_SEGMENTS;
	}
	int n = (int)ceilf(full * angle / (2.0f * PI));
	return n < 1 ? 1 : n;
}

/* A fan around c from angle a0 by sweep (signed), rim at distance r with
 * u = r: u interpolates the distance to c. */
static void fan(struct tess *t, struct vec2 c, float r, float a0, float sweep,
		float w) {
	int n = round_segments(r, fabsf(sweep));
	struct pt centre = pt(c, 0.0f, -FAR, -FAR);
	struct vec2 prev = add(c, v2(cosf(a0) * r, sinf(a0) * r));
	for (int i = 1; i <= n; i++) {
		float a = a0 + sweep * (float)i / (float)n;
		struct vec2 next = add(c, v2(cosf(a) * r, sinf(a) * r));
		tri(t, centre, pt(prev, r, -FAR, -FAR), pt(next, r, -FAR, -FAR), w,
				0.0f);
		prev = next;
	}
}

/* ---- strokes ------------------------------------------------------------ */

struct stroke {
	float hw; /* half width, pixels */
	float r; /* hw + the fringe */
	enum vr_line_join join;
	enum vr_line_cap cap;
	float miter_limit;
};

/* The corners of a segment's trapezoid at one end: left and right of the
 * direction (u = +r and -r). */
struct end {
	struct vec2 left, right;
};

/*
 * The join at p between direction d0 (in) and d1 (out), given the lengths
 * of both segments: emits the wedge, returns the corners for the end of
 * the incoming segment (*in) and the start of the outgoing one (*out).
 */
static void join(struct tess *t, const struct stroke *s, struct vec2 p,
		struct vec2 d0, struct vec2 d1, float len0, float len1, struct end *in,
		struct end *out) {
	struct vec2 n0 = normal(d0), n1 = normal(d1);
	float r = s->r;
	in->left = add(p, scale(n0, r));
	in->right = sub(p, scale(n0, r));
	out->left = add(p, scale(n1, r));
	out->right = sub(p, scale(n1, r));
	float c = cross(d0, d1);
	float cos_turn = dot(d0, d1);
	if (fabsf(c) < 1e-6f && cos_turn > 0.0f) {
		return; /* straight on */
	}
	/* the outer side: the left when turning right (c < 0) */
	float side = c < 0.0f ? 1.0f : -1.0f;
	struct vec2 m = add(n0, n1);
	float mlen = length(m);
	struct vec2 outer0 = side > 0 ? in->left : in->right;
	struct vec2 outer1 = side > 0 ? out->left : out->right;
	struct pt centre = pt(p, 0.0f, -FAR, -FAR);
	/* the inner corner: where the inner offset lines meet, if it lies
	 * within half of both segments; else each keeps its own */
	if (mlen > 1e-6f) {
		struct vec2 mu = scale(m, 1.0f / mlen);
		float cos_half = dot(mu, n0);
		float reach = r * sqrtf(fmaxf(1.0f - cos_half * cos_half, 0.0f)) /
				fmaxf(cos_half, 1e-6f);
		if (cos_half > 1e-3f && reach <= 0.5f * fminf(len0, len1)) {
			struct vec2 inner = sub(p, scale(mu, side * r / cos_half));
			if (side > 0) {
				in->right = out->right = inner;
			} else {
				in->left = out->left = inner;
			}
		}
	}
	struct vec2 inner0 = side > 0 ? in->right : in->left;
	struct vec2 inner1 = side > 0 ? out->right : out->left;
	float uo = side * r; /* u on the outer side */
	/* the segments' extensions up to p */
	tri(t, pt(inner0, -uo, -FAR, -FAR), pt(outer0, uo, -FAR, -FAR), centre,
			s->hw, 0.0f);
	tri(t, pt(inner1, -uo, -FAR, -FAR), centre, pt(outer1, uo, -FAR, -FAR),
			s->hw, 0.0f);
	/* the outer wedge */
	float u = fabsf(uo);
	switch (s->join) {
	case VR_JOIN_ROUND: {
		float a0 = atan2f(outer0.y - p.y, outer0.x - p.x);
		float turn = acosf(vr_clampf(cos_turn, -1.0f, 1.0f));
		/* the normals turn as the directions do: by sign(c) * turn */
		fan(t, p, r, a0, c > 0.0f ? turn : -turn, s->hw);
		return;
	}
	case VR_JOIN_MITER:
		if (mlen > 1e-6f) {
			struct vec2 mu = scale(m, 1.0f / mlen);
			float cos_half = dot(mu, n0);
			if (cos_half > 1e-6f && 1.0f / cos_half <= s->miter_limit) {
				struct vec2 tip = add(p, scale(mu, side * r / cos_half));
				tri(t, centre, pt(outer0, u, -FAR, -FAR),
						pt(tip, u, -FAR, -FAR), s->hw, 0.0f);
				tri(t, centre, pt(tip, u, -FAR, -FAR),
						pt(outer1, u, -FAR, -FAR), s->hw, 0.0f);
				return;
			}
		}
		/* past the limit: bevel */
		/* fallthrough */
	case VR_JOIN_BEVEL:
		tri(t, centre, pt(outer0, u, -FAR, -FAR), pt(outer1, u, -FAR, -FAR),
				s->hw, 0.0f);
		return;
	}
}

static void stroke_dot(struct tess *t, const struct stroke *s, struct vec2 p) {
	switch (s->cap) {
	case VR_CAP_BUTT: return;
	case VR_CAP_ROUND: fan(t, p, s->r, 0.0f, 2.0f * PI, s->hw); return;
	case VR_CAP_SQUARE: {
		/* u across (y), v0 / v1 along (x): a square of side 2 hw */
		float r = s->r;
		struct pt a = pt(add(p, v2(-r, -r)), -r, r, -r);
		struct pt b = pt(add(p, v2(r, -r)), -r, -r, r);
		struct pt c = pt(add(p, v2(r, r)), r, -r, r);
		struct pt d = pt(add(p, v2(-r, r)), r, r, -r);
		tri(t, a, b, c, s->hw, s->hw);
		tri(t, a, c, d, s->hw, s->hw);
		return;
	}
	}
}

static void stroke_contour(struct tess *t, const struct stroke *s,
		const float *pts, uint32_t n, bool closed) {
	if (n == 1 || (n == 2 && closed && pts[0] == pts[2] && pts[1] == pts[3])) {
		if (!closed) {
			stroke_dot(t, s, v2(pts[0], pts[1]));
		}
		return;
	}
	uint32_t nsegs = closed ? n : n - 1;
	struct vec2 *dirs = malloc(nsegs * sizeof(*dirs));
	float *lens = malloc(nsegs * sizeof(*lens));
	struct end *starts = malloc(nsegs * sizeof(*starts));
	struct end *ends = malloc(nsegs * sizeof(*ends));
	if (dirs == NULL || lens == NULL || starts == NULL || ends == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		t->failed = true;
		goto out;
	}
	for (uint32_t i = 0; i < nsegs; i++) {
		uint32_t j = (i + 1) % n;
		struct vec2 d =
				v2(pts[2 * j] - pts[2 * i], pts[2 * j + 1] - pts[2 * i + 1]);
		lens[i] = length(d);
		dirs[i] = lens[i] > 0.0f ? scale(d, 1.0f / lens[i]) : v2(1.0f, 0.0f);
	}
	float r = s->r;
	/* the plain corners, replaced by joins below */
	for (uint32_t i = 0; i < nsegs; i++) {
		uint32_t j = (i + 1) % n;
		struct vec2 a = v2(pts[2 * i], pts[2 * i + 1]);
		struct vec2 b = v2(pts[2 * j], pts[2 * j + 1]);
		struct vec2 nn = scale(normal(dirs[i]), r);
		starts[i] = (struct end){ add(a, nn), sub(a, nn) };
		ends[i] = (struct end){ add(b, nn), sub(b, nn) };
	}
	uint32_t first_join = closed ? 0 : 1;
	for (uint32_t k = first_join; k < n; k++) {
		/* the join at point k, between segments k - 1 and k */
		uint32_t in = (k + nsegs - 1) % nsegs, out = k % nsegs;
		if (!closed && k == n - 1) {
			break;
		}
		join(t, s, v2(pts[2 * k], pts[2 * k + 1]), dirs[in], dirs[out],
				lens[in], lens[out], &ends[in], &starts[out]);
	}
	/* the bodies; open strokes cut their ends with v0 / v1 */
	float e = s->cap == VR_CAP_SQUARE ? s->hw : 0.0f;
	bool cut = !closed && s->cap != VR_CAP_ROUND;
	for (uint32_t i = 0; i < nsegs; i++) {
		struct vec2 a = v2(pts[2 * i], pts[2 * i + 1]);
		struct end st = starts[i], en = ends[i];
		bool cut0 = cut && i == 0, cut1 = cut && i == nsegs - 1;
		if (cut0) {
			/* extend the start by the cap and a pixel */
			struct vec2 back = scale(dirs[i], -(e + 1.0f));
			st.left = add(st.left, back);
			st.right = add(st.right, back);
		}
		if (cut1) {
			struct vec2 fwd = scale(dirs[i], e + 1.0f);
			en.left = add(en.left, fwd);
			en.right = add(en.right, fwd);
		}
		/* v0 = -s, v1 = s - len with s along the segment: affine, so
		 * exact at every corner of the trapezoid */
		const struct vec2 corners[4] = { st.left, st.right, en.left, en.right };
		struct pt p[4];
		for (int k = 0; k < 4; k++) {
			float along = dot(sub(corners[k], a), dirs[i]);
			p[k] = pt(corners[k], (k & 1) ? -r : r, cut0 ? -along : -FAR,
					cut1 ? along - lens[i] : -FAR);
		}
		tri(t, p[0], p[1], p[2], s->hw, e);
		tri(t, p[1], p[3], p[2], s->hw, e);
	}
	if (!closed && s->cap == VR_CAP_ROUND) {
		struct vec2 a = v2(pts[0], pts[1]);
		struct vec2 b = v2(pts[2 * (n - 1)], pts[2 * (n - 1) + 1]);
		float a0 = atan2f(dirs[0].x, -dirs[0].y); /* the left normal */
		fan(t, a, r, a0, PI, s->hw);
		struct vec2 dn = normal(dirs[nsegs - 1]);
		float a1 = atan2f(-dn.y, -dn.x); /* the right normal */
		fan(t, b, r, a1, PI, s->hw);
	}
out:
	free(dirs);
	free(lens);
	free(starts);
	free(ends);
}

/* ---- fills -------------------------------------------------------------- */

struct edge {
	struct vec2 a, b; /* a.y < b.y */
	int winding; /* +1 downwards, -1 upwards */
};

struct crossing {
	float x0, x1, xm; /* at the band's top, bottom and middle */
	int winding;
};

static int compare_float(const void *a, const void *b) {
	float fa = *(const float *)a, fb = *(const float *)b;
	return fa < fb ? -1 : fa > fb;
}

static int compare_crossing(const void *a, const void *b) {
	const struct crossing *ca = a, *cb = b;
	return ca->xm < cb->xm ? -1 : ca->xm > cb->xm;
}

static bool inside_rule(int winding, enum vr_fill_rule rule) {
	return rule == VR_FILL_EVEN_ODD ? (winding & 1) != 0 : winding != 0;
}

static float edge_x(const struct edge *e, float y) {
	float t = (y - e->a.y) / (e->b.y - e->a.y);
	return e->a.x + (e->b.x - e->a.x) * t;
}

/* Winding number of point p (crossings of the ray to +x). */
static int winding_at(const struct vr_polylines *lines, struct vec2 p) {
	int w = 0;
	for (size_t c = 0; c < lines->ncontours; c++) {
		const struct vr_contour *ct = &lines->contours[c];
		const float *pts = &lines->points[ct->start * 2];
		for (uint32_t i = 0; i < ct->count; i++) {
			uint32_t j = (i + 1) % ct->count;
			struct vec2 a = v2(pts[2 * i], pts[2 * i + 1]);
			struct vec2 b = v2(pts[2 * j], pts[2 * j + 1]);
			if ((a.y <= p.y) == (b.y <= p.y)) {
				continue;
			}
			float x = a.x + (b.x - a.x) * (p.y - a.y) / (b.y - a.y);
			if (x > p.x) {
				w += b.y > a.y ? 1 : -1;
			}
		}
	}
	return w;
}

static void fill_fringe(struct tess *t, const struct vr_polylines *lines,
		enum vr_fill_rule rule) {
	for (size_t c = 0; c < lines->ncontours; c++) {
		const struct vr_contour *ct = &lines->contours[c];
		const float *pts = &lines->points[ct->start * 2];
		for (uint32_t i = 0; i < ct->count && !t->failed; i++) {
			uint32_t j = (i + 1) % ct->count;
			struct vec2 a = v2(pts[2 * i], pts[2 * i + 1]);
			struct vec2 b = v2(pts[2 * j], pts[2 * j + 1]);
			struct vec2 d = sub(b, a);
			float len = length(d);
			if (len <= 0.0f) {
				continue;
			}
			struct vec2 n = scale(normal(d), 1.0f / len);
			struct vec2 mid = scale(add(a, b), 0.5f);
			bool left = inside_rule(
					winding_at(lines, add(mid, scale(n, 0.25f))), rule);
			bool right = inside_rule(
					winding_at(lines, sub(mid, scale(n, 0.25f))), rule);
			if (left == right) {
				continue; /* not a boundary */
			}
			struct vec2 out = left ? scale(n, -1.0f) : n;
			struct pt a0 = pt(a, 0.0f, -FAR, -FAR);
			struct pt b0 = pt(b, 0.0f, -FAR, -FAR);
			struct pt a1 = pt(add(a, out), 1.0f, -FAR, -FAR);
			struct pt b1 = pt(add(b, out), 1.0f, -FAR, -FAR);
			tri(t, a0, b0, b1, 0.0f, 0.0f);
			tri(t, a0, b1, a1, 0.0f, 0.0f);
		}
	}
}

static void fill(struct tess *t, const struct vr_polylines *lines,
		enum vr_fill_rule rule) {
	size_t nedges = 0;
	for (size_t c = 0; c < lines->ncontours; c++) {
		nedges += lines->contours[c].count;
	}
	struct edge *edges = malloc((nedges + 1) * sizeof(*edges));
	struct crossing *xs = malloc((nedges + 1) * sizeof(*xs));
	float *ys = NULL;
	size_t nys = 0, ys_cap = 0;
	if (edges == NULL || xs == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		t->failed = true;
		goto out;
	}
	nedges = 0;
	for (size_t c = 0; c < lines->ncontours; c++) {
		const struct vr_contour *ct = &lines->contours[c];
		const float *pts = &lines->points[ct->start * 2];
		for (uint32_t i = 0; i < ct->count; i++) {
			uint32_t j = (i + 1) % ct->count;
			struct vec2 a = v2(pts[2 * i], pts[2 * i + 1]);
			struct vec2 b = v2(pts[2 * j], pts[2 * j + 1]);
			if (!vr_grow((void **)&ys, &ys_cap, nys + 1, sizeof(float))) {
				t->failed = true;
				goto out;
			}
			ys[nys++] = a.y;
			if (a.y == b.y) {
				continue; /* crosses no scanline */
			}
			edges[nedges++] = a.y < b.y ? (struct edge){ a, b, 1 } :
										  (struct edge){ b, a, -1 };
		}
	}
	/* edge intersections split bands too */
	if (nedges <= MAX_INTERSECTION_EDGES) {
		for (size_t i = 0; i < nedges; i++) {
			for (size_t j = i + 1; j < nedges; j++) {
				const struct edge *e = &edges[i], *f = &edges[j];
				float y0 = fmaxf(e->a.y, f->a.y);
				float y1 = fminf(e->b.y, f->b.y);
				if (!(y1 > y0)) {
					continue;
				}
				float d0 = edge_x(e, y0) - edge_x(f, y0);
				float d1 = edge_x(e, y1) - edge_x(f, y1);
				if ((d0 < 0.0f && d1 > 0.0f) || (d0 > 0.0f && d1 < 0.0f)) {
					float y = y0 + (y1 - y0) * d0 / (d0 - d1);
					if (!vr_grow((void **)&ys, &ys_cap, nys + 1,
								sizeof(float))) {
						t->failed = true;
						goto out;
					}
					ys[nys++] = y;
				}
			}
		}
	}
	qsort(ys, nys, sizeof(float), compare_float);
	for (size_t b = 0; b + 1 < nys && !t->failed; b++) {
		float y0 = ys[b], y1 = ys[b + 1];
		if (!(y1 > y0)) {
			continue;
		}
		float ym = (y0 + y1) * 0.5f;
		size_t n = 0;
		for (size_t i = 0; i < nedges; i++) {
			const struct edge *e = &edges[i];
			if (e->a.y <= y0 && e->b.y >= y1) {
				xs[n++] = (struct crossing){ edge_x(e, y0), edge_x(e, y1),
					edge_x(e, ym), e->winding };
			}
		}
		qsort(xs, n, sizeof(*xs), compare_crossing);
		int winding = 0;
		size_t start = 0;
		for (size_t i = 0; i < n; i++) {
			bool was = inside_rule(winding, rule);
			winding += xs[i].winding;
			bool is = inside_rule(winding, rule);
			if (!was && is) {
				start = i;
			} else if (was && !is) {
				const struct crossing *l = &xs[start], *r = &xs[i];
				struct pt tl = pt(v2(l->x0, y0), 0.0f, -FAR, -FAR);
				struct pt tr = pt(v2(r->x0, y0), 0.0f, -FAR, -FAR);
				struct pt bl = pt(v2(l->x1, y1), 0.0f, -FAR, -FAR);
				struct pt br = pt(v2(r->x1, y1), 0.0f, -FAR, -FAR);
				tri(t, tl, tr, br, FAR, 0.0f);
				tri(t, tl, br, bl, FAR, 0.0f);
			}
		}
	}
	fill_fringe(t, lines, rule);
out:
	free(edges);
	free(xs);
	free(ys);
}

/* ---- tasks -------------------------------------------------------------- */

bool vr_geometry_tessellate(const struct vr_geometry *geometry,
		struct vr_tri_vertex **vertices, size_t *count) {
	void *v;
	bool ok = vr_geometry_tessellate_prefix(geometry,
			sizeof(struct vr_tri_vertex), &v, count);
	*vertices = v;
	return ok;
}

bool vr_geometry_tessellate_prefix(const struct vr_geometry *geometry,
		size_t stride, void **vertices, size_t *count) {
	*vertices = NULL;
	*count = 0;
	const struct vr_mat *m = &geometry->state.mat;
	struct vr_polylines lines = { 0 };
	if (!vr_path_flatten(geometry->path, m, VR_FLATTEN_TOLERANCE, &lines)) {
		vr_polylines_finish(&lines);
		return false;
	}
	struct tess t = { .stride = stride };
	for (int i = 0; i < 4; i++) {
		t.base.color[i] = geometry->state.color[i];
	}
	vr_vertex_clip_init(&t.base.clip, &geometry->state);
	const struct vr_paint *paint = &geometry->paint;
	if (paint->stroke_width > 0.0f) {
		float hw = paint->stroke_width *
				sqrtf(fabsf(m->a * m->d - m->b * m->c)) / 2.0f;
		struct stroke s = {
			.hw = hw,
			.r = hw + 1.0f,
			.join = paint->join,
			.cap = paint->cap,
			.miter_limit =
					paint->miter_limit > 0.0f ? paint->miter_limit : 4.0f,
		};
		for (size_t c = 0; c < lines.ncontours && !t.failed; c++) {
			const struct vr_contour *ct = &lines.contours[c];
			stroke_contour(&t, &s, &lines.points[ct->start * 2], ct->count,
					ct->closed);
		}
	} else {
		fill(&t, &lines, paint->fill_rule);
	}
	vr_polylines_finish(&lines);
	if (t.failed) {
		free(t.v);
		return false;
	}
	*vertices = t.v;
	*count = t.count;
	return true;
}
