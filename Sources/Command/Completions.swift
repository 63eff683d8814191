import ArgumentParser

/// `--generate-completion-script bash|zsh|fish`: ArgumentParser's script,
/// from the command's options (file and folder paths where an option or
/// the inputs take them, values where an option has a list), with what
/// ArgumentParser cannot be told. It adds a `help` subcommand to every
/// tool's description, but flipaudit has none (`flipaudit help` reads a
/// file named help), and it does not know `stage` and `explain`, which
/// `main` parses itself. So `help` is taken out, and `stage` (with its
/// steps) and `explain` put in.
enum Completions {
    /// The stage steps, in the order a job runs them.
    static let steps = ["plan", "read", "sessions", "codes", "merge"]

    /// The shell named by `--generate-completion-script SHELL` (or
    /// `=SHELL`) when that is the whole command line.
    static func requestedShell(_ arguments: [String]) -> String? {
        if arguments.count == 2 && arguments[0] == "--generate-completion-script" { return arguments[1] }
        if arguments.count == 1 && arguments[0].hasPrefix("--generate-completion-script=") {
            return String(arguments[0].dropFirst("--generate-completion-script=".count))
        }
        return nil
    }

    /// The script for `shell`, or nil for a shell ArgumentParser does not
    /// know (its own message then says so).
    static func script(for shell: String) -> String? {
        guard let kind = CompletionShell(rawValue: shell) else { return nil }
        let script = FlipAuditCommand.completionScript(for: kind)
        var out: String
        switch kind {
        case .bash: out = bash(script)
        case .zsh: out = zsh(script)
        case .fish: out = fish(script)
        default: out = script
        }
        return out.hasSuffix("\n") ? out : out + "\n"
    }

    /// The text of `script` from `start` up to (not including) `end`
    /// replaced by `new`; `script` unchanged when either is not found.
    static func replacing(_ script: String, from start: String, upTo end: String, with new: String) -> String {
        guard let a = script.range(of: start), let b = script.range(of: end, range: a.upperBound..<script.endIndex) else {
            return script
        }
        return String(script[..<a.lowerBound]) + new + String(script[b.lowerBound...])
    }

    /// `explain`'s own long options (`--checkpoint`, `--json`, the audit's
    /// options; `--config`, which a file of settings cannot hold), not the
    /// audit's outputs.
    static var explainOptions: [String] {
        let options = (try? ConfigFile.options(fromToolInfo: ExplainCommand._dumpHelp())) ?? []
        return options.filter { $0.kind != .positional }.map { "--" + $0.name } + ["--config", "--help"]
    }

    /// `follow`'s own long options, as for `explain`.
    static var followOptions: [String] {
        let options = (try? ConfigFile.options(fromToolInfo: FollowCommand._dumpHelp())) ?? []
        return options.filter { $0.kind != .positional }.map { "--" + $0.name } + ["--config", "--help"]
    }

    static func bash(_ script: String) -> String {
        var out = script.replacingFirst(
            of: "    local -r prev=\"${3}\"\n",
            with: """
                    local -r prev="${3}"

                    # flipaudit stage STEP: the steps, then their options (flipaudit stage STEP --help).
                    if [[ "${COMP_WORDS[1]-}" == stage ]]; then
                        [[ "${COMP_CWORD}" -eq 2 ]] && COMPREPLY=($(compgen -W '\(steps.joined(separator: " "))' -- "${cur}"))
                        return
                    fi
                    # flipaudit explain TARGET INPUTS: its own options, else paths.
                    if [[ "${COMP_WORDS[1]-}" == explain ]]; then
                        if [[ "${cur}" == -* ]]; then
                            COMPREPLY=($(compgen -W '\(explainOptions.joined(separator: " "))' -- "${cur}"))
                        else
                            COMPREPLY=($(compgen -f -- "${cur}"))
                        fi
                        return
                    fi
                    # flipaudit follow FILES: its own options, else paths.
                    if [[ "${COMP_WORDS[1]-}" == follow ]]; then
                        if [[ "${cur}" == -* ]]; then
                            COMPREPLY=($(compgen -W '\(followOptions.joined(separator: " "))' -- "${cur}"))
                        else
                            COMPREPLY=($(compgen -f -- "${cur}"))
                        fi
                        return
                    fi

                """)
        // `stage` as the first word, beside the file paths of the inputs.
        out = out.replacingFirst(
            of: "    # Offer positional completions\n",
            with: """
                    [[ "${COMP_CWORD}" -eq 1 ]] && COMPREPLY+=($(compgen -W 'stage explain follow' -- "${cur}"))

                    # Offer positional completions

                """)
        out = replacing(out, from: "    # Offer subcommand / subcommand argument completions\n", upTo: "\ncomplete ", with: "}\n")
        return out
    }

    static func zsh(_ script: String) -> String {
        var out = script.replacingFirst(of: "        '(-): :->command'\n        '(-)*:: :->arg'\n", with: "")
        out = out.replacingFirst(of: "'*:file|dir|-:_files'", with: "'*:file|dir|-:__flipaudit_inputs'")
        out = replacing(
            out, from: "    case \"${state}\" in\n    command)", upTo: "    return \"${ret}\"\n}",
            with: "")
        out = replacing(
            out, from: "_flipaudit_help() {", upTo: "if [[ \"${funcstack[1]}\" = _flipaudit ]]",
            with: """
                __flipaudit_inputs() {
                    if [[ "${words[2]}" == stage ]]; then
                        (( CURRENT == 3 )) && _values step \(steps.joined(separator: " "))
                    elif (( CURRENT == 2 )); then
                        _alternative 'commands:command:(stage explain follow)' 'files:file:_files'
                    else
                        _files
                    fi
                }


                """)
        return out
    }

    static func fish(_ script: String) -> String {
        var lines = script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeAll { $0.contains("\"flipaudit help\"") || $0.contains("-fa 'help'") }
        var out = lines.joined(separator: "\n")
        if !out.hasSuffix("\n") { out += "\n" }
        out = out.replacingFirst(
            of: "        switch $unparsed_tokens[1]\n        case 'help'\n            __flipaudit_parse_subcommand -r 1 'version'\n        end\n",
            with: "")
        out +=
            "complete -c 'flipaudit' -n '__fish_is_first_token' -fa 'stage' -d 'The audit as map / shuffle / reduce steps (docs/distributed.md).'\n"
            + "complete -c 'flipaudit' -n '__fish_is_first_token' -fa 'explain' -d 'One session\\'s story for a security review (docs/security-review.md).'\n"
            + "complete -c 'flipaudit' -n '__fish_is_first_token' -fa 'follow' -d 'Audit logs while they are written (docs/follow.md).'\n"
            + "complete -c 'flipaudit' -n 'test (count (commandline -opc)) -eq 2; and test (commandline -opc)[2] = stage' -fa '\(steps.joined(separator: " "))'\n"
        return out
    }
}

extension String {
    /// `self` with the first `target` replaced by `replacement`.
    fileprivate func replacingFirst(of target: String, with replacement: String) -> String {
        guard let r = range(of: target) else { return self }
        return String(self[..<r.lowerBound]) + replacement + String(self[r.upperBound...])
    }
}
