import Foundation
import TDLTestSupport
import XCTest

/// `tdl queue …` and `--queue`: queues kept by the session, and a queue's most at once held
/// while a real tdl downloads from a local server.
final class QueueTests: XCTestCase {
    static let site = TemporaryDirectory("tdl-queue-site")
    static var nginx: LoopbackNginx!

    override class func setUp() {
        do {
            try TestFiles.make(site.file("one.bin"), size: 600_000, seed: 91)
            try TestFiles.make(site.file("two.bin"), size: 600_000, seed: 92)
            // 300 KB/s a connection: a file takes two seconds on one.
            nginx = try LoopbackNginx(root: site.path, rateLimit: "300k")
        } catch {
            XCTFail("\(error)")
        }
    }

    override class func tearDown() { nginx = nil }

    func testQueuesAreAddedListedChangedAndRemoved() throws {
        let home = TemporaryDirectory()
        let add = try Processes.tdl(["queue", "add", "night", "--max", "2", "--limit", "500K",
                                     "--window", "22:00-06:00", "--days", "mon-fri"], home: home.path)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(add.stdout, "night: 2 at once, 500.0 KB/s, mon-fri 22:00-06:00\n")
        let again = try Processes.tdl(["queue", "add", "night"], home: home.path)
        XCTAssertEqual(again.status, 2, "a queue of that name exists")
        XCTAssertTrue(again.stderr.contains("exists already"), again.stderr)

        let set = try Processes.tdl(["queue", "set", "night", "--max", "1", "--any-time"], home: home.path)
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertEqual(set.stdout, "night: 1 at once, 500.0 KB/s, any time\n", "the rate cap given before stays")
        XCTAssertEqual(try Processes.tdl(["queue", "set", "nosuch", "--max", "1"], home: home.path).status, 2)

        let list = try Processes.tdl(["queue", "list"], home: home.path)
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.stdout, """
            default: no own limit at once, no own rate cap, any time
            night: 1 at once, 500.0 KB/s, any time

            """)

        XCTAssertEqual(try Processes.tdl(["queue", "rm", "night"], home: home.path).status, 0)
        XCTAssertEqual(try Processes.tdl(["queue", "rm", "night"], home: home.path).status, 2)
        for bad in [["queue", "add", "bad name"], ["queue", "add", "q", "--window", "25:00-01:00"],
                    ["queue", "add", "q", "--days", "funday"], ["queue", "add", "q", "--limit", "fast"]] {
            let result = try Processes.tdl(bad, home: home.path)
            XCTAssertEqual(result.status, 2, "\(bad): \(result.stderr)")
        }
        XCTAssertEqual(try Processes.tdl(["add", "--queue", "bad/name", "http://127.0.0.1:9/a"], home: home.path).status, 2)
    }

    /// With `-j 5` both files would download at once; the queue lets one run at a time.
    func testAQueueOfOneRunsItsDownloadsOneAfterTheOther() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        XCTAssertEqual(try Processes.tdl(["queue", "add", "single", "--max", "1"], home: home.path).status, 0)
        let urls = [Self.nginx.url("one.bin"), Self.nginx.url("two.bin")]
        let (get, stderr) = try Processes.start(Processes.tdlBinary, ["get", "-q", "-j", "5", "-x", "1", "--queue", "single",
                                                                      "-d", downloads.path] + urls,
                                                environment: ["TDL_HOME": home.path])
        var mostAtOnce = 0, looks = 0
        let downloading = try NSRegularExpression(pattern: #""state"\s*:\s*"downloading""#)
        while get.isRunning {
            let list = try Processes.tdl(["list", "--json"], home: home.path)
            let count = downloading.numberOfMatches(in: list.stdout, range: NSRange(list.stdout.startIndex..., in: list.stdout))
            mostAtOnce = max(mostAtOnce, count)
            looks += 1
            usleep(100_000)
        }
        get.waitUntilExit()
        let problems = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(get.terminationStatus, 0, problems)
        XCTAssertGreaterThan(looks, 5, "the downloads took long enough to be seen")
        XCTAssertEqual(mostAtOnce, 1, "one download of the queue at a time")
        for name in ["one.bin", "two.bin"] {
            XCTAssertEqual(try Processes.sha256(ofFile: downloads.file(name)), try Processes.sha256(ofFile: Self.site.file(name)))
        }
    }

    /// `queue=` in an input file puts its download in that queue; a queue closed now holds it.
    func testAnInputFilesQueueLineAndAClosedQueue() throws {
        let home = TemporaryDirectory()
        let hour = Calendar.current.component(.hour, from: Date())
        let later = String(format: "%02d:00-%02d:00", (hour + 2) % 24, (hour + 3) % 24)
        XCTAssertEqual(try Processes.tdl(["queue", "add", "later", "--window", later], home: home.path).status, 0)
        let list = try Processes.tdl(["queue", "list"], home: home.path)
        XCTAssertTrue(list.stdout.contains("later: no own limit at once, no own rate cap, \(later) (closed)"), list.stdout)
        let input = home.file("urls.txt")
        try "\(Self.nginx.url("one.bin"))\n  queue=later\n\(Self.nginx.url("two.bin"))\n  queue=bad name\n"
            .write(toFile: input, atomically: true, encoding: .utf8)
        let add = try Processes.tdl(["add", "-i", input], home: home.path)
        XCTAssertTrue(add.stderr.contains("queue:"), add.stderr)
        let saved = try Processes.run("/usr/bin/python3", ["-c", """
            import sqlite3, sys
            for url, options in sqlite3.connect(sys.argv[1]).execute("SELECT url, options FROM task ORDER BY url"):
                print(url, options)
            """, home.file("session.sqlite")])
        XCTAssertTrue(saved.stdout.contains(#""queue":"later""#), saved.stdout)
    }
}
