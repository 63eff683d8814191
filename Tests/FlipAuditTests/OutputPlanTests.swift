import Foundation
import Testing

@testable import Reading
@testable import Run
@testable import Writing

/// What `OutputPlan` decides for each kind of output path, before any
/// input is read (the hostile battery in Tests/hostile runs the binary).
@Suite("Output plan")
struct OutputPlanTests {
    func refused(_ csv: String?, _ json: String?, _ inputs: [String]) -> String? {
        do {
            _ = try OutputPlan.make(csv: csv, json: json, arguments: inputs, usesStandardOutput: false)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("an output that is an input, another output, or a directory is refused")
    func collisions() throws {
        let dir = temporaryDirectory()
        let log = writeLog(["x"], named: "a.log", in: dir)
        try FileManager.default.createSymbolicLink(atPath: dir + "/current", withDestinationPath: "a.log")
        #expect(refused(nil, log, [log])?.contains("is the input") == true)
        #expect(refused(nil, dir + "/./a.log", [log])?.contains("is the input") == true)
        #expect(refused(nil, dir + "/current", [log])?.contains("is the input") == true)
        #expect(refused(nil, log, [dir + "/current"])?.contains("is the input") == true)
        #expect(refused(dir + "/out", dir + "/out/sessions.csv", [log])?.contains("same file") == true)
        #expect(refused(nil, dir, [log])?.contains("is a directory") == true)
        #expect(refused(nil, log + "/sub/r.json", [log])?.contains("a.log is a regular file, not a folder") == true)
        #expect(refused(nil, dir + "/" + String(repeating: "n", count: 300), [log])?.contains("longer") == true)
        #expect(refused(log, nil, [dir])?.contains("not a folder") == true)
        #expect(refused(nil, "", [log])?.contains("names no file") == true)
        #expect(refused(nil, dir + "/sub/", [log])?.contains("names no file") == true)
        // Outputs in a walked folder are skipped by the walk, not refused.
        #expect(refused(nil, dir + "/r.json", [dir]) == nil)
    }

    @Test("regular files are replaced (through a symlink: its target), FIFOs and devices written as they are")
    func methods() throws {
        let dir = temporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.json", withDestinationPath: "real.json")
        let linked = try OutputPlan.make(csv: nil, json: dir + "/link.json", arguments: [], usesStandardOutput: false).json!
        #expect(linked.method == .replace)
        #expect(linked.path == FilePaths.canonical(dir) + "/real.json")
        #expect(mkfifo(dir + "/out.fifo", 0o644) == 0)
        #expect(try OutputPlan.make(csv: nil, json: dir + "/out.fifo", arguments: [], usesStandardOutput: false).json!.method == .direct)
        // A device node of the test's own when it may make one (root).
        let device = mknod(dir + "/null.dev", S_IFCHR | 0o666, 0x103) == 0 ? dir + "/null.dev" : "/dev/null"
        #expect(try OutputPlan.make(csv: nil, json: device, arguments: [], usesStandardOutput: false).json!.method == .direct)
        #expect(try OutputPlan.make(csv: nil, json: "-", arguments: [], usesStandardOutput: true).json!.method == .standardOutput)
        let csv = try OutputPlan.make(csv: dir + "/new/deeper", json: nil, arguments: [], usesStandardOutput: false)
        #expect(FileIdentity.of(path: dir + "/new/deeper")?.isDirectory == true)
        #expect(csv.csvFiles.count == 3)
    }

    @Test("every output's missing parent folders are made, as --csv makes its folder")
    func missingFolders() throws {
        let dir = temporaryDirectory()
        let plan = try OutputPlan.make(
            csv: dir + "/csv/night", json: dir + "/json/a/r.json",
            files: [("--html", dir + "/html/b/r.html"), ("--metrics", dir + "/prom/m.prom"), ("--checkpoint", dir + "/state/c/ck")],
            arguments: [], usesStandardOutput: false)
        for folder in ["/csv/night", "/json/a", "/html/b", "/prom", "/state/c"] {
            #expect(FileIdentity.of(path: dir + folder)?.isDirectory == true, "\(folder)")
        }
        // The targets are resolved in the folders now made.
        #expect(plan.json?.path == FilePaths.canonical(dir) + "/json/a/r.json")
        #expect(plan.files["--html"]?.path == FilePaths.canonical(dir) + "/html/b/r.html")
        // Two spellings of one new file are still one file.
        #expect(refused(dir + "/x/y", dir + "/x/./y/sessions.csv", [])?.contains("same file") == true)
    }

    @Test("temporary names fit NAME_MAX and are recognised by the walk")
    func temporaryNames() {
        let long = String(repeating: "a", count: 245) + ".json"
        let name = FilePaths.temporaryName(for: long, pid: 123456)
        #expect(name.utf8.count <= FilePaths.nameMax)
        #expect(FilePaths.isTemporaryName(name, for: long))
        #expect(FilePaths.isTemporaryName(".sessions.csv.42.tmp", for: "sessions.csv"))
        #expect(!FilePaths.isTemporaryName(".sessions.csv.tmp", for: "sessions.csv"))
        #expect(!FilePaths.isTemporaryName(".other.csv.42.tmp", for: "sessions.csv"))
        #expect(!FilePaths.isTemporaryName("sessions.csv", for: "sessions.csv"))
    }

    @Test("one file under several paths is one input, named by the first path in sorted order")
    func inputsByInode() throws {
        let dir = temporaryDirectory()
        writeLog(["x"], named: "access.log.1", in: dir)
        try FileManager.default.createSymbolicLink(atPath: dir + "/current", withDestinationPath: "access.log.1")
        #expect(mkfifo(dir + "/pipe", 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: dir + "/gone", withDestinationPath: "nothing-here")
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: false)
        writeLog(["y"], named: "b.log", in: dir + "/sub")
        try FileManager.default.createSymbolicLink(atPath: dir + "/zlink", withDestinationPath: "sub")
        let walked = InputCatalog.resolve([dir], skipping: OwnOutputs())
        // The link to a directory is not followed; the directory itself is walked.
        #expect(walked.files.map(\.displayName) == [dir + "/access.log.1", dir + "/sub/b.log"])
        #expect(walked.notes.count == 3, "\(walked.notes)")
        #expect(walked.notes.contains { $0.contains("gone") && $0.contains("missing file") })
        #expect(walked.notes.contains { $0.contains("pipe") && $0.contains("FIFO") })
        #expect(walked.notes.contains { $0.contains("zlink") && $0.contains("not followed") })
        let named = InputCatalog.resolve([dir + "/current", dir + "/./access.log.1", dir + "/access.log.1"], skipping: OwnOutputs())
        #expect(named.files.map(\.displayName) == [dir + "/./access.log.1"])
    }
}
