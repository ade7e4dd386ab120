/*
 * ir_hmap.c: the hash map (see ir_hmap.h for the contract and why).
 *
 * Home slot: mix(a) for one-word keys, mix(a ^ mix(b + 2^64/phi)) for pairs,
 * masked to the capacity.
 * Deletion shifts the following entries of the probe run back into the
 * hole unless an entry's home lies cyclically in (hole, entry], so lookups
 * stop at the first empty slot and no tombstones accumulate.
 */
#include "ir_hmap.h"

#include <stdlib.h>
#include <string.h>

static inline size_t home(const ir_hmap *m, uint64_t a, uint64_t b)
{
	if (m->flags & IR_HMAP_PAIR)
		a ^= ir_hmix64(b + 0x9E3779B97F4A7C15ULL);
	return (size_t)ir_hmix64(a) & (m->cap - 1);
}

void ir_hmap_init(ir_hmap *m, size_t vsize, size_t cap0, unsigned flags)
{
	size_t c = 2;
	while (c < cap0 && c < ((size_t)1 << (sizeof(size_t) * 8 - 2)))
		c *= 2;
	memset(m, 0, sizeof *m);
	m->vsize = vsize ? vsize : 1;
	m->cap0 = c;
	m->flags = flags;
}

void ir_hmap_release(ir_hmap *m)
{
	size_t vsize = m->vsize, cap0 = m->cap0;
	unsigned flags = m->flags;
	free(m->key);
	free(m->used);
	free(m->val);
	memset(m, 0, sizeof *m);
	m->vsize = vsize;
	m->cap0 = cap0;
	m->flags = flags;
}

/* Move to capacity nc (a power of two, larger than n * 2). */
static int rehash(ir_hmap *m, size_t nc)
{
	uint64_t *nk;
	unsigned char *nu, *nv;
	ir_hmap old = *m;
	if (nc > SIZE_MAX / (2 * sizeof *nk) || nc > SIZE_MAX / m->vsize)
		return -1;
	nk = malloc(nc * 2 * sizeof *nk);
	nu = calloc(nc, 1);
	nv = malloc(nc * m->vsize);
	if (!nk || !nu || !nv) {
		free(nk);
		free(nu);
		free(nv);
		return -1;
	}
	m->key = nk;
	m->used = nu;
	m->val = nv;
	m->cap = nc;
	for (size_t i = 0; i < old.cap; i++) {
		size_t j;
		if (!old.used[i])
			continue;
		for (j = home(m, old.key[2 * i], old.key[2 * i + 1]); nu[j]; j = (j + 1) & (nc - 1))
			;
		nu[j] = 1;
		nk[2 * j] = old.key[2 * i];
		nk[2 * j + 1] = old.key[2 * i + 1];
		memcpy(nv + j * m->vsize, old.val + i * m->vsize, m->vsize);
	}
	free(old.key);
	free(old.used);
	free(old.val);
	return 0;
}

/* The slot of key (a, b) if present (return 1), else the first empty slot
 * of its probe run, where an insertion puts it (return 0). m->cap > 0. */
static inline int find(const ir_hmap *m, uint64_t a, uint64_t b, size_t *slot)
{
	size_t j;
	for (j = home(m, a, b); m->used[j]; j = (j + 1) & (m->cap - 1))
		if (m->key[2 * j] == a && m->key[2 * j + 1] == b) {
			*slot = j;
			return 1;
		}
	*slot = j;
	return 0;
}

void *ir_hmap_get(const ir_hmap *m, uint64_t a, uint64_t b)
{
	size_t j;
	if (!m->n || !find(m, a, b, &j))
		return NULL;
	return m->val + j * m->vsize;
}

void *ir_hmap_put(ir_hmap *m, uint64_t a, uint64_t b, int *isnew)
{
	size_t j = 0;
	void *v;
	if (m->cap && find(m, a, b, &j)) {
		if (isnew)
			*isnew = 0;
		return m->val + j * m->vsize;
	}
	if (isnew)
		*isnew = 1;
	/* after a growth the key's empty slot is looked for again; otherwise it
	 * is the one find stopped at, as if probed anew */
	if (!m->cap) {
		if (rehash(m, m->cap0))
			return NULL;
		find(m, a, b, &j);
	} else if ((m->n + 1) * 4 > m->cap * (m->flags & IR_HMAP_DENSE ? 3 : 2)) {
		if (m->cap > SIZE_MAX / 4 || rehash(m, m->cap * 2))
			return NULL;
		find(m, a, b, &j);
	}
	m->used[j] = 1;
	m->key[2 * j] = a;
	m->key[2 * j + 1] = b;
	m->n++;
	v = m->val + j * m->vsize;
	memset(v, 0, m->vsize);
	return v;
}

void ir_hmap_del(ir_hmap *m, void *v)
{
	size_t mask = m->cap - 1, i = (size_t)((unsigned char *)v - m->val) / m->vsize, j = i;
	for (;;) {
		size_t h;
		j = (j + 1) & mask;
		if (!m->used[j])
			break;
		h = home(m, m->key[2 * j], m->key[2 * j + 1]);
		/* move j back to i unless its home lies cyclically in (i, j] */
		if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
			m->key[2 * i] = m->key[2 * j];
			m->key[2 * i + 1] = m->key[2 * j + 1];
			memcpy(m->val + i * m->vsize, m->val + j * m->vsize, m->vsize);
			i = j;
		}
	}
	m->used[i] = 0;
	m->n--;
}

void ir_hmap_clear(ir_hmap *m)
{
	if (m->cap)
		memset(m->used, 0, m->cap);
	m->n = 0;
}
