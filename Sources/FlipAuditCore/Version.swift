/// flipaudit's version: `--version`, the HTML report's footer line.
public enum FlipAuditVersion {
    public static let current = "0.1.0"
}
