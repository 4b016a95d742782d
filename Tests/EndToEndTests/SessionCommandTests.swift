import Foundation
import TDLTestSupport
import XCTest

/// Commands that act on a session: through the running tdl's socket, or on the saved session.
final class SessionCommandTests: FaultServerTestCase {
    /// A slow file: about `seconds` to download over the two connections tdl opens for it.
    func slowURL(_ name: String, seconds: Double = 4, size: Int = 2_000_000) -> String {
        server.url("/file/\(name)?size=\(size)&seed=3&rate=\(Int(Double(size) / seconds / 2))")
    }

    /// `tdl get` in the background, as another terminal would run it.
    func startGet(_ arguments: [String], home: TemporaryDirectory, connections: Int = 2) throws -> (Process, Pipe) {
        let (process, stderr) = try Processes.start(Processes.tdlBinary, ["get", "-x", "\(connections)"] + arguments,
                                                    environment: ["TDL_HOME": home.path])
        let listening = Processes.waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: home.file("default.sock")) }
        XCTAssertTrue(listening, "the running tdl never opened its control socket")
        return (process, stderr)
    }

    func jsonList(_ home: TemporaryDirectory) throws -> [[String: Any]] {
        let list = try Processes.tdl(["list", "--json"], home: home.path)
        XCTAssertEqual(list.status, 0, list.stderr)
        return try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
    }

    /// A session with a backlog of slow downloads: `tdl get URL` runs that URL at once, and the
    /// backlog keeps waiting for a tdl that runs everything.
    func testGetRunsWhatItWasGivenAheadOfTheSessionsBacklog() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let backlog = (1...3).map { slowURL("backlog\($0).bin", seconds: 30) }
        XCTAssertEqual(try Processes.tdl(["add", "-d", downloads.path] + backlog, home: home.path).status, 0)
        let wanted = server.url("/file/wanted.bin?size=100000")
        let started = Date()
        let get = try Processes.tdl(["get", "-q", "-j", "1", "-d", downloads.path, wanted], home: home.path, timeout: 25)
        XCTAssertEqual(get.status, 0, get.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "it did not wait behind the backlog")
        let states = try jsonList(home).filter { $0["url"] as? String != wanted }.map { "\($0["state"]!) \($0["received"]!)" }
        XCTAssertEqual(states, ["waiting 0", "waiting 0", "waiting 0"], "the backlog was not started")
    }

    /// A file longer than one part of `tdl add -i` goes to the running tdl (which holds the
    /// session's lock: the saved session could not take it) and is answered as one add.
    func testAddOfAFileInPartsReachesTheRunningGet() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let (get, _) = try startGet(["-d", downloads.path, slowURL("parts-slow.bin", seconds: 6)], home: home)
        defer { if get.isRunning { get.terminate() } }
        let urls = (1...7).map { "http://127.0.0.1:9/parts/\($0).bin" }
        let add = try Processes.tdl(["add", "-i", "-"], home: home.path, environment: ["TDL_ADD_PART": "3"],
                                    stdin: (urls + [urls[1]]).joined(separator: "\n"))
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(add.stdout, urls.map { "added \($0)\n" }.joined() + "repeated in this batch: \(urls[1])\n")
        XCTAssertEqual(try jsonList(home).compactMap { $0["url"] as? String }.filter(urls.contains), urls)
    }

    func testAddPauseAndListReachTheRunningGet() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let slow = slowURL("slow.bin")
        let small = server.url("/file/small.bin?size=300000&seed=4")
        let (get, stderr) = try startGet(["-d", downloads.path, slow], home: home)

        let add = try Processes.tdl(["add", small], home: home.path)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(add.stdout, "added \(small)\n")
        // The running tdl downloads it: the file appears while the slow one still runs.
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: downloads.file("small.bin")) })

        let live = try jsonList(home).first { $0["url"] as? String == slow }
        XCTAssertEqual(live?["state"] as? String, "downloading")
        XCTAssertGreaterThan(live?["speed"] as? Int ?? 0, 0, "speed comes live from the running tdl")
        XCTAssertEqual(Set(live?.keys.map { $0 } ?? []), ["url", "name", "path", "section", "state", "size", "received", "speed", "error"])

        let pause = try Processes.tdl(["pause", slow, "http://127.0.0.1:9/never-added"], home: home.path)
        XCTAssertEqual(pause.status, 2, "one URL was not in the session")
        XCTAssertEqual(pause.stdout, "paused \(slow)\n")
        XCTAssertTrue(pause.stderr.contains("not in the session: http://127.0.0.1:9/never-added"), pause.stderr)
        get.waitUntilExit()
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(get.terminationStatus, 1, "its file did not finish: it was paused")
        XCTAssertTrue(message.contains("\(slow): paused"), message)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("small.bin")), try server.sha256(name: "small.bin", size: 300_000, seed: 4))
        XCTAssertFalse(FileManager.default.fileExists(atPath: home.file("default.sock")), "the socket goes with its tdl")

        // Nobody runs the session now: resume changes the saved session, and the next get finishes it.
        XCTAssertEqual(try Processes.tdl(["resume", slow], home: home.path).stdout, "resumed \(slow)\n")
        try server.unthrottle()
        defer { try? server.throttle() }
        let finish = try Processes.tdl(["get", "--all", "-q"], home: home.path)
        XCTAssertEqual(finish.status, 0, finish.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("slow.bin")), try server.sha256(name: "slow.bin", size: 2_000_000, seed: 3))
    }

    /// No descriptor left to take a newcomer (EMFILE, injected): its connection stays waiting
    /// and the listening socket readable, and the loop must not turn without rest until a
    /// descriptor frees.
    func testNoDescriptorForANewcomerDoesNotSpinTheLoop() throws {
        guard let strace = Processes.which("strace") else { throw XCTSkip("strace is not installed") }
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let (process, _) = try Processes.start(strace, ["-f", "-o", "/dev/null", "--seccomp-bpf", "-e", "trace=accept,accept4",
                                                        "-e", "inject=accept,accept4:error=EMFILE", "--", Processes.tdlBinary,
                                                        "get", "-q", "-x", "1", "-d", downloads.path, slowURL("spin.bin", seconds: 8)],
                                               environment: ["TDL_HOME": home.path])
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: home.file("default.sock")) })
        let tdl = try XCTUnwrap(Int32(try Processes.run("/usr/bin/pgrep", ["-P", "\(process.processIdentifier)"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)), "no tdl under strace")
        let waiting = openIdleConnections(1, to: home.file("default.sock"), within: 1)
        defer { waiting.forEach { close($0) } }
        let before = cpuSeconds(of: tdl)
        sleep(2)
        let used = cpuSeconds(of: tdl) - before
        print("tdl used \(used) s of CPU in 2 s with a newcomer it cannot accept")
        XCTAssertLessThan(used, 0.5, "the loop spins while no descriptor is left")
    }

    /// User and system time of a process so far, from /proc.
    func cpuSeconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // After the name: state is field 3 of the file, utime 14 and stime 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func testIdleClientsOfTheSocketHoldUpNeitherDownloadsNorCommands() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        // One connection, so the part file grows from its start at the server's pace.
        let bytesPerSecond = 600_000
        let url = server.url("/file/steady.bin?size=6000000&seed=7&rate=\(bytesPerSecond)")
        let (get, stderr) = try startGet(["-q", "-d", downloads.path, url], home: home, connections: 1)
        defer { if get.isRunning { get.terminate() } }
        let partFile = downloads.file("steady.bin.part")
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { fileSize(partFile) > 0 })

        let connecting = Date()
        let idle = openIdleConnections(200, to: home.file("default.sock"), within: 3)
        defer { idle.forEach { close($0) } }
        XCTAssertEqual(idle.count, 200, "the running tdl took only \(idle.count) connections in 3 s")
        print("\(idle.count) idle connections taken in \(Date().timeIntervalSince(connecting)) s")

        let sizeBefore = fileSize(partFile)
        sleep(2)
        let grown = fileSize(partFile) - sizeBefore
        XCTAssertGreaterThan(grown, bytesPerSecond, "the download nearly stopped: \(grown) bytes in 2 s")

        let asked = Date()
        let pause = try Processes.tdl(["pause", url], home: home.path, timeout: 5)
        let answeredIn = Date().timeIntervalSince(asked)
        print("tdl pause answered in \(answeredIn) s")
        XCTAssertEqual(pause.stdout, "paused \(url)\n", pause.stderr)
        XCTAssertLessThan(answeredIn, 1)

        get.waitUntilExit()
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(message.contains("\(url): paused"), "paused, not failed: \(message)")
    }

    func testTheSocketBoundsWhatAClientMaySend() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let url = slowURL("bounded.bin", seconds: 20)
        let (get, _) = try startGet(["-q", "-d", downloads.path, url], home: home)
        defer { if get.isRunning { get.terminate() } }
        let socketPath = home.file("default.sock")

        let garbage = exchange(Data("hello\n".utf8), with: socketPath)
        XCTAssertTrue(garbage.contains("unreadable request"), garbage)
        // 64 MiB and more without a newline: answered once the bound is passed, not read forever.
        let huge = exchange(Data(repeating: UInt8(ascii: "x"), count: 65 << 20), with: socketPath)
        XCTAssertTrue(huge.contains("the request is larger than 64 MiB"), huge)

        // Beyond 256 connections at once a command is refused at once, and served again after.
        var idle = openIdleConnections(256, to: socketPath, within: 3)
        XCTAssertEqual(idle.count, 256)
        let asked = Date()
        let refused = try Processes.tdl(["pause", url], home: home.path, timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(asked), 1)
        XCTAssertEqual(refused.status, 5)
        XCTAssertTrue(refused.stderr.contains("serving 256 other commands; try again"), refused.stderr)
        idle.forEach { close($0) }
        idle = []
        let served = try Processes.tdl(["pause", url], home: home.path, timeout: 5)
        XCTAssertEqual(served.stdout, "paused \(url)\n", served.stderr)
        get.waitUntilExit()
    }

    func testASecondGetHandsItsURLsOverAndWaitsForThem() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let (first, _) = try startGet(["-q", "-d", downloads.path, slowURL("first.bin", seconds: 3)], home: home)
        let other = server.url("/file/second.bin?size=400000&seed=6")
        let second = try Processes.tdl(["get", other], home: home.path)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("runs in another tdl"), second.stderr)
        XCTAssertTrue(second.stderr.contains("done: \(downloads.file("second.bin"))"), second.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("second.bin")), try server.sha256(name: "second.bin", size: 400_000, seed: 6))
        first.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 0)
        // One task each, no second copy: only the running tdl wrote.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path).sorted(), ["first.bin", "second.bin"])
    }

    func testAWaitingGetTakesOverWhenTheRunningOneQuits() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let (first, _) = try startGet(["-q", "-d", downloads.path, slowURL("one.bin", seconds: 6)], home: home)
        let (second, stderr) = try Processes.start(Processes.tdlBinary, ["get", "-x", "2", slowURL("two.bin", seconds: 3)], environment: ["TDL_HOME": home.path])
        // Once the running get has taken two.bin, it is told to quit (as Ctrl-C would).
        XCTAssertTrue(Processes.waitUntil(timeout: 10) {
            (try? jsonList(home).contains { $0["name"] as? String == "two.bin" && $0["state"] as? String == "downloading" }) == true
        })
        first.interrupt()
        first.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 130)
        // What is left only waits for the download to end.
        try server.unthrottle()
        defer { try? server.throttle() }
        second.waitUntilExit()
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(second.terminationStatus, 0, message)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("two.bin")), try server.sha256(name: "two.bin", size: 2_000_000, seed: 3))
    }

    func testAnInterruptedWaitingGetLeavesItsFileToTheRunningTdl() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let (first, _) = try startGet(["-q", "-d", downloads.path, slowURL("one.bin", seconds: 4)], home: home)
        let (second, stderr) = try Processes.start(Processes.tdlBinary, ["get", slowURL("two.bin", seconds: 3)], environment: ["TDL_HOME": home.path])
        XCTAssertTrue(Processes.waitUntil(timeout: 10) {
            (try? jsonList(home).contains { $0["name"] as? String == "two.bin" && $0["state"] as? String == "downloading" }) == true
        })
        second.interrupt()
        second.waitUntilExit()
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(second.terminationStatus, 130, message)
        XCTAssertTrue(message.contains("interrupted: the tdl running the session goes on downloading"), message)
        // The running get took the file over: it waits for it too, and finishes it.
        try server.unthrottle()
        defer { try? server.throttle() }
        first.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 0)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("two.bin")), try server.sha256(name: "two.bin", size: 2_000_000, seed: 3))
    }

    func testAGetWhoseTerminalClosesSavesAndSaysSo() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let (get, stderr) = try startGet(["-q", "-d", downloads.path, slowURL("hup.bin", seconds: 6)], home: home)
        XCTAssertTrue(Processes.waitUntil(timeout: 10) {
            (try? jsonList(home).contains { $0["state"] as? String == "downloading" && ($0["received"] as? Int ?? 0) > 0 }) == true
        })
        kill(get.processIdentifier, SIGHUP)
        get.waitUntilExit()
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(get.terminationReason, .exit, "SIGHUP killed tdl get")
        XCTAssertEqual(get.terminationStatus, 130, message)
        XCTAssertTrue(message.contains("interrupted: run the same command again to continue"), message)
        // Closed cleanly, its bytes kept: it waits for the next tdl.
        let list = try jsonList(home)
        XCTAssertEqual(list.first?["state"] as? String, "waiting")
        XCTAssertGreaterThan(list.first?["received"] as? Int ?? 0, 0)
    }

    func testASessionNameCannotLeaveTheHome() throws {
        let home = TemporaryDirectory()
        for name in ["../elsewhere", "a/b", ".hidden", ""] {
            let result = try Processes.tdl(["list", "--session", name], home: home.path)
            XCTAssertEqual(result.status, 2, "session \"\(name)\" was accepted")
            XCTAssertTrue(result.stderr.contains("session name"), result.stderr)
        }
        XCTAssertEqual(try Processes.tdl(["session", "destroy", "../x"], home: home.path).status, 2, "a bad value is bad input")
    }

    func testInterruptedDownloadsCanWaitInsteadOfResuming() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory(), work = TemporaryDirectory()
        let url = slowURL("cut.bin", seconds: 8)
        let (get, _) = try startGet(["-q", "-d", downloads.path, url], home: home)
        XCTAssertTrue(Processes.waitUntil(timeout: 10) {
            (try? jsonList(home).first?["received"] as? Int ?? 0) ?? 0 > 100_000
        })
        kill(get.processIdentifier, SIGKILL)
        get.waitUntilExit()
        try ":save-display \(work.file("screen"))\nq\n".write(toFile: work.file("script"), atomically: true, encoding: .utf8)
        let ui = try Processes.tdl(["--interrupted", "wait", "-d", downloads.path], home: home.path,
                                   environment: ["TDL_SCRIPT": work.file("script"), "TDL_SCRIPT_SIZE": "100x12", "NO_COLOR": "1"])
        XCTAssertEqual(ui.status, 0, ui.stderr)
        let screen = try String(contentsOfFile: work.file("screen"), encoding: .utf8)
        XCTAssertTrue(screen.contains("1 interrupted download waits, paused (p resumes)"), screen)
        XCTAssertTrue(screen.contains("cut.bin") && screen.contains("Paused"), screen)
        XCTAssertEqual(try jsonList(home).first?["state"] as? String, "paused", "nothing started by itself")
    }

    func testLimitRateIsForOneRunOnly() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory(), work = TemporaryDirectory()
        let run = try Processes.tdl(["get", "-q", "--limit-rate", "500K", "-d", downloads.path,
                                     server.url("/file/capped.bin?size=100000")], home: home.path)
        XCTAssertEqual(run.status, 0, run.stderr)
        try ":save-display \(work.file("screen"))\nq\n".write(toFile: work.file("script"), atomically: true, encoding: .utf8)
        let ui = try Processes.tdl(["-d", downloads.path], home: home.path,
                                   environment: ["TDL_SCRIPT": work.file("script"), "TDL_SCRIPT_SIZE": "100x10", "NO_COLOR": "1"])
        XCTAssertEqual(ui.status, 0, ui.stderr)
        let header = try String(contentsOfFile: work.file("screen"), encoding: .utf8).split(separator: "\n").first.map(String.init) ?? ""
        XCTAssertTrue(header.hasSuffix("max 3"), "no cap left behind by the earlier run: \(header)")
    }

    func testWithoutARunningTdlCommandsChangeTheSavedSession() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let urls = ["a", "b", "c"].map { server.url("/file/\($0).bin?size=1000") }
        XCTAssertEqual(try Processes.tdl(["add", "-d", downloads.path] + urls, home: home.path).status, 0)
        XCTAssertEqual(try Processes.tdl(["pause", urls[0]], home: home.path).stdout, "paused \(urls[0])\n")
        XCTAssertEqual(try Processes.tdl(["stop", urls[1]], home: home.path).stdout, "stopped \(urls[1])\n")
        XCTAssertEqual(try Processes.tdl(["rm", urls[2]], home: home.path).stdout, "moved to the trash \(urls[2])\n")
        let states = try jsonList(home).map { "\($0["name"]!)=\($0["state"]!)" }
        XCTAssertEqual(states, ["a.bin=paused", "b.bin=stopped"])
        XCTAssertTrue(try Processes.tdl(["list", "--trash"], home: home.path).stdout.contains("c.bin"))
        let again = try Processes.tdl(["pause", urls[0]], home: home.path)
        XCTAssertEqual(again.stdout, "unchanged (paused) \(urls[0])\n")
        XCTAssertEqual(again.status, 1, "a pause that changed nothing is not a success")
        let usage = try Processes.tdl(["pause"], home: home.path)
        XCTAssertEqual(usage.status, 64, "a missing argument is a usage error")
    }

    func testASocketLeftByADeadProcessIsCleanedUp() throws {
        let home = TemporaryDirectory()
        // A socket file nobody listens on, as a killed tdl leaves it.
        let python = Processes.which("python3") ?? "/usr/bin/python3"
        let bind = try Processes.run(python, ["-c", "import socket; s = socket.socket(socket.AF_UNIX); s.bind('\(home.file("default.sock"))')"])
        XCTAssertEqual(bind.status, 0, bind.stderr)
        let add = try Processes.tdl(["add", server.url("/file/x.bin")], home: home.path)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: home.file("default.sock")))
        XCTAssertEqual(try jsonList(home).count, 1)
    }

    func testHooksGetTheFileAndTheURLWithoutAShell() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory(), work = TemporaryDirectory()
        let hook = work.file("hook.sh")
        try """
            #!/bin/sh
            printf '%s\\n%s\\n%s\\n' "$1" "$2" "$TDL_ERROR" >> \(work.file("calls"))
            """.write(toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        // Shell syntax in the URL stays text: no shell sees it.
        let good = server.url("/file/ok.bin?size=1000&note=$(touch%20\(work.file("pwned")));x")
        let bad = server.url("/file/missing.bin?status=404")
        let run = try Processes.tdl(["get", "-q", "-d", downloads.path, "--on-complete", hook, "--on-error", hook, good, bad],
                                    home: home.path)
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(Processes.waitUntil(timeout: 5) {
            ((try? String(contentsOfFile: work.file("calls"), encoding: .utf8)) ?? "").split(separator: "\n").count >= 5
        })
        let calls = try String(contentsOfFile: work.file("calls"), encoding: .utf8)
        XCTAssertTrue(calls.contains("\(downloads.file("ok.bin"))\n\(good)\n\n"), calls)
        XCTAssertTrue(calls.contains("\(downloads.file("missing.bin"))\n\(bad)\n404 Not Found\n"), calls)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.file("pwned")))

        // The session keeps the hook for later runs.
        let later = server.url("/file/later.bin?size=1000")
        XCTAssertEqual(try Processes.tdl(["get", "-q", later], home: home.path).status, 0)
        XCTAssertTrue(Processes.waitUntil(timeout: 5) {
            ((try? String(contentsOfFile: work.file("calls"), encoding: .utf8)) ?? "").contains(later)
        })
    }

    func testSessionsAreListedAndDestroyedWithoutTouchingFiles() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let url = server.url("/file/kept.bin?size=1000")
        XCTAssertEqual(try Processes.tdl(["get", "-q", "--session", "work", "-d", downloads.path, url], home: home.path).status, 0)
        XCTAssertEqual(try Processes.tdl(["add", "--session", "home", url, server.url("/file/y")], home: home.path).status, 0)
        XCTAssertEqual(try Processes.tdl(["session", "list"], home: home.path).stdout, "home\t2 tasks\nwork\t1 task\n")
        let destroy = try Processes.tdl(["session", "destroy", "work"], home: home.path)
        XCTAssertEqual(destroy.status, 0, destroy.stderr)
        XCTAssertEqual(try Processes.tdl(["session", "list"], home: home.path).stdout, "home\t2 tasks\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("kept.bin")), "downloaded files are never deleted")
        let missing = try Processes.tdl(["session", "destroy", "nope"], home: home.path)
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("no session named \"nope\""), missing.stderr)

        let (running, _) = try startGet(["-q", "-d", downloads.path, slowURL("busy.bin", seconds: 2)], home: home)
        let refused = try Processes.tdl(["session", "destroy", "default"], home: home.path)
        XCTAssertEqual(refused.status, 3, "a session in use is not destroyed: \(refused.stderr)")
        XCTAssertTrue(refused.stderr.contains("in use"), refused.stderr)
        XCTAssertTrue(try Processes.tdl(["session", "list"], home: home.path).stdout.contains("default\t1 task\tin use"))
        running.waitUntilExit()
    }

    func testListSortsForTheListingOnly() throws {
        let home = TemporaryDirectory()
        let urls = ["b.iso", "c.txt", "a.png"].map { server.url("/file/\($0)") }
        for url in urls { XCTAssertEqual(try Processes.tdl(["add", url], home: home.path).status, 0) }
        func names(_ arguments: [String]) throws -> [String] {
            try Processes.tdl(["list"] + arguments, home: home.path).stdout.split(separator: "\n")
                .filter { !$0.hasPrefix("==") }.map { String($0.split(separator: "\t")[1]) }
        }
        XCTAssertEqual(try names(["--sort", "name", "--order", "desc"]), ["c.txt", "b.iso", "a.png"])
        XCTAssertEqual(try names(["--sort", "type"]), ["a.png", "c.txt", "b.iso"])
        XCTAssertEqual(try names(["--order", "desc"]), ["a.png", "c.txt", "b.iso"], "the session's key, the order asked for")
        XCTAssertEqual(try names(["--sort", "manual"]), ["b.iso", "c.txt", "a.png"], "by hand: the order the session shows")
        XCTAssertEqual(try names([]), ["b.iso", "c.txt", "a.png"], "the session's own order is unchanged")
        let bad = try Processes.tdl(["list", "--sort", "colour"], home: home.path)
        XCTAssertEqual(bad.status, 2, "a value tdl cannot use is bad input")
        XCTAssertTrue(bad.stderr.contains("colour"), bad.stderr)
    }

    func testManPageAndCompletionsComeFromTheHelp() throws {
        let home = TemporaryDirectory()
        let man = try Processes.tdl(["man"], home: home.path)
        XCTAssertTrue(man.stdout.hasPrefix(".TH TDL 1\n"), man.stdout)
        for usage in ["USAGE: tdl get", "USAGE: tdl add", "USAGE: tdl pause", "USAGE: tdl session destroy", "--on-complete <cmd>"] {
            XCTAssertTrue(man.stdout.contains(usage), "man page lacks \(usage)")
        }
        let bash = try Processes.tdl(["--generate-completion-script", "bash"], home: home.path)
        XCTAssertEqual(bash.status, 0)
        XCTAssertTrue(bash.stdout.contains("pause") && bash.stdout.contains("--limit-rate"), "completion knows the commands")
    }

    func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// Clients that connect to a Unix socket and send nothing; as many as were taken before
    /// `seconds` passed (a full backlog refuses a non-blocking connect with EAGAIN).
    func openIdleConnections(_ count: Int, to path: String, within seconds: Double) -> [Int32] {
        let deadline = Date().addingTimeInterval(seconds)
        var connected: [Int32] = []
        while connected.count < count {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            while connectToUnixSocket(fd, path) != 0 {
                guard errno == EAGAIN, Date() < deadline else {
                    close(fd)
                    return connected
                }
                usleep(10_000)
            }
            connected.append(fd)
        }
        return connected
    }

    /// Sends `request` over a new connection (as much as the server takes) and returns the
    /// reply, or what arrived before 5 s passed.
    func exchange(_ request: Data, with path: String) -> String {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connectToUnixSocket(fd, path) == 0 else { return "cannot connect: \(String(cString: strerror(errno)))" }
        // The server may answer and close before taking everything: the send then fails.
        request.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n <= 0 { break }
                offset += n
            }
        }
        var reply = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !reply.contains(UInt8(ascii: "\n")) {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            reply.append(contentsOf: buffer[0 ..< n])
        }
        return String(decoding: reply, as: UTF8.self)
    }

    func connectToUnixSocket(_ fd: Int32, _ path: String) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: path.utf8) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
