#!/bin/sh
# allprof writes what formats/calls.tsv says: the bundled sample programs, C and Fortran,
# traced under Open MPI, make every call of the schema at least once, and every call line
# has the number of fields the schema gives its call (tools/allprof/gen-calls.sh nf),
# whether its wrapper is generated or hand-written. samples/apps/sendmodes.c makes the send
# modes no other sample does; fcover.f90 the calls only the Fortran samples make; rma.c the
# one-sided calls.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
need_mpi
[ -x "$SAMPLES/fcover" ] || skip_all "fcover not built (no mpif90): some calls are made only from Fortran"

test_expect_success 'the samples run under allprof' '
	sh "$TOP/tools/allprof/gen-calls.sh" nf <"$TOP/formats/calls.tsv" >nf &&
	traced co 4 "$SAMPLES/collectives" && traced dt 2 "$SAMPLES/datatypes" &&
	traced ec 3 "$SAMPLES/edgecases" && traced nb 2 "$SAMPLES/nonblock" &&
	traced pers 2 "$SAMPLES/persistent" 4 && traced wc 3 "$SAMPLES/wildcard" 6 &&
	traced sm 2 "$SAMPLES/sendmodes" && test "$(cat sm.out)" = "45 3" &&
	traced io 3 "$SAMPLES/mpiio" "$TRASH/io.dat" &&
	traced rma 3 --mca osc sm,pt2pt "$SAMPLES/rma" && test "$(cat rma.out)" = "rma: ok 3" &&
	traced th 3 "$SAMPLES/threads" 5 &&
	traced fc 3 "$SAMPLES/fcover" && traced fe 3 "$SAMPLES/fedge" && traced fo 3 "$SAMPLES/fsample" &&
	! traced ab 2 "$SAMPLES/faults" abort &&
	cat */rank-*.trace | grep -v "^#" >lines && test -s lines
'
test_expect_success 'every call line has the fields the schema says' '
	awk -F: "NR == FNR { split(\$0, a, \"\\t\"); want[a[1]] = a[2]; next }
		!(\$1 in want) { print \"not in the schema: \" \$0; bad = 1; next }
		NF - 3 != want[\$1] { print \$1 \": \" NF - 3 \" fields, the schema says \" want[\$1] \": \" \$0; bad = 1 }
		END { exit bad }" nf lines
'
test_expect_success 'every call of the schema is in the traces' '
	cut -f1 nf | sort >schema &&
	cut -d: -f1 lines | sort -u >seen &&
	comm -23 schema seen >missing &&
	test_cmp /dev/null missing
'
test_done
