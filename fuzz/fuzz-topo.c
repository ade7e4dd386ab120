/*
 * fuzz-topo.c: libFuzzer target for ibreplay's own topology format
 * (ir_topo_parse_own, formats/topology.md). A topology that parses is also
 * written back, read again, routed with minhop and up*-down* and checked,
 * so the whole path from file to forwarding tables sees the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_route.h"
#include "ir_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ir_topo_linkdef ld = { 4, 16000, 5000, NULL, NULL };
	ir_topo *t = NULL, *t2 = NULL;
	ir_err e;
	ir_sb sb = IR_SB_INIT;
	if (ir_topo_parse_own(&t, (const char *)data, size, "fuzz", &ld, &e))
		return 0;
	if (ir_topo_write(t, &sb) == 0 && ir_topo_parse_own(&t2, sb.buf, sb.len, "again", &ld, &e) != 0)
		abort(); /* what we write must read back */
	if (t->nnodes <= 200) {
		ir_lft l;
		if (ir_route(&l, t, "minhop", &e) == 0)
			ir_lft_release(&l);
		if (ir_route(&l, t, "updn", &e) == 0)
			ir_lft_release(&l);
	}
	ir_sb_release(&sb);
	ir_topo_free(t2);
	ir_topo_free(t);
	return 0;
}
