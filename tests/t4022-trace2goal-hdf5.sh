#!/bin/sh
# A real MPI-IO program from Debian: parallel HDF5 (libhdf5-openmpi-dev,
# samples/hdf5/h5io.c: H5Pset_fapl_mpio, collective H5Dwrite and H5Dread) traced with
# allprof, converted with storage servers and simulated. HDF5 calls MPI_File_get_size and
# the program MPI_File_delete, which allprof records.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi
[ -x "$SAMPLES/h5io" ] || skip_all "samples/hdf5/h5io not built: parallel HDF5 is missing (Debian package libhdf5-openmpi-dev; make deps)"

test_expect_success 'h5io traced: every MPI_File call it makes is recorded' '
	traced h5 2 "$SAMPLES/h5io" "$TRASH/t.h5" 64 2 &&
	! grep -q "^# uncovered MPI_File" h5/rank-0.trace h5/rank-1.trace &&
	grep -q "^MPI_File_get_size:" h5/rank-0.trace &&
	grep -q "^MPI_File_write_at_all:" h5/rank-0.trace &&
	grep -q "^MPI_File_read_at_all:" h5/rank-1.trace &&
	grep -q "^MPI_File_delete:" h5/rank-0.trace &&
	test ! -e "$TRASH/t.h5"
'
test_expect_success 'converted with storage servers and simulated' '
	printf "storage_servers = 2\nstripe_size = 64K\n" >s.params &&
	trace2goal -p s.params h5 >h5.goal &&
	head -n 2 h5.goal >head && printf "version 2\nnum_ranks 4\n" >want && test_cmp want head &&
	grep -q ": write [1-9][0-9]*b at " h5.goal && grep -q ": read [1-9][0-9]*b at " h5.goal &&
	grep -q ": write 0b at " h5.goal &&
	ibsim -q -p s.params h5.goal >h5.res &&
	test "$(grep -c "^[0-9]" h5.res)" = 4 &&
	{ cmp-real h5 h5.res >cmp; test $? -le 1; } && test "$(grep -c "^ *[0-9]" cmp)" = 2
'
test_done
