/*
 * ir_t2g_io.c: MPI-IO calls as traffic to storage servers (docs/storage.md §3, §5).
 *
 * With `storage_servers` > 0 (ir_t2g_opts.storage), the schedule gets that many more ranks,
 * the servers, after the application's; each data access of the traces becomes, per piece
 * of its striping (ir_storage_stripe), a message from the client to the server and one back,
 * and on the server a receive, a `read` or `write` op (GOAL version 2) and the reply.
 * Collective accesses (_all) are two-phase: the ranks send their bytes to aggregators that
 * own contiguous file domains, which then access the servers in large contiguous runs.
 * Independent noncontiguous ones are, when selected (romio_ds_write, romio_ds_read),
 * ROMIO's data sieving: the covering extent read (and written back) buffer by buffer.
 *
 * Where a rank's bytes lie in the file depends on its file pointer and view, and a
 * collective needs every participant's bytes. So the whole I/O of the run is resolved
 * first: t2g_io_prepass reads every trace once (only the MPI_File lines are looked at),
 * tracks each rank's open files (view, individual pointer) and each open file's shared
 * pointer, and stores every data access with its file extents. The conversion then takes a
 * rank's accesses in order. Memory: the extents of every access of the run; the pre-pass
 * costs one more read of the traces, and only runs when storage servers are configured.
 *
 * Shared-pointer accesses (_shared, _ordered) take their place in the order of their call
 * times over all ranks (an _ordered call in rank order after the earliest call of its
 * collective), which is what the shared pointer does if the calls do not overlap in time.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir_t2g_internal.h"

#define IO_TAG 2147483647LL   /* client <-> server */
#define XCHG_TAG 2147483646LL /* two-phase exchange between ranks */

enum { A_INDIV, A_AT, A_SHARED, A_ORDERED };

typedef struct io_ext {
	uint64_t off, len;
} io_ext;

typedef struct io_acc {
	uint32_t rank, slot;
	uint8_t write, coll, how, nb, sync; /* sync: MPI_File_sync (a flush, no bytes) */
	uint64_t ckey;         /* collective group key */
	int64_t t;             /* call time (shared pointer order) */
	uint64_t size;         /* bytes */
	uint64_t disp, esz, fsz, fext; /* the view at the call (shared, ordered: resolved later) */
	uint64_t inst;         /* open-file instance (shared pointer) */
	size_t first, n;       /* extents */
} io_acc;

typedef struct io_grp {
	size_t *acc;
	size_t n, cap;
} io_grp;

struct t2g_io {
	ir_storage_cfg c;
	io_acc *acc;
	size_t nacc, capacc;
	io_ext *ext;
	size_t next, capext;
	size_t *rfirst, *rn;   /* [nranks] each rank's accesses */
	size_t *rnext;         /* [nranks] next one to convert */
	ir_hmap slots;         /* name hash -> slot */
	uint32_t nslots;
	ir_hmap grps;          /* ckey -> index in grp */
	io_grp *grp;
	size_t ngrp, capgrp;
	ir_sb *srv;            /* [servers] GOAL text of each server */
	uint32_t *srvl;        /* [servers] labels used */
	ir_hmap lastrep;       /* (server << 32 | client) + 1 -> label of the last reply */
	uint64_t pieces;
};

/* ---- the pre-pass ---- */

typedef struct ofile {
	int64_t id;
	uint32_t slot;
	uint64_t inst;
	uint64_t disp, esz, fsz, fext, ptr;
	uint64_t cseq;
} ofile;

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL + (a << 6) + (a >> 2));
	x ^= x >> 31;
	x *= 0xBF58476D1CE4E5B9ULL;
	return x ^ (x >> 29);
}

static int add_ext(t2g_io *io, uint64_t off, uint64_t len)
{
	if (!len)
		return 0;
	if (io->next && io->acc[io->nacc].n) {
		io_ext *l = &io->ext[io->next - 1];
		if (l->off + l->len == off) {
			l->len += len;
			return 0;
		}
	}
	if (IR_GROW(io->ext, io->next + 1, io->capext))
		return -1;
	io->ext[io->next].off = off;
	io->ext[io->next].len = len;
	io->next++;
	io->acc[io->nacc].n++;
	return 0;
}

/* The file extents of view bytes [v, v+size) of access io->acc[io->nacc] (docs/storage.md
 * §3: each filetype tile holds its `size` bytes at the start of its `extent`). */
static int view_extents(t2g_io *io, uint64_t v, uint64_t size)
{
	io_acc *a = &io->acc[io->nacc];
	a->first = io->next;
	a->n = 0;
	if (a->fsz == a->fext || a->fsz == 0)
		return add_ext(io, a->disp + v, size);
	while (size) {
		uint64_t t = v / a->fsz, in = v % a->fsz, n = a->fsz - in;
		if (n > size)
			n = size;
		if (add_ext(io, a->disp + t * a->fext + in, n))
			return -1;
		v += n;
		size -= n;
	}
	return 0;
}

static int bad(const ir_trace *t, const ir_rec *r, ir_err *e, const char *what, unsigned i)
{
	char q[80];
	return ir_errf(e, "%s:%lu: %s: expected %s in field %u, found '%s'", ir_trace_name(t), r->line, r->name, what,
	               i + 1, ir_err_quote(q, sizeof q, i < r->nf ? r->f[i] : "", i < r->nf ? strlen(r->f[i]) : 0));
}

static int fint(const ir_trace *t, const ir_rec *r, unsigned i, int64_t *v, ir_err *e)
{
	if (i >= r->nf || ir_tf_int(r->f[i], v))
		return bad(t, r, e, "an integer", i);
	return 0;
}

static int ftype(const ir_trace *t, const ir_rec *r, unsigned i, uint64_t *size, uint64_t *ext, ir_err *e)
{
	int64_t a, b, c;
	if (i >= r->nf || ir_tf_triple(r->f[i], &a, &b, &c) || b < 0 || c < 0 || b > INT32_MAX || c > INT32_MAX)
		return bad(t, r, e, "a datatype '<id>,<size>,<extent>'", i);
	*size = (uint64_t)b;
	if (ext)
		*ext = (uint64_t)c;
	return 0;
}

static ofile *find_file(ofile *f, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].id == id)
			return &f[i];
	return NULL;
}

/* A flush of the file in slot `slot` by `rank` (MPI_File_sync; MPI_File_close with
 * flush_on_close): an access with no data. -1 if memory runs out. */
static int add_flush(t2g_io *io, uint32_t rank, uint32_t slot)
{
	if (IR_GROW(io->acc, io->nacc + 1, io->capacc))
		return -1;
	memset(&io->acc[io->nacc], 0, sizeof *io->acc);
	io->acc[io->nacc].rank = rank;
	io->acc[io->nacc].slot = slot;
	io->acc[io->nacc].sync = 1;
	io->acc[io->nacc].first = io->next;
	io->nacc++;
	return 0;
}

static int grp_add(t2g_io *io, uint64_t key, size_t acc)
{
	int isnew;
	uint32_t *v = ir_hmap_put(&io->grps, key + 1, 0, &isnew);
	io_grp *g;
	if (!v)
		return -1;
	if (isnew) {
		if (IR_GROW(io->grp, io->ngrp + 1, io->capgrp))
			return -1;
		memset(&io->grp[io->ngrp], 0, sizeof *io->grp);
		*v = (uint32_t)io->ngrp++;
	}
	g = &io->grp[*v];
	if (IR_GROW(g->acc, g->n + 1, g->cap))
		return -1;
	g->acc[g->n++] = acc;
	return 0;
}

static int prepass_rank(gstate *g, uint32_t rank, const ir_trace_file *tf, int64_t epoch, ir_err *e)
{
	t2g_io *io = g->io;
	ir_trace_opts to = { epoch, g->o->no_clock || g->o->compat_schedgen };
	ir_trace *t = ir_trace_open_file(tf, &to, e);
	ofile *files = NULL;
	size_t nf = 0, capf = 0;
	ir_hmap opens; /* name hash -> opens so far on this rank */
	ir_rec r;
	int rc, ret = -1;
	if (!t)
		return -1;
	ir_hmap_init(&opens, sizeof(uint64_t), 16, IR_HMAP_DENSE);
	io->rfirst[rank] = io->nacc;
	while ((rc = ir_trace_next(t, &r, e)) == 1) {
		const callinfo *ci;
		ofile *f;
		int64_t id, x;
		if (r.kind != IR_REC_CALL || strncmp(r.name, "MPI_File_", 9) != 0)
			continue;
		if (!(ci = t2g_find_call(r.name)) || ci->k == C_FDELETE)
			continue;
		if (r.nf != ci->nf) {
			ir_errf(e, "%s:%lu: %s: expected %u arguments, found %u", ir_trace_name(t), r.line, r.name, ci->nf,
			        r.nf);
			goto out;
		}
		if (fint(t, &r, ci->k == C_FOPEN ? 3 : 0, &id, e))
			goto out;
		if (ci->k == C_FOPEN) {
			int isnew;
			uint32_t *sv, slot;
			uint64_t *cnt;
			const char *q = r.f[1];
			if (!id)
				continue; /* the open failed */
			while (*q >= '0' && *q <= '9')
				q++;
			if (q == r.f[1] || *q || q - r.f[1] > 20) {
				bad(t, &r, e, "a file name hash", 1);
				goto out;
			}
			{
				uint64_t hv = strtoull(r.f[1], NULL, 10), ops;
				if (!(sv = ir_hmap_put(&io->slots, hv, 0, &isnew)))
					goto oom;
				if (isnew)
					*sv = io->nslots++;
				slot = *sv;
				if (!(cnt = ir_hmap_put(&opens, hv, 0, &isnew)))
					goto oom;
				if (isnew)
					*cnt = 0;
				ops = ++*cnt;
				if (find_file(files, nf, id)) {
					ir_errf(e, "%s:%lu: %s: file handle %" PRId64 " is already open", ir_trace_name(t), r.line,
					        r.name, id);
					goto out;
				}
				if (IR_GROW(files, nf + 1, capf))
					goto oom;
				memset(&files[nf], 0, sizeof *files);
				files[nf].id = id;
				files[nf].slot = slot;
				files[nf].inst = mix(hv, ops);
				files[nf].esz = files[nf].fsz = files[nf].fext = 1;
				nf++;
			}
			continue;
		}
		if (!(f = find_file(files, nf, id))) {
			ir_errf(e, "%s:%lu: %s: file handle %" PRId64 " is not open", ir_trace_name(t), r.line, r.name, id);
			goto out;
		}
		switch (ci->k) {
		case C_FCLOSE:
			/* a flush of the file (docs/storage.md §4), as MPI_File_sync */
			if (io->c.flush_on_close && add_flush(io, rank, f->slot))
				goto oom;
			*f = files[--nf];
			continue;
		case C_FVIEW:
			if (fint(t, &r, 1, &x, e) || ftype(t, &r, 2, &f->esz, NULL, e) || ftype(t, &r, 3, &f->fsz, &f->fext, e))
				goto out;
			if (x < 0) {
				bad(t, &r, e, "a displacement of at least 0", 1);
				goto out;
			}
			if (f->esz == 0)
				f->esz = 1;
			if (f->fext < f->fsz)
				f->fext = f->fsz;
			f->disp = (uint64_t)x;
			f->ptr = 0;
			continue;
		case C_FMETA:
			continue;
		case C_FSEEK: {
			int64_t w;
			if (fint(t, &r, 1, &x, e) || fint(t, &r, 2, &w, e))
				goto out;
			if (strcmp(r.name, "MPI_File_seek") == 0) {
				int64_t p = w == 1 ? (int64_t)f->ptr + x * (int64_t)f->esz : x * (int64_t)f->esz;
				f->ptr = p < 0 ? 0 : (uint64_t)p; /* SEEK_END: from 0 (the file's size is not traced) */
			}
			continue;
		}
		case C_FSYNC:
			if (add_flush(io, rank, f->slot))
				goto oom;
			continue;
		default:
			break;
		}
		{
			/* a data access */
			int at = ci->k == C_FIO_AT || ci->k == C_FIIO_AT;
			unsigned b = at ? 2 : 1;
			uint64_t tsz, v = 0;
			io_acc *a;
			const char *op = r.name + 9 + (r.name[9] == 'i');
			if (IR_GROW(io->acc, io->nacc + 1, io->capacc))
				goto oom;
			a = &io->acc[io->nacc];
			memset(a, 0, sizeof *a);
			if (fint(t, &r, b + 1, &x, e) || ftype(t, &r, b + 2, &tsz, NULL, e))
				goto out;
			if (x < 0) {
				bad(t, &r, e, "a count", b + 1);
				goto out;
			}
			a->rank = rank;
			a->slot = f->slot;
			a->write = op[0] == 'w';
			a->nb = r.name[9] == 'i';
			a->coll = strstr(op, "_all") != NULL || strstr(op, "_ordered") != NULL;
			a->how = at ? A_AT : strstr(op, "_shared") ? A_SHARED : strstr(op, "_ordered") ? A_ORDERED : A_INDIV;
			a->t = r.t_call;
			a->size = (uint64_t)x * tsz;
			a->disp = f->disp;
			a->esz = f->esz;
			a->fsz = f->fsz;
			a->fext = f->fext;
			a->inst = f->inst;
			if (at) {
				if (fint(t, &r, 1, &x, e))
					goto out;
				if (x < 0) {
					bad(t, &r, e, "an offset of at least 0", 1);
					goto out;
				}
				v = (uint64_t)x * f->esz;
			} else if (a->how == A_INDIV) {
				v = f->ptr;
				f->ptr += a->size;
			}
			if (a->coll)
				a->ckey = mix(f->inst, ++f->cseq);
			if (a->how == A_SHARED || a->how == A_ORDERED) {
				a->first = io->next; /* resolved after the pre-pass */
			} else if (view_extents(io, v, a->size)) {
				goto oom;
			}
			if (a->coll && grp_add(io, a->ckey, io->nacc))
				goto oom;
			if (a->how == A_SHARED && grp_add(io, mix(f->inst, 0), io->nacc))
				goto oom;
			io->nacc++;
		}
	}
	if (rc < 0)
		goto out;
	io->rn[rank] = io->nacc - io->rfirst[rank];
	ret = 0;
	goto out;
oom:
	ir_errf(e, "out of memory");
out:
	free(files);
	ir_hmap_release(&opens);
	ir_trace_free(t);
	return ret;
}

/* Shared-pointer accesses: in call-time order per open file (an _ordered collective at the
 * time of its earliest call, its members in rank order). */
typedef struct skey {
	int64_t k;
	uint32_t rank;
	size_t i;
} skey;

static int cmp_shared(const void *x, const void *y)
{
	const skey *p = x, *q = y;
	if (p->k != q->k)
		return p->k < q->k ? -1 : 1;
	if (p->rank != q->rank)
		return p->rank < q->rank ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

static int resolve_shared(t2g_io *io)
{
	skey *list = NULL;
	size_t n = 0, cap = 0;
	ir_hmap ptr; /* instance -> shared pointer */
	int rc = -1;
	ir_hmap_init(&ptr, sizeof(uint64_t), 16, IR_HMAP_DENSE);
	for (size_t i = 0; i < io->nacc; i++) {
		const io_acc *a = &io->acc[i];
		int64_t m = a->t;
		if (a->how != A_SHARED && a->how != A_ORDERED)
			continue;
		if (a->how == A_ORDERED) {
			const uint32_t *v = ir_hmap_get(&io->grps, a->ckey + 1, 0);
			const io_grp *gp = &io->grp[*v];
			for (size_t k = 0; k < gp->n; k++)
				if (io->acc[gp->acc[k]].t < m)
					m = io->acc[gp->acc[k]].t;
		}
		if (IR_GROW(list, n + 1, cap))
			goto out;
		list[n].k = m;
		list[n].rank = a->rank;
		list[n].i = i;
		n++;
	}
	if (n)
		qsort(list, n, sizeof *list, cmp_shared);
	for (size_t k = 0; k < n; k++) {
		io_acc *a = &io->acc[list[k].i];
		int isnew;
		uint64_t *p = ir_hmap_put(&ptr, a->inst, 0, &isnew), save = io->nacc;
		if (!p)
			goto out;
		if (isnew)
			*p = 0;
		/* view_extents works on io->acc[io->nacc]: point it at this access */
		io->nacc = list[k].i;
		if (view_extents(io, *p, a->size)) {
			io->nacc = save;
			goto out;
		}
		io->nacc = save;
		*p += a->size;
	}
	rc = 0;
out:
	free(list);
	ir_hmap_release(&ptr);
	return rc;
}

int t2g_io_prepass(gstate *g, const ir_trace_files *files, int64_t epoch, ir_err *e)
{
	t2g_io *io = calloc(1, sizeof *io);
	uint32_t S = g->o->storage.servers;
	if (!io)
		return ir_errf(e, "out of memory");
	g->io = io;
	io->c = g->o->storage;
	ir_hmap_init(&io->slots, sizeof(uint32_t), 16, IR_HMAP_DENSE);
	ir_hmap_init(&io->grps, sizeof(uint32_t), 64, IR_HMAP_DENSE);
	ir_hmap_init(&io->lastrep, sizeof(uint32_t), 64, IR_HMAP_DENSE);
	if (!(io->rfirst = calloc(g->nranks, sizeof *io->rfirst)) || !(io->rn = calloc(g->nranks, sizeof *io->rn)) ||
	    !(io->rnext = calloc(g->nranks, sizeof *io->rnext)) || !(io->srv = calloc(S, sizeof *io->srv)) ||
	    !(io->srvl = calloc(S, sizeof *io->srvl)))
		return ir_errf(e, "out of memory");
	for (uint32_t s = 0; s < S; s++)
		ir_sb_init(&io->srv[s]);
	for (uint32_t r = 0; r < g->nranks; r++)
		if (prepass_rank(g, r, &files->f[r], epoch, e))
			return -1;
	/* ext may have moved: shared accesses were given no extents yet */
	if (resolve_shared(io))
		return ir_errf(e, "out of memory");
	return 0;
}

void t2g_io_free(t2g_io *io)
{
	if (!io)
		return;
	for (size_t i = 0; i < io->ngrp; i++)
		free(io->grp[i].acc);
	free(io->grp);
	for (uint32_t s = 0; io->srv && s < io->c.servers; s++)
		ir_sb_release(&io->srv[s]);
	free(io->srv);
	free(io->srvl);
	free(io->acc);
	free(io->ext);
	free(io->rfirst);
	free(io->rn);
	free(io->rnext);
	ir_hmap_release(&io->slots);
	ir_hmap_release(&io->grps);
	ir_hmap_release(&io->lastrep);
	free(io);
}

/* ---- the conversion ---- */

static int cg_dep(gstate *g, uint32_t from, uint32_t to)
{
	ir_cg *c = &g->cg;
	if (IR_GROW(c->dep, c->ndep + 1, c->capdep))
		return -1;
	c->dep[c->ndep].from = from;
	c->dep[c->ndep].to = to;
	c->ndep++;
	return 0;
}

typedef struct pieces {
	ir_stripe_piece *p;
	size_t n, cap;
} pieces;

static int on_piece(void *ctx, const ir_stripe_piece *p)
{
	pieces *ps = ctx;
	if (ps->n) {
		ir_stripe_piece *l = &ps->p[ps->n - 1];
		if (l->server == p->server && l->addr + l->len == p->addr) {
			l->len += p->len;
			return 0;
		}
	}
	if (IR_GROW(ps->p, ps->n + 1, ps->cap))
		return -1;
	ps->p[ps->n++] = *p;
	return 0;
}

/* The server's side of one request: receive, disk, reply (replies to one client in order). */
static int server_req(gstate *g, uint32_t s, uint32_t client, int write, uint64_t addr, uint64_t len)
{
	t2g_io *io = g->io;
	ir_sb *b = &io->srv[s];
	uint32_t l0 = io->srvl[s] + 1, *last;
	int isnew;
	io->srvl[s] += 3;
	if (ir_sb_addf(b, "l%u: recv %" PRIu64 "b from %u tag %lld\nl%u: %s %" PRIu64 "b at %" PRIu64
	                 "\nl%u: send %" PRIu64 "b to %u tag %lld\nl%u requires l%u\nl%u requires l%u\n",
	                 l0, write ? len : 0, client, IO_TAG, l0 + 1, write ? "write" : "read", len, addr, l0 + 2,
	                 write ? 0 : len, client, IO_TAG, l0 + 1, l0, l0 + 2, l0 + 1))
		return -1;
	if (!(last = ir_hmap_put(&io->lastrep, ((uint64_t)s << 32 | client) + 1, 0, &isnew)))
		return -1;
	if (!isnew && ir_sb_addf(b, "l%u requires l%u\n", l0 + 2, *last))
		return -1;
	*last = l0 + 2;
	io->pieces++;
	return 0;
}

/* Stage the client's side of accessing runs ext[0..n) of file `slot` on the servers; every
 * request send requires staged op `after` (-1: none). */
static int stage_runs(gstate *g, rstate *R, uint32_t slot, int write, const io_ext *ext, size_t n, long after,
                      ir_err *e)
{
	t2g_io *io = g->io;
	pieces ps = { NULL, 0, 0 };
	int rc = -1;
	for (size_t i = 0; i < n; i++)
		if (ir_storage_stripe(&io->c, slot, ext[i].off, ext[i].len, on_piece, &ps))
			goto oom;
	for (size_t i = 0; i < ps.n; i++) {
		uint32_t srank = g->nranks + ps.p[i].server;
		long s = stage(g, IR_OP_SEND, srank, write ? ps.p[i].len : 0, IO_TAG);
		if (s < 0 || stage(g, IR_OP_RECV, srank, write ? 0 : ps.p[i].len, IO_TAG) < 0)
			goto oom;
		if (after >= 0 && cg_dep(g, (uint32_t)after, (uint32_t)s))
			goto oom;
		if (server_req(g, ps.p[i].server, R->rank, write, ps.p[i].addr, ps.p[i].len))
			goto oom;
	}
	rc = 0;
	goto out;
oom:
	ir_errf(e, "out of memory");
out:
	free(ps.p);
	return rc;
}

/* MPI_File_sync: a flush (a 0-byte write, docs/storage.md §4) on every server the file in
 * `slot` is striped over, requested together; the call ends with the last reply. */
static int stage_sync(gstate *g, rstate *R, uint32_t slot, ir_err *e)
{
	t2g_io *io = g->io;
	uint32_t cnt = io->c.stripe_count ? io->c.stripe_count : io->c.servers;
	for (uint32_t k = 0; k < cnt; k++) {
		uint32_t s = (slot + k) % io->c.servers;
		if (stage(g, IR_OP_SEND, g->nranks + s, 0, IO_TAG) < 0 || stage(g, IR_OP_RECV, g->nranks + s, 0, IO_TAG) < 0 ||
		    server_req(g, s, R->rank, 1, (uint64_t)slot * IR_STORAGE_FILE_SPAN, 0))
			return ir_errf(e, "out of memory");
	}
	return 0;
}

/* Bytes of ext[0..n) inside [lo, hi). */
static uint64_t overlap(const io_ext *x, size_t n, uint64_t lo, uint64_t hi)
{
	uint64_t b = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = x[i].off > lo ? x[i].off : lo, z = x[i].off + x[i].len < hi ? x[i].off + x[i].len : hi;
		if (z > a)
			b += z - a;
	}
	return b;
}

static int cmp_ext(const void *x, const void *y)
{
	const io_ext *a = x, *b = y;
	return a->off < b->off ? -1 : a->off > b->off;
}

/* Two-phase collective access (docs/storage.md §5), rank R's part. */
static int stage_coll(gstate *g, rstate *R, const io_acc *me, ir_err *e)
{
	t2g_io *io = g->io;
	const uint32_t *gv = ir_hmap_get(&io->grps, me->ckey + 1, 0);
	const io_grp *gp = &io->grp[*gv];
	uint64_t lo = UINT64_MAX, hi = 0, D;
	uint32_t A, P = (uint32_t)gp->n;
	const io_acc **part = malloc(P * sizeof *part);
	io_ext *runs = NULL;
	size_t nr = 0, capr = 0;
	int rc = -1;
	if (!part)
		return ir_errf(e, "out of memory");
	/* participants in rank order (the pre-pass read ranks in order) */
	for (uint32_t k = 0; k < P; k++) {
		const io_acc *a = part[k] = &io->acc[gp->acc[k]];
		for (size_t i = 0; i < a->n; i++) {
			const io_ext *x = &io->ext[a->first + i];
			if (x->off < lo)
				lo = x->off;
			if (x->off + x->len > hi)
				hi = x->off + x->len;
		}
	}
	if (hi <= lo) {
		rc = 0;
		goto out;
	}
	A = io->c.cb_nodes && io->c.cb_nodes < P ? io->c.cb_nodes : P;
	D = (hi - lo + A - 1) / A;
	for (uint32_t i = 0; i < A; i++) {
		uint32_t agg = part[(uint64_t)i * P / A]->rank;
		uint64_t flo = lo + (uint64_t)i * D, fhi = flo + D < hi ? flo + D : hi;
		long join = -1;
		if (flo >= fhi)
			continue;
		if (agg != R->rank) {
			uint64_t b = overlap(io->ext + me->first, me->n, flo, fhi);
			if (b) {
				if (stage(g, me->write ? IR_OP_SEND : IR_OP_RECV, agg, b, XCHG_TAG) < 0 ||
				    t2g_count_pair(g, me->write ? R->rank : agg, me->write ? agg : R->rank, me->write, e))
					goto oom;
			}
			continue;
		}
		/* the aggregator of domain i: the union of every participant's bytes in it */
		nr = 0;
		for (uint32_t k = 0; k < P; k++) {
			const io_acc *a = part[k];
			for (size_t j = 0; j < a->n; j++) {
				const io_ext *x = &io->ext[a->first + j];
				uint64_t s0 = x->off > flo ? x->off : flo, s1 = x->off + x->len < fhi ? x->off + x->len : fhi;
				if (s1 <= s0)
					continue;
				if (IR_GROW(runs, nr + 1, capr))
					goto oom;
				runs[nr].off = s0;
				runs[nr].len = s1 - s0;
				nr++;
			}
		}
		qsort(runs, nr, sizeof *runs, cmp_ext);
		{
			size_t w = 0;
			for (size_t j = 0; j < nr; j++) {
				if (w && runs[w - 1].off + runs[w - 1].len >= runs[j].off) {
					uint64_t z = runs[j].off + runs[j].len;
					if (z > runs[w - 1].off + runs[w - 1].len)
						runs[w - 1].len = z - runs[w - 1].off;
				} else {
					runs[w++] = runs[j];
				}
			}
			nr = w;
		}
		if (me->write) {
			/* gather, then write */
			size_t first = g->cg.nop;
			for (uint32_t k = 0; k < P; k++) {
				const io_acc *a = part[k];
				uint64_t b;
				long x;
				if (a->rank == R->rank || !(b = overlap(io->ext + a->first, a->n, flo, fhi)))
					continue;
				if ((x = stage(g, IR_OP_RECV, a->rank, b, XCHG_TAG)) < 0 ||
				    t2g_count_pair(g, a->rank, R->rank, 0, e))
					goto oom;
			}
			if ((join = stage(g, IR_OP_CALC, 0, 0, 0)) < 0)
				goto oom;
			for (size_t k = first; k < (size_t)join; k++)
				if (cg_dep(g, (uint32_t)k, (uint32_t)join))
					goto oom;
			if (stage_runs(g, R, me->slot, 1, runs, nr, join, e))
				goto out;
		} else {
			/* read, then scatter */
			size_t first = g->cg.nop;
			if (stage_runs(g, R, me->slot, 0, runs, nr, -1, e))
				goto out;
			if ((join = stage(g, IR_OP_CALC, 0, 0, 0)) < 0)
				goto oom;
			for (size_t k = first; k < g->cg.nop; k++)
				if (g->cg.op[k].type == IR_OP_RECV && cg_dep(g, (uint32_t)k, (uint32_t)join))
					goto oom;
			for (uint32_t k = 0; k < P; k++) {
				const io_acc *a = part[k];
				uint64_t b;
				long x;
				if (a->rank == R->rank || !(b = overlap(io->ext + a->first, a->n, flo, fhi)))
					continue;
				if ((x = stage(g, IR_OP_SEND, a->rank, b, XCHG_TAG)) < 0 ||
				    t2g_count_pair(g, R->rank, a->rank, 1, e) || cg_dep(g, (uint32_t)join, (uint32_t)x))
					goto oom;
			}
		}
	}
	rc = 0;
	goto out;
oom:
	ir_errf(e, "out of memory");
out:
	free(runs);
	free(part);
	return rc;
}

/* A 0-byte calc that ends when the ops staged from `first` of type `type` have ended. */
static long join_ops(gstate *g, size_t first, int type)
{
	long j = stage(g, IR_OP_CALC, 0, 0, 0);
	if (j < 0)
		return -1;
	for (size_t k = first; k < (size_t)j; k++)
		if (g->cg.op[k].type == type && cg_dep(g, (uint32_t)k, (uint32_t)j))
			return -1;
	return j;
}

/* One buffer of data sieving: [off, off+len) read (a write: then written back) after
 * staged op `*after`, which becomes the buffer's last op. */
static int ds_buffer(gstate *g, rstate *R, uint32_t slot, int write, uint64_t off, uint64_t len, long *after,
                     ir_err *e)
{
	io_ext x = { off, len };
	size_t first = g->cg.nop;
	long j;
	if (stage_runs(g, R, slot, 0, &x, 1, *after, e))
		return -1;
	if ((j = join_ops(g, first, IR_OP_RECV)) < 0)
		return ir_errf(e, "out of memory");
	if (write) {
		first = g->cg.nop;
		if (stage_runs(g, R, slot, 1, &x, 1, j, e))
			return -1;
		if ((j = join_ops(g, first, IR_OP_RECV)) < 0)
			return ir_errf(e, "out of memory");
	}
	*after = j;
	return 0;
}

/* ROMIO's data sieving of an independent noncontiguous access (docs/storage.md §8,
 * ADIOI_GEN_WriteStrided and _ReadStrided): buffers of at most `buf` bytes over the
 * extent from the first byte to the last, each starting at the first byte of an extent
 * the previous buffer did not reach (or where the previous one ended, when an extent runs
 * past it); per buffer the whole of it is read and, for a write, written back, one buffer
 * after the other. */
static int stage_sieve(gstate *g, rstate *R, const io_acc *a, uint64_t buf, ir_err *e)
{
	const io_ext *x = g->io->ext + a->first;
	uint64_t hi = 0, bo = 0, be = 0;
	int have = 0;
	long after = -1;
	for (size_t i = 0; i < a->n; i++)
		if (x[i].off + x[i].len > hi)
			hi = x[i].off + x[i].len;
	for (size_t i = 0; i < a->n; i++) {
		uint64_t p = x[i].off, z = x[i].off + x[i].len;
		while (p < z) {
			if (!have || p >= be || p < bo) {
				if (have && ds_buffer(g, R, a->slot, a->write, bo, be - bo, &after, e))
					return -1;
				bo = p;
				be = hi - p < buf ? hi : p + buf;
				have = 1;
			}
			p = z < be ? z : be;
			if (p < z) {
				/* the extent runs past the buffer: the next one starts where it ends */
				if (ds_buffer(g, R, a->slot, a->write, bo, be - bo, &after, e))
					return -1;
				bo = be;
				be = hi - bo < buf ? hi : bo + buf;
			}
		}
	}
	if (have && ds_buffer(g, R, a->slot, a->write, bo, be - bo, &after, e))
		return -1;
	return 0;
}

int t2g_do_io(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	t2g_io *io = g->io;
	const io_acc *a;
	emitted em;
	if (!io || ci->k == C_FOPEN || (ci->k == C_FCLOSE && !io->c.flush_on_close) || ci->k == C_FVIEW ||
	    ci->k == C_FSEEK || ci->k == C_FDELETE || ci->k == C_FMETA)
		return 0; /* no servers, or no data moved: the call's time stays computation */
	if (io->rnext[R->rank] >= io->rn[R->rank])
		return t2g_errat(R, e, "%s: not seen when the file accesses were read (a trace that changed?)", r->name);
	a = &io->acc[io->rfirst[R->rank] + io->rnext[R->rank]++];
	if (a->sync != (ci->k == C_FSYNC || ci->k == C_FCLOSE))
		return t2g_errat(R, e, "%s: not seen when the file accesses were read (a trace that changed?)", r->name);
	if (a->sync) {
		if (stage_sync(g, R, a->slot, e))
			return -1;
	} else if (a->coll && a->how != A_ORDERED) {
		if (stage_coll(g, R, a, e))
			return -1;
	} else if (a->n > 1 && (a->write ? io->c.ds_write : io->c.ds_read)) {
		if (stage_sieve(g, R, a, a->write ? io->c.ds_wr_buf : io->c.ds_rd_buf, e))
			return -1;
	} else if (stage_runs(g, R, a->slot, a->write, io->ext + a->first, a->n, -1, e)) {
		return -1;
	}
	if (!a->nb)
		return t2g_emit_call(g, R, r, ENDS_OPS, 0, 0, &em, e);
	if (t2g_emit_call(g, R, r, ENDS_GAP, 1, 0, &em, e))
		return -1;
	return t2g_reg_nbcoll(g, R, r, ci, &em, e);
}

/* The server ranks' blocks, after the application's. */
int t2g_io_servers(gstate *g, ir_err *e)
{
	t2g_io *io = g->io;
	char head[48];
	for (uint32_t s = 0; io && s < io->c.servers; s++) {
		int n = snprintf(head, sizeof head, "rank %u {\n", g->nranks + s);
		if (t2g_write_out(g, head, (size_t)n, e) || t2g_write_out(g, io->srv[s].buf, io->srv[s].len, e) ||
		    t2g_write_out(g, "}\n", 2, e))
			return -1;
	}
	return 0;
}
