#!/bin/sh
# trace2goal with storage servers (docs/storage.md): samples/apps/mpiio.c traced with
# allprof, converted and simulated end to end; two-phase collective I/O against independent
# I/O on a strided pattern; MPI-IO errors with their exact messages.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi

test_expect_success 'every MPI-IO call: traced, converted, simulated' '
	traced all 3 "$SAMPLES/mpiio" "$TRASH/f.dat" &&
	printf "storage_servers = 2\nstripe_size = 512\n" >s.params &&
	trace2goal -p s.params all >all.goal &&
	head -n 2 all.goal >head && printf "version 2\nnum_ranks 5\n" >want && test_cmp want head &&
	grep -q ": write " all.goal && grep -q ": read " all.goal &&
	ibsim -p s.params all.goal >res 2>/dev/null && test "$(grep -c "^[0-9]" res)" = 5 &&
	trace2goal all >plain.goal && head -n 1 plain.goal >h1 && echo "num_ranks 3" >want && test_cmp want h1
'
test_expect_success 'two-phase collective beats independent I/O on a strided pattern' '
	traced ind 4 "$SAMPLES/mpiio" "$TRASH/g.dat" strided 64 4096 indep &&
	traced col 4 "$SAMPLES/mpiio" "$TRASH/g.dat" strided 64 4096 coll &&
	printf "storage_servers = 2\nstripe_size = 64K\nserver_cache = 0\n" >st.params &&
	trace2goal -p st.params ind | ibsim -p st.params - 2>/dev/null >ind.res &&
	trace2goal -p st.params col | ibsim -p st.params - 2>/dev/null >col.res &&
	ti=$(awk "/^[0-9]/ && \$2 > m { m = \$2 } END { print m }" ind.res) &&
	tc=$(awk "/^[0-9]/ && \$2 > m { m = \$2 } END { print m }" col.res) &&
	echo "independent $ti ps, collective $tc ps" &&
	test $((tc * 3)) -lt "$ti"
'
test_expect_success 'an access on a file that is not open' '
	mkdir bad && cp all/rank-*.trace bad/ &&
	sed -i "s/^MPI_File_write:\([0-9.]*\):1:/MPI_File_write:\1:7:/" bad/rank-0.trace &&
	n=$(grep -n "^MPI_File_write:" bad/rank-0.trace | head -n 1 | cut -d: -f1) &&
	{ trace2goal -p s.params bad >/dev/null 2>err; test $? = 1; } &&
	echo "trace2goal: bad/rank-0.trace:$n: MPI_File_write: file handle 7 is not open" >want &&
	test_cmp want err
'
test_expect_success 'a bad view' '
	rm -rf bad && mkdir bad && cp all/rank-*.trace bad/ &&
	sed -i "s/^MPI_File_set_view:\([0-9.]*\):1:0:/MPI_File_set_view:\1:1:-5:/" bad/rank-1.trace &&
	n=$(grep -n "^MPI_File_set_view:" bad/rank-1.trace | head -n 1 | cut -d: -f1) &&
	{ trace2goal -p s.params bad >/dev/null 2>err; test $? = 1; } &&
	echo "trace2goal: bad/rank-1.trace:$n: MPI_File_set_view: expected a displacement of at least 0 in field 2, found '"'"'-5'"'"'" >want &&
	test_cmp want err
'
test_expect_success 'bad storage_servers' '
	printf "storage_servers = many\n" >b.params &&
	{ trace2goal -p b.params all >/dev/null 2>err; test $? = 1; } &&
	grep -q "^trace2goal: b.params:1: .*storage_servers" err
'
test_done
