/// The distributed audit's code stage (a reduce): the `CodeLine`s of some
/// codes, sorted → `code-reuse` findings as `ReuseLine`s. Each code's
/// returns are judged as one process judges them, in (time, file, line)
/// order within the reuse window: a return to a session other than the
/// first receivers while the code is remembered is a reuse. One process
/// raises it once per session; the merge keeps a session's first.
public enum CodeStage {
    public static func run(configuration: AuditConfiguration, input: LineSource, output: StageOutput) throws {
        let retention = Int64(configuration.reuseWindowSeconds) * 1000
        var memory = ReuseMemory(retention: retention)
        var receivers = Set<SourceRef>()
        let lines = SortedLines(input)
        while let (line, newKey) = try lines.next() {
            let code: CodeReturn
            do { code = try CodeLine.decode(line) } catch { throw StageError(input, error) }
            if newKey {
                memory = ReuseMemory(retention: retention)
                receivers.removeAll(keepingCapacity: true)
            }
            let first = memory.time(of: code.key, orRememberAt: code.time)
            guard !receivers.contains(code.session) else { continue }
            if let first {
                let finding = Finding(
                    kind: .codeReuse, time: code.time, state: code.state, clientID: code.clientID, redirectURI: code.redirectURI,
                    detail: SessionTracker.codeReuseDetail(code.digest, first: first), source: code.source)
                ReuseLine.encode(session: code.session, finding, into: &output.buffer)
                try output.flushIfFull()
            } else {
                receivers.insert(code.session)
            }
        }
        try output.flush()
    }
}
