import Foundation

/// Read buffers (`LogFileReader.bufferSize` bytes) and gzip decoders kept
/// for the next input instead of being freed: the executable has jemalloc
/// hand freed pages back within 100 ms, so a folder of thousands of small files
/// would otherwise fault in fresh pages (and the decoder fresh state)
/// for every one of them. Keeps at most `limit` idle buffers and as many
/// streams; any size other than `bufferSize` is allocated and freed as
/// usual.
///
/// `@unchecked Sendable`: its mutable fields are touched only under the
/// lock, and what is given back is used by no other thread until taken
/// again (the lock orders the two).
package final class BufferPool: @unchecked Sendable {
    package static let shared = BufferPool(limit: 16)

    private let lock = NSLock()
    private var idle: [UnsafeMutableRawBufferPointer] = []
    private var idleInflaters: [GzipInflater] = []
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    /// A buffer of `size` bytes: an idle one when there is one.
    package func take(_ size: Int) -> UnsafeMutableRawBufferPointer {
        if size == LogFileReader.bufferSize {
            lock.lock()
            let buffer = idle.popLast()
            lock.unlock()
            if let buffer { return buffer }
        }
        return .allocate(byteCount: size, alignment: 16)
    }

    /// Gives `buffer` back (kept, or freed past `limit`).
    package func give(_ buffer: UnsafeMutableRawBufferPointer) {
        if buffer.count == LogFileReader.bufferSize {
            lock.lock()
            let kept = idle.count < limit
            if kept { idle.append(buffer) }
            lock.unlock()
            if kept { return }
        }
        buffer.deallocate()
    }

    /// A decoder ready for a gzip member: an idle one when there is one.
    func takeInflater() throws(InputError) -> GzipInflater {
        lock.lock()
        let inflater = idleInflaters.popLast()
        lock.unlock()
        guard let inflater else { return try GzipInflater() }
        inflater.reset()
        return inflater
    }

    /// Gives `inflater` back (kept, or freed past `limit`).
    func give(_ inflater: GzipInflater) {
        lock.lock()
        if idleInflaters.count < limit { idleInflaters.append(inflater) }
        lock.unlock()
    }
}
