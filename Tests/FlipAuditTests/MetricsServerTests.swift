import Foundation
import Synchronization
import Testing

@testable import Run

/// `follow --listen` through libmicrohttpd (`CHTTP`): the two paths, GET
/// only, an address in use refused in the system's words, and idle
/// connections that cannot take the follower's descriptors. The scrape by
/// a real Prometheus is in Tests/follow/run.sh.
@Suite("follow --listen: /metrics and /healthz")
struct MetricsServerTests {
    /// A port free on loopback now (bound to 0, read, let go).
    private static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) } }
        return UInt16(bigEndian: a.sin_port)
    }

    /// A connected socket to 127.0.0.1:`port`, reads given up after 30 s
    /// (a safety net: no verdict depends on it).
    private static func connectTo(_ port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(r == 0)
        return fd
    }

    /// One HTTP/1.0 request; the whole answer (the server closes after it).
    private static func request(_ port: UInt16, _ method: String, _ path: String) -> (status: Int, headers: String, body: String) {
        let fd = connectTo(port)
        defer { close(fd) }
        let text = Array("\(method) \(path) HTTP/1.0\r\nHost: localhost\r\n\r\n".utf8)
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            answer += buffer[0..<n]
        }
        let whole = String(decoding: answer, as: UTF8.self)
        guard let split = whole.range(of: "\r\n\r\n") else { return (0, whole, "") }
        let head = String(whole[..<split.lowerBound])
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, head, String(whole[split.upperBound...]))
    }

    @Test("GET /metrics gives what was published; /healthz follows health; other paths and methods are refused")
    func paths() throws {
        let port = Self.freePort()
        let metrics = FollowMetrics()
        metrics.lines = 1234
        let server = try MetricsServer(listen: "127.0.0.1:\(port)", metrics: metrics)
        defer { withExtendedLifetime(server) {} }
        // Nothing published yet: starting, and an empty scrape.
        let before = Self.request(port, "GET", "/healthz")
        #expect(before.status == 503 && before.body == "starting\n")
        metrics.publish(healthy: true, now: Date().timeIntervalSince1970)
        let scrape = Self.request(port, "GET", "/metrics")
        #expect(scrape.status == 200)
        #expect(scrape.headers.lowercased().contains("content-type: text/plain; version=0.0.4; charset=utf-8"))
        #expect(scrape.body == metrics.published.state.withLock { $0.text })
        #expect(scrape.body.contains("flipaudit_follow_lines_read_total 1234\n"))
        #expect(Self.request(port, "GET", "/metrics?x=1").status == 200)
        let health = Self.request(port, "GET", "/healthz")
        #expect(health.status == 200 && health.body == "ok\n")
        let head = Self.request(port, "HEAD", "/metrics")
        #expect(head.status == 200 && head.body.isEmpty)
        let post = Self.request(port, "POST", "/metrics")
        #expect(post.status == 405 && post.headers.contains("Allow: GET, HEAD"))
        #expect(Self.request(port, "GET", "/").status == 404)
        // A loop that stopped publishing more than `stall` seconds ago.
        metrics.publish(healthy: true, now: Date().timeIntervalSince1970 - FollowMetrics.Board.stall - 1)
        #expect(Self.request(port, "GET", "/healthz").status == 503)
    }

    @Test("an address in use or not this machine's is refused in one line")
    func refused() throws {
        let port = Self.freePort()
        let first = try MetricsServer(listen: "127.0.0.1:\(port)", metrics: FollowMetrics())
        defer { withExtendedLifetime(first) {} }
        #expect {
            try MetricsServer(listen: "127.0.0.1:\(port)", metrics: FollowMetrics())
        } throws: {
            "\($0)" == "--listen 127.0.0.1:\(port): Address already in use"
        }
        #expect { try MetricsServer(listen: "192.0.2.1:\(port)", metrics: FollowMetrics()) } throws: {
            "\($0)" == "--listen 192.0.2.1:\(port): Cannot assign requested address"
        }
        #expect { try MetricsServer(listen: "::1:\(port)", metrics: FollowMetrics()) } throws: { "\($0)".contains("in brackets") }
        #expect { try MetricsServer(listen: "[::1]x", metrics: FollowMetrics()) } throws: { "\($0)".contains("give HOST:PORT") }
    }

    @Test("idle connections hold at most a few of the follower's descriptors, and none once gone")
    func idle() throws {
        let port = Self.freePort()
        let metrics = FollowMetrics()
        metrics.publish(healthy: true, now: Date().timeIntervalSince1970)
        let server = try MetricsServer(listen: "127.0.0.1:\(port)", metrics: metrics)
        defer { withExtendedLifetime(server) {} }
        // The server's ends of connections on `port` this process holds:
        // descriptors that are sockets whose local port is `port` (other
        // tests running beside this one open descriptors of their own).
        func served() -> Int {
            let hex = String(format: ":%04X", port)
            // Read to its end in a loop: a proc file says size 0, and a
            // one-read helper gets its first page only.
            var bytes: [UInt8] = []
            let fd = open("/proc/net/tcp", O_RDONLY)
            var chunk = [UInt8](repeating: 0, count: 65536)
            while fd >= 0 {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { break }
                bytes += chunk[0..<n]
            }
            if fd >= 0 { close(fd) }
            let table = String(decoding: bytes, as: UTF8.self)
            var inodes = Set<String>()
            for row in table.split(separator: "\n").dropFirst() {
                let f = row.split(separator: " ")
                // local address, state (0A: listening), inode
                if f.count > 9, f[1].hasSuffix(hex), f[3] != "0A" { inodes.insert(String(f[9])) }
            }
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.filter { fd in
                var buffer = [CChar](repeating: 0, count: 64)
                let n = readlink("/proc/self/fd/" + fd, &buffer, buffer.count - 1)
                guard n > 0 else { return false }
                let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                guard link.hasPrefix("socket:[") else { return false }
                return inodes.contains(String(link.dropFirst(8).dropLast()))
            }.count
        }
        // 60 clients that connect and say nothing. The server takes at
        // most FA_HTTP_CONNECTIONS of them and leaves the rest in the
        // kernel's queue (64 long: more would make `connect` wait for the
        // kernel's SYN retries, seconds each).
        let idle = (0..<60).map { _ in Self.connectTo(port) }
        // Let the server accept what it will (on its own thread; slowly
        // when the machine is busy), then a little more: a server without
        // the limit would take more than 16 meanwhile.
        _ = waitUntil(60) { served() >= 16 }
        usleep(500_000)
        let held = served()
        #expect(held > 0 && held <= 16, "\(held) connections served at once")
        for fd in idle { close(fd) }
        // The idle ones gone, a scrape is answered.
        #expect(Self.request(port, "GET", "/metrics").status == 200)
    }
}
