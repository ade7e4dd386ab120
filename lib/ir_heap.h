/*
 * ir_heap.h: the simulator's event queue: a radix heap popped in exact (time,
 * tie key) order, in two types: ir_heap, 16-byte entries keyed by a sequence
 * number, and ir_kheap, 32-byte entries keyed by the engine's tie key.
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
 * Two types, one code (lib/ir_heap_tmpl.h). ir_heap's key is a 32-bit
 * sequence number, unique and growing (the engine's default order, the
 * InfiniBand fabric); when its caller runs out of numbers it calls
 * ir_heap_renumber(), which keeps the order and compacts the numbers.
 * ir_kheap's key is the engine's (creation time, creating rank, that rank's
 * counter), which needs no global counter and is the same whichever process
 * simulates the item (docs/loggops-semantics.md §2, lib/ir_par.c); there a new
 * key may be smaller than keys already queued at the same time (an item made at
 * t by rank 3 after one made at t by rank 7).
 *
 * `ref` is the caller's 32-bit handle of the item (op or message). Memory:
 * 16 (ir_heap) or 32 (ir_kheap) bytes per queued entry in growable bucket
 * arrays, and a scratch array for the sort; a large bucket's array (and a large scratch array) is freed when it
 * is no longer used, so a burst does not pin memory.
 */
#ifndef IR_HEAP_H
#define IR_HEAP_H

#include <stddef.h>
#include <stdint.h>

#define IR_HEAP_BUCKETS 65
#define IR_HEAP_BIG_BUCKET 65536 /* entries: free such an array when its bucket empties */

static inline unsigned ir_heap_bucket_(uint64_t t, uint64_t last)
{
	return t == last ? 0 : 64 - (unsigned)__builtin_clzll(t ^ last);
}

/* ---- ir_heap: (time, sequence number) ---- */

typedef struct ir_heap_ent {
	uint64_t t;
	uint32_t ref;
	uint32_t seq;
} ir_heap_ent;

static inline int ir_heap_seq_lt_(const ir_heap_ent *a, const ir_heap_ent *b) { return a->seq < b->seq; }

#define IR_HEAP_T ir_heap
#define IR_HEAP_ENT ir_heap_ent
#define IR_HEAP_F(x) ir_heap_##x
#define IR_HEAP_LT ir_heap_seq_lt_
#define IR_HEAP_GROWING
#include "ir_heap_tmpl.h"
#undef IR_HEAP_T
#undef IR_HEAP_ENT
#undef IR_HEAP_F
#undef IR_HEAP_LT
#undef IR_HEAP_GROWING

static inline int ir_heap_push(ir_heap *h, uint64_t t, uint32_t seq, uint32_t ref)
{
	ir_heap_ent x;
	x.t = t;
	x.ref = ref;
	x.seq = seq;
	return ir_heap_push_ent(h, &x);
}

/* Reassign sequence numbers base..base+n-1 in queue order; returns base+n
 * (the next free number), or 0 if memory runs out (nothing changed). The
 * caller guarantees base + n fits in 32 bits. */
uint32_t ir_heap_renumber(ir_heap *h, uint32_t base);

/* ---- ir_kheap: (time, tc, who, seq) ---- */

typedef struct ir_kheap_ent {
	uint64_t t;
	uint32_t ref;
	uint32_t who;  /* tie key, compared in this order: tc, who, seq */
	uint64_t tc;
	uint64_t seq;
} ir_kheap_ent;

/* a before b in the order of ties */
static inline int ir_kheap_key_lt(const ir_kheap_ent *a, const ir_kheap_ent *b)
{
	if (a->tc != b->tc)
		return a->tc < b->tc;
	if (a->who != b->who)
		return a->who < b->who;
	return a->seq < b->seq;
}

#define IR_HEAP_T ir_kheap
#define IR_HEAP_ENT ir_kheap_ent
#define IR_HEAP_F(x) ir_kheap_##x
#define IR_HEAP_LT ir_kheap_key_lt
#include "ir_heap_tmpl.h"
#undef IR_HEAP_T
#undef IR_HEAP_ENT
#undef IR_HEAP_F
#undef IR_HEAP_LT

static inline int ir_kheap_push(ir_kheap *h, uint64_t t, uint64_t tc, uint32_t who, uint64_t seq, uint32_t ref)
{
	ir_kheap_ent x;
	x.t = t;
	x.ref = ref;
	x.who = who;
	x.tc = tc;
	x.seq = seq;
	return ir_kheap_push_ent(h, &x);
}

#endif
