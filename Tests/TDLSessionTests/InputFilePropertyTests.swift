import PropertyBased
import TDLCore
import TDLSession
import Testing

/// Random input files: reading one never traps, every number in it is taken only inside its
/// range, and a rate or a connection count written out reads back as itself.
@Suite struct InputFilePropertyTests {
    static let lineLike = Gen<Character?>.element(of: Array("http://a.example/ \t=\r\n#0123456789.KMGi-split=max-download-limit=") as [Character])
        .map { $0! }.string(of: 0...120)

    @Test func readingNeverTraps() async {
        await propertyCheck(count: 1000, input: Self.lineLike) { text in
            let input = InputFile(bytes: Array(text.utf8))
            for entry in input.entries {
                if let n = entry.options.connections { #expect((1...DownloadOptions.maxConnections).contains(n)) }
                if let rate = entry.options.rateLimit { #expect((0...RateText.largest).contains(rate)) }
            }
        }
    }

    @Test func numbersReadBackAsWritten() async {
        await propertyCheck(count: 300, input: Gen.int(in: -100...100), Gen.int64(in: -5...RateText.largest * 2)) { split, rate in
            let input = InputFile(bytes: Array("https://a.example/f\n  split=\(split)\n  max-download-limit=\(rate)\n".utf8))
            #expect(input.entries.first?.options.connections == ((1...32).contains(split) ? split : nil))
            #expect(input.entries.first?.options.rateLimit == ((0...RateText.largest).contains(rate) ? rate : nil))
        }
    }
}
