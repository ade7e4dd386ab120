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
 * Ownership: ir_cmp_real and ir_cmp_sim are caller-owned (_release).
 */
#ifndef IR_CMP_H
#define IR_CMP_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_strbuf.h"

typedef struct ir_cmp_real {
	uint32_t nranks;
	int64_t *span_ps; /* MPI_Init return to MPI_Finalize call */
	int64_t *tail_ps; /* last call's return (before MPI_Finalize) to MPI_Finalize call */
	int64_t *lead_ps; /* MPI_Init return minus the earliest MPI_Init return of all ranks */
} ir_cmp_real;

/* Read the real times from a trace directory or files (ir_trace_discover rules). */
int ir_cmp_real_read(ir_cmp_real *r, char *const *paths, size_t n, ir_err *e);
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
} ir_cmp_opts;

typedef struct ir_cmp_summary {
	double max_abs_pct;  /* largest |deviation| */
	double mean_abs_pct; /* mean |deviation| */
	uint32_t worst_rank;
	uint32_t outside;    /* ranks outside the tolerance */
} ir_cmp_summary;

/* Compare and append the report in the chosen format. Every sim must have
 * r->nranks ranks (error otherwise). *outside gets the number of (rank,
 * results file) pairs outside the tolerance. sum (may be NULL) gets one
 * summary per results file. */
int ir_cmp_report(const ir_cmp_real *r, const ir_cmp_sim *sims, size_t nsims, const ir_cmp_opts *o, ir_sb *out,
                  uint64_t *outside, ir_cmp_summary *sum, ir_err *e);

/* Deviation of one rank in percent (+inf when real is 0 and sim is not; 0 when both are 0). */
double ir_cmp_dev_pct(double real_ps, double sim_ps);

#endif
