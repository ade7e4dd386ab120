/*
 * fuzz-lft.c: libFuzzer target for the linear forwarding table reader
 * (ir_lft_parse: OpenSM's opensm-lfts.dump and ibroute layouts) against a
 * fixed fattree2:4 fabric. A table that parses is checked (every host reaches
 * every other, no loop) and written back; what is written must read back.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ir_route.h"
#include "ir_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ir_topo_linkdef ld = { 4, 16000, 5000, NULL, NULL };
	static ir_topo *t;
	ir_lft l, l2;
	ir_err e;
	if (!t && ir_topo_generate(&t, "fattree2:4", 0, &ld, &e))
		abort();
	if (ir_lft_parse(&l, t, (const char *)data, size, "fuzz", &e))
		return 0;
	if (ir_lft_check(&l, t, &e) == 0) {
		ir_sb sb = IR_SB_INIT;
		if (ir_lft_write(&l, t, &sb) == 0) {
			if (ir_lft_parse(&l2, t, sb.buf, sb.len, "again", &e))
				abort(); /* what we write must read back */
			ir_lft_release(&l2);
		}
		ir_sb_release(&sb);
	}
	ir_lft_release(&l);
	return 0;
}
