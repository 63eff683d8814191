/// What was read: docs/contract.md §5's input accounting.
package struct InputAccounting: Sendable, Codable, Equatable {
    /// How many malformed lines are listed by `FILE:LINE`.
    package static let exampleLimit = 5

    package var files = 0
    /// Inputs that could not be read completely (missing, unreadable,
    /// unsupported compression, damaged gzip).
    package var filesWithErrors = 0
    package var compressedBytes: UInt64 = 0
    package var uncompressedBytes: UInt64 = 0
    package var lines = 0
    package var blankLines = 0
    package var records = 0
    package var malformedLines = 0
    package var malformedByReason: [String: Int] = [:]
    /// The first malformed lines: `FILE:LINE: reason`.
    package var malformedExamples: [String] = []
    /// Lines a server writes that are not requests (HAProxy's messages,
    /// error logs): understood, not audited, by what they are.
    package var notices = 0
    package var noticesByKind: [String: Int] = [:]
    package var inScopeFlipRecords = 0
    package var otherOAuthRecords = 0
    /// Records that are not requests but carry a return-shaped Location.
    package var returnRecords = 0
    /// Flip records that came more than the reorder window behind the
    /// newest flip record of their input (put in time order by the sorting pass).
    package var outOfOrderRecords = 0
    /// Records older than the checkpoint's watermark by more than the
    /// reorder window: left out of the audit (docs/contract.md §9).
    package var lateRecords = 0
    /// The first late records: `FILE:LINE: why`.
    package var lateExamples: [String] = []
    /// Flip records whose line bytes equal those of a record in another
    /// input, or of one the previous run audited: audited once.
    package var duplicateRecords = 0
    /// Records outside `--since`/`--until`: read, not audited.
    package var outsideRecords = 0

    package init() {}

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
        case notices
        case noticesByKind = "notices_by_kind"
        case inScopeFlipRecords = "in_scope_flip_records"
        case otherOAuthRecords = "other_oauth_records"
        case returnRecords = "return_records"
        case outOfOrderRecords = "out_of_order_records"
        case lateRecords = "late_records"
        case lateExamples = "late_examples"
        case duplicateRecords = "duplicate_records"
        case outsideRecords = "outside_window_records"
    }

    /// Adds `other`'s counts. Sums stop at the largest value rather than
    /// overflow: the distributed merge adds up counts read back from
    /// other processes' lines.
    package mutating func add(_ other: InputAccounting) {
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
        sum(&notices, other.notices)
        for (k, v) in other.noticesByKind { sum(&noticesByKind[k, default: 0], v) }
        sum(&inScopeFlipRecords, other.inScopeFlipRecords)
        sum(&otherOAuthRecords, other.otherOAuthRecords)
        sum(&returnRecords, other.returnRecords)
        sum(&outOfOrderRecords, other.outOfOrderRecords)
        sum(&lateRecords, other.lateRecords)
        lateExamples.append(contentsOf: other.lateExamples.prefix(max(0, Self.exampleLimit - lateExamples.count)))
        sum(&duplicateRecords, other.duplicateRecords)
        sum(&outsideRecords, other.outsideRecords)
    }
}

/// What one input turned out to be.
package struct FileSummary: Sendable, Codable, Equatable {
    package var name: String
    /// `gzip` or `plain`.
    package var encoding: String
    /// What its records were read as: `combined`, `json`, `nginx`, `mixed`
    /// (JSON and combined lines both, under `--format auto`), `none` (no
    /// line parsed), or `empty` (no line but blank ones).
    package var format: String
    package var lines: Int
    /// Its records and malformed lines (its non-blank lines, together):
    /// the share understood (nil in reports of older versions).
    package var records: Int?
    package var malformedLines: Int?
    package var logsLocation: Bool
    /// Why the input could not be read completely, if so.
    package var error: String?
    /// When most of its lines were malformed: the share, and the format
    /// that would read them, if one does (docs/contract.md §2).
    package var hint: String?
    /// Lines that ended in CRLF, read as LF (absent when none did).
    package var crlfLines: Int?
    /// True when its last line had no newline after it (absent otherwise).
    package var noFinalNewline: Bool?
    /// Malformed lines that were read in a format and refused for their
    /// time (in the future): understood, not audited (absent when none).
    package var refusedLines: Int?
    /// Lines that are a server's notices, not requests (absent when none).
    package var notices: Int?

    enum CodingKeys: String, CodingKey {
        case name, encoding, format, lines, records, error, hint
        case malformedLines = "malformed_lines"
        case logsLocation = "logs_location"
        case crlfLines = "crlf_lines"
        case noFinalNewline = "no_final_newline"
        case refusedLines = "refused_lines"
        case notices
    }

    package init(
        name: String, encoding: String, format: String, lines: Int, logsLocation: Bool, error: String?, hint: String?,
        crlfLines: Int? = nil, noFinalNewline: Bool? = nil, records: Int? = nil, malformedLines: Int? = nil,
        refusedLines: Int? = nil, notices: Int? = nil
    ) {
        self.refusedLines = refusedLines.flatMap { $0 > 0 ? $0 : nil }
        self.notices = notices.flatMap { $0 > 0 ? $0 : nil }
        self.records = records
        self.malformedLines = malformedLines
        self.crlfLines = crlfLines
        self.noFinalNewline = noFinalNewline
        self.name = name
        self.encoding = encoding
        self.format = format
        self.lines = lines
        self.logsLocation = logsLocation
        self.error = error
        self.hint = hint
    }
}
