import Foundation
import TDLTestSupport
import XCTest

/// Drives the real binary inside tmux, as a person would: keys in, screen out.
final class TmuxTests: XCTestCase {
    var socket: String!
    var launches = 0

    override func setUp() {
        socket = "tdl-test-\(getpid())-\(Int.random(in: 0..<1_000_000))"
    }

    override func tearDown() {
        Processes.spawnDetached(Processes.which("tmux") ?? "/usr/bin/tmux", ["-L", socket, "kill-server"])
    }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let result = try Processes.run(Processes.which("tmux") ?? "/usr/bin/tmux", ["-L", socket] + arguments, timeout: 10)
        return result.stdout
    }

    func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", "tdl"]) }

    func waitForScreen(containing text: String, timeout: Double = 30) throws -> String {
        var last = ""
        _ = try Processes.waitUntil(timeout: timeout, interval: 0.2) {
            last = try screen()
            return last.contains(text)
        }
        XCTAssertTrue(last.contains(text), "screen never showed \"\(text)\":\n\(last)")
        return last
    }

    /// Each launch gets a tmux server of its own: a server just told to exit may still hold
    /// the old socket name when the next one starts.
    func launch(home: String, downloads: String) throws {
        launches += 1
        socket = socket.split(separator: "#").first.map(String.init)! + "#\(launches)"
        let command = "TDL_HOME=\(home) \(Processes.tdlBinary) -d \(downloads); echo EXITED $?; sleep 30"
        Processes.spawnDetached(Processes.which("tmux") ?? "/usr/bin/tmux",
                                ["-L", socket, "new-session", "-d", "-s", "tdl", "-x", "100", "-y", "25", command])
    }

    func testAddDownloadQuitAndRelaunchKeepsTheRow() throws {
        let site = TemporaryDirectory("tdl-tmux-site")
        try TestFiles.make(site.file("movie.mp4"), size: 3_000_000, seed: 5)
        let nginx = try LoopbackNginx(root: site.path)
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try launch(home: home.path, downloads: downloads.path)
        _ = try waitForScreen(containing: "No downloads yet")
        try tmux(["send-keys", "-t", "tdl", "a"])
        _ = try waitForScreen(containing: "Add URL(s):")
        try tmux(["send-keys", "-t", "tdl", "-l", nginx.url("movie.mp4")])
        try tmux(["send-keys", "-t", "tdl", "Enter"])
        let done = try waitForScreen(containing: "Done 3.0 MB")
        XCTAssertTrue(done.contains("movie.mp4"), done)
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "EXITED 0")
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("movie.mp4")), try Processes.sha256(ofFile: site.file("movie.mp4")))
        Processes.spawnDetached(Processes.which("tmux") ?? "/usr/bin/tmux", ["-L", socket, "kill-server"])

        try launch(home: home.path, downloads: downloads.path)
        let again = try waitForScreen(containing: "movie.mp4")
        XCTAssertTrue(again.contains("Done 3.0 MB"), again)
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "EXITED 0")
    }
}
