/*
 * u-heap.c: the event queue (lib/ir_heap.c) against a reference model.
 *
 * The reference is an unsorted array searched for the smallest (time, seq);
 * random monotone workloads (pushes at or after the last popped time, pops,
 * put-backs to later times, equal times, huge times near 2^64, renumbering)
 * must pop exactly the same entries in the same order, and ir_heap_min must
 * agree with the model at every step. The engine's keys (ir_kheap, the same
 * code with 32-byte entries):
 * (time, time made, maker, maker's count), kept by put-backs, with new keys
 * smaller than queued ones at the current time and buckets that split into
 * many out-of-order runs.
 */
#include <stdlib.h>

#include "ir_heap.h"
#include "tap.h"

typedef struct model {
	ir_heap_ent *v;
	size_t n, cap;
} model;

static void m_push(model *m, uint64_t t, uint32_t seq, uint32_t ref)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		m->v = realloc(m->v, m->cap * sizeof *m->v);
		if (!m->v)
			abort();
	}
	m->v[m->n].t = t;
	m->v[m->n].seq = seq;
	m->v[m->n].ref = ref;
	m->n++;
}

static size_t m_min(const model *m)
{
	size_t b = 0;
	for (size_t i = 1; i < m->n; i++)
		if (m->v[i].t < m->v[b].t || (m->v[i].t == m->v[b].t && m->v[i].seq < m->v[b].seq))
			b = i;
	return b;
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* One random run: returns the number of mismatches. `spread` bounds time steps. */
static int run(unsigned steps, uint64_t spread, uint64_t start, int renumber)
{
	ir_heap h;
	model m = { 0 };
	uint32_t seq = 0;
	uint64_t now = start;
	int bad = 0;
	ir_heap_init(&h);
	for (unsigned s = 0; s < steps && !bad; s++) {
		unsigned op = (unsigned)(rnd() % 10);
		if (op < 5 || m.n == 0) {
			uint64_t dt = spread ? rnd() % spread : 0;
			uint64_t t = now + dt < now ? UINT64_MAX : now + dt;
			if (ir_heap_push(&h, t, seq, seq))
				bad++;
			m_push(&m, t, seq, seq);
			seq++;
		} else {
			ir_heap_ent *top;
			size_t b = m_min(&m);
			if (ir_heap_top(&h, &top) != 1 || top->t != m.v[b].t || top->seq != m.v[b].seq ||
			    top->ref != m.v[b].ref) {
				bad++;
				break;
			}
			now = top->t;
			if (op < 7) {
				/* put back later, same seq */
				uint64_t dt = spread ? 1 + rnd() % spread : 1;
				uint64_t t = now + dt < now ? UINT64_MAX : now + dt;
				if (ir_heap_retime_top(&h, t))
					bad++;
				m.v[b].t = t;
			} else {
				ir_heap_pop(&h);
				m.v[b] = m.v[--m.n];
			}
		}
		if (h.n != m.n)
			bad++;
		if (m.n && ir_heap_min(&h) != m.v[m_min(&m)].t)
			bad++; /* the peek agrees with the model and changes nothing */
		if (renumber && s % 997 == 996) {
			/* model: renumber in (t, seq) order */
			uint32_t base = 5, next;
			model sorted = { 0 };
			while (m.n) {
				size_t b = m_min(&m);
				m_push(&sorted, m.v[b].t, m.v[b].seq, m.v[b].ref);
				m.v[b] = m.v[--m.n];
			}
			for (size_t i = 0; i < sorted.n; i++)
				sorted.v[i].seq = base + (uint32_t)i;
			free(m.v);
			m = sorted;
			next = ir_heap_renumber(&h, base);
			if (next != base + m.n)
				bad++;
			seq = next;
		}
	}
	/* drain */
	while (!bad && m.n) {
		ir_heap_ent *top;
		size_t b = m_min(&m);
		if (ir_heap_top(&h, &top) != 1 || top->t != m.v[b].t || top->seq != m.v[b].seq) {
			bad++;
			break;
		}
		ir_heap_pop(&h);
		m.v[b] = m.v[--m.n];
	}
	{
		ir_heap_ent *top;
		if (!bad && ir_heap_top(&h, &top) != 0)
			bad++;
	}
	ir_heap_release(&h);
	free(m.v);
	return bad;
}

/* Keyed pushes against a model ordered by (t, tc, who, maker's count). */
typedef struct kent {
	uint64_t t, tc, q;
	uint32_t who, ref;
} kent;

static int run_key(unsigned steps, uint64_t spread, uint32_t makers)
{
	ir_kheap h;
	kent *v = calloc(steps + 1, sizeof *v);
	size_t n = 0;
	uint64_t now = 0, *made = calloc(makers, sizeof *made);
	uint32_t ref = 0;
	int bad = 0;
	if (!v || !made)
		abort();
	ir_kheap_init(&h);
	for (unsigned s = 0; s < steps && !bad; s++) {
		unsigned op = (unsigned)(rnd() % 10);
		if (op < 5 || n == 0) {
			/* made now or a little earlier (a message's key), queued now or later */
			uint64_t back = rnd() % 3, tc = now >= back ? now - back : 0;
			uint64_t t = now + (rnd() % 2 ? 0 : rnd() % (spread + 1));
			uint32_t who = (uint32_t)(rnd() % makers);
			if (ir_kheap_push(&h, t, tc, who, made[who], ref))
				bad++;
			v[n].t = t;
			v[n].tc = tc;
			v[n].who = who;
			v[n].ref = ref++;
			v[n].q = made[who]++;
			n++;
		} else {
			ir_kheap_ent *top;
			size_t b = 0;
			for (size_t i = 1; i < n; i++) {
				const kent *x = &v[i], *y = &v[b];
				if (x->t != y->t ? x->t < y->t
				                 : x->tc != y->tc ? x->tc < y->tc : x->who != y->who ? x->who < y->who : x->q < y->q)
					b = i;
			}
			if (ir_kheap_top(&h, &top) != 1 || top->ref != v[b].ref) {
				bad++;
				break;
			}
			now = top->t;
			if (op < 7) {
				uint64_t t = now + 1 + rnd() % (spread + 1);
				if (ir_kheap_retime_top(&h, t))
					bad++;
				v[b].t = t;
			} else {
				ir_kheap_pop(&h);
				v[b] = v[--n];
			}
		}
		if (h.n != n)
			bad++;
	}
	ir_kheap_release(&h);
	free(v);
	free(made);
	return bad;
}

int main(void)
{
	ir_heap h;
	ir_heap_ent *top;

	ir_heap_init(&h);
	ok(ir_heap_top(&h, &top) == 0, "empty heap has no top");
	ok(ir_heap_push(&h, 10, 0, 100) == 0, "push");
	ok(ir_heap_push(&h, 5, 1, 101) == 0, "push earlier than others but not than last popped");
	ok(ir_heap_push(&h, 10, 2, 102) == 0, "push equal time");
	ok(ir_heap_top(&h, &top) == 1 && top->t == 5 && top->ref == 101, "smallest time first");
	ir_heap_pop(&h);
	ok(ir_heap_top(&h, &top) == 1 && top->t == 10 && top->seq == 0, "equal times: smaller seq first");
	ok(ir_heap_retime_top(&h, 10) == 0 && ir_heap_top(&h, &top) == 1 && top->seq == 0,
	   "retime to the same time keeps it on top");
	ok(ir_heap_retime_top(&h, 11) == 0 && ir_heap_top(&h, &top) == 1 && top->seq == 2,
	   "retime later: the other equal-time entry comes first");
	ir_heap_pop(&h);
	ok(ir_heap_push(&h, 4, 3, 103) == -2, "a push before the last popped time is refused");
	ok(ir_heap_push(&h, 11, 3, 103) == 0, "a push at a later time after a put-back");
	ok(ir_heap_top(&h, &top) == 1 && top->t == 11 && top->seq == 0, "put-back entry keeps its seq (0 < 3)");
	ir_heap_pop(&h);
	ok(ir_heap_top(&h, &top) == 1 && top->t == 11 && top->seq == 3, "then the later seq");
	ir_heap_pop(&h);
	is_u64(h.n, 0, "empty again");
	ok(ir_heap_push(&h, UINT64_MAX, 9, 1) == 0 && ir_heap_push(&h, UINT64_MAX - 1, 10, 2) == 0,
	   "times near 2^64");
	ok(ir_heap_top(&h, &top) == 1 && top->t == UINT64_MAX - 1, "2^64-2 before 2^64-1");
	ir_heap_pop(&h);
	ok(ir_heap_top(&h, &top) == 1 && top->t == UINT64_MAX, "then 2^64-1");
	ir_heap_pop(&h);
	ir_heap_release(&h);

	/* a burst of equal times pushed out of seq order via put-backs */
	ir_heap_init(&h);
	for (uint32_t i = 0; i < 100; i++)
		ir_heap_push(&h, i % 2 ? 7 : 3, i, i);
	{
		int okk = 1;
		uint32_t prev = 0;
		/* pop all time-3 entries, putting each back to 7: they must come before the
		 * original time-7 entries only by seq order */
		for (int i = 0; i < 50; i++) {
			ir_heap_top(&h, &top);
			okk &= top->t == 3;
			ir_heap_retime_top(&h, 7);
		}
		for (int i = 0; i < 100; i++) {
			ir_heap_top(&h, &top);
			okk &= top->t == 7 && (i == 0 || top->seq > prev) && top->seq == (uint32_t)i;
			prev = top->seq;
			ir_heap_pop(&h);
		}
		ok(okk, "put-backs to one time come out in seq order");
	}
	ir_heap_release(&h);

	ok(run(20000, 0, 0, 0) == 0, "random: all at one time");
	ok(run(20000, 4, 0, 0) == 0, "random: many ties");
	ok(run(50000, 1000, 0, 0) == 0, "random: moderate spread");
	ok(run(50000, (uint64_t)1 << 40, 0, 0) == 0, "random: wide spread");
	ok(run(20000, 1000, UINT64_MAX - 100000, 0) == 0, "random: near 2^64 with saturation");
	ok(run(30000, 100, 0, 1) == 0, "random with renumbering");
	ok(run_key(20000, 0, 5) == 0, "keys: all at one time, five makers");
	ok(run_key(40000, 3, 40) == 0, "keys: many ties, forty makers");
	ok(run_key(40000, 50, 1000) == 0, "keys: spread out, a thousand makers");
	ok(run_key(40000, 2, 2) == 0, "keys: two makers, put-backs keep the maker's order");
	return tap_done();
}
