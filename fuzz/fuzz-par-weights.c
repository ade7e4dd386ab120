/*
 * fuzz-par-weights.c: libFuzzer target for ibsim-mpi's --weights (ir_par_weights,
 * lib/ir_par.c). The first byte is the number of processes (1 + byte % 16), the rest
 * the option's text; when it parses, every share must be a positive number.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_par.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double w[16];
	ir_err e;
	char *t;
	uint32_t n;
	if (size < 1)
		return 0;
	n = 1 + data[0] % 16;
	if (!(t = malloc(size)))
		return 0;
	memcpy(t, data + 1, size - 1);
	t[size - 1] = '\0';
	if (ir_par_weights(t, n, w, &e) == 0)
		for (uint32_t i = 0; i < n; i++)
			if (!(w[i] > 0))
				abort();
	free(t);
	return 0;
}
