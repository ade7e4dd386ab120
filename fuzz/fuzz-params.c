/*
 * fuzz-params.c: libFuzzer target for parameter files (lib/ir_params.c).
 * The input is parsed as a file; when it parses, every value goes through
 * every typed getter, the set is written back out, and the output must parse
 * again to the same number of keys (a failed round trip aborts, so the
 * fuzzer reports it).
 */
#include <stdint.h>
#include <stdlib.h>

#include "ir_params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_params *p = ir_params_new(), *q = NULL;
	ir_err e;
	ir_sb sb = IR_SB_INIT;
	if (!p)
		return 0;
	if (ir_params_parse(p, data, size, "fuzz", &e) == 0) {
		for (size_t i = 0; i < ir_params_count(p); i++) {
			const char *k = ir_params_key(p, i);
			uint64_t v;
			double d;
			char buf[128];
			(void)ir_params_time(p, k, &v, &e);
			(void)ir_params_size(p, k, &v, &e);
			(void)ir_params_u64(p, k, &v, &e);
			(void)ir_params_double(p, k, &d, &e);
			(void)ir_params_origin(p, i, buf, sizeof buf);
		}
		if (ir_params_write(p, &sb) == 0) {
			q = ir_params_new();
			if (q && (ir_params_parse(q, sb.buf, sb.len, "again", &e) != 0 ||
			          ir_params_count(q) != ir_params_count(p)))
				abort();
		}
	}
	ir_sb_release(&sb);
	ir_params_free(q);
	ir_params_free(p);
	return 0;
}
