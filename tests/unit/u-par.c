/*
 * u-par.c: the parallel engine's library side (lib/ir_par.c) without MPI: the
 * partitioner (blocks, shares, rendezvous partners and shared hosts kept together,
 * the cut and the lookahead against a count by hand), and partitioned engines driven
 * in one process by the window rule of ir_par_go, whose per-rank results must be the
 * sequential engine's exactly. tests/t3030-ibsim-mpi.sh runs the same over MPI. Also the
 * engine's side of a network that carries messages between processes itself
 * (ir_engine_new_key, _call_at_key, _export, _adopt, the send's completion sent back).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir_engine.h"
#include "ir_goal.h"
#include "ir_net.h"
#include "ir_par.h"
#include "ir_strbuf.h"
#include "tap.h"

static char path[64];

/* A schedule of n ranks: each of `rounds` rounds, rank r sends to r+1 and r+k (sizes from
 * the seed; when big is not 0, some of big + 1 bytes) and receives from r-1 and r-k, then computes for a while. */
static ir_sched *make(uint32_t n, uint32_t rounds, uint32_t k, unsigned seed, uint64_t big)
{
	ir_sb sb = IR_SB_INIT;
	ir_sched *s = NULL;
	ir_err e;
	FILE *f;
	ir_sb_addf(&sb, "num_ranks %u\n", n);
	for (uint32_t r = 0; r < n; r++) {
		ir_sb_addf(&sb, "rank %u {\n", r);
		for (uint32_t i = 0; i < rounds; i++) {
			unsigned x = seed * 2654435761u ^ (r * 40503u + i * 977u);
			uint64_t s1 = 1 + x % 300, s2 = big && (x >> 8) % 7 == 0 ? big + 1 : 8 + (x >> 4) % 50;
			uint32_t a = (r + 1) % n, b = (r + k) % n, pa = (r + n - 1) % n, pb = (r + n - k) % n;
			/* the sizes a rank receives are its senders' */
			unsigned xa = seed * 2654435761u ^ (pa * 40503u + i * 977u);
			unsigned xb = seed * 2654435761u ^ (pb * 40503u + i * 977u);
			uint64_t ra = 1 + xa % 300, rb = big && (xb >> 8) % 7 == 0 ? big + 1 : 8 + (xb >> 4) % 50;
			ir_sb_addf(&sb, "s%u: send %llub to %u tag %u\n", i, (unsigned long long)s1, a, i);
			ir_sb_addf(&sb, "t%u: send %llub to %u tag %u\n", i, (unsigned long long)s2, b, 1000 + i);
			ir_sb_addf(&sb, "r%u: recv %llub from %u tag %u\n", i, (unsigned long long)ra, pa, i);
			ir_sb_addf(&sb, "q%u: recv %llub from %u tag %u\n", i, (unsigned long long)rb, pb, 1000 + i);
			ir_sb_addf(&sb, "c%u: calc %u\n", i, 100 + (x >> 3) % 5000);
			ir_sb_addf(&sb, "c%u requires r%u\nc%u requires q%u\n", i, i, i, i);
			if (i)
				ir_sb_addf(&sb, "s%u requires c%u\nt%u requires c%u\nr%u requires c%u\nq%u requires c%u\n", i,
				           i - 1, i, i - 1, i, i - 1, i, i - 1);
		}
		ir_sb_addf(&sb, "}\n");
	}
	f = fopen(path, "w");
	if (!f || fwrite(sb.buf, 1, sb.len, f) != sb.len || fclose(f)) {
		ir_sb_release(&sb);
		return NULL;
	}
	ir_sb_release(&sb);
	if (ir_sched_load(&s, path, IR_SCHED_COMPACT, &e)) {
		fprintf(stderr, "# %s\n", e.msg);
		return NULL;
	}
	return s;
}

/* ---- partitioned engines in one process ---- */

typedef struct box {
	ir_engine_rmsg v[1 << 14];
	size_t n;
} box;

static box inbox[4];
static const ir_par_plan *cur_plan;
static uint64_t n_sfin; /* completions of sends sent back to the sender's process */

static int to_box(void *ctx, const ir_engine_rmsg *m, ir_err *e)
{
	box *b = &inbox[cur_plan->owner[m->kind == IR_RMSG_SFIN ? m->src : m->dst]];
	n_sfin += m->kind == IR_RMSG_SFIN;
	(void)ctx;
	if (b->n == sizeof b->v / sizeof b->v[0])
		return ir_errf(e, "test inbox full");
	b->v[b->n++] = *m;
	return 0;
}

/* ir_par_go's window rule over P started engines in one process: deliver what the last
 * window sent (the inboxes, then `between` for each process, when not NULL), find the
 * earliest item anywhere, advance every engine to it plus the lookahead; then finish each.
 * 0, 1 (some process cannot finish: its report on stderr) or -1 (e set). */
static int run_windows(ir_engine **en, uint32_t P, uint64_t lookahead, int (*between)(uint32_t q, ir_err *e),
                       uint64_t *windows, ir_err *e)
{
	int bad = 0;
	*windows = 0;
	for (;;) {
		uint64_t t = UINT64_MAX;
		for (uint32_t q = 0; q < P; q++) {
			box cp = inbox[q];
			inbox[q].n = 0;
			for (size_t i = 0; i < cp.n; i++)
				if (ir_engine_put_remote(en[q], &cp.v[i], e))
					return -1;
			if (between && between(q, e))
				return -1;
		}
		for (uint32_t q = 0; q < P; q++)
			if (ir_engine_next_time(en[q]) < t)
				t = ir_engine_next_time(en[q]);
		if (t == UINT64_MAX)
			break;
		++*windows;
		for (uint32_t q = 0; q < P; q++)
			if (ir_engine_advance(en[q], t + lookahead, lookahead == UINT64_MAX, e))
				return -1;
	}
	for (uint32_t q = 0; q < P; q++)
		if (ir_engine_finish(en[q]) != 0) {
			ir_sb rep = IR_SB_INIT;
			ir_engine_deadlock(en[q], &rep, 4);
			fprintf(stderr, "# process %u cannot finish: %s", q, rep.buf ? rep.buf : "");
			ir_sb_release(&rep);
			bad = 1;
		}
	return bad;
}

/* 1 unless every rank's results on its process's engine (owner[]) are the whole run's (seq). */
static int ranks_differ(const ir_sched *s, ir_engine **en, const uint32_t *owner, ir_engine *seq)
{
	int bad = 0;
	for (uint32_t r = 0; r < s->nranks; r++) {
		ir_engine *o = en[owner[r]];
		if (ir_engine_rank_end(o, r) != ir_engine_rank_end(seq, r) ||
		    ir_engine_rank_calc(o, r) != ir_engine_rank_calc(seq, r) ||
		    ir_engine_rank_msgs(o, r) != ir_engine_rank_msgs(seq, r) ||
		    ir_engine_rank_bytes(o, r) != ir_engine_rank_bytes(seq, r)) {
			fprintf(stderr, "# rank %u: end %llu, whole run %llu\n", r, (unsigned long long)ir_engine_rank_end(o, r),
			        (unsigned long long)ir_engine_rank_end(seq, r));
			bad = 1;
		}
	}
	return bad;
}

/* Run s on P engines by ir_par_go's rule; compare every rank's results with one engine's. */
static int same_as_seq(ir_sched *s, const ir_par_plan *pl, uint64_t *windows)
{
	ir_engine_cfg cfg;
	ir_engine *seq, *en[4];
	ir_engine_part part[4];
	ir_err e;
	int bad;
	uint32_t P = pl->nprocs;
	memset(&cfg, 0, sizeof cfg);
	ir_loggops_defaults(&cfg.p);
	seq = ir_engine_new(s, &cfg, &e);
	if (!seq || ir_engine_run(seq, &e) != 0)
		return -1;
	cur_plan = pl;
	for (uint32_t q = 0; q < P; q++) {
		part[q].owner = pl->owner;
		part[q].me = q;
		part[q].remote = to_box;
		part[q].ctx = NULL;
		cfg.part = &part[q];
		inbox[q].n = 0;
		if (!(en[q] = ir_engine_new(s, &cfg, &e)))
			return -1;
	}
	for (uint32_t q = 0; q < P; q++)
		if (ir_engine_start(en[q], &e))
			return -1;
	bad = run_windows(en, P, pl->lookahead, NULL, windows, &e);
	if (bad < 0) {
		fprintf(stderr, "# %s\n", e.msg);
		return -1;
	}
	bad |= ranks_differ(s, en, pl->owner, seq);
	for (uint32_t q = 0; q < P; q++)
		ir_engine_free(en[q]);
	ir_engine_free(seq);
	return bad;
}

/* ---- a network that carries its messages between processes itself (docs/design.md §9,
 * "The engine's side of it"): a request-to-send or an eager message arrives XL after its
 * send; XD after a rendezvous match the data is in, and its send completes XL later (the
 * acknowledgement). Each process has its own instance; a message to a rank of another
 * process is exported with its key and adopted there. ---- */

#define XL 2000
#define XD 7000
enum { X_ARRIVE = 0, X_DATA = 1 };

typedef struct xitem {
	uint64_t t;
	ir_engine_key k;
	ir_engine_rmsg rm;
} xitem;
static struct {
	xitem v[1 << 12];
	size_t n;
} xbox[4];

typedef struct xnet {
	ir_engine *en;
	const uint32_t *owner; /* NULL: a whole run */
	uint32_t me, nranks;
	uint32_t dst[1 << 16];  /* per engine handle: the destination rank (the maker of its items) */
} xnet;
static xnet xn[5];
static int xn_next;

static int xn_init(void **st, ir_engine *en, uint32_t nranks, const ir_loggops *p, const void *arg, ir_err *e)
{
	xnet *n = &xn[xn_next];
	(void)p;
	(void)arg;
	(void)e;
	n->en = en;
	n->nranks = nranks;
	*st = n;
	return 0;
}
static int xn_inject(void *st, uint32_t msg, const ir_net_msg *m, uint64_t t, ir_err *e)
{
	xnet *n = st;
	xitem *it;
	if (msg >= 1 << 16)
		return ir_errf(e, "test: handle %u", msg);
	n->dst[msg] = m->dst;
	if (!n->owner || n->owner[m->dst] == n->me)
		return ir_engine_call_at(n->en, t + XL, (uint64_t)X_ARRIVE << 32 | msg, e);
	if (xbox[n->owner[m->dst]].n == 1 << 12)
		return ir_errf(e, "test: box full");
	it = &xbox[n->owner[m->dst]].v[xbox[n->owner[m->dst]].n++];
	it->t = t + XL;
	return ir_engine_new_key(n->en, &it->k, e) || ir_engine_export(n->en, msg, &it->rm, e);
}
static int xn_wakeup(void *st, uint64_t t, uint64_t cookie, ir_err *e)
{
	xnet *n = st;
	uint32_t h = (uint32_t)cookie;
	if (cookie >> 32 == X_ARRIVE)
		return ir_engine_deliver(n->en, h, t, e);
	return ir_engine_complete_at(n->en, h, t, t + XL, e);
}
static int xn_matched(void *st, uint32_t msg, uint64_t t, ir_err *e)
{
	xnet *n = st;
	return ir_engine_call_at(n->en, t + XD, (uint64_t)X_DATA << 32 | msg, e);
}
static uint32_t xn_nmakers(const void *st) { return ((const xnet *)st)->nranks; }
static uint32_t xn_maker(const void *st, uint64_t cookie) { return ((const xnet *)st)->dst[(uint32_t)cookie]; }
static void xn_free(void *st) { (void)st; }

static const ir_net_ops xnet_ops = { "carrier", IR_NET_RNDV_HANDSHAKE, xn_init, xn_inject, xn_wakeup, xn_free,
	                             xn_matched, NULL, xn_nmakers, xn_maker, NULL };

/* Between windows: process q adopts the messages the network carried to it and queues their
 * arrival with the keys their senders made. */
static ir_engine *xen[4];
static uint64_t xcarried;
static int xn_between(uint32_t q, ir_err *e)
{
	for (size_t i = 0; i < xbox[q].n; i++) {
		xitem *it = &xbox[q].v[i];
		uint32_t h;
		if (ir_engine_adopt(xen[q], &it->rm, &h, e))
			return -1;
		xn[q].dst[h] = it->rm.dst;
		if (ir_engine_call_at_key(xen[q], it->t, (uint64_t)X_ARRIVE << 32 | h, &it->k, e))
			return -1;
	}
	xcarried += xbox[q].n;
	xbox[q].n = 0;
	return 0;
}

/* s over P engines of owner[], the network carrying the messages between them (windows of
 * XL), against one engine with the same network and ties by key: 0 when every rank's
 * results agree. */
static int carried_same(ir_sched *s, const uint32_t *owner, uint32_t P, uint64_t *windows, uint64_t *carried)
{
	static ir_par_plan fake;
	ir_engine_cfg cfg;
	ir_engine *seq;
	ir_engine_part part[4];
	ir_err e;
	int bad;
	memset(&cfg, 0, sizeof cfg);
	ir_loggops_defaults(&cfg.p);
	cfg.net = &xnet_ops;
	cfg.ties = IR_TIES_KEY;
	xn_next = 4;
	memset(&xn[4], 0, sizeof xn[4]);
	seq = ir_engine_new(s, &cfg, &e);
	if (!seq || ir_engine_run(seq, &e) != 0) {
		fprintf(stderr, "# %s\n", e.msg);
		return -1;
	}
	fake.owner = (uint32_t *)owner;
	cur_plan = &fake;
	for (uint32_t q = 0; q < P; q++) /* before any engine starts: a start sends already */
		inbox[q].n = xbox[q].n = 0;
	for (uint32_t q = 0; q < P; q++) {
		part[q].owner = owner;
		part[q].me = q;
		part[q].remote = to_box;
		part[q].ctx = NULL;
		cfg.part = &part[q];
		memset(&xn[q], 0, sizeof xn[q]);
		xn[q].owner = owner;
		xn[q].me = q;
		xn_next = (int)q;
		if (!(xen[q] = ir_engine_new(s, &cfg, &e)) || ir_engine_start(xen[q], &e))
			return -1;
	}
	xcarried = 0;
	bad = run_windows(xen, P, XL, xn_between, windows, &e);
	*carried = xcarried;
	if (bad < 0) {
		fprintf(stderr, "# %s\n", e.msg);
		return -1;
	}
	bad |= ranks_differ(s, xen, owner, seq);
	for (uint32_t q = 0; q < P; q++)
		ir_engine_free(xen[q]);
	ir_engine_free(seq);
	return bad;
}

int main(void)
{
	ir_loggops p;
	ir_par_plan pl;
	ir_err e;
	ir_sched *s;
	double w[3];
	int fd;
	snprintf(path, sizeof path, "/tmp/u-par.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	ir_loggops_defaults(&p);

	/* blocks, the cut and the lookahead */
	s = make(12, 3, 5, 1, 0);
	ok(s != NULL, "schedule of 12 ranks");
	if (!s)
		return tap_done();
	ok(ir_par_plan_make(&pl, s, &p, 3, IR_PAR_BLOCK, NULL, 0, &e) == 0, "3 processes");
	is_u64(pl.ranks[0], 4, "equal blocks: 4 ranks each");
	ok(pl.owner[0] == 0 && pl.owner[4] == 1 && pl.owner[11] == 2, "blocks of consecutive ranks (%u %u %u)", pl.owner[0], pl.owner[4], pl.owner[11]);
	{
		/* by hand: rank r sends to r+1 and r+5 in each of 3 rounds */
		uint64_t cut = 0;
		for (uint32_t r = 0; r < 12; r++)
			cut += 3 * ((r + 1) % 12 / 4 != r / 4) + 3 * ((r + 5) % 12 / 4 != r / 4);
		is_u64(pl.cut_msgs, cut, "the cut counts messages between blocks");
		is_u64(pl.msgs, 72, "72 messages in all");
		is_u64(pl.lookahead, p.o + p.L, "lookahead o + L");
	}
	{
		uint64_t win = 0;
		ok(same_as_seq(s, &pl, &win) == 0, "3 partitions: results of the sequential engine");
		ok(win > 1, "in several windows (%llu)", (unsigned long long)win);
	}
	ir_par_plan_release(&pl);
	w[0] = 1;
	w[1] = 2;
	ok(ir_par_plan_make(&pl, s, &p, 2, IR_PAR_BLOCK, w, 0, &e) == 0 && pl.ranks[0] == 4 && pl.ranks[1] == 8,
	   "shares 1,2: 4 and 8 ranks");
	{
		uint64_t win = 0;
		ok(same_as_seq(s, &pl, &win) == 0, "uneven partition: results of the sequential engine");
	}
	ir_par_plan_release(&pl);
	ok(ir_par_plan_make(&pl, s, &p, 3, IR_PAR_BLOCK, NULL, 4, &e) == 0 && pl.groups == 3 && pl.owner[3] == 0 &&
	       pl.owner[4] == 1,
	   "hosts of 4 ranks stay together (%u sets, %u %u) %s", pl.groups, pl.owner ? pl.owner[3] : 9, pl.owner ? pl.owner[4] : 9, e.msg);
	ir_par_plan_release(&pl);
	ok(ir_par_plan_make(&pl, s, &p, 13, IR_PAR_BLOCK, NULL, 0, &e) == -1 && strstr(e.msg, "13 processes for 12 ranks"),
	   "more processes than ranks: %s", e.msg);
	ir_sched_free(s);

	/* rendezvous partners */
	s = make(10, 2, 3, 7, 1000);
	ok(s != NULL, "schedule with rendezvous messages");
	if (s) {
		uint64_t win = 0;
		ok(ir_par_plan_make(&pl, s, &p, 2, IR_PAR_BLOCK, NULL, 0, &e) == 0 || strstr(e.msg, "sets"),
		   "rendezvous: a plan or the reason");
		if (pl.owner) {
			int split = 0;
			for (uint32_t r = 0; r < 10; r++)
				for (uint32_t g = s->compact->base[r]; g < s->compact->base[r] + s->rank[r].nops; g++) {
					ir_dop o;
					ir_csched_op(s->compact, r, g, &o);
					if (o.type == IR_OP_SEND && o.size > p.S && pl.owner[o.peer] != pl.owner[r])
						split = 1;
				}
			ok(!split, "no rendezvous message between processes");
			ok(same_as_seq(s, &pl, &win) == 0, "with rendezvous: results of the sequential engine");
			ir_par_plan_release(&pl);
		}
		ir_sched_free(s);
	}
	for (unsigned seed = 2; seed < 8; seed++) {
		uint64_t win = 0;
		s = make(9 + seed, 4, seed, seed, seed % 2 ? 0 : 70000);
		if (!s || ir_par_plan_make(&pl, s, &p, 2 + seed % 3, IR_PAR_BLOCK, NULL, 0, &e)) {
			ok(0, "seed %u: %s", seed, e.msg);
			continue;
		}
		ok(same_as_seq(s, &pl, &win) == 0, "seed %u, %u ranks, %u processes: sequential results", seed, 9 + seed,
		   2 + seed % 3);
		ir_par_plan_release(&pl);
		ir_sched_free(s);
	}

	/* a network that carries messages, rendezvous ones too, between the processes */
	for (unsigned seed = 1; seed < 5; seed++) {
		uint32_t owner[16], n = 8 + seed, P = 2 + seed % 3;
		uint64_t win = 0, car = 0;
		s = make(n, 3, 1 + seed, seed, 70000);
		if (!s) {
			ok(0, "carried, seed %u: schedule", seed);
			continue;
		}
		for (uint32_t r = 0; r < n; r++)
			owner[r] = r * P / n;
		int rc;
		n_sfin = 0;
		rc = carried_same(s, owner, P, &win, &car);
		ok(rc == 0 && car > 0 && n_sfin > 0 && win > 1,
		   "carried by the network, seed %u, %u ranks, %u processes: the whole run's results (%llu messages "
		   "carried, %llu rendezvous sends completed from another process, %llu windows)",
		   seed, n, P, (unsigned long long)car, (unsigned long long)n_sfin, (unsigned long long)win);
		ir_sched_free(s);
	}

	/* --weights */
	ok(ir_par_weights("1,2.5,3", 3, w, &e) == 0 && w[1] == 2.5, "weights parse");
	ok(ir_par_weights("1,2", 3, w, &e) == -1, "too few weights");
	ok(ir_par_weights("1,0,3", 3, w, &e) == -1, "a zero share");
	ok(ir_par_weights("1,2,3,", 3, w, &e) == -1, "trailing comma");
	ok(ir_par_weights("1,x,3", 3, w, &e) == -1, "not a number");
	unlink(path);
	return tap_done();
}
