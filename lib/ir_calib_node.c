/*
 * ir_calib_node.c: calib's fits of the node model (ir_calib.h, "The node model";
 * formats/calibration.md, "Shared cores" and "The intra-node model").
 *
 * Two things a parameter file says about a host rather than the network:
 *
 *   - the intra-node model: a netcal run of two ranks on one host is exactly the
 *     measurement of messages through the host's memory, so calib fits it as it fits a
 *     network and writes the three message functions and S under the prefix `intra_`
 *     (ir_calib_intra_only turns a written parameter file into those lines);
 *   - the cost of waking a rank on a host with more ranks than cores (`cpu_yield`,
 *     docs/loggops-semantics.md section 8): samples/apps/nodecal run with n ranks on k
 *     cores, every rank ping-ponging with its neighbour at once. Rank 0's median one-way
 *     time T is inverted through the model ibsim applies to that program: a message
 *     costs its waiting receiver w = y*(n-k)/k more CPU, so one way lasts
 *         max(net_L + recv_o + w, (p/k) * (send_o + recv_o + w))      p = n/2 pairs
 *     (the latency of one message, or the k cores' throughput when p pairs share them),
 *     and w is the smaller of the two inverses (the max of two increasing functions
 *     reaches T first through the larger one). The engine charges w = c + y*(n-k)/k
 *     (cpu_wake c, cpu_yield y): c and y are the least-squares line of w against
 *     (n-k)/k over the rank counts (each count's w the median of its runs: repeated
 *     runs of one count are pooled so), both at least 0 (a negative slope gives y = 0 and c the
 *     mean; a negative intercept c = 0 and y the slope through the origin); runs of one
 *     rank count alone give c = 0 and y the slope through the origin.
 *
 * That closed form is the rule of any core (cpu_bind = none). Ranks bound to cores
 * (cpu_bind = core: rank r on core r mod k) break it: the receivers of the lockstep pairs
 * share a core, so where a message's latency is short against its overheads the pairs
 * wait for each other and one way lasts up to twice what the closed form says
 * (tests/t6012). For that rule the inversion is made by simulation: nodecal's schedule
 * (every rank a chain of sends and receives with its neighbour) runs in the engine with
 * the quiet parameters, the rule and a wake-up cost w (cpu_wake = w, cpu_yield = 0: a
 * count's turns are fixed), its steady one-way time is the difference between runs of
 * SIM_LONG and SIM_SHORT round trips (no start-up in it), and w is found by bisection to
 * a picosecond between 0 and the first doubling of T whose one-way time reaches T: a w
 * that reaches T with w - 1 ps short of it (0 when the model without wake-ups already
 * reaches T). The fit over the rank counts is then the same.
 *
 * Alternatives rejected: the simulation for the rule of any core as well (the closed
 * form is what the engine does there, exactly, and a test checks the two agree:
 * tests/t6012-calib-yield.sh); the turns alone (c = 0), this
 * code's rule until the real runs disagreed: one machine woke a rank in 0.5 us at 4
 * ranks and 1.7 us at 8 on 2 cores, another in 1.64 and 1.74 us, nearly the same (a
 * waiting rank with nothing to do yields at once), and one slope through the origin
 * missed both rank counts by half.
 */
#include "ir_calib.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir_endian.h"
#include "ir_engine.h"
#include "ir_goal.h"
#include "ir_grow.h"
#include "ir_io.h"
#include "ir_node.h"
#include "ir_num.h"
#include "ir_stats.h"
#include "ir_trace.h"

int ir_calib_yield_parse(ir_calib_yrun *run, const char *name, const char *text, size_t len, ir_err *e)
{
	char buf[IR_NODECAL_LINE_MAX + 1], *p, *end, *tok[4], found[80];
	int nt = 0;
	uint64_t ranks = 0, reps = 0;
	double ow = 0;
	if (len > IR_NODECAL_LINE_MAX)
		return ir_errf(e, "%s: input larger than %d bytes (nodecal's output is one short line)", name,
		               IR_NODECAL_LINE_MAX);
	if (memchr(text, 0, len))
		return ir_errf(e, "%s: expected text, found a NUL byte", name);
	memcpy(buf, text, len);
	buf[len] = 0;
	p = buf;
	end = p + len;
	while (end > p && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = 0;
	if (strchr(p, '\n'))
		return ir_errf_at(e, name, 2, "expected one line, nodecal's '<ranks> <median one-way us> <round trips>'");
	ir_err_quote(found, sizeof found, p, strlen(p));
	for (char *q = strtok(p, " \t"); q && nt < 4; q = strtok(NULL, " \t"))
		tok[nt++] = q;
	if (nt != 3 || ir_parse_u64(tok[0], &ranks, "ranks", NULL) || ranks < 2 || ranks > IR_NODECAL_RANKS_MAX ||
	    ir_parse_double(tok[1], &ow, "one-way time", NULL) || !(ow > 0 && ow < 1e9) ||
	    ir_parse_u64(tok[2], &reps, "round trips", NULL) || reps < 1 || reps > SIZE_MAX)
		return ir_errf_at(e, name, 1, "expected nodecal's '<ranks> <median one-way us> <round trips>' (ranks "
		                              "from 2 to %d, a one-way time above 0, round trips at least 1), found '%s'",
		                  IR_NODECAL_RANKS_MAX, found);
	memset(run, 0, sizeof *run);
	run->dir = name;
	run->nranks = (uint32_t)ranks;
	run->reps = (size_t)reps;
	run->oneway_ps = ow * 1e6;
	return 0;
}

/* nodecal's own output, from a run without the tracer (samples/apps/nodecal.c) */
static int read_output(ir_calib_yrun *run, const char *path, ir_err *e)
{
	ir_reader *r;
	ir_sb sb = IR_SB_INIT;
	int rc = -1;
	if (!(r = ir_reader_open(path, e)))
		return -1;
	if (!ir_reader_slurp(r, &sb, IR_NODECAL_LINE_MAX, e))
		rc = ir_calib_yield_parse(run, path, sb.buf ? sb.buf : "", sb.len, e);
	ir_sb_release(&sb);
	ir_reader_free(r);
	return rc;
}

int ir_calib_yield_read(ir_calib_yrun *run, const char *dir, ir_err *e)
{
	ir_trace_files tf = { NULL, 0 };
	char *paths[1];
	int64_t epoch, t_call = 0;
	int have_send = 0, rc = -1, k;
	double *v = NULL;
	size_t n = 0, cap = 0;
	ir_trace *t = NULL;
	ir_rec r;
	struct stat st;
	memset(run, 0, sizeof *run);
	run->dir = dir;
	if (stat(dir, &st) == 0 && S_ISREG(st.st_mode))
		return read_output(run, dir, e);
	paths[0] = (char *)dir;
	if (ir_trace_discover(&tf, paths, 1, NULL, e))
		return -1;
	run->nranks = (uint32_t)tf.n;
	if (tf.n < 2) {
		ir_errf(e, "%s: traces of %zu rank%s (nodecal pairs ranks 0 and 1: at least 2)", dir, tf.n,
		        tf.n == 1 ? "" : "s");
		goto out;
	}
	if (ir_trace_epoch(tf.f[0].path, &epoch, e))
		goto out;
	{
		ir_trace_opts to = { epoch, 0 };
		if (!(t = ir_trace_open(tf.f[0].path, &to, e)))
			goto out;
	}
	while ((k = ir_trace_next(t, &r, e)) == 1) {
		int64_t peer, tag;
		int send;
		if (r.kind != IR_REC_CALL)
			continue;
		send = !strcmp(r.name, "MPI_Send");
		if (!send && strcmp(r.name, "MPI_Recv"))
			continue;
		if (r.nf < 5 || ir_tf_int(r.f[3], &peer) || ir_tf_int(r.f[4], &tag)) {
			ir_errf_at(e, tf.f[0].path, r.line, "%s: expected the peer and the tag as integers in fields 4 and 5",
			           r.name);
			goto out;
		}
		if (peer != 1 || tag != IR_NODECAL_TAG)
			continue;
		if (r.t_call == IR_TIME_NONE || r.t_ret == IR_TIME_NONE || r.t_ret < r.t_call) {
			ir_errf_at(e, tf.f[0].path, r.line, "%s: expected a call time and a later return time", r.name);
			goto out;
		}
		if (send) {
			have_send = 1;
			t_call = r.t_call;
			continue;
		}
		if (!have_send)
			continue;
		have_send = 0;
		if (n == cap && IR_GROW(v, n + 1, cap)) {
			ir_errf(e, "out of memory for round trips");
			goto out;
		}
		v[n++] = (double)(r.t_ret - t_call) / 2;
	}
	if (k < 0)
		goto out;
	if (!n) {
		ir_errf(e, "%s: no nodecal round trip found (expected MPI_Send to rank 1 with tag %d followed by "
		           "MPI_Recv from rank 1 with that tag)",
		        tf.f[0].path, IR_NODECAL_TAG);
		goto out;
	}
	ir_sort_doubles(v, n);
	run->reps = n;
	run->oneway_ps = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	rc = 0;
out:
	ir_trace_free(t);
	free(v);
	ir_trace_files_release(&tf);
	return rc;
}

/* The runs of one rank count are one measurement repeated: their median wake-up (the
 * middle one, or the mean of the two middle ones) is that count's point of the fit, so one
 * run slowed by the machine moves it no more than any other run does. */
static int group_median(const ir_calib_yrun *runs, size_t n, size_t i, double *med, ir_err *e)
{
	double *v;
	size_t k = 0;
	if (!(v = calloc(n, sizeof *v)))
		return ir_errf(e, "out of memory");
	for (size_t j = 0; j < n; j++)
		if (runs[j].nranks == runs[i].nranks)
			v[k++] = runs[j].wake_ps;
	*med = ir_median_inplace(v, k);
	free(v);
	return 0;
}

/* runs[i] is the first run of its rank count */
static int group_first(const ir_calib_yrun *runs, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (runs[j].nranks == runs[i].nranks)
			return 0;
	return 1;
}

/* ---- the bound rule's inversion by simulation ---- */

#define SIM_SHORT 50  /* round trips of the shorter and the longer simulation: their */
#define SIM_LONG 150  /* difference is the steady state, without the start-up */
#define SIM_DOUBLINGS 40

/* nodecal's schedule of n ranks and `reps` round trips: rank r exchanges 0-byte messages
 * with r xor 1 (an even rank sends first), each op requiring the one before it; a rank
 * without a neighbour (the last of an odd count) has no op. */
typedef struct nodecal_sched {
	ir_sched s;
	unsigned char *ops, *edges;
} nodecal_sched;

static int nodecal_build(nodecal_sched *ns, uint32_t n, uint32_t reps, ir_err *e)
{
	uint32_t nops = 2 * reps;
	memset(ns, 0, sizeof *ns);
	ns->s.nranks = n;
	ns->s.rank = calloc(n, sizeof *ns->s.rank);
	ns->ops = calloc((size_t)n * nops, IR_OP_BYTES);
	ns->edges = calloc((size_t)n * nops, 4);
	if (!ns->s.rank || !ns->ops || !ns->edges)
		return ir_errf(e, "out of memory for nodecal's schedule");
	for (uint32_t r = 0; r < n; r++) {
		ir_rank *rk = &ns->s.rank[r];
		unsigned char *o = ns->ops + (size_t)r * nops * IR_OP_BYTES, *ed = ns->edges + (size_t)r * nops * 4;
		rk->ops = o;
		rk->edges = ed;
		rk->ncpus = rk->nnics = 1;
		if ((r ^ 1u) >= n)
			continue;
		for (uint32_t i = 0; i < nops; i++) {
			unsigned char *op = o + (size_t)i * IR_OP_BYTES;
			op[0] = (unsigned char)((i + r) % 2 ? IR_OP_RECV : IR_OP_SEND);
			ir_put32(op + 4, r ^ 1u);
			ir_put32(op + 8, 0);
			ir_put32(op + 12, i); /* op i's one dependent is op i + 1 */
			ir_put64(op + 16, 0);
			if (i + 1 < nops)
				ir_put32(ed + (size_t)i * 4, i + 1);
		}
		rk->nops = nops;
		rk->nedges = nops - 1;
		ns->s.nops += nops;
		ns->s.nedges += nops - 1;
	}
	return 0;
}

static void nodecal_free(nodecal_sched *ns)
{
	free(ns->s.rank);
	free(ns->ops);
	free(ns->edges);
}

/* Rank 0's end in the engine: the quiet parameters, n ranks on one host of k cores bound
 * (position mod k), each wake-up costing `wake`. */
static int sim_end(const nodecal_sched *ns, const ir_loggops *p, uint32_t cores, uint64_t wake, uint64_t *end,
                   ir_err *e)
{
	ir_engine_cfg cfg;
	ir_node_cfg nc;
	ir_engine *en;
	int rc;
	ir_node_defaults(&nc);
	nc.cores = cores;
	nc.ranks_per_host = ns->s.nranks;
	nc.ranks_per_host_set = 1;
	nc.wait = IR_WAIT_BLOCK;
	nc.bind = 1;
	nc.wake = wake;
	memset(&cfg, 0, sizeof cfg);
	cfg.p = *p;
	cfg.node = &nc;
	if (!(en = ir_engine_new(&ns->s, &cfg, e)))
		return -1;
	rc = ir_engine_run(en, e);
	if (rc == 1)
		ir_errf(e, "nodecal's schedule of %" PRIu32 " ranks does not finish in the engine", ns->s.nranks);
	*end = ir_engine_rank_end(en, 0);
	ir_engine_free(en);
	return rc ? -1 : 0;
}

/* The steady one-way time of nodecal's pairs in the engine (ps). */
static int sim_oneway(const nodecal_sched ns[2], const ir_loggops *p, uint32_t cores, uint64_t wake, double *ow,
                      ir_err *e)
{
	uint64_t a, b;
	if (sim_end(&ns[0], p, cores, wake, &a, e) || sim_end(&ns[1], p, cores, wake, &b, e))
		return -1;
	*ow = ((double)b - (double)a) / (2.0 * (SIM_LONG - SIM_SHORT));
	return 0;
}

/* The bound rule's w for run r: bisection to a picosecond on the simulated one-way time. */
static int invert_bound(ir_calib_yrun *r, uint32_t cores, const ir_loggops *p, ir_err *e)
{
	nodecal_sched ns[2];
	double f;
	uint64_t lo = 0, hi;
	int rc = -1, k;
	if (nodecal_build(&ns[0], r->nranks, SIM_SHORT, e) || nodecal_build(&ns[1], r->nranks, SIM_LONG, e))
		goto out;
	if (sim_oneway(ns, p, cores, 0, &r->quiet_ps, e))
		goto out;
	if (r->quiet_ps >= r->oneway_ps) {
		r->wake_ps = 0;
		rc = 0;
		goto out;
	}
	hi = r->oneway_ps >= 1 ? (uint64_t)r->oneway_ps : 1;
	for (k = 0;; k++) {
		if (sim_oneway(ns, p, cores, hi, &f, e))
			goto out;
		if (f >= r->oneway_ps)
			break;
		if (k == SIM_DOUBLINGS) {
			ir_errf(e, "%s: no wake-up cost up to %.3f us makes nodecal's one way last %.3f us with ranks "
			           "bound to cores (the model reaches %.3f us)",
			        r->dir, (double)hi / 1e6, r->oneway_ps / 1e6, f / 1e6);
			goto out;
		}
		lo = hi;
		hi *= 2;
	}
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (sim_oneway(ns, p, cores, mid, &f, e))
			goto out;
		if (f >= r->oneway_ps)
			hi = mid;
		else
			lo = mid;
	}
	r->wake_ps = (double)hi;
	rc = 0;
out:
	nodecal_free(&ns[0]);
	nodecal_free(&ns[1]);
	return rc;
}

int ir_calib_yield_fit(ir_calib_yrun *runs, size_t n, uint32_t cores, int bind, const ir_loggops *p,
                       double *yield_ps, double *wake_ps, ir_err *e)
{
	const ir_loggops *q = p;
	ir_loggops pi;
	double so, ro, lat, sxx = 0, sxw = 0, sx = 0, sw = 0, nx = 0;
	int distinct = 0;
	if (!cores)
		return ir_errf(e, "the cores per host must be at least 1");
	if (ir_model_intra(p)) { /* the ranks of a nodecal run share one host */
		ir_loggops_intra(p, &pi);
		q = &pi;
	}
	so = (double)ir_model_send_cpu(q, 0, 0);
	ro = (double)ir_model_recv_cpu(q, 0, 0, 0);
	lat = (double)ir_model_arrival(q, 0, 0);
	for (size_t i = 0; i < n; i++) {
		ir_calib_yrun *r = &runs[i];
		double pairs = (double)(r->nranks / 2), a, b, w;
		if (r->nranks <= cores)
			return ir_errf(e, "%s: %" PRIu32 " ranks on %" PRIu32 " cores share none (nodecal must run with "
			                  "more ranks than cores)",
			               r->dir, r->nranks, cores);
		r->x = (double)(r->nranks - cores) / (double)cores;
		if (bind) {
			if (invert_bound(r, cores, p, e))
				return -1;
			continue;
		}
		a = r->oneway_ps - lat - ro;                      /* latency-bound */
		b = r->oneway_ps * (double)cores / pairs - so - ro; /* throughput-bound */
		w = a < b ? a : b;
		if (w < 0)
			w = 0;
		r->quiet_ps = lat + ro > pairs / cores * (so + ro) ? lat + ro : pairs / cores * (so + ro);
		r->wake_ps = w;
	}
	/* one point per rank count: the median of its runs */
	for (size_t i = 0; i < n; i++) {
		double w = 0;
		if (!group_first(runs, i))
			continue;
		if (group_median(runs, n, i, &w, e))
			return -1;
		for (size_t j = i; j < n; j++)
			if (runs[j].nranks == runs[i].nranks)
				runs[j].count_ps = w;
		sxx += runs[i].x * runs[i].x;
		sxw += runs[i].x * w;
		sx += runs[i].x;
		sw += w;
		nx += 1;
		distinct |= runs[i].x != runs[0].x;
	}
	*wake_ps = 0;
	*yield_ps = sxx > 0 ? sxw / sxx : 0; /* through the origin */
	if (distinct) {
		double den = nx * sxx - sx * sx;
		double b = (nx * sxw - sx * sw) / den, a = (sw - b * sx) / nx;
		if (b < 0) {
			*yield_ps = 0;
			*wake_ps = sw / nx;
		} else if (a >= 0) {
			*yield_ps = b;
			*wake_ps = a;
		}
	}
	return 0;
}

int ir_calib_yield_write(const ir_calib_yrun *runs, size_t n, uint32_t cores, int bind, double yield_ps,
                         double wake_ps, const char *version, ir_sb *o)
{
	uint64_t y = yield_ps > 0 ? (uint64_t)(yield_ps + 0.5) : 0, c = wake_ps > 0 ? (uint64_t)(wake_ps + 0.5) : 0;
	if (ir_sb_addf(o, "# written by calib %s --yield: samples/apps/nodecal on %" PRIu32 " core%s per host, "
	                  "%s (formats/calibration.md, \"Shared cores\")\n",
	               version, cores, cores == 1 ? "" : "s",
	               bind ? "ranks bound to cores (the engine's run inverted)" : "ranks on any core"))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const ir_calib_yrun *r = &runs[i];
		if (ir_sb_addf(o, "# %s: %" PRIu32 " ranks, %zu round trips: one way %.3f us (the model without "
		                  "wake-ups: %.3f us); wake-up %.3f us at %.3f turns, fitted %.3f us\n",
		               r->dir, r->nranks, r->reps, r->oneway_ps / 1e6, r->quiet_ps / 1e6, r->wake_ps / 1e6, r->x,
		               ((double)c + (double)y * r->x) / 1e6))
			return -1;
	}
	for (size_t i = 0; i < n; i++) {
		double lo = runs[i].wake_ps, hi = lo;
		size_t k = 0;
		if (!group_first(runs, i))
			continue;
		for (size_t j = i; j < n; j++)
			if (runs[j].nranks == runs[i].nranks) {
				k++;
				lo = runs[j].wake_ps < lo ? runs[j].wake_ps : lo;
				hi = runs[j].wake_ps > hi ? runs[j].wake_ps : hi;
			}
		if (k > 1 && ir_sb_addf(o, "# %" PRIu32 " ranks: the median of %zu runs, wake-up %.3f us (runs %.3f to "
		                           "%.3f us)\n",
		                        runs[i].nranks, k, runs[i].count_ps / 1e6, lo / 1e6, hi / 1e6))
			return -1;
	}
	return ir_sb_addf(o, "cores = %" PRIu32 "\ncpu_wait = block\ncpu_bind = %s\ncpu_yield = %" PRIu64
	                     "    # a waiting rank's turn on a shared core, ps\n"
	                     "cpu_wake = %" PRIu64 "    # and each wake-up on top of the turns, ps\n",
	                  cores, bind ? "core" : "none", y, c);
}

/* The keys a two-rank run of one host gives the intra-node model. */
static const char *const intra_keys[] = { "send_o", "recv_o", "net_L", "S", NULL };

int ir_calib_intra_only(const char *text, size_t len, ir_sb *o)
{
	size_t i = 0;
	if (ir_sb_addf(o, "# the intra-node model (formats/params.md, \"The intra-node model\"): two ranks of one "
	                  "host, fitted as below\n"))
		return -1;
	while (i < len) {
		size_t j = i, k;
		int keep = 0;
		while (j < len && text[j] != '\n')
			j++;
		if (text[i] == '#')
			keep = 1;
		for (k = 0; intra_keys[k] && !keep; k++) {
			size_t kl = strlen(intra_keys[k]);
			if (j - i > kl && !memcmp(text + i, intra_keys[k], kl) && (text[i + kl] == ' ' || text[i + kl] == '=')) {
				if (ir_sb_addf(o, "intra_"))
					return -1;
				keep = 1;
			}
		}
		if (keep && (ir_sb_add(o, text + i, j - i) || ir_sb_addf(o, "\n")))
			return -1;
		i = j + 1;
	}
	return 0;
}
