import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// Runs the session's hooks as downloads end. The command is split on spaces into a program
/// and its first arguments, then the file path and the URL are added: no shell ever sees the
/// URL or the server's file name. Hooks run beside tdl; finished ones are reaped as we go.
public final class HookRunner {
    let manager: DownloadManager
    /// Under the full-screen list a hook's output would land on the screen: it goes nowhere.
    public var silenceOutput = false
    /// This run's hooks (a config file's), over the session's and never saved: removed from
    /// the file, the session's own hold again.
    public var runOnComplete: String?
    public var runOnError: String?
    /// Hooks started and not yet reaped, with the program and the download they run for.
    private var running: [pid_t: (program: String, url: String)] = [:]
    /// Hooks that could not start or ended badly, until `takeProblems` says them.
    private var problems: [String] = []

    public init(manager: DownloadManager) {
        self.manager = manager
        manager.observe { [weak self] event in self?.handle(event) }
    }

    func handle(_ event: ManagerEvent) {
        reapFinished()
        switch event {
        case let .taskSucceeded(url, path):
            if let command = runOnComplete ?? manager.settings.onComplete { spawn(command, [path, url], environment: [:], for: url) }
        case let .taskFailed(url, reason):
            if let command = runOnError ?? manager.settings.onError {
                spawn(command, [manager.task(url)?.filePath ?? "", url], environment: ["TDL_ERROR": reason.message], for: url)
            }
        default:
            break
        }
    }

    func spawn(_ command: String, _ arguments: [String], environment extra: [String: String], for url: String) {
        let words = command.split(separator: " ").map(String.init)
        guard let program = words.first else { return }
        let argv = words + arguments
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in extra { environment[key] = value }
        let envp = environment.map { "\($0.key)=\($0.value)" }
        // A hook never reads the keyboard; its output goes to tdl's own, unless silenced.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if silenceOutput {
            for fd: Int32 in [1, 2] { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0) }
        }
        // tdl ignores SIGXFSZ (a file-size limit fails a download instead) and SIGPIPE (a closed
        // pipe ends only its output); a hook gets the defaults.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGXFSZ)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let status = withCStrings(argv) { cArgv in
            withCStrings(envp) { cEnvp in posix_spawnp(&pid, program, &actions, &attributes, cArgv, cEnvp) }
        }
        if status == 0 {
            running[pid] = (program, url)
        } else {
            // On the task (its details and `tdl list`), and in the messages (`takeProblems`).
            let why = "could not run \(program): \(String(cString: strerror(status)))"
            manager.addNote(why, toTask: url)
            problems.append("hook for \(ScreenSafe.url(url)): \(why)")
        }
    }

    /// Hooks that could not start or exited with a failure since the last call, in words,
    /// for the screen's messages or stderr. Reaps those that ended.
    public func takeProblems() -> [String] {
        reapFinished()
        defer { problems = [] }
        return problems
    }

    /// Waits up to `seconds` for the hooks still running (a `tdl get` says how its hooks
    /// ended before it exits); true when none is left.
    public func waitForRunning(upTo seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !running.isEmpty && Date() < deadline {
            reapFinished()
            if !running.isEmpty { usleep(20_000) }
        }
        return running.isEmpty
    }

    /// Collects hooks that have exited so none lingers as a zombie; other children are not ours.
    /// One that exited non-zero or was killed is a problem to tell.
    func reapFinished() {
        var status: Int32 = 0
        for (pid, hook) in running where waitpid(pid, &status, WNOHANG) == pid {
            running[pid] = nil
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
            let signal = status & 0x7F, code = (status >> 8) & 0xFF
            if signal != 0 {
                problems.append("hook for \(ScreenSafe.url(hook.url)): \(hook.program) was killed by signal \(signal)")
            } else if code != 0 {
                problems.append("hook for \(ScreenSafe.url(hook.url)): \(hook.program) exited with status \(code)")
            }
        }
    }

    deinit { reapFinished() }
}

/// A NULL-terminated C array of C strings, alive for the duration of `body`.
func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
    var pointers = strings.map { strdup($0) }
    pointers.append(nil)
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
