/*
 * binrec: a deterministic mix of the records the tracer stores, for the
 * tests of its record buffer (a trace taken with a small buffer, written
 * in many flushes, must read like one taken with a large one):
 *   binrec [ITERATIONS] [term]
 * Every rank: point-to-point to itself, runs of unsuccessful polls (which
 * collapse), successful polls, lists (Alltoallv counts, Waitall requests
 * and statuses), derived datatypes, communicators and groups created and
 * freed, and one MPI_Waitall on 6000 requests (a record larger than the
 * smallest buffer). With "term", rank 0 ends with a run of unsuccessful
 * MPI_Iprobe calls and raises SIGTERM instead of calling MPI_Finalize (the
 * other ranks wait to be killed). Rank 0 prints "ok".
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BIG = 3000 };

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int iters = argc > 1 ? atoi(argv[1]) : 200;
	int term = argc > 2 && strcmp(argv[2], "term") == 0;
	int rank, size, flag, x = 0, y = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int *sc = calloc((size_t)size, sizeof(int)), *rc = calloc((size_t)size, sizeof(int));
	int *sd = calloc((size_t)size, sizeof(int));
	int *in = calloc((size_t)size * 4, sizeof(int)), *out = calloc((size_t)size * 4, sizeof(int));
	MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * BIG);
	MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * BIG);
	char *buf = calloc(2 * BIG, 1);
	if (!sc || !rc || !sd || !in || !out || !rq || !st || !buf)
		return 1;
	for (int i = 0; i < size; i++) {
		sc[i] = 1 + rank % 4;
		rc[i] = 1 + i % 4;
		sd[i] = 4 * i;
	}
	for (int i = 0; i < iters; i++) {
		MPI_Request r[2];
		MPI_Status s[2];
		MPI_Comm_rank(MPI_COMM_WORLD, &x);
		MPI_Irecv(&y, 1, MPI_INT, 0, i, MPI_COMM_SELF, &r[0]);
		MPI_Isend(&x, 1, MPI_INT, 0, i, MPI_COMM_SELF, &r[1]);
		MPI_Waitall(2, r, s);
		for (int k = 0; k < 1 + i % 5; k++) /* one collapsed line */
			MPI_Iprobe(MPI_ANY_SOURCE, 1000 + i % 3, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
		MPI_Send(&x, 1, MPI_INT, 0, 77, MPI_COMM_SELF);
		MPI_Iprobe(0, 77, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE); /* success */
		MPI_Recv(&y, 1, MPI_INT, 0, 77, MPI_COMM_SELF, MPI_STATUS_IGNORE);
		if (i % 10 == 0) {
			MPI_Datatype t;
			MPI_Comm c;
			MPI_Group g;
			MPI_Type_vector(2, 1, 3, MPI_INT, &t);
			MPI_Type_commit(&t);
			MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &c);
			MPI_Comm_group(c, &g);
			MPI_Group_free(&g);
			MPI_Alltoallv(out, sc, sd, MPI_INT, in, rc, sd, MPI_INT, MPI_COMM_WORLD);
			MPI_Comm_free(&c);
			MPI_Type_free(&t);
		}
	}
	for (int i = 0; i < BIG; i++) {
		MPI_Irecv(buf + i, 1, MPI_CHAR, 0, i, MPI_COMM_SELF, &rq[2 * i]);
		MPI_Isend(buf + BIG + i, 1, MPI_CHAR, 0, i, MPI_COMM_SELF, &rq[2 * i + 1]);
	}
	MPI_Waitall(2 * BIG, rq, st);
	MPI_Allreduce(&rank, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	if (term) {
		if (rank == 0) {
			for (int k = 0; k < 7; k++)
				MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
			raise(SIGTERM);
		}
		sleep(30);
	} else {
		for (int k = 0; k < 7; k++)
			MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
	}
	if (rank == 0)
		printf("ok\n");
	MPI_Finalize();
	return 0;
}
