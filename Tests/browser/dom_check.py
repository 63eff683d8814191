#!/usr/bin/env python3
"""Checks a DOM that headless Chromium dumped from flipaudit's HTML report.

Prints one line per check, "PASS name" or "FAIL name: why"; check-html.sh
counts them.

  dom_check.py totals DOM JSON    the numbers marked data-total / data-kind
                                  equal the JSON summary of the same run
  dom_check.py hostile DOM TEXT.. no element or event handler came from the
                                  log, and each TEXT is shown as text
  dom_check.py injected DOM       the opposite, for the control page: the
                                  checks above do see injected markup
  dom_check.py trends DOM JSON1 JSON2
                                  the trends of a run chained after another
                                  (--checkpoint): one row per finding kind
                                  of either run, marked new, gone or same as
                                  their two JSON summaries say, each with
                                  its SVG line; the new kinds named
"""
import json
import sys
from html.parser import HTMLParser


class Dom(HTMLParser):
    """Start tags with their attributes, and the text, as the browser left them."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.text = []
        self.totals = {}
        self.kinds = {}
        self._capture = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "data-total" in a:
            self._capture = ("total", a["data-total"], [])
        elif "data-kind" in a:
            self._capture = ("kind", a["data-kind"], [])

    def handle_endtag(self, tag):
        if self._capture:
            kind, key, parts = self._capture
            (self.totals if kind == "total" else self.kinds)[key] = "".join(parts).strip()
            self._capture = None

    def handle_data(self, data):
        self.text.append(data)
        if self._capture:
            self._capture[2].append(data)


def report(name, ok, why=""):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def totals(dom_path, json_path):
    dom = Dom(open(dom_path, encoding="utf-8").read())
    j = json.load(open(json_path, encoding="utf-8"))
    f = j["findings"]
    want = {
        "files": j["input"]["files"],
        "lines": j["input"]["lines"],
        "records": j["input"]["records"],
        "malformed_lines": j["input"]["malformed_lines"],
        "in_scope_flip_records": j["input"]["in_scope_flip_records"],
        "sessions": j["sessions"],
        "findings": f["total"],
        "error_sessions": sum(e["count"] for e in j["error_totals"]),
    }
    for sev, n in f["by_severity"].items():
        want["findings-" + sev] = n
    for outcome, n in j["outcomes"].items():
        if n > 0:
            want["outcome-" + outcome] = n
    for key in ("late_records", "duplicate_records"):
        if j["input"].get(key):
            want[key] = j["input"][key]
    if j.get("latency_ms"):
        want["latency_count"] = j["latency_ms"]["count"]
    # The deployment as read: each stream a row, its files and whether it
    # went quiet as the JSON says; the records that wait for the next run.
    deployment = j["deployment"]
    want["streams"] = len(deployment["streams"])
    if deployment.get("waiting"):
        want["waiting_records"] = deployment["waiting"]["records"]
    rows = sorted((a["data-stream-files"], a["data-quiet"]) for _, a in dom.tags if "data-stream-files" in a)
    expected = sorted((str(len(s["files"])), "true" if s["quiet"] else "false") for s in deployment["streams"])
    report("streams drawn as the JSON reads them", rows == expected, f"page {rows} vs JSON {expected}")
    tiers = sorted(a["data-tier-shared"] for _, a in dom.tags if "data-tier-shared" in a)
    want_tiers = sorted(str(t["shared"]) for t in deployment.get("tiers", []))
    report("tiers drawn as the JSON reads them", tiers == want_tiers, f"page {tiers} vs JSON {want_tiers}")
    for key, value in sorted(want.items()):
        shown = dom.totals.get(key)
        report("total " + key, shown == str(value), f"page shows {shown!r}, JSON has {value}")
    # The verdict and each severity count above zero lead to their findings.
    ids = {a["id"] for _, a in dom.tags if "id" in a}
    links = [a["href"] for tag, a in dom.tags if tag == "a" and "href" in a]
    report("in-page links reach their targets", all(h[1:] in ids for h in links), f"links {links}, ids {sorted(ids)}")
    want_links = {"#findings"} if f["total"] else set()
    want_links |= {"#sev-" + s for s, n in f["by_severity"].items() if n}
    report("verdict and severity counts link to the findings", want_links <= set(links), f"links {sorted(set(links))}")
    report("finding kinds listed", set(dom.kinds) == {k["kind"] for k in f["by_kind"]},
           f"page {sorted(dom.kinds)} vs JSON {sorted(k['kind'] for k in f['by_kind'])}")
    for k in f["by_kind"]:
        report("kind " + k["kind"], dom.kinds.get(k["kind"]) == str(k["count"]),
               f"page shows {dom.kinds.get(k['kind'])!r}, JSON has {k['count']}")


def injected_markup(dom):
    """Elements and attributes that only a log could have added."""
    bad = []
    for tag, attrs in dom.tags:
        if tag in ("script", "img", "iframe", "object", "embed", "link", "base", "form"):
            bad.append(tag)
        # An in-page link (href="#id" on an <a>) loads nothing; any other
        # href could only come from a log.
        in_page = lambda a: a == "href" and tag == "a" and (attrs[a] or "").startswith("#")
        bad += [f"{tag}[{a}]" for a in attrs if a.startswith("on") or (a in ("src", "href", "srcdoc") and not in_page(a))]
    return bad


def hostile(dom_path, texts):
    dom = Dom(open(dom_path, encoding="utf-8").read())
    bad = injected_markup(dom)
    report("no element or handler from the log", not bad, ", ".join(bad[:5]))
    text = "".join(dom.text)
    for t in texts:
        report("shown as text: " + t, t in text, "not found in the page text")


def trends(dom_path, json1, json2):
    dom = Dom(open(dom_path, encoding="utf-8").read())
    before = {k["kind"]: k["count"] for k in json.load(open(json1, encoding="utf-8"))["findings"]["by_kind"]}
    j2 = json.load(open(json2, encoding="utf-8"))
    now = {k["kind"]: k["count"] for k in j2["findings"]["by_kind"]}
    rows = {a["data-trend-kind"]: a["data-trend"] for tag, a in dom.tags if tag == "tr" and "data-trend-kind" in a}
    report("trends: a row per kind of either run", set(rows) == set(before) | set(now),
           f"rows {sorted(rows)} vs kinds {sorted(set(before) | set(now))}")
    for kind in sorted(set(before) | set(now)):
        want = "new" if kind not in before else "gone" if kind not in now else "same"
        report("trend " + kind, rows.get(kind) == want, f"page marks {rows.get(kind)!r}, the JSON summaries say {want}")
    svgs = sum(1 for tag, a in dom.tags if tag == "svg" and a.get("class") == "trend-line")
    trend_rows = sum(1 for tag, a in dom.tags if tag == "tr" and "data-trend" in a)
    report("trends: an SVG line per row", svgs == trend_rows and svgs > 0, f"{svgs} SVG for {trend_rows} rows")
    named = [a["data-new-kinds"].split() for tag, a in dom.tags if "data-new-kinds" in a]
    report("trends: the new kinds named as in the JSON", (named[0] if named else []) == j2["new_kinds"],
           f"page {named} vs JSON {j2['new_kinds']}")


def injected(dom_path):
    dom = Dom(open(dom_path, encoding="utf-8").read())
    report("control page: injected markup is detected", len(injected_markup(dom)) >= 3, "the DOM check saw nothing")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "totals":
        totals(sys.argv[2], sys.argv[3])
    elif mode == "hostile":
        hostile(sys.argv[2], sys.argv[3:])
    elif mode == "injected":
        injected(sys.argv[2])
    elif mode == "trends":
        trends(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit("unknown mode " + mode)
