import Reading

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The lines of a stage's input — standard input or a file — read a
/// buffer at a time. Each line is handed on without its newline; the line
/// number counts from 1. A last line without a newline is an error: the
/// input was cut off.
/// Not `Sendable`: one thread reads it.
package final class LineSource {
    /// How the input is named in messages.
    package let name: String
    private(set) var lineNumber = 0
    private let fd: Int32
    private let owned: Bool
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false

    /// Standard input.
    package init(standardInputNamed name: String = "(stdin)") {
        self.name = name
        fd = STDIN_FILENO
        owned = false
    }

    /// The file at `path`.
    package init(path: String) throws(StageError) {
        name = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        owned = true
        guard fd >= 0 else { throw StageError("\(path): cannot open: \(String(cString: strerror(errno)))") }
    }

    deinit { if owned { _ = close(fd) } }

    /// The next line, or nil at the end.
    package func next() throws(StageError) -> ArraySlice<UInt8>? {
        while true {
            if let nl = buffer[start...].firstIndex(of: .newline) {
                let line = buffer[start..<nl]
                start = nl + 1
                lineNumber += 1
                return line
            }
            if ended {
                guard start == buffer.count else {
                    lineNumber += 1
                    throw StageError(self, "the last line has no newline (cut off?)")
                }
                return nil
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = 1 << 20
            let old = buffer.count
            buffer += repeatElement(0, count: chunk)
            var n: Int
            repeat { n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + old, chunk) } } while n < 0 && errno == EINTR
            buffer.removeLast(chunk - max(n, 0))
            if n < 0 { throw StageError("\(name): cannot read: \(String(cString: strerror(errno)))") }
            if n == 0 { ended = true }
        }
    }
}
