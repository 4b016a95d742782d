import Foundation
import TDLCore

/// What one tdl command asks of a session: the same request is carried out by the running
/// tdl (through the control socket) or, when none runs, on the saved session.
public struct ControlRequest: Codable, Sendable {
    public enum Command: String, Codable, Sendable {
        case add, pause, resume, stop, restart, remove, purge, status
        case queue  // `queueChange` says what
    }

    public var command: Command
    /// The URLs, each with the options an `add` gives it (the other commands read only URLs).
    public var items: [DownloadRequest]
    /// Every download the command can act on, instead of `items` (pause and resume).
    public var all: Bool?
    /// For `queue`, see `QueueChange`.
    public var queueChange: QueueChange?

    public init(command: Command, items: [DownloadRequest]) {
        self.command = command
        self.items = items
    }

    public init(command: Command, urls: [String], all: Bool = false) {
        self.init(command: command, items: urls.map { DownloadRequest(url: $0) })
        self.all = all ? true : nil
    }
}

/// What the command prints and how it exits.
public struct ControlReply: Codable, Sendable {
    public var lines: [String] = []
    public var problems: [String] = []
    public var status: Int32 = ExitStatus.ok
    /// For `status`: the live state of the tasks asked about (the active ones when none named).
    public var tasks: [TaskStatus]?
    /// One line for the running tdl's own screen ("added 2 URLs from another tdl").
    public var note: String?
    /// Why the running tdl did not take the request at all (it serves too many others): the
    /// asking command fails with it instead of reading an empty answer.
    public var refusal: String?

    static func encodedLine(_ reply: ControlReply) -> Data {
        ((try? JSONEncoder().encode(reply)) ?? Data("{}".utf8)) + Data("\n".utf8)
    }
}

/// One task as `tdl list --json` and a waiting `tdl get` see it.
public struct TaskStatus: Codable, Sendable {
    public var url: String
    public var state: String
    public var received: Int64
    public var size: Int64?
    public var speed: Int64
    public var error: String?
    public var path: String
}

/// Carries out requests on a manager: the running tdl's (live) or a saved session's.
public enum ControlActions {
    /// Taken (`consuming`): an `add` lets go of its requests once the manager has them, before
    /// the commit, which a million of them (184 bytes each) made the moment of most memory.
    /// The reply comes after a durable point: a failed save is in it (exit 5).
    public static func perform(_ request: consuming ControlRequest, on saver: SessionSaver) -> ControlReply {
        if request.command == .add {
            let items = request.items
            request.items = []
            return add(items, on: saver)
        }
        if request.command == .queue { return queue(request.queueChange ?? .list, on: saver) }
        let manager = saver.manager
        var reply = ControlReply()
        _ = manager.takeDeleteFailures()
        // Spelled as the session spells it (see `URLIdentity`), as `add` does.
        var urls = request.items.map { URLIdentity.normalized($0.url) }
        if request.all == true {
            urls += everyTask(request.command, in: manager)
            if urls.isEmpty {
                reply.problems.append("nothing to \(request.command.rawValue): no download in the list can change")
                reply.status = ExitStatus.downloadFailed
            }
        }
        let unknown = urls.filter { manager.task($0) == nil }
        for url in unknown {
            reply.problems.append("not in the session: \(ScreenSafe.url(url))")
            reply.status = ExitStatus.badInput
        }
        let known = urls.filter { manager.task($0) != nil }
        func report(_ verb: String, _ changed: [String]) {
            let changedSet = Set(changed)
            for url in known {
                if changedSet.contains(url) {
                    reply.lines.append("\(verb) \(ScreenSafe.url(url))")
                } else {
                    reply.lines.append("unchanged (\(stateWord(manager, url))) \(ScreenSafe.url(url))")
                    // Asked for and not done: a script must not read it as done.
                    if reply.status == ExitStatus.ok { reply.status = ExitStatus.downloadFailed }
                }
            }
            if !changed.isEmpty { reply.note = "\(verb) \(countOf(changed.count)) from another tdl" }
        }
        switch request.command {
        case .add, .queue:
            break  // answered above
        case .pause:
            report("paused", manager.pauseTasks(known))
        case .resume:
            report("resumed", manager.resumeTasks(known, queueIfFull: true))
        case .stop:
            report("stopped", manager.stopTasks(known))
        case .restart:
            report("restarted", manager.restartTasks(known))
        case .remove:
            report("moved to the trash", Array(manager.deleteTasks(known).keys))
        case .purge:
            report("deleted for good", manager.purgeTasks(known))
        case .status:
            // Unnamed: the waiting and downloading ones, the only states a saved session may not
            // show as they are (and a short answer even in a list of 100,000).
            let asked = urls.isEmpty ? manager.unfinishedList.filter { manager.state(of: $0)?.isActive == true } : known
            reply.tasks = asked.compactMap { status(of: $0, in: manager) }
        }
        // A file that could not be deleted left its task as it was ("unchanged" above): say why.
        for failure in manager.takeDeleteFailures() {
            reply.problems.append(ScreenSafe.clean(failure.message))
            if reply.status == ExitStatus.ok { reply.status = ExitStatus.downloadFailed }
        }
        if let saveError = saver.durablePoint() {
            reply.problems.append(saveError)
            reply.status = ExitStatus.session
        }
        return reply
    }

    /// Adds the requests; reports each added URL, and each one the session had already. The
    /// rows are committed before the reply is made: a million reply lines do not wait in memory
    /// beside the commit, and none says "added" before it is saved.
    static func add(_ items: consuming [DownloadRequest], on saver: SessionSaver) -> ControlReply {
        let manager = saver.manager
        var reply = ControlReply()
        let result = manager.add(items)
        items = []
        let saveError = saver.durablePoint()
        for r in result.rejected + result.notApplied {
            reply.problems.append(problemLine(r))
            reply.status = ExitStatus.badInput
        }
        reply.lines.reserveCapacity(result.added.count + result.duplicates.count)
        // Not one "added" without the commit that adds.
        if saveError == nil { for url in result.added { reply.lines.append(addedLine(url)) } }
        for again in result.duplicates { reply.lines.append(existingLine(again)) }
        if !result.added.isEmpty { reply.note = "added \(countOf(result.added.count)) from another tdl" }
        if let saveError {
            reply.problems.append(saveError)
            if !result.added.isEmpty { reply.problems.append("\(countOf(result.added.count)) not added: the session could not be saved") }
            reply.status = ExitStatus.session
        }
        return reply
    }

    /// The lines of an add's reply: a URL added, one the session had (and what asking for it
    /// again did), one that could not be added or whose options could not apply (and why).
    public static func addedLine(_ url: String) -> String { "added \(ScreenSafe.url(url))" }
    public static func existingLine(_ again: AddResult.Rejection) -> String { "\(again.reason): \(ScreenSafe.url(again.url))" }
    public static func problemLine(_ problem: AddResult.Rejection) -> String { "\(ScreenSafe.url(problem.url)): \(problem.reason)" }

    /// What `--all` means for a command: the listed downloads it can change.
    static func everyTask(_ command: ControlRequest.Command, in manager: DownloadManager) -> [String] {
        let states: Set<TaskState>
        switch command {
        case .pause: states = [.waiting, .downloading]
        case .resume: states = [.paused, .stopped, .failed]
        default: return []
        }
        // The oldest first, as the screen's R and the waiting queue start them: the first
        // free slot goes to the download asked for first.
        return manager.unfinishedList.reversed().filter { manager.state(of: $0).map(states.contains) == true }
    }

    public static func status(of url: String, in manager: DownloadManager) -> TaskStatus? {
        manager.task(url).map { status(of: $0, in: manager) }
    }

    public static func status(of task: DownloadTask, in manager: DownloadManager) -> TaskStatus {
        status(of: task, activity: manager.activity[task.url])
    }

    /// A task's status from its live numbers (`ListSnapshot.activity`): callable off the loop.
    public static func status(of task: DownloadTask, activity live: TaskActivity?) -> TaskStatus {
        let url = task.url
        let activity = task.state == .downloading ? live : nil
        // In the trash nothing runs, whatever state it keeps for a restore.
        let word = task.deletedAt != nil && task.state.isActive ? "in the trash" : ListStateWord.word(task.state)
        return TaskStatus(url: url, state: word, received: activity?.received ?? task.received,
                          size: task.size, speed: activity?.speed ?? 0, error: task.failReason?.message, path: task.filePath)
    }

    static func stateWord(_ manager: DownloadManager, _ url: String) -> String {
        manager.state(of: url).map(ListStateWord.word) ?? "unknown"
    }

    static func countOf(_ n: Int) -> String { n == 1 ? "1 download" : "\(n) downloads" }
}
