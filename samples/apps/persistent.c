/*
 * persistent: persistent requests. Each rank sets up a Recv_init from its
 * left and a Send_init to its right neighbour once, then starts them ITERS
 * times (Start + Start on even, Startall on odd iterations), completes them
 * with Waitall, and frees them at the end. Synchronous and buffered
 * persistent sends are used once each.   persistent [ITERS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int iters = argc > 1 ? atoi(argv[1]) : 5;
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	double in = 0, out = rank;
	MPI_Request r[2];
	MPI_Recv_init(&in, 1, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &r[0]);
	MPI_Send_init(&out, 1, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &r[1]);
	for (int i = 0; i < iters; i++) {
		if (i % 2 == 0) {
			MPI_Start(&r[0]);
			MPI_Start(&r[1]);
		} else {
			MPI_Startall(2, r);
		}
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		if (in != left) {
			fprintf(stderr, "persistent: got %g from %d\n", in, left);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	MPI_Request_free(&r[0]);
	MPI_Request_free(&r[1]);
	/* synchronous and buffered modes */
	MPI_Recv_init(&in, 1, MPI_DOUBLE, left, 6, MPI_COMM_WORLD, &r[0]);
	MPI_Ssend_init(&out, 1, MPI_DOUBLE, right, 6, MPI_COMM_WORLD, &r[1]);
	MPI_Startall(2, r);
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	MPI_Request_free(&r[0]);
	MPI_Request_free(&r[1]);
	int bsz = MPI_BSEND_OVERHEAD + 64;
	char *bb = malloc((size_t)bsz);
	MPI_Buffer_attach(bb, bsz);
	MPI_Request rr;
	MPI_Irecv(&in, 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &rr);
	MPI_Bsend(&out, 1, MPI_DOUBLE, right, 7, MPI_COMM_WORLD);
	MPI_Wait(&rr, MPI_STATUS_IGNORE);
	MPI_Buffer_detach(&bb, &bsz);
	free(bb);
	MPI_Finalize();
	return 0;
}
