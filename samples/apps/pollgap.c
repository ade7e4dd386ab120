/*
 * pollgap: unsuccessful polls with and without work between them, for the tests of
 * allprof's collapse gap (formats/trace.md 3.2).   pollgap [N]
 * Every rank, N times (default 10): 20 MPI_Iprobe calls back to back, then 20 more, each
 * after 5 us of computation (a loop on MPI_Wtime). The probes ask for tag 99 on
 * MPI_COMM_SELF, which nobody sends: every one finds nothing. The first 20 are one
 * collapsed line of a trace; the others one line each.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int n = argc > 1 ? atoi(argv[1]) : 10, flag;
	if (n < 1 || n > 100000) {
		fprintf(stderr, "pollgap: invalid N '%s' (expected 1 to 100000)\n", argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	volatile double x = 0;
	for (int i = 0; i < n; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		for (int k = 0; k < 20; k++)
			MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
		for (int k = 0; k < 20; k++) {
			double t0 = MPI_Wtime();
			while (MPI_Wtime() - t0 < 5e-6)
				x += 1;
			MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
		}
	}
	MPI_Finalize();
	return 0;
}
