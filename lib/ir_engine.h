/*
 * ir_engine.h: the LogGOPS simulation engine of ibsim.
 *
 * The engine replays a GOAL schedule (ir_goal.h) under the LogGOPS model,
 * with LogGOPSim's semantics, to the picosecond (docs/loggops-semantics.md): per-rank
 * CPU and NIC availability times, a FIFO of posted receives (RQ) and one of
 * unexpected messages (UQ) per rank, eager and rendezvous protocols, and one
 * event queue ordered by time and a tie order that decides every tie (a
 * sequence number, or the tie key a partitioned run needs: enum ir_ties). The path of a message between NICs is the network's (ir_net.h); the
 * engine only hands it messages and receives arrival times.
 *
 * Memory (why it scales to millions of ranks): the engine runs on the schedule's
 * compact form (ir_csched, ir_goal.h: 8 bytes per op, 4 per edge, 24 per distinct
 * attribute), which ir_sched_load builds with IR_SCHED_COMPACT while it validates a
 * mapped binary and lets its pages go; for a schedule without one (made in memory)
 * the engine builds it. On top the engine adds 4 bytes per op (unmet predecessors, later
 * the op's rank while it is queued), 8 more per op only when some rank has
 * several CPUs (the earliest start its predecessors allow), 72 bytes
 * per rank (one CPU and NIC), 8 per posted receive, 72 per message in flight and 16 per
 * queued event (32 and 8 more per rank with IR_TIES_KEY); the node model (ir_node.h), only when in effect, adds 12 bytes per rank
 * and CPU and 8 per core with cpu_wait = block (8 more per rank with a wake-up cost), and each host's detours with noise. Ops
 * ready at time 0 are processed straight from the schedule
 * without entering the queue, so a schedule whose receives are all posted at
 * the start does not fill the queue with them.
 *
 * The engine never prints: tools observe it through hooks (event trace,
 * message log, progress) and read results and the deadlock report after
 * ir_engine_run().
 */
#ifndef IR_ENGINE_H
#define IR_ENGINE_H

#include <stdint.h>

#include "ir_err.h"
#include "ir_goal.h"
#include "ir_net.h"
#include "ir_node.h"
#include "ir_storage.h"
#include "ir_strbuf.h"

#define IR_NO_OP ((uint32_t)0xFFFFFFFFu)

/* What one processed event did (hook `event`, for -v and --timeline). */
enum ir_ev_kind {
	IR_EV_CALC = 0, /* calc ran on [t, end) */
	IR_EV_SEND,     /* send started at t; its CPU is busy until end; message `msg` created */
	IR_EV_RECV,     /* receive posted at t; matched an unexpected message if matched */
	IR_EV_MSG,      /* message `msg` charged at rank on [t, end); matched a posted receive if matched */
	IR_EV_PUTBACK,  /* item could not run at t; put back at end (op = IR_NO_OP for a message) */
	IR_EV_NET,      /* network callback at t */
	IR_EV_DATA,     /* IR_NET_RNDV_HANDSHAKE or the piecewise model's rendezvous protocol:
	                 * the data of message `msg` arrived at t; receive `op` on rank completes
	                 * at end (the receiver's copy: docs/loggops-semantics.md section 6.2
	                 * item 10; else end = t), send `match_op` on peer then or later */
	IR_EV_IO        /* a storage server's disk access: read or write op `op` of `size` bytes at
	                 * address `msg` ran on [t, end); tag 1: a write (0 bytes: a flush) */
};

typedef struct ir_ev {
	unsigned kind;     /* enum ir_ev_kind */
	uint64_t seq;      /* for people (-v): the item's number in the order items were first
	                    * queued; only when the event hook is set (in a partition: with the
	                    * process that numbered it, hook `number`) */
	uint64_t key_t;    /* IR_TIES_KEY: the time of the item being processed, and */
	uint64_t key_tc;   /* IR_TIES_KEY: the item's tie key (docs/loggops-semantics.md §2): when */
	uint32_t key_who;  /* it was made, by whom (0: the start, 1 + rank, nranks + 1: the network), */
	uint64_t key_n;    /* and that one's count of items made before it; IR_TIES_SEQ: its number */
	uint64_t t;        /* time processed */
	uint64_t end;      /* see the kinds */
	uint32_t rank;     /* where it happened */
	uint32_t op;       /* the op (CALC, SEND, RECV), the matched receive (MSG), or IR_NO_OP */
	unsigned cpu, nic;
	uint32_t peer;     /* SEND: destination; RECV: source or IR_ANY; MSG: source */
	uint32_t tag;
	uint64_t size;     /* bytes, or calc picoseconds */
	uint64_t msg;      /* message id (SEND, MSG, matched RECV); NET: the callback's cookie */
	char net[64];      /* NET: what the network does (its describe(), ir_net.h), "" if it has none */
	int rndv;          /* SEND, MSG: rendezvous protocol */
	int matched;       /* RECV, MSG: a match happened now */
	uint32_t match_op; /* RECV matched: the send op on `peer`; MSG matched: the receive (= op) */
} ir_ev;

/* A matched message (hook `message`, for --msglog). */
typedef struct ir_msg_rec {
	uint64_t id;
	uint32_t src, dst, tag;
	uint64_t size;
	uint64_t inject;   /* the send started (the network got the message) */
	uint64_t arrive;   /* the network delivered it at the destination */
	uint64_t matched;  /* the receive and the message met */
	uint32_t send_op, recv_op;
	int rndv;
} ir_msg_rec;

typedef struct ir_engine_hooks {
	void *ctx;
	int (*event)(void *ctx, const ir_ev *ev, ir_err *e);        /* NULL: not called */
	int (*message)(void *ctx, const ir_msg_rec *m, ir_err *e);  /* NULL: not called */
	/* About every million events and at the end: ops done so far, of total. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	/* A partition (ir_engine_part) numbering, for people, an item (what 0: its ir_ev.seq) or
	 * a message (1: its id), with the event hook: NULL, or called at the moment a whole run
	 * would take the next number, with the partition's own number, v >> IR_ENGINE_PROC_SHIFT
	 * being the process (the ops ready at the start, below the count of such ops, are
	 * numbered as in a whole run). Merging the processes' events in key order
	 * (ir_engine_cur_key) and numbering in the order of these calls gives a whole run's
	 * numbers (tools/ibsim-mpi). */
	void (*number)(void *ctx, int what, uint64_t v);
} ir_engine_hooks;

#define IR_ENGINE_PROC_SHIFT 40

/* When a message that reached its destination is handled (matched, its CPU overhead
 * charged). IDLE is LogGOPSim's rule: when the receiving CPU is free (a message waits
 * for the computation in progress). ARRIVAL: at once, as a library that progresses in
 * the background would; its overhead is added to the CPU's work (the CPU is free that
 * much later), and the receive completes when that overhead would end had it started at
 * arrival. */
enum ir_msg_progress { IR_PROGRESS_IDLE = 0, IR_PROGRESS_ARRIVAL = 1 };

/* A message handed to the process that simulates its destination (ir_engine_part): its
 * arrival time and key, and what the engine keeps of it. Plain data, the same layout in
 * every process of one run. */
typedef struct ir_engine_rmsg {
	uint64_t t;          /* arrival at the destination */
	uint64_t tc, n;      /* key: made at tc, by who, n-th */
	uint32_t who;
	uint32_t src, dst, tag, sop;
	uint8_t cpu, nic, rndv;
	uint8_t kind;        /* IR_RMSG_*: a message, or the completion of its send (network partitions) */
	uint64_t size, id, inject;
	uint64_t dseq;       /* with the event hook: its number for people (ir_ev.seq) */
} ir_engine_rmsg;

enum { IR_RMSG_DATA = 0, IR_RMSG_SFIN = 1 };

/* Simulate only the ranks r with owner[r] == me (lib/ir_par.c drives such engines, one per
 * process). A message to another process's rank goes to remote() instead of the queue; the
 * caller brings it there with ir_engine_put_remote(). Messages between processes must not
 * use rendezvous, nor hosts with shared cores span processes (the partitioner sees to it):
 * they would couple ranks with no latency between them. */
typedef struct ir_engine_part {
	const uint32_t *owner; /* [nranks] */
	uint32_t me;
	int (*remote)(void *ctx, const ir_engine_rmsg *m, ir_err *e);
	void *ctx;
} ir_engine_part;

/* How the queue orders items of one time (docs/loggops-semantics.md §2). SEQ, LogGOPSim's
 * rule: by a number given when an item is first queued, in the order of the events that
 * queued them; the fastest (16-byte queue entries). KEY: by (time made, maker, maker's
 * count), which every process of a partitioned run computes alike (ir_engine_part always
 * uses it); the two orders differ only where two items of one rank at one time were made
 * at one time by two ranks, and the results only if ranks interact at zero delay there. */
enum ir_ties { IR_TIES_SEQ = 0, IR_TIES_KEY = 1 };

typedef struct ir_engine_cfg {
	ir_loggops p;
	const ir_net_ops *net; /* NULL: ir_net_loggops */
	const void *net_arg;   /* the network's configuration, passed to its init() */
	ir_engine_hooks hooks;
	int progress;          /* enum ir_msg_progress */
	const ir_node_cfg *node; /* the node model (ir_node.h); NULL or inactive: none */
	const ir_storage_cfg *storage; /* the servers' disks and caches for read/write ops; NULL: defaults */
	const ir_engine_part *part; /* NULL: every rank */
	int ties;              /* enum ir_ties; a partition implies IR_TIES_KEY */
} ir_engine_cfg;

typedef struct ir_engine_stats {
	uint64_t events;    /* ops + messages processed (LogGOPSim's count) */
	uint64_t ops;       /* ops processed */
	uint64_t msgs;      /* messages processed at their destination */
	uint64_t putbacks;  /* items put back because a CPU or NIC was busy */
	uint64_t net_calls; /* network callbacks */
	uint64_t held;      /* rendezvous messages matched, data not yet arrived (handshake networks) */
	uint64_t ops_done;  /* of the schedule's nops */
	uint64_t oversize;  /* messages larger than the receive that matched them */
	uint32_t over_rank, over_recv; /* the first one: receiving rank and receive op */
	uint64_t over_msg_size, over_recv_size;
	uint32_t over_src;
	uint64_t over_t, over_tc, over_n; /* the key of the event that found the first one */
	uint32_t over_who;
	uint64_t end;       /* largest end time over ranks */
} ir_engine_stats;

/* Prepare a run of `s` (which must outlive the engine). Fails on bad
 * parameters or when the schedule exceeds the engine's limits (2^31 - 1 ops
 * in all). */
ir_engine *ir_engine_new(const ir_sched *s, const ir_engine_cfg *cfg, ir_err *e);
void ir_engine_free(ir_engine *en); /* NULL is a no-op */

/* Run to the end: 0 when every op completed and every message was received,
 * 1 when the schedule cannot finish (deadlock; see ir_engine_deadlock),
 * -1 on error (hook or network failure, time beyond 2^64 ps, out of memory). */
int ir_engine_run(ir_engine *en, ir_err *e);

/* ir_engine_run in steps, for a partitioned run: start (the ops ready at time 0), then
 * advance (process the items earlier than `until`, or all of them when `all`; 0 or -1),
 * as often as needed, with ir_engine_put_remote() in between, then finish (0 or 1 as
 * ir_engine_run, for this process's ranks). ir_engine_next_time: the earliest queued
 * item's time, UINT64_MAX when none. */
int ir_engine_start(ir_engine *en, ir_err *e);
int ir_engine_advance(ir_engine *en, uint64_t until, int all, ir_err *e);
int ir_engine_finish(ir_engine *en);
uint64_t ir_engine_next_time(ir_engine *en);
int ir_engine_put_remote(ir_engine *en, const ir_engine_rmsg *m, ir_err *e);

/* A network that itself carries messages between the processes of a partitioned run
 * (docs/design.md section 9, "The engine's side of it"), keyed engines only:
 * - ir_engine_new_key: the key of an item made now, by the current maker (its next count),
 *   for an item of the network's own that it sends to another process;
 * - ir_engine_call_at_key: queue a network callback with a key made elsewhere (such an item,
 *   arrived), so that it runs as the same item as in a whole run;
 * - ir_engine_export: the sender's process hands message `msg` (to a rank it does not
 *   simulate) to the network, which takes `rm` along; an eager message's record is freed, a
 *   rendezvous message's (IR_NET_RNDV_HANDSHAKE) kept until its send completes: the
 *   destination's process sends that completion back through remote() (kind IR_RMSG_SFIN),
 *   and put_remote() queues it against the kept record;
 * - ir_engine_adopt: the destination's process makes the record of `rm` (not queued) and
 *   gives its handle in *msg, for the network to deliver() when the message has arrived. */
typedef struct ir_engine_key {
	uint64_t tc, n;
	uint32_t who;
	uint64_t dseq;       /* with the event hook: the item's number for people (ir_ev.seq), taken
	                      * where it is made, as a whole run numbers it when it is queued */
} ir_engine_key;
int ir_engine_new_key(ir_engine *en, ir_engine_key *k, ir_err *e);
int ir_engine_call_at_key(ir_engine *en, uint64_t t, uint64_t cookie, const ir_engine_key *k, ir_err *e);
int ir_engine_export(ir_engine *en, uint32_t msg, ir_engine_rmsg *rm, ir_err *e);
int ir_engine_adopt(ir_engine *en, const ir_engine_rmsg *rm, uint32_t *msg, ir_err *e);

/* After a run. */
const ir_engine_stats *ir_engine_get_stats(const ir_engine *en);
/* The item being processed (IR_TIES_KEY; for a hook): its time and key (tc, who, n). */
void ir_engine_cur_key(const ir_engine *en, uint64_t key[4]);
uint64_t ir_engine_rank_end(const ir_engine *en, uint32_t rank);  /* largest cpu_free */
uint64_t ir_engine_rank_calc(const ir_engine *en, uint32_t rank); /* sum of calc durations */
uint64_t ir_engine_rank_msgs(const ir_engine *en, uint32_t rank); /* messages sent */
uint64_t ir_engine_rank_bytes(const ir_engine *en, uint32_t rank);/* bytes sent */

/* After a run that returned 1: append a report to `out`, one line per item,
 * no program name: a first line "deadlock: N of M ranks cannot finish ..."
 * then per stuck rank (at most `max_ranks` ranks; a last line counts the
 * rest) its posted receives that nothing matched, its rendezvous sends
 * waiting for a receive, its unexpected messages, and its first op that never
 * became ready with the predecessor it waits for. Ops are named by label when
 * the schedule has labels, by index otherwise. Returns -1 if out of memory. */
int ir_engine_deadlock(const ir_engine *en, ir_sb *out, uint32_t max_ranks);

#endif
