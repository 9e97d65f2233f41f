/*
 * Input prediction: the recent positions of the pointer and of one touch
 * point (input.c and pointer.c add them), and where they will be at a
 * given time (frame_timing.c asks, for the frame being drawn). Below the
 * rest of input/, which feeds it.
 */
#include <math.h>
#include <stdbool.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_surface.h>

#include "input/input.h"
#include "server.h"
#include "util.h"

#include "input/input_internal.h"

/* ---- input history and prediction --------------------------------------- */

/* Samples older than this (at prediction time) are left out of the fit. */
#define HISTORY_MAX_AGE_NS 100000000ull

void input_history_reset(struct vt_input_history *history) {
	history->surface = NULL;
	history->n = 0;
	history->next = 0;
}

/* A position over surface, now; a new surface starts a new history. */
void input_history_add(struct vt_input_history *history,
		struct wlr_surface *surface, double x, double y) {
	if (history->surface != surface) {
		input_history_reset(history);
		history->surface = surface;
	}
	history->samples[history->next] = (struct vt_input_sample){
		.t_ns = vt_now_ns(),
		.x = x,
		.y = y,
	};
	history->next = (history->next + 1) % VT_INPUT_HISTORY;
	if (history->n < VT_INPUT_HISTORY) {
		history->n++;
	}
}

/* Solve the 3x3 system m v = r by Cramer's rule; false when singular. */
static bool solve3(const double m[3][3], const double r[3], double v[3]) {
	double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
			m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
			m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
	double scale = fabs(m[0][0] * m[1][1] * m[2][2]);
	if (scale == 0 || fabs(det) < 1e-9 * scale) {
		return false;
	}
	for (int k = 0; k < 3; k++) {
		double a[3][3];
		for (int i = 0; i < 3; i++) {
			for (int j = 0; j < 3; j++) {
				a[i][j] = j == k ? r[i] : m[i][j];
			}
		}
		v[k] = (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
					   a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
					   a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])) /
				det;
	}
	return true;
}

/*
 * Least squares over the samples no older than HISTORY_MAX_AGE_NS at
 * `now`, evaluated at t_ns. Time runs in milliseconds from the newest
 * sample (well-conditioned sums). The degree drops to what the samples
 * support: with one sample, or none recent (not moving), the newest
 * position.
 */
static void history_predict(const struct vt_input_history *history,
		uint64_t now, uint64_t t_ns, int degree, double *x, double *y) {
	int newest = (history->next + VT_INPUT_HISTORY - 1) % VT_INPUT_HISTORY;
	const struct vt_input_sample *last = &history->samples[newest];
	*x = last->x;
	*y = last->y;
	double t[VT_INPUT_HISTORY], px[VT_INPUT_HISTORY], py[VT_INPUT_HISTORY];
	int n = 0;
	for (int i = 0; i < history->n; i++) {
		const struct vt_input_sample *s =
				&history->samples[(newest + VT_INPUT_HISTORY - i) %
						VT_INPUT_HISTORY];
		if (s->t_ns + HISTORY_MAX_AGE_NS < now) {
			break;
		}
		t[n] = -(double)(last->t_ns - s->t_ns) / 1e6;
		px[n] = s->x;
		py[n] = s->y;
		n++;
	}
	if (degree > n - 1) {
		degree = n - 1;
	}
	double at = ((double)t_ns - (double)last->t_ns) / 1e6;
	if (degree >= 2) {
		double m[3][3] = { { 0 } }, rx[3] = { 0 }, ry[3] = { 0 };
		for (int i = 0; i < n; i++) {
			double pow[5] = { 1, t[i], t[i] * t[i], t[i] * t[i] * t[i],
				t[i] * t[i] * t[i] * t[i] };
			for (int r = 0; r < 3; r++) {
				for (int c = 0; c < 3; c++) {
					m[r][c] += pow[r + c];
				}
				rx[r] += pow[r] * px[i];
				ry[r] += pow[r] * py[i];
			}
		}
		double cx[3], cy[3];
		if (solve3(m, rx, cx) && solve3(m, ry, cy)) {
			*x = cx[0] + cx[1] * at + cx[2] * at * at;
			*y = cy[0] + cy[1] * at + cy[2] * at * at;
			return;
		}
		degree = 1; /* the times are (nearly) on two points */
	}
	if (degree == 1) {
		double tm = 0, xm = 0, ym = 0;
		for (int i = 0; i < n; i++) {
			tm += t[i];
			xm += px[i];
			ym += py[i];
		}
		tm /= n;
		xm /= n;
		ym /= n;
		double stt = 0, stx = 0, sty = 0;
		for (int i = 0; i < n; i++) {
			stt += (t[i] - tm) * (t[i] - tm);
			stx += (t[i] - tm) * (px[i] - xm);
			sty += (t[i] - tm) * (py[i] - ym);
		}
		if (stt > 1e-6) {
			*x = xm + stx / stt * (at - tm);
			*y = ym + sty / stt * (at - tm);
		}
	}
}

bool vt_input_predict(struct vt_server *server, struct wlr_surface *surface,
		uint64_t t_ns, int degree, double *x, double *y) {
	struct wlr_seat *seat = server->seat;
	const struct vt_input_history *history = NULL;
	if (seat->pointer_state.focused_surface == surface &&
			seat->pointer_state.button_count > 0) {
		history = &server->pointer_history;
		*x = seat->pointer_state.sx;
		*y = seat->pointer_state.sy;
	} else {
		struct wlr_touch_point *point =
				wlr_seat_touch_get_point(seat, server->touch_history_id);
		if (point != NULL && point->surface == surface) {
			history = &server->touch_history;
		} else {
			wl_list_for_each(point, &seat->touch_state.touch_points, link) {
				if (point->surface == surface) {
					break;
				}
			}
			if (&point->link == &seat->touch_state.touch_points) {
				return false;
			}
		}
		*x = point->sx;
		*y = point->sy;
	}
	if (history != NULL && history->surface == surface && history->n > 0) {
		history_predict(history, vt_now_ns(), t_ns, degree, x, y);
	}
	return true;
}
