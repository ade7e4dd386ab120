#!/bin/sh
# pipelines/crossnet-table.sh: the table of pipelines/crossnet.mk.
#
#   crossnet-table.sh tsv RUNDIR A B NP APP...   the TSV table on stdout
#   crossnet-table.sh md A B TSV                 the same as Markdown
#
# tsv reads, per application, RUNDIR/APP/NET.runs.tsv (cmp-real --run, no
# results: the real runs of network NET) and RUNDIR/APP/SRC-on-DST.MODE.cmp.tsv
# (cmp-real --run of DST's runs against the schedule of SRC's median run
# converted with DST's parameters), and takes their row "all" (the run: its
# longest rank). One row per application:
#   app ranks real_a_ms spread_a_pct real_b_ms spread_b_pct naive_abs_dev_pct
#   default_ms default_abs_dev_pct default_within sync_ms sync_abs_dev_pct
#   sync_within same_b_default_abs_dev_pct same_b_sync_abs_dev_pct
#   same_a_default_abs_dev_pct same_a_sync_abs_dev_pct same_work
#   compute_growth_pct b_all_slowed
# (real: the median over the runs; spread: (max - min) / median; naive: |A -
# B| / B, the guess that B takes as long as A; default and sync: A's median
# run predicted for B, against B's median, and whether that lies within B's
# spread; same_b and same_a: each network's own median run predicted with
# its own parameters; same_work: yes when every rank of A's median run sends
# as many messages and bytes as in B's median run, after conversion, from
# the results files RUNDIR/APP/SRC-on-B.default.sim.tsv: a program whose work
# depends on the network, such as a benchmark that repeats a test until a
# time has passed, does other work on B than the trace of A holds, and no
# replay of that trace can predict B's run; compute_growth_pct: how much
# longer the computation of B's median run is than that of A's median run
# converted for B (the mean over ranks of calc_ps, B-on-B against A-on-B,
# default mode), in percent of B's real run, signed: time that changes with
# the network outside the MPI calls, which no network model foresees, and by
# which a prediction from A falls short, docs/validation.md; b_all_slowed: yes when
# cmp-real found every one of B's runs made on a slowed machine (the `# state:` line of
# B.runs.tsv ends `all_slowed=yes`: it kept them all, and B's median is the machine's, not
# the program's), no when not, - without the machine state (STATE=no)), then '#' lines: the networks,
# and per mode the median and largest |deviation| over all applications,
# over those whose naive error is at least 5 %, how often the mode beats
# the naive guess and lies within B's spread, the same-network medians, and
# the same over the runs of 50 ms or more, and over those that also do the
# same work on both networks (docs/validation.md: the target set), and the cross-network and
# B's same-network summaries again without the programs whose B runs were all slowed, named.
set -eu

if [ "$1" = md ]; then
	a=$2
	b=$3
	awk -F'\t' -v a="$a" -v b="$b" '
		NR == 1 {
			printf "| app | ranks | real %s (ms) | real %s (ms) | %s spread %% | naive \\|dev\\| %% | default: predicted ms, \\|dev\\| %% | sync: predicted ms, \\|dev\\| %% | within %s spread | same network %s: default, sync \\|dev\\| %% | same network %s: default, sync \\|dev\\| %% | same work | compute growth %% | %s runs all slowed |\n", a, b, b, b, b, a, b
			print "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---:|---|"
			next
		}
		/^#/ { sub(/^# /, ""); foot = foot "- " $0 "\n"; next }
		{
			w = ($10 == "yes" && $13 == "yes") ? "both" : $10 == "yes" ? "default" : $13 == "yes" ? "sync" : "neither"
			printf "| %s | %s | %s | %s | %s | %s | %s, %s | %s, %s | %s | %s, %s | %s, %s | %s | %s | %s |\n", $1, $2, $3, $5, $6, $7,
				$8, $9, $11, $12, w, $14, $15, $16, $17, $18, $19, $20
		}
		END { printf "\n%s", foot }' "$4"
	exit 0
fi

[ "$1" = tsv ] || { echo "crossnet-table.sh: expected tsv or md, found '$1'" >&2; exit 2; }
dir=$2
a=$3
b=$4
np=$5
shift 5

# all FILE: the row "all" of a cmp-real --run table, tab-separated (fails when there is none)
all() {
	awk -F'\t' '$1 == "all" { print; found = 1 } END { exit !found }' "$1" ||
		{ echo "crossnet-table.sh: $1: no row 'all' (expected cmp-real --run output)" >&2; exit 1; }
}

rows=$(mktemp "${TMPDIR:-/tmp}/crossnet-rows.XXXXXX")
one=$(mktemp "${TMPDIR:-/tmp}/crossnet-one.XXXXXX")
trap 'rm -f "$rows" "$one"' EXIT

printf 'app\tranks\treal_a_ms\tspread_a_pct\treal_b_ms\tspread_b_pct\tnaive_abs_dev_pct\t'
printf 'default_ms\tdefault_abs_dev_pct\tdefault_within\tsync_ms\tsync_abs_dev_pct\tsync_within\t'
printf 'same_b_default_abs_dev_pct\tsame_b_sync_abs_dev_pct\tsame_a_default_abs_dev_pct\tsame_a_sync_abs_dev_pct\tsame_work\t'
printf 'compute_growth_pct\tb_all_slowed\n'
for app in "$@"; do
	d=$dir/$app
	{
		all "$d/$a.runs.tsv"
		all "$d/$b.runs.tsv"
		for m in default sync; do all "$d/$a-on-$b.$m.cmp.tsv"; done
		for m in default sync; do all "$d/$b-on-$b.$m.cmp.tsv"; done
		for m in default sync; do all "$d/$a-on-$a.$m.cmp.tsv"; done
	} >"$one"
	# the work: msgs_sent and bytes_sent of every rank (formats/results.md), A's run against
	# B's; and the mean calc_ps of the ranks of each
	work=$(awk -F'\t' '
		FNR == 1 { f++ }
		/^#/ || $1 == "rank" || $1 == "all" { next }
		{ w[f, $1] = $4 "/" $5; r[$1] = 1; c[f] += $3; k[f]++ }
		END {
			same = "yes"
			for (x in r) if (w[1, x] != w[2, x]) same = "no"
			printf "%s %.0f %.0f\n", same, k[1] ? c[1] / k[1] : 0, k[2] ? c[2] / k[2] : 0
		}' \
		"$d/$a-on-$b.default.sim.tsv" "$d/$b-on-$b.default.sim.tsv") ||
		{ echo "crossnet-table.sh: $d: cannot read the results files" >&2; exit 1; }
	read -r work calc_a calc_b <<-END
	$work
	END
	# B's runs all made on a slowed machine (cmp-real's `# state:` line), or no state at all
	slowed=$(awk '/^# state: / { s = "no"; for (i = 3; i <= NF; i++) if ($i == "all_slowed=yes") s = "yes" }
		END { print s == "" ? "-" : s }' "$d/$b.runs.tsv")
	awk -F'\t' -v app="$app" -v np="$np" -v work="$work" -v calc_a="$calc_a" -v calc_b="$calc_b" -v slowed="$slowed" '
		function abs(x) { return x < 0 ? -x : x }
		{ row[NR] = $0; n = split($0, f, "\t"); for (i = 1; i <= n; i++) v[NR, i] = f[i] }
		END {
			ra = v[1, 2]; rb = v[2, 2]
			naive = rb > 0 ? abs(ra - rb) / rb * 100 : 0
			printf "%s\t%s\t%.3f\t%.2f\t%.3f\t%.2f\t%.2f", app, np, ra / 1e9, v[1, 5], rb / 1e9, v[2, 5], naive
			for (r = 3; r <= 4; r++)
				printf "\t%.3f\t%.2f\t%s", v[r, 6] / 1e9, abs(v[r, 7]), v[r, 8]
			for (r = 5; r <= 8; r++)
				printf "\t%.2f", abs(v[r, 7])
			printf "\t%s\t%.2f\t%s\n", work, (rb > 0 ? (calc_b - calc_a) / rb * 100 : 0), slowed
		}' "$one" >>"$rows"
done
cat "$rows"

# the summaries
awk -F'\t' -v a="$a" -v b="$b" -v np="$np" '
	function med(x, k,   i, j, t) {
		for (i = 2; i <= k; i++) { t = x[i]; for (j = i - 1; j >= 1 && x[j] > t; j--) x[j + 1] = x[j]; x[j + 1] = t }
		return k % 2 ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2
	}
	function mx(x, k,   i, m) { m = 0; for (i = 1; i <= k; i++) if (x[i] > m) m = x[i]; return m }
	# a run of at least 50 ms on both networks: shorter ones are dominated by noise (their
	# spread is tens of percent) and by the start-up of the MPI library
	function long_run(i) { return col[i, 3] >= 50 && col[i, 5] >= 50 }
	# the rows a set keeps: 0 all, 1 the runs of at least 50 ms, 2 those that also do the same
	# work on both networks, 3 those whose B runs were not all slowed
	function keep(i, lng) { return lng == 3 ? col[i, 20] != "yes" : !lng || long_run(i) && (lng < 2 || col[i, 18] == "yes") }
	# summary COLUMN NAME [LONG]: median and largest over the rows keep() keeps and over
	# those rows with naive >= 5
	function summary(c, name, lng,   i, k, kb, all, big, beats, within) {
		k = kb = beats = within = 0
		for (i = 1; i <= n; i++) {
			if (!keep(i, lng))
				continue
			all[++k] = col[i, c]
			if (col[i, 7] >= 5) big[++kb] = col[i, c]
			if (col[i, c] < col[i, 7]) beats++
			if (col[i, c + 1] == "yes") within++
		}
		if (!k) { printf "# %s: no apps\n", name; return }
		printf "# %s: median_abs_dev_pct=%.2f max_abs_dev_pct=%.2f over %d apps;", name, med(all, k), mx(all, k), k
		if (kb) printf " naive>=5%%: median_abs_dev_pct=%.2f max_abs_dev_pct=%.2f over %d apps;", med(big, kb), mx(big, kb), kb
		else printf " naive>=5%%: no apps;"
		printf " beats naive in %d of %d; within %s spread in %d of %d\n", beats, k, b, within, k
	}
	function same(c, name, lng,   i, k, x) {
		k = 0
		for (i = 1; i <= n; i++)
			if (keep(i, lng))
				x[++k] = col[i, c]
		if (!k) { printf "# %s: no apps\n", name; return }
		printf "# %s: median_abs_dev_pct=%.2f max_abs_dev_pct=%.2f over %d apps\n", name, med(x, k), mx(x, k), k
	}
	{ n++; for (i = 1; i <= NF; i++) col[n, i] = $i }
	END {
		printf "# traced on %s (A), predicted for %s (B), %s ranks; real: median of the runs\n", a, b, np
		if (!n) exit
		for (i = 1; i <= n; i++) nv[i] = col[i, 7]
		printf "# naive (B takes as long as A): median_abs_dev_pct=%.2f max_abs_dev_pct=%.2f over %d apps\n", med(nv, n), mx(nv, n), n
		summary(9, "default " a "->" b)
		summary(12, "sync " a "->" b)
		same(14, "same network " b " default")
		same(15, "same network " b " sync")
		same(16, "same network " a " default")
		same(17, "same network " a " sync")
		summary(9, "runs of 50 ms or more: default " a "->" b, 1)
		summary(12, "runs of 50 ms or more: sync " a "->" b, 1)
		same(14, "runs of 50 ms or more: same network " b " default", 1)
		same(15, "runs of 50 ms or more: same network " b " sync", 1)
		same(16, "runs of 50 ms or more: same network " a " default", 1)
		same(17, "runs of 50 ms or more: same network " a " sync", 1)
		k = 0; dl = ""
		for (i = 1; i <= n; i++) if (col[i, 18] == "yes") k++; else dl = dl " " col[i, 1]
		printf "# same work on both networks (every rank sends as many messages and bytes): %d of %d apps%s\n", k, n, dl == "" ? "" : "; differs:" dl
		s = "same work, runs of 50 ms or more: "
		summary(9, s "default " a "->" b, 2)
		summary(12, s "sync " a "->" b, 2)
		same(14, s "same network " b " default", 2)
		same(15, s "same network " b " sync", 2)
		same(16, s "same network " a " default", 2)
		same(17, s "same network " a " sync", 2)
		k = 0
		for (i = 1; i <= n; i++) if (keep(i, 2)) g[++k] = col[i, 19]
		if (k) {
			lo = hi = g[1]
			for (i = 2; i <= k; i++) { if (g[i] < lo) lo = g[i]; if (g[i] > hi) hi = g[i] }
			printf "# %scompute growth on %s (%% of its run): median %.2f, from %.2f to %.2f over %d apps\n", s, b, med(g, k), lo, hi, k
		} else
			printf "# %scompute growth on %s: no apps\n", s, b
		# without the programs whose B runs were all slowed (only when the state was read)
		out = ""; st = 0
		for (i = 1; i <= n; i++) { if (col[i, 20] != "-") st = 1; if (col[i, 20] == "yes") out = out " " col[i, 1] }
		if (st) {
			printf "# %s runs all slowed (left out below):%s\n", b, out == "" ? " none" : out
			s = b " runs not all slowed: "
			summary(9, s "default " a "->" b, 3)
			summary(12, s "sync " a "->" b, 3)
			same(14, s "same network " b " default", 3)
			same(15, s "same network " b " sync", 3)
		}
	}' "$rows"
