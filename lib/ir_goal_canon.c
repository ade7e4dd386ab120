/*
 * ir_goal_canon.c: canonical GOAL text (goalc -d).
 *
 * One spelling per schedule, so that text -> binary -> text -> binary gives
 * identical bytes: ranks in the order given (the binary's section order),
 * every op labelled l<index> in op order, fields in a fixed order (tag always,
 * cpu and nic only when not 0, recv wildcards as -1), then the dependencies
 * ordered by predecessor and, within one predecessor, by dependent (the CSR
 * order, which the compiler rebuilds identically).
 *
 * Lines are formatted by hand into a 64 KiB buffer: printf per field would
 * cost more than the rest of the work.
 */
#include <string.h>

#include "ir_goal.h"
#include "ir_io.h"

#define FLUSH_AT (1u << 16)

typedef struct obuf {
	char b[FLUSH_AT + 256];
	size_t n;
} obuf;

static char *u64s(char *p, uint64_t v)
{
	char t[24];
	int n = 0;
	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = t[--n];
	return p;
}

static char *lits(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}
#define LIT(p, s) lits(p, s, sizeof s - 1)

static int flush(ir_writer *w, obuf *o, ir_err *e)
{
	if (o->n && ir_writer_write(w, o->b, o->n, e))
		return -1;
	o->n = 0;
	return 0;
}

int ir_goal_text_begin(ir_writer *w, uint32_t num_ranks, ir_err *e)
{
	return ir_writer_printf(w, e, "num_ranks %u\n", num_ranks);
}

int ir_goal_text_begin_v(ir_writer *w, uint32_t num_ranks, unsigned version, ir_err *e)
{
	if (version > 1 && ir_writer_printf(w, e, "version %u\n", version))
		return -1;
	return ir_goal_text_begin(w, num_ranks, e);
}

int ir_goal_text_rank(ir_writer *w, uint32_t rank, const ir_rank *r, ir_err *e)
{
	obuf o; /* 64 KiB on the stack: no allocation per rank */
	char *p;
	o.n = 0;
	p = o.b;
	p = LIT(p, "rank ");
	p = u64s(p, rank);
	p = LIT(p, " {\n");
	for (uint32_t i = 0; i < r->nops; i++) {
		const unsigned char *op = ir_rank_op(r, i);
		unsigned t = ir_op_type(op);
		*p++ = 'l';
		p = u64s(p, i);
		if (t == IR_OP_CALC) {
			p = LIT(p, ": calc ");
			p = u64s(p, ir_op_size(op));
		} else if (ir_op_is_io(t)) {
			p = t == IR_OP_READ ? LIT(p, ": read ") : LIT(p, ": write ");
			p = u64s(p, ir_op_size(op));
			p = LIT(p, "b at ");
			p = u64s(p, ir_op_addr(op));
		} else {
			uint32_t peer = ir_op_peer(op), tag = ir_op_tag(op);
			p = t == IR_OP_SEND ? LIT(p, ": send ") : LIT(p, ": recv ");
			p = u64s(p, ir_op_size(op));
			p = t == IR_OP_SEND ? LIT(p, "b to ") : LIT(p, "b from ");
			p = peer == IR_ANY ? LIT(p, "-1") : u64s(p, peer);
			p = LIT(p, " tag ");
			p = tag == IR_ANY ? LIT(p, "-1") : u64s(p, tag);
		}
		if (ir_op_cpu(op)) {
			p = LIT(p, " cpu ");
			p = u64s(p, ir_op_cpu(op));
		}
		if (ir_op_nic(op)) {
			p = LIT(p, " nic ");
			p = u64s(p, ir_op_nic(op));
		}
		*p++ = '\n';
		o.n = (size_t)(p - o.b);
		if (o.n >= FLUSH_AT) {
			if (flush(w, &o, e))
				return -1;
			p = o.b;
		}
	}
	for (uint32_t i = 0; i < r->nops; i++) {
		uint32_t b, en;
		ir_rank_succ(r, i, &b, &en);
		for (uint32_t k = b; k < en; k++) {
			uint32_t ed = ir_rank_edge(r, k);
			*p++ = 'l';
			p = u64s(p, ed & IR_EDGE_INDEX);
			p = ed & IR_EDGE_IREQ ? LIT(p, " irequires l") : LIT(p, " requires l");
			p = u64s(p, i);
			*p++ = '\n';
			o.n = (size_t)(p - o.b);
			if (o.n >= FLUSH_AT) {
				if (flush(w, &o, e))
					return -1;
				p = o.b;
			}
		}
	}
	p = LIT(p, "}\n");
	o.n = (size_t)(p - o.b);
	return flush(w, &o, e);
}
