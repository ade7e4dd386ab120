#!/bin/sh
# ibsim-mpi (tools/ibsim-mpi, lib/ir_par.c): the results of the parallel engine are
# those of ibsim --ties key (its order of ties, docs/loggops-semantics.md section 2) byte
# for byte, on every goalgen pattern, on the bundled schedules and a real trace, with 1,
# 2 and 3 processes (more than the cores: --oversubscribe) and uneven shares, and those of
# ibsim's default order wherever the two orders agree; its -v, --msglog, --timeline and
# OTF2 events are ibsim --ties key's too; and its error paths. Skipped where mpirun or bin/ibsim-mpi is missing.
. "$(dirname "$0")/lib.sh"

if ! command -v mpirun >/dev/null 2>&1 || ! command -v ibsim-mpi >/dev/null 2>&1; then
	echo "1..0 # SKIP mpirun or ibsim-mpi not available (make deps installs Open MPI)"
	cd "$TOP" && rm -rf "$TRASH"
	exit 0
fi
# Open MPI refuses root without these; its own allocations are not ours to check for leaks
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
par() { np=$1; shift; mpirun --oversubscribe -np "$np" ibsim-mpi -q "$@"; }

# same SCHEDULE [OPTIONS]: ibsim-mpi's results on 1, 2, 3 processes (NPS) are ibsim's
# with --ties key, and (unless DIFFER is set) those of ibsim's default order too
NPS="1 2 3"
same() {
	f=$1
	shift
	ibsim -q --ties key "$@" "$f" >seq.tsv || { echo "ibsim failed on $f"; return 1; }
	if test -z "${DIFFER-}"; then
		ibsim -q "$@" "$f" >def.tsv && test_cmp seq.tsv def.tsv || { echo "(default order, $f $*)"; return 1; }
	fi
	for np in $NPS; do
		par $np "$@" "$f" >par.tsv 2>par.err || { echo "$np processes failed on $f $*"; cat par.err; return 1; }
		test_cmp seq.tsv par.tsv || { echo "($np processes, $f $*)"; return 1; }
	done
}

test_expect_success 'every goalgen pattern: 1, 2 and 3 processes give ibsim'"'"'s results' '
	for spec in "dissemination 13" "dissemination 64 --size 180" "bcast 11" "reduce 9 --calc 3us" \
	            "ring 10 --steps 20" "pingpong 4 --reps 7 --size 100K" "alltoall 9 --size 1K" \
	            "allreduce 12" "random 16 --seed 3" "random 25 --seed 7 --ops 40" "random 12 --seed 11 --size 66K"; do
		goalgen $spec >g.goal && same g.goal || { echo "goalgen $spec"; return 1; }
	done
'
test_expect_success 'parameters and rules: piecewise-free options, async progress, node model' '
	goalgen random 14 --seed 5 --ops 30 >g.goal &&
	same g.goal -L 1us -o 300 -g 2000 -G 10 -O 3 &&
	same g.goal --async-progress &&
	same g.goal --cores 2 --ranks-per-host 4 &&
	same g.goal --cpu-scale 1.5 --perturb 0.1 --seed 9
'
# Three pairs of ranks exchange 4000 bytes each way five times (rendezvous at S = 1000);
# each step follows a calc and an eager message from the previous pair, so a receiver is
# busy while data travels, and the pairs are coupled across processes.
pairs() {
	awk 'BEGIN {
		print "num_ranks 6"
		for (r = 0; r < 6; r++) {
			p = r % 2 ? r - 1 : r + 1; nb = (r + 2) % 6; pb = (r + 4) % 6
			printf "rank %d {\n", r
			for (i = 0; i < 5; i++) {
				printf "c%d: calc %d\n", i, (r * 7 + i * 3) % 5 * 1000000 + r * 1000
				printf "e%d: recv 8b from %d tag %d\n", i, pb, 100 + i
				printf "f%d: send 8b to %d tag %d\n", i, nb, 100 + i
				printf "r%d: recv 4000b from %d tag %d\n", i, p, i
				printf "s%d: send 4000b to %d tag %d\n", i, p, i
				printf "s%d requires c%d\nc%d requires e%d\n", i, i, i, i
				if (i) printf "f%d requires c%d\nc%d requires r%d\nc%d requires s%d\n", i, i - 1, i, i - 1, i, i - 1
			}
			print "}"
		}
	}'
}
test_expect_success 'the piecewise model and its rendezvous protocol (copy set), with async progress and the node model' '
	cat >hs.params <<-EOF2 &&
	S = 1000
	send_o = 0:800ns+10ps; 1001:500ns
	recv_o = 0:600ns+1ps; 1001:3us+2ps
	net_L = 0:1us+5ps
	copy = 0:100ns+0.5ps
	EOF2
	pairs >g.goal &&
	DIFFER=1 same g.goal -p hs.params &&
	head -n 1 seq.tsv | grep -q " rndv=handshake " &&
	DIFFER=1 same g.goal -p hs.params --async-progress &&
	DIFFER=1 same g.goal -p hs.params --cores 1 --ranks-per-host 2
'
test_expect_success 'the spread of a call'"'"'s cost: every process draws a message'"'"'s factors alike' '
	{ cat hs.params; echo "send_o_spread = 0.5,1,1.5,3"; echo "recv_o_spread = 0.25,1.75"; } >sp.params &&
	pairs >g.goal &&
	DIFFER=1 same g.goal -p sp.params &&
	DIFFER=1 same g.goal -p sp.params --seed 9 &&
	ibsim -q --ties key -p sp.params g.goal >a.tsv && ibsim -q --ties key -p hs.params g.goal >b.tsv &&
	! cmp -s a.tsv b.tsv
'
test_expect_success 'crossing messages (recv_o_cross): every process charges them alike' '
	# send_o above net_L, so that the messages of an exchange arrive during the sends
	sed "s/^send_o = .*/send_o = 0:2us+10ps; 1001:500ns/" hs.params >h2.params &&
	{ cat h2.params; echo "recv_o_cross = 0:1.2us+3ps"; } >x.params &&
	for spec in "allreduce 12" "random 16 --seed 3"; do
		goalgen $spec >g.goal && DIFFER=1 same g.goal -p x.params &&
		ibsim -q --ties key -p x.params g.goal >a.tsv && ibsim -q --ties key -p h2.params g.goal >b.tsv &&
		! cmp -s a.tsv b.tsv || { echo "goalgen $spec"; return 1; }
	done
'
test_expect_success 'bundled schedules and a real trace (trace2goal of samples/traces)' '
	same "$TOP/samples/schedules/halo-4.goal" &&
	NPS=1 same "$TOP/samples/ltest/ltest-schedgen.goal" &&
	trace2goal "$TOP/samples/traces/allprof-3" >t.goal &&
	same t.goal &&
	goalc -o t.goalb t.goal && same t.goalb
'
test_expect_success 'where the orders differ (zero-delay rendezvous ties), ibsim-mpi is ibsim --ties key' '
	goalgen random 64 --ops 300 --seed 7 --size 100K >g.goal &&
	ibsim -q g.goal >def.tsv && ibsim -q --ties key g.goal >key.tsv &&
	! cmp -s def.tsv key.tsv &&
	DIFFER=1 NPS=1 same g.goal
'
test_expect_success 'uneven partitions (--weights) give the same results and their own cut' '
	goalgen random 20 --seed 4 >g.goal &&
	ibsim -q --ties key g.goal >seq.tsv &&
	par 2 --weights 1,3 --stats st1 g.goal >p1.tsv &&
	par 2 --weights 3,1 --stats st2 g.goal >p2.tsv &&
	par 3 --weights 1,1,6 g.goal >p3.tsv &&
	test_cmp seq.tsv p1.tsv && test_cmp seq.tsv p2.tsv && test_cmp seq.tsv p3.tsv &&
	grep -qx "proc0_ranks	5" st1 && grep -qx "proc1_ranks	15" st1 &&
	grep -qx "proc0_ranks	15" st2 && grep -qx "procs	2" st2 &&
	grep -q "^cut_msgs	[1-9]" st1 && grep -q "^windows	[1-9]" st1
'
test_expect_success 'the summary line reports the cut, the lookahead and the windows' '
	goalgen ring 8 --steps 3 >g.goal &&
	mpirun --oversubscribe -np 2 ibsim-mpi g.goal >/dev/null 2>err &&
	grep -qx "ibsim-mpi: 2 processes; cut 6 of 24 messages, 48 of 192 bytes; lookahead 4000 ps; [0-9]* windows" err
'
test_expect_success 'rendezvous partners stay in one process (a ring of rendezvous messages cannot be split)' '
	goalgen ring 6 --steps 5 --size 200K >g.goal &&
	NPS=1 same g.goal &&
	expect_fail 1 par 2 g.goal &&
	grep -q "ibsim-mpi: 2 processes, but the ranks form only 1 sets that can be simulated apart" err
'
test_expect_success 'more processes than ranks' '
	goalgen ring 2 --steps 2 >g.goal &&
	expect_fail 1 par 3 g.goal &&
	grep -q "ibsim-mpi: 3 processes for 2 ranks: at most one process per rank" err
'
# outs SCHEDULE [OPTIONS]: -v, --msglog, --timeline and the OTF2 event files of ibsim-mpi
# on 1, 2, 3 processes are ibsim --ties key's, byte for byte
outs() {
	f=$1
	shift
	rm -rf o.seq && ibsim -q --ties key -v --msglog m.seq --timeline t.seq --otf2 o.seq "$@" "$f" >r.seq 2>v.seq ||
		{ echo "ibsim failed on $f"; return 1; }
	test -s v.seq && test -s m.seq || { echo "no events from ibsim on $f"; return 1; }
	for np in $NPS; do
		rm -rf o.par &&
		par $np -v --msglog m.par --timeline t.par --otf2 o.par "$@" "$f" >r.par 2>v.par &&
		test_cmp r.seq r.par && test_cmp v.seq v.par && test_cmp m.seq m.par && test_cmp t.seq t.par &&
		for x in o.seq/traces.def o.seq/traces/*; do cmp "$x" "o.par/${x#o.seq/}" || return 1; done ||
			{ echo "($np processes, $f $*)"; return 1; }
	done
}
test_expect_success 'the outputs that follow the events (-v, --msglog, --timeline, --otf2) are ibsim --ties key'"'"'s' '
	goalgen dissemination 13 >g1.goal && outs g1.goal &&
	goalgen random 14 --seed 5 --ops 30 >g2.goal && outs g2.goal &&
	outs g2.goal --async-progress &&
	outs g2.goal --cores 2 --ranks-per-host 2 &&
	outs g2.goal --perturb 0.1 --seed 9 &&
	goalgen alltoall 9 --size 1K >g3.goal && outs g3.goal &&
	trace2goal "$TOP/samples/traces/allprof-3" >t.goal && outs t.goal &&
	rm -rf o.par && par 2 --msglog m.par g2.goal >/dev/null && ibsim -q --ties key --msglog m.seq g2.goal >/dev/null &&
	test_cmp m.seq m.par
'
test_expect_success 'bad options: --weights, --progress, --ties' '
	goalgen ring 4 >g.goal &&
	expect_fail 2 par 2 --weights 1 g.goal && grep -q "expected 2 comma-separated shares" err &&
	expect_fail 2 par 2 --weights 1,-2 g.goal && grep -q "share 2 is not a positive number" err &&
	expect_fail 2 mpirun --oversubscribe -np 1 ibsim-mpi --progress g.goal && grep -q "progress is not available in ibsim-mpi" err &&
	expect_fail 2 ibsim --weights 1 g.goal &&
	expect_fail 2 par 1 --ties seq g.goal && grep -q "ibsim-mpi orders ties by key only" err &&
	expect_fail 2 ibsim --ties rank g.goal && grep -q "ties takes seq or key, got .rank." err
'
test_expect_success 'a process that fails ends the whole run with its message' '
	goalgen random 12 --seed 2 >g.goal &&
	IR_PAR_FAIL=1 par 3 g.goal >out 2>err; test $? -ne 0 &&
	grep -q "ibsim-mpi: process 1: process 1: failure requested by IR_PAR_FAIL" err && test ! -s out
'
test_expect_success 'a schedule that cannot finish: exit 1 and the stuck rank'"'"'s report' '
	printf "num_ranks 4\nrank 0 {\n r: recv 8b from 1 tag 1\n}\nrank 1 {\n}\nrank 2 {\n s: send 8b to 3 tag 0\n}\nrank 3 {\n r: recv 8b from 2 tag 0\n}\n" >d.goal &&
	expect_fail 1 par 2 d.goal &&
	grep -q "deadlock: 1 of 4 ranks cannot finish" err &&
	grep -q "rank 0: recv .r. (8 bytes from 1 tag 1) is posted; no message matches it" err
'
test_done
