import Audit
import Foundation
import Reading
import Rules

/// `flipaudit stage plan`'s life: the inputs resolved and ranked as one
/// process resolves and ranks them, the job plan (with the job's
/// fingerprint key) written to standard output. Every task opens the
/// inputs again, so only regular files and folders are taken.
package struct PlanRun {
    package var inputs: [String]
    /// `--uri`: files the engine reads, named by their URIs.
    package var uris: [String]
    package var configuration: AuditConfiguration
    /// The audit options as given, for every stage to read back.
    package var options: [String]

    package init(inputs: [String], uris: [String], configuration: AuditConfiguration, options: [String]) {
        self.inputs = inputs
        self.uris = uris
        self.configuration = configuration
        self.options = options
    }

    /// Whether `path`, or a symbolic link on the way to its file, is a
    /// descriptor of the process reading it (`/dev/stdin`, `/dev/fd/N`,
    /// `/proc/…/fd/N`): each task would read its own.
    static func namesDescriptor(_ path: String) -> Bool {
        var p = path
        for _ in 0..<40 {
            if p.hasPrefix("/dev/fd/") || p.hasPrefix("/proc/") || ["/dev/stdin", "/dev/stdout", "/dev/stderr"].contains(p) { return true }
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: p) else { return false }
            p = target.hasPrefix("/") ? target : (p as NSString).deletingLastPathComponent + "/" + target
        }
        return false
    }

    package func run(warn: (String) -> Void) throws {
        // Every task opens the inputs again: a stream, a FIFO or a
        // device would be read by the first (or hang it), not shared.
        for input in inputs {
            if input == "-" {
                throw StageError("plan: - is standard input, which cannot be shared out: a distributed job reads regular files and folders only")
            }
            if Self.namesDescriptor(input) {
                throw StageError(
                    "plan: \(input) is a descriptor of this process (a stream): a distributed job reads regular files and folders only"
                )
            }
            if let identity = FileIdentity.of(path: input), !identity.isRegular, !identity.isDirectory {
                throw StageError("plan: \(input) is a \(identity.kindName): a distributed job reads regular files and folders only")
            }
        }
        let resolution = InputCatalog.resolve(inputs, skipping: OwnOutputs(), excluding: configuration.exclude)
        for note in resolution.notes { warn(note) }
        // Tasks run in other directories, on other machines: the path
        // read is absolute, the name shown stays as given.
        let here = FileManager.default.currentDirectoryPath
        // A `file://` URI of a regular file this machine sees is looked
        // into as its path is (the engine still reads it by its URI):
        // it ranks by its first record, as one process ranks the path.
        let given = Set(resolution.files.map(\.displayName))
        let seen = Set(uris).subtracting(given).sorted().compactMap { uri -> InputFile? in
            guard uri.hasPrefix("file://"), let path = URL(string: uri)?.path, let identity = FileIdentity.of(path: path),
                identity.isRegular
            else { return nil }
            return InputFile(displayName: uri, path: path, identity: identity)
        }
        let byURI = Set(seen.map(\.displayName))
        // Ranked as one process ranks them: by first record time, then name.
        let ranked = FirstRecord.rank(
            (resolution.files + seen).sorted { $0.displayName < $1.displayName }, configuration: configuration)
        let files = ranked.map { file in
            byURI.contains(file.displayName)
                ? InputFile(displayName: file.displayName, path: file.displayName)
                : InputFile(displayName: file.displayName, path: file.path.map { $0.hasPrefix("/") ? $0 : here + "/" + $0 })
        }
        // Files only the engine reads (`stage read --stdin-name`) cannot
        // be looked into here: they rank as one process ranks an input
        // whose first record it cannot see, first, by name.
        let local = Set(files.map(\.displayName))
        let remote = Set(uris).subtracting(local).sorted().map { InputFile(displayName: $0, path: $0) }
        let plan = JobPlan(
            key: Fingerprint.newKey(), options: options, files: remote + files,
            problems: resolution.problems.map { JobPlan.Problem(name: $0.name, message: "\($0.error)") })
        let output = StageOutput()
        output.write(plan.encoded())
        try output.flush()
    }
}
