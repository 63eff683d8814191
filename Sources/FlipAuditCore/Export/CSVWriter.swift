#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `close(2)`, named apart from the methods called `close`.
private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }

/// Writes all of `bytes` to `fd` (retrying short writes and EINTR);
/// `path` names the file in the error.
private func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(OutputError) {
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
        if n < 0 {
            if errno == EINTR { continue }
            throw .system(path)
        }
        done += n
    }
}

/// Why an output file could not be written.
public struct OutputError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot write \(path): \(reason)" }

    /// The error `errno` names, for `path`.
    static func system(_ path: String) -> OutputError {
        OutputError(path: path, reason: String(cString: strerror(errno)))
    }
}

/// Writes `sessions.csv` and `findings.csv` row by row while the audit
/// runs, and `error_distribution.csv` at its end. Each goes to a temporary
/// file in the same folder, renamed into place by `commit` only when all
/// three are complete: a reader never sees half a file, and an interrupted
/// run leaves no output (see `TemporaryOutputs`).
public final class CSVWriter: RowSink {
    /// One output: its final path, its temporary path, its descriptor and
    /// the bytes not yet written.
    private final class Output {
        let path: String
        let temporary: String
        var fd: Int32
        var buffer: [UInt8] = []

        init(directory: String, name: String) throws(OutputError) {
            path = directory + "/" + name
            temporary = directory + "/." + name + ".\(getpid()).tmp"
            fd = TemporaryOutputs.shared.create(temporary)
            if fd < 0 { throw .system(temporary) }
            buffer.reserveCapacity(Self.flushSize + 4096)
        }

        static let flushSize = 1 << 20

        func flushIfFull() throws(OutputError) {
            if buffer.count >= Self.flushSize { try flush() }
        }

        func flush() throws(OutputError) {
            try writeAll(fd, buffer, path: path)
            buffer.removeAll(keepingCapacity: true)
        }

        func close() throws(OutputError) {
            try flush()
            if closeDescriptor(fd) != 0 { fd = -1; throw .system(path) }
            fd = -1
        }

        func discard() {
            if fd >= 0 { _ = closeDescriptor(fd); fd = -1 }
            unlink(temporary)
            TemporaryOutputs.shared.remove(temporary)
        }
    }

    private let sessions: Output
    private let findings: Output
    private let distribution: Output
    /// Per input, its escaped `FILE:` for the source cells.
    private var sourcePrefixes: [[UInt8]] = []
    /// The first write error; reported by `commit`.
    private var failure: OutputError?

    /// Creates the temporary files in `directory` (which must exist): a
    /// folder that cannot be written fails here, before any input is read.
    public init(directory: String) throws(OutputError) {
        sessions = try Output(directory: directory, name: "sessions.csv")
        do {
            findings = try Output(directory: directory, name: "findings.csv")
        } catch {
            sessions.discard()
            throw error
        }
        do {
            distribution = try Output(directory: directory, name: "error_distribution.csv")
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
    public func start(inputs: [InputFile]) {
        if started {
            for output in [sessions, findings] {
                output.buffer.removeAll(keepingCapacity: true)
                if output.fd >= 0 && (ftruncate(output.fd, 0) != 0 || lseek(output.fd, 0, SEEK_SET) != 0) && failure == nil {
                    failure = .system(output.temporary)
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

    public func session(_ row: SessionRecord) {
        CSVReport.append(session: row, source: prefix(row.source), to: &sessions.buffer)
        keep { () throws(OutputError) in try sessions.flushIfFull() }
    }

    public func finding(_ row: Finding) {
        CSVReport.append(finding: row, source: prefix(row.source), to: &findings.buffer)
        keep { () throws(OutputError) in try findings.flushIfFull() }
    }

    private func keep(_ body: () throws(OutputError) -> Void) {
        guard failure == nil else { return }
        do { try body() } catch { failure = error }
    }

    /// Writes `error_distribution.csv`, completes the three files and
    /// renames them into place.
    public func commit(statistics: AuditStatistics) throws(OutputError) {
        if let failure { discard(); throw failure }
        distribution.buffer = Array(CSVReport.errorDistribution(statistics).utf8)
        do throws(OutputError) {
            for output in [sessions, findings, distribution] { try output.close() }
            for output in [sessions, findings, distribution] {
                if rename(output.temporary, output.path) != 0 { throw OutputError.system(output.path) }
                TemporaryOutputs.shared.remove(output.temporary)
            }
        } catch {
            discard()
            throw error
        }
    }

    /// Removes the temporary files (an error, or an interrupted run).
    public func discard() {
        for output in [sessions, findings, distribution] { output.discard() }
    }
}

/// Temporary output files not yet renamed into place: removed when the run
/// is interrupted (SIGINT, SIGTERM), so no partial output is left behind.
public final class TemporaryOutputs: @unchecked Sendable {
    public static let shared = TemporaryOutputs()
    private var lock = pthread_mutex_t()
    private var paths: Set<String> = []
    /// Set by `removeAll`: the run is ending, no file may be made now.
    private var closed = false

    /// The process has one (`shared`); tests make their own.
    init() { pthread_mutex_init(&lock, nil) }

    /// Creates (truncates) `path` for writing and registers it, both under
    /// the lock that `removeAll` takes: a signal can come between the two
    /// steps of a caller that made the file first and registered it after
    /// (the file was then left behind), but not inside this call. After
    /// `removeAll` it creates nothing: -1, `errno` EINTR.
    func create(_ path: String) -> Int32 {
        pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }
        guard !closed else { errno = EINTR; return -1 }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd >= 0 { paths.insert(path) }
        return fd
    }

    func remove(_ path: String) {
        pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }
        paths.remove(path)
    }

    /// Deletes every registered file; none is created after it.
    public func removeAll() {
        pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }
        closed = true
        for path in paths { unlink(path) }
        paths.removeAll()
    }
}

/// Writes a whole file through a temporary file in the same folder,
/// flushed to disk and renamed into place.
public enum AtomicFile {
    public static func write(_ text: String, to path: String) throws(OutputError) {
        try write(bytes: Array(text.utf8), to: path)
    }

    /// `mode`, when given, is set on the new file before it is renamed.
    public static func write(bytes: [UInt8], to path: String, mode: mode_t? = nil) throws(OutputError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = (directory.isEmpty ? "" : directory + "/") + "." + name + ".\(getpid()).tmp"
        let fd = TemporaryOutputs.shared.create(temporary)
        if fd < 0 { throw .system(temporary) }
        defer { TemporaryOutputs.shared.remove(temporary) }
        do throws(OutputError) {
            if let mode, fchmod(fd, mode) != 0 { throw OutputError.system(temporary) }
            try writeAll(fd, bytes, path: path)
        } catch {
            _ = closeDescriptor(fd)
            unlink(temporary)
            throw error
        }
        // fsync before the rename: after a crash the name holds the old
        // file or the whole new one, never an empty one.
        let synced = fsync(fd) == 0
        let closed = closeDescriptor(fd) == 0
        if !synced || !closed || rename(temporary, path) != 0 {
            let error = OutputError.system(path)
            unlink(temporary)
            throw error
        }
    }
}
