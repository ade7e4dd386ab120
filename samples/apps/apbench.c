/*
 * apbench: tight loops of cheap MPI calls, to measure what the tracer adds
 * per call (run once with and once without liballprof):
 *   apbench [N]
 * prints "<benchmark> <ns per call>" for MPI_Comm_rank, a zero-byte
 * Isend/Irecv/Waitall to self (three calls), and an unsuccessful MPI_Iprobe.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int rank, r2, flag;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double t = MPI_Wtime();
	for (long i = 0; i < n; i++)
		MPI_Comm_rank(MPI_COMM_WORLD, &r2);
	t = MPI_Wtime() - t;
	printf("comm_rank %.1f\n", t * 1e9 / (double)n);
	MPI_Request rq[2];
	long m = n / 4;
	t = MPI_Wtime();
	for (long i = 0; i < m; i++) {
		MPI_Irecv(NULL, 0, MPI_BYTE, rank, 1, MPI_COMM_SELF, &rq[0]);
		MPI_Isend(NULL, 0, MPI_BYTE, rank, 1, MPI_COMM_SELF, &rq[1]);
		MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	}
	t = MPI_Wtime() - t;
	printf("isend_irecv_waitall %.1f\n", t * 1e9 / (double)(3 * m));
	t = MPI_Wtime();
	for (long i = 0; i < n; i++)
		MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
	t = MPI_Wtime() - t;
	printf("iprobe_miss %.1f\n", t * 1e9 / (double)n);
	MPI_Finalize();
	return 0;
}
