import CHTTP
import Foundation
import Synchronization

/// `--listen HOST:PORT`: `/metrics` (what `FollowMetrics` last published)
/// and `/healthz` (200 once the first commit is done and every named file
/// is open, while the loop turns; 503 otherwise), served by libmicrohttpd
/// (`CHTTP`) on a thread of its own while the follow loop runs on its own:
/// GET only, a few connections at once, idle ones closed.
final class MetricsServer {
    /// Why `--listen` was refused: a one-line message.
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    /// What the server's thread reads: the published board.
    private final class Context {
        let published: FollowMetrics.Board
        init(_ published: FollowMetrics.Board) { self.published = published }
    }

    private let server: OpaquePointer
    private let context: Unmanaged<Context>

    /// HOST:PORT (an IPv4 address, `localhost`, or `[IPv6]`) as a socket address.
    static func address(_ text: String) throws(Refused) -> (host: String, port: UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw Refused(description: "--listen \(text): give HOST:PORT, such as 127.0.0.1:9464")
        }
        var host = String(text[..<colon])
        if host == "localhost" || host.isEmpty { host = host.isEmpty ? "0.0.0.0" : "127.0.0.1" }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            throw Refused(description: "--listen \(text): an IPv6 address goes in brackets, such as [::1]:9464")
        }
        return (host, port)
    }

    /// Starts serving `metrics` on `listen`; refused at once when the
    /// address cannot be bound (in use, not this machine's).
    init(listen: String, metrics: FollowMetrics) throws(Refused) {
        let (host, port) = try Self.address(listen)
        let context = Unmanaged.passRetained(Context(metrics.published))
        var error = [CChar](repeating: 0, count: 256)
        guard let server = fa_http_start(host, port, Self.answer, context.toOpaque(), &error, error.count) else {
            context.release()
            throw Refused(description: "--listen \(listen): \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        self.server = server
        self.context = context
    }

    deinit {
        fa_http_stop(server)
        context.release()
    }

    /// One GET, on the server's thread.
    private static let answer: fa_http_handler = { context, path, body, length, type in
        let published = Unmanaged<Context>.fromOpaque(context!).takeUnretainedValue().published
        let status: UInt32
        let text: String
        switch path.map({ String(cString: $0) }) {
        case "/metrics":
            status = 200
            text = published.state.withLock { $0.text }
            type?.pointee = UnsafeRawPointer(MetricsServer.metricsType.utf8Start).assumingMemoryBound(to: CChar.self)
        case "/healthz":
            (status, text) = published.health(now: Date().timeIntervalSince1970)
        default:
            status = 404
            text = "not found: /metrics, /healthz\n"
        }
        let bytes = Array(text.utf8)
        let out = malloc(max(1, bytes.count))!
        bytes.withUnsafeBytes { if let from = $0.baseAddress { out.copyMemory(from: from, byteCount: bytes.count) } }
        body?.pointee = out.assumingMemoryBound(to: CChar.self)
        length?.pointee = bytes.count
        return status
    }

    /// Prometheus's text format (a literal: it lives as long as the program).
    private static let metricsType: StaticString = "text/plain; version=0.0.4; charset=utf-8"
}
