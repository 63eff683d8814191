import Reading
import Rules

/// Scans pieces for a `Feed`: a line splitter and a line scanner, kept by
/// one thread for a pass, whichever inputs its pieces are of. What the
/// scanner remembers of recent values (redirect URIs, client IDs, return
/// URLs and their verdicts) depends on the values alone, so which thread
/// scans which piece changes no result.
final class PieceScanner: PieceScanning {
    private var splitter: LineSplitter
    private var scanner: LineScanner
    /// The rank of the feed's first input: its events' file index.
    private let firstRank: Int
    /// Which reader reads each input of the feed (`--log-format GLOB=…`).
    private let readerIndices: [Int]

    /// `configuration`'s log formats must parse (`Analyzer.run` has
    /// checked them); `names` are the feed's inputs, as given.
    init(configuration: AuditConfiguration, firstRank: Int = 0, names: [String]) {
        splitter = LineSplitter(maxLine: configuration.maxLine)
        scanner = try! LineScanner(fileIndex: Int32(firstRank), configuration: configuration)
        self.firstRank = firstRank
        readerIndices = names.map(configuration.readerIndex(for:))
    }

    func scan(_ piece: PieceCutter.Piece, of input: Int, bytes: UnsafeRawBufferPointer, linesBefore: Int?) -> PieceScan {
        scanner.restart(fileIndex: Int32(firstRank + input), reader: readerIndices.indices.contains(input) ? readerIndices[input] : 0)
        scanner.linesBefore = linesBefore
        scanner.fields(piece.header)
        if let long = piece.leadingOverlong { scanner.overlongLine(number: 0, length: long) }
        splitter.feed(bytes, to: &scanner)
        if let end = piece.end {
            // A last line without a newline.
            splitter.finish(to: &scanner)
            if let long = end.trailingOverlong { scanner.overlongLine(number: 0, length: long) }
            if let cut = end.cutOff { scanner.cutOff(bytes: cut) }
        }
        return scanner.take()
    }

    static func lines(in scan: PieceScan) -> Int { scan.accounting.lines }

    static func weight(of scan: PieceScan) -> Int { scan.events.count }
}
