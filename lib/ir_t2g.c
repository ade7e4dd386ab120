/*
 * ir_t2g.c: traces to GOAL (see ir_t2g.h and docs/trace2goal.md).
 *
 * One rank at a time: the trace is read record by record and every MPI call
 * becomes a "staged call", a handful of ops with dependencies inside the call,
 * which is then linked into the rank's chain:
 *
 *   ops of the call, then the gap calc (computation since the previous call
 *   returned), each op without a predecessor inside the call requires the gap
 *   calc, the gap calc requires (or irequires) the previous call's end ops,
 *   and for a collective or a completion a `calc 0` joins the call's last ops.
 *
 * That text order is Schedgen's, so --compat schedgen output compares line by
 * line with Schedgen's own. Labels are l1, l2, ... per rank; GOAL allows a
 * label to be used before its definition, which a wildcard Irecv of an allprof
 * trace needs: its definition is written when its Wait reveals the real source.
 *
 * Request tables and communicator tables are hash maps (ir_hmap.h), sized to
 * the in-flight set.
 * State comes in two kinds, passed explicitly: the gstate of the whole run
 * (options, output, cross-rank checks, the staging scratch of the call being
 * converted) and an rstate per rank (labels, requests, communicators, its
 * buffered text). There is no "current rank" in the gstate: every function
 * that works on one rank takes it as a parameter (`rstate *R`), from the
 * driver down through the dispatcher to the line formatters. Without --sync
 * one rstate (g->one) is reused rank after rank; with --sync there is one per
 * rank (g->rs), all live at once, the records merged by time (a binary heap of
 * ranks), and each call also gets zero-cost time nodes (ir_tsync.h) for its ops
 * and a post-call calc whose definition is written when its time resolves,
 * possibly while another rank is being read: sync_done() then writes into the
 * rstate of the rank the calc belongs to, named in the node's payload.
 *
 * The module is split by concern into files that share the private header
 * ir_t2g_internal.h (the state, the small inline helpers of the hot path,
 * the declarations the parts share): this file holds the public entry points,
 * the options and the driver; ir_t2g_call.c the rank loop and the per-record
 * dispatcher; ir_t2g_out.c the output and the emission of a staged call;
 * ir_t2g_sync.c --sync; ir_t2g_p2p.c, ir_t2g_coll.c, ir_t2g_topo.c,
 * ir_t2g_wait.c and ir_t2g_comm.c the kinds of calls.
 */
#include "ir_t2g_internal.h"
#include "ir_re.h"

void t2g_warn(gstate *g, const char *fmt, ...)
{
	char buf[600];
	va_list ap;
	if (!g->o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	g->o->warn(g->o->warn_ctx, buf);
}

int t2g_errat(const rstate *R, ir_err *e, const char *fmt, ...)
{
	char buf[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return ir_errf_at(e, R->fname, R->line, "%s", buf);
}

static int check_pairs(gstate *g, ir_err *e)
{
	/* per destination: sends - named receives must equal wildcard receives */
	int64_t *surplus = calloc(g->nranks, sizeof *surplus);
	if (!surplus)
		return ir_errf(e, "out of memory");
	for (size_t i = 0; i < g->pairs.cap; i++) {
		uint64_t k;
		const pairc *pc;
		const uint32_t *v = ir_hmap_at(&g->pairs, i);
		uint32_t src, dst;
		if (!v)
			continue;
		k = ir_hmap_key_a(&g->pairs, i) - 1;
		src = (uint32_t)(k >> 32);
		dst = (uint32_t)k;
		pc = &g->pc[*v];
		if (pc->recvs > pc->sends) {
			free(surplus);
			return ir_errf(e, "rank %u receives %" PRIu64 " messages from rank %u, which sends it %" PRIu64,
			               dst, pc->recvs, src, pc->sends);
		}
		if (pc->sends > pc->recvs && g->wild[dst] == 0) {
			free(surplus);
			return ir_errf(e, "rank %u sends %" PRIu64 " messages to rank %u, which receives %" PRIu64
			               " of them (a send is never received)", src, pc->sends, dst, pc->recvs);
		}
		surplus[dst] += (int64_t)(pc->sends - pc->recvs);
	}
	for (uint32_t d = 0; d < g->nranks; d++)
		if (surplus[d] != (int64_t)g->wild[d]) {
			int64_t s = surplus[d];
			free(surplus);
			return ir_errf(e, "rank %u posts %" PRIu64 " wildcard receives for %" PRId64 " unmatched messages", d,
			               g->wild[d], s);
		}
	free(surplus);
	return 0;
}

void ir_t2g_opts_init(ir_t2g_opts *o)
{
	memset(o, 0, sizeof *o);
	o->cpu_scale = 1.0;
	o->from_nth = 1;
	o->poll_from = o->poll_to = -1;
	o->poll_test_wait = IR_T2G_POLL_AUTO;
	ir_loggops_defaults(&o->net);
	ir_storage_defaults(&o->storage);
}

int ir_t2g_convert(const ir_trace_files *files, const ir_t2g_opts *o, ir_writer *w, ir_t2g_stats *st,
                   ir_err *e)
{
	gstate g;
	ir_t2g_stats dummy;
	int64_t epoch;
	int rc = -1;
	memset(&g, 0, sizeof g);
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	g.o = o;
	g.poll_model = o->poll_from >= 0 && o->poll_to >= 0 && !o->compat_schedgen;
	g.poll_from = o->poll_from >= 0 ? (uint64_t)o->poll_from : 0;
	g.poll_to = o->poll_to >= 0 ? (uint64_t)o->poll_to : 0;
	g.w = w;
	g.st = st;
	g.nranks = (uint32_t)files->n;
	ir_sb_init(&g.one.out);
	ir_ivset_init(&g.one.pinset);
	rstate_maps_init(&g.one);
	ir_hmap_init(&g.pairs, sizeof(uint32_t), 64, IR_HMAP_DENSE);
	ir_hmap_init(&g.cseq, sizeof(uint32_t), 64, IR_HMAP_DENSE);
	ir_cg_init(&g.cg);
	for (int k = 0; k < IR_COLL_NSEL; k++)
		g.alg[k] = o->coll[k];
	for (int k = 0; k < IR_COLL_NKINDS; k++) {
		if (g.alg[k] == IR_ALG_DEFAULT && o->compat_schedgen) {
			/* Schedgen's algorithms */
			if (k == IR_COLL_ALLREDUCE || k == IR_COLL_ALLGATHER || k == IR_COLL_BARRIER)
				g.alg[k] = IR_ALG_DISSEMINATION;
			else if (k == IR_COLL_BCAST || k == IR_COLL_REDUCE)
				g.alg[k] = IR_ALG_BINOMIAL;
			else if (k == IR_COLL_ALLTOALL)
				g.alg[k] = IR_ALG_LINEAR;
		}
	}
	g.wild = calloc(g.nranks ? g.nranks : 1, sizeof *g.wild);
	if (!g.wild) {
		ir_errf(e, "out of memory");
		goto done;
	}
	if (o->from_re && !(g.from_re = ir_re_compile(o->from_re, "--from", e)))
		goto done;
	if (o->to_re && !(g.to_re = ir_re_compile(o->to_re, "--to", e)))
		goto done;
	g.md = pcre2_match_data_create(4, NULL);
	if (!g.md) {
		ir_errf(e, "out of memory");
		goto done;
	}
	if (ir_trace_epoch_file(&files->f[0], &epoch, e))
		goto done;
	if (o->storage.servers && t2g_io_prepass(&g, files, epoch, e))
		goto done;
	{
		char head[64];
		int hl = o->storage.servers
		                 ? snprintf(head, sizeof head, "version 2\nnum_ranks %u\n", g.nranks + o->storage.servers)
		                 : snprintf(head, sizeof head, "num_ranks %u\n", g.nranks);
		if (t2g_write_out(&g, head, (size_t)hl, e))
			goto done;
	}
	if (o->sync) {
		if (t2g_convert_sync(&g, files, epoch, e))
			goto done;
		st->ranks = g.nranks;
	} else {
		for (size_t i = 0; i < files->n; i++) {
			if (t2g_convert_rank(&g, &g.one, &files->f[i], epoch, e)) {
				t2g_rank_release(&g, &g.one);
				goto done;
			}
			t2g_rank_release(&g, &g.one);
			st->ranks++;
		}
	}
	if (t2g_io_servers(&g, e) || check_pairs(&g, e))
		goto done;
	st->poll_waits = g.poll_waits;
	st->poll_wait_ps = g.poll_wait_ps;
	st->tracer_ps = g.tracer_ps;
	st->poll_work = g.poll_work;
	st->poll_ovl = g.poll_ovl;
	if (g.neg_gaps)
		t2g_warn(&g, "%" PRIu64 " call%s started before the previous call returned (clock corrections?): "
		         "their gaps count as 0", g.neg_gaps, g.neg_gaps == 1 ? "" : "s");
	if (g.skipped_comm > 1)
		t2g_warn(&g, "%" PRIu64 " calls on communicators without member lists were skipped", g.skipped_comm);
	if (g.no_topo > 1)
		t2g_warn(&g, "%" PRIu64 " neighbourhood collectives on communicators without a known topology were skipped",
		         g.no_topo);
	if (g.any_guess)
		t2g_warn(&g, "%" PRIu64 " liballprof Waitany/Waitsome call%s completed the earliest posted request (a guess)",
		         g.any_guess, g.any_guess == 1 ? "" : "s");
	if (g.sync_wild)
		t2g_warn(&g, "--sync: %" PRIu64 " wildcard receive%s without a recorded source: their waiting is replayed "
		         "from this rank's own entry", g.sync_wild, g.sync_wild == 1 ? "" : "s");
	if (g.win_unknown)
		t2g_warn(&g, "%" PRIu64 " MPI_Win_free/MPI_Win_fence call%s on windows the trace never created: their time "
		         "counted as computation", g.win_unknown, g.win_unknown == 1 ? "" : "s");
	if (g.folded_tags > 1)
		t2g_warn(&g, "%" PRIu64 " tags above 2^29-1 were folded", g.folded_tags);
	for (size_t i = 0; i < g.nunknown; i++)
		t2g_warn(&g, "unknown call %s (%" PRIu64 " time%s): not replayed, its time counted as computation",
		         g.unknown[i].name, g.unknown[i].count, g.unknown[i].count == 1 ? "" : "s");
	rc = 0;
done:
	if (g.rs) {
		for (uint32_t i = 0; i < g.nranks; i++) {
			t2g_rank_release(&g, &g.rs[i]);
			t2g_rank_free(&g.rs[i]);
		}
		free(g.rs);
	}
	t2g_rank_free(&g.one);
	t2g_io_free(g.io);
	t2g_sync_drop(&g);
	ir_ts_free(g.ts);
	if (g.tmp)
		fclose(g.tmp);
	free(g.tpost);
	free(g.tdone);
	ir_cg_release(&g.cg);
	free(g.ctag);
	free(g.cpeer);
	free(g.blk);
	free(g.sblk);
	free(g.rblk);
	free(g.haspred);
	free(g.hassucc);
	free(g.pc);
	free(g.cs);
	free(g.wild);
	ir_hmap_release(&g.pairs);
	ir_hmap_release(&g.cseq);
	for (size_t i = 0; i < g.nunknown; i++)
		free(g.unknown[i].name);
	free(g.unknown);
	pcre2_match_data_free(g.md);
	pcre2_code_free(g.from_re);
	pcre2_code_free(g.to_re);
	return rc;
}
