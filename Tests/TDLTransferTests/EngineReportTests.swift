import CCurl
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
        Thread.callStackReturnAddresses.contains { LibcurlCode.shared.contains(UInt(truncating: $0)) }
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

/// Where libcurl's functions are in this test binary, which links them in from libcurl.a (their
/// names are hidden from `dladdr`, so a stack's symbols do not show them): the binary's
/// functions by address, from its symbol table, and the names libcurl.a defines, both read
/// with nm; the binary's load address from where `curl_easy_init` is.
final class LibcurlCode: Sendable {
    static let shared = LibcurlCode()
    private let starts: [UInt], ends: [UInt]

    private init() {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let curlNames = Set(Self.nm(["--defined-only", "/usr/lib/x86_64-linux-gnu/libcurl.a"]).compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count == 3 && "tT".contains(fields[1]) ? fields[2] : nil
        })
        var functions: [(start: UInt, end: UInt, name: Substring)] = []
        for line in Self.nm(["-S", "--defined-only", executable]) {
            let fields = line.split(separator: " ")
            guard fields.count == 4, "tT".contains(fields[2]), curlNames.contains(fields[3]),
                  let start = UInt(fields[0], radix: 16), let size = UInt(fields[1], radix: 16) else { continue }
            functions.append((start, start + size, fields[3]))
        }
        let easyInit: @convention(c) () -> UnsafeMutableRawPointer? = curl_easy_init
        let linkedAt = functions.first { $0.name == "curl_easy_init" }?.start ?? 0
        let base = UInt(bitPattern: unsafeBitCast(easyInit, to: Int.self)) &- linkedAt
        functions.sort { $0.start < $1.start }
        starts = functions.map { base &+ $0.start }
        ends = functions.map { base &+ $0.end }
        precondition(!starts.isEmpty, "no libcurl function found in \(executable)")
    }

    func contains(_ address: UInt) -> Bool {
        // The last function starting at or before the address.
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= address { low = middle + 1 } else { high = middle }
        }
        return low > 0 && address < ends[low - 1]
    }

    private static func nm(_ arguments: [String]) -> [Substring] {
        let result = try? Processes.run("/usr/bin/nm", arguments)
        return (result?.stdout ?? "").split(separator: "\n")
    }
}
