import CCurl
import Foundation
import TDLCore
@testable import TDLTransfer
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The file worker runs below the loop's priority, on a thread of its own that ends with it.
final class WorkerThreadTests: XCTestCase {
    func testTheWorkerRunsTenNicerThanTheLoopAndTheLoopKeepsItsOwn() throws {
        let loopNice = try niceness(of: tdl_gettid())
        let worker = WorkerThread(name: "tdl.worker")
        defer { worker.stop() }
        let tid = try workerTid(worker)
        XCTAssertNotEqual(tid, tdl_gettid())
        XCTAssertEqual(try niceness(of: tid), min(19, loopNice + 10), "the worker's nice value")
        XCTAssertEqual(try niceness(of: tdl_gettid()), loopNice, "the loop's is left as it was")
    }

    func testJobsRunInOrderAndTheThreadEndsWhenStopped() throws {
        let worker = WorkerThread(name: "tdl.worker")
        let order = Locked<[Int]>([])
        for n in 0..<100 { worker.async { order.withLock { $0.append(n) } } }
        let tid = try workerTid(worker)
        XCTAssertEqual(order.withLock { $0 }, Array(0..<100))
        worker.stop()
        let deadline = Date().addingTimeInterval(5)
        while FileManager.default.fileExists(atPath: "/proc/self/task/\(tid)") && Date() < deadline { usleep(1_000) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/proc/self/task/\(tid)"), "the thread ended")
    }

    /// The thread's id, asked of a job (which also waits for the jobs before it).
    private func workerTid(_ worker: WorkerThread) throws -> Int32 {
        let tid = Locked<Int32>(0)
        worker.async { tid.withLock { $0 = tdl_gettid() } }
        worker.sync()
        return tid.withLock { $0 }
    }

    /// Field 19 of /proc/self/task/TID/stat, the thread's nice value.
    private func niceness(of tid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8)
        let close = try XCTUnwrap(stat.range(of: ")", options: .backwards))
        let fields = stat[close.upperBound...].split(separator: " ")  // from field 3 on
        return try XCTUnwrap(Int(fields[16]))
    }
}
