@testable import TDLCore
import XCTest

final class LocalPathTests: XCTestCase {
    func testTheLastComponentIsTheBytesAfterTheLastSlash() {
        XCTAssertEqual(LocalPath.lastComponent(of: "/tmp/dl/a.bin"), "a.bin")
        XCTAssertEqual(LocalPath.lastComponent(of: "a.bin"), "a.bin")
        XCTAssertEqual(LocalPath.lastComponent(of: "/tmp/é/ñ b.bin"), "ñ b.bin")
        // A name that begins with a combining mark: "/" and the mark are one character.
        XCTAssertEqual(LocalPath.lastComponent(of: "/tmp/dl/\u{301}x.bin"), "\u{301}x.bin")
    }
}
