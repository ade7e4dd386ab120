/*
 * nodecal: the measurement `calib --yield` fits the cost of waking a rank on a host whose
 * ranks outnumber its cores to (formats/calibration.md, "Shared cores").
 *
 *   nodecal [-n REPS] [-q]
 *
 * Every rank takes part: rank r pairs with rank r xor 1 (the last rank of an odd count only
 * waits in the final barrier), and all pairs ping-pong 0-byte messages at the same time,
 * REPS round trips (default 2000), the even rank sending first (tag 30010). Run with more
 * ranks than cores (mpirun --oversubscribe -np 4 and 8 on 2 cores), every message has to
 * wake its receiver, which waits in MPI while the other ranks take their turns on the
 * cores: the round trips of rank 0 (it pairs with rank 1) are what calib reads. With as
 * many cores as ranks this is a plain ping-pong.
 *
 * Rank 0 prints "<ranks> <median one-way us> <round trips>" unless -q (the median of an
 * even count the mean of the two middle round trips, halved, as calib takes it from a
 * trace): `calib --yield` reads that line from a run made without the tracer, whose own
 * time would be part of every message (formats/calibration.md, "Shared cores").
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_PAIRS = 30010 };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int reps = 2000, quiet = 0, rank, size, peer;
	double *rtt;
	MPI_Init(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q"))
			quiet = 1;
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: nodecal [-n REPS] [-q]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
			return 2;
		}
	}
	if (reps < 1 || reps > 10000000) {
		fprintf(stderr, "nodecal: invalid -n %d (expected 1 to 10000000)\n", reps);
		MPI_Abort(MPI_COMM_WORLD, 2);
		return 2;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = rank ^ 1;
	rtt = malloc((size_t)reps * sizeof *rtt);
	if (!rtt) {
		fprintf(stderr, "nodecal: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (peer < size)
		for (int i = 0; i < reps; i++) {
			double t = MPI_Wtime();
			if (rank & 1) {
				MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_PAIRS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_PAIRS, MPI_COMM_WORLD);
			} else {
				MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_PAIRS, MPI_COMM_WORLD);
				MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_PAIRS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			}
			rtt[i] = MPI_Wtime() - t;
		}
	if (rank == 0 && !quiet && peer < size) {
		qsort(rtt, (size_t)reps, sizeof *rtt, cmp_double);
		double med = reps % 2 ? rtt[reps / 2] : (rtt[reps / 2 - 1] + rtt[reps / 2]) / 2;
		printf("%d %.4f %d\n", size, med / 2 * 1e6, reps);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	free(rtt);
	MPI_Finalize();
	return 0;
}
