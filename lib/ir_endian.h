/*
 * ir_endian.h: little-endian get/put helpers for binary formats.
 *
 * Binary files are read and written through these, never through struct
 * casts: they are alignment-safe, and on little-endian hosts the compiler
 * turns each into a single load or store.
 */
#ifndef IR_ENDIAN_H
#define IR_ENDIAN_H

#include <stdint.h>
#include <string.h>

static inline uint16_t ir_get16(const void *p)
{
	const unsigned char *b = p;
	return (uint16_t)(b[0] | (b[1] << 8));
}
static inline uint32_t ir_get32(const void *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
#else
	const unsigned char *b = p;
	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
#endif
}
static inline uint64_t ir_get64(const void *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
#else
	const unsigned char *b = p;
	return (uint64_t)ir_get32(b) | ((uint64_t)ir_get32(b + 4) << 32);
#endif
}
static inline void ir_put16(void *p, uint16_t v)
{
	unsigned char *b = p;
	b[0] = (unsigned char)v;
	b[1] = (unsigned char)(v >> 8);
}
static inline void ir_put32(void *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 4);
#else
	unsigned char *b = p;
	b[0] = (unsigned char)v;
	b[1] = (unsigned char)(v >> 8);
	b[2] = (unsigned char)(v >> 16);
	b[3] = (unsigned char)(v >> 24);
#endif
}
static inline void ir_put64(void *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 8);
#else
	ir_put32(p, (uint32_t)v);
	ir_put32((unsigned char *)p + 4, (uint32_t)(v >> 32));
#endif
}

#endif
