import Audit
import Reading
import Reports
import Writing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every output of a run, checked before any input is read (docs/contract.md
/// §6 and §8): no output may be an input or another output (compared by
/// device and inode when the file exists, by its resolved path when it does
/// not yet), a directory, a socket, an over-long name, or a path whose
/// folder cannot be written or made. An output's missing parent folders
/// are made once every check has passed, as `--csv` makes its folder. Each output gets its `OutputTarget`: regular
/// files and new paths are replaced atomically (through a symlink, its
/// target is), FIFOs, devices and `/dev/fd/N` are written as they are.
struct OutputPlan: Sendable {
    /// `--json`, when given.
    var json: OutputTarget?
    /// The other single-file outputs (`--html`, `--metrics`,
    /// `--checkpoint`), by option.
    var files: [String: OutputTarget] = [:]
    /// `--csv`'s folder, when given (created by `make` when missing); the
    /// fixed part of a template (`CSVFolder`), where the files are written
    /// until the folder is known.
    var csvDirectory: String?
    /// `--csv` with `{date}` or `{run}`, resolved once the audit is done.
    var csvTemplate: String?
    /// The three CSV files, by name (`sessions.csv`, …).
    var csvFiles: [String: OutputTarget] = [:]
    /// What a directory walk must skip.
    var ownOutputs = OwnOutputs()
    /// The folders `make` created, parents first.
    private(set) var madeFolders: [String] = []

    /// The CSV files' names, in the order they are written.
    static let csvNames = CSVWriter.fileNames

    /// Checks the outputs against each other and against the inputs named
    /// by `arguments` (files as given; `-` is standard input), and against
    /// standard output when `usesStandardOutput` (the summary or
    /// `--json -`) and it is a regular file. Creates the CSV folder and
    /// every output's missing parent folders when everything else is fine.
    ///
    /// `files` are further single-file outputs by option (`--html`,
    /// `--metrics`); those in `regularOnly` (`--checkpoint`, read back by
    /// the next run) must be a regular file or a new one.
    static func make(
        csv: String?, json: String?, files: [(option: String, path: String)] = [],
        regularOnly: Set<String> = [], arguments: [String],
        usesStandardOutput: Bool
    ) throws(OutputPlanError) -> OutputPlan {
        var plan = OutputPlan()
        var outputs: [OutputTarget] = []
        var createFolder: String?
        var csv = csv
        if let template = csv, CSVFolder.isTemplate(template) {
            try checkLength(template, option: "--csv")
            if template.contains("{run}") && !files.contains(where: { $0.option == "--checkpoint" }) {
                throw OutputPlanError("--csv: {run} is the chain's run number: it needs --checkpoint")
            }
            plan.csvTemplate = template
            csv = CSVFolder.prefix(template)
        }
        if let csv {
            try checkLength(csv, option: "--csv")
            if let identity = FileIdentity.of(path: csv) {
                guard identity.isDirectory else { throw OutputPlanError("--csv: \(csv) is a \(identity.kindName), not a folder") }
                guard access(csv, W_OK | X_OK) == 0 else { throw OutputPlanError("--csv: folder \(csv) is not writable (\(String(cString: strerror(errno))))") }
            } else {
                var info = stat()
                if lstat(csv, &info) == 0 { throw OutputPlanError("--csv: \(csv) is a symbolic link to a missing folder") }
                createFolder = csv
            }
            plan.csvDirectory = csv
            let base = csv.hasSuffix("/") ? csv : csv + "/"
            for name in csvNames {
                let target =
                    createFolder == nil
                    ? try file(base + name, option: "--csv")
                    : OutputTarget(
                        option: "--csv", given: base + name, path: FilePaths.canonical(csv) + "/" + name,
                        method: .replace, identity: nil)
                plan.csvFiles[name] = target
                outputs.append(target)
            }
        }

        if let json {
            if json == "-" {
                plan.json = OutputTarget(
                    option: "--json", given: "-", path: "-", method: .standardOutput,
                    identity: FileIdentity.of(descriptor: STDOUT_FILENO))
            } else {
                let target = try file(json, option: "--json", pendingFolder: createFolder.map(FilePaths.canonical))
                plan.json = target
                outputs.append(target)
            }
        }
        for (option, path) in files {
            let target = try file(path, option: option, pendingFolder: createFolder.map(FilePaths.canonical))
            if regularOnly.contains(option) && target.method != .replace {
                throw OutputPlanError("\(option): \(path) is a \(target.identity?.kindName ?? "special file"), not a regular file")
            }
            plan.files[option] = target
            outputs.append(target)
        }
        // Inputs named on the command line (a directory's files are
        // walked later, and skip the outputs instead).
        var inputs: [FileIdentity: String] = [:]
        for argument in arguments {
            let identity = argument == "-" ? FileIdentity.of(descriptor: STDIN_FILENO) : FileIdentity.of(path: argument)
            if let identity, !identity.isDirectory, inputs[identity] == nil { inputs[identity] = argument }
        }
        // A character device (/dev/null, a terminal) is read and written
        // without either destroying the other.
        for output in outputs where output.identity?.isCharacterDevice != true {
            if let identity = output.identity, let input = inputs[identity] {
                let verb = output.option == "--findings" ? "write into" : "overwrite"
                throw OutputPlanError("\(output.option) \(output.given) is the input \(input); refusing to \(verb) it")
            }
        }
        if usesStandardOutput, let out = FileIdentity.of(descriptor: STDOUT_FILENO), out.isRegular, let input = inputs[out] {
            throw OutputPlanError("standard output is the input \(input); refusing to overwrite it")
        }
        try checkDistinct(outputs)

        // An existing output inside a folder read as input is skipped by
        // the walk, which is right for an earlier run's report and wrong
        // for a log: it must look like one of flipaudit's own files.
        let walked = arguments.filter { $0 != "-" && FileIdentity.of(path: $0)?.isDirectory == true }.map(FilePaths.canonical)
        for output in outputs where output.method == .replace && output.identity != nil {
            let inside = walked.first { output.path.hasPrefix($0 == "/" ? "/" : $0 + "/") }
            if let inside, !looksLikeOwnOutput(output) {
                throw OutputPlanError(
                    "\(output.option) \(output.given) is in the input folder \(inside) and is not a flipaudit output; refusing to overwrite it")
            }
        }

        // Folders to make: the CSV folder, and every new output file's
        // missing folder (checked by `checkFolder`: its nearest existing
        // ancestor is a folder that takes new entries).
        var folders = createFolder.map { [$0] } ?? []
        for output in outputs where output.option != "--csv" && output.method == .replace && output.identity == nil {
            let folder = FilePaths.directory(of: output.given)
            if FileIdentity.of(path: folder) == nil && !folders.contains(folder) { folders.append(folder) }
        }
        for folder in folders {
            var made = false
            do { try makeFolders(folder, made: &plan.madeFolders); made = true } catch {}
            guard made, FileIdentity.of(path: folder)?.isDirectory == true else {
                let option = folder == createFolder ? "--csv" : outputs.first { FilePaths.directory(of: $0.given) == folder }?.option ?? "output"
                throw OutputPlanError("\(option): cannot create folder \(folder) (\(String(cString: strerror(errno))))")
            }
        }
        if !folders.isEmpty {
            // Now that they exist, the new files' paths resolve for real.
            if let folder = createFolder {
                let base = folder.hasSuffix("/") ? folder : folder + "/"
                outputs.removeAll { $0.option == "--csv" }
                for name in csvNames {
                    let target = try file(base + name, option: "--csv")
                    plan.csvFiles[name] = target
                    outputs.append(target)
                }
            }
            if let json = plan.json, json.method == .replace, json.identity == nil {
                let target = try file(json.given, option: "--json")
                plan.json = target
                outputs.removeAll { $0.option == "--json" }
                outputs.append(target)
            }
            for (option, old) in plan.files where old.method == .replace && old.identity == nil {
                let target = try file(old.given, option: option)
                plan.files[option] = target
                outputs.removeAll { $0.option == option }
                outputs.append(target)
            }
            // Two paths through a folder that did not exist may name one file.
            try checkDistinct(outputs)
        }
        for output in outputs {
            if let identity = output.identity, output.method == .replace { plan.ownOutputs.identities.insert(identity) }
            let folder = FilePaths.directory(of: output.path)
            plan.ownOutputs.namesByFolder[folder, default: []].append(FilePaths.name(of: output.path))
        }
        if let csv = plan.csvDirectory {
            // Direct CSV targets are staged in the folder under their own names.
            plan.ownOutputs.namesByFolder[FilePaths.canonical(csv), default: []].append(contentsOf: csvNames)
        }
        return plan
    }

    /// A follower's outputs (`--checkpoint`, `--findings`; standard output
    /// without it), checked as a batch run's are against the files it
    /// names. A pattern is matched again every turn, so an output it
    /// matches is skipped by it (`ownOutputs`, with the checkpoint's lock
    /// and temporary names) and, when it exists already, must look like
    /// flipaudit's own: an access log a pattern follows is never written.
    static func follow(checkpoint: String?, findings: String?, inputs: [String]) throws(OutputPlanError) -> OutputPlan {
        let files = [("--checkpoint", checkpoint), ("--findings", findings)].compactMap { option, path in
            path.map { (option: option, path: $0) }
        }
        let plan = try make(
            csv: nil, json: nil, files: files, regularOnly: ["--checkpoint"],
            arguments: inputs.filter { !TailSet.isPattern($0) }, usesStandardOutput: findings == nil)
        for pattern in inputs where TailSet.isPattern(pattern) {
            for name in LocalFileSystem().expand(pattern) {
                guard let identity = FileIdentity.of(path: name) else { continue }
                for output in plan.files.values.sorted(by: { $0.option < $1.option })
                where output.identity == identity && !identity.isCharacterDevice && !looksLikeOwnOutput(output) {
                    throw OutputPlanError(
                        "\(output.option) \(output.given) is matched by the input pattern \(pattern) and is not a flipaudit output; refusing to write it")
                }
            }
        }
        return plan
    }

    /// No two outputs are one file.
    private static func checkDistinct(_ outputs: [OutputTarget]) throws(OutputPlanError) {
        for (i, a) in outputs.enumerated() {
            for b in outputs[(i + 1)...] {
                let same = (a.identity != nil && a.identity == b.identity) || a.path == b.path
                if same { throw OutputPlanError("\(a.option) \(a.given) and \(b.option) \(b.given) are the same file") }
            }
        }
    }

    /// Whether the file `output` names is empty or starts the way
    /// flipaudit writes it: the CSV file's header row, a pretty-printed
    /// JSON report (`{` and a newline: a JSON-lines log starts `{"`), the
    /// HTML page, the metrics, the checkpoint.
    static func looksLikeOwnOutput(_ output: OutputTarget) -> Bool {
        let fd = open(output.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { _ = close(fd) }
        var head = [UInt8](repeating: 0, count: 4096)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        guard n >= 0 else { return false }
        if n == 0 { return true }
        let text = String(decoding: head[0..<n], as: UTF8.self)
        let headers = [CSVReport.sessionsHeader, CSVReport.findingsHeader, CSVReport.errorDistributionHeader]
        switch output.option {
        case "--csv": return headers.contains { text.hasPrefix($0.joined(separator: ",") + "\n") }
        case "--html": return text.hasPrefix("<!DOCTYPE html>")
        case "--metrics": return text.hasPrefix("# HELP flipaudit")
        case "--checkpoint": return text.hasPrefix("flipaudit checkpoint ") || text.hasPrefix("flipaudit follow checkpoint ")
        case "--findings":
            // A follower's NDJSON or OCSF line: a JSON-lines log starts `{"` too.
            let line = text.prefix { $0 != "\n" }
            return line.hasPrefix("{\"") && (line.contains("\"kind\":\"") || line.contains("\"class_uid\":2004"))
        default: return text.hasPrefix("{\n") || headers.contains { text.hasPrefix($0.joined(separator: ",") + "\n") }
        }
    }

    /// Whether `path` is one of the paths written as is rather than
    /// replaced: descriptors of this process.
    static func isDescriptorPath(_ path: String) -> Bool {
        path.hasPrefix("/dev/fd/") || path.hasPrefix("/proc/self/fd/") || path == "/dev/stdout" || path == "/dev/stderr"
    }

    /// The target of one output file, `path` as given.
    /// `pendingFolder`: the CSV folder, made once all checks pass; a file
    /// in it may be planned before it exists.
    static func file(_ given: String, option: String, pendingFolder: String? = nil) throws(OutputPlanError) -> OutputTarget {
        try checkLength(given, option: option)
        if ["", ".", ".."].contains(FilePaths.name(of: given)) {
            throw OutputPlanError("\(option): \(given.isEmpty ? "an empty path" : given) names no file")
        }
        if let identity = FileIdentity.of(path: given) {
            if identity.isDirectory { throw OutputPlanError("\(option): \(given) is a directory") }
            if identity.isSocket { throw OutputPlanError("\(option): \(given) is a socket") }
            if !identity.isRegular || isDescriptorPath(given) {
                guard access(given, W_OK) == 0 else {
                    throw OutputPlanError("\(option): cannot write \(given) (\(String(cString: strerror(errno))))")
                }
                return OutputTarget(option: option, given: given, path: given, method: .direct, identity: identity)
            }
            let path = FilePaths.canonical(given)
            try checkLength(path, option: option)
            try checkFolder(of: path, given: given, option: option)
            return OutputTarget(option: option, given: given, path: path, method: .replace, identity: identity)
        }
        if isDescriptorPath(given) { throw OutputPlanError("\(option): \(given) is not an open descriptor") }
        let path = FilePaths.canonical(given)
        try checkLength(path, option: option)
        if FilePaths.directory(of: path) != pendingFolder { try checkFolder(of: path, given: given, option: option) }
        return OutputTarget(option: option, given: given, path: path, method: .replace, identity: nil)
    }

    /// The folder of `path` must take new files (the temporary file is
    /// made there), or, when it does not exist yet, its nearest existing
    /// ancestor must be a folder that takes new folders (`make` makes the
    /// missing ones).
    private static func checkFolder(of path: String, given: String, option: String) throws(OutputPlanError) {
        var folder = FilePaths.directory(of: path)
        var missing = false
        while true {
            var info = stat()
            if let identity = FileIdentity.of(path: folder) {
                guard identity.isDirectory else {
                    throw OutputPlanError("\(option): cannot make the folder of \(given): \(folder) is a \(identity.kindName), not a folder")
                }
                break
            }
            if lstat(folder, &info) == 0 {
                throw OutputPlanError("\(option): cannot make the folder of \(given): \(folder) is a symbolic link to a missing folder")
            }
            let parent = FilePaths.directory(of: folder)
            missing = true
            if parent == folder { break }
            folder = parent
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            let what = missing ? "cannot make the folder of \(given) in" : "cannot write in folder"
            throw OutputPlanError("\(option): \(what) \(folder) (\(String(cString: strerror(errno))))")
        }
    }

    /// No component longer than `FilePaths.nameMax` bytes, nor the path
    /// longer than `pathMax`; the temporary file's name is shortened to fit.
    static func checkLength(_ path: String, option: String) throws(OutputPlanError) {
        if path.utf8.count >= FilePaths.pathMax {
            throw OutputPlanError("\(option): path is longer than the system allows (\(FilePaths.pathMax) bytes)")
        }
        for component in path.split(separator: "/") where component.utf8.count > FilePaths.nameMax {
            throw OutputPlanError("\(option): file name \(component.prefix(40))… is longer than the system allows (\(FilePaths.nameMax) bytes)")
        }
    }

    /// `--csv`'s template resolved for `result` (`CSVFolder`), made when
    /// missing: the folder the CSV files are moved into at the commit.
    func csvFolder(for result: AuditResult) throws(OutputPlanError) -> String? {
        guard let template = csvTemplate else { return nil }
        let folder = CSVFolder.resolve(template, result: result)
        var made: [String] = []
        do { try Self.makeFolders(folder, made: &made) } catch {}
        guard FileIdentity.of(path: folder)?.isDirectory == true else {
            throw OutputPlanError("--csv: cannot create folder \(folder) (\(String(cString: strerror(errno))))")
        }
        return folder
    }

    /// `mkdir -p`; the folders it made go to `made`.
    private static func makeFolders(_ path: String, made: inout [String]) throws {
        if FileIdentity.of(path: path) != nil { return }
        let parent = FilePaths.directory(of: path)
        if parent != path && parent != "." && parent != "/" { try makeFolders(parent, made: &made) }
        if mkdir(path, 0o755) == 0 {
            made.append(path)
        } else if errno != EEXIST {
            throw OutputPlanError("")
        }
    }

    /// Removes the folders `make` created, while they are still empty: a
    /// run refused before it read anything (a checkpoint in use, damaged,
    /// or that has seen an input) leaves nothing behind.
    func removeMadeFolders() {
        for folder in madeFolders.reversed() { rmdir(folder) }
    }
}
