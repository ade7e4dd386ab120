/*
 * nonblock: the Wait/Test families. Each rank exchanges NREQ messages with
 * its partner (rank^1; an odd last rank talks to MPI_PROC_NULL) and
 * completes them with, in turn, Waitall, Waitany, Waitsome, Testsome
 * polling, Test polling, Testany polling and Testall polling. Rank 0 prints
 * what it saw: "<call> <index or count> ..." per completion, which the
 * tests compare with the trace. MPI_REQUEST_NULL entries are mixed in.
 *   nonblock [REPEATS]
 * REPEATS (default 1) goes through the seven rounds that many times, so that a run lasts
 * long enough to be measured (pipelines/apps.mk); only the first time prints.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NREQ 4

/* the seven rounds once; rank 0 prints what it saw when `say` */
static void rounds(int peer, int say)
{
	int sbuf[NREQ] = { 1, 2, 3, 4 }, rbuf[NREQ];
	MPI_Request r[NREQ + 1];
	for (int round = 0; round < 7; round++) {
		for (int k = 0; k < NREQ; k += 2) {
			MPI_Irecv(&rbuf[k], 1, MPI_INT, peer, k, MPI_COMM_WORLD, &r[k]);
			MPI_Isend(&sbuf[k], 1, MPI_INT, peer, k, MPI_COMM_WORLD, &r[k + 1]);
		}
		r[NREQ] = MPI_REQUEST_NULL;
		int n = NREQ + 1, done = 0, idx, flag, out, ind[NREQ + 1];
		MPI_Status st[NREQ + 1];
		switch (round) {
		case 0:
			MPI_Waitall(n, r, st);
			if (say)
				printf("MPI_Waitall %d\n", n);
			break;
		case 1:
			while (done < NREQ) {
				MPI_Waitany(n, r, &idx, &st[0]);
				if (say)
					printf("MPI_Waitany %d\n", idx);
				done++;
			}
			MPI_Waitany(n, r, &idx, MPI_STATUS_IGNORE); /* all null: MPI_UNDEFINED */
			if (say)
				printf("MPI_Waitany %d\n", idx == MPI_UNDEFINED ? -1 : idx);
			break;
		case 2:
			while (done < NREQ) {
				MPI_Waitsome(n, r, &out, ind, st);
				if (say) {
					printf("MPI_Waitsome %d", out);
					for (int i = 0; i < out; i++)
						printf(" %d", ind[i]);
					printf("\n");
				}
				done += out;
			}
			break;
		case 3:
			while (done < NREQ) {
				MPI_Testsome(n, r, &out, ind, MPI_STATUSES_IGNORE);
				if (say && out > 0) {
					printf("MPI_Testsome %d", out);
					for (int i = 0; i < out; i++)
						printf(" %d", ind[i]);
					printf("\n");
				}
				done += out > 0 ? out : 0;
			}
			break;
		case 4:
			for (int k = 0; k < NREQ; k++) {
				flag = 0;
				while (!flag)
					MPI_Test(&r[k], &flag, MPI_STATUS_IGNORE);
				if (say)
					printf("MPI_Test %d\n", k);
			}
			break;
		case 5:
			while (done < NREQ) {
				MPI_Testany(n, r, &idx, &flag, &st[0]);
				if (flag && idx != MPI_UNDEFINED) {
					if (say)
						printf("MPI_Testany %d\n", idx);
					done++;
				}
			}
			break;
		default:
			flag = 0;
			while (!flag)
				MPI_Testall(n, r, &flag, st);
			if (say)
				printf("MPI_Testall %d\n", n);
			break;
		}
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int peer = (rank ^ 1) < size ? rank ^ 1 : MPI_PROC_NULL;
	int repeats = argc > 1 ? atoi(argv[1]) : 1;
	for (int rep = 0; rep < repeats; rep++)
		rounds(peer, rank == 0 && rep == 0);
	MPI_Finalize();
	return 0;
}
