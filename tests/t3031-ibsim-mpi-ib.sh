#!/bin/sh
# ibsim-mpi --net ib (docs/ib-model.md section 13, lib/ir_net_ib_part.c): the fabric split
# over 2 to 4 processes gives the results of ibsim --net ib --ties key byte for byte, on
# fat trees (ftree, the recorded fabric's updn and minhop), a torus with VL classes, a
# dragonfly with valiant routing, two ranks per host, rendezvous messages whose RTS, CTS and
# data cross between processes, congestion control, adaptive path selection and a converted
# trace; -v, --msglog, --timeline, --otf2, --linkstats and --dump-lft are ibsim's too; and the
# settings that cannot be split, a link without delay and a fabric deadlock are errors.
# Skipped where mpirun or bin/ibsim-mpi is missing.
. "$(dirname "$0")/lib.sh"

if ! command -v mpirun >/dev/null 2>&1 || ! command -v ibsim-mpi >/dev/null 2>&1; then
	echo "1..0 # SKIP mpirun or ibsim-mpi not available (make deps installs Open MPI)"
	cd "$TOP" && rm -rf "$TRASH"
	exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
par() { np=$1; shift; mpirun --oversubscribe -np "$np" ibsim-mpi -q "$@"; }

# same SCHEDULE [OPTIONS]: on NPS processes, ibsim-mpi's results are ibsim --ties key's
NPS="2 3"
same() {
	f=$1
	shift
	ibsim -q --ties key "$@" "$f" >seq.tsv 2>seq.err || { echo "ibsim failed on $f $*"; cat seq.err; return 1; }
	for np in $NPS; do
		par $np --stats st "$@" "$f" >par.tsv 2>par.err || { echo "$np processes failed on $f $*"; cat par.err; return 1; }
		test_cmp seq.tsv par.tsv || { echo "($np processes, $f $*)"; return 1; }
		# the split is real: links between processes, and items that crossed them
		grep -q "^cut_links	[1-9]" st && grep -q "^windows	[1-9]" st || { echo "no cut ($np, $f $*)"; cat st; return 1; }
	done
}

test_expect_success 'an all-to-all on a fat tree (ftree, 8 KiB and rendezvous 200 KiB): ibsim'"'"'s results' '
	goalgen alltoall 16 --size 8K >a2a.goal &&
	same a2a.goal --net ib --topo fattree2:8 --routing ftree &&
	grep -q "fabric_events=" seq.tsv &&
	goalgen alltoall 16 --size 200K >big.goal &&
	NPS="2 3 4" same big.goal --net ib --topo fattree2:8
'

test_expect_success 'every goalgen pattern on a fat tree: ibsim'"'"'s results' '
	for spec in "dissemination 16 --size 3000" "bcast 16 --size 20K" "reduce 15 --calc 3us --size 5000" \
	            "ring 16 --steps 6 --size 70K" "pingpong 16 --reps 5 --size 100K" "allreduce 12 --size 9K"; do
		goalgen $spec >g.goal && same g.goal --net ib --topo fattree2:8 || { echo "goalgen $spec"; return 1; }
	done
'

test_expect_success 'random DAGs with rendezvous messages between processes, on two fat trees' '
	goalgen random 32 --ops 60 --seed 3 --size 100K >rnd.goal &&
	same rnd.goal --net ib --topo fattree2:8 &&
	goalgen random 16 --ops 40 --seed 8 --size 9K --calc 2us >rnd2.goal &&
	NPS="2 4" same rnd2.goal --net ib --topo fattree3:4 --routing updn
'

test_expect_success 'a torus with dimension order routing and two VLs, a dragonfly with valiant paths' '
	goalgen dissemination 16 --size 4K |
		awk "/^rank /{ r = \$2; print; print \"c0: calc \" (r * 1237 + r * r * 53 + 1); next }
		     /^s0:/{ print; print \"s0 requires c0\"; next } { print }" >diss.goal &&
	NPS="2 4" same diss.goal --net ib --topo torus:4x4 --routing dor --ib vls=2 &&
	goalgen alltoall 36 --size 8K >a36.goal &&
	same a36.goal --net ib --topo dragonfly:4,3,2 --routing valiant --ib vls=3 &&
	grep -q "^nonminimal	[1-9]" st
'

test_expect_success 'two ranks per host (a copy over the bus between them)' '
	for h in 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7; do echo $h; done >place &&
	goalgen ring 16 --size 32K --steps 5 >ring16.goal &&
	same ring16.goal --net ib --topo fattree2:4 --placement place
'

test_expect_success 'congestion control on a hot spot: notifications cross between processes' '
	same "$SEED/ib/hotspot8.goal" --net ib --topo fattree2:4 --ib cc=on &&
	grep -q "^becn	[1-9]" st
'

test_expect_success 'adaptive, credit-based and round-robin path selection (lmc=2)' '
	for a in adaptive adaptive-credits rr; do
		same "$SEED/ib/perm32.goal" --net ib --topo fattree2:8 --routing ftree --ib lmc=2 --ib path=$a --ib path_unit=packet ||
			return 1
	done
'

test_expect_success 'a recorded fat tree (updn, minhop) and a converted trace spread over its leaves' '
	goalgen alltoall 16 --size 64K >a2av.goal &&
	same a2av.goal --net ib --topo "$SEED/opensm/fattree3-4.ibnd" --routing updn &&
	NPS=2 same a2av.goal --net ib --topo "$SEED/opensm/fattree3-4.ibnd" --routing minhop &&
	trace2goal "$TOP/samples/traces/allprof-3" >t.goal &&
	printf "0\n2\n4\n" >place3 &&
	same t.goal --net ib --topo fattree2:4 --placement place3
'

test_expect_success 'the outputs that follow the events, --linkstats and --dump-lft are ibsim'"'"'s' '
	for np in 2 3; do
		rm -rf o.seq o.par &&
		ibsim -q --ties key -v --msglog m.seq --timeline t.seq --otf2 o.seq --linkstats l.seq --dump-lft d.seq \
			--net ib --topo fattree2:8 big.goal >r.seq 2>v.seq &&
		par $np -v --msglog m.par --timeline t.par --otf2 o.par --linkstats l.par --dump-lft d.par \
			--net ib --topo fattree2:8 big.goal >r.par 2>v.par &&
		grep -q "network: spine[0-9]* port [0-9]* vl 0: packet arrives" v.seq &&
		test_cmp r.seq r.par && test_cmp v.seq v.par && test_cmp m.seq m.par && test_cmp t.seq t.par &&
		test_cmp l.seq l.par && test_cmp d.seq d.par &&
		for x in o.seq/traces.def o.seq/traces/*; do cmp "$x" "o.par/${x#o.seq/}" || return 1; done || return 1
	done &&
	ibsim -q --ties key -v --net ib --topo fattree2:4 --ib cc=on "$SEED/ib/hotspot8.goal" 2>v.seq >/dev/null &&
	par 2 -v --net ib --topo fattree2:4 --ib cc=on "$SEED/ib/hotspot8.goal" 2>v.par >/dev/null &&
	grep -q "congestion notification" v.seq && test_cmp v.seq v.par
'

test_expect_success 'the summary line and --stats report the cut links and the lookahead' '
	mpirun --oversubscribe -np 2 ibsim-mpi --net ib --topo fattree2:8 --stats st a2a.goal >/dev/null 2>err &&
	grep -q "ibsim-mpi: 2 processes; cut 128 of 240 messages, 1048576 of 1966080 bytes, [0-9]* link directions; lookahead 5000 ps; [0-9]* windows" err &&
	grep -qx "lookahead_ps	5000" st && grep -qx "sets	4" st && grep -q "^cut_links	[1-9]" st &&
	grep -q "^fabric_events	[1-9]" st
'

test_expect_success 'what cannot be split is refused with its reason' '
	expect_fail 1 par 2 --net ib --topo fattree2:8 --ib rndv=loggopsim a2a.goal &&
	grep -q "rndv = loggopsim releases a rendezvous sender at its receiver.s match" err &&
	goalgen alltoall 36 --size 1K >a36s.goal &&
	expect_fail 1 par 2 --net ib --topo dragonfly:4,3,2 --routing ugal --ib vls=3 a36s.goal &&
	grep -q "routing ugal and ugal-g read the load of switches along the path" err &&
	expect_fail 1 par 2 --net ib --topo fattree2:8 --ib lmc=1 --ib path=random a2a.goal &&
	grep -q "path = random draws from one generator" err &&
	expect_fail 1 par 2 --net ib --topo fattree2:8 --ib delay=0 a2a.goal &&
	grep -q "joins two processes and has no delay: no lookahead" err &&
	expect_fail 1 par 3 --net ib --topo fattree2:4 "$TOP/tests/data/ltest-schedgen.goal" &&
	grep -q "ibsim-mpi: 3 processes for 2 ranks" err &&
	trace2goal "$TOP/samples/traces/allprof-3" >t3.goal &&
	expect_fail 1 par 2 --net ib --topo fattree2:8 t3.goal &&
	grep -q "the ranks form only 1 sets that can be simulated apart (the ranks of the hosts cabled to one switch stay together)" err
'

test_expect_success 'a fabric deadlock across processes is an error with the packets that cannot move' '
	expect_fail 1 ibsim -q --ties key --net ib --topo ring:5 --ib buffer=33 --ib host_buffer=33 "$SEED/ib/ring5-1m.goal" &&
	grep -q "10 packets cannot move" err &&
	expect_fail 1 par 2 --net ib --topo ring:5 --ib buffer=33 --ib host_buffer=33 "$SEED/ib/ring5-1m.goal" &&
	grep -q "^ibsim-mpi: fabric deadlock: 10 packets cannot move at the end" err
'

test_done
