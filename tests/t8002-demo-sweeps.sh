#!/bin/sh
# pipelines/topo-sweep.mk and pipelines/size-sweep.mk end to end on small
# inputs: the table and chart, refused combinations, reruns that redo
# nothing, edits that redo only what they affect; the size sweep's loggops
# curve against the model's formula, and with MPI its real curve.
. "$(dirname "$0")/lib.sh"

OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# Open MPI's session directory in this test's own scratch directory: mpirun
# runs of other tests at the same time then cannot collide with ours.
TMPDIR=$TRASH
export TMPDIR
command -v gnuplot >/dev/null 2>&1 && PLOTS=yes || PLOTS=no

# topo OUT [VAR=VALUE...]: a goalgen allreduce over three topologies
topo() {
	o=$1
	shift
	make -s -C "$TOP" -f pipelines/topo-sweep.mk BIN="$IR_BIN" BUILD="$IR_BUILD" OUT="$TRASH/$o" \
		APP=gen:allreduce NP=8 GENFLAGS="--size 32K --calc 5us" PLOTS=$PLOTS \
		ROUTINGS="minhop ftree" PLACEMENTS="seq random:3" "$@" >"$TRASH/$o.log" 2>"$TRASH/$o.err"
}
png() { test "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = "211PNG"; }

test_expect_success 'topology sweep: one row per combination, slowdowns against the fastest' '
	topo t TOPOS="star:8 h8s2 fattree2:4" &&
	test "$(wc -l <t/table.tsv)" = 13 &&
	head -n 1 t/table.tsv | grep -qx "topo	routing	placement	end_us	vs_best_pct	max_link_busy_pct	stall_us" &&
	test "$(cut -f1-3 t/table.tsv | sed -n "2p;13p" | tr "\t\n" ":;")" = "star:8:minhop:seq;fattree2:4:ftree:random:3;" &&
	awk -F"\t" "NR > 1 && \$4 != \"failed\" && \$5 == \"+0.00\" {z++} NR > 1 && \$4 != \"failed\" && \$5 !~ /^\\+[0-9]+\\.[0-9][0-9]\$/ {bad++} END {exit !(z >= 1 && !bad)}" t/table.tsv &&
	grep -q "^star:8  *minhop  *seq  *[0-9.]* *+[0-9.]* " t.log &&
	test "$(ls t/runs/*.tsv | grep -vc links)" = 12
'

test_expect_success 'a combination ibsim refuses is "failed" in the table, with its message' '
	grep -qx "h8s2	ftree	seq	failed	-	-	-" t/table.tsv &&
	grep -qx "h8s2	ftree	random:3	failed	-	-	-" t/table.tsv &&
	grep -q "^   ibsim: " t.log &&
	test -s t/runs/h8s2__ftree__seq.err
'

test_expect_success 'the simulated times are ibsim'\''s: one run redone by hand agrees' '
	goalgen allreduce 8 --size 32K --calc 5us | goalc -o a.goalb &&
	ibsim -q --net ib --topo fattree2:4 --routing minhop --placement random:3 a.goalb >r.tsv &&
	end=$(awk "!/^#/ && \$1 ~ /^[0-9]+\$/ && \$2 > m {m = \$2} END {printf \"%.3f\", m / 1e6}" r.tsv) &&
	grep -q "^fattree2:4	minhop	random:3	$end	" t/table.tsv
'

if [ $PLOTS = yes ]; then
test_expect_success 'chart in PNG and SVG' '
	png t/topo-sweep.png && grep -q "<svg" t/topo-sweep.svg &&
	grep -qx "chart: $TRASH/t/topo-sweep.png $TRASH/t/topo-sweep.svg" t.log
'
else
test_skip 'topology sweep chart' 'gnuplot not installed'
fi

test_expect_success 'rerun: nothing simulated again' '
	topo t TOPOS="star:8 h8s2 fattree2:4" &&
	! grep -q "^ibsim --topo" t.log && test "$(wc -l <t/table.tsv)" = 13
'

test_expect_success 'one more topology: only its runs are done' '
	topo t TOPOS="star:8 h8s2 fattree2:4 h8s4" &&
	test "$(grep -c "^ibsim --topo" t.log)" = 4 &&
	test "$(grep -c "^ibsim --topo h8s4 " t.log)" = 4 &&
	test "$(wc -l <t/table.tsv)" = 17
'

test_expect_success 'new ibsim options: every run is done again' '
	topo t TOPOS="star:8 h8s2 fattree2:4 h8s4" IBFLAGS="--link 4xQDR" &&
	test "$(grep -c "^ibsim --topo" t.log)" = 16 &&
	grep -q "net=ib topo=star:8 " t/runs/star+8__minhop__seq.tsv
'

test_expect_success 'SCHED: an existing schedule instead of APP' '
	goalgen ring 8 --steps 20 --size 4K >ring.goal &&
	topo s SCHED="$TRASH/ring.goal" TOPOS="fattree2:4" ROUTINGS=minhop PLACEMENTS=seq &&
	test "$(wc -l <s/table.tsv)" = 2 &&
	grep -q "^fattree2:4	minhop	seq	[0-9.]*	+0.00	" s/table.tsv
'

test_expect_success 'size sweep without MPI: loggops one-way = 2o + L + (s-1)G of the parameters' '
	make -s -C "$TOP" -f pipelines/size-sweep.mk BIN="$IR_BIN" BUILD="$IR_BUILD" OUT="$TRASH/z" MPI=no \
		PARAMS="$TOP/pipelines/thesis-cluster.params" IB_PARAMS="$TOP/pipelines/thesis-cluster.params" \
		MAXBYTES=1024 SIMREPS=3 PLOTS=$PLOTS >z.log 2>z.err &&
	test "$(wc -l <z/curves.tsv)" = 13 &&
	test "$(cut -f1 z/curves.tsv | tr "\n" " ")" = "size_bytes 0 1 2 4 8 16 32 64 128 256 512 1024 " &&
	test "$(awk -F"\t" "NR > 1 && \$2 != \"-\"" z/curves.tsv)" = "" &&
	grep -qx "1	-	5.500	[0-9.]*" z/curves.tsv &&
	grep -qx "1024	-	6.203	[0-9.]*" z/curves.tsv &&
	awk -F"\t" "NR > 2 && \$4 < last {bad = 1} NR > 1 {last = \$4} END {exit bad}" z/curves.tsv
'

if command -v mpirun >/dev/null 2>&1 && [ -x "$IR_BUILD/samples/pingpong" ]; then
test_expect_success 'size sweep with MPI: real, loggops and ib for every size; chart' '
	make -s -C "$TOP" -f pipelines/size-sweep.mk BIN="$IR_BIN" BUILD="$IR_BUILD" OUT="$TRASH/m" \
		MAXBYTES=16384 REPS=3 SIMREPS=2 PLOTS=$PLOTS >m.log 2>m.err &&
	test "$(wc -l <m/curves.tsv)" = 17 &&
	awk -F"\t" "NR > 1 {for (i = 2; i <= 4; i++) if (\$i !~ /^[0-9]+\\.[0-9]+\$/) bad = 1} END {exit bad}" m/curves.tsv &&
	grep -q "^net = ib" m/calib/ib.params &&
	if [ $PLOTS = yes ]; then png m/size-sweep.png && grep -q "<svg" m/size-sweep.svg; fi
'
else
test_skip 'size sweep with MPI' 'mpirun or the sample programs missing'
fi
test_done
