/*
 * The CPU backend's quads, fixed-point triangles, analytic shapes and
 * tessellated triangles (see cpu_backend.c's top comment for the rules).
 */
#include "cpu_private.h"
#include "cpu_pixels.h"

/* ---- quads -------------------------------------------------------------- */

/* Row y of a coverage mask over [x0, x1): per pixel
 * lround(rclip coverage * alpha * 255); the pixels between the first and
 * the last fully covered ones are taken as covered (the clips are convex,
 * so is their intersection). */
static void rclip_row(const struct cpu_rclip *rc, int32_t x0, int32_t x1,
		int32_t y, float alpha, uint8_t *out) {
	float fy = (float)y + 0.5f;
	uint8_t full = (uint8_t)lroundf(alpha * 255.0f);
	int32_t x = x0;
	for (; x < x1; x++) {
		float c = rclip_coverage(rc, (float)x + 0.5f, fy);
		out[x - x0] = (uint8_t)lroundf(c * alpha * 255.0f);
		if (c >= 1.0f) {
			break;
		}
	}
	if (x >= x1) {
		return;
	}
	int32_t r = x1 - 1;
	for (; r > x; r--) {
		float c = rclip_coverage(rc, (float)r + 0.5f, fy);
		out[r - x0] = (uint8_t)lroundf(c * alpha * 255.0f);
		if (c >= 1.0f) {
			break;
		}
	}
	memset(out + (x - x0), full, (size_t)(r - x + 1));
}

/* ---- fixed-point triangles ---------------------------------------------- */

/*
 * Calls fn for each pixel of px->box whose centre the triangle covers
 * (vertices snapped to 1/256 pixel, top-left rule: reference.c's
 * raster_triangle, exactly, in integers), with the barycentric weights of
 * a, b, c interpolated from the unsnapped positions.
 */
void cpu_raster_triangle(const struct cpu_px *px, const float *a,
		const float *b, const float *c, cpu_pixel_fn fn, cpu_row_fn row_fn,
		void *data) {
	/* most triangles of a long path miss a band: reject them before
	 * any set-up (a pixel of margin: the exact rule follows) */
	const struct vr_box *s0 = &px->box;
	float lo_y = minf(a[1], minf(b[1], c[1]));
	float hi_y = maxf(a[1], maxf(b[1], c[1]));
	float lo_x = minf(a[0], minf(b[0], c[0]));
	float hi_x = maxf(a[0], maxf(b[0], c[0]));
	if (hi_y < (float)s0->y - 1.0f ||
			lo_y > (float)(s0->y + s0->height) + 1.0f ||
			hi_x < (float)s0->x - 1.0f ||
			lo_x > (float)(s0->x + s0->width) + 1.0f) {
		return;
	}
	int64_t p[3][2] = {
		{ snap256(a[0]), snap256(a[1]) },
		{ snap256(b[0]), snap256(b[1]) },
		{ snap256(c[0]), snap256(c[1]) },
	};
	int64_t area = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) -
			(p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
	if (area == 0) {
		return;
	}
	int order[3] = { 0, 1, 2 };
	if (area < 0) {
		order[1] = 2;
		order[2] = 1;
	}
	const float *f[3] = { a, b, c };
	double fa = ((double)f[1][0] - f[0][0]) * ((double)f[2][1] - f[0][1]) -
			((double)f[1][1] - f[0][1]) * ((double)f[2][0] - f[0][0]);
	if (fa == 0.0) {
		return;
	}
	/* the barycentric weights as planes in the pixel centre:
	 * w_i = wa_i cy + wb_i cx + wc_i, evaluated per pixel (never
	 * stepped), so a pixel's weights do not depend on the band */
	double wa[3], wb[3], wc[3];
	for (int i = 0; i < 3; i++) {
		const float *u = f[(i + 1) % 3], *v = f[(i + 2) % 3];
		double dx = (double)v[0] - u[0], dy = (double)v[1] - u[1];
		wa[i] = dx / fa;
		wb[i] = -dy / fa;
		wc[i] = (dy * u[0] - dx * u[1]) / fa;
	}
	int64_t minx = p[0][0], maxx = p[0][0], miny = p[0][1], maxy = p[0][1];
	for (int i = 1; i < 3; i++) {
		minx = p[i][0] < minx ? p[i][0] : minx;
		maxx = p[i][0] > maxx ? p[i][0] : maxx;
		miny = p[i][1] < miny ? p[i][1] : miny;
		maxy = p[i][1] > maxy ? p[i][1] : maxy;
	}
	const struct vr_box *s = &px->box;
	int64_t iy0 = floor_div(miny, 256), iy1 = floor_div(maxy + 255, 256);
	int64_t ix0 = floor_div(minx, 256), ix1 = floor_div(maxx + 255, 256);
	iy0 = iy0 > s->y ? iy0 : s->y;
	iy1 = iy1 < s->y + s->height ? iy1 : s->y + s->height;
	ix0 = ix0 > s->x ? ix0 : s->x;
	ix1 = ix1 < s->x + s->width ? ix1 : s->x + s->width;
	if (iy0 >= iy1 || ix0 >= ix1) {
		return;
	}
	/*
	 * Per edge, ev(x) = dx * (cy - ay) - dy * (256 x + 128 - ax) >= bias
	 * is k - 256 dy x >= 0 with k = dx * (cy - ay) - dy * (128 - ax) -
	 * bias, which grows by 256 dx a row. With dy != 0 the bound is
	 * floor(k / D), D = 256 |dy| (dy > 0: x <= it; dy < 0: x >= minus
	 * it), kept per row as a quotient and a remainder in [0, D) stepped
	 * without a division: the same integers as dividing on every row.
	 */
	struct {
		int64_t dy, k, sk; /* k: the row's, stepped by sk, for dy == 0 */
		int64_t q, r, d, sq, sr; /* dy != 0: floor(k / d) = q */
	} edge[3];
	for (int e = 0; e < 3; e++) {
		const int64_t *ea = p[order[e]], *eb = p[order[(e + 1) % 3]];
		int64_t dx = eb[0] - ea[0], dy = eb[1] - ea[1];
		bool tl = dy < 0 || (dy == 0 && dx > 0);
		int64_t bias = tl ? 0 : 1;
		int64_t cy = iy0 * 256 + 128;
		int64_t k = dx * (cy - ea[1]) - dy * (128 - ea[0]) - bias;
		edge[e].dy = dy;
		edge[e].k = k;
		edge[e].sk = 256 * dx;
		if (dy != 0) {
			int64_t d = 256 * (dy > 0 ? dy : -dy);
			int64_t step = 256 * dx;
			edge[e].d = d;
			edge[e].q = floor_div(k, d);
			edge[e].r = k - edge[e].q * d;
			edge[e].sq = floor_div(step, d);
			edge[e].sr = step - edge[e].sq * d;
		}
	}
	for (int64_t y = iy0; y < iy1; y++) {
		int64_t lo = ix0, hi = ix1 - 1; /* inclusive */
		for (int e = 0; e < 3; e++) {
			if (y > iy0) {
				if (edge[e].dy == 0) {
					edge[e].k += edge[e].sk;
				} else {
					/* the carry without a branch: it is taken about
					 * as often as not on a slanted edge */
					int64_t r = edge[e].r + edge[e].sr;
					int64_t over = r >= edge[e].d;
					edge[e].q += edge[e].sq + over;
					edge[e].r = r - (-over & edge[e].d);
				}
			}
			if (edge[e].dy == 0) {
				if (edge[e].k < 0) {
					hi = lo - 1;
				}
			} else if (edge[e].dy > 0) {
				/* x <= floor(k / (256 dy)) */
				hi = edge[e].q < hi ? edge[e].q : hi;
			} else {
				/* x >= ceil(k / (256 dy)), dy < 0: -floor(k / d) */
				int64_t m = -edge[e].q;
				lo = m > lo ? m : lo;
			}
		}
		double cyp = (double)y + 0.5;
		double wy[3];
		for (int i = 0; i < 3; i++) {
			wy[i] = wa[i] * cyp + wc[i];
		}
		if (row_fn != NULL) {
			if (lo <= hi) {
				row_fn(px, (int32_t)lo, (int32_t)hi, (int32_t)y, wy, wb, data);
			}
			continue;
		}
		for (int64_t x = lo; x <= hi; x++) {
			double cxp = (double)x + 0.5;
			double w[3] = { wy[0] + wb[0] * cxp, wy[1] + wb[1] * cxp,
				wy[2] + wb[2] * cxp };
			fn(px, (int32_t)x, (int32_t)y, w, data);
		}
	}
}

/* ---- quads (continued) -------------------------------------------------- */

struct quad_mask_ctx {
	uint8_t *data;
	int stride;
	struct vr_box box;
	const struct cpu_rclip *rc;
	float alpha;
};

static void quad_mask_pixel(const struct cpu_px *px, int32_t x, int32_t y,
		const double w[3], void *data) {
	(void)px;
	(void)w;
	struct quad_mask_ctx *q = data;
	float c = rclip_coverage(q->rc, (float)x + 0.5f, (float)y + 0.5f);
	q->data[(size_t)(y - q->box.y) * (size_t)q->stride +
			(size_t)(x - q->box.x)] = (uint8_t)lroundf(c * q->alpha * 255.0f);
}

void cpu_draw_quad(const struct cpu_px *px, const struct vr_draw_task *task) {
	struct vr_box box;
	if (task->axis_aligned) {
		struct vr_box cover = vr_quad_cover(task);
		box = vr_box_intersect(&cover, &px->box);
	} else {
		struct vr_box aabb = vr_box_intersect(&task->aabb, &task->clip);
		box = vr_box_intersect(&aabb, &px->box);
	}
	if (vr_box_empty(&box)) {
		return;
	}
	struct cpu_rclip rc;
	rclip_from_quad(&rc, task);
	/* an image drawn 1:1 at a whole-pixel offset (a window's buffer) is
	 * blitted: pixman copies its rows (SRC for XRGB, which it finds
	 * opaque) instead of fetching each texel through the transform */
	int32_t sx = box.x, sy = box.y;
	pixman_image_t *src = vr_quad_source_at(task,
			task->image != NULL ? frame_pixels(px, task->image) : NULL, &sx,
			&sy);
	if (src == NULL) {
		vr_log(VR_LOG_ERROR, "cpu: cannot build a source");
		return;
	}
	float alpha = task->image != NULL ? (float)task->a / 255.0f : 1.0f;
	pixman_image_t *mask = NULL;
	if (task->axis_aligned && !rc.on) {
		if (task->image != NULL && task->a < 255) {
			pixman_color_t color = { .alpha = (uint16_t)(task->a * 257) };
			mask = pixman_image_create_solid_fill(&color);
		}
	} else {
		mask = pixman_image_create_bits(PIXMAN_a8, box.width, box.height, NULL,
				0);
		if (mask == NULL) {
			pixman_image_unref(src);
			return;
		}
		uint8_t *data = (uint8_t *)pixman_image_get_data(mask);
		int stride = pixman_image_get_stride(mask);
		if (task->axis_aligned) {
			for (int32_t y = 0; y < box.height; y++) {
				rclip_row(&rc, box.x, box.x + box.width, box.y + y, alpha,
						data + (size_t)y * (size_t)stride);
			}
		} else {
			/* pixel centres inside the quad (GPU rule) */
			struct quad_mask_ctx q = { data, stride, box, &rc, alpha };
			struct cpu_px sub = *px;
			sub.box = box;
			float c[4][2];
			const float us[4] = { 0, 1, 0, 1 }, vs[4] = { 0, 0, 1, 1 };
			for (int i = 0; i < 4; i++) {
				vr_mat_apply(&task->mat, us[i], vs[i], &c[i][0], &c[i][1]);
			}
			cpu_raster_triangle(&sub, c[0], c[1], c[2], quad_mask_pixel, NULL,
					&q);
			cpu_raster_triangle(&sub, c[1], c[3], c[2], quad_mask_pixel, NULL,
					&q);
		}
	}
	int32_t mx = mask != NULL && (rc.on || !task->axis_aligned) ? 0 : box.x;
	int32_t my = mask != NULL && (rc.on || !task->axis_aligned) ? 0 : box.y;
	pixman_image_composite32(PIXMAN_OP_OVER, src, mask, px->image, sx, sy, mx,
			my, box.x, box.y, box.width, box.height);
	if (mask != NULL) {
		pixman_image_unref(mask);
	}
	pixman_image_unref(src);
}

/* ---- shapes ------------------------------------------------------------- */

/*
 * A row's straight section: in a rounded rectangle whose local y is the
 * same along a pixel row (the inverse matrix has b == 0), the pixels of
 * one half (px <= 0 or px > 0, one corner radius r) with
 * qx = |px| - hx + r <= 0 < qy = |py| - hy + r give vr_sdf_rrect the
 * same inputs but for mx = max(qx, 0), a zero whose square is +0: the
 * same distance, so the same coverage. The rows above and below a shape
 * (its antialiased fringe and the empty rows around it) are all straight
 * section but their corners: one evaluation per half instead of one per
 * pixel, bit for bit the same values.
 */
struct shape_row {
	bool on; /* a rounded rectangle with b == 0 in its inverse */
	float py;
	float r[2], qy[2]; /* per half: px <= 0, px > 0 */
	bool known[2];
	float coverage[2]; /* the shape's, without the rounded clips */
};

struct shape_eval {
	struct vr_mat inv;
	struct vr_shape_vertex v;
	float cx, cy;
	struct cpu_rclip rc;
	struct shape_row row;
};

/* A new row: its local y and, per half, whether it has a straight
 * section. */
static void shape_row_start(struct shape_eval *e, int32_t y) {
	struct shape_row *row = &e->row;
	row->known[0] = row->known[1] = false;
	if (!row->on) {
		return;
	}
	float fy = (float)y + 0.5f;
	/* vr_mat_apply's ly with b == 0: b x is a zero for every x */
	float ly = e->inv.b * 0.5f + e->inv.d * fy + e->inv.ty;
	row->py = ly - e->cy;
	const float *radii = e->v.radii;
	bool below = row->py > 0.0f;
	/* stored as pairs: cpu_draw_shape reads r[0..1] back at once, and a
	 * store of r[1] with qy[0] would not forward to that load */
	float r0 = below ? radii[3] : radii[0];
	float r1 = below ? radii[2] : radii[1];
	float qy0 = fabsf(row->py) - e->v.half[1] + r0;
	float qy1 = fabsf(row->py) - e->v.half[1] + r1;
	row->r[0] = r0;
	row->r[1] = r1;
	row->qy[0] = qy0;
	row->qy[1] = qy1;
}

/* The edge pixels of the rows of a fill, reused down its sides. With
 * c == 0 in the inverse too, a column has the same px, so the same qx, on
 * every row. On a row with qy <= 0 and qy <= qx at each pixel of its
 * half the left and right scans evaluated, vr_sdf_rrect's max(qx, qy) is
 * qx and my is a zero there: the distance is a function of qx alone, so
 * another such row with the same corner radii gets the same coverages
 * and the same scans (where each stopped). Plain and rounded rectangles
 * spend most rows between their corners this way. */
#define CPU_EDGE_MAX 32 /* edge pixels kept per side */

struct edge_profile {
	bool valid;
	float r[2]; /* the corner radii of the row it was made on */
	float min_qx[2]; /* per half, over the pixels evaluated */
	int32_t nl, nr; /* pixels of the left scan (to its stop), right scan */
	float cl[CPU_EDGE_MAX], cr[CPU_EDGE_MAX];
};

static inline float shape_cov_qx(struct shape_eval *e, int32_t x, int32_t y,
		float *qx_out, int *half_out) {
	float fx = (float)x + 0.5f, fy = (float)y + 0.5f;
	struct shape_row *row = &e->row;
	if (row->on) {
		/* vr_mat_apply's lx, the same operations */
		float px = e->inv.a * fx + e->inv.c * fy + e->inv.tx - e->cx;
		int half = px > 0.0f;
		float qx = fabsf(px) - e->v.half[0] + row->r[half];
		*qx_out = qx;
		*half_out = half;
		if (qx <= 0.0f && row->qy[half] > 0.0f) {
			if (!row->known[half]) {
				e->v.local[0] = px;
				e->v.local[1] = row->py;
				row->coverage[half] = vr_shape_coverage(&e->v);
				row->known[half] = true;
			}
			return row->coverage[half] * rclip_coverage(&e->rc, fx, fy);
		}
	}
	float lx, ly;
	vr_mat_apply(&e->inv, fx, fy, &lx, &ly);
	e->v.local[0] = lx - e->cx;
	e->v.local[1] = ly - e->cy;
	return vr_shape_coverage(&e->v) * rclip_coverage(&e->rc, fx, fy);
}

static inline float shape_cov(struct shape_eval *e, int32_t x, int32_t y) {
	float qx = 0.0f;
	int half = 0;
	return shape_cov_qx(e, x, y, &qx, &half);
}

/* The profile's records of a pixel of the scans. */
static inline void edge_note(struct edge_profile *p, float qx, int half) {
	p->min_qx[half] = minf(p->min_qx[half], qx);
}

/* Whether the current row may use the profile / make one. */
static bool edge_row_fits(const struct shape_row *row,
		const struct edge_profile *p) {
	for (int i = 0; i < 2; i++) {
		if (!(row->qy[i] <= 0.0f && row->qy[i] <= p->min_qx[i])) {
			return false;
		}
	}
	return true;
}

/*
 * A row of a fill above or below its straight sides (qy > 0 in both
 * halves: the antialiased fringe, the empty rows around the shape, the
 * rows of its corners) where no pixel is fully covered: the convex scan of
 * cpu_draw_shape would evaluate and blend every pixel from the left. With
 * inv.a > 0, px (the same operations as shape_cov_qx) is monotone in x,
 * so each half's straight section (qx <= 0: one coverage, the row's) is a
 * run of columns found by bisection on those same values; the pixels
 * outside it (the corners, at most CPU_EDGE_MAX a side) are evaluated,
 * the straight runs blended with their one coverage (blend_px, memoised)
 * or skipped at 0. The same values as the scan. Returns false, having
 * drawn nothing, where the scan would meet full coverage (it then stops,
 * and draws its middle as a span) or the corners are wider.
 */
static inline float fringe_px(const struct shape_eval *e, int32_t x, float fy) {
	float fx = (float)x + 0.5f;
	return e->inv.a * fx + e->inv.c * fy + e->inv.tx - e->cx;
}

static inline float fringe_qx(const struct shape_eval *e, float px, int half) {
	return fabsf(px) - e->v.half[0] + e->row.r[half];
}

/* What a column of a fringe row is tested for; each holds from some
 * column of a range on (px grows with x). */
enum fringe_test {
	FRINGE_RIGHT, /* px > 0: the right half */
	FRINGE_LEFT_STRAIGHT, /* left half, qx <= 0 (|px| falls) */
	FRINGE_RIGHT_CORNER, /* right half, qx > 0 (|px| grows) */
};

static inline bool fringe_holds(const struct shape_eval *e, int32_t x, float fy,
		enum fringe_test test) {
	float v = fringe_px(e, x, fy);
	switch (test) {
	case FRINGE_RIGHT: return v > 0.0f;
	case FRINGE_LEFT_STRAIGHT: return fringe_qx(e, v, 0) <= 0.0f;
	case FRINGE_RIGHT_CORNER: return fringe_qx(e, v, 1) > 0.0f;
	}
	return false;
}

/* The first column of [lo, hi) where test holds (hi: none), by
 * bisection. */
static int32_t fringe_first(const struct shape_eval *e, int32_t lo, int32_t hi,
		float fy, enum fringe_test test) {
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (fringe_holds(e, mid, fy, test)) {
			hi = mid;
		} else {
			lo = mid + 1;
		}
	}
	return lo;
}

static bool shape_fringe_row(const struct cpu_px *px, struct shape_eval *e,
		int32_t x0, int32_t end, int32_t y, const float *color) {
	float fy = (float)y + 0.5f;
	/* xm: where the right half begins; [s0, xm) and [xm, e1): the
	 * straight sections */
	int32_t xm = fringe_first(e, x0, end, fy, FRINGE_RIGHT);
	int32_t s0 = fringe_first(e, x0, xm, fy, FRINGE_LEFT_STRAIGHT);
	int32_t e1 = fringe_first(e, xm, end, fy, FRINGE_RIGHT_CORNER);
	int32_t nl = s0 - x0, nr = end - e1;
	if (nl > CPU_EDGE_MAX || nr > CPU_EDGE_MAX) {
		return false;
	}
	float straight[2] = { 0.0f, 0.0f };
	int32_t from[2] = { s0, xm }, to[2] = { xm, e1 };
	for (int h = 0; h < 2; h++) {
		if (from[h] < to[h]) {
			e->v.local[0] = fringe_px(e, from[h], fy);
			e->v.local[1] = e->row.py;
			straight[h] = vr_shape_coverage(&e->v);
			if (straight[h] >= 1.0f) {
				return false;
			}
		}
	}
	float cl[CPU_EDGE_MAX], cr[CPU_EDGE_MAX];
	for (int32_t i = 0; i < nl; i++) {
		cl[i] = shape_cov(e, x0 + i, y);
		if (cl[i] >= 1.0f) {
			return false;
		}
	}
	for (int32_t i = 0; i < nr; i++) {
		cr[i] = shape_cov(e, e1 + i, y);
		if (cr[i] >= 1.0f) {
			return false;
		}
	}
	for (int32_t i = 0; i < nl; i++) {
		blend_px(px_at(px, x0 + i, y), color, cl[i]);
	}
	for (int h = 0; h < 2; h++) {
		if (straight[h] <= 0.0f) {
			continue;
		}
		struct blend_memo memo;
		blend_memo_init(&memo);
		uint32_t *p = px_at(px, from[h], y);
		for (int32_t x = from[h]; x < to[h]; x++, p++) {
			blend_px_memo(&memo, p, color, straight[h]);
		}
	}
	for (int32_t i = 0; i < nr; i++) {
		blend_px(px_at(px, e1 + i, y), color, cr[i]);
	}
	return true;
}

void cpu_draw_shape(const struct cpu_px *px, const struct vr_shape *shape) {
	struct shape_eval e;
	if (!vr_mat_invert(&e.inv, &shape->state.mat)) {
		return;
	}
	vr_shape_vertex_init(shape, &e.v);
	e.cx = shape->rect.x + e.v.half[0];
	e.cy = shape->rect.y + e.v.half[1];
	rclip_from_state(&e.rc, &shape->state);
	struct vr_box box = scissor_clip(px, &shape->state.clip);
	/* the pixels the shape may cover (its batch's AABB is larger):
	 * coverage is 0 past half a pixel (1 / params[2] units) outside the
	 * shape, or the stroke's outer edge */
	float grow = shape->stroke_width * 0.5f +
			(e.v.params[2] > 0.0f ? 1.0f / e.v.params[2] : 1.0f);
	struct vr_box own = vr_mat_map_rect_bounds(&shape->state.mat,
			&(struct vr_rectf){ shape->rect.x - grow, shape->rect.y - grow,
					shape->rect.width + 2.0f * grow,
					shape->rect.height + 2.0f * grow });
	own.x -= 1;
	own.y -= 1;
	own.width += 2;
	own.height += 2;
	box = vr_box_intersect(&box, &own);
	const float *color = e.v.color;
	bool stroke = shape->stroke_width > 0.0f;
	struct blend_fx fx;
	blend_fx_init(&fx, color, 1.0f);
	e.row.on = e.v.params[0] <= 0.5f && e.inv.b == 0.0f;
	bool profiles = e.row.on && e.inv.c == 0.0f && !e.rc.on;
	struct edge_profile prof = { .valid = false };
	for (int32_t y = box.y; y < box.y + box.height; y++) {
		int32_t x = box.x, end = box.x + box.width;
		shape_row_start(&e, y);
		if (!stroke && profiles && prof.valid && e.row.r[0] == prof.r[0] &&
				e.row.r[1] == prof.r[1] && edge_row_fits(&e.row, &prof)) {
			for (int32_t i = 0; i < prof.nl; i++) {
				blend_px(px_at(px, x + i, y), color, prof.cl[i]);
			}
			x += prof.nl;
			int32_t r = end - 1;
			for (int32_t i = 0; i < prof.nr; i++, r--) {
				blend_px(px_at(px, r, y), color, prof.cr[i]);
			}
			blend_span(px, x, r + 1, y, color, &fx);
			continue;
		}
		if (!stroke && profiles && e.inv.a > 0.0f && e.row.qy[0] > 0.0f &&
				e.row.qy[1] > 0.0f &&
				shape_fringe_row(px, &e, x, end, y, color)) {
			continue;
		}
		if (!stroke) {
			/* convex: edge pixels from both ends, the rest covered */
			struct edge_profile next = {
				.valid = profiles,
				.r = { e.row.r[0], e.row.r[1] },
				.min_qx = { INFINITY, INFINITY },
			};
			for (; x < end; x++) {
				float qx = 0.0f;
				int half = 0;
				float c = shape_cov_qx(&e, x, y, &qx, &half);
				if (next.valid) {
					edge_note(&next, qx, half);
					if (next.nl < CPU_EDGE_MAX) {
						next.cl[next.nl++] = c;
					} else {
						next.valid = false;
					}
				}
				if (c >= 1.0f) {
					break;
				}
				blend_px(px_at(px, x, y), color, c);
			}
			if (next.valid) {
				next.nl--; /* the stop pixel, or past the row's end */
				if (x == end) {
					next.valid = false;
				}
			}
			int32_t r = end - 1;
			for (; r > x; r--) {
				float qx = 0.0f;
				int half = 0;
				float c = shape_cov_qx(&e, r, y, &qx, &half);
				if (next.valid) {
					edge_note(&next, qx, half);
				}
				if (c >= 1.0f) {
					break;
				}
				if (next.valid) {
					if (next.nr < CPU_EDGE_MAX) {
						next.cr[next.nr++] = c;
					} else {
						next.valid = false;
					}
				}
				blend_px(px_at(px, r, y), color, c);
			}
			if (next.valid && r > x && edge_row_fits(&e.row, &next)) {
				prof = next;
			}
			blend_span(px, x, r + 1, y, color, &fx);
			continue;
		}
		/* a ring: outside, the left part, the hole, the right part */
		bool inside = false;
		for (; x < end; x++) {
			float c = shape_cov(&e, x, y);
			if (c > 0.0f) {
				inside = true;
				blend_px(px_at(px, x, y), color, c);
			} else if (inside) {
				break;
			}
		}
		if (x >= end) {
			continue;
		}
		inside = false;
		for (int32_t r = end - 1; r > x; r--) {
			float c = shape_cov(&e, r, y);
			if (c > 0.0f) {
				inside = true;
				blend_px(px_at(px, r, y), color, c);
			} else if (inside) {
				break;
			}
		}
	}
}

/* ---- triangles ---------------------------------------------------------- */

struct tri_ctx {
	const struct cpu_tri_vertex *v; /* 3 */
	const float *color;
	struct cpu_rclip rc;
	/* an opaque colour: blend_px at coverage 1 stores it (src + d 0) */
	bool opaque;
	uint32_t solid;
	struct blend_fx fx; /* the colour at coverage 1 (blend_span) */
};

/* vr_tri_coverage's three arguments before their clamps at the pixel
 * centred at x + 0.5 of a row (cpu_raster_triangle's weights), and the
 * interpolated aa[0] (the first is w + 0.5 - |aa[0]|). */
static inline void tri_args(const struct tri_ctx *t, const double wy[3],
		const double wb[3], int32_t x, float f[3], float *aa0) {
	const struct cpu_tri_vertex *v = t->v;
	double cxp = (double)x + 0.5;
	double w[3] = { wy[0] + wb[0] * cxp, wy[1] + wb[1] * cxp,
		wy[2] + wb[2] * cxp };
	float aa[3];
	for (int i = 0; i < 3; i++) {
		aa[i] = (float)(w[0] * v[0].aa[i] + w[1] * v[1].aa[i] +
				w[2] * v[2].aa[i]);
	}
	float sw = v[0].shape[0], e = v[0].shape[1];
	f[0] = sw + 0.5f - fabsf(aa[0]);
	f[1] = e + 0.5f - aa[1];
	f[2] = e + 0.5f - aa[2];
	*aa0 = aa[0];
}

static inline void tri_pixel(const struct tri_ctx *t, const struct cpu_px *px,
		int32_t x, int32_t y, const float f[3]) {
	float c = vr_clampf(f[0], 0.0f, 1.0f) * vr_clampf(f[1], 0.0f, 1.0f) *
			vr_clampf(f[2], 0.0f, 1.0f);
	if (t->rc.on) {
		c *= rclip_coverage(&t->rc, (float)x + 0.5f, (float)y + 0.5f);
	}
	if (c >= 1.0f && t->opaque) {
		*px_at(px, x, y) = t->solid; /* the interior: no load */
		return;
	}
	blend_px(px_at(px, x, y), t->color, c);
}

/*
 * A row of a triangle in chunks of pixels aligned to CPU_TRI_CHUNK
 * columns. Along a row the three arguments of vr_tri_coverage are linear
 * in x (the weights are), but for the |aa[0]| of the first, which keeps
 * it concave: where every argument is at least 1 at both ends of a chunk
 * the coverage is 1 in between, a span (blend_span); where the second or
 * third is at most 0 at both ends, or the first with aa[0] of one sign,
 * it is 0: nothing to draw. Other chunks evaluate every pixel. In floats
 * the arguments are linear but for their roundings: a pixel between the
 * ends may come out a rounding below 1 (a blend of coverage 1 - 2^-24,
 * the same 8 bits but for ties) or above 0; within the tolerances against
 * the reference. Chunks fall on fixed columns, so a pixel's value does
 * not depend on the band.
 */
#define CPU_TRI_CHUNK 16

static void tri_row(const struct cpu_px *px, int32_t lo, int32_t hi, int32_t y,
		const double wy[3], const double wb[3], void *data) {
	const struct tri_ctx *t = data;
	float f[3], aa0;
	int32_t x = lo;
	while (x <= hi) {
		int32_t end = (x & ~(CPU_TRI_CHUNK - 1)) + CPU_TRI_CHUNK - 1;
		end = end < hi ? end : hi;
		if (end > x + 1 && !t->rc.on) {
			float g[3], ga0;
			tri_args(t, wy, wb, x, f, &aa0);
			tri_args(t, wy, wb, end, g, &ga0);
			if (f[0] >= 1.0f && f[1] >= 1.0f && f[2] >= 1.0f && g[0] >= 1.0f &&
					g[1] >= 1.0f && g[2] >= 1.0f) {
				blend_span(px, x, end + 1, y, t->color, &t->fx);
				x = end + 1;
				continue;
			}
			if ((f[1] <= 0.0f && g[1] <= 0.0f) ||
					(f[2] <= 0.0f && g[2] <= 0.0f) ||
					(f[0] <= 0.0f && g[0] <= 0.0f &&
							((aa0 >= 0.0f && ga0 >= 0.0f) ||
									(aa0 <= 0.0f && ga0 <= 0.0f)))) {
				x = end + 1;
				continue;
			}
		}
		for (; x <= end; x++) {
			tri_args(t, wy, wb, x, f, &aa0);
			tri_pixel(t, px, x, y, f);
		}
	}
}

void cpu_draw_geometry(const struct cpu_px *px,
		const struct vr_geometry *geometry, const struct cpu_tess *tess) {
	struct cpu_px sub = *px;
	sub.box = scissor_clip(px, &geometry->state.clip);
	if (vr_box_empty(&sub.box)) {
		return;
	}
	const float *color = geometry->state.color;
	struct tri_ctx t = { .color = color };
	rclip_from_state(&t.rc, &geometry->state);
	t.opaque = color[3] == 1.0f;
	blend_fx_init(&t.fx, color, 1.0f);
	t.solid = (uint32_t)unorm8(color[3]) << 24 |
			(uint32_t)unorm8(color[0]) << 16 | (uint32_t)unorm8(color[1]) << 8 |
			unorm8(color[2]);
	for (size_t i = 0; i + 2 < tess->count; i += 3) {
		const struct cpu_tri_vertex *v = &tess->v[i];
		t.v = v;
		cpu_raster_triangle(&sub, v[0].pos, v[1].pos, v[2].pos, NULL, tri_row,
				&t);
	}
}
