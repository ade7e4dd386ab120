/*
 * fuzz-ibnetdiscover.c: libFuzzer target for the ibnetdiscover importer
 * (ir_topo_parse_ibnetdiscover) and, on what it accepts, for the LFT dump
 * reader: the input is also read as an OpenSM/ibroute dump against the
 * topology it describes, and minhop's tables are dumped and read back, and
 * their route counts taken; the topology is written as an ibsim-utils net file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_route.h"
#include "ir_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ir_topo_linkdef ld = { 4, 16000, 5000, NULL, NULL };
	ir_topo *t = NULL;
	ir_err e;
	ir_lft l, l2;
	if (ir_topo_parse_ibnetdiscover(&t, (const char *)data, size, "fuzz", &ld, &e))
		return 0;
	if (ir_lft_parse(&l, t, (const char *)data, size, "fuzz", &e) == 0) {
		(void)ir_lft_check(&l, t, &e);
		ir_lft_release(&l);
	}
	if (t->nnodes <= 200 && ir_route(&l, t, "minhop", &e) == 0) {
		ir_sb sb = IR_SB_INIT;
		if (ir_lft_write(&l, t, &sb) == 0) {
			if (ir_lft_parse(&l2, t, sb.buf, sb.len, "dump", &e) != 0 ||
			    memcmp(l.port, l2.port, (size_t)l.nsw * l.nlid) != 0)
				abort(); /* a dump must read back identically */
			ir_lft_release(&l2);
		}
		ir_sb_reset(&sb);
		if (ir_lft_route_stats(&l, t, &sb, &e))
			abort(); /* checked tables (ir_route checks them) always count */
		ir_sb_release(&sb);
		ir_lft_release(&l);
	}
	{
		ir_sb sb = IR_SB_INIT;
		(void)ir_topo_write_netfile(t, &sb, &e);
		ir_sb_release(&sb);
	}
	ir_topo_free(t);
	return 0;
}
