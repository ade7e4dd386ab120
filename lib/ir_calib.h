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
 * Ownership: ir_calib_data is caller-owned (ir_calib_data_init/_release).
 * The library never prints: tables, parameter files and gnuplot scripts are
 * appended to strbufs for the tool to write.
 */
#ifndef IR_CALIB_H
#define IR_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "ir_err.h"
#include "ir_net.h"
#include "ir_stats.h"
#include "ir_strbuf.h"

/* One measured exchange. */
typedef struct ir_calib_sample {
	uint64_t size;     /* bytes */
	double oneway_ps;  /* half the round trip */
	double send_ps;    /* duration of the send call (traces), or -1 */
	int first;         /* first exchange of its size (first use of a buffer) */
} ir_calib_sample;

/* One message size, after aggregation. */
typedef struct ir_calib_point {
	uint64_t size;
	size_t reps;        /* reused exchanges (or TSV rows) */
	double real_ps;     /* median one-way time of the reused exchanges */
	double send_ps;     /* median send-call duration, or -1 */
	int has_first;
	double first_ps;    /* one-way time of the first exchange */
	double sim_ps[2];   /* network's own one-way time, o = O = 0: [0] eager, [1] rendezvous */
} ir_calib_point;

typedef struct ir_calib_data {
	ir_calib_sample *s; /* raw samples in input order */
	size_t ns, cap;
	ir_calib_point *p;  /* sorted by size, after ir_calib_aggregate() */
	size_t np;
	int have_sim;       /* sim_ps came from the input (TSV sim_us) */
	int from_traces;
	uint32_t nranks;    /* traces: ranks in the set */
	char source[256];   /* input name for messages and comments */
} ir_calib_data;

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

/* Medians per size; checks for degenerate input (no exchange, one size, a
 * size without repetitions). */
int ir_calib_aggregate(ir_calib_data *d, ir_err *e);

/* The network the network-only times are simulated on. */
typedef struct ir_calib_net {
	const char *name;       /* "loggops" or "ib" */
	const ir_net_ops *ops;
	const void *arg;
	int models_bytes;       /* G' = 0 (the network charges the bytes itself) */
	ir_loggops p;           /* L g G S from the parameters; o O are set to 0 for the simulation */
	void *own;              /* the network's configuration, owned (ir_calib_net_release) */
	char topo[256];         /* ib: the topology given, "" for the default */
} ir_calib_net;

/* Resolve a network name (and its --topo). With `need_engine` 0 (the network
 * times come from the input) only the name and models_bytes are set. The ib
 * network is the InfiniBand model of ir_net_ib.h with its defaults and the
 * topology `topo` (NULL: its default, one switch). */
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
} ir_calib_fit;

int ir_calib_do_fit(const ir_calib_data *d, const ir_calib_opts *o, ir_calib_fit *f, ir_err *e);

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

#endif
