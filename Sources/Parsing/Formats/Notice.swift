import Reading

/// Lines a server writes that are not requests (docs/contract.md §2):
/// HAProxy's own messages (`Proxy flip started.`, `Server app/web1 is
/// DOWN`, with a syslog header or without), and the lines of nginx's and
/// Apache's error logs. They are counted as notices, apart from malformed
/// lines, with the reason that names them: understood, not audited. Asked
/// only of lines no log format read, so a request line pays nothing.
///
///     Proxy flip stopped (cumulated conns: FE: 12, BE: 0).
///     <133>Nov 22 10:00:00 lb haproxy[812]: Server oauth/stub is DOWN, reason: Layer4 connection problem
///     2026/11/22 10:00:01 [error] 1234#1234: *1 open() "/srv/www/x" failed (2: No such file or directory)
///     [Sun Nov 22 10:00:01.123456 2026] [mpm_event:notice] [pid 1234:tid 5678] AH00489: Apache/2.4.62 configured
package enum Notice: String, CaseIterable, Sendable {
    case haproxy = "HAProxy notice"
    case nginxError = "nginx error log"
    case apacheError = "Apache error log"

    /// What the line is, when it is one of these.
    package static func of(_ line: UnsafeRawBufferPointer) -> Notice? {
        let b = line
        guard b.count >= 10 else { return nil }
        // nginx: "YYYY/MM/DD HH:MM:SS [level] "
        if b.count > 21, b[4] == 0x2F, b[7] == 0x2F, b[10] == 0x20, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x20, b[20] == 0x5B,
            digits(b, 0, 4), digits(b, 11, 2)
        {
            return .nginxError
        }
        // Apache: "[Www Mmm DD HH:MM:SS(.ffffff) YYYY] [module:level] "
        if b[0] == 0x5B, b[4] == 0x20, b[8] == 0x20, let close = Bytes.find(0x5D, in: b), close < 48, close + 2 < b.count,
            b[close + 1] == 0x20, b[close + 2] == 0x5B
        {
            return .apacheError
        }
        // HAProxy: its message, after a syslog header ("haproxy[PID]: ")
        // when there is one.
        var message = b
        if let at = find(Self.syslogTag, in: b), let end = find(Self.tagEnd, in: Bytes.slice(b, at, b.count)) {
            message = Bytes.slice(b, at + end + Self.tagEnd.count, b.count)
        }
        for prefix in Self.haproxyMessages where message.count >= prefix.count {
            if prefix.withUnsafeBytes({ Bytes.equal(Bytes.slice(message, 0, prefix.count), $0) }) { return .haproxy }
        }
        return nil
    }

    private static let syslogTag = Array("haproxy[".utf8)
    private static let tagEnd = Array("]: ".utf8)

    /// Where `needle` first stands in `b` (lines are short; asked only of
    /// lines no format read).
    private static func find(_ needle: [UInt8], in b: UnsafeRawBufferPointer) -> Int? {
        guard let first = needle.first, b.count >= needle.count else { return nil }
        var i = 0
        while let at = Bytes.find(first, in: b, from: i), at + needle.count <= b.count {
            if needle.indices.allSatisfy({ b[at + $0] == needle[$0] }) { return at }
            i = at + 1
        }
        return nil
    }

    /// How HAProxy's own messages begin (proxies and servers started,
    /// stopped, up or down; the master's messages).
    private static let haproxyMessages: [[UInt8]] = [
        "Proxy ", "Server ", "backend ", "Backend ", "Stopping ", "Pausing ", "Resuming ", "Health check for ",
        "Loading success.", "New worker ", "Exiting Master", "Current worker ", "Reexecuting Master",
    ].map { Array($0.utf8) }

    private static func digits(_ b: UnsafeRawBufferPointer, _ from: Int, _ count: Int) -> Bool {
        (from..<from + count).allSatisfy { b[$0] >= 0x30 && b[$0] <= 0x39 }
    }
}
