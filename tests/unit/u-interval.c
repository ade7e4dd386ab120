/*
 * u-interval.c: the interval set of the registration cache against a
 * brute-force model (a byte map) on random adds: the fresh byte counts, the
 * membership of every byte, the intervals themselves (maximal, sorted,
 * disjoint), the totals; the edges (zero length, the top of the address
 * space, touching neighbours); and that the tree stays shallow (logarithmic)
 * under a million adds in random and in sorted order.
 */
#include <math.h>
#include <stdlib.h>

#include "ir_interval.h"
#include "tap.h"

#define SPACE 2048

static uint64_t rng = 88172645463325252ULL;

static uint64_t xr(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

typedef struct cmpctx {
	const unsigned char *map;
	uint64_t pos; /* next byte that must be outside any interval */
	int bad;
	size_t n;
} cmpctx;

/* every interval must be a maximal run of the model's map, in order */
static int check_iv(void *p, uint64_t a, uint64_t b)
{
	cmpctx *c = p;
	c->n++;
	if (a < c->pos || a >= b || b > SPACE) {
		c->bad = 1;
		return 1;
	}
	for (uint64_t x = c->pos; x < a; x++)
		if (c->map[x])
			c->bad = 1;
	for (uint64_t x = a; x < b; x++)
		if (!c->map[x])
			c->bad = 1;
	if (a > 0 && c->map[a - 1])
		c->bad = 1; /* not maximal on the left */
	if (b < SPACE && c->map[b])
		c->bad = 1; /* not maximal on the right */
	c->pos = b;
	return c->bad;
}

static unsigned depth(const ir_ivset *s, uint32_t t)
{
	unsigned dl, dr;
	if (!t)
		return 0;
	dl = depth(s, s->n[t - 1].l);
	dr = depth(s, s->n[t - 1].r);
	return 1 + (dl > dr ? dl : dr);
}

static int collect(void *p, uint64_t a, uint64_t b)
{
	uint64_t *v = p;
	v[0]++;
	v[1] = a;
	v[2] = b;
	return 0;
}

int main(void)
{
	ir_ivset s;
	unsigned char map[SPACE];
	uint64_t fresh, v[3];
	int bad_fresh = 0, bad_member = 0, bad_iv = 0, bad_total = 0;

	/* random operations against the model, several rounds with clears in between */
	ir_ivset_init(&s);
	for (int round = 0; round < 40; round++) {
		size_t ones = 0;
		memset(map, 0, sizeof map);
		ir_ivset_clear(&s);
		for (int op = 0; op < 400; op++) {
			/* mostly short buffers, sometimes long ones, sometimes empty */
			uint64_t a = xr() % SPACE, n = (xr() % 8) ? xr() % 24 : xr() % 400, want = 0;
			if (a + n > SPACE)
				n = SPACE - a;
			for (uint64_t x = a; x < a + n; x++)
				if (!map[x]) {
					map[x] = 1;
					want++;
					ones++;
				}
			if (ir_ivset_add(&s, a, n, &fresh) || fresh != want)
				bad_fresh++;
			if (op % 50 == 49) {
				cmpctx c = { map, 0, 0, 0 };
				size_t runs = 0;
				for (uint64_t x = 0; x < SPACE; x++) {
					if (ir_ivset_contains(&s, x) != map[x])
						bad_member++;
					if (map[x] && (x == 0 || !map[x - 1]))
						runs++;
				}
				ir_ivset_walk(&s, check_iv, &c);
				for (uint64_t x = c.pos; x < SPACE; x++)
					if (map[x])
						c.bad = 1;
				if (c.bad || c.n != runs || s.count != runs)
					bad_iv++;
				if (s.covered != ones)
					bad_total++;
			}
		}
	}
	ok(bad_fresh == 0, "fresh byte counts agree with the model (16000 random adds)");
	ok(bad_member == 0, "membership of every byte agrees with the model");
	ok(bad_iv == 0, "intervals are the model's maximal runs, sorted and disjoint");
	ok(bad_total == 0, "covered bytes agree with the model");

	/* edges */
	ir_ivset_clear(&s);
	ok(ir_ivset_add(&s, 100, 0, &fresh) == 0 && fresh == 0 && s.count == 0, "zero length adds nothing");
	ir_ivset_add(&s, 100, 10, &fresh);
	ir_ivset_add(&s, 120, 10, &fresh);
	ok(s.count == 2 && fresh == 10, "two separate intervals");
	ok(ir_ivset_add(&s, 110, 10, &fresh) == 0 && fresh == 10 && s.count == 1, "a gap filled exactly merges three into one");
	v[0] = 0;
	ir_ivset_walk(&s, collect, v);
	ok(v[0] == 1 && v[1] == 100 && v[2] == 130, "the merged interval is [100, 130)");
	ok(ir_ivset_add(&s, 90, 10, &fresh) == 0 && fresh == 10 && s.count == 1, "touching on the left merges");
	ok(ir_ivset_add(&s, 130, 1, &fresh) == 0 && fresh == 1 && s.count == 1, "touching on the right merges");
	ok(ir_ivset_add(&s, 80, 100, &fresh) == 0 && fresh == 100 - 41 && s.count == 1 && s.covered == 100,
	   "a cover of the whole set counts only the new bytes");
	ok(ir_ivset_add(&s, UINT64_MAX - 5, 100, &fresh) == 0 && fresh == 5 && ir_ivset_contains(&s, UINT64_MAX - 1) &&
	   !ir_ivset_contains(&s, UINT64_MAX - 6), "an end beyond 2^64-1 is cut there");
	ok(ir_ivset_add(&s, UINT64_MAX - 10, 7, &fresh) == 0 && fresh == 5 && s.count == 2,
	   "merging at the top of the address space");

	/* logarithmic depth: 200000 distinct buffers in random and in increasing order */
	{
		const uint32_t n = 200000;
		unsigned d1, d2;
		uint64_t total = 0;
		ir_ivset_clear(&s);
		for (uint32_t i = 0; i < n; i++) {
			uint64_t a = (xr() % ((uint64_t)1 << 40)) * 64;
			ir_ivset_add(&s, a, 32, &fresh);
			total += fresh;
		}
		d1 = depth(&s, s.root);
		ok(s.covered == total && s.count <= n, "random buffers: totals consistent (%zu intervals)", s.count);
		ir_ivset_clear(&s);
		for (uint32_t i = 0; i < n; i++)
			ir_ivset_add(&s, (uint64_t)i * 4096, 100, &fresh);
		d2 = depth(&s, s.root);
		ok(s.count == n, "increasing buffers: one interval each");
		ok(d1 < 4 * log2((double)n) && d2 < 4 * log2((double)n), "tree depth stays logarithmic (%u and %u for 2e5)",
		   d1, d2);
		/* one add covering everything collapses the set */
		ok(ir_ivset_add(&s, 0, (uint64_t)n * 4096, &fresh) == 0 && s.count == 1 &&
		   fresh == (uint64_t)n * 4096 - (uint64_t)n * 100, "one add covering 200000 intervals merges them");
	}
	ir_ivset_release(&s);
	return tap_done();
}
