/*
 * rma.c: MPI-3 one-sided communication, for allprof and trace2goal (docs/trace2goal.md,
 * "One-sided communication").
 *
 *   rma [all]          every one-sided call allprof records, once or more; prints the
 *                      checksum rank 0 computes of what it gathered ("rma: ok <sum>")
 *   rma windows N B    N times: allocate a window of B bytes on every rank, put a block to
 *                      the next rank inside a fence epoch, free the window (the pattern of
 *                      Global Arrays and ARMCI-MPI, whose windows come and go with arrays)
 *
 * Every rank checks what it reads back and the program exits 1 on a mismatch, so a trace
 * of it is a trace of a correct run. Needs 2 ranks or more.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "rma: %s\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static void windows(int n, int b)
{
	int r, p;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	char *src = malloc((size_t)b);
	check(src != NULL, "out of memory");
	for (int i = 0; i < n; i++) {
		char *base;
		MPI_Win w;
		memset(src, 'a' + (r + i) % 26, (size_t)b);
		MPI_Win_allocate(b, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
		MPI_Win_fence(0, w);
		MPI_Put(src, b, MPI_BYTE, (r + 1) % p, 0, b, MPI_BYTE, w);
		MPI_Win_fence(0, w);
		check(base[0] == 'a' + ((r + p - 1) % p + i) % 26 && base[b - 1] == base[0], "windows: wrong data");
		MPI_Win_free(&w);
	}
	free(src);
}

/* Every call of formats/calls.tsv's one-sided rows. */
static void all(void)
{
	int r, p, next, prev;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	next = (r + 1) % p;
	prev = (r + p - 1) % p;

	/* fence epochs on a window of the program's memory */
	int mem[4] = { 0, 0, 0, 0 }, one = 1, got = -1;
	MPI_Win w;
	MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
	MPI_Win_fence(0, w);
	MPI_Put(&r, 1, MPI_INT, next, 0, 1, MPI_INT, w);
	MPI_Accumulate(&one, 1, MPI_INT, next, 1, 1, MPI_INT, MPI_SUM, w);
	MPI_Win_fence(0, w);
	MPI_Get(&got, 1, MPI_INT, next, 0, 1, MPI_INT, w);
	MPI_Win_fence(0, w);
	check(mem[0] == prev && mem[1] == 1 && got == r, "fence: wrong data");

	/* passive target on an allocated window: lock/unlock, lock_all, the flushes, atomics */
	int *base, res = -1, cmp = 0, val = 7;
	MPI_Win a;
	MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &a);
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, a);
	memset(base, 0, 4 * sizeof(int));
	MPI_Win_unlock(r, a);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock(MPI_LOCK_SHARED, next, 0, a);
	MPI_Fetch_and_op(&one, &res, MPI_INT, next, 0, MPI_SUM, a);
	MPI_Win_flush(next, a);
	MPI_Win_unlock(next, a);
	MPI_Win_lock_all(0, a);
	MPI_Compare_and_swap(&val, &cmp, &res, MPI_INT, next, 1, a);
	MPI_Win_flush_local(next, a);
	MPI_Get_accumulate(&one, 1, MPI_INT, &res, 1, MPI_INT, next, 2, 1, MPI_INT, MPI_SUM, a);
	MPI_Win_flush_local_all(a);
	MPI_Win_flush_all(a);
	MPI_Win_sync(a);
	MPI_Win_unlock_all(a);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock(MPI_LOCK_SHARED, r, 0, a);
	check(base[0] == 1 && base[1] == 7 && base[2] == 1, "passive: wrong data");
	MPI_Win_unlock(r, a);

	/* post-start-complete-wait between neighbours, on a shared-memory window */
	MPI_Comm node;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	int *sh;
	MPI_Win s;
	MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &sh, &s);
	MPI_Win_free(&s);
	MPI_Comm_free(&node);

	MPI_Group world, gnext, gprev;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &next, &gnext);
	MPI_Group_incl(world, 1, &prev, &gprev);
	MPI_Win_post(gprev, 0, a);
	MPI_Win_start(gnext, 0, a);
	MPI_Put(&val, 1, MPI_INT, next, 3, 1, MPI_INT, a);
	MPI_Win_complete(a);
	MPI_Win_wait(a);
	check(base[3] == 7, "pscw: wrong data");
	MPI_Group_free(&gnext);
	MPI_Group_free(&gprev);
	MPI_Group_free(&world);

	/* a dynamic window with nothing attached */
	MPI_Win d;
	MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &d);
	MPI_Win_free(&d);

	MPI_Win_free(&a);
	MPI_Win_free(&w);
	int sum = 0;
	MPI_Reduce(&got, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (r == 0)
		printf("rma: ok %d\n", sum);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int p;
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (p < 2) {
		fprintf(stderr, "rma: needs 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (argc >= 4 && strcmp(argv[1], "windows") == 0) {
		int n = atoi(argv[2]), b = atoi(argv[3]);
		if (n < 1 || b < 1) {
			fprintf(stderr, "rma: windows N B: N and B must be positive\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		windows(n, b);
	} else if (argc == 1 || (argc == 2 && strcmp(argv[1], "all") == 0)) {
		all();
	} else {
		fprintf(stderr, "usage: rma [all] | rma windows N B\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Finalize();
	return 0;
}
