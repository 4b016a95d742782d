import Foundation
import TDLTestSupport
import XCTest

/// The session database when things go wrong around it: only damage moves it aside; a full
/// disk, too many open files, a read-only file or another writer is reported (exit 5) and the
/// file stays where it is, with every task in it.
final class SessionDatabaseTests: XCTestCase {
    let urls = ["a", "b", "c"].map { "http://127.0.0.1:9/\($0).bin" }

    /// A home holding a session of three waiting tasks.
    func homeWithTasks() throws -> TemporaryDirectory {
        let home = TemporaryDirectory()
        let add = try Processes.tdl(["add"] + urls, home: home.path)
        XCTAssertEqual(add.status, 0, add.stderr)
        return home
    }

    func assertNothingMovedAndTasksKept(_ home: TemporaryDirectory, file: StaticString = #filePath, line: UInt = #line) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: home.path)
        XCTAssertFalse(names.contains { $0.contains("damaged") }, "moved aside: \(names)", file: file, line: line)
        let list = try Processes.tdl(["list"], home: home.path)
        XCTAssertEqual(list.status, 0, list.stderr, file: file, line: line)
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 3, list.stdout, file: file, line: line)
    }

    func unshare() throws -> String {
        guard let unshare = Processes.which("unshare"),
              try Processes.run(unshare, ["--user", "--map-root-user", "--mount", "true"]).status == 0 else {
            throw XCTSkip("this kernel does not allow a private user and mount namespace")
        }
        return unshare
    }

    /// The home on a 1 MiB tmpfs in a private mount namespace, filled up after the session is
    /// saved: reading and adding fail with the reason, and once there is room again every task
    /// is there.
    func testAFullDiskUnderTheHomeIsReportedAndMovesNothing() throws {
        let unshare = try unshare()
        let home = TemporaryDirectory()
        let script = """
            mount -t tmpfs -o size=1m tdl-test "$1" || exit 99
            export TDL_HOME="$1"
            "$2" add "$3" "$4" "$5" >/dev/null || exit 98
            dd if=/dev/zero of="$1/filler" bs=4k 2>/dev/null
            "$2" list; echo "list=$?"
            "$2" add http://127.0.0.1:9/d.bin; echo "add=$?"
            ls "$1"
            rm "$1/filler"
            "$2" list | wc -l
            """
        let inside = try Processes.run(unshare, ["--user", "--map-root-user", "--mount", "sh", "-c", script, "sh",
                                                 home.path, Processes.tdlBinary] + urls)
        XCTAssertTrue(inside.stdout.contains("list=5\n"), inside.stdout + inside.stderr)
        XCTAssertTrue(inside.stdout.contains("add=5\n"), inside.stdout + inside.stderr)
        XCTAssertTrue(inside.stderr.contains("cannot use the session database \(home.file("session.sqlite")): "), inside.stderr)
        XCTAssertTrue(inside.stderr.contains("No space left on device"), inside.stderr)
        XCTAssertFalse(inside.stdout.contains("damaged"), "moved aside: " + inside.stdout)
        XCTAssertTrue(inside.stdout.hasSuffix("\n3\n"), "every task is there once there is room: " + inside.stdout)
    }

    /// EMFILE when SQLite opens `session.sqlite-wal`, injected with strace, even for `tdl list`.
    func testTooManyOpenFilesForTheWALIsReportedAndMovesNothing() throws {
        guard let strace = Processes.which("strace"),
              try Processes.run(strace, ["-o", "/dev/null", "true"]).status == 0 else {
            throw XCTSkip("strace is missing or may not trace here (scripts/install-deps.sh --test installs it)")
        }
        let home = try homeWithTasks()
        for command in [["list"], ["add", "http://127.0.0.1:9/d.bin"]] {
            let run = try Processes.run(strace, ["-f", "-o", "/dev/null", "-P", home.file("session.sqlite-wal"),
                                                 "-e", "trace=openat", "-e", "inject=openat:error=EMFILE",
                                                 Processes.tdlBinary] + command,
                                        environment: ["TDL_HOME": home.path])
            XCTAssertEqual(run.status, 5, "\(command): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("cannot use the session database \(home.file("session.sqlite")): "), run.stderr)
            XCTAssertTrue(run.stderr.contains("Too many open files"), run.stderr)
        }
        try assertNothingMovedAndTasksKept(home)
    }

    /// A file tdl may not write, in a user namespace where even root has no right to write it.
    func testAReadOnlyDatabaseIsReportedAndMovesNothing() throws {
        let unshare = try unshare()
        let home = try homeWithTasks()
        chmod(home.file("session.sqlite"), 0o444)
        let add = try Processes.run(unshare, ["--user", Processes.tdlBinary, "add", "http://127.0.0.1:9/d.bin"],
                                    environment: ["TDL_HOME": home.path])
        XCTAssertEqual(add.status, 5, add.stdout + add.stderr)
        XCTAssertEqual(add.stdout, "", "nothing was added")
        XCTAssertTrue(add.stderr.contains("cannot use the session database \(home.file("session.sqlite")): it cannot be written: Permission denied"),
                      add.stderr)
        try assertNothingMovedAndTasksKept(home)
    }

    /// Another program writing to the file (the sqlite3 shell in a transaction) for longer
    /// than SQLite's busy timeout.
    func testABusyWriterIsReportedAndMovesNothing() throws {
        let home = try homeWithTasks()
        let sqlite = Processes.which("sqlite3") ?? "/usr/bin/sqlite3"
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: sqlite)
        writer.arguments = [home.file("session.sqlite")]
        let input = Pipe()
        writer.standardInput = input
        writer.standardOutput = FileHandle.nullDevice
        try writer.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nSELECT 1;\n".utf8))
        defer { try? input.fileHandleForWriting.close(); writer.waitUntilExit() }
        XCTAssertTrue(Processes.waitUntil(timeout: 5) { FileManager.default.fileExists(atPath: home.file("session.sqlite-wal")) })
        usleep(200_000)

        let add = try Processes.tdl(["add", "http://127.0.0.1:9/d.bin"], home: home.path)
        XCTAssertEqual(add.status, 5, add.stdout + add.stderr)
        XCTAssertTrue(add.stderr.contains("cannot use the session database \(home.file("session.sqlite")): database is locked"), add.stderr)
        try input.fileHandleForWriting.close()
        writer.waitUntilExit()
        try assertNothingMovedAndTasksKept(home)
    }

    /// A damaged page of the task table: `tdl list` reports it and leaves it; the next command
    /// that changes the session moves it aside and says where.
    func testADamagedPageIsMovedAsideAndTheMessageNamesThePath() throws {
        let home = TemporaryDirectory()
        let many = (0..<2000).map { "http://127.0.0.1:9/\($0).bin" }
        XCTAssertEqual(try Processes.tdl(["add", "-i", "-"], home: home.path, stdin: many.joined(separator: "\n")).status, 0)
        let database = home.file("session.sqlite")
        let sqlite = Processes.which("sqlite3") ?? "/usr/bin/sqlite3"
        let root = try XCTUnwrap(Int(Processes.run(sqlite, [database, "SELECT rootpage FROM sqlite_master WHERE name = 'task'"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let pageSize = try XCTUnwrap(Int(Processes.run(sqlite, [database, "PRAGMA page_size"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: database))
        bytes.replaceSubrange((root - 1) * pageSize ..< root * pageSize, with: Data(repeating: 0xAB, count: pageSize))
        try bytes.write(to: URL(fileURLWithPath: database))

        let list = try Processes.tdl(["list"], home: home.path)
        XCTAssertEqual(list.status, 5, list.stderr)
        XCTAssertTrue(list.stderr.contains("the session database \(database) is damaged (database disk image is malformed)"), list.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database)), bytes, "listing leaves it where it is")

        let add = try Processes.tdl(["add", "http://127.0.0.1:9/new.bin"], home: home.path)
        XCTAssertEqual(add.status, 0, add.stderr)
        let aside = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: home.path)
            .first { $0.hasPrefix("session.sqlite.damaged-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
        XCTAssertTrue(add.stderr.contains("the session database \(database) was damaged (database disk image is malformed); it was moved to \(home.file(aside))"),
                      add.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: home.file(aside))), bytes, "kept byte for byte")
        XCTAssertEqual(try Processes.tdl(["list"], home: home.path).stdout.split(separator: "\n").count, 1)
    }

    /// `tdl list` on a home that does not exist, or has no database, creates nothing.
    func testListingCreatesNothing() throws {
        let parent = TemporaryDirectory()
        let missing = parent.file("home")
        let list = try Processes.tdl(["list"], home: missing)
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.stdout, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
        let empty = TemporaryDirectory()
        XCTAssertEqual(try Processes.tdl(["list", "--json"], home: empty.path).stdout, "[\n]\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: empty.path), [])
    }

    /// A home given with --home that exists keeps its mode; one tdl creates is owner-only.
    func testAnExistingHomeKeepsItsMode() throws {
        let parent = TemporaryDirectory()
        let shared = parent.file("shared")
        XCTAssertEqual(mkdir(shared, 0o755), 0)
        chmod(shared, 0o1777)
        XCTAssertEqual(try Processes.tdl(["add", "--home", shared, urls[0]], home: parent.file("unused")).status, 0)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: shared)[.posixPermissions] as? Int, 0o1777)
        let made = parent.file("made/home")
        XCTAssertEqual(try Processes.tdl(["add", urls[0]], home: made).status, 0)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: made)[.posixPermissions] as? Int, 0o700)
        // The folders made on the way are owner-only too.
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: parent.file("made"))[.posixPermissions] as? Int, 0o700)
    }

    /// Another command holding the session's lock for a moment (as `tdl add` of many URLs
    /// does) is waited for, with a word after a second, instead of "in use".
    func testALockHeldForAMomentIsWaitedFor() throws {
        let home = try homeWithTasks()
        let flock = try XCTUnwrap(Processes.which("flock"))
        let ready = home.file("ready")
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: flock)
        holder.arguments = [home.file("default.lock"), "sh", "-c", "touch '\(ready)'; sleep 2"]
        try holder.run()
        defer { holder.waitUntilExit() }
        XCTAssertTrue(Processes.waitUntil(timeout: 5) { FileManager.default.fileExists(atPath: ready) })

        let add = try Processes.tdl(["add", "http://127.0.0.1:9/d.bin"], home: home.path)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(add.stdout, "added http://127.0.0.1:9/d.bin\n")
        XCTAssertTrue(add.stderr.contains("waiting for another tdl"), add.stderr)
        XCTAssertTrue(add.stderr.contains("that is changing the session \"default\""), add.stderr)
    }

    /// The lock file cannot be opened: the reason in words, with the path.
    func testALockFileThatCannotBeOpenedIsSaidInWords() throws {
        guard let strace = Processes.which("strace"),
              try Processes.run(strace, ["-o", "/dev/null", "true"]).status == 0 else {
            throw XCTSkip("strace is missing or may not trace here (scripts/install-deps.sh --test installs it)")
        }
        let home = try homeWithTasks()
        let add = try Processes.run(strace, ["-f", "-o", "/dev/null", "-P", home.file("default.lock"),
                                             "-e", "trace=openat", "-e", "inject=openat:error=EMFILE",
                                             Processes.tdlBinary, "add", "http://127.0.0.1:9/d.bin"],
                                    environment: ["TDL_HOME": home.path])
        XCTAssertEqual(add.status, 5, add.stderr)
        XCTAssertEqual(add.stderr, "tdl: cannot lock the session with \(home.file("default.lock")): Too many open files\n")
    }
}
