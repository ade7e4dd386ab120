/*
 * iocal: the I/O measurements `calib --io` fits the storage model to (formats/calibration.md
 * §"Storage: iocal" describes the phases, the MPI_Pcontrol levels that mark them and what
 * calib takes from each; calib finds them in the traces allprof writes, so the program
 * itself needs to print nothing).
 *
 *   iocal DIR [-m MAXBYTES] [-n REPS] [-f FILEBYTES] [-s SEED] [-P PHASES] [-q]
 *
 * Rank 0 alone does the I/O, in files under DIR (the disk to calibrate); other ranks wait
 * in the final barrier. Sizes: every power of two from 4 KiB to MAXBYTES (default 4 MiB).
 * Before the phases rank 0 writes a data file of FILEBYTES (default 128 MiB, at least 16
 * times MAXBYTES) and syncs it, with POSIX calls (so a trace counts it as computation); the
 * disk phases overwrite and read it in place, so no access allocates blocks. -P runs only
 * the phases whose digits it lists (-P 135: phases 1, 3 and 5; default all), for runs held
 * out of the calibration (docs/validation.md). Each repetition visits the sizes in a new pseudo-random order
 * and runs, per size, one access of each phase, in this order:
 *
 *   1 write     MPI_File_write_at at the end of a scratch file, no sync (the page cache)
 *   2 hot read  MPI_File_read_at of what phase 1 just wrote (in the page cache)
 *   3 seq sync  write_at where the last disk access ended, then MPI_File_sync
 *   4 near sync write_at 64 KiB past where the last access ended, then MPI_File_sync
 *   5 far sync  write_at at a random offset of the data file, then MPI_File_sync
 *   6 seq read  read_at where the last read ended, the data file's pages dropped
 *   7 far read  read_at at a random offset, its pages dropped
 *
 * Leaving the page cache: the data file is synced, then posix_fadvise(POSIX_FADV_DONTNEED)
 * drops its clean pages (the whole file before each sequential read, the range before each
 * random read), so a read in phases 6 and 7 comes from the disk; no root is needed (the
 * writes of phases 3 to 5 are synced before, so their pages are clean too). Offsets are
 * multiples of 4 KiB.
 *
 * Each access is preceded by MPI_Pcontrol(3100 + phase); MPI_Pcontrol(3100) marks untimed
 * work and ends the measurements. After phase 2 the scratch file is synced with fsync(2)
 * (untimed, outside MPI), so that the journal commit of its new size does not fall into
 * phase 3's sync (on ext4 an fsync commits the whole journal). REPS (default 8) repetitions; the files are removed at the end with
 * MPI_File_delete. Rank 0 prints the median time per phase and size unless -q.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes-arg.h"

enum { PHASES = 7, LEVEL = 3100, NEAR_GAP = 65536, ALIGN = 4096, MAX_SIZES = 32 };

static void die(const char *msg)
{
	fprintf(stderr, "iocal: %s\n", msg);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The posix file descriptor of `path` (for fadvise only: the I/O goes through MPI). */
static void drop(int fd, long off, long len)
{
	if (fd >= 0)
		posix_fadvise(fd, off, len, POSIX_FADV_DONTNEED);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int rank, quiet = 0, reps = 8, nsizes = 0, on[PHASES + 1];
	long maxbytes = 4l << 20, filebytes = 128l << 20, sizes[MAX_SIZES];
	const char *dir = NULL;
	char dpath[4096], spath[4096];
	MPI_File fd, fs;
	double *t;
	char *buf;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int p = 0; p <= PHASES; p++)
		on[p] = 1;
	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && strcmp(argv[i], "-P") == 0) {
			for (int p = 0; p <= PHASES; p++)
				on[p] = 0;
			for (const char *q = argv[++i]; *q; q++)
				if (*q >= '1' && *q <= '0' + PHASES)
					on[*q - '0'] = 1;
		} else if (strcmp(argv[i], "-q") == 0)
			quiet = 1;
		else if (i + 1 < argc && strcmp(argv[i], "-m") == 0)
			maxbytes = parse_bytes(argv[++i], "iocal -m");
		else if (i + 1 < argc && strcmp(argv[i], "-f") == 0)
			filebytes = parse_bytes(argv[++i], "iocal -f");
		else if (i + 1 < argc && strcmp(argv[i], "-n") == 0)
			reps = atoi(argv[++i]);
		else if (i + 1 < argc && strcmp(argv[i], "-s") == 0)
			rng = strtoull(argv[++i], NULL, 10) | 1;
		else if (argv[i][0] != '-' && !dir)
			dir = argv[i];
		else {
			if (rank == 0)
				fprintf(stderr, "usage: iocal DIR [-m MAXBYTES] [-n REPS] [-f FILEBYTES] [-s SEED] [-P PHASES] [-q]\n");
			MPI_Finalize();
			return 2;
		}
	}
	if (!dir || reps < 1 || maxbytes < ALIGN) {
		if (rank == 0)
			fprintf(stderr, "usage: iocal DIR [-m MAXBYTES] [-n REPS] [-f FILEBYTES] [-s SEED] [-P PHASES] [-q]\n");
		MPI_Finalize();
		return 2;
	}
	for (long s = ALIGN; s <= maxbytes && nsizes < MAX_SIZES; s *= 2)
		sizes[nsizes++] = s;
	if (filebytes < 16 * maxbytes)
		filebytes = 16 * maxbytes;
	filebytes = filebytes / ALIGN * ALIGN;
	snprintf(dpath, sizeof dpath, "%s/iocal-data.%d", dir, (int)getpid());
	snprintf(spath, sizeof spath, "%s/iocal-scratch.%d", dir, (int)getpid());
	if (rank == 0) {
		int pfd, sfd, order[MAX_SIZES];
		long seqw = 0, seqr = 0, app = 0;
		if (!(buf = malloc((size_t)maxbytes)) || !(t = calloc((size_t)PHASES * nsizes * reps, sizeof *t)))
			die("out of memory");
		memset(buf, 'x', (size_t)maxbytes);
		if ((pfd = open(dpath, O_CREAT | O_RDWR | O_TRUNC, 0644)) < 0 ||
		    (sfd = open(spath, O_CREAT | O_RDWR | O_TRUNC, 0644)) < 0)
			die("cannot create the files in DIR");
		for (long off = 0; off < filebytes && (on[3] || on[4] || on[5] || on[6] || on[7]); off += maxbytes)
			if (pwrite(pfd, buf, (size_t)(filebytes - off < maxbytes ? filebytes - off : maxbytes), off) < 0)
				die("cannot write the data file");
		fsync(pfd);
		drop(pfd, 0, 0);
		if (MPI_File_open(MPI_COMM_SELF, dpath, MPI_MODE_RDWR, MPI_INFO_NULL, &fd) != MPI_SUCCESS ||
		    MPI_File_open(MPI_COMM_SELF, spath, MPI_MODE_RDWR, MPI_INFO_NULL, &fs) != MPI_SUCCESS)
			die("cannot open the files in DIR");
		for (int r = 0; r < reps; r++) {
			for (int i = 0; i < nsizes; i++)
				order[i] = i;
			for (int i = nsizes - 1; i > 0; i--) {
				int j = (int)(next_rand() % (uint64_t)(i + 1)), x = order[i];
				order[i] = order[j];
				order[j] = x;
			}
			for (int k = 0; k < nsizes; k++) {
				int si = order[k];
				long s = sizes[si], off;
				double t0;
				double *row = t + ((size_t)r * nsizes + si) * PHASES;
				/* 1, 2: the page cache */
				if (on[1] || on[2]) {
					MPI_Pcontrol(LEVEL + 1);
					t0 = MPI_Wtime();
					MPI_File_write_at(fs, app, buf, (int)s, MPI_BYTE, MPI_STATUS_IGNORE);
					row[0] = MPI_Wtime() - t0;
				}
				if (on[2]) {
					MPI_Pcontrol(LEVEL + 2);
					t0 = MPI_Wtime();
					MPI_File_read_at(fs, app, buf, (int)s, MPI_BYTE, MPI_STATUS_IGNORE);
					row[1] = MPI_Wtime() - t0;
				}
				app += s;
				/* untimed: the scratch file's new size goes to the journal now, not in
				 * the next phase's sync (on ext4 an fsync commits the whole journal) */
				MPI_Pcontrol(LEVEL);
				if (on[1] || on[2])
					fsync(sfd);
				/* 3, 4, 5: written and synced */
				if (seqw + s > filebytes)
					seqw = 0;
				if (on[3]) {
					MPI_Pcontrol(LEVEL + 3);
					t0 = MPI_Wtime();
					MPI_File_write_at(fd, seqw, buf, (int)s, MPI_BYTE, MPI_STATUS_IGNORE);
					MPI_File_sync(fd);
					row[2] = MPI_Wtime() - t0;
				}
				seqw += s;
				off = seqw + NEAR_GAP;
				if (off + s > filebytes)
					off = 0;
				if (on[4]) {
					MPI_Pcontrol(LEVEL + 4);
					t0 = MPI_Wtime();
					MPI_File_write_at(fd, off, buf, (int)s, MPI_BYTE, MPI_STATUS_IGNORE);
					MPI_File_sync(fd);
					row[3] = MPI_Wtime() - t0;
				}
				seqw = off + s;
				off = (long)(next_rand() % (uint64_t)((filebytes - s) / ALIGN)) * ALIGN;
				if (on[5]) {
					MPI_Pcontrol(LEVEL + 5);
					t0 = MPI_Wtime();
					MPI_File_write_at(fd, off, buf, (int)s, MPI_BYTE, MPI_STATUS_IGNORE);
					MPI_File_sync(fd);
					row[4] = MPI_Wtime() - t0;
				}
				seqw = off + s;
				/* 6, 7: from the disk */
				if (seqr + s > filebytes)
					seqr = 0;
				if (on[6]) {
					drop(pfd, 0, 0);
					MPI_Pcontrol(LEVEL + 6);
					t0 = MPI_Wtime();
					MPI_File_read_at(fd, seqr, buf, (int)s, MPI_BYTE, MPI_STATUS_IGNORE);
					row[5] = MPI_Wtime() - t0;
				}
				seqr += s;
				off = (long)(next_rand() % (uint64_t)((filebytes - s) / ALIGN)) * ALIGN;
				if (on[7]) {
					drop(pfd, off, s);
					MPI_Pcontrol(LEVEL + 7);
					t0 = MPI_Wtime();
					MPI_File_read_at(fd, off, buf, (int)s, MPI_BYTE, MPI_STATUS_IGNORE);
					row[6] = MPI_Wtime() - t0;
				}
			}
		}
		MPI_Pcontrol(LEVEL);
		close(pfd);
		close(sfd);
		MPI_File_close(&fd);
		MPI_File_close(&fs);
		MPI_File_delete(dpath, MPI_INFO_NULL);
		MPI_File_delete(spath, MPI_INFO_NULL);
		if (!quiet) {
			double *col = malloc((size_t)reps * sizeof *col);
			if (!col)
				die("out of memory");
			printf("# bytes write hot_read seq_sync near_sync far_sync seq_read far_read (median us)\n");
			for (int si = 0; si < nsizes; si++) {
				printf("%ld", sizes[si]);
				for (int p = 0; p < PHASES; p++) {
					for (int r = 0; r < reps; r++)
						col[r] = t[((size_t)r * nsizes + si) * PHASES + p];
					qsort(col, (size_t)reps, sizeof *col, cmp_d);
					printf(" %.1f", 1e6 * col[reps / 2]);
				}
				printf("\n");
			}
			free(col);
		}
		free(t);
		free(buf);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
