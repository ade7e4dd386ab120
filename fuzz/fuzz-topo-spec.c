/*
 * fuzz-topo-spec.c: libFuzzer target for topology generator specs
 * (ir_topo_generate, formats/topology.md), above all the argument parsers of
 * torus:, mesh: and dragonfly:. A spec that generates a small fabric is also
 * routed with the engines made for it (dor; minimal, valiant, ugal) and
 * minhop, and the routes are checked; on fabrics of a few dozen hosts the
 * routings with VL classes must give an acyclic channel dependency graph
 * (a cycle aborts: that is a deadlock the classes should have prevented).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir_route.h"
#include "ir_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ir_topo_linkdef ld = { 4, 16000, 5000, NULL, NULL };
	char spec[128];
	ir_topo *t = NULL;
	ir_err e;
	if (size >= sizeof spec)
		size = sizeof spec - 1;
	memcpy(spec, data, size);
	spec[size] = 0;
	if (!ir_topo_is_generator(spec) || ir_topo_generate(&t, spec, 4, &ld, &e))
		return 0;
	if (t->nnodes <= 400) {
		static const char *const torus[] = { "dor", "minhop", NULL }, *const df[] = { "minimal", "valiant", "ugal", "ugal-g", NULL },
		                         *const other[] = { "minhop", NULL };
		const char *const *eng = t->shape.kind == IR_SHAPE_TORUS ? torus : t->shape.kind == IR_SHAPE_DRAGONFLY ? df : other;
		for (; *eng; eng++) {
			ir_lft l;
			if (ir_route(&l, t, *eng, &e))
				continue;
			if (l.vlmode != IR_VLM_NONE && t->nhosts <= 48 && ir_route_cdg(&l, t, &e) == 1)
				abort();
			ir_lft_release(&l);
		}
	}
	ir_topo_free(t);
	return 0;
}
