#!/bin/sh
# allprof: the launcher's command line, error paths and exit statuses.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/allprof-lib.sh"
command -v allprof >/dev/null 2>&1 || skip_all "allprof not built"

test_expect_success '--help prints the synopsis of the man page and exits 0' '
	allprof --help >out &&
	grep -q "^Usage: allprof \[-o DIR\] \[-z\] \[-q\] \[--cpu-time\] \[--span\] \[--format FORMAT\] \[--\] COMMAND \[ARG...\]$" out &&
	sed -n "/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p" "$TOP/docs/man/allprof.1" >syn &&
	grep -q "^\.B allprof$" syn &&
	grep -q "^\[\\\\fB\\\\-o\\\\fR \\\\fIDIR\\\\fR\]" syn
'

test_expect_success '--version' '
	allprof --version >out &&
	grep -q "^allprof (ibreplay) " out
'

test_expect_success 'no command is a usage error' '
	expect_fail 2 allprof &&
	expect_err "allprof: no command given" &&
	expect_err "Try '"'"'allprof --help'"'"' for more information."
'

test_expect_success 'an unknown option is a usage error' '
	expect_fail 2 allprof --bogus true
'

test_expect_success 'an empty -o is a usage error' '
	expect_fail 2 allprof -o "" true &&
	expect_err "allprof: empty output directory"
'

test_expect_success 'a directory that cannot be made is an error' '
	: >file &&
	expect_fail 1 allprof -o file/sub true &&
	expect_err "allprof: cannot create directory '"'"'file/sub'"'"': Not a directory"
'

test_expect_success 'a directory holding traces is refused' '
	mkdir old && : >old/rank-0.trace &&
	expect_fail 1 allprof -o old true &&
	expect_err "allprof: '"'"'old'"'"' already holds traces (rank-0.trace); remove them or use another -o DIR"
'

test_expect_success 'a command that does not exist: 127 and a message' '
	expect_fail 127 allprof -o d1 ./no-such-program &&
	expect_err "allprof: cannot run '"'"'./no-such-program'"'"': No such file or directory"
'

test_expect_success 'the exit status of a failing command is passed on' '
	expect_fail 3 allprof -q -o d2 -- sh -c "exit 3"
'

test_expect_success 'a command killed by a signal: 128 + signal' '
	expect_fail 143 allprof -q -o d3 -- sh -c "kill -TERM \$\$"
'

test_expect_success 'a successful command that wrote no traces is an error' '
	expect_fail 1 allprof -o d4 true &&
	expect_err "allprof: no traces written in '"'"'$TRASH/d4'"'"' (is the command an MPI program?)"
'

test_expect_success 'the environment reaches the command; options stop at the command' '
	allprof -q -o d5 -z sh -c env -o >env.out 2>/dev/null;
	grep -q "^ALLPROF_DIR=$TRASH/d5$" env.out &&
	grep -q "^ALLPROF_COMPRESS=1$" env.out &&
	grep -q "^LD_PRELOAD=.*liballprof.so" env.out &&
	grep -q "^OMPI_MCA_mca_base_env_list=LD_PRELOAD;ALLPROF_DIR;ALLPROF_COMPRESS" env.out
'

test_expect_success '--print-lib names the library; ALLPROF_LIB overrides it' '
	allprof --print-lib >lib &&
	test -r "$(cat lib)" &&
	ALLPROF_LIB=/nonexistent/liballprof.so expect_fail 1 allprof --print-lib &&
	grep -q "^allprof: cannot find liballprof.so" err
'

test_expect_success 'the default directory is allprof-<date>-<time>' '
	mkdir dflt && cd dflt &&
	allprof -q true 2>/dev/null;
	ls | grep -qx "allprof-[0-9]\{8\}-[0-9]\{6\}"
'
test_done
