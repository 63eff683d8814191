/*
 * The C baseline of the benchmark: what a careful single-threaded scanner of
 * gzip'd access logs costs. zlib inflate with 256 KiB buffers (every member
 * of a multi-member file), lines split with memchr, and memmem for "state="
 * on each line. It prints the line count and the number of lines with
 * "state=", so its work cannot be optimised away.
 *
 *   cc -O2 -o zscan zscan.c -lz && ./zscan FILE...
 *   ./zscan --inflate-only FILE...   (no line scan: the floor)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CHUNK (256 * 1024)

static unsigned char in[CHUNK];
static unsigned char out[CHUNK + 65536];

int main(int argc, char **argv) {
    int inflate_only = 0;
    unsigned long long lines = 0, hits = 0, bytes = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--inflate-only") == 0) { inflate_only = 1; continue; }
        FILE *f = fopen(argv[a], "rb");
        if (!f) { perror(argv[a]); return 2; }
        z_stream s;
        memset(&s, 0, sizeof s);
        if (inflateInit2(&s, 15 + 16) != Z_OK) return 2;
        size_t carry = 0;
        int ret = Z_OK;
        for (;;) {
            if (s.avail_in == 0) {
                size_t n = fread(in, 1, CHUNK, f);
                if (n == 0) break;
                s.next_in = in;
                s.avail_in = (uInt)n;
            }
            s.next_out = out + carry;
            s.avail_out = CHUNK;
            ret = inflate(&s, Z_NO_FLUSH);
            if (ret == Z_STREAM_END) {
                inflateReset(&s);
            } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
                fprintf(stderr, "%s: zlib error %d\n", argv[a], ret);
                return 3;
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
        inflateEnd(&s);
        fclose(f);
    }
    printf("%llu bytes %llu lines %llu state lines\n", bytes, lines, hits);
    return 0;
}
