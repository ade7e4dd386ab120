#!/bin/sh
# The sweeps' three ways to run their simulations (pipelines/submit.mk):
# make -j here, a SUBMIT prefix, and a job array from `make ... commands`.
# Without Slurm: the prefix mechanism through a wrapper that logs its calls,
# and the command list run task by task through pipelines/slurm-array.sh.
# With Slurm: a one-node cluster on localhost (slurmctld and slurmd from
# Debian's slurm-wlm, configured in this test's scratch directory with
# auth/none, so no munge) runs the same sweep under SUBMIT="srun ..." and as
# sbatch --array followed by a collecting job (--dependency=afterok). Every
# way must give the table of the local run, byte for byte. The Slurm tests
# are skipped, each with the reason, where the daemons cannot start (not
# installed, not root, no auth/none plugin, ports in use, node not idle in
# time); the daemons are stopped on every exit path.
. "$(dirname "$0")/lib.sh"

# a Slurm job around this test must not capture our srun and sbatch
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# sweep OUT [VAR=VALUE...]: a goalgen allreduce over two topologies, eight
# simulations, two of them refused (ftree on h8s2)
sweep() {
	o=$1
	shift
	timeout 60 make -s -C "$TOP" -f pipelines/topo-sweep.mk BIN="$IR_BIN" BUILD="$IR_BUILD" OUT="$TRASH/$o" \
		APP=gen:allreduce NP=8 GENFLAGS="--size 32K --calc 5us" PLOTS=no \
		TOPOS="star:8 h8s2" ROUTINGS="minhop ftree" PLACEMENTS="seq random:3" "$@" \
		>"$TRASH/$o.log" 2>"$TRASH/$o.err"
}

# a SUBMIT prefix that logs each call and runs it
cat >wrap.sh <<EOF
#!/bin/sh
printf "%s\\n" "\$*" >>"$TRASH/wrap.calls"
exec "\$@"
EOF
chmod +x wrap.sh

test_expect_success 'reference: the sweep run here, one simulation at a time' '
	sweep ref &&
	test "$(wc -l <ref/table.tsv)" = 9 &&
	test "$(grep -c "	failed	" ref/table.tsv)" = 2 &&
	test "$(grep -c "^ibsim --topo" ref.log)" = 8
'

test_expect_success 'make -j4: the same table' '
	sweep j -j4 &&
	test_cmp ref/table.tsv j/table.tsv &&
	test "$(grep -c "^ibsim --topo" j.log)" = 8
'

test_expect_success 'SUBMIT prefixes every simulation (sh -c COMMAND), and only those' '
	sweep w -j2 SUBMIT="$TRASH/wrap.sh" &&
	test_cmp ref/table.tsv w/table.tsv &&
	test "$(wc -l <wrap.calls)" = 8 &&
	test "$(grep -c "^sh -c if .*/ibsim -q .* --topo .*/app.goalb > $TRASH/w/runs/.*\\.tsv\\.tmp " wrap.calls)" = 8 &&
	test "$(grep -c "/ibsim .*--topo h8s2 --routing ftree" wrap.calls)" = 2
'

test_expect_success 'SRUN is another name for SUBMIT' '
	rm -f wrap.calls &&
	sweep s SRUN="$TRASH/wrap.sh" TOPOS=star:8 ROUTINGS=minhop PLACEMENTS=seq &&
	test "$(wc -l <wrap.calls)" = 1
'

test_expect_success 'commands: one line per simulation out of date; the schedule made first' '
	sweep l commands &&
	test -s l/app.goalb && test "$(wc -l <l/commands.txt)" = 8 &&
	! test -e l/table.tsv && ! ls l/runs/*.tsv 2>/dev/null &&
	grep -qx "commands: $TRASH/l/commands.txt (8 simulations)" l.log &&
	grep -q "^run them: sbatch --array=1-8 .*pipelines/slurm-array.sh $TRASH/l/commands.txt\$" l.log &&
	test "$(grep -c "^cd .* && sh -c " l/commands.txt)" = 8
'

test_expect_success 'slurm-array.sh runs line SLURM_ARRAY_TASK_ID; make then only collects' '
	for i in 1 2 3 4 5 6 7 8; do
		(cd / && SLURM_ARRAY_TASK_ID=$i sh "$TOP/pipelines/slurm-array.sh" "$TRASH/l/commands.txt") >>l.tasks 2>&1 || exit 1
	done &&
	test "$(grep -c "^   ibsim: " l.tasks)" = 2 &&
	sweep l &&
	! grep -q "^ibsim --topo" l.log &&
	test_cmp ref/table.tsv l/table.tsv &&
	sweep l commands && test "$(wc -l <l/commands.txt)" = 0 &&
	grep -qx "commands: $TRASH/l/commands.txt (0 simulations)" l.log
'

test_expect_success 'slurm-array.sh: a task past the end of the list or outside an array fails' '
	printf "true\ntrue\n" >two &&
	expect_fail 1 env SLURM_ARRAY_TASK_ID=3 sh "$TOP/pipelines/slurm-array.sh" two &&
	expect_err "slurm-array.sh: two: no line 3" &&
	expect_fail 2 sh "$TOP/pipelines/slurm-array.sh" two &&
	grep -q "SLURM_ARRAY_TASK_ID unset" err
'

test_expect_success 'size sweep: SUBMIT and commands too, same curves' '
	z() { o=$1; shift; timeout 60 make -s -C "$TOP" -f pipelines/size-sweep.mk BIN="$IR_BIN" BUILD="$IR_BUILD" \
		OUT="$TRASH/$o" MPI=no PARAMS="$TOP/pipelines/thesis-cluster.params" \
		IB_PARAMS="$TOP/pipelines/thesis-cluster.params" MAXBYTES=64 SIMREPS=2 PLOTS=no "$@" >"$o.log" 2>&1; } &&
	z zref && rm -f wrap.calls && z zw -j2 SUBMIT="$TRASH/wrap.sh" &&
	test "$(wc -l <wrap.calls)" = 16 && test_cmp zref/curves.tsv zw/curves.tsv &&
	z zl commands && test "$(wc -l <zl/commands.txt)" = 16 &&
	for i in $(seq 16); do SLURM_ARRAY_TASK_ID=$i sh "$TOP/pipelines/slurm-array.sh" zl/commands.txt || exit 1; done &&
	z zl && test_cmp zref/curves.tsv zl/curves.tsv
'

# ---- a one-node Slurm on localhost ----
SL=$TRASH/slurm
ctld_pid=
slurmd_pid=
plugin_dir() {
	for d in /usr/lib/*/slurm-wlm /usr/lib/slurm-wlm /usr/lib64/slurm /usr/lib/slurm /usr/local/lib/slurm; do
		[ -e "$d/auth_none.so" ] && { echo "$d"; return 0; }
	done
	return 1
}
# port_busy PORT: something listens on PORT (without ss, a port in use shows
# as a daemon that does not start, its log line in the skip reason)
port_busy() {
	command -v ss >/dev/null 2>&1 || return 1
	ss -Hltn 2>/dev/null | awk '{print $4}' | grep -q ":$1\$"
}
stop_slurm() {
	[ -n "$ctld_pid$slurmd_pid" ] || return 0
	timeout 5 scancel --user="$(id -un)" >/dev/null 2>&1
	for p in $slurmd_pid $ctld_pid; do kill -TERM "$p" 2>/dev/null; done
	for i in $(seq 50); do
		kill -0 $slurmd_pid $ctld_pid 2>/dev/null || break
		sleep 0.1
	done
	for p in $slurmd_pid $ctld_pid; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	ctld_pid=
	slurmd_pid=
}
trap stop_slurm EXIT
trap 'stop_slurm; exit 1' HUP INT TERM

# start_slurm: sets $why and returns 1 when Slurm cannot start here
start_slurm() {
	for c in slurmctld slurmd srun sbatch sinfo squeue scancel; do
		command -v $c >/dev/null 2>&1 || { why="$c not installed (Debian: apt-get install slurmctld slurmd slurm-client)"; return 1; }
	done
	[ "$(id -u)" = 0 ] || { why="not root: slurmd must run as root to start jobs"; return 1; }
	plugin_dir >/dev/null || { why="no auth_none.so among the Slurm plugins (Slurm 23.11 and later need munge)"; return 1; }
	port=
	for p in 16817 16827 16837 16847 16857; do
		if ! port_busy $p && ! port_busy $((p + 1)); then port=$p; break; fi
	done
	[ -n "$port" ] || { why="TCP ports 16817 to 16858 in use (another Slurm?)"; return 1; }
	mem=$(awk '/^MemTotal:/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)
	mkdir -p "$SL/state" "$SL/spool" || { why="cannot create $SL"; return 1; }
	cat >"$SL/slurm.conf" <<-EOF
	ClusterName=ibreplay-test
	SlurmctldHost=localhost
	SlurmctldPort=$port
	SlurmdPort=$((port + 1))
	AuthType=auth/none
	CredType=cred/none
	SlurmUser=root
	SlurmdUser=root
	StateSaveLocation=$SL/state
	SlurmdSpoolDir=$SL/spool
	SlurmctldPidFile=$SL/slurmctld.pid
	SlurmdPidFile=$SL/slurmd.pid
	SlurmctldLogFile=$SL/slurmctld.log
	SlurmdLogFile=$SL/slurmd.log
	ProctrackType=proctrack/linuxproc
	TaskPlugin=task/none
	JobAcctGatherType=jobacct_gather/none
	AccountingStorageType=accounting_storage/none
	SchedulerType=sched/builtin
	SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
	SelectType=select/cons_tres
	SelectTypeParameters=CR_Core
	MpiDefault=none
	ReturnToService=2
	MinJobAge=300
	NodeName=localhost CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
	PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
	EOF
	SLURM_CONF=$SL/slurm.conf
	export SLURM_CONF
	slurmctld -D -i >"$SL/slurmctld.out" 2>&1 &
	ctld_pid=$!
	slurmd -D -N localhost >"$SL/slurmd.out" 2>&1 &
	slurmd_pid=$!
	for i in $(seq 75); do
		[ "$(timeout 5 sinfo -h -n localhost -o %t 2>/dev/null)" = idle ] && return 0
		kill -0 $ctld_pid $slurmd_pid 2>/dev/null || break
		sleep 0.2
	done
	why="the node did not become idle within 15 s: $(tail -n 1 "$SL/slurmctld.log" "$SL/slurmd.log" 2>/dev/null | grep -v "^==>" | grep . | tail -n 1)"
	stop_slurm
	return 1
}

# jobs NAME: how many jobs of that name slurmctld knows (finished ones included)
jobs_named() {
	timeout 10 squeue -h -t all -o %j | grep -cx "$1"
}

# wait_job ID: prints the state the job ends in (after at most 30 s, the last one seen)
wait_job() {
	for i in $(seq 150); do
		st=$(timeout 5 squeue -h -t all -j "$1" -o %T 2>/dev/null)
		case $st in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) break ;; esac
		sleep 0.2
	done
	echo "$st"
}

why=
if start_slurm; then
test_expect_success 'Slurm: the node is idle in partition debug' '
	test "$(timeout 5 sinfo -h -o "%P %t %N")" = "debug* idle localhost"
'

test_expect_success 'Slurm: SUBMIT="srun ..." runs every simulation as a job; same table' '
	sweep srun -j2 SUBMIT="timeout 30 srun -N1 -n1 -J t8006-srun --quiet" &&
	test "$(jobs_named t8006-srun)" = 8 &&
	test_cmp ref/table.tsv srun/table.tsv &&
	test "$(grep -c "^   ibsim: " srun.log)" = 2
'

cat >collect.sh <<EOF
#!/bin/sh
make -s -C "$TOP" -f pipelines/topo-sweep.mk BIN="$IR_BIN" BUILD="$IR_BUILD" OUT="$TRASH/arr" \
	APP=gen:allreduce NP=8 GENFLAGS="--size 32K --calc 5us" PLOTS=no \
	TOPOS="star:8 h8s2" ROUTINGS="minhop ftree" PLACEMENTS="seq random:3"
EOF

test_expect_success 'Slurm: sbatch --array over the commands, then a collecting job (afterok); same table' '
	sweep arr commands && test "$(wc -l <arr/commands.txt)" = 8 &&
	id=$(timeout 10 sbatch --parsable --array=1-8 -J t8006-array -o "$TRASH/arr-%a.out" \
		"$TOP/pipelines/slurm-array.sh" "$TRASH/arr/commands.txt") &&
	test -n "$id" &&
	cid=$(timeout 10 sbatch --parsable --dependency=afterok:$id -J t8006-collect -o "$TRASH/collect.out" collect.sh) &&
	test "$(wait_job "$cid")" = COMPLETED &&
	for i in 1 2 3 4 5 6 7 8; do test -e arr-$i.out || exit 1; done &&
	test "$(cat arr-*.out | grep -c "^   ibsim: ")" = 2 &&
	! grep -q "^ibsim --topo" collect.out &&
	grep -qx "table: $TRASH/arr/table.tsv" collect.out &&
	test_cmp ref/table.tsv arr/table.tsv
'
echo "$ctld_pid $slurmd_pid" >daemons
stop_slurm

test_expect_success 'Slurm: the daemons are stopped' '
	test "$(wc -w <daemons)" = 2 &&
	for p in $(cat daemons); do ! kill -0 $p 2>/dev/null || exit 1; done
'
else
	echo "# Slurm tests skipped: $why"
	test_skip 'Slurm: srun prefix and job array on a one-node cluster' "$why"
fi
test_done
