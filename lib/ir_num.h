/*
 * ir_num.h: numbers as users type them: integers with overflow checks,
 * times with units, sizes with units.
 *
 *   times: <number>[ps|ns|us|ms|s]   plain numbers are picoseconds; decimals
 *          are allowed when the result is a whole number of picoseconds
 *          ("1.5us" = 1500000 ps; "0.5ps" is an error)
 *   sizes: <number>[B|K|M|G|T] with K = 1024 (also KiB MiB GiB TiB); plain = bytes
 *
 * Every parser rejects empty strings, signs where none is allowed, trailing
 * garbage and values that do not fit in 64 bits, and says so in `e` quoting
 * the value. The `what` argument names the field in the message
 * ("invalid time for -L: '12xs' (expected ...)").
 */
#ifndef IR_NUM_H
#define IR_NUM_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"

int ir_parse_u64(const char *s, uint64_t *out, const char *what, ir_err *e);
int ir_parse_i64(const char *s, int64_t *out, const char *what, ir_err *e);
/* Unsigned integer in [lo, hi]. */
int ir_parse_range(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, const char *what, ir_err *e);
int ir_parse_time(const char *s, uint64_t *ps, const char *what, ir_err *e);
int ir_parse_size(const char *s, uint64_t *bytes, const char *what, ir_err *e);
/* Decimal number (for percentages, seeds of floating values). */
int ir_parse_double(const char *s, double *out, const char *what, ir_err *e);

/* Format a time exactly, in the largest unit it reaches, with as many decimals as
 * needed ("2500" -> "2.5ns", "1500000" -> "1.5us", "7094708386" -> "7.094708386ms"). */
char *ir_fmt_time(char *buf, size_t n, uint64_t ps);
/* Format a size with the largest binary unit that keeps it exact ("2048" -> "2K"). */
char *ir_fmt_size(char *buf, size_t n, uint64_t bytes);

/* Fast unchecked-length digit scan used by parsers: parses [0-9]+ at *p (at most 19
 * digits fit; 20 are checked), advances *p. Returns 0, or -1 if no digit or overflow. */
int ir_scan_u64(const char **p, const char *end, uint64_t *out);

#endif
