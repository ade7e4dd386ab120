#!/bin/sh
# MPI_File_sync replayed as a flush on the file's servers (docs/storage.md §4), and the
# metadata calls allprof records (MPI_File_delete, _get_size ...) converted as computation;
# cmp-real (exit 2 on bad input, as cmp) reads results with storage servers (the last ranks) against the traces.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi

test_expect_success 'mpiio: sync and delete are traced' '
	traced all 2 "$SAMPLES/mpiio" "$TRASH/f.dat" &&
	grep -q "^MPI_File_sync:" all/rank-0.trace &&
	grep -q "^MPI_File_delete:" all/rank-0.trace &&
	! grep -q "^# uncovered MPI_File" all/rank-0.trace
'
test_expect_success 'a sync is a 0-byte write (a flush) on each server of the file' '
	printf "storage_servers = 2\nstripe_size = 512\n" >s.params &&
	trace2goal -p s.params all >all.goal &&
	# two ranks sync once each, on both servers
	test "$(grep -c ": write 0b at " all.goal)" = 4
'
test_expect_success 'disk_sync lengthens the run by the flush' '
	printf "storage_servers = 1\ndisk_sync = 0\n" >a.params &&
	printf "storage_servers = 1\ndisk_sync = 50ms\n" >b.params &&
	trace2goal -p a.params all >a.goal &&
	ibsim -q -p a.params a.goal >a.res && ibsim -q -p b.params a.goal >b.res &&
	ta=$(awk "/^0\t/ { print \$2 }" a.res) && tb=$(awk "/^0\t/ { print \$2 }" b.res) &&
	echo "disk_sync 0: $ta ps, 50 ms: $tb ps" &&
	# one flush per sync, and only a server written to since its last flush pays
	# disk_sync: at least one 50 ms, at most one per rank
	test $((tb - ta)) -ge 50000000000 && test $((tb - ta)) -le 101000000000
'
test_expect_success 'cmp-real leaves the servers out' '
	head -n 1 a.res | grep -q " storage_servers=1 " &&
	test "$(grep -c "^[0-9]" a.res)" = 3 &&
	{ cmp-real all a.res >cmp; test $? -le 1; } &&
	test "$(grep -c "^ *[0-9]" cmp)" = 2
'
test_expect_success 'more servers than ranks in the results' '
	sed "1s/storage_servers=1/storage_servers=3/" a.res >bad.res &&
	{ cmp-real all bad.res 2>err; test $? = 2; } &&
	echo "cmp-real: bad.res: 3 storage servers, but only 3 ranks" >want && test_cmp want err
'
test_done
