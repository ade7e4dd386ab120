/*
 * ir_cmp.h: real against simulated run time, rank by rank (cmp-real).
 *
 * The real time of a rank is the time from the return of its MPI_Init to
 * the call of its MPI_Finalize, on rank 0's clock (the clock correction of
 * ir_trace.h, the one trace2goal applies): that is the span trace2goal turns
 * into the rank's schedule, which starts at 0, so ibsim's end time of the
 * rank is directly comparable. With `exclude_finalize` both sides stop at
 * the return of the rank's last call before MPI_Finalize: the time from
 * there to MPI_Finalize (writing output, freeing memory) is copied from the
 * trace into the schedule as the rank's last calc, so it is subtracted from
 * the simulated end time too, and only what the simulation predicts is
 * compared.
 *
 * With `sync` the real time of a rank starts at the earliest MPI_Init
 * return of all ranks instead of its own: trace2goal --durations --sync
 * starts every rank's schedule with a calc of its own start minus the
 * earliest one, so that the replay of a zero-cost network ends where the
 * real run ended, and ibsim's end time of such a schedule counts from the
 * earliest start.
 *
 * Deviation = (simulated - real) / real, in percent. A rank is outside the
 * tolerance when |deviation| > tolerance.
 *
 * Several real runs of the same program (ir_cmp_report_runs): identical runs
 * differ by 10 % and more on a shared machine, so one run is a poor yardstick.
 * The real time of a rank is then the median over the runs, and the report
 * adds the spread of the runs (smallest, largest, (largest - smallest) /
 * median) and whether the simulated time lies within it: |simulated -
 * median| no larger than the distance of the farthest run from the median
 * (a prediction as close to the median as some real run is). The same is
 * said of the whole run, whose time is its longest rank's. The first run is
 * the one the schedules are taken to be made from (--exclude-finalize
 * subtracts its tail from the simulated times). The alternatives rejected:
 * the mean (one disturbed run moves it), and a confidence interval (five
 * runs are too few to estimate a distribution; the range says only what was
 * seen).
 *
 * Ownership: ir_cmp_real and ir_cmp_sim are caller-owned (_release).
 */
#ifndef IR_CMP_H
#define IR_CMP_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_strbuf.h"

typedef struct ir_cmp_real {
	char *name;       /* the first path read (names the run in reports); may be NULL */
	uint32_t nranks;
	int64_t *span_ps; /* MPI_Init return to MPI_Finalize call */
	int64_t *tail_ps; /* last call's return (before MPI_Finalize) to MPI_Finalize call */
	int64_t *lead_ps; /* MPI_Init return minus the earliest MPI_Init return of all ranks */
	/* the machine's state at both ends of the run: the median over ranks 1.. of the round
	 * trips of their clock exchanges at MPI_Init and MPI_Finalize (us; -1: none) */
	double rtt_init_us, rtt_fini_us;
} ir_cmp_real;

/* A run on a slowed machine (docs/man/cmp-real.1, --state-ref): one of its clock round
 * trips (MPI_Init, MPI_Finalize; those it has) above ref_us by more than IR_CMP_STATE_SLOW_PCT
 * %: a run the machine slowed all through or in part; never when ref_us is 0. */
#define IR_CMP_STATE_SLOW_PCT 25.0
int ir_cmp_run_slowed(const ir_cmp_real *r, double ref_us);

/* Read the real times from a trace directory or files (ir_trace_discover rules). */
int ir_cmp_real_read(ir_cmp_real *r, char *const *paths, size_t n, ir_err *e);

/* A phase of the run (cmp-real --from, --from-nth, --to; the rule of trace2goal's options
 * of those names, docs/trace2goal.md section 7): on every rank, from the call of the
 * from_nth-th call whose name matches `from` (PCRE2; counted from the trace's first call)
 * to the return of the first call from there on, that one included, whose name matches
 * `to`; without `to`, to the call of MPI_Finalize. span_ps is then the phase's time, lead_ps
 * its start minus the earliest start of all ranks, tail_ps 0 when `to` is given. */
typedef struct ir_cmp_phase {
	const char *from;       /* NULL: the whole run */
	const char *to;         /* may be NULL */
	unsigned long from_nth; /* >= 1 */
} ir_cmp_phase;
int ir_cmp_real_read_phase(ir_cmp_real *r, char *const *paths, size_t n, const ir_cmp_phase *ph, ir_err *e);
void ir_cmp_real_release(ir_cmp_real *r);

typedef struct ir_cmp_sim {
	char *name;
	uint32_t nranks;
	uint64_t *end_ps; /* [nranks] */
} ir_cmp_sim;

/* Read an ibsim results file (formats/results.md): '#' lines, a header row
 * naming the columns (rank and end_ps are needed), one row per rank 0..N-1. */
int ir_cmp_sim_read(ir_cmp_sim *s, const char *path, ir_err *e);
int ir_cmp_sim_parse(ir_cmp_sim *s, const void *text, size_t len, const char *name, ir_err *e);
void ir_cmp_sim_release(ir_cmp_sim *s);

enum ir_cmp_format { IR_CMP_TEXT = 0, IR_CMP_TSV = 1, IR_CMP_MD = 2 };

typedef struct ir_cmp_opts {
	double tolerance_pct; /* default 5 */
	int exclude_finalize;
	int format;           /* enum ir_cmp_format */
	int sync;             /* real times from the earliest MPI_Init return (trace2goal --sync) */
	double state_ref_us;  /* >0: several runs: those on a slowed machine (ir_cmp_run_slowed)
	                         are set aside from the medians and spreads, unless all were */
} ir_cmp_opts;

typedef struct ir_cmp_summary {
	double max_abs_pct;  /* largest |deviation| */
	double mean_abs_pct; /* mean |deviation| */
	uint32_t worst_rank;
	uint32_t outside;    /* ranks outside the tolerance */
	/* the whole run (its longest rank): simulated time, deviation from the real
	 * median, and whether that lies within the real runs' spread */
	double run_sim_ps;
	double run_dev_pct;
	int run_within;
} ir_cmp_summary;

/* Median, smallest and largest of one time over several real runs. */
typedef struct ir_cmp_spread {
	double median, min, max;
} ir_cmp_spread;

/* The spread of v[0..n) (n >= 1; sorts v in place). */
void ir_cmp_spread_of(double *v, size_t n, ir_cmp_spread *s);
/* (max - min) / median in percent: 0 when max equals min, +inf when the median is 0 and max is not. */
double ir_cmp_spread_pct(const ir_cmp_spread *s);
/* 1 when |sim - median| <= max(median - min, max - median), else 0. */
int ir_cmp_within(const ir_cmp_spread *s, double sim);

/* The real time of rank k of a run under the options (sync, exclude_finalize). */
double ir_cmp_real_time(const ir_cmp_real *r, uint32_t k, const ir_cmp_opts *o);
/* The real time of a run: its longest rank's. */
double ir_cmp_run_time(const ir_cmp_real *r, const ir_cmp_opts *o);
/* The index of the median run by run time (n >= 1): for an even n the shorter
 * of the two middle runs; among equal times the first. */
size_t ir_cmp_median_run(const ir_cmp_real *runs, size_t n, const ir_cmp_opts *o);

/* Compare and append the report in the chosen format. Every sim must have
 * r->nranks ranks (error otherwise). *outside gets the number of (rank,
 * results file) pairs outside the tolerance. sum (may be NULL) gets one
 * summary per results file. */
int ir_cmp_report(const ir_cmp_real *r, const ir_cmp_sim *sims, size_t nsims, const ir_cmp_opts *o, ir_sb *out,
                  uint64_t *outside, ir_cmp_summary *sum, ir_err *e);

/* The same against several real runs of the program (nruns >= 1; every run
 * must have runs[0]'s rank count, error otherwise): with one run the report
 * is ir_cmp_report's; with more, every real time is the median over the runs,
 * the spread and whether each simulated time lies within it are added, and a
 * row "all" compares the run times. nsims may be 0 (the real runs only). */
int ir_cmp_report_runs(const ir_cmp_real *runs, size_t nruns, const ir_cmp_sim *sims, size_t nsims,
                       const ir_cmp_opts *o, ir_sb *out, uint64_t *outside, ir_cmp_summary *sum, ir_err *e);

/* Deviation of one rank in percent (+inf when real is 0 and sim is not; 0 when both are 0). */
double ir_cmp_dev_pct(double real_ps, double sim_ps);

#endif
