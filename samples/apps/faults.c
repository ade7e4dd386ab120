/*
 * faults: ends in the way its argument says, after some traced calls, so the
 * tests can check that nothing recorded is lost and that the trace is
 * marked incomplete:
 *   faults ok | abort | exit | segv | term | hang [N]
 * "abort": rank 1 (or 0 alone) calls MPI_Abort; "exit": every rank calls
 * exit(3) without MPI_Finalize; "segv": rank 0 dereferences NULL; "term":
 * rank 0 raises SIGTERM; "hang": every rank prints "ready <rank>" and sleeps
 * until it is killed. N (default 100) is the number of MPI_Allreduce calls
 * before the end: enough of them fill a small trace buffer several times.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	const char *how = argc > 1 ? argv[1] : "ok";
	int rank, size, x = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int n = argc > 2 ? atoi(argv[2]) : 100;
	for (int i = 0; i < n; i++)
		MPI_Allreduce(&rank, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	if (strcmp(how, "abort") == 0) {
		if (rank == (size > 1 ? 1 : 0))
			MPI_Abort(MPI_COMM_WORLD, 7);
		sleep(30);
	} else if (strcmp(how, "exit") == 0) {
		exit(3);
	} else if (strcmp(how, "segv") == 0) {
		if (rank == 0) {
			volatile int *p = NULL;
			*p = 1;
		}
		sleep(30);
	} else if (strcmp(how, "term") == 0) {
		if (rank == 0)
			raise(SIGTERM);
		sleep(30);
	} else if (strcmp(how, "hang") == 0) {
		printf("ready %d\n", rank);
		fflush(stdout);
		sleep(60);
	}
	MPI_Finalize();
	return 0;
}
