/*
 * u-num.c: unit tests of lib/ir_num: integers, times and sizes with every
 * unit, decimals, overflow at the exact 64-bit boundary, the exact text of
 * every kind of error, the formatters and their round trip through the
 * parsers.
 */
#include <stdint.h>
#include <string.h>

#include "ir_num.h"
#include "tap.h"

static const char time_hint[] = "expected a number with an optional unit ps, ns, us, ms or s; plain numbers are ps";
static const char size_hint[] = "expected a number with an optional unit B, K, M, G or T; plain numbers are bytes";

static void time_ok(const char *s, uint64_t want)
{
	ir_err e = { "" };
	uint64_t v = 0xdeadbeef;
	int rc = ir_parse_time(s, &v, "-L", &e);
	ok(rc == 0, "time '%s' parses", s);
	if (rc)
		printf("#   %s\n", e.msg);
	is_u64(v, want, "time '%s' = %llu ps", s, (unsigned long long)want);
}

static void time_bad(const char *s, const char *hint)
{
	ir_err e = { "" };
	uint64_t v = 12345;
	char want[IR_ERR_MAX];
	snprintf(want, sizeof want, "invalid time for -L: '%s' (%s)", s, hint);
	ok(ir_parse_time(s, &v, "-L", &e) == -1, "time '%s' is rejected", s);
	is_str(e.msg, want, "time '%s': message", s);
	is_u64(v, 12345, "time '%s': output untouched", s);
}

static void size_ok(const char *s, uint64_t want)
{
	ir_err e = { "" };
	uint64_t v = 0;
	int rc = ir_parse_size(s, &v, "--size", &e);
	ok(rc == 0, "size '%s' parses", s);
	if (rc)
		printf("#   %s\n", e.msg);
	is_u64(v, want, "size '%s' = %llu bytes", s, (unsigned long long)want);
}

static void size_bad(const char *s, const char *hint)
{
	ir_err e = { "" };
	uint64_t v = 7;
	char want[IR_ERR_MAX];
	snprintf(want, sizeof want, "invalid size for --size: '%s' (%s)", s, hint);
	ok(ir_parse_size(s, &v, "--size", &e) == -1, "size '%s' is rejected", s);
	is_str(e.msg, want, "size '%s': message", s);
	is_u64(v, 7, "size '%s': output untouched", s);
}

static void u64_case(const char *s, int good, uint64_t want, const char *hint)
{
	ir_err e = { "" };
	uint64_t v = 99;
	int rc = ir_parse_u64(s, &v, "N", &e);
	if (good) {
		ok(rc == 0, "u64 '%s' parses", s);
		is_u64(v, want, "u64 '%s' value", s);
	} else {
		char m[IR_ERR_MAX];
		snprintf(m, sizeof m, "invalid number for N: '%s' (%s)", s, hint);
		ok(rc == -1 && v == 99, "u64 '%s' is rejected", s);
		is_str(e.msg, m, "u64 '%s': message", s);
	}
}

static void i64_case(const char *s, int good, int64_t want, const char *hint)
{
	ir_err e = { "" };
	int64_t v = 99;
	int rc = ir_parse_i64(s, &v, "--off", &e);
	if (good) {
		ok(rc == 0 && v == want, "i64 '%s' = %lld", s, (long long)want);
	} else {
		char m[IR_ERR_MAX];
		snprintf(m, sizeof m, "invalid number for --off: '%s' (%s)", s, hint);
		ok(rc == -1 && v == 99, "i64 '%s' is rejected", s);
		is_str(e.msg, m, "i64 '%s': message", s);
	}
}

static void fmt_time_case(uint64_t ps, const char *want)
{
	char buf[64];
	uint64_t back = 0;
	ir_err e;
	is_str(ir_fmt_time(buf, sizeof buf, ps), want, "fmt_time(%llu)", (unsigned long long)ps);
	ok(ir_parse_time(buf, &back, NULL, &e) == 0 && back == ps, "'%s' parses back to %llu", buf,
	   (unsigned long long)ps);
}

static void fmt_size_case(uint64_t b, const char *want)
{
	char buf[64];
	uint64_t back = 0;
	ir_err e;
	is_str(ir_fmt_size(buf, sizeof buf, b), want, "fmt_size(%llu)", (unsigned long long)b);
	ok(ir_parse_size(buf, &back, NULL, &e) == 0 && back == b, "'%s' parses back", buf);
}

int main(void)
{
	ir_err e;

	/* ---- integers ---- */
	u64_case("0", 1, 0, NULL);
	u64_case("007", 1, 7, NULL);
	u64_case("18446744073709551615", 1, UINT64_MAX, NULL);
	u64_case("18446744073709551616", 0, 0, "does not fit in 64 bits");
	u64_case("99999999999999999999", 0, 0, "does not fit in 64 bits");
	u64_case("000000000000000000000000018446744073709551615", 1, UINT64_MAX, NULL);
	u64_case("", 0, 0, "expected a non-negative integer");
	u64_case("-1", 0, 0, "expected a non-negative integer");
	u64_case("+1", 0, 0, "expected a non-negative integer");
	u64_case(" 1", 0, 0, "expected a non-negative integer");
	u64_case("1 ", 0, 0, "expected a non-negative integer");
	u64_case("0x10", 0, 0, "expected a non-negative integer");
	u64_case("1e3", 0, 0, "expected a non-negative integer");
	u64_case("12a", 0, 0, "expected a non-negative integer");

	ok(ir_parse_u64("x", &(uint64_t){ 0 }, NULL, &e) == -1, "u64 without a field name");
	is_str(e.msg, "invalid number: 'x' (expected a non-negative integer)", "message without ' for '");
	{
		char nonprint[] = "1\x01\n";
		ir_parse_u64(nonprint, &(uint64_t){ 0 }, "N", &e);
		is_str(e.msg, "invalid number for N: '1\\x01\\x0a' (expected a non-negative integer)",
		       "control bytes are quoted as \\xNN");
	}
	{
		char big[400];
		memset(big, 'a', sizeof big - 1);
		big[sizeof big - 1] = '\0';
		ok(ir_parse_u64(big, &(uint64_t){ 0 }, "N", &e) == -1 && strlen(e.msg) < IR_ERR_MAX &&
		   strstr(e.msg, "...' (expected"), "a long bad value is cut with ... and the hint stays");
	}
	ok(ir_parse_u64("5", &(uint64_t){ 0 }, "N", NULL) == 0 && ir_parse_u64("y", &(uint64_t){ 0 }, "N", NULL) == -1,
	   "a NULL error buffer is allowed");

	i64_case("0", 1, 0, NULL);
	i64_case("-0", 1, 0, NULL);
	i64_case("-5", 1, -5, NULL);
	i64_case("9223372036854775807", 1, INT64_MAX, NULL);
	i64_case("-9223372036854775808", 1, INT64_MIN, NULL);
	i64_case("9223372036854775808", 0, 0, "does not fit in 64 bits");
	i64_case("-9223372036854775809", 0, 0, "does not fit in 64 bits");
	i64_case("-99999999999999999999", 0, 0, "does not fit in 64 bits");
	i64_case("-", 0, 0, "expected an integer");
	i64_case("--1", 0, 0, "expected an integer");
	i64_case("+1", 0, 0, "expected an integer");
	i64_case("", 0, 0, "expected an integer");

	{
		uint64_t v = 0;
		ok(ir_parse_range("5", 5, 10, &v, "--root", &e) == 0 && v == 5, "range: low end included");
		ok(ir_parse_range("10", 5, 10, &v, "--root", &e) == 0 && v == 10, "range: high end included");
		ok(ir_parse_range("4", 5, 10, &v, "--root", &e) == -1, "range: below");
		is_str(e.msg, "invalid value for --root: '4' (expected 5..10)", "range: message below");
		ok(ir_parse_range("11", 5, 10, &v, "--root", &e) == -1, "range: above");
		is_str(e.msg, "invalid value for --root: '11' (expected 5..10)", "range: message above");
		ok(ir_parse_range("18446744073709551615", 0, UINT64_MAX, &v, "x", &e) == 0 && v == UINT64_MAX,
		   "range: the whole 64-bit range");
		ok(ir_parse_range("q", 0, 1, &v, "--root", &e) == -1, "range: not a number");
		is_str(e.msg, "invalid number for --root: 'q' (expected a non-negative integer)", "range: message");
	}

	/* ---- times: every unit ---- */
	time_ok("0", 0);
	time_ok("42", 42);
	time_ok("1ps", 1);
	time_ok("1ns", 1000);
	time_ok("1us", 1000000);
	time_ok("1ms", 1000000000);
	time_ok("1s", 1000000000000ULL);
	time_ok("0s", 0);
	time_ok("250ns", 250000);
	/* decimals */
	time_ok("1.5us", 1500000);
	time_ok("2.5ns", 2500);
	time_ok("0.001ns", 1);
	time_ok("0.000001us", 1);
	time_ok("0.000000000001s", 1);
	time_ok("3.0ps", 3);
	time_ok("1.000000000000000000000000s", 1000000000000ULL);
	time_ok("1.250000000000000000000us", 1250000);
	/* the exact 64-bit boundary in every unit */
	time_ok("18446744073709551615", UINT64_MAX);
	time_ok("18446744073709551615ps", UINT64_MAX);
	time_ok("18446744073709551.615ns", UINT64_MAX);
	time_ok("18446744073709.551615us", UINT64_MAX);
	time_ok("18446744073.709551615ms", UINT64_MAX);
	time_ok("18446744.073709551615s", UINT64_MAX);
	time_ok("18446744s", 18446744000000000000ULL);
	time_bad("18446744073709551616", "does not fit in 64 bits");
	time_bad("18446744073709551616ps", "does not fit in 64 bits");
	time_bad("18446744073709551.616ns", "does not fit in 64 bits");
	time_bad("18446744073709.551616us", "does not fit in 64 bits");
	time_bad("18446744073.709551616ms", "does not fit in 64 bits");
	time_bad("18446744.073709551616s", "does not fit in 64 bits");
	time_bad("18446745s", "does not fit in 64 bits");
	time_bad("18446744073710ms", "does not fit in 64 bits");
	time_bad("99999999999999999999999s", "does not fit in 64 bits");
	/* not whole picoseconds */
	time_bad("0.5ps", "not a whole number of the base unit");
	time_bad("1.5", "not a whole number of the base unit");
	time_bad("0.0001ns", "not a whole number of the base unit");
	time_bad("1.0000000000001s", "not a whole number of the base unit");
	time_bad("1.0000000000000000001s", "too many decimals");
	/* syntax */
	time_bad("", time_hint);
	time_bad("us", time_hint);
	time_bad(".5us", time_hint);
	time_bad("1.us", time_hint);
	time_bad("1 us", time_hint);
	time_bad(" 1us", time_hint);
	time_bad("1us ", time_hint);
	time_bad("1US", time_hint);
	time_bad("1usx", time_hint);
	time_bad("1sec", time_hint);
	time_bad("1m", time_hint);
	time_bad("-1us", time_hint);
	time_bad("+1us", time_hint);
	time_bad("1..5us", time_hint);
	time_bad("1,5us", time_hint);
	time_bad("1e3", time_hint);
	time_bad("1K", time_hint);

	/* ---- sizes: every unit ---- */
	size_ok("0", 0);
	size_ok("100", 100);
	size_ok("1B", 1);
	size_ok("1K", 1024);
	size_ok("1M", 1048576);
	size_ok("1G", 1073741824);
	size_ok("1T", 1099511627776ULL);
	size_ok("1KiB", 1024);
	size_ok("1MiB", 1048576);
	size_ok("1GiB", 1073741824);
	size_ok("1TiB", 1099511627776ULL);
	size_ok("1.5K", 1536);
	size_ok("0.5M", 524288);
	size_ok("0.0009765625K", 1);
	size_ok("2.00B", 2);
	size_ok("18446744073709551615", UINT64_MAX);
	size_ok("18446744073709551615B", UINT64_MAX);
	size_ok("16777215T", 18446742974197923840ULL);
	size_ok("16777215.5T", 18446743523953737728ULL);
	size_bad("1.0000000000000000001K", "too many decimals");
	size_ok("17179869183G", 18446744072635809792ULL);
	size_bad("18446744073709551616", "does not fit in 64 bits");
	size_bad("16777216T", "does not fit in 64 bits");
	size_bad("16777216TiB", "does not fit in 64 bits");
	size_bad("17179869184G", "does not fit in 64 bits");
	size_bad("0.5B", "not a whole number of the base unit");
	size_bad("1.1K", "not a whole number of the base unit");
	size_bad("", size_hint);
	size_bad("K", size_hint);
	size_bad("1k", size_hint);
	size_bad("1KB", size_hint);
	size_bad("1kiB", size_hint);
	size_bad("1 K", size_hint);
	size_bad("-1K", size_hint);
	size_bad("1ns", size_hint);
	size_bad("1.K", size_hint);

	/* ---- doubles ---- */
	{
		double d = 0;
		ok(ir_parse_double("1.5", &d, "--pct", &e) == 0 && d == 1.5, "double 1.5");
		ok(ir_parse_double("-2e3", &d, "--pct", &e) == 0 && d == -2000, "double -2e3");
		ok(ir_parse_double("inf", &d, "--pct", &e) == -1, "double inf is rejected");
		is_str(e.msg, "invalid number for --pct: 'inf' (expected a decimal number)", "double: message");
		ok(ir_parse_double("nan", &d, "--pct", &e) == -1, "double nan is rejected");
		ok(ir_parse_double("1e999", &d, "--pct", &e) == -1, "double overflow is rejected");
		ok(ir_parse_double("", &d, "--pct", &e) == -1, "double empty is rejected");
		ok(ir_parse_double("1.5x", &d, "--pct", &e) == -1, "double trailing garbage is rejected");
	}

	/* ---- formatters, and their round trip ---- */
	fmt_time_case(0, "0ps");
	fmt_time_case(1, "1ps");
	fmt_time_case(999, "999ps");
	fmt_time_case(1000, "1ns");
	fmt_time_case(2500, "2.5ns");
	fmt_time_case(1234, "1.234ns");
	fmt_time_case(1001, "1.001ns");
	/* the largest unit reached, with exact decimals */
	fmt_time_case(1500000, "1.5us");
	fmt_time_case(7094708386ULL, "7.094708386ms");
	fmt_time_case(1000000, "1us");
	fmt_time_case(1000000000, "1ms");
	fmt_time_case(1000000000000ULL, "1s");
	fmt_time_case(3522000, "3.522us");
	fmt_time_case(1500, "1.5ns");
	fmt_time_case(1000000001, "1.000000001ms");
	fmt_time_case(60000000000000ULL, "60s");
	fmt_time_case(1000001, "1.000001us");
	fmt_time_case(UINT64_MAX, "18446744.073709551615s");
	fmt_size_case(0, "0");
	fmt_size_case(1, "1");
	fmt_size_case(1536, "1536");
	fmt_size_case(2048, "2K");
	fmt_size_case(3ULL << 20, "3M");
	fmt_size_case(5ULL << 30, "5G");
	fmt_size_case(1ULL << 40, "1T");
	fmt_size_case(16777215ULL << 40, "16777215T");
	fmt_size_case(UINT64_MAX, "18446744073709551615");
	{
		/* pseudo-random round trips */
		uint64_t x = 88172645463325252ULL;
		int bad = 0;
		for (int i = 0; i < 20000; i++) {
			char buf[64];
			uint64_t v, back = 1;
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v = x >> (x % 64);
			if (ir_parse_time(ir_fmt_time(buf, sizeof buf, v), &back, NULL, &e) || back != v)
				bad++;
			if (ir_parse_size(ir_fmt_size(buf, sizeof buf, v), &back, NULL, &e) || back != v)
				bad++;
		}
		is_u64(bad, 0, "20000 random times and sizes survive format and parse");
	}
	{
		char small[4];
		ir_fmt_time(small, sizeof small, 123456789);
		ok(strlen(small) == 3, "fmt_time truncates to the buffer");
	}

	/* ---- the scanner ---- */
	{
		const char s[] = "123abc", *p = s;
		uint64_t v = 0;
		ok(ir_scan_u64(&p, s + 6, &v) == 0 && v == 123 && p == s + 3, "scan stops at a non-digit");
		p = s;
		ok(ir_scan_u64(&p, s + 2, &v) == 0 && v == 12 && p == s + 2, "scan stops at end");
		p = s + 3;
		ok(ir_scan_u64(&p, s + 6, &v) == -1 && p == s + 3, "scan without a digit fails");
		const char big[] = "18446744073709551616";
		p = big;
		ok(ir_scan_u64(&p, big + 20, &v) == -1 && p == big, "scan overflow fails, pointer kept");
		const char max[] = "18446744073709551615";
		p = max;
		ok(ir_scan_u64(&p, max + 20, &v) == 0 && v == UINT64_MAX, "scan of the largest value");
		p = s;
		ok(ir_scan_u64(&p, s, &v) == -1, "scan of an empty range fails");
	}
	return tap_done();
}
