/// A lane's buffers, each taken from the `BufferPool` the first time a
/// piece is cut into it: a small input, cut in one piece, holds one
/// buffer, not as many as a large one may use. A slot is used by one
/// thread at a time, the one whose claim names it (the `HandOff` orders
/// the claims), and each slot is its own word of memory, hence
/// `@unchecked Sendable`.
final class LaneBuffers: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<UnsafeMutableRawBufferPointer?>
    private let size: Int

    init(count: Int, size: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
        self.size = size
    }

    deinit {
        free()
        slots.deallocate()
    }

    /// Slot `slot`'s buffer, taken from the pool on its first use.
    subscript(slot: Int) -> UnsafeMutableRawBufferPointer {
        if let buffer = slots[slot] { return buffer }
        let buffer = BufferPool.shared.take(size)
        slots[slot] = buffer
        return buffer
    }

    /// Gives the buffers taken back to the pool.
    func free() {
        for i in slots.indices {
            if let buffer = slots[i] { BufferPool.shared.give(buffer) }
            slots[i] = nil
        }
    }
}
