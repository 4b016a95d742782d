import Foundation
import TDLTestSupport
import XCTest

/// `tdl add|pause|resume|stop|restart|rm URL` with no tdl running read and write the rows of
/// the tasks they name; `TDL_WHOLE_SESSION=1` makes them load the whole session as before.
/// Both must leave the same session, the same files, and say the same.
final class TaskRowsTests: XCTestCase {
    let sqlite = Processes.which("sqlite3") ?? "/usr/bin/sqlite3"

    func url(_ path: String) -> String { "http://127.0.0.1:9/\(path)" }

    /// `add -o NAME URL` is written for `add -i -` with `URL` and `  out=NAME` on its input.
    @discardableResult
    func tdl(_ arguments: [String], _ home: String, whole: Bool = false) throws -> Processes.Result {
        var arguments = arguments
        var input: String?
        if let o = arguments.firstIndex(of: "-o") {
            input = "\(arguments.removeLast())\n  out=\(arguments[o + 1])\n"
            arguments.replaceSubrange(o ... o + 1, with: ["-i", "-"])
        }
        return try Processes.tdl(arguments, home: home, environment: ["TDL_WHOLE_SESSION": whole ? "1" : "0"], stdin: input)
    }

    func sql(_ database: String, _ statement: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try Processes.run(sqlite, [database, statement])
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return result.stdout
    }

    func write(_ path: String, bytes: Int) {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: bytes)))
    }

    /// A session of tasks in every state, files on disk as they would be, and 300 more tasks
    /// the commands do not name: A finished (a.bin), B paused with its part file, C waiting,
    /// E failed, F finished, G paused owning shared.bin's part, H naming shared.bin without
    /// owning it, K finished at k.bin and M finished at the same path.
    func makeSession(home: String, downloads: String) throws {
        XCTAssertEqual(try tdl(["debug", "populate", "300"], home).status, 0)
        let names = ["a", "b", "c", "e", "f", "shared", "k", "m"]
        var add = try tdl(["add", "-d", downloads] + names.map { url("\($0).bin") }, home)
        XCTAssertEqual(add.status, 0, add.stderr)
        add = try tdl(["add", "-d", downloads, "-o", "shared.bin", url("other/h.bin")], home)
        XCTAssertEqual(add.status, 0, add.stderr)
        let database = (home as NSString).appendingPathComponent("session.sqlite")
        func path(_ name: String) -> String { (downloads as NSString).appendingPathComponent(name) }
        for name in ["a.bin", "f.bin", "k.bin"] { write(path(name), bytes: 1000) }
        write(path("b.bin.part"), bytes: 10)
        write(path("shared.bin.part"), bytes: 10)
        _ = try sql(database, """
            UPDATE task SET state = 'finished', size = 1000, finalURL = url, completedPath = '\(path("a.bin"))' WHERE url = '\(url("a.bin"))';
            UPDATE task SET state = 'paused', finalURL = url WHERE url = '\(url("b.bin"))';
            UPDATE task SET state = 'failed', failReason = 'http:404' WHERE url = '\(url("e.bin"))';
            UPDATE task SET state = 'finished', size = 1000, finalURL = url, completedPath = '\(path("f.bin"))' WHERE url = '\(url("f.bin"))';
            UPDATE task SET state = 'paused', finalURL = url WHERE url = '\(url("shared.bin"))';
            UPDATE task SET state = 'paused' WHERE url = '\(url("other/h.bin"))';
            UPDATE task SET state = 'finished', size = 1000, finalURL = url, completedPath = '\(path("k.bin"))' WHERE url = '\(url("k.bin"))';
            UPDATE task SET state = 'finished', size = 1000, finalURL = url, fileName = 'k.bin', completedPath = '\(path("k.bin"))' WHERE url = '\(url("m.bin"))';
            """)
    }

    /// Arranges the session by hand in two sections, Downloads and Later (b.bin and e.bin).
    func arrangeByHand(home: String) throws {
        let database = (home as NSString).appendingPathComponent("session.sqlite")
        _ = try sql(database, "INSERT OR REPLACE INTO setting (session, key, value) VALUES ('default', 'sortType', 'manual')")
        // The whole session writes its layout at its first save.
        XCTAssertEqual(try tdl(["pause", url("c.bin")], home, whole: true).status, 0)
        _ = try sql(database, """
            INSERT INTO layoutSection (session, position, title) VALUES ('default', 1, 'Later');
            UPDATE layoutRow SET section = 1 WHERE url IN ('\(url("b.bin"))', '\(url("e.bin"))');
            """)
        XCTAssertEqual(try tdl(["resume", url("c.bin")], home, whole: true).status, 0)
    }

    /// What a run leaves: the list, the trash, the rows (times only as set or not: they are the
    /// clock's), the layout in order, and the files.
    func outcome(home: String, downloads: String) throws -> [String] {
        let database = (home as NSString).appendingPathComponent("session.sqlite")
        let list = try Processes.tdl(["list", "--json"], home: home)
        let trash = try Processes.tdl(["list", "--trash"], home: home)
        return [
            list.stdout, trash.stdout,
            try sql(database, """
                SELECT url, fileName, customName, directory, size, received, state, failReason, mimeType, finalURL, etag,
                       lastModified, retries, note, metaInfo, deletedAt IS NULL, completedPath, options
                FROM task ORDER BY url
                """),
            try sql(database, "SELECT url, position, start, \"end\", done FROM segment ORDER BY url, position"),
            try sql(database, "SELECT position, title FROM layoutSection ORDER BY position"),
            try sql(database, "SELECT section, url FROM layoutRow ORDER BY section, row"),
            try sql(database, "SELECT key, value FROM setting WHERE key <> 'endedCleanly' ORDER BY key"),
            try FileManager.default.contentsOfDirectory(atPath: downloads).sorted().joined(separator: "\n"),
        ]
    }

    /// One-URL and few-URL commands in every state, renames, restarts that delete or keep a
    /// file, the trash and back: the rows alone and the whole session give the same.
    func assertRowsAndWholeSessionAgree(byHand: Bool) throws {
        let base = TemporaryDirectory(), work = TemporaryDirectory()
        let baseHome = base.file("home"), baseDownloads = base.file("downloads")
        try FileManager.default.createDirectory(atPath: baseDownloads, withIntermediateDirectories: true)
        try makeSession(home: baseHome, downloads: baseDownloads)
        if byHand { try arrangeByHand(home: baseHome) }
        let downloads = work.file("downloads")
        let commands: [[String]] = [
            ["add", url("new1.bin")],
            ["add", "-o", "a.bin", url("c.bin")],          // a.bin is A's: refused
            ["add", "-o", "c2.bin", url("c.bin")],
            ["add", "-o", "b2.bin", url("b.bin")],         // moves B's part file
            ["add", "-o", "k.bin", url("e.bin")],          // K's (and M's): refused
            ["pause", url("f.bin")],                       // finished: unchanged
            ["pause", url("c.bin")],
            ["resume", url("c.bin")],
            ["stop", url("e.bin")],
            ["stop", url("c.bin"), url("b.bin")],
            ["restart", url("f.bin")],                     // its file goes
            ["restart", url("k.bin")],                     // M still names k.bin: it stays
            ["rm", url("other/h.bin")],
            ["resume", url("other/h.bin")],                // back from the trash
            ["rm", url("other/h.bin"), url("new1.bin")],
            ["rm", "--purge", url("other/h.bin")],         // from the trash
            ["rm", "--purge", url("shared.bin")],          // its own part file goes
            ["add", url("new1.bin"), url("new2.bin")],     // one back from the trash, one new
            ["add", url("a.bin")],                         // already downloaded
            ["pause", url("never-added.bin")],
            ["resume", url("e.bin"), url("never-added.bin")],
            ["restart", url("a.bin")],
            ["rm", url("new2.bin")],
        ]
        var results: [[String]] = []
        for whole in [false, true] {
            let home = work.file(whole ? "whole" : "rows")
            try? FileManager.default.removeItem(atPath: downloads)
            try FileManager.default.copyItem(atPath: baseHome, toPath: home)
            try FileManager.default.copyItem(atPath: baseDownloads, toPath: downloads)
            // The session names the base's folder: the copy takes its place.
            _ = try sql((home as NSString).appendingPathComponent("session.sqlite"), """
                UPDATE task SET directory = replace(directory, '\(baseDownloads)', '\(downloads)'),
                    completedPath = replace(completedPath, '\(baseDownloads)', '\(downloads)')
                """)
            var said: [String] = []
            for command in commands {
                let result = try tdl(command, home, whole: whole)
                said.append("\(command.joined(separator: " ")) → \(result.status)\n\(result.stdout)\(result.stderr)")
            }
            results.append(said + (try outcome(home: home, downloads: downloads)))
        }
        XCTAssertEqual(results[0].count, results[1].count)
        for (rows, whole) in zip(results[0], results[1]) {
            XCTAssertEqual(rows, whole, "the rows alone differ from the whole session")
        }
        // The sequence did what it says, not only the same thing twice.
        let said = results[0].joined(separator: "\n")
        XCTAssertTrue(said.contains("cannot rename to a.bin: a file of that name exists"), said)
        XCTAssertTrue(said.contains("cannot rename to k.bin: a file of that name exists"), said)
        XCTAssertTrue(said.contains("unchanged (done) \(url("f.bin"))"), said)
        let files = try FileManager.default.contentsOfDirectory(atPath: downloads).sorted()
        XCTAssertEqual(files, ["b2.bin.part", "k.bin"], "a.bin and f.bin restarted, shared.bin's part purged, B's renamed")
    }

    func testRowsAndWholeSessionAgreeSorted() throws {
        try assertRowsAndWholeSessionAgree(byHand: false)
    }

    func testRowsAndWholeSessionAgreeArrangedByHand() throws {
        try assertRowsAndWholeSessionAgree(byHand: true)
    }

    /// Arranged by hand, an added task and one back from the trash go to the top of the first
    /// section, the others stay where they were, and the second section keeps its own.
    func testAddIntoAListArrangedByHand() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try makeSession(home: home.path, downloads: downloads.path)
        try arrangeByHand(home: home.path)
        func order() throws -> [String] {
            let list = try Processes.tdl(["list", "--json"], home: home.path)
            let objects = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
            return objects.map { "\($0["section"]!) \($0["url"]!)" }
        }
        let before = try order()
        XCTAssertEqual(try tdl(["rm", url("c.bin")], home.path).stdout, "moved to the trash \(url("c.bin"))\n")
        let add = try tdl(["add", url("new.bin"), url("c.bin")], home.path)
        XCTAssertEqual(add.stdout, "added \(url("new.bin"))\nback from the trash: \(url("c.bin"))\n")
        XCTAssertEqual(add.status, 0, add.stderr)
        let after = try order()
        XCTAssertEqual(Array(after.prefix(2)), ["Downloads \(url("new.bin"))", "Downloads \(url("c.bin"))"])
        XCTAssertEqual(Array(after.dropFirst(2)), before.filter { $0 != "Downloads \(url("c.bin"))" })
        XCTAssertTrue(after.contains("Later \(url("b.bin"))"), "\(after)")
    }

    /// A name another task owns (a finished file, or a part file it recorded) is refused,
    /// though that task is not among the rows read; a free one is taken and the part moves.
    func testARenameToAnotherTasksNameIsRefused() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try makeSession(home: home.path, downloads: downloads.path)
        let taken = try tdl(["add", "-o", "a.bin", url("b.bin")], home.path)
        XCTAssertEqual(taken.status, 2, taken.stderr)
        XCTAssertEqual(taken.stderr, "tdl: \(url("b.bin")): cannot rename to a.bin: a file of that name exists\n")
        let partOwner = try tdl(["add", "-o", "shared.bin", url("c.bin")], home.path)
        XCTAssertEqual(partOwner.status, 2, "shared.bin is G's: \(partOwner.stderr)")
        let free = try tdl(["add", "-o", "b2.bin", url("b.bin")], home.path)
        XCTAssertEqual(free.status, 0, free.stderr)
        XCTAssertEqual(free.stdout, "renamed to b2.bin: \(url("b.bin"))\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("b2.bin.part")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("b.bin.part")))
        // K's restart keeps k.bin: M finished at the same path.
        XCTAssertEqual(try tdl(["restart", url("k.bin")], home.path).stdout, "restarted \(url("k.bin"))\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("k.bin")))
    }

    /// rm moves to the trash and keeps the files; resume brings it back; rm --purge forgets it
    /// and deletes its own part file.
    func testRemoveRestoreAndPurge() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try makeSession(home: home.path, downloads: downloads.path)
        let g = url("shared.bin")
        XCTAssertEqual(try tdl(["rm", g], home.path).stdout, "moved to the trash \(g)\n")
        let trash = try Processes.tdl(["list", "--trash"], home: home.path).stdout
        XCTAssertEqual(trash.split(separator: "\n").filter { $0.hasSuffix(g) }.count, 1, trash)
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("shared.bin.part")))
        XCTAssertEqual(try tdl(["resume", g], home.path).stdout, "resumed \(g)\n")
        XCTAssertEqual(try Processes.tdl(["list", "--trash"], home: home.path).stdout, "")
        XCTAssertEqual(try tdl(["rm", g], home.path).status, 0)
        let purge = try tdl(["rm", "--purge", g], home.path)
        XCTAssertEqual(purge.stdout, "deleted for good \(g)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("shared.bin.part")))
        let again = try tdl(["pause", g], home.path)
        XCTAssertEqual(again.status, 2)
        XCTAssertEqual(again.stderr, "tdl: not in the session: \(g)\n")
        let list = try Processes.tdl(["list", "--json"], home: home.path)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [Any])?.count, 308, "300 made up, 9 added, 1 purged")
    }

    /// Pausing a finished download changes nothing and says so, with exit 1.
    func testPausingAFinishedTaskIsRefused() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try makeSession(home: home.path, downloads: downloads.path)
        let pause = try tdl(["pause", url("a.bin")], home.path)
        XCTAssertEqual(pause.status, 1)
        XCTAssertEqual(pause.stdout, "unchanged (done) \(url("a.bin"))\n")
        XCTAssertEqual(pause.stderr, "")
    }

    /// A damaged task table is found by a command that reads one row: the file is moved aside,
    /// the message names where, and the command goes on in a fresh session.
    func testADamagedSessionIsMovedAsideByACommandOnOneRow() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try makeSession(home: home.path, downloads: downloads.path)
        let database = home.file("session.sqlite")
        _ = try sql(database, "PRAGMA wal_checkpoint(TRUNCATE)")
        let root = try XCTUnwrap(Int(try sql(database, "SELECT rootpage FROM sqlite_master WHERE name = 'task'")
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        let pageSize = try XCTUnwrap(Int(try sql(database, "PRAGMA page_size").trimmingCharacters(in: .whitespacesAndNewlines)))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: database))
        bytes.replaceSubrange((root - 1) * pageSize ..< root * pageSize, with: Data(repeating: 0xAB, count: pageSize))
        try bytes.write(to: URL(fileURLWithPath: database))

        let pause = try tdl(["pause", url("b.bin")], home.path)
        let aside = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: home.path)
            .first { $0.hasPrefix("session.sqlite.damaged-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
        XCTAssertTrue(pause.stderr.contains("the session database \(database) was damaged (database disk image is malformed); it was moved to \(home.file(aside))"),
                      pause.stderr)
        XCTAssertTrue(pause.stderr.contains("not in the session: \(url("b.bin"))"), pause.stderr)
        XCTAssertEqual(pause.status, 2)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: home.file(aside))), bytes, "kept byte for byte")
    }
}
