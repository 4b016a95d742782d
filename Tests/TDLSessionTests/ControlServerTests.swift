import XCTest
import TDLCore
@testable import TDLSession

/// The control socket for real: a server in a temporary home, served by a small loop on the
/// test's thread the way `tdl get` serves it each turn, and clients on another thread.
final class ControlServerTests: XCTestCase {
    var home = ""
    var manager: DownloadManager!

    override func setUp() {
        // sockaddr_un holds 107 bytes: a short folder, not the deep temporary one.
        home = "/tmp/tdl-s-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        manager = DownloadManager(identifier: "test", defaultDirectory: home)
    }

    override func tearDown() {
        manager = nil
        try? FileManager.default.removeItem(atPath: home)
    }

    func url(_ name: String) -> String { "https://example.com/files/\(name)" }

    func testARequestGoesThroughTheSocketAndTheReplyComesBack() throws {
        let server = try ControlServer(home: home, session: "s")
        let client = Background { [home, a = url("a"), b = url("b")] in ControlClient.send(ControlRequest(command: .add, items: [
            DownloadRequest(url: a), DownloadRequest(url: b),
        ]), home: home, session: "s") }
        var requests: [ControlRequest.Command] = []
        let notes = serve(server, until: { client.isDone }) { request in
            requests.append(request.command)
            return ControlActions.perform(request, on: SessionSaver(self.manager))
        }
        guard case .answered(let reply)? = client.result else { return XCTFail("\(String(describing: client.result))") }
        XCTAssertEqual(reply.lines, ["added \(url("a"))", "added \(url("b"))"])
        XCTAssertEqual(reply.status, ExitStatus.ok)
        XCTAssertEqual(requests, [.add])
        XCTAssertEqual(notes, ["added 2 downloads from another tdl"])
        XCTAssertNotNil(manager.task(url("b")))
        server.shutDown()
    }

    func testTheSocketIsTheOwnersAndGoesAwayOnShutDown() throws {
        let server = try ControlServer(home: home, session: "s")
        XCTAssertEqual(server.path, home + "/s.sock")
        var info = stat()
        XCTAssertEqual(stat(server.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        XCTAssertTrue(ControlClient.isListening(home: home, session: "s"))
        XCTAssertFalse(ControlClient.isListening(home: home, session: "other"))
        server.shutDown()
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.path))
        XCTAssertFalse(ControlClient.isListening(home: home, session: "s"))
        guard case .nobodyListens = ControlClient.send(ControlRequest(command: .status, items: []), home: home, session: "s") else {
            return XCTFail("a request after shut-down was answered")
        }
    }

    func testALeftoverSocketFileIsReplaced() throws {
        _ = FileManager.default.createFile(atPath: home + "/s.sock", contents: Data("stale".utf8))
        let server = try ControlServer(home: home, session: "s")
        XCTAssertTrue(ControlClient.isListening(home: home, session: "s"))
        server.shutDown()
    }

    func testAHomeTooLongForASocketIsSaidSo() {
        let deep = "/tmp/" + String(repeating: "d", count: 120)
        XCTAssertThrowsError(try ControlServer(home: deep, session: "s")) { error in
            XCTAssertTrue("\(error)".hasPrefix("the tdl home path is too long for a socket"), "\(error)")
        }
    }

    func testAnUnreadableRequestIsAnsweredWithStatus2() throws {
        let (reply, handled) = try answer(to: Data("this is not json\n".utf8))
        XCTAssertEqual(reply.problems, ["unreadable request"])
        XCTAssertEqual(reply.status, ExitStatus.badInput)
        XCTAssertEqual(handled, 0)
    }

    /// A URL that is not valid UTF-8 is refused, not read as a U+FFFD URL and fetched.
    func testARequestWithAURLThatIsNotUTF8IsRefused() throws {
        let request = Array(#"{"command":"add","items":[{"url":"http://example.org/a"#.utf8) + [0xFF]
            + Array(#"b","options":{}}]}"#.utf8) + [0x0A]
        let (reply, handled) = try answer(to: Data(request))
        XCTAssertEqual(reply.status, ExitStatus.badInput)
        XCTAssertEqual(handled, 0, "nothing was carried out")
    }

    /// Sends `bytes` as one request to a server of its own; its reply, and how many requests
    /// reached the handler.
    func answer(to bytes: Data) throws -> (ControlReply, Int) {
        let server = try ControlServer(home: home, session: "s")
        defer { server.shutDown() }
        let path = server.path
        let client = Background { () -> ControlReply? in
            ControlClient.withConnection(path, otherwise: { _ in nil }) { fd in
                _ = ControlSocket.writeAll(fd, bytes)
                return ControlSocket.readLine(fd, deadline: Date().addingTimeInterval(10))
                    .flatMap { try? JSONDecoder().decode(ControlReply.self, from: $0) }
            }
        }
        var handled = 0
        _ = serve(server, until: { client.isDone }) { _ in
            handled += 1
            return ControlReply()
        }
        return (try XCTUnwrap(client.result ?? nil), handled)
    }

    func testARequestOverTheSizeBoundIsRefusedWithoutBeingCarriedOut() throws {
        try checkRefused(urlBytes: ControlServer.maxRequestBytes)
    }

    /// The server stops reading at the bound and closes; the client, still sending, hears why.
    func testARequestFarOverTheSizeBoundIsRefusedWithItsReason() throws {
        try checkRefused(urlBytes: 2 * ControlServer.maxRequestBytes)
    }

    func checkRefused(urlBytes: Int) throws {
        let server = try ControlServer(home: home, session: "s")
        let huge = "https://example.com/" + String(repeating: "a", count: urlBytes)
        let client = Background { [home] in ControlClient.send(ControlRequest(command: .add, items: [DownloadRequest(url: huge)]),
                                                               home: home, session: "s") }
        var handled = 0
        _ = serve(server, until: { client.isDone }) { _ in
            handled += 1
            return ControlReply()
        }
        XCTAssertEqual(handled, 0)
        guard case .answered(let reply)? = client.result else { return XCTFail("\(String(describing: client.result))") }
        XCTAssertEqual(reply.problems, ["the request is larger than 64 MiB"])
        XCTAssertEqual(reply.status, ExitStatus.badInput)
        server.shutDown()
    }

    func testOneRequestJustUnderTheBoundIsTaken() throws {
        // 64 MiB of URLs, as a long input file sends them, is one request.
        let server = try ControlServer(home: home, session: "s")
        let long = "https://example.com/" + String(repeating: "b", count: 1 << 20)
        let items = (0 ..< 60).map { DownloadRequest(url: long + "/\($0)") }
        let client = Background { [home] in ControlClient.send(ControlRequest(command: .status, items: items), home: home, session: "s") }
        var asked = 0
        _ = serve(server, until: { client.isDone }) { request in
            asked = request.items.count
            return ControlReply(lines: ["seen"])
        }
        guard case .answered(let reply)? = client.result else { return XCTFail("\(String(describing: client.result))") }
        XCTAssertEqual(reply.lines, ["seen"])
        XCTAssertEqual(asked, 60)
        server.shutDown()
    }

    func testANewcomerBeyondTheConnectionLimitIsRefusedAtOnce() throws {
        let server = try ControlServer(home: home, session: "s")
        // Connected, saying nothing: each holds a place until its deadline.
        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0 ..< ControlServer.maxConnections {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            let address = try XCTUnwrap(ControlSocket.address(server.path))
            XCTAssertEqual(ControlSocket.withSockaddr(address) { connect(fd, $0, $1) }, 0)
            idle.append(fd)
            if idle.count % 64 == 0 { _ = serve(server, until: { true }) { _ in ControlReply() } }
        }
        _ = serve(server, turns: 3) { _ in ControlReply() }
        let client = Background { [home] in ControlClient.send(ControlRequest(command: .status, items: []), home: home, session: "s") }
        var handled = 0
        _ = serve(server, until: { client.isDone }) { _ in
            handled += 1
            return ControlReply()
        }
        guard case .failed(let why)? = client.result else { return XCTFail("\(String(describing: client.result))") }
        XCTAssertEqual(why, "the running tdl is serving 256 other commands; try again")
        XCTAssertEqual(handled, 0)
        server.shutDown()
    }

    // MARK: - Hand-over

    func testAHandOverWithNobodyListeningSaysSo() {
        let handOver = HandOver(home: home, session: "s", items: [DownloadRequest(url: url("a"))], all: false, quiet: true)
        XCTAssertThrowsError(try handOver.run(say: { _ in })) { error in
            XCTAssertEqual(error as? HandOver.Stop, .nobodyListens)
        }
    }

    func testAHandOverWhoseRunningTdlQuitsAsksToRunAgain() throws {
        let server = try ControlServer(home: home, session: "s")
        var handOver = HandOver(home: home, session: "s", items: [DownloadRequest(url: url("a"))], all: false, quiet: false)
        handOver.pollIntervalMs = 20
        let said = Locked<[String]>([])
        let client = Background { [handOver] () -> (any Error)? in
            do {
                _ = try handOver.run(say: { line in said.withLock { $0.append(line) } })
                return nil
            } catch {
                return error
            }
        }
        var commands: [ControlRequest.Command] = []
        // The running tdl takes the URL, answers one status, then quits.
        _ = serve(server, until: { commands.count >= 3 || client.isDone }) { request in
            commands.append(request.command)
            return ControlActions.perform(request, on: SessionSaver(self.manager))
        }
        server.shutDown()
        _ = client.wait()
        XCTAssertEqual(Array(commands.prefix(3)), [.add, .resume, .status])
        XCTAssertEqual((client.result ?? nil) as? HandOver.Stop, .runningTdlQuit)
        XCTAssertEqual(said.withLock({ $0 }), ["the session \"s\" runs in another tdl: it downloads, this one waits"])
        XCTAssertNotNil(manager.task(url("a")))
    }

    func testAHandOverEndsWithTheStatusOfItsFiles() throws {
        let server = try ControlServer(home: home, session: "s")
        var handOver = HandOver(home: home, session: "s", items: [DownloadRequest(url: url("a"))], all: false, quiet: false)
        handOver.pollIntervalMs = 20
        let said = Locked<[String]>([])
        let client = Background { [handOver] in try? handOver.run(say: { line in said.withLock { $0.append(line) } }) }
        // Stands in for the running tdl's downloads: the task ends failed after its first status.
        var statuses = 0
        _ = serve(server, until: { client.isDone }) { request in
            if request.command == .status {
                statuses += 1
                if statuses == 2 {
                    var reply = ControlReply()
                    reply.tasks = [TaskStatus(url: self.url("a"), state: "failed", received: 0, size: nil, speed: 0,
                                              error: "404 Not Found", path: self.home + "/a")]
                    return reply
                }
            }
            return ControlActions.perform(request, on: SessionSaver(self.manager))
        }
        server.shutDown()
        XCTAssertEqual(client.result ?? nil, ExitStatus.downloadFailed)
        XCTAssertEqual(said.withLock({ $0 }).last, "\(url("a")): 404 Not Found")
    }

    // MARK: - The loop

    /// Turns until `done` says so (at most 30 s): waits up to 20 ms for the server's
    /// descriptors, then serves the ready ones, as the event loop does.
    @discardableResult
    func serve(_ server: ControlServer, until done: () -> Bool, _ handle: (ControlRequest) -> ControlReply) -> [String] {
        var notes: [String] = []
        let deadline = Date().addingTimeInterval(30)
        repeat {
            notes += server.serve(ready: Self.wait(server.watched, timeoutMs: 20), handle)
        } while !done() && Date() < deadline
        XCTAssertTrue(done(), "the loop gave up after 30 s")
        return notes
    }

    func serve(_ server: ControlServer, turns: Int, _ handle: (ControlRequest) -> ControlReply) -> [String] {
        var left = turns
        return serve(server, until: { left -= 1; return left <= 0 }, handle)
    }

    static func wait(_ watched: [WatchedFD], timeoutMs: Int32) -> Set<Int32> {
        var fds = watched.map { pollfd(fd: $0.fd, events: Int16($0.readiness == .readable ? POLLIN : POLLOUT), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), timeoutMs) > 0 else { return [] }
        return Set(fds.filter { $0.revents != 0 }.map(\.fd))
    }
}

/// A client running on its own thread, as another tdl process would.
final class Background<Result: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let box = Locked<Result?>(nil)

    init(_ body: @escaping @Sendable () -> Result) {
        Thread { [box, done] in
            let result = body()
            box.withLock { $0 = result }
            done.signal()
        }.start()
    }

    var isDone: Bool { box.withLock { $0 } != nil }
    var result: Result? { box.withLock { $0 } }

    func wait() -> Result? {
        _ = done.wait(timeout: .now() + 30)
        return result
    }
}
