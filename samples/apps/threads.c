/*
 * threads: point-to-point from two threads at once under MPI_THREAD_MULTIPLE.
 * Ranks pair up as rank^1 (the last of an odd number talks to MPI_PROC_NULL).
 * In each rank, thread 0 runs ITER blocking exchanges (Send then Recv on
 * even ranks, Recv then Send on odd ones) with tags 1000+i, and thread 1 at
 * the same time runs ITER nonblocking exchanges (Irecv, Isend, Waitall) with
 * tags 2000+i and i+1 ints, so both threads create, complete and free
 * requests concurrently. The main thread joins both, then calls Barrier.
 * Prints "provided <level>" from rank 0 and, when MPI_THREAD_MULTIPLE is not
 * granted, "no MPI_THREAD_MULTIPLE" (and runs nothing threaded).
 *   threads [ITER]
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, peer, iter = 50;

static void *blocking(void *arg)
{
	(void)arg;
	int s = rank, r = -1;
	for (int i = 0; i < iter; i++) {
		if ((rank & 1) == 0) {
			MPI_Send(&s, 1, MPI_INT, peer, 1000 + i, MPI_COMM_WORLD);
			MPI_Recv(&r, 1, MPI_INT, peer, 1000 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&r, 1, MPI_INT, peer, 1000 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&s, 1, MPI_INT, peer, 1000 + i, MPI_COMM_WORLD);
		}
		if (peer != MPI_PROC_NULL && r != peer) {
			fprintf(stderr, "threads: rank %d: wrong data from %d\n", rank, peer);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	return NULL;
}

static void *nonblocking(void *arg)
{
	(void)arg;
	int sb[64] = { 0 }, rb[64];
	for (int i = 0; i < iter; i++) {
		MPI_Request rq[2];
		int n = i % 64 + 1;
		MPI_Irecv(rb, n, MPI_INT, peer, 2000 + i, MPI_COMM_WORLD, &rq[0]);
		MPI_Isend(sb, n, MPI_INT, peer, 2000 + i, MPI_COMM_WORLD, &rq[1]);
		MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int provided = 0;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		iter = atoi(argv[1]);
	peer = (rank ^ 1) < size ? rank ^ 1 : MPI_PROC_NULL;
	if (rank == 0)
		printf("provided %d\n", provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		if (rank == 0)
			printf("no MPI_THREAD_MULTIPLE\n");
		MPI_Finalize();
		return 0;
	}
	pthread_t t[2];
	if (pthread_create(&t[0], NULL, blocking, NULL) || pthread_create(&t[1], NULL, nonblocking, NULL)) {
		fprintf(stderr, "threads: cannot start threads\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
