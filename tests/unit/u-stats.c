/*
 * u-stats.c: unit tests of lib/ir_stats.c: medians, least squares on exact
 * and noisy synthetic data (weighted and not), and the breakpoint search.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir_stats.h"
#include "tap.h"

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* Deterministic noise in [-1, 1] (a linear congruential generator). */
static double noise(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return ((double)((*s >> 8) & 0xFFFF) / 32767.5) - 1;
}

int main(void)
{
	double v[8], x[64], y[64], y2[64], w[64];
	ir_linfit f;
	unsigned seed = 42;
	size_t k;
	double sse;

	/* medians */
	v[0] = 5; v[1] = 1; v[2] = 3;
	ok(ir_median_inplace(v, 3) == 3, "median of 3 values");
	v[0] = 4; v[1] = 1; v[2] = 3; v[3] = 2;
	ok(ir_median_inplace(v, 4) == 2.5, "median of 4 values is the mean of the middle two");
	v[0] = 7;
	ok(ir_median_inplace(v, 1) == 7, "median of 1 value");
	v[0] = 1; v[1] = 1e9; v[2] = 2; v[3] = 3; v[4] = 1e12;
	ok(ir_median_inplace(v, 5) == 3, "median ignores outliers");

	/* the halves of a run: in the order given, the middle value of an odd n in neither */
	{
		double h[9] = { 10, 12, 11, 13, 500, 20, 22, 21, 23 }, keep[9], scr[9], m1, m2, se;
		memcpy(keep, h, sizeof h);
		ir_halves(h, 9, scr, &m1, &m2, &se);
		ok(m1 == 11.5 && m2 == 21.5, "halves: medians of the first and the last four (%g, %g)", m1, m2);
		ok(memcmp(keep, h, sizeof h) == 0, "halves: the values are left in their order");
		/* each half's quartiles 10.75 and 12.25: sigma 1.5/1.349, se of a median
		 * 1.2533 sigma / 2, of the difference sqrt(2) times that */
		ok(near(se, sqrt(2) * 1.2533 * (1.5 / 1.349) / 2, 1e-12), "halves: standard error from the quartiles (%g)", se);
		double c[4] = { 7, 7, 7, 7 };
		ir_halves(c, 4, scr, &m1, &m2, &se);
		ok(m1 == 7 && m2 == 7 && se == 0, "halves: constant values, no spread");
		double o[6] = { 1, 2, 1000, 1, 2, 3 };
		ir_halves(o, 6, scr, &m1, &m2, &se);
		ok(m1 == 2 && m2 == 2, "halves: one outlier does not move a half's median");
	}

	/* exact data: y = 1500 + 3*x over sizes up to 1 MiB */
	for (int i = 0; i < 21; i++) {
		x[i] = i ? (double)(1u << (i - 1)) : 0;
		y[i] = 1500 + 3 * x[i];
	}
	ok(ir_linfit_xy(x, y, 21, &f) == 0, "exact fit succeeds");
	ok(near(f.intercept, 1500, 1e-6), "exact intercept recovered (%.9g)", f.intercept);
	ok(near(f.slope, 3, 1e-12), "exact slope recovered (%.15g)", f.slope);
	ok(near(f.r2, 1, 1e-12), "R-squared 1 on exact data (%.15g)", f.r2);
	ok(f.sse < 1e-6 && f.max_abs < 1e-6, "no residual on exact data");
	is_u64(f.n, 21, "point count kept");

	/* large offsets: centred sums do not cancel */
	for (int i = 0; i < 10; i++) {
		x[i] = 1e9 + i;
		y[i] = 2e12 + 7 * (double)i;
	}
	ok(ir_linfit_xy(x, y, 10, &f) == 0 && near(f.slope, 7, 1e-6), "slope exact far from the origin (%.12g)", f.slope);

	/* weighted exact data is recovered exactly too */
	for (int i = 0; i < 21; i++) {
		x[i] = i ? (double)(1u << (i - 1)) : 0;
		y[i] = 250000 + 0.5 * x[i];
		w[i] = 1 / (y[i] * y[i]);
	}
	ok(ir_linfit_wxy(x, y, w, 21, &f) == 0 && near(f.intercept, 250000, 1e-4) && near(f.slope, 0.5, 1e-12) &&
	       near(f.r2, 1, 1e-12),
	   "weighted fit of exact data: a %.6f b %.12f R2 %.12f", f.intercept, f.slope, f.r2);

	/* constant y: slope 0, R-squared 1 */
	for (int i = 0; i < 5; i++) {
		x[i] = i;
		y[i] = 42;
	}
	ok(ir_linfit_xy(x, y, 5, &f) == 0 && f.slope == 0 && f.intercept == 42 && f.r2 == 1, "constant data");
	ok(f.se_slope == 0 && f.se_intercept == 0, "an exact fit has no standard error");
	ok(ir_linfit_xy(x, y, 2, &f) == 0 && isinf(f.se_slope) && isinf(f.se_intercept),
	   "two points: the standard errors are unknown (infinite)");

	/* degenerate */
	ok(ir_linfit_xy(x, y, 1, &f) == -1, "one point: no line");
	ok(ir_linfit_xy(x, y, 0, &f) == -1, "no point: no line");
	for (int i = 0; i < 4; i++)
		x[i] = 8;
	ok(ir_linfit_xy(x, y, 4, &f) == -1, "all x equal: no line");
	x[0] = 0; x[1] = 1; w[0] = 1; w[1] = 0;
	ok(ir_linfit_wxy(x, y, w, 2, &f) == -1, "a zero weight is refused");

	/* noisy data: y = 1000 + 2x + noise of +-5 on 200 points */
	{
		double xn[200], yn[200];
		for (int i = 0; i < 200; i++) {
			xn[i] = i * 10;
			yn[i] = 1000 + 2 * xn[i] + 5 * noise(&seed);
		}
		ok(ir_linfit_xy(xn, yn, 200, &f) == 0, "noisy fit succeeds");
		ok(near(f.slope, 2, 0.01), "noisy slope close to 2 (%.5f)", f.slope);
		ok(near(f.intercept, 1000, 2), "noisy intercept close to 1000 (%.3f)", f.intercept);
		ok(f.r2 > 0.999 && f.r2 < 1, "noisy R-squared high but below 1 (%.8f)", f.r2);
		ok(f.rmse > 1 && f.rmse < 5, "rms residual reflects the noise (%.3f)", f.rmse);
		ok(f.max_abs <= 5 + 1 && f.max_abs > 3, "largest residual bounded by the noise (%.3f)", f.max_abs);
		/* uniform noise in [-5, 5]: sigma 5/sqrt(3); Sxx = 100 * 200 * (200^2 - 1) / 12;
		 * se(b) = sigma / sqrt(Sxx) = 3.54e-4, se(a) = sigma * sqrt(1/200 + 995^2 / Sxx) = 0.407 */
		ok(f.se_slope > 3.54e-4 * 0.8 && f.se_slope < 3.54e-4 * 1.2, "standard error of the slope (%.4g)", f.se_slope);
		ok(f.se_intercept > 0.407 * 0.8 && f.se_intercept < 0.407 * 1.2, "standard error of the intercept (%.4g)",
		   f.se_intercept);
		/* pure noise: R-squared near 0 */
		for (int i = 0; i < 200; i++)
			yn[i] = 100 + 5 * noise(&seed);
		ok(ir_linfit_xy(xn, yn, 200, &f) == 0 && f.r2 < 0.1, "noise alone has a low R-squared (%.4f)", f.r2);
	}

	/* breakpoint: two exact lines, break after x = 2048 */
	{
		size_t n = 0;
		for (double s = 1; s <= 1 << 20; s *= 2, n++) {
			x[n] = s;
			y[n] = s <= 2048 ? 200000 + 90 * s : 1200000 + 130 * s;
		}
		k = ir_breakpoint(x, y, n, 3, &sse);
		ok(k == 12 && x[k - 1] == 2048, "breakpoint found after 2048 (k %zu)", k);
		ok(sse < 1e-3, "exact two-line data leave no residual (%g)", sse);
		/* with noise of 1% the break is still found */
		for (size_t i = 0; i < n; i++)
			y2[i] = y[i] * (1 + 0.01 * noise(&seed));
		for (size_t i = 0; i < n; i++)
			w[i] = 1 / (y2[i] * y2[i]);
		k = ir_breakpoint2(x, y2, y2, w, n, 3, &sse);
		ok(k == 12, "noisy breakpoint found with relative weights (k %zu)", k);
		/* different left and right data */
		for (size_t i = 0; i < n; i++)
			y2[i] = y[i] - 1000;
		k = ir_breakpoint2(x, y, y2, NULL, n, 3, &sse);
		ok(k == 12, "left and right series (k %zu)", k);
		/* too few points for two sides of 3 */
		ok(ir_breakpoint(x, y, 5, 3, &sse) == 0, "no split with 5 points and 3 per side");
		/* equal x are never split */
		for (int i = 0; i < 8; i++) {
			x[i] = i < 4 ? 1 : 2;
			y[i] = i;
		}
		ok(ir_breakpoint(x, y, 8, 2, &sse) == 0, "no split inside equal x or with a side of one x");
	}
	return tap_done();
}
