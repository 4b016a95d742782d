import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// The listening side, owned by the tdl that holds the session's lock. It is served on the
/// event loop between transfers and never waits there: the listening socket and every
/// connection are non-blocking, and the loop wakes for the descriptors `watched` names.
/// Everything a client controls is bounded: how many connect at once, how large a request
/// is, how long sending it and taking the reply may last. A slow client costs a descriptor,
/// never the loop's time.
public final class ControlServer {
    /// Connections served at once; a newcomer beyond them is refused at once.
    static let maxConnections = 256
    /// An input file of many URLs comes as one request.
    static let maxRequestBytes = 64 << 20
    static let secondsToSendRequest: TimeInterval = 5
    /// A status reply on 100,000 tasks is some 20 MB.
    static let secondsToTakeReply: TimeInterval = 10

    let path: String
    let fd: Int32
    private var connections: [Int32: ControlConnection] = [:]

    /// The caller holds the session's lock, so a leftover socket file is stale.
    public init(home: String, session: String) throws {
        path = ControlSocket.path(home: home, session: session)
        guard let address = ControlSocket.address(path) else {
            throw ControlSocketError("the tdl home path is too long for a socket: \(path)")
        }
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw ControlSocketError("cannot create the control socket: \(String(cString: strerror(errno)))") }
        // Owner-only from the first moment: the umask applies to bind's file.
        let oldMask = umask(0o077)
        let bound = ControlSocket.withSockaddr(address) { bind(fd, $0, $1) }
        umask(oldMask)
        // A burst of clients waits in the backlog for the next turn instead of being turned away.
        guard bound == 0, listen(fd, SOMAXCONN) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ControlSocketError("cannot listen on \(path): \(reason)")
        }
        chmod(path, 0o600)
    }

    /// What the loop waits for this turn: newcomers, and for each connection its request or
    /// room for its reply.
    public var watched: [WatchedFD] {
        let listening = acceptPausedUntil.map { Date() >= $0 } ?? true
        return (listening ? [.reading(fd)] : []) + connections.values.map(\.watched)
    }

    /// Set when no descriptor was left to accept a newcomer: the listening socket stays
    /// readable, and watching it would turn the loop without rest until a descriptor frees.
    private var acceptPausedUntil: Date?

    /// Runs on every turn of the loop with the turn's ready descriptors: serves the
    /// connections that are ready, drops those done or past their deadline, then accepts
    /// newcomers. Returns one line per request that changed something, for the screen.
    public func serve(ready: Set<Int32>, _ handle: (ControlRequest) -> ControlReply) -> [String] {
        var notes: [String] = []
        let now = Date()
        for connection in Array(connections.values) {
            if ready.contains(connection.fd), let note = serve(connection, now: now, handle) { notes.append(note) }
            if connection.isFinished || now > connection.deadline {
                close(connection.fd)
                connections[connection.fd] = nil
            }
        }
        if ready.contains(fd) { acceptWaiting(now: now) }
        return notes
    }

    /// Moves one ready connection on: reads its request, carries it out once whole, or sends
    /// more of its reply. Returns the reply's note.
    private func serve(_ connection: ControlConnection, now: Date, _ handle: (ControlRequest) -> ControlReply) -> String? {
        if connection.isReplying {
            connection.sendReply()
            return nil
        }
        let reply: ControlReply
        switch connection.receive() {
        case .partial, .gone:
            return nil
        case .tooLarge:
            reply = ControlReply(problems: ["the request is larger than \(Self.maxRequestBytes >> 20) MiB"], status: ExitStatus.badInput)
        case .whole(let line):
            if let request = try? JSONDecoder().decode(ControlRequest.self, from: line) {
                reply = handle(request)
            } else {
                reply = ControlReply(problems: ["unreadable request"], status: ExitStatus.badInput)
            }
        }
        connection.startReply(ControlReply.encodedLine(reply), deadline: now.addingTimeInterval(Self.secondsToTakeReply))
        return reply.note
    }

    private func acceptWaiting(now: Date) {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE { acceptPausedUntil = now.addingTimeInterval(0.1) }
                return  // none waits, or no descriptor is left until a connection ends
            }
            acceptPausedUntil = nil
            // accept4, which would set both at once, is not in Swift's Glibc.
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            guard connections.count < Self.maxConnections else {
                // A fresh socket's buffer takes this short line whole, without waiting.
                let busy = ControlReply(refusal: "the running tdl is serving \(Self.maxConnections) other commands; try again")
                _ = ControlSocket.writeAll(client, ControlReply.encodedLine(busy))
                close(client)
                continue
            }
            connections[client] = ControlConnection(fd: client, deadline: now.addingTimeInterval(Self.secondsToSendRequest))
        }
    }

    /// Stops listening, ends every connection and removes the socket file; before exit(),
    /// which runs no deinit.
    public func shutDown() {
        guard !isShutDown else { return }
        isShutDown = true
        for client in connections.keys { close(client) }
        connections = [:]
        close(fd)
        unlink(path)
    }

    private var isShutDown = false

    deinit { shutDown() }
}

/// Why the control socket cannot be opened; the command that runs the session ends with it.
public struct ControlSocketError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) { self.description = description }
}

/// One client of the control socket on a non-blocking descriptor: its request as it
/// arrives, then its reply as the client takes it, each within a deadline.
final class ControlConnection {
    enum Arrival {
        case partial
        /// The request's line (without its newline).
        case whole(Data)
        case tooLarge
        /// Closed without a request.
        case gone
    }

    let fd: Int32
    private(set) var deadline: Date
    /// The reply is out, or the client is gone.
    private(set) var isFinished = false
    private var request = Data()
    private var reply: Data?
    private var replySent = 0

    init(fd: Int32, deadline: Date) {
        self.fd = fd
        self.deadline = deadline
    }

    var isReplying: Bool { reply != nil }

    /// Waiting for the request, or for room for the reply.
    var watched: WatchedFD { isReplying ? .writing(fd) : .reading(fd) }

    /// Reads what has arrived, without waiting. The request is whole at its newline, or when
    /// the client closes its side after sending it.
    func receive() -> Arrival {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN { return .partial }
            if n <= 0 {
                guard !request.isEmpty else {
                    isFinished = true
                    return .gone
                }
                return .whole(request)
            }
            let chunk = buffer[0 ..< n]
            let newline = chunk.firstIndex(of: UInt8(ascii: "\n"))
            request.append(contentsOf: chunk[..<(newline ?? n)])
            // The bound holds for the chunk that ends the request too.
            if request.count > ControlServer.maxRequestBytes { return .tooLarge }
            if newline != nil { return .whole(request) }
        }
    }

    /// Sends as much of `line` as the socket takes now; the rest goes as the client reads.
    func startReply(_ line: Data, deadline: Date) {
        request = Data()
        reply = line
        self.deadline = deadline
        sendReply()
    }

    /// Sends what the socket takes now, without waiting.
    func sendReply() {
        guard let reply else { return }
        reply.withUnsafeBytes { raw in
            while replySent < raw.count {
                let n = send(fd, raw.baseAddress! + replySent, raw.count - replySent, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                if n < 0 && errno == EAGAIN { return }
                if n <= 0 { break }  // the client is gone
                replySent += n
            }
            isFinished = true
        }
    }
}
