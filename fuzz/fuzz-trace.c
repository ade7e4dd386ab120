/*
 * fuzz-trace.c: libFuzzer target for the trace reader (lib/ir_trace.c): any
 * bytes, read as one rank's trace, must give records or a clean error, never a
 * crash, a leak or a hang. The field helpers run on every field.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_trace_opts o = { 1302767374554038LL, 0 };
	ir_err e;
	ir_rec r;
	ir_trace *t = ir_trace_open_mem(data, size, "fuzz", &o, &e);
	int rc;
	if (!t)
		return 0;
	while ((rc = ir_trace_next(t, &r, &e)) == 1) {
		if (r.kind != IR_REC_CALL)
			continue;
		if (r.tracer_ps < 0) /* "# flush:" lines: never negative */
			abort();
		for (unsigned i = 0; i < r.nf; i++) {
			int64_t a, b, c;
			uint64_t v, l[16];
			int id;
			(void)ir_tf_int(r.f[i], &a);
			(void)ir_tf_handle(r.f[i], &v, &id);
			(void)ir_tf_triple(r.f[i], &a, &b, &c);
			(void)ir_tf_list(r.f[i], l, 16);
			(void)ir_tf_time(r.f[i], strlen(r.f[i]), 0, &a);
		}
	}
	(void)ir_trace_span(t);
	(void)ir_trace_self_ps(t);
	if (ir_trace_collapse_gap_ps(t) < 0) /* "# collapse gap:": 0 or a positive time */
		abort();
	(void)ir_trace_rtt_init(t);
	(void)ir_trace_rtt_fini(t);
	ir_trace_free(t);
	return 0;
}
