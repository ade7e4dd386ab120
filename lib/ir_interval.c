/*
 * ir_interval.c: the treap of disjoint intervals behind ir_interval.h.
 *
 * split(t, k) cuts a tree into the intervals starting before k and those
 * starting at k or later; join(l, r) puts two trees back together when every
 * start in l is below every start in r (the root with the higher priority
 * wins). An add is two splits, the removal of what lies between, and two
 * joins; the expected depth is O(log n) because priorities are random
 * (xorshift64, seeded per set, so runs are reproducible).
 */
#include "ir_interval.h"

#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"

#define N(s, i) ((s)->n[(i) - 1])

void ir_ivset_init(ir_ivset *s)
{
	memset(s, 0, sizeof *s);
	s->rng = 0x9E3779B97F4A7C15ULL;
}

void ir_ivset_release(ir_ivset *s)
{
	free(s->n);
	ir_ivset_init(s);
}

void ir_ivset_clear(ir_ivset *s)
{
	ir_ivnode *n = s->n;
	size_t cap = s->cap;
	ir_ivset_init(s);
	s->n = n;
	s->cap = cap;
}

static uint32_t rnd(ir_ivset *s)
{
	uint64_t x = s->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	s->rng = x;
	return (uint32_t)(x >> 32);
}

/* Make sure one node can be handed out without allocating. */
static int reserve(ir_ivset *s)
{
	if (s->free || s->used < s->cap)
		return 0;
	if (s->cap >= UINT32_MAX / 2)
		return -1;
	return IR_GROW(s->n, s->used + 1, s->cap);
}

static uint32_t node_new(ir_ivset *s, uint64_t a, uint64_t b)
{
	uint32_t i;
	if (s->free) {
		i = s->free;
		s->free = N(s, i).l;
	} else {
		i = (uint32_t)++s->used;
	}
	N(s, i).a = a;
	N(s, i).b = b;
	N(s, i).l = N(s, i).r = 0;
	N(s, i).prio = rnd(s);
	return i;
}

static void node_free(ir_ivset *s, uint32_t i)
{
	N(s, i).l = s->free;
	s->free = i;
}

static void split(ir_ivset *s, uint32_t t, uint64_t k, uint32_t *l, uint32_t *r)
{
	if (!t) {
		*l = *r = 0;
		return;
	}
	if (N(s, t).a < k) {
		split(s, N(s, t).r, k, &N(s, t).r, r);
		*l = t;
	} else {
		split(s, N(s, t).l, k, l, &N(s, t).l);
		*r = t;
	}
}

static uint32_t join(ir_ivset *s, uint32_t l, uint32_t r)
{
	if (!l)
		return r;
	if (!r)
		return l;
	if (N(s, l).prio > N(s, r).prio) {
		N(s, l).r = join(s, N(s, l).r, r);
		return l;
	}
	N(s, r).l = join(s, l, N(s, r).l);
	return r;
}

/* Remove the whole tree t (every interval starts in [a, b]): subtract its overlap with [a, b)
 * from *fresh, raise *end to its largest end, and free its nodes. */
static void drop(ir_ivset *s, uint32_t t, uint64_t b, uint64_t *fresh, uint64_t *end)
{
	while (t) {
		uint32_t next = N(s, t).r;
		uint64_t e = N(s, t).b < b ? N(s, t).b : b;
		drop(s, N(s, t).l, b, fresh, end);
		*fresh -= e - N(s, t).a;
		if (N(s, t).b > *end)
			*end = N(s, t).b;
		s->covered -= N(s, t).b - N(s, t).a;
		s->count--;
		node_free(s, t);
		t = next;
	}
}

int ir_ivset_add(ir_ivset *s, uint64_t a, uint64_t n, uint64_t *fresh)
{
	uint64_t b = a + n, na = a, nb;
	uint32_t l, m, r, x, last;
	*fresh = 0;
	if (n == 0)
		return 0;
	if (b < a)
		b = UINT64_MAX;
	if (a == b)
		return 0;
	if (reserve(s))
		return -1;
	*fresh = b - a;
	nb = b;
	split(s, s->root, a, &l, &r);
	/* the interval starting last before a: merge it if it reaches a */
	for (last = l; last && N(s, last).r; last = N(s, last).r)
		;
	if (last && N(s, last).b >= a) {
		uint32_t l1, lx;
		uint64_t e = N(s, last).b < b ? N(s, last).b : b;
		split(s, l, N(s, last).a, &l1, &lx);
		l = l1;
		na = N(s, lx).a;
		if (e > a)
			*fresh -= e - a;
		if (N(s, lx).b > nb)
			nb = N(s, lx).b;
		s->covered -= N(s, lx).b - N(s, lx).a;
		s->count--;
		node_free(s, lx);
	}
	/* the intervals starting in [a, b] overlap or touch [a, b) */
	if (b == UINT64_MAX) {
		m = r;
		r = 0;
	} else {
		split(s, r, b + 1, &m, &r);
	}
	drop(s, m, b, fresh, &nb);
	x = node_new(s, na, nb);
	s->root = join(s, join(s, l, x), r);
	s->covered += nb - na;
	s->count++;
	return 0;
}

int ir_ivset_contains(const ir_ivset *s, uint64_t x)
{
	uint32_t t = s->root;
	while (t) {
		const ir_ivnode *p = &s->n[t - 1];
		if (x < p->a)
			t = p->l;
		else if (x >= p->b)
			t = p->r;
		else
			return 1;
	}
	return 0;
}

static int walk(const ir_ivset *s, uint32_t t, int (*fn)(void *, uint64_t, uint64_t), void *ctx)
{
	while (t) {
		const ir_ivnode *p = &s->n[t - 1];
		if (walk(s, p->l, fn, ctx) || fn(ctx, p->a, p->b))
			return 1;
		t = p->r;
	}
	return 0;
}

void ir_ivset_walk(const ir_ivset *s, int (*fn)(void *ctx, uint64_t a, uint64_t b), void *ctx)
{
	walk(s, s->root, fn, ctx);
}
