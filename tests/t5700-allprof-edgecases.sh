#!/bin/sh
# allprof: the MPI corner cases (samples/apps/edgecases.c at 3 ranks: zero counts,
# MPI_STATUS(ES)_IGNORE, MPI_PROC_NULL, MPI_REQUEST_NULL alone and in arrays, MPI_BOTTOM with
# absolute-address datatypes, derived datatypes, MPI_IN_PLACE, zero-count collectives) and
# MPI_THREAD_MULTIPLE (samples/apps/threads.c), and Fortran corner cases
# (samples/apps/fedge.f90): traces checked line by line against what the
# programs did, converted by trace2goal and simulated by ibsim.
# The golden files tests/t5700-allprof-edgecases/rank-<r> hold every call line of each rank
# with both times removed and addresses (numbers of 6 digits or more) written as A; unsuccessful polls,
# whose number depends on timing, are left out of them and checked apart.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi
[ -x "$SAMPLES/edgecases" ] || skip_all "edgecases not built"

# norm FILE: call lines without times, addresses as A; '# comm' and '# uncovered' lines kept;
# unsuccessful polls (flag 0, outcount 0) dropped
norm() {
	awk -F: -v OFS=: '
	/^# (comm|uncovered) / { print; next }
	/^#/ { next }
	$1 == "MPI_Test" && $4 == 0 { next }
	($1 == "MPI_Testall" || $1 == "MPI_Testany") && $(NF - 3) == 0 { next }
	$1 == "MPI_Testsome" && $5 == 0 { next }
	$1 == "MPI_Iprobe" && $6 == 0 { next }
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

test_expect_success 'edgecases on 3 ranks: runs, traces complete and monotonic' '
	traced ec 3 "$SAMPLES/edgecases" &&
	test "$(wc -l <ec.out)" = 24 &&
	for r in 0 1 2; do complete ec/rank-$r.trace && monotonic ec/rank-$r.trace || return 1; done
'

for r in 0 1 2; do
	test_expect_success "edgecases rank $r: every call line as the program made it" "
		norm ec/rank-$r.trace >got-$r &&
		test_golden rank-$r got-$r
	"
done

test_expect_success 'statuses in the trace are what the program saw (where it passed one)' '
	for r in 0 1 2; do
		awk -F: -v r=$r "
		function st(s, what,  a) { split(s, a, \",\"); print r, what, a[1], a[2], a[3] }
		\$1 == \"MPI_Recv\" { nr++; if (nr == 1) st(\$(NF - 1), \"recv0\"); if (nr == 3) st(\$(NF - 1), \"recv-procnull\") }
		\$1 == \"MPI_Sendrecv\" { ns++; if (ns == 2) st(\$(NF - 1), \"sendrecv-procnull\");
			if (ns == 3) st(\$(NF - 1), \"sendrecv-bottom\"); if (ns == 4) st(\$(NF - 1), \"sendrecv-derived\");
			if (ns == 5) st(\$(NF - 1), \"sendrecv-derived-int\") }
		\$1 == \"MPI_Probe\" { st(\$(NF - 1), \"probe-procnull\") }
		\$1 == \"MPI_Wait\" && \$3 == \"r0\" { st(\$(NF - 1), \"wait-null\") }
		" ec/rank-$r.trace | sort >got &&
		grep "^$r " ec.out | sort >expect &&
		test_cmp expect got || return 1
	done
'

test_expect_success 'MPI_STATUS(ES)_IGNORE: the trace still has what was received' '
	calls MPI_Recv ec/rank-1.trace | sed -n 2p | grep -q ":8:1,4,4:0:2:0,1,3:0,2,12$" &&
	calls MPI_Sendrecv ec/rank-1.trace | sed -n 1p | grep -q ":0,1,3:0,3,8$" &&
	calls MPI_Waitall ec/rank-0.trace | grep -qx "MPI_Waitall:3:r3,r0,r4:1,8,16;-1,-1,0;-2,-1,0" &&
	calls MPI_Waitsome ec/rank-0.trace | grep -qx "MPI_Waitsome:2:r0,r5:1:1:1,9,8" &&
	calls MPI_Waitany ec/rank-0.trace | grep -qx "MPI_Waitany:2:r0,r6:1:1,10,4" &&
	calls MPI_Testall ec/rank-0.trace | grep -qx "MPI_Testall:2:r7,r0:1:1,11,4;-1,-1,0:1" &&
	calls MPI_Testsome ec/rank-0.trace | grep -qx "MPI_Testsome:2:r8,r0:1:0:1,12,4:1" &&
	calls MPI_Iprobe ec/rank-0.trace | grep -qx "MPI_Iprobe:-2:7:0,0,3:1:-2,-1,0:1"
'

test_expect_success 'MPI_REQUEST_NULL: r0, empty statuses, MPI_UNDEFINED as -1' '
	calls MPI_Wait ec/rank-2.trace | grep -qx "MPI_Wait:r0:-1,-1,0" &&
	calls MPI_Test ec/rank-2.trace | grep -qx "MPI_Test:r0:1:-1,-1,0:1" &&
	calls MPI_Waitany ec/rank-2.trace | grep -qx "MPI_Waitany:3:r0,r0,r0:-1:-1,-1,0" &&
	calls MPI_Waitsome ec/rank-2.trace | grep -qx "MPI_Waitsome:3:r0,r0,r0:-1:-:-" &&
	calls MPI_Testany ec/rank-2.trace | grep -qx "MPI_Testany:3:r0,r0,r0:-1:1:-1,-1,0:1" &&
	calls MPI_Testsome ec/rank-2.trace | grep -qx "MPI_Testsome:3:r0,r0,r0:-1:-:-:1"
'

test_expect_success 'MPI_PROC_NULL: peer -2, status -2,-1,0, requests numbered as usual' '
	calls MPI_Send ec/rank-2.trace | cut -d: -f5 | sort -u >got &&
	echo -2 >expect && test_cmp expect got &&
	calls MPI_Recv ec/rank-2.trace | cut -d: -f5,8 | sort -u >got &&
	echo "-2:-2,-1,0" >expect && test_cmp expect got &&
	calls MPI_Isend ec/rank-2.trace | cut -d: -f8 >got &&
	printf "r2\nr4\n" >expect && test_cmp expect got
'

test_expect_success 'MPI_BOTTOM and absolute-address datatypes: buffer 0, real sizes' '
	calls MPI_Sendrecv ec/rank-0.trace | sed -n 3p |
		grep -qx "MPI_Sendrecv:0:1:1000,12,16:1:13:0:1:1001,12,16:1:13:0,0,3:1,13,12"
'

test_expect_success 'derived datatypes: sizes, extents, bytes received' '
	calls MPI_Type_contiguous ec/rank-1.trace | grep -qx "MPI_Type_contiguous:2:1003,24,48:1004,48,96" &&
	calls MPI_Type_size ec/rank-1.trace | grep -qx "MPI_Type_size:1004,48,96:48" &&
	calls MPI_Sendrecv ec/rank-1.trace | sed -n 4p | grep -q ":1:1004,48,96:0:14:0,1,3:0,14,48$"
'

test_expect_success 'MPI_IN_PLACE is -1 where the program passed it, an address elsewhere' '
	for c in Allreduce Allgather Alltoall Alltoallv Reduce_scatter_block Scan Exscan Iallreduce; do
		for r in 0 1 2; do
			test "$(calls MPI_$c ec/rank-$r.trace | head -n 1 | cut -d: -f2)" = -1 || return 1
		done
	done &&
	calls MPI_Reduce ec/rank-0.trace | cut -d: -f2 | grep -qx -- -1 &&
	calls MPI_Reduce ec/rank-1.trace | cut -d: -f2 | grep -qx "[0-9]\{6,\}" &&
	calls MPI_Gather ec/rank-0.trace | cut -d: -f2 | grep -qx -- -1 &&
	calls MPI_Scatter ec/rank-0.trace | cut -d: -f5 | grep -qx -- -1 &&
	calls MPI_Scatter ec/rank-2.trace | cut -d: -f5 | grep -qx "[0-9]\{6,\}" &&
	calls MPI_Alltoallv ec/rank-1.trace | grep -q "^MPI_Alltoallv:-1:0:-:0:-:0,0,0:"
'

test_expect_success 'groups: numbered in creation order with their sizes, MPI_GROUP_EMPTY g1' '
	calls MPI_Comm_group ec/rank-1.trace | grep -qx "MPI_Comm_group:0,1,3:g2,3" &&
	calls MPI_Group_incl ec/rank-1.trace | grep -qx "MPI_Group_incl:g2,3:2:0,2:g3,2" &&
	calls MPI_Group_excl ec/rank-1.trace | grep -qx "MPI_Group_excl:g2,3:2:0,2:g4,1" &&
	calls MPI_Group_range_incl ec/rank-1.trace | grep -qx "MPI_Group_range_incl:g2,3:1:0,2,2:g5,2" &&
	calls MPI_Group_union ec/rank-1.trace | grep -qx "MPI_Group_union:g3,2:g4,1:g6,3" &&
	calls MPI_Group_intersection ec/rank-1.trace | grep -qx "MPI_Group_intersection:g3,2:g4,1:g1,0" &&
	calls MPI_Group_difference ec/rank-1.trace | grep -qx "MPI_Group_difference:g6,3:g5,2:g7,1" &&
	calls MPI_Group_free ec/rank-1.trace | cut -d: -f2 | tr "\n" " " >got &&
	printf "g7,1 g1,0 g6,3 g5,2 g4,1 g3,2 g2,3 " >expect && test_cmp expect got &&
	calls MPI_Comm_create ec/rank-1.trace | grep -qx "MPI_Comm_create:0,1,3:-1,-1,0" &&
	calls MPI_Comm_create ec/rank-2.trace | grep -qx "MPI_Comm_create:0,2,3:2,1,2" &&
	grep -A1 "^MPI_Comm_create:" ec/rank-2.trace | grep -qx "# comm 2 0,2"
'

test_expect_success 'MPI_Comm_idup: numbered at the call, its request completed by a Wait' '
	for r in 0 1 2; do
		f=ec/rank-$r.trace &&
		line=$(calls MPI_Comm_idup $f) &&
		id=$(echo "$line" | cut -d: -f3 | cut -d, -f1) &&
		req=$(echo "$line" | cut -d: -f4) &&
		test "$line" = "MPI_Comm_idup:0,$r,3:$id,$r,3:$req" &&
		grep -A1 "^MPI_Comm_idup:" $f | grep -qx "# comm $id 0,1,2" &&
		calls MPI_Wait $f | tail -n 1 | grep -qx "MPI_Wait:$req:.*" &&
		calls MPI_Allreduce $f | tail -n 1 | grep -q ":$id,$r,3$" &&
		calls MPI_Comm_free $f | tail -n 1 | grep -qx "MPI_Comm_free:$id,$r,3" || return 1
	done &&
	! grep -q "^# uncovered MPI_\(Comm_idup\|Comm_group\|Group_\)" ec/rank-0.trace
'

test_expect_success 'edgecases: converted by trace2goal, simulated by ibsim, no warnings' '
	trace2goal ec >ec.goal 2>err &&
	test ! -s err &&
	ibsim -q ec.goal >ec.tsv &&
	trace2goal --durations --sync ec >ecs.goal 2>err &&
	test ! -s err &&
	ibsim -q ecs.goal >ecs.tsv
'

# ---- Fortran (samples/apps/fedge.f90) ----
if [ -x "$SAMPLES/fedge" ]; then
	test_expect_success 'Fortran corner cases on 3 ranks: traced, complete' '
		traced fe 3 "$SAMPLES/fedge" &&
		test "$(tr -d " " <fe.out)" = 6.0 &&
		for r in 0 1 2; do complete fe/rank-$r.trace || return 1; done
	'
	for r in 0 1 2; do
		test_expect_success "Fortran rank $r: every call line as the program made it" "
			norm fe/rank-$r.trace >fgot-$r &&
			test_golden fortran-rank-$r fgot-$r
		"
	done
	test_expect_success 'Fortran: MPI_IN_PLACE -1, ignored statuses filled, new entry points recorded' '
		f=fe/rank-1.trace &&
		calls MPI_Allreduce $f | grep -q "^MPI_Allreduce:-1:" &&
		calls MPI_Iallreduce $f | grep -q "^MPI_Iallreduce:-1:.*:r1$" &&
		calls MPI_Reduce_scatter_block $f | grep -q "^MPI_Reduce_scatter_block:-1:" &&
		calls MPI_Waitall $f | sort -u | grep -qx "MPI_Waitall:2:r5,r6:1,5,16;0,5,16" &&
		calls MPI_Comm_split_type $f | grep -qx "MPI_Comm_split_type:0,1,3:0:1:2,1,3" &&
		calls MPI_Type_commit $f | grep -qx "MPI_Type_commit:1000,16,24" &&
		calls MPI_Ssend_init $f | grep -q ":1:1000,16,24:0:5:0,1,3:r5$" &&
		for c in Ibarrier Ibcast Ireduce; do
			test "$(calls MPI_$c $f | wc -l)" = 1 || return 1
		done
	'
	test_expect_success 'Fortran: converted by trace2goal, simulated by ibsim' '
		trace2goal fe >fe.goal 2>err && test ! -s err &&
		ibsim -q fe.goal >fe.tsv
	'
else
	test_skip 'Fortran corner cases' 'fedge not built (no mpif90)'
fi

# ---- MPI_THREAD_MULTIPLE ----
ITER=60
test_expect_success 'threads on 3 ranks under allprof' '
	traced th 3 "$SAMPLES/threads" $ITER &&
	grep -qx "provided [0-9]" th.out
'
if grep -qx "no MPI_THREAD_MULTIPLE" th.out 2>/dev/null; then
	test_skip 'threads: traces' 'MPI_THREAD_MULTIPLE not granted'
else
	test_expect_success 'threads: complete, locked, t_return never goes back, every line whole' '
		for r in 0 1 2; do
			f=th/rank-$r.trace &&
			complete $f && monotonic $f &&
			grep -qx "# thread level: 3 (locked)" $f &&
			calls MPI_Init_thread $f | grep -qx "MPI_Init_thread:[0-9]*:[0-9]*:3:3" &&
			grep "^MPI_" $f | grep -v "^MPI_Init_thread:" | grep -Ecv \
"^MPI_(Send:[0-9.]+:[0-9]+:1:1,4,4:(1|0|-2):1[0-9]{3}:0,$r,3|Recv:[0-9.]+:[0-9]+:1:1,4,4:(1|0|-2):1[0-9]{3}:0,$r,3:-?[0-9]+,-?[0-9]+,[0-9]+|\
Irecv:[0-9.]+:[0-9]+:[0-9]+:1,4,4:(1|0|-2):2[0-9]{3}:0,$r,3:r[0-9]+|Isend:[0-9.]+:[0-9]+:[0-9]+:1,4,4:(1|0|-2):2[0-9]{3}:0,$r,3:r[0-9]+|\
Waitall:[0-9.]+:2:r[0-9]+,r[0-9]+:-?[0-9]+,-?[0-9]+,[0-9]+;-?[0-9]+,-?[0-9]+,[0-9]+|Comm_rank:[0-9.]+:0,$r,3:[0-9]+|Comm_size:[0-9.]+:0,$r,3:[0-9]+|\
Barrier:[0-9.]+:0,$r,3|Finalize:[0-9.]+):[0-9.]+\$" >bad;
			test "$(cat bad)" = 0 || { echo "rank $r: $(cat bad) malformed lines"; return 1; }
		done
	'
	test_expect_success 'threads: each call once per iteration, Recv statuses right' '
		for r in 0 1 2; do
			f=th/rank-$r.trace && p=$(( r ^ 1 )) && { [ $p -lt 3 ] || p=-2; } &&
			for c in Send Recv Irecv Isend Waitall; do
				test "$(calls MPI_$c $f | wc -l)" = $ITER || { echo "rank $r: MPI_$c"; return 1; }
			done &&
			calls MPI_Send $f | cut -d: -f6 >got &&
			seq 1000 $((1000 + ITER - 1)) >expect && test_cmp expect got &&
			calls MPI_Recv $f | cut -d: -f5,6,8 >got &&
			if [ $p = -2 ]; then
				seq 1000 $((1000 + ITER - 1)) | sed "s/.*/-2:&:-2,-1,0/" >expect
			else
				seq 1000 $((1000 + ITER - 1)) | sed "s/.*/$p:&:$p,&,4/" >expect
			fi &&
			test_cmp expect got || return 1
		done
	'
	test_expect_success 'threads: request ids unique; each Waitall completes its own pair' '
		for r in 0 1 2; do
			awk -F: -v peer=$(( (r ^ 1) < 3 ? r ^ 1 : -2 )) "
			\$1 == \"MPI_Irecv\" { if (\$9 in seen) bad = bad \" dup \" \$9; seen[\$9] = 1; rtag[\$9] = \$7; rn[\$9] = \$4 }
			\$1 == \"MPI_Isend\" { if (\$9 in seen) bad = bad \" dup \" \$9; seen[\$9] = 1; stag[\$9] = \$7 }
			\$1 == \"MPI_Waitall\" {
				split(\$4, id, \",\"); split(\$5, st, \";\")
				if (!(id[1] in rtag) || !(id[2] in stag) || rtag[id[1]] != stag[id[2]]) bad = bad \" pair \" \$4
				want = peer < 0 ? \"-2,-1,0\" : peer \",\" rtag[id[1]] \",\" 4 * rn[id[1]]
				if (st[1] != want) bad = bad \" status \" st[1] \"!=\" want
				done[id[1]]++; done[id[2]]++
			}
			END { for (k in seen) if (done[k] != 1) bad = bad \" done \" k; if (bad != \"\") { print bad; exit 1 } }
			" th/rank-$r.trace || return 1
		done
	'
	# The lines carry no thread: in rare interleavings the one-thread replay waits for a
	# message the peer sends only after a receive this rank makes later (formats/trace.md
	# section 6). ibsim must then say so (a deadlock report naming a posted receive), not
	# fail in any other way.
	test_expect_success 'threads: converted by trace2goal and simulated by ibsim' '
		trace2goal -q th >th.goal &&
		{ ibsim -q th.goal >th.tsv 2>th.err; rc=$?; } &&
		if [ $rc = 0 ]; then
			test "$(grep -c "^[0-2]	" th.tsv)" = 3 && test ! -s th.err
		else
			test $rc = 1 && grep -q "^ibsim: deadlock: " th.err &&
			grep -q "^ibsim: rank [0-2]: recv .* is posted; no message matches it" th.err &&
			echo "# the replay of this interleaving deadlocks (formats/trace.md section 6)"
		fi
	'
fi
test_done
