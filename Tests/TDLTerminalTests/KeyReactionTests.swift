import Foundation
import TDLCore
import XCTest
@testable import TDLTerminal

/// Each key against a real manager: what it changes, what it says, and what it asks the loop
/// to do next (draw, read the rows again, save, quit).
final class KeyReactionTests: XCTestCase {
    func testMovingTheSelectionOnlyRedraws() throws {
        let screen = try ScreenFixture([("a.bin", .paused), ("b.bin", .paused), ("c.bin", .paused)])
        XCTAssertEqual(screen.rowNames, ["a.bin", "b.bin", "c.bin"])
        XCTAssertEqual(screen.press("j"), .redraw)
        XCTAssertEqual(screen.state.rows.currentURL, ScreenFixture.url("b.bin"))
        XCTAssertEqual(screen.press("G"), .redraw)
        XCTAssertEqual(screen.press("j"), .redraw, "the last row stays selected")
        XCTAssertEqual(screen.state.rows.currentURL, ScreenFixture.url("c.bin"))
        XCTAssertEqual(screen.press("g"), .redraw)
        XCTAssertEqual(screen.state.rows.selected, 0)
    }

    func testAKeyThatDoesNothingDrawsOnlyToClearTheMessage() throws {
        let screen = try ScreenFixture([("a.bin", .paused)])
        XCTAssertEqual(screen.press("Z"), [])
        screen.state.say("paused 1 download")
        XCTAssertEqual(screen.press("Z"), .redraw)
        XCTAssertEqual(screen.state.message, "")
    }

    func testQuitRedrawAndResize() throws {
        let screen = try ScreenFixture([])
        XCTAssertEqual(screen.press("q"), .quit)
        XCTAssertEqual(screen.press("^L"), [.redraw, .repaint])
        screen.state.say("kept")
        XCTAssertEqual(screen.press(.special(Curses.keyResize)), [.redraw, .repaint])
        XCTAssertEqual(screen.state.message, "kept", "a resize is no answer to the message")
    }

    func testPausingSavesButKeepsTheRows() throws {
        let screen = try ScreenFixture([("a.bin", .waiting), ("b.bin", .waiting)])
        XCTAssertEqual(screen.press("p"), [.redraw, .save])
        XCTAssertEqual(screen.manager.state(of: ScreenFixture.url("a.bin")), .paused)
        XCTAssertEqual(screen.state.message, "paused 1 download")
        XCTAssertEqual(screen.press("p"), [.redraw, .save])
        XCTAssertEqual(screen.manager.state(of: ScreenFixture.url("a.bin")), .waiting)
        XCTAssertEqual(screen.state.message, "resumed 1 download")
    }

    func testMarkedRowsAreWhatActionsApplyToAndEscUnmarksThem() throws {
        let screen = try ScreenFixture([("a.bin", .waiting), ("b.bin", .waiting), ("c.bin", .waiting)])
        screen.press("v")
        screen.press("j")
        screen.press("v")
        XCTAssertEqual(screen.state.rows.marked, [ScreenFixture.url("a.bin"), ScreenFixture.url("c.bin")])
        XCTAssertEqual(screen.press("p"), [.redraw, .save])
        XCTAssertEqual(["a.bin", "b.bin", "c.bin"].map { screen.manager.state(of: ScreenFixture.url($0)) }, [.paused, .waiting, .paused])
        XCTAssertEqual(screen.press("Esc"), .redraw)
        XCTAssertEqual(screen.state.rows.marked, [])
    }

    // MARK: - Deleting and restarting

    func testDeletingMovesToTheTrashAndAsksForNewRowsAndASave() throws {
        let screen = try ScreenFixture([("a.bin", .paused), ("b.bin", .paused)])
        XCTAssertEqual(screen.press("d"), .listEdited)
        XCTAssertEqual(screen.manager.toDeleteList, [ScreenFixture.url("a.bin")])
        XCTAssertEqual(screen.state.message, "moved 1 download to the trash (t shows it, u restores)")
        XCTAssertEqual(screen.rowNames, ["b.bin"])
        XCTAssertEqual(screen.state.rows.currentURL, ScreenFixture.url("b.bin"))
    }

    func testWithoutATrashAFinishedFileGoesOnlyAfterAYes() throws {
        let screen = try ScreenFixture([("done.bin", .finished)], trash: false)
        let url = ScreenFixture.url("done.bin")
        XCTAssertEqual(screen.press("d"), .redraw)
        XCTAssertEqual(screen.state.prompt, .question(.deleteWithFiles([url])))
        XCTAssertEqual(screen.press("n"), .redraw)
        XCTAssertNil(screen.state.prompt)
        XCTAssertEqual(screen.state.message, "nothing deleted")
        XCTAssertNotNil(screen.manager.task(url))

        screen.press("d")
        XCTAssertEqual(screen.press("y"), .listEdited)
        XCTAssertNil(screen.state.prompt)
        XCTAssertEqual(screen.state.message, "deleted 1 download")
        XCTAssertNil(screen.manager.task(url))
        XCTAssertFalse(FileManager.default.fileExists(atPath: screen.path("done.bin")))
        XCTAssertEqual(screen.rowNames, [])
    }

    func testRestartingAFinishedDownloadIsAQuestionOfItsOwn() throws {
        let screen = try ScreenFixture([("done.bin", .finished)])
        let url = ScreenFixture.url("done.bin")
        XCTAssertEqual(screen.press("r"), .redraw)
        XCTAssertEqual(screen.state.prompt, .question(.restartFinished([url])))
        XCTAssertEqual(screen.state.prompt?.line, "Restart deletes the downloaded file. Restart 1 download? (y/n) ")
        XCTAssertEqual(screen.press("Esc"), .redraw, "any key but y is a no")
        XCTAssertEqual(screen.state.message, "nothing restarted")
        XCTAssertEqual(screen.manager.state(of: url), .finished)

        screen.press("r")
        XCTAssertEqual(screen.press("Y"), .listEdited)
        XCTAssertEqual(screen.state.message, "restarted 1 download")
        XCTAssertEqual(screen.manager.state(of: url), .waiting)
        XCTAssertEqual(screen.manager.toDeleteList, [], "a restart deletes nothing from the list")
    }

    func testRestartingAnUnfinishedDownloadNeedsNoQuestion() throws {
        let screen = try ScreenFixture([("stopped.bin", .stopped)])
        XCTAssertEqual(screen.press("r"), .listEdited)
        XCTAssertNil(screen.state.prompt)
        XCTAssertEqual(screen.state.message, "restarted 1 download")
    }

    func testInTheTrashDeleteIsForGoodAndRestoreBringsBack() throws {
        let screen = try ScreenFixture([("a.bin", .paused), ("b.bin", .paused)])
        XCTAssertEqual(screen.press("u"), .redraw)
        XCTAssertEqual(screen.state.message, "u restores from the trash: press t to open it")
        screen.press("d")
        screen.press("d")
        XCTAssertEqual(screen.press("t"), [.redraw, .rebuildRows])
        XCTAssertEqual(screen.state.view, .trash)
        XCTAssertEqual(screen.rowNames, ["b.bin", "a.bin"], "the newest first")

        XCTAssertEqual(screen.press("d"), .redraw)
        XCTAssertEqual(screen.state.prompt, .question(.deleteFromTrash([ScreenFixture.url("b.bin")])))
        XCTAssertEqual(screen.press("y"), .listEdited)
        XCTAssertEqual(screen.state.message, "deleted 1 download for good")
        XCTAssertNil(screen.manager.task(ScreenFixture.url("b.bin")))

        XCTAssertEqual(screen.press("u"), .listEdited)
        XCTAssertEqual(screen.state.message, "restored 1 download")
        XCTAssertEqual(screen.rowNames, [])
        screen.press("t")
        XCTAssertEqual(screen.rowNames, ["a.bin"])
    }

    // MARK: - Prompts

    func testAddingSelectsTheNewRowAndSaves() throws {
        let screen = try ScreenFixture([("a.bin", .paused)])
        XCTAssertEqual(screen.press("a"), .redraw)
        XCTAssertEqual(screen.state.prompt, .text(TextEntry(purpose: .addURLs)))
        XCTAssertEqual(screen.type("https://example.com/new.iso"), .redraw)
        XCTAssertEqual(screen.state.prompt?.line, "Add URL(s): https://example.com/new.iso")
        XCTAssertEqual(screen.press("Enter"), .listEdited)
        XCTAssertNil(screen.state.prompt)
        XCTAssertEqual(screen.state.message, "added 1 download")
        XCTAssertEqual(screen.state.rows.currentURL, "https://example.com/new.iso")
    }

    func testAnEmptyAddOnlySaysSo() throws {
        let screen = try ScreenFixture([])
        screen.press("a")
        XCTAssertEqual(screen.press("Enter"), .redraw)
        XCTAssertEqual(screen.state.message, "no URL given")
    }

    func testKeysTypedAtAPromptNeverReachTheList() throws {
        let screen = try ScreenFixture([("a.bin", .paused)])
        screen.press("a")
        XCTAssertEqual(screen.type("qd"), .redraw)
        XCTAssertEqual(screen.state.prompt?.line, "Add URL(s): qd")
        XCTAssertEqual(screen.press("Backspace"), .redraw)
        XCTAssertEqual(screen.state.prompt?.line, "Add URL(s): q")
        XCTAssertEqual(screen.press("Esc"), .redraw)
        XCTAssertNil(screen.state.prompt)
        XCTAssertEqual(screen.manager.toDeleteList, [])
    }

    func testTheFilterRebuildsTheRowsAsItIsTyped() throws {
        let screen = try ScreenFixture([("apple.bin", .paused), ("banana.bin", .paused)])
        screen.press("/")
        XCTAssertEqual(screen.type("ban"), [.redraw, .rebuildRows])
        XCTAssertEqual(screen.rowNames, ["banana.bin"])
        XCTAssertEqual(screen.press("Enter"), [.redraw, .rebuildRows])
        XCTAssertEqual(screen.state.filterText, "ban")
        screen.press("/")
        XCTAssertEqual(screen.state.prompt?.line, "Filter: ban", "the filter opens with the text it has")
    }

    func testRenamingATaskAsksWithItsNameAndSaves() throws {
        let screen = try ScreenFixture([("a.bin", .paused)])
        XCTAssertEqual(screen.press("e"), .redraw)
        XCTAssertEqual(screen.state.prompt, .text(TextEntry(purpose: .rename(ScreenFixture.url("a.bin")), text: "a.bin")))
        screen.type("x")
        XCTAssertEqual(screen.press("Enter"), .listEdited)
        XCTAssertEqual(screen.rowNames, ["a.binx"])
    }

    func testABadRateIsAnErrorAndAGoodOneIsSaved() throws {
        let screen = try ScreenFixture([])
        screen.press("L")
        screen.type("fast")
        XCTAssertEqual(screen.press("Enter"), .redraw)
        XCTAssertEqual(screen.state.message, "\"fast\" is not a rate (try 500K or 2M)")
        XCTAssertTrue(screen.state.messageIsError)
        screen.press("L")
        screen.type("2M")
        XCTAssertEqual(screen.press("Enter"), [.redraw, .save])
        XCTAssertFalse(screen.state.messageIsError)
        XCTAssertEqual(screen.manager.settings.globalRateLimit, 2 * 1024 * 1024)
    }

    // MARK: - Text views

    func testDetailsAndHelpScrollAndCloseBackToTheList() throws {
        let screen = try ScreenFixture([("a.bin", .paused)])
        XCTAssertEqual(screen.press("Enter"), .redraw)
        XCTAssertEqual(screen.state.view, .details(ScreenFixture.url("a.bin")))
        XCTAssertEqual(screen.press("q"), [.redraw, .rebuildRows])
        XCTAssertEqual(screen.state.view, .list)

        XCTAssertEqual(screen.press("?"), .redraw)
        XCTAssertEqual(screen.state.view, .help)
        XCTAssertEqual(screen.press("j"), .redraw)
        XCTAssertEqual(screen.state.pager.top, 1)
        screen.press("d")
        XCTAssertEqual(screen.manager.toDeleteList, [], "list actions do nothing in a text view")
        XCTAssertEqual(screen.press("Esc"), [.redraw, .rebuildRows])
        XCTAssertEqual(screen.state.view, .list)
    }

    // MARK: - The manager's events

    func testEventsAskForRowsOrSayWhatWentWrong() throws {
        let screen = try ScreenFixture([("a.bin", .paused)])
        let events = EventHandler(manager: screen.manager, state: screen.state)
        XCTAssertEqual(events.handle(.listChanged), [.redraw, .rebuildRows])
        XCTAssertEqual(events.handle(.taskChanged(ScreenFixture.url("a.bin"))), .redraw)
        XCTAssertEqual(screen.state.message, "")
        XCTAssertEqual(events.handle(.saveFailed("could not save the session: disk full")), .redraw)
        XCTAssertEqual(screen.state.message, "could not save the session: disk full")
        XCTAssertTrue(screen.state.messageIsError)
    }
}
