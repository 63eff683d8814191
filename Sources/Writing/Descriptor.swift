#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Plain descriptor I/O for outputs, with every error reported (never a
/// trap): Foundation's `FileHandle.write` traps on ENOSPC or EBADF.
package enum Descriptor {
    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR;
    /// `path` names the output in the error.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(OutputError) {
        var done = 0
        while done < bytes.count {
            let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(path)
            }
            done += n
        }
    }

    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(OutputError) {
        var failure: OutputError?
        bytes.withUnsafeBytes { b in
            do throws(OutputError) { try writeAll(fd, b, path: path) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Copies the whole file `source` to `fd`.
    package static func copy(_ source: String, to fd: Int32, path: String) throws(OutputError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        if input < 0 { throw .system(source) }
        defer { _ = close(input) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(input, buffer.baseAddress!, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(source)
            }
            if n == 0 { return }
            try writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<n]), path: path)
        }
    }

    /// `close(2)`, named apart from methods called `close`.
    package static func closeFile(_ fd: Int32) -> Int32 { close(fd) }
}
