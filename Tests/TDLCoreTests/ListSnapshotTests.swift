import Dispatch
import XCTest
@testable import TDLCore

final class ListSnapshotTests: XCTestCase {
    /// A snapshot keeps the names it was taken with, whatever the manager does after.
    func testNamesAreTheManagersAtTheTimeTheyWereTaken() {
        let f = Fixture()
        let (a, b) = (f.add(["a.iso"])[0], f.add(["b.iso"])[0])
        f.manager.changeDisplayNameOfTask(b, to: "Bee")
        let names = f.manager.listSnapshot
        XCTAssertEqual(names.displayName(of: a), "a.iso")
        XCTAssertEqual(names.displayName(of: b), "Bee")

        f.engine.resolve(a, name: "renamed.iso", size: 10)
        let c = f.add(["c.iso"])[0]
        XCTAssertEqual(f.manager.displayName(of: a), "renamed.iso")
        XCTAssertEqual(names.displayName(of: a), "a.iso", "taken before the rename")
        XCTAssertNil(names.displayName(of: c), "taken before the add")
    }

    /// Two threads read one snapshot while the manager's thread waits, as the screen's filter does.
    func testTwoThreadsReadOneSnapshot() {
        let f = Fixture(limit: 0)
        let urls = f.add((0 ..< 2_000).map { "file\($0).bin" })
        let names = f.manager.listSnapshot
        let found = Locked([Int](repeating: 0, count: 2))
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            var count = 0
            for url in urls[part * 1_000 ..< (part + 1) * 1_000] where names.displayName(of: url) != nil { count += 1 }
            found.withLock { $0[part] = count }
        }
        XCTAssertEqual(found.withLock { $0 }, [1_000, 1_000])
    }
}
