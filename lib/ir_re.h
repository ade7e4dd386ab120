/*
 * ir_re.h: the regular expressions the tools take from the command line (trace2goal and
 * cmp-real --from/--to), compiled with PCRE2 (libpcre2-8) so that both read a pattern alike.
 */
#ifndef IR_RE_H
#define IR_RE_H

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

#include "ir_err.h"

/* Compile the pattern re given to the option opt; NULL with e set ("invalid regular
 * expression for OPT: 'RE': REASON at offset N") when it does not compile. */
pcre2_code *ir_re_compile(const char *re, const char *opt, ir_err *e);

#endif
