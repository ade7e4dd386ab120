/*
 * fuzz-model.c: libFuzzer target for the model keys of a parameter file
 * (lib/ir_model.c: ir_loggops_load and the piecewise functions it parses).
 * The input is a parameter file; when the model loads, every piecewise
 * function is written out and must read back to the same segments, and its
 * value must never decrease from one size to the next inside a segment (an
 * affine piece with a non-negative slope).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_model.h"
#include "ir_params.h"

static void check(const ir_pw *f)
{
	ir_pw g;
	ir_sb sb = IR_SB_INIT;
	ir_err e;
	if (!f->n)
		return;
	if (ir_pw_format(f, &sb) || ir_pw_parse(&g, sb.buf, "'again'", &e) || g.n != f->n ||
	    memcmp(g.seg, f->seg, f->n * sizeof f->seg[0]))
		abort();
	for (uint32_t i = 0; i < f->n; i++) {
		uint64_t a = f->seg[i].from;
		if (ir_pw_eval(f, a) > ir_pw_eval(f, a + 1) && (i + 1 == f->n || f->seg[i + 1].from > a + 1))
			abort();
	}
	ir_sb_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_params *p = ir_params_new();
	ir_loggops m;
	ir_err e;
	if (!p)
		return 0;
	if (ir_params_parse(p, data, size, "fuzz", &e) == 0 && ir_loggops_load(&m, p, &e) == 0) {
		check(&m.send_o);
		check(&m.recv_o);
		check(&m.net_L);
		check(&m.copy);
		check(&m.reduce);
		check(&m.coll_copy);
	}
	ir_params_free(p);
	return 0;
}
