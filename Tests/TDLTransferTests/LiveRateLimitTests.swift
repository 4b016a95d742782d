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

    /// The total cap is shared by the downloads that run: one paused, the other gets the
    /// whole cap within a few seconds, not the half it had.
    func testTheTotalCapIsSharedAgainWhenADownloadStops() throws {
        let site = TemporaryDirectory("tdl-share-limit")
        try TestFiles.make(site.file("one.bin"), size: 30_000_000, seed: 73)
        try TestFiles.make(site.file("two.bin"), size: 30_000_000, seed: 74)
        let nginx = try LoopbackNginx(root: site.path)
        let harness = EngineHarness(connections: 2)
        let (one, two) = (nginx.url("one.bin"), nginx.url("two.bin"))
        harness.manager.setGlobalRateLimit(1_048_576)
        harness.manager.add([one, two])
        harness.run(for: 1.5)
        XCTAssertEqual(harness.manager.state(of: one), .downloading)
        XCTAssertEqual(harness.manager.state(of: two), .downloading)
        _ = harness.manager.pauseTasks([two])
        harness.run(for: 1)
        let from = harness.manager.engine?.liveProgress()[one] ?? 0
        harness.run(for: 3)
        let rate = Double((harness.manager.engine?.liveProgress()[one] ?? 0) - from) / 3
        XCTAssertGreaterThan(rate, 800_000, "near the whole cap of 1 MiB/s, not the half it had")
        XCTAssertLessThan(rate, 1_300_000, "the cap still holds")
    }
}

/// Under a limit far below one read of the network (2 KB/s over 8 connections), the speed a
/// row shows after a few seconds is the limit, not the first reads averaged since the start.
final class LowRateLimitSpeedTests: XCTestCase {
    /// Downloads a file of `size` bytes over 8 connections under `limit`, lowered to 2 KB/s
    /// after `lowerAfter` seconds, then runs 8 s more. The bytes before and after those 8 s,
    /// and the speed the row shows at their end.
    func downloadUnder(limit: Int64, lowerAfter: Double, size: Int) throws -> (before: Int64, after: Int64, speed: Int64) {
        let site = TemporaryDirectory("tdl-low-limit")
        try TestFiles.make(site.file("slow.bin"), size: size, seed: 72)
        let nginx = try LoopbackNginx(root: site.path)
        let harness = EngineHarness(connections: 8)
        let url = nginx.url("slow.bin")
        harness.manager.setGlobalRateLimit(limit)
        harness.manager.add([url])
        harness.run(for: lowerAfter)
        harness.manager.setGlobalRateLimit(2_000)
        let before = harness.manager.engine?.liveProgress()[url] ?? 0
        harness.run(for: 8)
        return (before, harness.manager.engine?.liveProgress()[url] ?? 0, harness.manager.activity[url]?.speed ?? 0)
    }

    func testTheShownSpeedIsWithinALowLimitAfterAFewSeconds() throws {
        let run = try downloadUnder(limit: 2_000, lowerAfter: 0, size: 4_000_000)
        // 8 s at 2 KB/s is 16 KB; the first reads of 8 connections may add a few KB.
        XCTAssertLessThan(run.after, 32_000, "the limit held from the start")
        XCTAssertGreaterThan(run.speed, 1_000, "the row shows a speed near the limit")
        XCTAssertLessThan(run.speed, 3_000, "the row shows a speed near the limit")
    }

    /// The same when the limit falls while the download runs (`L 2K` on the screen): the
    /// connections' larger reads do not carry on at the old pace.
    func testALimitLoweredWhileRunningHoldsAndShows() throws {
        let run = try downloadUnder(limit: 1_000_000, lowerAfter: 2, size: 20_000_000)
        XCTAssertGreaterThan(run.before, 500_000, "it ran at the first limit")
        XCTAssertLessThan(run.after - run.before, 32_000, "8 s at 2 KB/s once lowered")
        XCTAssertGreaterThan(run.speed, 1_000, "the row shows a speed near the new limit")
        XCTAssertLessThan(run.speed, 3_000, "the row shows a speed near the new limit")
    }
}
