/* bufstate: what the state of a sender's buffer costs a message.
 *
 *   bufstate [-n REPS] [SIZE]...
 *
 * Two ranks ping-pong SIZE bytes (default 64, 4096, 16384, 65536, 262144)
 * REPS times (default 2000) in each of three buffer states, and rank 0
 * prints one TSV line per size and state:
 *
 *   size  state  one_way_us  recv_us
 *
 *   clean    each rank sends from a buffer it does not write (written once
 *            at the start) and receives into another one;
 *   written  the same, but each rank writes its send buffer before every
 *            send, as a program sends data it has just computed (outside
 *            rank 0's round trip: rank 0 before it starts its clock, rank 1
 *            right after its send, for the next one);
 *   same     one buffer, received into and then sent from, as NetPIPE and
 *            Message Passing Yorick do.
 *
 * one_way_us is half the median round trip; recv_us the median duration of
 * rank 0's MPI_Recv, called after an MPI_Probe has found the message (the
 * data is there: what is left is the receiver's copy). docs/validation.md,
 * "The sender's buffer", has the figures of this machine. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "median.h"

static void die(const char *msg)
{
	fprintf(stderr, "bufstate: %s\n", msg);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
	static const char *state[] = {"clean", "written", "same"};
	long dflt[] = {64, 4096, 16384, 65536, 262144}, *sizes = dflt;
	int nsizes = 5, reps = 2000, c, rank, np;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n' || (reps = atoi(optarg)) < 1 || reps > 1000000)
			die("usage: bufstate [-n REPS (1 to 1000000)] [SIZE]...");
	}
	if (optind < argc) {
		nsizes = argc - optind;
		if (!(sizes = malloc((size_t)nsizes * sizeof *sizes)))
			die("out of memory");
		for (int k = 0; k < nsizes; k++) {
			char *end;
			sizes[k] = strtol(argv[optind + k], &end, 10);
			if (*end || end == argv[optind + k] || sizes[k] < 1 || sizes[k] > (1L << 28))
				die("SIZE: expected a number of bytes from 1 to 268435456");
		}
	}
	if (np != 2)
		die("needs exactly 2 ranks");
	long maxb = 0;
	for (int k = 0; k < nsizes; k++)
		if (sizes[k] > maxb)
			maxb = sizes[k];
	char *a = malloc((size_t)maxb), *b = malloc((size_t)maxb);
	double *rt = malloc((size_t)reps * sizeof *rt), *rv = malloc((size_t)reps * sizeof *rv);
	if (!a || !b || !rt || !rv)
		die("out of memory");
	memset(a, 1, (size_t)maxb);
	memset(b, 2, (size_t)maxb);
	int peer = 1 - rank;
	if (rank == 0)
		printf("size\tstate\tone_way_us\trecv_us\n");
	for (int k = 0; k < nsizes; k++) {
		int n = (int)sizes[k];
		for (int s = 0; s < 3; s++) {
			char *sb = a, *rb = s == 2 ? a : b;
			MPI_Barrier(MPI_COMM_WORLD);
			for (int i = 0; i < reps; i++) {
				MPI_Status st;
				/* "written": rank 0 writes before its clock starts, rank 1 right after
				 * its send, for the next one: neither write lies in rank 0's round trip */
				if (s == 1 && (rank == 0 || i == 0))
					memset(sb, i, (size_t)n);
				double t0 = MPI_Wtime(), t1;
				if (rank == 0) {
					MPI_Send(sb, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
					MPI_Probe(peer, 0, MPI_COMM_WORLD, &st);
					t1 = MPI_Wtime();
					MPI_Recv(rb, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &st);
					rv[i] = MPI_Wtime() - t1;
					rt[i] = MPI_Wtime() - t0;
				} else {
					MPI_Recv(rb, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &st);
					MPI_Send(sb, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
					if (s == 1)
						memset(sb, i + 1, (size_t)n);
				}
			}
			if (rank == 0)
				printf("%d\t%s\t%.3f\t%.3f\n", n, state[s], median(rt, reps) / 2 * 1e6,
				       median(rv, reps) * 1e6);
		}
	}
	free(a);
	free(b);
	free(rt);
	free(rv);
	if (sizes != dflt)
		free(sizes);
	MPI_Finalize();
	return 0;
}
