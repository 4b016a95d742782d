import XCTest
import TDLCore

/// Rates from the command line, input files, the `L` key and RPC callers: one parser, one
/// unit system (the list's: K = 1000), and every value outside the range an error with words.
final class RateTextTests: XCTestCase {
    func testUnitsAreTheListsAndKiCountsThousandTwentyFours() throws {
        XCTAssertEqual(try RateText.parse("500K"), 500_000)
        XCTAssertEqual(ByteFormat.rate(try RateText.parse("500K")), "500.0 KB/s", "typed 500K, shown 500.0 KB/s")
        XCTAssertEqual(try RateText.parse("2M"), 2_000_000)
        XCTAssertEqual(try RateText.parse("1.5G"), 1_500_000_000)
        XCTAssertEqual(try RateText.parse("800"), 800)
        XCTAssertEqual(try RateText.parse(" 2mb/s "), 2_000_000)
        XCTAssertEqual(try RateText.parse("500KiB"), 512_000)
        XCTAssertEqual(try RateText.parse("2Mi"), 2 << 20)
        XCTAssertEqual(try RateText.parse("0"), 0, "0 is no limit")
        XCTAssertEqual(try RateText.parse("0.0K"), 0)
        XCTAssertEqual(try RateText.parse("1000G"), RateText.largest)
    }

    func testTooLargeTooSmallAndMalformedAreErrorsNotTraps() {
        for text in ["99999999999G", "9223372036854775807", "99999999999999999999999", "1001G", "9999999T", "1000.5G"] {
            XCTAssertThrowsError(try RateText.parse(text), text) { XCTAssertTrue("\($0)".contains("too large"), "\($0)") }
        }
        for text in ["0.0001K", "0.5", "0.0000000001G"] {
            XCTAssertThrowsError(try RateText.parse(text), text) { XCTAssertTrue("\($0)".contains("less than one byte"), "\($0)") }
        }
        for text in ["", "fast", "-1", "-5K", "1e9", "inf", "nan", "0x10", "1.2.3", ".", "K", "Ki", "5i", "1,5M", "١٢٣"] {
            XCTAssertThrowsError(try RateText.parse(text), text) { XCTAssertTrue("\($0)".contains("is not a rate"), "\($0)") }
        }
    }

    func testTheMessageShowsNoControlCharacters() {
        XCTAssertThrowsError(try RateText.parse("\u{1B}[2J\u{202E}fast")) { XCTAssertFalse("\($0)".contains("\u{1B}")) }
    }
}
