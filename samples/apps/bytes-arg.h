/*
 * bytes-arg.h: the byte-count options of the calibration programs (netcal -m
 * and -P, pingpong -m), one parser for both. Included by each; a header of
 * static functions because every sample is one translation unit of its own.
 */
#ifndef BYTES_ARG_H
#define BYTES_ARG_H

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A byte count: digits with an optional binary suffix K, M or G (64K = 65536). Anything
 * else is refused (atol would read "64K" as 64 and silently measure 64-byte messages). */
static long parse_bytes(const char *s, const char *opt)
{
	char *end;
	long v, mul = 1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (end != s && (*end == 'K' || *end == 'k'))
		mul = 1L << 10, end++;
	else if (end != s && (*end == 'M' || *end == 'm'))
		mul = 1L << 20, end++;
	else if (end != s && (*end == 'G' || *end == 'g'))
		mul = 1L << 30, end++;
	if (end == s || *end || errno || v < 0 || v > LONG_MAX / mul) {
		fprintf(stderr, "%s: invalid byte count '%s' (expected digits with an optional K, M or G)\n", opt, s);
		MPI_Abort(MPI_COMM_WORLD, 1);
		exit(1);
	}
	return v * mul;
}

#endif
