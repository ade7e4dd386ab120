/*
 * u-cmp.c: unit tests of the several-runs part of lib/ir_cmp.c: the spread
 * of a time over runs, the "within the spread" rule, the real time of a
 * rank and of a run under --sync and --exclude-finalize, the choice of the
 * median run, and the report of ir_cmp_report_runs (its rows, the row "all",
 * the summary, the rank-count checks). The real runs are built in memory, so
 * every number is known exactly; tests/t6101 covers the same from traces.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir_cmp.h"
#include "tap.h"

/* A real run of two ranks: spans, tails and leads in picoseconds. */
static void mkrun(ir_cmp_real *r, const char *name, int64_t s0, int64_t s1, int64_t lead1, int64_t tail)
{
	r->name = strdup(name);
	r->nranks = 2;
	r->span_ps = calloc(2, sizeof *r->span_ps);
	r->tail_ps = calloc(2, sizeof *r->tail_ps);
	r->lead_ps = calloc(2, sizeof *r->lead_ps);
	r->span_ps[0] = s0;
	r->span_ps[1] = s1;
	r->lead_ps[1] = lead1;
	r->tail_ps[0] = r->tail_ps[1] = tail;
}

static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, line, n) && (p[n] == '\n' || p[n] == 0))
			return 1;
	return 0;
}

int main(void)
{
	ir_cmp_spread sp;
	ir_cmp_opts o = { 5.0, 0, IR_CMP_TSV, 0, 0 };
	ir_cmp_real runs[4];
	ir_cmp_sim sim;
	ir_cmp_summary sum;
	ir_sb sb = IR_SB_INIT;
	ir_err e;
	uint64_t outside;
	double v[5];

	/* spread */
	v[0] = 120; v[1] = 100; v[2] = 110;
	ir_cmp_spread_of(v, 3, &sp);
	ok(sp.median == 110 && sp.min == 100 && sp.max == 120, "spread of 3: median 110, 100..120");
	ok(fabs(ir_cmp_spread_pct(&sp) - 100.0 * 20 / 110) < 1e-9, "spread pct (max - min) / median");
	v[0] = 100; v[1] = 130;
	ir_cmp_spread_of(v, 2, &sp);
	ok(sp.median == 115 && sp.min == 100 && sp.max == 130, "spread of 2: the median is the mean");
	v[0] = 7;
	ir_cmp_spread_of(v, 1, &sp);
	ok(sp.median == 7 && sp.min == 7 && sp.max == 7 && ir_cmp_spread_pct(&sp) == 0, "one run: no spread");
	sp.median = 0; sp.min = 0; sp.max = 3;
	ok(isinf(ir_cmp_spread_pct(&sp)), "a median of 0 with a spread: inf");

	/* within: |sim - median| <= the farthest run's distance, on either side */
	sp.median = 110; sp.min = 100; sp.max = 115;
	ok(ir_cmp_within(&sp, 110), "the median is within");
	ok(ir_cmp_within(&sp, 100) && ir_cmp_within(&sp, 120), "10 either side is within (the farthest run is 10 below)");
	ok(!ir_cmp_within(&sp, 99.5) && !ir_cmp_within(&sp, 120.5), "beyond 10 either side is outside");
	sp.median = sp.min = sp.max = 50;
	ok(ir_cmp_within(&sp, 50) && !ir_cmp_within(&sp, 50.001), "no spread: only the exact time is within");

	/* real times of a rank and of a run */
	mkrun(&runs[0], "r1", 1000, 900, 200, 100);
	ok(ir_cmp_real_time(&runs[0], 1, &o) == 900, "rank time: the span");
	o.sync = 1;
	ok(ir_cmp_real_time(&runs[0], 1, &o) == 1100, "--sync adds the lead");
	ok(ir_cmp_run_time(&runs[0], &o) == 1100, "--sync: the run time is the longest rank's (rank 1)");
	o.exclude_finalize = 1;
	ok(ir_cmp_real_time(&runs[0], 0, &o) == 900, "--exclude-finalize takes the tail off");
	o.sync = o.exclude_finalize = 0;
	ok(ir_cmp_run_time(&runs[0], &o) == 1000, "the run time is the longest rank's (rank 0)");

	/* the median run */
	mkrun(&runs[1], "r2", 1300, 1200, 0, 0);
	mkrun(&runs[2], "r3", 1100, 1000, 0, 0);
	mkrun(&runs[3], "r4", 1100, 900, 0, 0);
	is_u64(ir_cmp_median_run(runs, 3, &o), 2, "median of 1000, 1300, 1100: run 3");
	is_u64(ir_cmp_median_run(runs, 2, &o), 0, "of two runs the shorter");
	is_u64(ir_cmp_median_run(runs, 4, &o), 2, "of four (1000 1300 1100 1100): the first of the equal middle ones");
	is_u64(ir_cmp_median_run(runs, 1, &o), 0, "of one run: it");

	/* the report against three runs (rank 0: 1000 1300 1100 -> 1100, 1000..1300;
	 * rank 1: 900 1200 1000 -> 1000, 900..1200) */
	ok(ir_cmp_sim_parse(&sim, "rank\tend_ps\n0\t1150\n1\t1500\n", 25, "s.tsv", &e) == 0, "results parsed");
	ok(ir_cmp_report_runs(runs, 3, &sim, 1, &o, &sb, &outside, &sum, &e) == 0, "report of 3 runs");
	ok(has_line(sb.buf, "rank\treal_ps\tmin_ps\tmax_ps\tspread_pct\tsim_ps\tdev_pct\twithin_spread"), "tsv header");
	ok(has_line(sb.buf, "0\t1100\t1000\t1300\t27.273\t1150\t4.545\tyes"), "rank 0: median, range, spread, within");
	ok(has_line(sb.buf, "1\t1000\t900\t1200\t30.000\t1500\t50.000\tno"), "rank 1: outside the spread");
	ok(has_line(sb.buf, "all\t1100\t1000\t1300\t27.273\t1500\t36.364\tno"), "all: run times against the longest rank");
	ok(has_line(sb.buf, "# runs=3 median_run=3 r3"), "the median run named");
	ok(has_line(sb.buf, "# s.tsv: max_abs_dev_pct=50.000 worst_rank=1 mean_abs_dev_pct=27.273 outside=1 "
	                    "tolerance_pct=5 run_dev_pct=36.364 within_spread=no"),
	   "summary with the run's deviation");
	is_u64(outside, 1, "one rank outside the tolerance (against the median)");
	ok(sum.run_sim_ps == 1500 && !sum.run_within && fabs(sum.run_dev_pct - 100.0 * 400 / 1100) < 1e-9,
	   "summary struct: the run");

	/* text: the words */
	sb.len = 0;
	o.format = IR_CMP_TEXT;
	ok(ir_cmp_report_runs(runs, 3, &sim, 1, &o, &sb, &outside, NULL, &e) == 0, "text report");
	ok(strstr(sb.buf, "within\n") && strstr(sb.buf, "outside\n"), "text: within and outside per row");
	ok(has_line(sb.buf, "s.tsv: run time 0.002 us, +36.36% from the median 0.001 us of 3 runs (0.001 to 0.001 us, "
	                    "spread 27.27%): outside the spread"),
	   "text: the run's summary line");

	/* runs only */
	sb.len = 0;
	o.format = IR_CMP_TSV;
	ok(ir_cmp_report_runs(runs, 4, NULL, 0, &o, &sb, &outside, NULL, &e) == 0 && outside == 0, "runs only");
	ok(has_line(sb.buf, "rank\treal_ps\tmin_ps\tmax_ps\tspread_pct") && has_line(sb.buf, "# runs=4 median_run=3 r3"),
	   "runs only: no results columns, the median run");

	/* one run: the plain report, as ir_cmp_report gives it */
	{
		ir_sb b2 = IR_SB_INIT;
		sb.len = 0;
		ok(ir_cmp_report_runs(runs, 1, &sim, 1, &o, &sb, &outside, NULL, &e) == 0 &&
		       ir_cmp_report(&runs[0], &sim, 1, &o, &b2, &outside, NULL, &e) == 0 && !strcmp(sb.buf, b2.buf),
		   "one run: the report of ir_cmp_report");
		ok(has_line(sb.buf, "rank\treal_ps\tsim_ps\tdev_pct") && has_line(sb.buf, "0\t1000\t1150\t15.000"),
		   "one run: the plain columns");
		ir_sb_release(&b2);
	}

	/* rank counts */
	runs[1].nranks = 1;
	ok(ir_cmp_report_runs(runs, 3, &sim, 1, &o, &sb, &outside, NULL, &e) == -1, "a run with other ranks: error");
	is_str(e.msg, "r2: 1 rank, but the first run (r1) has 2", "the message names both runs");
	runs[1].nranks = 2;
	sim.nranks = 3;
	ok(ir_cmp_report_runs(runs, 3, &sim, 1, &o, &sb, &outside, NULL, &e) == -1, "results with other ranks: error");
	is_str(e.msg, "s.tsv: 3 ranks, but the traces have 2", "the message names the results");
	sim.nranks = 2;

	/* the machine's state (--state-ref): a run is slowed when one of its round trips is more
	 * than 25 % above the reference */
	{
		ir_cmp_real x;
		memset(&x, 0, sizeof x);
		x.rtt_init_us = 1.26;
		x.rtt_fini_us = 1.26;
		ok(ir_cmp_run_slowed(&x, 1.0) && !ir_cmp_run_slowed(&x, 0) && !ir_cmp_run_slowed(&x, 1.01),
		   "state: 26 %% above is slowed, 24.8 %% is not, no reference never");
		x.rtt_fini_us = 1.2;
		ok(ir_cmp_run_slowed(&x, 1.0), "state: one end slowed is enough");
		x.rtt_init_us = 1.2;
		ok(!ir_cmp_run_slowed(&x, 1.0), "state: both ends 20 %% above: not slowed");
		x.rtt_fini_us = -1;
		x.rtt_init_us = 1.3;
		ok(ir_cmp_run_slowed(&x, 1.0), "state: no Finalize round trip: the Init one decides");
		x.rtt_init_us = -1;
		x.rtt_fini_us = -1;
		ok(!ir_cmp_run_slowed(&x, 1.0), "state: no round trip: never");
	}
	/* the runs of the report above, runs 2 and 4 slowed: the median of runs 1 and 3 */
	for (int i = 0; i < 4; i++) {
		runs[i].rtt_init_us = i % 2 ? 2.0 : 1.0;
		runs[i].rtt_fini_us = i % 2 ? 2.0 : 1.0;
	}
	o.state_ref_us = 1.0;
	sb.len = 0;
	ok(ir_cmp_report_runs(runs, 4, NULL, 0, &o, &sb, &outside, NULL, &e) == 0 &&
	       has_line(sb.buf, "# state: ref_us=1.000 slowed_pct=25 set_aside=2,4 used=2"),
	   "state: runs 2 and 4 set aside");
	o.state_ref_us = 0;

	ir_sb_release(&sb);
	ir_cmp_sim_release(&sim);
	for (int i = 0; i < 4; i++)
		ir_cmp_real_release(&runs[i]);
	return tap_done();
}
