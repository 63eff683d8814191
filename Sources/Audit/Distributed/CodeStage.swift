import Rules

/// The distributed audit's code stage (a reduce): the `CodeLine`s of some
/// codes, sorted → `code-reuse` findings as `ReuseLine`s. Each code's
/// returns are judged as one process judges them, in (time, file, line)
/// order within the reuse window: a return to a session other than the
/// first receivers while the code is remembered is a reuse. One process
/// raises it once per session; the merge keeps a session's first. A
/// task that read any line ends with a `StageTally` line.
package enum CodeStage {
    package static func run(plan: JobPlan, configuration: AuditConfiguration, input: LineSource, output: StageOutput) throws {
        let retention = Int64(configuration.reuseWindowSeconds) * 1000
        var memory = ReuseMemory(retention: retention)
        var receivers = Set<SourceRef>()
        let lines = SortedLines(input)
        var read = LineTally()
        var written = LineTally()
        while let (line, newKey) = try lines.next() {
            let code: CodeReturn
            do { code = try CodeLine.decode(line) } catch { throw StageError(input, error) }
            // As the session stage checks its events: every rank is the plan's.
            for rank in [code.source.file, code.session.file] where !plan.files.indices.contains(Int(rank)) {
                throw StageError(input, "no input of this plan has rank \(rank)")
            }
            guard code.source.line >= 1, code.session.line >= 1 else { throw StageError(input, "line number 0") }
            read.add(line)
            if newKey {
                memory = ReuseMemory(retention: retention)
                receivers.removeAll(keepingCapacity: true)
            }
            switch CodeReuse.judge(code.key, at: code.time, alreadyReceived: receivers.contains(code.session), memory: &memory) {
            case .received: receivers.insert(code.session)
            case .reused(let first):
                let finding = Finding(
                    kind: .codeReuse, time: code.time, state: code.state, clientID: code.clientID, redirectURI: code.redirectURI,
                    detail: CodeReuse.detail(code.digest, first: first), source: code.source)
                written.add(appendedTo: &output.buffer) { ReuseLine.encode(session: code.session, finding, into: &$0) }
                try output.flushIfFull()
            case .repeated: break
            }
        }
        if read.lines > 0 {
            StageTally(stage: .codes, job: plan.jobID, codesRead: read, forMerge: written).encode(into: &output.buffer)
        }
        try output.flush()
    }
}
