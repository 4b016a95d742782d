import Foundation
import TDLCore
@testable import TDLStore
import XCTest

/// A session file the running tdl just created is not read back at launch (nothing can be in
/// it), and the "not ended cleanly" mark waits for the first commit that saves a task.
final class NewSessionFileTests: XCTestCase {
    func task(_ name: String) -> DownloadTask {
        DownloadTask(url: "http://127.0.0.1/\(name)", fileName: name, directory: "/tmp/dl",
                     addTime: Date(timeIntervalSince1970: 1_700_000_000), state: .waiting)
    }

    func testTheWriterThatCreatedTheFileLoadsWhatItCommittedSince() throws {
        let world = LifecycleWorld()
        let store = try SQLiteSessionStore(path: world.dbPath, soleWriter: true)
        XCTAssertTrue(try store.load().tasks.isEmpty)
        var changes = SessionChanges()
        changes.upserted = [task("a.bin")]
        var settings = SessionSettings()
        settings.maxDownloadCount = 7
        changes.settings = settings
        try store.commit(changes)
        let loaded = try store.load()
        XCTAssertEqual(loaded.tasks.keys.sorted(), ["http://127.0.0.1/a.bin"])
        XCTAssertEqual(loaded.settings.maxDownloadCount, 7)
    }

    func testAFileMovedAsideIsReplacedByOneThatLoadsWhatIsCommittedToIt() throws {
        let world = LifecycleWorld()
        try Data("not a database, written by someone else".utf8).write(to: URL(fileURLWithPath: world.dbPath))
        let store = try SQLiteSessionStore(path: world.dbPath, soleWriter: true)
        guard case .movedAside? = store.recoveryNotice else { return XCTFail("the damaged file was not moved aside") }
        XCTAssertTrue(try store.load().tasks.isEmpty)
        var changes = SessionChanges()
        changes.upserted = [task("d.bin")]
        try store.commit(changes)
        XCTAssertEqual(try store.load().tasks.keys.sorted(), ["http://127.0.0.1/d.bin"])
    }

    func testAFreshFilesSettingsAreTheDefaultsAFileReadGives() throws {
        let world = LifecycleWorld()
        let created = try SQLiteSessionStore(path: world.dbPath, soleWriter: true).load().settings
        // Another connection, not the file's one writer, reads the same empty file.
        XCTAssertEqual(try SQLiteSessionStore(path: world.dbPath).load().settings, created)
    }

    /// A run killed after its first task was saved is a crash to the next launch: the mark
    /// went with that commit, although the load of the empty session wrote nothing.
    func testAKillAfterTheFirstSavedTaskIsACrashToTheNextLaunch() throws {
        let world = LifecycleWorld()
        try world.launch()
        XCTAssertTrue(try SQLiteSessionStore(path: world.dbPath).load().settings.endedCleanly, "the empty session's load wrote nothing")
        XCTAssertEqual(world.manager.add([DownloadRequest(url: "http://127.0.0.1/b.bin")]).added.count, 1)
        world.manager.flush()
        world.crash()
        XCTAssertFalse(try SQLiteSessionStore(path: world.dbPath).load().settings.endedCleanly)
    }

    /// The first commit may be a name's, which carries only the tasks that must precede their
    /// files: the mark goes with it, not after it.
    func testAKillAfterAFirstAnswersNameCommitIsACrashToTheNextLaunch() throws {
        let world = LifecycleWorld()
        try world.launch()
        let url = "http://127.0.0.1/c.bin"
        XCTAssertEqual(world.manager.add([DownloadRequest(url: url)]).added, [url])
        world.engine.onEvent?(.resolved(url: url, fileName: "c.bin", size: 10, mimeType: nil, etag: nil, lastModified: nil,
                                        finalURL: url, commitNow: true))
        world.crash()
        let stored = try SQLiteSessionStore(path: world.dbPath).load()
        XCTAssertEqual(stored.tasks[url]?.size, 10, "the name's commit saved the task")
        XCTAssertFalse(stored.settings.endedCleanly)
    }
}
