/*
 * u-smap.c: string keys on the hash map (lib/ir_smap.c).
 *
 * The strings live in the test's own arena, numbered in insertion order, as
 * the users keep them. Collisions are forced by passing hashes of a few bits
 * (and a constant hash), so many strings share each (hash) and only the
 * collision counter and the equality function tell them apart; then many
 * keys with the full XXH64. Every string inserted must be found with its
 * number, every string not inserted must not be, prefixes and strings that
 * differ in length only included; clear empties the map.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_smap.h"
#include "tap.h"

typedef struct strs {
	char *arena;
	size_t *off, *len;
	size_t n, used;
	unsigned long ncmp;
} strs;

static int eq(const void *ctx, uint32_t idx, const char *s, size_t n)
{
	strs *t = (strs *)ctx;
	t->ncmp++;
	return idx < t->n && t->len[idx] == n && memcmp(t->arena + t->off[idx], s, n) == 0;
}

static void add(strs *t, const char *s, size_t n)
{
	memcpy(t->arena + t->used, s, n);
	t->off[t->n] = t->used;
	t->len[t->n] = n;
	t->used += n;
	t->n++;
}

/* Key i: "k<i/2>" for even i, "k<i/2>x" for odd i, so every other key is a
 * prefix of the next; absent keys start with 'z'. */
static size_t key(char *b, unsigned i, int absent)
{
	int n = snprintf(b, 32, "%s%u%s", absent ? "z" : "k", i / 2, i % 2 ? "x" : "");
	return (size_t)n;
}

/* The hash cut to `bits` bits, times mul: with mul = IR_SMAP_STEP the
 * collision chains of different hashes run into each other (the key of
 * collision number 1 of hash h is the key of collision number 0 of hash
 * h + IR_SMAP_STEP). */
static uint64_t mul = 1;
static uint64_t hash_bits(const char *s, size_t n, unsigned bits)
{
	uint64_t h = ir_smap_hash(s, n);
	return (bits >= 64 ? h : h & ((UINT64_C(1) << bits) - 1)) * mul;
}

/* Insert nkeys keys under a hash of `bits` bits, look each up, look up as
 * many absent keys; 0 if all answers are right. */
static int run(unsigned nkeys, unsigned bits, size_t cap0)
{
	strs t = {0};
	ir_smap m;
	char b[32];
	int bad = 0;
	t.arena = malloc((size_t)nkeys * 32);
	t.off = malloc(nkeys * sizeof *t.off);
	t.len = malloc(nkeys * sizeof *t.len);
	ir_smap_init(&m, cap0);
	for (unsigned i = 0; i < nkeys && !bad; i++) {
		size_t n = key(b, i, 0);
		uint64_t h = hash_bits(b, n, bits);
		uint32_t r;
		if (i % 2 == 0 && ir_smap_get(&m, h, b, n, eq, &t) != IR_SMAP_NONE)
			bad++;
		r = ir_smap_put(&m, h, b, n, eq, &t, (uint32_t)t.n);
		if (r != t.n)
			bad++;
		add(&t, b, n);
		if (ir_smap_put(&m, h, b, n, eq, &t, (uint32_t)t.n) != r)
			bad++;
	}
	for (unsigned i = 0; i < nkeys && !bad; i++) {
		size_t n = key(b, i, 0);
		if (ir_smap_get(&m, hash_bits(b, n, bits), b, n, eq, &t) != i)
			bad++;
		n = key(b, i, 1);
		if (ir_smap_get(&m, hash_bits(b, n, bits), b, n, eq, &t) != IR_SMAP_NONE)
			bad++;
	}
	if (ir_smap_count(&m) != nkeys)
		bad++;
	ir_smap_release(&m);
	free(t.arena);
	free(t.off);
	free(t.len);
	return bad;
}

int main(void)
{
	strs t = {0};
	char arena[64];
	size_t off[4], len[4];
	ir_smap m;
	uint64_t h = 42;

	t.arena = arena;
	t.off = off;
	t.len = len;
	ir_smap_init(&m, 0);
	ok(ir_smap_get(&m, h, "a", 1, eq, &t) == IR_SMAP_NONE && t.ncmp == 0,
	   "an empty map finds nothing and compares nothing");
	ok(ir_smap_put(&m, h, "ab", 2, eq, &t, 0) == 0, "a new string gets the number given");
	add(&t, "ab", 2);
	/* the same hash for every string: the collision counter tells them apart */
	ok(ir_smap_put(&m, h, "a", 1, eq, &t, 1) == 1, "a prefix with the same hash is a different key");
	add(&t, "a", 1);
	ok(ir_smap_put(&m, h, "", 0, eq, &t, 2) == 2, "the empty string is a key like any other");
	add(&t, "", 0);
	ok(ir_smap_put(&m, h, "a", 1, eq, &t, 3) == 1 && ir_smap_count(&m) == 3,
	   "putting a present string returns its number and adds nothing");
	ok(ir_smap_get(&m, h, "ab", 2, eq, &t) == 0 && ir_smap_get(&m, h, "a", 1, eq, &t) == 1 &&
	       ir_smap_get(&m, h, "", 0, eq, &t) == 2 && ir_smap_get(&m, h, "abc", 3, eq, &t) == IR_SMAP_NONE,
	   "three strings under one hash: each found, a fourth not");
	ok(ir_smap_get(&m, h + 1, "ab", 2, eq, &t) == IR_SMAP_NONE, "the hash is part of the key");
	ok(ir_hmap_get(&m.m, ir_smap_key(h, 2), 0) != NULL && ir_hmap_get(&m.m, ir_smap_key(h, 3), 0) == NULL,
	   "collision numbers 0, 1, 2 are taken in turn");
	ir_smap_clear(&m);
	ok(ir_smap_count(&m) == 0 && m.m.cap > 0 && ir_smap_get(&m, h, "ab", 2, eq, &t) == IR_SMAP_NONE,
	   "clear empties the map and keeps its memory");
	ir_smap_release(&m);

	ok(run(1000, 0, 0) == 0, "1000 strings, all with hash 0");
	ok(run(5000, 3, 16) == 0, "5000 strings over a 3-bit hash");
	ok(run(20000, 10, 0) == 0, "20000 strings over a 10-bit hash");
	mul = IR_SMAP_STEP;
	ok(run(3000, 2, 0) == 0, "3000 strings over a 2-bit hash whose collision chains overlap");
	ok(run(20000, 8, 0) == 0, "20000 strings over an 8-bit hash whose collision chains overlap");
	mul = 1;
	ok(run(300000, 64, 0) == 0, "300000 strings over the full hash");
	ok(run(300000, 64, 1u << 20) == 0, "300000 strings, capacity given up front");
	return tap_done();
}
