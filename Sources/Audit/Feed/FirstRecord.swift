import Reading
import Rules

/// The time of an input's first record: what inputs are ranked by
/// (`Analyzer.rank`), learnt before any input is read.
enum FirstRecord {
    /// Time of the first record of `file` within its first
    /// `LogFileReader.bufferSize` decoded bytes (nil for inputs without a
    /// record there, and for streams — standard input, a FIFO,
    /// `/dev/stdin`, `<(...)` — which cannot be read twice: a look ahead
    /// would lose their first bytes, or wait on a FIFO's writer forever).
    /// The merge uses it to leave an input closed until the audit reaches
    /// its time. It decodes in small steps, with a decoder that decodes no
    /// further than asked (`LogFileReader(path:look:)`), and stops at the
    /// first record: for a folder of thousands of small files, this look
    /// costs little beside the reading itself.
    static func time(of file: InputFile, configuration: AuditConfiguration, scanners: ScannerPool) -> Int64? {
        guard !file.isStream, let reader = try? LogFileReader(path: file.path, size: file.identity?.size, look: true) else { return nil }
        var splitter = LineSplitter(maxLine: configuration.maxLine)
        var assembler = ScanAssembler(file: file, format: configuration.format)
        var scanner = scanners.take(fileIndex: 0, name: file.displayName)
        defer { scanners.give(scanner) }
        scanner.linesBefore = 0
        // A few lines at first, more while no record turns up.
        var step = 1024
        let pooled = BufferPool.shared.take(LogFileReader.bufferSize)
        defer { BufferPool.shared.give(pooled) }
        let buffer = UnsafeMutableRawBufferPointer(rebasing: pooled[0..<64 * 1024])
        var decoded = 0
        while decoded < LogFileReader.bufferSize {
            let want = min(step, buffer.count, LogFileReader.bufferSize - decoded)
            step *= 2
            guard let n = try? reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want])), n > 0 else { break }
            decoded += n
            splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), to: &scanner)
            assembler.add(scanner.take(), emit: { _ in })
            if let time = assembler.firstTime { return time }
        }
        splitter.finish(to: &scanner)
        assembler.add(scanner.take(), emit: { _ in })
        return assembler.firstTime
    }
}
