/*
 * ir_heap_tmpl.h: the radix heap's code, written once for its two entry types
 * (lib/ir_heap.h explains the heap and includes this file once per type).
 *
 * The includer defines:
 *   IR_HEAP_T      the heap's type name (a struct of that name is defined here)
 *   IR_HEAP_ENT    its entry type: a struct with uint64_t t and uint32_t ref first
 *   IR_HEAP_F(x)   the name of function x for this type (ir_heap_##x, ...)
 *   IR_HEAP_LT     static inline int (const ENT *a, const ENT *b): a's key before b's
 *   IR_HEAP_GROWING defined when every key pushed at the last popped time is larger than
 *                  every key queued at that time (a sequence number): a push appends
 *                  without comparing
 * and, in lib/ir_heap.c only, IR_HEAP_IMPL for the functions that are not inline.
 *
 * Bucket of a time t given the last popped time L: 0 if t == L, else
 * 64 - clz(t ^ L), in 1..64. Every entry of bucket i >= 1 agrees with L above
 * bit i-1 and has bit i-1 set where L has it clear, so every entry of bucket i
 * is smaller than every entry of bucket j > i, and splitting bucket i around
 * its smallest time sends each entry to a bucket below i.
 */
#include <stddef.h>
#include <stdint.h>

typedef struct IR_HEAP_T {
	IR_HEAP_ENT *b[IR_HEAP_BUCKETS];
	size_t bn[IR_HEAP_BUCKETS];
	size_t bcap[IR_HEAP_BUCKETS];
	size_t head0;   /* entries of bucket 0 before this were popped */
	uint64_t mask;  /* bit i-1 set: bucket i (1..64) is not empty */
	uint64_t last;  /* time of the last popped entry: no push may be earlier */
	size_t n;       /* entries queued */
	IR_HEAP_ENT *tmp; /* scratch for sorting bucket 0 */
	size_t tcap;
} IR_HEAP_T;

void IR_HEAP_F(init)(IR_HEAP_T *h);
void IR_HEAP_F(release)(IR_HEAP_T *h);

/* Internal: grow bucket i, split the lowest bucket, put x into bucket 0 at its
 * place (the hot paths below are inline because the engine calls them once or
 * twice per event). */
int IR_HEAP_F(grow_)(IR_HEAP_T *h, unsigned i);
int IR_HEAP_F(split_)(IR_HEAP_T *h);
void IR_HEAP_F(insert0_)(IR_HEAP_T *h, const IR_HEAP_ENT *x);
uint64_t IR_HEAP_F(min_scan_)(const IR_HEAP_T *h);

static inline int IR_HEAP_F(append_)(IR_HEAP_T *h, unsigned i, const IR_HEAP_ENT *x)
{
	if (h->bn[i] == h->bcap[i] && IR_HEAP_F(grow_)(h, i))
		return -1;
	h->b[i][h->bn[i]++] = *x;
	if (i)
		h->mask |= (uint64_t)1 << (i - 1);
	return 0;
}

/* Queue *x (its time and key set). Returns 0, -1 if memory runs out (the heap
 * is unchanged), -2 if x->t is earlier than the last popped time (a caller bug;
 * the heap is unchanged). */
static inline int IR_HEAP_F(push_ent)(IR_HEAP_T *h, const IR_HEAP_ENT *x)
{
	unsigned i;
	if (x->t < h->last)
		return -2;
	i = ir_heap_bucket_(x->t, h->last);
#ifndef IR_HEAP_GROWING
	if (i == 0 && h->head0 < h->bn[0] && IR_HEAP_LT(x, &h->b[0][h->bn[0] - 1])) {
		if (h->bn[0] == h->bcap[0] && IR_HEAP_F(grow_)(h, 0))
			return -1;
		IR_HEAP_F(insert0_)(h, x);
		h->n++;
		return 0;
	}
#endif
	if (IR_HEAP_F(append_)(h, i, x))
		return -1;
	h->n++;
	return 0;
}

/* The smallest entry: 1 and *top set, 0 when empty, -1 if memory runs out.
 * *top stays valid until the next push, pop or retime. */
static inline int IR_HEAP_F(top)(IR_HEAP_T *h, IR_HEAP_ENT **top)
{
	if (!h->n)
		return 0;
	if (h->head0 == h->bn[0] && IR_HEAP_F(split_)(h))
		return -1;
	*top = &h->b[0][h->head0];
	return 1;
}

/* Remove the entry top() returned (which must precede this call). */
static inline void IR_HEAP_F(pop)(IR_HEAP_T *h)
{
	h->head0++;
	h->n--;
	if (h->head0 == h->bn[0]) {
		h->head0 = 0;
		h->bn[0] = 0;
	}
}

/* Give the top (as returned by top()) a later or equal time, keeping its key;
 * -1 if memory runs out. */
static inline int IR_HEAP_F(retime_top)(IR_HEAP_T *h, uint64_t t)
{
	IR_HEAP_ENT x = h->b[0][h->head0];
	unsigned i = ir_heap_bucket_(t, h->last);
	x.t = t;
	if (i == 0)
		return 0; /* same time: it stays the top */
	if (IR_HEAP_F(append_)(h, i, &x))
		return -1;
	IR_HEAP_F(pop)(h);
	h->n++; /* the entry is still queued */
	return 0;
}

/* The smallest time queued (h->n > 0), without changing the queue: for a
 * caller that must peek at its next time but may still push earlier entries
 * (ir_net_ib: the engine asks when to call the fabric next, then may inject
 * before that; lib/ir_par.c's windows), so bucket 0 cannot be refilled by a
 * split yet. When bucket 0 is empty this scans the lowest non-empty bucket;
 * such a caller caches the answer until its next push or pop. */
static inline uint64_t IR_HEAP_F(min)(const IR_HEAP_T *h)
{
	return h->head0 < h->bn[0] ? h->last : IR_HEAP_F(min_scan_)(h);
}

#ifdef IR_HEAP_IMPL
void IR_HEAP_F(init)(IR_HEAP_T *h) { memset(h, 0, sizeof *h); }

void IR_HEAP_F(release)(IR_HEAP_T *h)
{
	for (int i = 0; i < IR_HEAP_BUCKETS; i++)
		free(h->b[i]);
	free(h->tmp);
	IR_HEAP_F(init)(h);
}

/* Buckets double (from 64 entries): the radix heap empties and refills them all the time, and
 * the dissemination of 1 M ranks ran 1 % slower with ir_grow's 1.5x step. */
int IR_HEAP_F(grow_)(IR_HEAP_T *h, unsigned i)
{
	size_t want = h->bcap[i] ? h->bcap[i] * 2 : 64;
	if (want < h->bcap[i])
		return -1;
	return IR_GROW(h->b[i], want, h->bcap[i]);
}

void IR_HEAP_F(insert0_)(IR_HEAP_T *h, const IR_HEAP_ENT *x)
{
	/* from the end: the place is usually near it */
	size_t j = h->bn[0];
	while (j > h->head0 && IR_HEAP_LT(x, &h->b[0][j - 1])) {
		h->b[0][j] = h->b[0][j - 1];
		j--;
	}
	h->b[0][j] = *x;
	h->bn[0]++;
}

/* Bucket 0 after a split, in the order its entries were appended: usually in key
 * order already (one comparison per entry), else sorted runs (with the tie key: items
 * made in one instant, in the order of their makers' events; with a sequence number:
 * put-backs behind newer items), so a natural merge sort: find the runs, merge
 * neighbours through the scratch array until one is left. */
static int IR_HEAP_F(sort0_)(IR_HEAP_T *h, IR_HEAP_ENT *v, size_t n)
{
	size_t i;
	for (i = 1; i < n && !IR_HEAP_LT(&v[i], &v[i - 1]); i++)
		;
	if (i == n)
		return 0;
	if (h->tcap < n) {
		size_t want = n > 64 ? n : 64;
		IR_HEAP_ENT *p = realloc(h->tmp, want * sizeof *p);
		if (!p)
			return -1;
		h->tmp = p;
		h->tcap = want;
	}
	IR_HEAP_ENT *a = v, *b = h->tmp;
	for (;;) {
		size_t o = 0, runs = 0;
		i = 0;
		while (i < n) {
			size_t m = i + 1, j;
			while (m < n && !IR_HEAP_LT(&a[m], &a[m - 1]))
				m++;
			if (m == n) {
				memcpy(b + o, a + i, (n - i) * sizeof *a);
				o = n;
				runs++;
				break;
			}
			j = m + 1;
			while (j < n && !IR_HEAP_LT(&a[j], &a[j - 1]))
				j++;
			/* merge a[i..m) and a[m..j) */
			size_t x = i, y = m;
			while (x < m && y < j)
				b[o++] = IR_HEAP_LT(&a[y], &a[x]) ? a[y++] : a[x++];
			while (x < m)
				b[o++] = a[x++];
			while (y < j)
				b[o++] = a[y++];
			runs++;
			i = j;
		}
		IR_HEAP_ENT *c = a;
		a = b;
		b = c;
		if (runs == 1)
			break;
	}
	if (a != v)
		memcpy(v, a, n * sizeof *v);
	if (h->tcap > IR_HEAP_BIG_BUCKET) {
		free(h->tmp);
		h->tmp = NULL;
		h->tcap = 0;
	}
	return 0;
}

/* Bucket 0 is empty: split the lowest non-empty bucket around its smallest time. */
int IR_HEAP_F(split_)(IR_HEAP_T *h)
{
	unsigned i = (unsigned)__builtin_ctzll(h->mask) + 1;
	IR_HEAP_ENT *v = h->b[i];
	size_t k = h->bn[i];
	uint64_t m = v[0].t;
	for (size_t j = 1; j < k; j++)
		if (v[j].t < m)
			m = v[j].t;
	h->last = m;
	h->bn[0] = 0;
	h->head0 = 0;
	for (size_t j = 0; j < k; j++) {
		if (IR_HEAP_F(append_)(h, ir_heap_bucket_(v[j].t, m), &v[j]))
			return -1; /* out of memory: the queue is unusable, the caller stops */
	}
	h->bn[i] = 0;
	h->mask &= ~((uint64_t)1 << (i - 1));
	if (h->bcap[i] > IR_HEAP_BIG_BUCKET) {
		free(h->b[i]);
		h->b[i] = NULL;
		h->bcap[i] = 0;
	}
	return IR_HEAP_F(sort0_)(h, h->b[0], h->bn[0]);
}

uint64_t IR_HEAP_F(min_scan_)(const IR_HEAP_T *h)
{
	unsigned i = (unsigned)__builtin_ctzll(h->mask) + 1;
	const IR_HEAP_ENT *v = h->b[i];
	uint64_t m = v[0].t;
	for (size_t j = 1; j < h->bn[i]; j++)
		if (v[j].t < m)
			m = v[j].t;
	return m;
}
#endif
