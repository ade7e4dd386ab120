/*
 * ir_t2g_wait.c: trace2goal's Wait and Test calls (part of ir_t2g, see
 * ir_t2g_internal.h).
 *
 * Reads the request arrays and statuses of the Wait/Test family, guesses
 * which requests a liballprof Waitany/Waitsome completed when the trace does
 * not say, resolves wildcard receives from their statuses, and hands the
 * completed requests to t2g_complete() (ir_t2g_p2p.c).
 */
#include "ir_t2g_internal.h"

/* ------------------------------------------------------------------ requests of Wait/Test */

/* Keys of a request array field: allprof "r1,r2" or a liballprof base address (+8 per entry). */
int t2g_req_array(const rstate *R, const ir_rec *r, unsigned i, int64_t count, uint64_t **keys, ir_err *e)
{
	const char *f = r->f[i];
	uint64_t *k;
	if (count < 0 || count > (1 << 24))
		return t2g_errat(R, e, "%s: request count %" PRId64 " out of range", r->name, count);
	k = malloc(((size_t)count + 1) * sizeof *k);
	if (!k)
		return ir_errf(e, "out of memory");
	if (count == 0 && strcmp(f, "-") == 0) { /* allprof: no requests (formats/trace.md 3.4) */
		*keys = k;
		return 0;
	}
	if (f[0] == 'r') {
		const char *p = f;
		int64_t n = 0;
		while (*p && n < count) {
			uint64_t v = 0;
			int nd = 0;
			if (*p == 'r')
				p++;
			while (*p >= '0' && *p <= '9' && nd < 19) {
				v = v * 10 + (uint64_t)(*p++ - '0');
				nd++;
			}
			if (!nd) {
				free(k);
				return t2g_bad_arg(R, r, i, "request ids 'r<n>,r<n>,...'", e);
			}
			k[n++] = v | ((uint64_t)1 << 63);
			if (*p == ',')
				p++;
		}
		while (n < count)
			k[n++] = 0;
	} else {
		uint64_t base;
		if (arg_u64(R, r, i, &base, e)) {
			free(k);
			return -1;
		}
		for (int64_t j = 0; j < count; j++)
			k[j] = base ? base + 8 * (uint64_t)j : 0;
	}
	*keys = k;
	return 0;
}

/* liballprof records neither which request a Waitany/Waitsome completed nor whether a Test
 * succeeded: say once per rank how that was resolved (docs/trace2goal.md, section 3). */
static void warn_guess(gstate *g, rstate *R, const ir_rec *r, int test)
{
	if (test) {
		g->test_never++;
		if (!R->warned_test++)
			t2g_warn(g, "%s:%lu: %s: liballprof traces do not record whether a test succeeded: tests complete no "
			         "request on this rank (their time counts as computation; a later wait completes the request)",
			         R->fname, R->line, r->name);
	} else {
		g->any_guess++;
		if (!R->warned_any++)
			t2g_warn(g, "%s:%lu: %s: liballprof traces do not record which request completed: the earliest posted "
			         "active one is taken, on this rank and below", R->fname, R->line, r->name);
	}
}

/* The real source, tag and size of the deferred wildcard receives among the requests
 * keys[0..n) that an allprof Wait/Test-family call completed, from its status field i (n
 * statuses joined by ';', entry j for keys[j]; a single status when n is 1). A status names
 * a source relative to the receive's communicator and the application's tag: both are mapped
 * as for the matching send (world_of, p2p_tag). *st is NULL when no request needs a status
 * (nothing allocated); otherwise st[j] is the source (INT64_MIN: unknown, the receive stays a
 * wildcard; ANY: the status names MPI_ANY_SOURCE, the receive was cancelled), st[n + j] the
 * tag, st[2n + j] the bytes. */
static int wild_statuses(gstate *g, rstate *R, const ir_rec *r, unsigned i, const uint64_t *keys, size_t n,
                         int64_t **st, ir_err *e)
{
	const char *f, *p;
	int64_t *v;
	size_t j;
	*st = NULL;
	if (R->flavor != IR_TRACE_ALLPROF || i >= r->nf)
		return 0;
	for (j = 0; j < n; j++) {
		req *q = keys[j] ? req_get(R, keys[j]) : NULL;
		if (q && q->label != NOLABEL && q->deferred)
			break;
	}
	if (j == n)
		return 0;
	v = malloc(3 * n * sizeof *v);
	if (!v)
		return ir_errf(e, "out of memory");
	f = r->f[i];
	p = f;
	for (j = 0; j < n; j++) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		req *q = keys[j] ? req_get(R, keys[j]) : NULL;
		uint64_t bytes = 0;
		v[j] = INT64_MIN;
		v[n + j] = 0;
		v[2 * n + j] = 0;
		if (q && q->label != NOLABEL && q->deferred) {
			cref cr = { 0 };
			comm kc = { 0 };
			kc.key = q->ckey;
			cr.size = q->csize;
			cr.members = q->members;
			cr.c = q->cworld ? &R->world : &kc;
			if (t2g_status_str(g, R, p, len, &cr, &v[j], &v[n + j], &bytes))
				v[2 * n + j] = (int64_t)bytes;
			else if (len >= 3 && !strncmp(p, "-1,", 3))
				v[j] = ANY; /* source MPI_ANY_SOURCE: cancelled (see t2g_complete()) */
			else
				v[j] = INT64_MIN;
		}
		p = end ? end + 1 : p + len;
	}
	*st = v;
	return 0;
}

/* t2g_complete() with the recorded statuses of field i for the deferred wildcards among keys. */
static int complete_st(gstate *g, rstate *R, const ir_rec *r, const uint64_t *keys, size_t n, unsigned i, ir_err *e)
{
	int64_t *st;
	int rc;
	if (wild_statuses(g, R, r, i, keys, n, &st, e))
		return -1;
	if (!st)
		return t2g_complete(g, R, r, keys, n, NULL, NULL, NULL, e);
	rc = t2g_complete(g, R, r, keys, n, st, st + n, (const uint64_t *)(st + 2 * n), e);
	free(st);
	return rc;
}

int t2g_do_wait_family(gstate *g, rstate *R, const ir_rec *r, const callinfo *ci, ir_err *e)
{
	uint64_t key, *keys = NULL;
	int64_t count = 1, idx;
	int rc = 0;
	int allprof = R->flavor == IR_TRACE_ALLPROF;
	switch (ci->k) {
	case C_WAIT: /* request status */
	case C_TEST: /* request flag status */
		if (arg_req(R, r, ci->k == C_WAIT ? F_MPI_Wait_request : F_MPI_Test_request, &key, e))
			return -1;
		if (ci->k == C_TEST) {
			int64_t flag = 0;
			/* liballprof writes the flag's address: a Test is then a poll that completes nothing */
			if (!allprof) {
				warn_guess(g, R, r, 1);
				return 0;
			}
			if (ir_tf_int(r->f[F_MPI_Test_flag], &flag) || flag != 1)
				return 0;
		}
		return complete_st(g, R, r, &key, 1, ci->k == C_WAIT ? F_MPI_Wait_status : F_MPI_Test_status, e);
	case C_WAITALL:  /* count requests statuses */
	case C_TESTALL:  /* count requests flag statuses */
		if (arg_count(R, r, ci->k == C_WAITALL ? F_MPI_Waitall_count : F_MPI_Testall_count, &count, e) ||
		    t2g_req_array(R, r, ci->k == C_WAITALL ? F_MPI_Waitall_requests : F_MPI_Testall_requests, count, &keys, e))
			return -1;
		if (ci->k == C_TESTALL) {
			int64_t flag = 0;
			if (!allprof)
				warn_guess(g, R, r, 1);
			if (!allprof || ir_tf_int(r->f[F_MPI_Testall_flag], &flag) || flag != 1) {
				free(keys);
				return 0;
			}
		}
		rc = complete_st(g, R, r, keys, (size_t)count,
		                 ci->k == C_WAITALL ? F_MPI_Waitall_statuses : F_MPI_Testall_statuses, e);
		free(keys);
		return rc;
	case C_WAITANY: /* count requests index status */
	case C_TESTANY: /* count requests index flag status */
		if (arg_count(R, r, ci->k == C_WAITANY ? F_MPI_Waitany_count : F_MPI_Testany_count, &count, e) ||
		    t2g_req_array(R, r, ci->k == C_WAITANY ? F_MPI_Waitany_requests : F_MPI_Testany_requests, count, &keys, e))
			return -1;
		if (allprof) {
			if (ir_tf_int(r->f[ci->k == C_WAITANY ? F_MPI_Waitany_index : F_MPI_Testany_index], &idx) || idx < 0 ||
			    idx >= count) {
				free(keys);
				return 0; /* MPI_UNDEFINED or not completed */
			}
		} else {
			/* liballprof does not say which completed: the earliest posted active one */
			int64_t best = -1, bseq = INT64_MAX;
			if (ci->k == C_TESTANY) {
				warn_guess(g, R, r, 1);
				free(keys);
				return 0;
			}
			for (int64_t j = 0; j < count; j++) {
				req *q = req_get(R, keys[j]);
				if (q && q->label != NOLABEL && q->seq < bseq) {
					bseq = q->seq;
					best = j;
				}
			}
			idx = best;
			if (idx >= 0)
				warn_guess(g, R, r, 0);
			if (idx < 0) {
				free(keys);
				return 0;
			}
		}
		/* allprof only (liballprof returned above or guessed): the recorded status */
		if (allprof)
			rc = complete_st(g, R, r, &keys[idx], 1, ci->k == C_WAITANY ? F_MPI_Waitany_status : F_MPI_Testany_status,
			                 e);
		else
			rc = t2g_complete(g, R, r, &keys[idx], 1, NULL, NULL, NULL, e);
		free(keys);
		return rc;
	case C_WAITSOME: /* incount requests outcount indices statuses */
	case C_TESTSOME: {
		uint64_t *ix, *sel;
		long n;
		/* Waitsome and Testsome have the same fields */
		_Static_assert(F_MPI_Waitsome_incount == F_MPI_Testsome_incount &&
		                   F_MPI_Waitsome_requests == F_MPI_Testsome_requests &&
		                   F_MPI_Waitsome_indices == F_MPI_Testsome_indices &&
		                   F_MPI_Waitsome_statuses == F_MPI_Testsome_statuses,
		               "Waitsome and Testsome have the same fields");
		if (arg_count(R, r, F_MPI_Waitsome_incount, &count, e) ||
		    t2g_req_array(R, r, F_MPI_Waitsome_requests, count, &keys, e))
			return -1;
		if (!allprof) {
			if (ci->k == C_WAITSOME) {
				/* as Waitany: the earliest posted active request */
				int64_t best = -1, bseq = INT64_MAX;
				for (int64_t j = 0; j < count; j++) {
					req *q = req_get(R, keys[j]);
					if (q && q->label != NOLABEL && q->seq < bseq) {
						bseq = q->seq;
						best = j;
					}
				}
				if (best >= 0) {
					warn_guess(g, R, r, 0);
					rc = t2g_complete(g, R, r, &keys[best], 1, NULL, NULL, NULL, e);
				}
			} else {
				warn_guess(g, R, r, 1);
			}
			free(keys);
			return rc;
		}
		ix = malloc(((size_t)count + 1) * sizeof *ix);
		sel = malloc(((size_t)count + 1) * sizeof *sel);
		if (!ix || !sel) {
			free(ix);
			free(sel);
			free(keys);
			return ir_errf(e, "out of memory");
		}
		n = ir_tf_list(r->f[F_MPI_Waitsome_indices], ix, (size_t)count);
		if (n < 0)
			n = 0;
		for (long j = 0; j < n; j++)
			sel[j] = ix[j] < (uint64_t)count ? keys[ix[j]] : 0;
		rc = complete_st(g, R, r, sel, (size_t)n, F_MPI_Waitsome_statuses, e);
		free(ix);
		free(sel);
		free(keys);
		return rc;
	}
	default:
		return 0;
	}
}
