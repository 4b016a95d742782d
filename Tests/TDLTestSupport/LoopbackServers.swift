import Foundation

/// nginx from Debian's packages, serving a folder of the test's own on 127.0.0.1.
public final class LoopbackNginx: Sendable {
    public let port: Int
    public let root: String
    public let isTLS: Bool
    private let process: Process
    private let workDir: TemporaryDirectory

    /// `rateLimit` caps each connection (nginx's limit_rate), e.g. "40m". With a `certificate`
    /// it serves HTTPS (HTTP/2 offered through ALPN) and logs each request's protocol.
    public init(root: String, rateLimit: String? = nil, certificate: SelfSignedCertificate? = nil) throws {
        guard let nginx = Processes.which("nginx") else { throw ServerError.missing("nginx (install nginx-light; the test command does)") }
        let workDir = TemporaryDirectory("tdl-nginx")
        self.workDir = workDir
        self.root = root
        isTLS = certificate != nil
        let tls = certificate.map {
            "ssl_certificate \($0.certificatePath); ssl_certificate_key \($0.keyPath); access_log \(workDir.path)/access.log protocol;"
        } ?? ""
        // nginx's workers drop to an unprivileged user: the folder must be readable by them.
        chmod(root, 0o755)
        var lastError: Error = ServerError.missing("a free port")
        for _ in 0..<20 {
            let candidate = Int.random(in: 20_000...60_000)
            let config = """
                daemon off;
                worker_processes 1;
                pid \(workDir.path)/nginx.pid;
                error_log \(workDir.path)/error.log;
                events { worker_connections 256; }
                http {
                    access_log off;
                    sendfile on;
                    client_body_temp_path \(workDir.path);
                    proxy_temp_path \(workDir.path);
                    fastcgi_temp_path \(workDir.path);
                    uwsgi_temp_path \(workDir.path);
                    scgi_temp_path \(workDir.path);
                    types { application/octet-stream bin; application/zip zip; }
                    log_format protocol '$server_protocol $status $request_uri';
                    server {
                        listen 127.0.0.1:\(candidate)\(certificate != nil ? " ssl http2" : "");
                        root \(root);
                        \(tls)
                        \(rateLimit.map { "limit_rate \($0);" } ?? "")
                    }
                }
                """
            let configPath = workDir.file("nginx.conf")
            try config.write(toFile: configPath, atomically: true, encoding: .utf8)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: nginx)
            p.arguments = ["-p", workDir.path, "-c", configPath, "-e", workDir.file("error.log")]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            // The pid file says this nginx listens: a port another server holds also accepts a
            // connection while nginx retries its bind() for seconds before giving up.
            let listening = { FileManager.default.fileExists(atPath: workDir.file("nginx.pid")) && Self.canConnect(candidate) }
            if Processes.waitUntil(timeout: 5, { listening() || !p.isRunning }), p.isRunning, listening() {
                process = p
                port = candidate
                return
            }
            p.terminate()
            lastError = ServerError.failed("nginx did not start: " + ((try? String(contentsOfFile: workDir.file("error.log"), encoding: .utf8)) ?? ""))
        }
        throw lastError
    }

    public func url(_ path: String) -> String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)/\(path)" }

    /// "HTTP/2.0 200 /file" per request (TLS servers only).
    public var accessLog: String {
        (try? String(contentsOfFile: workDir.file("access.log"), encoding: .utf8)) ?? ""
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }

    /// Something listens on this port of 127.0.0.1.
    public static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// The project's own programmable fault server (Tests/Support/fault_server.py).
public final class FaultServer: Sendable {
    public let port: Int
    private let process: Process

    public init() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Processes.which("python3") ?? "/usr/bin/python3")
        p.arguments = [Processes.packageRoot + "/Tests/Support/fault_server.py", "--port", "0"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let port = Int(text.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            p.terminate()
            throw ServerError.failed("fault server did not start: \(text)")
        }
        self.port = port
        process = p
    }

    /// `/file/NAME?size=…&seed=…` plus fault knobs (see fault_server.py).
    public func url(_ pathAndQuery: String) -> String { "http://127.0.0.1:\(port)\(pathAndQuery)" }

    /// The SHA-256 of `/file/NAME?size=…&seed=…` as sent (`gzip`: with `gzip=1`, compressed).
    public func sha256(name: String, size: Int, seed: Int, gzip: Bool = false) throws -> String {
        try fetch("/sha256/\(name)?size=\(size)&seed=\(seed)\(gzip ? "&gzip=1" : "")").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The SHA-256 of a file whose seed is text: `"7.v2"` is seed 7's second version (`swap_after`).
    public func sha256(name: String, size: Int, seed: String) throws -> String {
        try fetch("/sha256/\(name)?size=\(size)&seed=\(seed)").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Total body bytes the server sent since the last reset.
    public func bodyBytesSent() throws -> Int {
        try stats()["body_bytes"] as? Int ?? -1
    }

    /// Requests relayed in proxy mode since the last reset.
    public func proxiedRequests() throws -> Int {
        try stats()["proxied"] as? Int ?? -1
    }

    /// Requests for `path` (no query), and how many of them carried an Authorization header.
    public func requests(to path: String) throws -> (total: Int, authorized: Int) {
        let entry = (try stats()["per_path"] as? [String: Any])?[path] as? [String: Any]
        return (entry?["requests"] as? Int ?? 0, entry?["authorization"] as? Int ?? 0)
    }

    /// How many requests for `path` carried the header `name` (any case).
    public func requests(to path: String, carrying name: String) throws -> Int {
        let entry = (try stats()["per_path"] as? [String: Any])?[path] as? [String: Any]
        return (entry?["headers"] as? [String: Any])?[name.lowercased()] as? Int ?? 0
    }

    /// The names of the cookies requests for `path` carried.
    public func cookieNames(sentTo path: String) throws -> [String] {
        let entry = (try stats()["per_path"] as? [String: Any])?[path] as? [String: Any]
        return entry?["cookies"] as? [String] ?? []
    }

    /// The most TCP connections open at once, and the most /file answers sent at once, since
    /// the last reset.
    public func mostAtOnce() throws -> (connections: Int, answers: Int) {
        let s = try stats()
        return (s["max_connections"] as? Int ?? -1, s["max_in_flight"] as? Int ?? -1)
    }

    func stats() throws -> [String: Any] {
        let json = try fetch("/stats")
        return try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
    }

    public func reset() throws { _ = try fetch("/reset") }

    /// Sends at full speed from now on, whatever the `rate=` (answers under way too), until
    /// `throttle()` or `reset()`: for the part of a test that only waits for downloads to end.
    public func unthrottle() throws { _ = try fetch("/unthrottle") }

    /// Obeys `rate=` again.
    public func throttle() throws { _ = try fetch("/throttle") }

    func fetch(_ path: String) throws -> String {
        try Processes.run(Processes.which("curl") ?? "/usr/bin/curl", ["-s", url(path)]).stdout
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }
}

/// A port on 127.0.0.1 where nothing listens, so a connection is refused at once: one the
/// system just handed out and that was closed again (safer than assuming port 9 is free).
public enum RefusingPort {
    public static func make() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 ? getsockname(fd, pointer, &length) : -1
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

public enum ServerError: Error, CustomStringConvertible {
    case missing(String)
    case failed(String)
    public var description: String {
        switch self {
        case .missing(let what): return "missing \(what)"
        case .failed(let why): return why
        }
    }
}

/// Files with known content for nginx to serve.
public enum TestFiles {
    /// Writes `size` pseudo-random bytes (deterministic for a seed) and returns the path.
    @discardableResult
    public static func make(_ path: String, size: Int, seed: UInt64 = 1) throws -> String {
        var state = seed &* 0x9E3779B97F4A7C15 | 1
        var data = Data(count: size)
        data.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for i in 0..<words.count {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                words[i] = state
            }
            for i in (words.count * 8)..<size { raw[i] = UInt8(truncatingIfNeeded: i) }
        }
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }
}
