/*
 * fuzz-nodecal-line.c: libFuzzer target for nodecal's output line as calib --yield reads
 * it (lib/ir_calib_node.c, ir_calib_yield_parse; formats/calibration.md, "Shared cores")
 * and the fit behind it. The input is the file's text. It must be refused with a message
 * or give a run whose fit, under the rule of any core and (up to 16 ranks, to keep each
 * run short) the bound rule's simulated inversion, writes a parameter file without a
 * crash, a leak or a non-finite value. Its corpus (fuzz/corpus/nodecal-line/) replays in
 * make check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_calib.h"
#include "ir_strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_calib_yrun run;
	ir_loggops p;
	ir_sb sb = IR_SB_INIT;
	ir_err e;
	double y, c;
	if (ir_calib_yield_parse(&run, "fuzz", (const char *)data, size, &e))
		return 0;
	if (run.nranks < 2 || !(run.oneway_ps > 0))
		abort();
	ir_loggops_defaults(&p);
	for (int bind = 0; bind < 2; bind++) {
		uint32_t cores = run.nranks > 2 ? run.nranks / 2 : 1;
		if (bind && run.nranks > 16)
			break;
		if (ir_calib_yield_fit(&run, 1, cores, bind, &p, &y, &c, &e))
			continue;
		if (!(y >= 0 && c >= 0 && y < 1e300 && c < 1e300))
			abort();
		if (ir_calib_yield_write(&run, 1, cores, bind, y, c, "fuzz", &sb))
			abort();
		if (strstr(sb.buf, "nan") || strstr(sb.buf, "inf"))
			abort();
		ir_sb_reset(&sb);
	}
	ir_sb_release(&sb);
	return 0;
}
