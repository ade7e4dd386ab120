/*
 * ir_num.c: integer, time and size parsing with units (see ir_num.h).
 */
#include "ir_num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ir_scan_u64(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	if (p >= end || *p < '0' || *p > '9')
		return -1;
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		p++;
	}
	*pp = p;
	*out = v;
	return 0;
}

static int bad(ir_err *e, const char *what, const char *kind, const char *s, const char *hint)
{
	char q[160];
	ir_err_quote(q, sizeof q, s, strlen(s));
	return ir_errf(e, "invalid %s%s%s: '%s' (%s)", kind, what ? " for " : "", what ? what : "", q, hint);
}

int ir_parse_u64(const char *s, uint64_t *out, const char *what, ir_err *e)
{
	const char *p = s, *end = s + strlen(s);
	uint64_t v;
	if (ir_scan_u64(&p, end, &v) || p != end) {
		if (strspn(s, "0123456789") == strlen(s) && *s)
			return bad(e, what, "number", s, "does not fit in 64 bits");
		return bad(e, what, "number", s, "expected a non-negative integer");
	}
	*out = v;
	return 0;
}

int ir_parse_i64(const char *s, int64_t *out, const char *what, ir_err *e)
{
	int neg = *s == '-';
	uint64_t v;
	ir_err tmp;
	if (ir_parse_u64(s + neg, &v, what, &tmp)) {
		if (s[neg] && strspn(s + neg, "0123456789") == strlen(s + neg))
			return bad(e, what, "number", s, "does not fit in 64 bits");
		return bad(e, what, "number", s, "expected an integer");
	}
	if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
		return bad(e, what, "number", s, "does not fit in 64 bits");
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int ir_parse_range(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, const char *what, ir_err *e)
{
	uint64_t v;
	if (ir_parse_u64(s, &v, what, e))
		return -1;
	if (v < lo || v > hi) {
		char hint[96];
		snprintf(hint, sizeof hint, "expected %llu..%llu", (unsigned long long)lo, (unsigned long long)hi);
		return bad(e, what, "value", s, hint);
	}
	*out = v;
	return 0;
}

/* <digits>[.<digits>]<unit>, result = number * mult, exact. */
static int parse_units(const char *s, uint64_t *out, const char *what, ir_err *e, const char *kind,
                       const char *const *units, const uint64_t *mults, const char *hint)
{
	const char *p = s, *end = s + strlen(s);
	uint64_t ip = 0, fp = 0, fscale = 1, mult = 1;
	size_t nfrac = 0;
	int i;
	if (ir_scan_u64(&p, end, &ip)) {
		if (p < end && *p >= '0' && *p <= '9')
			return bad(e, what, kind, s, "does not fit in 64 bits");
		return bad(e, what, kind, s, hint);
	}
	if (p < end && *p == '.') {
		p++;
		while (p < end && *p >= '0' && *p <= '9') {
			if (nfrac < 18) {
				fp = fp * 10 + (uint64_t)(*p - '0');
				fscale *= 10;
				nfrac++;
			} else if (*p != '0') {
				return bad(e, what, kind, s, "too many decimals");
			}
			p++;
		}
		if (nfrac == 0)
			return bad(e, what, kind, s, hint);
	}
	if (p < end) {
		for (i = 0; units[i]; i++)
			if (strcmp(p, units[i]) == 0)
				break;
		if (!units[i])
			return bad(e, what, kind, s, hint);
		mult = mults[i];
	}
	if (ip && mult > UINT64_MAX / ip)
		return bad(e, what, kind, s, "does not fit in 64 bits");
	uint64_t v = ip * mult;
	if (fp) {
		/* fp/fscale * mult must be whole */
		unsigned __int128 f = (unsigned __int128)fp * mult;
		if (f % fscale)
			return bad(e, what, kind, s, "not a whole number of the base unit");
		uint64_t add = (uint64_t)(f / fscale);
		if (v > UINT64_MAX - add)
			return bad(e, what, kind, s, "does not fit in 64 bits");
		v += add;
	}
	*out = v;
	return 0;
}

int ir_parse_time(const char *s, uint64_t *ps, const char *what, ir_err *e)
{
	static const char *const u[] = { "ps", "ns", "us", "ms", "s", NULL };
	static const uint64_t m[] = { 1, 1000, 1000000, 1000000000, 1000000000000ULL };
	return parse_units(s, ps, what, e, "time", u, m,
	                   "expected a number with an optional unit ps, ns, us, ms or s; plain numbers are ps");
}

int ir_parse_size(const char *s, uint64_t *bytes, const char *what, ir_err *e)
{
	static const char *const u[] = { "B", "K", "M", "G", "T", "KiB", "MiB", "GiB", "TiB", NULL };
	static const uint64_t m[] = { 1, 1ULL << 10, 1ULL << 20, 1ULL << 30, 1ULL << 40,
	                              1ULL << 10, 1ULL << 20, 1ULL << 30, 1ULL << 40 };
	return parse_units(s, bytes, what, e, "size", u, m,
	                   "expected a number with an optional unit B, K, M, G or T; plain numbers are bytes");
}

int ir_parse_double(const char *s, double *out, const char *what, ir_err *e)
{
	char *end;
	double v;
	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v))
		return bad(e, what, "number", s, "expected a decimal number");
	*out = v;
	return 0;
}

char *ir_fmt_time(char *buf, size_t n, uint64_t ps)
{
	static const char *const u[] = { "s", "ms", "us", "ns" };
	static const uint64_t m[] = { 1000000000000ULL, 1000000000, 1000000, 1000 };
	static const int digits[] = { 12, 9, 6, 3 };
	int i;
	for (i = 0; i < 4; i++) {
		if (ps >= m[i]) {
			uint64_t frac = ps % m[i];
			int dec = digits[i];
			if (!frac) {
				snprintf(buf, n, "%llu%s", (unsigned long long)(ps / m[i]), u[i]);
				return buf;
			}
			while (frac % 10 == 0) {
				frac /= 10;
				dec--;
			}
			snprintf(buf, n, "%llu.%0*llu%s", (unsigned long long)(ps / m[i]), dec,
			         (unsigned long long)frac, u[i]);
			return buf;
		}
	}
	snprintf(buf, n, "%llups", (unsigned long long)ps);
	return buf;
}

char *ir_fmt_size(char *buf, size_t n, uint64_t bytes)
{
	static const char *const u[] = { "T", "G", "M", "K" };
	static const int sh[] = { 40, 30, 20, 10 };
	int i;
	for (i = 0; i < 4; i++) {
		if (bytes && bytes % (1ULL << sh[i]) == 0) {
			snprintf(buf, n, "%llu%s", (unsigned long long)(bytes >> sh[i]), u[i]);
			return buf;
		}
	}
	snprintf(buf, n, "%llu", (unsigned long long)bytes);
	return buf;
}
