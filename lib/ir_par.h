/*
 * ir_par.h: the parallel LogGOPS engine: the schedule's ranks partitioned over
 * processes, each running ir_engine on its own ranks, kept in step by
 * conservative time windows (docs/design.md §9).
 *
 * The library knows no MPI: the caller (tools/ibsim-mpi) passes the two
 * collective operations the windows need (ir_par_comm). Every process loads the
 * same schedule and makes the same plan (ir_par_plan_make is deterministic), so
 * no plan is sent around.
 *
 * Why the results are the sequential engine's to the picosecond: the engine
 * orders ties by a key made from the event that made the item (ir_engine.c,
 * docs/loggops-semantics.md §2), which every process computes alike; the only
 * thing that crosses processes is an eager message, which arrives at least the
 * lookahead after the event that sent it; a window [T, T + lookahead) therefore
 * receives nothing it has not been given at its start, and each process pops
 * its items in the order the whole run pops them (docs/design.md §9 has the
 * argument). What would couple ranks with no latency, a rendezvous message
 * (its sender is released when the receive matches it) and a host whose
 * shared cores its ranks take turns on, is kept inside one process by the
 * partitioner.
 */
#ifndef IR_PAR_H
#define IR_PAR_H

#include <stddef.h>
#include <stdint.h>

#include "ir_engine.h"
#include "ir_err.h"
#include "ir_goal.h"
#include "ir_model.h"
#include "ir_strbuf.h"

enum ir_par_mode {
	IR_PAR_BLOCK = 0   /* consecutive ranks, balanced by ops (weights: by share) */
};

typedef struct ir_par_plan {
	uint32_t nprocs, nranks;
	uint32_t *owner;       /* [nranks] the process of each rank */
	uint64_t *ops;         /* [nprocs] ops of each process */
	uint32_t *ranks;       /* [nprocs] ranks of each process */
	uint64_t cut_msgs;     /* messages between ranks of different processes */
	uint64_t cut_bytes;
	uint64_t msgs, bytes;  /* all messages between different ranks */
	uint64_t lookahead;    /* ps: the earliest arrival after its send of a message in the cut;
	                        * UINT64_MAX when the cut is empty */
	uint32_t groups;       /* sets of ranks that must stay together (rendezvous, shared hosts) */
} ir_par_plan;

/* Partition the ranks of `s` (loaded with IR_SCHED_COMPACT, or given a compact form) over
 * `nprocs` processes. weights: NULL (equal shares) or [nprocs] positive shares of the ops;
 * host_ranks: when the node model shares cores between the ranks of a host, its ranks per
 * host (ranks host_ranks*h .. host_ranks*h + host_ranks - 1 stay together), else 0.
 * Fails (message in e) when some process would get no rank (more processes than sets of
 * ranks that can be separated) or when a message in the cut arrives 0 ps after its send
 * (no lookahead). */
int ir_par_plan_make(ir_par_plan *pl, const ir_sched *s, const ir_loggops *p, uint32_t nprocs,
                     enum ir_par_mode mode, const double *weights, uint32_t host_ranks, ir_err *e);
void ir_par_plan_release(ir_par_plan *pl);
/* The same for a network that carries messages between processes itself (--net ib,
 * docs/ib-model.md section 13): the ranks with one unit[r] (below nunits) stay together,
 * rendezvous partners need not (the network carries the handshake), and the lookahead is
 * the network's, set by the caller (UINT64_MAX here). */
int ir_par_plan_units(ir_par_plan *pl, const ir_sched *s, uint32_t nprocs, const double *weights, const uint32_t *unit,
                      uint32_t nunits, ir_err *e);

/* Parse "W1,W2,..." (positive numbers, one per process) into w[nprocs]; -1 with a message. */
int ir_par_weights(const char *spec, uint32_t nprocs, double *w, ir_err *e);

/* The collectives of one window, provided by the caller over all processes:
 * exchange: out[p] holds nout[p] messages for process p (out[me] is empty); on return *in
 * (the callee's buffer, valid until the next call) holds the *nin messages sent to this
 * process, in order of the sending process, each one's in the order it was sent.
 * min: *v becomes the minimum of every process's *v. */
typedef struct ir_par_comm {
	void *ctx;
	uint32_t nprocs, me;
	int (*exchange)(void *ctx, ir_engine_rmsg *const *out, const size_t *nout, const ir_engine_rmsg **in,
	                size_t *nin, ir_err *e);
	int (*min)(void *ctx, uint64_t *v, ir_err *e);
	/* Only for a network that carries its own items (ir_par_run.net_put set), instead of
	 * exchange: the engine's messages as exchange does and, in the same collectives, the
	 * network's bytes, xout[p] for process p; on return *xin (the callee's buffer) holds the
	 * *xnin bytes sent to this process, in order of the sending process. */
	int (*xexchange)(void *ctx, ir_engine_rmsg *const *out, const size_t *nout, const ir_sb *xout,
	                 const ir_engine_rmsg **in, size_t *nin, const unsigned char **xin, size_t *xnin, ir_err *e);
} ir_par_comm;

typedef struct ir_par_stats {
	uint64_t windows;    /* windows simulated */
	uint64_t sent;       /* messages this process sent to others */
} ir_par_stats;

/* The engine (made with ir_engine_cfg.part from ir_par_part) run to its end in windows:
 * 0, 1 (this process's ranks cannot finish), -1 on error. Every process must call it. */
typedef struct ir_par_run {
	const ir_par_plan *plan;
	const ir_par_comm *comm;
	ir_engine_rmsg **out; /* [nprocs] outboxes */
	size_t *nout, *capout;
	ir_par_stats st;
	ir_err *err;
	/* A network that carries items of its own between processes (--net ib): it hands each
	 * to ir_par_xsend(rr, ...); after each window they are exchanged and given to net_put
	 * (bytes, whole items) before the next. NULL: none. */
	int (*net_put)(void *ctx, const void *buf, size_t nbytes, ir_err *e);
	void *net_ctx;
	ir_sb *xout;          /* [nprocs] */
} ir_par_run;

/* An item of the network for process q (ctx: the ir_par_run). */
int ir_par_xsend(void *ctx, uint32_t q, const void *item, size_t size, ir_err *e);

/* The partition for ir_engine_cfg.part: rr must live as long as the engine. */
int ir_par_part(ir_par_run *rr, const ir_par_plan *pl, const ir_par_comm *c, ir_engine_part *part, ir_err *e);
int ir_par_go(ir_par_run *rr, ir_engine *en, ir_err *e);
void ir_par_run_release(ir_par_run *rr);

#endif
