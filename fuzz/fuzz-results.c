/*
 * fuzz-results.c: libFuzzer target for the reader of ibsim's results files
 * (ir_cmp_sim_parse, formats/results.md), which cmp-real uses.
 */
#include <stdint.h>

#include "ir_cmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_cmp_sim s;
	ir_err e;
	if (ir_cmp_sim_parse(&s, data, size, "fuzz", &e) == 0)
		ir_cmp_sim_release(&s);
	return 0;
}
