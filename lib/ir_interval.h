/*
 * ir_interval.h: a set of disjoint half-open intervals [a, b) of 64-bit
 * addresses with logarithmic insert and merge; trace2goal's registration
 * cache (--pin) asks it how many bytes of a buffer were never used before.
 *
 * Adding [a, b) returns how many of its bytes were not yet in the set and
 * merges it with every interval it overlaps or touches, so the set always
 * holds maximal disjoint intervals, sorted by start. The structure is a treap
 * (a binary search tree on the start address with random heap priorities):
 * an add splits the tree at a and at b, drops the k intervals that fall in
 * between, merges the neighbour on the left if it reaches a, and joins the
 * pieces again: O(log n + k) expected, and each interval is dropped at most
 * once, so n adds cost O(n log n) overall. The sorted array it replaced paid
 * O(n) memmove per insert, quadratic for programs that register many
 * distinct buffers.
 *
 * Nodes live in one growable array with a free list (no per-node malloc);
 * memory is 32 bytes per interval held. The caller owns the struct:
 * ir_ivset_init() / ir_ivset_release(); ir_ivset_clear() empties it and keeps
 * the memory.
 */
#ifndef IR_INTERVAL_H
#define IR_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct ir_ivnode {
	uint64_t a, b;       /* [a, b) */
	uint32_t l, r;       /* children (index + 1; 0 = none) */
	uint32_t prio;
	uint32_t pad;
} ir_ivnode;

typedef struct ir_ivset {
	ir_ivnode *n;        /* n[i - 1] is node i */
	uint32_t root;       /* 0: empty */
	uint32_t free;       /* free list through .l */
	size_t used, cap;    /* nodes handed out of n; allocated */
	size_t count;        /* intervals in the set */
	uint64_t covered;    /* bytes in the set */
	uint64_t rng;
} ir_ivset;

void ir_ivset_init(ir_ivset *s);
void ir_ivset_release(ir_ivset *s);
void ir_ivset_clear(ir_ivset *s);

/* Add the n bytes at a (an end beyond 2^64 - 1 is cut there). *fresh gets how
 * many of them were not in the set. Returns 0, or -1 when out of memory (the
 * set is then unchanged). */
int ir_ivset_add(ir_ivset *s, uint64_t a, uint64_t n, uint64_t *fresh);

/* 1 if the byte at x is in the set. */
int ir_ivset_contains(const ir_ivset *s, uint64_t x);

/* Visit the intervals in increasing order; stops early when fn returns non-zero. */
void ir_ivset_walk(const ir_ivset *s, int (*fn)(void *ctx, uint64_t a, uint64_t b), void *ctx);

#endif
