#!/usr/bin/env python3
"""Deterministic generator of realistic access logs with App Flip traffic.

It writes what a partner's load-balanced web/OAuth servers would log: mostly
ordinary traffic (pages, assets, APIs, health checks, scanners, other OAuth
clients), with App Flip sessions of every outcome and the mistakes and attacks
flipaudit looks for mixed in. Each request is logged by one of several
servers, so one session's records can be split across files, exactly as
behind a load balancer.

Two uses, same code, same seed → same bytes:

  python3 Tools/loggen.py samples SampleLogs
      the small logs committed in SampleLogs/ (< 1 MB in all)

  python3 Tools/loggen.py large OUT.log.gz --size-mb 2000 [--flip-share 0.03]
      one big combined log for benchmarks (streamed through gzip -6; never
      committed)
"""

import argparse
import bisect
import gzip
import heapq
import io
import os
import random
import subprocess
import sys
import urllib.parse
from datetime import datetime, timedelta, timezone

GOOGLE_CLIENT_ID = "1093874651234-flip.apps.googleusercontent.com"
PROD = "https://oauth-redirect.googleusercontent.com"
SANDBOX = "https://oauth-redirect-sandbox.googleusercontent.com"
BUNDLES = ["com.google.OPA", "com.google.Chromecast"]
PROJECT_ID = "smart-lights-4f2a1"
UAS_GOOGLE = [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 GoogleApp/357.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Chromecast/3.41",
]
UAS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "SmartLights/4.12 (iPhone; iOS 18.1; Scale/3.00)",
    "okhttp/4.12.0",
    "kube-probe/1.30",
]
STATIC = ["/static/app.4f3c2a.js", "/static/app.9b1e.css", "/img/logo.svg", "/favicon.ico", "/static/fonts/inter.woff2"]
APIS = ["/api/v1/devices", "/api/v1/devices/8812/state", "/api/v1/scenes", "/api/v1/me", "/api/v1/rooms?floor=2", "/api/v1/devices?page=3&limit=50"]


class Gen:
    """One deterministic world: a timeline of records, assigned to servers."""

    def __init__(self, seed, start, seconds, servers, noise_per_sec, flip_per_sec):
        self.r = random.Random(seed)
        self.start = start
        self.seconds = seconds
        self.servers = servers            # list of Server
        self.noise_per_sec = noise_per_sec
        self.flip_per_sec = flip_per_sec
        self.queue = []                   # (ms, seq, server_index, record)
        self.seq = 0
        self.used_codes = []
        self.used_states = []

    # ---- helpers -------------------------------------------------------
    def token(self, n):
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def ip(self):
        return "%d.%d.%d.%d" % (self.r.choice([203, 198, 192, 100, 34, 66]), self.r.randrange(256), self.r.randrange(256), self.r.randrange(1, 255))

    def emit(self, ms, rec, server=None):
        if server is None:
            server = self.pick_server()
        self.seq += 1
        heapq.heappush(self.queue, (ms, self.seq, server, rec))

    def pick_server(self):
        weights = [s.weight for s in self.servers]
        return self.r.choices(range(len(self.servers)), weights)[0]

    def redirect(self, env=None, bundle=None, variant=None):
        host = env or (PROD if self.r.random() < 0.85 else SANDBOX)
        bundle = bundle or self.r.choice(BUNDLES)
        variant = variant if variant is not None else self.r.choices(["", ".dev", ".enterprise"], [90, 6, 4])[0]
        return "%s/a/%s%s" % (host, bundle, variant)

    def authorize(self, state, redirect_uri, client_id=GOOGLE_CLIENT_ID, extra=""):
        q = [("response_type", "code")]
        if client_id is not None:
            q.append(("client_id", client_id))
        if redirect_uri is not None:
            q.append(("redirect_uri", redirect_uri))
        if state is not None:
            q.append(("state", state))
        q.append(("scope", "devices.read devices.control"))
        return "/oauth/authorize?" + urllib.parse.urlencode(q) + extra

    def ret(self, base, **params):
        return base + "?" + urllib.parse.urlencode([(k, v) for k, v in params.items() if v is not None])

    def rec(self, method, target, status, location="-", ua=None, ip=None, size=None):
        return {
            "ip": ip or self.ip(), "method": method, "target": target, "status": status,
            "bytes": size if size is not None else (0 if status in (302, 304) else self.r.randrange(200, 40000)),
            "ua": ua or self.r.choice(UAS_GOOGLE), "location": location,
        }

    # ---- ordinary traffic ----------------------------------------------
    def noise(self, ms):
        x = self.r.random()
        ua = self.r.choice(UAS)
        if x < 0.35:
            self.emit(ms, self.rec("GET", self.r.choice(STATIC), self.r.choice([200, 200, 200, 304]), ua=ua))
        elif x < 0.70:
            self.emit(ms, self.rec(self.r.choice(["GET", "GET", "POST", "PUT"]), self.r.choice(APIS), self.r.choice([200, 200, 201, 204, 401, 429]), ua=ua))
        elif x < 0.78:
            self.emit(ms, self.rec("GET", "/healthz", 200, ua="kube-probe/1.30", ip="10.0.3.%d" % self.r.randrange(2, 40)))
        elif x < 0.84:
            self.emit(ms, self.rec("GET", "/", 200, ua=ua))
        elif x < 0.88:
            self.emit(ms, self.rec("POST", "/login", 302, location="https://app.smartlights.example/home", ua=ua))
        elif x < 0.92:
            # another OAuth client of the same server: flip-shaped, out of scope
            state = self.token(16)
            target = "/oauth/authorize?" + urllib.parse.urlencode([
                ("response_type", "code"), ("client_id", "web-dashboard"),
                ("redirect_uri", "https://dashboard.smartlights.example/callback"), ("state", state)])
            self.emit(ms, self.rec("GET", target, 302, location="https://dashboard.smartlights.example/callback?code=%s&state=%s" % (self.token(24), state), ua=ua))
        elif x < 0.96:
            self.emit(ms, self.rec("GET", self.r.choice(["/wp-login.php", "/.env", "/admin/config.php", "/cgi-bin/luci"]), 404, ua="Mozilla/5.0 zgrab/0.x"))
        elif x < 0.999:
            self.emit(ms, self.rec("GET", "/api/v1/search?q=" + urllib.parse.quote(self.r.choice(["lamp", "living room", "état"])), 200, ua=ua))
        else:
            self.emit(ms, {"raw": True, "tls": True, "ip": self.ip()})

    # ---- App Flip sessions ---------------------------------------------
    SCENARIOS = [
        ("code", 50), ("code_consent", 14), ("web_code", 4), ("error", 10), ("error_consent", 4),
        ("failed", 3), ("rejected", 2), ("no_return", 4), ("empty", 1),
        ("lookalike_code", 1), ("userinfo_code", 0.5), ("state_mismatch", 0.7), ("state_reuse", 0.7),
        ("code_reuse", 0.5), ("duplicate_param", 0.6), ("bad_encoding", 0.6), ("nonstandard_error", 1),
        ("unknown_state", 0.6), ("code_and_error", 0.4), ("code_without_state", 0.4),
        ("client_mismatch", 0.8), ("redirect_changed", 0.4), ("duplicate_return", 0.6), ("missing_param", 0.6),
        ("hostile_text", 0.2),
    ]

    def flip(self, ms):
        names = [n for n, _ in self.SCENARIOS]
        weights = [w for _, w in self.SCENARIOS]
        getattr(self, "s_" + self.r.choices(names, weights)[0])(ms)

    def s_code(self, ms, redirect_uri=None, state=None, code=None):
        state = state or self.token(22)
        r = redirect_uri or self.redirect()
        code = code or self.token(32)
        self.emit(ms, self.rec("GET", self.authorize(state, r), 302, location=self.ret(r, code=code, state=state)))
        self.used_codes.append(code)
        self.used_states.append(state)
        return state

    def s_code_consent(self, ms):
        state = self.token(22)
        r = self.redirect()
        ip = self.ip()
        self.emit(ms, self.rec("GET", self.authorize(state, r), 302, location="https://auth.smartlights.example/login?continue=%2Foauth%2Fconsent", ip=ip))
        later = ms + self.r.randrange(3000, 45000)
        self.emit(later, self.rec("POST", "/oauth/consent", 302, location=self.ret(r, code=self.token(32), state=state), ip=ip))

    def s_web_code(self, ms):
        host = PROD if self.r.random() < 0.9 else SANDBOX
        self.s_code(ms, redirect_uri="%s/r/%s" % (host, PROJECT_ID))

    def error_value(self):
        return self.r.choices(["access_denied", "cancelled", "invalid_request", "unrecoverable"], [45, 35, 12, 8])[0]

    def s_error(self, ms):
        state = self.token(22)
        r = self.redirect()
        e = self.error_value()
        desc = {"access_denied": "User denied access", "cancelled": "User cancelled the flow",
                "invalid_request": "Unknown client", "unrecoverable": "Account locked"}[e]
        self.emit(ms, self.rec("GET", self.authorize(state, r), 302, location=self.ret(r, error=e, error_description=desc, state=state)))

    def s_error_consent(self, ms):
        state = self.token(22)
        r = self.redirect()
        ip = self.ip()
        self.emit(ms, self.rec("GET", self.authorize(state, r), 302, location="https://auth.smartlights.example/login?continue=%2Foauth%2Fconsent", ip=ip))
        omit_state = self.r.random() < 0.3   # Google's own sample omits it
        self.emit(ms + self.r.randrange(2000, 30000), self.rec("POST", "/oauth/consent", 302,
                  location=self.ret(r, error="access_denied", state=None if omit_state else state), ip=ip))

    def s_failed(self, ms):
        self.emit(ms, self.rec("GET", self.authorize(self.token(22), self.redirect()), self.r.choice([400, 500, 503])))

    def s_rejected(self, ms):
        bad = self.r.choice([
            "https://oauth-redirect.googleusercontent.com/a/com.google.OPA/extra",
            "http://oauth-redirect.googleusercontent.com/a/com.google.Chromecast",
            "https://OAUTH-REDIRECT.googleusercontent.com/a/com.google.OPA",
            "https://oauth-redirect.googleusercontent.com:443/a/com.google.OPA",
        ])
        self.emit(ms, self.rec("GET", self.authorize(self.token(22), bad), 400))

    def s_no_return(self, ms):
        self.emit(ms, self.rec("GET", self.authorize(self.token(22), self.redirect()), 302,
                  location="https://auth.smartlights.example/login?continue=%2Foauth%2Fconsent"))

    def s_empty(self, ms):
        state = self.token(22)
        r = self.redirect()
        self.emit(ms, self.rec("GET", self.authorize(state, r), 302, location=r))

    def s_lookalike_code(self, ms):
        state = self.token(22)
        evil = "https://oauth-redirect.googleusercontent.com.evil-links.example/a/com.google.OPA"
        self.emit(ms, self.rec("GET", self.authorize(state, evil), 302, location=self.ret(evil, code=self.token(32), state=state), ua=self.r.choice(UAS)))

    def s_userinfo_code(self, ms):
        state = self.token(22)
        evil = "https://oauth-redirect.googleusercontent.com@evil-links.example/a/com.google.OPA"
        self.emit(ms, self.rec("GET", self.authorize(state, evil), 302, location=self.ret(evil, code=self.token(32), state=state), ua=self.r.choice(UAS)))

    def s_state_mismatch(self, ms):
        state = self.token(22)
        r = self.redirect()
        self.emit(ms, self.rec("GET", self.authorize(state, r), 302, location=self.ret(r, code=self.token(32), state=state[:-3] + "AAA")))

    def s_state_reuse(self, ms):
        state = self.r.choice(self.used_states) if self.used_states else self.token(22)
        r = self.redirect()
        self.emit(ms, self.rec("GET", self.authorize(state, r), 302, location=self.ret(r, code=self.token(32), state=state)))

    def s_code_reuse(self, ms):
        code = self.r.choice(self.used_codes) if self.used_codes else self.token(32)
        self.s_code(ms, code=code)

    def s_duplicate_param(self, ms):
        state = self.token(22)
        r = self.redirect()
        extra = "&redirect_uri=" + urllib.parse.quote("https://attacker.example/a/com.google.OPA", safe="")
        self.emit(ms, self.rec("GET", self.authorize(state, r, extra=extra), 302, location=self.ret(r, code=self.token(32), state=state)))

    def s_bad_encoding(self, ms):
        state = self.token(18) + "%zz"
        r = self.redirect()
        target = "/oauth/authorize?response_type=code&client_id=%s&redirect_uri=%s&state=%s&scope=devices.read" % (
            GOOGLE_CLIENT_ID, urllib.parse.quote(r, safe=""), state)
        self.emit(ms, self.rec("GET", target, 302, location=r + "?error=invalid_request&state=" + state))

    def s_nonstandard_error(self, ms):
        state = self.token(22)
        r = self.redirect()
        self.emit(ms, self.rec("GET", self.authorize(state, r), 302, location=self.ret(r, error=self.r.choice(["server_error", "temporarily_unavailable", "login_required"]), state=state)))

    def s_unknown_state(self, ms):
        self.emit(ms, self.rec("POST", "/oauth/consent", 302, location=self.ret(self.redirect(), code=self.token(32), state=self.token(22))))

    def s_code_and_error(self, ms):
        state = self.token(22)
        r = self.redirect()
        self.emit(ms, self.rec("GET", self.authorize(state, r), 302, location=self.ret(r, code=self.token(32), error="access_denied", state=state)))

    def s_code_without_state(self, ms):
        r = self.redirect()
        self.emit(ms, self.rec("GET", self.authorize(self.token(22), r), 302, location=self.ret(r, code=self.token(32))))

    def s_client_mismatch(self, ms):
        state = self.token(22)
        r = self.redirect()
        other = "unknown-client-%d" % self.r.randrange(100)
        if self.r.random() < 0.5:
            self.emit(ms, self.rec("GET", self.authorize(state, r, client_id=other), 302, location=self.ret(r, code=self.token(32), state=state)))
        else:
            self.emit(ms, self.rec("GET", self.authorize(state, r, client_id=other), 302, location=self.ret(r, error="access_denied", state=state)))

    def s_redirect_changed(self, ms):
        state = self.token(22)
        self.emit(ms, self.rec("GET", self.authorize(state, PROD + "/a/com.google.Chromecast"), 302,
                  location=self.ret(PROD + "/a/com.google.OPA", code=self.token(32), state=state)))

    def s_duplicate_return(self, ms):
        state = self.token(22)
        r = self.redirect()
        ip = self.ip()
        self.emit(ms, self.rec("GET", self.authorize(state, r), 302, location="https://auth.smartlights.example/login", ip=ip))
        t = ms + self.r.randrange(3000, 20000)
        self.emit(t, self.rec("POST", "/oauth/consent", 302, location=self.ret(r, code=self.token(32), state=state), ip=ip))
        self.emit(t + 900, self.rec("POST", "/oauth/consent", 302, location=self.ret(r, code=self.token(32), state=state), ip=ip))

    def s_missing_param(self, ms):
        state = self.token(22)
        r = self.redirect()
        self.emit(ms, self.rec("GET", self.authorize(state, r, client_id=None), 302, location=self.ret(r, error="invalid_request", state=state)))

    def s_hostile_text(self, ms):
        state = self.token(12) + "\x1b[2J\u202e"
        r = self.redirect()
        self.emit(ms, self.rec("GET", self.authorize(state, r), 302,
                  location=self.ret(r, error="access_denied", error_description="\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \u202eevil", state=state)))

    # ---- the timeline ----------------------------------------------------
    def run(self, until_bytes=None):
        """Yields (server_index, record, ms) in time order."""
        base = int(self.start.timestamp() * 1000)
        end = base + self.seconds * 1000
        ms = base
        written = 0
        while True:
            if until_bytes is None and ms >= end:
                break
            if until_bytes is not None and written >= until_bytes:
                break
            n = self.poisson(self.noise_per_sec)
            for _ in range(n):
                self.noise(ms + self.r.randrange(1000))
            for _ in range(self.poisson(self.flip_per_sec)):
                self.flip(ms + self.r.randrange(1000))
            ms += 1000
            while self.queue and self.queue[0][0] < ms:
                t, _, server, rec = heapq.heappop(self.queue)
                sent = yield (server, rec, t)
                written += sent or 0
        while self.queue:
            t, _, server, rec = heapq.heappop(self.queue)
            if until_bytes is None and t >= end + 60000:
                continue
            yield (server, rec, t)

    def poisson(self, lam):
        # Knuth for small rates, normal approximation for large ones.
        if lam > 30:
            return max(0, int(self.r.gauss(lam, lam ** 0.5) + 0.5))
        import math
        L, k, p = math.exp(-lam), 0, 1.0
        while True:
            p *= self.r.random()
            if p <= L:
                return k
            k += 1


class Server:
    """One server's log: its format, time zone, and whether it logs Location."""

    def __init__(self, name, fmt, tz_minutes=0, location=True, weight=1.0):
        self.name, self.fmt, self.tz, self.location, self.weight = name, fmt, tz_minutes, location, weight

    def line(self, rec, ms):
        t = datetime.fromtimestamp(ms / 1000, tz=timezone(timedelta(minutes=self.tz)))
        if rec.get("raw") and self.fmt == "json":
            return '{"time":"%s","remote_addr":"%s","request":"\\u0016\\u0003\\u0001\\u0000\\u00a5","status":400,"body_bytes_sent":157,"http_user_agent":""%s}' % (
                t.isoformat(timespec="milliseconds"), rec["ip"], ',"sent_http_location":""' if self.location else "")
        if rec.get("raw"):
            clf = t.strftime("%d/%b/%Y:%H:%M:%S %z")
            return '%s - - [%s] "\\x16\\x03\\x01\\x00\\xA5\\x01\\x00\\x00\\xA1\\x03\\x03" 400 157 "-" "-"%s' % (
                rec["ip"], clf, ' "-"' if self.location else "")
        if self.fmt == "json":
            obj = '{"time":"%s","remote_addr":"%s","request":"%s %s HTTP/1.1","status":%d,"body_bytes_sent":%d,"http_user_agent":"%s","request_time":%s%s}' % (
                t.isoformat(timespec="milliseconds"), rec["ip"], rec["method"], jesc(rec["target"]), rec["status"], rec["bytes"],
                jesc(rec["ua"]), "%.3f" % (0.002 + (ms % 97) / 1000),
                (',"sent_http_location":"%s"' % jesc(rec["location"] if rec["location"] != "-" else "")) if self.location else "")
            return obj
        clf = t.strftime("%d/%b/%Y:%H:%M:%S %z")
        line = '%s - - [%s] "%s %s HTTP/1.1" %d %d "-" "%s"' % (rec["ip"], clf, rec["method"], nesc(rec["target"]), rec["status"], rec["bytes"], nesc(rec["ua"]))
        if self.location:
            line += ' "%s"' % nesc(rec["location"])
        return line


def nesc(s):
    """nginx's default escaping of a logged variable: ", \\ and non-printables as \\xHH."""
    out = []
    for b in s.encode("utf-8"):
        if b == 0x22 or b == 0x5C or b < 0x20 or b >= 0x7F:
            out.append("\\x%02X" % b)
        else:
            out.append(chr(b))
    return "".join(out)


def jesc(s):
    """nginx escape=json."""
    out = []
    for ch in s:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def gzip_bytes(text, members=1):
    """Deterministic gzip (mtime 0); `members` > 1 splits into concatenated members."""
    data = text.encode("utf-8")
    if members <= 1:
        return gzip.compress(data, compresslevel=6, mtime=0)
    lines = data.splitlines(keepends=True)
    step = (len(lines) + members - 1) // members
    return b"".join(gzip.compress(b"".join(lines[i:i + step]), compresslevel=6, mtime=0) for i in range(0, len(lines), step))


def run_servers(g, servers):
    """Per server, the (ms, line) pairs the generator writes, in order."""
    texts = [[] for _ in servers]
    gen = g.run()
    try:
        item = next(gen)
        while True:
            server, rec, ms = item
            line = servers[server].line(rec, ms)
            texts[server].append((ms, line + "\n"))
            item = gen.send(len(line) + 1)
    except StopIteration:
        pass
    return texts


def stack_cases(servers, start):
    """What a real stack logged (nginx 1.22 in front of Django with
    django-oauth-toolkit), as (server, ms, line) on the first two servers.
    Every state starts with `stack-`; StackCaseTests.swift holds each
    session's expected outcome and findings (docs/contract.md §3, §4)."""
    g = Gen(27, start, 1, servers, 0, 0)
    t0 = int(datetime(2026, 11, 22, 0, 40, tzinfo=timezone.utc).timestamp() * 1000)
    out = []

    def add(server, second, rec):
        ms = t0 + second * 1000
        out.append((server, ms, servers[server].line(rec, ms) + "\n"))

    r = PROD + "/a/com.google.OPA"
    login = "/accounts/login/?next=/oauth/authorize%3Fstate%3D"
    # No redirect_uri, refused without a redirect: rejected (in scope with --client-id).
    add(0, 0, g.rec("GET", g.authorize("stack-no-redirect", None), 400))
    # A well-formed %00 in the state is not bad-encoding.
    add(0, 10, g.rec("GET", g.authorize(None, r, extra="&state=stack-nul%00z"), 302,
                     location="%s?code=%s&state=stack-nul%%00z" % (r, g.token(32))))
    # `code` twice in the request target: duplicate-param.
    add(1, 20, g.rec("GET", g.authorize("stack-dup-code", r, extra="&code=%s&code=%s" % (g.token(24), g.token(24))), 302,
                     location=g.ret(r, code=g.token(32), state="stack-dup-code")))
    # A server that compares parsed URIs sends codes to variants of Google's URIs.
    for i, v in enumerate(["https://OAuth-Redirect.googleusercontent.com/a/com.google.OPA",
                           "HTTPS://oauth-redirect.googleusercontent.com/a/com.google.Chromecast"]):
        state = "stack-variant-%d" % i
        add(i, 30 + i, g.rec("GET", g.authorize(state, v), 302, location=g.ret(v, code=g.token(32), state=state)))
    # The default PKCE requirement refuses every flip with one description.
    for i in range(6):
        state = "stack-pkce-%d" % i
        ri = g.redirect()
        add(i % 2, 40 + 5 * i, g.rec("GET", g.authorize(state, ri), 302, location=g.ret(
            ri, error="invalid_request", error_description="Code challenge required.", state=state)))
    # The state sent as %20 comes back as + (quote_plus): the same state.
    ip = g.ip()
    add(0, 80, g.rec("GET", g.authorize(None, r, extra="&state=stack-plus%20x"), 302, location=login + "stack-plus%2520x", ip=ip))
    add(0, 86, g.rec("POST", "/oauth/consent", 302, location="%s?code=%s&state=stack-plus+x" % (r, g.token(32)), ip=ip))
    # A relative Location (the login redirect) is not a return.
    ip = g.ip()
    add(1, 90, g.rec("GET", g.authorize("stack-relative", r), 302, location=login + "stack-relative", ip=ip))
    add(1, 97, g.rec("POST", "/oauth/consent", 302, location=g.ret(r, code=g.token(32), state="stack-relative"), ip=ip))
    # A code in a #fragment is not read: an empty return.
    add(0, 100, g.rec("GET", g.authorize("stack-fragment", r), 302, location="%s#code=%s&state=stack-fragment" % (r, g.token(32))))
    # The token endpoint's second exchange of the code: 400, no query, no flip event.
    add(0, 110, g.rec("GET", g.authorize("stack-token", r), 302, location=g.ret(r, code=g.token(32), state="stack-token")))
    add(1, 111, g.rec("POST", "/oauth/token", 200, ua="Google-OAuth/1.0", ip="66.249.84.%d" % g.r.randrange(1, 255)))
    add(0, 112, g.rec("POST", "/oauth/token", 400, ua="Google-OAuth/1.0", ip="66.249.84.%d" % g.r.randrange(1, 255)))
    return out


def samples(outdir):
    """The committed SampleLogs/: three load-balanced servers and a legacy one."""
    os.makedirs(outdir, exist_ok=True)
    servers = [
        Server("web1-access.log.gz", "combined", 0, True, 1.0),
        Server("web2-access.json.gz", "json", 0, True, 1.0),
        Server("web3-access-rotated.log.gz", "combined", 60, True, 0.8),
    ]
    start = datetime(2026, 11, 21, 22, 0, tzinfo=timezone.utc)
    g = Gen(20261122, start, 4 * 3600, servers, noise_per_sec=0.9, flip_per_sec=0.05)
    timed = run_servers(g, servers)
    for server, ms, line in stack_cases(servers, start):
        lines = timed[server]
        at = bisect.bisect_right([t for t, _ in lines], ms)
        lines.insert(at, (ms, line))
    texts = [[line for _, line in lines] for lines in timed]
    # A few broken lines, as real logs have them.
    texts[0].insert(len(texts[0]) // 2, "203.0.113.77 - - [21/Nov/2026:23:59:60 +0000 \"GET /truncated-by-logrotate\n")
    texts[1].insert(len(texts[1]) // 3, "[\"not\", \"an\", \"object\"]\n")
    # A pending session near the end of the input (its timeout has not run out).
    pend = Gen(7, start, 1, servers, 0, 0)
    state = "pending-" + pend.token(14)
    r = PROD + "/a/com.google.OPA"
    tail = datetime(2026, 11, 22, 1, 59, 30, tzinfo=timezone.utc).timestamp() * 1000
    texts[0].append(servers[0].line(pend.rec("GET", pend.authorize(state, r), 302, location="https://auth.smartlights.example/login"), tail) + "\n")
    # One session with terminal escapes and a bidi override in state and error.
    hostile_state = "x\x1b[2J\u202e" + pend.token(10)
    hostile = pend.rec("GET", pend.authorize(hostile_state, r), 302, location=pend.ret(
        r, error="server_error\x1b[31m", error_description="\x1b]8;;https://evil.example\x07click\x1b]8;;\x07", state=hostile_state))
    texts[2].append(servers[2].line(hostile, tail + 10000) + "\n")
    members = {0: 1, 1: 1, 2: 3}
    for i, s in enumerate(servers):
        with open(os.path.join(outdir, s.name), "wb") as f:
            f.write(gzip_bytes("".join(texts[i]), members[i]))
    # A legacy server whose log_format has no Location: its sessions are unobservable.
    legacy = Server("legacy-no-location.log.gz", "combined", 0, False)
    lg = Gen(99, start + timedelta(hours=1), 1200, [legacy], noise_per_sec=0.5, flip_per_sec=0.01)
    lines = []
    for _, rec, ms in lg.run():
        lines.append(legacy.line(rec, ms) + "\n")
    with open(os.path.join(outdir, legacy.name), "wb") as f:
        f.write(gzip_bytes("".join(lines)))


def next_night(outdir):
    """SampleLogs-next/: the four hours after SampleLogs/, for a chain of two
    runs with --checkpoint. The session left pending at the end of
    SampleLogs/ gets its return here, and its state is then requested
    again (state-reuse once it has returned)."""
    os.makedirs(outdir, exist_ok=True)
    servers = [
        Server("web1-access.log.gz", "combined", 0, True, 1.0),
        Server("web2-access.json.gz", "json", 0, True, 1.0),
    ]
    start = datetime(2026, 11, 22, 2, 0, tzinfo=timezone.utc)
    g = Gen(20261123, start, 4 * 3600, servers, noise_per_sec=0.9, flip_per_sec=0.05)
    texts = run_servers(g, servers)
    # The same pending state as samples() writes at 01:59:30.
    pend = Gen(7, datetime(2026, 11, 21, 22, 0, tzinfo=timezone.utc), 1, servers, 0, 0)
    state = "pending-" + pend.token(14)
    r = PROD + "/a/com.google.OPA"
    consent = datetime(2026, 11, 22, 2, 3, 0, tzinfo=timezone.utc).timestamp() * 1000
    texts[0].append((consent, servers[0].line(pend.rec("POST", "/oauth/consent", 302, location=pend.ret(r, code="4/0AdNextNight" + pend.token(20), state=state)), consent) + "\n"))
    again = consent + 3600 * 1000
    texts[0].append((again, servers[0].line(pend.rec("GET", pend.authorize(state, r), 302, location=pend.ret(r, code="4/0AdAgain" + pend.token(20), state=state)), again) + "\n"))
    for i, s in enumerate(servers):
        lines = [line for _, line in sorted(texts[i], key=lambda t: t[0])]
        with open(os.path.join(outdir, s.name), "wb") as f:
            f.write(gzip_bytes("".join(lines)))


def large(path, size_mb, flip_share, seed):
    """One big combined log with Location, streamed through `gzip -6`."""
    server = Server(os.path.basename(path), "combined", 0, True)
    start = datetime(2026, 11, 21, 0, 0, tzinfo=timezone.utc)
    # ~210 bytes a line; flip sessions are ~1.1 lines each.
    per_sec = 400.0
    g = Gen(seed, start, 10 ** 9, [server], noise_per_sec=per_sec * (1 - flip_share), flip_per_sec=per_sec * flip_share / 1.1)
    target = size_mb * 1024 * 1024
    with open(path, "wb") as out:
        proc = subprocess.Popen(["gzip", "-6", "-c", "-n"], stdin=subprocess.PIPE, stdout=out)
        buf = io.StringIO()
        pending = 0
        gen = g.run(until_bytes=target)
        try:
            item = next(gen)
            while True:
                _, rec, ms = item
                line = server.line(rec, ms) + "\n"
                buf.write(line)
                pending += 1
                if pending >= 20000:
                    proc.stdin.write(buf.getvalue().encode("utf-8"))
                    buf = io.StringIO()
                    pending = 0
                item = gen.send(len(line))
        except StopIteration:
            pass
        proc.stdin.write(buf.getvalue().encode("utf-8"))
        proc.stdin.close()
        if proc.wait() != 0:
            sys.exit("gzip failed")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("samples", help="write the small sample logs")
    s.add_argument("outdir")
    n = sub.add_parser("next-night", help="write the sample logs of the night after (SampleLogs-next)")
    n.add_argument("outdir")
    l = sub.add_parser("large", help="write one large gzip'd combined log")
    l.add_argument("path")
    l.add_argument("--size-mb", type=int, default=2000, help="uncompressed size in MiB (default 2000)")
    l.add_argument("--flip-share", type=float, default=0.03, help="share of App Flip lines (default 0.03)")
    l.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    if a.cmd == "samples":
        samples(a.outdir)
    elif a.cmd == "next-night":
        next_night(a.outdir)
    else:
        large(a.path, a.size_mb, a.flip_share, a.seed)


if __name__ == "__main__":
    main()
