/*
 * u-ib-engine.c: the InfiniBand network behind the LogGOPS engine
 * (ir_net_ib through ir_net.h): arrival = send start + o + fabric time, the
 * receiver charged o + s1*O (no G), rendezvous, link statistics kept after
 * the run, a fabric deadlock surfacing as the run's error.
 *
 * With arguments it is the benchmark driver of tests/bench/ib.sh:
 *   u-ib-engine bench dissem TOPO N SIZE          dissemination, N ranks
 *   u-ib-engine bench ring TOPO N ROUNDS SIZE     ring, each send after the previous receive
 *   u-ib-engine bench alltoall TOPO N SIZE [W [ROUTING [VLS]]]
 *                                                 standalone fabric, pairwise, W in flight per host
 *                                                 (default 4, ftree, 1 VL)
 * and prints TSV lines: ib <TAB> benchmark <TAB> metric <TAB> value <TAB> unit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "ir_engine.h"
#include "ir_net_ib.h"
#include "ir_strbuf.h"
#include "tap.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Load GOAL text through a temporary file. */
static ir_sched *load_text(const ir_sb *text, ir_err *e)
{
	char path[] = "/tmp/u-ib-engine-XXXXXX";
	int fd = mkstemp(path);
	ir_sched *s = NULL;
	if (fd < 0)
		return NULL;
	if (write(fd, text->buf, text->len) == (ssize_t)text->len)
		ir_sched_load(&s, path, 0, e);
	close(fd);
	unlink(path);
	return s;
}

static void gen_dissem(ir_sb *sb, uint32_t n, uint64_t size)
{
	ir_sb_addf(sb, "num_ranks %u\n", n);
	for (uint32_t r = 0; r < n; r++) {
		uint32_t k = 0;
		ir_sb_addf(sb, "rank %u {\n", r);
		for (uint32_t dd = 1; dd < n; dd <<= 1, k++) {
			ir_sb_addf(sb, "s%u: send %llub to %u\nr%u: recv %llub from %u\n", k, (unsigned long long)size,
			           (r + dd) % n, k, (unsigned long long)size, (r + n - dd) % n);
			if (k)
				ir_sb_addf(sb, "s%u requires r%u\nr%u requires r%u\n", k, k - 1, k, k - 1);
		}
		ir_sb_addf(sb, "}\n");
	}
}

static void gen_ring(ir_sb *sb, uint32_t n, uint32_t rounds, uint64_t size)
{
	ir_sb_addf(sb, "num_ranks %u\n", n);
	for (uint32_t r = 0; r < n; r++) {
		ir_sb_addf(sb, "rank %u {\n", r);
		for (uint32_t k = 0; k < rounds; k++) {
			ir_sb_addf(sb, "s%u: send %llub to %u\nr%u: recv %llub from %u\n", k, (unsigned long long)size,
			           (r + 1) % n, k, (unsigned long long)size, (r + n - 1) % n);
			if (k)
				ir_sb_addf(sb, "s%u requires r%u\n", k, k - 1);
		}
		ir_sb_addf(sb, "}\n");
	}
}

typedef struct mrec {
	uint64_t arrive[64], inject[64];
	int n;
} mrec;

static int on_msg(void *ctx, const ir_msg_rec *m, ir_err *e)
{
	mrec *r = ctx;
	(void)e;
	if (m->id < 64) {
		r->arrive[m->id] = m->arrive;
		r->inject[m->id] = m->inject;
	}
	r->n++;
	return 0;
}

/* Run text on the ib network with settings kv; returns the engine (caller frees) or NULL. */
static ir_engine *run(const char *text, const char *const *kv, ir_ib **keep, mrec *mr, int *rc, ir_err *e)
{
	ir_sb sb = IR_SB_INIT;
	ir_engine_cfg cfg;
	ir_ib_cfg ic;
	ir_engine *en;
	static ir_sched *s;
	ir_sched_free(s);
	s = NULL;
	if (!text)
		return NULL;
	ir_sb_adds(&sb, text);
	s = load_text(&sb, e);
	ir_sb_release(&sb);
	if (!s)
		return NULL;
	ir_ib_config_init(&ic);
	for (; kv && *kv; kv++) {
		char k[64];
		const char *eq = strchr(*kv, '=');
		memcpy(k, *kv, (size_t)(eq - *kv));
		k[eq - *kv] = 0;
		ir_ib_config_set(&ic, k, eq + 1, e);
	}
	ic.keep = keep;
	memset(&cfg, 0, sizeof cfg);
	ir_loggops_defaults(&cfg.p);
	cfg.net = &ir_net_ib;
	cfg.net_arg = &ic;
	cfg.hooks.ctx = mr;
	cfg.hooks.message = mr ? on_msg : NULL;
	en = ir_engine_new(s, &cfg, e);
	if (en)
		*rc = ir_engine_run(en, e);
	ir_ib_config_release(&ic);
	return en;
}

static long peak_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* ---- benchmarks ---- */

static int bench_engine(const char *name, const char *topo, ir_sb *text, uint32_t n)
{
	ir_err e;
	ir_engine_cfg cfg;
	ir_ib_cfg ic;
	ir_ib *keep = NULL;
	ir_engine *en;
	ir_sched *s = load_text(text, &e);
	double t0, t1;
	int rc;
	if (!s) {
		fprintf(stderr, "u-ib-engine: %s\n", e.msg);
		return 1;
	}
	ir_ib_config_init(&ic);
	if (ir_ib_config_set(&ic, "topo", topo, &e)) {
		fprintf(stderr, "u-ib-engine: %s\n", e.msg);
		return 1;
	}
	ic.keep = &keep;
	memset(&cfg, 0, sizeof cfg);
	ir_loggops_defaults(&cfg.p);
	cfg.net = &ir_net_ib;
	cfg.net_arg = &ic;
	t0 = now_s();
	en = ir_engine_new(s, &cfg, &e);
	rc = en ? ir_engine_run(en, &e) : -1;
	t1 = now_s();
	if (rc) {
		fprintf(stderr, "u-ib-engine: %s\n", rc < 0 ? e.msg : "schedule deadlock");
		return 1;
	}
	{
		const ir_ib_stats *st = ir_ib_get_stats(keep);
		const ir_engine_stats *es = ir_engine_get_stats(en);
		uint64_t ev = st->events + es->events;
		printf("ib\t%s\twall\t%.4f\ts\n", name, t1 - t0);
		printf("ib\t%s\tranks\t%u\tranks\n", name, n);
		printf("ib\t%s\tfabric_events\t%llu\tevents\n", name, (unsigned long long)st->events);
		printf("ib\t%s\tengine_events\t%llu\tevents\n", name, (unsigned long long)es->events);
		printf("ib\t%s\tevents_per_s\t%.0f\tevents/s\n", name, (double)ev / (t1 - t0));
		printf("ib\t%s\tpackets\t%llu\tpackets\n", name, (unsigned long long)st->packets);
		printf("ib\t%s\tsimulated_end\t%.3f\tus\n", name, (double)es->end / 1e6);
		printf("ib\t%s\tpeak_rss\t%ld\tKiB\n", name, peak_kb());
	}
	ir_engine_free(en);
	ir_ib_free(keep);
	ir_ib_config_release(&ic);
	ir_sched_free(s);
	return 0;
}

/* Standalone all-to-all: host s sends to s+1, s+2, ... keeping W messages in flight. */
typedef struct a2a {
	ir_ib *ib;
	uint32_t n, w;
	uint64_t size;
	uint32_t *next; /* per source: next offset to send */
	uint64_t done;
} a2a;

static a2a A;

static int a2a_deliver(void *ctx, uint32_t h, uint64_t t, ir_err *e)
{
	uint32_t src = h;
	(void)ctx;
	A.done++;
	if (A.next[src] < A.n) {
		uint32_t k = A.next[src]++;
		return ir_ib_inject(A.ib, src, src, (src + k) % A.n, A.size, 0, t, e);
	}
	return 0;
}

static int bench_alltoall(const char *topo, uint32_t n, uint64_t size, uint32_t w, const char *routing,
                          const char *vls)
{
	ir_err e;
	ir_ib_cfg ic;
	ir_ib_client cl = { .ctx = NULL, .deliver = a2a_deliver, .rts = NULL };
	double t0, t1;
	ir_ib_config_init(&ic);
	if (ir_ib_config_set(&ic, "topo", topo, &e) || ir_ib_config_set(&ic, "routing", routing, &e) ||
	    ir_ib_config_set(&ic, "vls", vls, &e)) {
		fprintf(stderr, "u-ib-engine: %s\n", e.msg);
		return 1;
	}
	A.ib = ir_ib_new(&ic, n, &cl, &e);
	if (!A.ib) {
		fprintf(stderr, "u-ib-engine: %s\n", e.msg);
		return 1;
	}
	A.n = n;
	A.w = w;
	A.size = size;
	A.next = malloc(n * sizeof *A.next);
	t0 = now_s();
	for (uint32_t s = 0; s < n; s++) {
		A.next[s] = 1;
		for (uint32_t k = 0; k < w && A.next[s] < n; k++) {
			uint32_t o = A.next[s]++;
			if (ir_ib_inject(A.ib, s, s, (s + o) % n, size, 0, 0, &e)) {
				fprintf(stderr, "u-ib-engine: %s\n", e.msg);
				return 1;
			}
		}
	}
	if (ir_ib_run(A.ib, &e)) {
		fprintf(stderr, "u-ib-engine: %s\n", e.msg);
		return 1;
	}
	t1 = now_s();
	{
		const ir_ib_stats *st = ir_ib_get_stats(A.ib);
		char name[64];
		if (strcmp(routing, "ftree") == 0)
			snprintf(name, sizeof name, "alltoall_%s_%llu", topo, (unsigned long long)size);
		else
			snprintf(name, sizeof name, "alltoall_%s_%s_%llu", topo, routing, (unsigned long long)size);
		printf("ib\t%s\twall\t%.3f\ts\n", name, t1 - t0);
		printf("ib\t%s\tmessages\t%llu\tmessages\n", name, (unsigned long long)A.done);
		printf("ib\t%s\tevents\t%llu\tevents\n", name, (unsigned long long)st->events);
		printf("ib\t%s\tevents_per_s\t%.0f\tevents/s\n", name, (double)st->events / (t1 - t0));
		printf("ib\t%s\tpacket_hops_per_s\t%.0f\thops/s\n", name, (double)st->packet_hops / (t1 - t0));
		printf("ib\t%s\tpackets_per_s\t%.0f\tpackets/s\n", name, (double)st->packets / (t1 - t0));
		printf("ib\t%s\tsimulated_end\t%.3f\tms\n", name, (double)ir_ib_now(A.ib) / 1e9);
		printf("ib\t%s\tpeak_rss\t%ld\tKiB\n", name, peak_kb());
	}
	ir_ib_free(A.ib);
	free(A.next);
	ir_ib_config_release(&ic);
	return A.done == (uint64_t)n * (n - 1) ? 0 : 1;
}

static int bench(int argc, char **argv)
{
	ir_sb sb = IR_SB_INIT;
	int rc;
	char name[96];
	if (argc >= 6 && strcmp(argv[2], "dissem") == 0) {
		uint32_t n = (uint32_t)strtoul(argv[4], NULL, 10);
		gen_dissem(&sb, n, strtoull(argv[5], NULL, 10));
		snprintf(name, sizeof name, "dissemination_%s_%sB", argv[3], argv[5]);
		rc = bench_engine(name, argv[3], &sb, n);
	} else if (argc >= 7 && strcmp(argv[2], "ring") == 0) {
		uint32_t n = (uint32_t)strtoul(argv[4], NULL, 10);
		gen_ring(&sb, n, (uint32_t)strtoul(argv[5], NULL, 10), strtoull(argv[6], NULL, 10));
		snprintf(name, sizeof name, "ring_%s_%sx%sB", argv[3], argv[5], argv[6]);
		rc = bench_engine(name, argv[3], &sb, n);
	} else if (argc >= 6 && strcmp(argv[2], "alltoall") == 0) {
		rc = bench_alltoall(argv[3], (uint32_t)strtoul(argv[4], NULL, 10), strtoull(argv[5], NULL, 10),
		                    argc > 6 ? (uint32_t)strtoul(argv[6], NULL, 10) : 4, argc > 7 ? argv[7] : "ftree",
		                    argc > 8 ? argv[8] : "1");
	} else {
		fprintf(stderr, "usage: u-ib-engine bench dissem|ring|alltoall TOPO N ...\n");
		rc = 2;
	}
	ir_sb_release(&sb);
	return rc;
}

int main(int argc, char **argv)
{
	ir_err e;
	ir_engine *en;
	ir_ib *keep = NULL;
	mrec mr;
	int rc = -2;
	if (argc > 1 && strcmp(argv[1], "bench") == 0)
		return bench(argc, argv);

	/* ping: send starts at 0; enters the fabric at o = 1500; fabric 173000 (u-ib check 1);
	 * the receiver is charged o + 99*O = 1500 (O = 0, no G) */
	{
		static const char *kv[] = { "topo=star:2", NULL };
		memset(&mr, 0, sizeof mr);
		en = run("num_ranks 2\nrank 0 {\nsend 100b to 1\n}\nrank 1 {\nrecv 100b from 0\n}\n", kv, NULL, &mr, &rc, &e);
		ok(en && rc == 0, "ping on the ib network runs");
		is_u64(mr.arrive[0], 1500 + 173000, "arrival = o + 2d + lat + ser(126)");
		is_u64(ir_engine_rank_end(en, 1), 1500 + 173000 + 1500, "receiver ends at arrival + o (no G)");
		ir_engine_free(en);
	}
	/* ping-pong: the reply enters at arrival + o (receive) + o (send) */
	{
		static const char *kv[] = { "topo=fattree2:4", NULL };
		memset(&mr, 0, sizeof mr);
		en = run("num_ranks 8\nrank 0 {\nl1: send 100b to 7\nl2: recv 100b from 7\nl2 requires l1\n}\n"
		         "rank 7 {\nl1: recv 100b from 0\nl2: send 100b to 0\nl2 requires l1\n}\n"
		         "rank 1 {\n}\nrank 2 {\n}\nrank 3 {\n}\nrank 4 {\n}\nrank 5 {\n}\nrank 6 {\n}\n",
		         kv, NULL, &mr, &rc, &e);
		/* h0 and h7 are on different leaves: 4 links, 3 switches */
		uint64_t f = 4 * 5000 + 3 * 100000 + ir_topo_ser(126, 16000);
		ok(en && rc == 0, "ping-pong across fattree2:4 runs");
		is_u64(mr.arrive[0], 1500 + f, "ping: o + 4d + 3lat + ser(126)");
		is_u64(mr.arrive[1], 1500 + f + 1500 + 1500 + f, "pong: the reply leaves after o (recv) + o (send)");
		ir_engine_free(en);
	}
	/* rendezvous through the fabric: RTS, CTS, data; the engine sees the data arrival */
	{
		static const char *kv[] = { "topo=star:2", NULL };
		uint64_t ctl = 2 * 5000 + 100000 + ir_topo_ser(26, 16000);
		uint64_t data = 48 * ir_topo_ser(2074, 16000) + ir_topo_ser(100000 - 48 * 2048 + 26, 16000) + 2 * 5000 + 100000;
		memset(&mr, 0, sizeof mr);
		en = run("num_ranks 2\nrank 0 {\nsend 100000b to 1\n}\nrank 1 {\nrecv 100000b from 0\n}\n", kv, NULL, &mr, &rc,
		         &e);
		ok(en && rc == 0, "rendezvous message runs");
		is_u64(mr.arrive[0], 1500 + 2 * ctl + data, "arrival = o_rndv + RTS + CTS + data");
		ir_engine_free(en);
	}
	/* the pair-order table holds the pairs with messages in flight, not every pair that
	 * ever talked: an all-to-all by shifts (round k: send to r+k, receive from r-k, each
	 * round after the previous one's receive) on 64 ranks has at most 64 messages in
	 * flight but 4032 pairs */
	{
		static const char *kv[] = { "topo=fattree2:8", NULL };
		ir_sb g = IR_SB_INIT;
		uint32_t n = 32;
		ir_sb_addf(&g, "num_ranks %u\n", n);
		for (uint32_t r = 0; r < n; r++) {
			ir_sb_addf(&g, "rank %u {\n", r);
			for (uint32_t k = 1; k < n; k++) {
				ir_sb_addf(&g, "s%u: send 4096b to %u\nr%u: recv 4096b from %u\n", k, (r + k) % n, k, (r + n - k) % n);
				if (k > 1)
					ir_sb_addf(&g, "s%u requires r%u\n", k, k - 1);
			}
			ir_sb_adds(&g, "}\n");
		}
		en = run(g.buf, kv, &keep, NULL, &rc, &e);
		ok(en && rc == 0 && keep, "all-to-all by shifts on 32 ranks runs");
		ok(keep && ir_ib_get_stats(keep)->pairs_max <= 2 * n, "pair-order table: at most %u entries (found %llu of %u pairs)",
		   2 * n, keep ? (unsigned long long)ir_ib_get_stats(keep)->pairs_max : 0ull, n * (n - 1));
		ir_engine_free(en);
		ir_ib_free(keep);
		keep = NULL;
		ir_sb_release(&g);
	}
	/* link statistics after the run (keep) */
	{
		static const char *kv[] = { "topo=star:2", NULL };
		ir_sb sb = IR_SB_INIT;
		en = run("num_ranks 2\nrank 0 {\nsend 5000b to 1\n}\nrank 1 {\nrecv 5000b from 0\n}\n", kv, &keep, NULL, &rc, &e);
		ok(en && rc == 0 && keep, "run keeping the fabric");
		ir_engine_free(en);
		ok(keep && ir_ib_linkstats(keep, &sb) == 0 && strstr(sb.buf, "h0\t1\ts0\t1\t4xDDR\t5078\t3\t") &&
		       strstr(sb.buf, "s0\t2\th1\t1\t4xDDR\t5078\t3\t"),
		   "linkstats: 5000 B + 3 headers both hops");
		ir_sb_release(&sb);
		ir_ib_free(keep);
	}
	/* dissemination on fattree2:4 */
	{
		ir_sb sb = IR_SB_INIT;
		static const char *kv[] = { "topo=fattree2:4", "routing=ftree", NULL };
		gen_dissem(&sb, 8, 180);
		memset(&mr, 0, sizeof mr);
		en = run(sb.buf, kv, NULL, &mr, &rc, &e);
		ok(en && rc == 0 && mr.n == 24, "dissemination of 8 ranks: 24 messages (rc %d, %d: %s)", rc, mr.n, rc ? e.msg : "");
		ir_engine_free(en);
		ir_sb_release(&sb);
	}
	/* a fabric deadlock is the run's error */
	{
		ir_sb sb = IR_SB_INIT;
		static const char *kv[] = { "topo=ring:5", "buffer=33", "host_buffer=33", NULL };
		ir_sb_addf(&sb, "num_ranks 5\n");
		for (int r = 0; r < 5; r++)
			ir_sb_addf(&sb, "rank %d {\nsend 1048576b to %d\nrecv 1048576b from %d\n}\n", r, (r + 2) % 5, (r + 3) % 5);
		en = run(sb.buf, kv, NULL, NULL, &rc, &e);
		ok(en && rc == -1 && strstr(e.msg, "fabric deadlock at ") == e.msg, "deadlock stops the run: %s", e.msg);
		ir_engine_free(en);
		ir_sb_release(&sb);
	}
	/* a bad configuration fails at init */
	{
		static const char *kv[] = { "topo=star:1", NULL };
		en = run("num_ranks 2\nrank 0 {\n}\nrank 1 {\n}\n", kv, NULL, NULL, &rc, &e);
		ok(en && rc == -1, "2 ranks on star:1 fail");
		is_str(e.msg,
		       "2 ranks do not fit on the 1 hosts of topology 'star:1' (give a placement file to put several ranks on a "
		       "host)",
		       "message");
		ir_engine_free(en);
	}
	run(NULL, NULL, NULL, NULL, &rc, &e); /* frees the last schedule */
	return tap_done();
}
