/*
 * pingpong: ranks 0 and 1 exchange messages over a sweep of sizes (powers
 * of two, and from 64 bytes on 1/64 below each, see below), the
 * measurement calibration needs. For each size the first exchange uses a
 * freshly allocated buffer (first use: the MPI library must register it)
 * and the following ones reuse one buffer. The fresh buffer is written
 * before it is sent, as an application's data would be, so the first
 * exchange does not also pay for the page faults of untouched memory.
 * Other ranks only take part in the final barrier.
 *
 *   pingpong [-n REPS] [-m MAXBYTES] [-q]
 *
 * Rank 0 prints "<bytes> <first-use round trip us> <mean reused round trip us>".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes-arg.h"
#include <unistd.h>

int main(int argc, char **argv)
{
	int reps = 10, quiet = 0, c;
	long maxb = 1 << 20;
	MPI_Init(&argc, &argv);
	while ((c = getopt(argc, argv, "n:m:q")) != -1) {
		if (c == 'n')
			reps = atoi(optarg);
		else if (c == 'm')
			maxb = parse_bytes(optarg, "-m");
		else if (c == 'q')
			quiet = 1;
	}
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	char *reused = malloc((size_t)maxb + 1);
	memset(reused, 1, (size_t)maxb + 1);
	/* Powers of two, and from 64 bytes on also 1/64 below each: protocol limits are
	 * powers of two minus a header (Open MPI's shared-memory eager limit is 4096 bytes
	 * with its header), so calib can place S within 1.6 % of where it really is. */
	long sizes[130];
	int nsizes = 0;
	for (long p = 0; p <= maxb; p = p ? p * 2 : 1) {
		if (p >= 64)
			sizes[nsizes++] = p - p / 64;
		sizes[nsizes++] = p;
	}
	for (int k = 0; k < nsizes; k++) {
		long b = sizes[k];
		double first = 0, sum = 0;
		for (int i = 0; i <= reps && rank < 2 && size > 1; i++) {
			char *buf = i == 0 ? malloc((size_t)b + 1) : reused;
			if (i == 0)
				memset(buf, 2, (size_t)b + 1);
			double t = MPI_Wtime();
			if (rank == 0) {
				MPI_Send(buf, (int)b, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
				MPI_Recv(buf, (int)b, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(buf, (int)b, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(buf, (int)b, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
			}
			t = (MPI_Wtime() - t) * 1e6;
			if (i == 0) {
				first = t;
				free(buf);
			} else {
				sum += t;
			}
		}
		if (rank == 0 && !quiet && size > 1)
			printf("%ld %.3f %.3f\n", b, first, reps ? sum / reps : 0.0);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	free(reused);
	MPI_Finalize();
	return 0;
}
