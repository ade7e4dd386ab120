#!/bin/sh
# tests/bench/allprof.sh: what tracing costs. Prints TSV lines
#   allprof <benchmark> <metric> <value> <unit>
# - overhead per intercepted call: samples/apps/apbench (tight loops of
#   MPI_Comm_rank, zero-byte Isend/Irecv/Waitall to self, unsuccessful
#   MPI_Iprobe) on one rank, with and without the tracer, BENCH_RUNS runs
#   (default 3) interleaved, a line per run (the driver makes min/median/max);
#   "traced" writes each full buffer raw to the spill file inside the loops
#   and formats the text at the end, outside them (formats/trace.md 3.8),
#   "traced_nospill" formats at every flush instead (ALLPROF_SPILL=0, in the
#   same thread, inside the loops), "traced_64k" as "traced" with
#   ALLPROF_BUFSIZE=64K (many spills),
#   "traced_cpu" with --cpu-time (the thread's CPU time read at every call
#   and return) and "added_cpu" what that adds to "traced";
# - the whole traced apbench run, with the spill and without ("wall_traced",
#   "wall_traced_nospill": the spill's formatting at the end is in the first);
# - trace bytes per call of those loops;
# - third-party programs (LAMMPS in.melt, MUMPS dsimpletest, HPCC, NetPIPE)
#   traced: wall time traced and untraced, BENCH_RUNS runs; calls and trace
#   bytes per call of the first traced run.
# Programs that are not installed are left out. Never pass/fail.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
IR_BUILD=${IR_BUILD:-$TOP/build}
IR_BIN=${IR_BIN:-$TOP/bin}
PATH="$IR_BIN:$PATH"
S="$IR_BUILD/samples"
T=${BENCH_TMP:-/tmp}/allprof-bench.$$
mkdir -p "$T" && cd "$T" || exit 1
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
command -v mpirun >/dev/null 2>&1 && [ -x "$S/apbench" ] && command -v allprof >/dev/null 2>&1 || exit 0
N=${ALLPROF_BENCH_N:-1000000}
RUNS=${BENCH_RUNS:-3}
RUNLIST=$(awk -v n="$RUNS" 'BEGIN { for (i = 1; i <= n; i++) printf "%d ", i }')

# val NAME FILE: the value of NAME in one run's output
val() { awk -v n="$1" '$1 == n { print $2; exit }' "$2"; }

for i in $RUNLIST; do
	mpirun -np 1 "$S/apbench" "$N" >plain.$i 2>/dev/null
	rm -rf tr.$i
	t0=$(date +%s.%N)
	allprof -q -o tr.$i -- mpirun -np 1 "$S/apbench" "$N" >traced.$i 2>/dev/null
	t1=$(date +%s.%N)
	rm -rf ns
	ALLPROF_SPILL=0 allprof -q -o ns -- mpirun -np 1 "$S/apbench" "$N" >nospill.$i 2>/dev/null
	t2=$(date +%s.%N)
	# the whole traced run, the formatting at the end included (the loops' figures leave it out)
	printf 'allprof\tapbench\twall_traced\t%s\ts\n' "$(echo "$t1 $t0" | awk '{ printf "%.3f", $1 - $2 }')"
	printf 'allprof\tapbench\twall_traced_nospill\t%s\ts\n' "$(echo "$t2 $t1" | awk '{ printf "%.3f", $1 - $2 }')"
	rm -rf sm
	ALLPROF_BUFSIZE=64K allprof -q -o sm -- mpirun -np 1 "$S/apbench" "$N" >small.$i 2>/dev/null
	rm -rf cp
	allprof -q --cpu-time -o cp -- mpirun -np 1 "$S/apbench" "$N" >cpu.$i 2>/dev/null
	rm -rf cpx
	ALLPROF_CPUTIME_EXACT=1 allprof -q --cpu-time -o cpx -- mpirun -np 1 "$S/apbench" "$N" >cpux.$i 2>/dev/null
done
for b in comm_rank isend_irecv_waitall iprobe_miss; do
	for i in $RUNLIST; do
		p=$(val $b plain.$i)
		t=$(val $b traced.$i)
		s=$(val $b small.$i)
		[ -n "$p" ] && printf 'allprof\t%s\tuntraced\t%s\tns/call\n' "$b" "$p"
		[ -n "$t" ] && printf 'allprof\t%s\ttraced\t%s\tns/call\n' "$b" "$t"
		# the cost added, run by run (the runs are interleaved)
		[ -n "$p" ] && [ -n "$t" ] && printf 'allprof\t%s\tadded\t%s\tns/call\n' "$b" "$(echo "$t $p" | awk '{ printf "%.1f", $1 - $2 }')"
		ns=$(val $b nospill.$i)
		[ -n "$ns" ] && printf 'allprof\t%s\ttraced_nospill\t%s\tns/call\n' "$b" "$ns"
		[ -n "$s" ] && printf 'allprof\t%s\ttraced_64k\t%s\tns/call\n' "$b" "$s"
		c=$(val $b cpu.$i)
		[ -n "$c" ] && printf 'allprof\t%s\ttraced_cpu\t%s\tns/call\n' "$b" "$c"
		[ -n "$c" ] && [ -n "$t" ] && printf 'allprof\t%s\tadded_cpu\t%s\tns/call\n' "$b" "$(echo "$c $t" | awk '{ printf "%.1f", $1 - $2 }')"
		x=$(val $b cpux.$i)
		[ -n "$x" ] && printf 'allprof\t%s\ttraced_cpu_exact\t%s\tns/call\n' "$b" "$x"
	done
done
f=tr.1/rank-0.trace
if [ -f "$f" ]; then
	set -- $(grep "^# calls" "$f")
	printf 'allprof\tapbench\tcalls\t%s\tcalls\n' "$3"
	printf 'allprof\tapbench\tlines\t%s\tlines\n' "$5"
	printf 'allprof\tapbench\ttrace_bytes_per_call\t%s\tB\n' "$(awk -v c="$3" -v b="$(wc -c <"$f")" 'BEGIN { printf "%.1f", b / c }')"
	printf 'allprof\tapbench\ttrace_bytes\t%s\tB\n' "$(wc -c <"$f")"
	rm -rf z && allprof -z -q -o z -- mpirun -np 1 "$S/apbench" "$N" >/dev/null 2>&1 &&
		printf 'allprof\tapbench\tcompressed_bytes_per_call\t%s\tB\n' "$(awk -v c="$3" -v b="$(wc -c <z/rank-0.trace.zst)" 'BEGIN { printf "%.2f", b / c }')"
fi

# More ranks than cores: samples/apps/persistent's exchange of 8 bytes around a ring of 4
# ranks (unbound, as validate.mk runs them), its time per iteration from rank 0's trace
# (MPI_Init's return to MPI_Finalize's call) traced without CPU times, with them (formats/
# trace.md 3.6: the clock read once 20 us have passed) and with ALLPROF_CPUTIME_EXACT=1 (read
# at every call, as before), the three interleaved.
IT=20000
per_iter() { awk -F: -v n=$IT '/^MPI_Init:/ { a = $5 } /^MPI_Finalize:/ { printf "%.2f", ($2 - a) / n }' "$1"; }
for i in $RUNLIST; do
	for m in plain cpu exact; do
		rm -rf ring4
		case $m in
		plain) allprof -q -o ring4 -- mpirun --oversubscribe --bind-to none -np 4 "$S/persistent" $IT >/dev/null 2>&1 ;;
		cpu) allprof -q --cpu-time -o ring4 -- mpirun --oversubscribe --bind-to none -np 4 "$S/persistent" $IT >/dev/null 2>&1 ;;
		exact) ALLPROF_CPUTIME_EXACT=1 allprof -q --cpu-time -o ring4 -- mpirun --oversubscribe --bind-to none -np 4 "$S/persistent" $IT >/dev/null 2>&1 ;;
		esac
		[ -f ring4/rank-0.trace ] && printf 'allprof\tring4_oversubscribed\ttraced_%s\t%s\tus/iteration\n' $m "$(per_iter ring4/rank-0.trace)"
	done
done
rm -rf ring4

# app NAME NP COMMAND...: wall time untraced and traced, calls and bytes per call
app() {
	name=$1 np=$2
	shift 2
	rm -rf "$name"
	for i in $RUNLIST; do
		t0=$(date +%s.%N)
		mpirun -np "$np" "$@" >/dev/null 2>&1 </dev/null || return 0
		t1=$(date +%s.%N)
		out=$name
		[ $i = 1 ] || { out=$name.again; rm -rf "$out"; }
		allprof -q -o "$out" -- mpirun -np "$np" "$@" >/dev/null 2>&1 </dev/null || return 0
		t2=$(date +%s.%N)
		printf 'allprof\t%s\twall_untraced\t%s\ts\n' "$name" "$(echo "$t1 $t0" | awk '{ printf "%.3f", $1 - $2 }')"
		printf 'allprof\t%s\twall_traced\t%s\ts\n' "$name" "$(echo "$t2 $t1" | awk '{ printf "%.3f", $1 - $2 }')"
	done
	rm -rf "$name.again"
	calls=$(cat "$name"/rank-*.trace | awk '/^# calls / { c += $3 } END { print c + 0 }')
	lines=$(cat "$name"/rank-*.trace | awk '/^# calls / { c += $5 } END { print c + 0 }')
	bytes=$(cat "$name"/rank-*.trace | wc -c)
	printf 'allprof\t%s\tcalls\t%s\tcalls\n' "$name" "$calls"
	printf 'allprof\t%s\tlines\t%s\tlines\n' "$name" "$lines"
	printf 'allprof\t%s\ttrace_bytes_per_call\t%s\tB\n' "$name" "$(awk -v c="$calls" -v b="$bytes" 'BEGIN { if (c) printf "%.1f", b / c; else print 0 }')"
}

M=/usr/share/lammps/examples/melt/in.melt
command -v lmp >/dev/null 2>&1 && [ -r $M ] && app lammps-melt 2 lmp -in $M -log none -screen none
P=/usr/share/lammps/examples/peptide
if command -v lmp >/dev/null 2>&1 && [ -r $P/in.peptide ] && cp -r $P peptide-in 2>/dev/null; then
	(cd peptide-in && app lammps-peptide 2 lmp -in in.peptide -log none -screen none)
fi
if [ -x /usr/lib/mumps/dsimpletest ]; then
	cp /usr/lib/mumps/input_simpletest_real in.mumps
	printf '#!/bin/sh\nexec /usr/lib/mumps/dsimpletest <%s/in.mumps\n' "$T" >mumps.sh && chmod +x mumps.sh
	app mumps 2 ./mumps.sh
fi
if command -v hpcc >/dev/null 2>&1; then
	printf "%s\n" "HPLinpack benchmark input file" "x" "HPL.out" "6" "1" "500" "1" "32" \
		"0" "1" "1" "2" "16.0" "1" "2" "1" "4" "1" "2" "1" "1" "1" "2" "1" "0" "0" "1" "0" \
		"1" "8" "1" "500" "1" "32" "1" "1" "1" "2" >hpccinf.txt
	app hpcc 2 hpcc
fi
command -v NPopenmpi >/dev/null 2>&1 && app netpipe 2 NPopenmpi -u 65536 -p 0 -n 100 -o /dev/null
exit 0
