#!/bin/sh
# tests/bench/history.sh: the benchmark history (formats/bench-history.md), the
# logic behind `make bench` and `make bench-record` kept out of the driver so
# that tests/t8007-bench-history.sh can run it on fixture files, without
# measuring anything:
#
#   history.sh machine              this machine: id<TAB>description
#   history.sh summarize [RAW]      figures, one line per run (tool benchmark
#                                   metric value unit), to one line per figure:
#                                   tool benchmark metric min median max runs unit
#   history.sh check HISTORY        exit 1 with HISTORY:LINE: message if malformed
#   history.sh compare [-m ID] HISTORY [SUMMARY]
#                                   the summary with vs_last and change columns,
#                                   against the last row of machine ID
#   history.sh record [-m ID] [-M DESC] [-d DATE] [-c COMMIT] HISTORY [SUMMARY]
#                                   append one history row per summary line
#
# The machine, date and commit default to this machine, now (UTC) and the
# checkout's HEAD (with +dirty when the tree has changes other than the
# history itself); BENCH_MACHINE and BENCH_MACHINE_DESC override the machine
# (two hosts with the same hardware description share a history otherwise).
# A missing HISTORY is an empty history; record creates it with its header.
# Plain POSIX sh and awk (mawk included): no dependency beyond the build's.
# The median of an even number of runs is the lower middle value, so every
# figure in the history is one that was measured.
set -u
ME=history.sh
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
COLUMNS_LINE='date	commit	machine	machine_desc	tool	benchmark	metric	min	median	max	runs	unit'

usage() {
	cat >&2 <<EOF
usage: $ME machine
   or: $ME summarize [RAW]
   or: $ME check HISTORY
   or: $ME compare [-m ID] HISTORY [SUMMARY]
   or: $ME record [-m ID] [-M DESC] [-d DATE] [-c COMMIT] HISTORY [SUMMARY]
EOF
	exit 2
}

# machine_desc / machine_id: from /proc and uname; the id leaves the kernel
# out so that an update does not start a new history (the description keeps it)
machine_desc() {
	cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | sed -n 1p)
	[ -n "$cpu" ] || cpu=$(uname -m)
	cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
	mem=$(awk '$1 == "MemTotal:" { printf "%.0f", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
	printf '%s, %s cores, %s GiB, %s %s %s\n' "$cpu" "$cores" "${mem:-?}" "$(uname -s)" "$(uname -r)" "$(uname -m)" |
		tr '\t' ' '
}
machine_id() {
	cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | sed -n 1p)
	cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
	mem=$(awk '$1 == "MemTotal:" { printf "%.0f", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
	printf '%s %s %sc %sg\n' "$(uname -m)" "$cpu" "$cores" "${mem:-0}" | tr 'A-Z' 'a-z' |
		sed 's/(r)//g; s/(tm)//g; s/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//'
}

# The row checks every command shares: hrow() returns "" or the message.
AWKLIB='
function isnum(v) { return v ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
function hrow(   i) {
	if (NF != 12) return NF " fields, want 12"
	if ($1 !~ /^[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]Z$/)
		return "date \"" $1 "\" is not YYYY-MM-DDTHH:MM:SSZ"
	if ($2 !~ /^([0-9a-f]+(\+dirty)?|-)$/) return "commit \"" $2 "\" is not a hash, hash+dirty or -"
	if ($3 !~ /^[A-Za-z0-9._-]+$/) return "machine \"" $3 "\" is not [A-Za-z0-9._-]+"
	for (i = 4; i <= 7; i++) if ($i == "") return "field " i " is empty"
	for (i = 8; i <= 10; i++) if (!isnum($i)) return "field " i " \"" $i "\" is not a number"
	if (!($8 + 0 <= $9 + 0 && $9 + 0 <= $10 + 0)) return "min " $8 ", median " $9 ", max " $10 " are not in order"
	if ($11 !~ /^[1-9][0-9]*$/) return "runs \"" $11 "\" is not a positive integer"
	if ($12 == "") return "field 12 is empty"
	return ""
}
# srow(): the same for a summary line (tool benchmark metric min median max runs unit)
function srow(   i) {
	if (NF != 8) return NF " fields, want 8 (tool benchmark metric min median max runs unit)"
	for (i = 1; i <= 3; i++) if ($i == "") return "field " i " is empty"
	for (i = 4; i <= 6; i++) if (!isnum($i)) return "field " i " \"" $i "\" is not a number"
	if (!($4 + 0 <= $5 + 0 && $5 + 0 <= $6 + 0)) return "min " $4 ", median " $5 ", max " $6 " are not in order"
	if ($7 !~ /^[1-9][0-9]*$/) return "runs \"" $7 "\" is not a positive integer"
	if ($8 == "") return "field 8 is empty"
	return ""
}
# history line in $0, at where (FILE:LINE): skipped (comment, blank, the column line)
# or checked; dies on error
function hline(where,   m) {
	if ($0 ~ /^#/ || $0 ~ /^[ \t]*$/) return 0
	if (!seen_cols) {
		if ($0 != cols) die(where ": the column line is not the one of formats/bench-history.md")
		seen_cols = 1
		return 0
	}
	m = hrow()
	if (m != "") die(where ": " m)
	return 1
}
function die(m) { print me ": " m | "cat 1>&2"; bad = 1; exit 1 }
'

# check_file HISTORY: every line, and the newline at its end (appending relies on it)
check_file() {
	[ -e "$1" ] || return 0
	[ -r "$1" ] || { echo "$ME: $1: cannot read" >&2; return 1; }
	awk -F'\t' -v me="$ME" -v cols="$COLUMNS_LINE" "$AWKLIB"'{ hline(FILENAME ":" FNR) }' "$1" || return 1
	if [ -s "$1" ] && [ "$(tail -c 1 "$1" | wc -l)" -eq 0 ]; then
		echo "$ME: $1:$(($(wc -l <"$1") + 1)): no newline at the end of the file" >&2
		return 1
	fi
}

# git_commit: HEAD's short hash, +dirty if anything but the history differs from it
git_commit() {
	h=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null) || { echo -; return; }
	if [ -n "$(cd "$TOP" && git status --porcelain -- . ':(exclude)tests/bench/history.tsv' 2>/dev/null)" ]; then
		h="$h+dirty"
	fi
	echo "$h"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
id=${BENCH_MACHINE:-}
desc=${BENCH_MACHINE_DESC:-}
date=
commit=
while [ $# -gt 0 ]; do
	case $1 in
	-m) [ $# -ge 2 ] || usage; id=$2; shift 2 ;;
	-M) [ $# -ge 2 ] || usage; desc=$2; shift 2 ;;
	-d) [ $# -ge 2 ] || usage; date=$2; shift 2 ;;
	-c) [ $# -ge 2 ] || usage; commit=$2; shift 2 ;;
	--) shift; break ;;
	-?*) usage ;;
	*) break ;;
	esac
done

case $cmd in
machine)
	[ $# -eq 0 ] || usage
	printf '%s\t%s\n' "${id:-$(machine_id)}" "${desc:-$(machine_desc)}"
	;;
summarize)
	[ $# -le 1 ] || usage
	# keys in the order of their first run; values sorted per key (few runs: insertion sort)
	awk -F'\t' -v me="$ME" "$AWKLIB"'
	NF == 0 || /^#/ { next }
	NF != 5 || $1 == "" || $2 == "" || $3 == "" || !isnum($4) {
		print me ": " FILENAME ":" FNR ": not a figure (tool benchmark metric value unit), left out" | "cat 1>&2"
		next
	}
	{
		k = $1 "\t" $2 "\t" $3
		if (!(k in n)) { order[++nk] = k; unit[k] = $5 }
		else if (unit[k] != $5) {
			print me ": " FILENAME ":" FNR ": " $1 " " $2 " " $3 ": unit " $5 ", earlier " unit[k] ", left out" | "cat 1>&2"
			next
		}
		i = ++n[k]
		while (i > 1 && v[k, i - 1] + 0 > $4 + 0) { v[k, i] = v[k, i - 1]; i-- }
		v[k, i] = $4
	}
	END {
		for (j = 1; j <= nk; j++) {
			k = order[j]; c = n[k]
			printf "%s\t%s\t%s\t%s\t%d\t%s\n", k, v[k, 1], v[k, int((c + 1) / 2)], v[k, c], c, unit[k]
		}
	}' "${1:--}"
	;;
check)
	[ $# -eq 1 ] || usage
	check_file "$1" || exit 1
	;;
compare)
	[ $# -ge 1 ] && [ $# -le 2 ] || usage
	check_file "$1" || exit 1
	[ -n "$id" ] || id=$(machine_id)
	h=$1
	[ -e "$h" ] || h=/dev/null
	[ "${2:--}" = - ] || [ -r "$2" ] || { echo "$ME: $2: cannot read" >&2; exit 1; }
	# direction of "better": rates up; times, sizes and deviations down; counts, simulated
	# times and fitted parameters have none (any change is reported, none is good or bad)
	awk -F'\t' -v me="$ME" -v cols="$COLUMNS_LINE" -v id="$id" -v hist="$h" "$AWKLIB"'
	function dir(metric, u) {
		if (metric ~ /^(simulated_)?end$/ || metric ~ /^fit-/) return 0
		if (u ~ /\/s$/ || u == "x") return 1
		if (u ~ /^(s|ms|us|ns|ns\/call)$/ || u ~ /^(B|bytes|KiB|MiB|GiB|kB|MB|GB|%)$/) return -1
		return 0
	}
	BEGIN {
		# the history first, by getline: an empty or missing one is no history
		while ((getline < hist) > 0)
			if (hline(hist ":" ++ln) && $3 == id) {
				k = $5 "\t" $6 "\t" $7; lmin[k] = $8; lmed[k] = $9; lmax[k] = $10; lunit[k] = $12
			}
		close(hist)
	}
	NF == 0 || /^#/ { next }
	{
		m = srow()
		if (m != "") die(FILENAME ":" FNR ": " m)
		k = $1 "\t" $2 "\t" $3
		if (!(k in lmed) || lunit[k] != $8) { vs = "-"; ch = "new" }
		else {
			med = $5 + 0; d = dir($3, $8)
			speed = $8 ~ /\/s$/ || $8 ~ /^(s|ms|us|ns|ns\/call)$/
			if (lmed[k] + 0 != 0) vs = sprintf("%+.1f%%", (med - lmed[k]) / lmed[k] * 100)
			else vs = med == 0 ? "+0.0%" : "-"
			if (med >= lmin[k] + 0 && med <= lmax[k] + 0) ch = "same"
			else if (d == 0) ch = "CHANGED"
			else if ((med > lmax[k] + 0) == (d > 0)) ch = speed ? "faster" : "better"
			else ch = speed ? "SLOWER" : "WORSE"
		}
		cnt[ch]++
		print $0 "\t" vs "\t" ch
	}
	END {
		if (bad) exit 1
		s = ""; nc = split("SLOWER WORSE CHANGED faster better same new", cs, " ")
		for (j = 1; j <= nc; j++) if (cs[j] in cnt) s = s (s == "" ? "" : ", ") cnt[cs[j]] " " cs[j]
		if (s != "") print me ": against the history of " id ": " s | "cat 1>&2"
	}' "${2:--}"
	;;
record)
	[ $# -ge 1 ] && [ $# -le 2 ] || usage
	check_file "$1" || exit 1
	[ -n "$id" ] || id=$(machine_id)
	[ -n "$desc" ] || desc=$(machine_desc)
	[ -n "$date" ] || date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	[ -n "$commit" ] || commit=$(git_commit)
	tmp=$(mktemp "${TMPDIR:-/tmp}/bench-history.XXXXXX") || exit 1
	trap 'rm -f "$tmp"' EXIT
	# the new rows are made and checked in full before the history is touched
	awk -F'\t' -v OFS='\t' -v me="$ME" -v pre="$date	$commit	$id	$desc" "$AWKLIB"'
	NF == 0 || /^#/ { next }
	{ m = srow(); if (m != "") die(FILENAME ":" FNR ": " m); print pre, $0 }
	END { if (bad) exit 1 }' "${2:--}" >"$tmp" || exit 1
	awk -F'\t' -v me="$ME" -v cols="$COLUMNS_LINE" "$AWKLIB"'{ if (hrow() != "") die("row " FNR ": " hrow()) }' "$tmp" ||
		{ echo "$ME: the machine, date or commit do not fit the history (formats/bench-history.md)" >&2; exit 1; }
	if [ ! -s "$1" ]; then
		{
			echo "# tests/bench/history.tsv: the benchmark history (formats/bench-history.md)."
			echo "# Append-only: \`make bench-record\` adds one row per figure of \`make bench\`, which"
			echo "# compares each figure with the last row of the same machine, tool, benchmark and metric."
			echo "$COLUMNS_LINE"
		} >"$1" || exit 1
	fi
	cat "$tmp" >>"$1" || exit 1
	echo "$ME: $(wc -l <"$tmp" | tr -d ' ') rows appended to $1" >&2
	;;
*)
	usage
	;;
esac
