/*
 * wildcard: every rank but 0 sends MSGS messages to rank 0 with tags
 * 100*rank+k and k*8+8 bytes; rank 0 receives them with MPI_ANY_SOURCE and
 * MPI_ANY_TAG in whatever order they come, through Recv, Probe + Recv,
 * Iprobe polling + Recv, and Mprobe + Mrecv in turn. Rank 0 prints one line
 * per receive as the program saw it: "recv <call> <source> <tag> <bytes>",
 * which the tests compare with the statuses in the trace.   wildcard [MSGS [ROUNDS]]
 *
 * ROUNDS (default 1) repeats the exchange, a barrier between two rounds, so that a run
 * lasts long enough to be measured (pipelines/apps.mk; MSGS is at most 1024, the buffer's
 * doubles); only the first round prints.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* one round: MSGS messages from every rank but 0, received by rank 0 (printed when `say`) */
static void exchange(int rank, int size, int msgs, int say)
{
	double buf[1024] = { 0 };
	if (rank != 0) {
		for (int k = 0; k < msgs; k++)
			MPI_Send(buf, k + 1, MPI_DOUBLE, 0, 100 * rank + k, MPI_COMM_WORLD);
	} else {
		int total = msgs * (size - 1);
		for (int i = 0; i < total; i++) {
			MPI_Status st;
			int n = 0, flag = 0;
			const char *how;
			switch (i % 4) {
			case 0:
				how = "MPI_Recv";
				MPI_Recv(buf, 1024, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
				break;
			case 1:
				how = "MPI_Probe";
				MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
				MPI_Recv(buf, 1024, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
				break;
			case 2:
				how = "MPI_Iprobe";
				while (!flag)
					MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
				MPI_Recv(buf, 1024, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
				break;
			default: {
				MPI_Message m;
				how = "MPI_Mprobe";
				MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
				MPI_Mrecv(buf, 1024, MPI_DOUBLE, &m, &st);
				break;
			}
			}
			MPI_Get_count(&st, MPI_BYTE, &n);
			if (say)
				printf("recv %s %d %d %d\n", how, st.MPI_SOURCE, st.MPI_TAG, n);
		}
		/* a receive from MPI_PROC_NULL completes at once with an empty status */
		MPI_Recv(buf, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int msgs = argc > 1 ? atoi(argv[1]) : 4;
	int rounds = argc > 2 ? atoi(argv[2]) : 1;
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (msgs < 0 || msgs > 1024 || rounds < 0) {
		if (rank == 0)
			fprintf(stderr, "wildcard: MSGS must be 0 to 1024 and ROUNDS at least 0\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (int round = 0; round < rounds; round++) {
		if (round)
			MPI_Barrier(MPI_COMM_WORLD);
		exchange(rank, size, msgs, round == 0);
	}
	MPI_Finalize();
	return 0;
}
