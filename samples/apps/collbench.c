/*
 * collbench: one collective of MPI_COMM_WORLD in a loop, blocking or
 * nonblocking (the call, then MPI_Wait), for measuring what the model
 * charges one collective against what it costs (docs/validation.md,
 * "Nonblocking collectives").
 *
 *   collbench COLLECTIVE COUNT ITERATIONS [nb]
 *
 * COLLECTIVE: barrier bcast reduce allreduce gather gatherv scatter scatterv
 * allgather allgatherv alltoall alltoallv alltoallw reduce_scatter
 * reduce_scatter_block scan exscan; COUNT: MPI_INT elements per block (per
 * rank and peer); "nb": the nonblocking form. Roots are rank 0, reductions
 * MPI_SUM. Exit status 2 on bad arguments.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = { "barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter",
	                             "scatterv", "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
	                             "reduce_scatter", "reduce_scatter_block", "scan", "exscan", NULL };

static void usage(int rank, const char *msg)
{
	if (rank == 0)
		fprintf(stderr, "collbench: %s\nusage: collbench COLLECTIVE COUNT ITERATIONS [nb]\n", msg);
	MPI_Finalize();
	exit(2);
}

int main(int argc, char **argv)
{
	int rank, size, k, count, iters, nb;
	char *end;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "nb")))
		usage(rank, "expected a collective, a count, an iteration count and optionally 'nb'");
	for (k = 0; names[k] && strcmp(names[k], argv[1]); k++)
		;
	if (!names[k])
		usage(rank, "unknown collective");
	count = (int)strtol(argv[2], &end, 10);
	if (*end || count < 1 || count > (1 << 24) / size)
		usage(rank, "COUNT: expected 1 to 16M / ranks");
	iters = (int)strtol(argv[3], &end, 10);
	if (*end || iters < 1)
		usage(rank, "ITERATIONS: expected a positive integer");
	nb = argc == 5;

	int n = count * size, *cnt = malloc(sizeof(int) * (size_t)size), *dis = malloc(sizeof(int) * (size_t)size);
	int *bdis = malloc(sizeof(int) * (size_t)size), *a = calloc((size_t)n, sizeof(int)), *b = calloc((size_t)n, sizeof(int));
	MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)size);
	if (!cnt || !dis || !bdis || !a || !b || !ty)
		usage(rank, "out of memory");
	for (int i = 0; i < size; i++) {
		cnt[i] = count;
		dis[i] = i * count;
		bdis[i] = i * count * (int)sizeof(int);
		ty[i] = MPI_INT;
	}
	MPI_Comm w = MPI_COMM_WORLD;
	MPI_Request r = MPI_REQUEST_NULL, *q = nb ? &r : NULL;
	MPI_Barrier(w);
	for (int it = 0; it < iters; it++) {
		switch (k) {
		case 0: q ? MPI_Ibarrier(w, q) : MPI_Barrier(w); break;
		case 1: q ? MPI_Ibcast(a, count, MPI_INT, 0, w, q) : MPI_Bcast(a, count, MPI_INT, 0, w); break;
		case 2: q ? MPI_Ireduce(a, b, count, MPI_INT, MPI_SUM, 0, w, q) : MPI_Reduce(a, b, count, MPI_INT, MPI_SUM, 0, w); break;
		case 3: q ? MPI_Iallreduce(a, b, count, MPI_INT, MPI_SUM, w, q) : MPI_Allreduce(a, b, count, MPI_INT, MPI_SUM, w); break;
		case 4: q ? MPI_Igather(a, count, MPI_INT, b, count, MPI_INT, 0, w, q) : MPI_Gather(a, count, MPI_INT, b, count, MPI_INT, 0, w); break;
		case 5: q ? MPI_Igatherv(a, count, MPI_INT, b, cnt, dis, MPI_INT, 0, w, q)
		          : MPI_Gatherv(a, count, MPI_INT, b, cnt, dis, MPI_INT, 0, w); break;
		case 6: q ? MPI_Iscatter(b, count, MPI_INT, a, count, MPI_INT, 0, w, q) : MPI_Scatter(b, count, MPI_INT, a, count, MPI_INT, 0, w); break;
		case 7: q ? MPI_Iscatterv(b, cnt, dis, MPI_INT, a, count, MPI_INT, 0, w, q)
		          : MPI_Scatterv(b, cnt, dis, MPI_INT, a, count, MPI_INT, 0, w); break;
		case 8: q ? MPI_Iallgather(a, count, MPI_INT, b, count, MPI_INT, w, q) : MPI_Allgather(a, count, MPI_INT, b, count, MPI_INT, w); break;
		case 9: q ? MPI_Iallgatherv(a, count, MPI_INT, b, cnt, dis, MPI_INT, w, q)
		          : MPI_Allgatherv(a, count, MPI_INT, b, cnt, dis, MPI_INT, w); break;
		case 10: q ? MPI_Ialltoall(a, count, MPI_INT, b, count, MPI_INT, w, q) : MPI_Alltoall(a, count, MPI_INT, b, count, MPI_INT, w); break;
		case 11: q ? MPI_Ialltoallv(a, cnt, dis, MPI_INT, b, cnt, dis, MPI_INT, w, q)
		           : MPI_Alltoallv(a, cnt, dis, MPI_INT, b, cnt, dis, MPI_INT, w); break;
		case 12: q ? MPI_Ialltoallw(a, cnt, bdis, ty, b, cnt, bdis, ty, w, q)
		           : MPI_Alltoallw(a, cnt, bdis, ty, b, cnt, bdis, ty, w); break;
		case 13: q ? MPI_Ireduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, w, q) : MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, w); break;
		case 14: q ? MPI_Ireduce_scatter_block(a, b, count, MPI_INT, MPI_SUM, w, q)
		           : MPI_Reduce_scatter_block(a, b, count, MPI_INT, MPI_SUM, w); break;
		case 15: q ? MPI_Iscan(a, b, count, MPI_INT, MPI_SUM, w, q) : MPI_Scan(a, b, count, MPI_INT, MPI_SUM, w); break;
		default: q ? MPI_Iexscan(a, b, count, MPI_INT, MPI_SUM, w, q) : MPI_Exscan(a, b, count, MPI_INT, MPI_SUM, w); break;
		}
		if (q)
			MPI_Wait(q, MPI_STATUS_IGNORE);
	}
	free(a);
	free(b);
	free(cnt);
	free(dis);
	free(bdis);
	free(ty);
	MPI_Finalize();
	return 0;
}
