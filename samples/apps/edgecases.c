/*
 * edgecases: the MPI corner cases a tracer must record correctly, one after
 * the other: zero counts; MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE (the trace
 * must still say what was received); MPI_PROC_NULL as destination and source
 * (Send, Recv, Sendrecv, Isend/Irecv, Probe, Iprobe); MPI_REQUEST_NULL alone
 * and inside arrays for every Wait/Test call; MPI_BOTTOM with a datatype of
 * absolute addresses; derived datatypes whose size differs from their extent;
 * MPI_IN_PLACE in every collective that allows it; zero-count collectives;
 * group calls, a communicator made from a group, and MPI_Comm_idup.
 *
 * Ranks pair up as rank^1; a rank without a partner (the last of an odd
 * number) runs the same sequence against MPI_PROC_NULL, so at 3 ranks rank 2
 * exercises MPI_PROC_NULL everywhere. Every rank prints one line per
 * completed receive-side call in which the program passed a real status:
 * "<rank> <what> <source> <tag> <bytes>" (source -2 for MPI_PROC_NULL, -1
 * for MPI_ANY_SOURCE; tag -1 for MPI_ANY_TAG), for the tests to compare with
 * the trace. It checks the data it receives and exits 1 on a mismatch.
 *   edgecases
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void fail(const char *what)
{
	fprintf(stderr, "edgecases: rank %d: %s\n", rank, what);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static void show(const char *what, const MPI_Status *st)
{
	int n = 0;
	MPI_Get_count(st, MPI_BYTE, &n);
	int src = st->MPI_SOURCE == MPI_PROC_NULL ? -2
		: st->MPI_SOURCE == MPI_ANY_SOURCE ? -1 : st->MPI_SOURCE;
	int tag = st->MPI_TAG == MPI_ANY_TAG ? -1 : st->MPI_TAG;
	printf("%d %s %d %d %d\n", rank, what, src, tag, n);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm W = MPI_COMM_WORLD;
	int p = (rank ^ 1) < size ? rank ^ 1 : MPI_PROC_NULL;
	int first = (rank & 1) == 0; /* sends first */
	int sb[64], rb[64], flag = 0, idx = 0, out = 0, ind[4];
	MPI_Status st, sts[4];
	MPI_Request r[4];
	for (int i = 0; i < 64; i++)
		sb[i] = 100 * rank + i;

	/* 1. zero count, then a receive with MPI_STATUS_IGNORE */
	if (first) {
		MPI_Send(sb, 0, MPI_INT, p, 1, W);
		MPI_Send(sb, 3, MPI_INT, p, 2, W);
	} else {
		MPI_Recv(rb, 0, MPI_INT, p, 1, W, &st);
		show("recv0", &st);
		MPI_Recv(rb, 8, MPI_INT, p, 2, W, MPI_STATUS_IGNORE);
	}
	if (first) {
		MPI_Recv(rb, 0, MPI_INT, p, 1, W, &st);
		show("recv0", &st);
		MPI_Recv(rb, 8, MPI_INT, p, 2, W, MPI_STATUS_IGNORE);
	} else {
		MPI_Send(sb, 0, MPI_INT, p, 1, W);
		MPI_Send(sb, 3, MPI_INT, p, 2, W);
	}
	if (p != MPI_PROC_NULL && rb[2] != 100 * p + 2)
		fail("wrong data after a receive with MPI_STATUS_IGNORE");

	/* 2. Sendrecv with MPI_STATUS_IGNORE; with MPI_PROC_NULL on both sides */
	MPI_Sendrecv(sb, 2, MPI_INT, p, 3, rb, 2, MPI_INT, p, 3, W, MPI_STATUS_IGNORE);
	MPI_Sendrecv(sb, 2, MPI_INT, MPI_PROC_NULL, 4, rb, 2, MPI_INT, MPI_PROC_NULL, 4, W, &st);
	show("sendrecv-procnull", &st);

	/* 3. point-to-point with MPI_PROC_NULL, blocking and nonblocking */
	MPI_Send(sb, 4, MPI_INT, MPI_PROC_NULL, 5, W);
	MPI_Recv(rb, 4, MPI_INT, MPI_PROC_NULL, 5, W, &st);
	show("recv-procnull", &st);
	MPI_Irecv(rb, 4, MPI_INT, MPI_PROC_NULL, 6, W, &r[0]);
	MPI_Isend(sb, 4, MPI_INT, MPI_PROC_NULL, 6, W, &r[1]);
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	MPI_Probe(MPI_PROC_NULL, 7, W, &st);
	show("probe-procnull", &st);
	MPI_Iprobe(MPI_PROC_NULL, 7, W, &flag, MPI_STATUS_IGNORE);
	if (!flag)
		fail("MPI_Iprobe(MPI_PROC_NULL) did not succeed");

	/* 4. MPI_REQUEST_NULL alone and in arrays */
	r[0] = r[1] = r[2] = MPI_REQUEST_NULL;
	MPI_Wait(&r[0], &st);
	show("wait-null", &st);
	MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
	MPI_Waitall(3, r, sts);
	MPI_Waitany(3, r, &idx, MPI_STATUS_IGNORE);
	if (idx != MPI_UNDEFINED)
		fail("MPI_Waitany on null requests did not return MPI_UNDEFINED");
	MPI_Waitsome(3, r, &out, ind, MPI_STATUSES_IGNORE);
	MPI_Testany(3, r, &idx, &flag, MPI_STATUS_IGNORE);
	MPI_Testsome(3, r, &out, ind, MPI_STATUSES_IGNORE);
	MPI_Testall(3, r, &flag, MPI_STATUSES_IGNORE);
	/* mixed: a receive, a null, a send; statuses ignored */
	MPI_Irecv(rb, 4, MPI_INT, p, 8, W, &r[0]);
	r[1] = MPI_REQUEST_NULL;
	MPI_Isend(sb, 4, MPI_INT, p, 8, W, &r[2]);
	MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
	MPI_Irecv(rb, 2, MPI_INT, p, 9, W, &r[1]);
	r[0] = MPI_REQUEST_NULL;
	MPI_Send(sb, 2, MPI_INT, p, 9, W);
	MPI_Waitsome(2, r, &out, ind, MPI_STATUSES_IGNORE);
	MPI_Irecv(rb, 1, MPI_INT, p, 10, W, &r[1]);
	MPI_Send(sb, 1, MPI_INT, p, 10, W);
	MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
	MPI_Irecv(rb, 1, MPI_INT, p, 11, W, &r[0]);
	MPI_Send(sb, 1, MPI_INT, p, 11, W);
	do
		MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
	while (!flag);
	MPI_Irecv(rb, 1, MPI_INT, p, 12, W, &r[0]);
	MPI_Send(sb, 1, MPI_INT, p, 12, W);
	do
		MPI_Testsome(2, r, &out, ind, MPI_STATUSES_IGNORE);
	while (out == 0);

	/* 5. MPI_BOTTOM with a datatype of absolute addresses */
	struct { int i; double d; } pair = { 7 * rank, 0.5 * rank }, got = { -1, -1.0 };
	MPI_Aint disp[2];
	int bl[2] = { 1, 1 };
	MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE }, abs_send, abs_recv;
	MPI_Get_address(&pair.i, &disp[0]);
	MPI_Get_address(&pair.d, &disp[1]);
	MPI_Type_create_struct(2, bl, disp, types, &abs_send);
	MPI_Type_commit(&abs_send);
	MPI_Get_address(&got.i, &disp[0]);
	MPI_Get_address(&got.d, &disp[1]);
	MPI_Type_create_struct(2, bl, disp, types, &abs_recv);
	MPI_Type_commit(&abs_recv);
	MPI_Sendrecv(MPI_BOTTOM, 1, abs_send, p, 13, MPI_BOTTOM, 1, abs_recv, p, 13, W, &st);
	show("sendrecv-bottom", &st);
	if (p != MPI_PROC_NULL && (got.i != 7 * p || got.d != 0.5 * p))
		fail("wrong data through MPI_BOTTOM");
	MPI_Type_free(&abs_send);
	MPI_Type_free(&abs_recv);

	/* 6. derived datatypes whose size is not their extent */
	MPI_Datatype vec, wide, two;
	int tsz = 0;
	MPI_Type_vector(3, 2, 4, MPI_INT, &vec); /* size 24, extent 40 */
	MPI_Type_create_resized(vec, 0, 48, &wide); /* size 24, extent 48 */
	MPI_Type_contiguous(2, wide, &two);         /* size 48, extent 96 */
	MPI_Type_commit(&wide);
	MPI_Type_commit(&two);
	MPI_Type_size(two, &tsz);
	MPI_Sendrecv(sb, 2, wide, p, 14, rb, 1, two, p, 14, W, &st);
	show("sendrecv-derived", &st);
	MPI_Sendrecv(sb, 1, two, p, 15, rb, 12, MPI_INT, p, 15, W, &st);
	show("sendrecv-derived-int", &st);
	MPI_Type_free(&vec);
	MPI_Type_free(&wide);
	MPI_Type_free(&two);

	/* 7. MPI_IN_PLACE in collectives */
	int v[64];
	for (int i = 0; i < 64; i++)
		v[i] = rank + i;
	MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_SUM, W);
	MPI_Reduce(rank == 0 ? MPI_IN_PLACE : v, v, 4, MPI_INT, MPI_MAX, 0, W);
	MPI_Gather(rank == 0 ? MPI_IN_PLACE : v, 2, MPI_INT, v, 2, MPI_INT, 0, W);
	MPI_Scatter(v, 2, MPI_INT, rank == 0 ? MPI_IN_PLACE : rb, 2, MPI_INT, 0, W);
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, 2, MPI_INT, W);
	MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, 1, MPI_INT, W);
	int cnt[64], dsp[64];
	for (int i = 0; i < size; i++) {
		cnt[i] = 1;
		dsp[i] = i;
	}
	MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, v, cnt, dsp, MPI_INT, W);
	MPI_Reduce_scatter_block(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, W);
	MPI_Scan(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, W);
	MPI_Exscan(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, W);
	MPI_Iallreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, W, &r[0]);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);

	/* 8. zero-count collectives */
	MPI_Bcast(v, 0, MPI_INT, 0, W);
	MPI_Allreduce(sb, v, 0, MPI_INT, MPI_SUM, W);
	for (int i = 0; i < size; i++)
		cnt[i] = i == 1 ? 0 : 1;
	MPI_Gatherv(sb, rank == 1 ? 0 : 1, MPI_INT, v, cnt, dsp, MPI_INT, 0, W);

	/* 9. groups, a communicator made from one, and MPI_Comm_idup */
	MPI_Group world, evens, odds, firsts, all, none, rest;
	int ev[32], ne = 0, range[1][3] = { { 0, size - 1, 2 } };
	for (int i = 0; i < size; i += 2)
		ev[ne++] = i;
	MPI_Comm_group(W, &world);
	MPI_Group_incl(world, ne, ev, &evens);
	MPI_Group_excl(world, ne, ev, &odds);
	MPI_Group_range_incl(world, 1, range, &firsts); /* the even ranks again */
	MPI_Group_union(evens, odds, &all);
	MPI_Group_intersection(evens, odds, &none); /* MPI_GROUP_EMPTY */
	MPI_Group_difference(all, firsts, &rest);
	MPI_Comm ec, dc;
	MPI_Comm_create(W, evens, &ec);
	if (ec != MPI_COMM_NULL) {
		MPI_Barrier(ec);
		MPI_Comm_free(&ec);
	}
	MPI_Group_free(&rest);
	MPI_Group_free(&none);
	MPI_Group_free(&all);
	MPI_Group_free(&firsts);
	MPI_Group_free(&odds);
	MPI_Group_free(&evens);
	MPI_Group_free(&world);
	MPI_Comm_idup(W, &dc, &r[0]);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);
	MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, dc);
	MPI_Comm_free(&dc);

	MPI_Finalize();
	return 0;
}
