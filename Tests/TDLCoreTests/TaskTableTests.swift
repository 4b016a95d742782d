import Foundation
@testable import TDLCore
import XCTest

/// Every write through the table's subscript keeps its counts by state and the tasks as
/// written, whether it changes, adds, replaces or removes a task.
final class TaskTableTests: XCTestCase {
    func task(_ n: Int, _ state: TaskState = .waiting) -> DownloadTask {
        DownloadTask(url: "http://127.0.0.1/\(n)", fileName: "\(n).bin", directory: "/tmp/dl", state: state)
    }

    func recount(_ table: TaskTable) -> [TaskState: Int] {
        var counts: [TaskState: Int] = [:]
        for task in table.values where task.deletedAt == nil { counts[task.state, default: 0] += 1 }
        return counts
    }

    func testMixedWritesKeepTheCountsAndTheTasks() {
        var table = TaskTable()
        table.trackChanges()
        var model: [String: DownloadTask] = [:]
        var random = SystemRandomNumberGenerator()
        for step in 0 ..< 2_000 {
            let n = Int.random(in: 0 ..< 40, using: &random)
            let url = "http://127.0.0.1/\(n)"
            switch Int.random(in: 0 ..< 6, using: &random) {
            case 0: table[url] = task(n, TaskState.allCases.randomElement(using: &random)!)
            case 1: table[url] = nil
            case 2: table[url]?.state = TaskState.allCases.randomElement(using: &random)!
            case 3: table[url]?.deletedAt = Bool.random(using: &random) ? Date() : nil
            case 4: table[url]?.fileName = "renamed-\(step).bin"
            default: table[url]?.received += 1
            }
            switch table[url] {
            case let written?: model[url] = written
            case nil: model[url] = nil
            }
            XCTAssertEqual(table.countsByState, recount(table), "after step \(step)")
        }
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: table.values.map { ($0.url, $0) }), model)
        XCTAssertFalse(table.takeChanged().isEmpty)
    }

    func testAWriteChangesOnlyItsOwnTaskAndCopiesNoOtherHolder() {
        var table = TaskTable()
        table["http://127.0.0.1/1"] = task(1)
        table["http://127.0.0.1/2"] = task(2)
        let held = table["http://127.0.0.1/1"]
        table["http://127.0.0.1/1"]?.fileName = "changed.bin"
        XCTAssertEqual(held?.fileName, "1.bin", "a copy held elsewhere keeps its value")
        XCTAssertEqual(table["http://127.0.0.1/1"]?.fileName, "changed.bin")
        XCTAssertEqual(table["http://127.0.0.1/2"]?.fileName, "2.bin")
        table["http://127.0.0.1/3"]?.fileName = "nothing.bin"
        XCTAssertNil(table["http://127.0.0.1/3"], "writing through a missing task adds none")
        XCTAssertEqual(table.count, 2)
    }
}
