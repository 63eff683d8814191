import Foundation
import Testing

@testable import Command

/// The command's own option list, as the binary describes it.
func commandOptions() throws -> [ConfigFile.OptionSpec] {
    let run = try runCLI(["--experimental-dump-help"])
    return try ConfigFile.options(fromToolInfo: run.stdout)
}

@Suite("--config TOML files")
struct ConfigFileTests {
    static let options: [ConfigFile.OptionSpec] = [
        .init(name: "inputs", kind: .positional),
        .init(name: "client-id", kind: .repeating),
        .init(name: "session-timeout", kind: .single),
        .init(name: "csv", kind: .single),
        .init(name: "fail-on", kind: .single),
        .init(name: "quiet", kind: .flag, shortNames: ["q"]),
        .init(name: "no-color", kind: .flag),
    ]

    func settings(_ text: String) throws -> [String: [String]] {
        let list = try ConfigFile.settings(fromTOML: text, name: "f.toml", options: Self.options)
        return Dictionary(list.map { ($0.key, $0.arguments) }, uniquingKeysWith: { a, _ in a })
    }

    func error(_ text: String) -> String? {
        do { _ = try ConfigFile.settings(fromTOML: text, name: "f.toml", options: Self.options) } catch { return error.description }
        return nil
    }

    @Test("each kind of key becomes its arguments")
    func kinds() throws {
        let s = try settings(
            """
            client-id = ["A", "B"]
            session-timeout = 900
            csv = "/srv/dash"
            quiet = true
            no-color = false
            inputs = "a.log"
            """)
        #expect(s["client-id"] == ["--client-id", "A", "--client-id", "B"])
        #expect(s["session-timeout"] == ["--session-timeout", "900"])
        #expect(s["csv"] == ["--csv", "/srv/dash"])
        #expect(s["quiet"] == ["--quiet"])
        #expect(s["no-color"] == nil)
        #expect(s["inputs"] == ["a.log"])
        #expect(try settings("client-id = \"A\"")["client-id"] == ["--client-id", "A"])
        // A value that begins with - is given as --name=value, so that the
        // parser does not take it for an option.
        #expect(try settings("client-id = [\"-x\", \"y\"]")["client-id"] == ["--client-id=-x", "--client-id", "y"])
    }

    @Test("relative paths are relative to the file's folder (docs/contract.md §9)")
    func relativePaths() throws {
        let paths = Self.options + ["checkpoint", "json", "html", "metrics", "log-format"].map { ConfigFile.OptionSpec(name: $0, kind: .single) }
        let text = """
            checkpoint = "state/flip.cp"
            csv = "out"
            json = "-"
            html = "/srv/r.html"
            metrics = "../m.prom"
            log-format = "a/b"
            inputs = ["logs/a.log.gz", "/var/log/b.log"]
            """
        let s = Dictionary(
            try ConfigFile.settings(fromTOML: text, name: "/etc/flip/f.toml", options: paths).map { ($0.key, $0.arguments) },
            uniquingKeysWith: { a, _ in a })
        #expect(s["checkpoint"] == ["--checkpoint", "/etc/flip/state/flip.cp"])
        #expect(s["csv"] == ["--csv", "/etc/flip/out"])
        #expect(s["json"] == ["--json", "-"])
        #expect(s["html"] == ["--html", "/srv/r.html"])
        #expect(s["metrics"] == ["--metrics", "/etc/flip/../m.prom"])
        #expect(s["log-format"] == ["--log-format", "a/b"])
        #expect(s["inputs"] == ["/etc/flip/logs/a.log.gz", "/var/log/b.log"])
        // A file named without a folder: paths stay as written.
        let here = try ConfigFile.settings(fromTOML: "csv = \"out\"", name: "f.toml", options: paths)
        #expect(here.first?.arguments == ["--csv", "out"])
        let nested = try ConfigFile.settings(fromTOML: "csv = \"out\"", name: "conf/f.toml", options: paths)
        #expect(nested.first?.arguments == ["--csv", "conf/out"])
    }

    @Test("unknown key, wrong type and broken TOML name the key and the line")
    func errors() {
        #expect(error("quiet = true\nclient_id = \"x\"\n")?.hasPrefix("f.toml:2: unknown key \"client_id\"") == true)
        #expect(error("\n[client-id]\nx = 1\n") == "f.toml:2: client-id must be an array of strings, not a table")
        #expect(error("\n\n[output]\ncsv = \"x\"\n")?.hasPrefix("f.toml:3: unknown key \"output\"") == true)
        #expect(error("session-timeout = true") == "f.toml:1: session-timeout must be a string or an integer, not a boolean")
        #expect(error("session-timeout = 1.5") == "f.toml:1: session-timeout must be a string or an integer, not a floating-point number")
        #expect(error("csv = [\"a\"]") == "f.toml:1: csv must be a string or an integer, not an array")
        #expect(error("quiet = \"yes\"") == "f.toml:1: quiet must be true or false, not a string")
        #expect(error("client-id = [1.5]") == "f.toml:1: client-id must be an array of strings, not an array")
        #expect(error("client-id = [\"A\",\n  \"B\"\n")?.hasPrefix("f.toml:2:") == true)
        #expect(error("quiet = true\nquiet = false\n")?.hasPrefix("f.toml:2:") == true)
        #expect(error("csv = \"a\"\n\"fail-on\" = 3\n") == nil)
    }

    @Test("the command line wins: single values, repeatable lists and inputs")
    func precedence() throws {
        let s = try ConfigFile.settings(
            fromTOML: """
                client-id = ["A", "B"]
                session-timeout = 900
                csv = "/srv/dash"
                quiet = true
                inputs = ["a.log", "b.log"]
                """, name: "f.toml", options: Self.options)
        func merged(_ commandLine: [String]) -> [String] { ConfigFile.merge(s, into: commandLine, options: Self.options) }
        // Nothing on the command line: everything from the file, inputs after --.
        #expect(
            merged(["--config", "f.toml"]) == [
                "--client-id", "A", "--client-id", "B", "--session-timeout", "900", "--csv", "/srv/dash", "--quiet",
                "--config", "f.toml", "--", "a.log", "b.log",
            ])
        // Single-valued given (both spellings): the file's value is left out.
        let m = merged(["--session-timeout=60", "--csv", "out", "x.log"])
        #expect(!m.contains("900") && !m.contains("/srv/dash") && m.contains("--session-timeout=60"))
        // A repeatable option given: the command line's list replaces the file's.
        let c = merged(["--client-id", "C", "x.log"])
        #expect(c.filter { $0 == "--client-id" }.count == 1 && !c.contains("A") && c.contains("C"))
        // Inputs given: the file's are not read; a value is not taken for an input.
        #expect(!merged(["x.log"]).contains("a.log"))
        #expect(merged(["--csv", "out"]).suffix(3) == ["--", "a.log", "b.log"])
        #expect(!merged(["--", "-weird.log"]).contains("a.log"))
        // -q counts as --quiet.
        #expect(merged(["-q", "x.log"]).filter { $0 == "--quiet" }.isEmpty)
        // --no-color on the command line wins over the file's color, and
        // --color over its no-color.
        let all = try commandOptions()
        let colored = try ConfigFile.settings(fromTOML: "color = \"always\"\n", name: "c.toml", options: all)
        #expect(ConfigFile.merge(colored, into: ["--no-color", "x.log"], options: all) == ["--no-color", "x.log"])
        let plain = try ConfigFile.settings(fromTOML: "no-color = true\n", name: "c.toml", options: all)
        #expect(ConfigFile.merge(plain, into: ["--color", "always", "x.log"], options: all) == ["--color", "always", "x.log"])
    }

    @Test("the keys are the command's own long options, from ArgumentParser")
    func commandKeys() throws {
        let options = try commandOptions()
        let names = Set(options.map(\.name))
        let help = try runCLI(["--help"]).stdout
        // Every long option the help lists is a key, except --config itself and help/version.
        var listed: Set<String> = []
        for word in help.split(whereSeparator: { " ,\n[]<>".contains($0) }) where word.hasPrefix("--") {
            let name = String(word.dropFirst(2).prefix { $0.isLetter || $0 == "-" })
            if !name.isEmpty { listed.insert(name) }
        }
        listed.subtract(["config", "help", "version"])
        #expect(!listed.isEmpty && listed.isSubset(of: names), "\(listed.subtracting(names))")
        #expect(names.contains("inputs") && !names.contains("config") && !names.contains("help"))
        #expect(options.first { $0.name == "client-id" }?.kind == .repeating)
        #expect(options.first { $0.name == "session-timeout" }?.kind == .single)
        #expect(options.first { $0.name == "quiet" } == .init(name: "quiet", kind: .flag, shortNames: ["q"]))
    }

    @Test("the example config parses, names every option, and takes effect under command-line overrides")
    func example() throws {
        let path = docsFolder + "/flipaudit.example.toml"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let options = try commandOptions()
        let settings = try ConfigFile.settings(fromTOML: text, name: path, options: options)
        #expect(settings.count >= 10)
        // Every key is shown, set or commented out.
        for option in options {
            #expect(ConfigFile.line(of: option.name, in: text) != nil || text.contains("# \(option.name) = "), "\(option.name) not in the example")
        }
        // Its settings reach the command: fail-on = "high" makes the
        // samples exit 1; the command line's outputs and inputs replace
        // the file's paths.
        let dir = temporaryDirectory()
        // Each run with a checkpoint of its own (the file's chains the
        // nights: the same samples twice would be refused).
        var runs = 0
        var outputs: [String] {
            runs += 1
            return ["--csv", dir, "--json", dir + "/s.json", "--html", dir + "/r.html", "--metrics", dir + "/m.prom", "--checkpoint", dir + "/\(runs).cp"]
        }
        let run = try runCLI(["--config", path] + outputs + [sampleLogs])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.isEmpty)  // quiet = true
        for name in ["sessions.csv", "s.json", "r.html", "m.prom"] {
            #expect(FileManager.default.fileExists(atPath: dir + "/" + name), "\(name)")
        }
        #expect(try runCLI(["--config", path, "--fail-on", "never"] + outputs + [sampleLogs]).status == 0)
        // --no-quiet undoes the file's quiet; --color always wins over its
        // no-color, also into a pipe.
        let loud = try runCLI(["--config", path, "--no-quiet", "--color", "always"] + outputs + [sampleLogs])
        #expect(loud.stdout.hasPrefix("\u{1B}[1mCOVERAGE"), "\(loud.stdout.prefix(40))")
        let plain = try runCLI(["--config", path, "--no-quiet"] + outputs + [sampleLogs])
        #expect(plain.stdout.hasPrefix("COVERAGE") && !plain.stdout.contains("\u{1B}["))
        // The file's session-timeout reaches the parser: a bad value is refused.
        let bad = dir + "/bad.toml"
        try (text + "\n").replacingOccurrences(of: "session-timeout = 600", with: "session-timeout = -5").write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try runCLI(["--config", bad] + outputs + [sampleLogs])
        #expect(refused.status == 2 && refused.stderr.contains("--session-timeout"))
    }

    @Test("a bad config file is exit 2 with the key and line, before any input is read")
    func cliErrors() throws {
        let dir = temporaryDirectory()
        let bad = dir + "/bad.toml"
        try "quiet = true\nclientid = [\"A\"]\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let run = try runCLI(["--config", bad, sampleLogs])
        #expect(run.status == 2)
        #expect(run.stderr.contains("bad.toml:2: unknown key \"clientid\""))
        #expect(run.stdout.isEmpty)
        let missing = try runCLI(["--config", dir + "/none.toml", sampleLogs])
        #expect(missing.status == 2 && missing.stderr.contains("none.toml: cannot read: no such file or directory"), "\(missing.stderr)")
        try "session-timeout = [1\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let broken = try runCLI(["--config", bad, sampleLogs])
        #expect(broken.status == 2 && broken.stderr.contains("bad.toml:1:") && broken.stderr.contains("not valid TOML"))
        // A value the parser refuses names the file's line; given on the
        // command line instead, it does not.
        try "quiet = true\n# the threshold\nfail-on = \"hgh\"\nsession-timeout = -5\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let value = try runCLI(["--config", bad, sampleLogs])
        #expect(value.status == 2 && value.stderr.hasPrefix("flipaudit: --config \(bad):3: ") && value.stderr.contains("'hgh'"), "\(value.stderr)")
        let given = try runCLI(["--config", bad, "--fail-on", "hgh", sampleLogs])
        #expect(given.status == 2 && !given.stderr.contains("bad.toml:3"))
        let negative = try runCLI(["--config", bad, "--fail-on", "high", sampleLogs])
        #expect(negative.status == 2 && negative.stderr.contains("\(bad):4: ") && negative.stderr.contains("--session-timeout"), "\(negative.stderr)")
    }
}
