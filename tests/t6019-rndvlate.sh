#!/bin/sh
# samples/apps/rndvlate (formats/params.md, "The rendezvous protocol"): its TSV has a row per
# size and pattern (late, ring, pair, compute) with positive times in order p10 <= median <=
# p90, over shared memory; and its errors: a bad size, a bad -n, another rank count. No
# timing is judged: the figures are docs/validation.md's.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi
[ -x "$SAMPLES/rndvlate" ] || skip_all "samples/apps/rndvlate not built"

test_expect_success 'two sizes, four patterns each, times in order' '
	mpirun -np 2 --mca btl vader,self "$SAMPLES/rndvlate" -n 5 8K 2 >out.tsv 2>err &&
	printf "size_bytes\tpattern\tmedian_us\tp10_us\tp90_us\n" >want && head -n 1 out.tsv >got && test_cmp want got &&
	awk -F"\t" "NR > 1 { print \$1, \$2 }" out.tsv >got &&
	printf "8192 late\n8192 ring\n8192 pair\n8192 compute\n2 late\n2 ring\n2 pair\n2 compute\n" >want &&
	test_cmp want got &&
	awk -F"\t" "NR > 1 && !(\$4 > 0 && \$4 <= \$3 && \$3 <= \$5) { bad = 1 } END { exit bad }" out.tsv
'

test_expect_success 'bad arguments: a message and exit 1' '
	expect_fail 1 mpirun -np 2 --mca btl vader,self "$SAMPLES/rndvlate" 8X &&
	grep -q "SIZE: invalid byte count .8X." err &&
	expect_fail 1 mpirun -np 2 --mca btl vader,self "$SAMPLES/rndvlate" -n 0 &&
	grep -q "usage: rndvlate \[-n REPS\] \[SIZE...\]" err &&
	expect_fail 1 mpirun -np 1 --mca btl vader,self "$SAMPLES/rndvlate" &&
	grep -q "rndvlate: needs exactly 2 ranks" err
'

test_done
