import PropertyBased
import TDLCore
import Testing

/// Random text into every parser of TDLCore that reads what comes from outside (rates,
/// headers, pasted curl commands, checksums, Content-Disposition): none may trap, and what a
/// parser accepts reads back the same. A failure prints the seed that reproduces it.
@Suite struct ParserPropertyTests {
    /// Text near what the parsers take (digits, units, separators, CR/LF/NUL), and any Latin-1.
    static let rateLike = Gen<Character?>.element(of: Array("0123456789.KMGTkmgtiIB/s -+e,x\r\n\0") as [Character])
        .map { $0! }.string(of: 0...24)
    static let anyText = Gen.latin1.string(of: 0...40)

    @Test func rateParsingNeverTraps() async {
        await propertyCheck(count: 2000, input: Self.rateLike) { text in
            if let rate = try? RateText.parse(text) { #expect((0...RateText.largest).contains(rate)) }
        }
        await propertyCheck(count: 500, input: Self.anyText) { text in _ = try? RateText.parse(text) }
    }

    @Test func everyRateReadsBackAsItsNumber() async {
        await propertyCheck(count: 1000, input: Gen.int64(in: 0...RateText.largest)) { n in
            #expect((try? RateText.parse(String(n))) == n)
            if n <= RateText.largest / 1000 { #expect((try? RateText.parse("\(n)K")) == n * 1000) }
            if n <= RateText.largest / 1024 { #expect((try? RateText.parse("\(n)KiB")) == n * 1024) }
        }
        await propertyCheck(count: 300, input: Gen.int64(in: (RateText.largest + 1)...Int64.max)) { n in
            #expect(throws: RateText.Problem.self) { try RateText.parse(String(n)) }
            #expect(throws: RateText.Problem.self) { try RateText.parse("\(n)G") }
        }
    }

    @Test func otherParsersOfOutsideTextNeverTrap() async {
        await propertyCheck(count: 1000, input: Self.anyText) { text in
            _ = Checksum(text)
            _ = try? CurlCommand.parse(text)
            _ = ContentDisposition.fileName(from: text)
            _ = TerminalText.clean(text)
        }
    }

    @Test func aHeaderValueIsRefusedExactlyWhenItHoldsCRLFOrNUL() async {
        await propertyCheck(count: 1000, input: Self.anyText) { text in
            let breaksTheLine = text.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
            #expect((RequestText.problem(inValue: text) != nil) == breaksTheLine)
            if breaksTheLine { #expect(RequestHeader.problem(with: "X-A: " + text) != nil) }
        }
    }
}
