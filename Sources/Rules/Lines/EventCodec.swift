import Parsing
import Reading

/// Writes a flip event as one line of text (`TextFields`) and reads it
/// back: what the event sort spills to its temporary files.
///
///     time  file  line  client  status  R|J  state  client_id  mismatch  redirect_uri  dup  bad
///           T  base  google  code-key  code-digest  state  error  description  allowlisted  dup  bad
///           line-key  [twin-key:location-key|-]
///
/// A code is written only as its keyed hash and its digest, never in clear.
/// Lines are read back as bad input: a line that does not decode is an
/// error, never a crash.
package struct EventCodec {
    private typealias F = TextFields
    package typealias Malformed = TextFields.Malformed

    private let allowlist: Allowlist
    private let fingerprint: Fingerprint
    /// Redirect URIs decoded so far, judged once each.
    private var redirects: [String: RedirectFacts] = [:]
    /// Return bases that are not allowlisted, with the allowlisted URI
    /// each equals only after normalization (not written: judged again).
    private var variants: [String: String?] = [:]

    package init(allowlist: Allowlist, fingerprint: Fingerprint = .process) {
        self.allowlist = allowlist
        self.fingerprint = fingerprint
    }

    // MARK: Writing

    package static func encode(_ e: FlipEvent, into out: inout [UInt8]) {
        F.number(e.time, &out); F.tab(&out)
        F.number(Int64(e.source.file), &out); F.tab(&out)
        F.number(e.source.line, &out); F.tab(&out)
        F.text(e.clientIP, &out); F.tab(&out)
        F.number(Int64(e.status), &out); F.tab(&out)
        if let r = e.request {
            // J: the request's record was a JSON line (`unobservable`).
            out.append(UInt8(ascii: r.json ? "J" : "R")); F.tab(&out)
            F.optional(r.state, &out); F.tab(&out)
            F.optional(r.clientID, &out); F.tab(&out)
            F.flag(r.clientMismatch, &out); F.tab(&out)
            F.optional(r.redirectURI, &out); F.tab(&out)
            params(r.duplicateParams, &out); F.tab(&out)
            params(r.badEncodingParams, &out)
        } else {
            out.append(contentsOf: Array(repeating: UInt8.tab, count: 6))
        }
        F.tab(&out)
        if let t = e.returned {
            out.append(UInt8(ascii: "T")); F.tab(&out)
            F.text(t.base, &out); F.tab(&out)
            F.flag(t.toGoogleHost, &out); F.tab(&out)
            if let code = t.codeDigest {
                F.text(String(code.key, radix: 16), &out); F.tab(&out)
                F.text(code.description, &out); F.tab(&out)
            } else {
                F.tab(&out); F.tab(&out)
            }
            F.optional(t.state, &out); F.tab(&out)
            F.optional(t.error, &out); F.tab(&out)
            F.optional(t.errorDescription, &out); F.tab(&out)
            F.flag(t.allowlisted, &out); F.tab(&out)
            params(t.duplicateParams, &out); F.tab(&out)
            params(t.badEncodingParams, &out)
        } else {
            out.append(contentsOf: Array(repeating: UInt8.tab, count: 10))
        }
        F.tab(&out)
        F.hex16(e.lineKey, &out)
        // The twin: its key, then its Location's or `-` (none logged).
        if let twin = e.twin {
            F.tab(&out)
            F.hex16(twin.key, &out)
            out.append(UInt8(ascii: ":"))
            if let location = twin.location { F.hex16(location, &out) } else { out.append(UInt8(ascii: "-")) }
        }
        out.append(.newline)
    }

    private static func params(_ set: FlipParamSet, _ out: inout [UInt8]) {
        for p in set.list { out.append(UInt8(ascii: "0") + UInt8(p.rawValue)) }
    }

    // MARK: Reading

    /// The event a line (without its newline) holds.
    package mutating func decode(_ line: ArraySlice<UInt8>) throws(Malformed) -> FlipEvent {
        // 25 fields with a twin (written where twins are looked for), 24
        // without (and from a checkpoint written before tiers).
        let tabs = line.reduce(0) { $0 + ($1 == .tab ? 1 : 0) }
        let fields = try F.split(line, count: tabs == 24 ? 25 : 24)
        let time = try F.time(fields[0], "time")
        let source = try F.source(fields[1], fields[2])
        let client = try F.text(fields[3])
        let status = try F.number(fields[4], "status")
        guard let statusCode = Int(exactly: status), (0...999).contains(statusCode) else { throw Malformed(reason: "bad status") }

        var request: FlipRequest.Texts?
        switch Array(fields[5]) {
        case []:
            guard fields[6...11].allSatisfy(\.isEmpty) else { throw Malformed(reason: "request fields without a request") }
        case [UInt8(ascii: "R")], [UInt8(ascii: "J")]:
            let redirect = try F.optional(fields[9]).map { uri in
                if let known = redirects[uri] { return known }
                let facts = RedirectFacts(uri, allowlist: allowlist)
                redirects[uri] = facts
                return facts
            }
            request = FlipRequest.texts(
                json: fields[5].first == UInt8(ascii: "J"), state: try F.optional(fields[6]), clientID: try F.optional(fields[7]),
                clientMismatch: try F.flag(fields[8]), redirect: redirect,
                duplicateParams: try Self.params(fields[10]), badEncodingParams: try Self.params(fields[11]),
                fingerprint: fingerprint)
        default: throw Malformed(reason: "bad request mark")
        }

        var returned: FlipReturn.Texts?
        switch Array(fields[12]) {
        case []:
            guard fields[13...22].allSatisfy(\.isEmpty) else { throw Malformed(reason: "return fields without a return") }
        case [UInt8(ascii: "T")]:
            var code: CodeHash?
            if !fields[15].isEmpty {
                guard let key = F.hex(fields[15]) else { throw Malformed(reason: "bad code key") }
                let digest = try F.text(fields[16])
                guard CodeHash.isDigest(digest) else { throw Malformed(reason: "bad code digest") }
                code = CodeHash(key: key, digest: digest)
            } else if !fields[16].isEmpty {
                throw Malformed(reason: "code digest without key")
            }
            let base = try F.text(fields[13])
            let allowlisted = try F.flag(fields[20])
            var variant: String?
            if !allowlisted {
                if let known = variants[base] {
                    variant = known
                } else {
                    variant = allowlist.exactVariant(of: base)
                    if variants.count >= 4096 { variants.removeAll(keepingCapacity: true) }
                    variants.updateValue(variant, forKey: base)
                }
            }
            returned = FlipReturn.texts(
                base: base, toGoogleHost: try F.flag(fields[14]),
                state: try F.optional(fields[17]), codeDigest: code,
                error: try F.optional(fields[18]), errorDescription: try F.optional(fields[19]),
                allowlisted: allowlisted, exactVariantOf: variant,
                duplicateParams: try Self.params(fields[21]), badEncodingParams: try Self.params(fields[22]),
                fingerprint: fingerprint)
        default: throw Malformed(reason: "bad return mark")
        }
        guard request != nil || returned != nil else { throw Malformed(reason: "neither request nor return") }
        guard let lineKey = F.hex(fields[23], width: 16) else {
            throw Malformed(reason: "bad line key")
        }
        var twin: Twin?
        if fields.count == 25 {
            let text = fields[24]
            guard text.count >= 18, let colon = text.firstIndex(of: UInt8(ascii: ":")), colon - text.startIndex == 16,
                let key = F.hex(text[..<colon], width: 16)
            else { throw Malformed(reason: "bad twin") }
            let rest = text[(colon + 1)...]
            if rest.elementsEqual([UInt8(ascii: "-")]) {
                twin = Twin(key: key, location: nil)
            } else {
                guard let location = F.hex(rest, width: 16) else { throw Malformed(reason: "bad twin") }
                twin = Twin(key: key, location: location)
            }
        }
        return FlipEvent(
            time: time, source: source, clientIP: client,
            status: statusCode, request: request, returned: returned, lineKey: lineKey, twin: twin)
    }

    /// A parameter list as `encode` writes it: each parameter once, in
    /// `FlipParam` order.
    private static func params(_ field: ArraySlice<UInt8>) throws(Malformed) -> FlipParamSet {
        var set = FlipParamSet()
        var last = -1
        for b in field {
            guard b >= UInt8(ascii: "0"), let p = FlipParam(rawValue: Int(b - UInt8(ascii: "0"))), p.rawValue > last else {
                throw Malformed(reason: "bad parameter list")
            }
            last = p.rawValue
            set.insert(p)
        }
        return set
    }
}
