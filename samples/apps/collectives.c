/*
 * collectives: every blocking and nonblocking collective of MPI-3 on
 * MPI_COMM_WORLD and on sub-communicators (split into halves, a dup, a
 * 1-D periodic Cartesian communicator for the neighbourhood collectives),
 * with several counts, MPI_IN_PLACE and the v and w variants. Each call
 * checks a result so a wrong interposition would show. Rank 0 prints "ok".
 *   collectives [ROUNDS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(c)                                                                     \
	do {                                                                        \
		if (!(c)) {                                                         \
			fprintf(stderr, "collectives: check failed line %d\n", __LINE__); \
			MPI_Abort(MPI_COMM_WORLD, 3);                               \
		}                                                                   \
	} while (0)

static void run(MPI_Comm comm, int count)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	int n = count * size;
	int *a = malloc(sizeof(int) * (size_t)n), *b = malloc(sizeof(int) * (size_t)n);
	int *cnt = malloc(sizeof(int) * (size_t)size), *dis = malloc(sizeof(int) * (size_t)size);
	MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)size);
	int *bdis = malloc(sizeof(int) * (size_t)size);
	for (int i = 0; i < size; i++) {
		cnt[i] = count;
		dis[i] = i * count;
		ty[i] = MPI_INT;
		bdis[i] = i * count * (int)sizeof(int);
	}
	for (int i = 0; i < n; i++)
		a[i] = rank;
	MPI_Request r;

	MPI_Barrier(comm);
	MPI_Ibarrier(comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	b[0] = rank == 0 ? 42 : 0;
	MPI_Bcast(b, 1, MPI_INT, 0, comm);
	CHECK(b[0] == 42);
	MPI_Ibcast(a, count, MPI_INT, 0, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	for (int i = 0; i < n; i++)
		a[i] = rank;
	MPI_Reduce(a, b, count, MPI_INT, MPI_SUM, 0, comm);
	CHECK(rank != 0 || b[0] == size * (size - 1) / 2);
	MPI_Ireduce(a, b, count, MPI_INT, MPI_MAX, 0, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Allreduce(a, b, count, MPI_INT, MPI_SUM, comm);
	CHECK(b[0] == size * (size - 1) / 2);
	b[0] = rank;
	MPI_Allreduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_MAX, comm);
	CHECK(b[0] == size - 1);
	MPI_Iallreduce(a, b, count, MPI_INT, MPI_MIN, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	CHECK(b[0] == 0);
	MPI_Gather(a, count, MPI_INT, b, count, MPI_INT, 0, comm);
	MPI_Igather(a, count, MPI_INT, b, count, MPI_INT, 0, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Gatherv(a, count, MPI_INT, b, cnt, dis, MPI_INT, 0, comm);
	CHECK(rank != 0 || b[n - 1] == size - 1);
	MPI_Igatherv(a, count, MPI_INT, b, cnt, dis, MPI_INT, 0, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Scatter(b, count, MPI_INT, a, count, MPI_INT, 0, comm);
	MPI_Iscatter(b, count, MPI_INT, a, count, MPI_INT, 0, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Scatterv(b, cnt, dis, MPI_INT, a, count, MPI_INT, 0, comm);
	MPI_Iscatterv(b, cnt, dis, MPI_INT, a, count, MPI_INT, 0, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	for (int i = 0; i < n; i++)
		a[i] = rank;
	MPI_Allgather(a, count, MPI_INT, b, count, MPI_INT, comm);
	CHECK(b[n - 1] == size - 1);
	MPI_Iallgather(a, count, MPI_INT, b, count, MPI_INT, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Allgatherv(a, count, MPI_INT, b, cnt, dis, MPI_INT, comm);
	MPI_Iallgatherv(a, count, MPI_INT, b, cnt, dis, MPI_INT, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Alltoall(a, count, MPI_INT, b, count, MPI_INT, comm);
	CHECK(b[n - 1] == size - 1);
	MPI_Ialltoall(a, count, MPI_INT, b, count, MPI_INT, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Alltoallv(a, cnt, dis, MPI_INT, b, cnt, dis, MPI_INT, comm);
	MPI_Ialltoallv(a, cnt, dis, MPI_INT, b, cnt, dis, MPI_INT, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Alltoallw(a, cnt, bdis, ty, b, cnt, bdis, ty, comm);
	MPI_Ialltoallw(a, cnt, bdis, ty, b, cnt, bdis, ty, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, comm);
	CHECK(b[0] == size * (size - 1) / 2);
	MPI_Ireduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Reduce_scatter_block(a, b, count, MPI_INT, MPI_SUM, comm);
	MPI_Ireduce_scatter_block(a, b, count, MPI_INT, MPI_SUM, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Scan(a, b, count, MPI_INT, MPI_SUM, comm);
	CHECK(b[0] == rank * (rank + 1) / 2);
	MPI_Iscan(a, b, count, MPI_INT, MPI_SUM, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Exscan(a, b, count, MPI_INT, MPI_SUM, comm);
	MPI_Iexscan(a, b, count, MPI_INT, MPI_SUM, comm, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	free(a);
	free(b);
	free(cnt);
	free(dis);
	free(ty);
	free(bdis);
}

static void neighbours(MPI_Comm world)
{
	int size, dims[1] = { 0 }, periods[1] = { 1 };
	MPI_Comm_size(world, &size);
	dims[0] = size;
	MPI_Comm cart;
	MPI_Cart_create(world, 1, dims, periods, 0, &cart);
	int rank;
	MPI_Comm_rank(cart, &rank);
	int s[2] = { rank, rank }, rv[2], cnt[2] = { 1, 1 }, dis[2] = { 0, 1 };
	MPI_Request r;
	MPI_Neighbor_allgather(s, 1, MPI_INT, rv, 1, MPI_INT, cart);
	CHECK(rv[0] == (rank + size - 1) % size && rv[1] == (rank + 1) % size);
	MPI_Ineighbor_allgather(s, 1, MPI_INT, rv, 1, MPI_INT, cart, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Neighbor_alltoall(s, 1, MPI_INT, rv, 1, MPI_INT, cart);
	MPI_Neighbor_allgatherv(s, 1, MPI_INT, rv, cnt, dis, MPI_INT, cart);
	MPI_Neighbor_alltoallv(s, cnt, dis, MPI_INT, rv, cnt, dis, MPI_INT, cart);
	MPI_Comm_free(&cart);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm half, dup;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	for (int i = 0; i < rounds; i++) {
		run(MPI_COMM_WORLD, 1);
		run(MPI_COMM_WORLD, 1000);
		run(half, 7);
		run(dup, 3);
	}
	neighbours(MPI_COMM_WORLD);
	MPI_Comm none;
	MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none);
	if (none != MPI_COMM_NULL)
		MPI_Comm_free(&none);
	MPI_Comm_free(&half);
	MPI_Comm_free(&dup);
	if (rank == 0)
		printf("ok\n");
	MPI_Finalize();
	return 0;
}
