#ifndef FLIPAUDIT_SODIUM_H
#define FLIPAUDIT_SODIUM_H

/// What flipaudit takes from libsodium: the keyed fingerprint (SipHash-2-4),
/// SHA-256, HMAC-SHA256 and random bytes. One small interface, so the Swift
/// side never sees libsodium's own types.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The keyed fingerprint's key size in bytes.
#define FA_KEYED_HASH_KEY_BYTES 16

/// SipHash-2-4 (`crypto_shorthash`) of `bytes[0..<count]` under the 16-byte
/// `key`, its eight output bytes read as a little-endian number (so the
/// same on every machine). A pseudorandom function made for short inputs:
/// without the key nobody can make two inputs collide or learn anything of
/// an input from its fingerprint. `bytes` may be NULL when `count` is 0.
uint64_t fa_keyed_hash(const uint8_t *key, const uint8_t *bytes, size_t count);

/// A SHA-256 (or HMAC-SHA256) in progress: libsodium's state, in room
/// reserved here (checked against libsodium's size when built).
typedef struct {
    uint64_t words[16];
} fa_sha256_state;

typedef struct {
    uint64_t words[32];
} fa_hmac_sha256_state;

void fa_sha256_init(fa_sha256_state *state);
void fa_sha256_update(fa_sha256_state *state, const uint8_t *bytes, size_t count);
/// Writes the 32-byte digest to `out`.
void fa_sha256_final(fa_sha256_state *state, uint8_t *out);

/// HMAC-SHA256 under a key of any length; a state may be copied after
/// `init` and each copy finished on its own.
void fa_hmac_sha256_init(fa_hmac_sha256_state *state, const uint8_t *key, size_t key_count);
void fa_hmac_sha256_update(fa_hmac_sha256_state *state, const uint8_t *bytes, size_t count);
/// Writes the 32-byte code to `out`.
void fa_hmac_sha256_final(fa_hmac_sha256_state *state, uint8_t *out);

/// `count` bytes from the system's random source (`randombytes_buf`);
/// 0, or -1 when libsodium could not be initialised.
int fa_random(uint8_t *out, size_t count);

#ifdef __cplusplus
}
#endif

#endif
