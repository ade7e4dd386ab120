/*
 * fuzz-calib-traces.c: libFuzzer target for calib's trace readers (lib/ir_calib.c: the
 * classic ping-pong and netcal's phases, its pulses, its untraced blocks and the tracer's
 * share) and the fit behind them. The input is two ranks' traces, rank 0's text, a line
 * "#--rank 1--", then rank 1's (formats/trace.md); without that line both ranks read the
 * same text. Any input must be refused with a message or give a fit and a parameter file
 * without a crash, a leak or a non-finite value in the output. Inputs above 256 KiB are
 * skipped, to keep each run short. Its corpus (fuzz/corpus/calib-traces/) replays in make
 * check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_calib.h"
#include "ir_strbuf.h"
#include "ir_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char SEP[] = "#--rank 1--\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_trace_file f[2];
	ir_trace_files tf = { f, 2 };
	const char *d = (const char *)data, *cut = NULL;
	size_t n0 = size, skip = 0;
	ir_calib_data cd;
	ir_calib_opts co;
	ir_calib_fit fit;
	ir_calib_net net;
	ir_loggops p;
	ir_sb sb = IR_SB_INIT;
	ir_err e;
	if (size > 256 * 1024)
		return 0;
	for (size_t i = 0; i + sizeof SEP - 1 <= size; i++)
		if ((i == 0 || d[i - 1] == '\n') && !memcmp(d + i, SEP, sizeof SEP - 1)) {
			cut = d + i;
			break;
		}
	if (cut) {
		n0 = (size_t)(cut - d);
		skip = n0 + sizeof SEP - 1;
	}
	memset(f, 0, sizeof f);
	f[0].path = "rank-0.trace";
	f[1].path = "rank-1.trace";
	f[1].rank = 1;
	/* the readers take the text as it is (a NUL inside is data, not its end) */
	if (!(f[0].data = malloc(n0 + 1)) || !(f[1].data = malloc(size - (cut ? skip : 0) + 1)))
		abort();
	memcpy(f[0].data, d, n0);
	f[0].len = n0;
	f[1].len = cut ? size - skip : size;
	memcpy(f[1].data, cut ? d + skip : d, f[1].len);
	ir_loggops_defaults(&p);
	if (ir_calib_net_select(&net, "loggops", NULL, &p, 1, &e))
		abort();
	for (int keep = 0; keep < 2; keep++) {
		ir_calib_data_init(&cd);
		cd.keep_tracer = keep;
		/* as calib does: the network's own times simulated (few sizes only, to stay short) */
		if (ir_calib_read_set(&cd, &tf, "fuzz", &e) == 0 && ir_calib_aggregate(&cd, &e) == 0 && cd.np <= 64 &&
		    ir_calib_simulate(&cd, &net, &e) == 0) {
			memset(&co, 0, sizeof co);
			memset(&fit, 0, sizeof fit);
			co.Gprime = (double)p.G;
			if (ir_calib_do_fit(&cd, &co, &fit, &e) == 0) {
				if (ir_calib_write_params(&cd, &fit, &net, "fuzz", &sb))
					abort();
				if (strstr(sb.buf, "nan") || strstr(sb.buf, " inf") || strstr(sb.buf, "-inf"))
					abort();
				ir_sb_reset(&sb);
			}
			ir_calib_fit_release(&fit);
		}
		ir_calib_data_release(&cd);
	}
	ir_calib_net_release(&net);
	free(f[0].data);
	free(f[1].data);
	ir_sb_release(&sb);
	return 0;
}
