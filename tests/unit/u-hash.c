/*
 * u-hash.c: XXH64 against reference values (the empty string, "a" and "abc"
 * are the specification's well-known vectors; every low 32 bits below also
 * match the content checksum zstd writes into its frames), seeds, and the
 * streaming interface over every split of the input.
 */
#include <string.h>

#include "ir_hash.h"
#include "tap.h"

int main(void)
{
	static const struct {
		const char *s;
		uint64_t h;
	} v[] = {
		{ "", 0xEF46DB3751D8E999ULL },
		{ "a", 0xD24EC4F1A98C6E5BULL },
		{ "abc", 0x44BC2CF5AD770999ULL },
		{ "hello world, this is a somewhat longer string", 0xAAFF39263FE9AF92ULL },
		{ "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdefXYZ", 0x5B15F946643395E4ULL },
	};
	unsigned char buf[300];
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		is_u64(ir_xxh64(v[i].s, strlen(v[i].s), 0), v[i].h, "xxh64 of '%.20s' (%zu bytes)", v[i].s, strlen(v[i].s));

	/* a seed changes the result, deterministically */
	ok(ir_xxh64("abc", 3, 1) != ir_xxh64("abc", 3, 0), "seed 1 differs from seed 0");
	is_u64(ir_xxh64("abc", 3, 1), ir_xxh64("abc", 3, 1), "seeded hash is deterministic");

	/* streaming gives the one-shot result for every length and split point */
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	int good = 1;
	for (size_t len = 0; len <= sizeof buf && good; len += 13) {
		uint64_t want = ir_xxh64(buf, len, 42);
		for (size_t cut = 0; cut <= len; cut += 5) {
			ir_xxh64_state st;
			ir_xxh64_init(&st, 42);
			ir_xxh64_update(&st, buf, cut);
			ir_xxh64_update(&st, buf + cut, len - cut);
			if (ir_xxh64_digest(&st) != want) {
				good = 0;
				printf("# mismatch len %zu cut %zu\n", len, cut);
				break;
			}
		}
	}
	ok(good, "streaming equals one-shot over all lengths and splits");
	{
		ir_xxh64_state st;
		ir_xxh64_init(&st, 0);
		for (size_t i = 0; i < 100; i++)
			ir_xxh64_update(&st, buf + i, 1);
		is_u64(ir_xxh64_digest(&st), ir_xxh64(buf, 100, 0), "byte-at-a-time streaming");
	}
	/* a one-bit change changes the hash */
	{
		uint64_t a = ir_xxh64(buf, 64, 0);
		buf[17] ^= 1;
		ok(a != ir_xxh64(buf, 64, 0), "a flipped bit changes the hash");
	}
	return tap_done();
}
