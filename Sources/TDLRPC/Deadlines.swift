import FlyingFox
import FlyingSocks
import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// How long each open connection may keep the server waiting: a new connection's first
/// request must be whole within `seconds` of its first wait; after an answer, a kept-alive
/// connection waits at most `idleSeconds` for its next request (aria2's 30 s), which must then
/// be whole within `seconds` of its first bytes; a WebSocket has no limit.
///
/// The state belongs to one connection: it is found by descriptor and checked against the
/// socket's inode, so a descriptor or a client port reused by a new connection starts afresh
/// (state kept by address and port once closed a reused port's split request unanswered), and
/// the table holds at most one entry per descriptor. A handler knows only the peer's address,
/// so the peer names its connection while that connection lives.
/// `state` is the only mutable part; its mutex guards it, taken by every method for its whole run.
final class Deadlines: Sendable {
    enum Phase: Equatable, Sendable {
        case idle(until: Date)
        case request(until: Date)
        case exempt
    }

    private struct Connection {
        let inode: UInt64
        let peer: String
        var phase: Phase
    }

    private struct State {
        var byDescriptor: [Int32: Connection] = [:]
        var descriptorOfPeer: [String: Int32] = [:]
        /// Connections answered (or upgraded) before they ever waited, their request read at once:
        /// the phase their first wait takes, if it comes within seconds.
        var pending: [String: (phase: Phase, at: Date)] = [:]

        mutating func forget(_ descriptor: Int32) {
            guard let old = byDescriptor.removeValue(forKey: descriptor) else { return }
            if descriptorOfPeer[old.peer] == descriptor { descriptorOfPeer[old.peer] = nil }
        }
    }

    private let state = Locked(State())
    let seconds: Double
    let idleSeconds: Double

    init(seconds: Double, idleSeconds: Double) {
        self.seconds = seconds
        self.idleSeconds = idleSeconds
    }

    static func key(_ address: HTTPRequest.Address?) -> String? {
        switch address {
        case let .ip4(ip, port)?: return "\(ip):\(port)"
        case let .ip6(ip, port)?: return "[\(ip)]:\(port)"
        default: return nil
        }
    }

    static func key(_ address: Socket.Address) -> String? { key(HTTPRequest.Address.make(from: address)) }

    /// The phase of the connection on `descriptor` about to wait for bytes.
    func phase(descriptor: Int32, inode: UInt64, peer: String) -> Phase {
        let seconds = self.seconds
        return state.withLock { s in
            if let known = s.byDescriptor[descriptor], known.inode == inode { return known.phase }
            s.forget(descriptor)
            // A new connection's first request may already be partly read (its bytes came before
            // the first wait), so its clock runs from this first wait.
            var phase: Phase = .request(until: Date().addingTimeInterval(seconds))
            if let early = s.pending.removeValue(forKey: peer), -early.at.timeIntervalSinceNow < 5 { phase = early.phase }
            let fresh = Connection(inode: inode, peer: peer, phase: phase)
            s.byDescriptor[descriptor] = fresh
            s.descriptorOfPeer[peer] = descriptor
            return fresh.phase
        }
    }

    /// Bytes arrived: an idle connection has begun a request, whose clock starts now.
    func bytesArrived(descriptor: Int32, inode: UInt64) {
        let seconds = self.seconds
        state.withLock { s in
            guard var known = s.byDescriptor[descriptor], known.inode == inode, case .idle = known.phase else { return }
            known.phase = .request(until: Date().addingTimeInterval(seconds))
            s.byDescriptor[descriptor] = known
        }
    }

    /// The wait ran out: the connection is being closed.
    func expired(descriptor: Int32, inode: UInt64) {
        state.withLock { s in
            if s.byDescriptor[descriptor]?.inode == inode { s.forget(descriptor) }
        }
    }

    /// The peer's request is answered: its connection waits for the next one.
    func answered(_ address: HTTPRequest.Address?) {
        set(address, .idle(until: Date().addingTimeInterval(idleSeconds)))
    }

    /// The peer's connection became a WebSocket.
    func exempt(_ address: HTTPRequest.Address?) { set(address, .exempt) }

    private func set(_ address: HTTPRequest.Address?, _ phase: Phase) {
        guard let peer = Self.key(address) else { return }
        state.withLock { s in
            // The peer's entry may be of its closed connection (a reused port): live only while its
            // descriptor is still that socket.
            guard let descriptor = s.descriptorOfPeer[peer], let known = s.byDescriptor[descriptor], known.peer == peer,
                  Self.inode(of: descriptor) == known.inode else {
                // Answered and closed at once (a client that makes one call a connection): such
                // entries are never taken, so they go once stale.
                if s.pending.count > 1_024 { s.pending = s.pending.filter { -$0.value.at.timeIntervalSinceNow < 5 } }
                s.pending[peer] = (phase, Date())
                return
            }
            s.byDescriptor[descriptor]?.phase = phase
        }
    }

    static func inode(of descriptor: Int32) -> UInt64? {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? UInt64(status.st_ino) : nil
    }

    /// How many connections are tracked (at most one per descriptor).
    var count: Int {
        state.withLock { $0.byDescriptor.count }
    }
}

/// FlyingFox's epoll pool, with the connections' time limits: a connection waiting to read past
/// its limit fails that read, and FlyingFox closes it. The listening socket and WebSockets
/// wait without a limit.
struct DeadlinePool: AsyncSocketPool {
    let inner: SocketPool<ePoll>
    let deadlines: Deadlines

    func prepare() async throws { try await inner.prepare() }
    func run() async throws { try await inner.run() }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        guard events.contains(.read), let peer = try? socket.remotePeer() else {
            // The listening socket: the connections it accepts inherit TCP_NODELAY. FlyingFox
            // writes an answer's head and body apart, and Nagle's algorithm would hold the
            // body until the client's delayed ACK (40 ms a call on a kept-alive connection).
            var on: Int32 = 1
            _ = setsockopt(socket.file.rawValue, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            return try await inner.suspendSocket(socket, untilReadyFor: events)
        }
        let descriptor = socket.file.rawValue
        guard let key = Deadlines.key(peer), let inode = Deadlines.inode(of: descriptor) else {
            return try await inner.suspendSocket(socket, untilReadyFor: events)
        }
        let deadline: Date
        switch deadlines.phase(descriptor: descriptor, inode: inode, peer: key) {
        case .exempt: return try await inner.suspendSocket(socket, untilReadyFor: events)
        case .idle(let until), .request(let until): deadline = until
        }
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else {
            deadlines.expired(descriptor: descriptor, inode: inode)
            throw SocketError.disconnected
        }
        let inner = self.inner
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await inner.suspendSocket(socket, untilReadyFor: events)
                return true
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(left * 1e9))
                return false
            }
            let ready = try await group.next() ?? false
            group.cancelAll()
            guard ready else {
                deadlines.expired(descriptor: descriptor, inode: inode)
                throw SocketError.disconnected
            }
        }
        deadlines.bytesArrived(descriptor: descriptor, inode: inode)
    }
}
