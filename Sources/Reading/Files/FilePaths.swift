#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Path arithmetic, for inputs and outputs alike: the file a path really
/// names, its folder and name, and the names of the temporary files an
/// output is written to beside its target (which a directory walk skips).
package enum FilePaths {
    /// Longest file name and path the file system takes (POSIX's minimum
    /// guarantees are far lower; Linux and macOS file systems take these).
    package static let nameMax = 255
    package static let pathMax = 4096

    /// The absolute path `path` finally names, every symlink resolved —
    /// also when the file itself does not exist yet (a new output, or a
    /// symlink to a file not made yet): then its folder is resolved and the
    /// name kept.
    package static func canonical(_ path: String) -> String {
        if let real = realPath(path) { return real }
        var current = path
        for _ in 0..<40 {
            guard let target = readLink(current) else { break }
            current = target.hasPrefix("/") ? target : directory(of: current) + "/" + target
        }
        if let real = realPath(current) { return real }
        let folder = realPath(directory(of: current)) ?? directory(of: current)
        return (folder == "/" ? "" : folder) + "/" + name(of: current)
    }

    /// The folder part of `path` (`.` when there is none).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let head = String(path[..<slash])
        return head.isEmpty ? "/" : head
    }

    /// The last component of `path`.
    package static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `.NAME.PID.tmp`, the temporary file an output named NAME is written
    /// to before it is renamed into place; NAME is shortened (at a UTF-8
    /// character boundary) when the whole would pass `nameMax`.
    package static func temporaryName(for name: String, pid: Int32 = getpid()) -> String {
        let suffix = ".\(pid).tmp"
        var base = name
        while 1 + base.utf8.count + suffix.utf8.count > nameMax { base.removeLast() }
        return "." + base + suffix
    }

    /// Whether `file` is a temporary file of an output named `name`, made
    /// by this run or an earlier one (`.NAME.PID.tmp`, NAME possibly
    /// shortened).
    package static func isTemporaryName(_ file: String, for name: String) -> Bool {
        guard file.hasPrefix("."), file.hasSuffix(".tmp") else { return false }
        let middle = file.dropFirst().dropLast(4)
        guard let dot = middle.lastIndex(of: ".") else { return false }
        let pid = middle[middle.index(after: dot)...]
        let base = middle[..<dot]
        return !pid.isEmpty && pid.allSatisfy(\.isASCII) && pid.allSatisfy(\.isNumber)
            && !base.isEmpty && name.hasPrefix(base)
    }

    private static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    private static func readLink(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return nil }
        var buffer = [CChar](repeating: 0, count: pathMax + 1)
        let n = readlink(path, &buffer, pathMax)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
