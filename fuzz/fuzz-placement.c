/*
 * fuzz-placement.c: libFuzzer target for the placement file of ibsim
 * --net ib (ir_ib_placement_read) on a fixed fattree2:4 fabric (16 hosts).
 * The first byte sets the rank count (1..32, so some inputs have more ranks
 * than hosts, which a file may place); the rest is the file. A file that
 * reads must put every rank on a host of the fabric.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ir_io.h"
#include "ir_net_ib.h"
#include "ir_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ir_topo_linkdef ld = { 4, 16000, 5000, NULL, NULL };
	static ir_topo *t;
	uint32_t host[32], n;
	ir_reader *r;
	ir_err e;
	if (!t && ir_topo_generate(&t, "fattree2:4", 0, &ld, &e))
		abort();
	if (size < 1)
		return 0;
	n = (uint32_t)(data[0] % 32) + 1;
	r = ir_reader_open_mem(data + 1, size - 1, "fuzz", &e);
	if (!r)
		return 0;
	if (ir_ib_placement_read(r, t, n, host, &e) == 0)
		for (uint32_t i = 0; i < n; i++)
			if (host[i] >= t->nhosts)
				abort();
	ir_reader_free(r);
	return 0;
}
