import Foundation
import Testing

/// `flipaudit --generate-completion-script SHELL`: file paths for the
/// inputs and path options, `stage` and its steps, no `help` subcommand
/// (flipaudit has none: `flipaudit help` would read a file named help).
@Suite("Shell completions")
struct CompletionTests {
    @Test("every shell's script offers stage and its steps, explain, and no help subcommand", arguments: ["bash", "zsh", "fish"])
    func scripts(shell: String) throws {
        let run = try runCLI(["--generate-completion-script", shell])
        #expect(run.status == 0)
        let script = run.stdout
        for step in ["stage", "explain", "plan", "read", "sessions", "codes", "merge"] { #expect(script.contains(step), "\(step)") }
        #expect(!script.contains("Show subcommand help information"))
        #expect(!script.contains("_flipaudit_help"))
        #expect(script.hasSuffix("\n"))
        // The shell reads it (when the shell is installed: bash always is).
        let shellPath = ["/bin/bash", "/usr/bin/bash", "/usr/bin/zsh", "/bin/zsh", "/usr/bin/fish"].first {
            $0.hasSuffix("/" + shell) && FileManager.default.isExecutableFile(atPath: $0)
        }
        if let shellPath {
            let file = temporaryDirectory() + "/completion." + shell
            try script.write(toFile: file, atomically: true, encoding: .utf8)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: shellPath)
            p.arguments = ["-n", file]
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "\(shell) -n failed")
        }
    }

    @Test("flipaudit help, with no file named help, is a usage error that points to --help")
    func helpWord() throws {
        let run = try runCLI(["help"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("flipaudit --help lists the options"))
    }

    @Test("bash completes stage, its steps, file paths for the inputs, folders for --csv")
    func bash() throws {
        let dir = temporaryDirectory()
        _ = writeLog(["x"], named: "access.log", in: dir)
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        let script = dir + "/flipaudit.bash"
        try runCLI(["--generate-completion-script", "bash"]).stdout.write(toFile: script, atomically: true, encoding: .utf8)
        let driver = """
            cd '\(dir)' && source '\(script)'
            t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
                  COMPREPLY=(); _flipaudit flipaudit "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; echo "${COMPREPLY[*]}" | tr ' ' '\\n' | sort | tr '\\n' ' '; echo; }
            t flipaudit st; t flipaudit stage ''; t flipaudit acc; t flipaudit access.log ''; t flipaudit --csv o; t flipaudit he
            t flipaudit explain --c; t flipaudit explain s1 acc
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", driver]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        p.waitUntilExit()
        #expect(lines.count >= 6)
        guard lines.count >= 6 else { return }
        #expect(lines[0] == "stage ")
        #expect(lines[1] == "codes merge plan read sessions ")
        #expect(lines[2] == "access.log ")
        // After an input: more paths, not stage.
        #expect(lines[3].contains("access.log") && !lines[3].contains("stage"))
        #expect(lines[4] == "out ")
        #expect(lines[5] == " " || lines[5].isEmpty)
        // After explain: its own options (no --csv, --color), then paths.
        #expect(lines.count >= 8)
        guard lines.count >= 8 else { return }
        #expect(lines[6] == "--checkpoint --client-id --color --config --cut-at ", "\(lines[6])")
        #expect(lines[7] == "access.log ")
    }
}
