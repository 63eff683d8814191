import Foundation
import Reading
import Writing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One sorted run of lines in a temporary file: written once, then read
/// back a buffer at a time. The file is unlinked as soon as it is created,
/// so nothing is left behind whatever ends the process (SIGKILL included);
/// the descriptor keeps it until the run is dropped.
/// Not `Sendable`: one thread writes it, then reads it.
final class SpillFile {
    private let fd: Int32
    private var offset: off_t = 0
    private var buffer: [UInt8] = []
    private var start = 0

    /// Writes each of `items` as a line (`encode` appends it, newline
    /// included) to a new temporary file in `$TMPDIR` (or /tmp); nil, with
    /// `errno` set, when it cannot.
    init?<Items: Sequence>(_ items: Items, encode: (Items.Element, inout [UInt8]) -> Void) {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/flipaudit-spill.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.fd = fd
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        for item in items {
            encode(item, &out)
            if out.count >= 1 << 20 {
                guard (try? Descriptor.writeAll(fd, out, path: "")) != nil else { return nil }  // deinit closes fd
                out.removeAll(keepingCapacity: true)
            }
        }
        guard (try? Descriptor.writeAll(fd, out, path: "")) != nil else { return nil }  // deinit closes fd
    }

    deinit { Glibc.close(fd) }

    /// The next line, without its newline; nil at the end of the run. A
    /// last line without its newline is handed on as it is: the reader
    /// judges it.
    func nextLine() -> ArraySlice<UInt8>? {
        while true {
            if let nl = buffer[start...].firstIndex(of: .newline) {
                let line = buffer[start..<nl]
                start = nl + 1
                return line
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = 1 << 16
            let old = buffer.count
            buffer += [UInt8](repeating: 0, count: chunk)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + old, chunk, offset) }
            buffer.removeLast(chunk - max(n, 0))
            guard n > 0 else {
                guard !buffer.isEmpty else { return nil }
                let line = buffer[...]
                buffer = []
                return line
            }
            offset += off_t(n)
        }
    }
}
