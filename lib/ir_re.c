/*
 * ir_re.c: see ir_re.h.
 */
#include "ir_re.h"

#include <string.h>

pcre2_code *ir_re_compile(const char *re, const char *opt, ir_err *e)
{
	int ec;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &ec, &off, NULL);
	if (!c) {
		PCRE2_UCHAR buf[160];
		char q[200];
		pcre2_get_error_message(ec, buf, sizeof buf);
		ir_err_quote(q, sizeof q, re, strlen(re));
		ir_errf(e, "invalid regular expression for %s: '%s': %s at offset %zu", opt, q, (char *)buf, (size_t)off);
	}
	return c;
}
