@testable import TDLTerminal
import XCTest

final class TextFilterTests: XCTestCase {
    func testASCIITextMatchesInAnyCaseAnywhere() {
        let filter = TextFilter("SoNg 1")
        XCTAssertTrue(filter.matches("My song 12.mp3"))
        XCTAssertTrue(filter.matches("SONG 1"), "the whole name")
        XCTAssertTrue(filter.matches("über Song 1"), "after bytes of other scripts")
        XCTAssertFalse(filter.matches("song1"))
        XCTAssertFalse(filter.matches("son"), "shorter than the text")
        XCTAssertFalse(filter.matches(""))
    }

    func testTheMatchMayEndTheName() {
        XCTAssertTrue(TextFilter(".MP3").matches("a.mp3"))
        XCTAssertFalse(TextFilter(".mp3").matches("a.mp"))
    }

    func testOtherTextIsComparedLowercased() {
        XCTAssertTrue(TextFilter("ÜBER").matches("Über alpha.dat"))
        XCTAssertTrue(TextFilter("ωmega").matches("01 Ωmega 868.pdf"))
        XCTAssertFalse(TextFilter("über").matches("uber"))
    }

    func testEmptyTextMatchesEverything() {
        XCTAssertTrue(TextFilter("").matches("anything"))
        XCTAssertTrue(TextFilter("").isEmpty)
    }

    func testSignsAndDigitsMatchThemselves() {
        XCTAssertTrue(TextFilter("%20").matches("https://h/a%20b"))
        XCTAssertFalse(TextFilter("[").matches("{"), "only letters fold: [ is not { with a bit set")
        XCTAssertFalse(TextFilter("@").matches("`"))
    }
}

final class TextFilterURLTests: XCTestCase {
    func testAURLMatchesAsTheListShowsIt() {
        let url = "https://ann:SongBook@example.org/a/b.iso"
        XCTAssertFalse(TextFilter("songbook").matches(url: url), "the password is not shown, so not matched")
        XCTAssertTrue(TextFilter("ann:***@").matches(url: url), "what is shown instead")
        XCTAssertTrue(TextFilter("EXAMPLE.org/A").matches(url: url))
        XCTAssertTrue(TextFilter("HTTP").matches(url: "http://h/x"))
        XCTAssertFalse(TextFilter("@").matches(url: "https://h/x"))
        XCTAssertTrue(TextFilter("@").matches(url: "https://h/x@y"), "an @ in the path is shown as it is")
    }

    func testNonASCIITextInAURL() {
        XCTAssertTrue(TextFilter("ÜBER").matches(url: "https://h/über.iso"))
        XCTAssertFalse(TextFilter("über").matches(url: "https://u:über@h/a.iso"))
    }

    /// The word-at-a-time search against the plain definition: the text, ASCII case folded,
    /// at some place of the bytes. Random short texts over an alphabet where case, the 0x20
    /// bit and word boundaries all matter, so that a wrong shortcut shows.
    func testTheSearchAgreesWithTheDefinition() {
        let alphabet = Array("aAbBzZ@`[{ 0p%/.:".utf8)
        var random = SystemRandomNumberGenerator()
        func text(_ length: Int) -> [UInt8] { (0 ..< length).map { _ in alphabet.randomElement(using: &random)! } }
        func fold(_ b: UInt8) -> UInt8 { (65...90).contains(b) ? b | 0x20 : b }
        for _ in 0 ..< 20_000 {
            let haystack = text(Int.random(in: 0 ... 40, using: &random))
            let needle = text(Int.random(in: 1 ... 4, using: &random))
            let expected = haystack.count >= needle.count && (0 ... haystack.count - needle.count).contains { start in
                needle.indices.allSatisfy { fold(haystack[start + $0]) == fold(needle[$0]) }
            }
            let name = String(decoding: haystack, as: UTF8.self), filter = TextFilter(String(decoding: needle, as: UTF8.self))
            XCTAssertEqual(filter.matches(name), expected, "\(needle) in \(name)")
            if !haystack.contains(UInt8(ascii: "@")) {
                XCTAssertEqual(filter.matches(url: name), expected, "\(needle) in the URL \(name)")
            }
        }
    }
}
