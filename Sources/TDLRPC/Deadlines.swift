import FlyingFox
import FlyingSocks
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// When each connection's current request must be whole, by the peer's address: set when the
/// connection is first seen waiting to read, moved on when its answer is made, none for a
/// WebSocket.
final class Deadlines: @unchecked Sendable {
    private let lock = NSLock()
    private var byPeer: [String: Date?] = [:]
    let seconds: Double

    init(seconds: Double) { self.seconds = seconds }

    static func key(_ address: HTTPRequest.Address?) -> String? {
        switch address {
        case let .ip4(ip, port)?: return "\(ip):\(port)"
        case let .ip6(ip, port)?: return "[\(ip)]:\(port)"
        default: return nil
        }
    }

    static func key(_ address: Socket.Address) -> String? { key(HTTPRequest.Address.make(from: address)) }

    /// The deadline of a connection waiting to read (nil: none), set when first seen.
    func deadline(for peer: String) -> Date? {
        lock.lock(); defer { lock.unlock() }
        if let known = byPeer[peer] { return known }
        let deadline = Date().addingTimeInterval(seconds)
        if byPeer.count > 4_096 {  // forget connections long gone
            let cutoff = Date().addingTimeInterval(-60)
            byPeer = byPeer.filter { $0.value.map { $0 > cutoff } ?? true }
        }
        byPeer[peer] = deadline
        return deadline
    }

    func restart(_ address: HTTPRequest.Address?) {
        guard let peer = Self.key(address) else { return }
        lock.lock(); defer { lock.unlock() }
        byPeer[peer] = Date().addingTimeInterval(seconds)
    }

    func exempt(_ address: HTTPRequest.Address?) {
        guard let peer = Self.key(address) else { return }
        lock.lock(); defer { lock.unlock() }
        byPeer[peer] = .some(nil)
    }
}

/// FlyingFox's epoll pool, with the per-request time limit: a connection waiting to read past
/// its deadline fails that read, and FlyingFox closes it. The listening socket and WebSockets
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
        guard let key = Deadlines.key(peer), let deadline = deadlines.deadline(for: key) else {
            return try await inner.suspendSocket(socket, untilReadyFor: events)
        }
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else { throw SocketError.disconnected }
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
            if !ready { throw SocketError.disconnected }
        }
    }
}
