/*
 * ir_tsync.c: the dataflow of zero-cost times behind trace2goal --sync (see
 * ir_tsync.h for what it computes and why).
 *
 * Nodes sit in one growable array addressed by handle (index + 1), with a
 * free list, so there is no malloc per node; a node keeps up to two waiting
 * dependents inline and spills to a heap array beyond. Channels are found
 * through a hash map (ir_hmap.h) keyed by (source << 32 | destination, tag);
 * a channel holds a queue of unmatched sends or of
 * unmatched receives (never both: a new arrival of the other kind matches the
 * head), and is deleted when its queue empties, keeping its queue's memory on
 * a free list for the next channel.
 */
#include "ir_tsync.h"

#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"
#include "ir_hmap.h"

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
	ir_hmap tab; /* (src << 32 | dst, tag) -> channel index */
	int oom;
	int failed; /* a callback returned -1: no more callbacks; err says why */
	ir_err err;
};

#define ND(s, h) ((s)->nd[(h) - 1])

/* Report a resolved, notified node, unless a callback failed before. */
static void report(ir_ts *s, int64_t t, uint64_t u0, uint64_t u1)
{
	if (s->fn && !s->failed && s->fn(s->ctx, t, u0, u1, &s->err))
		s->failed = 1;
}

int ir_ts_error(const ir_ts *s, ir_err *e)
{
	if (!s->failed)
		return 0;
	if (e)
		*e = s->err;
	return -1;
}

ir_ts *ir_ts_new(ir_ts_done_fn fn, void *ctx)
{
	ir_ts *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->fn = fn;
	s->ctx = ctx;
	ir_hmap_init(&s->tab, sizeof(uint32_t), 256, IR_HMAP_PAIR);
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
	ir_hmap_release(&s->tab);
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
			if (s->nnodes >= UINT32_MAX - 1)
				return 0; /* a handle must fit in 32 bits */
			if (IR_GROW(s->nd, s->nnodes + 1, s->capnodes)) {
				s->oom = 1;
				return 0;
			}
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
	if (s->nstack == s->capstack && IR_GROW(s->stack, s->nstack + 1, s->capstack)) {
		s->oom = 1;
		return -1;
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
		if (n->notify)
			report(s, t, n->u0, n->u1);
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
	if (n->done)
		report(s, n->t, u0, u1);
}

uint64_t ir_ts_live(const ir_ts *s)
{
	return s->live;
}

/* ---- channels ---- */

static void tab_del(ir_ts *s, uint32_t *slot)
{
	uint32_t ci = *slot;
	ir_hmap_del(&s->tab, slot);
	s->ch[ci].next_free = s->free_ch;
	s->free_ch = ci + 1;
}

static tchan *chan_get(ir_ts *s, uint64_t k1, int64_t k2, uint32_t **slot)
{
	int isnew;
	uint32_t *v = ir_hmap_put(&s->tab, k1, (uint64_t)k2, &isnew);
	uint32_t ci;
	tchan *c;
	if (!v)
		return NULL;
	*slot = v;
	if (!isnew)
		return &s->ch[*v];
	if (s->free_ch) {
		ci = s->free_ch - 1;
		s->free_ch = s->ch[ci].next_free;
	} else {
		if (IR_GROW(s->ch, s->nch + 1, s->capch)) {
			ir_hmap_del(&s->tab, v);
			return NULL;
		}
		ci = (uint32_t)s->nch++;
		s->ch[ci].e = NULL;
		s->ch[ci].cap = 0;
	}
	c = &s->ch[ci];
	c->head = c->n = 0;
	c->is_send = 0;
	*v = ci;
	return c;
}

static int chan_push(ir_ts *s, tchan *c, ir_tn post, ir_tn done, const int64_t d[3])
{
	if (c->head + c->n == c->cap) {
		if (c->head > 0 && c->head >= c->n) {
			memmove(c->e, c->e + c->head, c->n * sizeof *c->e);
			c->head = 0;
		} else if (IR_GROW(c->e, c->head + c->n + 1, c->cap)) {
			return -1;
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
int ir_ts_input_after(ir_ts *s, ir_tn n, ir_tn in, int64_t d)
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
	uint32_t *slot;
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
		tab_del(s, slot);
	/* The receive's done waits for the send's post plus d_arr (the message's arrival); a
	 * rendezvous send's done waits for its own post plus d_done and the receive's post plus
	 * d_rpost (ir_tsync.h). */
	{
		ir_tn sp = is_send ? post : m.post, sd = is_send ? done : m.done;
		ir_tn rp = is_send ? m.post : post, rd = is_send ? m.done : done;
		int64_t da = is_send ? d[0] : m.d_arr, dd = is_send ? d[1] : m.d_done, dr = is_send ? d[2] : m.d_rpost;
		if (ir_ts_input_after(s, rd, sp, da) ||
		    (sd != sp && ((dd != 0 && ir_ts_input_after(s, sd, sp, dd)) || ir_ts_input_after(s, sd, rp, dr)))) {
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
	for (size_t j = 0; j < s->tab.cap; j++) {
		const uint32_t *v = ir_hmap_at(&s->tab, j);
		tchan *c;
		if (!v)
			continue;
		c = &s->ch[*v];
		for (size_t i = 0; i < c->n; i++) {
			tent m = c->e[c->head + i];
			if (m.done != m.post || !c->is_send)
				ir_ts_release(s, m.done);
			ir_ts_unref(s, m.post);
			ir_ts_unref(s, m.done);
			n++;
		}
		c = &s->ch[*v];
		c->n = 0;
		c->next_free = s->free_ch;
		s->free_ch = *v + 1;
	}
	ir_hmap_clear(&s->tab);
	return n;
}
