import Testing

@testable import Reports

/// The summary's numbers and column widths.
@Suite("Terminal formatting")
struct TerminalFormattingTests {
    @Test("display columns: wide characters 2, combining marks 0")
    func widths() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("全角") == 4)
        #expect(DisplayWidth.of("ｆｕｌｌ") == 8)
        #expect(DisplayWidth.of("e\u{301}") == 1)
        let table = TerminalReport.table([["error", "count"], ["全角", "1"], ["access_denied", "22"]], indent: 0)
        let lines = table.split(separator: "\n").map(String.init)
        #expect(Set(lines.map(DisplayWidth.of)).count == 1, "\(lines)")
    }

    @Test("thousands separators and singular/plural")
    func numbers() {
        #expect(TerminalReport.number(0) == "0")
        #expect(TerminalReport.number(999) == "999")
        #expect(TerminalReport.number(1000) == "1,000")
        #expect(TerminalReport.number(1_234_567) == "1,234,567")
        #expect(TerminalReport.number(-1234) == "-1,234")
        #expect(TerminalReport.count(1, "session was", "sessions were") == "1 session was")
        #expect(TerminalReport.count(2000, "session was", "sessions were") == "2,000 sessions were")
    }
}
