/*
 * u-model.c: unit tests of lib/ir_model: piecewise functions (parsing with
 * every unit, the exact text of every error, evaluation at segment edges,
 * rounding of fractional slopes, saturation, the round trip through the
 * formatter), loading the model keys from a parameter file, and the three
 * costs of a message under the LogGOPS rule (equal to LogGOPSim's), the
 * piecewise model and a copy to oneself.
 */
#include <stdint.h>
#include <string.h>

#include "ir_model.h"
#include "ir_params.h"
#include "tap.h"

static void pw_ok(const char *s, uint32_t n)
{
	ir_pw f;
	ir_err e = { "" };
	int rc = ir_pw_parse(&f, s, "'copy'", &e);
	ok(rc == 0 && f.n == n, "'%s' parses into %u segments", s, n);
	if (rc)
		printf("#   %s\n", e.msg);
}

static void pw_bad(const char *s, const char *want)
{
	ir_pw f;
	ir_err e = { "" };
	ok(ir_pw_parse(&f, s, "'copy'", &e) == -1, "'%s' is rejected", s);
	is_str(e.msg, want, "'%s': message", s);
}

static ir_pw pw(const char *s)
{
	ir_pw f;
	ir_err e;
	if (ir_pw_parse(&f, s, "'t'", &e))
		f.n = 0;
	return f;
}

static int load(ir_loggops *m, const char *text, ir_err *e)
{
	ir_params *p = ir_params_new();
	int rc = ir_params_parse(p, text, strlen(text), "m.params", e);
	if (!rc)
		rc = ir_loggops_load(m, p, e);
	ir_params_free(p);
	return rc;
}

int main(void)
{
	ir_pw f;
	ir_sb sb = IR_SB_INIT;
	ir_loggops m;
	ir_err e = { "" };

	pw_ok("0:1us", 1);
	pw_ok("0:1us+85.3ps; 4033:2us+120ps/B ;64K:3ms+0.125ns", 3);
	pw_ok(" 0 : 0 ", 0 + 1);
	pw_ok("0:0+0.001", 1);
	pw_bad("", "invalid piecewise function for 'copy': empty segment 1 in '' (expected SIZE:TIME[+PERBYTE] "
	           "separated by ';')");
	pw_bad("0:1us;", "invalid piecewise function for 'copy': empty segment 2 in '0:1us;' (expected "
	                 "SIZE:TIME[+PERBYTE] separated by ';')");
	pw_bad("1us", "invalid segment for 'copy': '1us' (expected SIZE:TIME[+PERBYTE], e.g. 4033:1.2us+85.3ps)");
	pw_bad("0:1xs", "invalid segment for 'copy': '0:1xs': bad time '1xs' (a number with an optional unit ps, ns, "
	                "us, ms or s)");
	pw_bad("0: ; ;", "invalid segment for 'copy': '0:': bad time '' (a number with an optional unit ps, ns, us, "
	                 "ms or s)");
	pw_bad("0x:1", "invalid segment for 'copy': '0x:1': bad size '0x'");
	pw_bad("0:1+1.2345", "invalid segment for 'copy': '0:1+1.2345': bad per-byte time (expected a number of ps "
	                     "per byte with at most 3 decimals, optionally ns, e.g. 85.3ps)");
	pw_bad("0:1+", "invalid segment for 'copy': '0:1+': bad per-byte time (expected a number of ps per byte with "
	               "at most 3 decimals, optionally ns, e.g. 85.3ps)");
	pw_bad("0:1+2us", "invalid segment for 'copy': '0:1+2us': bad per-byte time (expected a number of ps per byte "
	                  "with at most 3 decimals, optionally ns, e.g. 85.3ps)");
	pw_bad("8:1", "invalid piecewise function for 'copy': the first segment must start at size 0, found '8:1'");
	pw_bad("0:1;64:2;64:3", "invalid piecewise function for 'copy': segment '64:3' does not start above the "
	                        "previous one");

	f = pw("0:1us+85.3ps; 4033:2us+120ps; 64K:3ms+0.125ns");
	is_u64(ir_pw_eval(&f, 0), 1000000, "eval at 0: the base");
	is_u64(ir_pw_eval(&f, 10), 1000853, "eval at 10: 85.3 ps per byte");
	is_u64(ir_pw_eval(&f, 4032), 1000000 + 343930, "eval at 4032: last byte of the first segment (343929.6 rounds up)");
	is_u64(ir_pw_eval(&f, 4033), 2000000 + 483960, "eval at 4033: the second segment");
	is_u64(ir_pw_eval(&f, 65536), 3000000000ull + 8192000, "eval at 64K: 0.125 ns per byte");
	is_u64(ir_pw_eval(&f, (uint64_t)1 << 40), 3000000000ull + 137438953472000ull, "eval at 1 TiB: the last segment");
	f = pw("0:0+0.001");
	is_u64(ir_pw_eval(&f, 499), 0, "0.499 ps rounds down");
	is_u64(ir_pw_eval(&f, 500), 1, "0.5 ps rounds half up");
	f = pw("0:18446744073709551615+1");
	is_u64(ir_pw_eval(&f, 1), UINT64_MAX, "overflow saturates");

	f = pw("0:1us+85.3ps; 4033:2us+120ps; 64K:3ms+0.125ns");
	ok(ir_pw_format(&f, &sb) == 0, "format");
	is_str(sb.buf, "0:1us+85.3ps; 4033:2us+120ps; 64K:3ms+125ps", "format's text");
	{
		ir_pw g;
		ok(ir_pw_parse(&g, sb.buf, "'x'", &e) == 0 && g.n == f.n && !memcmp(g.seg, f.seg, f.n * sizeof f.seg[0]),
		   "format reads back to the same function");
	}

	/* Loading */
	ok(load(&m, "L=1us\n", &e) == 0 && m.send_o.n == 0 && m.copy.n == 0 && !ir_model_pw(&m),
	   "no piecewise key: the LogGOPS rule");
	ok(load(&m, "send_o = 0:1us\n", &e) == -1, "send_o alone is rejected");
	is_str(e.msg, "m.params:1: 'send_o' is set, but the piecewise model needs send_o, recv_o and net_L together; "
	              "recv_o net_L missing", "message names file and line");
	ok(load(&m, "\ncopy = 0:1xs\n", &e) == -1, "a bad copy is rejected");
	is_str(e.msg, "m.params:2: invalid segment for 'copy': '0:1xs': bad time '1xs' (a number with an optional unit "
	              "ps, ns, us, ms or s)", "message names file and line");

	/* LogGOPS costs equal LogGOPSim's */
	ok(load(&m, "L=3us\no=1500\ng=1000\nG=6\nO=2\nS=100\no_rndv=5us\nO_rndv=9\n", &e) == 0, "LogGOPS keys load");
	is_u64(ir_model_send_cpu(&m, 10, 0), 1500 + 9 * 2, "eager send: o + (s-1)*O");
	is_u64(ir_model_send_cpu(&m, 101, 0), 5000000 + 100 * 9, "rendezvous send: o_rndv + (s-1)*O_rndv");
	is_u64(ir_model_arrival(&m, 10, 0), 1500 + 3000000, "eager arrival: o + L");
	is_u64(ir_model_arrival(&m, 101, 0), 5000000 + 3000000, "rendezvous arrival: o_rndv + L");
	is_u64(ir_model_recv_cpu(&m, 10, 0, 0), 1500 + 9 * 6, "receive: o + (s-1)*max(O, G)");
	is_u64(ir_model_recv_cpu(&m, 10, 0, 1), 1500 + 9 * 2, "receive, bytes modelled by the network: o + (s-1)*O");
	is_u64(ir_model_recv_call(&m, 0, 0), 3000000 + 1500, "receive call: L + o");
	is_u64(ir_model_send_cpu(&m, 10, 1), 1500 + 18, "without copy a message to oneself is a network message");

	/* Piecewise and self copy */
	ok(load(&m, "S=100\nsend_o=0:8us;64:9us+1ps\nrecv_o=0:2us+2ps\nnet_L=0:1us+3ps\ncopy=0:40ns+0.5ps\n", &e) == 0,
	   "piecewise keys load");
	ok(ir_model_pw(&m), "piecewise model on");
	is_u64(ir_model_send_cpu(&m, 10, 0), 8000000, "send_o(10)");
	is_u64(ir_model_send_cpu(&m, 1000, 0), 9000000 + 1000, "send_o(1000), rendezvous too");
	is_u64(ir_model_arrival(&m, 1000, 0), 1000000 + 3000, "arrival: net_L from the send's start");
	is_u64(ir_model_recv_cpu(&m, 1000, 0, 0), 2000000 + 2000, "receive: recv_o, no G");
	is_u64(ir_model_recv_call(&m, 1000, 0), 2002000, "receive call: recv_o (net_L is within send_o)");
	is_u64(ir_model_recv_call(&m, 10, 0), 2000020, "receive call of 10 bytes: recv_o(10)");
	m.net_L.seg[0].base = 20000000;
	is_u64(ir_model_recv_call(&m, 10, 0), 20000030 - 8000000 + 2000020,
	       "receive call: net_L - send_o + recv_o when the arrival is after the send's end");
	m.net_L.seg[0].base = 1000000;
	is_u64(ir_model_send_call(&m, 10, 0), 8000000, "eager send call: send_o");
	is_u64(ir_model_send_call(&m, 1000, 0), 9001000, "rendezvous send call: send_o when it is longer");
	m.net_L.seg[0].base = 20000000;
	is_u64(ir_model_send_call(&m, 1000, 0), 20003000 + 2002000, "rendezvous send call: until the receiver's charge is over");
	m.net_L.seg[0].base = 1000000;
	is_u64(ir_model_send_call(&m, 1000, 1), 40500, "send call to oneself: copy");
	is_u64(ir_model_send_cpu(&m, 1000, 1), 40000 + 500, "to oneself: copy");
	is_u64(ir_model_arrival(&m, 1000, 1), 40500, "to oneself: there when copied");
	is_u64(ir_model_recv_cpu(&m, 1000, 1, 0), 0, "to oneself: the receiver pays nothing");
	is_u64(ir_model_recv_call(&m, 1000, 1), 0, "to oneself: the receive call waits for nothing");
	ok(ir_model_self_copy(&m, 3, 3) && !ir_model_self_copy(&m, 3, 4), "self copy only to oneself");

	/* The spread of a call's cost (formats/params.md) */
	{
		ir_spread sp;
		ok(ir_spread_parse(&sp, " 0.5, 1.5 ,1", "'x'", &e) == 0 && sp.n == 3 && sp.f[0] == 0.5 && sp.f[1] == 1.5 &&
		       sp.f[2] == 1,
		   "spread parses");
		ir_sb_reset(&sb);
		ok(ir_spread_format(&sp, &sb) == 0, "spread formats");
		is_str(sb.buf, "0.5000,1.5000,1.0000", "its text");
		is_u64(ir_spread_apply(&sp, 1000001, 3), 500001, "draw 3 picks factor 0 (3 mod 3): rounded");
		is_u64(ir_spread_apply(&sp, 1000000, 4), 1500000, "draw 4 picks factor 1");
		is_u64(ir_spread_apply(&sp, 0, 4), 0, "0 stays 0");
		is_u64(ir_spread_apply(&sp, UINT64_MAX / 4 * 3, 1), UINT64_MAX, "saturates (3/4 of the range times 1.5)");
		sp.n = 0;
		is_u64(ir_spread_apply(&sp, 1234, 4), 1234, "no factors: unchanged");
		ok(ir_spread_parse(&sp, "1,0", "'x'", &e) == -1, "a factor of 0 is rejected");
		is_str(e.msg, "'x': bad factor '0' in '1,0' (expected decimal numbers above 0 and at most 1000, separated by commas)",
		       "message");
		ok(ir_spread_parse(&sp, "", "'x'", &e) == -1, "an empty list is rejected");
		ok(ir_spread_parse(&sp, "1;2", "'x'", &e) == -1, "another separator is rejected");
		is_str(e.msg, "'x': expected ',' or the end after factor 1, found ';' in '1;2'", "message");
		ok(load(&m, "S=100\nsend_o=0:3us\nrecv_o=0:2us\nnet_L=0:1us\nsend_o_spread=1,2\nrecv_o_spread=0.9\n", &e) == 0 &&
		       m.send_spread.n == 2 && m.recv_spread.n == 1,
		   "the spread keys load");
		ok(load(&m, "S=100\nrecv_o_spread=0.9\n", &e) == -1, "a spread without the piecewise model is rejected");
	}

	/* Crossing messages (formats/params.md) */
	{
		ir_loggops q;
		ok(load(&m, "S=100\nsend_o=0:3us\nrecv_o=0:2us\nnet_L=0:1us\nrecv_o_cross=0:2.5us+1ps\n", &e) == 0 &&
		       m.recv_o_cross.n == 1,
		   "recv_o_cross loads");
		is_u64(ir_pw_eval(&m.recv_o_cross, 100), 2500100, "recv_o_cross is a piecewise function of the size");
		m.intra_send_o = m.send_o;
		ir_loggops_intra(&m, &q);
		ok(q.recv_o_cross.n == 0, "the intra-node model has no crossing (measured between hosts)");
		ok(load(&m, "S=100\nsend_o=0:3us\nrecv_o=0:2us\nnet_L=0:1us\n", &e) == 0 && m.recv_o_cross.n == 0,
		   "without the key: none");
		ok(load(&m, "S=100\nrecv_o_cross=0:2us\n", &e) == -1 && strstr(e.msg, "'recv_o_cross' is set, but it belongs"),
		   "recv_o_cross without the piecewise model is rejected: %s", e.msg);
		ok(load(&m, "S=100\nsend_o=0:3us\nrecv_o=0:2us\nnet_L=0:1us\nrecv_o_cross=2us\n", &e) == -1,
		   "a malformed recv_o_cross is rejected");
	}

	/* A send after a gap (formats/params.md) */
	{
		ir_gapfn g;
		ok(ir_gapfn_parse(&g, "1us:-1.5us; 21us:+500ns ;2ms:8us", "'x'", &e) == 0 && g.n == 3, "gap function parses");
		is_u64((uint64_t)(ir_gapfn_eval(&g, 0) + 2000000), 500000, "below the first point: its value");
		is_u64((uint64_t)(ir_gapfn_eval(&g, 1000000) + 2000000), 500000, "at the first point");
		is_u64((uint64_t)(ir_gapfn_eval(&g, 11000000) + 2000000), 1500000, "halfway: linear (-1.5 us .. +0.5 us)");
		is_u64((uint64_t)(ir_gapfn_eval(&g, 1000001) + 2000000), 500000, "1 ps after the first point: rounded");
		is_u64((uint64_t)ir_gapfn_eval(&g, 2000000000), 8000000, "at the last point");
		is_u64((uint64_t)ir_gapfn_eval(&g, 9000000000), 8000000, "beyond the last point: its value");
		ir_sb_reset(&sb);
		ok(ir_gapfn_format(&g, &sb) == 0, "gap function formats");
		is_str(sb.buf, "1us:-1.5us; 21us:500ns; 2ms:8us", "its text");
		ok(ir_gapfn_parse(&g, "1us:1us;1us:2us", "'x'", &e) == -1, "gaps must grow");
		is_str(e.msg, "invalid gap function for 'x': point '1us:2us' does not lie after the previous one", "message");
		ok(ir_gapfn_parse(&g, "1us", "'x'", &e) == -1, "a point without ':' is rejected");
		is_str(e.msg, "invalid point for 'x': '1us' (expected GAP:TIME, e.g. 20us:-1.1us)", "message");
		ok(ir_gapfn_parse(&g, "1us:--2us", "'x'", &e) == -1, "a doubled sign is rejected");
		ok(ir_gapfn_parse(&g, "-1us:2us", "'x'", &e) == -1, "a negative gap is rejected");
		ok(ir_gapfn_parse(&g, "1us:2us;", "'x'", &e) == -1, "an empty point is rejected");
		ok(load(&m, "S=100\nsend_o=0:3us\nrecv_o=0:2us\nnet_L=0:1us\nsend_o_after_send=0:-1us;10us:0\n"
		            "send_o_after_recv=0:0;1ms:5us\n",
		        &e) == 0,
		   "the gap keys load");
		ok(ir_model_gap(&m), "gap rule on");
		is_u64(ir_model_send_cpu_gap(&m, 10, 1, 0), 2000000, "right after a send: send_o - 1 us");
		is_u64(ir_model_send_cpu_gap(&m, 10, 1, 5000000), 2500000, "5 us after a send: halfway");
		is_u64(ir_model_send_cpu_gap(&m, 10, 0, 500000000), 5500000, "0.5 ms after a receive: send_o + 2.5 us");
		m.after_send.d[0] = -9000000;
		is_u64(ir_model_send_cpu_gap(&m, 10, 1, 0), 0, "never below 0");
		ok(load(&m, "send_o_after_send=0:-1us\n", &e) == -1, "without the piecewise model: an error");
		is_str(e.msg, "m.params:1: 'send_o_after_send' is set, but it changes send_o of the piecewise model, which is "
		              "not set (send_o, recv_o and net_L)",
		       "message with file and line");
		ok(load(&m, "send_o=0:3us\nrecv_o=0:2us\nnet_L=0:1us\nsend_o_after_recv=0:x\n", &e) == -1,
		   "a bad time: an error");
		is_str(e.msg, "m.params:4: invalid point for 'send_o_after_recv': '0:x': bad time 'x' (a number with an "
		              "optional sign and unit ps, ns, us, ms or s)",
		       "message with file and line");
	}

	ir_sb_release(&sb);
	return tap_done();
}
