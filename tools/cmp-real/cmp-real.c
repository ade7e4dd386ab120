/*
 * cmp-real: how far a simulation is from the real run, rank by rank.
 *
 * main() parses the options, reads the real per-rank times from the traces
 * and the simulated ones from each ibsim results file (lib/ir_cmp.c), and
 * prints the table and summaries in the chosen format. Exit status follows
 * cmp(1): 0 when every rank of every results file is within the tolerance,
 * 1 when some are outside, 2 on trouble (usage, unreadable or bad input).
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
	printf("Usage: cmp-real [--tolerance PCT] [--exclude-finalize] [--sync] [--format text|tsv|md] TRACES RESULTS...\n"
	       "Compare the real run time of every rank (from the return of MPI_Init to the\n"
	       "call of MPI_Finalize, on rank 0's clock) with the simulated time in each ibsim\n"
	       "results file, and print the deviation (simulated - real) / real in percent,\n"
	       "then per results file the largest and the mean absolute deviation.\n"
	       "\n"
	       "  TRACES                 trace directory (or a single trace file)\n"
	       "  RESULTS                ibsim results (TSV with 'rank' and 'end_ps'); '-' is stdin\n"
	       "  -t, --tolerance PCT    largest accepted |deviation| in percent (default 5)\n"
	       "  -x, --exclude-finalize stop both times at the rank's last call before\n"
	       "                         MPI_Finalize (the time after it is copied, not simulated)\n"
	       "  -s, --sync             count every rank's real time from the earliest MPI_Init\n"
	       "                         return of all ranks, as trace2goal --durations --sync\n"
	       "                         schedules do\n"
	       "  -f, --format FMT       text (default), tsv (rank real_ps sim_ps dev_pct ...) or md\n"
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
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	ir_cmp_opts o = { 5.0, 0, IR_CMP_TEXT, 0 };
	ir_cmp_real real;
	ir_cmp_sim *sims = NULL;
	size_t nsims = 0;
	uint64_t outside = 0;
	ir_sb sb = IR_SB_INIT;
	ir_err e;
	int c, status = EXIT_TROUBLE;

	ir_cli_init(argv[0]);
	memset(&real, 0, sizeof real);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:xsf:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (ir_parse_double(optarg, &o.tolerance_pct, "--tolerance", &e) || o.tolerance_pct < 0)
				return ir_cli_usage("invalid --tolerance '%s' (expected a non-negative percentage)", optarg);
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
			else
				return ir_cli_usage("unknown format '%s' (expected text, tsv or md)", optarg);
			break;
		case 'h':
			usage();
			return ir_cli_finish(IR_EXIT_OK);
		case 'V':
			ir_cli_version();
			return ir_cli_finish(IR_EXIT_OK);
		default:
			return ir_cli_getopt_error(c, argv);
		}
	}
	if (optind == argc)
		return ir_cli_usage("missing TRACES and RESULTS");
	if (optind + 1 == argc)
		return ir_cli_usage("missing RESULTS (ibsim's output for the traces)");
	{
		int nstdin = 0;
		for (int i = optind + 1; i < argc; i++)
			nstdin += !strcmp(argv[i], "-");
		if (nstdin > 1)
			return ir_cli_usage("standard input ('-') can be read only once");
	}

	if (ir_cmp_real_read(&real, argv + optind, 1, &e)) {
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
	if (ir_cmp_report(&real, sims, nsims, &o, &sb, &outside, NULL, &e)) {
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
	ir_cmp_real_release(&real);
	return status;
done:
	ir_sb_release(&sb);
	if (sims)
		for (size_t j = 0; j < nsims; j++)
			ir_cmp_sim_release(&sims[j]);
	free(sims);
	ir_cmp_real_release(&real);
	ir_cli_finish(status);
	return EXIT_TROUBLE;
}
