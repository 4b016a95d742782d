import Foundation

/// The user's settings for one session, persisted with it.
public struct SessionSettings: Equatable, Sendable {
    public var arrangement = Arrangement.sorted(.addTime, .ascending)
    public var sectioning = SectioningOptions()
    public var maxDownloadCount = 3
    /// The most downloads at once a command, a key or a caller may ask for.
    public static let largestDownloadCount = 10_000
    public var downloadDirectory: String?
    public var globalRateLimit: Int64?
    public var connectionsPerDownload = 8
    public var resumeInterruptedOnLaunch = true
    /// The last tdl that downloaded in this session quit cleanly (false while one runs, and
    /// after a crash or kill): only then are downloads it left reported as interrupted.
    public var endedCleanly = true
    public var maxRetries = 3
    public var onComplete: String?
    public var onError: String?
    /// aria2's JSON-RPC (`tdl serve`, `tdl --rpc`): its port, whether it listens beyond
    /// 127.0.0.1, and the secret its clients send as `token:`.
    public var rpcListenPort = 6800
    public var rpcListenAll = false
    public var rpcSecret: String?
    /// Web pages (origins) allowed to call it, or every one; the folders, beside the session's
    /// download folder, its callers may download into.
    public var rpcAllowOrigins: [String] = []
    public var rpcAllowOriginAll = false
    public var rpcAllowedDirs: [String] = []
    // Named queues and the total rate cap by the clock (see `QueueDefinition`, `RateSchedule`).
    public var queues = QueueList()
    public var rateSchedule = RateSchedule()

    public init() {}
}

/// The manual-mode arrangement (predefined sorts derive theirs from the tasks).
public struct ManualLayout: Equatable, Sendable {
    public var sections: [[String]]
    public var titles: [String]

    public init(sections: [[String]], titles: [String]) {
        self.sections = sections
        self.titles = titles
    }
}

/// Everything a session holds, as read on launch.
public struct SessionSnapshot: Sendable {
    /// By URL: the manager adopts this table as it is, rather than inserting 100,000 tasks again.
    public internal(set) var tasks: [String: DownloadTask] = [:]
    /// Tasks saved while downloading or waiting: the ones a launch restores.
    public private(set) var activeURLs: [String] = []
    /// The active tasks a launch may change: those saved downloading, and those of a known
    /// size (a file renamed into place before the task was marked finished). A million
    /// waiting tasks of unknown size are then not looked up one by one.
    private(set) var activeURLsToReconcile: [String] = []
    /// Kept as tasks are read, so the manager's table needs no count of its own.
    private(set) var listedCounts = ListedCounts()
    /// Tasks in the trash, with when they went there.
    public private(set) var trashed: [(deletedAt: Date, url: String)] = []
    public var settings: SessionSettings
    public var manualLayout: ManualLayout?
    /// Tasks a purge began to forget (their files going) and a kill cut off: the load
    /// finishes the purge. Only a load of the whole session reads them.
    public var pendingPurges: [String] = []

    public init(tasks: [DownloadTask] = [], settings: SessionSettings = SessionSettings(), manualLayout: ManualLayout? = nil) {
        self.settings = settings
        self.manualLayout = manualLayout
        for task in tasks { insert(task) }
    }

    /// Adds a task as it is read. The launch then needs no pass over every task to find the
    /// active ones and the trash.
    /// The task moves into the table (a task handed over by another thread is not copied).
    public mutating func insert(_ task: consuming DownloadTask) {
        let url = task.url
        let isActive = task.state.isActive
        let reconciles = task.state == .downloading || task.size != nil
        let deletedAt = task.deletedAt
        listedCounts.add(task)
        if let replaced = tasks.updateValue(consume task, forKey: url) {
            activeURLs.removeAll { $0 == url }
            activeURLsToReconcile.removeAll { $0 == url }
            trashed.removeAll { $0.url == url }
            listedCounts.remove(replaced)
        }
        if isActive {
            activeURLs.append(url)
            if reconciles { activeURLsToReconcile.append(url) }
        }
        if let deletedAt { trashed.append((deletedAt, url)) }
    }

    public mutating func reserveCapacity(_ count: Int) { tasks.reserveCapacity(count) }

    /// Segments are stored apart from their task; they are attached once both are read. They
    /// are what progress checkpoints write, so the received count follows from them.
    public mutating func setSegments(_ segments: [Segment], of url: String) {
        guard let index = tasks.index(forKey: url) else { return }
        tasks.values[index].segments = segments
        tasks.values[index].received = segments.reduce(0) { $0 + $1.done }
    }
}

/// What changed since the last write: only this is written.
public struct SessionChanges: Sendable {
    public var upserted: [DownloadTask] = []
    public var removed: [String] = []
    /// Segment progress only (the hot path of a checkpoint): url → segments.
    public var progress: [String: [Segment]] = [:]
    public var settings: SessionSettings?
    public var manualLayout: ManualLayout?
    /// Tasks a purge is about to forget, recorded before their files go (`PendingPurge`).
    public var purgesBegun: [String] = []
    /// Purges over: forgotten in the same commit as the tasks they forgot.
    public var purgesEnded: [String] = []

    public init() {}

    public var isEmpty: Bool {
        upserted.isEmpty && removed.isEmpty && progress.isEmpty && settings == nil && manualLayout == nil
            && purgesBegun.isEmpty && purgesEnded.isEmpty
    }
}

/// Persistence as the core sees it; TDLStore implements it on SQLite.
public protocol SessionStore: AnyObject {
    func load() throws -> SessionSnapshot
    func commit(_ changes: SessionChanges) throws
    /// Tasks of the session that `load` did not give (a store that gives only the rows a
    /// command names) and that may own the file or part file at `path`: more rather than
    /// fewer, the caller checks each.
    func unloadedTasks(mayOwning path: String) throws -> [DownloadTask]
}

extension SessionStore {
    /// A store that loads the whole session leaves no task out.
    public func unloadedTasks(mayOwning path: String) throws -> [DownloadTask] { [] }
}
