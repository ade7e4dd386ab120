#!/bin/sh
# trace2goal: communicator creation (MPI_Comm_dup, _dup_with_info, _create, _split,
# _split_type) is a collective over the parent communicator: the members agree on a context
# id (docs/trace2goal.md section 5, "Communicator creation"). Open MPI's way by default
# (comm_split first gathers (color, key); then three allreduces of 4 bytes, each a binomial
# reduce to rank 0 and a broadcast), MPICH's (one recursive-doubling allreduce of 256 bytes),
# or none (local work, as Schedgen and trace2goal before it). End times derived by hand.
. "$(dirname "$0")/lib.sh"

P="-L 1000000 -o 100000 -g 0 -G 0 -O 0"
ends() { ibsim -q $P "$1" | awk '!/^#/ && $1 != "rank" { print $1, $2 }'; }

# two ranks: MPI_Init returns at 1000 us, the call runs from 1001 to 1002 us, MPI_Finalize
# at 1010 us: a gap calc of 1 us before the call, 8 us after it
mk() {
	mkdir -p "$1"
	for r in 0 1; do
		{
			echo "# allprof 1.0 trace format 1"
			echo "# rank: $r of 2"
			echo "MPI_Init:-:0:0:1000.000"
			echo "$2" | sed "s/RANK/$r/g"
			echo "# comm 2 0,1"
			echo "MPI_Finalize:1010.000:-"
			echo "# end 3 0"
		} >"$1/rank-$r.trace"
	done
}
mk dup "MPI_Comm_dup:1001.000:0,RANK,2:2,RANK,2:1002.000"
mk split "MPI_Comm_split:1001.000:0,RANK,2:0:RANK:2,RANK,2:1002.000"

test_expect_success 'Comm_dup, Open MPI: three rounds of reduce to rank 0 and broadcast' '
	trace2goal dup >d.goal &&
	test $(sed -n "/^rank 0/,/^}/p" d.goal | grep -c ": recv 4b from 1 tag 1073741824$") = 3 &&
	test $(sed -n "/^rank 0/,/^}/p" d.goal | grep -c ": send 4b to 1 tag 1073741824$") = 3 &&
	test $(sed -n "/^rank 1/,/^}/p" d.goal | grep -c ": send 4b to 0 tag 1073741824$") = 3 &&
	# a round: rank 1 sends at t (o = 0.1 us), rank 0 gets it at t + 1.1, is charged until
	# t + 1.2, sends until t + 1.3, rank 1 gets it at t + 2.3 and is charged until t + 2.4.
	# From 1 us: rank 0 done at 1 + 2 * 2.4 + 1.3 = 7.1 us, rank 1 at 1 + 3 * 2.4 = 8.2 us;
	# then the 8 us gap
	ends d.goal >got && printf "0 15100000\n1 16200000\n" >want && test_cmp want got
'

test_expect_success 'Comm_split, Open MPI: the allgather of (color, key) first' '
	trace2goal split >s.goal &&
	test $(sed -n "/^rank 1/,/^}/p" s.goal | grep -c ": send 8b to 0 ") = 1 &&
	# the exchange ends at 1 + 1.2 = 2.2 us on both; then the three rounds
	ends s.goal >got && printf "0 16300000\n1 17400000\n" >want && test_cmp want got
'

test_expect_success 'MPICH: one allreduce of the 256-byte context mask' '
	trace2goal --coll comm_create=mpich dup >m.goal &&
	test $(grep -c ": send 256b to " m.goal) = 2 &&
	# one exchange: both send at 1 us, charged until 2.2 us
	ends m.goal >got && printf "0 10200000\n1 10200000\n" >want && test_cmp want got
'

test_expect_success 'local, and --compat schedgen: no messages, the call time is computation' '
	trace2goal --coll comm_create=local dup >l.goal &&
	! grep -q "send\|recv" l.goal &&
	ends l.goal >got && printf "0 10000000\n1 10000000\n" >want && test_cmp want got &&
	trace2goal --compat schedgen dup >c.goal && ! grep -q "send\|recv" c.goal &&
	trace2goal --coll comm_split=local split >ls.goal && ! grep -q "send\|recv" ls.goal
'

test_expect_success '--durations at zero cost replays the call whole; --sync too' '
	printf "L = 0\no = 0\ng = 0\nG = 0\nO = 0\n" >zero.params &&
	trace2goal -p zero.params --durations dup >z.goal &&
	ibsim -q -L 0 -o 0 -g 0 -G 0 -O 0 z.goal | awk "!/^#/ && \$1 != \"rank\" { print \$1, \$2 }" >got &&
	printf "0 10000000\n1 10000000\n" >want && test_cmp want got &&
	trace2goal -p zero.params --durations --sync dup >zs.goal &&
	ibsim -q -L 0 -o 0 -g 0 -G 0 -O 0 zs.goal | awk "!/^#/ && \$1 != \"rank\" { print \$1, \$2 }" >got &&
	test_cmp want got
'

# nbc_o (formats/params.md): Open MPI's three allreduces are libnbc'"'"'s nonblocking ones, each
# nbc_o beyond its messages: 3 * 0.5 us more computation before the messages, on both ranks
test_expect_success 'nbc_o: Open MPI'"'"'s creation pays it three times, MPICH'"'"'s and --durations not' '
	printf "L = 1us\no = 100ns\ng = 0\nG = 0\nO = 0\nnbc_o = 500ns\n" >nbc.params &&
	printf "L = 1us\no = 100ns\ng = 0\nG = 0\nO = 0\n" >nonbc.params &&
	trace2goal -p nbc.params dup >n.goal && trace2goal -p nonbc.params dup >n0.goal &&
	grep -q "^l[0-9]*: calc 2500000\$" n.goal && grep -q "^l[0-9]*: calc 1000000\$" n0.goal &&
	! grep -q "^l[0-9]*: calc 2500000\$" n0.goal &&
	ends n.goal >got && printf "0 16600000\n1 17700000\n" >want && test_cmp want got &&
	trace2goal -p nbc.params split >ns.goal &&
	ends ns.goal >got && printf "0 17800000\n1 18900000\n" >want && test_cmp want got &&
	trace2goal -p nbc.params --coll comm_create=mpich dup >nm.goal &&
	trace2goal -p nonbc.params --coll comm_create=mpich dup >nm0.goal && test_cmp nm0.goal nm.goal &&
	trace2goal -p nbc.params --durations dup >nd.goal &&
	trace2goal -p nonbc.params --durations dup >nd0.goal && test_cmp nd0.goal nd.goal
'

test_expect_success 'the nonblocking form of communicator creation is not a --coll name' '
	expect_fail 2 trace2goal --coll icomm_create=ompi dup &&
	grep -q "unknown collective .icomm_create." err &&
	expect_fail 2 trace2goal --coll comm_split=ring dup &&
	grep -q "comm_split has no algorithm .ring. (available: ompi, mpich, local)" err
'

test_done
