#!/usr/bin/env python3
"""Writes the small binary test fixtures in Tests/FlipAuditTests/Fixtures.

Deterministic (gzip mtime 0), so running it again changes nothing. The
fixtures are real gzip/bzip2/xz/zstd files around real access-log lines.
"""
import bz2
import gzip
import lzma
import os
import struct

OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "FlipAuditTests", "Fixtures")

LINES = [
    '203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET /oauth/authorize?response_type=code&client_id=G123&redirect_uri=https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA&state=s1&scope=a+b HTTP/1.1" 302 0 "-" "GoogleApp/1.0" "https://oauth-redirect.googleusercontent.com/a/com.google.OPA?code=c1&state=s1"',
    '198.51.100.4 - - [22/Nov/2026:10:00:02 +0000] "GET /static/app.js HTTP/1.1" 200 5120 "-" "Mozilla/5.0" "-"',
    '198.51.100.5 - - [22/Nov/2026:10:00:03 +0000] "GET /api/v1/devices?page=2 HTTP/1.1" 200 812 "-" "okhttp/4.12.0" "-"',
]


def member(lines, prefix):
    return gzip.compress("".join("%s\n" % l.replace("s1", prefix) for l in lines).encode(), compresslevel=6, mtime=0)


def zstd_raw_frame(payload):
    """A valid zstd frame holding one raw (stored) block."""
    assert len(payload) < 256
    header = b"\x28\xb5\x2f\xfd" + bytes([0x20, len(payload)])  # single segment, 1-byte content size
    block = (1 | (0 << 1) | (len(payload) << 3)).to_bytes(3, "little")
    return header + block + payload


def main():
    os.makedirs(OUT, exist_ok=True)
    w = lambda name, data: open(os.path.join(OUT, name), "wb").write(data)
    # Three members, as `cat a.gz b.gz c.gz` makes them; 9 lines.
    w("multi-member.log.gz", member(LINES, "m1") + member(LINES, "m2") + member(LINES, "m3"))
    # Two members; the second is cut in the middle of its deflate data.
    second = member(LINES * 40, "t2")
    w("truncated.log.gz", member(LINES, "t1") + second[: len(second) // 2])
    # Three members; the middle one has damaged deflate data.
    bad = bytearray(member(LINES * 40, "c2"))
    for i in range(20, 60):
        bad[i] ^= 0x5A
    w("corrupt-middle.log.gz", member(LINES, "c1") + bytes(bad) + member(LINES, "c3"))
    # A member followed by bytes that are not gzip.
    w("trailing-garbage.log.gz", member(LINES, "g1") + b"this is not gzip\n")
    w("zero-byte.log.gz", b"")
    w("empty-file.log", b"")
    w("empty-member.log.gz", gzip.compress(b"", mtime=0))
    w("plain.log", ("\n".join(LINES) + "\n").encode())
    w("crlf.log.gz", gzip.compress(("\r\n".join(LINES)).encode(), mtime=0))  # CRLF, no final line end
    payload = ("\n".join(LINES[1:2]) + "\n").encode()
    w("access.log.zst", zstd_raw_frame(payload[:200]))
    w("access.log.bz2", bz2.compress(payload))
    w("access.log.xz", lzma.compress(payload))


if __name__ == "__main__":
    main()
