import Foundation
import TDLTestSupport
import XCTest

/// Servers that lie under a resume or about a file's size, through the real binary: a file
/// swapped under a resume by a server that ignores If-Range is never spliced, broken totals
/// fail with the reason instead of reconnecting without end, and a trickle that never
/// completes ends.
final class TransferPromiseTests: FaultServerTestCase {
    /// Quick retries and a one-second stall time, so each case takes seconds.
    let fast = ["TDL_RETRY_BASE": "0.1", "TDL_STALL_SECONDS": "1"]

    func get(_ arguments: [String], home: TemporaryDirectory, timeout: Double = 120) throws -> Processes.Result {
        try Processes.tdl(["get", "-q"] + arguments, home: home.path, environment: fast, timeout: timeout)
    }

    // MARK: - A file changed under a resume

    func testAFileSwappedUnderAResumeIsDownloadedAgainNotSpliced() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let size = 1_000_000
        // The first answer breaks off; the resume's 206 is of another version (new ETag and
        // Last-Modified), the server having ignored If-Range.
        let url = server.url("/file/swapped.bin?size=\(size)&seed=31&drop_after=300000&swap_after=1&ignore_if_range=1")
        let result = try get(["-x", "1", "-d", downloads.path, url], home: home)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("swapped.bin")),
                       try server.sha256(name: "swapped.bin", size: size, seed: "31.v2"), "the file is spliced from two versions")
    }

    func testAFileSwappedUnderASegmentedDownloadIsNotSpliced() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let size = 4_200_000
        // The first answer is the old version, every range after it the new one.
        let url = server.url("/file/segmented-swap.bin?size=\(size)&seed=32&swap_after=1&ignore_if_range=1&rate=4000000")
        let result = try get(["-x", "4", "-d", downloads.path, url], home: home)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("segmented-swap.bin")),
                       try server.sha256(name: "segmented-swap.bin", size: size, seed: "32.v2"), "the file is spliced from two versions")
    }

    func testAMirrorThatSwapsTheFileIsDroppedNotSpliced() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let size = 4_200_000
        let steady = server.url("/file/mirrored.bin?size=\(size)&seed=33&rate=2000000")
        let swapping = server.url("/file/mirrored.bin?size=\(size)&seed=33&rate=2000000&swap_after=1&ignore_if_range=1")
        let result = try Processes.tdl(["get", "-x", "4", "-d", downloads.path, steady, "--mirror", swapping],
                                       home: home.path, environment: fast)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("dropped: another ETag"), result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("mirrored.bin")),
                       try server.sha256(name: "mirrored.bin", size: size, seed: 33))
    }

    // MARK: - Broken totals

    func testBrokenTotalsFailWithTheReasonAtOnce() throws {
        for (n, total) in ["-1", "-100", "abc", "50"].enumerated() {
            let home = TemporaryDirectory(), downloads = TemporaryDirectory()
            let path = "/file/total\(n).bin"
            let started = Date()
            let result = try get(["-d", downloads.path, server.url("\(path)?size=1000000&seed=34&total=\(total)")], home: home, timeout: 30)
            XCTAssertEqual(result.status, 1, "total \(total): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("broken Content-Range (bytes 0-999999/\(total))"), result.stderr)
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, "total \(total)")
            XCTAssertLessThanOrEqual(try server.requests(to: path).total, 1, "total \(total): reconnected")
        }
    }

    func testATotalThatChangesBetweenConnectionsFails() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        // The same ETag on both answers, so it is the same file with two sizes.
        let url = server.url("/file/changing-total.bin?size=1000000&seed=35&drop_after=300000&total=1000000,1200000")
        let result = try get(["-x", "1", "-d", downloads.path, url], home: home, timeout: 30)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("the server's total changed from 1000000 to 1200000 bytes under the same ETag"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("changing-total.bin")))
    }

    // MARK: - Trickles

    /// Half of what is left, then nothing: every answer is progress, and none completes. The
    /// first four halves are a sixteenth of the file or more (a stall after them starts the
    /// retries over), the later ones are not. A small file: curl judges the 1 KB/s floor over
    /// the last seconds, so a stall after a large half is seen only once that half is seconds
    /// old; the first half is 2 KB.
    func testAServerThatSendsHalfOfWhatIsLeftAndStallsEnds() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let result = try get(["-x", "1", "-d", downloads.path, server.url("/file/halves.bin?size=4000&seed=36&halve=1&stall=120")],
                             home: home, timeout: 150)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("timed out"), result.stderr)
        XCTAssertLessThan(try server.requests(to: "/file/halves.bin").total, 12)
    }

    func testTheLowestSpeedLimitEndsASlowTransfer() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let started = Date()
        let result = try get(["-x", "1", "--lowest-speed-limit", "10K", "-d", downloads.path,
                              server.url("/file/slow.bin?size=1000000&seed=37&rate=3000")], home: home, timeout: 90)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("timed out"), result.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60)
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("slow.bin.part")), "the partial is kept")
    }
}
