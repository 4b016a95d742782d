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
