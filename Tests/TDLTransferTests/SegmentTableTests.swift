import TDLCore
@testable import TDLTransfer
import XCTest

/// How a file is cut over its connections, without a server.
final class SegmentTableTests: XCTestCase {
    /// Stands for a connection: the table only says whether a segment has one.
    final class Link {}
    typealias Table = SegmentTable<Link>
    let mib = Table.minSegmentSize

    func testAFreshFileIsPlannedInEqualSegmentsThatCoverItExactly() {
        var table = Table()
        XCTAssertTrue(table.plan(size: 10 * mib + 3, connections: 4))
        XCTAssertEqual(table.count, 4)
        XCTAssertEqual(table[0].start, 0)
        for k in 1..<table.count { XCTAssertEqual(table[k].start, table[k - 1].end, "segment \(k) starts where the one before ends") }
        XCTAssertEqual(table[3].end, 10 * mib + 3)
        XCTAssertEqual(table.recorded().map(\.done), [0, 0, 0, 0])
    }

    func testASmallFileIsNotCutBelowTheMinimumSegmentSize() {
        var table = Table()
        XCTAssertFalse(table.plan(size: mib + mib / 2, connections: 8))
        XCTAssertEqual(table.count, 1)
        XCTAssertEqual(table[0].end, mib + mib / 2)
        var three = Table()
        XCTAssertTrue(three.plan(size: 3 * mib, connections: 8))
        XCTAssertEqual(three.count, 3, "no more segments than whole minimum sizes")
    }

    func testTheLargestBusySegmentIsSplitInTheMiddleOfWhatRemains() {
        var table = Table()
        _ = table.plan(size: 8 * mib, connections: 2)
        table[0].link = Link()
        table[1].link = Link()
        _ = table.take(Int(mib), into: 1)  // segment 1 has less left now
        let i = table.largestSplittable()
        XCTAssertEqual(i, 0)
        let added = table.split(0)
        XCTAssertEqual(added, 2)
        XCTAssertEqual(table[0].end, 2 * mib)
        XCTAssertEqual(table[2].start, 2 * mib)
        XCTAssertEqual(table[2].end, 4 * mib)
        XCTAssertNil(table[2].link)
        XCTAssertEqual(table[2].written, 0)
    }

    func testASegmentWithoutAConnectionOrWithLittleLeftIsNotSplit() {
        var table = Table()
        _ = table.plan(size: 8 * mib, connections: 2)
        XCTAssertNil(table.largestSplittable(), "only segments being fetched are split")
        table[1].link = Link()
        _ = table.take(Int(3 * mib), into: 1)
        XCTAssertNil(table.largestSplittable(), "1 MiB left is less than two minimum segments")
        var open = Table()
        open[0].link = Link()
        XCTAssertNil(open.largestSplittable(), "a file of unknown size is not split")
    }

    func testBytesAreTakenUpToTheSegmentsEndOnly() {
        var table = Table()
        _ = table.plan(size: 4 * mib, connections: 2)
        XCTAssertEqual(table.take(100, into: 0), 100)
        XCTAssertEqual(table.take(Int(2 * mib), into: 0), Int(2 * mib) - 100, "the rest belongs to the next segment")
        XCTAssertTrue(table[0].isComplete)
        XCTAssertEqual(table.take(10, into: 0), 0)
        table.takeBack(50, from: 0)
        XCTAssertEqual(table.written, 2 * mib - 50)
        _ = table.take(7, into: 1)
        XCTAssertEqual(table.highestReceived, 2 * mib + 7)
    }

    func testAPartFileShorterThanRecordedIsTrustedOnlyUpToItsLength() {
        var table = Table(recorded: [Segment(start: 0, end: 100, done: 100), Segment(start: 100, end: 200, done: 80)])
        table.clamp(toFileSize: 150)
        XCTAssertEqual(table.recorded().map(\.done), [100, 50])
        XCTAssertEqual(table.recorded(durable: true).map(\.done), [100, 50])
    }

    func testDurableOffsetsFollowTheSnapshotACheckpointTook() {
        var table = Table()
        _ = table.plan(size: 4 * mib, connections: 2)
        _ = table.take(10, into: 0)
        let snapshot = table.recorded()
        _ = table.take(10, into: 0)
        table.markDurable(snapshot)
        XCTAssertEqual(table.recorded(durable: true).map(\.done), [10, 0])
        XCTAssertEqual(table.recorded().map(\.done), [20, 0])
    }

    func testAnAnswerOfUnknownLengthEndsItsSegmentWhereItStopped() {
        var table = Table()
        XCTAssertFalse(table[0].isComplete)
        _ = table.take(1234, into: 0)
        table.endHere(0)
        XCTAssertEqual(table[0].end, 1234)
        XCTAssertTrue(table.allComplete)
    }
}
