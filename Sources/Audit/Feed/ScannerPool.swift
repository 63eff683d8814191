import Foundation
import Rules

/// Line scanners of one pass of an audit, kept for its next input instead
/// of being built again: a scanner's flip event extractor remembers the
/// recent redirect URIs, client IDs and return URLs with their verdicts,
/// and a folder of thousands of small files would otherwise work each
/// verdict out again for every file. What a scanner remembers depends on the
/// values alone, so which scanner reads which input changes no result.
///
/// `@unchecked Sendable`: its one mutable field is touched only under the
/// lock, and a scanner given back is used by no other thread until taken
/// again (the lock orders the two).
final class ScannerPool: @unchecked Sendable {
    private let configuration: AuditConfiguration
    private let lock = NSLock()
    private var idle: [LineScanner] = []

    /// `configuration` must be one whose `log_format` parses (`Analyzer.run`
    /// has checked it).
    init(configuration: AuditConfiguration) {
        self.configuration = configuration
    }

    /// A scanner for input `fileIndex` named `name`, read from its start.
    func take(fileIndex: Int32, name: String) -> LineScanner {
        lock.lock()
        var scanner = idle.popLast()
        lock.unlock()
        if scanner == nil {
            // `Analyzer.run` has built the log_format parser once, so this
            // cannot fail.
            scanner = try! LineScanner(fileIndex: fileIndex, configuration: configuration)
        }
        scanner!.restart(fileIndex: fileIndex, reader: configuration.readerIndex(for: name))
        return scanner!
    }

    /// Keeps `scanner` for the next input.
    func give(_ scanner: LineScanner) {
        lock.lock()
        idle.append(scanner)
        lock.unlock()
    }
}
