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
    with open(os.path.join(fixtures, name), "rb") as f:
        write("FuzzGzip", name, f.read())
