/*
 * ir_grow.c: the growth helper (ir_grow.h). One realloc policy for the
 * whole library, so overflow checks and the growth factor live in one place.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_grow.h"

int ir_grow(void *arrp, size_t need, size_t *cap, size_t esz)
{
	void *p, *np;
	size_t nc;

	if (need <= *cap)
		return 0;
	if (esz == 0)
		return -1;
	nc = *cap + *cap / 2 + 16;
	if (nc < *cap || nc < need)
		nc = need;
	if (nc > SIZE_MAX / esz)
		return -1;
	memcpy(&p, arrp, sizeof p);
	np = realloc(p, nc * esz);
	if (!np)
		return -1;
	memcpy(arrp, &np, sizeof np);
	*cap = nc;
	return 0;
}
