# pipelines/plot/row.awk: one row of the deviation table from cmp-real's TSV
# output for one run with two results files (loggops, then ib):
#   awk -v app=NAME -f row.awk cmp.tsv
# prints app, ranks, the slowest rank's real time and each network's slowest
# simulated rank (microseconds) with the deviation of those two in percent,
# and cmp-real's largest per-rank |deviation| for each network.
BEGIN { FS = "\t"; OFS = "\t" }
/^rank\t/ { next }
/^# / {
	if (match($0, /max_abs_dev_pct=[^ ]*/)) {
		worst[++nw] = substr($0, RSTART + 16, RLENGTH - 16)
	}
	next
}
$1 ~ /^[0-9]+$/ {
	n++
	if ($2 + 0 > real) real = $2 + 0
	if ($3 + 0 > lg) lg = $3 + 0
	if ($5 + 0 > ib) ib = $5 + 0
}
END {
	if (n == 0 || real == 0) { print "row.awk: no ranks in " FILENAME > "/dev/stderr"; exit 1 }
	printf "%s\t%d\t%.3f\t%.3f\t%.2f\t%s\t%.3f\t%.2f\t%s\n", app, n, real / 1e6, lg / 1e6,
		(lg - real) * 100 / real, worst[1], ib / 1e6, (ib - real) * 100 / real, worst[2]
}
