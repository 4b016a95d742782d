import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// `tdl get` while another tdl runs the session: the URLs go to that tdl, which downloads
/// them; this one waits, reports each file as it ends, and exits as if it had downloaded them.
/// Nothing is written twice: only the running tdl touches the session and the files.
public struct HandOver: Sendable {
    /// Why the hand-over ends before its files do.
    public enum Stop: Error, Equatable, Sendable {
        /// Nobody listens on the session's socket, though its lock is held: a tdl is starting
        /// or ending there.
        case nobodyListens
        /// The running tdl quit before the files were done: run this command again, now as the
        /// one that downloads; what arrived so far is kept.
        case runningTdlQuit
        /// The running tdl could not be asked, or did not answer.
        case failed(String)
        /// SIGINT, SIGTERM or SIGHUP: this command stops waiting; the running tdl goes on.
        case interrupted
    }

    public let home: String
    public let session: String
    public let items: [DownloadRequest]
    /// Also wait for every download the running tdl has waiting or under way.
    public let all: Bool
    public let quiet: Bool
    /// Time between two status requests.
    var pollIntervalMs = 300

    public init(home: String, session: String, items: [DownloadRequest], all: Bool, quiet: Bool) {
        self.home = home
        self.session = session
        self.items = items
        self.all = all
        self.quiet = quiet
    }

    /// Hands the items over and waits for them; `say` gets each line for the user. Returns the
    /// exit status, as if this command had downloaded the files.
    public func run(say: (String) -> Void) throws -> Int32 {
        var handedOver = false
        func ask(_ request: ControlRequest) throws -> ControlReply {
            switch ControlClient.send(request, home: home, session: session) {
            case .answered(let reply): return reply
            case .nobodyListens: throw handedOver ? Stop.runningTdlQuit : Stop.nobodyListens
            case .failed(let why): throw Stop.failed(why)
            }
        }
        var problems: [String] = []
        if !items.isEmpty {
            let added = try ask(ControlRequest(command: .add, items: items))
            problems += added.problems
            _ = try ask(ControlRequest(command: .resume, items: items))
        }
        handedOver = true
        problems.forEach(say)
        if !quiet { say("the session \"\(session)\" runs in another tdl: it downloads, this one waits") }
        var urls = items.map(\.url)
        if all {
            let everything = try ask(ControlRequest(command: .status, items: [])).tasks ?? []
            urls += everything.filter { $0.state == "waiting" || $0.state == "downloading" }.map(\.url)
        }
        let wanted = urls.map { DownloadRequest(url: $0) }
        if wanted.isEmpty { return problems.isEmpty ? ExitStatus.ok : ExitStatus.badInput }
        var reported = Set<String>()
        var failed = false
        var waiting = true
        let loop = SessionLoop(manager: nil, timeoutMs: pollIntervalMs)
        try loop.run(while: { waiting }) { _ in
            let tasks = try ask(ControlRequest(command: .status, items: wanted)).tasks ?? []
            for task in tasks where !reported.contains(task.url) {
                if task.state == "done" {
                    reported.insert(task.url)
                    if !quiet { say("done: \(task.path)") }
                } else if task.state != "waiting" && task.state != "downloading" {
                    reported.insert(task.url)
                    failed = true
                    say("\(ScreenSafe.url(task.url)): \(task.error ?? task.state)")
                }
            }
            waiting = !tasks.allSatisfy { reported.contains($0.url) }
        }
        if loop.interruption != nil { throw Stop.interrupted }
        if failed { return ExitStatus.downloadFailed }
        return problems.isEmpty ? ExitStatus.ok : ExitStatus.badInput
    }
}
