import Foundation

/// An FTP server (Debian's python3-pyftpdlib, Tests/Support/ftp_server.py) serving a folder
/// of the test's own read-only to anonymous users on 127.0.0.1.
public final class LoopbackFTP: Sendable {
    public let port: Int
    private let process: Process
    private let logPath: String
    private let workDir = TemporaryDirectory("tdl-ftp")

    /// `rate` caps each download in bytes per second (a slow server).
    public init(root: String, rate: Int? = nil) throws {
        logPath = workDir.file("ftp.log")
        // Debian's python, which has the package: a python3 first on PATH may not.
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw ServerError.missing("/usr/bin/python3 (install python3)") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [Processes.packageRoot + "/Tests/Support/ftp_server.py", "--root", root, "--log", logPath]
            + (rate.map { ["--rate", String($0)] } ?? [])
        let out = Pipe()
        let errorPath = workDir.file("stderr")
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        p.standardOutput = out
        p.standardError = FileHandle(forWritingAtPath: errorPath)
        try p.run()
        let line = String(decoding: out.fileHandleForReading.readLine(), as: UTF8.self)
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            p.waitUntilExit()
            let why = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw ServerError.failed("the FTP server did not start: \(why.isEmpty ? line : why)")
        }
        self.port = port
        process = p
    }

    public func url(_ path: String) -> String { "ftp://127.0.0.1:\(port)/\(path)" }

    /// The offsets of resumed downloads (REST commands) so far.
    public var resumeOffsets: [Int64] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { Int64($0.split(separator: " ").last ?? "") }
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }
}

extension FileHandle {
    /// Bytes up to (not including) the next newline, or to the end.
    func readLine() -> Data {
        var line = Data()
        while true {
            let byte = readData(ofLength: 1)
            if byte.isEmpty || byte.first == UInt8(ascii: "\n") { return line }
            line.append(byte)
        }
    }
}
