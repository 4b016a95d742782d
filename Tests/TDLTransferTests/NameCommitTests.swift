import Foundation
import TDLCore
import TDLTestSupport
import TDLTransfer
import XCTest

/// A session store that refuses, while told to, every commit carrying one of the given names.
final class RefusingStore: SessionStore {
    let names: Set<String>
    var refusing = true
    /// The names each refused commit carried, and the names of each commit taken.
    private(set) var refused: [Set<String>] = []
    private(set) var taken: [Set<String>] = []
    /// The files in `folder` at each refusal: none may be there under a name not yet committed.
    private(set) var filesAtRefusal: [[String]] = []
    let folder: String

    init(folder: String, names: Set<String>) {
        self.folder = folder
        self.names = names
    }

    func load() throws -> SessionSnapshot { SessionSnapshot(tasks: [], settings: SessionSettings()) }

    func commit(_ changes: SessionChanges) throws {
        let carried = Set(changes.upserted.map(\.fileName)).intersection(names)
        guard refusing, !carried.isEmpty else { return taken.append(carried) }
        refused.append(carried)
        filesAtRefusal.append(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted())
        throw CocoaError(.fileWriteOutOfSpace)
    }

    static func parts(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".part") }.sorted()
    }
}

/// The names of a turn's first answers are reported ahead and committed together by the first
/// part file made: when that commit fails, no part file appears under either name, both
/// downloads stop with "not recorded", and once the session can be written they finish.
final class NameCommitTests: FaultServerTestCase {
    func testWhenTheCommitOfNamesReportedAheadFailsNoPartFileIsMadeAndARetryFinishesThem() throws {
        let downloads = TemporaryDirectory("tdl-name-commit")
        let store = RefusingStore(folder: downloads.path, names: ["one.bin", "two.bin"])
        let engine = CurlEngine(settings: EngineHarness.fastSettings)
        let manager = DownloadManager(identifier: "test", defaultDirectory: downloads.path, engine: engine, store: store)
        _ = try manager.load()
        manager.setConnectionsPerDownload(1)
        manager.maxDownloadCount = 0
        var reported: [TransferEvent] = []
        let hear = engine.onEvent
        engine.onEvent = { reported.append($0); hear?($0) }
        // Content-Disposition names unlike the URLs', so only the commit carrying them is refused.
        let urls = ["one", "two"].map { server.url("/file/\($0)-url.bin?size=300000&seed=3&cd=attachment%3B%20filename%3D\($0).bin") }
        manager.add(urls)
        manager.flush()
        XCTAssertFalse(manager.isUnsaved)

        // Turns a while apart, so both first answers wait in the same turn and are settled together.
        let deadline = Date().addingTimeInterval(20)
        while !urls.allSatisfy({ url in reported.contains { Self.isNotRecorded($0, url) } }), manager.isBusy, Date() < deadline {
            _ = manager.runOnce(timeoutMs: 0)
            Thread.sleep(forTimeInterval: 0.2)
        }
        XCTAssertEqual(store.refused.first, ["one.bin", "two.bin"], "both names reported ahead went out in one commit")
        XCTAssertTrue(store.filesAtRefusal.allSatisfy(\.isEmpty), "a file before its name was committed: \(store.filesAtRefusal)")
        XCTAssertEqual(RefusingStore.parts(in: downloads.path), [], "a part file under a name the session does not hold")
        for url in urls {
            XCTAssertTrue(reported.contains { Self.isNotRecorded($0, url) }, "\(url) did not stop as not recorded")
            XCTAssertNotEqual(manager.state(of: url), .failed, "a download held still by the session is not failed")
        }
        XCTAssertTrue(manager.isUnsaved)

        store.refusing = false
        let end = Date().addingTimeInterval(30)
        while (manager.isBusy || manager.isUnsaved), Date() < end { _ = manager.runOnce(timeoutMs: 20) }
        for url in urls { XCTAssertEqual(manager.state(of: url), .finished, url) }
        XCTAssertFalse(store.taken.filter { !$0.isEmpty }.isEmpty, "the names were committed")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []).sorted()
        XCTAssertEqual(files, ["one.bin", "two.bin"], "no \"name (1)\" copy, no part file left")
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("one.bin")), try server.sha256(name: "one-url.bin", size: 300000, seed: 3))
    }

    /// Small files come whole while their names wait to be committed: their bytes wait in
    /// memory and their transfers end meanwhile. A refused commit drops those bytes (no file
    /// appears, nothing is counted as received); once the session takes the names, each file
    /// is downloaded again and is the server's, byte for byte.
    func testSmallFilesThatCameWholeWhileTheirNamesWaitedAreWrittenOnlyOnceTheNamesAreCommitted() throws {
        let downloads = TemporaryDirectory("tdl-name-commit-small")
        let store = RefusingStore(folder: downloads.path, names: ["one.bin", "two.bin"])
        let engine = CurlEngine(settings: EngineHarness.fastSettings)
        let manager = DownloadManager(identifier: "test", defaultDirectory: downloads.path, engine: engine, store: store)
        _ = try manager.load()
        manager.setConnectionsPerDownload(1)
        manager.maxDownloadCount = 0
        var reported: [TransferEvent] = []
        let hear = engine.onEvent
        engine.onEvent = { reported.append($0); hear?($0) }
        let urls = ["one", "two"].map { server.url("/file/\($0)-url.bin?size=100000&seed=4&cd=attachment%3B%20filename%3D\($0).bin") }
        manager.add(urls)
        manager.flush()

        let deadline = Date().addingTimeInterval(20)
        while !urls.allSatisfy({ url in reported.contains { Self.isNotRecorded($0, url) } }), manager.isBusy, Date() < deadline {
            _ = manager.runOnce(timeoutMs: 0)
            Thread.sleep(forTimeInterval: 0.2)
        }
        XCTAssertEqual(store.refused.first, ["one.bin", "two.bin"])
        XCTAssertTrue(store.filesAtRefusal.allSatisfy(\.isEmpty), "a file before its name was committed: \(store.filesAtRefusal)")
        XCTAssertEqual(RefusingStore.parts(in: downloads.path), [])
        for url in urls {
            XCTAssertEqual(manager.task(url)?.received, 0, "bytes held for an answer never settled are not counted")
        }

        store.refusing = false
        let end = Date().addingTimeInterval(30)
        while (manager.isBusy || manager.isUnsaved), Date() < end {
            _ = manager.runOnce(timeoutMs: 0)
            Thread.sleep(forTimeInterval: 0.05)
        }
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []).sorted()
        XCTAssertEqual(files, ["one.bin", "two.bin"])
        for (url, name) in zip(urls, ["one", "two"]) {
            XCTAssertEqual(manager.state(of: url), .finished, url)
            XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("\(name).bin")),
                           try server.sha256(name: "\(name)-url.bin", size: 100000, seed: 4))
        }
    }

    private static func isNotRecorded(_ event: TransferEvent, _ url: String) -> Bool {
        if case let .failed(failed, reason, _) = event { return failed == url && reason == .notRecorded }
        return false
    }
}
