#ifndef FLIPAUDIT_INFLATE_H
#define FLIPAUDIT_INFLATE_H

/// flipaudit's one streaming gzip decoder, the same calls whichever engine
/// is built behind them: ISA-L's igzip (the default) or zlib (the
/// reference, package trait `zlib`). Each member's header is parsed and its
/// trailer checked (CRC-32, then length) with zlib's messages; a member
/// ends, `fa_inflater_reset` starts the next one.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A decoder's state (a window of 32 KiB and the engine's tables).
typedef struct fa_inflater fa_inflater;

/// How one `fa_inflate` call ended.
typedef enum fa_inflate_status {
    /// More input or more output space is needed; nothing is wrong.
    FA_INFLATE_PROGRESS = 0,
    /// The member's trailer was read and matches its data.
    FA_INFLATE_MEMBER_END = 1,
    /// The data is not a valid gzip member; `*message` says why.
    FA_INFLATE_CORRUPT = 2,
} fa_inflate_status;

/// A decoder ready for a gzip member; NULL when out of memory.
fa_inflater *fa_inflater_new(void);
/// Prepares for the next member (after a member end, damage, or to reuse
/// the decoder for another input), keeping the allocated state.
void fa_inflater_reset(fa_inflater *inflater);
void fa_inflater_free(fa_inflater *inflater);

/// Decodes as much of `in` into `out` as fits. `*consumed` input bytes were
/// used (at a member end: up to its trailer's last byte, never past it) and
/// `*produced` output bytes written, also when the call reports damage (the
/// bytes decoded before it). `*message` is set for FA_INFLATE_CORRUPT only
/// (a static string).
fa_inflate_status fa_inflate(fa_inflater *inflater, const uint8_t *in, size_t in_len, uint8_t *out,
                             size_t out_len, size_t *consumed, size_t *produced,
                             const char **message);

/// The same calls for a short look at an input's first bytes (the audit
/// ranks inputs by their first record's time): zlib, whichever engine is
/// built. zlib stops where the room it is given ends; igzip, given a few
/// KiB, decodes up to 64 KiB ahead into a buffer of its own, which for a
/// folder of small files is most of each file, decoded twice.
fa_inflater *fa_inflater_new_look(void);
void fa_inflater_reset_look(fa_inflater *inflater);
void fa_inflater_free_look(fa_inflater *inflater);
fa_inflate_status fa_inflate_look(fa_inflater *inflater, const uint8_t *in, size_t in_len, uint8_t *out,
                                  size_t out_len, size_t *consumed, size_t *produced, const char **message);

/// "isa-l" or "zlib": the engine built.
const char *fa_inflate_engine(void);

#ifdef __cplusplus
}
#endif

#endif
