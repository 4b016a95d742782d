import Foundation
import TDLTestSupport
import XCTest

/// `tdl add -i FILE` with no tdl running adds a long file a part at a time (`TDL_ADD_PART`
/// entries, 100,000 unless set): it says, exits and leaves the session as one add of the whole
/// file does, and holds one part in memory, not the file.
final class AddInPartsTests: XCTestCase {
    let sqlite = Processes.which("sqlite3") ?? "/usr/bin/sqlite3"

    func url(_ path: String) -> String { "http://127.0.0.1:9/\(path)" }

    func sql(_ home: String, _ statement: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try Processes.run(sqlite, [(home as NSString).appendingPathComponent("session.sqlite"), statement])
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return result.stdout
    }

    /// Repeats within a part and across parts, URLs the session had (one in the trash, one
    /// renamed, one refused a name another task owns), a name two new tasks share, lines that
    /// cannot be used, and options under the last URL of a part.
    var input: String {
        """
        \(url("p1.bin"))
        \(url("p2.bin"))
        \(url("p2.bin"))
        \(url("had.bin"))
        \(url("p1.bin"))
        \(url("trashed.bin"))
        not a url
        \(url("renamed.bin"))
          out=new-name.bin
        # a comment
        \(url("p3.bin"))
          out=p1.bin
        \(url("refused.bin"))
          out=had.bin
        \(url("p4.bin"))
          checksum=nonsense
        \(url("p5.bin")) \(url("p6.bin"))
        \(url("p2.bin"))
          unknown=1
        \(url("p7.bin"))
        """
    }

    /// A session with had.bin, renamed.bin, refused.bin and trashed.bin (in the trash), or none.
    func makeHome(_ home: String, downloads: String, withTasks: Bool) throws {
        guard withTasks else { return }
        let add = try Processes.tdl(["add", "-d", downloads] + ["had", "renamed", "refused", "trashed"].map { url("\($0).bin") }, home: home)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(try Processes.tdl(["rm", url("trashed.bin")], home: home).status, 0)
        // had.bin is downloaded: a rename to its name is refused.
        let path = (downloads as NSString).appendingPathComponent("had.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: 10)))
        _ = try sql(home, "UPDATE task SET state = 'finished', size = 10, finalURL = url, completedPath = '\(path)' WHERE url = '\(url("had.bin"))'")
    }

    /// What the add said and left: its output, status, the list (names and order), the trash
    /// and the rows (times left out: they are the clock's).
    func addInParts(of size: Int, withTasks: Bool) throws -> [String] {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try makeHome(home.path, downloads: downloads.path, withTasks: withTasks)
        let add = try Processes.tdl(["add", "-d", downloads.path, "-i", "-"], home: home.path,
                                    environment: ["TDL_ADD_PART": "\(size)"], stdin: input)
        // The folder is each run's own: the rows name it as JSON writes it.
        func sameFolder(_ text: String) -> String {
            text.replacingOccurrences(of: downloads.path, with: "DL")
                .replacingOccurrences(of: downloads.path.replacingOccurrences(of: "/", with: "\\/"), with: "DL")
        }
        return [
            "\(add.status)", add.stdout, sameFolder(add.stderr),
            try Processes.tdl(["list"], home: home.path).stdout,
            try Processes.tdl(["list", "--trash"], home: home.path).stdout,
            sameFolder(try sql(home.path, "SELECT url, fileName, customName, state, deletedAt IS NULL, options FROM task ORDER BY url")),
            try sql(home.path, "SELECT count(*) = count(DISTINCT url) FROM task"),
        ]
    }

    func assertPartsAgreeWithOneAdd(withTasks: Bool) throws {
        let whole = try addInParts(of: 1_000, withTasks: withTasks)
        for size in [1, 3] {
            let parts = try addInParts(of: size, withTasks: withTasks)
            for (part, one) in zip(parts, whole) { XCTAssertEqual(part, one, "parts of \(size)") }
        }
        // The add did what the file asks, not only the same thing twice.
        let (status, stdout, stderr, list) = (whole[0], whole[1], whole[2], whole[3])
        XCTAssertEqual(status, "2", "lines that could not be used fail the command")
        let had = ["had", "trashed", "renamed", "refused"]
        let added = ["p1", "p2", "had", "trashed", "renamed", "p3", "refused", "p5", "p6", "p7"]
            .filter { !withTasks || !had.contains($0) }.map { url("\($0).bin") }
        XCTAssertEqual(stdout.split(separator: "\n").filter { $0.hasPrefix("added ") }.map { String($0.dropFirst(6)) }, added)
        XCTAssertTrue(stdout.contains("repeated in this batch: \(url("p1.bin"))"), stdout)
        XCTAssertTrue(stderr.contains("unknown option \"unknown\""), stderr)
        let listed = list.split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) }
        XCTAssertEqual(listed.filter(added.contains), added, "the list keeps the file's order")
        XCTAssertEqual(whole[6], "1\n", "each URL is one row")
        if withTasks {
            XCTAssertTrue(stdout.contains("back from the trash: \(url("trashed.bin"))"), stdout)
            XCTAssertTrue(stdout.contains("renamed to new-name.bin: \(url("renamed.bin"))"), stdout)
            XCTAssertTrue(stderr.contains("cannot rename to had.bin"), stderr)
        }
    }

    func testAFileInPartsIntoASessionWithTasksIsOneAdd() throws {
        try assertPartsAgreeWithOneAdd(withTasks: true)
    }

    func testAFileInPartsIntoAnEmptySessionIsOneAdd() throws {
        try assertPartsAgreeWithOneAdd(withTasks: false)
    }

    /// The same file again finds every URL in the session (as after a crash between parts,
    /// which leaves the earlier parts added) and adds none twice.
    func testTheSameFileAgainAddsNothingTwice() throws {
        let home = TemporaryDirectory()
        let urls = (0 ..< 10).map { url("again/\($0).bin") }
        let file = home.file("urls.txt")
        try (urls.prefix(4).joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try Processes.tdl(["add", "-i", file], home: home.path, environment: ["TDL_ADD_PART": "3"]).status, 0)
        try (urls + urls.prefix(2)).joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let again = try Processes.tdl(["add", "-i", file], home: home.path, environment: ["TDL_ADD_PART": "3"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stdout, urls.dropFirst(4).map { "added \($0)\n" }.joined()
                       + urls.prefix(4).map { "already in the list: \($0)\n" }.joined()
                       + urls.prefix(2).map { "repeated in this batch: \($0)\n" }.joined())
        let list = try Processes.tdl(["list"], home: home.path).stdout
        XCTAssertEqual(list.split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) }, urls)
    }

    /// Damage a later part's reads find moves the session file aside with the parts added
    /// before it: the add stops there and says so, and the same command again adds the whole
    /// file to the new session, not only its later parts.
    func testDamageALaterPartFindsStopsTheAdd() throws {
        let home = TemporaryDirectory()
        XCTAssertEqual(try Processes.tdl(["debug", "populate", "3000"], home: home.path).status, 0)
        _ = try sql(home.path, "PRAGMA wal_checkpoint(TRUNCATE)")
        // The URL index's last leaf, where the second part's URLs sort; the first part's sort
        // before every URL of the session.
        func number(_ query: String) throws -> Int {
            try XCTUnwrap(Int(try sql(home.path, query).trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let leaf = try number("SELECT pageno FROM dbstat WHERE name = 'sqlite_autoindex_task_1' AND pagetype = 'leaf' ORDER BY path DESC LIMIT 1")
        let pageSize = try number("PRAGMA page_size")
        let database = home.file("session.sqlite")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: database))
        bytes.replaceSubrange((leaf - 1) * pageSize ..< leaf * pageSize, with: Data(repeating: 0xAB, count: pageSize))
        try bytes.write(to: URL(fileURLWithPath: database))

        let urls = (1...3).map { url("first/\($0).bin") } + (1...3).map { "https://zzz.example/\($0).bin" }
        let file = home.file("urls.txt")
        try urls.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let add = try Processes.tdl(["add", "-i", file], home: home.path, environment: ["TDL_ADD_PART": "3"])
        XCTAssertEqual(add.status, 5, add.stderr)
        XCTAssertEqual(add.stdout, urls.prefix(3).map { "added \($0)\n" }.joined())
        XCTAssertTrue(add.stderr.contains("was damaged"), add.stderr)
        XCTAssertTrue(add.stderr.contains("run the command again"), add.stderr)

        let again = try Processes.tdl(["add", "-i", file], home: home.path, environment: ["TDL_ADD_PART": "3"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stdout, urls.map { "added \($0)\n" }.joined())
        let list = try Processes.tdl(["list"], home: home.path).stdout
        XCTAssertEqual(list.split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) }, urls)
    }

    /// A commit that fails part way (the file-size limit reached) ends an add into an empty
    /// session, whose parts are committed on a second thread while the next is added: the
    /// session holds exactly the URLs said to be added, a prefix of the file in its order, and
    /// the same command again adds the rest.
    func testAFailedCommitPartWayLeavesWhatWasSaidAdded() throws {
        let home = TemporaryDirectory()
        let urls = (0 ..< 8_000).map { url("limit/\($0)/file-\($0).bin") }
        let file = home.file("urls.txt")
        try urls.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        // 1 MiB (in blocks of 512 bytes): the session's WAL reaches it after a few parts. A
        // write past it fails (EFBIG) rather than ending the process.
        let limited = try Processes.run("/bin/sh", ["-c", "trap '' XFSZ; ulimit -f 2048 && exec \"$0\" \"$@\"",
                                                    Processes.tdlBinary, "add", "-i", file],
                                        environment: ["TDL_HOME": home.path, "TDL_ADD_PART": "500"])
        XCTAssertEqual(limited.status, 5, limited.stderr)
        XCTAssertTrue(limited.stderr.contains("could not save the session"), limited.stderr)
        let said = limited.stdout.split(separator: "\n").map { line -> String in
            XCTAssertTrue(line.hasPrefix("added "), String(line))
            return String(line.dropFirst(6))
        }
        XCTAssertGreaterThan(said.count, 0, "the first parts fit")
        XCTAssertLessThan(said.count, urls.count)
        XCTAssertEqual(said.count % 500, 0, "whole parts")
        XCTAssertEqual(said, Array(urls.prefix(said.count)))
        let listed = try Processes.tdl(["list"], home: home.path).stdout
        XCTAssertEqual(listed.split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) }, said)

        let again = try Processes.tdl(["add", "-i", file], home: home.path, environment: ["TDL_ADD_PART": "500"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stdout, urls.dropFirst(said.count).map { "added \($0)\n" }.joined()
                       + said.map { "already in the list: \($0)\n" }.joined())
        let all = try Processes.tdl(["list"], home: home.path).stdout
        XCTAssertEqual(all.split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) }, urls)
    }

    /// The peak of an add of 60,000 URLs in parts of 2,000 is well below that of one part:
    /// memory follows the part, not the file.
    func testAnAddInPartsHoldsOnePartInMemory() throws {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else { throw XCTSkip("no \(time)") }
        let work = TemporaryDirectory()
        let file = work.file("urls.txt")
        let urls = (0 ..< 60_000).map { url("scale/\($0)/file-\($0).bin") }
        try urls.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        func peakKB(part: Int) throws -> Int {
            let home = work.file("home-\(part)")
            let run = try Processes.run(time, ["-f", "peak %M", Processes.tdlBinary, "add", "-i", file, "--home", home],
                                        environment: ["TDL_ADD_PART": "\(part)"], timeout: 120)
            XCTAssertEqual(run.status, 0, run.stderr)
            // Read in blocks of 1 MiB, lines across a block's end included.
            XCTAssertEqual(run.stdout, urls.map { "added \($0)\n" }.joined(), "parts of \(part)")
            let line = run.stderr.split(separator: "\n").last { $0.hasPrefix("peak ") }
            return Int(line?.dropFirst(5) ?? "") ?? 0
        }
        let inParts = try peakKB(part: 2_000), atOnce = try peakKB(part: 60_000)
        XCTAssertGreaterThan(inParts, 0)
        XCTAssertLessThan(inParts + 25_000, atOnce, "parts of 2,000: \(inParts) KB, one part: \(atOnce) KB")
    }
}
