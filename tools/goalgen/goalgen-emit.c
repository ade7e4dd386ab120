/*
 * goalgen-emit.c: hand-written GOAL text formatting into a large buffer
 * (see goalgen-emit.h for why not printf).
 *
 * Integers are written two digits at a time from a 200-byte table, the way
 * fast integer formatters do; each line reserves GG_LINE_MAX bytes once and
 * then copies keywords with fixed-length memcpy, which the compiler turns
 * into a few stores.
 */
#include "goalgen-emit.h"

#include <stdlib.h>
#include <string.h>

static const char digits2[201] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	char *t = tmp + sizeof tmp;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		t -= 2;
		t[0] = digits2[d];
		t[1] = digits2[d + 1];
	}
	if (v >= 10) {
		unsigned d = (unsigned)v * 2;
		t -= 2;
		t[0] = digits2[d];
		t[1] = digits2[d + 1];
	} else {
		*--t = (char)('0' + v);
	}
	size_t n = (size_t)(tmp + sizeof tmp - t);
	memcpy(p, t, n);
	return p + n;
}

#define PUT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static inline char *put_label(char *p, char lp, uint64_t li)
{
	*p++ = lp;
	return put_u64(p, li);
}

int gg_out_init(gg_out *o, ir_writer *w, size_t cap)
{
	memset(o, 0, sizeof *o);
	o->w = w;
	o->cap = cap < 4 * GG_LINE_MAX ? 4 * GG_LINE_MAX : cap;
	o->buf = malloc(o->cap);
	if (!o->buf)
		return ir_errf(&o->err, "out of memory for a %zu-byte output buffer", o->cap);
	return 0;
}

int gg_out_flush(gg_out *o)
{
	if (o->failed) {
		o->len = 0; /* keep going cheaply; the caller checks failed */
		return -1;
	}
	if (o->len && ir_writer_write(o->w, o->buf, o->len, &o->err)) {
		o->failed = 1;
		o->len = 0;
		return -1;
	}
	o->len = 0;
	return 0;
}

void gg_out_release(gg_out *o)
{
	free(o->buf);
	o->buf = NULL;
}

void gg_num_ranks(gg_out *o, uint64_t n)
{
	gg_reserve(o);
	char *p = o->buf + o->len;
	p = PUT(p, "num_ranks ");
	p = put_u64(p, n);
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
}

void gg_rank_open(gg_out *o, uint64_t r)
{
	gg_reserve(o);
	char *p = o->buf + o->len;
	p = PUT(p, "rank ");
	p = put_u64(p, r);
	p = PUT(p, " {\n");
	o->len = (size_t)(p - o->buf);
}

void gg_rank_close(gg_out *o)
{
	gg_reserve(o);
	char *p = o->buf + o->len;
	p = PUT(p, "}\n");
	o->len = (size_t)(p - o->buf);
}

void gg_send(gg_out *o, char lp, uint64_t li, uint64_t size, uint64_t peer, uint64_t tag)
{
	gg_reserve(o);
	char *p = put_label(o->buf + o->len, lp, li);
	p = PUT(p, ": send ");
	p = put_u64(p, size);
	p = PUT(p, "b to ");
	p = put_u64(p, peer);
	p = PUT(p, " tag ");
	p = put_u64(p, tag);
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
}

void gg_recv(gg_out *o, char lp, uint64_t li, uint64_t size, uint64_t peer, uint64_t tag)
{
	gg_reserve(o);
	char *p = put_label(o->buf + o->len, lp, li);
	p = PUT(p, ": recv ");
	p = put_u64(p, size);
	p = PUT(p, "b from ");
	p = put_u64(p, peer);
	p = PUT(p, " tag ");
	p = put_u64(p, tag);
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
}

void gg_calc(gg_out *o, char lp, uint64_t li, uint64_t ps)
{
	gg_reserve(o);
	char *p = put_label(o->buf + o->len, lp, li);
	p = PUT(p, ": calc ");
	p = put_u64(p, ps);
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
}

void gg_dep(gg_out *o, char ap, uint64_t ai, char bp, uint64_t bi, int irq)
{
	gg_reserve(o);
	char *p = put_label(o->buf + o->len, ap, ai);
	if (irq)
		p = PUT(p, " irequires ");
	else
		p = PUT(p, " requires ");
	p = put_label(p, bp, bi);
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
}
