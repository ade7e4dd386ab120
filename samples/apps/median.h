/*
 * median.h: the median of a sample of times, for the measuring programs (netcal, bufstate, callctx).
 * A header of static functions because every sample is one translation unit of its own.
 */
#ifndef MEDIAN_H
#define MEDIAN_H

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorts v); 0 when n is 0. */
static double median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
