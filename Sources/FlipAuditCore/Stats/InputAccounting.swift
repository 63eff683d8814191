/// What was read: docs/contract.md §5's input accounting.
public struct InputAccounting: Sendable, Codable, Equatable {
    /// How many malformed lines are listed by `FILE:LINE`.
    public static let exampleLimit = 5

    public var files = 0
    /// Inputs that could not be read completely (missing, unreadable,
    /// unsupported compression, damaged gzip).
    public var filesWithErrors = 0
    public var compressedBytes: UInt64 = 0
    public var uncompressedBytes: UInt64 = 0
    public var lines = 0
    public var blankLines = 0
    public var records = 0
    public var malformedLines = 0
    public var malformedByReason: [String: Int] = [:]
    /// The first malformed lines: `FILE:LINE: reason`.
    public var malformedExamples: [String] = []
    public var inScopeFlipRecords = 0
    public var otherOAuthRecords = 0
    /// Records that are not requests but carry a return-shaped Location.
    public var returnRecords = 0
    /// Flip records that came more than the reorder window behind the
    /// newest flip record of their input (put in time order by the sorting pass).
    public var outOfOrderRecords = 0
    /// Records older than the checkpoint's watermark by more than the
    /// reorder window: left out of the audit (docs/contract.md §9).
    public var lateRecords = 0
    /// The first late records: `FILE:LINE: why`.
    public var lateExamples: [String] = []
    /// Flip records whose line bytes equal those of a record in another
    /// input, or of one the previous run audited: audited once.
    public var duplicateRecords = 0

    public init() {}

    /// snake_case in the JSON report, like its other keys.
    enum CodingKeys: String, CodingKey {
        case files, lines, records
        case filesWithErrors = "files_with_errors"
        case compressedBytes = "compressed_bytes"
        case uncompressedBytes = "uncompressed_bytes"
        case blankLines = "blank_lines"
        case malformedLines = "malformed_lines"
        case malformedByReason = "malformed_by_reason"
        case malformedExamples = "malformed_examples"
        case inScopeFlipRecords = "in_scope_flip_records"
        case otherOAuthRecords = "other_oauth_records"
        case returnRecords = "return_records"
        case outOfOrderRecords = "out_of_order_records"
        case lateRecords = "late_records"
        case lateExamples = "late_examples"
        case duplicateRecords = "duplicate_records"
    }

    /// Adds `other`'s counts. Sums stop at the largest value rather than
    /// overflow: the distributed merge adds up counts read back from
    /// other processes' lines.
    mutating func add(_ other: InputAccounting) {
        func sum<N: FixedWidthInteger>(_ a: inout N, _ b: N) {
            let (s, overflow) = a.addingReportingOverflow(b)
            a = overflow ? .max : s
        }
        sum(&files, other.files)
        sum(&filesWithErrors, other.filesWithErrors)
        sum(&compressedBytes, other.compressedBytes)
        sum(&uncompressedBytes, other.uncompressedBytes)
        sum(&lines, other.lines)
        sum(&blankLines, other.blankLines)
        sum(&records, other.records)
        sum(&malformedLines, other.malformedLines)
        for (k, v) in other.malformedByReason { sum(&malformedByReason[k, default: 0], v) }
        malformedExamples.append(contentsOf: other.malformedExamples.prefix(max(0, Self.exampleLimit - malformedExamples.count)))
        sum(&inScopeFlipRecords, other.inScopeFlipRecords)
        sum(&otherOAuthRecords, other.otherOAuthRecords)
        sum(&returnRecords, other.returnRecords)
        sum(&outOfOrderRecords, other.outOfOrderRecords)
        sum(&lateRecords, other.lateRecords)
        lateExamples.append(contentsOf: other.lateExamples.prefix(max(0, Self.exampleLimit - lateExamples.count)))
        sum(&duplicateRecords, other.duplicateRecords)
    }
}

/// What one input turned out to be.
public struct FileSummary: Sendable, Codable, Equatable {
    public var name: String
    /// `gzip` or `plain`.
    public var encoding: String
    /// What its records were read as: `combined`, `json`, `nginx`, `mixed`
    /// (JSON and combined lines both, under `--format auto`), `none` (no
    /// line parsed), or `empty` (no line but blank ones).
    public var format: String
    public var lines: Int
    public var logsLocation: Bool
    /// Why the input could not be read completely, if so.
    public var error: String?
    /// When most of its lines were malformed: the share, and the format
    /// that would read them, if one does (docs/contract.md §2).
    public var hint: String?

    enum CodingKeys: String, CodingKey {
        case name, encoding, format, lines, error, hint
        case logsLocation = "logs_location"
    }
}
