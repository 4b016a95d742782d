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

    /// Deleting a finished file from disk is its own key, and its question names the file.
    func testDeletingAFinishedFileIsItsOwnKeyAndNamesTheFile() throws {
        let screen = try ScreenFixture([("done.bin", .finished)])
        let url = ScreenFixture.url("done.bin")
        let path = screen.manager.task(url)!.filePath
        XCTAssertEqual(screen.press("D"), .redraw)
        XCTAssertEqual(screen.state.prompt?.line, "Delete \(path) from disk? (y/n) ")
        screen.press("n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        screen.press("D")
        XCTAssertEqual(screen.press("y"), .listEdited)
        XCTAssertEqual(screen.state.message, "deleted \(path)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertEqual(screen.manager.state(of: url), .stopped, "the download stays, without its file")
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

    func testEmptyingTheTrashAsksFirstAndDeletesEveryTrashedDownload() throws {
        let screen = try ScreenFixture([("a.bin", .paused), ("b.bin", .paused), ("c.bin", .paused)])
        XCTAssertEqual(screen.press("E"), .redraw)
        XCTAssertEqual(screen.state.message, "the trash is empty")
        screen.press("d")
        screen.press("d")
        XCTAssertEqual(screen.press("E"), [.redraw, .rebuildRows])
        XCTAssertEqual(screen.state.view, .trash, "what would go is shown while the question is asked")
        XCTAssertEqual(screen.state.prompt, .question(.deleteFromTrash([ScreenFixture.url("b.bin"), ScreenFixture.url("a.bin")])))
        screen.press("n")
        XCTAssertEqual(screen.manager.toDeleteList.count, 2, "no is no")
        screen.press("E")
        XCTAssertEqual(screen.press("y"), .listEdited)
        XCTAssertEqual(screen.state.message, "deleted 2 downloads for good")
        XCTAssertEqual(screen.manager.toDeleteList, [])
        XCTAssertNotNil(screen.manager.task(ScreenFixture.url("c.bin")), "the list keeps what was not in the trash")
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
        XCTAssertEqual(screen.state.message, "\"fast\" is not a rate: give a number with K, M or G, e.g. 500K, 2M or 1048576")
        XCTAssertTrue(screen.state.messageIsError)
        screen.press("L")
        screen.type("2M")
        XCTAssertEqual(screen.press("Enter"), [.redraw, .save])
        XCTAssertFalse(screen.state.messageIsError)
        XCTAssertEqual(screen.manager.settings.globalRateLimit, 2_000_000)
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

/// The filter and the marks as a person meets them: what the filter matches, what Esc takes
/// away, and marked rows the filter hides still counted and acted on.
final class FilterAndMarkTests: XCTestCase {
    func testTheFilterMatchesTheNameTheURLAndTheHost() throws {
        let screen = try ScreenFixture([("apple.bin", .paused), ("banana.bin", .paused)])
        screen.manager.add(["https://mirror.example.org/pub/linux.iso"])
        screen.state.readRows(from: screen.manager)
        screen.press("/")
        screen.type("mirror")
        XCTAssertEqual(screen.rowNames, ["linux.iso"], "by host")
        screen.press("Esc")
        screen.press("/")
        screen.type("files/b")
        XCTAssertEqual(screen.rowNames, ["banana.bin"], "by URL path")
        screen.press("Enter")
        screen.press("/")
        screen.press("^U")
        screen.type("APPLE")
        XCTAssertEqual(screen.rowNames, ["apple.bin"], "by name, any case")
    }

    func testTypingOnShowsWhatTheWholeFilterShows() throws {
        let screen = try ScreenFixture([("apple.bin", .paused), ("apricot.bin", .finished), ("grape.bin", .waiting),
                                        ("pineapple.bin", .failed), ("banana.bin", .paused)])
        screen.manager.add(["https://example.com/files/x1"], options: DownloadOptions(fileName: "Apple pie.txt"))
        screen.manager.setSectioning(true, for: .addTime)
        screen.state.readRows(from: screen.manager)
        screen.press("/")
        for (typed, text) in [("a", "a"), ("p", "ap"), ("P", "apP"), ("l", "apPl"), ("e", "apPle")] {
            screen.type(typed)
            XCTAssertEqual(screen.state.rows.entries, ListRenderer(manager: screen.manager).entries(filter: text), "after \(text)")
        }
        XCTAssertEqual(Set(screen.rowNames), ["apple.bin", "pineapple.bin", "Apple pie.txt"])
        XCTAssertTrue(screen.state.rows.entries.contains { $0.url == nil }, "with section headers and their counts")
    }

    func testATaskAddedWhileTypingIsFiltered() throws {
        let screen = try ScreenFixture([("apple.bin", .paused), ("banana.bin", .paused)])
        screen.press("/")
        screen.type("ap")
        screen.manager.add(["https://example.com/files/apricot.bin"])
        screen.type("r")
        XCTAssertEqual(screen.rowNames, ["apricot.bin"], "the list changed: the rows are read again, not narrowed")
    }

    func testEscClearsTheFilterFirstThenTheMarks() throws {
        let screen = try ScreenFixture([("apple.bin", .paused), ("banana.bin", .paused)])
        screen.press("v")
        screen.press("/")
        screen.type("ban")
        screen.press("Enter")
        XCTAssertEqual(screen.press("Esc"), [.redraw, .rebuildRows])
        XCTAssertEqual(screen.state.filterText, "")
        XCTAssertEqual(screen.state.message, "filter cleared")
        XCTAssertEqual(screen.rowNames, ["apple.bin", "banana.bin"])
        XCTAssertEqual(screen.state.rows.marked, [ScreenFixture.url("apple.bin")], "the marks stay")
        XCTAssertEqual(screen.press("Esc"), .redraw)
        XCTAssertEqual(screen.state.rows.marked, [])
        XCTAssertEqual(screen.press("Esc"), [], "nothing left to clear")
    }

    func testMarkedRowsHiddenByTheFilterAreActedOnAndNamed() throws {
        let screen = try ScreenFixture([("apple.bin", .waiting), ("apricot.bin", .waiting), ("banana.bin", .waiting)])
        screen.press("v")
        screen.press("v")
        screen.press("v")
        screen.press("/")
        screen.type("ban")
        screen.press("Enter")
        XCTAssertEqual(screen.rowNames, ["banana.bin"])
        XCTAssertEqual(screen.press("p"), [.redraw, .save])
        XCTAssertEqual(screen.state.message, "paused 3 downloads (2 hidden by the filter)")
        for name in ["apple.bin", "apricot.bin", "banana.bin"] {
            XCTAssertEqual(screen.manager.state(of: ScreenFixture.url(name)), .paused, name)
        }
        screen.press("d")
        XCTAssertEqual(screen.state.message, "moved 3 downloads (2 hidden by the filter) to the trash (t shows it, u restores)")
        XCTAssertEqual(screen.manager.toDeleteList.count, 3)
        XCTAssertEqual(screen.state.rows.marked, [], "gone from the list, gone from the marks")
    }
}

/// Sections arranged by hand: n inserts above the selected row, an empty one can go, a title
/// cannot be empty, and a sort does not drop titles without a yes.
final class SectionKeyTests: XCTestCase {
    func manual(_ names: [String]) throws -> ScreenFixture {
        let screen = try ScreenFixture(names.map { ($0, TaskState.paused) })
        screen.manager.arrange(.manual)
        screen.state.readRows(from: screen.manager)
        return screen
    }

    var listed: (ScreenFixture) -> [String] = { screen in
        screen.state.rows.entries.map { entry in
            switch entry {
            case .section(_, let title, let count): return "── \(title) (\(count))"
            case .task(let url): return screen.manager.displayName(of: url) ?? url
            }
        }
    }

    func testNInsertsASectionRightAboveTheSelectedRow() throws {
        let screen = try manual(["a.bin", "b.bin", "c.bin"])
        XCTAssertEqual(screen.state.rows.currentURL, ScreenFixture.url("a.bin"))
        screen.press("j")  // b.bin
        XCTAssertEqual(screen.press("n"), .redraw)
        screen.type("Later")
        XCTAssertEqual(screen.press("Enter"), .listEdited)
        XCTAssertEqual(listed(screen), ["── Downloads (1)", "a.bin", "── Later (2)", "b.bin", "c.bin"])
        XCTAssertEqual(screen.state.message, "new section \"Later\"")
        screen.press("g")
        screen.press("n")
        screen.type("First")
        screen.press("Enter")
        XCTAssertEqual(listed(screen), ["── First (0)", "── Downloads (1)", "a.bin", "── Later (2)", "b.bin", "c.bin"])
    }

    func testAnEmptyTitleIsRefused() throws {
        let screen = try manual(["a.bin"])
        screen.press("n")
        screen.type("  ")
        XCTAssertEqual(screen.press("Enter"), .redraw)
        XCTAssertEqual(screen.state.message, "a section needs a title: no section added")
        XCTAssertTrue(screen.state.messageIsError)
        XCTAssertEqual(screen.manager.sectionCount, 1)
        screen.press("g")
        screen.press("e")
        screen.press("^U")
        screen.press("Enter")
        XCTAssertEqual(screen.state.message, "a section needs a title: the title stays")
        XCTAssertEqual(screen.manager.titleForHeaderInSection(0), "Downloads")
    }

    func testDOnAnEmptySectionDeletesItAndOnAFullOneSaysWhy() throws {
        let screen = try manual(["a.bin"])
        screen.press("n")
        screen.type("Spare")
        screen.press("Enter")
        XCTAssertEqual(listed(screen), ["── Spare (0)", "── Downloads (1)", "a.bin"])
        screen.press("k")
        XCTAssertEqual(screen.press("d"), .redraw)
        XCTAssertEqual(screen.state.message, "section \"Downloads\" holds 1 download: move them out (J/K) or delete them first")
        XCTAssertEqual(screen.manager.toDeleteList, [])
        screen.press("g")
        XCTAssertEqual(screen.press("Del"), .listEdited)
        XCTAssertEqual(screen.state.message, "deleted section \"Spare\"")
        XCTAssertEqual(listed(screen), ["── Downloads (1)", "a.bin"])
    }

    func testLeavingManualOrderAsksWhenTitlesWouldBeLost() throws {
        let plain = try manual(["a.bin"])
        XCTAssertEqual(plain.press("s"), .listEdited, "one untouched section: nothing to lose")
        XCTAssertEqual(plain.manager.arrangement, .sorted(.addTime, .ascending))

        let screen = try manual(["a.bin", "b.bin"])
        screen.press("j")
        screen.press("n")
        screen.type("Later")
        screen.press("Enter")
        XCTAssertEqual(screen.press("s"), .redraw)
        XCTAssertEqual(screen.state.prompt?.line, "Sorting by add time drops your 2 sections and their titles. Sort? (y/n) ")
        XCTAssertEqual(screen.press("n"), .redraw)
        XCTAssertEqual(screen.state.message, "still in manual order")
        XCTAssertEqual([0, 1].map { screen.manager.titleForHeaderInSection($0) }, ["Downloads", "Later"])
        screen.press("s")
        XCTAssertEqual(screen.press("y"), .listEdited)
        XCTAssertEqual(screen.manager.arrangement, .sorted(.addTime, .ascending))
        XCTAssertEqual(screen.state.message, "sorted by add time")
    }
}

/// Numbers on the screen: an ETA that cannot be known says so the same way in the row and the header.
final class NumbersOnScreenTests: XCTestCase {
    func testAnUnknownETAIsADashInTheRowAndTheHeader() throws {
        let screen = try ScreenFixture([("a.bin", .waiting)])
        XCTAssertTrue(screen.manager.isBusy)
        let header = ListRenderer(manager: screen.manager).header(view: "Downloads", inTrash: false)
        XCTAssertEqual(header.speed?.full, "0 B/s ETA —", "a size not known yet: no made-up time")
        let row = RowLayout(width: 120).progress(0.5, received: 500, speed: 0, eta: nil)
        XCTAssertTrue(row.hasSuffix(" —"), row)
        XCTAssertTrue(RowLayout(width: 120).progress(0.5, received: 500, speed: 10, eta: 65).hasSuffix(" 1:05"))
    }
}

/// The message log (m) and the questions before bytes are thrown away.
final class MessageLogTests: XCTestCase {
    func testTheLogKeepsEveryMessageWithItsTimeAndRejectedURLsInFull() throws {
        let screen = try ScreenFixture([("a.bin", .waiting)])
        var clock = Date(timeIntervalSinceReferenceDate: 0)
        screen.state.now = { clock }
        screen.press("p")
        clock += 61
        let long = "ftp:/" + String(repeating: "x", count: 120)
        screen.press("a")
        screen.press(.paste(long))
        screen.press("Enter")
        XCTAssertTrue(screen.state.message.hasSuffix("(m shows them whole)"), screen.state.message)
        XCTAssertEqual(screen.press("m"), .redraw)
        XCTAssertEqual(screen.state.view, .messages)
        screen.state.pageWidth = 60
        let lines = screen.state.textLines(screen.manager)
        let stamp = { (date: Date) -> String in
            let formatter = DateFormatter()
            formatter.dateFormat = "HH:mm:ss"
            return formatter.string(from: date)
        }
        XCTAssertEqual(lines.first, stamp(Date(timeIntervalSinceReferenceDate: 0)) + "   paused 1 download")
        XCTAssertTrue(lines[1].hasPrefix(stamp(clock) + " ! \"ftp:/xxx"), lines[1])
        let rejected = lines.drop { !$0.contains("rejected ftp:/") }
        XCTAssertEqual(rejected.map { $0.dropFirst(11) }.joined().filter { $0 == "x" }.count, 120, "the whole URL, wrapped:\n\(lines.joined(separator: "\n"))")
        XCTAssertTrue(lines.allSatisfy { ScreenText.width($0) <= 58 }, lines.joined(separator: "\n"))
        XCTAssertEqual(screen.press("q"), [.redraw, .rebuildRows])
        XCTAssertEqual(screen.state.view, .list)
    }

    func testRestartAsksBeforeDiscardingPartialBytes() throws {
        let screen = try ScreenFixture([("half.bin", .stopped), ("none.bin", .stopped)], partial: ["half.bin"])
        XCTAssertEqual(screen.press("r"), .redraw)
        XCTAssertEqual(screen.state.prompt?.line, "Restart discards the 4.0 KB already downloaded. Restart 1 download? (y/n) ")
        screen.press("n")
        XCTAssertEqual(screen.state.message, "nothing restarted")
        XCTAssertEqual(screen.manager.task(ScreenFixture.url("half.bin"))?.received, 4_000)
        screen.press("r")
        XCTAssertEqual(screen.press("y"), .listEdited)
        XCTAssertEqual(screen.manager.state(of: ScreenFixture.url("half.bin")), .waiting)
        screen.press("j")
        XCTAssertEqual(screen.press("r"), .listEdited, "nothing to lose: no question")
    }
}
