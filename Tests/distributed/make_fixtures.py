#!/usr/bin/env python3
"""Writes the logs that Tests/distributed/run.sh audits twice (one process,
then the stage pipeline) to show that both give the same bytes.

    python3 Tests/distributed/make_fixtures.py OUTDIR

OUTDIR/cross/ holds the shapes where a distributed audit could go wrong
(each is a real gzip'd or plain combined log; one record a line):

  a.log.gz       server A: sessions whose return is logged by server B, a
                 code returned again by server B (code-reuse across files),
                 a state requested again by server B (state-reuse across
                 files), flip requests and returns without a state, states
                 with a tab, a backslash, non-ASCII letters, a leading `=`,
                 a CR, an LF, a NUL and bytes that are not UTF-8, a request
                 left pending at the end of the night
  b.log.gz       server B in +0100, three gzip members: the other halves
  late.log.gz    a file that runs back in time by more than 300 s: its last
                 records (a consent return for a session of a.log.gz and a
                 flip of its own) are 20 minutes older than the ones before
  midloc.log.gz  a server whose Location field appears only from mid-file:
                 requests before that point are unobservable, one of them
                 is requested again after it (then no-return), and the
                 later ones are judged normally
  c.log          plain text, another server with ordinary traffic and flips

OUTDIR/broken/trunc.log.gz is a gzip file cut in the middle of its deflate
data (readable flips first): with it the audit must exit 3, both ways.

Deterministic: the same OUTDIR bytes on every run (gzip mtime 0, seeded).
"""

import os
import random
import sys
import urllib.parse
from datetime import datetime, timedelta, timezone

# nginx escaping and deterministic gzip: the sample generator's own.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tools"))
from loggen import gzip_bytes, nesc  # noqa: E402

CLIENT = "1093874651234-flip.apps.googleusercontent.com"
OPA = "https://oauth-redirect.googleusercontent.com/a/com.google.OPA"
CAST = "https://oauth-redirect.googleusercontent.com/a/com.google.Chromecast"
SANDBOX = "https://oauth-redirect-sandbox.googleusercontent.com/a/com.google.OPA"
LOGIN = "https://auth.smartlights.example/login?continue=%2Foauth%2Fconsent"
UA_G = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 GoogleApp/357.0"
UA = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "okhttp/4.12.0",
    "kube-probe/1.30",
]
PATHS = ["/static/app.4f3c2a.js", "/api/v1/devices", "/api/v1/scenes", "/healthz", "/favicon.ico", "/"]
T0 = datetime(2026, 11, 22, 10, 0, tzinfo=timezone.utc)


def authorize(state, redirect=OPA, client=CLIENT):
    q = [("response_type", "code"), ("client_id", client), ("redirect_uri", redirect)]
    if state is not None:
        q.append(("state", state))
    q.append(("scope", "devices.read devices.control"))
    return "/oauth/authorize?" + urllib.parse.urlencode(q)


def back(redirect=OPA, **params):
    return redirect + "?" + urllib.parse.urlencode([(k, v) for k, v in params.items() if v is not None])


class Log:
    """One server's file: (seconds after T0, line) in the order written."""

    def __init__(self, seed, tz_minutes=0, location=True):
        self.r = random.Random(seed)
        self.tz = timezone(timedelta(minutes=tz_minutes))
        self.location = location
        self.lines = []

    def ip(self):
        return "%d.%d.%d.%d" % (self.r.choice([203, 198, 100, 34]), self.r.randrange(256), self.r.randrange(256), self.r.randrange(1, 255))

    def add(self, sec, method, target, status, location="-", ua=None, ip=None):
        t = (T0 + timedelta(seconds=sec)).astimezone(self.tz).strftime("%d/%b/%Y:%H:%M:%S %z")
        size = 0 if status in (302, 304) else self.r.randrange(200, 9000)
        line = '%s - - [%s] "%s %s HTTP/1.1" %d %d "-" "%s"' % (
            ip or self.ip(), t, method, nesc(target), status, size, nesc(ua or UA_G))
        if self.location:
            line += ' "%s"' % nesc(location)
        self.lines.append((sec, line + "\n"))

    def noise(self, start, end, every):
        sec = start
        while sec < end:
            self.add(sec, "GET", self.r.choice(PATHS), self.r.choice([200, 200, 304]), ua=self.r.choice(UA))
            sec += self.r.randrange(1, every)

    def text(self, keep_order=False):
        lines = self.lines if keep_order else sorted(self.lines, key=lambda x: x[0])
        return "".join(line for _, line in lines)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def cross(out):
    a = Log(1)
    b = Log(2, tz_minutes=60)
    late = Log(3)
    mid = Log(4)
    c = Log(5)
    for log in (a, b, late, mid, c):
        log.noise(0, 3600, 9)

    reused_code = "4/0AdReusedCodeAcrossFiles-" + "x" * 20
    # A complete session in a; the same code comes back in b (code-reuse).
    a.add(60, "GET", authorize("st-code-a"), 302, back(code=reused_code, state="st-code-a"))
    b.add(1500, "GET", authorize("st-code-b", CAST), 302, back(CAST, code=reused_code, state="st-code-b"))
    # A session across files: request in a, consent return in b.
    ip = a.ip()
    a.add(120, "GET", authorize("st-across"), 302, LOGIN, ip=ip)
    b.add(150, "POST", "/oauth/consent", 302, back(code="4/0AdAcross" + "y" * 20, state="st-across"), ip=ip)
    # A state ended in a and requested again in b (state-reuse).
    a.add(300, "GET", authorize("st-reused"), 302, back(error="access_denied", state="st-reused"))
    b.add(2400, "GET", authorize("st-reused"), 302, back(code="4/0AdAgain" + "z" * 20, state="st-reused"))
    # Flip records without a state: a request, a return, in both files.
    a.add(400, "GET", authorize(None), 302, back(code="4/0AdNoState" + "q" * 20))
    a.add(401, "POST", "/oauth/consent", 302, back(code="4/0AdNoStateReturn" + "w" * 16))
    b.add(402, "GET", authorize(None, SANDBOX), 302, back(SANDBOX, error="access_denied"))
    b.add(403, "POST", "/oauth/consent", 302, back(error="cancelled"))
    # States that need escaping or sort differently as bytes and as text.
    # U+FF21 and U+1F600 sort one way as UTF-8 bytes and the other way as
    # Java (UTF-16) strings: the shuffle must sort bytes.
    for i, st in enumerate(["tab\there", "back\\slash", "état-ünïcode", "=SUM(A1)", "Zebra", "zebra", "\u00e9", "e\u0301",
                            "\uff21-fullwidth", "\U0001f600-emoji"]):
        a.add(600 + i * 7, "GET", authorize(st), 302, back(code="4/0AdOdd%d" % i + "o" * 20, state=st))
    # States whose bytes are a CR, an LF, a NUL, or not UTF-8 at all
    # (percent-encoded in the log, so the line itself stays one line).
    for i, raw in enumerate(["cr%0Dlf%0Aend", "nul%00byte", "bad%FFutf8%FE", "%C3%A9t%C3%A9", "%E9t%E9"]):
        a.add(700 + i * 5, "GET", "/oauth/authorize?response_type=code&client_id=%s&redirect_uri=%s&state=%s" % (
            CLIENT, urllib.parse.quote(OPA, safe=""), raw), 302, "%s?code=4/0AdRaw%d%s&state=%s" % (OPA, i, "r" * 20, raw))
    # An error never returned (no-return) and one returned by b later.
    a.add(900, "GET", authorize("st-no-return"), 302, LOGIN)
    a.add(950, "GET", authorize("st-error-b"), 302, LOGIN, ip="198.51.100.7")
    b.add(990, "POST", "/oauth/consent", 302, back(error="access_denied", state="st-error-b"), ip="198.51.100.7")
    # A state mismatch, a lookalike host, an unknown state (return only).
    a.add(1000, "GET", authorize("st-mismatch"), 302, back(code="4/0AdMis" + "m" * 20, state="st-mismatcX"))
    evil = "https://oauth-redirect.googleusercontent.com.evil-links.example/a/com.google.OPA"
    b.add(1100, "GET", authorize("st-evil", evil), 302, back(evil, code="4/0AdEvil" + "e" * 20, state="st-evil"), ua=UA[0])
    b.add(1200, "POST", "/oauth/consent", 302, back(code="4/0AdUnknown" + "u" * 20, state="st-never-requested"))
    # Many ordinary sessions spread over both servers (to fill reducers).
    for i in range(60):
        log = a if i % 2 else b
        st = "st-bulk-%03d" % i
        log.add(1300 + i * 30, "GET", authorize(st), 302, back(code="4/0AdBulk%03d" % i + "b" * 20, state=st))
    # Pending at the end (the latest record is at ~3600 s).
    a.add(3550, "GET", authorize("st-pending"), 302, LOGIN)

    # late.log.gz: in time order to 3000 s, then records 20 minutes back.
    late.lines = [x for x in late.lines if x[0] < 3000]
    late.add(500, "GET", authorize("st-late-own"), 302, back(code="4/0AdLateOwn" + "l" * 20, state="st-late-own"))
    late.add(2900, "GET", authorize("st-late-newest"), 302, back(code="4/0AdLateNewest" + "n" * 16, state="st-late-newest"))
    late_text = late.text()
    tail = Log(6)
    tail.add(1790, "GET", "/api/v1/devices", 200, ua=UA[1])
    ip = a.ip()
    a.add(1700, "GET", authorize("st-late-return"), 302, LOGIN, ip=ip)
    tail.add(1800, "POST", "/oauth/consent", 302, back(code="4/0AdLateReturn" + "k" * 16, state="st-late-return"), ip=ip)
    tail.add(1805, "GET", authorize("st-late-flip"), 302, back(error="access_denied", state="st-late-flip"))
    late_text += tail.text()

    # midloc.log.gz: no Location field in the first 40% of the file.
    mid_before = Log(7, location=False)
    mid_before.noise(0, 1400, 9)
    mid_before.add(200, "GET", authorize("st-mid-unobservable"), 302)
    mid_before.add(300, "GET", authorize("st-mid-again"), 302)
    mid_before.add(400, "GET", authorize(None), 302)
    mid.lines = [x for x in mid.lines if x[0] >= 1400]
    mid.add(1500, "GET", authorize("st-mid-again"), 302, LOGIN)
    mid.add(1600, "GET", authorize("st-mid-no-return"), 302, LOGIN)
    mid.add(1700, "GET", authorize("st-mid-code"), 302, back(code="4/0AdMid" + "d" * 20, state="st-mid-code"))
    mid_text = mid_before.text() + mid.text()

    c.add(100, "GET", authorize("st-plain"), 302, back(code="4/0AdPlain" + "p" * 20, state="st-plain"))
    c.add(2500, "GET", authorize("st-plain-2", CAST), 400)

    write(os.path.join(out, "cross", "a.log.gz"), gzip_bytes(a.text()))
    write(os.path.join(out, "cross", "b.log.gz"), gzip_bytes(b.text(), members=3))
    write(os.path.join(out, "cross", "late.log.gz"), gzip_bytes(late_text))
    write(os.path.join(out, "cross", "midloc.log.gz"), gzip_bytes(mid_text))
    write(os.path.join(out, "cross", "c.log"), c.text().encode("utf-8"))


def broken(out):
    t = Log(8)
    t.noise(0, 3600, 3)
    for i in range(40):
        st = "st-trunc-%02d" % i
        t.add(30 + i * 40, "GET", authorize(st), 302, back(code="4/0AdTrunc%02d" % i + "t" * 20, state=st))
    data = gzip_bytes(t.text())
    write(os.path.join(out, "broken", "trunc.log.gz"), data[: len(data) * 2 // 3])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_fixtures.py OUTDIR")
    cross(sys.argv[1])
    broken(sys.argv[1])


if __name__ == "__main__":
    main()
