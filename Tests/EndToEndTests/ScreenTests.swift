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
        // Unicode marks need a UTF-8 locale: pinned, so the screens do not depend on the runner's.
        env["LC_ALL"] = env["LC_ALL"] ?? "C.UTF-8"
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

    // MARK: - Columns

    /// A session with a row in every state: done, failed, paused, stopped, three downloading
    /// (slowly, so they still are when the screen is saved) and one waiting.
    func mixedSessionScript(_ server: FaultServer) -> [String] {
        let slow = (1...6).map { server.url("/file/slow\($0).bin?size=50000000&seed=\($0)&rate=50000") }
        return [
            "a", ":type \(server.url("/file/report.pdf?size=2400000&seed=1")) \(server.url("/file/missing.iso?status=404"))", "<Enter>",
            ":wait-idle 30",
            // The first slow file is selected once added: pause it, stop the next one.
            "a", ":type " + slow.joined(separator: " "), "<Enter>",
            ":sleep 1000", "p", "j", "x", ":sleep 1000",
        ]
    }

    /// Every row within the width, sizes ending in one column (when shown), states starting in one.
    func assertColumnsLineUp(_ screen: String, columns: Int, sizes: Bool = true, file: StaticString = #filePath, line: UInt = #line) {
        let rows = ScreenDump.taskRows(screen)
        XCTAssertEqual(rows.count, 8, screen, file: file, line: line)
        for row in ScreenDump.lines(screen) {
            XCTAssertLessThanOrEqual(ScreenDump.width(row), columns, row, file: file, line: line)
        }
        let sizeEnds = Set(rows.compactMap(ScreenDump.sizeEnd))
        XCTAssertEqual(sizeEnds.count, sizes ? 1 : sizeEnds.count, "sizes end in different columns:\n\(screen)", file: file, line: line)
        let statusStarts = Set(rows.compactMap(ScreenDump.statusStart))
        XCTAssertEqual(statusStarts.count, 1, "states start in different columns:\n\(screen)", file: file, line: line)
    }

    func testColumnsLineUpInEveryState() throws {
        let server = try FaultServer()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let shots = try screens(mixedSessionScript(server) + [":save"], home: home, downloads: downloads, size: "110x20")
        let screen = shots[0]
        assertColumnsLineUp(screen, columns: 110)
        let rows = ScreenDump.taskRows(screen)
        func row(_ name: String) -> String { rows.first { $0.contains(name) } ?? "" }
        XCTAssertTrue(row("report.pdf").hasSuffix("2.4 MB  Done"), "the size once, then the state:\n\(screen)")
        XCTAssertTrue(row("missing.iso").hasSuffix("Failed: 404 Not Found"), screen)
        XCTAssertTrue(row("slow1.bin").contains("50.0 MB  Paused "), screen)
        XCTAssertTrue(row("slow2.bin").contains("50.0 MB  Stopped "), screen)
        XCTAssertTrue(row("slow6.bin").hasSuffix("Waiting"), "no size before the server answered:\n\(screen)")
        XCTAssertFalse(row("slow6.bin").contains("?"), screen)
        for name in ["slow3.bin", "slow4.bin", "slow5.bin"] {
            XCTAssertTrue(row(name).contains("50.0 MB  [") && row(name).contains("/s"), "a bar, percent, speed and ETA:\n\(screen)")
        }
        // Every count fits as marks beside the sort, speed and limit.
        let header = ScreenDump.lines(screen)[0]
        XCTAssertTrue(header.hasPrefix("tdl · default · Downloads · sort: add time ↑ · 3↓ 1… 1‖ 1■ 1✗ 1✓ · "), header)
        XCTAssertTrue(header.contains("/s ETA ") && header.hasSuffix(" · max 3"), header)
        XCTAssertEqual(ScreenDump.row(fromBottom: 1, of: screen, rows: 20), "stopped 1 download", screen)
    }

    func testResizeLaysTheColumnsOutAgain() throws {
        let server = try FaultServer()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let script = mixedSessionScript(server) + [":save", ":resize 80x24", ":save", ":resize 60x20", ":save", ":resize 44x20", ":save"]
        let shots = try screens(script, home: home, downloads: downloads, size: "120x20")
        for (shot, columns) in zip(shots, [120, 80, 60, 44]) {
            assertColumnsLineUp(shot, columns: columns, sizes: columns > 44)
        }
        for shot in shots.prefix(3) {
            XCTAssertTrue(ScreenDump.lines(shot)[0].hasSuffix("max 3"), "the limit stays:\n\(shot)")
        }
        let downloading = shots.map { ScreenDump.taskRows($0).first { $0.contains("slow3.bin") } ?? "" }
        XCTAssertNotNil(downloading[0].firstMatch(of: #/\[[#-]{20}\]/#), "a long bar at 120:\n\(shots[0])")
        XCTAssertNotNil(downloading[1].firstMatch(of: #/\[[#-]{10}\]/#), "a shorter bar at 80:\n\(shots[1])")
        XCTAssertFalse(downloading[2].contains("["), "no bar at 60:\n\(shots[2])")
        XCTAssertTrue(downloading[2].contains("/s "), "speed and ETA at 60:\n\(shots[2])")
        XCTAssertFalse(ScreenDump.taskRows(shots[3]).contains { $0.contains("50.0 MB") }, "no size column at 44:\n\(shots[3])")
        XCTAssertTrue(ScreenDump.lines(shots[0])[0].contains(" · 3↓ 1… 1‖ 1■ 1✗ 1✓ · "), shots[0])
        XCTAssertFalse(ScreenDump.lines(shots[1])[0].contains("3↓"), "the counts give way first at 80:\n\(shots[1])")
        XCTAssertTrue(ScreenDump.lines(shots[1])[0].hasPrefix("tdl · default · Downloads · sort: add time ↑ · "), shots[1])
        XCTAssertTrue(ScreenDump.lines(shots[2])[0].hasPrefix("default · Downloads · add time ↑ · "), shots[2])
    }

    // MARK: - Text views and messages

    func testHelpAndDetailsScrollWithTheListKeys() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try Processes.tdl(["add", "-d", downloads.path, "http://127.0.0.1:\(RefusingPort.make())/file.bin"], home: home.path)
        let script = ["?", ":save", "G", ":save", "k", ":save", "g", ":save", "<PgDn>", ":save", "q",
                      ":resize 80x12", "<Enter>", ":save", "<End>", ":save"]
        let shots = try screens(script, home: home, downloads: downloads, size: "80x24", environment: ["TDL_RETRY_BASE": "30"])
        // The key bar of each screen: the last two are 12 rows high.
        func footer(_ k: Int) -> String { ScreenDump.row(fromBottom: 2, of: shots[k], rows: k >= 5 ? 12 : 24) }
        XCTAssertTrue(shots[0].contains(" k Up          Move the selection up"), shots[0])
        XCTAssertFalse(shots[0].contains("Quit (everything is saved)"), shots[0])
        XCTAssertTrue(footer(0).hasSuffix("lines 1–21 of 41, more below"), shots[0])
        // G shows the end: the last keys and how to close.
        XCTAssertTrue(shots[1].contains(" q             Quit (everything is saved)"), shots[1])
        XCTAssertTrue(shots[1].contains("Press q or Esc to close."), shots[1])
        XCTAssertTrue(footer(1).hasSuffix("lines 21–41 of 41, more above"), shots[1])
        XCTAssertTrue(footer(2).hasSuffix("lines 20–40 of 41, more above and below"), shots[2])
        XCTAssertEqual(shots[3], shots[0], "g goes back to the top")
        XCTAssertEqual(footer(4), footer(1), "PgDn stops at the last full page")
        XCTAssertTrue(shots[1].contains("v             Mark or unmark, then move down"), shots[1])
        // Details of the task on a short screen scroll the same way.
        XCTAssertTrue(shots[5].contains("Name:          file.bin"), shots[5])
        XCTAssertTrue(footer(5).contains("lines 1–9 of 14, more below"), shots[5])
        XCTAssertTrue(shots[6].contains("Segments:"), shots[6])
        XCTAssertFalse(shots[6].contains("Name:"), shots[6])
        XCTAssertTrue(footer(6).hasSuffix("more above"), shots[6])
    }

    func testMessagesSayWhatHappenedAndGoAtTheNextKey() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let port = RefusingPort.make()
        try Processes.tdl(["add", "-d", downloads.path, "http://127.0.0.1:\(port)/a.bin", "http://127.0.0.1:\(port)/b.bin"], home: home.path)
        let script = ["s", ":save", "s", "s", "s", ":save", "j", ":save", "g", "j", "v", "v", "p", ":save", "d", ":save", "?", ":save"]
        let shots = try screens(script, home: home, downloads: downloads, environment: ["TDL_RETRY_BASE": "30"])
        let message = { (shot: String) in ScreenDump.row(fromBottom: 1, of: shot, rows: 20) }
        XCTAssertEqual(message(shots[0]), "sorted by name", shots[0])
        XCTAssertEqual(message(shots[1]), "manual order", shots[1])
        XCTAssertTrue(ScreenDump.lines(shots[1])[0].contains("sort: manual ·"), shots[1])
        XCTAssertFalse(message(shots[2]).contains("manual order"), "the next key clears it:\n\(shots[2])")
        XCTAssertEqual(message(shots[3]), "paused 2 downloads", shots[3])
        XCTAssertEqual(message(shots[4]), "moved 2 downloads to the trash (t shows it, u restores)", shots[4])
        XCTAssertFalse(shots[5].contains("moved 2"), "no message left on the help screen:\n\(shots[5])")
    }

    func testTrashSaysItListsTheNewestFirst() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let port = RefusingPort.make()
        try Processes.tdl(["add", "-d", downloads.path, "http://127.0.0.1:\(port)/first.bin", "http://127.0.0.1:\(port)/second.bin"], home: home.path)
        let shots = try screens(["P", "d", "d", "t", ":save"], home: home, downloads: downloads)
        let lines = ScreenDump.lines(shots[0])
        XCTAssertTrue(lines[0].hasPrefix("tdl · default · Trash · newest first · 2 in the trash · max 3"), lines[0])
        XCTAssertFalse(lines[0].contains("sort:"), lines[0])
        let rows = ScreenDump.taskRows(shots[0])
        XCTAssertTrue(rows.count == 2 && rows[0].contains("second.bin") && rows[1].contains("first.bin"), shots[0])
    }

    // MARK: - Keys: sort, sections, manual order

    /// Paused rows on a port where nothing listens: they stay as they are while a script runs.
    @discardableResult
    func pausedRows(_ names: [String], home: TemporaryDirectory, downloads: TemporaryDirectory) throws -> [String] {
        let port = RefusingPort.make()
        let urls = names.map { "http://127.0.0.1:\(port)/\($0)" }
        XCTAssertEqual(try Processes.tdl(["add", "-d", downloads.path] + urls, home: home.path).status, 0)
        XCTAssertEqual(try Processes.tdl(["pause"] + urls, home: home.path).status, 0)
        return urls
    }

    /// What the list shows, top to bottom: section titles as "── Title (n)", tasks by name.
    func listed(_ screen: String) -> [String] {
        ScreenDump.lines(screen).dropFirst().compactMap { line -> String? in
            if line.hasPrefix("── ") {
                return String(line.prefix { $0 != ")" }) + ")"
            }
            guard ScreenDump.taskRows(line + "\n").count == 1 else { return nil }
            // After the marks: selection, state, space, type, space.
            return line.dropFirst(5).split(separator: " ").first.map(String.init)
        }
    }

    func backspaces(_ n: Int) -> [String] { Array(repeating: "<Backspace>", count: n) }

    func message(_ screen: String, rows: Int = 20) -> String { ScreenDump.row(fromBottom: 1, of: screen, rows: rows) }
    func header(_ screen: String) -> String { ScreenDump.lines(screen).first ?? "" }

    func testOFlipsTheOrderAndTheArrowInTheHeader() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try pausedRows(["beta.bin", "alpha.bin", "gamma.bin"], home: home, downloads: downloads)
        let shots = try screens([":save", "o", ":save", "s", ":save", "o", ":save"], home: home, downloads: downloads)
        XCTAssertTrue(header(shots[0]).contains("sort: add time ↑ ·"), shots[0])
        XCTAssertEqual(listed(shots[0]), ["beta.bin", "alpha.bin", "gamma.bin"], shots[0])
        XCTAssertTrue(header(shots[1]).contains("sort: add time ↓ ·"), shots[1])
        XCTAssertEqual(listed(shots[1]), ["gamma.bin", "alpha.bin", "beta.bin"], shots[1])
        // The next sort keeps the direction; o flips it back.
        XCTAssertTrue(header(shots[2]).contains("sort: name ↓ ·"), shots[2])
        XCTAssertEqual(listed(shots[2]), ["gamma.bin", "beta.bin", "alpha.bin"], shots[2])
        XCTAssertTrue(header(shots[3]).contains("sort: name ↑ ·"), shots[3])
        XCTAssertEqual(listed(shots[3]), ["alpha.bin", "beta.bin", "gamma.bin"], shots[3])
    }

    func testShiftSShowsAndHidesTheSectionsOfTheSort() throws {
        let server = try FaultServer()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try Processes.tdl(["add", "-d", downloads.path, server.url("/file/big.bin?size=2000000&seed=1"),
                           server.url("/file/small.bin?size=1000&seed=2")], home: home.path)
        // add time → name → size: sections on, off, then a sort whose sections are fixed.
        let shots = try screens([":wait-idle 30", "s", "s", ":save", "S", ":save", "o", ":save", "S", ":save", "s", "S", ":save"],
                                home: home, downloads: downloads)
        XCTAssertTrue(header(shots[0]).contains("sort: size ↑"), shots[0])
        XCTAssertEqual(listed(shots[0]), ["small.bin", "big.bin"], shots[0])
        XCTAssertEqual(listed(shots[1]), ["── 0 – 1 MB (1)", "small.bin", "── 1 MB – 10 MB (1)", "big.bin"], shots[1])
        XCTAssertEqual(message(shots[1]), "sections on", shots[1])
        XCTAssertEqual(listed(shots[2]), ["── 1 MB – 10 MB (1)", "big.bin", "── 0 – 1 MB (1)", "small.bin"], "o flips the sections too:\n\(shots[2])")
        XCTAssertEqual(listed(shots[3]), ["big.bin", "small.bin"], shots[3])
        XCTAssertEqual(message(shots[3]), "sections off", shots[3])
        XCTAssertTrue(header(shots[4]).contains("sort: type"), shots[4])
        XCTAssertEqual(message(shots[4]), "this sort has fixed sections", shots[4])
        XCTAssertTrue(listed(shots[4]).contains { $0.hasPrefix("── ") }, shots[4])
    }

    /// Manual order: J and K move the selected task (across sections at the edge), n adds a
    /// titled section above it, e renames the task or, on a title, the section; o has no
    /// order to flip and says so.
    func testManualOrderMovesTasksAddsAndRenamesSections() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try pausedRows(["alpha.bin", "beta.bin", "gamma.bin"], home: home, downloads: downloads)
        let script = [
            "J", ":save",                                      // 0: not in this sort
            "s", "s", "s", "s", ":save",                       // 1: manual
            "J", ":save",                                      // 2: alpha below beta
            "K", "K", ":save",                                 // 3: back on top, and no further
            "n", ":type Later", ":save", "<Enter>", ":save",   // 4: the prompt, 5: the section
            "K", ":save",                                      // 6: alpha into the section above
            "e", ":save",                                      // 7: the name to edit
        ] + backspaces(9) + [
            ":type first.bin", "<Enter>", ":save",             // 8: renamed
            "g", "e", ":save",                                 // 9: the title to edit
        ] + backspaces(5) + [
            ":type Tonight", "<Enter>", ":save",               // 10: section renamed
            "o", ":save",                                      // 11: no order to flip
        ]
        let shots = try screens(script, home: home, downloads: downloads)
        XCTAssertEqual(message(shots[0]), "tasks can be moved in manual sort (press s)", shots[0])
        XCTAssertEqual(listed(shots[0]), ["alpha.bin", "beta.bin", "gamma.bin"], shots[0])
        XCTAssertEqual(message(shots[1]), "manual order", shots[1])
        XCTAssertTrue(header(shots[1]).contains("sort: manual ·"), shots[1])
        XCTAssertEqual(listed(shots[1]), ["── Downloads (3)", "alpha.bin", "beta.bin", "gamma.bin"], shots[1])
        XCTAssertEqual(listed(shots[2]), ["── Downloads (3)", "beta.bin", "alpha.bin", "gamma.bin"], shots[2])
        XCTAssertEqual(listed(shots[3]), ["── Downloads (3)", "alpha.bin", "beta.bin", "gamma.bin"], shots[3])
        XCTAssertEqual(ScreenDump.row(fromBottom: 1, of: shots[4], rows: 20), "New section title: Later", shots[4])
        XCTAssertEqual(ScreenDump.row(fromBottom: 2, of: shots[4], rows: 20), "Enter confirm · Esc cancel", shots[4])
        XCTAssertEqual(listed(shots[5]), ["── Later (0)", "── Downloads (3)", "alpha.bin", "beta.bin", "gamma.bin"], shots[5])
        XCTAssertEqual(listed(shots[6]), ["── Later (1)", "alpha.bin", "── Downloads (2)", "beta.bin", "gamma.bin"], shots[6])
        XCTAssertEqual(message(shots[7]), "Name: alpha.bin", shots[7])
        XCTAssertEqual(listed(shots[8]), ["── Later (1)", "first.bin", "── Downloads (2)", "beta.bin", "gamma.bin"], shots[8])
        XCTAssertEqual(message(shots[9]), "Section title: Later", shots[9])
        XCTAssertEqual(listed(shots[10]), ["── Tonight (1)", "first.bin", "── Downloads (2)", "beta.bin", "gamma.bin"], shots[10])
        XCTAssertEqual(message(shots[11]), "manual order has no direction: J and K move a task", shots[11])
        XCTAssertEqual(header(shots[11]), header(shots[10]), shots[11])
        XCTAssertEqual(listed(shots[11]), listed(shots[10]), shots[11])
        // All of it is saved with the session.
        let again = try screens([":save"], home: home, downloads: downloads)
        XCTAssertEqual(listed(again[0]), listed(shots[10]), again[0])
    }

    // MARK: - Keys: limits

    func testPlusAndMinusChangeTheMaxInTheHeader() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let shots = try screens(["+", ":save", "-", "-", "-", "-", ":save"], home: home, downloads: downloads)
        XCTAssertTrue(header(shots[0]).hasSuffix(" · max 4"), shots[0])
        XCTAssertEqual(message(shots[0]), "at most 4 at once", shots[0])
        XCTAssertTrue(header(shots[1]).hasSuffix(" · max 1"), "never below one:\n\(shots[1])")
        XCTAssertEqual(message(shots[1]), "at most 1 at once", shots[1])
        let again = try screens([":save"], home: home, downloads: downloads)
        XCTAssertTrue(header(again[0]).hasSuffix(" · max 1"), "kept with the session:\n\(again[0])")
    }

    func testLSetsAndClearsTheRateLimit() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let shots = try screens(["L", ":type 500K", ":save", "<Enter>", ":save", "L", ":type fast", "<Enter>", ":save",
                                 "L", ":type 0", "<Enter>", ":save"], home: home, downloads: downloads)
        XCTAssertEqual(message(shots[0]), "Rate limit (e.g. 500K, 2M; 0 = none): 500K", shots[0])
        XCTAssertEqual(message(shots[1]), "rate limit 500K (500.0 KB/s)", "in the words typed, and the list's units:\n\(shots[1])")
        XCTAssertTrue(header(shots[1]).hasSuffix("max 3 · ≤ 500.0 KB/s"), "the cap stays in the header:\n\(shots[1])")
        XCTAssertEqual(message(shots[2]), "\"fast\" is not a rate: give a number with K, M or G, e.g. 500K, 2M or 1048576", shots[2])
        XCTAssertEqual(message(shots[3]), "no rate limit", shots[3])
        XCTAssertTrue(header(shots[3]).hasSuffix("max 3"), shots[3])
    }

    // MARK: - Keys: stop, resume, restart

    func testXStopsPResumesAndRAsksBeforeRestartingAFinishedFile() throws {
        let server = try FaultServer()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try Processes.tdl(["add", "-d", downloads.path, server.url("/file/done.bin?size=1000&seed=3")], home: home.path)
        try pausedRows(["later.bin"], home: home, downloads: downloads)
        let script = [":wait-idle 30", "G", "x", ":save", "p", ":save",          // 0 stopped, 1 resumed
                      "g", "r", ":save", "n", ":save",                            // 2 the question, 3 kept
                      "r", "y", ":save", ":sleep 300", "G", "x", "g", ":wait-idle 30", ":save"] // 4 restarted, 5 done again
        let shots = try screens(script, home: home, downloads: downloads, environment: ["TDL_RETRY_BASE": "30"])
        func row(_ k: Int, _ name: String) -> String { ScreenDump.taskRows(shots[k]).first { $0.contains(name) } ?? "" }
        XCTAssertEqual(message(shots[0]), "stopped 1 download", shots[0])
        XCTAssertTrue(row(0, "later.bin").hasSuffix("Stopped"), shots[0])
        XCTAssertEqual(message(shots[1]), "resumed 1 download", shots[1])
        XCTAssertFalse(row(1, "later.bin").contains("Stopped"), shots[1])
        XCTAssertEqual(message(shots[2]), "Restart deletes the downloaded file. Restart 1 download? (y/n)", shots[2])
        XCTAssertEqual(message(shots[3]), "nothing restarted", shots[3])
        XCTAssertTrue(row(3, "done.bin").hasSuffix("Done"), shots[3])
        XCTAssertEqual(message(shots[4]), "restarted 1 download", shots[4])
        XCTAssertTrue(row(5, "done.bin").hasSuffix("Done"), shots[5])
        XCTAssertEqual(try server.requests(to: "/file/done.bin").total, 2, "downloaded again from zero")
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("done.bin")), try server.sha256(name: "done.bin", size: 1000, seed: 3))
    }

    func testShiftRResumesWhatShiftPPaused() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try pausedRows(["one.bin", "two.bin"], home: home, downloads: downloads)
        let shots = try screens([":save", "R", ":save", "P", ":save"], home: home, downloads: downloads,
                                environment: ["TDL_RETRY_BASE": "30"])
        XCTAssertTrue(ScreenDump.taskRows(shots[0]).allSatisfy { $0.hasSuffix("Paused") }, shots[0])
        XCTAssertEqual(message(shots[1]), "resumed all", shots[1])
        XCTAssertEqual(ScreenDump.taskRows(shots[1]).filter { $0.contains("Paused") }, [], shots[1])
        XCTAssertTrue(header(shots[1]).contains("2 downloading"), shots[1])
        XCTAssertEqual(message(shots[2]), "paused all", shots[2])
        XCTAssertTrue(header(shots[2]).contains("2 paused"), shots[2])
    }

    /// r on a running download says what to do instead of "restarted 0 downloads".
    func testRestartOfARunningDownloadSaysToStopItFirst() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try pausedRows(["busy.bin"], home: home, downloads: downloads)
        let shots = try screens(["R", "r", ":save"], home: home, downloads: downloads, environment: ["TDL_RETRY_BASE": "30"])
        XCTAssertEqual(message(shots[0]), "stop it first (x): a running download does not restart", shots[0])
    }

    // MARK: - Keys: the trash

    /// u puts a row back in the list; d (or Del) in the trash asks, and only a yes deletes the
    /// file with the row.
    func testTrashRestoresAndDeletesForGoodOnlyWhenConfirmed() throws {
        let server = try FaultServer()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try Processes.tdl(["add", "-d", downloads.path, server.url("/file/old.bin?size=1000&seed=1"),
                           server.url("/file/back.bin?size=2000&seed=2")], home: home.path)
        let script = [":wait-idle 30", "d", "d", "t", ":save",        // 0: both in the trash, newest first
                      "u", ":save",                                    // 1: back.bin back in the list
                      "d", ":save", "n", ":save",                      // 2: the question, 3: kept
                      "<Del>", "y", ":save", "t", ":save"]             // 4: deleted for good, 5: the list
        let old = downloads.file("old.bin"), back = downloads.file("back.bin")
        let shots = try screens(script, home: home, downloads: downloads)
        XCTAssertEqual(listed(shots[0]), ["back.bin", "old.bin"], shots[0])
        XCTAssertEqual(message(shots[1]), "restored 1 download", shots[1])
        XCTAssertEqual(listed(shots[1]), ["old.bin"], shots[1])
        XCTAssertEqual(message(shots[2]), "Delete 1 download for good? Finished files stay. (y/n)", shots[2])
        XCTAssertEqual(message(shots[3]), "nothing deleted", shots[3])
        XCTAssertEqual(listed(shots[3]), ["old.bin"], shots[3])
        XCTAssertEqual(message(shots[4]), "deleted 1 download for good", shots[4])
        XCTAssertTrue(shots[4].contains("The trash is empty. Press t to go back."), shots[4])
        XCTAssertEqual(listed(shots[5]), ["back.bin"], shots[5])
        XCTAssertTrue(ScreenDump.taskRows(shots[5])[0].hasSuffix("Done"), shots[5])
        XCTAssertTrue(FileManager.default.fileExists(atPath: old), "a finished file stays on every purge path")
        XCTAssertTrue(FileManager.default.fileExists(atPath: back), "the restored row keeps its file")
    }

    func testCtrlLRedrawsTheSameScreen() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try pausedRows(["one.bin", "two.bin"], home: home, downloads: downloads)
        let shots = try screens(["j", ":save", "<^L>", ":save"], home: home, downloads: downloads)
        XCTAssertEqual(listed(shots[0]), ["one.bin", "two.bin"], shots[0])
        XCTAssertEqual(shots[1], shots[0])
    }

    // MARK: - Connections refused

    /// Nothing listens: the row says it retries (not a download at 0 B/s), then why it failed.
    func testARefusedConnectionRetriesThenFailsWithTheReason() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try Processes.tdl(["add", "-d", downloads.path, "http://127.0.0.1:\(RefusingPort.make())/gone.bin"], home: home.path)
        let retrying = try screens([":sleep 700", ":save"], home: home, downloads: downloads, environment: ["TDL_RETRY_BASE": "30"])
        let row = ScreenDump.taskRows(retrying[0]).first ?? ""
        XCTAssertTrue(row.hasSuffix("Retrying (1 of 3): couldn't connect to server"), retrying[0])
        XCTAssertFalse(row.contains("B/s"), retrying[0])

        let failed = try screens([":wait-idle 20", ":save"], home: home, downloads: downloads, environment: ["TDL_RETRY_BASE": "0"])
        let lines = ScreenDump.lines(failed[0])
        XCTAssertTrue(ScreenDump.taskRows(failed[0]).first?.hasSuffix("Failed: couldn't connect to server") == true, failed[0])
        XCTAssertTrue(lines[0].contains("1 failed"), failed[0])
        XCTAssertEqual(ScreenDump.row(fromBottom: 1, of: failed[0], rows: 20), "gone.bin: couldn't connect to server", failed[0])
    }

    // MARK: - Names from outside

    /// Names carrying escape codes (in the URL and in Content-Disposition), C1 controls, a bidi
    /// override and wide CJK characters: cut by display width with an ellipsis, columns in
    /// place, and nothing a terminal would act on.
    func testHostileAndWideNamesAreCleanedAndCutByWidth() throws {
        let server = try FaultServer()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let wide = String(repeating: "下载", count: 30) + ".zip"
        let urls = [
            server.url("/file/%1B%5B2J%1B%5B31mescape.bin?size=1000"),
            server.url("/file/cd.bin?size=2000&cd=attachment;%20filename=%22%1B%5D0;title%07%C2%9Bcd.bin%22"),
            server.url("/file/%E2%80%AEgnp.exe?size=3000"),
            server.url("/file/" + wide.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)! + "?size=4000"),
            server.url("/file/plain.bin?size=5000"),
        ]
        try Processes.tdl(["add", "-d", downloads.path] + urls, home: home.path)
        let shots = try screens([":wait-idle 30", ":save", ":resize 80x20", ":save", "/", ":type 下载", "<Enter>", "<Enter>", ":save"],
                                home: home, downloads: downloads, size: "100x20")
        for (shot, columns) in zip(shots, [100, 80, 80]) {
            XCTAssertEqual(ScreenDump.controls(in: shot), [], shot)
            for line in ScreenDump.lines(shot) { XCTAssertLessThanOrEqual(ScreenDump.width(line), columns, line) }
        }
        for shot in shots.prefix(2) {
            let rows = ScreenDump.taskRows(shot)
            XCTAssertEqual(rows.count, 5, shot)
            XCTAssertTrue(rows.allSatisfy { $0.hasSuffix("Done") }, shot)
            XCTAssertEqual(Set(rows.compactMap(ScreenDump.sizeEnd)).count, 1, "sizes line up beside wide names:\n\(shot)")
            let wideRow = rows.first { $0.contains("下载") } ?? ""
            XCTAssertTrue(wideRow.contains("载…") || wideRow.contains("下…"), "cut with an ellipsis:\n\(shot)")
            XCTAssertTrue(rows.contains { $0.contains("[2J[31mescape.bin") }, shot)
            XCTAssertTrue(rows.contains { $0.contains("]0;titlecd.bin") }, shot)
        }
        XCTAssertTrue(shots[2].contains("Name:          下载下载"), shots[2])
    }

    // MARK: - Filter and marks

    /// A filter that matches nothing says so (not "No downloads yet"); marked rows show a mark
    /// and the key bar counts them, hidden ones included; Esc clears the filter, then the marks.
    func testAnEmptyFilterSaysSoAndMarksAreCounted() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try pausedRows(["one.bin", "two.bin", "three.bin"], home: home, downloads: downloads)
        let shots = try screens(["v", "v", ":save", "/", ":type zz", "<Enter>", ":save", "<Esc>", ":save", "<Esc>", ":save"],
                                home: home, downloads: downloads)
        let marked = ScreenDump.taskRows(shots[0]).filter { $0.hasPrefix("*") }
        XCTAssertEqual(marked.count, 2, shots[0])
        XCTAssertTrue(ScreenDump.row(fromBottom: 2, of: shots[0], rows: 20).contains("2 marked (Esc unmarks)"), shots[0])
        XCTAssertTrue(shots[1].contains("nothing matches \"zz\" (Esc clears)"), shots[1])
        XCTAssertFalse(shots[1].contains("No downloads yet"), shots[1])
        XCTAssertTrue(ScreenDump.row(fromBottom: 2, of: shots[1], rows: 20).contains("2 marked"), "hidden marks still count:\n\(shots[1])")
        XCTAssertEqual(ScreenDump.taskRows(shots[2]).count, 3, shots[2])
        XCTAssertEqual(message(shots[2]), "filter cleared", shots[2])
        XCTAssertTrue(ScreenDump.row(fromBottom: 2, of: shots[2], rows: 20).contains("2 marked"), shots[2])
        XCTAssertFalse(ScreenDump.row(fromBottom: 2, of: shots[3], rows: 20).contains("marked"), shots[3])
        XCTAssertEqual(ScreenDump.taskRows(shots[3]).filter { $0.hasPrefix("*") }, [], shots[3])
    }

    // MARK: - Any terminal

    /// A locale without UTF-8 gets ASCII marks, arrows and rules, and nothing else outside ASCII.
    func testACLocaleDrawsInASCII() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        try pausedRows(["one.bin", "two.bin"], home: home, downloads: downloads)
        let shots = try screens([":save", "s", "s", "s", "s", ":save", "?", ":save"], home: home, downloads: downloads,
                                environment: ["LC_ALL": "C"])
        let posix = try screens([":save"], home: home, downloads: downloads, environment: ["LC_ALL": "POSIX"])
        for shot in shots + posix {
            XCTAssertEqual(shot.unicodeScalars.filter { !$0.isASCII }.map { String($0) }, [], shot)
        }
        XCTAssertTrue(header(shots[0]).hasPrefix("tdl | default | Downloads | sort: add time ^ | 2 paused | max 3"), shots[0])
        XCTAssertEqual(ScreenDump.lines(shots[0]).filter { $0.hasPrefix(" | ") && $0.contains(".bin") }.count, 2, "paused rows: |\n\(shots[0])")
        XCTAssertTrue(shots[1].contains("-- Downloads (2) ----"), shots[1])
        XCTAssertTrue(shots[2].contains("lines 1-17 of "), shots[2])
    }

    /// TERM=dumb, empty or unknown: words pointing at the commands that work there, exit 2.
    func testATerminalThatCannotShowTheListSaysWhatToUseInstead() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        for term in ["dumb", "", "no-such-terminal"] {
            let result = try Processes.tdl(["-d", downloads.path], home: home.path, environment: ["TERM": term], timeout: 10)
            XCTAssertEqual(result.status, 2, "TERM=\(term): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("`tdl list`") && result.stderr.contains("`tdl get URL`"), result.stderr)
            XCTAssertEqual(result.stdout, "", "no escape codes for a terminal that cannot take them")
        }
    }

    // MARK: - Messages

    /// m lists the session's messages with their times; a rejected URL too long for the
    /// message line is there whole.
    func testTheMessageLogShowsRejectedURLsWhole() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let long = "ftp:/" + String(repeating: "a", count: 50) + "-end-of-url"
        let shots = try screens(["a", ":type \(long)", "<Enter>", ":save", "m", ":save", "q", ":save"], home: home, downloads: downloads)
        XCTAssertTrue(message(shots[0]).hasSuffix("no host (m shows them whole)"), shots[0])
        XCTAssertFalse(shots[0].contains("-end-of-url"), shots[0])
        XCTAssertTrue(header(shots[1]).contains(" · Messages · "), shots[1])
        XCTAssertNotNil(shots[1].firstMatch(of: #/\d\d:\d\d:\d\d ! "ftp:/a+…": no host/#), shots[1])
        XCTAssertTrue(shots[1].contains("rejected \(long): no host"), shots[1])
        XCTAssertTrue(shots[2].contains("No downloads yet"), shots[2])
    }
}
