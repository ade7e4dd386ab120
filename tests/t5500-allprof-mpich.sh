#!/bin/sh
# allprof with MPICH (Debian's mpich, installed side by side with Open MPI):
# liballprof-mpich.so and the samples built against MPICH ($IR_BUILD/samples-mpich),
# the launcher's choice of library (--mpi, ALLPROF_LIB, the auto rule), MPICH
# samples traced under `allprof -- mpirun.mpich` and checked line by line as the
# Open MPI tests check the same samples, the Fortran bindings recording each call
# once, the traces converted by trace2goal and simulated by ibsim, and, with Open
# MPI there too, the same samples traced under both MPIs giving the same lines.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
command -v mpicc.mpich >/dev/null 2>&1 || skip_all "MPICH not installed (no mpicc.mpich; make deps)"
command -v mpirun.mpich >/dev/null 2>&1 || skip_all "MPICH not installed (no mpirun.mpich)"
command -v allprof >/dev/null 2>&1 || skip_all "allprof not built"
MS="$IR_BUILD/samples-mpich"
MLIB="$IR_BUILD/allprof/liballprof-mpich.so"
OLIB="$IR_BUILD/allprof/liballprof.so"
[ -x "$MS/ring" ] && [ -r "$MLIB" ] || skip_all "MPICH library or samples not built ($MS)"
# hydra ends a job that runs longer than this (seconds): a hang fails, never blocks
MPIEXEC_TIMEOUT=60
export MPIEXEC_TIMEOUT

# mtraced DIR NP PROGRAM [ARG...]: PROGRAM on NP ranks under allprof and mpirun.mpich.
mtraced() {
	d=$1
	np=$2
	shift 2
	allprof -o "$d" -- mpirun.mpich -n "$np" "$@" >"$d.out" 2>"$d.err"
}

# norm FILE: the call lines without times, addresses (6 digits or more) as A,
# unsuccessful Improbe polls left out (the form of tests/t5900-allprof-fortran/).
norm() {
	awk -F: -v OFS=: '
	/^#/ { next }
	$1 == "MPI_Improbe" && $6 == 0 { next }
	{
		out = $1
		for (i = 3; i < NF; i++) {
			f = $i
			gsub(/[0-9][0-9][0-9][0-9][0-9][0-9]+/, "A", f)
			out = out ":" f
		}
		print out
	}' "$1"
}

# nostat: normalised lines with the statuses of the Wait/Test family left out (MPI
# leaves a status undefined unless it completes a receive; Open MPI fills it, MPICH
# leaves it as it was; the statuses of receives are checked on their own), and
# without unsuccessful polls (how often a program polls depends on timing).
nostat() {
	awk -F: -v OFS=: '
	$1 == "MPI_Test" && $3 == 0 { next }
	($1 == "MPI_Testall" || $1 == "MPI_Testsome") && $4 == 0 { next }
	($1 == "MPI_Testany" || $1 == "MPI_Iprobe") && $5 == 0 { next }
	$1 == "MPI_Wait" { NF = 2 }
	$1 == "MPI_Test" { NF = 3 }
	$1 == "MPI_Waitall" { NF = 3 }
	$1 == "MPI_Testall" || $1 == "MPI_Waitany" { NF = 4 }
	$1 == "MPI_Testany" || $1 == "MPI_Waitsome" || $1 == "MPI_Testsome" { NF = 5 }
	{ print }'
}

# ---------------------------------------------------------------- the build

test_expect_success 'liballprof-mpich.so and the samples are built against MPICH, liballprof.so is not' '
	readelf -d "$MLIB" | grep -q "NEEDED.*\[libmpich\.so\.[0-9]*\]" &&
	readelf -d "$MLIB" | grep -q "SONAME.*\[liballprof-mpich\.so\]" &&
	! readelf -d "$MLIB" | grep -q "NEEDED.*\[libmpi\.so" &&
	! readelf -d "$OLIB" | grep -q "NEEDED.*\[libmpich" &&
	for s in ring pingpong collectives; do
		readelf -d "$MS/$s" | grep -q "NEEDED.*\[libmpich\.so\.[0-9]*\]" || return 1
	done
'

test_expect_success 'every PMPI_ function liballprof-mpich.so calls is in MPICH'"'"'s library' '
	libmpich=$(ldd "$MLIB" | awk "/libmpich\\.so/ { print \$3 }") &&
	test -r "$libmpich" &&
	nm -D --defined-only "$libmpich" | awk "{ print \$3 }" | sort -u >defined &&
	nm -D --undefined-only "$MLIB" | awk "/PMPI_/ { print \$2 }" | sort -u >used &&
	test "$(wc -l <used)" -gt 300 &&
	comm -23 used defined >missing &&
	test_cmp /dev/null missing
'

# ---------------------------------------------------------------- which library

test_expect_success '--mpi auto: launchers by name, through /etc/alternatives and links' '
	test "$(allprof --print-lib -- mpirun.mpich -n 2 x)" = "$MLIB" &&
	test "$(allprof --print-lib -- mpiexec.hydra -n 2 x)" = "$MLIB" &&
	mkdir bin && ln -s "$(command -v mpiexec.hydra)" bin/mpiexec &&
	test "$(allprof --print-lib -- bin/mpiexec -n 2 x)" = "$MLIB" &&
	if command -v mpirun.openmpi >/dev/null 2>&1; then
		test "$(allprof --print-lib -- mpirun.openmpi -np 2 x)" = "$OLIB" &&
		test "$(allprof --print-lib -- "$(command -v mpirun.openmpi)")" = "$OLIB"
	fi &&
	case $(readlink -f "$(command -v mpirun)") in
	*mpich* | *hydra*) want=$MLIB ;;
	*) want=$OLIB ;;
	esac &&
	test "$(allprof --print-lib -- mpirun -np 2 x)" = "$want"
'

test_expect_success '--mpi auto: otherwise the MPI library the program needs' '
	test "$(allprof --print-lib -- "$MS/ring" 4 100)" = "$MLIB" &&
	test "$(allprof --print-lib -- env A=1 "$MS/pingpong" -q)" = "$MLIB" &&
	test "$(allprof --print-lib -- no-such-launcher -n 2 "$MS/ring")" = "$MLIB" &&
	test "$(allprof --print-lib -- "$MS/pingpong-linked")" = "$MLIB" &&
	if test -x "$MS/fsample"; then
		test "$(allprof --print-lib -- "$MS/fsample")" = "$MLIB"
	fi &&
	if test -x "$SAMPLES/ring"; then
		test "$(allprof --print-lib -- "$SAMPLES/ring")" = "$OLIB" &&
		test "$(allprof --print-lib -- env A=1 "$SAMPLES/ring")" = "$OLIB"
	fi &&
	cp "$MS/ring" ./myapp &&
	PATH="$TRASH:$PATH" && test "$(allprof --print-lib -- sh -c x myapp)" = "$MLIB"
'

test_expect_success '--mpi auto: nothing tells: the system'"'"'s mpirun, else Open MPI' '
	case $(readlink -f "$(command -v mpirun)") in
	*mpich* | *hydra*) want=$MLIB ;;
	*) want=$OLIB ;;
	esac &&
	test "$(allprof --print-lib -- sh -c "exit 0")" = "$want" &&
	test "$(allprof --print-lib)" = "$want" &&
	mkdir nompi && cp /bin/sh nompi/mpirun &&
	test "$(PATH="$TRASH/nompi:$PATH" allprof --print-lib -- true)" = "$OLIB" &&
	ln -s "$(command -v mpirun.mpich)" nompi/mpirun.x &&
	rm nompi/mpirun && ln -s mpirun.x nompi/mpirun &&
	test "$(PATH="$TRASH/nompi:$PATH" allprof --print-lib -- true)" = "$MLIB"
'

test_expect_success '--mpi openmpi|mpich overrides the rule; ALLPROF_LIB overrides both' '
	test "$(allprof --print-lib --mpi mpich -- mpirun.openmpi -np 2 x)" = "$MLIB" &&
	test "$(allprof --print-lib --mpi openmpi -- "$MS/ring")" = "$OLIB" &&
	test "$(allprof --print-lib --mpi=auto -- "$MS/ring")" = "$MLIB" &&
	test "$(ALLPROF_LIB=$OLIB allprof --print-lib --mpi mpich -- "$MS/ring")" = "$OLIB"
'

test_expect_success 'an unknown --mpi is a usage error' '
	expect_fail 2 allprof --mpi lam true &&
	expect_err "allprof: unknown MPI '"'"'lam'"'"' (openmpi, mpich or auto)" &&
	expect_err "Try '"'"'allprof --help'"'"' for more information."
'

test_expect_success 'a library built for the other MPI is refused, naming both' '
	mkdir -p pre/bin pre/lib && cp "$(command -v allprof)" pre/bin/ &&
	cp "$MLIB" pre/lib/liballprof.so &&
	lib=$(cd pre/lib && pwd -P)/liballprof.so &&
	needed=$(readelf -d "$MLIB" | sed -n "s/.*NEEDED.*\[\(libmpich\.so[^]]*\)\].*/\1/p") &&
	expect_fail 1 pre/bin/allprof --print-lib --mpi openmpi &&
	expect_err "allprof: $lib was built for MPICH (it needs $needed), but the job uses Open MPI (--mpi openmpi)" &&
	expect_fail 1 pre/bin/allprof -o never --mpi openmpi -- true &&
	test ! -d never
'

test_expect_success 'the installed layout: each library is found next to the launcher' '
	mkdir -p inst/bin inst/lib && cp "$(command -v allprof)" inst/bin/ &&
	cp "$OLIB" "$MLIB" inst/lib/ &&
	d=$(cd inst/lib && pwd -P) &&
	test "$(inst/bin/allprof --print-lib -- mpirun.mpich)" = "$d/liballprof-mpich.so" &&
	test "$(inst/bin/allprof --print-lib -- "$MS/ring")" = "$d/liballprof-mpich.so" &&
	test "$(inst/bin/allprof --print-lib --mpi openmpi)" = "$d/liballprof.so"
'

# ---------------------------------------------------------------- MPICH runs

test_expect_success 'hydra passes the settings to every rank' '
	allprof -q -z -o env -- mpirun.mpich -n 2 sh -c "echo \"\$LD_PRELOAD|\$ALLPROF_DIR|\$ALLPROF_COMPRESS\"" >env.out 2>env.err;
	test $? = 1 &&
	printf "%s|%s|1\n" "$MLIB" "$TRASH/env" "$MLIB" "$TRASH/env" >expect &&
	test_cmp expect env.out
'

test_expect_success 'ring on 4 ranks: traced, complete, summary printed' '
	mtraced ring 4 "$MS/ring" 4 100 &&
	test "$(cat ring.out)" = 24 &&
	grep -qx "allprof: traces in $TRASH/ring: 4 ranks, 80 calls, [0-9]* bytes of text, [0-9]* bytes on disk" ring.err &&
	for r in 0 1 2 3; do complete ring/rank-$r.trace && monotonic ring/rank-$r.trace || return 1; done
'

test_expect_success 'ring: header, clock offsets and communicator lines' '
	for r in 0 1 2 3; do
		f=ring/rank-$r.trace &&
		head -n 1 $f | grep -q "^# allprof .* trace format 1$" &&
		grep -qx "# rank: $r of 4" $f &&
		grep -qx "# thread level: 0" $f &&
		grep -q "^# Init clockdiff: -\{0,1\}[0-9]*\.[0-9][0-9][0-9]$" $f &&
		grep -q "^# Finalize clockdiff: -\{0,1\}[0-9]*\.[0-9][0-9][0-9]$" $f &&
		grep -qx "# comm 0 0,1,2,3" $f &&
		grep -qx "# comm 1 $r" $f &&
		grep -qx "# calls 20 records 20 collapsed 0 flushes 0" $f || return 1
	done &&
	grep -qx "# Init clockdiff: 0.000" ring/rank-0.trace
'

test_expect_success 'ring: each Wait completes its Irecv with the real source, tag and size' '
	check_ring ring 4
'

test_expect_success 'ring: Allreduce lines; the end marker counts every call line' '
	calls MPI_Allreduce ring/rank-1.trace | cut -d: -f4- | sort | uniq -c >got &&
	echo "      4 1:3,8,8:3:0,1,4" >expect &&
	test_cmp expect got &&
	test "$(grep -c "^MPI_" ring/rank-1.trace)" = 20 &&
	grep -qx "# end 20 [0-9]*" ring/rank-1.trace &&
	! grep -q "^# uncovered" ring/rank-1.trace
'

test_expect_success 'ring on 2 ranks, compressed: complete traces' '
	allprof -q -z -o rz -- mpirun.mpich -n 2 "$MS/ring" 3 8 >rz.out &&
	for r in 0 1; do
		zstd -dqc rz/rank-$r.trace.zst >rz-$r.trace && complete rz-$r.trace || return 1
	done &&
	test "$(calls MPI_Wait rz-1.trace | cut -d: -f3 | tr "\n" " ")" = "0,0,8 0,1,8 0,2,8 "
'

test_expect_success 'pingpong on 2 ranks: size sweep, first-use and reused buffers' '
	mtraced pp 2 "$MS/pingpong" -n 3 -m 1024 -q &&
	check_pingpong pp
'

test_expect_success 'the linked library (-lallprof-mpich, ALLPROF_DIR) traces without the launcher' '
	ALLPROF_DIR=$TRASH/linked mpirun.mpich -n 2 "$MS/pingpong-linked" -n 1 -m 8 -q &&
	complete linked/rank-0.trace && complete linked/rank-1.trace &&
	test "$(calls MPI_Send linked/rank-1.trace | wc -l)" = 10
'

test_expect_success 'collectives on 4 ranks: complete, every collective recorded once per use' '
	mtraced co 4 "$MS/collectives" &&
	test "$(cat co.out)" = ok &&
	for r in 0 1 2 3; do complete co/rank-$r.trace && monotonic co/rank-$r.trace || return 1; done &&
	! grep -q "^# uncovered" co/rank-0.trace &&
	f=co/rank-1.trace &&
	for c in Bcast Reduce Gather Gatherv Scatter Scatterv Allgather Allgatherv Alltoall \
		 Alltoallv Alltoallw Reduce_scatter Reduce_scatter_block Scan Exscan Barrier; do
		test "$(grep -c "^MPI_$c:" $f)" = 4 &&
		test "$(grep -c "^MPI_I$(echo $c | tr A-Z a-z):" $f)" = 4 || { echo "$c"; return 1; }
	done &&
	test "$(grep -c "^MPI_Allreduce:" $f)" = 8 &&
	test "$(grep -c "^MPI_Iallreduce:" $f)" = 4
'

test_expect_success 'collectives: sub-communicators, count arrays, MPI_IN_PLACE' '
	printf "# comm 2 2,0\n# comm 3 0,1,2,3\n# comm 4 0,1,2,3\n# comm 5 0\n" >expect0 &&
	grep "^# comm [2-9]" co/rank-0.trace >got && test_cmp expect0 got &&
	calls MPI_Comm_split co/rank-1.trace | cut -d: -f2- >got &&
	printf "0,1,4:1:-1:2,1,2\n0,1,4:-1:0:-1,-1,0\n" >expect && test_cmp expect got &&
	calls MPI_Cart_create co/rank-3.trace | grep -qx "MPI_Cart_create:0,3,4:1:4:1:0:4,3,4" &&
	f=co/rank-1.trace &&
	calls MPI_Gatherv $f | head -n 1 | grep -q ":0:-:0:-:1,4,4:0:0,1,4$" &&
	calls MPI_Allreduce $f | sed -n 2p | grep -q "^MPI_Allreduce:-1:[0-9]*:1:1,4,4:2:0,1,4$" &&
	calls MPI_Alltoallw $f | head -n 1 | grep -q ":1,4,4;1,4,4;1,4,4;1,4,4:0,1,4$"
'

if test -x "$MS/fsample"; then
test_expect_success 'Fortran (use mpi) on 3 ranks: each call recorded exactly once' '
	fort=$(ldd "$MS/fsample" | awk "/libmpichfort\\.so/ { print \$3 }") &&
	nm -D --undefined-only "$fort" | grep -q " MPI_Send$" &&
	mtraced fo 3 "$MS/fsample" &&
	test "$(tr -d " " <fo.out)" = 3.0 &&
	for r in 0 1 2; do complete fo/rank-$r.trace || return 1; done &&
	f=fo/rank-1.trace &&
	grep "^MPI_" $f | cut -d: -f1 >got &&
	printf "%s\n" MPI_Init MPI_Comm_rank MPI_Comm_size \
		MPI_Irecv MPI_Isend MPI_Waitall MPI_Irecv MPI_Isend MPI_Waitall \
		MPI_Irecv MPI_Isend MPI_Waitall MPI_Recv MPI_Send MPI_Bcast MPI_Allreduce \
		MPI_Comm_split MPI_Barrier MPI_Comm_free MPI_Finalize >expect &&
	test_cmp expect got &&
	! grep -q "^# uncovered" $f &&
	grep -qx "# calls 20 records 20 collapsed 0 flushes 0" $f
'

test_expect_success 'Fortran: handles, statuses (also for MPI_STATUS_IGNORE) as from C' '
	f=fo/rank-1.trace &&
	calls MPI_Init $f | grep -qx "MPI_Init:0:0" &&
	calls MPI_Irecv $f | cut -d: -f3- >got &&
	printf "10:11,8,8:0:%d:0,1,3:r%d\n" 1 1 2 3 3 5 >expect && test_cmp expect got &&
	calls MPI_Waitall $f | cut -d: -f2,3 >got &&
	printf "2:r1,r2\n2:r3,r4\n2:r5,r6\n" >expect && test_cmp expect got &&
	calls MPI_Waitall $f | cut -d: -f4 | cut -d";" -f1 >got &&
	printf "0,1,80\n0,2,80\n0,3,80\n" >expect && test_cmp expect got &&
	calls MPI_Recv $f | grep -qx "MPI_Recv:[0-9]*:5:11,8,8:-1:-1:0,1,3:0,77,40" &&
	calls MPI_Recv fo/rank-0.trace | grep -qx "MPI_Recv:[0-9]*:5:11,8,8:2:77:0,0,3:2,77,40" &&
	calls MPI_Comm_split $f | grep -qx "MPI_Comm_split:0,1,3:1:1:2,0,1" &&
	calls MPI_Allreduce $f | grep -qx "MPI_Allreduce:[0-9]*:[0-9]*:1:11,8,8:3:0,1,3"
'
else
test_skip 'Fortran (use mpi) under MPICH' 'no mpif90.mpich'
fi

if test -x "$MS/fcover"; then
test_expect_success 'fcover on 3 ranks: the lines of the Open MPI golden files, once each' '
	mtraced fc 3 "$MS/fcover" &&
	test "$(cat fc.out)" = "6 16" &&
	for r in 0 1 2; do
		complete fc/rank-$r.trace && monotonic fc/rank-$r.trace &&
		norm fc/rank-$r.trace | nostat >got-$r &&
		nostat <"$TOP/tests/t5900-allprof-fortran/rank-$r" >expect-$r &&
		test_cmp expect-$r got-$r || return 1
	done
'

test_expect_success 'fcover: a cancelled wildcard receive reads as cancelled' '
	for r in 0 1 2; do
		calls MPI_Wait fc/rank-$r.trace | head -n 1 | grep -qx "MPI_Wait:r1:-1,-1,0" || return 1
	done
'
else
test_skip 'fcover under MPICH' 'no mpif90.mpich'
fi

# ---------------------------------------------------------------- replay

test_expect_success 'MPICH traces: converted by trace2goal, simulated by ibsim' '
	command -v trace2goal >/dev/null && command -v ibsim >/dev/null || return 0
	for d in ring pp co; do
		trace2goal $d >$d.goal && ibsim -q $d.goal >$d.tsv || { echo "$d"; return 1; }
	done &&
	test "$(grep -c "^[0-3]	" ring.tsv)" = 4 &&
	test "$(grep -c "^[0-3]	" co.tsv)" = 4 &&
	if test -d fo; then trace2goal fo | ibsim -q - >fo.tsv && test "$(grep -c "^[0-2]	" fo.tsv)" = 3; fi &&
	if test -d fc; then
		trace2goal fc >fc.goal 2>err ;
		grep -v "unknown call MPI_Intercomm_\(create\|merge\) (3 times)" err >other ;
		test ! -s other && ibsim -q fc.goal >fc.tsv && test "$(grep -c "^[0-2]	" fc.tsv)" = 3
	fi
'

# ---------------------------------------------------------------- side by side

if command -v mpirun.openmpi >/dev/null 2>&1 && test -x "$SAMPLES/ring"; then
test_expect_success 'side by side: the same samples under Open MPI and MPICH, the same lines' '
	# name, ranks, the MPICH traces made above (or -), arguments
	# (not nonblock or the wildcard samples: which request completes first depends on timing)
	for s in "ring 4 ring 4 100" "collectives 4 co" "fsample 3 fo" "datatypes 2 -" \
		 "persistent 2 - 4"; do
		set -- $s && n=$1 np=$2 m=$3 && shift 3 &&
		test -x "$SAMPLES/$n" && test -x "$MS/$n" || continue
		allprof -q -o o-$n -- mpirun.openmpi -np $np "$SAMPLES/$n" "$@" >o-$n.out &&
		if test "$m" = -; then
			m=m-$n &&
			allprof -q -o $m -- mpirun.mpich -n $np "$MS/$n" "$@" >$m.out
		fi &&
		test_cmp o-$n.out $m.out &&
		r=0 && while [ $r -lt $np ]; do
			norm o-$n/rank-$r.trace | nostat >o-$n-$r &&
			norm $m/rank-$r.trace | nostat >m-$n-$r &&
			test_cmp o-$n-$r m-$n-$r || { echo "$n rank $r"; return 1; }
			r=$((r + 1))
		done
	done
'
else
test_skip 'side by side with Open MPI' 'Open MPI or its samples absent'
fi
test_done
