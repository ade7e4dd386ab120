#!/bin/sh
# allprof: the Fortran entry points beyond the common ones (samples/apps/fcover.f90 at 3
# ranks): Sendrecv_replace, Cancel, Pcontrol, the matched probes, every nonblocking
# collective with its v/w variants, Alltoallw, the neighbourhood collectives, the topology
# constructors, the communicator and group calls and the datatype constructors. Each trace
# is checked line by line (golden files tests/t5900-allprof-fortran/rank-<r>: call lines
# without times, addresses (numbers of 6 digits or more) as A, unsuccessful Improbe polls
# left out), then by what the program did, then converted by trace2goal and simulated.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi
[ -x "$SAMPLES/fcover" ] || skip_all "fcover not built (no mpif90)"

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

test_expect_success 'fcover on 3 ranks: runs, traces complete and monotonic' '
	traced fc 3 "$SAMPLES/fcover" &&
	test "$(cat fc.out)" = "6 16" &&
	for r in 0 1 2; do complete fc/rank-$r.trace && monotonic fc/rank-$r.trace || return 1; done
'

for r in 0 1 2; do
	test_expect_success "fcover rank $r: every call line as the program made it" "
		norm fc/rank-$r.trace >got-$r &&
		test_golden rank-$r got-$r
	"
done

test_expect_success 'every new entry point is recorded, as often as the program calls it' '
	f=fc/rank-1.trace &&
	for c in Sendrecv_replace Cancel Mprobe Mrecv Imrecv Igather Igatherv Iscatter \
		 Iscatterv Iallgather Iallgatherv Ialltoall Ialltoallv Ialltoallw Alltoallw Iscan \
		 Iexscan Ireduce_scatter Ireduce_scatter_block Neighbor_allgather \
		 Neighbor_alltoall Neighbor_allgatherv Neighbor_alltoallv Neighbor_alltoallw \
		 Ineighbor_allgather Ineighbor_alltoall Ineighbor_allgatherv Ineighbor_alltoallv \
		 Ineighbor_alltoallw Cart_sub Graph_create Dist_graph_create_adjacent \
		 Dist_graph_create Comm_dup_with_info Comm_idup Comm_create_group Comm_group \
		 Group_incl Group_excl Group_range_incl Group_range_excl Group_union \
		 Group_intersection Group_difference Intercomm_create Intercomm_merge \
		 Type_contiguous Type_vector Type_create_hvector Type_indexed Type_create_hindexed \
		 Type_create_indexed_block Type_create_hindexed_block Type_create_struct \
		 Type_create_subarray Type_create_resized Type_dup Type_size; do
		n=$(grep -c "^MPI_$c:" $f)
		test "$n" = 1 || { echo "MPI_$c: $n lines"; return 1; }
	done &&
	test "$(grep -c "^MPI_Pcontrol:" $f)" = 2 &&
	test "$(grep -c "^MPI_Cart_create:" $f)" = 2 &&
	test "$(grep -c "^MPI_Group_free:" $f)" = 8 &&
	test "$(grep -c "^MPI_Type_free:" $f)" = 11 &&
	test "$(grep -c "^MPI_Comm_free:" $f)" = 12 &&
	test "$(grep -c "^MPI_Improbe:.*:1:m[0-9]*:" $f)" = 1 &&
	! grep -q "^MPI_Comm_create_group:" fc/rank-2.trace
'

test_expect_success 'point to point: statuses, message numbers, cancelled request' '
	for r in 0 1 2; do
		f=fc/rank-$r.trace
		left=$(( (r + 2) % 3 )) right=$(( (r + 1) % 3 ))
		calls MPI_Sendrecv_replace $f | grep -qx "MPI_Sendrecv_replace:[0-9]*:4:2,4,4:$right:1:$left:1:0,$r,3:$left,1,16" &&
		calls MPI_Pcontrol $f | cut -d: -f2 | tr "\n" " " | grep -qx "1 0 " &&
		rid=$(calls MPI_Irecv $f | cut -d: -f8) &&
		calls MPI_Cancel $f | grep -qx "MPI_Cancel:$rid" &&
		calls MPI_Wait $f | head -n 1 | grep -q "^MPI_Wait:$rid:" &&
		m=$(calls MPI_Mprobe $f | grep "^MPI_Mprobe:$left:2:0,$r,3:m[1-9][0-9]*:$left,2,8$" | cut -d: -f5) &&
		calls MPI_Mrecv $f | grep -qx "MPI_Mrecv:[0-9]*:2:2,4,4:$m:$left,2,8" &&
		m=$(calls MPI_Improbe $f | grep ":1:m" | cut -d: -f6) &&
		calls MPI_Improbe $f | grep -qx "MPI_Improbe:$left:3:0,$r,3:1:$m:$left,3,12:1" &&
		calls MPI_Imrecv $f | grep -q "^MPI_Imrecv:[0-9]*:3:2,4,4:$m:r[1-9][0-9]*$" &&
		test "$m" != "$(calls MPI_Mrecv $f | cut -d: -f5)" || { echo "rank $r"; return 1; }
	done
'

test_expect_success 'nonblocking collectives: v/w lists, roots, each request waited for' '
	f=fc/rank-0.trace &&
	calls MPI_Igatherv $f | grep -q "^MPI_Igatherv:[0-9]*:1:2,4,4:[0-9]*:[0-9]*:1,1,1:[0-9]*:0,1,2:2,4,4:0:0,0,3:r" &&
	calls MPI_Igatherv fc/rank-1.trace | grep -q ":0:-:0:-:2,4,4:0:0,1,3:r" &&
	calls MPI_Ialltoallw $f | grep -q ":1,1,1:[0-9]*:0,4,8:[0-9]*:2,4,4;2,4,4;2,4,4:.*:0,0,3:r" &&
	calls MPI_Alltoallw $f | grep -q ":1,1,1:[0-9]*:0,4,8:[0-9]*:2,4,4;2,4,4;2,4,4:.*:0,0,3$" &&
	calls MPI_Ireduce_scatter $f | grep -q ":1,1,1:2,4,4:3:0,0,3:r" &&
	for r in 0 1 2; do
		awk -F: "/^MPI_I[a-z]*(gather|scatter|all|scan|exscan|reduce|neighbor)/ { want[\$(NF-1)] = \$1 }
			 /^MPI_Wait:/ { delete want[\$3] }
			 /^MPI_Waitall:/ { n = split(\$4, a, \",\"); for (i = 1; i <= n; i++) delete want[a[i]] }
			 END { for (k in want) { print \"not waited: \" want[k] \" \" k; bad = 1 } exit bad }" \
			fc/rank-$r.trace || return 1
	done
'

test_expect_success 'topologies: neighbour lists sized by the ring, logicals as 0/1' '
	f=fc/rank-2.trace &&
	calls MPI_Cart_create $f | head -n 1 | grep -qx "MPI_Cart_create:0,2,3:1:3:1:0:[0-9]*,2,3" &&
	c=$(calls MPI_Cart_create $f | head -n 1 | cut -d: -f7 | cut -d, -f1) &&
	calls MPI_Neighbor_alltoallv $f | grep -q ":1,1:[0-9]*:0,1:2,4,4:[0-9]*:[0-9]*:1,1:[0-9]*:0,1:2,4,4:$c,2,3$" &&
	calls MPI_Neighbor_alltoallw $f | grep -q ":0,4:[0-9]*:2,4,4;2,4,4:.*:$c,2,3$" &&
	calls MPI_Cart_create $f | tail -n 1 | grep -qx "MPI_Cart_create:0,2,3:2:3,1:0,1:1:[0-9]*,2,3" &&
	calls MPI_Cart_sub $f | grep -qx "MPI_Cart_sub:[0-9]*,2,3:1,0:[0-9]*,2,3" &&
	calls MPI_Graph_create $f | grep -qx "MPI_Graph_create:0,2,3:3:2,4,6:1,2,0,2,0,1:0:[0-9]*,2,3" &&
	calls MPI_Dist_graph_create_adjacent $f | grep -qx "MPI_Dist_graph_create_adjacent:0,2,3:2:1,0:2:1,0:0:[0-9]*,2,3" &&
	calls MPI_Dist_graph_create $f | grep -qx "MPI_Dist_graph_create:0,2,3:1:2:1:0:0:[0-9]*,2,3"
'

test_expect_success 'groups and communicators: members, sizes, new numbers' '
	f=fc/rank-0.trace &&
	calls MPI_Group_incl $f | grep -qx "MPI_Group_incl:g\([0-9]*\),3:2:0,1:g[0-9]*,2" &&
	calls MPI_Group_range_incl $f | grep -qx "MPI_Group_range_incl:g[0-9]*,3:1:0,2,2:g[0-9]*,2" &&
	calls MPI_Group_range_excl $f | grep -qx "MPI_Group_range_excl:g[0-9]*,3:1:0,2,2:g[0-9]*,1" &&
	calls MPI_Group_union $f | grep -qx "MPI_Group_union:g[0-9]*,2:g[0-9]*,2:g[0-9]*,3" &&
	calls MPI_Group_difference $f | grep -qx "MPI_Group_difference:g[0-9]*,2:g[0-9]*,2:g[0-9]*,1" &&
	calls MPI_Comm_create_group $f | grep -qx "MPI_Comm_create_group:0,0,3:5:[0-9]*,0,2" &&
	calls MPI_Intercomm_merge fc/rank-1.trace | grep -qx "MPI_Intercomm_merge:[0-9]*,0,1:1:[0-9]*,2,3" &&
	calls MPI_Intercomm_merge $f | grep -qx "MPI_Intercomm_merge:[0-9]*,0,2:0:[0-9]*,0,3" &&
	d=$(calls MPI_Comm_dup_with_info $f | cut -d: -f3 | cut -d, -f1) &&
	calls MPI_Comm_idup $f | grep -qx "MPI_Comm_idup:$d,0,3:[0-9]*,0,3:r[0-9]*" &&
	grep -q "^# comm $d 0,1,2$" $f
'

test_expect_success 'datatypes: constructors number the types, sizes and extents are MPI'"'"'s' '
	f=fc/rank-1.trace &&
	calls MPI_Type_contiguous $f | grep -qx "MPI_Type_contiguous:3:2,4,4:1000,12,12" &&
	calls MPI_Type_vector $f | grep -qx "MPI_Type_vector:2:1:2:2,4,4:1001,8,12" &&
	calls MPI_Type_create_hvector $f | grep -qx "MPI_Type_create_hvector:2:1:8:2,4,4:1002,8,12" &&
	calls MPI_Type_indexed $f | grep -qx "MPI_Type_indexed:2:1,2:0,3:2,4,4:1003,12,20" &&
	calls MPI_Type_create_hindexed $f | grep -qx "MPI_Type_create_hindexed:2:1,2:[0-9]*:0,12:2,4,4:1004,12,20" &&
	calls MPI_Type_create_indexed_block $f | grep -qx "MPI_Type_create_indexed_block:2:2:0,4:2,4,4:1005,16,24" &&
	calls MPI_Type_create_struct $f | grep -qx "MPI_Type_create_struct:2:1,1:[0-9]*:0,16:[0-9]*:1001,8,12;11,8,8:1007,16,24" &&
	calls MPI_Type_create_subarray $f | grep -qx "MPI_Type_create_subarray:2:4,3:2,2:1,0:1:2,4,4:1008,16,48" &&
	calls MPI_Type_create_resized $f | grep -qx "MPI_Type_create_resized:1000,12,12:0:16:1009,12,16" &&
	calls MPI_Type_dup $f | grep -qx "MPI_Type_dup:1009,12,16:1010,12,16" &&
	calls MPI_Type_size $f | grep -qx "MPI_Type_size:1007,16,24:16" &&
	calls MPI_Sendrecv $f | grep -q "^MPI_Sendrecv:[0-9]*:2:1010,12,16:2:9:[0-9]*:6:2,4,4:0:9:0,1,3:0,9,24$" &&
	calls MPI_Type_free $f | cut -d: -f2 | cut -d, -f1 >got &&
	seq 1010 -1 1000 >expect &&
	test_cmp expect got
'

test_expect_success 'fcover traces: converted by trace2goal, simulated by ibsim' '
	trace2goal fc >fc.goal 2>err &&
	grep -v "unknown call MPI_Intercomm_\(create\|merge\) (3 times)" err >other ;
	test ! -s other &&
	ibsim -q fc.goal >fc.tsv &&
	test "$(grep -c "^[012]	" fc.tsv)" = 3
'

test_done
