/*
 * ir_smap.c: string keys on ir_hmap (see ir_smap.h for the contract and why).
 *
 * A search walks the collision numbers c = 0, 1, ... of the hash h: each
 * (h, c) is one ir_hmap lookup; the first absent one means the string is
 * not in the map, and is where a new string goes.
 */
#include "ir_smap.h"

void ir_smap_init(ir_smap *m, size_t cap0) { ir_hmap_init(&m->m, sizeof(uint32_t), cap0, IR_HMAP_PAIR); }

void ir_smap_release(ir_smap *m) { ir_hmap_release(&m->m); }

void ir_smap_clear(ir_smap *m) { ir_hmap_clear(&m->m); }

uint32_t ir_smap_get(const ir_smap *m, uint64_t h, const char *s, size_t n, ir_smap_eq_fn eq, const void *ctx)
{
	for (uint64_t c = 0;; c++) {
		const uint32_t *v = ir_hmap_get(&m->m, h, c);
		if (!v)
			return IR_SMAP_NONE;
		if (eq(ctx, *v, s, n))
			return *v;
	}
}

uint32_t ir_smap_put(ir_smap *m, uint64_t h, const char *s, size_t n, ir_smap_eq_fn eq, const void *ctx,
                     uint32_t idx)
{
	uint64_t c;
	uint32_t *v;
	for (c = 0;; c++) {
		v = ir_hmap_get(&m->m, h, c);
		if (!v)
			break;
		if (eq(ctx, *v, s, n))
			return *v;
	}
	v = ir_hmap_put(&m->m, h, c, NULL);
	if (!v)
		return IR_SMAP_NONE;
	*v = idx;
	return idx;
}
