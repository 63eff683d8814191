/// Writes a flip event as one line of text and reads it back: what the
/// event sort spills to its temporary files. Tab-separated fields, with
/// `\`, tab and newline escaped inside them (`\\`, `\t`, `\n`); an optional
/// text is an empty field when absent and `=` + the text when present.
///
///     time  file  line  client  status  R  state  client_id  mismatch  redirect_uri  dup  bad
///           T  base  google  code-key  code-digest  state  error  description  allowlisted  dup  bad
///
/// A code is written only as its keyed hash and its digest, never in clear.
/// Lines are read back as bad input: a line that does not decode is an
/// error, never a crash.
struct EventCodec {
    /// Why a line could not be decoded.
    struct Malformed: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    private let allowlist: Allowlist
    /// Redirect URIs decoded so far, judged once each.
    private var redirects: [String: RedirectFacts] = [:]

    init(allowlist: Allowlist) { self.allowlist = allowlist }

    // MARK: Writing

    static func encode(_ e: FlipEvent, into out: inout [UInt8]) {
        number(e.time, &out); tab(&out)
        number(Int64(e.source.file), &out); tab(&out)
        number(e.source.line, &out); tab(&out)
        text(e.clientIP, &out); tab(&out)
        number(Int64(e.status), &out); tab(&out)
        if let r = e.request {
            out.append(UInt8(ascii: "R")); tab(&out)
            optional(r.state, &out); tab(&out)
            optional(r.clientID, &out); tab(&out)
            flag(r.clientMismatch, &out); tab(&out)
            optional(r.redirectURI, &out); tab(&out)
            params(r.duplicateParams, &out); tab(&out)
            params(r.badEncodingParams, &out)
        } else {
            out.append(contentsOf: Array(repeating: UInt8.tab, count: 6))
        }
        tab(&out)
        if let t = e.returned {
            out.append(UInt8(ascii: "T")); tab(&out)
            text(t.base, &out); tab(&out)
            flag(t.toGoogleHost, &out); tab(&out)
            if let code = t.codeDigest {
                text(String(code.key, radix: 16), &out); tab(&out)
                text(code.description, &out); tab(&out)
            } else {
                tab(&out); tab(&out)
            }
            optional(t.state, &out); tab(&out)
            optional(t.error, &out); tab(&out)
            optional(t.errorDescription, &out); tab(&out)
            flag(t.allowlisted, &out); tab(&out)
            params(t.duplicateParams, &out); tab(&out)
            params(t.badEncodingParams, &out)
        } else {
            out.append(contentsOf: Array(repeating: UInt8.tab, count: 10))
        }
        out.append(.newline)
    }

    private static func tab(_ out: inout [UInt8]) { out.append(.tab) }
    private static func flag(_ b: Bool, _ out: inout [UInt8]) { out.append(b ? UInt8(ascii: "1") : UInt8(ascii: "0")) }
    private static func number(_ n: Int64, _ out: inout [UInt8]) { out.append(contentsOf: String(n).utf8) }

    private static func text(_ s: String, _ out: inout [UInt8]) {
        for b in s.utf8 {
            switch b {
            case .backslash: out.append(.backslash); out.append(.backslash)
            case .tab: out.append(.backslash); out.append(UInt8(ascii: "t"))
            case .newline: out.append(.backslash); out.append(UInt8(ascii: "n"))
            default: out.append(b)
            }
        }
    }

    private static func optional(_ s: String?, _ out: inout [UInt8]) {
        guard let s else { return }
        out.append(.equals)
        text(s, &out)
    }

    private static func params(_ list: [FlipParam], _ out: inout [UInt8]) {
        for p in list { out.append(UInt8(ascii: "0") + UInt8(p.rawValue)) }
    }

    // MARK: Reading

    /// The event a line (without its newline) holds.
    mutating func decode(_ line: ArraySlice<UInt8>) throws(Malformed) -> FlipEvent {
        let fields = line.split(separator: .tab, omittingEmptySubsequences: false)
        guard fields.count == 23 else { throw Malformed(reason: "\(fields.count) fields, expected 23") }
        let time = try Self.number(fields[0], "time")
        let file = try Self.number(fields[1], "file")
        let lineNumber = try Self.number(fields[2], "line")
        guard let fileRank = Int32(exactly: file), fileRank >= 0, lineNumber >= 1 else { throw Malformed(reason: "bad source") }
        let client = try Self.text(fields[3])
        let status = try Self.number(fields[4], "status")
        guard let statusCode = Int(exactly: status), (0...999).contains(statusCode) else { throw Malformed(reason: "bad status") }

        var request: FlipRequest?
        switch Array(fields[5]) {
        case []:
            guard fields[6...11].allSatisfy(\.isEmpty) else { throw Malformed(reason: "request fields without a request") }
        case [UInt8(ascii: "R")]:
            let redirect = try Self.optional(fields[9]).map { uri in
                if let known = redirects[uri] { return known }
                let facts = RedirectFacts(uri, allowlist: allowlist)
                redirects[uri] = facts
                return facts
            }
            request = FlipRequest(
                state: try Self.optional(fields[6]), clientID: try Self.optional(fields[7]),
                clientMismatch: try Self.flag(fields[8]), redirect: redirect,
                duplicateParams: try Self.params(fields[10]), badEncodingParams: try Self.params(fields[11]))
        default: throw Malformed(reason: "bad request mark")
        }

        var returned: FlipReturn?
        switch Array(fields[12]) {
        case []:
            guard fields[13...22].allSatisfy(\.isEmpty) else { throw Malformed(reason: "return fields without a return") }
        case [UInt8(ascii: "T")]:
            var code: CodeHash?
            if !fields[15].isEmpty {
                guard let key = UInt64(try Self.text(fields[15]), radix: 16) else { throw Malformed(reason: "bad code key") }
                let digest = try Self.text(fields[16])
                guard CodeHash.isDigest(digest) else { throw Malformed(reason: "bad code digest") }
                code = CodeHash(key: key, digest: digest)
            } else if !fields[16].isEmpty {
                throw Malformed(reason: "code digest without key")
            }
            returned = FlipReturn(
                base: try Self.text(fields[13]), toGoogleHost: try Self.flag(fields[14]),
                state: try Self.optional(fields[17]), stateKey: nil, codeDigest: code,
                error: try Self.optional(fields[18]), errorDescription: try Self.optional(fields[19]),
                allowlisted: try Self.flag(fields[20]),
                duplicateParams: try Self.params(fields[21]), badEncodingParams: try Self.params(fields[22]))
        default: throw Malformed(reason: "bad return mark")
        }
        guard request != nil || returned != nil else { throw Malformed(reason: "neither request nor return") }
        return FlipEvent(time: time, source: SourceRef(file: fileRank, line: lineNumber), clientIP: client,
                         status: statusCode, request: request, returned: returned)
    }

    private static func number(_ field: ArraySlice<UInt8>, _ name: String) throws(Malformed) -> Int64 {
        guard field.count <= 20, let n = Int64(String(decoding: field, as: UTF8.self)) else {
            throw Malformed(reason: "bad \(name)")
        }
        return n
    }

    private static func flag(_ field: ArraySlice<UInt8>) throws(Malformed) -> Bool {
        switch Array(field) {
        case [UInt8(ascii: "0")]: return false
        case [UInt8(ascii: "1")]: return true
        default: throw Malformed(reason: "bad flag")
        }
    }

    private static func text(_ field: ArraySlice<UInt8>) throws(Malformed) -> String {
        guard field.contains(.backslash) else {
            guard let s = String(validating: field, as: UTF8.self) else { throw Malformed(reason: "text is not UTF-8") }
            return s
        }
        var out: [UInt8] = []
        out.reserveCapacity(field.count)
        var i = field.startIndex
        while i < field.endIndex {
            let b = field[i]
            if b == .backslash {
                i += 1
                guard i < field.endIndex else { throw Malformed(reason: "escape at end of field") }
                switch field[i] {
                case .backslash: out.append(.backslash)
                case UInt8(ascii: "t"): out.append(.tab)
                case UInt8(ascii: "n"): out.append(.newline)
                default: throw Malformed(reason: "unknown escape")
                }
            } else {
                out.append(b)
            }
            i += 1
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw Malformed(reason: "text is not UTF-8") }
        return s
    }

    private static func optional(_ field: ArraySlice<UInt8>) throws(Malformed) -> String? {
        guard let first = field.first else { return nil }
        guard first == .equals else { throw Malformed(reason: "optional text without '='") }
        return try text(field.dropFirst())
    }

    private static func params(_ field: ArraySlice<UInt8>) throws(Malformed) -> [FlipParam] {
        var list: [FlipParam] = []
        for b in field {
            guard b >= UInt8(ascii: "0"), let p = FlipParam(rawValue: Int(b - UInt8(ascii: "0"))) else {
                throw Malformed(reason: "bad parameter list")
            }
            list.append(p)
        }
        return list
    }
}
