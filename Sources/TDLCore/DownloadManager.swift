import Foundation

/// The heart of tdl, after SDEDownloadManager: the list of downloads as sections of URL strings,
/// the trash, the scheduler, and the bridge between the transfer engine and the session store.
///
///     let manager = DownloadManager(identifier: "default", defaultDirectory: "/tmp")
///     let result = manager.add(["https://example.org/a.iso"])
///     manager.downloadList   // [["https://example.org/a.iso"]]
///
/// Not thread-safe by design: it lives on the event loop, like every caller of it.
public final class DownloadManager {
    public let identifier: String
    public internal(set) var settings: SessionSettings
    /// Folder for new downloads when neither the call nor the settings name one.
    public var defaultDirectory: String
    /// SDE's downloadNewFileImmediately: new tasks start (or queue) at once when true.
    public var downloadNewFileImmediately = true
    /// The tdl home: no download is added into it (see `ReservedFolder`).
    public var reservedFolder: ReservedFolder?
    /// Injected for tests: the time used for add times, sectioning and speed.
    public var clock: () -> Date = Date.init
    /// Who hears of every change (the screen, `tdl get`, the hooks).
    var observers = ManagerObservers()
    /// Hashes a file (path, algorithm → hex): a finished file asked for again with a checksum
    /// is verified, not trusted. Nil: not verified.
    public var fileDigest: ((String, Checksum.Algorithm) -> String?)?

    public let engine: TransferEngine?
    public let store: SessionStore?

    var tasks = TaskTable()
    var list: ListModel
    public internal(set) var toDeleteList: [String] = []
    /// Follows the states of the loaded tasks from its first use on: a command that only reads
    /// the session (`tdl list`) never queues a million waiting tasks, most of a second.
    var scheduler: Scheduler {
        _read {
            scheduleLoadedTasks()
            yield schedulerState
        }
        _modify {
            scheduleLoadedTasks()
            yield &schedulerState
        }
    }
    var schedulerState = Scheduler()
    /// What the last load left for the scheduler.
    var leftByLoad = LoadedTasks()
    /// True inside `schedule`, which an engine event from `start` may call again.
    var scheduling = false
    var live = LiveActivity()
    var saves = SaveQueue()
    /// This run's own limits over the session's (see `RunLimits`).
    var runLimits = RunLimits()
    /// A config file's folder and launch choice for this run, never saved (see `RunConfig`).
    var runConfig = RunConfig()
    var wasBusy = false
    /// See `today()`.
    var currentDay: DateInterval?
    /// How far `prepareSortNames(for:)` got.
    var sortNamePreparation = SortNamePreparation()
    /// When the queues' windows next change (`DownloadManager+Queues.swift`).
    var queueClock = QueueClock()

    public init(identifier: String = "default", defaultDirectory: String, engine: TransferEngine? = nil, store: SessionStore? = nil) {
        self.identifier = identifier
        self.defaultDirectory = defaultDirectory
        self.engine = engine
        self.store = store
        self.settings = SessionSettings()
        list = ListModel(arrangement: settings.arrangement)
        engine?.onEvent = { [weak self] event in self?.handle(event) }
        engine?.isNameTaken = { [weak self] url, path in self?.isNameTaken(path, except: url) ?? false }
        // `.resolved` is committed before the engine goes on: a failed commit shows here.
        engine?.isRecorded = { [weak self] _ in self?.isUnsaved == false }
    }

    // MARK: - Observers

    /// Hears every change from now on, until `stopObserving` with the returned number.
    @discardableResult
    public func observe(_ hear: @escaping (ManagerEvent) -> Void) -> Int { observers.add(hear) }

    public func stopObserving(_ id: Int) { observers.remove(id) }

    func emit(_ event: ManagerEvent) { observers.tell(event) }

    public func flush() {
        guard let store, let changes = saves.take(tasks: tasks.byURL, list: list, at: clock()) else { return }
        do {
            try store.commit(changes)
            lastError = nil
        } catch {
            saves.giveBack(changes)
            saveFailed("\(error)")
        }
    }

    /// A commit the session refused: said once, kept as `lastError` until a save succeeds.
    func saveFailed(_ why: String) {
        let problem = "could not save the session: \(why)"
        lastError = problem
        emit(.saveFailed(problem))
    }

    /// Why the last save failed (nil once one succeeds): the changes wait for the next try.
    public internal(set) var lastError: String?

    /// Files that could not be deleted, kept for the command that asked (`takeDeleteFailures`).
    var deleteFailures: [FileDeleteFailure] = []

    /// Commits what must be durable before the engine makes a file: the changed tasks but
    /// those whose change may wait (a download started or ended, `markDirty(_:mayWait:)`),
    /// which the next save writes with the others. A session that failed to save, or a
    /// removal, a purge or the settings waiting, takes a whole `flush`.
    func flushUrgent() {
        guard !isUnsaved, saves.holdsOnlyTaskChanges else { return flush() }
        guard let store, let changes = saves.takeUrgent(tasks: tasks.byURL) else { return }
        do {
            try store.commit(changes)
        } catch {
            saves.giveBackUrgent(changes)
            saveFailed("\(error)")
        }
    }

    /// Every change that is saved passes here, so the name claims follow it too. `mayWait`:
    /// the change (a download's start or end, never a name) need not go out with a commit
    /// the engine waits for; it goes with the next save, within a tenth of a second.
    func markDirty(_ url: String, mayWait: Bool = false) {
        if mayWait { saves.taskChangedMayWait(url) } else { saves.taskChanged(url) }
        if claims != nil, let task = tasks[url] { claims!.update(task) }
    }

    /// Built when the engine first asks (a launch of 100,000 tasks does not pay for it), then
    /// kept current by `markDirty`.
    var claims: NameClaims?

    func isNameTaken(_ path: String, except url: String) -> Bool {
        if claims == nil { claims = NameClaims(tasks.values) }
        return claims!.isTaken(path, except: url)
            || isClaimedOutside(path) { $0.url != url && NameClaims.path(of: $0) == path }
    }

    /// Whether a task the store did not load (see `SessionStore.unloadedTasks`) claims `path`
    /// by `claims`. A store that cannot answer counts as a claim: a name is then refused and
    /// a file kept, never one taken or deleted under another task.
    func isClaimedOutside(_ path: String, by claims: (DownloadTask) -> Bool) -> Bool {
        guard let store else { return false }
        guard let others = try? store.unloadedTasks(mayOwning: path) else { return true }
        return others.contains { tasks[$0.url] == nil && claims($0) }
    }

    func markSettingsDirty() { saves.settingsChanged(settings) }
}
