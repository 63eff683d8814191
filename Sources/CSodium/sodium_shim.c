// SipHash-2-4 through libsodium (see flipaudit_keyed_hash.h).

#include "flipaudit_keyed_hash.h"

#include <sodium.h>

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
