/*
 * ir_smap.h: string keys on the library's one hash map (ir_hmap.h).
 *
 * The caller keeps its strings (an arena, a string buffer, an array of
 * records) and numbers them 0, 1, 2, ...; an ir_smap maps a string to its
 * number. The map stores no string: its key is the pair (h, c) of ir_hmap
 * with IR_HMAP_PAIR, where h is a 64-bit hash of the string computed by the
 * caller and c counts the strings already stored with the same h (0 for the
 * first, 1 for the next, ...); the value is the caller's number. A lookup
 * tries (h, 0), (h, 1), ... and asks the caller's equality function whether
 * the string it names is the one sought, so two strings with the same hash
 * are still told apart: a collision costs one more probe, never a wrong
 * answer. Since entries are never deleted, the counters of one h have no
 * holes and the first absent (h, c) ends the search.
 *
 * The caller chooses the hash: ir_smap_hash (XXH64) by default, or a cheaper
 * one on a hot path; its quality matters only for speed, since ir_hmap mixes
 * the key again and equality is always confirmed. The unit test forces
 * collisions by passing a hash of a few bits.
 *
 * Why not a table of its own: one probing loop, one growth policy and one
 * set of tests for the whole library (goalc's labels, the topology parsers'
 * node names). The cost is one call of the equality function per candidate,
 * in practice one per lookup. Errors are returned (IR_SMAP_NONE), never
 * printed. No deletion: none of the users needs it, and without it the
 * collision counters stay dense.
 */
#ifndef IR_SMAP_H
#define IR_SMAP_H

#include <stddef.h>
#include <stdint.h>

#include "ir_hash.h"
#include "ir_hmap.h"

#define IR_SMAP_NONE UINT32_MAX

typedef struct ir_smap {
	ir_hmap m; /* (hash, collision number) -> uint32_t string number */
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

/* The number of the string s[0..n) whose hash is h, or IR_SMAP_NONE. */
uint32_t ir_smap_get(const ir_smap *m, uint64_t h, const char *s, size_t n, ir_smap_eq_fn eq, const void *ctx);

/* The number of the string s[0..n) whose hash is h if present; otherwise
 * the string is entered with number idx (not IR_SMAP_NONE), and idx is
 * returned: a result equal to idx means "new" when idx was not yet in use.
 * IR_SMAP_NONE if memory runs out (the map is unchanged). */
uint32_t ir_smap_put(ir_smap *m, uint64_t h, const char *s, size_t n, ir_smap_eq_fn eq, const void *ctx,
                     uint32_t idx);

/* The number of entries. */
static inline size_t ir_smap_count(const ir_smap *m) { return m->m.n; }

#endif
