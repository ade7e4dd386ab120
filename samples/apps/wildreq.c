/*
 * wildreq: wildcard receives (MPI_ANY_SOURCE, MPI_ANY_TAG) completed by every
 * member of the Wait and Test families. Rank 0 posts one MPI_Irecv per other
 * rank, all wildcards, and completes them, phase by phase, with Waitall,
 * Waitany, Waitsome, Testany, Testsome, Testall and Test (polling), and last
 * with Waitall on a sub-communicator whose ranks run in reverse world order
 * (so a status's source, relative to that communicator, differs from the
 * world rank). Every other rank sends one message per phase with tag
 * 10*phase + rank and rank + phase ints. A barrier separates the phases so
 * a wildcard never takes a message of the next phase. Rank 0 prints one
 * line per completed receive: "<call> <world source> <tag> <bytes>".
 * It is the recorded case of trace2goal's wildcard resolution
 * (tests/t4007-trace2goal-wildcard-waitall.sh).   wildreq
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAXR = 64, PHASES = 8 };

static const char *const names[PHASES] = { "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
					   "MPI_Testany", "MPI_Testsome", "MPI_Testall",
					   "MPI_Test", "MPI_Waitall" };

static void report(int phase, const MPI_Status *st, const int *members)
{
	int n = 0;
	MPI_Get_count(st, MPI_BYTE, &n);
	printf("%s %d %d %d\n", names[phase], members ? members[st->MPI_SOURCE] : st->MPI_SOURCE,
	       st->MPI_TAG, n);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2 || size > MAXR) {
		if (rank == 0)
			fprintf(stderr, "wildreq: needs 2 to %d ranks\n", MAXR);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	/* reversed: world rank size-1 is rank 0 of rev */
	MPI_Comm rev;
	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
	int members[MAXR]; /* world rank of each rank of rev */
	for (int i = 0; i < size; i++)
		members[i] = size - 1 - i;
	static int rbuf[MAXR][MAXR + PHASES], sbuf[MAXR + PHASES];
	for (int phase = 0; phase < PHASES; phase++) {
		MPI_Comm comm = phase == PHASES - 1 ? rev : MPI_COMM_WORLD;
		const int *map = phase == PHASES - 1 ? members : NULL;
		if (rank != 0) {
			int dest = phase == PHASES - 1 ? size - 1 : 0; /* world rank 0 in comm */
			MPI_Send(sbuf, rank + phase, MPI_INT, dest, 10 * phase + rank, comm);
			MPI_Barrier(MPI_COMM_WORLD);
			continue;
		}
		int n = size - 1, done = 0, idx, flag = 0, out, ind[MAXR];
		MPI_Request r[MAXR];
		MPI_Status st[MAXR];
		for (int i = 0; i < n; i++)
			MPI_Irecv(rbuf[i], MAXR + PHASES, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &r[i]);
		switch (phase) {
		case 0:
		case 7:
			MPI_Waitall(n, r, st);
			for (int i = 0; i < n; i++)
				report(phase, &st[i], map);
			break;
		case 1:
			for (; done < n; done++) {
				MPI_Waitany(n, r, &idx, &st[0]);
				report(phase, &st[0], map);
			}
			break;
		case 2:
			while (done < n) {
				MPI_Waitsome(n, r, &out, ind, st);
				for (int i = 0; i < out; i++)
					report(phase, &st[i], map);
				done += out;
			}
			break;
		case 3:
			while (done < n) {
				MPI_Testany(n, r, &idx, &flag, &st[0]);
				if (flag && idx != MPI_UNDEFINED) {
					report(phase, &st[0], map);
					done++;
				}
			}
			break;
		case 4:
			while (done < n) {
				MPI_Testsome(n, r, &out, ind, st);
				for (int i = 0; i < out; i++)
					report(phase, &st[i], map);
				done += out;
			}
			break;
		case 5:
			while (!flag)
				MPI_Testall(n, r, &flag, st);
			for (int i = 0; i < n; i++)
				report(phase, &st[i], map);
			break;
		default:
			for (int i = 0; i < n; i++) {
				flag = 0;
				while (!flag)
					MPI_Test(&r[i], &flag, &st[0]);
				report(phase, &st[0], map);
			}
			break;
		}
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Comm_free(&rev);
	MPI_Finalize();
	return 0;
}
