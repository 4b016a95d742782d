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
