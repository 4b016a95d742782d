import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// Every fault ends in a correct file or a clear reason, never a wrong file.
final class FaultServerTests: FaultServerTestCase {
    func assertIdentical(_ harness: EngineHarness, _ file: String, name: String, size: Int, seed: Int, line: UInt = #line) throws {
        XCTAssertEqual(try Processes.sha256(ofFile: harness.downloads.file(file)), try server.sha256(name: name, size: size, seed: seed), line: line)
    }

    func testDroppedConnectionIsResumedNotRestarted() throws {
        let harness = EngineHarness(connections: 1)
        try server.reset()
        // fail_first keeps the drop to the first answer; the retry asks for the rest.
        let url = server.url("/file/drop.bin?size=3000000&seed=5&drop_after=1000000")
        let task = harness.download([url]).first
        XCTAssertEqual(task?.state, .finished, "\(String(describing: task?.failReason))")
        // Every answer drops after 1 MB, so three answers of ranges are needed: never from zero again.
        XCTAssertLessThanOrEqual(try server.bodyBytesSent(), 3_000_000 + 100_000)
        try assertIdentical(harness, "drop.bin", name: "drop.bin", size: 3_000_000, seed: 5)
    }

    /// A pause and a restart in one turn of the loop: the paused download's last checkpoint
    /// comes back after the new download began from zero, and must not be recorded for it (a
    /// crash would then resume past bytes the new part file does not have).
    func testALateCheckpointOfAStoppedDownloadIsNotRecordedForTheNextOne() throws {
        let harness = EngineHarness(connections: 1)
        let url = server.url("/file/late.bin?size=4000000&seed=9&rate=1000000")
        harness.manager.add([url])
        harness.run(for: 1.2)
        let before = harness.manager.engine?.liveProgress()[url] ?? 0
        XCTAssertGreaterThan(before, 500_000)
        harness.manager.pauseTasks([url])
        harness.manager.restartTasks([url])
        harness.run(for: 0.2)
        let recorded = harness.manager.task(url)?.segments.reduce(0) { $0 + $1.done } ?? 0
        XCTAssertLessThan(recorded, before / 2, "the paused download's offsets were recorded for the restarted one")
        harness.runUntilIdle(timeout: 30)
        XCTAssertEqual(harness.manager.state(of: url), .finished)
        try assertIdentical(harness, "late.bin", name: "late.bin", size: 4_000_000, seed: 9)
    }

    /// Apache's `AddEncoding x-gzip .gz` labels a .tar.gz as gzip-encoded, and some servers
    /// compress text nobody asked them to: the file saved is the bytes sent, as `curl -o` saves
    /// them, never their decoded form cut at Content-Length.
    func testAnUnrequestedContentEncodingIsSavedAsSent() throws {
        let harness = EngineHarness(connections: 4)
        for (name, type) in [("release.tar.gz", "application/x-gzip"), ("notes.txt", "text/plain")] {
            let url = server.url("/file/\(name)?size=3000000&seed=11&gzip=1&ctype=\(type)")
            let task = harness.download([url]).first
            XCTAssertEqual(task?.state, .finished, "\(name): \(String(describing: task?.failReason))")
            XCTAssertEqual(try Processes.sha256(ofFile: harness.downloads.file(name)),
                           try server.sha256(name: name, size: 3_000_000, seed: 11, gzip: true), name)
        }
    }

    func testServerThatIgnoresRangesRestartsFromZeroAndEndsCorrect() throws {
        let harness = EngineHarness(connections: 4)
        let url = server.url("/file/norange.bin?size=2500000&seed=6&no_range=1&drop_after=900000")
        // Every answer drops after 900 kB and ranges are ignored: nothing can ever complete, and
        // nothing wrong may be written either.
        let task = harness.download([url], timeout: 30).first
        XCTAssertEqual(task?.state, .failed)
        XCTAssertFalse(harness.files().contains("norange.bin"))
        let whole = server.url("/file/norange2.bin?size=2500000&seed=6&no_range=1")
        XCTAssertEqual(harness.download([whole]).first?.state, .finished)
        try assertIdentical(harness, "norange2.bin", name: "norange2.bin", size: 2_500_000, seed: 6)
    }

    /// `python3 -m http.server`: 200 to every Range, no Accept-Ranges. Another download's
    /// retries wake the loop's timers; they must never add a connection to this one (its range
    /// would come back 200 and start the file over), so it is fetched once, whole.
    func testAnotherDownloadsRetriesNeverReconnectAServerWithoutRanges() throws {
        let harness = EngineHarness(connections: 4, maxRetries: 30)
        try server.reset()
        let url = server.url("/file/plain.bin?size=3000000&seed=21&no_range=1&no_accept_ranges=1&rate=1000000")
        let refused = "http://127.0.0.1:\(RefusingPort.make())/never.bin"
        harness.manager.add([url, refused])
        let deadline = Date().addingTimeInterval(30)
        while harness.manager.state(of: url) != .finished && harness.manager.state(of: url) != .failed && Date() < deadline {
            _ = harness.manager.runOnce(timeoutMs: 20)
        }
        XCTAssertEqual(harness.manager.state(of: url), .finished, "\(String(describing: harness.manager.task(url)?.failReason))")
        XCTAssertGreaterThan(harness.manager.task(refused)?.retries ?? 0, 2, "the other download did not retry meanwhile")
        XCTAssertEqual(try server.requests(to: "/file/plain.bin").total, 1)
        try assertIdentical(harness, "plain.bin", name: "plain.bin", size: 3_000_000, seed: 21)
    }

    func testServerErrorThenSuccessIsRetried() throws {
        let harness = EngineHarness()
        let url = server.url("/file/flaky.bin?size=100000&seed=9&fail_first=2&fail_code=500")
        let task = harness.download([url]).first
        XCTAssertEqual(task?.state, .finished)
        XCTAssertEqual(task?.retries, 2)
        try assertIdentical(harness, "flaky.bin", name: "flaky.bin", size: 100_000, seed: 9)
    }

    func testTooManyRequestsHonoursRetryAfter() throws {
        let harness = EngineHarness()
        let url = server.url("/file/busy.bin?size=1000&seed=1&fail_first=1&fail_code=429&retry_after=1")
        let start = Date()
        let task = harness.download([url]).first
        XCTAssertEqual(task?.state, .finished)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.75, "waited about the second the server asked for")
    }

    func testPermanentErrorsFailAtOnce() {
        let harness = EngineHarness(maxRetries: 5)
        for (code, phrase) in [(403, "403 Forbidden"), (410, "410 Gone")] {
            let start = Date()
            let task = harness.download([server.url("/file/x.bin?status=\(code)")], timeout: 10).first
            XCTAssertEqual(task?.failReason?.message, phrase)
            XCTAssertLessThan(Date().timeIntervalSince(start), 2, "no retries for \(code)")
        }
    }

    func testRedirectChainIsFollowedAndLoopFails() throws {
        let harness = EngineHarness()
        let chained = harness.download([server.url("/redirect/3/file/moved.bin?size=5000&seed=2")]).first
        XCTAssertEqual(chained?.state, .finished)
        XCTAssertEqual(chained?.finalURL, server.url("/file/moved.bin?size=5000&seed=2"))
        try assertIdentical(harness, "moved.bin", name: "moved.bin", size: 5000, seed: 2)
        let loop = harness.download([server.url("/loop")], timeout: 10).first
        XCTAssertEqual(loop?.failReason, .tooManyRedirects)
    }

    func testChunkedAnswerWithoutLengthIsComplete() throws {
        let harness = EngineHarness(connections: 8)
        let task = harness.download([server.url("/file/chunked.bin?size=777777&seed=4&chunked=1")]).first
        XCTAssertEqual(task?.state, .finished)
        XCTAssertEqual(task?.size, 777_777)
        try assertIdentical(harness, "chunked.bin", name: "chunked.bin", size: 777_777, seed: 4)
    }

    func testStalledTransferIsReconnectedAndResumed() throws {
        let harness = EngineHarness(connections: 1)
        // Each answer stalls after 2 kB; the engine drops it after 2 s below 1 KB/s and resumes
        // from there. Small answers: curl averages the speed over the last seconds, so a large
        // one before the stall would hold it above the floor for seconds more. One stall is
        // enough: an answer from the start again would stall at the same place forever.
        let url = server.url("/file/stall.bin?size=4000&seed=3&stall_after=2000&stall=30&fail_first=0")
        let task = harness.download([url], timeout: 60).first
        XCTAssertEqual(task?.state, .finished, "\(String(describing: task?.failReason))")
        try assertIdentical(harness, "stall.bin", name: "stall.bin", size: 4_000, seed: 3)
    }

    func testHostileContentDispositionNamesAreMadeSafe() throws {
        let harness = EngineHarness()
        let cases: [(header: String, expected: String)] = [
            ("attachment; filename=\"../../etc/passwd\"", "passwd"),
            ("attachment; filename=\"\u{1B}[2Jevil.txt\"", "[2Jevil.txt"),
            ("attachment; filename*=UTF-8''%E4%B8%8B%E8%BD%BD.zip", "下载.zip"),
            ("attachment; filename=\".hidden\"", "hidden"),
            ("attachment; filename=\"" + String(repeating: "n", count: 300) + ".bin\"", String(repeating: "n", count: 246) + ".bin"),
        ]
        for (k, item) in cases.enumerated() {
            let encoded = item.header.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let url = server.url("/file/cd\(k)?size=1000&seed=\(k)&cd=\(encoded)")
            let task = harness.download([url]).first
            XCTAssertEqual(task?.state, .finished)
            XCTAssertEqual(task?.fileName, item.expected)
            XCTAssertTrue(FileManager.default.fileExists(atPath: harness.downloads.file(item.expected)))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: harness.downloads.path + "/../etc/passwd"))
    }
}
