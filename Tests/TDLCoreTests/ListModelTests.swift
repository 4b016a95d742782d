import Foundation
import XCTest
@testable import TDLCore

final class ListModelTests: XCTestCase {
    func testListShapeAndLookupsBothWays() {
        let f = Fixture()
        XCTAssertEqual(f.manager.downloadList, [[]])
        XCTAssertEqual(f.manager.sectionCount, 1)
        let urls = f.add(["a", "b", "c"])
        XCTAssertEqual(f.manager.downloadList, [urls])
        XCTAssertEqual(f.manager.sectionTitles, [""])
        XCTAssertNil(f.manager.titleForHeaderInSection(0), "an untitled section has no header")
        XCTAssertEqual(f.manager.taskCountInSection(0), 3)
        XCTAssertEqual(f.manager.taskCountInSection(1), -1)
        XCTAssertEqual(f.manager.taskCountInSection(-1), -1)
        XCTAssertNil(f.manager.titleForHeaderInSection(4))
        XCTAssertEqual(f.manager.indexPath(of: urls[2]), ix(0, 2))
        XCTAssertEqual(f.manager.url(at: ix(0, 1)), urls[1])
        XCTAssertEqual(f.manager.url(at: ix(0, 0)), urls[0])
        XCTAssertNil(f.manager.url(at: ix(0, 3)))
        XCTAssertNil(f.manager.url(at: ix(1, 0)))
        XCTAssertNil(f.manager.url(at: ix(-1, -1)))
        XCTAssertNil(f.manager.indexPath(of: "https://nope.example/x"))
        f.assertIndexPathsConsistent()

        f.manager.deleteTasks([urls[0]])
        XCTAssertNil(f.manager.indexPath(of: urls[0]), "a task in the trash has no place in the list")
        XCTAssertEqual(f.manager.indexPath(of: urls[1]), ix(0, 0))
        f.assertIndexPathsConsistent()
    }

    func testSetsAndUnfinishedList() {
        let f = Fixture()
        let urls = f.add(["a", "b", "c", "d"])
        f.finish(urls[1])
        f.manager.deleteTasks([urls[2]])
        XCTAssertEqual(Set(f.manager.downloadList.joined()), [urls[0], urls[1], urls[3]])
        XCTAssertEqual(f.manager.allTasksSet, Set(urls))
        XCTAssertEqual(f.manager.unfinishedList, [urls[3], urls[0]], "unfinished, in the list, newest first")
        XCTAssertEqual(f.manager.toDeleteList, [urls[2]])
        XCTAssertEqual(f.manager.counts[.finished], 1)
    }

    func testIndexPathsStayRightAfterEveryKindOfChange() {
        let f = Fixture(limit: 0)
        f.manager.setSectioning(true, for: .fileName)
        f.manager.sortListBy(type: .fileName)
        let urls = f.add(["kiwi.txt", "apple.txt", "Banana.txt", "cherry.txt", "avocado.txt", "9lives.txt"])
        XCTAssertEqual(f.manager.sectionTitles, ["#", "A", "B", "C", "K"])
        f.assertIndexPathsConsistent()
        f.manager.deleteTasks([urls[2], urls[0]])
        XCTAssertEqual(f.manager.sectionTitles, ["#", "A", "C"])
        f.assertIndexPathsConsistent()
        f.manager.restoreToDeleteTasks([urls[0]])
        f.assertIndexPathsConsistent()
        f.engine.resolve(urls[3], name: "blueberry.txt", size: 5)
        XCTAssertEqual(f.manager.indexPath(of: urls[3]), ix(2, 0), "a new name moves the task to its sorted place")
        XCTAssertEqual(f.manager.sectionTitles, ["#", "A", "B", "K"])
        f.assertIndexPathsConsistent()
        f.manager.changeDisplayNameOfTask(urls[4], to: "zucchini")
        XCTAssertEqual(f.manager.sectionTitles.last, "Z")
        f.assertIndexPathsConsistent()
        f.manager.arrange(.manual)
        f.manager.moveTask(at: ix(0, 0), to: ix(0, 3))
        f.assertIndexPathsConsistent()
    }

    // MARK: - ListModel on its own

    /// Tasks named a, b, c… a second apart, by URL (the manager's table).
    func table(_ names: [String], from start: Date = Date(timeIntervalSinceReferenceDate: 0)) -> [String: DownloadTask] {
        var tasks: [String: DownloadTask] = [:]
        for (n, name) in names.enumerated() {
            tasks[Fixture.url(name)] = DownloadTask(url: Fixture.url(name), fileName: name, directory: "/tmp",
                                                    addTime: start.addingTimeInterval(Double(n)), state: .stopped)
        }
        return tasks
    }

    func byName(sectioned: Bool = true, _ order: TDLCore.SortOrder = .ascending) -> ListSorter {
        ListSorter(key: .fileName, order: order, sectioning: SectioningOptions(fileName: sectioned), startOfToday: .distantPast)
    }

    func assertIndexPathsConsistent(_ model: inout ListModel, file: StaticString = #filePath, line: UInt = #line) {
        for (s, section) in model.sections.enumerated() {
            for (r, url) in section.enumerated() {
                XCTAssertEqual(model.indexPath(of: url), ix(s, r), url, file: file, line: line)
                XCTAssertEqual(model.url(at: ix(s, r)), url, file: file, line: line)
            }
        }
    }

    func testSortedInsertsGoWhereTheSortPutsThemAndEmptiedSectionsGo() {
        var tasks = table(["kiwi", "apple", "cherry"])
        var model = ListModel(arrangement: .sorted(.addTime, .ascending))
        XCTAssertEqual(model.sections, [[]])
        XCTAssertEqual(model.titles, [""])
        model.sort(by: byName(), tasks: &tasks)
        XCTAssertEqual(model.arrangement, .sorted(.fileName, .ascending))
        XCTAssertEqual(model.titles, ["A", "C", "K"])
        XCTAssertEqual(model.sections, [[Fixture.url("apple")], [Fixture.url("cherry")], [Fixture.url("kiwi")]])

        // One new section in its place, one task in an existing section.
        tasks.merge(table(["banana", "avocado"])) { old, _ in old }
        model.insertSorted([Fixture.url("banana"), Fixture.url("avocado")], by: byName(), tasks: &tasks)
        XCTAssertEqual(model.titles, ["A", "B", "C", "K"])
        XCTAssertEqual(model.sections[0], [Fixture.url("apple"), Fixture.url("avocado")])
        XCTAssertEqual(model.indexPath(of: Fixture.url("kiwi")), ix(3, 0))
        assertIndexPathsConsistent(&model)

        let removed = model.remove([Fixture.url("banana"), Fixture.url("nope"), Fixture.url("apple")])
        XCTAssertEqual(removed.map(\.url), [Fixture.url("banana"), Fixture.url("apple")])
        XCTAssertEqual(removed.map(\.from), [ix(1, 0), ix(0, 0)], "places before the removal")
        XCTAssertEqual(model.titles, ["A", "C", "K"], "a sorted list drops an emptied section")
        XCTAssertNil(model.indexPath(of: Fixture.url("banana")))
        assertIndexPathsConsistent(&model)

        // A renamed task moves; a task that is not listed does not come in.
        tasks[Fixture.url("kiwi")]!.customDisplayName = "blueberry"
        XCTAssertTrue(model.reposition(Fixture.url("kiwi"), by: byName(), tasks: &tasks))
        XCTAssertEqual(model.titles, ["A", "B", "C"])
        XCTAssertFalse(model.reposition(Fixture.url("apple"), by: byName(), tasks: &tasks))
        assertIndexPathsConsistent(&model)

        _ = model.remove(model.sections.flatMap { $0 })
        XCTAssertEqual(model.sections, [[]], "an empty list is one empty section")
        XCTAssertEqual(model.titles, [""])
    }

    func testManualInsertsAreClampedIntoTheListAndEmptiedSectionsStay() {
        let (a, b, c, d) = (Fixture.url("a"), Fixture.url("b"), Fixture.url("c"), Fixture.url("d"))
        var model = ListModel(arrangement: .manual)
        XCTAssertEqual(model.sections, [[]])
        XCTAssertEqual(model.titles, [ListModel.placeholderTitle])
        model.insertManual([b], at: ix(0, 0))
        model.insertManual([d], at: ix(7, 9))
        model.insertManual([a], at: ix(-1, -1))
        model.insertManual([c], at: ix(0, 2))
        XCTAssertEqual(model.sections, [[a, b, c, d]])
        XCTAssertTrue(model.insertSection(at: 1, titled: "Later"))
        XCTAssertFalse(model.insertSection(at: 3, titled: "Past the end"))
        XCTAssertEqual(model.titles, [ListModel.placeholderTitle, "Later"])
        model.insertManual([Fixture.url("e")], at: ix(1, 0))
        XCTAssertEqual(model.remove([Fixture.url("e")]).map(\.from), [ix(1, 0)])
        XCTAssertEqual(model.sections, [[a, b, c, d], []], "arranged by hand, an emptied section stays")
        XCTAssertEqual(model.layout, ManualLayout(sections: [[a, b, c, d], []], titles: [ListModel.placeholderTitle, "Later"]))
        assertIndexPathsConsistent(&model)
    }

    func testMovingRowsAndSectionsKeepsIndexPathsRight() {
        let (a, b, c, d) = (Fixture.url("a"), Fixture.url("b"), Fixture.url("c"), Fixture.url("d"))
        var model = ListModel(arrangement: .manual)
        model.insertManual([a, b, c], at: ix(0, 0))
        XCTAssertTrue(model.insertSection(at: 1, titled: "Two"))
        model.insertManual([d], at: ix(1, 0))
        XCTAssertEqual(model.indexPath(of: c), ix(0, 2), "the index map is built")

        let revision = model.revision
        XCTAssertTrue(model.moveTask(at: ix(0, 0), to: ix(0, 2)))
        XCTAssertEqual(model.sections, [[b, c, a], [d]])
        XCTAssertEqual(model.indexPath(of: a), ix(0, 2), "the map follows the move")
        XCTAssertGreaterThan(model.revision, revision)
        XCTAssertTrue(model.moveTask(at: ix(0, 1), to: ix(1, 1)))
        XCTAssertEqual(model.sections, [[b, a], [d, c]])
        XCTAssertFalse(model.moveTask(at: ix(0, 0), to: ix(0, 2)), "row 2 is past the end once the task is out")
        XCTAssertFalse(model.moveTask(at: ix(0, 5), to: ix(0, 0)))
        XCTAssertFalse(model.moveTask(at: ix(0, 0), to: ix(2, 0)))
        assertIndexPathsConsistent(&model)

        XCTAssertTrue(model.renameSection(0, to: "One"))
        XCTAssertFalse(model.renameSection(2, to: "x"))
        XCTAssertEqual(model.titles, ["One", "Two"])
        assertIndexPathsConsistent(&model)

        let unchanged = model.revision
        XCTAssertFalse(model.moveTask(at: ix(0, 0), to: ix(0, 9)))
        XCTAssertEqual(model.revision, unchanged, "a refused change is no change")
    }

    func testEditsByHandRefuseASortedList() {
        var tasks = table(["a", "b"])
        var model = ListModel(arrangement: .sorted(.addTime, .ascending))
        model.sort(by: byName(sectioned: false), tasks: &tasks)
        XCTAssertFalse(model.insertSection(at: 0, titled: "x"))
        XCTAssertFalse(model.moveTask(at: ix(0, 0), to: ix(0, 1)))
        XCTAssertFalse(model.renameSection(0, to: "x"))
        XCTAssertEqual(model.sections, [[Fixture.url("a"), Fixture.url("b")]])
    }

    func testArrangingByHandMergesAndAdoptingALayoutKeepsOnlyListedTasks() {
        var tasks = table(["apple", "banana", "cherry", "date"])
        let (apple, banana, cherry, date) = (Fixture.url("apple"), Fixture.url("banana"), Fixture.url("cherry"), Fixture.url("date"))
        var model = ListModel(arrangement: .sorted(.addTime, .ascending))
        model.sort(by: byName(.descending), tasks: &tasks)
        XCTAssertEqual(model.titles, ["D", "C", "B", "A"])
        model.arrangeManually()
        XCTAssertEqual(model.arrangement, .manual)
        XCTAssertEqual(model.sections, [[date, cherry, banana, apple]], "one section, in the order shown")
        XCTAssertEqual(model.titles, [ListModel.placeholderTitle])
        let revision = model.revision
        model.arrangeManually()
        XCTAssertEqual(model.revision, revision, "by hand to by hand changes nothing")

        // Unknown, trashed and repeated URLs are left out; a task the layout lost comes last.
        tasks[date]!.deletedAt = Date()
        model.adopt(ManualLayout(sections: [[banana, Fixture.url("gone"), date], [banana, apple]], titles: ["One", "Two", "Extra"]),
                    tasks: tasks)
        XCTAssertEqual(model.sections, [[banana], [apple, cherry]])
        XCTAssertEqual(model.titles, ["One", "Two"])
        assertIndexPathsConsistent(&model)

        model.adopt(ManualLayout(sections: [], titles: []), tasks: [:])
        XCTAssertEqual(model.sections, [[]])
        XCTAssertEqual(model.titles, [ListModel.placeholderTitle])
    }
}
