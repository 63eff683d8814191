#define _GNU_SOURCE
// Line ends and plain lines in one pass (see flipaudit_lines.h).
//
// A byte is a mark when it is NUL, a backslash or >= 0x80. With
// f = min(b, b ^ '\\') (unsigned), f is 0 for NUL and backslash, >= 0x80
// for a high byte and 1..0x7F otherwise; read as a signed byte, a mark is
// exactly f < 1. Each 64-byte step makes two bit words, newlines and
// marks; a line is plain when no mark lies between its start and its
// newline.

#include "flipaudit_lines.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#define FA_LINES_AVX2 1
#endif

static inline int is_mark(uint8_t b) { return b == 0 || b == '\\' || b >= 0x80; }

size_t fa_line_ends_portable(const uint8_t *bytes, size_t count, uint32_t *ends, size_t capacity) {
    size_t found = 0, start = 0;
    while (found < capacity && start < count) {
        const uint8_t *newline = memchr(bytes + start, '\n', count - start);
        if (newline == NULL) break;
        size_t end = (size_t)(newline - bytes);
        uint32_t flag = 0;
        for (size_t i = start; i < end; i++) {
            if (is_mark(bytes[i])) {
                flag = FA_LINE_NOT_PLAIN;
                break;
            }
        }
        ends[found++] = (uint32_t)end | flag;
        start = end + 1;
    }
    return found;
}

#ifdef FA_LINES_AVX2
/// The line ends of one 64-byte step at `at`, given its newline and mark
/// bit words; false when `ends` is full.
__attribute__((target("avx2,bmi,lzcnt"), always_inline)) static inline int
step_ends(size_t at, uint64_t newlines, uint64_t marks, int64_t *lastMark, size_t *start, uint32_t *ends,
          size_t *found, size_t capacity) {
    if (marks == 0) {
        // The usual step: the marks before it decide for every line.
        while (newlines != 0) {
            size_t end = at + (unsigned)__builtin_ctzll(newlines);
            ends[(*found)++] = (uint32_t)end | (*lastMark >= (int64_t)*start ? FA_LINE_NOT_PLAIN : 0);
            *start = end + 1;
            if (*found == capacity) return 0;
            newlines &= newlines - 1;
        }
        return 1;
    }
    while (newlines != 0) {
        unsigned bit = (unsigned)__builtin_ctzll(newlines);
        size_t end = at + bit;
        uint64_t before = marks & ((UINT64_C(1) << bit) - 1);
        int64_t mark = before != 0 ? (int64_t)(at + 63 - (unsigned)__builtin_clzll(before)) : *lastMark;
        ends[(*found)++] = (uint32_t)end | (mark >= (int64_t)*start ? FA_LINE_NOT_PLAIN : 0);
        *start = end + 1;
        if (*found == capacity) return 0;
        newlines &= newlines - 1;
    }
    *lastMark = (int64_t)(at + 63 - (unsigned)__builtin_clzll(marks));
    return 1;
}

__attribute__((target("avx2,bmi,lzcnt"))) static size_t line_ends_avx2(const uint8_t *bytes, size_t count,
                                                                       uint32_t *ends, size_t capacity) {
    const __m256i newline = _mm256_set1_epi8('\n');
    const __m256i backslash = _mm256_set1_epi8('\\');
    const __m256i one = _mm256_set1_epi8(1);
    size_t found = 0;
    size_t start = 0;
    // Where the last mark before the current step is, or -1.
    int64_t lastMark = -1;
    if (capacity == 0) return 0;
    // The last 1-63 bytes are copied to `tail`, after bytes that are
    // neither newlines nor marks: no load reads past `count`.
    uint8_t tail[64];
    size_t whole = count & ~(size_t)63;
    for (size_t at = 0; at <= whole; at += 64) {
        const uint8_t *block = bytes + at;
        if (at == whole) {
            if (at == count) break;
            memset(tail, 'a', sizeof tail);
            memcpy(tail, block, count - at);
            block = tail;
        }
        __m256i low = _mm256_loadu_si256((const __m256i *)block);
        __m256i high = _mm256_loadu_si256((const __m256i *)(block + 32));
        uint64_t newlines = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(low, newline)) |
                            (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(high, newline)) << 32;
        __m256i lowFolded = _mm256_min_epu8(low, _mm256_xor_si256(low, backslash));
        __m256i highFolded = _mm256_min_epu8(high, _mm256_xor_si256(high, backslash));
        // Marks are rare (about one line in a thousand): whether the step
        // has any is one test (a mark is <= 0 as a signed byte, so it
        // survives a signed minimum); where they are, only when it does.
        uint64_t marks = 0;
        if (_mm256_movemask_epi8(_mm256_cmpgt_epi8(one, _mm256_min_epi8(lowFolded, highFolded))) != 0) {
            marks = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(one, lowFolded)) |
                    (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(one, highFolded)) << 32;
        }
        if (!step_ends(at, newlines, marks, &lastMark, &start, ends, &found, capacity)) return found;
    }
    return found;
}
#endif

size_t fa_line_ends(const uint8_t *bytes, size_t count, uint32_t *ends, size_t capacity) {
#ifdef FA_LINES_AVX2
    if (__builtin_cpu_supports("avx2")) return line_ends_avx2(bytes, count, ends, capacity);
#endif
    return fa_line_ends_portable(bytes, count, ends, capacity);
}

long fa_last_line_with_prefix(const uint8_t *bytes, size_t count, const uint8_t *prefix, size_t length) {
    if (length == 0) return -1;
    size_t end = count;
    while (end > 0) {
        const uint8_t *found = memrchr(bytes, prefix[0], end);
        if (!found) return -1;
        size_t at = (size_t)(found - bytes);
        if ((at == 0 || bytes[at - 1] == '\n') && count - at >= length && memcmp(found, prefix, length) == 0) return (long)at;
        end = at;
    }
    return -1;
}
