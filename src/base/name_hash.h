/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hash of a symbol's name, for the tables that look names up by hash
 * (kallsyms, BTF's functions, an ELF file's symbols): one function, so
 * that each table does not grow its own.
 */
#ifndef NAME_HASH_H
#define NAME_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * A name's first and last 8 bytes and its length, mixed: a table hashes
 * every name it holds (kallsyms' 200,000), and a byte-at-a-time hash of
 * them was a fifth of a list's compile (instructions, callgrind).  Names
 * alike in both ends and length share a bucket and are told apart by
 * strcmp.
 */
static inline uint32_t fe_name_hash(const char *s, size_t len)
{
	uint64_t a = 0, b = 0, h;

	memcpy(&a, s, len < 8 ? len : 8);
	if (len > 8)
		memcpy(&b, s + (len < 16 ? 8 : len - 8), len < 16 ? len - 8 : 8);
	h = (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL) ^
	    (len * 0x165667b19e3779f9ULL);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return (uint32_t)(h ^ (h >> 32));
}

#endif
