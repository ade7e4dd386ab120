/*
 * ir_hmap.h: the library's one hash map: integer keys to fixed-size values,
 * open addressing with linear probing and backward-shift deletion.
 *
 * A key is one 64-bit word a, or with IR_HMAP_PAIR a pair of words (a, b);
 * one-word maps take b = 0 in the calls below (trace2goal's request and
 * communicator tables, the ib fabric's per-pair ordering state); ir_tsync
 * keys its channels by the pair (src << 32 | dst, tag). String keys go
 * through ir_smap.h, which keys this map by a hash of the string. Every key is
 * allowed, 0 included: occupancy is a byte per slot, not a reserved key.
 * Values are stored in the slots (vsize bytes each, zeroed on insertion), so
 * a lookup costs no indirection beyond the table; a value pointer stays valid
 * until the next insertion (which may grow the table) or deletion (which
 * shifts entries back).
 *
 * The capacity is a power of two, at least the cap0 given to ir_hmap_init,
 * allocated on the first insertion and doubled before the load exceeds 1/2
 * (3/4 with IR_HMAP_DENSE, for maps where memory matters more than the
 * probe count). Slot positions, and so the iteration order of ir_hmap_at,
 * depend only on the flags and the sequence of insertions and deletions:
 * the same operations give the same order on every run and machine (trace2goal
 * writes some definitions in slot order, so its output depends on this).
 *
 * Why linear probing over chaining: the tables are small and hot, a probe
 * run stays in one or two cache lines, and deletion needs no tombstones.
 * Why one mixer (MurmurHash3's 64-bit finaliser) for both words: the keys
 * are structured (rank pairs, small counters), and a weak multiplicative
 * hash clusters them. Errors are returned (NULL, -1), never printed.
 */
#ifndef IR_HMAP_H
#define IR_HMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ir_hmap {
	uint64_t *key;        /* [cap][2] */
	unsigned char *used;  /* [cap]: 1 if the slot holds an entry */
	unsigned char *val;   /* [cap * vsize] */
	size_t vsize, cap0, cap, n;
	unsigned flags;
} ir_hmap;

enum {
	IR_HMAP_PAIR = 1,  /* keys are two words (a, b) */
	IR_HMAP_DENSE = 2  /* grow at load 3/4 instead of 1/2 */
};

/* MurmurHash3's 64-bit finaliser: the one integer mixer of the library. */
static inline uint64_t ir_hmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* An empty map of values of vsize bytes (at least 1); cap0 (rounded up to a
 * power of two, at least 2) is the capacity of the first allocation; flags
 * are IR_HMAP_* or 0. */
void ir_hmap_init(ir_hmap *m, size_t vsize, size_t cap0, unsigned flags);
void ir_hmap_release(ir_hmap *m);

/* The value of key (a, b), or NULL if absent. */
void *ir_hmap_get(const ir_hmap *m, uint64_t a, uint64_t b);

/* The value of key (a, b), inserted (zeroed, *isnew = 1) if absent; NULL if
 * memory runs out (the map is unchanged). isnew may be NULL. */
void *ir_hmap_put(ir_hmap *m, uint64_t a, uint64_t b, int *isnew);

/* Remove the entry whose value v points to (from get, put or at). */
void ir_hmap_del(ir_hmap *m, void *v);

/* Slot i (0 <= i < m->cap): its value, or NULL if the slot is empty. For
 * iteration; the order is the slot order. */
static inline void *ir_hmap_at(const ir_hmap *m, size_t i)
{
	return m->used[i] ? m->val + i * m->vsize : NULL;
}

/* The key word(s) of slot i (which must hold an entry). */
static inline uint64_t ir_hmap_key_a(const ir_hmap *m, size_t i) { return m->key[2 * i]; }
static inline uint64_t ir_hmap_key_b(const ir_hmap *m, size_t i) { return m->key[2 * i + 1]; }

/* Remove every entry, keeping the memory. */
void ir_hmap_clear(ir_hmap *m);

#endif
