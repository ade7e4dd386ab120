#!/bin/sh
# ibsim --op-layout (lib/ir_goal_compact.c, docs/design.md section 7): tiles of 512 ranks
# that run one program are laid out interleaved in memory; the results, -v, --msglog and
# --timeline are those of the rank-by-rank layout byte for byte, on every goalgen pattern
# that tiles, under each engine mode and on --net ib, from binary (versions 1 and 3) and
# text; auto tiles from 4096 ranks up; ranks that do not run one program (other ops, other
# dependencies or calcs of other lengths) are never tiled;
# a deadlock is reported alike; a bad value is a usage error.
. "$(dirname "$0")/lib.sh"

# tiled N: the ranks_tiled figure of the last --stats file st.tsv is N
tiled() {
	grep -qx "ranks_tiled	$1" st.tsv || { echo "expected ranks_tiled $1:"; cat st.tsv; return 1; }
}
# same SCHEDULE TILED [OPTIONS]: --op-layout tiled tiles TILED ranks and gives the rank
# layout's results, -v, --msglog and --timeline (the summary line's timings left out)
same() {
	f=$1 n=$2
	shift 2
	ibsim -v --op-layout rank --msglog r.msg --timeline r.tl "$@" "$f" >r.tsv 2>r.err &&
	ibsim -v --op-layout tiled --stats st.tsv --msglog t.msg --timeline t.tl "$@" "$f" >t.tsv 2>t.err &&
	tiled "$n" &&
	test_cmp r.tsv t.tsv && test_cmp r.msg t.msg && test_cmp r.tl t.tl &&
	grep -v "loaded in\|fabric: " r.err >r.v && grep -v "loaded in\|fabric: " t.err >t.v && test_cmp r.v t.v &&
	test -s r.v || { echo "($f $*)"; return 1; }
}

test_expect_success 'goalgen patterns that tile: the same results in both layouts' '
	for spec in "dissemination 1100 --size 180" "dissemination 1030 --calc 2us" "ring 1030 --steps 6" \
	            "allreduce 1030" "alltoall 520 --size 1K"; do
		goalgen $spec | goalc -o g.goalb &&
		case "$spec" in
		dissemination*|ring*) n=1024 ;;
		allreduce*) n=512 ;;
		alltoall*) n=0 ;; # 1,038 ops a rank: a tile would be above 4 MiB
		esac &&
		same g.goalb $n || { echo "goalgen $spec"; return 1; }
	done
'

test_expect_success 'each engine mode: async progress, ties by key, shared cores, rendezvous sizes' '
	goalgen dissemination 1030 --size 100K --calc 1us | goalc -o g.goalb &&
	same g.goalb 1024 --async-progress &&
	same g.goalb 1024 --ties key &&
	same g.goalb 1024 --cores 2 --ranks-per-host 4 --cpu-wait spin &&
	same g.goalb 1024 --cores 1 --ranks-per-host 2 &&
	goalgen ring 1024 --steps 4 --size 70K | goalc -o r.goalb &&
	same r.goalb 1024 -S 65535
'

test_expect_success '--net ib: the same results in both layouts' '
	goalgen dissemination 1024 --size 2K | goalc -o g.goalb &&
	same g.goalb 1024 --net ib --topo fattree3:16
'

test_expect_success 'text and version-1 binary input tile as version 3 does' '
	goalgen ring 1030 --steps 3 >g.goal &&
	same g.goal 1024 &&
	goalc --goalb-version=1 -o g1.goalb g.goal &&
	same g1.goalb 1024
'

test_expect_success 'auto tiles from 4096 ranks up; rank never tiles' '
	goalgen dissemination 4095 | goalc -o a.goalb &&
	ibsim -q --stats st.tsv a.goalb >/dev/null && tiled 0 &&
	goalgen dissemination 4100 | goalc -o b.goalb &&
	ibsim -q --stats st.tsv b.goalb >auto.tsv && tiled 4096 &&
	ibsim -q --op-layout auto --stats st.tsv b.goalb >/dev/null && tiled 4096 &&
	ibsim -q --op-layout rank --stats st.tsv b.goalb >rank.tsv && tiled 0 &&
	test_cmp rank.tsv auto.tsv
'

# pairs D: 1,024 ranks in pairs, each exchanging one message between two calcs; with D = 1 the
# first calc is 1000 + (rank mod 7) ps long, with D = 0 1000 ps on every rank
pairs() {
	awk -v d="$1" 'BEGIN { n = 1024; print "num_ranks " n; for (r = 0; r < n; r++) {
		p = r % 2 ? r - 1 : r + 1
		printf "rank %d {\n c0: calc %d\n s0: send 64b to %d tag 0\n r0: recv 64b from %d tag 0\n", r, 1000 + d * (r % 7), p, p
		printf " c1: calc 500\n s0 requires c0\n r0 requires c0\n c1 requires r0\n c1 requires s0\n}\n" } }'
}

test_expect_success 'ranks that do not run one program stay rank by rank' '
	goalgen random 1024 --ops 40 --seed 2 | goalc -o g.goalb &&
	same g.goalb 0 &&
	goalgen bcast 2048 | goalc -o b.goalb &&
	same b.goalb 1536 && # from rank 512 up, a tile'"'"'s ranks have the same ops; below, they differ
	pairs 0 >p0.goal && same p0.goal 1024 &&
	pairs 1 >p1.goal && same p1.goal 0 # the same ops, but calcs of different lengths: the ranks drift apart
'

test_expect_success 'a deadlock in a tile is reported as in the rank layout' '
	awk "BEGIN { print \"num_ranks 1024\"; for (r = 0; r < 1024; r++) {
		printf \"rank %d {\\n a: recv 8b from %d tag 0\\n b: send 8b to %d tag 0\\n b requires a\\n}\\n\",
		       r, (r + 1023) % 1024, (r + 1) % 1024 } }" >d.goal &&
	ibsim -q --op-layout rank d.goal >r.tsv 2>r.err; test $? = 1 &&
	ibsim -q --op-layout tiled --stats st.tsv d.goal >t.tsv 2>t.err; test $? = 1 &&
	test_cmp r.err t.err && test_cmp r.tsv t.tsv && grep -q "deadlock" t.err
'

test_expect_success 'a bad --op-layout is a usage error' '
	goalgen ring 4 >g.goal &&
	expect_fail 2 ibsim --op-layout columns g.goal &&
	expect_err "ibsim: --op-layout takes auto, rank or tiled, got '"'"'columns'"'"'" &&
	expect_fail 2 ibsim --op-layout "" g.goal
'

if command -v mpirun >/dev/null 2>&1 && command -v ibsim-mpi >/dev/null 2>&1; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	test_expect_success 'ibsim-mpi on tiles: ibsim --ties key'"'"'s results' '
		goalgen dissemination 1100 --size 180 | goalc -o g.goalb &&
		ibsim -q --ties key --op-layout rank g.goalb >seq.tsv &&
		mpirun --oversubscribe -np 2 ibsim-mpi -q --op-layout tiled g.goalb >par.tsv &&
		test_cmp seq.tsv par.tsv
	'
else
	test_skip 'ibsim-mpi on tiles' 'mpirun or ibsim-mpi not available'
fi

test_done
