import Foundation
import XCTest
@testable import TDLCore

/// A `.resolved` is committed before the engine makes a file under its name; a turn's first
/// answers are reported first without a commit, then committed together by the first file.
final class ResolvedCommitTests: XCTestCase {
    func testNamesReportedWithoutACommitGoOutWithTheNextCommitAndARepeatWritesNothing() throws {
        let f = try TwoAdded()
        let (store, manager, a, b, before) = (f.store, f.manager, f.a, f.b, f.before)
        f.resolved(a, "a.bin", commitNow: false)
        f.resolved(b, "b.bin", commitNow: false)
        XCTAssertEqual(store.commits.count, before, "nothing written yet")
        XCTAssertEqual(manager.task(b)?.fileName, "b.bin", "known at once (another download's name check sees it)")

        f.resolved(a, "a.bin", commitNow: true)
        XCTAssertEqual(store.commits.count, before + 1)
        XCTAssertEqual(Set(store.commits.last?.upserted.map(\.fileName) ?? []), ["a.bin", "b.bin"], "both names in one commit")

        f.resolved(b, "b.bin", commitNow: true)
        XCTAssertEqual(store.commits.count, before + 1, "b's name was committed with a's")

        f.resolved(b, "b (1).bin", commitNow: true)
        XCTAssertEqual(store.commits.count, before + 2, "a changed name is committed at once")
        XCTAssertEqual(store.commits.last?.upserted.map(\.fileName), ["b (1).bin"])
    }

    /// The commit that carries names reported ahead fails: neither counts as recorded (the
    /// engine makes no file under them), and the next commit that succeeds carries both.
    func testNamesReportedAheadWhoseCommitFailsAreCommittedTogetherByTheRetry() throws {
        let f = try TwoAdded()
        let (store, engine, manager, a, b, before) = (f.store, f.engine, f.manager, f.a, f.b, f.before)
        f.resolved(a, "a.bin", commitNow: false)
        f.resolved(b, "b.bin", commitNow: false)
        store.refusing = true
        f.resolved(a, "a.bin", commitNow: true)
        XCTAssertEqual(engine.isRecorded?(a), false, "a's file would be made under a name the session does not hold")
        f.resolved(b, "b.bin", commitNow: true)
        XCTAssertEqual(engine.isRecorded?(b), false, "b's file would be made under a name the session does not hold")
        XCTAssertEqual(store.commits.count, before)

        store.refusing = false
        manager.flush()
        XCTAssertEqual(engine.isRecorded?(a), true)
        XCTAssertEqual(store.commits.count, before + 1)
        XCTAssertEqual(Set(store.commits.last?.upserted.map(\.fileName) ?? []), ["a.bin", "b.bin"], "the retry carries both names")
    }

    /// A commit of names carries the tasks whose names changed, not downloads that merely
    /// started or ended meanwhile: those go with the next save, and a task that started and
    /// then reported its name goes out whole, state and name in one row.
    func testACommitOfNamesLeavesStartsAndEndsForTheNextSave() throws {
        let store = FakeStore(SessionSnapshot(tasks: [], settings: SessionSettings()))
        let engine = FakeEngine()
        let manager = DownloadManager(defaultDirectory: NSTemporaryDirectory(), engine: engine, store: store)
        _ = try manager.load()
        manager.maxDownloadCount = 2
        let (a, b, c) = ("https://example.com/a", "https://example.com/b", "https://example.com/c")
        manager.add([a, b, c])
        manager.flush()
        XCTAssertEqual(engine.started, [a, b])
        let before = store.commits.count

        resolved(engine, b, "b")
        XCTAssertEqual(store.commits.count, before + 1)
        let folder = NSTemporaryDirectory()
        engine.onEvent?(.finished(url: b, path: (folder as NSString).appendingPathComponent("b"), size: 5))
        XCTAssertEqual(engine.started, [a, b, c], "b's slot went to c")
        resolved(engine, a, "a.bin")
        XCTAssertEqual(store.commits.count, before + 2)
        XCTAssertEqual(store.commits.last?.upserted.map(\.url), [a], "b's end and c's start wait for the next save")
        XCTAssertFalse(manager.isUnsaved)

        manager.flush()
        XCTAssertEqual(store.commits.count, before + 3)
        let saved = Dictionary(uniqueKeysWithValues: (store.commits.last?.upserted ?? []).map { ($0.url, $0) })
        XCTAssertEqual(Set(saved.keys), [b, c])
        XCTAssertEqual(saved[b]?.state, .finished)
        XCTAssertEqual(saved[c]?.state, .downloading)

        // c is finished under another name than the one it had: that may not wait.
        engine.onEvent?(.finished(url: c, path: (folder as NSString).appendingPathComponent("c (1)"), size: 5))
        resolved(engine, a, "a (1).bin")
        XCTAssertEqual(store.commits.last?.upserted.map(\.url), [c, a], "a name changed at the end goes with the names")
        XCTAssertEqual(store.commits.last?.upserted.first?.state, .finished)
    }

    /// After a failed save the commit a name asks for is a whole save, carrying what the failed
    /// one held (the engine asks whether the session is saved, not which rows).
    func testACommitOfNamesAfterAFailedSaveWritesEverything() throws {
        let f = try TwoAdded()
        let (store, manager, a, b, before) = (f.store, f.manager, f.a, f.b, f.before)
        XCTAssertNil(manager.renameFile(of: b, to: "renamed.bin"))
        store.refusing = true
        manager.flush()
        XCTAssertTrue(manager.isUnsaved)
        store.refusing = false
        f.resolved(a, "a.bin", commitNow: true)
        XCTAssertEqual(store.commits.count, before + 1)
        XCTAssertEqual(Set(store.commits.last?.upserted.map(\.fileName) ?? []), ["a.bin", "renamed.bin"])
        XCTAssertFalse(manager.isUnsaved)
    }

    private func resolved(_ engine: FakeEngine, _ url: String, _ name: String) {
        engine.onEvent?(.resolved(url: url, fileName: name, size: 5, mimeType: nil, etag: nil, lastModified: nil,
                                  finalURL: nil, commitNow: true))
    }

    /// Two downloads added to a manager on a fake store and engine, and the engine's report of
    /// a first answer's name.
    private struct TwoAdded {
        let store = FakeStore(SessionSnapshot(tasks: [], settings: SessionSettings()))
        let engine = FakeEngine()
        let manager: DownloadManager
        let a = "https://example.com/a", b = "https://example.com/b"
        let before: Int

        init() throws {
            manager = DownloadManager(defaultDirectory: NSTemporaryDirectory(), engine: engine, store: store)
            _ = try manager.load()
            manager.add([a, b])
            manager.flush()
            before = store.commits.count
        }

        func resolved(_ url: String, _ name: String, commitNow: Bool) {
            engine.onEvent?(.resolved(url: url, fileName: name, size: 5, mimeType: nil, etag: nil, lastModified: nil,
                                      finalURL: nil, commitNow: commitNow))
        }
    }
}
