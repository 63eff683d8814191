/// An open session as a checkpoint keeps it: everything `Session` holds,
/// with its sources' files as indexes into `Checkpoint.files`
/// (`Session.carried` and `Session.init(carried:)` turn one into the
/// other). Its `session` line is `schema`: each field named once.
struct CarriedSession: Sendable, Equatable {
    var state: String
    var serial: Int
    var firstSeen: Int64
    var lastSeen: Int64
    var firstSource: SourceRef
    var lastLineInFirstFile: Int64
    var clientID: String?
    var redirectURI: String?
    var clientMismatch: Bool
    var clientIP: String
    var requestCount: Int
    var returnCount: Int
    var firstReturn: Session.FirstReturn?
    var failure: Session.Failure?
    var findings: [FindingKind]
    var codeKeys: [UInt64]
    var expiresAt: Int64
    /// Whether its request's file had logged a Location by its last record.
    var observable: Bool

    /// The fields of a `session` line, after its tag.
    static let schema = LineSchema<CarriedSession>("session", blank: blank, fields, check: consistent)

    private static let fields: [Field<CarriedSession>] = [
        Field("state", \.state, .text),
        Field("serial", \.serial, count),
        Field("first seen", \.firstSeen, .time),
        Field("last seen", \.lastSeen, .time),
        Field("first source", \.firstSource, .source),
        Field("last line", \.lastLineInFirstFile, .number),
        Field("client_id", \.clientID, .optionalText),
        Field("redirect_uri", \.redirectURI, .optionalText),
        Field("client mismatch", \.clientMismatch, .flag),
        Field("client IP", \.clientIP, .text),
        Field("request count", \.requestCount, count),
        Field("return count", \.returnCount, count),
        .group(
            "first return", \.firstReturn,
            blank: Session.FirstReturn(time: 0, source: SourceRef(file: 0, line: 0), hasCode: false, error: nil, errorDescription: nil),
            absent: "return fields without a return", firstReturn),
        .group("failure", \.failure, blank: (0, 0, SourceRef(file: 0, line: 0)), absent: "failure fields without a failure", failure),
        Field("findings", \.findings, .findingKinds),
        Field("code keys", \.codeKeys, codeKeys),
        Field("expiry", \.expiresAt, .time),
        Field("observable", \.observable, .flag),
    ]

    private static let firstReturn: [Field<Session.FirstReturn>] = [
        Field("return time", \.time, .time),
        Field("return source", \.source, .source),
        Field("has code", \.hasCode, .flag),
        Field("error", \.error, .optionalText),
        Field("error_description", \.errorDescription, .optionalText),
    ]

    private static let failure: [Field<Session.Failure>] = [
        Field("status", \.status, count.checked("bad failure status") { (400...999).contains($0) }),
        Field("failure time", \.time, .time),
        Field("failure source", \.source, .source),
    ]

    /// Serials and counts: below `Int32.max`.
    private static let count = FieldCodec<Int>.count(in: 0...(Int64(Int32.max) - 1), "bad NAME")

    private static let codeKeys = FieldCodec<[UInt64]>.list(
        separator: ",", "bad code key", element: { $0.utf8.count == 16 ? UInt64($0, radix: 16) : nil }, text: { Checkpoint.hex($0) })

    private static func consistent(_ s: CarriedSession) throws(TextFields.Malformed) {
        guard s.firstSeen <= s.lastSeen, s.requestCount >= 1, (s.returnCount == 0) == (s.firstReturn == nil) else {
            throw TextFields.Malformed(reason: "inconsistent session")
        }
    }

    /// What a `session` line is read into.
    private static let blank = CarriedSession(
        state: "", serial: 0, firstSeen: 0, lastSeen: 0, firstSource: SourceRef(file: 0, line: 0), lastLineInFirstFile: 0,
        clientID: nil, redirectURI: nil, clientMismatch: false, clientIP: "", requestCount: 0, returnCount: 0,
        firstReturn: nil, failure: nil, findings: [], codeKeys: [], expiresAt: 0, observable: false)

    static func == (a: Self, b: Self) -> Bool {
        var x: [UInt8] = [], y: [UInt8] = []
        schema.write(a, into: &x)
        schema.write(b, into: &y)
        return x == y
    }

    /// Reads the fields after the `session` tag; source files must be below
    /// `files`.
    static func decode(_ rest: ArraySlice<UInt8>, files: Int) throws(TextFields.Malformed) -> CarriedSession {
        let s = try schema.read(rest)
        for case let source? in [s.firstSource, s.firstReturn?.source, s.failure?.source] where source.file >= files {
            throw TextFields.Malformed(reason: "source names no listed file")
        }
        return s
    }
}
