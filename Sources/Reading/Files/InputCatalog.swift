import Foundation

/// One input to read: a file, or standard input.
package struct InputFile: Sendable, Equatable {
    /// The name shown in messages and in `FILE:LINE` sources.
    package var displayName: String
    /// The path to open; nil for standard input.
    package var path: String?
    /// The file it is, when known: inputs are told apart by it.
    package var identity: FileIdentity?

    package init(displayName: String, path: String?, identity: FileIdentity? = nil) {
        self.displayName = displayName
        self.path = path
        self.identity = identity
    }

    /// Whether it can be read only once, as it comes: standard input, a
    /// FIFO, `/dev/stdin`, `<(...)`, a device. Nothing may be read from it
    /// before the real reading (a look-ahead would lose those bytes).
    package var isStream: Bool {
        guard let path else { return true }
        guard let identity = identity ?? FileIdentity.of(path: path) else { return false }
        return !identity.isRegular
    }
}

/// Turns the command-line arguments into the sorted list of inputs: files
/// as given, every regular file below a directory (recursively), `-` for
/// standard input. Inputs are told apart by device and inode: one file
/// named by several paths (`a.log`, `./a.log`, a symlink to it, `-` and
/// `/dev/stdin`) is read once, under the first of its names in sorted
/// order. Sorting by name makes results independent of argument order.
package enum InputCatalog {
    /// The display name of standard input: `-`, as on the command line
    /// (in messages, `FILE:LINE` sources and the CSV `source` column).
    static let standardInputName = "-"

    /// What `resolve` found: the inputs, the paths that cannot be read
    /// (exit 3), and notes on what a directory walk skipped (not errors).
    package struct Resolution {
        package var files: [InputFile]
        package var problems: [(name: String, error: InputError)]
        package var notes: [String]
    }

    package static func resolve(_ arguments: [String]) -> (files: [InputFile], problems: [(name: String, error: InputError)]) {
        let r = resolve(arguments, skipping: OwnOutputs())
        return (r.files, r.problems)
    }

    /// Resolves `arguments`; a directory walk skips `outputs` (this run's
    /// own output files and their temporary files) and the files whose
    /// name, or path as the walk names it, matches a glob of `excluding`
    /// (`--exclude`, fnmatch(3)): counted in one note. A file named as an
    /// argument is never left out.
    package static func resolve(_ arguments: [String], skipping outputs: OwnOutputs, excluding: [String] = []) -> Resolution {
        var files: [InputFile] = []
        var problems: [(String, InputError)] = []
        var notes: [String] = []
        let fm = FileManager.default
        for arg in arguments {
            if arg == "-" {
                if StandardDescriptors.wasClosed(STDIN_FILENO) {
                    problems.append((standardInputName, .unreadable("standard input is closed")))
                    continue
                }
                files.append(InputFile(displayName: standardInputName, path: nil, identity: FileIdentity.of(descriptor: STDIN_FILENO)))
                continue
            }
            guard let identity = FileIdentity.of(path: arg) else {
                var info = stat()
                if lstat(arg, &info) == 0 {
                    problems.append((arg, .unreadable("symbolic link to a missing file")))
                } else if errno == ENOENT || errno == ENOTDIR {
                    problems.append((arg, .missing))
                } else {
                    problems.append((arg, .unreadable(String(cString: strerror(errno)))))
                }
                continue
            }
            guard identity.isDirectory else {
                files.append(InputFile(displayName: arg, path: arg, identity: identity))
                continue
            }
            guard fm.isReadableFile(atPath: arg) else {
                problems.append((arg, .unreadable("permission denied")))
                continue
            }
            let found = walk(arg, outputs: outputs, problems: &problems, notes: &notes)
            let kept = found.filter { file in
                !excluding.contains { glob in
                    fnmatch(glob, file.displayName, 0) == 0 || fnmatch(glob, FilePaths.name(of: file.displayName), 0) == 0
                }
            }
            if kept.count < found.count {
                notes.append("\(arg): \(found.count - kept.count) file(s) left out by --exclude")
            }
            files.append(contentsOf: kept)
        }
        // One entry per file: the first name in sorted order wins.
        files.sort { $0.displayName < $1.displayName }
        var seen = Set<FileIdentity>()
        var seenNames = Set<String>()
        let unique = files.filter { file in
            guard seenNames.insert(file.displayName).inserted else { return false }
            guard let identity = file.identity else { return true }
            return seen.insert(identity).inserted
        }
        return Resolution(files: unique, problems: problems, notes: notes)
    }

    /// Regular files below `dir` (symlinks to regular files included),
    /// depth first, not following links to directories. Anything else —
    /// FIFOs, devices, sockets, links to them or to nothing — is skipped
    /// with a note: reading `/dev/zero` or a FIFO nobody writes would never
    /// end.
    private static func walk(_ dir: String, outputs: OwnOutputs, problems: inout [(String, InputError)], notes: inout [String]) -> [InputFile] {
        var result: [InputFile] = []
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: dir) else {
            problems.append((dir, .unreadable("cannot list directory")))
            return []
        }
        let base = dir.hasSuffix("/") ? dir : dir + "/"
        let canonicalDir = FilePaths.canonical(dir)
        for name in names.sorted() {
            let path = base + name
            var link = stat()
            guard lstat(path, &link) == 0 else { continue }
            let linkIdentity = FileIdentity(link)
            if linkIdentity.isDirectory {
                result.append(contentsOf: walk(path, outputs: outputs, problems: &problems, notes: &notes))
                continue
            }
            if outputs.isTemporary(name: name, in: canonicalDir) {
                // This run's own are skipped without a word; an earlier
                // run's (one killed by SIGKILL) are named.
                if !name.hasSuffix(".\(getpid()).tmp") {
                    notes.append("\(path): skipped (a temporary file of flipaudit's outputs)")
                }
                continue
            }
            // Only a symbolic link needs a second look, at what it names.
            guard let identity = linkIdentity.type == UInt32(S_IFLNK) ? FileIdentity.of(path: path) : linkIdentity else {
                notes.append("\(path): skipped (symbolic link to a missing file)")
                continue
            }
            if outputs.contains(identity) {
                notes.append("\(path): skipped (an output of this run)")
            } else if identity.isRegular {
                result.append(InputFile(displayName: path, path: path, identity: identity))
            } else if identity.isDirectory {
                notes.append("\(path): skipped (symbolic link to a directory; not followed)")
            } else {
                notes.append("\(path): skipped (\(identity.kindName), not a regular file)")
            }
        }
        return result
    }
}
