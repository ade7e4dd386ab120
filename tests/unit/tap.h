/*
 * tap.h: a tiny TAP producer for C unit tests (tests/unit/u-*.c).
 *
 *   ok(cond, "title %d", x);     one test point
 *   is_u64(got, want, "title");  equality with both values shown on failure
 *   is_str(got, want, "title");
 *   return tap_done();           prints the plan, returns the exit status
 */
#ifndef TAP_H
#define TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3))) static int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

#define is_u64(got, want, ...)                                                               \
	do {                                                                                     \
		uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                                \
		if (!ok(g_ == w_, __VA_ARGS__))                                                      \
			printf("#   got:  %" PRIu64 "\n#   want: %" PRIu64 "\n", g_, w_);              \
	} while (0)

#define is_str(got, want, ...)                                                               \
	do {                                                                                     \
		const char *g_ = (got), *w_ = (want);                                                \
		if (!ok(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__))                               \
			printf("#   got:  '%s'\n#   want: '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
	} while (0)

static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
