/*
 * rndvlate: what a receiver's library does with a message whose request has
 * already arrived (formats/params.md, "The rendezvous protocol"; the figures
 * are in docs/validation.md, "Where a rendezvous receive's time goes").
 *
 *   rndvlate [-n REPS] [SIZE...]        (2 ranks; sizes with K/M suffixes,
 *                                        default 4K 16K 64K 256K 1M)
 *
 * Per size and pattern, REPS rounds (default 200): both ranks meet in an
 * MPI_Barrier, rank 0 makes its calls at once, rank 1 busy-waits outside MPI
 * (MPI_Wtime) for 50 us plus 4 ns per byte, so that rank 0's messages have
 * arrived (their requests, for a rendezvous message), then makes its calls,
 * timed from the first call's entry to the last one's return:
 *
 *   late     rank 0 MPI_Send; rank 1 MPI_Recv: a late receive (calib's recv_o)
 *   ring     rank 0 MPI_Irecv, MPI_Send, MPI_Wait; rank 1 the same: the late
 *            receive with a send of the other way between its post and its wait
 *   pair     rank 0 two MPI_Isend and MPI_Waitall; rank 1 two MPI_Irecv and
 *            MPI_Waitall: two late receives from one sender together
 *   compute  rank 0 MPI_Send; rank 1 MPI_Irecv, the same busy wait again
 *            outside MPI, then MPI_Wait, of which only the wait is timed: what
 *            of the late receive is left after the receiver computed
 *
 * Rank 1 prints a TSV: size_bytes, pattern, median_us, p10_us, p90_us.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes-arg.h"

enum { LATE, RING, PAIR, COMPUTE, NPAT };
static const char *const names[NPAT] = { "late", "ring", "pair", "compute" };

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void busy(double s)
{
	double t = MPI_Wtime();
	while (MPI_Wtime() - t < s)
		;
}

/* One round of pattern p with s bytes; rank 1 returns its timed span in seconds. */
static double round1(int rank, int p, long s, char *a, char *b, char *c)
{
	MPI_Request q[2];
	double wait = 50e-6 + (double)s * 4e-9, t = 0;
	int n = (int)s;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		if (p == RING) {
			MPI_Irecv(c, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &q[0]);
			MPI_Send(a, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
			MPI_Wait(&q[0], MPI_STATUS_IGNORE);
		} else if (p == PAIR) {
			MPI_Isend(a, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &q[0]);
			MPI_Isend(b, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &q[1]);
			MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
		} else {
			MPI_Send(a, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
		}
		return 0;
	}
	busy(wait);
	t = MPI_Wtime();
	if (p == LATE) {
		MPI_Recv(a, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else if (p == RING) {
		MPI_Irecv(a, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &q[0]);
		MPI_Send(c, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
		MPI_Wait(&q[0], MPI_STATUS_IGNORE);
	} else if (p == PAIR) {
		MPI_Irecv(a, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &q[0]);
		MPI_Irecv(b, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &q[1]);
		MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
	} else {
		MPI_Irecv(a, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &q[0]);
		busy(wait);
		t = MPI_Wtime();
		MPI_Wait(&q[0], MPI_STATUS_IGNORE);
	}
	return MPI_Wtime() - t;
}

int main(int argc, char **argv)
{
	static const long defaults[] = { 4096, 16384, 65536, 262144, 1048576 };
	long sizes[64], maxs = 0;
	int nsizes = 0, reps = 200, c, rank, np;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n' || (reps = atoi(optarg)) < 1) {
			if (rank == 0)
				fprintf(stderr, "usage: rndvlate [-n REPS] [SIZE...]\n");
			MPI_Finalize();
			return 1;
		}
	}
	for (; optind < argc && nsizes < 64; optind++)
		sizes[nsizes++] = parse_bytes(argv[optind], "SIZE");
	if (!nsizes)
		for (; nsizes < 5; nsizes++)
			sizes[nsizes] = defaults[nsizes];
	if (np != 2) {
		if (rank == 0)
			fprintf(stderr, "rndvlate: needs exactly 2 ranks\n");
		MPI_Finalize();
		return 1;
	}
	for (int i = 0; i < nsizes; i++) {
		if (sizes[i] < 1 || sizes[i] > (1L << 30)) {
			if (rank == 0)
				fprintf(stderr, "rndvlate: sizes from 1 byte to 1 GiB\n");
			MPI_Finalize();
			return 1;
		}
		if (sizes[i] > maxs)
			maxs = sizes[i];
	}
	char *a = malloc((size_t)maxs), *b = malloc((size_t)maxs), *cb = malloc((size_t)maxs);
	double *d = malloc((size_t)reps * sizeof *d);
	if (!a || !b || !cb || !d) {
		fprintf(stderr, "rndvlate: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(a, 1, (size_t)maxs);
	memset(b, 2, (size_t)maxs);
	memset(cb, 3, (size_t)maxs);
	if (rank == 1)
		printf("size_bytes\tpattern\tmedian_us\tp10_us\tp90_us\n");
	for (int i = 0; i < nsizes; i++)
		for (int p = 0; p < NPAT; p++) {
			for (int r = 0; r < reps; r++)
				d[r] = round1(rank, p, sizes[i], a, b, cb);
			if (rank == 1) {
				qsort(d, (size_t)reps, sizeof *d, cmpd);
				printf("%ld\t%s\t%.3f\t%.3f\t%.3f\n", sizes[i], names[p], d[reps / 2] * 1e6, d[reps / 10] * 1e6,
				       d[reps - 1 - reps / 10] * 1e6);
				fflush(stdout);
			}
		}
	free(a);
	free(b);
	free(cb);
	free(d);
	MPI_Finalize();
	return 0;
}
