import Foundation
import XCTest
@testable import TDLCore

final class DebugDataAndBenchmarkTests: XCTestCase {
    func testReproduceDataIsDeterministicAndStartsNothing() {
        let f = Fixture()
        let g = Fixture()
        g.clock.now = f.clock.now
        f.manager.reproduceData(count: 500, seed: 9)
        g.manager.reproduceData(count: 500, seed: 9)
        XCTAssertEqual(f.manager.downloadList, g.manager.downloadList)
        XCTAssertEqual(f.manager.downloadList.joined().count, 500)
        XCTAssertTrue(f.engine.started.isEmpty)
        let sizes = f.flatList.compactMap { f.manager.task($0)?.size }
        XCTAssertTrue(sizes.contains { $0 < 1_000_000 } && sizes.contains { $0 > 1_000_000_000 })
        XCTAssertTrue(f.flatList.contains { f.manager.task($0)?.size == nil })
        XCTAssertEqual(Set(f.flatList.map { f.manager.state(of: $0)! }), [.finished, .stopped, .paused, .failed])
        let ages = f.flatList.map { f.clock.now.timeIntervalSince(f.manager.task($0)!.addTime) }
        XCTAssertTrue(ages.allSatisfy { $0 >= 0 && $0 <= 60 * 86_400 })
        f.assertIndexPathsConsistent()

        let h = Fixture()
        h.manager.reproduceData(count: 500, seed: 10)
        XCTAssertNotEqual(f.manager.downloadList, h.manager.downloadList)
    }

    func testReproduceDataShrinksWithoutTouchingFiles() {
        let f = Fixture()
        let a = f.add(["keep.bin"])[0]
        f.finish(a)
        f.manager.reproduceData(count: 50)
        XCTAssertEqual(f.manager.downloadList.joined().count, 50)
        f.manager.reproduceData(count: 0)
        XCTAssertEqual(f.manager.downloadList, [[]])
        XCTAssertTrue(f.exists((f.folder as NSString).appendingPathComponent("keep.bin")))
    }

    func testReproduceDataInManualMode() {
        let f = Fixture()
        f.manager.arrange(.manual)
        f.add(["mine"])
        f.manager.reproduceData(count: 20)
        XCTAssertEqual(f.manager.sectionCount, 1)
        XCTAssertEqual(f.manager.downloadList[0].first, Fixture.url("mine"))
        XCTAssertEqual(f.manager.taskCountInSection(0), 20)
    }
}
