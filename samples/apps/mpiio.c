/*
 * mpiio.c: MPI-IO on one shared file, for allprof and the storage model (docs/storage.md).
 *
 *   mpiio FILE [all]            every MPI-IO call allprof records, once or more
 *   mpiio FILE strided N B indep|coll
 *                               each rank writes N blocks of B bytes, block i of rank r at
 *                               (i * P + r) * B (a strided view), with MPI_File_write
 *                               (independent) or MPI_File_write_all (two-phase collective)
 *
 * The file is removed at the end. The program checks what it reads back and exits 1 on a
 * mismatch, so a trace of it is a trace of a correct run.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "mpiio: %s\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return 0;
}

static void strided(const char *path, int n, int b, int coll)
{
	int r, p;
	MPI_File fh;
	MPI_Datatype blk, tile;
	char *buf = malloc((size_t)n * (size_t)b);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	check(buf != NULL, "out of memory");
	memset(buf, 'a' + r % 26, (size_t)n * (size_t)b);
	MPI_Type_contiguous(b, MPI_BYTE, &blk);
	MPI_Type_create_resized(blk, 0, (MPI_Aint)b * p, &tile);
	MPI_Type_commit(&tile);
	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_set_view(fh, (MPI_Offset)r * b, MPI_BYTE, tile, "native", MPI_INFO_NULL);
	if (coll)
		MPI_File_write_all(fh, buf, n * b, MPI_BYTE, MPI_STATUS_IGNORE);
	else
		MPI_File_write(fh, buf, n * b, MPI_BYTE, MPI_STATUS_IGNORE);
	MPI_File_close(&fh);
	MPI_Type_free(&tile);
	MPI_Type_free(&blk);
	free(buf);
}

static void all(const char *path)
{
	int r, p, v[64], w[64];
	MPI_File fh;
	MPI_Status st;
	MPI_Request q[2];
	MPI_Offset base;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	for (int i = 0; i < 64; i++)
		v[i] = r * 1000 + i;
	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
	/* explicit offsets: rank r owns ints [64 r, 64 r + 64) of each region */
	MPI_File_write_at(fh, 64 * r, v, 64, MPI_INT, &st);
	MPI_File_read_at(fh, 64 * r, w, 64, MPI_INT, &st);
	check(memcmp(v, w, sizeof v) == 0, "read_at read something else");
	MPI_File_write_at_all(fh, 64 * (p + r), v, 64, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_read_at_all(fh, 64 * (p + r), w, 64, MPI_INT, MPI_STATUS_IGNORE);
	check(memcmp(v, w, sizeof v) == 0, "read_at_all read something else");
	/* the individual pointer */
	MPI_File_seek(fh, 64 * (2 * p + r), MPI_SEEK_SET);
	MPI_File_write(fh, v, 64, MPI_INT, &st);
	MPI_File_seek(fh, -64, MPI_SEEK_CUR);
	MPI_File_read(fh, w, 64, MPI_INT, &st);
	check(memcmp(v, w, sizeof v) == 0, "read read something else");
	MPI_File_seek(fh, 64 * (3 * p + r), MPI_SEEK_SET);
	MPI_File_write_all(fh, v, 64, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_seek(fh, 64 * (3 * p + r), MPI_SEEK_SET);
	MPI_File_read_all(fh, w, 64, MPI_INT, MPI_STATUS_IGNORE);
	check(memcmp(v, w, sizeof v) == 0, "read_all read something else");
	/* nonblocking */
	MPI_File_iwrite_at(fh, 64 * (4 * p + r), v, 64, MPI_INT, &q[0]);
	MPI_Wait(&q[0], &st);
	MPI_File_iread_at(fh, 64 * (4 * p + r), w, 64, MPI_INT, &q[0]);
	MPI_Wait(&q[0], &st);
	MPI_File_seek(fh, 64 * (5 * p + r), MPI_SEEK_SET);
	MPI_File_iwrite(fh, v, 64, MPI_INT, &q[0]);
	MPI_Wait(&q[0], &st);
	MPI_File_seek(fh, 64 * (5 * p + r), MPI_SEEK_SET);
	MPI_File_iread(fh, w, 64, MPI_INT, &q[0]);
	MPI_Wait(&q[0], &st);
	MPI_File_iwrite_at_all(fh, 64 * (6 * p + r), v, 64, MPI_INT, &q[0]);
	MPI_Wait(&q[0], &st);
	MPI_File_iread_at_all(fh, 64 * (6 * p + r), w, 64, MPI_INT, &q[0]);
	MPI_Wait(&q[0], &st);
	MPI_File_seek(fh, 64 * (7 * p + r), MPI_SEEK_SET);
	MPI_File_iwrite_all(fh, v, 64, MPI_INT, &q[0]);
	MPI_Wait(&q[0], &st);
	MPI_File_seek(fh, 64 * (7 * p + r), MPI_SEEK_SET);
	MPI_File_iread_all(fh, w, 64, MPI_INT, &q[1]);
	MPI_Waitall(1, &q[1], MPI_STATUSES_IGNORE);
	check(memcmp(v, w, sizeof v) == 0, "iread_all read something else");
	MPI_File_sync(fh);
	/* the shared pointer, after the regions above */
	base = 64 * 8 * p;
	MPI_File_seek_shared(fh, base, MPI_SEEK_SET);
	MPI_File_write_ordered(fh, v, 64, MPI_INT, &st);
	MPI_File_seek_shared(fh, base, MPI_SEEK_SET);
	MPI_File_read_ordered(fh, w, 64, MPI_INT, &st);
	check(memcmp(v, w, sizeof v) == 0, "read_ordered read something else");
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_write_shared(fh, v, 16, MPI_INT, &st);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_seek_shared(fh, base, MPI_SEEK_SET);
	MPI_File_read_shared(fh, w, 16, MPI_INT, &st);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_iwrite_shared(fh, v, 16, MPI_INT, &q[0]);
	MPI_Wait(&q[0], &st);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_seek_shared(fh, base, MPI_SEEK_SET);
	MPI_File_iread_shared(fh, w, 16, MPI_INT, &q[0]);
	MPI_Wait(&q[0], &st);
	/* the calls on the file's size and atomicity (parallel HDF5 makes some of them) */
	{
		MPI_Offset sz;
		MPI_File own;
		char ownpath[4096];
		int flag;
		MPI_File_get_size(fh, &sz);
		MPI_File_get_atomicity(fh, &flag);
		MPI_File_set_atomicity(fh, flag);
		/* preallocate and set_size on a file of this rank alone: inside these collective
		 * calls Open MPI 4.1's ompio compares each rank's own view of the file's size, and
		 * ranks that see different sizes take different paths and wait for each other
		 * forever (seen on a loaded machine, with every rank passing the same size) */
		snprintf(ownpath, sizeof ownpath, "%s.%d", path, r);
		MPI_File_open(MPI_COMM_SELF, ownpath, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &own);
		MPI_File_preallocate(own, sz);
		MPI_File_set_size(own, sz / 2);
		MPI_File_close(&own);
		MPI_File_delete(ownpath, MPI_INFO_NULL);
	}
	MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
	int r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	if (argc < 2) {
		if (r == 0)
			fprintf(stderr, "usage: mpiio FILE [all | strided N B indep|coll]\n");
		MPI_Finalize();
		return 2;
	}
	if (argc >= 6 && strcmp(argv[2], "strided") == 0)
		strided(argv[1], atoi(argv[3]), atoi(argv[4]), strcmp(argv[5], "coll") == 0);
	else
		all(argv[1]);
	MPI_Barrier(MPI_COMM_WORLD);
	if (r == 0)
		MPI_File_delete(argv[1], MPI_INFO_NULL);
	MPI_Finalize();
	return 0;
}
