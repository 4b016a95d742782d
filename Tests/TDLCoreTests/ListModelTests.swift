import Foundation
import XCTest
@testable import TDLCore

final class ListModelTests: XCTestCase {
    func testListShapeAndLookupsBothWays() {
        let f = Fixture(trash: true)
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
        XCTAssertEqual(f.manager[urls[1]], ix(0, 1))
        XCTAssertEqual(f.manager[ix(0, 1)], urls[1])
        XCTAssertEqual(f.manager.downloadURLString(at: ix(0, 0)), urls[0])
        XCTAssertNil(f.manager.url(at: ix(0, 3)))
        XCTAssertNil(f.manager.url(at: ix(1, 0)))
        XCTAssertNil(f.manager.url(at: ix(-1, -1)))
        XCTAssertNil(f.manager.indexPath(of: "https://nope.example/x"))
        f.assertIndexPathsConsistent()

        f.manager.deleteTasks([urls[0]])
        XCTAssertNil(f.manager.indexPath(ofTask: urls[0]), "a task in the trash has no place in the list")
        XCTAssertEqual(f.manager.indexPath(of: urls[1]), ix(0, 0))
        f.assertIndexPathsConsistent()
    }

    func testSetsAndUnfinishedList() {
        let f = Fixture(trash: true)
        let urls = f.add(["a", "b", "c", "d"])
        f.finish(urls[1])
        f.manager.deleteTasks([urls[2]])
        XCTAssertEqual(f.manager.downloadTaskSet, [urls[0], urls[1], urls[3]])
        XCTAssertEqual(f.manager.allTasksSet, Set(urls))
        XCTAssertEqual(f.manager.unfinishedList, [urls[3], urls[0]], "unfinished, in the list, newest first")
        XCTAssertEqual(f.manager.toDeleteList, [urls[2]])
        XCTAssertEqual(f.manager.counts[.finished], 1)
    }

    func testIndexPathsStayRightAfterEveryKindOfChange() {
        let f = Fixture(limit: 0, trash: true)
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
}
