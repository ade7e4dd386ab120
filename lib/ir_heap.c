/*
 * ir_heap.c: the radix heaps' functions that are not inline (lib/ir_heap.h,
 * lib/ir_heap_tmpl.h), and ir_heap's renumbering.
 */
#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"

#define IR_HEAP_IMPL
#include "ir_heap.h"

static int cmp_ent(const void *x, const void *y)
{
	const ir_heap_ent *a = x, *b = y;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
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
