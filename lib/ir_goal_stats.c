/*
 * ir_goal_stats.c: schedule statistics (goalc --stats), accumulated one rank
 * at a time so that they stream like everything else: ops by type, edges,
 * bytes, the widest fan-in and fan-out (where they are), the busiest rank.
 *
 * Fan-in needs a count per op of the rank being added; that scratch array is
 * kept between ranks (memory of the largest rank).
 *
 * The same module writes the traffic matrix and message-size histogram
 * (goalc --matrix, formats/matrix.md; API in ir_goal_stats.h): each rank's
 * sends are sorted by destination and written as one row per destination as
 * soon as the rank is added, so the file streams too and never needs N x N.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir_goal.h"
#include "ir_goal_stats.h"
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
		case IR_OP_READ:
		case IR_OP_WRITE:
			break; /* a storage server's disk access: neither a message nor computation */
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

/* ---- Traffic matrix and size histogram (goalc --matrix) ---- */

unsigned ir_goal_matrix_bin(uint64_t size)
{
	unsigned k = 0;
	while (size) {
		k++;
		size >>= 1;
	}
	return k;
}

int ir_goal_matrix_begin(ir_goal_matrix *m, ir_writer *w, uint32_t num_ranks, ir_err *e)
{
	memset(m, 0, sizeof *m);
	m->w = w;
	m->nranks = num_ranks;
	return ir_writer_printf(w, e,
	                        "# goalc matrix 1 ranks=%" PRIu32 "\n"
	                        "# traffic: one row per (src, dst) pair with messages, from the send ops\n"
	                        "src\tdst\tmessages\tbytes\n",
	                        num_ranks);
}

static int add_u64(uint64_t *acc, uint64_t v, uint32_t rank, ir_err *e)
{
	if (*acc > UINT64_MAX - v)
		return ir_errf(e, "rank %" PRIu32 ": byte count of the traffic matrix exceeds 2^64-1", rank);
	*acc += v;
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
	return x < y ? -1 : x > y;
}

int ir_goal_matrix_add(ir_goal_matrix *m, uint32_t rank, const ir_rank *r, ir_err *e)
{
	uint64_t n = 0, *pv;
	for (uint32_t i = 0; i < r->nops; i++)
		n += ir_op_type(ir_rank_op(r, i)) == IR_OP_SEND;
	if (n > m->priv_cap) {
		pv = realloc(m->priv_scratch, (size_t)n * 2 * sizeof *pv);
		if (!pv)
			return ir_errf(e, "out of memory for the traffic matrix of rank %" PRIu32, rank);
		m->priv_scratch = pv;
		m->priv_cap = n;
	}
	pv = m->priv_scratch;
	n = 0;
	for (uint32_t i = 0; i < r->nops; i++) {
		const unsigned char *op = ir_rank_op(r, i);
		uint64_t sz;
		unsigned b;
		if (ir_op_type(op) != IR_OP_SEND)
			continue;
		sz = ir_op_size(op);
		b = ir_goal_matrix_bin(sz);
		pv[2 * n] = ir_op_peer(op);
		pv[2 * n + 1] = sz;
		n++;
		m->hist_msgs[b]++;
		m->msgs++;
		if (add_u64(&m->hist_bytes[b], sz, rank, e) || add_u64(&m->bytes, sz, rank, e))
			return -1;
	}
	if (n > 1)
		qsort(pv, (size_t)n, 2 * sizeof *pv, cmp_pair);
	for (uint64_t i = 0; i < n;) {
		uint64_t peer = pv[2 * i], cnt = 0, bytes = 0;
		for (; i < n && pv[2 * i] == peer; i++, cnt++)
			if (add_u64(&bytes, pv[2 * i + 1], rank, e))
				return -1;
		if (ir_writer_printf(m->w, e, "%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", rank, peer, cnt,
		                     bytes))
			return -1;
		m->pairs++;
	}
	return 0;
}

int ir_goal_matrix_finish(ir_goal_matrix *m, ir_err *e)
{
	unsigned lo = IR_MATRIX_BINS, hi = 0;
	for (unsigned k = 0; k < IR_MATRIX_BINS; k++)
		if (m->hist_msgs[k]) {
			if (lo == IR_MATRIX_BINS)
				lo = k;
			hi = k;
		}
	if (ir_writer_printf(m->w, e,
	                     "\n\n# sizes: messages per power-of-two size class, from the send ops\n"
	                     "size_min\tsize_max\tmessages\tbytes\n"))
		return -1;
	for (unsigned k = lo; k <= hi && lo < IR_MATRIX_BINS; k++) {
		uint64_t mn = k ? (uint64_t)1 << (k - 1) : 0;
		uint64_t mx = k == 0 ? 0 : k == 64 ? UINT64_MAX : ((uint64_t)1 << k) - 1;
		if (ir_writer_printf(m->w, e, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", mn, mx,
		                     m->hist_msgs[k], m->hist_bytes[k]))
			return -1;
	}
	return ir_writer_printf(m->w, e,
	                        "# total messages=%" PRIu64 " bytes=%" PRIu64 " pairs=%" PRIu64 "\n",
	                        m->msgs, m->bytes, m->pairs);
}

void ir_goal_matrix_release(ir_goal_matrix *m)
{
	free(m->priv_scratch);
	m->priv_scratch = NULL;
	m->priv_cap = 0;
}
