/*
 * h5io: parallel HDF5 over MPI-IO (Debian's libhdf5-openmpi-dev), a real MPI-IO program
 * for allprof, trace2goal's storage servers and the deviation table of docs/validation.md.
 *
 *   h5io FILE [ROWS [STEPS]]
 *
 * Every rank owns ROWS (default 1024) rows of a 2-D dataset of doubles, 1024 columns wide
 * (8 KiB per row), one block of rows per rank. Each of STEPS (default 4) steps writes the
 * rank's block into dataset "stepN" with a collective H5Dwrite (H5FD_MPIO_COLLECTIVE:
 * ROMIO's two-phase MPI_File_write_at_all), flushes the file (H5Fflush: MPI_File_sync)
 * and reads the block back with a collective H5Dread, checking what it reads (exit 1 on a
 * mismatch). The file is opened with H5Pset_fapl_mpio and removed at the end by rank 0
 * with MPI_File_delete.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COLS 1024

int main(int argc, char **argv)
{
	int rank, size, rows = 1024, steps = 4, bad = 0, allbad = 0;
	hid_t fapl, file, xfer;
	double *w, *r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2) {
		if (rank == 0)
			fprintf(stderr, "usage: h5io FILE [ROWS [STEPS]]\n");
		MPI_Finalize();
		return 2;
	}
	if (argc > 2)
		rows = atoi(argv[2]);
	if (argc > 3)
		steps = atoi(argv[3]);
	if (rows < 1 || steps < 1) {
		if (rank == 0)
			fprintf(stderr, "h5io: ROWS and STEPS must be at least 1\n");
		MPI_Finalize();
		return 2;
	}
	w = malloc((size_t)rows * COLS * sizeof *w);
	r = malloc((size_t)rows * COLS * sizeof *r);
	if (!w || !r) {
		fprintf(stderr, "h5io: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
	file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	if (file < 0) {
		fprintf(stderr, "h5io: cannot create %s\n", argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	xfer = H5Pcreate(H5P_DATASET_XFER);
	H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
	for (int s = 0; s < steps; s++) {
		hsize_t dims[2] = { (hsize_t)rows * (hsize_t)size, COLS }, start[2] = { (hsize_t)rows * (hsize_t)rank, 0 },
		        count[2] = { (hsize_t)rows, COLS };
		hid_t fspace = H5Screate_simple(2, dims, NULL), mspace = H5Screate_simple(2, count, NULL), dset;
		char name[32];
		for (size_t i = 0; i < (size_t)rows * COLS; i++)
			w[i] = rank * 1e6 + s * 1e3 + (double)(i % 977);
		snprintf(name, sizeof name, "step%d", s);
		dset = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
		H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, xfer, w);
		H5Fflush(file, H5F_SCOPE_GLOBAL);
		H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, xfer, r);
		for (size_t i = 0; i < (size_t)rows * COLS; i++)
			bad |= r[i] != w[i];
		H5Dclose(dset);
		H5Sclose(mspace);
		H5Sclose(fspace);
	}
	H5Pclose(xfer);
	H5Fclose(file);
	H5Pclose(fapl);
	MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
	if (rank == 0 && allbad)
		fprintf(stderr, "h5io: read back something else\n");
	if (rank == 0)
		MPI_File_delete(argv[1], MPI_INFO_NULL);
	free(w);
	free(r);
	MPI_Finalize();
	return allbad ? 1 : 0;
}
