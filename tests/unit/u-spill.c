/*
 * u-spill.c: unit tests of lib/ir_spill.c: arrays in unlinked files under a directory
 * (zeroed, writable, counted, given back), small arrays and the arrays past the limit of
 * mappings in memory, a directory where no file can be made, and going back to memory.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir_spill.h"
#include "tap.h"

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4093)
		if (p[i])
			return 0;
	return p[n - 1] == 0;
}

int main(void)
{
	char dir[] = "/tmp/u-spill.XXXXXX";
	ir_err e;
	size_t big = IR_SPILL_MIN * 3 + 5;
	unsigned char *a, *b, *small;
	void *many[IR_SPILL_MAX + 1];
	int good = 1;

	ok(mkdtemp(dir) != NULL, "a scratch directory");
	a = ir_spill_calloc(2, 8, "x", &e);
	ok(a != NULL && ir_spill_bytes() == 0, "without a directory: memory");
	ir_spill_free(a);

	ok(ir_spill_dir(dir, &e) == 0, "a directory where files can be made");
	a = ir_spill_calloc(big, 1, "the big array", &e);
	ok(a && ir_spill_bytes() == big, "a large array is kept in a file: %zu bytes", ir_spill_bytes());
	ok(a && all_zero(a, big), "it reads as zeros");
	memset(a, 0xab, big);
	ok(a[0] == 0xab && a[big - 1] == 0xab && a[big / 2] == 0xab, "and holds what is written");
	small = ir_spill_calloc(100, 4, "a small one", &e);
	ok(small && ir_spill_bytes() == big && small[399] == 0, "a small array stays in memory");
	ir_spill_free(small);
	{
		/* the files are unlinked: the directory stays empty */
		char cmd[128];
		snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
		ok(system(cmd) == 0, "no file is left in the directory");
	}
	ir_spill_free(a);
	ok(ir_spill_bytes() == 0, "freed: nothing mapped");

	for (int i = 0; i <= IR_SPILL_MAX; i++) {
		many[i] = ir_spill_calloc(IR_SPILL_MIN, 1, "many", &e);
		good &= many[i] != NULL;
	}
	ok(good && ir_spill_bytes() == (size_t)IR_SPILL_MAX * IR_SPILL_MIN,
	   "at most %d mappings; the next array is in memory", IR_SPILL_MAX);
	for (int i = 0; i <= IR_SPILL_MAX; i++)
		ir_spill_free(many[i]);
	ok(ir_spill_bytes() == 0, "all given back");

	b = ir_spill_calloc(SIZE_MAX / 2, 4, "the impossible array", &e);
	ok(b == NULL && strstr(e.msg, "the impossible array"), "an overflowing size is refused: %s", e.msg);

	ok(ir_spill_dir("/nonexistent/u-spill", &e) == -1 &&
	   strstr(e.msg, "/nonexistent/u-spill: cannot make a file there for --spill") != NULL,
	   "a missing directory: %s", e.msg);
	a = ir_spill_calloc(big, 1, "after the failure", &e);
	ok(a && ir_spill_bytes() == 0, "after a failed setting arrays are in memory");
	ir_spill_free(a);
	ok(ir_spill_dir("", &e) == -1, "an empty name is refused");
	ok(ir_spill_dir(NULL, &e) == 0, "no directory: back to memory");
	rmdir(dir);
	return tap_done();
}
