#!/bin/sh
# trace2goal on bad trace sets: every error names the file and line and exits 1;
# warnings say what was done.
. "$(dirname "$0")/lib.sh"

H="# htor's PMPI Tracer 0.9 Output File"
# mk DIR RANK LINES...: a liballprof trace with Init, the lines, Finalize
mk() {
	d=$1 r=$2; shift 2
	mkdir -p "$d"
	{ echo "$H"; echo "MPI_Init:-:1:2:100"; for l in "$@"; do echo "$l"; done; echo "MPI_Finalize:200:-"; } >"$d/t-$r.txt"
}

test_expect_success 'missing rank' '
	mk a 0 && mk a 2 &&
	expect_fail 1 trace2goal a &&
	expect_err "trace2goal: trace of rank 1 is missing (found 2 traces, highest rank 2)"
'
test_expect_success 'duplicate rank' '
	mk b 0 && mk b 1 && cp b/t-1.txt b/u-01.txt &&
	expect_fail 1 trace2goal b &&
	expect_err "trace2goal: rank 1 has two traces: b/t-1.txt and b/u-01.txt"
'
test_expect_success 'zero-padded names of 10 or more ranks' '
	for r in 0 1 2 3 4 5 6 7 8 9 10 11; do mk c $(printf %02d $r); done &&
	trace2goal c >c.goal && grep -c "^rank" c.goal >n && test "$(cat n)" = 12
'
test_expect_success 'no traces; bad directory; file without a rank' '
	mkdir empty && expect_fail 1 trace2goal empty &&
	expect_err "trace2goal: no trace files found in empty" &&
	expect_fail 1 trace2goal nothere &&
	expect_err "trace2goal: nothere: No such file or directory" &&
	echo x >norank.txt && expect_fail 1 trace2goal norank.txt &&
	expect_err "trace2goal: norank.txt: no rank in the file name (rank pattern '"'"'(\\d+)\\D*\$'"'"')"
'
test_expect_success 'bad rank pattern' '
	expect_fail 1 trace2goal --rank-pattern "(" a &&
	grep -q "^trace2goal: invalid rank pattern '"'"'('"'"': missing closing parenthesis at offset 1$" err
'
test_expect_success 'garbage line' '
	mk g 0 "hello world" &&
	expect_fail 1 trace2goal g &&
	expect_err "trace2goal: g/t-0.txt:3: expected '"'"'NAME:<call time>:<arguments>:<return time>'"'"', found '"'"'hello world'"'"'"
'
test_expect_success 'bad time' '
	mk t 0 "MPI_Barrier:12x:1,0,1:130" &&
	expect_fail 1 trace2goal t &&
	expect_err "trace2goal: t/t-0.txt:3: MPI_Barrier: expected a call time in microseconds, found '"'"'12x'"'"'"
'
test_expect_success 'return before call (a cut line)' '
	mk rb 0 "MPI_Barrier:150:1,0,1:13" &&
	expect_fail 1 trace2goal rb &&
	expect_err "trace2goal: rb/t-0.txt:3: MPI_Barrier: return time is before the call time (cut or corrupt line?)"
'
test_expect_success 'wrong number of arguments' '
	mk w 0 "MPI_Send:110:5:4:1,4,4:0:120" &&
	expect_fail 1 trace2goal w &&
	expect_err "trace2goal: w/t-0.txt:3: MPI_Send: expected 6 arguments, found 4"
'
test_expect_success 'bad datatype and bad communicator' '
	mk dt 0 "MPI_Send:110:5:4:int:0:1:1,0,1:120" &&
	expect_fail 1 trace2goal dt &&
	expect_err "trace2goal: dt/t-0.txt:3: MPI_Send: argument 3: expected a datatype '"'"'<id>,<size>,<extent>'"'"', found '"'"'int'"'"'" &&
	mk cm 0 "MPI_Send:110:5:4:1,4,4:0:1:1,3,1:120" &&
	expect_fail 1 trace2goal cm &&
	expect_err "trace2goal: cm/t-0.txt:3: MPI_Send: argument 6: expected a communicator '"'"'<handle>,<rank>,<size>'"'"', found '"'"'1,3,1'"'"'"
'
test_expect_success 'peer outside the communicator' '
	mk pe 0 "MPI_Send:110:5:4:1,4,4:3:1:9,0,1:120" &&
	expect_fail 1 trace2goal pe &&
	expect_err "trace2goal: pe/t-0.txt:3: MPI_Send: peer 3 outside a communicator of 1 ranks"
'
test_expect_success 'a send never received' '
	mk u 0 "MPI_Send:110:5:4:1,4,4:1:1:9,0,2:120" && mk u 1 &&
	expect_fail 1 trace2goal u &&
	expect_err "trace2goal: rank 0 sends 1 messages to rank 1, which receives 0 of them (a send is never received)"
'
test_expect_success 'a receive never sent' '
	mk v 0 && mk v 1 "MPI_Recv:110:5:4:1,4,4:0:1:9,1,2:0:120" &&
	expect_fail 1 trace2goal v &&
	expect_err "trace2goal: rank 1 receives 1 messages from rank 0, which sends it 0"
'
test_expect_success 'wildcard receives absorb sends (liballprof keeps -1)' '
	mk x 0 "MPI_Send:110:5:4:1,4,4:1:1:9,0,2:120" && mk x 1 "MPI_Recv:110:5:4:1,4,4:-1:-1:9,1,2:0:120" &&
	trace2goal x >x.goal && grep -q "recv 16b from -1 tag -1" x.goal && ibsim -q x.goal >/dev/null
'
test_expect_success 'collective counts differ between ranks' '
	mk y 0 "MPI_Barrier:110:9,0,2:120" && mk y 1 &&
	expect_fail 1 trace2goal y &&
	expect_err "trace2goal: y/t-1.txt: rank 0 calls 1 collectives on MPI_COMM_WORLD, rank 1 calls 0"
'
test_expect_success 'collective kinds differ between ranks' '
	mk z 0 "MPI_Barrier:110:9,0,2:120" && mk z 1 "MPI_Bcast:110:5:1:1,4,4:0:9,1,2:120" &&
	expect_fail 1 trace2goal z &&
	expect_err "trace2goal: z/t-1.txt: the sequence of collectives on MPI_COMM_WORLD differs between rank 0 and rank 1 (kinds or roots)"
'
test_expect_success 'no MPI_Finalize' '
	mk nf 0 && sed -i "/Finalize/d" nf/t-0.txt &&
	expect_fail 1 trace2goal nf &&
	expect_err "trace2goal: nf/t-0.txt:2: trace ends without MPI_Finalize (cut short?)"
'
test_expect_success 'unknown calls: one warning per name with a count' '
	mk k 0 "MPI_Frobnicate:110:1:120" "MPI_Frobnicate:130:1:140" "MPI_Comm_split:150:1:160" &&
	trace2goal k >k.goal 2>err &&
	expect_err "trace2goal: warning: unknown call MPI_Frobnicate (2 times): not replayed, its time counted as computation" &&
	test $(wc -l <err) = 1 &&
	trace2goal -q k >k.goal 2>err && test ! -s err
'
test_expect_success 'sub-communicator collectives in liballprof traces: warned and skipped' '
	mk s 0 "MPI_Barrier:110:7,0,1:120" "MPI_Bcast:130:5:1:1,4,4:0:8,0,2:140" && mk s 1 &&
	mk s 2 "MPI_Bcast:130:5:1:1,4,4:0:8,1,2:140" &&
	trace2goal s >s.goal 2>err &&
	grep -q "^trace2goal: warning: s/t-0.txt:4: MPI_Bcast on a communicator of 2 ranks skipped: liballprof traces have no member lists" err &&
	! grep -q "send" s.goal
'
test_expect_success '-o is not created when the conversion fails' '
	expect_fail 1 trace2goal -o out.goal u && test ! -e out.goal
'
test_expect_success 'hostile input: huge counts and long lines do not crash' '
	mk h 0 "MPI_Send:110:5:99999999999999999999:1,4,4:0:1:9,0,1:120" &&
	expect_fail 1 trace2goal h &&
	awk "BEGIN { printf \"MPI_Send:1\"; for (i = 0; i < 200; i++) printf \":1\"; print \"\" }" >h/t-0.txt &&
	expect_fail 1 trace2goal h &&
	expect_err "trace2goal: h/t-0.txt:1: MPI_Send has more than 128 arguments"
'
test_done
