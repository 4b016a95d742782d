import Foundation
@testable import TDLCore
import XCTest

/// Every write through the table's subscript keeps its counts by state and the tasks as
/// written, whether it changes, adds, replaces or removes a task.
final class TaskTableTests: XCTestCase {
    /// SplitMix64: the same seed gives the same writes, so a failure can be replayed.
    struct SeededRandom: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func task(_ n: Int, _ state: TaskState = .waiting) -> DownloadTask {
        DownloadTask(url: "http://127.0.0.1/\(n)", fileName: "\(n).bin", directory: "/tmp/dl",
                     addTime: Date(timeIntervalSince1970: 1_700_000_000), state: state)
    }

    func counts(_ tasks: some Sequence<DownloadTask>) -> [TaskState: Int] {
        var counts: [TaskState: Int] = [:]
        for task in tasks where task.deletedAt == nil { counts[task.state, default: 0] += 1 }
        return counts
    }

    func testMixedWritesKeepTheCountsAndTheTasks() {
        var table = TaskTable()
        table.trackChanges()
        // The same writes on a plain dictionary: what the table must hold.
        var model: [String: DownloadTask] = [:]
        var written = Set<String>()
        var random = SeededRandom(state: 31)
        for step in 0 ..< 2_000 {
            let n = Int.random(in: 0 ..< 40, using: &random)
            let url = "http://127.0.0.1/\(n)"
            let state = TaskState.allCases.randomElement(using: &random)!
            let date: Date? = Bool.random(using: &random) ? Date(timeIntervalSince1970: Double(step)) : nil
            switch Int.random(in: 0 ..< 6, using: &random) {
            case 0: table[url] = task(n, state); model[url] = task(n, state)
            case 1: table[url] = nil; model[url] = nil
            case 2: table[url]?.state = state; model[url]?.state = state
            case 3: table[url]?.deletedAt = date; model[url]?.deletedAt = date
            case 4: table[url]?.fileName = "renamed-\(step).bin"; model[url]?.fileName = "renamed-\(step).bin"
            default: table[url]?.received += 1; model[url]?.received += 1
            }
            written.insert(url)
            XCTAssertEqual(table.countsByState, counts(model.values), "after step \(step)")
            XCTAssertEqual(table[url], model[url], "after step \(step)")
        }
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: table.values.map { ($0.url, $0) }), model)
        XCTAssertEqual(table.takeChanged(), written)
    }

    /// A write that throws part-way keeps what it wrote before, and the counts with it.
    func testAWriteThatThrowsKeepsTheTaskAndTheCounts() {
        struct Refused: Error {}
        func write(_ task: inout DownloadTask?) throws {
            task?.state = .finished
            throw Refused()
        }
        var table = TaskTable()
        table["http://127.0.0.1/1"] = task(1)
        XCTAssertThrowsError(try write(&table["http://127.0.0.1/1"]))
        XCTAssertEqual(table["http://127.0.0.1/1"]?.state, .finished)
        XCTAssertEqual(table.countsByState, [.finished: 1])
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
