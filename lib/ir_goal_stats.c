/*
 * ir_goal_stats.c: schedule statistics (goalc --stats), accumulated one rank
 * at a time so that they stream like everything else: ops by type, edges,
 * bytes, the widest fan-in and fan-out (where they are), the busiest rank.
 *
 * Fan-in needs a count per op of the rank being added; that scratch array is
 * kept between ranks (memory of the largest rank).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir_goal.h"
#include "ir_io.h"

void ir_goal_stats_init(ir_goal_stats *st, uint32_t num_ranks)
{
	memset(st, 0, sizeof *st);
	st->nranks = num_ranks;
}

void ir_goal_stats_release(ir_goal_stats *st)
{
	free(st->priv_cnt);
	st->priv_cnt = NULL;
	st->priv_cap = 0;
}

int ir_goal_stats_add(ir_goal_stats *st, uint32_t rank, const ir_rank *r, ir_err *e)
{
	uint32_t *cnt;
	if (r->nops > st->priv_cap) {
		uint32_t *nc = realloc(st->priv_cnt, (size_t)r->nops * sizeof *nc);
		if (!nc)
			return ir_errf(e, "out of memory for the statistics of rank %u", rank);
		st->priv_cnt = nc;
		st->priv_cap = r->nops;
	}
	cnt = st->priv_cnt;
	if (r->nops)
		memset(cnt, 0, (size_t)r->nops * sizeof *cnt);
	st->ranks_seen++;
	st->nops += r->nops;
	st->nedges += r->nedges;
	if (r->nops > st->max_ops || st->ranks_seen == 1) {
		st->max_ops = r->nops;
		st->max_ops_rank = rank;
	}
	if (r->ncpus > st->max_cpus)
		st->max_cpus = r->ncpus;
	if (r->nnics > st->max_nics)
		st->max_nics = r->nnics;
	for (uint32_t i = 0; i < r->nops; i++) {
		const unsigned char *op = ir_rank_op(r, i);
		uint32_t b, en;
		switch (ir_op_type(op)) {
		case IR_OP_SEND:
			st->nsend++;
			st->bytes_sent += ir_op_size(op);
			break;
		case IR_OP_RECV:
			st->nrecv++;
			st->bytes_recv += ir_op_size(op);
			st->recv_any_src += ir_op_peer(op) == IR_ANY;
			st->recv_any_tag += ir_op_tag(op) == IR_ANY;
			break;
		default:
			st->ncalc++;
			st->calc_ps += ir_op_size(op);
			break;
		}
		ir_rank_succ(r, i, &b, &en);
		if (en - b > st->max_fanout) {
			st->max_fanout = en - b;
			st->max_fanout_rank = rank;
			st->max_fanout_op = i;
		}
		for (uint32_t k = b; k < en; k++) {
			uint32_t ed = ir_rank_edge(r, k);
			cnt[ed & IR_EDGE_INDEX]++;
			st->nireq += (ed & IR_EDGE_IREQ) != 0;
		}
	}
	for (uint32_t i = 0; i < r->nops; i++) {
		if (!cnt[i])
			st->nroots++;
		if (cnt[i] > st->max_fanin) {
			st->max_fanin = cnt[i];
			st->max_fanin_rank = rank;
			st->max_fanin_op = i;
		}
	}
	return 0;
}

int ir_goal_stats_write(ir_writer *w, const ir_goal_stats *st, ir_err *e)
{
	return ir_writer_printf(w, e,
	                        "ranks           %" PRIu32 "\n"
	                        "ops             %" PRIu64 "\n"
	                        "  send          %" PRIu64 "\n"
	                        "  recv          %" PRIu64 " (%" PRIu64 " from any source, %" PRIu64 " with any tag)\n"
	                        "  calc          %" PRIu64 "\n"
	                        "edges           %" PRIu64 " (%" PRIu64 " requires, %" PRIu64 " irequires)\n"
	                        "bytes sent      %" PRIu64 "\n"
	                        "bytes received  %" PRIu64 "\n"
	                        "calc time       %" PRIu64 " ps\n"
	                        "ops per rank    %.1f average, %" PRIu64 " at most (rank %" PRIu32 ")\n"
	                        "cpus, nics      %" PRIu32 ", %" PRIu32 " at most per rank\n"
	                        "roots           %" PRIu64 " ops without predecessors\n"
	                        "largest fan-out %" PRIu64 " (rank %" PRIu32 ", op %" PRIu32 ")\n"
	                        "largest fan-in  %" PRIu64 " (rank %" PRIu32 ", op %" PRIu32 ")\n",
	                        st->nranks, st->nops, st->nsend, st->nrecv, st->recv_any_src, st->recv_any_tag, st->ncalc,
	                        st->nedges, st->nedges - st->nireq, st->nireq, st->bytes_sent, st->bytes_recv, st->calc_ps,
	                        st->nranks ? (double)st->nops / st->nranks : 0.0, st->max_ops, st->max_ops_rank,
	                        st->max_cpus, st->max_nics, st->nroots, st->max_fanout, st->max_fanout_rank,
	                        st->max_fanout_op, st->max_fanin, st->max_fanin_rank, st->max_fanin_op);
}
