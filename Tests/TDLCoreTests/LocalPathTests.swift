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

    func testTheParentIsTheFolderBeforeTheLastComponent() {
        XCTAssertEqual(LocalPath.parent(of: "/home/u/.local/share/tdl"), "/home/u/.local/share")
        XCTAssertEqual(LocalPath.parent(of: "/home/u/tdl/"), "/home/u")
        XCTAssertEqual(LocalPath.parent(of: "/home//u"), "/home")
        XCTAssertEqual(LocalPath.parent(of: "/tdl"), "/")
        XCTAssertEqual(LocalPath.parent(of: "rel/tdl"), "rel")
        XCTAssertNil(LocalPath.parent(of: "/"))
        XCTAssertNil(LocalPath.parent(of: "tdl"))
        XCTAssertNil(LocalPath.parent(of: "a/"))
        XCTAssertNil(LocalPath.parent(of: ""))
        XCTAssertNil(LocalPath.parent(of: "//"))
        XCTAssertEqual(LocalPath.parent(of: "///a"), "/")
        XCTAssertEqual(LocalPath.parent(of: "/tmp/\u{301}x/tdl"), "/tmp/\u{301}x")
    }
}
