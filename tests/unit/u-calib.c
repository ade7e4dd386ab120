/*
 * u-calib.c: unit tests of lib/ir_calib.c: TSV parsing and its errors,
 * aggregation, the simulated two-rank exchange, and the fit recovering known
 * overheads exactly from data generated with the model's own formula.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir_calib.h"
#include "ir_strbuf.h"
#include "tap.h"

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

static int parse(ir_calib_data *d, const char *text, ir_err *e)
{
	ir_calib_data_init(d);
	return ir_calib_parse_tsv(d, text, strlen(text), "t.tsv", e);
}

static void bad(const char *text, const char *want)
{
	ir_calib_data d;
	ir_err e;
	int rc = parse(&d, text, &e);
	if (rc == 0)
		rc = ir_calib_aggregate(&d, &e);
	ok(rc == -1 && strcmp(e.msg, want) == 0, "error: %s", want);
	if (rc != -1 || strcmp(e.msg, want))
		printf("#   got: %s\n", rc ? e.msg : "(success)");
	ir_calib_data_release(&d);
}

/* The loggops one-way time with overheads: 2o + L + s1*max(G, O). */
static double oneway(double o, double O, double L, double G, double size)
{
	double s1 = size > 0 ? size - 1 : 0;
	return 2 * o + L + s1 * (O > G ? O : G);
}

int main(void)
{
	ir_calib_data d;
	ir_calib_net net;
	ir_calib_opts co;
	ir_calib_fit f;
	ir_loggops p;
	ir_err e;
	ir_sb sb = IR_SB_INIT;
	uint64_t rtt;

	/* ---- TSV ---- */
	ok(parse(&d, "# comment\nsize_bytes real_us\n1 2.5\n1 3.5\n1 100\n  8\t4\n8 5\n8 6\n\n", &e) == 0, "TSV parses");
	ok(ir_calib_aggregate(&d, &e) == 0, "aggregates");
	is_u64(d.np, 2, "two sizes");
	ok(d.p[0].size == 1 && d.p[0].reps == 3 && d.p[0].real_ps == 3.5e6, "median of size 1 is 3.5 us");
	ok(d.p[1].size == 8 && d.p[1].real_ps == 5e6, "median of size 8 is 5 us");
	ok(!d.have_sim, "no sim column");
	ir_calib_data_release(&d);

	ok(parse(&d, "size_bytes real_us sim_us\n4K 10 1\n8K 20 2\n", &e) == 0 && d.have_sim, "sizes with units, sim column");
	ok(ir_calib_aggregate(&d, &e) == 0 && d.p[0].size == 4096 && d.p[0].sim_ps[0] == 1e6 && d.p[1].sim_ps[1] == 2e6,
	   "sim_us kept per size");
	ir_calib_data_release(&d);

	bad("", "t.tsv: no measurements (expected rows 'size_bytes real_us [sim_us]')");
	bad("size real\n1 2\n", "t.tsv:1: expected the header 'size_bytes real_us [sim_us]' or a row of numbers, found 'size'");
	bad("1 2\nsize_bytes real_us\n", "t.tsv:2: expected a size in bytes, found 'size_bytes'");
	bad("1 2 3 4\n", "t.tsv:1: expected 2 or 3 columns (size_bytes real_us [sim_us]), found 4");
	bad("1\n", "t.tsv:1: expected 2 or 3 columns (size_bytes real_us [sim_us]), found 1");
	bad("1 2\n2 3 4\n", "t.tsv:2: expected 2 columns as in the rows before, found 3");
	bad("size_bytes real_us sim_us\n1 2\n", "t.tsv:2: expected 3 columns as in the header, found 2");
	bad("1x 2\n", "t.tsv:1: expected size_bytes as a whole number of bytes, found '1x'");
	bad("1 -2\n", "t.tsv:1: expected real_us as a non-negative number of microseconds, found '-2'");
	bad("1 nan\n", "t.tsv:1: expected real_us as a non-negative number of microseconds, found 'nan'");
	bad("1 1e13\n", "t.tsv:1: real_us '1e13' is out of range (at most 1e12 microseconds)");
	bad("1 2 x\n", "t.tsv:1: expected sim_us as a non-negative number of microseconds, found 'x'");
	bad("1 2\n1 3\n", "t.tsv: only one message size (1 bytes): a line needs at least two sizes");

	/* ---- the simulated exchange ---- */
	ir_loggops_defaults(&p);
	ok(ir_calib_net_select(&net, "loggops", NULL, &p, 1, &e) == 0, "loggops network");
	ok(ir_calib_net_select(&net, "ib", "star:2", &p, 1, &e) == 0 && net.models_bytes && net.ops, "ib network");
	{
		ir_loggops q = p;
		uint64_t r1 = 0, r2 = 0;
		q.o = q.O = 0;
		ok(ir_calib_sim_pingpong(&net, &q, 64, &r1, &e) == 0 && ir_calib_sim_pingpong(&net, &q, 65536, &r2, &e) == 0 &&
		       r1 > 0 && r2 > r1,
		   "ib: larger messages take longer (%llu, %llu ps)", (unsigned long long)r1, (unsigned long long)r2);
		ok(ir_calib_net_set(&net, "mtu", "4096", &e) == 0, "ib key set");
		ok(ir_calib_net_set(&net, "mtu", "77", &e) == -1, "bad ib value refused");
		ok(ir_calib_net_set(&net, "nosuchkey", "1", &e) == -2, "unknown ib key");
	}
	ir_calib_net_release(&net);
	ok(ir_calib_net_select(&net, "ib", "nosuch:3", &p, 1, &e) == -1 || ir_calib_sim_pingpong(&net, &p, 1, &rtt, &e) == -1,
	   "bad topology refused (%s)", e.msg);
	ir_calib_net_release(&net);
	ok(ir_calib_net_select(&net, "ib", "star:2", &p, 0, &e) == 0 && net.models_bytes && !net.own,
	   "ib accepted without the engine");
	ok(ir_calib_net_set(&net, "mtu", "4096", &e) == -2, "no ib keys without the engine");
	ok(ir_calib_net_select(&net, "tcp", NULL, &p, 1, &e) == -1 &&
	       strcmp(e.msg, "unknown network 'tcp' (expected loggops or ib)") == 0,
	   "unknown network");
	ok(ir_calib_net_select(&net, "loggops", "star:2", &p, 1, &e) == -1, "--topo refused for loggops");
	ir_calib_net_select(&net, "loggops", NULL, &p, 1, &e);
	ok(ir_calib_sim_pingpong(&net, &p, 10, &rtt, &e) == 0, "simulate 10 bytes");
	is_u64(rtt, 2 * (2 * 1500 + 2500 + 9 * 6), "round trip = 2 (2o + L + 9G) with the defaults");
	p.o = p.O = p.o_rndv = p.O_rndv = 0;
	p.S = 0;
	ok(ir_calib_sim_pingpong(&net, &p, 100000, &rtt, &e) == 0, "simulate a rendezvous");
	is_u64(rtt, 2 * (2500 + 99999 * 6), "rendezvous round trip with o = 0");
	p.S = 65535;
	p.O = 100;
	ok(ir_calib_sim_pingpong(&net, &p, 1001, &rtt, &e) == 0, "simulate with O > G");
	is_u64(rtt, 2 * (2500 + 1000 * 100), "O above G replaces G at the receiver");

	/* ---- exact recovery of o, O per protocol, S searched ---- */
	{
		const double o_e = 120000, O_e = 90, o_r = 1250000, O_r = 136; /* ps, ps/byte */
		char row[128];
		ir_sb t = IR_SB_INIT;
		ir_sb_adds(&t, "size_bytes real_us\n");
		for (double s = 0; s <= 1 << 20; s = s ? s * 2 : 1) {
			double v = s <= 2048 ? oneway(o_e, O_e, 2500, 6, s) : oneway(o_r, O_r, 2500, 6, s);
			snprintf(row, sizeof row, "%.0f %.6f\n%.0f %.6f\n", s, v / 1e6, s, v / 1e6);
			ir_sb_adds(&t, row);
		}
		ir_calib_data_init(&d);
		ok(ir_calib_parse_tsv(&d, t.buf, t.len, "exact.tsv", &e) == 0 && ir_calib_aggregate(&d, &e) == 0,
		   "synthetic sweep read");
		ir_loggops_defaults(&p);
		ir_calib_net_select(&net, "loggops", NULL, &p, 1, &e);
		ok(ir_calib_simulate(&d, &net, &e) == 0, "network times simulated");
		memset(&co, 0, sizeof co);
		co.Gprime = 6;
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0, "fit");
		ok(f.S_searched && f.S == 2048, "S found: %llu", (unsigned long long)f.S);
		ok(near(f.o, o_e, 0.01), "eager o recovered (%.4f)", f.o);
		ok(near(f.O, O_e, 1e-6), "eager O recovered (%.8f)", f.O);
		ok(near(f.o_rndv, o_r, 0.01), "rendezvous o recovered (%.4f)", f.o_rndv);
		ok(near(f.O_rndv, O_r, 1e-6), "rendezvous O recovered (%.8f)", f.O_rndv);
		ok(near(f.eager.r2, 1, 1e-9) && near(f.rndv.r2, 1, 1e-9), "R-squared 1 on both sides");
		ok(!f.have_pin, "no pinning from a TSV");
		/* the same unweighted */
		co.unweighted = 1;
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0 && f.S == 2048 && near(f.O, O_e, 1e-6) && near(f.o_rndv, o_r, 0.5),
		   "unweighted fit recovers them too");
		co.unweighted = 0;
		/* -S given */
		co.have_S = 1;
		co.S = 1 << 20;
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0 && !f.have_rndv && f.split == d.np && f.O_rndv == f.O,
		   "-S above every size: one eager line, o_rndv = o");
		co.S = 0;
		ok(ir_calib_do_fit(&d, &co, &f, &e) == -1 &&
		       strcmp(e.msg, "exact.tsv: 1 size at or below S = 0 bytes: the eager fit needs at least two") == 0,
		   "-S 0: error (%s)", e.msg);
		co.S = 1 << 19;
		ok(ir_calib_do_fit(&d, &co, &f, &e) == -1 &&
		       strcmp(e.msg, "exact.tsv: one size above S = 524288 bytes (1048576): the rendezvous fit needs at least two") == 0,
		   "-S leaving one rendezvous size: error");
		co.have_S = 0;
		/* the parameter file */
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0 && ir_calib_write_params(&d, &f, &net, "test", &sb) == 0,
		   "parameter file written");
		ok(strstr(sb.buf, "\no = 120ns ") && strstr(sb.buf, "\nO = 90ps ") && strstr(sb.buf, "\nS = 2048 ") &&
		       strstr(sb.buf, "\no_rndv = 1.25us ") && strstr(sb.buf, "\nO_rndv = 136ps "),
		   "values with units");
		if (!strstr(sb.buf, "\nO = 90ps "))
			printf("%s", sb.buf);
		ir_sb_reset(&sb);
		ok(ir_calib_plot_script(&d, &f, "x.svg", &sb, &e) == 0 && strstr(sb.buf, "set terminal svg") &&
		       strstr(sb.buf, "model, rendezvous"),
		   "plot script for SVG");
		ir_sb_reset(&sb);
		ok(ir_calib_plot_script(&d, &f, "x.pdf", &sb, &e) == -1 &&
		       strcmp(e.msg, "plot file 'x.pdf': expected a name ending in .png or .svg") == 0,
		   "plot name checked");
		/* loggp on the same data: a line through all points */
		co.model = IR_CALIB_LOGGP;
		co.have_o = 1;
		co.o_ps = 1000;
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0 && f.lo == 1000 && near(f.L, f.all.intercept - 2000, 1e-6),
		   "loggp: L = intercept - 2o");
		ir_calib_data_release(&d);
		ir_sb_release(&t);
	}

	/* ---- loggp exact, and pinning from samples ---- */
	{
		ir_calib_data_init(&d);
		d.from_traces = 1;
		snprintf(d.source, sizeof d.source, "mem");
		for (double s = 1; s <= 65536; s *= 4) {
			double ow = 2 * 300000 + 700000 + (s - 1) * 250; /* o 0.3us, L 0.7us, G 250ps */
			ir_calib_sample smp = { (uint64_t)s, ow + (166e6 + 3000 * s) / 2, 300000, 1 };
			d.s = realloc(d.s, (d.ns + 4) * sizeof *d.s);
			d.s[d.ns++] = smp;
			for (int r = 0; r < 3; r++) {
				ir_calib_sample re = { (uint64_t)s, ow, 300000, 0 };
				d.s[d.ns++] = re;
			}
		}
		ok(ir_calib_aggregate(&d, &e) == 0, "samples aggregate");
		memset(&co, 0, sizeof co);
		co.model = IR_CALIB_LOGGP;
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0, "loggp fit");
		ok(near(f.lo, 300000, 1e-6), "o from the send calls (%.3f)", f.lo);
		ok(near(f.L, 700000, 0.01), "L recovered (%.4f)", f.L);
		ok(near(f.G, 250, 1e-9), "G recovered (%.10f)", f.G);
		ok(f.have_pin && near(f.pin_a, 166e6, 1) && near(f.pin_b, 3000, 1e-6),
		   "pinning 166us + 3ns/byte recovered (%.3f, %.6f)", f.pin_a, f.pin_b);
		ok(!f.pin_noise, "an exact pinning cost is above the noise");
		ir_calib_data_release(&d);
	}
	/* pinning that is noise: first exchanges slower by a few tenths of a microsecond at random,
	 * one of them by 25 us (a preemption), no trend with the size */
	{
		static const double extra_us[] = { 0.3, 0.1, 25, 0.2, 0.0, 0.4, 0.1, 0.3, 0.2 };
		size_t k = 0;
		ir_calib_data_init(&d);
		d.from_traces = 1;
		snprintf(d.source, sizeof d.source, "mem");
		for (double s = 1; s <= 65536; s *= 4, k++) {
			double ow = 2 * 300000 + (s - 1) * 250;
			ir_calib_sample smp = { (uint64_t)s, ow + extra_us[k] * 1e6 / 2, 300000, 1 };
			d.s = realloc(d.s, (d.ns + 4) * sizeof *d.s);
			d.s[d.ns++] = smp;
			for (int r = 0; r < 3; r++) {
				ir_calib_sample re = { (uint64_t)s, ow, 300000, 0 };
				d.s[d.ns++] = re;
			}
		}
		ok(ir_calib_aggregate(&d, &e) == 0, "noisy first exchanges aggregate");
		memset(&co, 0, sizeof co);
		co.model = IR_CALIB_LOGGP;
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0 && f.have_pin && f.pin_a > 0 && f.pin_noise,
		   "a pinning line through noise is recognised");
		ir_sb t = IR_SB_INIT;
		ok(ir_calib_write_params(&d, &f, NULL, "test", &t) == 0 && strstr(t.buf, "\npin_a = 0ps ") &&
		       strstr(t.buf, "\npin_b = 0ps ") && strstr(t.buf, "# note: no first-use cost above the noise"),
		   "noise pinning is written as 0 with a note");
		ir_sb_release(&t);
		ir_calib_data_release(&d);
	}
	/* a size with only its first exchange */
	{
		ir_calib_sample a = { 8, 1e6, -1, 1 }, b = { 16, 1e6, -1, 1 }, c = { 16, 1e6, -1, 0 };
		ir_calib_data_init(&d);
		d.from_traces = 1;
		snprintf(d.source, sizeof d.source, "pp");
		d.s = malloc(3 * sizeof *d.s);
		d.s[0] = a;
		d.s[1] = b;
		d.s[2] = c;
		d.ns = 3;
		ok(ir_calib_aggregate(&d, &e) == -1 &&
		       strcmp(e.msg, "pp: size 8 bytes has only its first exchange (first use of the buffer): no repetitions to measure") == 0,
		   "no repetitions: error");
		ir_calib_data_release(&d);
	}
	ir_sb_release(&sb);
	return tap_done();
}
