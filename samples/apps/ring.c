/*
 * ring: each iteration every rank posts an Irecv from its left neighbour,
 * sends to its right one, waits, and all ranks Allreduce a value, like the
 * ring example of the thesis.   ring [ITERATIONS] [BYTES]
 * Rank 0 prints the final sum (it must be ITERATIONS * size * (size-1) / 2).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int iters = argc > 1 ? atoi(argv[1]) : 10;
	int bytes = argc > 2 ? atoi(argv[2]) : 1024;
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	char *in = calloc((size_t)bytes + 1, 1), *out = calloc((size_t)bytes + 1, 1);
	long total = 0;
	for (int i = 0; i < iters; i++) {
		MPI_Request r;
		MPI_Status st;
		MPI_Irecv(in, bytes, MPI_BYTE, (rank + size - 1) % size, i, MPI_COMM_WORLD, &r);
		MPI_Send(out, bytes, MPI_BYTE, (rank + 1) % size, i, MPI_COMM_WORLD);
		MPI_Wait(&r, &st);
		long v = rank, s = 0;
		MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		total += s;
	}
	if (rank == 0)
		printf("%ld\n", total);
	free(in);
	free(out);
	MPI_Finalize();
	return 0;
}
