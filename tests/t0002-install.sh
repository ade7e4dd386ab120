#!/bin/sh
# make install honours PREFIX and DESTDIR: tools, man pages and liballprof.so
# land where they should, the installed allprof finds its library beside it,
# and make uninstall removes them again.
. "$(dirname "$0")/lib.sh"
# nested makes run on their own, not in the jobserver of a `make -j check`
unset MAKEFLAGS MFLAGS MAKELEVEL

run_make() {
	# shellcheck disable=SC2086
	make -s -C "$TOP" $IR_MAKEVARS "$@"
}

test_expect_success 'make install DESTDIR=... PREFIX=/opt/ir installs every tool and man page' '
	run_make install DESTDIR="$TRASH/root" PREFIX=/opt/ir >install.out 2>&1 &&
	for t in "$IR_BIN"/*; do
		n=$(basename "$t") &&
		test -x "root/opt/ir/bin/$n" &&
		test -f "root/opt/ir/share/man/man1/$n.1" || { echo "missing $n"; return 1; }
	done &&
	test -f root/opt/ir/lib/liballprof.so
'

test_expect_success 'the installed tools run' '
	root/opt/ir/bin/goalgen dissemination 4 | root/opt/ir/bin/goalc -d >d.goal &&
	root/opt/ir/bin/ibsim -q d.goal >res &&
	test "$(grep -c "^[0-9]" res)" = 4
'

test_expect_success 'the installed allprof finds the installed library' '
	root/opt/ir/bin/allprof --print-lib >lib &&
	test "$(cat lib)" = "$TRASH/root/opt/ir/lib/liballprof.so"
'

test_expect_success 'the man pages are valid roff' '
	for m in root/opt/ir/share/man/man1/*.1; do
		LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$m" >page 2>warn || { cat warn; return 1; }
		test -s page || return 1
		! grep -i "warning" warn || return 1
	done
'

test_expect_success 'make uninstall removes what install put there' '
	run_make uninstall DESTDIR="$TRASH/root" PREFIX=/opt/ir >un.out 2>&1 &&
	test -z "$(find root -type f)"
'
test_done
