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
        let name = shownAs ?? path
        let temporary = OutputPaths.directory(of: path) + "/" + OutputPaths.temporaryName(for: OutputPaths.name(of: path))
        let fd = TemporaryOutputs.shared.create(temporary)
        if fd < 0 { throw .system(name) }
        defer { TemporaryOutputs.shared.remove(temporary) }
        do {
            try Descriptor.writeAll(fd, Array(text.utf8), path: name)
        } catch {
            _ = Descriptor.closeFile(fd)
            unlink(temporary)
            throw error
        }
        if Descriptor.closeFile(fd) != 0 || rename(temporary, path) != 0 {
            let error = OutputError.system(name)
            unlink(temporary)
            throw error
        }
    }
}
