/*
 * u-engine.c: the LogGOPS engine (lib/ir_engine.c) on schedules built in
 * memory: the network interface contract (callbacks interleaved by time and
 * sequence number, deliveries, errors), hooks, multi-CPU readiness, time
 * overflow, and the deadlock report. The rules of the model itself are tested
 * end to end through ibsim in tests/t3*-ibsim-*.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "ir_engine.h"
#include "tap.h"

/* ---- a small in-memory schedule builder ---- */

#define MAXOPS 64
typedef struct bop {
	unsigned type, cpu, nic;
	uint32_t peer, tag;
	uint64_t size;
} bop;
typedef struct brank {
	bop op[MAXOPS];
	uint32_t nops;
	uint32_t dep_from[MAXOPS * 2], dep_to[MAXOPS * 2], ndeps;
	int dep_ireq[MAXOPS * 2];
	unsigned char ops[MAXOPS * IR_OP_BYTES];
	unsigned char edges[MAXOPS * 8];
} brank;

static uint32_t add_op(brank *r, unsigned type, uint32_t peer, uint32_t tag, uint64_t size, unsigned cpu)
{
	bop *o = &r->op[r->nops];
	o->type = type;
	o->peer = peer;
	o->tag = tag;
	o->size = size;
	o->cpu = cpu;
	o->nic = 0;
	return r->nops++;
}
#define CALC(r, d, cpu) add_op(r, IR_OP_CALC, 0, 0, d, cpu)
#define SEND(r, to, tag, n) add_op(r, IR_OP_SEND, to, tag, n, 0)
#define RECV(r, from, tag, n) add_op(r, IR_OP_RECV, from, tag, n, 0)

/* `to` requires (ireq: irequires) `from` */
static void dep(brank *r, uint32_t to, uint32_t from, int ireq)
{
	r->dep_from[r->ndeps] = from;
	r->dep_to[r->ndeps] = to;
	r->dep_ireq[r->ndeps] = ireq;
	r->ndeps++;
}

static void finish_rank(brank *r, ir_rank *out)
{
	uint32_t k = 0, ncpus = 1;
	for (uint32_t i = 0; i < r->nops; i++) {
		unsigned char *p = r->ops + i * IR_OP_BYTES;
		memset(p, 0, IR_OP_BYTES);
		p[0] = (unsigned char)r->op[i].type;
		p[1] = (unsigned char)r->op[i].cpu;
		p[2] = (unsigned char)r->op[i].nic;
		ir_put32(p + 4, r->op[i].peer);
		ir_put32(p + 8, r->op[i].tag);
		ir_put32(p + 12, k);
		ir_put64(p + 16, r->op[i].size);
		if (r->op[i].cpu + 1 > ncpus)
			ncpus = r->op[i].cpu + 1;
		/* dependents of i in increasing index order */
		for (uint32_t to = 0; to < r->nops; to++)
			for (uint32_t d = 0; d < r->ndeps; d++)
				if (r->dep_from[d] == i && r->dep_to[d] == to)
					ir_put32(r->edges + 4 * k++, to | (r->dep_ireq[d] ? IR_EDGE_IREQ : 0));
	}
	out->ops = r->ops;
	out->edges = r->edges;
	out->nops = r->nops;
	out->nedges = k;
	out->ncpus = ncpus;
	out->nnics = 1;
}

typedef struct world {
	brank br[4];
	ir_rank rk[4];
	ir_sched s;
} world;

static void world_init(world *w, uint32_t n)
{
	memset(w, 0, sizeof *w);
	w->s.nranks = n;
	w->s.rank = w->rk;
}

static void world_finish(world *w)
{
	w->s.nops = w->s.nedges = 0;
	for (uint32_t r = 0; r < w->s.nranks; r++) {
		finish_rank(&w->br[r], &w->rk[r]);
		w->s.nops += w->rk[r].nops;
		w->s.nedges += w->rk[r].nedges;
	}
}

static void cfg_default(ir_engine_cfg *c)
{
	memset(c, 0, sizeof *c);
	ir_loggops_defaults(&c->p);
}

/* ---- a test network: arrival after a fixed delay, through a callback ---- */

typedef struct tnet {
	ir_engine *en;
	uint64_t delay;
	uint32_t pending[16];
	int npending;
	int early; /* deliver before now (a contract violation) */
} tnet;

static tnet tn;

static int tn_init(void **st, ir_engine *en, uint32_t nranks, const ir_loggops *p, const void *arg, ir_err *e)
{
	(void)nranks;
	(void)p;
	(void)e;
	tn.en = en;
	tn.delay = *(const uint64_t *)arg;
	tn.npending = 0;
	*st = &tn;
	return 0;
}
static int tn_inject(void *st, uint32_t msg, const ir_net_msg *m, uint64_t t, ir_err *e)
{
	tnet *n = st;
	(void)m;
	if (n->early)
		return ir_engine_deliver(n->en, msg, t - 1, e);
	n->pending[n->npending++] = msg;
	return ir_engine_call_at(n->en, t + n->delay, (uint64_t)msg, e);
}
static int tn_wakeup(void *st, uint64_t t, uint64_t cookie, ir_err *e)
{
	tnet *n = st;
	return ir_engine_deliver(n->en, (uint32_t)cookie, t, e);
}
static void tn_free(void *st) { (void)st; }

static const ir_net_ops test_net = { "test", IR_NET_MODELS_BYTES, tn_init, tn_inject, tn_wakeup, tn_free, NULL, NULL, NULL, NULL, NULL };

/* ---- a handshake network: request-to-send arrives after 10 ps; after a
 * match at t the data arrives at t + `delay` (its argument) ---- */

static int hs_inject(void *st, uint32_t msg, const ir_net_msg *m, uint64_t t, ir_err *e)
{
	tnet *n = st;
	(void)m;
	return ir_engine_deliver(n->en, msg, t + 10, e);
}
static int hs_matched(void *st, uint32_t msg, uint64_t t, ir_err *e)
{
	tnet *n = st;
	if (n->early) /* contract violations: twice, or a bad handle */
		return ir_engine_complete(n->en, msg, t + n->delay, e) ||
		       ir_engine_complete(n->en, n->early == 1 ? msg : 999, t + n->delay, e);
	return ir_engine_complete(n->en, msg, t + n->delay, e);
}
static int hs_forget(void *st, uint32_t msg, uint64_t t, ir_err *e)
{
	(void)st;
	(void)msg;
	(void)t;
	(void)e;
	return 0;
}
static const ir_net_ops hs_net = { "handshake", IR_NET_MODELS_BYTES | IR_NET_RNDV_HANDSHAKE, tn_init, hs_inject,
	                           tn_wakeup, tn_free, hs_matched, NULL, NULL, NULL, NULL };

/* ---- event recording ---- */

typedef struct rec {
	char log[4096];
	int nmsg;
	ir_msg_rec last;
} rec;

static int on_ev(void *ctx, const ir_ev *ev, ir_err *e)
{
	rec *r = ctx;
	size_t l = strlen(r->log);
	static const char *k[] = { "calc", "send", "recv", "msg", "back", "net", "data" };
	(void)e;
	snprintf(r->log + l, sizeof r->log - l, "%s@%llu/r%u ", k[ev->kind], (unsigned long long)ev->t, ev->rank);
	return 0;
}
static int on_msg(void *ctx, const ir_msg_rec *m, ir_err *e)
{
	rec *r = ctx;
	(void)e;
	r->nmsg++;
	r->last = *m;
	return 0;
}
static int on_ev_fail(void *ctx, const ir_ev *ev, ir_err *e)
{
	(void)ctx;
	if (ev->kind == IR_EV_SEND)
		return ir_errf(e, "hook says no");
	return 0;
}

int main(void)
{
	world w;
	ir_engine_cfg cfg;
	ir_engine *en;
	ir_err e;
	rec rc;

	/* 1. Eager ping: rank 0 sends 10 bytes at 0; arrival 0+o+L = 4000; receiver
	 * charged o + 9*max(O,G) = 1500 + 54: receive done and rank 1 ends at 5554. */
	world_init(&w, 2);
	SEND(&w.br[0], 1, 0, 10);
	RECV(&w.br[1], 0, 0, 10);
	world_finish(&w);
	cfg_default(&cfg);
	memset(&rc, 0, sizeof rc);
	cfg.hooks.ctx = &rc;
	cfg.hooks.event = on_ev;
	cfg.hooks.message = on_msg;
	en = ir_engine_new(&w.s, &cfg, &e);
	ok(en != NULL, "engine for a ping");
	is_u64(ir_engine_run(en, &e), 0, "ping runs to the end");
	is_u64(ir_engine_rank_end(en, 0), 1500, "sender ends after o");
	is_u64(ir_engine_rank_end(en, 1), 5554, "receiver ends at o+L+o+9G");
	is_u64(ir_engine_get_stats(en)->events, 3, "events: 2 ops + 1 message");
	is_str(rc.log, "send@0/r0 recv@0/r1 msg@4000/r1 ", "event order and times");
	is_u64(rc.nmsg, 1, "one message record");
	ok(rc.last.inject == 0 && rc.last.arrive == 4000 && rc.last.matched == 4000 && rc.last.size == 10 &&
	       rc.last.src == 0 && rc.last.dst == 1 && rc.last.recv_op == 0 && rc.last.send_op == 0,
	   "message record fields");
	ok(ir_engine_run(en, &e) == -1 && strstr(e.msg, "already run"), "a second run is refused");
	ir_engine_free(en);

	/* 2. The network interface: a network that delivers 7 ps after injection
	 * through a callback, and models the bytes itself (receiver: o + s1*O only).
	 * Send at 0 -> callback at 7 -> delivered at 7 -> charged 7 + o = 1507. */
	cfg_default(&cfg);
	{
		static const uint64_t delay = 7;
		cfg.net = &test_net;
		cfg.net_arg = &delay;
		memset(&rc, 0, sizeof rc);
		cfg.hooks.ctx = &rc;
		cfg.hooks.event = on_ev;
		en = ir_engine_new(&w.s, &cfg, &e);
		is_u64(ir_engine_run(en, &e), 0, "custom network runs");
		is_u64(ir_engine_rank_end(en, 1), 1507, "arrival from the network's callback; no G at the receiver");
		is_u64(ir_engine_get_stats(en)->net_calls, 1, "one network callback");
		is_str(rc.log, "send@0/r0 recv@0/r1 net@7/r0 msg@7/r1 ", "callback interleaved by time");
		ir_engine_free(en);
	}

	/* 3. Callbacks and engine events at equal times run in queue order. With
	 * delay 0 everything happens at time 0: the send and the receive were
	 * queued at the start (numbers 0 and 1), the callback during the send (2),
	 * the message during the callback (3). */
	{
		static const uint64_t delay = 0;
		cfg.net_arg = &delay;
		memset(&rc, 0, sizeof rc);
		en = ir_engine_new(&w.s, &cfg, &e);
		is_u64(ir_engine_run(en, &e), 0, "zero-delay network runs");
		is_str(rc.log, "send@0/r0 recv@0/r1 net@0/r0 msg@0/r1 ", "equal times: queue order");
		is_u64(ir_engine_rank_end(en, 1), 1500, "receiver charged o at time 0");
		ir_engine_free(en);
	}

	/* 4. A network delivering in the past is an error, not a wrong answer. */
	{
		static const uint64_t delay = 0;
		world_init(&w, 2);
		CALC(&w.br[0], 100, 0);
		SEND(&w.br[0], 1, 0, 10);
		dep(&w.br[0], 1, 0, 0);
		RECV(&w.br[1], 0, 0, 10);
		world_finish(&w);
		cfg.net_arg = &delay;
		cfg.hooks.event = NULL;
		tn.early = 1;
		en = ir_engine_new(&w.s, &cfg, &e);
		ok(ir_engine_run(en, &e) == -1 && strstr(e.msg, "before the current time"),
		   "delivery before now is refused: %s", e.msg);
		ir_engine_free(en);
		tn.early = 0;
	}

	/* 5. A failing hook stops the run with its message. */
	cfg_default(&cfg);
	cfg.hooks.event = on_ev_fail;
	en = ir_engine_new(&w.s, &cfg, &e);
	ok(ir_engine_run(en, &e) == -1 && strcmp(e.msg, "hook says no") == 0, "hook error stops the run");
	ir_engine_free(en);

	/* 6. Several CPUs: a calc on cpu 1 requiring a calc 1000 on cpu 0 starts at
	 * 1000 (cpu 1 is free at 0, but its predecessor ends at 1000): ends 1010.
	 * A calc on cpu 1 that irequires it may start at 0: ends at 0+5, and the
	 * second cpu-1 calc then waits for it, so: cpu 1 runs [0,5) then [1000,1010). */
	world_init(&w, 1);
	CALC(&w.br[0], 1000, 0);
	CALC(&w.br[0], 10, 1);
	CALC(&w.br[0], 5, 1);
	dep(&w.br[0], 1, 0, 0);
	dep(&w.br[0], 2, 0, 1);
	world_finish(&w);
	cfg_default(&cfg);
	memset(&rc, 0, sizeof rc);
	cfg.hooks.ctx = &rc;
	cfg.hooks.event = on_ev;
	en = ir_engine_new(&w.s, &cfg, &e);
	is_u64(ir_engine_run(en, &e), 0, "two CPUs run");
	is_u64(ir_engine_rank_end(en, 0), 1010, "cross-CPU requires waits for completion");
	is_str(rc.log, "calc@0/r0 calc@0/r0 calc@1000/r0 ", "irequires starts with its predecessor");
	is_u64(ir_engine_rank_calc(en, 0), 1015, "calc_ps sums durations");
	ir_engine_free(en);

	/* 7. Time beyond 2^64 ps is an error. */
	world_init(&w, 1);
	CALC(&w.br[0], UINT64_MAX - 5, 0);
	CALC(&w.br[0], 10, 0);
	dep(&w.br[0], 1, 0, 0);
	world_finish(&w);
	cfg_default(&cfg);
	en = ir_engine_new(&w.s, &cfg, &e);
	ok(ir_engine_run(en, &e) == -1 && strstr(e.msg, "exceeds 2^64"), "time overflow detected: %s", e.msg);
	ir_engine_free(en);

	/* 8. Deadlock report on an index-named schedule: rank 0 waits for tag 1
	 * and has a calc that requires that receive; rank 1 sends tag 2 (eager, so
	 * rank 1 itself is done). */
	world_init(&w, 2);
	RECV(&w.br[0], 1, 1, 8);
	CALC(&w.br[0], 5, 0);
	dep(&w.br[0], 1, 0, 0);
	SEND(&w.br[1], 0, 2, 8);
	world_finish(&w);
	cfg_default(&cfg);
	en = ir_engine_new(&w.s, &cfg, &e);
	is_u64(ir_engine_run(en, &e), 1, "deadlock is reported as 1");
	{
		ir_sb sb = IR_SB_INIT;
		ok(ir_engine_deadlock(en, &sb, 10) == 0, "report built");
		is_str(sb.buf,
		       "deadlock: 1 of 2 ranks cannot finish (1 of 3 ops done)\n"
		       "rank 0: recv #0 (8 bytes from 1 tag 1) is posted; no message matches it\n"
		       "rank 0: message from 1 tag 2 (8 bytes, send #0 on rank 1) arrived; no receive matches it\n"
		       "rank 0: calc #1 never became ready: it waits for recv #0, which never completed\n",
		       "report text");
		ir_sb_release(&sb);
	}
	ir_engine_free(en);

	/* 9. Only unexpected messages left (every op done) is still a deadlock. */
	world_init(&w, 2);
	SEND(&w.br[0], 1, 0, 8);
	world_finish(&w);
	en = ir_engine_new(&w.s, &cfg, &e);
	is_u64(ir_engine_run(en, &e), 1, "an unreceived eager message fails the run");
	ir_engine_free(en);

	/* 11. Rendezvous handshake, early receive (RQ path). Rank 0 sends 100000
	 * bytes (rendezvous: cpu 1500) and has c (calc 10) requiring the send;
	 * rank 1 posts r at 0 and has d (calc 1) requiring r. The request
	 * arrives at 10 and is charged o = 1500 (the network models the bytes):
	 * cpu busy to 1510; it matches r at 10; the data arrives at 10 + 5000.
	 * Then both complete: rank 1's cpu is held to 5010, d runs [5010,5011);
	 * rank 0's to 5010, c runs [5010,5020), queued first (lower rank). */
	{
		static const uint64_t delay = 5000;
		world_init(&w, 2);
		SEND(&w.br[0], 1, 0, 100000);
		CALC(&w.br[0], 10, 0);
		dep(&w.br[0], 1, 0, 0);
		RECV(&w.br[1], 0, 0, 100000);
		CALC(&w.br[1], 1, 0);
		dep(&w.br[1], 1, 0, 0);
		world_finish(&w);
		cfg_default(&cfg);
		cfg.net = &hs_net;
		cfg.net_arg = &delay;
		memset(&rc, 0, sizeof rc);
		cfg.hooks.ctx = &rc;
		cfg.hooks.event = on_ev;
		cfg.hooks.message = on_msg;
		en = ir_engine_new(&w.s, &cfg, &e);
		is_u64(ir_engine_run(en, &e), 0, "handshake: runs");
		is_str(rc.log, "send@0/r0 recv@0/r1 msg@10/r1 data@5010/r1 calc@5010/r0 calc@5010/r1 ",
		       "handshake: completion when the data arrives");
		is_u64(ir_engine_rank_end(en, 0), 5020, "handshake: sender held until the data arrived");
		is_u64(ir_engine_rank_end(en, 1), 5011, "handshake: receiver held until the data arrived");
		ok(rc.nmsg == 1 && rc.last.arrive == 5010 && rc.last.matched == 10, "handshake: message record (arrival of the data)");
		is_u64(ir_engine_get_stats(en)->held, 0, "handshake: nothing held at the end");
		ir_engine_free(en);

		/* Late receive (UQ path): rank 1 first runs x (calc 3000) and posts
		 * r after it. The request (10) waits for the cpu, is charged
		 * [3000,4500) as unexpected (its number is older than r's); r is
		 * posted at 3000 and matches; data at 8000: d [8000,8001), c
		 * [8000,8010). */
		world_init(&w, 2);
		SEND(&w.br[0], 1, 0, 100000);
		CALC(&w.br[0], 10, 0);
		dep(&w.br[0], 1, 0, 0);
		CALC(&w.br[1], 3000, 0);
		RECV(&w.br[1], 0, 0, 100000);
		CALC(&w.br[1], 1, 0);
		dep(&w.br[1], 1, 0, 0);
		dep(&w.br[1], 2, 1, 0);
		world_finish(&w);
		memset(&rc, 0, sizeof rc);
		en = ir_engine_new(&w.s, &cfg, &e);
		is_u64(ir_engine_run(en, &e), 0, "handshake, late receive: runs");
		is_str(rc.log,
		       "send@0/r0 calc@0/r1 back@10/r1 msg@3000/r1 recv@3000/r1 data@8000/r1 calc@8000/r0 calc@8000/r1 ",
		       "handshake, late receive: events");
		is_u64(ir_engine_rank_end(en, 0), 8010, "handshake, late receive: sender");
		is_u64(ir_engine_rank_end(en, 1), 8001, "handshake, late receive: receiver");
		ir_engine_free(en);

		/* An eager message on a handshake network arrives whole. */
		world_init(&w, 2);
		SEND(&w.br[0], 1, 0, 10);
		RECV(&w.br[1], 0, 0, 10);
		world_finish(&w);
		en = ir_engine_new(&w.s, &cfg, &e);
		is_u64(ir_engine_run(en, &e), 0, "handshake network, eager message");
		is_u64(ir_engine_rank_end(en, 1), 1510, "eager: charged at arrival, done at once");
		ir_engine_free(en);

		/* Contract violations are errors. */
		world_init(&w, 2);
		SEND(&w.br[0], 1, 0, 100000);
		RECV(&w.br[1], 0, 0, 100000);
		world_finish(&w);
		cfg.hooks.event = NULL;
		cfg.hooks.message = NULL;
		tn.early = 1;
		en = ir_engine_new(&w.s, &cfg, &e);
		ok(ir_engine_run(en, &e) == -1 && strstr(e.msg, "not a matched rendezvous message"),
		   "completing twice is refused: %s", e.msg);
		ir_engine_free(en);
		tn.early = 2;
		en = ir_engine_new(&w.s, &cfg, &e);
		ok(ir_engine_run(en, &e) == -1 && strstr(e.msg, "handle 999"), "a bad handle is refused: %s", e.msg);
		ir_engine_free(en);
		tn.early = 0;

		/* A network that never completes: the run cannot finish. */
		{
			static const ir_net_ops lazy = { "lazy", IR_NET_MODELS_BYTES | IR_NET_RNDV_HANDSHAKE, tn_init,
				                         hs_inject, tn_wakeup, tn_free, NULL, NULL, NULL, NULL, NULL };
			static ir_net_ops lazy_matched;
			ir_sb sb = IR_SB_INIT;
			lazy_matched = lazy;
			cfg.net = &lazy;
			en = ir_engine_new(&w.s, &cfg, &e);
			ok(ir_engine_run(en, &e) == -1 && strstr(e.msg, "has no matched()"),
			   "a handshake network without matched() is refused: %s", e.msg);
			ir_engine_free(en);
			lazy_matched.matched = hs_forget;
			cfg.net = &lazy_matched;
			en = ir_engine_new(&w.s, &cfg, &e);
			is_u64(ir_engine_run(en, &e), 1, "data never completed: the run cannot finish");
			ok(ir_engine_deadlock(en, &sb, 10) == 0 &&
			       strstr(sb.buf, "1 rendezvous messages matched but the network never completed their data\n"),
			   "the report says so");
			ir_engine_free(en);
			ir_sb_release(&sb);
		}
	}

	/* 10. Bad parameters of a schedule are refused when the engine is built. */
	world_init(&w, 1);
	CALC(&w.br[0], 1, 0);
	world_finish(&w);
	w.rk[0].ncpus = 300;
	en = ir_engine_new(&w.s, &cfg, &e);
	ok(en == NULL && strstr(e.msg, "at most 256"), "too many CPUs refused: %s", e.msg);
	return tap_done();
}
