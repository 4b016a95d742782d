import XCTest
import TDLCore
@testable import TDLSession

final class SessionLoopTests: XCTestCase {
    var home = ""
    var manager: DownloadManager!

    override func setUp() {
        home = "/tmp/tdl-l-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        manager = DownloadManager(identifier: "test", defaultDirectory: home)
    }

    override func tearDown() {
        // The loop's handlers outlive it, as in tdl; the test process gets its defaults back.
        for sig in [SIGINT, SIGTERM, SIGHUP] { signal(sig, SIG_DFL) }
        manager = nil
        try? FileManager.default.removeItem(atPath: home)
    }

    func url(_ name: String) -> String { "https://example.com/files/\(name)" }

    func testEachTurnCarriesOutTheRequestsOfOtherCommandsOnTheManager() throws {
        let server = try ControlServer(home: home, session: "s")
        defer { server.shutDown() }
        let loop = SessionLoop(manager: manager, control: server, timeoutMs: 20)
        let client = Background { [home, a = url("a")] in ControlClient.send(ControlRequest(command: .add, items: [DownloadRequest(url: a)]),
                                                                        home: home, session: "s") }
        var notes: [String] = []
        let deadline = Date().addingTimeInterval(30)
        loop.run(while: { !client.isDone && Date() < deadline }) { turn in notes += turn.notes }
        guard case .answered(let reply)? = client.result else { return XCTFail("\(String(describing: client.result))") }
        XCTAssertEqual(reply.lines, ["added \(url("a"))"])
        XCTAssertEqual(notes, ["added 1 download from another tdl"])
        XCTAssertNotNil(manager.task(url("a")))
        XCTAssertNil(loop.interruption)
    }

    func testTheOwnerDecidesWhatARequestDoes() throws {
        let server = try ControlServer(home: home, session: "s")
        defer { server.shutDown() }
        let loop = SessionLoop(manager: manager, control: server, timeoutMs: 20)
        loop.handle = { request in ControlReply(lines: ["seen \(request.command.rawValue)"]) }
        let client = Background { [home] in ControlClient.send(ControlRequest(command: .pause, items: []), home: home, session: "s") }
        let deadline = Date().addingTimeInterval(30)
        loop.run(while: { !client.isDone && Date() < deadline }) { _ in }
        guard case .answered(let reply)? = client.result else { return XCTFail("\(String(describing: client.result))") }
        XCTAssertEqual(reply.lines, ["seen pause"])
    }

    func testATurnWakesForAWatchedDescriptor() {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]); close(ends[1]) }
        let loop = SessionLoop(manager: nil, timeoutMs: 5_000)
        XCTAssertEqual(write(ends[1], "x", 1), 1)
        let start = Date()
        let turn = loop.turn(watching: [.reading(ends[0])])
        XCTAssertEqual(turn.ready, [ends[0]])
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
    }

    /// The full-screen list asks for a shorter wait while it has a frame to draw.
    func testATurnWaitsNoLongerThanItsOwnerAsks() {
        let loop = SessionLoop(manager: nil, timeoutMs: 10_000)
        let start = Date()
        XCTAssertEqual(loop.turn(timeoutMs: 20).ready, [])
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
    }

    func testTheLoopEndsWhenItsOwnerSaysSo() {
        let loop = SessionLoop(manager: manager, timeoutMs: 1)
        var turns = 0
        loop.run(while: { turns < 3 }) { _ in turns += 1 }
        XCTAssertEqual(turns, 3)
        XCTAssertNil(loop.interruption)
    }

    func testSIGTERMAndSIGHUPEndTheLoopNotTheProcess() {
        for sig in [SIGTERM, SIGHUP, SIGINT] {
            let loop = SessionLoop(manager: manager, timeoutMs: 1)
            var turns = 0
            loop.run(while: { turns < 100 }) { _ in
                turns += 1
                if turns == 3 { raise(sig) }
            }
            XCTAssertEqual(turns, 3, "signal \(sig)")
            XCTAssertEqual(loop.interruption, sig)
        }
        // A new loop starts uninterrupted.
        XCTAssertNil(SessionLoop(manager: nil).interruption)
    }

    func testAnInterruptedHandOverStopsWaitingAndTheRunningTdlGoesOn() throws {
        let server = try ControlServer(home: home, session: "s")
        defer { server.shutDown() }
        var handOver = HandOver(home: home, session: "s", items: [DownloadRequest(url: url("a"))], all: false, quiet: true)
        handOver.pollIntervalMs = 20
        let client = Background { [handOver] () -> (any Error)? in
            do {
                _ = try handOver.run(say: { _ in })
                return nil
            } catch {
                return error
            }
        }
        var statuses = 0
        let deadline = Date().addingTimeInterval(30)
        while !client.isDone && Date() < deadline {
            _ = server.serve(ready: SessionLoop.wait(server.watched, timeoutMs: 20)) { request in
                if request.command == .status {
                    statuses += 1
                    // The hand-over is in its loop: Ctrl-C.
                    if statuses == 2 { raise(SIGINT) }
                }
                return ControlActions.perform(request, on: SessionSaver(self.manager))
            }
        }
        XCTAssertEqual((client.result ?? nil) as? HandOver.Stop, .interrupted)
        XCTAssertEqual(statuses, 2)
        XCTAssertEqual(manager.state(of: url("a"))?.isActive, true)
    }
}
