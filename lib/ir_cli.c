/*
 * ir_cli.c: shared main() helpers for the tools (see ir_cli.h).
 */
#include "ir_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef IR_VERSION
#define IR_VERSION "0"
#endif

static const char *prog = "ibreplay";

void ir_cli_init(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	prog = s ? s + 1 : (p ? p : prog);
}

const char *ir_cli_prog(void) { return prog; }

int ir_cli_fail(const ir_err *e)
{
	fprintf(stderr, "%s: %s\n", prog, e && e->msg[0] ? e->msg : "failed");
	return IR_EXIT_BAD;
}

int ir_cli_failf(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return IR_EXIT_BAD;
}

void ir_cli_warnf(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: warning: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int ir_cli_usage(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	return IR_EXIT_USAGE;
}

int ir_cli_getopt_error(int c, char *const argv[])
{
	if (c == ':')
		return ir_cli_usage("option '%s' needs a value", argv[optind - 1]);
	if (optopt)
		return ir_cli_usage("unknown option '-%c'", optopt);
	return ir_cli_usage("unknown option '%s'", argv[optind - 1]);
}

void ir_cli_version(void)
{
	printf("%s (ibreplay) %s\n", prog, IR_VERSION);
}

int ir_cli_finish(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write error on standard output: %s\n", prog, strerror(errno));
		fclose(stdout);
		return IR_EXIT_BAD;
	}
	if (fclose(stdout) != 0) {
		fprintf(stderr, "%s: write error on standard output: %s\n", prog, strerror(errno));
		return IR_EXIT_BAD;
	}
	return status;
}

double ir_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ir_progress_init(ir_progress *p, int mode, const char *what)
{
	p->mode = mode < 0 ? (isatty(2) ? -1 : 0) : mode;
	p->shown = 0;
	p->start = ir_now();
	p->last = 0;
	p->what = what;
}

void ir_progress_update(ir_progress *p, uint64_t done, uint64_t total)
{
	double t;
	if (!p->mode)
		return;
	t = ir_now();
	if (t - p->last < 0.2)
		return;
	if (p->mode < 0 && t - p->start < 1.0)
		return;
	p->last = t;
	p->shown = 1;
	if (total) {
		double f = (double)done / (double)total;
		int w = 30, k = (int)(f * w);
		if (k > w)
			k = w;
		fprintf(stderr, "\r%s: %s [%.*s%*s] %5.1f%% %6.1fs", prog, p->what, k,
		        "##############################", w - k, "", 100.0 * f, t - p->start);
	} else {
		fprintf(stderr, "\r%s: %s %llu %6.1fs", prog, p->what, (unsigned long long)done, t - p->start);
	}
	fflush(stderr);
}

void ir_progress_end(ir_progress *p)
{
	if (p->shown)
		fputc('\n', stderr);
	p->shown = 0;
}
