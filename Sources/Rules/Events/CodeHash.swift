import Parsing
import Reading

/// An authorization code as flipaudit keeps it while its return is
/// audited. Codes are compared by `key`, a 64-bit SipHash of the code under
/// this run's random seed (Swift's `Hasher`: nobody can make two codes
/// collide on purpose); the code's bytes are held only to be shown as
/// `sha256:` and the first 12 hex digits of their SHA-256, worked out when
/// a finding names the code — most codes never are, and SHA-256 was a
/// twentieth of the whole run. The code itself has no way out in clear.
package struct CodeHash: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// What `code-reuse` compares (and remembers, instead of the code).
    package let key: UInt64
    /// The code's bytes while it is held in memory; nil once it was read
    /// back from a spilled event (which holds the digest only).
    private let code: [UInt8]?
    private let digest: String?

    package init(_ code: UnsafeRawBufferPointer, fingerprint: Fingerprint = .process) {
        key = fingerprint.of(code)
        self.code = Array(code)
        digest = nil
    }

    /// A code whose key is known (a return's `codeKey`).
    init(key: UInt64, code: [UInt8]) {
        self.key = key
        self.code = code
        digest = nil
    }

    /// A code known only by its key and digest (as `EventCodec` writes it).
    init(key: UInt64, digest: String) {
        self.key = key
        code = nil
        self.digest = digest
    }

    /// Whether `text` has the form of `description`: `sha256:` and 12
    /// lowercase hex digits.
    package static func isDigest(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 19 && text.hasPrefix("sha256:")
            && bytes[7...].allSatisfy { ($0 >= .zero && $0 <= .nine) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }

    package static func == (a: Self, b: Self) -> Bool {
        guard a.key == b.key else { return false }
        if let x = a.code, let y = b.code { return x == y }
        return a.description == b.description
    }
    /// `dump` and debuggers see the digest, not the code.
    package var customMirror: Mirror { Mirror(self, children: ["digest": description]) }
    package func hash(into hasher: inout Hasher) { hasher.combine(key) }

    package var description: String { digest ?? code!.withUnsafeBytes(CodeDigest.text) }
}

extension FlipQuery {
    /// The decoded `code`, appended to an event's `text`, with its key; the
    /// code itself never becomes a String.
    func code(into text: inout EventText, duplicates: inout FlipParamSet, bad: inout FlipParamSet, fingerprint: Fingerprint)
        -> (key: UInt64, span: TextSpan)?
    {
        guard let raw = values[FlipParam.code.rawValue] else { return nil }
        if counts[FlipParam.code.rawValue] > 1 { duplicates.insert(.code) }
        if Bytes.find(.percent, in: raw) != nil || Bytes.find(.plus, in: raw) != nil {
            let (bytes, malformed) = PercentDecoding.bytes(raw)
            if malformed { bad.insert(.code) }
            return bytes.withUnsafeBytes { (fingerprint.of($0), text.span(appending: $0)) }
        }
        return (fingerprint.of(raw), text.span(appending: raw))
    }
}
