import Foundation

@testable import Rules

/// A follower started in the background; its standard error goes to a file.
final class FollowerProcess {
    let process = Process()
    let stderrPath: String

    /// `descriptors`: run under `ulimit -n` of that many (soft and hard).
    init(_ arguments: [String], descriptors: Int? = nil) throws {
        let binary = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("flipaudit")
        // Beside, not in, the folder a pattern follows.
        stderrPath = temporaryDirectory() + "/follower.stderr"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        if let descriptors {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(descriptors) && exec \"$0\" \"$@\"", binary.path, "follow"] + arguments
        } else {
            process.executableURL = binary
            process.arguments = ["follow"] + arguments
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
    }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Its exit status once it has ended by itself; nil when it still
    /// runs after `seconds` (then it is stopped).
    func exit(within seconds: Double) -> Int32? {
        guard waitUntil(seconds, for: { !self.process.isRunning }) else {
            stop()
            return nil
        }
        return process.terminationStatus
    }

    /// SIGTERM, and its status once it has committed and ended.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Waits until `condition` holds; false when `seconds` passed first.
/// The deadline only ends a wait that would hang: no verdict is a time.
func waitUntil(_ seconds: Double, for condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}

/// A file's text, or "" while it is missing.
func fileText(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

/// Appends `text` to the file at `path`, made when missing.
func appendText(_ text: String, to path: String) throws {
    if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    guard let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
}

/// `date` as a combined log writes it (`22/Nov/2026:10:00:01 +0000`).
func logTime(_ date: Date) -> String { logTimeFormat.string(from: date) }

private let logTimeFormat: DateFormatter = {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "UTC")
    f.dateFormat = "dd/MMM/yyyy:HH:mm:ss Z"
    return f
}()

/// A follow checkpoint as its snapshot and journal hold it, as text (""
/// when there is none): what a restart takes in.
func committedCheckpoint(_ path: String) -> String {
    guard let snapshot = try? Checkpoint.load(path), let bytes = FileManager.default.contents(atPath: path) else { return "" }
    let journal = FileManager.default.contents(atPath: CheckpointJournal.path(of: path))
    let read = journal.flatMap { try? CheckpointJournal.apply(Array($0), to: snapshot, snapshotBytes: Array(bytes)) }
    // Numbered afresh, as the loader does (`Checkpoint.renumbered`).
    return String(decoding: (read?.checkpoint ?? snapshot).renumbered().encoded(), as: UTF8.self)
}

/// Changes with every commit to a follow checkpoint: the snapshot's inode
/// and the journal's size.
func commitMark(_ path: String) -> String {
    var info = stat()
    let inode = stat(path, &info) == 0 ? info.st_ino : 0
    let journal = stat(CheckpointJournal.path(of: path), &info) == 0 ? info.st_size : -1
    return "\(inode):\(journal)"
}
