/*
 * fuzz-sl.c: libFuzzer target for the SL file of ibsim --net ib (sl = FILE,
 * ir_ib_sl_read). The first byte sets the rank count (1..32); the rest is
 * the file. A file that reads must hold only keys of ranks below the count
 * (or 0 for "*") and SLs 0..15.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ir_hmap.h"
#include "ir_io.h"
#include "ir_net_ib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_hmap m;
	ir_reader *r;
	ir_err e;
	uint32_t n;
	if (size < 1)
		return 0;
	n = (uint32_t)(data[0] % 32) + 1;
	r = ir_reader_open_mem(data + 1, size - 1, "fuzz", &e);
	if (!r)
		return 0;
	ir_hmap_init(&m, 1, 16, IR_HMAP_PAIR);
	if (ir_ib_sl_read(r, n, &m, &e) == 0)
		for (size_t i = 0; i < m.cap; i++) {
			const uint8_t *v = ir_hmap_at(&m, i);
			if (v && (*v > 15 || ir_hmap_key_a(&m, i) > n || ir_hmap_key_b(&m, i) > n))
				abort();
		}
	ir_hmap_release(&m);
	ir_reader_free(r);
	return 0;
}
