// libsodium behind flipaudit_sodium.h.

#include "flipaudit_sodium.h"

#include <sodium.h>

_Static_assert(sizeof(crypto_hash_sha256_state) <= sizeof(fa_sha256_state), "room for a SHA-256 state");
_Static_assert(sizeof(crypto_auth_hmacsha256_state) <= sizeof(fa_hmac_sha256_state), "room for an HMAC-SHA256 state");
_Static_assert(_Alignof(crypto_hash_sha256_state) <= _Alignof(fa_sha256_state), "a SHA-256 state's alignment");
_Static_assert(_Alignof(crypto_auth_hmacsha256_state) <= _Alignof(fa_hmac_sha256_state), "an HMAC state's alignment");

uint64_t fa_keyed_hash(const uint8_t *key, const uint8_t *bytes, size_t count) {
    _Static_assert(crypto_shorthash_siphash24_KEYBYTES == FA_KEYED_HASH_KEY_BYTES, "SipHash-2-4 takes a 16-byte key");
    _Static_assert(crypto_shorthash_siphash24_BYTES == 8, "SipHash-2-4 gives 8 bytes");
    static const uint8_t none[1] = {0};
    uint8_t out[crypto_shorthash_siphash24_BYTES];
    crypto_shorthash_siphash24(out, bytes != NULL ? bytes : none, (unsigned long long)count, key);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | out[i];
    return n;
}

static const uint8_t *nonnull(const uint8_t *bytes) {
    static const uint8_t none[1] = {0};
    return bytes != NULL ? bytes : none;
}

void fa_sha256_init(fa_sha256_state *state) { crypto_hash_sha256_init((crypto_hash_sha256_state *)state); }

void fa_sha256_update(fa_sha256_state *state, const uint8_t *bytes, size_t count) {
    crypto_hash_sha256_update((crypto_hash_sha256_state *)state, nonnull(bytes), (unsigned long long)count);
}

void fa_sha256_final(fa_sha256_state *state, uint8_t *out) { crypto_hash_sha256_final((crypto_hash_sha256_state *)state, out); }

void fa_hmac_sha256_init(fa_hmac_sha256_state *state, const uint8_t *key, size_t key_count) {
    crypto_auth_hmacsha256_init((crypto_auth_hmacsha256_state *)state, nonnull(key), key_count);
}

void fa_hmac_sha256_update(fa_hmac_sha256_state *state, const uint8_t *bytes, size_t count) {
    crypto_auth_hmacsha256_update((crypto_auth_hmacsha256_state *)state, nonnull(bytes), (unsigned long long)count);
}

void fa_hmac_sha256_final(fa_hmac_sha256_state *state, uint8_t *out) {
    crypto_auth_hmacsha256_final((crypto_auth_hmacsha256_state *)state, out);
}

int fa_random(uint8_t *out, size_t count) {
    // sodium_init is safe to call more than once and from several threads.
    if (sodium_init() < 0) return -1;
    randombytes_buf(out, count);
    return 0;
}
