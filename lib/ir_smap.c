/*
 * ir_smap.c: string keys on ir_hmap (see ir_smap.h for the contract and why).
 *
 * Only the lifecycle is here: the searches are inline in ir_smap.h, so that
 * the caller's equality function is inlined into them. The map is a
 * one-word ir_hmap of uint32_t values.
 */
#include "ir_smap.h"

void ir_smap_init(ir_smap *m, size_t cap0) { ir_hmap_init(&m->m, sizeof(uint32_t), cap0, 0); }

void ir_smap_release(ir_smap *m) { ir_hmap_release(&m->m); }

void ir_smap_clear(ir_smap *m) { ir_hmap_clear(&m->m); }
