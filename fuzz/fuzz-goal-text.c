/*
 * fuzz-goal-text.c: libFuzzer target for the GOAL text compiler. Any input
 * must end in a schedule or an error message: never a crash, a leak, a hang
 * or a read out of bounds. Accepted ranks go through the statistics, which
 * walk every op and edge, so a bad CSR from the compiler would show up here.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ir_goal.h"
#include "ir_io.h"

static int on_begin(void *ctx, uint32_t n, unsigned version, ir_err *e)
{
	(void)e;
	(void)version;
	ir_goal_stats_init(ctx, n);
	return 0;
}

static int on_rank(void *ctx, uint32_t rank, const ir_rank *r, const ir_goal_parser *p, ir_err *e)
{
	for (uint32_t i = 0; i < r->nops; i++)
		(void)ir_goal_parser_label(p, i);
	return ir_goal_stats_add(ctx, rank, r, e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_err e;
	ir_goal_stats st = { 0 };
	ir_goal_sink sink = { &st, on_begin, on_rank };
	ir_reader *r = ir_reader_open_mem(data, size, "fuzz", &e);
	if (!r)
		return 0;
	(void)ir_goal_parse(r, &sink, &e);
	ir_reader_free(r);
	ir_goal_stats_release(&st);
	return 0;
}
