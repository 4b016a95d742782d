import Foundation
import TDLTestSupport
import XCTest

/// A file tdl cannot delete (strace fails its unlink with EACCES or EIO inside the real binary)
/// is an error naming the path and the reason, exit 1, and its task stays as it was: a
/// restarted finished file no longer stays `done` behind a success, a purged task no longer
/// leaves its part file behind with no record.
final class DeletePromiseTests: FaultServerTestCase {
    /// tdl with every unlink of `path` failing with `error`.
    func tdlFailingUnlink(of path: String, error: String, _ arguments: [String], home: TemporaryDirectory) throws -> Processes.Result {
        guard let strace = Processes.which("strace") else { throw XCTSkip("strace is not installed") }
        let options = ["-f", "-o", "/dev/null", "-e", "trace=unlink,unlinkat", "-e", "inject=unlink,unlinkat:error=\(error)", "-P", path]
        return try Processes.run(strace, options + ["--", Processes.tdlBinary] + arguments, environment: ["TDL_HOME": home.path])
    }

    func listLine(_ url: String, home: TemporaryDirectory) throws -> String? {
        try Processes.tdl(["list"], home: home.path).stdout.split(separator: "\n").map(String.init).first { $0.hasSuffix(url) }
    }

    func testARestartWhoseFileCannotBeDeletedFailsAndKeepsTheTaskDone() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let url = server.url("/file/kept.bin?size=100000&seed=41")
        XCTAssertEqual(try Processes.tdl(["get", "-q", "-d", downloads.path, url], home: home.path).status, 0)
        let before = try listLine(url, home: home)
        for error in ["EACCES", "EIO"] {
            let restart = try tdlFailingUnlink(of: downloads.file("kept.bin"), error: error, ["restart", url], home: home)
            XCTAssertEqual(restart.status, 1, restart.stdout + restart.stderr)
            XCTAssertTrue(restart.stderr.contains("could not delete \(downloads.file("kept.bin")): "
                + (error == "EACCES" ? "Permission denied" : "Input/output error")), restart.stderr)
            XCTAssertTrue(restart.stdout.contains("unchanged (done)"), restart.stdout)
            XCTAssertEqual(try listLine(url, home: home), before, "the task changed")
            XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("kept.bin")))
        }
        // Without the fault the same command restarts it.
        let restart = try Processes.tdl(["restart", url], home: home.path)
        XCTAssertEqual(restart.status, 0, restart.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("kept.bin")))
    }

    func testAPurgeWhosePartFileCannotBeDeletedFailsAndKeepsTheTask() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let url = server.url("/file/partial.bin?size=5000000&seed=42&rate=500000")
        Processes.runAndKill(Processes.tdlBinary, ["get", "-q", "-d", downloads.path, url], environment: ["TDL_HOME": home.path], after: 1.5)
        let part = downloads.file("partial.bin.part")
        XCTAssertTrue(FileManager.default.fileExists(atPath: part))
        let purge = try tdlFailingUnlink(of: part, error: "EACCES", ["rm", "--purge", url], home: home)
        XCTAssertEqual(purge.status, 1, purge.stdout + purge.stderr)
        XCTAssertTrue(purge.stderr.contains("could not delete \(part): Permission denied"), purge.stderr)
        XCTAssertNotNil(try listLine(url, home: home), "the task was forgotten with its part file left behind")
        XCTAssertTrue(FileManager.default.fileExists(atPath: part))
        // In the trash too: emptying it keeps what it cannot delete.
        XCTAssertEqual(try Processes.tdl(["rm", url], home: home.path).status, 0)
        let fromTrash = try tdlFailingUnlink(of: part, error: "EIO", ["rm", "--purge", url], home: home)
        XCTAssertEqual(fromTrash.status, 1, fromTrash.stdout + fromTrash.stderr)
        XCTAssertTrue(try Processes.tdl(["list", "--trash"], home: home.path).stdout.contains(url))
        let purged = try Processes.tdl(["rm", "--purge", url], home: home.path)
        XCTAssertEqual(purged.status, 0, purged.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), [])
    }

    /// Emptying a trash of 500 downloads with part files, killed while the files go (strace
    /// slows each unlink so the kill lands in the middle): the next launch finishes the purge,
    /// and no part file is left on disk without a task.
    func testAPurgeCutOffByAKillIsFinishedOnTheNextLaunch() throws {
        guard let strace = Processes.which("strace") else { throw XCTSkip("strace is not installed") }
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let count = 500
        let urls = (1...count).map { server.url("/file/p\($0).bin?size=5000&seed=\($0)&drop_after=100") }
        let list = home.file("urls.txt")
        try urls.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        // Each download records its name, creates its part file, gets 100 bytes and waits for a
        // retry that does not come before the kill.
        let get = try Processes.start(Processes.tdlBinary, ["get", "-q", "-j", String(count), "-x", "1", "-d", downloads.path, "-i", list],
                                      environment: ["TDL_HOME": home.path, "TDL_RETRY_BASE": "600"]).0
        let parts = { (try? FileManager.default.contentsOfDirectory(atPath: downloads.path))?.count ?? 0 }
        XCTAssertTrue(Processes.waitUntil(timeout: 90) { parts() >= count }, "only \(parts()) part files")
        usleep(300_000)
        kill(get.processIdentifier, SIGKILL)
        get.waitUntilExit()
        XCTAssertEqual(try Processes.tdl(["rm"] + urls, home: home.path).status, 0)

        let purge = try Processes.start(strace, ["-f", "-o", "/dev/null", "-e", "trace=unlinkat", "-e", "inject=unlinkat:delay_enter=2000",
                                                 "--", Processes.tdlBinary, "rm", "--purge"] + urls, environment: ["TDL_HOME": home.path]).0
        XCTAssertTrue(Processes.waitUntil(timeout: 60) { parts() < count - 50 }, "the purge deleted nothing")
        let children = (try? String(contentsOfFile: "/proc/\(purge.processIdentifier)/task/\(purge.processIdentifier)/children", encoding: .utf8)) ?? ""
        for pid in children.split(separator: " ").compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
        purge.waitUntilExit()
        let left = parts()
        XCTAssertGreaterThan(left, 0, "the kill came after the purge")

        // A launch: the session runs (here with nothing to download) and finishes the purge.
        let launch = try Processes.tdl(["get", "-q", "--all"], home: home.path, timeout: 60)
        XCTAssertEqual(launch.status, 0, launch.stderr)
        XCTAssertEqual(parts(), 0, "part files left behind with no task")
        XCTAssertEqual(try Processes.tdl(["list", "--trash"], home: home.path).stdout.components(separatedBy: "/file/p").count - 1, 0,
                       "the purge was not finished")
    }
}

/// The download folder removed under a running session is made again when a download needs it.
final class RemovedFolderTests: FaultServerTestCase {
    func testAFolderRemovedUnderARunningSessionIsMadeAgain() throws {
        let home = TemporaryDirectory(), parent = TemporaryDirectory()
        let folder = parent.file("Downloads")
        let port = RefusingPort.make()
        let (serve, _) = try Processes.start(Processes.tdlBinary, ["serve", "-d", folder, "--rpc-listen-port", "\(port)"],
                                             environment: ["TDL_HOME": home.path])
        defer { serve.terminate(); serve.waitUntilExit() }
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: home.file("default.sock")) })
        let first = server.url("/file/first.bin?size=50000&seed=51")
        XCTAssertEqual(try Processes.tdl(["add", first], home: home.path).status, 0)
        XCTAssertTrue(Processes.waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: folder + "/first.bin") })
        try FileManager.default.removeItem(atPath: folder)
        let second = server.url("/file/second.bin?size=50000&seed=52")
        XCTAssertEqual(try Processes.tdl(["add", second], home: home.path).status, 0)
        XCTAssertTrue(Processes.waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: folder + "/second.bin") },
                      "the download did not land: \((try? Processes.tdl(["list"], home: home.path))?.stdout ?? "")")
        XCTAssertEqual(try Processes.sha256(ofFile: folder + "/second.bin"), try server.sha256(name: "second.bin", size: 50000, seed: 52))
    }
}
