#ifndef FLIPAUDIT_INFLATE_ENGINES_H
#define FLIPAUDIT_INFLATE_ENGINES_H

/// The two engines behind flipaudit_inflate.h, each under names of its own
/// so that both can be linked into one program (the differential fuzz
/// target, Fuzz/inflate/diff.c). The package's traits define FLIPAUDIT_ISAL
/// (the default) or FLIPAUDIT_ZLIB: engine_isal.c compiles to nothing
/// without the first, engine_zlib.c is built with either (the ISA-L engine
/// hands it damaged members).

#include "flipaudit_inflate.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fa_isal fa_isal;
fa_isal *fa_isal_new(void);
void fa_isal_reset(fa_isal *s);
void fa_isal_free(fa_isal *s);
fa_inflate_status fa_isal_inflate(fa_isal *s, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                                  size_t *consumed, size_t *produced, const char **message);

typedef struct fa_zlib fa_zlib;
fa_zlib *fa_zlib_new(void);
void fa_zlib_reset(fa_zlib *s);
void fa_zlib_free(fa_zlib *s);
fa_inflate_status fa_zlib_inflate(fa_zlib *s, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                                  size_t *consumed, size_t *produced, const char **message);

/// The last 8 bytes of `in[0..<n]` shifted into `last` (the oldest in the
/// low byte): at a member's end, its trailer (CRC-32, then length).
static inline uint64_t fa_shift_in(uint64_t last, const uint8_t *in, size_t n) {
    size_t i = n > 8 ? n - 8 : 0;
    for (; i < n; i++) last = last >> 8 | (uint64_t)in[i] << 56;
    return last;
}

#ifdef __cplusplus
}
#endif

#endif
