/// This run's own output files, which a directory walk must not read as
/// logs: files that exist already (by device and inode), and the temporary
/// files written beside them (by name, in their folder).
package struct OwnOutputs: Sendable {
    /// Existing output files.
    package var identities: Set<FileIdentity> = []
    /// Per canonical folder, the names of the outputs written there.
    package var namesByFolder: [String: [String]] = [:]

    package init() {}

    package func contains(_ identity: FileIdentity) -> Bool { identities.contains(identity) }

    /// Whether `name` in the canonical folder `folder` is a temporary file
    /// of an output written there.
    package func isTemporary(name: String, in folder: String) -> Bool {
        guard let outputs = namesByFolder[folder] else { return false }
        return outputs.contains { FilePaths.isTemporaryName(name, for: $0) }
    }
}
