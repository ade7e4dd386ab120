#!/bin/sh
# Every tool follows the command-line conventions of docs/architecture.md section 3:
# --help on stdout with exit 0, --version, usage errors with exit 2, and a man
# page whose SYNOPSIS carries the same usage lines as --help.
. "$(dirname "$0")/lib.sh"

# usage lines of --help: "Usage: X ..." and the following "   or: X ..." lines
help_synopsis() {
	"$1" --help | sed -n 's/^Usage: *//p; s/^  *or: *//p' | tr -s ' \t' ' ' | sed 's/ *$//'
}
# SYNOPSIS of a man page with the roff markup removed, one line per usage form:
# a form starts at each line that begins with the tool's name (".B tool ...")
man_synopsis() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$1" | sed '1d;$d' |
	grep -v '^\.\(br\|PP\|nf\|fi\|sp\|ad\|nh\|hy\|in\|HP\|TP\|SY\|YS\)\>' |
	sed 's/^\.[A-Z][A-Z]* *//; s/\\f[BIRP]//g; s/\\-/-/g; s/\\ / /g; s/\\|//g; s/"//g' |
	awk -v tool="$2" '
		{ sub(/^[ \t]+/, "") }
		$0 == "" { next }
		$1 == tool { if (cur != "") print cur; cur = $0; next }
		{ cur = cur " " $0 }
		END { if (cur != "") print cur }' |
	tr -s ' \t' ' ' | sed 's/ *$//'
}

for t in "$IR_BIN"/*; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	n=$(basename "$t")
	test_expect_success "$n --help prints usage on stdout and exits 0" '
		"$t" --help >out 2>err &&
		grep -q "^Usage: $n" out && ! test -s err
	'
	test_expect_success "$n --version names the tool and the project" '
		"$t" --version >out && grep -qx "$n (ibreplay) [0-9.]*" out
	'
	test_expect_success "$n rejects an unknown option with exit 2" '
		expect_fail 2 "$t" --no-such-option &&
		grep -q "Try .$n --help." err
	'
	test_expect_success "$n has a man page whose SYNOPSIS matches --help" '
		test -f "$TOP/docs/man/$n.1" &&
		help_synopsis "$t" >help.syn &&
		man_synopsis "$TOP/docs/man/$n.1" "$n" >man.syn &&
		test -s help.syn &&
		test_cmp help.syn man.syn
	'
done
test_done
