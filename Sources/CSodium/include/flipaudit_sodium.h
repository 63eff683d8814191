#ifndef FLIPAUDIT_KEYED_HASH_H
#define FLIPAUDIT_KEYED_HASH_H

/// The keyed 64-bit fingerprint of states, codes and record lines:
/// SipHash-2-4, libsodium's `crypto_shorthash`. A pseudorandom function
/// made for short inputs: without the key nobody can make two inputs
/// collide or learn anything of an input from its fingerprint.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The key's size in bytes.
#define FA_KEYED_HASH_KEY_BYTES 16

/// SipHash-2-4 of `bytes[0..<count]` under the 16-byte `key`, its eight
/// output bytes read as a little-endian number (so the same on every
/// machine). `bytes` may be NULL when `count` is 0.
uint64_t fa_keyed_hash(const uint8_t *key, const uint8_t *bytes, size_t count);

#ifdef __cplusplus
}
#endif

#endif
