/*
 * ir_hash.h: XXH64, the 64-bit checksum of the binary formats.
 *
 * GOAL binary files carry one checksum per rank section and one over the
 * index (formats/goalb.md). XXH64 was chosen because it runs at memory
 * speed (several GB/s on one core, so validating a mapped file costs little
 * next to reading it), its specification is public and stable, and zstd
 * frames use the same function, so tools exist everywhere to cross-check it.
 * This is an implementation of the published XXH64 algorithm (seeded,
 * little-endian reads), one-shot and streaming.
 */
#ifndef IR_HASH_H
#define IR_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t ir_xxh64(const void *data, size_t len, uint64_t seed);

/* Streaming state: feed any split of the input, get the same digest as ir_xxh64. */
typedef struct ir_xxh64_state {
	uint64_t total;
	uint64_t v[4];
	unsigned char mem[32];
	unsigned memsize;
	uint64_t seed;
} ir_xxh64_state;

void ir_xxh64_init(ir_xxh64_state *s, uint64_t seed);
void ir_xxh64_update(ir_xxh64_state *s, const void *data, size_t len);
uint64_t ir_xxh64_digest(const ir_xxh64_state *s);

#endif
