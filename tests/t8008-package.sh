#!/bin/sh
# Packaging: `make install DESTDIR=... PREFIX=/usr` puts every tool, man page, the static
# library, its headers and ibreplay.pc in place; a small program compiles and links against
# the installed library through pkg-config (PKG_CONFIG_SYSROOT_DIR for the DESTDIR); make
# uninstall removes all of it. Then, where dpkg-buildpackage and the build dependencies are
# installed, the .deb of debian/ is built from a copy of the tree (never in it), unpacked
# with dpkg-deb -x, and every tool's --version runs from there; the versions of the tools,
# the Makefile and debian/changelog agree. The package build runs no tests (nocheck).
. "$(dirname "$0")/lib.sh"
# nested makes run on their own, not in the jobserver of a `make -j check`
unset MAKEFLAGS MFLAGS MAKELEVEL

run_make() {
	# shellcheck disable=SC2086
	make -s -C "$TOP" $IR_MAKEVARS "$@"
}
SAN=$(printf '%s\n' "${IR_MAKEVARS:-}" | sed -n 's/.*SANITIZE=\([^ ]*\).*/\1/p')
VERSION=$(sed -n 's/^VERSION *:= *//p' "$TOP/Makefile")

test_expect_success 'make install DESTDIR=... PREFIX=/usr: tools, man pages, library, headers, .pc' '
	run_make install DESTDIR="$TRASH/root" PREFIX=/usr >install.out 2>&1 &&
	n=0 &&
	for t in "$IR_BIN"/*; do
		b=$(basename "$t") && n=$((n + 1)) &&
		test -x "root/usr/bin/$b" &&
		test -f "root/usr/share/man/man1/$b.1" || { echo "missing $b"; return 1; }
	done &&
	test "$n" = 8 &&
	test -f root/usr/lib/libibreplay.a &&
	test -f root/usr/lib/pkgconfig/ibreplay.pc &&
	test -f root/usr/include/ibreplay/ir_err.h &&
	test -f root/usr/include/ibreplay/ir_goal.h &&
	! ls root/usr/include/ibreplay | grep -q "_internal\.h\|ir_t2g_calls\.h"
'

test_expect_success 'the .pc file names the prefix and the version' '
	grep -qx "prefix=/usr" root/usr/lib/pkgconfig/ibreplay.pc &&
	grep -qx "Version: $VERSION" root/usr/lib/pkgconfig/ibreplay.pc
'

export PKG_CONFIG_PATH="$TRASH/root/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$TRASH/root"

test_expect_success 'pkg-config --cflags --libs ibreplay points into the DESTDIR' '
	pkg-config --modversion ibreplay >ver && test "$(cat ver)" = "$VERSION" &&
	pkg-config --cflags --libs ibreplay >flags &&
	grep -q -- "-I$TRASH/root/usr/include/ibreplay" flags &&
	grep -q -- "-L$TRASH/root/usr/lib .*-libreplay" flags &&
	pkg-config --static --libs ibreplay >sflags &&
	grep -q -- "-lzstd" sflags && grep -q -- "-lpcre2-8" sflags
'

cat >prog.c <<'EOF2'
#include <stdint.h>
#include <stdio.h>
#include <ir_err.h>
#include <ir_num.h>

int main(void)
{
	ir_err e;
	uint64_t ps;
	if (ir_parse_time("2.5us", &ps, "time", &e)) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	printf("%llu\n", (unsigned long long)ps);
	return 0;
}
EOF2

test_expect_success 'a program compiles and links against the installed library' '
	# shellcheck disable=SC2046
	${CC:-cc} -std=c11 -Wall -Werror ${SAN:+-fsanitize=$SAN} -o prog prog.c \
		$(pkg-config --cflags ibreplay) $(pkg-config --libs ibreplay) &&
	test "$(./prog)" = 2500000 &&
	# shellcheck disable=SC2046
	${CC:-cc} -std=c11 ${SAN:+-fsanitize=$SAN} -o sprog prog.c \
		$(pkg-config --cflags ibreplay) $(pkg-config --static --libs ibreplay) &&
	test "$(./sprog)" = 2500000
'

test_expect_success 'make uninstall removes all of it' '
	run_make uninstall DESTDIR="$TRASH/root" PREFIX=/usr >un.out 2>&1 &&
	test -z "$(find root -type f)" &&
	test ! -e root/usr/include/ibreplay
'

test_expect_success 'debian/changelog has the version the tools print' '
	head -1 "$TOP/debian/changelog" >cl &&
	grep -q "^ibreplay ($VERSION) " cl &&
	goalc --version >v && test "$(cat v)" = "goalc (ibreplay) $VERSION"
'

# The .deb: on a copy of the tracked (and new, not ignored) files of the tree.
why=""
if [ -n "$SAN" ]; then
	why="the sanitizer run would build the same package as the plain one"
elif ! command -v dpkg-buildpackage >/dev/null 2>&1; then
	why="dpkg-buildpackage is not installed (dpkg-dev)"
elif ! command -v dh >/dev/null 2>&1; then
	why="debhelper is not installed"
elif ! git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	why="the source is not a git checkout, whose file list the copy takes"
else
	find "$TOP/debian" | sort >debian.before &&
	mkdir src &&
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard | tar -cf - --null -T -) | tar -C src -xf - &&
	if ! (cd src && dpkg-checkbuilddeps) >deps.out 2>&1; then
		why="build dependencies missing: $(sed -n "s/.*Unmet build dependencies: //p" deps.out)"
	fi
fi

if [ -n "$why" ]; then
	test_skip 'dpkg-buildpackage builds the .deb' "$why"
	test_skip 'every tool of the .deb runs --version' "$why"
else
	test_expect_success 'dpkg-buildpackage builds the .deb (no tests run in it)' '
		(cd src && DEB_BUILD_OPTIONS="nocheck parallel=2 noautodbgsym" \
			dpkg-buildpackage -us -uc -b) >deb.out 2>&1 || { tail -30 deb.out; return 1; } &&
		test -f "ibreplay_${VERSION}_$(dpkg --print-architecture).deb" &&
		find "$TOP/debian" | sort >debian.after &&
		test_cmp debian.before debian.after
	'
	test_expect_success 'every tool of the .deb runs --version; ours is ibreplay-ibsim in /usr/bin' '
		dpkg-deb -x ibreplay_"$VERSION"_*.deb x &&
		for t in "$IR_BIN"/*; do
			b=$(basename "$t") && n=$b &&
			if [ "$b" = ibsim ]; then n=ibreplay-ibsim; fi &&
			# a tool names itself by the name it was called by
			x/usr/bin/$n --version >v1 &&
			test "$(cat v1)" = "$n (ibreplay) $VERSION" &&
			x/usr/lib/ibreplay/bin/$b --version >v2 &&
			test "$(cat v2)" = "$b (ibreplay) $VERSION" &&
			test -f "x/usr/share/man/man1/$n.1.gz" || { echo "tool $b"; return 1; }
		done &&
		test ! -e x/usr/bin/ibsim &&
		test -f x/usr/lib/libibreplay.a && test -f x/usr/lib/pkgconfig/ibreplay.pc &&
		x/usr/bin/allprof --print-lib >lib && test "$(cat lib)" = "$TRASH/x/usr/lib/liballprof.so" &&
		dpkg-deb -f ibreplay_"$VERSION"_*.deb Version >dv && test "$(cat dv)" = "$VERSION"
	'
fi
test_done
