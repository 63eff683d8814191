import DequeModule

/// Decodes an input on a thread of its own while the caller parses: zlib
/// inflates into a pool of buffers ahead of the buffer being split and
/// parsed on the calling thread. Single producer, single consumer.
///
/// Hand-overs are batched: a producer that found the pool full sleeps until
/// half of it is free again, so on a busy machine the two threads trade the
/// CPU in long turns rather than one chunk at a time (each wake-up costs a
/// context switch and the caches that go with it).
package final class ChunkPrefetcher: @unchecked Sendable {
    /// A chunk the producer decoded: its buffer, and what the read gave.
    private struct Chunk {
        var buffer: Int
        var count = 0
        var error: InputError?
        /// The reader's compressed position after this chunk.
        var compressed: UInt64 = 0
    }

    /// What the two threads share.
    private struct Pool {
        /// Chunks decoded and not yet taken, in input order.
        var decoded = Deque<Chunk>()
        /// The consumer holds a chunk (the last one it took).
        var held = false
        let buffers: Int

        /// A buffer is free for the producer: the decoded chunks and the
        /// one the consumer may hold leave one. Buffers are filled in turn,
        /// so the free one is the next.
        var hasRoom: Bool { decoded.count + 1 < buffers }
        /// The consumer has given its chunk back and half the pool is free:
        /// when a producer that found the pool full goes on.
        var halfFree: Bool { !held && decoded.count + 1 <= buffers / 2 }
    }

    private let buffers: [UnsafeMutableRawBufferPointer]
    private let reader: LogFileReader
    private let pool: HandOff<Pool>
    private var done = false
    /// Bytes of the input read as stored, up to the last chunk handed out
    /// (for progress; the reader itself belongs to the producer thread).
    package var compressedBytes: UInt64 = 0

    /// Starts decoding `reader` at once, `depth` chunks ahead at most.
    package init(reader: LogFileReader, depth: Int, bufferSize: Int = LogFileReader.bufferSize) {
        self.reader = reader
        buffers = (0..<max(depth, 2)).map { _ in BufferPool.shared.take(bufferSize) }
        pool = HandOff(Pool(buffers: buffers.count))
        // The thread holds the prefetcher until the input ends.
        WorkerThread.inflate.start { [self] in self.produce() }
    }

    deinit {
        for buffer in buffers { BufferPool.shared.give(buffer) }
    }

    private func produce() {
        var index = 0
        while true {
            pool.wait(for: { $0.hasRoom ? () : nil }, until: { $0.halfFree })
            var chunk = Chunk(buffer: index % buffers.count)
            do {
                chunk.count = try reader.read(into: buffers[chunk.buffer])
                chunk.compressed = reader.compressedBytes
            } catch {
                chunk.error = error
            }
            pool.change { $0.decoded.append(chunk) }
            if chunk.count == 0 { return }
            index += 1
        }
    }

    /// The next decoded chunk, valid until the next call; nil at the end.
    /// Must be called until it returns nil or throws, so the producer ends.
    package func next() throws(InputError) -> UnsafeRawBufferPointer? {
        if done { return nil }
        // The chunk handed out last time is given back first: that may be
        // what a sleeping producer waits for.
        pool.change { $0.held = false }
        let chunk = pool.wait(
            for: { pool -> Chunk? in
                guard let chunk = pool.decoded.popFirst() else { return nil }
                pool.held = true
                return chunk
            }, until: { !$0.decoded.isEmpty })
        if chunk.error != nil || chunk.count == 0 {
            // The producer has ended.
            done = true
            if let error = chunk.error { throw error }
            return nil
        }
        compressedBytes = chunk.compressed
        return UnsafeRawBufferPointer(rebasing: buffers[chunk.buffer][0..<chunk.count])
    }
}
