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
        _ = try Processes.waitUntil(timeout: timeout, interval: 0.05) {
            last = try screen()
            return last.contains(text)
        }
        XCTAssertTrue(last.contains(text), "screen never showed \"\(text)\":\n\(last)")
        return last
    }

    /// Each launch gets a tmux server of its own: a server just told to exit may still hold
    /// the old socket name when the next one starts.
    /// `afterwards` runs in the same terminal once tdl has exited.
    func launch(home: String, downloads: String, environment: String = "", afterwards: String = "") throws {
        launches += 1
        socket = socket.split(separator: "#").first.map(String.init)! + "#\(launches)"
        let command = "\(environment) TDL_HOME=\(home) \(Processes.tdlBinary) -d \(downloads); echo EXITED $?; \(afterwards) sleep 30"
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
        let done = try waitForScreen(containing: "3.0 MB  Done")
        XCTAssertTrue(done.contains("movie.mp4"), done)
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "EXITED 0")
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("movie.mp4")), try Processes.sha256(ofFile: site.file("movie.mp4")))
        Processes.spawnDetached(Processes.which("tmux") ?? "/usr/bin/tmux", ["-L", socket, "kill-server"])

        try launch(home: home.path, downloads: downloads.path)
        let again = try waitForScreen(containing: "movie.mp4")
        XCTAssertTrue(again.contains("3.0 MB  Done"), again)
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "EXITED 0")
    }

    /// The colours a screen asked for: SGR parameters 30–37, 40–47, 90–97, 100–107 and 38/48
    /// (256 colours or RGB); 39 and 49 only reset to the default.
    func colourCodes(in screen: String) -> [String] {
        screen.matches(of: #/\x1B\[([0-9;]*)m/#).flatMap { match in
            match.1.split(separator: ";").compactMap { Int($0) }.filter {
                (30...37).contains($0) || (40...47).contains($0) || (90...97).contains($0) || (100...107).contains($0) || $0 == 38 || $0 == 48
            }.map(String.init)
        }
    }

    /// NO_COLOR: not one colour reaches the terminal, yet each row keeps its state mark and the
    /// header bar stands out in reverse video. Without it the same screen has colours. A name
    /// that carried an escape code shows as text and clears nothing.
    func testNoColorKeepsTheStateMarksAndSendsNoColours() throws {
        let server = try FaultServer()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try Processes.tdl(["add", "-d", downloads.path, server.url("/file/done.bin?size=1000"),
                           server.url("/file/missing.iso?status=404"), server.url("/file/%1B%5B2Jclear.bin?size=2000")], home: home.path)
        try launch(home: home.path, downloads: downloads.path, environment: "NO_COLOR=1")
        let plain = try waitForScreen(containing: "1 failed, 2 done")
        let rows = plain.split(separator: "\n").filter { $0.hasPrefix(" ✓") || $0.hasPrefix(" ✗") }
        XCTAssertEqual(rows.count, 3, plain)
        XCTAssertTrue(rows.contains { $0.contains("✓") && $0.contains("done.bin") }, plain)
        XCTAssertTrue(rows.contains { $0.contains("✗") && $0.contains("missing.iso") && $0.hasSuffix("Failed: 404 Not Found") }, plain)
        XCTAssertTrue(rows.contains { $0.contains("[2Jclear.bin") }, plain)
        XCTAssertTrue(plain.hasPrefix("tdl · default · Downloads"), "the header is still there:\n\(plain)")
        let escaped = try tmux(["capture-pane", "-p", "-e", "-t", "tdl"])
        XCTAssertEqual(colourCodes(in: escaped), [], escaped)
        XCTAssertTrue(escaped.contains("\u{1B}[7m"), "reverse video marks the header and the selection:\n\(escaped)")
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "EXITED 0")
        Processes.spawnDetached(Processes.which("tmux") ?? "/usr/bin/tmux", ["-L", socket, "kill-server"])

        // The test runner may itself have NO_COLOR set.
        try launch(home: home.path, downloads: downloads.path, environment: "env -u NO_COLOR")
        _ = try waitForScreen(containing: "1 failed, 2 done")
        let coloured = try tmux(["capture-pane", "-p", "-e", "-t", "tdl"])
        XCTAssertNotEqual(colourCodes(in: coloured), [], coloured)
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "EXITED 0")
    }

    func testURLsAddedFromAnotherTerminalAppearOnTheRunningScreen() throws {
        let server = try FaultServer()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try launch(home: home.path, downloads: downloads.path)
        _ = try waitForScreen(containing: "No downloads yet")
        let url = server.url("/file/handed-over.iso?size=200000&seed=2")
        let add = try Processes.tdl(["add", url], home: home.path)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(add.stdout, "added \(url)\n")
        let screen = try waitForScreen(containing: "handed-over.iso", timeout: 5)
        XCTAssertTrue(screen.contains("added 1 download from another tdl"), screen)
        _ = try waitForScreen(containing: "Done")
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "EXITED 0")
    }

    func testKilledWhileDownloadingComesBackAndContinues() throws {
        let server = try FaultServer()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let size = 3_000_000
        let url = server.url("/file/big.bin?size=\(size)&seed=8&rate=250000")
        XCTAssertEqual(try Processes.tdl(["add", "-d", downloads.path, url], home: home.path).status, 0)
        try launch(home: home.path, downloads: downloads.path)
        _ = try waitForScreen(containing: "big.bin")
        // Wait for a checkpoint on disk, then kill -9: no chance to save anything more.
        XCTAssertTrue(Processes.waitUntil(timeout: 20) {
            let json = (try? Processes.tdl(["list", "--json"], home: home.path).stdout) ?? ""
            let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first
            return (object?["received"] as? Int ?? 0) > 500_000
        })
        let pid = try String(contentsOfFile: home.file("default.lock"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        kill(pid_t(pid)!, SIGKILL)
        _ = try waitForScreen(containing: "EXITED 137")
        Processes.spawnDetached(Processes.which("tmux") ?? "/usr/bin/tmux", ["-L", socket, "kill-server"])

        try server.reset()
        try launch(home: home.path, downloads: downloads.path)
        let again = try waitForScreen(containing: "restored 1 interrupted download")
        XCTAssertTrue(again.contains("big.bin"), again)
        // The rest only has to arrive: what was sent again is counted below whatever the pace.
        try server.unthrottle()
        _ = try waitForScreen(containing: "Done", timeout: 60)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("big.bin")), try server.sha256(name: "big.bin", size: size, seed: 8))
        XCTAssertLessThan(try server.bodyBytesSent(), size - 400_000, "the relaunch continued instead of starting over")
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "EXITED 0")
    }

    /// SIGTERM, and SIGHUP (the terminal closed), end the list as q does: the session saved
    /// with a clean quit recorded, so the next launch restores no interrupted download, and
    /// the terminal back in its own mode.
    func testSIGTERMAndSIGHUPQuitCleanly() throws {
        let server = try FaultServer()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let url = server.url("/file/slow.bin?size=3000000&seed=4&rate=100000")
        XCTAssertEqual(try Processes.tdl(["add", "-d", downloads.path, url], home: home.path).status, 0)
        func received() -> Int {
            let json = (try? Processes.tdl(["list", "--json"], home: home.path).stdout) ?? ""
            let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first
            return object?["received"] as? Int ?? 0
        }
        for sig in [SIGTERM, SIGHUP, nil] {
            let before = received()
            try launch(home: home.path, downloads: downloads.path, afterwards: "stty -a; echo MODES SHOWN;")
            let launched = try waitForScreen(containing: "slow.bin")
            XCTAssertFalse(launched.contains("interrupted"), "the last run quit cleanly:\n\(launched)")
            guard let sig else { break }
            // Downloading, with progress on disk.
            XCTAssertTrue(Processes.waitUntil(timeout: 20) { received() > before + 100_000 })
            let pid = try String(contentsOfFile: home.file("default.lock"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            kill(pid_t(pid)!, sig)
            let after = try waitForScreen(containing: "MODES SHOWN")
            XCTAssertTrue(after.contains("EXITED 0"), after)
            XCTAssertFalse(after.contains("tdl · default"), "the list is gone from the terminal:\n\(after)")
            let modes = Set(after.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }))
            XCTAssertTrue(modes.contains("icanon") && modes.contains("echo"), "the terminal is back in line mode:\n\(after)")
            Processes.spawnDetached(Processes.which("tmux") ?? "/usr/bin/tmux", ["-L", socket, "kill-server"])
        }
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "EXITED 0")
    }

    /// An idle list draws nothing and wakes about once a second: no CPU to speak of.
    func testAnIdleListUsesNoCPU() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        XCTAssertEqual(try Processes.tdl(["add", "-d", downloads.path, "http://127.0.0.1:9/later.iso"], home: home.path).status, 0)
        XCTAssertEqual(try Processes.tdl(["pause", "http://127.0.0.1:9/later.iso"], home: home.path).status, 0)
        try launch(home: home.path, downloads: downloads.path)
        _ = try waitForScreen(containing: "later.iso")
        let pid = try String(contentsOfFile: home.file("default.lock"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        func cpuTicks() throws -> Int {
            // utime and stime, fields 14 and 15 of /proc/PID/stat (after the command in parentheses).
            let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
            return Int(fields[11])! + Int(fields[12])!
        }
        let before = try cpuTicks()
        sleep(3)
        let used = try cpuTicks() - before
        XCTAssertLessThanOrEqual(used, 1, "\(used) ticks (1/100 s) of CPU in 3 idle seconds: it redraws or spins while idle")
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "EXITED 0")
    }

    /// A mouse report as a terminal sends it (X10: ESC [ M, then button, column and row, each
    /// plus 32, counted from 1): tmux passes the bytes on to tdl as if the mouse had made them.
    func sendMouse(button: Int, column: Int, row: Int) throws {
        let bytes = [0x1B, 0x5B, 0x4D, 32 + button, 33 + column, 33 + row]
        try tmux(["send-keys", "-t", "tdl", "-H"] + bytes.map { String($0, radix: 16) })
    }

    /// A click selects the row under it; the wheel moves the selection.
    func testAClickSelectsTheRowAndTheWheelMovesTheSelection() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let urls = ["one.bin", "two.bin", "three.bin"].map { "http://127.0.0.1:\(RefusingPort.make())/\($0)" }
        XCTAssertEqual(try Processes.tdl(["add", "-d", downloads.path] + urls, home: home.path).status, 0)
        XCTAssertEqual(try Processes.tdl(["pause"] + urls, home: home.path).status, 0)
        try launch(home: home.path, downloads: downloads.path, environment: "NO_COLOR=1")
        _ = try waitForScreen(containing: "three.bin")
        // Rows: 0 the header, then one.bin, two.bin, three.bin. Press and release on two.bin.
        try sendMouse(button: 0, column: 10, row: 2)
        try sendMouse(button: 3, column: 10, row: 2)
        try tmux(["send-keys", "-t", "tdl", "Enter"])
        _ = try waitForScreen(containing: "Name:          two.bin")
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "one.bin")
        // Wheel down (button 4, reported as 64 + 1): three rows down, stopped at the last.
        try sendMouse(button: 65, column: 10, row: 2)
        try tmux(["send-keys", "-t", "tdl", "Enter"])
        _ = try waitForScreen(containing: "Name:          three.bin")
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "one.bin")
        // Wheel up (64): back to the first.
        try sendMouse(button: 64, column: 10, row: 2)
        try tmux(["send-keys", "-t", "tdl", "Enter"])
        _ = try waitForScreen(containing: "Name:          one.bin")
        try tmux(["send-keys", "-t", "tdl", "q", "q"])
        _ = try waitForScreen(containing: "EXITED 0")
    }

    /// Where the terminal's cursor is, and whether it is shown.
    func cursor() throws -> (x: Int, y: Int, shown: Bool) {
        let parts = try tmux(["display-message", "-p", "-t", "tdl", "#{cursor_x} #{cursor_y} #{cursor_flag}"])
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        return (parts[0], parts[1], parts[2] == 1)
    }

    /// A paste of three lines into the add prompt is three URLs (bracketed paste: the second
    /// line is not read as keys); the cursor shows where typing goes and Left moves it.
    func testPastingThreeLinesAddsThreeURLs() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let port = RefusingPort.make()
        let urls = ["a.bin", "b.bin", "c.bin"].map { "http://127.0.0.1:\(port)/\($0)" }
        try launch(home: home.path, downloads: downloads.path, environment: "TDL_RETRY_BASE=30")
        _ = try waitForScreen(containing: "No downloads yet")
        XCTAssertFalse(try cursor().shown, "no cursor on the list")
        try tmux(["send-keys", "-t", "tdl", "a"])
        _ = try waitForScreen(containing: "Add URL(s):")
        try tmux(["set-buffer", "-b", "urls", urls.joined(separator: "\n") + "\n"])
        try tmux(["paste-buffer", "-p", "-b", "urls", "-t", "tdl"])
        let line = "Add URL(s): " + urls.joined(separator: " ")
        _ = try waitForScreen(containing: line)
        var at = try cursor()
        XCTAssertTrue(at.shown)
        XCTAssertEqual(at.y, 24)
        XCTAssertEqual(at.x, line.count)
        try tmux(["send-keys", "-t", "tdl", "Left", "Left", "Left", "Left", "Left", "BSpace"])
        let edited = try waitForScreen(containing: "\(port)c.bin")
        at = try cursor()
        XCTAssertEqual(at.x, line.count - 6, edited)
        // Typing goes where the cursor is: the slash comes back.
        try tmux(["send-keys", "-t", "tdl", "-l", "/"])
        _ = try waitForScreen(containing: line)
        try tmux(["send-keys", "-t", "tdl", "Enter"])
        let added = try waitForScreen(containing: "added 3 downloads")
        for name in ["a.bin", "b.bin", "c.bin"] { XCTAssertTrue(added.contains(name), added) }
        XCTAssertTrue(added.contains(" · 3 downloading · "), added)
        try tmux(["send-keys", "-t", "tdl", "q"])
        _ = try waitForScreen(containing: "EXITED 0")
    }

    /// On a terminal without an alternate screen (vt100, the Linux console) as on xterm, q
    /// leaves the shell a clean line and none of the list.
    func testQuittingLeavesACleanLineOnEveryTerminalType() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        for term in ["vt100", "linux", "xterm"] {
            try launch(home: home.path, downloads: downloads.path, environment: "TERM=\(term)")
            _ = try waitForScreen(containing: "No downloads yet")
            try tmux(["send-keys", "-t", "tdl", "q"])
            let after = try waitForScreen(containing: "EXITED 0")
            let lines = after.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertTrue(lines.contains("EXITED 0"), "on a line of its own (TERM=\(term)):\n\(after)")
            XCTAssertFalse(after.contains("No downloads yet") || after.contains("default · Downloads"), "the list is gone (TERM=\(term)):\n\(after)")
            Processes.spawnDetached(Processes.which("tmux") ?? "/usr/bin/tmux", ["-L", socket, "kill-server"])
        }
    }
}
