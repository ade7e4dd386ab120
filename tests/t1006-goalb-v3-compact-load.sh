#!/bin/sh
# ibsim's loading of a GOAL binary version 3 file straight into the compact form
# (goalb3_r_rank_compact, lib/ir_goal_bin3.c) against the general reader (goalc -c):
# on every single-byte corruption of small files the two accept the same files and
# name the same error; sections out of rank order and dependencies to earlier ops
# (the paths the fast ones leave to the general ones) simulate as version 1 does.
. "$(dirname "$0")/lib.sh"

# agree FILE: every byte of FILE xor 0x01 and 0xff: goalc -c and ibsim give the same
# status and message
agree() {
	n=$(wc -c <"$1") i=0 bad=0
	while [ $i -lt "$n" ]; do
		b=$(od -An -tu1 -j$i -N1 "$1" | tr -d ' ')
		for x in 1 255; do
			cp "$1" f.goalb
			printf "$(printf '\\%03o' $((b ^ x)))" | dd of=f.goalb bs=1 seek=$i conv=notrunc 2>/dev/null
			a=$(goalc -c f.goalb 2>&1; echo "status $?")
			c=$(ibsim -q f.goalb 2>&1 >/dev/null; echo "status $?")
			if [ "$(echo "$a" | sed 's/^goalc: //')" != "$(echo "$c" | sed 's/^ibsim: //')" ]; then
				say_fail "byte $i xor $x: goalc: $a" "ibsim: $c"
				bad=$((bad + 1))
			fi
		done
		i=$((i + 1))
	done
	test $bad = 0
}

# cpus, nics, a wildcard receive, an irequires, an attribute used once (inline) and
# twice (the table)
printf 'num_ranks 3\nrank 0 {\na: send 8b to 1 tag 3\nb: calc 100\nc: send 8b to 2 tag 3\nd: recv 4b from -1 tag -1\na requires b\nd irequires c\n}\nrank 1 {\nrecv 8b from 0 tag 3\nx: calc 5 cpu 1\ny: send 4b to 0 tag 9 nic 1\ny requires x\n}\nrank 2 {\nrecv 8b from 0 tag 3\n}\n' >s.goal
# sections out of rank order, a dependency on an earlier op (acyclicity is checked)
printf 'num_ranks 2\nrank 1 {\nr: recv 8b from 0 tag 1\nc: calc 7\nr requires c\n}\nrank 0 {\nsend 8b to 1 tag 1\n}\n' >o.goal

test_expect_success 'a small file: ibsim and goalc -c agree on every corruption' '
	goalc -o s.goalb s.goal && ibsim -q s.goalb >/dev/null && agree s.goalb
'
test_expect_success 'sections out of rank order, an edge backwards: they agree too' '
	goalc -o o.goalb o.goal && agree o.goalb
'
test_expect_success 'both files simulate as their version 1 files do' '
	for f in s o; do
		goalc --goalb-version 1 -o $f.v1.goalb $f.goal &&
		ibsim -q $f.goalb >$f.v3.res && ibsim -q $f.v1.goalb >$f.v1.res &&
		test_cmp $f.v1.res $f.v3.res || return 1
	done
'
test_done
