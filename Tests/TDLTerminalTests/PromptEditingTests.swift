import Foundation
import TDLCore
import XCTest
@testable import TDLTerminal

/// The prompt line as readline users expect it: a cursor, cuts, history, pastes that stay
/// text, and Esc that puts back what was there.
final class PromptEditingTests: XCTestCase {
    var entry: (ScreenFixture) -> TextEntry? = { screen in
        if case .text(let entry)? = screen.state.prompt { return entry }
        return nil
    }

    func testTheCursorMovesAndTypingGoesWhereItIs() throws {
        let screen = try ScreenFixture([])
        screen.press("L")
        screen.type("hello world")
        XCTAssertEqual(entry(screen)?.cursor, 11)
        for _ in 0..<5 { screen.press("Left") }
        screen.type("big ")
        XCTAssertEqual(entry(screen)?.text, "hello big world")
        XCTAssertEqual(entry(screen)?.cursor, 10)
        screen.press("^A")
        XCTAssertEqual(entry(screen)?.cursor, 0)
        XCTAssertEqual(screen.press("Left"), [], "nothing left of the start: nothing to draw")
        screen.press("Del")
        XCTAssertEqual(entry(screen)?.text, "ello big world")
        screen.press("End")
        XCTAssertEqual(entry(screen)?.cursor, 14)
        screen.press("Home")
        screen.press("Right")
        screen.press("^E")
        XCTAssertEqual(entry(screen)?.cursor, 14)
        screen.press("Backspace")
        XCTAssertEqual(entry(screen)?.text, "ello big worl")
    }

    func testCtrlWCtrlUAndCtrlKCutAsInAShell() throws {
        let screen = try ScreenFixture([])
        screen.press("a")
        screen.type("one two  three")
        screen.press("^W")
        XCTAssertEqual(entry(screen)?.text, "one two  ")
        screen.press("^W")
        XCTAssertEqual(entry(screen)?.text, "one ", "the blanks before the cursor go with the word")
        screen.type("two three")
        for _ in 0..<6 { screen.press("Left") }
        screen.press("^K")
        XCTAssertEqual(entry(screen)?.text, "one two")
        screen.press("Left")
        screen.press("^U")
        XCTAssertEqual(entry(screen)?.text, "o")
        XCTAssertEqual(entry(screen)?.cursor, 0)
    }

    func testUpAndDownBringBackEarlierEntriesOfTheSameKind() throws {
        let screen = try ScreenFixture([])
        for rate in ["2M", "500K"] {
            screen.press("L")
            screen.type(rate)
            screen.press("Enter")
        }
        screen.press("/")
        screen.type("zip")
        screen.press("Enter")
        screen.press("L")
        screen.type("1")
        screen.press("Up")
        XCTAssertEqual(entry(screen)?.text, "500K")
        XCTAssertEqual(entry(screen)?.cursor, 4)
        screen.press("Up")
        XCTAssertEqual(entry(screen)?.text, "2M")
        XCTAssertEqual(screen.press("Up"), [], "the oldest stays")
        screen.press("Down")
        XCTAssertEqual(entry(screen)?.text, "500K")
        screen.press("Down")
        XCTAssertEqual(entry(screen)?.text, "1", "past the newest: what was typed")
        screen.press("Esc")
        screen.press("a")
        XCTAssertEqual(screen.press("Up"), [], "the add prompt has its own history, empty so far")
        screen.press("Esc")
        screen.press("/")
        screen.press("Up")
        XCTAssertEqual(entry(screen)?.text, "zip")
    }

    func testAPasteIsTextAndItsLinesAreSeparateURLs() throws {
        let screen = try ScreenFixture([])
        screen.press("a")
        XCTAssertEqual(screen.press(.paste("https://example.com/1.iso\nhttps://example.com/2.iso\r\nhttps://example.com/3.iso\n")), .redraw)
        XCTAssertEqual(screen.state.prompt?.line, "Add URL(s): https://example.com/1.iso https://example.com/2.iso https://example.com/3.iso")
        XCTAssertEqual(screen.press("Enter"), .listEdited)
        XCTAssertEqual(screen.state.message, "added 3 downloads")
        XCTAssertEqual(screen.rowNames, ["1.iso", "2.iso", "3.iso"])
    }

    func testAPasteInTheListOpensTheAddPromptAndNeverAnswersAQuestion() throws {
        let screen = try ScreenFixture([("done.bin", .finished)])
        XCTAssertEqual(screen.press(.paste("https://example.com/new.iso\n")), .redraw)
        XCTAssertEqual(screen.state.prompt?.line, "Add URL(s): https://example.com/new.iso")
        screen.press("Esc")
        screen.press("r")
        screen.press(.paste("y"))
        XCTAssertEqual(screen.state.prompt, nil)
        XCTAssertEqual(screen.state.message, "nothing restarted", "a pasted y is no answer")
        XCTAssertEqual(screen.manager.state(of: ScreenFixture.url("done.bin")), .finished)
    }

    func testEscOnTheFilterPutsBackTheFilterThereWas() throws {
        let screen = try ScreenFixture([("apple.bin", .paused), ("banana.bin", .paused)])
        screen.press("/")
        screen.type("ban")
        screen.press("Enter")
        screen.press("/")
        for _ in 0..<3 { screen.press("Backspace") }
        screen.type("app")
        XCTAssertEqual(screen.rowNames, ["apple.bin"])
        XCTAssertEqual(screen.press("Esc"), [.redraw, .rebuildRows])
        XCTAssertEqual(screen.state.filterText, "ban")
        XCTAssertEqual(screen.rowNames, ["banana.bin"])
    }

    func testTheCursorStaysInSightOnALongLine() {
        var long = TextEntry(purpose: .addURLs, text: String(repeating: "x", count: 100))
        var line = ScreenDrawer.promptLine(.text(long), width: 40)
        XCTAssertEqual(line.cursor, 38)
        XCTAssertTrue(line.text.hasPrefix("…"), line.text)
        XCTAssertLessThanOrEqual(ScreenText.width(line.text), 39)
        long.moveHome()
        line = ScreenDrawer.promptLine(.text(long), width: 40)
        XCTAssertEqual(line.cursor, 12, "just after the label")
        XCTAssertTrue(line.text.hasPrefix("Add URL(s): x"), line.text)
        XCTAssertEqual(ScreenDrawer.promptLine(.question(.restartFinished(["u"])), width: 80).cursor, nil)
    }
}
