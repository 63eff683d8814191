/// The process: what the `flipaudit` executable runs. Parses the command
/// line, runs the audit, `stage` or `explain`, and exits with its status.
package enum Program {
    package static func main() {
        FlipAuditCommand.main()
    }
}
