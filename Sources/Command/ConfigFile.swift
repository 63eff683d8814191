import Foundation
import TOMLKit

/// `--config FILE` (docs/contract.md §9): a TOML file that sets any long
/// option under its own name. It is turned into command-line arguments
/// placed before the user's, so one parser checks both.
///
/// What wins:
/// * an option given on the command line wins over the file: the file's
///   value for it is left out (for a repeatable option such as
///   `client-id`, the command line's values replace the file's list, they
///   are not added to it);
/// * `inputs` from the file are read only when the command line names no
///   input;
/// * a flag set to `true` in the file is set (`false` leaves it unset).
///
/// Unknown key, wrong type and broken TOML are errors naming the key and,
/// where it can be found, the line.
enum ConfigFile {
    /// One option of the command, as `--experimental-dump-help` describes it.
    struct OptionSpec: Sendable, Equatable {
        enum Kind: Sendable, Equatable {
            /// `--name`, no value: `true` or `false` in the file.
            case flag
            /// `--name VALUE` once: a string or an integer in the file.
            case single
            /// `--name VALUE`, repeatable: an array (or one value) in the file.
            case repeating
            /// The input paths: `inputs`, an array (or one string).
            case positional
        }
        package var name: String
        package var kind: Kind
        /// One-letter spellings (`q` for `-q`).
        var shortNames: [Character]

        package init(name: String, kind: Kind, shortNames: [Character] = []) {
            self.name = name
            self.kind = kind
            self.shortNames = shortNames
        }
    }

    /// Why a config file was refused; `description` is the whole message.
    struct ConfigError: Error, CustomStringConvertible, Equatable {
        package var description: String
        package init(description: String) { self.description = description }
    }

    /// The key under which the file gives the input paths.
    static let inputsKey = "inputs"

    /// The keys whose values are paths: a relative one is relative to the
    /// file's folder (docs/contract.md §9), so a cron job started in `/`
    /// finds the same files as a run started beside the file.
    static let pathKeys: Set<String> = ["csv", "json", "html", "metrics", "checkpoint", inputsKey]

    /// `value` of a path key, seen from `folder` (the config file's, as
    /// the command line names it): unchanged when absolute, `-`, empty, or
    /// when the folder is the working directory.
    package static func path(_ value: String, from folder: String) -> String {
        if value.isEmpty || value == "-" || value.hasPrefix("/") || folder.isEmpty || folder == "." { return value }
        return (folder.hasSuffix("/") ? folder : folder + "/") + value
    }

    /// The folder of the file at `path` as named (`.` when it has none).
    package static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Options that make no sense in a file.
    static let excluded: Set<String> = ["config", "help", "version", "generate-completion-script", "experimental-dump-help"]

    /// The options a file may set, from ArgumentParser's own description of
    /// the command (`--experimental-dump-help` JSON, `ToolInfoV0`), so the
    /// list cannot drift from the command's options.
    package static func options(fromToolInfo json: String) throws(ConfigError) -> [OptionSpec] {
        struct ToolInfo: Decodable {
            struct Command: Decodable { var arguments: [Argument]? }
            struct Argument: Decodable {
                struct Name: Decodable { var kind: String; var name: String }
                var kind: String
                var names: [Name]?
                var isRepeating: Bool?
            }
            var command: Command
        }
        let info: ToolInfo
        do { info = try JSONDecoder().decode(ToolInfo.self, from: Data(json.utf8)) } catch {
            throw ConfigError(description: "cannot read the command's option list: \(error)")
        }
        var specs: [OptionSpec] = []
        for argument in info.command.arguments ?? [] {
            let long = argument.names?.first { $0.kind == "long" }?.name
            let shorts = (argument.names ?? []).filter { $0.kind == "short" }.compactMap(\.name.first)
            switch argument.kind {
            case "positional":
                specs.append(OptionSpec(name: inputsKey, kind: .positional))
            case "flag":
                if let long, !excluded.contains(long) { specs.append(OptionSpec(name: long, kind: .flag, shortNames: shorts)) }
            case "option":
                if let long, !excluded.contains(long) {
                    specs.append(OptionSpec(name: long, kind: argument.isRepeating == true ? .repeating : .single, shortNames: shorts))
                }
            default:
                continue
            }
        }
        return specs
    }

    /// The value of `--config FILE` or `--config=FILE` among the
    /// arguments (before a `--`), if any; the last one when repeated.
    package static func path(in arguments: [String]) -> String? {
        var found: String?
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--" { break }
            if a == "--config", i + 1 < arguments.count { found = arguments[i + 1]; i += 2; continue }
            if a.hasPrefix("--config=") { found = String(a.dropFirst("--config=".count)) }
            i += 1
        }
        return found
    }

    /// The arguments the file stands for, in the order of `options`:
    /// `(key, arguments)` per key set. `name` names the file in messages.
    /// Relative paths of `pathKeys` are taken from the folder of `name`.
    package static func settings(fromTOML text: String, name: String, options: [OptionSpec]) throws(ConfigError) -> [(key: String, arguments: [String])] {
        let folder = folder(of: name)
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let error as TOMLParseError {
            throw ConfigError(description: "\(name):\(error.source.begin.line):\(error.source.begin.column): not valid TOML: \(error.description)")
        } catch {
            throw ConfigError(description: "\(name): not valid TOML: \(error)")
        }
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        // Every key first: an unknown one is refused whatever else is wrong.
        for key in table.keys.sorted(by: { line(of: $0, in: text) ?? .max < line(of: $1, in: text) ?? .max }) where byName[key] == nil {
            let known = options.map(\.name).sorted().joined(separator: ", ")
            throw ConfigError(description: "\(where_(key, name, text)): unknown key \"\(key)\" (the keys are the long options: \(known))")
        }
        var out: [(String, [String])] = []
        for spec in options {
            guard let value = table[spec.name] else { continue }
            func wrong(_ expected: String) -> ConfigError {
                ConfigError(description: "\(where_(spec.name, name, text)): \(spec.name) must be \(expected), not \(article(value.type))")
            }
            switch spec.kind {
            case .flag:
                guard let bool = value.bool, value.type == .bool else { throw wrong("true or false") }
                if bool { out.append((spec.name, ["--" + spec.name])) }
            case .single:
                guard let text = scalar(value) else { throw wrong("a string or an integer") }
                out.append((spec.name, Self.option(spec.name, pathKeys.contains(spec.name) ? path(text, from: folder) : text)))
            case .repeating, .positional:
                var values: [String] = []
                if let array = value.array, value.type == .array {
                    for element in array {
                        guard let text = scalar(element) else { throw wrong("an array of strings") }
                        values.append(text)
                    }
                } else if let text = scalar(value) {
                    values = [text]
                } else {
                    throw wrong("an array of strings")
                }
                if pathKeys.contains(spec.name) { values = values.map { path($0, from: folder) } }
                if spec.kind == .positional {
                    out.append((spec.name, values))
                } else {
                    out.append((spec.name, values.flatMap { Self.option(spec.name, $0) }))
                }
            }
        }
        return out
    }

    /// The command line with the file's settings merged in: the file's
    /// options for what the command line does not set, before the user's
    /// arguments; the file's inputs at the end when the command line names
    /// none.
    package static func merge(_ settings: [(key: String, arguments: [String])], into commandLine: [String], options: [OptionSpec]) -> [String] {
        let given = namesGiven(in: commandLine, options: options)
        var front: [String] = []
        var inputs: [String] = []
        for (key, arguments) in settings where !given.names.contains(key) && !(rivals[key] ?? []).contains(where: given.names.contains) {
            if key == inputsKey {
                if !given.hasInputs { inputs = arguments }
            } else {
                front += arguments
            }
        }
        var merged = front + commandLine
        if !inputs.isEmpty {
            if !commandLine.contains("--") { merged.append("--") }
            merged += inputs
        }
        return merged
    }

    /// An option and its value as arguments: `--name value`, or
    /// `--name=value` for a value that begins with `-` (but `-` alone,
    /// standard output), which the parser would otherwise take for an
    /// option (`session-timeout = "-5"` is then refused for its value,
    /// not as a missing one).
    static func option(_ name: String, _ value: String) -> [String] {
        value.count > 1 && value.hasPrefix("-") ? ["--\(name)=\(value)"] : ["--" + name, value]
    }

    /// Options that set what another one sets: given on the command line,
    /// one leaves out the file's other (`--no-color` wins over the file's
    /// `color`, as `--color` does).
    static let rivals: [String: [String]] = ["color": ["no-color"], "no-color": ["color"]]

    /// The long names of the options set on the command line, and whether
    /// it names an input. Walks the arguments as the parser does: an
    /// option that takes a value consumes the next argument (unless given
    /// as `--name=value`); everything after `--` is an input.
    static func namesGiven(in arguments: [String], options: [OptionSpec]) -> (names: Set<String>, hasInputs: Bool) {
        let given = argumentsGiven(in: arguments, options: options)
        return (given.names, given.positionals > 0)
    }

    /// `namesGiven`, with the number of positional arguments (explain's
    /// target is one).
    static func argumentsGiven(in arguments: [String], options: [OptionSpec]) -> (names: Set<String>, positionals: Int) {
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var byShort: [Character: OptionSpec] = [:]
        for spec in options { for c in spec.shortNames { byShort[c] = spec } }
        var names: Set<String> = []
        var positionals = 0
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            i += 1
            if a == "--" {
                positionals += arguments.count - i
                break
            }
            if a.hasPrefix("--") {
                let body = a.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                names.insert(name)
                let takesValue = name == "config" || byName[name].map { $0.kind == .single || $0.kind == .repeating } == true
                if takesValue && !body.contains("=") { i += 1 }
            } else if a.hasPrefix("-") && a.count > 1 {
                // One or more one-letter flags (-q, -qh).
                for c in a.dropFirst() { if let spec = byShort[c] { names.insert(spec.name) } }
            } else {
                positionals += 1
            }
        }
        return (names, positionals)
    }

    /// A string, or an integer written as digits; nil for anything else.
    private static func scalar(_ value: TOMLValueConvertible) -> String? {
        switch value.type {
        case .string: return value.string
        case .int: return value.int.map(String.init)
        default: return nil
        }
    }

    private static func article(_ type: TOMLType) -> String {
        switch type {
        case .int: return "an integer"
        case .array: return "an array"
        case .bool: return "a boolean"
        default: return "a \(type.description)"
        }
    }

    /// `FILE:LINE` of a key, or `FILE` when its line cannot be found.
    private static func where_(_ key: String, _ name: String, _ text: String) -> String {
        line(of: key, in: text).map { "\(name):\($0)" } ?? name
    }

    /// The line (from 1) where `key` is set (`key =`, `"key" =`) or opens
    /// a table (`[key]`, `[[key]]`), if one does.
    static func line(of key: String, in text: String) -> Int? {
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[") {
                line = line.drop { $0 == "[" }.drop { $0 == " " }
                if line.hasPrefix(key) && line.dropFirst(key.count).drop(while: { $0 == " " }).hasPrefix("]") { return index + 1 }
                continue
            }
            for quote in ["", "\"", "'"] {
                let spelled = quote + key + quote
                if line.hasPrefix(spelled) && line.dropFirst(spelled.count).drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("=") {
                    return index + 1
                }
            }
        }
        return nil
    }
}
