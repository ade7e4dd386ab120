/*
 * ir_heap.h: the simulator's event queue: a radix heap of 16-byte entries
 * popped in exact (time, sequence number) order.
 *
 * Why a radix heap: the engine's queue is monotone (nothing is ever queued
 * earlier than the last item taken out: every rule of the engine queues at
 * the current time or later). A radix heap exploits that: entries sit in 65
 * buckets by the highest bit in which their time differs from the last popped
 * time; a push is one bit scan and an append, a pop takes from bucket 0, and
 * only when bucket 0 runs empty is the lowest non-empty bucket split into
 * lower ones. Each entry moves down at most 64 times and in practice a few,
 * with no unpredictable comparisons: on the 256-rank chained ring it nearly
 * halved the simulation time of the 4-ary heap it replaced (whose
 * sift-downs were 40% of the run, mispredicting on every level).
 *
 * Ties: bucket 0 holds exactly the entries whose time equals the last popped
 * time, kept sorted by their tie key (tc, who, seq): when a split fills it, it
 * is sorted by a natural merge sort (the usual case is already in order, one
 * comparison per entry; otherwise it is a few sorted runs, one per batch of
 * items made at one time, merged through a scratch array); a later push at that
 * time is appended when its key is the largest (one comparison; always so for
 * callers whose keys only grow, such as a plain sequence number) and otherwise
 * inserted in its place. So entries come out in (time, tc, who, seq) order
 * exactly.
 *
 * Two kinds of callers: ir_heap_push() gives a 32-bit sequence number (tc and
 * who 0), unique and growing, as the InfiniBand fabric does; when such a caller
 * runs out of numbers it calls ir_heap_renumber(), which keeps the order and
 * compacts the numbers. ir_heap_push_key() gives the whole key: the engine's
 * (creation time, creating rank, that rank's counter), which needs no global
 * counter and is the same whichever process simulates the item
 * (docs/loggops-semantics.md §2, lib/ir_par.c); there a new key may be smaller
 * than keys already queued at the same time (an item made at t by rank 3 after
 * one made at t by rank 7).
 *
 * `ref` is the caller's 32-bit handle of the item (op or message). Memory:
 * 32 bytes per queued entry in growable bucket arrays, and a scratch array for
 * the sort; a large bucket's array (and a large scratch array) is freed when it
 * is no longer used, so a burst does not pin memory.
 */
#ifndef IR_HEAP_H
#define IR_HEAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ir_heap_ent {
	uint64_t t;
	uint64_t tc;   /* tie key, compared in this order: tc, who, seq */
	uint64_t seq;
	uint32_t who;
	uint32_t ref;
} ir_heap_ent;

/* a before b in the order of ties */
static inline int ir_heap_key_lt(const ir_heap_ent *a, const ir_heap_ent *b)
{
	if (a->tc != b->tc)
		return a->tc < b->tc;
	if (a->who != b->who)
		return a->who < b->who;
	return a->seq < b->seq;
}

#define IR_HEAP_BUCKETS 65

typedef struct ir_heap {
	ir_heap_ent *b[IR_HEAP_BUCKETS];
	size_t bn[IR_HEAP_BUCKETS];
	size_t bcap[IR_HEAP_BUCKETS];
	size_t head0;   /* entries of bucket 0 before this were popped */
	uint64_t mask;  /* bit i-1 set: bucket i (1..64) is not empty */
	uint64_t last;  /* time of the last popped entry: no push may be earlier */
	size_t n;       /* entries queued */
	ir_heap_ent *tmp; /* scratch for sorting bucket 0 */
	size_t tcap;
} ir_heap;

void ir_heap_init(ir_heap *h);
void ir_heap_release(ir_heap *h);

/* Internal: grow bucket i, split the lowest bucket (the hot paths below are
 * inline because the engine calls them once or twice per event). */
int ir_heap_grow_(ir_heap *h, unsigned i);
int ir_heap_split_(ir_heap *h);

static inline unsigned ir_heap_bucket_(uint64_t t, uint64_t last)
{
	return t == last ? 0 : 64 - (unsigned)__builtin_clzll(t ^ last);
}

static inline int ir_heap_append_(ir_heap *h, unsigned i, const ir_heap_ent *x)
{
	if (h->bn[i] == h->bcap[i] && ir_heap_grow_(h, i))
		return -1;
	h->b[i][h->bn[i]++] = *x;
	if (i)
		h->mask |= (uint64_t)1 << (i - 1);
	return 0;
}

/* Bucket 0 gets x at its place in key order (x is smaller than its last entry). */
void ir_heap_insert0_(ir_heap *h, const ir_heap_ent *x);

/* Returns 0, -1 if memory runs out (the heap is unchanged), -2 if t is earlier
 * than the last popped time (a caller bug; the heap is unchanged). */
static inline int ir_heap_push_key(ir_heap *h, uint64_t t, uint64_t tc, uint32_t who, uint64_t seq, uint32_t ref)
{
	ir_heap_ent x;
	unsigned i;
	if (t < h->last)
		return -2;
	x.t = t;
	x.tc = tc;
	x.who = who;
	x.seq = seq;
	x.ref = ref;
	i = ir_heap_bucket_(t, h->last);
	if (i == 0 && h->head0 < h->bn[0] && ir_heap_key_lt(&x, &h->b[0][h->bn[0] - 1])) {
		if (h->bn[0] == h->bcap[0] && ir_heap_grow_(h, 0))
			return -1;
		ir_heap_insert0_(h, &x);
	} else if (ir_heap_append_(h, i, &x)) {
		return -1;
	}
	h->n++;
	return 0;
}

static inline int ir_heap_push(ir_heap *h, uint64_t t, uint32_t seq, uint32_t ref)
{
	return ir_heap_push_key(h, t, 0, 0, seq, ref);
}

/* The smallest entry: 1 and *top set, 0 when empty, -1 if memory runs out.
 * *top stays valid until the next push, pop or retime. */
static inline int ir_heap_top(ir_heap *h, ir_heap_ent **top)
{
	if (!h->n)
		return 0;
	if (h->head0 == h->bn[0] && ir_heap_split_(h))
		return -1;
	*top = &h->b[0][h->head0];
	return 1;
}

/* Remove the entry ir_heap_top() returned (which must precede this call). */
static inline void ir_heap_pop(ir_heap *h)
{
	h->head0++;
	h->n--;
	if (h->head0 == h->bn[0]) {
		h->head0 = 0;
		h->bn[0] = 0;
	}
}

/* Give the top (as returned by ir_heap_top) a later or equal time, keeping
 * its key; -1 if memory runs out. */
static inline int ir_heap_retime_top(ir_heap *h, uint64_t t)
{
	ir_heap_ent x = h->b[0][h->head0];
	unsigned i = ir_heap_bucket_(t, h->last);
	x.t = t;
	if (i == 0)
		return 0; /* same time: it stays the top */
	if (ir_heap_append_(h, i, &x))
		return -1;
	ir_heap_pop(h);
	h->n++; /* the entry is still queued */
	return 0;
}

/* The smallest time queued (h->n > 0), without changing the queue: for a
 * caller that must peek at its next time but may still push earlier entries
 * (ir_net_ib: the engine asks when to call the fabric next, then may inject
 * before that), so bucket 0 cannot be refilled by a split yet. When bucket 0
 * is empty this scans the lowest non-empty bucket; such a caller caches the
 * answer until its next push or pop. The engine never calls it, so its push
 * and pop carry no cache to keep. */
uint64_t ir_heap_min_scan_(const ir_heap *h);

static inline uint64_t ir_heap_min(const ir_heap *h)
{
	return h->head0 < h->bn[0] ? h->last : ir_heap_min_scan_(h);
}

/* Reassign sequence numbers base..base+n-1 in queue order; returns base+n
 * (the next free number), or 0 if memory runs out (nothing changed). The
 * caller guarantees base + n fits in 32 bits. */
uint32_t ir_heap_renumber(ir_heap *h, uint32_t base);

#endif
