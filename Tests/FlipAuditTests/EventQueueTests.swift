import Testing

@testable import Audit
@testable import Rules

/// The audit thread's first-in first-out queue of flip events
/// (`EventQueue`): events leave in the order they came, however appends,
/// batches and removals interleave.
@Suite("Event queue")
struct EventQueueTests {
    static func event(_ line: Int64) -> FlipEvent {
        FlipEvent(
            time: line, source: SourceRef(file: 0, line: line), clientIP: "", status: 200, request: nil, returned: nil,
            lineKey: 0)
    }

    @Test("random appends, batches and removals against an array")
    func againstAnArray() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func roll(_ n: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % n
        }
        var queue = EventQueue()
        var model: [Int64] = []
        var next: Int64 = 1
        for _ in 0..<5_000 {
            switch roll(4) {
            case 0:
                queue.append(Self.event(next))
                model.append(next)
                next += 1
            case 1:
                var batch = (0..<Int64(roll(5))).map { Self.event(next + $0) }
                model += batch.map(\.source.line)
                next += Int64(batch.count)
                queue.append(moving: &batch)
                #expect(batch.isEmpty)
            default:
                let taken = queue.popFirst()?.source.line
                #expect(taken == (model.isEmpty ? nil : model.removeFirst()))
            }
            #expect(queue.isEmpty == model.isEmpty)
        }
        while let event = queue.popFirst() { #expect(event.source.line == model.removeFirst()) }
        #expect(model.isEmpty)
    }
}
