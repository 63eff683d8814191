/// flipaudit's version: `--version`, the HTML report's footer line.
package enum FlipAuditVersion {
    package static let current = "0.1.0"
}
