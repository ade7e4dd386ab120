/*
 * fuzz-model.c: libFuzzer target for the model keys of a parameter file
 * (lib/ir_model.c: ir_loggops_load and the piecewise functions it parses).
 * The input is a parameter file; when the model loads, every piecewise
 * function is written out and must read back to the same segments, and its
 * value must never decrease from one size to the next inside a segment (an
 * affine piece with a non-negative slope). A gap function (send_o_after_send,
 * send_o_after_recv) must read back to the same points, and its value at any
 * gap lie between its smallest and its largest point. With the rendezvous protocol
 * (rndv_copy or copy), the receiver's work and the data's travel add up to recv_o.
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

static void check_gap(const ir_gapfn *f)
{
	ir_gapfn g;
	ir_sb sb = IR_SB_INIT;
	ir_err e;
	int64_t lo, hi;
	if (!f->n)
		return;
	if (ir_gapfn_format(f, &sb) || ir_gapfn_parse(&g, sb.buf, "'again'", &e) || g.n != f->n ||
	    memcmp(g.gap, f->gap, f->n * sizeof f->gap[0]) || memcmp(g.d, f->d, f->n * sizeof f->d[0]))
		abort();
	lo = hi = f->d[0];
	for (uint32_t i = 1; i < f->n; i++) {
		lo = f->d[i] < lo ? f->d[i] : lo;
		hi = f->d[i] > hi ? f->d[i] : hi;
	}
	for (uint32_t i = 0; i < f->n; i++) {
		uint64_t x[3] = { f->gap[i], f->gap[i] + 1, f->gap[i] / 2 + (i + 1 < f->n ? f->gap[i + 1] / 2 : 0) };
		for (int k = 0; k < 3; k++) {
			int64_t v = ir_gapfn_eval(f, x[k]);
			if (v < lo || v > hi)
				abort();
		}
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
		check(&m.rndv_copy);
		/* the rendezvous protocol splits recv_o into the data's travel and the receiver's
		 * work on it, neither negative, together recv_o */
		if (ir_model_rndv_hs(&m))
			for (uint64_t s = 0; s < 1u << 24; s = s * 3 + 1)
				if (ir_model_rndv_copy(&m, s) + ir_model_rndv_wait(&m, s) != ir_pw_eval(&m.recv_o, s) ||
				    ir_model_rndv_copy(&m, s) > ir_pw_eval(&m.recv_o, s))
					abort();
		check_gap(&m.after_send);
		check_gap(&m.after_recv);
	}
	ir_params_free(p);
	return 0;
}
