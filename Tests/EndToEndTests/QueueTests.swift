import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// `tdl queue …` and `--queue`: queues kept by the session, and a queue's most at once held
/// while a real tdl downloads from a local server.
final class QueueTests: XCTestCase {
    static let site = TemporaryDirectory("tdl-queue-site")
    static var nginx: LoopbackNginx! { get { nginxStore.get() } set { nginxStore.set(newValue) } }
    private static let nginxStore = Locked<LoopbackNginx?>(nil)

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

    /// Runs `tdl get` of both files in `queue` and returns the most downloads `tdl list` saw
    /// at once, and how often it looked.
    func runBoth(queue: String, home: TemporaryDirectory, environment: [String: String] = [:]) throws -> (most: Int, looks: Int) {
        let downloads = TemporaryDirectory()
        let urls = [Self.nginx.url("one.bin"), Self.nginx.url("two.bin")]
        let (get, stderr) = try Processes.start(Processes.tdlBinary, ["get", "-q", "-j", "5", "-x", "1", "--queue", queue,
                                                                      "-d", downloads.path] + urls,
                                                environment: environment.merging(["TDL_HOME": home.path]) { $1 })
        var mostAtOnce = 0, looks = 0
        while get.isRunning {
            let list = try Processes.tdl(["list", "--json"], home: home.path)
            let rows = (try? JSONSerialization.jsonObject(with: Data(list.stdout.utf8))) as? [[String: Any]] ?? []
            // A download whose bytes are all in is being made durable: it leaves its slot to
            // the next, in a queue as under the session's limit.
            let count = rows.filter { row in
                row["state"] as? String == "downloading" && (row["received"] as? Int ?? 0) < (row["size"] as? Int ?? Int.max)
            }.count
            mostAtOnce = max(mostAtOnce, count)
            looks += 1
            usleep(100_000)
        }
        get.waitUntilExit()
        let problems = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(get.terminationStatus, 0, problems)
        for name in ["one.bin", "two.bin"] {
            XCTAssertEqual(try Processes.sha256(ofFile: downloads.file(name)), try Processes.sha256(ofFile: Self.site.file(name)))
        }
        return (mostAtOnce, looks)
    }

    /// With `-j 5` both files would download at once; the queue lets one run at a time.
    func testAQueueOfOneRunsItsDownloadsOneAfterTheOther() throws {
        let home = TemporaryDirectory()
        XCTAssertEqual(try Processes.tdl(["queue", "add", "single", "--max", "1"], home: home.path).status, 0)
        let (most, looks) = try runBoth(queue: "single", home: home)
        XCTAssertGreaterThan(looks, 5, "the downloads took long enough to be seen")
        XCTAssertEqual(most, 1, "one download of the queue at a time")
        let other = TemporaryDirectory()
        XCTAssertEqual(try Processes.tdl(["queue", "add", "pair", "--max", "2"], home: other.path).status, 0)
        XCTAssertEqual(try runBoth(queue: "pair", home: other).most, 2, "two at once: the check above can see two")
    }

    /// `queue=` in an input file puts its download in that queue; a queue closed now holds it.
    func testAnInputFilesQueueLineAndAClosedQueue() throws {
        let home = TemporaryDirectory()
        let hour = Calendar.current.component(.hour, from: Date())
        let later = QueueWindowTests.hourLongWindow(twoHoursAfter: hour)
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

    /// A queue no one defined is refused by `--queue` and an input file's `queue=` alike (a
    /// typo'd night queue would run at once); the session's and the config file's are known.
    func testAnUnknownQueueIsRefused() throws {
        let home = TemporaryDirectory(), configHome = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: configHome.file("tdl"), withIntermediateDirectories: true)
        try "queue.fromfile.max=1\n".write(toFile: configHome.file("tdl/tdl.conf"), atomically: true, encoding: .utf8)
        let environment = ["XDG_CONFIG_HOME": configHome.path]
        XCTAssertEqual(try Processes.tdl(["queue", "add", "night"], home: home.path).status, 0)
        let typo = try Processes.tdl(["add", "--queue", "nigth", Self.nginx.url("one.bin")], home: home.path, environment: environment)
        XCTAssertNotEqual(typo.status, 0)
        XCTAssertTrue(typo.stderr.contains("no queue named nigth (queues: default, night, fromfile)"), typo.stderr)
        let input = home.file("urls.txt")
        try "\(Self.nginx.url("two.bin"))\n  queue=nosuch\n".write(toFile: input, atomically: true, encoding: .utf8)
        let fromInput = try Processes.tdl(["add", "-i", input], home: home.path, environment: environment)
        XCTAssertNotEqual(fromInput.status, 0)
        XCTAssertTrue(fromInput.stderr.contains("no queue named nosuch"), fromInput.stderr)
        XCTAssertEqual(try Processes.tdl(["list"], home: home.path).stdout.contains("one.bin"), false)
        XCTAssertEqual(try Processes.tdl(["list"], home: home.path).stdout.contains("two.bin"), false)
        for queue in ["night", "default", "fromfile"] {
            let known = try Processes.tdl(["add", "--queue", queue, Self.nginx.url("one.bin")], home: home.path, environment: environment)
            XCTAssertEqual(known.status, 0, queue + ": " + known.stderr)
        }
    }

    /// The config file: `tdl config` names each value's line, a bad line stops a download
    /// naming the file and line, and the file's queue holds for `tdl get`.
    func testTheConfigFile() throws {
        let home = TemporaryDirectory(), configHome = TemporaryDirectory(), downloads = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: configHome.file("tdl"), withIntermediateDirectories: true)
        let file = configHome.file("tdl/tdl.conf")
        let environment = ["XDG_CONFIG_HOME": configHome.path]
        try "# mine\nuser-agent=Test/1\nqueue.single.max=1\n".write(toFile: file, atomically: true, encoding: .utf8)
        let config = try Processes.tdl(["config"], home: home.path, environment: environment)
        XCTAssertEqual(config.status, 0, config.stderr)
        XCTAssertTrue(config.stdout.contains("user-agent=Test/1  # \(file):2\n"), config.stdout)
        XCTAssertTrue(config.stdout.contains("queue.single.max=1  # \(file):3\n"), config.stdout)
        XCTAssertTrue(config.stdout.contains("max-connections-per-host=16  # default\n"), config.stdout)

        XCTAssertEqual(try runBoth(queue: "single", home: home, environment: environment).most, 1)
        XCTAssertEqual(try Processes.tdl(["queue", "list"], home: home.path).stdout,
                       "default: no own limit at once, no own rate cap, any time\n", "the file's queue is not written into the session")

        try "user-agent=Test/1\nmax-connections-per-host=lots\n".write(toFile: file, atomically: true, encoding: .utf8)
        let bad = try Processes.tdl(["get", "-q", "-d", downloads.path, Self.nginx.url("one.bin")], home: home.path, environment: environment)
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr, "tdl: \(file):2: max-connections-per-host: \"lots\" is not a number from 1 to 1000\n")
    }
}
