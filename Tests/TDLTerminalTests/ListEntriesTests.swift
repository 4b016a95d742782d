import XCTest
@testable import TDLTerminal

/// The whole list's rows, read through its sections, are the rows made one by one: headers
/// with their counts, empty sections, and the row a task is found at.
final class ListEntriesTests: XCTestCase {
    static let sections = [["a", "b"], [], ["c"], [], ["d", "e", "f"]]
    static let titles = ["One", "Two", "Three", "Four", "Five"]

    static func made(showsHeaders: Bool) -> [ListEntry] {
        var rows: [ListEntry] = []
        for (s, section) in sections.enumerated() {
            if showsHeaders { rows.append(.section(index: s, title: titles[s], count: section.count)) }
            rows += section.map(ListEntry.task)
        }
        return rows
    }

    func testTheSectionsReadAsTheRowsMadeOneByOne() {
        for showsHeaders in [true, false] {
            let lazy = ListEntries(sections: Self.sections, titles: Self.titles, showsHeaders: showsHeaders)
            let made = Self.made(showsHeaders: showsHeaders)
            XCTAssertEqual(Array(lazy), made, "headers: \(showsHeaders)")
            XCTAssertEqual(lazy.count, made.count)
            XCTAssertTrue(lazy == ListEntries(made), "equal to the same rows made")
            for url in ["a", "c", "d", "f"] {
                XCTAssertEqual(lazy.row(of: url), made.firstIndex(of: .task(url)), "\(url), headers: \(showsHeaders)")
            }
            XCTAssertNil(lazy.row(of: "missing"))
            XCTAssertEqual(Array(lazy[2 ..< 5]), Array(made[2 ..< 5]), "a slice, as the screen draws one")
        }
    }

    func testAnEmptyListHasOnlyItsHeader() {
        XCTAssertEqual(Array(ListEntries(sections: [[]], titles: ["Downloads"], showsHeaders: true)),
                       [.section(index: 0, title: "Downloads", count: 0)])
        XCTAssertTrue(ListEntries(sections: [[]], titles: [""], showsHeaders: false).isEmpty)
        XCTAssertTrue(ListEntries().isEmpty)
    }
}
