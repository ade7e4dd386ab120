/*
 * ir_cli.h: what every tool's main() shares: the program name, error and
 * usage reporting with the project's exit codes, --version, the stdout
 * close check, and the progress bar.
 *
 * This is the one library module that writes to stderr; it is only called
 * from tools/ (the rest of lib/ never prints or exits, it returns ir_err).
 *
 * Exit codes (every man page documents them): IR_EXIT_OK 0, IR_EXIT_BAD 1
 * (bad input, failed run), IR_EXIT_USAGE 2 (bad command line).
 */
#ifndef IR_CLI_H
#define IR_CLI_H

#include <stdint.h>

#include "ir_err.h"

enum { IR_EXIT_OK = 0, IR_EXIT_BAD = 1, IR_EXIT_USAGE = 2 };

void ir_cli_init(const char *prog);       /* call first in main() */
const char *ir_cli_prog(void);
/* "prog: <e->msg>" on stderr; returns IR_EXIT_BAD. */
int ir_cli_fail(const ir_err *e);
/* "prog: <message>" on stderr; returns IR_EXIT_BAD. */
int ir_cli_failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: warning: <message>" on stderr. */
void ir_cli_warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: <message>\nTry 'prog --help' for more information." ; returns IR_EXIT_USAGE. */
int ir_cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The usage error for getopt_long's return `c` of ':' (missing value) or '?'
 * (unknown option), with an optstring that starts with ':'. Returns IR_EXIT_USAGE. */
int ir_cli_getopt_error(int c, char *const argv[]);
/* "prog (ibreplay) VERSION" on stdout. */
void ir_cli_version(void);
/* Flush and close stdout; on error print it and return IR_EXIT_BAD, else `status`. */
int ir_cli_finish(int status);

/* Progress bar on stderr: shown when `mode` is 1 (forced), or when mode is -1
 * (auto) and stderr is a terminal and the work has taken more than a second.
 * mode 0 disables it. */
typedef struct ir_progress {
	int mode;
	int shown;
	double start;
	double last;
	const char *what;
} ir_progress;
void ir_progress_init(ir_progress *p, int mode, const char *what);
void ir_progress_update(ir_progress *p, uint64_t done, uint64_t total);
void ir_progress_end(ir_progress *p);

/* Seconds on a monotonic clock, for wall-time figures. */
double ir_now(void);

#endif
