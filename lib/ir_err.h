/*
 * ir_err.h: error values of the ibreplay library.
 *
 * The library never prints and never exits. A function that can fail takes an
 * `ir_err *` as its last argument, fills it with one line of text and returns
 * -1 (or NULL). Messages name the place first ("file:line: ") and then say
 * what was expected and what was found, quoting the bad value, so a tool only
 * has to print "tool: <msg>". The buffer is fixed-size so reporting an error
 * never allocates (it may be reporting an allocation failure).
 */
#ifndef IR_ERR_H
#define IR_ERR_H

#include <stddef.h>

#define IR_ERR_MAX 512

typedef struct ir_err {
	char msg[IR_ERR_MAX];
} ir_err;

/* Set the message (printf-style). Always returns -1 so callers can `return ir_errf(...)`.
 * `e` may be NULL (the message is dropped). */
int ir_errf(ir_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Same, prefixed with "file:line: " (line 0 omits the line: "file: "). */
int ir_errf_at(ir_err *e, const char *file, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Prefix an existing message with "file: " unless it already starts with it. */
int ir_err_prefix(ir_err *e, const char *file);

/* Quote at most `max` bytes of `s` (length n) into `out` (size >= max*4+8) for messages:
 * non-printable bytes become \xNN, long values are cut with "...". Returns out. */
char *ir_err_quote(char *out, size_t outsz, const char *s, size_t n);

#endif
