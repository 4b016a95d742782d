import Foundation
import TDLCore
import TDLTestSupport
import TDLTransfer
import XCTest

/// The free space of a download folder is asked once per loop step, and the first answers
/// settled in that step must fit in it together: a folder with room for one of two large
/// files is full for the second, not for neither.
final class FreeSpaceTests: FaultServerTestCase {
    func testTwoFirstAnswersOfOneStepThatFitOnlyOneAtATimeFailTheSecondAsDiskFull() throws {
        let harness = EngineHarness()
        let free = try XCTUnwrap(Self.freeBytes(harness.downloads.path))
        // Each needs 60 % of the folder's space: alone it fits, the two together do not. The
        // server sends a few KiB and stalls, so nothing near that size is ever written.
        let size = free / 10 * 6
        let urls = ["one", "two"].map { server.url("/file/\($0).bin?size=\(size)&seed=5&stall_after=4096&stall=20") }
        harness.manager.add(urls)
        // Turns a while apart, so both first answers wait in the same turn and are settled together.
        let deadline = Date().addingTimeInterval(20)
        while !urls.contains(where: { harness.manager.state(of: $0) == .failed }), Date() < deadline {
            _ = harness.manager.runOnce(timeoutMs: 0)
            Thread.sleep(forTimeInterval: 0.2)
        }
        let failed = urls.filter { harness.manager.state(of: $0) == .failed }
        XCTAssertEqual(failed.count, 1, "exactly one of the two finds the folder full")
        if let url = failed.first {
            XCTAssertEqual(harness.manager.task(url)?.failReason, .diskFull)
        }
        let other = urls.filter { !failed.contains($0) }
        XCTAssertEqual(other.map { harness.manager.state(of: $0) }, [.downloading], "the first keeps the room it claimed")
        _ = harness.manager.stopTasks(urls)
        harness.run(for: 0.2)
    }

    /// The next step asks the file system again: what one step claimed is not held against the next.
    func testAStepDoesNotInheritTheLastStepsClaims() throws {
        let harness = EngineHarness()
        let free = try XCTUnwrap(Self.freeBytes(harness.downloads.path))
        let size = free / 10 * 6
        let first = server.url("/file/first.bin?size=\(size)&seed=6&stall_after=4096&stall=20")
        let second = server.url("/file/second.bin?size=\(size)&seed=7&stall_after=4096&stall=20")
        harness.manager.add([first])
        harness.run(for: 1)
        XCTAssertEqual(harness.manager.state(of: first), .downloading, "\(String(describing: harness.manager.task(first)?.failReason))")
        harness.manager.add([second])
        harness.run(for: 1)
        XCTAssertEqual(harness.manager.state(of: second), .downloading, "\(String(describing: harness.manager.task(second)?.failReason))")
        _ = harness.manager.stopTasks([first, second])
        harness.run(for: 0.2)
    }

    static func freeBytes(_ path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
