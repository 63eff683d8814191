#!/usr/bin/env python3
"""Writes Tests/FlipAuditTests/Fixtures/formats: vendors' documented example
lines (SOURCE.md there names each) and the same lines edited into App Flip
authorize requests. Deterministic (gzip mtime 0): running it again changes
nothing."""
import gzip
import os

OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "FlipAuditTests", "Fixtures", "formats")
G = "https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fa%2Fcom.google.OPA"
E = "https%3A%2F%2Foauth-redirect.googleusercontent.com.evil.example%2Fa%2Fcom.google.OPA"


def q(st, evil=False):
    return f"/oauth/authorize?response_type=code&client_id=G123&redirect_uri={E if evil else G}&state={st}&scope=a+b"


def loc(st, evil=False):
    return f"https://oauth-redirect.googleusercontent.com{'.evil.example' if evil else ''}/a/com.google.OPA?code=c-{st}&state={st}"


def trf(st, evil, sec):
    path = q(st, evil).replace("&", "\\u0026")
    l = loc(st, evil).replace("&", "\\u0026")
    return ('{"ClientAddr":"203.0.113.9:53512","ClientHost":"203.0.113.9","ClientPort":"53512","ClientUsername":"-","DownstreamContentSize":0,"DownstreamStatus":302,"Duration":1000000,"OriginContentSize":0,"OriginDuration":900000,"OriginStatus":302,"Overhead":100000,"RequestAddr":"partner.example","RequestContentSize":0,"RequestCount":1,"RequestHost":"partner.example","RequestMethod":"GET",'
            f'"RequestPath":"{path}","RequestPort":"-","RequestProtocol":"HTTP/1.1","RequestScheme":"https","RetryAttempts":0,"RouterName":"test@file","ServiceAddr":"127.0.0.1:8080","ServiceName":"test@file","ServiceURL":"http://127.0.0.1:8080","StartLocal":"2026-11-22T10:00:0{sec}Z","StartUTC":"2026-11-22T10:00:0{sec}Z","TLSCipher":"TLS_AES_128_GCM_SHA256","TLSVersion":"1.3",'
            f'"downstream_Location":"{l}","level":"info","msg":"","origin_Location":"{l}","time":"2026-11-22T10:00:0{sec}Z"}}')


def gcl(st, evil, sec):
    return ('{"insertId":"1oek5rg3l3fxj7","jsonPayload":{"@type":"type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry","statusDetails":"response_sent_by_backend"},'
            f'"httpRequest":{{"requestMethod":"GET","requestUrl":"https://partner.example{q(st,evil)}","requestSize":"577","status":302,"responseSize":"157","userAgent":"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_6) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/83.0.4103.61 Safari/537.36","remoteIp":"203.0.113.9"}},'
            '"resource":{"type":"http_load_balancer","labels":{"zone":"global","url_map_name":"URL_MAP_NAME","forwarding_rule_name":"FORWARDING_RULE_NAME","target_proxy_name":"TARGET_PROXY_NAME","backend_service_name":"","project_id":"PROJECT_ID"}},'
            f'"timestamp":"2026-11-22T10:00:0{sec}.078651Z","severity":"INFO","logName":"projects/PROJECT_ID/logs/requests","trace":"projects/PROJECT_ID/traces/241d69833e64b3bf83fabac8c873d992","receiveTimestamp":"2026-11-22T10:00:0{sec}.588272510Z","spanId":"7b6537d3672e08e1"}}')


def iis(st, evil, sec, layout):
    stem, query = q(st, evil).split("?", 1)
    if layout == 1:
        return f"2026-11-22 10:00:0{sec} 10.0.0.5 GET {stem} {query} 443 - 203.0.113.9 GoogleApp/1.0+(iPhone;+iOS+17.1) - 302 0 0 15 {loc(st, evil)}"
    return f"2026-11-22 10:00:0{sec} 203.0.113.9 GET {stem} {query} 302 {loc(st, evil)} GoogleApp/1.0+(iPhone;+iOS+17.1)"


IIS_HEAD = ["#Software: Microsoft Internet Information Services 10.0", "#Version: 1.0"]
CFR_FIELDS = "#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type cs-protocol-version fle-status fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len sc-range-start sc-range-end"


def cfr(st, evil, sec):
    stem, query = q(st, evil).split("?", 1)
    # CloudFront percent-encodes cs-uri-query once more: % is written %25
    # (the developer guide's "cs-uri-query" field, and what its logs show).
    query = query.replace("%", "%25")
    return "\t".join(["2026-11-22", f"10:00:0{sec}", "LAX1", "392", "203.0.113.9", "GET", "d111111abcdef8.cloudfront.net", stem, "302", "-",
                      "Mozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/78.0.3904.108%20Safari/537.36",
                      query, "-", "Miss", "SOX4xwn4XV6Q4rgb7XiVGOHms_BGlTAC4KyHmureZmBNrjGdRLiNIQ==", "partner.example", "https", "23", "0.001", "-",
                      "TLSv1.2", "ECDHE-RSA-AES128-GCM-SHA256", "Miss", "HTTP/2.0", "-", "-", "11040", "0.001", "Miss", "text/html", "78", "-", "-"])


FILES = {
    # IIS writes CRLF, and its header again at every restart, here with
    # other columns.
    "iis.log": [l + "\r" for l in IIS_HEAD + [
        "#Date: 2026-11-22 10:00:00",
        "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken Location",
        "2026-11-22 10:00:00 10.0.0.5 GET /Default.htm - 80 - 172.224.24.114 Mozilla/4.0+(compatible;+MSIE+5.01;+Windows+2000+Server) http://64.224.24.114/ 200 0 0 31 -",
        iis("iis-code", False, 1, 1),
    ] + IIS_HEAD + [
        "#Date: 2026-11-22 10:00:02",
        "#Fields: date time c-ip cs-method cs-uri-stem cs-uri-query sc-status Location cs(User-Agent)",
        iis("iis-lookalike", True, 2, 2),
    ]],
    "cloudfront.log": [
        "#Version: 1.0",
        CFR_FIELDS,
        "2026-11-22\t10:00:00\tLAX1\t392\t192.0.2.100\tGET\td111111abcdef8.cloudfront.net\t/index.html\t200\t-\tMozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/78.0.3904.108%20Safari/537.36\t-\t-\tHit\tSOX4xwn4XV6Q4rgb7XiVGOHms_BGlTAC4KyHmureZmBNrjGdRLiNIQ==\td111111abcdef8.cloudfront.net\thttps\t23\t0.001\t-\tTLSv1.2\tECDHE-RSA-AES128-GCM-SHA256\tHit\tHTTP/2.0\t-\t-\t11040\t0.001\tHit\ttext/html\t78\t-\t-",
        cfr("cfr-code", False, 1),
        cfr("cfr-lookalike", True, 2),
    ],

    "envoy.log": [
        '[2026-11-22T10:00:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80"',
        f'[2026-11-22T10:00:01.000Z] "GET {q("env-code")} HTTP/2" 302 - 154 0 226 100 "203.0.113.9" "nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80" "{loc("env-code")}"',
        f'[2026-11-22T10:00:02.000Z] "GET {q("env-lookalike",True)} HTTP/2" 302 - 154 0 226 100 "203.0.113.9, 10.0.0.2" "nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd3" "locations" "tcp://10.0.2.1:80" "{loc("env-lookalike",True)}"',
    ],
    "traefik.json": [trf("trf-code", False, 1), trf("trf-lookalike", True, 2)],
    "traefik-clf.log": [
        '10.0.0.1 - - [22/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 0 "-" "foo \\" bar" 1 "test@file" "http://127.0.0.1:8080" 1ms',
        f'203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] "GET {q("trc-code")} HTTP/1.1" 302 0 "-" "foo \\" bar" 1 "test@file" "http://127.0.0.1:8080" 1ms',
    ],
    "gcloud.json": [gcl("gcl-code", False, 1), gcl("gcl-lookalike", True, 2)],
    "cloudflare.json": [
        '{"ClientIP":"89.163.242.206","EdgeStartTimestamp":1506702504433000200,"RayID":"3a6050bcbe121a87"}',
        f'{{"ClientIP":"203.0.113.9","ClientRequestMethod":"GET","ClientRequestURI":"{q("cfl-code")}","EdgeResponseStatus":302,"EdgeStartTimestamp":1795341601000000000,"RayID":"3a6050bcbe121a87","ResponseHeaders":{{"location":"{loc("cfl-code")}"}}}}',
        f'{{"ClientIP":"203.0.113.9","ClientRequestMethod":"GET","ClientRequestURI":"{q("cfl-lookalike",True)}","EdgeResponseStatus":302,"EdgeStartTimestamp":"2026-11-22T10:00:02Z","RayID":"3a6050bcbe121a88","ResponseHeaders":{{"location":"{loc("cfl-lookalike",True)}"}}}}',
    ],
    "alb.log": [
        'https 2026-11-22T10:00:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.086 0.048 0.037 200 200 0 57 "GET https://www.example.com:443/ HTTP/1.1" "curl/7.46.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337281-1d84f3d73c47ec4e58577259" "www.example.com" "arn:aws:acm:us-east-2:123456789012:certificate/12345678-1234-1234-1234-123456789012" 1 2018-07-02T22:22:48.364000Z "authenticate,forward" "-" "-" "10.0.0.1:80" "200" "-" "-"',
        f'https 2026-11-22T10:00:01.186641Z app/my-loadbalancer/50dc6c495c0c9188 203.0.113.9:2817 10.0.0.1:80 0.086 0.048 0.037 302 302 0 57 "GET https://partner.example:443{q("alb-code")} HTTP/1.1" "curl/7.46.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337281-1d84f3d73c47ec4e58577259" "partner.example" "arn:aws:acm:us-east-2:123456789012:certificate/12345678-1234-1234-1234-123456789012" 1 2026-11-22T10:00:01.015000Z "forward" "-" "-" "10.0.0.1:80" "302" "-" "-"',
    ],
}

for name, lines in FILES.items():
    with open(os.path.join(OUT, name + ".gz"), "wb") as f:
        f.write(gzip.compress(("\n".join(lines) + "\n").encode(), 9, mtime=0))
