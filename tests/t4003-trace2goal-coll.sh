#!/bin/sh
# trace2goal: every collective and every algorithm, on synthetic liballprof traces of
# 1, 2, 3, 5 and 8 ranks: the schedule must simulate to completion in ibsim (every
# message received, no deadlock) and move exactly the bytes the algorithm needs.
. "$(dirname "$0")/lib.sh"

# gen P NAME ARGS: one trace per rank, ARGS with R replaced by the rank and P by the size
gen() {
	p=$1 name=$2 args=$3
	rm -rf tr && mkdir tr
	r=0
	while [ $r -lt "$p" ]; do
		a=$(printf '%s' "$args" | sed "s/@R/$r/g; s/@P/$p/g")
		{
			echo "# htor's PMPI Tracer 0.9 Output File"
			echo "MPI_Init:-:1:2:1000000"
			echo "MPI_$name:1000010:$a:1000020"
			echo "MPI_Finalize:1000030:-"
		} >tr/t-$r.txt
		r=$((r + 1))
	done
}

log2c() { n=1 k=0; while [ $n -lt "$1" ]; do n=$((n * 2)); k=$((k + 1)); done; echo $k; }
pof2() { n=1; while [ $((n * 2)) -le "$1" ]; do n=$((n * 2)); done; echo $n; }
list() { i=0 out=; while [ $i -lt "$1" ]; do out="$out${out:+,}$2"; i=$((i + 1)); done; echo "$out"; }
# counts i+1 for rank i, and their sum times 4 bytes
vlist() { i=0 out=; while [ $i -lt "$1" ]; do out="$out${out:+,}$((i + 1))"; i=$((i + 1)); done; echo "$out"; }
vsum() { echo $(( $1 * ($1 + 1) / 2 * 4 )); }

# expected total bytes for KIND ALG P (s = 40 bytes; blocks of v-variants (i+1)*4), or "any"
expect() {
	k=$1 a=$2 p=$3 s=40 l=$(log2c "$3")
	case "$k:$a" in
	barrier:dissemination) echo $((p * l)) ;;
	barrier:linear) echo $((2 * (p - 1))) ;;
	bcast:*|reduce:*) echo $(((p - 1) * s)) ;;
	allreduce:ring|allreduce:reduce_bcast) echo $((2 * (p - 1) * s)) ;;
	allreduce:dissemination|allgather:dissemination) echo $((p * l * s)) ;;
	allreduce:recdoub) q=$(pof2 "$p"); echo $((q * $(log2c "$q") * s + 2 * (p - q) * s)) ;;
	allgather:*|alltoall:*) echo $((p * (p - 1) * s)) ;;
	allgatherv:*) echo $(((p - 1) * $(vsum "$p"))) ;;
	alltoallv:*) echo $((p * (p - 1) * 8)) ;;
	gather:linear|scatter:linear) echo $(((p - 1) * s)) ;;
	gatherv:*|scatterv:*) echo $(($(vsum "$p") - 4)) ;;
	reduce_scatter:ring) echo $(((p - 1) * $(vsum "$p"))) ;;
	reduce_scatter_block:ring) echo $(((p - 1) * p * s)) ;;
	scan:linear|exscan:linear) echo $(((p - 1) * s)) ;;
	*) echo any ;;
	esac
}

# args per collective (root 0; comm 7,@R,@P; int = 1,4,4; s = 10 ints = 40 bytes)
C='7,@R,@P'
args_of() {
	p=$2
	case $1 in
	barrier) echo "$C" ;;
	bcast) echo "100:10:1,4,4:0:$C" ;;
	reduce) echo "100:200:10:1,4,4:3:0:$C" ;;
	allreduce|scan|exscan|reduce_scatter_block) echo "100:200:10:1,4,4:3:$C" ;;
	allgather|alltoall) echo "100:10:1,4,4:200:10:1,4,4:$C" ;;
	gather|scatter) echo "100:10:1,4,4:200:10:1,4,4:0:$C" ;;
	allgatherv) echo "100:COUNT:1,4,4:200:9:$(vlist "$p"):9:$(list "$p" 0):1,4,4:$C" ;;
	alltoallv) echo "100:9:$(list "$p" 2):9:$(list "$p" 0):1,4,4:200:9:$(list "$p" 2):9:$(list "$p" 0):1,4,4:$C" ;;
	gatherv) echo "100:COUNT:1,4,4:200:9:$(vlist "$p"):9:$(list "$p" 0):1,4,4:0:$C" ;;
	scatterv) echo "100:9:$(vlist "$p"):9:$(list "$p" 0):1,4,4:200:COUNT:1,4,4:0:$C" ;;
	reduce_scatter) echo "100:200:9:$(vlist "$p"):1,4,4:3:$C" ;;
	esac
}

cname() { echo "$1" | sed 's/^./\U&/'; }

trace2goal --list-coll >algs
test_expect_success '--list-coll lists every collective with a default' '
	test $(wc -l <algs) = 34 &&
	test $(grep -c "\*" algs) = 34 &&
	grep -qx "comm_create	ompi\*,mpich,local" algs &&
	grep -qx "comm_split	ompi\*,mpich,local" algs &&
	! grep -q "^icomm" algs &&
	grep -qx "allreduce	dissemination,recdoub\*,ring,reduce_bcast" algs &&
	grep -qx "iallreduce	dissemination,recdoub,ring+,reduce_bcast\*" algs &&
	grep -qx "ibcast	linear\*,binomial+,chain" algs
'
grep -v "^i\|^comm_" algs >balgs

while read -r kind algs; do
	for alg in $(echo "$algs" | tr -d '*' | tr , ' '); do
		test_expect_success "$kind=$alg: completes and moves the right bytes (p = 1 2 3 5 8)" '
			for p in 1 2 3 5 8; do
				a=$(args_of $kind $p)
				gen $p $(cname $kind) "$a"
				# v-variants: rank r contributes (r+1) ints
				for f in tr/*; do r=${f##*-}; r=${r%.txt}; sed -i "s/COUNT/$((r + 1))/" $f; done
				trace2goal -q --coll $kind=$alg tr >s.goal || return 1
				ibsim -q s.goal >res || { echo "p=$p: ibsim failed"; cat s.goal; return 1; }
				got=$(awk "!/^#/ && NR > 2 { b += \$5 } END { print b + 0 }" res)
				want=$(expect $kind $alg $p)
				if [ "$want" != any ] && [ "$got" != "$want" ]; then
					echo "p=$p: $got bytes sent, expected $want"; return 1
				fi
				[ $p != 1 ] || [ "$got" = 0 ] || { echo "p=1 sends $got bytes"; return 1; }
			done
		'
	done
done <balgs

test_expect_success 'nonblocking collective completed by MPI_Wait' '
	rm -rf tr && mkdir tr &&
	for r in 0 1 2; do
		{
			echo "MPI_Init:-:1:2:1000000"
			echo "MPI_Iallreduce:1000010:100:200:10:1,4,4:3:7,$r,3:5000:1000012"
			echo "MPI_Wait:1000020:5000:0:1000030"
			echo "MPI_Finalize:1000040:-"
		} >tr/t-$r.txt
	done &&
	trace2goal --coll iallreduce=ring tr >s.goal &&
	ibsim -q s.goal >res &&
	test "$(awk "!/^#/ && NR > 2 { b += \$5 } END { print b }" res)" = 160 &&
	grep -q "^l[0-9]*: calc 0$" s.goal &&
	test $(grep -c " send " s.goal) = 12
'

test_expect_success 'nonblocking collectives default to Open MPI libnbc algorithms, blocking ones keep theirs' '
	trace2goal tr >nb.goal &&
	test $(grep -c " send " nb.goal) = 4 &&
	test $(sed -n "/^rank 0/,/^}/p" nb.goal | grep -c " recv 40b from ") = 2 &&
	test $(sed -n "/^rank 0/,/^}/p" nb.goal | grep -c " send 40b to ") = 2 &&
	trace2goal --coll allreduce=ring tr >nb2.goal &&
	cmp nb.goal nb2.goal &&
	trace2goal --coll iallreduce=recdoub tr >nb3.goal &&
	test $(grep -c " send " nb3.goal) = 4 &&
	test $(sed -n "/^rank 1/,/^}/p" nb3.goal | grep -c " send ") = 2
'

test_expect_success 'an unknown algorithm for a nonblocking form is a usage error' '
	expect_fail 2 trace2goal --coll ibcast=bruck tr &&
	grep -q "ibcast has no algorithm .bruck." err
'

test_expect_success 'collectives use tags apart from application tags' '
	grep "send" s.goal | awk "{ if (\$NF < 1073741824) exit 1 }"
'
test_done
