#!/bin/sh
# pipelines/crossnet-untraced.sh: the table of pipelines/crossnet.mk's UNTRACED runs.
#
#   crossnet-untraced.sh RUNDIR A B TSV APP...
#
# Reads, per application, RUNDIR/APP/A.runs.tsv and B.runs.tsv (the traced runs, cmp-real
# --run), RUNDIR/APP/untraced.A.tsv (A's untraced runs) and RUNDIR/APP/SRC-on-DST.MODE.
# untraced.cmp.tsv (each mode's prediction against DST's untraced runs: A on B, B on B, A
# on A), taking their row "all" (the longest rank), and the same_work column of
# crossnet.mk's table TSV. Prints one TSV row per application:
#   app a_untraced_ms a_traced_ms b_untraced_ms b_untraced_spread_pct b_traced_ms
#   b_tracer_pct naive_abs_dev_pct default_ms default_abs_dev_pct default_within sync_ms
#   sync_abs_dev_pct sync_within same_work same_b_default_abs_dev_pct
#   same_b_sync_abs_dev_pct same_a_default_abs_dev_pct same_a_sync_abs_dev_pct
#   b_undisturbed_runs a_undisturbed_runs
# (untraced and traced: the median of the runs, those on a slowed machine set aside when
# crossnet.mk's STATE=yes had cmp-real judge them; *_undisturbed_runs: how many untraced
# runs the medians are over, 0 when every run was slowed (then all are used, and the row is
# left out of the summaries: its runs are of another machine than the calibration's), '-'
# when the runs were not judged; b_tracer_pct: how much longer B's traced
# median is than its untraced one; naive: |A - B| / B between the untraced medians; the
# deviations are against B's untraced median, within: inside the spread of B's untraced
# runs), then '#' lines: per mode the median and largest |deviation| over all applications
# and over the same-work runs of 50 ms or more (B untraced), how often the mode beats the
# naive guess, and the tracer's share of B's runs and of A's.
set -eu
dir=$1
a=$2
b=$3
tsv=$4
shift 4

tmp=${TMPDIR:-/tmp}/crossnet-untraced.$$
trap 'rm -f "$tmp"' EXIT

# all FILE COLUMN: the value of COLUMN in the row "all" of a cmp-real TSV
all() { awk -F'\t' -v c="$2" '$1 == "all" { print $c; exit }' "$1"; }
# clean FILE: the runs a cmp-real TSV's medians are over when it judged the machine's state
# (its '# state:' line): 0 when every run was slowed, '-' when not judged
clean() {
	awk '/^# state: / { n = "-"; for (i = 3; i <= NF; i++) { split($i, f, "="); if (f[1] == "used") n = f[2]; if (f[1] == "all_slowed") n = 0 } print n; found = 1; exit }
		END { if (!found) print "-" }' "$1"
}

printf 'app\ta_untraced_ms\ta_traced_ms\tb_untraced_ms\tb_untraced_spread_pct\tb_traced_ms\tb_tracer_pct\tnaive_abs_dev_pct\tdefault_ms\tdefault_abs_dev_pct\tdefault_within\tsync_ms\tsync_abs_dev_pct\tsync_within\tsame_work\tsame_b_default_abs_dev_pct\tsame_b_sync_abs_dev_pct\tsame_a_default_abs_dev_pct\tsame_a_sync_abs_dev_pct\tb_undisturbed_runs\ta_undisturbed_runs\n'
for app in "$@"; do
	d=$dir/$app
	au=$(all "$d/untraced.$a.tsv" 2)
	at=$(all "$d/$a.runs.tsv" 2)
	bt=$(all "$d/$b.runs.tsv" 2)
	u=$d/$a-on-$b.default.untraced.cmp.tsv
	s=$d/$a-on-$b.sync.untraced.cmp.tsv
	sw=$(awk -F'\t' -v x="$app" '$1 == x { print $18; exit }' "$tsv")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$app" "$au" "$at" "$bt" \
		"$(all "$u" 2)" "$(all "$u" 5)" "$(all "$u" 6)" "$(all "$u" 7)" "$(all "$u" 8)" \
		"$(all "$s" 6)" "$(all "$s" 7)" "$(all "$s" 8)" "${sw:-?}" \
		"$(all "$d/$b-on-$b.default.untraced.cmp.tsv" 7)" "$(all "$d/$b-on-$b.sync.untraced.cmp.tsv" 7)" \
		"$(all "$d/$a-on-$a.default.untraced.cmp.tsv" 7)" "$(all "$d/$a-on-$a.sync.untraced.cmp.tsv" 7)" \
		"$(clean "$d/untraced.$b.tsv")" "$(clean "$d/untraced.$a.tsv")"
done | awk -F'\t' -v OFS='\t' 'function abs(x) { return x < 0 ? -x : x } {
	au = $2 / 1e9; at = $3 / 1e9; bt = $4 / 1e9; bu = $5 / 1e9
	naive = bu > 0 ? (au - bu) / bu * 100 : 0; if (naive < 0) naive = -naive
	dd = $8 < 0 ? -$8 : $8; sd = $11 < 0 ? -$11 : $11
	printf "%s\t%.3f\t%.3f\t%.3f\t%.2f\t%.3f\t%.2f\t%.2f\t%.3f\t%.2f\t%s\t%.3f\t%.2f\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t%s\n", $1, au, at, bu, $6,
		bt, (bu > 0 ? (bt - bu) / bu * 100 : 0), naive, $7 / 1e9, dd, $9, $10 / 1e9, sd, $12, $13,
		abs($14), abs($15), abs($16), abs($17), $18, $19
}' >"$tmp"
cat "$tmp"

# summ COL SEL [naive] [NET]: the median and largest of column COL over all rows (SEL all) or
# over the same-work rows of 50 ms or more of B untraced (SEL big); with naive, how many rows
# beat the naive guess (column 8); rows whose untraced runs on the target network (NET a: A's,
# else B's) were all slowed are left out, and named
summ() {
	awk -F'\t' -v c="$1" -v sel="$2" -v naive="${3:-}" -v st="${4:-b}" '
		sel == "big" && !($4 >= 50 && $15 == "yes") { next }
		(st == "a" ? $21 : $20) == "0" { out = out (out == "" ? "" : " ") $1; next }
		{ v[++k] = $c; if ($c < $8) win++ }
		END {
			if (!k && out != "") { printf "no app left: every untraced run slowed: %s", out; exit }
			if (!k) exit
			n = k; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			printf "median_abs_dev_pct=%.2f max_abs_dev_pct=%.2f over %d apps", \
				n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, v[n], n
			if (naive != "")
				printf "; beats naive in %d of %d", win, n
			if (out != "")
				printf "; left out, every untraced run slowed: %s", out
		}' "$tmp"
}
for m in default:10 sync:13; do
	mode=${m%%:*} col=${m##*:}
	x=$(summ "$col" all naive)
	[ -n "$x" ] && printf '# against %s'"'"'s untraced runs: %s %s->%s: %s\n' "$b" "$mode" "$a" "$b" "$x"
	x=$(summ "$col" big naive)
	[ -n "$x" ] && printf '# against %s'"'"'s untraced runs, same work, 50 ms or more: %s %s->%s: %s\n' "$b" "$mode" "$a" "$b" "$x"
done
# the same-network predictions
for m in "$b:default:16:b" "$b:sync:17:b" "$a:default:18:a" "$a:sync:19:a"; do
	net=${m%%:*} rest=${m#*:}; mode=${rest%%:*} rest=${rest#*:}; col=${rest%%:*} st=${rest##*:}
	x=$(summ "$col" all "" "$st")
	[ -n "$x" ] && printf '# against %s'"'"'s untraced runs: same network %s %s: %s\n' "$net" "$net" "$mode" "$x"
	x=$(summ "$col" big "" "$st")
	[ -n "$x" ] && printf '# against %s'"'"'s untraced runs, same work, 50 ms or more: same network %s %s: %s\n' "$net" "$net" "$mode" "$x"
done
awk -F'\t' -v a="$a" -v b="$b" '{ v[++k] = $8; t[k] = $7; s[k] = $2 > 0 ? ($3 - $2) / $2 * 100 : 0 } END {
	if (!k) exit
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) {
		if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
		if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x }
		if (s[j] < s[i]) { x = s[i]; s[i] = s[j]; s[j] = x }
	}
	printf "# naive between the untraced medians: median_abs_dev_pct=%.2f max_abs_dev_pct=%.2f over %d apps\n", k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2, v[k], k
	printf "# the tracer lengthened the runs on %s by (traced - untraced) / untraced: median %.2f %%, from %.2f to %.2f %%\n", b, k % 2 ? t[(k + 1) / 2] : (t[k / 2] + t[k / 2 + 1]) / 2, t[1], t[k]
	printf "# the tracer lengthened the runs on %s by (traced - untraced) / untraced: median %.2f %%, from %.2f to %.2f %%\n", a, k % 2 ? s[(k + 1) / 2] : (s[k / 2] + s[k / 2 + 1]) / 2, s[1], s[k]
}' "$tmp"
