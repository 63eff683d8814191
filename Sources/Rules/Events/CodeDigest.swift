import Parsing
import Reading

/// Hashes authorization codes so they never reach output in clear.
package enum CodeDigest {
    /// `text(_:)` of any sequence of bytes.
    package static func of<Bytes: Sequence>(_ code: Bytes) -> String where Bytes.Element == UInt8 {
        Array(code).withUnsafeBytes(text)
    }

    /// `sha256:` followed by the first 12 hex digits of SHA-256(code).
    static func text(_ code: UnsafeRawBufferPointer) -> String {
        let prefix = SHA256.hash(data: code).withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
        return String(unsafeUninitializedCapacity: 19) { out in
            let label: StaticString = "sha256:"
            for i in 0..<7 { out[i] = label.utf8Start[i] }
            for i in 0..<12 {
                let v = UInt8(truncatingIfNeeded: prefix >> UInt64(60 - 4 * i)) & 0x0F
                out[7 + i] = v < 10 ? UInt8(ascii: "0") + v : UInt8(ascii: "a") + v - 10
            }
            return 19
        }
    }

    /// Parameter names whose values are secrets: the code, and the tokens
    /// an implicit or hybrid response would carry.
    static let secretNames: Set<String> = ["code", "access_token", "id_token", "refresh_token"]

    /// The URL with the value of every secret parameter (`code`, tokens)
    /// replaced by its digest — in the query and in the fragment, and after
    /// any `?`, `&`, `#` or `;`, however the URL is shaped: a lenient server
    /// may read a parameter where a strict parser sees none.
    package static func redact(_ url: String) -> String {
        // Fast exit for the usual URL, without copying it: no secret name
        // and no escape after the first separator.
        let view = url.utf8
        guard let firstIndex = view.firstIndex(where: isSeparator) else { return url }
        let tail = view[firstIndex...]
        guard tail.contains(.percent) || tail.firstRange(of: "code".utf8) != nil || tail.firstRange(of: "token".utf8) != nil
        else { return url }
        let bytes = Array(view)
        let first = view.distance(from: view.startIndex, to: firstIndex)
        var out = Array(bytes[..<first])
        out.reserveCapacity(bytes.count + 16)
        var i = first
        while i < bytes.count {
            out.append(bytes[i])  // the separator
            i += 1
            var end = i
            while end < bytes.count && !isSeparator(bytes[end]) { end += 1 }
            if let eq = bytes[i..<end].firstIndex(of: .equals),
                secretNames.contains(PercentDecoding.decode(String(decoding: bytes[i..<eq], as: UTF8.self)).text)
            {
                // The value runs to the next `&` or `#` (a `?` or `;` may be
                // part of it).
                var valueEnd = eq + 1
                while valueEnd < bytes.count && bytes[valueEnd] != .ampersand && bytes[valueEnd] != .hash { valueEnd += 1 }
                out += bytes[i...eq]
                let value = PercentDecoding.decode(String(decoding: bytes[(eq + 1)..<valueEnd], as: UTF8.self), plusIsSpace: true).text
                out += Array(of(Array(value.utf8)).utf8)
                end = valueEnd
            } else {
                out += bytes[i..<end]
            }
            i = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A whole log line with the value of every secret parameter replaced
    /// by its digest, wherever a URL in it carries one (the request, a
    /// Location, a JSON string where `&` is written `\u0026`): what
    /// `explain` shows of a record. A value ends at `&`, `#`, a space, a
    /// quote, a backslash, `,`, `}` or `]`.
    package static func redactLine(_ line: String) -> String {
        let bytes = Array(line.utf8)
        guard bytes.count > 5, line.utf8.firstRange(of: "code".utf8) != nil || line.utf8.firstRange(of: "token".utf8) != nil
        else { return line }
        func ends(_ b: UInt8) -> Bool {
            b == .ampersand || b == .hash || b == .space || b == .tab || b == .quote || b == UInt8(ascii: "'") || b == .backslash
                || b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]")
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var i = 0
        while i < bytes.count {
            // A parameter starts after a separator, or after `\u0026`.
            let starts = i > 0 && (isSeparator(bytes[i - 1]) || (i >= 6 && bytes[(i - 6)..<i].elementsEqual("\\u0026".utf8)))
            if starts,
                let name = secretNames.first(where: { n in
                    i + n.utf8.count < bytes.count && bytes[i..<(i + n.utf8.count)].elementsEqual(n.utf8) && bytes[i + n.utf8.count] == .equals
                })
            {
                let valueStart = i + name.utf8.count + 1
                var valueEnd = valueStart
                while valueEnd < bytes.count && !ends(bytes[valueEnd]) { valueEnd += 1 }
                out += bytes[i..<valueStart]
                let value = PercentDecoding.decode(String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self), plusIsSpace: true).text
                out += Array(of(Array(value.utf8)).utf8)
                i = valueEnd
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Where a URL's parameters may start.
    private static func isSeparator(_ b: UInt8) -> Bool {
        b == .question || b == .ampersand || b == .hash || b == UInt8(ascii: ";")
    }
}
