#!/bin/sh
# tests/bench/goalc.sh: goalc's speed and memory (make bench; never pass/fail).
# Prints tool<TAB>benchmark<TAB>metric<TAB>value<TAB>unit lines.
#
#   big:   a generated Schedgen-like schedule of GOALC_BENCH_MB (default 1100)
#          MB of text: 32 ranks of chained send/recv/calc ops with labels and
#          requires lines. "check" is parsing and validation alone (text MB/s),
#          "compile" writes the binary file too, "decompile" writes canonical
#          text, "load-binary" validates the binary (checksums, every op and
#          edge, acyclicity); rss is the compile's peak memory (it streams, so
#          it follows one rank, not the file).
#   ranks: 200 000 small ranks (the per-rank cost).
#   dissemination-1M, ring-256x80000: goalgen's schedules of tests/bench/ibsim.sh
#          as GOAL text (1.65 and 2.14 GB), compiled to the default binary
#          (issue 16's targets are set on these two), when goalgen is there.
# Each timed step runs BENCH_RUNS times (default 3) and prints a line per run
# (the driver makes min/median/max); sizes are printed once.
# The generator is a small C program compiled here, so the figure does not
# depend on another tool. Files are deleted as soon as they are measured.
set -eu
MB=${GOALC_BENCH_MB:-1100}
RUNS=${BENCH_RUNS:-3}
T=$BENCH_TMP
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { t = b - a; printf "%.3f", (t > 0 ? t : 1e-9) }'; }
line() { printf 'goalc\t%s\t%s\t%s\t%s\n' "$@"; }
mbps() { awk -v s="$1" -v t="$2" 'BEGIN { printf "%.0f", s / 1e6 / t }'; }

cat >"$T/goalc-gen.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
/* gen RANKS OPS: per rank OPS ops, alternating send/recv (ring) and calc, chained by requires */
int main(int argc, char **argv)
{
	long nr = atol(argv[1]), no = atol(argv[2]);
	static char buf[1 << 20];
	setvbuf(stdout, buf, _IOFBF, sizeof buf);
	printf("num_ranks %ld\n", nr);
	for (long r = 0; r < nr; r++) {
		printf("rank %ld {\n", r);
		for (long i = 1; i <= no; i += 2) {
			if ((i / 2) % 2 == 0)
				printf("l%ld: send %ldb to %ld tag %ld\n", i, 1000 + i % 977, (r + 1) % nr, i % 100);
			else
				printf("l%ld: recv %ldb from %ld tag %ld\n", i, 1000 + (i - 2) % 977, (r + nr - 1) % nr, (i - 2) % 100);
			printf("l%ld: calc %ld\n", i + 1, 9000000 + i);
			printf("l%ld requires l%ld\n", i, i + 1);
			if (i > 1)
				printf("l%ld requires l%ld\n", i + 1, i - 2);
		}
		printf("}\n");
	}
	return 0;
}
C
cc -O2 -o "$T/goalc-gen" "$T/goalc-gen.c"

# about 52 bytes of text per op with these labels and numbers
ops=$((MB * 1000000 / 52 / 32 / 2 * 2))
"$T/goalc-gen" 32 "$ops" >"$T/big.goal"
bytes=$(wc -c <"$T/big.goal")
line big text "$(awk -v s="$bytes" 'BEGIN { printf "%.0f", s / 1e6 }')" MB
line big ops "$((32 * ops))" ops

i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	t0=$(now); goalc --check "$T/big.goal"; t1=$(now)
	line big check-speed "$(mbps "$bytes" "$(secs "$t0" "$t1")")" MB/s
	if [ -x /usr/bin/time ]; then
		t0=$(now); /usr/bin/time -f '%M' -o "$T/rss" goalc -o "$T/big.goalb" "$T/big.goal"; t1=$(now)
		line big compile-rss "$(awk '{ printf "%.0f", $1 / 1024 }' "$T/rss")" MB
	else
		t0=$(now); goalc -o "$T/big.goalb" "$T/big.goal"; t1=$(now)
	fi
	line big compile-speed "$(mbps "$bytes" "$(secs "$t0" "$t1")")" MB/s
done
bbytes=$(wc -c <"$T/big.goalb")
line big binary "$(awk -v s="$bbytes" 'BEGIN { printf "%.0f", s / 1e6 }')" MB
line big binary-per-op "$(awk -v s="$bbytes" -v n="$((32 * ops))" 'BEGIN { printf "%.2f", s / n }')" bytes
rm -f "$T/big.goal"

i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	t0=$(now); goalc --check "$T/big.goalb"; t1=$(now)
	line big load-binary-speed "$(mbps "$bbytes" "$(secs "$t0" "$t1")")" MB/s
	t0=$(now); goalc -d "$T/big.goalb" >/dev/null; t1=$(now)
	line big decompile-speed "$(mbps "$bytes" "$(secs "$t0" "$t1")")" MB/s
done
rm -f "$T/big.goalb"

"$T/goalc-gen" 200000 8 >"$T/ranks.goal"
bytes=$(wc -c <"$T/ranks.goal")
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	t0=$(now); goalc -o "$T/ranks.goalb" "$T/ranks.goal"; t1=$(now)
	s=$(secs "$t0" "$t1")
	line ranks compile-speed "$(mbps "$bytes" "$s")" MB/s
	line ranks per-rank "$(awk -v t="$s" 'BEGIN { printf "%.2f", t / 200000 * 1e6 }')" us
done
rm -f "$T/ranks.goal" "$T/ranks.goalb" "$T/goalc-gen" "$T/goalc-gen.c" "$T/rss"

# gen NAME GOALGEN-ARGS...: goalgen's schedule as text, compiled RUNS times
gen() {
	name=$1
	shift
	goalgen "$@" >"$T/gen.goal"
	bytes=$(wc -c <"$T/gen.goal")
	line "$name" text "$(awk -v s="$bytes" 'BEGIN { printf "%.0f", s / 1e6 }')" MB
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		t0=$(now); goalc -q -o "$T/gen.goalb" "$T/gen.goal"; t1=$(now)
		line "$name" compile-speed "$(mbps "$bytes" "$(secs "$t0" "$t1")")" MB/s
	done
	rm -f "$T/gen.goal" "$T/gen.goalb"
}
if command -v goalgen >/dev/null; then
	gen dissemination-1M dissemination 1048576 --size 180
	gen ring-256x80000 ring 256 --steps 80000
fi
