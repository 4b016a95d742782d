import Foundation
import XCTest
@testable import TDLCore

final class AddingAndTaskInfoTests: XCTestCase {
    func testAddFiltersInvalidAndRepeatedURLsAndSaysWhy() {
        let f = Fixture()
        let a = Fixture.url("a.iso")
        let result = f.manager.add([a, "ftp://example.com/b.zip", "nonsense", "", "gopher://x/c", "https://exa mple.com/d", a])
        XCTAssertEqual(result.added, [a, "ftp://example.com/b.zip"])
        XCTAssertEqual(result.rejected.map(\.url), ["nonsense", "", "gopher://x/c", "https://exa mple.com/d"])
        XCTAssertEqual(result.rejected.map(\.reason), ["not a URL", "empty URL", "unsupported scheme \"gopher\"", "contains spaces or control characters"])
        XCTAssertEqual(result.existing, [a])
        XCTAssertEqual(result.duplicates.map(\.reason), ["repeated in this batch"])

        XCTAssertEqual(f.manager.add([a]).duplicates.map(\.reason), ["already in the list"])
        f.manager.deleteTasks([a])
        XCTAssertEqual(f.manager.add([a]).duplicates.map(\.reason), ["back from the trash"], "asking again brings it back")
        XCTAssertNil(f.manager.task(a)?.deletedAt)
        XCTAssertEqual(f.manager.add([]).added, [])
    }

    /// A batch added in parts (a long input file): a URL an earlier part named is repeated in
    /// the batch, not asked for again, and each part's tasks come after the earlier parts' in
    /// the list sorted by add time, though the clock did not move in between.
    func testABatchInPartsIsOneBatch() {
        let f = Fixture()
        let stopped = Date(timeIntervalSince1970: 1_700_000_000)
        f.manager.clock = { stopped }
        let urls = ["z", "y", "x", "w", "v"].map { Fixture.url("\($0).bin") }
        var batch = AddBatch()
        let first = f.manager.add([urls[0], urls[1], urls[2]].map { DownloadRequest(url: $0) }, batch: &batch)
        XCTAssertEqual(first.added, Array(urls.prefix(3)))
        let second = f.manager.add([urls[3], urls[1], urls[4]].map { DownloadRequest(url: $0) }, batch: &batch)
        XCTAssertEqual(second.added, [urls[3], urls[4]])
        XCTAssertEqual(second.duplicates, [.init(url: urls[1], reason: "repeated in this batch")])
        XCTAssertEqual(f.manager.downloadList.flatMap { $0 }, urls, "the order given, not the URLs' order")
        XCTAssertEqual(f.manager.add([DownloadRequest(url: urls[1])]).duplicates.map(\.reason), ["already in the list"],
                       "a new batch asks for it again")
    }

    func testTaskIsKeyedByItsURLAndCaseMatters() {
        let f = Fixture()
        let result = f.manager.add(["https://example.com/A.iso", "https://example.com/a.iso"])
        XCTAssertEqual(result.added.count, 2)
        XCTAssertEqual(f.manager.allTasksSet.count, 2)
    }

    func testDisplayNameIsTheCustomNameElseTheFileName() {
        let f = Fixture()
        let (a, b) = (Fixture.url("song.tar.gz"), Fixture.url("README"))
        f.manager.add([a, b])
        XCTAssertEqual(f.manager.displayName(of: a), "song.tar.gz")
        XCTAssertEqual(f.manager.displayName(of: b), "README")
        f.manager.changeDisplayNameOfTask(a, to: "My Song")
        XCTAssertEqual(f.manager.displayName(of: a), "My Song")
        f.manager.changeDisplayNameOfTask(a, to: "")
        XCTAssertEqual(f.manager.displayName(of: a), "song.tar.gz")
        XCTAssertNil(f.manager.displayName(of: "https://example.com/unknown"))
    }

    func testFileTypeByExtensionThenMIMEType() {
        XCTAssertEqual(FileType.classify(fileName: "a.JPG"), .image)
        XCTAssertEqual(FileType.classify(fileName: "a.flac"), .audio)
        XCTAssertEqual(FileType.classify(fileName: "a.mkv"), .video)
        XCTAssertEqual(FileType.classify(fileName: "a.pdf"), .document)
        XCTAssertEqual(FileType.classify(fileName: "a.tar.gz"), .archive)
        XCTAssertEqual(FileType.classify(fileName: "a.weird"), .other)
        XCTAssertEqual(FileType.classify(fileName: ".zip"), .other, "a hidden file has no extension")
        XCTAssertEqual(FileType.classify(fileName: "download", mimeType: "video/mp4"), .video)
        XCTAssertEqual(FileType.classify(fileName: "download", mimeType: "application/pdf"), .document)
        XCTAssertEqual(FileType.classify(fileName: "download", mimeType: "application/gzip"), .archive)
        XCTAssertEqual(FileType.classify(fileName: "a.verylongextension", mimeType: "image/png"), .image)
    }

    func testFileNameExtensionsKeepCompoundOnesWhole() {
        XCTAssertEqual(FileName.fullExtension("a.tar.gz"), ".tar.gz")
        XCTAssertEqual(FileName.fullExtension("a.TAR.XZ"), ".TAR.XZ")
        XCTAssertEqual(FileName.fullExtension(".tar.gz"), ".gz")
        XCTAssertEqual(FileName.fullExtension("a.gz"), ".gz")
        XCTAssertEqual(FileName.fullExtension(".bashrc"), "")
        XCTAssertEqual(FileName.fullExtension("noext"), "")
        XCTAssertEqual(FileName.stem("été.mp3"), "été")
        XCTAssertEqual(FileName.stem("a.tar.zst"), "a")
    }

    func testSizeStateDetailAndProgress() {
        let f = Fixture()
        let a = f.add(["a.iso"])[0]
        XCTAssertNil(f.manager.task(a)?.size, "size unknown")
        XCTAssertEqual(f.manager.task(a)?.detailText, "0 B/?")
        f.engine.resolve(a, name: "a.iso", size: 402_500_000)
        f.engine.onEvent?(.checkpoint(url: a, segments: [Segment(start: 0, end: 402_500_000, done: 41_600_000)]))
        f.manager.pauseTasks([a])
        XCTAssertEqual(f.manager.task(a)?.detailText, "41.6 MB/402.5 MB")
        XCTAssertEqual(f.manager.progress(of: a), 41.6 / 402.5, accuracy: 0.001)
        XCTAssertEqual(f.manager.task(a)?.fileType, .archive)
        f.manager.resumeTasks([a])
        f.finish(a, size: 402_500)
        XCTAssertEqual(f.manager.state(of: a), .finished)
        XCTAssertEqual(f.manager.task(a)?.detailText, "402.5 KB")
        XCTAssertEqual(f.manager.progress(of: a), 1)
        XCTAssertEqual(f.manager.progress(of: "https://nope.example/x"), 0)
    }

    func testFailReasonsReadLikeSentences() {
        let f = Fixture()
        let urls = f.add(["a", "b", "c"])
        f.engine.fail(urls[0], .httpStatus(404))
        f.engine.fail(urls[1], .checksumMismatch(expected: "abcdef0123456789", actual: "0000000000000000"))
        f.engine.fail(urls[2], .serverChangedFile)
        XCTAssertEqual(f.manager.task(urls[0])?.detailText, "Failed: 404 Not Found")
        XCTAssertTrue(f.manager.task(urls[1])!.detailText.hasPrefix("Failed: checksum mismatch"))
        XCTAssertEqual(f.manager.task(urls[2])?.detailText, "Failed: the server changed the file")
        XCTAssertEqual(f.manager.task(urls[0])?.failReason, .httpStatus(404))
        for reason in [FailReason.timeout, .noNetwork(""), .diskFull, .unknown("boom"), .httpStatus(503)] {
            XCTAssertEqual(FailReason(storageCode: reason.storageCode), reason)
        }
    }

    func testFileLocation() {
        let f = Fixture()
        let a = f.add(["movie.mkv"])[0]
        XCTAssertEqual(f.manager.task(a)?.fileType, .video)
        XCTAssertNil(f.manager.task(a)?.completedPath, "no location until finished")
        f.finish(a)
        let path = (f.folder as NSString).appendingPathComponent("movie.mkv")
        XCTAssertEqual(f.manager.task(a)?.filePath, path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
    }

    func testByteFormat() {
        XCTAssertEqual(ByteFormat.string(0), "0 B")
        XCTAssertEqual(ByteFormat.string(41_600_000), "41.6 MB")
        XCTAssertEqual(ByteFormat.string(1_500_000_000), "1.5 GB")
        XCTAssertEqual(ByteFormat.duration(nil), "--:--")
        XCTAssertEqual(ByteFormat.duration(65), "1:05")
        XCTAssertEqual(ByteFormat.duration(3723), "1:02:03")
    }
}
