/*
 * ir_stats.h: the small statistics calib needs: medians, ordinary least
 * squares of a straight line with its coefficient of determination, and the
 * search for the breakpoint that splits sorted data into two lines with the
 * smallest total squared residual.
 *
 * Everything works on doubles: the inputs are measured times (picoseconds)
 * and sizes (bytes), both far below 2^53, and the fits are reported with a
 * few significant digits. Sums are centred on the means before squaring, so
 * a line through points near x = 10^6 is not lost to cancellation.
 *
 * No allocation. The fit is O(n). The breakpoint search refits both sides
 * for every candidate split, O(n^2): calibration has tens of sizes, and
 * running prefix sums (O(n)) would bring back the cancellation that the
 * centred sums avoid.
 */
#ifndef IR_STATS_H
#define IR_STATS_H

#include <stddef.h>

/* Sort v[0..n) in ascending order. */
void ir_sort_doubles(double *v, size_t n);

/* Median of v[0..n): sorts v in place; the mean of the two middle values for even n.
 * n must be at least 1. */
double ir_median_inplace(double *v, size_t n);

/* Quantile q (0..1) of n sorted values, linear between the two nearest (n at least 1). */
double ir_quantile_sorted(const double *v, size_t n, double q);

/* Did a measurement drift during its run? The medians m1 and m2 of the first and the second
 * half of v[0..n) in the order given (the middle value of an odd n in neither half) and the
 * standard error se of m2 - m1: each half's median has 1.2533 sigma / sqrt(half), sigma
 * estimated as its interquartile range / 1.349 (robust to a few outliers, which a drift test
 * must not take for a drift). scratch holds n doubles; v is left as it was. n must be at
 * least 2. */
void ir_halves(const double *v, size_t n, double *scratch, double *m1, double *m2, double *se);

typedef struct ir_linfit {
	size_t n;         /* points */
	double intercept; /* a in y = a + b*x */
	double slope;     /* b */
	double r2;        /* coefficient of determination; 1 when y is constant and fitted exactly */
	double sse;       /* sum of squared residuals */
	double rmse;      /* sqrt(sse / n) */
	double max_abs;   /* largest absolute residual */
	double se_intercept, se_slope; /* standard errors of a and b (residual variance sse/(n-2));
	                                  INFINITY with 2 points, where nothing measures the noise */
} ir_linfit;

/* Least squares y = a + b*x over n points. Returns 0, or -1 when the line is
 * not determined: fewer than 2 points, or all x equal. */
int ir_linfit_xy(const double *x, const double *y, size_t n, ir_linfit *f);
/* Weighted least squares: minimises sum w[i]*(y[i] - a - b*x[i])^2 (w NULL:
 * all 1; weights must be positive). sse and r2 are the weighted ones (the
 * quantity minimised); rmse and max_abs are plain residuals. calib weighs by
 * 1/real^2, which minimises relative errors: otherwise the largest messages,
 * whose times are a thousand times longer, decide the line alone. */
int ir_linfit_wxy(const double *x, const double *y, const double *w, size_t n, ir_linfit *f);

/* Evaluate a fitted line. */
static inline double ir_linfit_at(const ir_linfit *f, double x) { return f->intercept + f->slope * x; }

/* Breakpoint search over points sorted by x (ties allowed): the split k
 * (left = points [0, k), right = [k, n)) that minimises the sum of both
 * lines' squared residuals, among splits where each side has at least
 * `min_side` points with at least two distinct x values, and x[k-1] < x[k]
 * (equal x are never split). Returns k, or 0 when no split is allowed.
 * *sse gets the best total. */
size_t ir_breakpoint(const double *x, const double *y, size_t n, size_t min_side, double *sse);
/* The same when the left and the right line are fitted to different y
 * (calib: real minus the eager simulation on the left, minus the rendezvous
 * simulation on the right), with optional weights w (NULL: all 1). */
size_t ir_breakpoint2(const double *x, const double *yl, const double *yr, const double *w, size_t n, size_t min_side,
                      double *sse);

#endif
