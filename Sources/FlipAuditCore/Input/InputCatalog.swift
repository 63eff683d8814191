import Foundation

/// One input to read: a file, or standard input.
public struct InputFile: Sendable, Equatable {
    /// The name shown in messages and in `FILE:LINE` sources.
    public var displayName: String
    /// The path to open; nil for standard input.
    public var path: String?
}

/// Turns the command-line arguments into the sorted list of inputs: files
/// as given, every regular file below a directory (recursively), `-` for
/// standard input. Sorting by name makes results independent of argument
/// order; a path named twice is read once.
public enum InputCatalog {
    /// The display name used for standard input.
    public static let standardInputName = "(stdin)"

    public static func resolve(_ arguments: [String]) -> (files: [InputFile], problems: [(name: String, error: InputError)]) {
        var files: [InputFile] = []
        var problems: [(String, InputError)] = []
        let fm = FileManager.default
        for arg in arguments {
            if arg == "-" {
                files.append(InputFile(displayName: standardInputName, path: nil))
                continue
            }
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: arg, isDirectory: &isDir) else {
                problems.append((arg, .missing))
                continue
            }
            guard isDir.boolValue else {
                files.append(InputFile(displayName: arg, path: arg))
                continue
            }
            guard fm.isReadableFile(atPath: arg) else {
                problems.append((arg, .unreadable("permission denied")))
                continue
            }
            files.append(contentsOf: walk(arg, problems: &problems))
        }
        var seen = Set<String>()
        let unique = files.filter { seen.insert($0.displayName).inserted }
        return (unique.sorted { $0.displayName < $1.displayName }, problems)
    }

    /// Regular files below `dir`, depth first, not following links to
    /// directories.
    private static func walk(_ dir: String, problems: inout [(String, InputError)]) -> [InputFile] {
        var result: [InputFile] = []
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: dir) else {
            problems.append((dir, .unreadable("cannot list directory")))
            return []
        }
        let base = dir.hasSuffix("/") ? dir : dir + "/"
        for name in names.sorted() {
            let path = base + name
            guard let attributes = try? fm.attributesOfItem(atPath: path) else { continue }
            let type = attributes[.type] as? FileAttributeType
            if type == .typeDirectory {
                result.append(contentsOf: walk(path, problems: &problems))
            } else if type == .typeRegular {
                result.append(InputFile(displayName: path, path: path))
            } else if type == .typeSymbolicLink {
                var isDir: ObjCBool = false
                if fm.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue {
                    result.append(InputFile(displayName: path, path: path))
                }
            }
        }
        return result
    }
}
