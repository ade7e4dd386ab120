/*
 * fuzz/convert.h: what the conversion targets (fuzz-otf2.c, fuzz-t2g.c) do with the
 * traces they made: convert them with o into a writer on /dev/null, the schedule or the
 * error thrown away (a target asserts only "no crash, no leak, no hang").
 */
#ifndef FUZZ_CONVERT_H
#define FUZZ_CONVERT_H

#include "ir_io.h"
#include "ir_t2g.h"

static inline void fuzz_convert(const ir_trace_files *f, const ir_t2g_opts *o)
{
	ir_err e;
	ir_writer *w = ir_writer_open("/dev/null", 0, &e);
	if (!w)
		return;
	if (ir_t2g_convert(f, o, w, NULL, &e))
		ir_writer_abort(w);
	else
		ir_writer_close(w, &e);
}

#endif
