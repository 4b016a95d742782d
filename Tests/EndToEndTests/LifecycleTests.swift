import Foundation
import TDLTestSupport
import XCTest

/// A task's life as a person meets it through the real binary: asking for a URL again, quitting
/// and relaunching, the trash, commands while no tdl runs, a save that fails.
final class LifecycleTests: FaultServerTestCase {
    func url(_ name: String, size: Int = 200_000, seed: Int = 1, extra: String = "") -> String {
        server.url("/file/\(name)?size=\(size)&seed=\(seed)\(extra)")
    }

    func assertIdentical(_ path: String, _ name: String, size: Int = 200_000, seed: Int = 1, line: UInt = #line) throws {
        XCTAssertEqual(try Processes.sha256(ofFile: path), try server.sha256(name: name, size: size, seed: seed), line: line)
    }

    // MARK: - Asking again

    func testAFinishedFileThatIsMissingOrChangedIsDownloadedAgain() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let photo = url("photo.jpg")
        let get = ["get", "-q", "-d", downloads.path, photo]
        XCTAssertEqual(try Processes.tdl(get, home: home.path).status, 0)
        try FileManager.default.removeItem(atPath: downloads.file("photo.jpg"))
        let missing = try Processes.tdl(get, home: home.path)
        XCTAssertEqual(missing.status, 0, missing.stderr)
        try assertIdentical(downloads.file("photo.jpg"), "photo.jpg")
        try Data(repeating: 7, count: 10).write(to: URL(fileURLWithPath: downloads.file("photo.jpg")))
        let changed = try Processes.tdl(get, home: home.path)
        XCTAssertEqual(changed.status, 0, changed.stderr)
        try assertIdentical(downloads.file("photo.jpg"), "photo.jpg")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), ["photo.jpg"])
    }

    /// A finished file is verified against a checksum given with it, not trusted; a mismatch
    /// is said and the file stays finished; the right value, given next, is taken.
    func testAChecksumGivenAgainIsCheckedAndReplacesTheOldOne() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let file = url("sum.bin")
        XCTAssertEqual(try Processes.tdl(["get", "-q", "-d", downloads.path, file], home: home.path).status, 0)
        let wrong = "sha256=" + String(repeating: "0", count: 64)
        let right = "sha256=" + (try server.sha256(name: "sum.bin", size: 200_000, seed: 1))
        let mismatch = try Processes.tdl(["get", "-q", "--checksum", wrong, file], home: home.path)
        XCTAssertEqual(mismatch.status, 1, "a finished file that does not match is no success\n\(mismatch.stderr)")
        XCTAssertTrue(mismatch.stderr.contains("checksum"), mismatch.stderr)
        // Kept, whole and finished: a wrong hash never deletes a finished file nor downloads it again.
        try assertIdentical(downloads.file("sum.bin"), "sum.bin")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), ["sum.bin"])
        XCTAssertFalse(mismatch.stderr.contains("downloading again"), mismatch.stderr)
        XCTAssertTrue(try Processes.tdl(["list"], home: home.path).stdout.contains("done\tsum.bin"))
        let fixed = try Processes.tdl(["get", "-q", "--checksum", right, file], home: home.path)
        XCTAssertEqual(fixed.status, 0, fixed.stderr)
        try assertIdentical(downloads.file("sum.bin"), "sum.bin")
    }

    func testANameGivenAgainRenamesTheFile() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let file = url("report.pdf")
        XCTAssertEqual(try Processes.tdl(["get", "-q", "-d", downloads.path, file], home: home.path).status, 0)
        let renamed = try Processes.tdl(["get", "-q", "-o", "renamed.pdf", file], home: home.path)
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), ["renamed.pdf"])
        try assertIdentical(downloads.file("renamed.pdf"), "report.pdf")
        XCTAssertTrue(try Processes.tdl(["list"], home: home.path).stdout.contains("done\trenamed.pdf"))
        // Over another file: refused, and said.
        try Data("mine".utf8).write(to: URL(fileURLWithPath: downloads.file("mine.pdf")))
        let refused = try Processes.tdl(["get", "-q", "-o", "mine.pdf", file], home: home.path)
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("cannot rename to mine.pdf"), refused.stderr)
        XCTAssertEqual(try String(contentsOfFile: downloads.file("mine.pdf"), encoding: .utf8), "mine")
    }

    /// The disk filled up; space came back; the same command finishes the same file: no
    /// `full (1).bin`, no empty `full.bin.part` left behind.
    func testAfterADiskFullTheSameCommandReusesItsName() throws {
        guard let unshare = Processes.which("unshare"),
              try Processes.run(unshare, ["--user", "--map-root-user", "--mount", "true"]).status == 0 else {
            throw XCTSkip("this kernel does not allow a private mount namespace")
        }
        let home = TemporaryDirectory(), small = TemporaryDirectory()
        let script = """
            mount -t tmpfs -o size=1m tdl-test "$1" || exit 99
            TDL_HOME="$2" "$3" get -q -d "$1" "$4"; echo "first=$?"
            mount -o remount,size=8m "$1" || exit 98
            TDL_HOME="$2" "$3" get -q -d "$1" "$4"; echo "second=$?"
            ls -A "$1"
            """
        let inside = try Processes.run(unshare, ["--user", "--map-root-user", "--mount", "sh", "-c", script, "sh",
                                                 small.path, home.path, Processes.tdlBinary, url("full.bin", size: 3_000_000)])
        XCTAssertTrue(inside.stdout.contains("first=1"), inside.stdout + inside.stderr)
        XCTAssertTrue(inside.stderr.contains("disk full"), inside.stderr)
        XCTAssertTrue(inside.stdout.contains("second=0"), inside.stdout + inside.stderr)
        XCTAssertTrue(inside.stdout.hasSuffix("second=0\nfull.bin\n"), "only the file: " + inside.stdout)
    }

    // MARK: - Quit, crash and relaunch

    func testACleanQuitIsNotAnInterruptionAndOnlyACrashIs() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let slow = url("slow.bin", size: 4_000_000, extra: "&rate=200000")
        // --interrupted wait is the session's rule after a crash, never after a clean quit.
        try interrupt(["get", "-q", "-d", downloads.path, "--interrupted", "wait", slow], home: home, downloads: downloads, signal: SIGINT)
        XCTAssertTrue(try Processes.tdl(["list"], home: home.path).stdout.hasPrefix("waiting\tslow.bin"), "nothing downloads it now")
        XCTAssertFalse(try launchMessage(home: home, downloads: downloads).contains("interrupted"))

        try interrupt(["get", "-q", slow], home: home, downloads: downloads, signal: SIGKILL)
        XCTAssertTrue(try Processes.tdl(["list"], home: home.path).stdout.hasPrefix("waiting\tslow.bin"),
                      "no tdl runs: not downloading")
        XCTAssertTrue(try launchMessage(home: home, downloads: downloads).contains("1 interrupted download waits, paused"))
    }

    /// Starts a download, lets it write, then sends `signal`.
    private func interrupt(_ arguments: [String], home: TemporaryDirectory, downloads: TemporaryDirectory, signal: Int32) throws {
        let (process, _) = try Processes.start(Processes.tdlBinary, arguments, environment: ["TDL_HOME": home.path])
        XCTAssertTrue(Processes.waitUntil(timeout: 20) {
            ((try? FileManager.default.attributesOfItem(atPath: downloads.file("slow.bin.part")))?[.size] as? Int ?? 0) > 300_000
        })
        usleep(600_000)  // a checkpoint
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    /// The message line of the full-screen list right after launch.
    private func launchMessage(home: TemporaryDirectory, downloads: TemporaryDirectory) throws -> String {
        ScreenDump.row(fromBottom: 1, of: try screen([":save", "q"], home: home, downloads: downloads)[0], rows: screenRows)
    }

    /// `-` sends the newest download back to the queue (Waiting, not Paused); an older task that
    /// was stopped and resumed waits behind the ones running; a clean relaunch runs the same
    /// downloads as before the quit.
    func testTheLimitAndARelaunchKeepWhichDownloadsRun() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let urls = (0..<4).map { url("f\($0).bin", size: 3_000_000, seed: $0, extra: "&rate=60000") }
        XCTAssertEqual(try Processes.tdl(["add", "-d", downloads.path] + urls, home: home.path).status, 0)
        let first = try screen(["<Down>", "<Up>", ":sleep 700", "-", ":sleep 300", ":save", "x", ":sleep 300", "p", ":sleep 300", ":save", "q"],
                               home: home, downloads: downloads)
        XCTAssertEqual(try state(of: "f2.bin", in: first[0]), "Waiting", first[0])
        XCTAssertEqual(try state(of: "f3.bin", in: first[0]), "Waiting", first[0])
        XCTAssertEqual(try state(of: "f0.bin", in: first[1]), "Waiting", "stopped, then resumed with no free slot\n" + first[1])
        XCTAssertEqual(try state(of: "f2.bin", in: first[1]), "running", first[1])

        let relaunched = try screen([":sleep 700", ":save", "q"], home: home, downloads: downloads)
        XCTAssertEqual(try ["f0.bin", "f1.bin", "f2.bin", "f3.bin"].map { try state(of: $0, in: relaunched[0]) },
                       ["Waiting", "running", "running", "Waiting"], relaunched[0])
    }

    let screenRows = 12

    /// Runs the full-screen list with a script; `:save` saves the screen there.
    private func screen(_ script: [String], home: TemporaryDirectory, downloads: TemporaryDirectory) throws -> [String] {
        let work = TemporaryDirectory("tdl-screen")
        var saved: [String] = []
        let lines = script.map { line -> String in
            guard line == ":save" else { return line }
            saved.append(work.file("screen\(saved.count)"))
            return ":save-display \(saved.last!)"
        }
        try lines.joined(separator: "\n").write(toFile: work.file("script"), atomically: true, encoding: .utf8)
        let run = try Processes.tdl(["-d", downloads.path], home: home.path,
                                    environment: ["TDL_SCRIPT": work.file("script"), "TDL_SCRIPT_SIZE": "120x\(screenRows)", "NO_COLOR": "1"])
        XCTAssertEqual(run.status, 0, run.stderr)
        return try saved.map { try String(contentsOfFile: $0, encoding: .utf8) }
    }

    /// "Waiting", "Paused", … as the row of `name` says, or "running" for a row with progress.
    private func state(of name: String, in screen: String) throws -> String {
        let row = try XCTUnwrap(ScreenDump.taskRows(screen).first { $0.contains(name) }, "no row for \(name)")
        for word in ["Waiting", "Paused", "Stopped", "Done", "Failed"] where row.contains(word) { return word }
        return "running"
    }

    // MARK: - The trash and commands while no tdl runs

    func testAURLInTheTrashAskedForAgainComesBackAsItWas() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let file = url("back.bin")
        XCTAssertEqual(try Processes.tdl(["add", "-d", downloads.path, file], home: home.path).status, 0)
        XCTAssertEqual(try Processes.tdl(["rm", file], home: home.path).status, 0)
        XCTAssertTrue(try Processes.tdl(["list", "--trash"], home: home.path).stdout.contains("waiting\tback.bin"),
                      "the trash keeps the state it had")
        let again = try Processes.tdl(["add", file], home: home.path)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("back from the trash"), again.stdout)
        XCTAssertTrue(try Processes.tdl(["list"], home: home.path).stdout.hasPrefix("waiting\tback.bin"))

        XCTAssertEqual(try Processes.tdl(["pause", file], home: home.path).status, 0)
        XCTAssertEqual(try Processes.tdl(["rm", file], home: home.path).status, 0)
        let resumed = try Processes.tdl(["resume", file], home: home.path)
        XCTAssertTrue(resumed.stdout.contains("resumed"), resumed.stdout)
        XCTAssertTrue(try Processes.tdl(["list"], home: home.path).stdout.hasPrefix("waiting\tback.bin"),
                      "resumed while no tdl runs: it waits for the next one, never says downloading")
    }

    /// A download moved to the trash while `tdl get` waits for it: the get ends and says why,
    /// instead of waiting for a task that runs nowhere.
    func testAGetWhoseDownloadGoesToTheTrashEndsAndSaysSo() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let slow = url("slow.bin", size: 4_000_000, extra: "&rate=100000")
        let (get, stderr) = try Processes.start(Processes.tdlBinary, ["get", "-q", "-d", downloads.path, slow],
                                                environment: ["TDL_HOME": home.path])
        XCTAssertTrue(Processes.waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: downloads.file("slow.bin.part")) })
        XCTAssertEqual(try Processes.tdl(["rm", slow], home: home.path).status, 0)
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { !get.isRunning }, "tdl get still waits for a download in the trash")
        if get.isRunning { get.terminate() }
        get.waitUntilExit()
        XCTAssertEqual(get.terminationStatus, 1)
        let said = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(said.contains("moved to the trash"), said)
    }

    // MARK: - A save that fails

    func testASessionThatCannotBeSavedIsToldAndFailsTheRun() throws {
        guard let strace = Processes.which("strace") else { throw XCTSkip("strace is not installed") }
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        XCTAssertEqual(try Processes.tdl(["add", "-d", downloads.path, url("first.bin")], home: home.path).status, 0)
        // Every write to the session's log fails once the run has started.
        let run = try Processes.run(strace, ["-f", "-o", "/dev/null", "--seccomp-bpf", "-P", home.file("session.sqlite-wal"),
                                             "-e", "trace=pwrite64", "-e", "inject=pwrite64:error=EIO:when=3+",
                                             "--", Processes.tdlBinary, "get", "-q", url("second.bin")],
                                    environment: ["TDL_HOME": home.path])
        XCTAssertEqual(run.status, 5, run.stderr)
        XCTAssertTrue(run.stderr.contains("could not save the session"), run.stderr)
    }
}
