#!/bin/sh
# cmp-real --from, --from-nth, --to: a phase of the run, with the rule of
# trace2goal's options of those names. A synthetic 2-rank run whose call
# times are known: each rank's phase time and its lead over the earliest
# start; without --to the phase ends at MPI_Finalize, --to alone starts at
# MPI_Init; a phase converted by trace2goal --durations --sync with the same
# options and replayed at no cost ends where the real phase ended; with
# several runs; then the errors.
. "$(dirname "$0")/lib.sh"

# call NAME T_CALL T_RET: rank $r's call on the communicator world (times in us past 1000 s)
call() {
	case $1 in
	MPI_Barrier) printf "MPI_Barrier:%s:0,$r,2:%s\n" "$(t "$2")" "$(t "$3")" ;;
	MPI_Comm_rank) printf "MPI_Comm_rank:%s:0,$r,2:140000000000000:%s\n" "$(t "$2")" "$(t "$3")" ;;
	esac
}
t() {
	printf "%d.%03d" $((1000000000 + ${1%.*})) 0
}
# mk DIR SHIFT: the run, rank 1's calls SHIFT us later than the table below says
mk() {
	mkdir -p "$1" &&
	for r in 0 1; do
		s=$(( r * $2 ))
		{
			printf "# allprof 1.0 trace format 1\n# rank: %s of 2\n# Init clockdiff: 0.000\n" $r
			printf "MPI_Init:%s:1:2:%s\n" "$(t $((5 + 2 * r)))" "$(t $((10 + 2 * r)))"
			if [ $r = 0 ]; then
				call MPI_Barrier 20 25; call MPI_Comm_rank 30 31
				call MPI_Barrier 40 48; call MPI_Comm_rank 50 52
				call MPI_Barrier 60 70; call MPI_Comm_rank 80 81
				printf "# Finalize clockdiff: 0.000\nMPI_Finalize:%s:-\n# end 2 0\n" "$(t 100)"
			else
				call MPI_Barrier $((22 + s)) $((25 + s)); call MPI_Comm_rank $((35 + s)) $((36 + s))
				call MPI_Barrier $((44 + s)) $((48 + s)); call MPI_Comm_rank $((55 + s)) $((57 + s))
				call MPI_Barrier $((62 + s)) $((70 + s)); call MPI_Comm_rank $((85 + s)) $((90 + s))
				printf "# Finalize clockdiff: 0.000\nMPI_Finalize:%s:-\n# end 2 0\n" "$(t $((110 + s)))"
			fi
		} >"$1/rank-$r.trace" || return 1
	done
}
# res A B: a results file ending rank 0 at A us and rank 1 at B us
res() {
	printf "rank\tend_ps\n0\t%s000000\n1\t%s000000\n" "$1" "$2"
}

test_expect_success 'the run' '
	mk r 0 &&
	res 90 98 >whole.tsv &&
	cmp-real -f tsv r whole.tsv >out &&
	grep -q "^0	90000000	90000000	0.000$" out &&
	grep -q "^1	98000000	98000000	0.000$" out
'

test_expect_success 'the second barrier to the next Comm_rank: 12 and 13 us; --sync adds rank 1 s lead of 4 us' '
	res 12 13 >p.tsv &&
	cmp-real -f tsv --from "^MPI_Barrier\$" --from-nth 2 --to "^MPI_Comm_rank\$" r p.tsv >out &&
	grep -q "^0	12000000	12000000	0.000$" out &&
	grep -q "^1	13000000	13000000	0.000$" out &&
	res 12 17 >ps.tsv &&
	cmp-real --sync -f tsv --from "^MPI_Barrier\$" --from-nth 2 --to "^MPI_Comm_rank\$" r ps.tsv >out &&
	grep -q "^1	17000000	17000000	0.000$" out &&
	# a far result: exit 1
	res 24 26 >far.tsv &&
	expect_fail 1 cmp-real --from "^MPI_Barrier\$" --from-nth 2 --to "^MPI_Comm_rank\$" r far.tsv
'

test_expect_success 'a call that matches both patterns is the phase; without --to it ends at MPI_Finalize; --to alone starts at MPI_Init' '
	res 8 4 >b.tsv &&
	cmp-real -f tsv --from "^MPI_Barrier\$" --from-nth 2 --to Barrier r b.tsv >out &&
	grep -q "^0	8000000	8000000	0.000$" out && grep -q "^1	4000000	4000000	0.000$" out &&
	res 40 48 >f.tsv &&
	cmp-real -f tsv --from "^MPI_Barrier\$" --from-nth 3 r f.tsv >out &&
	grep -q "^0	40000000	40000000	0.000$" out && grep -q "^1	48000000	48000000	0.000$" out &&
	res 26 29 >i.tsv &&
	cmp-real -f tsv --to "^MPI_Comm_rank\$" r i.tsv >out &&
	grep -q "^0	26000000	26000000	0.000$" out && grep -q "^1	29000000	29000000	0.000$" out
'

test_expect_success 'trace2goal --durations --sync of the same phase, replayed at no cost, ends where the phase did' '
	printf "L = 0\no = 0\ng = 0\nG = 0\nO = 0\n" >zero.params &&
	trace2goal -q --durations --sync -p zero.params --from "^MPI_Barrier\$" --from-nth 2 --to "^MPI_Comm_rank\$" r >z.goal &&
	ibsim -q -p zero.params z.goal >z.tsv &&
	cmp-real --sync -t 0 -f tsv --from "^MPI_Barrier\$" --from-nth 2 --to "^MPI_Comm_rank\$" r z.tsv >out &&
	grep -q "^0	12000000	12000000	0.000$" out && grep -q "^1	17000000	17000000	0.000$" out
'

test_expect_success 'several runs: each run'"'"'s phase, their median and spread' '
	mk r2 2 && mk r3 6 &&
	cmp-real -f tsv --from "^MPI_Barrier\$" --from-nth 2 --to "^MPI_Comm_rank\$" --run r2 --run r3 r p.tsv >out &&
	# rank 1: 13 us in every run (its calls all move together); rank 0: 12 us
	grep -q "^1	13000000	13000000	13000000	0.000	13000000	0.000	yes$" out &&
	cmp-real --sync -f tsv --from "^MPI_Barrier\$" --from-nth 2 --to "^MPI_Comm_rank\$" --run r2 --run r3 r >out &&
	# with --sync rank 1 counts from rank 0 s start: 17, 19 and 23 us
	grep -q "^1	19000000	17000000	23000000	31.579$" out
'

test_expect_success 'errors: a phase that does not start or end, bad patterns, usage' '
	expect_fail 2 cmp-real --from "^MPI_Barrier\$" --from-nth 4 r p.tsv &&
	expect_err "cmp-real: r/rank-0.trace: no call matches --from (wanted match 4, found 3)" &&
	expect_fail 2 cmp-real --from "^MPI_Barrier\$" --from-nth 3 --to "^MPI_Send\$" r p.tsv &&
	grep -q "^cmp-real: r/rank-0.trace:[0-9]*: no call matches --to from the phase.s start on$" err &&
	expect_fail 2 cmp-real --from "MPI_(" r p.tsv &&
	grep -q "^cmp-real: invalid regular expression for --from: .MPI_(.: .* at offset 5$" err &&
	expect_fail 2 cmp-real --from Barrier --to "[" r p.tsv &&
	grep -q "^cmp-real: invalid regular expression for --to: " err &&
	expect_fail 2 cmp-real --from Barrier --from-nth 0 r p.tsv &&
	expect_err "cmp-real: invalid --from-nth '"'"'0'"'"' (expected a match number from 1)" &&
	expect_fail 2 cmp-real --from-nth 2 r p.tsv &&
	expect_err "cmp-real: --from-nth needs --from" &&
	expect_fail 2 cmp-real -x --to Barrier r p.tsv &&
	expect_err "cmp-real: --exclude-finalize and --to do not combine (a phase with --to ends at its own call)"
'

test_expect_success '--help names the phase options' '
	cmp-real --help >out &&
	grep -q "^      --from RE " out && grep -q "^      --from-nth K " out && grep -q "^      --to RE " out
'

test_done
