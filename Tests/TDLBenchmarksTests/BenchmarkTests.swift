import Foundation
import TDLBenchmarks
import TDLStore
import XCTest

/// The benchmarks run at a small size, report every step with its budget, and leave a session
/// that reads back whole.
final class BenchmarkTests: XCTestCase {
    let dir = BenchmarkFolder()

    func testBenchmarkRunsAndPrintsATable() {
        let results = ListBenchmark.run(taskCount: 2000, addCount: 50)
        XCTAssertTrue(results.contains { $0.name.hasPrefix("sort by name, ascending") && $0.limit == ListBenchmark.sortLimitMs })
        XCTAssertTrue(results.contains { $0.name.hasPrefix("add 50 URLs") && $0.limit == ListBenchmark.addLimitMs })
        XCTAssertTrue(results.allSatisfy { $0.milliseconds >= 0 })
        let table = ListBenchmark.table(results)
        XCTAssertTrue(table.hasPrefix("step"))
        XCTAssertEqual(table.split(separator: "\n").count, results.count + 1)
    }

    func testSessionBenchmarkWritesRestoresAndReportsItsBudgets() throws {
        let results = try SessionBenchmark.run(folder: dir.path, taskCount: 2_000, activeCount: 20, repetitions: 1)
        XCTAssertEqual(results.map(\.name), ["write 2000 new tasks", "checkpoint of 20 active downloads", "open and restore 2000 tasks"])
        XCTAssertEqual(results[1].limit, SessionBenchmark.checkpointLimitMs)
        XCTAssertEqual(results[2].limit, SessionBenchmark.restoreLimitMs)
        XCTAssertEqual(try SQLiteSessionStore(path: dir.path + "/session.sqlite", session: "bench").load().tasks.count, 2_000)
    }
}

/// A temporary folder for one test, removed after it.
final class BenchmarkFolder {
    let path = NSTemporaryDirectory() + "tdl-bench-\(UUID().uuidString)"
    init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
