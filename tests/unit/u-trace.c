/*
 * u-trace.c: the trace reader: exact time parsing, field helpers, clock offset
 * interpolation (add, linear between Init and Finalize), allprof comm lines and
 * the end marker, and its error messages.
 */
#include <stdlib.h>

#include "ir_trace.h"
#include "tap.h"

static ir_trace *open_str(const char *s, int no_clock, ir_err *e)
{
	ir_trace_opts o = { 1000, no_clock };
	return ir_trace_open_mem(s, strlen(s), "t.txt", &o, e);
}

int main(void)
{
	ir_err e;
	ir_rec r;
	int64_t ps, a, b, c;
	uint64_t v, l[4];
	int id;
	ir_trace *t;

	ok(ir_tf_time("1002", 4, 1000, &ps) == 0 && ps == 2000000, "integer microseconds");
	ok(ir_tf_time("1002.000500", 11, 1000, &ps) == 0 && ps == 2000500, "six decimals exact");
	ok(ir_tf_time("1002.5", 6, 1000, &ps) == 0 && ps == 2500000, "one decimal");
	ok(ir_tf_time("999", 3, 1000, &ps) == 0 && ps == -1000000, "before the epoch is negative");
	ok(ir_tf_time("12x", 3, 0, &ps) < 0 && ir_tf_time("", 0, 0, &ps) < 0 && ir_tf_time("1.", 2, 0, &ps) < 0,
	   "garbage, empty and '1.' are refused");
	ok(ir_tf_time("99999999999999999999", 20, 0, &ps) < 0, "too many digits refused");
	ok(ir_tf_handle("r17", &v, &id) == 0 && v == 17 && id == 1, "request id r17");
	ok(ir_tf_handle("140735615211488", &v, &id) == 0 && id == 0 && v == 140735615211488ULL, "address");
	ok(ir_tf_triple("1,4,4", &a, &b, &c) == 0 && a == 1 && b == 4 && c == 4, "datatype triple");
	ok(ir_tf_triple("-1,-1,0", &a, &b, &c) == 0 && a == -1 && c == 0, "negative triple");
	ok(ir_tf_triple("1,4", &a, &b, &c) < 0 && ir_tf_triple("1,4,4,", &a, &b, &c) < 0, "short/long triple refused");
	ok(ir_tf_list("1,2,3", l, 4) == 3 && l[2] == 3, "count list");
	ok(ir_tf_list("1,2,3,4,5", l, 4) < 0, "list longer than the room refused");

	/* clock: +10 us at Init (t=1000), +20 us at Finalize (10 s later: a drift of 1 ppm); a
	 * call halfway gets +15 */
	t = open_str("# clockdiff: 10.0 s (relative to rank 0)\nMPI_Init:-:1:2:1000\n"
	             "MPI_Barrier:5001000:1,0,1:5001000\n# Finalize clockdiff: 20.0\nMPI_Finalize:10001000:-\n", 0, &e);
	ok(t != NULL, "open");
	ok(ir_trace_next(t, &r, &e) == 1 && r.t_call == IR_TIME_NONE && r.t_ret == 10000000, "Init + 10 us");
	ok(ir_trace_next(t, &r, &e) == 1 && r.t_call == 5000015000000 && r.nf == 1 && strcmp(r.f[0], "1,0,1") == 0,
	   "halfway: + 15 us (interpolated); fields split");
	ok(ir_trace_next(t, &r, &e) == 1 && r.t_call == 10000020000000 && r.t_ret == IR_TIME_NONE, "Finalize + 20 us");
	ok(ir_trace_next(t, &r, &e) == 0, "end");
	ok(ir_trace_offset_init(t) == 10.0 && ir_trace_offset_fini(t) == 20.0, "offsets exposed");
	ir_trace_free(t);

	/* +10 us at Init, +20 us at Finalize 100 us later (10 %: no clock drifts so fast): the
	 * offset of the shorter round trip for the whole trace (formats/trace.md §2) */
	t = open_str("# Init clockdiff: 10.0\n# Init clockrtt: 5.0\nMPI_Init:-:1:2:1000\n"
	             "# Finalize clockdiff: 20.0\n# Finalize clockrtt: 1.0\nMPI_Finalize:1100:-\n", 0, &e);
	ok(t && ir_trace_next(t, &r, &e) == 1 && r.t_ret == 20000000 && ir_trace_next(t, &r, &e) == 1 &&
	       r.t_call == 120000000,
	   "drift above 1,000 ppm: the Finalize offset (round trip 1 us) throughout");
	ir_trace_free(t);
	t = open_str("# Init clockdiff: 10.0\n# Init clockrtt: 1.0\nMPI_Init:-:1:2:1000\n"
	             "# Finalize clockdiff: 20.0\n# Finalize clockrtt: 5.0\nMPI_Finalize:1100:-\n", 0, &e);
	ok(t && ir_trace_next(t, &r, &e) == 1 && r.t_ret == 10000000 && ir_trace_next(t, &r, &e) == 1 &&
	       r.t_call == 110000000,
	   "drift above 1,000 ppm: the Init offset (round trip 1 us) throughout");
	ir_trace_free(t);

	t = open_str("# clockdiff: 10.0 s\nMPI_Init:-:1:2:1000\n", 1, &e);
	ok(t && ir_trace_next(t, &r, &e) == 1 && r.t_ret == 0, "no_clock leaves times alone");
	ir_trace_free(t);

	t = open_str("# allprof 1.0 trace format 1\nMPI_Init:-:0:0:1000.000\n# comm 2 3,1,2\n# end 1 10\n", 0, &e);
	ok(t && ir_trace_flavor(t) == IR_TRACE_LIBALLPROF, "flavor known after the first line");
	ok(ir_trace_next(t, &r, &e) == 1 && ir_trace_flavor(t) == IR_TRACE_ALLPROF, "allprof header");
	ok(ir_trace_next(t, &r, &e) == 1 && r.kind == IR_REC_COMM && r.comm_id == 2 && r.nmembers == 3 &&
	       r.members[0] == 3 && r.members[2] == 2,
	   "# comm line with members");
	ok(ir_trace_next(t, &r, &e) == 0, "end marker then end");
	ir_trace_free(t);

	t = open_str("# allprof 1.0\nMPI_Init:-:0:0:1000.000\n", 0, &e);
	ok(t && ir_trace_next(t, &r, &e) == 1 && ir_trace_next(t, &r, &e) < 0, "allprof without # end fails");
	is_str(e.msg, "t.txt:2: trace is cut short: no '# end' line (the run did not finish writing it)", "cut short");
	ir_trace_free(t);

	t = open_str("MPI_Send:1001:1:2:1000\n", 0, &e);
	ok(t && ir_trace_next(t, &r, &e) < 0, "return before call");
	is_str(e.msg, "t.txt:1: MPI_Send: return time is before the call time (cut or corrupt line?)", "message");
	ir_trace_free(t);

	t = open_str("MPI-Send:1:2\n", 0, &e);
	ok(t && ir_trace_next(t, &r, &e) < 0, "bad call name");
	is_str(e.msg, "t.txt:1: expected a call name, found 'MPI-Send'", "message quotes it");
	ir_trace_free(t);

	t = open_str("# comm 2 0,x\n", 0, &e);
	ok(t && ir_trace_next(t, &r, &e) < 0, "bad comm line");
	is_str(e.msg, "t.txt:1: expected '# comm <id> <world ranks>', found '# comm 2 0,x'", "message");
	ir_trace_free(t);
	return tap_done();
}
