/*
 * ir_stats.c: medians, least-squares lines and the two-line breakpoint
 * search used by calib (see ir_stats.h for the contracts and why the sums
 * are centred).
 */
#include "ir_stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void ir_sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
}

double ir_median_inplace(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_double);
	if (n % 2)
		return v[n / 2];
	return v[n / 2 - 1] / 2 + v[n / 2] / 2;
}

double ir_quantile_sorted(const double *v, size_t n, double q)
{
	double h = q * (double)(n - 1);
	size_t i = (size_t)h;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - (double)i) * (v[i + 1] - v[i]);
}

void ir_halves(const double *v, size_t n, double *scratch, double *m1, double *m2, double *se)
{
	size_t h = n / 2;
	double var = 0;
	for (int k = 0; k < 2; k++) {
		double *w = scratch + k * h, sigma;
		for (size_t i = 0; i < h; i++)
			w[i] = v[k ? n - h + i : i];
		qsort(w, h, sizeof *w, cmp_double);
		*(k ? m2 : m1) = ir_quantile_sorted(w, h, 0.5);
		sigma = (ir_quantile_sorted(w, h, 0.75) - ir_quantile_sorted(w, h, 0.25)) / 1.349;
		var += 1.2533 * 1.2533 * sigma * sigma / (double)h;
	}
	*se = sqrt(var);
}

int ir_linfit_xy(const double *x, const double *y, size_t n, ir_linfit *f)
{
	return ir_linfit_wxy(x, y, NULL, n, f);
}

int ir_linfit_wxy(const double *x, const double *y, const double *w, size_t n, ir_linfit *f)
{
	double sw = 0, mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0, sse = 0, ss = 0, mabs = 0;
	f->n = n;
	f->intercept = f->slope = f->sse = f->rmse = f->max_abs = 0;
	f->se_intercept = f->se_slope = INFINITY;
	f->r2 = 0;
	if (n < 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		double wi = w ? w[i] : 1;
		if (!(wi > 0) || !isfinite(wi))
			return -1;
		sw += wi;
		mx += wi * x[i];
		my += wi * y[i];
	}
	mx /= sw;
	my /= sw;
	for (size_t i = 0; i < n; i++) {
		double wi = w ? w[i] : 1, dx = x[i] - mx, dy = y[i] - my;
		sxx += wi * dx * dx;
		sxy += wi * dx * dy;
		syy += wi * dy * dy;
	}
	if (!(sxx > 0))
		return -1;
	f->slope = sxy / sxx;
	f->intercept = my - f->slope * mx;
	for (size_t i = 0; i < n; i++) {
		double wi = w ? w[i] : 1, r = y[i] - (f->intercept + f->slope * x[i]);
		sse += wi * r * r;
		ss += r * r;
		if (fabs(r) > mabs)
			mabs = fabs(r);
	}
	f->sse = sse;
	f->rmse = sqrt(ss / (double)n);
	if (n > 2) {
		double s2 = sse / (double)(n - 2);
		f->se_slope = sqrt(s2 / sxx);
		f->se_intercept = sqrt(s2 * (1 / sw + mx * mx / sxx));
	} else {
		f->se_slope = f->se_intercept = INFINITY;
	}
	f->max_abs = mabs;
	/* A constant y fitted exactly explains everything there was to explain. */
	if (syy > 0)
		f->r2 = 1 - sse / syy;
	else
		f->r2 = 1;
	if (f->r2 < 0)
		f->r2 = 0;
	return 0;
}

size_t ir_breakpoint(const double *x, const double *y, size_t n, size_t min_side, double *sse)
{
	return ir_breakpoint2(x, y, y, NULL, n, min_side, sse);
}

size_t ir_breakpoint2(const double *x, const double *yl, const double *yr, const double *w, size_t n, size_t min_side,
                      double *sse)
{
	size_t best = 0;
	double best_sse = 0;
	if (min_side < 2)
		min_side = 2;
	for (size_t k = min_side; k + min_side <= n; k++) {
		ir_linfit l, r;
		if (!(x[k - 1] < x[k]))
			continue;
		if (ir_linfit_wxy(x, yl, w, k, &l) || ir_linfit_wxy(x + k, yr + k, w ? w + k : NULL, n - k, &r))
			continue;
		/* Strictly smaller: on ties the earlier (smaller) breakpoint wins. */
		if (!best || l.sse + r.sse < best_sse) {
			best = k;
			best_sse = l.sse + r.sse;
		}
	}
	if (sse)
		*sse = best_sse;
	return best;
}
