#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a whole file through a temporary file beside it, renamed into
/// place: a reader never sees half a file, an interrupted run leaves the
/// old file as it was (see `TemporaryOutputs`).
public enum AtomicFile {
    /// `path` must name a regular file or a new one (no symlink: give the
    /// target); `shownAs` names it in errors.
    public static func write(_ text: String, to path: String, shownAs: String? = nil) throws(OutputError) {
        try write(bytes: Array(text.utf8), to: path, shownAs: shownAs)
    }

    /// `mode`, when given, is set on the new file before it is renamed.
    public static func write(bytes: [UInt8], to path: String, mode: mode_t? = nil, shownAs: String? = nil) throws(OutputError) {
        let name = shownAs ?? path
        let temporary = OutputPaths.directory(of: path) + "/" + OutputPaths.temporaryName(for: OutputPaths.name(of: path))
        let fd = TemporaryOutputs.shared.create(temporary)
        if fd < 0 { throw .system(name) }
        defer { TemporaryOutputs.shared.remove(temporary) }
        do throws(OutputError) {
            if let mode, fchmod(fd, mode) != 0 { throw OutputError.system(name) }
            try Descriptor.writeAll(fd, bytes, path: name)
        } catch {
            _ = Descriptor.closeFile(fd)
            unlink(temporary)
            throw error
        }
        // fsync before the rename: after a crash the name holds the old
        // file or the whole new one, never an empty one.
        let synced = fsync(fd) == 0
        let closed = Descriptor.closeFile(fd) == 0
        if !synced || !closed || rename(temporary, path) != 0 {
            let error = OutputError.system(name)
            unlink(temporary)
            throw error
        }
    }
}
