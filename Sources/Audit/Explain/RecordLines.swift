import Parsing
import Reading
import Rules

/// The log lines of the records a story shows, read again once the audit
/// is done (only those, one pass over each input they are in): what the
/// server wrote — method, path, status, User-Agent, Referer — beside the
/// event read from it. Codes in them are shown as digests
/// (`CodeDigest.redactLine`). Standard input cannot be read again: its
/// records show their event alone.
package struct RecordLine: Sendable, Equatable {
    /// The line as written, secrets replaced by their digests.
    package var text: String
    /// The request method, path and query, and status, as its format
    /// reads them (empty when the line is not a record).
    package var method: String
    package var path: String
    package var status: Int
}

extension Explanation {
    /// The lines of every record the stories show, by source.
    func recordLines(configuration: AuditConfiguration) -> [SourceRef: RecordLine] {
        var wanted: [Int32: Set<Int64>] = [:]
        for entry in sessions.flatMap(\.entries) + outside {
            if let source = entry.source, Int(source.file) < result.inputs.count { wanted[source.file, default: []].insert(source.line) }
        }
        guard var readers = try? configuration.readers() else { return [:] }
        var out: [SourceRef: RecordLine] = [:]
        for (file, lines) in wanted {
            let input = result.inputs[Int(file)]
            guard let path = input.path, let reader = try? LogFileReader(path: path, size: input.identity?.size) else { continue }
            var sink = Collector(wanted: lines, reader: readers[configuration.readerIndex(for: input.displayName)])
            var splitter = LineSplitter(maxLine: configuration.maxLine)
            while sink.found.count < lines.count, let chunk = try? reader.nextChunk() { splitter.feed(chunk, to: &sink) }
            if sink.found.count < lines.count { splitter.finish(to: &sink) }
            for (line, record) in sink.found { out[SourceRef(file: file, line: line)] = record }
            readers[configuration.readerIndex(for: input.displayName)] = sink.reader
        }
        return out
    }
}

/// Keeps the wanted lines as they stream past, each read by the input's
/// reader (a W3C header before them included).
private struct Collector: LineSink {
    let wanted: Set<Int64>
    var reader: RecordReader
    var found: [Int64: RecordLine] = [:]

    init(wanted: Set<Int64>, reader: RecordReader) {
        self.wanted = wanted
        self.reader = reader
        self.reader.fields(nil)
    }

    mutating func line(_ bytes: UnsafeRawBufferPointer, number: Int, plain: Bool) {
        if bytes.first == .hash, reader.directive(bytes) { return }
        guard wanted.contains(Int64(number)) else { return }
        let text = CodeDigest.redactLine(String(decoding: bytes, as: UTF8.self))
        var line = RecordLine(text: text, method: "", path: "", status: 0)
        if reader.read(bytes, escapes: !plain) == nil {
            line.method = String(decoding: reader.record.method, as: UTF8.self)
            line.path = CodeDigest.redact(String(decoding: reader.record.target, as: UTF8.self))
            line.status = reader.record.status
        }
        found[Int64(number)] = line
    }

    mutating func overlongLine(number: Int, length: Int) {}
}
