#ifndef FLIPAUDIT_LINES_H
#define FLIPAUDIT_LINES_H

/// One pass over decoded bytes that finds where lines end and which lines
/// are plain: no NUL byte, no byte >= 0x80 and no backslash (such a line is
/// valid UTF-8 and needs no unescaping). With AVX2 sixty-four bytes are
/// looked at per step, newlines and marks together, so a line's bytes are
/// read once here instead of once by `memchr` and once by a check.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Set in a line end when its line is not plain.
#define FA_LINE_NOT_PLAIN 0x80000000u

/// The most bytes one call looks at: offsets fit in 31 bits.
#define FA_LINES_MAX_BYTES 1073741824

/// Finds the first `capacity` (or fewer) newlines of `bytes[0..<count]`
/// (`count` at most FA_LINES_MAX_BYTES). Writes each one's offset to
/// `ends`, with FA_LINE_NOT_PLAIN set when a NUL, a byte >= 0x80 or a
/// backslash lies between it and the end before it (or `bytes` for the
/// first); returns how many it wrote. Fewer than `capacity` means that no
/// newline follows the last one written.
size_t fa_line_ends(const uint8_t *bytes, size_t count, uint32_t *ends, size_t capacity);

/// The same, one byte at a time: what machines without AVX2 run, and what
/// the tests hold the fast pass to.
size_t fa_line_ends_portable(const uint8_t *bytes, size_t count, uint32_t *ends, size_t capacity);

/// The offset of the last line of `bytes[0..<count]` that starts with
/// `prefix` (a line starts at 0 or after a newline), or -1: one `memrchr`
/// for the prefix's first byte, backwards (W3C's `#Fields:` lines, which
/// name the columns of the lines after them).
long fa_last_line_with_prefix(const uint8_t *bytes, size_t count, const uint8_t *prefix, size_t length);

#ifdef __cplusplus
}
#endif

#endif
