/*
 * ir_calib.h: fitting LogGOPS overheads to a measured ping-pong (calib).
 *
 * The measurement is a two-rank ping-pong over a set of message sizes: rank
 * 0 sends s bytes to rank 1 and receives them back, several times per size.
 * Its one-way time is half the time from the send call to the return of the
 * receive that follows it on rank 0. The first exchange of each size uses a
 * fresh buffer (samples/apps/pingpong.c does so; so did the thesis's ltest),
 * so its extra time is the cost of first use (memory registration, page
 * faults) and is kept apart as pinning data; the median of the other
 * exchanges is the size's one-way time.
 *
 * The fit (formats/params.md, docs/man/calib.1): the network's own one-way
 * time sim(s) comes from the input (TSV column sim_us) or from simulating the
 * same two-rank exchange with the engine on the chosen network with o = O = 0.
 * In the LogGOPS engine a one-way eager or rendezvous message costs the
 * sender's o, the network, and the receiver's o plus its per-byte charge, so
 *
 *     real(s) - sim(s) = 2*o + (O - G')*(s - 1)      (s >= 1; 0 bytes cost no per-byte time)
 *
 * where G' is the per-byte time the network already charges at the receiver
 * (G on the loggops network, 0 on a network that models the bytes itself).
 * A least-squares line A + B*(s-1) per protocol gives o = A/2 and O = B + G'
 * (weighted by 1/real^2 so that relative errors count, unless unweighted).
 * The protocols split at S (given, or the breakpoint with the smallest total
 * squared residual). Pinning: first-use round trip minus the median reused
 * round trip, per size, fitted as pin_a + pin_b*size, and written as 0 when
 * neither term is positive by three standard errors (noise, as on shared
 * memory, where nothing is registered). `--model loggp` fits
 * instead real(s) = 2*o + L + G*(s-1) of the pure LogGP network (O = 0),
 * with o from the median duration of the smallest message's send calls (or
 * given).
 *
 * netcal (samples/apps/netcal.c, formats/calibration.md) measures more than a
 * ping-pong: warm and cold buffers, a late receiver, self copies and local
 * reductions, each phase marked by its message tag. From its traces calib
 * also fits the piecewise model of ir_model.h: send_o, recv_o, net_L, copy
 * and reduce, each a piecewise affine function of the size whose segments
 * are found by dynamic programming over breakpoints at measured sizes
 * (ir_calib_segments), with a forced break at S for the three message terms.
 * The classic keys (o, O, S ...) are still fitted to the warm ping-pong, so
 * tools and users that know only them keep working.
 *
 * Ownership: ir_calib_data is caller-owned (ir_calib_data_init/_release).
 * The library never prints: tables, parameter files and gnuplot scripts are
 * appended to strbufs for the tool to write.
 */
#ifndef IR_CALIB_H
#define IR_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_model.h"
#include "ir_net.h"
#include "ir_stats.h"
#include "ir_strbuf.h"

/* One measured exchange. */
typedef struct ir_calib_sample {
	uint64_t size;     /* bytes */
	double oneway_ps;  /* half the round trip */
	double send_ps;    /* duration of the send call (traces), or -1 */
	int first;         /* first exchange of its size (first use of a buffer) */
	size_t seq;        /* input order (trace order; runs pooled one after the other) */
	int64_t t_ps;      /* netcal traces: when it was measured (its first call, on the run's clock) */
	int slowed;        /* between two pulses that found the machine slowed (ir_calib_state_filter) */
} ir_calib_sample;

/* A size's measurement drifted during the run when the medians of the first and the second
 * half of its reused exchanges (input order) differ by more than IR_CALIB_DRIFT_PCT % of the
 * size's median and by more than IR_CALIB_DRIFT_SE standard errors of the difference
 * (formats/calibration.md, "Drift"); sizes with fewer than IR_CALIB_DRIFT_MIN_REPS are not
 * tested. */
#define IR_CALIB_DRIFT_PCT 10.0

/* What a size's repetitions give the fit (formats/calibration.md, "Mean or median"):
 * IR_CALIB_EST_MEAN, their mean winsorized at IR_CALIB_EST_WINS (the 1 % largest counted as
 * the 99th percentile, the 1 % smallest as the 1st): a replay sums the costs, and a sum's
 * expectation is the sum of the means; winsorized, so that the rare preemption of a
 * millisecond does not swamp a thousand calls of a microsecond (a calibration minutes later
 * would not meet it); IR_CALIB_EST_MEDIAN, their median (calib --estimator median). */
enum { IR_CALIB_EST_MEAN = 0, IR_CALIB_EST_MEDIAN = 1 };
#define IR_CALIB_EST_WINS 0.01

/* The spread of the send call and the late receive (formats/calibration.md, "The spread of a
 * call's cost"): IR_CALIB_SPREAD_N factors, from the sizes with IR_CALIB_SPREAD_MIN_REPS
 * repetitions or more. */
#define IR_CALIB_SPREAD_N 16
#define IR_CALIB_SPREAD_MIN_REPS 100
#define IR_CALIB_DRIFT_SE 3.0
#define IR_CALIB_DRIFT_MIN_REPS 10

/* One message size, after aggregation. */
typedef struct ir_calib_point {
	uint64_t size;
	size_t reps;        /* reused exchanges (or TSV rows) */
	double real_ps;     /* median one-way time of the reused exchanges */
	double send_ps;     /* median send-call duration, or -1 */
	size_t nfirst;      /* the number of first exchanges (first uses of a buffer) */
	double first_ps;    /* their median one-way time */
	double sim_ps[2];   /* network's own one-way time, o = O = 0: [0] eager, [1] rendezvous */
	double half_ps[2];  /* median one-way time of the first and the second half of the reused
	                       exchanges, in input order (-1: fewer than IR_CALIB_DRIFT_MIN_REPS) */
	double half_se_ps;  /* the standard error of half_ps[1] - half_ps[0] */
	int drift;          /* the halves differ beyond the drift test's bounds (above) */
} ir_calib_point;

/* netcal: phases by message tag (formats/calibration.md). */
#define IR_NETCAL_TAG_POOL 30000 /* pool pass and pilot: not fitted */
#define IR_NETCAL_TAG_WARM 30001
#define IR_NETCAL_TAG_COLD 30002
#define IR_NETCAL_TAG_FIRST 30003
#define IR_NETCAL_TAG_LATE 30004
#define IR_NETCAL_TAG_LATE_ACK 30005
#define IR_NETCAL_TAG_SELF 30006
#define IR_NETCAL_TAG_PROGRESS 30007 /* the late receiver waiting inside the library */
#define IR_NETCAL_TAG_PLAN 30008
#define IR_NETCAL_TAG_POLL 30009 /* MPI_Iprobe for a tag nobody sends */
#define IR_NETCAL_NBC_BLOCK 16 /* the nbc phase's calls of one kind in a row */
#define IR_NETCAL_MIN_WAIT_PS 20e6 /* the late receiver's shortest wait (20 us) */
#define IR_NETCAL_TAG_TRAIN_RECV 30010 /* + the gap's index: a send the gap after a receive */
#define IR_NETCAL_TAG_TRAIN_SEND 30030 /* + the gap's index: a send the gap after a send */
#define IR_NETCAL_TAG_TRAIN_ACK 30050  /* rank 1's answer, which a train's first send follows */
#define IR_NETCAL_TRAIN_GAPS 12        /* the train phase's gaps (netcal: TRAIN_GAPS) */
#define IR_NETCAL_TAG_EXCH 30051       /* both ranks' MPI_Sendrecv of s bytes to each other at once */
#define IR_NETCAL_TAG_EXCH_SYNC 30052  /* the 0-byte MPI_Sendrecv that lines the two up before it */
#define IR_NETCAL_TAG_PULSE 30053      /* a pulse's 0-byte exchanges: the machine's state */
#define IR_NETCAL_TAG_BARE 30054       /* rank 0's MPI_Iprobe before an untraced block */
#define IR_NETCAL_TAG_BARE_END 30055   /* and after it (the block's exchanges, 30056, are untraced) */
#define IR_NETCAL_TAG_MIN 30000
#define IR_NETCAL_TAG_MAX 30056

/* The machine's state (formats/calibration.md, "Machine state"): the pulses of a phase
 * (those followed by the same call), at least IR_CALIB_STATE_MIN_PULSES of them, have their
 * values (the median round trip of each) compared with their IR_CALIB_STATE_REF_Q quantile,
 * the machine undisturbed; a pulse above it by more than IR_CALIB_STATE_SLOW_PCT % found the
 * machine slowed, and a measurement between two such pulses is set aside, unless fewer than
 * IR_CALIB_STATE_MIN_KEEP of its series and size (and at least one) would remain. */
#define IR_CALIB_STATE_MIN_PULSES 8
#define IR_CALIB_STATE_REF_Q 0.10
#define IR_CALIB_STATE_SLOW_PCT 25.0
#define IR_CALIB_STATE_MIN_KEEP 3

/* The tracer's share (formats/calibration.md, "The tracer's share"): netcal's pulses, each
 * compared with the mean of the untraced blocks of IR_NETCAL_BARE_N exchanges right before and
 * right after it; with at
 * least IR_CALIB_TRACER_MIN_PAIRS pairs whose median difference is above 0 with 95 %
 * confidence, that difference (a message's one-way time, traced less untraced) is taken off
 * every one-way time of the run, and half of it off every call's duration. */
#define IR_NETCAL_BARE_N 8
#define IR_CALIB_TRACER_MIN_PAIRS 8
#define IR_CALIB_TRACER_RUNS 16 /* runs whose figures are kept for the comment */

typedef struct ir_calib_tracer_run {
	size_t run;            /* which of the runs read (from 1) */
	size_t pairs, dropped; /* pulses paired with the blocks around them; blocks with a flush in them */
	double med_ps, lo_ps, hi_ps; /* the median difference and its 95 % interval, one way */
	double bare_ps, traced_ps;   /* the median untraced and traced one-way times */
	int applied;           /* taken off (else: too few pairs, or not above 0) */
} ir_calib_tracer_run;

typedef struct ir_calib_tracer {
	size_t runs;           /* netcal runs read */
	size_t runs_blocks;    /* of them, runs with untraced blocks */
	size_t runs_applied;
	ir_calib_tracer_run run[IR_CALIB_TRACER_RUNS];
} ir_calib_tracer;

/* The series netcal's traces give, one duration (ps) per sample. */
enum ir_calib_series_kind {
	IR_CS_WARM,   /* one-way time, warm buffer (half the round trip) */
	IR_CS_COLD,   /* one-way time, cold buffer */
	IR_CS_FIRST,  /* one-way time, fresh buffer (one per size) */
	IR_CS_SEND,   /* duration of the warm exchange's MPI_Send */
	IR_CS_LATE,   /* duration of the late receiver's MPI_Recv (rank 1) */
	IR_CS_SELF,   /* duration of an MPI_Sendrecv to oneself */
	IR_CS_REDUCE, /* duration of an MPI_Reduce_local */
	IR_CS_LATE_SEND, /* the MPI_Send to the late receiver (rank 0), from its round's start to its return: held sizes */
	IR_CS_POLL,   /* one unsuccessful MPI_Iprobe (a line's duration over its polls), size 0 */
	IR_CS_PROG_SEND, /* the same to a late receiver waiting inside the library: S */
	IR_CS_NBC,    /* an MPI_Ibarrier's and its MPI_Wait's durations together (nbc phase), size 0 */
	IR_CS_BARRIER, /* an MPI_Barrier's duration between two MPI_Ibarrier (nbc phase), size 0 */
	IR_CS_LCOPY,  /* duration of an MPI_Alltoall on a communicator of one rank: the library's copy */
	IR_CS_EXCH,   /* an exchange: both ranks' MPI_Sendrecv of s bytes at once, the shorter of the two (exchange phase) */
	IR_CS_XRANK,  /* the same exchange as each rank saw it: both ranks' calls, two samples (recv_o_cross) */
	IR_CS_N
};

/* A size of a series after aggregation: its estimate (ps; the mean or the median,
 * ir_calib_data.estimator) and quartiles. */
typedef struct ir_calib_med {
	uint64_t size;
	size_t n;
	double med, q1, q3; /* med: the estimate the fit uses */
	double p10;         /* the 10th percentile, an order statistic: did a send wait for its receive (protocol_split) */
	double tmean, tse; /* the mean of the middle 80 % and its standard error (winsorized) */
} ir_calib_med;

typedef struct ir_calib_series {
	ir_calib_med *p; /* sorted by size */
	size_t n;
} ir_calib_series;

typedef struct ir_calib_raw {
	uint64_t size;
	double ps;
	int kind;     /* enum ir_calib_series_kind */
	int64_t t_ps; /* when it was measured (its first call, on the run's clock) */
	int slowed;   /* between two pulses that found the machine slowed (ir_calib_state_filter) */
} ir_calib_raw;

/* What the pulses said of the machine's state, over the runs read (ir_calib_read_*). */
typedef struct ir_calib_state {
	size_t runs, runs_pulsed;  /* netcal runs read; of them, those with enough pulses */
	size_t pulses, slowed;     /* pulses, and those that found the machine slowed */
	size_t phases, pulses_judged; /* phases with enough pulses to judge, and their pulses */
	double ref_min_ps, ref_max_ps; /* the undisturbed pulse (round trip) of a phase, over them */
	double slow_med_ps;        /* the median slowed pulse of the last run with any, else 0 */
	size_t measured, set_aside; /* measurements of the pulsed runs, and those set aside */
	size_t groups_whole;       /* series and sizes kept whole since too few would remain */
	size_t phases_slow;        /* with a reference: phases whose undisturbed value was above it */
} ir_calib_state;

typedef struct ir_calib_data {
	ir_calib_sample *s; /* raw samples in input order */
	size_t ns, cap;
	ir_calib_point *p;  /* sorted by size, after ir_calib_aggregate() */
	size_t np;
	int have_sim;       /* sim_ps came from the input (TSV sim_us) */
	int from_traces;
	uint32_t nranks;    /* traces: ranks in the set */
	size_t runs;        /* ir_calib_read_runs: how many runs were pooled */
	char source[256];   /* input name for messages and comments */
	/* netcal traces: the ping-pong's warm exchanges and first uses are also in s (so the
	 * classic fit runs on them); every phase's durations are in raw, per size in ser */
	int netcal;
	ir_calib_raw *raw;
	size_t nraw, capraw;
	ir_calib_series ser[IR_CS_N];
	/* netcal: rank 1's gap from its ping-pong receive's return to its answer's call, which
	 * a replay charges as computation, taken off each round trip before it is halved
	 * (formats/calibration.md, "The answer's gap"): how many exchanges had it subtracted,
	 * how many had no matching answer on rank 1 (nothing subtracted) */
	size_t gap_n, gap_miss, gap_cap;
	double *gap_ps; /* [gap_n]: the gaps taken off */
	double gap_med_ps; /* their median, after ir_calib_aggregate() */
	/* netcal's train phase (formats/calibration.md, "A send after a gap"): rank 0's sends,
	 * each the gap (index j) after its last receive or its last send */
	struct ir_calib_step {
		uint64_t size;
		uint8_t after_send, j;
		double gap_ps, dur_ps;
		int64_t t_ps;
		int slowed; /* between two slowed pulses (ir_calib_state_filter) */
	} *step;
	size_t nstep, stepcap;
	ir_calib_state state;
	int keep_slowed; /* set before reading: judge the pulses, but set nothing aside */
	double state_ref_ps; /* set before reading, 0 for none: the network's undisturbed 0-byte
	                      * round trip, known from elsewhere (calib --state-ref) */
	int state_applied;   /* ir_calib_state_apply() has run */
	ir_calib_tracer tracer;
	int keep_tracer; /* set before reading: measure the tracer's share, but take nothing off */
	int estimator;   /* set before aggregating: IR_CALIB_EST_MEAN (0, the default) or IR_CALIB_EST_MEDIAN */
} ir_calib_data;

/* A pulse of netcal (formats/calibration.md, "Machine state"). */
typedef struct ir_calib_pulse {
	int64_t t0, t1; /* its first send's call, its last receive's return (the run's clock, ps) */
	double v;       /* the median round trip of its exchanges (ps) */
	uint64_t ctx;   /* its phase: pulses are judged against those of the same phase */
	double ow;      /* the median one-way time of its exchanges, rank 1's gap taken off (ps;
	                 * -1: rank 1's trace did not give the gaps) */
} ir_calib_pulse;

/* One run's measurements, those added since the run began (raw from index r0, samples from
 * s0, train steps from st0), against its np pulses in time order: those that lie between two
 * pulses that found the machine slowed (judged within their phase, one of at least
 * IR_CALIB_STATE_MIN_PULSES pulses, and against d->state_ref_ps when set) are marked slowed,
 * and d->state counts the run. Nothing is removed until ir_calib_state_apply(). */
int ir_calib_state_filter(ir_calib_data *d, const ir_calib_pulse *p, size_t np, size_t r0, size_t s0, size_t st0,
                          ir_err *e);

/* Over the whole pool of runs read: removes the measurements marked slowed (keeping the order
 * of the rest; with keep_slowed, only counts them), except in a series and size of which fewer
 * than IR_CALIB_STATE_MIN_KEEP (and not all) would remain, which is kept whole; counts both in
 * d->state. ir_calib_aggregate() calls it; a second call does nothing. */
int ir_calib_state_apply(ir_calib_data *d, ir_err *e);

/* After ir_calib_aggregate(): how many sizes drifted (ir_calib_point.drift), and in *tested
 * (when not NULL) how many were tested. */
size_t ir_calib_drifted(const ir_calib_data *d, size_t *tested);

void ir_calib_data_init(ir_calib_data *d);
void ir_calib_data_release(ir_calib_data *d);

/* TSV input: optional header `size_bytes real_us [sim_us]`, then rows of 2 or
 * 3 numbers (size in bytes, one-way times in microseconds), separated by tabs
 * or spaces; '#' lines and blank lines are skipped. Rows with one size are
 * repetitions. Errors name the line and the bad value. */
int ir_calib_read_tsv(ir_calib_data *d, const char *path, ir_err *e);
int ir_calib_parse_tsv(ir_calib_data *d, const void *text, size_t len, const char *name, ir_err *e);

/* True when `path` looks like a trace rather than a TSV: the first line that
 * is neither blank nor a comment starts with "MPI_"; a directory is a trace
 * set; "-" (standard input) is a TSV. -1 on a read error. */
int ir_calib_is_trace(const char *path, ir_err *e);

/* Trace input: a directory or trace files (ir_trace_discover rules). Rank 0
 * must send to rank 1 and then receive from it; rank 1 must receive those
 * messages. */
int ir_calib_read_traces(ir_calib_data *d, char *const *paths, size_t n, ir_err *e);
/* The same for a set already found (ir_trace_discover), or held in memory (its files' data:
 * fuzz/fuzz-calib-traces.c); `source` names it in messages and comments. */
struct ir_trace_files;
int ir_calib_read_set(ir_calib_data *d, const struct ir_trace_files *tf, const char *source, ir_err *e);
/* Several complete runs, one directory each, pooled into one set of samples. */
int ir_calib_read_runs(ir_calib_data *d, char *const *dirs, size_t n, ir_err *e);

/* Medians per size; checks for degenerate input (no exchange, one size, a
 * size without repetitions). netcal: also the series' medians and quartiles. */
int ir_calib_aggregate(ir_calib_data *d, ir_err *e);

/* The median (and quartiles) of series `kind` at `size`, or NULL. */
const ir_calib_med *ir_calib_series_at(const ir_calib_data *d, int kind, uint64_t size);

/* The spread of series `kind` (IR_CS_SEND, IR_CS_LATE; formats/calibration.md, "The spread of
 * a call's cost"): every duration of a size with IR_CALIB_SPREAD_MIN_REPS or more, winsorized
 * as its mean is, over that mean; pooled, sorted, cut into IR_CALIB_SPREAD_N shares of equal
 * count (the values on a share's edges in part), each share's mean a factor. d->raw must be
 * sorted by kind, size and time (as ir_calib_aggregate leaves it). Returns the number of
 * durations, 0 when fewer than IR_CALIB_SPREAD_N * 10 (out->n = 0), -1 when out of memory;
 * *nsizes: the sizes used. */
long ir_calib_spread(const ir_calib_data *d, int kind, ir_spread *out, size_t *nsizes);

/* ---- piecewise fits (netcal) ---- */

#define IR_CALIB_MAXSEG 8     /* segments per function */
#define IR_CALIB_MAXPTS 400   /* sizes a piecewise fit takes */

typedef struct ir_calib_seg {
	size_t a, b;              /* points [a, b) */
	uint64_t from;            /* bytes: where the segment starts in the function */
	double base, slope;       /* ps, ps per byte (>= 0: the fit is constrained) */
	double ci_base, ci_slope; /* 95 % half-widths; < 0: not determined (too few points, or clamped) */
} ir_calib_seg;

typedef struct ir_calib_pwfit {
	size_t n;                 /* points */
	size_t nseg;
	ir_calib_seg seg[IR_CALIB_MAXSEG];
	double sse;               /* weighted sum of squared residuals (relative, with weights 1/y^2) */
	double bic;
	ir_pw pw;                 /* the function as written (integer ps, fs per byte) */
} ir_calib_pwfit;

/* Piecewise affine least squares over n points sorted by x (sizes, distinct):
 * for every number of segments K up to maxseg (<= IR_CALIB_MAXSEG), dynamic
 * programming finds the breakpoints (at measured sizes) with the smallest
 * weighted sum of squares; the K with the smallest n*ln(SSE/n) + 3*K*ln(n)
 * (BIC, SSE floored at a 1 % rms relative residual) wins. Segments have at
 * least 4 points unless a side of the forced break has fewer. `brk`: no
 * segment holds sizes both <= brk and > brk (UINT64_MAX: no forced break); the
 * first segment after it starts at brk + 1. Base and slope are constrained to
 * be >= 0. */
int ir_calib_segments(const double *x, const double *y, const double *w, size_t n, uint64_t brk, size_t maxseg,
                      ir_calib_pwfit *f, ir_err *e);

enum ir_calib_term {
	IR_CT_SEND_O,
	IR_CT_RECV_O,
	IR_CT_NET_L,
	IR_CT_COPY,
	IR_CT_REDUCE,
	IR_CT_COLL_COPY,
	IR_CT_RECV_X, /* recv_o_cross (formats/calibration.md, "Crossing messages") */
	IR_CT_N
};
extern const char *const ir_calib_term_names[IR_CT_N];

typedef struct ir_calib_term_fit {
	int have;                 /* fitted (copy, reduce: the phase was measured) */
	size_t n;
	uint64_t *size;           /* the points fitted: size, per-size value (ps) */
	double *y;
	ir_calib_pwfit pw;
} ir_calib_term_fit;

/* The network the network-only times are simulated on. */
typedef struct ir_calib_net {
	const ir_net_type *type; /* the registry's entry (ir_net.h) */
	const char *name;       /* its name */
	const ir_net_ops *ops;
	const void *arg;
	int models_bytes;       /* G' = 0 (the network charges the bytes itself) */
	ir_loggops p;           /* L g G S from the parameters; o O are set to 0 for the simulation */
	void *own;              /* the network's configuration (type->cfg_new), owned (ir_calib_net_release) */
	char topo[256];         /* the topology given (a network with a topo key), "" for the default */
} ir_calib_net;

/* Resolve a network name (NULL: the default) through the registry of
 * ir_net.h, and its --topo. With `need_engine` 0 (the network times come from
 * the input) only the name and models_bytes are set. A network with options
 * (ib) gets its defaults and the topology `topo` (NULL: its default, for ib
 * one switch). */
int ir_calib_net_select(ir_calib_net *n, const char *name, const char *topo, const ir_loggops *p, int need_engine,
                        ir_err *e);
/* Pass a network-specific parameter (ib: link, mtu, routing ...; see ibsim).
 * Returns 0, -1 with e set on a bad value, -2 when the network has no such key. */
int ir_calib_net_set(ir_calib_net *n, const char *key, const char *value, ir_err *e);
void ir_calib_net_release(ir_calib_net *n);

/* Simulate one two-rank exchange of `size` bytes with parameters p on the
 * network; *rtt_ps gets rank 0's end time (the round trip). */
int ir_calib_sim_pingpong(const ir_calib_net *n, const ir_loggops *p, uint64_t size, uint64_t *rtt_ps, ir_err *e);

/* Fill sim_ps of every point by simulation with o = O = 0 (eager and rendezvous). */
int ir_calib_simulate(ir_calib_data *d, const ir_calib_net *n, ir_err *e);

enum ir_calib_model { IR_CALIB_OGOPS = 0, IR_CALIB_LOGGP = 1 };

typedef struct ir_calib_opts {
	int model;          /* enum ir_calib_model */
	int have_S;         /* -S given */
	uint64_t S;
	int have_o;         /* loggp: o given */
	double o_ps;
	double Gprime;      /* per-byte time the network charges at the receiver (loggops: G) */
	int unweighted;     /* plain least squares instead of relative (weights 1/real^2) */
} ir_calib_opts;

typedef struct ir_calib_fit {
	int model;
	int unweighted;
	double sse_unit;    /* sse divided by this for messages (1, or ps^2 per us^2) */
	/* overheads model */
	size_t split;       /* points [0, split) are eager */
	uint64_t S;
	int S_searched;     /* 1: breakpoint search; 0: -S, or too few sizes to search */
	int S_protocol;     /* 1: S from the late receiver's sender (formats/calibration.md, "S") */
	int searched_none;  /* too few sizes to search: one line for all */
	ir_linfit eager, rndv;  /* real - sim = A + B*(s-1) */
	int have_rndv;
	ir_linfit one;      /* the same over all points (for comparison) */
	double o, O, o_rndv, O_rndv;            /* ps, ps per byte, before clamping */
	int clamp_o, clamp_O, clamp_or, clamp_Or;
	/* loggp */
	ir_linfit all;      /* real = A + B*(s-1) */
	double L, lo, G;    /* L, o, G (ps) */
	int lo_given;
	int clamp_L;
	/* pinning */
	int have_pin;
	size_t npin;        /* sizes with a first exchange */
	ir_linfit pin;      /* extra round trip = pin_a + pin_b*size */
	double pin_a, pin_b;
	int clamp_pa, clamp_pb;
	int pin_noise;      /* neither term is positive by three standard errors: written as 0 */
	/* netcal */
	int netcal;
	ir_calib_term_fit term[IR_CT_N];
	size_t pin_ncold;   /* sizes with a first use and a cold exchange */
	size_t pin_nsig;    /* of those, sizes where first use is slower than cold beyond the noise */
	int pin_cold;       /* pinning is 0: first use is explained by cold caches */
	size_t x_sizes;     /* sizes above S (or held) with an exchange (formats/calibration.md, "The exchange") */
	size_t x_raised;    /* of those, sizes whose send_o the exchange raised */
	size_t x_state;     /* recv_o_cross left out: phases the machine was slowed in all through
	                     * (against --state-ref), so the exchange and the send's terms may come
	                     * from two states (formats/calibration.md, "Crossing messages") */
	size_t r_capped;    /* sizes whose late receive took longer than the warm one-way time, capped
	                     * at it for recv_o (formats/calibration.md, "The piecewise model") */
	/* a send after a gap: [0] after a receive, [1] after a send (formats/calibration.md,
	 * "A send after a gap"); have: the train phase had samples of an eager size */
	struct ir_calib_gapfit {
		int have;
		int vs_send_o;                   /* differences against send_o(s), not the train's send */
		size_t nsizes;                   /* sizes pooled */
		char sizes[128];                 /* their list, for the comment */
		size_t n[IR_NETCAL_TRAIN_GAPS];  /* samples per gap; 0: none */
		double gap[IR_NETCAL_TRAIN_GAPS], d[IR_NETCAL_TRAIN_GAPS], se[IR_NETCAL_TRAIN_GAPS]; /* ps */
		ir_gapfn fn;                     /* as written: points not above the noise are 0 */
	} after[2];
} ir_calib_fit;

/* ir_calib_fit_release frees the netcal terms (a zeroed fit is fine). */
int ir_calib_do_fit(const ir_calib_data *d, const ir_calib_opts *o, ir_calib_fit *f, ir_err *e);
void ir_calib_fit_release(ir_calib_fit *f);

/* The model's one-way time for point i (the fitted line plus the network). */
double ir_calib_model_ps(const ir_calib_data *d, const ir_calib_fit *f, size_t i);

/* Append the parameter file (values with units, comments with the fit quality
 * and the residual of every point). `net` may be NULL (not written). */
int ir_calib_write_params(const ir_calib_data *d, const ir_calib_fit *f, const ir_calib_net *net,
                          const char *version, ir_sb *out);

/* Append the table for standard error, each line prefixed with `prefix`. */
int ir_calib_write_table(const ir_calib_data *d, const ir_calib_fit *f, const char *prefix, ir_sb *out);

/* Append a gnuplot script that draws the points and the fitted lines into
 * `outfile` (.png: pngcairo; .svg: svg). */
int ir_calib_plot_script(const ir_calib_data *d, const ir_calib_fit *f, const char *outfile, ir_sb *out,
                         ir_err *e);

/* ---- the node model (lib/ir_calib_node.c; formats/calibration.md, "Shared cores") ---- */

#define IR_NODECAL_TAG 30010 /* samples/apps/nodecal: the pairs' ping-pong */

/* One run of samples/apps/nodecal with n ranks on k cores. */
typedef struct ir_calib_yrun {
	const char *dir;
	uint32_t nranks;
	size_t reps;        /* rank 0's round trips */
	double oneway_ps;   /* their median, halved */
	double quiet_ps;    /* the model's one-way time without wake-ups (ir_calib_yield_fit) */
	double wake_ps;     /* what waking the receiver costs, from the inversion */
	double count_ps;    /* the median wake_ps of the runs of its rank count: the fit's point */
	double x;           /* (n - k) / k: the turns a wake-up waits */
} ir_calib_yrun;

#define IR_NODECAL_LINE_MAX 4096  /* nodecal's output line, at most */
#define IR_NODECAL_RANKS_MAX 4096 /* ranks of one host in it, at most */
/* A run: rank 0's round trips with rank 1 (tag IR_NODECAL_TAG) of the traces in the
 * directory dir, or, when dir is a file, nodecal's own output line (ir_calib_yield_parse). */
int ir_calib_yield_read(ir_calib_yrun *run, const char *dir, ir_err *e);
/* nodecal's output "<ranks> <median one-way us> <round trips>" (one line, at most
 * IR_NODECAL_LINE_MAX bytes, ranks 2 to IR_NODECAL_RANKS_MAX); errors "name:line: ...".
 * run->dir is name. */
int ir_calib_yield_parse(ir_calib_yrun *run, const char *name, const char *text, size_t len, ir_err *e);
/* Invert the model of the pairs' ping-pong for every run (p: the quiet parameters, the
 * intra-node model's when set; bind: ranks bound to cores, cpu_bind = core, inverted by
 * simulating nodecal's schedule in the engine, else the closed form of any core) and fit
 * wake_ps = cpu_wake + cpu_yield * x (ps) by least squares over the rank counts, each count's wake-up the median of its runs, both at
 * least 0; with runs of one x only, cpu_wake is 0 and cpu_yield the slope through the
 * origin. */
int ir_calib_yield_fit(ir_calib_yrun *runs, size_t n, uint32_t cores, int bind, const ir_loggops *p,
                       double *yield_ps, double *wake_ps, ir_err *e);
/* The parameter file of the fit: comments per run and per rank count of several runs,
 * cores, cpu_wait = block, cpu_bind, cpu_yield, cpu_wake. */
int ir_calib_yield_write(const ir_calib_yrun *runs, size_t n, uint32_t cores, int bind, double yield_ps,
                         double wake_ps, const char *version, ir_sb *out);
/* Two calibrations of one network side by side (calib --compare; formats/calibration.md,
 * "Comparing two calibrations"): their piecewise functions evaluated at netcal's sizes from
 * 64 bytes to 64 MiB. A message term (send_o, recv_o, net_L and the one-way time net_L +
 * recv_o) differs by |a - b| over the mean of the two one-way times, a local term (copy,
 * reduce, coll_copy) over the mean of its own two values; a size agrees when every term both
 * files have differs by at most tol_pct. Writes a TSV (header, a row per size, '-' for a term
 * one of them lacks) and a last comment line with the count of sizes that agree and the
 * largest difference. Both must have the piecewise model (send_o, recv_o, net_L): -1 with e
 * naming `name_a` or `name_b` otherwise. */
int ir_calib_compare(const ir_loggops *a, const ir_loggops *b, const char *name_a, const char *name_b, double tol_pct,
                     ir_sb *out, ir_err *e);

/* The undisturbed pulse of a parameter file's "# machine state:" line (formats/calibration.md,
 * "Machine state"): its phases' smallest and largest, us. 1 when the text has one, else 0
 * (a file without pulses, or none judged). */
int ir_calib_state_of(const char *text, size_t len, double *lo_us, double *hi_us);

/* Appends to out what the two files' machine states say of a comparison (calib --compare):
 * each file's undisturbed pulse, and a warning when they are more than
 * IR_CALIB_STATE_SLOW_PCT % apart: the two saw the machine in different states. */
int ir_calib_compare_states(const char *text_a, size_t len_a, const char *text_b, size_t len_b, const char *name_a,
                            const char *name_b, ir_sb *out);

/* A parameter file written by ir_calib_write_params, as the intra-node model: its comments,
 * and send_o, recv_o, net_L and S renamed intra_send_o ... intra_S; other keys dropped. */
int ir_calib_intra_only(const char *text, size_t len, ir_sb *out);

#endif
