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
}
