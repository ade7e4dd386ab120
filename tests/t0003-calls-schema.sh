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
	bad "MPI_Send\tsend\t-\tbuf:addr\n" "1: expected 5 tab-separated columns, found 4" &&
	bad "MPI_Send\tsend\t-\tbuf:adr\t\n" "1: MPI_Send: unknown encoder \"adr\"" &&
	bad "MPI_Send\tsend\t-\tbuf:addr buf:int\t\n" "1: MPI_Send: field \"buf\" twice" &&
	bad "MPI_Send\tsend\tslow\tbuf:addr\t\n" "1: MPI_Send: unknown flags \"slow\"" &&
	bad "MPI_Send\tsend\t-\tbuf:addr\t\nMPI_Send\tsend\t-\tbuf:addr\t\n" "2: MPI_Send twice" &&
	bad "MPI_Send\tsend\t-\tbuf:addr dest:peer\t\nMPI_Bsend\tsend\t-\tbuf:addr tag:tag\t\n" \
		"2: MPI_Bsend has other fields than MPI_Send (both t2g kind send)"
'
test_done
