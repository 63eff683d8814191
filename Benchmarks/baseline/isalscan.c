/*
 * The C baseline over ISA-L: zscan.c with zlib's inflate replaced by ISA-L's
 * igzip (isal_inflate, streaming, each member's gzip header parsed and its
 * CRC-32 and length checked by igzip, every member of a multi-member file).
 * 256 KiB buffers, lines split with memchr, memmem for "state=" on each
 * line; it prints the same counts as zscan.
 *
 *   cc -O2 -o isalscan isalscan.c -lisal && ./isalscan FILE...
 *   ./isalscan --inflate-only FILE...   (no line scan: the floor)
 */
#define _GNU_SOURCE
#include <isa-l/igzip_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (256 * 1024)

static unsigned char in[CHUNK];
static unsigned char out[CHUNK + 65536];
static struct inflate_state s;

int main(int argc, char **argv) {
    int inflate_only = 0;
    unsigned long long lines = 0, hits = 0, bytes = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--inflate-only") == 0) { inflate_only = 1; continue; }
        FILE *f = fopen(argv[a], "rb");
        if (!f) { perror(argv[a]); return 2; }
        isal_inflate_init(&s);
        s.crc_flag = ISAL_GZIP;
        s.avail_in = 0;
        size_t carry = 0;
        for (;;) {
            if (s.avail_in == 0) {
                size_t n = fread(in, 1, CHUNK, f);
                if (n == 0) break;
                s.next_in = in;
                s.avail_in = (uint32_t)n;
            }
            s.next_out = out + carry;
            s.avail_out = CHUNK;
            int ret = isal_inflate(&s);
            if (ret != ISAL_DECOMP_OK) {
                fprintf(stderr, "%s: igzip error %d\n", argv[a], ret);
                return 3;
            }
            if (s.block_state == ISAL_BLOCK_FINISH) {
                // The next member: next_in and avail_in are kept.
                isal_inflate_reset(&s);
                s.crc_flag = ISAL_GZIP;
            }
            size_t have = carry + (CHUNK - s.avail_out);
            bytes += CHUNK - s.avail_out;
            if (inflate_only) { carry = 0; continue; }
            unsigned char *p = out, *end = out + have;
            for (;;) {
                unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
                if (!nl) break;
                lines++;
                if (memmem(p, (size_t)(nl - p), "state=", 6)) hits++;
                p = nl + 1;
            }
            carry = (size_t)(end - p);
            if (carry > 65536) carry = 0; /* an over-long line: drop it */
            memmove(out, p, carry);
        }
        fclose(f);
    }
    printf("%llu bytes %llu lines %llu state lines\n", bytes, lines, hits);
    return 0;
}
