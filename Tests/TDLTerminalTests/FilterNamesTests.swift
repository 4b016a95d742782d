@testable import TDLCore
@testable import TDLTerminal
import XCTest

/// Typing on in the filter of a long list narrows by names read between keys: the rows must be
/// those the whole filter shows, in order, whatever was read, renamed or added meanwhile.
final class FilterNamesTests: XCTestCase {
    /// More rows than one read of names and than the filter's single-thread limit, in sections.
    static let count = FilterScan.parallelThreshold + 2 * FilterNames.chunkRows

    private func longList() throws -> ScreenFixture {
        let words = ["song", "Songbook", "sonata", "alpha", "Trip", "notes"]
        let names = (0 ..< Self.count).map { "\(words[$0 % words.count]) \($0 % 97).\(["mp3", "flac", "bin"][$0 % 3])" }
        let screen = try ScreenFixture(names.map { ($0, TaskState.paused) })
        screen.manager.setSectioning(true, for: .addTime)
        screen.state.readRows(from: screen.manager)
        // What the running screen does with the manager's news.
        let events = EventHandler(manager: screen.manager, state: screen.state)
        _ = screen.manager.observe { event in
            if events.handle(event).contains(.rebuildRows) { screen.state.readRows(from: screen.manager) }
        }
        return screen
    }

    private func assertRowsAreTheWholeFilters(_ screen: ScreenFixture, _ what: String, line: UInt = #line) {
        let fresh = ListRenderer(manager: screen.manager).entries(filter: screen.state.filterText)
        let shown = screen.state.rows.entries
        XCTAssertTrue(shown == fresh, "\(what): \(shown.count) rows where the whole filter has \(fresh.count)", line: line)
        XCTAssertGreaterThan(fresh.count, 1, "a test of some rows", line: line)
    }

    /// Reads names as the loop does between keys, `turns` times (each reads at least one chunk).
    private func idle(_ screen: ScreenFixture, turns: Int) {
        for _ in 0 ..< turns { _ = screen.state.readFilterNames(from: screen.manager, for: 0) }
    }

    func testEachKeystrokeShowsTheWholeFiltersRowsWhateverNamesWereRead() throws {
        for turns in [0, 1, 3, 100] {
            let screen = try longList()
            screen.press("/")
            idle(screen, turns: turns)
            for c in "SoNg 1" {
                screen.type(String(c))
                assertRowsAreTheWholeFilters(screen, "after \(screen.state.filterText), \(turns) reads between keys")
                idle(screen, turns: turns)
            }
        }
    }

    func testARenamedTaskIsMatchedByItsNewName() throws {
        let screen = try longList()
        // Names the URLs do not have: only the name can match.
        let named = screen.state.rows.entries.compactMap(\.url).filter { $0.contains("alpha") }.prefix(30)
        for (n, url) in named.enumerated() { screen.manager.changeDisplayNameOfTask(url, to: "song named \(n)") }
        screen.press("/")
        idle(screen, turns: 100)
        screen.type("so")
        idle(screen, turns: 100)
        let gone = named[named.startIndex + 3], kept = named[named.startIndex + 7]
        XCTAssertTrue(screen.state.rows.entries.contains(.task(gone)))
        screen.manager.changeDisplayNameOfTask(gone, to: "renamed away")
        screen.manager.changeDisplayNameOfTask(kept, to: "a SONG still")
        screen.type("n")
        assertRowsAreTheWholeFilters(screen, "after the renames")
        let shown = Set(screen.state.rows.entries.compactMap(\.url))
        XCTAssertFalse(shown.contains(gone), "its new name and URL lack the text")
        XCTAssertTrue(shown.contains(kept))
    }

    func testATaskAddedWhileTypingIsFilteredInItsPlace() throws {
        let screen = try longList()
        screen.press("/")
        idle(screen, turns: 2)
        screen.type("son")
        idle(screen, turns: 1)
        screen.manager.add(["https://example.com/new/song%20added.mp3"])
        idle(screen, turns: 1)
        screen.type("g")
        assertRowsAreTheWholeFilters(screen, "after the add")
        XCTAssertTrue(screen.state.rows.entries.contains(.task("https://example.com/new/song%20added.mp3")))
    }
}
