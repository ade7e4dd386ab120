/*
 * ir_t2g.h: converting the traces of one MPI run into a GOAL schedule.
 *
 * The conversion streams: ranks are converted one after the other and each
 * rank's GOAL block is written while its trace is read, so memory is bounded
 * by the in-flight requests, the communicators and the output buffer, not by
 * the trace length. What must agree between ranks (message counts per pair,
 * the sequence of collectives per communicator) is summarised per rank in
 * small tables and checked when all ranks are done.
 *
 * With --sync (opts.sync) the ranks are read together instead, always
 * advancing the rank whose next call starts first, because a call's replayed
 * duration then depends on other ranks' entry times (ir_tsync.h computes
 * them); each rank's text goes to a temporary file and the schedule is
 * assembled at the end. Memory stays bounded by what is in flight.
 *
 * The rules (chain of calcs, point-to-point, requests, collectives, tags,
 * communicators, clock offsets, pinning, durations, local work, --sync) are documented in
 * docs/trace2goal.md; --compat schedgen follows docs/schedgen-compat.md.
 */
#ifndef IR_T2G_H
#define IR_T2G_H

#include <stdint.h>

#include "ir_coll.h"
#include "ir_err.h"
#include "ir_io.h"
#include "ir_model.h"
#include "ir_storage.h"
#include "ir_trace.h"

typedef void (*ir_t2g_warn_fn)(void *ctx, const char *msg);

/* --poll-tests (docs/trace2goal.md 2.1): a run of polls alone ended by a successful Test is work
 * (its polls at the target's cost), a wait, a wait with its polls beside it, or (auto, the
 * default) a wait in a rank that never leaves such a run before a completion, work elsewhere.
 * Never a wait with --durations. */
enum { IR_T2G_POLL_WORK = 0, IR_T2G_POLL_WAIT = 1, IR_T2G_POLL_OVERLAP = 2, IR_T2G_POLL_AUTO = 3 };

typedef struct ir_t2g_opts {
	int compat_schedgen;              /* --compat schedgen */
	int no_clock;                     /* do not apply clock offsets */
	enum ir_coll_alg coll[IR_COLL_NSEL]; /* IR_ALG_DEFAULT: the mode's default; [kind + IR_COLL_NKINDS]: nonblocking */
	int pin;                          /* pinning compensation */
	double pin_a;                     /* ps per first use */
	double pin_b;                     /* ps per new byte */
	double cpu_scale;                 /* multiplies every calc (default 1) */
	const char *from_re, *to_re;      /* phase cut (PCRE2 on call names), NULL: none */
	unsigned long from_nth;           /* the K-th match of from_re starts the phase (default 1) */
	int durations;                    /* the calls' own durations become calcs */
	int calc_cpu;                     /* --calc cpu: a gap's calc is the thread's CPU time in it
	                                   * (the trace's CPU times, format version 2), not wall time */
	int sync;                         /* --sync: durations from the zero-cost completion */
	int poll_test_wait;               /* --poll-tests: what a run of polls alone ended by a
	                                   * successful Test is (IR_T2G_POLL_*; ir_t2g_poll.c,
	                                   * docs/trace2goal.md 2.1) */
	int keep_tracer;                  /* --tracer-time keep: leave the tracer's own time after each
	                                   * return (formats/trace.md 3.8) in the gaps */
	ir_loggops net;                   /* the message model (ir_model.h; ir_loggops_load): prices
	                                   * --durations, S for --sync, copy and reduce for the local
	                                   * work of collectives */
	ir_loggops from;                  /* the traced network's model: the local work of the calls
	                                   * that keep it in the plain conversion (window creation,
	                                   * free and fence: docs/trace2goal.md, "One-sided
	                                   * communication"); has_from 0: net */
	int has_from;
	int64_t poll_from, poll_to;       /* ps per unsuccessful poll on the traced and on the target
	                                   * network; -1 unknown; both known: the poll model
	                                   * (docs/trace2goal.md §2.1) */
	ir_storage_cfg storage;           /* storage servers for MPI-IO (ir_storage.h); servers 0:
	                                   * MPI-IO calls stay computation */
	ir_t2g_warn_fn warn;              /* warnings (may be NULL) */
	void *warn_ctx;
} ir_t2g_opts;

void ir_t2g_opts_init(ir_t2g_opts *o);

typedef struct ir_t2g_stats {
	uint64_t ranks, calls, ops, trace_bytes, goal_bytes;
	uint64_t poll_waits, poll_wait_ps, poll_work; /* the poll model: runs taken as waits, their
	                                               * time (ps), polls taken as work */
	uint64_t poll_ovl;                /* of the waits, loops of Tests whose polls ran beside them */
	uint64_t tracer_ps;               /* the tracer's own time taken out of the gaps */
} ir_t2g_stats;

/* Convert the traces `files` into GOAL text written to `w`. Returns 0, or -1 with a message
 * ("file:line: ..." for trace errors). */
int ir_t2g_convert(const ir_trace_files *files, const ir_t2g_opts *o, ir_writer *w, ir_t2g_stats *st,
                   ir_err *e);

#endif
