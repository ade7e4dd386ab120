/*
 * ir_hash.c: XXH64 (see ir_hash.h), written from the algorithm's public
 * specification: four 64-bit lanes over 32-byte stripes, then the tail in
 * 8-, 4- and 1-byte steps, then the avalanche. Reads go through ir_get64 /
 * ir_get32, so the result is the same on any host byte order.
 */
#include "ir_hash.h"

#include <string.h>

#include "ir_endian.h"

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t round1(uint64_t acc, uint64_t in)
{
	acc += in * P2;
	acc = rotl(acc, 31);
	return acc * P1;
}

static inline uint64_t merge(uint64_t acc, uint64_t v)
{
	acc ^= round1(0, v);
	return acc * P1 + P4;
}

static uint64_t finish(uint64_t h, const unsigned char *p, size_t len)
{
	while (len >= 8) {
		h ^= round1(0, ir_get64(p));
		h = rotl(h, 27) * P1 + P4;
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		h ^= (uint64_t)ir_get32(p) * P1;
		h = rotl(h, 23) * P2 + P3;
		p += 4;
		len -= 4;
	}
	while (len > 0) {
		h ^= (*p++) * P5;
		h = rotl(h, 11) * P1;
		len--;
	}
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

static uint64_t lanes_merge(const uint64_t v[4])
{
	uint64_t h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18);
	h = merge(h, v[0]);
	h = merge(h, v[1]);
	h = merge(h, v[2]);
	h = merge(h, v[3]);
	return h;
}

static const unsigned char *stripes(uint64_t v[4], const unsigned char *p, const unsigned char *limit)
{
	/* processes 32-byte stripes while p + 32 <= limit */
	while ((size_t)(limit - p) >= 32) {
		v[0] = round1(v[0], ir_get64(p));
		v[1] = round1(v[1], ir_get64(p + 8));
		v[2] = round1(v[2], ir_get64(p + 16));
		v[3] = round1(v[3], ir_get64(p + 24));
		p += 32;
	}
	return p;
}

uint64_t ir_xxh64(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data, *end = p + len;
	uint64_t h;
	if (len >= 32) {
		uint64_t v[4] = { seed + P1 + P2, seed + P2, seed, seed - P1 };
		p = stripes(v, p, end);
		h = lanes_merge(v);
	} else {
		h = seed + P5;
	}
	h += (uint64_t)len;
	return finish(h, p, (size_t)(end - p));
}

void ir_xxh64_init(ir_xxh64_state *s, uint64_t seed)
{
	memset(s, 0, sizeof *s);
	s->seed = seed;
	s->v[0] = seed + P1 + P2;
	s->v[1] = seed + P2;
	s->v[2] = seed;
	s->v[3] = seed - P1;
}

void ir_xxh64_update(ir_xxh64_state *s, const void *data, size_t len)
{
	const unsigned char *p = data, *end = p + len;
	s->total += len;
	if (s->memsize + len < 32) {
		if (len)
			memcpy(s->mem + s->memsize, p, len);
		s->memsize += (unsigned)len;
		return;
	}
	if (s->memsize) {
		size_t k = 32 - s->memsize;
		memcpy(s->mem + s->memsize, p, k);
		stripes(s->v, s->mem, s->mem + 32);
		p += k;
		s->memsize = 0;
	}
	p = stripes(s->v, p, end);
	if (p < end) {
		memcpy(s->mem, p, (size_t)(end - p));
		s->memsize = (unsigned)(end - p);
	}
}

uint64_t ir_xxh64_digest(const ir_xxh64_state *s)
{
	uint64_t h;
	if (s->total >= 32)
		h = lanes_merge(s->v);
	else
		h = s->seed + P5;
	h += s->total;
	return finish(h, s->mem, s->memsize);
}
