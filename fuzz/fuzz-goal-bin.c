/*
 * fuzz-goal-bin.c: libFuzzer target for the GOAL binary reader. The input is
 * copied to an aligned buffer of exactly its size (so ASan sees any read past
 * the end), opened, and every rank validated; a rank that passes is walked
 * by the statistics and the canonical-text accessors, which trust it. Then
 * the simulator's load: each rank decoded straight into the compact form
 * (ir_goalb_rank_compact), which must never take a section the general reader
 * refuses (abort: the fuzzer reports it), and the general reader and
 * ir_csched_add for the sections it leaves.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_goal.h"

static void compact(const unsigned char *buf, size_t size)
{
	ir_err e;
	ir_csched c;
	uint64_t no, ne;
	uint32_t i, n;
	ir_goalb *g = ir_goalb_open(buf, size, "fuzz", &e);
	if (!g)
		return;
	n = ir_goalb_num_ranks(g);
	ir_goalb_totals(g, &no, &ne);
	if (ir_csched_init(&c, n, no, ne, &e)) {
		ir_goalb_free(g);
		return;
	}
	for (i = 0; i < n; i++) {
		ir_rank r, r2;
		uint32_t rank = ir_goalb_section_rank(g, i);
		int k = ir_goalb_rank_compact(g, rank, &c, &r, &e);
		if (k < 0)
			break;
		if (k == 0) {
			if (ir_goalb_rank(g, rank, &r2, &e))
				abort();
			if (r2.nops != r.nops || r2.nedges != r.nedges || r2.ncpus != r.ncpus || r2.nnics != r.nnics)
				abort();
			continue;
		}
		if (ir_goalb_rank(g, rank, &r2, &e) || ir_csched_add(&c, rank, &r2, &e))
			break;
	}
	if (i == n)
		ir_csched_finish(&c, &e);
	ir_csched_release(&c);
	ir_goalb_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_err e;
	ir_goalb *g;
	ir_goal_stats st;
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	g = ir_goalb_open(buf, size, "fuzz", &e);
	if (g) {
		ir_goal_stats_init(&st, ir_goalb_num_ranks(g));
		for (uint32_t i = 0; i < ir_goalb_num_ranks(g); i++) {
			ir_rank r;
			uint32_t rank = ir_goalb_section_rank(g, i);
			if (ir_goalb_rank(g, rank, &r, &e))
				break;
			if (ir_goal_stats_add(&st, rank, &r, &e))
				break;
		}
		ir_goal_stats_release(&st);
		ir_goalb_free(g);
		compact(buf, size);
	}
	free(buf);
	return 0;
}
