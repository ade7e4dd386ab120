#!/bin/sh
# formats/calls.tsv is the one description of the trace layout of every MPI call
# (formats/calls.md): the files made from it are up to date, and the generator refuses
# a schema that the code could not rely on.
. "$(dirname "$0")/lib.sh"

GEN="$TOP/tools/allprof/gen-calls.sh"
SCHEMA="$TOP/formats/calls.tsv"

test_expect_success 'lib/ir_t2g_calls.h is made from the schema (make gen-calls)' '
	sh "$GEN" t2g <"$SCHEMA" >calls.h &&
	test_cmp "$TOP/lib/ir_t2g_calls.h" calls.h
'
test_expect_success 'the C and Fortran wrappers of liballprof are made from the schema (make gen-calls)' '
	sh "$GEN" c <"$SCHEMA" >c.inc && test_cmp "$TOP/tools/allprof/liballprof_mpi_gen.inc" c.inc &&
	sh "$GEN" f <"$SCHEMA" >f.inc && test_cmp "$TOP/tools/allprof/liballprof_f_gen.inc" f.inc
'
# every call of the schema is a strong definition of liballprof.so (a generated or a
# hand-written wrapper, not the weak pass-through), from C and from Fortran (the MPI-IO
# calls from C only: formats/trace.md, section 5)
AP_SO="$IR_BUILD/allprof/liballprof.so"
if [ -f "$AP_SO" ] && command -v nm >/dev/null; then
	test_expect_success 'every call of the schema has its C and Fortran wrappers in liballprof.so' '
		nm -D --defined-only "$AP_SO" | awk "\$2 == \"T\" { print \$3 }" | sort >defined &&
		awk -F"\t" "!/^#/ { print \$1; if (\$1 !~ /^MPI_File_/) print tolower(\$1) \"_\" }" "$SCHEMA" | sort >expect &&
		comm -13 defined expect >missing && test_cmp /dev/null missing
	'
else
	test_skip 'every call of the schema has its C and Fortran wrappers in liballprof.so' 'no liballprof.so or nm'
fi
test_expect_success 'the call table of formats/trace.md is made from the schema (make gen-calls)' '
	sh "$GEN" doc <"$SCHEMA" >expect &&
	sed -n "/^<!-- calls.tsv: begin/,/^<!-- calls.tsv: end/p" "$TOP/formats/trace.md" | sed "1d;\$d" >actual &&
	test_cmp expect actual
'
test_expect_success 'trace2goal table: sorted by name, one row per call it converts' '
	grep "^	X(\"" "$TOP/lib/ir_t2g_calls.h" | sed "s/^	X(\"\([^\"]*\)\".*/\1/" >names &&
	sort names >sorted && test_cmp sorted names &&
	awk -F"\t" "!/^#/ && \$2 != \"-\" { print \$1 }" "$SCHEMA" | sort >converted &&
	test_cmp converted sorted
'
# bad SCHEMA-LINES EXPECTED-MESSAGE: the generator exits 1 with the message
bad() {
	printf "$1" >bad.tsv &&
	if sh "$GEN" t2g <bad.tsv >/dev/null 2>err; then echo "accepted: $1"; return 1; fi &&
	echo "gen-calls.sh: calls.tsv:$2" >expect && test_cmp expect err
}
test_expect_success 'the generator refuses a schema the code could not rely on' '
	bad "MPI_Send\tsend\t-\tbuf:addr\t\n" "1: expected 6 tab-separated columns, found 5" &&
	bad "MPI_Send\tsend\t-\tbuf:adr\t\thook\n" "1: MPI_Send: unknown encoder \"adr\"" &&
	bad "MPI_Send\tsend\t-\tbuf:addr buf:int\t\thook\n" "1: MPI_Send: field \"buf\" twice" &&
	bad "MPI_Send\tsend\tslow\tbuf:addr\t\thook\n" "1: MPI_Send: unknown flags \"slow\"" &&
	bad "MPI_Send\tsend\t-\tbuf:addr\t\tconst void *b\n" "1: MPI_Send: field \"buf\" is no parameter of the C prototype" &&
	bad "MPI_Send\tsend\t-\tbuf:addr\t\thook\nMPI_Send\tsend\t-\tbuf:addr\t\thook\n" "2: MPI_Send twice" &&
	bad "MPI_Send\tsend\t-\tbuf:addr dest:peer\t\thook\nMPI_Bsend\tsend\t-\tbuf:addr tag:tag\t\thook\n" \
		"2: MPI_Bsend has other fields than MPI_Send (both t2g kind send)" &&
	printf "MPI_Wait\t-\t-\tn:int r:reqs/n\t\tint n, MPI_Request *r\n" >bad.tsv &&
	! sh "$GEN" c <bad.tsv >/dev/null 2>err &&
	echo "gen-calls.sh: calls.tsv:1: MPI_Wait: encoder \"reqs\" needs a hand-written wrapper (hook)" >expect &&
	test_cmp expect err
'
test_done
