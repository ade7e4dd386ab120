/*
 * fuzz-calib-tsv.c: libFuzzer target for calib's TSV reader and the fit
 * behind it (lib/ir_calib.c, lib/ir_stats.c). Any input must either be
 * refused with a message or give a fit, a parameter file, a table and a
 * plot script without a crash, a leak or a non-finite value reaching the
 * output. When the input has no sim_us column the network times are
 * simulated on the loggops network (a few events per size; inputs with more
 * than 256 sizes are not simulated, to keep each run short). The results
 * of ibsim are read through lib/ir_cmp.c's parser with the same bytes.
 * Its corpus (fuzz/corpus/calib-tsv/) replays in make check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_calib.h"
#include "ir_cmp.h"
#include "ir_strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_calib_data d;
	ir_calib_opts co;
	ir_calib_fit f;
	ir_calib_net net;
	ir_loggops p;
	ir_cmp_sim sim;
	ir_sb sb = IR_SB_INIT;
	ir_err e;

	ir_calib_data_init(&d);
	if (ir_calib_parse_tsv(&d, data, size, "fuzz.tsv", &e) == 0 && ir_calib_aggregate(&d, &e) == 0 &&
	    (d.have_sim || d.np <= 256)) {
		ir_loggops_defaults(&p);
		if (ir_calib_net_select(&net, "loggops", NULL, &p, 1, &e))
			abort();
		if (d.have_sim || ir_calib_simulate(&d, &net, &e) == 0) {
			memset(&co, 0, sizeof co);
			for (int model = 0; model < 2; model++) {
				co.model = model;
				co.Gprime = (double)p.G;
				if (ir_calib_do_fit(&d, &co, &f, &e) == 0) {
					if (ir_calib_write_params(&d, &f, &net, "fuzz", &sb) || ir_calib_write_table(&d, &f, "", &sb) ||
					    ir_calib_plot_script(&d, &f, "x.png", &sb, &e))
						abort();
					if (strstr(sb.buf, "nan") || strstr(sb.buf, " inf") || strstr(sb.buf, "-inf"))
						abort();
					ir_sb_reset(&sb);
				}
			}
		}
	}
	ir_calib_data_release(&d);
	if (ir_cmp_sim_parse(&sim, data, size, "fuzz.tsv", &e) == 0)
		ir_cmp_sim_release(&sim);
	ir_sb_release(&sb);
	return 0;
}
