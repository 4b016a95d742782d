import Foundation
import TDLTestSupport
import XCTest

/// `tdl get URL -o -` into a pipe, as `| sha256sum` or `| tar x` would read it.
final class StandardOutputTests: FaultServerTestCase {
    let home = TemporaryDirectory()

    /// `tdl get -o - URL | sha256sum` in bash with pipefail: tdl's status, and the digest.
    func piped(_ url: String) throws -> (status: Int32, sha256: String, stderr: String) {
        let result = try Processes.run("/bin/bash", ["-c", "set -o pipefail; \"$TDL\" get -o - \"$URL\" | sha256sum"],
                                       environment: ["TDL": Processes.tdlBinary, "URL": url, "TDL_HOME": home.path,
                                                     "TDL_RETRY_BASE": "0.05"])
        return (result.status, String(result.stdout.prefix(64)), result.stderr)
    }

    func testThePipeGetsTheFilesBytes() throws {
        let result = try piped(server.url("/file/piped.bin?size=3000000&seed=61"))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.sha256, try server.sha256(name: "piped.bin", size: 3_000_000, seed: 61))
        XCTAssertTrue(result.stderr.contains("piped.bin"), "progress on stderr: \(result.stderr)")
        // Nothing was kept in the session as a file.
        let list = try Processes.tdl(["list", "--json"], home: home.path)
        XCTAssertFalse(list.stdout.contains("piped.bin"), list.stdout)
    }

    /// A connection dropped mid-body is resumed from the byte the pipe has: the bytes stay in order.
    func testADroppedConnectionResumesInOrder() throws {
        let result = try piped(server.url("/file/resumed.bin?size=3000000&seed=62&drop_after=700000"))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.sha256, try server.sha256(name: "resumed.bin", size: 3_000_000, seed: 62))
    }

    /// A server that cannot resume cuts the stream: the pipe got a prefix, tdl exits 1.
    func testAStreamThatCannotBeResumedFails() throws {
        let url = server.url("/file/cut.bin?size=3000000&seed=63&drop_after=700000&no_range=1")
        let result = try piped(url)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertNotEqual(result.sha256, try server.sha256(name: "cut.bin", size: 3_000_000, seed: 63))
        XCTAssertTrue(result.stderr.contains("cannot resume"), result.stderr)
        let count = try Processes.run("/bin/bash", ["-c", "\"$TDL\" get -q -o - \"$URL\" | wc -c"],
                                      environment: ["TDL": Processes.tdlBinary, "URL": url, "TDL_HOME": home.path, "TDL_RETRY_BASE": "0.05"])
        XCTAssertEqual(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "700000")
    }

    func testAMissingFileFailsAtOnce() throws {
        let result = try piped(server.url("/file/none.bin?status=404"))
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("404"), result.stderr)
    }

    /// `--checksum` checks the bytes that went down the pipe: a wrong one fails the run.
    func testTheChecksumOfTheStreamIsChecked() throws {
        let url = server.url("/file/summed.bin?size=500000&seed=64")
        let right = try server.sha256(name: "summed.bin", size: 500_000, seed: 64)
        let script = "set -o pipefail; \"$TDL\" get -q -o - --checksum \"$SUM\" \"$URL\" | wc -c"
        let good = try Processes.run("/bin/bash", ["-c", script], environment: ["TDL": Processes.tdlBinary, "URL": url, "TDL_HOME": home.path,
                                                                                 "SUM": "sha-256=" + right])
        XCTAssertEqual(good.status, 0, good.stderr)
        let bad = try Processes.run("/bin/bash", ["-c", script], environment: ["TDL": Processes.tdlBinary, "URL": url, "TDL_HOME": home.path,
                                                                                "SUM": "sha256=" + String(repeating: "0", count: 64)])
        XCTAssertEqual(bad.status, 1, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("checksum mismatch"), bad.stderr)
    }
}
