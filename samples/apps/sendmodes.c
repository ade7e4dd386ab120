/*
 * sendmodes: every send mode in its blocking, nonblocking and persistent
 * form, the calls no other C sample makes (Ssend, Rsend, Issend, Ibsend,
 * Irsend, Bsend_init, Rsend_init), and MPI_Reduce_local. Rank 0 sends to
 * rank 1; ready sends go out only after rank 1 has posted the receive and
 * said so (a barrier). Rank 1 prints the sum of what it received (each
 * message carries its number, 1 to 9) and the Reduce_local result: "45 3".
 * Needs 2 ranks or more (the others only take part in the barriers).
 * tests/t5960-allprof-schema.sh traces it.          sendmodes
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 9

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		fprintf(stderr, "sendmodes: needs 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int bsz = N * (MPI_BSEND_OVERHEAD + (int)sizeof(int));
	char *bbuf = malloc((size_t)bsz);
	MPI_Buffer_attach(bbuf, bsz);
	int v[N], got[N] = { 0 };
	MPI_Request r[N];
	for (int i = 0; i < N; i++)
		v[i] = i + 1;
	if (rank == 1)
		for (int i = 0; i < N; i++)
			MPI_Irecv(&got[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD, &r[i]);
	MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted: ready sends may go */
	if (rank == 0) {
		MPI_Ssend(&v[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Rsend(&v[1], 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
		MPI_Issend(&v[2], 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[0]);
		MPI_Ibsend(&v[3], 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &r[1]);
		MPI_Irsend(&v[4], 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &r[2]);
		MPI_Bsend_init(&v[5], 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r[3]);
		MPI_Rsend_init(&v[6], 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &r[4]);
		MPI_Ssend_init(&v[7], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r[5]);
		MPI_Send_init(&v[8], 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &r[6]);
		MPI_Startall(4, &r[3]);
		MPI_Waitall(7, r, MPI_STATUSES_IGNORE);
		for (int i = 3; i < 7; i++)
			MPI_Request_free(&r[i]);
	} else if (rank == 1) {
		MPI_Waitall(N, r, MPI_STATUSES_IGNORE);
	}
	int sum = 0, one[2] = { 1, 2 }, acc[2] = { 0, 0 };
	for (int i = 0; i < N; i++)
		sum += got[i];
	MPI_Reduce_local(one, acc, 2, MPI_INT, MPI_SUM);
	if (rank == 1)
		printf("%d %d\n", sum, acc[0] + acc[1]);
	MPI_Buffer_detach(&bbuf, &bsz);
	free(bbuf);
	MPI_Finalize();
	return 0;
}
