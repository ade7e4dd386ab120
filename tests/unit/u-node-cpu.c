/*
 * u-node-cpu.c: the CPU times of trace format 2 (formats/trace.md section 3.6) as the
 * reader gives them: in picoseconds, absent (IR_TIME_NONE) on version-1 lines, taken off
 * the fields so that the return time and the argument count are as without them, not
 * moved by the clock offsets; malformed ones refused with the line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_trace.h"
#include "tap.h"

static ir_trace *open_str(const char *s, ir_err *e)
{
	ir_trace_opts o = { 1000, 0 };
	return ir_trace_open_mem(s, strlen(s), "t.trace", &o, e);
}

/* The last argument of the record first_call read (its strings die with the reader). */
static char last_arg[64];

/* The first call record of s: 1, or 0 with the error in e. */
static int first_call(const char *s, ir_rec *r, ir_err *e)
{
	ir_trace *t = open_str(s, e);
	int rc = 0;
	if (!t)
		return 0;
	while ((rc = ir_trace_next(t, r, e)) == 1 && r->kind != IR_REC_CALL)
		;
	last_arg[0] = 0;
	if (rc == 1 && r->nf)
		snprintf(last_arg, sizeof last_arg, "%s", r->f[r->nf - 1]);
	ir_trace_free(t);
	return rc == 1;
}

int main(void)
{
	ir_err e;
	ir_rec r;
	static const char v2[] = "# allprof 1.0 trace format 2\n# cpu: thread, microseconds\n"
	                         "# Init clockdiff: 5.000\n"
	                         "MPI_Send:1010.000:8192:100:1,1,1:1:7:0,0,2:1011.000:c54.000,54.500\n# end 1 0\n";
	static const char v1[] = "# allprof 1.0 trace format 1\nMPI_Send:1010.000:8192:100:1,1,1:1:7:0,0,2:1011.000\n# end 1 0\n";
	static const char poll[] = "# allprof 1.0 trace format 2\n"
	                           "MPI_Test:1010.000:r1:0:-:37:1011.000:c1.001,2.002\n# end 1 0\n";

	ok(first_call(v2, &r, &e) && r.nf == 6 && r.cpu_call == 54000000 && r.cpu_ret == 54500000,
	   "version 2: six arguments, CPU times in ps");
	ok(r.t_call == 15000000 && r.t_ret == 16000000, "the wall times are corrected, the CPU times are not");
	ok(first_call(v1, &r, &e) && r.nf == 6 && r.cpu_call == IR_TIME_NONE && r.cpu_ret == IR_TIME_NONE &&
	       r.t_ret == 11000000,
	   "version 1: the same line without CPU times");
	ok(first_call(poll, &r, &e) && r.nf == 4 && strcmp(last_arg, "37") == 0 && r.cpu_call == 1001000 &&
	       r.cpu_ret == 2002000,
	   "a poll line: its repeat count stays the last argument");
	{
		static const char *const bad[] = {
			"MPI_Send:1010.000:1:1011.000:c54.000,53.000\n", /* return before call */
			"MPI_Send:1010.000:1:1011.000:c54.000\n",        /* one time */
			"MPI_Send:1010.000:1:1011.000:c,1\n",            /* empty */
			"MPI_Send:1010.000:1:1011.000:c1.0x,2\n",        /* garbage */
			"MPI_Send:1010.000:1:1011.000:c1,2,3\n",         /* three */
		};
		for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
			char buf[256];
			snprintf(buf, sizeof buf, "# allprof 1.0 trace format 2\n%s# end 1 0\n", bad[i]);
			ok(!first_call(buf, &r, &e) && strstr(e.msg, "t.trace:2: MPI_Send: expected CPU times") != NULL,
			   "refused: bad CPU field %zu", i);
		}
	}
	ok(!first_call("# allprof 1.0 trace format 2\nMPI_Barrier:c1,2\n# end 1 0\n", &r, &e),
	   "a CPU field alone is no call and return time");
	return tap_done();
}
