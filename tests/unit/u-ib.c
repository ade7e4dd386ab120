/*
 * u-ib.c: the InfiniBand fabric model (lib/ir_net_ib_*.c) driven standalone:
 * the six checks of docs/ib-model.md section 4, each against the analytic
 * expectation written next to it (and in docs/ib-model.md), deadlock
 * detection on a cyclic minhop ring, rendezvous through the fabric, link
 * statistics, the configuration table, and congestion control (marks,
 * notifications, throttling by the CCT, the timer's recovery of the index:
 * docs/ib-model.md section 8).
 *
 * Notation: d = propagation delay per link, lat = switch latency,
 * ser(n, link) = ceil(n * 8e6 / Mb/s) ps, W(s) = wire bytes of s payload bytes
 * = s + 26 per packet, P = packets.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir_net_ib.h"
#include "ib-cfg.h"
#include "tap.h"

#define MAXH 4096
static uint64_t arr[MAXH];
static uint32_t ndel;

static int rec_deliver(void *ctx, uint32_t h, uint64_t t, ir_err *e)
{
	(void)ctx;
	if (h >= MAXH)
		return ir_errf(e, "handle %u", h);
	arr[h] = t;
	ndel++;
	return 0;
}

static const ir_ib_client client = { .ctx = NULL, .deliver = rec_deliver, .rts = NULL };

static uint64_t rts_at[8];
static int rec_rts(void *ctx, uint32_t h, uint64_t t, ir_err *e)
{
	(void)ctx;
	(void)e;
	rts_at[h % 8] = t;
	return 0;
}

/* A fabric from key=value settings ("topo=star:2", ...). */
static ir_ib *mk(uint32_t nranks, const char *const *kv, ir_err *e)
{
	ir_ib_cfg c;
	ir_ib *ib;
	ir_ib_config_init(&c);
	if (ib_cfg_from(&c, kv, e))
		return NULL;
	ib = ir_ib_new(&c, nranks, &client, e);
	ir_ib_config_release(&c);
	memset(arr, 0, sizeof arr);
	ndel = 0;
	return ib;
}

static double rel(double got, double want) { return got > want ? (got - want) / want : (want - got) / want; }

static char *write_tmp(const char *text)
{
	static char path[64];
	int fd;
	strcpy(path, "/tmp/u-ib-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

/* Wire time of a message of s bytes on a link of `mbps`: packets of MTU. */
static uint64_t wire_time(uint64_t s, uint32_t mtu, uint32_t mbps)
{
	uint64_t full = s / mtu, rest = s % mtu, t = full * ir_topo_ser(mtu + 26, mbps);
	if (rest || !s)
		t += ir_topo_ser(rest + 26, mbps);
	return t;
}

int main(void)
{
	ir_err e;
	ir_ib *ib;
	const uint64_t d = 5000, lat = 100000; /* the defaults */
	const uint32_t ddr = 16000;

	/* ---- configuration table ---- */
	{
		ir_ib_cfg c;
		ir_sb sb = IR_SB_INIT;
		ir_ib_config_init(&c);
		is_u64(c.mtu, 2048, "default MTU 2048");
		is_u64(c.mbps, 16000, "default link 4xDDR = 16 Gb/s of data");
		is_u64(c.width, 4, "default link width 4x");
		is_u64(c.vls, 1, "default 1 data VL");
		is_u64(c.buffer, 128, "default 128 blocks per port and VL");
		is_u64(c.delay, 5000, "default propagation delay 5 ns");
		is_u64(c.switch_latency, 100000, "default switch latency 100 ns");
		is_u64(c.pcie, 4000000000ull, "default host bus 4 GB/s");
		is_str(c.routing, "minhop", "default routing minhop");
		ok(ir_ib_help(&sb) == 0 && strstr(sb.buf, "switch_latency  100ns") && strstr(sb.buf, "link") &&
		       strstr(sb.buf, "4xDDR"), "help lists keys with defaults");
		ok(ir_ib_config_set(&c, "switch-latency", "50ns", &e) == 0 && c.switch_latency == 50000,
		   "option names with '-' set the same key");
		ok(ir_ib_config_set(&c, "mtu", "3000", &e) == -1, "bad MTU rejected");
		is_str(e.msg, "invalid MTU for mtu: '3000' (expected 256, 512, 1024, 2048 or 4096)", "MTU message");
		ok(ir_ib_config_set(&c, "link", "3xDDR", &e) == -1, "bad link width rejected");
		is_str(e.msg,
		       "invalid link for link: '3xDDR' (expected WIDTHxSPEED: width 1, 2, 4, 8, 12; speed SDR, DDR, QDR, "
		       "FDR10, FDR, EDR, HDR, NDR; e.g. 4xDDR)",
		       "link message");
		ok(ir_ib_config_set(&c, "pcie", "fast", &e) == -1, "bad bus rate rejected");
		is_str(e.msg, "invalid rate for pcie: 'fast' (expected bytes per second, e.g. 4GB/s, 500MB/s, 4G)",
		       "bus rate message");
		ok(ir_ib_config_set(&c, "pcie", "500MB/s", &e) == 0 && c.pcie == 500000000ull, "500MB/s parsed");
		ok(ir_ib_config_set(&c, "routing", "random", &e) == -1, "bad routing rejected");
		ok(ir_ib_config_set(&c, "rndv", "maybe", &e) == -1, "bad rndv rejected");
		ok(ir_ib_config_set(&c, "vlarb", "4,1", &e) == 0 && c.vlarb[0] == 4 && c.vlarb[1] == 1 && c.vlarb[5] == 1,
		   "vlarb weights, the last repeats");
		ok(ir_ib_config_set(&c, "colour", "red", &e) == -2, "unknown key is -2");
		is_str(e.msg, "unknown ib parameter 'colour'", "unknown key message");
		{
			const char *const *k = ir_ib_keys();
			int n = 0, all = 1;
			for (; *k; k++, n++) {
				ir_ib_cfg d2;
				ir_ib_config_init(&d2);
				if (strchr(*k, '-'))
					all = 0;
				ir_ib_config_release(&d2);
			}
			ok(n == 34 && all, "34 keys, normalized with '_'");
		}
		ir_sb_release(&sb);
		ir_ib_config_release(&c);
	}

	/* ---- check 1: one packet, one switch, idle network ----
	 * arrival - inject = d + max(lat + ser(W, out), ser(W, in)) + d, when the
	 * host bus drains faster than the last link (else the drain adds). */
	{
		static const char *kv[] = { "topo=star:2", NULL };
		ib = mk(2, kv, &e);
		ok(ib != NULL, "star:2 fabric builds");
		ok(ir_ib_inject(ib, 0, 0, 1, 100, 0, 1000000, &e) == 0 && ir_ib_run(ib, &e) == 0, "one packet runs");
		is_u64(arr[0] - 1000000, d + lat + ir_topo_ser(126, ddr) + d, "check 1: 100 B, equal links: 2d+lat+ser(126) = 173000 ps");
		is_u64(arr[0] - 1000000, 173000, "check 1: the number");
		is_u64(ir_ib_get_stats(ib)->packet_hops, 2, "two link hops");
		ir_ib_free(ib);
	}
	{
		/* a slow first link (1xSDR, 2 Gb/s): the tail, not the latency, decides */
		char *p = write_tmp("# ibreplay topology 1\nhost a\nhost b\nswitch s 2\nlink a:1 s:1 1xSDR\nlink s:2 b:1\n");
		const char *kv[3] = { NULL, NULL, NULL };
		char topo[80];
		snprintf(topo, sizeof topo, "topo=%s", p);
		kv[0] = topo;
		ib = mk(2, kv, &e);
		ok(ib != NULL, "topology file with a 1xSDR first link");
		if (ib) {
			uint64_t sin = ir_topo_ser(126, 2000), sout = ir_topo_ser(126, ddr);
			uint64_t want = d + (lat + sout > sin ? lat + sout : sin) + d;
			ok(ir_ib_inject(ib, 0, 0, 1, 100, 0, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "runs");
			is_u64(arr[0], want, "check 1: slow first link: 2d + ser(126, 1xSDR) = 514000 ps");
			is_u64(arr[0], 514000, "check 1: the number");
			ir_ib_free(ib);
		}
		unlink(p);
	}
	{
		/* one packet over chain:3 (4 links): d + 3 * (lat + d)... each switch adds lat + d */
		static const char *kv[] = { "topo=chain:3", NULL };
		ib = mk(2, kv, &e);
		ok(ib && ir_ib_inject(ib, 0, 0, 1, 0, 0, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "chain:3 one packet");
		is_u64(arr[0], d + 3 * (lat + d) + ir_topo_ser(26, ddr), "check 1 on chain:3: d + 3(lat+d) + ser(26)");
		ir_ib_free(ib);
	}

	/* ---- check 2: 4 MiB between two hosts ----
	 * time = bytes * (1 + 26/MTU) / rate within 1% (exact: P * ser(MTU+26) + 2d + lat) */
	{
		static const char *kv[] = { "topo=star:2", NULL };
		const uint64_t S = 4u << 20;
		double want = (double)S * (1.0 + 26.0 / 2048) * 8e6 / ddr;
		ib = mk(2, kv, &e);
		ok(ib && ir_ib_inject(ib, 7, 0, 1, S, 0, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "4 MiB runs");
		ok(rel((double)arr[7], want) < 0.01, "check 2: 4 MiB in %.0f ps, formula %.0f ps (%.3f%%)", (double)arr[7], want,
		   100 * rel((double)arr[7], want));
		is_u64(arr[7], wire_time(S, 2048, ddr) + 2 * d + lat, "check 2 exact: P*ser(2074) + 2d + lat");
		is_u64(ir_ib_get_stats(ib)->packets, 2048, "2048 packets");
		{
			ir_sb sb = IR_SB_INIT;
			char line[256];
			ok(ir_ib_linkstats(ib, &sb) == 0, "link statistics");
			snprintf(line, sizeof line, "h0\t1\ts0\t1\t4xDDR\t%llu\t2048\t%llu\t", (unsigned long long)(S + 2048 * 26),
			         (unsigned long long)wire_time(S, 2048, ddr));
			ok(strstr(sb.buf, line) != NULL, "linkstats h0->s0: bytes, packets, busy time");
			ok(strstr(sb.buf, "from\tport\tto\tport\tlink\tbytes\tpackets\tbusy_ps\tstall_ps\n") == sb.buf, "linkstats header");
			ir_sb_release(&sb);
		}
		ir_ib_free(ib);
	}

	/* ---- check 3: N hosts send 1 MiB each to one host at once ----
	 * last arrival = N * T(1 MiB) within 2%; first >= 0.9 * last (fair) */
	{
		static const char *kv[] = { "topo=star:9", NULL };
		const uint64_t S = 1u << 20;
		const uint32_t N = 8;
		uint64_t first = UINT64_MAX, last = 0;
		double one = (double)wire_time(S, 2048, ddr);
		ib = mk(N + 1, kv, &e);
		for (uint32_t i = 0; i < N; i++)
			ir_ib_inject(ib, i, i, N, S, 0, 0, &e);
		ok(ir_ib_run(ib, &e) == 0 && ndel == N, "8 x 1 MiB incast runs");
		for (uint32_t i = 0; i < N; i++) {
			first = arr[i] < first ? arr[i] : first;
			last = arr[i] > last ? arr[i] : last;
		}
		ok(rel((double)last, N * one) < 0.02, "check 3: last arrival %.0f ps vs N x one %.0f ps (%.3f%%)", (double)last,
		   N * one, 100 * rel((double)last, N * one));
		ok((double)first >= 0.9 * (double)last, "check 3: fair: first %.0f >= 0.9 x last %.0f", (double)first,
		   (double)last);
		ir_ib_free(ib);
	}

	/* ---- check 4: a buffer smaller than the bandwidth-delay product ----
	 * one packet per credit round trip: period = 2d + lat + ser(W) (d = 10 us);
	 * time of P packets = P * (2d + lat + ser(W)) within 1%.
	 * A large buffer (2048 blocks) runs at link rate: P*ser(W) + 2d + lat. */
	{
		static const char *kv[] = { "topo=star:2", "delay=10us", "buffer=40", "host_buffer=40", NULL };
		const uint64_t S = 1u << 20, D = 10000000;
		double per = (double)(2 * D + lat + ir_topo_ser(2074, ddr)), want = 512 * per;
		ib = mk(2, kv, &e);
		ok(ib && ir_ib_inject(ib, 0, 0, 1, S, 0, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "small buffer runs");
		ok(rel((double)arr[0], want) < 0.01, "check 4: 40 blocks: %.0f ps vs 512 x (2d+lat+ser) = %.0f ps (%.3f%%)",
		   (double)arr[0], want, 100 * rel((double)arr[0], want));
		ir_ib_free(ib);
	}
	{
		static const char *kv[] = { "topo=star:2", "delay=10us", "buffer=2048", "host_buffer=2048", NULL };
		const uint64_t S = 4u << 20, D = 10000000;
		double want = (double)(wire_time(S, 2048, ddr) + 2 * D + lat);
		ib = mk(2, kv, &e);
		ok(ib && ir_ib_inject(ib, 0, 0, 1, S, 0, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "large buffer runs");
		ok(rel((double)arr[0], want) < 0.001, "check 4: 2048 blocks: link rate: %.0f ps vs %.0f ps", (double)arr[0], want);
		ir_ib_free(ib);
	}

	/* ---- check 5: h8s2, four flows over the middle link take 4x one ---- */
	{
		static const char *kv[] = { "topo=h8s2", NULL };
		const uint64_t S = 1u << 20;
		uint64_t one, last = 0;
		ib = mk(8, kv, &e);
		ok(ib && ir_ib_inject(ib, 0, 0, 4, S, 0, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "one flow across");
		one = arr[0];
		ir_ib_free(ib);
		ib = mk(8, kv, &e);
		for (uint32_t i = 0; i < 4; i++)
			ir_ib_inject(ib, i, i, 4 + i, S, 0, 0, &e);
		ok(ir_ib_run(ib, &e) == 0 && ndel == 4, "four flows across");
		for (uint32_t i = 0; i < 4; i++)
			last = arr[i] > last ? arr[i] : last;
		ok(rel((double)last, 4.0 * (double)one) < 0.02, "check 5: four flows %.0f ps vs 4 x %.0f ps (%.3f%%)",
		   (double)last, 4.0 * (double)one, 100 * rel((double)last, 4.0 * (double)one));
		ir_ib_free(ib);
	}

	/* ---- check 6: all-to-all on every generated fat tree with updn and ftree finishes ---- */
	{
		static const char *trees[] = { "fattree2:4", "fattree2:8", "fattree3:4", "fattree3:6" };
		static const char *rts[] = { "updn", "ftree", "minhop" };
		for (size_t ti = 0; ti < 4; ti++)
			for (size_t ri = 0; ri < 3; ri++) {
				char a[40], b[40];
				const char *kv[4];
				uint32_t H, n = 0;
				int rc;
				snprintf(a, sizeof a, "topo=%s", trees[ti]);
				snprintf(b, sizeof b, "routing=%s", rts[ri]);
				kv[0] = a;
				kv[1] = b;
				kv[2] = "buffer=33";
				kv[3] = NULL;
				H = strcmp(trees[ti], "fattree2:4") == 0 ? 8 : strcmp(trees[ti], "fattree2:8") == 0 ? 32
				  : strcmp(trees[ti], "fattree3:4") == 0 ? 16 : 54;
				ib = mk(H, kv, &e);
				if (!ib) {
					ok(0, "check 6: %s %s: %s", trees[ti], rts[ri], e.msg);
					continue;
				}
				for (uint32_t s = 0; s < H; s++)
					for (uint32_t k = 1; k < H; k++)
						ir_ib_inject(ib, n++ % MAXH, s, (s + k) % H, 5000, 0, 0, &e);
				rc = ir_ib_run(ib, &e);
				ok(rc == 0 && ndel == H * (H - 1), "check 6: all-to-all on %s with %s: %u of %u delivered%s%s",
				   trees[ti], rts[ri], ndel, H * (H - 1), rc ? ": " : "", rc ? e.msg : "");
				ir_ib_free(ib);
			}
	}

	/* ---- deadlock: minhop on a ring, every host to the one two switches on ---- */
	{
		static const char *kv[] = { "topo=ring:5", "routing=minhop", "buffer=33", "host_buffer=33", NULL };
		ib = mk(5, kv, &e);
		for (uint32_t i = 0; i < 5; i++)
			ir_ib_inject(ib, i, i, (i + 2) % 5, 1u << 20, 0, 0, &e);
		ok(ir_ib_run(ib, &e) == -1, "cyclic minhop ring deadlocks, and says so");
		ok(strstr(e.msg, "fabric deadlock at ") == e.msg && strstr(e.msg, "cycle of full input buffers: s") != NULL,
		   "deadlock message names the cycle: %s", e.msg);
		ok(strstr(e.msg, "s0 port 3 vl 0") && strstr(e.msg, "s1 port 3 vl 0") && strstr(e.msg, "s4 port 3 vl 0"),
		   "the cycle goes round the ring");
		ir_ib_free(ib);
	}
	{
		static const char *kv[] = { "topo=ring:5", "routing=updn", "buffer=33", "host_buffer=33", NULL };
		ib = mk(5, kv, &e);
		for (uint32_t i = 0; i < 5; i++)
			ir_ib_inject(ib, i, i, (i + 2) % 5, 1u << 20, 0, 0, &e);
		ok(ir_ib_run(ib, &e) == 0 && ndel == 5, "the same traffic with updn finishes");
		ir_ib_free(ib);
	}

	/* ---- rendezvous through the fabric: RTS, CTS, data ---- */
	{
		static const char *kv[] = { "topo=star:2", NULL };
		static const char *kv2[] = { "topo=star:2", "rndv=loggopsim", NULL };
		uint64_t ctl = d + lat + ir_topo_ser(26, ddr) + d, data = wire_time(100000, 2048, ddr) + 2 * d + lat;
		ib = mk(2, kv, &e);
		ok(ib && ir_ib_inject(ib, 1, 0, 1, 100000, 1, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "rendezvous runs");
		is_u64(arr[1], 2 * ctl + data, "rndv=fabric: RTS + CTS + data = 2(2d+lat+ser(26)) + data");
		is_u64(ir_ib_get_stats(ib)->ctrl, 2, "two control messages");
		ir_ib_free(ib);
		ib = mk(2, kv2, &e);
		ok(ib && ir_ib_inject(ib, 1, 0, 1, 100000, 1, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "loggopsim rndv runs");
		is_u64(arr[1], data, "rndv=loggopsim: data at once");
		ir_ib_free(ib);
	}

	/* ---- rendezvous with the match reported: CTS leaves at the match ---- */
	{
		ir_ib_cfg c;
		ir_ib_client cl = { .ctx = NULL, .deliver = rec_deliver, .rts = rec_rts };
		uint64_t ctl = d + lat + ir_topo_ser(26, ddr) + d, data = wire_time(100000, 2048, ddr) + 2 * d + lat;
		ir_ib_config_init(&c);
		ib = ir_ib_new(&c, 2, &cl, &e);
		memset(arr, 0, sizeof arr);
		ok(ib && ir_ib_inject(ib, 3, 0, 1, 100000, 1, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "RTS reported");
		is_u64(rts_at[3], ctl, "the RTS arrives after 2d + lat + ser(26)");
		ok(arr[3] == 0, "no data before the match");
		ok(ir_ib_rndv_matched(ib, 3, ctl + 1000000, &e) == 0 && ir_ib_run(ib, &e) == 0, "match reported 1 us later");
		is_u64(arr[3], ctl + 1000000 + ctl + data, "arrival = match + CTS + data");
		ok(ir_ib_rndv_matched(ib, 3, ctl + 9000000, &e) == -1, "a second match is refused");
		is_str(e.msg, "fabric: rendezvous match of message 3, which has no request-to-send waiting", "message");
		ir_ib_free(ib);
		ir_ib_config_release(&c);
	}

	/* ---- host bus back-pressure: a slow receiver bus limits the rate ---- */
	{
		static const char *kv[] = { "topo=star:2", "pcie=1GB/s", NULL };
		const uint64_t S = 1u << 20;
		/* drain of P packets of 2048 B at 1000 ps/B is the bottleneck: about S * 1000 ps */
		ib = mk(2, kv, &e);
		ok(ib && ir_ib_inject(ib, 0, 0, 1, S, 0, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "slow bus runs");
		ok(rel((double)arr[0], (double)S * 1000) < 0.01, "1 GB/s bus: %.0f ps for 1 MiB (expected ~%.0f)",
		   (double)arr[0], (double)S * 1000);
		ir_ib_free(ib);
	}

	/* ---- loopback and placement ---- */
	{
		static const char *kv[] = { "topo=star:4", "placement=random:7", NULL };
		ib = mk(4, kv, &e);
		ok(ib != NULL, "random placement");
		if (ib) {
			int seen[4] = { 0 }, okp = 1;
			for (uint32_t r = 0; r < 4; r++)
				seen[ir_ib_rank_host(ib, r)]++;
			for (int i = 0; i < 4; i++)
				okp &= seen[i] == 1;
			ok(okp, "random placement is a permutation");
			ir_ib_free(ib);
		}
	}
	{
		char *p = write_tmp("# ranks 0 and 1 share h1\nh1\nh1\n2\n");
		char pl[80];
		const char *kv[3] = { "topo=star:3", pl, NULL };
		snprintf(pl, sizeof pl, "placement=%s", p);
		ib = mk(3, kv, &e);
		ok(ib && ir_ib_rank_host(ib, 0) == 1 && ir_ib_rank_host(ib, 1) == 1 && ir_ib_rank_host(ib, 2) == 2,
		   "placement file by name and index");
		ok(ib && ir_ib_inject(ib, 0, 0, 1, 4000, 0, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "loopback message");
		is_u64(arr[0], 1000000, "loopback: 4000 B over a 4 GB/s bus = 1000 ns");
		ir_ib_free(ib);
		unlink(p);
	}
	{
		static const char *kv[] = { "topo=star:2", NULL };
		ok(mk(3, kv, &e) == NULL, "3 ranks on 2 hosts fail");
		is_str(e.msg,
		       "3 ranks do not fit on the 2 hosts of topology 'star:2' (give a placement file to put several ranks "
		       "on a host)",
		       "message");
	}
	{
		static const char *kv[] = { "mtu=4096", "buffer=60", NULL };
		ok(mk(2, kv, &e) == NULL, "a buffer smaller than one packet is refused");
		is_str(e.msg, "buffer of 60 blocks cannot hold one packet of MTU 4096 (65 blocks)", "message");
	}

	/* ---- several VLs with weights ---- */
	{
		static const char *kv[] = { "topo=star:3", "vls=2", "vlarb=3,1", NULL };
		ib = mk(3, kv, &e);
		/* 0->2 uses VL (0+2)%2 = 0, 1->2 uses VL 1: both share s0 -> h2 */
		ok(ib && ir_ib_inject(ib, 0, 0, 2, 1u << 20, 0, 0, &e) == 0 && ir_ib_inject(ib, 1, 1, 2, 1u << 20, 0, 0, &e) == 0 &&
		       ir_ib_run(ib, &e) == 0,
		   "two VLs run");
		ok(arr[0] < arr[1], "the VL with weight 3 finishes first (%llu < %llu)", (unsigned long long)arr[0],
		   (unsigned long long)arr[1]);
		ir_ib_free(ib);
	}

	/* ---- congestion control ---- */
	{
		/* an incast of 4 x 1 MiB on star:5: the output to h4 queues, packets are marked */
		static const char *kv[] = { "topo=star:5", "cc=on", NULL };
		const ir_ib_stats *st;
		uint64_t t0, T = 10000000, cmax = 0;
		uint32_t fmax = 0, c;
		int all0 = 1;
		ib = mk(5, kv, &e);
		ok(ib != NULL, "cc fabric builds");
		for (uint32_t i = 0; ib && i < 4; i++)
			ir_ib_inject(ib, i, i, 4, 1u << 20, 0, 0, &e);
		ok(ib && ir_ib_run(ib, &e) == 0 && ndel == 4, "cc incast runs");
		st = ir_ib_get_stats(ib);
		ok(st->fecn > 0 && st->becn == st->fecn, "every mark comes back: %llu FECN, %llu BECN",
		   (unsigned long long)st->fecn, (unsigned long long)st->becn);
		ok(st->ccti_max > 0 && st->ccti_max <= 127, "index raised, at most the limit: %llu",
		   (unsigned long long)st->ccti_max);
		/* after the last event, each index falls by one per timer period: c at t0 is 0 at t0 + c T */
		t0 = ir_ib_now(ib);
		for (uint32_t i = 0; i < 4; i++)
			if ((c = ir_ib_cc_index(ib, i, 4, t0)) > cmax) {
				cmax = c;
				fmax = i;
			}
		ok(cmax > 0, "a flow still has an index at the end: %llu", (unsigned long long)cmax);
		is_u64(ir_ib_cc_index(ib, fmax, 4, t0 + (cmax - 1) * T), 1, "one period before its end it is 1");
		is_u64(ir_ib_cc_index(ib, fmax, 4, t0 + cmax * T), 0, "it is 0 after c periods");
		for (uint32_t i = 0; i < 4; i++)
			if (ir_ib_cc_index(ib, i, 4, t0 + 127 * T) != 0)
				all0 = 0;
		ok(all0, "every index is 0 after limit x timer");
		is_u64(ir_ib_cc_index(ib, 4, 0, t0), 0, "a flow never notified has index 0");
		ir_ib_free(ib);
	}
	{
		/* the index stops at the limit */
		static const char *kv[] = { "topo=star:5", "cc=on", "cc_limit=5", "cc_increase=2", NULL };
		ib = mk(5, kv, &e);
		for (uint32_t i = 0; ib && i < 4; i++)
			ir_ib_inject(ib, i, i, 4, 1u << 20, 0, 0, &e);
		ok(ib && ir_ib_run(ib, &e) == 0 && ndel == 4, "cc with a low limit runs");
		is_u64(ib ? ir_ib_get_stats(ib)->ccti_max : 0, 5, "the index stops at cc_limit");
		ir_ib_free(ib);
	}
	{
		/* throttling: table {0, 10 us}, limit 1 and a timer that never fires: once notified
		 * a flow sends a packet each ser(2074) + 10 us = 11037000 ps. 4 flows of 512 packets;
		 * a flow is notified within its first packets (marks start once the queue holds 2
		 * packets), so the last arrival lies between 500 and 512 such periods. */
		static const char *kv[] = { "topo=star:5", "cc=on", "cc_cct=0,10us", "cc_limit=1", "cc_timer=1s", NULL };
		uint64_t last = 0, per = 11037000;
		ib = mk(5, kv, &e);
		for (uint32_t i = 0; ib && i < 4; i++)
			ir_ib_inject(ib, i, i, 4, 1u << 20, 0, 0, &e);
		ok(ib && ir_ib_run(ib, &e) == 0 && ndel == 4, "throttled incast runs");
		for (int i = 0; i < 4; i++)
			if (arr[i] > last)
				last = arr[i];
		ok(last >= 500 * per && last <= 512 * per + 20000000, "throttled: last arrival %llu ps, 500..512 x %llu",
		   (unsigned long long)last, (unsigned long long)per);
		ir_ib_free(ib);
	}
	{
		/* cc on without congestion: check 1 unchanged (173000 ps) */
		static const char *kv[] = { "topo=star:2", "cc=on", NULL };
		ib = mk(2, kv, &e);
		ok(ib && ir_ib_inject(ib, 0, 0, 1, 100, 0, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "cc one packet");
		is_u64(arr[0], 173000, "cc on, idle: one packet as without cc");
		ir_ib_free(ib);
	}
	{
		ir_ib_cfg c;
		ir_ib_config_init(&c);
		ok(c.cc == 0 && c.cc_ncct == 128 && c.cc_cct[1] == 100000 && c.cc_cct[127] == 12700000 && c.cc_limit == 127 &&
		       c.cc_timer == 10000000 && c.cc_marking_rate == 1 && c.cc_increase == 1 && c.cc_threshold == 0.5,
		   "cc defaults");
		ok(ir_ib_config_set(&c, "cc-cct", "linear:1us:4", &e) == 0 && c.cc_ncct == 4 && c.cc_cct[3] == 3000000,
		   "linear table with a size");
		ok(ir_ib_config_set(&c, "cc_cct", "0,1us,1us,5us", &e) == 0 && c.cc_ncct == 4 && c.cc_cct[3] == 5000000,
		   "table as a list");
		ok(ir_ib_config_set(&c, "cc_cct", "1us,0", &e) == -1, "a decreasing table is refused");
		c.cc = 1;
		c.cc_limit = 4;
		ok(ir_ib_new(&c, 2, &client, &e) == NULL, "a limit past the table is refused");
		is_str(e.msg, "cc_limit 4 is past the last index of the congestion control table (cc_cct has 4 entries)",
		       "message");
		ir_ib_config_release(&c);
	}

	/* ---- service levels and VL arbitration (docs/ib-model.md section 9) ---- */
	{
		ir_ib_cfg c;
		ir_ib_config_init(&c);
		ok(c.sl_hash == 1 && c.sl2vl_set == 0 && c.vlarb_high[0] == 0 && c.vlarb_high_limit == 4, "SL/VL defaults");
		ok(ir_ib_config_set(&c, "sl", "3", &e) == 0 && c.sl_hash == 0 && c.sl == 3 && !c.sl_file, "sl=3");
		ok(ir_ib_config_set(&c, "sl", "16", &e) == -1, "sl=16 refused");
		ok(ir_ib_config_set(&c, "sl", "rules.txt", &e) == 0 && c.sl_file && strcmp(c.sl_file, "rules.txt") == 0,
		   "sl=FILE");
		ok(ir_ib_config_set(&c, "sl", "hash", &e) == 0 && c.sl_hash == 1 && !c.sl_file, "sl=hash");
		ok(ir_ib_config_set(&c, "sl2vl", "1,0,2", &e) == 0 && c.sl2vl_set && c.sl2vl[0] == 1 && c.sl2vl[1] == 0 &&
		       c.sl2vl[15] == 2,
		   "sl2vl, the last entry repeating");
		ok(ir_ib_config_set(&c, "sl2vl", "15", &e) == -1, "sl2vl past VL 14 refused");
		ok(ir_ib_config_set(&c, "vlarb-high", "0,2", &e) == 0 && c.vlarb_high[0] == 0 && c.vlarb_high[1] == 2 &&
		       c.vlarb_high[14] == 2,
		   "vlarb_high");
		ok(ir_ib_config_set(&c, "vlarb_high", ",1", &e) == -1, "an empty weight refused");
		ir_ib_config_release(&c);
	}
	{
		/* 1 MiB each from h0 (VL 0) and h1 (VL 1) into h2; VL 1 high-priority with limit 2:
		 * its 512 packets go in groups of 2 with a VL 0 packet between groups, 255 of them
		 * before its last, and the first VL 0 packet may lead (the two first packets reach
		 * the switch together, the first found eligible goes): it ends 255 or 256 x
		 * ser(2074) = 1037000 ps after it would alone (256 here) */
		static const char *kv1[] = { "topo=star:3", "vls=2", NULL };
		static const char *kv2[] = { "topo=star:3", "vls=2", "vlarb_high=0,1", "vlarb_high_limit=2", NULL };
		static const char *kv3[] = { "topo=star:3", "vls=2", "vlarb_high=0,1", "vlarb_high_limit=255", NULL };
		uint64_t alone, lim;
		ib = mk(3, kv1, &e);
		ok(ib && ir_ib_inject(ib, 1, 1, 2, 1u << 20, 0, 0, &e) == 0 && ir_ib_run(ib, &e) == 0, "VL 1 alone");
		alone = arr[1];
		ir_ib_free(ib);
		ib = mk(3, kv2, &e);
		ok(ib && ir_ib_inject(ib, 0, 0, 2, 1u << 20, 0, 0, &e) == 0 && ir_ib_inject(ib, 1, 1, 2, 1u << 20, 0, 0, &e) == 0 &&
		       ir_ib_run(ib, &e) == 0,
		   "high-priority VL with limit 2 runs");
		lim = arr[1];
		ok(lim >= alone + 255 * 1037000ull && lim <= alone + 256 * 1037000ull,
		   "limit 2: %llu ps, alone %llu + 255..256 x 1037000", (unsigned long long)lim, (unsigned long long)alone);
		ir_ib_free(ib);
		ib = mk(3, kv3, &e);
		ok(ib && ir_ib_inject(ib, 0, 0, 2, 1u << 20, 0, 0, &e) == 0 && ir_ib_inject(ib, 1, 1, 2, 1u << 20, 0, 0, &e) == 0 &&
		       ir_ib_run(ib, &e) == 0,
		   "high-priority VL without limit runs");
		ok(arr[1] <= alone + 1037000 && arr[0] > arr[1], "no limit: as alone (%llu, alone %llu), VL 0 after",
		   (unsigned long long)arr[1], (unsigned long long)alone);
		ir_ib_free(ib);
	}
	{
		static const char *kv[] = { "topo=star:2", "sl2vl=0,1", NULL };
		ok(mk(2, kv, &e) == NULL, "an SL mapped past the VLs is refused");
		is_str(e.msg, "sl2vl maps SL 1 to VL 1, but there are 1 data VLs (vls = 1)", "message");
	}
	return tap_done();
}
