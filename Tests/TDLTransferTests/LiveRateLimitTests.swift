import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// A task's own rate limit changes a running transfer at once, both ways.
final class LiveRateLimitTests: XCTestCase {
    func testTaskLimitSetAndLiftedWhileRunning() throws {
        let site = TemporaryDirectory("tdl-live-limit")
        try TestFiles.make(site.file("live.bin"), size: 20_000_000, seed: 71)
        let nginx = try LoopbackNginx(root: site.path)
        let harness = EngineHarness(connections: 4)
        let url = nginx.url("live.bin")
        harness.manager.add([url])
        harness.manager.setRateLimit(1_000_000, forTasks: [url])
        harness.run(for: 1.5)
        let limited = harness.manager.engine?.liveProgress()[url] ?? 0
        XCTAssertGreaterThan(limited, 0)
        // 1.5 s at 1 MB/s, plus the first tenth of a second's allowance and some slack.
        XCTAssertLessThan(limited, 2_000_000, "the limit held while running")
        XCTAssertEqual(harness.manager.task(url)?.options.rateLimit, 1_000_000, "the task keeps its limit")
        harness.manager.setRateLimit(nil, forTasks: [url])
        let lifted = Date()
        harness.runUntilIdle(timeout: 30)
        XCTAssertLessThan(Date().timeIntervalSince(lifted), 5, "18 MB more at loopback speed, not at 1 MB/s")
        XCTAssertEqual(harness.manager.task(url)?.state, .finished)
        XCTAssertEqual(try Processes.sha256(ofFile: harness.downloads.file("live.bin")), try Processes.sha256(ofFile: site.file("live.bin")))
    }
}
