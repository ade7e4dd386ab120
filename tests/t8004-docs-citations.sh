#!/bin/sh
# Every citation of a document names a file inside the repository, and every
# numbered section it cites exists there. Scanned: lib/ tools/ docs/ formats/
# tests/ pipelines/ fuzz/ and the top-level documents (text files only).
#
# A citation is a name ending in `.md`: with a directory it is a path from the
# top of the tree (or from the citing file's directory, as Markdown links
# are); a bare name must be some file of the tree (names are unique). Right
# after it, `§N`, `§N.M`, `section N` or `, section N` cites a section, which
# must be a heading `N. ...` or `N.M ...` of that file. In Markdown files a `§N`
# without a file name cites the file itself, or, after `X.md §3 and`, `or`,
# `to` or a comma, the same X.md as the citation before it.
. "$(dirname "$0")/lib.sh"

# cites FILE...: one line per citation: citing file, cited name, section (or -)
cites() {
	awk '
	function flush(   t, pre, m, name, rest, sec, s, last, gap, stop) {
		if (file == "")
			return
		t = text
		last = ""
		while (t != "") {
			# the next file name or bare section sign, whichever comes first
			m = match(t, /[A-Za-z0-9_][A-Za-z0-9_.\/-]*\.md|\302\247 ?[0-9]+(\.[0-9]+)*/)
			if (!m)
				break
			pre = substr(t, 1, RSTART - 1)
			name = substr(t, RSTART, RLENGTH)
			t = substr(t, RSTART + RLENGTH)
			if (substr(name, 1, 2) == "\302\247") {
				sec = name
				sub(/^\302\247 ?/, "", sec)
				sub(/\.$/, "", sec)
				if (file !~ /\.md$/)
					continue
				if (last == "" || pre !~ /^ *(,|and|or|to|, and|, or) *$/)
					last = ""
				print file "\t" (last != "" ? last : file) "\t" sec
				continue
			}
			# not a name: the middle of a longer word, a URL, a glob
			if (pre ~ /(:\/\/[^ ]*|[*%$])$/ || t ~ /^[A-Za-z0-9_]/) {
				last = ""
				continue
			}
			sec = "-"
			if (match(t, /^,? ?(\302\247 ?|section )[0-9]+(\.[0-9]+)*/)) {
				s = substr(t, 1, RLENGTH)
				t = substr(t, RLENGTH + 1)
				sub(/^,? ?(\302\247 ?|section )/, "", s)
				sec = s
			}
			print file "\t" name "\t" sec
			last = name
		}
	}
	FNR == 1 { flush(); file = FILENAME; text = ""; code = FILENAME ~ /\.[ch]$/ }
	{
		l = $0
		if (code && l !~ /^[ \t]*(\/\*|\*|\/\/)/ && index(l, "/*") == 0) {
			# C code (g.md is a field): only its string literals
			s = l
			l = ""
			while (match(s, /"([^"\\]|\\.)*"/)) {
				l = l " " substr(s, RSTART + 1, RLENGTH - 2)
				s = substr(s, RSTART + RLENGTH)
			}
		}
		gsub(/\\-/, "-", l)            # roff: \- and font changes
		gsub(/\\f[BIRP]/, "", l)
		sub(/^[ \t]*(\*|#+|\/\/|\.[A-Z][A-Z]?)?[ \t]*/, "", l)
		text = text " " l
	}
	END { flush() }' "$@"
}

# resolve FROM NAME: the path of the cited file from the top of the tree, or nothing
resolve() {
	case $2 in
	*/*)
		p=${2#./}
		if [ -f "$TOP/$p" ]; then
			echo "$p"
		elif [ -f "$TOP/$(dirname "$1")/$p" ]; then
			echo "$(dirname "$1")/$p"
		fi
		;;
	*)
		if [ -f "$TOP/$1" ] && [ "$(basename "$1")" = "$2" ]; then
			echo "$1"
		else
			grep -x "\(.*/\)\{0,1\}$2" "$TRASH/tree" | head -n 1
		fi
		;;
	esac
}

# has_section FILE N: FILE has a heading numbered N ("## 6. ..." or "### 6.2 ...")
has_section() {
	re=$(printf '%s' "$2" | sed 's/\./\\./g')
	grep -qE "^#+ $re(\.| |\$)" "$TOP/$1"
}

# Reports the pipelines write (pipelines/validate.mk, pipelines/crossnet.mk): named as
# outputs, not cited as documents of the tree.
GENERATED="deviation.md crossnet.md"

# check FILE...: every citation in the files resolves; prints the bad ones
check() {
	cites "$@" >"$TRASH/cites.tsv" || return 1
	bad=0
	while IFS='	' read -r from name sec; do
		case " $GENERATED " in *" $(basename "$name") "*) continue ;; esac
		to=$(resolve "$from" "$name")
		if [ -z "$to" ]; then
			echo "$from: cites $name, which is not in the repository"
			bad=1
		elif [ "$sec" != - ] && ! has_section "$to" "$sec"; then
			echo "$from: cites $name section $sec, which $to does not have"
			bad=1
		fi
	done <"$TRASH/cites.tsv"
	return $bad
}

test_expect_success 'the files to scan' '
	(cd "$TOP" && find . -path ./build -prune -o -path ./.git -prune -o -type f -print) |
		sed "s|^\./||" | sort >tree &&
	(cd "$TOP" && grep -lIr "" lib tools docs formats tests pipelines fuzz \
		README.md CONTRIBUTING.md) | grep -vx "tests/$TEST_NAME.sh" | sort >scan &&
	test "$(wc -l <scan)" -gt 100
'

test_expect_success 'the checker finds citations and sections' '
	mkdir -p d && cd d &&
	printf "see docs/loggops-semantics.md §7 and §6.2, formats/results.md section 5.8,\n" >a.md &&
	printf "# 1. One\n\n§1 and docs/schedgen-compat.md, and README.md.\n" >>a.md &&
	cites a.md >got &&
	printf "a.md\tdocs/loggops-semantics.md\t7\na.md\tdocs/loggops-semantics.md\t6.2\n" >want &&
	printf "a.md\tformats/results.md\t5.8\na.md\ta.md\t1\n" >>want &&
	printf "a.md\tdocs/schedgen-compat.md\t-\na.md\tREADME.md\t-\n" >>want &&
	test_cmp want got
'

test_expect_success 'the checker fails on a missing file and on a missing section' '
	mkdir -p bad && cd bad &&
	printf "/* see no-such-design-note.md */\n" >missing.c &&
	printf "# the rules of docs/loggops-semantics.md section 17\n" >nosec.sh &&
	printf "see formats/results.md §5.9\n" >nosec.md &&
	for f in missing.c nosec.sh nosec.md; do
		! check "$f" >out || { echo "no failure for $f"; return 1; }
	done &&
	! check nosec.md >out &&
	grep -qxF "nosec.md: cites formats/results.md section 5.9, which formats/results.md does not have" out
'

test_expect_success 'every cited document exists, with every cited section' '
	(cd "$TOP" && check $(cat "$TRASH/scan")) >out 2>&1 || { cat out; false; }
'

test_expect_success 'the specifications the code cites are in the repository' '
	for f in docs/loggops-semantics.md docs/schedgen-compat.md docs/architecture.md \
		docs/ib-model.md formats/trace.md formats/results.md; do
		test -f "$TOP/$f" || { echo "missing $f"; return 1; }
	done
'
test_done
