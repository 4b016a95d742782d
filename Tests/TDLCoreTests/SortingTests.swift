import Foundation
import XCTest
@testable import TDLCore

final class SortingTests: XCTestCase {
    func testSortByNameIsCaseAndAccentInsensitiveBothWays() {
        let f = Fixture()
        f.add(["delta.iso", "Éclair.iso", "beta.iso", "Alpha.iso", "eagle.iso", "10.iso"])
        f.manager.sortListBy(type: .fileName)
        XCTAssertEqual(f.listNames, [["10.iso", "Alpha.iso", "beta.iso", "delta.iso", "eagle.iso", "Éclair.iso"]])
        f.manager.sortListBy(type: .fileName, order: .descending)
        XCTAssertEqual(f.listNames, [["Éclair.iso", "eagle.iso", "delta.iso", "beta.iso", "Alpha.iso", "10.iso"]])
        XCTAssertEqual(f.manager.arrangement, .sorted(.fileName, .descending))
    }

    func testNamesWithNumbersSortInNaturalOrder() {
        let f = Fixture()
        f.add(["f10.bin", "f2.bin", "F1.bin", "f02b.bin", "part-100.zip", "part-9.zip", "f0.bin"])
        f.manager.sortListBy(type: .fileName)
        XCTAssertEqual(f.listNames, [["f0.bin", "F1.bin", "f2.bin", "f02b.bin", "f10.bin", "part-9.zip", "part-100.zip"]])
        f.add(["f3.bin"])
        XCTAssertEqual(f.listNames, [["f0.bin", "F1.bin", "f2.bin", "f02b.bin", "f3.bin", "f10.bin", "part-9.zip", "part-100.zip"]],
                       "an insert lands where a full sort puts it")
        f.manager.sortListBy(type: .fileName, order: .descending)
        XCTAssertEqual(f.listNames, [["part-100.zip", "part-9.zip", "f10.bin", "f3.bin", "f02b.bin", "f2.bin", "F1.bin", "f0.bin"]])
    }

    /// Names that agree in their first 8 bytes (the part sorted as one number), or end there:
    /// the order is still the names', both ways, and an insert lands where a full sort puts it.
    func testNamesAlikeInTheirFirstBytesSortByTheRest() {
        let f = Fixture()
        let ordered = ["wallpape", "wallpaper", "wallpaper-alph", "wallpaper-alpha", "wallpaper-alpha-",
                       "wallpaper-alpha-b", "Wallpaper-Alpha-C", "wallpaper-alpha-ca", "wallpaper-alphabet", "wallpapers"]
        f.add(ordered.reversed().filter { $0 != "wallpaper-alpha-ca" })
        f.manager.sortListBy(type: .fileName)
        f.add(["wallpaper-alpha-ca"])
        XCTAssertEqual(f.listNames, [ordered])
        f.manager.sortListBy(type: .fileName, order: .descending)
        XCTAssertEqual(f.listNames, [ordered.reversed()])
    }

    func testIndexingFileNames() {
        let f = Fixture()
        f.manager.setSectioning(true, for: .fileName)
        f.manager.sortListBy(type: .fileName)
        f.add(["zeta", "Ärger", "_x", "東京.mp3", "apple", "Ωmega"])
        XCTAssertEqual(f.manager.sectionTitles, ["#", "A", "Z", "Other"])
        XCTAssertEqual(f.listNames, [["_x"], ["apple", "Ärger"], ["zeta"], ["Ωmega", "東京.mp3"]])
        XCTAssertEqual(f.manager.titleForHeaderInSection(1), "A")
    }

    func testSortBySizeWithSections() {
        let f = Fixture()
        f.manager.setSectioning(true, for: .fileSize)
        let urls = f.add(["huge", "big", "mid", "small", "tiny", "unknown", "gig"])
        let sizes: [Int64?] = [5_000_000_000, 500_000_000, 50_000_000, 5_000_000, 500_000, nil, 1_000_000_000]
        for (url, size) in zip(urls, sizes) { f.engine.resolve(url, name: f.manager.task(url)!.fileName, size: size) }
        f.manager.sortListBy(type: .fileSize)
        // An unknown size is no size of 0: last, in a section of its own, in either order.
        XCTAssertEqual(f.manager.sectionTitles, ["0 – 1 MB", "1 MB – 10 MB", "10 MB – 100 MB", "100 MB – 1 GB", "Larger than 1 GB", "Unknown size"])
        XCTAssertEqual(f.listNames, [["tiny"], ["small"], ["mid"], ["big"], ["gig", "huge"], ["unknown"]])
        f.add(["later"])
        XCTAssertEqual(f.listNames.last, ["later", "unknown"], "a new task without a size joins them")
        f.manager.sortListBy(type: .fileSize, order: .descending)
        XCTAssertEqual(f.manager.sectionTitles.last, "Unknown size")
        XCTAssertEqual(f.listNames, [["huge", "gig"], ["big"], ["mid"], ["small"], ["tiny"], ["unknown", "later"]])
        f.add(["later2"])
        XCTAssertEqual(f.listNames.last, ["unknown", "later2", "later"])
        f.manager.setSectioning(false, for: .fileSize)
        XCTAssertEqual(f.listNames, [["huge", "gig", "big", "mid", "small", "tiny", "unknown", "later2", "later"]])
    }

    func testSortByAddTimeWithSections() {
        let f = Fixture()
        let now = f.clock.now
        let ages: [(String, Double)] = [("old", 40), ("month", 10), ("week", 3), ("yesterday", 1), ("today", 0)]
        for (name, days) in ages {
            f.clock.now = now.addingTimeInterval(-days * 86_400)
            f.manager.add([Fixture.url(name)])
        }
        f.clock.now = now
        f.manager.setSectioning(true, for: .addTime)
        XCTAssertEqual(f.manager.sectionTitles, ["Older", "Last 30 Days", "Last 7 Days", "Yesterday", "Today"])
        XCTAssertEqual(f.listNames.flatMap { $0 }, ["old", "month", "week", "yesterday", "today"])
        f.manager.sortListBy(type: .addTime, order: .descending)
        XCTAssertEqual(f.manager.sectionTitles, ["Today", "Yesterday", "Last 7 Days", "Last 30 Days", "Older"])

        // A day later the sections move on; a new task brings the list up to date.
        f.clock.advance(86_400)
        f.add(["new"])
        XCTAssertEqual(f.manager.sectionTitles, ["Today", "Yesterday", "Last 7 Days", "Last 30 Days", "Older"])
        XCTAssertEqual(f.listNames, [["new"], ["today"], ["yesterday", "week"], ["month"], ["old"]])
    }

    func testSortByTypeIsAlwaysSectionedByType() {
        let f = Fixture()
        f.add(["b.pdf", "a.mp4", "x.bin", "c.png", "song.mp3", "a.pdf", "d.zip"])
        f.manager.sortListBy(type: .fileType)
        XCTAssertEqual(f.manager.sectionTitles, ["Image", "Audio", "Video", "Document", "Archive", "Other"])
        XCTAssertEqual(f.listNames, [["c.png"], ["song.mp3"], ["a.mp4"], ["a.pdf", "b.pdf"], ["d.zip"], ["x.bin"]])
        f.manager.sortListBy(type: .fileType, order: .descending)
        XCTAssertEqual(f.manager.sectionTitles, ["Other", "Archive", "Document", "Video", "Audio", "Image"])
        XCTAssertEqual(f.listNames[2], ["b.pdf", "a.pdf"])
    }

    func testTheNameOrderComparesWholeNames() {
        let f = Fixture()
        f.add(["a.zip", "a-b.zip"])
        f.manager.sortListBy(type: .fileName)
        XCTAssertEqual(f.listNames, [["a-b.zip", "a.zip"]])  // "-" < "."
    }

    /// Names are prepared once for sorting; every later change of name or type must show.
    func testNameAndTypeOrderFollowRenamesAndTheServersAnswer() {
        let f = Fixture()
        let urls = f.add(["b.bin", "c.bin", "a.bin"])
        f.manager.sortListBy(type: .fileName)
        XCTAssertEqual(f.listNames, [["a.bin", "b.bin", "c.bin"]])
        f.manager.changeDisplayNameOfTask(urls[1], to: "0 first")
        XCTAssertEqual(f.listNames, [["c.bin", "a.bin", "b.bin"]])  // file names; c.bin shows as "0 first"
        f.engine.resolve(urls[0], name: "z.bin", size: 10)  // Content-Disposition renamed it
        XCTAssertEqual(f.listNames, [["c.bin", "a.bin", "z.bin"]])
        f.manager.sortListBy(type: .fileType)
        XCTAssertEqual(f.manager.sectionTitles, ["Other"])
        f.engine.resolve(urls[2], name: "a.bin", size: 10, mime: "video/mp4")  // the type comes from the MIME type
        XCTAssertEqual(f.manager.sectionTitles, ["Video", "Other"])
        XCTAssertEqual(f.listNames, [["a.bin"], ["c.bin", "z.bin"]])
    }

    /// New tasks land exactly where a full re-sort puts them, in every sort and order.
    func testIncrementalInsertMatchesAFullSort() {
        for type in SortKey.allCases {
            for order in [SortOrder.ascending, .descending] {
                for sectioned in [false, true] {
                    let f = Fixture(limit: 1)
                    f.manager.setSectioning(sectioned, for: type)
                    f.manager.sortListBy(type: type, order: order)
                    f.manager.reproduceData(count: 300, seed: 7)
                    var random = SeededRandom(seed: 3)
                    for batch in [1, 5, 40] {
                        let urls = (0 ..< batch).map { _ in
                            "https://example.com/new/\(DebugNames.percentEncoded(DebugNames.make(&random)))"
                        }
                        f.clock.advance(Double(random.next() % 100_000))
                        f.manager.add(urls)
                        let incremental = f.manager.downloadList
                        let titles = f.manager.sectionTitles
                        f.manager.sortListBy(type: type, order: order)
                        XCTAssertEqual(incremental, f.manager.downloadList, "\(type) \(order) sectioned: \(sectioned) batch \(batch)")
                        XCTAssertEqual(titles, f.manager.sectionTitles)
                    }
                    f.assertIndexPathsConsistent()
                }
            }
        }
    }

    /// A list long enough to make its keys and fill its sections on two threads is in the
    /// order of one comparison sort of every task, with the sections that order's ranks give,
    /// in every sort and order.
    func testLongListSortedInPartsIsOneSortsOrder() {
        let count = ListSorter.parallelThreshold + 5_001  // odd: the two threads' parts differ in size
        for type in [SortKey.addTime, .fileSize, .fileName, .fileType] {
            for order in [SortOrder.ascending, .descending] {
                let f = Fixture(limit: 1)
                f.manager.setSectioning(true, for: type)
                f.manager.reproduceData(count: count, seed: 11)
                f.manager.sortListBy(type: type, order: order)
                let sorter = f.manager.sorter(type, order)
                let keys = f.manager.tasks.byURL.values.filter { $0.deletedAt == nil }.map(sorter.taskKey(of:))
                let ordered = keys.sorted(by: sorter.precedes)
                var sections: [[String]] = []
                var titles: [String] = []
                for key in ordered {
                    if titles.last != sorter.title(ofRank: key.rank) || sections.isEmpty {
                        sections.append([])
                        titles.append(sorter.title(ofRank: key.rank))
                    }
                    sections[sections.count - 1].append(key.url)
                }
                XCTAssertGreaterThanOrEqual(ordered.count, ListSorter.parallelThreshold, "\(type)")
                XCTAssertEqual(f.manager.downloadList, sections, "\(type) \(order)")
                XCTAssertEqual(f.manager.sectionTitles, titles, "\(type) \(order)")
            }
        }
    }

    func testManualToPredefinedLosesTitlesAndBackMergesIntoOneSection() {
        let f = Fixture()
        f.manager.arrange(.manual)
        XCTAssertEqual(f.manager.sectionTitles, ["Downloads"])
        f.manager.add([Fixture.url("b.mp3")], inManualModeAtSection: 0, withTitle: "Music")
        f.manager.add([Fixture.url("a.png"), Fixture.url("c.png")], inManualModeAtSection: 1, withTitle: "Pictures")
        XCTAssertEqual(f.manager.sectionTitles, ["Music", "Pictures", "Downloads"])

        f.manager.sortListBy(type: .fileName)
        XCTAssertEqual(f.manager.sectionTitles, [""], "titles are gone")
        XCTAssertEqual(f.listNames, [["a.png", "b.mp3", "c.png"]])

        f.manager.sortListBy(type: .fileType)
        XCTAssertEqual(f.manager.sectionTitles, ["Image", "Audio"])
        f.manager.arrange(.manual)
        XCTAssertEqual(f.manager.sectionTitles, ["Downloads"], "one section with a placeholder title")
        XCTAssertEqual(f.listNames, [["a.png", "c.png", "b.mp3"]], "in the order it was shown")
        f.manager.arrange(.manual)
        XCTAssertEqual(f.listNames, [["a.png", "c.png", "b.mp3"]], "manual to manual changes nothing")
    }

    func testFoldingFoldsLatinAccentsAndCase() {
        var a: [UInt8] = [], b: [UInt8] = []
        ListSorter.appendFolded("ÉCLAIR Ünïcödé Straße", to: &a)
        ListSorter.appendFolded("eclair unicode strasse", to: &b)
        XCTAssertEqual(String(decoding: a, as: UTF8.self), "eclair unicode strase")
        XCTAssertEqual(String(decoding: b, as: UTF8.self), "eclair unicode strasse")
        var c: [UInt8] = []
        ListSorter.appendFolded("E\u{301}TE\u{301}", to: &c)
        XCTAssertEqual(String(decoding: c, as: UTF8.self), "ete", "decomposed accents are ignored too")
    }
}
