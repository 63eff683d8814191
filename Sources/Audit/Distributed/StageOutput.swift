import Writing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a stage writes its lines: standard output, a megabyte at a time.
/// Not `Sendable`: one thread writes it.
package final class StageOutput {
    var buffer: [UInt8] = []
    private let fd: Int32

    package init(descriptor: Int32 = STDOUT_FILENO) {
        fd = descriptor
        buffer.reserveCapacity(1 << 21)
    }

    /// Adds `bytes` to what is written next.
    package func write(_ bytes: [UInt8]) { buffer.append(contentsOf: bytes) }

    /// Writes what is buffered once it passes a megabyte.
    func flushIfFull() throws(OutputError) {
        if buffer.count >= 1 << 20 { try flush() }
    }

    package func flush() throws(OutputError) {
        try Descriptor.writeAll(fd, buffer, path: "-")
        buffer.removeAll(keepingCapacity: true)
    }
}
