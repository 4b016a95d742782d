import Foundation
import TDLCore

/// Runs programs for tests: the real tdl binary, nginx, tmux, the fault server.
public enum Processes {
    /// The package's root folder, found from this file's place in the tree.
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// This process's environment with a config folder that holds no tdl.conf: a test never
    /// reads the user's own config file unless it gives its own XDG_CONFIG_HOME.
    public static var baseEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["XDG_CONFIG_HOME": "/nonexistent/tdl-test-config"]) { $1 }
    }

    /// The tdl binary built by `swift build` (the test command builds it first).
    public static var tdlBinary: String {
        let env = ProcessInfo.processInfo.environment
        if let path = env["TDL_BINARY"] { return path }
        for configuration in ["debug", "release"] {
            let path = packageRoot + "/.build/\(configuration)/tdl"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return packageRoot + "/.build/debug/tdl"
    }

    public struct Result {
        /// The exit status; 128 + the signal's number for a program killed by a signal, as a
        /// shell says it (a crash must not pass for an exit status).
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// Runs to completion (or kills it after `timeout` seconds).
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                           stdin: String? = nil, timeout: Double = 60) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = baseEnvironment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        // Woken by the exit itself: a poll of `isRunning` added up to its interval to every
        // program a test runs (tdl, sha256sum, curl for the fault server's answers).
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        let outData = Locked(Data()), errData = Locked(Data())
        let group = DispatchGroup()
        for (pipe, box) in [(out, outData), (err, errData)] {
            group.enter()
            DispatchQueue.global().async {
                box.set(pipe.fileHandleForReading.readDataToEndOfFile())
                group.leave()
            }
        }
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            if exited.wait(timeout: .now() + 0.2) == .timedOut { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        group.wait()
        let killed = process.terminationReason == .uncaughtSignal
        return Result(status: process.terminationStatus + (killed ? 128 : 0),
                      stdout: String(decoding: outData.get(), as: UTF8.self),
                      stderr: String(decoding: errData.get(), as: UTF8.self))
    }

    /// Starts a program in the background, as another terminal would run it: its output goes
    /// nowhere, its stderr into the returned pipe (read it after the program ended).
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = baseEnvironment.merging(environment) { $1 }
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, stderr)
    }

    /// Runs tdl with a home and download folder of the test's own.
    @discardableResult
    public static func tdl(_ arguments: [String], home: String, environment: [String: String] = [:],
                           stdin: String? = nil, timeout: Double = 120) throws -> Result {
        var env = environment
        env["TDL_HOME"] = home
        return try run(tdlBinary, arguments, environment: env, stdin: stdin, timeout: timeout)
    }

    /// Starts a program that leaves a daemon behind (tmux new-session) and waits for it.
    /// Foundation's Process notices an exit through a descriptor the child inherits, which the
    /// daemon would keep open forever; posix_spawn with stdio on /dev/null and waitpid does not.
    @discardableResult
    public static func spawnDetached(_ executable: String, _ arguments: [String]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status
    }

    /// Starts a program with stdio on /dev/null, lets it run for `seconds`, then kills it
    /// with SIGKILL (a crash, or `kill -9`, at that moment). Returns its wait status.
    @discardableResult
    public static func runAndKill(_ executable: String, _ arguments: [String], environment: [String: String],
                                  after seconds: Double) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var env = baseEnvironment
        for (k, v) in environment { env[k] = v }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, argv, envp) == 0 else { return -1 }
        usleep(UInt32(seconds * 1_000_000))
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status
    }

    /// The first program of that name on PATH (or the usual sbin folders, where nginx lives).
    public static func which(_ name: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/sbin:/sbin:/usr/local/sbin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    public static func sha256(ofFile path: String) throws -> String {
        let result = try run(which("sha256sum") ?? "/usr/bin/sha256sum", [path])
        return String(result.stdout.prefix(64))
    }

    /// Polls `condition` until it holds or `timeout` passes.
    public static func waitUntil(timeout: Double, interval: Double = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(UInt32(interval * 1_000_000))
        }
        return try condition()
    }
}

/// Reading or replacing a shared value whole, as the tests do (`Locked` is the project's lock).
public extension Locked {
    func get() -> Value { withLock { $0 } }
    func set(_ newValue: Value) { withLock { $0 = newValue } }
}

/// A fresh folder under /tmp, removed when the test object goes away, or at the latest when
/// the test process exits: XCTest keeps every test case object, and a test class's static
/// sites are never released (they hold files of up to 48 MB).
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ prefix: String = "tdl-test") {
        let template = NSTemporaryDirectory() + "\(prefix)-XXXXXX"
        var bytes = Array(template.utf8CString)
        path = bytes.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        _ = Self.removeLeftoversAtExit
        Self.leftovers.set(Self.leftovers.get().union([path]))
    }

    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
        Self.leftovers.set(Self.leftovers.get().subtracting([path]))
    }

    private static let leftovers = Locked(Set<String>())
    private static let removeLeftoversAtExit: Void = {
        atexit {
            for path in TemporaryDirectory.leftovers.get() { try? FileManager.default.removeItem(atPath: path) }
        }
    }()
}
