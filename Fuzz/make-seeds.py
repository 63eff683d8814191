#!/usr/bin/env python3
"""Writes the committed seed corpus of the fuzz targets from SampleLogs and
the test fixtures: a few real flip lines of each format, URLs, gzip files."""
import gzip, os, re, shutil, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
corpus = os.path.join(root, "Fuzz", "Corpus")

def lines(name):
    with gzip.open(os.path.join(root, "SampleLogs", name), "rt", encoding="utf-8") as f:
        return f.read().splitlines()

def write(target, name, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))

for target in ("FuzzRecords", "FuzzQuery", "FuzzGzip"):
    shutil.rmtree(os.path.join(corpus, target), ignore_errors=True)

flip = re.compile(r"state=|code=|error=")
for name in ("web1-access.log.gz", "web2-access.json.gz", "web3-access-rotated.log.gz", "legacy-no-location.log.gz"):
    picked = [l for l in lines(name) if flip.search(l)][:24]
    for i in range(0, len(picked), 4):
        write("FuzzRecords", f"{name.split('.')[0]}-{i // 4}", "\n".join(picked[i:i + 4]) + "\n")
    urls = [u for l in picked for u in re.findall(r"https?://[^\s\"]+|/oauth/[^\s\"]+", l)]
    for i, u in enumerate(urls[:12]):
        write("FuzzQuery", f"{name.split('.')[0]}-{i}", u)
for i, u in enumerate([
    "https://oauth-redirect.googleusercontent.com/a/com.google.OPA",
    "https://oauth-redirect.googleusercontent.com@evil.example/a/com.google.OPA",
    "https://oauth-redirect.googleusercontent.com.evil.example/a/com.google.Chromecast",
    "https://oauth-redirect-sandbox.googleusercontent.com/r/my-project?code=AbCdEfGhIjKlMnOp&state=s1",
    "https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA%zz+x",
    "22/Nov/2026:10:00:01 +0100", "2026-11-22T10:00:01.123+05:30", "1763805601.5",
    "=cmd|' /C calc'!A0", "st\u202eate\x1b[31m",
]):
    write("FuzzQuery", f"edge-{i}", u)
fixtures = os.path.join(root, "Tests", "FlipAuditTests", "Fixtures")
for name in sorted(os.listdir(fixtures)):
    if not os.path.isfile(os.path.join(fixtures, name)):
        continue
    with open(os.path.join(fixtures, name), "rb") as f:
        write("FuzzGzip", name, f.read())

# FuzzInflate (Fuzz/inflate/diff.c): gzip streams for both inflate engines —
# the gzip fixtures, every optional header field (and a header CRC right and
# wrong), reserved flags, another method, stored, fixed and dynamic blocks,
# members with zero padding between them, damaged trailers, a cut member.
# Files named regression-* there are fuzzer findings, kept by hand.
import struct, zlib
for name in sorted(os.listdir(fixtures)):
    if not os.path.isfile(os.path.join(fixtures, name)):
        continue
    with open(os.path.join(fixtures, name), "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        write("FuzzInflate", name, data)

def member(text, level=6, flags=0, extra=b"", name=b"", comment=b"", hcrc=None, method=8):
    body = zlib.compressobj(level, zlib.DEFLATED, -15)
    deflated = body.compress(text) + body.flush()
    head = struct.pack("<BBBBIBB", 0x1F, 0x8B, method, flags, 0, 0, 3)
    if flags & 4:
        head += struct.pack("<H", len(extra)) + extra
    if flags & 8:
        head += name + b"\0"
    if flags & 16:
        head += comment + b"\0"
    if flags & 2:
        head += struct.pack("<H", (zlib.crc32(head) & 0xFFFF) if hcrc is None else hcrc)
    return head + deflated + struct.pack("<II", zlib.crc32(text), len(text) & 0xFFFFFFFF)

log = "\n".join(lines("web1-access.log.gz")[:60]).encode() + b"\n"
small = b"GET /oauth/authorize?state=s1 HTTP/1.1\n" * 3
write("FuzzInflate", "dynamic-blocks", member(log))
write("FuzzInflate", "stored-block", member(small, level=0))
write("FuzzInflate", "fixed-block", member(b"state=s1\n", level=1))
write("FuzzInflate", "all-header-fields", member(small, flags=2 | 4 | 8 | 16, extra=b"AB\x02\0xy", name=b"a.log", comment=b"c"))
write("FuzzInflate", "header-crc-wrong", member(small, flags=2 | 8, name=b"a.log", hcrc=0x1234))
write("FuzzInflate", "reserved-flags", member(small, flags=0x20))
write("FuzzInflate", "unknown-method", member(small, method=7))
write("FuzzInflate", "members-padded", member(small) + b"\0" * 5 + member(b"") + member(log[:500], level=0))
m = bytearray(member(small) + member(log[:800]))
m[-6] ^= 1
write("FuzzInflate", "trailer-crc-wrong", bytes(m))
m[-6] ^= 1
m[-2] ^= 1
write("FuzzInflate", "trailer-length-wrong", bytes(m))
write("FuzzInflate", "cut-in-trailer", member(small)[:-3])
