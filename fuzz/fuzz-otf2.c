/*
 * fuzz-otf2.c: libFuzzer target for the OTF2 reader (lib/ir_otf2.c) and the
 * conversion of what it reads (lib/ir_t2g*.c): any bytes, laid out as an
 * archive, must give a schedule or a clean error, never a crash, a leak or a
 * hang.
 *
 * libotf2 reads files, so the input is unpacked into a temporary directory:
 * it is a sequence of parts, each a 4-byte little-endian length and that many
 * bytes, in the order traces.otf2 (the anchor), traces.def, then for
 * locations 0..7 traces/<n>.def and traces/<n>.evt; missing parts are missing
 * files. fuzz/corpus/otf2/ holds archives written by tests/unit/u-otf2.c and
 * by allprof --format otf2, packed so (tests/t9000 replays them; the packing
 * is `fuzz/pack-otf2.sh DIR`). The cost is a directory and a few files per
 * input, which keeps the target slow (hundreds of runs per second), the
 * alternative, a memory substrate, libotf2 does not offer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "ir_endian.h"
#include "ir_otf2.h"

/* libotf2 3.0 leaks its archive handle when OTF2_Reader_Open fails on a corrupt anchor file
 * (otf2_archive_open, otf2_file_posix_open); not ours to free, so LeakSanitizer is told. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libopen-trace-format2.so\n";
}

static int put(const char *path, const uint8_t *d, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	if (n && fwrite(d, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/fuzz-otf2-XXXXXX", path[128], anchor[64];
	const char *base[2] = { "def", "evt" };
	size_t off = 0;
	int part = 0;
	ir_trace_files f;
	ir_otf2_stats st;
	ir_err e;
	if (!mkdtemp(dir))
		return 0;
	snprintf(path, sizeof path, "%s/traces", dir);
	mkdir(path, 0700);
	while (off + 4 <= size && part < 2 + 16) {
		uint32_t n = (uint32_t)data[off] | (uint32_t)data[off + 1] << 8 | (uint32_t)data[off + 2] << 16 |
		             (uint32_t)data[off + 3] << 24;
		off += 4;
		if (n > size - off)
			n = (uint32_t)(size - off);
		if (part == 0)
			snprintf(path, sizeof path, "%s/traces.otf2", dir);
		else if (part == 1)
			snprintf(path, sizeof path, "%s/traces.def", dir);
		else
			snprintf(path, sizeof path, "%s/traces/%d.%s", dir, (part - 2) / 2, base[(part - 2) % 2]);
		if (n)
			put(path, data + off, n);
		off += n;
		part++;
	}
	snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
	if (ir_otf2_load(&f, anchor, &st, &e) == 0) {
		ir_t2g_opts o;
		ir_t2g_opts_init(&o);
		fuzz_convert(&f, &o);
		ir_trace_files_release(&f);
		ir_otf2_stats_release(&st);
	}
	for (int p = 0; p < 2 + 16; p++) {
		if (p == 0)
			snprintf(path, sizeof path, "%s/traces.otf2", dir);
		else if (p == 1)
			snprintf(path, sizeof path, "%s/traces.def", dir);
		else
			snprintf(path, sizeof path, "%s/traces/%d.%s", dir, (p - 2) / 2, base[(p - 2) % 2]);
		unlink(path);
	}
	snprintf(path, sizeof path, "%s/traces", dir);
	rmdir(path);
	rmdir(dir);
	return 0;
}
