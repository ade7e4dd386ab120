/*
 * trace2goal: the traces of one MPI run to a GOAL schedule (GOAL text on
 * stdout or -o FILE). Options are parsed and checked against each other
 * here; the conversion is lib/ir_t2g*.c, the trace reading lib/ir_trace.c,
 * the collective algorithms lib/ir_coll.c. See docs/man/trace2goal.1.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir_cli.h"
#include "ir_coll.h"
#include "ir_io.h"
#include "ir_model.h"
#include "ir_num.h"
#include "ir_otf2.h"
#include "ir_params.h"
#include "ir_strbuf.h"
#include "ir_t2g.h"
#include "ir_trace.h"

/* libotf2 3.0 leaks its archive handle when OTF2_Reader_Open fails on a corrupt anchor file
 * (otf2_archive_open, otf2_file_posix_open); not ours to free, so LeakSanitizer is told. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libopen-trace-format2.so\n";
}

static void usage(void)
{
	printf("Usage: trace2goal [OPTION]... TRACE-DIR|TRACE-FILE...\n"
	       "   or: trace2goal [OPTION]... OTF2-ANCHOR|OTF2-DIR\n"
	       "Convert the per-rank MPI traces of one run (liballprof or allprof), or an OTF2\n"
	       "archive (its anchor file *.otf2 or its directory), into a GOAL schedule.\n"
	       "\n"
	       "  -o, --output FILE        write the schedule to FILE (.zst: compressed), not stdout\n"
	       "  -p, --params FILE        parameters: pin_a, pin_b; the message model for\n"
	       "                           --durations (L o g G O S o_rndv O_rndv O_send\n"
	       "                           O_send_rndv, or send_o recv_o net_L; copy prices a\n"
	       "                           message to self); the local work of collectives\n"
	       "                           as calcs: copy (a rank's own block), reduce\n"
	       "                           (combining received data); MPI-IO: storage_servers,\n"
	       "                           stripe_size, stripe_count, cb_nodes, flush_on_close,\n"
	       "                           romio_ds_write, romio_ds_read, ind_wr_buffer_size,\n"
	       "                           ind_rd_buffer_size (docs/storage.md)\n"
	       "      --from-params FILE   the traced network's parameters (default: -p): the\n"
	       "                           message model that prices the messages of window\n"
	       "                           creation, free and fence where the traced time is\n"
	       "                           split into messages and local work, and the default\n"
	       "                           of --poll-from (its 'poll' key)\n"
	       "      --rank-pattern RE    PCRE2 pattern giving the rank from a file name\n"
	       "                           (default '(\\d+)\\D*$': the last integer)\n"
	       "      --compat schedgen    convert as LogGOPSim's Schedgen does (without its bugs)\n"
	       "      --coll SPEC          collective algorithms, e.g. allreduce=ring,bcast=binomial\n"
	       "                           (iallreduce=...: the nonblocking form)\n"
	       "      --list-coll          list collectives, their algorithms and defaults, and exit\n"
	       "      --no-clock-offsets   do not correct times by the traces' clock offsets\n"
	       "      --pin A,B            pinning cost: first use of N buffer bytes adds calc A+B*N\n"
	       "      --cpu-scale F        multiply every calc by F (0: infinitely fast CPU)\n"
	       "      --calc WHAT          what a gap between calls becomes: wall (default: the\n"
	       "                           clock time) or cpu (the thread's CPU time in it, from\n"
	       "                           traces of allprof --cpu-time: for a run whose ranks\n"
	       "                           outnumbered the cores, simulated with shared cores)\n"
	       "      --tracer-time WHAT   the tracer's own time after each return, which allprof\n"
	       "                           says at the end of a trace: remove takes it out of the\n"
	       "                           gaps, keep leaves it as computation (default: remove,\n"
	       "                           keep with --durations, which replays the recorded run)\n"
	       "      --from RE            start at the K-th call whose name matches RE (each rank)\n"
	       "      --from-nth K         which match of --from starts the phase (default 1)\n"
	       "      --to RE              stop after the first call matching RE after the start\n"
	       "      --poll-from T        one unsuccessful poll (Iprobe, Test...) on the traced network\n"
	       "                           (default with --durations: the 'poll' key of -p)\n"
	       "      --poll-to T          the same on the target network (default without\n"
	       "                           --durations: the 'poll' key of -p); with both, a run of\n"
	       "                           polls that ends in a wait is left to the replay, other\n"
	       "                           polls cost T each (docs/trace2goal.md section 2.1)\n"
	       "      --poll-tests HOW     a run of polls alone ended by a successful Test: auto\n"
	       "                           (default: a wait in a rank that never leaves such a run\n"
	       "                           before a completion, work in the others), work (its\n"
	       "                           polls cost T each), wait (left to the replay) or overlap\n"
	       "                           (its polls at T each beside the wait: it lasts the longer\n"
	       "                           of the two); waits need traces with '# collapse gap:',\n"
	       "                           never with --durations\n"
	       "      --durations          replay each call's own duration minus the modelled network time\n"
	       "      --sync               with --durations: replay a waiting call's duration from the\n"
	       "                           latest entry of the ranks it waits for (no waiting twice)\n"
	       "  -q, --quiet              no warnings\n"
	       "  -h, --help               show this help and exit\n"
	       "      --version            show the version and exit\n"
	       "\n"
	       "Exit status: 0 success, 1 bad trace or failed output, 2 usage error.\n");
}

/* An option of two values: *out = 0 for the first, 1 for the second; else a usage error. */
static int choice(const char *opt, const char *arg, const char *v0, const char *v1, int *out)
{
	if (!strcmp(arg, v0))
		*out = 0;
	else if (!strcmp(arg, v1))
		*out = 1;
	else
		return ir_cli_usage("unknown %s '%s' (%s or %s)", opt, arg, v0, v1);
	return 0;
}

static void warn_cb(void *ctx, const char *msg)
{
	if (!*(int *)ctx)
		ir_cli_warnf("%s", msg);
}

enum { O_RANKPAT = 256, O_COMPAT, O_COLL, O_LISTCOLL, O_NOCLOCK, O_PIN, O_CPUSCALE, O_FROM, O_FROMNTH, O_TO,
       O_DUR, O_SYNC, O_POLLFROM, O_POLLTO, O_POLLTESTS, O_FROMPARAMS, O_CALC, O_TRACER, O_VERSION };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "params", required_argument, NULL, 'p' },
		{ "rank-pattern", required_argument, NULL, O_RANKPAT },
		{ "compat", required_argument, NULL, O_COMPAT },
		{ "coll", required_argument, NULL, O_COLL },
		{ "list-coll", no_argument, NULL, O_LISTCOLL },
		{ "no-clock-offsets", no_argument, NULL, O_NOCLOCK },
		{ "pin", required_argument, NULL, O_PIN },
		{ "cpu-scale", required_argument, NULL, O_CPUSCALE },
		{ "calc", required_argument, NULL, O_CALC },
		{ "tracer-time", required_argument, NULL, O_TRACER },
		{ "from", required_argument, NULL, O_FROM },
		{ "from-nth", required_argument, NULL, O_FROMNTH },
		{ "to", required_argument, NULL, O_TO },
		{ "durations", no_argument, NULL, O_DUR },
		{ "sync", no_argument, NULL, O_SYNC },
		{ "poll-from", required_argument, NULL, O_POLLFROM },
		{ "poll-to", required_argument, NULL, O_POLLTO },
		{ "poll-tests", required_argument, NULL, O_POLLTESTS },
		{ "from-params", required_argument, NULL, O_FROMPARAMS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int tracer_set = 0;
	const char *poll_tests = NULL; /* --poll-tests as given */
	ir_t2g_opts o;
	ir_t2g_stats st;
	ir_trace_files files = { NULL, 0 };
	ir_params *params = NULL;
	ir_writer *w = NULL;
	ir_err e;
	const char *out = "-", *pattern = NULL, *pfile = NULL, *fromfile = NULL, *pin = NULL, *from_nth = NULL;
	int c, rc, quiet = 0, status = IR_EXIT_BAD, sync = 0;

	ir_cli_init("trace2goal");
	ir_t2g_opts_init(&o);
	while ((c = getopt_long(argc, argv, "o:p:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'p':
			pfile = optarg;
			break;
		case O_FROMPARAMS:
			fromfile = optarg;
			break;
		case O_RANKPAT:
			pattern = optarg;
			break;
		case O_COMPAT:
			if (strcmp(optarg, "schedgen") != 0)
				return ir_cli_usage("invalid --compat '%s' (expected 'schedgen')", optarg);
			o.compat_schedgen = 1;
			break;
		case O_COLL:
			if (ir_coll_parse_spec(optarg, o.coll, &e))
				return ir_cli_usage("%s", e.msg);
			break;
		case O_LISTCOLL:
			/* nonblocking forms: '*' few ranks and small messages, '+' many ranks or large */
			for (int sel = 0; sel < IR_COLL_NSEL; sel++) {
				int k = sel % IR_COLL_NKINDS, nb = sel >= IR_COLL_NKINDS;
				if (nb && !ir_coll_has_nb(k))
					continue;
				int d = nb ? (int)ir_coll_default_nb(k, 2, 0, 0) : (int)ir_coll_default(k);
				int big = nb ? (int)ir_coll_default_nb(k, 64, 1 << 20, 0) : d;
				printf("%s%s\t", nb ? "i" : "", ir_coll_kind_name(k));
				for (int a = 1, n = 0; a < IR_ALG_NALGS; a++)
					if (ir_coll_has(k, a))
						printf("%s%s%s", n++ ? "," : "", ir_coll_alg_name(a),
						       a == d ? "*" : a == big ? "+" : "");
				printf("\n");
			}
			return ir_cli_finish(IR_EXIT_OK);
		case O_NOCLOCK:
			o.no_clock = 1;
			break;
		case O_PIN:
			pin = optarg;
			break;
		case O_CPUSCALE:
			if (ir_parse_double(optarg, &o.cpu_scale, "--cpu-scale", &e))
				return ir_cli_usage("%s", e.msg);
			if (o.cpu_scale < 0 || o.cpu_scale > 1e6)
				return ir_cli_usage("invalid --cpu-scale '%s' (expected a factor from 0 to 1e6)", optarg);
			break;
		case O_FROM:
			o.from_re = optarg;
			break;
		case O_FROMNTH:
			from_nth = optarg;
			break;
		case O_TO:
			o.to_re = optarg;
			break;
		case O_DUR:
			o.durations = 1;
			break;
		case O_SYNC:
			sync = 1;
			break;
		case O_TRACER:
			tracer_set = 1;
			if ((rc = choice("--tracer-time", optarg, "remove", "keep", &o.keep_tracer)))
				return rc;
			break;
		case O_POLLTESTS:
			poll_tests = optarg;
			if (!strcmp(optarg, "overlap"))
				o.poll_test_wait = IR_T2G_POLL_OVERLAP;
			else if (!strcmp(optarg, "auto"))
				o.poll_test_wait = IR_T2G_POLL_AUTO;
			else if (!strcmp(optarg, "work") || !strcmp(optarg, "wait"))
				o.poll_test_wait = !strcmp(optarg, "wait") ? IR_T2G_POLL_WAIT : IR_T2G_POLL_WORK;
			else
				return ir_cli_usage("unknown --poll-tests '%s' (auto, work, wait or overlap)", optarg);
			break;
		case O_CALC:
			if ((rc = choice("--calc", optarg, "wall", "cpu", &o.calc_cpu)))
				return rc;
			break;
		case O_POLLFROM:
		case O_POLLTO: {
			uint64_t v;
			if (ir_parse_time(optarg, &v, c == O_POLLFROM ? "--poll-from" : "--poll-to", &e))
				return ir_cli_usage("%s", e.msg);
			if (v > (uint64_t)1000000000000)
				return ir_cli_usage("invalid %s '%s' (expected a time up to 1 s)",
				                    c == O_POLLFROM ? "--poll-from" : "--poll-to", optarg);
			*(c == O_POLLFROM ? &o.poll_from : &o.poll_to) = (int64_t)v;
			break;
		}
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage();
			return ir_cli_finish(IR_EXIT_OK);
		case O_VERSION:
			ir_cli_version();
			return ir_cli_finish(IR_EXIT_OK);
		default:
			fprintf(stderr, "Try '%s --help' for more information.\n", ir_cli_prog());
			return IR_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return ir_cli_usage("no traces given (a trace directory or trace files)");
	if (from_nth) {
		uint64_t k;
		if (ir_parse_range(from_nth, 1, 1000000000, &k, "--from-nth", &e))
			return ir_cli_usage("%s", e.msg);
		if (!o.from_re)
			return ir_cli_usage("--from-nth needs --from");
		o.from_nth = (unsigned long)k;
	}
	if (o.to_re && !o.from_re) {
		/* --to alone: the phase starts at the beginning */
		o.from_re = "^MPI_Init";
	}
	/* the default, auto, takes no run for a wait with --durations (docs/trace2goal.md 2.1) */
	if (poll_tests && o.poll_test_wait != IR_T2G_POLL_WORK && o.durations)
		return ir_cli_usage("--poll-tests %s cannot be used with --durations (no call's duration replays such a wait)",
		                    poll_tests);
	if (sync) {
		if (!o.durations)
			return ir_cli_usage("--sync needs --durations");
		if (o.compat_schedgen)
			return ir_cli_usage("--sync cannot be used with --compat schedgen");
		if (o.calc_cpu)
			return ir_cli_usage("--sync replays the clock: it cannot be used with --calc cpu");
		o.sync = 1;
	}
	/* --durations replays the recorded run's own times: by default it keeps the tracer's too
	 * (docs/trace2goal.md §7) */
	if (!tracer_set)
		o.keep_tracer = o.durations;
	if (fromfile && o.durations)
		return ir_cli_usage("--from-params is for the plain conversion: with --durations, -p gives the traced network");
	o.warn = warn_cb;
	o.warn_ctx = &quiet;
	if (pfile) {
		uint64_t v;
		int r;
		params = ir_params_new();
		if (!params) {
			ir_cli_failf("out of memory");
			goto done;
		}
		if (ir_params_load(params, pfile, &e)) {
			ir_cli_fail(&e);
			goto done;
		}
		if ((r = ir_params_time(params, "pin_a", &v, &e)) < 0) {
			ir_cli_fail(&e);
			goto done;
		}
		if (r > 0) {
			o.pin = 1;
			o.pin_a = (double)v;
		}
		if ((r = ir_params_time(params, "pin_b", &v, &e)) < 0) {
			ir_cli_fail(&e);
			goto done;
		}
		if (r > 0) {
			o.pin = 1;
			o.pin_b = (double)v;
		}
		/* the message model, as ibsim reads it: --durations, --sync, local work; the
		 * storage servers of MPI-IO (docs/storage.md) */
		if (ir_loggops_load(&o.net, params, &e) || ir_storage_load(&o.storage, params, &e)) {
			ir_cli_fail(&e);
			goto done;
		}
		/* the poll cost of the network -p describes: the traced one with --durations */
		if ((r = ir_params_time(params, "poll", &v, &e)) < 0) {
			ir_cli_fail(&e);
			goto done;
		}
		if (r > 0) {
			int64_t *side = o.durations ? &o.poll_from : &o.poll_to;
			if (*side < 0)
				*side = (int64_t)v;
		}
	}
	if (fromfile) {
		/* the traced network: its message model and its poll */
		ir_params *fp = ir_params_new();
		uint64_t v;
		int r;
		if (!fp) {
			ir_cli_failf("out of memory");
			goto done;
		}
		if (ir_params_load(fp, fromfile, &e) || ir_loggops_load(&o.from, fp, &e) ||
		    (r = ir_params_time(fp, "poll", &v, &e)) < 0) {
			ir_params_free(fp);
			ir_cli_fail(&e);
			goto done;
		}
		if (r > 0 && o.poll_from < 0)
			o.poll_from = (int64_t)v;
		o.has_from = 1;
		ir_params_free(fp);
	}
	if (pin) {
		char a[64], *comma = strchr(pin, ',');
		uint64_t pa, pb;
		if (!comma || (size_t)(comma - pin) >= sizeof a)
			return ir_cli_usage("invalid --pin '%s' (expected A,B: times, e.g. 166us,3ns)", pin);
		memcpy(a, pin, (size_t)(comma - pin));
		a[comma - pin] = 0;
		if (ir_parse_time(a, &pa, "--pin A", &e) || ir_parse_time(comma + 1, &pb, "--pin B", &e)) {
			ir_params_free(params);
			return ir_cli_usage("%s", e.msg);
		}
		o.pin = 1;
		o.pin_a = (double)pa;
		o.pin_b = (double)pb;
	}
	{
		char *anchor = NULL;
		int otf2 = 0;
		for (int i = optind; i < argc; i++) {
			char *a = NULL;
			if (ir_otf2_detect(argv[i], &a)) {
				otf2 = 1;
				if (argc - optind > 1) {
					free(a);
					free(anchor);
					ir_params_free(params);
					return ir_cli_usage("an OTF2 archive must be the only trace argument");
				}
				anchor = a;
			}
		}
		if (otf2) {
			ir_otf2_stats os;
			if (pattern) {
				free(anchor);
				ir_params_free(params);
				return ir_cli_usage("--rank-pattern does not apply to an OTF2 archive");
			}
			if (ir_otf2_load(&files, anchor, &os, &e)) {
				free(anchor);
				ir_cli_fail(&e);
				goto done;
			}
			if (!quiet && os.nskipped) {
				ir_sb sb = IR_SB_INIT;
				uint64_t total = 0;
				for (size_t i = 0; i < os.nskipped; i++) {
					total += os.skipped[i].count;
					ir_sb_addf(&sb, "%s%s (%" PRIu64 ")", i ? ", " : "", os.skipped[i].name, os.skipped[i].count);
				}
				ir_cli_warnf("%s: %" PRIu64 " call%s the archive cannot express or the reader does not convert "
				             "(their time counts as computation): %s", anchor, total, total == 1 ? "" : "s", sb.buf);
				ir_sb_release(&sb);
			}
			ir_otf2_stats_release(&os);
			free(anchor);
		} else if (ir_trace_discover(&files, argv + optind, (size_t)(argc - optind), pattern, &e)) {
			ir_cli_fail(&e);
			goto done;
		}
	}
	w = ir_writer_open(out, 0, &e);
	if (!w) {
		ir_cli_fail(&e);
		goto done;
	}
	if (ir_t2g_convert(&files, &o, w, &st, &e)) {
		ir_cli_fail(&e);
		ir_writer_abort(w);
		w = NULL;
		goto done;
	}
	if (ir_writer_close(w, &e)) {
		w = NULL;
		ir_cli_fail(&e);
		goto done;
	}
	w = NULL;
	status = IR_EXIT_OK;
done:
	ir_writer_abort(w);
	ir_trace_files_release(&files);
	ir_params_free(params);
	return ir_cli_finish(status);
}
