/*
 * ir_engine.c: the LogGOPS engine (see ir_engine.h for the memory design,
 * ir_net.h for the network contract, and docs/loggops-semantics.md for the
 * semantics, rule by rule).
 *
 * The semantics are LogGOPSim's, rule for rule, so both give the same end
 * times on the same schedule:
 *   - one queue of items (ready ops, messages at their destination, network
 *     callbacks) ordered by time and, among items of one time, by a sequence
 *     number given when the item is first queued and kept when it is put back
 *     later, as LogGOPSim's; or (enum ir_ties, IR_TIES_KEY) by the tie key (the
 *     time the item was made, the rank whose event made it, that rank's count
 *     of items made so far; docs/loggops-semantics.md §2), in which no global
 *     counter enters, so a process that simulates only some ranks (lib/ir_par.c)
 *     gives their items the keys the whole run gives them;
 *   - an item whose CPU or NIC is busy at its time is put back at the time the
 *     resource frees (ir_heap_retime_top: one sift, no pop and push);
 *   - after each event, the ops it made ready are queued rank by rank in
 *     increasing rank order, per rank sends, then receives, then calcs, each
 *     in program order, at their CPU's free time (sends: the later of CPU and
 *     NIC), never earlier than what their predecessors allow;
 *   - receives match the first posted receive / unexpected message in FIFO
 *     order whose source and tag fit (IR_ANY matches anything).
 * Where LogGOPSim is wrong (unstable ordering of ready ops, ops on one CPU
 * starting before predecessors on another finished, zero-byte messages
 * charged -G, the rendezvous decision taken on the receive's size) the engine
 * does the right thing; docs/loggops-semantics.md section 6 lists the
 * differences and the extensions.
 *
 * Handles: a queue item's 32-bit ref is a global op id (ir_cs_gid of the
 * rank's base and the op's index, below 2^31) or IR_MSGBIT | slot of the message pool (messages and
 * network callbacks). A queued op's state word holds IR_READY | rank, so the
 * rank of a popped op is one load away; before the op is ready the same word
 * counts its unmet predecessors; while a receive waits in its rank's RQ the
 * word links the RQ (IR_READY | index of the next posted receive, RQ_END at
 * the tail), so posted receives cost no memory of their own.
 */
#include "ir_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_heap.h"
#include "ir_hmap.h"
#include "ir_spill.h"

/* This file is compiled twice: as itself, with the queue ordered by sequence
 * number, and by lib/ir_engine_key.c with IR_ENGINE_KEYED 1, ordered by the tie
 * key. The order is thereby a constant in each copy of the event loop (a branch
 * on it per queue operation cost the 256-rank ring 18 % of its events per second,
 * docs/design.md §9). The functions that queue or pop items exist in both copies
 * (EFN names them: ir_engine_x here, ir_engine_key_x there) and the ones here
 * hand an engine made with IR_TIES_KEY to the other copy; everything else (making
 * and freeing the engine, results, the deadlock report) is compiled here only. */
#ifndef IR_ENGINE_KEYED
#define IR_ENGINE_KEYED 0
#endif
#if IR_ENGINE_KEYED
#define EFN(x) ir_engine_key_##x
#define KEYED(en) 1
#else
#define EFN(x) ir_engine_##x
#define KEYED(en) 0
#define TO_KEYED(en, call) do { if ((en)->keyed) return call; } while (0)
int ir_engine_key_deliver(ir_engine *en, uint32_t mi, uint64_t t, ir_err *e);
int ir_engine_key_call_at(ir_engine *en, uint64_t t, uint64_t cookie, ir_err *e);
int ir_engine_key_complete(ir_engine *en, uint32_t mi, uint64_t t, ir_err *e);
int ir_engine_key_complete_at(ir_engine *en, uint32_t mi, uint64_t t, uint64_t t_send, ir_err *e);
int ir_engine_key_start(ir_engine *en, ir_err *e);
uint64_t ir_engine_key_next_time(ir_engine *en);
int ir_engine_key_advance(ir_engine *en, uint64_t until, int all, ir_err *e);
int ir_engine_key_put_remote(ir_engine *en, const ir_engine_rmsg *rm, ir_err *e);
#endif

#define IR_READY 0x80000000u
#define IR_MSGBIT 0x80000000u
#define NIL 0xFFFFFFFFu
#define RQ_END 0x7FFFFFFFu /* no next posted receive (op indices are below it) */
#define CHUNK_BITS 16
#define CHUNK ((uint32_t)1 << CHUNK_BITS)
#define PROGRESS_EVERY ((uint64_t)1 << 20)

enum { WALK_REQ = 1, WALK_IREQ = 2, WALK_ALL = 3 };
/* Message kinds: travelling or unexpected; a network callback; a rendezvous
 * message matched and waiting for its data (IR_NET_RNDV_HANDSHAKE); its data
 * arrived, completion queued; with async progress, an eager message matched
 * whose receiver's charge waits until an op needs the receive (K_PEND, in its
 * rank's pending list), and the event that charges a rank's needed ones
 * (K_CHARGE, rank in `dst`; docs/loggops-semantics.md section 6.2 item 3). */
/* Kinds from K_WAKE on are queued items that are no message to receive (step_special). */
enum { K_DATA = 0, K_PEND = 1, K_HELD = 2,
       K_SWAIT = 3, /* exported rendezvous message: its send waits for its completion from another process */
       K_WAKE = 4, K_FIN = 5, K_SFIN = 6, K_CHARGE = 7 };

/* A message (or a network callback, kind K_WAKE, cookie in `size`). `next`
 * comes first: it links the UQ while the message waits there, and the pool's
 * free list while the slot is free. */
typedef struct msg {
	uint32_t next;
	uint32_t src, dst, tag;
	uint32_t sop; /* the send op's index on src */
	uint8_t cpu, nic, kind, rndv;
	uint32_t rop; /* K_HELD, K_FIN: the receive it matched */
	uint8_t self; /* a copy to oneself (ir_model.h): no network, no NIC */
	uint8_t intra; /* between two ranks of one host, intra-node model: no network, no NIC */
	uint8_t lazy;  /* async progress: unexpected, its receiver's charge (in mt) not paid yet */
	uint8_t ran;   /* with cpu_yield: it reached its receiver while that rank ran (not waiting
	                * in MPI), whose progress takes it in without a wake-up */
	uint8_t xc;    /* recv_o_cross: 0 its arrival not looked at yet, 1 looked at, 2 it arrived
	                * while its receiver's CPU was in a send's overhead (formats/params.md,
	                * "Crossing messages") */
	uint64_t size;
	uint64_t id;
	uint64_t inject, arrive; /* K_HELD from its completion on: when its send completes; K_FIN of
	                          * the piecewise model's protocol (pw_hs): the receiver's calc time
	                          * (calc_run) when its data's travel was last resumed, UINT64_MAX
	                          * once the data is there */
	uint64_t mt;  /* K_HELD, K_FIN: when it matched; K_PEND and lazy: the receiver's charge;
	               * else: when the receiver's charge ends */
} msg;

/* Chunked pool of fixed-size records: no reallocation of live records (a
 * doubling array would need 1.5x its size at the moment it grows), free list
 * through the first 4 bytes. */
typedef struct pool {
	unsigned char **chunk;
	uint32_t nchunks;
	size_t capchunks;
	uint32_t fresh;     /* slots handed out from the chunks so far */
	uint32_t free_head;
	uint32_t esz;
	uint32_t limit;     /* slots must stay below this */
} pool;

#if !IR_ENGINE_KEYED
static void pool_init(pool *p, uint32_t esz, uint32_t limit)
{
	memset(p, 0, sizeof *p);
	p->esz = esz;
	p->free_head = NIL;
	p->limit = limit;
}

static void pool_release(pool *p)
{
	for (uint32_t i = 0; i < p->nchunks; i++)
		free(p->chunk[i]);
	free(p->chunk);
	pool_init(p, p->esz, p->limit);
}
#endif

static inline void *pool_at(const pool *p, uint32_t i)
{
	return p->chunk[i >> CHUNK_BITS] + (size_t)(i & (CHUNK - 1)) * p->esz;
}

static uint32_t pool_get(pool *p)
{
	uint32_t i = p->free_head;
	if (i != NIL) {
		memcpy(&p->free_head, pool_at(p, i), 4);
		return i;
	}
	if (p->fresh >= p->limit)
		return NIL;
	if ((p->fresh >> CHUNK_BITS) == p->nchunks) {
		if (p->nchunks == p->capchunks && IR_GROW(p->chunk, (size_t)p->nchunks + 1, p->capchunks))
			return NIL;
		p->chunk[p->nchunks] = malloc((size_t)CHUNK * p->esz);
		if (!p->chunk[p->nchunks])
			return NIL;
		p->nchunks++;
	}
	return p->fresh++;
}

static inline void pool_put(pool *p, uint32_t i)
{
	memcpy(pool_at(p, i), &p->free_head, 4);
	p->free_head = i;
}

/* A list of op indices of one rank made ready by one walk. */
typedef struct rlist {
	uint32_t *v;
	uint32_t n;
	uint32_t rank;
	size_t cap;
} rlist;

struct ir_engine {
	const ir_sched *s;
	ir_loggops p;
	int arrival;        /* cfg.progress == IR_PROGRESS_ARRIVAL */
	const ir_net_ops *net;
	const void *net_arg;
	void *net_state;
	ir_engine_hooks hk;
	uint32_t nranks, C, N;   /* CPUs and NICs per rank (the largest over ranks) */
	const ir_csched *cs;     /* the schedule's compact form (ir_goal.h): s->compact, or own */
	ir_csched own;           /* built here when the schedule came without one */
	const ir_csop *cop;       /* cs->op */
	const uint32_t *cedge;   /* cs->edge */
	const uint32_t *base;    /* cs->base: [nranks] global id of each rank's op 0 */
	uint32_t *state;         /* [nops] unmet predecessors, or IR_READY | rank */
	uint64_t *earliest;      /* [nops] when C > 1: earliest start allowed by predecessors */
	uint64_t *cpu_free;      /* [nranks * C] */
	uint64_t *send_free;     /* [nranks * N] */
	uint64_t *recv_free;     /* [nranks * N] */
	uint32_t *rq_head, *rq_tail; /* [nranks] op indices of the RQ's ends, or NIL */
	uint32_t *uq_head, *uq_tail; /* [nranks] message slots, or NIL */
	uint32_t *done;          /* [nranks] ops done */
	uint64_t *calc, *nmsgs, *nbytes; /* [nranks] */
	uint64_t *held_end; /* [nranks], piecewise model only: latest completion of a rendezvous send */
	/* [nranks] each: the piecewise model's rendezvous protocol (pw_hs): the time the rank's
	 * calcs have taken so far and the end of its latest, so that the wall time it spent
	 * computing in an interval is known (calc_run) */
	uint64_t *ccum, *cend;
	/* [nranks], send_o_after_send/_recv only (formats/params.md, "A send after a gap"): the
	 * end of the overhead of the rank's last protocol step (a network send or a message
	 * handled); whether it has sent on the network, and whether, since its last such send
	 * began, a network message reached it or one of its network messages was taken in */
	struct step_state {
		uint64_t end;
		uint8_t sent, arrived;
	} *step;
	/* Async progress: receives charged when needed (docs/loggops-semantics.md 6.2 item 3). */
	uint32_t *pend;          /* [nops] receives among the unmet predecessors (required, not irequired) */
	uint32_t *pend_head, *pend_tail; /* [nranks] K_PEND messages in match order, or NIL */
	uint64_t *charge_at;     /* [nranks] time of the last K_CHARGE queued, or UINT64_MAX */
	/* Storage (read and write ops, ir_storage.h): only when the schedule has some; maxcls is
	 * the last op class queue_list orders (IR_OP_CALC without them, as before). */
	ir_storage *stor;
	uint64_t *io_end;   /* [nranks] latest end of a read or write */
	unsigned maxcls;
	int other_model;    /* the parameters set a piecewise function or copy (else the LogGOPS rule alone) */
	pool mp;
	/* The queue (docs/loggops-semantics.md §2): ties by a sequence number in h, or by the
	 * tie key in kh (keyed: IR_TIES_KEY). */
	int keyed;
	ir_heap h;
	ir_kheap kh;
	uint32_t seq;            /* not keyed: the next sequence number */
	int in_init;             /* not keyed: processing the ops ready at the start */
	uint64_t *made;          /* keyed: [nranks + 2 (+ the network's makers)] items made so far by: the
	                          * start (0), rank r (r + 1), the network's callbacks (nranks + 1, or
	                          * nranks + 2 + the maker the network names): the last part of a key */
	uint32_t who;            /* keyed: who makes the items queued now (an index of made) */
	int net_makers;          /* keyed: the network names the makers of its callbacks (made[nranks + 2 ..]) */
	ir_hmap xsend;           /* exported rendezvous messages: id -> their kept record (uint32_t) */
	ir_kheap_ent cur;        /* the item being processed: its time and key (not keyed: seq alone) */
	uint64_t *dseq;          /* keyed, with the event hook only: [nops] each queued op's ir_ev.seq */
	uint64_t *mdseq;         /* and [message slot] each queued message's (grown as slots are used) */
	size_t mdcap;
	uint64_t dnext, dcur, dinit; /* the next such number; the current item's; the next at the start.
	                          * A partition's own numbers carry its process: me << IR_ENGINE_PROC_SHIFT
	                          * (the ops ready at the start are numbered alike in every process) */
	uint32_t ninit;          /* ops ready at the start */
	/* Partition (ir_engine_part): only the ranks with owner[r] == me are simulated here. */
	const uint32_t *owner;
	uint32_t me;
	int (*remote)(void *ctx, const ir_engine_rmsg *m, ir_err *e);
	void *remote_ctx;
	uint64_t owned_ops;
	uint64_t now;
	uint64_t next_msg_id;
	int ovf;                 /* a time went beyond 2^64 ps */
	int running;
	int ran;
	uint64_t next_progress;
	rlist ra, rb, rm;        /* ready lists of the current event, and a merge buffer */
	/* The node model (docs/loggops-semantics.md section 8); node == 0: none of it, and
	 * nothing below is allocated or looked at. */
	int node;
	ir_node_cfg nc;
	int intra;               /* the intra-node model prices messages within a host (pi) */
	ir_loggops pi;
	uint64_t *hwake;         /* block with cpu_yield: [nhosts * K] what waking a waiting rank
	                          * of each core costs (wake_cost) */
	uint64_t *want;          /* with hwake: [nranks] until when the rank has a send put back
	                          * for a core (it is runnable then, not waiting in MPI) */
	uint32_t K;              /* cores per host when some host is shared (else 0) */
	int spin, block;         /* some host has more ranks than cores, and the rule */
	uint32_t nhosts;
	uint32_t *host, *pos;    /* [nranks] each rank's host, and its index among the host's ranks */
	uint32_t *hsize;         /* [nhosts] ranks on each host */
	uint64_t *core_free;     /* block: [nhosts * K] */
	uint64_t *rem;           /* block: [nranks * C] work left of the calc in progress */
	uint32_t *inprog;        /* block: [nranks * C] that calc (| IR_READY before its first slice), or NIL */
	ir_detour **hd;          /* noise: [nhosts] each host's detours (hshared when no section names it) */
	size_t *hn;
	ir_detour *hshared;
	size_t nshared;
	uint32_t *tmp;           /* scratch for the start: receives and calcs of a rank */
	size_t tmpcap;
	ir_engine_stats st;
	/* [nranks * C] pairs, recv_o_cross only (formats/params.md, "Crossing messages"): the
	 * start and the end of the overhead of the latest network send on that CPU */
	uint64_t *xs;
};

static inline int owned(const ir_engine *en, uint32_t r) { return !en->owner || en->owner[r] == en->me; }

/* ---- arithmetic with overflow detection: times saturate and set ovf ---- */

static inline uint64_t tadd(ir_engine *en, uint64_t a, uint64_t b)
{
	uint64_t r;
	if (__builtin_add_overflow(a, b, &r)) {
		en->ovf = 1;
		return UINT64_MAX;
	}
	return r;
}

static inline uint64_t tmul(ir_engine *en, uint64_t a, uint64_t b)
{
	uint64_t r;
	if (__builtin_mul_overflow(a, b, &r)) {
		en->ovf = 1;
		return UINT64_MAX;
	}
	return r;
}

static inline uint64_t umax(uint64_t a, uint64_t b) { return a > b ? a : b; }

static inline msg *M(const ir_engine *en, uint32_t i) { return pool_at(&en->mp, i); }
/* The posted receive after receive i of rank r in its RQ, or NIL. */
static inline uint32_t rq_next(const ir_engine *en, uint32_t r, uint32_t i)
{
	uint32_t x = en->state[ir_cs_gid(en->base[r], i)] & ~IR_READY;
	return x == RQ_END ? NIL : x;
}
static inline void rq_set_next(ir_engine *en, uint32_t r, uint32_t i, uint32_t next)
{
	en->state[ir_cs_gid(en->base[r], i)] = IR_READY | (next == NIL ? RQ_END : next);
}
/* Take posted receive q (after prev, or first when prev is NIL) out of rank r's RQ; its state
 * word becomes that of a ready op again. */
static inline void rq_unlink(ir_engine *en, uint32_t r, uint32_t prev, uint32_t q)
{
	uint32_t nx = rq_next(en, r, q);
	if (prev == NIL)
		en->rq_head[r] = nx;
	else
		rq_set_next(en, r, prev, nx);
	if (en->rq_tail[r] == q)
		en->rq_tail[r] = prev;
	en->state[ir_cs_gid(en->base[r], q)] = IR_READY | r;
}
/* Append message mi (at m) to the queue of messages with ends *head and *tail (a rank's
 * unexpected or pending messages, linked through `next`). */
static inline void mq_append(ir_engine *en, uint32_t *head, uint32_t *tail, uint32_t mi, msg *m)
{
	m->next = NIL;
	if (*tail == NIL)
		*head = mi;
	else
		M(en, *tail)->next = mi;
	*tail = mi;
}
/* Append message mi (at m) to rank r's unexpected queue. */
static inline void uq_append(ir_engine *en, uint32_t r, uint32_t mi, msg *m)
{
	mq_append(en, &en->uq_head[r], &en->uq_tail[r], mi, m);
}

/* Op i of rank r, decoded. */
static inline void opd(const ir_engine *en, uint32_t r, uint32_t i, ir_dop *o)
{
	ir_csched_op(en->cs, r, ir_cs_gid(en->base[r], i), o);
}

/* ---- construction ---- */

static void *xcalloc(size_t n, size_t sz, ir_err *e, const char *what)
{
	void *p;
	if (n == 0)
		n = 1;
	p = calloc(n, sz);
	if (!p)
		ir_errf(e, "out of memory for %s (%zu x %zu bytes)", what, n, sz);
	return p;
}

static int node_init(ir_engine *en, ir_err *e);

#if !IR_ENGINE_KEYED
ir_engine *ir_engine_new(const ir_sched *s, const ir_engine_cfg *cfg, ir_err *e)
{
	ir_engine *en;
	uint64_t total = 0;
	uint32_t C = 1, N = 1;

	en = calloc(1, sizeof *en);
	if (!en) {
		ir_errf(e, "out of memory");
		return NULL;
	}
	en->s = s;
	en->p = cfg->p;
	en->arrival = cfg->progress == IR_PROGRESS_ARRIVAL;
	en->net = cfg->net ? cfg->net : &ir_net_loggops;
	en->net_arg = cfg->net_arg;
	en->hk = cfg->hooks;
	en->nranks = s->nranks;
	en->keyed = cfg->ties == IR_TIES_KEY || cfg->part;
	ir_hmap_init(&en->xsend, sizeof(uint32_t), 16, 0);
	if (cfg->part) {
		en->owner = cfg->part->owner;
		en->me = cfg->part->me;
		en->remote = cfg->part->remote;
		en->remote_ctx = cfg->part->ctx;
	}
	pool_init(&en->mp, sizeof(msg), IR_MSGBIT);
	ir_heap_init(&en->h);
	ir_kheap_init(&en->kh);

	for (uint32_t r = 0; r < s->nranks; r++) {
		const ir_rank *rk = &s->rank[r];
		total += rk->nops;
		if (rk->ncpus > C)
			C = rk->ncpus;
		if (rk->nnics > N)
			N = rk->nnics;
	}
	if (total >= IR_READY) {
		ir_errf(e, "schedule too large: %llu ops (the engine handles at most %u)",
		        (unsigned long long)total, IR_READY - 1);
		goto fail;
	}
	if (C > 256 || N > 256) {
		ir_errf(e, "schedule uses %u CPUs and %u NICs per rank (at most 256 each)", C, N);
		goto fail;
	}
	en->C = C;
	en->N = N;
	if (s->compact) {
		en->cs = s->compact;
	} else {
		/* a schedule made in memory (calib, tests): its compact form, here */
		uint64_t ne = 0;
		for (uint32_t r = 0; r < s->nranks; r++)
			ne += s->rank[r].nedges;
		if (ir_csched_init(&en->own, s->nranks, total, ne, e))
			goto fail;
		for (uint32_t r = 0; r < s->nranks; r++)
			if (ir_csched_add(&en->own, r, &s->rank[r], e))
				goto fail;
		if (ir_csched_finish(&en->own, e))
			goto fail;
		en->cs = &en->own;
	}
	if (en->cs->nranks != s->nranks || en->cs->nops != total) {
		ir_errf(e, "internal error: the compact schedule has %u ops, the schedule %llu", en->cs->nops,
		        (unsigned long long)total);
		goto fail;
	}
	en->cop = en->cs->op;
	en->cedge = en->cs->edge;
	en->base = en->cs->base;
	/* read and write ops (storage): an attribute of theirs, if any, says so (calcs kept
	 * inline in the compact form are calcs) */
	en->maxcls = IR_OP_CALC;
	for (uint32_t k = 0; k < en->cs->nattr; k++)
		if (ir_op_is_io(en->cs->attr[k].type)) {
			en->maxcls = IR_OP_WRITE;
			break;
		}
	if (en->maxcls != IR_OP_CALC) {
		ir_storage_cfg dc;
		if (!cfg->storage)
			ir_storage_defaults(&dc);
		if (!(en->stor = ir_storage_new(cfg->storage ? cfg->storage : &dc, s->nranks, e)) ||
		    !(en->io_end = xcalloc(s->nranks, 8, e, "rank counters")))
			goto fail;
	}
	/* the arrays per op may live in files (ibsim --spill, ir_spill.h) */
	if (!(en->state = ir_spill_calloc((size_t)total, sizeof *en->state, "op states", e)) ||
	    !(en->cpu_free = xcalloc((size_t)s->nranks * C, sizeof *en->cpu_free, e, "CPU times")) ||
	    !(en->send_free = xcalloc((size_t)s->nranks * N, sizeof *en->send_free, e, "NIC times")) ||
	    !(en->recv_free = xcalloc((size_t)s->nranks * N, sizeof *en->recv_free, e, "NIC times")) ||
	    !(en->rq_head = xcalloc(s->nranks, 4, e, "receive queues")) ||
	    !(en->rq_tail = xcalloc(s->nranks, 4, e, "receive queues")) ||
	    !(en->uq_head = xcalloc(s->nranks, 4, e, "message queues")) ||
	    !(en->uq_tail = xcalloc(s->nranks, 4, e, "message queues")) ||
	    !(en->done = xcalloc(s->nranks, 4, e, "rank counters")) ||
	    (en->keyed && !(en->made = xcalloc((size_t)s->nranks + 2, 8, e, "rank counters"))) ||
	    !(en->calc = xcalloc(s->nranks, 8, e, "rank counters")) ||
	    !(en->nmsgs = xcalloc(s->nranks, 8, e, "rank counters")) ||
	    !(en->nbytes = xcalloc(s->nranks, 8, e, "rank counters")))
		goto fail;
	/* several CPUs, or async progress (a ready send starts without waiting for the CPU):
	 * an op's time comes from its predecessors, not from its CPU */
	if ((C > 1 || cfg->progress == IR_PROGRESS_ARRIVAL || en->stor) &&
	    !(en->earliest = ir_spill_calloc((size_t)total, 8, "op start times", e)))
		goto fail;
	if (en->arrival) {
		if (!(en->pend = ir_spill_calloc((size_t)total, 4, "pending receives", e)) ||
		    !(en->pend_head = xcalloc(s->nranks, 4, e, "pending receives")) ||
		    !(en->pend_tail = xcalloc(s->nranks, 4, e, "pending receives")) ||
		    !(en->charge_at = xcalloc(s->nranks, 8, e, "pending receives")))
			goto fail;
		for (uint32_t r = 0; r < s->nranks; r++) {
			en->pend_head[r] = en->pend_tail[r] = NIL;
			en->charge_at[r] = UINT64_MAX;
		}
	}
	if ((ir_model_pw(&en->p) || ir_model_intra(&en->p)) && !(en->held_end = xcalloc(s->nranks, 8, e, "rank counters")))
		goto fail;
	if (ir_model_pw(&en->p) && ir_model_gap(&en->p) && !(en->step = xcalloc(s->nranks, sizeof *en->step, e, "rank counters")))
		goto fail;
	if (ir_model_pw(&en->p) && en->p.recv_o_cross.n && !en->arrival &&
	    !(en->xs = xcalloc((size_t)s->nranks * C * 2, 8, e, "CPU times")))
		goto fail;
	en->other_model = ir_model_pw(&en->p) || en->p.copy.n || ir_model_intra(&en->p);
	/* the spread of a call's cost draws with the node model's seed (formats/params.md, "The
	 * spread of a call's cost") */
	if (en->p.send_spread.n || en->p.recv_spread.n) {
		if (cfg->node)
			en->nc = *cfg->node;
		else
			ir_node_defaults(&en->nc);
	}
	/* The intra-node model: the hosts are the node model's (ranks_per_host or the placement) */
	if (ir_model_intra(&en->p)) {
		en->intra = 1;
		ir_loggops_intra(&en->p, &en->pi);
		if (cfg->node)
			en->nc = *cfg->node;
		else
			ir_node_defaults(&en->nc);
	}
	/* calc time for the piecewise model's rendezvous protocol (pw_hs), only where it applies */
	if ((ir_model_rndv_hs(&en->p) || (en->intra && ir_model_rndv_hs(&en->pi))) &&
	    (!(en->ccum = xcalloc(s->nranks, 8, e, "rank counters")) || !(en->cend = xcalloc(s->nranks, 8, e, "rank counters"))))
		goto fail;
	/* The node model, when some rule of it may change the run; the hosts are known when
	 * the run starts (node_init). */
	if (cfg->node && (ir_node_active(cfg->node, s->nranks) ||
	                  (cfg->node->cores && !cfg->node->ranks_per_host_set && en->net->host_of))) {
		en->node = 1;
		en->nc = *cfg->node;
	}
	memset(en->rq_head, 0xff, (size_t)s->nranks * 4);
	memset(en->rq_tail, 0xff, (size_t)s->nranks * 4);
	memset(en->uq_head, 0xff, (size_t)s->nranks * 4);
	memset(en->uq_tail, 0xff, (size_t)s->nranks * 4);

	/* Count predecessors: one pass over the edges (global ids of dependents, checked
	 * against their rank when the compact form was built). */
	for (uint32_t k = 0, ne = en->cs->nedges; k < ne; k++) {
		uint32_t d = en->cedge[k] & IR_EDGE_INDEX;
		if (d >= total) {
			ir_errf(e, "dependency %u names op %u of %llu", k, d, (unsigned long long)total);
			goto fail;
		}
		if (++en->state[d] >= IR_READY) {
			ir_errf(e, "op %u has too many predecessors", d);
			goto fail;
		}
	}
	for (uint64_t g = 0; g < total; g++)
		en->ninit += en->state[g] == 0;
	for (uint32_t r = 0; r < s->nranks; r++)
		if (owned(en, r))
			en->owned_ops += s->rank[r].nops;
	if (en->keyed && en->hk.event && !(en->dseq = ir_spill_calloc((size_t)total, 8, "op numbers", e)))
		goto fail;
	/* async progress: each op's count of receives it requires (pend) */
	for (uint32_t g = 0; en->pend && g < (uint32_t)total; g++)
		if (ir_csched_type(en->cs, g) == IR_OP_RECV)
			for (uint32_t k = en->cop[g].s; k < en->cop[g + 1].s; k++)
				if (!(en->cedge[k] & IR_EDGE_IREQ))
					en->pend[en->cedge[k] & IR_EDGE_INDEX]++;
	return en;
fail:
	ir_engine_free(en);
	return NULL;
}

void ir_engine_free(ir_engine *en)
{
	if (!en)
		return;
	if (en->net && en->net_state)
		en->net->free(en->net_state);
	ir_csched_release(&en->own);
	ir_spill_free(en->state);
	ir_spill_free(en->earliest);
	ir_spill_free(en->pend);
	free(en->pend_head);
	free(en->pend_tail);
	free(en->charge_at);
	ir_storage_free(en->stor);
	free(en->io_end);
	free(en->cpu_free);
	free(en->send_free);
	free(en->recv_free);
	free(en->rq_head);
	free(en->rq_tail);
	free(en->uq_head);
	free(en->uq_tail);
	free(en->done);
	free(en->made);
	ir_hmap_release(&en->xsend);
	ir_spill_free(en->dseq);
	free(en->mdseq);
	free(en->calc);
	free(en->held_end);
	free(en->ccum);
	free(en->cend);
	free(en->step);
	free(en->xs);
	free(en->nmsgs);
	free(en->nbytes);
	free(en->core_free);
	free(en->host);
	free(en->pos);
	free(en->hwake);
	free(en->want);
	free(en->hsize);
	free(en->rem);
	free(en->inprog);
	if (en->hd)
		for (uint32_t h = 0; h < en->nhosts; h++)
			if (en->hd[h] != en->hshared)
				free(en->hd[h]);
	free(en->hd);
	free(en->hn);
	free(en->hshared);
	pool_release(&en->mp);
	ir_heap_release(&en->h);
	ir_kheap_release(&en->kh);
	free(en->ra.v);
	free(en->rb.v);
	free(en->rm.v);
	free(en->tmp);
	free(en);
}
#endif

/* ---- queueing ---- */


/* The queue's entry points: one predictable branch on the order of ties. */
static inline size_t hn(const ir_engine *en) { return KEYED(en) ? en->kh.n : en->h.n; }
static inline uint64_t hlast(const ir_engine *en) { return KEYED(en) ? en->kh.last : en->h.last; }
static inline uint64_t hmin(const ir_engine *en) { return KEYED(en) ? ir_kheap_min(&en->kh) : ir_heap_min(&en->h); }

static inline void hpop(ir_engine *en)
{
	if (KEYED(en))
		ir_kheap_pop(&en->kh);
	else
		ir_heap_pop(&en->h);
}

static inline int hretime(ir_engine *en, uint64_t t, ir_err *e)
{
	if (KEYED(en) ? ir_kheap_retime_top(&en->kh, t) : ir_heap_retime_top(&en->h, t))
		return ir_errf(e, "out of memory for the event queue (%zu items)", hn(en));
	return 0;
}

/* The key of the item being processed, for the hooks. */
static inline void ev_key(const ir_engine *en, ir_ev *ev)
{
	if (KEYED(en)) {
		ev->seq = en->dcur;
		ev->key_t = en->cur.t;
		ev->key_tc = en->cur.tc;
		ev->key_who = en->cur.who;
	} else {
		ev->seq = en->cur.seq;
	}
	ev->key_n = en->cur.seq;
}

/* The start of an event record for the hook: zeroed, kind, key, time, rank and op; no
 * matching op unless the caller sets one. */
static void ev_start(const ir_engine *en, ir_ev *ev, unsigned kind, uint64_t t, uint32_t rank, uint32_t op)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = kind;
	ev_key(en, ev);
	ev->t = t;
	ev->rank = rank;
	ev->op = op;
	ev->match_op = IR_NO_OP;
}

static int hpush_key(ir_engine *en, uint64_t t, const ir_kheap_ent *k, uint32_t ref, ir_err *e)
{
	int rc;
	if (KEYED(en)) {
		ir_kheap_ent x = *k;
		x.t = t;
		x.ref = ref;
		rc = ir_kheap_push_ent(&en->kh, &x);
	} else {
		rc = ir_heap_push(&en->h, t, (uint32_t)k->seq, ref);
	}
	if (rc == -2)
		return ir_errf(e, "internal error: item queued at %llu ps, before the current time %llu ps",
		               (unsigned long long)t, (unsigned long long)hlast(en));
	if (rc)
		return ir_errf(e, "out of memory for the event queue (%zu items)", hn(en));
	return 0;
}

/* A new item's key: keyed, (now, who makes it, that one's count); else the next
 * sequence number. */
static inline int new_key(ir_engine *en, ir_kheap_ent *k, ir_err *e)
{
	if (KEYED(en)) {
		k->tc = en->now;
		k->who = en->who;
		k->seq = en->made[en->who]++;
		return 0;
	}
	if (en->seq == UINT32_MAX) {
		/* Out of 32-bit numbers: compact them. Ops still waiting in the start
		 * list hold 0..ninit-1 and run first, so queued items start above. */
		uint32_t b = en->in_init ? en->ninit : 0;
		if ((uint64_t)b + en->h.n >= UINT32_MAX)
			return ir_errf(e, "event queue overflow: %zu items queued", en->h.n);
		en->seq = ir_heap_renumber(&en->h, b);
		if (!en->seq)
			return ir_errf(e, "out of memory renumbering the event queue");
	}
	k->seq = en->seq++;
	return 0;
}

/* With the event hook under the key: the next item's number for people, taken now (as a
 * whole run takes it when it queues the item), and told to the hook. */
static uint64_t take_dseq(ir_engine *en)
{
	if (en->hk.number)
		en->hk.number(en->hk.ctx, 0, en->dnext);
	return en->dnext++;
}

/* The number for people of the queued message or callback in slot mi. */
static int set_mdseq(ir_engine *en, size_t mi, uint64_t v, ir_err *e)
{
	if (mi >= en->mdcap && IR_GROW(en->mdseq, mi + 1, en->mdcap))
		return ir_errf(e, "out of memory for message numbers");
	en->mdseq[mi] = v;
	return 0;
}

static int qpush(ir_engine *en, uint64_t t, uint32_t ref, ir_err *e)
{
	ir_kheap_ent k = {0};
	if (new_key(en, &k, e))
		return -1;
	if (KEYED(en) && en->dseq) {
		if (!(ref & IR_MSGBIT))
			en->dseq[ref] = take_dseq(en);
		else if (set_mdseq(en, ref & ~IR_MSGBIT, take_dseq(en), e))
			return -1;
	}
	return hpush_key(en, t, &k, ref, e);
}

static int rl_add(rlist *l, uint32_t v, ir_err *e)
{
	if (l->n == l->cap) {
		if (l->n == UINT32_MAX)
			return ir_errf(e, "too many ops made ready at once");
		if (IR_GROW(l->v, (size_t)l->n + 1, l->cap))
			return ir_errf(e, "out of memory for ready ops");
	}
	l->v[l->n++] = v;
	return 0;
}

static int need_charge(ir_engine *en, uint32_t r, uint32_t g, ir_err *e);

/* Op i of rank r started (mask WALK_IREQ: at ts) and/or completed (WALK_REQ: at
 * td): release the dependents waiting for that; those with no unmet
 * predecessor left go on `l` in program order (edges are sorted). */
static int walk(ir_engine *en, uint32_t r, uint32_t i, unsigned mask, uint64_t ts, uint64_t td, rlist *l,
                ir_err *e)
{
	uint32_t base = en->base[r], g0 = ir_cs_gid(base, i), b = en->cop[g0].s, end = en->cop[g0 + 1].s;
	int rdone = 0;
	if (b == end)
		return 0;
	l->rank = r;
	if (en->pend && (mask & WALK_REQ))
		rdone = ir_csched_type(en->cs, g0) == IR_OP_RECV;
	for (uint32_t k = b; k < end; k++) {
		uint32_t ed = en->cedge[k];
		uint32_t g = ed & IR_EDGE_INDEX;
		unsigned kind = (ed & IR_EDGE_IREQ) ? WALK_IREQ : WALK_REQ;
		if (!(mask & kind))
			continue;
		if (en->earliest) {
			uint64_t tt = kind == WALK_IREQ ? ts : td;
			if (en->earliest[g] < tt)
				en->earliest[g] = tt;
		}
		if (rdone && kind == WALK_REQ)
			en->pend[g]--;
		if (--en->state[g] == 0) {
			if (rl_add(l, ir_cs_index(base, g), e))
				return -1;
		} else if (en->pend && en->pend[g] == en->state[g] && en->pend_head[r] != NIL &&
		           need_charge(en, r, g, e)) {
			return -1;
		}
	}
	return 0;
}

/* Queue the ops of list l (rank l->rank): sends, receives, calcs, each in program order. */
static int queue_list(ir_engine *en, const rlist *l, ir_err *e)
{
	uint32_t r = l->rank, base = en->base[r];
	for (unsigned cls = IR_OP_SEND; cls <= en->maxcls; cls++) {
		for (uint32_t j = 0; j < l->n; j++) {
			uint32_t i = l->v[j], g = ir_cs_gid(base, i);
			ir_dop o;
			uint64_t t;
			ir_csched_op(en->cs, r, g, &o);
			if (o.type != cls && l->n > 1)
				continue;
			t = o.type == IR_OP_SEND && en->arrival ? 0 : en->cpu_free[(size_t)r * en->C + o.cpu];
			if (o.type == IR_OP_SEND)
				t = umax(t, en->send_free[(size_t)r * en->N + o.nic]);
			if (en->earliest)
				t = umax(t, en->earliest[g]);
			if (en->stor && t < hlast(en))
				t = hlast(en);
			en->state[g] = IR_READY | r;
			if (qpush(en, t, g, e))
				return -1;
		}
		if (l->n == 1)
			break; /* the common case: nothing else to order */
	}
	return 0;
}

/* After an event: queue what it made ready, lower rank first; one rank's two
 * lists are merged by op index first. */
static int flush_ready(ir_engine *en, ir_err *e)
{
	rlist *a = &en->ra, *b = &en->rb;
	int rc = 0;
	if (!b->n) {
		if (a->n)
			rc = queue_list(en, a, e);
	} else if (!a->n) {
		rc = queue_list(en, b, e);
	} else if (a->rank != b->rank) {
		rlist *x = a->rank < b->rank ? a : b, *y = x == a ? b : a;
		rc = queue_list(en, x, e);
		if (!rc)
			rc = queue_list(en, y, e);
	} else {
		rlist *m = &en->rm;
		uint32_t i = 0, j = 0;
		m->n = 0;
		m->rank = a->rank;
		while (!rc && (i < a->n || j < b->n)) {
			if (j >= b->n || (i < a->n && a->v[i] < b->v[j]))
				rc = rl_add(m, a->v[i++], e);
			else
				rc = rl_add(m, b->v[j++], e);
		}
		if (!rc)
			rc = queue_list(en, m, e);
	}
	a->n = 0;
	b->n = 0;
	return rc;
}

/* ---- matching ---- */

static inline int recv_fits(uint32_t rsrc, uint32_t rtag, const msg *m)
{
	return (rsrc == IR_ANY || rsrc == m->src) && (rtag == IR_ANY || rtag == m->tag);
}

static inline uint64_t s1_of(uint64_t size) { return size ? size - 1 : 0; }

/* Receive `ri` on rank d met message `mi` at time t: count an oversize
 * message, complete a rendezvous send (its CPU and NIC are held until t),
 * log it, free the message. */
/* The parameters that price message m: the intra-node model's or the network's. */
static inline const ir_loggops *msg_params(const ir_engine *en, const msg *m)
{
	return m->intra ? &en->pi : &en->p;
}

/* Rendezvous message m follows the piecewise model's protocol, which the engine runs
 * itself (docs/loggops-semantics.md section 6.2 item 10): its request costs the receiver
 * nothing, its data leaves at the match and arrives rndv_wait(s) later, when the receiver
 * pays rndv_copy(s). Messages within a host, and network messages on a network that
 * neither carries the handshake nor models the bytes (loggops, whose time of a message is
 * net_L alone). */
static inline int pw_hs(const ir_engine *en, const msg *m)
{
	return m->rndv && !m->self && ir_model_rndv_hs(msg_params(en, m)) &&
	       (m->intra || !(en->net->flags & (IR_NET_RNDV_HANDSHAKE | IR_NET_MODELS_BYTES)));
}

/* The wall time rank r has computed (its calcs) up to time t, as far as its calcs so far
 * tell: all of them less what of the latest lies beyond t. */
static inline uint64_t calc_run(const ir_engine *en, uint32_t r, uint64_t t)
{
	return en->ccum[r] - (en->cend[r] > t ? en->cend[r] - t : 0);
}

/* Rendezvous message m waits for its data after the match: the network's handshake
 * (IR_NET_RNDV_HANDSHAKE) or the piecewise model's. */
static inline int handshake(const ir_engine *en, const msg *m)
{
	return m->rndv && !m->self && ((!m->intra && (en->net->flags & IR_NET_RNDV_HANDSHAKE)) || pw_hs(en, m));
}

static int log_msg(ir_engine *en, const msg *m, uint32_t ri, uint64_t t, ir_err *e)
{
	ir_msg_rec rec;
	rec.id = m->id;
	rec.src = m->src;
	rec.dst = m->dst;
	rec.tag = m->tag;
	rec.size = m->size;
	rec.inject = m->inject;
	rec.arrive = m->arrive;
	rec.matched = t;
	rec.send_op = m->sop;
	rec.recv_op = ri;
	rec.rndv = m->rndv;
	return en->hk.message(en->hk.ctx, &rec, e);
}

/* The sender of rendezvous message m is released at t: its CPU and NIC are
 * held until t, and the send completes (for ops on other CPUs: when both the
 * release and its own overhead are over). The piecewise model completes the
 * send when the receiver's charge for the data is over (m->mt), as a real
 * rendezvous send returns when the data has been taken, not when the receive
 * begins; its CPU stays free for arriving messages meanwhile, as an MPI
 * library progresses them while it waits (docs/loggops-semantics.md section 6.2). */
static uint64_t node_wake(ir_engine *en, uint32_t r, uint64_t t);
static int node_take(ir_engine *en, uint32_t r, uint64_t t, uint64_t w, uint64_t *out);
static int put_back(ir_engine *en, uint64_t t, uint32_t ref, uint32_t r, uint32_t op, uint64_t nt,
                    int in_heap, ir_err *e);

/* block with cpu_yield: what waking waiting rank r costs (docs/loggops-semantics.md
 * section 8, "Waking a waiting rank"): its core's share under cpu_bind = core, else the
 * host's. */
static inline uint64_t wake_cost(const ir_engine *en, uint32_t r)
{
	return en->hwake[(size_t)en->host[r] * en->K + (en->nc.bind ? en->pos[r] % en->K : 0)];
}

/* block with cpu_yield: rank r waits in MPI at t, to be woken: its CPU is idle (cf, the
 * CPU's free time, before t) and no send of it waits for a core (docs/loggops-semantics.md
 * section 8, "Waking a waiting rank") */
static inline int waiting(const ir_engine *en, uint32_t r, uint64_t cf, uint64_t t)
{
	return cf < t && en->want[r] < t && wake_cost(en, r);
}

static int release_sender(ir_engine *en, const msg *m, uint64_t t, ir_err *e)
{
	uint32_t sr = m->src;
	uint64_t *cf = &en->cpu_free[(size_t)sr * en->C + m->cpu];
	uint64_t *sf = &en->send_free[(size_t)sr * en->N + m->nic];
	const ir_loggops *P = msg_params(en, m);
	uint64_t so = ir_model_send_cpu(P, m->size, m->self), cpu_end, t_done = t;
	if (!m->self && P->send_spread.n) /* the draw of its send (formats/params.md, "The spread of a call's cost") */
		so = ir_spread_apply(&P->send_spread, so, ir_node_draw(&en->nc, sr, m->sop, IR_DRAW_SEND));
	cpu_end = tadd(en, m->inject, so);
	/* a sender waiting in MPI on a shared host is woken by the release, a protocol step of
	 * its own (docs/loggops-semantics.md section 8, "Waking a waiting rank") */
	if (en->hwake && waiting(en, sr, *cf, t))
		t_done = node_wake(en, sr, t);
	if (*cf < t_done)
		*cf = t_done;
	if (*sf < t)
		*sf = t;
	if (en->held_end && ir_model_pw(msg_params(en, m)) && !handshake(en, m)) {
		if (m->mt > t_done)
			t_done = m->mt;
		if (en->held_end[sr] < t_done)
			en->held_end[sr] = t_done;
	}
	en->done[sr]++;
	en->st.ops_done++;
	return walk(en, sr, m->sop, WALK_REQ, 0, umax(t_done, cpu_end), &en->rb, e);
}

/* Count an oversize message (receive ri of rank d met message m). */
static void note_size(ir_engine *en, uint32_t d, uint32_t ri, const msg *m)
{
	ir_dop rop;
	opd(en, d, ri, &rop);
	if (m->size > rop.size) {
		if (!en->st.oversize++) {
			en->st.over_rank = d;
			en->st.over_recv = ri;
			en->st.over_msg_size = m->size;
			en->st.over_recv_size = rop.size;
			en->st.over_src = m->src;
			en->st.over_t = en->cur.t;
			en->st.over_tc = en->cur.tc;
			en->st.over_who = en->cur.who;
			en->st.over_n = en->cur.seq;
		}
	}
}

static int matched(ir_engine *en, uint32_t d, uint32_t ri, uint32_t mi, uint64_t t, ir_err *e)
{
	msg *m = M(en, mi);
	note_size(en, d, ri, m);
	if (handshake(en, m)) {
		/* The receive and the send complete when the data has arrived
		 * (ir_engine_complete); the network moves it from now on. */
		m->kind = K_HELD;
		m->rop = ri;
		m->mt = t;
		en->st.held++;
		if (pw_hs(en, m)) {
			/* the data leaves now and is at the receiver rndv_wait(s) later (finish_held) */
			uint64_t ta = tadd(en, t, ir_model_rndv_wait(msg_params(en, m), m->size));
			m->kind = K_FIN;
			m->arrive = calc_run(en, d, t);
			return qpush(en, ta, IR_MSGBIT | mi, e);
		}
		if (!en->net->matched)
			return ir_errf(e, "network %s wants rendezvous matches but has no matched()", en->net->name);
		return en->net->matched(en->net_state, mi, t, e);
	}
	if (m->rndv) {
		if (release_sender(en, m, t, e))
			return -1;
	}
	if (en->hk.message && log_msg(en, m, ri, t, e))
		return -1;
	pool_put(&en->mp, mi);
	return 0;
}

/* Report message m handled by receive op (or IR_NO_OP) of rank d from t to end. */
static int msg_event(ir_engine *en, unsigned kind, uint64_t t, uint64_t end, uint32_t d,
                     uint32_t op, uint32_t match_op, const msg *m, ir_err *e)
{
	ir_ev ev;
	ev_start(en, &ev, kind, t, d, op);
	ev.end = end;
	ev.match_op = match_op;
	ev.cpu = m->cpu;
	ev.nic = m->nic;
	ev.peer = m->src;
	ev.tag = m->tag;
	ev.size = m->size;
	ev.msg = m->id;
	ev.rndv = m->rndv;
	ev.matched = op != IR_NO_OP;
	return en->hk.event(en->hk.ctx, &ev, e);
}

/* The data of a held rendezvous message arrived at t: the receive completes now, the
 * send now too or, when the network said so (ir_engine_complete_at), later (K_SFIN). */
static int finish_held(ir_engine *en, uint64_t t, uint32_t mi, ir_err *e)
{
	msg *m = M(en, mi);
	uint32_t d = m->dst, ri = m->rop;
	uint64_t *cf = &en->cpu_free[(size_t)d * en->C + m->cpu], ts = m->arrive, end = t;
	if (pw_hs(en, m)) {
		/* the piecewise model's protocol: the receiver's CPU takes the data in, rndv_copy(s),
		 * when it is free, as it takes in a message (step_msg); the send completes when
		 * the copy is over (docs/loggops-semantics.md section 6.2 item 10) */
		uint64_t c = ir_model_rndv_copy(msg_params(en, m), m->size), busy, run;
		/* the data moves only while the receiver's library runs: the time the receiver
		 * computed since the match (or the last resumption; in m->arrive) is added to its
		 * travel; the passes before the data is there run at its arrival, when every calc
		 * begun before has been processed, so calc_run(t) is exact; UINT64_MAX: there */
		if (m->arrive != UINT64_MAX) {
			run = en->arrival ? m->arrive : calc_run(en, d, t);
			if (run > m->arrive) {
				uint64_t late = tadd(en, t, run - m->arrive);
				m->arrive = run;
				return put_back(en, t, IR_MSGBIT | mi, d, IR_NO_OP, late, 1, e);
			}
			m->arrive = UINT64_MAX;
		}
		if (!en->arrival && *cf > t)
			return put_back(en, t, IR_MSGBIT | mi, d, IR_NO_OP, *cf, 1, e);
		if (en->hwake && waiting(en, d, *cf, t))
			c = tadd(en, c, wake_cost(en, d));
		if (!en->node || en->arrival)
			end = tadd(en, t, c);
		else if (node_take(en, d, t, c, &end))
			return put_back(en, t, IR_MSGBIT | mi, d, IR_NO_OP, end, 1, e);
		busy = *cf > t ? *cf - t : 0;
		*cf = en->arrival ? tadd(en, end, busy) : end;
		if (en->step) /* the rank's last protocol step: this message's data */
			en->step[d].end = umax(en->step[d].end, *cf);
		ts = end; /* the send completes when the data has been taken */
	}
	hpop(en);
	en->st.held--;
	/* The receiver waits in its receive until the data is there, as the
	 * sender of a rendezvous message waits for the match. */
	if (*cf < t)
		*cf = t;
	en->done[d]++;
	en->st.ops_done++;
	if (walk(en, d, ri, WALK_REQ, t, end, &en->ra, e) ||
	    (ts <= t && owned(en, m->src) && release_sender(en, m, t, e)))
		return -1;
	if (en->hk.event && msg_event(en, IR_EV_DATA, t, end, d, ri, m->sop, m, e))
		return -1;
	/* the message log reports when the data arrived, not its request-to-send */
	m->arrive = t;
	if (en->hk.message && log_msg(en, m, ri, m->mt, e))
		return -1;
	if (KEYED(en) && !owned(en, m->src)) {
		/* another process simulates the sender, which keeps its record (ir_engine_export) */
		ir_engine_rmsg rm;
		ir_kheap_ent k = {0};
		if (new_key(en, &k, e))
			return -1;
		memset(&rm, 0, sizeof rm);
		rm.kind = IR_RMSG_SFIN;
		rm.t = ts;
		rm.tc = k.tc;
		rm.n = k.seq;
		rm.who = k.who;
		rm.src = m->src;
		rm.dst = m->dst;
		rm.id = m->id;
		if (en->dseq) /* numbered for people where a whole run queues it: here */
			rm.dseq = take_dseq(en);
		pool_put(&en->mp, mi);
		return en->remote(en->remote_ctx, &rm, e);
	}
	if (ts > t) {
		m->kind = K_SFIN;
		return qpush(en, ts, IR_MSGBIT | mi, e);
	}
	pool_put(&en->mp, mi);
	return 0;
}


/* ---- async progress: receives charged when an op needs them ----
 *
 * With async progress an eager message is matched when it arrives (or when its
 * receive is posted, if it came first), but the receiver's charge (recv_o, or
 * o + max(s1*O, s1*G)) waits until an op that requires the receive has every other
 * predecessor done: the moment the rank waits for it, as an MPI library takes in a
 * message in the call that completes its request. The charge then runs on the CPU
 * and the receive completes at its end. This is the order trace2goal --sync assumes
 * (docs/trace2goal.md section 9: a call's post calc follows the receive's charge at
 * max(entry, arrival)). A receive nothing requires is charged at once. Rendezvous
 * messages are charged as before. docs/loggops-semantics.md section 6.2 item 3. */

static int has_req_succ(const ir_engine *en, uint32_t r, uint32_t i)
{
	uint32_t g = ir_cs_gid(en->base[r], i), b = en->cop[g].s, end = en->cop[g + 1].s;
	for (uint32_t k = b; k < end; k++)
		if (!(en->cedge[k] & IR_EDGE_IREQ))
			return 1;
	return 0;
}

/* Op g of rank r waits only for receives (it is reached: the rank waits in the call
 * that completes them) and some of its rank's receives are matched and not charged:
 * queue a charge at the time its other predecessors are done (once per rank and time). */
static int need_charge(ir_engine *en, uint32_t r, uint32_t g, ir_err *e)
{
	uint64_t t = umax(en->now, en->earliest[g]);
	uint32_t mi;
	if (en->charge_at[r] == t)
		return 0;
	mi = pool_get(&en->mp);
	if (mi == NIL)
		return ir_errf(e, "out of memory for messages in flight");
	M(en, mi)->kind = K_CHARGE;
	M(en, mi)->dst = r;
	M(en, mi)->next = NIL;
	en->charge_at[r] = t;
	return qpush(en, t, IR_MSGBIT | mi, e);
}

/* Receive ri of rank d matched eager message mi at t; its charge (m->mt) waits. */
static int make_pending(ir_engine *en, uint32_t d, uint32_t ri, uint32_t mi, uint64_t t, ir_err *e)
{
	msg *m = M(en, mi);
	uint32_t g0 = ir_cs_gid(en->base[d], ri), b = en->cop[g0].s, end = en->cop[g0 + 1].s;
	note_size(en, d, ri, m);
	if (en->hk.message && log_msg(en, m, ri, t, e))
		return -1;
	m->kind = K_PEND;
	m->rop = ri;
	mq_append(en, &en->pend_head[d], &en->pend_tail[d], mi, m);
	for (uint32_t k = b; k < end; k++) {
		uint32_t ed = en->cedge[k], g = ed & IR_EDGE_INDEX;
		if (ed & IR_EDGE_IREQ)
			continue;
		if (en->pend[g] == en->state[g] && need_charge(en, d, g, e))
			return -1;
	}
	return 0;
}

/* A pending receive is needed when an op requiring it waits for nothing but receives. */
static int pend_needed(const ir_engine *en, uint32_t r, uint32_t ri)
{
	uint32_t g0 = ir_cs_gid(en->base[r], ri), b = en->cop[g0].s, end = en->cop[g0 + 1].s;
	for (uint32_t k = b; k < end; k++) {
		uint32_t ed = en->cedge[k], g = ed & IR_EDGE_INDEX;
		if (!(ed & IR_EDGE_IREQ) && en->pend[g] == en->state[g])
			return 1;
	}
	return 0;
}

/* K_CHARGE at t: charge rank r's needed pending receives, one after the other, in
 * the order they matched. */
static int charge(ir_engine *en, uint64_t t, uint32_t ci, ir_err *e)
{
	uint32_t r = M(en, ci)->dst, mi, prev = NIL, nx;
	uint64_t c = t;
	hpop(en);
	pool_put(&en->mp, ci);
	if (en->charge_at[r] == t)
		en->charge_at[r] = UINT64_MAX;
	/* which are needed is decided before any completes */
	for (mi = en->pend_head[r]; mi != NIL; mi = M(en, mi)->next)
		M(en, mi)->kind = pend_needed(en, r, M(en, mi)->rop) ? K_CHARGE : K_PEND;
	for (mi = en->pend_head[r]; mi != NIL; mi = nx) {
		msg *m = M(en, mi);
		uint32_t ri = m->rop;
		uint64_t *cf, start = c;
		nx = m->next;
		if (m->kind != K_CHARGE) {
			prev = mi;
			continue;
		}
		if (prev == NIL)
			en->pend_head[r] = nx;
		else
			M(en, prev)->next = nx;
		if (en->pend_tail[r] == mi)
			en->pend_tail[r] = prev;
		/* as for any message under async progress: done after its charge, which is
		 * added to whatever work the CPU still has */
		cf = &en->cpu_free[(size_t)r * en->C + m->cpu];
		c = tadd(en, start, m->mt);
		*cf = *cf > start ? tadd(en, *cf, m->mt) : c;
		en->done[r]++;
		en->st.ops_done++;
		if (en->hk.event && msg_event(en, IR_EV_MSG, start, c, r, ri, ri, m, e))
			return -1;
		if (walk(en, r, ri, WALK_REQ, start, c, &en->ra, e))
			return -1;
		pool_put(&en->mp, mi);
	}
	return 0;
}

/* ---- the node model (docs/loggops-semantics.md section 8) ---- */

/* Hosts: the network's placement when it has one and ranks_per_host is not given, else
 * blocks of ranks_per_host ranks; a rank's position is its index among its host's ranks
 * in rank order. Called when the run starts (the network is placed by then); leaves the
 * node model off when, after all, nothing of it changes the run. */
static int hosts_init(ir_engine *en, ir_err *e)
{
	const ir_node_cfg *nc = &en->nc;
	uint32_t n = en->nranks;
	int placed = en->net->host_of && !nc->ranks_per_host_set;
	if (!(en->host = xcalloc(n, 4, e, "rank hosts")) || !(en->pos = xcalloc(n, 4, e, "rank hosts")))
		return -1;
	en->nhosts = 0;
	for (uint32_t r = 0; r < n; r++) {
		en->host[r] = placed ? en->net->host_of(en->net_state, r) : r / nc->ranks_per_host;
		if (en->host[r] >= en->nhosts)
			en->nhosts = en->host[r] + 1;
	}
	if (!(en->hsize = xcalloc(en->nhosts, 4, e, "host sizes")))
		return -1;
	for (uint32_t r = 0; r < n; r++)
		en->pos[r] = en->hsize[en->host[r]]++;
	return 0;
}

static int node_init(ir_engine *en, ir_err *e)
{
	const ir_node_cfg *nc = &en->nc;
	uint32_t n = en->nranks, C = en->C, most = 0;
	if (!en->host && hosts_init(en, e))
		return -1;
	for (uint32_t h = 0; h < en->nhosts; h++)
		if (en->hsize[h] > most)
			most = en->hsize[h];
	if (nc->cores && most > nc->cores) {
		en->K = nc->cores;
		en->spin = nc->wait == IR_WAIT_SPIN;
		en->block = !en->spin;
	}
	if (!en->K && nc->cpu_scale == 1.0 && !(nc->perturb > 0) && !(nc->nz && nc->nz->nd)) {
		en->node = 0; /* placed one rank per core after all: the plain rules */
		return 0;
	}
	if (en->block && en->arrival)
		return ir_errf(e, "cpu_wait = block with shared cores cannot be combined with async_progress");
	if (en->block) {
		if (!(en->core_free = xcalloc((size_t)en->nhosts * en->K, 8, e, "core times")) ||
		    !(en->rem = xcalloc((size_t)n * C, 8, e, "calc slices")) ||
		    !(en->inprog = xcalloc((size_t)n * C, 4, e, "calc slices")))
			return -1;
		memset(en->inprog, 0xff, (size_t)n * C * 4);
		if (nc->yield || nc->wake) {
			/* a waking rank waits for the host's other waiting ranks of its core to
			 * yield in turn: (ranks - cores) / cores of them, and pays cpu_wake
			 * (docs/loggops-semantics.md section 8, "Waking a waiting rank") */
			if (!(en->hwake = xcalloc((size_t)en->nhosts * en->K, 8, e, "host wake-ups")) ||
			    !(en->want = xcalloc(n, 8, e, "ranks waiting for a core")))
				return -1;
			for (uint32_t h = 0; h < en->nhosts; h++)
				for (uint32_t j = 0; j < en->K && en->hsize[h] > en->K; j++) {
					/* cpu_bind = core: the other ranks bound to core j */
					uint32_t on = en->hsize[h] / en->K + (j < en->hsize[h] % en->K);
					double turns = nc->bind ? (double)(on - 1) :
					               (double)(en->hsize[h] - en->K) / (double)en->K;
					double v = (double)nc->wake + (double)nc->yield * turns + 0.5;
					en->hwake[(size_t)h * en->K + j] = v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
				}
		}
	}
	if (nc->nz && nc->nz->nd) {
		const ir_noise *nz = nc->nz;
		int shared_done = 0;
		int64_t *own, run = 0; /* how many sections of their own name hosts: a difference array */
		if (!(en->hd = xcalloc(en->nhosts, sizeof *en->hd, e, "host detours")) ||
		    !(en->hn = xcalloc(en->nhosts, sizeof *en->hn, e, "host detours")) ||
		    !(own = xcalloc((size_t)en->nhosts + 1, sizeof *own, e, "host detours")))
			return -1;
		for (size_t k = 0; k < nz->nsec; k++) {
			const ir_noise_sec *sc = &nz->sec[k];
			if ((sc->lo == 0 && sc->hi == UINT64_MAX) || sc->lo >= en->nhosts)
				continue;
			own[sc->lo]++;
			own[sc->hi < en->nhosts ? sc->hi + 1 : en->nhosts]--;
		}
		for (uint32_t h = 0; h < en->nhosts; h++) {
			run += own[h];
			if (run) {
				if (ir_noise_host(nz, h, &en->hd[h], &en->hn[h], e)) {
					free(own);
					return -1;
				}
				continue;
			}
			/* named by no section of its own: the list every such host shares */
			if (!shared_done && ir_noise_host(nz, h, &en->hshared, &en->nshared, e)) {
				free(own);
				return -1;
			}
			shared_done = 1;
			en->hd[h] = en->hshared;
			en->hn[h] = en->nshared;
		}
		free(own);
	}
	return 0;
}

static inline uint32_t host_size(const ir_engine *en, uint32_t h) { return en->hsize[h]; }

/* The host's cores are shared (more ranks than cores there). */
static inline int host_shared(const ir_engine *en, uint32_t h)
{
	return en->K && host_size(en, h) > en->K;
}

/* The first detour of the list that ends after t (n when none). */
static size_t dt_find(const ir_detour *d, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d[mid].end > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* spin: position p of a host of nh ranks and k < nh cores runs in slot s. */
static inline int in_slot(uint32_t p, uint32_t nh, uint32_t k, uint64_t s)
{
	uint64_t b = (s % nh) * (uint64_t)k % nh;
	return (p + nh - b) % nh < k;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t x = a % b;
		a = b;
		b = x;
	}
	return a;
}

/* The first time from t on at which rank r may use a core: not in a detour of its host
 * and, when sp (spin on a shared host), within one of its slots. */
static uint64_t node_ready(ir_engine *en, uint32_t r, uint64_t t, int sp)
{
	uint32_t h = en->host[r], nh = host_size(en, h), p = en->pos[r];
	const ir_detour *d = en->hd ? en->hd[h] : NULL;
	size_t n = en->hd ? en->hn[h] : 0;
	for (;;) {
		uint64_t t0 = t;
		if (n) {
			size_t i = dt_find(d, n, t);
			if (i < n && d[i].start <= t)
				t = d[i].end;
		}
		if (sp) {
			uint64_t s = t / en->nc.quantum, s0 = s;
			while (!in_slot(p, nh, en->K, s))
				s++;
			if (s != s0)
				t = tmul(en, s, en->nc.quantum);
		}
		if (t == t0 || en->ovf)
			return t;
	}
}

/* When w of work of rank r that may start at t ends: it runs only while node_ready allows. */
static uint64_t node_adv(ir_engine *en, uint32_t r, uint64_t t, uint64_t w, int sp)
{
	uint32_t h = en->host[r], nh = host_size(en, h);
	const ir_detour *d = en->hd ? en->hd[h] : NULL;
	size_t n = en->hd ? en->hn[h] : 0;
	uint64_t Q = en->nc.quantum;
	if (!w)
		return t;
	for (;;) {
		uint64_t lim = UINT64_MAX;
		t = node_ready(en, r, t, sp);
		if (en->ovf)
			return UINT64_MAX;
		if (sp)
			lim = tmul(en, t / Q + 1, Q);
		if (n) {
			size_t i = dt_find(d, n, t);
			if (i < n && d[i].start < lim)
				lim = d[i].start;
		}
		if (lim - t >= w)
			return tadd(en, t, w);
		w -= lim - t;
		t = lim;
		if (sp && !n) {
			/* whole rotations at once: in every nh/g slots the rank has k/g of them */
			uint64_t g = gcd64(nh, en->K), per = tmul(en, en->K / g, Q), k = w / per;
			if (k > 1) {
				k--;
				t = tadd(en, t, tmul(en, tmul(en, k, nh / g), Q));
				w -= k * per;
			}
		}
		if (en->ovf)
			return UINT64_MAX;
	}
}

/* block: a core of rank r's host h free at t (its index in *j), else the earliest time
 * one is; with cpu_bind = core only the rank's own core (position mod K). */
static uint64_t core_at(const ir_engine *en, uint32_t r, uint32_t h, uint64_t t, uint32_t *j)
{
	const uint64_t *cf = en->core_free + (size_t)h * en->K;
	uint64_t m = UINT64_MAX;
	*j = NIL;
	if (en->nc.bind) {
		uint32_t k = en->pos[r] % en->K;
		if (cf[k] > t)
			return cf[k];
		*j = k;
		return t;
	}
	for (uint32_t k = 0; k < en->K; k++) {
		if (cf[k] <= t) {
			*j = k;
			return t;
		}
		if (cf[k] < m)
			m = cf[k];
	}
	return m;
}

/* A CPU overhead w of rank r processed at t: 0 with *out its end, or 1 with *out the
 * time to put it back to (no core, a detour, not the rank's slot). */
static int node_take(ir_engine *en, uint32_t r, uint64_t t, uint64_t w, uint64_t *out)
{
	uint32_t h = en->host[r], j = NIL;
	int sh = host_shared(en, h);
	uint64_t a;
	if (!w) {
		*out = t;
		return 0;
	}
	a = node_ready(en, r, t, sh && en->spin);
	if (sh && en->block) {
		uint64_t x = core_at(en, r, h, a, &j);
		if (x > a)
			a = x;
	}
	if (a > t) {
		*out = a;
		return 1;
	}
	*out = node_adv(en, r, t, w, sh && en->spin);
	if (j != NIL)
		en->core_free[(size_t)h * en->K + j] = *out;
	return 0;
}

/* block with cpu_yield: rank r, waiting in MPI, is woken at t by a protocol step that is
 * no message it handles (a rendezvous sender's release). The wake-up takes the first core
 * of its host free from t on (outside detours) for the host's wake-up time; its end. */
static uint64_t node_wake(ir_engine *en, uint32_t r, uint64_t t)
{
	uint32_t h = en->host[r], j = NIL;
	uint64_t a = node_ready(en, r, t, 0), q = core_at(en, r, h, a, &j), end;
	if (j == NIL) {
		a = node_ready(en, r, q, 0);
		while ((q = core_at(en, r, h, a, &j)) > a || j == NIL)
			a = node_ready(en, r, q, 0);
	}
	end = node_adv(en, r, a, wake_cost(en, r), 0);
	en->core_free[(size_t)h * en->K + j] = end;
	return end;
}

/* The work of calc op i of rank r of d picoseconds: scaled, perturbed, rounded. */
static uint64_t calc_work(ir_engine *en, uint32_t r, uint32_t i, uint64_t d)
{
	double f = en->nc.cpu_scale * ir_node_factor(&en->nc, r, i), v;
	if (f == 1.0)
		return d;
	v = (double)d * f + 0.5;
	if (v >= 18446744073709551615.0) {
		en->ovf = 1;
		return UINT64_MAX;
	}
	return (uint64_t)v;
}

static int put_back(ir_engine *en, uint64_t t, uint32_t ref, uint32_t r, uint32_t op, uint64_t nt,
                    int in_heap, ir_err *e);

/* A calc of rank r processed at t (node model on). Returns -1 on error; 1 when it was put
 * back, or a slice of it ran and the rest is queued again (block); 0 when it runs to its
 * end now: *end, *work (for the rank's calc total), *mask (which dependents it releases). */
static int node_calc(ir_engine *en, uint64_t t, uint32_t g, uint32_t r, uint32_t i, unsigned c,
                     uint64_t size, int in_heap, uint64_t *end, uint64_t *work, unsigned *mask, ir_err *e)
{
	size_t rc = (size_t)r * en->C + c;
	uint64_t *cf = &en->cpu_free[rc], a, w, q;
	uint32_t h = en->host[r], j = NIL;
	int sh = host_shared(en, h), first;
	*mask = WALK_ALL;
	if (!(sh && en->block)) {
		if (*cf > t)
			return put_back(en, t, g, r, i, *cf, in_heap, e) ? -1 : 1;
		w = calc_work(en, r, i, size);
		if (w) {
			a = node_ready(en, r, t, sh && en->spin);
			if (a > t)
				return put_back(en, t, g, r, i, a, in_heap, e) ? -1 : 1;
		}
		*end = node_adv(en, r, t, w, sh && en->spin);
		*work = w;
		return 0;
	}
	/* block: round-robin slices of at most one quantum, each on a free core */
	if ((en->inprog[rc] & ~IR_READY) != i) {
		if (*cf > t)
			return put_back(en, t, g, r, i, *cf, in_heap, e) ? -1 : 1;
		w = calc_work(en, r, i, size);
		if (!w) {
			*end = t;
			*work = 0;
			return 0;
		}
		en->rem[rc] = w;
		en->inprog[rc] = IR_READY | i;
		en->calc[r] = tadd(en, en->calc[r], w);
	}
	a = node_ready(en, r, t, 0);
	q = core_at(en, r, h, a, &j);
	if (q > a)
		a = q;
	if (a > t) {
		/* the CPU is busy at least until this calc could end */
		*cf = umax(*cf, tadd(en, a, en->rem[rc]));
		return put_back(en, t, g, r, i, a, in_heap, e) ? -1 : 1;
	}
	q = en->rem[rc] < en->nc.quantum ? en->rem[rc] : en->nc.quantum;
	*end = node_adv(en, r, t, q, 0);
	en->core_free[(size_t)h * en->K + j] = *end;
	en->rem[rc] -= q;
	first = (en->inprog[rc] & IR_READY) != 0;
	en->inprog[rc] = i;
	*work = 0;
	if (!en->rem[rc]) {
		en->inprog[rc] = NIL;
		*mask = first ? WALK_ALL : WALK_REQ;
		return 0;
	}
	/* more to do: the CPU is busy at least until then; the next slice queues anew */
	*cf = tadd(en, *end, en->rem[rc]);
	if (first && walk(en, r, i, WALK_IREQ, t, t, &en->ra, e))
		return -1;
	if (in_heap)
		hpop(en);
	en->state[g] = IR_READY | r;
	if (qpush(en, *end, g, e))
		return -1;
	if (en->hk.event) {
		ir_ev ev;
		ev_start(en, &ev, IR_EV_CALC, t, r, i);
		ev.end = *end;
		ev.cpu = c;
		ev.size = q;
		if (en->hk.event(en->hk.ctx, &ev, e))
			return -1;
	}
	return 1;
}

/* ---- events ---- */

static int put_back(ir_engine *en, uint64_t t, uint32_t ref, uint32_t r, uint32_t op, uint64_t nt,
                    int in_heap, ir_err *e)
{
	en->st.putbacks++;
	if (in_heap) {
		if (hretime(en, nt, e))
			return -1;
	} else {
		if (!(ref & IR_MSGBIT))
			en->state[ref] = IR_READY | r;
		if (KEYED(en) && en->dseq && !(ref & IR_MSGBIT))
			en->dseq[ref] = en->dcur;
		if (hpush_key(en, nt, &en->cur, ref, e))
			return -1;
	}
	if (en->hk.event) {
		ir_ev ev;
		ev_start(en, &ev, IR_EV_PUTBACK, t, r, op);
		ev.end = nt;
		if (en->hk.event(en->hk.ctx, &ev, e))
			return -1;
	}
	return 0;
}

/* recv_o_cross (formats/params.md, "Crossing messages"): a network send's overhead on CPU c of
 * rank r, [t0, t1), and whether message m, arriving at its receiver d at t, met one */
static __attribute__((noinline, cold)) void cross_send(ir_engine *en, uint32_t r, unsigned c, uint64_t t0, uint64_t t1)
{
	en->xs[2 * ((size_t)r * en->C + c)] = t0;
	en->xs[2 * ((size_t)r * en->C + c) + 1] = t1;
}
static __attribute__((noinline, cold)) void cross_look(ir_engine *en, msg *m, uint32_t d, uint64_t t)
{
	const uint64_t *x = &en->xs[2 * ((size_t)d * en->C + m->cpu)];
	m->xc = !m->self && !m->intra && !m->rndv && t >= x[0] && t < x[1] ? 2 : 1;
}

static int step_op(ir_engine *en, uint64_t t, uint32_t g, uint32_t r, int in_heap, ir_err *e)
{
	uint32_t i = ir_cs_index(en->base[r], g);
	ir_dop op;
	ir_csched_op(en->cs, r, g, &op);
	unsigned type = op.type, c = op.cpu, n = op.nic;
	uint64_t *cf = &en->cpu_free[(size_t)r * en->C + c];
	uint64_t size = op.size;
	ir_ev ev;

	if (ir_op_is_io(type)) {
		/* a storage server's disk access: the disk is a resource of its own (ir_storage),
		 * the CPU stays free; dependents wait for its end through `earliest` */
		uint64_t end;
		if (in_heap)
			hpop(en);
		if (ir_storage_access(en->stor, r, t, type == IR_OP_WRITE, (uint64_t)op.peer | (uint64_t)op.tag << 32, size, &end, e))
			return -1;
		en->io_end[r] = umax(en->io_end[r], end);
		if (en->hk.event) {
			ir_ev io;
			ev_start(en, &io, IR_EV_IO, t, r, i);
			io.end = end;
			io.size = size;
			io.msg = (uint64_t)op.peer | (uint64_t)op.tag << 32;
			io.tag = type == IR_OP_WRITE;
			if (en->hk.event(en->hk.ctx, &io, e))
				return -1;
		}
		en->done[r]++;
		en->st.ops_done++;
		en->st.ops++;
		return walk(en, r, i, WALK_ALL, t, end, &en->ra, e);
	}
	if (type == IR_OP_CALC) {
		uint64_t end, work = size;
		unsigned mask = WALK_ALL;
		if (en->node) {
			int k = node_calc(en, t, g, r, i, c, size, in_heap, &end, &work, &mask, e);
			if (k)
				return k < 0 ? -1 : 0;
		} else {
			if (*cf > t)
				return put_back(en, t, g, r, i, *cf, in_heap, e);
			end = tadd(en, t, size);
		}
		if (in_heap)
			hpop(en);
		*cf = end;
		en->calc[r] = tadd(en, en->calc[r], work);
		if (en->ccum) {
			en->ccum[r] = tadd(en, en->ccum[r], end - t);
			if (en->cend[r] < end)
				en->cend[r] = end;
		}
		en->done[r]++;
		en->st.ops_done++;
		en->st.ops++;
		if (walk(en, r, i, mask, t, end, &en->ra, e))
			return -1;
		if (en->hk.event) {
			memset(&ev, 0, sizeof ev);
			ev.kind = IR_EV_CALC;
			ev.end = end;
			goto hook;
		}
		return 0;
	}
	if (type == IR_OP_SEND) {
		uint64_t *sf = &en->send_free[(size_t)r * en->N + n];
		/* ARRIVAL (async progress): the library starts a ready send while the CPU works
		 * and adds its overhead to that work, as for a message (docs/loggops-semantics.md
		 * 6.2 item 3) */
		uint64_t avail = en->arrival ? *sf : umax(*cf, *sf), s1 = s1_of(size), cpu_end, busy;
		uint32_t mi, dst = op.peer;
		msg *m;
		ir_net_msg nm;
		int rndv, self = en->other_model && ir_model_self_copy(&en->p, r, dst), intra;
		const ir_loggops *P = &en->p;
		if (avail > t)
			return put_back(en, t, g, r, i, avail, in_heap, e);
		intra = en->intra && !self && dst < en->nranks && en->host[r] == en->host[dst];
		if (intra)
			P = &en->pi;
		rndv = size > P->S;
		if (en->step && !self && !intra && !rndv) {
			/* after a send when no message reached the rank since that send began */
			const struct step_state *st = &en->step[r];
			int after_send = st->sent && !st->arrived;
			cpu_end = ir_model_send_cpu_gap(P, size, after_send, t > st->end ? t - st->end : 0);
		}
		else
			cpu_end = en->other_model ? ir_model_send_cpu(P, size, self) : ir_model_lg_send_cpu(P, size);
		if (en->other_model && !self && P->send_spread.n) /* the same draw as release_sender()'s */
			cpu_end = ir_spread_apply(&P->send_spread, cpu_end, ir_node_draw(&en->nc, r, i, IR_DRAW_SEND));
		if (!en->node)
			cpu_end = tadd(en, t, cpu_end);
		else if (node_take(en, r, t, cpu_end, &cpu_end)) {
			/* no core: the rank is runnable until one is free, not waiting in MPI */
			if (en->want && en->want[r] < cpu_end)
				en->want[r] = cpu_end;
			return put_back(en, t, g, r, i, cpu_end, in_heap, e);
		}
		if (in_heap)
			hpop(en);
		busy = *cf > t ? *cf - t : 0; /* ARRIVAL: work the CPU still had at t */
		*cf = busy ? tadd(en, cpu_end, busy) : cpu_end;
		if (en->step && !self && !intra) {
			en->step[r].end = umax(en->step[r].end, *cf);
			en->step[r].sent = 1;
			en->step[r].arrived = 0;
		}
		if (__builtin_expect(en->xs != NULL, 0) && !self && !intra)
			cross_send(en, r, c, t, *cf);
		if (!self && !intra)
			*sf = tadd(en, tadd(en, t, en->p.g), tmul(en, s1, en->p.G));
		en->nmsgs[r]++;
		en->nbytes[r] = tadd(en, en->nbytes[r], size);
		en->st.ops++;
		mi = pool_get(&en->mp);
		if (mi == NIL)
			return ir_errf(e, "out of memory for messages in flight");
		m = M(en, mi);
		m->next = NIL;
		m->src = r;
		m->dst = op.peer;
		m->tag = op.tag;
		m->sop = i;
		m->cpu = (uint8_t)c;
		m->nic = (uint8_t)n;
		m->kind = K_DATA;
		m->rndv = (uint8_t)rndv;
		m->self = (uint8_t)self;
		m->intra = (uint8_t)intra;
		m->lazy = 0;
		m->ran = 0;
		m->xc = 0;
		m->mt = 0;
		m->size = size;
		m->id = en->next_msg_id++;
		if (KEYED(en) && en->hk.number)
			en->hk.number(en->hk.ctx, 1, m->id);
		m->inject = t;
		m->arrive = 0;
		nm.src = r;
		nm.dst = m->dst;
		nm.tag = m->tag;
		nm.cpu = c;
		nm.nic = n;
		nm.rndv = rndv;
		nm.size = size;
		nm.id = m->id;
		if (nm.dst >= en->nranks)
			return ir_errf(e, "rank %u: send op %u to rank %u of %u", r, i, nm.dst, en->nranks);
		en->now = t;
		if (self) { /* a local copy: it is there when the sender's copy is done */
			if (ir_engine_deliver(en, mi, cpu_end, e))
				return -1;
		} else if (intra) { /* through the host's memory: net_L of the intra-node model */
			if (ir_engine_deliver(en, mi, tadd(en, t, ir_model_arrival(P, size, 0)), e))
				return -1;
		} else if (en->net->inject(en->net_state, mi, &nm, t, e))
			return -1;
		if (!rndv) {
			en->done[r]++;
			en->st.ops_done++;
		}
		if (walk(en, r, i, rndv ? WALK_IREQ : WALK_ALL, t, cpu_end, &en->ra, e))
			return -1;
		if (en->hk.event) {
			memset(&ev, 0, sizeof ev);
			ev.kind = IR_EV_SEND;
			ev.end = cpu_end;
			ev.peer = nm.dst;
			ev.tag = nm.tag;
			ev.msg = nm.id;
			ev.rndv = rndv;
			goto hook;
		}
		return 0;
	}
	/* IR_OP_RECV: posting needs no resource. */
	{
		uint32_t src = op.peer, tag = op.tag, prev = NIL, mi;
		if (in_heap)
			hpop(en);
		en->st.ops++;
		for (mi = en->uq_head[r]; mi != NIL; prev = mi, mi = M(en, mi)->next)
			if (recv_fits(src, tag, M(en, mi)))
				break;
		if (en->hk.event) {
			memset(&ev, 0, sizeof ev);
			ev.kind = IR_EV_RECV;
			ev.end = t;
			ev.peer = src;
			ev.tag = tag;
			ev.match_op = IR_NO_OP;
		}
		if (mi != NIL) {
			msg *m = M(en, mi);
			if (prev == NIL)
				en->uq_head[r] = m->next;
			else
				M(en, prev)->next = m->next;
			if (en->uq_tail[r] == mi)
				en->uq_tail[r] = prev;
			if (m->lazy && has_req_succ(en, r, i)) {
				/* async progress: charged when an op needs the receive */
				if (en->hk.event) {
					ev.matched = 1;
					ev.msg = m->id;
					ev.match_op = m->sop;
					ev.peer = m->src;
				}
				if (walk(en, r, i, WALK_IREQ, t, t, &en->ra, e) || make_pending(en, r, i, mi, t, e))
					return -1;
				if (en->hk.event)
					goto hook;
				return 0;
			}
			if (m->lazy) {
				/* nothing waits for it: charged now */
				uint64_t *mcf = &en->cpu_free[(size_t)r * en->C + m->cpu], end = tadd(en, t, m->mt);
				*mcf = tadd(en, umax(*mcf, t), m->mt);
				m->mt = end;
				en->done[r]++;
				en->st.ops_done++;
				if (walk(en, r, i, WALK_ALL, t, end, &en->ra, e))
					return -1;
			} else if (handshake(en, m)) {
				if (walk(en, r, i, WALK_IREQ, t, t, &en->ra, e))
					return -1;
			} else {
				en->done[r]++;
				en->st.ops_done++;
				if (walk(en, r, i, WALK_ALL, t, t, &en->ra, e))
					return -1;
			}
			if (en->hk.event) {
				ev.matched = 1;
				ev.msg = m->id;
				ev.match_op = m->sop;
				ev.rndv = m->rndv;
				ev.peer = m->src;
			}
			if (matched(en, r, i, mi, t, e))
				return -1;
		} else {
			rq_set_next(en, r, i, NIL);
			if (en->rq_tail[r] == NIL)
				en->rq_head[r] = i;
			else
				rq_set_next(en, r, en->rq_tail[r], i);
			en->rq_tail[r] = i;
			if (walk(en, r, i, WALK_IREQ, t, t, &en->ra, e))
				return -1;
		}
		if (en->hk.event)
			goto hook;
		return 0;
	}
hook:
	ev_key(en, &ev);
	ev.t = t;
	ev.rank = r;
	ev.op = i;
	ev.cpu = c;
	ev.nic = n;
	ev.size = size;
	if (ev.kind != IR_EV_RECV)
		ev.match_op = IR_NO_OP;
	return en->hk.event(en->hk.ctx, &ev, e);
}

/* A queued item that is no message to receive: a network callback, the end of a held
 * rendezvous message (its receive, then its send), a lazy receiver's charge. */
static __attribute__((noinline)) int step_special(ir_engine *en, uint64_t t, uint32_t mi, ir_err *e)
{
	msg *m = M(en, mi);
	if (m->kind == K_WAKE) {
		uint64_t cookie = m->size;
		hpop(en);
		pool_put(&en->mp, mi);
		en->st.net_calls++;
		en->now = t;
		if (en->hk.event) {
			ir_ev ev;
			ev_start(en, &ev, IR_EV_NET, t, 0, IR_NO_OP);
			ev.msg = cookie;
			if (en->net->describe)
				en->net->describe(en->net_state, cookie, ev.net, sizeof ev.net);
			if (en->hk.event(en->hk.ctx, &ev, e))
				return -1;
		}
		if (!en->net->wakeup)
			return ir_errf(e, "network %s asked for a callback but has none", en->net->name);
		return en->net->wakeup(en->net_state, t, cookie, e);
	}
	if (m->kind == K_FIN)
		return finish_held(en, t, mi, e);
	if (m->kind == K_SFIN) {
		/* the send of a held rendezvous message completes after its receive */
		hpop(en);
		if (release_sender(en, m, t, e))
			return -1;
		pool_put(&en->mp, mi);
		return 0;
	}
	return charge(en, t, mi, e);
}

static int step_msg(ir_engine *en, uint64_t t, uint32_t mi, ir_err *e)
{
	msg *m = M(en, mi);
	uint32_t d, prev = NIL, q;
	uint64_t *cf, *rf, avail, busy, s1, cpu_end;

	if (__builtin_expect(m->kind >= K_WAKE, 0))
		return step_special(en, t, mi, e);
	d = m->dst;
	cf = &en->cpu_free[(size_t)d * en->C + m->cpu];
	rf = &en->recv_free[(size_t)d * en->N + m->nic];
	if (en->step && !m->self && !m->intra)
		en->step[d].arrived = 1;
	if (en->hwake && !waiting(en, d, *cf, t))
		m->ran = 1;
	if (__builtin_expect(en->xs != NULL, 0) && !m->xc)
		cross_look(en, m, d, t);
	avail = en->arrival ? *rf : umax(*cf, *rf);
	if (avail > t)
		return put_back(en, t, IR_MSGBIT | mi, d, IR_NO_OP, avail, 1, e);
	cpu_end = en->other_model ? (m->xc == 2 ? ir_pw_eval(&en->p.recv_o_cross, m->size)
	                                         : ir_model_recv_cpu(msg_params(en, m), m->size, m->self,
	                                                             !m->intra && (en->net->flags & IR_NET_MODELS_BYTES) != 0))
	                          : ir_model_lg_recv_cpu(&en->p, m->size, (en->net->flags & IR_NET_MODELS_BYTES) != 0);
	if (en->other_model && !m->self && msg_params(en, m)->recv_spread.n)
		cpu_end = ir_spread_apply(&msg_params(en, m)->recv_spread, cpu_end, ir_node_draw(&en->nc, m->src, m->sop, IR_DRAW_RECV));
	if (en->other_model && m->rndv && pw_hs(en, m))
		cpu_end = 0; /* a request-to-send: the receiver pays rndv_copy when its data arrives */
	/* a rank waiting in MPI on a shared host (its CPU idle) is woken first, unless the
	 * message reached it while it ran (m->ran, set above whenever it was not waiting) */
	if (en->hwake && !m->ran)
		cpu_end = tadd(en, cpu_end, wake_cost(en, d));
	if (!en->node || en->arrival)
		cpu_end = tadd(en, t, cpu_end);
	else if (node_take(en, d, t, cpu_end, &cpu_end))
		return put_back(en, t, IR_MSGBIT | mi, d, IR_NO_OP, cpu_end, 1, e);
	busy = *cf > t ? *cf - t : 0; /* ARRIVAL: work the CPU still had at t */
	hpop(en);
	en->st.msgs++;
	if (en->step && !m->self && !m->intra) { /* the rank's last step: this message */
		en->step[d].end = umax(en->step[d].end, en->arrival ? tadd(en, cpu_end, busy) : cpu_end);
		/* and its sender's message taken in (formats/params.md, "A send after a gap") */
		if (m->src < en->nranks)
			en->step[m->src].arrived = 1;
	}
	s1 = s1_of(m->size);
	if (!(en->net->flags & IR_NET_MODELS_BYTES) && !m->self && !m->intra)
		*rf = tadd(en, tadd(en, t, en->p.g), tmul(en, s1, en->p.G));
	for (q = en->rq_head[d]; q != NIL; prev = q, q = rq_next(en, d, q)) {
		ir_dop rop;
		opd(en, d, q, &rop);
		if (recv_fits(rop.peer, rop.tag, m))
			break;
	}
	/* async progress: an eager message's charge waits until an op needs its receive
	 * (charge()); it is seen in the event hooks then */
	if (en->arrival && !m->rndv && cpu_end > t && (q == NIL || has_req_succ(en, d, q))) {
		m->mt = cpu_end - t;
		if (q == NIL) {
			m->lazy = 1;
			uq_append(en, d, mi, m);
			return 0;
		}
		rq_unlink(en, d, prev, q);
		return make_pending(en, d, q, mi, t, e);
	}
	if (!handshake(en, m))
		m->mt = cpu_end;
	*cf = en->arrival ? tadd(en, cpu_end, busy) : cpu_end;
	if (en->hk.event && msg_event(en, IR_EV_MSG, t, cpu_end, d, q != NIL ? q : IR_NO_OP,
	                              q != NIL ? q : IR_NO_OP, m, e))
		return -1;
	if (q != NIL) {
		uint32_t ri = q;
		rq_unlink(en, d, prev, q);
		if (!handshake(en, m)) {
			en->done[d]++;
			en->st.ops_done++;
			if (walk(en, d, ri, WALK_REQ, t, cpu_end, &en->ra, e))
				return -1;
		}
		return matched(en, d, ri, mi, t, e);
	}
	uq_append(en, d, mi, m);
	return 0;
}

/* ---- services for the network (ir_net.h) ---- */

#if !IR_ENGINE_KEYED
uint64_t ir_engine_now(const ir_engine *en) { return en->now; }
int ir_engine_keyed(const ir_engine *en) { return en->keyed; }

void ir_engine_cur_key(const ir_engine *en, uint64_t key[4])
{
	key[0] = en->cur.t;
	key[1] = en->cur.tc;
	key[2] = en->cur.who;
	key[3] = en->cur.seq;
}
#endif

/* What another process needs of message m (ir_engine_rmsg), its time and key left 0. */
static inline void rmsg_of(const msg *m, ir_engine_rmsg *rm)
{
	memset(rm, 0, sizeof *rm);
	rm->kind = IR_RMSG_DATA;
	rm->src = m->src;
	rm->dst = m->dst;
	rm->tag = m->tag;
	rm->sop = m->sop;
	rm->cpu = m->cpu;
	rm->nic = m->nic;
	rm->rndv = m->rndv;
	rm->size = m->size;
	rm->id = m->id;
	rm->inject = m->inject;
}

int EFN(deliver)(ir_engine *en, uint32_t mi, uint64_t t, ir_err *e)
{
#if !IR_ENGINE_KEYED
	TO_KEYED(en, ir_engine_key_deliver(en, mi, t, e));
#endif
	if (!en->running)
		return ir_errf(e, "network delivered a message outside a run");
	if (t < en->now)
		return ir_errf(e, "network delivered message %llu at %llu ps, before the current time %llu ps",
		               (unsigned long long)M(en, mi)->id, (unsigned long long)t, (unsigned long long)en->now);
	M(en, mi)->arrive = t;
	if (KEYED(en) && !owned(en, M(en, mi)->dst)) {
		/* another process simulates the destination: the message goes there with its key */
		const msg *m = M(en, mi);
		ir_engine_rmsg rm;
		ir_kheap_ent k = {0};
		if (m->rndv && !m->self)
			return ir_errf(e, "internal error: rendezvous message from rank %u to rank %u crosses partitions",
			               m->src, m->dst);
		if (new_key(en, &k, e))
			return -1;
		rmsg_of(m, &rm);
		rm.t = t;
		rm.tc = k.tc;
		rm.n = k.seq;
		rm.who = k.who;
		if (en->dseq) /* numbered for people where it is queued in a whole run: here */
			rm.dseq = take_dseq(en);
		pool_put(&en->mp, mi);
		return en->remote(en->remote_ctx, &rm, e);
	}
	return qpush(en, t, IR_MSGBIT | mi, e);
}

int EFN(call_at)(ir_engine *en, uint64_t t, uint64_t cookie, ir_err *e)
{
#if !IR_ENGINE_KEYED
	TO_KEYED(en, ir_engine_key_call_at(en, t, cookie, e));
#endif
	uint32_t mi;
	if (!en->running)
		return ir_errf(e, "network asked for a callback outside a run");
	if (t < en->now)
		return ir_errf(e, "network asked for a callback at %llu ps, before the current time %llu ps",
		               (unsigned long long)t, (unsigned long long)en->now);
	mi = pool_get(&en->mp);
	if (mi == NIL)
		return ir_errf(e, "out of memory for network callbacks");
	M(en, mi)->kind = K_WAKE;
	M(en, mi)->size = cookie;
	M(en, mi)->next = NIL;
	return qpush(en, t, IR_MSGBIT | mi, e);
}

int EFN(complete_at)(ir_engine *en, uint32_t mi, uint64_t t, uint64_t t_send, ir_err *e);

int EFN(complete)(ir_engine *en, uint32_t mi, uint64_t t, ir_err *e)
{
	return EFN(complete_at)(en, mi, t, t, e);
}

int EFN(complete_at)(ir_engine *en, uint32_t mi, uint64_t t, uint64_t t_send, ir_err *e)
{
#if !IR_ENGINE_KEYED
	TO_KEYED(en, ir_engine_key_complete_at(en, mi, t, t_send, e));
#endif
	if (!en->running)
		return ir_errf(e, "network completed a message outside a run");
	if (mi >= en->mp.fresh || M(en, mi)->kind != K_HELD)
		return ir_errf(e, "network completed message handle %u, which is not a matched rendezvous message", mi);
	if (t < en->now)
		return ir_errf(e, "network completed message %llu at %llu ps, before the current time %llu ps",
		               (unsigned long long)M(en, mi)->id, (unsigned long long)t, (unsigned long long)en->now);
	if (t_send < t)
		return ir_errf(e, "network completed the send of message %llu at %llu ps, before its receive (%llu ps)",
		               (unsigned long long)M(en, mi)->id, (unsigned long long)t_send, (unsigned long long)t);
	M(en, mi)->kind = K_FIN;
	M(en, mi)->arrive = t_send;
	return qpush(en, t, IR_MSGBIT | mi, e);
}

/* ---- the run ---- */

static int after_event(ir_engine *en, ir_err *e)
{
	if (en->ra.n || en->rb.n)
		if (flush_ready(en, e))
			return -1;
	if (en->ovf)
		return ir_errf(e, "simulated time exceeds 2^64 ps (about 213 days)");
	if (en->hk.progress && en->st.ops + en->st.msgs >= en->next_progress) {
		en->next_progress += PROGRESS_EVERY;
		en->hk.progress(en->hk.ctx, en->st.ops_done, en->owned_ops);
	}
	return 0;
}

static int tmp_add(ir_engine *en, size_t *n, uint32_t v, ir_err *e)
{
	if (*n == en->tmpcap && IR_GROW(en->tmp, *n + 1, en->tmpcap))
		return ir_errf(e, "out of memory");
	en->tmp[(*n)++] = v;
	return 0;
}

/* The ops ready at the start come first, all at time 0, in the order (rank; sends,
 * receives, calcs, reads and writes; program order): their keys are (0, 0, that position),
 * below the key of any item made later (whose maker is 1 + a rank, or the network). Put-backs
 * go to later times, so they run first and in that order: run them straight from the schedule
 * instead of queueing them all. A partition runs only its own ranks' (their keys are the
 * whole run's). */
static inline void init_key(ir_engine *en, uint32_t r, uint64_t cls, uint32_t i)
{
	en->cur.t = 0;
	en->cur.tc = 0;
	en->cur.who = 0;
	en->cur.seq = KEYED(en) ? (uint64_t)r << 33 | cls << 31 | i : en->dinit;
	en->dcur = en->dinit++;
	en->who = r + 1;
	en->now = 0;
}

static int run_initial(ir_engine *en, ir_err *e)
{
	en->in_init = 1;
	for (uint32_t r = 0; r < en->nranks; r++) {
		const ir_rank *rk = &en->s->rank[r];
		uint32_t b = en->base[r];
		size_t nt = 0;
		if (!owned(en, r)) {
			/* its ops ready at the start take their numbers for people here too */
			for (uint32_t i = 0; en->dseq && i < rk->nops; i++) {
				unsigned type = ir_csched_type(en->cs, ir_cs_gid(b, i));
				if (en->state[ir_cs_gid(b, i)] == 0 && (type == IR_OP_SEND || type == IR_OP_RECV || type == IR_OP_CALC ||
				                              (en->stor && ir_op_is_io(type))))
					en->dinit++;
			}
			continue;
		}
		for (uint32_t i = 0; i < rk->nops; i++) {
			unsigned type;
			if (en->state[ir_cs_gid(b, i)] != 0)
				continue;
			type = ir_csched_type(en->cs, ir_cs_gid(b, i));
			if (type == IR_OP_SEND) {
				init_key(en, r, 0, i);
				if (step_op(en, 0, ir_cs_gid(b, i), r, 0, e) || after_event(en, e))
					return -1;
			} else if (type == IR_OP_RECV) {
				if (tmp_add(en, &nt, i, e))
					return -1;
			}
		}
		for (uint32_t i = 0; i < rk->nops; i++)
			if (en->state[ir_cs_gid(b, i)] == 0 && ir_csched_type(en->cs, ir_cs_gid(b, i)) == IR_OP_CALC && tmp_add(en, &nt, i, e))
				return -1;
		for (uint32_t i = 0; en->stor && i < rk->nops; i++)
			if (en->state[ir_cs_gid(b, i)] == 0 && ir_op_is_io(ir_csched_type(en->cs, ir_cs_gid(b, i))) && tmp_add(en, &nt, i, e))
				return -1;
		for (size_t j = 0; j < nt; j++) {
			unsigned type = ir_csched_type(en->cs, ir_cs_gid(b, en->tmp[j]));
			init_key(en, r, type == IR_OP_RECV ? 1 : type == IR_OP_CALC ? 2 : 3, en->tmp[j]);
			if (step_op(en, 0, ir_cs_gid(b, en->tmp[j]), r, 0, e) || after_event(en, e))
				return -1;
		}
	}
	en->in_init = 0;
	return 0;
}

int EFN(start)(ir_engine *en, ir_err *e)
{
#if !IR_ENGINE_KEYED
	TO_KEYED(en, ir_engine_key_start(en, e));
#endif
	if (en->ran)
		return ir_errf(e, "the engine has already run");
	en->ran = 1;
	if (en->net->init(&en->net_state, en, en->nranks, &en->p, en->net_arg, e))
		return -1;
	if (KEYED(en) && en->net->nmakers && en->net->maker) {
		/* the network's makers after the ranks' and the network's own (net.h, contract 9) */
		uint32_t nm = en->net->nmakers(en->net_state);
		uint64_t *m = realloc(en->made, ((size_t)en->nranks + 2 + nm) * 8);
		if (!m)
			return ir_errf(e, "out of memory for the network's makers (%u)", nm);
		memset(m + en->nranks + 2, 0, (size_t)nm * 8);
		en->made = m;
		en->net_makers = 1;
	}
	if (en->intra && !en->node && hosts_init(en, e))
		return -1;
	if (en->node && node_init(en, e))
		return -1;
	en->running = 1;
	en->next_progress = PROGRESS_EVERY;
	/* the ops ready at the start are numbered 0..ninit-1 for people, the rest from ninit on */
	en->dinit = 0;
	en->dnext = en->ninit;
	if (en->owner) {
		en->dnext += (uint64_t)en->me << IR_ENGINE_PROC_SHIFT;
		en->next_msg_id = (uint64_t)en->me << IR_ENGINE_PROC_SHIFT;
	}
	en->seq = en->ninit;
	if (run_initial(en, e)) {
		en->running = 0;
		return -1;
	}
	return 0;
}

uint64_t EFN(next_time)(ir_engine *en)
{
#if !IR_ENGINE_KEYED
	TO_KEYED(en, ir_engine_key_next_time(en));
#endif
	return hn(en) ? hmin(en) : UINT64_MAX;
}

/* The top of the queue, copied into en->cur: 1, 0 when empty, -1 out of memory. */
static inline int htop(ir_engine *en)
{
	int k;
	if (KEYED(en)) {
		ir_kheap_ent *top;
		if ((k = ir_kheap_top(&en->kh, &top)) == 1)
			en->cur = *top;
	} else {
		ir_heap_ent *top;
		if ((k = ir_heap_top(&en->h, &top)) == 1) {
			en->cur.t = top->t;
			en->cur.ref = top->ref;
			en->cur.seq = top->seq;
		}
	}
	return k;
}

int EFN(advance)(ir_engine *en, uint64_t until, int all, ir_err *e)
{
#if !IR_ENGINE_KEYED
	TO_KEYED(en, ir_engine_key_advance(en, until, all, e));
#endif
	for (;;) {
		int k;
		/* peek without the queue's top, whose split would move the queue's "last" time
		 * beyond `until`, below which the next window's messages from other processes arrive */
		if (!all && hn(en) && hmin(en) >= until)
			return 0;
		k = htop(en);
		if (k <= 0) {
			if (k < 0) {
				en->running = 0;
				return ir_errf(e, "out of memory for the event queue (%zu items)", hn(en));
			}
			return 0;
		}
		uint64_t t = en->cur.t;
		uint32_t ref = en->cur.ref;
		en->now = t;
		if (KEYED(en) && en->dseq)
			en->dcur = ref & IR_MSGBIT ? en->mdseq[ref & ~IR_MSGBIT] : en->dseq[ref];
		if (ref & IR_MSGBIT) {
			if (KEYED(en)) {
				const msg *m = M(en, ref & ~IR_MSGBIT);
				en->who = m->kind == K_SFIN ? m->src + 1
				          : m->kind != K_WAKE ? m->dst + 1
				          : en->net_makers ? en->nranks + 2 + en->net->maker(en->net_state, m->size)
				                           : en->nranks + 1;
			}
			if (step_msg(en, t, ref & ~IR_MSGBIT, e))
				goto fail;
		} else {
			uint32_t r = en->state[ref] & ~IR_READY;
			if (KEYED(en))
				en->who = r + 1;
			if (step_op(en, t, ref, r, 1, e))
				goto fail;
		}
		if (after_event(en, e))
			goto fail;
	}
fail:
	en->st.events = en->st.ops + en->st.msgs;
	en->running = 0;
	return -1;
}

#if !IR_ENGINE_KEYED
int ir_engine_finish(ir_engine *en)
{
	int rc = 0;
	en->st.events = en->st.ops + en->st.msgs;
	if (en->st.ops_done != en->owned_ops)
		rc = 1;
	for (uint32_t r = 0; r < en->nranks && !rc; r++)
		if (owned(en, r) && en->uq_head[r] != NIL)
			rc = 1;
	for (uint32_t r = 0; r < en->nranks; r++)
		if (owned(en, r))
			en->st.end = umax(en->st.end, ir_engine_rank_end(en, r));
	if (en->hk.progress)
		en->hk.progress(en->hk.ctx, en->st.ops_done, en->owned_ops);
	en->running = 0;
	return rc;
}

int ir_engine_run(ir_engine *en, ir_err *e)
{
	if (ir_engine_start(en, e) || ir_engine_advance(en, 0, 1, e)) {
		en->st.events = en->st.ops + en->st.msgs;
		return -1;
	}
	return ir_engine_finish(en);
}
#endif

/* A message record made from rm (another process's message): its handle, NIL when out of
 * memory. Not queued. */
static uint32_t msg_from_remote(ir_engine *en, const ir_engine_rmsg *rm)
{
	uint32_t mi = pool_get(&en->mp);
	msg *m;
	if (mi == NIL)
		return NIL;
	m = M(en, mi);
	memset(m, 0, sizeof *m);
	m->next = NIL;
	m->src = rm->src;
	m->dst = rm->dst;
	m->tag = rm->tag;
	m->sop = rm->sop;
	m->cpu = rm->cpu;
	m->nic = rm->nic;
	m->kind = K_DATA;
	m->rndv = rm->rndv;
	m->size = rm->size;
	m->id = rm->id;
	m->inject = rm->inject;
	return mi;
}

int EFN(put_remote)(ir_engine *en, const ir_engine_rmsg *rm, ir_err *e)
{
#if !IR_ENGINE_KEYED
	TO_KEYED(en, ir_engine_key_put_remote(en, rm, e));
#endif
	uint32_t mi;
	msg *m;
	ir_kheap_ent k = {0};
	if (rm->kind == IR_RMSG_SFIN) {
		/* the send of an exported rendezvous message completes */
		uint32_t *x = ir_hmap_get(&en->xsend, rm->id, 0);
		if (!x || rm->src >= en->nranks || !owned(en, rm->src))
			return ir_errf(e, "internal error: completion of the send of message %llu (rank %u to rank %u), "
			               "which process %u did not export", (unsigned long long)rm->id, rm->src, rm->dst, en->me);
		mi = *x;
		ir_hmap_del(&en->xsend, x);
		M(en, mi)->kind = K_SFIN;
		if (en->dseq && set_mdseq(en, mi, rm->dseq, e))
			return -1;
		k.tc = rm->tc;
		k.who = rm->who;
		k.seq = rm->n;
		return hpush_key(en, rm->t, &k, IR_MSGBIT | mi, e);
	}
	if (rm->dst >= en->nranks || !owned(en, rm->dst) || rm->src >= en->nranks)
		return ir_errf(e, "internal error: message %llu from rank %u to rank %u handed to process %u",
		               (unsigned long long)rm->id, rm->src, rm->dst, en->me);
	if (rm->t < en->kh.last)
		return ir_errf(e, "internal error: message from rank %u to rank %u arrives at %llu ps, before %llu ps "
		               "(the window exceeded the lookahead)", rm->src, rm->dst, (unsigned long long)rm->t,
		               (unsigned long long)en->kh.last);
	mi = msg_from_remote(en, rm);
	if (mi == NIL)
		return ir_errf(e, "out of memory for messages in flight");
	m = M(en, mi);
	m->arrive = rm->t;
	k.tc = rm->tc;
	k.who = rm->who;
	k.seq = rm->n;
	if (en->dseq && set_mdseq(en, mi, rm->dseq, e))
		return -1;
	return hpush_key(en, rm->t, &k, IR_MSGBIT | mi, e);
}

#if IR_ENGINE_KEYED
/* ---- a network that carries messages between processes (ir_engine.h) ---- */

int ir_engine_new_key(ir_engine *en, ir_engine_key *k, ir_err *e)
{
	ir_kheap_ent x = {0};
	if (!en->keyed)
		return ir_errf(e, "internal error: a key asked of an engine that orders ties by sequence number");
	if (new_key(en, &x, e))
		return -1;
	k->tc = x.tc;
	k->n = x.seq;
	k->who = x.who;
	k->dseq = en->dseq ? take_dseq(en) : 0;
	return 0;
}

int ir_engine_call_at_key(ir_engine *en, uint64_t t, uint64_t cookie, const ir_engine_key *k, ir_err *e)
{
	ir_kheap_ent x = {0};
	uint32_t mi;
	if (!en->keyed || !en->running)
		return ir_errf(e, "internal error: a keyed callback outside a keyed run");
	mi = pool_get(&en->mp);
	if (mi == NIL)
		return ir_errf(e, "out of memory for network callbacks");
	M(en, mi)->kind = K_WAKE;
	M(en, mi)->size = cookie;
	M(en, mi)->next = NIL;
	if (en->dseq && set_mdseq(en, mi, k->dseq, e))
		return -1;
	x.tc = k->tc;
	x.who = k->who;
	x.seq = k->n;
	return hpush_key(en, t, &x, IR_MSGBIT | mi, e);
}

int ir_engine_export(ir_engine *en, uint32_t mi, ir_engine_rmsg *rm, ir_err *e)
{
	msg *m;
	if (!en->keyed || mi >= en->mp.fresh)
		return ir_errf(e, "internal error: export of message handle %u", mi);
	m = M(en, mi);
	if (owned(en, m->dst))
		return ir_errf(e, "internal error: export of message %llu to rank %u, which this process simulates",
		               (unsigned long long)m->id, m->dst);
	rmsg_of(m, rm);
	if (handshake(en, m)) {
		int isnew = 0;
		uint32_t *x = ir_hmap_put(&en->xsend, m->id, 0, &isnew);
		if (!x)
			return ir_errf(e, "out of memory");
		if (!isnew)
			return ir_errf(e, "internal error: message %llu exported twice", (unsigned long long)m->id);
		*x = mi;
		m->kind = K_SWAIT;
		return 0;
	}
	pool_put(&en->mp, mi);
	return 0;
}

int ir_engine_adopt(ir_engine *en, const ir_engine_rmsg *rm, uint32_t *out, ir_err *e)
{
	uint32_t mi;
	if (!en->keyed || rm->dst >= en->nranks || !owned(en, rm->dst) || rm->src >= en->nranks)
		return ir_errf(e, "internal error: message %llu from rank %u to rank %u adopted by process %u",
		               (unsigned long long)rm->id, rm->src, rm->dst, en->me);
	mi = msg_from_remote(en, rm);
	if (mi == NIL)
		return ir_errf(e, "out of memory for messages in flight");
	*out = mi;
	return 0;
}
#endif

#if !IR_ENGINE_KEYED
/* ---- results ---- */

const ir_engine_stats *ir_engine_get_stats(const ir_engine *en) { return &en->st; }

uint64_t ir_engine_rank_end(const ir_engine *en, uint32_t r)
{
	uint64_t m = en->held_end ? en->held_end[r] : 0;
	if (en->io_end)
		m = umax(m, en->io_end[r]);
	for (uint32_t c = 0; c < en->C; c++)
		m = umax(m, en->cpu_free[(size_t)r * en->C + c]);
	return m;
}

uint64_t ir_engine_rank_calc(const ir_engine *en, uint32_t r) { return en->calc[r]; }
uint64_t ir_engine_rank_msgs(const ir_engine *en, uint32_t r) { return en->nmsgs[r]; }
uint64_t ir_engine_rank_bytes(const ir_engine *en, uint32_t r) { return en->nbytes[r]; }

/* ---- deadlock report ---- */

static void opname(const ir_engine *en, uint32_t r, uint32_t i, char *buf, size_t n)
{
	const char *l = en->s->from_text ? ir_sched_label(en->s, r, i) : NULL;
	if (l)
		snprintf(buf, n, "'%.100s'", l);
	else
		snprintf(buf, n, "#%u", i);
}

static void peername(uint32_t v, char *buf, size_t n)
{
	if (v == IR_ANY)
		snprintf(buf, n, "any");
	else
		snprintf(buf, n, "%u", v);
}

static int in_rq(const ir_engine *en, uint32_t r, uint32_t i)
{
	for (uint32_t q = en->rq_head[r]; q != NIL; q = rq_next(en, r, q))
		if (q == i)
			return 1;
	return 0;
}

/* A rendezvous send of rank r still waiting: its message is in some UQ. */
static uint32_t pending_send_msg(const ir_engine *en, uint32_t r, uint32_t i)
{
	for (uint32_t d = 0; d < en->nranks; d++)
		for (uint32_t mi = en->uq_head[d]; mi != NIL; mi = M(en, mi)->next)
			if (M(en, mi)->src == r && M(en, mi)->sop == i && M(en, mi)->rndv)
				return mi;
	return NIL;
}

static int never_ready(const ir_engine *en, uint32_t r, uint32_t i)
{
	uint32_t s = en->state[ir_cs_gid(en->base[r], i)];
	return s != 0 && !(s & IR_READY);
}

static int op_done(const ir_engine *en, uint32_t r, uint32_t i)
{
	ir_dop o;
	opd(en, r, i, &o);
	if (never_ready(en, r, i))
		return 0;
	if (o.type == IR_OP_RECV)
		return !in_rq(en, r, i);
	if (o.type == IR_OP_SEND && o.size > en->p.S)
		return pending_send_msg(en, r, i) == NIL;
	return 1;
}

static const char *tname(unsigned t) { return t == IR_OP_SEND ? "send" : t == IR_OP_RECV ? "recv" : "calc"; }

int ir_engine_deadlock(const ir_engine *en, ir_sb *out, uint32_t max_ranks)
{
	uint32_t stuck = 0, shown = 0;
	char a[128], b[128], p[32], tg[32];
	int rc = 0;
	for (uint32_t r = 0; r < en->nranks; r++)
		if (owned(en, r) && (en->done[r] < en->s->rank[r].nops || en->uq_head[r] != NIL))
			stuck++;
	rc |= ir_sb_addf(out, "deadlock: %u of %u ranks cannot finish (%llu of %llu ops done)\n", stuck, en->nranks,
	                 (unsigned long long)en->st.ops_done, (unsigned long long)en->s->nops);
	if (en->st.held)
		rc |= ir_sb_addf(out, "%llu rendezvous messages matched but the network never completed their data\n",
		                 (unsigned long long)en->st.held);
	for (uint32_t r = 0; r < en->nranks && !rc; r++) {
		const ir_rank *rk = &en->s->rank[r];
		uint32_t nnever = 0, first = NIL, lines = 0;
		if (!owned(en, r) || !(en->done[r] < rk->nops || en->uq_head[r] != NIL))
			continue;
		if (shown == max_ranks) {
			rc |= ir_sb_addf(out, "... and %u more stuck ranks\n", stuck - shown);
			break;
		}
		shown++;
		for (uint32_t q = en->rq_head[r]; q != NIL && !rc; q = rq_next(en, r, q)) {
			ir_dop op;
			opd(en, r, q, &op);
			if (lines++ == 4) {
				rc |= ir_sb_addf(out, "rank %u: ... more posted receives\n", r);
				break;
			}
			opname(en, r, q, a, sizeof a);
			peername(op.peer, p, sizeof p);
			peername(op.tag, tg, sizeof tg);
			rc |= ir_sb_addf(out, "rank %u: recv %s (%llu bytes from %s tag %s) is posted; no message matches it\n", r,
			                 a, (unsigned long long)op.size, p, tg);
		}
		lines = 0;
		for (uint32_t d = 0; d < en->nranks && !rc && lines < 4; d++)
			for (uint32_t mi = en->uq_head[d]; mi != NIL && lines < 4; mi = M(en, mi)->next) {
				const msg *m = M(en, mi);
				if (m->src != r || !m->rndv)
					continue;
				lines++;
				opname(en, r, m->sop, a, sizeof a);
				rc |= ir_sb_addf(out,
				                 "rank %u: send %s (%llu bytes to %u tag %u, rendezvous) waits for rank %u to post a matching receive\n",
				                 r, a, (unsigned long long)m->size, m->dst, m->tag, m->dst);
			}
		lines = 0;
		for (uint32_t mi = en->uq_head[r]; mi != NIL && !rc; mi = M(en, mi)->next) {
			const msg *m = M(en, mi);
			if (lines++ == 4) {
				rc |= ir_sb_addf(out, "rank %u: ... more unexpected messages\n", r);
				break;
			}
			opname(en, m->src, m->sop, a, sizeof a);
			rc |= ir_sb_addf(out,
			                 "rank %u: message from %u tag %u (%llu bytes, send %s on rank %u) arrived; no receive matches it\n",
			                 r, m->src, m->tag, (unsigned long long)m->size, a, m->src);
		}
		for (uint32_t i = 0; i < rk->nops; i++)
			if (never_ready(en, r, i) && !nnever++)
				first = i;
		if (first != NIL && !rc) {
			/* Name a predecessor that is not done: the first found in edge order. */
			uint32_t pred = NIL;
			uint32_t gb = en->base[r];
			for (uint32_t j = 0; j < rk->nops && pred == NIL; j++) {
				for (uint32_t gj = ir_cs_gid(gb, j), k = en->cop[gj].s; k < en->cop[gj + 1].s; k++)
					if ((en->cedge[k] & IR_EDGE_INDEX) == ir_cs_gid(gb, first) && !op_done(en, r, j)) {
						pred = j;
						break;
					}
			}
			unsigned ft = ir_csched_type(en->cs, ir_cs_gid(gb, first));
			opname(en, r, first, a, sizeof a);
			if (pred != NIL) {
				unsigned pt = ir_csched_type(en->cs, ir_cs_gid(gb, pred));
				opname(en, r, pred, b, sizeof b);
				rc |= ir_sb_addf(out, "rank %u: %s %s never became ready: it waits for %s %s, %s\n", r,
				                 tname(ft), a, tname(pt), b,
				                 never_ready(en, r, pred) ? "which never became ready" : "which never completed");
			} else {
				rc |= ir_sb_addf(out, "rank %u: %s %s never became ready\n", r, tname(ft), a);
			}
			if (nnever > 1)
				rc |= ir_sb_addf(out, "rank %u: %u ops in all never became ready\n", r, nnever);
		}
	}
	return rc ? -1 : 0;
}
#endif
