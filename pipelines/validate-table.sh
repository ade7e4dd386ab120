#!/bin/sh
# pipelines/validate-table.sh: the deviation table of pipelines/validate.mk.
#
#   validate-table.sh RUNDIR "MODES" RUN...      (RUN is APP-NP)
#
# Reads RUNDIR/RUN/MODE.cmp.tsv (cmp-real --format tsv: rank real_ps sim_ps
# dev_pct) and prints on stdout one TSV row per run and mode:
#   app ranks mode real_ms median_abs_dev_pct max_abs_dev_pct mean_abs_dev_pct worst_rank
# (real_ms: the longest real time of a rank; the deviations are over the
# ranks), then per rank count and mode one comment line with the median and
# the largest |deviation| over all ranks of all runs of that rank count, and
# one more over the runs of 50 ms or more.
set -eu
dir=$1
modes=$2
shift 2
runs="$*"

# absdev FILE...: the absolute deviations of every rank of the files, sorted
absdev() {
	awk -F'\t' '!/^#/ && $1 != "rank" { d = $4 + 0; if ($4 == "inf") d = 1e300; print (d < 0 ? -d : d) }' "$@" |
		sort -g
}

# stats: median, largest and mean of sorted numbers on stdin
stats() {
	awk '{ v[++k] = $1; s += $1 } END {
		if (!k) { print "nan nan nan 0"; exit }
		med = k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
		printf "%.2f %.2f %.2f %d\n", med, v[k], s / k, k }'
}

printf 'app\tranks\tmode\treal_ms\tmedian_abs_dev_pct\tmax_abs_dev_pct\tmean_abs_dev_pct\tworst_rank\n'
for run in $runs; do
	app=${run%-*}
	np=${run##*-}
	for m in $modes; do
		f=$dir/$run/$m.cmp.tsv
		set -- $(absdev "$f" | stats)
		# the worst rank as cmp-real found it (its summary line, from the unrounded
		# deviations), else from the rounded column
		awk -F'\t' -v a="$app" -v n="$np" -v m="$m" -v med="$1" -v mx="$2" -v mean="$3" '
			/^# .* worst_rank=[0-9]+ / { s = $0; sub(/.* worst_rank=/, "", s); sub(/ .*/, "", s); cw = s }
			!/^#/ && $1 != "rank" {
				d = $4 + 0; if (d < 0) d = -d
				if (k++ == 0 || d > w) { w = d; wr = $1 }
				if ($2 + 0 > real) real = $2 + 0
			}
			END { printf "%s\t%s\t%s\t%.3f\t%s\t%s\t%s\t%s\n", a, n, m, real / 1e9, med, mx, mean, cw != "" ? cw : wr }' "$f"
	done
done

# summaries per rank count and mode
nps=$(for run in $runs; do echo "${run##*-}"; done | sort -nu)
for np in $nps; do
	for m in $modes; do
		files=
		nruns=0
		for run in $runs; do
			if [ "${run##*-}" = "$np" ]; then
				files="$files $dir/$run/$m.cmp.tsv"
				nruns=$((nruns + 1))
			fi
		done
		set -- $(absdev $files | stats)
		printf '# ranks=%s mode=%s: median_abs_dev_pct=%s max_abs_dev_pct=%s over %s ranks of %s runs\n' \
			"$np" "$m" "$1" "$2" "$4" "$nruns"
	done
done

# the same over the runs of 50 ms or more (the longest rank of the mode's real run): shorter
# ones vary by 20-100 % from one run to the next on shared cores (docs/validation.md)
for np in $nps; do
	for m in $modes; do
		files=
		nruns=0
		for run in $runs; do
			f=$dir/$run/$m.cmp.tsv
			if [ "${run##*-}" = "$np" ] &&
				awk -F'\t' '!/^#/ && $1 != "rank" && $2 + 0 > r { r = $2 + 0 } END { exit !(r >= 50e9) }' "$f"; then
				files="$files $f"
				nruns=$((nruns + 1))
			fi
		done
		[ "$nruns" -gt 0 ] || continue
		set -- $(absdev $files | stats)
		printf '# runs of 50 ms or more: ranks=%s mode=%s: median_abs_dev_pct=%s max_abs_dev_pct=%s over %s ranks of %s runs\n' \
			"$np" "$m" "$1" "$2" "$4" "$nruns"
	done
done
