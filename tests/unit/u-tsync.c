/*
 * u-tsync.c: the zero-cost time dataflow of trace2goal --sync: max over
 * inputs, holds, notification, channel matching in posting order (eager and
 * rendezvous), unmatched entries at the end, node recycling (nothing left
 * alive), and random graphs and random channel traffic against brute force.
 */
#include <stdlib.h>

#include "ir_tsync.h"
#include "tap.h"
#include <string.h>

static int64_t got[4096];
static int ngot;
static uint64_t got_user[4096];

static int on_done(void *ctx, int64_t t, uint64_t u0, uint64_t u1, ir_err *e)
{
	(void)u1;
	if (ngot < 4096) {
		got[ngot] = t;
		got_user[ngot] = u0;
		ngot++;
	}
	if (ctx && u0 == *(const uint64_t *)ctx)
		return ir_errf(e, "callback for node %llu failed", (unsigned long long)u0);
	return 0;
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint64_t xr(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(void)
{
	ir_ts *s = ir_ts_new(on_done, NULL);
	ir_tn a, b, c, sp, rp, rd, sd;

	/* max over inputs, resolution only after the release */
	a = ir_ts_node(s, 10);
	b = ir_ts_node(s, 5);
	c = ir_ts_node(s, 7);
	ir_ts_input(s, c, a);
	ir_ts_input(s, c, b);
	ir_ts_notify(s, c, 42, 0);
	ir_ts_release(s, c);
	ok(!ir_ts_resolved(s, c), "a node waits for its inputs");
	ir_ts_release(s, a);
	ok(!ir_ts_resolved(s, c) && ir_ts_resolved(s, a), "one input resolved: still waiting");
	ir_ts_release(s, b);
	ok(ir_ts_resolved(s, c) && ir_ts_time(s, c) == 10, "time is the max of floor and inputs (10)");
	ok(ngot == 1 && got[0] == 10 && got_user[0] == 42, "notified once with its user data");
	ir_ts_unref(s, a);
	ir_ts_unref(s, b);
	ir_ts_unref(s, c);
	ok(ir_ts_live(s) == 0, "released and dropped nodes are recycled");

	/* a hold keeps a node open */
	a = ir_ts_node(s, 1);
	ir_ts_hold(s, a);
	ir_ts_release(s, a);
	ok(!ir_ts_resolved(s, a), "an extra hold keeps the node open");
	ir_ts_release(s, a);
	ok(ir_ts_resolved(s, a), "releasing the last hold resolves it");
	ir_ts_unref(s, a);

	/* eager: receive done = max(posts); send done = its post */
	ngot = 0;
	sp = ir_ts_node(s, 100);
	ir_ts_release(s, sp);
	ir_ts_send(s, 0, 1, 7, sp, sp);
	rp = ir_ts_node(s, 50);
	rd = ir_ts_node(s, 50);
	ir_ts_input(s, rd, rp);
	ir_ts_notify(s, rd, 1, 0);
	ir_ts_release(s, rp);
	ir_ts_recv(s, 0, 1, 7, rp, rd);
	ok(ir_ts_resolved(s, rd) && ir_ts_time(s, rd) == 100, "eager: the early receive completes at the send's post");
	ir_ts_unref(s, sp);
	ir_ts_unref(s, rp);
	ir_ts_unref(s, rd);

	/* rendezvous: the send completes when the receive is posted */
	sp = ir_ts_node(s, 100);
	sd = ir_ts_node(s, 100);
	ir_ts_input(s, sd, sp);
	ir_ts_release(s, sp);
	ir_ts_send(s, 0, 1, 8, sp, sd);
	ok(!ir_ts_resolved(s, sd), "rendezvous send waits for its receive");
	rp = ir_ts_node(s, 300);
	rd = ir_ts_node(s, 300);
	ir_ts_input(s, rd, rp);
	ir_ts_release(s, rp);
	ir_ts_recv(s, 0, 1, 8, rp, rd);
	ok(ir_ts_time(s, sd) == 300 && ir_ts_time(s, rd) == 300, "rendezvous: both complete at the late receive's post");
	ir_ts_unref(s, sp);
	ir_ts_unref(s, sd);
	ir_ts_unref(s, rp);
	ir_ts_unref(s, rd);

	/* costs (ir_ts_send_cost): an eager message arrives d_arr after its send's post, whichever
	 * side comes first; the receive posted later than the arrival completes at its own post */
	sp = ir_ts_node(s, 100);
	ir_ts_release(s, sp);
	ir_ts_send_cost(s, 0, 1, 10, sp, sp, 40, 0, 0);
	rp = ir_ts_node(s, 50);
	rd = ir_ts_node(s, 50);
	ir_ts_input(s, rd, rp);
	ir_ts_release(s, rp);
	ir_ts_recv(s, 0, 1, 10, rp, rd);
	ok(ir_ts_time(s, rd) == 140, "eager with cost: the waiting receive completes at post + d_arr");
	ir_ts_unref(s, sp);
	ir_ts_unref(s, rp);
	ir_ts_unref(s, rd);
	rp = ir_ts_node(s, 500);
	rd = ir_ts_node(s, 500);
	ir_ts_input(s, rd, rp);
	ir_ts_release(s, rp);
	ir_ts_recv(s, 0, 1, 11, rp, rd);
	sp = ir_ts_node(s, 100);
	ir_ts_release(s, sp);
	ir_ts_send_cost(s, 0, 1, 11, sp, sp, 40, 0, 0);
	ok(ir_ts_time(s, rd) == 500, "eager with cost: a receive posted after the arrival completes at its post");
	ir_ts_unref(s, sp);
	ir_ts_unref(s, rp);
	ir_ts_unref(s, rd);

	/* rendezvous with cost: send done = max(post + d_done, receive's post + d_rpost), receive
	 * done = max(own post, send's post + d_arr); negative delays allowed */
	for (int late = 0; late < 2; late++) {
		int64_t rpost = late ? 1000 : 20;
		sp = ir_ts_node(s, 100);
		sd = ir_ts_node(s, 100);
		ir_ts_input(s, sd, sp);
		ir_ts_release(s, sp);
		ir_ts_send_cost(s, 0, 1, 12, sp, sd, 30, 70, -25);
		rp = ir_ts_node(s, rpost);
		rd = ir_ts_node(s, rpost);
		ir_ts_input(s, rd, rp);
		ir_ts_release(s, rp);
		ir_ts_recv(s, 0, 1, 12, rp, rd);
		ok(ir_ts_time(s, sd) == (late ? 975 : 170) && ir_ts_time(s, rd) == (late ? 1000 : 130),
		   "rendezvous with cost, receive %s: send done %lld, receive done %lld", late ? "late" : "early",
		   (long long)ir_ts_time(s, sd), (long long)ir_ts_time(s, rd));
		ir_ts_unref(s, sp);
		ir_ts_unref(s, sd);
		ir_ts_unref(s, rp);
		ir_ts_unref(s, rd);
	}
	ok(ir_ts_live(s) == 0, "the delay nodes are freed with the rest");

	/* different tags and directions do not match; finish releases what is left */
	sp = ir_ts_node(s, 5);
	ir_ts_release(s, sp);
	ir_ts_send(s, 0, 1, 9, sp, sp);
	rp = ir_ts_node(s, 6);
	rd = ir_ts_node(s, 6);
	ir_ts_input(s, rd, rp);
	ir_ts_release(s, rp);
	ir_ts_recv(s, 1, 0, 9, rp, rd);
	ok(!ir_ts_resolved(s, rd), "a receive of the other direction does not match");
	ok(ir_ts_finish(s) == 2 && ir_ts_resolved(s, rd) && ir_ts_time(s, rd) == 6,
	   "finish: two unmatched entries, the receive resolves alone");
	ir_ts_unref(s, sp);
	ir_ts_unref(s, rp);
	ir_ts_unref(s, rd);
	ok(ir_ts_live(s) == 0, "nothing alive after finish");

	/* random DAGs against brute force: node i takes inputs from lower nodes; released in random order */
	{
		enum { N = 300 };
		int bad = 0;
		for (int round = 0; round < 30; round++) {
			ir_tn h[N];
			int64_t fl[N], want[N];
			int in[N][4], nin[N];
			int order[N];
			for (int i = 0; i < N; i++) {
				fl[i] = (int64_t)(xr() % 1000);
				nin[i] = i ? (int)(xr() % 4) : 0;
				want[i] = fl[i];
				for (int k = 0; k < nin[i]; k++) {
					in[i][k] = (int)(xr() % (uint64_t)i);
					if (want[in[i][k]] > want[i])
						want[i] = want[in[i][k]];
				}
				h[i] = ir_ts_node(s, fl[i]);
				order[i] = i;
			}
			for (int i = 0; i < N; i++)
				for (int k = 0; k < nin[i]; k++)
					ir_ts_input(s, h[i], h[in[i][k]]);
			for (int i = N - 1; i > 0; i--) {
				int j = (int)(xr() % (uint64_t)(i + 1)), t = order[i];
				order[i] = order[j];
				order[j] = t;
			}
			for (int i = 0; i < N; i++)
				ir_ts_release(s, h[order[i]]);
			for (int i = 0; i < N; i++) {
				if (!ir_ts_resolved(s, h[i]) || ir_ts_time(s, h[i]) != want[i])
					bad++;
				ir_ts_unref(s, h[i]);
			}
		}
		ok(bad == 0, "30 random DAGs of 300 nodes: every time is the brute-force max");
		ok(ir_ts_live(s) == 0, "all their nodes recycled");
	}

	/* random channel traffic: the k-th send on a channel matches the k-th receive */
	{
		enum { M = 2000 };
		static int64_t sfl[M], rfl[M];
		static int sch[M], rch[M];
		static ir_tn rdn[M], rpn[M], spn[M];
		int cnt_s[4] = { 0 }, cnt_r[4] = { 0 }, bad = 0, ns = 0, nr = 0;
		static int sidx[4][M], ridx[4][M];
		/* M sends and M receives over 4 channels, posted in a random interleaving */
		while (ns < M || nr < M) {
			int send = nr >= M || (ns < M && (xr() & 1));
			int c4 = (int)(xr() % 4);
			int64_t t = (int64_t)(xr() % 100000);
			if (send && cnt_s[c4] >= M / 4)
				continue;
			if (!send && cnt_r[c4] >= M / 4)
				continue;
			if (send) {
				sfl[ns] = t;
				sch[ns] = c4;
				sidx[c4][cnt_s[c4]++] = ns;
				spn[ns] = ir_ts_node(s, t);
				ir_ts_release(s, spn[ns]);
				ir_ts_send(s, (uint32_t)c4, 9, c4 * 3, spn[ns], spn[ns]);
				ns++;
			} else {
				rfl[nr] = t;
				rch[nr] = c4;
				ridx[c4][cnt_r[c4]++] = nr;
				rpn[nr] = ir_ts_node(s, t);
				rdn[nr] = ir_ts_node(s, t);
				ir_ts_input(s, rdn[nr], rpn[nr]);
				ir_ts_release(s, rpn[nr]);
				ir_ts_recv(s, (uint32_t)c4, 9, c4 * 3, rpn[nr], rdn[nr]);
				nr++;
			}
		}
		for (int c4 = 0; c4 < 4; c4++)
			for (int k = 0; k < M / 4; k++) {
				int si = sidx[c4][k], ri = ridx[c4][k];
				int64_t w = sfl[si] > rfl[ri] ? sfl[si] : rfl[ri];
				if (!ir_ts_resolved(s, rdn[ri]) || ir_ts_time(s, rdn[ri]) != w || rch[ri] != sch[si])
					bad++;
			}
		ok(bad == 0, "2000 messages on 4 channels: k-th send matches k-th receive, done = max of posts");
		ok(ir_ts_finish(s) == 0, "nothing left unmatched");
		for (int i = 0; i < M; i++) {
			ir_ts_unref(s, spn[i]);
			ir_ts_unref(s, rpn[i]);
			ir_ts_unref(s, rdn[i]);
		}
		ok(ir_ts_live(s) == 0, "all recycled");
	}

	/* a long chain resolving at once does not recurse */
	{
		enum { C = 200000 };
		ir_tn first = ir_ts_node(s, 0), prev = first, last = 0;
		ir_ts_ref(s, first);
		for (int i = 1; i < C; i++) {
			ir_tn n = ir_ts_node(s, i % 7);
			ir_ts_input(s, n, prev);
			ir_ts_release(s, n);
			if (prev != first)
				ir_ts_unref(s, prev);
			prev = n;
		}
		last = prev;
		ir_ts_release(s, first);
		ok(ir_ts_resolved(s, last) && ir_ts_time(s, last) == 6, "a chain of 200000 resolves iteratively");
		ir_ts_unref(s, last);
		ir_ts_unref(s, first);
		ir_ts_unref(s, first);
		ok(ir_ts_live(s) == 0, "chain recycled");
	}
	ir_ts_free(s);
	ir_ts_free(NULL);
	/* a failing callback stops later callbacks; ir_ts_error reports its message */
	{
		static const uint64_t fail_at = 2;
		ir_ts *f = ir_ts_new(on_done, (void *)&fail_at);
		ir_tn x[4];
		ir_err e2;
		ok(f && ir_ts_error(f, &e2) == 0, "no error before a callback fails");
		ngot = 0;
		for (int i = 0; f && i < 4; i++) {
			x[i] = ir_ts_node(f, 10 * (i + 1));
			if (i)
				ir_ts_input(f, x[i], x[i - 1]);
			ir_ts_notify(f, x[i], (uint64_t)(i + 1), 0);
		}
		for (int i = 0; f && i < 4; i++)
			ir_ts_release(f, x[i]);
		ok(f && ngot == 2 && got_user[0] == 1 && got_user[1] == 2, "callbacks stop after the failing one (%d ran)",
		   ngot);
		ok(f && ir_ts_error(f, &e2) == -1 && strcmp(e2.msg, "callback for node 2 failed") == 0 &&
		       ir_ts_error(f, NULL) == -1,
		   "ir_ts_error reports the first failure: %s", f ? e2.msg : "");
		for (int i = 0; f && i < 4; i++)
			ir_ts_unref(f, x[i]);
		ir_ts_free(f);
	}
	return tap_done();
}
