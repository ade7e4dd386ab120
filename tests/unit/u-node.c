/*
 * u-node.c: the node model (lib/ir_node.c, and its rules in lib/ir_engine.c;
 * docs/loggops-semantics.md section 8): noise sections merged per host; the
 * perturbation factor (repeatable, within its bounds, centred); spin's rotation
 * against a brute-force walk, picosecond by picosecond, for long calcs that take
 * the whole-rotation shortcut; block's round-robin keeping every core busy.
 */
#include <stdlib.h>

#include "ir_engine.h"
#include "ir_goal.h"
#include "ir_model.h"
#include "ir_node.h"
#include "tap.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t xr(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void noise_sections(void)
{
	static const char text[] = "0 10\n30 5\nhost 1-2\n8 4\n100 0\nhost 2\n50 10\n55 1\nhost all\n200 1\n";
	ir_noise nz;
	ir_reader *r;
	ir_detour *d;
	size_t n;
	ir_err e;
	ir_noise_init(&nz);
	r = ir_reader_open_mem(text, sizeof text - 1, "t", &e);
	ok(r && ir_noise_read(&nz, r, 0, &e) == 0, "a noise file with sections reads");
	ir_reader_free(r);
	ok(ir_noise_host(&nz, 0, &d, &n, &e) == 0 && n == 3 && d[0].start == 0 && d[0].end == 10 && d[2].start == 200,
	   "host 0: the common detours and host all");
	free(d);
	ok(ir_noise_host(&nz, 1, &d, &n, &e) == 0 && n == 3 && d[0].start == 0 && d[0].end == 12,
	   "host 1: [0,10) and [8,12) merge, the empty one is dropped");
	free(d);
	ok(ir_noise_host(&nz, 2, &d, &n, &e) == 0 && n == 4 && d[2].start == 50 && d[2].end == 60,
	   "host 2: [50,60) holds [55,56)");
	free(d);
	ir_noise_release(&nz);
}

static void factors(void)
{
	ir_node_cfg c;
	double sum = 0, lo = 2, hi = 0;
	int same = 1;
	ir_node_defaults(&c);
	ok(ir_node_factor(&c, 3, 4) == 1.0, "no perturbation: factor 1");
	c.perturb = 0.25;
	c.seed = 42;
	for (uint32_t i = 0; i < 100000; i++) {
		double f = ir_node_factor(&c, i % 7, i);
		sum += f;
		lo = f < lo ? f : lo;
		hi = f > hi ? f : hi;
		same &= f == ir_node_factor(&c, i % 7, i);
	}
	ok(same, "the factor is a function of seed, rank and op");
	ok(lo >= 0.75 && hi < 1.25 && lo < 0.76 && hi > 1.24, "factors fill [0.75, 1.25): %f %f", lo, hi);
	ok(sum / 100000 > 0.995 && sum / 100000 < 1.005, "their mean is 1: %f", sum / 100000);
	lo = ir_node_factor(&c, 1, 1);
	c.seed = 43;
	ok(ir_node_factor(&c, 1, 1) != lo, "another seed, another factor");
}

/* A schedule of n ranks, one calc each, through GOAL text. */
static ir_sched *calcs(uint32_t n, const uint64_t *d)
{
	FILE *f = fopen("u-node.goal", "w");
	ir_sched *s = NULL;
	ir_err e;
	if (!f)
		return NULL;
	fprintf(f, "num_ranks %u\n", n);
	for (uint32_t r = 0; r < n; r++)
		fprintf(f, "rank %u {\nc: calc %llu\n}\n", r, (unsigned long long)d[r]);
	fclose(f);
	if (ir_sched_load(&s, "u-node.goal", 0, &e))
		printf("# %s\n", e.msg);
	remove("u-node.goal");
	return s;
}

static int run(ir_sched *s, ir_node_cfg *nc, uint64_t *end)
{
	ir_engine_cfg cfg;
	ir_engine *en;
	ir_err e;
	int rc;
	memset(&cfg, 0, sizeof cfg);
	ir_loggops_defaults(&cfg.p);
	cfg.node = nc;
	en = ir_engine_new(s, &cfg, &e);
	if (!en)
		return -1;
	rc = ir_engine_run(en, &e);
	for (uint32_t r = 0; r < s->nranks; r++)
		end[r] = ir_engine_rank_end(en, r);
	ir_engine_free(en);
	return rc;
}

static void spin_brute(void)
{
	int bad = 0, cases = 0;
	for (uint32_t nh = 2; nh <= 6; nh++)
		for (uint32_t k = 1; k < nh; k++) {
			uint64_t d[6], end[6], Q = 1 + xr() % 9;
			ir_node_cfg nc;
			ir_sched *s;
			for (uint32_t r = 0; r < nh; r++)
				d[r] = xr() % 4 ? xr() % 20000 : xr() % 5;
			s = calcs(nh, d);
			ir_node_defaults(&nc);
			nc.wait = IR_WAIT_SPIN;
			nc.cores = k;
			nc.ranks_per_host = nh;
			nc.quantum = Q;
			if (!s || run(s, &nc, end) != 0) {
				bad++;
				ir_sched_free(s);
				continue;
			}
			for (uint32_t p = 0; p < nh; p++) {
				uint64_t t = 0, w = d[p];
				while (w) {
					uint64_t sl = t / Q, b = (sl % nh) * k % nh;
					if ((p + nh - b) % nh < k)
						w--;
					t++;
				}
				cases++;
				if (t != end[p]) {
					if (!bad)
						printf("# nh %u k %u Q %llu rank %u calc %llu: engine %llu, walk %llu\n", nh, k,
						       (unsigned long long)Q, p, (unsigned long long)d[p], (unsigned long long)end[p],
						       (unsigned long long)t);
					bad++;
				}
			}
			ir_sched_free(s);
		}
	ok(!bad, "spin: end times equal a brute-force walk of the rotation (%d ranks)", cases);
}

static void block_busy(void)
{
	uint64_t d[3] = { 40, 40, 40 }, end[3];
	ir_node_cfg nc;
	ir_sched *s = calcs(3, d);
	ir_node_defaults(&nc);
	nc.cores = 2;
	nc.ranks_per_host = 3;
	nc.quantum = 10;
	nc.wait = IR_WAIT_BLOCK;
	ok(s && run(s, &nc, end) == 0 && (end[0] > end[1] ? (end[0] > end[2] ? end[0] : end[2]) : (end[1] > end[2] ? end[1] : end[2])) == 60,
	   "block: 12 slices on 2 cores end at 6 quanta");
	ir_sched_free(s);
}

int main(void)
{
	noise_sections();
	factors();
	spin_brute();
	block_busy();
	return tap_done();
}
