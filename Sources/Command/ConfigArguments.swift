import Audit
import Foundation
import Parsing
import Reading
import Reports
import Rules

/// `--config FILE`: the command line with the TOML file's settings merged
/// in (`ConfigFile` says what wins), before ArgumentParser parses it. The
/// keys a file may set come from ArgumentParser's own description of
/// `FlipAuditCommand`, so every long option is a key and no other.
enum ConfigArguments {
    /// `arguments` (without the program name), with the file named by
    /// `--config` merged in; unchanged without `--config`.
    static func expand(_ arguments: [String]) throws(ConfigFile.ConfigError) -> [String] {
        guard let path = ConfigFile.path(in: arguments) else { return arguments }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ConfigFile.ConfigError(description: "\(path): cannot read: \((error as NSError).localizedDescription)")
        }
        let options = try ConfigFile.options(fromToolInfo: FlipAuditCommand._dumpHelp())
        let settings = try ConfigFile.settings(fromTOML: text, name: path, options: options)
        return ConfigFile.merge(settings, into: arguments, options: options)
    }
}
