import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The Unix socket through which other tdl commands reach the tdl that runs a session
/// (`<home>/<session>.sock`, owner only). One request per connection: a JSON line in, a JSON
/// line out. Only the holder of the session's lock listens, so a socket file found without a
/// lock holder belongs to a dead process and may be removed.
public enum ControlSocket {
    public static func path(home: String, session: String) -> String {
        (home as NSString).appendingPathComponent("\(session).sock")
    }

    /// sockaddr_un holds at most 107 bytes of path.
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        return address
    }

    static func withSockaddr<T>(_ address: sockaddr_un, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var copy = address
        return withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Reads until a newline or end of input (at most 64 MiB), giving up at `deadline`: a peer
    /// that trickles bytes cannot hold the reader longer than that.
    static func readLine(_ fd: Int32, deadline: Date) -> Data? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while data.count < 64 << 20 {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(left * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n <= 0 { break }
            data.append(contentsOf: buffer[0 ..< n])
            if buffer[0 ..< n].contains(UInt8(ascii: "\n")) { break }
        }
        return data.isEmpty ? nil : data
    }

    static func writeAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }

    /// A send timeout, so a peer that stops reading cannot hang the other side.
    static func setSendTimeout(_ fd: Int32, seconds: Int) {
        var time = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }
}

/// The asking side: `tdl add`, `pause`, `list`… while another tdl runs the session.
public enum ControlClient {
    public enum Outcome: Sendable {
        case answered(ControlReply)
        /// Nobody listens (no socket file, or one left by a dead process).
        case nobodyListens
        case failed(String)
    }

    /// Whether a tdl runs the session now.
    public static func isListening(home: String, session: String) -> Bool {
        withConnection(ControlSocket.path(home: home, session: session), otherwise: { _ in false }) { _ in true }
    }

    public static func send(_ request: ControlRequest, home: String, session: String) -> Outcome {
        let path = ControlSocket.path(home: home, session: session)
        return withConnection(path, otherwise: { $0 }) { fd in exchange(request, fd: fd, path: path) }
    }

    /// Runs `body` with a socket connected to `path` (closed afterwards), or `otherwise` with
    /// why there is none: nobody listens, or the socket could not be used.
    static func withConnection<T>(_ path: String, otherwise: (Outcome) -> T, _ body: (Int32) -> T) -> T {
        guard let address = ControlSocket.address(path) else { return otherwise(.nobodyListens) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return otherwise(.failed("cannot create a socket: \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        if ControlSocket.withSockaddr(address, { connect(fd, $0, $1) }) != 0 {
            if errno == ENOENT || errno == ECONNREFUSED { return otherwise(.nobodyListens) }
            return otherwise(.failed("cannot reach the running tdl at \(path): \(String(cString: strerror(errno)))"))
        }
        return body(fd)
    }

    /// One request out, one reply in.
    static func exchange(_ request: ControlRequest, fd: Int32, path: String) -> Outcome {
        // A busy loop answers between transfers; a 1 GiB finish never blocks it for long.
        ControlSocket.setSendTimeout(fd, seconds: 10)
        let body = (try? JSONEncoder().encode(request)) ?? Data()
        let sent = ControlSocket.writeAll(fd, body + Data("\n".utf8))
        // A refusal is sent on accepting and the connection closed, maybe before the request
        // went out; a request over the size bound is answered and closed before its end is
        // read. Either answer is there to read even when sending failed.
        let reply = ControlSocket.readLine(fd, deadline: Date().addingTimeInterval(sent ? 10 : 1))
            .flatMap { try? JSONDecoder().decode(ControlReply.self, from: $0) }
        if let refusal = reply?.refusal { return .failed(refusal) }
        if let reply { return .answered(reply) }
        guard sent else { return .failed("the running tdl did not take the request") }
        return .failed("the running tdl (\(path)) did not answer within 10 s; the request may still be carried out")
    }
}
