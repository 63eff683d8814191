import Foundation

/// Decodes an input on a thread of its own while the caller parses: zlib
/// inflates into a pool of buffers ahead of the buffer being split and
/// parsed on the calling thread. Single producer, single consumer.
///
/// Hand-overs are batched: a producer that found the pool full sleeps until
/// half of it is free again, so on a busy machine the two threads trade the
/// CPU in long turns rather than one chunk at a time (each wake-up costs a
/// context switch and the caches that go with it).
final class ChunkPrefetcher: @unchecked Sendable {
    /// A pool buffer and what the producer put in it.
    private struct Slot {
        let buffer: UnsafeMutableRawBufferPointer
        var count = 0
        var error: InputError?
        /// The reader's compressed position after this chunk.
        var compressed: UInt64 = 0
    }

    private var slots: [Slot]
    private let reader: LogFileReader
    private let condition = NSCondition()
    /// Slots filled and not yet taken (guarded by `condition`).
    private var filledCount = 0
    /// Whether the producer sleeps until half the pool is free.
    private var producerWaiting = false
    /// Whether the consumer sleeps until a slot is filled.
    private var consumerWaiting = false
    private var consumerIndex = 0
    /// A slot handed to the consumer and not yet given back.
    private var outstanding = false
    private var done = false
    /// Bytes of the input read as stored, up to the last chunk handed out
    /// (for progress; the reader itself belongs to the producer thread).
    private(set) var compressedBytes: UInt64 = 0

    /// Starts decoding `reader` at once, `depth` chunks ahead at most.
    init(reader: LogFileReader, depth: Int, bufferSize: Int = LogFileReader.bufferSize) {
        self.reader = reader
        slots = (0..<max(depth, 2)).map { _ in Slot(buffer: .allocate(byteCount: bufferSize, alignment: 16)) }
        // The thread holds the prefetcher until the input ends.
        let thread = Thread { [self] in self.produce() }
        thread.stackSize = 1 << 20
        thread.name = "flipaudit-inflate"
        thread.start()
    }

    deinit {
        for slot in slots { slot.buffer.deallocate() }
    }

    private func produce() {
        var index = 0
        while true {
            condition.lock()
            // Slots in use: filled ones plus the one the consumer holds.
            if filledCount + 1 >= slots.count {
                producerWaiting = true
                while producerWaiting { condition.wait() }
            }
            condition.unlock()
            let i = index % slots.count
            do {
                slots[i].count = try reader.read(into: slots[i].buffer)
                slots[i].error = nil
                slots[i].compressed = reader.compressedBytes
            } catch {
                slots[i].count = 0
                slots[i].error = error
            }
            let last = slots[i].count == 0
            condition.lock()
            filledCount += 1
            if consumerWaiting {
                consumerWaiting = false
                condition.signal()
            }
            condition.unlock()
            if last { return }
            index += 1
        }
    }

    /// The next decoded chunk, valid until the next call; nil at the end.
    /// Must be called until it returns nil or throws, so the producer ends.
    func next() throws(InputError) -> UnsafeRawBufferPointer? {
        if done { return nil }
        condition.lock()
        if outstanding {
            outstanding = false
            // The slot given back; wake a sleeping producer once half the
            // pool is free.
            if producerWaiting && filledCount + 1 <= slots.count / 2 {
                producerWaiting = false
                condition.signal()
            }
        }
        while filledCount == 0 {
            consumerWaiting = true
            condition.wait()
        }
        filledCount -= 1
        condition.unlock()
        let i = consumerIndex % slots.count
        consumerIndex += 1
        let slot = slots[i]
        if slot.error != nil || slot.count == 0 {
            // The producer has ended.
            done = true
            if let error = slot.error { throw error }
            return nil
        }
        outstanding = true
        compressedBytes = slot.compressed
        return UnsafeRawBufferPointer(rebasing: slot.buffer[0..<slot.count])
    }
}
