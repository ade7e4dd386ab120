/*
 * cmp-real: how far a simulation is from the real run, rank by rank.
 *
 * main() parses the options, reads the real per-rank times from the traces
 * (and from further runs of the same program given with --run) and the
 * simulated ones from each ibsim results file (lib/ir_cmp.c), and prints the
 * table and summaries in the chosen format. Exit status follows cmp(1): 0
 * when every rank of every results file is within the tolerance, 1 when some
 * are outside, 2 on trouble (usage, unreadable or bad input). --run is
 * repeated rather than given a list: trace paths may hold any character.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_cli.h"
#include "ir_cmp.h"
#include "ir_num.h"
#include "ir_strbuf.h"

enum { EXIT_SAME = 0, EXIT_DIFF = 1, EXIT_TROUBLE = 2 };

static void usage(void)
{
	printf("Usage: cmp-real [--tolerance PCT] [--exclude-finalize] [--sync] [--format text|tsv|md] [PHASE] TRACES RESULTS...\n"
	       "   or: cmp-real [--tolerance PCT] [--exclude-finalize] [--sync] [--state-ref T] [--format text|tsv|md] [PHASE] --run TRACES [--run TRACES]... TRACES [RESULTS...]\n"
	       "Compare the real run time of every rank (from the return of MPI_Init to the\n"
	       "call of MPI_Finalize, on rank 0's clock) with the simulated time in each ibsim\n"
	       "results file, and print the deviation (simulated - real) / real in percent,\n"
	       "then per results file the largest and the mean absolute deviation.\n"
	       "\n"
	       "With --run, TRACES and the --run traces are several runs of the same program:\n"
	       "each real time is their median, the report adds their smallest and largest\n"
	       "time and the spread (largest - smallest) / median, says per rank and for the\n"
	       "whole run (row 'all': the longest rank) whether the simulated time lies within\n"
	       "the spread (|simulated - median| at most the farthest run's distance from the\n"
	       "median), and names the median run. Without RESULTS it reports the runs only.\n"
	       "\n"
	       "  TRACES                 trace directory (or a single trace file)\n"
	       "  RESULTS                ibsim results (TSV with 'rank' and 'end_ps'); '-' is stdin\n"
	       "  -r, --run TRACES       another run of the same program (repeatable); TRACES is\n"
	       "                         run 1, the --run traces follow in their order\n"
	       "  -t, --tolerance PCT    largest accepted |deviation| in percent (default 5)\n"
	       "  -x, --exclude-finalize stop both times at the rank's last call before\n"
	       "                         MPI_Finalize (the time after it is copied, not simulated)\n"
	       "  -s, --sync             count every rank's real time from the earliest MPI_Init\n"
	       "                         return of all ranks, as trace2goal --durations --sync\n"
	       "                         schedules do\n"
	       "      --state-ref T      with --run: set aside the runs made on a slowed machine,\n"
	       "                         whose clock round trip at MPI_Init or at MPI_Finalize\n"
	       "                         (the traces' clockrtt lines) is more than 25 %% above\n"
	       "                         T (the network's undisturbed round trip; a time, ps\n"
	       "                         or with a unit ps ns us ms s), unless all were\n"
	       "  -f, --format FMT       text (default), tsv (rank real_ps sim_ps dev_pct ...;\n"
	       "                         with --run: rank real_ps min_ps max_ps spread_pct\n"
	       "                         sim_ps dev_pct within_spread ...) or md\n"
	       "PHASE: compare a phase of the run, as trace2goal converts it with the same options:\n"
	       "      --from RE          from the call of the K-th call whose name matches RE\n"
	       "                         (PCRE2; each rank)\n"
	       "      --from-nth K       which match of --from starts the phase (default 1)\n"
	       "      --to RE            to the return of the first call from there on (that one\n"
	       "                         included) whose name matches RE; without it, to\n"
	       "                         MPI_Finalize. --to alone starts at MPI_Init\n"
	       "  -h, --help             show this help and exit\n"
	       "      --version          show the version and exit\n"
	       "\n"
	       "Exit status (like cmp): 0 all ranks within the tolerance, 1 some outside,\n"
	       "2 trouble (usage error, unreadable or bad input).\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tolerance", required_argument, NULL, 't' },
		{ "exclude-finalize", no_argument, NULL, 'x' },
		{ "sync", no_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "run", required_argument, NULL, 'r' },
		{ "state-ref", required_argument, NULL, 'S' },
		{ "from", required_argument, NULL, 'F' },
		{ "from-nth", required_argument, NULL, 'N' },
		{ "to", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	ir_cmp_opts o = { 5.0, 0, IR_CMP_TEXT, 0, 0 };
	ir_cmp_phase ph = { NULL, NULL, 1 };
	const char *from_nth = NULL;
	ir_cmp_real *runs = NULL;
	char **runpaths = NULL; /* [0] is TRACES, then the --run traces */
	size_t nruns = 1;
	ir_cmp_sim *sims = NULL;
	size_t nsims = 0;
	uint64_t outside = 0;
	ir_sb sb = IR_SB_INIT;
	ir_err e;
	int c, status = EXIT_TROUBLE;

	ir_cli_init(argv[0]);
	/* at most one run per argument */
	runpaths = calloc((size_t)argc + 1, sizeof *runpaths);
	runs = calloc((size_t)argc + 1, sizeof *runs);
	if (!runpaths || !runs) {
		ir_cli_failf("out of memory");
		goto done;
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:xsf:r:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (ir_parse_double(optarg, &o.tolerance_pct, "--tolerance", &e) || o.tolerance_pct < 0) {
				status = ir_cli_usage("invalid --tolerance '%s' (expected a non-negative percentage)", optarg);
				goto usage;
			}
			break;
		case 'x':
			o.exclude_finalize = 1;
			break;
		case 's':
			o.sync = 1;
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				o.format = IR_CMP_TEXT;
			else if (!strcmp(optarg, "tsv"))
				o.format = IR_CMP_TSV;
			else if (!strcmp(optarg, "md"))
				o.format = IR_CMP_MD;
			else {
				status = ir_cli_usage("unknown format '%s' (expected text, tsv or md)", optarg);
				goto usage;
			}
			break;
		case 'r':
			runpaths[nruns++] = optarg;
			break;
		case 'S': {
			uint64_t ps;
			if (ir_parse_time(optarg, &ps, "--state-ref", &e) || !ps) {
				status = ir_cli_usage("invalid --state-ref '%s' (expected a positive time, e.g. 0.33us)", optarg);
				goto usage;
			}
			o.state_ref_us = (double)ps / 1e6;
			break;
		}
		case 'F':
			ph.from = optarg;
			break;
		case 'N':
			from_nth = optarg;
			break;
		case 'T':
			ph.to = optarg;
			break;
		case 'h':
			usage();
			status = ir_cli_finish(IR_EXIT_OK);
			goto usage;
		case 'V':
			ir_cli_version();
			status = ir_cli_finish(IR_EXIT_OK);
			goto usage;
		default:
			status = ir_cli_getopt_error(c, argv);
			goto usage;
		}
	}
	if (from_nth) {
		uint64_t k;
		if (ir_parse_range(from_nth, 1, 1000000000, &k, "--from-nth", &e)) {
			status = ir_cli_usage("invalid --from-nth '%s' (expected a match number from 1)", from_nth);
			goto usage;
		}
		if (!ph.from) {
			status = ir_cli_usage("--from-nth needs --from");
			goto usage;
		}
		ph.from_nth = (unsigned long)k;
	}
	if (ph.to && !ph.from)
		ph.from = "^MPI_Init"; /* as trace2goal: --to alone starts at MPI_Init */
	if (ph.to && o.exclude_finalize) {
		status = ir_cli_usage("--exclude-finalize and --to do not combine (a phase with --to ends at its own call)");
		goto usage;
	}
	if (optind == argc) {
		status = ir_cli_usage(nruns > 1 ? "missing TRACES (the first run)" : "missing TRACES and RESULTS");
		goto usage;
	}
	if (optind + 1 == argc && nruns == 1) {
		status = ir_cli_usage("missing RESULTS (ibsim's output for the traces)");
		goto usage;
	}
	{
		int nstdin = 0;
		for (int i = optind + 1; i < argc; i++)
			nstdin += !strcmp(argv[i], "-");
		if (nstdin > 1) {
			status = ir_cli_usage("standard input ('-') can be read only once");
			goto usage;
		}
	}

	runpaths[0] = argv[optind];
	for (size_t i = 0; i < nruns; i++)
		if (ir_cmp_real_read_phase(&runs[i], runpaths + i, 1, &ph, &e)) {
			ir_cli_fail(&e);
			goto done;
		}
	nsims = (size_t)(argc - optind - 1);
	sims = calloc(nsims, sizeof *sims);
	if (!sims) {
		ir_cli_failf("out of memory");
		goto done;
	}
	for (size_t j = 0; j < nsims; j++)
		if (ir_cmp_sim_read(&sims[j], argv[optind + 1 + (int)j], &e)) {
			ir_cli_fail(&e);
			goto done;
		}
	if (ir_cmp_report_runs(runs, nruns, sims, nsims, &o, &sb, &outside, NULL, &e)) {
		ir_cli_fail(&e);
		goto done;
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	status = outside ? EXIT_DIFF : EXIT_SAME;
	/* A failed write of the table is trouble, whatever the comparison said. */
	if (ir_cli_finish(0) != 0)
		status = EXIT_TROUBLE;
	ir_sb_release(&sb);
	for (size_t j = 0; j < nsims; j++)
		ir_cmp_sim_release(&sims[j]);
	free(sims);
	for (size_t i = 0; i < nruns; i++)
		ir_cmp_real_release(&runs[i]);
	free(runs);
	free(runpaths);
	return status;
done:
	ir_sb_release(&sb);
	if (sims)
		for (size_t j = 0; j < nsims; j++)
			ir_cmp_sim_release(&sims[j]);
	free(sims);
	if (runs)
		for (size_t i = 0; i < nruns; i++)
			ir_cmp_real_release(&runs[i]);
	ir_cli_finish(status);
usage: /* usage errors, --help and --version: nothing read yet */
	free(runs);
	free(runpaths);
	return status;
}
