import Audit
import Parsing
import Reading
import Rules
import Writing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes `sessions.csv` and `findings.csv` row by row while the audit
/// runs, and `error_distribution.csv` at its end. Each goes to a temporary
/// file (`OutputTarget`), put in place by `commit` once it is complete: a
/// reader never sees half a file, and an interrupted run leaves no output
/// (see `TemporaryOutputs`). A file whose target is a FIFO or a device is
/// copied into it at the end instead of replacing it.
package final class CSVWriter: RowSink {
    /// One output: where it goes, its temporary file, its descriptor and
    /// the bytes not yet written.
    private final class Output {
        var target: OutputTarget
        let temporary: String
        var fd: Int32
        var buffer: [UInt8] = []
        /// Writes the rows' times.
        var times = Timestamp.ISO8601Writer()

        /// A `replace` target is staged beside its (resolved) path; a
        /// `direct` one (a FIFO, a device) in the CSV folder, and copied
        /// into it at the end.
        init(target: OutputTarget, folder: String) throws(OutputError) {
            self.target = target
            let name = FilePaths.name(of: target.given)
            temporary =
                target.method == .replace
                ? target.temporaryPath
                : (folder.hasSuffix("/") ? folder : folder + "/") + FilePaths.temporaryName(for: name)
            fd = TemporaryOutputs.shared.create(temporary)
            if fd < 0 { throw .system(temporary) }
            buffer.reserveCapacity(Self.flushSize + 4096)
        }

        static let flushSize = 1 << 20

        func flushIfFull() throws(OutputError) {
            if buffer.count >= Self.flushSize { try flush() }
        }

        func flush() throws(OutputError) {
            try Descriptor.writeAll(fd, buffer, path: target.given)
            buffer.removeAll(keepingCapacity: true)
        }

        /// Writes what is left and closes the file, synced: after a crash
        /// its name holds the old file or the whole new one.
        func close() throws(OutputError) {
            try flush()
            if fsync(fd) != 0 { _ = Descriptor.closeFile(fd); fd = -1; throw .system(target.given) }
            if Descriptor.closeFile(fd) != 0 { fd = -1; throw .system(target.given) }
            fd = -1
        }

        /// Syncs the complete temporary file and queues its rename with the
        /// run's commit (`OutputCommit`); a FIFO or device is written now.
        func stage() throws(OutputError) {
            guard target.method == .replace else { return try install() }
            OutputCommit.shared.add(
                OutputCommit.Rename(temporary: temporary, path: target.path, option: "--csv", shownAs: target.given, isCheckpoint: false))
        }

        /// Moves the complete temporary file into place.
        func install() throws(OutputError) {
            switch target.method {
            case .replace, .standardOutput:
                if rename(temporary, target.path) != 0 { throw OutputError.system(target.given) }
            case .direct:
                let (out, owned) = try OutputWriter.openDirect(target)
                defer { if owned { _ = Descriptor.closeFile(out) } }
                try Descriptor.copy(temporary, to: out, path: target.given)
                unlink(temporary)
            }
            TemporaryOutputs.shared.remove(temporary)
        }

        func discard() {
            if fd >= 0 { _ = Descriptor.closeFile(fd); fd = -1 }
            unlink(temporary)
            TemporaryOutputs.shared.remove(temporary)
        }
    }

    private let sessions: Output
    private let findings: Output
    private let distribution: Output
    /// Per input, its escaped `FILE:` for the source cells.
    private var sourcePrefixes: [[UInt8]] = []
    /// Per output, the first write error; reported by `commit`.
    private var failures: [ObjectIdentifier: OutputError] = [:]

    /// Creates the temporary files in `directory` (which must exist): a
    /// folder that cannot be written fails here, before any input is read.
    package convenience init(directory: String) throws(OutputError) {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        let targets = Self.fileNames.map {
            OutputTarget(option: "--csv", given: base + $0, path: base + $0, method: .replace, identity: nil)
        }
        try self.init(directory: directory, targets: targets)
    }

    /// The names of the three files, in the order `targets` gives them.
    package static let fileNames = ["sessions.csv", "findings.csv", "error_distribution.csv"]

    /// Writes the three files to `targets` (in `fileNames` order);
    /// temporary files go to `directory`.
    package init(directory: String, targets: [OutputTarget]) throws(OutputError) {
        sessions = try Output(target: targets[0], folder: directory)
        do {
            findings = try Output(target: targets[1], folder: directory)
        } catch {
            sessions.discard()
            throw error
        }
        do {
            distribution = try Output(target: targets[2], folder: directory)
        } catch {
            sessions.discard()
            findings.discard()
            throw error
        }
        CSV.append(row: CSVReport.sessionsHeader, to: &sessions.buffer)
        CSV.append(row: CSVReport.findingsHeader, to: &findings.buffer)
    }

    deinit {
        // Not committed: leave nothing behind.
        for output in [sessions, findings, distribution] where output.fd >= 0 { output.discard() }
    }

    /// Called before the first row; called again, it drops every row
    /// written since (the audit starts over in time order).
    package func start(inputs: [InputFile]) {
        if started {
            for output in [sessions, findings] {
                output.buffer.removeAll(keepingCapacity: true)
                if output.fd >= 0 && (ftruncate(output.fd, 0) != 0 || lseek(output.fd, 0, SEEK_SET) != 0)
                    && failures[ObjectIdentifier(output)] == nil
                {
                    failures[ObjectIdentifier(output)] = .system(output.target.given)
                }
            }
            CSV.append(row: CSVReport.sessionsHeader, to: &sessions.buffer)
            CSV.append(row: CSVReport.findingsHeader, to: &findings.buffer)
        }
        started = true
        sourcePrefixes = inputs.map { CSVReport.sourcePrefix(displayName: $0.displayName) }
    }
    private var started = false

    private func prefix(_ source: SourceRef) -> [UInt8] {
        sourcePrefixes.indices.contains(Int(source.file)) ? sourcePrefixes[Int(source.file)] : Array("?:".utf8)
    }

    package func session(_ row: SessionRecord) {
        CSVReport.append(session: row, source: prefix(row.source), times: &sessions.times, to: &sessions.buffer)
        keep(sessions)
    }

    package func finding(_ row: Finding) {
        CSVReport.append(finding: row, source: prefix(row.source), times: &findings.times, to: &findings.buffer)
        keep(findings)
    }

    /// Flushes a full buffer; after a write error the output only drops
    /// its rows (the error is reported at the end, other outputs go on).
    private func keep(_ output: Output) {
        guard failures[ObjectIdentifier(output)] == nil else {
            output.buffer.removeAll(keepingCapacity: true)
            return
        }
        do { try output.flushIfFull() } catch {
            failures[ObjectIdentifier(output)] = error
            output.buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Writes `error_distribution.csv`, completes the three files and
    /// puts each in place; throws the first error (see `commitAll`).
    func commit(statistics: AuditStatistics) throws(OutputError) {
        if let first = commitAll(statistics: statistics).first { throw first }
    }

    /// Writes `error_distribution.csv`, completes the three files and puts
    /// in place each that was written completely: a file that could not be
    /// (a full disk) is left as it was, the others are still written. The
    /// errors, one per file that failed.
    func commitAll(statistics: AuditStatistics) -> [OutputError] {
        complete(statistics) { output throws(OutputError) in try output.install() }
    }

    /// As `commitAll`, but the files that replace others are only staged:
    /// `OutputCommit.shared.apply()` renames them with the run's other
    /// outputs.
    package func stageAll(statistics: AuditStatistics) -> [OutputError] {
        complete(statistics) { output throws(OutputError) in try output.stage() }
    }

    /// Writes `error_distribution.csv` and completes the three files, each
    /// then handed to `place`; the errors, one per file that failed.
    private func complete(_ statistics: AuditStatistics, place: (Output) throws(OutputError) -> Void) -> [OutputError] {
        distribution.buffer = Array(CSVReport.errorDistribution(statistics).utf8)
        var errors: [OutputError] = []
        for output in [sessions, findings, distribution] {
            do throws(OutputError) {
                if let failure = failures[ObjectIdentifier(output)] { throw failure }
                try output.close()
                try place(output)
            } catch {
                output.discard()
                errors.append(error)
            }
        }
        return errors
    }

    /// Puts the files in `folder` instead (`--csv …/{date}`, known once
    /// the audit is done): written where they were begun, moved there at
    /// the commit. The folder must exist, on the same file system.
    package func retarget(folder: String) {
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        for output in [sessions, findings, distribution] {
            let name = FilePaths.name(of: output.target.given)
            output.target = OutputTarget(
                option: "--csv", given: base + name, path: FilePaths.canonical(folder) + "/" + name, method: .replace,
                identity: FileIdentity.of(path: base + name))
        }
    }

    /// Removes the temporary files (an error, or an interrupted run).
    package func discard() {
        for output in [sessions, findings, distribution] { output.discard() }
    }
}
