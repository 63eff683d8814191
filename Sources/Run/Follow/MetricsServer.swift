import FlyingFox
import FlyingSocks
import Foundation
import Synchronization

/// `--listen HOST:PORT`: `/metrics` (what `FollowMetrics` last published)
/// and `/healthz` (200 once the first commit is done and every named file
/// is open, while the loop turns; 503 otherwise), served by FlyingFox on the concurrency runtime's
/// threads while the follow loop runs on its own.
final class MetricsServer: Sendable {
    private let failure = Mutex<String?>(nil)

    /// Why `--listen` was refused: a one-line message.
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    /// HOST:PORT (an IPv4 address, `localhost`, or `[IPv6]`) as a socket address.
    static func address(_ text: String) throws(Refused) -> (host: String, port: UInt16, v6: Bool) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw Refused(description: "--listen \(text): give HOST:PORT, such as 127.0.0.1:9464")
        }
        var host = String(text[..<colon])
        if host == "localhost" || host.isEmpty { host = host.isEmpty ? "0.0.0.0" : "127.0.0.1" }
        let v6 = host.hasPrefix("[") && host.hasSuffix("]")
        if v6 { host = String(host.dropFirst().dropLast()) }
        return (host, port, v6)
    }

    /// Starts serving `metrics` on `listen`; refused at once when the
    /// address cannot be bound (in use, not this machine's).
    init(listen: String, metrics: FollowMetrics) throws(Refused) {
        let (host, port, v6) = try Self.address(listen)
        try Self.probe(host: host, port: port, v6: v6, shown: listen)
        let server: HTTPServer
        do {
            server =
                v6
                ? HTTPServer(address: try sockaddr_in6.inet6(ip6: host, port: port), logger: Silent())
                : HTTPServer(address: try sockaddr_in.inet(ip4: host, port: port), logger: Silent())
        } catch {
            throw Refused(description: "--listen \(listen): \(error)")
        }
        let published = metrics.published
        Task { [self] in
            await server.appendRoute("GET /metrics") { _ in
                HTTPResponse(
                    statusCode: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                    body: Data(published.state.withLock { $0.text }.utf8))
            }
            await server.appendRoute("GET /healthz") { _ in
                let healthy = published.healthy(now: Date().timeIntervalSince1970)
                return HTTPResponse(
                    statusCode: healthy ? .ok : .serviceUnavailable, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: Data((healthy ? "ok\n" : "starting\n").utf8))
            }
            do { try await server.run() } catch { self.failure.withLock { $0 = "\(error)" } }
        }
    }

    /// Why the server stopped, once (nil while it serves).
    func takeFailure() -> String? {
        failure.withLock { f in
            defer { f = nil }
            return f
        }
    }

    /// Binds the address once to say at start why it cannot be served.
    private static func probe(host: String, port: UInt16, v6: Bool, shown: String) throws(Refused) {
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Refused(description: "--listen \(shown): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if v6 {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &a.sin6_addr) == 1 else { throw Refused(description: "--listen \(shown): not an IPv6 address") }
            bound = withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &a.sin_addr) == 1 else { throw Refused(description: "--listen \(shown): not an IPv4 address") }
            bound = withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard bound == 0 else { throw Refused(description: "--listen \(shown): \(String(cString: strerror(errno)))") }
    }
}

/// FlyingFox's log lines would land on standard output, among the findings.
private struct Silent: Logging {
    func logDebug(_ debug: @autoclosure () -> String) {}
    func logInfo(_ info: @autoclosure () -> String) {}
    func logWarning(_ warning: @autoclosure () -> String) {}
    func logError(_ error: @autoclosure () -> String) {}
    func logCritical(_ critical: @autoclosure () -> String) {}
}
