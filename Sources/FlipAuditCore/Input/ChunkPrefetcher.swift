import Foundation

/// Decodes an input on a thread of its own while the caller parses: zlib
/// inflates into one of a few pool buffers while the previous one is being
/// split and parsed on the calling thread. Single producer, single consumer;
/// the two semaphores order every hand-over.
final class ChunkPrefetcher: @unchecked Sendable {
    /// A pool buffer and what the producer put in it.
    private struct Slot {
        let buffer: UnsafeMutableRawBufferPointer
        var count = 0
        var error: InputError?
    }

    private var slots: [Slot]
    private let free: DispatchSemaphore
    private let filled = DispatchSemaphore(value: 0)
    private let reader: LogFileReader
    private var consumerIndex = 0
    /// A slot handed to the consumer and not yet given back.
    private var outstanding = false
    private var done = false

    /// Starts decoding `reader` at once, `depth` chunks ahead at most.
    init(reader: LogFileReader, depth: Int = 4, bufferSize: Int = LogFileReader.bufferSize) {
        self.reader = reader
        slots = (0..<depth).map { _ in Slot(buffer: .allocate(byteCount: bufferSize, alignment: 16)) }
        free = DispatchSemaphore(value: depth)
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
            free.wait()
            let i = index % slots.count
            do {
                slots[i].count = try reader.read(into: slots[i].buffer)
                slots[i].error = nil
            } catch {
                slots[i].count = 0
                slots[i].error = error
            }
            let last = slots[i].count == 0
            filled.signal()
            if last { return }
            index += 1
        }
    }

    /// The next decoded chunk, valid until the next call; nil at the end.
    /// Must be called until it returns nil or throws, so the producer ends.
    func next() throws(InputError) -> UnsafeRawBufferPointer? {
        if done { return nil }
        if outstanding {
            outstanding = false
            free.signal()
        }
        filled.wait()
        let i = consumerIndex % slots.count
        consumerIndex += 1
        let slot = slots[i]
        if slot.error != nil || slot.count == 0 {
            // The producer has ended; give its last slot back so that both
            // semaphores end at their initial values (libdispatch checks).
            done = true
            free.signal()
            if let error = slot.error { throw error }
            return nil
        }
        outstanding = true
        return UnsafeRawBufferPointer(rebasing: slot.buffer[0..<slot.count])
    }
}
