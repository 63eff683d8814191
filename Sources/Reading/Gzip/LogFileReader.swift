#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `read(2)`, named apart from `LogFileReader.read(into:)`.
@inline(__always)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// Reads one input — a file or standard input — and hands out its decoded
/// bytes in large chunks. Gzip is recognised by its magic bytes (never by the
/// file name) and every member of a multi-member file is read; anything else
/// that is not zstd, bzip2 or xz is passed through as plain text.
///
/// A damaged gzip stream still yields every byte decoded before the damage;
/// the error is thrown by the `nextChunk()` call after the last good chunk.
package final class LogFileReader {
    /// How the input is encoded, as told by its first bytes.
    package enum Encoding: String, Sendable {
        case plain, gzip
    }

    /// Size of the read and inflate buffers.
    package static let bufferSize = 256 * 1024

    /// Compressed (on-disk) bytes read so far.
    package private(set) var compressedBytes: UInt64 = 0
    /// Decoded bytes handed out so far.
    package private(set) var decodedBytes: UInt64 = 0
    /// The encoding, known once the first chunk has been read.
    package private(set) var encoding: Encoding = .plain

    private let fd: Int32
    private let closeOnDeinit: Bool
    /// A regular file's size when it was opened, or when the run first
    /// looked at it (`size`): it is read that far and no further (a file
    /// still being appended to ends there, and a second reading ends where
    /// the first did); it is an error when it ends before. Nil for a
    /// stream.
    let sizeAtOpen: UInt64?
    private let input: UnsafeMutableRawBufferPointer
    private var inStart = 0
    private var inEnd = 0
    /// File offset of `input[0]`.
    private var inputFileOffset: UInt64 = 0
    private var sawEOF = false
    private var sniffed = false

    private var output: UnsafeMutableRawBufferPointer?
    private var inflater: GzipInflater?
    /// True between a member's first byte and its end.
    private var memberOpen = false
    /// An error found after the chunk that was returned with it.
    private var pendingError: InputError?
    private var finished = false
    /// The file read (nil: standard input), for messages.
    private let path: String?
    private let look: Bool

    /// Opens `path`, or standard input for `nil`. `look`: only the first
    /// few KiB will be read (`GzipInflater.look`). `size`: the size the run
    /// saw first (`FileIdentity.size`), which a regular file is read to.
    package init(path: String?, size: UInt64? = nil, look: Bool = false) throws(InputError) {
        self.path = path
        self.look = look
        if let path {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 {
                let code = errno
                if code == ENOENT { throw .missing }
                throw .unreadable(String(cString: strerror(code)))
            }
            self.fd = fd
            closeOnDeinit = true
        } else {
            fd = STDIN_FILENO
            closeOnDeinit = false
        }
        var info = stat()
        let known = fstat(fd, &info) == 0
        if known, (info.st_mode & S_IFMT) == S_IFDIR {
            if closeOnDeinit { close(fd) }
            throw .unreadable("is a directory")
        }
        sizeAtOpen = known && (info.st_mode & S_IFMT) == S_IFREG ? size ?? UInt64(info.st_size) : nil
        input = BufferPool.shared.take(Self.bufferSize)
    }

    deinit {
        if closeOnDeinit { close(fd) }
        BufferPool.shared.give(input)
        if let output { BufferPool.shared.give(output) }
        if let inflater, !inflater.look { BufferPool.shared.give(inflater) }
    }

    /// The next chunk of decoded bytes, valid until the next call; `nil` at
    /// a clean end. Throws once the input cannot be read further.
    package func nextChunk() throws(InputError) -> UnsafeRawBufferPointer? {
        if output == nil { output = BufferPool.shared.take(Self.bufferSize) }
        let n = try read(into: output!)
        return n == 0 ? nil : UnsafeRawBufferPointer(rebasing: output![0..<n])
    }

    /// Decodes the next bytes into `destination`; returns how many, 0 at a
    /// clean end. Throws once the input cannot be read further (after every
    /// byte decoded before the damage was returned).
    package func read(into destination: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        if let error = pendingError {
            pendingError = nil
            finished = true
            throw error
        }
        if finished { return 0 }
        if !sniffed { try sniff() }
        switch encoding {
        case .plain:
            if inStart < inEnd {
                // Bytes read while sniffing.
                let n = min(inEnd - inStart, destination.count)
                destination.baseAddress!.copyMemory(from: input.baseAddress! + inStart, byteCount: n)
                inStart += n
                decodedBytes += UInt64(n)
                return n
            }
            let n = try readPlain(into: destination)
            if n == 0 { finished = true }
            decodedBytes += UInt64(n)
            return n
        case .gzip:
            return try inflateNext(into: destination)
        }
    }

    /// One `read(2)` straight into the caller's buffer.
    private func readPlain(into destination: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        try readBounded(destination.baseAddress!, destination.count)
    }

    /// One `read(2)` of at most `count` bytes, never past `sizeAtOpen`;
    /// 0 at the end. A regular file that ends before its size at open was
    /// cut while read: an error, not a quiet end.
    private func readBounded(_ buffer: UnsafeMutableRawPointer, _ count: Int) throws(InputError) -> Int {
        var want = count
        if let size = sizeAtOpen {
            guard compressedBytes < size else { return 0 }
            want = Int(min(UInt64(count), size - compressedBytes))
        }
        while true {
            let n = systemRead(fd, buffer, want)
            if n > 0 {
                compressedBytes += UInt64(n)
                return n
            }
            if n == 0 {
                if let size = sizeAtOpen, compressedBytes < size { throw .shrunk(offset: compressedBytes, size: size) }
                return 0
            }
            if errno == EINTR { continue }
            throw .unreadable(String(cString: strerror(errno)))
        }
    }

    /// Reads the first bytes and decides how to decode them.
    private func sniff() throws(InputError) {
        sniffed = true
        while inEnd < 6 && !sawEOF { try readMore() }
        let head = UnsafeRawBufferPointer(rebasing: input[0..<inEnd])
        func starts(_ magic: [UInt8]) -> Bool { head.count >= magic.count && zip(head, magic).allSatisfy { $0 == $1 } }
        if starts([0x1F, 0x8B]) {
            encoding = .gzip
            inflater = look ? try GzipInflater(look: true) : try BufferPool.shared.takeInflater()
            memberOpen = true
        } else if starts([0x28, 0xB5, 0x2F, 0xFD]) {
            throw .unsupportedCompression(format: "zstd", tool: "zstd", path: path)
        } else if starts([0x42, 0x5A, 0x68]) {
            throw .unsupportedCompression(format: "bzip2", tool: "bzip2", path: path)
        } else if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) {
            throw .unsupportedCompression(format: "xz", tool: "xz", path: path)
        }
    }

    private func inflateNext(into output: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        guard let inflater else { return 0 }
        while true {
            if inStart == inEnd {
                try refill()
                if inStart == inEnd {
                    if memberOpen {
                        // The decoder may still hold output of the input it
                        // took (igzip keeps some when the output space ran
                        // short): it is handed out before the truncation, so
                        // what a truncated input gives does not depend on
                        // the sizes it was read in.
                        let rest = inflater.inflate(from: UnsafeRawBufferPointer(start: nil, count: 0), into: output)
                        if rest.produced > 0 {
                            if rest.status == .memberEnd { memberOpen = false }
                            decodedBytes += UInt64(rest.produced)
                            return rest.produced
                        }
                    }
                    finished = true
                    if memberOpen { throw .truncated(offset: compressedBytes) }
                    return 0
                }
            }
            if !memberOpen {
                // Between members: another member, zero padding, or garbage.
                if input[inStart] == 0 {
                    while inStart < inEnd && input[inStart] == 0 { inStart += 1 }
                    continue
                }
                if inEnd - inStart < 2 && !sawEOF {
                    try compactAndRead()
                    continue
                }
                guard inEnd - inStart >= 2, input[inStart] == 0x1F, input[inStart + 1] == 0x8B else {
                    finished = true
                    throw .trailingGarbage(offset: inputFileOffset + UInt64(inStart))
                }
                inflater.reset()
                memberOpen = true
            }
            let step = inflater.inflate(
                from: UnsafeRawBufferPointer(rebasing: input[inStart..<inEnd]),
                into: output)
            inStart += step.consumed
            switch step.status {
            case .progress:
                break
            case .memberEnd:
                memberOpen = false
            case .corrupt(let reason):
                let error = InputError.corrupt(offset: inputFileOffset + UInt64(inStart), reason: reason)
                if step.produced == 0 { finished = true; throw error }
                pendingError = error
            }
            if step.produced > 0 {
                decodedBytes += UInt64(step.produced)
                return step.produced
            }
            if step.consumed == 0 && step.status == .progress && inStart < inEnd {
                // The decoder wants more input than the buffer holds contiguously.
                try compactAndRead()
            }
        }
    }

    /// Replaces the consumed buffer with fresh bytes from the file.
    private func refill() throws(InputError) {
        inputFileOffset += UInt64(inEnd)
        inStart = 0
        inEnd = 0
        if !sawEOF { try readMore() }
    }

    /// Keeps the unconsumed tail and reads more behind it.
    private func compactAndRead() throws(InputError) {
        let tail = inEnd - inStart
        if inStart > 0 {
            if tail > 0 {
                input.baseAddress!.copyMemory(from: input.baseAddress! + inStart, byteCount: tail)
            }
            inputFileOffset += UInt64(inStart)
            inStart = 0
            inEnd = tail
        }
        if sawEOF {
            if memberOpen {
                finished = true
                throw .truncated(offset: compressedBytes)
            }
            return
        }
        try readMore()
    }

    /// One `read(2)` into the free end of the buffer.
    private func readMore() throws(InputError) {
        let n = try readBounded(input.baseAddress! + inEnd, input.count - inEnd)
        if n == 0 { sawEOF = true }
        inEnd += n
    }
}
