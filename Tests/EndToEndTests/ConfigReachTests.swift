import Foundation
import TDLTestSupport
import XCTest

/// The config file in runs that are not `tdl get`: its request options reach downloads added on
/// the screen and over JSON-RPC; its hooks and rpc-* keys hold for a run without being written
/// into the session; and the rate schedule given on the command line.
final class ConfigReachTests: FaultServerTestCase {
    let home = TemporaryDirectory(), downloads = TemporaryDirectory(), configHome = TemporaryDirectory()

    var configPath: String { configHome.path + "/tdl/tdl.conf" }
    var environment: [String: String] { ["XDG_CONFIG_HOME": configHome.path, "TDL_RETRY_BASE": "0.05", "TDL_HOME": home.path] }

    func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: configHome.path + "/tdl", withIntermediateDirectories: true)
        try text.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// A file the server sends only to an agent with "Mozilla" in it (403 otherwise).
    func agentOnly(_ name: String, seed: Int) -> String {
        "http://127.0.0.1:\(server.port)/file/\(name)?size=100000&seed=\(seed)&need_agent=Mozilla"
    }

    func testTheFilesAgentReachesAnAddOnTheScreen() throws {
        try writeConfig("user-agent=Mozilla/5.0 (X11)\n")
        let work = TemporaryDirectory()
        try ["a", ":type \(agentOnly("screen.bin", seed: 1))", "<Enter>", ":sleep 300", ":wait-idle 20"]
            .joined(separator: "\n").write(toFile: work.file("script"), atomically: true, encoding: .utf8)
        let env = environment.merging(["TDL_SCRIPT": work.file("script"), "TDL_SCRIPT_SIZE": "100x20", "NO_COLOR": "1"]) { $1 }
        let result = try Processes.tdl(["-d", downloads.path], home: home.path, environment: env, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("screen.bin")), try server.sha256(name: "screen.bin", size: 100_000, seed: 1))
    }

    func testTheFilesAgentReachesAnRPCAddAndTheCallsOwnWins() throws {
        try XCTSkipUnless(Processes.which("curl") != nil, "curl is missing (run make test-deps)")
        try writeConfig("user-agent=Mozilla/5.0 (X11)\nrpc-secret=s3cret\n")
        let port = RefusingPort.make()
        let (serve, stderr) = try Processes.start(Processes.tdlBinary, ["serve", "-d", downloads.path, "--rpc-listen-port", String(port)],
                                                  environment: environment)
        defer {
            if serve.isRunning { serve.terminate() }
            serve.waitUntilExit()
        }
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { LoopbackNginx.canConnect(port) }, "tdl serve did not listen")
        func add(_ url: String, _ options: [String: String]) throws {
            let body = try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": "t", "method": "aria2.addUri",
                                                                   "params": ["token:s3cret", [url], options]])
            let answer = try Processes.run("/usr/bin/curl", ["-s", "--data-binary", String(decoding: body, as: UTF8.self),
                                                             "http://127.0.0.1:\(port)/jsonrpc"])
            XCTAssertTrue(answer.stdout.contains("\"result\""), answer.stdout)
        }
        try add(agentOnly("rpc.bin", seed: 2), [:])
        try add(agentOnly("own.bin", seed: 3), ["user-agent": "curl/8"])
        XCTAssertTrue(Processes.waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: downloads.file("rpc.bin")) },
                      "the file's agent is sent: \(String(decoding: stderr.fileHandleForReading.availableData, as: UTF8.self))")
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("rpc.bin")), try server.sha256(name: "rpc.bin", size: 100_000, seed: 2))
        XCTAssertTrue(Processes.waitUntil(timeout: 10) {
            (try? Processes.tdl(["list", "--json"], home: home.path).stdout.contains("\"failed\"")) == true
        }, "the call's own agent wins: the server refuses it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("own.bin")))
    }

    /// Hooks and rpc-* keys of the file hold for the run and are not kept by the session:
    /// removed from the file, they are gone on the next launch.
    func testTheFilesHooksAndRPCKeysAreNotWrittenIntoTheSession() throws {
        let marker = home.file("hook-ran")
        let hook = home.file("hook.sh")
        try "#!/bin/sh\necho \"$1\" > \(marker)\n".write(toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        try writeConfig("on-complete=\(hook)\nrpc-secret=fromfile\nrpc-listen-port=\(RefusingPort.make())\n"
                        + "dir=\(downloads.path)\ninterrupted=wait\n")
        let url = "http://127.0.0.1:\(server.port)/file/hooked.bin?size=50000&seed=4"
        let get = try Processes.tdl(["get", "-q", url], home: home.path, environment: environment)
        XCTAssertEqual(get.status, 0, get.stderr)
        XCTAssertTrue(Processes.waitUntil(timeout: 5) { FileManager.default.fileExists(atPath: marker) }, "the file's hook runs")
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("hooked.bin")), "into the file's dir=")

        let port = RefusingPort.make()
        let (serve, stderr) = try Processes.start(Processes.tdlBinary, ["serve", "--rpc-listen-port", String(port)],
                                                  environment: environment)
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { LoopbackNginx.canConnect(port) }, "tdl serve did not listen")
        serve.terminate()
        serve.waitUntilExit()
        let said = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(said.contains("the config file's rpc-secret"), said)
        XCTAssertTrue(said.contains("downloads to \(downloads.path)"), said)

        try writeConfig("# nothing\n")
        let config = try Processes.tdl(["config"], home: home.path, environment: environment)
        XCTAssertEqual(config.status, 0, config.stderr)
        for line in ["# on-complete  # not set", "# rpc-secret  # not set", "interrupted=resume  # default"] {
            XCTAssertTrue(config.stdout.contains(line + "\n"), "\(line) in\n\(config.stdout)")
        }
        XCTAssertFalse(config.stdout.contains("dir=\(downloads.path)  # session"), config.stdout)
        let (again, againErr) = try Processes.start(Processes.tdlBinary, ["serve", "-d", downloads.path, "--rpc-listen-port", String(port)],
                                                    environment: environment)
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { LoopbackNginx.canConnect(port) }, "tdl serve did not listen")
        again.terminate()
        again.waitUntilExit()
        let saidAgain = String(decoding: againErr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(saidAgain.contains("JSON-RPC secret in \(home.path)/rpc-secret"), "the session kept no secret: \(saidAgain)")

        // The command line's are still kept by the session.
        let given = try Processes.tdl(["get", "-q", "-d", downloads.path, "--on-complete", hook, url + "&again=1"],
                                      home: home.path, environment: environment)
        XCTAssertEqual(given.status, 0, given.stderr)
        XCTAssertTrue(try Processes.tdl(["config"], home: home.path, environment: environment).stdout
            .contains("on-complete=\(hook)  # session\n"))
    }

    /// `--rate-schedule` in the config key's syntax: in force for the run (over the file's),
    /// kept by the session and shown by `tdl config`.
    func testTheRateScheduleOnTheCommandLine() throws {
        try writeConfig("rate-schedule=0 00:00-24:00\n")
        let url = "http://127.0.0.1:\(server.port)/file/capped.bin?size=400000&seed=5"
        let start = Date()
        let get = try Processes.tdl(["get", "-q", "-x", "1", "-d", downloads.path, "--rate-schedule", "100K 00:00-24:00", url],
                                    home: home.path, environment: environment)
        XCTAssertEqual(get.status, 0, get.stderr)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 2.5, "400 KB at 100 KB/s: the command line's schedule holds over the file's")
        try writeConfig("# none\n")
        let config = try Processes.tdl(["config"], home: home.path, environment: environment)
        XCTAssertTrue(config.stdout.contains("rate-schedule=100K 00:00-24:00  # session\n"), config.stdout)
        let forget = try Processes.tdl(["get", "-q", "-d", downloads.path, "--rate-schedule", "", url + "&b=1"], home: home.path, environment: environment)
        XCTAssertEqual(forget.status, 0, forget.stderr)
        XCTAssertFalse(try Processes.tdl(["config"], home: home.path, environment: environment).stdout.contains("rate-schedule=1"))
        let bad = try Processes.tdl(["get", "--rate-schedule", "2M 25:00-26:00", url], home: home.path, environment: environment)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--rate-schedule:"), bad.stderr)
    }
}
