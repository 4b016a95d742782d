import Foundation
import XCTest
@testable import TDLTerminal
#if canImport(Glibc)
import Glibc
#endif

/// A headless screen gives ncurses its size through LINES and COLUMNS, and leaves them as they
/// were: a child started afterwards (a hook, a tmux server and the curses program in it) must
/// not take the screen's size for its own.
final class HeadlessEnvironmentTests: XCTestCase {
    func testLinesAndColumnsAreAsTheyWereAfterAHeadlessScreenStarts() throws {
        setenv("COLUMNS", "123", 1)
        unsetenv("LINES")
        defer { unsetenv("COLUMNS") }
        let curses = Curses(headless: (rows: 30, columns: 100), colors: false)
        defer { curses.end() }
        XCTAssertEqual(curses.columns, 100, "the screen has the size asked for")
        XCTAssertEqual(curses.rows, 30)
        XCTAssertNil(getenv("LINES"), "LINES was not set before")
        XCTAssertEqual(getenv("COLUMNS").map { String(cString: $0) }, "123", "COLUMNS keeps its value")
    }
}
