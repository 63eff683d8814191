import Foundation
import Reading

/// `--config FILE`: the command line with the TOML file's settings merged
/// in (`ConfigFile` says what wins), before ArgumentParser parses it. The
/// keys a file may set come from ArgumentParser's own description of
/// `FlipAuditCommand`, so every long option is a key and no other.
enum ConfigArguments {
    /// `arguments` (without the program name), with the file named by
    /// `--config` merged in; unchanged without `--config`.
    static func expand(_ arguments: [String]) throws(ConfigFile.ConfigError) -> [String] {
        guard let path = ConfigFile.path(in: arguments) else { return arguments }
        let text = try read(path)
        let options = try ConfigFile.options(fromToolInfo: FlipAuditCommand._dumpHelp())
        let settings = try ConfigFile.settings(fromTOML: text, name: path, options: options)
        return ConfigFile.merge(settings, into: arguments, options: options)
    }

    /// The file's text; a file that cannot be read is said as the system
    /// says it (`no such file or directory`), not in Foundation's words.
    static func read(_ path: String) throws(ConfigFile.ConfigError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ConfigFile.ConfigError(description: "\(path): cannot read: \(String(cString: strerror(errno)).lowercased())") }
        close(fd)
        if FileIdentity.of(path: path)?.isDirectory == true { throw ConfigFile.ConfigError(description: "\(path): is a folder, not a file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigFile.ConfigError(description: "\(path): cannot read: \(String(cString: strerror(errno)).lowercased())")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw ConfigFile.ConfigError(description: "\(path): not UTF-8 text") }
        return text
    }

    /// Where a value ArgumentParser refused came from, when the config
    /// file set it: `FILE:LINE` of the first option `message` names
    /// (`'--fail-on <fail-on>'`) that the file sets and the command line
    /// does not. nil otherwise.
    static func source(of message: String, arguments: [String]) -> String? {
        guard let path = ConfigFile.path(in: arguments), let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        var rest = message[...]
        while let dashes = rest.range(of: "--") {
            let name = rest[dashes.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
            rest = rest[dashes.upperBound...]
            guard !name.isEmpty, !arguments.contains(where: { $0 == "--\(name)" || $0.hasPrefix("--\(name)=") }) else { continue }
            if let line = ConfigFile.line(of: String(name), in: text) { return "\(path):\(line)" }
        }
        return nil
    }

    /// `explain`'s arguments with the file's settings that explain takes
    /// (the audit's options, the checkpoint, the inputs) merged in: the
    /// file is the nightly job's, so its output keys are left out, not
    /// refused. The command line wins; the file's inputs are read when the
    /// command line names none after the target.
    static func expandExplain(_ arguments: [String]) throws(ConfigFile.ConfigError) -> [String] {
        try expand(arguments, own: ExplainCommand._dumpHelp(), positionals: 1, ownKeys: false)
    }

    /// `flipaudit follow`'s line with its `--config` file's settings: those
    /// follow has (audit options, `checkpoint`, `findings`, `listen`…),
    /// the file's inputs when the line names none.
    static func expandFollow(_ arguments: [String]) throws(ConfigFile.ConfigError) -> [String] {
        try expand(arguments, own: FollowCommand._dumpHelp(), positionals: 0, ownKeys: true)
    }

    /// A subcommand's line with the settings of its `--config` file that
    /// it has (`own`: its help dump), given on the line before any `--`;
    /// the file's inputs after `--` when the line has no more than
    /// `positionals` positional arguments. The file is read as the nightly
    /// job's (its keys known, only the subcommand's taken), and with
    /// `ownKeys` may also set the subcommand's own options.
    private static func expand(
        _ arguments: [String], own help: String, positionals: Int, ownKeys: Bool
    ) throws(ConfigFile.ConfigError) -> [String] {
        guard let path = ConfigFile.path(in: arguments) else { return arguments }
        let text = try read(path)
        let own = try ConfigFile.options(fromToolInfo: help)
        var known = try ConfigFile.options(fromToolInfo: FlipAuditCommand._dumpHelp())
        if ownKeys {
            let ownNames = Set(own.map(\.name))
            known = known.filter { !ownNames.contains($0.name) } + own
        }
        let settings = try ConfigFile.settings(fromTOML: text, name: path, options: known)
        let names = Set(own.map(\.name))
        let given = ConfigFile.argumentsGiven(in: arguments, options: own)
        var front: [String] = []
        var inputs: [String] = []
        for (key, values) in settings {
            if key == ConfigFile.inputsKey {
                if given.positionals <= positionals { inputs = values }
            } else if names.contains(key) && !given.names.contains(key) {
                front += values
            }
        }
        // Options before any `--` (after it they would be inputs), the
        // target left where it stands.
        var merged = arguments
        merged.insert(contentsOf: front, at: merged.firstIndex(of: "--") ?? merged.count)
        if !inputs.isEmpty {
            if !merged.contains("--") { merged.append("--") }
            merged += inputs
        }
        return merged
    }
}
