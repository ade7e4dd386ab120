/*
 * u-calib.c: unit tests of lib/ir_calib.c: TSV parsing and its errors,
 * aggregation, the simulated two-rank exchange, and the fit recovering known
 * overheads exactly from data generated with the model's own formula; the
 * piecewise segment search recovering known breakpoints and slopes, and the
 * extraction of netcal's phases (late receiver, self copy, reduction) from
 * traces written here.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir_calib.h"
#include "ir_params.h"
#include "ir_strbuf.h"
#include "tap.h"

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* The tests below were written for the median of each size (calib --estimator median) unless
 * they set g_estimator: a median names the measurement it picks, which the checks use. */
static int g_estimator = IR_CALIB_EST_MEDIAN;

static void data_init(ir_calib_data *d)
{
	ir_calib_data_init(d);
	d->estimator = g_estimator;
}

static int parse(ir_calib_data *d, const char *text, ir_err *e)
{
	data_init(d);
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


/* netcal-like sizes up to 1 MiB */
static size_t nc_sizes(double *x)
{
	size_t n = 0;
	x[n++] = 0;
	for (double p = 1; p <= 1048576; p *= 2) {
		if (p >= 64)
			x[n++] = p - p / 64;
		x[n++] = p;
		if (p >= 1024 && p * 1.5 <= 1048576)
			x[n++] = p * 1.5;
	}
	for (size_t i = 1; i < n; i++) /* insertion sort */
		for (size_t j = i; j > 0 && x[j] < x[j - 1]; j--) {
			double t = x[j];
			x[j] = x[j - 1];
			x[j - 1] = t;
		}
	return n;
}

/* 200 ns + 0.5 ps/B up to 4032; 1 us + 0.2 ps/B up to 64 KiB; 5 us + 0.1 ps/B above */
static double known3(double s)
{
	return s <= 4032 ? 200000 + 0.5 * s : s <= 65536 ? 1000000 + 0.2 * s : 5000000 + 0.1 * s;
}

static void test_segments(void)
{
	double x[128], y[128], w[128];
	size_t n = nc_sizes(x);
	ir_calib_pwfit f;
	ir_err e;
	for (size_t i = 0; i < n; i++) {
		y[i] = known3(x[i]);
		w[i] = 1 / (y[i] * y[i]);
	}
	ok(ir_calib_segments(x, y, w, n, 4032, 8, &f, &e) == 0 && f.nseg == 3, "segments: exact data, 3 segments found");
	ok(f.seg[0].from == 0 && f.seg[1].from == 4033 && f.seg[2].from == 98304,
	   "segments: breakpoints at 0, S+1 and the first size above 64 KiB");
	ok(near(f.seg[0].base, 200000, 1e-3) && near(f.seg[0].slope, 0.5, 1e-9) && near(f.seg[1].base, 1000000, 1e-3) &&
	       near(f.seg[1].slope, 0.2, 1e-9) && near(f.seg[2].base, 5000000, 1e-2) && near(f.seg[2].slope, 0.1, 1e-9),
	   "segments: bases and slopes recovered");
	ok(f.pw.n == 3 && f.pw.seg[0].base == 200000 && f.pw.seg[0].fs == 500 && f.pw.seg[1].fs == 200 &&
	       f.pw.seg[2].fs == 100 && f.pw.seg[2].from == 98304,
	   "segments: the function as written (ps, fs per byte)");
	{
		ir_sb t = IR_SB_INIT;
		ir_pw back;
		ok(ir_pw_format(&f.pw, &t) == 0 && ir_pw_parse(&back, t.buf, "'t'", &e) == 0 && back.n == 3 &&
		       ir_pw_eval(&back, 65536) == ir_pw_eval(&f.pw, 65536),
		   "segments: formatted and parsed back: %s", t.buf ? t.buf : "");
		ir_sb_release(&t);
	}
	/* +-0.5 % alternating noise: the same segments, slopes within 2 % */
	for (size_t i = 0; i < n; i++) {
		y[i] = known3(x[i]) * (i % 2 ? 1.005 : 0.995);
		w[i] = 1 / (y[i] * y[i]);
	}
	ok(ir_calib_segments(x, y, w, n, 4032, 8, &f, &e) == 0 && f.nseg == 3 && f.seg[1].from == 4033 &&
	       f.seg[2].from == 98304 && fabs(f.seg[0].base / 200000 - 1) < 0.005 && fabs(f.seg[1].base / 1e6 - 1) < 0.005 &&
	       fabs(f.seg[2].base / 5e6 - 1) < 0.005,
	   "segments: 0.5 %% noise, the same breakpoints, bases within 0.5 %%");
	ok(f.seg[0].ci_slope > 0 && fabs(f.seg[0].slope - 0.5) < f.seg[0].ci_slope && f.seg[1].ci_slope > 0 &&
	       fabs(f.seg[1].slope - 0.2) < f.seg[1].ci_slope && f.seg[2].ci_slope > 0 &&
	       fabs(f.seg[2].slope - 0.1) < f.seg[2].ci_slope && fabs(f.seg[1].base - 1e6) < f.seg[1].ci_base,
	   "segments: the 95 %% confidence intervals cover the true slopes and base");
	/* one line: one segment without a forced break, two with it */
	for (size_t i = 0; i < n; i++) {
		y[i] = 300000 + 0.25 * x[i];
		w[i] = 1 / (y[i] * y[i]);
	}
	ok(ir_calib_segments(x, y, w, n, UINT64_MAX, 8, &f, &e) == 0 && f.nseg == 1 && near(f.seg[0].slope, 0.25, 1e-9),
	   "segments: a line is one segment");
	ok(ir_calib_segments(x, y, w, n, 16384, 8, &f, &e) == 0 && f.nseg == 2 && f.seg[1].from == 16385,
	   "segments: the forced break splits it at S+1");
	/* a falling segment is held flat (the format has no negative per-byte time) */
	for (size_t i = 0; i < 10; i++) {
		y[i] = 1000000 - 10 * x[i];
		w[i] = 1;
	}
	ok(ir_calib_segments(x, y, w, 10, UINT64_MAX, 8, &f, &e) == 0 && f.seg[0].slope == 0 && f.seg[0].ci_slope < 0,
	   "segments: a negative slope is clamped to 0");
	ok(ir_calib_segments(x, y, w, 0, UINT64_MAX, 8, &f, &e) == -1, "segments: no points is an error");
}

/* Rank 1's gap from a ping-pong receive's return to its answer's call (us): the round trip holds
 * it, the one-way time calib fits must not (formats/calibration.md, "The answer's gap"). */
#define ANSWER_GAP 0.25

/* A netcal trace set in allprof's format: sizes 0, 64, 1024, 65536, 5 repetitions. Warm one-way
 * 1 us + s/64 ns (the round trip 2 one-way times + ANSWER_GAP), send 100 ns; late receive 300 ns + s/64 ns after netcal's wait of 20 us
 * (formats/calibration.md, "S"); self copy 100 ns + s/64 ns; reduction 50 ns + s/8 ns. */
/* with_late: 0 no late receiver, 1 the late receiver (its sends wait from 1024 bytes on), 2 also
 * the progress phase (its sends wait only from 4096 bytes on, as over shared memory), 3 the
 * progress phase on a busy machine: each send follows the answer of the round before (tag 30005);
 * the sends below 4096 bytes wait 8 ms in 4 of 5 rounds (the receiver lost its core), and in one
 * round rank 0 calls the send of 4096 bytes and more 30 us after that answer, when the receive is
 * posted already, and it returns at once */
/* write_netcal also writes the exchange phase (tags 30052 and 30051) when set: per size
 * and repetition both ranks exchange s bytes; rank 1's call lasts 1.5 one-way times, rank
 * 0's 0.2 us more (it started first). exch_bad: rank 1 has one exchange fewer. */
static double g_exch;
static int g_exch_bad;
/* us a first use (tag 30003) of each of write_netcal's sizes takes longer one way and back */
static double g_first[5];
/* as much more in the first of them only (a preempted exchange), and the repetitions that
 * make a first use (0: the first only; netcal makes FIRST_REPS = 5 rounds) */
static double g_first_once[5];
static int g_first_reps;
/* us the late receive of each of write_netcal's sizes takes longer */
static double g_late[5];
/* 1: write_netcal's sizes span 64 bytes to 16 MiB instead of 64 bytes to 64 KiB */
static int g_big;
/* write_netcal's repetitions (0: 5); with g_pulse a pulse (8 exchanges of 0 bytes, tag 30053,
 * round trip 2 us) before every size of every repetition and one at the end; the
 * repetitions from g_slow_from to g_slow_to are on a slowed machine: their ping-pongs'
 * one-way times and their pulses' round trips take g_slow_x times as long */
static int g_reps, g_pulse, g_slow_from = -1, g_slow_to = -1;
static double g_slow_x = 1;
/* with g_bare > 0, an untraced block before and after every pulse (rank 0's MPI_Iprobe for
 * tags 30054 and 30055 around 8 exchanges of g_bare us one way, which the trace does not
 * show; the pulse's one way is 1 us); the g_bare_flush-th block (from 1) has a flush of the
 * tracer's buffer in it; g_keep_tracer: calib --tracer-time keep */
static double g_bare;
static int g_bare_flush, g_keep_tracer, g_nblock;

static void write_block(FILE *f0, double *t, unsigned long *n0)
{
	double end = *t + 0.1 + 16 * g_bare;
	if (g_bare <= 0)
		return;
	fprintf(f0, "MPI_Iprobe:%.3f:1:30054:0,0,2:0:-:1:%.3f\n", *t, *t + 0.1);
	if (++g_nblock == g_bare_flush)
		fprintf(f0, "# flush: 1000 ns\n");
	fprintf(f0, "MPI_Iprobe:%.3f:1:30055:0,0,2:0:-:1:%.3f\n", end, end + 0.1);
	*n0 += 2;
	*t = end + 0.5;
}

static void write_pulse(FILE *f0, FILE *f1, double *t, double x, unsigned long *n0, unsigned long *n1)
{
	write_block(f0, t, n0);
	for (int i = 0; i < 8; i++) {
		double rt = 2 * x;
		fprintf(f0, "MPI_Send:%.3f:-:0:13,1,1:1:30053:0,0,2:%.3f\n", *t, *t + 0.1);
		fprintf(f0, "MPI_Recv:%.3f:-:0:13,1,1:1:30053:0,0,2:1,30053,0:%.3f\n", *t + 0.2, *t + rt);
		fprintf(f1, "MPI_Recv:%.3f:-:0:13,1,1:0:30053:0,1,2:0,30053,0:%.3f\n", *t, *t + rt / 2);
		fprintf(f1, "MPI_Send:%.3f:-:0:13,1,1:0:30053:0,1,2:%.3f\n", *t + rt / 2, *t + rt / 2 + 0.1);
		*n0 += 2;
		*n1 += 2;
		*t += rt + 0.5;
	}
	write_block(f0, t, n0);
}

/* Remove write_netcal's directory. */
static void rm_netcal(const char *dir)
{
	char p[600];
	snprintf(p, sizeof p, "%s/rank-0.trace", dir);
	unlink(p);
	snprintf(p, sizeof p, "%s/rank-1.trace", dir);
	unlink(p);
	rmdir(dir);
}

static int write_netcal(const char *dir, int with_late)
{
	static const uint64_t sz0[5] = { 0, 64, 1024, 4096, 65536 };
	static const uint64_t sz1[5] = { 0, 64, 65536, 1 << 20, 16 << 20 };
	const uint64_t *sz = g_big ? sz1 : sz0;
	char p0[512], p1[512];
	FILE *f0, *f1;
	double t = 1e9; /* us */
	unsigned long n0 = 1, n1 = 1;
	snprintf(p0, sizeof p0, "%s/rank-0.trace", dir);
	snprintf(p1, sizeof p1, "%s/rank-1.trace", dir);
	f0 = fopen(p0, "w");
	f1 = fopen(p1, "w");
	if (!f0 || !f1)
		return -1;
	for (int r = 0; r < 2; r++) {
		FILE *f = r ? f1 : f0;
		fprintf(f, "# allprof 1.0 trace format 1\n# rank: %d of 2\n# Init clockdiff: 0.000\nMPI_Init:-:1:2:%.3f\n", r, t);
	}
	t += 10;
	/* pool pass first: the tag that marks netcal */
	fprintf(f0, "MPI_Send:%.3f:1:8:13,1,1:1:30000:0,0,2:%.3f\nMPI_Recv:%.3f:1:8:13,1,1:1:30000:0,0,2:1,30000,8:%.3f\n", t,
	        t + 0.1, t + 0.2, t + 2);
	fprintf(f1, "MPI_Recv:%.3f:1:8:13,1,1:0:30000:0,1,2:0,30000,8:%.3f\nMPI_Send:%.3f:1:8:13,1,1:0:30000:0,1,2:%.3f\n", t,
	        t + 1, t + 1.1, t + 1.2);
	n0 += 2;
	n1 += 2;
	t += 10;
	for (int rep = 0; rep < (g_reps ? g_reps : 5); rep++)
		for (int k = 0; k < 5; k++) {
			uint64_t s = sz[k];
			double sx = rep >= g_slow_from && rep <= g_slow_to ? g_slow_x : 1;
			double ow = (1 + (double)s / 64 / 1000) * sx;
			if (g_pulse)
				write_pulse(f0, f1, &t, sx, &n0, &n1);
			for (int tag = 30001; tag <= 30003; tag++) {
				double fx = tag == 30003 ? g_first[k] + (rep ? 0 : g_first_once[k]) : 0;
				if (tag == 30003 && rep >= (g_first_reps ? g_first_reps : 1))
					continue;
				/* with the progress phase, sends from 1024 bytes wait for the receiver
				 * (held: eager, but complete when its library takes the data) */
				fprintf(f0, "MPI_Send:%.3f:1:%" PRIu64 ":13,1,1:1:%d:0,0,2:%.3f\n", t, s, tag,
				        with_late == 2 && s >= 1024 ? t + ow : t + 0.1);
				fprintf(f0, "MPI_Recv:%.3f:1:%" PRIu64 ":13,1,1:1:%d:0,0,2:1,%d,%" PRIu64 ":%.3f\n", t + 0.2, s, tag, tag, s,
				        t + 2 * ow + fx + ANSWER_GAP);
				fprintf(f1, "MPI_Recv:%.3f:1:%" PRIu64 ":13,1,1:0:%d:0,1,2:0,%d,%" PRIu64 ":%.3f\n", t, s, tag, tag, s,
				        t + ow + fx);
				fprintf(f1, "MPI_Send:%.3f:1:%" PRIu64 ":13,1,1:0:%d:0,1,2:%.3f\n", t + ow + fx + ANSWER_GAP, s, tag,
				        t + ow + fx + ANSWER_GAP + 0.1);
				n0 += 2;
				n1 += 2;
				t += 2 * ow + fx + ANSWER_GAP + 1;
			}
			if (with_late) {
				double late = 0.3 + (double)s / 64 / 1000 + g_late[k];
				/* from 1024 bytes on the send waits for the receive (rendezvous) */
				fprintf(f0, "MPI_Send:%.3f:1:%" PRIu64 ":13,1,1:1:30004:0,0,2:%.3f\n", t, s,
				        s >= 1024 ? t + 20 + late : t + 0.1);
				fprintf(f1, "MPI_Recv:%.3f:1:%" PRIu64 ":13,1,1:0:30004:0,1,2:0,30004,%" PRIu64 ":%.3f\n", t + 20, s, s,
				        t + 20 + late);
				n0++;
				n1++;
				t += 30;
			}
			if (with_late == 3) {
				/* the answer of the round before, then the send */
				double start = t + 2, call = start + (s >= 4096 && rep == 2 ? 30 : 0.1), ret;
				fprintf(f0, "MPI_Recv:%.3f:0:0:13,1,1:1:30005:0,0,2:1,30005,0:%.3f\n", t, start);
				fprintf(f1, "MPI_Send:%.3f:0:0:13,1,1:0:30005:0,1,2:%.3f\n", t, t + 0.1);
				if (s >= 4096)
					ret = rep == 2 ? call + 0.5 : start + 25;
				else
					ret = rep < 4 ? call + 8000 : call + 0.2;
				fprintf(f0, "MPI_Send:%.3f:1:%" PRIu64 ":13,1,1:1:30007:0,0,2:%.3f\n", call, s, ret);
				fprintf(f1, "MPI_Recv:%.3f:1:%" PRIu64 ":13,1,1:0:30007:0,1,2:0,30007,%" PRIu64 ":%.3f\n", ret - 0.2, s,
				        s, ret);
				n0 += 2;
				n1 += 2;
				t = ret + 1;
			}
			if (with_late == 2) {
				double late = 0.3 + (double)s / 64 / 1000;
				fprintf(f0, "MPI_Send:%.3f:1:%" PRIu64 ":13,1,1:1:30007:0,0,2:%.3f\n", t, s,
				        s >= 4096 ? t + 20 + late : t + 0.1);
				fprintf(f1, "MPI_Recv:%.3f:1:%" PRIu64 ":13,1,1:0:30007:0,1,2:0,30007,%" PRIu64 ":%.3f\n", t + 20, s, s,
				        t + 20 + 0.2);
				n0++;
				n1++;
				t += 30;
			}
			if (g_exch) {
				double x = g_exch * ow;
				for (int r = 0; r < 2; r++) {
					FILE *f = r ? f1 : f0;
					if (r && g_exch_bad && rep == 4 && k == 4)
						continue;
					fprintf(f, "MPI_Sendrecv:%.3f:1:0:13,1,1:%d:30052:2:0:13,1,1:%d:30052:0,%d,2:%d,30052,0:%.3f\n", t, 1 - r,
					        1 - r, r, 1 - r, t + 1);
					fprintf(f, "MPI_Sendrecv:%.3f:1:%" PRIu64 ":13,1,1:%d:30051:2:%" PRIu64 ":13,1,1:%d:30051:0,%d,2:%d,30051,%" PRIu64
					           ":%.3f\n",
					        t + 1 + (r ? 0.2 : 0), s, 1 - r, s, 1 - r, r, 1 - r, s, t + 1.2 + x);
					if (r)
						n1 += 2;
					else
						n0 += 2;
				}
				t += 2 + x;
			}
			fprintf(f0, "MPI_Sendrecv:%.3f:1:%" PRIu64 ":13,1,1:0:30006:2:%" PRIu64 ":13,1,1:0:30006:0,0,2:0,30006,%" PRIu64
			            ":%.3f\n",
			        t, s, s, s, t + 0.1 + (double)s / 64 / 1000);
			n0++;
			t += 2;
			/* the library's copy: an MPI_Alltoall on MPI_COMM_SELF, 30 ns + s/256 ns; one on
			 * a communicator of two ranks is no such copy */
			fprintf(f0, "MPI_Alltoall:%.3f:1:%" PRIu64 ":13,1,1:2:%" PRIu64 ":13,1,1:1,0,1:%.3f\n", t, s, s,
			        t + 0.03 + (double)s / 256 / 1000);
			fprintf(f0, "MPI_Alltoall:%.3f:1:%" PRIu64 ":13,1,1:2:%" PRIu64 ":13,1,1:0,0,2:%.3f\n", t + 1, s, s, t + 1.9);
			n0 += 2;
			t += 2;
			if (s >= 8) {
				fprintf(f0, "MPI_Reduce_local:%.3f:1:2:%" PRIu64 ":10,8,8:3:%.3f\n", t, s / 8, t + 0.05 + (double)s / 8 / 1000);
				n0++;
			}
			t += 2 + (double)s / 1000;
		}
	if (g_pulse)
		write_pulse(f0, f1, &t, 1, &n0, &n1);
	for (int r = 0; r < 2; r++) {
		FILE *f = r ? f1 : f0;
		fprintf(f, "# Finalize clockdiff: 0.000\nMPI_Finalize:%.3f:-\n# end %lu 0\n", t, (r ? n1 : n0) + 1);
	}
	return fclose(f0) | fclose(f1);
}

static void test_netcal_traces(void)
{
	char dir[] = "/tmp/u-calib-XXXXXX", *paths[1];
	ir_calib_data d;
	ir_err e;
	const ir_calib_med *m;
	if (!mkdtemp(dir)) {
		ok(0, "netcal traces: temporary directory");
		return;
	}
	paths[0] = dir;
	ok(write_netcal(dir, 1) == 0, "netcal traces written");
	data_init(&d);
	ok(ir_calib_read_traces(&d, paths, 1, &e) == 0 && d.netcal && ir_calib_aggregate(&d, &e) == 0,
	   "netcal traces: read and recognised by their tags");
	ok(d.np == 5 && d.p[4].size == 65536 && d.p[4].reps == 5 && d.p[4].nfirst, "netcal: warm exchanges and first uses");
	ok(near(d.p[0].real_ps, 1000000, 1) && near(d.p[4].real_ps, 2024000, 1) && d.gap_n == 55 && !d.gap_miss &&
	       near(d.gap_med_ps, ANSWER_GAP * 1e6, 1),
	   "netcal: the one-way time is half the round trip less rank 1's answer gap (%g ps at 0 bytes; %zu gaps, median "
	   "%g ps)",
	   d.p[0].real_ps, d.gap_n, d.gap_med_ps);
	m = ir_calib_series_at(&d, IR_CS_LATE, 65536);
	ok(m && m->n == 5 && near(m->med, 1324000, 1), "netcal: the late receive's duration (%g ps)", m ? m->med : -1);
	m = ir_calib_series_at(&d, IR_CS_LATE, 0);
	ok(m && near(m->med, 300000, 1), "netcal: the late receive of 0 bytes");
	m = ir_calib_series_at(&d, IR_CS_SELF, 1024);
	ok(m && m->n == 5 && near(m->med, 116000, 1), "netcal: the self copy's duration");
	m = ir_calib_series_at(&d, IR_CS_LCOPY, 4096);
	ok(m && m->n == 5 && near(m->med, 46000, 1) && ir_calib_series_at(&d, IR_CS_LCOPY, 0),
	   "netcal: the library copy is the MPI_Alltoall on one rank (%g ps)", m ? m->med : -1);
	m = ir_calib_series_at(&d, IR_CS_REDUCE, 1024);
	ok(m && m->n == 5 && near(m->med, 178000, 1) && !ir_calib_series_at(&d, IR_CS_REDUCE, 0),
	   "netcal: the reduction's duration, none of 0 bytes");
	m = ir_calib_series_at(&d, IR_CS_SEND, 64);
	ok(m && near(m->med, 100000, 1), "netcal: the warm send's duration");
	{
		ir_calib_opts co;
		ir_calib_fit f;
		ir_sb t = IR_SB_INIT;
		memset(&co, 0, sizeof co);
		co.S = 65536;
		co.have_S = 1;
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0 && f.netcal && f.term[IR_CT_RECV_O].have && f.term[IR_CT_COPY].have &&
		       f.term[IR_CT_REDUCE].have,
		   "netcal: the five terms fitted");
		if (!f.netcal || !f.term[IR_CT_REDUCE].have)
			printf("#   %s\n", e.msg);
		ok(ir_pw_eval(&f.term[IR_CT_REDUCE].pw.pw, 1024) == 178000 && ir_pw_eval(&f.term[IR_CT_COPY].pw.pw, 65536) == 1124000,
		   "netcal: copy and reduce reproduce their lines");
		ok(f.term[IR_CT_COLL_COPY].have && near((double)ir_pw_eval(&f.term[IR_CT_COLL_COPY].pw.pw, 65536), 286000, 1000) &&
		       near((double)ir_pw_eval(&f.term[IR_CT_COLL_COPY].pw.pw, 0), 30000, 1000),
		   "netcal: coll_copy reproduces its line within the traces' 1 ns (%g ps at 64 KiB)",
		   f.term[IR_CT_COLL_COPY].have ? (double)ir_pw_eval(&f.term[IR_CT_COLL_COPY].pw.pw, 65536) : -1);
		ok(ir_calib_write_params(&d, &f, NULL, "test", &t) == 0 && strstr(t.buf, "\nsend_o = 0:") &&
		       strstr(t.buf, "\nrecv_o = 0:") && strstr(t.buf, "\nnet_L = 0:") && strstr(t.buf, "\ncopy = 0:") &&
		       strstr(t.buf, "\nreduce = 0:") && strstr(t.buf, "\ncoll_copy = 0:") && strstr(t.buf, "\n#@ 65536 ") &&
		       strstr(t.buf, "\n# one-way: half the round trip less rank 1's gap from its receive to its answer, which a "
		                     "replay charges as computation (median 250.0 ns over 55 exchanges)\n"),
		   "netcal: the parameter file has the five functions, the fitted table and the answers' gap");
		ir_sb_release(&t);
		ir_calib_fit_release(&f);
		co.have_S = 0;
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0 && f.S_protocol && f.S == 64 && f.split == 2,
		   "netcal: S is the largest size whose send to the late receiver did not wait (S = %llu)",
		   (unsigned long long)f.S);
		ir_calib_fit_release(&f);
	}
	ir_calib_data_release(&d);
	/* an answer that is not the exchange rank 0 made (another size): nothing taken off it */
	{
		char p1[600], *txt = NULL, *at;
		size_t len = 0;
		FILE *f;
		snprintf(p1, sizeof p1, "%s/rank-1.trace", dir);
		f = fopen(p1, "r");
		if (f) {
			txt = calloc(1, 1 << 20);
			len = txt ? fread(txt, 1, (1 << 20) - 1, f) : 0;
			fclose(f);
		}
		at = txt ? strstr(txt, ":1:64:13,1,1:0:30001:") : NULL;
		if (at) {
			memcpy(at, ":1:65:", 6); /* the size field of rank 1's first warm receive of 64 bytes */
			f = fopen(p1, "w");
			if (f) {
				fwrite(txt, 1, len, f);
				fclose(f);
			}
		}
		free(txt);
		data_init(&d);
		ok(at && ir_calib_read_traces(&d, paths, 1, &e) == 0 && ir_calib_aggregate(&d, &e) == 0 && d.gap_n == 54 &&
		       d.gap_miss == 1 && near(d.p[1].real_ps, 1001000, 200),
		   "netcal: an answer of another size is not paired (%zu gaps, %zu without)", d.gap_n, d.gap_miss);
		ir_calib_data_release(&d);
	}
	/* the progress phase decides S when present; recv_o stays the late receiver's */
	ok(write_netcal(dir, 2) == 0, "netcal traces with the progress phase written");
	data_init(&d);
	ok(ir_calib_read_traces(&d, paths, 1, &e) == 0 && ir_calib_aggregate(&d, &e) == 0, "netcal: progress phase read");
	m = ir_calib_series_at(&d, IR_CS_PROG_SEND, 4096);
	ok(m && m->n == 5 && near(m->med, 20364000, 1), "netcal: the progress phase's send duration (%g ps)", m ? m->med : -1);
	m = ir_calib_series_at(&d, IR_CS_LATE, 4096);
	ok(m && near(m->med, 364000, 1), "netcal: recv_o's series is still the late receiver's (%g ps)", m ? m->med : -1);
	{
		ir_calib_opts co;
		ir_calib_fit f;
		memset(&co, 0, sizeof co);
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0 && f.S_protocol && f.S == 1024 && f.split == 3,
		   "netcal: S is the largest size whose send to a receiver waiting inside the library did not wait (S = %llu)",
		   (unsigned long long)f.S);
		ok(f.term[IR_CT_SEND_O].have && near((double)ir_pw_eval(&f.term[IR_CT_SEND_O].pw.pw, 1024), 100000, 1),
		   "netcal: a held eager size's send_o is the figure of the last size that did not wait, not its warm send "
		   "(%g ps)",
		   f.term[IR_CT_SEND_O].have ? (double)ir_pw_eval(&f.term[IR_CT_SEND_O].pw.pw, 1024) : -1);
		ir_calib_fit_release(&f);
	}
	ir_calib_data_release(&d);
	/* on a busy machine: neither the receiver's lost core nor rank 0's moves S */
	ok(write_netcal(dir, 3) == 0, "netcal traces of a busy machine written");
	data_init(&d);
	ok(ir_calib_read_traces(&d, paths, 1, &e) == 0 && ir_calib_aggregate(&d, &e) == 0, "netcal: busy progress phase read");
	m = ir_calib_series_at(&d, IR_CS_PROG_SEND, 4096);
	ok(m && m->n == 5 && near(m->p10, 25000000, 1) && near(m->med, 25000000, 1),
	   "netcal: a progress send is timed from its round's start, the answer before it: the late call lasted 0.5 us (%g ps, median %g ps)",
	   m ? m->p10 : -1, m ? m->med : -1);
	m = ir_calib_series_at(&d, IR_CS_PROG_SEND, 1024);
	ok(m && near(m->p10, 300000, 1) && m->med > 8e9, "netcal: a held-up eager size: 10th percentile %g ps, median %g ps",
	   m ? m->p10 : -1, m ? m->med : -1);
	{
		ir_calib_opts co;
		ir_calib_fit f;
		memset(&co, 0, sizeof co);
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0 && f.S_protocol && f.S == 1024 && f.split == 3,
		   "netcal: S from the 10th percentile of the sends timed from their rounds' starts (S = %llu)",
		   (unsigned long long)f.S);
		ir_calib_fit_release(&f);
	}
	ir_calib_data_release(&d);
	ok(write_netcal(dir, 0) == 0, "netcal traces without the late receiver written");
	data_init(&d);
	{
		char want[600];
		snprintf(want, sizeof want,
		         "%s/rank-1.trace: no late-receiver phase (MPI_Recv from rank 0 with tag 30004): recv_o cannot be measured "
		         "(formats/calibration.md)",
		         dir);
		ok(ir_calib_read_traces(&d, paths, 1, &e) == -1 && strcmp(e.msg, want) == 0, "netcal: no late receiver: %s", e.msg);
	}
	ir_calib_data_release(&d);
	rm_netcal(dir);
}

/* The exchange phase (formats/calibration.md, "The exchange"): its series is the shorter
 * of the two ranks' calls, and above S send_o becomes exchange - recv_o where that is more
 * than the rule gives, capped at 2 one-way - recv_o. */
/* write_netcal(dir, 1) into a new directory, read, fitted with default options and written
 * to *t: 0, or -1 (with e set where a step said why). */
static int netcal_fit(ir_calib_data *d, ir_calib_fit *f, ir_sb *t, ir_err *e)
{
	char dir[] = "/tmp/u-calib-XXXXXX", *paths[1] = { dir };
	ir_calib_opts co;
	data_init(d);
	d->keep_tracer = g_keep_tracer;
	g_nblock = 0;
	memset(f, 0, sizeof *f);
	memset(&co, 0, sizeof co);
	int rc;
	if (!mkdtemp(dir))
		return ir_errf(e, "temporary directory");
	rc = write_netcal(dir, 1) == 0 && ir_calib_read_traces(d, paths, 1, e) == 0 ? 0 : -1;
	rm_netcal(dir);
	return !rc && ir_calib_aggregate(d, e) == 0 && ir_calib_do_fit(d, &co, f, e) == 0 &&
	               ir_calib_write_params(d, f, NULL, "test", t) == 0
	           ? 0
	           : -1;
}

static void test_netcal_exchange(void)
{
	static const double factor[2] = { 1.5, 5 };
	/* send_o at 65536 bytes: 1.5 one-way times less recv_o, then the cap 2 one-way - recv_o */
	static const double want[2] = { 3036000 - 1324000, 2 * 2024000 - 1324000 };
	for (int c = 0; c < 3; c++) {
		char dir[] = "/tmp/u-calib-XXXXXX", *paths[1];
		ir_calib_data d;
		ir_calib_opts co;
		ir_calib_fit f;
		ir_sb t = IR_SB_INIT;
		ir_err e;
		const ir_calib_med *m;
		if (!mkdtemp(dir)) {
			ok(0, "exchange: temporary directory");
			return;
		}
		paths[0] = dir;
		g_exch = c < 2 ? factor[c] : 1.5;
		g_exch_bad = c == 2;
		ok(write_netcal(dir, 1) == 0, "exchange: traces written (%s)", c < 2 ? "both ranks" : "rank 1 one short");
		g_exch = 0;
		g_exch_bad = 0;
		data_init(&d);
		if (c == 2) {
			ok(ir_calib_read_traces(&d, paths, 1, &e) == -1 &&
			       strstr(e.msg, "rank-0.trace: rank 0 makes 25 exchanges with rank 1 (MPI_Sendrecv, tag 30051), rank 1 "
			                     "makes 24 (not netcal's exchange phase)"),
			   "exchange: a count that differs between the ranks is an error naming both (%s)", e.msg);
			ir_calib_data_release(&d);
			rm_netcal(dir);
			continue;
		}
		ok(ir_calib_read_traces(&d, paths, 1, &e) == 0 && ir_calib_aggregate(&d, &e) == 0, "exchange: read");
		rm_netcal(dir);
		m = ir_calib_series_at(&d, IR_CS_EXCH, 65536);
		ok(m && m->n == 5 && near(m->med, factor[c] * 2024000, 1),
		   "exchange x%g: the shorter of the two ranks' calls (%g ps)", factor[c], m ? m->med : -1);
		memset(&co, 0, sizeof co);
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0 && f.S == 64 && f.x_sizes == 3 && f.x_raised == 3,
		   "exchange x%g: 3 sizes above S, each raised (%zu, %zu)", factor[c], f.x_sizes, f.x_raised);
		ok(near((double)ir_pw_eval(&f.term[IR_CT_SEND_O].pw.pw, 65536), want[c], 1000),
		   "exchange x%g: send_o at 64 KiB is %s (%llu ps)", factor[c],
		   c ? "capped at 2 one-way - recv_o" : "exchange - recv_o",
		   (unsigned long long)ir_pw_eval(&f.term[IR_CT_SEND_O].pw.pw, 65536));
		ok(ir_calib_write_params(&d, &f, NULL, "test", &t) == 0 &&
		       strstr(t.buf, "\n# exchange: 25 exchanges; send_o above S is exchange - recv_o at 3 of the 3 sizes above S "
		                     "(or held) with one, where that is more than the one-way time leaves\n"),
		   "exchange x%g: the parameter file says so", factor[c]);
		/* recv_o_cross (formats/calibration.md, "Crossing messages"): rank 0's call lasts
		 * 0.2 us more than rank 1's, so either rank's call is 0.1 us above the shorter on
		 * average; at the eager sizes (0 and 64 bytes) what it leaves beside max(send_o,
		 * net_L) as fitted */
		m = ir_calib_series_at(&d, IR_CS_XRANK, 65536);
		ok(m && m->n == 10 && near(m->med, factor[c] * 2024000 + 100000, 1),
		   "exchange x%g: either rank's call, both ranks pooled (%g ps, %zu calls)", factor[c], m ? m->med : -1,
		   m ? m->n : 0);
		{
			int good = f.term[IR_CT_RECV_X].have;
			for (int k = 0; k < 2 && good; k++) {
				uint64_t z = k ? 64 : 0;
				double a = (double)ir_pw_eval(&f.term[IR_CT_SEND_O].pw.pw, z),
				       b = (double)ir_pw_eval(&f.term[IR_CT_NET_L].pw.pw, z),
				       x = factor[c] * (1 + (double)z / 64 / 1000) * 1e6 + 100000 - (a > b ? a : b),
				       got = (double)ir_pw_eval(&f.term[IR_CT_RECV_X].pw.pw, z);
				if (!near(got, x, 1000)) {
					printf("#   %llu bytes: recv_o_cross %g ps, want %g\n", (unsigned long long)z, got, x);
					good = 0;
				}
			}
			ok(good && strstr(t.buf, "\nrecv_o_cross = 0:") && strstr(t.buf, "\n# recv_o_cross: receiver's CPU"),
			   "exchange x%g: recv_o_cross is a rank's exchange less max(send_o, net_L) at the eager sizes", factor[c]);
		}
		/* a machine slowed all through some phase against the reference: the exchange and the
		 * send's terms may come from two states, so no recv_o_cross, and the file says why */
		{
			ir_calib_fit f2;
			ir_sb t2 = IR_SB_INIT;
			d.state.phases_slow = 2;
			ok(ir_calib_do_fit(&d, &co, &f2, &e) == 0 && !f2.term[IR_CT_RECV_X].have && f2.x_state == 2 &&
			       ir_calib_write_params(&d, &f2, NULL, "test", &t2) == 0 && !strstr(t2.buf, "\nrecv_o_cross =") &&
			       strstr(t2.buf, "\n# recv_o_cross: not fitted: the machine was slowed all through 2 phases "),
			   "exchange x%g: no recv_o_cross from a calibration slowed all through some phase", factor[c]);
			d.state.phases_slow = 0;
			ir_sb_release(&t2);
			ir_calib_fit_release(&f2);
		}
		{
			const char *row = strstr(t.buf, "\n#@ 65536 ");
			const char *end = row ? strchr(row + 1, '\n') : NULL;
			ok(end && end - row > 2 && !memcmp(end - 2, " -", 2), "exchange x%g: no recv_o_cross above S in the table",
			   factor[c]);
		}
		ir_sb_release(&t);
		ir_calib_fit_release(&f);
		ir_calib_data_release(&d);
	}
	/* without the phase: send_o as before, and the file says there was none */
	{
		ir_calib_data d;
		ir_calib_fit f;
		ir_sb t = IR_SB_INIT;
		ir_err e;
		ok(netcal_fit(&d, &f, &t, &e) == 0 && f.x_sizes == 0 &&
		       near((double)ir_pw_eval(&f.term[IR_CT_SEND_O].pw.pw, 65536), 100000, 1000) &&
		       strstr(t.buf, "\n# exchange: no exchange phase in the traces: send_o above S is not raised"),
		   "exchange: none in the traces: send_o above S is the eager figure, and the file says why");
		ok(!f.term[IR_CT_RECV_X].have && !strstr(t.buf, "\nrecv_o_cross =") &&
		       strstr(t.buf, "\n# recv_o_cross: not measured (no exchange of an eager size in the traces)\n"),
		   "exchange: none in the traces: no recv_o_cross, and the file says so");
		ir_sb_release(&t);
		ir_calib_fit_release(&f);
		ir_calib_data_release(&d);
	}
}

/* netcal's pinning (formats/calibration.md, "Pinning"): a first use dearer than a cold
 * buffer at most sizes is fitted, and written only when the line stands out of its scatter. */
static void test_netcal_pinning(void)
{
	/* a registration, 100 us + 1 ns per byte; then first uses slower by as much at random */
	static const double line[5] = { 100, 100.064, 101.024, 104.096, 165.536 };
	static const double scatter[5] = { 300, 2, 150, 400, 10 };
	/* the same 200 us (+- 1) at every size: a cost of the fresh buffer, not a registration */
	static const double flat[5] = { 200, 201, 199, 200.5, 199.5 };
	for (int c = 0; c < 3; c++) {
		ir_calib_data d;
		ir_calib_fit f;
		ir_sb t = IR_SB_INIT;
		ir_err e;
		memcpy(g_first, c == 2 ? flat : c ? scatter : line, sizeof g_first);
		ok(netcal_fit(&d, &f, &t, &e) == 0, "pinning: %s fitted", c == 2 ? "a flat first-use excess" : c ? "scattered first uses" : "a registration line");
		if (!c)
			ok(f.have_pin && !f.pin_noise && near(f.pin_a, 100e6, 1e3) && near(f.pin_b, 1000, 1) &&
			       strstr(t.buf, "\npin_a = 100us ") != NULL,
			   "pinning: the line is written (pin_a %g ps, pin_b %g ps)", f.pin_a, f.pin_b);
		else
			ok(f.have_pin && f.pin_noise && f.pin_a > 3 * f.pin.se_intercept * (c == 2) && strstr(t.buf, "\npin_a = 0ps ") &&
			       strstr(t.buf, "pin_b is not positive by three standard errors"),
			   "pinning: %s is no registration (pin_a %g +- %g ps, pin_b %g +- %g ps)",
			   c == 2 ? "a first use dearer by the same at every size" : "first uses slower at random", f.pin_a,
			   f.pin.se_intercept, f.pin_b, f.pin.se_slope);
		memset(g_first, 0, sizeof g_first);
		ir_sb_release(&t);
		ir_calib_fit_release(&f);
		ir_calib_data_release(&d);
	}
	/* Sizes over five decades, first uses as fast as cold ones at 64 bytes and dearer by
	 * 25-40 % from 64 KiB on (a VM's fresh pages, 16 MiB less than 1 MiB would say): the
	 * line is weighted by the inverse square of the cold round trip, as the network's terms
	 * are, so its intercept is what the small sizes show (about 0), not the microseconds a
	 * plain least-squares line through the largest sizes puts at 0 bytes and would charge
	 * every new buffer. */
	{
		static const double vm[5] = { 0, 0.01, 1.0, 14, 100 };
		ir_calib_data d;
		ir_calib_fit f;
		ir_sb t = IR_SB_INIT;
		ir_err e;
		ir_linfit plain;
		double xs[4] = { 64, 65536, 1 << 20, 16 << 20 }, ys[4];
		memcpy(g_first, vm, sizeof g_first);
		g_big = 1;
		for (int k = 0; k < 4; k++)
			ys[k] = vm[k + 1] * 1e6;
		memset(&plain, 0, sizeof plain);
		int fitted = netcal_fit(&d, &f, &t, &e) == 0 && ir_linfit_xy(xs, ys, 4, &plain) == 0 && f.have_pin;
		ok(fitted && fabs(f.pin.intercept) < 0.2e6 && fabs(plain.intercept) > 10 * fabs(f.pin.intercept),
		   "pinning: weighted by the cold round trip, the intercept is the small sizes' (%g ps; unweighted %g ps)",
		   f.pin.intercept, plain.intercept);
		g_big = 0;
		memset(g_first, 0, sizeof g_first);
		ir_sb_release(&t);
		ir_calib_fit_release(&f);
		ir_calib_data_release(&d);
	}
}

/* A registration line in one round of first uses only (a preemption that hit every size's
 * first exchange): with one round it is fitted as pinning; with netcal's five rounds the
 * median of each size's five is what the other four say, no slower than cold (formats/
 * calibration.md, "Pinning"). */
static void test_netcal_pinning_rounds(void)
{
	static const double line[5] = { 100, 100.064, 101.024, 104.096, 165.536 };
	for (int reps = 1; reps <= 5; reps += 4) {
		ir_calib_data d;
		ir_calib_fit f;
		ir_sb t = IR_SB_INIT;
		ir_err e;
		char want[64];
		memcpy(g_first_once, line, sizeof g_first_once);
		g_first_reps = reps;
		snprintf(want, sizeof want, " cold, %d first, ", 5 * reps);
		ok(netcal_fit(&d, &f, &t, &e) == 0 && strstr(t.buf, want), "pinning: %d round%s of first uses read (%s)", reps,
		   reps > 1 ? "s" : "", want);
		if (reps == 1)
			ok(f.have_pin && !f.pin_noise && near(f.pin_b, 1000, 1) && strstr(t.buf, "\npin_a = 100us "),
			   "pinning: one round, one preempted exchange per size is taken for a registration (pin_b %g ps)", f.pin_b);
		else
			ok(f.pin_cold && f.pin_nsig == 0 && strstr(t.buf, "\npin_a = 0ps ") &&
			       strstr(t.buf, "\npin_b = 0ps "),
			   "pinning: five rounds, each size's median first use is no slower than cold (%zu of %zu sizes slower)",
			   f.pin_nsig, f.pin_ncold);
		memset(g_first_once, 0, sizeof g_first_once);
		g_first_reps = 0;
		ir_sb_release(&t);
		ir_calib_fit_release(&f);
		ir_calib_data_release(&d);
	}
}

/* recv_o is at most the warm one-way time: a late receive that took longer (a loaded
 * machine) is capped, and the file says so. */
static void test_netcal_recv_cap(void)
{
	ir_calib_data d;
	ir_calib_fit f;
	ir_sb t = IR_SB_INIT;
	ir_err e;
	g_late[3] = 5; /* 4096 bytes: 5.364 us, against a one-way time of 1.064 us */
	ok(netcal_fit(&d, &f, &t, &e) == 0, "recv_o cap: fitted");
	ok(f.r_capped == 1 && (double)ir_pw_eval(&f.term[IR_CT_RECV_O].pw.pw, 4096) <= d.p[3].real_ps + 1 &&
	       strstr(t.buf, "#   capped at the warm one-way time at 1 size, whose late receive took longer"),
	   "recv_o cap: a late receive longer than the one-way time is capped at it (%g ps, one-way %g ps)",
	   (double)ir_pw_eval(&f.term[IR_CT_RECV_O].pw.pw, 4096), d.p[3].real_ps);
	g_late[3] = 0;
	ir_sb_release(&t);
	ir_calib_fit_release(&f);
	ir_calib_data_release(&d);
}

/* The machine's state (formats/calibration.md, "Machine state"): 9 repetitions, of which 2 to 6
 * ran on a machine slowed 3 times (pulses and ping-pongs). Pulse b precedes size b % 5 of
 * repetition b / 5 (46 pulses; 10 to 34 slowed), so the measurements of blocks 10 to 33 lie
 * between two slowed pulses and are set aside: per block the warm, cold and send-call
 * series, the late receive and its send, the self copy, the library copy and (from 64 bytes)
 * the reduction, and the classic fit's warm sample: 8 at size 0 (blocks 10, 15, 20, 25, 30),
 * 9 at the others (19 blocks): 211. Without pulses the slowed majority sets the medians. */
/* 20 pulses, 100 ps apart: the first 10 of phase 1 at 1 us, the last 10 of phase 2 at 3 us;
 * between each two, one warm 8-byte measurement of 1 us (19 in d->raw). */
static void two_phases(ir_calib_data *d, ir_calib_pulse *p)
{
	d->raw = calloc(19, sizeof *d->raw);
	if (!d->raw)
		abort();
	for (int i = 0; i < 20; i++) {
		p[i] = (ir_calib_pulse){ 100 * i, 100 * i + 10, i < 10 ? 1e6 : 3e6, i < 10 ? 1 : 2, -1 };
		if (i < 19)
			d->raw[i] = (ir_calib_raw){ 8, 1e6, IR_CS_WARM, 100 * i + 50, 0 };
	}
	d->nraw = 19;
}

/* ir_calib_spread (formats/calibration.md, "The spread of a call's cost"): sends of 8 bytes
 * (150: 1..150 us) and of 64 bytes (200: 100 of 2 us, 98 of 4 us, 2 of 400 us, which the
 * winsorization caps at 4 us), late receives of 50 (too few). Ratios over each size's mean:
 * 16 factors of mean 1, in order; the same durations twice give the same factors. */
static void test_spread(void)
{
	ir_calib_data d;
	ir_spread a, b;
	size_t nsz = 0, k = 0, k2 = 0;
	long n;
	double sum = 0;
	int sorted = 1;
	ir_calib_raw *r = calloc(400, sizeof *r), *r2 = calloc(800, sizeof *r2);
	if (!r || !r2)
		abort();
	for (int i = 0; i < 150; i++)
		r[k++] = (ir_calib_raw){ 8, 1e6 * (i + 1), IR_CS_SEND, i, 0 };
	for (int i = 0; i < 200; i++)
		r[k++] = (ir_calib_raw){ 64, i < 100 ? 2e6 : i < 198 ? 4e6 : 4e8, IR_CS_SEND, i, 0 };
	for (int i = 0; i < 50; i++)
		r[k++] = (ir_calib_raw){ 8, 1e6, IR_CS_LATE, i, 0 };
	data_init(&d);
	d.raw = r;
	d.nraw = k;
	n = ir_calib_spread(&d, IR_CS_SEND, &a, &nsz);
	for (uint32_t i = 0; i < a.n; i++) {
		sum += a.f[i];
		sorted &= !i || a.f[i] >= a.f[i - 1] - 1e-12; /* equal ratios: equal shares, to rounding */
	}
	ok(n == 350 && nsz == 2 && a.n == IR_CALIB_SPREAD_N && near(sum / a.n, 1, 1e-9) && sorted,
	   "spread: 350 durations at 2 sizes, %u factors of mean %.12f, in order (%ld, %zu)", a.n, a.n ? sum / a.n : 0, n, nsz);
	/* the largest share: the 64-byte sizes' 4 us over their mean (2 + 4 * 0.98 + 4 * 0.02 = 3
	 * us capped: 4/3), and 8 bytes' largest ratios (up to 150 / 75.5) */
	ok(a.f[0] < 0.2 && a.f[IR_CALIB_SPREAD_N - 1] > 1.3 && a.f[IR_CALIB_SPREAD_N - 1] < 2,
	   "spread: the outliers capped (largest factor %g)", a.f[IR_CALIB_SPREAD_N - 1]);
	ok(ir_calib_spread(&d, IR_CS_LATE, &b, &nsz) == 0 && b.n == 0 && nsz == 0, "spread: 50 late receives: none");
	for (size_t i = 0; i < k; i++) {
		r2[k2++] = r[i];
		r2[k2++] = r[i];
	}
	d.raw = r2;
	d.nraw = k2;
	n = ir_calib_spread(&d, IR_CS_SEND, &b, &nsz);
	{
		int same = b.n == a.n;
		for (uint32_t i = 0; same && i < a.n; i++)
			same = near(a.f[i], b.f[i], 1e-12);
		ok(n == 700 && same, "spread: every duration twice gives the same factors (shares' edges in part)");
	}
	d.raw = NULL;
	d.nraw = 0;
	ir_calib_data_release(&d);
	free(r);
	free(r2);
}

static void test_netcal_state(void)
{
	ir_calib_data d;
	ir_calib_fit f;
	ir_sb t = IR_SB_INIT;
	ir_err e;
	int rc;
	g_reps = 9;
	g_slow_from = 2;
	g_slow_to = 6;
	g_slow_x = 3;
	rc = netcal_fit(&d, &f, &t, &e);
	ok(rc == 0 && d.np == 5, "state: no pulses, fitted");
	ok(near(d.p[1].real_ps, 3 * 1001000, 1) && d.state.runs == 1 && !d.state.runs_pulsed && !d.state.set_aside &&
	       strstr(t.buf, "\n# machine state: no pulses in the traces (a netcal without them): nothing set aside\n"),
	   "state: without pulses the slowed majority is the median (%g ps)", d.p[1].real_ps);
	ir_sb_release(&t);
	ir_calib_fit_release(&f);
	ir_calib_data_release(&d);
	g_pulse = 1;
	rc = netcal_fit(&d, &f, &t, &e);
	ok(rc == 0 && d.np == 5, "state: with pulses, fitted");
	ok(d.state.runs_pulsed == 1 && d.state.pulses == 46 && d.state.slowed == 25 && d.state.set_aside == 211 &&
	       !d.state.groups_whole && near(d.state.ref_min_ps, 2e6, 1) && near(d.state.slow_med_ps, 6e6, 1),
	   "state: 25 of 46 pulses slowed, 211 measurements set aside (%zu, %zu, %zu)", d.state.pulses, d.state.slowed,
	   d.state.set_aside);
	ok(near(d.p[1].real_ps, 1001000, 1) && near(d.p[4].real_ps, 2024000, 1) && d.p[1].reps == 4 && d.p[4].reps == 5,
	   "state: the medians are the undisturbed machine's (%g ps, %g ps)", d.p[1].real_ps, d.p[4].real_ps);
	ok(strstr(t.buf, "\n# machine state: 46 pulses (0-byte round trips) over 1 run, 45 of them in 1 phase of 8 or more; "
	                 "undisturbed 2.0000 us (each phase's 10th percentile); 25 slowed by more than 25 % (median 6.0000 us): "
	                 "211 of ") != NULL,
	   "state: the parameter file says so");
	ir_sb_release(&t);
	ir_calib_fit_release(&f);
	ir_calib_data_release(&d);
	/* slowed from the third repetition to the end: what the last pulse (undisturbed) follows
	 * is kept, and a series and size with fewer than 3 left is kept whole */
	g_slow_to = 8;
	rc = netcal_fit(&d, &f, &t, &e);
	ok(rc == 0 && d.state.groups_whole > 0 && near(d.p[1].real_ps, 3 * 1001000, 1),
	   "state: too few left: kept whole (%zu series and sizes)", d.state.groups_whole);
	ir_sb_release(&t);
	ir_calib_fit_release(&f);
	ir_calib_data_release(&d);
	/* ir_calib_state_filter: fewer than IR_CALIB_STATE_MIN_PULSES pulses change nothing */
	{
		ir_calib_pulse p[3] = { { 0, 1, 1e6, 0, -1 }, { 10, 11, 5e6, 0, -1 }, { 20, 21, 5e6, 0, -1 } };
		data_init(&d);
		ok(ir_calib_state_filter(&d, p, 3, 0, 0, 0, &e) == 0 && d.state.runs == 1 && !d.state.runs_pulsed,
		   "state: 3 pulses: not enough to tell");
		ir_calib_data_release(&d);
	}
	/* two phases whose pulses differ 3 times (what came before them, not the machine): each
	 * judged against its own, nothing is slowed; a phase's third part slowed 2 times is */
	{
		ir_calib_pulse p[20];
		data_init(&d);
		two_phases(&d, p);
		rc = ir_calib_state_filter(&d, p, 20, 0, 0, 0, &e) || ir_calib_state_apply(&d, &e);
		ok(rc == 0 && d.state.phases == 2 && !d.state.slowed &&
		       d.nraw == 19 && near(d.state.ref_min_ps, 1e6, 1) && near(d.state.ref_max_ps, 3e6, 1),
		   "state: two phases at their own levels: nothing slowed (%zu phases, %zu slowed)", d.state.phases,
		   d.state.slowed);
		for (int i = 13; i < 17; i++)
			p[i].v = 6e6;
		d.state = (ir_calib_state){ 0 };
		d.state_applied = 0;
		rc = ir_calib_state_filter(&d, p, 20, 0, 0, 0, &e);
		ok(rc == 0 && d.nraw == 19 && d.raw[13].slowed && d.raw[15].slowed && !d.raw[16].slowed && !d.raw[12].slowed,
		   "state: the filter marks, and removes nothing");
		rc = ir_calib_state_apply(&d, &e);
		ok(rc == 0 && d.state.slowed == 4 && d.state.set_aside == 3 &&
		       d.nraw == 16 && d.raw[12].t_ps == 1250 && d.raw[13].t_ps == 1650,
		   "state: pulses 13 to 16 slowed: the 3 measurements between them set aside (%zu)", d.state.set_aside);
		ir_calib_data_release(&d);
	}
	/* a reference from elsewhere (calib --state-ref): the second phase, 3 times the first all
	 * through, is slowed against it; its measurements are set aside, the first phase's kept;
	 * a reference above both phases changes nothing */
	{
		ir_calib_pulse p[20];
		for (int pass = 0; pass < 2; pass++) {
			data_init(&d);
			d.state_ref_ps = pass ? 4e6 : 1.1e6;
			two_phases(&d, p);
			rc = ir_calib_state_filter(&d, p, 20, 0, 0, 0, &e) || ir_calib_state_apply(&d, &e);
			if (!pass)
				ok(rc == 0 && d.state.phases == 2 && d.state.phases_slow == 1 && d.state.slowed == 10 &&
				       d.state.set_aside == 9 && d.nraw == 10 && d.raw[9].t_ps == 950 &&
				       near(d.state.ref_min_ps, 1e6, 1) && near(d.state.ref_max_ps, 3e6, 1),
				   "state: against a reference, a phase slowed all through is set aside (%zu phases slowed, %zu "
				   "pulses, %zu set aside)",
				   d.state.phases_slow, d.state.slowed, d.state.set_aside);
			else
				ok(rc == 0 && d.state.phases_slow == 0 && d.state.slowed == 0 && d.nraw == 19,
				   "state: a reference above every phase changes nothing (%zu slowed)", d.state.slowed);
			ir_calib_data_release(&d);
		}
	}
	/* two runs pooled: the first undisturbed, the second slowed all through against the
	 * reference; the series and size has 19 undisturbed measurements in the pool, so the
	 * second run's 19 are set aside (rule 5 over the pool: alone, that run would be kept
	 * whole); a second apply changes nothing */
	{
		ir_calib_pulse p[20];
		data_init(&d);
		d.state_ref_ps = 1.1e6;
		d.raw = calloc(38, sizeof *d.raw);
		for (int run = 0; run < 2; run++) {
			for (int i = 0; i < 20; i++) {
				p[i] = (ir_calib_pulse){ 100 * i, 100 * i + 10, run ? 3e6 : 1e6, 1, -1 };
				if (i < 19)
					d.raw[19 * run + i] = (ir_calib_raw){ 8, run ? 2e6 : 1e6, IR_CS_WARM, 100 * i + 50, 0 };
			}
			d.nraw = 19 * (size_t)(run + 1);
			rc = ir_calib_state_filter(&d, p, 20, 19 * (size_t)run, 0, 0, &e);
			if (rc)
				break;
		}
		rc = rc || ir_calib_state_apply(&d, &e) || ir_calib_state_apply(&d, &e);
		ok(rc == 0 && d.state.runs == 2 && d.state.phases_slow == 1 && d.nraw == 19 && d.state.set_aside == 19 &&
		       !d.state.groups_whole && d.raw[18].ps == 1e6,
		   "state: pooled runs: rule 5 over the pool sets the slowed run aside (%zu left, %zu set aside, %zu kept "
		   "whole)",
		   d.nraw, d.state.set_aside, d.state.groups_whole);
		ir_calib_data_release(&d);
	}
	g_reps = g_pulse = 0;
	g_slow_from = g_slow_to = -1;
	g_slow_x = 1;
}

/* ir_calib_compare: two piecewise models side by side (formats/calibration.md,
 * "Comparing two calibrations"). */
/* The tracer's share (formats/calibration.md, "The tracer's share"): 5 repetitions, a pulse
 * before each of the 5 sizes and one at the end (26), each between two untraced blocks whose
 * exchanges take 0.9 us one way against the pulse's 1 us: 0.1 us comes off every one-way
 * time, 0.05 us off every call's duration. */
static void test_netcal_tracer(void)
{
	ir_calib_data d;
	ir_calib_fit f;
	ir_sb t = IR_SB_INIT;
	ir_err e;
	const ir_calib_med *m;
	int rc;
	g_pulse = 1;
	g_bare = 0.9;
	rc = netcal_fit(&d, &f, &t, &e);
	ok(rc == 0 && d.tracer.runs == 1 && d.tracer.runs_blocks == 1 && d.tracer.runs_applied == 1 &&
	       d.tracer.run[0].pairs == 26 && !d.tracer.run[0].dropped && near(d.tracer.run[0].med_ps, 1e5, 1) &&
	       near(d.tracer.run[0].lo_ps, 1e5, 1) && near(d.tracer.run[0].bare_ps, 9e5, 1) &&
	       near(d.tracer.run[0].traced_ps, 1e6, 1),
	   "tracer: 26 pulses paired, 0.1 us a message (%zu, %g ps)", d.tracer.run[0].pairs, d.tracer.run[0].med_ps);
	ok(rc == 0 && near(d.p[1].real_ps, 1001000 - 1e5, 1) && near(d.p[4].real_ps, 2024000 - 1e5, 1),
	   "tracer: off the one-way times (%g, %g ps)", d.p[1].real_ps, d.p[4].real_ps);
	ok(rc == 0 && (m = ir_calib_series_at(&d, IR_CS_SEND, 64)) && near(m->med, 1e5 - 5e4, 1) &&
	       (m = ir_calib_series_at(&d, IR_CS_LATE, 64)) && near(m->med, 301000 - 5e4, 1) &&
	       (m = ir_calib_series_at(&d, IR_CS_SELF, 64)) && near(m->med, 101000 - 5e4, 1) &&
	       (m = ir_calib_series_at(&d, IR_CS_COLD, 64)) && near(m->med, 1001000 - 1e5, 1),
	   "tracer: half of it off every call's duration (send, late receive, self copy), all off the cold one-way time");
	ok(rc == 0 && strstr(t.buf, "\n# tracer's share: untraced blocks in 1 of 1 run, taken off in 1; run 1: 26 pulses "
	                            "between two blocks, one way traced 1.0000 us, untraced 0.9000 us, difference 0.1000 us "
	                            "(95 %: 0.1000 to 0.1000): taken off every one-way time, half of it off every call's "
	                            "duration\n"),
	   "tracer: the parameter file says so");
	ir_sb_release(&t);
	ir_calib_fit_release(&f);
	ir_calib_data_release(&d);
	/* --tracer-time keep: measured, nothing taken off */
	g_keep_tracer = 1;
	rc = netcal_fit(&d, &f, &t, &e);
	ok(rc == 0 && !d.tracer.runs_applied && near(d.tracer.run[0].med_ps, 1e5, 1) && near(d.p[1].real_ps, 1001000, 1) &&
	       strstr(t.buf, "(95 %: 0.1000 to 0.1000): kept (--tracer-time keep)\n"),
	   "tracer: --tracer-time keep measures it and keeps it (%g ps)", d.p[1].real_ps);
	ir_sb_release(&t);
	ir_calib_fit_release(&f);
	ir_calib_data_release(&d);
	g_keep_tracer = 0;
	/* a flush of the tracer's buffer inside a block: that block is left out */
	g_bare_flush = 3;
	rc = netcal_fit(&d, &f, &t, &e);
	ok(rc == 0 && d.tracer.run[0].pairs == 25 && d.tracer.run[0].dropped == 1 && d.tracer.runs_applied == 1 &&
	       strstr(t.buf, "run 1: 25 pulses between two blocks (1 block left out: a flush of the tracer's buffer in it), "),
	   "tracer: a block with a flush in it left out (%zu, %zu)", d.tracer.run[0].pairs, d.tracer.run[0].dropped);
	ir_sb_release(&t);
	ir_calib_fit_release(&f);
	ir_calib_data_release(&d);
	g_bare_flush = 0;
	/* untraced slower than traced: not above 0, nothing taken off */
	g_bare = 1.1;
	rc = netcal_fit(&d, &f, &t, &e);
	ok(rc == 0 && !d.tracer.runs_applied && near(d.tracer.run[0].med_ps, -1e5, 1) && near(d.p[1].real_ps, 1001000, 1) &&
	       strstr(t.buf, ": not above 0 with 95 % confidence, nothing taken off\n"),
	   "tracer: a difference not above 0 is not taken off");
	ir_sb_release(&t);
	ir_calib_fit_release(&f);
	ir_calib_data_release(&d);
	/* one repetition: 6 pairs, too few */
	g_bare = 0.9;
	g_reps = 1;
	rc = netcal_fit(&d, &f, &t, &e);
	ok(rc == 0 && d.tracer.run[0].pairs == 6 && !d.tracer.runs_applied &&
	       strstr(t.buf, ": fewer than 8 pairs, nothing taken off\n"),
	   "tracer: fewer than 8 pairs are not enough (%zu)", d.tracer.run[0].pairs);
	ir_sb_release(&t);
	ir_calib_fit_release(&f);
	ir_calib_data_release(&d);
	/* two runs pooled (formats/calibration.md, "Several runs"): the first without blocks, the
	 * second with; each run's share comes off its own measurements only */
	{
		char d1[] = "/tmp/u-calib-XXXXXX", d2[] = "/tmp/u-calib-XXXXXX", *dirs[2] = { d1, d2 };
		ir_calib_opts co;
		g_reps = 0;
		g_bare = 0;
		g_nblock = 0;
		data_init(&d);
		memset(&f, 0, sizeof f);
		memset(&co, 0, sizeof co);
		rc = mkdtemp(d1) && write_netcal(d1, 1) == 0 ? 0 : -1;
		g_bare = 0.9;
		rc |= mkdtemp(d2) && write_netcal(d2, 1) == 0 ? 0 : -1;
		rc |= ir_calib_read_runs(&d, dirs, 2, &e) || ir_calib_aggregate(&d, &e);
		rm_netcal(d1);
		rm_netcal(d2);
		m = rc ? NULL : ir_calib_series_at(&d, IR_CS_SEND, 64);
		ok(!rc && d.tracer.runs == 2 && d.tracer.runs_blocks == 1 && d.tracer.runs_applied == 1 && m && m->n == 10 &&
		       near(m->q1, 5e4, 1) && near(m->q3, 1e5, 1),
		   "tracer: pooled runs, each its own: the second run's sends 0.05 us shorter, the first's as measured");
		ok(!rc && ir_calib_do_fit(&d, &co, &f, &e) == 0 && ir_calib_write_params(&d, &f, NULL, "test", &t) == 0 &&
		       strstr(t.buf, "\n# tracer's share: untraced blocks in 1 of 2 runs, taken off in 1; run 2: 26 pulses "),
		   "tracer: pooled runs: the parameter file names the run");
		ir_sb_release(&t);
		ir_calib_fit_release(&f);
		ir_calib_data_release(&d);
	}
	/* no blocks (netcal before them) */
	g_bare = 0;
	g_reps = 0;
	rc = netcal_fit(&d, &f, &t, &e);
	ok(rc == 0 && d.tracer.runs == 1 && !d.tracer.runs_blocks && near(d.p[1].real_ps, 1001000, 1) &&
	       strstr(t.buf, "\n# tracer's share: no untraced blocks in the traces (a netcal without them): nothing taken off\n"),
	   "tracer: traces without blocks: nothing taken off, and said so");
	ir_sb_release(&t);
	ir_calib_fit_release(&f);
	ir_calib_data_release(&d);
	g_pulse = 0;
}

static void test_compare(void)
{
	ir_loggops a, b;
	ir_sb t = IR_SB_INIT;
	ir_err e;
	ir_loggops_defaults(&a);
	ir_loggops_defaults(&b);
	ok(ir_calib_compare(&a, &b, "a", "b", 5, &t, &e) == -1 &&
	       !strcmp(e.msg, "a: no piecewise model (send_o, recv_o, net_L): not a netcal calibration"),
	   "compare: a file without the piecewise model is named (%s)", e.msg);
	ok(ir_pw_parse(&a.send_o, "0:1us", "send_o", &e) == 0 && ir_pw_parse(&a.recv_o, "0:2us+100ps", "recv_o", &e) == 0 &&
	       ir_pw_parse(&a.net_L, "0:1us+100ps", "net_L", &e) == 0,
	   "compare: a model");
	b = a;
	b.recv_o.seg[0].base = 2500000; /* 0.5 us more */
	ok(ir_calib_compare(&a, &b, "a", "b", 5, &t, &e) == 0 &&
	       strstr(t.buf, "\n64\t3.0128\t3.5128\t0.00\t15.32\t0.00\t15.32\t-\t-\t-\t-\tno\n") &&
	       strstr(t.buf, "\n49152\t12.8304\t13.3304\t0.00\t3.82\t0.00\t3.82\t-\t-\t-\t-\tyes\n") &&
	       strstr(t.buf, "within 5 %: 33 of 57; the largest difference: recv_o at 64 bytes, 15.32 %\n"),
	   "compare: recv_o 0.5 us apart, in %% of the mean one-way time; 33 of 57 sizes within 5 %%");
	ir_sb_release(&t);
}

/* One size of a ping-pong from traces: its first exchange, dearer in round trip by `extra`
 * (ps), and three reused ones of one-way time `ow`; the send calls take 0.3 us. */
static void add_size(ir_calib_data *d, double s, double ow, double extra)
{
	ir_calib_sample smp = { (uint64_t)s, ow + extra / 2, 300000, 1, 0, 0, 0 };
	d->s = realloc(d->s, (d->ns + 4) * sizeof *d->s);
	if (!d->s)
		abort();
	d->s[d->ns++] = smp;
	for (int r = 0; r < 3; r++) {
		ir_calib_sample re = { (uint64_t)s, ow, 300000, 0, 0, 0, 0 };
		d->s[d->ns++] = re;
	}
}

/* calib --yield's inversion (lib/ir_calib_node.c): the closed form of any core, and the
 * bound rule's by simulating nodecal in the engine, on costs where the two differ (a
 * message's latency short against its overheads) and on costs where they agree. */
static void test_yield_fit(void)
{
	static const char q[] = "send_o = 0:60ns\nrecv_o = 0:200ns\nnet_L = 0:100ns\n";
	static const char m[] = "send_o = 0:113ns\nrecv_o = 0:282ns\nnet_L = 0:3.5ns\n";
	ir_params *ps = ir_params_new();
	ir_loggops lq, lm;
	ir_calib_yrun r[3];
	double y, c;
	ir_err e;
	ir_loggops_defaults(&lq);
	ir_loggops_defaults(&lm);
	ok(ps && ir_params_parse(ps, q, strlen(q), "q", &e) == 0 && ir_loggops_load(&lq, ps, &e) == 0, "q parameters");
	ir_params_free(ps);
	ps = ir_params_new();
	ok(ps && ir_params_parse(ps, m, strlen(m), "m", &e) == 0 && ir_loggops_load(&lm, ps, &e) == 0, "m parameters");
	ir_params_free(ps);
	memset(r, 0, sizeof r);
	r[0].dir = "r4";
	r[0].nranks = 4;
	r[0].oneway_ps = 800000;
	ok(ir_calib_yield_fit(r, 1, 2, 0, &lq, &y, &c, &e) == 0 && r[0].quiet_ps == 300000 && r[0].wake_ps == 500000 &&
	       y == 500000 && c == 0,
	   "any core: one way 0.8 us, 0.3 us without wake-ups, a wake-up 0.5 us");
	ok(ir_calib_yield_fit(r, 1, 2, 1, &lq, &y, &c, &e) == 0 && r[0].quiet_ps == 500000 && r[0].wake_ps == 150000 &&
	       y == 150000 && c == 0,
	   "bound: the pairs' receives share a core, 0.5 us without wake-ups, a wake-up 0.15 us");
	r[0].oneway_ps = 400000;
	ok(ir_calib_yield_fit(r, 1, 2, 1, &lq, &y, &c, &e) == 0 && r[0].wake_ps == 0 && y == 0,
	   "bound: a run faster than the model without wake-ups wakes for nothing");
	r[0].oneway_ps = 3400000;
	r[1] = r[0];
	r[1].dir = "r8";
	r[1].nranks = 8;
	r[1].oneway_ps = 6500000;
	r[2] = r[0];
	r[2].dir = "r5";
	r[2].nranks = 5; /* the last rank has no neighbour */
	r[2].oneway_ps = 3400000;
	{
		double w0[3], w1[3];
		int agree = 1;
		ok(ir_calib_yield_fit(r, 3, 2, 0, &lm, &y, &c, &e) == 0, "any core, 4, 8 and 5 ranks");
		for (int i = 0; i < 3; i++)
			w0[i] = r[i].wake_ps;
		ok(ir_calib_yield_fit(r, 3, 2, 1, &lm, &y, &c, &e) == 0, "bound, the same runs");
		for (int i = 0; i < 3; i++) {
			w1[i] = r[i].wake_ps;
			agree &= fabs(w1[i] - w0[i]) <= 1;
		}
		ok(agree, "where the wake-up dominates the two rules invert alike, to a picosecond (%.0f %.0f %.0f ps)",
		   w1[0], w1[1], w1[2]);
	}
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

	/* the default estimate (formats/calibration.md, "Mean or median"): 100 rows of size 1,
	 * 98 of 1 us, one of 2 us, one of 50 us: winsorized at 1 % (t = 1) the 50 counts as the
	 * 2 below it, (98 + 2 + 2) / 100 = 1.02 us (the plain mean 1.51, the median 1); a run
	 * pooled with itself gives the same; at 150 rows t = 1.5 counts the edge in part */
	{
		ir_sb tsv = IR_SB_INIT;
		double one, twice;
		int rc = ir_sb_adds(&tsv, "size_bytes real_us\n");
		for (int i = 0; i < 100; i++)
			rc |= ir_sb_addf(&tsv, "1 %s\n8 %s\n", i == 98 ? "2" : i == 99 ? "50" : "1", i < 98 ? "3" : "4");
		g_estimator = IR_CALIB_EST_MEAN;
		/* (the calls before ok(): its arguments are evaluated in no set order) */
		rc |= parse(&d, tsv.buf, &e) || ir_calib_aggregate(&d, &e);
		ok(!rc && d.estimator == IR_CALIB_EST_MEAN && near(d.p[0].real_ps, 1.02e6, 1) && near(d.p[1].real_ps, 3.02e6, 1),
		   "mean: winsorized at 1 %% (%g ps, %g ps)", rc ? 0 : d.p[0].real_ps, rc ? 0 : d.p[1].real_ps);
		ir_calib_data_release(&d);
		g_estimator = IR_CALIB_EST_MEDIAN;
		rc |= parse(&d, tsv.buf, &e) || ir_calib_aggregate(&d, &e);
		ok(!rc && d.p[0].real_ps == 1e6 && d.p[1].real_ps == 3e6, "median: the middle row (%g ps)", rc ? 0 : d.p[0].real_ps);
		ir_calib_data_release(&d);
		ir_sb_release(&tsv);
		g_estimator = IR_CALIB_EST_MEAN;
		rc |= ir_sb_adds(&tsv, "size_bytes real_us\n");
		for (int i = 0; i < 150; i++)
			rc |= ir_sb_addf(&tsv, "1 %d\n8 %d\n", 1 + i % 7 + (i == 149) * 1000, 2 + i % 5 + (i == 0) * 300);
		rc |= parse(&d, tsv.buf, &e) || ir_calib_aggregate(&d, &e);
		ok(!rc, "mean: 150 rows");
		one = rc ? 0 : d.p[0].real_ps;
		twice = rc ? 0 : d.p[1].real_ps;
		ir_calib_data_release(&d);
		for (int i = 0; i < 150; i++)
			rc |= ir_sb_addf(&tsv, "1 %d\n8 %d\n", 1 + i % 7 + (i == 149) * 1000, 2 + i % 5 + (i == 0) * 300);
		rc |= parse(&d, tsv.buf, &e) || ir_calib_aggregate(&d, &e);
		ok(!rc && d.p[0].reps == 300 && near(d.p[0].real_ps, one, 1e-3) && near(d.p[1].real_ps, twice, 1e-3) &&
		       one < 5e6 && twice < 5e6,
		   "mean: the rows twice give the same (%g, %g ps; %g, %g ps), the outliers capped", one,
		   rc ? 0 : d.p[0].real_ps, twice, rc ? 0 : d.p[1].real_ps);
		ir_calib_data_release(&d);
		ir_sb_release(&tsv);
		g_estimator = IR_CALIB_EST_MEDIAN;
	}

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
		data_init(&d);
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
		data_init(&d);
		d.from_traces = 1;
		snprintf(d.source, sizeof d.source, "mem");
		for (double s = 1; s <= 65536; s *= 4) {
			double ow = 2 * 300000 + 700000 + (s - 1) * 250; /* o 0.3us, L 0.7us, G 250ps */
			add_size(&d, s, ow, 166e6 + 3000 * s);
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
		data_init(&d);
		d.from_traces = 1;
		snprintf(d.source, sizeof d.source, "mem");
		for (double s = 1; s <= 65536; s *= 4, k++) {
			double ow = 2 * 300000 + (s - 1) * 250;
			add_size(&d, s, ow, extra_us[k] * 1e6);
		}
		ok(ir_calib_aggregate(&d, &e) == 0, "noisy first exchanges aggregate");
		memset(&co, 0, sizeof co);
		co.model = IR_CALIB_LOGGP;
		ok(ir_calib_do_fit(&d, &co, &f, &e) == 0 && f.have_pin && f.pin_a > 0 && f.pin_noise,
		   "a pinning line through noise is recognised");
		ir_sb t = IR_SB_INIT;
		ok(ir_calib_write_params(&d, &f, NULL, "test", &t) == 0 && strstr(t.buf, "\npin_a = 0ps ") &&
		       strstr(t.buf, "\npin_b = 0ps ") && strstr(t.buf, "# note: no first-use cost that grows with the buffer"),
		   "noise pinning is written as 0 with a note");
		ir_sb_release(&t);
		ir_calib_data_release(&d);
	}
	/* a first-use excess that leans with the size but scatters around its line (one first
	 * exchange per size on a loaded machine): over 34 sizes the per-byte term is positive by
	 * more than three standard errors, yet the line explains less than half of the scatter:
	 * no registration, whose cost is the same at every first use (formats/calibration.md,
	 * "Pinning") */
	{
		uint32_t x = 12345;
		data_init(&d);
		d.from_traces = 1;
		snprintf(d.source, sizeof d.source, "mem");
		for (int k = 1; k <= 34; k++) {
			double s = 2048.0 * k, ow = 2 * 300000 + (s - 1) * 250, noise;
			x = x * 1103515245u + 12345u;
			noise = ((double)(x >> 8 & 0xffff) / 65535.0 - 0.5) * 60e6; /* +- 30 us */
			add_size(&d, s, ow, 700 * s + 30e6 + noise);
		}
		ok(ir_calib_aggregate(&d, &e) == 0, "leaning, scattered first exchanges aggregate");
		memset(&co, 0, sizeof co);
		co.model = IR_CALIB_LOGGP;
		int fitted = ir_calib_do_fit(&d, &co, &f, &e) == 0;
		ok(fitted && f.have_pin && f.pin.n == 34 && f.pin_b > 3 * f.pin.se_slope && f.pin.r2 < 0.5,
		   "the fixture: pin_b %g +- %g ps (above 3 standard errors), R-squared %g (below 0.5)", f.pin_b,
		   f.pin.se_slope, f.pin.r2);
		ok(f.pin_noise, "a line that explains less than half of the first uses' scatter is no registration");
		ir_sb t = IR_SB_INIT;
		ok(ir_calib_write_params(&d, &f, NULL, "test", &t) == 0 && strstr(t.buf, "\npin_a = 0ps ") &&
		       strstr(t.buf, "\npin_b = 0ps ") && strstr(t.buf, "the line explains less than half of the excess's variance"),
		   "written as 0, and the note says which test failed");
		ir_sb_release(&t);
		ir_calib_data_release(&d);
	}
	/* a size with only its first exchange */
	{
		ir_calib_sample a = { 8, 1e6, -1, 1, 0, 0, 0 }, b = { 16, 1e6, -1, 1, 1, 0, 0 }, c = { 16, 1e6, -1, 0, 2, 0, 0 };
		data_init(&d);
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
	test_segments();
	test_netcal_traces();
	test_netcal_exchange();
	test_netcal_pinning();
	test_netcal_pinning_rounds();
	test_netcal_recv_cap();
	test_spread();
	test_netcal_state();
	test_yield_fit();
	test_netcal_tracer();
	test_compare();
	ir_sb_release(&sb);
	return tap_done();
}
