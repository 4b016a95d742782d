import TDLCore
@testable import TDLTransfer
import XCTest

/// Which source the next connection takes and which one is given up, without a server.
final class MirrorSelectorTests: XCTestCase {
    let all: (String) -> Bool = { _ in true }

    func testOnlyTheFirstSourceInUseIsAskedBeforeTheFileIsKnown() {
        var mirrors = MirrorSelector(url: "http://a/f", mirrors: ["http://b/f", "http://c/f"])
        XCTAssertEqual(mirrors.next(resolved: false, connectionsPerSource: [3, 0, 0], hostHasRoom: all), 0)
        _ = mirrors.drop(0, .failed("refused"))
        XCTAssertEqual(mirrors.next(resolved: false, connectionsPerSource: [0, 0, 0], hostHasRoom: all), 1)
    }

    func testTheSourceWithTheFewestConnectionsWhoseHostHasRoomIsNext() {
        let mirrors = MirrorSelector(url: "http://a/f", mirrors: ["http://b/f", "http://c:8080/f"])
        XCTAssertEqual(mirrors.next(resolved: true, connectionsPerSource: [0, 0, 0], hostHasRoom: all), 0, "the URL first on a tie")
        XCTAssertEqual(mirrors.next(resolved: true, connectionsPerSource: [2, 1, 2], hostHasRoom: all), 1)
        XCTAssertEqual(mirrors.next(resolved: true, connectionsPerSource: [2, 1, 0], hostHasRoom: { $0 != "http://c:8080" }), 1)
        XCTAssertNil(mirrors.next(resolved: true, connectionsPerSource: [0, 0, 0], hostHasRoom: { _ in false }))
    }

    func testADropIsATypedValueToldOnceWithoutThePassword() {
        var mirrors = MirrorSelector(url: "http://a/f", mirrors: ["http://user:secret@b/f"])
        let drop = mirrors.drop(1, .otherFile("another size (5 bytes, not 7)"))
        XCTAssertEqual(drop?.cause, .otherFile("another size (5 bytes, not 7)"))
        XCTAssertFalse(drop?.mirror.contains("secret") ?? true)
        XCTAssertEqual(drop?.note, "mirror \(drop?.mirror ?? "") dropped: another size (5 bytes, not 7)")
        XCTAssertNil(mirrors.drop(1, .failed("again")), "a source is given up once")
        XCTAssertEqual(mirrors[1].dropped, drop)
        XCTAssertFalse(mirrors.hasOther(than: 0))
        XCTAssertTrue(mirrors.hasOther(than: 1))
    }

    func testASlowSourceIsDroppedOnlyAfterItStayedSlowForTheWholeTime() {
        var mirrors = MirrorSelector(url: "http://a/f", mirrors: ["http://b/f"])
        func look(at now: Double) -> [(Int, MirrorDrop)] {
            mirrors.dropSlow(bytes: [1_000_000, 10_000], counted: [1, 1], elapsed: 0.5, now: now, slowSeconds: 5)
        }
        XCTAssertTrue(look(at: 100).isEmpty)
        XCTAssertTrue(look(at: 104.5).isEmpty)
        let dropped = look(at: 105)
        XCTAssertEqual(dropped.map(\.0), [1])
        XCTAssertEqual(dropped.first?.1.cause, .slow(rate: 20_000, best: 2_000_000))
        XCTAssertEqual(dropped.first?.1.why, "slow (\(ByteFormat.rate(20_000)) per connection, another gave \(ByteFormat.rate(2_000_000)))")
    }

    func testASourceThatSpeedsUpStartsItsSlowTimeOver() {
        var mirrors = MirrorSelector(url: "http://a/f", mirrors: ["http://b/f"])
        _ = mirrors.dropSlow(bytes: [1_000_000, 10_000], counted: [1, 1], elapsed: 0.5, now: 100, slowSeconds: 5)
        _ = mirrors.dropSlow(bytes: [1_000_000, 900_000], counted: [1, 1], elapsed: 0.5, now: 103, slowSeconds: 5)
        XCTAssertTrue(mirrors.dropSlow(bytes: [1_000_000, 10_000], counted: [1, 1], elapsed: 0.5, now: 106, slowSeconds: 5).isEmpty)
    }

    func testTheLastSourceInUseIsNeverDroppedForBeingSlow() {
        var mirrors = MirrorSelector(url: "http://a/f", mirrors: ["http://b/f", "http://c/f"])
        // The URL was fast; then it fell away and two slow mirrors are left at the tail.
        _ = mirrors.dropSlow(bytes: [5_000_000, 0, 0], counted: [1, 0, 0], elapsed: 0.5, now: 90, slowSeconds: 5)
        _ = mirrors.drop(0, .failed("gone"))
        for now in stride(from: 100.0, through: 106, by: 0.5) {
            _ = mirrors.dropSlow(bytes: [0, 1000, 0], counted: [0, 1, 0], elapsed: 0.5, now: now, slowSeconds: 5)
        }
        XCTAssertNotNil(mirrors[1].dropped, "slow beside the best rate seen, while another is in use")
        for now in stride(from: 107.0, through: 120, by: 0.5) {
            _ = mirrors.dropSlow(bytes: [0, 0, 1000], counted: [0, 0, 1], elapsed: 0.5, now: now, slowSeconds: 5)
        }
        XCTAssertNil(mirrors[2].dropped, "one source always stays in use")
    }
}
