/*
 * Paths: verbs and points recorded in local coordinates, flattened into
 * polylines in pixel space when a task is executed (the tolerance is in
 * the target's pixels, so a scaled path stays smooth).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "display_list.h"

/* Segments per curve are bounded: a huge curve degrades to straight
 * pieces of several pixels rather than millions of points. */
#define MAX_CURVE_SEGMENTS 256

bool vr_grow(void **data, size_t *cap, size_t need, size_t elem) {
	if (need <= *cap) {
		return true;
	}
	size_t new_cap = *cap > 0 ? *cap : 16;
	while (new_cap < need) {
		new_cap *= 2;
	}
	void *new_data = realloc(*data, new_cap * elem);
	if (new_data == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return false;
	}
	*data = new_data;
	*cap = new_cap;
	return true;
}

struct vr_path *vr_path_create(void) {
	struct vr_path *path = calloc(1, sizeof(*path));
	if (path == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
	}
	return path;
}

void vr_path_destroy(struct vr_path *path) {
	if (path == NULL) {
		return;
	}
	free(path->verbs);
	free(path->points);
	free(path);
}

struct vr_path *vr_path_copy(const struct vr_path *path) {
	struct vr_path *copy = vr_path_create();
	if (copy == NULL) {
		return NULL;
	}
	if (path->nverbs > 0) {
		copy->verbs = malloc(path->nverbs);
		copy->points = malloc(path->npoints * 2 * sizeof(float) + 1);
		if (copy->verbs == NULL || copy->points == NULL) {
			vr_log(VR_LOG_ERROR, "allocation failed");
			vr_path_destroy(copy);
			return NULL;
		}
		memcpy(copy->verbs, path->verbs, path->nverbs);
		memcpy(copy->points, path->points, path->npoints * 2 * sizeof(float));
	}
	copy->nverbs = copy->verbs_cap = path->nverbs;
	copy->npoints = copy->points_cap = path->npoints;
	copy->open = path->open;
	copy->start[0] = path->start[0];
	copy->start[1] = path->start[1];
	return copy;
}

static void add_verb(struct vr_path *path, enum vr_path_verb verb,
		const float *points, size_t npoints) {
	if (!vr_grow((void **)&path->verbs, &path->verbs_cap, path->nverbs + 1,
				1) ||
			!vr_grow((void **)&path->points, &path->points_cap,
					path->npoints + npoints, 2 * sizeof(float))) {
		return; /* logged; the path misses this verb */
	}
	path->verbs[path->nverbs++] = (uint8_t)verb;
	if (npoints > 0) {
		memcpy(path->points + path->npoints * 2, points,
				npoints * 2 * sizeof(float));
	}
	path->npoints += npoints;
}

/* A drawing verb without a current point starts where the last contour
 * started (or at the origin), as in SkPath. */
static void ensure_open(struct vr_path *path) {
	if (!path->open) {
		vr_path_move_to(path, path->start[0], path->start[1]);
	}
}

void vr_path_move_to(struct vr_path *path, float x, float y) {
	float p[2] = { x, y };
	add_verb(path, VR_PATH_MOVE, p, 1);
	path->open = true;
	path->start[0] = x;
	path->start[1] = y;
}

void vr_path_line_to(struct vr_path *path, float x, float y) {
	ensure_open(path);
	float p[2] = { x, y };
	add_verb(path, VR_PATH_LINE, p, 1);
}

void vr_path_quad_to(struct vr_path *path, float cx, float cy, float x,
		float y) {
	ensure_open(path);
	float p[4] = { cx, cy, x, y };
	add_verb(path, VR_PATH_QUAD, p, 2);
}

void vr_path_cubic_to(struct vr_path *path, float c1x, float c1y, float c2x,
		float c2y, float x, float y) {
	ensure_open(path);
	float p[6] = { c1x, c1y, c2x, c2y, x, y };
	add_verb(path, VR_PATH_CUBIC, p, 3);
}

void vr_path_close(struct vr_path *path) {
	if (!path->open) {
		return;
	}
	add_verb(path, VR_PATH_CLOSE, NULL, 0);
	path->open = false;
}

bool vr_path_bounds(const struct vr_path *path, struct vr_rectf *bounds) {
	if (path->npoints == 0) {
		return false;
	}
	float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
	for (size_t i = 0; i < path->npoints; i++) {
		float x = path->points[2 * i], y = path->points[2 * i + 1];
		x0 = fminf(x0, x);
		y0 = fminf(y0, y);
		x1 = fmaxf(x1, x);
		y1 = fmaxf(y1, y);
	}
	*bounds = (struct vr_rectf){ x0, y0, x1 - x0, y1 - y0 };
	return true;
}

/* ---- flattening --------------------------------------------------------- */

void vr_polylines_finish(struct vr_polylines *lines) {
	free(lines->points);
	free(lines->contours);
	*lines = (struct vr_polylines){ 0 };
}

static bool add_point(struct vr_polylines *out, float x, float y) {
	struct vr_contour *c = &out->contours[out->ncontours - 1];
	if (c->count > 0) {
		const float *last = &out->points[(out->npoints - 1) * 2];
		if (last[0] == x && last[1] == y) {
			return true;
		}
	}
	if (!vr_grow((void **)&out->points, &out->points_cap, out->npoints + 1,
				2 * sizeof(float))) {
		return false;
	}
	out->points[out->npoints * 2] = x;
	out->points[out->npoints * 2 + 1] = y;
	out->npoints++;
	c->count++;
	return true;
}

static bool begin_contour(struct vr_polylines *out, float x, float y) {
	if (out->ncontours > 0 && out->contours[out->ncontours - 1].count <= 1) {
		/* a lone move: reuse its slot */
		out->npoints -= out->contours[out->ncontours - 1].count;
		out->ncontours--;
	}
	if (!vr_grow((void **)&out->contours, &out->contours_cap,
				out->ncontours + 1, sizeof(struct vr_contour))) {
		return false;
	}
	out->contours[out->ncontours++] = (struct vr_contour){
		.start = (uint32_t)out->npoints,
	};
	return add_point(out, x, y);
}

/* Number of segments keeping a degree-n Bezier with the given largest
 * second difference of its control points within tol (Wang's formula). */
static int curve_segments(float degree, float dd, float tol) {
	float n = ceilf(sqrtf(degree * (degree - 1.0f) / 8.0f * dd / tol));
	if (!(n >= 1.0f)) {
		return 1;
	}
	return n > MAX_CURVE_SEGMENTS ? MAX_CURVE_SEGMENTS : (int)n;
}

static float len2(float x, float y) {
	return sqrtf(x * x + y * y);
}

bool vr_path_flatten(const struct vr_path *path, const struct vr_mat *mat,
		float tolerance, struct vr_polylines *out) {
	out->npoints = 0;
	out->ncontours = 0;
	const float *pts = path->points;
	float cur[2] = { 0.0f, 0.0f }, start[2] = { 0.0f, 0.0f };
	bool open = false;
	for (size_t i = 0; i < path->nverbs; i++) {
		float p[6];
		int n = 0;
		switch ((enum vr_path_verb)path->verbs[i]) {
		case VR_PATH_MOVE:
		case VR_PATH_LINE: n = 1; break;
		case VR_PATH_QUAD: n = 2; break;
		case VR_PATH_CUBIC: n = 3; break;
		case VR_PATH_CLOSE: n = 0; break;
		}
		for (int k = 0; k < n; k++) {
			vr_mat_apply(mat, pts[2 * k], pts[2 * k + 1], &p[2 * k],
					&p[2 * k + 1]);
		}
		pts += 2 * n;
		switch ((enum vr_path_verb)path->verbs[i]) {
		case VR_PATH_MOVE:
			if (!begin_contour(out, p[0], p[1])) {
				return false;
			}
			start[0] = cur[0] = p[0];
			start[1] = cur[1] = p[1];
			open = true;
			break;
		case VR_PATH_LINE:
			if (!add_point(out, p[0], p[1])) {
				return false;
			}
			cur[0] = p[0];
			cur[1] = p[1];
			break;
		case VR_PATH_QUAD: {
			float dd = len2(cur[0] - 2 * p[0] + p[2], cur[1] - 2 * p[1] + p[3]);
			int segs = curve_segments(2.0f, dd, tolerance);
			for (int s = 1; s <= segs; s++) {
				float t = (float)s / (float)segs, u = 1.0f - t;
				float x = u * u * cur[0] + 2 * u * t * p[0] + t * t * p[2];
				float y = u * u * cur[1] + 2 * u * t * p[1] + t * t * p[3];
				if (s == segs) {
					x = p[2];
					y = p[3];
				}
				if (!add_point(out, x, y)) {
					return false;
				}
			}
			cur[0] = p[2];
			cur[1] = p[3];
			break;
		}
		case VR_PATH_CUBIC: {
			float dd1 =
					len2(cur[0] - 2 * p[0] + p[2], cur[1] - 2 * p[1] + p[3]);
			float dd2 = len2(p[0] - 2 * p[2] + p[4], p[1] - 2 * p[3] + p[5]);
			int segs = curve_segments(3.0f, fmaxf(dd1, dd2), tolerance);
			for (int s = 1; s <= segs; s++) {
				float t = (float)s / (float)segs, u = 1.0f - t;
				float b0 = u * u * u, b1 = 3 * u * u * t;
				float b2 = 3 * u * t * t, b3 = t * t * t;
				float x = b0 * cur[0] + b1 * p[0] + b2 * p[2] + b3 * p[4];
				float y = b0 * cur[1] + b1 * p[1] + b2 * p[3] + b3 * p[5];
				if (s == segs) {
					x = p[4];
					y = p[5];
				}
				if (!add_point(out, x, y)) {
					return false;
				}
			}
			cur[0] = p[4];
			cur[1] = p[5];
			break;
		}
		case VR_PATH_CLOSE:
			if (open && out->ncontours > 0) {
				struct vr_contour *c = &out->contours[out->ncontours - 1];
				/* the closing point duplicates the start */
				const float *last = &out->points[(out->npoints - 1) * 2];
				if (c->count > 1 && last[0] == start[0] &&
						last[1] == start[1]) {
					out->npoints--;
					c->count--;
				}
				c->closed = true;
			}
			cur[0] = start[0];
			cur[1] = start[1];
			open = false;
			break;
		}
	}
	if (out->ncontours > 0 && out->contours[out->ncontours - 1].count <= 1) {
		out->npoints -= out->contours[out->ncontours - 1].count;
		out->ncontours--;
	}
	return true;
}
