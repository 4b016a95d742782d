import Foundation
@testable import TDLCore
import XCTest

/// A task keeps its seldom-set fields apart and its optional numbers without an optional's
/// byte; it must still read, copy and compare as plain fields do.
final class TaskStorageTests: XCTestCase {
    func task() -> DownloadTask {
        DownloadTask(url: "https://h.example/a.iso", fileName: "a.iso", directory: "/d", addTime: Date(timeIntervalSinceReferenceDate: 5))
    }

    func testACopyChangesAloneWhateverFieldChanges() {
        var a = task()
        a.etag = "\"e1\""
        a.segments = [Segment(start: 0, end: 10, done: 3)]
        var b = a
        b.segments[0].done = 7
        b.etag = nil
        b.options.headers = ["X: 1"]
        b.metaInfo["k"] = "v"
        XCTAssertEqual(a.segments[0].done, 3)
        XCTAssertEqual(a.etag, "\"e1\"")
        XCTAssertNil(a.options.headers)
        XCTAssertEqual(a.metaInfo, [:])
        XCTAssertEqual(b.segments[0].done, 7)
        XCTAssertNil(b.etag)
        XCTAssertEqual(b.options.headers, ["X: 1"])
        XCTAssertEqual(b.metaInfo, ["k": "v"])
        XCTAssertNotEqual(a, b)
    }

    func testFieldsSetAndUnsetAgainCompareEqualToNeverSet() {
        var a = task()
        a.note = "n"
        a.retries = 2
        a.failReason = .httpStatus(404)
        XCTAssertNotEqual(a, task())
        a.note = nil
        a.retries = 0
        a.failReason = nil
        XCTAssertEqual(a, task())
        XCTAssertEqual(a.failReason, nil)
    }

    func testSizeAndTrashTimeKeepEveryValue() {
        var a = task()
        XCTAssertNil(a.size)
        XCTAssertNil(a.deletedAt)
        for size: Int64? in [0, 1, Int64.max, -1, nil] {
            a.size = size
            XCTAssertEqual(a.size, size)
        }
        for date: Date? in [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSince1970: 1_700_000_000.123), nil] {
            a.deletedAt = date
            XCTAssertEqual(a.deletedAt, date)
        }
        var b = task()
        b.size = 0
        XCTAssertNotEqual(b, task(), "a size of 0 is a size, not an unknown one")
    }

    func testTasksSharingTheirOptionsStillChangeAlone() {
        let options = DownloadOptions(directory: "/d", headers: ["X: 1"])
        var a = task()
        a.options = options
        var b = DownloadTask(url: "https://h.example/b.iso", fileName: "b.iso", directory: "/d")
        b.options = options
        b.shareExtras(ifEqualTo: a)
        XCTAssertEqual(b.options, options)
        b.options.headers = ["X: 2"]
        b.note = "n"
        XCTAssertEqual(a.options, options)
        XCTAssertNil(a.note)
        var c = DownloadTask(url: "https://h.example/c.iso", fileName: "c.iso", directory: "/d")
        c.options = DownloadOptions(directory: "/e")
        c.shareExtras(ifEqualTo: a)
        XCTAssertEqual(c.options, DownloadOptions(directory: "/e"), "different options are not replaced")
    }

    func testABatchAddedWithTheSameOptionsKeepsThemPerTask() {
        let manager = DownloadManager(defaultDirectory: "/tmp")
        manager.downloadNewFileImmediately = false
        let options = DownloadOptions(directory: "/srv", connections: 2)
        manager.add((1...3).map { DownloadRequest(url: "https://h.example/\($0).bin", options: options) })
        manager.add([DownloadRequest(url: "https://h.example/2.bin", options: DownloadOptions(connections: 4))])
        XCTAssertEqual(manager.task("https://h.example/1.bin")?.options, options)
        XCTAssertEqual(manager.task("https://h.example/3.bin")?.options, options)
        XCTAssertEqual(manager.task("https://h.example/2.bin")?.options.connections, 4)
    }
}
