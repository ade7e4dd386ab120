/*
 * ir_heap.c: radix heap on (time, tie key) (see ir_heap.h for why and how).
 *
 * Bucket of a time t given the last popped time L: 0 if t == L, else
 * 64 - clz(t ^ L), in 1..64. Every entry of bucket i >= 1 agrees with L above
 * bit i-1 and has bit i-1 set where L has it clear, so every entry of bucket i
 * is smaller than every entry of bucket j > i, and splitting bucket i around
 * its smallest time sends each entry to a bucket below i.
 */
#include "ir_heap.h"

#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"

#define BIG_BUCKET 65536 /* entries: free such an array when its bucket empties */

void ir_heap_init(ir_heap *h) { memset(h, 0, sizeof *h); }

void ir_heap_release(ir_heap *h)
{
	for (int i = 0; i < IR_HEAP_BUCKETS; i++)
		free(h->b[i]);
	free(h->tmp);
	ir_heap_init(h);
}

/* Buckets double (from 64 entries): the radix heap empties and refills them all the time, and
 * the dissemination of 1 M ranks ran 1 % slower with ir_grow's 1.5x step. */
int ir_heap_grow_(ir_heap *h, unsigned i)
{
	size_t want = h->bcap[i] ? h->bcap[i] * 2 : 64;
	if (want < h->bcap[i])
		return -1;
	return IR_GROW(h->b[i], want, h->bcap[i]);
}

void ir_heap_insert0_(ir_heap *h, const ir_heap_ent *x)
{
	/* from the end: the place is usually near it */
	size_t j = h->bn[0];
	while (j > h->head0 && ir_heap_key_lt(x, &h->b[0][j - 1])) {
		h->b[0][j] = h->b[0][j - 1];
		j--;
	}
	h->b[0][j] = *x;
	h->bn[0]++;
}

/* Bucket 0 after a split, in the order its entries were appended: sorted runs
 * (made in one instant, in the order of their makers' events), so a natural merge sort:
 * find the runs, merge neighbours through the scratch array until one is left. */
static int sort_seq(ir_heap *h, ir_heap_ent *v, size_t n)
{
	size_t i;
	for (i = 1; i < n && !ir_heap_key_lt(&v[i], &v[i - 1]); i++)
		;
	if (i == n)
		return 0; /* already in order: the usual case */
	if (h->tcap < n) {
		size_t want = n > 64 ? n : 64;
		ir_heap_ent *p = realloc(h->tmp, want * sizeof *p);
		if (!p)
			return -1;
		h->tmp = p;
		h->tcap = want;
	}
	ir_heap_ent *a = v, *b = h->tmp;
	for (;;) {
		size_t o = 0, runs = 0;
		i = 0;
		while (i < n) {
			size_t m = i + 1, j;
			while (m < n && !ir_heap_key_lt(&a[m], &a[m - 1]))
				m++;
			if (m == n) {
				memcpy(b + o, a + i, (n - i) * sizeof *a);
				o = n;
				runs++;
				break;
			}
			j = m + 1;
			while (j < n && !ir_heap_key_lt(&a[j], &a[j - 1]))
				j++;
			/* merge a[i..m) and a[m..j) */
			size_t x = i, y = m;
			while (x < m && y < j)
				b[o++] = ir_heap_key_lt(&a[y], &a[x]) ? a[y++] : a[x++];
			while (x < m)
				b[o++] = a[x++];
			while (y < j)
				b[o++] = a[y++];
			runs++;
			i = j;
		}
		ir_heap_ent *c = a;
		a = b;
		b = c;
		if (runs == 1)
			break;
	}
	if (a != v)
		memcpy(v, a, n * sizeof *v);
	if (h->tcap > BIG_BUCKET) {
		free(h->tmp);
		h->tmp = NULL;
		h->tcap = 0;
	}
	return 0;
}

/* Bucket 0 is empty: split the lowest non-empty bucket around its smallest time. */
int ir_heap_split_(ir_heap *h)
{
	unsigned i = (unsigned)__builtin_ctzll(h->mask) + 1;
	ir_heap_ent *v = h->b[i];
	size_t k = h->bn[i];
	uint64_t m = v[0].t;
	for (size_t j = 1; j < k; j++)
		if (v[j].t < m)
			m = v[j].t;
	h->last = m;
	h->bn[0] = 0;
	h->head0 = 0;
	for (size_t j = 0; j < k; j++) {
		if (ir_heap_append_(h, ir_heap_bucket_(v[j].t, m), &v[j]))
			return -1; /* out of memory: the queue is unusable, the caller stops */
	}
	h->bn[i] = 0;
	h->mask &= ~((uint64_t)1 << (i - 1));
	if (h->bcap[i] > BIG_BUCKET) {
		free(h->b[i]);
		h->b[i] = NULL;
		h->bcap[i] = 0;
	}
	return sort_seq(h, h->b[0], h->bn[0]);
}

uint64_t ir_heap_min_scan_(const ir_heap *h)
{
	unsigned i = (unsigned)__builtin_ctzll(h->mask) + 1;
	const ir_heap_ent *v = h->b[i];
	uint64_t m = v[0].t;
	for (size_t j = 1; j < h->bn[i]; j++)
		if (v[j].t < m)
			m = v[j].t;
	return m;
}

static int cmp_ent(const void *x, const void *y)
{
	const ir_heap_ent *a = x, *b = y;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return ir_heap_key_lt(a, b) ? -1 : ir_heap_key_lt(b, a);
}

uint32_t ir_heap_renumber(ir_heap *h, uint32_t base)
{
	/* Rare (once per 2^32 queued items): gather, sort, renumber, rebuild. */
	ir_heap_ent *all = malloc((h->n ? h->n : 1) * sizeof *all);
	size_t k = 0;
	if (!all)
		return 0;
	for (size_t j = h->head0; j < h->bn[0]; j++)
		all[k++] = h->b[0][j];
	for (unsigned i = 1; i < IR_HEAP_BUCKETS; i++)
		for (size_t j = 0; j < h->bn[i]; j++)
			all[k++] = h->b[i][j];
	qsort(all, k, sizeof *all, cmp_ent);
	for (unsigned i = 0; i < IR_HEAP_BUCKETS; i++)
		h->bn[i] = 0;
	h->head0 = 0;
	h->mask = 0;
	/* Capacity is already there for every entry's bucket? Not necessarily
	 * (entries may change buckets only if `last` changed, and it does not),
	 * so each bucket gets back at most what it had. */
	for (size_t j = 0; j < k; j++) {
		all[j].seq = base + (uint32_t)j;
		(void)ir_heap_append_(h, ir_heap_bucket_(all[j].t, h->last), &all[j]);
	}
	free(all);
	return base + (uint32_t)k;
}
