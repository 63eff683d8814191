import Testing

@testable import Rules

/// `code-reuse` as both drivers decide it (`CodeReuse.judge`).
@Suite("code-reuse decided in one place")
struct CodeReuseTests {
    @Test("a code's first receivers, a reuse by another session, a session's own second return")
    func verdicts() {
        var memory = ReuseMemory(retention: 60_000)
        // The first session to get the code receives it.
        #expect(CodeReuse.judge(7, at: 1_000, alreadyReceived: false, memory: &memory) == .received)
        // That session getting it again says nothing.
        #expect(CodeReuse.judge(7, at: 2_000, alreadyReceived: true, memory: &memory) == .repeated)
        // Another session getting it is a reuse, dated by the first return.
        #expect(CodeReuse.judge(7, at: 3_000, alreadyReceived: false, memory: &memory) == .reused(first: 1_000))
        // Another code is new.
        #expect(CodeReuse.judge(8, at: 3_000, alreadyReceived: false, memory: &memory) == .received)
    }

    @Test("a repeated return still puts the code in memory; past the window the code is new again")
    func memory() {
        var memory = ReuseMemory(retention: 60_000)
        // Judged as repeated (the session had it from a carried run), the
        // code is remembered all the same.
        #expect(CodeReuse.judge(9, at: 1_000, alreadyReceived: true, memory: &memory) == .repeated)
        #expect(CodeReuse.judge(9, at: 5_000, alreadyReceived: false, memory: &memory) == .reused(first: 1_000))
        // Past the reuse window the code is forgotten.
        #expect(CodeReuse.judge(9, at: 1_000 + 3_600_000, alreadyReceived: false, memory: &memory) == .received)
    }

    @Test("the finding's detail names the digest and the first return's time")
    func detail() {
        #expect(
            CodeReuse.detail("sha256:0123456789ab", first: 0)
                == "code sha256:0123456789ab was already returned to another session at 1970-01-01T00:00:00.000Z")
    }
}
