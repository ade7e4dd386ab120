/*
 * ir_goal.h: GOAL schedules in memory, and their loading from GOAL text or
 * GOAL binary (formats/goal.md, formats/goalb.md).
 *
 * A loaded schedule is the binary format's per-rank sections, used in place:
 * a binary file is mapped and read without copying; GOAL text is compiled in
 * memory by the same code goalc uses, into the same layout. Each rank is an
 * array of fixed-size op records plus a CSR array of dependents, so a
 * simulator counts unmet predecessors and walks dependents without searching.
 *
 * Op record (IR_OP_BYTES = 24 bytes, little-endian, read through the
 * accessors below, never by struct cast):
 *
 *   offset size field
 *   0      1    type       IR_OP_SEND, IR_OP_RECV, IR_OP_CALC
 *   1      1    cpu        0..255
 *   2      1    nic        0..255 (0 for calc)
 *   3      1    reserved   must be 0
 *   4      4    peer       send: destination rank; recv: source rank or IR_ANY; calc: 0
 *   8      4    tag        send: 0..2^31-1; recv: 0..2^31-1 or IR_ANY; calc: 0
 *   12     4    succ_first index of this op's first dependent in the rank's edge array;
 *                          its dependents are edges[succ_first(i) .. succ_first(i+1))
 *                          (the last op's end is nedges); non-decreasing
 *   16     8    size       send/recv: bytes; calc: picoseconds
 *
 * Edge (4 bytes): bits 0..30 the dependent op's index in the same rank; bit 31
 * set when the dependent `irequires` this op (needs it started), clear when it
 * `requires` it (needs it done). Edges of one op are sorted by dependent index.
 *
 * Ownership: ir_sched_load() returns an opaque-owning ir_sched; the caller
 * reads the public fields and frees it with ir_sched_free().
 */
#ifndef IR_GOAL_H
#define IR_GOAL_H

#include <stdint.h>

#include "ir_endian.h"
#include "ir_err.h"

enum ir_op_type { IR_OP_SEND = 0, IR_OP_RECV = 1, IR_OP_CALC = 2 };

#define IR_ANY ((uint32_t)0xFFFFFFFFu) /* recv source or tag: matches anything */
#define IR_OP_BYTES 24
#define IR_EDGE_IREQ ((uint32_t)0x80000000u)
#define IR_EDGE_INDEX ((uint32_t)0x7FFFFFFFu)
#define IR_MAX_OPS_PER_RANK ((uint32_t)0x7FFFFFFFu)

static inline unsigned ir_op_type(const unsigned char *op) { return op[0]; }
static inline unsigned ir_op_cpu(const unsigned char *op) { return op[1]; }
static inline unsigned ir_op_nic(const unsigned char *op) { return op[2]; }
static inline uint32_t ir_op_peer(const unsigned char *op) { return ir_get32(op + 4); }
static inline uint32_t ir_op_tag(const unsigned char *op) { return ir_get32(op + 8); }
static inline uint32_t ir_op_succ_first(const unsigned char *op) { return ir_get32(op + 12); }
static inline uint64_t ir_op_size(const unsigned char *op) { return ir_get64(op + 16); }

typedef struct ir_rank {
	const unsigned char *ops;   /* nops * IR_OP_BYTES */
	const unsigned char *edges; /* nedges * 4 */
	uint32_t nops;
	uint32_t nedges;
	uint32_t ncpus;             /* 1 + largest cpu used (at least 1) */
	uint32_t nnics;             /* 1 + largest nic used (at least 1) */
} ir_rank;

static inline const unsigned char *ir_rank_op(const ir_rank *r, uint32_t i)
{
	return r->ops + (uint64_t)i * IR_OP_BYTES;
}
/* Dependents of op i: edge indices [*b, *e). */
static inline void ir_rank_succ(const ir_rank *r, uint32_t i, uint32_t *b, uint32_t *e)
{
	*b = ir_op_succ_first(ir_rank_op(r, i));
	*e = i + 1 < r->nops ? ir_op_succ_first(ir_rank_op(r, i + 1)) : r->nedges;
}
static inline uint32_t ir_rank_edge(const ir_rank *r, uint32_t k) { return ir_get32(r->edges + (uint64_t)k * 4); }

typedef struct ir_sched_priv ir_sched_priv;

typedef struct ir_sched {
	uint32_t nranks;
	ir_rank *rank;         /* [nranks], indexed by rank number */
	uint64_t nops;         /* over all ranks */
	uint64_t nedges;
	int from_text;         /* compiled from GOAL text (labels may be available) */
	ir_sched_priv *priv;
} ir_sched;

enum {
	IR_SCHED_LABELS = 1 /* text input: keep the labels for messages (ir_sched_label) */
};

/* Load a schedule from `path` ("-": stdin): GOAL text or binary, plain or
 * compressed, detected by content. Binary input is fully validated
 * (formats/goalb.md) before it is returned. */
int ir_sched_load(ir_sched **out, const char *path, int flags, ir_err *e);
void ir_sched_free(ir_sched *s); /* NULL is a no-op */
/* The label op `op` of `rank` had in the text, or NULL (binary input, or no labels kept). */
const char *ir_sched_label(const ir_sched *s, uint32_t rank, uint32_t op);

#endif
