/// The zlib engine, the reference: zlib parses each member's header and
/// checks its trailer itself (inflateValidate left on). Built with either
/// engine: the ISA-L engine hands it a member igzip found damaged.

#if defined(FLIPAUDIT_ZLIB) || defined(FLIPAUDIT_ISAL)

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "engines.h"

struct fa_zlib {
    z_stream z;
    /// After a wrong CRC-32, the trailer's length bytes still to skip
    /// before the damage is told: zlib stops after the CRC, the ISA-L
    /// engine (and flipaudit before either) at the trailer's end, the
    /// offset every message gives.
    unsigned skip;
};

fa_zlib *fa_zlib_new(void) {
    fa_zlib *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    // Window bits 15 + 16: a gzip header and trailer, nothing else.
    if (inflateInit2(&s->z, 15 + 16) != Z_OK) {
        free(s);
        return NULL;
    }
    return s;
}

void fa_zlib_reset(fa_zlib *s) {
    inflateReset(&s->z);
    s->skip = 0;
}

void fa_zlib_free(fa_zlib *s) {
    inflateEnd(&s->z);
    free(s);
}

fa_inflate_status fa_zlib_inflate(fa_zlib *s, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                                  size_t *consumed, size_t *produced, const char **message) {
    if (in_len > UINT32_MAX) in_len = UINT32_MAX;
    if (out_len > UINT32_MAX) out_len = UINT32_MAX;
    *produced = 0;
    *message = NULL;
    if (s->skip > 0) {
        size_t n = in_len < s->skip ? in_len : s->skip;
        s->skip -= (unsigned)n;
        *consumed = n;
        if (s->skip > 0) return FA_INFLATE_PROGRESS;
        *message = "incorrect data check";
        return FA_INFLATE_CORRUPT;
    }
    s->z.next_in = (Bytef *)in;
    s->z.avail_in = (uInt)in_len;
    s->z.next_out = out;
    s->z.avail_out = (uInt)out_len;
    int rc = inflate(&s->z, Z_NO_FLUSH);
    *consumed = in_len - s->z.avail_in;
    *produced = out_len - s->z.avail_out;
    switch (rc) {
    case Z_OK:
    case Z_BUF_ERROR:
        // No progress was possible: the caller must bring more input (or
        // knows the input has ended, which makes it a truncation).
        return FA_INFLATE_PROGRESS;
    case Z_STREAM_END: return FA_INFLATE_MEMBER_END;
    case Z_NEED_DICT: *message = "the stream asks for a preset dictionary, which gzip never uses"; break;
    case Z_DATA_ERROR: {
        *message = s->z.msg != NULL ? s->z.msg : "invalid deflate data";
        if (s->z.msg != NULL && strcmp(s->z.msg, "incorrect data check") == 0) {
            s->skip = 4;
            size_t n = s->z.avail_in < 4 ? s->z.avail_in : 4;
            s->skip -= (unsigned)n;
            *consumed += n;
            if (s->skip > 0) {
                *message = NULL;
                return FA_INFLATE_PROGRESS;
            }
        }
        break;
    }
    case Z_MEM_ERROR: *message = "zlib ran out of memory"; break;
    case Z_STREAM_ERROR: *message = "zlib stream state is inconsistent"; break;
    default: *message = "zlib returned an unknown code"; break;
    }
    return FA_INFLATE_CORRUPT;
}

#endif
