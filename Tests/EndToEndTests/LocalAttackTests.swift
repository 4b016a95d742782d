import Foundation
import TDLTestSupport
import XCTest

/// What a user's own machine can throw at tdl (docs/reliability.md, "Local attacks"): numbers
/// that overflow, closed or full output streams, against the real binary and the fault server.
final class LocalAttackTests: FaultServerTestCase {
    let home = TemporaryDirectory(), downloads = TemporaryDirectory(), work = TemporaryDirectory()

    func file(_ name: String, size: Int = 20_000, seed: Int = 1) -> String {
        server.url("/file/\(name)?size=\(size)&seed=\(seed)")
    }

    func tdl(_ arguments: [String]) throws -> Processes.Result {
        try Processes.tdl(arguments, home: home.path, environment: ["TDL_RETRY_BASE": "0.05"])
    }

    /// Runs a shell line as a terminal would: SIGPIPE at its default (python's subprocess
    /// restores it), whatever the test runner ignores.
    func shell(_ line: String) throws -> Processes.Result {
        let script = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1], shell=True).returncode)"
        return try Processes.run(Processes.which("python3") ?? "/usr/bin/python3", ["-c", script, line],
                                 environment: ["TDL_HOME": home.path, "TDL_BIN": Processes.tdlBinary])
    }

    // MARK: - Numbers

    func testNumbersTooLargeOrTooSmallAreBadInputNotATrap() throws {
        for arguments in [["--limit-rate", "99999999999G"], ["--max-download-limit", "99999999999G"],
                          ["--limit-rate", "0.0001K"], ["-x", "99999999999999999999"], ["-j", "99999999999"]] {
            let result = try tdl(["get", "-q", "-d", downloads.path] + arguments + [file("n.bin")])
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.isEmpty, "\(arguments) says why")
        }
        XCTAssertTrue(try tdl(["get", "--limit-rate", "99999999999G", file("n.bin")]).stderr.contains("too large"))
        XCTAssertTrue(try tdl(["get", "--limit-rate", "0.0001K", file("n.bin")]).stderr.contains("less than one byte"))
        let input = work.file("urls.txt")
        try "\(file("big.bin"))\n  max-download-limit=99999999999G\n\(file("fine.bin", seed: 2))\n".write(toFile: input, atomically: true, encoding: .utf8)
        let added = try tdl(["add", "-d", downloads.path, "-i", input])
        XCTAssertEqual(added.status, 2, added.stderr)
        XCTAssertTrue(added.stderr.contains("line 2: max-download-limit: \"99999999999G\" is too large"), added.stderr)
        XCTAssertTrue(try tdl(["list"]).stdout.contains("fine.bin"), "the rest of the file is still added")
    }

    // MARK: - Output that cannot be written

    /// `2>/dev/full`: every write to stderr fails with ENOSPC; the download still finishes.
    func testStandardErrorOnAFullDiskEndsOnlyTheOutput() throws {
        let result = try shell("\"$TDL_BIN\" get -d '\(downloads.path)' '\(file("full.bin", size: 300_000, seed: 3))' 2>/dev/full")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("full.bin")), try server.sha256(name: "full.bin", size: 300_000, seed: 3))
    }

    /// `tdl add -i BIG | head -1`: head leaves after one line; the add finishes every part.
    func testAClosedPipeNeverCutsAnAdd() throws {
        let urls = (0..<600).map { "http://127.0.0.1:1/pipe/\($0).bin" }
        let input = work.file("many.txt")
        try urls.joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let result = try shell("TDL_ADD_PART=50 \"$TDL_BIN\" add -d '\(downloads.path)' -i '\(input)' | head -1")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 1)
        let listed = try tdl(["list"]).stdout
        XCTAssertEqual(urls.filter { !listed.contains($0 + "\n") && !listed.hasSuffix($0) }, [], "every URL is in the list")
    }

    // MARK: - Header injection

    /// CR/LF in an agent, a referer, a header, a cookie or a pasted curl command would reach
    /// the server as a header of its own: every source refuses it, and the server sees none.
    func testCRLFInAnyHeaderSourceIsRefusedAndNeverSent() throws {
        try server.reset()
        let url = file("inj.bin")
        let injected = "x\r\nX-Injected: 1"
        let cookies = work.file("cookies.txt")
        try "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc\rX-Injected: 1\n".write(toFile: cookies, atomically: true, encoding: .utf8)
        for arguments in [["--user-agent", injected], ["--referer", "http://a.example/\r\nX-Injected: 1"], ["-H", "X-Fine: \(injected)"],
                          ["--load-cookies", cookies],
                          ["--curl", "curl '\(url)' -A $'Mozilla\\r\\nX-Injected: 1'"],
                          ["--curl", "curl '\(url)' -b $'a=b\\r\\nX-Injected: 1'"]] {
            let result = try tdl(["get", "-q", "-d", downloads.path] + arguments + (arguments[0] == "--curl" ? [] : [url]))
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("CR, LF and NUL are refused"), "\(arguments): \(result.stderr)")
        }
        let input = work.file("inj.txt")
        try "\(url)\n  user-agent=a\rX-Injected: 1\n  referer=b\rX-Injected: 1\n  load-cookies=\(cookies)\n".write(toFile: input, atomically: true, encoding: .utf8)
        let fromFile = try tdl(["get", "-q", "-d", downloads.path, "-i", input])
        XCTAssertEqual(fromFile.status, 2, fromFile.stderr)
        XCTAssertTrue(fromFile.stderr.contains("line 2: user-agent: CR, LF and NUL are refused"), fromFile.stderr)
        XCTAssertTrue(fromFile.stderr.contains("line 3: referer: CR, LF and NUL are refused"), fromFile.stderr)
        XCTAssertTrue(fromFile.stderr.contains("line 4: load-cookies"), fromFile.stderr)
        XCTAssertEqual(try server.requests(to: "/file/inj.bin", carrying: "x-injected"), 0, "no injected header reached the server")
        XCTAssertEqual(try server.requests(to: "/file/inj.bin").total, 1, "the input file's URL itself is still fetched, without them")
    }

    // MARK: - tdl's own files

    /// A server naming its file `session.sqlite-journal` (or `work.sock`…) for a download into
    /// the home would plant it among the session's files: no download goes into the home.
    func testNoDownloadGoesIntoTheHome() throws {
        _ = try tdl(["add", "-d", downloads.path, "http://127.0.0.1:1/first"])
        let hostile = server.url("/file/j.bin?size=1000&seed=4&cd=attachment;%20filename=session.sqlite-journal")
        let direct = try tdl(["get", "-q", "-d", home.path, hostile])
        XCTAssertEqual(direct.status, 4, direct.stderr)
        XCTAssertTrue(direct.stderr.contains("is tdl's own"), direct.stderr)
        let link = work.file("link-to-home")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: home.path)
        XCTAssertEqual(try tdl(["get", "-q", "-d", link + "/sub", hostile]).status, 4, "a link to the home, or a folder in it, is the home")
        let input = work.file("dir.txt")
        try "\(hostile)\n  dir=\(home.path)\n".write(toFile: input, atomically: true, encoding: .utf8)
        let added = try tdl(["add", "-i", input])
        XCTAssertNotEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stderr.contains("is tdl's own"), added.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: home.file("session.sqlite-journal")))
        XCTAssertEqual(try server.requests(to: "/file/j.bin").total, 0)
    }

    /// A rollback journal made from another session, planted beside this one: SQLite would
    /// play it back on open (the header's WAL mode is read only afterwards) and the session
    /// would become the planter's, with its /bin/sh hook. tdl moves it aside unread.
    func testAPlantedJournalNeverReplacesTheSession() throws {
        let theirs = TemporaryDirectory()
        XCTAssertEqual(try tdl(["add", "-d", downloads.path, "http://127.0.0.1:1/mine.bin"]).status, 0)
        XCTAssertEqual(try Processes.tdl(["add", "-d", downloads.path, "http://127.0.0.1:1/theirs.bin"], home: theirs.path).status, 0)
        let journal = home.file("session.sqlite-journal")
        let made = try Processes.run(Processes.which("python3") ?? "/usr/bin/python3",
                                     [Processes.packageRoot + "/Tests/Support/hot_journal.py", theirs.file("session.sqlite"), journal])
        XCTAssertEqual(made.status, 0, made.stderr)
        let listed = try tdl(["list"])
        XCTAssertEqual(listed.status, 5, "a command that only reads refuses, and changes nothing: \(listed.stderr)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: journal))
        let added = try tdl(["add", "-d", downloads.path, "http://127.0.0.1:1/more.bin"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stderr.contains("rollback journal tdl did not write"), added.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: journal))
        let list = try tdl(["list"]).stdout
        XCTAssertTrue(list.contains("mine.bin") && list.contains("more.bin"), list)
        XCTAssertFalse(list.contains("theirs.bin"), "the session is still the user's:\n\(list)")
    }

    /// The session holds passwords, headers and cookies: 0600 in a 0755 home under umask 022.
    func testTheSessionIsTheOwnersAlone() throws {
        chmod(home.path, 0o755)
        let result = try shell("umask 022; \"$TDL_BIN\" add -d '\(downloads.path)' http://127.0.0.1:1/a.bin")
        XCTAssertEqual(result.status, 0, result.stderr)
        for name in ["session.sqlite", "session.sqlite-wal", "session.sqlite-shm"] {
            var info = stat()
            guard stat(home.file(name), &info) == 0 else { XCTAssertNotEqual(name, "session.sqlite"); continue }
            XCTAssertEqual(info.st_mode & 0o777, 0o600, name)
        }
        // A session made by an older tdl (0644) is made the owner's on its next open.
        chmod(home.file("session.sqlite"), 0o644)
        XCTAssertEqual(try tdl(["add", "http://127.0.0.1:1/b.bin"]).status, 0)
        var info = stat()
        XCTAssertEqual(stat(home.file("session.sqlite"), &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
    }

    // MARK: - Part files

    /// A link planted at `NAME.part` in a shared folder, over the part file of a download cut
    /// off by kill -9: the next run neither writes into its target nor calls the link done.
    func testALinkPlantedAtThePartFileIsNeverFollowed() throws {
        let url = file("shared.bin", size: 300_000, seed: 6) + "&rate=200000"
        Processes.runAndKill(Processes.tdlBinary, ["get", "-q", "-x", "1", "-d", downloads.path, url],
                             environment: ["TDL_HOME": home.path], after: 0.8)
        let part = downloads.file("shared.bin.part"), victim = work.file("victim")
        XCTAssertTrue(FileManager.default.fileExists(atPath: part), "the kill left a part file")
        try "precious".write(toFile: victim, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: part)
        try FileManager.default.createSymbolicLink(atPath: part, withDestinationPath: victim)
        let again = try tdl(["get", "-x", "1", "-d", downloads.path, url])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious", "the link's target is untouched")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: part), victim, "the link is left as it was")
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("shared.bin")))
        let done = downloads.file("shared (1).bin")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: done)[.type] as? FileAttributeType, .typeRegular)
        XCTAssertEqual(try Processes.sha256(ofFile: done), try server.sha256(name: "shared.bin", size: 300_000, seed: 6))
    }

    // MARK: - Text on the terminal

    /// A URL with a right-to-left override reads "evilexe.pdf" on a terminal; `tdl list`,
    /// `add`'s reply and stderr show it as the screen does, with "?" for each override.
    func testBidiOverridesNeverReachTheTerminal() throws {
        let url = "http://127.0.0.1:1/evil\u{202E}fdp.exe\u{2066}x\u{2069}"
        let added = try tdl(["add", "-d", downloads.path, url])
        XCTAssertEqual(added.status, 0, added.stderr)
        let got = try tdl(["get", "-d", downloads.path, url])
        let list = try tdl(["list"])
        for text in [added.stdout, added.stderr, got.stdout, got.stderr, list.stdout] {
            XCTAssertFalse(text.unicodeScalars.contains { [0x202E, 0x2066, 0x2069].contains($0.value) }, text)
        }
        XCTAssertTrue(list.stdout.contains("http://127.0.0.1:1/evil?fdp.exe?x?"), list.stdout)
    }
}
