/*
 * u-params.c: parameter files (lib/ir_params.c): the grammar of
 * formats/params.md, overriding, typed getters and every error message.
 */
#include <stdlib.h>
#include <string.h>

#include "ir_params.h"
#include "tap.h"

static int parse(ir_params *p, const char *text, ir_err *e)
{
	return ir_params_parse(p, text, strlen(text), "t.params", e);
}

/* Parse `text` into a fresh set and expect the error `msg`. */
static void bad(const char *text, const char *msg, const char *title)
{
	ir_params *p = ir_params_new();
	ir_err e;
	e.msg[0] = 0;
	ok(parse(p, text, &e) == -1, "%s: rejected", title);
	is_str(e.msg, msg, "%s: message", title);
	ir_params_free(p);
}

int main(void)
{
	ir_params *p = ir_params_new();
	ir_err e;
	uint64_t v = 0;
	double d = 0;
	char buf[64];

	ok(parse(p,
	         "# a comment line\n"
	         "\n"
	         "L = 2.5us   # latency\n"
	         "  o=1500\r\n"
	         "\tG\t=\t6ps\t\n"
	         "S = 64K\n"
	         "topo = fattree2:4 with spaces\n"
	         "o-rndv = 3us\n"
	         "ratio = 0.25\n"
	         "count = 12",
	         &e) == 0,
	   "a file with comments, blank lines, CRLF, tabs, no final newline");
	is_u64(ir_params_count(p), 8, "8 keys");
	is_str(ir_params_get(p, "topo"), "fattree2:4 with spaces", "inner spaces kept, ends trimmed");
	is_str(ir_params_key(p, 5), "o_rndv", "'-' in keys is stored as '_'");
	is_str(ir_params_get(p, "o-rndv"), "3us", "lookup with '-' finds '_'");
	ok(ir_params_time(p, "L", &v, &e) == 1 && v == 2500000, "time with unit");
	ok(ir_params_time(p, "o", &v, &e) == 1 && v == 1500, "plain time is ps");
	ok(ir_params_time(p, "G", &v, &e) == 1 && v == 6, "G is not g");
	ok(ir_params_time(p, "g", &v, &e) == 0 && v == 6, "absent key: 0, value untouched");
	ok(ir_params_size(p, "S", &v, &e) == 1 && v == 65536, "size with unit");
	ok(ir_params_u64(p, "count", &v, &e) == 1 && v == 12, "integer");
	ok(ir_params_double(p, "ratio", &d, &e) == 1 && d == 0.25, "decimal");
	is_str(ir_params_origin(p, 0, buf, sizeof buf), "t.params:3", "origin of a file value");

	ok(ir_params_time(p, "topo", &v, &e) == -1, "a bad value is an error");
	is_str(e.msg,
	       "t.params:7: invalid time for 'topo': 'fattree2:4 with spaces' (expected a number with an optional "
	       "unit ps, ns, us, ms or s; plain numbers are ps)",
	       "error names file, line, key and value");

	ok(ir_params_set(p, "L", "7", "-L", &e) == 0, "command line sets L");
	ok(ir_params_time(p, "L", &v, &e) == 1 && v == 7, "command line overrides the file");
	is_str(ir_params_origin(p, 0, buf, sizeof buf), "-L", "origin of an option value");
	ok(ir_params_set(p, "o", "1xs", "-o", &e) == 0 && ir_params_time(p, "o", &v, &e) == -1, "bad option value");
	is_str(e.msg,
	       "invalid time for -o: '1xs' (expected a number with an optional unit ps, ns, us, ms or s; plain "
	       "numbers are ps)",
	       "option error names the option");
	ok(ir_params_set(p, "9x", "1", "-x", &e) == -1 && strcmp(e.msg, "invalid parameter name '9x'") == 0,
	   "bad key from code");

	/* a second file overrides the first; repeats within one file are errors */
	ok(parse(p, "L = 9\n", &e) == 0 && ir_params_time(p, "L", &v, &e) == 1 && v == 9, "a later file overrides");
	{
		static const char *const known[] = { "L", "o", "G", "S", "o_rndv", NULL };
		size_t i = 0;
		long k;
		char got[256] = "";
		while ((k = ir_params_next_unknown(p, known, &i)) >= 0) {
			strcat(got, ir_params_key(p, (size_t)k));
			strcat(got, " ");
		}
		is_str(got, "topo ratio count ", "unknown keys listed in order");
	}
	{
		ir_sb sb = IR_SB_INIT;
		ir_params *q = ir_params_new();
		ok(ir_params_write(p, &sb) == 0, "write");
		ok(parse(q, sb.buf, &e) == 0 && ir_params_count(q) == ir_params_count(p), "written file reads back");
		is_str(ir_params_get(q, "topo"), "fattree2:4 with spaces", "value survives the round trip");
		ir_sb_release(&sb);
		ir_params_free(q);
	}
	ir_params_free(p);

	bad("L = 1\nL = 2\n", "t.params:2: duplicate key 'L' (first set at line 1)", "duplicate key");
	bad("L 1\n", "t.params:1: expected '=' after key 'L', found '1'", "missing '='");
	bad("L\n", "t.params:1: expected '=' after key 'L', found ''", "key alone");
	bad("= 3\n", "t.params:1: expected a key (a letter or '_' first), found '= 3'", "missing key");
	bad("9L = 3\n", "t.params:1: expected a key (a letter or '_' first), found '9L = 3'", "key starts with a digit");
	bad("L =   # nothing\n", "t.params:1: missing value for 'L'", "empty value");
	bad("ok = 1\nL$ = 2\n", "t.params:2: expected '=' after key 'L', found '$ = 2'", "bad character in key");
	{
		static const char nul[] = "L = a\0b\n";
		ir_params *q = ir_params_new();
		ok(ir_params_parse(q, nul, sizeof nul - 1, "n.params", &e) == -1 &&
		       strcmp(e.msg, "n.params:1: unexpected NUL byte") == 0,
		   "NUL byte in a line");
		ir_params_free(q);
	}
	bad("L = 1\r2\n", "t.params:1: unexpected control character \\x0d", "CR inside a line");
	bad("L = 1\x1b\n", "t.params:1: unexpected control character \\x1b", "escape character");
	{
		ir_params *q = ir_params_new();
		ok(ir_params_set(q, "L", "1\n", "-L", &e) == -1 &&
		       strcmp(e.msg, "value for -L contains control character \\x0a") == 0,
		   "control character in an option value");
		ir_params_free(q);
	}
	{
		char longkey[100], longval[5000];
		memset(longkey, 'k', 70);
		strcpy(longkey + 70, " = 1\n");
		bad(longkey, "t.params:1: key 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...' is longer than 64 characters",
		    "long key");
		strcpy(longval, "v = ");
		memset(longval + 4, 'x', 4100);
		strcpy(longval + 4104, "\n");
		bad(longval, "t.params:1: value of 'v' is longer than 4096 characters", "long value");
	}
	{
		ir_params *q = ir_params_new();
		ok(ir_params_load(q, "/nonexistent/x.params", &e) == -1 && strstr(e.msg, "/nonexistent/x.params"),
		   "missing file names the file: %s", e.msg);
		ir_params_free(q);
	}
	ir_params_free(NULL);
	return tap_done();
}
