#!/bin/sh
# nbc_o (formats/params.md; docs/trace2goal.md section 8): the CPU time a nonblocking
# collective costs beyond its messages. The plain conversion adds it to the computation
# before the collective's first messages, for every nonblocking collective (MPI_I* and
# MPI_Ineighbor_*) and no blocking one; --durations replays the recorded calls, which hold
# it, and adds nothing. Exact calcs on a handwritten 2-rank trace, the simulated end time,
# and bad values.
. "$(dirname "$0")/lib.sh"

# Both ranks (us after Init at 1000000): MPI_Barrier at 10, MPI_Ibarrier at 20 and its
# MPI_Wait at 22, MPI_Iallreduce of 8 bytes at 30 and its MPI_Wait at 32, MPI_Allreduce
# at 40, Finalize at 50.
mkdir tr
for r in 0 1; do
	cat >tr/rank-$r.trace <<EOF
# allprof 1.0 trace format 1
# rank: $r of 2
# comm 0 0,1
# comm 1 $r
MPI_Init:999990.000:1:2:1000000.000
MPI_Barrier:1000010.000:0,$r,2:1000011.000
MPI_Ibarrier:1000020.000:0,$r,2:r1:1000020.500
MPI_Wait:1000022.000:r1:0,0,0:1000023.000
MPI_Iallreduce:1000030.000:4096:8192:1:1,8,8:3:0,$r,2:r2:1000030.500
MPI_Wait:1000032.000:r2:0,0,0:1000033.000
MPI_Allreduce:1000040.000:4096:8192:1:1,8,8:3:0,$r,2:1000041.000
MPI_Finalize:1000050.000:1000050.100
# end 8 0
EOF
done
printf 'L = 0\no = 1us\ng = 0\nG = 0\nO = 0\nS = 100000\n' >base.params
{ cat base.params; echo "nbc_o = 2us"; } >nbc.params
# calcs GOAL RANK: the values of the rank's calcs, one per line
calcs() { sed -n "/^rank $2 {/,/^}/p" "$1" | sed -n "s/^l[0-9]*: calc //p"; }

test_expect_success 'plain conversion: each nonblocking collective gains nbc_o, nothing else changes' '
	trace2goal -p base.params tr >off.goal &&
	trace2goal -p nbc.params tr >on.goal &&
	for r in 0 1; do
		calcs off.goal $r >off.$r && calcs on.goal $r >on.$r &&
		test $(wc -l <off.$r) = $(wc -l <on.$r) &&
		paste off.$r on.$r | awk "\$2 != \$1 { print \$2 - \$1 }" >diff.$r &&
		printf "2000000\n2000000\n" >want &&
		test_cmp want diff.$r || return 1
	done &&
	grep -v "^l[0-9]*: calc" off.goal >off.ops && grep -v "^l[0-9]*: calc" on.goal >on.ops &&
	test_cmp off.ops on.ops
'

test_expect_success 'the simulated run is longer by nbc_o per nonblocking collective' '
	goalc -q -o off.goalb off.goal && goalc -q -o on.goalb on.goal &&
	ibsim -q -p base.params off.goalb >off.tsv && ibsim -q -p base.params on.goalb >on.tsv &&
	a=$(awk -F"\t" "\$1 == \"0\" { print \$2 }" off.tsv) &&
	b=$(awk -F"\t" "\$1 == \"0\" { print \$2 }" on.tsv) &&
	test -n "$a" && test $((b - a)) = 4000000
'

test_expect_success 'nbc_o 0 or unset: the same schedule byte for byte' '
	{ cat base.params; echo "nbc_o = 0"; } >zero.params &&
	trace2goal -p zero.params tr >zero.goal && test_cmp off.goal zero.goal
'

test_expect_success '--durations: the recorded calls hold it, nothing is added' '
	trace2goal --durations -p base.params tr >doff.goal &&
	trace2goal --durations -p nbc.params tr >don.goal &&
	test_cmp doff.goal don.goal &&
	trace2goal --durations --sync -p base.params tr >soff.goal &&
	trace2goal --durations --sync -p nbc.params tr >son.goal &&
	test_cmp soff.goal son.goal
'

test_expect_success 'a bad nbc_o names the file and line, exit 1' '
	{ cat base.params; echo "nbc_o = fast"; } >bad.params &&
	expect_fail 1 trace2goal -p bad.params tr &&
	grep -q "bad.params:7" err && grep -q "nbc_o" err &&
	{ cat base.params; echo "nbc_o = -1us"; } >neg.params &&
	expect_fail 1 trace2goal -p neg.params tr &&
	grep -q "neg.params:7" err
'

test_expect_success 'ibsim accepts a params file with nbc_o without a warning' '
	ibsim -q -p nbc.params off.goalb >/dev/null 2>err && ! test -s err
'

test_done
