/*
 * fuzz-t2g.c: libFuzzer target for the conversion of allprof text traces (lib/ir_t2g*.c, over
 * lib/ir_trace.c): any bytes, laid out as a set of rank traces, must give a schedule or a
 * clean error, never a crash, a leak or a hang.
 *
 * Layout: the first byte chooses the conversion (bits 0-1: 0 plain, 1 plain with the poll
 * model (docs/trace2goal.md 2.1: 0.1 us a poll traced, 0.5 us on the target), 2 the same with
 * --poll-tests wait, 3 --durations --sync; bit 2: --calc cpu, with modes 0-2; bit 3:
 * --tracer-time keep); the rest is the traces of ranks 0, 1, ... (at most 4), separated by
 * NUL bytes. fuzz/corpus/t2g/ holds such sets made from the handwritten traces of
 * tests/t4016 and t4018 and from real allprof runs (tests/t9000 replays them).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"

enum { MAX_RANKS = 4 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_trace_files f = { 0 };
	ir_trace_file tf[MAX_RANKS];
	ir_t2g_opts o;
	size_t off = 1, n = 0;
	uint8_t mode;
	if (size < 1)
		return 0;
	mode = data[0];
	while (off <= size && n < MAX_RANKS) {
		const uint8_t *end = memchr(data + off, 0, size - off);
		size_t len = end ? (size_t)(end - (data + off)) : size - off;
		char name[32];
		snprintf(name, sizeof name, "rank-%zu.trace", n);
		tf[n].rank = (uint32_t)n;
		tf[n].path = strdup(name);
		tf[n].data = malloc(len + 1);
		if (!tf[n].path || !tf[n].data) {
			free(tf[n].path);
			free(tf[n].data);
			break;
		}
		memcpy(tf[n].data, data + off, len);
		tf[n].data[len] = 0;
		tf[n].len = len;
		n++;
		off += len + 1;
		if (!end)
			break;
	}
	if (!n)
		return 0;
	f.f = malloc(n * sizeof *f.f);
	if (!f.f) {
		for (size_t i = 0; i < n; i++) {
			free(tf[i].path);
			free(tf[i].data);
		}
		return 0;
	}
	memcpy(f.f, tf, n * sizeof *f.f);
	f.n = n;
	ir_t2g_opts_init(&o);
	switch (mode & 3) {
	case 1:
		o.poll_from = 100000;
		o.poll_to = 500000;
		break;
	case 2:
		o.poll_from = 100000;
		o.poll_to = 500000;
		o.poll_test_wait = 1;
		break;
	case 3:
		o.durations = 1;
		o.sync = 1;
		break;
	}
	if ((mode & 4) && !o.durations)
		o.calc_cpu = 1;
	o.keep_tracer = (mode & 8) != 0;
	fuzz_convert(&f, &o);
	ir_trace_files_release(&f);
	return 0;
}
