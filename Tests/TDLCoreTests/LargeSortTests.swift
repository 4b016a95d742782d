import Foundation
import XCTest
@testable import TDLCore

/// Lists long enough to make their sort keys on two threads (`ListSorter.parallelThreshold`).
final class LargeSortTests: XCTestCase {
    /// Every sort and order of a long list (numbers radix-sorted, names merged from two parts)
    /// is the order of comparing task by task (the comparison single inserts use), ties of
    /// size, time and name beginnings included.
    func testLongListSortIsTheOrderOfComparingTaskByTask() {
        let f = Fixture(limit: 1)
        let count = ListSorter.parallelThreshold + 5_000
        f.manager.reproduceData(count: count, seed: 11)
        // Equal sizes, times and names, so the order falls through to names and URLs.
        let urls = f.manager.downloadList.flatMap { $0 }
        for url in urls.prefix(3_000) { f.manager.tasks[url]!.size = 1_000 }
        for url in urls.dropFirst(2_000).prefix(2_000) { f.manager.tasks[url]!.addTime = Date(timeIntervalSinceReferenceDate: 0) }
        for (k, url) in urls.suffix(1_000).enumerated() { f.manager.tasks[url]!.customDisplayName = "same name \(k % 3)" }
        // Times before 2001 (negative against the reference date), empty files, and names that
        // agree on their first 8, 16 and 24 bytes: the radix key's sign, and the bytes after it.
        for (k, url) in urls.dropFirst(5_000).prefix(2_000).enumerated() {
            f.manager.tasks[url]!.addTime = Date(timeIntervalSince1970: Double(k % 500) * 86_400)
            f.manager.tasks[url]!.size = k % 4 == 0 ? 0 : nil
            f.manager.tasks[url]!.customDisplayName = "A Long Shared Beginning, Then \(k % 7) Of \(k % 13)" + String(repeating: "x", count: k % 9)
        }
        for key in SortKey.allCases {
            for order in [SortOrder.ascending, .descending] {
                for sectioned in [false, true] where key != .fileType || sectioned {
                    f.manager.setSectioning(sectioned, for: key)
                    f.manager.sortListBy(type: key, order: order)
                    let sorter = f.manager.sorter(key, order)
                    let expected = f.manager.tasks.values.filter { $0.deletedAt == nil }
                        .map(sorter.taskKey).sorted(by: sorter.precedes).map(\.url)
                    XCTAssertEqual(f.manager.downloadList.flatMap { $0 }, expected, "\(key) \(order) sectioned: \(sectioned)")
                }
            }
        }
    }

    /// A sort keeps the tasks' sort names for the next one, unless asked not to (a listing
    /// that ends after its sort).
    func testASortKeepsSortNamesOnlyWhenAsked() throws {
        for keeping in [true, false] {
            let f = Fixture(limit: 1)
            f.manager.reproduceData(count: ListSorter.parallelThreshold + 10, seed: 5)
            f.manager.setSectioning(false, for: .fileName)
            var tasks = f.manager.tasks.byURL
            var list = ListModel(arrangement: .manual)
            list.sort(by: f.manager.sorter(.fileName, .ascending), tasks: &tasks, keepingSortNames: keeping)
            let kept = tasks.values.filter { $0.keptSortName != nil }.count
            XCTAssertEqual(kept, keeping ? tasks.count : 0, "keeping: \(keeping)")
            XCTAssertEqual(list.sections.flatMap { $0 }.count, tasks.count)
        }
    }

    /// Sort names prepared a little at a time, between keys: a short budget leaves some for
    /// later, tasks listed during the walk and after it are prepared too, and the name sort
    /// then gives the order of comparing task by task.
    func testSortNamesArePreparedInStepsAndFollowTheList() {
        let f = Fixture(limit: 1)
        f.manager.reproduceData(count: 30_000, seed: 9)
        f.manager.sortListBy(type: .addTime)
        func prepared() -> Int { f.manager.tasks.values.filter { $0.keptSortName != nil }.count }
        XCTAssertEqual(prepared(), 0, "sorting by add time folds no name")
        XCTAssertTrue(f.manager.prepareSortNames(for: 0), "one step of a zero budget leaves most for later")
        let afterOneStep = prepared()
        XCTAssertGreaterThan(afterOneStep, 0)
        XCTAssertLessThan(afterOneStep, 30_000)
        f.add(["late-addition.iso"])
        while f.manager.prepareSortNames(for: 0.005) {}
        XCTAssertEqual(prepared(), 30_001, "every listed task, the one added meanwhile too")
        XCTAssertFalse(f.manager.prepareSortNames(for: 1), "nothing left")
        f.add(["later-still.iso"])
        while f.manager.prepareSortNames(for: 0.005) {}
        XCTAssertEqual(prepared(), 30_002, "the task listed after the walk")
        f.manager.sortListBy(type: .fileName)
        let sorter = f.manager.sorter(.fileName, .ascending)
        let expected = f.manager.tasks.values.map(sorter.taskKey).sorted(by: sorter.precedes).map(\.url)
        XCTAssertEqual(f.manager.downloadList.flatMap { $0 }, expected)
    }
}
