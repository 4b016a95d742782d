import Foundation
import TDLTestSupport
import XCTest

/// tig-style screen tests: the real binary runs a script of keys on a headless screen and
/// saves what it shows; the test compares it with what a user should see.
final class ScreenTests: XCTestCase {
    /// Runs `tdl` with a script; returns the saved screens in order.
    func screens(_ script: [String], home: TemporaryDirectory, downloads: TemporaryDirectory,
                 size: String = "100x20", environment: [String: String] = [:]) throws -> [String] {
        let work = TemporaryDirectory("tdl-screen")
        var lines: [String] = []
        var saved: [String] = []
        for line in script {
            if line == ":save" {
                let path = work.file("screen\(saved.count).txt")
                saved.append(path)
                lines.append(":save-display \(path)")
            } else {
                lines.append(line)
            }
        }
        let scriptPath = work.file("script")
        try lines.joined(separator: "\n").write(toFile: scriptPath, atomically: true, encoding: .utf8)
        var env = environment
        env["TDL_SCRIPT"] = scriptPath
        env["TDL_SCRIPT_SIZE"] = size
        env["NO_COLOR"] = "1"
        let result = try Processes.tdl(["-d", downloads.path], home: home.path, environment: env, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try saved.map { try String(contentsOfFile: $0, encoding: .utf8) }
    }

    func testEmptyListHelpAndTrashScreens() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let shots = try screens([":save", "?", ":save", "q", "t", ":save"], home: home, downloads: downloads, size: "100x40")
        XCTAssertTrue(shots[0].contains("No downloads yet. Press a to add a URL."), shots[0])
        XCTAssertTrue(shots[0].hasPrefix("tdl · default · Downloads · sort: add time ↑ · max 3"), shots[0])
        XCTAssertTrue(shots[0].contains("a Add  p Pause/Resume"), shots[0])
        // Help lists actions from the one declared list.
        for line in ["a             Add URLs (several at once, separated by spaces)", "q             Quit (everything is saved)", "k Up          Move the selection up"] {
            XCTAssertTrue(shots[1].contains(line), "missing \(line) in\n\(shots[1])")
        }
        XCTAssertTrue(shots[2].contains("tdl · default · Trash"), shots[2])
        XCTAssertTrue(shots[2].contains("The trash is empty. Press t to go back."), shots[2])
    }

    func testInvalidURLAtThePromptIsOneLineNamingIt() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let shots = try screens(["a", ":type ftp:/broken", "<Enter>", ":save"], home: home, downloads: downloads)
        let lines = shots[0].split(separator: "\n")
        XCTAssertEqual(lines.last.map(String.init), "\"ftp:/broken\": no host", shots[0])
    }

    func testTooSmallTerminalSaysSo() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let shots = try screens([":save"], home: home, downloads: downloads, size: "20x4")
        XCTAssertEqual(shots[0], "terminal too small\nneed 30x6\n")
    }
}
