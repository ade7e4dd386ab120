/*
 * fuzz-goal-bin.c: libFuzzer target for the GOAL binary reader. The input is
 * copied to an aligned buffer of exactly its size (so ASan sees any read past
 * the end), opened, and every rank validated; a rank that passes is walked
 * by the statistics and the canonical-text accessors, which trust it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_goal.h"

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
	}
	free(buf);
	return 0;
}
