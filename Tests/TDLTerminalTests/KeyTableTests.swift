import Foundation
import XCTest
@testable import TDLTerminal

/// The README's key table is `Action.markdownTable` (`tdl debug keys-markdown` prints it): this
/// test fails when a key or its help text changes and the README does not.
final class KeyTableTests: XCTestCase {
    func testTheReadmeKeyTableIsTheOneTheKeysMake() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let section = try XCTUnwrap(lines.firstIndex(of: "### Keys"), "README.md has no ### Keys section")
        let tableLines = lines[(section + 1)...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        XCTAssertEqual(tableLines.joined(separator: "\n"), Action.markdownTable,
                       "README.md's key table differs from the keys: paste `tdl debug keys-markdown` into it")
    }

    func testEveryKeyHasOneAction() {
        let keys = Action.allCases.flatMap(\.keys)
        XCTAssertEqual(keys.count, Set(keys).count, "a key is declared twice")
    }
}
