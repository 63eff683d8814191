import Foundation
import Reading
import Rules

/// The time of an input's first record: what inputs are ranked by
/// (`rank`), learnt before any input is read.
package enum FirstRecord {
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

    /// Ranks inputs as the audit orders them (docs/contract.md §3): by the
    /// time of their first record, then by name, so a server's rotated
    /// files keep their order even when the rotation falls inside one
    /// logged second. A stream, which cannot be looked into before it is
    /// read, ranks as an input without a record: first. The first record
    /// times come back in rank order.
    package static func rank(_ files: [InputFile], configuration: AuditConfiguration) -> [InputFile] {
        rank(files, configuration: configuration, scanners: ScannerPool(configuration: configuration)).inputs
    }

    static func rank(
        _ files: [InputFile], configuration: AuditConfiguration, scanners: ScannerPool
    ) -> (inputs: [InputFile], startTimes: [Int64?]) {
        let look = { @Sendable (file: InputFile) in
            FirstRecord.time(of: file, configuration: configuration, scanners: scanners)
        }
        let times = configuration.parallel ? WorkerThread.map(files, look) : files.map(look)
        // The catalog lists files by name: a stable sort keeps that order
        // among equal times.
        let order = files.indices.sorted { (times[$0] ?? .min, $0) < (times[$1] ?? .min, $1) }
        return (order.map { files[$0] }, order.map { times[$0] })
    }

    /// Whether an input can be read a second time: a regular file.
    static func canReread(_ file: InputFile) -> Bool {
        guard let path = file.path else { return false }
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

}
