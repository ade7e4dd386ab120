/*
 * u-grow.c: unit tests of lib/ir_grow: room for what is asked, amortised
 * growth, contents kept across growth, refusal of sizes whose byte count
 * overflows (array and capacity left unchanged), and no work when the
 * capacity already suffices.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ir_grow.h"
#include "tap.h"

int main(void)
{
	uint32_t *a = NULL, *keep;
	size_t cap = 0, n, reallocs = 0, last = 0, i;
	int good = 1;

	ok(IR_GROW(a, 0, cap) == 0 && a == NULL && cap == 0, "asking for nothing allocates nothing");
	ok(IR_GROW(a, 1, cap) == 0 && a != NULL && cap >= 1, "first growth gives room for one");
	for (n = 0; n < 100000; n++) {
		if (IR_GROW(a, n + 1, cap) != 0) {
			good = 0;
			break;
		}
		if (cap != last) {
			reallocs++;
			last = cap;
		}
		a[n] = (uint32_t)(n * 2654435761u);
	}
	ok(good && cap >= 100000, "100000 appends fit");
	ok(reallocs < 40, "growth is geometric (%zu reallocations)", reallocs);
	for (i = 0; i < 100000; i++)
		if (a[i] != (uint32_t)(i * 2654435761u))
			good = 0;
	ok(good, "contents survive every growth");
	keep = a;
	n = cap;
	ok(IR_GROW(a, cap, cap) == 0 && a == keep && cap == n, "capacity enough: nothing moves");
	ok(IR_GROW(a, SIZE_MAX / 2, cap) == -1 && a == keep && cap == n,
	   "a byte size past SIZE_MAX is refused, array unchanged");
	ok(IR_GROW(a, SIZE_MAX, cap) == -1 && a == keep && cap == n, "SIZE_MAX elements refused");
	ok(IR_GROW(a, n + 1, cap) == 0 && cap >= n + 1 + n / 2, "grows by half again at least");
	free(a);
	return tap_done();
}
