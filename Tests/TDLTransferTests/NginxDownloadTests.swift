import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// Real downloads from an nginx the test starts on 127.0.0.1.
final class NginxDownloadTests: XCTestCase {
    // Written by the class's setUp before its first test and read by its tests, all on
    // XCTest's one thread.
    static let site = TemporaryDirectory("tdl-site")
    static var nginx: LoopbackNginx! { get { nginxStore.get() } set { nginxStore.set(newValue) } }
    private static let nginxStore = Locked<LoopbackNginx?>(nil)
    static var sums: [String: String] { get { sumsStore.get() } set { sumsStore.set(newValue) } }
    private static let sumsStore = Locked<[String: String]>([:])
    static let manyCount = 40

    override class func setUp() {
        do {
            for (name, size) in [("small.bin", 300_000), ("big.bin", 48_000_000), ("empty.bin", 0)] {
                try TestFiles.make(site.file(name), size: size, seed: UInt64(size))
                sums[name] = try Processes.sha256(ofFile: site.file(name))
            }
            try FileManager.default.createDirectory(atPath: site.file("many"), withIntermediateDirectories: true)
            for k in 0 ..< manyCount {
                try TestFiles.make(site.file("many/\(k).bin"), size: 20_000 + 997 * k, seed: UInt64(1000 + k))
            }
            nginx = try LoopbackNginx(root: site.path)
        } catch {
            XCTFail("cannot start nginx: \(error)")
        }
    }

    override class func tearDown() { nginx = nil }

    func testOneConnectionDownloadIsByteIdentical() throws {
        let harness = EngineHarness(connections: 1)
        let url = Self.nginx.url("big.bin")
        let task = harness.download([url]).first
        XCTAssertEqual(task?.state, .finished)
        XCTAssertEqual(harness.files(), ["big.bin"], "no .part file is left behind")
        XCTAssertEqual(try Processes.sha256(ofFile: harness.downloads.file("big.bin")), Self.sums["big.bin"])
    }

    func testSegmentedDownloadIsByteIdentical() throws {
        let harness = EngineHarness(connections: 8)
        let url = Self.nginx.url("big.bin")
        let task = harness.download([url]).first
        XCTAssertEqual(task?.state, .finished)
        XCTAssertGreaterThan(task?.segments.count ?? 0, 0)
        XCTAssertEqual(try Processes.sha256(ofFile: harness.downloads.file("big.bin")), Self.sums["big.bin"])
    }

    func testEmptyAndSmallFiles() throws {
        let harness = EngineHarness(connections: 8)
        let tasks = harness.download([Self.nginx.url("empty.bin"), Self.nginx.url("small.bin")])
        XCTAssertEqual(tasks.map(\.state), [.finished, .finished])
        XCTAssertEqual(try Processes.sha256(ofFile: harness.downloads.file("small.bin")), Self.sums["small.bin"])
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: harness.downloads.file("empty.bin"))[.size] as? Int, 0)
    }

    /// Many small files, a few at a time: files whose bytes are in leave their slot while they
    /// wait to be made durable in batches, and each still ends complete under its own name.
    func testManySmallFilesAllEndIdenticalWithNothingLeftOver() throws {
        let harness = EngineHarness(connections: 1)
        harness.manager.maxDownloadCount = 8
        let urls = (0 ..< Self.manyCount).map { Self.nginx.url("many/\($0).bin") }
        let tasks = harness.download(urls)
        XCTAssertEqual(tasks.filter { $0.state == .finished }.count, Self.manyCount)
        XCTAssertEqual(harness.files(), (0 ..< Self.manyCount).map { "\($0).bin" }.sorted())
        for k in 0 ..< Self.manyCount {
            let got = try Data(contentsOf: URL(fileURLWithPath: harness.downloads.file("\(k).bin")))
            let want = try Data(contentsOf: URL(fileURLWithPath: Self.site.file("many/\(k).bin")))
            XCTAssertEqual(got, want, "\(k).bin")
        }
    }

    func testAnExistingFileIsNeverOverwritten() throws {
        let harness = EngineHarness()
        let mine = harness.downloads.file("small.bin")
        try "the user's own file".write(toFile: mine, atomically: true, encoding: .utf8)
        let task = harness.download([Self.nginx.url("small.bin")]).first
        XCTAssertEqual(task?.state, .finished)
        XCTAssertEqual(try String(contentsOfFile: mine, encoding: .utf8), "the user's own file")
        XCTAssertEqual(task?.filePath, harness.downloads.file("small (1).bin"))
        XCTAssertEqual(try Processes.sha256(ofFile: harness.downloads.file("small (1).bin")), Self.sums["small.bin"])
    }

    /// `ulimit -f` below the file's size makes a write fail (EFBIG) on the engine's worker. The
    /// task fails with the reason in words instead of the program dying of SIGXFSZ, its partial
    /// stays, the progress it keeps never counts a byte that is not on disk, and once the limit
    /// is lifted a resume continues from there and ends byte-identical.
    func testAFileSizeLimitFailsTheTaskAndTheResumeEndsIdentical() throws {
        let harness = EngineHarness(connections: 1)
        let url = Self.nginx.url("big.bin")
        let limit: rlim_t = 5_000_000
        var saved = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)
        var limited = saved
        limited.rlim_cur = limit
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limited), 0)
        harness.manager.add([url])
        harness.runUntilIdle()
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)

        let failed = try XCTUnwrap(harness.manager.task(url))
        XCTAssertEqual(failed.state, .failed)
        XCTAssertTrue(failed.failReason?.message.contains("File too large") == true, "\(String(describing: failed.failReason))")
        XCTAssertEqual(harness.files(), ["big.bin.part"], "the partial is kept")
        let part = try Data(contentsOf: URL(fileURLWithPath: harness.downloads.file("big.bin.part")))
        XCTAssertLessThanOrEqual(part.count, Int(limit))
        XCTAssertLessThanOrEqual(failed.received, Int64(part.count), "kept progress counts only bytes on disk")
        let source = try Data(contentsOf: URL(fileURLWithPath: Self.site.file("big.bin")))
        XCTAssertEqual(part.prefix(Int(failed.received)), source.prefix(Int(failed.received)))

        harness.manager.resumeTasks([url])
        harness.runUntilIdle()
        XCTAssertEqual(harness.manager.task(url)?.state, .finished)
        XCTAssertEqual(try Processes.sha256(ofFile: harness.downloads.file("big.bin")), Self.sums["big.bin"])
    }

    func testPauseThenResumeContinuesAndEndsIdentical() throws {
        let harness = EngineHarness(connections: 4)
        let url = Self.nginx.url("big.bin")
        harness.manager.setGlobalRateLimit(8_000_000)
        harness.manager.add([url])
        harness.run(for: 1.5)
        harness.manager.pauseTasks([url])
        harness.run(for: 0.5)  // the final checkpoint arrives
        let paused = harness.manager.task(url)!
        XCTAssertEqual(paused.state, .paused)
        XCTAssertGreaterThan(paused.received, 0, "some bytes were durable before the pause")
        XCTAssertLessThan(paused.received, 48_000_000)
        harness.manager.setGlobalRateLimit(nil)
        harness.manager.resumeTasks([url])
        harness.runUntilIdle()
        XCTAssertEqual(harness.manager.task(url)?.state, .finished)
        XCTAssertEqual(try Processes.sha256(ofFile: harness.downloads.file("big.bin")), Self.sums["big.bin"])
    }

    func testChecksumIsVerified() throws {
        let harness = EngineHarness(maxRetries: 1)
        let good = Checksum(algorithm: .sha256, hex: Self.sums["small.bin"]!)
        let ok = harness.download([Self.nginx.url("small.bin")], checksum: good).first
        XCTAssertEqual(ok?.state, .finished)
        let wrong = Checksum(algorithm: .sha256, hex: String(repeating: "0", count: 64))
        let url = Self.nginx.url("small.bin?again")
        let bad = harness.download([url], checksum: wrong).first
        XCTAssertEqual(bad?.state, .failed)
        guard case .checksumMismatch? = bad?.failReason else { return XCTFail("\(String(describing: bad?.failReason))") }
        XCTAssertFalse(harness.files().contains("small (1).bin"), "a file that fails its checksum is not put in place")
    }

    func testNotFoundFailsAtOnceWithTheReason() {
        let harness = EngineHarness()
        let task = harness.download([Self.nginx.url("missing.bin")], timeout: 10).first
        XCTAssertEqual(task?.state, .failed)
        XCTAssertEqual(task?.failReason, .httpStatus(404))
        XCTAssertEqual(task?.detailText, "Failed: 404 Not Found")
    }

    func testUnreachableServerFailsWithAReason() {
        let harness = EngineHarness(maxRetries: 1)
        let task = harness.download(["http://127.0.0.1:9/nothing.bin"], timeout: 20).first
        XCTAssertEqual(task?.state, .failed)
        guard case .noNetwork? = task?.failReason else { return XCTFail("\(String(describing: task?.failReason))") }
    }
}
