/*
 * ir_smap.h: string keys on the library's one hash map (ir_hmap.h).
 *
 * The caller keeps its strings (an arena, a string buffer, an array of
 * records) and numbers them 0, 1, 2, ...; an ir_smap maps a string to its
 * number. The map stores no string: the caller computes a 64-bit hash h of
 * the string, and the string's key in the ir_hmap is h + c * IR_SMAP_STEP,
 * where c, its collision number, counts the strings already entered whose
 * search passed over that key (0 for the first string with hash h, 1 for
 * the next, ...); the value is the caller's number. A search tries the keys
 * of c = 0, 1, ... and asks the caller's equality function whether the
 * string each one names is the one sought; the first absent key ends it,
 * and is where a new string goes. So two strings with the same hash are
 * still told apart: a collision costs one more probe, never a wrong answer.
 * This holds even where the keys of two hashes meet (collision number 1 of
 * h is number 0 of h + IR_SMAP_STEP) because entries are never deleted: the
 * keys a string's search passed over when it was entered stay present, so
 * every later search for it reaches it.
 *
 * The collision number is folded into one key word rather than kept as the
 * second word of an IR_HMAP_PAIR key because a pair costs a second mix per
 * probe, and the step, odd, keeps the keys of one hash distinct. The search
 * loops are inline so that the caller's equality function is inlined too.
 *
 * The caller chooses the hash: ir_smap_hash (XXH64) by default, or another
 * one on a hot path; its quality matters only for speed, since ir_hmap
 * mixes the key again and equality is always confirmed. The unit test
 * forces collisions by passing hashes of a few bits.
 *
 * Why not a table of its own: one probing loop, one growth policy and one
 * set of tests for the library (the topology parsers' node names use it).
 * goalc's label table (ir_goal_text.c) keeps its own table: its hash keeps
 * sequential labels in consecutive slots, which ir_hmap's mixing cannot, and
 * goalc on ir_smap took 9-16 % more CPU time on label-heavy schedules.
 * Errors are returned (IR_SMAP_NONE), never printed. No deletion: no user
 * needs it, and it would break the searches described above.
 */
#ifndef IR_SMAP_H
#define IR_SMAP_H

#include <stddef.h>
#include <stdint.h>

#include "ir_hash.h"
#include "ir_hmap.h"

#define IR_SMAP_NONE UINT32_MAX
#define IR_SMAP_STEP UINT64_C(0x9E3779B97F4A7C15) /* odd: c -> h + c * step is one-to-one */

typedef struct ir_smap {
	ir_hmap m; /* h + c * IR_SMAP_STEP -> uint32_t string number */
} ir_smap;

/* Nonzero if the caller's string number idx is the n bytes at s. */
typedef int (*ir_smap_eq_fn)(const void *ctx, uint32_t idx, const char *s, size_t n);

/* The default hash of a string: XXH64 with seed 0. */
static inline uint64_t ir_smap_hash(const char *s, size_t n) { return ir_xxh64(s, n, 0); }

/* An empty map; cap0 as for ir_hmap_init (nothing is allocated before the
 * first insertion). */
void ir_smap_init(ir_smap *m, size_t cap0);
void ir_smap_release(ir_smap *m);

/* Remove every entry, keeping the memory. */
void ir_smap_clear(ir_smap *m);

/* The key of collision number c of hash h. */
static inline uint64_t ir_smap_key(uint64_t h, uint64_t c) { return h + c * IR_SMAP_STEP; }

/* The number of the string s[0..n) whose hash is h, or IR_SMAP_NONE. */
static inline uint32_t ir_smap_get(const ir_smap *m, uint64_t h, const char *s, size_t n, ir_smap_eq_fn eq,
                                   const void *ctx)
{
	for (uint64_t c = 0;; c++) {
		const uint32_t *v = (const uint32_t *)ir_hmap_get(&m->m, ir_smap_key(h, c), 0);
		if (!v)
			return IR_SMAP_NONE;
		if (eq(ctx, *v, s, n))
			return *v;
	}
}

/* The number of the string s[0..n) whose hash is h if present; otherwise
 * the string is entered with number idx (not IR_SMAP_NONE), and idx is
 * returned: a result equal to idx means "new" when idx was not yet in use.
 * IR_SMAP_NONE if memory runs out (the map is unchanged). */
static inline uint32_t ir_smap_put(ir_smap *m, uint64_t h, const char *s, size_t n, ir_smap_eq_fn eq,
                                   const void *ctx, uint32_t idx)
{
	for (uint64_t c = 0;; c++) {
		int isnew;
		uint32_t *v = (uint32_t *)ir_hmap_put(&m->m, ir_smap_key(h, c), 0, &isnew);
		if (!v)
			return IR_SMAP_NONE;
		if (isnew) {
			*v = idx;
			return idx;
		}
		if (eq(ctx, *v, s, n))
			return *v;
	}
}

/* The number of entries. */
static inline size_t ir_smap_count(const ir_smap *m) { return m->m.n; }

#endif
