/*
 * ir_tsync.c: the dataflow of zero-cost times behind trace2goal --sync (see
 * ir_tsync.h for what it computes and why).
 *
 * Nodes sit in one growable array addressed by handle (index + 1), with a
 * free list, so there is no malloc per node; a node keeps up to two waiting
 * dependents inline and spills to a heap array beyond. Channels are an
 * open-addressing table keyed by (source << 32 | destination, tag) with
 * backward-shift deletion; a channel holds a queue of unmatched sends or of
 * unmatched receives (never both: a new arrival of the other kind matches the
 * head), and is deleted when its queue empties, keeping its queue's memory on
 * a free list for the next channel.
 */
#include "ir_tsync.h"

#include <stdlib.h>
#include <string.h>

typedef struct tnode {
	int64_t t;
	int64_t add;      /* added to the max of floor and inputs when the node resolves */
	uint32_t pending; /* open holds + unresolved inputs; free list link when free */
	uint32_t refs;
	uint32_t ndep, capdep;
	uint32_t *dep;    /* dependents beyond the inline two */
	uint32_t inl[2];
	uint64_t u0, u1;
	uint8_t done, notify, alive;
} tnode;

typedef struct tent {
	ir_tn post, done;
	int64_t d_arr, d_done, d_rpost; /* a send's delays (ir_ts_send_cost); 0 for receives */
} tent;

typedef struct tchan {
	uint64_t k1;
	int64_t k2;
	tent *e;
	size_t head, n, cap;
	int is_send;
	uint32_t next_free;
} tchan;

struct ir_ts {
	tnode *nd;
	size_t nnodes, capnodes;
	uint32_t free_node;
	uint64_t live;
	ir_ts_done_fn fn;
	void *ctx;
	uint32_t *stack;
	size_t nstack, capstack;
	/* channels */
	tchan *ch;
	size_t nch, capch;
	uint32_t free_ch;
	uint32_t *tab; /* channel index + 1, 0 = empty */
	size_t tabcap, tabn;
	int oom;
};

#define ND(s, h) ((s)->nd[(h) - 1])

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

ir_ts *ir_ts_new(ir_ts_done_fn fn, void *ctx)
{
	ir_ts *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->fn = fn;
	s->ctx = ctx;
	return s;
}

void ir_ts_free(ir_ts *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nnodes; i++)
		free(s->nd[i].dep);
	for (size_t i = 0; i < s->nch; i++)
		free(s->ch[i].e);
	free(s->nd);
	free(s->stack);
	free(s->ch);
	free(s->tab);
	free(s);
}

ir_tn ir_ts_node(ir_ts *s, int64_t floor)
{
	ir_tn h;
	tnode *n;
	if (s->free_node) {
		h = s->free_node;
		s->free_node = ND(s, h).pending;
	} else {
		if (s->nnodes == s->capnodes) {
			size_t nc = s->capnodes ? s->capnodes * 2 : 256;
			tnode *nn;
			if (nc > UINT32_MAX - 1)
				return 0;
			nn = realloc(s->nd, nc * sizeof *nn);
			if (!nn) {
				s->oom = 1;
				return 0;
			}
			s->nd = nn;
			s->capnodes = nc;
		}
		h = (ir_tn)++s->nnodes;
		ND(s, h).dep = NULL;
		ND(s, h).capdep = 0;
	}
	n = &ND(s, h);
	n->t = floor;
	n->add = 0;
	n->pending = 1;
	n->refs = 1;
	n->ndep = 0;
	n->u0 = n->u1 = 0;
	n->done = n->notify = 0;
	n->alive = 1;
	s->live++;
	return h;
}

void ir_ts_ref(ir_ts *s, ir_tn h)
{
	if (h)
		ND(s, h).refs++;
}

void ir_ts_unref(ir_ts *s, ir_tn h)
{
	tnode *n;
	if (!h)
		return;
	n = &ND(s, h);
	if (--n->refs)
		return;
	n->alive = 0;
	n->ndep = 0;
	n->pending = s->free_node; /* keeps n->dep's allocation for reuse */
	s->free_node = h;
	s->live--;
}

int ir_ts_resolved(const ir_ts *s, ir_tn h)
{
	return h && ND(s, h).done;
}

int64_t ir_ts_time(const ir_ts *s, ir_tn h)
{
	return h ? ND(s, h).t : 0;
}

static int push(ir_ts *s, ir_tn h)
{
	if (s->nstack == s->capstack) {
		size_t nc = s->capstack ? s->capstack * 2 : 64;
		uint32_t *n = realloc(s->stack, nc * sizeof *n);
		if (!n) {
			s->oom = 1;
			return -1;
		}
		s->stack = n;
		s->capstack = nc;
	}
	s->stack[s->nstack++] = h;
	return 0;
}

/* Resolve everything reachable from the stack. Each stacked handle carries one reference. */
static void run(ir_ts *s)
{
	while (s->nstack) {
		ir_tn h = s->stack[--s->nstack];
		tnode *n = &ND(s, h);
		uint32_t nd = n->ndep;
		int64_t t = n->t + n->add;
		n->t = t;
		n->add = 0;
		n->done = 1;
		if (n->notify && s->fn)
			s->fn(s->ctx, t, n->u0, n->u1);
		n = &ND(s, h);
		for (uint32_t i = 0; i < nd; i++) {
			ir_tn d = i < 2 ? n->inl[i] : n->dep[i - 2];
			tnode *m = &ND(s, d);
			if (t > m->t)
				m->t = t;
			/* the reference the list held moves to the stack, or is dropped */
			if (--m->pending == 0) {
				if (push(s, d))
					ir_ts_unref(s, d);
			} else {
				ir_ts_unref(s, d);
			}
			n = &ND(s, h);
		}
		n->ndep = 0;
		ir_ts_unref(s, h);
	}
}

void ir_ts_hold(ir_ts *s, ir_tn h)
{
	if (h)
		ND(s, h).pending++;
}

void ir_ts_release(ir_ts *s, ir_tn h)
{
	if (!h || ND(s, h).done || ND(s, h).pending == 0)
		return;
	if (--ND(s, h).pending)
		return;
	ND(s, h).refs++;
	if (push(s, h)) {
		ND(s, h).refs--;
		return;
	}
	run(s);
}

int ir_ts_input(ir_ts *s, ir_tn h, ir_tn in)
{
	tnode *i, *n;
	if (!h || !in)
		return 0;
	i = &ND(s, in);
	n = &ND(s, h);
	if (i->done) {
		if (i->t > n->t)
			n->t = i->t;
		return 0;
	}
	if (i->ndep >= 2 && i->ndep - 2 >= i->capdep) {
		uint32_t nc = i->capdep ? i->capdep * 2 : 4;
		uint32_t *d = realloc(i->dep, nc * sizeof *d);
		if (!d) {
			s->oom = 1;
			return -1;
		}
		i->dep = d;
		i->capdep = nc;
	}
	if (i->ndep < 2)
		i->inl[i->ndep] = h;
	else
		i->dep[i->ndep - 2] = h;
	i->ndep++;
	n->refs++;
	n->pending++;
	return 0;
}

void ir_ts_notify(ir_ts *s, ir_tn h, uint64_t u0, uint64_t u1)
{
	tnode *n;
	if (!h)
		return;
	n = &ND(s, h);
	n->notify = 1;
	n->u0 = u0;
	n->u1 = u1;
	if (n->done && s->fn)
		s->fn(s->ctx, n->t, u0, u1);
}

uint64_t ir_ts_live(const ir_ts *s)
{
	return s->live;
}

/* ---- channels ---- */

static size_t slot_of(const ir_ts *s, uint64_t k1, int64_t k2)
{
	return (size_t)(mix(k1 ^ mix((uint64_t)k2 + 0x9E3779B97F4A7C15ULL)) & (s->tabcap - 1));
}

static int tab_grow(ir_ts *s)
{
	size_t nc = s->tabcap ? s->tabcap * 2 : 256;
	uint32_t *t = calloc(nc, sizeof *t), *old = s->tab;
	size_t oc = s->tabcap;
	if (!t)
		return -1;
	s->tab = t;
	s->tabcap = nc;
	for (size_t i = 0; i < oc; i++) {
		size_t j;
		if (!old[i])
			continue;
		j = slot_of(s, s->ch[old[i] - 1].k1, s->ch[old[i] - 1].k2);
		while (t[j])
			j = (j + 1) & (nc - 1);
		t[j] = old[i];
	}
	free(old);
	return 0;
}

/* The channel's table slot, or -1. */
static long tab_find(const ir_ts *s, uint64_t k1, int64_t k2)
{
	if (!s->tabcap)
		return -1;
	for (size_t j = slot_of(s, k1, k2);; j = (j + 1) & (s->tabcap - 1)) {
		const tchan *c;
		if (!s->tab[j])
			return -1;
		c = &s->ch[s->tab[j] - 1];
		if (c->k1 == k1 && c->k2 == k2)
			return (long)j;
	}
}

static void tab_del(ir_ts *s, size_t i)
{
	size_t j = i;
	uint32_t ci = s->tab[i] - 1;
	s->tab[i] = 0;
	s->tabn--;
	s->ch[ci].next_free = s->free_ch;
	s->free_ch = ci + 1;
	for (;;) {
		size_t h;
		j = (j + 1) & (s->tabcap - 1);
		if (!s->tab[j])
			return;
		h = slot_of(s, s->ch[s->tab[j] - 1].k1, s->ch[s->tab[j] - 1].k2);
		if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
			s->tab[i] = s->tab[j];
			s->tab[j] = 0;
			i = j;
		}
	}
}

static tchan *chan_get(ir_ts *s, uint64_t k1, int64_t k2, long *slot)
{
	long j = tab_find(s, k1, k2);
	uint32_t ci;
	size_t k;
	tchan *c;
	if (j >= 0) {
		*slot = j;
		return &s->ch[s->tab[j] - 1];
	}
	if ((s->tabn + 1) * 2 > s->tabcap && tab_grow(s))
		return NULL;
	if (s->free_ch) {
		ci = s->free_ch - 1;
		s->free_ch = s->ch[ci].next_free;
	} else {
		if (s->nch == s->capch) {
			size_t nc = s->capch ? s->capch * 2 : 64;
			tchan *n = realloc(s->ch, nc * sizeof *n);
			if (!n)
				return NULL;
			s->ch = n;
			s->capch = nc;
		}
		ci = (uint32_t)s->nch++;
		s->ch[ci].e = NULL;
		s->ch[ci].cap = 0;
	}
	c = &s->ch[ci];
	c->k1 = k1;
	c->k2 = k2;
	c->head = c->n = 0;
	c->is_send = 0;
	k = slot_of(s, k1, k2);
	while (s->tab[k])
		k = (k + 1) & (s->tabcap - 1);
	s->tab[k] = ci + 1;
	s->tabn++;
	*slot = (long)k;
	return c;
}

static int chan_push(ir_ts *s, tchan *c, ir_tn post, ir_tn done, const int64_t d[3])
{
	if (c->head + c->n == c->cap) {
		if (c->head > 0 && c->head >= c->n) {
			memmove(c->e, c->e + c->head, c->n * sizeof *c->e);
			c->head = 0;
		} else {
			size_t nc = c->cap ? c->cap * 2 : 4;
			tent *n = realloc(c->e, nc * sizeof *n);
			if (!n)
				return -1;
			c->e = n;
			c->cap = nc;
		}
	}
	c->e[c->head + c->n].post = post;
	c->e[c->head + c->n].done = done;
	c->e[c->head + c->n].d_arr = d[0];
	c->e[c->head + c->n].d_done = d[1];
	c->e[c->head + c->n].d_rpost = d[2];
	c->n++;
	ir_ts_ref(s, post);
	ir_ts_ref(s, done);
	return 0;
}

/* n waits for `in`'s time plus d: through a node of its own when d != 0 (whose references
 * are then dropped: n's input holds it), for `in` itself when d == 0. */
static int wait_delayed(ir_ts *s, ir_tn n, ir_tn in, int64_t d)
{
	ir_tn x;
	if (d == 0)
		return ir_ts_input(s, n, in);
	x = ir_ts_node(s, IR_TS_NEVER);
	if (!x)
		return -1;
	ND(s, x).add = d;
	if (ir_ts_input(s, x, in) || ir_ts_input(s, n, x)) {
		ir_ts_unref(s, x);
		return -1;
	}
	ir_ts_release(s, x);
	ir_ts_unref(s, x);
	return 0;
}

/* Match an arrival (post, done, a send's delays d, of kind is_send) with the head of a queue
 * of the other kind, or queue it. */
static int arrive(ir_ts *s, uint32_t src, uint32_t dst, int64_t tag, ir_tn post, ir_tn done, const int64_t d[3],
                  int is_send)
{
	long slot;
	tchan *c = chan_get(s, ((uint64_t)src << 32) | dst, tag, &slot);
	tent m;
	if (!c) {
		s->oom = 1;
		return -1;
	}
	if (c->n == 0 || c->is_send == is_send) {
		c->is_send = is_send;
		if (chan_push(s, c, post, done, d)) {
			s->oom = 1;
			return -1;
		}
		return 0;
	}
	m = c->e[c->head++];
	if (--c->n == 0)
		tab_del(s, (size_t)slot);
	/* The receive's done waits for the send's post plus d_arr (the message's arrival); a
	 * rendezvous send's done waits for its own post plus d_done and the receive's post plus
	 * d_rpost (ir_tsync.h). */
	{
		ir_tn sp = is_send ? post : m.post, sd = is_send ? done : m.done;
		ir_tn rp = is_send ? m.post : post, rd = is_send ? m.done : done;
		int64_t da = is_send ? d[0] : m.d_arr, dd = is_send ? d[1] : m.d_done, dr = is_send ? d[2] : m.d_rpost;
		if (wait_delayed(s, rd, sp, da) ||
		    (sd != sp && ((dd != 0 && wait_delayed(s, sd, sp, dd)) || wait_delayed(s, sd, rp, dr)))) {
			s->oom = 1;
			return -1;
		}
		ir_ts_release(s, rd);
		if (sd != sp)
			ir_ts_release(s, sd);
	}
	ir_ts_unref(s, m.post);
	ir_ts_unref(s, m.done);
	return 0;
}

static const int64_t no_delay[3];

int ir_ts_send(ir_ts *s, uint32_t src, uint32_t dst, int64_t tag, ir_tn post, ir_tn done)
{
	return arrive(s, src, dst, tag, post, done, no_delay, 1);
}

int ir_ts_send_cost(ir_ts *s, uint32_t src, uint32_t dst, int64_t tag, ir_tn post, ir_tn done, int64_t d_arr,
                    int64_t d_done, int64_t d_rpost)
{
	int64_t d[3] = {d_arr, d_done, d_rpost};
	return arrive(s, src, dst, tag, post, done, d, 1);
}

int ir_ts_recv(ir_ts *s, uint32_t src, uint32_t dst, int64_t tag, ir_tn post, ir_tn done)
{
	return arrive(s, src, dst, tag, post, done, no_delay, 0);
}

uint64_t ir_ts_finish(ir_ts *s)
{
	uint64_t n = 0;
	for (size_t j = 0; j < s->tabcap; j++) {
		tchan *c;
		if (!s->tab[j])
			continue;
		c = &s->ch[s->tab[j] - 1];
		for (size_t i = 0; i < c->n; i++) {
			tent m = c->e[c->head + i];
			if (m.done != m.post || !c->is_send)
				ir_ts_release(s, m.done);
			ir_ts_unref(s, m.post);
			ir_ts_unref(s, m.done);
			n++;
		}
		c = &s->ch[s->tab[j] - 1];
		c->n = 0;
		c->next_free = s->free_ch;
		s->free_ch = s->tab[j];
		s->tab[j] = 0;
	}
	s->tabn = 0;
	return n;
}
