/// Differential fuzz target: the same bytes through both inflate engines
/// (Sources/CInflate: ISA-L and zlib), each driven the way LogFileReader
/// drives it (members one after another, zero padding between them, bytes
/// after the last member an error, input in pieces, output in chunks).
///
/// What must hold, and why:
///  1. No damage seen by either: the same decoded bytes and the same member
///     ends (output length at each), at every piece and chunk size.
///  2. Damage seen by one is seen by the other (corrupt, truncated or bytes
///     after the last member, the kind may differ: where the input ends
///     inside a broken member, one engine may run out of input before it
///     sees the broken code the other saw).
///  3. With damage, each engine's output is a prefix of the other's (both
///     decode the same stream; how much is handed out before the damage is
///     told depends on each engine's buffering), and the member ends both
///     saw are at the same output lengths.
///  4. Where zlib tells damage in a header or trailer (its messages listed
///     in `exact`), ISA-L tells the same message at the same offset: these
///     are the texts users and tests see.
///  5. Inside deflate data, with the whole input in one piece (the reader's
///     case for a small file): the ISA-L engine hands a damaged member to
///     zlib, so both tell the same message at the same offset after the
///     same decoded bytes. Checked where all the output fits one chunk, so
///     that the damaged member was decoded in one call; past that, ISA-L
///     tells its own message after the bytes it decoded.
///
/// One difference is allowed, and checked to be only that: igzip accepts
/// some Huffman code sets zlib refuses (incomplete ones, "invalid code
/// lengths set" and the like). Where zlib stops at such a set, igzip may
/// decode on; the member is then damaged for igzip only if its trailer
/// says so. From there on the two engines part: each output is still a
/// prefix of the other's, and igzip saw every member end zlib saw.
///
/// Build: Fuzz/run.sh (clang -fsanitize=fuzzer,address, both engine files
/// with FLIPAUDIT_ISAL and FLIPAUDIT_ZLIB defined, -lisal -lz).
/// `-DDIFF_MAIN` gives a plain program printing each engine's verdict.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines.h"

enum { CLEAN, CORRUPT, TRUNCATED, GARBAGE };
/// LogFileReader.bufferSize: its read and decode sizes.
enum { CHUNK = 256 * 1024 };
static const char *kinds[] = {"clean", "corrupt", "truncated", "trailing garbage"};

typedef struct {
    uint8_t *out;
    size_t out_len, out_cap;
    size_t ends[256];
    int n_ends;
    int kind;
    size_t offset;
    const char *message;
} result;

typedef fa_inflate_status (*inflate_fn)(void *, const uint8_t *, size_t, uint8_t *, size_t, size_t *, size_t *,
                                        const char **);
typedef void (*reset_fn)(void *);

static void append(result *r, const uint8_t *p, size_t n) {
    if (r->out_len + n > r->out_cap) {
        r->out_cap = (r->out_len + n) * 2 + 4096;
        r->out = realloc(r->out, r->out_cap);
        if (r->out == NULL) abort();
    }
    memcpy(r->out + r->out_len, p, n);
    r->out_len += n;
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/// LogFileReader.inflateNext over `data`, read `piece` bytes at a time,
/// decoded into chunks of `out_size` bytes.
static void drive(void *engine, inflate_fn inflate, reset_fn reset, const uint8_t *data, size_t n, size_t piece,
                  size_t out_size, uint8_t *chunk, result *r) {
    size_t pos = 0, limit = min_size(n, piece);
    int member_open = 1;
    r->kind = CLEAN;
    reset(engine);
    for (;;) {
        if (pos == limit) {
            if (limit == n) {
                if (member_open) r->kind = TRUNCATED, r->offset = n;
                return;
            }
            limit = min_size(n, pos + piece);
        }
        if (!member_open) {
            if (data[pos] == 0) {
                while (pos < limit && data[pos] == 0) pos++;
                continue;
            }
            if (limit - pos < 2 && limit < n) {
                limit = min_size(n, limit + piece);
                continue;
            }
            if (limit - pos < 2 || data[pos] != 0x1F || data[pos + 1] != 0x8B) {
                r->kind = GARBAGE, r->offset = pos;
                return;
            }
            reset(engine);
            member_open = 1;
        }
        size_t consumed = 0, produced = 0;
        const char *message = NULL;
        fa_inflate_status status = inflate(engine, data + pos, limit - pos, chunk, out_size, &consumed, &produced,
                                           &message);
        if (consumed > limit - pos || produced > out_size) abort();
        pos += consumed;
        append(r, chunk, produced);
        if (status == FA_INFLATE_MEMBER_END) {
            member_open = 0;
            if (r->n_ends < 256) r->ends[r->n_ends] = r->out_len;
            r->n_ends++;
        } else if (status == FA_INFLATE_CORRUPT) {
            if (message == NULL) abort();
            r->kind = CORRUPT, r->offset = pos, r->message = message;
            return;
        } else if (consumed == 0 && produced == 0 && pos < limit) {
            // The engine wants more input than the window holds.
            if (limit == n) {
                r->kind = TRUNCATED, r->offset = n;
                return;
            }
            limit = min_size(n, limit + piece);
        }
    }
}

static fa_isal *isal;
static fa_zlib *zlib;
static uint8_t *chunk;

static void run(const uint8_t *data, size_t n, size_t piece, size_t out_size, result *a, result *b) {
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    drive(isal, (inflate_fn)fa_isal_inflate, (reset_fn)fa_isal_reset, data, n, piece, out_size, chunk, a);
    drive(zlib, (inflate_fn)fa_zlib_inflate, (reset_fn)fa_zlib_reset, data, n, piece, out_size, chunk, b);
}

static void fail(const char *rule, const result *a, const result *b, size_t piece, size_t out_size) {
    fprintf(stderr,
            "inflate diff: %s (piece %zu, chunk %zu)\n  isa-l: %s at %zu (%s), %zu bytes, %d ends\n"
            "  zlib:  %s at %zu (%s), %zu bytes, %d ends\n",
            rule, piece, out_size, kinds[a->kind], a->offset, a->message ? a->message : "-", a->out_len, a->n_ends,
            kinds[b->kind], b->offset, b->message ? b->message : "-", b->out_len, b->n_ends);
    abort();
}

static int exact(const char *message) {
    static const char *texts[] = {"incorrect header check", "unknown compression method", "unknown header flags set",
                                  "header crc mismatch",    "incorrect data check",       "incorrect length check"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (message && strcmp(message, texts[i]) == 0) return 1;
    return 0;
}

/// zlib's messages for a Huffman code set it refuses.
static int code_set(const char *message) {
    static const char *texts[] = {"invalid code lengths set", "invalid literal/lengths set", "invalid distances set"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (message && strcmp(message, texts[i]) == 0) return 1;
    return 0;
}

static void check(const result *a, const result *b, size_t piece, size_t out_size, int whole) {
    if (b->kind == CORRUPT && code_set(b->message) &&
        (a->kind != CORRUPT || a->n_ends != b->n_ends || strcmp(a->message, b->message) != 0)) {
        // The one allowed difference (see the top of the file).
        size_t common = min_size(a->out_len, b->out_len);
        if (memcmp(a->out, b->out, common) != 0) fail("decoded bytes differ (rule 3)", a, b, piece, out_size);
        if (a->n_ends < b->n_ends) fail("member ends differ (rule 3)", a, b, piece, out_size);
        for (int i = 0; i < b->n_ends && i < 256; i++)
            if (a->ends[i] != b->ends[i]) fail("member ends differ (rule 3)", a, b, piece, out_size);
        return;
    }
    if ((a->kind == CLEAN) != (b->kind == CLEAN)) fail("damage seen by one engine only (rule 2)", a, b, piece, out_size);
    size_t common = min_size(a->out_len, b->out_len);
    if (a->kind == CLEAN && a->out_len != b->out_len) fail("decoded lengths differ (rule 1)", a, b, piece, out_size);
    if (memcmp(a->out, b->out, common) != 0) fail("decoded bytes differ (rules 1, 3)", a, b, piece, out_size);
    if (a->kind == CLEAN && a->n_ends != b->n_ends) fail("member ends differ (rule 1)", a, b, piece, out_size);
    int both = a->n_ends < b->n_ends ? a->n_ends : b->n_ends;
    if (a->kind != CLEAN && a->n_ends != b->n_ends) fail("member ends differ (rule 3)", a, b, piece, out_size);
    for (int i = 0; i < both && i < 256; i++)
        if (a->ends[i] != b->ends[i]) fail("member ends differ (rules 1, 3)", a, b, piece, out_size);
    if (b->kind == CORRUPT && exact(b->message)) {
        if (a->kind != CORRUPT || strcmp(a->message, b->message) != 0 || a->offset != b->offset)
            fail("header or trailer damage told differently (rule 4)", a, b, piece, out_size);
    }
    if (whole && a->kind == CORRUPT && b->kind == CORRUPT && a->out_len < CHUNK && b->out_len < CHUNK) {
        if (strcmp(a->message, b->message) != 0 || a->offset != b->offset || a->out_len != b->out_len)
            fail("damage handed to zlib told differently (rule 5)", a, b, piece, out_size);
    }
}

static void setup(void) {
    if (isal) return;
    isal = fa_isal_new();
    zlib = fa_zlib_new();
    chunk = malloc(CHUNK);
    if (!isal || !zlib || !chunk) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    setup();
    // Only what LogFileReader would call gzip.
    if (n < 2 || data[0] != 0x1F || data[1] != 0x8B) return 0;
    // The reader's own sizes, and small ones from the input's length (every
    // split of headers, trailers and blocks across calls, over time).
    static const size_t pieces[] = {1, 2, 3, 5, 8, 13, 64, 4096};
    static const size_t chunks[] = {1, 7, 64, 1000, 32768};
    const size_t sizes[][2] = {{CHUNK, CHUNK}, {pieces[n % 8], chunks[n / 8 % 5]}};
    result a, b;
    for (int i = 0; i < 2; i++) {
        run(data, n, sizes[i][0], sizes[i][1], &a, &b);
        check(&a, &b, sizes[i][0], sizes[i][1], i == 0);
        free(a.out);
        free(b.out);
    }
    return 0;
}

#ifdef DIFF_MAIN
int main(int argc, char **argv) {
    setup();
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) { perror(argv[i]); return 2; }
        static uint8_t buf[1 << 24];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        result a, b;
        run(buf, n, CHUNK, CHUNK, &a, &b);
        printf("%s\n  isa-l: %s at %zu (%s), %zu bytes, %d ends\n  zlib:  %s at %zu (%s), %zu bytes, %d ends\n",
               argv[i], kinds[a.kind], a.offset, a.message ? a.message : "-", a.out_len, a.n_ends, kinds[b.kind],
               b.offset, b.message ? b.message : "-", b.out_len, b.n_ends);
        LLVMFuzzerTestOneInput(buf, n);
        free(a.out);
        free(b.out);
    }
    return 0;
}
#endif
