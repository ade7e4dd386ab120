/*
 * u-hmap.c: the hash map (lib/ir_hmap.c) against a reference model.
 *
 * The reference is an array searched linearly. Random insertions, lookups
 * and deletions over a small key space (so keys repeat and probe runs
 * collide), with the key (0, 0) and keys differing only in the second word,
 * for pair and one-word keys and both load limits,
 * must agree with the model at every step; iteration must visit every entry
 * once; growth keeps values; clear empties the map and keeps its memory.
 */
#include <stdlib.h>
#include <string.h>

#include "ir_hmap.h"
#include "tap.h"

typedef struct val {
	uint64_t a, b;
	uint32_t x;
} val;

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int run(unsigned steps, unsigned keys, size_t cap0, unsigned flags)
{
	ir_hmap m;
	val *ref = calloc(keys * 2, sizeof *ref);
	size_t nref = 0;
	int bad = 0;
	ir_hmap_init(&m, sizeof(val), cap0, flags);
	for (unsigned s = 0; s < steps && !bad; s++) {
		uint64_t a = rnd() % keys, b = flags & IR_HMAP_PAIR ? rnd() % 2 : 0;
		unsigned op = (unsigned)(rnd() % 10);
		size_t r;
		val *v;
		for (r = 0; r < nref && (ref[r].a != a || ref[r].b != b); r++)
			;
		v = ir_hmap_get(&m, a, b);
		if ((v != NULL) != (r < nref) || (v && (v->a != a || v->b != b || v->x != ref[r].x))) {
			bad++;
			break;
		}
		if (op < 6) {
			int isnew;
			v = ir_hmap_put(&m, a, b, &isnew);
			if (!v || isnew != (r == nref) || (isnew && (v->a || v->b || v->x))) {
				bad++;
				break;
			}
			if (isnew) {
				ref[nref].a = a;
				ref[nref].b = b;
				nref++;
			}
			v->a = a;
			v->b = b;
			v->x = ref[r].x = (uint32_t)rnd();
		} else if (v) {
			ir_hmap_del(&m, v);
			ref[r] = ref[--nref];
		}
		if (m.n != nref || (m.cap && m.n * 4 > m.cap * (flags & IR_HMAP_DENSE ? 3 : 2)))
			bad++;
	}
	{
		size_t seen = 0;
		for (size_t i = 0; i < m.cap; i++) {
			val *v = ir_hmap_at(&m, i);
			if (!v)
				continue;
			seen++;
			if (ir_hmap_key_a(&m, i) != v->a || ir_hmap_key_b(&m, i) != v->b ||
			    ir_hmap_get(&m, v->a, v->b) != v)
				bad++;
		}
		if (seen != nref)
			bad++;
	}
	ir_hmap_release(&m);
	free(ref);
	return bad;
}

int main(void)
{
	ir_hmap m;
	uint32_t *v;
	int isnew = 0, good = 1;

	ir_hmap_init(&m, sizeof(uint32_t), 0, IR_HMAP_PAIR);
	ok(ir_hmap_get(&m, 0, 0) == NULL && m.cap == 0, "an empty map allocates nothing and finds nothing");
	v = ir_hmap_put(&m, 0, 0, &isnew);
	ok(v && isnew && *v == 0 && m.cap == 2, "key (0, 0) is a key like any other; first capacity 2");
	*v = 7;
	v = ir_hmap_put(&m, 0, 0, &isnew);
	ok(v && !isnew && *v == 7, "putting an existing key returns its value");
	ok(ir_hmap_get(&m, 0, 1) == NULL && ir_hmap_get(&m, 1, 0) == NULL, "keys differing in one word differ");
	for (uint32_t i = 1; i < 1000; i++) {
		v = ir_hmap_put(&m, i, i * 3, NULL);
		if (!v) {
			good = 0;
			break;
		}
		*v = i;
	}
	for (uint32_t i = 1; i < 1000 && good; i++) {
		v = ir_hmap_get(&m, i, i * 3);
		good = v && *v == i;
	}
	ok(good && m.n == 1000 && m.cap == 2048, "growth keeps every value; load stays at most 1/2");
	ir_hmap_clear(&m);
	ok(m.n == 0 && m.cap == 2048 && ir_hmap_get(&m, 5, 15) == NULL, "clear empties the map and keeps its memory");
	ir_hmap_release(&m);
	ok(m.cap == 0 && m.n == 0 && m.key == NULL, "release frees everything");

	ir_hmap_init(&m, 4, 100, 0);
	ok(m.cap0 == 128, "cap0 rounds up to a power of two");
	ir_hmap_release(&m);

	ok(run(20000, 8, 2, IR_HMAP_PAIR) == 0, "random: few keys, tiny table");
	ok(run(50000, 300, 16, IR_HMAP_PAIR) == 0, "random: growth and deletion");
	ok(run(50000, 5000, 256, IR_HMAP_PAIR) == 0, "random: many keys");
	ok(run(50000, 300, 16, 0) == 0, "random: one-word keys");
	ok(run(50000, 3000, 64, IR_HMAP_DENSE) == 0, "random: one-word keys, load up to 3/4");
	return tap_done();
}
