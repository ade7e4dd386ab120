/*
 * goalgen-emit.h: the GOAL text emitter of goalgen, and the pattern
 * generators that drive it.
 *
 * goalgen writes schedules of many gigabytes, so text is formatted by hand
 * into one large buffer (a table-driven integer formatter, one bounds check
 * per line) and handed to the ir_writer in big blocks; printf per line
 * would cost several times more than the rest of the program together.
 *
 * A label is a one-letter prefix and a number: 's' sends, 'r' receives,
 * 'c' calcs, followed by the step (or op) index, so "s3" is the send of
 * step 3. Every pattern writes its ops first and their dependencies after
 * both ends exist, which is the order LogGOPSim's txt2bin needs.
 */
#ifndef GOALGEN_EMIT_H
#define GOALGEN_EMIT_H

#include <stdint.h>

#include "ir_err.h"
#include "ir_io.h"

/* Longest line the emitter writes: two labels of 1+20 digits, keywords,
 * three 20-digit numbers. Checked once per line. */
#define GG_LINE_MAX 160

typedef struct gg_out {
	ir_writer *w;
	char *buf;
	size_t len, cap;
	int failed;  /* a write failed; err holds the message */
	ir_err err;
} gg_out;

int gg_out_init(gg_out *o, ir_writer *w, size_t cap);
/* Hand the buffer to the writer. Returns -1 (and sets o->failed) on error. */
int gg_out_flush(gg_out *o);
void gg_out_release(gg_out *o);

static inline void gg_reserve(gg_out *o)
{
	if (o->cap - o->len < GG_LINE_MAX)
		gg_out_flush(o);
}

/* Lines. Labels are (prefix letter, index). */
void gg_num_ranks(gg_out *o, uint64_t n);
void gg_rank_open(gg_out *o, uint64_t r);
void gg_rank_close(gg_out *o);
void gg_send(gg_out *o, char lp, uint64_t li, uint64_t size, uint64_t peer, uint64_t tag);
void gg_recv(gg_out *o, char lp, uint64_t li, uint64_t size, uint64_t peer, uint64_t tag);
void gg_calc(gg_out *o, char lp, uint64_t li, uint64_t ps);
/* "a requires b" (irq = 0) or "a irequires b" (irq = 1) */
void gg_dep(gg_out *o, char ap, uint64_t ai, char bp, uint64_t bi, int irq);

/* The patterns. */
enum gg_pattern {
	GG_DISSEMINATION,
	GG_BCAST,
	GG_REDUCE,
	GG_RING,
	GG_PINGPONG,
	GG_ALLTOALL,
	GG_ALLREDUCE,
	GG_RANDOM,
	GG_NPATTERNS
};

typedef struct gg_params {
	enum gg_pattern pattern;
	uint64_t n;        /* ranks, 1..2^31-1 */
	uint64_t size;     /* bytes per message (random: the largest) */
	uint64_t calc;     /* picoseconds */
	int has_calc;      /* --calc given: insert calcs */
	uint64_t tag;
	uint64_t root;
	uint64_t steps;    /* ring */
	uint64_t reps;     /* pingpong */
	uint64_t seed;     /* random */
	uint64_t ops;      /* random: ops per rank */
} gg_params;

/* Operations one rank of the pattern has at most (for the per-rank limit). */
uint64_t gg_max_ops_per_rank(const gg_params *p);
/* Write the whole schedule. Returns 0, or -1 with e set (allocation or write failure). */
int gg_generate(const gg_params *p, gg_out *o, ir_err *e);

#endif
