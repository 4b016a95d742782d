/// A task's place in its life as the rules see it: its saved state, with a download whose
/// bytes are all in (being made durable and renamed into place) told apart as finishing.
public enum Phase: String, CaseIterable, Sendable {
    case waiting, downloading, finishing, paused, stopped, finished, failed

    init(_ state: TaskState, finishing: Bool) {
        switch state {
        case .waiting: self = .waiting
        case .downloading: self = finishing ? .finishing : .downloading
        case .paused: self = .paused
        case .stopped: self = .stopped
        case .finished: self = .finished
        case .failed: self = .failed
        }
    }

    /// What the session file keeps: finishing is still downloading until the rename is done.
    var state: TaskState {
        switch self {
        case .waiting: return .waiting
        case .downloading, .finishing: return .downloading
        case .paused: return .paused
        case .stopped: return .stopped
        case .finished: return .finished
        case .failed: return .failed
        }
    }
}

/// Everything that moves a task: a person (keys, commands, another tdl), the scheduler, the
/// engine, a launch, or a file found changed on disk. The raw value is how docs/design.md's table
/// names it.
public enum LifecycleEvent: String, CaseIterable, Sendable {
    case start = "start (a slot is free)"
    case queue = "resume without a free slot, or with no tdl downloading"
    case pause
    case stop
    case restart
    case optionsChanging = "new options for a running download (then start)"
    case deleteFiles = "delete files"
    case limitLowered = "limit lowered (the newest over it)"
    case trash = "move to the trash"
    case restore = "restore from the trash"
    case purge = "delete for good"
    case allBytesIn = "all bytes in"
    case checkFailedRetrying = "checksum failed, retrying"
    case transferFinished = "transfer finished"
    case transferFailed = "transfer failed"
    case relaunchAfterCleanQuit = "launch after a clean quit"
    case relaunchAfterCrash = "launch after a crash"
    case relaunchAfterCrashWaiting = "launch after a crash, --interrupted wait"
    case foundFinishedOnDisk = "launch finds the file renamed into place"
    case readWithoutDownloading = "read by a tdl that does not download"
    case askedAgainFileWrong = "asked for again, finished file missing or changed"
}

/// What a move does beside changing the state. Every move also saves the task and tells the
/// observers (`taskChanged`); the engine's outcomes also report success or failure.
public struct LifecycleEffects: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The engine disconnects; the durable bytes stay for a resume.
    public static let stopTransfer = LifecycleEffects(rawValue: 1 << 0)
    /// The engine starts from the bytes the task has.
    public static let startTransfer = LifecycleEffects(rawValue: 1 << 1)
    /// Progress and the recorded name are forgotten, and the task's own files are deleted
    /// once the session no longer names them (a finished file kept when the caller asks).
    public static let discardFiles = LifecycleEffects(rawValue: 1 << 2)

    var names: [String] {
        [(Self.stopTransfer, "stop transfer"), (Self.startTransfer, "start transfer"), (Self.discardFiles, "delete its files")]
            .filter { contains($0.0) }.map(\.1)
    }
}

/// Where a move leads.
public enum LifecycleTarget: Equatable, Sendable {
    case to(Phase)
    /// The state stays (the trash keeps it for a restore).
    case same
    /// The task is forgotten.
    case removed
}

/// Every rule of a task's life, declared once: for each event, the phases it moves a task
/// from, where to, and with which effects. A pair that is not here does not move the task
/// (pausing a finished download, stopping one that is finishing: it ends finished in a
/// moment, and pulling its file from under the rename would lose it).
///
/// The manager carries the moves out (`DownloadManager.move`); which event applies is the
/// caller's question (a resume is `start` when a slot is free, else `queue`). Whether a task
/// in the trash may take a move is the table's too: nothing in the trash starts or restarts.
public enum Lifecycle {
    public struct Rule: Sendable {
        public let event: LifecycleEvent
        public let from: [Phase]
        public let target: LifecycleTarget
        public let effects: LifecycleEffects
        /// Also for a task in the trash.
        public let inTrash: Bool
    }

    private static let idle: [Phase] = [.waiting, .paused, .stopped, .failed, .finished]

    public static let rules: [Rule] = [
        rule(.start, [.waiting, .paused, .stopped, .failed], .to(.downloading), [.startTransfer], inTrash: false),
        rule(.queue, [.paused, .stopped, .failed], .to(.waiting)),
        rule(.pause, [.waiting], .to(.paused)),
        rule(.pause, [.downloading], .to(.paused), [.stopTransfer]),
        rule(.stop, [.waiting, .paused], .to(.stopped)),
        rule(.stop, [.downloading], .to(.stopped), [.stopTransfer]),
        rule(.restart, [.paused, .stopped, .failed, .finished], .to(.waiting), [.discardFiles], inTrash: false),
        // A name or a folder moves the part file, which no transfer may be writing meanwhile.
        rule(.optionsChanging, [.downloading], .to(.waiting), [.stopTransfer]),
        rule(.deleteFiles, idle, .to(.stopped), [.discardFiles]),
        rule(.deleteFiles, [.downloading], .to(.stopped), [.stopTransfer, .discardFiles]),
        rule(.limitLowered, [.downloading], .to(.waiting), [.stopTransfer]),
        // The trash keeps the state for a restore; a download waits again, running nowhere.
        rule(.trash, idle, .same),
        rule(.trash, [.downloading], .to(.waiting), [.stopTransfer]),
        rule(.restore, idle, .same, inTrash: true),
        rule(.purge, idle, .removed, [.discardFiles]),
        rule(.purge, [.downloading], .removed, [.stopTransfer, .discardFiles]),
        rule(.allBytesIn, [.downloading], .to(.finishing)),
        rule(.checkFailedRetrying, [.finishing], .to(.downloading)),
        rule(.transferFinished, [.downloading, .finishing], .to(.finished)),
        rule(.transferFailed, [.downloading, .finishing], .to(.failed)),
        // What ran before goes on first; after a crash the user may have asked to look first.
        rule(.relaunchAfterCleanQuit, [.downloading], .to(.waiting)),
        rule(.relaunchAfterCrash, [.downloading], .to(.waiting)),
        rule(.relaunchAfterCrashWaiting, [.downloading], .to(.paused)),
        rule(.foundFinishedOnDisk, [.waiting, .downloading], .to(.finished)),
        rule(.readWithoutDownloading, [.downloading], .to(.waiting)),
        // The wrong file is the session's own (it downloaded it there): the right one replaces it.
        rule(.askedAgainFileWrong, [.finished], .to(.waiting), [.discardFiles], inTrash: false),
    ]

    private static func rule(_ event: LifecycleEvent, _ from: [Phase], _ target: LifecycleTarget,
                             _ effects: LifecycleEffects = [], inTrash: Bool = true) -> Rule {
        Rule(event: event, from: from, target: target, effects: effects, inTrash: inTrash)
    }

    private struct Key: Hashable {
        let event: LifecycleEvent
        let phase: Phase
    }

    private static let index: [Key: Rule] = {
        var index: [Key: Rule] = [:]
        for rule in rules {
            for phase in rule.from {
                precondition(index[Key(event: rule.event, phase: phase)] == nil, "two rules for \(rule.event) from \(phase)")
                index[Key(event: rule.event, phase: phase)] = rule
            }
        }
        return index
    }()

    /// The move `event` makes from `phase`, or nil when it leaves the task as it is.
    public static func rule(for event: LifecycleEvent, from phase: Phase, inTrash: Bool = false) -> Rule? {
        guard let rule = index[Key(event: event, phase: phase)], !inTrash || rule.inTrash else { return nil }
        return rule
    }

    /// The table as docs/design.md shows it: one row per rule.
    public static var markdownTable: String {
        var lines = ["| Event | From | To | Effects |", "|---|---|---|---|"]
        for rule in rules {
            let to: String
            switch rule.target {
            case .to(let phase): to = phase.rawValue
            case .same: to = "(unchanged)"
            case .removed: to = "(forgotten)"
            }
            var effects = rule.effects.names
            if !rule.inTrash { effects.append("not in the trash") }
            lines.append("| \(rule.event.rawValue) | \(rule.from.map(\.rawValue).joined(separator: ", ")) | \(to) | \(effects.isEmpty ? "-" : effects.joined(separator: "; ")) |")
        }
        return lines.joined(separator: "\n")
    }
}
