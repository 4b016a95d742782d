import Foundation
import XCTest
@testable import TDLCore

/// A save written on another thread (`takeSave`, `finish`) commits what `flush` would and
/// settles a failure as `flush` does.
final class DetachedSaveTests: XCTestCase {
    let folder = NSTemporaryDirectory()
    let urls = (0 ..< 50).map { "https://example.com/detached/\($0)/file-\($0 % 7).bin" }

    func manager(_ store: FakeStore) -> DownloadManager {
        let manager = DownloadManager(defaultDirectory: folder, store: store)
        let start = Date(timeIntervalSinceReferenceDate: 1000)
        manager.clock = { start }
        return manager
    }

    func rows(_ changes: [SessionChanges]) -> [[String]] {
        changes.flatMap(\.upserted).map { [$0.url, $0.fileName, $0.directory, "\($0.addTime.timeIntervalSince1970)", $0.state.rawValue] }
    }

    func testADetachedSaveCommitsWhatAFlushWould() {
        let flushed = FakeStore(SessionSnapshot()), detached = FakeStore(SessionSnapshot())
        let one = manager(flushed), other = manager(detached)
        // Repeats, and names that collide, as a long input file has them.
        let requests = (urls + urls.prefix(5)).map { DownloadRequest(url: $0) }
        XCTAssertEqual(one.add(requests).added, other.add(requests).added)
        one.flush()
        let save = other.takeSave()
        XCTAssertNotNil(save)
        save?.begin()
        XCTAssertNil(other.finish(save))
        XCTAssertNil(other.lastError)
        XCTAssertEqual(detached.commits.count, 1)
        XCTAssertEqual(rows(detached.commits), rows(flushed.commits))
        XCTAssertEqual(rows(detached.commits).map { $0[0] }, urls, "the rows in the order added")
        XCTAssertNil(other.takeSave(), "nothing is written twice")
        XCTAssertNil(other.finish(nil), "no save: nothing failed")
    }

    func testAFailedDetachedSaveIsToldAndItsChangesGoOutWithTheNextSave() {
        let store = FakeStore(SessionSnapshot())
        let manager = manager(store)
        var told: [String] = []
        manager.observe { if case .saveFailed(let problem) = $0 { told.append(problem) } }
        manager.add(urls.map { DownloadRequest(url: $0) })
        store.refusing = true
        // Not begun: `finish` begins it.
        let problem = manager.finish(manager.takeSave())
        XCTAssertNotNil(problem)
        XCTAssertTrue(problem?.hasPrefix("could not save the session: ") == true, problem ?? "")
        XCTAssertEqual(manager.lastError, problem)
        XCTAssertEqual(told, [problem!])
        XCTAssertTrue(store.commits.isEmpty)

        store.refusing = false
        manager.flush()
        XCTAssertNil(manager.lastError)
        XCTAssertEqual(rows(store.commits).map { $0[0] }, urls, "the changes given back are written")
    }
}
