/*
 * cpugap: gaps between MPI calls whose CPU time is known, for the tests of allprof
 * --cpu-time (formats/trace.md 3.6).   cpugap [N]
 * Every rank, N times (default 20): MPI_Barrier, sleep 500 us (a gap of about 0.5 ms wall
 * time and almost no CPU time: the thread leaves its CPU), MPI_Barrier, compute for 500 us of
 * wall time (a gap whose CPU time is its wall time unless the rank is preempted), then 50
 * MPI_Comm_rank calls back to back (gaps of a few tens of nanoseconds).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int n = argc > 1 ? atoi(argv[1]) : 20, rank;
	if (n < 1 || n > 100000) {
		fprintf(stderr, "cpugap: invalid N '%s' (expected 1 to 100000)\n", argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	volatile double x = 0;
	for (int i = 0; i < n; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		struct timespec d = { 0, 500000 };
		nanosleep(&d, NULL);
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		while (MPI_Wtime() - t0 < 500e-6)
			x += 1;
		MPI_Barrier(MPI_COMM_WORLD);
		for (int k = 0; k < 50; k++)
			MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	}
	if (rank == 0)
		printf("ok\n");
	MPI_Finalize();
	return 0;
}
