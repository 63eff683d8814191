import Reading

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a whole file through a temporary file beside it, renamed into
/// place: a reader never sees half a file, an interrupted run leaves the
/// old file as it was (see `TemporaryOutputs`).
package enum AtomicFile {
    /// `path` must name a regular file or a new one (no symlink: give the
    /// target); `shownAs` names it in errors.
    package static func write(_ text: String, to path: String, shownAs: String? = nil) throws(OutputError) {
        try write(bytes: Array(text.utf8), to: path, shownAs: shownAs)
    }

    /// `mode`, when given, is set on the new file before it is renamed.
    package static func write(bytes: [UInt8], to path: String, mode: mode_t? = nil, shownAs: String? = nil) throws(OutputError) {
        let temporary = try stageFile(bytes: bytes, to: path, mode: mode, shownAs: shownAs)
        defer { TemporaryOutputs.shared.remove(temporary) }
        if rename(temporary, path) != 0 {
            let error = OutputError.system(shownAs ?? path)
            unlink(temporary)
            throw error
        }
        syncFolder(FilePaths.directory(of: path))
    }

    /// Writes the whole file under a temporary name beside `path` and
    /// queues its rename for `OutputCommit.shared.apply()` (the run's one
    /// commit step); `option` names the output in messages.
    package static func stage(
        bytes: [UInt8], to path: String, mode: mode_t? = nil, shownAs: String? = nil, option: String, isCheckpoint: Bool = false
    ) throws(OutputError) {
        let temporary = try stageFile(bytes: bytes, to: path, mode: mode, shownAs: shownAs)
        OutputCommit.shared.add(
            OutputCommit.Rename(temporary: temporary, path: path, option: option, shownAs: shownAs ?? path, isCheckpoint: isCheckpoint))
    }

    /// The temporary file, written, synced and closed, still registered
    /// with `TemporaryOutputs`.
    private static func stageFile(bytes: [UInt8], to path: String, mode: mode_t?, shownAs: String?) throws(OutputError) -> String {
        let name = shownAs ?? path
        let temporary = FilePaths.directory(of: path) + "/" + FilePaths.temporaryName(for: FilePaths.name(of: path))
        let fd = TemporaryOutputs.shared.create(temporary)
        if fd < 0 { throw .system(name) }
        do throws(OutputError) {
            if let mode, fchmod(fd, mode) != 0 { throw OutputError.system(name) }
            try Descriptor.writeAll(fd, bytes, path: name)
        } catch {
            _ = Descriptor.closeFile(fd)
            unlink(temporary)
            TemporaryOutputs.shared.remove(temporary)
            throw error
        }
        // fsync before the rename: after a crash the name holds the old
        // file or the whole new one, never an empty one.
        let synced = fsync(fd) == 0
        let closed = Descriptor.closeFile(fd) == 0
        if !synced || !closed {
            let error = OutputError.system(name)
            unlink(temporary)
            TemporaryOutputs.shared.remove(temporary)
            throw error
        }
        return temporary
    }

    /// Syncs a folder, so that renames in it survive a crash (best effort:
    /// some file systems refuse to sync a folder).
    static func syncFolder(_ folder: String) {
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
