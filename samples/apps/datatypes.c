/*
 * datatypes: derived datatypes in messages and collectives: contiguous,
 * vector, indexed, struct, subarray and resized types are created,
 * committed, used between neighbours and freed. The trace must give each
 * its size and extent. Rank 0 prints "<type> <size> <extent>" per type as
 * MPI_Type_size/MPI_Type_get_extent report them.   datatypes [ROUNDS]
 *
 * ROUNDS (default 1) repeats the whole sequence, so that a run lasts long enough to be
 * measured (pipelines/apps.mk); only the first round prints.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int quiet; /* rounds after the first */

static void use(MPI_Datatype t, const char *name, int rank, int size)
{
	static double sbuf[4096], rbuf[4096];
	int sz;
	MPI_Aint lb, ext;
	MPI_Type_commit(&t);
	MPI_Type_size(t, &sz);
	MPI_Type_get_extent(t, &lb, &ext);
	if (rank == 0 && !quiet)
		printf("%s %d %ld\n", name, sz, (long)ext);
	MPI_Sendrecv(sbuf, 2, t, (rank + 1) % size, 9, rbuf, 2, t, (rank + size - 1) % size, 9,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Bcast(sbuf, 1, t, 0, MPI_COMM_WORLD);
	MPI_Type_free(&t);
}

/* one round: every type made, used and freed */
static void sequence(int rank, int size)
{
	MPI_Datatype t;
	MPI_Type_contiguous(5, MPI_DOUBLE, &t);
	use(t, "contiguous", rank, size);
	MPI_Type_vector(4, 2, 8, MPI_DOUBLE, &t);
	use(t, "vector", rank, size);
	int bl[3] = { 1, 2, 3 }, dis[3] = { 0, 4, 10 };
	MPI_Type_indexed(3, bl, dis, MPI_INT, &t);
	use(t, "indexed", rank, size);
	struct { int i; double d[2]; char c; } s;
	MPI_Aint base, ad[3];
	MPI_Get_address(&s, &base);
	MPI_Get_address(&s.i, &ad[0]);
	MPI_Get_address(&s.d, &ad[1]);
	MPI_Get_address(&s.c, &ad[2]);
	for (int i = 0; i < 3; i++)
		ad[i] -= base;
	int sbl[3] = { 1, 2, 1 };
	MPI_Datatype sty[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
	MPI_Type_create_struct(3, sbl, ad, sty, &t);
	use(t, "struct", rank, size);
	int sizes[2] = { 16, 16 }, sub[2] = { 4, 4 }, st[2] = { 2, 2 };
	MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, MPI_DOUBLE, &t);
	use(t, "subarray", rank, size);
	MPI_Type_create_resized(MPI_INT, 0, 16, &t);
	use(t, "resized", rank, size);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	for (int round = 0; round < rounds; round++, quiet = 1)
		sequence(rank, size);
	MPI_Finalize();
	return 0;
}
