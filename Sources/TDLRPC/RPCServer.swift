import FlyingFox
import FlyingSocks
import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// aria2's JSON-RPC over HTTP (`POST /jsonrpc`) and WebSocket (`GET /jsonrpc`, which also
/// carries the notifications), served by FlyingFox on its own threads. Those threads never
/// touch the manager: a call that only reads (`tellStatus` and the like, see `ReadOnlyCalls`)
/// is answered from the status the loop publishes (`StatusBoard`); any other is handed to the
/// event loop through a `LoopInbox` and the connection waits for the answer, which the loop
/// makes between transfers (`runJobs`).
///
/// What a client controls is bounded: a body is at most `maxBody` bytes (413 and the
/// connection closed), a request must arrive whole within `secondsPerRequest` (a connection's
/// first of its opening, a later one of its first bytes), a kept-alive connection waits at most
/// `idleSeconds` for its next request (aria2's 30 s), and a
/// WebSocket client that does not read its notifications loses the oldest, not the loop's memory.
/// Who may call at all is `RPCAccess`'s decision (Host and Origin), made before anything else.
/// A listener that fails (accept's EMFILE when descriptors run out) listens again after a rest.
///
/// The server itself belongs to the loop (made, served and stopped there); what its threads
/// share with it is `Sendable`: the inbox, the hub, the deadlines, the board, and the RPC in a
/// `LoopBound`.
public final class RPCServer {
    public struct Limits: Sendable {
        /// aria2's --rpc-max-request-size default.
        public var maxBody = 2 << 20
        public var secondsPerRequest: Double = 10
        /// How long a kept-alive connection may wait for its next request, as aria2.
        public var idleSeconds: Double = 30
        /// Notifications kept for a WebSocket client that does not read them.
        public var queuedNotifications = 1_000

        public init() {}
    }

    public let inbox: LoopInbox
    /// Used on the loop only, inside the inbox's jobs.
    public let rpc: Aria2RPC
    public let port: Int
    public let host: String
    public let access: RPCAccess
    let limits: Limits
    private let server: HTTPServer
    private let hub = SocketHub()
    private let deadlines: Deadlines
    private var notifier: Aria2Notifier?
    private var task: Task<Void, Error>?
    private let stopping = Locked(false)
    /// What went wrong with the listener since the last `takeProblems`.
    private let problems = Locked<[String]>([])
    /// Called on the loop for each notification (`tdl serve` logs them).
    public var onNotification: ((Aria2Notifier.Notification) -> Void)?

    /// Listens at once (a taken port throws here); serves from then on. `listenAll` binds every
    /// address instead of 127.0.0.1; the caller has checked that a secret is set then.
    public init(rpc: Aria2RPC, port: Int, listenAll: Bool, access: RPCAccess? = nil, limits: Limits = Limits()) throws {
        self.rpc = rpc
        self.limits = limits
        let access = access ?? RPCAccess(listenAll: listenAll, port: port)
        self.access = access
        host = listenAll ? "0.0.0.0" : "127.0.0.1"
        // Taken here, on the loop: the server's threads only call the engine's wake-up.
        let waker = rpc.manager.engine?.waker
        inbox = try LoopInbox(wake: { waker?() })
        deadlines = Deadlines(seconds: limits.secondsPerRequest, idleSeconds: limits.idleSeconds)
        guard (0...65_535).contains(port) else { throw RPCServerError("--rpc-listen-port must be between 1024 and 65535") }
        let address = try sockaddr_in.inet(ip4: host, port: UInt16(port))
        let pool = DeadlinePool(inner: .ePoll(), deadlines: deadlines)
        let config = HTTPServer.Configuration(address: address, timeout: limits.secondsPerRequest + 5,
                                              sharedRequestReplaySize: limits.maxBody, pool: pool, logger: .disabled)
        server = HTTPServer(config: config)
        let inbox = self.inbox, hub = self.hub, deadlines = self.deadlines, limits = self.limits
        let rpcBox = LoopBound(rpc)
        let readOnly = ReadOnlyCalls(board: rpc.statusBoard)
        // The loop only carries out the calls that need it: parsing the body and writing the
        // answer's bytes (1,000 status structs are 400 KB) happen on the server's threads, and
        // reads are answered there too, without waiting for the loop's turn.
        let answer: @Sendable (JSON?) async -> JSON = { request in
            guard let request else { return Aria2RPC.parseError }
            if let read = readOnly.answer(request: request) { return read }
            return await inbox.ask { rpcBox.value.answer(request: request) }
        }
        let started = DispatchSemaphore(value: 0)
        // Why the server did not start: its own error wins over the waiter's, which is only
        // cancelled (or timed out) because of it.
        let runFailure = Locked<Error?>(nil)
        let waitFailure = Locked<Error?>(nil)
        let listened = Locked(false)
        let server = self.server, stopping = self.stopping, problems = self.problems
        task = Task.detached {
            await server.appendRoute("POST /jsonrpc") { request in
                defer { deadlines.answered(request.remoteAddress) }
                let verdict = access.verdict(of: request)
                if case .refused(let why) = verdict { return RPCServer.refusal(why) }
                return await RPCServer.post(request, cors: verdict.allowOrigin, limits: limits, answer: answer)
            }
            await server.appendRoute("OPTIONS /jsonrpc") { request in
                defer { deadlines.answered(request.remoteAddress) }
                let verdict = access.verdict(of: request)
                if case .refused(let why) = verdict { return RPCServer.refusal(why) }
                var response = HTTPResponse(statusCode: .noContent, headers: RPCServer.corsHeaders(verdict.allowOrigin))
                response.headers[HTTPHeader("Access-Control-Allow-Methods")] = "POST, GET, OPTIONS"
                response.headers[HTTPHeader("Access-Control-Allow-Headers")] = "Content-Type"
                response.headers[HTTPHeader("Access-Control-Max-Age")] = "1728000"
                return response
            }
            await server.appendRoute("GET /jsonrpc", to: SocketUpgrade(
                upgrade: WebSocketHTTPHandler(handler: MessageFrameWSHandler(handler: RPCSocket(hub: hub, limits: limits, answer: answer))),
                deadlines: deadlines, access: access, answer: answer))
            await server.appendRoute("*") { request in
                defer { deadlines.answered(request.remoteAddress) }
                let verdict = access.verdict(of: request)
                if case .refused(let why) = verdict { return RPCServer.refusal(why) }
                return HTTPResponse(statusCode: .notFound, headers: RPCServer.corsHeaders(verdict.allowOrigin),
                                    body: Data("tdl answers aria2's JSON-RPC at /jsonrpc\n".utf8))
            }
            let waiter = Task {
                do {
                    try await server.waitUntilListening(timeout: 5)
                    listened.withLock { $0 = true }
                } catch { waitFailure.withLock { $0 = error } }
                started.signal()
            }
            // FlyingFox's accept loop ends at the first failed accept (EMFILE when a burst of
            // connections took every descriptor), closing the listener and its connections:
            // after a rest, it listens again, until `stop`.
            var rest: UInt64 = 100_000_000
            var told: Date?, untold = 0
            while true {
                let began = Date()
                do {
                    try await server.run()
                } catch {
                    if stopping.withLock({ $0 }) { return }
                    guard listened.withLock({ $0 }) else {
                        runFailure.withLock { $0 = error }
                        waiter.cancel()
                        started.signal()
                        return
                    }
                    // Told at most every 10 s: a sustained burst is one line, not ten a second.
                    untold += 1
                    if told.map({ Date().timeIntervalSince($0) > 10 }) ?? true {
                        let times = untold > 1 ? " (\(untold) times)" : ""
                        problems.withLock { $0.append("JSON-RPC stopped accepting connections\(times): \(RPCServer.describe(error)); listening again") }
                        told = Date()
                        untold = 0
                    }
                }
                if stopping.withLock({ $0 }) { return }
                // A listener that served a while rests briefly; one failing at once, longer.
                rest = Date().timeIntervalSince(began) > 5 ? 100_000_000 : min(rest * 2, 1_000_000_000)
                try? await Task.sleep(nanoseconds: rest)
            }
        }
        started.wait()
        self.port = port
        if let error = runFailure.withLock({ $0 }) ?? waitFailure.withLock({ $0 }) {
            task?.cancel()
            throw RPCServerError("cannot listen on \(host):\(port) for JSON-RPC: \(Self.describe(error))")
        }
        notifier = Aria2Notifier(manager: rpc.manager) { [weak self] notification in
            guard let self else { return }
            self.hub.broadcast(notification.message.text)
            self.onNotification?(notification)
        }
    }

    static func describe(_ error: Error) -> String {
        if let socket = error as? SocketError, case .failed(_, let errno, let message) = socket {
            return errno == EADDRINUSE ? "the port is in use" : message
        }
        return "\(error)"
    }

    /// What went wrong with the listener since the last call, and what calls told (for the
    /// loop to tell; called on the loop, as the calls are).
    public func takeProblems() -> [String] {
        let notes = rpc.notes
        rpc.notes = []
        return problems.withLock { taken in
            defer { taken = [] }
            return taken
        } + notes
    }

    /// What the loop waits on for this server.
    public var watched: [WatchedFD] { [inbox.watched] }

    /// On the loop, every turn: answers the calls that arrived, and publishes the running
    /// downloads' numbers for the calls answered off the loop.
    @discardableResult
    public func serve() -> Int {
        let answered = inbox.runJobs()
        rpc.publishLiveStatus()
        return answered
    }

    /// Stops listening and ends every connection; calls still waiting for the loop are answered
    /// first (a shutdown's "OK" reaches its client).
    public func stop() {
        stopping.withLock { $0 = true }
        serve()
        let server = self.server
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await server.stop(timeout: 0.5)
            done.signal()
        }
        _ = done.wait(timeout: .now() + 1)
        hub.finishAll()
        task?.cancel()
    }

    /// CORS headers for an allowed origin (none for a request without one).
    static func corsHeaders(_ allowOrigin: String?) -> HTTPHeaders {
        guard let allowOrigin else { return [:] }
        return [HTTPHeader("Access-Control-Allow-Origin"): allowOrigin, HTTPHeader("Vary"): "Origin"]
    }

    /// A request refused before anything of it is carried out; the connection closes, so
    /// its body is never read.
    static func refusal(_ why: String) -> HTTPResponse {
        var response = closing(.forbidden)
        response.headers[HTTPHeader("X-Tdl-Refused")] = why
        return response
    }

    /// One HTTP call: the body is read up to the bound, the loop answers.
    static func post(_ request: HTTPRequest, cors: String?, limits: Limits, answer: @Sendable (JSON?) async -> JSON) async -> HTTPResponse {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limits.maxBody {
            return closing(.payloadTooLarge, cors: cors)
        }
        var body = Data()
        do {
            for try await chunk in request.bodySequence {
                body.append(chunk)
                if body.count > limits.maxBody { return closing(.payloadTooLarge, cors: cors) }
            }
        } catch {
            return closing(.requestTimeout, cors: cors)
        }
        let answered = await answer(Aria2RPC.request(body))
        return reply(answered.serialized, status: status(of: answered), contentType: "application/json-rpc", cors: cors)
    }

    /// A call over GET (`RPCGetCall`), JSONP with a callback.
    static func get(_ request: HTTPRequest, cors: String?, answer: @Sendable (JSON?) async -> JSON) async -> HTTPResponse {
        guard let call = RPCGetCall(query: request.target.query()) else { return closing(.badRequest, cors: cors) }
        let answered = await answer(call.request)
        return reply(call.wrap(answered.serialized), status: status(of: answered), contentType: call.contentType, cors: cors)
    }

    /// aria2's HTTP status for an answer: 200 for a result or a batch; for an error, 400 for
    /// a failed call (code 1) or an invalid request, 404 for an unknown method, else 500.
    static func status(of answer: JSON) -> HTTPStatusCode {
        guard let code = answer["error"]?["code"]?.integer else { return .ok }
        switch code {
        case 1, -32600: return .badRequest
        case -32601: return .notFound
        default: return .internalServerError
        }
    }

    static func reply(_ body: Data, status: HTTPStatusCode, contentType: String, cors: String?) -> HTTPResponse {
        // In one write: FlyingFox sends a body 4 KiB a write unless told otherwise.
        var response = HTTPResponse(statusCode: status, headers: corsHeaders(cors),
                                    body: HTTPBodySequence(data: body, suggestedBufferSize: max(4096, body.count)))
        response.headers[.contentType] = contentType
        return response
    }

    /// An answer after which the connection closes: FlyingFox ends a connection once it has
    /// written the head of a response that hands the socket over, so the unread rest of a
    /// request too large is never read.
    static func closing(_ status: HTTPStatusCode, cors: String? = nil) -> HTTPResponse {
        var response = HTTPResponse(headers: corsHeaders(cors), webSocket: Hangup())
        response.statusCode = status
        response.headers[.connection] = "close"
        response.headers[.contentLength] = "0"
        return response
    }
}

/// The "protocol" after a closing answer: nothing, at once.
struct Hangup: WSHandler {
    func makeFrames(for client: AsyncThrowingStream<WSFrame, any Error>) async throws -> AsyncStream<WSFrame> {
        AsyncStream { $0.finish() }
    }
}

/// GET /jsonrpc: a WebSocket, only for a page whose origin the user allowed (browsers send no
/// preflight for one); its connection is exempt from the per-request time limit. Without an
/// `Upgrade`, a call as aria2 takes one over GET, past the same checks.
struct SocketUpgrade: HTTPHandler {
    let upgrade: WebSocketHTTPHandler
    let deadlines: Deadlines
    let access: RPCAccess
    let answer: @Sendable (JSON?) async -> JSON

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let verdict = access.verdict(of: request)
        if case .refused(let why) = verdict {
            deadlines.answered(request.remoteAddress)
            return RPCServer.refusal(why)
        }
        guard request.headers[HTTPHeader("Upgrade")]?.lowercased() == "websocket" else {
            defer { deadlines.answered(request.remoteAddress) }
            return await RPCServer.get(request, cors: verdict.allowOrigin, answer: answer)
        }
        let response = try await upgrade.handleRequest(request)
        if response.statusCode == .switchingProtocols {
            deadlines.exempt(request.remoteAddress)
        } else {
            deadlines.answered(request.remoteAddress)
        }
        var answered = response
        for (name, value) in RPCServer.corsHeaders(verdict.allowOrigin) { answered.headers[name] = value }
        return answered
    }
}

extension RPCAccess {
    func verdict(of request: HTTPRequest) -> Verdict {
        verdict(host: request.headers[.host], origin: request.headers[HTTPHeader("Origin")])
    }
}

extension RPCAccess.Verdict {
    var allowOrigin: String? {
        if case .allowed(let origin) = self { return origin }
        return nil
    }
}
