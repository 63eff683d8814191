/// The ISA-L engine: igzip inflates the deflate data and checks the
/// trailer (ISAL_GZIP_NO_HDR_VER); the gzip header is parsed here, with
/// zlib's rules and messages (reserved flags are refused, the header CRC
/// is checked), so that both engines tell the same damage the same way.
///
/// Damage inside the deflate data: igzip's three error codes are coarser
/// than zlib's dozen messages, and it reads up to 8 bytes ahead. When the
/// damaged member began in the failing call's input (a member of a small
/// file, or damage in the member's first 256 KiB of output), the member is
/// handed to the zlib engine, which decodes it again from its first byte:
/// the bytes handed out, the offset and the message are then exactly
/// zlib's. Otherwise igzip's code is told in zlib's words where they match,
/// at the offset of the last byte it used.

#if defined(FLIPAUDIT_ISAL)

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <stdlib.h>

#include "engines.h"

/// Where the header parser is: fixed-size fields (their bytes gathered in
/// `field`), the extra field (skipped), the zero-ended name and comment.
enum { H_MAGIC, H_METHOD, H_FIXED, H_XLEN, H_EXTRA, H_NAME, H_COMMENT, H_HCRC, H_DONE };
enum { FHCRC = 0x02, FEXTRA = 0x04, FNAME = 0x08, FCOMMENT = 0x10, FRESERVED = 0xE0 };

struct fa_isal {
    struct inflate_state state;
    int header;
    /// Bytes of the current header field still to come, and those read.
    uint32_t need, got;
    uint32_t field;
    uint8_t flags;
    /// CRC-32 of the header bytes before the header CRC.
    uint32_t header_crc;
    uint64_t last_in;
    /// Input bytes of the current member used in earlier calls.
    size_t member_in;
    /// zlib, made at the first damaged member, and whether it has the
    /// current member.
    fa_zlib *zlib;
    int handed_over;
};

/// Moves the header parser to `state`, or past it when the flags say the
/// field is absent.
static void enter(fa_isal *s, int state) {
    s->got = 0;
    s->field = 0;
    switch (state) {
    case H_METHOD: s->header = H_METHOD; s->need = 2; return;
    case H_FIXED: s->header = H_FIXED; s->need = 6; return;
    case H_XLEN:
        if (s->flags & FEXTRA) { s->header = H_XLEN; s->need = 2; return; }
        /* fall through */
    case H_NAME:
        if (s->flags & FNAME) { s->header = H_NAME; return; }
        /* fall through */
    case H_COMMENT:
        if (s->flags & FCOMMENT) { s->header = H_COMMENT; return; }
        /* fall through */
    case H_HCRC:
        if (s->flags & FHCRC) { s->header = H_HCRC; s->need = 2; return; }
        /* fall through */
    default: s->header = H_DONE; return;
    }
}

/// Reads header bytes from `in` until the header ends, the input ends or
/// the header is wrong. `*used` bytes were read; non-NULL: zlib's message.
static const char *read_header(fa_isal *s, const uint8_t *in, size_t n, size_t *used) {
    size_t i = 0;
    const char *bad = NULL;
    while (s->header != H_DONE && i < n && bad == NULL) {
        uint8_t b = in[i++];
        if (s->header != H_HCRC) s->header_crc = crc32_gzip_refl(s->header_crc, &b, 1);
        switch (s->header) {
        case H_EXTRA:
            if (--s->need == 0) enter(s, H_NAME);
            continue;
        case H_NAME:
            if (b == 0) enter(s, H_COMMENT);
            continue;
        case H_COMMENT:
            if (b == 0) enter(s, H_HCRC);
            continue;
        default: break;
        }
        s->field |= (uint32_t)b << (8 * s->got);
        if (++s->got < s->need) continue;
        switch (s->header) {
        case H_MAGIC:
            if (s->field != 0x8B1F) bad = "incorrect header check";
            else enter(s, H_METHOD);
            break;
        case H_METHOD:
            s->flags = (uint8_t)(s->field >> 8);
            if ((s->field & 0xFF) != 8) bad = "unknown compression method";
            else if (s->flags & FRESERVED) bad = "unknown header flags set";
            else enter(s, H_FIXED);
            break;
        case H_FIXED: enter(s, H_XLEN); break;
        case H_XLEN:
            if (s->field == 0) { enter(s, H_NAME); break; }
            s->header = H_EXTRA;
            s->need = s->field;
            break;
        case H_HCRC:
            if (s->field != (s->header_crc & 0xFFFF)) bad = "header crc mismatch";
            else enter(s, H_DONE);
            break;
        }
    }
    *used = i;
    return bad;
}

fa_isal *fa_isal_new(void) {
    fa_isal *s = malloc(sizeof *s);
    if (s == NULL) return NULL;
    isal_inflate_init(&s->state);
    s->zlib = NULL;
    fa_isal_reset(s);
    return s;
}

void fa_isal_reset(fa_isal *s) {
    isal_inflate_reset(&s->state);
    s->state.crc_flag = ISAL_GZIP_NO_HDR_VER;
    s->header = H_MAGIC;
    s->need = 2;
    s->got = 0;
    s->field = 0;
    s->flags = 0;
    s->header_crc = 0;
    s->last_in = 0;
    s->member_in = 0;
    s->handed_over = 0;
}

void fa_isal_free(fa_isal *s) {
    if (s->zlib != NULL) fa_zlib_free(s->zlib);
    free(s);
}

static fa_inflate_status step(fa_isal *s, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                              size_t *consumed, size_t *produced, const char **message) {
    // igzip counts in 32 bits; the rest is left for the next call.
    if (in_len > UINT32_MAX) in_len = UINT32_MAX;
    if (out_len > UINT32_MAX) out_len = UINT32_MAX;
    size_t used = 0;
    *produced = 0;
    *message = NULL;
    if (s->header != H_DONE) {
        const char *bad = read_header(s, in, in_len, &used);
        s->last_in = fa_shift_in(s->last_in, in, used);
        *consumed = used;
        if (bad != NULL) {
            *message = bad;
            return FA_INFLATE_CORRUPT;
        }
        if (s->header != H_DONE) return FA_INFLATE_PROGRESS;
    }
    struct inflate_state *st = &s->state;
    st->next_in = (uint8_t *)in + used;
    st->avail_in = (uint32_t)(in_len - used);
    st->next_out = out;
    st->avail_out = (uint32_t)out_len;
    int rc = isal_inflate(st);
    size_t took = (size_t)(st->next_in - (in + used));
    *produced = out_len - st->avail_out;
    s->last_in = fa_shift_in(s->last_in, in, used + took);
    *consumed = used + took;
    switch (rc) {
    case ISAL_DECOMP_OK:
        return st->block_state == ISAL_BLOCK_FINISH ? FA_INFLATE_MEMBER_END : FA_INFLATE_PROGRESS;
    default: break;
    }
    // Damage: a wrong trailer too, for igzip accepts some Huffman codes zlib
    // refuses (incomplete ones), and decodes on to the trailer.
    if (s->member_in == 0) {
        // The member's first byte is in[0]: zlib decodes it again.
        if (s->zlib == NULL) s->zlib = fa_zlib_new();
        if (s->zlib != NULL) {
            fa_zlib_reset(s->zlib);
            s->handed_over = 1;
            return fa_zlib_inflate(s->zlib, in, in_len, out, out_len, consumed, produced, message);
        }
    }
    switch (rc) {
    case ISAL_INCORRECT_CHECKSUM:
        // The whole trailer was read: its CRC-32 first, as zlib checks.
        *message = (uint32_t)s->last_in != st->crc ? "incorrect data check" : "incorrect length check";
        return FA_INFLATE_CORRUPT;
    case ISAL_INVALID_BLOCK: *message = "invalid deflate block header"; break;
    case ISAL_INVALID_SYMBOL: *message = "invalid literal/length or distance code"; break;
    case ISAL_INVALID_LOOKBACK: *message = "invalid distance too far back"; break;
    default: *message = "invalid deflate data"; break;
    }
    // The bits igzip holds ahead were not used.
    if (st->read_in_length > 0) *consumed -= (size_t)st->read_in_length / 8 < took ? (size_t)st->read_in_length / 8 : took;
    return FA_INFLATE_CORRUPT;
}

fa_inflate_status fa_isal_inflate(fa_isal *s, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                                  size_t *consumed, size_t *produced, const char **message) {
    fa_inflate_status status = s->handed_over
                                   ? fa_zlib_inflate(s->zlib, in, in_len, out, out_len, consumed, produced, message)
                                   : step(s, in, in_len, out, out_len, consumed, produced, message);
    s->member_in += *consumed;
    return status;
}

#endif
