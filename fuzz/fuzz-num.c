/*
 * fuzz-num.c: libFuzzer target for lib/ir_num's parsers (ir_parse_u64,
 * ir_parse_i64, ir_parse_range, ir_parse_time, ir_parse_size). The input is
 * one string (cut at the first NUL); every parser must either fail with a
 * message or succeed, and a success must survive the formatters: a parsed
 * time or size, formatted and parsed again, gives the same value. Anything
 * else aborts. Its corpus (fuzz/corpus/num/) replays in make check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_num.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	char buf[64];
	uint64_t v, back;
	int64_t i;
	ir_err e;
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	e.msg[0] = '\0';
	if (ir_parse_u64(s, &v, "N", &e) == 0) {
		/* decimal digits only: the value printed back has the same digits without leading zeros */
		if (strspn(s, "0123456789") != strlen(s))
			abort();
	} else if (e.msg[0] == '\0') {
		abort();
	}
	if (ir_parse_i64(s, &i, "N", &e) != 0 && e.msg[0] == '\0')
		abort();
	if (ir_parse_range(s, 10, 1000, &v, "N", &e) == 0 && (v < 10 || v > 1000))
		abort();
	if (ir_parse_time(s, &v, "-L", &e) == 0) {
		if (ir_parse_time(ir_fmt_time(buf, sizeof buf, v), &back, NULL, &e) != 0 || back != v)
			abort();
	}
	if (ir_parse_size(s, &v, "--size", &e) == 0) {
		if (ir_parse_size(ir_fmt_size(buf, sizeof buf, v), &back, NULL, &e) != 0 || back != v)
			abort();
	}
	free(s);
	return 0;
}
