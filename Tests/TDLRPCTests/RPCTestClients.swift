import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client on 127.0.0.1, blocking, with a receive timeout. Only its descriptor is
/// kept, so threads may share it.
final class RawClient: Sendable {
    let fd: Int32

    init?(port: Int, timeout: Double = 5, localPort: Int? = nil) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let localPort {
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_port = in_port_t(UInt16(localPort).bigEndian)
            local.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound != 0 {
                close(fd)
                return nil
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected != 0 {
            close(fd)
            return nil
        }
    }

    /// Set by `reset`, which closes the descriptor itself; guarded by its lock.
    private let closed = Locked(false)

    deinit { if !closed.withLock({ $0 }) { close(fd) } }

    /// The client's own port.
    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Closes with a reset, so no TIME_WAIT keeps the client's port: it can be used again at once.
    func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
        closed.withLock { $0 = true }
    }

    /// A request in two writes a moment apart, as Python's http.client sends head and body.
    func sendInTwo(_ request: String) {
        let bytes = Array(request.utf8)
        send(Data(bytes[..<(bytes.count / 2)]))
        usleep(200_000)
        send(Data(bytes[(bytes.count / 2)...]))
    }

    @discardableResult
    func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { return false }
                sent += n
            }
            return true
        }
    }

    func send(_ text: String) { send(Data(text.utf8)) }

    /// What arrives until the peer closes (or the timeout). A close with unread bytes of ours
    /// on the peer's side is a reset.
    func readToEnd() -> (data: Data, closed: Bool) {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { return (data, true) }
            if n < 0 { return (data, errno == ECONNRESET) }
            data.append(contentsOf: buffer[0..<n])
        }
    }

    /// One HTTP response: its status, headers and body (by Content-Length).
    func readResponse() -> (status: Int, headers: [String: String], body: Data)? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let end = data.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                let status = Int(head[0].split(separator: " ")[1]) ?? 0
                var headers: [String: String] = [:]
                for line in head.dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                while data.count - end.upperBound < length {
                    let n = recv(fd, &buffer, buffer.count, 0)
                    if n <= 0 { return nil }
                    data.append(contentsOf: buffer[0..<n])
                }
                return (status, headers, Data(data[end.upperBound ..< end.upperBound + length]))
            }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            data.append(contentsOf: buffer[0..<n])
        }
    }

    static func post(_ body: String, path: String = "/jsonrpc", host: String = "127.0.0.1", origin: String? = nil,
                     type: String = "application/json") -> String {
        "POST \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: \(type)\r\n" + (origin.map { "Origin: \($0)\r\n" } ?? "")
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }
}

/// A minimal WebSocket client: the handshake, masked text frames out, text frames in. A test
/// hands it from thread to thread; the bytes read past a message are guarded by a lock.
final class WSClient: Sendable {
    let raw: RawClient
    private let pending = Locked(Data())

    /// The head of the server's answer to the handshake.
    let answerHead: String

    init?(port: Int, origin: String? = nil) {
        guard let raw = RawClient(port: port) else { return nil }
        self.raw = raw
        raw.send("GET /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 + (origin.map { "Origin: \($0)\r\n" } ?? "")
                 + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        // The 101 head, byte by byte, so no frame is read past it.
        var head = Data()
        var byte: UInt8 = 0
        while !head.hasSuffix(Data("\r\n\r\n".utf8)) {
            guard recv(raw.fd, &byte, 1, 0) == 1 else { return nil }
            head.append(byte)
        }
        let answerHead = String(decoding: head, as: UTF8.self)
        self.answerHead = answerHead
        guard answerHead.hasPrefix("HTTP/1.1 101") else { return nil }
    }

    func sendText(_ text: String) {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask: [UInt8] = [1, 2, 3, 4]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        raw.send(Data(frame))
    }

    /// The next text message, or nil at the timeout or the close.
    func receiveText() -> String? {
        pending.withLock { receiveText(pending: &$0) }
    }

    private func receiveText(pending: inout Data) -> String? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if pending.count >= 2 {
                let bytes = [UInt8](pending)
                var length = Int(bytes[1] & 0x7F), offset = 2
                if length == 126, bytes.count >= 4 { length = Int(bytes[2]) << 8 | Int(bytes[3]); offset = 4 }
                if length == 127, bytes.count >= 10 { length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }; offset = 10 }
                if bytes.count >= offset + length {
                    let opcode = bytes[0] & 0x0F
                    let payload = Data(bytes[offset ..< offset + length])
                    pending = Data(bytes[(offset + length)...])
                    if opcode == 0x1 { return String(decoding: payload, as: UTF8.self) }
                    if opcode == 0x8 { return nil }
                    continue
                }
            }
            let n = recv(raw.fd, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            pending.append(contentsOf: buffer[0..<n])
        }
    }
}

extension Data {
    func hasSuffix(_ suffix: Data) -> Bool { count >= suffix.count && self[(count - suffix.count)...] == suffix }
}
