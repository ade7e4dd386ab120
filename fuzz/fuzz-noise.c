/*
 * fuzz-noise.c: libFuzzer target for the noise files of ibsim (ir_noise_read,
 * formats/noise.md). The first byte picks the reader (even: ibreplay's format,
 * odd: LogGOPSim's); the rest is the file. A file that reads must give every host
 * it is asked about a sorted list of disjoint, non-empty detours.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ir_io.h"
#include "ir_node.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_noise nz;
	ir_reader *r;
	ir_err e;
	if (size < 1)
		return 0;
	r = ir_reader_open_mem(data + 1, size - 1, "fuzz", &e);
	if (!r)
		return 0;
	ir_noise_init(&nz);
	if (ir_noise_read(&nz, r, data[0] & 1, &e) == 0) {
		static const uint64_t hosts[] = { 0, 1, 3, 7, 1000, UINT64_MAX };
		for (size_t k = 0; k < sizeof hosts / sizeof hosts[0]; k++) {
			ir_detour *d;
			size_t n;
			if (ir_noise_host(&nz, hosts[k], &d, &n, &e))
				continue;
			for (size_t i = 0; i < n; i++)
				if (d[i].end <= d[i].start || (i && d[i].start <= d[i - 1].end))
					abort();
			free(d);
		}
	}
	ir_noise_release(&nz);
	ir_reader_free(r);
	return 0;
}
