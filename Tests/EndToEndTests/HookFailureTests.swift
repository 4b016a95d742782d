import Foundation
import TDLTestSupport
import XCTest

/// A hook that cannot run, or that fails, is said: on stderr by `tdl get` (and `serve`), in
/// the screen's messages by the full-screen list.
final class HookFailureTests: XCTestCase {
    let source = TemporaryDirectory(), downloads = TemporaryDirectory()

    func get(_ hook: String, _ name: String) throws -> Processes.Result {
        try TestFiles.make(source.file(name), size: 1_000, seed: 5)
        let home = TemporaryDirectory()
        return try Processes.tdl(["get", "-q", "-d", downloads.path, "--on-complete", hook, "file://" + source.file(name)], home: home.path)
    }

    func testAHookThatCannotStartIsSaid() throws {
        let run = try get("/nonexistent/hook", "a.bin")
        XCTAssertEqual(run.status, 0, "the download itself finished: " + run.stderr)
        XCTAssertTrue(run.stderr.contains("a.bin: could not run /nonexistent/hook: No such file or directory"), run.stderr)
    }

    func testAHookThatFailsIsSaid() throws {
        let hook = source.file("hook.sh")
        try "#!/bin/sh\nexit 3\n".write(toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        let run = try get(hook, "b.bin")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("b.bin: \(hook) exited with status 3"), run.stderr)
    }
}
