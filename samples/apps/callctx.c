/* callctx: what a message's calls cost after what came before them.
 *
 *   callctx [-n REPS] [SIZE]
 *
 * Two ranks exchange SIZE bytes (default 8) REPS times (default 1000) per
 * case; rank 0 prints one TSV line per case, the median duration of the call
 * named, in microseconds:
 *
 *   case  call  us
 *
 *   send_first       rank 0 computes 50 us (busy on MPI_Wtime) after an
 *                    MPI_Barrier, then calls MPI_Send: the send call;
 *   send_after_G     after that send, rank 0 computes G us (G = 0, 0.5, 2, 5,
 *                    20, 100) and sends again: the second send call;
 *   send_pingpong    the send call of a ping-pong, right after the receive
 *                    of the previous answer returned;
 *   send_train_busy  rank 0 receives rank 1's answer and sends TRAIN messages
 *                    back to back while rank 1 computes 300 us, then takes
 *                    them in: the mean over the 2nd to TRAIN-th send of each
 *                    position's median (a send after a send, nothing of the
 *                    sender taken in meanwhile: what netcal's train measures);
 *   send_train_recv  the same with rank 1 inside MPI_Recv, taking each
 *                    message in as it comes (formats/params.md, "A send after
 *                    a gap": over TCP its reads make the sends dearer);
 *   recv_single      rank 1 waits 100 us outside the library, then receives
 *                    one message that arrived meanwhile: its receive call;
 *   recv_queued_K    rank 0 sends 5 messages back to back; rank 1 waits 100 us
 *                    and receives them one by one: the K-th receive call
 *                    (K = 1..5; the first takes in what the library finds).
 *
 * Rank 1's figures go to rank 0 for printing. The receiver of the send cases
 * waits 200 us before its receives, so that no send finds it in the library.
 * docs/validation.md, "A call's cost after what came before it", has the
 * figures of this machine over shared memory and TCP. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "median.h"

enum { QUEUED = 5, NGAPS = 6, TRAIN = 10 };

static void die(const char *msg)
{
	fprintf(stderr, "callctx: %s\n", msg);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static void busy(double us)
{
	double t = MPI_Wtime();
	while (MPI_Wtime() - t < us * 1e-6)
		;
}

int main(int argc, char **argv)
{
	static const double gaps[NGAPS] = { 0, 0.5, 2, 5, 20, 100 };
	int reps = 1000, c, rank, np;
	long size = 8;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n' || (reps = atoi(optarg)) < 1 || reps > 1000000)
			die("usage: callctx [-n REPS (1 to 1000000)] [SIZE]");
	}
	if (optind < argc) {
		char *end;
		size = strtol(argv[optind], &end, 10);
		if (optind + 1 < argc || *end || end == argv[optind] || size < 0 || size > (1L << 24))
			die("SIZE: expected one number of bytes from 0 to 16777216");
	}
	if (np != 2)
		die("needs exactly 2 ranks");
	char *buf = malloc((size_t)size * QUEUED + 1), *rbuf = malloc((size_t)size * QUEUED + 1);
	double *d = malloc((size_t)reps * sizeof *d), *q[QUEUED];
	for (int k = 0; k < QUEUED; k++)
		q[k] = malloc((size_t)reps * sizeof *q[k]);
	if (!buf || !rbuf || !d || !q[QUEUED - 1])
		die("out of memory");
	memset(buf, 1, (size_t)size * QUEUED + 1);
	memset(rbuf, 2, (size_t)size * QUEUED + 1);
	if (rank == 0)
		printf("case\tcall\tus\n");

	/* sends after a pause and after a gap since the send before */
	double *first = malloc((size_t)reps * sizeof *first);
	if (!first)
		die("out of memory");
	for (int g = 0; g < NGAPS; g++) {
		for (int n = 0; n < reps; n++) {
			MPI_Barrier(MPI_COMM_WORLD);
			if (rank == 0) {
				busy(50);
				double a = MPI_Wtime();
				MPI_Send(buf, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
				first[n] = MPI_Wtime() - a;
				busy(gaps[g]);
				a = MPI_Wtime();
				MPI_Send(buf + size, (int)size, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
				d[n] = MPI_Wtime() - a;
			} else {
				busy(200);
				MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Recv(rbuf + size, (int)size, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			}
		}
		if (rank == 0) {
			if (g == 0)
				printf("send_first\tMPI_Send\t%.3f\n", median(first, reps) * 1e6);
			printf("send_after_%g\tMPI_Send\t%.3f\n", gaps[g], median(d, reps) * 1e6);
		}
	}
	free(first);

	/* the ping-pong's send, right after the answer's receive */
	MPI_Barrier(MPI_COMM_WORLD);
	for (int n = 0; n < reps; n++) {
		if (rank == 0) {
			double a = MPI_Wtime();
			MPI_Send(buf, (int)size, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
			d[n] = MPI_Wtime() - a;
			MPI_Recv(rbuf, (int)size, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, (int)size, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("send_pingpong\tMPI_Send\t%.3f\n", median(d, reps) * 1e6);

	/* trains of sends, the receiver computing or taking them in */
	for (int takes = 0; takes < 2; takes++) {
		double *t[TRAIN];
		for (int k = 0; k < TRAIN; k++)
			if (!(t[k] = malloc((size_t)reps * sizeof *t[k])))
				die("out of memory");
		MPI_Barrier(MPI_COMM_WORLD);
		for (int n = 0; n < reps; n++) {
			if (rank == 0) {
				MPI_Recv(NULL, 0, MPI_BYTE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				for (int k = 0; k < TRAIN; k++) {
					double a = MPI_Wtime();
					MPI_Send(buf, (int)size, MPI_BYTE, 1, 30 + k, MPI_COMM_WORLD);
					t[k][n] = MPI_Wtime() - a;
				}
			} else {
				MPI_Send(NULL, 0, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
				if (!takes)
					busy(300);
				for (int k = 0; k < TRAIN; k++)
					MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, 30 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			}
		}
		if (rank == 0) {
			double m = 0;
			for (int k = 1; k < TRAIN; k++)
				m += median(t[k], reps);
			printf("send_train_%s\tMPI_Send\t%.3f\n", takes ? "recv" : "busy", m / (TRAIN - 1) * 1e6);
		}
		for (int k = 0; k < TRAIN; k++)
			free(t[k]);
	}

	/* receives: one late message, then QUEUED that arrived together */
	for (int many = 0; many < 2; many++) {
		for (int n = 0; n < reps; n++) {
			MPI_Barrier(MPI_COMM_WORLD);
			if (rank == 0) {
				for (int m = 0; m < (many ? QUEUED : 1); m++)
					MPI_Send(buf + m * size, (int)size, MPI_BYTE, 1, 10 + m, MPI_COMM_WORLD);
				MPI_Recv(NULL, 0, MPI_BYTE, 1, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				busy(100);
				for (int m = 0; m < (many ? QUEUED : 1); m++) {
					double a = MPI_Wtime();
					MPI_Recv(rbuf + m * size, (int)size, MPI_BYTE, 0, 10 + m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					q[m][n] = MPI_Wtime() - a;
				}
				MPI_Send(NULL, 0, MPI_BYTE, 0, 20, MPI_COMM_WORLD);
			}
		}
		double v[QUEUED];
		int nv = many ? QUEUED : 1;
		if (rank == 1) {
			for (int m = 0; m < nv; m++)
				v[m] = median(q[m], reps);
			MPI_Send(v, nv, MPI_DOUBLE, 0, 21, MPI_COMM_WORLD);
		} else {
			MPI_Recv(v, nv, MPI_DOUBLE, 1, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (!many)
				printf("recv_single\tMPI_Recv\t%.3f\n", v[0] * 1e6);
			else
				for (int m = 0; m < nv; m++)
					printf("recv_queued_%d\tMPI_Recv\t%.3f\n", m + 1, v[m] * 1e6);
		}
	}
	free(buf);
	free(rbuf);
	free(d);
	for (int k = 0; k < QUEUED; k++)
		free(q[k]);
	MPI_Finalize();
	return 0;
}
