import Foundation
import XCTest
import TDLCore
import TDLTestSupport
@testable import TDLRPC
#if canImport(Glibc)
import Glibc
#endif

/// The server against real sockets. The test's own thread is the event loop: it runs the
/// server's jobs while clients on other threads wait for their answers.
final class RPCServerTests: XCTestCase {
    var fixture: RPCFixture!
    var server: RPCServer!

    func start(secret: String? = nil, allowedOrigins: [String] = [], limits: RPCServer.Limits = RPCServer.Limits()) throws {
        fixture = RPCFixture(secret: secret)
        var lastError: Error?
        for _ in 0..<10 {
            do {
                let port = Int.random(in: 20_000...60_000)
                server = try RPCServer(rpc: fixture.rpc, port: port, listenAll: false,
                                       access: RPCAccess(allowedOrigins: allowedOrigins, port: port), limits: limits)
                return
            } catch { lastError = error }
        }
        throw lastError!
    }

    override func tearDown() {
        server?.stop()
        server = nil
        fixture = nil
    }

    /// Runs `work` on another thread and turns the loop until it is done.
    func whileServing<T: Sendable>(timeout: Double = 10, _ work: @escaping @Sendable () -> T) -> T? {
        let result = Locked<T?>(nil)
        let done = Locked(false)
        DispatchQueue.global().async {
            result.set(work())
            done.set(true)
        }
        let end = Date().addingTimeInterval(timeout)
        while !done.get() && Date() < end {
            var fd = pollfd(fd: server.inbox.watched.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&fd, 1, 20)
            server.serve()
        }
        return result.get()
    }

    func post(_ body: String) -> (status: Int, headers: [String: String], body: Data)? { send(RawClient.post(body)) }

    /// One request as written, its response.
    func send(_ request: String) -> (status: Int, headers: [String: String], body: Data)? {
        let port = server.port
        return whileServing {
            guard let client = RawClient(port: port) else { return nil }
            client.send(request)
            return client.readResponse()
        } ?? nil
    }

    /// A web page of another origin (a text/plain POST needs no preflight, a WebSocket none
    /// either) or a name rebound to 127.0.0.1 is refused before anything is carried out,
    /// whether or not the page knows the secret.
    func testForeignOriginsAndNamesAreRefusedBeforeAnyCall() throws {
        for secret in [nil, "pw"] {
            try start(secret: secret)
            let add = #"{"jsonrpc":"2.0","id":1,"method":"aria2.addUri","params":["token:pw",["http://127.0.0.1:1/evil"]]}"#
            for request in [RawClient.post(add, origin: "http://evil.example", type: "text/plain"),
                            RawClient.post(add, origin: "null", type: "text/plain"),
                            RawClient.post(add, host: "evil.example:\(server.port)"),
                            "OPTIONS /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n"
                                + "Access-Control-Request-Method: POST\r\n\r\n"] {
                let response = try XCTUnwrap(send(request), request)
                XCTAssertEqual(response.status, 403, request)
                XCTAssertNil(response.headers["access-control-allow-origin"], request)
            }
            XCTAssertTrue(fixture.manager.allTasksSet.isEmpty, "nothing was added")
            let port = server.port
            let refused = whileServing { () -> String in
                guard let client = RawClient(port: port) else { return "" }
                client.send("GET /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            + "Origin: http://evil.example\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                return String(decoding: client.readToEnd().data, as: UTF8.self)
            } ?? ""
            XCTAssertTrue(refused.hasPrefix("HTTP/1.1 403"), refused)
            XCTAssertNil(whileServing { WSClient(port: port, origin: "http://evil.example") } ?? nil)
            server.stop()
        }
    }

    /// A page of an origin the user allowed is answered, with its own origin in
    /// Access-Control-Allow-Origin (never "*"); its preflight and WebSocket too.
    func testAnAllowedOriginGetsItsOwnOriginBack() throws {
        try start(allowedOrigins: ["http://127.0.0.1:9999"])
        let origin = "http://127.0.0.1:9999"
        let call = try XCTUnwrap(send(RawClient.post(#"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion"}"#, origin: origin, type: "text/plain")))
        XCTAssertEqual(call.status, 200)
        XCTAssertEqual(call.headers["access-control-allow-origin"], origin)
        XCTAssertEqual(try JSON.parse(call.body)["result"]?["version"]?.string, "test")
        let preflight = try XCTUnwrap(send("OPTIONS /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: \(origin)\r\n"
                                           + "Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n\r\n"))
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.headers["access-control-allow-origin"], origin)
        let port = server.port
        let socket = try XCTUnwrap(whileServing { WSClient(port: port, origin: origin) } ?? nil)
        XCTAssertTrue(socket.answerHead.contains("Access-Control-Allow-Origin: \(origin)"), socket.answerHead)
    }

    /// One call from this thread while the loop does not turn: only a call answered off the
    /// loop gets an answer (nil after `timeout`).
    func callWithoutTheLoop(_ method: String, _ params: [JSON] = [], timeout: Double = 3) -> JSON? {
        guard let client = RawClient(port: server.port, timeout: timeout) else { return nil }
        let call: JSON = ["jsonrpc": "2.0", "id": "r", "method": .string(method), "params": .array(params)]
        client.send(RawClient.post(call.text))
        return client.readResponse().flatMap { try? JSON.parse($0.body) }
    }

    /// One call answered by the loop (turned meanwhile): what changes a download.
    func callThroughTheLoop(_ method: String, _ params: [JSON] = []) -> JSON? {
        let call: JSON = ["jsonrpc": "2.0", "id": "w", "method": .string(method), "params": .array(params)]
        return post(call.text).flatMap { try? JSON.parse($0.body) }
    }

    func testReadsAreAnsweredWhileTheLoopIsBusyAndSeeEveryChangeAtOnce() throws {
        try start()
        let url = "http://127.0.0.1:1/read.bin"
        let gid = try XCTUnwrap(callThroughTheLoop("aria2.addUri", [[.string(url)]])?["result"]?.string)
        func status() -> String? { callWithoutTheLoop("aria2.tellStatus", [.string(gid), ["status"]])?["result"]?["status"]?.string }
        func completed() -> String? {
            callWithoutTheLoop("aria2.tellStatus", [.string(gid), ["completedLength"]])?["result"]?["completedLength"]?.string
        }
        // Read at once after the call that added it, with the loop not turning.
        XCTAssertEqual(status(), "active")
        XCTAssertEqual(callWithoutTheLoop("aria2.tellActive", [["gid"]])?["result"], [["gid": .string(gid)]])
        XCTAssertEqual(callWithoutTheLoop("aria2.getGlobalStat")?["result"]?["numActive"], "1")
        XCTAssertEqual(callWithoutTheLoop("aria2.getUris", [.string(gid)])?["result"]?.array?.first?["uri"]?.string, url)

        // Bytes of a running download are as new as the loop's last turn.
        fixture.engine.resolve(url, name: "read.bin", size: 1_000)
        var lengths: [String?] = [completed()]
        for bytes: Int64 in [300, 700] {
            fixture.engine.live[url] = bytes
            usleep(110_000)  // the manager samples live bytes at most every 0.1 s
            fixture.manager.tick()
            server.serve()
            lengths.append(completed())
        }
        XCTAssertEqual(lengths, ["0", "300", "700"])
        XCTAssertEqual(callWithoutTheLoop("aria2.getFiles", [.string(gid)])?["result"]?.array?.first?["length"], "1000")

        // Each call that changes the download is seen by the next read.
        _ = callThroughTheLoop("aria2.pause", [.string(gid)])
        XCTAssertEqual(status(), "paused")
        _ = callThroughTheLoop("aria2.unpause", [.string(gid)])
        XCTAssertEqual(status(), "active")
        // So is a change made on the loop by anything else (a key, another tdl command).
        fixture.manager.pauseTasks([url])
        XCTAssertEqual(status(), "paused")
        fixture.manager.resumeTasks([url])
        XCTAssertEqual(status(), "active")

        let path = (fixture.folder as NSString).appendingPathComponent("read.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: 1_000)))
        fixture.engine.finish(url, path: path, size: 1_000)
        XCTAssertEqual(status(), "complete")
        XCTAssertEqual(completed(), "1000")
        XCTAssertEqual(callWithoutTheLoop("aria2.tellActive")?["result"], [])

        // A finished download goes to the trash by tdl's own delete (aria2's remove refuses it).
        fixture.manager.deleteTasks([url])
        XCTAssertEqual(status(), "removed")
        _ = callThroughTheLoop("aria2.removeDownloadResult", [.string(gid)])
        // Forgotten: the read goes to the loop, which says so.
        XCTAssertNil(callWithoutTheLoop("aria2.tellStatus", [.string(gid)], timeout: 1))
        XCTAssertEqual(callThroughTheLoop("aria2.tellStatus", [.string(gid)])?["error"]?["message"], .string("GID \(gid) is not found"))
    }

    func testAReadWithAWrongTokenOrBadParametersGetsTheLoopsError() throws {
        try start(secret: "pw")
        let url = "http://127.0.0.1:1/t.bin"
        let gid = try XCTUnwrap(callThroughTheLoop("aria2.addUri", ["token:pw", [.string(url)]])?["result"]?.string)
        XCTAssertEqual(callWithoutTheLoop("aria2.tellStatus", ["token:pw", .string(gid), ["status"]])?["result"]?["status"], "active")
        XCTAssertEqual(callThroughTheLoop("aria2.tellStatus", ["token:no", .string(gid)])?["error"]?["message"], "Unauthorized")
        XCTAssertEqual(callThroughTheLoop("aria2.tellStatus", [.string(gid)])?["error"]?["message"], "Unauthorized")
        XCTAssertEqual(callThroughTheLoop("aria2.tellStatus", ["token:pw", .string(gid), "status"])?["error"]?["code"], 1)
        XCTAssertEqual(callThroughTheLoop("aria2.getServers", ["token:pw", "xyz"])?["error"]?["message"], "Invalid GID xyz")
    }

    func testACallOverHTTPIsAnsweredOnTheLoop() throws {
        try start()
        let response = try XCTUnwrap(post(#"{"jsonrpc":"2.0","id":"1","method":"aria2.addUri","params":[["http://127.0.0.1:1/h"]]}"#))
        XCTAssertEqual(response.status, 200)
        XCTAssertNil(response.headers["access-control-allow-origin"], "a call without Origin gets no CORS header")
        let answer = try JSON.parse(response.body)
        XCTAssertEqual(answer["result"]?.string, Aria2Terms.gid(of: "http://127.0.0.1:1/h"))
        XCTAssertNotNil(fixture.manager.task("http://127.0.0.1:1/h"))
        // Malformed JSON is -32700, with HTTP's own answer fine.
        let bad = try XCTUnwrap(post("{oops"))
        XCTAssertEqual(try JSON.parse(bad.body)["error"]?["code"]?.integer, -32700)
        // Keep-alive: two calls on one connection.
        let port = server.port
        let both = whileServing { () -> [Int] in
            guard let client = RawClient(port: port) else { return [] }
            var codes: [Int] = []
            for _ in 0..<2 {
                client.send(RawClient.post(#"{"jsonrpc":"2.0","id":1,"method":"system.listMethods"}"#))
                codes.append(client.readResponse()?.status ?? 0)
            }
            return codes
        }
        XCTAssertEqual(both, [200, 200])
    }

    func testTheTokenOverHTTP() throws {
        try start(secret: "pw")
        let refused = try XCTUnwrap(post(#"{"jsonrpc":"2.0","id":1,"method":"aria2.getGlobalStat","params":["token:no"]}"#))
        XCTAssertEqual(try JSON.parse(refused.body)["error"]?["message"], "Unauthorized")
        let allowed = try XCTUnwrap(post(#"{"jsonrpc":"2.0","id":1,"method":"aria2.getGlobalStat","params":["token:pw"]}"#))
        XCTAssertEqual(try JSON.parse(allowed.body)["result"]?["numActive"], "0")
    }

    func testABodyOverTheBoundIsRefusedWith413AndTheConnectionCloses() throws {
        var limits = RPCServer.Limits()
        limits.maxBody = 64 << 10
        try start(limits: limits)
        let port = server.port
        // Declared too large: refused before a byte of it is read.
        let declared = whileServing { () -> (Int, Bool) in
            guard let client = RawClient(port: port) else { return (0, false) }
            client.send("POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000000\r\n\r\n")
            client.send(Data(count: 10_000))
            let response = client.readResponse()
            return (response?.status ?? 0, client.readToEnd().closed)
        }
        XCTAssertEqual(declared?.0, 413)
        XCTAssertEqual(declared?.1, true)
        // Chunked, with no length said: refused once past the bound.
        let chunked = whileServing { () -> (Int, Bool) in
            guard let client = RawClient(port: port) else { return (0, false) }
            client.send("POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in 0..<20 { client.send("2000\r\n" + String(repeating: "a", count: 0x2000) + "\r\n") }
            let response = client.readResponse()
            return (response?.status ?? 0, client.readToEnd().closed)
        }
        XCTAssertEqual(chunked?.0, 413)
        XCTAssertEqual(chunked?.1, true)
    }

    func testASlowClientIsCutOffWhileOthersAreServed() throws {
        var limits = RPCServer.Limits()
        limits.secondsPerRequest = 1
        try start(limits: limits)
        let port = server.port
        let outcome = whileServing { () -> (closedAfter: Double, othersServed: Int) in
            guard let slow = RawClient(port: port, timeout: 5) else { return (-1, 0) }
            let started = Date()
            // Half a request, then a byte now and then: the limit is for the whole request.
            slow.send("POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            var served = 0
            DispatchQueue.global().async {
                for _ in 0..<5 {
                    slow.send("X")
                    usleep(150_000)
                }
            }
            for _ in 0..<5 {
                if let client = RawClient(port: port) {
                    client.send(RawClient.post(#"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion"}"#))
                    if client.readResponse()?.status == 200 { served += 1 }
                }
            }
            _ = slow.readToEnd()
            return (Date().timeIntervalSince(started), served)
        }
        XCTAssertEqual(outcome?.othersServed, 5)
        XCTAssertLessThan(outcome?.closedAfter ?? 99, 3, "cut off at the limit, not at the client's leisure")
        XCTAssertGreaterThan(outcome?.closedAfter ?? 0, 0.9)
    }

    /// A kept-alive client that pauses longer than a request may take, then sends its next
    /// request in two pieces, is answered; so is a new connection from a client port whose old
    /// connection closed (the limits were once kept by address and port and never cleared, so
    /// both were closed unanswered). A connection that sends nothing is closed when idle too long.
    func testAPausingKeptAliveClientAndAReusedClientPortAreAnswered() throws {
        var limits = RPCServer.Limits()
        limits.secondsPerRequest = 1
        limits.idleSeconds = 3
        try start(limits: limits)
        let port = server.port
        let call = RawClient.post(#"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion"}"#)
        let outcome = whileServing(timeout: 20) { () -> (statuses: [Int], idleClosedAfter: Double) in
            guard let client = RawClient(port: port) else { return ([], 0) }
            var statuses: [Int] = []
            client.sendInTwo(call)
            statuses.append(client.readResponse()?.status ?? 0)
            usleep(1_500_000)
            client.sendInTwo(call)
            statuses.append(client.readResponse()?.status ?? 0)
            let local = client.localPort
            client.reset()
            usleep(1_500_000)
            if let again = RawClient(port: port, localPort: local) {
                again.sendInTwo(call)
                statuses.append(again.readResponse()?.status ?? 0)
            }
            // Answered, then silent: closed once idle too long.
            guard let silent = RawClient(port: port, timeout: 10) else { return (statuses, 0) }
            silent.send(call)
            _ = silent.readResponse()
            let answered = Date()
            _ = silent.readToEnd()
            return (statuses, Date().timeIntervalSince(answered))
        }
        XCTAssertEqual(outcome?.statuses, [200, 200, 200])
        XCTAssertGreaterThan(outcome?.idleClosedAfter ?? 0, 2.5)
        XCTAssertLessThan(outcome?.idleClosedAfter ?? 99, 6)
    }

    /// aria2's GET form: `?method=…&id=…&params=BASE64`, JSONP with `jsoncallback`, a batch as
    /// `params` alone; past the same token, Host and Origin checks as a POST. Errors carry
    /// aria2's HTTP statuses. (GET without an Upgrade was a failed WebSocket handshake, 400.)
    func testACallOverGETAndJSONPAsAria2TakesThem() throws {
        try start(secret: "pw", allowedOrigins: ["http://ui.test:8080"])
        func get(_ query: String, headers: String = "") -> (status: Int, headers: [String: String], body: Data)? {
            send("GET /jsonrpc?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n")
        }
        func base64(_ json: JSON) -> String {
            json.serialized.base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        }
        let plain = try XCTUnwrap(get("method=aria2.getVersion&id=7&params=\(base64(["token:pw"]))"))
        XCTAssertEqual(plain.status, 200)
        XCTAssertEqual(try JSON.parse(plain.body)["id"], "7")
        XCTAssertEqual(try JSON.parse(plain.body)["result"]?["version"], "test")
        let jsonp = try XCTUnwrap(get("method=aria2.addUri&id=1&params=\(base64(["token:pw", ["http://127.0.0.1:1/g"]]))&jsoncallback=cb_1"))
        XCTAssertEqual(jsonp.status, 200)
        XCTAssertEqual(jsonp.headers["content-type"], "text/javascript")
        let text = String(decoding: jsonp.body, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("cb_1(") && text.hasSuffix(")"), text)
        XCTAssertNotNil(fixture.manager.task("http://127.0.0.1:1/g"))
        // A page's <script src> carries no Origin: the token is what refuses it.
        let script = try XCTUnwrap(get("method=aria2.addUri&id=1&params=\(base64([["http://127.0.0.1:1/evil"]]))&jsoncallback=cb"))
        XCTAssertEqual(script.status, 400)
        XCTAssertTrue(String(decoding: script.body, as: UTF8.self).contains("Unauthorized"))
        XCTAssertNil(fixture.manager.task("http://127.0.0.1:1/evil"))
        let batch = try XCTUnwrap(get("params=\(base64([["jsonrpc": "2.0", "id": 1, "method": "system.listMethods"]]))"))
        XCTAssertEqual(batch.status, 200)
        XCTAssertEqual(try JSON.parse(batch.body).array?.count, 1)
        // A callback that is not a name is refused; a foreign page or name as for a POST.
        XCTAssertEqual(get("method=aria2.getVersion&id=1&jsoncallback=alert(1)//")?.status, 400)
        XCTAssertEqual(get("method=aria2.getVersion&id=1&params=\(base64(["token:pw"]))", headers: "Origin: http://evil.example\r\n")?.status, 403)
        let allowed = try XCTUnwrap(get("method=aria2.getVersion&id=1&params=\(base64(["token:pw"]))", headers: "Origin: http://ui.test:8080\r\n"))
        XCTAssertEqual(allowed.status, 200)
        XCTAssertEqual(allowed.headers["access-control-allow-origin"], "http://ui.test:8080")
        // aria2's statuses: parse error 500, a method's error 400, an unknown method 400 (its error 1).
        XCTAssertEqual(post("{oops")?.status, 500)
        XCTAssertEqual(post(#"{"jsonrpc":"2.0","id":1,"method":"aria2.tellStatus","params":["token:pw","zz"]}"#)?.status, 400)
        XCTAssertEqual(post(#"{"jsonrpc":"2.0","id":1,"method":"aria2.nothing","params":["token:pw"]}"#)?.status, 400)
        // An empty batch is answered with an empty one.
        let empty = try XCTUnwrap(post("[]"))
        XCTAssertEqual(empty.status, 200)
        XCTAssertEqual(String(decoding: empty.body, as: UTF8.self), "[]")
    }

    func testFiveHundredConnectionsAtOnceEachGetTheirAnswer() throws {
        try start()
        let port = server.port
        let answered = whileServing(timeout: 30) { () -> Int in
            let clients = (0..<500).compactMap { _ in RawClient(port: port, timeout: 20) }
            for (n, client) in clients.enumerated() {
                client.send(RawClient.post(#"{"jsonrpc":"2.0","id":\#(n),"method":"aria2.getGlobalStat"}"#))
            }
            var good = 0
            for (n, client) in clients.enumerated() {
                if let response = client.readResponse(), response.status == 200,
                   let answer = try? JSON.parse(response.body), answer["id"]?.integer == n { good += 1 }
            }
            return good
        }
        XCTAssertEqual(answered, 500)
    }

    /// A WebSocket client hears the answer to its call before the notifications the call
    /// caused (an add's GID, then its start), as aria2 sends them.
    func testAWebSocketCallsAnswerComesBeforeTheNotificationsItCaused() throws {
        try start()
        let port = server.port
        let client = try XCTUnwrap(whileServing { WSClient(port: port) } ?? nil)
        let heard = whileServing { () -> [String] in
            client.sendText(#"{"jsonrpc":"2.0","id":"a","method":"aria2.addUri","params":[["http://127.0.0.1:1/order"]]}"#)
            return [client.receiveText() ?? "", client.receiveText() ?? ""]
        } ?? []
        XCTAssertEqual(try JSON.parse(heard.first ?? "")["id"], "a", "\(heard)")
        XCTAssertEqual(try JSON.parse(heard.last ?? "")["method"], "aria2.onDownloadStart", "\(heard)")
    }

    /// A WebSocket that only listens is not an idle HTTP connection: it stays open past the
    /// idle limit and is answered after it.
    func testAQuietWebSocketOutlivesTheIdleLimit() throws {
        var limits = RPCServer.Limits()
        limits.idleSeconds = 1
        try start(limits: limits)
        let port = server.port
        let answer = whileServing { () -> String? in
            guard let client = WSClient(port: port) else { return nil }
            usleep(2_000_000)
            client.sendText(#"{"jsonrpc":"2.0","id":"q","method":"aria2.getVersion"}"#)
            return client.receiveText()
        } ?? nil
        XCTAssertEqual(try JSON.parse(answer ?? "")["id"], "q", answer ?? "closed")
    }

    func testAWebSocketClientCallsAndHearsEachNotification() throws {
        try start()
        let port = server.port
        let url = "http://127.0.0.1:1/ws"
        // Connect and call first: once it answers, the client is listening.
        let client = try XCTUnwrap(whileServing { WSClient(port: port) } ?? nil)
        let version = whileServing { () -> String? in
            client.sendText(#"{"jsonrpc":"2.0","id":"v","method":"aria2.getVersion"}"#)
            return client.receiveText()
        } ?? nil
        XCTAssertEqual(try JSON.parse(version ?? "")["result"]?["version"]?.string, "test")
        fixture.manager.maxDownloadCount = 1
        _ = fixture.add(url)
        let gid = Aria2Terms.gid(of: url)
        _ = fixture.result("aria2.pause", [.string(gid)])
        _ = fixture.result("aria2.unpause", [.string(gid)])
        fixture.engine.fail(url, .timeout)
        XCTAssertEqual(fixture.errorCode("aria2.unpause", [.string(gid)]), 1, "a failed download is not paused")
        fixture.manager.resumeTasks([url])
        let path = (fixture.folder as NSString).appendingPathComponent("ws")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: 1)))
        fixture.engine.finish(url, path: path, size: 1)
        // A finished download goes to the trash by tdl's own delete (aria2's remove refuses it).
        fixture.manager.deleteTasks([url])
        let heard = whileServing { () -> [String] in
            var methods: [String] = []
            while methods.count < 7, let text = client.receiveText() {
                if let message = try? JSON.parse(text), message["params"]?.array?.first?["gid"]?.string == gid,
                   let method = message["method"]?.string {
                    methods.append(method)
                }
            }
            return methods
        }
        XCTAssertEqual(heard, ["aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStart", "aria2.onDownloadError",
                               "aria2.onDownloadStart", "aria2.onDownloadComplete", "aria2.onDownloadStop"])
    }
}
