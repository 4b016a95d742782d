import Foundation
import XCTest
@testable import TDLCore

final class ManualModeTests: XCTestCase {
    func manualFixture() -> Fixture {
        let f = Fixture(limit: 0)
        f.manager.arrange(.manual)
        f.manager.changeTitleOfSection(0, to: "Inbox")
        return f
    }

    func testInsertAtIndexPathSectionAndPlaceholder() {
        let f = manualFixture()
        let (a, b, c) = (Fixture.url("a"), Fixture.url("b"), Fixture.url("c"))
        f.manager.add([a, b])
        XCTAssertEqual(f.manager.downloadList, [[a, b]])
        f.manager.add([c], at: ix(0, 1))
        XCTAssertEqual(f.manager.downloadList, [[a, c, b]])
        XCTAssertTrue(f.manager.insertPlaceHolderSection(at: 1, withTitle: "Later"))
        XCTAssertEqual(f.manager.sectionTitles, ["Inbox", "Later"])
        XCTAssertEqual(f.manager.taskCountInSection(1), 0)
        XCTAssertFalse(f.manager.insertPlaceHolderSection(at: 5, withTitle: "x"))
        XCTAssertFalse(f.manager.insertPlaceHolderSection(at: -1, withTitle: "x"))
        let d = Fixture.url("d")
        XCTAssertEqual(f.manager.add([d], inManualModeAtSection: 2, withTitle: "New")?.added, [d])
        XCTAssertEqual(f.manager.sectionTitles, ["Inbox", "Later", "New"])
        XCTAssertNil(f.manager.add([a, "bad"], inManualModeAtSection: 0, withTitle: "Nothing new"), "no section for nothing new")
        XCTAssertEqual(f.manager.sectionCount, 3)
        XCTAssertNil(f.manager.add([Fixture.url("e")], inManualModeAtSection: 9, withTitle: "x"))
        let groups = [[Fixture.url("g1")], [a], [Fixture.url("g2"), Fixture.url("g3")]]
        XCTAssertEqual(f.manager.add(groups, inManualModeAtSection: 1, withTitles: ["G1", "dup", "G2"]), [1, 2])
        XCTAssertEqual(f.manager.sectionTitles, ["Inbox", "G1", "G2", "Later", "New"])
        XCTAssertNil(f.manager.add(groups, inManualModeAtSection: 0, withTitles: ["too few"]))
        f.assertIndexPathsConsistent()
    }

    func testManualOnlyOperationsRefuseInPredefinedMode() {
        let f = Fixture()
        f.add(["a", "b"])
        XCTAssertFalse(f.manager.insertPlaceHolderSection(at: 0, withTitle: "x"))
        XCTAssertNil(f.manager.add([Fixture.url("c")], inManualModeAtSection: 0, withTitle: "x"))
        XCTAssertFalse(f.manager.moveTask(at: ix(0, 0), to: ix(0, 1)))
        XCTAssertFalse(f.manager.changeTitleOfSection(0, to: "x"))
    }

    func testMoveTaskUpdatesIndexPaths() {
        let f = manualFixture()
        let urls = f.add(["a", "b", "c"]).reversed() as [String]  // each lands on top: c, b, a
        XCTAssertEqual(f.manager.downloadList, [urls])
        f.manager.insertPlaceHolderSection(at: 1, withTitle: "Done")
        XCTAssertTrue(f.manager.moveTask(at: ix(0, 0), to: ix(0, 2)))
        XCTAssertEqual(f.manager.downloadList, [[urls[1], urls[2], urls[0]], []])
        XCTAssertTrue(f.manager.moveTask(at: ix(0, 1), to: ix(1, 0)))
        XCTAssertEqual(f.manager.downloadList, [[urls[1], urls[0]], [urls[2]]])
        XCTAssertEqual(f.manager.indexPath(of: urls[2]), ix(1, 0))
        XCTAssertEqual(f.manager.indexPath(of: urls[0]), ix(0, 1))
        XCTAssertFalse(f.manager.moveTask(at: ix(0, 5), to: ix(0, 0)))
        XCTAssertFalse(f.manager.moveTask(at: ix(0, 0), to: ix(0, 2)), "row 2 is past the end once the task is out")
        XCTAssertFalse(f.manager.moveTask(at: ix(0, 0), to: ix(7, 0)))
        XCTAssertFalse(f.manager.moveTask(at: ix(0, 0), to: ix(1, -1)))
        XCTAssertTrue(f.manager.moveTask(at: ix(0, 0), to: ix(1, 1)))
        XCTAssertEqual(f.manager.downloadList, [[urls[0]], [urls[2], urls[1]]])
        f.assertIndexPathsConsistent()
    }

    func testRenameAndEmptySectionsStay() {
        let f = manualFixture()
        let b = f.add(["b"])[0]
        f.manager.add([Fixture.url("a")], inManualModeAtSection: 0, withTitle: "Second")
        let a = Fixture.url("a")
        XCTAssertEqual(f.manager.sectionTitles, ["Second", "Inbox"])
        XCTAssertEqual(f.manager.indexPath(of: b), ix(1, 0))
        XCTAssertTrue(f.manager.changeTitleOfSection(1, to: "Renamed"))
        XCTAssertFalse(f.manager.changeTitleOfSection(2, to: "x"))
        XCTAssertEqual(f.manager.titleForHeaderInSection(1), "Renamed")
        f.manager.deleteTasks([a])
        XCTAssertEqual(f.manager.sectionTitles, ["Second", "Renamed"], "an emptied section stays in manual mode")
        XCTAssertEqual(f.manager.taskCountInSection(0), 0)
    }

    func testChangeDisplayNameDoesNotMoveInManualModeAndRefusesTrash() {
        let f = manualFixture()
        let urls = f.add(["a", "b"])
        let before = f.manager.downloadList
        f.manager.changeDisplayNameOfTask(urls[0], to: "zzz")
        XCTAssertEqual(f.manager.downloadList, before)
        f.manager.deleteTasks([urls[1]])
        f.manager.changeDisplayNameOfTask(urls[1], to: "hidden")
        XCTAssertEqual(f.manager.displayName(of: urls[1]), "b")
    }
}

final class SectionEditingTests: XCTestCase {
    func testASectionInsertedAtARowTakesTheRowsFromThere() {
        let f = Fixture()
        let urls = f.add(["a", "b", "c"])
        f.manager.arrange(.manual)
        let list = f.manager.downloadList[0]
        XCTAssertEqual(list.count, 3)
        XCTAssertTrue(f.manager.insertSection(at: ListIndex(section: 0, row: 1), withTitle: "Later"))
        XCTAssertEqual(f.manager.downloadList, [[list[0]], [list[1], list[2]]])
        XCTAssertEqual(f.manager.sectionTitles, ["Downloads", "Later"])
        XCTAssertTrue(f.manager.insertSection(at: ListIndex(section: 1, row: 0), withTitle: "Empty"))
        XCTAssertEqual(f.manager.downloadList, [[list[0]], [], [list[1], list[2]]])
        XCTAssertFalse(f.manager.insertSection(at: ListIndex(section: 0, row: 2), withTitle: "x"))
        XCTAssertFalse(f.manager.removeEmptySection(0), "it holds a task")
        XCTAssertTrue(f.manager.removeEmptySection(1))
        XCTAssertEqual(f.manager.sectionTitles, ["Downloads", "Later"])
        XCTAssertEqual(Set(urls), Set(f.manager.downloadList.flatMap { $0 }))
        f.assertIndexPathsConsistent()
    }

    func testTheLastSectionStaysAndASortedListHasNoneToEdit() {
        let f = Fixture()
        f.manager.arrange(.manual)
        XCTAssertFalse(f.manager.removeEmptySection(0))
        f.manager.arrange(.sorted(.fileName, .ascending))
        XCTAssertFalse(f.manager.insertSection(at: ListIndex(section: 0, row: 0), withTitle: "x"))
    }
}
