import Foundation
import TDLCore
import TDLTestSupport
@testable import TDLTransfer
import XCTest

/// The manager hears the engine only outside libcurl: a report made in a callback (the
/// manager commits to SQLite and tells its observers) would run with curl's stack below it.
final class EngineReportTests: XCTestCase {
    /// Whether libcurl is on the calling thread's stack.
    static func insideLibcurl() -> Bool {
        Thread.callStackSymbols.contains { $0.contains("libcurl") }
    }

    /// The check itself sees libcurl where it is: a stream's first progress is told from
    /// inside its write callback.
    func testTheCheckSeesLibcurlInsideACallback() throws {
        let source = TemporaryDirectory("tdl-source")
        try TestFiles.make(source.file("s.bin"), size: 100_000, seed: 2)
        let sink = open("/dev/null", O_WRONLY)
        defer { close(sink) }
        let stream = StreamDownload(url: "file://" + source.file("s.bin"), options: DownloadOptions(), settings: EngineSettings(), output: sink)
        var calls: [Bool] = []
        stream.onProgress = { _, _ in calls.append(Self.insideLibcurl()) }
        XCTAssertNil(stream.run())
        XCTAssertEqual(calls.first, true, "the first progress comes from the write callback")
        XCTAssertEqual(calls.last, false, "the last one after the transfer")
    }

    func testNoReportReachesTheManagerFromInsideLibcurl() throws {
        let source = TemporaryDirectory("tdl-source")
        try TestFiles.make(source.file("a.bin"), size: 3_000_000, seed: 3)
        try TestFiles.make(source.file("b.bin"), size: 0, seed: 4)
        let harness = EngineHarness(connections: 1)
        let engine = try XCTUnwrap(harness.manager.engine as? CurlEngine)
        let deliver = engine.onEvent
        var heard: [String] = []
        var heardInsideLibcurl: [String] = []
        engine.onEvent = { event in
            let name = "\(event)".prefix { $0 != "(" }
            heard.append(String(name))
            if Self.insideLibcurl() { heardInsideLibcurl.append(String(name)) }
            deliver?(event)
        }
        let tasks = harness.download(["file://" + source.file("a.bin"), "file://" + source.file("b.bin")])
        XCTAssertEqual(tasks.map(\.state), [.finished, .finished], "\(tasks.map(\.failReason))")
        XCTAssertTrue(heard.contains("resolved"), "\(heard)")
        XCTAssertEqual(heardInsideLibcurl, [])
        XCTAssertEqual(try Processes.sha256(ofFile: harness.downloads.file("a.bin")), try Processes.sha256(ofFile: source.file("a.bin")))
    }
}
