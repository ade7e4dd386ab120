/*
 * calib: fit the overheads of the LogGOPS model (o, O per protocol, S, and
 * the pinning cost) to a measured ping-pong, and with netcal's traces the
 * piecewise functions send_o, recv_o, net_L, copy and reduce
 * (formats/calibration.md), and write them as a parameter file
 * (formats/params.md) that ibsim and trace2goal read.
 *
 * main() parses the options, reads the network parameters (-p), reads the
 * measurements (a TSV, or ping-pong traces), has the library simulate the
 * network's own times and fit the lines (lib/ir_calib.c), then writes the
 * parameter file to standard output (or -o), a table to standard error and,
 * with --plot, pipes a gnuplot script to gnuplot.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "ir_calib.h"
#include "ir_calib_io.h"
#include "ir_cli.h"
#include "ir_io.h"
#include "ir_net.h"
#include "ir_num.h"
#include "ir_params.h"
#include "ir_strbuf.h"

static void usage(void)
{
	printf("Usage: calib [options] TRACEDIR|TSV\n"
	       "   or: calib [options] TRACE...\n"
	       "   or: calib --yield --cores N [--cpu-bind none|core] [-p FILE] [-o FILE] RUN...\n"
	       "   or: calib --io [-o FILE] [-q] TRACEDIR...\n"
	       "   or: calib --compare [--tolerance PCT] [-o FILE] PARAMS_A PARAMS_B\n"
	       "Fit the cost model of a cluster to a measured ping-pong or netcal run and\n"
	       "write a parameter file (formats/params.md) on standard output.\n"
	       "\n"
	       "Input: a directory (or the files) of ping-pong traces (allprof or liballprof;\n"
	       "rank 0 sends to rank 1 and receives the message back, several times per\n"
	       "size, the first time on a fresh buffer), or a TSV of rows\n"
	       "'size_bytes real_us [sim_us]' (one-way times; '-' is standard input).\n"
	       "Traces of samples/apps/netcal (found by their tags, formats/calibration.md)\n"
	       "also give the piecewise functions send_o, recv_o, net_L, copy and reduce.\n"
	       "Several directories are several runs (each its ranks' traces), pooled: every\n"
	       "median is then over all their repetitions.\n"
	       "With --io the input is traces of samples/apps/iocal (an MPI-IO benchmark) and\n"
	       "calib fits the storage model's disk and cache keys instead (cache_G, disk_G,\n"
	       "disk_sync, disk_access, disk_track_seek, disk_read_G; formats/calibration.md,\n"
	       "\"Storage: iocal\"), each with its 95 %% uncertainty, and says which keys the\n"
	       "disk cannot identify.\n"
	       "\n"
	       "Options (times: integer picoseconds or a unit ps ns us ms s):\n"
	       "  -p, --params FILE   network parameters (L g G ...); o and O are fitted\n"
	       "  -n, --net NAME      network for the network-only times: loggops (default) or ib\n"
	       "      --topo SPEC     ib: topology (default: one switch); other ib keys in -p\n"
	       "  -S SIZE             largest eager message (default: the breakpoint that\n"
	       "                      minimises the residual)\n"
	       "  -m, --model NAME    overheads (default): o, O per protocol on top of the\n"
	       "                      network; loggp: L, o, G of the pure LogGP network\n"
	       "      --unweighted    plain least squares (default: relative residuals, so\n"
	       "                      that small messages count as much as large ones)\n"
	       "      --overhead T    loggp: the CPU overhead o (default: measured from the\n"
	       "                      send calls of the smallest message)\n"
	       "      --plot FILE     draw the points and the fitted lines (FILE.png or FILE.svg;\n"
	       "                      needs gnuplot)\n"
	       "      --io            fit the storage keys to traces of samples/apps/iocal\n"
	       "      --estimator mean|median  what a size's repetitions give the fit: their\n"
	       "                      mean winsorized at 1 %% (default: a replay sums the\n"
	       "                      costs) or their median\n"
	       "      --keep-slowed   netcal: keep what was measured between two pulses that\n"
	       "                      found the machine slowed (default: set it aside)\n"
	       "      --state-ref T   netcal: the network's undisturbed 0-byte round trip, known\n"
	       "                      from elsewhere; a pulse more than 25 %% above the smaller\n"
	       "                      of T and its phase's own 10th percentile found the machine\n"
	       "                      slowed (a phase slowed all through is then seen too)\n"
	       "      --tracer-time remove|keep  netcal: remove the tracer's share of a\n"
	       "                      message (its untraced blocks against its pulses) from\n"
	       "                      the times fitted (the default), or keep it\n"
	       "      --intra         the run was of two ranks on one host: write the intra-node\n"
	       "                      model (intra_send_o, intra_recv_o, intra_net_L, intra_S)\n"
	       "      --compare       compare two parameter files of calib (piecewise model)\n"
	       "      --tolerance PCT --compare: a size agrees when every term differs by at\n"
	       "                      most PCT %% (default 5)\n"
	       "  -o, --output FILE   write the parameter file to FILE\n"
	       "  -q, --quiet         no table on standard error\n"
	       "  -h, --help          show this help and exit\n"
	       "      --version       show the version and exit\n"
	       "\n"
	       "\n"
	       "--yield: each RUN is a directory of the traces of samples/apps/nodecal, or a\n"
	       "file of its own output line (ranks, median one-way us, round trips: a run\n"
	       "without the tracer), run with more ranks than the N cores of one host; the fit\n"
	       "is what waking a waiting rank costs, cpu_wake + cpu_yield per rank beyond the\n"
	       "cores (docs/loggops-semantics.md section 8; two rank counts or more for both,\n"
	       "else cpu_yield only; the runs of one count are pooled by their median), from\n"
	       "the quiet model of -p (the intra-node model when it has one), for the rule\n"
	       "ibsim will apply: --cpu-bind none (the default: a rank runs on any core of its\n"
	       "host; the model inverted in closed form) or core (rank r on core r mod N, as\n"
	       "bound ranks and the unbound ranks of a polling MPI library run; the inversion\n"
	       "simulates nodecal's schedule in the engine); the output has cores, cpu_wait,\n"
	       "cpu_bind, cpu_yield and cpu_wake, to add to that file.\n"
	       "\n"
	       "--compare: evaluates both files' send_o, recv_o, net_L, their one-way time and\n"
	       "copy, reduce and coll_copy at netcal's sizes from 64 bytes to 64 MiB and writes\n"
	       "a TSV of their differences, in %% of the mean one-way time (message terms) or\n"
	       "of the term's mean (local terms), and how many sizes agree within PCT\n"
	       "(formats/calibration.md, \"Comparing two calibrations\").\n"
	       "\n"
	       "Exit status: 0 ok, 1 bad input, 2 usage error.\n");
}

/* the keys calib reads or writes beside the model's (ir_loggops_keys) */
static const char *const known_keys[] = { "net", "topo", "pin_a", "pin_b", NULL };

/* Is `prog` an executable on PATH? (Checked before the work, so a missing
 * gnuplot is reported clearly and before anything is written.) */
/* The network whose option --topo is (for "--topo applies to --net ib"). */
static const char *topo_owner(void)
{
	const ir_net_type *t = ir_net_owner("topo");
	return t ? t->name : "(none)";
}

static int on_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *q;
	char buf[4096];
	if (!path)
		return 0;
	for (p = path;; p = q + 1) {
		size_t n;
		q = strchr(p, ':');
		n = q ? (size_t)(q - p) : strlen(p);
		if (n == 0)
			snprintf(buf, sizeof buf, "./%s", prog);
		else
			snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, prog);
		if (access(buf, X_OK) == 0)
			return 1;
		if (!q)
			return 0;
	}
}

static int run_gnuplot(const char *script, size_t len, const char *plot)
{
	FILE *p;
	int st;
	fflush(stderr);
	/* A gnuplot that dies early must not kill calib with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	p = popen("gnuplot", "w");
	if (!p)
		return ir_cli_failf("cannot run gnuplot: %s", strerror(errno));
	fwrite(script, 1, len, p);
	st = pclose(p);
	if (st == -1)
		return ir_cli_failf("gnuplot: %s", strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return ir_cli_failf("cannot draw %s: gnuplot is not installed (Debian package gnuplot-nox)", plot);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return ir_cli_failf("cannot draw %s: gnuplot failed (status %d)", plot, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}

/* Write the finished parameters to OUT (a temporary file renamed when complete, or standard
 * output); 0, or -1 after reporting the error. */
static int write_out(const char *out, const ir_sb *sb)
{
	ir_err e;
	ir_writer *w = ir_writer_open(out, 0, &e);
	if (!w || ir_writer_write(w, sb->buf, sb->len, &e)) {
		if (w)
			ir_writer_abort(w);
		return ir_cli_fail(&e), -1;
	}
	if (ir_writer_close(w, &e))
		return ir_cli_fail(&e), -1;
	return 0;
}

enum { OPT_TOPO = 256, OPT_OVERHEAD, OPT_PLOT, OPT_UNWEIGHTED, OPT_VERSION, OPT_INTRA, OPT_YIELD, OPT_CORES, OPT_CPU_BIND, OPT_IO,
       OPT_COMPARE, OPT_TOLERANCE, OPT_KEEP_SLOWED, OPT_TRACER_TIME, OPT_STATE_REF, OPT_ESTIMATOR };

/* --compare: two parameter files of piecewise calibrations side by side (ir_calib_compare). */
static int do_compare(const char *fa, const char *fb, double tol, const char *out)
{
	ir_params *pa = ir_params_new(), *pb = ir_params_new();
	ir_loggops a, b;
	ir_blob ba, bb;
	ir_sb sb = IR_SB_INIT;
	ir_err e;
	int status = IR_EXIT_BAD;
	memset(&ba, 0, sizeof ba);
	memset(&bb, 0, sizeof bb);
	if (!pa || !pb) {
		status = ir_cli_failf("out of memory");
		goto done;
	}
	ir_loggops_defaults(&a);
	ir_loggops_defaults(&b);
	if (ir_params_load(pa, fa, &e) || ir_loggops_load(&a, pa, &e) || ir_params_load(pb, fb, &e) ||
	    ir_loggops_load(&b, pb, &e) || ir_calib_compare(&a, &b, fa, fb, tol, &sb, &e)) {
		status = ir_cli_fail(&e);
		goto done;
	}
	/* the machine states the two saw (their "# machine state" comment lines) */
	if (ir_blob_load(&ba, fa, 64u << 20, &e) || ir_blob_load(&bb, fb, 64u << 20, &e)) {
		status = ir_cli_fail(&e);
		goto done;
	}
	if (ir_calib_compare_states((const char *)ba.data, ba.len, (const char *)bb.data, bb.len, fa, fb, &sb)) {
		status = ir_cli_failf("out of memory");
		goto done;
	}
	status = write_out(out, &sb) ? IR_EXIT_BAD : IR_EXIT_OK;
done:
	ir_blob_release(&ba);
	ir_blob_release(&bb);
	ir_sb_release(&sb);
	ir_params_free(pa);
	ir_params_free(pb);
	return status;
}

/* calib --io: the storage keys from iocal's traces (lib/ir_calib_io.c). */
static int calib_io(char *const *dirs, size_t n, const char *out, int quiet)
{
	ir_calib_io c;
	ir_sb sb = IR_SB_INIT;
	ir_err e;
	int status = IR_EXIT_BAD;
	ir_calib_io_init(&c);
	if (ir_calib_io_read(&c, dirs, n, &e) || ir_calib_io_fit(&c, &e)) {
		status = ir_cli_fail(&e);
		goto done;
	}
	if (ir_sb_addf(&sb, "# calib " IR_VERSION " --io\n") || ir_calib_io_write(&c, &sb)) {
		status = ir_cli_failf("out of memory");
		goto done;
	}
	if (!quiet) {
		/* the fitted lines and keys, without the table's '#|' lines */
		for (const char *p = sb.buf; *p;) {
			const char *q = strchr(p, '\n');
			size_t len = q ? (size_t)(q - p) + 1 : strlen(p);
			if (strncmp(p, "#|", 2) != 0)
				fprintf(stderr, "%s: %.*s", ir_cli_prog(), (int)len, p);
			p += len;
		}
	}
	if (write_out(out, &sb)) {
		status = IR_EXIT_BAD;
		goto done;
	}
	status = IR_EXIT_OK;
done:
	ir_sb_release(&sb);
	ir_calib_io_release(&c);
	return ir_cli_finish(status);
}


/* calib --yield: fit cpu_yield to nodecal runs (formats/calibration.md, "Shared cores"). */
static int do_yield(char *const *dirs, int n, uint32_t cores, int bind, const char *pfile, const char *out)
{
	ir_params *ps = NULL;
	ir_loggops lp;
	ir_calib_yrun *runs;
	ir_sb sb = IR_SB_INIT;
	ir_err e;
	double y, c;
	int status = IR_EXIT_BAD;
	if (!(runs = calloc((size_t)n, sizeof *runs)))
		return ir_cli_failf("out of memory");
	ir_loggops_defaults(&lp);
	if (pfile) {
		if (!(ps = ir_params_new())) {
			free(runs);
			return ir_cli_failf("out of memory");
		}
		if (ir_params_load(ps, pfile, &e) || ir_loggops_load(&lp, ps, &e)) {
			status = ir_cli_fail(&e);
			goto done;
		}
	}
	for (int i = 0; i < n; i++)
		if (ir_calib_yield_read(&runs[i], dirs[i], &e)) {
			status = ir_cli_fail(&e);
			goto done;
		}
	if (ir_calib_yield_fit(runs, (size_t)n, cores, bind, &lp, &y, &c, &e)) {
		status = ir_cli_fail(&e);
		goto done;
	}
	if (ir_calib_yield_write(runs, (size_t)n, cores, bind, y, c, IR_VERSION, &sb)) {
		status = ir_cli_failf("out of memory");
		goto done;
	}
	if (write_out(out, &sb)) {
		status = IR_EXIT_BAD;
		goto done;
	}
	status = IR_EXIT_OK;
done:
	ir_sb_release(&sb);
	ir_params_free(ps);
	free(runs);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "params", required_argument, NULL, 'p' },
		{ "net", required_argument, NULL, 'n' },
		{ "topo", required_argument, NULL, OPT_TOPO },
		{ "model", required_argument, NULL, 'm' },
		{ "overhead", required_argument, NULL, OPT_OVERHEAD },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "unweighted", no_argument, NULL, OPT_UNWEIGHTED },
		{ "io", no_argument, NULL, OPT_IO },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "intra", no_argument, NULL, OPT_INTRA },
		{ "yield", no_argument, NULL, OPT_YIELD },
		{ "cores", required_argument, NULL, OPT_CORES },
		{ "cpu-bind", required_argument, NULL, OPT_CPU_BIND },
		{ "compare", no_argument, NULL, OPT_COMPARE },
		{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
		{ "keep-slowed", no_argument, NULL, OPT_KEEP_SLOWED },
		{ "state-ref", required_argument, NULL, OPT_STATE_REF },
		{ "estimator", required_argument, NULL, OPT_ESTIMATOR },
		{ "tracer-time", required_argument, NULL, OPT_TRACER_TIME },
		{ NULL, 0, NULL, 0 },
	};
	const char *pfile = NULL, *net_name = NULL, *topo = NULL, *plot = NULL, *out = "-", *s_arg = NULL;
	int c, quiet = 0, status = IR_EXIT_BAD, is_trace, ndirs = 0, intra = 0, yield = 0, io = 0, compare = 0;
	const char *tol_arg = NULL;
	uint32_t cores = 0;
	int rc_intra, bind = -1;
	ir_calib_opts co;
	ir_calib_data d;
	ir_calib_fit f;
	ir_calib_net net;
	ir_params *ps = NULL;
	ir_loggops lp;
	ir_sb sb = IR_SB_INIT;
	ir_err e;

	ir_cli_init(argv[0]);
	memset(&co, 0, sizeof co);
	memset(&net, 0, sizeof net);
	ir_calib_data_init(&d);
	memset(&f, 0, sizeof f);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:n:S:m:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pfile = optarg;
			break;
		case 'n':
			if (!ir_net_find(optarg, &e))
				return ir_cli_usage("%s", e.msg);
			net_name = optarg;
			break;
		case OPT_TOPO:
			topo = optarg;
			break;
		case 'S':
			s_arg = optarg;
			if (ir_parse_size(optarg, &co.S, "-S", &e))
				return ir_cli_usage("%s", e.msg);
			co.have_S = 1;
			break;
		case 'm':
			if (!strcmp(optarg, "loggp"))
				co.model = IR_CALIB_LOGGP;
			else if (!strcmp(optarg, "overheads"))
				co.model = IR_CALIB_OGOPS;
			else
				return ir_cli_usage("unknown model '%s' (expected overheads or loggp)", optarg);
			break;
		case OPT_OVERHEAD: {
			uint64_t v;
			if (ir_parse_time(optarg, &v, "--overhead", &e))
				return ir_cli_usage("%s", e.msg);
			co.have_o = 1;
			co.o_ps = (double)v;
			break;
		}
		case OPT_UNWEIGHTED:
			co.unweighted = 1;
			break;
		case OPT_COMPARE:
			compare = 1;
			break;
		case OPT_KEEP_SLOWED:
			d.keep_slowed = 1;
			break;
		case OPT_STATE_REF: {
			uint64_t v;
			if (ir_parse_time(optarg, &v, "--state-ref", &e))
				return ir_cli_usage("%s", e.msg);
			if (!v)
				return ir_cli_usage("--state-ref: expected a round trip above 0, got '%s'", optarg);
			d.state_ref_ps = (double)v;
			break;
		}
		case OPT_ESTIMATOR:
			if (!strcmp(optarg, "mean"))
				d.estimator = IR_CALIB_EST_MEAN;
			else if (!strcmp(optarg, "median"))
				d.estimator = IR_CALIB_EST_MEDIAN;
			else
				return ir_cli_usage("--estimator: expected mean or median, got '%s'", optarg);
			break;
		case OPT_TRACER_TIME:
			if (!strcmp(optarg, "keep"))
				d.keep_tracer = 1;
			else if (!strcmp(optarg, "remove"))
				d.keep_tracer = 0;
			else
				return ir_cli_usage("--tracer-time: expected remove or keep, got '%s'", optarg);
			break;
		case OPT_TOLERANCE:
			tol_arg = optarg;
			break;
		case OPT_IO:
			io = 1;
			break;
		case OPT_PLOT:
			plot = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case OPT_INTRA:
			intra = 1;
			break;
		case OPT_YIELD:
			yield = 1;
			break;
		case OPT_CORES: {
			uint64_t v;
			if (ir_parse_range(optarg, 1, 65536, &v, "--cores", &e))
				return ir_cli_usage("%s", e.msg);
			cores = (uint32_t)v;
			break;
		}
		case OPT_CPU_BIND:
			if (!strcmp(optarg, "none"))
				bind = 0;
			else if (!strcmp(optarg, "core"))
				bind = 1;
			else
				return ir_cli_usage("--cpu-bind: expected none or core, got '%s'", optarg);
			break;
		case 'h':
			usage();
			return ir_cli_finish(IR_EXIT_OK);
		case OPT_VERSION:
			ir_cli_version();
			return ir_cli_finish(IR_EXIT_OK);
		default:
			return ir_cli_getopt_error(c, argv);
		}
	}
	if (tol_arg && !compare)
		return ir_cli_usage("--tolerance applies to --compare");
	if (compare) {
		double tol = 5;
		if (pfile || net_name || topo || s_arg || plot || co.model != IR_CALIB_OGOPS || co.have_o || co.unweighted ||
		    yield || intra || cores || bind >= 0 || io)
			return ir_cli_usage("--compare takes only --tolerance, -o and -q");
		if (argc - optind != 2)
			return ir_cli_usage("--compare needs two parameter files, got %d", argc - optind);
		if (tol_arg && (ir_parse_double(tol_arg, &tol, "--tolerance", &e) || !(tol >= 0)))
			return ir_cli_usage("--tolerance: expected a percentage of 0 or more, got '%s'", tol_arg);
		return ir_cli_finish(do_compare(argv[optind], argv[optind + 1], tol, out));
	}
	if (optind == argc)
		return ir_cli_usage("missing INPUT (a trace directory, trace files or a TSV)");
	if (io) {
		if (pfile || net_name || topo || s_arg || plot || co.model != IR_CALIB_OGOPS || co.have_o || co.unweighted ||
		    yield || intra || cores || bind >= 0)
			return ir_cli_usage("--io takes only -o and -q (the storage keys need no network)");
		return calib_io(argv + optind, (size_t)(argc - optind), out, quiet);
	}
	if (yield) {
		if (!cores)
			return ir_cli_usage("--yield needs --cores N (the cores of the host the runs shared)");
		if (intra || plot || net_name || topo || s_arg || co.model != IR_CALIB_OGOPS || co.unweighted)
			return ir_cli_usage("--yield takes only --cores, --cpu-bind, -p, -o and -q");
		return ir_cli_finish(do_yield(argv + optind, argc - optind, cores, bind == 1, pfile, out));
	}
	if (cores)
		return ir_cli_usage("--cores applies to --yield");
	if (bind >= 0)
		return ir_cli_usage("--cpu-bind applies to --yield");
	if (intra && co.model == IR_CALIB_LOGGP)
		return ir_cli_usage("--intra applies to the overheads model, not to --model loggp");
	if (co.have_o && co.model != IR_CALIB_LOGGP)
		return ir_cli_usage("--overhead applies to --model loggp");
	if (s_arg && co.model == IR_CALIB_LOGGP)
		return ir_cli_usage("-S applies to the overheads model, not to --model loggp");
	if (plot) {
		ir_sb tmp = IR_SB_INIT;
		ir_calib_fit zf;
		memset(&zf, 0, sizeof zf);
		if (ir_calib_plot_script(&d, &zf, plot, &tmp, &e)) {
			ir_sb_release(&tmp);
			return ir_cli_usage("%s", e.msg);
		}
		ir_sb_release(&tmp);
	}
	if (plot && !on_path("gnuplot"))
		return ir_cli_failf("cannot draw %s: gnuplot is not installed (Debian package gnuplot-nox)", plot);
	if (topo && net_name && !ir_net_accepts(ir_net_find(net_name, &e), "topo"))
		return ir_cli_usage("--topo applies to --net %s", topo_owner());

	/* Network parameters: LogGOPSim's defaults, then the -p file. */
	ir_loggops_defaults(&lp);
	if (pfile) {
		const char *v;
		ps = ir_params_new();
		if (!ps)
			return ir_cli_failf("out of memory");
		if (ir_params_load(ps, pfile, &e) || ir_params_time(ps, "L", &lp.L, &e) < 0 ||
		    ir_params_time(ps, "g", &lp.g, &e) < 0 || ir_params_time(ps, "G", &lp.G, &e) < 0) {
			status = ir_cli_fail(&e);
			goto done;
		}
		if (!net_name && (v = ir_params_get(ps, "net")) != NULL) {
			if (!ir_net_find(v, &e)) {
				status = ir_cli_failf("%s: %s", pfile, e.msg);
				goto done;
			}
			net_name = v;
		}
		if (!topo)
			topo = ir_params_get(ps, "topo");
	}
	if (!net_name)
		net_name = ir_net_type_at(0)->name;
	if (topo && !ir_net_accepts(ir_net_find(net_name, &e), "topo")) {
		status = ir_cli_usage("--topo applies to --net %s", topo_owner());
		goto done;
	}

	/* Measurements. */
	if (argc - optind == 1) {
		is_trace = ir_calib_is_trace(argv[optind], &e);
		if (is_trace < 0) {
			status = ir_cli_fail(&e);
			goto done;
		}
	} else {
		is_trace = 1;
	}
	/* several directories: several runs, pooled (formats/calibration.md, "Several runs") */
	for (int i = optind; i < argc && argc - optind > 1; i++) {
		struct stat st;
		if (stat(argv[i], &st) || !S_ISDIR(st.st_mode)) {
			ndirs = 0;
			break;
		}
		ndirs++;
	}
	if (ndirs ? ir_calib_read_runs(&d, argv + optind, (size_t)ndirs, &e)
	    : is_trace ? ir_calib_read_traces(&d, argv + optind, (size_t)(argc - optind), &e)
	               : ir_calib_read_tsv(&d, argv[optind], &e)) {
		status = ir_cli_fail(&e);
		goto done;
	}
	if (ir_calib_aggregate(&d, &e)) {
		status = ir_cli_fail(&e);
		goto done;
	}
	{
		int need_engine = co.model == IR_CALIB_OGOPS && !d.have_sim;
		if (ir_calib_net_select(&net, net_name, topo, &lp, need_engine, &e)) {
			status = ir_cli_fail(&e);
			goto done;
		}
		/* Keys of the -p file calib does not use: the network's own (ib: link,
		 * mtu, routing ...), or unknown and warned about. */
		if (ps) {
			size_t i = 0;
			long k;
			char orig[300];
			while ((k = ir_params_next_unknown(ps, known_keys, &i)) >= 0) {
				int r;
				const char *const *m = ir_loggops_keys;
				while (*m && strcmp(*m, ir_params_key(ps, (size_t)k)))
					m++;
				if (*m)
					continue;
				r = net.own ? ir_calib_net_set(&net, ir_params_key(ps, (size_t)k), ir_params_value(ps, (size_t)k), &e)
				                : -2;
				if (r == -1) {
					status = ir_cli_failf("%s: %s", ir_params_origin(ps, (size_t)k, orig, sizeof orig), e.msg);
					goto done;
				}
				if (r == -2)
					ir_cli_warnf("%s: unknown parameter '%s' ignored", ir_params_origin(ps, (size_t)k, orig, sizeof orig),
					             ir_params_key(ps, (size_t)k));
			}
		}
		if (need_engine && ir_calib_simulate(&d, &net, &e)) {
			status = ir_cli_fail(&e);
			goto done;
		}
	}
	co.Gprime = net.models_bytes ? 0 : (double)lp.G;
	if (ir_calib_do_fit(&d, &co, &f, &e)) {
		status = ir_cli_fail(&e);
		goto done;
	}

	/* Outputs: the table first (it explains a failing plot), then the file, then the plot. */
	if (!quiet) {
		char pfx[128];
		snprintf(pfx, sizeof pfx, "%s: ", ir_cli_prog());
		if (ir_calib_write_table(&d, &f, pfx, &sb)) {
			status = ir_cli_failf("out of memory");
			goto done;
		}
		fputs(sb.buf, stderr);
		ir_sb_reset(&sb);
		size_t tested, drifted = ir_calib_drifted(&d, &tested);
		if (drifted)
			ir_cli_warnf("the one-way time drifted during the run at %zu of %zu sizes (the '# drift' lines of the "
			             "parameter file): the machine changed while it was measured",
			             drifted, tested);
	}
	if (ir_calib_write_params(&d, &f, co.model == IR_CALIB_OGOPS ? &net : NULL, IR_VERSION, &sb)) {
		status = ir_cli_failf("out of memory");
		goto done;
	}
	if (intra) {
		ir_sb full = sb;
		ir_sb_init(&sb);
		rc_intra = ir_calib_intra_only(full.buf, full.len, &sb);
		ir_sb_release(&full);
		if (rc_intra) {
			status = ir_cli_failf("out of memory");
			goto done;
		}
	}
	if (write_out(out, &sb)) {
		status = IR_EXIT_BAD;
		goto done;
	}
	if (plot) {
		ir_sb_reset(&sb);
		if (ir_calib_plot_script(&d, &f, plot, &sb, &e)) {
			status = ir_cli_fail(&e);
			goto done;
		}
		if (run_gnuplot(sb.buf, sb.len, plot)) {
			status = IR_EXIT_BAD;
			goto done;
		}
	}
	status = IR_EXIT_OK;
done:
	ir_sb_release(&sb);
	ir_params_free(ps);
	ir_calib_net_release(&net);
	ir_calib_fit_release(&f);
	ir_calib_data_release(&d);
	return ir_cli_finish(status);
}
